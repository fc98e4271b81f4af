"""Elementwise ops: binary arithmetic, unary math, comparisons, ``pl.select``, ``pl.cast``
(lowered by ``lib/Conversion/DslToLinalg/ElementwiseOps.cpp``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import scalar_casts, scalar_math
from .._mlir import LateOp, Value, arith, dsl, ir
from ..types import (
    BOOL,
    DType,
    PlType,
    ScalarType,
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
    _ref_check_dynamic_sizes,
    _ref_dtype,
    _ref_operand,
    _sign,
    _tensor,
)
from .numerics import convert, np, trunc_div
from .rule import Arg, OpCall, OpRule, Param, RefCall, Spelling, with_references


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
        return op_class(ctx.mlir_type(t), lhs, rhs, **_sign(t.dtype),  # type: ignore[attr-defined]
                        loc=ctx.loc, ip=ctx.ip).result

    def spell(s: Spelling) -> str:
        dtype = s.result_type().dtype
        return f"pl.{name}({s.operand(0, dtype)}, {s.operand(1, dtype)})"

    return OpRule(
        name, f"dsl.{name}", (Param("lhs", Arg.OPERAND), Param("rhs", Arg.OPERAND)),
        infer, emit, spell,
        f"Elementwise {what}; operands broadcast as in numpy, either may be a scalar.")


def _unary(name: str, op_class: Callable[..., object], what: str, floats: bool,
           scalars: bool = False) -> OpRule:
    """``pl.<name>(x)`` of a tensor (``dsl.<name>``), and with ``scalars`` of a scalar value
    too (the ``math`` dialect: ``scalar_math``; kernels use this form)."""
    tensor_emit = _emit_unary(op_class, lambda x, t: _sign(x.dtype))

    def infer(call: OpCall) -> PlType:
        x = call["x"]
        if isinstance(x, TypedValue) and not x.is_tensor:
            if not scalars:
                call.fail("x", f"must be a tensor, got {x.type}")
            if floats and not x.dtype.is_float:
                call.fail("x", f"takes a float scalar, got {x.type}")
            return x.type
        t = _tensor(call, "x")
        if floats:
            _floats_only(call, t)
        return t

    def emit(call: OpCall, t: PlType) -> Value:
        x = call["x"]
        assert isinstance(x, TypedValue)
        if x.is_tensor:
            return tensor_emit(call, t)
        return scalar_math.emit(name, x.value, x.dtype, call.ctx.loc, call.ctx.ip)

    kind = Arg.TENSOR_OR_SCALAR if scalars else Arg.TENSOR
    return OpRule(name, f"dsl.{name}", (Param("x", kind),), infer, emit,
                  lambda s: f"pl.{name}({s.operand(0)})",
                  f"Elementwise {what}" + ("; of a scalar value too." if scalars else "."))


PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


def _compare(name: str) -> OpRule:
    def infer(call: OpCall) -> PlType:
        return _infer_elementwise(call, ("lhs", "rhs"), BOOL)

    def emit(call: OpCall, t: PlType) -> Value:
        ctx = call.ctx
        dtype = _element_dtype(call, ("lhs", "rhs"))
        lhs, rhs = _operand_value(call, "lhs", dtype), _operand_value(call, "rhs", dtype)
        predicate = getattr(dsl.CmpPredicate, name)
        return dsl.CmpOp(ctx.mlir_type(t), predicate, lhs, rhs, **_sign(dtype),
                         loc=ctx.loc, ip=ctx.ip).result

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
    tensors = any(isinstance(v := call[n], TypedValue) and v.is_tensor for n in ("cond", "a", "b"))
    if not tensors and not any(isinstance(call[n], TypedValue) for n in ("a", "b")):
        call.fail(None, "at least one of a and b must be a tensor or a scalar value")
    cond = call["cond"]
    if isinstance(cond, TypedValue):
        if cond.dtype != BOOL:
            call.fail("cond", f"the condition must be BOOL, got {cond.type}")
    elif not isinstance(cond, bool):
        call.fail("cond", f"the condition must be BOOL, got {cond!r}")
    dtype = _element_dtype(call, ("a", "b"))
    if not tensors:  # scalars: arith.select (kernels use this form)
        return ScalarType(dtype)
    return TensorType(_common_shape(call, ("cond", "a", "b")), dtype)


def _emit_select(call: OpCall, t: PlType) -> Value:
    ctx = call.ctx
    cond = _operand_value(call, "cond", BOOL)
    a, b = _operand_value(call, "a", t.dtype), _operand_value(call, "b", t.dtype)
    if isinstance(t, ScalarType):
        return arith.SelectOp(cond, a, b, loc=ctx.loc, ip=ctx.ip).result
    return dsl.SelectOp(ctx.mlir_type(t), cond, a, b, loc=ctx.loc, ip=ctx.ip).result


def _spell_select(s: Spelling) -> str:
    dtype = s.result_type().dtype
    return f"pl.select({s.operand(0, BOOL)}, {s.operand(1, dtype)}, {s.operand(2, dtype)})"


def _infer_cast(call: OpCall) -> PlType:
    target, x = call["target_type"], call["x"]
    assert isinstance(target, DType)
    if not isinstance(x, TypedValue):  # a scalar cast converts a value; numbers use pl.const
        call.fail("x", f"expected a tensor or a scalar value, got {x!r} "
                       f"(use pl.const({x!r}, {target!r}) for a typed constant)")
    if not x.is_tensor:  # scalars, INDEX included: see scalar_casts
        return ScalarType(target)
    if target.kind == "index":
        call.fail("target_type", "tensors of INDEX are not supported")
    return TensorType(_tensor(call, "x").shape, target)


def _emit_cast(call: OpCall, t: PlType) -> Value:
    x = call["x"]
    assert isinstance(x, TypedValue)
    if x.is_tensor:
        return _emit_unary(dsl.CastOp, _cast_signs)(call, t)
    ctx = call.ctx
    return scalar_casts.convert(x.value, x.dtype, t.dtype, loc=ctx.loc, ip=ctx.ip)


def _cast_signs(x: TypedValue, t: PlType) -> dict[str, bool]:
    """dsl.cast's ``source_unsigned`` / ``result_unsigned`` for UINT source / result dtypes."""
    return {**_sign(x.dtype, "source_unsigned"), **_sign(t.dtype, "result_unsigned")}


