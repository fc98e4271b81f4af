"""Scalar-valued ops: ``pl.dim`` and ``pl.const``."""

from __future__ import annotations

from typing import Any

from .._mlir import Value, tensor
from ..types import (
    INDEX,
    DType,
    PlType,
    ScalarType,
    TensorType,
)
from ..values import TypedValue, is_literal
from .common import (
    _operand_type,
    _tensor,
)
from .numerics import scalar
from .rule import Arg, OpCall, OpRule, Param, RefCall, Spelling, with_references


def _fold_dim(call: OpCall) -> object:
    t, axis = _tensor(call, "x"), call["axis"]
    assert isinstance(axis, int) and t.shape is not None
    if not -len(t.shape) <= axis < len(t.shape):
        call.fail("axis", f"axis {axis} is out of range for {t}")
    dim = t.shape[axis]
    return dim if isinstance(dim, int) or dim.name is not None else None


def _emit_dim(call: OpCall, t: PlType) -> Value:
    ctx, x, axis = call.ctx, call["x"], call["axis"]
    assert isinstance(x, TypedValue) and isinstance(axis, int) and isinstance(x.type, TensorType)
    index = ctx.materialize(axis % len(x.type.shape or ()), call.nodes["axis"], INDEX)
    return tensor.DimOp(x.value, index.value, loc=ctx.loc, ip=ctx.ip).result


def _infer_const(call: OpCall) -> PlType:
    value, dtype = call["value"], call["dtype"]
    assert isinstance(dtype, DType)
    if not is_literal(value):
        call.fail("value", f"the value must be a number literal, got {value!r}")
    _operand_type(call, "value", dtype)
    return ScalarType(dtype)


def _emit_const(call: OpCall, t: PlType) -> Value:
    return call.ctx.materialize(call["value"], call.nodes["value"], t.dtype).value


def _spell_const(s: Spelling) -> str:  # the printer prints constants itself (see printer.exprs)
    return s.operand(0)


#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    OpRule("dim", "tensor.dim", (Param("x", Arg.TENSOR), Param("axis", Arg.INT)),
           lambda call: ScalarType(INDEX), _emit_dim,
           lambda s: f"pl.dim({s.operand(0)}, {s.operand(1)})",
           "The size of one dimension (an int when static).", fold=_fold_dim),
    OpRule("const", "arith.constant", (Param("value", Arg.VALUE), Param("dtype", Arg.DTYPE)),
           _infer_const, _emit_const, _spell_const,
           "A typed scalar constant: pl.const(42, pl.INT64)."),
)


def _dim_ref(call: RefCall, t: PlType) -> Any:
    x = call["x"]
    return x.shape[call["axis"] % x.ndim]


def _const_ref(call: RefCall, t: PlType) -> Any:
    return scalar(call["value"], t.dtype)


RULES = with_references(RULES, {"dim": _dim_ref, "const": _const_ref})
