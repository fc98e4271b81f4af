"""Prefetching the next row of fused row ops (dsl-prefetch-rows, issue 15) and the tree
sum of a reduction's lanes: a prefetch changes no value, so results with and without it
are bitwise equal, and equal numpy's within rounding, for one row (the last row
prefetches itself), a few, odd and dynamic widths, serial and parallel; the x86 code
prefetches inside the row's heaviest loop (softmax's exp) and sums lanes as a tree."""

from __future__ import annotations

import platform
import re

import numpy as np
import pytest

import dsl_mlir
import dsl_parser.language as pl
from dsl_runtime import jit

R = pl.dynamic("R")
C = pl.dynamic("C")
RNG = np.random.default_rng(515)
OFF = {"prefetch-rows": False}


def softmax(x: pl.Tensor[[R, C], pl.FP32]) -> pl.Tensor[[R, C], pl.FP32]:
    e = pl.exp(x - pl.max(x, axis=1, keepdim=True))
    return e / pl.sum(e, axis=1, keepdim=True)


def layer_norm(x: pl.Tensor[[R, C], pl.FP32], g: pl.Tensor[[C], pl.FP32]) -> pl.Tensor[[R, C], pl.FP32]:
    mu = pl.mean(x, axis=1, keepdim=True)
    d = x - mu
    var = pl.mean(d * d, axis=1, keepdim=True)
    return d * pl.rsqrt(var + 1e-5) * g


def softmax_static(x: pl.Tensor[[300, 1024], pl.FP32]) -> pl.Tensor[[300, 1024], pl.FP32]:
    e = pl.exp(x - pl.max(x, axis=1, keepdim=True))
    return e / pl.sum(e, axis=1, keepdim=True)


def np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def np_layer_norm(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    d = x.astype(np.float64) - x.mean(axis=1, keepdims=True, dtype=np.float64)
    return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * g


SHAPES = [(1, 1024), (2, 64), (37, 1000), (9, 1001), (128, 4096)]


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_softmax_rows_equal_without_prefetch(shape: tuple[int, int], parallel: bool) -> None:
    x = (RNG.standard_normal(shape) * 4).astype(np.float32)
    before = x.copy()
    on = jit(softmax, pipeline_options={"parallel": parallel})(x)
    off = jit(softmax, pipeline_options={**OFF, "parallel": parallel})(x)
    np.testing.assert_array_equal(on, off)
    np.testing.assert_allclose(on, np_softmax(x), rtol=2e-6, atol=1e-9)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_layer_norm_rows_equal_without_prefetch(shape: tuple[int, int], parallel: bool) -> None:
    x = (RNG.standard_normal(shape) + 3).astype(np.float32)
    g = RNG.standard_normal(shape[1]).astype(np.float32)
    on = jit(layer_norm, pipeline_options={"parallel": parallel})(x, g)
    off = jit(layer_norm, pipeline_options={**OFF, "parallel": parallel})(x, g)
    np.testing.assert_array_equal(on, off)
    np.testing.assert_allclose(on, np_layer_norm(x, g), rtol=2e-3, atol=2e-3)


def row_sums(x: pl.Tensor[[R, C], pl.FP32]) -> pl.Tensor[[R], pl.FP32]:
    return pl.sum(x, axis=1)


def test_row_sums_as_a_tree_stay_accurate() -> None:
    """The lanes' partial sums are added as a tree: row sums stay within f32 rounding of
    the exact (float64) sums, relative to the sum of magnitudes, and a softmax's rows
    still add up to one."""
    x = (RNG.standard_normal((16, 8193)) * 8).astype(np.float32)
    exact = x.astype(np.float64).sum(axis=1)
    scale = np.abs(x).astype(np.float64).sum(axis=1)
    assert np.all(np.abs(jit(row_sums)(x) - exact) <= 1e-6 * scale)
    np.testing.assert_allclose(jit(softmax)(x).sum(axis=1, dtype=np.float64), 1.0, rtol=1e-5)


SUM_ROWS = """func.func @rows(%x: tensor<256x1024xf32>) -> tensor<256x1xf32> {
  %s = dsl.sum %x [1] keepdim : tensor<256x1024xf32> -> tensor<256x1xf32>
  return %s : tensor<256x1xf32> }"""

SOFTMAX = """func.func @softmax(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %m = dsl.max %x [1] keepdim : tensor<256x1024xf32> -> tensor<256x1xf32>
  %d = dsl.sub %x, %m : (tensor<256x1024xf32>, tensor<256x1xf32>) -> tensor<256x1024xf32>
  %e = dsl.exp %d : tensor<256x1024xf32>
  %s = dsl.sum %e [1] keepdim : tensor<256x1024xf32> -> tensor<256x1xf32>
  %r = dsl.div %e, %s : (tensor<256x1024xf32>, tensor<256x1xf32>) -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32> }"""


def assembly(text: str, **options: object) -> str:
    with dsl_mlir.context():
        return dsl_mlir.to_assembly(dsl_mlir.lower(dsl_mlir.parse_module(text), options=options))


def blocks(asm: str) -> list[str]:
    """The assembly cut at its local labels (.LBB...): one piece per basic block."""
    return re.split(r"^\.LBB\S*:", asm, flags=re.MULTILINE)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 assembly")
def test_x86_softmax_prefetches_in_its_exp_loop() -> None:
    asm = assembly(SOFTMAX)
    with_prefetch = [b for b in blocks(asm) if "prefetcht0" in b]
    assert len(with_prefetch) == 1
    assert "fmadd" in with_prefetch[0]  # the exp polynomial's loop, not the division's
    assert "div" not in with_prefetch[0]
    assert "prefetch" not in assembly(SOFTMAX, **OFF)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 assembly")
def test_x86_row_sum_adds_lanes_as_a_tree() -> None:
    """64 lanes of partial sums (four registers): in lane order they were 64 dependent
    scalar adds per row; as a tree a few vector adds and at most a few scalar ones."""
    asm = assembly(SUM_ROWS, **{"target-vector-bits": 512})
    assert len(re.findall(r"\bv?addss\b", asm)) <= 4


def test_static_rows_equal_without_prefetch() -> None:
    x = (RNG.standard_normal((300, 1024)) * 2).astype(np.float32)
    on, off = jit(softmax_static)(x), jit(softmax_static, pipeline_options=OFF)(x)
    np.testing.assert_array_equal(on, off)
    np.testing.assert_allclose(on, np_softmax(x), rtol=2e-6, atol=1e-9)
