"""Autotuning a kernel's tile size on the backend in use.

``@autotune`` runs the tiled matmul of ``block_kernels.py`` with each TILE the first time
it sees a shape, keeps the fastest, and records the choice in the disk cache (run this
twice: the second process tunes nothing). TILE=64 needs 64x64 threads per block, more
than a GPU allows: that config fails to compile and is skipped.
Run: ``python examples/autotune.py``.
"""

from __future__ import annotations

import time

import numpy as np
from block_kernels import tiled_matmul

from dsl_runtime import autotune

matmul = autotune(configs=[{"TILE": 4}, {"TILE": 8}, {"TILE": 16}, {"TILE": 64}],
                  key=["a", "b"], rep=3)(tiled_matmul)


def main() -> None:
    rng = np.random.default_rng(0)
    for m, k, n in [(128, 96, 64), (64, 256, 32)]:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        c = np.zeros((m, n), np.float32)
        start = time.perf_counter()
        matmul(a, b, c)
        took = time.perf_counter() - start
        np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
        key = next(k_ for k_ in matmul.choices if k_[0][1] == (m, k))
        tried = matmul.timings.get(key)
        report = ", ".join(f"TILE={cfg['TILE']}: " + ("failed" if ms is None else f"{ms:.2f} ms")
                           for cfg, ms in tried) if tried else "recorded choice, no tuning"
        print(f"{m}x{k} @ {k}x{n}: TILE={matmul.choices[key]['TILE']} ({report}); "
              f"first call {took * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
