"""IR values with their DSL types, and the side table the printer reads names from.

The parser works with two kinds of values: compile-time Python objects
(``64``, ``3.0``, ``pl.FP32``, a list of sizes) and ``TypedValue``s, an MLIR
value with its DSL type. Python literals become typed constants only when an
operation needs them (``materialize``), taking the type the context implies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._mlir import Value
from .floats import Float64Bits, largest_finite, overflows
from .types import BOOL, FP32, INDEX, DType, PlType, TensorType


@dataclass(frozen=True, slots=True)
class TypedValue:
    """An MLIR SSA value and its DSL type."""

    value: Value
    type: PlType

    @property
    def is_tensor(self) -> bool:
        return isinstance(self.type, TensorType)

    @property
    def dtype(self) -> DType:
        return self.type.dtype


@dataclass
class ValueInfo:
    """Source names and DSL types of the values of a module (what MLIR does not keep)."""

    names: dict[Value, str] = field(default_factory=dict)
    types: dict[Value, PlType] = field(default_factory=dict)

    def record(self, value: TypedValue, name: str | None = None) -> None:
        self.types[value.value] = value.type
        if name is not None and value.value not in self.names:
            self.names[value.value] = name


def is_literal(value: object) -> bool:
    """A Python number usable where a scalar is expected."""
    return isinstance(value, (bool, int, float, Float64Bits))


def literal_dtype(value: object) -> DType:
    """The dtype of a literal with no context: bool -> BOOL, int -> INDEX, float -> FP32."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INDEX
    return FP32


def literal_problem(value: object, dtype: DType) -> str | None:
    """Why ``value`` cannot be a constant of ``dtype`` (None when it can)."""
    if isinstance(value, (float, Float64Bits)):
        if not dtype.is_float:
            return f"float literal {float(value)!r} used where {dtype!r} is expected"
        return _float_range_problem(float(value), dtype)
    if not isinstance(value, int):
        return f"{value!r} is not a number"
    if dtype.is_float:
        try:
            return _float_range_problem(float(value), dtype)
        except OverflowError:
            return f"literal {value} is out of range for {dtype!r}"
    if dtype.kind == "bool":
        return None if value in (0, 1) else f"{value} is not a BOOL value (0 or 1)"
    low, high = _int_range(dtype)
    if not low <= value <= high:
        return f"literal {value} is out of range for {dtype!r} ({low}..{high})"
    return None


def _float_range_problem(value: float, dtype: DType) -> str | None:
    """A finite value that would round to infinity in ``dtype`` (None when it fits)."""
    if not overflows(value, dtype):
        return None
    return (f"literal {value!r} is out of range for {dtype!r} (it would become infinity; "
            f"the largest finite value is {largest_finite(dtype)!r})")


def _int_range(dtype: DType) -> tuple[int, int]:
    if dtype.kind == "uint":
        return 0, (1 << dtype.bits) - 1
    return -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1


def to_signless(value: int, dtype: DType) -> int:
    """The signed integer with the same bits (what MLIR integer attributes take)."""
    bits = dtype.bits
    value &= (1 << bits) - 1
    return value - (1 << bits) if bits > 1 and value >= 1 << (bits - 1) else value


def from_signless(value: int, dtype: DType) -> int | bool:
    """A constant read back from MLIR, in the dtype's own signedness."""
    if dtype.kind == "bool":
        return bool(value)
    if dtype.kind == "uint":
        return value & ((1 << dtype.bits) - 1)
    return value
