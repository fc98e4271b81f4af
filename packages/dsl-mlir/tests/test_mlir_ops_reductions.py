"""Reductions (sum, max, min, mean, argmax) and composed kernels (softmax,
layer norm): JIT-executed through dsl-to-llvm-cpu and compared with numpy."""

from __future__ import annotations

import numpy as np
import pytest
from mlir_helpers import call_jit, run_text, tensor_type

from dsl_mlir import ir
from dsl_mlir.dialects import dsl, func

RNG = np.random.default_rng(11)

REDUCTIONS = [("sum", np.sum), ("max", np.max), ("min", np.min), ("mean", np.mean)]
AXES = [(1,), (0,), (0, 1), (2,), (0, 2), (1, 2), (0, 1, 2)]


def reduce_text(op: str, shape: tuple[int, ...], axes: tuple[int, ...], keepdim: bool,
                elt: str) -> tuple[str, tuple[int, ...]]:
    out = tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdim or i not in axes)
    t, o = tensor_type(shape, elt), tensor_type(out, elt)
    kd = " keepdim" if keepdim else ""
    text = f"""func.func @f(%x: {t}) -> {o} {{
      %0 = dsl.{op} %x [{", ".join(map(str, axes))}]{kd} : {t} -> {o}
      return %0 : {o} }}"""
    return text, out


@pytest.mark.parametrize(("op", "ref"), REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@pytest.mark.parametrize("axes", AXES, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduce_f32_3d(ctx: ir.Context, op: str, ref, axes, keepdim: bool) -> None:  # type: ignore[no-untyped-def]
    shape = (5, 7, 37)
    text, out_shape = reduce_text(op, shape, axes, keepdim, "f32")
    x = RNG.standard_normal(shape).astype(np.float32)
    out = np.zeros(out_shape, np.float32)
    run_text(text, [x], [out])
    np.testing.assert_allclose(out, ref(x, axis=axes, keepdims=keepdim), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize(("op", "ref"), REDUCTIONS[:3], ids=[r[0] for r in REDUCTIONS[:3]])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_reduce_int(ctx: ir.Context, op: str, ref, dtype) -> None:  # type: ignore[no-untyped-def]
    shape = (6, 45)
    text, out_shape = reduce_text(op, shape, (1,), False, tensor_type([], dtype)[7:-1])
    x = RNG.integers(-9, 9, shape, dtype=dtype)
    out = np.zeros(out_shape, dtype)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, ref(x, axis=1).astype(dtype))


def test_sum_f16_accumulates_in_f32(ctx: ir.Context) -> None:
    text, _ = reduce_text("sum", (3, 4096), (1,), False, "f16")
    x = np.full((3, 4096), 1.0, np.float16)
    out = np.zeros(3, np.float16)
    run_text(text, [x], [out])
    # An f16 running sum stops at 2048 (2048 + 1 rounds back to 2048).
    np.testing.assert_array_equal(out, np.full(3, 4096.0, np.float16))


def test_mean_f64_dynamic(ctx: ir.Context) -> None:
    t, o = tensor_type(("?", 13), "f64"), tensor_type((13,), "f64")
    text = f"""func.func @f(%x: {t}) -> {o} {{
      %0 = dsl.mean %x [0] : {t} -> {o}
      return %0 : {o} }}"""
    x = RNG.standard_normal((29, 13))
    out = np.zeros(13)
    run_text(text, [x], [out])
    np.testing.assert_allclose(out, x.mean(axis=0), rtol=1e-12)


def test_max_propagates_nan(ctx: ir.Context) -> None:
    text, _ = reduce_text("max", (2, 40), (1,), False, "f32")
    x = RNG.standard_normal((2, 40)).astype(np.float32)
    x[1, 17] = np.nan
    out = np.zeros(2, np.float32)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, np.max(x, axis=1))


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax(ctx: ir.Context, axis: int, keepdim: bool) -> None:
    shape = (4, 6, 19)
    x = RNG.integers(0, 4, shape).astype(np.float32)  # many ties: first index wins
    out_shape = tuple(1 if i == axis else d for i, d in enumerate(shape) if keepdim or i != axis)
    t, o = tensor_type(shape, "f32"), tensor_type(out_shape, "i64")
    kd = " keepdim" if keepdim else ""
    text = f"""func.func @f(%x: {t}) -> {o} {{
      %0 = dsl.argmax %x axis {axis}{kd} : {t} -> {o}
      return %0 : {o} }}"""
    out = np.zeros(out_shape, np.int64)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, np.argmax(x, axis=axis, keepdims=keepdim))


def test_argmax_nan_and_int(ctx: ir.Context) -> None:
    x = np.array([[1.0, np.nan, 5.0, np.nan], [-np.inf, -np.inf, -np.inf, -np.inf]], np.float32)
    t, o = tensor_type((2, 4), "f32"), tensor_type((2,), "i64")
    out = np.zeros(2, np.int64)
    run_text(f"""func.func @f(%x: {t}) -> {o} {{
      %0 = dsl.argmax %x axis 1 : {t} -> {o}
      return %0 : {o} }}""", [x], [out])
    np.testing.assert_array_equal(out, np.argmax(x, axis=1))
    xi = np.array([[3, 9, 9, -1], [-5, -7, -5, -9]], np.int32)
    ti = tensor_type((2, 4), "i32")
    run_text(f"""func.func @f(%x: {ti}) -> {o} {{
      %0 = dsl.argmax %x axis 1 : {ti} -> {o}
      return %0 : {o} }}""", [xi], [out])
    np.testing.assert_array_equal(out, np.argmax(xi, axis=1))


