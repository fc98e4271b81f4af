"""Mandelbrot: a kernel that stops early, with ``while``, ``break`` and an early ``return``.

Each thread iterates one pixel until it escapes (``break``) or reaches ``max_iter``;
threads past the image's end return at once. The CPU backend runs it (blocks in
parallel with ``pipeline_options={"parallel": True}``); the PTX of the same kernel is printed, no GPU needed.
The image is checked against a numpy reference and drawn in ASCII.
Run: ``python examples/mandelbrot.py``.
"""

from __future__ import annotations

import numpy as np

import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")


@pl.kernel
def mandelbrot_k(cr: pl.Tensor[[N], pl.FP32], ci: pl.Tensor[[N], pl.FP32],
                 out: pl.Tensor[[N], pl.INT32], max_iter: pl.Scalar[pl.INT32]) -> None:
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i >= out.shape[0]:
        return
    x = 0.0
    y = 0.0
    n: pl.Scalar[pl.INT32] = 0
    while n < max_iter:
        if x * x + y * y > 4.0:
            break
        t = x * x - y * y + cr[i]
        y = 2.0 * x * y + ci[i]
        x = t
        n = n + 1
    out[i] = n


@jit(pipeline_options={"parallel": True})
def mandelbrot(cr: pl.Tensor[[N], pl.FP32], ci: pl.Tensor[[N], pl.FP32],
               out: pl.Tensor[[N], pl.INT32], max_iter: pl.Scalar[pl.INT32]) -> None:
    mandelbrot_k(cr, ci, out, max_iter).launch(grid=(pl.ceil_div(out.shape[0], 128),),
                                               block=(128,))


def reference(cr: np.ndarray, ci: np.ndarray, max_iter: int) -> np.ndarray:
    """The same iteration in numpy, every pixel at once (float32, same operation order)."""
    x, y = np.zeros_like(cr), np.zeros_like(ci)
    n = np.zeros(cr.shape, np.int32)
    active = np.ones(cr.shape, bool)
    for _ in range(max_iter):
        active &= x * x + y * y <= np.float32(4)
        t = x * x - y * y + cr
        y = np.where(active, np.float32(2) * x * y + ci, y)
        x = np.where(active, t, x)
        n += active
    return n


def main() -> None:
    height, width, max_iter = 24, 64, 80
    re, im = np.meshgrid(np.linspace(-2.2, 0.8, width, dtype=np.float32),
                         np.linspace(-1.2, 1.2, height, dtype=np.float32))
    cr, ci = re.ravel().copy(), im.ravel().copy()
    out = np.zeros(cr.size, np.int32)
    mandelbrot(cr, ci, out, max_iter)
    want = reference(cr, ci, max_iter)
    np.testing.assert_array_equal(out, want)
    image = out.reshape(height, width)
    for row in image:
        print("".join(" .:-=+*#%@"[min(9, v * 10 // max_iter)] for v in row))
    print(f"{(out == max_iter).sum()} of {out.size} points stay bounded")
    ptx = jit(mandelbrot.__wrapped__).ptx(cr, ci, out, max_iter)
    print(f"PTX of mandelbrot_k: {ptx.count(chr(10))} lines, "
          f"{ptx.count('bra')} branches (no GPU needed to produce it)")


if __name__ == "__main__":
    main()
