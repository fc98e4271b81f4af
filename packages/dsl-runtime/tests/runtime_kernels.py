"""DSL functions shared by the runtime tests (a real module: @jit needs their source)."""

from __future__ import annotations

import dsl_core as dc
import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")
M = pl.dynamic("M")


@jit
def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.add(pl.mul(x, x), y)


@jit
def static_add(x: pl.Tensor[[4, 8], pl.FP32], y: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
    return x + y


@jit
def unshaped_mul(x: pl.Tensor[pl.FP32], y: pl.Tensor[pl.FP32]) -> pl.Tensor[pl.FP32]:
    return x * y


@jit
def fill_scaled(x: pl.Tensor[[N], pl.FP64], s: pl.Scalar[pl.FP64]) -> pl.Tensor[[N], pl.FP64]:
    return pl.mul(x, pl.full([N], s, dtype=pl.FP64))


@jit
def repeat_add(x: pl.Tensor[[N], pl.FP32], times: dc.Constexpr[int]) -> pl.Tensor[[N], pl.FP32]:
    for _i, (acc,) in pl.range(times, init_values=(x,)):
        nxt = pl.add(acc, x)
        out = pl.yield_(nxt)
    return out


@jit
def to_f32(x: pl.Tensor[[M, N], pl.FP16]) -> pl.Tensor[[M, N], pl.FP32]:
    return pl.cast(x, target_type=pl.FP32)


@jit
def int_div(x: pl.Tensor[[N], pl.INT32], y: pl.Tensor[[N], pl.INT32]) -> pl.Tensor[[N], pl.INT32]:
    return x / y


@pl.function
def parsed_sub(x: pl.Tensor[[4], pl.FP32], y: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    return pl.sub(x, y)


@pl.program
class Ops:
    @pl.function
    def square(self, x: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
        return pl.mul(x, x)

    @pl.function
    def sum_of_squares(self, a: pl.Tensor[[2], pl.FP32], b: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
        a2 = self.square(a)
        b2 = self.square(b)
        return pl.add(a2, b2)


@dc.struct
class Affine:
    scale: dc.Float32
    shift: dc.Float32


@dc.struct
class Params:
    aff: Affine
    bias: dc.Float32


@jit
def affine(x: pl.Tensor[[N], pl.FP32], p: Params) -> pl.Tensor[[N], pl.FP32]:
    return pl.add(pl.add(pl.mul(x, p.aff.scale), p.aff.shift), p.bias)


@jit(pipeline_options={"parallel": True})
def chain_parallel(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.add(pl.mul(x, x), y)
