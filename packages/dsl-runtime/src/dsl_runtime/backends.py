"""Cache backends: where whole compiled entries are kept, as bytes.

A backend stores one opaque value per name (``get``/``put``); it knows nothing of
what an entry holds or whether it can be trusted (``dsl_runtime.shared_cache`` seals and
checks the values). Two implementations:

- ``DiskBackend``: the local disk cache (``dsl_runtime.cache``) seen through this
  interface: ``get`` packs a verified entry folder, ``put`` unpacks, verifies and writes
  one. Its names are the 64-hex-digit keys of the disk cache.
- ``RedisBackend``: one Redis string per entry (``redis://host:port/db``), with bounded
  reads and short socket timeouts; transport faults raise ``BackendError``, a server's
  refusal (full, read-only) ``Refused``.

Any object with the same ``name``/``get``/``put`` can be passed to
``dsl_runtime.configure_cache`` (an object store, a shared file system).
"""

from __future__ import annotations

import re
import struct
from typing import Any, Protocol, runtime_checkable

from . import cache

#: Largest value a backend hands back (a bigger one is junk: a miss).
VALUE_LIMIT = 1 << 28
_MAGIC = b"DSLPACK1"
_COUNT = struct.Struct("<I")
_NAME_LEN = struct.Struct("<H")
_SIZE = struct.Struct("<Q")
_MAX_FILES = 64
_VALID_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}")


class BackendError(RuntimeError):
    """A backend is unreachable, too slow, full or refused an operation."""


class Refused(BackendError):
    """The backend answered but refused to store a value (full, read-only, no permission):
    it stays in use for lookups."""


@runtime_checkable
class CacheBackend(Protocol):
    """Get and put whole entries as bytes (a miss is ``None``; faults raise
    ``BackendError``)."""

    name: str

    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, data: bytes) -> None: ...


def pack(files: dict[str, bytes]) -> bytes:
    """One value holding an entry's files (names and sizes first, then the bytes)."""
    parts = [_MAGIC, _COUNT.pack(len(files))]
    for name, data in sorted(files.items()):
        raw = name.encode()
        parts += [_NAME_LEN.pack(len(raw)), raw, _SIZE.pack(len(data)), data]
    return b"".join(parts)


def unpack(data: bytes) -> dict[str, bytes]:
    """The files of a packed value (ValueError on anything malformed: a wrong header,
    too many files, a bad or repeated name, sizes beyond the value, trailing bytes)."""
    view = memoryview(data)
    if bytes(view[:len(_MAGIC)]) != _MAGIC:
        raise ValueError("not a packed cache entry")
    at = len(_MAGIC)

    def take(n: int) -> memoryview:
        nonlocal at
        if n < 0 or at + n > len(view):
            raise ValueError("truncated cache entry")
        chunk = view[at:at + n]
        at += n
        return chunk

    (count,) = _COUNT.unpack(take(_COUNT.size))
    if count > _MAX_FILES:
        raise ValueError(f"a cache entry of {count} files")
    files: dict[str, bytes] = {}
    for _ in range(count):
        (length,) = _NAME_LEN.unpack(take(_NAME_LEN.size))
        name = bytes(take(length)).decode("ascii", errors="replace")
        if not cache._NAME.fullmatch(name) or name in files:
            raise ValueError(f"a cache entry names an invalid file {name[:80]!r}")
        (size,) = _SIZE.unpack(take(_SIZE.size))
        if size > cache.FILE_LIMIT:
            raise ValueError(f"{name} is larger than {cache.FILE_LIMIT} bytes")
        files[name] = bytes(take(size))
    if at != len(view):
        raise ValueError("trailing bytes after a cache entry")
    return files


class DiskBackend:
    """The local disk cache (``DSL_CACHE_DIR``) as a backend."""

    name = "disk"

    def get(self, key: str) -> bytes | None:
        found = cache.load_files(key)
        return None if found is None else pack(found[1])

    def put(self, key: str, data: bytes) -> None:
        """Store a packed entry after verifying it (ValueError when it is invalid)."""
        files = unpack(data)
        cache.verify(key, files)
        if cache.enabled():
            cache.store_files(key, files)


class RedisBackend:
    """Entries as Redis strings under ``dsl:<name>``, through ``dsl_runtime.resp`` (a
    standard-library client: the ``redis`` package takes longer to import than a compile).
    No retries: a fault costs one timeout, then the caller compiles locally."""

    def __init__(self, url: str, timeout: float = 1.0, prefix: str = "dsl:") -> None:
        from . import resp

        self.name = _redact(url)
        self.prefix = prefix
        try:
            address = resp.parse_url(url)
        except ValueError as err:
            raise BackendError(f"{self.name}: {err}") from err
        self._client = resp.Client(address, timeout, VALUE_LIMIT + 1)

    def _key(self, key: str) -> str:
        if not _VALID_NAME.fullmatch(key):
            raise ValueError(f"invalid cache name {key[:80]!r}")
        return self.prefix + key

    def _send(self, *args: bytes | str | int) -> Any:
        from . import resp

        try:
            return self._client.command(*args)
        except resp.ConnectionFailed as err:
            raise BackendError(str(err)) from err
        except resp.ServerError as err:  # e.g. OOM: maxmemory reached, noeviction
            raise Refused(f"the server answered: {err}") from err

    def get(self, key: str) -> bytes | None:
        """The value (None: missing). Reads at most ``VALUE_LIMIT`` + 1 bytes: a longer
        value comes back that long and fails its checks."""
        value = self._send("GETRANGE", self._key(key), 0, VALUE_LIMIT)
        return bytes(value) if isinstance(value, bytes) and value else None

    def put(self, key: str, data: bytes) -> None:
        self._send("SET", self._key(key), data)

    def ping(self) -> bool:
        return bool(self._send("PING") == "PONG")

    def close(self) -> None:
        self._client.close()


def _redact(url: str) -> str:
    """``url`` without a password (``redis://:secret@host`` -> ``redis://***@host``)."""
    return re.sub(r"//[^@/]*@", "//***@", url)


def from_url(url: str, timeout: float) -> CacheBackend:
    """The backend a ``DSL_CACHE_BACKEND`` value names (ValueError for an unknown scheme)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme in ("redis", "rediss", "unix"):
        return RedisBackend(url, timeout)
    raise ValueError(f"DSL_CACHE_BACKEND: expected redis://host:port/db (or rediss://, "
                     f"unix://), got {_redact(url)[:200]!r}")
