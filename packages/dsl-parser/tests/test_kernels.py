"""@pl.kernel and launches: the gpu.module / gpu.func / gpu.launch_func IR of host functions."""

from __future__ import annotations

import parser_kernel_defs as kd
import pytest
from parser_kernel_helpers import (
    arg_types,
    check_module,
    constant_value,
    enclosing,
    gpu_funcs,
    kernel_symbol,
    launch_config,
    launches,
    names,
    ops_named,
    owner_name,
    parse_text,
)

import dsl_parser
import dsl_parser.language as pl
from dsl_parser import Kernel, KernelSpecialization
from dsl_parser.types import STREAM, ScalarType, TensorType


def test_vadd_matches_the_contract() -> None:
    fn = pl.parse_function(kd.vadd)
    check_module(fn)
    assert "gpu.container_module" in fn.module.operation.attributes
    assert fn.host and [k.symbol for k in fn.kernels] == ["vadd_k"]
    top = [op.operation.name for op in fn.module.body.operations]
    assert top == ["gpu.module", "func.func"]
    assert fn.module.body.operations[0].attributes["sym_name"].value == "dsl_kernels"
    kernel = gpu_funcs(fn)["vadd_k"]
    assert "gpu.kernel" in kernel.attributes
    assert arg_types(kernel) == ["memref<?xf32>"] * 3 + ["index"]
    assert names(fn)[2:15] == [
        "gpu.block_id", "gpu.block_dim", "arith.muli", "gpu.thread_id", "arith.addi",
        "arith.cmpi", "scf.if", "memref.load", "memref.load", "arith.addf", "memref.store",
        "scf.yield", "gpu.return"]
    # host: memref parameters, a stream, no results
    assert arg_types(fn.func_op) == ["memref<?xf32>"] * 3 + ["!llvm.ptr"]
    assert str(fn.func_op.attributes["function_type"]).endswith("-> ()")
    assert [p.type for p in fn.signature.params][-1] is STREAM and fn.signature.results == []
    (launch,) = launches(fn)
    assert kernel_symbol(launch) == "@dsl_kernels::@vadd_k"
    grid, block, args, stream = launch_config(launch)
    assert owner_name(grid[0]) == "arith.ceildivsi"
    ceil = grid[0].owner
    assert owner_name(ceil.operands[0]) == "memref.dim" and constant_value(ceil.operands[1]) == 256
    assert [constant_value(v) for v in grid[1:]] == [1, 1]
    assert [constant_value(v) for v in block] == [256, 1, 1]
    entry = fn.func_op.regions[0].blocks[0]
    assert list(args[:3]) == list(entry.arguments[:3])
    assert owner_name(args[3]) == "memref.dim"
    assert stream == entry.arguments[3]
    text = str(fn)
    assert "gpu.launch_func <%arg3 : !llvm.ptr> @dsl_kernels::@vadd_k blocks in" in text


def test_loads_and_stores_index_with_the_thread_index() -> None:
    fn = pl.parse_function(kd.vadd)
    kernel = gpu_funcs(fn)["vadd_k"]
    entry = kernel.regions[0].blocks[0]
    loads, (store,) = ops_named(fn, "memref.load"), ops_named(fn, "memref.store")
    index = loads[0].operands[1]
    assert owner_name(index) == "arith.addi"
    assert [op.operands[0] for op in loads] == [entry.arguments[0], entry.arguments[1]]
    assert all(op.operands[1] == index for op in loads)
    assert store.operands[1] == entry.arguments[2] and store.operands[2] == index
    assert owner_name(store.operands[0]) == "arith.addf"


def test_the_same_specialization_is_parsed_once() -> None:
    fn = pl.parse_function(kd.vadd_twice)
    check_module(fn)
    assert list(gpu_funcs(fn)) == ["vadd_k"]
    assert [kernel_symbol(op) for op in launches(fn)] == ["@dsl_kernels::@vadd_k"] * 2
    assert "<" not in str(launches(fn)[0]).split("@dsl_kernels")[0]  # no stream
    grid, block, _, stream = launch_config(launches(fn)[1])
    assert stream is None and [constant_value(v) for v in block] == [128, 1, 1]
    assert [constant_value(v) for v in grid[1:]] == [1, 1]


