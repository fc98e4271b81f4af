"""Kernels and host functions of the kernel tests (a module: the parser reads its source).

The host functions are plain Python functions: the tests call pl.parse_function on them
(as dsl_runtime.jit does), so that a broken one fails its own test, not the import.
"""

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


def vadd_twice(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32]):
    vadd_k(x, y, z, x.shape[0]).launch(grid=pl.ceil_div(x.shape[0], 128), block=128)
    vadd_k(x, y, z, n=x.shape[0]).launch(grid=(pl.ceil_div(x.shape[0], 128), 1, 1), block=128)


def vadd_static(x: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32],
                z: pl.Tensor[[64], pl.FP32]):
    vadd_k(x, y, z, 64).launch(grid=(1,), block=(64,))


@dc.struct
class Affine:
    scale: dc.Float32
    shift: dc.Float32


@dc.struct
class Params:
    aff: Affine
    n: dc.Int64


@pl.kernel
def affine_k(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], p: Params,
             BLOCK: dc.Constexpr[int]):
    i = pl.block_id(0) * BLOCK + pl.thread_id(0)
    if i < x.shape[0] and p.n > 0:
        y[i] = x[i] * p.aff.scale + p.aff.shift


def affine(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], p: Params, s: dc.Stream):
    affine_k(x, y, p, 128).launch(grid=pl.ceil_div(x.shape[0], 128), block=128, stream=s)
    affine_k(x, y, p, 64).launch(grid=pl.ceil_div(x.shape[0], 64), block=64, stream=s)
    affine_k(x, y, p, BLOCK=128).launch(grid=pl.ceil_div(x.shape[0], 128), block=128, stream=s)


@pl.kernel
def broken_k(x: pl.Tensor[[N], pl.FP32]):
    i = pl.thread_id(0)
    x[i] = x[i] + pl.exp(x)


def launches_broken(x: pl.Tensor[[N], pl.FP32]):
    broken_k(x).launch(grid=1, block=32)


def uses_thread_id(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    pl.thread_id(0)  # outside a kernel
    return pl.mul(x, 2.0)


def make_scale(factor: float):
    """Two calls give two different kernels named ``scale_k`` (closures)."""

    @pl.kernel
    def scale_k(x: pl.Tensor[pl.FP32], y: pl.Tensor[pl.FP32]):
        i = pl.thread_id(0)
        y[i] = x[i] * factor

    return scale_k


scale_by_2 = make_scale(2.0)
scale_by_3 = make_scale(3.0)


def scales(x: pl.Tensor[[32], pl.FP32], y: pl.Tensor[[32], pl.FP32]):
    scale_by_2(x, y).launch(grid=1, block=32)
    scale_by_3(x, y).launch(grid=1, block=32)


def with_constexpr(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], p: Params,
                   B: dc.Constexpr[int]):
    affine_k(x, y, p, B).launch(grid=pl.ceil_div(x.shape[0], B), block=B)


PARAMS = Params(aff=Affine(scale=dc.Float32(2.0), shift=dc.Float32(1.0)), n=dc.Int64(5))
BLOCK = 64


def constant_arguments(x: pl.Tensor[[256], pl.FP32], y: pl.Tensor[[256], pl.FP32]):
    affine_k(x, y, PARAMS, BLOCK).launch(grid=256 // BLOCK, block=BLOCK)
