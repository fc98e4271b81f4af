from __future__ import annotations

import pytest

import dsl_core as dc


@dc.struct
class P:
    a: dc.Int32
    b: dc.Float32

    def norm1(self) -> float:
        return abs(self.a.value) + abs(self.b.value)


@dc.struct
class WithDefault:
    a: dc.Int8
    b: dc.Int16 = 5


@dc.struct
class Tile:
    size: dc.Constexpr[int]
    x: dc.Int32


def test_construction_positional_keyword_and_dsl_values():
    assert P(1, 2.0) == P(a=1, b=2.0) == P(dc.Int32(1), b=dc.Float32(2.0))
    p = P(1, 2.5)
    assert p.a == dc.Int32(1) and type(p.b) is dc.Float32 and p.norm1() == 3.5
    assert repr(p) == "P(a=Int32(1), b=Float32(2.5))"
    assert WithDefault(1).b == dc.Int16(5)
    assert hash(P(1, 2.0)) == hash(P(1, 2.0)) and P(1, 2.0) != P(1, 3.0)


def test_construction_errors_name_the_struct_and_field():
    with pytest.raises(TypeError, match="struct P: missing value for field 'b'"):
        P(1)
    with pytest.raises(TypeError, match="struct P takes 2 positional values, got 3"):
        P(1, 2, 3)
    with pytest.raises(TypeError, match="struct P has no field 'c'"):
        P(1, 2.0, c=3)
    with pytest.raises(TypeError, match="struct P: field 'a' given twice"):
        P(1, a=2, b=3.0)
    with pytest.raises(ValueError, match="struct P: field 'a': Int32: value 4294967296 is out"):
        P(2**32, 0.0)
    with pytest.raises(TypeError, match="struct P: field 'a': Int32: expected an integer"):
        P(1.5, 0.0)


def _built(*args, **kwargs):
    try:
        return P(*args, **kwargs)
    except (TypeError, ValueError) as err:
        return type(err), str(err)


@pytest.mark.parametrize("a, b", [
    (1, 2.5), (-2**31, 1e-45), (2**31 - 1, 3.4028234663852886e38), (True, 0.1),
    (2**31, 0.0), (1.0, 0.0), ("1", 0.0), (1, 1e39), (1, float("nan")), (1, float("-inf")),
    (1, 2**200), (1, "2.0"), (1, None), (dc.Int32(7), dc.Float32(0.5)), (1, dc.Int8(3)),
])
def test_positional_construction_agrees_with_keywords(a, b):
    """Positional values of a struct without Constexpr fields take a shorter path (no
    binding by name); it must round, convert and refuse exactly as binding by name."""
    positional, named = _built(a, b), _built(a=a, b=b)
    if isinstance(named, P):
        assert isinstance(positional, P)
        assert repr(positional) == repr(named)  # (NaN != NaN: compare the printed values)
        assert type(positional.a) is dc.Int32 and type(positional.b) is dc.Float32
    else:
        assert positional == named


def test_positional_construction_of_a_constexpr_struct_still_specializes():
    t = Tile(4, 3)
    assert type(t) is Tile.specialize(size=4) and t.x == dc.Int32(3)


def test_structs_are_frozen():
    p = P(1, 2.0)
    with pytest.raises(AttributeError, match="struct P is frozen: cannot assign 'a'"):
        p.a = dc.Int32(3)
    assert dc.replace(p, b=7.0) == P(1, 7.0) and p.b == dc.Float32(2.0)


def test_field_declaration_errors():
    with pytest.raises(TypeError, match="struct Bad: field 'b' without a default follows"):
        @dc.struct
        class Bad:
            a: dc.Int8 = 1
            b: dc.Int8

    with pytest.raises(TypeError, match="struct Bad2: field 'a' must be annotated with a DSL type"):
        @dc.struct
        class Bad2:
            a: 3  # type: ignore[valid-type]

    with pytest.raises(TypeError, match="struct Bad3: cannot resolve the annotation 'Nope'"):
        @dc.struct
        class Bad3:
            a: Nope  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(TypeError, match="struct Child: base classes are not supported"):
        @dc.struct
        class Child(dict):  # type: ignore[type-arg]
            a: dc.Int8


