from __future__ import annotations

import ctypes
import struct
from types import SimpleNamespace

import numpy as np
import pytest

import dsl_core as dc


@dc.struct
class Inner:
    h: dc.Float16
    b: dc.BFloat16


@dc.struct
class Outer:
    flag: dc.Boolean
    n: dc.Constexpr[int] = 2
    inner: Inner
    count: dc.UInt64
    s: dc.Stream


def fill_all(t, value):
    storages = [c() for c in dc.abi_slots(t)]
    dc.compile_fill(t)(value, storages)
    return storages


SCALAR_SLOTS = [
    (dc.Int8, ctypes.c_int8, -5, -5), (dc.UInt16, ctypes.c_uint16, 65535, 65535),
    (dc.Int32, ctypes.c_int32, -(2**31), -(2**31)), (dc.UInt64, ctypes.c_uint64, 2**64 - 1,
                                                      2**64 - 1),
    (dc.Float32, ctypes.c_float, 0.5, 0.5), (dc.Float64, ctypes.c_double, 0.1, 0.1),
    (dc.Boolean, ctypes.c_bool, True, True),
    (dc.Float16, ctypes.c_uint16, 1.0, 0x3C00), (dc.BFloat16, ctypes.c_uint16, -2.0, 0xC000),
]


@pytest.mark.parametrize(("t", "ctype", "value", "slot"), SCALAR_SLOTS)
def test_scalar_slot_types_and_values(t, ctype, value, slot):
    assert dc.abi_slots(t) == [ctype]
    for arg in (value, t(value)):
        [(spec_ctype, fill)] = dc.c_abi_spec(t(value))
        storage = spec_ctype()
        fill(arg, storage)
        assert spec_ctype is ctype and storage.value == slot
        assert fill_all(t, arg)[0].value == slot


def test_half_precision_fills_are_bit_exact():
    for x in (0.1, -65504.0, 6.0e-8, 1.0 / 3):
        assert fill_all(dc.Float16, x)[0].value == int(np.float16(x).view(np.uint16))
    bits = struct.unpack("<I", struct.pack("<f", 1.00390625))[0]
    assert bits >> 16 == 0x3F80 and fill_all(dc.BFloat16, 1.00390625)[0].value == 0x3F80
    assert fill_all(dc.BFloat16, 1.01171875)[0].value == 0x3F82


def test_fill_reads_the_current_argument_not_the_one_at_spec_time():
    [(ctype, fill)] = dc.c_abi_spec(dc.Int32(1))
    storage = ctype()
    for v in (10, 20, dc.Int32(30)):
        fill(v, storage)
        assert storage.value == int(v)


def test_fill_refuses_out_of_range_values_instead_of_truncating():
    storage = ctypes.c_int8()
    [(_, fill)] = dc.c_abi_spec(dc.Int8(0))
    with pytest.raises(ValueError, match="Int8: value 128 is out of range"):
        fill(128, storage)
    [(_, ffill)] = dc.c_abi_spec(dc.Float32(0.0))
    with pytest.raises(ValueError, match=r"Float32: value 1e\+39 is out of range"):
        ffill(1e39, ctypes.c_float())
    with pytest.raises(TypeError, match="Int32: expected an integer, got float"):
        dc.compile_fill(dc.Int32)(1.5, [ctypes.c_int32()])


def test_struct_abi_is_flattened_leaves_in_declaration_order():
    assert dc.abi_slots(Outer) == [ctypes.c_bool, ctypes.c_uint16, ctypes.c_uint16,
                                   ctypes.c_uint64, ctypes.c_void_p]
    value = Outer(flag=True, inner=Inner(1.0, 2.0), count=2**40, s=dc.Stream(0x1000))
    assert [s.value for s in fill_all(Outer, value)] == [True, 0x3C00, 0x4000, 2**40, 0x1000]
    spec = dc.c_abi_spec(value)
    assert [c for c, _ in spec] == dc.abi_slots(Outer)
    other = Outer(flag=False, inner=Inner(-1.0, 0.5), count=3, s=dc.Stream(None))
    storages = [c() for c, _ in spec]
    for (_, fill), st in zip(spec, storages, strict=True):
        fill(other, st)
    assert [s.value for s in storages] == [False, 0xBC00, 0x3F00, 3, None]


def test_struct_fill_accepts_tuples_and_dicts():
    @dc.struct
    class P:
        a: dc.Int32
        b: dc.Float64

    assert [s.value for s in fill_all(P, (3, 0.25))] == [3, 0.25]
    assert [s.value for s in fill_all(P, {"a": -1, "b": 2.0})] == [-1, 2.0]
    with pytest.raises(ValueError, match="struct P: field 'a': Int32: value 4294967296 is out"):
        fill_all(P, (2**32, 0.0))


def test_stream_handles():
    class Owner:
        handle = 0xABC

    class CudaLike:
        def __cuda_stream__(self):
            return (0, 0x5000)

    [(ctype, fill)] = dc.c_abi_spec(dc.Stream())
    assert ctype is ctypes.c_void_p
    st = ctype()
    for arg, expected in ((dc.Stream(Owner()), 0xABC), (CudaLike(), 0x5000), (77, 77),
                          (None, None)):
        fill(arg, st)
        assert st.value == expected
    with pytest.raises(TypeError, match="Stream: expected None, an int handle"):
        dc.Stream("default")


