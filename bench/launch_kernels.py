"""Empty kernels and the host functions that launch them (bench/launch_bench.py)."""

from __future__ import annotations

import dsl_parser.language as pl

N = pl.dynamic("N")


@pl.kernel
def empty0_k():
    pass


def launch0():
    empty0_k().launch(grid=1, block=1)


@pl.kernel
def empty8_k(a: pl.Tensor[[N], pl.FP32], b: pl.Tensor[[N], pl.FP32], c: pl.Tensor[[N], pl.FP32],
             d: pl.Tensor[[N], pl.FP32], i: pl.Scalar[pl.INT64], j: pl.Scalar[pl.INT64],
             x: pl.Scalar[pl.FP32], y: pl.Scalar[pl.FP32]):
    pass


def launch8(a: pl.Tensor[[N], pl.FP32], b: pl.Tensor[[N], pl.FP32], c: pl.Tensor[[N], pl.FP32],
            d: pl.Tensor[[N], pl.FP32], i: pl.Scalar[pl.INT64], j: pl.Scalar[pl.INT64],
            x: pl.Scalar[pl.FP32], y: pl.Scalar[pl.FP32]):
    empty8_k(a, b, c, d, i, j, x, y).launch(grid=1, block=1)
