"""Warp builtins under the interpreter (``pl.lane_id``, ``pl.shuffle_*``, ``pl.warp_*``).

A warp is 32 consecutive threads of the block (x fastest). Shuffles exchange values
through the block (``blocks.Block.shuffle``: the block's threads run as Python threads
when the kernel uses them); the arithmetic is the compiled code's (int32 wraps, float
max/min propagate NaN)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..errors import InvalidOperationError, ParserTypeError
from ..ops.numerics import np
from ..parser.warp_parser import SHUFFLE_DTYPES, WARP_SIZE
from . import state
from .values import IScalar, index

Fail = Callable[[type, str], NoReturn]


def _linear(thread: state.Thread) -> int:
    (tx, ty, tz), (bx, by, _) = thread.thread_id, thread.block_dim
    return (tz * by + ty) * bx + tx


def warp_builtin(name: str, args: Sequence[object], kwargs: dict[str, object],
                 fail: Fail) -> Any:
    frame = state.current()
    if frame.thread is None or frame.block is None:
        fail(InvalidOperationError, f"pl.{name} is only available inside a @pl.kernel")
    if kwargs:
        fail(InvalidOperationError, f"pl.{name} takes no keyword arguments")
    if name == "warp_size":
        return WARP_SIZE
    me = _linear(frame.thread)
    if name == "lane_id":
        return index(me % WARP_SIZE)
    value = args[0] if args else None
    if not isinstance(value, IScalar) or value.dtype not in SHUFFLE_DTYPES:
        fail(ParserTypeError, f"pl.{name} takes a 32-bit scalar (int32, uint32, float32), "
                              f"got {value!r}")
    if name.startswith("warp_"):
        return _reduce(name, value, me, frame.block)
    if len(args) != 2:
        fail(InvalidOperationError, f"pl.{name} takes 2 arguments")
    offset: Any = args[1].value if isinstance(args[1], IScalar) else args[1]
    if isinstance(offset, bool) or not isinstance(offset, (int, np().integer)):
        fail(ParserTypeError, f"pl.{name}: the offset must be an integer, got {offset!r}")
    return IScalar(_shuffle(name, value.value, int(offset), me, frame.block), value.dtype)


def _shuffle(name: str, value: Any, offset: int, me: int, block: Any) -> Any:
    lane, base = me % WARP_SIZE, me - me % WARP_SIZE
    source = {"shuffle_xor": lane ^ offset, "shuffle_down": lane + offset,
              "shuffle_up": lane - offset, "shuffle_idx": offset}[name]
    valid = 0 <= source < WARP_SIZE and base + source < block.threads
    return block.shuffle(me, value, base + source if valid else None)


def _reduce(name: str, value: IScalar, me: int, block: Any) -> IScalar:
    n = np()
    acc = value.value
    combine = {"warp_sum": lambda a, b: a + b,
               "warp_max": n.maximum if value.dtype.is_float else max,
               "warp_min": n.minimum if value.dtype.is_float else min}[name]
    for step in (16, 8, 4, 2, 1):
        acc = combine(acc, _shuffle("shuffle_xor", acc, step, me, block))
    return IScalar(acc, value.dtype)
