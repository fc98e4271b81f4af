"""pl.parse / pl.loads: auto-detection, module-level names, decorator options."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import FLASH_ATTN, MATH_OPS
from parser_helpers import dsl

import dsl_parser.language as pl
from dsl_parser import Function, Program, structural_equal


def test_parse_detects_a_function() -> None:
    f = pl.parse(FLASH_ATTN)
    assert isinstance(f, Function) and f.name == "flash_attn_simplified"


def test_parse_detects_a_program() -> None:
    p = dsl(MATH_OPS)
    assert isinstance(p, Program) and p.name == "MathOps"
    assert list(p.functions) == ["square", "sum_of_squares"]


def test_text_and_decorator_give_the_same_module() -> None:
    @pl.function
    def simple(x: pl.Tensor[[4, 4], pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:
        y = pl.mul(x, 3.0)
        return pl.add(y, x)

    text = pl.parse("""
import dsl_parser.language as pl

@pl.function
def simple(x: pl.Tensor[[4, 4], pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:
    y = pl.mul(x, 3.0)
    return pl.add(y, x)
""")
    assert structural_equal(simple, text)
    assert simple.as_python() == text.as_python()


def test_loads_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "kernel.py"
    path.write_text(FLASH_ATTN)
    f = pl.loads(str(path))
    assert isinstance(f, Function)
    loc = f.func_op.location
    assert loc.filename == str(path) and loc.start_line == 6


def test_decorator_options_in_text() -> None:
    f = dsl("""
        @pl.function(strict_ssa=False)
        def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            y = pl.add(x, x)
            y = pl.mul(y, y)
            return y
    """)
    assert isinstance(f, Function) and "dsl.mul" in str(f)
    from dsl_parser import ParserSyntaxError
    with pytest.raises(ParserSyntaxError, match="only takes strict_ssa"):
        dsl("""
            @pl.function(fast=True)
            def f(x: pl.Tensor[[4], pl.FP32]):
                return x
        """)


def test_undecorated_helpers_are_ignored() -> None:
    f = dsl("""
        def helper():
            return 1

        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32]):
            return x
    """)
    assert isinstance(f, Function) and f.name == "f"


def test_program_class_may_only_hold_methods() -> None:
    from dsl_parser import UnsupportedFeatureError
    with pytest.raises(UnsupportedFeatureError, match="may only contain methods"):
        dsl("""
            @pl.program
            class P:
                N = 4
                def f(self, x: pl.Tensor[[4], pl.FP32]):
                    return x
        """)


def test_context_parameter_and_default_context() -> None:
    import dsl_mlir

    import dsl_parser
    ctx = dsl_mlir.context()
    f = pl.parse(FLASH_ATTN, context=ctx)
    assert f.context == ctx
    g = pl.parse(FLASH_ATTN)
    assert g.context == dsl_parser.default_context()
