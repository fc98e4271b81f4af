"""Scalar-valued ops: ``pl.dim``, ``pl.const`` and the scalar-only math ``pl.sin``,
``pl.cos``, ``pl.floor``, ``pl.ceil`` and ``pl.fma`` (the ``math`` dialect; see
``scalar_math``)."""

from __future__ import annotations

import math
from typing import Any

from .. import scalar_math
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
from .numerics import np, scalar
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


def _float_scalars(call: OpCall, names: tuple[str, ...]) -> PlType:
    """The common type of float scalar values ``names`` (ParserTypeError otherwise)."""
    first: PlType | None = None
    for name in names:
        v = call[name]
        if not isinstance(v, TypedValue) or v.is_tensor or not v.dtype.is_float:
            got = v.type if isinstance(v, TypedValue) else repr(v)
            call.fail(name, f"takes float scalar values, got {got}")
        if first is not None and v.type != first:
            call.fail(name, f"operands have different types: {first} and {v.type}")
        first = v.type
    assert first is not None
    return first


def _math(name: str, params: tuple[str, ...], doc: str) -> OpRule:
    def emit(call: OpCall, t: PlType) -> Value:
        ctx = call.ctx
        values = [v.value for v in (call[p] for p in params) if isinstance(v, TypedValue)]
        return scalar_math.emit_wide(name, values, t.dtype, ctx.loc, ctx.ip)

    def spell(s: Spelling) -> str:
        return f"pl.{name}({', '.join(s.operand(i) for i in range(len(params)))})"

    return OpRule(name, f"math.{name}", tuple(Param(p, Arg.TENSOR_OR_SCALAR) for p in params),
                  lambda call: _float_scalars(call, params), emit, spell, doc)


#: Scalar-only math: usable in kernels (``op_parser.SCALAR_OPS``).
MATH = ("sin", "cos", "floor", "ceil", "fma")

#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    OpRule("dim", "tensor.dim", (Param("x", Arg.TENSOR), Param("axis", Arg.INT)),
           lambda call: ScalarType(INDEX), _emit_dim,
           lambda s: f"pl.dim({s.operand(0)}, {s.operand(1)})",
           "The size of one dimension (an int when static).", fold=_fold_dim),
    OpRule("const", "arith.constant", (Param("value", Arg.VALUE), Param("dtype", Arg.DTYPE)),
           _infer_const, _emit_const, _spell_const,
           "A typed scalar constant: pl.const(42, pl.INT64)."),
    _math("sin", ("x",), "Sine of a float scalar value (radians)."),
    _math("cos", ("x",), "Cosine of a float scalar value (radians)."),
    _math("floor", ("x",), "The largest integral value <= x, of a float scalar value."),
    _math("ceil", ("x",), "The smallest integral value >= x, of a float scalar value."),
    _math("fma", ("a", "b", "c"), "a * b + c of float scalar values, rounded once."),
)


def _dim_ref(call: RefCall, t: PlType) -> Any:
    x = call["x"]
    return x.shape[call["axis"] % x.ndim]


def _const_ref(call: RefCall, t: PlType) -> Any:
    return scalar(call["value"], t.dtype)


def _fma_once(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once to the type of ``a`` (numpy float32 or float64 scalars),
    ties to even; non-finite operands as numpy computes them."""
    from fractions import Fraction

    kind = type(a)
    if not all(map(math.isfinite, (float(a), float(b), float(c)))):
        return kind(a * b + c)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:
        return kind(a * b + c)  # the product is exact then: IEEE's sign of zero
    try:
        near = kind(float(exact))  # within one unit of the last place of the answer
    except OverflowError:
        return kind(a * b + c)
    candidates = [near, np().nextafter(near, kind(math.inf)), np().nextafter(near, kind(-math.inf))]
    finite = [x for x in candidates if math.isfinite(float(x))]
    if not finite:
        return near

    def distance(x: Any) -> tuple[Fraction, int]:
        bits = int(np().asarray(x).view(np().uint64 if kind is np().float64 else np().uint32))
        return abs(Fraction(float(x)) - exact), bits & 1  # ties: the even one

    return min(finite, key=distance)


def _math_refs() -> dict[str, Any]:
    n = np

    def unary(fn: Any) -> Any:
        return lambda call, t: fn(n())(call["x"])

    def fma(call: RefCall, t: PlType) -> Any:
        # FP32/FP64: a * b + c rounded once (as math.fma compiles); FP16/BF16 are computed
        # in FP32 and rounded to their type, as the compiled code does
        a, b, c = (call[p] for p in ("a", "b", "c"))
        wide = n().float64 if t.dtype.bits == 64 else n().float32
        value = _fma_once(wide(a), wide(b), wide(c))
        return value if t.dtype.bits >= 32 else value.astype(n().dtype(a.dtype))

    return {"sin": unary(lambda m: m.sin), "cos": unary(lambda m: m.cos),
            "floor": unary(lambda m: m.floor), "ceil": unary(lambda m: m.ceil), "fma": fma}


RULES = with_references(RULES, {"dim": _dim_ref, "const": _const_ref, **_math_refs()})
