"""Elementwise ops (unary, binary, scalars, broadcasting, cmp, select):
JIT-executed through dsl-to-llvm-cpu and compared with numpy.

Shapes are chosen so that vector tiles (16 elements) leave partial tiles:
the peeled and masked remainders run too.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from mlir_helpers import call_jit, from_bf16_bits, run_text, tensor_type, to_bf16_bits

from dsl_mlir import ir
from dsl_mlir.dialects import arith, dsl, func

RNG = np.random.default_rng(7)
FLOATS = [np.float16, np.float32, np.float64]
#: (rtol, atol) per dtype for transcendental functions.
TOL = {np.float16: (2e-3, 1e-3), np.float32: (2e-6, 1e-6), np.float64: (1e-12, 1e-12)}


def unary_text(op: str, shape: tuple[int, ...], elt: str) -> str:
    t = tensor_type(shape, elt)
    return f"""func.func @f(%x: {t}) -> {t} {{
      %0 = dsl.{op} %x : {t}
      return %0 : {t} }}"""


def positive(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    return RNG.uniform(0.05, 8.0, shape).astype(dtype)


def signed(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    return RNG.uniform(-6.0, 6.0, shape).astype(dtype)


UNARY_FLOAT: list[tuple[str, Callable[[np.ndarray], np.ndarray], Callable[..., np.ndarray]]] = [
    ("exp", np.exp, signed),
    ("log", np.log, positive),
    ("sqrt", np.sqrt, positive),
    ("rsqrt", lambda x: 1 / np.sqrt(x), positive),
    ("tanh", np.tanh, signed),
    ("abs", np.abs, signed),
    ("neg", np.negative, signed),
    ("relu", lambda x: np.maximum(x, 0), signed),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("op", "ref", "gen"), UNARY_FLOAT, ids=[u[0] for u in UNARY_FLOAT])
@pytest.mark.parametrize("shape", [(3, 37), (1000,)])
def test_unary_float(ctx: ir.Context, op: str, ref, gen, dtype, shape) -> None:  # type: ignore[no-untyped-def]
    x = gen(shape, dtype)
    out = np.zeros(shape, dtype)
    run_text(unary_text(op, shape, tensor_type([], dtype)[7:-1]), [x], [out])
    rtol, atol = TOL[dtype]
    expected = ref(x.astype(np.float64)).astype(dtype)
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ["exp", "tanh", "sqrt", "relu"])
def test_unary_bf16(ctx: ir.Context, op: str) -> None:
    x32 = RNG.uniform(0.1, 3.0, (5, 19)).astype(np.float32)
    bits = to_bf16_bits(x32)
    out = np.zeros_like(bits)
    run_text(unary_text(op, (5, 19), "bf16"), [bits], [out])
    ref = {"exp": np.exp, "tanh": np.tanh, "sqrt": np.sqrt, "relu": lambda v: np.maximum(v, 0)}[op]
    np.testing.assert_allclose(from_bf16_bits(out), ref(from_bf16_bits(bits)), rtol=1e-2)


def test_unary_special_values(ctx: ir.Context) -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 88.0, -104.0] * 3, np.float32)
    for op, ref in [("exp", np.exp), ("tanh", np.tanh), ("relu", lambda v: np.maximum(v, 0))]:
        out = np.zeros_like(x)
        run_text(unary_text(op, x.shape, "f32"), [x], [out])
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(out, ref(x), rtol=1e-6, atol=1e-37, err_msg=op)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
@pytest.mark.parametrize(("op", "ref"), [("abs", np.abs), ("neg", np.negative),
                                         ("relu", lambda x: np.maximum(x, 0))])
def test_unary_int(ctx: ir.Context, op: str, ref, dtype) -> None:  # type: ignore[no-untyped-def]
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max, (2, 45), dtype=dtype, endpoint=True)
    x[0, 0] = info.min  # wraps, as in numpy
    out = np.zeros_like(x)
    run_text(unary_text(op, x.shape, tensor_type([], dtype)[7:-1]), [x], [out])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, ref(x))


# --- binary ops, built with the Python op classes ---------------------------

def build(name: str, arg_types: list[ir.Type], result_type: ir.Type, body) -> ir.Module:  # type: ignore[no-untyped-def]
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp(name, ir.FunctionType.get(arg_types, [result_type]))
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            func.ReturnOp([body(*entry.arguments)])
    module.operation.verify()
    return module


def mlir_type(shape: tuple[int, ...], elt: ir.Type) -> ir.Type:
    return ir.RankedTensorType.get(list(shape), elt) if shape != () else elt


BINARY = [
    (dsl.AddOp, np.add), (dsl.SubOp, np.subtract), (dsl.MulOp, np.multiply),
    (dsl.DivOp, np.divide), (dsl.MaximumOp, np.maximum), (dsl.MinimumOp, np.minimum),
    (dsl.PowOp, np.power),
]

BROADCASTS = [
    ((4, 37), (4, 37)),      # same shape
    ((4, 37), (37,)),        # rank extension
    ((4, 1), (1, 37)),       # both stretch
    ((2, 3, 20), (3, 1)),    # rank extension + stretch
    ((1,), (5, 33)),
    ((), (6, 17)),           # scalar on the left
    ((6, 17), ()),           # scalar on the right
]


@pytest.mark.parametrize(("op", "ref"), BINARY, ids=[b[0].__name__ for b in BINARY])
@pytest.mark.parametrize(("ls", "rs"), BROADCASTS, ids=[f"{a}-{b}" for a, b in BROADCASTS])
def test_binary_broadcast_f32(ctx: ir.Context, op, ref, ls, rs) -> None:  # type: ignore[no-untyped-def]
    f32 = ir.F32Type.get()
    out_shape = np.broadcast_shapes(ls, rs)
    lt, rt, ot = mlir_type(ls, f32), mlir_type(rs, f32), mlir_type(out_shape, f32)
    module = build("f", [lt, rt], ot, lambda a, b: op(ot, a, b).result)
    x = RNG.uniform(0.5, 2.0, ls).astype(np.float32)
    y = RNG.uniform(0.5, 2.0, rs).astype(np.float32)
    out = np.zeros(out_shape, np.float32)
    ins = [np.ascontiguousarray(v) if v.shape else v for v in (x, y)]
    if ls == ():
        module_inputs = [y]
        module = build("f", [rt], ot, lambda b: op(ot, arith.ConstantOp(f32, float(x)).result, b).result)
    elif rs == ():
        module_inputs = [x]
        module = build("f", [lt], ot, lambda a: op(ot, a, arith.ConstantOp(f32, float(y)).result).result)
    else:
        module_inputs = ins
    call_jit(module, "f", module_inputs, [out])
    np.testing.assert_allclose(out, ref(x, y), rtol=2e-6)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_binary_int_broadcast(ctx: ir.Context, dtype) -> None:  # type: ignore[no-untyped-def]
    t = tensor_type
    text = f"""func.func @f(%a: {t((3, 21), dtype)}, %b: {t((21,), dtype)}) -> {t((3, 21), dtype)} {{
      %0 = dsl.maximum %a, %b : ({t((3, 21), dtype)}, {t((21,), dtype)}) -> {t((3, 21), dtype)}
      %1 = dsl.sub %0, %b : ({t((3, 21), dtype)}, {t((21,), dtype)}) -> {t((3, 21), dtype)}
      %2 = dsl.minimum %1, %a : {t((3, 21), dtype)}
      return %2 : {t((3, 21), dtype)} }}"""
    a = RNG.integers(-50, 50, (3, 21), dtype=dtype)
    b = RNG.integers(-50, 50, (21,), dtype=dtype)
    out = np.zeros((3, 21), dtype)
    run_text(text, [a, b], [out])
    np.testing.assert_array_equal(out, np.minimum(np.maximum(a, b) - b, a))


def test_integer_division_never_traps(ctx: ir.Context) -> None:
    t = tensor_type((20,), "i32")
    text = f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
      %0 = dsl.div %a, %b : {t}
      return %0 : {t} }}"""
    a = np.array([7, -7, 5, 0, np.iinfo(np.int32).min] * 4, np.int32)
    b = np.array([2, 2, 0, 0, -1] * 4, np.int32)
    out = np.ones(20, np.int32)
    run_text(text, [a, b], [out])
    # x / 0 is 0 and MIN / -1 wraps to MIN (numpy's results), no SIGFPE.
    np.testing.assert_array_equal(out, np.array([3, -3, 0, 0, np.iinfo(np.int32).min] * 4, np.int32))


