"""Python operators on scalars: which arith op each becomes, and how it prints back.

``+ - * / // %`` on INDEX, integer and float scalars, ``& | ^`` on integers
and BOOL, ``== != < <= > >=`` (signed or unsigned by dtype, ordered for
floats except ``!=``), ``and``/``or`` on BOOL, unary ``-``. On tensors the
arithmetic operators map to the op table's ``pl.add``/``sub``/``mul``/``div``,
the comparisons to ``pl.eq``/``ne``/``lt``/``le``/``gt``/``ge``.
"""

from __future__ import annotations

import ast
from typing import Any

from ._mlir import arith
from .types import DType

#: Operator precedence, as in Python (higher binds tighter).
PREC_OR, PREC_AND, PREC_NOT, PREC_CMP = 1, 2, 3, 4
PREC_BITOR, PREC_XOR, PREC_BITAND, PREC_ADD, PREC_MUL = 5, 6, 7, 9, 10
PREC_UNARY, PREC_ATOM = 11, 13


class BinaryRule:
    """One Python operator: its symbol, precedence and arith op per kind of dtype (not
    changed after construction)."""

    __slots__ = ("ops", "precedence", "symbol")

    def __init__(self, symbol: str, precedence: int, ops: dict[str, Any]) -> None:
        self.symbol = symbol
        self.precedence = precedence
        self.ops = ops  # "int" | "uint" | "float" | "bool" -> arith op class


def _kinds(signed: Any, unsigned: Any = None, floating: Any = None,
           boolean: Any = None) -> dict[str, Any]:
    table = {"int": signed, "uint": unsigned or signed, "float": floating, "bool": boolean}
    return {k: v for k, v in table.items() if v is not None}


BINARY: dict[type[ast.operator], BinaryRule] = {
    ast.Add: BinaryRule("+", PREC_ADD, _kinds(arith.AddIOp, floating=arith.AddFOp)),
    ast.Sub: BinaryRule("-", PREC_ADD, _kinds(arith.SubIOp, floating=arith.SubFOp)),
    ast.Mult: BinaryRule("*", PREC_MUL, _kinds(arith.MulIOp, floating=arith.MulFOp)),
    ast.Div: BinaryRule("/", PREC_MUL, _kinds(None, floating=arith.DivFOp)),
    ast.FloorDiv: BinaryRule("//", PREC_MUL, _kinds(arith.FloorDivSIOp, arith.DivUIOp)),
    # Signed integers and floats: Python's sign (the divisor's), emitted by
    # ``emit_python_rem``; only ``remui`` is one op (and prints back as ``%``).
    ast.Mod: BinaryRule("%", PREC_MUL, {"uint": arith.RemUIOp}),
    ast.BitAnd: BinaryRule("&", PREC_BITAND, _kinds(arith.AndIOp, boolean=arith.AndIOp)),
    ast.BitOr: BinaryRule("|", PREC_BITOR, _kinds(arith.OrIOp, boolean=arith.OrIOp)),
    ast.BitXor: BinaryRule("^", PREC_XOR, _kinds(arith.XOrIOp, boolean=arith.XOrIOp)),
}

#: Tensor operators: the op table entry each maps to.
TENSOR_BINARY: dict[type[ast.operator], str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
}

#: Tensor comparisons: the op table entry (a dsl.cmp predicate) each maps to.
TENSOR_COMPARE: dict[type[ast.cmpop], str] = {
    ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge",
}

BOOL_OPS: dict[type[ast.boolop], tuple[str, int, Any]] = {
    ast.And: ("and", PREC_AND, arith.AndIOp),
    ast.Or: ("or", PREC_OR, arith.OrIOp),
}

#: Comparison -> (symbol, cmpi predicate signed, unsigned, cmpf predicate).
COMPARE: dict[type[ast.cmpop], tuple[str, str, str, str]] = {
    ast.Eq: ("==", "eq", "eq", "OEQ"),
    ast.NotEq: ("!=", "ne", "ne", "UNE"),
    ast.Lt: ("<", "slt", "ult", "OLT"),
    ast.LtE: ("<=", "sle", "ule", "OLE"),
    ast.Gt: (">", "sgt", "ugt", "OGT"),
    ast.GtE: (">=", "sge", "uge", "OGE"),
}


def emit_python_rem(lhs: Any, rhs: Any, kind: str, loc: Any, ip: Any) -> Any:
    """``lhs % rhs`` with Python's sign on signed integers/INDEX (``kind == "int"``:
    ``a - (a // b) * b``, printed back as such) and floats (``fmod(fmod(a, b) + b, b)``,
    which the printer reads back as ``a % b``); C's ``remsi`` and ``fmod`` take the
    dividend's sign, which broke ``a == (a // b) * b + a % b`` and constant folding."""
    if kind == "float":
        inner = arith.RemFOp(lhs, rhs, loc=loc, ip=ip).result
        shifted = arith.AddFOp(inner, rhs, loc=loc, ip=ip).result
        return arith.RemFOp(shifted, rhs, loc=loc, ip=ip).result
    quotient = arith.FloorDivSIOp(lhs, rhs, loc=loc, ip=ip).result
    product = arith.MulIOp(quotient, rhs, loc=loc, ip=ip).result
    return arith.SubIOp(lhs, product, loc=loc, ip=ip).result


def kind_of(dtype: DType) -> str:
    """The operator table column of a dtype (INDEX counts as a signed integer)."""
    return {"index": "int", "int": "int"}.get(dtype.kind, dtype.kind)


def compare_predicate(op: ast.cmpop, dtype: DType) -> object:
    """The arith predicate enum value for comparing two ``dtype`` scalars."""
    _, signed, unsigned, floating = COMPARE[type(op)]
    if dtype.is_float:
        return getattr(arith.CmpFPredicate, floating)
    return getattr(arith.CmpIPredicate, unsigned if dtype.kind in ("uint", "bool") else signed)


# -- the printer's view: arith op name -> (symbol, precedence) --------------------------------
def _printable() -> dict[str, tuple[str, int]]:
    table: dict[str, tuple[str, int]] = {}
    for rule in BINARY.values():
        for op_class in rule.ops.values():
            table.setdefault(op_class.OPERATION_NAME, (rule.symbol, rule.precedence))
    return table


PRINT_BINARY: dict[str, tuple[str, int]] = _printable()

#: Predicate number -> symbol, for arith.cmpi and arith.cmpf.
PRINT_CMPI: dict[int, str] = {}
PRINT_CMPF: dict[int, str] = {}
for _symbol, _signed, _unsigned, _floating in COMPARE.values():
    PRINT_CMPI[int(getattr(arith.CmpIPredicate, _signed))] = _symbol
    PRINT_CMPI[int(getattr(arith.CmpIPredicate, _unsigned))] = _symbol
    PRINT_CMPF[int(getattr(arith.CmpFPredicate, _floating))] = _symbol
