"""The emitted IR goes through dsl-mlir's CPU pipeline (no device needed)."""

from __future__ import annotations

import dsl_mlir
import pytest
from corpus import ALL
from parser_helpers import dsl

import dsl_parser.language as pl


@pytest.mark.parametrize("name", ["math_ops", "scalars", "constants"])
def test_loop_free_programs_lower(name: str) -> None:
    lowered = dsl_mlir.lower(dsl(ALL[name]).module)
    assert "llvm.func" in str(lowered)


def test_scalar_loops_ifs_unroll_and_dims_lower() -> None:
    f = pl.parse("""
M = pl.dynamic("M")
@pl.function
def f(x: pl.Tensor[[M, 8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    for i, (k,) in pl.unroll(n, init_values=(0,)):
        if i > 2:
            r = pl.yield_(k + i)
        else:
            r = pl.yield_(k)
        out = pl.yield_(r)
    return out + M
""")
    assert "llvm.func @f" in str(dsl_mlir.lower(f.module))


def test_tensor_iter_args_lower() -> None:
    dsl_mlir.lower(dsl(ALL["flash_attn"]).module)
