"""IR hooks against the real MLIR bindings of dsl_mlir (skipped when it is not installed).

Round trips use the block arguments of a parsed ``func.func`` as replacement SSA values of the
same types, as a JIT function's entry block would provide them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import dsl_core as dc

dsl_mlir = pytest.importorskip("dsl_mlir")
ir = dsl_mlir.ir


@pytest.fixture
def ctx() -> Iterator[Any]:
    with dsl_mlir.context() as c, ir.Location.unknown():
        yield c


class Func:
    """A parsed ``func.func`` whose arguments have the given types."""

    def __init__(self, types: list[Any]) -> None:
        args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
        self.module = ir.Module.parse(f"func.func @f({args}) {{\n  return\n}}")
        self.block = self.module.body.operations[0].regions[0].blocks[0]

    @property
    def args(self) -> list[Any]:
        return list(self.block.arguments)

    def text(self) -> str:
        return str(self.module)


@dc.struct
class Inner:
    x: dc.Float16
    flag: dc.Boolean


@dc.struct
class Outer:
    n: dc.Constexpr[int] = 4
    a: dc.UInt32
    inner: Inner
    s: dc.Stream


SCALAR_TYPES = [
    (dc.Int8, "i8"), (dc.UInt8, "i8"), (dc.Int16, "i16"), (dc.UInt32, "i32"), (dc.Int64, "i64"),
    (dc.Float16, "f16"), (dc.BFloat16, "bf16"), (dc.Float32, "f32"), (dc.Float64, "f64"),
    (dc.Boolean, "i1"),
]


@pytest.mark.parametrize(("t", "text"), SCALAR_TYPES)
def test_scalar_round_trip(ctx, t, text):
    [ty] = dc.get_ir_types(t(1))
    assert str(ty) == text
    f = Func([ty])
    v = dc.construct_from_ir_values(t, f.args)
    assert type(v) is t and v.is_traced and repr(v) == f"{t.__name__}(<traced {text}>)"
    assert dc.extract_to_ir_values(v) == f.args


def test_scalar_construct_checks_count_and_types(ctx):
    f = Func([ir.IntegerType.get_signless(32), ir.F32Type.get()])
    with pytest.raises(TypeError, match=r"construct_from_ir_values: Int32 expects 1 ir.Values, "
                                        "got 2"):
        dc.construct_from_ir_values(dc.Int32, f.args)
    with pytest.raises(TypeError, match="Float64 value #0 has type f32, expected f64"):
        dc.construct_from_ir_values(dc.Float64, f.args[1:])
    with pytest.raises(TypeError, match="Int64 value #0 has type i32, expected i64"):
        dc.Int64(f.args[0])
    assert dc.Int32(f.args[0]).ir_value == f.args[0]


def test_struct_round_trip_with_exemplar(ctx):
    host = Outer(a=7, inner=Inner(0.5, True), s=dc.Stream(0))
    types = dc.get_ir_types(host)
    assert [str(t) for t in types] == ["i32", "f16", "i1", "!llvm.ptr"]
    f = Func(types)
    traced = dc.construct_from_ir_values(Outer, f.args, host)
    assert type(traced) is Outer and traced.n == 4 and traced.inner.flag.is_traced
    assert dc.extract_to_ir_values(traced) == f.args
    with pytest.raises(TypeError, match=r"construct_from_ir_values: Outer expects 4 ir.Values, "
                                        "got 3"):
        dc.construct_from_ir_values(Outer, f.args[:3], host)


def test_specialized_struct_is_rebuilt_from_its_exemplar(ctx):
    host = Outer(n=8, a=1, inner=Inner(1.0, False), s=dc.Stream(0))
    f = Func(dc.get_ir_types(host))
    traced = dc.construct_from_ir_values(Outer, f.args, host)
    assert type(traced) is Outer.specialize(n=8) and traced.n == 8


def test_tuples_and_constexpr(ctx):
    values = (dc.Int32(1), dc.Constexpr[int](3), dc.Float32(2.0))
    types = dc.get_ir_types(values)
    assert [str(t) for t in types] == ["i32", "f32"]
    f = Func(types)
    rebuilt = dc.construct_from_ir_values((dc.Int32, dc.Constexpr[int], dc.Float32), f.args,
                                          values)
    assert rebuilt[1].value == 3 and dc.extract_to_ir_values(rebuilt) == f.args


def test_host_values_materialize_constants(ctx):
    f = Func([])
    with ir.InsertionPoint.at_block_begin(f.block):
        values = dc.extract_to_ir_values((
            dc.Int32(7), dc.UInt32(2**32 - 1), dc.Boolean(True), dc.BFloat16(1.5),
            dc.Float16(0.5), dc.Vector[dc.Int8, (2, 2)]([1, -2, 3, 4]),
        ))
    text = f.text()
    assert [str(v.type) for v in values] == ["i32", "i32", "i1", "bf16", "f16", "vector<2x2xi8>"]
    for expected in ("arith.constant 7 : i32", "arith.constant -1 : i32", "arith.constant true",
                     "arith.constant 1.500000e+00 : bf16", "arith.constant 5.000000e-01 : f16",
                     "dense<[[1, -2], [3, 4]]> : vector<2x2xi8>"):
        assert expected in text


def test_array_round_trip(ctx):
    t = dc.Array[dc.Float32, 3]
    f = Func([ir.F32Type.get()] * 3)
    arr = dc.construct_from_ir_values(t, f.args)
    assert len(arr) == 3 and all(x.is_traced for x in arr)
    assert dc.extract_to_ir_values(arr) == f.args


def test_vector_keeps_dsl_element_and_logical_shape(ctx):
    f = Func([ir.Type.parse("vector<8xi32>")])
    exemplar = dc.Vector[dc.UInt32, 8]([0] * 8)
    v = dc.construct_from_ir_values(dc.Vector, f.args, exemplar)
    assert v.element is dc.UInt32 and v.shape == (8,)
    logical = dc.Vector.from_ir_value(f.args[0], dc.UInt32, (2, 4))
    assert logical.shape == (2, 4) and dc.extract_to_ir_values(logical) == f.args
    plain = dc.Vector.from_ir_value(f.args[0])
    assert plain.element is dc.Int32
    with pytest.raises(TypeError, match=r"Vector\[Float32, 4\] value #0 has type vector<8xi32>"):
        dc.construct_from_ir_values(dc.Vector[dc.Float32, 4], f.args)


def test_pointer_address_space_and_tensor(ctx):
    f = Func([ir.Type.parse("!llvm.ptr<3>"), ir.Type.parse("memref<?x4xf32>")])
    p = dc.construct_from_ir_values(dc.Pointer[dc.Float32, 3], f.args[:1])
    assert p.address_space == 3 and p.element is dc.Float32
    with pytest.raises(TypeError, match=r"Pointer\[Float32\]: expected an ir.Value of type "
                                        r"!llvm.ptr, got !llvm.ptr<3>"):
        dc.construct_from_ir_values(dc.Pointer[dc.Float32], f.args[:1])
    t = dc.construct_from_ir_values(dc.Tensor, f.args[1:])
    assert t.dtype is dc.Float32 and t.shape == (None, 4)
    assert dc.extract_to_ir_values(t) == f.args[1:]


def test_stream_is_an_llvm_pointer(ctx):
    [ty] = dc.get_ir_types(dc.Stream(0))
    f = Func([ty])
    s = dc.construct_from_ir_values(dc.Stream, f.args)
    assert s.is_traced and dc.extract_to_ir_values(s) == f.args
