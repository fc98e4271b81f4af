"""Loops and branches: scf.for with iter_args, scf.if with results, yields and their rules."""

from __future__ import annotations

import re

from parser_helpers import fn, ops_of, raises_at

from dsl_parser import ParserSyntaxError, ParserTypeError, UnsupportedFeatureError

T = "pl.Tensor[[8], pl.FP32]"


def test_for_with_iter_args_emits_scf_for() -> None:
    f = fn(f"""
        @pl.function
        def f(x: {T}) -> {T}:
            for i, (s,) in pl.range(2, 10, 3, init_values=(x,)):
                t = pl.add(s, x)
                out = pl.yield_(t)
            return out
    """)
    text = str(f)
    pattern = (r"%c2 = arith.constant 2 : index\n\s+%c10 = arith.constant 10 : index\n"
               r"\s+%c3 = arith.constant 3 : index\n"
               r"\s+%0 = scf.for %arg1 = %c2 to %c10 step %c3 iter_args\(%arg2 = %arg0\) -> "
               r"\(tensor<8xf32>\) \{\n\s+%1 = dsl.add %arg2, %arg0 : tensor<8xf32>\n"
               r"\s+scf.yield %1 : tensor<8xf32>\n\s+\}\n\s+return %0 : tensor<8xf32>")
    assert re.search(pattern, text), text


def test_multiple_iter_args_and_tuple_yield() -> None:
    f = fn(f"""
        @pl.function
        def f(x: {T}, y: {T}):
            for i, (a, b) in pl.range(4, init_values=(x, y)):
                s = pl.add(a, b)
                na, nb = pl.yield_(b, s)
            return na, nb
    """)
    text = str(f)
    assert "%0:2 = scf.for %arg2 = %c0 to %c4 step %c1 iter_args(%arg3 = %arg0, %arg4 = %arg1)" \
        in text
    assert "scf.yield %arg4, %1 : tensor<8xf32>, tensor<8xf32>" in text
    assert "return %0#0, %0#1" in text


