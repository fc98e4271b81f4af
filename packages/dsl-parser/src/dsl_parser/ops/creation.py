"""Tensor creation: ``pl.create_tensor``, ``pl.full``, ``pl.zeros``, ``pl.ones``, ``pl.arange``
(lowered by ``lib/Conversion/DslToLinalg/TensorOps.cpp``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._mlir import Value, dsl
from ..types import (
    FP32,
    INT64,
    Dim,
    DType,
    Dynamic,
    PlType,
    TensorType,
)
from ..values import TypedValue, literal_dtype
from .common import (
    _operand_type,
    _shape_type,
)
from .numerics import np, scalar, store
from .rule import Arg, OpCall, OpRule, Param, RefCall, Spelling, with_references


def _infer_create(call: OpCall) -> PlType:
    dtype = call["dtype"]
    assert isinstance(dtype, DType)
    return _shape_type(call, dtype)


def _emit_create(call: OpCall, t: PlType) -> Value:
    ctx, shape = call.ctx, call["shape"]
    assert isinstance(t, TensorType) and isinstance(shape, tuple)
    sizes = ctx.dynamic_sizes(t, shape, call.nodes["shape"])
    return dsl.CreateTensorOp(ctx.mlir_type(t), sizes, loc=ctx.loc, ip=ctx.ip).result


def _infer_full(call: OpCall) -> PlType:
    value, dtype = call["value"], call["dtype"]
    if dtype is None:
        dtype = value.dtype if isinstance(value, TypedValue) else literal_dtype(value)
    assert isinstance(dtype, DType)
    _operand_type(call, "value", dtype)
    return _shape_type(call, dtype)


def _emit_full(call: OpCall, t: PlType) -> Value:
    ctx, shape = call.ctx, call["shape"]
    assert isinstance(t, TensorType) and isinstance(shape, tuple)
    scalar = ctx.materialize(call["value"], call.nodes["value"], t.dtype)
    sizes = ctx.dynamic_sizes(t, shape, call.nodes["shape"])
    return dsl.FullOp(ctx.mlir_type(t), scalar.value, sizes, loc=ctx.loc, ip=ctx.ip).result


def _spell_create(s: Spelling) -> str:
    t = s.result_type()
    return f"pl.create_tensor({s.shape(t, 0)}, dtype={t.dtype!r})"


def _spell_full(s: Spelling) -> str:
    t = s.result_type()
    return f"pl.full({s.shape(t, 1)}, {s.operand(0, t.dtype)}, dtype={t.dtype!r})"


def _filled(name: str, fill: int) -> OpRule:
    def infer(call: OpCall) -> PlType:
        dtype = call["dtype"]
        assert isinstance(dtype, DType)
        return _shape_type(call, dtype)

    def emit(call: OpCall, t: PlType) -> Value:
        ctx, shape = call.ctx, call["shape"]
        assert isinstance(t, TensorType) and isinstance(shape, tuple)
        value: object = fill if t.dtype.is_integer else float(fill)
        scalar = ctx.materialize(value, call.node, t.dtype)
        sizes = ctx.dynamic_sizes(t, shape, call.nodes["shape"])
        return dsl.FullOp(ctx.mlir_type(t), scalar.value, sizes, loc=ctx.loc, ip=ctx.ip).result

    return OpRule(name, None, (Param("shape", Arg.SHAPE), Param("dtype", Arg.DTYPE, FP32)),
                  infer, emit, _spell_full,
                  f"A new tensor of {name} (pl.full of {fill}; dtype defaults to pl.FP32).")


def _infer_arange(call: OpCall) -> PlType:
    dtype = call["dtype"]
    if dtype is None:
        typed = [v for n in ("start", "step") if isinstance(v := call[n], TypedValue)]
        if typed:
            dtype = typed[0].dtype
        else:
            floats = any(isinstance(call[n], float) for n in ("start", "step"))
            dtype = FP32 if floats else INT64
    assert isinstance(dtype, DType)
    if dtype.kind in ("index", "bool"):
        call.fail("dtype", f"pl.arange makes numbers, not {dtype!r}")
    for name in ("start", "step"):
        _operand_type(call, name, dtype)
    n = call["n"]
    if isinstance(n, int) and n < 0:
        call.fail("n", f"the length must not be negative, got {n}")
    dim: Dim = n if isinstance(n, int | Dynamic) else Dynamic(None)
    return TensorType((dim,), dtype)


def _emit_arange(call: OpCall, t: PlType) -> Value:
    assert isinstance(t, TensorType)
    ctx = call.ctx
    start = ctx.materialize(call["start"], call.nodes.get("start", call.node), t.dtype).value
    step = ctx.materialize(call["step"], call.nodes.get("step", call.node), t.dtype).value
    sizes = ctx.dynamic_sizes(t, [call["n"]], call.nodes["n"])
    return dsl.ArangeOp(ctx.mlir_type(t), start, step, sizes, loc=ctx.loc, ip=ctx.ip).result


def _spell_arange(s: Spelling) -> str:
    t = s.result_type()
    assert isinstance(t, TensorType) and t.shape is not None
    n = s.operand(2) if isinstance(t.shape[0], Dynamic) else repr(t.shape[0])
    return (f"pl.arange({n}, start={s.operand(0, t.dtype)}, step={s.operand(1, t.dtype)}, "
            f"dtype={t.dtype!r})")


# -- reference rules (numpy) ------------------------------------------------------------------
def _sizes(call: RefCall) -> tuple[int, ...]:
    return tuple(int(d) for d in call["shape"])


def _full_ref(fill: object) -> Callable[[RefCall, PlType], Any]:
    def reference(call: RefCall, t: PlType) -> Any:
        value = call["value"] if fill is None else fill
        return np().full(_sizes(call), scalar(value, t.dtype))
    return reference


def _arange_ref(call: RefCall, t: PlType) -> Any:
    """``start + i * step`` computed in the dtype (``i`` converted to it first)."""
    dtype = t.dtype
    start, step = scalar(call["start"], dtype), scalar(call["step"], dtype)
    i = store(np().arange(int(call["n"]), dtype=np().int64), dtype)
    return store(i * step, dtype) + start


#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    _filled("zeros", 0),
    _filled("ones", 1),
    OpRule("arange", "dsl.arange",
           (Param("n", Arg.SIZE), Param("start", Arg.VALUE, 0), Param("step", Arg.VALUE, 1),
            Param("dtype", Arg.DTYPE, None)),
           _infer_arange, _emit_arange, _spell_arange,
           "[start, start + step, ...] of length n (dtype: from start/step, else INT64)."),
    OpRule("create_tensor", "dsl.create_tensor",
           (Param("shape", Arg.SHAPE), Param("dtype", Arg.DTYPE)),
           _infer_create, _emit_create, _spell_create,
           "A new tensor with undefined contents."),
    OpRule("full", "dsl.full",
           (Param("shape", Arg.SHAPE), Param("value", Arg.VALUE), Param("dtype", Arg.DTYPE, None)),
           _infer_full, _emit_full, _spell_full, "A new tensor with every element equal to value."),
)
RULES = with_references(RULES, {
    "zeros": _full_ref(0), "ones": _full_ref(1), "arange": _arange_ref,
    # undefined contents: the interpreter gives zeros
    "create_tensor": _full_ref(0), "full": _full_ref(None)})
