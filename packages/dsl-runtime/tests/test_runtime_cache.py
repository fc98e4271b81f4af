"""Cache keys, the disk cache across processes, corruption and concurrency."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import runtime_kernels as k

from dsl_runtime import cache, jit, keys

HERE = Path(__file__).parent

SCRIPT = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {here!r})
    import runtime_kernels as k
    x = np.arange(16, dtype=np.float32)
    z = k.scale_add(x, x)
    assert (z == x * x + x).all()
    cf = k.scale_add.compile(x, x)
    print("SOURCE", cf.source, "PHASES", ",".join(sorted(k.scale_add.timings)))
""")


def run_child(cache_dir: Path) -> str:
    env = {**os.environ, "DSL_CACHE_DIR": str(cache_dir)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(here=str(HERE))], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


def test_fresh_process_reuses_disk_cache(_isolated_cache: Path) -> None:
    first = run_child(_isolated_cache)
    assert first.startswith("SOURCE compiled") and "parse" in first and "lower" in first
    second = run_child(_isolated_cache)
    assert second.startswith("SOURCE disk-cache") and "parse" not in second and "load" in second
    assert len(cache.entries()) == 1


def test_corrupted_entry_is_detected_and_recompiled(_isolated_cache: Path) -> None:
    run_child(_isolated_cache)
    (entry,) = cache.entries()
    lowered = entry.path / "lowered.mlir"
    lowered.write_text(lowered.read_text()[:200])  # truncated
    out = run_child(_isolated_cache)
    assert out.startswith("SOURCE compiled")
    assert run_child(_isolated_cache).startswith("SOURCE disk-cache")


def test_several_processes_compile_the_same_kernel(_isolated_cache: Path) -> None:
    env = {**os.environ, "DSL_CACHE_DIR": str(_isolated_cache)}
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT.format(here=str(HERE))], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    outputs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outputs]
    assert len(cache.entries()) == 1
    assert not [p for p in _isolated_cache.rglob(".tmp-*")]


def test_keys_cover_specialization_options_and_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    ident = keys.function_identity(k.scale_add.__wrapped__)
    assert ident is not None and "def scale_add" in ident
    base = keys.digest(ident, (), "opts")
    assert base == keys.digest(ident, (), "opts")
    assert base != keys.digest(ident, (("times", "int", "3"),), "opts")
    assert base != keys.digest(ident, (), "other-opts")
    keys.component_versions.cache_clear()
    monkeypatch.setattr(keys, "__version__", "9.9.9")
    try:
        assert keys.digest(ident, (), "opts") != base
    finally:
        keys.component_versions.cache_clear()


def test_the_keys_take_the_version_of_the_layer_that_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layers' versions come from the imported packages (what compiles the code), not
    from a second read of their files."""
    import dsl_parser

    keys.component_versions.cache_clear()
    base = keys.digest("kernel")
    assert ("dsl-parser", dsl_parser.__version__) in keys.component_versions()
    monkeypatch.setattr(dsl_parser, "__version__", "9.9.9")
    keys.component_versions.cache_clear()
    try:
        assert ("dsl-parser", "9.9.9") in keys.component_versions()
        assert keys.digest("kernel") != base
    finally:
        keys.component_versions.cache_clear()


def test_a_rebuild_of_dsl_mlir_with_the_same_version_changes_the_keys(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found when rebuilding: code compiled by the previous build of the pipelines (same
    version numbers) was loaded from the disk cache with its old run-time check messages."""
    import dsl_mlir

    ident = keys.function_identity(k.scale_add.__wrapped__)
    assert ident is not None
    keys.component_versions.cache_clear()
    assert ("dsl-mlir-build", dsl_mlir.native_build_id()) in keys.component_versions()
    base = keys.digest(ident, (), "opts")
    monkeypatch.setattr(dsl_mlir, "native_build_id", lambda: "0" * 40)
    keys.component_versions.cache_clear()
    try:
        assert keys.digest(ident, (), "opts") != base
    finally:
        keys.component_versions.cache_clear()


# The constant's value comes from the environment: the source text is the same in every
# process, only the value differs (so only the constant itself can change the key).
SCALED = textwrap.dedent("""
    import os
    import dsl_parser.language as pl
    from dsl_runtime import jit
    N = pl.dynamic("N")
    SCALE = float(os.environ["SCALE"])

    @jit
    def scaled(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        return pl.mul(x, SCALE)
""")
SCALED_RUN = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {here!r})
    import scaled_kernel as m
    x = np.arange(8, dtype=np.float32)
    print("RESULT", *m.scaled(x).tolist(), "SOURCE", m.scaled.compile(x).source)
