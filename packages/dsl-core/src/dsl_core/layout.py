"""C layout rules (x86-64 System V, as a C compiler lays out the equivalent declaration).

Struct: each field at the next offset aligned to the field's alignment; the size rounded up
to the largest alignment. Union: every member at offset 0; size is the largest member size
rounded up to the largest alignment. Constexpr fields take no storage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ._util import align_up, is_pow2, type_name
from .capabilities import why_not


class FieldLayout(NamedTuple):
    name: str
    type: Any
    offset: int
    size: int
    align: int


class Layout(NamedTuple):
    fields: tuple[FieldLayout, ...]
    size: int
    align: int

    def field(self, owner: str, name: str) -> FieldLayout:
        for f in self.fields:
            if f.name == name:
                return f
        raise ValueError(f"{owner} has no stored field {name!r} (Constexpr fields take no "
                         "storage)")

    def signature(self) -> tuple[int, int, tuple[int, ...]]:
        return (self.size, self.align, tuple(f.offset for f in self.fields))


def size_and_align(owner: str, name: str, t: type) -> tuple[int, int]:
    """Size and alignment of field ``name``'s type, validated; TypeError if not Storable."""
    reason = why_not(t, "Storable")
    if reason is not None:
        raise TypeError(f"{owner} is not Storable: field {name!r} of type {type_name(t)} "
                        "is not Storable")
    size, align = t.__dsl_size_of__(), t.__dsl_align_of__()  # type: ignore[attr-defined]
    if not isinstance(size, int) or size < 0:
        raise ValueError(f"{owner}: field {name!r}: {type_name(t)} has invalid size {size!r}")
    if not isinstance(align, int) or not is_pow2(align):
        raise ValueError(f"{owner}: field {name!r}: {type_name(t)} has invalid alignment "
                         f"{align!r} (must be a power of two)")
    return size, align


def struct_layout(owner: str, members: Sequence[tuple[str, type]]) -> Layout:
    fields: list[FieldLayout] = []
    offset, max_align = 0, 1
    for name, t in members:
        size, align = size_and_align(owner, name, t)
        offset = align_up(offset, align)
        fields.append(FieldLayout(name, t, offset, size, align))
        offset += size
        max_align = max(max_align, align)
    return Layout(tuple(fields), align_up(offset, max_align), max_align)


def union_layout(owner: str, members: Sequence[tuple[str, type]]) -> Layout:
    fields: list[FieldLayout] = []
    max_size, max_align = 0, 1
    for name, t in members:
        size, align = size_and_align(owner, name, t)
        fields.append(FieldLayout(name, t, 0, size, align))
        max_size, max_align = max(max_size, size), max(max_align, align)
    return Layout(tuple(fields), align_up(max_size, max_align), max_align)


def layout_of(t: type) -> Layout:
    """The layout of a ``@struct`` or ``@union`` type."""
    layout: Layout | None = getattr(t, "__dsl_layout__", None)
    if layout is None:
        reason = why_not(t, "Storable") or f"{type_name(t)} is not a struct or union"
        raise TypeError(f"layout_of: {reason}")
    return layout


def offset_of(t: type, field: str) -> int:
    """Byte offset of ``field`` in struct/union ``t``; dotted paths reach nested fields."""
    offset = 0
    for name in field.split("."):
        kind = getattr(t, "__dsl_kind__", "type")
        entry = layout_of(t).field(f"{kind} {type_name(t)}", name)
        offset += entry.offset
        t = getattr(entry.type, "__dsl_value_type__", entry.type)
    return offset