def test_static_arguments_are_cast_to_dynamic_parameters() -> None:
    fn = pl.parse_function(kd.vadd_static)
    check_module(fn)
    casts = ops_named(fn, "memref.cast")
    assert [(str(c.operands[0].type), str(c.results[0].type)) for c in casts] == [
        ("memref<64xf32>", "memref<?xf32>")] * 3
    _, _, args, _ = launch_config(launches(fn)[0])
    assert [owner_name(a) for a in args[:3]] == ["memref.cast"] * 3
    assert constant_value(args[3]) == 64


def test_constexpr_specializations_and_struct_leaves() -> None:
    fn = pl.parse_function(kd.affine)
    check_module(fn)
    funcs = gpu_funcs(fn)
    assert list(funcs) == ["affine_k__c128", "affine_k__c64"]
    assert arg_types(funcs["affine_k__c128"]) == ["memref<?xf32>", "memref<?xf32>", "f32", "f32",
                                                  "i64"]
    assert [kernel_symbol(op).split("::")[1] for op in launches(fn)] == [
        "@affine_k__c128", "@affine_k__c64", "@affine_k__c128"]
    spec = fn.kernels[0]
    assert isinstance(spec, KernelSpecialization)
    assert spec.constants == {"BLOCK": 128} and spec.kernel == "affine_k"
    assert [p.name for p in spec.signature.params] == ["x", "y", "p.aff.scale", "p.aff.shift",
                                                       "p.n"]
    # the struct leaves of the host are passed one by one
    entry = fn.func_op.regions[0].blocks[0]
    _, _, args, stream = launch_config(launches(fn)[0])
    assert list(args) == list(entry.arguments[:5]) and stream == entry.arguments[5]
    # the Constexpr is a constant of the body
    body = str(funcs["affine_k__c64"])
    assert "arith.constant 64 : index" in body and "arith.muli %block_id_x, %c64" in body


def test_constexpr_from_an_overridden_host_parameter() -> None:
    fn = pl.parse_function(kd.with_constexpr, overrides={"B": pl.ConstValue(32)})
    check_module(fn)
    assert list(gpu_funcs(fn)) == ["affine_k__c32"]
    _, block, _, _ = launch_config(launches(fn)[0])
    assert constant_value(block[0]) == 32


def test_kernels_with_the_same_name_get_distinct_symbols() -> None:
    fn = pl.parse_function(kd.scales)
    check_module(fn)
    assert list(gpu_funcs(fn)) == ["scale_k__t32xf32_t32xf32", "scale_k__t32xf32_t32xf32_1"]
    texts = [str(op) for op in gpu_funcs(fn).values()]
    assert "2.000000e+00" in texts[0] and "3.000000e+00" in texts[1]


def test_transpose_2d() -> None:
    fn = parse_text("""
        M = pl.dynamic("M")

        @pl.kernel
        def transpose(x: pl.Tensor[pl.FP32], y: pl.Tensor[pl.FP32]):
            i = pl.block_id(1) * pl.block_dim(1) + pl.thread_id(1)
            j = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
            if i < x.shape[0] and j < x.shape[1]:
                y[j, i] = x[i, j]

        @pl.function
        def host(a: pl.Tensor[[64, 48], pl.FP32], b: pl.Tensor[[48, 64], pl.FP32],
                 c: pl.Tensor[[M, 8], pl.FP32], d: pl.Tensor[[8, M], pl.FP32]):
            transpose(a, b).launch(grid=(3, 4), block=(16, 16))
            transpose(c, d).launch(grid=(1, pl.ceil_div(c.shape[0], 16)), block=(8, 16))
    """)
    funcs = gpu_funcs(fn)
    assert list(funcs) == ["transpose__t64x48xf32_t48x64xf32", "transpose__tdx8xf32_t8xdxf32"]
    static, dynamic = funcs.values()
    assert arg_types(static) == ["memref<64x48xf32>", "memref<48x64xf32>"]
    assert arg_types(dynamic) == ["memref<?x8xf32>", "memref<8x?xf32>"]
    dims = [op.opview.dimension for op in ops_named(fn, "gpu.block_id")]
    assert [str(d) for d in dims] == ["#gpu<dim y>", "#gpu<dim x>"] * 2
    # static sizes are constants; the dynamic one is read with memref.dim
    assert "arith.constant 64 : index" in str(static) and "memref.dim" not in str(static)
    assert "memref.dim %arg0, %c0" in str(dynamic)
    load = next(op for op in ops_named(fn, "memref.load")
                if enclosing(op, "gpu.func") == static.operation)
    store = next(op for op in ops_named(fn, "memref.store")
                 if enclosing(op, "gpu.func") == static.operation)
    i, j = load.operands[1:]
    assert list(store.operands[2:]) == [j, i]
    grid, block, _, _ = launch_config(launches(fn)[0])
    assert [constant_value(v) for v in grid] == [3, 4, 1]
    assert [constant_value(v) for v in block] == [16, 16, 1]
    grid, _, _, _ = launch_config(launches(fn)[1])
    assert constant_value(grid[0]) == 1 and owner_name(grid[1]) == "arith.ceildivsi"