# -- reference rules (numpy) ------------------------------------------------------------------
def _binary_ref(fn: Callable[[Any, Any, DType, str], Any]) -> Callable[[RefCall, PlType], Any]:
    def reference(call: RefCall, t: PlType) -> Any:
        _ref_check_dynamic_sizes(call, ("lhs", "rhs"), t)
        lhs = _ref_operand(call, "lhs", t.dtype)
        return fn(lhs, _ref_operand(call, "rhs", t.dtype), t.dtype, call.where)
    return reference


def _div(a: Any, b: Any, dtype: DType, where: str) -> Any:
    """Floats divide; integers round toward zero (``arith.divsi``/``divui``), unlike numpy."""
    return a / b if dtype.is_float else trunc_div(a, b, dtype, f"pl.div at {where}")


def _unary_ref(fn: Callable[[Any], Any]) -> Callable[[RefCall, PlType], Any]:
    return lambda call, t: fn(call["x"])


def _relu(x: Any) -> Any:
    return np().maximum(x, np().zeros((), x.dtype))


def _compare_ref(name: str) -> Callable[[RefCall, PlType], Any]:
    def reference(call: RefCall, t: PlType) -> Any:
        _ref_check_dynamic_sizes(call, ("lhs", "rhs"), t)
        dtype = _ref_dtype(call, ("lhs", "rhs"))
        lhs, rhs = _ref_operand(call, "lhs", dtype), _ref_operand(call, "rhs", dtype)
        return getattr(np(), _NUMPY_COMPARE[name])(lhs, rhs)
    return reference


_NUMPY_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                  "gt": "greater", "ge": "greater_equal"}


