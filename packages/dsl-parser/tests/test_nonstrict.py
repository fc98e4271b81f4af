"""strict_ssa=False: reassignment, inferred iter_args and if results."""

from __future__ import annotations

import re

from parser_helpers import fn, raises_at

from dsl_parser import ParserTypeError, ScopeIsolationError

T = "pl.Tensor[[8], pl.FP32]"


def test_reassignment_is_allowed() -> None:
    f = fn(f"""
        @pl.function(strict_ssa=False)
        def f(x: {T}) -> {T}:
            y = pl.add(x, x)
            y = pl.mul(y, y)
            y += x
            return y
    """)
    text = str(f)
    assert re.search(r"%0 = dsl.add %arg0, %arg0.*\n\s+%1 = dsl.mul %0, %0.*\n"
                     r"\s+%2 = dsl.add %1, %arg0.*\n\s+return %2", text), text


def test_type_change_on_reassignment_is_an_error() -> None:
    err = raises_at(ParserTypeError, f"""
        @pl.function(strict_ssa=False)
        def f(x: {T}):
            y = pl.add(x, x)
            y = pl.cast(y, target_type=pl.FP16)
    """, 5, 5, ["'y' changes type on reassignment", "pl.Tensor[[8], pl.FP32]",
                "pl.Tensor[[8], pl.FP16]"])
    assert err.notes[0].span is not None and err.notes[0].span.begin_line == 4


def test_loop_carried_values_become_iter_args() -> None:
    f = fn(f"""
        @pl.function(strict_ssa=False)
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            acc = pl.add(x, x)
            k = 0
            for i in pl.range(n):
                acc = acc + x
                k = k + i
            return acc
    """)
    text = str(f)
    assert "%1:2 = scf.for %arg2 = %c0 to %arg1 step %c1 iter_args(%arg3 = %0, %arg4 = %c0_0)" \
        " -> (tensor<8xf32>, index)" in text
    assert re.search(r"scf.yield %2, %3 : tensor<8xf32>, index\n\s+\}\n\s+return %1#0", text)


def test_branch_assignments_become_if_results() -> None:
    f = fn(f"""
        @pl.function(strict_ssa=False)
        def f(x: {T}, c: pl.Scalar[pl.BOOL]) -> {T}:
            y = x
            if c:
                y = pl.add(x, x)
                fresh = pl.mul(x, x)
            else:
                fresh = pl.sub(x, x)
            return pl.add(y, fresh)
    """)
    text = str(f)
    assert "%0:2 = scf.if %arg1 -> (tensor<8xf32>, tensor<8xf32>)" in text
    assert re.search(r"scf.yield %2, %3 : .*\n\s+\} else \{\n\s+%2 = dsl.sub %arg0, %arg0.*\n"
                     r"\s+scf.yield %arg0, %2 :", text), text
    assert "%1 = dsl.add %0#0, %0#1" in text


def test_if_without_else_keeps_the_outer_value() -> None:
    f = fn(f"""
        @pl.function(strict_ssa=False)
        def f(x: {T}, c: pl.Scalar[pl.BOOL]) -> {T}:
            y = x
            if c:
                y = pl.add(x, x)
            return y
    """)
    assert re.search(r"\} else \{\n\s+scf.yield %arg0 : tensor<8xf32>", str(f))


def test_names_first_defined_in_one_branch_stay_inside() -> None:
    raises_at(ScopeIsolationError, f"""
        @pl.function(strict_ssa=False)
        def f(x: {T}, c: pl.Scalar[pl.BOOL]):
            if c:
                only_here = pl.add(x, x)
            return only_here
    """, 6, 12, ["'only_here' is defined inside an if branch"])


def test_loop_carried_type_change_is_an_error() -> None:
    raises_at(ParserTypeError, f"""
        @pl.function(strict_ssa=False)
        def f(x: {T}):
            acc = x
            for i in pl.range(3):
                acc = pl.cast(acc, target_type=pl.FP16)
            return acc
    """, 6, 9, ["'acc' changes type on reassignment"])
