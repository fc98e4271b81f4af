"""The extension registry: what downstream packages add, who added it, and discovery.

An extension is a callable ``register(registry: ExtensionRegistry) -> None``
published in the entry-point group ``dsl.extensions`` (or passed to
``activate``). It declares its namespaces, ops, IRDL dialects and lowering
rules through the registry it receives; if it raises, everything it added is
removed again and an ``ExtensionWarning`` names it: the core keeps working.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .. import ops
from .._mlir import Operation, Value
from .discovery import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from .discovery import entry_points as _entry_points
from .discovery import fingerprints as fingerprints
from .discovery import installed as installed

#: A lowering rule: called with the extension op (insertion point before it, its location
#: active), returns the values that replace its results.
LoweringFn = Callable[[Operation], Sequence[Value]]


class ExtensionWarning(UserWarning):
    """An installed extension failed to load (it is disabled; the core keeps working)."""


class Extension:
    """One active extension and everything it registered."""

    __slots__ = ("dialects", "lowerings", "name", "namespaces", "ops", "origin", "version")

    def __init__(self, name: str, version: str | None, origin: str,
                 namespaces: list[str] | None = None, ops: list[str] | None = None,
                 dialects: list[str] | None = None, lowerings: list[str] | None = None) -> None:
        self.name = name
        self.version = version
        self.origin = origin
        self.namespaces: list[str] = [] if namespaces is None else namespaces
        self.ops: list[str] = [] if ops is None else ops
        self.dialects: list[str] = [] if dialects is None else dialects
        self.lowerings: list[str] = [] if lowerings is None else lowerings

    def _fields(self) -> tuple[object, ...]:
        return (self.name, self.version, self.origin, self.namespaces, self.ops, self.dialects,
                self.lowerings)

    # Public (``extensions.active()``): compares and prints as the dataclass it was.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Extension) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable, like the dataclass

    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}(name={self.name!r}, version={self.version!r}, "
                f"origin={self.origin!r}, namespaces={self.namespaces!r}, ops={self.ops!r}, "
                f"dialects={self.dialects!r}, lowerings={self.lowerings!r})")


class Dialect:
    """An IRDL dialect (``irdl`` is the text of its ``irdl.dialect`` module). Not changed
    after construction."""

    __slots__ = ("extension", "irdl", "name")

    def __init__(self, name: str, irdl: str, extension: str) -> None:
        self.name = name
        self.irdl = irdl
        self.extension = extension


class Lowering:
    """A Python lowering rule for one op name (not changed after construction)."""

    __slots__ = ("extension", "fn", "op_name")

    def __init__(self, op_name: str, fn: LoweringFn, extension: str) -> None:
        self.op_name = op_name
        self.fn = fn
        self.extension = extension


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


def namespace_of_module(module: str) -> str | None:
    """The alias of the extension namespace importable as ``module`` (None if there is none)."""
    load()
    return next((alias for alias, name in NAMESPACES.items() if name == module), None)
