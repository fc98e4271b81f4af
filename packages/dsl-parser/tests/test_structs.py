"""@dc.struct parameters: one scalar MLIR parameter per leaf, attributes in the body."""

from __future__ import annotations

from pathlib import Path

import parser_struct_kernels as sk
import pytest

import dsl_parser.language as pl
from dsl_parser import ParserError, UnsupportedFeatureError


def test_struct_parameter_flattens_in_declaration_order() -> None:
    fn = pl.parse_function(sk.nested)
    assert [p.name for p in fn.signature.params] == ["x", "p.aff.scale", "p.aff.shift", "p.n"]
    assert [str(p.type) for p in fn.signature.params[1:]] == [
        "pl.Scalar[pl.FP32]", "pl.Scalar[pl.FP32]", "pl.Scalar[pl.INT64]"]
    text = str(fn)
    assert "func.func @nested(%arg0: tensor<4xf32>, %arg1: f32, %arg2: f32, %arg3: i64)" in text
    assert "dsl.mul %arg0, %arg1 : (tensor<4xf32>, f32)" in text and "dsl.add %0, %arg2" in text


def test_unknown_field_is_an_error_at_the_users_line() -> None:
    with pytest.raises(ParserError) as info:
        pl.parse_function(sk.missing_field)
    assert "has no attribute 'nope'" in str(info.value)
    lines = Path(sk.__file__).read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "p.nope" in text)
    span = info.value.span
    assert span is not None
    assert (span.begin_line, span.begin_column) == (line, lines[line - 1].index("p.nope") + 1)


def test_constexpr_fields_are_rejected_with_the_field_name() -> None:
    with pytest.raises(UnsupportedFeatureError, match=r"field 'p\.k' is a Constexpr"):
        pl.parse_function(sk.constexpr_field)
