"""The dsl dialect's tensor ops in the pl namespace: unary, binary with scalars and
broadcasting, reductions, comparisons, selection, shape ops and constructors."""

from __future__ import annotations

import re

import pytest
from parser_helpers import fn, raises_at

from dsl_parser import ParserTypeError

T = "pl.Tensor[[4, 8], pl.FP32]"
HEADER = """
    @pl.function
    def f(x: pl.Tensor[[4, 8], pl.FP32], r: pl.Tensor[[1, 8], pl.FP32],
          c: pl.Tensor[[4, 1], pl.FP32], i: pl.Tensor[[4, 8], pl.INT32],
          s: pl.Scalar[pl.FP32], k: pl.Scalar[pl.INDEX]):
"""


def body(*lines: str) -> str:
    return HEADER + "".join(f"        {line}\n" for line in lines)


def roundtrip(code: str) -> tuple[str, str]:
    """The IR of ``code`` and its printed Python, checking that the print parses back
    to the same IR."""
    f = fn(code)
    printed = f.as_python()
    again = fn(printed)
    assert str(again) == str(f), printed
    return str(f), printed


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "rsqrt", "tanh", "abs", "neg", "relu"])
def test_unary(name: str) -> None:
    ir_text, printed = roundtrip(body(f"y = pl.{name}(x)", "return y"))
    assert f"%0 = dsl.{name} %arg0 : tensor<4x8xf32>" in ir_text
    assert f"pl.{name}(x)" in printed


@pytest.mark.parametrize("name", ["abs", "neg", "relu"])
def test_unary_on_integers(name: str) -> None:
    ir_text, _ = roundtrip(body(f"y = pl.{name}(i)", "return y"))
    assert f"dsl.{name} %arg3 : tensor<4x8xi32>" in ir_text


def test_float_only_unary_rejects_integers() -> None:
    raises_at(ParserTypeError, body("y = pl.exp(i)"), 6, 9, ["pl.exp: takes floats", "pl.INT32"])
    raises_at(ParserTypeError, body("y = pl.pow(i, i)"), 6, 9, ["pl.pow: takes floats"])


def test_negation_operator_on_tensors() -> None:
    ir_text, printed = roundtrip(body("y = -x", "return y"))
    assert "dsl.neg %arg0 : tensor<4x8xf32>" in ir_text and "pl.neg(x)" in printed


@pytest.mark.parametrize("name", ["maximum", "minimum", "pow"])
def test_new_binary(name: str) -> None:
    ir_text, printed = roundtrip(body(f"y = pl.{name}(x, x)", "return y"))
    assert f"dsl.{name} %arg0, %arg0 : tensor<4x8xf32>" in ir_text
    assert f"pl.{name}(x, x)" in printed


@pytest.mark.parametrize(("expr", "mlir", "py"), [
    ("pl.add(x, 2.0)", r"dsl.add %arg0, %cst : \(tensor<4x8xf32>, f32\)", "pl.add(x, 2.0)"),
    ("x * 2.0", r"dsl.mul %arg0, %cst : \(tensor<4x8xf32>, f32\)", "pl.mul(x, 2.0)"),
    ("x / s", r"dsl.div %arg0, %arg4 : \(tensor<4x8xf32>, f32\)", "pl.div(x, s)"),
    ("1.0 - x", r"dsl.sub %cst, %arg0 : \(f32, tensor<4x8xf32>\)", "pl.sub(1.0, x)"),
    ("pl.maximum(x, 0.0)", r"dsl.maximum %arg0, %cst", "pl.maximum(x, 0.0)"),
])
def test_scalar_operands(expr: str, mlir: str, py: str) -> None:
    ir_text, printed = roundtrip(body(f"y = {expr}", "return y"))
    assert re.search(mlir, ir_text), ir_text
    assert "dsl.full" not in ir_text
    assert py in printed


def test_numpy_broadcasting() -> None:
    ir_text, printed = roundtrip(body("y = x - r", "z = c * r", "return z"))
    assert "dsl.sub %arg0, %arg1 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>" \
        in ir_text
    assert "dsl.mul %arg2, %arg1 : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>" \
        in ir_text
    assert "z: pl.Tensor[[4, 8], pl.FP32] = pl.mul(c, r)" in printed


