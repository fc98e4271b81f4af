"""Test helper: lower, JIT and call a module with numpy arrays."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np

import dsl_mlir
from dsl_mlir import ir
from dsl_mlir.runtime import get_ranked_memref_descriptor


def call_jit(module: ir.Module, name: str, inputs: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> None:
    """Lower ``module`` with dsl-to-llvm-cpu, JIT it and call ``name``.

    Tensor results are out-params after the inputs (see docs/abi.md): each
    array in ``outputs`` is written in place.
    """
    engine = dsl_mlir.jit(dsl_mlir.lower(module))
    descs = [get_ranked_memref_descriptor(a) for a in (*inputs, *outputs)]
    args = [ctypes.pointer(ctypes.pointer(d)) for d in descs]
    engine.invoke(name, *args)
