"""If statements on scalar conditions -> ``scf.if`` with results.

Both branches end with ``x = pl.yield_(...)`` of the same names; the names
become the if's results. An ``elif`` chain works when each nested if yields
the same names. A condition known at compile time (``if N > 64:`` with ``N``
a Python int) selects its branch while parsing: no ``scf.if`` is built, and a
final ``pl.yield_`` of the chosen branch binds its names directly. In
non-strict mode, outer variables reassigned in a branch, and names assigned
at the top of both branches, become results automatically.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from .._mlir import Operation, ir, scf
from ..errors import ParserSyntaxError, ParserTypeError
from ..types import BOOL, PlType, ScalarType
from ..values import TypedValue, is_literal
from .state import ParserState
from .syntax import assigned_names, surely_assigned, yield_call
from .yields import (
    VisitExpr,
    YieldStmt,
    as_value,
    check_types,
    emit_yield,
    final_yield,
    parse_yield,
    yield_nodes,
    yield_targets,
)

VisitBlock = Callable[[Sequence[ast.stmt]], None]


class Results:
    """The if's results: yielded names, carried outer names, names new in both branches."""

    __slots__ = ("carried", "explicit", "fresh")

    def __init__(self, explicit: list[ast.Name],
                 carried: list[tuple[str, TypedValue]] | None = None,
                 fresh: list[str] | None = None) -> None:
        self.explicit = explicit
        self.carried: list[tuple[str, TypedValue]] = [] if carried is None else carried
        self.fresh: list[str] = [] if fresh is None else fresh

    @property
    def count(self) -> int:
        return len(self.explicit) + len(self.carried) + len(self.fresh)


