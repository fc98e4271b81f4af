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
