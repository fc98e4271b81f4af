"""The element types of the toolkit, each described once.

Every layer that needs to know how an element type is spelled, stored or passed reads
this table: the runtime's ABI descriptions and slot plans, the host adapters, the
``dsl`` command. A dtype's ``name`` is its spelling in ABI descriptions (numpy's, plus
``bfloat16`` and ``index``); ``storage`` is the numpy dtype holding its values in memory
(bfloat16 travels as its uint16 bit pattern, index as int64); ``slot`` is the C
dispatcher's scalar slot kind for a value passed by value. Pure data: no numpy, no MLIR.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DTypeInfo:
    """One element type: names, width, kind and how it is stored and passed."""

    name: str      # ABI spelling: "float32", "bfloat16", "uint8", "bool", "index"
    short: str     # "f32", "bf16", "u8", "bool", "index"
    kind: str      # "float" | "int" | "uint" | "bool" | "index"
    bits: int      # value bits (bool: 1; index: 64)
    mlir: str      # MLIR element type ("i8" for INT8 and UINT8: integers are signless)
    storage: str   # numpy dtype of the values in memory
    slot: str      # scalar slot kind of the C dispatcher
    format: str    # buffer-protocol format character of ``storage``
    c_type: str    # C type in docs/abi.md

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def itemsize(self) -> int:
        """Bytes per element in memory (bool is one byte)."""
        return 8 if self.kind == "index" else max(1, self.bits // 8)


def _int(bits: int, unsigned: bool, fmt: str) -> DTypeInfo:
    u = "u" if unsigned else ""
    prefix = "uint" if unsigned else "int"
    return DTypeInfo(f"{prefix}{bits}", f"{u or 'i'}{bits}", "uint" if unsigned else "int", bits,
                     f"i{bits}", f"{prefix}{bits}", f"{u or 'i'}{bits}", fmt,
                     f"{prefix}{bits}_t")


#: Every dtype, floats first (widest first), then signed and unsigned integers, bool, index.
ALL: tuple[DTypeInfo, ...] = (
    DTypeInfo("float64", "f64", "float", 64, "f64", "float64", "f64", "d", "double"),
    DTypeInfo("float32", "f32", "float", 32, "f32", "float32", "f32", "f", "float"),
    DTypeInfo("float16", "f16", "float", 16, "f16", "float16", "f16", "e",
              "uint16_t /* binary16 bits */"),
    DTypeInfo("bfloat16", "bf16", "float", 16, "bf16", "uint16", "bf16", "H",
              "uint16_t /* bfloat16 bits */"),
    _int(64, False, "l"), _int(32, False, "i"), _int(16, False, "h"), _int(8, False, "b"),
    _int(64, True, "L"), _int(32, True, "I"), _int(16, True, "H"), _int(8, True, "B"),
    DTypeInfo("bool", "bool", "bool", 1, "i1", "bool", "bool", "?", "bool"),
    DTypeInfo("index", "index", "index", 64, "index", "int64", "i64", "l", "int64_t"),
)

_BY_NAME = {d.name: d for d in ALL}
_BY_SHORT = {d.short: d for d in ALL}


def by_name(name: str) -> DTypeInfo:
    """The dtype spelled ``name`` in ABI descriptions ("float32", "bfloat16", "index")."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r} (known: {', '.join(_BY_NAME)})") from None


def by_short(short: str) -> DTypeInfo:
    """The dtype with the short spelling ``short`` ("f32", "bf16", "u8", "index")."""
    try:
        return _BY_SHORT[short]
    except KeyError:
        raise KeyError(f"unknown dtype {short!r} (known: {', '.join(_BY_SHORT)})") from None


def lookup(name: str) -> DTypeInfo | None:
    """``by_name`` or ``by_short``, None when neither knows ``name``."""
    return _BY_NAME.get(name) or _BY_SHORT.get(name)


__all__ = ["ALL", "DTypeInfo", "by_name", "by_short", "lookup"]
