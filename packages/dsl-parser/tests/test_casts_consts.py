"""Scalar pl.cast (INDEX included), the signedness the parser gives dsl ops, and float
constants that do not fit their dtype (issue 19)."""

from __future__ import annotations

import pytest
from parser_helpers import fn, raises_at

from dsl_parser import ParserTypeError, UnsupportedFeatureError


def function(*lines: str, params: str = "x: pl.Tensor[[4], pl.FP32]") -> str:
    """``def f(params)``: the body starts on line 4."""
    body = "".join(f"    {line}\n" for line in lines)
    return f'N = pl.dynamic("N")\n\n@pl.function\ndef f({params}):\n{body}'


# -- out-of-range float constants ------------------------------------------------------------
@pytest.mark.parametrize(("literal", "dtype", "largest"), [
    ("1.797e308", "FP32", "3.4028234663852886e+38"), ("-1e39", "FP32", "3.4028234663852886e+38"),
    ("3.4028236e38", "FP32", "3.4028234663852886e+38"), ("65520.0", "FP16", "65504.0"),
    ("70000.0", "FP16", "65504.0"), ("3.4e38", "BF16", "3.3895313892515355e+38"),
    ("2 ** 20", "FP16", "65504.0"), ("100000", "FP16", "65504.0"),
])
def test_out_of_range_float_constants_are_errors(literal: str, dtype: str, largest: str) -> None:
    code = function(f"c = pl.const({literal}, pl.{dtype})", "return x")
    raises_at(ParserTypeError, code, 5, 18,
              ["pl.const", f"out of range for pl.{dtype}", "would become infinity", largest])


@pytest.mark.parametrize(("literal", "dtype", "mlir"), [
    ("65504.0", "FP16", "6.550400e+04 : f16"), ("65519.0", "FP16", "6.550400e+04 : f16"),
    ("3.4028235e38", "FP32", "3.40282347E+38 : f32"), ("1.797e308", "FP64", "1.797000e+308 : f64"),
    ("-3.38e38", "BF16", "-3.376240e+38 : bf16"),
])
def test_largest_float_constants_still_fit(literal: str, dtype: str, mlir: str) -> None:
    """Values that round to the largest finite value are not errors (round to nearest)."""
    f = fn(function(f"c = pl.const({literal}, pl.{dtype})", "return x"))
    assert f"arith.constant {mlir}" in str(f), str(f)


def test_out_of_range_literal_operand_of_a_tensor_op() -> None:
    code = function("y = pl.mul(x, 1e39)", "return y")
    raises_at(ParserTypeError, code, 5, 19, ["out of range for pl.FP32"])
    code = function("y = x * 1e39", "return y")
    raises_at(ParserTypeError, code, 5, 13, ["out of range for pl.FP32"])


# -- scalar pl.cast ------------------------------------------------------------------------------
def roundtrip(code: str) -> str:
    f = fn(code)
    again = fn(f.as_python())
    assert str(again) == str(f), f.as_python()
    return str(f)


def test_index_to_data_emits_arith_casts_and_prints_back() -> None:
    ir_text = roundtrip(function(
        "for i, (acc,) in pl.range(4, init_values=(x,)):",
        "    a = pl.add(acc, pl.cast(i, pl.FP32))",
        "    out = pl.yield_(a)",
        "n = pl.cast(pl.dim(y, 0), pl.UINT8)",
        "k = pl.cast(n, pl.INDEX)",
        "b = pl.cast(k, pl.BOOL)",
        "return out",
        params="x: pl.Tensor[[4], pl.FP32], y: pl.Tensor[[N], pl.FP32]"))
    assert "arith.index_cast %arg2 : index to i64" in ir_text
    for op in ("arith.sitofp", "arith.trunci", "arith.extui", "arith.cmpi ne"):
        assert op in ir_text, (op, ir_text)


