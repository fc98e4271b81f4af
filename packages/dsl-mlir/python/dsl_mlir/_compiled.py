"""What compiled code and its callers share, without loading MLIR: the library paths,
the LLVM IR pipeline text, the error hook, the native build ID.

A disk-cache hit (dsl-runtime loading a cached ``kernel.so``) needs only these and the
small ``_dispatch`` extension: nothing here imports the MLIR bindings, whose
aggregate library takes tens of milliseconds to load.
"""

from __future__ import annotations

import ctypes
import functools
import os
import struct

#: Directory holding the aggregate C API library and the dsl-opt executable.
LIBS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_mlir", "_mlir_libs")
#: The aggregate library holding MLIR, LLVM, the dsl dialect and its pipelines.
CAPI_LIBRARY = os.path.join(LIBS_DIR, "libDslPythonCAPI.so")
#: The async runtime that code lowered with ``parallel=true`` calls (MLIR's async runtime API).
ASYNC_RUNTIME = os.path.join(LIBS_DIR, "libdsl_async_runtime.so")
#: The GPU runtime that host code lowered with ``dsl-to-llvm-nvptx`` calls (``mgpu*``).
GPU_RUNTIME = os.path.join(LIBS_DIR, "libdsl_gpu_runtime.so")

#: A short LLVM IR pipeline for code that MLIR already tiled and vectorized: lower the
#: coroutines of async (parallel) code, inline internalized functions into their C
#: wrappers, then scalar clean-up, LICM and GVN; then loop rotation and LLVM's loop
#: vectorizer for the loops that ask for it (the thread loops of kernels on the CPU,
#: marked by ``dsl-thread-loops``), with a clean-up after it.
#: About half the JIT time of LLVM's default O2/O3 pipeline for small modules, with
#: code generation still at ``opt_level`` (see bench/dispatch_bench.py, bench/kernels.py).
FAST_LLVM_PASSES = (
    "coro-early,cgscc(coro-split),coro-cleanup,cgscc(inline),globaldce,"
    "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,"
    "simplifycfg,loop-mssa(licm),gvn,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-mssa(loop-rotate,licm),loop-vectorize<vectorize-forced-only>,"
    "instcombine<no-verify-fixpoint>,simplifycfg)"
)

#: The i64 global of compiled code that holds the address of its error hook: the
#: run-time checks (offsets and sizes of tensor ops, kernel accesses under
#: ``boundscheck``) call it when they fail (docs/mlir.md, "Run-time checks").
ERROR_HOOK_SYMBOL = "__dsl_error_hook"


def install_error_hook(global_address: int) -> None:
    """Store the address of dsl-mlir's error hook into the ``__dsl_error_hook``
    global at ``global_address`` (of a JIT'd module or a loaded shared library)."""
    from ._dispatch import error_hook_address

    if not global_address:
        raise ValueError("install_error_hook: null address")
    ctypes.c_int64.from_address(global_address).value = error_hook_address()


def raise_pending_error() -> None:
    """Raise the error a run-time check of compiled code recorded during the last call
    (IndexError for offsets and indices, ValueError for sizes), if any."""
    from ._dispatch import raise_pending_error as _raise

    _raise()


@functools.cache
def native_build_id() -> str:
    """The linker's build ID of dsl-mlir's native library (``CAPI_LIBRARY``): it changes
    with every rebuild of the pipelines, also where the version does not, so caches of
    compiled code key on it. ``"unknown"`` when the library carries none."""
    return build_id(CAPI_LIBRARY) or "unknown"


def check_elf64(head: bytes, path: str | os.PathLike[str]) -> None:
    """ValueError unless ``head`` starts an ELF64 little-endian file."""
    if head[:4] != b"\x7fELF" or head[4:5] != b"\x02" or head[5:6] != b"\x01":
        raise ValueError(f"{path}: not a little-endian ELF64 file")


def build_id(path: str | os.PathLike[str]) -> str | None:
    """The GNU build ID (hex) of an ELF64 little-endian library, or None when it has none.

    The linker computes it from the linked bytes, so it changes with every rebuild of
    dsl-mlir's native code even where the version does not (dsl-runtime puts it in
    its cache keys). Reads only the headers and notes, not the whole file."""
    with open(path, "rb") as f:
        head = f.read(64)
        check_elf64(head, path)
        phoff, = struct.unpack_from("<Q", head, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", head, 0x36)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        for i in range(phnum):
            kind, _flags, offset, _vaddr, _paddr, size = struct.unpack_from(
                "<IIQQQQ", table, i * phentsize)
            if kind != 4:  # PT_NOTE
                continue
            f.seek(offset)
            notes = f.read(min(size, 1 << 16))
            pos = 0
            while pos + 12 <= len(notes):
                namesz, descsz, note_type = struct.unpack_from("<III", notes, pos)
                name_end = pos + 12 + ((namesz + 3) & ~3)
                desc = notes[name_end:name_end + descsz]
                if note_type == 3 and notes[pos + 12:pos + 12 + namesz] == b"GNU\0":
                    return desc.hex()
                pos = name_end + ((descsz + 3) & ~3)
    return None

