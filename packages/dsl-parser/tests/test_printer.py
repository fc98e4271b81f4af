"""The printer: DSL that round-trips to the same MLIR; floats to the bits IEEE rounding gives."""

from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np
import pytest
from corpus import ALL
from dsl_mlir import ir
from parser_helpers import dsl, fn

import dsl_parser.language as pl
from dsl_parser import Function, structural_equal


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("concise", [False, True])
def test_round_trip_is_a_fixed_point(name: str, concise: bool) -> None:
    original = dsl(ALL[name])
    printed = original.as_python(concise=concise)
    reparsed = pl.parse(printed)
    # MLIR's own printer, independent of ours and of structural_equal (which, e.g., takes
    # 0.0 and -0.0 as equal): the same ops, types, attributes and constants' bits.
    assert str(reparsed.module) == str(original.module), printed
    assert structural_equal(original, reparsed), printed
    assert reparsed.as_python(concise=concise) == printed
    # concise and full forms describe the same module
    assert structural_equal(pl.parse(original.as_python(concise=not concise)), original)


def test_printed_flash_attention() -> None:
    printed = dsl(ALL["flash_attn"]).as_python()
    assert printed.startswith("import dsl_parser.language as pl\n\n\n@pl.function\n")
    for line in (
        "    attn_init: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)",
        "    for i, (attn,) in pl.range(16, init_values=(attn_init,)):",
        "        k_block: pl.Tensor[[64, 128], pl.FP16] = pl.slice(k, [64, 128], [i * 64, 0])",
        "        if i == 0:",
        "            result = pl.yield_(new_attn)",
        "        final = pl.yield_(result)",
        "    return final",
    ):
        assert line + "\n" in printed, line


def test_concise_mode_omits_intermediate_annotations() -> None:
    f = dsl(ALL["flash_attn"])
    concise = f.as_python(concise=True)
    assert "    attn_init = pl.create_tensor([64, 64], dtype=pl.FP32)" in concise
    assert "q: pl.Tensor[[64, 128], pl.FP16]" in concise  # parameters keep theirs


