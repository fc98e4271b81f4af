"""``pl.matmul`` (lowered by ``lib/Conversion/DslToLinalg/TensorOps.cpp``)."""

from __future__ import annotations

from typing import Any

from .._mlir import Value, dsl
from ..types import (
    Dim,
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


def _matrix_dims(t: TensorType, transposed: bool) -> tuple[Dim, Dim]:
    """(rows, columns) of the matrices of ``t`` (its last two dimensions), transposed."""
    assert t.shape is not None
    rows, cols = t.shape[-2], t.shape[-1]
    return (cols, rows) if transposed else (rows, cols)


def _batch(call: OpCall, a: TensorType, b: TensorType) -> Dim | None:
    """The result's batch size (None: a 2-D product): a 2-D operand or a static batch of
    1 is used for every matrix of the other (numpy's broadcasting); otherwise the batch
    sizes must match."""
    assert a.shape is not None and b.shape is not None
    if a.rank == 2 and b.rank == 2:
        return None
    ba: Dim = a.shape[0] if a.rank == 3 else 1
    bb: Dim = b.shape[0] if b.rank == 3 else 1
    if ba == 1:
        return bb
    if bb == 1 or dims_match(ba, bb):
        return ba
    call.fail("rhs", f"batch sizes differ: lhs {a} and rhs {b} (only a static 1 or a 2-D "
                     "operand broadcasts)")


def _infer_matmul(call: OpCall) -> PlType:
    a, b = _tensor(call, "lhs"), _tensor(call, "rhs")
    for name, t in (("lhs", a), ("rhs", b)):
        if t.rank not in (2, 3):
            call.fail(name, f"operands must be 2-D matrices or 3-D batches of matrices, got {t}")
    if a.dtype != b.dtype:
        call.fail("rhs", f"operands have different dtypes: {a} and {b}")
    m, ka = _matrix_dims(a, bool(call["a_trans"]))
    kb, n = _matrix_dims(b, bool(call["b_trans"]))
    if not dims_match(ka, kb):
        call.fail("rhs", f"contracting dimensions differ: lhs {a} gives K={ka!r}, "
                         f"rhs {b} gives K={kb!r}")
    out = call["out_dtype"] or a.dtype
    assert isinstance(out, DType)
    if out.is_float != a.dtype.is_float or out.bits < a.dtype.bits:
        call.fail("out_dtype", f"out_dtype {out!r} must be of the same kind as {a.dtype!r} "
                               "and at least as wide")
    batch = _batch(call, a, b)
    return TensorType((m, n) if batch is None else (batch, m, n), out)


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
           "Matrix product (2-D, or batched over a leading dimension of 3-D operands, "
           "broadcasting a 2-D operand or a batch of 1), optionally transposing either "
           "operand's matrices; out_dtype widens the result."),
)


def _ref_check_sizes(call: RefCall) -> None:
    """ValueError where run-time sizes cannot be multiplied (as the compiled code's checks
    of ``pl.dynamic`` sizes): different contracting sizes, or batch sizes that differ where
    neither is a static 1 (a dynamic batch of 1 does not broadcast)."""
    a, b = call["lhs"], call["rhs"]
    ka = a.shape[-2] if call["a_trans"] else a.shape[-1]
    kb = b.shape[-1] if call["b_trans"] else b.shape[-2]
    if ka != kb:
        call.fail(f"contracting dimensions differ: lhs has K={ka}, rhs has K={kb}", ValueError)
    if a.ndim == 3 and b.ndim == 3:
        static_one = [isinstance(t := call.declared.get(name, call.types[name]), TensorType)
                      and t.shape is not None and t.shape[0] == 1 for name in ("lhs", "rhs")]
        if a.shape[0] != b.shape[0] and not any(static_one):
            call.fail(f"batch sizes differ: lhs has {a.shape[0]} matrices, rhs has {b.shape[0]} "
                      "(only a static 1 broadcasts)", ValueError)


def _matmul_ref(call: RefCall, t: PlType) -> Any:
    """Operands converted to the result dtype (``out_dtype``), then multiplied and
    accumulated in it (integers wrap; 16-bit floats round after every step, k in order).
    3-D operands are batches of matrices (numpy's ``matmul`` broadcasting)."""
    _ref_check_sizes(call)
    a, b = call["lhs"], call["rhs"]
    a = a.swapaxes(-1, -2) if call["a_trans"] else a
    b = b.swapaxes(-1, -2) if call["b_trans"] else b
    src = call.types["lhs"].dtype
    where = f"pl.matmul at {call.where}"
    a, b = convert(a, src, t.dtype, where), convert(b, src, t.dtype, where)
    if t.dtype.is_integer:
        n = np()
        with n.errstate(all="ignore"):  # numpy's integer matmul wraps like the compiled code
            return n.matmul(a, b)
    if t.dtype.bits == 16:  # FP16/BF16 accumulate with a rounding after every step, in order
        batch = np().broadcast_shapes(a.shape[:-2], b.shape[:-2])
        shape = (*batch, a.shape[-2], b.shape[-1])
        acc = store(np().zeros(shape, a.dtype), t.dtype)
        for k in range(a.shape[-1]):
            acc = store(acc + store(a[..., :, k:k + 1] * b[..., k:k + 1, :], t.dtype), t.dtype)
        return acc
    return np().matmul(a, b)


RULES = with_references(RULES, {"matmul": _matmul_ref})
