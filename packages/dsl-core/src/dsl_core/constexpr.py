"""``Constexpr[T]``: compile-time values with no IR values and no C-ABI slots.

A Constexpr value specializes what it is used in: its value (with its type, so ``1`` and
``True`` differ) enters the cache signature. ``Constexpr[int](True)`` is a TypeError.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

from ._util import type_name
from .protocols import AbiEntry
from .signatures import constant_signature

_INTERNED: dict[Any, type[Constexpr]] = {}


class Constexpr:
    """A compile-time constant; ``Constexpr[T]`` checks the value's type."""

    __slots__ = ("value",)
    inner: ClassVar[Any] = None
    value: Any

    def __class_getitem__(cls, inner: Any) -> type[Constexpr]:
        if cls.inner is not None:
            raise TypeError(f"{cls.__name__} is already specialized")
        if not isinstance(inner, type):
            raise TypeError(f"Constexpr[T]: T must be a type, got {inner!r}")
        found = _INTERNED.get(inner)
        if found is None:
            name = f"Constexpr[{type_name(inner)}]"
            found = type(name, (Constexpr,), {"__slots__": (), "inner": inner})
            found.__qualname__ = name
            _INTERNED[inner] = found
        return found

    def __init__(self, value: Any) -> None:
        self.value = self.check(value)

    @classmethod
    def check(cls, value: Any) -> Any:
        """``value`` validated (and converted, for DSL scalars) against ``T``."""
        if isinstance(value, Constexpr):
            value = value.value
        inner = cls.inner
        if inner is None:
            constant_signature(value, cls.__name__)
            return value
        from .scalars import Numeric

        if issubclass(inner, Numeric):
            return inner(value)
        if inner is float and type(value) is int:
            return float(value)
        if isinstance(value, inner) and not (type(value) is bool and inner in (int, float)):
            constant_signature(value, cls.__name__)
            return value
        raise TypeError(
            f"{cls.__name__}: expected a value of type {inner.__name__}, "
            f"got {type(value).__name__} {value!r}"
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Constexpr):
            return NotImplemented
        return self.__cache_signature__() == other.__cache_signature__()

    def __hash__(self) -> int:
        return hash(self.__cache_signature__())

    # JitArgument: no IR types, no ABI slots; the value is part of the signature.
    def __get_ir_types__(self) -> list[Any]:
        return []

    def __cache_signature__(self) -> Hashable:
        return ("Constexpr", constant_signature(self.value, type(self).__name__))

    def __c_abi_spec__(self) -> list[AbiEntry]:
        return []

    # DslType: zero SSA values; the exemplar carries the value.
    def __extract_to_ir_values__(self) -> list[Any]:
        return []

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Any:
        if len(values) != 0:
            raise TypeError(
                f"construct_from_ir_values: {cls.__name__} expects 0 ir.Values, got {len(values)}"
            )
        if exemplar is None:
            raise TypeError(
                f"construct_from_ir_values: {cls.__name__} needs an exemplar carrying its value"
            )
        return exemplar if isinstance(exemplar, cls) else cls(exemplar)

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        return ("Constexpr", type_name(cls.inner) if cls.inner is not None else None)

    @classmethod
    def __dsl_ir_arity__(cls, exemplar: Any = None) -> int:
        return 0


def is_constexpr_type(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, Constexpr)
