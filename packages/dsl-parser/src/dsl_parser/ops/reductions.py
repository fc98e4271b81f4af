"""Reductions: ``pl.sum``/``max``/``min``/``mean`` and ``pl.argmax``
(lowered by ``lib/Conversion/DslToLinalg/ReductionOps.cpp``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._mlir import Value, dsl, ir
from ..types import (
    INT64,
    DType,
    PlType,
    TensorType,
)
from ..values import TypedValue
from .common import (
    _axis,
    _floats_only,
    _tensor,
)
from .rule import Arg, OpCall, OpRule, Param, Spelling


def _reduced_axes(call: OpCall, t: TensorType) -> list[int]:
    assert t.rank is not None
    axes = call["axis"]
    if axes is None:
        items: list[int] = list(range(t.rank))
    else:
        items = [axes] if isinstance(axes, int) else list(axes)  # type: ignore[call-overload]
    if not items:
        call.fail("axis", "at least one axis is required (None reduces every axis)")
    out = [_axis(call, "axis", a, t.rank) for a in items]
    if len(set(out)) != len(out):
        call.fail("axis", f"axes {items!r} repeat a dimension of {t}")
    return sorted(out)


def _reduced_type(call: OpCall, t: TensorType, axes: Sequence[int], dtype: DType) -> TensorType:
    assert t.shape is not None
    keep = call["keepdim"]
    shape = tuple(1 if i in axes else d for i, d in enumerate(t.shape) if keep or i not in axes)
    return TensorType(shape, dtype)


def _reduction(name: str, op_class: Callable[..., object], what: str,
               floats: bool = False) -> OpRule:
    def infer(call: OpCall) -> PlType:
        t = _tensor(call, "x")
        if floats:
            _floats_only(call, t)
        return _reduced_type(call, t, _reduced_axes(call, t), t.dtype)

    def emit(call: OpCall, t: PlType) -> Value:
        ctx, x = call.ctx, call["x"]
        assert isinstance(x, TypedValue) and isinstance(x.type, TensorType)
        axes = _reduced_axes(call, x.type)
        return op_class(ctx.mlir_type(t), x.value, axes,  # type: ignore[attr-defined]
                        keepdim=True if call["keepdim"] else None, loc=ctx.loc, ip=ctx.ip).result

    def spell(s: Spelling) -> str:
        attrs = s.op.attributes  # type: ignore[attr-defined]
        axes = list(ir.DenseI64ArrayAttr(attrs["axes"]))
        rank = s.operand_type(0).rank  # type: ignore[union-attr]
        parts = [s.operand(0)]
        if axes != list(range(rank or 0)):
            parts.append(f"axis={axes[0] if len(axes) == 1 else axes!r}")
        if "keepdim" in attrs:
            parts.append("keepdim=True")
        return f"pl.{name}({', '.join(parts)})"

    return OpRule(name, f"dsl.{name}",
                  (Param("x", Arg.TENSOR), Param("axis", Arg.AXES, None),
                   Param("keepdim", Arg.FLAG, False)),
                  infer, emit, spell,
                  f"The {what} over axis (an int, a list, or None for every axis); "
                  "keepdim keeps reduced dimensions as size 1.")


def _infer_argmax(call: OpCall) -> PlType:
    t = _tensor(call, "x")
    axis = call["axis"]
    assert isinstance(axis, int) and t.rank is not None
    return _reduced_type(call, t, [_axis(call, "axis", axis, t.rank)], INT64)


def _emit_argmax(call: OpCall, t: PlType) -> Value:
    ctx, x, axis = call.ctx, call["x"], call["axis"]
    assert isinstance(x, TypedValue) and isinstance(x.type, TensorType)
    assert isinstance(axis, int) and x.type.rank
    return dsl.ArgmaxOp(ctx.mlir_type(t), x.value, axis % x.type.rank,
                        keepdim=True if call["keepdim"] else None, loc=ctx.loc, ip=ctx.ip).result


def _spell_argmax(s: Spelling) -> str:
    attrs = s.op.attributes  # type: ignore[attr-defined]
    keep = ", keepdim=True" if "keepdim" in attrs else ""
    return f"pl.argmax({s.operand(0)}, {ir.IntegerAttr(attrs['axis']).value}{keep})"


#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    _reduction("sum", dsl.SumOp, "sum"),
    _reduction("max", dsl.MaxOp, "maximum"),
    _reduction("min", dsl.MinOp, "minimum"),
    _reduction("mean", dsl.MeanOp, "mean (floats only)", floats=True),
    OpRule("argmax", "dsl.argmax",
           (Param("x", Arg.TENSOR), Param("axis", Arg.INT), Param("keepdim", Arg.FLAG, False)),
           _infer_argmax, _emit_argmax, _spell_argmax,
           "The INT64 index of the first maximum along axis."),
)
