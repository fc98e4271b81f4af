"""Error rendering, unsupported constructs, internal failures, MLIR diagnostics, source maps."""

from __future__ import annotations

import dataclasses
import pickle
import textwrap
import traceback
from pathlib import Path

import pytest
from parser_helpers import dsl, raises_at

import dsl_parser.language as pl
from dsl_parser import (
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from dsl_parser.ops import OPS

T = "pl.Tensor[[4], pl.FP32]"


def test_rendering_has_location_source_line_caret_and_hint() -> None:
    err = raises_at(InvalidOperationError, f"""
        @pl.function
        def f(x: {T}):
            y = pl.matmull(x, x)
    """, 4, 9)
    assert str(err) == textwrap.dedent("""\
        unknown operation 'pl.matmull'
          --> <string>:4:9
           |
         4 |     y = pl.matmull(x, x)
           |         ^^^^^^^^^^
           = hint: did you mean pl.matmul?""")


def test_non_ascii_identifiers_do_not_shift_the_caret() -> None:
    line = "    données = pl.add(x, x); ζ = pl.add(données, missing)"
    col = line.index("missing") + 1
    assert len(line[:col].encode()) > col  # the bytes offset differs from the characters
    err = raises_at(UndefinedVariableError, f"""
@pl.function
def f(x: {T}):
{line}
""", 4, col, ["name 'missing' is not defined"])
    rendered = str(err).splitlines()
    source, caret = rendered[3], rendered[4]
    assert caret.index("^") == source.index("missing") and caret.count("^") == 7


@pytest.mark.parametrize(("stmt", "words"), [
    ("try:\n        pass\n    except Exception:\n        pass", "try statements"),
    ("with x:\n        pass", "with statements"),
    ("def g():\n        pass", "nested function definitions"),
    ("class C:\n        pass", "class definitions"),
    ("import math", "import statements"),
    ("del x", "del statements"),
    ("assert x", "assert statements"),
    ("raise ValueError()", "raise statements"),
])
def test_unsupported_statements_are_named(stmt: str, words: str) -> None:
    err = raises_at(UnsupportedFeatureError, f"""
@pl.function
def f(x: {T}):
    {stmt}
""", 4, 5, [words, "not supported"])
    assert err.span is not None
    assert err.span.end_column == 5 + len(stmt.split()[0].rstrip(":"))


@pytest.mark.parametrize(("expr", "words"), [
    ("lambda v: v", "lambda expressions"),
    ("[v for v in (1, 2)]", "list comprehensions"),
    ("{v: v for v in (1, 2)}", "dict comprehensions"),
    ("(v for v in (1, 2))", "generator expressions"),
    ("x if True else x", "conditional expressions"),
    ('f"{x}"', "f-strings"),
])
def test_unsupported_expressions_are_named(expr: str, words: str) -> None:
    raises_at(UnsupportedFeatureError, f"""
        @pl.function
        def f(x: {T}):
            y = {expr}
    """, 4, 9, [words])


def test_while_break_and_return_in_loops_need_non_strict_ssa() -> None:
    raises_at(UnsupportedFeatureError, f"""
        @pl.function
        def f(x: {T}):
            while True:
                pass
    """, 4, 5, ["a while loop carries the names it reassigns, which strict SSA forbids"])
    raises_at(UnsupportedFeatureError, f"""
        @pl.function
        def f(x: {T}):
            for i in pl.range(3):
                break
    """, 5, 9, ["break statements need non-strict SSA (strict_ssa=False)"])
    raises_at(UnsupportedFeatureError, f"""
        @pl.function
        def f(x: {T}):
            for i in pl.range(3):
                if i > 1:
                    continue
    """, 6, 13, ["continue statements need non-strict SSA"])
    raises_at(UnsupportedFeatureError, f"""
        @pl.function
        def f(x: {T}):
            for i in pl.range(3):
                return x
    """, 5, 9, ["return inside a loop or a branch"])
    raises_at(ParserSyntaxError, f"""
        @pl.function
        def f(x: {T}):
            return x
            y = x
    """, 5, 5, ["code after return"])


def test_calls_of_python_functions_are_rejected() -> None:
    raises_at(UnsupportedFeatureError, f"""
        @pl.function
        def f(x: {T}):
            y = print(x)
    """, 4, 9, ["calling 'print' is not supported"])


def test_unshaped_parameter_needs_specialization() -> None:
    raises_at(ParserTypeError, """
        @pl.function
        def f(x: pl.Tensor[pl.FP32]):
            return x
    """, 3, 10, ["parameter 'x' is pl.Tensor[pl.FP32]", "rank/shape must be specialized"])


def test_bad_annotations() -> None:
    raises_at(ParserTypeError, """
        @pl.function
        def f(x: int):
            return x
    """, 3, 10, ["the annotation of parameter 'x' is not a DSL type"])
    raises_at(ParserTypeError, """
        @pl.function
        def f(x: pl.Tensor[[4, "a"], pl.FP32]):
            return x
    """, 3, 10, ["a dimension must be a non-negative int"])
    raises_at(UndefinedVariableError, """
        @pl.function
        def f(x: pl.Tensor[[NOPE], pl.FP32]):
            return x
    """, 3, 21, ["name 'NOPE' is not defined"])


def test_mlir_verifier_failures_point_at_the_python_line() -> None:
    err = raises_at(InvalidOperationError, """
        @pl.function
        def f(x: pl.Tensor[[16, 16], pl.FP32]):
            y = pl.slice(x, [32, 4], [0, 0])
            return y
    """, 4, 9, ["invalid IR", "'dsl.slice' op slice size 32 exceeds source size 16"])
    assert err.hint is not None and "MLIR verifier" in err.hint
    assert "^^^^^^^^^^^^^^^^^^^^^^^^^^^^" in str(err)


def test_internal_failures_are_wrapped_with_the_location(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(call: object) -> object:
        raise KeyError("exploded")

    monkeypatch.setitem(OPS, "add", dataclasses.replace(OPS["add"], infer=boom))
    err = raises_at(ParserError, f"""
        @pl.function
        def f(x: {T}):
            y = pl.sub(x, x)
            z = pl.add(x, y)
    """, 5, 9, ["internal error", "KeyError", "exploded"])
    assert err.__cause__ is None and err.__suppress_context__


def test_no_parser_internals_in_the_traceback() -> None:
    code = f"@pl.function\ndef f(x: {T}):\n    y = 1 // 0\n"
    with pytest.raises(ParserError) as info:
        pl.parse(code)
    err = info.value
    frames = [f.filename for f in traceback.extract_tb(err.__traceback__)]
    internal = [f for f in frames if "dsl_parser" in f]
    assert len(internal) == 1 and internal[0].endswith("entry.py")
    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    for leak in ("ast_parser", "expr_parser", "During handling", "ZeroDivisionError:"):
        assert leak not in text
    assert "dsl_parser" not in str(err)


def test_decorator_errors_point_at_the_real_file() -> None:
    with pytest.raises(UndefinedVariableError) as info:
        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32]):
            return pl.add(x, not_defined_anywhere)  # noqa: F821

    err = info.value
    assert err.span is not None and err.span.filename == __file__
    line = Path(__file__).read_text().splitlines()[err.span.begin_line - 1]
    assert line[err.span.begin_column - 1:].startswith("not_defined_anywhere")
    assert err.source_line == line
    frames = [f.filename for f in traceback.extract_tb(err.__traceback__)]
    assert sum("dsl_parser" in f for f in frames) == 1


