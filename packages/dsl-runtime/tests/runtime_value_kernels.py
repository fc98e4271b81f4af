"""DSL functions of the value-semantics tests (a real module: @jit needs their source)."""

from __future__ import annotations

import dsl_core as dc
import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")


@jit
def loop_on_param(x: pl.Tensor[[N], pl.FP32], times: dc.Constexpr[int]) -> pl.Tensor[[N], pl.FP32]:
    for _i, (acc,) in pl.range(times, init_values=(x,)):
        nxt = pl.add(acc, acc)
        out = pl.yield_(nxt)
    return out


@jit
def loop_on_static_param(x: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
    for _i, (acc,) in pl.range(3, init_values=(x,)):
        nxt = pl.mul(acc, acc)
        out = pl.yield_(nxt)
    return out


@jit(strict_ssa=False)
def nonstrict_carried(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    for _i in pl.range(4):
        x = pl.add(x, y)
    return x


@jit
def assemble_into_param(a: pl.Tensor[[8], pl.FP32], b: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
    return pl.assemble(a, b, [3])


@jit
def assemble_in_loop(a: pl.Tensor[[8], pl.FP32], b: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
    for i, (acc,) in pl.range(4, init_values=(a,)):
        nxt = pl.assemble(acc, b, [i * 2])
        out = pl.yield_(nxt)
    return out


@jit
def mm(a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
    return pl.matmul(a, b)


@jit
def tr(a: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:
    return pl.transpose(a, [1, 0])


@jit
def shift_add(x: pl.Tensor[[8], pl.FP32], y: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
    return pl.add(x, y)


@jit
def two_results(x: pl.Tensor[[N], pl.FP32]) -> tuple[pl.Tensor[[N], pl.FP32], pl.Tensor[[N], pl.FP32]]:
    return pl.add(x, x), pl.mul(x, x)


@jit
def same_twice(x: pl.Tensor[[4, 8], pl.FP32]) -> tuple[pl.Tensor[[4, 8], pl.FP32], pl.Tensor[[4, 8], pl.FP32]]:
    e = pl.add(x, x)
    return e, e


@jit
def same_twice_dynamic(x: pl.Tensor[[N], pl.FP32]) -> tuple[pl.Tensor[[N], pl.FP32], pl.Tensor[[N], pl.FP32]]:
    e = pl.mul(x, x)
    return e, e


@jit
def param_returned(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return x


@jit
def param_and_value(x: pl.Tensor[[N], pl.FP32]) -> tuple[pl.Tensor[[N], pl.FP32], pl.Tensor[[N], pl.FP32]]:
    return x, pl.add(x, x)


@pl.program
class DynamicCalls:
    def square(self, x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        return pl.mul(x, x)

    def sum_of_squares(self, a: pl.Tensor[[N], pl.FP32], b: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        a2 = self.square(a)
        b2 = self.square(b)
        return pl.add(a2, b2)