def test_broadcasting_with_dynamic_and_missing_dims() -> None:
    f = fn("""
        M = pl.dynamic("M")

        @pl.function
        def f(x: pl.Tensor[[M, 8], pl.FP32], v: pl.Tensor[[8], pl.FP32],
              col: pl.Tensor[[M, 1], pl.FP32]):
            y = x + v
            z = col * v
            return y
    """)
    text = str(f)
    assert "dsl.add %arg0, %arg1 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>" in text
    assert "dsl.mul %arg2, %arg1 : (tensor<?x1xf32>, tensor<8xf32>) -> tensor<?x8xf32>" in text
    assert "y: pl.Tensor[[M, 8], pl.FP32]" in f.as_python()


def test_incompatible_broadcast_names_both_shapes() -> None:
    raises_at(ParserTypeError, body("y = x + pl.transpose(r, [1, 0])"), 6, 13,
              ["do not broadcast", "pl.Tensor[[4, 8], pl.FP32] and pl.Tensor[[8, 1], pl.FP32]",
               "dimension 0 is 4 vs 8"])


@pytest.mark.parametrize(("call", "mlir", "py"), [
    ("pl.sum(x, axis=1)", "dsl.sum %arg0 [1] : tensor<4x8xf32> -> tensor<4xf32>",
     "pl.sum(x, axis=1)"),
    ("pl.max(x, axis=-1, keepdim=True)",
     "dsl.max %arg0 [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>",
     "pl.max(x, axis=1, keepdim=True)"),
    ("pl.min(x)", "dsl.min %arg0 [0, 1] : tensor<4x8xf32> -> tensor<f32>", "pl.min(x)"),
    ("pl.mean(x, [0, 1], True)", "dsl.mean %arg0 [0, 1] keepdim : tensor<4x8xf32> -> "
     "tensor<1x1xf32>", "pl.mean(x, keepdim=True)"),
    ("pl.sum(i, axis=[0])", "dsl.sum %arg3 [0] : tensor<4x8xi32> -> tensor<8xi32>",
     "pl.sum(i, axis=0)"),
    ("pl.argmax(x, 1)", "dsl.argmax %arg0 axis 1 : tensor<4x8xf32> -> tensor<4xi64>",
     "pl.argmax(x, 1)"),
    ("pl.argmax(x, -2, keepdim=True)",
     "dsl.argmax %arg0 axis 0 keepdim : tensor<4x8xf32> -> tensor<1x8xi64>",
     "pl.argmax(x, 0, keepdim=True)"),
])
def test_reductions(call: str, mlir: str, py: str) -> None:
    ir_text, printed = roundtrip(body(f"y = {call}", "return y"))
    assert mlir in ir_text, ir_text
    assert py in printed


@pytest.mark.parametrize(("call", "col", "words"), [
    ("pl.sum(x, axis=2)", 24, ["axis 2 is out of range", "rank 2"]),
    ("pl.max(x, axis=[0, -2])", 24, ["repeat a dimension"]),
    ("pl.mean(i, axis=0)", 9, ["pl.mean: takes floats"]),
    ("pl.argmax(x, 5)", 22, ["axis 5 is out of range"]),
    ("pl.sum(x, axis=1.5)", 24, ["must be an int, a list of ints or None"]),
])
def test_reduction_errors(call: str, col: int, words: list[str]) -> None:
    raises_at(ParserTypeError, body(f"y = {call}"), 6, col, words)


@pytest.mark.parametrize(("expr", "pred", "py"), [
    ("x < r", "lt", "pl.lt(x, r)"), ("x >= 0.0", "ge", "pl.ge(x, 0.0)"),
    ("pl.eq(x, x)", "eq", "pl.eq(x, x)"), ("pl.ne(s, x)", "ne", "pl.ne(s, x)"),
    ("x <= s", "le", "pl.le(x, s)"), ("pl.gt(x, 1.0)", "gt", "pl.gt(x, 1.0)"),
])
def test_comparisons(expr: str, pred: str, py: str) -> None:
    ir_text, printed = roundtrip(body(f"m = {expr}", "return m"))
    assert re.search(rf"dsl.cmp {pred}, .* -> tensor<4x8xi1>|dsl.cmp {pred}, %\w+, %\w+ : "
                     r"tensor<4x8xf32>", ir_text), ir_text
    assert "m: pl.Tensor[[4, 8], pl.BOOL]" in printed and py in printed


def test_scalar_comparisons_unchanged() -> None:
    ir_text, _ = roundtrip(body("b = s < 1.0", "return x"))
    assert "arith.cmpf olt" in ir_text