def test_python_syntax_errors() -> None:
    with pytest.raises(SyntaxError) as info:
        pl.parse("@pl.function\ndef f(x:\n    return x\n")
    err = info.value
    assert isinstance(err, ParserSyntaxError) and isinstance(err, ParserError)
    assert err.lineno == 2 and "invalid Python syntax" in err.message
    assert "--> <string>:2:" in str(err)


def test_source_map_remaps_to_the_user_file(tmp_path: Path) -> None:
    user = tmp_path / "kernel.py"
    user.write_text("# user kernel\n\n\ndef kernel(x):\n    return pl.add(x, oops)\n")
    generated = (f"@pl.function\ndef kernel(x: {T}):\n    return pl.add(x, oops)\n")
    with pytest.raises(UndefinedVariableError) as info:
        pl.parse(generated, source_map={3: (str(user), 5, 5)})
    err = info.value
    assert err.span is not None
    assert (err.span.filename, err.span.begin_line, err.span.begin_column) == (str(user), 5, 22)
    assert err.source_line == "    return pl.add(x, oops)"
    assert f"--> {user}:5:22" in str(err)


def test_source_map_locations_in_the_ir(tmp_path: Path) -> None:
    generated = f"@pl.function\ndef kernel(x: {T}):\n    y = pl.add(x, x)\n    return y\n"
    f = pl.parse(generated, source_map={3: ("kernel.py", 8, 9)})
    ops = list(f.func_op.regions[0].blocks[0].operations)
    assert str(ops[0].location) == 'loc("kernel.py":8:13)'
    assert str(ops[1].location) == 'loc("<string>":4:5)'  # unmapped lines keep their place


