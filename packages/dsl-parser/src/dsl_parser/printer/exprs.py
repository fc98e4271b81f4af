"""Expressions: a value prints as its name, a literal, or its (inlined) defining op.

Literals print bare where the parser gives them the right type back (an
INDEX int, an FP32 float, a BOOL, or any literal whose type the context
implies), else as ``pl.const(value, dtype)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .._mlir import DYNAMIC_SIZE, Operation, Value, ir
from ..floats import float_literal, read_float_attr
from ..ops import BY_MLIR_NAME
from ..scalar_casts import PRINT_CASTS
from ..scalar_math import PRINT_UNARY
from ..scalar_ops import (
    PREC_AND,
    PREC_ATOM,
    PREC_CMP,
    PREC_MUL,
    PREC_NOT,
    PREC_OR,
    PREC_UNARY,
    PRINT_BINARY,
    PRINT_CMPF,
    PRINT_CMPI,
)
from ..types import BOOL, DType, PlType, TensorType
from ..values import from_signless, literal_dtype

TypeOf = Callable[[Value], PlType]

#: Scalar arith ops that print as calls of two scalars.
PRINT_CALLS = {
    "arith.ceildivsi": "pl.ceil_div", "arith.ceildivui": "pl.ceil_div",
    "arith.minsi": "pl.min", "arith.minui": "pl.min", "arith.minimumf": "pl.min",
    "arith.maxsi": "pl.max", "arith.maxui": "pl.max", "arith.maximumf": "pl.max",
}
Text = tuple[str, int]


def _owner(value: Value) -> Operation | None:
    return getattr(value.owner, "operation", None)


class ExprPrinter:
    """Renders values for one function (names, inlined ops, symbolic dimensions)."""

    def __init__(self, type_of: TypeOf) -> None:
        self.type_of = type_of
        self.names: dict[Value, str] = {}
        self.inlined: set[Operation] = set()
        self.dims: dict[Operation, str] = {}
        self._late: dict[Operation, set[Operation]] = {}

    def text(self, value: Value, implied: DType | None = None,
             consumer: Operation | None = None) -> str:
        return self.value(value, implied, consumer=consumer)[0]

    def value(self, value: Value, implied: DType | None = None, force: bool = False,
              consumer: Operation | None = None) -> Text:
        """``value`` as an expression. With a ``consumer`` whose parse materializes
        literals after its other operands, a constant prints bare only if it came last."""
        name = self.names.get(value)
        if name is not None:
            return name, PREC_ATOM
        op = _owner(value)
        if op is not None and op in self.dims:
            return self.dims[op], PREC_ATOM
        if op is None or op not in self.inlined:
            raise ValueError(f"value {value} has no name")
        if consumer is not None and op.name == "arith.constant":
            force = force or op not in self.late_constants(consumer)
        return self.op(op, implied, force)

    def late_constants(self, consumer: Operation) -> set[Operation]:
        """The inlined constant operands of ``consumer`` that come after all its other
        inlined operands, in operand order: re-parsed as literals, they keep their place."""
        late = self._late.get(consumer)
        if late is None:
            roots: list[tuple[Operation, int]] = []
            for index, operand in enumerate(consumer.operands):
                owner = _owner(operand)
                if owner is not None and owner in self.inlined and \
                        all(owner != r for r, _ in roots):
                    roots.append((owner, index))
            roots.sort(key=functools.cmp_to_key(_block_order))
            late, last = set(), len(consumer.operands)
            for owner, index in reversed(roots):
                if owner.name != "arith.constant" or index >= last:
                    break
                late.add(owner)
                last = index
            self._late[consumer] = late
        return late

    def op(self, op: Operation, implied: DType | None = None, force: bool = False) -> Text:
        """The expression of an op with one result."""
        name = op.name
        if name == "arith.constant":
            return self.literal(op, implied, force)
        if name in PRINT_BINARY:
            return self._binary(op)
        if name in ("arith.cmpi", "arith.cmpf"):
            return self._compare(op)
        if name == "arith.remf":
            return self._float_rem(op)
        if name == "arith.negf":
            return self._wrap_unary("-", op.operands[0])
        if name == "func.call":
            return self.call(op), PREC_ATOM
        if name in PRINT_CASTS:  # a scalar pl.cast
            dtype = self.type_of(op.results[0]).dtype
            return f"pl.cast({self.text(op.operands[0])}, target_type={dtype!r})", PREC_ATOM
        if name == "arith.select":  # pl.select of scalars
            dtype = self.type_of(op.results[0]).dtype
            c = self.text(op.operands[0], BOOL)
            a, b = self.text(op.operands[1], dtype), self.text(op.operands[2], dtype)
            return f"pl.select({c}, {a}, {b})", PREC_ATOM
        if name in PRINT_UNARY:  # pl.exp(v), pl.abs(v), ... of a scalar
            return f"{PRINT_UNARY[name]}({self.text(op.operands[0])})", PREC_ATOM
        if name in PRINT_CALLS:  # pl.ceil_div(a, b), pl.min(a, b), pl.max(a, b)
            (lt, _), (rt, _) = self._operands(op)
            return f"{PRINT_CALLS[name]}({lt}, {rt})", PREC_ATOM
        rule = BY_MLIR_NAME.get(name)
        if rule is None:
            raise ValueError(f"the printer cannot express {name} in the DSL")
        return rule.spell(_Spelling(op, self)), PREC_ATOM

    # -- literals ---------------------------------------------------------------------------------
    def literal(self, op: Operation, implied: DType | None, force: bool = False) -> Text:
        dtype = self.type_of(op.results[0]).dtype
        text = self.literal_value(op, dtype)
        bare = implied == dtype or (implied is None and literal_dtype(_python(dtype)) == dtype)
        if bare and not force:
            return text, PREC_UNARY if text.startswith("-") else PREC_ATOM
        return f"pl.const({text}, {dtype!r})", PREC_ATOM

    @staticmethod
    def literal_value(op: Operation, dtype: DType) -> str:
        attr = op.attributes["value"]
        if dtype.is_float:
            return float_literal(read_float_attr(attr, dtype))
        return repr(from_signless(ir.IntegerAttr(attr).value, dtype))

    # -- operators ---------------------------------------------------------------------------------
    def _is_const(self, value: Value) -> bool:
        op = _owner(value)
        return op is not None and op.name == "arith.constant" and op in self.inlined

    def _operands(self, op: Operation) -> tuple[Text, Text]:
        """Both sides; a literal takes its sibling's type, two literals never fold."""
        lhs, rhs = op.operands[0], op.operands[1]
        dtype = self.type_of(lhs).dtype
        l_const, r_const = self._is_const(lhs), self._is_const(rhs)
        late = self.late_constants(op)
        both = _owner(lhs) in late and _owner(rhs) in late  # two literals would fold
        left = self.value(lhs, dtype if l_const else None, force=both, consumer=op)
        right = self.value(rhs, dtype if r_const else None, consumer=op)
        return left, right

    def _binary(self, op: Operation) -> Text:
        if op.name == "arith.xori" and self._is_not(op):
            text, prec = self.value(op.operands[0])
            return f"not {text if prec > PREC_NOT else f'({text})'}", PREC_NOT
        if op.name == "arith.subi" and (rem := self._int_rem(op)) is not None:
            return rem
        symbol, prec = PRINT_BINARY[op.name]
        if self.type_of(op.results[0]).dtype == BOOL and op.name in ("arith.andi", "arith.ori"):
            symbol, prec = ("and", PREC_AND) if op.name == "arith.andi" else ("or", PREC_OR)
        (lt, lp), (rt, rp) = self._operands(op)
        left = lt if lp >= prec else f"({lt})"
        right = rt if rp > prec else f"({rt})"
        return f"{left} {symbol} {right}", prec

    def _int_rem(self, op: Operation) -> Text | None:
        """``a % b`` on signed integers: the parser's ``a - (a // b) * b``; None when
        ``op`` is another subtraction."""
        product = _owner(op.operands[1])
        if product is None or product.name != "arith.muli" or product not in self.inlined:
            return None
        quotient = _owner(product.operands[0])
        if quotient is None or quotient.name != "arith.floordivsi" or \
                quotient not in self.inlined or quotient.operands[0] != op.operands[0] or \
                quotient.operands[1] != product.operands[1]:
            return None
        return self._rem_text(quotient)

    def _rem_text(self, division: Operation) -> Text:
        """``a % b`` from the op whose operands are ``a`` and ``b``."""
        (lt, lp), (rt, rp) = self._operands(division)
        left = lt if lp >= PREC_MUL else f"({lt})"
        right = rt if rp > PREC_MUL else f"({rt})"
        return f"{left} % {right}", PREC_MUL

    def _float_rem(self, op: Operation) -> Text:
        """``a % b`` on floats: the parser's ``remf(addf(remf(a, b), b), b)`` (Python's
        sign); a lone ``remf`` (C's fmod) has no DSL spelling."""
        added = _owner(op.operands[0])
        inner = _owner(added.operands[0]) if added is not None and \
            added.name == "arith.addf" else None
        b = op.operands[1]
        if inner is None or inner.name != "arith.remf" or added is None or \
                added.operands[1] != b or inner.operands[1] != b or \
                not {added, inner} <= self.inlined:
            raise ValueError("the printer cannot express arith.remf (C's fmod) in the DSL: "
                             "`%` on floats takes the divisor's sign")
        return self._rem_text(inner)

    def _is_not(self, op: Operation) -> bool:
        """``x ^ True`` on BOOL: what ``not x`` parses to."""
        rhs = op.operands[1]
        owner = _owner(rhs)
        return self.type_of(rhs).dtype == BOOL and self._is_const(rhs) and owner is not None \
            and ir.IntegerAttr(owner.attributes["value"]).value != 0

    def _compare(self, op: Operation) -> Text:
        table = PRINT_CMPI if op.name == "arith.cmpi" else PRINT_CMPF
        symbol = table[ir.IntegerAttr(op.attributes["predicate"]).value]
        (lt, lp), (rt, rp) = self._operands(op)
        left = lt if lp > PREC_CMP else f"({lt})"
        right = rt if rp > PREC_CMP else f"({rt})"
        return f"{left} {symbol} {right}", PREC_CMP

    def _wrap_unary(self, symbol: str, operand: Value) -> Text:
        text, prec = self.value(operand)
        return f"{symbol}{text if prec >= PREC_UNARY else f'({text})'}", PREC_UNARY

    def call(self, op: Operation) -> str:
        callee = str(op.attributes["callee"]).lstrip("@")
        params = [self.type_of(v) for v in op.operands]
        args = ", ".join(self.text(v, None if isinstance(t, TensorType) else t.dtype, op)
                         for v, t in zip(op.operands, params, strict=True))
        return f"self.{callee}({args})"