def test_maximum_minimum_propagate_nan(ctx: ir.Context) -> None:
    t = tensor_type((18,), "f32")
    text = f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
      %0 = dsl.maximum %a, %b : {t}
      %1 = dsl.minimum %0, %b : {t}
      return %1 : {t} }}"""
    a = np.array([1.0, np.nan, 3.0] * 6, np.float32)
    b = np.array([np.nan, 2.0, 1.0] * 6, np.float32)
    out = np.zeros(18, np.float32)
    run_text(text, [a, b], [out])
    np.testing.assert_array_equal(out, np.minimum(np.maximum(a, b), b))


# --- comparisons and select --------------------------------------------------

PREDICATES = [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
              ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)]


@pytest.mark.parametrize(("pred", "ref"), PREDICATES, ids=[p[0] for p in PREDICATES])
def test_cmp_f32_with_nan_and_broadcast(ctx: ir.Context, pred: str, ref) -> None:  # type: ignore[no-untyped-def]
    f32 = ir.F32Type.get()
    lt, rt = ir.RankedTensorType.get([3, 40], f32), ir.RankedTensorType.get([40], f32)
    ot = ir.RankedTensorType.get([3, 40], ir.IntegerType.get_signless(1))
    predicate = getattr(dsl.CmpPredicate, pred)
    module = build("f", [lt, rt], ot, lambda a, b: dsl.CmpOp(ot, predicate, a, b).result)
    a = RNG.integers(0, 3, (3, 40)).astype(np.float32)
    b = RNG.integers(0, 3, (40,)).astype(np.float32)
    a[0, :5] = np.nan
    b[7] = np.nan
    out = np.zeros((3, 40), np.bool_)
    call_jit(module, "f", [a, b], [out])
    np.testing.assert_array_equal(out, ref(a, b))


@pytest.mark.parametrize(("pred", "ref"), PREDICATES, ids=[p[0] for p in PREDICATES])
def test_cmp_i32_against_scalar(ctx: ir.Context, pred: str, ref) -> None:  # type: ignore[no-untyped-def]
    t, o = tensor_type((50,), "i32"), tensor_type((50,), "i1")
    text = f"""func.func @f(%a: {t}) -> {o} {{
      %c = arith.constant -3 : i32
      %0 = dsl.cmp {pred}, %c, %a : (i32, {t}) -> {o}
      return %0 : {o} }}"""
    a = RNG.integers(-6, 0, 50, dtype=np.int32)
    out = np.zeros(50, np.bool_)
    run_text(text, [a], [out])
    np.testing.assert_array_equal(out, ref(np.int32(-3), a))


def test_cmp_select_chain_over_many_elements(ctx: ir.Context) -> None:
    """i1 values only in registers: the fused loop is vectorized and exact."""
    t = tensor_type((4099,), "f32")
    text = f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
      %m = dsl.cmp gt, %a, %b : {t}
      %z = arith.constant 0.0 : f32
      %0 = dsl.select %m, %a, %z : ({tensor_type((4099,), 'i1')}, {t}, f32) -> {t}
      return %0 : {t} }}"""
    a, b = RNG.standard_normal(4099).astype(np.float32), RNG.standard_normal(4099).astype(np.float32)
    out = np.zeros(4099, np.float32)
    run_text(text, [a, b], [out])
    np.testing.assert_array_equal(out, np.where(a > b, a, np.float32(0)))


