"""The emitted IR goes through dsl-mlir's CPU pipeline and computes what numpy computes."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from corpus import ALL
from parser_helpers import dsl
from parser_run import run

import dsl_parser.language as pl


def test_program_calls_run() -> None:
    a = np.array([-7], np.int32)
    b = np.array([12], np.int32)
    out = np.zeros(1, np.int32)
    run(dsl(ALL["math_ops"]), a, b, outputs=[out], name="sum_of_squares")
    np.testing.assert_array_equal(out, a * a + b * b)
    run(dsl(ALL["math_ops"]), b, outputs=[out], name="square")
    np.testing.assert_array_equal(out, b * b)


class _Scalars(ctypes.Structure):
    _fields_ = [("masked", ctypes.c_int32), ("d", ctypes.c_double)]


@pytest.mark.parametrize(("a", "f"), [(5, 2.0), (-4, 0.5), (0, -3.0), (1000, 8.0)])
def test_scalar_arithmetic_runs(a: int, f: float) -> None:
    result = _Scalars(-1, -1.0)
    run(dsl(ALL["scalars"]), ctypes.c_int32(a), ctypes.c_uint8(250), ctypes.c_double(f),
        ctypes.c_bool(True), result=result)
    b = a * 3 + 2  # Python's own semantics (floor division) on the corpus's expressions
    c = (b // 2) % 5 - a
    assert result.masked == (c & 7) | (b ^ 1)
    assert result.d == -f * 0.25 / f


def test_non_finite_constants_run() -> None:
    x = np.array([1.0, -2.5, np.nan, -np.inf], np.float32)
    out = np.zeros(4, np.float32)
    run(dsl(ALL["constants"]), x, outputs=[out])
    with np.errstate(invalid="ignore"):  # inf + -inf
        np.testing.assert_array_equal(out, np.float32(np.inf) + np.float32(-0.0) + x)
    assert np.isnan(out[2:]).all() and (out[:2] == np.inf).all()


@pytest.mark.parametrize(("m", "n"), [(5, 6), (1, 0), (3, 3), (2, 4)])
def test_scalar_loops_ifs_unroll_and_dims_run(m: int, n: int) -> None:
    f = pl.parse("""
M = pl.dynamic("M")
@pl.function
def f(x: pl.Tensor[[M, 8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    for i, (k,) in pl.unroll(n, init_values=(0,)):
        if i > 2:
            r = pl.yield_(k + i)
        else:
            r = pl.yield_(k)
        out = pl.yield_(r)
    return out + M
""")
    result = ctypes.c_int64(-1)
    run(f, np.zeros((m, 8), np.float32), ctypes.c_int64(n), result=result)
    assert result.value == sum(i for i in range(n) if i > 2) + m


def _flash_attn_reference(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The corpus's flash_attn: the sum over 16 blocks of f32(f16(q @ k_block.T))."""
    acc = np.zeros((64, 64), np.float32)
    for i in range(16):
        block = k[i * 64:(i + 1) * 64].astype(np.float32)
        scores = (q.astype(np.float32) @ block.T).astype(np.float16)
        acc += scores.astype(np.float32)
    return acc


def test_tensor_iter_args_and_yields_run() -> None:
    rng = np.random.default_rng(7)
    q = rng.uniform(-1, 1, (64, 128)).astype(np.float16)
    k = rng.uniform(-1, 1, (1024, 128)).astype(np.float16)
    out = np.full((64, 64), np.nan, np.float32)
    run(dsl(ALL["flash_attn"]), q, k, outputs=[out])
    expected = _flash_attn_reference(q, k)
    # f16 products accumulated over K=128: a few f16 ulps of |scores| ~ 4 per block.
    np.testing.assert_allclose(out, expected, rtol=0, atol=0.25)  # |expected| is ~12 on average


_MOD = """
@pl.function
def f(a: pl.Scalar[pl.{t}], b: pl.Scalar[pl.{t}]) -> pl.Scalar[pl.{t}]:
    return a % b
"""


@pytest.mark.parametrize(("dtype", "ctype"), [("INT32", ctypes.c_int32), ("FP64", ctypes.c_double),
                                              ("INDEX", ctypes.c_int64)])
def test_scalar_remainder_follows_python(dtype: str, ctype: type[ctypes.c_int32]) -> None:
    """Used to be arith.remsi/remf (C's sign of the dividend) while `//` is floor division
    and constant folding uses Python's `%` (the divisor's sign)."""
    f = pl.parse(_MOD.format(t=dtype))
    cases = [(7, 5), (-7, 5), (7, -5), (-7, -5), (0, 3), (0, -3), (6, 3), (-6, 3), (5, 7)]
    if dtype == "FP64":
        cases += [(7.5, 2), (-7.5, 2), (7.5, -2), (-0.5, 0.25), (1e300, 3.0), (-3.0, 8.0)]
    for a, b in cases:
        result = ctype(0)
        run(f, ctype(a), ctype(b), result=result)
        assert result.value == a % b, (a, b, result.value)


def test_several_iter_args_swapped_by_a_tuple_yield_run() -> None:
    f = pl.parse("""
@pl.function
def f(x: pl.Tensor[[8], pl.FP32], y: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]):
    for i, (a, b) in pl.range(n, init_values=(x, y)):
        s = pl.add(a, b)
        na, nb = pl.yield_(b, s)
    return na, nb
""")
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    y = np.full(8, 0.5, np.float32)
    for n in (0, 1, 5):
        first, second = np.full(8, np.nan, np.float32), np.full(8, np.nan, np.float32)
        a, b = x.copy(), y.copy()
        run(f, x, y, ctypes.c_int64(n), outputs=[first, second])  # x, y must stay unchanged
        for _ in range(n):
            a, b = b, a + b
        np.testing.assert_array_equal(first, a)
        np.testing.assert_array_equal(second, b)


@pytest.mark.parametrize("m", [1, 3, 6])
def test_broadcasting_with_dynamic_and_missing_dims_runs(m: int) -> None:
    f = pl.parse("""
M = pl.dynamic("M")

@pl.function
def f(x: pl.Tensor[[M, 8], pl.FP32], v: pl.Tensor[[8], pl.FP32],
      col: pl.Tensor[[M, 1], pl.FP32]) -> pl.Tensor[[M, 8], pl.FP32]:
    y = x + v
    z = col * v
    return y - z
""")
    rng = np.random.default_rng(m)
    x = rng.standard_normal((m, 8)).astype(np.float32)
    v = rng.standard_normal(8).astype(np.float32)
    col = rng.standard_normal((m, 1)).astype(np.float32)
    out = np.full((m, 8), np.nan, np.float32)
    run(f, x, v, col, outputs=[out])
    np.testing.assert_allclose(out, (x + v) - col * v, rtol=1e-6, atol=1e-6)
