"""The disk cache: compiled work reused by a fresh process.

Each entry is a folder ``<DSL_CACHE_DIR>/v1/<kk>/<key>/`` holding the dsl IR,
the lowered (LLVM dialect) IR, the KernelABI as JSON and a manifest with the
SHA-256 of every file. Entries are written into a temporary folder and renamed
into place (atomic; when several processes compile the same kernel the first
rename wins).

Trust (docs/runtime.md, "Security and the cache"): the cache folder and every
folder below it must be owned by the current user and not writable by others
(created 0700, files 0600); otherwise the disk cache is refused with one warning
and calls compile in memory. Every file is read once through one descriptor
(no links, no FIFOs or devices, bounded size), its checksum verified on the bytes
read, and exactly those bytes are used. An entry that is unreadable or invalid in
any way is a miss: reported once at debug level, removed and recompiled.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import knobs, safefs
from .abi import KernelABI
from .records import Record, RecordError

log = logging.getLogger("dsl_runtime.cache")
LAYOUT = "v1"
FILES = ("abi.json", "dsl.mlir", "lowered.mlir")
#: Optional: the compiled code as a shared library (written when a C compiler driver is found).
LIBRARY = "kernel.so"
MANIFEST = "manifest.json"
#: Largest manifest and largest artifact read back (bigger files are junk: a miss).
MANIFEST_LIMIT = 1 << 20
FILE_LIMIT = 1 << 28
#: ``.tmp-*`` folders older than this were left by killed processes: removed on store.
STALE_TMP_SECONDS = 600.0
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_KEY = re.compile(r"[0-9a-f]{64}")
_reported: set[str] = set()
_warned: set[str] = set()
_swept: set[str] = set()


@dataclass(frozen=True, kw_only=True)
class Manifest(Record):
    """``manifest.json``: what an entry holds and the SHA-256 of each file; other keys
    (the versions an entry was compiled with) are kept in ``extra``."""

    EXTRA = True
    key: str
    function: str
    created: float
    files: dict[str, str]
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not _KEY.fullmatch(self.key):
            raise RecordError(f"Manifest.key: expected 64 hex digits, got {self.key[:80]!r}")


@dataclass(frozen=True)
class Entry:
    key: str
    path: Path
    function: str
    size: int
    created: float
    used: float = 0.0  # last use (the entry folder's mtime: set when written or loaded)


@dataclass(frozen=True)
class Hit:
    """A verified entry: its ABI, IR texts and (optionally) the bytes of ``kernel.so``."""

    abi: KernelABI
    dsl_text: str
    lowered_text: str | None  # None: an IR-only entry of an unsigned shared cache
    library: bytes | None


#: A background store's settings, taken when it was queued (``store_later``).
_queued = threading.local()


def _cache_dir() -> Path:
    return getattr(_queued, "cache_dir", None) or knobs.read().cache_dir


def root() -> Path:
    return _cache_dir() / LAYOUT


def enabled() -> bool:
    queued = getattr(_queued, "disk_cache", None)
    return knobs.read().disk_cache if queued is None else bool(queued)


def _path(key: str) -> Path:
    return root() / key[:2] / key


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _warn_once(folder: Path, why: str) -> None:
    if str(folder) not in _warned:
        _warned.add(str(folder))
        log.warning("dsl: not using the disk cache in %s: %s; compiling in memory "
                    "(see 'Security and the cache' in docs/runtime.md)", str(folder)[:200], why)


def _open_root(create: bool) -> int | None:
    """A descriptor of the trusted ``<cache_dir>/v1`` folder, or None (missing or refused)."""
    base = _cache_dir()
    if str(base) in _warned:
        return None
    try:
        if create:
            os.makedirs(base, mode=0o700, exist_ok=True)
        top = safefs.open_dir(str(base), follow=True)
        try:
            return safefs.open_dir(LAYOUT, top, create=create)
        finally:
            os.close(top)
    except FileNotFoundError:
        if create:
            _warn_once(base, "it cannot be created")
        return None
    except OSError as err:  # Untrusted, a file, read-only, a name too long, ...
        why = str(err) if isinstance(err, safefs.Untrusted) else (
            "it is not a folder" if err.errno in (errno.ENOTDIR, errno.EEXIST)
            else f"{err.strerror or err}")
        _warn_once(base, why)
        return None


def read_note(name: str, limit: int = MANIFEST_LIMIT) -> bytes | None:
    """The bytes of ``<cache>/v1/<name>``, a small file the runtime keeps beside the
    entries (e.g. the index of installed extensions), read as entries are (trusted
    folder, no links); None when it is missing, refused or the disk cache is off."""
    if not enabled():
        return None
    top = _open_root(create=False)
    if top is None:
        return None
    try:
        return safefs.read_file(top, name, limit)
    except OSError:
        return None
    finally:
        os.close(top)


def write_note(name: str, data: bytes) -> None:
    """Replace ``<cache>/v1/<name>`` atomically (written beside it, then renamed)."""
    if not enabled():
        return
    top = _open_root(create=True)
    if top is None:
        return
    tmp = f".tmp-{name}-{os.getpid()}-{threading.get_ident()}"
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=top)
        safefs.write_file(top, tmp, data)
        os.rename(tmp, name, src_dir_fd=top, dst_dir_fd=top)
    except OSError as err:
        log.debug("not writing %s (%s)", name, err)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=top)
    finally:
        os.close(top)


@contextmanager
def _entry_dir(key: str) -> Iterator[int | None]:
    """A descriptor of the trusted folder of entry ``key`` (None: no cache folder)."""
    top = _open_root(create=False)
    if top is None:
        yield None
        return
    fds = [top]
    try:
        fds.append(safefs.open_dir(key[:2], top))
        fds.append(safefs.open_dir(key, fds[1]))
        yield fds[2]
    finally:
        for fd in fds:
            os.close(fd)


def _link(dump: Callable[[str], None], folder: Path) -> bytes | None:
    """The JIT's object code linked into a shared library, or None (no `cc`, or it failed)."""
    import shutil
    import subprocess

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


