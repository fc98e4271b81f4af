"""Streaming (non-temporal) stores into large outputs (dsl-nontemporal-stores, issue 15):
results equal numpy whether the output is 16-byte aligned (the streaming copy of the
loop runs) or not (the plain one), for elementwise ops and fused row ops, serial and
parallel, static and dynamic sizes; the bytes around an ``out=`` view are untouched; the
x86 code has streaming stores and a fence."""

from __future__ import annotations

import platform

import numpy as np
import pytest

import dsl_mlir
import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")
R = pl.dynamic("R")
C = pl.dynamic("C")
RNG = np.random.default_rng(2026)
STREAM_ALL = {"nontemporal-min-bytes": 1}  # every output size streams when aligned


def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return x * 3.0 + y


def scale_add_f64(x: pl.Tensor[[N], pl.FP64], y: pl.Tensor[[N], pl.FP64]) -> pl.Tensor[[N], pl.FP64]:
    return x * 3.0 + y


def layer_norm(x: pl.Tensor[[R, C], pl.FP32], g: pl.Tensor[[C], pl.FP32],
               b: pl.Tensor[[C], pl.FP32]) -> pl.Tensor[[R, C], pl.FP32]:
    mu = pl.mean(x, axis=1, keepdim=True)
    d = x - mu
    var = pl.mean(d * d, axis=1, keepdim=True)
    return d * pl.rsqrt(var + 1e-5) * g + b


def softmax_static(x: pl.Tensor[[64, 1024], pl.FP32]) -> pl.Tensor[[64, 1024], pl.FP32]:
    e = pl.exp(x - pl.max(x, axis=1, keepdim=True))
    return e / pl.sum(e, axis=1, keepdim=True)


def np_layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = x.astype(np.float64) - x.mean(axis=1, keepdims=True, dtype=np.float64)
    return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * g + b


def view_at(shape: tuple[int, ...], dtype: type, shift: int) -> tuple[np.ndarray, np.ndarray]:
    """(backing buffer filled with a sentinel, a view of ``shape`` starting ``shift`` bytes
    after a 64-byte boundary)."""
    itemsize = np.dtype(dtype).itemsize
    count = int(np.prod(shape))
    raw = np.full(count + 64, -7.0, dtype)
    start = (-raw.ctypes.data % 64 + shift) // itemsize
    return raw, raw[start:start + count].reshape(shape)


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
@pytest.mark.parametrize("shift", [0, 4, 16, 20], ids=lambda s: f"shift{s}")
def test_elementwise_into_aligned_and_unaligned_out(shift: int, parallel: bool) -> None:
    n = 100_003  # a masked tail after the vector loop
    x = RNG.standard_normal(n).astype(np.float32)
    y = RNG.standard_normal(n).astype(np.float32)
    xs, ys = x.copy(), y.copy()
    raw, out = view_at((n,), np.float32, shift)
    before = raw.copy()
    f = jit(scale_add, pipeline_options={**STREAM_ALL, "parallel": parallel})
    assert f(x, y, out=out) is out
    np.testing.assert_allclose(out, x * np.float32(3.0) + y, rtol=1e-6)
    inside = np.zeros(raw.shape, bool)
    start = (out.ctypes.data - raw.ctypes.data) // 4
    inside[start:start + n] = True
    np.testing.assert_array_equal(raw[~inside], before[~inside])  # nothing written around
    np.testing.assert_array_equal(x, xs)
    np.testing.assert_array_equal(y, ys)


@pytest.mark.parametrize("shift", [0, 8], ids=lambda s: f"shift{s}")
def test_f64_elementwise(shift: int) -> None:
    n = 40_001
    x, y = RNG.standard_normal(n), RNG.standard_normal(n)
    _, out = view_at((n,), np.float64, shift)
    jit(scale_add_f64, pipeline_options=STREAM_ALL)(x, y, out=out)
    np.testing.assert_allclose(out, x * 3.0 + y, rtol=1e-15)


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
@pytest.mark.parametrize("shape", [(64, 1024), (37, 1000), (9, 1001)],
                         ids=lambda s: "x".join(map(str, s)))
def test_layer_norm_rows(shape: tuple[int, int], parallel: bool) -> None:
    """Rows of 1024 and 1000 floats keep each row 16-byte aligned (streaming), 1001 do
    not (plain stores in every row)."""
    x = (RNG.standard_normal(shape) + 2).astype(np.float32)
    g = RNG.standard_normal(shape[1]).astype(np.float32)
    b = RNG.standard_normal(shape[1]).astype(np.float32)
    f = jit(layer_norm, pipeline_options={**STREAM_ALL, "parallel": parallel})
    np.testing.assert_allclose(f(x, g, b), np_layer_norm(x, g, b), rtol=2e-3, atol=2e-3)
    for shift in (0, 4):
        _, out = view_at(shape, np.float32, shift)
        f(x, g, b, out=out)
        np.testing.assert_allclose(out, np_layer_norm(x, g, b), rtol=2e-3, atol=2e-3)


