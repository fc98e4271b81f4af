"""Typed, deep hashing of the Python values a DSL function reads at compile time.

The parser folds what a function reads from its globals and closure (``BOX[0]``,
``cfg.ALPHA``, a size used in an annotation) into the compiled code, so those
values belong in the disk-cache key. ``references`` finds the names and attribute
chains (``cfg.ALPHA``) a function's source reads, annotations included;
``fingerprint`` hashes what they hold now: numbers, strings, tuples, lists, dicts,
sets, numpy arrays and scalars, enums, dataclasses, DSL types, and functions,
classes and modules by name. A value it cannot hash raises ``Unhashable`` (the
caller then compiles without the disk cache).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import enum
import hashlib
import inspect
import textwrap
import types
import weakref
from typing import Any

from dsl_core.sources import definition, parse_python

#: Bounds on what is hashed (beyond them the function is compiled without the disk cache).
MAX_ITEMS = 100_000
MAX_DEPTH = 64
MAX_ARRAY_BYTES = 64 << 20
_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_NAMED = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)

Path = tuple[str, ...]


class Unhashable(ValueError):
    """A value the cache key cannot cover."""


def _chain(node: ast.expr) -> Path | None:
    """``("cfg", "ALPHA")`` for ``cfg.ALPHA``; None unless a chain of names."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return (node.id, *reversed(parts))
    return None


_sources: weakref.WeakKeyDictionary[Any, str | None] = weakref.WeakKeyDictionary()
#: The parsed (dedented) source of a function, where reading it parsed it already.
_trees: weakref.WeakKeyDictionary[Any, ast.Module] = weakref.WeakKeyDictionary()


def source(fn: Any) -> str | None:
    """The source of ``fn`` (as ``inspect.getsource``), read once per function (None when
    unavailable)."""
    try:
        return _sources[fn]
    except (KeyError, TypeError):
        pass
    text, tree = _source_by_positions(fn)
    if tree is not None:
        with contextlib.suppress(TypeError):
            _trees[fn] = tree
    if text is None:
        try:
            text = inspect.getsource(fn)
        except (OSError, TypeError):
            text = None
    with contextlib.suppress(TypeError):
        _sources[fn] = text
    return text


def _source_by_positions(fn: Any) -> tuple[str | None, ast.Module | None]:
    """The lines of ``fn``'s definition cut by the positions of its code, and their
    parse (``dsl_core.sources.definition``); (None, None) where unavailable."""
    found = definition(fn)
    return (None, None) if found is None else found[:2]


def _definition(fn: Any) -> ast.AST | None:
    text = source(fn)
    if text is None:
        return None
    try:
        tree = _trees.get(fn)
    except TypeError:
        tree = None
    try:
        tree = tree or parse_python(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None


def _locals(node: ast.AST) -> set[str]:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
             and isinstance(n.ctx, (ast.Store, ast.Del))}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        names |= {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    return names


def references(fn: Any) -> list[Path] | None:
    """The non-local names and attribute chains the source of ``fn`` reads (annotations
    included, decorators not), sorted; None when its source is unavailable."""
    node = _definition(fn)
    if node is None:
        return None
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    local = _locals(node)
    found: set[Path] = set()
    roots = [node.args, *node.body] + ([node.returns] if node.returns else [])
    for part in roots:
        for sub in ast.walk(part):
            if isinstance(sub, (ast.Attribute, ast.Name)) and isinstance(sub.ctx, ast.Load):
                chain = _chain(sub)
                if chain and chain[0] not in local:
                    found.add(chain)
    return sorted(_longest(found))


def _longest(chains: set[Path]) -> set[Path]:
    """Drop a chain that is a prefix of another (``cfg`` when ``cfg.ALPHA`` is read)."""
    return {c for c in chains if not any(len(o) > len(c) and o[:len(c)] == c for o in chains)}


def resolve(fn: Any, chain: Path) -> tuple[Path, Any] | None:
    """The value ``chain`` names for ``fn`` now (following attributes through modules only),
    with the part of the chain that was followed; None when the name is not defined."""
    closure = {name: cell.cell_contents for name, cell in
               zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False) if _filled(cell)}
    if chain[0] in closure:
        value = closure[chain[0]]
    elif chain[0] in fn.__globals__:
        value = fn.__globals__[chain[0]]
    else:
        return None
    depth = 1
    while depth < len(chain) and isinstance(value, types.ModuleType):
        value = getattr(value, chain[depth], None)
        depth += 1
    return chain[:depth], value


