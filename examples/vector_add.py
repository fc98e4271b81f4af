"""Vector add with a dynamic size, results allocated or written into out=."""

from __future__ import annotations

import numpy as np

import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")


@jit
def vadd(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return x + y


for n in (1, 7, 1000, 1 << 20):
    a = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    b = np.random.default_rng(n + 1).standard_normal(n).astype(np.float32)
    np.testing.assert_array_equal(vadd(a, b), a + b)
    out = np.empty(n, np.float32)
    assert vadd(a, b, out=out) is out
    np.testing.assert_array_equal(out, a + b)
print("vector_add ok:", vadd.cache_info())
