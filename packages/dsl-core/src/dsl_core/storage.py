"""Typed memory: ``Storage[T]`` and allocators, on real memory through peek/poke.

An allocator hands out aligned addresses: ``alloc(size, align) -> int``. ``HeapAllocator``
owns one ctypes buffer per allocation; ``Arena`` is a bump allocator over one buffer (its
own, or any writable buffer such as a numpy array) and is reset as a whole.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from ._memory import address_of, buffer, read
from ._util import align_up, is_pow2, type_name
from .dispatch import dsl_align_of, dsl_size_of, peek_from_ptr, poke_into_ptr
from .layout import layout_of

_STORAGES: dict[type, type] = {}


class Allocator(Protocol):
    def alloc(self, size: int, align: int) -> int: ...


def _check_request(owner: str, size: int, align: int) -> None:
    if type(size) is not int or size < 0:
        raise ValueError(f"{owner}.alloc: size must be an int >= 0, got {size!r}")
    if type(align) is not int or not is_pow2(align):
        raise ValueError(f"{owner}.alloc: alignment must be a power of two, got {align!r}")


class HeapAllocator:
    """Each allocation is its own buffer, kept alive as long as the allocator."""

    def __init__(self) -> None:
        self._buffers: list[Any] = []

    def alloc(self, size: int, align: int) -> int:
        _check_request("HeapAllocator", size, align)
        buf = buffer(size + align - 1)
        self._buffers.append(buf)
        return align_up(address_of(buf), align)


class Arena:
    """Bump allocator: ``Arena(capacity)`` owns its memory; ``Arena.over(buf)`` borrows."""

    def __init__(self, capacity: int, *, _backing: Any = None) -> None:
        if type(capacity) is not int or capacity <= 0:
            raise ValueError(f"Arena: capacity must be an int > 0, got {capacity!r}")
        self._backing = _backing if _backing is not None else buffer(capacity)
        self.base = address_of(self._backing)
        self.capacity = capacity
        self.used = 0

    @classmethod
    def over(cls, backing: Any) -> Arena:
        """An arena over a writable buffer (numpy array, bytearray, ctypes array)."""
        size = getattr(backing, "nbytes", None)
        if size is None:
            size = len(memoryview(backing).cast("B"))
        return cls(int(size), _backing=backing)

    def alloc(self, size: int, align: int) -> int:
        _check_request("Arena", size, align)
        start = align_up(self.base + self.used, align) - self.base
        if start + size > self.capacity:
            raise MemoryError(f"Arena: out of memory: {size} bytes aligned {align} requested, "
                              f"{self.used} of {self.capacity} bytes used")
        self.used = start + size
        return self.base + start

    def reset(self) -> None:
        """Free every allocation at once (addresses handed out become invalid)."""
        self.used = 0


_DEFAULT = HeapAllocator()


class Storage:
    """``Storage[T](allocator=None, *, ptr=None, value=None)``: one ``T`` in memory."""

    __slots__ = ("_owner", "ptr")
    type: ClassVar[Any] = None

    def __class_getitem__(cls, t: Any) -> Any:
        found = _STORAGES.get(t)
        if found is None:
            size = dsl_size_of(t)  # validates that t is Storable
            name = f"Storage[{type_name(t)}]"
            ns = {"__slots__": (), "type": t, "size": size, "align": dsl_align_of(t),
                  "__qualname__": name}
            found = _STORAGES[t] = type(name, (Storage,), ns)
        return found

    def __init__(self, allocator: Allocator | None = None, *, ptr: Any = None,
                 value: Any = None) -> None:
        cls = type(self)
        if cls.type is None:
            raise TypeError("Storage needs a type: Storage[T]")
        self._owner = allocator or _DEFAULT
        if ptr is None:
            ptr = self._owner.alloc(cls.size, cls.align)  # type: ignore[attr-defined]
        self.ptr = address_of(ptr)
        if self.ptr % cls.align:  # type: ignore[attr-defined]
            raise ValueError(f"{cls.__name__}: address {self.ptr:#x} is not aligned to "
                             f"{cls.align}")  # type: ignore[attr-defined]
        if value is not None:
            self.store(value)

    def load(self) -> Any:
        """Read the ``T`` currently in memory."""
        return peek_from_ptr(type(self).type, self.ptr)

    def store(self, value: Any) -> None:
        """Write ``value`` as a ``T``."""
        poke_into_ptr(type(self).type, self.ptr, value)

    def raw(self) -> bytes:
        """A copy of the bytes of this storage."""
        return read(self.ptr, type(self).size)  # type: ignore[attr-defined]

    def field(self, name: str) -> Any:
        """Storage of field ``name`` of a struct/union ``T`` (shares the memory)."""
        entry = layout_of(type(self).type).field(type_name(type(self).type), name)
        return _storage_of(entry.type)(self._owner, ptr=self.ptr + entry.offset)

    def __getitem__(self, i: int) -> Any:
        """Storage of element ``i`` of an ``Array`` type."""
        t = type(self).type
        length = getattr(t, "length", None)
        if getattr(t, "element", None) is None or length is None:
            raise TypeError(f"{type(self).__name__}: only Array storages can be indexed")
        if not 0 <= i < length:
            raise IndexError(f"{type(self).__name__}: index {i} out of range [0, {length})")
        stride = dsl_size_of(t.element)
        return _storage_of(t.element)(self._owner, ptr=self.ptr + i * stride)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(ptr={self.ptr:#x})"


def _storage_of(t: Any) -> Any:
    return Storage.__class_getitem__(t)
