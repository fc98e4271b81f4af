"""Annotations -> DSL types, read from the AST without executing them.

``pl.Tensor[[64, N], pl.FP16]``, the legacy ``pl.Tensor((64, N), pl.FP16)``,
``pl.Scalar[pl.INT32]`` (or a bare dtype), ``tuple[A, B]`` for several results.
Names resolve like in the body (closure, globals, compile-time constants);
only numbers, lists, ``pl`` types and ``pl.dynamic`` may appear.
"""

from __future__ import annotations

import ast
import typing
from collections.abc import Callable

from ..errors import ParserError, ParserTypeError
from ..types import PlType, ScalarType, TensorType, dtype_of, dynamic
from .evaluator import Evaluator
from .source import SourceTracker

Lookup = Callable[[str, ast.AST], object]

def as_type(value: object) -> PlType | None:
    """A DSL type from an evaluated annotation: a bare dtype (``pl.INT32``) or a dsl-core
    scalar class (``dc.Int32``) is a scalar."""
    if isinstance(value, (TensorType, ScalarType)):
        return value
    dtype = dtype_of(value)
    return ScalarType(dtype) if dtype is not None else None


class TypeResolver:
    """Evaluates annotation ASTs to DSL types."""

    def __init__(self, src: SourceTracker, lookup: Lookup,
                 is_local: Callable[[str], bool] = lambda name: False) -> None:
        self.src = src
        self.lookup = lookup
        self.is_local = is_local
        #: Annotation text -> type, for annotations that use no local names.
        self._cache: dict[str, PlType] = {}

    def resolve(self, node: ast.expr, what: str) -> PlType:
        """The type an annotation denotes; ``what`` names it in errors ('parameter x')."""
        key = self._key(node)
        cached = self._cache.get(key) if key else None
        if cached is not None:
            return cached
        value = self.value(node)
        t = as_type(value)
        if t is None:
            self.src.error(node, ParserTypeError,
                           f"the annotation of {what} is not a DSL type: {ast.unparse(node)}",
                           hint="use pl.Tensor[[sizes], dtype] or pl.Scalar[dtype]")
        if key and not any(isinstance(n, ast.Name) and self.is_local(n.id) for n in ast.walk(node)):
            self._cache[key] = t
        return t

    def _key(self, node: ast.expr) -> str | None:
        """The annotation's source text (single-line ASCII annotations only)."""
        end = node.end_col_offset
        if node.lineno != node.end_lineno or end is None:
            return None
        index = node.lineno - 1
        if not 0 <= index < len(self.src.lines) or not self.src.lines[index].isascii():
            return None
        return self.src.lines[index][node.col_offset:end]

    def results(self, node: ast.expr | None) -> list[PlType] | None:
        """Declared result types: None when not annotated, [] for ``-> None``."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and node.value is None:
            return []
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == "tuple":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [self.resolve(item, "the return value") for item in items]
        return [self.resolve(node, "the return value")]

    # -- pure evaluation ------------------------------------------------------------------
    def value(self, node: ast.expr) -> object:
        try:
            return self._eval(node)
        except ParserError:
            raise
        except (TypeError, ValueError, AttributeError, KeyError, IndexError,
                ArithmeticError) as exc:
            self.src.error(node, ParserTypeError, f"invalid annotation: {exc}")
        except RecursionError:
            self.src.error(node, ParserTypeError, "invalid annotation: nested too deeply")

    def _eval(self, node: ast.expr) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id, node)
        if isinstance(node, ast.Attribute):
            return getattr(self._eval(node.value), node.attr)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self._eval(e) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Subscript):
            base = self._eval(node.value)
            index = self._eval(node.slice)
            return base[index]  # type: ignore[index]
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.BinOp) and Evaluator.can_fold(node.op):
            return Evaluator.fold_binary(node.op, self._eval(node.left), self._eval(node.right))
        if isinstance(node, ast.UnaryOp) and Evaluator.can_fold(node.op):
            return Evaluator.fold_unary(node.op, self._eval(node.operand))
        self.src.error(node, ParserTypeError,
                       f"unsupported expression in an annotation: {ast.unparse(node)}")

    def _call(self, node: ast.Call) -> object:
        from ..types import Scalar, Tensor

        func = self._eval(node.func)
        if func is not Tensor and func is not Scalar and func is not dynamic:
            self.src.error(node, ParserTypeError,
                           "only pl.Tensor(...), pl.Scalar(...) and pl.dynamic(...) may be "
                           "called in an annotation")
        args = [self._eval(a) for a in node.args]
        kwargs = {k.arg: self._eval(k.value) for k in node.keywords if k.arg}
        return typing.cast(Callable[..., object], func)(*args, **kwargs)
