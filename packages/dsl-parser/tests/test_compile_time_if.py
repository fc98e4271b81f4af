"""A compile-time ``if`` (a closure constant) takes pl.yield_ branches like a run-time one
(issue 19): the chosen branch's yield binds its names, the other branch is not parsed
but must have the same shape."""

from __future__ import annotations

import pytest
from parser_helpers import fn, ops_of, raises_at

from dsl_parser import ParserSyntaxError

BRANCHES = """
FLAG = {flag}

@pl.function
def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    if FLAG:
        a = pl.mul(x, 2.0)
        y = pl.yield_(a)
    else:
        b = pl.add(x, 1.0)
        y = pl.yield_(b)
    return y
"""


@pytest.mark.parametrize(("flag", "op"), [(True, "dsl.mul"), (False, "dsl.add")])
def test_the_chosen_branch_yields_its_value(flag: bool, op: str) -> None:
    f = fn(BRANCHES.format(flag=flag))
    assert "scf.if" not in ops_of(f)
    assert [o for o in ops_of(f) if o.startswith("dsl.")] == [op]
    assert "return %0 : tensor<4xf32>" in str(f)  # the yielded value is y


def test_a_run_time_if_of_the_same_shape_builds_scf_if() -> None:
    f = fn(BRANCHES.replace("FLAG = {flag}\n", "").replace(
        "x: pl.Tensor[[4], pl.FP32])", "x: pl.Tensor[[4], pl.FP32], FLAG: pl.Scalar[pl.BOOL])"))
    assert "scf.if" in ops_of(f)


def test_several_names_and_a_bare_yield() -> None:
    f = fn("""
K = 3

@pl.function
def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    if K > 2:
        p, q = pl.yield_(pl.exp(x), x)
    else:
        p, q = pl.yield_(x, pl.exp(x))
    if K > 5:
        pl.yield_(x)
    else:
        pl.yield_(p)
    return pl.sub(p, q)
""")
    assert ops_of(f).count("dsl.exp") == 1 and "scf.if" not in ops_of(f)


@pytest.mark.parametrize(("body", "line", "col", "words"), [
    # a then-only yield: when FLAG is False nothing would define y (as for a run-time if)
    ("    if FLAG:\n        y = pl.yield_(x)\n    return y", 6, 9,
     ["the else branch must end with a pl.yield_"]),
    ("    if FLAG:\n        y = pl.yield_(x)\n    else:\n        z = pl.yield_(x)\n    return y",
     8, 9, ["both branches must yield the same names"]),
    ("    if FLAG:\n        y = pl.yield_(x)\n        w = x\n    else:\n        y = pl.yield_(x)\n"
     "    return y", 6, 9, ["pl.yield_ must be the last statement"]),
])
def test_compile_time_branches_follow_the_run_time_rules(body: str, line: int, col: int,
                                                          words: list[str]) -> None:
    code = ("FLAG = True\n\n@pl.function\n"
            "def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n" + body + "\n")
    raises_at(ParserSyntaxError, code, line, col, words)