def _f32_bits(value: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", value))[0])


@pytest.mark.parametrize(("literal", "dtype", "mlir"), [
    ('pl._dump.float64("7ff0000000000000")', "FP32", "0x7F800000 : f32"),
    ('pl._dump.float64("fff0000000000000")', "FP64", "0xFFF0000000000000 : f64"),
    ('pl._dump.float64("7ff8000000000001")', "FP64", "0x7FF8000000000001 : f64"),
    ('pl._dump.float64("7ff4000020000000")', "FP32", "0x7FA00001 : f32"),
    ('pl._dump.float64("fffc000000000000")', "FP16", "0xFF00 : f16"),
    ('pl._dump.float64("7ff8200000000000")', "BF16", "0x7FC1 : bf16"),
])
def test_non_finite_floats_keep_their_bits(literal: str, dtype: str, mlir: str) -> None:
    f = fn(f"""
        @pl.function
        def f(x: pl.Tensor[[2], pl.FP32]):
            c = pl.const({literal}, pl.{dtype})
            return x
    """)
    assert f"arith.constant {mlir}" in str(f)
    printed = f.as_python()
    assert f"c: pl.Scalar[pl.{dtype}] = pl.const({literal}, pl.{dtype})" in printed
    assert mlir in str(pl.parse(printed))


def _bf16_bits(value: float) -> int:
    """bfloat16 bits of ``value``, rounded to nearest even from the exact double."""
    sign = 0x8000 if str(value).startswith("-") else 0
    if abs(value) >= (2 - 2**-8) * 2.0**127:  # halfway past the largest bf16: inf (even)
        return sign | 0x7F80
    with np.errstate(over="ignore"):
        high = int(np.float32(value).view(np.uint32)) >> 16  # the nearest or a neighbour
    exact = Fraction(value)

    def key(b: int) -> tuple[Fraction, int]:
        as_float = float(np.uint32(b << 16).view(np.float32))
        return abs(Fraction(as_float) - exact), b & 1  # nearest, then even

    return min((b for b in (high - 1, high, high + 1) if (b & 0x7FFF) < 0x7F80), key=key)


#: dtype -> (the MLIR element type, the expected bits of a Python float, computed without
#: the parser, the printer or MLIR: IEEE round-to-nearest-even by numpy/struct).
_EXPECTED_BITS = {
    "FP64": ("f64", lambda v: int(np.float64(v).view(np.uint64))),
    "FP32": ("f32", lambda v: int(np.float32(v).view(np.uint32))),
    "FP16": ("f16", lambda v: int(np.float16(v).view(np.uint16))),
    "BF16": ("bf16", _bf16_bits),
}


def _constant_bits(f: Function, mlir_type: str) -> int:
    """The bits of the function's only arith.constant, read from the MLIR attribute."""
    (op,) = [op for op in f.func_op.regions[0].blocks[0].operations
             if op.operation.name == "arith.constant"]
    attr = ir.FloatAttr(op.attributes["value"])
    assert str(attr.type) == mlir_type
    value = attr.value  # exact: every f32/f16/bf16 is a double
    bits = {"f64": _EXPECTED_BITS["FP64"][1], "f32": _EXPECTED_BITS["FP32"][1],
            "f16": _EXPECTED_BITS["FP16"][1],
            "bf16": lambda v: _f32_bits(v) >> 16}[mlir_type](value)
    return int(bits)


_INFINITY_EXPONENT = {"FP64": 0x7FF << 52, "FP32": 0xFF << 23, "FP16": 0x1F << 10,
                      "BF16": 0xFF << 7}


def _in_range(value: float, dtype: str) -> bool:
    """Whether ``value`` rounds to a finite ``dtype`` (pl.const's range checks test the rest)."""
    with np.errstate(over="ignore"):
        bits = _EXPECTED_BITS[dtype][1](value)
    return bits & _INFINITY_EXPONENT[dtype] != _INFINITY_EXPONENT[dtype]


_FLOATS = [0.1, -0.0, 1e-45, 3.4028234663852886e38, 1 / 3, 5e-324, 1.7976931348623157e308,
           -2.5, 65504.0, 1e-5, 6e-8, 1.00390625, 1.01171875, -3.140625e-39]


@pytest.mark.parametrize(("value", "dtype"), [(v, d) for v in _FLOATS
                                              for d in sorted(_EXPECTED_BITS) if _in_range(v, d)])
def test_finite_floats_parse_and_round_trip_to_the_expected_bits(value: float, dtype: str) -> None:
    mlir_type, expected_of = _EXPECTED_BITS[dtype]
    expected = expected_of(value)
    f = fn(f"""
        @pl.function
        def f(x: pl.Tensor[[2], pl.FP32]):
            c = pl.const({value!r}, pl.{dtype})
            return x
    """)
    assert _constant_bits(f, mlir_type) == expected
    printed = f.as_python()
    again = pl.parse(printed)
    assert _constant_bits(again, mlir_type) == expected, printed
    assert again.as_python() == printed
    if dtype == "FP64":
        assert f"pl.const({value!r}, pl.FP64)" in printed
    if dtype == "FP32":
        literal = printed.split("pl.const(")[1].split(",")[0]
        assert _f32_bits(float(literal)) == expected


def test_expected_bits_reference() -> None:
    """The reference rounding above, on values whose bits are known by hand."""
    assert _bf16_bits(1.0) == 0x3F80 and _bf16_bits(-2.0) == 0xC000
    assert _bf16_bits(1.00390625) == 0x3F80  # halfway 0x3F80/0x3F81: to even
    assert _bf16_bits(1.01171875) == 0x3F82  # halfway 0x3F81/0x3F82: to even
    assert _bf16_bits(1.0039062500001) == 0x3F81
    assert _bf16_bits(3.4028234663852886e38) == 0x7F80  # past the largest bf16: inf
    assert _bf16_bits(-0.0) == 0x8000 and _bf16_bits(-1e300) == 0xFF80
    with np.errstate(over="ignore"):
        assert _EXPECTED_BITS["FP16"][1](65520.0) == 0x7C00
    assert _EXPECTED_BITS["FP16"][1](65504.0) == 0x7BFF
    assert _EXPECTED_BITS["FP32"][1](0.1) == 0x3DCCCCCD


def test_structural_equal_ignores_names_and_locations() -> None:
    a = fn("""
        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32]):
            first = pl.add(x, x)
            return first
    """)
    b = fn("""

        @pl.function
        def f(y: pl.Tensor[[4], pl.FP32]):
            other_name = pl.add(y,   y)
            return other_name
    """)
    c = fn("""
        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32]):
            return pl.sub(x, x)
    """)
    assert structural_equal(a, b) and structural_equal(a.module, b.module)
    assert not structural_equal(a, c)


def test_structural_equal_compares_nan_bits_and_zero_values() -> None:
    def const(literal: str) -> Function:
        return fn(f"""
            @pl.function
            def f(x: pl.Tensor[[2], pl.FP32]):
                c = pl.const({literal}, pl.FP64)
                return x
        """)

    nan1 = const('pl._dump.float64("7ff8000000000001")')
    nan2 = const('pl._dump.float64("7ff8000000000002")')
    assert structural_equal(nan1, const('pl._dump.float64("7ff8000000000001")'))
    assert not structural_equal(nan1, nan2)
    assert structural_equal(const("0.0"), const("-0.0"))
    assert not structural_equal(const("1.0"), const("2.0"))


def test_names_that_clash_are_renamed_validly() -> None:
    f = fn("""
        @pl.function(strict_ssa=False)
        def f(x: pl.Tensor[[4], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4], pl.FP32]:
            acc = pl.add(x, x)
            for i in pl.range(n):
                acc = pl.add(acc, x)
            return acc
    """)
    printed = f.as_python()
    assert "@pl.function\ndef f" in printed  # the printed form is strict SSA
    again = pl.parse(printed)
    assert structural_equal(f, again) and again.as_python() == printed
