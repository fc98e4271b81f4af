"""The entry point of a function body's parse: ``visit`` and statement dispatch.

``ASTParser`` composes the specialized parsers (expressions, loops, ifs) and
handles assignments, annotations and ``return``. ``visit`` is overridden
once: it sets the current location for the ops being built and turns any
unexpected exception into a ParserError at the node being parsed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..errors import (
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    SSAViolationError,
    UnsupportedFeatureError,
)
from ..spans import Span
from ..types import PlType, ScalarType, TensorType, types_match
from ..values import TypedValue, is_literal
from .exits import rewrite_exits
from .expr_parser import ExprParser
from .if_parser import IfParser
from .loop_parser import LoopParser
from .state import FUNCTION, KERNEL, ParserState
from .syntax import UNSUPPORTED_STATEMENTS, yield_call
from .while_parser import WhileParser


class ASTParser:
    """Parses the statements of one function body into the current insertion point."""

    def __init__(self, state: ParserState) -> None:
        self.state = state
        self.exprs = ExprParser(state, self.visit_expr)
        self.loops = LoopParser(state, self.visit_expr, self.visit_block)
        self.ifs = IfParser(state, self.visit_expr, self.visit_block)
        self.whiles = WhileParser(state, self.visit_expr, self.visit_block)
        self.returned: list[TypedValue] | None = None
        self._statements: dict[type[ast.AST], Callable[..., None]] = {
            ast.Assign: self.assign, ast.AnnAssign: self.ann_assign,
            ast.AugAssign: self.aug_assign, ast.Expr: self.expr_stmt,
            ast.For: self.loops.parse, ast.If: self.ifs.parse, ast.While: self.whiles.parse,
            ast.Pass: lambda node: None,
            ast.Return: self.misplaced_return,
        }

    # -- the visit() override ------------------------------------------------------------------
    def _visit(self, node: ast.AST, handler: Callable[[Any], object]) -> object:
        builder = self.state.builder
        where, loc = builder.where, builder._loc
        builder.where, builder._loc = node, None
        try:
            return handler(node)
        except ParserError:
            raise
        except RecursionError:
            self.error(node, UnsupportedFeatureError, "this expression is nested too deeply")
        except Exception as exc:
            raise self.state.src.internal(node, exc) from None
        finally:
            builder.where, builder._loc = where, loc

    def visit_expr(self, node: ast.expr) -> object:
        """Evaluate an expression (a compile-time object or a TypedValue)."""
        return self._visit(node, self._expr)

    def _expr(self, node: ast.AST) -> object:
        return self.exprs.dispatch(node)  # type: ignore[arg-type]

    def visit_stmt(self, node: ast.stmt) -> None:
        self._visit(node, self._statement)

    def visit_block(self, body: Sequence[ast.stmt]) -> None:
        for stmt in body:
            self.visit_stmt(stmt)

    def error(self, node: ast.AST | Span, cls: type[ParserError], message: str,
              hint: str | None = None) -> NoReturn:
        self.state.src.error(node, cls, message, hint=hint)

    def _statement(self, node: ast.AST) -> None:
        handler = self._statements.get(type(node))
        if handler is None:
            what = UNSUPPORTED_STATEMENTS.get(type(node), type(node).__name__ + " statements")
            self.error(self.state.src.keyword_span(node), UnsupportedFeatureError,
                       f"{what} are not supported in DSL functions")
        handler(node)

    # -- function body ------------------------------------------------------------------------
    def parse_body(self, body: Sequence[ast.stmt]) -> list[TypedValue] | None:
        """Parse a function body; the returned values (None when there is no return)."""
        if self.state.strict:
            self._strict_exits(body)
        else:
            body = rewrite_exits(list(body), early_return=self.state.mode != FUNCTION)
        for index, stmt in enumerate(body):
            if isinstance(stmt, ast.Return):
                if index != len(body) - 1:
                    self.error(body[index + 1], ParserSyntaxError,
                               "code after return is not allowed")
                self._visit(stmt, self._return)
            else:
                self.visit_stmt(stmt)
        return self.returned

    def _strict_exits(self, body: Sequence[ast.stmt]) -> None:
        """break/continue (and early returns) need flags, which strict SSA cannot reassign.

        The body's text is searched first: a body that never says "break" or "continue"
        has neither, and walking every node of it took a third of a plain body's parse."""
        if not self.state.src.mentions(body, ("break", "continue")):
            return
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, (ast.Break, ast.Continue)):
                    what = "break" if isinstance(node, ast.Break) else "continue"
                    self.error(node, UnsupportedFeatureError,
                               f"{what} statements need non-strict SSA (strict_ssa=False)",
                               hint="@jit(strict_ssa=False); @pl.kernel bodies are not strict")

    def _return(self, node: ast.Return) -> None:
        if node.value is None:
            self.returned = []
            return
        if self.state.mode != FUNCTION:
            what = "a @pl.kernel" if self.state.mode == KERNEL \
                else "a function that launches kernels"
            self.error(node.value, ParserTypeError,
                       f"{what} returns nothing: return takes no value here",
                       hint="write results into tensor parameters" if self.state.mode == KERNEL
                       else "kernels write their results into tensor arguments")
        items = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        values = []
        for item in items:
            value = self.visit_expr(item)
            if isinstance(value, tuple) and len(items) == 1:
                values.extend(self._as_values(list(value), item))
            else:
                values.extend(self._as_values([value], item))
        self.returned = values

    def _as_values(self, values: list[object], where: ast.AST) -> list[TypedValue]:
        return [v if isinstance(v, TypedValue) else self.state.materialize(v, where, None)
                for v in values]

    def misplaced_return(self, node: ast.Return) -> None:
        if node.value is not None and self.state.mode != FUNCTION:
            self._return(node)  # the "returns nothing" error
        if self.state.mode != FUNCTION:  # strict: no flags for an early return
            self.error(node, UnsupportedFeatureError,
                       "return inside a loop or a branch needs non-strict SSA "
                       "(strict_ssa=False)",
                       hint="@jit(strict_ssa=False); @pl.kernel bodies are not strict")
        self.error(node, UnsupportedFeatureError,
                   "return inside a loop or a branch is not supported",
                   hint="pass values out with pl.yield_ and return at the end of the function")

    # -- assignments ----------------------------------------------------------------------------
    def assign(self, node: ast.Assign) -> None:
        self._no_yield(node)
        value = self.visit_expr(node.value)
        for target in node.targets:
            self.bind(target, value)

    def ann_assign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            self.error(node, UnsupportedFeatureError,
                       "a declaration without a value is not supported")
        if not isinstance(node.target, ast.Name):
            self.error(node.target, UnsupportedFeatureError, "only names can be annotated")
        self._no_yield(node)
        declared = self.state.types.resolve(node.annotation, f"'{node.target.id}'")
        value = self.visit_expr(node.value)
        self.bind(node.target, self._annotated(node, declared, value))

    def _annotated(self, node: ast.AnnAssign, declared: PlType, value: object) -> object:
        if isinstance(declared, ScalarType) and is_literal(value):
            return self.state.materialize(value, node.value or node, declared.dtype)
        if not isinstance(value, TypedValue) or not types_match(declared, value.type):
            got = value.type if isinstance(value, TypedValue) else f"the Python value {value!r}"
            self.error(node.annotation, ParserTypeError,
                       f"the annotation of '{ast.unparse(node.target)}' does not match its value: "
                       f"declared {declared}, inferred {got}")
        if isinstance(declared, TensorType) and declared.shape is not None \
                and declared != value.type:  # the annotation names dynamic sizes
            return self.state.new(value.value, declared)
        return value

    def aug_assign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Subscript) and self.state.mode != FUNCTION:
            element = ast.copy_location(ast.Subscript(value=node.target.value,
                                                      slice=node.target.slice, ctx=ast.Load()),
                                        node.target)
            update = ast.copy_location(ast.BinOp(left=element, op=node.op, right=node.value), node)
            ast.fix_missing_locations(update)
            self.bind(node.target, self.visit_expr(update))  # z[i] += v: load, op, store
            return
        if self.state.strict:
            self.error(node, SSAViolationError,
                       f"SSA violation: '{ast.unparse(node.target)}' "
                       f"{_AUG.get(type(node.op), 'op')}= reassigns it",
                       hint="write `new_name = a + b` (strict SSA), or parse with strict_ssa=False")
        load = ast.copy_location(ast.Name(id=getattr(node.target, "id", ""), ctx=ast.Load()),
                                 node.target)
        binop = ast.copy_location(ast.BinOp(left=load, op=node.op, right=node.value), node)
        ast.fix_missing_locations(binop)
        self.bind(node.target, self.visit_expr(binop))

    def expr_stmt(self, node: ast.Expr) -> None:
        self._no_yield(node)
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.visit_expr(node.value)

    def _no_yield(self, node: ast.stmt) -> None:
        if yield_call(node) is not None:
            self.error(node, ParserSyntaxError,
                       "pl.yield_ must be the last statement of a loop with init_values "
                       "or of an if/else branch")

    def bind(self, target: ast.expr, value: object) -> None:
        """Assign ``value`` to a name or unpack it into a tuple of names."""
        if isinstance(target, ast.Name):
            if isinstance(value, TypedValue):
                self.state.builder.info.names.setdefault(value.value, target.id)
            self.state.scopes.define(target.id, value, target)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                count = len(value) if isinstance(value, (tuple, list)) else 1
                self.error(target, ParserTypeError,
                           f"cannot unpack {count} value(s) into {len(target.elts)} names")
            for elt, item in zip(target.elts, value, strict=False):
                self.bind(elt, item)
            return
        if isinstance(target, ast.Subscript) and self.state.mode != FUNCTION:
            self.exprs.elements.store(target, value)
            return
        self.error(target, UnsupportedFeatureError,
                   f"assignment to {type(target).__name__.lower()} targets is not supported")


_AUG = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%"}
