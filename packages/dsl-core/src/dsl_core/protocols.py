"""The three structural protocols of seeds/000: JitArgument, DslType and Storable.

They are capabilities, not base classes: a type implements a protocol by providing its
hooks. ``isinstance``/``issubclass`` against them only confirms that the hooks exist and is
slow; the per-call paths in :mod:`dsl_core.dispatch` never use it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

#: One packed C-ABI slot: a ctypes type and ``fill(argument, storage)``.
AbiEntry = tuple[Any, Callable[[Any, Any], None]]


@runtime_checkable
class JitArgument(Protocol):
    """How a Python value enters a compiled JIT function."""

    def __get_ir_types__(self) -> list[Any]:
        """MLIR argument types contributed to the function signature."""
        ...

    def __cache_signature__(self) -> Hashable:
        """Stable, hashable contribution to the compilation cache key."""
        ...

    def __c_abi_spec__(self) -> list[AbiEntry]:
        """Ordered ``(ctype, fill)`` entries for the packed C interface."""
        ...


@runtime_checkable
class DslType(Protocol):
    """Conversion of DSL values to and from MLIR SSA values."""

    def __extract_to_ir_values__(self) -> list[Any]:
        """The value as ordered ``ir.Value``s."""
        ...

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Any:
        """Rebuild a value of this type from SSA values (``exemplar`` carries metadata)."""
        ...


@runtime_checkable
class Storable(Protocol):
    """Static byte layout and typed memory access."""

    @classmethod
    def __dsl_size_of__(cls) -> int:
        """Static byte size."""
        ...

    @classmethod
    def __dsl_align_of__(cls) -> int:
        """Required byte alignment."""
        ...

    @classmethod
    def __peek_from_ptr__(cls, ptr: int) -> Any:
        """Materialize a typed value from an address."""
        ...

    @classmethod
    def __poke_into_ptr__(cls, ptr: int, value: Any) -> None:
        """Write a typed value to an address."""
        ...


JIT_HOOKS = ("__get_ir_types__", "__cache_signature__", "__c_abi_spec__")
DSL_HOOKS = ("__extract_to_ir_values__", "__construct_from_ir_values__")
STORABLE_HOOKS = ("__dsl_size_of__", "__dsl_align_of__", "__peek_from_ptr__", "__poke_into_ptr__")
PROTOCOL_HOOKS = {"JitArgument": JIT_HOOKS, "DslType": DSL_HOOKS, "Storable": STORABLE_HOOKS}
