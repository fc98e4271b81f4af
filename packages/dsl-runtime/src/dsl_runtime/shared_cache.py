"""The shared compile cache: entries published to a remote backend (Redis) and fetched by
other processes and machines.

Lookups go local disk -> shared cache -> compile; a compile publishes to both. What a
remote value may contain depends on the key (docs/distributed.md, "Security model"):

- With a key (``DSL_CACHE_KEY``, ``DSL_CACHE_KEY_FILE`` or ``configure_cache(key=...)``):
  whole entries, native code included, each sealed with HMAC-SHA256 over the cache key
  and the packed bytes. A fetched value is used only if its tag verifies (constant-time
  comparison, before anything in it is parsed) and the entry then passes every check of
  a disk entry. Values live under a name derived from the key's fingerprint, so teams
  with different keys do not overwrite each other.
- Without a key: only the dsl IR and the ABI are shared (never native code or LLVM IR);
  a fetched entry is parsed, verified and compiled locally.

Faults (unreachable, slow, full, a corrupted or forged value) cost one warning on the
``dsl_runtime.cache`` logger and a local compile; after a transport fault the backend is
left alone for ``RETRY_SECONDS``, so a call never waits on it more than once per period.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import stat
import threading
import time
from dataclasses import dataclass

from . import backends, cache, knobs
from .backends import BackendError, CacheBackend, Refused

log = logging.getLogger("dsl_runtime.cache")
#: After a transport fault, the backend is not contacted again for this long.
RETRY_SECONDS = 30.0
DEFAULT_TIMEOUT = 1.0
MIN_KEY_BYTES = 16
_SIGNED = b"DSL1S"
_UNSIGNED = b"DSL1U"
_TAG = 32
_DOMAIN = b"dsl-cache-entry-v1\0"
#: What an unsigned (IR-only) entry holds, exactly.
IR_FILES = ("abi.json", "dsl.mlir")

_lock = threading.Lock()
_warned: set[str] = set()
_counts: dict[str, int] = {}


@dataclass
class _Remote:
    backend: CacheBackend
    key: bytes | None
    down_until: float = 0.0


_configured: _Remote | None = None
_from_env: tuple[tuple[str, ...], _Remote | None] | None = None
_explicit = False


def count(event: str) -> None:
    """Add one to a counter of ``stats()``."""
    with _lock:
        _counts[event] = _counts.get(event, 0) + 1


def stats() -> dict[str, int]:
    """What this process did: ``compiles``, ``disk_hits``, ``remote_hits``,
    ``remote_misses``, ``remote_published``, ``remote_errors``, ``remote_rejected``."""
    with _lock:
        return dict(_counts)


def reset_stats() -> None:
    with _lock:
        _counts.clear()


def _warn_once(what: str, message: str, *args: object) -> None:
    with _lock:
        if what in _warned:
            return
        _warned.add(what)
    log.warning(message, *args)


def configure_cache(backend: str | CacheBackend | None = None, *,
                    key: bytes | str | None = None, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Use a shared compile cache in this process (instead of ``DSL_CACHE_BACKEND``).

    ``backend``: ``"redis://host:port/db"`` or an object with ``name``, ``get(key)`` and
    ``put(key, data)`` (``dsl_runtime.backends.CacheBackend``); None turns the shared
    cache off. ``key``: the signing key (at least 16 bytes; a str is UTF-8 encoded);
    without one, only IR is shared. ``timeout``: seconds per remote operation.
    """
    global _configured, _explicit
    remote = None
    if backend is not None:
        made = backends.from_url(backend, timeout) if isinstance(backend, str) else backend
        if not isinstance(made, CacheBackend):
            raise TypeError("configure_cache: expected a redis:// URL or an object with "
                            f"name, get and put, got {type(backend).__name__}")
        remote = _Remote(made, _check_key(key, "configure_cache(key=...)"))
    with _lock:
        _configured, _explicit = remote, True
        _warned.clear()


