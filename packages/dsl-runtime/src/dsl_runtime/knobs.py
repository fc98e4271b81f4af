"""Every environment variable dsl-runtime reads, in one place.

| variable | default | meaning |
|---|---|---|
| ``DSL_CACHE_DIR`` | ``$XDG_CACHE_HOME/dsl`` or ``~/.cache/dsl`` | disk cache folder |
| ``DSL_DISABLE_DISK_CACHE`` | unset | ``1`` turns the disk cache off |
| ``DSL_OPT_LEVEL`` | ``3`` | LLVM optimization level of the JIT (part of the cache key) |
| ``DSL_DUMP_DIR`` | unset | write the IR after every pass of each compile under this folder |
| ``DSL_CHECK_INPUTS`` | unset | ``1``: every call of a function compiled from then on snapshots its \
non-output array inputs and raises ``RuntimeError`` if the call changed one (a debug guard; \
the project's test suites turn it on) |
| ``DSL_INTERPRET`` | unset | ``1``: ``@jit`` functions run in the reference interpreter (no compile) |
| ``DSL_BOUNDSCHECK`` | unset | ``1`` checks kernel element accesses (the default of the \
``boundscheck`` option, part of the cache key) |
| ``DSL_CACHE_MAX_SIZE`` | unset | size cap of the disk cache (``500M``, ``2G``): after \
each write the least recently used entries are evicted |
| ``DSL_LOG`` | unset | ``compile,cache,tune`` (or ``all``): one line per compile, disk-cache \
event and tuning on stderr (``dsl_runtime.logs``) |
| ``DSL_CACHE_BACKEND`` | unset | a shared compile cache, ``redis://host:port/db`` \
(``rediss://``, ``unix://``; docs/distributed.md) |
| ``DSL_CACHE_KEY`` | unset | the shared cache's signing key (at least 16 bytes): without one, \
only IR is shared |
| ``DSL_CACHE_KEY_FILE`` | unset | a file holding the signing key (mode 600, owned by the user) |
| ``DSL_CACHE_TIMEOUT`` | ``1.0`` | seconds the shared cache may take per operation |
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Knobs:
    cache_dir: Path
    disk_cache: bool
    opt_level: int
    dump_dir: Path | None
    check_inputs: bool = False
    interpret: bool = False


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dsl"


#: The variables ``read`` depends on (its result is kept per combination of their values).
_READ_VARIABLES = ("DSL_OPT_LEVEL", "DSL_DUMP_DIR", "DSL_CACHE_DIR", "XDG_CACHE_HOME", "HOME",
                   "DSL_DISABLE_DISK_CACHE", "DSL_CHECK_INPUTS", "DSL_INTERPRET")
_made: dict[tuple[str | None, ...], Knobs] = {}


def read() -> Knobs:
    """The current settings (read at each call, so tests and users may change them; the
    record is made once per combination of the variables' values)."""
    raw = tuple(os.environ.get(name) for name in _READ_VARIABLES)
    found = _made.get(raw)
    if found is None:
        found = _make()
        if len(_made) > 64:
            _made.clear()
        _made[raw] = found
    return found


def _make() -> Knobs:
    level = os.environ.get("DSL_OPT_LEVEL", "3")
    if level not in ("0", "1", "2", "3"):
        raise ValueError(f"DSL_OPT_LEVEL must be 0, 1, 2 or 3, got {level!r}")
    dump = os.environ.get("DSL_DUMP_DIR")
    return Knobs(
        cache_dir=Path(os.environ.get("DSL_CACHE_DIR") or _default_cache_dir()),
        disk_cache=not _flag("DSL_DISABLE_DISK_CACHE"),
        opt_level=int(level),
        dump_dir=Path(dump) if dump else None,
        check_inputs=_flag("DSL_CHECK_INPUTS"),
        interpret=_flag("DSL_INTERPRET"),
    )


def read_boundscheck() -> bool:
    """``DSL_BOUNDSCHECK``: the default of the ``boundscheck`` compile option (read when
    the options are made, e.g. at ``@jit``)."""
    value = os.environ.get("DSL_BOUNDSCHECK", "").strip().lower()
    if value not in ("", "0", "1", "true", "false", "yes", "no", "on", "off"):
        raise ValueError(f"DSL_BOUNDSCHECK must be 0 or 1, got {value!r}")
    return _flag("DSL_BOUNDSCHECK")


#: The shared cache's settings, in the order ``read_shared_cache`` returns them.
SHARED_CACHE_VARIABLES = ("DSL_CACHE_BACKEND", "DSL_CACHE_KEY", "DSL_CACHE_KEY_FILE",
                          "DSL_CACHE_TIMEOUT")


def read_shared_cache() -> tuple[str, ...]:
    """The raw values of ``SHARED_CACHE_VARIABLES`` ("" when unset); checked by
    ``dsl_runtime.shared_cache`` when it makes the backend."""
    return tuple(os.environ.get(name, "") for name in SHARED_CACHE_VARIABLES)
