"""Shape ops (transpose, reshape, concat, expand_dims, squeeze, assemble),
constructors (arange, zeros/ones through full) and matmul tiling edge cases:
JIT-executed through dsl-to-llvm-cpu and compared with numpy."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest
from mlir_helpers import call_jit, from_bf16_bits, run_text, tensor_type, to_bf16_bits

import dsl_mlir
from dsl_mlir import ir
from dsl_mlir.dialects import arith, dsl, func
from dsl_mlir.runtime import get_ranked_memref_descriptor

RNG = np.random.default_rng(5)


@pytest.mark.parametrize(("shape", "perm"), [((5, 37), (1, 0)), ((3, 4, 18), (2, 0, 1)),
                                             ((3, 4, 18), (0, 2, 1)), ((2, 3, 4, 5), (3, 1, 0, 2))])
def test_transpose(ctx: ir.Context, shape, perm) -> None:  # type: ignore[no-untyped-def]
    out_shape = tuple(shape[p] for p in perm)
    t, o = tensor_type(shape, "f32"), tensor_type(out_shape, "f32")
    text = f"""func.func @f(%x: {t}) -> {o} {{
      %0 = dsl.transpose %x [{", ".join(map(str, perm))}] : {t} -> {o}
      return %0 : {o} }}"""
    x = RNG.standard_normal(shape).astype(np.float32)
    out = np.zeros(out_shape, np.float32)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, np.transpose(x, perm))


@pytest.mark.parametrize(("shape", "perm", "elt"), [
    ((37, 45), (1, 0), "f32"), ((64, 48), (1, 0), "f64"), ((33, 70), (1, 0), "f16"),
    ((100, 33), (1, 0), "i8"), ((19, 17), (1, 0), "bf16"), ((3, 40, 20), (0, 2, 1), "f32"),
    ((20, 3, 40), (2, 1, 0), "i32"), ((512, 256), (1, 0), "f32"),
])
def test_transpose_in_square_tiles(ctx: ir.Context, shape, perm, elt: str) -> None:  # type: ignore[no-untyped-def]
    """Transposing reads are tiled 16x16 and transposed in registers (shuffles for 32-bit
    elements), with peeled partial tiles at odd edges: exact copies for every dtype."""
    dtype = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i8": np.int8,
             "i32": np.int32, "bf16": np.uint16}[elt]
    x = (RNG.integers(-100, 100, shape) if elt.startswith("i") or elt == "bf16"
         else RNG.standard_normal(shape)).astype(dtype)
    out_shape = tuple(shape[p] for p in perm)
    t, o = tensor_type(shape, elt), tensor_type(out_shape, elt)
    out = np.zeros(out_shape, dtype)
    run_text(f"""func.func @f(%x: {t}) -> {o} {{
      %0 = dsl.transpose %x [{", ".join(map(str, perm))}] : {t} -> {o}
      return %0 : {o} }}""", [x], [out])
    np.testing.assert_array_equal(out, np.transpose(x, perm))


def test_transpose_fuses_with_elementwise(ctx: ir.Context) -> None:
    t, o = tensor_type((6, 35), "f32"), tensor_type((35, 6), "f32")
    text = f"""func.func @f(%x: {t}, %y: {o}) -> {o} {{
      %0 = dsl.transpose %x [1, 0] : {t} -> {o}
      %1 = dsl.add %0, %y : {o}
      return %1 : {o} }}"""
    x, y = RNG.standard_normal((6, 35)).astype(np.float32), RNG.standard_normal((35, 6)).astype(np.float32)
    out = np.zeros((35, 6), np.float32)
    run_text(text, [x, y], [out])
    np.testing.assert_allclose(out, x.T + y, rtol=1e-6)


@pytest.mark.parametrize(("src", "dst"), [((4, 6), (24,)), ((24,), (2, 3, 4)), ((2, 3, 4), (4, 6)),
                                          ((1, 1), ()), ((), (1, 1, 1)), ((6, 4), (6, 4))])
def test_reshape(ctx: ir.Context, src, dst) -> None:  # type: ignore[no-untyped-def]
    t, o = tensor_type(src, "i32"), tensor_type(dst, "i32")
    text = f"""func.func @f(%x: {t}) -> {o} {{
      %0 = dsl.reshape %x : {t} -> {o}
      return %0 : {o} }}"""
    x = np.arange(int(np.prod(src)), dtype=np.int32).reshape(src)
    out = np.zeros(dst, np.int32)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, x.reshape(dst))


@pytest.mark.parametrize("axis", [0, 1])
def test_concat_three(ctx: ir.Context, axis: int) -> None:
    shapes = [(2, 5), (3, 5), (1, 5)] if axis == 0 else [(4, 2), (4, 7), (4, 1)]
    arrays = [RNG.standard_normal(s).astype(np.float64) for s in shapes]
    ref = np.concatenate(arrays, axis=axis)
    types = [tensor_type(s, "f64") for s in shapes]
    o = tensor_type(ref.shape, "f64")
    text = f"""func.func @f(%a: {types[0]}, %b: {types[1]}, %c: {types[2]}) -> {o} {{
      %0 = dsl.concat %a, %b, %c axis {axis} : {", ".join(types)} -> {o}
      return %0 : {o} }}"""
    out = np.zeros(ref.shape)
    run_text(text, arrays, [out])
    np.testing.assert_array_equal(out, ref)


def test_concat_dynamic_axis(ctx: ir.Context) -> None:
    a_t, b_t, o = tensor_type(("?", 3), "f32"), tensor_type((2, 3), "f32"), tensor_type(("?", 3), "f32")
    text = f"""func.func @f(%a: {a_t}, %b: {b_t}) -> {o} {{
      %0 = dsl.concat %a, %b axis 0 : {a_t}, {b_t} -> {o}
      return %0 : {o} }}"""
    a, b = RNG.standard_normal((5, 3)).astype(np.float32), RNG.standard_normal((2, 3)).astype(np.float32)
    out = np.zeros((7, 3), np.float32)
    run_text(text, [a, b], [out])
    np.testing.assert_array_equal(out, np.concatenate([a, b]))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_expand_dims_then_squeeze(ctx: ir.Context, axis: int) -> None:
    shape = (3, 20)
    big = list(shape)
    big.insert(axis, 1)
    t, e = tensor_type(shape, "f32"), tensor_type(big, "f32")
    text = f"""func.func @f(%x: {t}) -> {e} {{
      %0 = dsl.expand_dims %x axis {axis} : {t} -> {e}
      %1 = dsl.squeeze %0 axis {axis} : {e} -> {t}
      %2 = dsl.neg %1 : {t}
      %3 = dsl.expand_dims %2 axis {axis} : {t} -> {e}
      return %3 : {e} }}"""
    x = RNG.standard_normal(shape).astype(np.float32)
    out = np.zeros(big, np.float32)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, np.expand_dims(-x, axis))


def test_expand_and_squeeze_rank0(ctx: ir.Context) -> None:
    text = """func.func @f(%x: tensor<f32>) -> tensor<1xf32> {
      %0 = dsl.expand_dims %x axis 0 : tensor<f32> -> tensor<1xf32>
      %1 = dsl.squeeze %0 axis 0 : tensor<1xf32> -> tensor<f32>
      %2 = dsl.expand_dims %1 axis 0 : tensor<f32> -> tensor<1xf32>
      return %2 : tensor<1xf32> }"""
    x = np.array(2.5, np.float32)
    out = np.zeros(1, np.float32)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, [2.5])


def test_assemble_builds_result_in_a_loop(ctx: ir.Context) -> None:
    """Rows 2i..2i+1 of the result are 2*x[2i..2i+1], assembled in scf.for."""
    text = """func.func @f(%x: tensor<8x5xf32>) -> tensor<8x5xf32> {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %two = arith.constant 2.0 : f32
      %init = dsl.create_tensor : tensor<8x5xf32>
      %r = scf.for %i = %c0 to %c8 step %c2 iter_args(%acc = %init) -> tensor<8x5xf32> {
        %t = dsl.slice %x[%i, %c0] : tensor<8x5xf32> -> tensor<2x5xf32>
        %d = dsl.mul %t, %two : (tensor<2x5xf32>, f32) -> tensor<2x5xf32>
        %n = dsl.assemble %acc, %d [%i, %c0] : tensor<2x5xf32> into tensor<8x5xf32>
        scf.yield %n : tensor<8x5xf32>
      }
      return %r : tensor<8x5xf32> }"""
    x = RNG.standard_normal((8, 5)).astype(np.float32)
    out = np.zeros((8, 5), np.float32)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, 2 * x)


def test_assemble_keeps_dst_unchanged(ctx: ir.Context) -> None:
    """Value semantics: %dst is still used after the assemble."""
    d, s = tensor_type((4, 6), "f32"), tensor_type((2, 3), "f32")
    text = f"""func.func @f(%dst: {d}, %src: {s}, %i: index) -> {d} {{
      %c1 = arith.constant 1 : index
      %0 = dsl.assemble %dst, %src [%i, %c1] : {s} into {d}
      %1 = dsl.add %0, %dst : {d}
      return %1 : {d} }}"""
    dst, src = RNG.standard_normal((4, 6)).astype(np.float32), RNG.standard_normal((2, 3)).astype(np.float32)
    out = np.zeros((4, 6), np.float32)
    engine = dsl_mlir.jit(dsl_mlir.lower(dsl_mlir.parse_module(text)))
    args = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in (dst, src)]
    engine.invoke("f", *args, ctypes.pointer(ctypes.c_int64(2)),
                  ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(out))))
    expected = dst.copy()
    expected[2:4, 1:4] = src
    np.testing.assert_array_equal(out, expected + dst)


@pytest.mark.parametrize(("elt", "start", "step", "dtype"), [
    ("f32", "0.5", "0.25", np.float32), ("i32", "-7", "3", np.int32), ("f64", "1.0", "-0.1", np.float64)])
def test_arange(ctx: ir.Context, elt: str, start: str, step: str, dtype) -> None:  # type: ignore[no-untyped-def]
    o = tensor_type((37,), elt)
    text = f"""func.func @f() -> {o} {{
      %s = arith.constant {start} : {elt}
      %d = arith.constant {step} : {elt}
      %0 = dsl.arange %s, %d : {elt} -> {o}
      return %0 : {o} }}"""
    out = np.zeros(37, dtype)
    run_text(text, [], [out])
    py = float if elt.startswith("f") else int
    np.testing.assert_allclose(out, np.arange(37) * dtype(py(step)) + dtype(py(start)), rtol=1e-6)


def test_arange_dynamic_and_python_builder(ctx: ir.Context) -> None:
    f32, index = ir.F32Type.get(), ir.IndexType.get()
    dyn = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], f32)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("f", ir.FunctionType.get([index], [dyn]))
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            start = arith.ConstantOp(f32, 1.0).result
            step = arith.ConstantOp(f32, 2.0).result
            func.ReturnOp([dsl.ArangeOp(dyn, start, step, [entry.arguments[0]]).result])
    out = np.zeros(21, np.float32)
    engine = dsl_mlir.jit(dsl_mlir.lower(module))
    engine.invoke("f", ctypes.pointer(ctypes.c_int64(21)),
                  ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(out))))
    np.testing.assert_array_equal(out, 1 + 2 * np.arange(21, dtype=np.float32))


def test_zeros_and_ones_are_full(ctx: ir.Context) -> None:
    o = tensor_type((3, 17), "f32")
    text = f"""func.func @f(%x: {o}) -> {o} {{
      %z = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %0 = dsl.full %z : f32 -> {o}
      %1 = dsl.full %one : f32 -> {o}
      %2 = dsl.maximum %x, %0 : {o}
      %3 = dsl.add %2, %1 : {o}
      return %3 : {o} }}"""
    x = RNG.standard_normal((3, 17)).astype(np.float32)
    out = np.zeros((3, 17), np.float32)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, np.maximum(x, 0) + 1)


# --- matmul: tiles, peeled remainders, K blocks, transposes, mixed precision --

@pytest.mark.parametrize(("m", "k", "n"), [(37, 29, 53), (8, 512, 32), (70, 300, 40), (1, 7, 1)])
@pytest.mark.parametrize(("a_trans", "b_trans"), [(False, False), (True, False), (False, True)])
def test_matmul_shapes(ctx: ir.Context, m: int, k: int, n: int, a_trans: bool, b_trans: bool) -> None:
    a = RNG.standard_normal((k, m) if a_trans else (m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k) if b_trans else (k, n)).astype(np.float32)
    ta, tb, tc = tensor_type(a.shape, "f32"), tensor_type(b.shape, "f32"), tensor_type((m, n), "f32")
    attrs = [name for name, on in (("a_trans", a_trans), ("b_trans", b_trans)) if on]
    attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
    text = f"""func.func @f(%a: {ta}, %b: {tb}) -> {tc} {{
      %0 = dsl.matmul %a, %b{attr_text} : {ta}, {tb} -> {tc}
      return %0 : {tc} }}"""
    out = np.zeros((m, n), np.float32)
    run_text(text, [a, b], [out])
    ref = (a.T if a_trans else a) @ (b.T if b_trans else b)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def _matmul_text(a_shape, b_shape, c_shape, elt: str, acc: str, attrs: list[str]) -> str:  # type: ignore[no-untyped-def]
    ta, tb, tc = tensor_type(a_shape, elt), tensor_type(b_shape, elt), tensor_type(c_shape, acc)
    attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
    return f"""func.func @f(%a: {ta}, %b: {tb}) -> {tc} {{
      %0 = dsl.matmul %a, %b{attr_text} : {ta}, {tb} -> {tc}
      return %0 : {tc} }}"""


@pytest.mark.parametrize(("m", "k", "n"), [(13, 300, 600), (25, 257, 289), (12, 9, 39), (3, 520, 31)])
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize(("a_trans", "b_trans"), [(False, False), (True, True)])
@pytest.mark.parametrize("bits", [512, 256])
def test_matmul_cache_blocks_and_edge_tiles(ctx: ir.Context, m: int, k: int, n: int, dynamic: bool,
                                            a_trans: bool, b_trans: bool, bits: int) -> None:
    """N and K blocks of 256 with partial blocks (peeled when static, not when dynamic),
    edge tiles of 7, 31 and 1 columns (masked to a power of two), transposed operands
    (copied row-major first), against numpy."""
    a = RNG.standard_normal((k, m) if a_trans else (m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k) if b_trans else (k, n)).astype(np.float32)
    shape = (lambda s: ("?",) * len(s)) if dynamic else (lambda s: s)
    attrs = [name for name, on in (("a_trans", a_trans), ("b_trans", b_trans)) if on]
    out = np.full((m, n), np.nan, np.float32)
    run_text(_matmul_text(shape(a.shape), shape(b.shape), shape((m, n)), "f32", "f32", attrs), [a, b], [out],
             options={"target-vector-bits": bits})
    ref = (a.T if a_trans else a).astype(np.float64) @ (b.T if b_trans else b).astype(np.float64)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


_PACK_SHAPES = [(96, 300, 600), (70, 257, 289), (64, 520, 31), (100, 64, 1000), (63, 300, 300), (7, 40, 70)]
_PACK_OPTIONS = [{"target-vector-bits": 256}, {"target-vector-bits": 512}, {"matmul-tile-sizes": "4,16,2"},
                 {"matmul-tile-sizes": "6,64,1", "matmul-k-block": 64, "matmul-n-block": 128},
                 {"target-vector-bits": 256, "parallel": True, "num-threads": 2}]


@pytest.mark.parametrize(("m", "k", "n"), _PACK_SHAPES)
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("options", _PACK_OPTIONS)
def test_packed_b_gives_the_bits_of_b_read_in_place(ctx: ir.Context, m: int, k: int, n: int, dynamic: bool,
                                                    options) -> None:  # type: ignore[no-untyped-def]
    """matmul-pack-b copies B's blocks into panels of one register tile's width (whole
    and partial panels, N and K blocks, tiles with K > 1, 64-wide tiles, threads, few
    rows of A where it is skipped, decided at run time for a dynamic M): the same FMAs in
    the same order as reading B in place, so the results are bit for bit those of
    matmul-pack-b=false, and match float64."""
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    a_before, b_before = a.copy(), b.copy()
    shape = (lambda s: ("?",) * len(s)) if dynamic else (lambda s: s)
    text = _matmul_text(shape(a.shape), shape(b.shape), shape((m, n)), "f32", "f32", [])
    packed, in_place = np.full((m, n), np.nan, np.float32), np.full((m, n), np.nan, np.float32)
    run_text(text, [a, b], [packed], options=options)
    run_text(text, [a, b], [in_place], options={**options, "matmul-pack-b": False})
    np.testing.assert_array_equal(packed, in_place)
    np.testing.assert_allclose(packed, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(a, a_before)
    np.testing.assert_array_equal(b, b_before)


@pytest.mark.parametrize(("m", "k", "n"), [(64, 1, 1000), (64, 9000, 20), (100, 300, 0), (100, 0, 300),
                                     (0, 300, 300), (65, 17, 2049), (128, 2, 16)])
@pytest.mark.parametrize("dynamic", [False, True])
def test_packed_b_at_degenerate_sizes(ctx: ir.Context, m: int, k: int, n: int, dynamic: bool) -> None:
    """K of 1 or 2, one partial panel only (N = 20 or 16 of 16/32), N or K or M of 0
    (empty panels, the few-rows nest), N one past a block: the bits of B read in place."""
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    shape = (lambda s: ("?",) * len(s)) if dynamic else (lambda s: s)
    text = _matmul_text(shape(a.shape), shape(b.shape), shape((m, n)), "f32", "f32", [])
    packed, in_place = np.full((m, n), np.nan, np.float32), np.full((m, n), np.nan, np.float32)
    run_text(text, [a, b], [packed])
    run_text(text, [a, b], [in_place], options={"matmul-pack-b": False})
    np.testing.assert_array_equal(packed, in_place)
    # f32 sums of k products: rounding grows with k
    np.testing.assert_allclose(packed, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4 + 2e-6 * k)


@pytest.mark.parametrize(("m", "k", "n"), [(1, 1024, 1000), (1, 300, 33), (1, 9, 1), (13, 70, 45), (253, 40, 47)])
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("elt", ["f32", "f64"])
def test_matmul_of_one_row_and_one_row_edge_strips(ctx: ir.Context, m: int, k: int, n: int, dynamic: bool,
                                                    elt: str) -> None:
    """A one-row matmul (K outside N, one FMA per tile) and the one-row edge strip of an
    M of 6j + 1 (AVX2) or 12j + 1 (AVX-512): against float64 numpy, inputs unchanged."""
    dtype = np.float32 if elt == "f32" else np.float64
    a = RNG.standard_normal((m, k)).astype(dtype)
    b = RNG.standard_normal((k, n)).astype(dtype)
    a_before, b_before = a.copy(), b.copy()
    shape = (lambda s: ("?",) * len(s)) if dynamic else (lambda s: s)
    out = np.full((m, n), np.nan, dtype)
    run_text(_matmul_text(shape(a.shape), shape(b.shape), shape((m, n)), elt, elt, []), [a, b], [out])
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4 + 2e-6 * k)
    np.testing.assert_array_equal(a, a_before)
    np.testing.assert_array_equal(b, b_before)


@pytest.mark.parametrize(("elt", "b_trans"), [("f64", False), ("f64", True), ("f16", False), ("bf16", True),
                                             ("u8", False), ("u8", True)])
@pytest.mark.parametrize("dynamic", [False, True])
def test_packed_b_of_other_element_types(ctx: ir.Context, elt: str, b_trans: bool, dynamic: bool) -> None:
    """Panels of f64 (8 or 4 lanes per vector), of the i32 copies of u8 operands and of
    the f32 copies of fp16/bf16 or transposed operands: the bits of the unpacked product."""
    m, k, n = 70, 270, 77
    a64 = RNG.standard_normal((m, k))
    b64 = RNG.standard_normal((n, k) if b_trans else (k, n))
    attrs = ["b_trans"] if b_trans else []
    if elt == "u8":
        ua = RNG.integers(0, 256, a64.shape, dtype=np.uint8)
        ub = RNG.integers(0, 256, b64.shape, dtype=np.uint8)
        shape = (lambda s: ("?",) * len(s)) if dynamic else (lambda s: s)
        text = _matmul_text(shape(ua.shape), shape(ub.shape), shape((m, n)), "i8", "i32", [*attrs, "is_unsigned"])
        ints, ints_in_place = np.zeros((m, n), np.int32), np.ones((m, n), np.int32)
        run_text(text, [ua.view(np.int8), ub.view(np.int8)], [ints])
        run_text(text, [ua.view(np.int8), ub.view(np.int8)], [ints_in_place], options={"matmul-pack-b": False})
        np.testing.assert_array_equal(ints, ints_in_place)
        np.testing.assert_array_equal(ints, ua.astype(np.int64) @ (ub.T if b_trans else ub).astype(np.int64))
        return
    if elt == "f64":
        a, b, acc = a64, b64, "f64"
    elif elt == "f16":
        a, b, acc = a64.astype(np.float16), b64.astype(np.float16), "f32"
    else:
        a, b, acc = to_bf16_bits(a64.astype(np.float32)), to_bf16_bits(b64.astype(np.float32)), "f32"
    wa = from_bf16_bits(a).astype(np.float64) if elt == "bf16" else a.astype(np.float64)
    wb = from_bf16_bits(b).astype(np.float64) if elt == "bf16" else b.astype(np.float64)
    out_type = np.float64 if acc == "f64" else np.float32
    shape = (lambda s: ("?",) * len(s)) if dynamic else (lambda s: s)
    text = _matmul_text(shape(a.shape), shape(b.shape), shape((m, n)), elt, acc, attrs)
    packed, in_place = np.full((m, n), np.nan, out_type), np.full((m, n), np.nan, out_type)
    run_text(text, [a, b], [packed])
    run_text(text, [a, b], [in_place], options={"matmul-pack-b": False})
    np.testing.assert_array_equal(packed, in_place)
    np.testing.assert_allclose(packed, wa @ (wb.T if b_trans else wb), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("elt", ["f16", "bf16"])
@pytest.mark.parametrize(("a_trans", "b_trans"), [(False, False), (True, False), (False, True)])
def test_matmul_narrow_floats_widened_once(ctx: ir.Context, elt: str, a_trans: bool, b_trans: bool) -> None:
    """fp16/bf16 operands with an f32 result are widened (and transposed) into f32 copies
    before the contraction: exact f32 products of the rounded inputs."""
    m, k, n = 19, 270, 47
    a32 = RNG.standard_normal((k, m) if a_trans else (m, k)).astype(np.float32)
    b32 = RNG.standard_normal((n, k) if b_trans else (k, n)).astype(np.float32)
    if elt == "f16":
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        wa, wb = a.astype(np.float64), b.astype(np.float64)
    else:
        a, b = to_bf16_bits(a32), to_bf16_bits(b32)
        wa, wb = from_bf16_bits(a).astype(np.float64), from_bf16_bits(b).astype(np.float64)
    attrs = [name for name, on in (("a_trans", a_trans), ("b_trans", b_trans)) if on]
    out = np.zeros((m, n), np.float32)
    run_text(_matmul_text(a.shape, b.shape, (m, n), elt, "f32", attrs), [a, b], [out])
    ref = (wa.T if a_trans else wa) @ (wb.T if b_trans else wb)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_matmul_unsigned_i8_widened_to_i32(ctx: ir.Context) -> None:
    """u8 operands (is_unsigned) widen with zero extension in the packed copy."""
    a = RNG.integers(0, 256, (9, 40), dtype=np.uint8)
    b = RNG.integers(0, 256, (33, 40), dtype=np.uint8)
    out = np.zeros((9, 33), np.int32)
    run_text(_matmul_text(a.shape, b.shape, (9, 33), "i8", "i32", ["b_trans", "is_unsigned"]),
             [a.view(np.int8), b.view(np.int8)], [out])
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.T.astype(np.int64))


@pytest.mark.parametrize(("a_shape", "b_shape", "a_trans", "b_trans"), [
    ((5, 13, 40), (40, 33), False, False),        # a 2-D rhs for every matrix
    ((29, 13), (4, 29, 33), True, False),         # a 2-D lhs, transposed
    ((1, 13, 40), (6, 33, 40), False, True),      # a static batch of 1 broadcasts
    ((3, 40, 13), (3, 33, 40), True, True),
    ((2, 30, 300), (2, 300, 270), False, False),  # N and K blocks inside each matrix
])
@pytest.mark.parametrize("dynamic", [False, True])
def test_batched_matmul(ctx: ir.Context, a_shape, b_shape, a_trans: bool, b_trans: bool,  # type: ignore[no-untyped-def]
                        dynamic: bool) -> None:
    """Rank-3 operands: one packed and tiled 2-D product per matrix, numpy's broadcasting."""
    a = RNG.standard_normal(a_shape).astype(np.float32)
    b = RNG.standard_normal(b_shape).astype(np.float32)
    ref = np.matmul(a.swapaxes(-1, -2) if a_trans else a, b.swapaxes(-1, -2) if b_trans else b)
    out = np.full(ref.shape, np.nan, np.float32)
    shape = (lambda s: tuple(d if d == 1 else "?" for d in s)) if dynamic else (lambda s: s)
    attrs = [name for name, on in (("a_trans", a_trans), ("b_trans", b_trans)) if on]
    run_text(_matmul_text(shape(a_shape), shape(b_shape), shape(ref.shape), "f32", "f32", attrs),
             [a, b], [out])
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_batched_matmul_of_a_static_batch_of_one_into_a_dynamic_result(ctx: ir.Context) -> None:
    """The result's dynamic batch comes from the 3-D operand (a batch of 1 times a 2-D
    operand): it was read from the 2-D operand's first dimension (its K)."""
    a = RNG.standard_normal((1, 13, 40)).astype(np.float32)
    b = RNG.standard_normal((40, 33)).astype(np.float32)
    out = np.full((1, 13, 33), np.nan, np.float32)
    run_text(_matmul_text((1, 13, 40), (40, 33), ("?", 13, 33), "f32", "f32", []), [a, b], [out])
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_batched_matmul_parallel(ctx: ir.Context) -> None:
    """With `parallel`, each matrix's M blocks run as tasks inside the batch loop."""
    a = RNG.standard_normal((3, 100, 300)).astype(np.float32)
    b = RNG.standard_normal((300, 70)).astype(np.float32)
    out = np.zeros((3, 100, 70), np.float32)
    run_text(_matmul_text(a.shape, b.shape, out.shape, "f32", "f32", []), [a, b], [out],
             options={"parallel": True})
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_batched_matmul_of_fp16_widens_per_matrix(ctx: ir.Context) -> None:
    a = RNG.standard_normal((3, 17, 70)).astype(np.float16)
    b = RNG.standard_normal((3, 70, 45)).astype(np.float16)
    out = np.zeros((3, 17, 45), np.float32)
    run_text(_matmul_text(("?", 17, 70), ("?", 70, 45), ("?", 17, 45), "f16", "f32", []), [a, b], [out])
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("a_shape", "b_shape", "c_shape", "attrs", "a_real", "b_real", "message"), [
    (("?", "?"), ("?", "?"), ("?", "?"), [], (4, 7), (6, 3),
     "contracting dimensions differ: lhs has K=7, rhs has K=6"),
    (("?", 8, 16), ("?", 16, 5), ("?", 8, 5), [], (3, 8, 16), (2, 16, 5),
     "batch sizes differ: lhs has 3 matrices, rhs has 2 (only a static 1 broadcasts)"),
    (("?", 8, 16), ("?", 16, 5), ("?", 8, 5), [], (3, 8, 16), (1, 16, 5),  # a run-time 1
     "batch sizes differ: lhs has 3 matrices, rhs has 1"),
    (("?", 16), (16, 5), (9, 5), [], (8, 16), (16, 5),
     "an operand gives size 8 where the result has static size 9"),
    ((16, "?"), ("?", "?"), (8, 8), ["a_trans", "b_trans"], (16, 8), (8, 17),
     "contracting dimensions differ: lhs has K=16, rhs has K=17"),
])
def test_matmul_dynamic_sizes_are_checked(ctx: ir.Context, a_shape, b_shape, c_shape, attrs,  # type: ignore[no-untyped-def]
                                          a_real, b_real, message: str) -> None:
    """Dynamic sizes that cannot be multiplied are a ValueError naming the op's location;
    a K larger than the other operand's used to read past its end (silently)."""
    a = np.ones(a_real, np.float32)
    b = np.ones(b_real, np.float32)
    rows = a_real[-1] if "a_trans" in attrs else a_real[-2]
    cols = b_real[-2] if "b_trans" in attrs else b_real[-1]
    real_c = tuple(c if c != "?" else r for c, r in
                   zip(c_shape, (*a_real[:-2], rows, cols)[-len(c_shape):]))
    out = np.zeros(real_c, np.float32)
    with pytest.raises(ValueError, match=r"dsl.matmul at .*: " + re.escape(message)):
        run_text(_matmul_text(a_shape, b_shape, c_shape, "f32", "f32", attrs), [a, b], [out])
    assert not out.any()  # nothing computed


