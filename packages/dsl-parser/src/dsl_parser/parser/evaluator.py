"""Compile-time Python: names from closures and globals, folding of Python numbers.

Nothing here executes user code through ``eval``: names are looked up in the
function's closure cells, its globals and a small set of builtins, and
operators are applied only to Python numbers (``64 * 2``, ``-1.5``).
"""

from __future__ import annotations

import ast
import builtins
import operator
from collections.abc import Callable, Mapping
from typing import Any

from ..floats import Float64Bits

#: Builtins a DSL function may use (range is the loop iterator; the rest fold).
BUILTINS: dict[str, object] = {
    "range": range, "tuple": tuple, "len": len, "min": min, "max": max,
    "abs": abs, "int": int, "float": float, "bool": bool,
}

#: Builtins that may be called at compile time on Python values.
FOLDABLE_CALLS: frozenset[object] = frozenset({len, min, max, abs, int, float, bool, tuple})

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}

#: Integers folded at compile time must fit in this many bits (``10 ** 10 ** 10`` would
#: otherwise take minutes and gigabytes); sequences built by ``*`` hold at most
#: MAX_FOLD_ITEMS items.
MAX_FOLD_BITS = 128
MAX_FOLD_ITEMS = 1 << 16


class FoldError(ArithmeticError):
    """A compile-time computation whose result would be too large."""


def _too_big(bits: int) -> FoldError:
    return FoldError(f"the result needs {bits} or more bits; integers computed at compile "
                     f"time must fit in {MAX_FOLD_BITS} bits")


def _check_binary(op: ast.operator, lhs: object, rhs: object) -> None:
    """Refuse, before computing, an operation whose result would be huge."""
    if isinstance(lhs, int) and isinstance(rhs, int) and rhs > 0:
        bits = 0
        if isinstance(op, ast.Pow) and abs(lhs) > 1:
            bits = (abs(lhs).bit_length() - 1) * rhs + 1
        elif isinstance(op, ast.LShift) and lhs:
            bits = abs(lhs).bit_length() + rhs
        if bits > MAX_FOLD_BITS:
            raise _too_big(bits)
    elif isinstance(op, ast.Mult):
        for seq, n in ((lhs, rhs), (rhs, lhs)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int) \
                    and len(seq) * max(n, 0) > MAX_FOLD_ITEMS:
                raise FoldError(f"a sequence of more than {MAX_FOLD_ITEMS} items")


def _checked(result: object) -> object:
    if isinstance(result, int) and result.bit_length() > MAX_FOLD_BITS:
        raise _too_big(result.bit_length())
    return result


_MISSING = object()
_PYTHON_BUILTINS: dict[str, object] = vars(builtins)


def is_number(value: object) -> bool:
    return isinstance(value, (bool, int, float)) and not isinstance(value, Float64Bits)


class Evaluator:
    """Resolves non-local names and folds operators on Python numbers."""

    def __init__(self, globals_: Mapping[str, object], closure: Mapping[str, object]) -> None:
        self.globals = globals_
        self.closure = closure

    def resolve(self, name: str) -> object:
        """The value of a non-local name, or ``MISSING``."""
        for table in (self.closure, self.globals, BUILTINS, _PYTHON_BUILTINS):
            value = table.get(name, _MISSING)
            if value is not _MISSING:
                return value
        return _MISSING

    @staticmethod
    def fold_binary(op: ast.operator, lhs: object, rhs: object) -> object:
        """``lhs op rhs`` on Python values (FoldError when the result would be too large)."""
        _check_binary(op, lhs, rhs)
        return _checked(_BINARY[type(op)](lhs, rhs))

    @staticmethod
    def fold_unary(op: ast.unaryop, operand: object) -> object:
        return _checked(_UNARY[type(op)](operand))

    @staticmethod
    def fold_compare(op: ast.cmpop, lhs: object, rhs: object) -> object:
        return _COMPARE[type(op)](lhs, rhs)

    @staticmethod
    def can_fold(op: object) -> bool:
        return type(op) in _BINARY or type(op) in _UNARY or type(op) in _COMPARE


MISSING = _MISSING


def closure_of(fn: Callable[..., object]) -> dict[str, object]:
    """The closure cells of a Python function, by name (empty cells skipped)."""
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None) or ()
    if code is None:
        return {}
    values: dict[str, object] = {}
    for name, cell in zip(code.co_freevars, cells, strict=False):
        try:
            values[name] = cell.cell_contents
        except ValueError:
            continue
    return values
