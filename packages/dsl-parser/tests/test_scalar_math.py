"""pl.exp/log/sqrt/rsqrt/tanh/abs of scalar values: the math dialect, printing, errors."""

from __future__ import annotations

import pytest

import dsl_parser.language as pl
from dsl_parser import ParserTypeError, structural_equal


def f32_math(x: pl.Scalar[pl.FP32], y: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    a = pl.exp(x) + pl.log(x) + pl.sqrt(x) + pl.rsqrt(x) + pl.tanh(x) + pl.abs(x)
    return pl.mul(y, a)


def narrow(h: pl.Scalar[pl.FP16], b: pl.Scalar[pl.BF16], i: pl.Scalar[pl.INT16],
           u: pl.Scalar[pl.UINT8], y: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    s = pl.cast(pl.exp(h), pl.FP32) + pl.cast(pl.sqrt(b), pl.FP32)
    t = pl.cast(pl.abs(i), pl.FP32) + pl.cast(pl.abs(u), pl.FP32)
    return pl.mul(y, s + t)


def ints(i: pl.Scalar[pl.INT32], y: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    return pl.mul(y, pl.cast(pl.exp(i), pl.FP32))


def literal(y: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    return pl.mul(y, pl.exp(2.0))


def relu_scalar(x: pl.Scalar[pl.FP32], y: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    return pl.mul(y, pl.relu(x))


def _ops(fn: object) -> list[str]:
    f = pl.parse_function(fn)
    return [op.operation.name for op in f.func_op.regions[0].blocks[0].operations]


def test_float_scalars_use_the_math_dialect_and_print_back() -> None:
    ops = _ops(f32_math)
    for name in ("math.exp", "math.log", "math.sqrt", "math.rsqrt", "math.tanh", "math.absf"):
        assert name in ops
    f = pl.parse_function(f32_math)
    text = f.as_python()
    assert "pl.exp(x)" in text and "pl.abs(x)" in text
    assert structural_equal(pl.parse(text), f)


def test_narrow_floats_compute_in_fp32_and_integers_use_absi() -> None:
    ops = _ops(narrow)
    assert ops.count("arith.extf") >= 2 and ops.count("arith.truncf") >= 2  # f16, bf16
    assert "math.absi" in ops  # INT16; UINT8's abs is the value itself
    assert ops.count("math.absi") == 1
    f = pl.parse_function(narrow)
    assert structural_equal(pl.parse(f.as_python()), f)


@pytest.mark.parametrize(("fn", "message"), [
    (ints, "pl.exp: takes a float scalar, got pl.Scalar[pl.INT32]"),
    (literal, "pl.exp: argument 'x' must be a tensor or a scalar value, got float 2.0"),
    (relu_scalar, "pl.relu: argument 'x' must be a tensor, got"),
])
def test_errors_name_the_op_and_the_argument(fn: object, message: str) -> None:
    with pytest.raises(ParserTypeError) as err:
        pl.parse_function(fn)
    assert message in str(err.value)


def trig(a: pl.Scalar[pl.FP64], b: pl.Scalar[pl.FP16], c: pl.Scalar[pl.INT32],
         y: pl.Tensor[[2], pl.FP64]) -> pl.Tensor[[2], pl.FP64]:
    s = pl.fma(pl.sin(a), pl.cos(a), pl.floor(a) + pl.ceil(a))
    t = pl.cast(pl.sin(b), pl.FP64)
    u = pl.cast(pl.select(c > 0, c, 0), pl.FP64)
    return pl.mul(y, s + t + u)


def sin_of_tensor(y: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    return pl.sin(y)


def fma_mixed(a: pl.Scalar[pl.FP32], b: pl.Scalar[pl.FP64],
              y: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    return pl.mul(y, pl.fma(a, a, b))


def select_literals(c: pl.Scalar[pl.BOOL], y: pl.Tensor[[2], pl.FP32]) -> pl.Tensor[[2], pl.FP32]:
    return pl.mul(y, pl.select(c, 1.0, 2.0))


def test_scalar_only_math_and_scalar_select() -> None:
    ops = _ops(trig)
    for name in ("math.sin", "math.cos", "math.floor", "math.ceil", "math.fma", "arith.select"):
        assert name in ops, name
    assert ops.count("math.sin") == 2 and "arith.extf" in ops  # FP16 in FP32
    f = pl.parse_function(trig)
    text = f.as_python()
    assert "pl.fma(pl.sin(a), pl.cos(a), pl.floor(a) + pl.ceil(a))" in text
    assert "pl.select(c > 0, c, 0)" in text
    assert structural_equal(pl.parse(text), f)


@pytest.mark.parametrize(("fn", "message"), [
    (sin_of_tensor, "pl.sin: takes float scalar values, got pl.Tensor[[2], pl.FP32]"),
    (fma_mixed, "pl.fma: operands have different types: pl.Scalar[pl.FP32] and "
                "pl.Scalar[pl.FP64]"),
    (select_literals, "pl.select: at least one of a and b must be a tensor or a scalar value"),
])
def test_scalar_only_math_errors(fn: object, message: str) -> None:
    with pytest.raises(ParserTypeError) as err:
        pl.parse_function(fn)
    assert message in str(err.value)
