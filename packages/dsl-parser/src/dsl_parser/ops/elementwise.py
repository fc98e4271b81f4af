"""Elementwise ops: binary arithmetic, unary math, comparisons, ``pl.select``, ``pl.cast``
(lowered by ``lib/Conversion/DslToLinalg/ElementwiseOps.cpp``)."""

from __future__ import annotations

from collections.abc import Callable

from .._mlir import Value, dsl, ir
from ..types import (
    BOOL,
    DType,
    PlType,
    TensorType,
)
from ..values import TypedValue
from .common import (
    _common_shape,
    _element_dtype,
    _emit_unary,
    _floats_only,
    _infer_elementwise,
    _operand_value,
    _tensor,
)
from .rule import Arg, OpCall, OpRule, Param, Spelling


def _infer_binary(call: OpCall) -> PlType:
    return _infer_elementwise(call, ("lhs", "rhs"))


def _binary(name: str, op_class: Callable[..., object], what: str,
            floats: bool = False) -> OpRule:
    def infer(call: OpCall) -> PlType:
        t = _infer_elementwise(call, ("lhs", "rhs"))
        if floats:
            _floats_only(call, t)
        return t

    def emit(call: OpCall, t: PlType) -> Value:
        assert isinstance(t, TensorType)
        lhs = _operand_value(call, "lhs", t.dtype)
        rhs = _operand_value(call, "rhs", t.dtype)
        ctx = call.ctx
        return op_class(ctx.mlir_type(t), lhs, rhs, loc=ctx.loc, ip=ctx.ip).result  # type: ignore[attr-defined]

    def spell(s: Spelling) -> str:
        dtype = s.result_type().dtype
        return f"pl.{name}({s.operand(0, dtype)}, {s.operand(1, dtype)})"

    return OpRule(
        name, f"dsl.{name}", (Param("lhs", Arg.OPERAND), Param("rhs", Arg.OPERAND)),
        infer, emit, spell,
        f"Elementwise {what}; operands broadcast as in numpy, either may be a scalar.")


def _unary(name: str, op_class: Callable[..., object], what: str, floats: bool) -> OpRule:
    def infer(call: OpCall) -> PlType:
        t = _tensor(call, "x")
        if floats:
            _floats_only(call, t)
        return t

    return OpRule(name, f"dsl.{name}", (Param("x", Arg.TENSOR),), infer, _emit_unary(op_class),
                  lambda s: f"pl.{name}({s.operand(0)})", f"Elementwise {what}.")


PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


def _compare(name: str) -> OpRule:
    def infer(call: OpCall) -> PlType:
        return _infer_elementwise(call, ("lhs", "rhs"), BOOL)

    def emit(call: OpCall, t: PlType) -> Value:
        ctx = call.ctx
        dtype = _element_dtype(call, ("lhs", "rhs"))
        lhs, rhs = _operand_value(call, "lhs", dtype), _operand_value(call, "rhs", dtype)
        predicate = getattr(dsl.CmpPredicate, name)
        return dsl.CmpOp(ctx.mlir_type(t), predicate, lhs, rhs, loc=ctx.loc, ip=ctx.ip).result

    return OpRule(name, "dsl.cmp" if name == "eq" else None,
                  (Param("lhs", Arg.OPERAND), Param("rhs", Arg.OPERAND)), infer, emit,
                  _spell_cmp, f"Elementwise comparison '{name}' (a BOOL tensor); operands "
                  "broadcast, either may be a scalar. Tensor operators (x < y) map here.")


def _spell_cmp(s: Spelling) -> str:
    attrs = s.op.attributes  # type: ignore[attr-defined]
    name = PREDICATES[ir.IntegerAttr(attrs["predicate"]).value]
    dtype = s.operand_type(0).dtype
    return f"pl.{name}({s.operand(0, dtype)}, {s.operand(1, dtype)})"


def _infer_select(call: OpCall) -> PlType:
    if not any(isinstance(v := call[n], TypedValue) and v.is_tensor for n in ("cond", "a", "b")):
        call.fail(None, "at least one operand must be a tensor")
    cond = call["cond"]
    if isinstance(cond, TypedValue):
        if cond.dtype != BOOL:
            call.fail("cond", f"the condition must be BOOL, got {cond.type}")
    elif not isinstance(cond, bool):
        call.fail("cond", f"the condition must be BOOL, got {cond!r}")
    dtype = _element_dtype(call, ("a", "b"))
    return TensorType(_common_shape(call, ("cond", "a", "b")), dtype)


def _emit_select(call: OpCall, t: PlType) -> Value:
    assert isinstance(t, TensorType)
    ctx = call.ctx
    cond = _operand_value(call, "cond", BOOL)
    a, b = _operand_value(call, "a", t.dtype), _operand_value(call, "b", t.dtype)
    return dsl.SelectOp(ctx.mlir_type(t), cond, a, b, loc=ctx.loc, ip=ctx.ip).result


def _spell_select(s: Spelling) -> str:
    dtype = s.result_type().dtype
    return f"pl.select({s.operand(0, BOOL)}, {s.operand(1, dtype)}, {s.operand(2, dtype)})"


def _infer_cast(call: OpCall) -> PlType:
    target = call["target_type"]
    assert isinstance(target, DType)
    if target.kind == "index":
        call.fail("target_type", "tensors of INDEX are not supported")
    return TensorType(_tensor(call, "x").shape, target)


#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    _binary("add", dsl.AddOp, "addition"),
    _binary("sub", dsl.SubOp, "subtraction"),
    _binary("mul", dsl.MulOp, "multiplication"),
    _binary("div", dsl.DivOp, "division"),
    _binary("maximum", dsl.MaximumOp, "maximum (NaN-propagating)"),
    _binary("minimum", dsl.MinimumOp, "minimum (NaN-propagating)"),
    _binary("pow", dsl.PowOp, "power lhs ** rhs, floats only", floats=True),
    _unary("exp", dsl.ExpOp, "e ** x, floats only", True),
    _unary("log", dsl.LogOp, "natural logarithm, floats only", True),
    _unary("sqrt", dsl.SqrtOp, "square root, floats only", True),
    _unary("rsqrt", dsl.RsqrtOp, "1 / sqrt(x), floats only", True),
    _unary("tanh", dsl.TanhOp, "hyperbolic tangent, floats only", True),
    _unary("abs", dsl.AbsOp, "absolute value", False),
    _unary("neg", dsl.NegOp, "negation", False),
    _unary("relu", dsl.ReluOp, "maximum(x, 0)", False),
    *(_compare(name) for name in PREDICATES),
    OpRule("select", "dsl.select",
           (Param("cond", Arg.OPERAND), Param("a", Arg.OPERAND), Param("b", Arg.OPERAND)),
           _infer_select, _emit_select, _spell_select,
           "numpy.where: a where the BOOL cond holds, else b; all three broadcast."),
    OpRule("cast", "dsl.cast", (Param("x", Arg.TENSOR), Param("target_type", Arg.DTYPE)),
           _infer_cast, _emit_unary(dsl.CastOp),
           lambda s: f"pl.cast({s.operand(0)}, target_type={s.result_type().dtype!r})",
           "Elementwise conversion to another dtype."),
)