def test_matmul_dynamic_b_trans(ctx: ir.Context) -> None:
    ta, tb, tc = tensor_type(("?", 40), "f32"), tensor_type(("?", 40), "f32"), tensor_type(("?", "?"), "f32")
    text = f"""func.func @f(%a: {ta}, %b: {tb}) -> {tc} {{
      %0 = dsl.matmul %a, %b {{b_trans}} : {ta}, {tb} -> {tc}
      return %0 : {tc} }}"""
    a, b = RNG.standard_normal((19, 40)).astype(np.float32), RNG.standard_normal((35, 40)).astype(np.float32)
    out = np.zeros((19, 35), np.float32)
    run_text(text, [a, b], [out])
    np.testing.assert_allclose(out, a @ b.T, rtol=1e-4, atol=1e-4)


def test_matmul_dynamic_m(ctx: ir.Context) -> None:
    ta, tb, tc = tensor_type(("?", 40), "f32"), tensor_type((40, 33), "f32"), tensor_type(("?", 33), "f32")
    text = f"""func.func @f(%a: {ta}, %b: {tb}) -> {tc} {{
      %0 = dsl.matmul %a, %b : {ta}, {tb} -> {tc}
      return %0 : {tc} }}"""
    a, b = RNG.standard_normal((19, 40)).astype(np.float32), RNG.standard_normal((40, 33)).astype(np.float32)
    out = np.zeros((19, 33), np.float32)
    run_text(text, [a, b], [out])
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("options", [{"matmul-tile-sizes": "4,16,2"}, {"matmul-tile-sizes": "6,64,1"},
                                     {"matmul-k-block": 32}, {"matmul-n-block": 8}, {"vectorize": False},
                                     {"target-vector-bits": 256}, {"target-vector-bits": 128},
                                     {"target-vector-bits": 512}])
