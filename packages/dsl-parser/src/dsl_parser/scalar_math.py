"""Unary math on scalars: ``pl.exp(v)``, ``pl.sqrt(v)``, ... where ``v`` is a scalar value.

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


def _math_op(op_name: str, value: Value, loc: Any, ip: Any) -> Value:
    op = ir.Operation.create(f"math.{op_name}", results=[value.type], operands=[value],
                             loc=loc, ip=ip)
    return op.result


def emit(name: str, value: Value, dtype: DType, loc: Any, ip: Any) -> Value:
    """``pl.<name>`` of a scalar ``value`` of ``dtype`` (checked by the op's inference)."""
    if name == "abs" and not dtype.is_float:
        return _math_op("absi", value, loc, ip) if dtype.kind in ("int", "index") else value
    if dtype.bits < 32:  # FP16 / BF16: in FP32, rounded back
        wide = arith.ExtFOp(FP32.to_mlir(), value, loc=loc, ip=ip).result
        result = _math_op(FLOAT_OPS[name], wide, loc, ip)
        return arith.TruncFOp(value.type, result, loc=loc, ip=ip).result
    return _math_op(FLOAT_OPS[name], value, loc, ip)