def test_sum_built_from_python(ctx: ir.Context) -> None:
    f32 = ir.F32Type.get()
    src, dst = ir.RankedTensorType.get([8, 33], f32), ir.RankedTensorType.get([8, 1], f32)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("f", ir.FunctionType.get([src], [dst]))
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            s = dsl.SumOp(dst, entry.arguments[0], [1], keepdim=True)
            func.ReturnOp([s.result])
    x = RNG.standard_normal((8, 33)).astype(np.float32)
    out = np.zeros((8, 1), np.float32)
    call_jit(module, "f", [x], [out])
    np.testing.assert_allclose(out, x.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


# --- composed kernels ----------------------------------------------------------

SOFTMAX = """func.func @softmax(%x: tensor<{n}x{m}xf32>) -> tensor<{n}x{m}xf32> {{
  %mx = dsl.max %x [1] keepdim : tensor<{n}x{m}xf32> -> tensor<{n}x1xf32>
  %d = dsl.sub %x, %mx : (tensor<{n}x{m}xf32>, tensor<{n}x1xf32>) -> tensor<{n}x{m}xf32>
  %e = dsl.exp %d : tensor<{n}x{m}xf32>
  %s = dsl.sum %e [1] keepdim : tensor<{n}x{m}xf32> -> tensor<{n}x1xf32>
  %r = dsl.div %e, %s : (tensor<{n}x{m}xf32>, tensor<{n}x1xf32>) -> tensor<{n}x{m}xf32>
  return %r : tensor<{n}x{m}xf32>
}}"""

LAYERNORM = """func.func @layernorm(%x: tensor<{n}x{m}xf32>, %g: tensor<{m}xf32>,
                                   %b: tensor<{m}xf32>) -> tensor<{n}x{m}xf32> {{
  %mu = dsl.mean %x [1] keepdim : tensor<{n}x{m}xf32> -> tensor<{n}x1xf32>
  %d = dsl.sub %x, %mu : (tensor<{n}x{m}xf32>, tensor<{n}x1xf32>) -> tensor<{n}x{m}xf32>
  %sq = dsl.mul %d, %d : tensor<{n}x{m}xf32>
  %var = dsl.mean %sq [1] keepdim : tensor<{n}x{m}xf32> -> tensor<{n}x1xf32>
  %eps = arith.constant 1.0e-5 : f32
  %ve = dsl.add %var, %eps : (tensor<{n}x1xf32>, f32) -> tensor<{n}x1xf32>
  %rs = dsl.rsqrt %ve : tensor<{n}x1xf32>
  %y = dsl.mul %d, %rs : (tensor<{n}x{m}xf32>, tensor<{n}x1xf32>) -> tensor<{n}x{m}xf32>
  %yg = dsl.mul %y, %g : (tensor<{n}x{m}xf32>, tensor<{m}xf32>) -> tensor<{n}x{m}xf32>
  %r = dsl.add %yg, %b : (tensor<{n}x{m}xf32>, tensor<{m}xf32>) -> tensor<{n}x{m}xf32>
  return %r : tensor<{n}x{m}xf32>
}}"""


def softmax_ref(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm_ref(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


@pytest.mark.parametrize(("n", "m"), [(4, 10), (37, 129), (64, 1024)])
def test_softmax(ctx: ir.Context, n: int, m: int) -> None:
    x = (RNG.standard_normal((n, m)) * 4).astype(np.float32)
    out = np.zeros_like(x)
    run_text(SOFTMAX.format(n=n, m=m), [x], [out], name="softmax")
    np.testing.assert_allclose(out, softmax_ref(x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(("n", "m"), [(3, 17), (64, 768)])
def test_layernorm(ctx: ir.Context, n: int, m: int) -> None:
    x = RNG.standard_normal((n, m)).astype(np.float32)
    g, b = RNG.standard_normal(m).astype(np.float32), RNG.standard_normal(m).astype(np.float32)
    out = np.zeros_like(x)
    run_text(LAYERNORM.format(n=n, m=m), [x, g, b], [out], name="layernorm")
    np.testing.assert_allclose(out, layernorm_ref(x, g, b), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("cols", [1, 15, 16, 17, 100])
def test_row_reductions_of_dynamic_length(ctx: ir.Context, cols: int) -> None:
    """Partial (vector) row reductions with a run-time row length: masked tails."""
    t, o = tensor_type((3, "?"), "f32"), tensor_type((3,), "f32")
    text = f"""func.func @f(%x: {t}) -> ({o}, {o}) {{
      %0 = dsl.sum %x [1] : {t} -> {o}
      %1 = dsl.max %x [1] : {t} -> {o}
      return %0, %1 : {o}, {o} }}"""
    x = RNG.standard_normal((3, cols)).astype(np.float32) - 5
    total, biggest = np.zeros(3, np.float32), np.zeros(3, np.float32)
    run_text(text, [x], [total, biggest])
    np.testing.assert_allclose(total, x.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(biggest, x.max(axis=1))
