"""Block-level kernels: shared memory, barriers and atomics, on the CPU backend.

Four kernels in the style GPU programmers write first (Triton's and CUDA's tutorials):

* ``tiled_matmul``: C = A @ B through TILE x TILE tiles of A and B in shared memory,
  two barriers per step of the k loop, the accumulator kept across them;
* ``block_sum``: a tree reduction in shared memory (barriers inside a loop);
* ``block_scan``: an inclusive prefix sum per block (double-buffered tile);
* ``histogram``: a per-block histogram in shared memory with ``pl.atomic_add``, then
  merged into the global one with atomics.

On the CPU backend each block runs its threads as loops between barriers, blocks in
parallel (``pipeline_options={"parallel": True}``). Every result is checked against
numpy; the PTX of the same kernels is produced without a GPU.
Run: ``python examples/block_kernels.py``.
"""

from __future__ import annotations

import time

import numpy as np

import dsl_core as dc
import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")
M = pl.dynamic("M")
K = pl.dynamic("K")
PARALLEL = {"parallel": True}


@pl.kernel
def tiled_matmul_k(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
                   c: pl.Tensor[[M, N], pl.FP32], TILE: dc.Constexpr[int]) -> None:
    ta = pl.shared([TILE, TILE], pl.FP32)
    tb = pl.shared([TILE, TILE], pl.FP32)
    tx = pl.thread_id(0)
    ty = pl.thread_id(1)
    row = pl.block_id(1) * TILE + ty
    col = pl.block_id(0) * TILE + tx
    acc = 0.0
    for k0 in range(0, a.shape[1], TILE):
        va = 0.0
        if row < a.shape[0] and k0 + tx < a.shape[1]:
            va = a[row, k0 + tx]
        ta[ty, tx] = va
        vb = 0.0
        if k0 + ty < b.shape[0] and col < b.shape[1]:
            vb = b[k0 + ty, col]
        tb[ty, tx] = vb
        pl.barrier()
        for kk in range(TILE):
            acc = acc + ta[ty, kk] * tb[kk, tx]
        pl.barrier()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


@jit(pipeline_options=PARALLEL)
def tiled_matmul(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
                 c: pl.Tensor[[M, N], pl.FP32], TILE: dc.Constexpr[int]) -> None:
    tiled_matmul_k(a, b, c, TILE).launch(
        grid=(pl.ceil_div(c.shape[1], TILE), pl.ceil_div(c.shape[0], TILE)),
        block=(TILE, TILE))


@pl.kernel
def block_sum_k(x: pl.Tensor[[N], pl.FP32], sums: pl.Tensor[[M], pl.FP32],
                BLOCK: dc.Constexpr[int], STEPS: dc.Constexpr[int]) -> None:
    t = pl.shared([BLOCK], pl.FP32)
    i = pl.thread_id(0)
    g = pl.block_id(0) * BLOCK + i
    v = 0.0
    if g < x.shape[0]:
        v = x[g]
    t[i] = v
    pl.barrier()
    s = BLOCK // 2
    for _ in range(STEPS):  # log2(BLOCK) halvings
        if i < s:
            t[i] = t[i] + t[i + s]
        pl.barrier()
        s = s // 2
    if i == 0:
        sums[pl.block_id(0)] = t[0]


@jit(pipeline_options=PARALLEL)
def block_sum(x: pl.Tensor[[N], pl.FP32], sums: pl.Tensor[[M], pl.FP32],
              BLOCK: dc.Constexpr[int], STEPS: dc.Constexpr[int]) -> None:
    block_sum_k(x, sums, BLOCK, STEPS).launch(grid=(sums.shape[0],), block=(BLOCK,))