def test_matmul_pipeline_options(ctx: ir.Context, options) -> None:  # type: ignore[no-untyped-def]
    a, b = RNG.standard_normal((45, 70)).astype(np.float64), RNG.standard_normal((70, 21)).astype(np.float64)
    ta, tb, tc = tensor_type(a.shape, "f64"), tensor_type(b.shape, "f64"), tensor_type((45, 21), "f64")
    text = f"""func.func @f(%a: {ta}, %b: {tb}) -> {tc} {{
      %0 = dsl.matmul %a, %b : {ta}, {tb} -> {tc}
      return %0 : {tc} }}"""
    out = np.zeros((45, 21))
    run_text(text, [a, b], [out], options=options)
    np.testing.assert_allclose(out, a @ b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("options", "message"), [
    ({"matmul-tile-sizes": "8,48,1"}, "matmul-tile-sizes must be three positive sizes M,N,K with N a power of two"),
    ({"vector-size": 24}, "vector-size must be a power of two, got 24"),
])
def test_bad_codegen_options_are_errors(ctx: ir.Context, options, message: str) -> None:  # type: ignore[no-untyped-def]
    t = tensor_type((8, 8), "f32")
    module = dsl_mlir.parse_module(f"""func.func @f(%a: {t}) -> {t} {{
      %0 = dsl.matmul %a, %a : {t}, {t} -> {t}
      return %0 : {t} }}""")
    with pytest.raises(dsl_mlir.MLIRDiagnosticError) as info:
        dsl_mlir.lower(module, options=options)
    assert any(message in d.message for d in info.value.diagnostics)