def test_row_reduction_with_a_loop_carried_accumulator() -> None:
    fn = parse_text("""
        R = pl.dynamic("R")
        C = pl.dynamic("C")

        @pl.kernel
        def row_sum(x: pl.Tensor[[R, C], pl.FP32], out: pl.Tensor[[R], pl.FP32]):
            row = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
            if row < x.shape[0]:
                acc = 0.0
                for k in range(0, x.shape[1]):
                    acc = acc + x[row, k]
                out[row] = acc

        @pl.function
        def host(x: pl.Tensor[[R, C], pl.FP32], out: pl.Tensor[[R], pl.FP32]):
            row_sum(x, out).launch(grid=pl.ceil_div(x.shape[0], 128), block=128)
    """)
    kernel = gpu_funcs(fn)["row_sum"]
    (loop,) = ops_named(fn, "scf.for")
    assert owner_name(loop.operands[1]) == "memref.dim"  # the upper bound: x.shape[1]
    assert len(loop.results) == 1 and str(loop.results[0].type) == "f32"
    assert owner_name(loop.operands[3]) == "arith.constant"  # acc starts at 0.0
    (store,) = ops_named(fn, "memref.store")
    assert store.operands[0] == loop.results[0]
    (guard,) = ops_named(fn, "scf.if")
    assert enclosing(loop, "scf.if") == guard.operation
    (cmp,) = ops_named(fn, "arith.cmpi")
    assert str(cmp.attributes["predicate"]) == "2 : i64"  # slt
    dims = [d for d in ops_named(fn, "memref.dim") if d.operation.parent == kernel.operation]
    assert len(dims) == 2  # x.shape[0] and x.shape[1], read once at the kernel's start


def test_matmul_tile_kernel() -> None:
    fn = parse_text("""
        M = pl.dynamic("M")
        K = pl.dynamic("K")
        N = pl.dynamic("N")

        @pl.kernel
        def matmul(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
                   c: pl.Tensor[[M, N], pl.FP32], TILE: dc.Constexpr[int]):
            i = pl.block_id(1) * TILE + pl.thread_id(1)
            j = pl.block_id(0) * TILE + pl.thread_id(0)
            if i < c.shape[0] and j < c.shape[1]:
                acc = 0.0
                for k in range(0, a.shape[1]):
                    acc = acc + a[i, k] * b[k, j]
                c[i, j] = acc

        @pl.function
        def host(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
                 c: pl.Tensor[[M, N], pl.FP32]):
            matmul(a, b, c, 16).launch(grid=(pl.ceil_div(N, 16), pl.ceil_div(M, 16)),
                                       block=(16, 16))
    """)
    assert list(gpu_funcs(fn)) == ["matmul__c16"]
    (loop,) = ops_named(fn, "scf.for")
    assert [op.operation.name for op in loop.regions[0].blocks[0].operations] == [
        "memref.load", "memref.load", "arith.mulf", "arith.addf", "scf.yield"]
    a_load, b_load = ops_named(fn, "memref.load")
    k = loop.regions[0].blocks[0].arguments[0]
    assert a_load.operands[2] == k and b_load.operands[1] == k
    grid, block, args, _ = launch_config(launches(fn)[0])
    assert [owner_name(v) for v in grid[:2]] == ["arith.ceildivsi"] * 2
    assert [constant_value(v) for v in block] == [16, 16, 1] and len(args) == 3