@pl.kernel
def block_scan_k(x: pl.Tensor[[N], pl.INT32], out: pl.Tensor[[N], pl.INT32],
                 BLOCK: dc.Constexpr[int], STEPS: dc.Constexpr[int]) -> None:
    t = pl.shared([2, BLOCK], pl.INT32)
    i = pl.thread_id(0)
    g = pl.block_id(0) * BLOCK + i
    v: pl.Scalar[pl.INT32] = 0
    if g < x.shape[0]:
        v = x[g]
    t[0, i] = v
    pl.barrier()
    src = 0
    offset = 1
    for _ in range(STEPS):
        dst = 1 - src
        w = t[src, i]
        if i >= offset:
            w = w + t[src, i - offset]
        t[dst, i] = w
        pl.barrier()
        src = dst
        offset = offset * 2
    if g < x.shape[0]:
        out[g] = t[src, i]


@jit(pipeline_options=PARALLEL)
def block_scan(x: pl.Tensor[[N], pl.INT32], out: pl.Tensor[[N], pl.INT32],
               BLOCK: dc.Constexpr[int], STEPS: dc.Constexpr[int]) -> None:
    block_scan_k(x, out, BLOCK, STEPS).launch(grid=(pl.ceil_div(x.shape[0], BLOCK),),
                                              block=(BLOCK,))


@pl.kernel
def histogram_k(x: pl.Tensor[[N], pl.INT32], hist: pl.Tensor[[64], pl.INT32],
                PER_THREAD: dc.Constexpr[int]) -> None:
    local = pl.shared([64], pl.INT32)
    i = pl.thread_id(0)
    local[i] = 0
    pl.barrier()
    start = (pl.block_id(0) * 64 + i) * PER_THREAD
    for j in range(PER_THREAD):
        if start + j < x.shape[0]:
            pl.atomic_add(local, x[start + j], 1)
    pl.barrier()
    pl.atomic_add(hist, i, local[i])


@jit(pipeline_options=PARALLEL)
def histogram(x: pl.Tensor[[N], pl.INT32], hist: pl.Tensor[[64], pl.INT32],
              PER_THREAD: dc.Constexpr[int]) -> None:
    histogram_k(x, hist, PER_THREAD).launch(
        grid=(pl.ceil_div(x.shape[0], 64 * PER_THREAD),), block=(64,))


def timed(fn, *args) -> float:  # type: ignore[no-untyped-def]
    fn(*args)  # compile / warm up
    start = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - start) * 1e3


def main() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 192)).astype(np.float32)
    b = rng.standard_normal((192, 160)).astype(np.float32)
    c = np.zeros((256, 160), np.float32)
    ms = timed(tiled_matmul, a, b, c, 16)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    print(f"tiled matmul 256x192 @ 192x160 (16x16 tiles): {ms:.2f} ms, matches numpy")

    x = rng.standard_normal(100_000).astype(np.float32)
    sums = np.zeros(-(-x.size // 256), np.float32)
    ms = timed(block_sum, x, sums, 256, 8)
    np.testing.assert_allclose(sums.astype(np.float64).sum(), x.astype(np.float64).sum(),
                               rtol=1e-4)
    print(f"block sums of 100000 floats (256 per block): {ms:.2f} ms, total matches numpy")

    xi = rng.integers(-3, 9, 10_000).astype(np.int32)
    out = np.zeros_like(xi)
    ms = timed(block_scan, xi, out, 128, 7)
    want = np.concatenate([np.cumsum(xi[i:i + 128]) for i in range(0, xi.size, 128)])
    np.testing.assert_array_equal(out, want)
    print(f"block scans of 10000 ints (128 per block): {ms:.2f} ms, match numpy")

    values = rng.integers(0, 64, 200_000).astype(np.int32)
    hist = np.zeros(64, np.int32)
    histogram(values, hist, 16)
    np.testing.assert_array_equal(hist, np.bincount(values, minlength=64))
    print(f"histogram of 200000 values in 64 bins: matches numpy.bincount "
          f"(max bin {hist.max()})")

    ptx = jit(tiled_matmul.__wrapped__).ptx(a, b, c, 16)
    print(f"PTX of the tiled matmul: {ptx.count('bar.sync')} barriers, "
          f"{ptx.count('ld.shared')} shared loads (no GPU needed)")


if __name__ == "__main__":
    main()
