"""Reductions over a non-innermost axis (column reductions, dsl-tile's row-block path)."""

from __future__ import annotations

import dsl_parser.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")
K = pl.dynamic("K")


def col_sum(x: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.sum(x, axis=0)


def col_max(x: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.max(x, axis=0)


def col_min_i32(x: pl.Tensor[[M, N], pl.INT32]) -> pl.Tensor[[N], pl.INT32]:
    return pl.min(x, axis=0)


def col_mean(x: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.mean(x, axis=0)


def middle_sum(x: pl.Tensor[[M, N, K], pl.FP32]) -> pl.Tensor[[M, K], pl.FP32]:
    return pl.sum(x, axis=1)


def static_col_sum(x: pl.Tensor[[37, 21], pl.FP32]) -> pl.Tensor[[21], pl.FP32]:
    return pl.sum(x + 1.0, axis=0)
