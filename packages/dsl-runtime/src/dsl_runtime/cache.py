"""The disk cache: compiled work reused by a fresh process.

Each entry is a folder ``<DSL_CACHE_DIR>/v1/<kk>/<key>/`` holding the dsl IR,
the lowered (LLVM dialect) IR, the KernelABI as JSON and a manifest with the
SHA-256 of every file. Entries are written into a temporary folder and renamed
into place (atomic; when several processes compile the same kernel the first
rename wins). A truncated or corrupted entry fails verification, is reported
once at debug level, removed and recompiled, never executed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import knobs
from .abi import KernelABI

log = logging.getLogger("dsl_runtime.cache")
LAYOUT = "v1"
FILES = ("abi.json", "dsl.mlir", "lowered.mlir")
#: Optional: the compiled code as a shared library (written when a C compiler driver is found).
LIBRARY = "kernel.so"
_reported: set[str] = set()


@dataclass(frozen=True)
class Entry:
    key: str
    path: Path
    function: str
    size: int
    created: float


def root() -> Path:
    return knobs.read().cache_dir / LAYOUT


def enabled() -> bool:
    return knobs.read().disk_cache


def _path(key: str) -> Path:
    return root() / key[:2] / key


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _link(dump: Callable[[str], None], folder: Path) -> bytes | None:
    """The JIT's object code linked into a shared library, or None (no `cc`, or it failed)."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        return None
    obj, lib = folder / "kernel.o", folder / LIBRARY
    try:
        dump(str(obj))
        subprocess.run([cc, "-shared", "-o", str(lib), str(obj), "-lm"], check=True,
                       capture_output=True, timeout=120)
        return lib.read_bytes()
    except (OSError, subprocess.SubprocessError, RuntimeError) as err:
        log.debug("not caching native code (%s)", err)
        return None
    finally:
        obj.unlink(missing_ok=True)
        lib.unlink(missing_ok=True)


def store(key: str, abi: KernelABI, dsl_text: str, lowered_text: str, meta: dict[str, Any],
          dump_object: Callable[[str], None] | None = None,
          extra: dict[str, bytes] | None = None) -> None:
    """Write an entry atomically (a no-op when another process stored it first).

    ``dump_object(path)`` writes the JIT's object code; when given and a C compiler
    driver exists, the entry also holds it as a shared library that loads in
    well under a millisecond. ``extra`` adds files (e.g. ``kernels.ptx``), checksummed
    like the others.
    """
    final = _path(key)
    if final.exists():
        return
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
    try:
        blobs = {"abi.json": abi.model_dump_json(indent=1).encode(),
                 "dsl.mlir": dsl_text.encode(), "lowered.mlir": lowered_text.encode()}
        library = _link(dump_object, tmp) if dump_object is not None else None
        if library is not None:
            blobs[LIBRARY] = library
        blobs.update(extra or {})
        for name, data in blobs.items():
            (tmp / name).write_bytes(data)
        manifest = {"key": key, "function": abi.function, "created": time.time(),
                    "files": {n: _sha(d) for n, d in blobs.items()}, **meta}
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1))
        os.rename(tmp, final)
    except OSError:
        pass  # lost the race (final exists) or the cache is not writable: keep going
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_pending: list[threading.Thread] = []
_pending_lock = threading.Lock()


def store_later(key: str, abi: KernelABI, dsl_text: str, lowered_text: str, meta: dict[str, Any],
                dump_object: Callable[[str], None] | None = None,
                extra: dict[str, bytes] | None = None) -> None:
    """``store`` on a background thread (linking ``kernel.so`` takes tens of milliseconds,
    which the compiling call need not wait for). The thread is not a daemon: the
    interpreter finishes it before exiting; ``flush()`` waits for it earlier."""
    thread = threading.Thread(target=store, args=(key, abi, dsl_text, lowered_text, meta),
                              kwargs={"dump_object": dump_object, "extra": extra},
                              name=f"dsl-cache-store-{key[:8]}")
    with _pending_lock:
        _pending[:] = [t for t in _pending if t.is_alive()]
        _pending.append(thread)
    thread.start()


def flush() -> None:
    """Wait until every entry being written in the background is on disk."""
    with _pending_lock:
        threads = list(_pending)
    for thread in threads:
        thread.join()


def _report_once(key: str, why: str) -> None:
    if key not in _reported:
        _reported.add(key)
        log.debug("disk cache entry %s is unusable (%s); recompiling", key, why)


def load(key: str) -> tuple[KernelABI, str, str, str | None] | None:
    """``(abi, dsl_text, lowered_text, shared_library_path | None)`` of a verified entry, or None."""
    path = _path(key)
    if not path.is_dir():
        return None
    try:
        manifest = json.loads((path / "manifest.json").read_text())
        names = FILES + tuple(n for n in manifest["files"] if n not in FILES)
        blobs = {name: (path / name).read_bytes() for name in names}
        for name, data in blobs.items():
            if manifest["files"][name] != _sha(data):
                raise ValueError(f"{name} does not match its checksum")
        if manifest.get("key") != key:
            raise ValueError("manifest key mismatch")
        abi = KernelABI.model_validate_json(blobs["abi.json"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        _report_once(key, str(err))
        shutil.rmtree(path, ignore_errors=True)
        return None
    library = str(path / LIBRARY) if LIBRARY in blobs else None
    return abi, blobs["dsl.mlir"].decode(), blobs["lowered.mlir"].decode(), library


def discard(key: str, why: str) -> None:
    """Remove an entry that verified but failed to load."""
    _report_once(key, why)
    shutil.rmtree(_path(key), ignore_errors=True)


def entries() -> list[Entry]:
    """The entries on disk (after the pending background writes)."""
    flush()
    found: list[Entry] = []
    base = root()
    if not base.is_dir():
        return found
    for manifest in base.glob("*/*/manifest.json"):
        try:
            data = json.loads(manifest.read_text())
        except (OSError, ValueError):
            continue
        size = sum(f.stat().st_size for f in manifest.parent.iterdir() if f.is_file())
        found.append(Entry(manifest.parent.name, manifest.parent, data.get("function", "?"), size,
                           float(data.get("created", 0))))
    return sorted(found, key=lambda e: e.created)


def clear() -> int:
    """Remove every entry; returns how many there were."""
    n = len(entries())
    shutil.rmtree(root(), ignore_errors=True)
    return n
