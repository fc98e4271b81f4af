"""Compile-time and run-time ifs with pl.yield_ branches compute the same values (issue 19)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import jit

SRC = """
    FLAG = {flag}

    @pl.function
    def f(x: pl.Tensor[[4], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        if FLAG:
            a = pl.mul(x, 2.0)
            y = pl.yield_(a)
        else:
            b = pl.add(x, 1.0)
            y = pl.yield_(b)
        if s > 0.0:
            c = pl.mul(y, s)
            z = pl.yield_(c)
        else:
            z = pl.yield_(y)
        return z
"""


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("s", [3.0, -1.0])
def test_compile_time_then_run_time_if(flag: bool, s: float) -> None:
    f = jit(pl.parse(textwrap.dedent(SRC.format(flag=flag))))
    x = np.arange(4, dtype=np.float32)
    y = x * 2 if flag else x + 1
    np.testing.assert_array_equal(f(x, s), y * s if s > 0 else y)


@pytest.mark.parametrize("flag", [True, False])
def test_run_time_condition_of_the_same_code(flag: bool) -> None:
    """The same branches with the flag as a BOOL parameter: one scf.if, same values."""
    src = SRC.replace("FLAG = {flag}\n", "").replace(
        "s: pl.Scalar[pl.FP32])", "s: pl.Scalar[pl.FP32], FLAG: pl.Scalar[pl.BOOL])")
    f = jit(pl.parse(textwrap.dedent(src)))
    x = np.arange(4, dtype=np.float32)
    y = x * 2 if flag else x + 1
    np.testing.assert_array_equal(f(x, 2.0, flag), y * 2)
