"""Build IR from Python for each op, lower, JIT-execute, compare with numpy."""

from __future__ import annotations

import numpy as np
import pytest
from mlir_helpers import call_jit

from dsl_mlir import ir
from dsl_mlir.dialects import arith, dsl, func

F32 = ir.F32Type.get


def tensor(shape: list[int], elt: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(shape, elt)


def build(name: str, arg_types: list[ir.Type], result_type: ir.Type, body) -> ir.Module:  # type: ignore[no-untyped-def]
    """A module with one public function whose body is ``body(*args) -> Value``."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp(name, ir.FunctionType.get(arg_types, [result_type]))
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            func.ReturnOp([body(*entry.arguments)])
    module.operation.verify()
    return module


@pytest.mark.parametrize(("op", "ref"), [
    (dsl.AddOp, np.add), (dsl.SubOp, np.subtract), (dsl.MulOp, np.multiply), (dsl.DivOp, np.divide),
])
def test_binary_f32(ctx: ir.Context, op, ref) -> None:  # type: ignore[no-untyped-def]
    t = tensor([4, 8], F32())
    module = build("f", [t, t], t, lambda a, b: op(t, a, b).result)
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    y = np.random.default_rng(1).uniform(1, 2, (4, 8)).astype(np.float32)
    out = np.zeros((4, 8), np.float32)
    call_jit(module, "f", [x, y], [out])
    np.testing.assert_allclose(out, ref(x, y), rtol=1e-6)


def test_integer_div_is_signed(ctx: ir.Context) -> None:
    t = tensor([4], ir.IntegerType.get_signless(32))
    module = build("f", [t, t], t, lambda a, b: dsl.DivOp(t, a, b).result)
    x = np.array([7, -7, 9, -9], np.int32)
    y = np.array([2, 2, -4, -4], np.int32)
    out = np.zeros(4, np.int32)
    call_jit(module, "f", [x, y], [out])
    np.testing.assert_array_equal(out, np.array([3, -3, -2, 2], np.int32))  # truncation toward zero


def test_dynamic_shape_chain(ctx: ir.Context) -> None:
    t = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()], F32())
    module = build("f", [t, t], t, lambda a, b: dsl.AddOp(t, dsl.MulOp(t, a, a).result, b).result)
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    y = np.arange(1000, dtype=np.float32)
    out = np.empty(1000, np.float32)
    call_jit(module, "f", [x, y], [out])
    np.testing.assert_allclose(out, x * x + y, rtol=1e-6)


@pytest.mark.parametrize(
    ("a_trans", "b_trans"), [(False, False), (True, False), (False, True), (True, True)]
)
def test_matmul_transposes(ctx: ir.Context, a_trans: bool, b_trans: bool) -> None:
    m, k, n = 5, 7, 3
    rng = np.random.default_rng(2)
    a = rng.standard_normal((k, m) if a_trans else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if b_trans else (k, n)).astype(np.float32)
    ta, tb, tc = tensor(list(a.shape), F32()), tensor(list(b.shape), F32()), tensor([m, n], F32())
    trans = {"a_trans": a_trans or None, "b_trans": b_trans or None}
    module = build("mm", [ta, tb], tc, lambda x, y: dsl.MatmulOp(tc, x, y, **trans).result)
    out = np.zeros((m, n), np.float32)
    call_jit(module, "mm", [a, b], [out])
    ref = (a.T if a_trans else a) @ (b.T if b_trans else b)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_matmul_f16_accumulates_in_f32(ctx: ir.Context) -> None:
    a = np.full((2, 4096), 1.0, np.float16)
    b = np.full((4096, 2), 1.0, np.float16)
    ta, tb = tensor([2, 4096], ir.F16Type.get()), tensor([4096, 2], ir.F16Type.get())
    tc = tensor([2, 2], F32())
    module = build("mm", [ta, tb], tc, lambda x, y: dsl.MatmulOp(tc, x, y).result)
    out = np.zeros((2, 2), np.float32)
    call_jit(module, "mm", [a, b], [out])
    # An f16 accumulator would saturate at 2048 (f16 cannot represent 2049).
    np.testing.assert_array_equal(out, np.full((2, 2), 4096.0, np.float32))


def test_cast_f16_to_f32(ctx: ir.Context) -> None:
    src, dst = tensor([6], ir.F16Type.get()), tensor([6], F32())
    module = build("c", [src], dst, lambda x: dsl.CastOp(dst, x).result)
    x = np.array([0.5, -1.25, 65504.0, 6.1e-5, np.inf, -0.0], np.float16)
    out = np.zeros(6, np.float32)
    call_jit(module, "c", [x], [out])
    np.testing.assert_array_equal(out, x.astype(np.float32))


def test_cast_f32_to_i32_truncates(ctx: ir.Context) -> None:
    src, dst = tensor([4], F32()), tensor([4], ir.IntegerType.get_signless(32))
    module = build("c", [src], dst, lambda x: dsl.CastOp(dst, x).result)
    x = np.array([1.9, -1.9, 100.5, 0.0], np.float32)
    out = np.zeros(4, np.int32)
    call_jit(module, "c", [x], [out])
    np.testing.assert_array_equal(out, np.array([1, -1, 100, 0], np.int32))


def test_slice_at_dynamic_offsets(ctx: ir.Context) -> None:
    src, dst = tensor([16, 8], F32()), tensor([4, 3], F32())
    index = ir.IndexType.get()
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("s", ir.FunctionType.get([src, index], [dst]))
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            x, i = entry.arguments
            two = arith.ConstantOp(index, 2).result
            func.ReturnOp([dsl.SliceOp(dst, x, [i, two]).result])
    x = np.arange(128, dtype=np.float32).reshape(16, 8)
    out = np.zeros((4, 3), np.float32)
    import ctypes

    import dsl_mlir
    from dsl_mlir.runtime import get_ranked_memref_descriptor
    engine = dsl_mlir.jit(dsl_mlir.lower(module))
    dx, dout = get_ranked_memref_descriptor(x), get_ranked_memref_descriptor(out)
    engine.invoke("s", ctypes.pointer(ctypes.pointer(dx)), ctypes.pointer(ctypes.c_int64(5)),
                  ctypes.pointer(ctypes.pointer(dout)))
    np.testing.assert_array_equal(out, x[5:9, 2:5])


def test_full_and_create(ctx: ir.Context) -> None:
    t = tensor([3, 2], F32())

    def body(v: ir.Value) -> ir.Value:
        filled = dsl.FullOp(t, v, []).result
        return dsl.AddOp(t, filled, filled).result

    module = build("f", [F32()], t, body)
    out = np.zeros((3, 2), np.float32)
    import ctypes

    import dsl_mlir
    from dsl_mlir.runtime import get_ranked_memref_descriptor
    engine = dsl_mlir.jit(dsl_mlir.lower(module))
    engine.invoke("f", ctypes.pointer(ctypes.c_float(1.5)),
                  ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(out))))
    np.testing.assert_array_equal(out, np.full((3, 2), 3.0, np.float32))
