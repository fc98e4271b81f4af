"""Protocol hooks of ``@struct`` types, as mixins a struct gets only when it supports them.

Every hook processes the non-Constexpr fields recursively, in declaration order.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from ._util import qualified_name
from .abi import Leaf, abi_spec_of_type, static_leaves
from .codec import BytesStorable, pack_into, unpack_from
from .dispatch import (
    c_abi_spec,
    cache_signature,
    construct_from_ir_values,
    extract_to_ir_values,
    get_ir_types,
    ir_arity,
)
from .protocols import AbiEntry
from .signatures import constant_signature, has_static_signature, type_signature


def require_bound(cls: Any, what: str) -> None:
    """TypeError unless every Constexpr field of struct ``cls`` has a value."""
    for f in cls.__dsl_fields__:
        if f.constexpr and f.name not in cls.__dsl_constexpr__:
            raise TypeError(
                f"struct {cls.__name__}: Constexpr field {f.name!r} has no value, needed for "
                f"{what}; use {cls.__name__}.specialize({f.name}=...)"
            )


def struct_type_signature(cls: Any) -> Hashable:
    """``(kind, module.qualname, fields, constexpr values, (size, align, offsets))``."""
    cached = cls.__dict__.get("_dsl_signature_")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    require_bound(cls, "its signature")
    fields = tuple((f.name, type_signature(f.type)) for f in cls.__dsl_runtime_fields__)
    constexpr = tuple((k, constant_signature(v)) for k, v in cls.__dsl_constexpr__.items())
    layout = cls.__dsl_layout__.signature() if cls.__dsl_layout__ is not None else None
    sig = (cls.__dsl_kind__, qualified_name(cls.__dsl_generic__), fields, constexpr, layout)
    cls._dsl_signature_ = sig
    return sig


def _flat_leaves(cls: Any) -> list[Leaf] | None:
    leaves: list[Leaf] = []
    for f in cls.__dsl_runtime_fields__:
        sub = static_leaves(f.value_type)
        if sub is None:
            return None
        leaves.extend(((f.name, *path), leaf) for path, leaf in sub)
    return leaves


def attach_protocols(cls: Any) -> None:
    """Per-class facts used by the fast paths: static signature and static ABI leaves."""
    bound = all(f.name in cls.__dsl_constexpr__ for f in cls.__dsl_fields__ if f.constexpr)
    static = bound and all(has_static_signature(f.value_type) for f in cls.__dsl_runtime_fields__)
    cls.__dsl_static_signature__ = static
    jit = "JitArgument" not in cls.__dsl_unsupported__
    cls.__dsl_abi_leaves__ = _flat_leaves(cls) if jit else None


class StructJit:
    """JitArgument hooks: IR types, signature and ABI slots of the fields, concatenated."""

    __slots__ = ()

    def __get_ir_types__(self) -> list[Any]:
        fields = type(self).__dsl_runtime_fields__  # type: ignore[attr-defined]
        return [t for f in fields for t in get_ir_types(getattr(self, f.name))]

    def __cache_signature__(self) -> Hashable:
        cls: Any = type(self)
        if cls.__dsl_static_signature__:
            return struct_type_signature(cls)
        values = tuple(cache_signature(getattr(self, f.name)) for f in cls.__dsl_runtime_fields__)
        return (struct_type_signature(cls), values)

    def __c_abi_spec__(self) -> list[AbiEntry]:
        cls: Any = type(self)
        if cls.__dsl_abi_leaves__ is not None:
            return abi_spec_of_type(cls)
        spec: list[AbiEntry] = []
        for f in cls.__dsl_runtime_fields__:
            for ctype, fill in c_abi_spec(getattr(self, f.name)):
                spec.append((ctype, _field_fill(fill, f.name)))
        return spec


def _field_fill(fill: Any, name: str) -> Any:
    return lambda arg, storage: fill(getattr(arg, name), storage)


class StructDsl:
    """DslType hooks: the fields' SSA values, concatenated; rebuilt field by field."""

    __slots__ = ()

    def __extract_to_ir_values__(self) -> list[Any]:
        fields = type(self).__dsl_runtime_fields__  # type: ignore[attr-defined]
        return [v for f in fields for v in extract_to_ir_values(getattr(self, f.name))]

    @classmethod
    def _field_counts(cls, exemplar: Any) -> list[int]:
        fields = cls.__dsl_runtime_fields__  # type: ignore[attr-defined]
        return [ir_arity(f.value_type, _sub(exemplar, f.name)) for f in fields]

    @classmethod
    def __dsl_ir_arity__(cls, exemplar: Any = None) -> int:
        return sum(cls._field_counts(exemplar))

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Any:
        target: Any = type(exemplar) if isinstance(exemplar, cls) else cls
        require_bound(target, "construct_from_ir_values")
        counts = target._field_counts(exemplar)
        if sum(counts) != len(values):
            raise TypeError(f"construct_from_ir_values: {cls.__name__} expects {sum(counts)} "
                            f"ir.Values, got {len(values)}")
        out, start = {}, 0
        for f, n in zip(target.__dsl_runtime_fields__, counts, strict=True):
            chunk = list(values[start:start + n])
            out[f.name] = construct_from_ir_values(f.value_type, chunk, _sub(exemplar, f.name))
            start += n
        return target._from_fields_(out)


def _sub(exemplar: Any, name: str) -> Any:
    return None if exemplar is None else getattr(exemplar, name, None)


class StructStorable(BytesStorable):
    """Storable hooks: C layout from ``__dsl_layout__``; fields packed at their offsets."""

    __slots__ = ()

    @classmethod
    def __dsl_size_of__(cls) -> int:
        return cls.__dsl_layout__.size  # type: ignore[attr-defined, no-any-return]

    @classmethod
    def __dsl_align_of__(cls) -> int:
        return cls.__dsl_layout__.align  # type: ignore[attr-defined, no-any-return]

    @classmethod
    def _pack_into_(cls, buf: bytearray, offset: int, value: Any) -> None:
        value = cls._dsl_coerce_(value)  # type: ignore[attr-defined]
        for fl in cls.__dsl_layout__.fields:  # type: ignore[attr-defined]
            pack_into(fl.type, buf, offset + fl.offset, getattr(value, fl.name))

    @classmethod
    def _unpack_from_(cls, buf: bytes | bytearray, offset: int) -> Any:
        require_bound(cls, "peek_from_ptr")
        layout = cls.__dsl_layout__  # type: ignore[attr-defined]
        values = {fl.name: unpack_from(fl.type, buf, offset + fl.offset) for fl in layout.fields}
        return cls._from_fields_(values)  # type: ignore[attr-defined]


def mixins_for(unsupported: dict[str, str]) -> tuple[type, ...]:
    """The hook mixins for the protocols a struct supports."""
    table = (("JitArgument", StructJit), ("DslType", StructDsl), ("Storable", StructStorable))
    return tuple(mixin for proto, mixin in table if proto not in unsupported)
