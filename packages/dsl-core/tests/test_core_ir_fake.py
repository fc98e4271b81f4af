"""IR hook logic (order, counts, exemplars, constants) on the fake ``dsl_mlir`` of
core_fake_mlir.py, so it is covered where dsl_mlir is not installed."""

from __future__ import annotations

import pytest

import dsl_core as dc


@dc.struct
class Pair:
    a: dc.Int32
    b: dc.BFloat16


@dc.struct
class Holder:
    k: dc.Constexpr[str] = "x"
    p: Pair
    v: dc.Vector
    arr: dc.Array[dc.UInt8, 2]


def test_types_and_round_trip(fake_ir):
    assert [str(t) for t in dc.get_ir_types(Pair(1, 2.0))] == ["i32", "bf16"]
    values = [fake_ir.Value(fake_ir.Type(t)) for t in ("i32", "bf16")]
    p = dc.construct_from_ir_values(Pair, values)
    assert dc.extract_to_ir_values(p) == values
    with pytest.raises(TypeError, match=r"construct_from_ir_values: Pair expects 2 ir.Values, "
                                        "got 3"):
        dc.construct_from_ir_values(Pair, [*values, values[0]])
    with pytest.raises(TypeError, match="Int32 value #0 has type bf16, expected i32"):
        dc.construct_from_ir_values(Pair, values[::-1])


def test_nested_composite_uses_exemplar_for_vector_metadata(fake_ir):
    vec = fake_ir.VectorType([4], fake_ir.Type("i16"))
    host = Holder(p=Pair(1, 1.0), v=dc.Vector[dc.UInt16, 4]([1, 2, 3, 4]), arr=[1, 2])
    values = [fake_ir.Value(fake_ir.Type(t)) for t in ("i32", "bf16")]
    values += [fake_ir.Value(vec), fake_ir.Value(fake_ir.Type("i8")),
               fake_ir.Value(fake_ir.Type("i8"))]
    traced = dc.construct_from_ir_values(Holder, values, host)
    assert traced.v.element is dc.UInt16 and traced.v.shape == (4,) and traced.k == "x"
    assert dc.extract_to_ir_values(traced) == values
    assert dc.ir_arity(Holder, host) == 5


def test_constants_are_bit_exact_attribute_texts(fake_ir):
    dc.extract_to_ir_values((dc.UInt64(2**64 - 1), dc.Int8(-5), dc.BFloat16(1.0),
                             dc.Float32(0.1), dc.Float64(-2.0), dc.Boolean(False)))
    assert [text for _, text in fake_ir.Operation.created] == [
        "-1 : i64", "-5 : i8", "0x3F80 : bf16", "0x3DCCCCCD : f32",
        "0xC000000000000000 : f64", "false",
    ]
    dc.extract_to_ir_values(dc.Vector[dc.Float16, (1, 2)]([1.0, -2.0]))
    assert fake_ir.Operation.created[-1] == ("arith.constant",
                                             "dense<[[0x3C00, 0xC000]]> : vector<1x2xf16>")


def test_scalars_wrap_ir_values(fake_ir):
    v = fake_ir.Value(fake_ir.Type("i16"))
    x = dc.UInt16(v)
    assert x.is_traced and x.ir_value is v
    with pytest.raises(TypeError, match=r"UInt16 is traced \(an ir.Value\): no host value"):
        int(x)
    with pytest.raises(TypeError, match="cannot convert a traced UInt16 on the host"):
        dc.Int32(x)
    with pytest.raises(TypeError, match="poke_into_ptr: UInt16 is traced"):
        dc.Storage[dc.UInt16](value=x)


def test_tuple_construct_needs_matching_counts(fake_ir):
    values = [fake_ir.Value(fake_ir.Type("i32"))]
    with pytest.raises(TypeError, match=r"the types expect 2 ir.Values, got 1"):
        dc.construct_from_ir_values((dc.Int32, dc.Int32), values)
    with pytest.raises(TypeError, match="depends on its value; pass an exemplar"):
        dc.ir_arity(object)
