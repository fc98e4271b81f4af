"""Matmul operands whose rows are a multiple of 4 KiB apart are copied into padded rows
(issue 15: 2048^3 f32 ran at 0.42x of OpenBLAS): the products with such operands, plain,
transposed, widened from fp16 and batched, against numpy in float64 and the reference
interpreter, with the inputs unchanged."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import jit


def plain(a: pl.Tensor[[128, 1024], pl.FP32], b: pl.Tensor[[1024, 1024], pl.FP32]):
    return pl.matmul(a, b)


def b_transposed(a: pl.Tensor[[96, 2048], pl.FP32], b: pl.Tensor[[80, 2048], pl.FP32]):
    return pl.matmul(a, b, b_trans=True)


def a_transposed(a: pl.Tensor[[1024, 64], pl.FP32], b: pl.Tensor[[1024, 1024], pl.FP32]):
    return pl.matmul(a, b, a_trans=True)


def widened(a: pl.Tensor[[70, 1024], pl.FP16], b: pl.Tensor[[1024, 40], pl.FP16]):
    return pl.matmul(a, b, out_dtype=pl.FP32)


def batched(a: pl.Tensor[[3, 64, 1024], pl.FP32], b: pl.Tensor[[1024, 33], pl.FP32]):
    return pl.matmul(a, b)


RNG = np.random.default_rng(4096)
CASES: list[tuple[Callable[..., object], tuple[tuple[int, ...], ...], type, Callable[..., np.ndarray]]] = [
    (plain, ((128, 1024), (1024, 1024)), np.float32, lambda a, b: a @ b),
    (b_transposed, ((96, 2048), (80, 2048)), np.float32, lambda a, b: a @ b.T),
    (a_transposed, ((1024, 64), (1024, 1024)), np.float32, lambda a, b: a.T @ b),
    (widened, ((70, 1024), (1024, 40)), np.float16, lambda a, b: a @ b),
    (batched, ((3, 64, 1024), (1024, 33)), np.float32, lambda a, b: a @ b),
]


@pytest.mark.parametrize(("fn", "shapes", "dtype", "reference"), CASES,
                         ids=[case[0].__name__ for case in CASES])
def test_strided_operands(fn: Callable[..., object], shapes: tuple[tuple[int, ...], ...],
                          dtype: type, reference: Callable[..., np.ndarray]) -> None:
    args = tuple(RNG.standard_normal(s).astype(dtype) for s in shapes)
    copies = [a.copy() for a in args]
    got = jit(fn)(*args)  # type: ignore[call-overload]
    for a, was in zip(args, copies):
        np.testing.assert_array_equal(a, was)
    want = reference(*(a.astype(np.float64) for a in args))
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-3)
    interpreted = jit(fn, backend="interpret")(*args)  # type: ignore[call-overload]
    np.testing.assert_allclose(interpreted, want, rtol=2e-4, atol=2e-3)
