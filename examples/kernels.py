"""Kernels and launches: a vector add, a 2-D transpose and a row reduction.

Each ``@pl.kernel`` is launched from a ``@jit`` host function. On the ``cpu``
backend (the default, everywhere) a launch runs as loops over grid and block;
with ``backend="nvptx"`` the same functions launch PTX on a GPU (given device
arrays, e.g. ``DeviceArray.from_numpy``). The PTX is printed either way: it
needs no GPU to produce. Run: ``python examples/kernels.py``.
"""

from __future__ import annotations

import time

import numpy as np

import dsl_core as dc
import dsl_parser.language as pl
from dsl_runtime import DeviceArray, jit

N = pl.dynamic("N")
M = pl.dynamic("M")


@pl.kernel
def vadd_k(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32],
           n: pl.Scalar[pl.INDEX]) -> None:
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        z[i] = x[i] + y[i]


@jit
def vadd(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32],
         stream: dc.Stream) -> None:
    vadd_k(x, y, z, x.shape[0]).launch(grid=(pl.ceil_div(x.shape[0], 256),), block=(256,),
                                       stream=stream)


@pl.kernel
def transpose_k(a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[N, M], pl.FP32]) -> None:
    r = pl.block_id(1) * pl.block_dim(1) + pl.thread_id(1)
    c = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r < a.shape[0] and c < a.shape[1]:
        b[c, r] = a[r, c]


@jit
def transpose(a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[N, M], pl.FP32]) -> None:
    transpose_k(a, b).launch(grid=(pl.ceil_div(a.shape[1], 16), pl.ceil_div(a.shape[0], 16)),
                             block=(16, 16))


@pl.kernel
def row_sum_k(a: pl.Tensor[[M, N], pl.FP32], s: pl.Tensor[[M], pl.FP32]) -> None:
    r = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if r < a.shape[0]:
        acc = 0.0
        for j in range(0, a.shape[1]):
            acc = acc + a[r, j]
        s[r] = acc


@jit
def row_sum(a: pl.Tensor[[M, N], pl.FP32], s: pl.Tensor[[M], pl.FP32]) -> None:
    row_sum_k(a, s).launch(grid=pl.ceil_div(a.shape[0], 128), block=128)


def main() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(100_000).astype(np.float32), rng.standard_normal(100_000).astype(np.float32)
    z = np.zeros_like(x)
    start = time.perf_counter()
    vadd(x, y, z, dc.Stream())  # the default stream
    print(f"vadd (cpu backend): first call {1e3 * (time.perf_counter() - start):.1f} ms")
    np.testing.assert_array_equal(z, x + y)

    a = rng.standard_normal((300, 257)).astype(np.float32)
    b = np.zeros((257, 300), np.float32)
    transpose(a, b)
    np.testing.assert_array_equal(b, a.T)

    s = np.zeros(300, np.float32)
    row_sum(a, s)
    np.testing.assert_allclose(s, a.sum(axis=1), rtol=1e-4, atol=1e-4)
    print("vadd, transpose, row_sum: equal to numpy")

    ptx = vadd.ptx(x, y, z, dc.Stream())
    entry = next(line for line in ptx.splitlines() if ".entry" in line)
    print(f"PTX for the nvptx backend ({len(ptx.splitlines())} lines): {entry.strip()}")

    from dsl_mlir import gpu

    if gpu.device_count():
        on_gpu = jit(vadd.__wrapped__, backend="nvptx")
        dz = DeviceArray.empty(x.shape, x.dtype)
        # pl.Tensor parameters are numpy arrays to a type checker; device arrays work too
        on_gpu(DeviceArray.from_numpy(x), DeviceArray.from_numpy(y), dz,  # type: ignore[call-overload]
               dc.Stream())
        gpu.synchronize()
        np.testing.assert_array_equal(dz.to_numpy(), x + y)
        print("vadd (nvptx backend): equal to numpy")
    else:
        print(f"no GPU here ({gpu.status()}): the nvptx backend was not run")


if __name__ == "__main__":
    main()
