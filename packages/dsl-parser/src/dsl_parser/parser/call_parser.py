"""Calls between the functions of a program: ``self.f(x)`` -> ``func.call @f``."""

from __future__ import annotations

import ast

from .._mlir import func, ir
from ..errors import InvalidOperationError, ParserTypeError, UnsupportedFeatureError
from ..types import ScalarType, TensorType, types_match
from ..values import TypedValue
from .state import FUNCTION, Callee, ParserState, Symbols


class MethodRef:
    """``self.<name>``: a call target in the program (not changed after construction)."""

    __slots__ = ("name", "symbols")

    def __init__(self, symbols: Symbols, name: str) -> None:
        self.symbols = symbols
        self.name = name

    def __repr__(self) -> str:  # read in error messages (``state._describe``)
        return f"MethodRef(symbols={self.symbols!r}, name={self.name!r})"


class CallParser:
    """Checks arguments against the callee's signature and emits ``func.call``."""

    def __init__(self, state: ParserState) -> None:
        self.state = state

    def call(self, ref: MethodRef, node: ast.Call, args: list[object],
             kwargs: dict[str, object]) -> object:
        """The call's result: None, one TypedValue, or a tuple of them."""
        callee = ref.symbols.callee(ref.name, node.func)
        if self.state.mode != FUNCTION or callee.host:
            if self.state.mode != FUNCTION:
                why = "a function that launches kernels cannot call other functions of the program"
            else:
                why = f"'{callee.name}' launches kernels, so it cannot be called from a function"
            self.state.src.error(node, UnsupportedFeatureError, f"self.{callee.name}(...): {why}",
                                 hint="launch the kernels from the entry function")
        values = self._arguments(callee, node, args, kwargs)
        results = callee.results or []
        b = self.state.builder
        op = func.CallOp([b.mlir_type(t) for t in results], ir.FlatSymbolRefAttr.get(callee.name),
                         values, loc=b.loc, ip=b.ip)
        typed = tuple(self.state.new(r, t) for r, t in zip(op.results, results, strict=False))
        if not typed:
            return None
        return typed[0] if len(typed) == 1 else typed

    def _arguments(self, callee: Callee, node: ast.Call, args: list[object],
                   kwargs: dict[str, object]) -> list[object]:
        src, params = self.state.src, callee.params
        if len(args) > len(params):
            src.error(node, InvalidOperationError,
                      f"self.{callee.name} takes {len(params)} arguments, {len(args)} given")
        given: dict[str, tuple[object, ast.AST]] = {
            name: (value, where)
            for (name, _), value, where in zip(params, args, node.args, strict=False)}
        for keyword in node.keywords:
            name = str(keyword.arg)
            if name not in dict(params) or name in given:
                src.error(keyword, InvalidOperationError,
                          f"self.{callee.name}: unexpected or repeated argument '{name}'")
            given[name] = (kwargs[name], keyword.value)
        values = []
        for name, t in params:
            if name not in given:
                src.error(node, InvalidOperationError,
                          f"self.{callee.name} is missing its argument '{name}'")
            value, where = given[name]
            values.append(self._argument(callee, name, t, value, where))
        return values

    def _argument(self, callee: Callee, name: str, t: object, value: object,
                  where: ast.AST) -> object:
        if isinstance(t, ScalarType) and not isinstance(value, TypedValue):
            return self.state.materialize(value, where, t.dtype).value
        if not isinstance(value, TypedValue) or not isinstance(t, (TensorType, ScalarType)) \
                or not types_match(t, value.type):
            got = value.type if isinstance(value, TypedValue) else repr(value)
            self.state.src.error(where, ParserTypeError,
                                 f"argument '{name}' of self.{callee.name} must be {t}, got {got}")
        return value.value
