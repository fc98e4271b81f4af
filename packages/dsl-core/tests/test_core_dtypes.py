"""dsl-core's dtype table: every element type once, consistent with itself and with the
scalar types."""

from __future__ import annotations

import struct

import pytest

import dsl_core as dc
from dsl_core import dtypes


def test_every_dtype_once() -> None:
    assert len({d.name for d in dtypes.ALL}) == len(dtypes.ALL) == 14
    assert len({d.short for d in dtypes.ALL}) == len(dtypes.ALL)
    assert {d.kind for d in dtypes.ALL} == {"float", "int", "uint", "bool", "index"}


@pytest.mark.parametrize("d", dtypes.ALL, ids=[d.name for d in dtypes.ALL])
def test_storage_format_and_width_agree(d: dtypes.DTypeInfo) -> None:
    assert struct.calcsize(d.format) == d.itemsize  # native sizes, as numpy's buffers give
    if d.kind not in ("bool", "index"):
        assert d.itemsize * 8 == d.bits
    if d.kind in ("int", "uint"):
        assert d.mlir == f"i{d.bits}" and d.storage == d.name  # signless in MLIR
    assert dtypes.by_name(d.name) is d and dtypes.by_short(d.short) is d
    assert dtypes.lookup(d.name) is d and dtypes.lookup(d.short) is d


def test_bfloat16_travels_as_its_uint16_bits() -> None:
    bf16 = dtypes.by_name("bfloat16")
    assert (bf16.storage, bf16.format, bf16.mlir, bf16.slot) == ("uint16", "H", "bf16", "bf16")
    index = dtypes.by_short("index")
    assert (index.storage, index.slot, index.c_type) == ("int64", "i64", "int64_t")


def test_unknown_names() -> None:
    assert dtypes.lookup("complex64") is None
    with pytest.raises(KeyError, match="unknown dtype 'complex64'"):
        dtypes.by_name("complex64")
    with pytest.raises(KeyError, match="unknown dtype 'c64'"):
        dtypes.by_short("c64")


@pytest.mark.parametrize("scalar", [dc.Float64, dc.Float32, dc.Float16, dc.BFloat16, dc.Int64,
                                    dc.Int32, dc.Int16, dc.Int8, dc.UInt64, dc.UInt32, dc.UInt16,
                                    dc.UInt8, dc.Boolean])
def test_the_scalar_types_agree_with_the_table(scalar: type[dc.Numeric]) -> None:
    # (the scalar types still keep their own kind/fmt: issue 13 makes them read the table;
    # their kind is the MLIR type, signless for UIntN)
    d = dtypes.by_short("bool" if scalar.kind == "i1" else scalar.kind)
    assert struct.calcsize("<" + scalar.fmt) == d.itemsize
    assert d.mlir == scalar.kind or (scalar.kind == "i1" and d.mlir == "i1")
