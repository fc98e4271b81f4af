"""Byte codecs: pack a typed value into a byte buffer and unpack it back.

Our Storable types implement ``_pack_into_(buf, offset, value)`` and
``_unpack_from_(buf, offset)``; composites call them per field. A foreign Storable type (one
that only has the four protocol hooks) goes through a scratch ctypes buffer and its hooks.
:class:`BytesStorable` derives the protocol's peek/poke hooks from the codec.
"""

from __future__ import annotations

from typing import Any

from ._memory import address_of, buffer, check_address, read, write
from ._util import type_name


def pack_into(t: Any, buf: bytearray, offset: int, value: Any) -> None:
    """Write ``value`` as a ``t`` into ``buf`` at ``offset``."""
    own = getattr(t, "_pack_into_", None)
    if own is not None:
        own(buf, offset, value)
        return
    size = t.__dsl_size_of__()
    scratch = buffer(size)
    t.__poke_into_ptr__(address_of(scratch), value)
    buf[offset:offset + size] = bytes(scratch)[:size]


def unpack_from(t: Any, buf: bytes | bytearray, offset: int) -> Any:
    """Read a ``t`` from ``buf`` at ``offset``."""
    own = getattr(t, "_unpack_from_", None)
    if own is not None:
        return own(buf, offset)
    size = t.__dsl_size_of__()
    scratch = buffer(size)
    scratch[:size] = bytes(buf[offset:offset + size])
    return t.__peek_from_ptr__(address_of(scratch))


class BytesStorable:
    """Storable hooks built on ``__dsl_size_of__`` and the codec methods."""

    __slots__ = ()

    @classmethod
    def __peek_from_ptr__(cls, ptr: int) -> Any:
        addr = check_address(f"peek_from_ptr({type_name(cls)})", ptr)
        return unpack_from(cls, read(addr, cls.__dsl_size_of__()), 0)  # type: ignore[attr-defined]

    @classmethod
    def __poke_into_ptr__(cls, ptr: int, value: Any) -> None:
        addr = check_address(f"poke_into_ptr({type_name(cls)})", ptr)
        buf = bytearray(cls.__dsl_size_of__())  # type: ignore[attr-defined]
        pack_into(cls, buf, 0, value)
        write(addr, buf)
