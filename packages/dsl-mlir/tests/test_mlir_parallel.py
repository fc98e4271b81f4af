"""dsl-to-llvm-cpu{parallel}: scf.forall -> async tasks on libdsl_async_runtime.so.

Results must equal the sequential ones; the runtime's worker threads must do
the work (checked through their CPU time, since the machine may be busy).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from mlir_helpers import tensor_type

import dsl_mlir
from dsl_mlir import ir
from dsl_mlir.runtime import get_ranked_memref_descriptor

RUNTIME = os.path.join(os.path.dirname(ir.__file__), "_mlir_libs", "libdsl_async_runtime.so")
RNG = np.random.default_rng(3)


def compile_parallel(text: str, num_threads: int = 0):  # type: ignore[no-untyped-def]
    options = {"parallel": True, "num-threads": num_threads}
    return dsl_mlir.jit(dsl_mlir.lower(dsl_mlir.parse_module(text), options=options),
                        shared_libs=[RUNTIME])


def invoke(engine, name: str, arrays: list[np.ndarray]) -> None:  # type: ignore[no-untyped-def]
    descs = [get_ranked_memref_descriptor(a) for a in arrays]
    engine.invoke(name, *[ctypes.pointer(ctypes.pointer(d)) for d in descs])


def test_runtime_is_built_beside_the_capi_library() -> None:
    assert os.path.exists(RUNTIME)
    lib = ctypes.CDLL(RUNTIME)
    lib.mlirAsyncRuntimGetNumWorkerThreads.restype = ctypes.c_int64
    assert lib.mlirAsyncRuntimGetNumWorkerThreads() == max(1, os.cpu_count() or 1)


def test_without_the_runtime_the_jit_reports_missing_symbols() -> None:
    # In a fresh process: a JIT that loaded the runtime earlier (any parallel test)
    # makes its symbols resolvable for every later engine of the process.
    script = textwrap.dedent("""
        import numpy as np, pytest, dsl_mlir
        with dsl_mlir.context():
            t = "tensor<65536xf32>"
            lowered = dsl_mlir.lower(dsl_mlir.parse_module(
                f"func.func @f(%x: {t}) -> {t} {{ %0 = dsl.exp %x : {t}\\n return %0 : {t} }}"),
                options={"parallel": True})
            # jit materializes the code: the missing symbols are its exception's message
            with pytest.raises(dsl_mlir.MLIRDiagnosticError,
                               match="JIT compilation failed: .*Symbols not found.*mlirAsyncRuntime"):
                dsl_mlir.jit(lowered)
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