def test_select_broadcasts_all_three(ctx: ir.Context) -> None:
    c_t, a_t, b_t = tensor_type((5, 1), "i1"), tensor_type((1, 23), "f64"), tensor_type((23,), "f64")
    o_t = tensor_type((5, 23), "f64")
    text = f"""func.func @f(%c: {c_t}, %a: {a_t}, %b: {b_t}) -> {o_t} {{
      %0 = dsl.select %c, %a, %b : ({c_t}, {a_t}, {b_t}) -> {o_t}
      return %0 : {o_t} }}"""
    c = np.array([[True], [False], [True], [True], [False]])
    a, b = RNG.standard_normal((1, 23)), RNG.standard_normal(23)
    out = np.zeros((5, 23))
    run_text(text, [c, a, b], [out])
    np.testing.assert_array_equal(out, np.where(c, a, b))


def test_broadcast_op(ctx: ir.Context) -> None:
    s, r = tensor_type((3, 1), "i16"), tensor_type((2, 3, 18), "i16")
    text = f"""func.func @f(%x: {s}) -> {r} {{
      %0 = dsl.broadcast %x : {s} -> {r}
      return %0 : {r} }}"""
    x = np.array([[1], [-2], [3]], np.int16)
    out = np.zeros((2, 3, 18), np.int16)
    run_text(text, [x], [out])
    np.testing.assert_array_equal(out, np.broadcast_to(x, (2, 3, 18)))


def test_dynamic_broadcast_against_row(ctx: ir.Context) -> None:
    d, row = tensor_type(("?", 19), "f32"), tensor_type((1, 19), "f32")
    text = f"""func.func @f(%x: {d}, %r: {row}) -> {d} {{
      %0 = dsl.sub %x, %r : ({d}, {row}) -> {d}
      %c = arith.constant 3.0 : f32
      %1 = dsl.mul %c, %0 : (f32, {d}) -> {d}
      return %1 : {d} }}"""
    x, r = RNG.standard_normal((33, 19)).astype(np.float32), RNG.standard_normal((1, 19)).astype(np.float32)
    out = np.zeros_like(x)
    run_text(text, [x, r], [out])
    np.testing.assert_allclose(out, 3 * (x - r), rtol=1e-6)


@pytest.mark.parametrize("vectorize", [True, False])
def test_fused_chain_same_result_with_and_without_vectorization(ctx: ir.Context, vectorize: bool) -> None:
    t = tensor_type((7, 301), "f32")
    text = f"""func.func @f(%x: {t}, %y: {t}) -> {t} {{
      %c = arith.constant 0.5 : f32
      %0 = dsl.mul %x, %c : ({t}, f32) -> {t}
      %1 = dsl.tanh %0 : {t}
      %2 = dsl.add %1, %y : {t}
      %3 = dsl.exp %2 : {t}
      return %3 : {t} }}"""
    x, y = RNG.standard_normal((7, 301)).astype(np.float32), RNG.standard_normal((7, 301)).astype(np.float32)
    out = np.zeros_like(x)
    run_text(text, [x, y], [out], options={"vectorize": vectorize})
    np.testing.assert_allclose(out, np.exp(np.tanh(x * 0.5) + y), rtol=5e-6)
