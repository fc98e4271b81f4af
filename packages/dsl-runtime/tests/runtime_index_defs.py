"""Kernels that turn INDEX values (thread ids, loop indices, sizes) into data (issue 19)."""

from __future__ import annotations

import dsl_parser.language as pl

N = pl.dynamic("N")


@pl.kernel
def index_to_data_k(f: pl.Tensor[[N], pl.FP32], i32: pl.Tensor[[N], pl.INT32],
                    u8: pl.Tensor[[N], pl.UINT8], n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        f[i] = pl.cast(i, pl.FP32) * 0.5
        i32[i] = pl.cast(i, pl.INT32) - 7
        u8[i] = pl.cast(i, pl.UINT8)


def index_to_data(f: pl.Tensor[[N], pl.FP32], i32: pl.Tensor[[N], pl.INT32],
                  u8: pl.Tensor[[N], pl.UINT8]):
    index_to_data_k(f, i32, u8, f.shape[0]).launch(grid=(pl.ceil_div(f.shape[0], 64),),
                                                   block=(64,))


@pl.kernel
def gather_k(src: pl.Tensor[[N], pl.FP32], idx: pl.Tensor[[N], pl.INT32],
             dst: pl.Tensor[[N], pl.FP32], n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        dst[i] = src[pl.cast(idx[i], pl.INDEX)]


def gather(src: pl.Tensor[[N], pl.FP32], idx: pl.Tensor[[N], pl.INT32],
           dst: pl.Tensor[[N], pl.FP32]):
    gather_k(src, idx, dst, src.shape[0]).launch(grid=(pl.ceil_div(src.shape[0], 64),),
                                                 block=(64,))


@pl.kernel
def unsigned_k(x: pl.Tensor[[N], pl.UINT8], y: pl.Tensor[[N], pl.UINT8],
               z: pl.Tensor[[N], pl.UINT8], f: pl.Tensor[[N], pl.FP32], n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        if x[i] > y[i]:
            z[i] = x[i] // y[i]
        else:
            z[i] = pl.max(x[i], y[i])
        f[i] = pl.cast(x[i], pl.FP32)


def unsigned_elements(x: pl.Tensor[[N], pl.UINT8], y: pl.Tensor[[N], pl.UINT8],
                      z: pl.Tensor[[N], pl.UINT8], f: pl.Tensor[[N], pl.FP32]):
    unsigned_k(x, y, z, f, x.shape[0]).launch(grid=(pl.ceil_div(x.shape[0], 32),), block=(32,))