def test_kernel_language_details() -> None:
    fn = parse_text("""
        @pl.kernel
        def k(x: pl.Tensor[[16, 4], pl.FP32], y: pl.Tensor[[16], pl.INT32], r: pl.Scalar[pl.INT32],
              f: pl.Scalar[pl.FP64]):
            t = pl.thread_id(0)
            g = pl.grid_dim(2) + pl.block_dim(1)
            y[r] = 2
            x[t, 0] = 1
            x[t, 1] = pl.max(x[t, 2], 0.5)
            y[t] += pl.min(r, 7)
            if t == 0:
                v = 1.0
            elif t == 1:
                v = 2.0
            else:
                v = x[t, 3]
            x[t, 3] = v
            w = pl.const(1.5, pl.FP64) * f
            if g > 3:
                return
            return

        @pl.function
        def host(x: pl.Tensor[[16, 4], pl.FP32], y: pl.Tensor[[16], pl.INT32],
                 r: pl.Scalar[pl.INT32]):
            k(x, y, r, 2.0).launch(grid=1, block=16)
    """)
    text = str(gpu_funcs(fn)["k"])
    assert "gpu.grid_dim  z" in text and "gpu.block_dim  y" in text
    assert "arith.index_cast %arg2 : i32 to index" in text
    assert "arith.constant 2 : i32" in text and "arith.constant 1.000000e+00 : f32" in text
    assert "arith.maximumf" in text and "arith.minsi" in text
    assert "scf.if" in text and "-> (f32)" in text  # v assigned in every branch is a result
    assert "arith.mulf %cst" in text and ": f64" in text
    _, _, args, _ = launch_config(launches(fn)[0])
    assert str(args[3].type) == "f64" and owner_name(args[3]) == "arith.constant"


def test_host_control_flow_and_scalars() -> None:
    fn = parse_text("""
        @pl.kernel
        def fill(x: pl.Tensor[pl.FP32], v: pl.Scalar[pl.FP32], n: pl.Scalar[pl.INDEX]):
            i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
            if i < n:
                x[i] = v

        @pl.function
        def host(x: pl.Tensor[[1024], pl.FP32], reps: pl.Scalar[pl.INDEX],
                 flag: pl.Scalar[pl.BOOL]):
            n = x.shape[0] // 2
            for r in range(reps):
                if flag:
                    fill(x, 1.0, n).launch(grid=pl.ceil_div(n, 256), block=256)
                else:
                    fill(x, 2.0, x.shape[0]).launch(grid=x.shape[0] // 256, block=(256, 1))
            return
    """)
    assert list(gpu_funcs(fn)) == ["fill__t1024xf32"]
    (loop,) = ops_named(fn, "scf.for")
    assert [op.operation.name for op in loop.regions[0].blocks[0].operations][:1] == ["scf.if"]
    first, second = launches(fn)
    grid, _, args, _ = launch_config(first)
    assert constant_value(grid[0]) == 2 and constant_value(args[2]) == 512  # folded
    grid, _, args, _ = launch_config(second)
    assert constant_value(grid[0]) == 4 and constant_value(args[2]) == 1024


def test_strict_kernels_need_yields() -> None:
    fn = parse_text("""
        @pl.kernel(strict_ssa=True)
        def total(x: pl.Tensor[[64], pl.FP32], out: pl.Tensor[[1], pl.FP32]):
            for k, (acc,) in pl.range(64, init_values=(0.0,)):
                nxt = acc + x[k]
                s = pl.yield_(nxt)
            out[0] = s

        @pl.function
        def host(x: pl.Tensor[[64], pl.FP32], out: pl.Tensor[[1], pl.FP32]):
            total(x, out).launch(grid=1, block=1)
    """)
    assert len(ops_named(fn, "scf.for")) == 1


