"""Kernels with shared memory and barriers (block-level tests)."""

from __future__ import annotations

import sys
from pathlib import Path

import dsl_parser.language as pl

N = pl.dynamic("N")


@pl.kernel
def reverse_k(x: pl.Tensor[[N], pl.FP32], out: pl.Tensor[[N], pl.FP32]):
    """Each block reverses its 64 elements through shared memory."""
    t = pl.shared([64], pl.FP32)
    i = pl.thread_id(0)
    g = pl.block_id(0) * 64 + i
    t[i] = x[g]
    pl.barrier()
    out[g] = t[63 - i]


def reverse(x: pl.Tensor[[N], pl.FP32], out: pl.Tensor[[N], pl.FP32]):
    reverse_k(x, out).launch(grid=(x.shape[0] // 64,), block=(64,))


# The tiled matmul, the tree reduction, the block scan and the histogram are those of
# examples/block_kernels.py, the softmax and layer norm those of examples/row_kernels.py
# (their undecorated host functions, so that each test decorates them as it needs).
_EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
if str(_EXAMPLES) not in sys.path:
    sys.path.insert(0, str(_EXAMPLES))
import block_kernels as _ex  # noqa: E402
import row_kernels as _rows  # noqa: E402

block_sum = _ex.block_sum.__wrapped__
tiled_matmul = _ex.tiled_matmul.__wrapped__
scan = _ex.block_scan.__wrapped__
histogram = _ex.histogram.__wrapped__
softmax = _rows.softmax.__wrapped__
layer_norm = _rows.layer_norm.__wrapped__
softmax_reference = _rows.softmax_reference
layer_norm_reference = _rows.layer_norm_reference


@pl.kernel
def shuffles_k(x: pl.Tensor[[N], pl.INT32], out: pl.Tensor[[5, N], pl.INT32]):
    """Each shuffle mode, and the lane id, written per thread."""
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    v = x[i]
    out[0, i] = pl.shuffle_xor(v, 5)
    out[1, i] = pl.shuffle_down(v, 3)
    out[2, i] = pl.shuffle_up(v, 2)
    out[3, i] = pl.shuffle_idx(v, 7)
    out[4, i] = pl.cast(pl.lane_id(), pl.INT32) + pl.warp_size() * 0


def shuffles(x: pl.Tensor[[N], pl.INT32], out: pl.Tensor[[5, N], pl.INT32]):
    shuffles_k(x, out).launch(grid=(x.shape[0] // 64,), block=(64,))


@pl.kernel
def warp_stats_k(x: pl.Tensor[[N], pl.FP32], out: pl.Tensor[[3, N], pl.FP32]):
    """Warp reductions: every lane gets the warp's sum, max and min."""
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    v = x[i]
    out[0, i] = pl.warp_sum(v)
    out[1, i] = pl.warp_max(v)
    out[2, i] = pl.warp_min(v)


def warp_stats(x: pl.Tensor[[N], pl.FP32], out: pl.Tensor[[3, N], pl.FP32]):
    warp_stats_k(x, out).launch(grid=(x.shape[0] // 64,), block=(64,))
