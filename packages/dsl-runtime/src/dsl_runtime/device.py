"""The NVPTX backend's call path: device arrays and the kernel-launching host call.

Host code compiled with ``backend="nvptx"`` receives memref descriptors of
*device* memory: arguments are objects exposing ``__cuda_array_interface__``
(``DeviceArray`` below, CuPy arrays, torch CUDA tensors, Numba device arrays).
Numpy arrays are rejected with a message saying what to pass instead. Launch
failures recorded by dsl-mlir's GPU runtime become ``RuntimeError`` after the
call. Nothing here imports a CUDA package.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import numpy as np

from .abi import KernelABI, Param
from .adapters import memref_descriptor
from .compiled import numpy_dtype

_SCALAR_CTYPES = {"f64": ctypes.c_double, "f32": ctypes.c_float, "i64": ctypes.c_int64,
                  "i32": ctypes.c_int32, "i16": ctypes.c_int16, "i8": ctypes.c_int8,
                  "u64": ctypes.c_uint64, "u32": ctypes.c_uint32, "u16": ctypes.c_uint16,
                  "u8": ctypes.c_uint8, "bool": ctypes.c_bool, "f16": ctypes.c_uint16,
                  "bf16": ctypes.c_uint16, "ptr": ctypes.c_void_p}
_PACKED = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))


def _gpu() -> Any:
    from dsl_mlir import gpu

    return gpu


class DeviceArray:
    """A C-contiguous array in GPU memory (``__cuda_array_interface__`` v3).

    ``DeviceArray.from_numpy(a)`` copies to the device, ``.to_numpy()`` back;
    ``DeviceArray.empty(shape, dtype)`` allocates. Freed when collected.
    """

    def __init__(self, shape: Sequence[int], dtype: Any) -> None:
        gpu = _gpu()
        gpu.require_gpu()
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        self.ptr = int(gpu.runtime().dslGpuAlloc(self.nbytes))
        if not self.ptr:
            gpu.check()
            raise MemoryError(f"cannot allocate {self.nbytes} bytes on the GPU")

    @classmethod
    def empty(cls, shape: Sequence[int], dtype: Any) -> DeviceArray:
        return cls(shape, dtype)

    @classmethod
    def from_numpy(cls, array: np.ndarray) -> DeviceArray:
        host = np.ascontiguousarray(array)
        dev = cls(host.shape, host.dtype)
        if _gpu().runtime().dslGpuCopyToDevice(dev.ptr, host.ctypes.data, host.nbytes) != 0:
            _gpu().check()
        return dev

    def to_numpy(self) -> np.ndarray:
        host = np.empty(self.shape, self.dtype)
        if _gpu().runtime().dslGpuCopyToHost(host.ctypes.data, self.ptr, self.nbytes) != 0:
            _gpu().check()
        return host

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
                "strides": None, "version": 3}

    def __del__(self) -> None:
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            _gpu().runtime().dslGpuFree(ptr)

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype})"


class DeviceKernel:
    """Calls a host function compiled for the NVPTX backend, with device arrays."""

    def __init__(self, address: int, abi: KernelABI) -> None:
        self._fn = _PACKED(address)
        self._abi = abi
        self._params = [leaf for p in abi.inputs for leaf in (p.fields or (p,))]

    def __call__(self, *args: Any) -> None:
        if len(args) != len(self._params):
            raise TypeError(f"{self._abi.function}() takes {len(self._params)} arguments "
                            f"but {len(args)} were given")
        bound: dict[str, int] = {}
        keep: list[Any] = []
        slots = (ctypes.c_void_p * len(args))()
        for i, (param, value) in enumerate(zip(self._params, args)):
            if param.kind == "tensor":
                storage: Any = ctypes.pointer(_descriptor(self._abi.function, param, value, bound))
            else:
                storage = _SCALAR_CTYPES[param.slots[0].kind](_scalar(param, value))
            keep.append(storage)
            slots[i] = ctypes.cast(ctypes.pointer(storage), ctypes.c_void_p)
        self._fn(slots)
        _gpu().check()


def _scalar(param: Param, value: Any) -> Any:
    if param.kind == "stream":
        import dsl_core as dc

        return dc.Stream(value).handle or None
    return value


def _descriptor(function: str, param: Param, value: Any, bound: dict[str, int]) -> Any:
    iface = getattr(value, "__cuda_array_interface__", None)
    if iface is None:
        raise TypeError(f"{function}(): argument '{param.name}' must be a GPU array (an object with "
                        f"__cuda_array_interface__, e.g. dsl_runtime.DeviceArray.from_numpy(x)), "
                        f"got {type(value).__name__}")
    assert param.dtype is not None and param.shape is not None
    want = numpy_dtype(param.dtype)
    got = np.dtype(iface["typestr"])
    if got != want:
        raise TypeError(f"{function}(): argument '{param.name}' expects element type {param.dtype}, "
                        f"got {got}")
    shape = tuple(int(d) for d in iface["shape"])
    if len(shape) != len(param.shape):
        raise ValueError(f"{function}(): argument '{param.name}' expects rank {len(param.shape)}, "
                         f"got shape {shape}")
    for d, (dim, size) in enumerate(zip(param.shape, shape)):
        if isinstance(dim, int) and dim != size:
            raise ValueError(f"{function}(): argument '{param.name}' dimension {d} must be {dim}, "
                             f"got {size}")
        if isinstance(dim, str) and bound.setdefault(dim, size) != size:
            raise ValueError(f"{function}(): dimension '{dim}' is {bound[dim]} from an earlier "
                             f"argument but {size} in '{param.name}'")
    strides = iface.get("strides")
    contiguous = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape))]
    if strides is not None and [s // got.itemsize for s in strides] != contiguous:
        raise ValueError(f"{function}(): argument '{param.name}' is not C-contiguous on the device")
    desc = memref_descriptor(len(shape))()
    desc.allocated = desc.aligned = int(iface["data"][0]) or None
    desc.offset = 0
    for d, size in enumerate(shape):
        desc.sizes[d] = size
        desc.strides[d] = contiguous[d]
    return desc


__all__ = ["DeviceArray", "DeviceKernel"]
