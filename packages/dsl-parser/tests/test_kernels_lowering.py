"""Kernels through dsl-mlir's pipelines: CPU (launches become loops, run here with numpy)
and NVPTX (compiled to PTX, checked against the kernels' signatures, not run). A pipeline
that is not registered is a failure."""

from __future__ import annotations

import ctypes
import re

import dsl_mlir
import numpy as np
import parser_kernel_defs as kd
from dsl_mlir import gpu
from dsl_mlir import runtime as rt
from parser_kernel_helpers import arg_types, gpu_funcs, parse_text

import dsl_parser.language as pl
from dsl_parser import Function

CPU = "dsl-lower-launches-to-cpu,dsl-to-llvm-cpu"


def run_on_cpu(fn: Function, *args: object) -> None:
    """Lower with the CPU launch lowering and call the host function (arrays in place)."""
    engine = dsl_mlir.jit(dsl_mlir.lower(fn.module, CPU))
    pointers: list[object] = []
    for arg in args:
        if isinstance(arg, np.ndarray):
            pointers.append(ctypes.pointer(ctypes.pointer(rt.get_ranked_memref_descriptor(arg))))
        elif arg is None:  # a stream
            pointers.append(ctypes.pointer(ctypes.c_void_p(0)))
        else:
            pointers.append(ctypes.pointer(arg))
    engine.invoke(fn.name, *pointers)


def test_vadd_runs_on_the_cpu() -> None:
    fn = pl.parse_function(kd.vadd)
    x = np.arange(1000, dtype=np.float32)
    y = np.full(1000, 0.5, np.float32)
    z = np.zeros(1000, np.float32)
    run_on_cpu(fn, x, y, z, None)
    np.testing.assert_allclose(z, x + y)


def test_row_sum_transpose_matmul_and_early_return_run_on_the_cpu() -> None:
    fn = parse_text("""
        M = pl.dynamic("M")
        K = pl.dynamic("K")
        N = pl.dynamic("N")

        @pl.kernel
        def row_sum(x: pl.Tensor[[M, K], pl.FP32], out: pl.Tensor[[M], pl.FP32]):
            row = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
            if row >= x.shape[0]:
                return
            acc = 0.0
            for k in range(x.shape[1]):
                acc = acc + x[row, k]
            out[row] = acc

        @pl.kernel
        def transpose(x: pl.Tensor[pl.FP32], y: pl.Tensor[pl.FP32]):
            i = pl.block_id(1) * pl.block_dim(1) + pl.thread_id(1)
            j = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
            if i < x.shape[0] and j < x.shape[1]:
                y[j, i] = x[i, j]

        @pl.kernel
        def matmul(a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
                   c: pl.Tensor[[M, N], pl.FP32], T: dc.Constexpr[int]):
            i = pl.block_id(1) * T + pl.thread_id(1)
            j = pl.block_id(0) * T + pl.thread_id(0)
            if i < c.shape[0] and j < c.shape[1]:
                acc = 0.0
                for k in range(a.shape[1]):
                    acc = acc + a[i, k] * b[k, j]
                c[i, j] = acc

        @pl.function
        def host(x: pl.Tensor[[M, K], pl.FP32], out: pl.Tensor[[M], pl.FP32],
                 t: pl.Tensor[[M, K], pl.FP32], a: pl.Tensor[[M, K], pl.FP32],
                 b: pl.Tensor[[K, N], pl.FP32], c: pl.Tensor[[M, N], pl.FP32]):
            row_sum(x, out).launch(grid=pl.ceil_div(M, 32), block=32)
            transpose(x, t).launch(grid=(pl.ceil_div(K, 8), pl.ceil_div(M, 8)), block=(8, 8))
            matmul(a, b, c, 8).launch(grid=(pl.ceil_div(N, 8), pl.ceil_div(M, 8)), block=(8, 8))
    """)
    rng = np.random.default_rng(0)
    x = rng.random((37, 19), dtype=np.float32)
    out = np.zeros(37, np.float32)
    t = np.zeros((19, 37), np.float32)
    a = rng.random((37, 19), dtype=np.float32)
    b = rng.random((19, 23), dtype=np.float32)
    c = np.zeros((37, 23), np.float32)
    run_on_cpu(fn, x, out, t, a, b, c)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_structs_and_constexprs_run_on_the_cpu() -> None:
    fn = pl.parse_function(kd.constant_arguments)
    x = np.arange(256, dtype=np.float32)
    y = np.zeros(256, np.float32)
    run_on_cpu(fn, x, y)
    np.testing.assert_allclose(y, x * 2.0 + 1.0)


def _ptx_entries(ptx: str) -> dict[str, tuple[int, str]]:
    """PTX entry name -> (number of .param, body text)."""
    found = re.findall(r"\.visible \.entry (\w+)\(([^)]*)\)\s*\{(.*?)\n\}", ptx, re.S)
    return {name: (params.count(".param"), body) for name, params, body in found}


def _slots(mlir_type: str) -> int:
    """Kernel parameters one MLIR argument becomes: a memref of rank r is
    (allocated, aligned, offset, sizes[r], strides[r]); a scalar is one."""
    if mlir_type.startswith("memref<"):
        rank = mlir_type.count("x")
        return 3 + 2 * rank
    return 1


def test_kernels_compile_for_nvptx_with_the_signatures_the_host_launches() -> None:
    for host in (kd.vadd, kd.affine, kd.scales):
        fn = pl.parse_function(host)
        (ptx,) = gpu.ptx_of(dsl_mlir.lower(fn.module, "dsl-to-llvm-nvptx")).values()
        entries = _ptx_entries(ptx)
        kernels = gpu_funcs(fn)
        assert sorted(entries) == sorted(kernels), host.__name__
        for name, op in kernels.items():
            params, body = entries[name]
            assert params == sum(_slots(t) for t in arg_types(op)), (name, arg_types(op))
            assert "st.global" in body and "ld.global" in body, name
    # scale_by_2 and scale_by_3 are two specializations with their own closure constant
    (ptx,) = gpu.ptx_of(dsl_mlir.lower(pl.parse_function(kd.scales).module,
                                       "dsl-to-llvm-nvptx")).values()
    bodies = [body.replace(name, "K") for name, (_, body) in _ptx_entries(ptx).items()]
    assert len(bodies) == 2 and bodies[0] != bodies[1]
    assert "0f40400000" in bodies[1]  # 3.0f: the second specialization multiplies by 3
