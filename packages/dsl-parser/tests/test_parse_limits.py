"""Bounded compile-time folding and dimension ranges (issue 12: the parser never hangs or
leaks internals)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from parser_helpers import fn, raises_at

from dsl_parser import ParserTypeError
from dsl_parser.parser.evaluator import MAX_FOLD_BITS

HEAD = """
@pl.function
def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
"""


def test_a_huge_power_fails_at_once_in_a_fresh_process() -> None:
    code = textwrap.dedent("""
        import time, dsl_parser.language as pl
        from dsl_parser import ParserTypeError
        src = '''
        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            q = 10 ** 10 ** 10
            return x
        '''
        start = time.perf_counter()
        try:
            pl.parse(src)
        except ParserTypeError as err:
            print(err.span.begin_line, err.span.begin_column, time.perf_counter() - start)
            print(err.message)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    where, message = proc.stdout.splitlines()[:2]
    line, col, seconds = where.split()
    assert (line, col) == ("4", "9") and float(seconds) < 1.0
    assert "cannot evaluate 10 ** 10 ** 10" in message and f"{MAX_FOLD_BITS} bits" in message


@pytest.mark.parametrize(("expr", "col", "words"), [
    ("1 << 10 ** 6", 9, ["1 << 10 ** 6", "bits"]),
    ("2 ** 200", 9, ["2 ** 200", "201 or more bits"]),
    ("-(3 ** 60) * 3 ** 60", 9, ["191 or more bits"]),
])
def test_folding_refuses_results_beyond_the_bit_limit(expr: str, col: int,
                                                      words: list[str]) -> None:
    raises_at(ParserTypeError, f"{HEAD}    q = {expr}\n    return x\n", 4, col, words)


def test_folding_within_the_limit_still_folds() -> None:
    f = fn(f"{HEAD}    q = pl.full([4], 2 ** 64 - 1 - (2 ** 64 - 2), dtype=pl.FP32)\n"
           "    return pl.add(x, q)\n")
    assert "dsl.full" in str(f.module)


def test_an_integer_from_a_float_out_of_range_is_a_located_error() -> None:
    raises_at(ParserTypeError, f"{HEAD}    q = int(1e308 * 10)\n    return x\n", 4, 9,
              ["invalid call", "infinity"])


@pytest.mark.parametrize(("annotation", "words"), [
    ("pl.Tensor[[2**63], pl.FP32]", ["below 2**63", "9223372036854775808"]),
    ("pl.Tensor[[4, 2**64], pl.FP32]", ["below 2**63"]),
    ("pl.Tensor[[-1], pl.FP32]", ["non-negative"]),
])
def test_annotation_dimensions_out_of_range_are_located_errors(annotation: str,
                                                               words: list[str]) -> None:
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {annotation}) -> pl.Tensor[[4], pl.FP32]:
            return x
        """, 3, 10, words)


@pytest.mark.parametrize(("call", "col", "argument"), [
    ("pl.full([2**63], 1.0, dtype=pl.FP32)", 17, "shape"),
    ("pl.create_tensor([4, 2**64], dtype=pl.FP32)", 26, "shape"),
    ("pl.slice(x, [4], [2**64])", 26, "offsets"),
    ("pl.slice(x, [2**63], [0])", 21, "sizes"),
    ("pl.sum(x, axis=2**70)", 24, "axis"),
])
def test_op_sizes_offsets_and_axes_beyond_64_bits_are_located_errors(call: str, col: int,
                                                                     argument: str) -> None:
    raises_at(ParserTypeError, f"{HEAD}    q = {call}\n    return x\n", 4, col,
              [f"argument '{argument}'"])