def _filled(cell: Any) -> bool:
    try:
        return cell.cell_contents is not _EMPTY
    except ValueError:
        return False


_EMPTY = object()


class _Hasher:
    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.items = 0
        self.stack: set[int] = set()

    def put(self, *parts: object) -> None:
        for part in parts:
            self.h.update(str(part).encode())
            self.h.update(b"\0")

    def value(self, v: Any, depth: int = 0) -> None:
        self.items += 1
        if self.items > MAX_ITEMS or depth > MAX_DEPTH:
            raise Unhashable("the values it reads are too large or too deeply nested")
        t = type(v)
        if t in _SCALARS:
            self.put(t.__name__, repr(v))
        elif isinstance(v, enum.Enum):
            self.put("enum", _name(t), v.name)
        elif isinstance(v, _SCALARS):  # a subclass of a number or string
            self.put(_name(t), repr(v))
        elif isinstance(v, types.ModuleType):
            self.put("module", v.__name__)
        elif isinstance(v, _NAMED):
            self.put("named", _name(v))
        else:
            self._container(v, t, depth)

    def _container(self, v: Any, t: type, depth: int) -> None:
        if id(v) in self.stack:
            raise Unhashable(f"a {t.__name__} value refers to itself")
        self.stack.add(id(v))
        try:
            self._compound(v, t, depth)
        finally:
            self.stack.discard(id(v))

    def _compound(self, v: Any, t: type, depth: int) -> None:
        if isinstance(v, (tuple, list)):
            self.put(_name(t), len(v))
            for item in v:
                self.value(item, depth + 1)
        elif isinstance(v, dict):
            self.put(_name(t), len(v))
            for key, item in v.items():
                self.value(key, depth + 1)
                self.value(item, depth + 1)
        elif isinstance(v, (set, frozenset)):
            self.put(_name(t), sorted(fingerprint(item) for item in v))
        elif _is_numpy(v):
            self._numpy(v)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            self.put("dataclass", _name(t))
            for f in dataclasses.fields(v):
                self.put(f.name)
                self.value(getattr(v, f.name), depth + 1)
        elif _is_dsl_object(v):
            self.put("dsl", _name(t), _stable_repr(v))
        else:
            raise Unhashable(f"cannot hash a {_name(t)} value")

    def _numpy(self, v: Any) -> None:
        import numpy as np

        a = np.asarray(v)
        if a.dtype.hasobject or a.nbytes > MAX_ARRAY_BYTES:
            raise Unhashable(f"cannot hash a numpy array of {a.dtype} with {a.nbytes} bytes")
        self.put("numpy", type(v).__name__, a.dtype.str, a.shape)
        self.h.update(np.ascontiguousarray(a).tobytes())


def _name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def _is_numpy(v: Any) -> bool:
    return type(v).__module__ == "numpy" and hasattr(v, "dtype")


def _is_dsl_object(v: Any) -> bool:
    return type(v).__module__.split(".")[0] in ("dsl_core", "dsl_parser", "dsl_runtime", "dsl_mlir")


def _stable_repr(v: Any) -> str:
    text = repr(v)
    if " at 0x" in text:
        raise Unhashable(f"cannot hash a {type(v).__qualname__} value (no stable repr)")
    return text


def fingerprint(value: Any) -> str:
    """SHA-256 of a value's type and content (``Unhashable`` when it cannot be covered)."""
    hasher = _Hasher()
    hasher.value(value)
    return hasher.h.hexdigest()


def read_values(fn: Any, chains: list[Path]) -> list[tuple[str, str]]:
    """(dotted name, fingerprint) of every chain's value now (``Unhashable`` propagates)."""
    out = []
    for chain in chains:
        found = resolve(fn, chain)
        if found is None:
            continue
        followed, value = found
        if _is_kernel(value):
            continue  # kernels enter the key through their own source and values
        try:
            out.append((".".join(followed), fingerprint(value)))
        except Unhashable as err:
            raise Unhashable(f"'{'.'.join(followed)}': {err}") from None
    return out


def _is_kernel(value: Any) -> bool:
    return type(value).__name__ == "Kernel" and hasattr(value, "fn")
