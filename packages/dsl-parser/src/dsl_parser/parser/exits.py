"""``break``, ``continue`` and early ``return`` as structured control flow.

MLIR's ``scf`` loops and ifs have no early exit, so before a body is parsed its exits
are rewritten into flags (BOOL scalars) and guards, a purely syntactic step that keeps
every statement's source location:

* ``break`` sets its loop's *break flag*, ``continue`` the loop's *continue flag*
  (reset at the top of each iteration), a valueless ``return`` below the top level of a
  kernel or host function the function's *return flag*;
* the statements after one that may set a flag run under ``if not flag:``;
* a ``for`` loop whose body may break (or return) runs every later iteration's body
  under ``if not flag:`` (the iterations still happen, doing nothing); a ``while`` loop
  stops: its condition becomes ``not flag and cond``, with ``cond`` evaluated only
  while the flag is clear (see ``while_parser``).

Flags are named ``break@line:col`` and so on (not Python identifiers: they cannot clash
with the user's names). Bodies without such statements are returned unchanged.
"""

from __future__ import annotations

import ast
import itertools

#: The ast attribute on a rewritten ``while`` naming the flags that stop it.
WHILE_GUARD = "_dsl_exit_flags"


class _Exits:
    """The flags a ``break``/``continue``/``return`` at this point sets (not changed
    after construction)."""

    __slots__ = ("brk", "cont", "ret")

    def __init__(self, brk: str | None = None, cont: str | None = None,
                 ret: str | None = None) -> None:
        self.brk = brk
        self.cont = cont
        self.ret = ret


def rewrite_exits(body: list[ast.stmt], early_return: bool) -> list[ast.stmt]:
    """``body`` with its exits rewritten (unchanged when it has none); ``early_return``
    allows valueless returns below the top level (kernels and host functions)."""
    nested_return = early_return and any(_nested_returns(body))
    if not nested_return and not any(isinstance(n, (ast.Break, ast.Continue))
                                     for s in body for n in ast.walk(s)):
        return body
    names = itertools.count()
    ret = f"return@{body[0].lineno}:{next(names)}" if nested_return else None
    out, _ = _Rewriter(names).block(body, _Exits(ret=ret), top=True)
    if ret is not None:
        out.insert(0, _assign(ret, False, body[0]))
    return out


def _nested_returns(body: list[ast.stmt]) -> list[ast.Return]:
    """Valueless returns anywhere but as the last top-level statement."""
    found = []
    for i, stmt in enumerate(body):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Return) and node.value is None \
                    and not (node is stmt and i == len(body) - 1):
                found.append(node)
    return found


class _Rewriter:
    def __init__(self, names: itertools.count[int]) -> None:
        self.names = names

    def flag(self, kind: str, where: ast.AST) -> str:
        return f"{kind}@{getattr(where, 'lineno', 0)}:{next(self.names)}"

    def block(self, stmts: list[ast.stmt], exits: _Exits,
              top: bool = False) -> tuple[list[ast.stmt], set[str]]:
        """The rewritten statements and the flags they may set."""
        out: list[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            flag = self._exit_flag(stmt, exits, top and i == len(stmts) - 1)
            if flag is not None:  # the rest of the block never runs
                out.append(_assign(flag, True, stmt))
                return out, {flag}
            new, flags = self.statement(stmt, exits)
            out.extend(new)
            if flags:
                rest, more = self.block(stmts[i + 1:], exits, top)
                if rest:
                    out.append(_guard(sorted(flags), rest))
                return out, flags | more
        return out, set()

    @staticmethod
    def _exit_flag(stmt: ast.stmt, exits: _Exits, last_top: bool) -> str | None:
        if isinstance(stmt, ast.Break):
            return exits.brk
        if isinstance(stmt, ast.Continue):
            return exits.cont
        if isinstance(stmt, ast.Return) and stmt.value is None and exits.ret and not last_top:
            return exits.ret
        return None

    def statement(self, stmt: ast.stmt, exits: _Exits) -> tuple[list[ast.stmt], set[str]]:
        if isinstance(stmt, ast.If):
            body, f1 = self.block(stmt.body, exits)
            orelse, f2 = self.block(stmt.orelse, exits)
            new = ast.copy_location(ast.If(test=stmt.test, body=body or [_pass(stmt)],
                                           orelse=orelse), stmt)
            return [new], f1 | f2
        if isinstance(stmt, (ast.For, ast.While)):
            return self.loop(stmt, exits)
        return [stmt], set()

    def loop(self, stmt: ast.For | ast.While, outer: _Exits) -> tuple[list[ast.stmt], set[str]]:
        own = _own_exits(stmt.body)
        exits = _Exits(self.flag("break", stmt) if ast.Break in own else None,
                       self.flag("continue", stmt) if ast.Continue in own else None, outer.ret)
        body, flags = self.block(stmt.body, exits)
        if exits.cont is not None:
            body.insert(0, _assign(exits.cont, False, stmt))
        stops = sorted(f for f in flags | ({exits.brk} if exits.brk else set())
                       if f in (exits.brk, exits.ret))
        new: ast.For | ast.While
        if isinstance(stmt, ast.For):
            new = ast.copy_location(ast.For(target=stmt.target, iter=stmt.iter,
                                            body=[_guard(stops, body)] if stops else body,
                                            orelse=stmt.orelse, type_comment=None), stmt)
        else:
            new = ast.copy_location(ast.While(test=stmt.test, body=body, orelse=stmt.orelse),
                                    stmt)
            setattr(new, WHILE_GUARD, stops)
        before = [_assign(exits.brk, False, stmt)] if exits.brk else []
        return [*before, new], {f for f in flags if f == outer.ret}


def _own_exits(body: list[ast.stmt]) -> set[type]:
    """Which of Break/Continue belong to this loop (not to loops nested in it)."""
    found: set[type] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            found.add(type(node))
        elif isinstance(node, (ast.For, ast.While)):
            stack.extend(node.orelse)  # its body's exits are its own
        elif isinstance(node, ast.stmt):
            stack.extend(child for child in ast.iter_child_nodes(node)
                         if isinstance(child, ast.stmt))
    return found


def _assign(name: str, value: bool, where: ast.AST) -> ast.stmt:
    target = ast.Name(id=name, ctx=ast.Store())
    node = ast.Assign(targets=[target], value=ast.Constant(value=value))
    for part in (target, node.value, node):
        ast.copy_location(part, where)
    return node


def _guard(flags: list[str], body: list[ast.stmt]) -> ast.stmt:
    """``if not (f1 or f2 ...): body``."""
    where = body[0]
    names: list[ast.expr] = [ast.copy_location(ast.Name(id=f, ctx=ast.Load()), where)
                             for f in flags]
    test: ast.expr = names[0] if len(names) == 1 else ast.copy_location(
        ast.BoolOp(op=ast.Or(), values=names), where)
    test = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=test), where)
    return ast.copy_location(ast.If(test=test, body=body, orelse=[]), where)


def _pass(where: ast.AST) -> ast.stmt:
    return ast.copy_location(ast.Pass(), where)