@pytest.mark.parametrize(("source", "target", "ops"), [
    ("UINT8", "INT32", ["arith.extui"]), ("INT8", "INT32", ["arith.extsi"]),
    ("UINT16", "FP32", ["arith.uitofp"]), ("INT16", "FP64", ["arith.sitofp"]),
    ("FP32", "UINT32", ["arith.fptoui"]), ("FP32", "INT8", ["arith.fptosi"]),
    ("INT64", "INT8", ["arith.trunci"]), ("FP16", "BF16", ["arith.extf", "arith.truncf"]),
    ("UINT32", "INDEX", ["arith.extui", "arith.index_cast"]),
    ("FP32", "INDEX", ["arith.fptosi", "arith.index_cast"]),
    ("INT8", "UINT8", []),
])
def test_scalar_cast_ops(source: str, target: str, ops: list[str]) -> None:
    ir_text = roundtrip(function(f"c = pl.cast(s, pl.{target})", "return x",
                                 params=f"x: pl.Tensor[[4], pl.FP32], s: pl.Scalar[pl.{source}]"))
    body = ir_text.split("{", 1)[1]
    for op in ops:
        assert op in body, (op, ir_text)
    casts = [w for w in body.split() if w.startswith("arith.") and w != "arith.constant"]
    assert len(casts) == len(ops), ir_text


def test_cast_of_a_number_is_an_error() -> None:
    code = function("c = pl.cast(3, pl.INT32)", "return x")
    raises_at(ParserTypeError, code, 5, 17, ["pl.cast", "use pl.const(3, pl.INT32)"])


def test_tensor_cast_stays_a_tensor_op_in_kernels() -> None:
    from parser_kernel_helpers import raises_at as kernel_raises_at
    from test_kernels_errors import kernel

    kernel_raises_at(UnsupportedFeatureError, kernel("y = pl.cast(x, pl.FP16)"), 3,
                     ["pl.cast is a tensor operation"], col=9)


# -- the signedness the parser gives dsl ops -------------------------------------------------
@pytest.mark.parametrize(("expr", "mlir"), [
    ("pl.maximum(a, b)", "dsl.maximum %arg0, %arg1 {is_unsigned}"),
    ("pl.div(a, b)", "dsl.div %arg0, %arg1 {is_unsigned}"),
    ("a < b", "dsl.cmp lt, %arg0, %arg1 {is_unsigned}"),
    ("pl.relu(a)", "dsl.relu %arg0 {is_unsigned}"),
    ("pl.max(a, axis=0)", "dsl.max %arg0 [0] {is_unsigned}"),
    ("pl.argmax(a, 0)", "dsl.argmax %arg0 axis 0 {is_unsigned}"),
    ("pl.cast(a, pl.FP32)", "dsl.cast %arg0 {source_unsigned}"),
    ("pl.cast(x, pl.UINT16)", "dsl.cast %arg2 {result_unsigned}"),
    ("pl.cast(a, pl.UINT32)", "dsl.cast %arg0 {result_unsigned, source_unsigned}"),
])
def test_unsigned_operands_mark_their_ops(expr: str, mlir: str) -> None:
    f = fn(function(f"y = {expr}", "return y",
                    params="a: pl.Tensor[[4], pl.UINT8], b: pl.Tensor[[4], pl.UINT8], "
                           "x: pl.Tensor[[4], pl.FP32], s: pl.Tensor[[4], pl.INT8]"))
    assert mlir in str(f), str(f)


@pytest.mark.parametrize("expr", ["pl.maximum(s, s)", "s < s", "pl.cast(s, pl.INT32)",
                                  "pl.max(s, axis=0)", "pl.cast(x, pl.INT16)"])
def test_signed_operands_are_unmarked(expr: str) -> None:
    f = fn(function(f"y = {expr}", "return y",
                    params="a: pl.Tensor[[4], pl.UINT8], x: pl.Tensor[[4], pl.FP32], "
                           "s: pl.Tensor[[4], pl.INT8]"))
    assert "unsigned" not in str(f), str(f)
