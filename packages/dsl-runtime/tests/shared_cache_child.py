"""Run by test_runtime_shared_cache.py in fresh processes: one call of a module-level
@jit function, printed as JSON (result, where the code came from, the cache counters)."""

from __future__ import annotations

import json
import sys

import numpy as np

import dsl_parser.language as pl
import dsl_runtime
from dsl_runtime import cache, jit

N = pl.dynamic("N")


@jit
def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return x * 2.0 + y


@jit
def shifted(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return x - y + 1.0


if __name__ == "__main__":
    fn = {"scale_add": scale_add, "shifted": shifted}[sys.argv[1]]
    x = np.arange(6, dtype=np.float32)
    y = np.full(6, 0.5, np.float32)
    result = fn(x, y)
    source = fn.compile(x, y).source
    cache.flush()  # the entry is written (and published) before the counters are read
    print(json.dumps({"result": result.tolist(), "source": source,
                      "stats": dsl_runtime.cache_stats()}))