def test_select() -> None:
    ir_text, printed = roundtrip(body("y = pl.select(x > 0.0, x, 0.0)", "return y"))
    assert re.search(r"dsl.select %\d+, %arg0, %cst\w* : \(tensor<4x8xi1>, tensor<4x8xf32>, "
                     r"f32\) -> tensor<4x8xf32>", ir_text), ir_text
    assert "pl.select(pl.gt(x, 0.0), x, 0.0)" in printed
    raises_at(ParserTypeError, body("y = pl.select(x, x, x)"), 6, 19, ["must be BOOL"])


def test_shape_ops() -> None:
    ir_text, printed = roundtrip(body(
        "t = pl.transpose(x, [1, 0])", "a = pl.reshape(x, [2, 16])",
        "b = pl.concat([x, x], 0)", "e = pl.expand_dims(x, 0)", "q = pl.squeeze(c, 1)",
        "w = pl.broadcast(r, [3, 4, 8])", "z = pl.assemble(x, r, [k, 0])", "return z"))
    for line in ("dsl.transpose %arg0 [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>",
                 "dsl.reshape %arg0 : tensor<4x8xf32> -> tensor<2x16xf32>",
                 "dsl.concat %arg0, %arg0 axis 0 : tensor<4x8xf32>, tensor<4x8xf32> -> "
                 "tensor<8x8xf32>",
                 "dsl.expand_dims %arg0 axis 0 : tensor<4x8xf32> -> tensor<1x4x8xf32>",
                 "dsl.squeeze %arg2 axis 1 : tensor<4x1xf32> -> tensor<4xf32>",
                 "dsl.broadcast %arg1 : tensor<1x8xf32> -> tensor<3x4x8xf32>",
                 "dsl.assemble %arg0, %arg1[%arg5, %c0] : tensor<1x8xf32> into "
                 "tensor<4x8xf32>"):
        assert line in ir_text, (line, ir_text)
    for line in ("pl.transpose(x, [1, 0])", "pl.reshape(x, [2, 16])", "pl.concat([x, x], 0)",
                 "pl.expand_dims(x, 0)", "pl.squeeze(c, 1)", "pl.broadcast(r, [3, 4, 8])",
                 "pl.assemble(x, r, [k, 0])"):
        assert line in printed, (line, printed)


@pytest.mark.parametrize(("call", "col", "words"), [
    ("pl.transpose(x, [0, 0])", 25, ["not a permutation"]),
    ("pl.reshape(x, [3, 3])", 23, ["32 elements", "9 elements"]),
    ("pl.concat([x, r], 1)", 19, ["differ in dtype, rank or a dimension"]),
    ("pl.expand_dims(x, 3)", 27, ["axis 3 is out of range"]),
    ("pl.squeeze(x, 0)", 23, ["dimension 0 of pl.Tensor[[4, 8], pl.FP32] is 4, not 1"]),
    ("pl.broadcast(x, [8, 8])", 25, ["cannot broadcast", "dimension 0 is 4 vs 8"]),
    ("pl.assemble(r, x, [0, 0])", 24, ["does not fit"]),
])
def test_shape_op_errors(call: str, col: int, words: list[str]) -> None:
    raises_at(ParserTypeError, body(f"y = {call}"), 6, col, words)


def test_constructors() -> None:
    ir_text, printed = roundtrip(body(
        "z = pl.zeros([2, 3])", "o = pl.ones([k], dtype=pl.INT32)",
        "a = pl.arange(5)", "b = pl.arange(k, start=1.0, step=0.5)", "return x"))
    assert re.search(r"%cst\w* = arith.constant 0.000000e\+00 : f32\n\s+%\d+ = dsl.full %cst\w* "
                     r": f32 -> tensor<2x3xf32>", ir_text), ir_text
    assert re.search(r"dsl.full %c1_i32\[%arg5\] : i32 -> tensor<\?xi32>", ir_text), ir_text
    assert re.search(r"dsl.arange %c0_i64, %c1_i64 : i64 -> tensor<5xi64>", ir_text), ir_text
    assert re.search(r"dsl.arange %cst\w*, %cst\w*\[%arg5\] : f32 -> tensor<\?xf32>", ir_text)
    assert "pl.full([2, 3], 0.0, dtype=pl.FP32)" in printed
    assert "pl.arange(5, start=0, step=1, dtype=pl.INT64)" in printed
    assert "pl.arange(k, start=1.0, step=0.5, dtype=pl.FP32)" in printed
    raises_at(ParserTypeError, body("a = pl.arange(-1)"), 6, 19, ["must be a size"])
    raises_at(ParserTypeError, body("a = pl.arange(4, start=0.5, dtype=pl.INT32)"), 6, 28,
              ["float literal 0.5"])