def test_kernel_objects() -> None:
    assert isinstance(kd.vadd_k, Kernel) and isinstance(kd.vadd_k, pl.Kernel)
    assert dsl_parser.Kernel is Kernel
    assert kd.vadd_k.name == "vadd_k" and kd.vadd_k.fn is not None
    assert not kd.vadd_k.strict_ssa
    text = repr(kd.vadd_k)
    assert text.startswith("<pl.kernel vadd_k(x: pl.Tensor[[N], pl.FP32], ")
    assert "n: pl.Scalar[pl.INDEX])" in text and "parser_kernel_defs.py:" in text
    assert "BLOCK: dc.Constexpr[int]" in repr(kd.affine_k) and "p: Params" in repr(kd.affine_k)

    def body(x: pl.Tensor[[4], pl.FP32]) -> None:
        pass

    strict = pl.kernel(strict_ssa=True)(body)
    assert isinstance(strict, Kernel) and strict.strict_ssa and strict.fn is body
    assert pl.kernel(strict) is strict


def test_python_execution_is_an_error() -> None:
    with pytest.raises(RuntimeError, match=r"must be launched from a @jit"):
        kd.vadd_k(1, 2, 3, 4)
    with pytest.raises(RuntimeError, match=r"pl.thread_id.*only has a meaning inside a @pl.kernel"):
        pl.thread_id(0)
    with pytest.raises(RuntimeError, match=r"kernels .* must be launched from a @jit"):
        pl.block_id(1)
    assert pl.ceil_div(7, 2) == 4 and pl.ceil_div(8, 2) == 4
    with pytest.raises(RuntimeError, match=r"pl.ceil_div\(\.\.\.\) only has a meaning inside"):
        pl.ceil_div(7.0, 2)


def test_printing_host_functions_is_not_supported() -> None:
    fn = pl.parse_function(kd.vadd)
    with pytest.raises(NotImplementedError, match="launches kernels"):
        fn.as_python()


def test_scalar_builtins_in_tensor_functions_round_trip() -> None:
    fn = pl.parse("""
import dsl_parser.language as pl

@pl.function
def f(x: pl.Tensor[[8], pl.FP32], a: pl.Scalar[pl.INDEX], u: pl.Scalar[pl.UINT32],
      s: pl.Scalar[pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
    c = pl.ceil_div(a, 4) + pl.ceil_div(9, 4)
    d = pl.max(u, 7)
    e = pl.min(pl.max(s, 0.0), 6.0)
    return pl.mul(x, e)
""")
    text = str(fn)
    assert "arith.ceildivsi" in text and "arith.maxui" in text and "arith.minimumf" in text
    assert "arith.constant 3 : index" in text  # ceil_div(9, 4) folds
    printed = fn.as_python()
    assert "pl.ceil_div(a, 4)" in printed and "pl.max(u, 7)" in printed
    assert dsl_parser.structural_equal(fn, pl.parse(printed))


def test_signature_types() -> None:
    fn = pl.parse_function(kd.affine)
    params = fn.signature.params
    assert params[0].type == TensorType((pl.dynamic("N"),), pl.FP32)
    assert params[2].type == ScalarType(pl.FP32) and params[-1].type is STREAM
    assert str(STREAM) == "dc.Stream"


def test_cpu_lowering_leaves_no_gpu_ops() -> None:
    """(test_kernels_lowering.py runs the result; a missing pass is a failure, not a skip)"""
    import dsl_mlir

    fn = pl.parse_function(kd.vadd)
    lowered = str(dsl_mlir.lower(fn.module, "dsl-lower-launches-to-cpu,dsl-to-llvm-cpu"))
    assert "gpu." not in lowered and "llvm.func @vadd(" in lowered


def test_postponed_annotations() -> None:
    import parser_kernel_future as fut

    fn = pl.parse_function(fut.host)
    check_module(fn)
    assert arg_types(fn.func_op) == ["memref<256xf32>", "f32", "f32", "i64", "!llvm.ptr"]
    assert arg_types(gpu_funcs(fn)["scaled__t256xf32_c64"]) == ["memref<256xf32>", "f32", "f32",
                                                                 "i64"]


def test_compile_time_struct_and_constexpr_arguments() -> None:
    fn = pl.parse_function(kd.constant_arguments)
    check_module(fn)
    assert list(gpu_funcs(fn)) == ["affine_k__c64"]
    grid, block, args, _ = launch_config(launches(fn)[0])
    assert constant_value(grid[0]) == 4 and constant_value(block[0]) == 64
    assert [str(a.type) for a in args[2:]] == ["f32", "f32", "i64"]
    assert [owner_name(a) for a in args[2:]] == ["arith.constant"] * 3
    assert constant_value(args[4]) == 5
