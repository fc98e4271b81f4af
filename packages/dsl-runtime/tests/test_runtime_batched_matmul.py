"""Batched ``pl.matmul`` (3-D operands) through ``@jit``: compiled code against the
reference interpreter and numpy, broadcasting of a 2-D operand or a batch of 1, the
operands' transposes and dtypes, and the inputs left unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import jit

B = pl.dynamic("B")
M = pl.dynamic("M")


def batched(x: pl.Tensor[[B, M, 48], pl.FP32], w: pl.Tensor[[48, 20], pl.FP32],
            y: pl.Tensor[[1, 20, 48], pl.FP32]):
    return pl.matmul(x, w), pl.matmul(x, y, b_trans=True), pl.matmul(w, x, a_trans=True,
                                                                     b_trans=True)


def widened(a: pl.Tensor[[B, 33, 40], pl.FP16], b: pl.Tensor[[B, 40, 17], pl.FP16]):
    return pl.matmul(a, b, out_dtype=pl.FP32)


def integers(a: pl.Tensor[[3, 5, 7], pl.INT8], b: pl.Tensor[[7, 4], pl.INT8]):
    return pl.matmul(a, b), pl.matmul(a, b, out_dtype=pl.INT32)


RNG = np.random.default_rng(11)


@pytest.mark.parametrize("batch", [1, 4])
def test_batched_f32_with_broadcasting(batch: int) -> None:
    x = RNG.standard_normal((batch, 13, 48)).astype(np.float32)
    w = RNG.standard_normal((48, 20)).astype(np.float32)
    y = RNG.standard_normal((1, 20, 48)).astype(np.float32)
    copies = [a.copy() for a in (x, w, y)]
    compiled = jit(batched)(x, w, y)
    for a, was in zip((x, w, y), copies):
        np.testing.assert_array_equal(a, was)
    interpreted = jit(batched, backend="interpret")(x, w, y)
    expected = (x @ w, x @ y.transpose(0, 2, 1), w.T @ x.transpose(0, 2, 1))
    for got, ref, want in zip(compiled, interpreted, expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_batched_fp16_accumulates_in_f32() -> None:
    a = RNG.standard_normal((3, 33, 40)).astype(np.float16)
    b = RNG.standard_normal((3, 40, 17)).astype(np.float16)
    got = jit(widened)(a, b)
    assert got.dtype == np.float32 and got.shape == (3, 33, 17)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jit(widened, backend="interpret")(a, b), want, rtol=1e-5, atol=1e-5)


def test_batched_integers_wrap_or_widen_as_the_interpreter() -> None:
    a = RNG.integers(-128, 128, (3, 5, 7), dtype=np.int8)
    b = RNG.integers(-128, 128, (7, 4), dtype=np.int8)
    wrapped, wide = jit(integers)(a, b)
    ref_wrapped, ref_wide = jit(integers, backend="interpret")(a, b)
    np.testing.assert_array_equal(wide, a.astype(np.int32) @ b.astype(np.int32))
    np.testing.assert_array_equal(wrapped, (a.astype(np.int32) @ b.astype(np.int32)).astype(np.int8))
    np.testing.assert_array_equal(wrapped, ref_wrapped)
    np.testing.assert_array_equal(wide, ref_wide)
