"""Early ``return`` in kernels and host functions: ``if i >= n: return``.

These functions return nothing, so a bare ``return`` in a branch means "skip the
rest of the function". The statements after such an ``if`` move into its
branches that do not always return, recursively, until every ``return`` is the
last statement of the function's tail: the body becomes plain structured
control flow (``scf.if``). Returns inside loops are not rewritten (and stay an
error: a loop cannot be left early).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ..errors import ParserSyntaxError
from .source import SourceTracker


def _is_return(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Return)


def has_return(body: Sequence[ast.stmt]) -> bool:
    """A ``return`` in ``body`` outside loops (in it, or in the branches of its ifs)."""
    return any(_is_return(s) or (isinstance(s, ast.If) and (has_return(s.body)
                                                             or has_return(s.orelse)))
               for s in body)


def always_returns(body: Sequence[ast.stmt]) -> bool:
    """Every path through ``body`` ends with a ``return``."""
    if not body:
        return False
    last = body[-1]
    if _is_return(last):
        return True
    return isinstance(last, ast.If) and always_returns(last.body) and always_returns(last.orelse)


def hoist_returns(body: Sequence[ast.stmt], src: SourceTracker) -> list[ast.stmt]:
    """``body`` (the function's tail) without ``return`` statements in branches.

    A trailing bare ``return`` is kept (it is the function's normal end)."""
    out: list[ast.stmt] = []
    for index, stmt in enumerate(body):
        rest = list(body[index + 1:])
        if _is_return(stmt):
            if rest:
                src.error(rest[0], ParserSyntaxError, "code after return is not allowed")
            out.append(stmt)
            return out
        if isinstance(stmt, ast.If) and (has_return(stmt.body) or has_return(stmt.orelse)):
            then_returns, else_returns = always_returns(stmt.body), always_returns(stmt.orelse)
            if then_returns and else_returns and rest:
                src.error(rest[0], ParserSyntaxError, "code after return is not allowed")
            then = _strip(hoist_returns(stmt.body + ([] if then_returns else rest), src))
            orelse = _strip(hoist_returns(stmt.orelse + ([] if else_returns else rest), src))
            new = ast.copy_location(ast.If(test=stmt.test, body=then or [_pass(stmt)],
                                           orelse=orelse), stmt)
            out.append(new)
            return out
        out.append(stmt)
    return out


def _strip(body: list[ast.stmt]) -> list[ast.stmt]:
    """A branch's trailing ``return`` is its end: drop it (a value is an error later)."""
    if body and isinstance(body[-1], ast.Return) and body[-1].value is None:
        return body[:-1]
    return body


def _pass(where: ast.AST) -> ast.stmt:
    return ast.copy_location(ast.Pass(), where)
