"""Math on scalar values: ``pl.exp(v)``, ``pl.sqrt(v)``, ... (also ops on tensors) and the
scalar-only ``pl.sin``, ``pl.cos``, ``pl.floor``, ``pl.ceil``, ``pl.fma(a, b, c)``.

They emit the ``math`` dialect's op on the scalar (``math.exp %v : f32``); both
pipelines lower it (CPU: polynomial approximations or libm-free code; NVPTX: PTX
instructions, no libdevice). FP16 and BF16 values are computed in FP32 and rounded back
(``arith.extf`` / ``arith.truncf``, which print as ``pl.cast``), as the tensor ops do.
``pl.abs`` of a signed integer is ``math.absi``; of an unsigned integer or BOOL it is
the value itself.
"""

from __future__ import annotations

from typing import Any

from ._mlir import Value, arith, ir
from .types import FP32, DType

#: pl name -> math dialect op name (floats only, except abs).
FLOAT_OPS = {"exp": "exp", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt", "tanh": "tanh",
             "abs": "absf"}
#: Printed back as ``pl.<name>(x)``.
PRINT_UNARY = {f"math.{op}": f"pl.{name}" for name, op in FLOAT_OPS.items()} | {
    "math.absi": "pl.abs"}


def _math_op(op_name: str, values: list[Value], loc: Any, ip: Any) -> Value:
    op = ir.Operation.create(f"math.{op_name}", results=[values[0].type], operands=values,
                             loc=loc, ip=ip)
    return op.result


def emit_wide(op_name: str, values: list[Value], dtype: DType, loc: Any, ip: Any) -> Value:
    """``math.<op_name>`` of float scalars of ``dtype`` (FP16/BF16 computed in FP32)."""
    if dtype.bits >= 32:
        return _math_op(op_name, values, loc, ip)
    wide = [arith.ExtFOp(FP32.to_mlir(), v, loc=loc, ip=ip).result for v in values]
    return arith.TruncFOp(values[0].type, _math_op(op_name, wide, loc, ip), loc=loc,
                          ip=ip).result


def emit(name: str, value: Value, dtype: DType, loc: Any, ip: Any) -> Value:
    """``pl.<name>`` of a scalar ``value`` of ``dtype`` (checked by the op's inference)."""
    if name == "abs" and not dtype.is_float:
        return _math_op("absi", [value], loc, ip) if dtype.kind in ("int", "index") else value
    return emit_wide(FLOAT_OPS[name], [value], dtype, loc, ip)
