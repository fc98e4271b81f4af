"""matmul with transposes and f16 inputs accumulating into f32, checked against numpy."""

from __future__ import annotations

import numpy as np

import dsl_parser.language as pl
from dsl_runtime import jit

M, K, N = 48, 64, 32


@jit
def mm(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
    return pl.matmul(a, b)


@jit
def mm_tt(a: pl.Tensor[[K, M], pl.FP32], b: pl.Tensor[[N, K], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
    return pl.matmul(a, b, a_trans=True, b_trans=True)


@jit
def mm_f16(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[N, K], pl.FP16]) -> pl.Tensor[[M, N], pl.FP32]:
    c = pl.matmul(a, b, b_trans=True)
    return pl.cast(c, target_type=pl.FP32)


rng = np.random.default_rng(0)
a = rng.standard_normal((M, K)).astype(np.float32)
b = rng.standard_normal((K, N)).astype(np.float32)
np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-4, atol=1e-4)
np.testing.assert_allclose(mm_tt(np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)), a @ b,
                           rtol=1e-4, atol=1e-4)
a16, b16 = a.astype(np.float16), np.ascontiguousarray(b.T).astype(np.float16)
ref = (a16.astype(np.float32) @ b16.astype(np.float32).T)
np.testing.assert_allclose(mm_f16(a16, b16), ref, rtol=2e-2, atol=5e-2)
print("matmul ok")