def reset() -> None:
    """Back to the environment's setting (forgets ``configure_cache``, warnings, back-off)."""
    global _configured, _explicit, _from_env
    with _lock:
        _configured, _explicit, _from_env = None, False, None
        _warned.clear()


def _check_key(key: bytes | str | None, where: str) -> bytes | None:
    if key is None:
        return None
    raw = key.encode() if isinstance(key, str) else bytes(key)
    if len(raw) < MIN_KEY_BYTES:
        raise ValueError(f"{where}: a signing key of {len(raw)} bytes; use at least "
                         f"{MIN_KEY_BYTES} random bytes (e.g. python -c 'import secrets; "
                         "print(secrets.token_hex(32))')")
    return raw


def _key_from_env(text: str, path: str) -> bytes | None:
    if text:
        return _check_key(text.strip(), "DSL_CACHE_KEY")
    if not path:
        return None
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() \
                or info.st_mode & 0o077:
            raise ValueError(f"DSL_CACHE_KEY_FILE {path}: must be a regular file of the "
                             "current user, readable by nobody else (chmod 600)")
        return _check_key(os.read(fd, 4096).strip(), f"DSL_CACHE_KEY_FILE {path}")
    finally:
        os.close(fd)


def _env_remote() -> _Remote | None:
    """The shared cache the environment names (made once per distinct setting)."""
    global _from_env
    setting = knobs.read_shared_cache()
    if _from_env is not None and _from_env[0] == setting:
        return _from_env[1]
    url, key_text, key_path, timeout = setting
    remote = None
    if url.strip():
        try:
            seconds = float(timeout) if timeout.strip() else DEFAULT_TIMEOUT
            if not seconds > 0:
                raise ValueError(f"DSL_CACHE_TIMEOUT must be a positive number, got {timeout!r}")
            remote = _Remote(backends.from_url(url.strip(), seconds),
                             _key_from_env(key_text, key_path))
        except (OSError, ValueError, BackendError) as err:
            _warn_once(f"config:{setting}", "dsl: not using the shared cache: %s", err)
    _from_env = (setting, remote)
    return remote


def _remote() -> _Remote | None:
    return _configured if _explicit else _env_remote()


def current() -> _Remote | None:
    """The shared cache in use now (None: none, or in its back-off period)."""
    remote = _remote()
    return remote if remote is not None and time.monotonic() >= remote.down_until else None


def active() -> bool:
    """Whether a shared cache is configured (and not in its back-off period)."""
    return current() is not None


def check() -> tuple[bool, str]:
    """(usable, a line for ``dsl doctor``): the backend, signed or IR only, and whether it
    answers (backends with a ``ping`` method)."""
    remote = _remote()
    if remote is None:
        if not _explicit and knobs.read_shared_cache()[0].strip():
            return False, "DSL_CACHE_BACKEND is set but unusable (see the warning above)"
        return True, "off (DSL_CACHE_BACKEND unset)"
    mode = (f"signed (key {_fingerprint(remote.key)})" if remote.key is not None
            else "IR only (no signing key)")
    ping = getattr(remote.backend, "ping", None)
    if ping is None:
        return True, f"{remote.backend.name}, {mode}"
    start = time.perf_counter()
    try:
        answered = bool(ping())
    except Exception as err:
        return False, f"{remote.backend.name}, {mode}, NOT reachable: {err}"
    took = (time.perf_counter() - start) * 1e3
    return answered, f"{remote.backend.name}, {mode}, reachable ({took:.1f} ms)"


def _fingerprint(secret: bytes) -> str:
    return hashlib.sha256(b"dsl-cache-key-id\0" + secret).hexdigest()[:16]


def _name(remote: _Remote, key: str) -> str:
    if remote.key is None:
        return f"v1:ir:{key}"
    return f"v1:{_fingerprint(remote.key)}:{key}"


def _tag(secret: bytes, key: str, packed: bytes) -> bytes:
    return hmac.new(secret, _DOMAIN + key.encode() + b"\0" + packed, hashlib.sha256).digest()


