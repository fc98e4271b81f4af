"""Ahead-of-time export: a compiled specialization as a standalone shared library.

``export(fn, *example_args, path=...)`` (and ``dsl export FILE::FUNC``) writes into
``path``:

- ``lib<name>.so``: the function's native code (the host's CPU, as the JIT compiles it),
  linked with the system's C compiler driver; it needs neither Python nor MLIR. Code
  lowered with ``parallel`` or for the NVPTX backend also needs dsl-mlir's runtime
  library (its thread pool, or its CUDA driver calls), copied beside it and found
  through the library's run path (``$ORIGIN``).
- ``<name>.h``: C declarations of the entry in the calling convention of docs/abi.md
  (memref descriptors by pointer, scalars by value, results as trailing out-parameters),
  plus ``<name>_checked(...)``, an inline wrapper that checks every descriptor (static
  sizes, dynamic sizes bound consistently, dense row-major strides) before the call.
- ``<name>.abi.json``: the ``KernelABI`` and what the library was built for.

See docs/distributed.md, "Ahead-of-time export".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import keys
from .abi import DTYPES, KernelABI, Param
from .errors import CompileError

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: C types of scalar parameters passed by value (f16/bf16 scalars have no portable C type).
_SCALAR_C = {"float64": "double", "float32": "float", "int64": "int64_t", "int32": "int32_t",
             "int16": "int16_t", "int8": "int8_t", "uint64": "uint64_t", "uint32": "uint32_t",
             "uint16": "uint16_t", "uint8": "uint8_t", "bool": "bool"}


@dataclass(frozen=True)
class Exported:
    """The files an export wrote."""

    library: Path
    header: Path
    abi: Path
    runtime: Path | None  # dsl-mlir's runtime library, when the code needs it


def export(fn: Any, *example_args: Any, path: str | os.PathLike[str], name: str | None = None,
           **kwargs: Any) -> Exported:
    """Compile ``fn`` (a ``@jit`` function or a DSL function) for the example arguments
    (specializing parameters as ``@jit`` does) and write ``lib<name>.so``, ``<name>.h``
    and ``<name>.abi.json`` into the folder ``path`` (created if needed). ``name``
    defaults to the function's name and prefixes every C symbol of the header."""
    from .jit import JitFunction, implementation

    jf = implementation(fn) or JitFunction(fn)
    name = name or jf.name
    if not _IDENT.fullmatch(name):
        raise ValueError(f"export: name must be a C identifier, got {name!r}")
    if any(s.kind == "protocol" for s in jf.specs):
        raise TypeError(f"export: {jf.name} has protocol parameters, whose slots are filled "
                        "by Python at each call; export functions of arrays, scalars, "
                        "structs and streams")
    abi, lowered = _lower(jf, example_args, kwargs)
    _check_exportable(abi)
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    runtime = _runtime_library(jf.options)
    library = out / f"lib{name}.so"
    _link(_assembly(lowered, jf.options), library, runtime, out)
    header = out / f"{name}.h"
    header.write_text(c_header(abi, name, "__dsl_error_hook" in str(lowered)))
    meta = out / f"{name}.abi.json"
    meta.write_text(json.dumps({
        "abi": json.loads(abi.model_dump_json()), "library": library.name,
        "entry": abi.c_symbol, "backend": jf.options.backend,
        "runtime": None if runtime is None else Path(runtime).name,
        "host": keys.host_target(), "versions": dict(keys.component_versions()),
        "created": time.time()}, indent=1))
    return Exported(library, header, meta, out / Path(runtime).name if runtime else None)


