"""The rewrite of break, continue and early return into flags and guards (parser/exits.py),
and the while loops it produces (scf.while)."""

from __future__ import annotations

import ast
import textwrap

import pytest

import dsl_parser.language as pl
from dsl_parser import UnsupportedFeatureError
from dsl_parser.parser.exits import WHILE_GUARD, rewrite_exits


def _rewrite(source: str, early_return: bool = True) -> tuple[str, list[ast.stmt]]:
    body = ast.parse(textwrap.dedent(source)).body
    out = rewrite_exits(body, early_return)
    return ast.unparse(out), out


def test_bodies_without_exits_are_unchanged() -> None:
    body = ast.parse("x = 1\nfor i in range(3):\n    x = x + i\nreturn").body
    assert rewrite_exits(body, True) is body


def test_break_and_continue_in_a_for_loop() -> None:
    text, _ = _rewrite("""
        for j in range(n):
            if a:
                continue
            s = s + 1
            if b:
                break
            t = 2
        done = 1
        """)
    assert text == textwrap.dedent("""\
        break@2:0 = False
        for j in range(n):
            if not break@2:0:
                continue@2:1 = False
                if a:
                    continue@2:1 = True
                if not continue@2:1:
                    s = s + 1
                    if b:
                        break@2:0 = True
                    if not break@2:0:
                        t = 2
        done = 1""")


def test_a_while_loop_stops_on_its_flags_and_returns_reach_the_top() -> None:
    text, out = _rewrite("""
        if i >= n:
            return
        while k < n:
            if x[k] == 0:
                return
            k = k + 1
        y[i] = k
        """)
    assert text == textwrap.dedent("""\
        return@2:0 = False
        if i >= n:
            return@2:0 = True
        if not return@2:0:
            while k < n:
                if x[k] == 0:
                    return@2:0 = True
                if not return@2:0:
                    k = k + 1
            if not return@2:0:
                y[i] = k""")
    loop = out[2].body[0]
    assert isinstance(loop, ast.While) and getattr(loop, WHILE_GUARD) == ["return@2:0"]


def test_a_break_belongs_to_its_own_loop() -> None:
    text, out = _rewrite("""
        for i in range(n):
            while True:
                break
            s = s + i
        """)
    assert "break@3:0 = True" in text and "s = s + i" in text
    outer = out[0]
    assert isinstance(outer, ast.For) and not isinstance(outer.body[0], ast.If)  # not guarded
    assert getattr(outer.body[1], WHILE_GUARD) == ["break@3:0"]


def test_returns_with_values_and_final_returns_are_left_to_the_parser() -> None:
    body = ast.parse("if a:\n    return x\nreturn y").body
    assert rewrite_exits(body, True) is body
    body = ast.parse("if a:\n    return\nreturn").body
    assert rewrite_exits(body, False) is body  # functions: early return is an error there
    text, _ = _rewrite("s = 1\nreturn")
    assert text == "s = 1\nreturn"


@pl.kernel
def _count_k(x: pl.Tensor[[8], pl.INT32], out: pl.Tensor[[8], pl.INT32]):
    i = pl.thread_id(0)
    n: pl.INT32 = 0
    while n < x[i]:
        if n == 5:
            break
        n = n + 1
    out[i] = n


def _count(x: pl.Tensor[[8], pl.INT32], out: pl.Tensor[[8], pl.INT32]):
    _count_k(x, out).launch(grid=(1,), block=(8,))


def test_while_in_a_kernel_is_an_scf_while_guarded_by_its_break_flag() -> None:
    text = str(pl.parse_function(_count).module)
    assert text.count("scf.while") == 1 and "scf.condition" in text
    # the condition is evaluated under the flag: an scf.if inside the before region
    before = text[text.index("scf.while"):text.index("scf.condition")]
    assert "scf.if" in before and "memref.load" in before


def test_the_strict_check_searches_only_the_body_text() -> None:
    """``SourceTracker.mentions`` (the test before the strict parse walks a body for
    break/continue) looks at the lines from the body's first statement to its last,
    and answers True for statements without positions (it cannot tell)."""
    from dsl_parser.parser.source import SourceTracker

    text = "x = 1\nfor i in range(3):\n    y = i\n# break\nz = 2\n"
    src = SourceTracker("<t>", text.splitlines())
    body = ast.parse(text).body
    assert src.mentions(body, ("break",))  # a comment between its statements counts
    assert not src.mentions(body[:2], ("break", "continue"))  # lines 1-3 only
    assert not src.mentions([], ("break",))
    assert src.mentions([ast.Pass()], ("break",))
    assert src.mentions(body[1:2], ("range", "nothing"))


def test_a_strict_body_with_a_nested_break_is_still_refused() -> None:
    source = textwrap.dedent("""
        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            for i in pl.range(3):
                for j in pl.range(2):
                    if j > 0:
                        break
            return x
        """)
    with pytest.raises(UnsupportedFeatureError, match="break statements need non-strict SSA"):
        pl.parse(source)
