"""Source records (``dsl_runtime.source_index``) and the extensions' code digests kept in
the extension index: the cache key of a warm first call without reading the function's
file or the extension's files, and never a stale key when a file changed."""

from __future__ import annotations

import importlib.util
import json
import linecache
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from dsl_core import versions
from dsl_runtime import cache, fingerprint, keys, source_index

#: Ten seconds back: a file the records treat as settled (``versions.SETTLE_NS``).
AGE_NS = 10 * 10**9

KERNEL = textwrap.dedent("""
    import dsl_parser.language as pl
    from dsl_runtime import jit
    N = pl.dynamic("N")

    @jit
    def scaled(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        # note: {note}
        return pl.mul(x, {scale})
""")


def kernel(scale: str, note: str = "first") -> str:
    return KERNEL.format(scale=scale, note=note)


def write_settled(path: Path, text: str, age_ns: int = AGE_NS) -> None:
    """Write ``text`` and date the file ``age_ns`` back (as an edit made a while ago)."""
    path.write_text(text)
    then = time.time_ns() - age_ns
    os.utime(path, ns=(then, then))


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def records(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / cache.LAYOUT / cache.SOURCES).glob("*.json"))


def forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a fresh process knows: no record or source read yet."""
    monkeypatch.setattr(source_index, "_known", {})
    monkeypatch.setattr(keys, "_indexes", {})
    monkeypatch.setattr(keys, "_code", {})
    fingerprint._sources.clear()
    fingerprint._trees.clear()


def test_a_record_gives_the_key_the_source_gives(tmp_path: Path, _isolated_cache: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rec_same.py"
    write_settled(path, kernel("2.0"))
    fn = load_module(path, "rec_same").scaled.__wrapped__
    monkeypatch.setenv("DSL_DISABLE_DISK_CACHE", "1")  # no records: read from the file
    expected = keys.function_identity(fn), keys.value_sources(fn)
    assert records(_isolated_cache) == []
    monkeypatch.delenv("DSL_DISABLE_DISK_CACHE")
    forget(monkeypatch)
    assert (keys.function_identity(fn), keys.value_sources(fn)) == expected
    (record,) = records(_isolated_cache)
    data = json.loads(record.read_text())
    assert data["file"] == str(path) and "pl.mul(x, 2.0)" in data["source"]
    assert ["pl", "mul"] in data["chains"] and data["size"] == path.stat().st_size
    # A fresh process takes both from the record: the file is not read at all.
    forget(monkeypatch)
    linecache.cache.pop(str(path), None)

    def unread(fn: Any) -> None:
        raise AssertionError("read the source although its record is valid")

    monkeypatch.setattr(fingerprint, "source", unread)
    monkeypatch.setattr(fingerprint, "references", unread)
    assert (keys.function_identity(fn), keys.value_sources(fn)) == expected
    assert str(path) not in linecache.cache


def test_an_edited_file_is_read_again(tmp_path: Path, _isolated_cache: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Same size, another time stamp: the record no longer applies."""
    path = tmp_path / "rec_edit.py"
    write_settled(path, kernel("2.0"))
    module = load_module(path, "rec_edit")
    fn = module.scaled.__wrapped__
    before = keys.function_identity(fn)
    assert before is not None and len(records(_isolated_cache)) == 1
    forget(monkeypatch)
    linecache.cache.pop(str(path), None)
    write_settled(path, kernel("3.0"), age_ns=AGE_NS // 2)  # edited since
    after = keys.function_identity(fn)  # the same code object, the file's new text
    assert after is not None and "pl.mul(x, 3.0)" in after and after != before


def test_no_record_for_a_fresh_edit_or_an_older_copy(tmp_path: Path, _isolated_cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A file modified just now may change again within its time stamp's tick, and lines
    linecache kept from an older version of the file are not the file: neither is
    recorded (the key still covers what was read)."""
    fresh = tmp_path / "rec_fresh.py"
    fresh.write_text(kernel("2.0"))
    fn = load_module(fresh, "rec_fresh").scaled.__wrapped__
    assert "pl.mul(x, 2.0)" in (keys.function_identity(fn) or "")
    assert records(_isolated_cache) == []
    older = tmp_path / "rec_older.py"
    write_settled(older, kernel("2.0"))
    fn = load_module(older, "rec_older").scaled.__wrapped__
    stale = kernel("7.5").splitlines(keepends=True)
    linecache.cache[str(older)] = (1, 1.0, stale, str(older))  # not the file's state
    try:
        assert "pl.mul(x, 7.5)" in (keys.function_identity(fn) or "")
    finally:
        linecache.cache.pop(str(older), None)
    assert records(_isolated_cache) == []


@pytest.mark.parametrize("damage", ["garbage", "wrong-types", "other-file", "racy", "no-chains"])
def test_a_damaged_record_is_ignored(tmp_path: Path, _isolated_cache: Path,
                                     monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    path = tmp_path / f"rec_{damage.replace('-', '_')}.py"
    write_settled(path, kernel("2.0"))
    fn = load_module(path, path.stem).scaled.__wrapped__
    expected = keys.function_identity(fn)
    (record,) = records(_isolated_cache)
    data = json.loads(record.read_text())
    data["source"] = data["source"].replace("2.0", "9.0")  # what a wrong record would give
    if damage == "garbage":
        record.write_bytes(b"\x00{not json")
    else:
        if damage == "wrong-types":
            data["chains"] = [[1, 2]]
        elif damage == "other-file":
            data["file"] = str(tmp_path / "elsewhere.py")
        elif damage == "racy":
            data["taken_ns"] = data["mtime_ns"] + 1
        else:
            data["chains"] = [[]]
        record.write_text(json.dumps(data))
    forget(monkeypatch)
    assert keys.function_identity(fn) == expected


def test_a_kernel_edit_changes_its_host_function_key(tmp_path: Path, _isolated_cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The host function's own record does not cover the kernels it launches: each has
    its own, checked against its own file."""
    write_settled(tmp_path / "rec_kern.py", textwrap.dedent("""
        import dsl_parser.language as pl

        @pl.kernel
        def k(x: pl.Tensor[[8], pl.FP32]):
            i = pl.thread_id(0)
            x[i] = x[i] + 1.0
    """))
    write_settled(tmp_path / "rec_host.py", textwrap.dedent("""
        import dsl_parser.language as pl
        from rec_kern import k

        def host(x: pl.Tensor[[8], pl.FP32]):
            k(x).launch(grid=1, block=8)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    kern = load_module(tmp_path / "rec_kern.py", "rec_kern")
    monkeypatch.setitem(sys.modules, "rec_kern", kern)
    host = load_module(tmp_path / "rec_host.py", "rec_host").host
    before = keys.function_identity(host)
    assert before is not None and "x[i] + 1.0" in before and len(records(_isolated_cache)) == 2
    forget(monkeypatch)
    assert keys.function_identity(host) == before  # both from their records
    forget(monkeypatch)
    for name in ("rec_kern.py", "rec_host.py"):
        linecache.cache.pop(str(tmp_path / name), None)
    text = (tmp_path / "rec_kern.py").read_text().replace("x[i] + 1.0", "x[i] * 2.0")
    write_settled(tmp_path / "rec_kern.py", text, age_ns=AGE_NS // 2)
    after = keys.function_identity(host)
    assert after is not None and "x[i] * 2.0" in after and after != before


def test_the_records_folder_is_trimmed(_isolated_cache: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_RECORDS", 8)
    monkeypatch.setattr(cache, "_trimmed", set())
    folder = _isolated_cache / cache.LAYOUT / cache.SOURCES
    folder.mkdir(parents=True)
    for i in range(12):
        (folder / f"{i:064x}.json").write_text("{}")
        os.utime(folder / f"{i:064x}.json", ns=(i * 10**9, i * 10**9))
    assert cache.store_record("f" * 64, b"{}", cache.SOURCES)
    left = sorted(p.name for p in folder.glob("*.json"))
    assert len(left) == 6 and f"{0:064x}.json" not in left and "f" * 64 + ".json" in left
    with pytest.raises(ValueError):
        cache.store_record("f" * 64, b"{}", "elsewhere")


def test_the_code_id_is_stable_across_processes(tmp_path: Path) -> None:
    """The record's id digests the code object itself (``marshal`` output is not stable:
    it depends on reference counts), with string hashing randomized per process."""
    path = tmp_path / "rec_stable.py"
    write_settled(path, "def f(a):\n    return a in {'x', 'y', 'z'} and (1, 2.5, b'q')\n")
    script = textwrap.dedent(f"""
        import importlib.util
        from dsl_runtime import source_index
        spec = importlib.util.spec_from_file_location("rec_stable", {str(path)!r})
        m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
        print(source_index._record_id(m.f))
    """)
    ids = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout.strip()
           for seed in ("1", "2", "3")}
    assert len(ids) == 1 and len(ids.pop()) == 64


CHILD = textwrap.dedent("""
    import linecache, sys
    import numpy as np
    sys.path.insert(0, {here!r})
    import rec_child as m
    x = np.arange(8, dtype=np.float32)
    print("RESULT", *m.scaled(x).tolist(), "SOURCE", m.scaled.compile(x).source,
          "READ", m.__file__ in linecache.cache)
""")


def run_child(work: Path, cache_dir: Path) -> tuple[list[float], str, str]:
    env = {**os.environ, "DSL_CACHE_DIR": str(cache_dir)}
    proc = subprocess.run([sys.executable, "-c", CHILD.format(here=str(work))], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    words = proc.stdout.split()
    return [float(w) for w in words[1:words.index("SOURCE")]], words[-3], words[-1]


def test_fresh_processes_use_the_record_until_the_file_changes(tmp_path: Path,
                                                               _isolated_cache: Path) -> None:
    """End to end, each run a fresh process: the second run's first call reads neither
    the kernel's file nor compiles. An edit of a comment leaves the code object (the
    record's id) as it was: the file's new state alone sends the key back to the file.
    An edit of the code runs the new code."""
    x = np.arange(8, dtype=np.float32)
    path = tmp_path / "rec_child.py"
    write_settled(path, kernel("2.0"))
    assert run_child(tmp_path, _isolated_cache) == ((x * 2).tolist(), "compiled", "True")
    assert run_child(tmp_path, _isolated_cache) == ((x * 2).tolist(), "disk-cache", "False")
    write_settled(path, kernel("2.0", note="other"), age_ns=AGE_NS * 3 // 4)
    assert run_child(tmp_path, _isolated_cache) == ((x * 2).tolist(), "compiled", "True")
    assert run_child(tmp_path, _isolated_cache) == ((x * 2).tolist(), "disk-cache", "False")
    write_settled(path, kernel("3.0"), age_ns=AGE_NS // 2)
    assert run_child(tmp_path, _isolated_cache) == ((x * 3).tolist(), "compiled", "True")
    assert run_child(tmp_path, _isolated_cache) == ((x * 3).tolist(), "disk-cache", "False")


def test_extension_code_digests_come_from_the_index_while_unchanged(
        tmp_path: Path, _isolated_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed extension's package digest is kept with the states of its files and
    folders; a fresh process checks the states instead of reading the files, and an
    edit, or a file added, is read again."""
    package = tmp_path / "rec_ext_pkg"
    package.mkdir()
    write_settled(package / "__init__.py", "def register(r):\n    pass\n")
    write_settled(package / "rules.py", "SCALE = 1\n")
    then = time.time_ns() - AGE_NS
    os.utime(package, ns=(then, then))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(keys, "installed_extensions",
                        lambda state=None: [("rec-ext", "rec_ext_pkg:register", "1.0")])
    monkeypatch.delitem(sys.modules, "dsl_parser.extensions.registry", raising=False)
    forget(monkeypatch)
    expected = versions.package_fingerprint("rec_ext_pkg")[0]
    assert keys.extension_code() == (("rec-ext", expected),)
    state = keys._path_state()
    recorded = json.loads((_isolated_cache / cache.LAYOUT / keys.INDEX).read_text())
    digest, files = recorded["states"][state]["code"]["rec_ext_pkg"]
    assert digest == expected and {f[0] for f in files} >= {str(package / "rules.py")}

    def unread(top: str) -> Any:
        raise AssertionError("read the package although the index covers it")

    forget(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(versions, "package_fingerprint", unread)
        assert keys.extension_code() == (("rec-ext", expected),)
    forget(monkeypatch)
    write_settled(package / "rules.py", "SCALE = 2\n", age_ns=AGE_NS // 2)
    edited = keys.extension_code()
    assert edited != (("rec-ext", expected),)
    assert edited == (("rec-ext", versions.package_fingerprint("rec_ext_pkg")[0]),)
    forget(monkeypatch)
    write_settled(package / "more.py", "X = 1\n")  # a new file: its folder's time changes
    assert keys.extension_code() == (("rec-ext", versions.package_fingerprint("rec_ext_pkg")[0]),)
    assert keys.extension_code() != edited
