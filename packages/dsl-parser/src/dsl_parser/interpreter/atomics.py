"""``pl.atomic_*`` under the interpreter: threads run one at a time, so each is a plain
read-modify-write of the element with the compiled code's arithmetic (integers wrap,
float min/max propagate NaN), returning the old value."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..errors import InvalidOperationError, ParserTypeError
from ..ops.numerics import np, scalar
from ..parser.atomic_parser import ATOMIC_DTYPES
from ..types import DType
from ..values import is_literal, literal_problem
from .values import IScalar, ITensor

Fail = Callable[[type, str], NoReturn]


def atomic(name: str, args: Sequence[object], fail: Fail, element_index: Any) -> IScalar:
    """``pl.<name>(*args)`` on a kernel's tensor; ``fail(cls, message)`` raises at the
    user's line, ``element_index(tensor, key)`` checks the index."""
    op = name.removeprefix("atomic_")
    count = 4 if op == "cas" else 3
    if len(args) != count:
        fail(InvalidOperationError, f"pl.{name} takes {count} arguments")
    x, key, *operands = args
    if not isinstance(x, ITensor):
        fail(ParserTypeError, f"pl.{name}: the first argument must be a tensor, got {x!r}")
    if x.dtype not in ATOMIC_DTYPES:
        fail(ParserTypeError, f"pl.{name}: atomics take 32/64-bit integer or float elements, "
                              f"got {x.dtype!r}")
    if op in ("and", "or", "xor", "cas") and x.dtype.is_float:
        fail(ParserTypeError, f"pl.{name} takes integer elements, got {x.dtype!r}")
    where = element_index(x, tuple(key) if isinstance(key, (tuple, list)) else key)
    values = [_operand(name, v, x.dtype, fail) for v in operands]
    old = x.array[where]
    x.array[where] = _update(op, old, values, x.dtype)
    return IScalar(old, x.dtype)


def _operand(name: str, value: object, dtype: DType, fail: Fail) -> Any:
    if isinstance(value, IScalar):
        if value.dtype != dtype:
            fail(ParserTypeError, f"pl.{name}: the value must be a {dtype!r} scalar, got "
                                  f"{value.dtype!r}")
        return value.value
    if not is_literal(value):
        fail(ParserTypeError, f"pl.{name}: expected a {dtype!r} scalar or a number, got "
                              f"{value!r}")
    problem = literal_problem(value, dtype)
    if problem is not None:
        fail(ParserTypeError, f"pl.{name}: {problem}")
    return scalar(value, dtype)


def _update(op: str, old: Any, values: list[Any], dtype: DType) -> Any:
    n = np()
    v = values[-1]
    if op == "add":
        return old + v
    if op in ("min", "max"):
        if dtype.is_float:
            return (n.minimum if op == "min" else n.maximum)(old, v)  # NaN propagates
        return min(old, v) if op == "min" else max(old, v)
    if op == "xchg":
        return v
    if op == "cas":
        return v if old == values[0] else old
    bitwise = {"and": n.bitwise_and, "or": n.bitwise_or, "xor": n.bitwise_xor}
    return bitwise[op](old, v)
