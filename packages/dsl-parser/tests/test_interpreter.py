"""The reference interpreter: the DSL's semantics in numpy, checked against hand-computed
values (not against numpy's own rules where the DSL differs: integer division, casts,
unsigned arithmetic, bf16 rounding)."""

from __future__ import annotations

import subprocess
import sys
import traceback

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_parser import ParserTypeError, ops
from dsl_parser.interpreter import (
    ITensor,
    UndefinedBehaviorError,
    interpret,
    interpreted,
)
from dsl_parser.ops.numerics import round_bf16

N = pl.dynamic("N")


@pl.function
def idiv(a: pl.Tensor[[4], pl.INT32], b: pl.Tensor[[4], pl.INT32]):
    return pl.div(a, b)


def test_integer_division_truncates_toward_zero() -> None:
    a = np.array([-7, 7, -7, 7], np.int32)
    b = np.array([2, -2, -2, 2], np.int32)
    assert interpret(idiv, a, b).tolist() == [-3, -3, 3, 3]  # numpy's // gives -4, -4, 3, 3


def test_integer_division_by_zero_is_undefined() -> None:
    a = np.array([1, 2, 3, 4], np.int32)
    with pytest.raises(UndefinedBehaviorError, match=r"pl.div at .*test_interpreter.py:\d+"):
        interpret(idiv, a, np.array([1, 0, 1, 1], np.int32))
    with pytest.raises(UndefinedBehaviorError, match="overflows"):
        interpret(idiv, np.full(4, -2**31, np.int32), np.full(4, -1, np.int32))


@pl.function
def scalar_div_rem(a: pl.Scalar[pl.INT32], b: pl.Scalar[pl.INT32], x: pl.Tensor[[2], pl.INT32]):
    q = a // b
    r = a % b
    return pl.add(pl.mul(x, q), r)


def test_scalar_floor_division_and_remainder_follow_python() -> None:
    # '//' is arith.floordivsi (toward -inf), '%' takes the divisor's sign (a - (a // b) * b)
    out = interpret(scalar_div_rem, -7, 2, np.array([1, 0], np.int32))
    assert out.tolist() == [-4 + 1, 1]
    out = interpret(scalar_div_rem, 7, -2, np.array([1, 0], np.int32))
    assert out.tolist() == [-4 + -1, -1]


@pl.function
def u8_ops(x: pl.Tensor[[3], pl.UINT8], y: pl.Tensor[[3], pl.UINT8]):
    s = pl.add(x, y)
    m = pl.maximum(x, y)
    c = pl.cast(pl.gt(x, y), pl.UINT8)
    w = pl.cast(x, pl.INT64)
    f = pl.cast(x, pl.FP32)
    return s, m, c, w, f


def test_unsigned_semantics() -> None:
    x = np.array([200, 5, 255], np.uint8)
    y = np.array([100, 6, 1], np.uint8)
    s, m, c, w, f = interpret(u8_ops, x, y)
    assert s.tolist() == [44, 11, 0]          # wraps modulo 256
    assert m.tolist() == [200, 6, 255]        # unsigned maximum
    assert c.tolist() == [1, 0, 1]            # unsigned compare: 200 > 100, 255 > 1
    assert w.dtype == np.int64 and w.tolist() == [200, 5, 255]  # zero-extended
    assert f.tolist() == [200.0, 5.0, 255.0]  # uitofp


@pl.function
def casts(x: pl.Tensor[[4], pl.FP32]):
    return pl.cast(x, pl.INT8), pl.cast(x, pl.BOOL), pl.cast(x, pl.FP16)


def test_float_to_int_truncates_and_out_of_range_is_undefined() -> None:
    i, b, h = interpret(casts, np.array([-2.7, 2.7, 0.0, 127.9], np.float32))
    assert i.tolist() == [-2, 2, 0, 127]
    assert b.tolist() == [True, True, False, True]
    assert h.dtype == np.float16
    with pytest.raises(UndefinedBehaviorError, match=r"does not fit pl\.INT8"):
        interpret(casts, np.array([128.0, 0, 0, 0], np.float32))
    with pytest.raises(UndefinedBehaviorError, match="nan"):
        interpret(casts, np.array([np.nan, 0, 0, 0], np.float32))


