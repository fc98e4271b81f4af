"""The NVPTX backend's call path: device arrays and the GPU runtime's error channel.

Host code compiled with ``backend="nvptx"`` receives memref descriptors of
*device* memory: arguments are objects exposing ``__cuda_array_interface__``
(``DeviceArray`` below, CuPy arrays, torch CUDA tensors, Numba device arrays),
marshalled by the C dispatcher (``PackedKernel(..., device_error=...)``); numpy
arrays are rejected with a message saying what to pass instead. Launch failures
recorded by dsl-mlir's GPU runtime become ``RuntimeError`` after the call.
Nothing here imports a CUDA package.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import numpy as np


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
        # Built once: the dispatcher reads it at every call.
        self.__cuda_array_interface__: dict[str, Any] = {
            "shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
            "strides": None, "version": 3}

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

    def __del__(self) -> None:
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            _gpu().runtime().dslGpuFree(ptr)

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype})"


def take_error_address() -> int:
    """Address of the GPU runtime's ``dslGpuTakeError`` (the C dispatcher's device mode)."""
    address = ctypes.cast(_gpu().runtime().dslGpuTakeError, ctypes.c_void_p).value
    assert address is not None
    return address


__all__ = ["DeviceArray", "take_error_address"]
