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
