"""JitArgument adapters for host values, registered in dsl-core's registry.

| Python value | adapter | IR type | ABI slots |
|---|---|---|---|
| ``numpy.ndarray`` | ``NdarrayArgument`` | ``tensor<d0x...xT>`` | one ``Memref *`` |
| ``int`` / ``float`` / ``bool`` | dsl-core's Int32 / Float32 / Boolean (or the annotated dtype) | scalar | one |
| numpy scalars (``numpy.float32``, ``numpy.uint8``...) | the dsl-core scalar of their dtype | scalar | one |
| ``dc.Array[E, N]`` of scalars | ``ArrayArgument`` (the array's class is its DslType) | N scalars | N |
| object with ``__cuda_array_interface__`` | ``DeviceArrayArgument`` | ``tensor<...>`` | one (device mode) |
| object with ``__dlpack__`` (CPU) | ``NdarrayArgument`` over ``numpy.from_dlpack`` | ``tensor<...>`` | one |

Each entry of an adapter's ``__c_abi_spec__`` is a ``dsl_core.NativeSlot``: the C
dispatcher marshals the slot's value itself (a memref descriptor from an array, a
number), and the entry's ctypes ``fill`` is the fallback for a dispatcher that does
not know the slot kind. :func:`array_slot` makes the entry of an array for a user's
own ``__c_abi_spec__``. Both paths agree with docs/abi.md (tests compare them).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Hashable
from functools import cache
from typing import Any

import numpy as np

import dsl_core as dc
from dsl_core import dtypes
from dsl_core.abi import NativeSlot

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


def array_slot(dtype: Any, rank: int, source: Callable[[Any], Any] | None = None) -> NativeSlot:
    """The ``__c_abi_spec__`` entry of an array argument of element type ``dtype`` (a pl
    dtype such as ``pl.INT8``, or its numpy name) and rank ``rank``, whose array is
    ``source(argument)`` (the argument itself when None): a memref descriptor, built by
    the C dispatcher (which checks element type, shape and contiguity) or, where the
    dispatcher does not marshal memrefs, by this entry's ctypes fill."""
    info = dtype if isinstance(dtype, dtypes.DType) else dtypes.lookup(str(dtype))
    if info is None or info.kind == "index":
        raise TypeError(f"array_slot: {dtype!r} is not an array element type")
    desc = memref_descriptor(rank)
    get = source or (lambda argument: argument)

    def fill(argument: Any, storage: Any) -> None:
        # storage is a POINTER(desc) slot; point it at a descriptor of the current array.
        array = contiguous_view(get(argument), "argument")
        if array.ndim != rank or array.dtype != np.dtype(info.storage):
            raise TypeError(f"array_slot: expected a {rank}D {info.numpy_name} array, got a "
                            f"{array.ndim}D {array.dtype} one")
        d = desc()
        d.allocated = d.aligned = array.ctypes.data
        d.offset = 0
        for i, n in enumerate(array.shape):
            d.sizes[i] = n
        for i, s in enumerate(array.strides):
            d.strides[i] = s // array.itemsize
        storage.contents = d  # ctypes keeps `d` alive through the pointer

    return NativeSlot(ctypes.POINTER(desc), fill, "memref", source, dtype=info, rank=rank)


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

    def __c_abi_spec__(self) -> list[NativeSlot]:
        return [array_slot(self.array.dtype.name, self.array.ndim, _array_of)]


def _array_of(argument: Any) -> Any:
    return argument.array if isinstance(argument, NdarrayArgument) else argument


class DeviceArrayArgument:
    """Host contract of a GPU array (``__cuda_array_interface__``): one memref slot that
    the C dispatcher's device mode fills from the interface; it has no host memory, so
    its Python fill refuses."""

    __slots__ = ("interface", "value")

    def __init__(self, value: Any) -> None:
        self.value, self.interface = value, value.__cuda_array_interface__

    def _dtype(self) -> dtypes.DType:
        found = dtypes.lookup(np.dtype(self.interface["typestr"]).name)
        if found is None:
            raise TypeError(f"a device array of typestr {self.interface['typestr']!r} has no "
                            "DSL element type")
        return found

    def __get_ir_types__(self) -> list[Any]:
        from dsl_parser.types import TensorType

        return [TensorType(tuple(int(d) for d in self.interface["shape"]), self._dtype())]

    def __cache_signature__(self) -> Hashable:
        return ("device", self.interface["typestr"], tuple(self.interface["shape"]))

    def __c_abi_spec__(self) -> list[NativeSlot]:
        def fill(argument: Any, storage: Any) -> None:
            raise TypeError("a device array is marshalled by the C dispatcher's device mode "
                            "only (it has no host memory to describe)")

        rank = len(self.interface["shape"])
        return [NativeSlot(ctypes.POINTER(memref_descriptor(rank)), fill, "memref",
                           _device_value, dtype=self._dtype(), rank=rank)]


