"""Scalar builtins with no Python operator, and the thread-position intrinsics of kernels.

* ``pl.block_id(d)``, ``pl.thread_id(d)``, ``pl.block_dim(d)``, ``pl.grid_dim(d)`` with
  ``d`` 0, 1 or 2: ``gpu.block_id x`` ... (INDEX), only inside a ``@pl.kernel``.
* ``pl.ceil_div(a, b)``: ``arith.ceildivsi`` (``ceildivui`` for unsigned dtypes) on
  INDEX/integer scalars; folds on Python ints.
* ``pl.min(a, b)`` / ``pl.max(a, b)`` of two scalars: ``arith.minsi``/``minui``/
  ``minimumf`` (NaN-propagating) and the ``max`` ones; fold on Python numbers.
  (With a tensor first argument they are the reductions of the op table.)
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .._mlir import Value, arith, gpu
from ..errors import InvalidOperationError, ParserTypeError
from ..markers import KernelBuiltin
from ..types import INDEX, DType, Dynamic, ScalarType
from ..values import TypedValue, is_literal, literal_dtype
from .evaluator import is_number
from .state import KERNEL, ParserState, _describe

_POSITION = {"block_id": "BlockIdOp", "thread_id": "ThreadIdOp", "block_dim": "BlockDimOp",
             "grid_dim": "GridDimOp"}

#: Names of the kernel intrinsics (``pl.<name>``).
KERNEL_INTRINSICS = tuple(_POSITION)

_MIN_MAX = {  # (name, kind) -> arith op class name
    ("min", "int"): "MinSIOp", ("min", "uint"): "MinUIOp", ("min", "float"): "MinimumFOp",
    ("max", "int"): "MaxSIOp", ("max", "uint"): "MaxUIOp", ("max", "float"): "MaximumFOp",
}


def scalar_min_max(name: str, args: Sequence[object], kwargs: dict[str, object]) -> bool:
    """Whether ``pl.min``/``pl.max`` is the two-scalar form (not the reduction)."""
    return name in ("min", "max") and len(args) == 2 and not kwargs and not (
        isinstance(args[0], TypedValue) and args[0].is_tensor)


class IntrinsicParser:
    """Emits the builtins above."""

    def __init__(self, state: ParserState) -> None:
        self.state = state

    def position(self, func: KernelBuiltin, node: ast.Call, args: Sequence[object],
                 kwargs: dict[str, object]) -> TypedValue:
        """``pl.thread_id(d)`` and friends."""
        src, qual = self.state.src, repr(func)
        if self.state.mode != KERNEL:
            src.error(node, InvalidOperationError,
                      f"{qual} is only available inside a @pl.kernel function")
        values = list(args) + [kwargs[k] for k in kwargs if k == "dim"]
        if len(values) != 1 or any(k != "dim" for k in kwargs):
            src.error(node, InvalidOperationError,
                      f"{qual} takes one argument, the dimension 0, 1 or 2 (x, y, z)")
        dim = values[0]
        where = node.args[0] if node.args else node.keywords[0].value
        if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim <= 2:
            src.error(where, ParserTypeError,
                      f"{qual} takes the dimension 0, 1 or 2 (x, y, z) as a compile-time int, "
                      f"got {_describe(dim)}")
        b = self.state.builder
        op_class = getattr(gpu, _POSITION[func.name])
        op = op_class(getattr(gpu.Dimension, "xyz"[dim]), loc=b.loc, ip=b.ip)
        return self.state.new(op.result, ScalarType(INDEX))

    # -- two-scalar builtins ---------------------------------------------------------------
    def ceil_div(self, node: ast.Call, args: Sequence[object],
                 kwargs: dict[str, object]) -> object:
        """``pl.ceil_div(a, b)``: the smallest integer >= a / b."""
        pair = self._pair("pl.ceil_div", node, args, kwargs)
        if pair is None:
            a, b = args
            if isinstance(a, float) or isinstance(b, float):
                self.state.src.error(node, ParserTypeError, "pl.ceil_div takes integers")
            if b == 0:
                self.state.src.error(node, ParserTypeError, "pl.ceil_div: division by zero")
            return -(-a // b)  # type: ignore[operator]
        dtype, lhs, rhs = pair
        if dtype.kind not in ("int", "uint", "index"):
            self.state.src.error(node, ParserTypeError,
                                 f"pl.ceil_div takes INDEX or integer scalars, got "
                                 f"{ScalarType(dtype)}")
        op_class = arith.CeilDivUIOp if dtype.kind == "uint" else arith.CeilDivSIOp
        b = self.state.builder
        return self.state.new(op_class(lhs, rhs, loc=b.loc, ip=b.ip).result, ScalarType(dtype))

    def min_max(self, name: str, node: ast.Call, args: Sequence[object],
                kwargs: dict[str, object]) -> object:
        """``pl.min(a, b)`` / ``pl.max(a, b)`` of two scalars."""
        pair = self._pair(f"pl.{name}", node, args, kwargs)
        if pair is None:
            return min(args) if name == "min" else max(args)  # type: ignore[type-var]
        dtype, lhs, rhs = pair
        kind = {"index": "int"}.get(dtype.kind, dtype.kind)
        op_name = _MIN_MAX.get((name, kind))
        if op_name is None:
            self.state.src.error(node, ParserTypeError,
                                 f"pl.{name} of two scalars takes numbers, got {ScalarType(dtype)}")
        b = self.state.builder
        op = getattr(arith, op_name)(lhs, rhs, loc=b.loc, ip=b.ip)
        return self.state.new(op.result, ScalarType(dtype))

    def _pair(self, qual: str, node: ast.Call, args: Sequence[object],
              kwargs: dict[str, object]) -> tuple[DType, Value, Value] | None:
        """The common dtype and both operands (None when both are Python numbers)."""
        src = self.state.src
        if len(args) != 2 or kwargs:
            src.error(node, InvalidOperationError, f"{qual} takes two arguments: {qual}(a, b)")
        if all(is_number(a) for a in args):
            return None
        dtypes: list[DType] = []
        for value, where in zip(args, node.args, strict=True):
            if isinstance(value, Dynamic):
                dtypes.append(INDEX)
            elif isinstance(value, TypedValue) and not value.is_tensor:
                dtypes.append(value.dtype)
            elif not is_literal(value):
                src.error(where, ParserTypeError,
                          f"{qual} takes two scalars or numbers, got {_describe(value)}")
        if len(dtypes) == 2 and dtypes[0] != dtypes[1]:
            src.error(node, ParserTypeError,
                      f"{qual}: the operands have different types: {ScalarType(dtypes[0])} and "
                      f"{ScalarType(dtypes[1])}")
        dtype = dtypes[0] if dtypes else literal_dtype(args[0])
        lhs = self.state.materialize(args[0], node.args[0], dtype).value
        return dtype, lhs, self.state.materialize(args[1], node.args[1], dtype).value
