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


def _check_elf64(head: bytes, path: str | Path) -> None:
    """ValueError unless ``head`` starts an ELF64 little-endian file."""
    if head[:4] != b"\x7fELF" or head[4:5] != b"\x02" or head[5:6] != b"\x01":
        raise ValueError(f"{path}: not a little-endian ELF64 file")


def undefined_symbols(path: str | Path) -> set[str]:
    """The undefined (imported) symbols of an ELF64 little-endian object or library."""
    data = Path(path).read_bytes()
    _check_elf64(data, path)
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


def build_id(path: str | Path) -> str | None:
    """The GNU build ID (hex) of an ELF64 little-endian library, or None when it has none.

    The linker computes it from the linked bytes, so it changes with every rebuild of
    dsl-mlir's native code even where the version does not (dsl-runtime puts it in
    its cache keys). Reads only the headers and notes, not the whole file."""
    with open(path, "rb") as f:
        head = f.read(64)
        _check_elf64(head, path)
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