def test_bf16_rounding_is_round_to_nearest_even() -> None:
    one_plus = np.float32(1 + 2**-8)            # halfway between 1 and 1 + 2**-7: ties to 1
    above = np.float32(1 + 2**-8 + 2**-20)      # just above halfway: rounds up
    three_halves = np.float32(1 + 3 * 2**-8)    # halfway between 1+2**-7 and 1+2**-6: to even
    got = round_bf16(np.array([one_plus, above, three_halves, np.nan], np.float32))
    assert got[:3].tolist() == [1.0, 1 + 2**-7, 1 + 2**-6]
    assert np.isnan(got[3])


@pl.function
def bf16_add(x: pl.Tensor[[2], pl.BF16], y: pl.Tensor[[2], pl.BF16]):
    return pl.add(x, y)


def test_bf16_values_travel_as_uint16_bits() -> None:
    def bits(values: list[float]) -> np.ndarray:
        return (np.array(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)

    out = interpret(bf16_add, bits([1.0, 256.0]), bits([2**-8, 1.0]))
    assert out.dtype == np.uint16
    values = (out.astype(np.uint32) << 16).view(np.float32)
    assert values.tolist() == [1.0, 256.0]  # 1 + 2**-8 and 257 round to even in bf16


@pl.function
def iter_loop(x: pl.Tensor[[3], pl.FP32], n: pl.Scalar[pl.INDEX]):
    start = pl.mul(x, 1.0)
    for _i, (acc,) in pl.range(n, init_values=(start,)):
        nxt = pl.add(acc, x)
        out = pl.yield_(nxt)
    return out


def test_loop_with_iter_args_including_zero_trips() -> None:
    x = np.array([1.0, 2.0, 3.0], np.float32)
    assert interpret(iter_loop, x, 3).tolist() == [4.0, 8.0, 12.0]
    assert interpret(iter_loop, x, 0).tolist() == [1.0, 2.0, 3.0]


@pl.function
def branchy(x: pl.Tensor[[2], pl.INT32], s: pl.Scalar[pl.INT32]):
    if s > 0:
        r = pl.yield_(pl.add(x, s))
    elif s == 0:
        r = pl.yield_(x)
    else:
        r = pl.yield_(pl.neg(x))
    return r


def test_if_elif_else_with_yields() -> None:
    x = np.array([1, -2], np.int32)
    assert interpret(branchy, x, 5).tolist() == [6, 3]
    assert interpret(branchy, x, 0).tolist() == [1, -2]
    assert interpret(branchy, x, -1).tolist() == [-1, 2]


@pl.function(strict_ssa=False)
def nonstrict(x: pl.Tensor[[2], pl.FP32]):
    acc = pl.mul(x, 0.0)
    for _i in pl.range(4):
        acc = pl.add(acc, x)
    return acc


def test_non_strict_loop_carried_values() -> None:
    assert interpret(nonstrict, np.array([1.0, 0.5], np.float32)).tolist() == [4.0, 2.0]


@pl.function
def window(x: pl.Tensor[[N, 4], pl.FP32], o: pl.Scalar[pl.INDEX]):
    return pl.slice(x, [2, 2], [o, 1])


def test_slice_offsets_are_bounds_checked_at_the_op_line() -> None:
    x = np.arange(20, dtype=np.float32).reshape(5, 4)
    assert interpret(window, x, 3).tolist() == [[13.0, 14.0], [17.0, 18.0]]
    line = window.python.__code__.co_firstlineno + 2
    with pytest.raises(IndexError, match=rf"pl.slice at .*test_interpreter.py:{line}: offset 4 "
                                         r"with size 2 is out of bounds for dimension 0 of size 5"):
        interpret(window, x, 4)


@pl.function
def put(dst: pl.Tensor[[4], pl.INT64], src: pl.Tensor[[2], pl.INT64], o: pl.Scalar[pl.INDEX]):
    return pl.assemble(dst, src, [o])


def test_assemble_copies_and_checks_bounds() -> None:
    dst = np.zeros(4, np.int64)
    out = interpret(put, dst, np.array([7, 8]), 1)
    assert out.tolist() == [0, 7, 8, 0] and dst.tolist() == [0, 0, 0, 0]  # dst is a value
    with pytest.raises(IndexError, match=r"pl\.assemble at"):
        interpret(put, dst, np.array([7, 8]), 3)


def negative_window(x: pl.Tensor[[6], pl.INT32]):
    return x[1:-2]


def test_negative_subscript_bounds_follow_python() -> None:
    assert interpret(negative_window, np.arange(6, dtype=np.int32)).tolist() == [1, 2, 3]


@pl.function
def mm8(a: pl.Tensor[[1, 2], pl.INT8], b: pl.Tensor[[2, 1], pl.INT8]):
    return pl.matmul(a, b), pl.matmul(a, b, out_dtype=pl.INT32)


def test_matmul_accumulates_in_the_result_dtype() -> None:
    a = np.array([[100, 100]], np.int8)
    b = np.array([[2], [1]], np.int8)
    wrapped, wide = interpret(mm8, a, b)
    assert wrapped.dtype == np.int8 and wrapped.tolist() == [[300 - 256]]
    assert wide.dtype == np.int32 and wide.tolist() == [[300]]


@pl.function
def reductions(x: pl.Tensor[[2, 3], pl.INT8], f: pl.Tensor[[2, 0], pl.FP32]):
    return pl.sum(x, axis=1), pl.argmax(x, 0), pl.max(f, axis=1), pl.min(x, axis=[0, 1],
                                                                           keepdim=True)


def test_reductions_keep_the_dtype_and_identities() -> None:
    x = np.array([[100, 100, 1], [-1, 5, 5]], np.int8)
    s, am, mx, mn = interpret(reductions, x, np.zeros((2, 0), np.float32))
    assert s.dtype == np.int8 and s.tolist() == [201 - 256, 9]
    assert am.dtype == np.int64 and am.tolist() == [0, 0, 1]
    assert mx.tolist() == [-np.inf, -np.inf]   # max over an empty axis is its identity
    assert mn.tolist() == [[-1]]


@pl.program
class Calls:
    def square(self, x: pl.Tensor[[2], pl.INT32]) -> pl.Tensor[[2], pl.INT32]:
        return pl.mul(x, x)

    def main(self, a: pl.Tensor[[2], pl.INT32], b: pl.Tensor[[2], pl.INT32]):
        return pl.add(self.square(a), self.square(b))


def test_program_method_calls() -> None:
    f = interpreted(Calls, entry="main")
    assert f(np.array([1, 2], np.int32), np.array([3, 4], np.int32)).tolist() == [10, 20]


def debug_me(x: pl.Tensor[[2], pl.FP32]):
    y = pl.exp(x)
    print("inside:", y.numpy().round(3).tolist())
    return pl.add(y, 1.0)


def test_print_runs_inside_the_function(capsys: pytest.CaptureFixture[str]) -> None:
    out = interpret(debug_me, np.zeros(2, np.float32))
    assert out.tolist() == [2.0, 2.0]
    assert capsys.readouterr().out == "inside: [1.0, 1.0]\n"


def fails_at_line(x: pl.Tensor[[2], pl.FP32]):
    y = pl.add(x, 1.0)
    z = y.numpy()[5]  # a Python error inside the DSL function: the traceback shows this line
    return z


def test_tracebacks_point_at_the_users_lines() -> None:
    with pytest.raises(IndexError) as info:
        interpret(fails_at_line, np.zeros(2, np.float32))
    frames = traceback.extract_tb(info.value.__traceback__)
    line = fails_at_line.__code__.co_firstlineno + 2
    assert any(f.filename == __file__ and f.lineno == line and "z = y.numpy()[5]" in (f.line or "")
               for f in frames)


def bad_shapes(x: pl.Tensor[[2, 3], pl.FP32], y: pl.Tensor[[3, 2], pl.FP32]):
    return pl.add(x, y)


def test_type_errors_use_the_parsers_messages() -> None:
    with pytest.raises(ParserTypeError, match=r"pl\.add: operands have different shapes that do "
                                              "not broadcast") as info:
        interpret(bad_shapes, np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))
    assert info.value.span is not None
    assert info.value.span.begin_line == bad_shapes.__code__.co_firstlineno + 1


