"""Exact conversions of Python numbers to fixed-width machine values.

Nothing here truncates silently: out-of-range values raise ``ValueError`` naming the type.
Float16 uses IEEE binary16 (``struct`` format ``e``); BFloat16 takes the float32 bit pattern
and rounds its low 16 bits away to nearest, ties to even (NaN stays a quiet NaN).
"""

from __future__ import annotations

import math
import operator
import struct

_F16 = struct.Struct("<e")
_F32 = struct.Struct("<f")
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")

#: Finite doubles strictly inside +-F32_LIMIT round to a finite float32.
F32_LIMIT = 2.0**128 - 2.0**103


def to_int(name: str, x: object, lo: int, hi: int) -> int:
    """``x`` as a Python int in ``[lo, hi]``; floats and out-of-range values are errors."""
    try:
        v = operator.index(x)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"{name}: expected an integer, got {type(x).__name__} {x!r}"
        ) from None
    if not lo <= v <= hi:
        raise ValueError(f"{name}: value {v} is out of range [{lo}, {hi}]")
    return v


def to_float(name: str, x: object) -> float:
    """``x`` as a Python float (ints must be exactly representable in range)."""
    if isinstance(x, (str, bytes)) or not hasattr(x, "__float__"):
        raise TypeError(f"{name}: expected a real number, got {type(x).__name__} {x!r}")
    try:
        return float(x)
    except OverflowError:
        raise ValueError(f"{name}: value {x!r} is out of range for a float") from None


def _overflow(name: str, x: float, limit: str) -> ValueError:
    return ValueError(f"{name}: value {x!r} is out of range (largest finite value {limit})")


def round_f16(name: str, x: float) -> float:
    """``x`` rounded to binary16, as a float."""
    try:
        return float(_F16.unpack(_F16.pack(x))[0])
    except OverflowError:
        raise _overflow(name, x, "65504.0") from None


def round_f32(name: str, x: float) -> float:
    """``x`` rounded to binary32, as a float."""
    try:
        return float(_F32.unpack(_F32.pack(x))[0])
    except OverflowError:
        raise _overflow(name, x, "3.4028234663852886e+38") from None


def f16_bits(x: float) -> int:
    """The binary16 bit pattern of ``x`` (already in range)."""
    return int.from_bytes(_F16.pack(x), "little")


def f16_from_bits(bits: int) -> float:
    return float(_F16.unpack(_U16.pack(bits))[0])


def bf16_bits(name: str, x: float) -> int:
    """bfloat16 bits of ``x``: float32 bits, rounded to nearest even on the low half."""
    bits = int(_U32.unpack(_F32.pack(round_f32(name, x)))[0])
    if math.isnan(x):
        return (bits >> 16) | 0x0040
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    if (rounded & 0x7FFF) == 0x7F80 and not math.isinf(x):
        raise _overflow(name, x, "3.3895313892515355e+38")
    return rounded


def bf16_from_bits(bits: int) -> float:
    return float(_F32.unpack(_U32.pack(bits << 16))[0])


def round_bf16(name: str, x: float) -> float:
    return bf16_from_bits(bf16_bits(name, x))


def float_hex_bits(kind: str, x: float) -> str:
    """MLIR hexadecimal float literal (bit pattern) of ``x`` for ``kind``."""
    if kind == "f16":
        return f"0x{f16_bits(x):04X}"
    if kind == "bf16":
        return f"0x{bf16_bits('BFloat16', x):04X}"
    if kind == "f32":
        return f"0x{int(_U32.unpack(_F32.pack(x))[0]):08X}"
    return f"0x{int(struct.unpack('<Q', struct.pack('<d', x))[0]):016X}"
