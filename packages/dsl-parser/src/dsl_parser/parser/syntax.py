"""Syntax recognition shared by the sub-parsers: unsupported constructs by name,
``pl.yield_`` statements, compile-time callables, assigned-name scans."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..floats import float64
from ..markers import ControlBuiltin
from ..types import Scalar, Tensor, dynamic

#: Statements the DSL rejects, with the name used in the error.
UNSUPPORTED_STATEMENTS: dict[type[ast.AST], str] = {
    ast.FunctionDef: "nested function definitions",
    ast.AsyncFunctionDef: "nested function definitions",
    ast.ClassDef: "class definitions inside a function",
    ast.Try: "try statements",
    ast.With: "with statements",
    ast.AsyncWith: "with statements",
    ast.AsyncFor: "async for loops",
    ast.Raise: "raise statements",
    ast.Assert: "assert statements",
    ast.Delete: "del statements",
    ast.Global: "global declarations",
    ast.Nonlocal: "nonlocal declarations",
    ast.Import: "import statements inside a function",
    ast.ImportFrom: "import statements inside a function",
    ast.Break: "break statements",
    ast.Continue: "continue statements",
    ast.Match: "match statements",
}
if hasattr(ast, "TryStar"):
    UNSUPPORTED_STATEMENTS[ast.TryStar] = "try statements"

#: Expressions the DSL rejects.
UNSUPPORTED_EXPRESSIONS: dict[type[ast.AST], str] = {
    ast.Lambda: "lambda expressions",
    ast.ListComp: "list comprehensions",
    ast.SetComp: "set comprehensions",
    ast.DictComp: "dict comprehensions",
    ast.GeneratorExp: "generator expressions",
    ast.IfExp: "conditional expressions (a if c else b)",
    ast.Dict: "dict displays",
    ast.Set: "set displays",
    ast.JoinedStr: "f-strings",
    ast.Await: "await expressions",
    ast.Yield: "yield expressions (use pl.yield_)",
    ast.YieldFrom: "yield expressions (use pl.yield_)",
    ast.NamedExpr: "assignment expressions (:=)",
    ast.Starred: "starred expressions",
    ast.Slice: "slices",
}

_COMPILE_TIME = (Tensor, Scalar, dynamic, float64)


def compile_time_callable(func: object) -> bool:
    """Callables evaluated by the parser itself (type constructors, pl.dynamic, _dump)."""
    return any(func is f for f in _COMPILE_TIME)


def yield_call(node: ast.AST) -> ast.Call | None:
    """The ``pl.yield_(...)`` call of a statement ``[targets =] pl.yield_(...)``."""
    value = node.value if isinstance(node, (ast.Assign, ast.Expr)) else None
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name == "yield_":
            return value
    return None


def is_control(value: object, name: str) -> bool:
    return isinstance(value, ControlBuiltin) and value.name == name


def target_names(target: ast.AST) -> Iterator[str]:
    """Names bound by an assignment target (``a``, ``a, (b, c)``)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from target_names(elt)


def assigned_names(body: list[ast.stmt]) -> list[str]:
    """Names assigned anywhere in ``body`` (nested blocks included, loop targets excluded),
    in order of first assignment: the candidates for loop-carried values."""
    seen: dict[str, None] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            for target in targets:
                for name in target_names(target):
                    seen.setdefault(name, None)
    return list(seen)


def direct_names(body: list[ast.stmt]) -> list[str]:
    """Names assigned by the statements of ``body`` itself (not in nested blocks)."""
    seen: dict[str, None] = {}
    for stmt in body:
        targets: list[ast.AST] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            targets = [stmt.target]
        for target in targets:
            for name in target_names(target):
                seen.setdefault(name, None)
    return list(seen)


def surely_assigned(body: list[ast.stmt]) -> list[str]:
    """Names every path through ``body`` assigns: its own assignments, and the names
    assigned by both branches of its if statements (so elif chains count), in order."""
    seen: dict[str, None] = dict.fromkeys(direct_names(body))
    for stmt in body:
        if isinstance(stmt, ast.If) and stmt.orelse:
            other = set(surely_assigned(stmt.orelse))
            for name in surely_assigned(stmt.body):
                if name in other:
                    seen.setdefault(name, None)
    return list(seen)
