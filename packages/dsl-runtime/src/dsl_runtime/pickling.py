"""How ``@jit`` functions pickle (for Dask, multiprocessing, any pickle-based transport).

By reference (module and qualified name) when the function is importable as such; else
by value: the Python function (``cloudpickle`` sends its code), its options, the source
lines of it and of the kernels it launches, and the globals only its annotations read.
See docs/distributed.md, "Compiled functions on Dask".
"""

from __future__ import annotations

import inspect
import linecache
import pickle
import sys
from typing import Any

from . import keys
from .options import CompileOptions


def pickle_dispatcher(dispatcher: Any) -> str | tuple[Any, ...]:
    """How a ``@jit`` object pickles: by reference (its module and qualified name) when
    it is importable as such; else by its Python function (which ``cloudpickle``, used by
    Dask, sends by value), its options and the source lines of the function and of the
    kernels it launches, so that the process that unpickles it parses the same code,
    computes the same cache keys and finds the compiled code in the shared cache."""
    from .jit import implementation

    impl = implementation(dispatcher)
    module, qualname = getattr(dispatcher, "__module__", None), dispatcher.__qualname__
    if module != "__main__" and _resolve(module, qualname) is dispatcher:
        return str(qualname)
    if impl is None or impl._parsed is not None:
        raise pickle.PicklingError(
            f"cannot pickle {qualname}: a jit(program, entry=...) pickles by reference "
            "only; define it at module level")
    values = impl._read_values()  # also finds the kernels it launches and what they read
    sources = [(f, *found, _annotation_globals(f, chains)) for f, chains in
               impl._sources or [(impl._fn, [])] if (found := _source_lines(f)) is not None]
    # Same code, options and values: a process that unpickles it again (Dask sends the
    # function with each task) reuses the first copy and its compiled specializations.
    token = None if values is None or impl._identity is None else keys.digest(
        "pickled-jit", impl._identity, impl.options.key(), impl.disk_cache, values)
    return _unpickle_jit, (impl._fn, impl.options, impl.disk_cache, sources, token)


def _annotation_globals(fn: Any, chains: list[tuple[str, ...]]) -> dict[str, Any]:
    """The globals the source reads outside the function's code (its annotations, e.g.
    ``pl`` and a dynamic size ``N``), which ``cloudpickle`` does not send with it."""
    names = {chain[0] for chain in chains} - set(fn.__code__.co_names)
    return {n: fn.__globals__[n] for n in sorted(names) if n in fn.__globals__}


def _resolve(module: str | None, qualname: str) -> Any:
    found: Any = sys.modules.get(module or "")
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


def _source_lines(fn: Any) -> tuple[str, int, list[str]] | None:
    """(file, first line, lines) of a function's definition, or None (no source)."""
    try:
        lines, first = inspect.getsourcelines(fn)
        return inspect.getsourcefile(fn) or fn.__code__.co_filename, first, lines
    except (OSError, TypeError):
        return None


_unpickled: dict[str, Any] = {}
_UNPICKLED_LIMIT = 256


def _unpickle_jit(fn: Any, options: CompileOptions, disk_cache: bool,
                  sources: list[tuple[Any, str, int, list[str], dict[str, Any]]],
                  token: str | None = None) -> Any:
    """A ``@jit`` object rebuilt from a pickle (``_pickle_dispatcher``). Each function gets
    back its file name (``cloudpickle`` replaces it) and the sender's lines are put in
    ``linecache`` at that file and line (where this machine's copy differs, or there is
    none): the parser, its error messages and the cache key read the sender's source.
    Globals that only its annotations read are added to its globals where missing."""
    if token is not None and token in _unpickled:
        return _unpickled[token]
    for function, filename, first, lines, names in sources:
        code = function.__code__
        if code.co_filename != filename:
            function.__code__ = code.replace(co_filename=filename)
        for name, value in names.items():
            function.__globals__.setdefault(name, value)
        current = linecache.getlines(filename)
        if current[first - 1:first - 1 + len(lines)] == lines:
            continue
        merged = list(current) + ["\n"] * max(0, first - 1 + len(lines) - len(current))
        merged[first - 1:first - 1 + len(lines)] = lines
        linecache.cache[filename] = (sum(map(len, merged)), None, merged, filename)
    from .jit import jit

    dispatcher = jit(fn, options=options, cache=disk_cache)
    if token is not None:
        if len(_unpickled) >= _UNPICKLED_LIMIT:
            _unpickled.pop(next(iter(_unpickled)))
        _unpickled[token] = dispatcher
    return dispatcher
