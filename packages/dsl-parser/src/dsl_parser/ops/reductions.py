"""Reductions: ``pl.sum``/``max``/``min``/``mean`` and ``pl.argmax``
(lowered by ``lib/Conversion/DslToLinalg/ReductionOps.cpp``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._mlir import LateOp, Value, dsl, ir
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
    _ref_axes,
    _sign,
    _tensor,
)
from .numerics import int_range, np, scalar, store
from .rule import Arg, OpCall, OpRule, Param, RefCall, Spelling, with_references


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
                        keepdim=True if call["keepdim"] else None, **_sign(x.type.dtype),
                        loc=ctx.loc, ip=ctx.ip).result

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
                        keepdim=True if call["keepdim"] else None, **_sign(x.type.dtype),
                        loc=ctx.loc, ip=ctx.ip).result


def _spell_argmax(s: Spelling) -> str:
    attrs = s.op.attributes  # type: ignore[attr-defined]
    keep = ", keepdim=True" if "keepdim" in attrs else ""
    return f"pl.argmax({s.operand(0)}, {ir.IntegerAttr(attrs['axis']).value}{keep})"


# -- reference rules (numpy) ------------------------------------------------------------------
def _sum_ref(call: RefCall, t: PlType) -> Any:
    x = call["x"]
    return np().sum(x, axis=_ref_axes(call, x.ndim), keepdims=call["keepdim"], dtype=x.dtype)


def _mean_ref(call: RefCall, t: PlType) -> Any:
    """The sum (in the dtype) divided by the count (converted to the dtype)."""
    x = call["x"]
    axes = _ref_axes(call, x.ndim)
    total = store(np().sum(x, axis=axes, keepdims=call["keepdim"], dtype=x.dtype), t.dtype)
    count = 1
    for a in axes:
        count *= x.shape[a]
    return total / scalar(float(count), t.dtype)


def _extreme_ref(largest: bool) -> Callable[[RefCall, PlType], Any]:
    """max/min (NaN-propagating); an empty axis gives the identity (-inf, +inf, the
    dtype's lowest or highest integer)."""
    def reference(call: RefCall, t: PlType) -> Any:
        x = call["x"]
        dtype = call.types["x"].dtype
        if dtype.is_float:
            initial: object = -np().inf if largest else np().inf
        else:
            low, high = int_range(dtype)
            initial = low if largest else high
        fn = np().max if largest else np().min
        return fn(x, axis=_ref_axes(call, x.ndim), keepdims=call["keepdim"],
                  initial=np().asarray(initial).astype(x.dtype))
    return reference


def _argmax_ref(call: RefCall, t: PlType) -> Any:
    """numpy.argmax (the first maximum; the first NaN wins); 0 along an empty axis."""
    x = call["x"]
    axis = call["axis"] % x.ndim
    if x.shape[axis] == 0:
        shape = list(x.shape)
        shape[axis] = 1
        out = np().zeros(shape, np().int64)
        return out if call["keepdim"] else out.squeeze(axis)
    return np().argmax(x, axis=axis, keepdims=call["keepdim"])


#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    _reduction("sum", LateOp(dsl, "SumOp"), "sum"),
    _reduction("max", LateOp(dsl, "MaxOp"), "maximum"),
    _reduction("min", LateOp(dsl, "MinOp"), "minimum"),
    _reduction("mean", LateOp(dsl, "MeanOp"), "mean (floats only)", floats=True),
    OpRule("argmax", "dsl.argmax",
           (Param("x", Arg.TENSOR), Param("axis", Arg.INT), Param("keepdim", Arg.FLAG, False)),
           _infer_argmax, _emit_argmax, _spell_argmax,
           "The INT64 index of the first maximum along axis."),
)
RULES = with_references(RULES, {"sum": _sum_ref, "max": _extreme_ref(True),
                                "min": _extreme_ref(False), "mean": _mean_ref,
                                "argmax": _argmax_ref})
