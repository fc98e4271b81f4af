"""dsl_mlir.jit(llvm_passes=...) and dsl-emit-c-interface{internalize}: the runtime's fast JIT."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import dsl_mlir
from dsl_mlir.runtime import get_ranked_memref_descriptor

TEXT = """func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = dsl.mul %x, %x : tensor<?xf32>
  %1 = dsl.add %0, %y : tensor<?xf32>
  return %1 : tensor<?xf32> }"""
PACKED = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))


def _run(engine: object, *arrays: np.ndarray) -> None:
    fn = PACKED(engine.raw_lookup("_mlir_ciface_f"))  # type: ignore[attr-defined]
    descs = [ctypes.pointer(get_ranked_memref_descriptor(a)) for a in arrays]
    fn((ctypes.c_void_p * len(descs))(*[ctypes.cast(ctypes.pointer(d), ctypes.c_void_p) for d in descs]))


@pytest.mark.parametrize("passes", [dsl_mlir.FAST_LLVM_PASSES, None, "function(simplifycfg)"])
@pytest.mark.parametrize("internalize", [False, True])
def test_results_do_not_depend_on_the_llvm_pipeline(passes: str | None, internalize: bool) -> None:
    x = np.linspace(-2, 2, 1001, dtype=np.float32)
    y = np.full(1001, 0.25, np.float32)
    out = np.zeros_like(x)
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(TEXT), options={"internalize-entries": internalize})
        engine = dsl_mlir.jit(lowered, llvm_passes=passes)
        _run(engine, x, y, out)
        # internalized: only the C interface remains (no packed wrapper of @f itself)
        assert (engine.raw_lookup("f") == 0) == internalize
    np.testing.assert_allclose(out, x * x + y, rtol=1e-6)


def test_internalize_marks_entries_internal_and_keeps_the_c_interface() -> None:
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(TEXT), options={"internalize-entries": True})
    text = str(lowered)
    assert "llvm.func internal @f(" in text
    assert "llvm.func @_mlir_ciface_f(" in text


def test_a_bad_llvm_pipeline_is_an_error_not_an_abort() -> None:
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(TEXT))
        with pytest.raises(dsl_mlir.MLIRDiagnosticError, match="invalid LLVM pass pipeline 'no-such-pass'"):
            dsl_mlir.jit(lowered, llvm_passes="no-such-pass")


def test_parallel_code_needs_and_gets_its_coroutines_lowered() -> None:
    text = """func.func @f(%x: tensor<8192xf32>) -> tensor<8192xf32> {
      %0 = dsl.exp %x : tensor<8192xf32>
      return %0 : tensor<8192xf32> }"""
    x = np.linspace(-1, 1, 8192, dtype=np.float32)
    out = np.zeros_like(x)
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(text),
                                 options={"parallel": True, "internalize-entries": True})
        engine = dsl_mlir.jit(lowered, parallel=True, llvm_passes=dsl_mlir.FAST_LLVM_PASSES)
        _run(engine, x, out)
    np.testing.assert_allclose(out, np.exp(x), rtol=2e-6)


SLICE = """func.func @s(%x: tensor<16x8xf32>, %i: index) -> tensor<4x3xf32> {
  %c2 = arith.constant 2 : index
  %0 = dsl.slice %x[%i, %c2] : tensor<16x8xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32> }"""


@pytest.mark.parametrize("passes", [None, dsl_mlir.FAST_LLVM_PASSES])
def test_invoke_works_and_raises_the_checks_errors_whatever_the_pipeline(passes: str | None) -> None:
    """Engines built with llvm_passes (from a capsule: the native class) used to lack
    invoke and lookup altogether (AttributeError)."""
    x = np.arange(128, dtype=np.float32).reshape(16, 8)
    with dsl_mlir.context():
        engine = dsl_mlir.jit(dsl_mlir.lower(dsl_mlir.parse_module(SLICE)), llvm_passes=passes)

    def call(offset: int) -> np.ndarray:
        out = np.zeros((4, 3), np.float32)
        dx, dout = get_ranked_memref_descriptor(x), get_ranked_memref_descriptor(out)
        engine.invoke("s", ctypes.pointer(ctypes.pointer(dx)), ctypes.pointer(ctypes.c_int64(offset)),
                      ctypes.pointer(ctypes.pointer(dout)))
        return out

    np.testing.assert_array_equal(call(5), x[5:9, 2:5])
    with pytest.raises(IndexError, match="offset 100 in dimension 0 is out of bounds"):
        call(100)
    np.testing.assert_array_equal(call(12), x[12:16, 2:5])  # the error was cleared
    with pytest.raises(RuntimeError, match="Unknown function nope"):
        engine.lookup("nope")


def test_reused_target_machines_keep_each_opt_level_apart() -> None:
    """The JIT lends host TargetMachines from a pool kept per code generation level:
    alternating levels, each level's code is the same as the first time, and O0 code is
    not O3 code."""
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(TEXT))
        fast = dsl_mlir.FAST_LLVM_PASSES  # the same IR pipeline: only code generation differs
        first = {level: dsl_mlir.to_assembly(lowered, level, llvm_passes=fast) for level in (0, 3)}
        again = [(level, dsl_mlir.to_assembly(lowered, level, llvm_passes=fast))
                 for level in (3, 0, 3, 0)]
    assert all(text == first[level] for level, text in again)
    # O0 code generation (fast register allocation) spills to the stack: O3's far less
    assert first[0].count("(%rsp)") > 3 * first[3].count("(%rsp)")


THREADED_JIT = """
import threading
import numpy as np
import dsl_mlir
import test_mlir_jit_passes as t

errors = []

def work(seed):
    try:
        rng = np.random.default_rng(seed)
        for i in range(6):
            x = rng.standard_normal(257).astype(np.float32)
            y = rng.standard_normal(257).astype(np.float32)
            out = np.zeros_like(x)
            with dsl_mlir.context():
                lowered = dsl_mlir.lower(dsl_mlir.parse_module(t.TEXT))
                engine = dsl_mlir.jit(lowered, opt_level=(seed + i) % 4,
                                      llvm_passes=dsl_mlir.FAST_LLVM_PASSES)
                t._run(engine, x, y, out)
            np.testing.assert_allclose(out, x * x + y, rtol=1e-6)
    except BaseException as err:
        errors.append(repr(err))

threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
for th in threads: th.start()
for th in threads: th.join()
print("ERRORS", errors)
"""


def test_concurrent_jits_on_threads_share_the_detected_host_safely() -> None:
    """Four threads compile and run modules at once at mixed opt levels (all share the
    host's CPU and features, detected once per process; each engine makes its own
    TargetMachine); in a subprocess, so that a race that crashes is a failure here
    rather than the end of the run."""
    import subprocess
    import sys
    from pathlib import Path

    proc = subprocess.run([sys.executable, "-c", THREADED_JIT], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "ERRORS []"
