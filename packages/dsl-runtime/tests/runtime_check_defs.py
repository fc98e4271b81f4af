"""Functions and kernels of the run-time check tests (importable by subprocesses)."""

from __future__ import annotations

import dsl_core as dc
import dsl_parser.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M")
L = pl.dynamic("L")


def slice_static(x: pl.Tensor[[8], pl.FP32], i: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4], pl.FP32]:
    return pl.slice(x, [4], [i])


def slice_dynamic(x: pl.Tensor[[N], pl.FP32], i: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4], pl.FP32]:
    return pl.slice(x, [4], [i])


def slice_2d(x: pl.Tensor[[M, N], pl.FP32], i: pl.Scalar[pl.INDEX],
             j: pl.Scalar[pl.INDEX]) -> pl.Tensor[[2, 3], pl.FP32]:
    return pl.slice(x, [2, 3], [i, j])


def assemble_static(d: pl.Tensor[[8], pl.FP32], s: pl.Tensor[[2], pl.FP32],
                    i: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
    return pl.assemble(d, s, [i])


def assemble_dynamic(d: pl.Tensor[[N], pl.FP32], s: pl.Tensor[[M], pl.FP32],
                     i: pl.Scalar[pl.INDEX]) -> pl.Tensor[[N], pl.FP32]:
    return pl.assemble(d, s, [i])


def arange_n(n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[L], pl.FP32]:
    return pl.arange(n, start=1.0)


def full_n(x: pl.Tensor[[N], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[N], pl.FP32]:
    f = pl.full([n], 2.0)
    return pl.add(x, pl.slice(f, [1], [0]))


@pl.kernel
def shift_load_k(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[M], pl.FP32], k: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < z.shape[0]:
        z[i] = x[i + k]


def shift_load(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[M], pl.FP32], k: pl.Scalar[pl.INDEX]):
    shift_load_k(x, z, k).launch(grid=pl.ceil_div(z.shape[0], 4), block=4)


@pl.kernel
def shift_store_k(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[M], pl.FP32], k: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        z[i + k] = x[i]


def shift_store(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[M], pl.FP32], k: pl.Scalar[pl.INDEX]):
    shift_store_k(x, z, k).launch(grid=pl.ceil_div(x.shape[0], 4), block=4)


@pl.kernel
def at_k(a: pl.Tensor[[M, N], pl.FP32], z: pl.Tensor[[1], pl.FP32], r: pl.Scalar[pl.INDEX],
         c: pl.Scalar[pl.INDEX]):
    z[0] = a[r, c]


def at(a: pl.Tensor[[M, N], pl.FP32], z: pl.Tensor[[1], pl.FP32], r: pl.Scalar[pl.INDEX],
       c: pl.Scalar[pl.INDEX], stream: dc.Stream):
    at_k(a, z, r, c).launch(grid=1, block=1, stream=stream)


def scale(x: pl.Tensor[[N], pl.FP32], a: pl.Scalar[pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.mul(x, a)


def add_u32(x: pl.Tensor[[N], pl.UINT32], a: pl.Scalar[pl.UINT32]) -> pl.Tensor[[N], pl.UINT32]:
    return pl.add(x, a)


def add_i8(x: pl.Tensor[[N], pl.INT8], a: pl.Scalar[pl.INT8]) -> pl.Tensor[[N], pl.INT8]:
    return pl.add(x, a)


def add_f64(x: pl.Tensor[[N], pl.FP64], a: pl.Scalar[pl.FP64]) -> pl.Tensor[[N], pl.FP64]:
    return pl.add(x, a)
