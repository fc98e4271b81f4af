"""Row-wise kernels: fused softmax and layer-norm forward, one block per row.

The structure of Triton's tutorials 02 and 05 written as ``@pl.kernel``s: each of the
block's threads walks the row with a stride of the block size, and the row's maximum,
sum, mean and variance come from tree reductions in shared memory (``pl.shared``,
``pl.barrier``); every thread then writes its share of the output. Checked against
numpy; the PTX of both is produced without a GPU.
Run: ``python examples/row_kernels.py``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

import dsl_core as dc
import dsl_parser.language as pl
from dsl_runtime import jit

M = pl.dynamic("M")
N = pl.dynamic("N")
PARALLEL = {"parallel": True}


@pl.kernel
def softmax_k(x: pl.Tensor[[M, N], pl.FP32], y: pl.Tensor[[M, N], pl.FP32],
              BLOCK: dc.Constexpr[int], STEPS: dc.Constexpr[int]) -> None:
    t = pl.shared([BLOCK], pl.FP32)
    row = pl.block_id(0)
    i = pl.thread_id(0)
    n = x.shape[1]
    m = -3.0e38
    for j in range(i, n, BLOCK):
        m = pl.max(m, x[row, j])
    t[i] = m
    pl.barrier()
    s = BLOCK // 2
    for _ in range(STEPS):  # the row's maximum
        if i < s:
            t[i] = pl.max(t[i], t[i + s])
        pl.barrier()
        s = s // 2
    top = t[0]
    pl.barrier()
    acc = 0.0
    for j in range(i, n, BLOCK):
        acc = acc + pl.exp(x[row, j] - top)
    t[i] = acc
    pl.barrier()
    s = BLOCK // 2
    for _ in range(STEPS):  # the sum of the exponentials
        if i < s:
            t[i] = t[i] + t[i + s]
        pl.barrier()
        s = s // 2
    total = t[0]
    for j in range(i, n, BLOCK):
        y[row, j] = pl.exp(x[row, j] - top) / total


@jit(pipeline_options=PARALLEL)
def softmax(x: pl.Tensor[[M, N], pl.FP32], y: pl.Tensor[[M, N], pl.FP32],
            BLOCK: dc.Constexpr[int], STEPS: dc.Constexpr[int]) -> None:
    softmax_k(x, y, BLOCK, STEPS).launch(grid=(x.shape[0],), block=(BLOCK,))


@pl.kernel
def layer_norm_k(x: pl.Tensor[[M, N], pl.FP32], w: pl.Tensor[[N], pl.FP32],
                 b: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[M, N], pl.FP32], eps: pl.Scalar[pl.FP32],
                 BLOCK: dc.Constexpr[int], STEPS: dc.Constexpr[int]) -> None:
    t = pl.shared([BLOCK], pl.FP32)
    row = pl.block_id(0)
    i = pl.thread_id(0)
    n = x.shape[1]
    acc = 0.0
    for j in range(i, n, BLOCK):
        acc = acc + x[row, j]
    t[i] = acc
    pl.barrier()
    s = BLOCK // 2
    for _ in range(STEPS):  # the row's sum
        if i < s:
            t[i] = t[i] + t[i + s]
        pl.barrier()
        s = s // 2
    mean = t[0] / pl.cast(n, pl.FP32)
    pl.barrier()
    sq = 0.0
    for j in range(i, n, BLOCK):
        d = x[row, j] - mean
        sq = sq + d * d
    t[i] = sq
    pl.barrier()
    s = BLOCK // 2
    for _ in range(STEPS):  # the sum of squared deviations
        if i < s:
            t[i] = t[i] + t[i + s]
        pl.barrier()
        s = s // 2
    rstd = pl.rsqrt(t[0] / pl.cast(n, pl.FP32) + eps)
    for j in range(i, n, BLOCK):
        y[row, j] = (x[row, j] - mean) * rstd * w[j] + b[j]


@jit(pipeline_options=PARALLEL)
def layer_norm(x: pl.Tensor[[M, N], pl.FP32], w: pl.Tensor[[N], pl.FP32],
               b: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[M, N], pl.FP32], eps: pl.Scalar[pl.FP32],
               BLOCK: dc.Constexpr[int], STEPS: dc.Constexpr[int]) -> None:
    layer_norm_k(x, w, b, y, eps, BLOCK, STEPS).launch(grid=(x.shape[0],), block=(BLOCK,))


def softmax_reference(x: NDArray[np.float32]) -> NDArray[np.floating]:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    result: NDArray[np.floating] = e / e.sum(axis=1, keepdims=True)
    return result


def layer_norm_reference(x: NDArray[np.float32], w: NDArray[np.float32], b: NDArray[np.float32],
                         eps: float) -> NDArray[np.floating]:
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    result: NDArray[np.floating] = (x - mean) / np.sqrt(var + eps) * w + b
    return result


def main() -> None:
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((64, 781)) * 3).astype(np.float32)
    y = np.zeros_like(x)
    softmax(x, y, 128, 7)
    np.testing.assert_allclose(y, softmax_reference(x), rtol=1e-5, atol=1e-7)
    print(f"softmax of {x.shape}: rows sum to 1 (max error {abs(y.sum(1) - 1).max():.1e}), "
          "matches numpy")
    w = rng.standard_normal(781).astype(np.float32)
    b = rng.standard_normal(781).astype(np.float32)
    layer_norm(x, w, b, y, 1e-5, 128, 7)
    np.testing.assert_allclose(y, layer_norm_reference(x, w, b, 1e-5), rtol=1e-4, atol=1e-4)
    print(f"layer norm of {x.shape}: matches numpy")
    ptx = jit(softmax.__wrapped__).ptx(x, y, 128, 7)
    print(f"PTX of the softmax: {ptx.count('bar.sync')} barriers, "
          f"{ptx.count('ex2.approx')} fast exponentials (no GPU needed)")


if __name__ == "__main__":
    main()