""")


def _scaled_child(work: Path, cache_dir: Path, scale: str) -> tuple[list[float], str]:
    env = {**os.environ, "DSL_CACHE_DIR": str(cache_dir), "SCALE": scale}
    proc = subprocess.run([sys.executable, "-c", SCALED_RUN.format(here=str(work))], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    words = proc.stdout.split()
    return [float(w) for w in words[1:words.index("SOURCE")]], words[-1]


def test_constants_named_by_the_function_enter_the_key(tmp_path: Path, _isolated_cache: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "scaled_kernel.py").write_text(SCALED)
    x = np.arange(8, dtype=np.float32)
    result, source = _scaled_child(tmp_path, _isolated_cache, "2.0")
    assert (result, source) == ((x * 2).tolist(), "compiled")
    # Same source, another value: a new entry with the new value, never the cached x * 2.
    result, source = _scaled_child(tmp_path, _isolated_cache, "3.0")
    assert (result, source) == ((x * 3).tolist(), "compiled")
    result, source = _scaled_child(tmp_path, _isolated_cache, "2.0")
    assert (result, source) == ((x * 2).tolist(), "disk-cache")
    assert len(cache.entries()) == 2
    # In process: the identity holds the value the code names, and only that.
    monkeypatch.setenv("SCALE", "2.0")
    monkeypatch.syspath_prepend(str(tmp_path))
    import scaled_kernel  # type: ignore[import-not-found]

    fn = scaled_kernel.scaled.__wrapped__
    assert keys.referenced_constants(fn) == [("SCALE", "2.0")]
    before = keys.function_identity(fn)
    monkeypatch.setattr(scaled_kernel, "SCALE", 3.0)
    assert keys.referenced_constants(fn) == [("SCALE", "3.0")]
    assert keys.function_identity(fn) != before
    assert keys.referenced_constants(k.scale_add.__wrapped__) == []


def test_disable_switch(monkeypatch: pytest.MonkeyPatch, _isolated_cache: Path) -> None:
    monkeypatch.setenv("DSL_DISABLE_DISK_CACHE", "1")
    fresh = jit(k.scale_add.__wrapped__)
    x = np.ones(3, np.float32)
    fresh(x, x)
    assert cache.entries() == []


def _entry_files(cache_dir: Path) -> set[str]:
    (entry,) = cache.entries()
    return {p.name for p in entry.path.iterdir()}


@pytest.mark.skipif(not __import__("shutil").which("cc"), reason="no C compiler driver")
def test_native_code_is_cached_as_a_shared_library(_isolated_cache: Path) -> None:
    run_child(_isolated_cache)
    assert "kernel.so" in _entry_files(_isolated_cache)
    assert run_child(_isolated_cache).startswith("SOURCE disk-cache")
    (entry,) = cache.entries()
    library = entry.path / "kernel.so"
    library.write_bytes(library.read_bytes()[:1000])  # corrupted native code is never loaded
    assert run_child(_isolated_cache).startswith("SOURCE compiled")


def test_without_a_c_compiler_the_lowered_ir_is_cached(_isolated_cache: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nonexistent/cc")
    run_child(_isolated_cache)
    assert "kernel.so" not in _entry_files(_isolated_cache)
    assert run_child(_isolated_cache).startswith("SOURCE disk-cache")


def test_entries_are_written_in_the_background_and_flushed(_isolated_cache: Path) -> None:
    fresh = jit(k.scale_add.__wrapped__)
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(fresh(x, x), x * x + x)  # returns before the entry is written
    cache.flush()
    (entry,) = cache.entries()
    assert {"abi.json", "dsl.mlir", "lowered.mlir", "manifest.json"} <= {p.name for p in entry.path.iterdir()}
    assert not [p for p in _isolated_cache.rglob(".tmp-*")]


def test_flush_waits_for_writes_queued_by_other_threads(_isolated_cache: Path) -> None:
    """store_later from many threads at once: flush() returns only when every entry is
    on disk (a queued thread not started yet was dropped by another call's pruning)."""
    import threading

    from dsl_runtime import cache as disk

    files = []
    barrier = threading.Barrier(8)

    def queue(i: int) -> None:
        barrier.wait()
        key = f"{i:064x}"
        abi = disk.KernelABI(function=f"f{i}", packed_symbol="p", c_symbol="c", params=(),
                             results=(), symbols=())
        disk.store_later(key, abi, "module {}", "module {}", {})
        files.append(key)

    for _ in range(5):
        threads = [threading.Thread(target=queue, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        disk.flush()
        assert sorted(e.key for e in disk.entries(wait=False)) == sorted(files)
        disk.clear()
        files.clear()
