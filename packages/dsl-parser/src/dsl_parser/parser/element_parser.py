"""Element access inside a ``@pl.kernel``: ``x[i, j]`` -> ``memref.load``, ``z[i] = v`` ->
``memref.store``.

Indices are INDEX scalars; an int literal becomes a constant, an integer
scalar of another dtype is converted with ``arith.index_cast`` (``index_castui``
for unsigned dtypes). A stored Python number takes the element dtype; a scalar
of another dtype is an error naming both.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .._mlir import Value, arith, ir, memref
from ..errors import ParserTypeError, UnsupportedFeatureError
from ..types import INDEX, Dynamic, ScalarType, TensorType
from ..values import TypedValue, is_literal, literal_problem
from .state import HOST, KERNEL, ParserState, _describe

Visit = Callable[[ast.expr], object]


def index_value(state: ParserState, value: object, where: ast.AST, what: str) -> Value:
    """An ``index`` value for ``value`` (an int, an INDEX or integer scalar, a dimension)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            state.src.error(where, ParserTypeError,
                            f"{what} {value} is negative (kernels do not wrap indices)")
        return state.materialize(value, where, INDEX).value
    if isinstance(value, Dynamic):
        return state.materialize(value, where, INDEX).value
    if isinstance(value, TypedValue) and isinstance(value.type, ScalarType):
        dtype = value.dtype
        if dtype == INDEX:
            return value.value
        if dtype.kind in ("int", "uint"):
            b = state.builder
            cast = arith.IndexCastOp if dtype.kind == "int" else arith.IndexCastUIOp
            with b.located(where):
                return cast(ir.IndexType.get(b.ctx), value.value, loc=b.loc, ip=b.ip).result
    state.src.error(where, ParserTypeError,
                    f"{what} must be an INDEX or integer scalar or an int, got {_describe(value)}")


def element_indices(state: ParserState, value: object, where: ast.expr,
                    target: TypedValue) -> list[Value]:
    """The ``index`` values of ``value``, one index or a tuple of one per dimension of the
    tensor ``target`` (the argument of ``pl.atomic_*``, ``pl.load``, ``pl.store``)."""
    t = target.type
    assert isinstance(t, TensorType) and t.shape is not None
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    nodes = list(where.elts) if isinstance(where, (ast.Tuple, ast.List)) \
        else [where] * len(items)
    if len(items) != len(t.shape):
        state.src.error(where, ParserTypeError,
                        f"the tensor has rank {len(t.shape)} ({t}) but {len(items)} "
                        f"ind{'ex is' if len(items) == 1 else 'ices are'} given")
    return [index_value(state, item, n, "an index") for item, n in zip(items, nodes, strict=True)]


class ElementParser:
    """Loads and stores of tensor (memref) parameters."""

    def __init__(self, state: ParserState, visit: Visit) -> None:
        self.state = state
        self.visit = visit

    def _check_mode(self, node: ast.AST, what: str) -> None:
        if self.state.mode == HOST:
            self.state.src.error(node, UnsupportedFeatureError,
                                 f"{what} is only available inside a @pl.kernel: a function "
                                 "that launches kernels does scalar work only")
        if self.state.mode != KERNEL:  # pragma: no cover - tensors are memrefs only in these modes
            self.state.src.error(node, UnsupportedFeatureError, f"{what} is not supported here")

    def _indices(self, node: ast.Subscript, base: TypedValue, name: str) -> list[Value]:
        t = base.type
        assert isinstance(t, TensorType) and t.shape is not None
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(i, ast.Slice) for i in items):
            self.state.src.error(node.slice, UnsupportedFeatureError,
                                 "slices are not supported in a @pl.kernel: index single "
                                 "elements, x[i, j]")
        if len(items) != len(t.shape):
            example = ", ".join("ijkl"[:len(t.shape)]) if len(t.shape) <= 4 else "..."
            self.state.src.error(node, ParserTypeError,
                                 f"'{name}' has rank {len(t.shape)} ({t}) but {len(items)} "
                                 f"ind{'ex is' if len(items) == 1 else 'ices are'} given",
                                 hint=f"index every dimension: {name}[{example}]")
        return [index_value(self.state, self.visit(item), item, "an index") for item in items]

    def load(self, node: ast.Subscript, base: TypedValue) -> TypedValue:
        """``x[i, j]``: one element of a tensor parameter."""
        self._check_mode(node, "element access x[i]")
        name = ast.unparse(node.value)
        indices = self._indices(node, base, name)
        b = self.state.builder
        op = memref.LoadOp(base.value, indices, loc=b.loc, ip=b.ip)
        return self.state.new(op.result, ScalarType(base.dtype))

    def store(self, target: ast.Subscript, value: object) -> None:
        """``z[i, j] = value``: write one element of a tensor parameter."""
        self._check_mode(target, "storing into a tensor")
        base = self.visit(target.value)
        name = ast.unparse(target.value)
        if not (isinstance(base, TypedValue) and isinstance(base.type, TensorType)):
            self.state.src.error(target.value, ParserTypeError,
                                 f"cannot store into '{name}': it is {_describe(base)}, not a "
                                 "tensor parameter of the kernel")
        t = base.type
        element = self._element(value, t, name, target)
        indices = self._indices(target, base, name)
        b = self.state.builder
        with b.located(target):
            memref.StoreOp(element, base.value, indices, loc=b.loc, ip=b.ip)

    def _element(self, value: object, t: TensorType, name: str, target: ast.Subscript) -> Value:
        state, dtype = self.state, t.dtype
        if isinstance(value, TypedValue):
            if value.is_tensor:
                state.src.error(target, ParserTypeError,
                                f"cannot store {value.type} into an element of '{name}': "
                                "a store takes one scalar")
            if value.dtype != dtype:
                state.src.error(target, ParserTypeError,
                                f"cannot store a {value.type} into '{name}' whose elements are "
                                f"{dtype!r}: the dtypes differ",
                                hint="store a value of the element dtype")
            return value.value
        if not is_literal(value):
            state.src.error(target, ParserTypeError,
                            f"cannot store {_describe(value)} into '{name}': expected a "
                            f"{dtype!r} scalar or a number")
        problem = literal_problem(value, dtype)
        if problem is not None:
            state.src.error(target, ParserTypeError, f"cannot store into '{name}': {problem}")
        return state.materialize(value, target, dtype).value
