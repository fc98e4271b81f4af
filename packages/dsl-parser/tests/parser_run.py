"""Test helper: lower a parsed function with dsl-mlir's CPU pipeline, JIT it, call it.

The calling convention is docs/abi.md's: one slot per parameter (a memref descriptor for
an array, the scalar itself otherwise), then one out-parameter per tensor result. A single
scalar result comes back through a trailing pointer; several scalar results come back as
one struct through a leading pointer (MLIR's C interface for multi-result functions).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import dsl_mlir
import numpy as np
from dsl_mlir.runtime import get_ranked_memref_descriptor

from dsl_parser import Function, Program

Scalar = ctypes._SimpleCData  # type: ignore[type-arg]


def _slot(arg: np.ndarray | Scalar | ctypes.Structure) -> object:
    if isinstance(arg, np.ndarray):
        return ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(arg)))
    return ctypes.pointer(arg)


def run(function: Function | Program, *args: np.ndarray | Scalar,
        outputs: Sequence[np.ndarray] = (), result: Scalar | ctypes.Structure | None = None,
        name: str | None = None, pipeline: str = "dsl-to-llvm-cpu") -> None:
    """Call ``name`` (the function's own name by default) with ``args``; ``outputs`` (arrays,
    one per tensor result) and ``result`` (a ctypes scalar, or a ctypes Structure for several
    scalar results) are written in place. Asserts that no input array was written."""
    entry = name if name is not None else function.name  # type: ignore[union-attr]
    engine = dsl_mlir.jit(dsl_mlir.lower(function.module, pipeline))
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    slots = [_slot(a) for a in (*args, *outputs)]
    if isinstance(result, ctypes.Structure):
        slots.insert(0, ctypes.pointer(ctypes.pointer(result)))
    elif result is not None:
        slots.append(ctypes.pointer(result))
    engine.invoke(entry, *slots)
    after = [a for a in args if isinstance(a, np.ndarray)]
    for i, (old, new) in enumerate(zip(before, after, strict=True)):
        np.testing.assert_array_equal(new, old, err_msg=f"input array {i} was written")