class IfParser:
    """Parses ``if``/``else`` statements."""

    def __init__(self, state: ParserState, visit: VisitExpr, visit_block: VisitBlock) -> None:
        self.state = state
        self.visit = visit
        self.visit_block = visit_block

    def parse(self, node: ast.If) -> None:
        cond = self.visit(node.test)
        if isinstance(cond, (bool, int, float)):
            self._select(node, bool(cond))
            return
        self._check_condition(node.test, cond)
        assert isinstance(cond, TypedValue)
        results = self._results(node)
        b = self.state.builder
        placeholder = ir.IndexType.get(b.ctx)
        types = [placeholder] * len(results.explicit)
        types += [b.mlir_type(v.type) for _, v in results.carried]
        types += [placeholder] * len(results.fresh)
        op = scf.IfOp(cond.value, types, has_else=bool(node.orelse) or results.count > 0,
                      loc=b.loc, ip=b.ip)
        then_values = self._branch(op.then_block, node.body, results, None, node)
        expected = [v.type for v in then_values]
        if len(op.regions[1].blocks):
            self._branch(op.else_block, node.orelse, results, expected, node)
        self._bind(op, results, then_values, node)

    def _select(self, node: ast.If, cond: bool) -> None:
        """A compile-time condition parses only the chosen branch, in the enclosing scope.

        Branches have the shape a run-time ``if`` needs (both end with a ``pl.yield_`` of
        the same names, or neither does); the chosen branch's yield binds its names."""
        self._explicit(node, final_yield(node.body), final_yield(node.orelse))
        body = node.body if cond else node.orelse
        stmt = final_yield(body)
        self.visit_block(body[:-1] if stmt is not None else body)
        if stmt is None:
            return
        parsed = parse_yield(self.state, self.visit, stmt, [])
        for target, value in zip(parsed.targets or [], parsed.values, strict=False):
            self.state.builder.info.names.setdefault(value.value, target.id)
            self.state.scopes.define(target.id, value, target)

    def _check_condition(self, where: ast.expr, cond: object) -> None:
        if isinstance(cond, TypedValue) and cond.type == ScalarType(BOOL):
            return
        got = cond.type if isinstance(cond, TypedValue) else repr(cond)
        hint = "compare it, e.g. `if n != 0:`" if isinstance(cond, TypedValue) \
            and not cond.is_tensor else None
        self.state.src.error(where, ParserTypeError,
                             f"an if condition must be a BOOL scalar, got {got}", hint=hint)

    # -- which results ------------------------------------------------------------------------
    def _results(self, node: ast.If) -> Results:
        then_yield, else_yield = final_yield(node.body), final_yield(node.orelse)
        explicit = self._explicit(node, then_yield, else_yield)
        results = Results(explicit)
        if not self.state.strict:
            self._infer(node, results)
        return results

    def _explicit(self, node: ast.If, then_yield: ast.stmt | None,
                  else_yield: ast.stmt | None) -> list[ast.Name]:
        src = self.state.src
        for body in (node.body, node.orelse):
            misplaced = next((st for st in body[:-1] if yield_call(st) is not None), None)
            if misplaced is not None:
                src.error(misplaced, ParserSyntaxError,
                          "pl.yield_ must be the last statement of a loop with init_values "
                          "or of an if/else branch")
        then_names = yield_targets(self.state, then_yield) if then_yield else None
        else_names = yield_targets(self.state, else_yield) if else_yield else None
        if then_names is None and else_names is None:
            return []
        if then_names is None:
            src.error(else_yield or node, ParserSyntaxError,
                      "the else branch yields values but the if branch does not")
        if else_names is None and not _is_elif(node):
            src.error(then_yield or node, ParserSyntaxError,
                      "the if branch yields values: the else branch must end with a pl.yield_ "
                      "of the same names")
        if else_names is not None and [n.id for n in then_names] != [n.id for n in else_names]:
            src.error(else_yield or node, ParserSyntaxError,
                      f"both branches must yield the same names: the if branch yields "
                      f"({', '.join(n.id for n in then_names)}), the else branch "
                      f"({', '.join(n.id for n in else_names)})")
        return then_names

    def _infer(self, node: ast.If, results: Results) -> None:
        """Non-strict: carried outer names and names assigned at the top of both branches."""
        own = {n.id for n in results.explicit}
        bodies = [_without_yield(node.body), _without_yield(node.orelse)]
        for name in assigned_names(bodies[0] + bodies[1]):
            binding = self.state.scopes.lookup(name)
            if name in own or binding is None:
                continue
            value = binding.value
            if not isinstance(value, TypedValue):
                if not is_literal(value):
                    continue
                value = self.state.materialize(value, node, None)
            results.carried.append((name, value))
        visible = own | {n for n, _ in results.carried}
        both = set(surely_assigned(bodies[1]))
        results.fresh = [n for n in surely_assigned(bodies[0])
                         if n in both and n not in visible and self.state.scopes.lookup(n) is None]

    # -- branches -------------------------------------------------------------------------------
    def _branch(self, block: object, body: list[ast.stmt], results: Results,
                expected: list[PlType] | None, node: ast.If) -> list[TypedValue]:
        state = self.state
        explicit = final_yield(body) if results.explicit else None
        state.scopes.push("if branch" if expected is None else "else branch")
        with state.builder.at(block):
            self.visit_block(body[:-1] if explicit else body)
            stmt = parse_yield(state, self.visit, explicit, expected or []) if explicit else None
            values = self._values(stmt, results, node)
            if expected is not None:
                check_types(state, values, expected, yield_nodes(stmt, len(values), node),
                            "the else branch")
            emit_yield(state, values, explicit or node)
        state.scopes.pop()
        return values

    def _values(self, stmt: YieldStmt | None, results: Results, node: ast.If) -> list[TypedValue]:
        if stmt is not None:
            values = list(stmt.values)
        else:  # no yield: an elif chain's nested if defined the names, or nothing is yielded
            values = [self._current(n.id, n) for n in results.explicit]
        values += [self._current(name, node) for name, _ in results.carried]
        values += [self._current(name, node) for name in results.fresh]
        return values

    def _current(self, name: str, where: ast.AST) -> TypedValue:
        binding = self.state.scopes.lookup(name)
        if binding is None:
            self.state.src.error(where, ParserSyntaxError,
                                 f"the else branch must yield '{name}' like the if branch")
        return as_value(self.state, binding.value, where, None)

    def _bind(self, op: Operation, results: Results, then_values: list[TypedValue],
              node: ast.If) -> None:
        state = self.state
        names: list[tuple[str, ast.AST]] = [(n.id, n) for n in results.explicit]
        names += [(name, node) for name, _ in results.carried]
        names += [(name, node) for name in results.fresh]
        for (name, where), result, value in zip(names, op.results, then_values, strict=False):
            result.set_type(state.builder.mlir_type(value.type))
            state.scopes.define(name, state.new(result, value.type, name), where)


def _is_elif(node: ast.If) -> bool:
    return len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)


def _without_yield(body: list[ast.stmt]) -> list[ast.stmt]:
    return body[:-1] if final_yield(body) else body