def test_matmul_int_and_f16(ctx: ir.Context) -> None:
    a, b = RNG.integers(-5, 5, (9, 17), dtype=np.int32), RNG.integers(-5, 5, (17, 35), dtype=np.int32)
    ta, tb, tc = tensor_type(a.shape, "i32"), tensor_type(b.shape, "i32"), tensor_type((9, 35), "i32")
    out = np.zeros((9, 35), np.int32)
    run_text(f"""func.func @f(%a: {ta}, %b: {tb}) -> {tc} {{
      %0 = dsl.matmul %a, %b : {ta}, {tb} -> {tc}
      return %0 : {tc} }}""", [a, b], [out])
    np.testing.assert_array_equal(out, a @ b)
    h1, h2 = a.astype(np.float16), b.astype(np.float16)
    ha, hb, hc = tensor_type(a.shape, "f16"), tensor_type(b.shape, "f16"), tensor_type((9, 35), "f32")
    out32 = np.zeros((9, 35), np.float32)
    run_text(f"""func.func @f(%a: {ha}, %b: {hb}) -> {hc} {{
      %0 = dsl.matmul %a, %b : {ha}, {hb} -> {hc}
      return %0 : {hc} }}""", [h1, h2], [out32])
    np.testing.assert_array_equal(out32, (a @ b).astype(np.float32))


