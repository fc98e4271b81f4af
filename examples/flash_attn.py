"""The seed's simplified flash-attention loop, made shape-correct, run through @jit.

The seed's listing declares `scores` as 64x128 and adds f16 scores to an f32
accumulator; here scores are q @ k_block^T (64x64) cast to f32 before the
accumulation, so that the program type-checks. Checked against numpy.
"""

# The loop result `final` is bound by pl.yield_ inside pl.range (strict SSA: it cannot be
# bound before the loop); pyright calls it "possibly unbound" (docs/runtime.md).
# pyright: reportPossiblyUnboundVariable=false

from __future__ import annotations

import numpy as np

import dsl_parser.language as pl
from dsl_runtime import jit


@jit
def flash_attn_simplified(
    q: pl.Tensor[[64, 128], pl.FP16],
    k: pl.Tensor[[1024, 128], pl.FP16],
) -> pl.Tensor[[64, 64], pl.FP32]:
    attn_init: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)

    for i, (attn,) in pl.range(16, init_values=(attn_init,)):
        k_block: pl.Tensor[[64, 128], pl.FP16] = pl.slice(k, [64, 128], [i * 64, 0])
        scores: pl.Tensor[[64, 64], pl.FP16] = pl.matmul(q, k_block, b_trans=True)
        scores32: pl.Tensor[[64, 64], pl.FP32] = pl.cast(scores, target_type=pl.FP32)

        if i == 0:
            result = pl.yield_(scores32)
        else:
            updated: pl.Tensor[[64, 64], pl.FP32] = pl.add(attn, scores32)
            result = pl.yield_(updated)

        final = pl.yield_(result)

    return final


rng = np.random.default_rng(0)
q = (rng.standard_normal((64, 128)) * 0.1).astype(np.float16)
k = (rng.standard_normal((1024, 128)) * 0.1).astype(np.float16)
got = flash_attn_simplified(q, k)
blocks = [(q.astype(np.float32) @ k[i * 64:(i + 1) * 64].astype(np.float32).T)
          .astype(np.float16).astype(np.float32) for i in range(16)]
np.testing.assert_allclose(got, np.sum(blocks, axis=0), rtol=1e-2, atol=1e-2)
print("flash_attn_simplified ok:", got.shape, float(got.sum()))
