"""DSL source text: its module-level names and its one decorated definition.

Nothing in the text is executed. ``import dsl_parser.language as pl`` (or any
``import ... as pl``) binds ``pl``; ``import downstream_ext.language as dx`` binds
the namespace module of an installed extension (``dsl_parser.extensions``);
simple module-level assignments such as ``N = 64`` or ``M = pl.dynamic("M")``
are evaluated like annotations; ``@pl.kernel`` definitions become ``Kernel``
objects (launchable from the text's function); ``import dsl_core as dc`` binds
the installed dsl-core (for ``dc.Stream`` and ``dc.Constexpr[T]`` annotations);
other statements are ignored.
"""

from __future__ import annotations

import ast
import importlib
from typing import Any

from ..errors import (
    ParserError,
    ParserSyntaxError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from ..extensions.registry import namespace_of_module
from ..kernel import Kernel, KernelText
from .evaluator import MISSING, Evaluator
from .function_parser import FunctionSource
from .source import SourceTracker
from .type_resolver import TypeResolver

_KINDS = ("function", "program")


def _language() -> object:
    from .. import language

    return language


def _decorator_name(decorator: ast.expr) -> str | None:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)


def decorator_kind(decorator: ast.expr) -> str | None:
    """'function' for ``@pl.function`` / ``@pl.function(...)``, 'program' likewise."""
    name = _decorator_name(decorator)
    return name if name in _KINDS else None


def is_kernel_decorator(decorator: ast.expr) -> bool:
    """``@pl.kernel`` / ``@pl.kernel(...)``."""
    return _decorator_name(decorator) == "kernel"


class TextModule:
    """The module-level view of parsed DSL text."""

    def __init__(self, tree: ast.Module, src: SourceTracker) -> None:
        self.tree = tree
        self.src = src
        self.globals: dict[str, object] = {"pl": _language()}
        self._collect_globals()

    def evaluator(self) -> Evaluator:
        return Evaluator(self.globals, {})

    def _lookup(self, name: str, node: ast.AST) -> object:
        value = self.evaluator().resolve(name)
        if value is MISSING:
            raise KeyError(name)
        return value

    def _collect_globals(self) -> None:
        resolver = TypeResolver(self.src, self._lookup)
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    self._bind_import(alias)
            elif isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if alias.asname == "pl" or alias.name == "pl":
                        self.globals["pl"] = _language()
            elif isinstance(stmt, ast.FunctionDef) and any(
                    is_kernel_decorator(d) for d in stmt.decorator_list):
                decorator = next(d for d in stmt.decorator_list if is_kernel_decorator(d))
                options = self._options(decorator)
                self.globals[stmt.name] = Kernel(
                    None, name=stmt.name, strict_ssa=options.get("strict_ssa", False),
                    text=KernelText(stmt, self.src, self.globals))
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name):
                try:
                    self.globals[stmt.targets[0].id] = resolver.value(stmt.value)
                except (ParserError, KeyError):
                    continue

    def _bind_import(self, alias: ast.alias) -> None:
        """``import ... as pl`` binds pl; ``import <extension namespace module> as dx`` binds
        that installed module (the text itself is never executed)."""
        if alias.asname == "pl" or alias.name == "pl":
            self.globals["pl"] = _language()
        elif alias.name == "dsl_core":
            try:
                self.globals[alias.asname or alias.name] = importlib.import_module("dsl_core")
            except ImportError as exc:
                self.src.error(alias, UndefinedVariableError, f"cannot import dsl_core: {exc}")
        elif alias.asname is not None and namespace_of_module(alias.name) is not None:
            try:
                self.globals[alias.asname] = importlib.import_module(alias.name)
            except ImportError as exc:
                self.src.error(alias, UndefinedVariableError,
                               f"cannot import the extension namespace {alias.name}: {exc}")

    # -- the definition ------------------------------------------------------------------------
    def single_definition(self, name: str) -> tuple[str, ast.AST, dict[str, Any]]:
        """The one decorated function or class; ValueError when there are none or several."""
        found = []
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                for decorator in stmt.decorator_list:
                    kind = decorator_kind(decorator)
                    if kind is not None:
                        found.append((kind, stmt, self._options(decorator)))
                        break
        if not found:
            raise ValueError(f"no @pl.function or @pl.program found in {name}")
        if len(found) > 1:
            names = ", ".join(getattr(node, "name", "?") for _, node, _ in found)
            raise ValueError(f"{name} defines {len(found)} DSL functions/programs ({names}); "
                             "pl.parse takes exactly one (put several functions in a @pl.program)")
        return found[0]

    def _options(self, decorator: ast.expr) -> dict[str, Any]:
        if not isinstance(decorator, ast.Call):
            return {}
        options: dict[str, Any] = {}
        for keyword in decorator.keywords:
            value = keyword.value
            if keyword.arg != "strict_ssa" or not isinstance(value, ast.Constant) \
                    or not isinstance(value.value, bool):
                self.src.error(keyword, ParserSyntaxError,
                               "the decorator only takes strict_ssa=True/False here")
            options["strict_ssa"] = value.value
        return options

    @staticmethod
    def kernel_method(method: ast.FunctionDef, src: SourceTracker) -> None:
        """A ``@pl.kernel`` inside a program class: an error."""
        src.error(src.keyword_span(method), UnsupportedFeatureError,
                  f"kernel '{method.name}' is defined inside a program class: define "
                  "@pl.kernel functions at module level and launch them from a method")

    @staticmethod
    def methods(node: ast.ClassDef, src: SourceTracker) -> list[ast.FunctionDef]:
        """The methods of a program class (a docstring and ``pass`` may sit beside them)."""
        methods = []
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef):
                methods.append(stmt)
            elif not isinstance(stmt, ast.Pass) and not (
                    isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                src.error(stmt, UnsupportedFeatureError,
                          "a program class may only contain methods")
        if not methods:
            src.error(node, ParserSyntaxError, f"program {node.name} has no methods")
        return methods

    def method_sources(self, node: ast.ClassDef, strict: bool) -> list[FunctionSource]:
        sources = []
        for method in self.methods(node, self.src):
            if any(is_kernel_decorator(d) for d in method.decorator_list):
                self.kernel_method(method, self.src)
            options = next((self._options(d) for d in method.decorator_list
                            if decorator_kind(d) == "function"), {})
            sources.append(FunctionSource(method, self.src, self.evaluator(),
                                          strict=options.get("strict_ssa", strict), is_method=True))
        return sources
