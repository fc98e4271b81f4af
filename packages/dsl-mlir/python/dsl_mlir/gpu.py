"""The NVPTX path's run-time side: PTX of lowered modules, GPU availability, errors.

``libdsl_gpu_runtime.so`` (``dsl_mlir.GPU_RUNTIME``) implements the ``mgpu*``
functions that host code lowered with ``dsl-to-llvm-nvptx`` calls; it opens the
CUDA driver with ``dlopen`` at first use (``libcuda.so.1``, or the file named by
``DSL_CUDA_LIBRARY``), so importing this module never needs CUDA. Failures inside
compiled host code are recorded per thread; ``take_error()`` returns and clears
them so that callers can raise after each call.
"""

from __future__ import annotations

import ctypes
import functools

from ._compiled import GPU_RUNTIME
from ._lib import ir

#: Bytes kept of an error message (a PTX JIT log is at most 4 KiB).
_ERROR_BUFFER = 16384


class GPUUnavailableError(RuntimeError):
    """No CUDA driver or no GPU device; the message says which is missing."""


@functools.cache
def runtime() -> ctypes.CDLL:
    """The GPU runtime library, loaded once (RTLD_GLOBAL is not needed)."""
    lib = ctypes.CDLL(GPU_RUNTIME)
    lib.dslGpuDeviceCount.restype = ctypes.c_int
    lib.dslGpuStatus.restype = ctypes.c_char_p
    lib.dslGpuTakeError.restype = ctypes.c_size_t
    lib.dslGpuTakeError.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.dslGpuSynchronize.restype = ctypes.c_int
    lib.dslGpuAlloc.restype = ctypes.c_uint64
    lib.dslGpuAlloc.argtypes = [ctypes.c_size_t]
    lib.dslGpuFree.argtypes = [ctypes.c_uint64]
    lib.dslGpuCopyToDevice.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
    lib.dslGpuCopyToHost.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
    return lib


def device_count() -> int:
    """Number of CUDA devices; 0 without a driver or device (``status()`` says why)."""
    count: int = runtime().dslGpuDeviceCount()
    return max(count, 0)


def status() -> str:
    """``""`` when a GPU can be used, otherwise what is missing."""
    return (runtime().dslGpuStatus() or b"").decode()


def require_gpu() -> None:
    """Raise GPUUnavailableError naming what is missing unless a GPU can be used."""
    if device_count() <= 0:
        raise GPUUnavailableError(f"a GPU was requested but none can be used: {status()}")


def take_error() -> str:
    """This thread's pending GPU runtime error (``""`` if none), cleared."""
    buf = ctypes.create_string_buffer(_ERROR_BUFFER)
    if not runtime().dslGpuTakeError(buf, _ERROR_BUFFER):
        return ""
    return buf.value.decode(errors="replace")


def check() -> None:
    """Raise RuntimeError with this thread's pending GPU runtime error, if any."""
    message = take_error()
    if message:
        raise RuntimeError(message)


def synchronize() -> None:
    """Wait for all work on the device; raises RuntimeError on failure."""
    if runtime().dslGpuSynchronize() != 0:
        check()
        raise RuntimeError(f"device synchronization failed: {status()}")


def ptx_of(module: ir.Module) -> dict[str, str]:
    """PTX text of every ``gpu.binary`` in a module lowered with ``dsl-to-llvm-nvptx``.

    Returns ``{binary symbol: PTX}``; raises ValueError when the module has none.
    """
    found: dict[str, str] = {}
    for op in module.body.operations:
        if op.operation.name != "gpu.binary":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        objects = ir.ArrayAttr(op.attributes["objects"])
        for obj in objects:
            found[name] = _object_text(obj)
    if not found:
        raise ValueError("the module has no gpu.binary (lower it with dsl-to-llvm-nvptx first)")
    return found


def _object_text(attr: ir.Attribute) -> str:
    from ._lib import dialects

    obj = dialects.gpu.ObjectAttr(attr)
    data = obj.object
    return data.decode() if isinstance(data, bytes) else str(data)
