"""The extension registry: what downstream packages add, who added it, and discovery.

An extension is a callable ``register(registry: ExtensionRegistry) -> None``
published in the entry-point group ``dsl.extensions`` (or passed to
``activate``). It declares its namespaces, ops, IRDL dialects and lowering
rules through the registry it receives; if it raises, everything it added is
removed again and an ``ExtensionWarning`` names it: the core keeps working.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import ops
from .._mlir import Operation, Value

#: The entry-point group that installed extensions publish ``register`` in.
ENTRY_POINT_GROUP = "dsl.extensions"

#: A lowering rule: called with the extension op (insertion point before it, its location
#: active), returns the values that replace its results.
LoweringFn = Callable[[Operation], Sequence[Value]]


class ExtensionWarning(UserWarning):
    """An installed extension failed to load (it is disabled; the core keeps working)."""


@dataclass
class Extension:
    """One active extension and everything it registered."""

    name: str
    version: str | None
    origin: str
    namespaces: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    dialects: list[str] = field(default_factory=list)
    lowerings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Dialect:
    """An IRDL dialect (``irdl`` is the text of its ``irdl.dialect`` module)."""

    name: str
    irdl: str
    extension: str


@dataclass(frozen=True)
class Lowering:
    """A Python lowering rule for one op name."""

    op_name: str
    fn: LoweringFn
    extension: str


#: alias -> module of every extension namespace (``"dx" -> "downstream_ext.language"``).
NAMESPACES: dict[str, str] = {}
#: dialect name -> Dialect.
DIALECTS: dict[str, Dialect] = {}
#: op name -> Lowering.
#: Dialects of dsl-mlir itself: their ops never have extension lowering rules, so a
#: module made of them only is compiled without discovering extensions.
CORE_DIALECTS = frozenset({
    "builtin", "func", "arith", "math", "scf", "cf", "memref", "tensor", "linalg", "vector",
    "llvm", "bufferization", "index", "affine", "ub", "gpu", "nvvm", "dsl", "complex"})
LOWERINGS: dict[str, Lowering] = {}

_ACTIVE: dict[str, Extension] = {}
_FAILED: dict[str, str] = {}
_LOCK = threading.RLock()
_DISCOVERED = False


class ExtensionRegistry:
    """What an extension's ``register(registry)`` receives: each call records what it adds."""

    def __init__(self, extension: Extension) -> None:
        self.extension = extension

    def namespace(self, alias: str, module: str) -> None:
        """Declare the DSL namespace ``alias`` (``dx``), importable as ``module``."""
        if not alias.isidentifier() or alias == "pl":
            raise ValueError(f"invalid namespace alias {alias!r}")
        if NAMESPACES.get(alias, module) != module:
            raise ValueError(f"namespace {alias!r} is already taken by {NAMESPACES[alias]}")
        NAMESPACES[alias] = module
        self.extension.namespaces.append(alias)

    def op(self, rule: ops.OpRule) -> None:
        """Add an op (``rule.namespace`` must be one of this extension's namespaces)."""
        if rule.namespace not in self.extension.namespaces:
            raise ValueError(f"{rule.qualname}: declare the namespace {rule.namespace!r} "
                             "first (registry.namespace(alias, module))")
        ops.register(rule)
        self.extension.ops.append(rule.key)

    def dialect(self, name: str, irdl: str) -> None:
        """Add an IRDL dialect, loaded into every context that builds or parses its ops."""
        from .dialects import validate

        if name in DIALECTS:
            raise ValueError(f"dialect {name!r} is already registered by "
                             f"extension {DIALECTS[name].extension!r}")
        validate(name, irdl)
        DIALECTS[name] = Dialect(name, irdl, self.extension.name)
        self.extension.dialects.append(name)

    def lowering(self, op_name: str, fn: LoweringFn) -> None:
        """Lower ``op_name`` with ``fn`` before dsl-mlir's pipeline runs."""
        if op_name.split(".", 1)[0] in CORE_DIALECTS:
            raise ValueError(f"{op_name}: lowering rules are for extension ops; the "
                             f"{op_name.split('.', 1)[0]!r} dialect belongs to dsl-mlir")
        if op_name in LOWERINGS:
            raise ValueError(f"{op_name} already has a lowering (extension "
                             f"{LOWERINGS[op_name].extension!r})")
        LOWERINGS[op_name] = Lowering(op_name, fn, self.extension.name)
        self.extension.lowerings.append(op_name)


def _rollback(ext: Extension) -> None:
    for key in ext.ops:
        if key in ops.OPS or key in ops.EXTENSION_OPS:
            ops.unregister(key)
    for alias in ext.namespaces:
        NAMESPACES.pop(alias, None)
    for name in ext.dialects:
        DIALECTS.pop(name, None)
    for op_name in ext.lowerings:
        LOWERINGS.pop(op_name, None)


def _warn(name: str, origin: str, exc: BaseException) -> None:
    message = (f"dsl extension {name!r} ({origin}) failed to load and is disabled: "
               f"{type(exc).__name__}: {exc}")
    _FAILED[name] = message
    warnings.warn(message, ExtensionWarning, stacklevel=3)


def activate(register: Callable[[ExtensionRegistry], Any], *, name: str,
             version: str | None = None, origin: str | None = None) -> bool:
    """Run ``register(registry)`` once for the extension ``name``; True when it is active.

    Idempotent: a second call with the same name does nothing. If ``register``
    raises, what it registered is removed and an ``ExtensionWarning`` names it.
    """
    with _LOCK:
        if name in _ACTIVE:
            return True
        ext = Extension(name, version, origin or f"{getattr(register, '__module__', '?')}:"
                                                  f"{getattr(register, '__qualname__', '?')}")
        try:
            register(ExtensionRegistry(ext))
        except Exception as exc:
            _rollback(ext)
            _warn(name, ext.origin, exc)
            return False
        _ACTIVE[name] = ext
        _FAILED.pop(name, None)
        return True