def _sweep_stale_tmp(top: int) -> None:
    """Remove ``.tmp-*`` folders that killed processes left behind (once per process)."""
    import shutil

    base = str(root())
    if base in _swept:
        return
    _swept.add(base)
    cutoff = time.time() - STALE_TMP_SECONDS
    try:
        with os.scandir(top) as groups:
            names = [g.name for g in groups if g.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for name in names:
        try:
            with os.scandir(os.path.join(base, name)) as found:
                stale = [e.path for e in found if e.name.startswith(".tmp-")
                         and e.stat(follow_symlinks=False).st_mtime < cutoff]
        except OSError:
            continue
        for path in stale:
            shutil.rmtree(path, ignore_errors=True)


def entry_files(key: str, abi: KernelABI, dsl_text: str, lowered_text: str,
                meta: dict[str, Any], dump_object: Callable[[str], None] | None = None,
                extra: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """The files of a new entry, its manifest among them.

    ``dump_object(path)`` writes the JIT's object code; when given and a C compiler
    driver exists, the entry also holds it as a shared library that loads in well under
    a millisecond. ``extra`` adds files (e.g. ``kernels.ptx``), checksummed like the others.
    """
    import tempfile

    blobs = {"abi.json": abi.model_dump_json(indent=1).encode(),
             "dsl.mlir": dsl_text.encode(), "lowered.mlir": lowered_text.encode()}
    if dump_object is not None:
        with tempfile.TemporaryDirectory(prefix="dsl-link-") as work:  # mode 0700
            library = _link(dump_object, Path(work))
        if library is not None:
            blobs[LIBRARY] = library
    blobs.update(extra or {})
    manifest = Manifest(key=key, function=abi.function, created=time.time(),
                        files={n: _sha(d) for n, d in blobs.items()}, extra=meta)
    blobs[MANIFEST] = manifest.model_dump_json(indent=1).encode()
    return blobs


def store(key: str, abi: KernelABI, dsl_text: str, lowered_text: str, meta: dict[str, Any],
          dump_object: Callable[[str], None] | None = None,
          extra: dict[str, bytes] | None = None, publish: bool = True,
          remote: Any = None) -> None:
    """Write an entry to the disk cache (when enabled) and, with ``publish``, to the
    shared cache (``remote``, else the one configured now); see ``entry_files`` for the
    other arguments."""
    from . import shared_cache

    target = (remote or shared_cache.current()) if publish else None
    local = enabled() and str(_cache_dir()) not in _warned and not _path(key).exists()
    if not local and target is None:
        return  # (no linking for an entry another process stored, or a refused folder)
    blobs = entry_files(key, abi, dsl_text, lowered_text, meta, dump_object, extra)
    if local:
        store_files(key, blobs)
    if target is not None:
        shared_cache.publish(key, blobs, target)


def store_files(key: str, blobs: dict[str, bytes]) -> None:
    """Write an entry's files atomically (a no-op when another process stored it first),
    then evict down to ``DSL_CACHE_MAX_SIZE``."""
    top = _open_root(create=True)
    if top is None:
        return
    try:
        _sweep_stale_tmp(top)
        os.close(safefs.open_dir(key[:2], top, create=True))
    except OSError as err:
        log.debug("not caching %s (%s)", key, err)
        return
    finally:
        os.close(top)
    final = _path(key)
    if not final.exists():
        _write_entry(key, final, blobs)
    try:
        limit = max_size()
    except ValueError as err:
        _report_once("DSL_CACHE_MAX_SIZE", str(err))
        return
    if limit is not None:
        with _prune_lock:  # (entries being written by other threads are not counted yet)
            prune(limit, wait=False)


def _write_entry(key: str, final: Path, blobs: dict[str, bytes]) -> None:
    import shutil
    import tempfile

    try:
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))  # mode 0700
    except OSError as err:  # the folder went away meanwhile
        log.debug("not caching %s (%s)", key, err)
        return
    try:
        folder = os.open(tmp, safefs.DIR_FLAGS | os.O_NOFOLLOW)
        try:
            for name, data in blobs.items():
                safefs.write_file(folder, name, data)
        finally:
            os.close(folder)
        os.rename(tmp, final)
    except OSError:
        pass  # lost the race (final exists) or the cache is not writable: keep going
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_pending: list[threading.Thread] = []
_pending_lock = threading.Lock()


