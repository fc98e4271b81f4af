"""JitArgument adapters for host values, registered in dsl-core's registry.

| Python value | adapter | IR type | ABI slots |
|---|---|---|---|
| ``numpy.ndarray`` | ``NdarrayArgument`` | ``tensor<d0x...xT>`` | one ``Memref *`` |
| object with ``__dlpack__`` (CPU) | ``NdarrayArgument`` over ``numpy.from_dlpack`` | same | same |
| ``int`` / ``float`` / ``bool`` | dsl-core's Int32 / Float32 / Boolean (or the annotated dtype) | scalar | one |

The slots agree with docs/abi.md and with ``dsl_mlir.dispatch.PackedKernel``
(tests check both paths give the same results).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Hashable
from functools import cache
from typing import Any

import numpy as np

import dsl_core as dc
from dsl_core import dtypes

Fill = Callable[[Any, Any], None]

_MLIR_ELEMENT = {d.abi_name: d.mlir_name for d in dtypes.ALL if d.kind != "index"}


@cache
def memref_descriptor(rank: int) -> type[ctypes.Structure]:
    """The C struct of a rank-``rank`` memref descriptor (docs/abi.md)."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"Memref{rank}D", (ctypes.Structure,), {"_fields_": fields})


def contiguous_view(value: Any, what: str) -> np.ndarray:
    """``value`` as a C-contiguous ndarray without copying (ValueError if it is strided)."""
    array = value if isinstance(value, np.ndarray) else np.from_dlpack(value)
    if not array.flags.c_contiguous:
        raise ValueError(f"{what} is not C-contiguous; pass numpy.ascontiguousarray(...) of it")
    return array


class NdarrayArgument:
    """Host contract of a numpy array (or a DLPack tensor viewed as one)."""

    __slots__ = ("array",)

    def __init__(self, value: Any) -> None:
        self.array = value if isinstance(value, np.ndarray) else np.from_dlpack(value)

    def __get_ir_types__(self) -> list[Any]:
        from dsl_mlir import ir

        element = _MLIR_ELEMENT.get(self.array.dtype.name)
        if element is None:
            raise TypeError(f"ndarray of dtype {self.array.dtype} has no DSL element type")
        shape = "x".join(str(d) for d in self.array.shape)
        return [ir.Type.parse(f"tensor<{shape + 'x' if shape else ''}{element}>")]

    def __cache_signature__(self) -> Hashable:
        return ("ndarray", self.array.dtype.str, self.array.shape)

    def __c_abi_spec__(self) -> list[tuple[Any, Fill]]:
        rank = self.array.ndim
        desc = memref_descriptor(rank)

        def fill(argument: Any, storage: Any) -> None:
            # storage is a POINTER(desc) slot; point it at a descriptor of the current argument.
            array = contiguous_view(argument.array if isinstance(argument, NdarrayArgument)
                                    else argument, "argument")
            d = desc()
            d.allocated = d.aligned = array.ctypes.data
            d.offset = 0
            for i, n in enumerate(array.shape):
                d.sizes[i] = n
            for i, s in enumerate(array.strides):
                d.strides[i] = s // array.itemsize
            storage.contents = d  # ctypes keeps `d` alive through the pointer

        return [(ctypes.POINTER(desc), fill)]


def adapt(value: Any) -> Any:
    """A JitArgument for ``value``: registry first, then any CPU ``__dlpack__`` object."""
    if isinstance(value, np.ndarray):
        return NdarrayArgument(value)
    reg = dc.JitArgumentRegistry.lookup(type(value))
    if reg is not None:
        return reg.adapter(value)
    if hasattr(value, "__dlpack__"):
        return NdarrayArgument(value)
    if isinstance(value, dc.JitArgument):
        return value
    raise TypeError(f"no JitArgument adapter for {type(value).__name__}; register one with "
                    f"dsl_core.JitArgumentRegistry.register")


def register() -> None:
    """Register the host adapters (idempotent)."""
    if dc.JitArgumentRegistry.lookup(np.ndarray) is None:
        dc.JitArgumentRegistry.register(np.ndarray, NdarrayArgument, dsl_type=dc.Tensor)
