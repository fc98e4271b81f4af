"""Rank-preserving subscript slices ``x[a:b, :]`` become ``dsl.slice``."""

from __future__ import annotations

import pytest
from parser_helpers import dsl, fn, raises_at

from dsl_parser import ParserTypeError, UnsupportedFeatureError, structural_equal

SRC = """
@pl.function
def win(x: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[4, 3], pl.FP32]:
    return x[2:6, 5:]
"""


def test_slice_with_static_bounds() -> None:
    f = fn(SRC)
    text = str(f)
    assert "%c2 = arith.constant 2 : index" in text and "%c5 = arith.constant 5 : index" in text
    assert "dsl.slice %arg0[%c2, %c5] : tensor<16x8xf32> -> tensor<4x3xf32>" in text
    again = dsl(f.as_python())
    assert structural_equal(f.module, again.module)


def test_missing_trailing_dims_take_the_whole_dimension() -> None:
    f = fn("""
@pl.function
def head(x: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[3, 8], pl.FP32]:
    return x[:3]
""")
    assert "-> tensor<3x8xf32>" in str(f)


@pytest.mark.parametrize(("body", "cls", "words", "col"), [
    ("x[i:i + 4, :]", ParserTypeError, "must be compile-time ints", 14),
    ("x[2:20, :]", ParserTypeError, "slice 2:20 is out of range for dimension 0 of size 16", 14),
    ("x[1, :]", UnsupportedFeatureError, "only rank-preserving slices", 12),
    ("x[::2, :]", UnsupportedFeatureError, "slice steps other than 1", 16),
])
def test_bad_subscripts(body: str, cls: type, words: str, col: int) -> None:
    code = f"""
@pl.function
def f(x: pl.Tensor[[16, 8], pl.FP32], i: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4, 8], pl.FP32]:
    return {body}
"""
    raises_at(cls, code, 4, col, [words])


@pytest.mark.parametrize(("body", "size", "offset"), [
    ("x[0:-2]", 14, 0), ("x[-3:]", 3, 13), ("x[-5:-1]", 4, 11), ("x[-16:]", 16, 0),
    ("x[2:-2]", 12, 2), ("x[-4:16]", 4, 12), ("x[:-16]", 0, 0),
])
def test_negative_bounds_count_from_the_end(body: str, size: int, offset: int) -> None:
    """Python semantics: a negative bound is dim + bound (static dimensions fold)."""
    f = fn(f"""
@pl.function
def f(x: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[{size}, 8], pl.FP32]:
    return {body}
""")
    assert f"dsl.slice %arg0[%c{offset}" in str(f) and f"tensor<{size}x8xf32>" in str(f)
    assert structural_equal(f.module, dsl(f.as_python()).module)


@pytest.mark.parametrize(("body", "size"), [("x[-3:]", 3), ("x[-5:-1]", 4)])
def test_negative_bounds_of_a_dynamic_dimension_read_its_size(body: str, size: int) -> None:
    f = fn(f"""
N = pl.dynamic("N")

@pl.function
def f(x: pl.Tensor[[N, 8], pl.FP32]) -> pl.Tensor[[{size}, 8], pl.FP32]:
    return {body}
""")
    text = str(f)
    assert "tensor.dim %arg0, %c0" in text and "arith.addi" in text, text
    assert f"-> tensor<{size}x8xf32>" in text
    assert structural_equal(f.module, dsl(f.as_python()).module)


@pytest.mark.parametrize(("body", "words", "col"), [
    ("x[-20:]", "slice -20: is out of range for dimension 0 of size 16 (it gives -4:16)", 14),
    ("x[5:-12]", "slice 5:-12 is out of range for dimension 0 of size 16 (it gives 5:4)", 14),
    ("x[:, -9:]", "slice -9: is out of range for dimension 1 of size 8", 17),
])
def test_negative_bounds_out_of_range(body: str, words: str, col: int) -> None:
    code = f"""
@pl.function
def f(x: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
    return {body}
"""
    raises_at(ParserTypeError, code, 4, col, [words])


@pytest.mark.parametrize("body", ["y[0:-2]", "y[2:]", "y[-2:3]"])
def test_dynamic_dimension_slices_need_a_static_size(body: str) -> None:
    code = f"""
N = pl.dynamic("N")

@pl.function
def f(y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    return {body}
"""
    raises_at(ParserTypeError, code, 6, 14, ["has a size known only at run time"])
