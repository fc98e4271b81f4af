"""The disk cache is safe to share and cannot run planted code (issue 12).

Every scenario runs a fresh process with a timeout and asserts that it survives and
computes the right numbers; planted code would leave a marker file behind."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dsl_runtime import cache

HERE = Path(__file__).parent
NEEDS_CC = pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler driver")

CHILD = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, {here!r})
    {prelude}
    import runtime_kernels as k
    x = np.arange(16, dtype=np.float32)
    for _ in range(2):
        z = k.scale_add(x, x)
        assert (z == x * x + x).all(), z
    print("SOURCE", k.scale_add.compile(x, x).source)
""")

PLANTED_C = textwrap.dedent("""
    #include <stdio.h>
    static void mark(void) {{ FILE *f = fopen("{marker}", "w"); if (f) {{ fputs("ran", f); fclose(f); }} }}
    __attribute__((constructor)) static void planted_init(void) {{ mark(); }}
    void _mlir__mlir_ciface_scale_add(void **args) {{ (void)args; mark(); }}
""")


def run_child(cache_dir: Path | str, prelude: str = "", timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DSL_CACHE_DIR": str(cache_dir)}
    code = CHILD.format(here=str(HERE), prelude=prelude)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc


def source_of(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout.split("SOURCE", 1)[1].strip()


def only_entry(cache_dir: Path) -> Path:
    (entry,) = [p for p in (cache_dir / cache.LAYOUT).glob("[0-9a-f][0-9a-f]/*")
                if not p.name.startswith(".")]
    return entry


def rewrite_manifest(entry: Path, **files: bytes) -> None:
    """Replace files of an entry and recompute its manifest (what an attacker would do)."""
    manifest = json.loads((entry / "manifest.json").read_text())
    for name, data in files.items():
        (entry / name).unlink(missing_ok=True)
        (entry / name).write_bytes(data)
        manifest["files"][name] = hashlib.sha256(data).hexdigest()
    (entry / "manifest.json").write_text(json.dumps(manifest))


def planted_library(tmp_path: Path, marker: Path) -> bytes:
    src = tmp_path / "planted.c"
    src.write_text(PLANTED_C.format(marker=marker))
    lib = tmp_path / "planted.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True, timeout=120)
    return lib.read_bytes()


def warnings_in(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if "not using the disk cache" in line]


# -- permissions --------------------------------------------------------------------------------
def test_cache_folders_are_private_and_files_owner_only(_isolated_cache: Path) -> None:
    assert source_of(run_child(_isolated_cache)) == "compiled"
    entry = only_entry(_isolated_cache)
    for folder in (_isolated_cache, _isolated_cache / cache.LAYOUT, entry.parent, entry):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    files = list(entry.iterdir())
    assert {"manifest.json", "abi.json", "lowered.mlir"} <= {f.name for f in files}
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)


@NEEDS_CC
@pytest.mark.parametrize("how", ["foreign-owner", "world-writable", "group-writable-entry"])
def test_planted_library_in_an_untrusted_folder_never_runs(tmp_path: Path, _isolated_cache: Path,
                                                          how: str) -> None:
    run_child(_isolated_cache)
    entry = only_entry(_isolated_cache)
    marker = tmp_path / "planted-ran"
    rewrite_manifest(entry, **{"kernel.so": planted_library(tmp_path, marker)})
    if how == "foreign-owner":
        if os.geteuid() != 0:
            pytest.skip("simulating another user's folder needs root (os.chown)")
        for path in [_isolated_cache, *_isolated_cache.rglob("*")]:
            os.chown(path, 65534, 65534)
    elif how == "world-writable":
        _isolated_cache.chmod(0o777)
    else:
        entry.chmod(0o770)
    proc = run_child(_isolated_cache)
    assert not marker.exists(), "planted code ran"
    assert source_of(proc) == "compiled"
    if how != "group-writable-entry":  # the whole folder is refused, once
        assert len(warnings_in(proc)) == 1, proc.stderr
        assert ("owned by uid 65534" if how == "foreign-owner" else "writable by group or others") \
            in proc.stderr
    else:  # an entry in a trusted folder that others may write is junk: removed, rebuilt
        assert warnings_in(proc) == []
        assert source_of(run_child(_isolated_cache)) == "disk-cache"
        assert not marker.exists()


SWAP = textwrap.dedent("""
    from dsl_runtime import safefs
    _read = safefs.read_file
    def read_then_swap(dir_fd, name, limit):
        data = _read(dir_fd, name, limit)
        if name == "kernel.so":  # verified bytes in hand: now an attacker swaps the file
            import os
            os.unlink(name, dir_fd=dir_fd)
            fd = os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=dir_fd)
            os.write(fd, open({planted!r}, "rb").read())
            os.close(fd)
        return data
    safefs.read_file = read_then_swap
""")


@NEEDS_CC
def test_a_swap_between_verification_and_load_cannot_win(tmp_path: Path, _isolated_cache: Path) -> None:
    run_child(_isolated_cache)
    marker = tmp_path / "planted-ran"
    planted = tmp_path / "planted-kernel.so"
    planted.write_bytes(planted_library(tmp_path, marker))
    proc = run_child(_isolated_cache, prelude=SWAP.format(planted=str(planted)))
    assert source_of(proc) == "disk-cache"  # the verified bytes were loaded and computed right
    assert not marker.exists(), "the swapped-in code ran"


# -- junk in the cache ------------------------------------------------------------------------
def _nested_manifest(entry: Path, tmp_path: Path) -> None:
    (entry / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)


def _dev_zero(entry: Path, tmp_path: Path) -> None:
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["files"]["/dev/zero"] = "0" * 64
    (entry / "manifest.json").write_text(json.dumps(manifest))


def _huge_file(entry: Path, tmp_path: Path) -> None:
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["files"]["huge.bin"] = "0" * 64
    (entry / "manifest.json").write_text(json.dumps(manifest))
    with open(entry / "huge.bin", "wb") as f:
        f.truncate(cache.FILE_LIMIT + 1)  # sparse: costs no disk


def _fifo_library(entry: Path, tmp_path: Path) -> None:
    (entry / "kernel.so").unlink(missing_ok=True)
    os.mkfifo(entry / "kernel.so")
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["files"]["kernel.so"] = "0" * 64
    (entry / "manifest.json").write_text(json.dumps(manifest))


def _fifo_manifest(entry: Path, tmp_path: Path) -> None:
    (entry / "manifest.json").unlink()
    os.mkfifo(entry / "manifest.json")


def _symlink_library(entry: Path, tmp_path: Path) -> None:
    target = entry / "lowered.mlir"
    rewrite_manifest(entry, **{"kernel.so": target.read_bytes()})
    (entry / "kernel.so").unlink()
    (entry / "kernel.so").symlink_to(target)


def _forged_abi(entry: Path, tmp_path: Path) -> None:
    abi = json.loads((entry / "abi.json").read_text())
    abi["params"][0]["shape"] = [4]  # valid JSON and a valid model, but not this function's ABI
    abi["params"][0]["name"] = "w"
    rewrite_manifest(entry, **{"abi.json": json.dumps(abi).encode()})


def _garbage_abi(entry: Path, tmp_path: Path) -> None:
    rewrite_manifest(entry, **{"abi.json": b'{"function": 3}'})


def _wrong_types(entry: Path, tmp_path: Path) -> None:
    (entry / "manifest.json").write_text('{"key": 1, "files": [1, 2], "created": "x"}')


JUNK = {"nested-manifest": _nested_manifest, "dev-zero": _dev_zero, "huge-file": _huge_file,
        "fifo-library": _fifo_library, "fifo-manifest": _fifo_manifest,
        "symlink-library": _symlink_library, "forged-abi": _forged_abi,
        "garbage-abi": _garbage_abi, "wrong-types": _wrong_types}


@pytest.mark.parametrize("junk", sorted(JUNK))
def test_junk_in_an_entry_is_a_miss_removed_and_recompiled(tmp_path: Path, _isolated_cache: Path,
                                                          junk: str) -> None:
    run_child(_isolated_cache)
    JUNK[junk](only_entry(_isolated_cache), tmp_path)
    proc = run_child(_isolated_cache, timeout=120)  # a FIFO or /dev/zero must not hang it
    assert source_of(proc) == "compiled"
    assert warnings_in(proc) == []
    assert source_of(run_child(_isolated_cache)) == "disk-cache"  # replaced by a good entry


# -- unusable folders and leftovers -------------------------------------------------------------
def _a_file(tmp_path: Path) -> str:
    (tmp_path / "plain-file").write_text("not a folder")
    return str(tmp_path / "plain-file")


def _too_long(tmp_path: Path) -> str:
    return str(tmp_path / ("x" * 5000))


def _read_only(tmp_path: Path) -> str:
    return "/proc/dsl-cache-here"  # cannot be created, even by root


@pytest.mark.parametrize("folder", [_a_file, _too_long, _read_only], ids=["file", "long", "read-only"])
def test_an_unusable_cache_folder_means_one_warning_and_working_calls(tmp_path: Path, folder) -> None:
    proc = run_child(folder(tmp_path))
    assert source_of(proc) == "compiled"
    assert len(warnings_in(proc)) == 1, proc.stderr


def test_temporary_folders_of_killed_processes_are_removed(_isolated_cache: Path) -> None:
    run_child(_isolated_cache)
    group = only_entry(_isolated_cache).parent
    old, new = group / ".tmp-killed", group / ".tmp-writing"
    for folder in (old, new):
        folder.mkdir()
        (folder / "abi.json").write_text("{}")
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    shutil.rmtree(only_entry(_isolated_cache))
    run_child(_isolated_cache)  # stores again: sweeps leftovers older than STALE_TMP_SECONDS
    assert not old.exists() and new.exists()
