from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

import dsl_core as dc


@dc.struct
class Vec3:
    x: dc.Float32
    y: dc.Float32
    z: dc.Float32


@dc.struct
class Particle:
    id: dc.UInt16
    pos: Vec3
    mass: dc.Float64
    flags: dc.Array[dc.UInt8, 3]
    alive: dc.Boolean


class CVec3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("z", ctypes.c_float)]


class CParticle(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint16), ("pos", CVec3), ("mass", ctypes.c_double),
                ("flags", ctypes.c_uint8 * 3), ("alive", ctypes.c_bool)]


def make_particle() -> Particle:
    return Particle(7, Vec3(1.0, -2.5, 0.25), 3.5, [1, 2, 255], True)


def test_struct_layout_equals_ctypes():
    assert dc.dsl_size_of(Particle) == ctypes.sizeof(CParticle) == 32
    assert dc.dsl_align_of(Particle) == ctypes.alignment(CParticle)
    for name, _ in CParticle._fields_:
        assert dc.offset_of(Particle, name) == getattr(CParticle, name).offset


def test_poke_is_read_back_by_ctypes():
    c = CParticle()
    dc.poke_into_ptr(Particle, c, make_particle())
    assert (c.id, c.pos.x, c.pos.y, c.pos.z, c.mass) == (7, 1.0, -2.5, 0.25, 3.5)
    assert list(c.flags) == [1, 2, 255] and c.alive is True


def test_ctypes_writes_are_peeked_back():
    c = CParticle(9, CVec3(0.5, 0.0, -1.0), 2.0, (ctypes.c_uint8 * 3)(4, 5, 6), False)
    p = dc.peek_from_ptr(Particle, ctypes.addressof(c))
    assert p == Particle(9, Vec3(0.5, 0.0, -1.0), 2.0, [4, 5, 6], False)
    assert p.pos.z == dc.Float32(-1.0) and p.flags[2] == 6


def test_poke_exact_bytes_including_zeroed_padding():
    buf = bytearray(b"\xaa" * 36)
    dc.poke_into_ptr(Particle, buf, make_particle())
    expected = struct.pack("<H2x3fd3B?4x", 7, 1.0, -2.5, 0.25, 3.5, 1, 2, 255, True)
    assert bytes(buf) == expected + b"\xaa" * 4


def test_peek_poke_on_numpy_buffer_with_offsets():
    arr = np.zeros(4, dtype=np.dtype([("a", "<i4"), ("b", "<f4")]))

    @dc.struct
    class AB:
        a: dc.Int32
        b: dc.Float32

    base = arr.ctypes.data
    for i in range(4):
        dc.poke_into_ptr(AB, base + i * dc.dsl_size_of(AB), AB(i * 10, i / 2))
    assert arr["a"].tolist() == [0, 10, 20, 30] and arr["b"].tolist() == [0.0, 0.5, 1.0, 1.5]
    arr["a"][2] = -5
    assert dc.peek_from_ptr(AB, base + 2 * 8) == AB(-5, 1.0)
    assert dc.peek_from_ptr(dc.Array[AB, 4], arr)[3] == AB(30, 1.5)


def test_union_values_are_typed_bytes():
    @dc.union
    class Bits:
        f: dc.Float32
        u: dc.UInt32
        b: dc.Array[dc.UInt8, 4]

    v = Bits(f=1.0)
    assert v.raw == b"\x00\x00\x80\x3f" and v.u == dc.UInt32(0x3F800000)
    assert list(v.b) == [0, 0, 0x80, 0x3F]
    buf = (ctypes.c_uint8 * 4)()
    dc.poke_into_ptr(Bits, buf, {"u": 0x40000000})
    assert dc.peek_from_ptr(Bits, buf).f == dc.Float32(2.0)
    with pytest.raises(TypeError, match="union Bits: give exactly one member by keyword, got 2"):
        Bits(f=1.0, u=2)
    with pytest.raises(ValueError, match="union Bits has no stored field 'q'"):
        Bits(q=1)
    with pytest.raises(ValueError, match="union Bits: member 'u': UInt32: value -1 is out of"):
        Bits(u=-1)


def test_struct_with_union_and_align_round_trips():
    @dc.union
    class Payload:
        i: dc.Int64
        d: dc.Float64

    @dc.struct
    class Msg:
        tag: dc.UInt8
        body: Payload
        pad: dc.Align[dc.Int32, 16]

    m = Msg(2, Payload(d=0.5), 99)
    assert dc.offset_of(Msg, "pad") == 16 and dc.dsl_size_of(Msg) == 32
    s = dc.Storage[Msg](value=m)
    assert s.load() == m and s.load().body.d == dc.Float64(0.5)
    assert s.field("pad").load() == dc.Int32(99)


