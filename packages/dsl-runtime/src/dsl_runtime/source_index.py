"""What the cache key reads from a function's source, kept per function on disk.

A process's first call of a function with a warm disk cache needs, for the key, the
function's source text and the names and attribute chains it reads
(``fingerprint.source`` and ``fingerprint.references``): reading its file, parsing the
definition and walking the tree cost more than the rest of the key. A *source record*
``<cache>/v1/sources/<id>.json`` keeps both, with the state (size, modification time)
of the file they were read from; ``<id>`` digests the function's code object (its
bytecode, constants, names and positions), module, qualified name and file, and the
Python version. A later process uses the record while the file's state is unchanged,
and reads the source otherwise.

A record is written only when what was read is known to be the file as it is: the
lines came from the file itself (``linecache`` holds them with the file's current size
and time stamp, not an older copy or a loader's text) and the file was last modified
at least :data:`dsl_core.versions.SETTLE_NS` before (a file modified twice in one tick
of a coarse file-system clock keeps its time stamp). The values the names hold are
never recorded: they are read in every process (``fingerprint.read_values``).
"""

from __future__ import annotations

import hashlib
import json
import linecache
import os
import sys
import types
from typing import Any

from dsl_core.versions import SETTLE_NS, settled

from . import cache, fingerprint
from .fingerprint import Path

#: Sources longer than this are not recorded (read from the file each time).
MAX_SOURCE = 32 * 1024
_FORMAT = "dsl-source-record/1"
#: Records used or written in this process, by id.
_known: dict[str, tuple[str, list[Path]]] = {}


def facts(fn: Any) -> tuple[str, list[Path]] | None:
    """``(fingerprint.source(fn), fingerprint.references(fn))``, from ``fn``'s source
    record while its file is unchanged, else read (and recorded); None when the source
    or its names are unavailable."""
    ident = _record_id(fn) if cache.enabled() else None
    if ident is not None:
        found = _known.get(ident) or _read(ident, fn.__code__.co_filename)
        if found is not None:
            _known[ident] = found
            return found
    text, chains = fingerprint.source(fn), fingerprint.references(fn)
    if text is None or chains is None:
        return None
    if ident is not None:
        _record(ident, fn.__code__.co_filename, text, chains)
    return text, chains


def _record_id(fn: Any) -> str | None:
    """The record's id for ``fn``: None where no record applies (no code object, no
    absolute file name)."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType) or not os.path.isabs(code.co_filename):
        return None
    h = hashlib.sha256(f"{_FORMAT}\0{sys.version}\0{getattr(fn, '__module__', '')}\0"
                       f"{getattr(fn, '__qualname__', '')}\0{code.co_filename}\0".encode())
    _hash_code(h, code)
    return h.hexdigest()


def _hash_code(h: Any, code: types.CodeType) -> None:
    """Feed what defines a code object to ``h`` (``marshal`` output is not stable across
    processes: it depends on reference counts)."""
    for name in ("co_code", "co_linetable", "co_exceptiontable"):
        h.update(getattr(code, name, b""))
        h.update(b"\0")
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                   code.co_firstlineno, code.co_flags, code.co_argcount,
                   code.co_kwonlyargcount, code.co_posonlyargcount,
                   getattr(code, "co_qualname", code.co_name))).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            h.update(b"<code>")
            _hash_code(h, const)
        else:
            h.update(_const_repr(const).encode())
        h.update(b"\0")


def _const_repr(value: Any) -> str:
    """A repr independent of string hashing order (frozensets of strings)."""
    if isinstance(value, frozenset):
        return "frozenset(" + ",".join(sorted(_const_repr(v) for v in value)) + ")"
    if isinstance(value, tuple):
        return "(" + ",".join(_const_repr(v) for v in value) + ")"
    return f"{type(value).__name__}:{value!r}"


def _read(ident: str, filename: str) -> tuple[str, list[Path]] | None:
    """The record's source and chains if it is well formed and ``filename`` has the
    state it records; None otherwise."""
    data = cache.load_record(ident, cache.SOURCES)
    if data is None:
        return None
    try:
        record = json.loads(data)
        size, mtime, taken = (int(record[k]) for k in ("size", "mtime_ns", "taken_ns"))
        text, chains = record["source"], record["chains"]
        ok = (record.get("format") == _FORMAT and record.get("file") == filename
              and isinstance(text, str)
              and isinstance(chains, list)
              and all(isinstance(c, list) and c and all(isinstance(p, str) for p in c)
                      for c in chains))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    if not ok or taken - mtime < SETTLE_NS:
        return None
    try:
        st = os.stat(filename)
    except OSError:
        return None
    if (st.st_size, st.st_mtime_ns) != (size, mtime):
        return None
    return text, [tuple(c) for c in chains]


def _record(ident: str, filename: str, text: str, chains: list[Path]) -> None:
    """Write the record, only if ``text`` was read from ``filename`` as it is now and the
    file has settled (see the module's docstring)."""
    if len(text) > MAX_SOURCE:
        return
    try:
        st = os.stat(filename)
    except OSError:
        return
    held = linecache.cache.get(filename)
    if held is None or len(held) < 2 or (held[0], held[1]) != (st.st_size, st.st_mtime):
        return  # not read from this file as it is (an older copy, a loader's text)
    state = [(filename, st.st_size, st.st_mtime_ns)]
    import time

    now = time.time_ns()
    if not settled(state, now):
        return
    _known[ident] = (text, chains)
    cache.store_record(ident, json.dumps({
        "format": _FORMAT, "file": filename, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
        "taken_ns": now, "source": text, "chains": [list(c) for c in chains],
    }).encode(), cache.SOURCES)