def _device_value(argument: Any) -> Any:
    return argument.value  # the dispatcher reads its __cuda_array_interface__


def dlpack_argument(value: Any) -> NdarrayArgument:
    """The JitArgument of a CPU DLPack tensor: a numpy view of it (TypeError when the
    tensor cannot be viewed on the CPU)."""
    try:
        return NdarrayArgument(np.from_dlpack(value))
    except Exception as err:  # a broken or device __dlpack__ may raise anything
        raise TypeError(f"cannot view {type(value).__name__} through DLPack on the CPU: "
                        f"{err}") from None


def adapt(value: Any) -> Any:
    """The JitArgument of ``value`` through ``dsl_core.JitArgumentRegistry`` (where the
    runtime registers arrays, numpy scalars, dc.Array, DLPack and device arrays)."""
    if isinstance(value, np.ndarray):
        return NdarrayArgument(value)
    return dc.JitArgumentRegistry.adapt(value)[0]


class ArrayArgument:
    """Host contract of a dsl-core ``Array[E, N]`` of scalars: ``N`` scalar slots, one per
    element (a ``NativeSlot`` each), cached by its type; the array's own class rebuilds it
    in the body (``a[i]`` is element ``i``). Arrays of structs or arrays are refused."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        if not isinstance(getattr(type(value).element, "dtype", None), dtypes.DType):
            raise TypeError(f"{type(value).__name__}: only arrays of scalars pass to a "
                            "compiled function")
        self.value = value

    def __iter__(self) -> Any:  # the exemplar of Array.__construct_from_ir_values__
        return iter(self.value)

    def __get_ir_types__(self) -> list[Any]:
        from dsl_parser.types import ScalarType

        return [ScalarType(type(self.value).element.dtype)] * len(self.value)

    def __cache_signature__(self) -> Hashable:
        return dc.type_signature(type(self.value))

    def __c_abi_spec__(self) -> list[NativeSlot]:
        element = type(self.value).element
        return [dc.scalar_slot(element, _item(i)) for i in range(len(self.value))]


def _item(i: int) -> Callable[[Any], Any]:
    def item(argument: Any) -> Any:
        return argument.value[i].value  # the element's Python value

    return item


def _numpy_scalars() -> dict[type, type]:
    """numpy scalar type -> the dsl-core scalar class of its dtype (from the dtype table)."""
    classes: dict[str, type] = {}
    for c in vars(dc).values():
        dtype = getattr(c, "dtype", None) if isinstance(c, type) else None
        if isinstance(dtype, dtypes.DType) and dtype.kind != "index":
            classes[dtype.name] = c
    return {np.dtype(d.numpy_name).type: classes[d.name] for d in dtypes.ALL
            if d.name in classes and d.numpy_name != "bfloat16" and d.storage == d.numpy_name}


def register() -> None:
    """Register the host adapters (idempotent): numpy arrays, and numpy scalars as the
    dsl-core scalar of their dtype."""
    if dc.JitArgumentRegistry.lookup(np.ndarray) is None:
        dc.JitArgumentRegistry.register(np.ndarray, NdarrayArgument, dsl_type=dc.Tensor)
    if dc.JitArgumentRegistry.lookup(dc.Array) is None:  # Array[E, N] is its own DslType
        dc.JitArgumentRegistry.register(dc.Array, ArrayArgument, dsl_type=None)
    # duck-typed arrays, by protocol: device arrays first (a CuPy array has both)
    reg = dc.JitArgumentRegistry
    for attribute, adapter in (("__cuda_array_interface__", DeviceArrayArgument),
                               ("__dlpack__", dlpack_argument)):
        reg.register_attribute(attribute, adapter, dsl_type=dc.Tensor, replace=True)
    for py_type, scalar in _numpy_scalars().items():
        found = dc.JitArgumentRegistry.lookup(py_type)  # numpy.float64 is a float subclass
        if found is None or found.py_type is not py_type:
            dc.JitArgumentRegistry.register(py_type, scalar, dsl_type=scalar)
