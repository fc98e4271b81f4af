"""The DSL's element arithmetic in numpy: what the ops' reference rules share.

numpy is imported lazily (it is only needed by the reference interpreter). Storage:
every dtype is its numpy dtype, except BF16 (numpy has none): a BF16 tensor is a
float32 array whose values are all bf16 values (rounded to nearest even after every
operation, as the compiled code rounds after each bf16 operation it computes in f32).
"""

from __future__ import annotations

from typing import Any

from ..types import BF16, DType


class UndefinedBehaviorError(ArithmeticError):
    """An operation whose result the DSL leaves undefined (the compiled code may trap or
    return anything): integer division by zero, ``INT_MIN / -1``, a float cast to an
    integer type that cannot hold it (or NaN)."""


class IntegerDivisionByZero(UndefinedBehaviorError, ZeroDivisionError):
    """An integer division or remainder by zero: also a ZeroDivisionError, which is what
    the compiled code raises there (dsl-check-divisions)."""


def np() -> Any:
    """The numpy module (imported on first use)."""
    import numpy

    return numpy


def numpy_dtype(dtype: DType) -> Any:
    """The numpy dtype that stores ``dtype`` (float32 for BF16)."""
    if dtype == BF16:
        return np().dtype("float32")
    if dtype.kind == "index":
        return np().dtype("int64")
    return np().dtype(dtype.numpy_name)


def round_bf16(values: Any) -> Any:
    """float32 values rounded to the nearest bf16 (ties to even; NaN stays NaN)."""
    n = np()
    f = n.asarray(values, dtype=n.float32)
    bits = f.view(n.uint32).astype(n.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(n.uint32).view(n.float32)
    return n.where(n.isnan(f), f, out).astype(n.float32)


def store(values: Any, dtype: DType) -> Any:
    """``values`` as an array in ``dtype``'s storage form (wrapping integers, rounding floats)."""
    n = np()
    want = numpy_dtype(dtype)
    arr = n.asarray(values)
    if dtype.kind == "bool":
        return arr.astype(n.bool_)
    if arr.dtype != want:
        with n.errstate(all="ignore"):
            arr = arr.astype(want)
    return round_bf16(arr) if dtype == BF16 else arr


def scalar(value: Any, dtype: DType) -> Any:
    """A literal or typed scalar as a 0-d numpy value of ``dtype``'s storage."""
    n = np()
    if isinstance(value, float) or hasattr(value, "bits"):
        value = float(value)
    if not isinstance(value, n.ndarray | n.generic) and dtype.is_integer and dtype.kind != "bool":
        value = int(value)
        bits = 64 if dtype.kind == "index" else dtype.bits
        value &= (1 << bits) - 1
        if dtype.kind != "uint" and value >= 1 << (bits - 1):
            value -= 1 << bits
    return store(n.asarray(value), dtype)[()]


def int_range(dtype: DType) -> tuple[int, int]:
    """The values an integer dtype holds."""
    bits = 64 if dtype.kind == "index" else dtype.bits
    if dtype.kind == "bool":
        return 0, 1
    if dtype.kind == "uint":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def trunc_div(a: Any, b: Any, dtype: DType, what: str) -> Any:
    """Integer division rounding toward zero (``arith.divsi``/``divui``), not numpy's floor."""
    n = np()
    a, b = n.broadcast_arrays(n.asarray(a), n.asarray(b))
    if n.any(b == 0):
        raise IntegerDivisionByZero(f"{what}: integer division by zero")
    low, _ = int_range(dtype)
    if dtype.kind != "uint" and n.any((a == low) & (b == -1)):
        raise UndefinedBehaviorError(f"{what}: integer division overflows ({low} / -1)")
    if dtype.kind == "uint":
        return n.floor_divide(a, b)
    q = n.floor_divide(a, b)
    fix = (a - q * b != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


def floor_div(a: Any, b: Any, dtype: DType, what: str) -> Any:
    """``//`` on scalars: ``arith.floordivsi`` (signed, toward -inf) or ``divui``."""
    n = np()
    if n.any(n.asarray(b) == 0):
        raise IntegerDivisionByZero(f"{what}: integer division by zero")
    low, _ = int_range(dtype)
    if dtype.kind != "uint" and n.any((n.asarray(a) == low) & (n.asarray(b) == -1)):
        raise UndefinedBehaviorError(f"{what}: integer division overflows ({low} / -1)")
    return n.floor_divide(a, b)


def python_rem(a: Any, b: Any, dtype: DType, what: str) -> Any:
    """``%`` on scalars, with Python's sign (the divisor's), as the parser emits it:
    ``a - (a // b) * b`` on signed integers and INDEX (so undefined where ``//`` is),
    ``remui`` on unsigned ones, ``fmod(fmod(a, b) + b, b)`` on floats."""
    n = np()
    if dtype.is_float:
        return n.fmod(n.fmod(a, b) + b, b)
    if n.any(n.asarray(b) == 0):
        raise UndefinedBehaviorError(f"{what}: integer remainder by zero")
    if dtype.kind != "uint":
        floor_div(a, b, dtype, what)  # INT_MIN % -1 divides INT_MIN by -1
    return n.remainder(a, b)


def convert(values: Any, src: DType, dst: DType, what: str) -> Any:
    """``pl.cast``: the DSL's conversions (``convertScalar`` in dsl-mlir).

    float -> float rounds to nearest; int -> int truncates or sign/zero-extends by the
    source's signedness; anything -> BOOL is ``!= 0`` (NaN is true); BOOL and unsigned
    -> float are unsigned; float -> int truncates toward zero and is undefined (raises
    ``UndefinedBehaviorError``) for NaN and values the target cannot hold."""
    n = np()
    arr = n.asarray(values)
    if dst.kind == "bool":
        return arr != 0
    if src.is_float and not dst.is_float:
        low, high = int_range(dst)
        with n.errstate(all="ignore"):
            t = n.trunc(arr.astype(n.float64))
        if n.any(n.isnan(t) | (t < low) | (t > high)):
            bad = arr[n.isnan(t) | (t < low) | (t > high)].ravel()[0]
            raise UndefinedBehaviorError(f"{what}: {float(bad)!r} does not fit {dst!r}")
        return store(t.astype(numpy_dtype(dst)), dst)
    if src.is_float and dst.is_float:
        return store(arr.astype(n.float64) if src.bits < dst.bits else arr, dst)
    return store(arr, dst)
