"""The printer: valid DSL that round-trips to an equal module; bit-exact floats."""

from __future__ import annotations

import struct

import pytest
from corpus import ALL
from parser_helpers import dsl, fn

import dsl_parser.language as pl
from dsl_parser import Function, structural_equal


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("concise", [False, True])
def test_round_trip_is_a_fixed_point(name: str, concise: bool) -> None:
    original = dsl(ALL[name])
    printed = original.as_python(concise=concise)
    reparsed = pl.parse(printed)
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


#: The dtypes in which a value of the round-trip test is out of range (it would round
#: to infinity: FP16 stops at 65504, BF16 at 3.3895e38, FP32 at 3.4028235e38).
OVERFLOWS = {3.4028234663852886e38: {"FP16", "BF16"},
             1.7976931348623157e308: {"FP16", "BF16", "FP32"}}


@pytest.mark.parametrize("value", [0.1, -0.0, 1e-45, 3.4028234663852886e38, 1 / 3, 5e-324,
                                   1.7976931348623157e308])
def test_finite_floats_round_trip_bit_exactly(value: float) -> None:
    for dtype in ("FP32", "FP64", "FP16", "BF16"):
        if dtype in OVERFLOWS.get(value, ()):
            continue  # a ParserTypeError: see test_out_of_range_float_constants_are_errors
        f = fn(f"""
            @pl.function
            def f(x: pl.Tensor[[2], pl.FP32]):
                c = pl.const({value!r}, pl.{dtype})
                return x
        """)
        again = pl.parse(f.as_python())
        first = str(f).split("arith.constant ")[1].split("\n")[0]
        second = str(again).split("arith.constant ")[1].split("\n")[0]
        assert first == second
        assert again.as_python() == f.as_python()
    f64 = fn(f"""
        @pl.function
        def f(x: pl.Tensor[[2], pl.FP32]):
            c = pl.const({value!r}, pl.FP64)
            return x
    """)
    assert f"pl.const({value!r}, pl.FP64)" in f64.as_python()
    if abs(value) < 3.4e38:
        f32 = fn(f"""
            @pl.function
            def f(x: pl.Tensor[[2], pl.FP32]):
                c = pl.const({value!r}, pl.FP32)
                return x
        """)
        literal = f32.as_python().split("pl.const(")[1].split(",")[0]
        assert _f32_bits(float(literal)) == _f32_bits(value)


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