def deactivate(name: str) -> None:
    """Remove an active extension and everything it registered (for tests and tools)."""
    with _LOCK:
        ext = _ACTIVE.pop(name)
        _rollback(ext)


def _entry_points() -> Iterable[Any]:
    from importlib.metadata import entry_points

    return entry_points(group=ENTRY_POINT_GROUP)


def load() -> None:
    """Activate every installed extension (entry-point group ``dsl.extensions``), once."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    with _LOCK:
        if _DISCOVERED:
            return
        _DISCOVERED = True
        for ep in _entry_points():
            if ep.name in _ACTIVE:
                continue
            dist = getattr(ep, "dist", None)
            version = getattr(dist, "version", None)
            origin = f"entry point {ep.value}" + (f" of {dist.name} {version}" if dist else "")
            try:
                register = ep.load()
            except Exception as exc:
                _warn(ep.name, origin, exc)
                continue
            activate(register, name=ep.name, version=version, origin=origin)


def active() -> dict[str, Extension]:
    """The active extensions by name (loads the installed ones first)."""
    load()
    return dict(_ACTIVE)


def failures() -> dict[str, str]:
    """Extensions that failed to load: name -> the warning's message."""
    load()
    return dict(_FAILED)


def fingerprint() -> tuple[tuple[str, str], ...]:
    """(name, version) of every active extension: part of the runtime's cache keys."""
    load()
    return tuple(sorted((e.name, e.version or "unversioned") for e in _ACTIVE.values()))


def declared_fingerprint() -> tuple[tuple[str, str], ...]:
    """(name, version) of every installed or active extension, from package metadata only.

    Cheap (no extension code runs): what a cache key needs before anything is compiled.
    """
    return fingerprints()[0]


def code_fingerprint() -> tuple[tuple[str, str], ...]:
    """(name, digest of its package's files) of every installed or active extension.

    An editable extension whose lowering changes without a version bump changes this
    (the files of the top-level package that defines it: ``.py``, ``.so``, ``.mlir``), so
    code compiled with the old lowering is not reused. Read once per process and
    package (the code a process runs does not change under it); nothing is imported.
    """
    return fingerprints()[1]


#: An installed extension as ``fingerprints`` reads it: (entry-point name, its value
#: ``module:function``, the version of the distribution declaring it or None).
Installed = tuple[str, str, str | None]


def installed() -> list[Installed]:
    """The installed extensions, from a scan of the entry points (every distribution's
    metadata is read: milliseconds, plus the import of ``importlib.metadata``)."""
    found = []
    for ep in _entry_points():
        dist = getattr(ep, "dist", None)
        found.append((str(ep.name), str(ep.value), getattr(dist, "version", None)))
    return found


def fingerprints(scanned: Iterable[Installed] | None = None,
                 ) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """``(declared_fingerprint(), code_fingerprint())`` from one scan of the installed
    entry points (``scanned``: a scan the caller kept, e.g. dsl-runtime's index of it,
    which spares a process's first call the scan)."""
    found = {e.name: e.version or "unversioned" for e in _ACTIVE.values()}
    # an extension's package: from "entry point pkg.mod:register of dist 1.0" or "pkg.mod:fn"
    modules = {e.name: e.origin.removeprefix("entry point ").split(":")[0].strip()
               for e in _ACTIVE.values()}
    for name, value, version in (installed() if scanned is None else scanned):
        found.setdefault(name, version or "unversioned")
        modules.setdefault(name, value.split(":")[0].strip())
    code = tuple(sorted((name, _package_digest(module.split(".")[0]))
                        for name, module in modules.items()))
    return tuple(sorted(found.items())), code


_SOURCE_SUFFIXES = (".py", ".so", ".mlir", ".pyd", ".dylib")
#: Packages whose files hold more than this are fingerprinted by size and mtime only.
_CONTENT_LIMIT = 16 << 20


@functools.cache
def _package_digest(top: str) -> str:
    """SHA-256 (16 hex digits) of the source and library files of package ``top``."""
    import hashlib
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return "unknown"
    if spec is None:
        return "unknown"
    files: list[tuple[str, str]] = []
    for base in spec.submodule_search_locations or ():
        for folder, dirs, names in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files.extend((os.path.join(folder, n), os.path.relpath(os.path.join(folder, n), base))
                         for n in sorted(names) if n.endswith(_SOURCE_SUFFIXES))
    if not files and spec.origin and os.path.isfile(spec.origin):
        files.append((spec.origin, os.path.basename(spec.origin)))
    sizes = []
    for path, _ in files:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(-1)
    by_content = sum(max(0, n) for n in sizes) <= _CONTENT_LIMIT
    h = hashlib.sha256()
    for (path, rel), size in zip(files, sizes, strict=True):
        h.update(rel.encode())
        try:
            if by_content:
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
            else:  # a large package (bundled libraries): size and modification time
                st = os.stat(path)
                h.update(f"{size}:{st.st_mtime_ns}".encode())
        except OSError:
            h.update(b"unreadable")
    return h.hexdigest()[:16]


def namespace_of_module(module: str) -> str | None:
    """The alias of the extension namespace importable as ``module`` (None if there is none)."""
    load()
    return next((alias for alias, name in NAMESPACES.items() if name == module), None)
