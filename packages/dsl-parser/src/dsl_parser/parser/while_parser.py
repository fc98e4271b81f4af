"""While loops: ``while cond: body`` -> ``scf.while``.

The names the body reassigns that exist before the loop are carried (non-strict SSA,
the default of kernels; a strict function has nothing to carry, so ``while`` is an
error there). The *before* region rebinds them to its arguments, evaluates the
condition and passes them on with ``scf.condition``; the *after* region runs the body
and yields their new values; after the loop the names are the loop's results. A loop
rewritten by ``exits`` (it may ``break`` or ``return``) evaluates its condition only
while its exit flags are clear.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from .._mlir import ir, scf
from ..errors import ParserSyntaxError, ParserTypeError, UnsupportedFeatureError
from ..types import BOOL, ScalarType
from ..values import TypedValue, is_literal
from .exits import WHILE_GUARD
from .state import ParserState
from .syntax import assigned_names
from .yields import VisitExpr, as_value, check_types, emit_yield

VisitBlock = Callable[[Sequence[ast.stmt]], None]


class WhileParser:
    """Parses ``while`` statements."""

    def __init__(self, state: ParserState, visit: VisitExpr, visit_block: VisitBlock) -> None:
        self.state = state
        self.visit = visit
        self.visit_block = visit_block

    def parse(self, node: ast.While) -> None:
        src = self.state.src
        if node.orelse:
            src.error(node.orelse[0], UnsupportedFeatureError, "while ... else is not supported")
        if self.state.strict:
            src.error(src.keyword_span(node), UnsupportedFeatureError,
                      "a while loop carries the names it reassigns, which strict SSA forbids",
                      hint="compile with strict_ssa=False (@jit(strict_ssa=False)); "
                           "@pl.kernel bodies are not strict")
        carried = self._carried(node)
        b = self.state.builder
        types = [b.mlir_type(v.type) for _, v in carried]
        op = scf.WhileOp(types, [v.value for _, v in carried], loc=b.loc, ip=b.ip)
        locs = [b.loc] * len(types)
        before = op.before.blocks.append(*types, arg_locs=locs)
        after = op.after.blocks.append(*types, arg_locs=locs)
        self.state.scopes.push("while condition")
        with b.at(before):
            self._define(carried, list(before.arguments), node)
            cond = self._condition(node)
            scf.ConditionOp(cond.value, list(before.arguments), loc=b.loc, ip=b.ip)
        self.state.scopes.pop()
        self.state.scopes.push("while loop")
        with b.at(after):
            self._define(carried, list(after.arguments), node)
            self.visit_block(node.body)
            values = [self._current(name, node) for name, _ in carried]
            check_types(self.state, values, [v.type for _, v in carried],
                        [node] * len(values), "the while loop body")
            emit_yield(self.state, values, node)
        self.state.scopes.pop()
        for (name, init), result in zip(carried, op.results, strict=True):
            self.state.scopes.define(name, self.state.new(result, init.type, name), node)

    def _carried(self, node: ast.While) -> list[tuple[str, TypedValue]]:
        out = []
        for name in assigned_names(list(node.body)):
            binding = self.state.scopes.lookup(name)
            if binding is None:
                continue
            value = binding.value
            if not isinstance(value, TypedValue):
                if not is_literal(value):
                    continue
                value = self.state.materialize(value, node, None)
            out.append((name, value))
        return out

    def _define(self, carried: list[tuple[str, TypedValue]], args: list[object],
                node: ast.While) -> None:
        for (name, init), arg in zip(carried, args, strict=True):
            self.state.scopes.define(name, self.state.new(arg, init.type, name), node)

    def _condition(self, node: ast.While) -> TypedValue:
        """The loop condition: ``cond``, or with exit flags ``not flags and cond``,
        ``cond`` computed only while the flags are clear."""
        flags: list[str] = getattr(node, WHILE_GUARD, [])
        if not flags:
            return self._test(node, constant_ok=False)
        clear = self._flags_clear(flags, node)
        b = self.state.builder
        op = scf.IfOp(clear.value, [ir.IntegerType.get_signless(1)], has_else=True,
                      loc=b.loc, ip=b.ip)
        with b.at(op.then_block):
            scf.YieldOp([self._test(node, constant_ok=True).value], loc=b.loc, ip=b.ip)
        with b.at(op.else_block):
            false = self.state.materialize(False, node, BOOL)
            scf.YieldOp([false.value], loc=b.loc, ip=b.ip)
        return self.state.new(op.results[0], ScalarType(BOOL))

    def _flags_clear(self, flags: list[str], node: ast.While) -> TypedValue:
        test: ast.expr = ast.Name(id=flags[0], ctx=ast.Load()) if len(flags) == 1 else \
            ast.BoolOp(op=ast.Or(), values=[ast.Name(id=f, ctx=ast.Load()) for f in flags])
        test = ast.UnaryOp(op=ast.Not(), operand=test)
        for part in ast.walk(test):
            ast.copy_location(part, node)
        return self.state.materialize(self.visit(test), node, BOOL)

    def _test(self, node: ast.While, constant_ok: bool) -> TypedValue:
        cond = self.visit(node.test)
        if isinstance(cond, bool) or (is_literal(cond) and not isinstance(cond, TypedValue)):
            if not cond:
                return self.state.materialize(False, node.test, BOOL)
            if not constant_ok:
                self.state.src.error(node.test, ParserSyntaxError,
                                     "this while loop never ends: its condition is always "
                                     "true and it has no break or return")
            return self.state.materialize(True, node.test, BOOL)
        if not (isinstance(cond, TypedValue) and cond.type == ScalarType(BOOL)):
            got = cond.type if isinstance(cond, TypedValue) else repr(cond)
            self.state.src.error(node.test, ParserTypeError,
                                 f"a while condition must be a BOOL scalar, got {got}")
        return cond

    def _current(self, name: str, node: ast.AST) -> TypedValue:
        binding = self.state.scopes.lookup(name)
        assert binding is not None
        return as_value(self.state, binding.value, node, None)
