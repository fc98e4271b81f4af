"""Row-wise softmax and layer norm with the pl tensor ops, checked against numpy.

Run: python examples/softmax_layernorm.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import dsl_parser.language as pl
from dsl_runtime import jit

M = pl.dynamic("M")
D = 1024


@jit
def softmax(x: pl.Tensor[[M, D], pl.FP32]) -> pl.Tensor[[M, D], pl.FP32]:
    shifted = x - pl.max(x, axis=1, keepdim=True)
    e = pl.exp(shifted)
    return e / pl.sum(e, axis=1, keepdim=True)


@jit
def layer_norm(x: pl.Tensor[[M, D], pl.FP32], gamma: pl.Tensor[[D], pl.FP32],
               beta: pl.Tensor[[D], pl.FP32]) -> pl.Tensor[[M, D], pl.FP32]:
    centered = x - pl.mean(x, axis=1, keepdim=True)
    var = pl.mean(centered * centered, axis=1, keepdim=True)
    return centered * pl.rsqrt(var + 1e-5) * gamma + beta


def np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


def np_layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    centered = x - x.mean(axis=1, keepdims=True)
    var = (centered * centered).mean(axis=1, keepdims=True)
    return centered / np.sqrt(var + 1e-5) * gamma + beta  # type: ignore[no-any-return]


def best_ms(f: Callable[[], object], repeat: int = 10) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


rng = np.random.default_rng(0)
gamma = rng.standard_normal(D).astype(np.float32)
beta = rng.standard_normal(D).astype(np.float32)
for rows in (1, 3, 64):
    x = (rng.standard_normal((rows, D)) * 4).astype(np.float32)
    np.testing.assert_allclose(softmax(x), np_softmax(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer_norm(x, gamma, beta), np_layer_norm(x, gamma, beta),
                               rtol=1e-4, atol=1e-4)

x = rng.standard_normal((4096, D)).astype(np.float32)
out = np.empty_like(x)
print(f"{'kernel':<12}{'ours (ms)':>12}{'numpy (ms)':>12}{'numpy/ours':>12}")
for name, ours, ref in (
        ("softmax", lambda: softmax(x, out=out), lambda: np_softmax(x)),
        ("layer norm", lambda: layer_norm(x, gamma, beta, out=out),
         lambda: np_layer_norm(x, gamma, beta))):
    t_ours, t_np = best_ms(ours), best_ms(ref)
    print(f"{name:<12}{t_ours:>12.2f}{t_np:>12.2f}{t_np / t_ours:>11.2f}x")
print("softmax_layernorm ok")
