"""Max and min reductions run a compare-and-select loop and fall back to the exact
(NaN-propagating, -0 < +0) loop when a NaN was seen or the result is zero (issue 15):
results are those of IEEE maximum/minimum bit for bit, for NaNs anywhere in a row
(first lane, middle, masked tail), rows of infinities, and zeros of both signs in
either order, at widths under one vector, odd and dynamic, f32 and f64."""

from __future__ import annotations

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import jit

R = pl.dynamic("R")
C = pl.dynamic("C")
RNG = np.random.default_rng(77)


def row_max32(x: pl.Tensor[[R, C], pl.FP32]) -> pl.Tensor[[R], pl.FP32]:
    return pl.max(x, axis=1)


def row_min32(x: pl.Tensor[[R, C], pl.FP32]) -> pl.Tensor[[R], pl.FP32]:
    return pl.min(x, axis=1)


def row_max64(x: pl.Tensor[[R, C], pl.FP64]) -> pl.Tensor[[R], pl.FP64]:
    return pl.max(x, axis=1)


def row_min64(x: pl.Tensor[[R, C], pl.FP64]) -> pl.Tensor[[R], pl.FP64]:
    return pl.min(x, axis=1)


def softmax(x: pl.Tensor[[R, C], pl.FP32]) -> pl.Tensor[[R, C], pl.FP32]:
    e = pl.exp(x - pl.max(x, axis=1, keepdim=True))
    return e / pl.sum(e, axis=1, keepdim=True)


KERNELS = {("max", np.float32): row_max32, ("min", np.float32): row_min32,
           ("max", np.float64): row_max64, ("min", np.float64): row_min64}


def exact(x: np.ndarray, kind: str) -> np.ndarray:
    """IEEE 754-2019 maximum/minimum along rows: NaN if any NaN, +0 above -0."""
    want = (np.max if kind == "max" else np.min)(x, axis=1)  # numpy propagates NaN
    zeros = x == 0
    plus = (zeros & ~np.signbit(x)).any(axis=1)
    minus = (zeros & np.signbit(x)).any(axis=1)
    at_zero = want == 0
    signed = np.where(plus, 0.0, -0.0) if kind == "max" else np.where(minus, -0.0, 0.0)
    return np.where(at_zero, signed, want).astype(x.dtype)


def hostile_rows(width: int, dtype: type) -> np.ndarray:
    rows = [RNG.standard_normal(width) for _ in range(6)]
    for at in (0, width // 2, width - 1):  # a NaN in the first lane, the middle, the tail
        row = RNG.standard_normal(width)
        row[at] = np.nan
        rows.append(row)
    rows.append(np.full(width, -np.inf))
    rows.append(np.full(width, np.inf))
    with_inf = RNG.standard_normal(width)
    with_inf[width // 3] = np.inf
    rows.append(with_inf)
    # The sign of a zero maximum: zeros of both signs in either order, 64 apart (the
    # same lane of the vector accumulator) or at the ends of the row.
    apart = [(0, 64), (64, 0)] if width > 64 else []
    neg = -np.abs(RNG.standard_normal(width)) - 1
    for i, j in [(0, width - 1), (width - 1, 0), *apart]:
        row = neg.copy()
        row[i], row[j] = -0.0, 0.0
        rows.append(row)
    rows.append(np.where(np.arange(width) % 2 == 0, -0.0, -1.0))  # maximum is -0
    pos = np.abs(RNG.standard_normal(width)) + 1
    for i, j in [(0, width - 1), (width - 1, 0), *apart]:  # the sign of a zero minimum
        row = pos.copy()
        row[i], row[j] = 0.0, -0.0
        rows.append(row)
    rows.append(np.full(width, 0.0))
    rows.append(np.full(width, -0.0))
    return np.array(rows, dtype=dtype)


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))
    np.testing.assert_array_equal(got[ok], want[ok])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("width", [5, 64, 1001, 4096])
def test_row_extremes_are_exact(kind: str, dtype: type, width: int) -> None:
    x = hostile_rows(width, dtype)
    before = x.copy()
    got = jit(KERNELS[kind, dtype])(x)
    assert_same_bits(got, exact(x, kind))
    np.testing.assert_array_equal(np.isnan(x), np.isnan(before))
    np.testing.assert_array_equal(np.nan_to_num(x), np.nan_to_num(before))


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_softmax_with_nan_and_zero_rows(parallel: bool) -> None:
    """A NaN in a row makes the whole row NaN (the exact path); a row whose max is 0 is
    a plain softmax; the other rows match numpy."""
    x = (RNG.standard_normal((64, 1024)) * 3).astype(np.float32)
    x[5, 700] = np.nan
    x[9] = -np.abs(x[9])
    x[9, 3] = 0.0
    got = jit(softmax, pipeline_options={"parallel": parallel})(x)
    assert np.isnan(got[5]).all()
    ok = np.arange(64) != 5
    e = np.exp(x[ok].astype(np.float64) - x[ok].max(axis=1, keepdims=True))
    np.testing.assert_allclose(got[ok], e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-9)
