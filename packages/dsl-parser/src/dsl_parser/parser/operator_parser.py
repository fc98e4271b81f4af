"""Operators: ``a + b``, ``i * 64``, ``x < 10``, ``c and d``, ``-x``.

On Python numbers they fold at compile time; on tensors the arithmetic
operators become the op table's ``pl.add``/``sub``/``mul``/``div``, comparisons
``pl.lt`` etc. and unary ``-`` ``pl.neg``; on scalars
they emit ``arith`` ops (see ``dsl_parser.scalar_ops``). A literal next to a
scalar takes that scalar's type.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import NoReturn

from .._mlir import Value, arith, ir, scf
from ..errors import ParserError, ParserTypeError, UnsupportedFeatureError
from ..ops import OPS
from ..scalar_ops import (
    BINARY,
    BOOL_OPS,
    COMPARE,
    TENSOR_BINARY,
    TENSOR_COMPARE,
    compare_predicate,
    emit_python_rem,
    kind_of,
)
from ..types import BOOL, INDEX, DType, Dynamic, ScalarType
from ..values import TypedValue, is_literal, literal_dtype
from .evaluator import Evaluator, is_number
from .op_parser import OpParser
from .state import ParserState

Visit = Callable[[ast.expr], object]


class OperatorParser:
    """Binary, unary, comparison and boolean operators."""

    def __init__(self, state: ParserState, visit: Visit, ops: OpParser) -> None:
        self.state = state
        self.visit = visit
        self.ops = ops

    def error(self, node: ast.AST, cls: type[ParserError], message: str,
              hint: str | None = None) -> NoReturn:
        self.state.src.error(node, cls, message, hint=hint)

    def binop(self, node: ast.BinOp) -> object:
        lhs, rhs = self.visit(node.left), self.visit(node.right)
        if is_number(lhs) and is_number(rhs):
            return self._fold(node, lambda: Evaluator.fold_binary(node.op, lhs, rhs))
        if any(isinstance(v, TypedValue) and v.is_tensor for v in (lhs, rhs)):
            name = TENSOR_BINARY.get(type(node.op))
            if name is None:
                self.error(node, UnsupportedFeatureError,
                           f"operator {_symbol(node)} is not supported on tensors")
            return self.ops.call(OPS[str(name)], node, [lhs, rhs], {},
                                 [node.left, node.right], {})
        return self._scalar_binary(node, node.op, lhs, rhs, node.left, node.right)

    def _scalar_binary(self, node: ast.AST, op: ast.operator, lhs: object, rhs: object,
                       lnode: ast.AST, rnode: ast.AST) -> TypedValue:
        rule = BINARY.get(type(op))
        dtype = self._common_dtype(node, lhs, rhs, lnode, rnode)
        if isinstance(op, ast.Mod) and kind_of(dtype) in ("int", "float"):
            lv, rv = self._operands(lhs, rhs, lnode, rnode, dtype)
            b = self.state.builder
            return self.state.new(emit_python_rem(lv, rv, kind_of(dtype), b.loc, b.ip),
                                  ScalarType(dtype))
        op_class = rule.ops.get(kind_of(dtype)) if rule else None
        if rule is None or op_class is None:
            self.error(node, ParserTypeError,
                       f"operator {_symbol(node)} is not defined for {ScalarType(dtype)}",
                       hint="use // for integer division" if isinstance(op, ast.Div) else None)
        lv, rv = self._operands(lhs, rhs, lnode, rnode, dtype)
        b = self.state.builder
        result = op_class(lv, rv, loc=b.loc, ip=b.ip).result
        return self.state.new(result, ScalarType(dtype))

    def _operands(self, lhs: object, rhs: object, lnode: ast.AST, rnode: ast.AST,
                  dtype: DType) -> tuple[Value, Value]:
        lv = self.state.materialize(lhs, lnode, dtype).value
        return lv, self.state.materialize(rhs, rnode, dtype).value

    def _common_dtype(self, node: ast.AST, lhs: object, rhs: object,
                      lnode: ast.AST, rnode: ast.AST) -> DType:
        """The dtype both scalar operands take (a literal adopts the other side's)."""
        types = []
        for value, where in ((lhs, lnode), (rhs, rnode)):
            if isinstance(value, Dynamic):
                types.append(INDEX)
            elif isinstance(value, TypedValue):
                types.append(value.dtype)
            elif not is_literal(value):
                self.error(where, ParserTypeError,
                           f"operand of {_symbol(node)} must be a number or a scalar, "
                           f"got {type(value).__name__} {value!r}")
        if len(types) == 2 and types[0] != types[1]:
            self.error(node, ParserTypeError,
                       f"operands of {_symbol(node)} have different types: "
                       f"{ScalarType(types[0])} and {ScalarType(types[1])}",
                       hint="convert one side, e.g. with pl.const(value, dtype)")
        return types[0] if types else literal_dtype(lhs)

    def unaryop(self, node: ast.UnaryOp) -> object:
        operand = self.visit(node.operand)
        if is_number(operand):
            return self._fold(node, lambda: Evaluator.fold_unary(node.op, operand))
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(operand, TypedValue) and operand.is_tensor:
            if not isinstance(node.op, ast.USub):
                self.error(node, UnsupportedFeatureError,
                           f"operator {_symbol(node)} is not supported on tensors")
            return self.ops.call(OPS["neg"], node, [operand], {}, [node.operand], {})
        dtype = self._common_dtype(node, operand, operand, node.operand, node.operand)
        b = self.state.builder
        if isinstance(node.op, ast.USub) and dtype.is_float:
            value = self.state.materialize(operand, node.operand, dtype).value
            return self.state.new(arith.NegFOp(value, loc=b.loc, ip=b.ip).result, ScalarType(dtype))
        if isinstance(node.op, ast.USub):
            return self._scalar_binary(node, ast.Sub(), 0, operand, node, node.operand)
        if isinstance(node.op, ast.Not) and dtype == BOOL:
            return self._scalar_binary(node, ast.BitXor(), operand, True, node.operand, node)
        self.error(node, ParserTypeError,
                   f"operator {_symbol(node)} is not defined for {ScalarType(dtype)}")

    def compare(self, node: ast.Compare) -> object:
        if len(node.ops) != 1:
            self.error(node, UnsupportedFeatureError, "chained comparisons are not supported",
                       hint="write (a < b) and (b < c)")
        lhs, rhs = self.visit(node.left), self.visit(node.comparators[0])
        op, rnode = node.ops[0], node.comparators[0]
        if is_number(lhs) and is_number(rhs) and Evaluator.can_fold(op):
            return self._fold(node, lambda: Evaluator.fold_compare(op, lhs, rhs))
        if type(op) not in _CMP_OK:
            self.error(node, UnsupportedFeatureError, f"operator {_symbol(node)} is not supported")
        if any(isinstance(v, TypedValue) and v.is_tensor for v in (lhs, rhs)):
            name = TENSOR_COMPARE[type(op)]
            return self.ops.call(OPS[name], node, [lhs, rhs], {}, [node.left, rnode], {})
        dtype = self._common_dtype(node, lhs, rhs, node.left, rnode)
        lv, rv = self._operands(lhs, rhs, node.left, rnode, dtype)
        b = self.state.builder
        op_class = arith.CmpFOp if dtype.is_float else arith.CmpIOp
        result = op_class(compare_predicate(op, dtype), lv, rv, loc=b.loc, ip=b.ip).result
        return self.state.new(result, ScalarType(BOOL))

    def boolop(self, node: ast.BoolOp) -> object:
        """``a and b`` / ``a or b`` on BOOL scalars (Python bools fold). As in Python, an
        operand that may fault or act (an element access, a call, a division: see
        ``may_fault``) is evaluated only when the operands before it leave the result
        open (``scf.if``): ``i < n and x[i] > 0`` never reads ``x[n]``. The others are
        ``arith.andi``/``arith.ori`` of both sides."""
        result = self.visit(node.values[0])
        for where in node.values[1:]:
            if isinstance(result, TypedValue) and may_fault(where):
                self._check_bool(node, result, node.values[0])
                result = self._short_circuit(node, result, where)
                continue
            value = self.visit(where)
            if is_number(result) and is_number(value):
                result = (result and value) if isinstance(node.op, ast.And) else (result or value)
                continue
            self._check_bool(node, result, node.values[0])
            self._check_bool(node, value, where)
            _, _, op_class = BOOL_OPS[type(node.op)]
            lv, rv = self._operands(result, value, node.values[0], where, BOOL)
            b = self.state.builder
            result = self.state.new(op_class(lv, rv, loc=b.loc, ip=b.ip).result, ScalarType(BOOL))
        return result

    def _check_bool(self, node: ast.BoolOp, item: object, where: ast.expr) -> None:
        if not (isinstance(item, TypedValue) and item.type == ScalarType(BOOL)) \
                and not isinstance(item, bool):
            self.error(where, ParserTypeError,
                       f"'{_symbol(node)}' takes BOOL scalars (comparisons)")

    def _short_circuit(self, node: ast.BoolOp, left: TypedValue, where: ast.expr) -> TypedValue:
        """``left and <where>`` (``or``) with ``where`` evaluated only when it decides."""
        b = self.state.builder
        is_and = isinstance(node.op, ast.And)
        op = scf.IfOp(left.value, [ir.IntegerType.get_signless(1)], has_else=True,
                      loc=b.loc, ip=b.ip)
        with b.at(op.then_block if is_and else op.else_block):
            value = self.visit(where)
            self._check_bool(node, value, where)
            scf.YieldOp([self.state.materialize(value, where, BOOL).value], loc=b.loc, ip=b.ip)
        with b.at(op.else_block if is_and else op.then_block):
            decided = self.state.materialize(not is_and, node, BOOL)
            scf.YieldOp([decided.value], loc=b.loc, ip=b.ip)
        return self.state.new(op.results[0], ScalarType(BOOL))

    def _fold(self, node: ast.AST, compute: Callable[[], object]) -> object:
        try:
            return compute()
        except (ArithmeticError, TypeError, ValueError) as exc:
            self.error(node, ParserTypeError, f"cannot evaluate {ast.unparse(node)}: {exc}")


_CMP_OK = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)

