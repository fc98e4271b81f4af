"""A compiled specialization: its ABI, its IR at each stage, and the call path."""

from __future__ import annotations

import atexit
import math
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dsl_core import dtypes

from .abi import KernelABI, Param

STAGES = ("dsl", "lowered", "llvm", "asm")


@dataclass
class Artifacts:
    """IR text of each stage (LLVM IR and assembly are produced on demand)."""

    dsl: str
    lowered: str
    llvm: str | None = None
    asm: str | None = None
    #: How the JIT compiled the code: (opt_level, LLVM pass text or None for LLVM's
    #: default pipeline); the assembly is generated the same way.
    codegen: tuple[int, str | None] = (3, None)


def numpy_dtype(name: str) -> np.dtype[Any]:
    """The numpy dtype holding a DSL dtype (bfloat16 travels as its uint16 bit pattern);
    dsl-core's dtype table says which."""
    info = dtypes.lookup(name)
    return np.dtype(info.storage if info is not None else name)


#: Results of at least this many bytes start half a page into a page: 64-byte aligned
#: (a cache line, an AVX-512 register), so that the streaming stores of
#: dsl-nontemporal-stores write whole registers, and 2 KiB away from where numpy's large
#: arrays start in a page (16 bytes in), so that the loads of an input do not alias the
#: stores into the result in the low 12 address bits (4K aliasing: an add of 10M f32
#: took 3.4-3.6 ms with its result 32-48 bytes after its inputs' page offset, 2.9 ms at
#: the same offset, 2.5-2.65 ms 512-3072 bytes away).
ALIGNED_RESULT_MIN_BYTES = 1 << 20
RESULT_PAGE_OFFSET = 2048
_PAGE = 4096


