# mypy: allow-untyped-calls
"""Layer norm + projection over an array larger than a chunk, on a dask.distributed cluster.

A ``@jit`` function is passed to ``dask.array.map_blocks`` like any Python function: it
pickles (by value here, since it lives in ``__main__``; by reference when it is defined in
an importable module), and each worker process compiles it once, or, with a shared cache
(``DSL_CACHE_BACKEND=redis://...`` and ``DSL_CACHE_KEY``), loads the code this process
compiled instead of compiling it again. See docs/distributed.md.

Run: python examples/dask_pipeline.py            (a LocalCluster of 2 worker processes)
     DSL_CACHE_BACKEND=redis://127.0.0.1:6379/0 DSL_CACHE_KEY=... python examples/dask_pipeline.py
"""

from __future__ import annotations

import json
from typing import Any, cast

import numpy as np

import dsl_parser.language as pl
import dsl_runtime
from dsl_runtime import cache, jit

M = pl.dynamic("M")
D = 256
H = 64


@jit
def norm_project(x: pl.Tensor[[M, D], pl.FP32], gamma: pl.Tensor[[D], pl.FP32],
                 beta: pl.Tensor[[D], pl.FP32],
                 w: pl.Tensor[[D, H], pl.FP32]) -> pl.Tensor[[M, H], pl.FP32]:
    centered = x - pl.mean(x, axis=1, keepdim=True)
    var = pl.mean(centered * centered, axis=1, keepdim=True)
    return pl.matmul(centered * pl.rsqrt(var + 1e-5) * gamma + beta, w)


def reference(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, w: np.ndarray) -> np.ndarray:
    centered = x - x.mean(axis=1, keepdims=True)
    var = (centered * centered).mean(axis=1, keepdims=True)
    return (centered / np.sqrt(var + 1e-5) * gamma + beta) @ w  # type: ignore[no-any-return]


def main() -> None:
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    rng = np.random.default_rng(0)
    gamma, beta = rng.standard_normal((2, D)).astype(np.float32)
    w = (rng.standard_normal((D, H)) / 16).astype(np.float32)
    sample = rng.standard_normal((4, D)).astype(np.float32)
    # Compiled here first: with a shared cache, the workers load this compile.
    np.testing.assert_allclose(norm_project(sample, gamma, beta, w),
                               reference(sample, gamma, beta, w), rtol=1e-4, atol=1e-4)
    cache.flush()  # published before the workers look for it

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster, \
            Client(cluster) as client:
        # 20,000 rows made on the workers, in 8 blocks of 2,500 rows.
        random: Any = da.random.default_rng(1)
        blocks = random.standard_normal((20_000, D), chunks=(2_500, D), dtype=np.float32)
        out = blocks.map_blocks(norm_project, gamma, beta, w, chunks=(2_500, H),
                                dtype=np.float32)
        x, result = da.compute(blocks, out)
        # One call as a task of its own (client.submit), on the first block.
        first = client.submit(norm_project, x[:2_500], gamma, beta, w).result()
        np.testing.assert_array_equal(first, result[:2_500])
        per_worker = cast("dict[str, dict[str, int]]", client.run(dsl_runtime.cache_stats))
    np.testing.assert_allclose(result, reference(x, gamma, beta, w), rtol=1e-4, atol=1e-4)
    compiles = {addr.rsplit(":", 1)[-1]: s.get("compiles", 0) for addr, s in per_worker.items()}
    print(f"{result.shape[0]} rows in {blocks.numblocks[0]} blocks on {len(per_worker)} workers; "
          f"compiles per worker {compiles}")
    print("report", json.dumps({"client": dsl_runtime.cache_stats(),
                                "workers": list(per_worker.values())}))
    print("dask_pipeline ok")


if __name__ == "__main__":
    main()
