from __future__ import annotations

import ctypes
import math
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsl_core as dc

INT_RANGES = [
    (dc.Int8, -128, 127), (dc.Int16, -32768, 32767), (dc.Int32, -(2**31), 2**31 - 1),
    (dc.Int64, -(2**63), 2**63 - 1), (dc.UInt8, 0, 255), (dc.UInt16, 0, 65535),
    (dc.UInt32, 0, 2**32 - 1), (dc.UInt64, 0, 2**64 - 1),
]


@pytest.mark.parametrize(("t", "lo", "hi"), INT_RANGES)
def test_integer_range_limits_are_accepted_and_exceeded_values_rejected(t, lo, hi):
    assert t(lo).value == lo and t(hi).value == hi
    with pytest.raises(ValueError, match=rf"{t.__name__}: value {hi + 1} is out of range"):
        t(hi + 1)
    with pytest.raises(ValueError, match=rf"\[{lo}, {hi}\]"):
        t(lo - 1)


def test_integer_rejects_floats_and_strings():
    with pytest.raises(TypeError, match=r"Int32: expected an integer, got float 2.5"):
        dc.Int32(2.5)
    with pytest.raises(TypeError, match="Int32: expected an integer, got str"):
        dc.Int32("3")


def test_integer_accepts_numpy_ints_and_other_dsl_ints():
    assert dc.Int16(np.int64(-7)).value == -7
    assert dc.Int64(dc.Int8(-3)).value == -3
    with pytest.raises(ValueError, match="Int8: value 300 is out of range"):
        dc.Int8(dc.Int32(300))


def test_float32_rounds_to_single_precision():
    assert dc.Float32(0.1).value == struct.unpack("<f", struct.pack("<f", 0.1))[0]
    assert dc.Float32(0.1).value != 0.1
    assert dc.Float64(0.1).value == 0.1


def test_float_overflow_is_an_error_not_inf():
    with pytest.raises(ValueError, match=r"Float32: value 1e\+40 is out of range"):
        dc.Float32(1e40)
    with pytest.raises(ValueError, match=r"Float16: value 70000.0 is out of range"):
        dc.Float16(70000.0)
    with pytest.raises(ValueError, match=r"BFloat16: value 3.4e\+38 is out of range"):
        dc.BFloat16(3.4e38)
    with pytest.raises(ValueError, match=r"Float64: value .* out of range"):
        dc.Float64(10**400)
    assert math.isinf(dc.Float32(math.inf).value)
    assert math.isnan(dc.Float16(math.nan).value)


def test_float16_matches_numpy_binary16():
    for x in (0.1, 1.0 / 3, 65504.0, -2.5e-5, 6.1e-8):
        assert dc.Float16(x).value == float(np.float16(x))


def _bf16_reference(x: float) -> int:
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    lower, upper = bits & 0xFFFF, bits >> 16
    if lower > 0x8000 or (lower == 0x8000 and upper & 1):
        upper += 1
    return upper


@pytest.mark.parametrize("x", [1.0, 0.1, 1.00390625, 1.01171875, -3.14159, 1e-30, 3.3e38])
def test_bfloat16_rounds_to_nearest_even(x):
    v = dc.BFloat16(x)
    bits = struct.unpack("<H", struct.pack("<f", v.value)[2:])[0]
    assert bits == _bf16_reference(x)


def test_bfloat16_ties_go_to_even():
    # 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: rounds to even (1.0)
    assert dc.BFloat16(1.00390625).value == 1.0
    # 1 + 3 * 2^-8 is halfway between 1.0078125 (odd) and 1.015625 (even)
    assert dc.BFloat16(1.01171875).value == 1.015625


def test_boolean_accepts_bools_and_0_1_only():
    assert dc.Boolean(True).value is True
    assert dc.Boolean(0).value is False
    assert dc.Boolean(np.bool_(True)).value is True
    with pytest.raises(TypeError, match="Boolean: expected a bool"):
        dc.Boolean(2)


def test_scalar_equality_and_hash():
    assert dc.Int32(3) == dc.Int32(3) and dc.Int32(3) == 3
    assert dc.Int32(3) != dc.Int64(3)
    assert hash(dc.Int32(3)) == hash(3)
    assert repr(dc.Float32(1.5)) == "Float32(1.5)"
    assert int(dc.UInt8(9)) == 9 and float(dc.Int8(2)) == 2.0 and [10, 20][dc.Int8(1)] == 20


STORED = [
    (dc.Int8, -2, b"\xfe"), (dc.UInt16, 0xBEEF, b"\xef\xbe"),
    (dc.Int32, -1, b"\xff\xff\xff\xff"), (dc.UInt64, 1, b"\x01" + b"\x00" * 7),
    (dc.Float16, 1.0, b"\x00\x3c"), (dc.BFloat16, 1.0, b"\x80\x3f"),
    (dc.Float32, 1.0, b"\x00\x00\x80\x3f"), (dc.Float64, -2.0, b"\x00" * 7 + b"\xc0"),
    (dc.Boolean, True, b"\x01"),
]


@pytest.mark.parametrize(("t", "value", "raw"), STORED)
def test_scalar_poke_writes_exact_bytes_and_peek_reads_back(t, value, raw):
    assert dc.dsl_size_of(t) == len(raw) and dc.dsl_align_of(t) == len(raw)
    buf = (ctypes.c_uint8 * 16)()
    dc.poke_into_ptr(t, buf, value)
    assert bytes(buf)[: len(raw)] == raw
    assert bytes(buf)[len(raw):] == b"\x00" * (16 - len(raw))
    back = dc.peek_from_ptr(t, ctypes.addressof(buf))
    assert type(back) is t and back == t(value)


def test_poke_out_of_range_value_is_refused():
    buf = (ctypes.c_uint8 * 4)()
    with pytest.raises(ValueError, match="UInt8: value 256 is out of range"):
        dc.poke_into_ptr(dc.UInt8, buf, 256)
    assert bytes(buf) == b"\x00" * 4


@given(st.floats(allow_nan=False, width=32))
def test_float32_storage_and_fill_round_trip_any_float32(x):
    buf = (ctypes.c_uint8 * 4)()
    dc.poke_into_ptr(dc.Float32, buf, x)
    assert dc.peek_from_ptr(dc.Float32, buf).value == x == float(np.frombuffer(bytes(buf),
                                                                              np.float32)[0])
    slot = ctypes.c_float()
    dc.compile_fill(dc.Float32)(x, [slot])
    assert slot.value == x


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-3.0e38, max_value=3.0e38))
def test_bfloat16_bits_match_the_reference_rounding(x):
    slot = ctypes.c_uint16()
    dc.compile_fill(dc.BFloat16)(x, [slot])
    assert slot.value == _bf16_reference(struct.unpack("<f", struct.pack("<f", x))[0])


@given(st.integers(min_value=-(2**63), max_value=2**64 - 1))
def test_int64_and_uint64_accept_exactly_their_ranges(n):
    for t in (dc.Int64, dc.UInt64):
        if t.lo <= n <= t.hi:
            slot = getattr(ctypes, t.ctype_name)()
            dc.compile_fill(t)(n, [slot])
            assert slot.value == n
        else:
            with pytest.raises(ValueError, match=f"{t.__name__}: value {n} is out of range"):
                dc.compile_fill(t)(n, [ctypes.c_uint64()])
