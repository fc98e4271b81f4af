"""``pl.yield_``: the values a loop body or a branch passes out, and the names they get.

Shared by the loop and if parsers. A yield statement is ``x = pl.yield_(v)``,
``a, b = pl.yield_(u, v)`` or (branches without results) ``pl.yield_(v)``; it
must be the last statement of its body.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from .._mlir import scf
from ..errors import ParserSyntaxError, ParserTypeError
from ..types import PlType, ScalarType, types_match
from ..values import TypedValue
from .state import ParserState
from .syntax import yield_call

VisitExpr = Callable[[ast.expr], object]


class YieldStmt:
    """A parsed ``pl.yield_``: its target names (None for the bare form) and values."""

    __slots__ = ("node", "targets", "values")

    def __init__(self, node: ast.stmt, targets: list[ast.Name] | None,
                 values: list[TypedValue]) -> None:
        self.node = node
        self.targets = targets
        self.values = values


def final_yield(body: Sequence[ast.stmt]) -> ast.stmt | None:
    """The body's last statement if it is a ``pl.yield_``."""
    return body[-1] if body and yield_call(body[-1]) is not None else None


def yield_targets(state: ParserState, stmt: ast.stmt) -> list[ast.Name] | None:
    """The Name nodes a yield assigns (``a, b = ...``), None for ``pl.yield_(...)`` alone."""
    if not isinstance(stmt, ast.Assign):
        return None
    if len(stmt.targets) != 1:
        state.src.error(stmt, ParserSyntaxError, "chained assignment of pl.yield_ is not supported")
    target = stmt.targets[0]
    elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
    for elt in elts:
        if not isinstance(elt, ast.Name):
            state.src.error(elt, ParserSyntaxError, "pl.yield_ results must be assigned to names")
    return [e for e in elts if isinstance(e, ast.Name)]


def parse_yield(state: ParserState, visit: VisitExpr, stmt: ast.stmt,
                expected: Sequence[PlType | None]) -> YieldStmt:
    """Evaluate a yield's values (literals take the expected scalar types)."""
    call = yield_call(stmt)
    assert call is not None
    if call.keywords:
        state.src.error(call.keywords[0], ParserSyntaxError, "pl.yield_ takes no keyword arguments")
    targets = yield_targets(state, stmt)
    if targets is not None and len(targets) != len(call.args):
        state.src.error(stmt, ParserSyntaxError,
                        f"{len(targets)} names are assigned from pl.yield_ of "
                        f"{len(call.args)} values")
    values = []
    for i, arg in enumerate(call.args):
        want = expected[i] if i < len(expected) else None
        values.append(as_value(state, visit(arg), arg, want))
    return YieldStmt(stmt, targets, values)


def as_value(state: ParserState, value: object, where: ast.AST, want: PlType | None) -> TypedValue:
    """An IR value for a yielded/carried value (literals become constants)."""
    if isinstance(value, TypedValue):
        return value
    dtype = want.dtype if isinstance(want, ScalarType) else None
    return state.materialize(value, where, dtype)


def check_types(state: ParserState, values: Sequence[TypedValue], expected: Sequence[PlType],
                nodes: Sequence[ast.AST], what: str) -> None:
    """Each yielded value must have the type its slot (iter_arg or result) requires."""
    for value, want, where in zip(values, expected, nodes, strict=False):
        if not types_match(want, value.type):
            state.src.error(where, ParserTypeError,
                            f"{what} yields {value.type} where {want} is expected")


def emit_yield(state: ParserState, values: Sequence[TypedValue], where: ast.AST) -> None:
    b = state.builder
    with b.located(where):
        scf.YieldOp([v.value for v in values], loc=b.loc, ip=b.ip)


def yield_nodes(stmt: YieldStmt | None, count: int, fallback: ast.AST) -> list[ast.AST]:
    """Nodes to blame for each yielded value (the argument when written, else ``fallback``)."""
    call = yield_call(stmt.node) if stmt else None
    args: list[ast.AST] = list(call.args) if call else []
    return args + [fallback] * (count - len(args))
