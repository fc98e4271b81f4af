"""Kernels in a module with postponed annotations (every annotation is a string)."""

from __future__ import annotations

import dsl_core as dc
from parser_kernel_defs import Params

import dsl_parser.language as pl


@pl.kernel
def scaled(x: pl.Tensor[pl.FP32], p: Params, B: dc.Constexpr[int]):
    i = pl.block_id(0) * B + pl.thread_id(0)
    if i < x.shape[0]:
        x[i] = x[i] * p.aff.scale


def host(x: pl.Tensor[[256], pl.FP32], p: Params, s: dc.Stream):
    scaled(x, p, 64).launch(grid=4, block=64, stream=s)
