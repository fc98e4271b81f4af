"""Kernels and functions with while, break, continue and early return (control-flow tests)."""

from __future__ import annotations

import sys
from pathlib import Path

import dsl_parser.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M")


# Mandelbrot (while, break, early return) is examples/mandelbrot.py's: its undecorated
# host function, so that each test decorates it as it needs.
_EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
if str(_EXAMPLES) not in sys.path:
    sys.path.insert(0, str(_EXAMPLES))
import mandelbrot as _mandelbrot  # noqa: E402

mandelbrot = _mandelbrot.mandelbrot.__wrapped__


@pl.kernel
def row_scan_k(a: pl.Tensor[[M, N], pl.FP32], limit: pl.FP32, total: pl.Tensor[[M], pl.FP32],
               count: pl.Tensor[[M], pl.INT32]):
    """Per row: sum the non-negative values (continue skips the others) until the sum
    passes ``limit`` (break); count the values summed."""
    r = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r < a.shape[0]:
        acc = 0.0
        used: pl.INT32 = 0
        for j in range(a.shape[1]):
            v = a[r, j]
            if v < 0.0:
                continue
            acc = acc + v
            used = used + 1
            if acc > limit:
                break
        total[r] = acc
        count[r] = used


def row_scan(a: pl.Tensor[[M, N], pl.FP32], limit: pl.FP32, total: pl.Tensor[[M], pl.FP32],
             count: pl.Tensor[[M], pl.INT32]):
    row_scan_k(a, limit, total, count).launch(grid=(pl.ceil_div(a.shape[0], 32),),
                                              block=(32,))


@pl.kernel
def find_k(a: pl.Tensor[[M, N], pl.INT32], target: pl.INT32, where: pl.Tensor[[M], pl.INT32]):
    """Per row: the first column holding ``target`` (return from inside the loop), else -1;
    a nested loop whose break leaves only the inner loop counts the row's repeats."""
    r = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r >= a.shape[0]:
        return
    for j in range(a.shape[1]):
        if a[r, j] == target:
            where[r] = pl.cast(j, pl.INT32)
            return
    where[r] = -1


def find(a: pl.Tensor[[M, N], pl.INT32], target: pl.INT32, where: pl.Tensor[[M], pl.INT32]):
    find_k(a, target, where).launch(grid=(pl.ceil_div(a.shape[0], 16),), block=(16,))


@pl.kernel
def runs_k(a: pl.Tensor[[M, N], pl.INT32], runs: pl.Tensor[[M], pl.INT32]):
    """Per row: the length of the run of equal values starting at each column, summed
    (an inner while loop with a compound condition inside a for loop)."""
    r = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r < a.shape[0]:
        total: pl.INT32 = 0
        for j in range(a.shape[1]):
            k = j + 1
            while k < a.shape[1]:
                if a[r, k] != a[r, j]:
                    break
                k = k + 1
            total = total + pl.cast(k - j, pl.INT32)
        runs[r] = total


def runs(a: pl.Tensor[[M, N], pl.INT32], runs_out: pl.Tensor[[M], pl.INT32]):
    runs_k(a, runs_out).launch(grid=(pl.ceil_div(a.shape[0], 16),), block=(16,))


def collatz_steps(n: pl.INT64) -> pl.Tensor[[1], pl.INT64]:
    """A while loop in a function: the Collatz steps of ``n`` (scalar code, one result)."""
    steps: pl.INT64 = 0
    while n != 1:
        if n % 2 == 0:  # noqa: SIM108 (DSL code: an if statement, not an expression)
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
    return pl.full([1], steps, pl.INT64)


@pl.kernel
def histogram_k(x: pl.Tensor[[N], pl.INT32], bins: pl.Tensor[[M], pl.INT32],
                first: pl.Tensor[[M], pl.INT32]):
    """Counts with atomic_add; the first writer of each bin (atomic_cas from -1) records
    its index; atomic_max/min keep extremes in bins' neighbours (checked by the test)."""
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        b = x[i]
        pl.atomic_add(bins, b, 1)
        pl.atomic_cas(first, b, -1, pl.cast(i, pl.INT32))