def seal(remote_key: bytes | None, key: str, files: dict[str, bytes]) -> bytes:
    """The value published for an entry: signed (everything) with a key, else the IR only."""
    if remote_key is None:
        ir = {n: files[n] for n in IR_FILES}
        manifest = cache.Manifest(key=key, function=cache.Manifest.model_validate_json(
            files[cache.MANIFEST]).function, created=time.time(),
            files={n: cache._sha(d) for n, d in ir.items()})
        ir[cache.MANIFEST] = manifest.model_dump_json().encode()
        return _UNSIGNED + backends.pack(ir)
    packed = backends.pack(files)
    return _SIGNED + _tag(remote_key, key, packed) + packed


def unseal(remote_key: bytes | None, key: str, value: bytes) -> tuple[cache.Hit, dict[str, bytes]]:
    """The verified entry in a fetched value (ValueError when it is not one this process
    may use: a bad or missing tag, an unsigned value holding more than the IR, ...)."""
    if remote_key is None:
        if not value.startswith(_UNSIGNED):
            raise ValueError("not an unsigned IR entry")
        files = backends.unpack(value[len(_UNSIGNED):])
        if set(files) != {*IR_FILES, cache.MANIFEST}:
            raise ValueError("an unsigned entry may hold only the IR and the ABI")
        return cache.verify(key, files, IR_FILES), files
    if not value.startswith(_SIGNED) or len(value) < len(_SIGNED) + _TAG:
        raise ValueError("not a signed entry")
    tag, packed = value[len(_SIGNED):len(_SIGNED) + _TAG], value[len(_SIGNED) + _TAG:]
    if not hmac.compare_digest(tag, _tag(remote_key, key, packed)):
        raise ValueError("its signature does not verify (another key, or altered)")
    files = backends.unpack(packed)
    return cache.verify(key, files, trusted=True), files


def _fault(remote: _Remote, action: str, err: BaseException) -> None:
    remote.down_until = time.monotonic() + RETRY_SECONDS
    count("remote_errors")
    _warn_once(f"fault:{remote.backend.name}",
               "dsl: shared cache %s failed (%s: %s); compiling locally, retrying in %.0f s",
               remote.backend.name, action, err, RETRY_SECONDS)


def fetch(key: str) -> cache.Hit | None:
    """The verified entry of ``key`` from the shared cache (a full entry is also written
    to the local disk cache), or None: not configured, missing, invalid or unreachable."""
    remote = _remote()
    if remote is None or time.monotonic() < remote.down_until:
        return None
    try:
        value = remote.backend.get(_name(remote, key))
    except Exception as err:  # BackendError, or a user-provided backend's own failure
        _fault(remote, "get", err)
        return None
    if value is None:
        count("remote_misses")
        return None
    try:
        hit, files = unseal(remote.key, key, value)
    except (ValueError, RecursionError, UnicodeDecodeError, MemoryError) as err:
        count("remote_rejected")
        _warn_once(f"bad:{key}", "dsl: ignoring an invalid shared-cache entry %s from %s "
                   "(%s); compiling locally", key[:12], remote.backend.name, str(err)[:200])
        return None
    count("remote_hits")
    if hit.lowered_text is not None and cache.enabled():
        cache.store_files(key, files)
    return hit


def publish(key: str, files: dict[str, bytes], remote: _Remote | None = None) -> None:
    """Send a new entry to the shared cache (``remote``: one ``current()`` returned
    earlier; faults: one warning, then back-off)."""
    remote = remote or _remote()
    if remote is None or time.monotonic() < remote.down_until:
        return
    try:
        remote.backend.put(_name(remote, key), seal(remote.key, key, files))
    except Refused as err:  # answered, but full or read-only: lookups go on
        count("remote_errors")
        _warn_once(f"refused:{remote.backend.name}", "dsl: shared cache %s refused an entry "
                   "(%s); not publishing it", remote.backend.name, err)
        return
    except Exception as err:  # BackendError, or a user-provided backend's own failure
        _fault(remote, "put", err)
        return
    count("remote_published")
