"""dsl-core's dtype table: every element type once, consistent with itself and with the
scalar types (which read it)."""

from __future__ import annotations

import ctypes
import struct

import pytest

import dsl_core as dc
from dsl_core import dtypes

SCALARS = [dc.Float64, dc.Float32, dc.Float16, dc.BFloat16, dc.Int64, dc.Int32, dc.Int16,
           dc.Int8, dc.UInt64, dc.UInt32, dc.UInt16, dc.UInt8, dc.Boolean]


def test_every_dtype_once() -> None:
    for spelling in ("name", "abi_name", "short"):
        assert len({getattr(d, spelling) for d in dtypes.ALL}) == len(dtypes.ALL) == 14
    assert {d.kind for d in dtypes.ALL} == {"float", "int", "uint", "bool", "index"}
    assert dtypes.BY_DSL_NAME["UINT8"] is dtypes.UINT8 and repr(dtypes.UINT8) == "pl.UINT8"


@pytest.mark.parametrize("d", dtypes.ALL, ids=[d.name for d in dtypes.ALL])
def test_storage_format_and_width_agree(d: dtypes.DType) -> None:
    assert struct.calcsize(d.format) == d.itemsize  # native sizes, as numpy's buffers give
    assert struct.calcsize("<" + d.struct_format) == d.itemsize  # standard sizes
    assert ctypes.sizeof(getattr(ctypes, d.ctypes_name)) == d.itemsize
    if d.kind not in ("bool", "index"):
        assert d.itemsize * 8 == d.bits
    if d.kind in ("int", "uint"):
        assert d.mlir_name == f"i{d.bits}" and d.storage == d.abi_name  # signless in MLIR
    assert d.numpy_name == (d.abi_name if d.kind != "index" else "int64")
    assert dtypes.by_name(d.abi_name) is d and dtypes.by_short(d.short) is d
    assert dtypes.lookup(d.abi_name) is d and dtypes.lookup(d.name) is d
    assert d.is_signed == (d.kind in ("float", "int", "index"))


def test_bfloat16_travels_as_its_uint16_bits() -> None:
    bf16 = dtypes.by_name("bfloat16")
    assert bf16 is dtypes.BF16
    assert (bf16.storage, bf16.format, bf16.mlir_name, bf16.slot) == ("uint16", "H", "bf16", "bf16")
    index = dtypes.by_short("index")
    assert (index.storage, index.slot, index.c_type) == ("int64", "i64", "int64_t")


def test_unknown_names() -> None:
    assert dtypes.lookup("complex64") is None
    with pytest.raises(KeyError, match="unknown dtype 'complex64'"):
        dtypes.by_name("complex64")
    with pytest.raises(KeyError, match="unknown dtype 'c64'"):
        dtypes.by_short("c64")


@pytest.mark.parametrize("scalar", SCALARS, ids=[s.__name__ for s in SCALARS])
def test_the_scalar_types_read_the_table(scalar: type[dc.Numeric]) -> None:
    d = scalar.dtype
    assert d in dtypes.ALL
    assert (scalar.kind, scalar.fmt, scalar.ctype_name) == (d.mlir_name, d.struct_format,
                                                           d.ctypes_name)
    assert scalar.__dsl_size_of__() == d.itemsize
    if issubclass(scalar, dc.Integer):
        assert (scalar.bits, scalar.signed) == (d.bits, d.kind == "int")


def test_to_mlir_gives_the_element_type() -> None:
    pytest.importorskip("dsl_mlir")
    from dsl_mlir import ir

    with ir.Context() as ctx:
        got = [str(d.to_mlir(ctx)) for d in dtypes.ALL]
    assert got == [d.mlir_name for d in dtypes.ALL]
