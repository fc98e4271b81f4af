"""dsl-core: the protocol core of the DSL toolkit (seeds/000).

``JitArgument``, ``DslType`` and ``Storable``; scalar and composite DSL types with C layouts;
``Constexpr``; typed storage; cache signatures and the packed C ABI. No required dependencies:
the IR hooks import ``dsl_mlir`` lazily, only when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .abi import NativeSlot as NativeSlot
from .abi import abi_slots as abi_slots
from .abi import compile_fill as compile_fill
from .abi import scalar_slot as scalar_slot
from .arrays import Array as Array
from .capabilities import capabilities as capabilities
from .capabilities import supports as supports
from .dispatch import c_abi_spec as c_abi_spec
from .dispatch import cache_signature as cache_signature
from .dispatch import construct_from_ir_values as construct_from_ir_values
from .dispatch import dsl_align_of as dsl_align_of
from .dispatch import dsl_size_of as dsl_size_of
from .dispatch import extract_to_ir_values as extract_to_ir_values
from .dispatch import get_ir_types as get_ir_types
from .dispatch import ir_arity as ir_arity
from .dispatch import peek_from_ptr as peek_from_ptr
from .dispatch import poke_into_ptr as poke_into_ptr
from .layout import FieldLayout as FieldLayout
from .layout import Layout as Layout

if TYPE_CHECKING:
    # ``dc.Constexpr[int]`` to a type checker is ``int``: the parameter takes a plain value
    # and the body uses it as one (``range(BLOCK)``, ``BLOCK // 2``). At run time it is the
    # class of dsl_core.constexpr (a compile-time constant that is part of the cache key).
    from typing import Annotated, TypeAlias, TypeVar

    # Likewise ``dc.Align[T, A]`` is ``T`` (``Annotated[T, A]``): a field takes a T.
    from typing import Annotated as Align

    _ConstexprT = TypeVar("_ConstexprT")
    Constexpr: TypeAlias = Annotated[_ConstexprT, "dsl_core.Constexpr"]
else:
    from .align import Align as Align
    from .constexpr import Constexpr as Constexpr
from .layout import layout_of as layout_of
from .layout import offset_of as offset_of
from .pointers import Pointer as Pointer
from .pointers import Tensor as Tensor
from .protocols import DslType as DslType
from .protocols import JitArgument as JitArgument
from .protocols import Storable as Storable
from .registry import JitArgumentRegistry as JitArgumentRegistry
from .scalars import BFloat16 as BFloat16
from .scalars import Boolean as Boolean
from .scalars import Float as Float
from .scalars import Float16 as Float16
from .scalars import Float32 as Float32
from .scalars import Float64 as Float64
from .scalars import Int8 as Int8
from .scalars import Int16 as Int16
from .scalars import Int32 as Int32
from .scalars import Int64 as Int64
from .scalars import Integer as Integer
from .scalars import Numeric as Numeric
from .scalars import UInt8 as UInt8
from .scalars import UInt16 as UInt16
from .scalars import UInt32 as UInt32
from .scalars import UInt64 as UInt64
from .signatures import signature_digest as signature_digest
from .signatures import type_signature as type_signature
from .storage import Arena as Arena
from .storage import HeapAllocator as HeapAllocator
from .storage import Storage as Storage
from .stream import Stream as Stream
from .structs import fields_of as fields_of
from .structs import replace as replace
from .structs import struct as struct
from .unions import union as union
from .vectors import Vector as Vector

__version__ = "0.1.0"

__all__ = [
    "Align", "Arena", "Array", "BFloat16", "Boolean", "Constexpr", "DslType", "FieldLayout",
    "Float", "Float16", "Float32", "Float64", "HeapAllocator", "Int8", "Int16", "Int32",
    "Int64", "Integer", "JitArgument", "JitArgumentRegistry", "Layout", "NativeSlot", "Numeric",
    "Pointer",
    "Storable", "Storage", "Stream", "Tensor", "UInt8", "UInt16", "UInt32", "UInt64", "Vector",
    "__version__", "abi_slots", "c_abi_spec", "cache_signature", "capabilities",
    "compile_fill", "construct_from_ir_values", "dsl_align_of", "dsl_size_of",
    "extract_to_ir_values", "fields_of", "get_ir_types", "ir_arity", "layout_of", "offset_of",
    "peek_from_ptr", "poke_into_ptr", "replace", "scalar_slot", "signature_digest", "struct",
    "supports",
    "type_signature", "union",
]
