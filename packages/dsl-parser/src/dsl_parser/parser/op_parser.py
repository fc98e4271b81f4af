"""Calls of ``pl.<op>``: bind the arguments to the rule's parameters, check, infer, emit.

Everything op-specific lives in the op table (``dsl_parser.ops``); this module
only binds arguments (positional and keyword) and checks each by its kind.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import NoReturn

from .._mlir import Value
from ..errors import InvalidOperationError, ParserError, ParserTypeError, UnsupportedFeatureError
from ..ops import REQUIRED, Arg, OpCall, OpRule, Param
from ..ops.scalars import MATH
from ..types import INDEX, DType, Dynamic, PlType, ScalarType, TensorType
from ..values import TypedValue, is_literal
from .state import FUNCTION, HOST, ParserState, _describe

#: The op-table entries that kernels and host functions may use (scalar ops).
SCALAR_OPS = frozenset({"const", *MATH})
#: Entries they may use on a scalar first argument (``pl.cast(i, pl.INT32)``,
#: ``pl.exp(v)``: see ``scalar_math``).
SCALAR_FORMS = frozenset({"cast", "exp", "log", "sqrt", "rsqrt", "tanh", "abs", "select"})


def _scalar_form(rule: OpRule, args: Sequence[object], kwargs: dict[str, object]) -> bool:
    """A call of a ``SCALAR_FORMS`` op whose first argument is a scalar value."""
    if rule.key not in SCALAR_FORMS:
        return False
    given = [*args, *kwargs.values()]
    if rule.key == "select":  # pl.select(cond, a, b) of scalars: no operand is a tensor
        return not any(isinstance(v, TypedValue) and v.is_tensor for v in given)
    first = args[0] if args else kwargs.get(rule.params[0].name)
    return isinstance(first, Dynamic) or (isinstance(first, TypedValue) and not first.is_tensor)


class OpParser:
    """Emits ``pl.<op>`` calls through the op table (and serves as their OpContext)."""

    def __init__(self, state: ParserState) -> None:
        self.state = state

    # -- OpContext ------------------------------------------------------------------------
    def error(self, where: ast.AST, cls: type[ParserError], message: str,
              *, hint: str | None = None) -> NoReturn:
        self.state.src.error(where, cls, message, hint=hint)

    def materialize(self, value: object, where: ast.AST, dtype: DType | None) -> TypedValue:
        return self.state.materialize(value, where, dtype)

    def dynamic_sizes(self, t: TensorType, entries: Sequence[object], where: ast.AST,
                      source: TypedValue | None = None) -> list[Value]:
        return self.state.dynamic_sizes(t, entries, where, source)

    def new(self, value: Value, t: PlType) -> TypedValue:
        return self.state.new(value, t)

    @property
    def loc(self) -> object:
        return self.state.builder.loc

    @property
    def ip(self) -> object:
        return self.state.builder.ip

    def mlir_type(self, t: PlType) -> object:
        return self.state.builder.mlir_type(t)

    # -- calls ------------------------------------------------------------------------------
    def call(self, rule: OpRule, node: ast.AST, args: Sequence[object],
             kwargs: dict[str, object], arg_nodes: Sequence[ast.AST],
             kw_nodes: dict[str, ast.AST]) -> object:
        """Bind, check, fold or infer and emit one call; returns its value.

        ``node`` is the call (or the operator expression ``a + b``) and gives the
        op its location; ``arg_nodes``/``kw_nodes`` locate argument errors.
        """
        if self.state.mode != FUNCTION and rule.key not in SCALAR_OPS and \
                not _scalar_form(rule, args, kwargs):
            self._no_tensor_ops(rule, node)
        bound, nodes = self._bind(rule, node, args, kwargs, arg_nodes, kw_nodes)
        call = OpCall(rule, bound, nodes, node, self)
        if rule.fold is not None:
            folded = rule.fold(call)
            if folded is not None:
                return self.state.materialize(folded, node, INDEX) \
                    if isinstance(folded, Dynamic) else folded
        result_type = rule.infer(call)
        value = rule.emit(call, result_type)
        return self.state.new(value, result_type)

    def _no_tensor_ops(self, rule: OpRule, node: ast.AST) -> NoReturn:
        if self.state.mode == HOST:
            self.error(node, UnsupportedFeatureError,
                       f"{rule.qualname}: tensor operations are not available in a function "
                       "that launches kernels",
                       hint="do tensor work in a @pl.kernel (element by element) or in a "
                            "separate @pl.function")
        self.error(node, UnsupportedFeatureError,
                   f"{rule.qualname} is a tensor operation: it is not available inside a "
                   "@pl.kernel", hint="kernels work element by element: x[i], z[i] = v")

    def _bind(self, rule: OpRule, node: ast.AST, args: Sequence[object], kwargs: dict[str, object],
              arg_nodes: Sequence[ast.AST], by_name: dict[str, ast.AST],
              ) -> tuple[dict[str, object], dict[str, ast.AST]]:
        params = rule.params
        if len(args) > len(params):
            self.error(node, InvalidOperationError,
                       f"{rule.qualname} takes {len(params)} arguments, {len(args)} given")
        bound: dict[str, object] = {}
        nodes: dict[str, ast.AST] = {}
        for param, value, arg_node in zip(params, args, arg_nodes, strict=False):
            bound[param.name], nodes[param.name] = value, arg_node
        names = {p.name for p in params} if kwargs else set()
        for key, value in kwargs.items():
            if key not in names:
                self.error(by_name.get(key, node), InvalidOperationError,
                           f"{rule.qualname} has no parameter '{key}'",
                           hint=f"its parameters are: {', '.join(p.name for p in params)}")
            if key in bound:
                self.error(by_name[key], InvalidOperationError,
                           f"{rule.qualname} got two values for '{key}'")
            bound[key], nodes[key] = value, getattr(by_name[key], "value", by_name[key])
        for param in params:
            if param.name not in bound:
                if param.default is REQUIRED:
                    self.error(node, InvalidOperationError,
                               f"{rule.qualname} is missing its argument '{param.name}'")
                bound[param.name] = param.default
                continue
            bound[param.name] = self._check(rule, param, bound[param.name], nodes[param.name])
        return bound, nodes

    def _check(self, rule: OpRule, param: Param, value: object, node: ast.AST) -> object:
        if isinstance(value, Dynamic) and value.name is not None and \
                param.kind in (Arg.OPERAND, Arg.VALUE):  # a named size as an INDEX value
            value = self.state.materialize(value, node, INDEX)
        ok, converted = _CHECKS[param.kind](value)
        if value is None and param.default is not None:
            ok = False
        if not ok:
            self.error(node, ParserTypeError,
                       f"{rule.qualname}: argument '{param.name}' must be {param.kind.value}, "
                       f"got {_describe(value)}")
        return converted


def _is_index(value: object) -> bool:
    if isinstance(value, TypedValue):
        return value.type == ScalarType(INDEX)
    return isinstance(value, Dynamic) or _is_int(value)


def _is_int(value: object) -> bool:
    """A Python int that fits in 64 signed bits (sizes, offsets and axes are i64/index)."""
    return isinstance(value, int) and not isinstance(value, bool) and -_I64 <= value < _I64


_I64 = 1 << 63


def _sizes(value: object, entry_ok: bool) -> tuple[bool, object]:
    if not isinstance(value, (list, tuple)):
        return False, value
    ok = all(_is_index(v) and (entry_ok or not isinstance(v, int) or v >= 0) for v in value)
    return ok, tuple(value)


def _shape(value: object) -> tuple[bool, object]:
    if isinstance(value, (list, tuple)) and any(isinstance(v, int) and not isinstance(v, bool)
                                                 and v < 0 for v in value):
        return False, value
    return _sizes(value, False)


_CHECKS: dict[Arg, Callable[[object], tuple[bool, object]]] = {
    Arg.TENSOR: lambda v: (isinstance(v, TypedValue) and v.is_tensor, v),
    Arg.TENSOR_OR_SCALAR: lambda v: (isinstance(v, TypedValue), v),
    Arg.OPERAND: lambda v: (isinstance(v, TypedValue) or is_literal(v), v),
    Arg.VALUE: lambda v: ((isinstance(v, TypedValue) and not v.is_tensor) or is_literal(v), v),
    Arg.SHAPE: _shape,
    Arg.OFFSETS: lambda v: _sizes(v, True),
    Arg.DTYPE: lambda v: (isinstance(v, DType) or v is None, v),
    Arg.FLAG: lambda v: (isinstance(v, bool), v),
    Arg.INT: lambda v: (_is_int(v), v),
    Arg.AXES: lambda v: (v is None or _is_int(v) or (
        isinstance(v, (list, tuple)) and all(_is_int(a) for a in v)), v),
    Arg.INTS: lambda v: (isinstance(v, (list, tuple)) and all(_is_int(a) for a in v),
                         tuple(v) if isinstance(v, (list, tuple)) else v),
    Arg.TENSORS: lambda v: (isinstance(v, (list, tuple)) and all(
        isinstance(a, TypedValue) and a.is_tensor for a in v),
        tuple(v) if isinstance(v, (list, tuple)) else v),
    Arg.SIZE: lambda v: (_is_index(v) and not (isinstance(v, int) and v < 0), v),
}
