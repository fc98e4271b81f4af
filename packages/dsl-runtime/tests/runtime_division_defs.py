"""Integer divisions whose divisor may be zero, in kernels and in host code (the tests
run them in subprocesses: they used to kill the process with SIGFPE)."""

from __future__ import annotations

import dsl_parser.language as pl

N = pl.dynamic("N")


@pl.kernel
def div_k(x: pl.Tensor[[N], pl.INT32], d: pl.Tensor[[N], pl.INT32], q: pl.Tensor[[N], pl.INT32],
          r: pl.Tensor[[N], pl.INT32]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        q[i] = x[i] // d[i]
        r[i] = x[i] % d[i]


def div(x: pl.Tensor[[N], pl.INT32], d: pl.Tensor[[N], pl.INT32], q: pl.Tensor[[N], pl.INT32],
        r: pl.Tensor[[N], pl.INT32]):
    div_k(x, d, q, r).launch(grid=pl.ceil_div(x.shape[0], 32), block=32)


@pl.kernel
def div64_k(x: pl.Tensor[[N], pl.INT64], d: pl.Tensor[[N], pl.INT64], q: pl.Tensor[[N], pl.INT64]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        q[i] = x[i] // d[i]


def div64(x: pl.Tensor[[N], pl.INT64], d: pl.Tensor[[N], pl.INT64], q: pl.Tensor[[N], pl.INT64]):
    div64_k(x, d, q).launch(grid=pl.ceil_div(x.shape[0], 32), block=32)


@pl.kernel
def udiv_k(x: pl.Tensor[[N], pl.UINT32], d: pl.Tensor[[N], pl.UINT32], q: pl.Tensor[[N], pl.UINT32]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        q[i] = x[i] // d[i]


def udiv(x: pl.Tensor[[N], pl.UINT32], d: pl.Tensor[[N], pl.UINT32], q: pl.Tensor[[N], pl.UINT32]):
    udiv_k(x, d, q).launch(grid=pl.ceil_div(x.shape[0], 32), block=32)


@pl.kernel
def fill_k(x: pl.Tensor[[N], pl.INT32]):
    x[pl.block_id(0)] = 1


def blocks_of(x: pl.Tensor[[N], pl.INT32], per: pl.Scalar[pl.INDEX]):
    fill_k(x).launch(grid=x.shape[0] // per, block=1)
