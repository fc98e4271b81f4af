"""Bit-exact float constants.

Finite values print with ``repr`` (shortest round-trip) and are exact: every
f16/bf16/f32 value is a double. Non-finite values print as
``pl._dump.float64("7ff0000000000000")``: the 16 hex digits of the binary64
value, whatever the declared dtype, with NaN sign and payload kept. Narrowing
and widening of those patterns is done on the bits (never through the FPU,
which would quiet a signalling NaN), and attributes are built from hex
literals (``0x7FC00001 : f32``) so MLIR stores exactly those bits.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from ._mlir import Type, ir
from .types import DType

#: (exponent bits, mantissa bits) of each float dtype.
_FORMATS = {"FP16": (5, 10), "BF16": (8, 7), "FP32": (8, 23), "FP64": (11, 52)}


@dataclass(frozen=True)
class Float64Bits:
    """A float given by its binary64 bit pattern (``pl._dump.float64``)."""

    bits: int

    @classmethod
    def from_hex(cls, text: str) -> Float64Bits:
        if not isinstance(text, str) or len(text) != 16:
            raise ValueError(f"pl._dump.float64 takes 16 hex digits, got {text!r}")
        return cls(int(text, 16))

    @property
    def hex(self) -> str:
        return f"{self.bits:016x}"

    def __float__(self) -> float:
        return float(struct.unpack("<d", struct.pack("<Q", self.bits))[0])


def float64(bits: str) -> Float64Bits:
    """``pl._dump.float64("7ff0000000000000")``: a float given by its binary64 bits."""
    return Float64Bits.from_hex(bits)


def double_bits(value: float) -> int:
    """The binary64 bit pattern of a Python float."""
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def largest_finite(dtype: DType) -> float:
    """The largest finite value of a float dtype."""
    exp_bits, mant_bits = _FORMATS[dtype.name]
    bias = (1 << (exp_bits - 1)) - 1
    return (2.0 - 2.0 ** -mant_bits) * 2.0 ** bias


def overflows(value: float, dtype: DType) -> bool:
    """Whether a finite ``value`` rounds to infinity in ``dtype`` (round to nearest even:
    from half an ulp above the largest finite value, whose mantissa is odd)."""
    if dtype.name == "FP64" or not math.isfinite(value):
        return False
    exp_bits, mant_bits = _FORMATS[dtype.name]
    bias = (1 << (exp_bits - 1)) - 1
    return abs(value) >= largest_finite(dtype) + 2.0 ** (bias - mant_bits - 1)


def _narrow(bits64: int, dtype: DType) -> int:
    """A non-finite binary64 pattern in ``dtype``'s format (sign, payload's top bits)."""
    exp_bits, mant_bits = _FORMATS[dtype.name]
    sign = bits64 >> 63
    mant64 = bits64 & ((1 << 52) - 1)
    mant = mant64 >> (52 - mant_bits)
    if mant64 and not mant:  # keep a NaN a NaN when its payload is all in dropped bits
        mant = 1 << (mant_bits - 1)
    return (sign << (exp_bits + mant_bits)) | (((1 << exp_bits) - 1) << mant_bits) | mant


def _widen(bits: int, dtype: DType) -> int:
    """A non-finite pattern of ``dtype`` as binary64 (inverse of ``_narrow``)."""
    exp_bits, mant_bits = _FORMATS[dtype.name]
    sign = bits >> (exp_bits + mant_bits)
    mant = bits & ((1 << mant_bits) - 1)
    return (sign << 63) | (0x7FF << 52) | (mant << (52 - mant_bits))


def float_attr(value: float | Float64Bits, dtype: DType, mlir_type: Type) -> object:
    """A FloatAttr of ``dtype`` holding ``value`` (non-finite values bit-exactly)."""
    if isinstance(value, float) and math.isfinite(value):
        return ir.FloatAttr.get(mlir_type, value)
    bits64 = value.bits if isinstance(value, Float64Bits) else double_bits(value)
    if (bits64 >> 52) & 0x7FF != 0x7FF:  # a finite value given by its bits
        return ir.FloatAttr.get(mlir_type, float(Float64Bits(bits64)))
    bits = bits64 if dtype.name == "FP64" else _narrow(bits64, dtype)
    return ir.Attribute.parse(f"0x{bits:X} : {dtype.mlir_name}")


def read_float_attr(attr: object, dtype: DType) -> float | Float64Bits:
    """The value of a FloatAttr: a float when finite, else its binary64 bit pattern."""
    value = float(ir.FloatAttr(attr).value)
    if math.isfinite(value):
        return value
    text = str(attr).split(":")[0].strip()
    if text.lower().startswith("0x"):
        bits = int(text, 16)
        return Float64Bits(bits if dtype.name == "FP64" else _widen(bits, dtype))
    return Float64Bits(double_bits(value))


def float_literal(value: float | Float64Bits) -> str:
    """Python source for a float: ``repr`` when finite, else ``pl._dump.float64("...")``."""
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    bits = value.bits if isinstance(value, Float64Bits) else double_bits(value)
    if (bits >> 52) & 0x7FF != 0x7FF:
        return repr(float(Float64Bits(bits)))
    return f'pl._dump.float64("{bits:016x}")'
