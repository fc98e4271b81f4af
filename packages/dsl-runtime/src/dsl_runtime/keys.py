"""Cache keys: stable across processes, covering source, specialization, options and versions."""

from __future__ import annotations

import hashlib
import platform
from functools import cache
from importlib import metadata
from typing import Any

from . import fingerprint
from ._version import __version__
from .fingerprint import Path

_COMPONENTS = ("dsl-core", "dsl-mlir", "dsl-parser")
_CONSTANT_TYPES = (int, float, bool, str, bytes, type(None))


@cache
def component_versions() -> tuple[tuple[str, str], ...]:
    """Versions of every layer, plus the MLIR release and the ``dsl`` dialect version that
    dsl-mlir embeds (a change in any invalidates cached code)."""
    found = [("dsl-runtime", __version__)]
    for dist in _COMPONENTS:
        try:
            found.append((dist, metadata.version(dist)))
        except metadata.PackageNotFoundError:
            found.append((dist, "missing"))
    import dsl_mlir

    found.append(("mlir", str(getattr(dsl_mlir, "MLIR_VERSION", "unknown"))))
    found.append(("dsl-dialect", str(getattr(dsl_mlir, "DIALECT_VERSION", "unknown"))))
    # A rebuild of the native pipelines with an unchanged version (a developer's build,
    # a patched wheel) must not reuse code its predecessor compiled.
    found.append(("dsl-mlir-build", dsl_mlir.native_build_id()))
    return tuple(found)


@cache
def host_target() -> str:
    """The JIT targets the host CPU: its model and feature flags are part of the key."""
    flags = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("model name", "flags")):
                    flags += line
                if line.startswith("flags"):
                    break
    except OSError:
        pass
    return f"{platform.machine()}:{hashlib.sha256(flags.encode()).hexdigest()[:16]}"


def _constant(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_constant(v) for v in value)
    return isinstance(value, _CONSTANT_TYPES)


def _referenced(fn: Any) -> list[tuple[str, Any]]:
    """(name, value) of the module globals (sorted) and closure cells the function's code names."""
    code = fn.__code__
    found = [(name, fn.__globals__[name]) for name in sorted(set(code.co_names))
             if name in fn.__globals__]
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            found.append((name, cell.cell_contents))
        except ValueError:
            continue
    return found


def referenced_constants(fn: Any) -> list[tuple[str, str]]:
    """Module-level and closure constants the function's code names (they may shape the code)."""
    return [(name, repr(value)) for name, value in _referenced(fn) if _constant(value)]


def referenced_kernels(fn: Any) -> list[Any]:
    """The ``@pl.kernel`` objects the function's code names (globals and closure cells)."""
    return [v for _, v in _referenced(fn) if type(v).__name__ == "Kernel" and hasattr(v, "fn")]


def function_identity(fn: Any, _seen: frozenset[int] = frozenset()) -> str | None:
    """Source-level identity of a Python function, or None when its source is unavailable.

    It covers the source and referenced constants of the function and, recursively, of
    every kernel it launches (editing a kernel invalidates its host function's entries)."""
    source = fingerprint.source(fn)
    if source is None:
        return None
    parts = [getattr(fn, "__module__", "") or "", fn.__qualname__, source,
             repr(referenced_constants(fn))]
    for kernel in referenced_kernels(fn):
        if id(kernel.fn) in _seen:
            continue
        inner = function_identity(kernel.fn, _seen | {id(fn)})
        if inner is None:
            return None
        parts.append(inner)
    return "\n".join(parts)


def value_sources(fn: Any) -> list[tuple[Any, list[Path]]] | None:
    """``(function, chains)`` for ``fn`` and every kernel it launches: the names and
    attribute chains whose values the compiled code may depend on (None: no source)."""
    found: list[tuple[Any, list[Path]]] = []
    todo, seen = [fn], set()
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        chains = fingerprint.references(f)
        if chains is None:
            return None
        found.append((f, chains))
        todo.extend(k.fn for k in referenced_kernels(f) if k.fn is not None)
    return found


def read_values(sources: list[tuple[Any, list[Path]]]) -> list[tuple[str, str]]:
    """What those names hold now, as (name, typed deep hash); ``Unhashable`` when a value
    cannot be covered (the function is then compiled without the disk cache)."""
    return [item for f, chains in sources for item in fingerprint.read_values(f, chains)]


def module_identity(parsed: Any) -> str:
    """Identity of an already parsed function: its module with locations, and its name."""
    return f"{parsed.name}\n{parsed.module.operation.get_asm(enable_debug_info=True)}"


def extension_versions() -> tuple[tuple[str, str], ...]:
    """(name, version) of every active dsl extension (their lowering rules shape the code)."""
    from dsl_parser import extensions

    return extensions.declared_fingerprint()  # metadata only: no extension code runs here


def extension_code() -> tuple[tuple[str, str], ...]:
    """(name, digest of its package's files) of every dsl extension: an edited editable
    extension changes the key even without a version bump."""
    from dsl_parser import extensions

    return extensions.code_fingerprint()


def digest(*parts: object) -> str:
    """The disk-cache key: ``parts`` plus every layer's and extension's version and code,
    and the host."""
    from dsl_parser import extensions

    versions, code = extensions.fingerprints()  # one scan of the entry points for both
    h = hashlib.sha256()
    for part in (*parts, component_versions(), versions, code, host_target()):
        h.update(repr(part).encode())
        h.update(b"\0")
    return h.hexdigest()
