"""The element types of the toolkit, each described once.

Every layer reads this table: dsl-parser's ``pl.FP32`` *is* :data:`FP32` (and so is
``dsl_core.Float32.dtype``), the runtime's ABI descriptions and slot plans, the host
adapters and the ``dsl`` command derive from it, and a test pins the C dispatcher's slot
numbering and format characters against it.

Spellings of one dtype: ``name`` is the DSL's (``FP32``, written ``pl.FP32``);
``abi_name`` its spelling in ABI descriptions (numpy's, plus ``bfloat16`` and ``index``);
``numpy_name`` the numpy spelling messages use (``int64`` for INDEX); ``short`` the
``dsl`` command's (``f32``, ``u8``); ``mlir_name`` the MLIR element type (integers are
signless: INT8 and UINT8 are both ``i8``). ``storage`` is the numpy dtype holding the
values in memory (bfloat16 travels as its uint16 bit pattern, index as int64) and
``slot`` the C dispatcher's scalar slot kind for a value passed by value.

Pure data and no imports at module level: ``to_mlir`` loads ``dsl_mlir`` on first use.
"""

from __future__ import annotations

from typing import Any

_FIELDS = ("name", "bits", "kind", "numpy_name", "mlir_name", "abi_name", "short", "storage",
           "slot", "format", "c_type", "ctypes_name")


class DType:
    """One element type: its spellings, width, kind and how it is stored and passed.

    There is one immutable object per dtype (compare with ``is`` or ``==``). Fields:
    ``name`` "FP32"; ``bits`` (BOOL: 1, INDEX: 64); ``kind`` "float" | "int" | "uint" |
    "bool" | "index"; ``numpy_name`` "float32" ("int64" for INDEX); ``mlir_name`` "f32"
    ("i8" for INT8 and UINT8); ``abi_name`` (numpy_name, but "index"); ``short`` "f32";
    ``storage`` the numpy dtype in memory ("uint16" for bfloat16); ``slot`` the C
    dispatcher's scalar slot kind; ``format`` the buffer-protocol character of ``storage``;
    ``c_type`` the C type of docs/abi.md; ``ctypes_name`` the ctypes type of one value.
    (A plain class, not a dataclass: ``import dsl_core`` stays light.)"""

    __slots__ = _FIELDS
    name: str
    bits: int
    kind: str
    numpy_name: str
    mlir_name: str
    abi_name: str
    short: str
    storage: str
    slot: str
    format: str
    c_type: str
    ctypes_name: str

    def __init__(self, *values: object) -> None:
        for field, value in zip(_FIELDS, values, strict=True):
            object.__setattr__(self, field, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{self!r} is immutable")

    def __reduce__(self) -> tuple[object, ...]:
        return (_by_dsl_name, (self.name,))  # unpickles to the same object

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_signed(self) -> bool:
        """True for floats, signed integers and INDEX; False for UINTn and BOOL."""
        return self.kind in ("float", "int", "index")

    @property
    def is_integer(self) -> bool:
        """Integers of any signedness, INDEX and BOOL (everything arith treats as iN)."""
        return self.kind != "float"

    @property
    def itemsize(self) -> int:
        """Bytes per element in memory (BOOL is one byte)."""
        return 8 if self.kind == "index" else max(1, self.bits // 8)

    @property
    def struct_format(self) -> str:
        """The ``struct`` module's character for one value in standard sizes ("<q" for
        64-bit integers, whose buffer format is the native "l")."""
        return {"l": "q", "L": "Q"}.get(self.format, self.format)

    def to_mlir(self, ctx: Any = None) -> Any:
        """The MLIR element type (unsigned dtypes map to signless integers); loads
        ``dsl_mlir`` on first use."""
        from . import _ir

        return _ir.element_type(self.mlir_name, ctx)

    def __repr__(self) -> str:
        return f"pl.{self.name}"


def _int(bits: int, unsigned: bool, fmt: str) -> DType:
    u = "u" if unsigned else ""
    prefix = "uint" if unsigned else "int"
    return DType(f"{u.upper()}INT{bits}", bits, "uint" if unsigned else "int", f"{prefix}{bits}",
                 f"i{bits}", f"{prefix}{bits}", f"{u or 'i'}{bits}", f"{prefix}{bits}",
                 f"{u or 'i'}{bits}", fmt, f"{prefix}{bits}_t", f"c_{prefix}{bits}")


FP64 = DType("FP64", 64, "float", "float64", "f64", "float64", "f64", "float64", "f64", "d",
             "double", "c_double")
FP32 = DType("FP32", 32, "float", "float32", "f32", "float32", "f32", "float32", "f32", "f",
             "float", "c_float")
FP16 = DType("FP16", 16, "float", "float16", "f16", "float16", "f16", "float16", "f16", "e",
             "uint16_t /* binary16 bits */", "c_uint16")
BF16 = DType("BF16", 16, "float", "bfloat16", "bf16", "bfloat16", "bf16", "uint16", "bf16", "H",
             "uint16_t /* bfloat16 bits */", "c_uint16")
INT64, INT32, INT16, INT8 = (_int(64, False, "l"), _int(32, False, "i"), _int(16, False, "h"),
                             _int(8, False, "b"))
UINT64, UINT32, UINT16, UINT8 = (_int(64, True, "L"), _int(32, True, "I"), _int(16, True, "H"),
                                 _int(8, True, "B"))
BOOL = DType("BOOL", 1, "bool", "bool", "i1", "bool", "bool", "bool", "bool", "?", "bool",
             "c_bool")
INDEX = DType("INDEX", 64, "index", "int64", "index", "index", "index", "int64", "i64", "l",
              "int64_t", "c_int64")

#: Every dtype, floats first (widest first), then signed and unsigned integers, BOOL, INDEX.
ALL: tuple[DType, ...] = (FP64, FP32, FP16, BF16, INT64, INT32, INT16, INT8,
                          UINT64, UINT32, UINT16, UINT8, BOOL, INDEX)

#: DSL name -> dtype ("FP32" -> FP32).
BY_DSL_NAME: dict[str, DType] = {d.name: d for d in ALL}
_BY_NAME = {d.abi_name: d for d in ALL}
_BY_SHORT = {d.short: d for d in ALL}


def _by_dsl_name(name: str) -> DType:
    return BY_DSL_NAME[name]


def by_name(name: str) -> DType:
    """The dtype spelled ``name`` in ABI descriptions ("float32", "bfloat16", "index")."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r} (known: {', '.join(_BY_NAME)})") from None


def by_short(short: str) -> DType:
    """The dtype with the short spelling ``short`` ("f32", "bf16", "u8", "index")."""
    try:
        return _BY_SHORT[short]
    except KeyError:
        raise KeyError(f"unknown dtype {short!r} (known: {', '.join(_BY_SHORT)})") from None


def lookup(name: str) -> DType | None:
    """``by_name``, ``by_short`` or the DSL name; None when none knows ``name``."""
    return _BY_NAME.get(name) or _BY_SHORT.get(name) or BY_DSL_NAME.get(name)


__all__ = ["ALL", "BF16", "BOOL", "BY_DSL_NAME", "FP16", "FP32", "FP64", "INDEX", "INT8",
           "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "DType",
           "by_name", "by_short", "lookup"]