def empty_result(shape: Sequence[int], dtype: np.dtype[Any]) -> np.ndarray:
    """An uninitialised C-contiguous array; with at least ``ALIGNED_RESULT_MIN_BYTES``,
    a view of a byte buffer one page larger, starting ``RESULT_PAGE_OFFSET`` bytes
    into a page."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < ALIGNED_RESULT_MIN_BYTES:
        return np.empty(shape, dtype)
    raw = np.empty(nbytes + _PAGE - 1, np.uint8)
    start = (RESULT_PAGE_OFFSET - raw.ctypes.data) % _PAGE
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def _result_allocator(abi: KernelABI) -> Any:
    """A function (inputs) -> list of freshly allocated result arrays."""
    where: dict[str, tuple[int, int]] = {}
    params: dict[int, Param] = {}  # argument position -> the tensor parameter read there
    position = 0  # arguments are the inputs' slots, in order (a struct gives one per leaf)
    for p in abi.inputs:
        for d, dim in enumerate(p.shape or ()):
            if isinstance(dim, str):
                where.setdefault(dim, (position, d))
                params[position] = p
        position += len(p.slots)
    plans = []
    for r in abi.results:
        assert r.shape is not None and r.dtype is not None
        dims: list[tuple[str, Any]] = []
        for d, dim in enumerate(r.shape):
            if isinstance(dim, int):
                dims.append(("static", dim))
            elif isinstance(dim, str) and dim in where:
                dims.append(("bound", where[dim]))
            else:
                dims.append(("unknown", d))
        dtype = numpy_dtype(r.dtype)
        # A static result under the threshold is a plain np.empty, decided once here
        # rather than on every call.
        static = all(how == "static" for how, _ in dims)
        small = static and math.prod(d for _, d in dims) * dtype.itemsize < ALIGNED_RESULT_MIN_BYTES
        plans.append((r.name, dtype, dims, np.empty if small else empty_result))

    def allocate(args: Sequence[Any]) -> list[np.ndarray]:
        out = []
        for name, dtype, dims, empty in plans:
            shape = []
            for how, what in dims:
                if how == "static":
                    shape.append(what)
                elif how == "bound":
                    shape.append(_size_of(args, what, params[what[0]], abi.function))
                else:
                    raise ValueError(
                        f"{abi.function}: the size of dimension {what} of result '{name}' is not "
                        f"known from the inputs; pass out= with a preallocated array")
            out.append(empty(shape, dtype))
        return out

    return allocate


def _size_of(args: Sequence[Any], where: tuple[int, int], param: Param, function: str) -> int:
    """Size ``where[1]`` of the array argument ``args[where[0]]``; when it is not an
    array of the parameter's rank, the error the C dispatcher gives for it (TypeError
    naming the parameter; ValueError for a wrong rank)."""
    position, dim = where
    if position >= len(args):
        raise TypeError(f"{function}() takes {position + 1} or more arguments, got {len(args)}")
    value = args[position]
    shape = getattr(value, "shape", None)
    rank = len(param.shape or ())
    kind = type(value)
    type_name = f"numpy.{kind.__name__}" if kind.__module__ == "numpy" else kind.__name__
    if not isinstance(shape, tuple) or (not shape and rank):
        got = f"a 0-d {type_name}" if isinstance(shape, tuple) else type_name
        raise TypeError(f"{function}: argument '{param.name}' expects a {rank}D "
                        f"{param.dtype} array, got {got}")
    if len(shape) != rank:
        raise ValueError(f"{function}: argument '{param.name}' expects rank {rank}, "
                         f"got rank {len(shape)}")
    return int(shape[dim])


@dataclass
class CompiledFunction:
    """One compiled specialization of a function, ready to call.

    ``cf(*args)`` allocates the results; ``cf(*args, out=z)`` writes into ``z``
    (a tuple for several results). ``cf.kernel(*args, *outs)`` is the leanest
    call (no allocation, positional only). ``cf.abi`` describes the ABI,
    ``cf.mlir(stage)`` returns the IR of ``dsl``, ``lowered`` or ``llvm``, or the host
    assembly (``asm``).
    """

    name: str
    abi: KernelABI
    kernel: Any  # dsl_mlir.dispatch.PackedKernel
    artifacts: Artifacts
    timings: dict[str, float] = field(default_factory=dict)
    keepalive: tuple[Any, ...] = ()
    #: protocol parameter -> its ``arguments.SlotPlan`` (set by the JitFunction)
    slot_plans: dict[str, Any] = field(default_factory=dict)
    #: "compiled", "disk-cache" or "shared-cache" (fetched from DSL_CACHE_BACKEND)
    source: str = "compiled"

    def __post_init__(self) -> None:
        self._allocate = _result_allocator(self.abi)
        self._nresults = len(self.abi.results)
        self._lock = threading.Lock()

    def __call__(self, *args: Any, out: Any = None) -> Any:
        if not self._nresults:  # e.g. a host function that launches kernels
            if out is not None:
                raise TypeError(f"{self.name}() has no results to write into out=")
            self.kernel(*args)
            return None
        if out is None:
            outs = self._allocate(args)
            self.kernel(*args, *outs)
            return outs[0] if self._nresults == 1 else tuple(outs)
        if type(out) is tuple:
            self.kernel(*args, *out)
        else:
            self.kernel(*args, out)
        return out

    @property
    def results(self) -> tuple[Param, ...]:
        return self.abi.results

    def mlir(self, stage: str = "dsl") -> str:
        """IR text at ``stage``: ``dsl`` (as parsed), ``lowered`` (LLVM dialect), ``llvm``
        (LLVM IR, as translated, before LLVM's passes) or ``asm`` (the host assembly the JIT
        made of it, AT&T syntax; the cpu backend only)."""
        if stage not in STAGES:
            raise ValueError(f"mlir(stage): stage must be one of {', '.join(STAGES)}, got {stage!r}")
        if stage == "llvm" and self.artifacts.llvm is None:
            with self._lock:
                self.artifacts.llvm = _translate(self.artifacts.lowered)
        if stage == "asm" and self.artifacts.asm is None:
            if "gpu.binary" in self.artifacts.lowered:
                raise ValueError(f"{self.name} was compiled for the nvptx backend: its kernels "
                                 "are PTX (cf.ptx()), its host code is not shown as assembly")
            with self._lock:
                self.artifacts.asm = _assembly(self.artifacts.lowered, *self.artifacts.codegen)
        text = getattr(self.artifacts, stage)
        assert text is not None
        return str(text)

    def ptx(self) -> str:
        """The PTX of the kernels this specialization launches (NVPTX backend only)."""
        if "gpu.binary" not in self.artifacts.lowered:
            raise ValueError(f"{self.name} was not compiled for the nvptx backend: it has no PTX")
        return ptx_of_lowered(self.artifacts.lowered)


#: The compiled functions whose JIT engine is left alone at exit (by id; gone when they are).
_WITH_ENGINES: weakref.WeakValueDictionary[int, CompiledFunction] = weakref.WeakValueDictionary()


def abandon_at_exit(compiled: CompiledFunction) -> CompiledFunction:
    """Register ``compiled`` (whose ``keepalive`` holds its JIT engine) for
    ``abandon_engines``; only for engines that loaded no runtime library (not parallel
    code, not GPU host code: their teardown also shuts that runtime down)."""
    _WITH_ENGINES[id(compiled)] = compiled
    return compiled


@atexit.register
def abandon_engines() -> int:
    """Keep the JIT engines of the compiled functions still alive (and their modules and
    MLIR contexts) from being torn down when the interpreter exits (an atexit hook;
    returns how many engines).

    Tearing an engine down runs LLVM's de-initialization, which compiles a small module
    first: ~8 ms per engine here, paid at exit for every function a process compiled
    (a test process with 100 kernels took most of a second to exit). At exit nothing
    needs it: generated code registers no destructors, and the operating system takes
    the memory back. Engines not registered by ``abandon_at_exit`` (parallel code,
    GPU host code) and engines dropped while the process runs are torn down as before."""
    import ctypes

    count = 0
    for compiled in list(_WITH_ENGINES.values()):
        for item in compiled.keepalive:  # the engine, its module and MLIR context
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(item))
        count += 1
    _WITH_ENGINES.clear()
    return count


def mlir_context() -> Any:
    """The MLIR context of the runtime's work: this thread's long-lived one
    (``dsl_mlir.shared_context()``: no new context per compile, and the pass managers of
    the pipeline are kept on it), single-threaded unless the module it lowers is large
    (small kernels lower faster without the thread pool)."""
    import dsl_mlir

    return dsl_mlir.shared_context()


def ptx_of_lowered(lowered: str) -> str:
    """The PTX embedded in lowered IR of the NVPTX backend (ValueError without kernels)."""
    import dsl_mlir
    from dsl_mlir import gpu

    with mlir_context() as ctx:
        return "\n".join(gpu.ptx_of(dsl_mlir.parse_module(lowered, ctx)).values())


def _assembly(lowered: str, opt_level: int, llvm_passes: str | None) -> str:
    import dsl_mlir

    with mlir_context() as ctx:
        return dsl_mlir.to_assembly(dsl_mlir.parse_module(lowered, ctx), opt_level,
                                    llvm_passes=llvm_passes)


def _translate(lowered: str) -> str:
    import dsl_mlir

    with mlir_context() as ctx:
        return dsl_mlir.to_llvm_ir(dsl_mlir.parse_module(lowered, ctx))