def test_arena_bump_allocation_alignment_and_exhaustion():
    arena = dc.Arena(64)
    a = arena.alloc(3, 1)
    b = arena.alloc(8, 8)
    assert b % 8 == 0 and b >= a + 3
    assert arena.used == (b - arena.base) + 8
    with pytest.raises(MemoryError, match=r"Arena: out of memory: 100 bytes aligned 4 requested"):
        arena.alloc(100, 4)
    with pytest.raises(ValueError, match="alignment must be a power of two, got 3"):
        arena.alloc(4, 3)
    arena.reset()
    assert arena.used == 0 and arena.alloc(1, 1) == arena.base


def test_arena_over_numpy_memory_and_storage():
    backing = np.zeros(64, dtype=np.uint8)
    arena = dc.Arena.over(backing)
    s = dc.Storage[Vec3](arena, value=Vec3(1.0, 2.0, 3.0))
    t = dc.Storage[dc.Float64](arena, value=-1.0)
    assert s.ptr == backing.ctypes.data and t.ptr % 8 == 0
    assert backing[:12].view(np.float32).tolist() == [1.0, 2.0, 3.0]
    assert backing[t.ptr - s.ptr:t.ptr - s.ptr + 8].view(np.float64)[0] == -1.0


def test_storage_fields_elements_and_alignment():
    s = dc.Storage[Particle](dc.HeapAllocator(), value=make_particle())
    assert s.ptr % dc.dsl_align_of(Particle) == 0
    s.field("pos").field("y").store(4.0)
    s.field("flags")[1].store(77)
    p = s.load()
    assert p.pos.y == dc.Float32(4.0) and list(p.flags) == [1, 77, 255]
    assert s.raw()[:2] == b"\x07\x00"
    with pytest.raises(IndexError, match=r"index 3 out of range \[0, 3\)"):
        s.field("flags")[3]
    with pytest.raises(ValueError, match=r"address 0x1001 is not aligned to 8"):
        dc.Storage[dc.Float64](ptr=0x1001)
    with pytest.raises(TypeError, match="Storage needs a type"):
        dc.Storage()
    assert dc.Storage[Vec3] is dc.Storage[Vec3]


def test_storage_of_non_storable_type_is_refused():
    with pytest.raises(TypeError, match="dsl_size_of: Stream is not Storable"):
        dc.Storage[dc.Stream]


def test_vectors_and_pointers_in_memory():
    buf = (ctypes.c_uint8 * 32)()
    v = dc.Vector[dc.Float32, 3]([1.0, 2.0, 3.0])
    dc.poke_into_ptr(dc.Vector[dc.Float32, 3], buf, v)
    assert bytes(buf)[:16] == struct.pack("<3f4x", 1.0, 2.0, 3.0)
    assert dc.peek_from_ptr(dc.Vector[dc.Float32, 3], buf) == v
    dc.poke_into_ptr(dc.Pointer[Vec3], buf, 0xDEADBEEF)
    assert bytes(buf)[:8] == struct.pack("<Q", 0xDEADBEEF)
    assert dc.peek_from_ptr(dc.Pointer[Vec3], buf).address == 0xDEADBEEF


def test_null_and_invalid_addresses():
    with pytest.raises(ValueError, match=r"peek_from_ptr\(Int32\): address 0x0 is not a valid"):
        dc.peek_from_ptr(dc.Int32, 0)
    with pytest.raises(TypeError, match="read-only"):
        dc.poke_into_ptr(dc.Int32, b"abcd", 1)
    with pytest.raises(TypeError, match="expected an address"):
        dc.peek_from_ptr(dc.Int32, "0x10")


def test_foreign_storable_type_in_a_struct():
    class Rgb:
        """A user type with only the four Storable hooks (3 bytes, align 1)."""

        def __init__(self, r: int, g: int, b: int) -> None:
            self.rgb = (r, g, b)

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Rgb) and other.rgb == self.rgb

        @classmethod
        def __dsl_size_of__(cls) -> int:
            return 3

        @classmethod
        def __dsl_align_of__(cls) -> int:
            return 1

        @classmethod
        def __peek_from_ptr__(cls, ptr: int) -> Rgb:
            return cls(*ctypes.string_at(ptr, 3))

        @classmethod
        def __poke_into_ptr__(cls, ptr: int, value: Rgb) -> None:
            ctypes.memmove(ptr, bytes(value.rgb), 3)

    assert isinstance(Rgb(1, 2, 3), dc.Storable) and issubclass(Rgb, dc.Storable)

    @dc.struct
    class Pixel:
        c: Rgb
        a: dc.UInt16

    assert dc.offset_of(Pixel, "a") == 4 and dc.dsl_size_of(Pixel) == 6
    s = dc.Storage[Pixel](value=Pixel(Rgb(9, 8, 7), 500))
    assert s.raw() == b"\x09\x08\x07\x00\xf4\x01"
    assert s.load() == Pixel(Rgb(9, 8, 7), 500)