def test_errors_pickle_and_keep_their_span() -> None:
    err = raises_at(UndefinedVariableError, f"""
        @pl.function
        def f(x: {T}):
            return y
    """, 4, 12)
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is UndefinedVariableError and copy.span == err.span
    assert str(copy) == str(err)


def test_text_with_no_or_several_definitions() -> None:
    with pytest.raises(ValueError, match=r"no @pl\.function or @pl\.program found"):
        pl.parse("x = 1\n")
    with pytest.raises(ValueError, match=r"defines 2 DSL functions/programs \(f, g\)"):
        dsl(f"""
            @pl.function
            def f(x: {T}):
                return x

            @pl.function
            def g(x: {T}):
                return x
        """)
    with pytest.raises(FileNotFoundError, match=r"/nonexistent/kernel\.py"):
        pl.loads("/nonexistent/kernel.py")


def test_return_must_match_the_annotation() -> None:
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}) -> pl.Tensor[[4], pl.FP16]:
            return x
    """, 4, 5, ["'f' returns pl.Tensor[[4], pl.FP32]", "declares pl.Tensor[[4], pl.FP16]"])
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}) -> tuple[{T}, {T}]:
            return x
    """, 4, 5, ["declares 2 result(s) but returns 1"])
    raises_at(ParserTypeError, f"""
        @pl.function
        def f(x: {T}) -> {T}:
            y = pl.add(x, x)
    """, 3, 1, ["declares 1 result(s) but returns 0"])


def test_program_errors_point_at_the_real_file() -> None:
    with pytest.raises(ParserTypeError) as info:
        @pl.program
        class Broken:
            def f(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
                return self.g(x)

            def g(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
                return x

    err = info.value
    assert err.span is not None and err.span.filename == __file__
    assert "argument 'x' of self.g must be pl.Tensor[[8], pl.FP32]" in err.message
    line = Path(__file__).read_text().splitlines()[err.span.begin_line - 1]
    assert line[err.span.begin_column - 1:].startswith("x)")


def test_mlir_diagnostics_map_to_spans() -> None:
    import dsl_mlir

    from dsl_parser.parser.diagnostics import error_from_diagnostics
    f = pl.parse(f"@pl.function\ndef f(x: {T}):\n    y = pl.add(x, x)\n    return y\n")
    diag = dsl_mlir.Diagnostic("error", "'dsl.add' op failed to lower", 'loc("<string>":3:9)',
                               "<string>", 3, 9)
    err = f.error_from_mlir(dsl_mlir.MLIRDiagnosticError("pass failed", [diag]))
    assert isinstance(err, InvalidOperationError)
    assert err.span is not None and (err.span.begin_line, err.span.end_column) == (3, 21)
    assert err.source_line == "    y = pl.add(x, x)"
    assert "invalid IR: 'dsl.add' op failed to lower" in str(err)
    plain = error_from_diagnostics(dsl_mlir.MLIRDiagnosticError("no location", []), [])
    assert plain.span is None and "no location" in plain.message


def test_deprecated_aliases_warn() -> None:
    with pytest.warns(DeprecationWarning, match="use pl.parse"):
        f = pl.parse_program(f"@pl.function\ndef f(x: {T}):\n    return x\n")
    assert f.name == "f"