def _lower(jf: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[KernelABI, Any]:
    """(ABI, lowered module) of the specialization for these arguments, without a JIT."""
    from .abi import build_abi
    from .compiled import mlir_context
    from .compiler import lower_only, parse

    bound = jf._bind(args, kwargs)
    contributed = jf._spec_key(bound)[1] if jf._specializing else {}
    overrides, constexprs = jf._overrides(contributed)
    ctx = mlir_context()
    parsed = jf._parsed or parse(jf._fn, overrides, jf.options, ctx)
    abi = build_abi(parsed.name, jf.specs, parsed.signature, constexprs, ctx,
                    bool(getattr(parsed, "host", False)), {})
    return abi, lower_only(parsed, jf.options, as_runtime=True)


def _check_exportable(abi: KernelABI) -> None:
    for p in (*abi.inputs, *abi.results):
        for leaf in p.fields or (p,):
            if leaf.kind == "scalar" and leaf.dtype not in _SCALAR_C:
                raise TypeError(f"export: parameter '{leaf.name}' is a {leaf.dtype} scalar, "
                                "which has no portable C type; pass it as a float32 or a "
                                "one-element array")


def _assembly(lowered: Any, options: Any) -> str:
    import dsl_mlir

    try:
        return dsl_mlir.to_assembly(lowered, options.opt_level,
                                    llvm_passes=options.llvm_pipeline)
    except dsl_mlir.MLIRDiagnosticError as err:
        raise CompileError(f"export: code generation failed: {err}") from None


def _runtime_library(options: Any) -> str | None:
    import dsl_mlir

    if options.gpu:
        return str(dsl_mlir.GPU_RUNTIME)
    return str(dsl_mlir.ASYNC_RUNTIME) if options.parallel else None


def _link(assembly: str, library: Path, runtime: str | None, out: Path) -> None:
    """Assemble and link ``library`` (undefined symbols are an error: the library must load
    on a machine without Python)."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        raise CompileError("export: no C compiler driver found (install gcc or clang, or "
                           "set CC): it assembles and links the library")
    with tempfile.TemporaryDirectory(prefix="dsl-export-") as work:
        source = Path(work) / "kernel.s"
        source.write_text(assembly)
        command = [cc, "-shared", "-o", str(library), str(source), "-Wl,--no-undefined",
                   "-Wl,-z,noexecstack"]
        if runtime is not None:
            copied = out / Path(runtime).name
            shutil.copyfile(runtime, copied)
            command += [str(copied), "-Wl,-rpath,$ORIGIN"]
        command += ["-lm", "-lc"]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise CompileError(f"export: linking {library.name} failed:\n{proc.stderr.strip()[-3000:]}")


# -- the C header -----------------------------------------------------------------------------
def _c_elem(dtype: str) -> str:
    return str(DTYPES[dtype][2].split()[0])


def _memref_type(dtype: str, rank: int) -> str:
    return f"dsl_memref_{dtype}_{rank}d"


def _arguments(abi: KernelABI) -> list[tuple[str, str, Param]]:
    """(C type, C name, leaf) of every argument of the C interface, in order."""
    found: list[tuple[str, str, Param]] = []
    for p in (*abi.inputs, *abi.results):
        for leaf in p.fields or (p,):
            cname = re.sub(r"\W", "_", leaf.name)
            if leaf.kind == "tensor":
                assert leaf.dtype is not None and leaf.shape is not None
                const = "const " if p.role == "input" else ""
                found.append((f"{const}{_memref_type(leaf.dtype, len(leaf.shape))} *", cname, leaf))
            elif leaf.kind == "stream":
                found.append(("void *", cname, leaf))
            else:
                assert leaf.dtype is not None
                found.append((_SCALAR_C[leaf.dtype], cname, leaf))
    return found


def _checks(arguments: list[tuple[str, str, Param]]) -> list[str]:
    """C statements returning the 1-based position of the first bad descriptor."""
    lines: list[str] = []
    bound: dict[str, str] = {}
    for position, (_, cname, leaf) in enumerate(arguments, start=1):
        if leaf.kind != "tensor":
            continue
        assert leaf.shape is not None
        rank = len(leaf.shape)
        conditions = [f"{cname} == NULL"]
        for d, size in enumerate(leaf.shape):
            here = f"{cname}->sizes[{d}]"
            conditions.append(f"{here} < 0")
            if isinstance(size, int):
                conditions.append(f"{here} != {size}")
            elif isinstance(size, str):
                if size in bound:
                    conditions.append(f"{here} != {bound[size]}")
                else:
                    bound[size] = here
        stride = "1"
        for d in reversed(range(rank)):  # dense row-major, as the code assumes
            conditions.append(f"({cname}->sizes[{d}] > 1 && {cname}->strides[{d}] != {stride})")
            stride = f"{stride} * {cname}->sizes[{d}]"
        lines.append(f"  if ({' || '.join(conditions)}) return {position};")
    return lines


def c_header(abi: KernelABI, name: str, error_hook: bool) -> str:
    """The C header of an exported specialization (see the module docstring)."""
    arguments = _arguments(abi)
    guard = f"DSL_EXPORT_{name.upper()}_H"
    structs = sorted({(leaf.dtype, len(leaf.shape)) for _, _, leaf in arguments
                      if leaf.kind == "tensor" and leaf.dtype and leaf.shape is not None})
    out = [f"/* {name}: exported by dsl-runtime from {abi.function} (docs/abi.md). */",
           f"#ifndef {guard}", f"#define {guard}", "",
           "#include <stdbool.h>", "#include <stddef.h>", "#include <stdint.h>", "",
           "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    for dtype, rank in structs:
        mt = _memref_type(dtype, rank)
        out += [f"#ifndef {mt.upper()}_DEFINED", f"#define {mt.upper()}_DEFINED",
                f"/* A {dtype} array of rank {rank}: dense row-major (strides in elements). */",
                "typedef struct {", f"  {_c_elem(dtype)} *allocated;",
                f"  {_c_elem(dtype)} *aligned;", "  int64_t offset;",
                *([f"  int64_t sizes[{rank}];", f"  int64_t strides[{rank}];"] if rank else []),
                f"}} {mt};", "#endif", ""]
    params = ", ".join(f"{t}{'' if t.endswith('*') else ' '}{n}" for t, n, _ in arguments) or "void"
    names = ", ".join(n for _, n, _ in arguments)
    out.append("/* Parameters (inputs, then results as out-parameters the caller allocates):")
    for _, cname, leaf in arguments:
        shape = "" if leaf.shape is None else \
            "[" + ", ".join("?" if s is None else str(s) for s in leaf.shape) + "]"
        out.append(f" *   {cname}: {leaf.role} {leaf.kind} {leaf.dtype or ''}{shape}")
    out += [" */", f"void {abi.c_symbol}({params.replace('const ', '')});", "",
            f"/* Checks every array argument, then calls {abi.c_symbol}. Returns 0, or the",
            " * 1-based position of the first argument whose descriptor does not fit (NULL,",
            " * a wrong static size, dynamic sizes that disagree, not dense row-major). */",
            f"static inline int {name}_checked({params}) {{"]
    out += _checks(arguments)
    cast = ", ".join(f"({t.replace('const ', '')}){n}" if "const" in t else n
                     for t, n, _ in arguments)
    out += [f"  {abi.c_symbol}({cast});" if names else f"  {abi.c_symbol}();",
            "  return 0;", "}", ""]
    if error_hook:
        out += ["/* Run-time checks of the code (bounds, division) call the function stored",
                " * here, if any: hook(message, v0, v1, v2, v3); message[0] is the kind. */",
                "typedef void (*dsl_error_hook_fn)(const char *message, int64_t v0, int64_t v1,",
                "                                  int64_t v2, int64_t v3);",
                "extern int64_t __dsl_error_hook;",
                f"static inline void {name}_set_error_hook(dsl_error_hook_fn hook) {{",
                "  __dsl_error_hook = (int64_t)(intptr_t)hook;", "}", ""]
    out += ["#ifdef __cplusplus", "}", "#endif", f"#endif /* {guard} */", ""]
    return "\n".join(out)


__all__ = ["Exported", "c_header", "export"]