def _block_order(a: tuple[Operation, int], b: tuple[Operation, int]) -> int:
    return -1 if a[0].is_before_in_block(b[0]) else 1


def _python(dtype: DType) -> object:
    """A Python literal of the kind a dtype's constants print as."""
    if dtype == BOOL:
        return True
    return 1.0 if dtype.is_float else 1


class _Spelling:
    """What an op table rule sees when it spells its op."""

    def __init__(self, op: Operation, printer: ExprPrinter) -> None:
        self.op = op
        self.printer = printer

    def operand(self, index: int, dtype: DType | None = None) -> str:
        return self.printer.text(self.op.operands[index], dtype, self.op)

    def shape(self, t: PlType, first_dynamic: int) -> str:
        assert isinstance(t, TensorType) and t.shape is not None
        parts, index = [], first_dynamic
        sizes = self.op.results[0].type.shape
        for axis, dim in enumerate(t.shape):
            if sizes[axis] == DYNAMIC_SIZE:
                parts.append(self.operand(index, None))
                index += 1
            else:
                parts.append(repr(dim))
        return f"[{', '.join(parts)}]"

    def result_type(self) -> PlType:
        return self.printer.type_of(self.op.results[0])

    def operand_type(self, index: int) -> PlType:
        return self.printer.type_of(self.op.operands[index])