def store_later(key: str, abi: KernelABI, dsl_text: str, lowered_text: str, meta: dict[str, Any],
                dump_object: Callable[[str], None] | None = None,
                extra: dict[str, bytes] | None = None, publish: bool = True) -> None:
    """``store`` on a background thread (linking ``kernel.so`` takes tens of milliseconds,
    which the compiling call need not wait for). The thread is not a daemon: the
    interpreter finishes it before exiting; ``flush()`` waits for it earlier."""
    from . import shared_cache

    settings = knobs.read()
    remote = shared_cache.current() if publish else None

    def run() -> None:  # with the settings of the queuing call (folders, shared cache)
        _queued.cache_dir, _queued.disk_cache = settings.cache_dir, settings.disk_cache
        store(key, abi, dsl_text, lowered_text, meta, dump_object, extra,
              publish=remote is not None, remote=remote)

    thread = threading.Thread(target=run,
                              name=f"dsl-cache-store-{key[:8]}")
    with _pending_lock:  # started under the lock: a thread queued but not started yet is
        # not alive, and another call's pruning would drop it (flush would not wait for it)
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


def verify(key: str, blobs: dict[str, bytes], required: tuple[str, ...] = FILES, *,
           trusted: bool = False, manifest: Manifest | None = None) -> Hit:
    """The Hit of an entry's files (``manifest.json`` among them), checked exactly as a
    disk entry is: the manifest is the expected record for ``key``, it names every file
    and nothing else, each file matches its checksum and ``required`` are present
    (ValueError otherwise). ``trusted``: the files come from this user's private cache
    folder or carry a verified signature, so the ABI, checked field by field when it was
    written, is rebuilt without checking its values again (``Record.from_trusted``).
    ``manifest``: the record of ``blobs["manifest.json"]`` where the caller already
    parsed it (a disk read parses it first to learn the file names)."""
    if MANIFEST not in blobs:
        raise ValueError("no manifest")
    if manifest is None:
        manifest = Manifest.model_validate_json(blobs[MANIFEST])
    if manifest.key != key:
        raise ValueError("manifest key mismatch")
    names = set(blobs) - {MANIFEST}
    if names != set(manifest.files) or not set(required) <= names:
        raise ValueError("the files differ from those the manifest names")
    for name in names:
        if not _NAME.fullmatch(name):
            raise ValueError(f"manifest names an invalid file {name[:80]!r}")
        if manifest.files[name] != _sha(blobs[name]):
            raise ValueError(f"{name} does not match its checksum")
    lowered = blobs.get("lowered.mlir")
    return Hit(_abi(blobs["abi.json"], trusted), blobs["dsl.mlir"].decode(),
               None if lowered is None else lowered.decode(), blobs.get(LIBRARY))


