"""Scalar ``Numeric`` DSL types: all three protocols (seeds/000 support table).

A scalar holds either a host value (a Python ``int``/``float``/``bool``, range-checked and
rounded to the type's precision) or, while tracing, an ``ir.Value`` of the matching MLIR type.
Signed and unsigned integers are both signless ``iN`` in MLIR; ``Boolean`` is ``i1`` and is
stored as one byte (0 or 1, like C ``_Bool``).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from . import _ir, _numbers, dtypes
from ._memory import check_address, read, write
from .dtypes import DType
from .protocols import AbiEntry


class Numeric:
    """Base of the scalar DSL types. Build with ``Int32(5)`` or ``Int32.from_ir_value(v)``.

    A concrete type names its element type in :mod:`dsl_core.dtypes` (``Float32.dtype is
    dtypes.FP32``, the object dsl-parser calls ``pl.FP32``); its MLIR kind, ``struct``
    format and ctypes type are read from there."""

    __slots__ = ("_v",)
    dtype: ClassVar[DType]
    kind: ClassVar[str] = ""
    fmt: ClassVar[str] = ""
    ctype_name: ClassVar[str] = ""
    _codec: ClassVar[struct.Struct]
    _v: Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dtype = cls.__dict__.get("dtype")
        if dtype is not None:
            cls.kind, cls.fmt, cls.ctype_name = dtype.mlir_name, dtype.struct_format, \
                dtype.ctypes_name
            cls._codec = struct.Struct("<" + cls.fmt)

    def __init__(self, value: Any) -> None:
        self._v = self._coerce(value)

    if TYPE_CHECKING:
        def __set__(self, instance: object, value: Numeric | int | float, /) -> None:
            """For type checkers only: a ``@struct`` field of a scalar type is set from a
            scalar or a Python number (the dataclass constructor they synthesize takes it)."""

    # -- construction -------------------------------------------------------------------
    @classmethod
    def _from_python(cls, x: Any) -> Any:
        raise TypeError(f"{cls.__name__} is abstract; use a concrete scalar type")

    @classmethod
    def _coerce(cls, x: Any) -> Any:
        """Validated host value (or ir.Value) of ``x`` for this type."""
        if x.__class__ is cls:
            return x._v
        if x.__class__ is float or x.__class__ is int:  # the common case, checked first
            return cls._from_python(x)
        if isinstance(x, Numeric):
            if x.is_traced:
                raise TypeError(
                    f"{cls.__name__}: cannot convert a traced {type(x).__name__} on the host"
                )
            return cls._from_python(x._v)
        if _ir.is_value(x):
            _ir.check_value(cls.__name__, x, cls.ir_type())
            return x
        return cls._from_python(x)

    @classmethod
    def _trusted(cls, v: Any) -> Any:
        obj = object.__new__(cls)
        obj._v = v
        return obj

    @classmethod
    def from_ir_value(cls, value: Any) -> Any:
        """Wrap an ``ir.Value`` of this scalar's MLIR type (used while tracing)."""
        _ir.check_value(cls.__name__, value, cls.ir_type())
        return cls._trusted(value)

    # -- Python value ---------------------------------------------------------------------
    @property
    def is_traced(self) -> bool:
        """True when this value is an ``ir.Value`` rather than a host number."""
        return not isinstance(self._v, (int, float))

    @property
    def value(self) -> Any:
        """The host Python value; a TypeError for a traced value."""
        if self.is_traced:
            raise TypeError(f"{type(self).__name__} is traced (an ir.Value): no host value")
        return self._v

    @property
    def ir_value(self) -> Any:
        if not self.is_traced:
            raise TypeError(f"{type(self).__name__}({self._v!r}) is a host value, not traced")
        return self._v

    def __repr__(self) -> str:
        if self.is_traced:
            return f"{type(self).__name__}(<traced {self.kind}>)"
        return f"{type(self).__name__}({self._v!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Numeric):
            return type(other) is type(self) and bool(other._v == self._v)
        if isinstance(other, (int, float)) and not self.is_traced:
            return bool(self._v == other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._v)

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    # -- JitArgument ----------------------------------------------------------------------
    @classmethod
    def ir_type(cls) -> Any:
        """This scalar's MLIR type (needs dsl_mlir and an active context)."""
        return cls.dtype.to_mlir()

    @classmethod
    def __get_ir_types__(cls) -> list[Any]:
        return [cls.ir_type()]

    @classmethod
    def __cache_signature__(cls) -> str:
        return cls.__name__

    @classmethod
    def __c_abi_spec__(cls) -> list[AbiEntry]:
        from .abi import abi_spec_of_type

        return abi_spec_of_type(cls)

    # -- DslType --------------------------------------------------------------------------
    def _attribute_text(self) -> str:
        raise NotImplementedError

    def __extract_to_ir_values__(self) -> list[Any]:
        if self.is_traced:
            return [self._v]
        return [_ir.constant(self.ir_type(), self._attribute_text())]

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Any:
        _ir.check_values(cls.__name__, values, [cls.ir_type()])
        return cls._trusted(values[0])

    # -- Storable -------------------------------------------------------------------------
    __dsl_static_signature__ = True

    @classmethod
    def __dsl_type_signature__(cls) -> str:
        return cls.__name__

    @classmethod
    def __dsl_ir_arity__(cls, exemplar: Any = None) -> int:
        return 1

    @classmethod
    def _dsl_coerce_(cls, value: Any) -> Any:
        if value.__class__ is cls:
            return value
        obj = object.__new__(cls)  # as cls(value), without the call through __init__
        obj._v = cls._coerce(value)
        return obj

    @classmethod
    def __dsl_size_of__(cls) -> int:
        return cls._codec.size

    @classmethod
    def __dsl_align_of__(cls) -> int:
        return cls._codec.size

    @classmethod
    def _to_raw(cls, v: Any) -> Any:
        return v

    @classmethod
    def _from_raw(cls, raw: Any) -> Any:
        return raw

    @classmethod
    def _pack_into_(cls, buf: bytearray, offset: int, value: Any) -> None:
        v = cls._coerce(value)
        if not isinstance(v, (int, float)):
            raise TypeError(f"poke_into_ptr: {cls.__name__} is traced (an ir.Value)")
        cls._codec.pack_into(buf, offset, cls._to_raw(v))

    @classmethod
    def _unpack_from_(cls, buf: bytes, offset: int) -> Any:
        return cls._trusted(cls._from_raw(cls._codec.unpack_from(buf, offset)[0]))

    @classmethod
    def __peek_from_ptr__(cls, ptr: int) -> Any:
        addr = check_address(f"peek_from_ptr({cls.__name__})", ptr)
        return cls._unpack_from_(read(addr, cls._codec.size), 0)

    @classmethod
    def __poke_into_ptr__(cls, ptr: int, value: Any) -> None:
        addr = check_address(f"poke_into_ptr({cls.__name__})", ptr)
        buf = bytearray(cls._codec.size)
        cls._pack_into_(buf, 0, value)
        write(addr, buf)


