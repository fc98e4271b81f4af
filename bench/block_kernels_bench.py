"""Ported GPU kernels on the CPU backend: tiled matmul (the autotuner's tile), block
reduction, block scan, privatized histogram (shared memory, barriers, atomics), fused
softmax and layer norm (a block per row) and a Mandelbrot (while/break), against numpy
and numba in the same run.

Medians of repeated calls, in milliseconds, blocks in parallel
(``pipeline_options={"parallel": True}``). Compare ratios measured in one run (this
machine is noisy). The work-item loops of the CPU backend are not vectorized yet: this
table is where that shows.

Run: python bench/block_kernels_bench.py   (make bench installs numba)
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import block_kernels as bk  # noqa: E402
import mandelbrot as mb  # noqa: E402
import row_kernels as rk  # noqa: E402

from dsl_runtime import autotune  # noqa: E402


def ms(fn: Callable[[], Any], rounds: int = 7) -> float:
    fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def numba_versions() -> dict[str, Callable[..., Any]] | str:
    try:
        import numba
    except ImportError:
        return "numba not installed"

    @numba.njit(parallel=True, cache=False)
    def matmul(a: Any, b: Any) -> Any:
        return a @ b

    @numba.njit(cache=False)
    def total(x: Any) -> Any:
        s = 0.0
        for v in x:
            s += v
        return s

    @numba.njit(cache=False)
    def histogram(x: Any) -> Any:
        h = np.zeros(64, np.int32)
        for v in x:
            h[v] += 1
        return h

    @numba.njit(parallel=True, cache=False)
    def mandel(cr: Any, ci: Any, m: int) -> Any:
        out = np.zeros(cr.size, np.int32)
        for i in numba.prange(cr.size):
            x = y = np.float32(0)
            n = 0
            while n < m and x * x + y * y <= 4:
                x, y = x * x - y * y + cr[i], np.float32(2) * x * y + ci[i]
                n += 1
            out[i] = n
        return out

    return {"matmul": matmul, "sum": total, "histogram": histogram, "mandelbrot": mandel}


def main() -> None:
    rng = np.random.default_rng(0)
    peers = numba_versions()
    rows: list[tuple[str, float, float, float | None]] = []

    a = rng.standard_normal((256, 256)).astype(np.float32)
    b = rng.standard_normal((256, 256)).astype(np.float32)
    c = np.zeros((256, 256), np.float32)
    tuned = autotune(configs=[{"TILE": 8}, {"TILE": 16}, {"TILE": 32}], key=["a", "b"],
                     rep=3)(bk.tiled_matmul)
    dsl = ms(lambda: tuned(a, b, c))
    tile = next(iter(tuned.choices.values()))["TILE"]
    nb = ms(lambda: peers["matmul"](a, b)) if isinstance(peers, dict) else None
    rows.append((f"tiled matmul 256^3 (TILE={tile})", dsl, ms(lambda: a @ b), nb))

    x = rng.standard_normal(1 << 20).astype(np.float32)
    sums = np.zeros((1 << 20) // 256, np.float32)
    dsl = ms(lambda: bk.block_sum(x, sums, 256, 8))
    nb = ms(lambda: peers["sum"](x)) if isinstance(peers, dict) else None
    rows.append(("block sums of 2^20 floats", dsl, ms(lambda: x.sum()), nb))

    xi = rng.integers(-3, 9, 1 << 18).astype(np.int32)
    out = np.zeros_like(xi)
    dsl = ms(lambda: bk.block_scan(xi, out, 128, 7))
    rows.append(("block scans of 2^18 ints", dsl, ms(lambda: np.cumsum(xi)), None))

    values = rng.integers(0, 64, 1 << 20).astype(np.int32)
    hist = np.zeros(64, np.int32)
    dsl = ms(lambda: (hist.fill(0), bk.histogram(values, hist, 16)))
    nb = ms(lambda: peers["histogram"](values)) if isinstance(peers, dict) else None
    rows.append(("histogram of 2^20 values", dsl, ms(lambda: np.bincount(values, minlength=64)),
                 nb))

    rows_x = rng.standard_normal((1024, 1024)).astype(np.float32)
    rows_y = np.zeros_like(rows_x)
    dsl = ms(lambda: rk.softmax(rows_x, rows_y, 128, 7))
    rows.append(("softmax 1024x1024 (a block per row)", dsl,
                 ms(lambda: rk.softmax_reference(rows_x)), None))
    w = rng.standard_normal(1024).astype(np.float32)
    bias = rng.standard_normal(1024).astype(np.float32)
    dsl = ms(lambda: rk.layer_norm(rows_x, w, bias, rows_y, 1e-5, 128, 7))
    rows.append(("layer norm 1024x1024", dsl,
                 ms(lambda: rk.layer_norm_reference(rows_x, w, bias, 1e-5)), None))

    re, im = np.meshgrid(np.linspace(-2.2, 0.8, 256, dtype=np.float32),
                         np.linspace(-1.2, 1.2, 256, dtype=np.float32))
    cr, ci = re.ravel().copy(), im.ravel().copy()
    counts = np.zeros(cr.size, np.int32)
    dsl = ms(lambda: mb.mandelbrot(cr, ci, counts, 100))
    nb = ms(lambda: peers["mandelbrot"](cr, ci, 100)) if isinstance(peers, dict) else None
    rows.append(("mandelbrot 256x256, 100 iterations", dsl,
                 ms(lambda: mb.reference(cr, ci, 100), rounds=3), nb))

    print("| kernel (cpu backend) | dsl ms | numpy ms | numba ms | dsl time / numpy time |")
    print("|---|---|---|---|---|")
    for name, d, n, nb_ms in rows:
        peer = f"{nb_ms:.3f}" if nb_ms is not None else (peers if isinstance(peers, str)
                                                          else "n/a")
        print(f"| {name} | {d:.3f} | {n:.3f} | {peer} | {d / n:.2f}x |")


if __name__ == "__main__":
    main()
