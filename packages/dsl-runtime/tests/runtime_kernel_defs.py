"""Kernels and host functions of the runtime's kernel tests (importable by subprocesses)."""

from __future__ import annotations

import dsl_core as dc
import dsl_parser.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M")
K = pl.dynamic("K")


@pl.kernel
def vadd_k(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32],
           n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        z[i] = x[i] + y[i]


def vadd(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32],
         stream: dc.Stream):
    vadd_k(x, y, z, x.shape[0]).launch(grid=(pl.ceil_div(x.shape[0], 256),), block=(256,),
                                       stream=stream)


@pl.kernel
def transpose_k(a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[N, M], pl.FP32]):
    r = pl.block_id(1) * pl.block_dim(1) + pl.thread_id(1)
    c = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r < a.shape[0] and c < a.shape[1]:
        b[c, r] = a[r, c]


def transpose(a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[N, M], pl.FP32]):
    transpose_k(a, b).launch(grid=(pl.ceil_div(a.shape[1], 8), pl.ceil_div(a.shape[0], 8)),
                             block=(8, 8))


@pl.kernel
def row_sum_k(a: pl.Tensor[[M, N], pl.FP32], s: pl.Tensor[[M], pl.FP32]):
    r = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r < a.shape[0]:
        acc = 0.0
        for j in range(0, a.shape[1]):
            acc = acc + a[r, j]
        s[r] = acc


def row_sum(a: pl.Tensor[[M, N], pl.FP32], s: pl.Tensor[[M], pl.FP32]):
    row_sum_k(a, s).launch(grid=pl.ceil_div(a.shape[0], 64), block=64)


@pl.kernel
def matmul_k(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
             c: pl.Tensor[[M, N], pl.FP32], TILE: dc.Constexpr[int]):
    i = pl.block_id(1) * TILE + pl.thread_id(1)
    j = pl.block_id(0) * TILE + pl.thread_id(0)
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(0, a.shape[1]):
            acc = acc + a[i, k] * b[k, j]
        c[i, j] = acc


def matmul(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
           c: pl.Tensor[[M, N], pl.FP32], TILE: dc.Constexpr[int]):
    matmul_k(a, b, c, TILE).launch(grid=(pl.ceil_div(c.shape[1], TILE), pl.ceil_div(c.shape[0], TILE)),
                                   block=(TILE, TILE))


@pl.kernel
def empty_k():
    pass


def empty_launch():
    empty_k().launch(grid=1, block=1)


@dc.struct
class Affine:
    scale: dc.Float32
    shift: dc.Float32


@pl.kernel
def affine_k(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], p: Affine,
             BLOCK: dc.Constexpr[int]):
    i = pl.block_id(0) * BLOCK + pl.thread_id(0)
    if i < x.shape[0]:
        y[i] = x[i] * p.scale + p.shift


def affine(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], p: Affine, B: dc.Constexpr[int]):
    affine_k(x, y, p, B).launch(grid=pl.ceil_div(x.shape[0], B), block=B)