def test_loop_without_iter_args_and_builtin_range() -> None:
    f = fn(f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            for i in range(n):
                t = pl.add(x, x)
            return x
    """)
    assert re.search(r"scf.for %arg2 = %c0 to %arg1 step %c1 \{\n\s+%0 = dsl.add", str(f))
    assert "for i in pl.range(n):" in f.as_python()


def test_unroll_keeps_its_kind() -> None:
    f = fn(f"""
        @pl.function
        def f(x: {T}) -> {T}:
            for i, (s,) in pl.unroll(4, init_values=(x,)):
                out = pl.yield_(pl.add(s, s))
            return out
    """)
    assert '} {dsl.kind = "unroll"}' in str(f)
    assert "in pl.unroll(4, init_values=(x,)):" in f.as_python()


def test_if_else_with_results() -> None:
    f = fn(f"""
        @pl.function
        def f(x: {T}, i: pl.Scalar[pl.INDEX]) -> {T}:
            if i == 0:
                a = pl.add(x, x)
                r = pl.yield_(a)
            else:
                r = pl.yield_(x)
            return r
    """)
    pattern = (r"%1 = scf.if %0 -> \(tensor<8xf32>\) \{\n\s+%2 = dsl.add %arg0, %arg0.*\n"
               r"\s+scf.yield %2 : tensor<8xf32>\n\s+\} else \{\n\s+scf.yield %arg0 "
               r": tensor<8xf32>\n\s+\}\n\s+return %1")
    assert re.search(pattern, str(f)), str(f)


def test_nested_loops_and_elif() -> None:
    from corpus import NESTED
    from parser_helpers import dsl
    f = dsl(NESTED)
    names = ops_of(f)
    assert names.count("scf.for") == 2 and names.count("scf.if") == 2
    printed = f.as_python()
    assert "elif j == 1:" in printed


def test_if_without_results_and_compile_time_if() -> None:
    f = fn(f"""
        @pl.function
        def f(x: {T}, i: pl.Scalar[pl.INDEX]) -> {T}:
            if i > 2:
                t = pl.add(x, x)
            if 4 > 3:
                picked = pl.mul(x, x)
            else:
                picked = pl.sub(x, x)
            return picked
    """)
    text = str(f)
    assert text.count("scf.if") == 1 and "dsl.mul" in text and "dsl.sub" not in text


def test_every_op_has_a_file_location() -> None:
    from corpus import FLASH_ATTN
    from parser_helpers import dsl
    f = dsl(FLASH_ATTN)
    seen = []

    def walk(op: object) -> None:
        for region in op.regions:  # type: ignore[attr-defined]
            for block in region.blocks:
                for inner in block.operations:
                    loc = inner.operation.location
                    assert loc.is_a_file(), (inner.operation.name, loc)
                    assert loc.filename == "<string>"
                    seen.append((inner.operation.name, loc.start_line, loc.start_col))
                    walk(inner.operation)

    walk(f.module.operation)
    lines = FLASH_ATTN.splitlines()
    assert ("dsl.matmul", 14, lines[13].index("pl.matmul") + 1) in seen
    assert ("arith.muli", 13, lines[12].index("i * 64") + 1) in seen
    assert ("scf.for", 12, 5) in seen and ("scf.if", 16, 9) in seen
    assert ("func.return", 26, 5) in seen


def test_yield_errors() -> None:
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            for i, (a, b) in pl.range(4, init_values=(x,)):
                r = pl.yield_(a)
    """, 4, 9, ["2 iteration arguments but 1 init_values"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            for i, (a,) in pl.range(4, init_values=(x,)):
                t = pl.add(a, a)
    """, 4, 5, ["must end with `x = pl.yield_(...)`"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            for i, (a,) in pl.range(4, init_values=(x,)):
                pl.yield_(a)
    """, 5, 9, ["must be assigned"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            for i, (a,) in pl.range(4, init_values=(x,)):
                r = pl.yield_(a)
                t = pl.add(a, a)
    """, 5, 9, ["must be the last statement"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            for i, (a,) in pl.range(4, init_values=(x,)):
                r, s = pl.yield_(a)
    """, 5, 9, ["2 names are assigned from pl.yield_ of 1 values"])
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}):
            for i, (a,) in pl.range(4, init_values=(x,)):
                r = pl.yield_(i)
    """, 5, 23, ["yields pl.Scalar[pl.INDEX] where pl.Tensor[[8], pl.FP32] is expected"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            y = pl.yield_(x)
    """, 4, 5, ["must be the last statement"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            for i, a in pl.range(4, init_values=(x,)):
                r = pl.yield_(a)
    """, 4, 9, ["binds `i, (acc, ...)`"])


def test_if_errors() -> None:
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}, c: pl.Scalar[pl.BOOL]):
            if c:
                r = pl.yield_(x)
    """, 5, 9, ["the else branch must end with a pl.yield_"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}, c: pl.Scalar[pl.BOOL]):
            if c:
                r = pl.yield_(x)
            else:
                s = pl.yield_(x)
    """, 7, 9, ["must yield the same names", "(r)", "(s)"])
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}, c: pl.Scalar[pl.BOOL]):
            if c:
                r = pl.yield_(x)
            else:
                r = pl.yield_(c)
    """, 7, 23, ["else branch yields pl.Scalar[pl.BOOL]"])
    err = raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]):
            if n:
                t = x
    """, 4, 8, ["an if condition must be a BOOL scalar", "pl.Scalar[pl.INDEX]"])
    assert err.hint == "compare it, e.g. `if n != 0:`"
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}):
            if x:
                t = x
    """, 4, 8, ["must be a BOOL scalar", "pl.Tensor[[8], pl.FP32]"])


def test_loop_iterator_must_be_a_range() -> None:
    raises_at(UnsupportedFeatureError, f"""
        @pl.function
        def f(x: {T}):
            for i in [1, 2]:
                pass
    """, 4, 14, ["must iterate over pl.range"])
    raises_at(UnsupportedFeatureError, f"""
        @pl.function
        def f(x: {T}):
            for i in pl.range(3):
                pass
            else:
                pass
    """, 7, 9, ["for ... else"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            r = pl.range(3)
    """, 4, 9, ["only valid as the iterator of a for loop"])
