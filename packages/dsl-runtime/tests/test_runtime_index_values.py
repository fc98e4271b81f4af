"""Index-dependent values (issue 19): pl.arange inside row reductions, and INDEX scalars
(loop indices, sizes, thread ids) converted with pl.cast, compared with numpy."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import numpy as np
import pytest
import runtime_index_defs as defs

import dsl_parser.language as pl
from dsl_runtime import jit


def compile_fn(src: str) -> Callable[..., np.ndarray]:
    return jit(pl.parse(textwrap.dedent(src)))  # type: ignore[no-any-return]


@pytest.mark.parametrize("n", [1, 5, 16, 17, 64, 100, 1000])
def test_arange_in_a_row_sum(n: int) -> None:
    """sum(ones[4, n] * arange(n)) is n(n-1)/2 per row, with vector chunks of every
    length and a peeled remainder (it restarted at 0 every chunk: 480, not 2016)."""
    f = compile_fn(f"""
        @pl.function
        def f(x: pl.Tensor[[4, {n}], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            return pl.sum(pl.mul(x, pl.arange({n}, dtype=pl.FP32)), axis=1)
    """)
    x = np.ones((4, n), np.float32)
    np.testing.assert_array_equal(f(x), np.full(4, n * (n - 1) // 2, np.float32))


@pytest.mark.parametrize("n", [7, 64, 333])
@pytest.mark.parametrize("reduce", ["max", "min", "sum"])
def test_integer_arange_reductions_with_start_and_step(n: int, reduce: str) -> None:
    f = compile_fn(f"""
        @pl.function
        def f(x: pl.Tensor[[3, {n}], pl.INT64]) -> pl.Tensor[[3], pl.INT64]:
            r = pl.arange({n}, start=5, step=-3, dtype=pl.INT64)
            return pl.{reduce}(pl.add(x, r), axis=1)
    """)
    x = np.arange(3 * n, dtype=np.int64).reshape(3, n) % 11
    want = getattr(np, reduce)(x + (5 - 3 * np.arange(n)), axis=1)
    np.testing.assert_array_equal(f(x), want)


def test_loop_index_as_data() -> None:
    """PyPTO's pl.add(acc, pl.cast(i, pl.INT32)) in a loop with iter_args."""
    f = compile_fn("""
        @pl.function
        def f(x: pl.Tensor[[8], pl.INT32]) -> pl.Tensor[[8], pl.INT32]:
            for i, (acc,) in pl.range(10, init_values=(x,)):
                nxt = pl.add(acc, pl.cast(i, pl.INT32))
                out = pl.yield_(nxt)
            return out
    """)
    x = np.arange(8, dtype=np.int32)
    np.testing.assert_array_equal(f(x.copy()), x + 45)  # a copy: see issue 19, value semantics


@pytest.mark.parametrize(("target", "n", "want"), [
    ("FP32", 300, 300.0), ("FP64", 300, 300.0), ("INT32", 300, 300), ("INT8", 300, 44),
    ("UINT8", 300, 44), ("UINT16", 70000, 4464), ("INT64", 5, 5), ("BOOL", 0, 0),
    ("BOOL", 3, 1),
])
def test_size_cast_to_every_dtype(target: str, n: int, want: float) -> None:
    """A dynamic size (INDEX) becomes data of any dtype: truncation wraps like numpy."""
    f = compile_fn(f"""
        N = pl.dynamic("N")

        @pl.function
        def f(x: pl.Tensor[[N], pl.FP64]) -> pl.Tensor[[N], pl.FP64]:
            v = pl.cast(pl.dim(x, 0), pl.{target})
            return pl.add(x, pl.cast(v, pl.FP64))
    """)
    x = np.zeros(n, np.float64)
    got = f(x)
    assert got.shape == (n,)
    np.testing.assert_array_equal(got, np.full(n, want, np.float64))


@pytest.mark.parametrize(("source", "value", "want"), [
    ("UINT8", 200, 200), ("INT8", -56, -56), ("UINT32", 4000000000, 4000000000),
    ("FP32", 7.9, 7), ("FP64", -2.5, -2), ("BOOL", True, 1),
])
def test_scalar_to_index(source: str, value: object, want: int) -> None:
    """INT/UINT/float scalars become INDEX (unsigned sources zero-extend) and offset a slice."""
    f = compile_fn(f"""
        @pl.function
        def f(x: pl.Tensor[[4], pl.INT64], s: pl.Scalar[pl.{source}]) -> pl.Tensor[[4], pl.INT64]:
            k = pl.cast(s, pl.INDEX)
            return pl.add(x, pl.cast(k, pl.INT64))
    """)
    x = np.zeros(4, np.int64)
    np.testing.assert_array_equal(f(x, value), np.full(4, want, np.int64))


def test_thread_index_as_data_in_a_kernel() -> None:
    n = 150
    f, i32, u8 = np.zeros(n, np.float32), np.zeros(n, np.int32), np.zeros(n, np.uint8)
    jit(defs.index_to_data)(f, i32, u8)
    i = np.arange(n)
    np.testing.assert_array_equal(f, (i * 0.5).astype(np.float32))
    np.testing.assert_array_equal(i32, (i - 7).astype(np.int32))
    np.testing.assert_array_equal(u8, i.astype(np.uint8))


def test_data_as_an_index_in_a_kernel() -> None:
    src = np.arange(100, dtype=np.float32) * 2
    idx = (np.arange(100, dtype=np.int32) * 7) % 100
    dst = np.zeros(100, np.float32)
    jit(defs.gather)(src, idx, dst)
    np.testing.assert_array_equal(dst, src[idx])


@pytest.mark.parametrize(("expr", "rows"), [
    ("x[0:-2]", slice(0, -2)), ("x[-3:]", slice(-3, None)), ("x[-5:-1]", slice(-5, -1)),
    ("x[2:-2, -3:]", (slice(2, -2), slice(-3, None))),
])
def test_negative_slices_of_static_shapes(expr: str, rows: object) -> None:
    x = np.arange(10 * 6, dtype=np.float32).reshape(10, 6)
    want = x[rows]  # type: ignore[index]
    f = compile_fn(f"""
        @pl.function
        def f(x: pl.Tensor[[10, 6], pl.FP32]) -> pl.Tensor[{list(want.shape)}, pl.FP32]:
            return {expr}
    """)
    np.testing.assert_array_equal(f(x), want)


@pytest.mark.parametrize("n", [5, 9, 64])
def test_negative_slices_of_a_dynamic_dimension(n: int) -> None:
    """The offset is read from the run-time size: the last 3 rows, and rows -5..-1."""
    f = compile_fn("""
        N = pl.dynamic("N")

        @pl.function
        def f(x: pl.Tensor[[N, 4], pl.INT32]) -> pl.Tensor[[3, 4], pl.INT32]:
            return pl.add(x[-3:], x[-5:-2])
    """)
    x = np.arange(n * 4, dtype=np.int32).reshape(n, 4)
    np.testing.assert_array_equal(f(x), x[-3:] + x[-5:-2])
