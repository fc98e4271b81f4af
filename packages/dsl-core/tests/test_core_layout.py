from __future__ import annotations

import pytest

import dsl_core as dc


@dc.struct
class Mixed:
    a: dc.Int8
    b: dc.Int32
    c: dc.Int16


@dc.struct
class Wide:
    x: dc.Int8
    y: dc.Float64
    z: dc.Int8


@dc.struct
class Nested:
    h: dc.Int8
    inner: Mixed
    d: dc.Float16


@dc.struct
class WithArray:
    c: dc.Int8
    arr: dc.Array[dc.Int16, 3]
    f: dc.Float32


@dc.struct
class Aligned:
    a: dc.Int8
    b: dc.Align[dc.Int32, 16]
    c: dc.Int8


@dc.union
class Number:
    i: dc.Int32
    d: dc.Float64
    c: dc.Array[dc.Int8, 10]


@dc.struct
class WithConstexpr:
    n: dc.Constexpr[int]
    x: dc.Int8
    tag: dc.Constexpr[str]
    y: dc.Int32


@dc.struct
class OnlyConstexpr:
    n: dc.Constexpr[int]


def offsets(t):
    return [f.offset for f in dc.layout_of(t).fields]


@pytest.mark.parametrize(
    ("t", "expected_offsets", "size", "align"),
    [
        (Mixed, [0, 4, 8], 12, 4),
        (Wide, [0, 8, 16], 24, 8),
        (Nested, [0, 4, 16], 20, 4),
        (WithArray, [0, 2, 8], 12, 4),
        (Aligned, [0, 16, 20], 32, 16),
        (Number, [0, 0, 0], 16, 8),
        (WithConstexpr, [0, 4], 8, 4),
        (OnlyConstexpr, [], 0, 1),
    ],
)
def test_c_layout(t, expected_offsets, size, align):
    assert offsets(t) == expected_offsets
    assert dc.dsl_size_of(t) == size
    assert dc.dsl_align_of(t) == align


def test_offset_of_including_nested_paths():
    assert dc.offset_of(Wide, "y") == 8
    assert dc.offset_of(Nested, "inner.c") == 4 + 8
    with pytest.raises(ValueError, match="struct WithConstexpr has no stored field 'n'"):
        dc.offset_of(WithConstexpr, "n")
    with pytest.raises(ValueError, match="Mixed has no stored field 'q'"):
        dc.offset_of(Mixed, "q")


def test_array_size_alignment_and_interning():
    t = dc.Array[dc.Float64, 5]
    assert t is dc.Array[dc.Float64, 5] and t is not dc.Array[dc.Float64, 4]
    assert (dc.dsl_size_of(t), dc.dsl_align_of(t)) == (40, 8)
    assert (dc.dsl_size_of(dc.Array[Mixed, 2]), dc.dsl_align_of(dc.Array[Mixed, 2])) == (24, 4)
    assert t.__name__ == "Array[Float64, 5]"


def test_align_keeps_size_and_raises_alignment():
    t = dc.Align[dc.Array[dc.Int32, 3], 16]
    assert (dc.dsl_size_of(t), dc.dsl_align_of(t)) == (12, 16)
    assert dc.Align[dc.Int32, 8] is dc.Align[dc.Int32, 8]


def test_align_errors():
    with pytest.raises(ValueError, match=r"Align\[Int32, 3\]: alignment must be a power of two"):
        dc.Align[dc.Int32, 3]
    with pytest.raises(ValueError, match=r"Align\[Int64, 4\]: alignment 4 is less than Int64's "
                                         r"natural alignment 8"):
        dc.Align[dc.Int64, 4]
    with pytest.raises(TypeError, match=r"Align\[Vector, 16\]: Vector is not Storable"):
        dc.Align[dc.Vector, 16]


def test_array_errors():
    with pytest.raises(ValueError, match=r"Array\[Align\[Int32, 16\], 4\]: element size 4 is "
                                         r"not a multiple of its alignment 16"):
        dc.Array[dc.Align[dc.Int32, 16], 4]
    with pytest.raises(ValueError, match=r"Array\[Int32, -1\]: length must be an int >= 0"):
        dc.Array[dc.Int32, -1]
    with pytest.raises(TypeError, match="element cannot be Constexpr"):
        dc.Array[dc.Constexpr[int], 2]
    with pytest.raises(TypeError, match=r"Array\[E, N\] takes an element type and a length"):
        dc.Array[dc.Int32]


def test_vector_layout_follows_llvm():
    assert (dc.dsl_size_of(dc.Vector[dc.Float32, 4]), dc.dsl_align_of(dc.Vector[dc.Float32, 4])) \
        == (16, 16)
    assert (dc.dsl_size_of(dc.Vector[dc.Float32, 3]), dc.dsl_align_of(dc.Vector[dc.Float32, 3])) \
        == (16, 16)
    assert (dc.dsl_size_of(dc.Vector[dc.Int8, (2, 3)]),
            dc.dsl_align_of(dc.Vector[dc.Int8, (2, 3)])) == (8, 8)
    assert (dc.dsl_size_of(dc.Pointer[dc.Float32, 1]), dc.dsl_align_of(dc.Pointer[Mixed])) == (8, 8)


def test_non_storable_types_and_composites_name_the_field():
    with pytest.raises(TypeError, match="dsl_size_of: Vector is not Storable"):
        dc.dsl_size_of(dc.Vector)
    with pytest.raises(TypeError, match="Pointer is not Storable"):
        dc.dsl_align_of(dc.Pointer)
    with pytest.raises(TypeError, match="Tensor is not Storable"):
        dc.dsl_size_of(dc.Tensor)
    with pytest.raises(TypeError, match="Stream is not Storable"):
        dc.dsl_size_of(dc.Stream)
    with pytest.raises(TypeError, match=r"Vector\[Boolean, 8\] is not Storable: i1 vectors"):
        dc.dsl_size_of(dc.Vector[dc.Boolean, 8])

    @dc.struct
    class Foo:
        a: dc.Int32
        v: dc.Vector

    with pytest.raises(TypeError, match="struct Foo is not Storable: field 'v' of type Vector "
                                        "is not Storable"):
        dc.dsl_size_of(Foo)
    with pytest.raises(TypeError, match="layout_of: struct Foo is not Storable"):
        dc.offset_of(Foo, "a")

    @dc.struct
    class Outer:
        foo: Foo

    with pytest.raises(TypeError, match="struct Outer is not Storable: field 'foo' of type Foo"):
        dc.dsl_size_of(Outer)


def test_union_member_must_be_storable():
    with pytest.raises(TypeError, match="union Bad is not Storable: field 's' of type Stream is "
                                        "not Storable"):
        @dc.union
        class Bad:
            i: dc.Int32
            s: dc.Stream


def test_size_of_requires_a_type():
    with pytest.raises(TypeError, match="dsl_size_of: expected a Storable type, got Int32"):
        dc.dsl_size_of(dc.Int32(1))
