"""Element-wise and stencil kernels on the cpu backend: the thread loops vectorized
(``dsl-thread-loops``, the default) and not (``vectorize-thread-loops=false``, one
guarded scalar iteration per thread), beside numpy and numba, one thread each.

Kernels are written as for a GPU: ``i = block_id * block_dim + thread_id; if i < n``.
The 2-D stencil runs with several block shapes: the loop over x is what LLVM
vectorizes, so a wider x extent amortizes each loop's set-up. Best of repeated
medians in milliseconds; compare ratios measured in one run (this machine is noisy).

Run: python bench/thread_loops_bench.py   (make bench installs numba)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import dsl_parser.language as pl
from dsl_core import Constexpr
from dsl_runtime import jit

N = pl.dynamic("N")
M = pl.dynamic("M")


@pl.kernel
def axpy_k(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32],
           n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        z[i] = 2.0 * x[i] + y[i]


def axpy(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32]):
    axpy_k(x, y, z, x.shape[0]).launch(grid=pl.ceil_div(x.shape[0], 256), block=256)


@pl.kernel
def stencil_k(a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32]):
    r = pl.block_id(1) * pl.block_dim(1) + pl.thread_id(1)
    c = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r >= 1 and r < a.shape[0] - 1 and c >= 1 and c < a.shape[1] - 1:
        b[r, c] = 0.25 * (a[r - 1, c] + a[r + 1, c] + a[r, c - 1] + a[r, c + 1])


def stencil(a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32], BX: Constexpr[int],
            BY: Constexpr[int]):
    stencil_k(a, b).launch(grid=(pl.ceil_div(a.shape[1], BX), pl.ceil_div(a.shape[0], BY)),
                           block=(BX, BY))


def best_ms(fn: Callable[[], Any], rounds: int = 5, reps: int = 9) -> float:
    fn()
    medians = []
    for _ in range(rounds):
        samples = []
        for _ in range(reps):
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
        medians.append(statistics.median(samples) * 1e3)
    return min(medians)


def numba_kernels() -> dict[str, Callable[..., Any]] | str:
    try:
        import numba
    except ImportError:
        return "numba not installed"

    @numba.njit(cache=False)
    def nb_axpy(x: Any, y: Any, z: Any) -> None:
        for i in range(x.size):
            z[i] = np.float32(2) * x[i] + y[i]

    @numba.njit(cache=False)
    def nb_stencil(a: Any, b: Any) -> None:
        for r in range(1, a.shape[0] - 1):
            for c in range(1, a.shape[1] - 1):
                b[r, c] = np.float32(0.25) * (a[r - 1, c] + a[r + 1, c] + a[r, c - 1] + a[r, c + 1])

    return {"axpy": nb_axpy, "stencil": nb_stencil}


def main() -> None:
    rng = np.random.default_rng(0)
    peers = numba_kernels()
    fast = {"axpy": jit(axpy), "stencil": jit(stencil)}
    scalar = {name: jit(fn, pipeline_options={"vectorize-thread-loops": False})
              for name, fn in (("axpy", axpy), ("stencil", stencil))}
    rows: list[tuple[str, float, float, float, float | None]] = []

    x = rng.standard_normal(1 << 22).astype(np.float32)
    y = rng.standard_normal(1 << 22).astype(np.float32)
    z = np.empty_like(x)
    fast["axpy"](x, y, z)
    np.testing.assert_allclose(z, 2 * x + y, rtol=1e-6)
    nb = best_ms(lambda: peers["axpy"](x, y, z)) if isinstance(peers, dict) else None
    rows.append(("axpy 2^22 (block 256)", best_ms(lambda: fast["axpy"](x, y, z)),
                 best_ms(lambda: scalar["axpy"](x, y, z)),
                 best_ms(lambda: np.add(np.multiply(x, 2, out=z), y, out=z)), nb))

    a = rng.standard_normal((2048, 2048)).astype(np.float32)
    b = np.zeros_like(a)
    inner = (slice(1, -1), slice(1, -1))

    def numpy_stencil() -> None:
        b[inner] = np.float32(0.25) * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])

    numpy_ms = best_ms(numpy_stencil)
    want = b.copy()
    nb = best_ms(lambda: peers["stencil"](a, b)) if isinstance(peers, dict) else None
    for bx, by in ((256, 1), (64, 4), (32, 8), (16, 16)):
        b.fill(0)
        fast["stencil"](a, b, bx, by)
        np.testing.assert_allclose(b[inner], want[inner], rtol=1e-6)
        rows.append((f"5-point stencil 2048^2 (block {bx}x{by})",
                     best_ms(lambda bx=bx, by=by: fast["stencil"](a, b, bx, by)),
                     best_ms(lambda bx=bx, by=by: scalar["stencil"](a, b, bx, by)), numpy_ms, nb))

    print("| kernel (cpu backend, 1 thread) | dsl ms | dsl, thread loops not vectorized | "
          "numpy ms | numba ms | numpy / dsl | numba / dsl |")
    print("|---|---|---|---|---|---|---|")
    for name, d, s, n, nb_ms in rows:
        peer = f"{nb_ms:.3f}" if nb_ms is not None else peers
        ratio = f"{nb_ms / d:.2f}x" if nb_ms is not None else "n/a"
        print(f"| {name} | {d:.3f} | {s:.3f} | {n:.3f} | {peer} | {n / d:.2f}x | {ratio} |")


if __name__ == "__main__":
    main()
