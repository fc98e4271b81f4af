"""Functions with struct parameters (a module: parse_function reads their source)."""

from __future__ import annotations

import dsl_core as dc

import dsl_parser.language as pl


@dc.struct
class Affine:
    scale: dc.Float32
    shift: dc.Float32


@dc.struct
class Outer:
    aff: Affine
    n: dc.Int64


@dc.struct
class WithConst:
    k: dc.Constexpr[int]
    v: dc.Float32


def nested(x: pl.Tensor[[4], pl.FP32], p: Outer) -> pl.Tensor[[4], pl.FP32]:
    return pl.add(pl.mul(x, p.aff.scale), p.aff.shift)


def missing_field(x: pl.Tensor[[4], pl.FP32], p: Affine) -> pl.Tensor[[4], pl.FP32]:
    return pl.mul(x, p.nope)


def constexpr_field(x: pl.Tensor[[4], pl.FP32], p: WithConst) -> pl.Tensor[[4], pl.FP32]:
    return x
