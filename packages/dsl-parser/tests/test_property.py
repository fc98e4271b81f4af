"""Property tests: generated programs parse and round-trip; mutated programs parse or fail
with a located ParserError, never anything else."""

from __future__ import annotations

import dsl_mlir
from corpus import ALL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dsl_parser.language as pl
from dsl_parser import Function, ParserError, Program, structural_equal

T = "pl.Tensor[[4, 8], pl.FP32]"
OPS = ["pl.add", "pl.sub", "pl.mul", "pl.div"]
OPERATORS = ["+", "-", "*", "/"]


@st.composite
def index_exprs(draw: st.DrawFn, depth: int = 0) -> str:
    """INDEX expressions mixing the parameter n, literals and explicit constants."""
    leaf = st.sampled_from(["n", "3", "7", "pl.const(2, pl.INDEX)", "pl.const(5, pl.INDEX)"])
    if depth >= 2 or draw(st.booleans()):
        return draw(leaf)
    op = draw(st.sampled_from(["+", "-", "*", "//"]))
    if op == "//":  # a literal divisor: (3 + 3) // (3 - 3) would fold a division by zero
        divisor = draw(st.sampled_from(["3", "7", "pl.const(2, pl.INDEX)"]))
        return f"({draw(index_exprs(depth + 1))} // {divisor})"
    return f"({draw(index_exprs(depth + 1))} {op} {draw(index_exprs(depth + 1))})"


@st.composite
def statements(draw: st.DrawFn, names: list[str], depth: int, indent: str) -> list[str]:
    """Random straight-line code, loops and branches over tensors of one type."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["op", "operator", "scalar", "full", "index", "loop", "if"]
                                    if depth < 2 else ["op", "operator", "scalar", "index"]))
        target = f"v{len(names)}_{depth}"
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        if kind == "op":
            lines.append(f"{indent}{target} = {draw(st.sampled_from(OPS))}({a}, {b})")
        elif kind == "operator":
            lines.append(f"{indent}{target} = {a} {draw(st.sampled_from(OPERATORS))} {b}")
        elif kind == "scalar":
            value = draw(st.floats(-1e3, 1e3, allow_nan=False, width=32))
            lines.append(f"{indent}{target} = pl.mul({a}, {value!r})")
        elif kind == "full":
            fill = draw(st.sampled_from(["1.5", "pl.const(2.5, pl.FP32)", "-0.0"]))
            lines.append(f"{indent}{target} = pl.add({a}, pl.full([4, 8], {fill}, dtype=pl.FP32))")
        elif kind == "index":
            lines.append(f"{indent}i_{target} = {draw(index_exprs())}")
            lines.append(f"{indent}{target} = pl.slice({a}, [4, 8], [i_{target} - i_{target}, 0])")
        elif kind == "loop":
            acc = f"acc{len(names)}_{depth}"
            lines.append(f"{indent}for i{depth}, ({acc},) in pl.range("
                         f"{draw(st.integers(1, 5))}, init_values=({a},)):")
            body = draw(statements([*names, acc], depth + 1, indent + "    "))
            last = body[-1].split("=")[0].strip()
            lines += [*body, f"{indent}    {target} = pl.yield_({last})"]
        else:
            lines.append(f"{indent}if n > {draw(st.integers(0, 9))}:")
            for branch in ("then", "else"):
                if branch == "else":
                    lines.append(f"{indent}else:")
                body = draw(statements(list(names), depth + 1, indent + "    "))
                last = body[-1].split("=")[0].strip()
                lines += [*body, f"{indent}    {target} = pl.yield_({last})"]
        names.append(target)
    return lines


@st.composite
def programs(draw: st.DrawFn) -> str:
    names = ["x", "y"]
    body = draw(statements(names, 0, "    "))
    return (f"@pl.function\ndef gen(x: {T}, y: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:\n"
            + "\n".join(body) + f"\n    return {names[-1]}\n")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_generated_programs_parse_verify_and_round_trip(code: str) -> None:
    f = pl.parse(code)
    dsl_mlir.verify(f.module)
    printed = f.as_python()
    again = pl.parse(printed)
    assert structural_equal(f, again), printed
    assert again.as_python() == printed


TOKENS = ["pl.", "(", ")", ":", "=", ",", "x", "1.5", "-3", "pl.yield_(", "for ", "if ",
          "\n", "    ", "pl.range(", "]", "[", "pl.add", "init_values=", "return ", "i0",
          "pl.Tensor[[4], pl.FP32]", "é", "lambda: 0", " while True: pass", "self."]


@st.composite
def mutants(draw: st.DrawFn) -> str:
    source = draw(st.sampled_from([ALL["flash_attn"], ALL["nested"], ALL["scalars"],
                                   ALL["non_strict"], ALL["math_ops"]]))
    text = source
    for _ in range(draw(st.integers(1, 3))):
        start = text.index("def ") + 4  # keep the imports and the decorator intact
        pos = draw(st.integers(start, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "swap_lines", "duplicate"]))
        if action == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 12)):]
        elif action == "insert":
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos:]
        else:
            lines = text.split("\n")
            first = text[:start].count("\n") + 1
            i = draw(st.integers(first, len(lines) - 1))
            j = draw(st.integers(first, len(lines) - 1))
            if action == "swap_lines":
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines.insert(j, lines[i])
            text = "\n".join(lines)
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_mutated_programs_parse_or_fail_with_a_located_error(code: str) -> None:
    try:
        result = pl.parse(code)
    except ParserError as err:
        span = err.span
        assert span is not None, str(err)
        assert span.filename == "<string>"
        assert 1 <= span.begin_line <= code.count("\n") + 2, (span, code)
        assert span.begin_column >= 1 and span.end_line >= span.begin_line
        assert err.message and "--> <string>:" in str(err)
        return
    except ValueError as err:  # the mutation removed or duplicated the definition itself
        assert "@pl.function" in str(err) or "DSL functions/programs" in str(err)
        return
    assert isinstance(result, Function | Program)
    dsl_mlir.verify(result.module)