def histogram(x: pl.Tensor[[N], pl.INT32], bins: pl.Tensor[[M], pl.INT32],
              first: pl.Tensor[[M], pl.INT32]):
    histogram_k(x, bins, first).launch(grid=(pl.ceil_div(x.shape[0], 64),), block=(64,))


@pl.kernel
def extremes_k(x: pl.Tensor[[N], pl.FP32], out: pl.Tensor[[4], pl.FP32],
               total: pl.Tensor[[1, 1], pl.FP64], swaps: pl.Tensor[[N], pl.FP32]):
    """Float atomics: min, max, add (into float64 at a 2-D index), exchange (old values)."""
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        v = x[i]
        pl.atomic_min(out, 0, v)
        pl.atomic_max(out, 1, v)
        pl.atomic_add(total, (0, 0), pl.cast(v, pl.FP64))
        swaps[i] = pl.atomic_xchg(out, 2, v)


def extremes(x: pl.Tensor[[N], pl.FP32], out: pl.Tensor[[4], pl.FP32],
             total: pl.Tensor[[1, 1], pl.FP64], swaps: pl.Tensor[[N], pl.FP32]):
    extremes_k(x, out, total, swaps).launch(grid=(pl.ceil_div(x.shape[0], 32),), block=(32,))


@pl.kernel
def bits_k(x: pl.Tensor[[N], pl.UINT32], acc: pl.Tensor[[3], pl.UINT32]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        pl.atomic_or(acc, 0, x[i])
        pl.atomic_and(acc, 1, x[i])
        pl.atomic_xor(acc, 2, x[i])


def bits(x: pl.Tensor[[N], pl.UINT32], acc: pl.Tensor[[3], pl.UINT32]):
    bits_k(x, acc).launch(grid=(pl.ceil_div(x.shape[0], 32),), block=(32,))


@pl.kernel
def clamp_k(x: pl.Tensor[[N], pl.FP32], u: pl.Tensor[[N], pl.UINT32],
            out: pl.Tensor[[N], pl.FP32], uout: pl.Tensor[[N], pl.UINT32]):
    """Scalar pl.min/pl.max with a number on either side (float NaN propagates, uint
    compares unsigned), and pl.cast of a dynamic size."""
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        out[i] = pl.min(pl.max(-1.0, x[i]), 1.0) + pl.cast(x.shape[0], pl.FP32) * 0.0
        uout[i] = pl.max(u[i], 7)


def clamp(x: pl.Tensor[[N], pl.FP32], u: pl.Tensor[[N], pl.UINT32],
          out: pl.Tensor[[N], pl.FP32], uout: pl.Tensor[[N], pl.UINT32]):
    clamp_k(x, u, out, uout).launch(grid=(pl.ceil_div(x.shape[0], 32),), block=(32,))


@pl.kernel
def swap_halves_k(x: pl.Tensor[[M, 8], pl.FP32], y: pl.Tensor[[M, 8], pl.FP32],
                  at: pl.INDEX):
    """Vector loads and stores: each row's halves swapped and reversed, element ``at`` of
    the vector store moved by the launch (out of range under boundscheck when at > 4)."""
    r = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r < x.shape[0]:
        a, b, c, d = pl.load(x, (r, 0), width=4)
        e, f, g, h = pl.load(x, (r, 4), width=4, aligned=True)
        pl.store(y, (r, 0), (h, g, f, e), aligned=True)
        pl.store(y, (r, at), (d, c, b, a))


def swap_halves(x: pl.Tensor[[M, 8], pl.FP32], y: pl.Tensor[[M, 8], pl.FP32], at: pl.INDEX):
    swap_halves_k(x, y, at).launch(grid=(pl.ceil_div(x.shape[0], 16),), block=(16,))