def test_constexpr_field_specializes_the_type():
    t4, t8 = Tile(4, 1), Tile(size=8, x=1)
    assert type(t4) is Tile.specialize(size=4) and type(t8) is Tile.specialize(size=8)
    assert type(t4) is not type(t8) and isinstance(t4, Tile)
    assert t4.size == 4 and t4 != Tile(8, 1)
    assert type(t4).__name__ == "Tile[size=4]"
    assert Tile.specialize(size=4)(x=2).x == dc.Int32(2)
    assert Tile.specialize(size=4)(2) == Tile(4, 2)
    assert repr(t4) == "Tile(size=4, x=Int32(1))"


def test_constexpr_field_value_type_is_checked():
    with pytest.raises(TypeError, match=r"struct Tile: field 'size': Constexpr\[int\]: expected "
                                        r"a value of type int, got bool True"):
        Tile(True, 1)
    with pytest.raises(TypeError, match="struct Tile: \\['x'\\] are not Constexpr fields"):
        Tile.specialize(x=1)


def test_constexpr_default_binds_the_generic_type():
    @dc.struct
    class Conv:
        k: dc.Constexpr[int] = 3
        w: dc.Float32

    assert type(Conv(1.0)) is Conv and Conv.k == 3
    assert type(Conv(w=1.0, k=5)) is Conv.specialize(k=5) and Conv.specialize(k=3) is Conv


def test_unbound_constexpr_blocks_value_dependent_operations():
    with pytest.raises(TypeError, match=r"struct Tile: Constexpr field 'size' has no value, "
                                        r"needed for peek_from_ptr; use Tile.specialize\(size="):
        dc.peek_from_ptr(Tile, dc.Storage[dc.Int32](value=1).ptr)
    assert dc.dsl_size_of(Tile) == 4
    s = dc.Storage[Tile](value=Tile(16, -3))
    assert dc.peek_from_ptr(Tile.specialize(size=16), s.ptr) == Tile(16, -3)


def test_field_values_are_coerced_recursively():
    @dc.struct
    class Line:
        p: P
        q: P
        pts: dc.Array[dc.Int8, 2]

    line = Line((1, 2.0), {"a": 3, "b": 4.0}, [5, 6])
    assert line.p == P(1, 2.0) and line.q == P(3, 4.0) and list(line.pts) == [5, 6]
    with pytest.raises(ValueError, match=r"struct Line: field 'pts': Array\[Int8, 2\] expects "
                                         r"2 elements, got 3"):
        Line(P(1, 2.0), P(1, 2.0), [1, 2, 3])
    with pytest.raises(TypeError, match="struct Line: field 'p': struct P: expected a P, a tuple"):
        Line(5, P(1, 2.0), [1, 2])


def test_array_values():
    a = dc.Array[dc.Float32, 3]([1, 2.5, dc.Float32(3.0)])
    assert list(a) == [dc.Float32(1.0), dc.Float32(2.5), dc.Float32(3.0)] and len(a) == 3
    assert a == dc.Array[dc.Float32, 3]([1.0, 2.5, 3.0])
    with pytest.raises(ValueError, match=r"Array\[UInt8, 2\] element 1: UInt8: value -1"):
        dc.Array[dc.UInt8, 2]([1, -1])


def test_string_annotations_resolve_in_module_and_local_scope():
    local_type = dc.Int16

    @dc.struct
    class Local:
        a: local_type
        p: P

    assert [f.value_type for f in dc.fields_of(Local)] == [dc.Int16, P]
    assert Local.__qualname__.endswith("<locals>.Local")
