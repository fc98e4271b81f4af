"""``@union``: storage-only composites (Storable; neither DslType nor JitArgument).

A union has no SSA value form. On the host a union value is its bytes: ``U(i=5)`` encodes
exactly one member into zeroed bytes, and ``u.i`` / ``u.f`` decode a member from them.
Every member sits at offset 0; size and alignment follow C.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from typing import Any, ClassVar, TypeVar

from ._fields import MISSING, Field, class_namespace, read_fields
from ._util import qualified_name
from .codec import BytesStorable, pack_into, unpack_from
from .layout import Layout, union_layout
from .signatures import type_signature

C = TypeVar("C", bound=type)


class UnionValue(BytesStorable):
    """Base class of every ``@union`` type: a value is the union's bytes."""

    __slots__ = ("_bytes",)
    __dsl_kind__: ClassVar[str] = "union"
    __dsl_fields__: ClassVar[tuple[Field, ...]] = ()
    __dsl_layout__: ClassVar[Layout]
    __dsl_static_signature__: ClassVar[bool] = True
    _bytes: bytes

    def __init__(self, **member: Any) -> None:
        cls = type(self)
        if len(member) != 1:
            raise TypeError(f"union {cls.__name__}: give exactly one member by keyword, "
                            f"got {len(member)}")
        (name, value), = member.items()
        entry = cls.__dsl_layout__.field(f"union {cls.__name__}", name)
        buf = bytearray(cls.__dsl_layout__.size)
        try:
            pack_into(entry.type, buf, 0, value)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"union {cls.__name__}: member {name!r}: {exc}") from None
        object.__setattr__(self, "_bytes", bytes(buf))

    @classmethod
    def from_bytes(cls, data: bytes | bytearray) -> Any:
        """A union value holding ``data`` (exactly ``dsl_size_of(cls)`` bytes)."""
        if len(data) != cls.__dsl_layout__.size:
            raise ValueError(f"union {cls.__name__}: expected {cls.__dsl_layout__.size} bytes, "
                             f"got {len(data)}")
        obj = object.__new__(cls)
        object.__setattr__(obj, "_bytes", bytes(data))
        return obj

    @property
    def raw(self) -> bytes:
        return self._bytes

    def __getattr__(self, name: str) -> Any:
        layout = type(self).__dsl_layout__
        for entry in layout.fields:
            if entry.name == name:
                return unpack_from(entry.type, self._bytes, 0)
        raise AttributeError(f"union {type(self).__name__} has no member {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"union {type(self).__name__} is frozen: cannot assign {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._bytes == other._bytes

    def __hash__(self) -> int:
        return hash((type(self), self._bytes))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(raw={self._bytes.hex()})"

    @classmethod
    def _dsl_coerce_(cls, value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if isinstance(value, dict):
            return cls(**value)
        raise TypeError(f"union {cls.__name__}: expected a {cls.__name__} or a one-member "
                        f"dict, got {type(value).__name__}")

    @classmethod
    def __dsl_size_of__(cls) -> int:
        return cls.__dsl_layout__.size

    @classmethod
    def __dsl_align_of__(cls) -> int:
        return cls.__dsl_layout__.align

    @classmethod
    def _pack_into_(cls, buf: bytearray, offset: int, value: Any) -> None:
        data = cls._dsl_coerce_(value)._bytes
        buf[offset:offset + len(data)] = data

    @classmethod
    def _unpack_from_(cls, buf: bytes | bytearray, offset: int) -> Any:
        return cls.from_bytes(buf[offset:offset + cls.__dsl_layout__.size])

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        members = tuple((f.name, type_signature(f.type)) for f in cls.__dsl_fields__)
        return ("union", qualified_name(cls), members, cls.__dsl_layout__.signature())


def union(cls: C) -> C:
    """Class decorator: make ``cls`` a storage-only C union of its annotated members."""
    fields = read_fields(cls, "union", sys._getframe(1).f_locals)
    for f in fields:
        if f.constexpr:
            raise TypeError(f"union {cls.__name__}: member {f.name!r} cannot be Constexpr")
        if f.default is not MISSING:
            raise TypeError(f"union {cls.__name__}: member {f.name!r} cannot have a default")
    layout = union_layout(f"union {cls.__name__}", [(f.name, f.type) for f in fields])
    ns = class_namespace(cls, fields)
    ns.update(__slots__=(), __dsl_fields__=fields, __dsl_layout__=layout)
    new = type(cls.__name__, (UnionValue,), ns)
    new.__qualname__ = cls.__qualname__
    return new  # type: ignore[return-value]
