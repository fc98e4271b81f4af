"""Test helper: lower, JIT and call a module with numpy arrays."""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence

import numpy as np

import dsl_mlir
from dsl_mlir import ir
from dsl_mlir.runtime import get_ranked_memref_descriptor

#: numpy dtype -> MLIR element type spelling (bf16 travels as uint16 bits).
MLIR_ELEMENT = {
    np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
    np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64", np.dtype(np.bool_): "i1",
}


def tensor_type(shape: Sequence[int], element: str | np.dtype) -> str:
    """``tensor<4x8xf32>`` for a shape and an element (MLIR name or numpy dtype)."""
    elt = element if isinstance(element, str) else MLIR_ELEMENT[np.dtype(element)]
    return "tensor<" + "".join(f"{d}x" for d in shape) + elt + ">"


def call_jit(module: ir.Module, name: str, inputs: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray],
             options: Mapping[str, bool | int | str] | None = None) -> None:
    """Lower ``module`` with dsl-to-llvm-cpu, JIT it and call ``name``.

    Tensor results are out-params after the inputs (see docs/abi.md): each
    array in ``outputs`` is written in place; the inputs must come back
    unchanged (tensors are values: a call writes only its outputs).
    """
    parallel = bool((options or {}).get("parallel"))  # the async runtime is then needed
    engine = dsl_mlir.jit(dsl_mlir.lower(module, options=options), parallel=parallel)
    descs = [get_ranked_memref_descriptor(a) for a in (*inputs, *outputs)]
    args = [ctypes.pointer(ctypes.pointer(d)) for d in descs]
    before = [a.tobytes() for a in inputs]
    engine.invoke(name, *args)
    for i, (a, was) in enumerate(zip(inputs, before)):
        assert a.tobytes() == was, f"{name} modified its input {i}"


def run_text(text: str, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray],
             name: str = "f", options: Mapping[str, bool | int | str] | None = None) -> None:
    """Parse MLIR text (in the current context) and run it like ``call_jit``."""
    call_jit(dsl_mlir.parse_module(text), name, inputs, outputs, options)


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bit patterns (round to nearest even) as uint16."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bf16_bits(b: np.ndarray) -> np.ndarray:
    """bf16 bit patterns (uint16) -> float32."""
    return (b.astype(np.uint32) << 16).view(np.float32)
