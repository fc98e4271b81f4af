"""The source of a function's definition, read without the tokenizer.

``inspect.getsource`` finds where a definition ends with the tokenizer, whose regular
expressions take milliseconds to compile on a process's first use (more than the
whole parse of a small kernel). A function's code objects know their own line
positions (Python 3.11+), so its lines can be cut from the file directly; the parser
and the runtime's cache keys both read sources this way.
"""

from __future__ import annotations

import ast
import linecache
import textwrap
import threading
from typing import Any

_PARSE_LOCK = threading.RLock()  # re-entrant: a finalizer run by the GC may parse


def parse_python(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(text, filename)``, one thread at a time: CPython 3.11 (up to 3.11.7
    at least) keeps the AST converter's recursion depth in interpreter state, and two
    threads parsing at once fail with ``SystemError: AST constructor recursion depth
    mismatch`` (first calls of two @jit functions on two threads did). Parsing holds
    the GIL anyway: the lock costs no parallelism."""
    with _PARSE_LOCK:
        return ast.parse(text, filename)


def _last_line(code: Any) -> int:
    """The last source line of ``code`` and of the code objects nested in it."""
    ends: list[int] = [end for _, end, _, _ in code.co_positions() if end is not None]
    ends += [_last_line(c) for c in code.co_consts if hasattr(c, "co_positions")]
    return max(ends, default=int(code.co_firstlineno))


def definition(fn: Any) -> tuple[str, ast.Module, int] | None:
    """``(text, tree, first_line)`` of the definition of function ``fn``: its lines
    (decorators included, as ``inspect.getsource`` returns them), their parse (dedented)
    and the file line the text starts on. None where the positions are unavailable
    (Python 3.10, a lambda, a function without a file) or the lines do not parse as
    one definition: callers then fall back to ``inspect``."""
    code = getattr(fn, "__code__", None)
    if code is None or not hasattr(code, "co_positions"):
        return None
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if not lines or first > len(lines):
        return None
    text = "".join(lines[first - 1:_last_line(code)])
    try:
        tree = parse_python(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return None
    ok = len(tree.body) == 1 and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef))
    return (text, tree, first) if ok else None


__all__ = ["definition", "parse_python"]
