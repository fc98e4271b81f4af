"""Strict SSA and scope isolation."""

from __future__ import annotations

from parser_helpers import fn, raises_at

from dsl_parser import (
    ParserTypeError,
    ScopeIsolationError,
    SSAViolationError,
    UndefinedVariableError,
)

T = "pl.Tensor[[64], pl.FP32]"


def test_second_assignment_is_an_ssa_violation_with_a_note() -> None:
    err = raises_at(SSAViolationError, f"""
        @pl.function
        def f(x: {T}) -> {T}:
            y: {T} = pl.add(x, 1.0)
            y = pl.mul(x, 2.0)
            return y
    """, 5, 5, ["SSA violation", "'y' is already defined in this scope"])
    (note,) = err.notes
    assert note.span is not None and (note.span.begin_line, note.span.begin_column) == (4, 5)
    assert "first defined here" in note.message
    assert "note: 'y' was first defined here\n  --> <string>:4:5" in str(err)


def test_parameters_and_outer_names_cannot_be_reassigned() -> None:
    raises_at(SSAViolationError, f"""
        @pl.function
        def f(x: {T}):
            x = pl.add(x, x)
    """, 4, 5, ["'x' is already defined"])
    raises_at(SSAViolationError, f"""
        @pl.function
        def f(x: {T}):
            t = pl.add(x, x)
            for i in pl.range(3):
                t = pl.mul(x, x)
    """, 6, 9, ["'t' is already defined in an enclosing scope"])


def test_augmented_assignment_is_reassignment() -> None:
    err = raises_at(SSAViolationError, f"""
        @pl.function
        def f(x: {T}):
            y = pl.add(x, x)
            y += x
    """, 5, 5, ["'y' += reassigns it"])
    assert err.hint is not None and "strict_ssa=False" in err.hint


def test_sibling_scopes_may_reuse_names() -> None:
    f = fn(f"""
        @pl.function
        def f(x: {T}, c: pl.Scalar[pl.BOOL]) -> {T}:
            if c:
                t = pl.add(x, x)
                r = pl.yield_(t)
            else:
                t = pl.mul(x, x)
                r = pl.yield_(t)
            for i in pl.range(2):
                t = pl.sub(x, x)
            t = pl.div(x, x)
            return r
    """)
    assert str(f).count("dsl.") == 4


def test_inner_value_needs_a_yield() -> None:
    err = raises_at(ScopeIsolationError, f"""
        @pl.function
        def f(x: {T}) -> {T}:
            for i, (s,) in pl.range(10, init_values=(x,)):
                temp: {T} = pl.add(s, s)
                r = pl.yield_(temp)
            return temp
    """, 7, 12, ["'temp' is defined inside a for loop", "not visible here"])
    assert err.notes[0].span is not None and err.notes[0].span.begin_line == 5
    assert err.hint is not None and "pl.yield_" in err.hint
    raises_at(ScopeIsolationError, f"""
        @pl.function
        def f(x: {T}, c: pl.Scalar[pl.BOOL]) -> {T}:
            if c:
                inner = pl.add(x, x)
            return inner
    """, 6, 12, ["'inner' is defined inside an if branch"])


def test_loop_variable_is_local_to_the_loop() -> None:
    raises_at(ScopeIsolationError, f"""
        @pl.function
        def f(x: {T}):
            for i in pl.range(3):
                pass
            j = i + 1
    """, 6, 9, ["'i' is defined inside a for loop"])


def test_undefined_name_with_suggestion() -> None:
    err = raises_at(UndefinedVariableError, f"""
        @pl.function
        def f(value: {T}) -> {T}:
            return pl.add(valeu, value)
    """, 4, 19, ["name 'valeu' is not defined"])
    assert err.hint == "did you mean 'value'?"
    assert err.span is not None and err.span.end_column == 24


def test_local_annotation_must_match_and_may_be_omitted() -> None:
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}):
            y: pl.Tensor[[64], pl.FP16] = pl.add(x, x)
    """, 4, 8, ["does not match its value", "declared pl.Tensor[[64], pl.FP16]",
                "inferred pl.Tensor[[64], pl.FP32]"])
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}):
            y: pl.Tensor[[32], pl.FP32] = pl.add(x, x)
    """, 4, 8, ["does not match"])
    f = fn(f"""
        @pl.function
        def f(x: {T}) -> {T}:
            y = pl.add(x, x)
            n: pl.Scalar[pl.INT32] = 5
            return y
    """)
    assert "arith.constant 5 : i32" in str(f)


def test_missing_parameter_annotation_names_the_parameter() -> None:
    err = raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}, scale):
            return x
    """, 3, 36, ["parameter 'scale' has no type annotation"])
    assert err.span is not None and err.span.end_column == 41
