"""Expressions: names, literals, attributes, subscripts and calls.

An expression evaluates to a compile-time Python object (a number, a list,
a dtype) or to a ``TypedValue``. Operators are in ``operator_parser``; calls
of ``pl.<op>`` go to the op parser, ``self.f(...)`` to the call parser.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import ModuleType
from typing import NoReturn

from .._mlir import arith
from ..errors import (
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from ..extensions.registry import namespace_of_module
from ..kernel import Kernel
from ..markers import (
    AtomicBuiltin,
    BlockBuiltin,
    ControlBuiltin,
    KernelBuiltin,
    OpBuiltin,
    ScalarBuiltin,
    VectorBuiltin,
    WarpBuiltin,
)
from ..ops import OPS, lookup, unknown_op_hint
from ..types import INDEX, Dynamic, ScalarType, TensorType
from ..values import TypedValue
from .atomic_parser import AtomicParser
from .block_parser import BlockParser
from .call_parser import CallParser, MethodRef
from .element_parser import ElementParser
from .evaluator import FOLDABLE_CALLS
from .intrinsic_parser import IntrinsicParser, scalar_min_max
from .launch_parser import LaunchParser, launched_call
from .op_parser import OpParser
from .operator_parser import OperatorParser
from .protocol_params import as_dsl_value
from .state import FUNCTION, HOST, KERNEL, ParserState, SelfRef
from .syntax import UNSUPPORTED_EXPRESSIONS, compile_time_callable
from .vector_parser import VectorParser
from .warp_parser import WarpParser

Visit = Callable[[ast.expr], object]


class ExprParser:
    """Evaluates expression nodes; recursion goes through ``visit`` (location, wrapping)."""

    def __init__(self, state: ParserState, visit: Visit) -> None:
        self.state = state
        self.visit = visit
        self.ops = OpParser(state)
        self.calls = CallParser(state)
        self.operators = OperatorParser(state, visit, self.ops)
        self.elements = ElementParser(state, visit)
        self.intrinsics = IntrinsicParser(state)
        self.atomics = AtomicParser(state)
        self.blocks = BlockParser(state)
        self.warps = WarpParser(state)
        self.vectors = VectorParser(state)
        self.launches = LaunchParser(state, visit)
        self.handlers: dict[type[ast.AST], Callable[..., object]] = {
            ast.Constant: self.constant, ast.Name: self.name, ast.Attribute: self.attribute,
            ast.Subscript: self.subscript, ast.List: self.sequence, ast.Tuple: self.sequence,
            ast.BinOp: self.operators.binop, ast.UnaryOp: self.operators.unaryop,
            ast.Compare: self.operators.compare, ast.BoolOp: self.operators.boolop,
            ast.Call: self.call,
        }

    def dispatch(self, node: ast.expr) -> object:
        handler = self.handlers.get(type(node))
        if handler is None:
            what = UNSUPPORTED_EXPRESSIONS.get(type(node), type(node).__name__)
            self.state.src.error(node, UnsupportedFeatureError,
                                 f"{what} are not supported in DSL functions")
        return handler(node)

    def error(self, node: ast.AST, cls: type[ParserError], message: str,
              hint: str | None = None) -> NoReturn:
        self.state.src.error(node, cls, message, hint=hint)

    # -- atoms ------------------------------------------------------------------------------
    def constant(self, node: ast.Constant) -> object:
        if node.value is Ellipsis or isinstance(node.value, (bytes, complex)):
            self.error(node, UnsupportedFeatureError,
                       f"the literal {node.value!r} is not supported")
        return node.value

    def name(self, node: ast.Name) -> object:
        return self.state.lookup(node.id, node)

    def attribute(self, node: ast.Attribute) -> object:
        base = self.visit(node.value)
        if isinstance(base, TypedValue):
            return self._value_attribute(node, base)
        if isinstance(base, SelfRef):
            return MethodRef(base.symbols, node.attr)
        try:
            found = getattr(base, node.attr)
        except AttributeError:
            pass
        else:  # e.g. a field of a protocol-typed parameter: an ir.Value becomes a DSL value
            return as_dsl_value(found, self.state.builder.info)
        if isinstance(base, ModuleType):
            alias = "pl" if base.__name__ == "dsl_parser.language" \
                else namespace_of_module(base.__name__)
            if alias is not None:
                self.error(node, InvalidOperationError, f"unknown operation '{alias}.{node.attr}'",
                           hint=unknown_op_hint(node.attr, alias))
        self.error(node, UndefinedVariableError,
                   f"'{ast.unparse(node.value)}' has no attribute '{node.attr}'")

    def _value_attribute(self, node: ast.Attribute, value: TypedValue) -> object:
        t = value.type
        if isinstance(t, TensorType) and node.attr == "shape" and self.state.mode != FUNCTION:
            # memrefs: an unnamed dynamic size is read (memref.dim) when first used
            return tuple(self.state.anonymous_dim(value, axis)
                         if isinstance(d, Dynamic) and d.name is None else d
                         for axis, d in enumerate(t.shape or ()))
        if isinstance(t, TensorType) and node.attr in ("shape", "dtype", "rank"):
            return getattr(t, node.attr)
        if node.attr == "dtype":
            return t.dtype
        self.error(node, ParserTypeError, f"a value of type {t} has no attribute '{node.attr}'")

    def subscript(self, node: ast.Subscript) -> object:
        base = self.visit(node.value)
        if isinstance(base, TypedValue) and self.state.mode != FUNCTION:
            if not base.is_tensor:
                self.error(node.value, ParserTypeError,
                           f"'{ast.unparse(node.value)}' is a {base.type}: only tensor "
                           "parameters can be indexed")
            return self.elements.load(node, base)
        if isinstance(base, TypedValue):
            return self._slice_tensor(node, base)
        index = self.visit(node.slice)
        try:
            found = base[index]  # type: ignore[index]
        except (TypeError, IndexError, KeyError, ValueError) as exc:
            self.error(node, ParserTypeError, f"invalid subscript: {exc}")
        # e.g. an element of a dc.Array parameter: a traced scalar becomes a DSL value
        return as_dsl_value(found, self.state.builder.info)

    def _slice_tensor(self, node: ast.Subscript, base: TypedValue) -> object:
        """``x[a:b, :]``: a rank-preserving window with compile-time bounds (``pl.slice``)."""
        t = base.type
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not isinstance(t, TensorType) or t.shape is None or not all(
                isinstance(i, ast.Slice) for i in items):
            self.error(node, UnsupportedFeatureError,
                       "indexing a tensor is not supported; only rank-preserving slices "
                       "x[a:b, :] are", hint="use pl.slice(x, sizes, offsets)")
        if len(items) > len(t.shape):
            self.error(node, ParserTypeError,
                       f"{len(items)} slices for a tensor of rank {len(t.shape)} ({t})")
        sizes: list[int] = []
        offsets: list[object] = []
        for axis, dim in enumerate(t.shape):
            item = items[axis] if axis < len(items) else ast.Slice()
            assert isinstance(item, ast.Slice)
            if item.step is not None and self.visit(item.step) != 1:
                self.error(item.step, UnsupportedFeatureError, "slice steps other than 1")
            size, offset = self._window(node, base, axis, dim, item)
            sizes.append(size)
            offsets.append(offset)
        return self.ops.call(OPS["slice"], node, [base, sizes, offsets], {},
                             [node.value, node.slice, node.slice], {})

    def _window(self, node: ast.Subscript, base: TypedValue, axis: int, dim: object,
                item: ast.Slice) -> tuple[int, object]:
        """The static size and the offset of ``item`` along ``axis``, Python style: a
        negative bound counts from the end (``dim + bound``, read at run time when the
        dimension is dynamic; the size must still be static)."""
        lo, hi = self._bound(item.lower, 0), self._bound(item.upper, None)
        if not isinstance(lo, int) or not (hi is None or isinstance(hi, int)):
            self.error(item, ParserTypeError,
                       f"slice bounds of dimension {axis} must be compile-time ints "
                       f"(a static size), got {ast.unparse(item)}",
                       hint="use pl.slice(x, sizes, offsets) for offsets computed at run time")
        if isinstance(dim, int):
            start = lo + dim if lo < 0 else lo
            stop = dim if hi is None else hi + dim if hi < 0 else hi
            if not 0 <= start <= stop <= dim:
                self.error(item, ParserTypeError,
                           f"slice {ast.unparse(item)} is out of range for dimension {axis} of "
                           f"size {dim} (it gives {start}:{stop})")
            return stop - start, start
        from_end = lo < 0 and (hi is None or hi < 0)
        from_start = lo >= 0 and hi is not None and hi >= 0
        if not (from_end or from_start):
            self.error(item, ParserTypeError,
                       f"slice {ast.unparse(item)} of the dynamic dimension {axis} has a size "
                       "known only at run time: slices need a static size",
                       hint="use bounds that are both >= 0 (x[a:b]) or both from the end "
                            "(x[-a:], x[-a:-b])")
        size = (0 if hi is None else hi) - lo
        if size < 0:
            self.error(item, ParserTypeError,
                       f"slice {ast.unparse(item)} of dimension {axis} is empty backwards")
        return size, self._from_end(node, base, axis, lo) if from_end else lo

    def _from_end(self, node: ast.Subscript, base: TypedValue, axis: int, bound: int) -> object:
        """``dim(base, axis) + bound`` as an INDEX value (``bound`` < 0)."""
        dim = self.ops.call(OPS["dim"], node, [base, axis], {}, [node.value, node.slice], {})
        assert isinstance(dim, TypedValue)
        offset = self.state.materialize(bound, node, INDEX)
        value = arith.AddIOp(dim.value, offset.value, loc=self.ops.loc, ip=self.ops.ip).result
        return self.state.new(value, ScalarType(INDEX))

    def _bound(self, expr: ast.expr | None, default: object) -> object:
        if expr is None:
            return default
        value = self.visit(expr)
        return value if isinstance(value, int) and not isinstance(value, bool) else expr

    def sequence(self, node: ast.List | ast.Tuple) -> object:
        items = [self.visit(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)

    # -- calls ----------------------------------------------------------------------------------
    def call(self, node: ast.Call) -> object:
        launched = launched_call(node)
        if launched is not None:
            target = self.visit(launched.func)
            if isinstance(target, Kernel):
                self.launches.parse(node, launched, target)
                return None
        func = self.visit(node.func)
        if isinstance(func, Kernel):
            where = "inside a @pl.kernel" if self.state.mode == KERNEL else "directly"
            self.error(node, InvalidOperationError,
                       f"kernel '{func.name}' cannot be called {where}: launch it from the host "
                       f"function with {func.name}(...).launch(grid=..., block=...)")
        visit = self.visit
        args = [visit(a) for a in node.args]  # (a Starred argument is rejected by dispatch)
        kwargs: dict[str, object] = {}
        kw_nodes: dict[str, ast.AST] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                self.error(keyword, UnsupportedFeatureError, "**kwargs are not supported")
            kwargs[keyword.arg] = visit(keyword.value)
            kw_nodes[keyword.arg] = keyword
        if isinstance(func, OpBuiltin):
            if scalar_min_max(func.name, args, kwargs):
                return self.intrinsics.min_max(func.name, node, args, kwargs)
            return self.ops.call(lookup(func.name), node, args, kwargs, node.args, kw_nodes)
        if isinstance(func, KernelBuiltin):
            return self.intrinsics.position(func, node, args, kwargs)
        if isinstance(func, (AtomicBuiltin, BlockBuiltin, WarpBuiltin, VectorBuiltin)):
            self._kernel_only(func, node)
        if isinstance(func, AtomicBuiltin):
            return self.atomics.call(func, node, args, kwargs)
        if isinstance(func, BlockBuiltin):
            return self.blocks.call(func, node, args, kwargs)
        if isinstance(func, WarpBuiltin):
            return self.warps.call(func, node, args, kwargs)
        if isinstance(func, VectorBuiltin):
            return self.vectors.call(func, node, args, kwargs)
        if isinstance(func, ScalarBuiltin):
            return self.intrinsics.ceil_div(node, args, kwargs)
        if isinstance(func, MethodRef):
            return self.calls.call(func, node, args, kwargs)
        if isinstance(func, ControlBuiltin) or func is range:
            where = "as a statement: `x = pl.yield_(...)`" \
                if getattr(func, "name", "") == "yield_" else "as the iterator of a for loop"
            self.error(node, ParserSyntaxError,
                       f"{ast.unparse(node.func)}(...) is only valid {where}")
        return self._compile_time_call(node, func, args, kwargs)

    def _kernel_only(self, func: object, node: ast.Call) -> None:
        """The builtins of kernels (atomics, shared memory, barriers, warps, vector
        access) are an error at the call anywhere else."""
        if self.state.mode != KERNEL:
            where = "a function that launches kernels" if self.state.mode == HOST \
                else "a function"
            self.error(node, UnsupportedFeatureError,
                       f"{func!r} is only available inside a @pl.kernel, not in {where}")

    def _compile_time_call(self, node: ast.Call, func: object, args: list[object],
                           kwargs: dict[str, object]) -> object:
        if not (compile_time_callable(func) or func in FOLDABLE_CALLS):
            self.error(node, UnsupportedFeatureError,
                       f"calling '{ast.unparse(node.func)}' is not supported in a DSL function",
                       hint="only pl operations, self.<function>(...) in a program, and "
                            "compile-time helpers (pl.dynamic, len, min, max) can be called")
        if any(isinstance(v, TypedValue) for v in (*args, *kwargs.values())):
            self.error(node, ParserTypeError,
                       f"'{ast.unparse(node.func)}' is evaluated at compile time and "
                       "cannot take IR values")
        try:
            return func(*args, **kwargs)  # type: ignore[operator]
        except (TypeError, ValueError, ArithmeticError) as exc:
            self.error(node, ParserTypeError, f"invalid call: {exc}")
