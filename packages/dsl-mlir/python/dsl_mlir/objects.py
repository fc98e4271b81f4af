"""What compiled object code may depend on outside itself.

Generated code must run the same on every Linux with glibc, whatever compiler
runtime the host happens to have (gcc 12's libgcc lacks the bf16 helpers that
gcc 13's has, for example). So the only undefined symbols an object produced by
dsl-mlir's pipelines may reference are C library and libm functions and the
entry points of dsl-mlir's own runtime libraries. This module keeps that list
in one place and reads an object's undefined symbols (ELF64, no binutils needed);
the test suite compiles every dtype and op family and checks the two agree.
"""

from __future__ import annotations

import struct
from pathlib import Path

from ._compiled import build_id, check_elf64

#: libc functions generated code may call (memory, allocation, printing of errors).
LIBC = frozenset({
    "malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign",
    "memcpy", "memmove", "memset", "abort", "fprintf", "printf", "puts", "stderr",
})

#: libm functions (scalar fallbacks of math ops; `convert-math-to-libm`).
LIBM = frozenset({
    name + suffix
    for name in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt",
                 "tanh", "tan", "sin", "cos", "sinh", "cosh", "asin", "acos", "atan",
                 "atan2", "asinh", "acosh", "atanh", "erf", "erfc", "pow", "fabs", "floor",
                 "ceil", "round", "roundeven", "trunc", "fma", "fmod", "fmin", "fmax",
                 "copysign", "rint", "nearbyint", "lround", "llround")
    for suffix in ("", "f")
})

#: Prefixes of dsl-mlir's own runtime entry points (async runtime for parallel
#: loops, GPU runtime for launches, MLIR's C runner utils helpers that the
#: runtime libraries provide). ``mlirAsyncRuntimGetNumWorkerThreads`` is spelled so
#: by upstream's async runtime.
RUNTIME_PREFIXES = ("mlirAsyncRuntime", "mlirAsyncRuntimGetNumWorkerThreads", "mgpu", "_mlir_",
                    "dsl_rt_")


def allowed(symbol: str) -> bool:
    """True when generated code may reference ``symbol`` as undefined."""
    return symbol in LIBC or symbol in LIBM or symbol.startswith(RUNTIME_PREFIXES)


def undefined_symbols(path: str | Path) -> set[str]:
    """The undefined (imported) symbols of an ELF64 little-endian object or library."""
    data = Path(path).read_bytes()
    check_elf64(data, path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    found: set[str] = set()
    for _name, kind, _flags, _addr, off, size, link, _info, _align, entsize in sections:
        if kind not in (2, 11) or not entsize:  # SHT_SYMTAB, SHT_DYNSYM
            continue
        strtab = sections[link]
        str_off = strtab[4]
        for i in range(1, size // entsize):
            st_name, st_info, _other, st_shndx = struct.unpack_from("<IBBH", data, off + i * entsize)
            if st_shndx != 0 or st_name == 0 or (st_info >> 4) == 0:  # defined or local
                continue
            end = data.index(b"\0", str_off + st_name)
            found.add(data[str_off + st_name:end].decode())
    return found


def disallowed_symbols(path: str | Path) -> set[str]:
    """The undefined symbols of ``path`` that generated code must not depend on."""
    return {s for s in undefined_symbols(path) if not allowed(s)}


__all__ = ["LIBC", "LIBM", "RUNTIME_PREFIXES", "allowed", "build_id", "disallowed_symbols",
           "undefined_symbols"]