@pytest.mark.parametrize("n", [1, 1000, 1 << 20, 1_000_003])
def test_elementwise_chain(ctx: ir.Context, n: int) -> None:
    t = tensor_type((n,), "f32")
    engine = compile_parallel(f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
      %0 = dsl.mul %a, %b : {t}
      %1 = dsl.exp %0 : {t}
      return %1 : {t} }}""")
    a, b = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    invoke(engine, "f", [a, b, out])
    np.testing.assert_allclose(out, np.exp(a * b), rtol=2e-6)


@pytest.mark.parametrize(("m", "k", "n", "threads"), [(1024, 300, 96, 0), (37, 50, 41, 2), (9, 800, 33, 3)])
def test_matmul(ctx: ir.Context, m: int, k: int, n: int, threads: int) -> None:
    ta, tb, tc = tensor_type((m, k), "f32"), tensor_type((k, n), "f32"), tensor_type((m, n), "f32")
    engine = compile_parallel(f"""func.func @mm(%a: {ta}, %b: {tb}) -> {tc} {{
      %0 = dsl.matmul %a, %b : {ta}, {tb} -> {tc}
      return %0 : {tc} }}""", threads)
    a, b = RNG.standard_normal((m, k)).astype(np.float32), RNG.standard_normal((k, n)).astype(np.float32)
    out = np.zeros((m, n), np.float32)
    invoke(engine, "mm", [a, b, out])
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_reductions_softmax_argmax_dynamic(ctx: ir.Context) -> None:
    d, c, i = tensor_type(("?", 300), "f32"), tensor_type(("?", 1), "f32"), tensor_type(("?",), "i64")
    engine = compile_parallel(f"""func.func @f(%x: {d}) -> ({d}, {i}) {{
      %m = dsl.max %x [1] keepdim : {d} -> {c}
      %s0 = dsl.sub %x, %m : ({d}, {c}) -> {d}
      %e = dsl.exp %s0 : {d}
      %s = dsl.sum %e [1] keepdim : {d} -> {c}
      %r = dsl.div %e, %s : ({d}, {c}) -> {d}
      %a = dsl.argmax %x axis 1 : {d} -> {i}
      return %r, %a : {d}, {i} }}""")
    x = RNG.standard_normal((517, 300)).astype(np.float32)
    out, idx = np.zeros_like(x), np.zeros(517, np.int64)
    invoke(engine, "f", [x, out, idx])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(idx, np.argmax(x, axis=1))


def worker_cpu_ticks() -> int:
    """CPU time (clock ticks) of every thread of this process but the main one."""
    total = 0
    for tid in os.listdir("/proc/self/task"):
        if int(tid) == threading.main_thread().native_id:
            continue
        with open(f"/proc/self/task/{tid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux /proc")
def test_work_runs_on_the_worker_threads(ctx: ir.Context) -> None:
    t = tensor_type((4_000_000,), "f32")
    engine = compile_parallel(f"""func.func @f(%a: {t}) -> {t} {{
      %0 = dsl.tanh %a : {t}
      %1 = dsl.exp %0 : {t}
      return %1 : {t} }}""")
    a = RNG.standard_normal(4_000_000).astype(np.float32)
    out = np.zeros_like(a)
    invoke(engine, "f", [a, out])
    before = worker_cpu_ticks()
    for _ in range(30):
        invoke(engine, "f", [a, out])
    assert worker_cpu_ticks() - before > 0
    np.testing.assert_allclose(out, np.exp(np.tanh(a)), rtol=2e-6)


def test_concurrent_callers_share_the_pool(ctx: ir.Context) -> None:
    t = tensor_type((300, 257), "f64")
    engine = compile_parallel(f"""func.func @f(%a: {t}) -> {t} {{
      %0 = dsl.mul %a, %a : {t}
      return %0 : {t} }}""")
    inputs = [RNG.standard_normal((300, 257)) for _ in range(4)]
    outputs = [np.zeros((300, 257)) for _ in range(4)]

    def run(k: int) -> None:
        for _ in range(20):
            invoke(engine, "f", [inputs[k], outputs[k]])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for x, y in zip(inputs, outputs):
        np.testing.assert_array_equal(y, x * x)


def test_engines_dropped_right_after_a_parallel_call() -> None:
    """A worker may still be in an engine's code for a moment after it made the awaited
    token available; a blocking await now returns only once no worker is in JIT'd code,
    so the engine can be dropped at once (a rare segfault before: the code was unmapped
    under the worker). In a subprocess, many times, with a CPU hog competing."""
    script = textwrap.dedent(f"""
        import ctypes, threading
        import numpy as np
        import dsl_mlir
        from dsl_mlir.runtime import get_ranked_memref_descriptor
        text = '''func.func @f(%a: tensor<7x16xf32>, %b: tensor<16x17xf32>) -> tensor<7x17xf32> {{
          %0 = dsl.matmul %a, %b : tensor<7x16xf32>, tensor<16x17xf32> -> tensor<7x17xf32>
          return %0 : tensor<7x17xf32> }}'''
        stop = False
        def hog():
            while not stop:
                sum(range(1000))
        threading.Thread(target=hog, daemon=True).start()
        a, b = np.ones((7, 16), np.float32), np.ones((16, 17), np.float32)
        for i in range(60):
            out = np.zeros((7, 17), np.float32)
            with dsl_mlir.context():
                lowered = dsl_mlir.lower(dsl_mlir.parse_module(text), options={{"parallel": True}})
                engine = dsl_mlir.jit(lowered, shared_libs=[{RUNTIME!r}])
                descs = [get_ranked_memref_descriptor(x) for x in (a, b, out)]
                engine.invoke("f", *[ctypes.pointer(ctypes.pointer(d)) for d in descs])
                del engine
            assert (out == 16).all(), out
        stop = True
        print("ok", flush=True)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.returncode, proc.stderr[-2000:])
