"""``pl.matmul`` (lowered by ``lib/Conversion/DslToLinalg/TensorOps.cpp``)."""

from __future__ import annotations

from typing import Any

from .._mlir import Value, dsl
from ..types import (
    DType,
    PlType,
    TensorType,
    dims_match,
)
from ..values import TypedValue
from .common import (
    _sign,
    _tensor,
)
from .numerics import convert, np, store
from .rule import Arg, OpCall, OpRule, Param, RefCall, Spelling, with_references


def _infer_matmul(call: OpCall) -> PlType:
    a, b = _tensor(call, "lhs"), _tensor(call, "rhs")
    for name, t in (("lhs", a), ("rhs", b)):
        if t.rank != 2:
            call.fail(name, f"operands must be 2-D, got {t}")
    if a.dtype != b.dtype:
        call.fail("rhs", f"operands have different dtypes: {a} and {b}")
    assert a.shape is not None and b.shape is not None
    m, ka = (a.shape[1], a.shape[0]) if call["a_trans"] else a.shape
    kb, n = (b.shape[1], b.shape[0]) if call["b_trans"] else b.shape
    if not dims_match(ka, kb):
        call.fail("rhs", f"contracting dimensions differ: lhs {a} gives K={ka!r}, "
                         f"rhs {b} gives K={kb!r}")
    out = call["out_dtype"] or a.dtype
    assert isinstance(out, DType)
    if out.is_float != a.dtype.is_float or out.bits < a.dtype.bits:
        call.fail("out_dtype", f"out_dtype {out!r} must be of the same kind as {a.dtype!r} "
                               "and at least as wide")
    return TensorType((m, n), out)


def _emit_matmul(call: OpCall, t: PlType) -> Value:
    ctx = call.ctx
    lhs, rhs = call["lhs"], call["rhs"]
    assert isinstance(lhs, TypedValue) and isinstance(rhs, TypedValue)
    return dsl.MatmulOp(ctx.mlir_type(t), lhs.value, rhs.value,
                        a_trans=True if call["a_trans"] else None,
                        b_trans=True if call["b_trans"] else None, **_sign(lhs.dtype),
                        loc=ctx.loc, ip=ctx.ip).result


def _spell_matmul(s: Spelling) -> str:
    parts = [s.operand(0), s.operand(1)]
    attrs = s.op.attributes  # type: ignore[attr-defined]
    parts += [f"{flag}=True" for flag in ("a_trans", "b_trans") if flag in attrs]
    out = s.result_type().dtype
    if out != s.operand_type(0).dtype:
        parts.append(f"out_dtype={out!r}")
    return f"pl.matmul({', '.join(parts)})"


#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    OpRule("matmul", "dsl.matmul",
           (Param("lhs", Arg.TENSOR), Param("rhs", Arg.TENSOR), Param("a_trans", Arg.FLAG, False),
            Param("b_trans", Arg.FLAG, False), Param("out_dtype", Arg.DTYPE, None)),
           _infer_matmul, _emit_matmul, _spell_matmul,
           "2-D matrix product, optionally transposing either operand; "
           "out_dtype widens the result."),
)


def _matmul_ref(call: RefCall, t: PlType) -> Any:
    """Operands converted to the result dtype (``out_dtype``), then multiplied and
    accumulated in it (integers wrap; 16-bit floats round after every step, k in order)."""
    a, b = call["lhs"], call["rhs"]
    a = a.T if call["a_trans"] else a
    b = b.T if call["b_trans"] else b
    src = call.types["lhs"].dtype
    where = f"pl.matmul at {call.where}"
    a, b = convert(a, src, t.dtype, where), convert(b, src, t.dtype, where)
    if t.dtype.is_integer:
        n = np()
        with n.errstate(all="ignore"):  # numpy's integer matmul wraps like the compiled code
            return n.matmul(a, b)
    if t.dtype.bits == 16:  # FP16/BF16 accumulate with a rounding after every step, in order
        acc = store(np().zeros((a.shape[0], b.shape[1]), a.dtype), t.dtype)
        for k in range(a.shape[1]):
            acc = store(acc + store(a[:, k:k + 1] * b[k:k + 1, :], t.dtype), t.dtype)
        return acc
    return np().matmul(a, b)


RULES = with_references(RULES, {"matmul": _matmul_ref})
