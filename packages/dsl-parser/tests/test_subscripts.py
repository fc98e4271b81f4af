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