def test_matmul_then_bias_relu(ctx: ir.Context) -> None:
    """A matmul feeding broadcast elementwise ops (the usual dense layer)."""
    f32 = ir.F32Type.get()
    ta, tb = ir.RankedTensorType.get([33, 64], f32), ir.RankedTensorType.get([64, 48], f32)
    tbias, tc = ir.RankedTensorType.get([48], f32), ir.RankedTensorType.get([33, 48], f32)

    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("dense", ir.FunctionType.get([ta, tb, tbias], [tc]))
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            x, w, bias = entry.arguments
            y = dsl.MatmulOp(tc, x, w).result
            y = dsl.AddOp(tc, y, bias).result
            func.ReturnOp([dsl.ReluOp(tc, y).result])
    x, w = RNG.standard_normal((33, 64)).astype(np.float32), RNG.standard_normal((64, 48)).astype(np.float32)
    bias = RNG.standard_normal(48).astype(np.float32)
    out = np.zeros((33, 48), np.float32)
    call_jit(module, "dense", [x, w, bias], [out])
    np.testing.assert_allclose(out, np.maximum(x @ w + bias, 0), rtol=1e-4, atol=1e-4)


def test_empty_tensors(ctx: ir.Context) -> None:
    """Zero-size dimensions: nothing to compute, nothing out of bounds."""
    text = """func.func @f(%e: tensor<0x4xf32>, %y: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>) {
      %0 = dsl.add %e, %e : tensor<0x4xf32>
      %1 = dsl.concat %0, %y, %e axis 0 : tensor<0x4xf32>, tensor<3x4xf32>, tensor<0x4xf32> -> tensor<3x4xf32>
      %2 = dsl.sum %0 [0] : tensor<0x4xf32> -> tensor<4xf32>
      return %1, %2 : tensor<3x4xf32>, tensor<4xf32> }"""
    e, y = np.zeros((0, 4), np.float32), RNG.standard_normal((3, 4)).astype(np.float32)
    out, total = np.zeros((3, 4), np.float32), np.ones(4, np.float32)
    run_text(text, [e, y], [out, total])
    np.testing.assert_array_equal(out, y)
    np.testing.assert_array_equal(total, np.zeros(4, np.float32))
