"""``Pointer`` and traced ``Tensor``: DslType only; ``Pointer[E, AS]`` is also Storable.

A traced pointer wraps an ``!llvm.ptr`` (``!llvm.ptr<AS>``) value; its pointee type is DSL
metadata carried by the type or the exemplar. ``Pointer[E]`` / ``Pointer[E, AS]`` can also
hold a host address (an int) and is stored as 8 bytes, aligned 8. A traced ``Tensor`` wraps
one memref/tensor value; its DSL dtype and shape come from the exemplar or the MLIR type.
"""

from __future__ import annotations

import struct
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

from . import _ir, _numbers
from ._util import type_name
from .codec import BytesStorable
from .signatures import type_signature
from .vectors import dsl_scalar_for

_POINTERS: dict[tuple[Any, int], type] = {}
_U64 = struct.Struct("<Q")


class Pointer:
    """A pointer value: ``Pointer[Float32](address)`` on the host, traced via from_ir_value."""

    __slots__ = ("_v", "address_space", "element")
    pointee: ClassVar[Any] = None
    space: ClassVar[int] = 0
    _v: Any
    element: Any
    address_space: int

    def __class_getitem__(cls, params: Any) -> Any:
        if cls.pointee is not None:
            raise TypeError(f"{cls.__name__} is already specialized")
        pointee, space = params if isinstance(params, tuple) else (params, 0)
        if not isinstance(pointee, type):
            raise TypeError(f"Pointer[{pointee!r}]: the pointee must be a DSL type")
        if type(space) is not int or space < 0:
            raise ValueError(f"Pointer[{type_name(pointee)}, {space!r}]: address space must "
                             "be an int >= 0")
        found = _POINTERS.get((pointee, space))
        if found is None:
            found = _POINTERS[(pointee, space)] = _make_pointer(pointee, space)
        return found

    def __init__(self, address: Any) -> None:
        cls = type(self)
        if cls.pointee is None:
            raise TypeError("Pointer host values need a specialized type: Pointer[E] or "
                            "Pointer[E, address_space]")
        v = address.address if isinstance(address, Pointer) else address
        self._set(_numbers.to_int(cls.__name__, v, 0, (1 << 64) - 1), cls.pointee, cls.space)

    def _set(self, v: Any, element: Any, space: int) -> None:
        self._v, self.element, self.address_space = v, element, space

    @classmethod
    def from_ir_value(cls, value: Any, element: Any = None) -> Any:
        _ir.check_value(cls.__name__, value, None)
        space = _ir.pointer_address_space(value.type)
        if space is None or (cls.pointee is not None and space != cls.space):
            want = "!llvm.ptr" if cls.pointee is None else str(_ptr_type(cls.space))
            raise TypeError(f"{cls.__name__}: expected an ir.Value of type {want}, "
                            f"got {value.type}")
        obj = object.__new__(cls)
        obj._set(value, element or cls.pointee, space)
        return obj

    @property
    def is_traced(self) -> bool:
        return not isinstance(self._v, int)

    @property
    def address(self) -> int:
        if self.is_traced:
            raise TypeError(f"{type(self).__name__} is traced (an ir.Value): no host address")
        return int(self._v)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pointer):
            return NotImplemented
        return type(self) is type(other) and self._v == other._v

    def __hash__(self) -> int:
        return hash((type(self), self._v))

    def __repr__(self) -> str:
        v = f"{self._v:#x}" if isinstance(self._v, int) else repr(self._v)
        return f"{type(self).__name__}({v})"

    def __extract_to_ir_values__(self) -> list[Any]:
        if not self.is_traced:
            raise TypeError(f"extract_to_ir_values: a host {type(self).__name__} has no "
                            "ir.Value")
        return [self._v]

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Any:
        if len(values) != 1:
            raise TypeError(f"construct_from_ir_values: {cls.__name__} expects 1 ir.Values, "
                            f"got {len(values)}")
        return cls.from_ir_value(values[0], getattr(exemplar, "element", None))

    @classmethod
    def __dsl_ir_arity__(cls, exemplar: Any = None) -> int:
        return 1

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        if cls.pointee is None:
            return ("Pointer",)
        return ("Pointer", type_signature(cls.pointee), cls.space)

    @classmethod
    def _dsl_coerce_(cls, value: Any) -> Any:
        return value if type(value) is cls else cls(value)


def _ptr_type(space: int) -> Any:
    return _ir.parse_type("!llvm.ptr" if space == 0 else f"!llvm.ptr<{space}>")


class PointerStorable(BytesStorable):
    """A host pointer in memory: a 64-bit address."""

    __slots__ = ()

    @classmethod
    def __dsl_size_of__(cls) -> int:
        return 8

    @classmethod
    def __dsl_align_of__(cls) -> int:
        return 8

    @classmethod
    def _pack_into_(cls, buf: bytearray, offset: int, value: Any) -> None:
        _U64.pack_into(buf, offset, cls._dsl_coerce_(value).address)  # type: ignore[attr-defined]

    @classmethod
    def _unpack_from_(cls, buf: bytes | bytearray, offset: int) -> Any:
        ctor: Any = cls
        return ctor(_U64.unpack_from(buf, offset)[0])


def _make_pointer(pointee: type, space: int) -> type:
    name = f"Pointer[{type_name(pointee)}]" if space == 0 else \
        f"Pointer[{type_name(pointee)}, {space}]"
    ns = {"__slots__": (), "pointee": pointee, "space": space, "__module__": "dsl_core",
          "__qualname__": name, "__dsl_static_signature__": True,
          "__dsl_unsupported__": {"JitArgument": f"{name} is not JitArgument"}}
    return type(name, (Pointer, PointerStorable), ns)


class Tensor:
    """A traced tensor (memref/tensor SSA value): DslType only."""

    __slots__ = ("_v", "dtype", "shape")
    _v: Any
    dtype: Any
    shape: tuple[int | None, ...]

    def __init__(self, value: Any, dtype: Any = None, shape: Sequence[int | None] | None = None):
        _ir.check_value("Tensor", value, None)
        info = _ir.shaped_info(value.type)
        if info is None or str(value.type).startswith("vector<"):
            raise TypeError(f"Tensor: expected a memref or tensor ir.Value, got {value.type}")
        self._v = value
        self.dtype = dtype or dsl_scalar_for(info[0])
        self.shape = tuple(shape) if shape is not None else info[1]

    def __repr__(self) -> str:
        return f"Tensor({type_name(self.dtype)}, shape={self.shape})"

    def __extract_to_ir_values__(self) -> list[Any]:
        return [self._v]

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Any:
        if len(values) != 1:
            raise TypeError(f"construct_from_ir_values: Tensor expects 1 ir.Values, "
                            f"got {len(values)}")
        return cls(values[0], getattr(exemplar, "dtype", None), getattr(exemplar, "shape", None))

    @classmethod
    def __dsl_ir_arity__(cls, exemplar: Any = None) -> int:
        return 1

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        return ("Tensor",)
