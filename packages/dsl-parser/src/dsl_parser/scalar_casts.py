"""``pl.cast`` of a scalar: the arith ops that convert one dtype into another.

The rules are dsl.cast's (see docs/parser.md "Casts"), on one value: integers
extend by their source's signedness (``extui`` for UINTn and BOOL, ``extsi``
otherwise) and truncate when narrowing; INDEX is a signed 64-bit integer, converted
through INT64 (``index_cast`` between equal widths only: MLIR folds
``index_cast(index_cast(x))`` to ``x`` even across a truncation); integer <-> float by
value (``uitofp``/``fptoui`` for unsigned); anything -> BOOL is ``!= 0``;
FP16 <-> BF16 goes through FP32. The printer spells every op listed in
``PRINT_CASTS`` back as ``pl.cast(x, target_type=...)``.
"""

from __future__ import annotations

from typing import Any

from ._mlir import Value, arith
from .types import BOOL, FP32, INT64, UINT64, DType

#: The arith ops a scalar pl.cast emits (the printer spells them as pl.cast).
PRINT_CASTS = frozenset({
    "arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast",
    "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf",
    "arith.truncf",
})


def _unsigned(dtype: DType) -> bool:
    return dtype.kind in ("uint", "bool")


def convert(value: Value, src: DType, dst: DType, *, loc: Any, ip: Any) -> Value:
    """``value`` (a scalar of ``src``) as a scalar of ``dst``."""
    if src == dst or (src.to_mlir() == dst.to_mlir() and dst != BOOL):
        return value  # the same bits (INT8 <-> UINT8)
    if dst == BOOL:
        return _nonzero(value, src, loc=loc, ip=ip)
    if src.kind == "index":  # through INT64: index_cast never changes the width
        value = arith.IndexCastOp(INT64.to_mlir(), value, loc=loc, ip=ip).result
        return convert(value, INT64, dst, loc=loc, ip=ip)
    if dst.kind == "index":
        if not (src.bits == 64 and src.is_integer):
            value = convert(value, src, INT64 if src.is_signed else UINT64, loc=loc, ip=ip)
        return arith.IndexCastOp(dst.to_mlir(), value, loc=loc, ip=ip).result
    return _numeric(value, src, dst, loc=loc, ip=ip)


def _numeric(value: Value, src: DType, dst: DType, *, loc: Any, ip: Any) -> Value:
    """Between integer (not INDEX) and float dtypes."""
    t = dst.to_mlir()
    if src.is_float and dst.is_float:
        if src.bits == dst.bits:  # FP16 <-> BF16
            value = arith.ExtFOp(FP32.to_mlir(), value, loc=loc, ip=ip).result
            src = FP32
        op = arith.ExtFOp if src.bits < dst.bits else arith.TruncFOp
        return op(t, value, loc=loc, ip=ip).result
    if dst.is_float:
        op = arith.UIToFPOp if _unsigned(src) else arith.SIToFPOp
        return op(t, value, loc=loc, ip=ip).result
    if src.is_float:
        op = arith.FPToUIOp if dst.kind == "uint" else arith.FPToSIOp
        return op(t, value, loc=loc, ip=ip).result
    if src.bits < dst.bits:
        op = arith.ExtUIOp if _unsigned(src) else arith.ExtSIOp
        return op(t, value, loc=loc, ip=ip).result
    return arith.TruncIOp(t, value, loc=loc, ip=ip).result


def _nonzero(value: Value, src: DType, *, loc: Any, ip: Any) -> Value:
    """``value != 0`` (``!= 0.0``, true for NaN, on floats)."""
    zero = arith.ConstantOp(src.to_mlir(), 0.0 if src.is_float else 0, loc=loc, ip=ip).result
    if src.is_float:
        return arith.CmpFOp(arith.CmpFPredicate.UNE, value, zero, loc=loc, ip=ip).result
    return arith.CmpIOp(arith.CmpIPredicate.ne, value, zero, loc=loc, ip=ip).result


__all__ = ["PRINT_CASTS", "convert"]