def _select_ref(call: RefCall, t: PlType) -> Any:
    _ref_check_dynamic_sizes(call, ("cond", "a", "b"), t)
    cond = _ref_operand(call, "cond", BOOL)
    return np().where(cond, _ref_operand(call, "a", t.dtype), _ref_operand(call, "b", t.dtype))


def _cast_ref(call: RefCall, t: PlType) -> Any:
    return convert(call["x"], call.types["x"].dtype, t.dtype, f"pl.cast at {call.where}")


def _references() -> dict[str, Callable[[RefCall, PlType], Any]]:
    n = np
    refs: dict[str, Callable[[RefCall, PlType], Any]] = {
        "add": _binary_ref(lambda a, b, d, w: a + b),
        "sub": _binary_ref(lambda a, b, d, w: a - b),
        "mul": _binary_ref(lambda a, b, d, w: a * b),
        "div": _binary_ref(_div),
        "maximum": _binary_ref(lambda a, b, d, w: n().maximum(a, b)),
        "minimum": _binary_ref(lambda a, b, d, w: n().minimum(a, b)),
        "pow": _binary_ref(lambda a, b, d, w: n().power(a, b)),
        "exp": _unary_ref(lambda x: n().exp(x)),
        "log": _unary_ref(lambda x: n().log(x)),
        "sqrt": _unary_ref(lambda x: n().sqrt(x)),
        "rsqrt": _unary_ref(lambda x: 1 / n().sqrt(x)),
        "tanh": _unary_ref(lambda x: n().tanh(x)),
        "abs": _unary_ref(lambda x: n().abs(x)),
        "neg": _unary_ref(lambda x: n().negative(x)),
        "relu": _unary_ref(_relu),
        "select": _select_ref,
        "cast": _cast_ref,
    }
    refs.update({name: _compare_ref(name) for name in PREDICATES})
    return refs


#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    _binary("add", LateOp(dsl, "AddOp"), "addition"),
    _binary("sub", LateOp(dsl, "SubOp"), "subtraction"),
    _binary("mul", LateOp(dsl, "MulOp"), "multiplication"),
    _binary("div", LateOp(dsl, "DivOp"), "division"),
    _binary("maximum", LateOp(dsl, "MaximumOp"), "maximum (NaN-propagating)"),
    _binary("minimum", LateOp(dsl, "MinimumOp"), "minimum (NaN-propagating)"),
    _binary("pow", LateOp(dsl, "PowOp"), "power lhs ** rhs, floats only", floats=True),
    _unary("exp", LateOp(dsl, "ExpOp"), "e ** x, floats only", True, scalars=True),
    _unary("log", LateOp(dsl, "LogOp"), "natural logarithm, floats only", True, scalars=True),
    _unary("sqrt", LateOp(dsl, "SqrtOp"), "square root, floats only", True, scalars=True),
    _unary("rsqrt", LateOp(dsl, "RsqrtOp"), "1 / sqrt(x), floats only", True, scalars=True),
    _unary("tanh", LateOp(dsl, "TanhOp"), "hyperbolic tangent, floats only", True, scalars=True),
    _unary("abs", LateOp(dsl, "AbsOp"), "absolute value", False, scalars=True),
    _unary("neg", LateOp(dsl, "NegOp"), "negation", False),
    _unary("relu", LateOp(dsl, "ReluOp"), "maximum(x, 0)", False),
    *(_compare(name) for name in PREDICATES),
    OpRule("select", "dsl.select",
           (Param("cond", Arg.OPERAND), Param("a", Arg.OPERAND), Param("b", Arg.OPERAND)),
           _infer_select, _emit_select, _spell_select,
           "numpy.where: a where the BOOL cond holds, else b; all three broadcast."),
    OpRule("cast", "dsl.cast", (Param("x", Arg.OPERAND), Param("target_type", Arg.DTYPE)),
           _infer_cast, _emit_cast,
           lambda s: f"pl.cast({s.operand(0)}, target_type={s.result_type().dtype!r})",
           "Conversion to another dtype: elementwise for a tensor; a scalar (INDEX "
           "included) becomes a scalar of target_type."),
)
RULES = with_references(RULES, _references())
