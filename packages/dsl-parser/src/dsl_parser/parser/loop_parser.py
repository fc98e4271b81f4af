"""For loops: ``for i, (acc,) in pl.range(start, stop, step, init_values=(x,))`` -> ``scf.for``.

The loop variable is an INDEX; each iter_arg starts at its init value and
takes the value of the final ``pl.yield_`` on every iteration; the yield's
targets name the loop's results after it. ``pl.unroll`` builds the same loop
with a ``dsl.kind = "unroll"`` attribute. In non-strict mode, outer variables
reassigned in the body become extra iter_args (and results) automatically.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from .._mlir import Operation, ir, scf
from ..errors import ParserSyntaxError, UnsupportedFeatureError
from ..types import INDEX, ScalarType
from ..values import TypedValue, is_literal
from .state import ParserState
from .syntax import assigned_names, is_control, target_names
from .yields import (
    VisitExpr,
    YieldStmt,
    as_value,
    check_types,
    emit_yield,
    final_yield,
    parse_yield,
    yield_nodes,
)

VisitBlock = Callable[[Sequence[ast.stmt]], None]

#: The attribute recording a loop's kind (only non-default kinds are written).
KIND_ATTR = "dsl.kind"


class LoopHeader:
    """What the ``for`` line says: kind, bounds, init values and target names."""

    __slots__ = ("bounds", "carried", "inits", "iter_names", "kind", "var")

    def __init__(self, kind: str, bounds: list[TypedValue], inits: list[TypedValue],
                 var: ast.Name | None, iter_names: list[ast.Name],
                 carried: list[str] | None = None) -> None:
        self.kind = kind
        self.bounds = bounds
        self.inits = inits
        self.var = var
        self.iter_names = iter_names
        self.carried: list[str] = [] if carried is None else carried


class LoopParser:
    """Parses ``for`` statements over ``pl.range``/``pl.unroll``/``range``."""

    def __init__(self, state: ParserState, visit: VisitExpr, visit_block: VisitBlock) -> None:
        self.state = state
        self.visit = visit
        self.visit_block = visit_block

    def parse(self, node: ast.For) -> None:
        if node.orelse:
            self.state.src.error(node.orelse[0], UnsupportedFeatureError,
                                 "for ... else is not supported")
        header = self._header(node)
        b = self.state.builder
        op = scf.ForOp(*(v.value for v in header.bounds), [v.value for v in header.inits],
                       loc=b.loc, ip=b.ip)
        if header.kind != "range":
            op.attributes[KIND_ATTR] = ir.StringAttr.get(header.kind)
        explicit = final_yield(node.body) if header.iter_names else None
        self.state.scopes.push("for loop")
        with b.at(op.body):
            stmt = self._body(node, header, op, explicit)
        self.state.scopes.pop()
        self._bind_results(node, header, op, stmt)

    # -- header -----------------------------------------------------------------------------
    def _header(self, node: ast.For) -> LoopHeader:
        call = node.iter
        func = self.visit(call.func) if isinstance(call, ast.Call) else None
        if not isinstance(call, ast.Call) or not (
                is_control(func, "range") or is_control(func, "unroll") or func is range):
            self.state.src.error(node.iter, UnsupportedFeatureError,
                                 "for loops must iterate over pl.range(...) or pl.unroll(...)")
        kind = "unroll" if is_control(func, "unroll") else "range"
        init_node = self._init_node(call)
        var, iter_names = self._targets(node.target, init_node is not None)
        bounds = self._bounds(call)
        inits = [as_value(self.state, self.visit(e), e, None)
                 for e in (init_node.elts if init_node else [])]
        if len(inits) != len(iter_names):
            self.state.src.error(node.target, ParserSyntaxError,
                                 f"the loop has {len(iter_names)} iteration arguments but "
                                 f"{len(inits)} init_values")
        header = LoopHeader(kind, bounds, inits, var, iter_names)
        if not self.state.strict:
            self._infer_carried(node, header)
        return header

    def _init_node(self, call: ast.Call) -> ast.Tuple | ast.List | None:
        init = None
        for keyword in call.keywords:
            if keyword.arg != "init_values":
                self.state.src.error(keyword, ParserSyntaxError,
                                     f"pl.range has no argument '{keyword.arg}'",
                                     hint="pl.range(start, stop, step, init_values=(...))")
            if not isinstance(keyword.value, (ast.Tuple, ast.List)):
                self.state.src.error(keyword.value, ParserSyntaxError,
                                     "init_values must be a tuple: init_values=(x,)")
            init = keyword.value
        return init

    def _targets(self, target: ast.expr, has_init: bool) -> tuple[ast.Name | None, list[ast.Name]]:
        if not has_init:
            if not isinstance(target, ast.Name):
                self.state.src.error(target, ParserSyntaxError,
                                     "a loop without init_values binds one name: `for i in ...`")
            return target, []
        ok = isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and isinstance(target.elts[0], ast.Name) and isinstance(target.elts[1], ast.Tuple) \
            and all(isinstance(e, ast.Name) for e in target.elts[1].elts)
        if not ok:
            self.state.src.error(target, ParserSyntaxError,
                                 "a loop with init_values binds `i, (acc, ...)`",
                                 hint="for i, (acc,) in pl.range(n, init_values=(x,)):")
        assert isinstance(target, ast.Tuple) and isinstance(target.elts[1], ast.Tuple)
        names = [e for e in target.elts[1].elts if isinstance(e, ast.Name)]
        return target.elts[0] if isinstance(target.elts[0], ast.Name) else None, names

    def _bounds(self, call: ast.Call) -> list[TypedValue]:
        args = call.args
        if not 1 <= len(args) <= 3:
            self.state.src.error(call, ParserSyntaxError,
                                 f"pl.range takes 1 to 3 bounds, {len(args)} given")
        start: list[ast.expr | int] = [0] if len(args) == 1 else [args[0]]
        stop = args[0] if len(args) == 1 else args[1]
        step: ast.expr | int = args[2] if len(args) == 3 else 1
        return [self._bound(b, call) for b in (*start, stop, step)]

    def _bound(self, bound: ast.expr | int, call: ast.Call) -> TypedValue:
        if isinstance(bound, int):
            return self.state.materialize(bound, call, INDEX)
        return self.state.materialize(self.visit(bound), bound, INDEX)

    def _infer_carried(self, node: ast.For, header: LoopHeader) -> None:
        """Non-strict: outer names reassigned in the body become extra iter_args."""
        own = {n.id for n in header.iter_names} | set(target_names(node.target))
        body = node.body[:-1] if header.iter_names and final_yield(node.body) else node.body
        for name in assigned_names(list(body)):
            binding = self.state.scopes.lookup(name)
            if name in own or binding is None:
                continue
            value = binding.value
            if not isinstance(value, TypedValue):
                if not is_literal(value):
                    continue
                value = self.state.materialize(value, node, None)
            header.carried.append(name)
            header.inits.append(value)

    # -- body and results -------------------------------------------------------------------
    def _body(self, node: ast.For, header: LoopHeader, op: Operation,
              explicit: ast.stmt | None) -> YieldStmt | None:
        state, scopes = self.state, self.state.scopes
        if header.var is not None:
            var = state.new(op.induction_variable, ScalarType(INDEX), header.var.id)
            scopes.define(header.var.id, var, header.var)
        inner = list(op.inner_iter_args)
        names: list[tuple[str, ast.AST]] = [(n.id, n) for n in header.iter_names]
        names += [(n, node) for n in header.carried]
        for (name, where), arg, init in zip(names, inner, header.inits, strict=False):
            scopes.define(name, state.new(arg, init.type, name), where)
        self.visit_block(node.body[:-1] if explicit else node.body)
        if header.iter_names and explicit is None:
            state.src.error(node, ParserSyntaxError,
                            "a loop with init_values must end with `x = pl.yield_(...)`")
        types = [v.type for v in header.inits]
        stmt = parse_yield(state, self.visit, explicit, types) if explicit else None
        if stmt is not None and stmt.targets is None:
            state.src.error(explicit or node, ParserSyntaxError,
                            "the final pl.yield_ of a loop must be assigned: `x = pl.yield_(...)`")
        values = list(stmt.values) if stmt else []
        if len(values) != len(header.iter_names):
            state.src.error(explicit or node, ParserSyntaxError,
                            f"the loop yields {len(values)} values for "
                            f"{len(header.iter_names)} iteration arguments")
        values += [self._current(n, node) for n in header.carried]
        check_types(state, values, types, yield_nodes(stmt, len(values), node), "the loop body")
        emit_yield(state, values, explicit or node)
        return stmt

    def _current(self, name: str, node: ast.AST) -> TypedValue:
        binding = self.state.scopes.lookup(name)
        assert binding is not None
        return as_value(self.state, binding.value, node, None)

    def _bind_results(self, node: ast.For, header: LoopHeader, op: Operation,
                      stmt: YieldStmt | None) -> None:
        state = self.state
        results = list(op.results)
        targets = list(stmt.targets or []) if stmt is not None else []
        names: list[tuple[str, ast.AST]] = [(t.id, t) for t in targets]
        names += [(n, node) for n in header.carried]
        for (name, where), result, init in zip(names, results, header.inits, strict=False):
            state.scopes.define(name, state.new(result, init.type, name), where)