def test_stream_handle_is_read_at_fill_time():
    holder = SimpleNamespace(handle=1)
    s = dc.Stream(holder)
    [(ctype, fill)] = dc.c_abi_spec(s)
    st = ctype()
    holder.handle = 2
    fill(s, st)
    assert st.value == 2


def test_constexpr_and_sequences():
    assert dc.c_abi_spec(dc.Constexpr(3)) == []
    spec = dc.c_abi_spec((dc.Int16(1), dc.Constexpr("x"), dc.Float64(2.0)))
    assert [c for c, _ in spec] == [ctypes.c_int16, ctypes.c_double]
    storages = [c() for c, _ in spec]
    for (_, fill), st in zip(spec, storages, strict=True):
        fill((7, "x", 1.5), st)
    assert [s.value for s in storages] == [7, 1.5]


def test_non_static_types_have_no_compiled_fill():
    with pytest.raises(TypeError, match=r"compile_fill: Array\[Int32, 2\] has no static C ABI"):
        dc.compile_fill(dc.Array[dc.Int32, 2])
    with pytest.raises(TypeError, match=r"c_abi_spec: Vector\[Float32, 4\] is not JitArgument"):
        dc.c_abi_spec(dc.Vector[dc.Float32, 4]([1, 2, 3, 4]))


def test_struct_with_a_value_dependent_jit_field_composes_specs(fake_ir):
    class Handle:
        """A foreign JitArgument+DslType whose ABI depends on its value (1 or 2 slots)."""

        def __init__(self, wide: bool) -> None:
            self.wide = wide

        def __get_ir_types__(self):
            return ["i64"] * (2 if self.wide else 1)

        def __cache_signature__(self):
            return ("Handle", self.wide)

        def __c_abi_spec__(self):
            def fill(arg, st):
                st.value = 99

            return [(ctypes.c_int64, fill)] * (2 if self.wide else 1)

        def __extract_to_ir_values__(self):
            return []

        @classmethod
        def __construct_from_ir_values__(cls, values, exemplar=None):
            return exemplar

    @dc.struct
    class Box:
        k: dc.Int8
        h: Handle

    wide, narrow = Box(1, Handle(True)), Box(1, Handle(False))
    assert len(dc.c_abi_spec(wide)) == 3 and len(dc.c_abi_spec(narrow)) == 2
    assert dc.cache_signature(wide) != dc.cache_signature(narrow)
    static, dynamic = dc.cache_signature(wide)
    assert dynamic == ("Int8", ("Handle", True))
    assert static[2][1] == ("h", ("type", f"{__name__}.{Handle.__qualname__}"))
    assert dc.get_ir_types(wide) == [fake_ir.Type("i8"), "i64", "i64"]
    storages = [c() for c, _ in dc.c_abi_spec(wide)]
    for (_, fill), st in zip(dc.c_abi_spec(wide), storages, strict=True):
        fill(Box(5, Handle(True)), st)
    assert [s.value for s in storages] == [5, 99, 99]
    with pytest.raises(TypeError, match="compile_fill: Box has no static C ABI"):
        dc.compile_fill(Box)


def test_static_entries_are_native_slots_naming_kind_and_value():
    """Each entry of a static ABI is a NativeSlot: the (ctype, fill) pair, its slot kind
    (the dtype table's, "ptr" for a stream) and the value a dispatcher marshals, which is
    what the fill writes (before the f16/bf16 bit conversion)."""
    value = Outer(flag=True, inner=Inner(1.5, -2.0), count=2**40, s=dc.Stream(0x1000))
    spec = dc.c_abi_spec(value)
    assert all(isinstance(e, dc.NativeSlot) for e in spec)
    assert [e.kind for e in spec] == ["bool", "f16", "bf16", "u64", "ptr"]
    assert [e.value_of(value) for e in spec] == [True, 1.5, -2.0, 2**40, 0x1000]
    assert [e.dtype for e in spec[:4]] == [dc.Boolean.dtype, dc.Float16.dtype,
                                           dc.BFloat16.dtype, dc.UInt64.dtype]
    ctype, fill = spec[3]  # still unpacks as every entry
    st = ctype()
    fill(value, st)
    assert (ctype, st.value) == (ctypes.c_uint64, 2**40)
    (e,) = dc.c_abi_spec(dc.Int8(-3))
    assert (e.kind, e.value_of(dc.Int8(-3)), e.value_of(7)) == ("i8", -3, 7)
    with pytest.raises(ValueError, match="out of range"):
        e.value_of(200)  # checked by the type, as the fill checks it


def test_scalar_slot_reads_its_source():
    entry = dc.scalar_slot(dc.UInt8, lambda a: a["n"])
    assert (entry.kind, entry[0], entry.value_of({"n": 255})) == ("u8", ctypes.c_uint8, 255)
    st = ctypes.c_uint8()
    entry[1]({"n": 9}, st)
    assert st.value == 9
    with pytest.raises(ValueError, match="out of range"):
        entry[1]({"n": 256}, st)
