"""Shared memory and barriers of a thread block, inside a ``@pl.kernel``.

* ``t = pl.shared([64, 64], pl.FP32)``: a statically shaped tile of the block's shared
  memory (a ``workgroup`` attribution of the ``gpu.func``: ``memref<64x64xf32,
  #gpu.address_space<workgroup>>``), one per block and call site, uninitialized;
  ``t[i, j]`` loads and stores it like a tensor parameter. Sizes are positive
  compile-time ints; the tiles of one kernel hold at most 48 KiB (the static shared
  memory of a block on every NVIDIA GPU).
* ``pl.barrier()``: ``gpu.barrier``. Every thread of the block must reach the same
  barriers, so one inside an ``if``/``else`` or a ``while`` loop (or after a
  ``break``/``continue``/early ``return``, which guard the rest of the code) is an
  error; ``for`` loops may hold barriers.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence

from .._mlir import gpu, ir
from ..errors import InvalidOperationError, ParserTypeError, UnsupportedFeatureError
from ..markers import BlockBuiltin
from ..types import BOOL, INDEX, DType, ScalarType, TensorType
from ..values import TypedValue
from .state import ParserState, _describe

#: Static shared memory a block may use (bytes).
SHARED_LIMIT = 48 * 1024

#: Scopes a barrier may not be in (threads could reach it a different number of times).
_DIVERGENT = {"if branch": "an if/else branch", "else branch": "an if/else branch",
              "while loop": "a while loop", "while condition": "a while loop"}


def divergence(state: ParserState) -> str | None:
    """The branch or while loop enclosing the code being parsed ("an if/else branch"),
    where threads may disagree on getting, or None."""
    for scope in reversed(state.scopes.stack):
        where = _DIVERGENT.get(scope.kind)
        if where is not None:
            return where
    return None


class BlockParser:
    """Emits ``pl.shared`` and ``pl.barrier``."""

    def __init__(self, state: ParserState) -> None:
        self.state = state
        self.shared_bytes = 0

    def call(self, func: BlockBuiltin, node: ast.Call, args: Sequence[object],
             kwargs: dict[str, object]) -> object:
        if func.name == "barrier":
            self.barrier(node, args, kwargs)
            return None
        return self.shared(node, args, kwargs)

    def barrier(self, node: ast.Call, args: Sequence[object], kwargs: dict[str, object]) -> None:
        src = self.state.src
        if args or kwargs:
            src.error(node, InvalidOperationError, "pl.barrier() takes no arguments")
        where = divergence(self.state)
        if where is not None:
            src.error(node, UnsupportedFeatureError,
                      f"pl.barrier() inside {where}: every thread of the block must reach "
                      "the same barriers",
                      hint="move the barrier out of the branch or loop (for loops may "
                           "hold barriers); an early return, break or continue before it "
                           "also puts it under a branch")
        b = self.state.builder
        gpu.BarrierOp(loc=b.loc, ip=b.ip)

    def shared(self, node: ast.Call, args: Sequence[object],
               kwargs: dict[str, object]) -> TypedValue:
        src = self.state.src
        values = list(args) + [kwargs[k] for k in ("shape", "dtype") if k in kwargs]
        if len(values) != 2 or set(kwargs) - {"shape", "dtype"}:
            src.error(node, InvalidOperationError, "pl.shared takes a shape and a dtype: "
                                                   "pl.shared([64, 64], pl.FP32)")
        shape, dtype = values
        if not isinstance(shape, (list, tuple)) or not shape or any(
                isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in shape):
            src.error(node, ParserTypeError,
                      f"pl.shared: the shape must be a list of positive compile-time ints, got "
                      f"{_describe(shape)}")
        if not isinstance(dtype, DType) or dtype in (INDEX, BOOL):
            src.error(node, ParserTypeError,
                      f"pl.shared: the dtype must be a numeric element type (pl.FP32, "
                      f"pl.INT32...), got {_describe(dtype)}")
        size = math.prod(shape) * dtype.itemsize
        self.shared_bytes += size
        if self.shared_bytes > SHARED_LIMIT:
            src.error(node, ParserTypeError,
                      f"pl.shared: the kernel's shared memory would be {self.shared_bytes} "
                      f"bytes, more than the {SHARED_LIMIT} a block may use")
        return self._attribution(list(shape), dtype, node)

    def _attribution(self, shape: list[int], dtype: DType, node: ast.Call) -> TypedValue:
        b, state = self.state.builder, self.state
        entry = state.entry
        assert entry is not None
        element = b.mlir_type(ScalarType(dtype))
        space = ir.Attribute.parse("#gpu.address_space<workgroup>")
        mtype = ir.MemRefType.get(shape, element, memory_space=space)
        value = entry.add_argument(mtype, b.loc)
        func = entry.owner
        count = ir.IntegerAttr(func.attributes["workgroup_attributions"]).value \
            if "workgroup_attributions" in func.attributes else 0
        func.attributes["workgroup_attributions"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), count + 1)
        state.scopes.nameable.add(value)
        return state.new(value, TensorType(tuple(shape), dtype))