def _abi(text: bytes, trusted: bool) -> KernelABI:
    """The ABI record of ``abi.json`` (RecordError when it is not one): rebuilt as written
    when ``trusted`` and shaped as a KernelABI, else checked field by field."""
    if trusted:
        try:
            return KernelABI.from_trusted(json.loads(text))
        except (ValueError, RecursionError):  # not as this toolkit writes it
            pass
    return KernelABI.model_validate_json(text)


def _read_files(key: str, folder: int) -> tuple[dict[str, bytes], Manifest]:
    """Every file of one entry, manifest first, and the manifest's record (ValueError /
    OSError when a name is invalid or a file cannot be read safely)."""
    blobs = {MANIFEST: safefs.read_file(folder, MANIFEST, MANIFEST_LIMIT)}
    manifest = Manifest.model_validate_json(blobs[MANIFEST])
    if manifest.key != key:
        raise ValueError("manifest key mismatch")
    for name in FILES + tuple(n for n in manifest.files if n not in FILES):
        if not _NAME.fullmatch(name) or name == MANIFEST:
            raise ValueError(f"manifest names an invalid file {name[:80]!r}")
        blobs[name] = safefs.read_file(folder, name, FILE_LIMIT)
    return blobs, manifest


def load_files(key: str) -> tuple[Hit, dict[str, bytes]] | None:
    """The verified entry of ``key`` and its files, or None (a miss; an invalid entry is
    also removed)."""
    if not _KEY.fullmatch(key):
        return None
    try:
        with _entry_dir(key) as fds:
            if fds is None:
                return None
            blobs, manifest = _read_files(key, fds)
            hit = verify(key, blobs, trusted=True, manifest=manifest)
            with contextlib.suppress(OSError):
                os.utime(fds)  # last use, for least-recently-used eviction
            return hit, blobs
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError, UnicodeDecodeError,
            MemoryError) as err:
        discard(key, str(err)[:300] or type(err).__name__)
        return None


def load(key: str) -> Hit | None:
    """The verified entry of ``key``, or None (a miss; an invalid entry is also removed)."""
    found = load_files(key)
    return None if found is None else found[0]