def test_arguments_are_checked_like_the_runtime_checks_them() -> None:
    with pytest.raises(TypeError, match="expects element type int32, got float64"):
        interpret(idiv, np.zeros(4), np.zeros(4, np.int32))
    with pytest.raises(ValueError, match="has shape"):
        interpret(idiv, np.zeros(3, np.int32), np.zeros(4, np.int32))


@pl.kernel
def scale_k(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32], n: pl.Scalar[pl.INDEX]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        z[i] = x[i] * 2.0


def scale(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32]):
    scale_k(x, z, x.shape[0]).launch(grid=(pl.ceil_div(x.shape[0], 4),), block=(4,))


@pl.kernel
def oob_k(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32]):
    i = pl.thread_id(0)
    z[i] = x[i + 1]


def oob(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32]):
    oob_k(x, z).launch(grid=(1,), block=(x.shape[0],))


def test_kernel_launch_runs_every_thread_and_writes_outputs() -> None:
    x = np.arange(10, dtype=np.float32)
    z = np.zeros(10, np.float32)
    interpret(scale, x, z)
    assert z.tolist() == (2 * x).tolist()


def test_kernel_element_accesses_are_bounds_checked() -> None:
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for dimension 0 of size 4 "
                                         r"\(shape \[4\]\) \(at .*test_interpreter.py:\d+\)"):
        interpret(oob, np.zeros(4, np.float32), np.zeros(4, np.float32))


