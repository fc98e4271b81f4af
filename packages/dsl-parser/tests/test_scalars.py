"""Scalar arithmetic and comparisons: arith ops by dtype, literal typing, folding."""

from __future__ import annotations

import re

import pytest
from parser_helpers import fn, raises_at

from dsl_parser import ParserTypeError, UnsupportedFeatureError


def _body(params: str, body: str, ret: str = "") -> str:
    return f"""
        @pl.function
        def f({params}){ret}:
            {body}
    """


@pytest.mark.parametrize(("expr", "op"), [
    ("i * 64", "arith.muli %arg0, %c64 : index"),
    ("i + 1", "arith.addi %arg0, %c1 : index"),
    ("i - 1", "arith.subi %arg0, %c1 : index"),
    ("i // 2", "arith.floordivsi %arg0, %c2 : index"),
    ("i % 3", "arith.floordivsi %arg0, %c3 : index"),  # then i - (i // 3) * 3: Python's sign
    ("i == 0", "arith.cmpi eq, %arg0, %c0 : index"),
    ("i != 0", "arith.cmpi ne, %arg0, %c0 : index"),
    ("i < 10", "arith.cmpi slt, %arg0, %c10 : index"),
    ("i >= 10", "arith.cmpi sge, %arg0, %c10 : index"),
])
def test_index_arithmetic(expr: str, op: str) -> None:
    f = fn(_body("i: pl.Scalar[pl.INDEX]", f"r = {expr}"))
    assert op in str(f)


def test_literals_adopt_the_other_operand_type() -> None:
    f = fn(_body("a: pl.Scalar[pl.INT32], x: pl.Scalar[pl.FP16]",
                 "b = a * 3\n            y = x + 1\n            c = 2 * a"))
    text = str(f)
    assert "%c3_i32 = arith.constant 3 : i32" in text
    assert re.search(r"arith.constant 1.000000e\+00 : f16\n\s+%\d+ = arith.addf %arg1", text)
    assert re.search(r"%c2_i32 = arith.constant 2 : i32\n\s+%\d+ = arith.muli %c2_i32, %arg0",
                     text)


def test_unsigned_and_float_ops() -> None:
    f = fn(_body("u: pl.Scalar[pl.UINT16], x: pl.Scalar[pl.FP64]",
                 "a = u // 7\n            b = u % 7\n            c = u < 7\n"
                 "            d = x / 2.0\n            e = x != 1.0\n            g = -x"))
    text = str(f)
    for op in ("arith.divui", "arith.remui", "arith.cmpi ult", "arith.divf",
               "arith.cmpf une", "arith.negf"):
        assert op in text, op


def test_literal_defaults_and_typed_const() -> None:
    f = fn(_body("x: pl.Tensor[[2], pl.FP32]",
                 "a = pl.const(42, pl.INT64)\n            b = pl.const(3.0, pl.FP32)\n"
                 "            c = pl.const(True, pl.BOOL)\n            return x"))
    text = str(f)
    assert "arith.constant 42 : i64" in text
    assert "arith.constant 3.000000e+00 : f32" in text
    assert "arith.constant true" in text


def test_python_numbers_fold_at_compile_time() -> None:
    f = fn(_body("i: pl.Scalar[pl.INDEX]", "n = (3 + 4) * 2 - 1\n            r = i + n"))
    text = str(f)
    assert "arith.constant 13 : index" in text
    assert text.count("arith.") == 2


def test_bool_ops() -> None:
    f = fn(_body("i: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.BOOL]",
                 "c = (i > 1 and b) or not b"))
    text = str(f)
    assert "arith.andi" in text and "arith.ori" in text and "arith.xori" in text
    assert "c: pl.Scalar[pl.BOOL] = i > 1 and b or not b" in f.as_python()


def test_and_or_short_circuit_operands_that_may_fault() -> None:
    """As in Python, an operand that may fault (a division here; element accesses and
    calls too) is evaluated only when the ones before it leave the result open: an
    scf.if holds it. Comparisons of scalars stay arith.andi/ori of both sides."""
    f = fn(_body("i: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]",
                 "c = i > 0 and n // i > 2\n            d = i == 0 or n // i > 2\n"
                 "            e = i < n and i > 0 and n > 0"))
    text = str(f)
    assert text.count("scf.if") == 2 and text.count("arith.floordivsi") == 2
    blocks = re.findall(r"scf\.if %\d+ -> \(i1\) \{(.*?)\} else \{(.*?)\}", text, re.S)
    (and_then, and_else), (or_then, or_else) = blocks
    assert "floordivsi" in and_then and "arith.constant false" in and_else
    assert "arith.constant true" in or_then and "floordivsi" in or_else
    tail = text[text.rindex("scf.yield"):]
    assert tail.count("arith.andi") == 2 and "scf.if" not in tail


@pytest.mark.parametrize(("params", "body", "line_col", "words", "cls"), [
    ("a: pl.Scalar[pl.INT32], b: pl.Scalar[pl.INDEX]", "c = a + b", (4, 9),
     ["operands of '+' have different types", "pl.Scalar[pl.INT32]", "pl.Scalar[pl.INDEX]"],
     ParserTypeError),
    ("a: pl.Scalar[pl.INDEX]", "c = a / 2", (4, 9), ["operator '/' is not defined"],
     ParserTypeError),
    ("a: pl.Scalar[pl.INDEX]", "c = a + 1.5", (4, 13), ["float literal 1.5"], ParserTypeError),
    ("a: pl.Scalar[pl.INDEX]", "c = 0 < a < 5", (4, 9), ["chained comparisons"],
     UnsupportedFeatureError),
    ("a: pl.Scalar[pl.INDEX]", "c = a ** 2", (4, 9), ["'**'"], ParserTypeError),
    ("a: pl.Scalar[pl.INDEX]", "c = 1 // 0", (4, 9), ["cannot evaluate 1 // 0"],
     ParserTypeError),
    ("a: pl.Scalar[pl.INDEX]", "c = a and a", (4, 9), ["takes BOOL scalars"], ParserTypeError),
    ("x: pl.Tensor[[2], pl.INT32]", "c = x < 1.5", (4, 13), ["pl.lt: float literal 1.5"],
     ParserTypeError),
])
def test_scalar_errors(params: str, body: str, line_col: tuple[int, int], words: list[str],
                       cls: type) -> None:
    raises_at(cls, _body(params, body), *line_col, words)


def test_index_division_hint() -> None:
    err = raises_at(ParserTypeError, _body("a: pl.Scalar[pl.INDEX]", "c = a / 2"), 4, 9)
    assert err.hint == "use // for integer division"
