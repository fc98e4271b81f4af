"""Lexical scopes of a function body and the SSA rules on them.

Strict SSA (the default): a name is assigned once; it may not be assigned
again while it is visible (in this scope or an enclosing one). A scope that
closes (loop body, branch) takes its names with it: using one afterwards is a
ScopeIsolationError that says where it was defined; ``pl.yield_`` is the way
out. Non-strict mode allows reassignment as long as the type stays the same.
"""

from __future__ import annotations

import ast

from ..errors import ParserTypeError, SSAViolationError, UnsupportedFeatureError
from ..types import types_match
from ..values import TypedValue
from .source import Located, SourceTracker


class Binding:
    """What a name is bound to (a TypedValue or a compile-time Python object) and where
    (the AST node; its span is computed only for an error)."""

    __slots__ = ("value", "where")

    def __init__(self, value: object, where: Located) -> None:
        self.value = value
        self.where = where


class Scope:
    """One level: the function body, a loop body or an if/else branch."""

    __slots__ = ("bindings", "hidden", "kind")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.bindings: dict[str, Binding] = {}
        #: Names that lived in closed inner scopes: where, and in which kind of scope.
        self.hidden: dict[str, tuple[Located, str]] = {}


class ScopeManager:
    """The stack of scopes of one function and its assignment rules."""

    def __init__(self, src: SourceTracker, strict: bool) -> None:
        self.src = src
        self.strict = strict
        self.stack: list[Scope] = []
        #: When set, binding a name to a tensor is an error with this message ({name}).
        self.forbid_tensors: str | None = None
        #: Tensors that may be named even then (a kernel's shared-memory tiles).
        self.nameable: set[object] = set()

    def push(self, kind: str) -> Scope:
        scope = Scope(kind)
        self.stack.append(scope)
        return scope

    def pop(self) -> Scope:
        """Close the innermost scope; its names become 'hidden' in the parent."""
        scope = self.stack.pop()
        if self.stack:
            hidden = self.stack[-1].hidden
            for name, binding in scope.bindings.items():
                hidden.setdefault(name, (binding.where, scope.kind))
            for name, where in scope.hidden.items():
                hidden.setdefault(name, where)
        return scope

    @property
    def current(self) -> Scope:
        return self.stack[-1]

    def lookup(self, name: str) -> Binding | None:
        for scope in reversed(self.stack):
            binding = scope.bindings.get(name)
            if binding is not None:
                return binding
        return None

    def hidden(self, name: str) -> tuple[Located, str] | None:
        """Where ``name`` was defined if it lived in an inner scope that has closed."""
        for scope in reversed(self.stack):
            where = scope.hidden.get(name)
            if where is not None:
                return where
        return None

    def define(self, name: str, value: object, node: ast.AST) -> None:
        """Bind ``name`` in the current scope, enforcing the SSA rules."""
        if self.forbid_tensors is not None and isinstance(value, TypedValue) and value.is_tensor \
                and value.value not in self.nameable:
            self.src.error(node, UnsupportedFeatureError, self.forbid_tensors.format(name=name),
                           hint="use the parameter itself (x[i], x.shape[d])")
        previous = self.lookup(name)
        if previous is not None:
            self._check_rebind(name, previous, value, node)
        self.current.bindings[name] = Binding(value, node)

    def _check_rebind(self, name: str, previous: Binding, value: object, node: ast.AST) -> None:
        note = self.src.note(f"'{name}' was first defined here", previous.where)
        if self.strict:
            where = "this scope" if name in self.current.bindings else "an enclosing scope"
            self.src.error(
                node, SSAViolationError,
                f"SSA violation: '{name}' is already defined in {where}",
                notes=[note],
                hint="assign each name once (strict SSA); use a new name, or "
                     "pl.yield_ to pass a value out of a loop or branch")
        old, new = previous.value, value
        if isinstance(old, TypedValue) and isinstance(new, TypedValue) \
                and not types_match(old.type, new.type):
            self.src.error(
                node, ParserTypeError,
                f"'{name}' changes type on reassignment: it was {old.type}, now {new.type}",
                notes=[note])