def test_every_op_has_a_reference_rule() -> None:
    missing = [name for name, rule in ops.OPS.items() if rule.reference is None]
    assert missing == []


def test_a_pl_op_without_reference_cannot_be_registered() -> None:
    rule = ops.OPS["neg"]
    from dataclasses import replace

    with pytest.raises(ValueError, match=r"pl\.neg2 has no reference rule"):
        ops.register(replace(rule, name="neg2", mlir_name=None, reference=None))
    assert "neg2" not in ops.OPS


def test_extension_op_without_reference_is_not_implemented() -> None:
    from dataclasses import replace

    from dsl_parser.markers import OpBuiltin

    ops.register(replace(ops.OPS["neg"], name="twice", mlir_name=None, namespace="tq",
                         reference=None))
    twice = OpBuiltin("tq.twice")

    def f(x: pl.Tensor[[2], pl.FP32]):
        return twice(x)

    try:
        with pytest.raises(NotImplementedError, match=r"tq\.twice has no reference rule"):
            interpret(f, np.zeros(2, np.float32))
    finally:
        ops.unregister("tq.twice")


def test_inputs_are_not_written() -> None:
    x = np.array([1.0, 2.0, 3.0], np.float32)
    before = x.copy()
    interpret(iter_loop, x, 2)
    assert np.array_equal(x, before)


def test_results_are_itensors_inside_and_arrays_outside() -> None:
    seen: list[object] = []

    def probe(x: pl.Tensor[[2], pl.FP32]):
        y = pl.neg(x)
        seen.append(y)
        return y

    out = interpret(probe, np.ones(2, np.float32))
    assert isinstance(seen[0], ITensor) and isinstance(out, np.ndarray)


def test_markers_outside_the_interpreter_still_refuse() -> None:
    code = ("import dsl_parser.language as pl\n"
            "try:\n    pl.add(1, 2)\nexcept RuntimeError as e:\n    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and "refused: pl.add(...) only has a meaning" in out.stdout
