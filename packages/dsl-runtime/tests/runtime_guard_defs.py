"""Kernels whose work is guarded by the thread's global index, in the forms the cpu
backend turns into loop bounds (dsl-thread-loops) and in forms it must leave alone."""

from __future__ import annotations

import dsl_core as dc
import dsl_parser.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M")


@pl.kernel
def scale_k(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32], n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        z[i] = x[i] * 2.0 + 1.0


def scale(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32], B: dc.Constexpr[int]):
    scale_k(x, z, x.shape[0]).launch(grid=pl.ceil_div(x.shape[0], B), block=B)


@pl.kernel
def window_k(x: pl.Tensor[[N], pl.INT32], lo: pl.Scalar[pl.INDEX], hi: pl.Scalar[pl.INDEX],
             k: pl.Scalar[pl.INDEX], last: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    # every comparison the pass turns into bounds: >=, <, ==, <=, > with the index on
    # either side, an offset (i - 1, i + 2) and nested ifs
    if i >= lo and hi > i:  # noqa: SIM102 (nested ifs are what is tested)
        if i - 1 < x.shape[0] - 1:
            x[i] = x[i] + 1
    if i == k:
        x[i] = x[i] + 10
    if i + 2 <= last and i > 0:
        x[i] = x[i] + 100


def window(x: pl.Tensor[[N], pl.INT32], lo: pl.Scalar[pl.INDEX], hi: pl.Scalar[pl.INDEX],
           k: pl.Scalar[pl.INDEX], last: pl.Scalar[pl.INDEX], B: dc.Constexpr[int]):
    window_k(x, lo, hi, k, last).launch(grid=pl.ceil_div(x.shape[0], B), block=B)


@pl.kernel
def nested_k(x: pl.Tensor[[N], pl.INT32], lo: pl.Scalar[pl.INDEX], hi: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:  # noqa: SIM102 (nested ifs are what is tested)
        if i >= lo:  # noqa: SIM102
            if i < hi:
                x[i] = x[i] * 3


def nested(x: pl.Tensor[[N], pl.INT32], lo: pl.Scalar[pl.INDEX], hi: pl.Scalar[pl.INDEX]):
    nested_k(x, lo, hi).launch(grid=pl.ceil_div(x.shape[0], 64), block=64)


@pl.kernel
def masked_k(x: pl.Tensor[[N], pl.FP32], mask: pl.Tensor[[N], pl.INT32], z: pl.Tensor[[N], pl.FP32]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    # conjuncts that stay in the loop: a parity test and a loaded value
    if i < x.shape[0] and i % 3 != 1 and mask[i] > 0:
        z[i] = x[i] - 1.0


def masked(x: pl.Tensor[[N], pl.FP32], mask: pl.Tensor[[N], pl.INT32], z: pl.Tensor[[N], pl.FP32]):
    masked_k(x, mask, z).launch(grid=pl.ceil_div(x.shape[0], 32), block=32)


@pl.kernel
def stencil_k(a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32]):
    r = pl.block_id(1) * pl.block_dim(1) + pl.thread_id(1)
    c = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r >= 1 and r < a.shape[0] - 1 and c >= 1 and c < a.shape[1] - 1:
        b[r, c] = 0.25 * (a[r - 1, c] + a[r + 1, c] + a[r, c - 1] + a[r, c + 1])


def stencil(a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32], BX: dc.Constexpr[int],
            BY: dc.Constexpr[int]):
    stencil_k(a, b).launch(grid=(pl.ceil_div(a.shape[1], BX), pl.ceil_div(a.shape[0], BY)),
                           block=(BX, BY))


@pl.kernel
def shift_k(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i >= 1 and i < x.shape[0]:
        z[i] = x[i - 1] + x[i]


def shift(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32]):
    shift_k(x, z).launch(grid=pl.ceil_div(x.shape[0], 128), block=128)


@pl.kernel
def ratio_k(d: pl.Tensor[[N], pl.INT32], out: pl.Tensor[[N], pl.INT32], n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    # Python's short circuit: d[i] is read only for i < n, and 100 // d[i] computed
    # only where d[i] != 0 (an integer division by zero traps on the CPU)
    if i < n and d[i] != 0 and 100 // d[i] > 10:
        out[i] = 1
    if i >= n or d[i] == 0 or 100 // d[i] <= 10:
        pass
    else:
        out[i] = out[i] + 2


def ratio(d: pl.Tensor[[N], pl.INT32], out: pl.Tensor[[N], pl.INT32], n: pl.Scalar[pl.INDEX]):
    ratio_k(d, out, n).launch(grid=pl.ceil_div(d.shape[0], 64), block=64)
