"""Shared memory and barriers: kernels ported from the usual GPU exercises (a reversal,
a tree reduction, a tiled matmul, a block scan) against numpy on the CPU backend (blocks
serial and in parallel), under the interpreter, and through ptxas (root conftest)."""

from __future__ import annotations

import numpy as np
import pytest
import runtime_block_defs as d

import dsl_parser.language as pl
from dsl_parser.errors import ParserError
from dsl_runtime import jit

VARIANTS = {
    "serial": lambda f: jit(f),
    "parallel": lambda f: jit(f, pipeline_options={"parallel": True}),
    "interpret": lambda f: jit(f, backend="interpret"),
    "boundscheck": lambda f: jit(f, boundscheck=True),
}


@pytest.mark.parametrize("how", list(VARIANTS))
def test_reverse_through_shared_memory(how: str) -> None:
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(256, np.float32)
    VARIANTS[how](d.reverse)(x, out)
    np.testing.assert_array_equal(out, x.reshape(4, 64)[:, ::-1].ravel())
    np.testing.assert_array_equal(x, np.arange(256, dtype=np.float32))


@pytest.mark.parametrize("how", list(VARIANTS))
def test_tree_reduction_with_barriers_in_a_loop(how: str) -> None:
    rng = np.random.default_rng(1)
    n = 1000 if how != "interpret" else 300
    x = rng.standard_normal(n).astype(np.float32)
    blocks = -(-n // 128)
    sums = np.full(blocks, np.nan, np.float32)
    VARIANTS[how](d.block_sum)(x, sums, 128, 7)
    want = [x[i * 128:(i + 1) * 128].astype(np.float64).sum() for i in range(blocks)]
    np.testing.assert_allclose(sums, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("how", list(VARIANTS))
@pytest.mark.parametrize(("m", "k", "n", "tile"), [(33, 45, 20, 8), (16, 16, 16, 16), (5, 3, 7, 4)])
def test_tiled_matmul(how: str, m: int, k: int, n: int, tile: int) -> None:
    if how == "interpret" and m * n > 400:
        pytest.skip("the interpreter runs one Python thread per GPU thread: small sizes")
    rng = np.random.default_rng(m * 100 + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    VARIANTS[how](d.tiled_matmul)(a, b, c, tile)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("how", list(VARIANTS))
def test_block_scan(how: str) -> None:
    rng = np.random.default_rng(2)
    n = 300 if how != "interpret" else 100
    x = rng.integers(-5, 10, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    VARIANTS[how](d.scan)(x, out, 64, 6)
    want = np.concatenate([np.cumsum(x[i:i + 64]) for i in range(0, n, 64)]).astype(np.int32)
    np.testing.assert_array_equal(out, want)


def test_the_ptx_of_block_kernels_assembles() -> None:
    """Shared memory is .shared, barriers bar.sync (the conftest runs ptxas on it)."""
    a = np.zeros((16, 16), np.float32)
    ptx = jit(d.tiled_matmul).ptx(a, a, a, 8)
    assert ".shared" in ptx and "bar.sync" in ptx
    x = np.zeros(128, np.float32)
    assert "bar.sync" in jit(d.block_sum).ptx(x, np.zeros(1, np.float32), 128, 7)
    assert "bar.sync" in jit(d.scan).ptx(np.zeros(64, np.int32), np.zeros(64, np.int32), 64, 6)


@pl.kernel
def _divergent_k(x: pl.Tensor[[64], pl.FP32]):
    t = pl.shared([64], pl.FP32)
    i = pl.thread_id(0)
    if i < 32:
        t[i] = x[i]
        pl.barrier()


def _divergent(x: pl.Tensor[[64], pl.FP32]):
    _divergent_k(x).launch(grid=(1,), block=(64,))


@pl.kernel
def _early_return_k(x: pl.Tensor[[64], pl.FP32]):
    i = pl.thread_id(0)
    if i >= 60:
        return
    pl.barrier()
    x[i] = 1.0


def _early_return(x: pl.Tensor[[64], pl.FP32]):
    _early_return_k(x).launch(grid=(1,), block=(64,))


@pl.kernel
def _thread_dependent_loop_k(x: pl.Tensor[[64], pl.FP32]):
    i = pl.thread_id(0)
    for _ in range(i):
        pl.barrier()
    x[i] = 1.0


def _thread_dependent_loop(x: pl.Tensor[[64], pl.FP32]):
    _thread_dependent_loop_k(x).launch(grid=(1,), block=(64,))


@pl.kernel
def _too_big_k(x: pl.Tensor[[64], pl.FP32]):
    t = pl.shared([128, 128], pl.FP32)
    t[0, 0] = x[0]


def _too_big(x: pl.Tensor[[64], pl.FP32]):
    _too_big_k(x).launch(grid=(1,), block=(1,))


def test_block_misuse_is_an_error_at_the_users_line() -> None:
    x = np.zeros(64, np.float32)
    with pytest.raises(ParserError, match=r"pl.barrier\(\) inside an if/else branch: every "
                                          r"thread of the block must reach the same barriers"):
        jit(_divergent)(x)
    with pytest.raises(ParserError, match=r"pl.barrier\(\) inside an if/else branch"):
        jit(_early_return)(x)  # the early return puts the rest under a branch
    with pytest.raises(ParserError, match=r"the kernel's shared memory would be 65536 bytes, "
                                          r"more than the 49152 a block may use"):
        jit(_too_big)(x)
    with pytest.raises(ParserError, match=r"the cpu backend needs every thread of the block to "
                                          r"compute this alike .* depends on the thread id") \
            as info:
        jit(_thread_dependent_loop)(x)
    assert "test_runtime_blocks.py:" in str(info.value) and "range(i)" in str(info.value)

    def host(x: pl.Tensor[[64], pl.FP32]):
        t = pl.shared([4], pl.FP32)  # noqa: F841

    with pytest.raises(ParserError, match=r"pl.shared is only available inside a @pl.kernel, "
                                          r"not in a function"):
        jit(host)(x)


@pytest.mark.parametrize("how", ["serial", "parallel", "boundscheck"])
def test_privatized_histogram_in_shared_memory(how: str) -> None:
    rng = np.random.default_rng(3)
    values = rng.integers(0, 64, 20_000).astype(np.int32)
    hist = np.zeros(64, np.int32)
    VARIANTS[how](d.histogram)(values, hist, 8)
    np.testing.assert_array_equal(hist, np.bincount(values, minlength=64))


def _shuffle_reference(x: np.ndarray) -> np.ndarray:
    out = np.zeros((5, x.size), np.int32)
    for i in range(x.size):
        lane, base = i % 32, i - i % 32
        sources = [lane ^ 5, lane + 3, lane - 2, 7]
        out[:4, i] = [x[base + s] if 0 <= s < 32 else x[i] for s in sources]
        out[4, i] = lane
    return out


@pytest.mark.parametrize("how", list(VARIANTS))
def test_warp_shuffles(how: str) -> None:
    x = (np.arange(128, dtype=np.int32) * 7) % 100
    out = np.zeros((5, 128), np.int32)
    VARIANTS[how](d.shuffles)(x, out)
    np.testing.assert_array_equal(out, _shuffle_reference(x))


@pytest.mark.parametrize("how", list(VARIANTS))
def test_warp_reductions(how: str) -> None:
    rng = np.random.default_rng(9)
    x = rng.standard_normal(128).astype(np.float32)
    out = np.zeros((3, 128), np.float32)
    VARIANTS[how](d.warp_stats)(x, out)
    warps = x.reshape(4, 32)
    np.testing.assert_allclose(out[0], np.repeat(warps.sum(axis=1), 32), rtol=1e-5)
    np.testing.assert_array_equal(out[1], np.repeat(warps.max(axis=1), 32))
    np.testing.assert_array_equal(out[2], np.repeat(warps.min(axis=1), 32))


def test_the_ptx_of_warp_operations_assembles() -> None:
    x = np.zeros(64, np.int32)
    ptx = jit(d.shuffles).ptx(x, np.zeros((5, 64), np.int32))
    assert "shfl.sync" in ptx
    assert "shfl.sync.bfly" in jit(d.warp_stats).ptx(np.zeros(64, np.float32),
                                                     np.zeros((3, 64), np.float32))


@pl.kernel
def _divergent_shuffle_k(x: pl.Tensor[[64], pl.FP32]):
    i = pl.thread_id(0)
    if i < 16:
        x[i] = pl.shuffle_xor(x[i], 1)


def _divergent_shuffle(x: pl.Tensor[[64], pl.FP32]):
    _divergent_shuffle_k(x).launch(grid=(1,), block=(64,))


@pl.kernel
def _wide_shuffle_k(x: pl.Tensor[[64], pl.FP64]):
    i = pl.thread_id(0)
    x[i] = pl.shuffle_xor(x[i], 1)


def _wide_shuffle(x: pl.Tensor[[64], pl.FP64]):
    _wide_shuffle_k(x).launch(grid=(1,), block=(64,))


def test_warp_misuse_is_an_error_at_the_call() -> None:
    with pytest.raises(ParserError, match=r"pl.shuffle_xor inside an if/else branch: every "
                                          r"lane of the warp must reach the same shuffles"):
        jit(_divergent_shuffle)(np.zeros(64, np.float32))
    with pytest.raises(ParserError, match=r"pl.shuffle_xor takes a 32-bit scalar \(int32, "
                                          r"uint32, float32\), got pl.Scalar\[pl.FP64\]"):
        jit(_wide_shuffle)(np.zeros(64, np.float64))


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["matmul", "sum", "scan", "histogram", "shuffles", "warps",
                                   "atomics", "mandelbrot", "softmax"])
def test_block_kernels_on_a_real_gpu(which: str) -> None:
    """The same kernels on the nvptx backend with device arrays (ci/gpu_checks.sh)."""
    import dsl_runtime
    from dsl_mlir import gpu

    if gpu.device_count() == 0:
        pytest.skip(f"no GPU: {gpu.status()}")
    D = dsl_runtime.DeviceArray
    rng = np.random.default_rng(11)

    def run(fn: object, *args: object) -> None:
        jit(fn, backend="nvptx")(*args)
        gpu.synchronize()

    if which == "matmul":
        a = rng.standard_normal((70, 45)).astype(np.float32)
        b = rng.standard_normal((45, 33)).astype(np.float32)
        dc_ = D.empty((70, 33), np.float32)
        run(d.tiled_matmul, D.from_numpy(a), D.from_numpy(b), dc_, 16)
        np.testing.assert_allclose(dc_.to_numpy(), a @ b, rtol=1e-4, atol=1e-4)
    elif which == "sum":
        x = rng.standard_normal(1000).astype(np.float32)
        ds = D.empty((8,), np.float32)
        run(d.block_sum, D.from_numpy(x), ds, 128, 7)
        want = [x[i * 128:(i + 1) * 128].sum() for i in range(8)]
        np.testing.assert_allclose(ds.to_numpy(), want, rtol=1e-4, atol=1e-4)
    elif which == "scan":
        x = rng.integers(-5, 10, 300).astype(np.int32)
        do = D.empty((300,), np.int32)
        run(d.scan, D.from_numpy(x), do, 64, 6)
        want = np.concatenate([np.cumsum(x[i:i + 64]) for i in range(0, 300, 64)])
        np.testing.assert_array_equal(do.to_numpy(), want)
    elif which == "histogram":
        values = rng.integers(0, 64, 20_000).astype(np.int32)
        dh = D.from_numpy(np.zeros(64, np.int32))
        run(d.histogram, D.from_numpy(values), dh, 8)
        np.testing.assert_array_equal(dh.to_numpy(), np.bincount(values, minlength=64))
    elif which == "shuffles":
        x = (np.arange(128, dtype=np.int32) * 7) % 100
        do = D.from_numpy(np.zeros((5, 128), np.int32))
        run(d.shuffles, D.from_numpy(x), do)
        np.testing.assert_array_equal(do.to_numpy(), _shuffle_reference(x))
    elif which == "warps":
        x = rng.standard_normal(128).astype(np.float32)
        do = D.from_numpy(np.zeros((3, 128), np.float32))
        run(d.warp_stats, D.from_numpy(x), do)
        np.testing.assert_allclose(do.to_numpy()[0], np.repeat(x.reshape(4, 32).sum(1), 32),
                                   rtol=1e-5)
    elif which == "softmax":
        x = (rng.standard_normal((9, 500)) * 3).astype(np.float32)
        dy = D.empty(x.shape, np.float32)
        run(d.softmax, D.from_numpy(x), dy, 128, 7)
        np.testing.assert_allclose(dy.to_numpy(), d.softmax_reference(x), rtol=1e-4, atol=1e-6)
    elif which == "atomics":
        import runtime_flow_defs as f

        x = rng.integers(0, 37, 5000).astype(np.int32)
        bins, first = D.from_numpy(np.zeros(40, np.int32)), D.from_numpy(np.full(40, -1, np.int32))
        run(f.histogram, D.from_numpy(x), bins, first)
        np.testing.assert_array_equal(bins.to_numpy(), np.bincount(x, minlength=40))
    else:
        import runtime_flow_defs as f

        cr = np.linspace(-2, 1, 300, dtype=np.float32)
        ci = np.linspace(-1.2, 1.2, 300, dtype=np.float32)
        do = D.empty((300,), np.int32)
        run(f.mandelbrot, D.from_numpy(cr), D.from_numpy(ci), do, 60)
        host = np.zeros(300, np.int32)
        jit(f.mandelbrot)(cr, ci, host, 60)
        np.testing.assert_array_equal(do.to_numpy(), host)


@pytest.mark.parametrize("how", list(VARIANTS))
@pytest.mark.parametrize("shape", [(5, 300), (3, 64), (2, 7)])
def test_softmax_and_layer_norm_rows(how: str, shape: tuple[int, int]) -> None:
    if how == "interpret" and shape[1] > 64:
        pytest.skip("the interpreter runs one Python thread per GPU thread: small sizes")
    rng = np.random.default_rng(shape[1])
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    before = x.copy()
    block, steps = (64, 6) if how == "interpret" else (128, 7)
    y = np.full(shape, np.nan, np.float32)
    VARIANTS[how](d.softmax)(x, y, block, steps)
    np.testing.assert_allclose(y, d.softmax_reference(x), rtol=1e-5, atol=1e-7)
    w = rng.standard_normal(shape[1]).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    VARIANTS[how](d.layer_norm)(x, w, b, y, 1e-5, block, steps)
    np.testing.assert_allclose(y, d.layer_norm_reference(x, w, b, 1e-5), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(x, before)
