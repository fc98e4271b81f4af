"""``Align[T, A]``: a layout annotation placing ``T`` at an ``A``-aligned address.

Like C ``_Alignas(A) T``: the same size as ``T``, alignment ``A`` (a power of two, at least
``T``'s natural alignment). Values of an ``Align[T, A]`` field are ``T`` values. Interned.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar

from ._util import is_pow2, type_name
from .capabilities import why_not
from .codec import BytesStorable, pack_into, unpack_from
from .dispatch import coerce_to
from .signatures import type_signature

_ALIGNS: dict[tuple[type, int], type] = {}


class Align:
    """``Align[T, A]``: ``T`` aligned to ``A`` bytes (a layout annotation for fields)."""

    __slots__ = ()
    target: ClassVar[Any] = None
    alignment: ClassVar[int] = 0

    def __class_getitem__(cls, params: Any) -> Any:
        if not (isinstance(params, tuple) and len(params) == 2):
            raise TypeError(f"Align[T, A] takes a type and an alignment, got {params!r}")
        target, alignment = params
        found = _ALIGNS.get((target, alignment))
        if found is None:
            found = _ALIGNS[(target, alignment)] = _make_align(target, alignment)
        return found

    def __new__(cls, value: Any) -> Any:
        if cls.target is None:
            raise TypeError("Align needs a type and an alignment: Align[T, A]")
        return coerce_to(cls.target, value)


def _make_align(target: Any, alignment: Any) -> type:
    name = f"Align[{type_name(target)}, {alignment!r}]"
    if not isinstance(target, type):
        raise TypeError(f"{name}: T must be a DSL type")
    reason = why_not(target, "Storable")
    if reason is not None:
        raise TypeError(f"{name}: {reason}")
    if type(alignment) is not int or not is_pow2(alignment):
        raise ValueError(f"{name}: alignment must be a power of two")
    natural = target.__dsl_align_of__()  # type: ignore[attr-defined]
    if alignment < natural:
        raise ValueError(f"{name}: alignment {alignment} is less than {type_name(target)}'s "
                         f"natural alignment {natural}")
    ns = {"__slots__": (), "target": target, "alignment": alignment, "__module__": "dsl_core",
          "__qualname__": name, "__dsl_value_type__": target}
    return type(name, (Align, AlignStorable), ns)


class AlignStorable(BytesStorable):
    """Storable hooks of ``Align[T, A]``: ``T``'s bytes, alignment ``A``."""

    __slots__ = ()

    @classmethod
    def __dsl_size_of__(cls) -> int:
        return int(cls.target.__dsl_size_of__())  # type: ignore[attr-defined]

    @classmethod
    def __dsl_align_of__(cls) -> int:
        return int(cls.alignment)  # type: ignore[attr-defined]

    @classmethod
    def _pack_into_(cls, buf: bytearray, offset: int, value: Any) -> None:
        pack_into(cls.target, buf, offset, value)  # type: ignore[attr-defined]

    @classmethod
    def _unpack_from_(cls, buf: bytes | bytearray, offset: int) -> Any:
        return unpack_from(cls.target, buf, offset)  # type: ignore[attr-defined]

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        return ("Align", type_signature(cls.target), cls.alignment)  # type: ignore[attr-defined]

    __dsl_static_signature__ = True
