"""The threads of a warp (32 on every NVIDIA GPU), inside a ``@pl.kernel``.

* ``pl.lane_id()``: ``gpu.lane_id`` (INDEX, 0 to 31); ``pl.warp_size()``: the int 32.
* ``pl.shuffle_xor(v, mask)``, ``shuffle_down(v, delta)``, ``shuffle_up(v, delta)``,
  ``shuffle_idx(v, lane)``: ``gpu.shuffle`` of a 32-bit scalar (int32, uint32, float32)
  across the warp; a lane whose source is outside the warp gets its own ``v`` (CUDA's
  ``__shfl_*_sync`` rule).
* ``pl.warp_sum(v)``, ``warp_max``, ``warp_min``: a butterfly of five xor shuffles; every
  lane gets the result.

Like ``pl.barrier()``, every lane of the warp must reach the same shuffles: one inside
an ``if``/``else`` or a ``while`` loop is an error (the cpu backend runs a shuffle as a
store, a barrier of the block and a load).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .._mlir import Value, arith, gpu, ir
from ..errors import InvalidOperationError, ParserTypeError, UnsupportedFeatureError
from ..markers import WarpBuiltin
from ..types import FP32, INDEX, INT32, UINT32, ScalarType
from ..values import TypedValue
from .block_parser import divergence
from .element_parser import index_value
from .state import ParserState, _describe

WARP_SIZE = 32
SHUFFLE_DTYPES = (INT32, UINT32, FP32)
_MODES = {"shuffle_xor": "XOR", "shuffle_down": "DOWN", "shuffle_up": "UP",
          "shuffle_idx": "IDX"}
_REDUCE = {  # (name, kind) -> arith op class name
    ("warp_sum", "float"): "AddFOp", ("warp_sum", "int"): "AddIOp",
    ("warp_sum", "uint"): "AddIOp",
    ("warp_max", "float"): "MaximumFOp", ("warp_max", "int"): "MaxSIOp",
    ("warp_max", "uint"): "MaxUIOp",
    ("warp_min", "float"): "MinimumFOp", ("warp_min", "int"): "MinSIOp",
    ("warp_min", "uint"): "MinUIOp",
}


class WarpParser:
    """Emits the warp builtins above."""

    def __init__(self, state: ParserState) -> None:
        self.state = state

    def call(self, func: WarpBuiltin, node: ast.Call, args: Sequence[object],
             kwargs: dict[str, object]) -> object:
        src, qual = self.state.src, repr(func)
        if kwargs:
            src.error(node, InvalidOperationError, f"{qual} takes no keyword arguments")
        b = self.state.builder
        if func.name in ("lane_id", "warp_size"):
            if args:
                src.error(node, InvalidOperationError, f"{qual}() takes no arguments")
            if func.name == "warp_size":
                return WARP_SIZE
            lane = gpu.LaneIdOp(loc=b.loc, ip=b.ip).result
            return self.state.new(lane, ScalarType(INDEX))
        problem = divergence(self.state)
        if problem is not None:
            src.error(node, UnsupportedFeatureError,
                      f"{qual} inside {problem}: every lane of the warp must reach the same "
                      "shuffles",
                      hint="compute the value under the branch, shuffle outside it")
        count = 1 if func.name.startswith("warp_") else 2
        if len(args) != count:
            shape = "v" if count == 1 else "v, lane" if func.name == "shuffle_idx" \
                else "v, offset"
            src.error(node, InvalidOperationError, f"{qual} takes {count} argument(s) "
                                                   f"({shape})")
        value = self._value(qual, args[0], node.args[0])
        if func.name.startswith("warp_"):
            return self._reduce(func.name, value)
        offset = self._i32(index_value(self.state, args[1], node.args[1], "the offset"))
        shuffled = self._shuffle(value, offset, _MODES[func.name])
        return self.state.new(shuffled, value.type)

    def _value(self, qual: str, value: object, where: ast.expr) -> TypedValue:
        if not (isinstance(value, TypedValue) and isinstance(value.type, ScalarType)
                and value.dtype in SHUFFLE_DTYPES):
            got = value.type if isinstance(value, TypedValue) else _describe(value)
            self.state.src.error(where, ParserTypeError,
                                 f"{qual} takes a 32-bit scalar (int32, uint32, float32), got "
                                 f"{got}", hint="convert it, e.g. pl.cast(v, pl.FP32)")
        return value

    def _i32(self, index: Value) -> Value:
        b = self.state.builder
        return arith.IndexCastOp(ir.IntegerType.get_signless(32), index, loc=b.loc,
                                 ip=b.ip).result

    def _shuffle(self, value: TypedValue, offset: Value, mode: str) -> Value:
        """The shuffled value, or the lane's own where the source is outside the warp."""
        b = self.state.builder
        width = arith.ConstantOp(ir.IntegerType.get_signless(32), WARP_SIZE, loc=b.loc,
                                 ip=b.ip).result
        op = gpu.ShuffleOp(value.value, offset, width, getattr(gpu.ShuffleMode, mode),
                           loc=b.loc, ip=b.ip)
        return arith.SelectOp(op.results[1], op.results[0], value.value, loc=b.loc,
                              ip=b.ip).result

    def _reduce(self, name: str, value: TypedValue) -> TypedValue:
        b = self.state.builder
        op_class = getattr(arith, _REDUCE[(name, value.dtype.kind)])
        acc = value.value
        for step in (16, 8, 4, 2, 1):
            mask = arith.ConstantOp(ir.IntegerType.get_signless(32), step, loc=b.loc,
                                    ip=b.ip).result
            other = self._shuffle(TypedValue(acc, value.type), mask, "XOR")
            acc = op_class(acc, other, loc=b.loc, ip=b.ip).result
        return self.state.new(acc, value.type)