def discard(key: str, why: str) -> None:
    """Remove an entry that is unreadable, invalid, or verified but failed to load."""
    import shutil

    _report_once(key, why)
    if not _KEY.fullmatch(key) or str(_cache_dir()) in _warned:
        return
    path = _path(key)
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _entry_of(path: Path) -> Entry | None:
    try:
        folder = os.open(path, safefs.DIR_FLAGS | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        data = Manifest.model_validate_json(safefs.read_file(folder, MANIFEST, MANIFEST_LIMIT))
        size = sum(e.stat(follow_symlinks=False).st_size for e in os.scandir(path)
                   if e.is_file(follow_symlinks=False))
        used = os.fstat(folder).st_mtime
    except (OSError, ValueError):
        return None
    finally:
        os.close(folder)
    return Entry(path.name, path, data.function, size, data.created, used)


def entries(wait: bool = True) -> list[Entry]:
    """The valid entries on disk (after the pending background writes, with ``wait``)."""
    if wait:
        flush()
    base = root()
    if not base.is_dir():
        return []
    found = [_entry_of(p) for group in base.iterdir() if group.is_dir()
             for p in group.iterdir() if _KEY.fullmatch(p.name)]
    return sorted((e for e in found if e is not None), key=lambda e: e.created)


def clear(function: str | None = None) -> int:
    """Remove every entry (or those of ``function``, by name or qualified name); returns
    how many were removed."""
    import shutil

    if function is None:
        n = len(entries())
        shutil.rmtree(root(), ignore_errors=True)
        return n
    chosen = [e for e in entries() if function in (e.function, e.function.rsplit(".", 1)[-1])]
    for e in chosen:
        discard(e.key, f"cleared ({function})")
    return len(chosen)


_prune_lock = threading.Lock()
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes of ``500M``, ``2G``, ``1.5GiB``, ``4096`` (ValueError otherwise)."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(f"expected a size such as 500M or 2G, got {text!r}")
    number, unit = match.groups()
    scale = 1024 ** ("kmgt".index(unit.lower()) + 1) if unit else 1
    return int(float(number) * scale)


def max_size() -> int | None:
    """``DSL_CACHE_MAX_SIZE`` in bytes, or None (no cap)."""
    text = os.environ.get("DSL_CACHE_MAX_SIZE", "").strip()
    return parse_size(text) if text else None


def prune(limit: int, wait: bool = True) -> list[Entry]:
    """Remove the least recently used entries until the cache holds at most ``limit``
    bytes; returns the entries removed."""
    found = sorted(entries(wait), key=lambda e: e.used)
    total = sum(e.size for e in found)
    removed = []
    for e in found:
        if total <= limit:
            break
        discard(e.key, f"evicted (cache over {limit} bytes)")
        log.info("evicted %s (%s, %.1f KiB): the cache is over its size cap", e.key[:12],
                 e.function, e.size / 1024)
        total -= e.size
        removed.append(e)
    return removed


# -- small records: the autotuner's choices, the functions' source records ------------------
_RECORDS = "tuning"
#: ``<cache>/v1/sources/``: what the cache key read from each function's source
#: (``dsl_runtime.source_index``).
SOURCES = "sources"
_KINDS = (_RECORDS, SOURCES)
_RECORD_LIMIT = 64 * 1024
_RECORD_NAME = re.compile(r"^[0-9a-f]{64}\.json$")
#: A folder of records beyond this many files loses its least recently written quarter
#: (checked at a process's first write there).
MAX_RECORDS = 4096
_trimmed: set[str] = set()


def store_record(key: str, data: bytes, kind: str = _RECORDS) -> bool:
    """Write ``data`` as record ``key`` (a hex digest) under ``<cache>/v1/<kind>/``
    (``"tuning"``, the default, or :data:`SOURCES`), atomically (a temporary file renamed
    into place); False when there is no usable cache folder."""
    name = f"{key}.json"
    if not _RECORD_NAME.match(name) or len(data) > _RECORD_LIMIT or kind not in _KINDS:
        raise ValueError(f"invalid record {key!r} ({kind})")
    top = _open_root(create=True)
    if top is None:
        return False
    try:
        folder = safefs.open_dir(kind, top, create=True)
        try:
            tmp = f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=folder)
            safefs.write_file(folder, tmp, data)
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
            if kind not in _trimmed:
                _trimmed.add(kind)
                _trim_records(folder)
            return True
        finally:
            os.close(folder)
    except OSError as err:
        log.debug("dsl: record %s not stored: %s", key[:16], err)
        return False
    finally:
        os.close(top)


def _trim_records(folder: int) -> None:
    """Keep a records folder below :data:`MAX_RECORDS` files: the oldest quarter goes."""
    with os.scandir(folder) as found:
        names = [e.name for e in found if _RECORD_NAME.match(e.name)]
    if len(names) <= MAX_RECORDS:
        return
    aged = []
    for name in names:
        with contextlib.suppress(OSError):
            aged.append((os.stat(name, dir_fd=folder, follow_symlinks=False).st_mtime_ns, name))
    for _, name in sorted(aged)[:len(aged) - MAX_RECORDS * 3 // 4]:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=folder)


def load_record(key: str, kind: str = _RECORDS) -> bytes | None:
    """The bytes of record ``key`` of ``kind``, or None (missing, untrusted, too large,
    unreadable)."""
    name = f"{key}.json"
    if not _RECORD_NAME.match(name) or kind not in _KINDS:
        return None
    top = _open_root(create=False)
    if top is None:
        return None
    try:
        folder = safefs.open_dir(kind, top)
        try:
            return safefs.read_file(folder, name, _RECORD_LIMIT)
        finally:
            os.close(folder)
    except (OSError, ValueError):
        return None
    finally:
        os.close(top)