#: Calls an operand of ``and``/``or`` may make and still be evaluated eagerly: pure,
#: and they cannot fault.
_SAFE_CALLS = frozenset({"min", "max", "abs", "cast", "block_id", "thread_id", "block_dim",
                         "grid_dim", "lane_id", "warp_size"})


def may_fault(expr: ast.expr) -> bool:
    """Whether evaluating ``expr`` may fault or have an effect, so that ``and``/``or``
    must not evaluate it unless needed: an element access (``x[i]``; ``x.shape[d]`` is
    fine), a call other than a few pure builtins, a division or remainder (an integer
    division by zero traps), an assignment expression."""
    return any(_faults(part) for part in ast.walk(expr))


def _faults(node: ast.AST) -> bool:
    if isinstance(node, ast.Subscript):
        return not (isinstance(node.value, ast.Attribute) and node.value.attr == "shape")
    if isinstance(node, ast.Call):
        func = node.func
        return (func.attr if isinstance(func, ast.Attribute)
                else getattr(func, "id", None)) not in _SAFE_CALLS
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod))
    return isinstance(node, ast.NamedExpr)


def _symbol(node: ast.AST) -> str:
    """The operator of an expression node as written ('+', '<', 'and')."""
    op = getattr(node, "op", None)
    if isinstance(node, ast.Compare):
        sym = COMPARE.get(type(node.ops[0]))
        return f"'{sym[0]}'" if sym else f"'{type(node.ops[0]).__name__}'"
    if isinstance(op, ast.boolop):
        return f"'{BOOL_OPS[type(op)][0]}'"
    rule = BINARY.get(type(op)) if isinstance(op, ast.operator) else None
    if rule is not None:
        return f"'{rule.symbol}'"
    names: dict[type, str] = {ast.USub: "'-'", ast.Not: "'not'", ast.Invert: "'~'",
                              ast.Pow: "'**'"}
    return names.get(type(op), f"'{type(op).__name__}'")