def test_static_softmax_above_the_default_threshold_is_unchanged() -> None:
    """Static 64x1024 (256 KiB) stays under the default 8 MiB: plain stores; with the
    threshold lowered it streams; both agree with numpy."""
    x = (RNG.standard_normal((64, 1024)) * 3).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    for options in ({}, STREAM_ALL):
        np.testing.assert_allclose(jit(softmax_static, pipeline_options=options)(x), want,
                                   rtol=1e-5, atol=1e-7)


def test_large_output_at_the_default_threshold() -> None:
    """12 MB of output with the default options: the streaming path of a real size."""
    n = 3_000_000
    x = RNG.standard_normal(n).astype(np.float32)
    y = RNG.standard_normal(n).astype(np.float32)
    np.testing.assert_allclose(jit(scale_add)(x, y), x * np.float32(3.0) + y, rtol=1e-6)


ADD = """func.func @add(%a: tensor<4194304xf32>, %b: tensor<4194304xf32>) -> tensor<4194304xf32> {
  %0 = dsl.add %a, %b : tensor<4194304xf32>
  return %0 : tensor<4194304xf32> }"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 assembly")
@pytest.mark.parametrize("min_bytes", [0, 8 << 20, 16 << 20 + 1])
def test_x86_code_streams_above_the_threshold(min_bytes: int) -> None:
    """16 MiB of output: vmovntps and an sfence with the default threshold, neither with
    0 (off) nor above the size."""
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(ADD),
                                 options={"nontemporal-min-bytes": min_bytes})
        asm = dsl_mlir.to_assembly(lowered)
    streams = min_bytes == 8 << 20
    assert ("vmovntps" in asm or "movntps" in asm) == streams
    assert ("sfence" in asm) == streams


def _host_has_avx512() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and "avx512f" in line.split() for line in f)
    except OSError:
        return False


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 assembly")
def test_x86_code_has_whole_register_streaming_stores() -> None:
    """The 64-byte aligned copy of the loop stores whole registers (one vmovntps of a
    zmm per 16 floats on AVX-512; LLVM splits them with 16-byte alignment, the copy for
    numpy's own arrays)."""
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(ADD))
        asm = dsl_mlir.to_assembly(lowered)
    streams = [line.split() for line in asm.splitlines() if "movntps" in line]
    registers = {words[1].split(",")[0][:4] for words in streams}
    if _host_has_avx512():
        assert "%zmm" in registers  # the 64-byte aligned copy
        assert "%xmm" in registers  # the 16-byte aligned copy
    else:
        assert registers <= {"%xmm", "%ymm"} and registers


@pytest.mark.parametrize("n", [1000, 262_144, 3_000_001])
def test_large_results_start_on_a_cache_line(n: int) -> None:
    """Results of at least 1 MiB that dsl-runtime allocates are 64-byte aligned (the
    whole-register streaming path runs), smaller ones are plain numpy arrays; the values
    are numpy's either way and the inputs are unchanged."""
    x = RNG.standard_normal(n).astype(np.float32)
    y = RNG.standard_normal(n).astype(np.float32)
    xs, ys = x.copy(), y.copy()
    got = jit(scale_add)(x, y)
    assert got.shape == (n,) and got.dtype == np.float32 and got.flags.c_contiguous
    assert got.flags.writeable
    if got.nbytes >= 1 << 20:
        assert got.ctypes.data % 4096 == 2048  # 64-byte aligned, half a page in
    else:
        assert got.flags.owndata
    np.testing.assert_allclose(got, x * np.float32(3.0) + y, rtol=1e-6)
    np.testing.assert_array_equal(x, xs)
    np.testing.assert_array_equal(y, ys)


def test_aligned_results_of_rows() -> None:
    """A 2-D result of a row op, allocated aligned: shape, values and strides of a plain
    C array."""
    shape = (300, 1024)
    x = (RNG.standard_normal(shape) + 2).astype(np.float32)
    g = RNG.standard_normal(shape[1]).astype(np.float32)
    b = RNG.standard_normal(shape[1]).astype(np.float32)
    got = jit(layer_norm)(x, g, b)
    assert got.shape == shape and got.strides == (4096, 4) and got.ctypes.data % 4096 == 2048
    np.testing.assert_allclose(got, np_layer_norm(x, g, b), rtol=2e-3, atol=2e-3)