class Integer(Numeric):
    """Fixed-width integers; out-of-range values raise ValueError."""

    __slots__ = ()
    bits: ClassVar[int] = 0
    signed: ClassVar[bool] = True
    lo: ClassVar[int] = 0
    hi: ClassVar[int] = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dtype = cls.__dict__.get("dtype")
        if dtype is not None:
            cls.bits, cls.signed = dtype.bits, dtype.kind == "int"
            cls.lo = -(1 << (cls.bits - 1)) if cls.signed else 0
            cls.hi = (1 << (cls.bits - 1)) - 1 if cls.signed else (1 << cls.bits) - 1

    @classmethod
    def _from_python(cls, x: Any) -> Any:
        if not cls.bits:
            return super()._from_python(x)
        return _numbers.to_int(cls.__name__, x, cls.lo, cls.hi)

    def __index__(self) -> int:
        return int(self.value)

    def _attribute_text(self) -> str:
        v = int(self._v)
        if v > (1 << (self.bits - 1)) - 1:
            v -= 1 << self.bits
        return f"{v} : {self.kind}"


class Int8(Integer):
    __slots__ = ()
    dtype = dtypes.INT8


class Int16(Integer):
    __slots__ = ()
    dtype = dtypes.INT16


class Int32(Integer):
    __slots__ = ()
    dtype = dtypes.INT32


class Int64(Integer):
    __slots__ = ()
    dtype = dtypes.INT64


class UInt8(Integer):
    __slots__ = ()
    dtype = dtypes.UINT8


class UInt16(Integer):
    __slots__ = ()
    dtype = dtypes.UINT16


class UInt32(Integer):
    __slots__ = ()
    dtype = dtypes.UINT32


class UInt64(Integer):
    __slots__ = ()
    dtype = dtypes.UINT64


class Float(Numeric):
    """IEEE floats; values are rounded to the type's precision, overflow raises ValueError."""

    __slots__ = ()

    @classmethod
    def _round(cls, x: float) -> float:
        return x

    @classmethod
    def _from_python(cls, x: Any) -> Any:
        if not cls.kind:
            return super()._from_python(x)
        return cls._round(x if x.__class__ is float else _numbers.to_float(cls.__name__, x))

    def _attribute_text(self) -> str:
        return f"{_numbers.float_hex_bits(self.kind, self._v)} : {self.kind}"


class Float16(Float):
    """IEEE binary16; passed through the C ABI as its uint16 bit pattern."""

    __slots__ = ()
    dtype = dtypes.FP16

    @classmethod
    def _round(cls, x: float) -> float:
        return _numbers.round_f16(cls.__name__, x)


class BFloat16(Float):
    """bfloat16 (float32 rounded to nearest even); stored and passed as uint16 bits."""

    __slots__ = ()
    dtype = dtypes.BF16

    @classmethod
    def _round(cls, x: float) -> float:
        return _numbers.round_bf16(cls.__name__, x)

    @classmethod
    def _to_raw(cls, v: Any) -> Any:
        return _numbers.bf16_bits(cls.__name__, v)

    @classmethod
    def _from_raw(cls, raw: Any) -> Any:
        return _numbers.bf16_from_bits(raw)


class Float32(Float):
    __slots__ = ()
    dtype = dtypes.FP32

    @classmethod
    def _round(cls, x: float) -> float:
        return _numbers.round_f32(cls.__name__, x)


class Float64(Float):
    __slots__ = ()
    dtype = dtypes.FP64


class Boolean(Numeric):
    """``i1`` in MLIR; one byte (0/1) in memory and in the C ABI (``c_bool``)."""

    __slots__ = ()
    dtype = dtypes.BOOL

    @classmethod
    def _from_python(cls, x: Any) -> Any:
        if isinstance(x, bool) or type(x).__name__ in ("bool_", "bool"):
            return bool(x)
        if isinstance(x, int) and x in (0, 1):
            return bool(x)
        raise TypeError(f"Boolean: expected a bool (or 0/1), got {type(x).__name__} {x!r}")

    def _attribute_text(self) -> str:
        return "true" if self._v else "false"


SCALAR_TYPES: tuple[type[Numeric], ...] = (
    Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
    Float16, BFloat16, Float32, Float64, Boolean,
)
