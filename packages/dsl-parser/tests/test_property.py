"""Property tests: generated programs parse and round-trip; mutated programs parse or fail
with a located ParserError, never anything else."""

from __future__ import annotations

import re

import dsl_mlir
import pytest
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


def check_parse_outcome(code: str) -> None:
    """A parsed, verified module, or a located ParserError that is not an internal error."""
    try:
        result = pl.parse(code)
    except ParserError as err:
        span = err.span
        assert span is not None, str(err)
        assert span.filename == "<string>"
        assert 1 <= span.begin_line <= code.count("\n") + 2, (span, code)
        assert span.begin_column >= 1 and span.end_line >= span.begin_line
        assert err.message and "--> <string>:" in str(err)
        assert not err.message.startswith("internal error"), (str(err), code)
        return
    except ValueError as err:  # the mutation removed or duplicated the definition itself
        assert "@pl.function" in str(err) or "DSL functions/programs" in str(err)
        return
    assert isinstance(result, Function | Program)
    dsl_mlir.verify(result.module)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_mutated_programs_parse_or_fail_with_a_located_error(code: str) -> None:
    check_parse_outcome(code)


NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
DTYPES = ["pl.FP32", "pl.FP16", "pl.INT32", "pl.UINT8", "pl.BOOL", "pl.INDEX", "pl.FP64", "pl.BF16"]
ANNOTATIONS = ["pl.Tensor[[4], pl.FP32]", "pl.Scalar[pl.INT32]", "pl.Tensor[[2**63], pl.FP32]",
               "pl.Tensor[[-1, 4], pl.FP16]", "pl.Tensor[pl.FP32]", "pl.Tensor[[4, 8]]", "int",
               "pl.Scalar", "pl.Tensor[[4, 8], 3]", "pl.Tensor[[10 ** 10 ** 10], pl.FP32]",
               "tuple[pl.Scalar[pl.FP64]]", "pl.dynamic('M')", "None", "pl.FP32"]
STATEMENTS = ["while True: pass", "try:\n        pass\n    except Exception:\n        pass",
              "with x: pass", "del x", "global x", "nonlocal x", "import os", "assert x",
              "raise ValueError()", "q = 10 ** 10 ** 10", "q = 1 << 10 ** 9", "q = [0] * 10 ** 9",
              "q = (lambda: 0)()", "q = [i for i in range(3)]", "q = {1: 2}", "q = {1, 2}",
              "q = x[1:2:3]", "q = x[...]", "q = (w := 3)", "q = f'{x}'", "q = x if x else x",
              "q = yield", "q = await x", "q = pl.full([2**63], 1.0, dtype=pl.FP32)",
              "q = pl.slice(x, [4], [2**64])", "q = pl.const(2**70, pl.INT64)",
              "q = int(1e308 * 10)",
              "q = 1 / 0", "q = -(2**200)", "q = pl.full([4], 1.0, dtype=pl.FP32)[0]",
              "q = x.shape", "q = x.T", "q = pl.add(*[x, x])", "q = pl.add(**{})", "q = None + 1",
              "q = 'a' * 3", "async def g(): pass", "class C: pass", "def g(): pass",
              "q = pl.create_tensor([3.5], dtype=pl.FP32)", "q = pl.reshape(x, [2**62, 4])",
              "q = pl.range(3)", "q = pl.yield_(x)", "for i in range(10 ** 12): pass",
              "for i in pl.range(2**70): pass", "q = x @ x", "q = ~x", "q = not x", "q = x < x < x"]
KERNEL = '''
import dsl_parser.language as pl


@pl.kernel
def k(x: pl.Tensor[[8], pl.FP32], y: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]):
    i = pl.thread_id(0)
    j = pl.block_id(0) * pl.block_dim(0) + i
    if j < n:
        v = x[j] * 2.0
        y[j] = v + 1.0
    for t in range(4):
        y[i] += x[i]
    w = pl.max(n, 3)


@pl.function
def host(x: pl.Tensor[[8], pl.FP32], y: pl.Tensor[[8], pl.FP32], m: pl.Scalar[pl.INDEX]):
    k(x, y, m).launch(grid=pl.ceil_div(m, 4), block=4)
'''
SOURCES = [*ALL.values(), KERNEL]


@st.composite
def program_mutants(draw: st.DrawFn) -> str:
    """A real program with line-level edits: deleted, duplicated or swapped lines, swapped
    names, changed dtypes and annotations, and inserted unsupported syntax."""
    lines = draw(st.sampled_from(SOURCES)).split("\n")
    body = [i for i, line in enumerate(lines) if line.startswith("    ") and line.strip()]
    for _ in range(draw(st.integers(1, 3))):
        i, j = draw(st.sampled_from(body)), draw(st.sampled_from(body))
        action = draw(st.sampled_from(["delete", "duplicate", "swap_lines", "swap_names",
                                       "dtype", "annotation", "statement"]))
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        if action == "delete":
            lines[i] = indent + "pass"
        elif action == "duplicate":
            lines[j] = lines[i]
        elif action == "swap_lines":
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "swap_names":
            names = sorted(set(NAME.findall("\n".join(lines[k] for k in body))))
            a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
            swap = {a: b, b: a}
            lines[i] = NAME.sub(lambda m, swap=swap: swap.get(m.group(), m.group()), lines[i])
        elif action == "dtype":
            lines[i] = re.sub(r"pl\.(FP|INT|UINT|BF|BOOL|INDEX)[0-9]*",
                              draw(st.sampled_from(DTYPES)), lines[i], count=1)
        elif action == "annotation":
            lines[i] = re.sub(r"pl\.(Tensor|Scalar)\[[^=]*?\](?=[,):= ])",
                              draw(st.sampled_from(ANNOTATIONS)), lines[i], count=1)
        else:
            lines.insert(i, indent + draw(st.sampled_from(STATEMENTS)).replace("\n    ",
                                                                              "\n" + indent))
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(program_mutants())
def test_line_mutations_of_real_programs_parse_or_fail_with_a_located_error(code: str) -> None:
    check_parse_outcome(code)


@pytest.mark.parametrize("statement", STATEMENTS)
@pytest.mark.parametrize("source", ["nested", "scalars", "dynamic", "kernel"])
def test_every_unsupported_statement_fails_with_a_located_error(source: str,
                                                                statement: str) -> None:
    lines = {**ALL, "kernel": KERNEL}[source].split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("    ") and "=" in line)
    lines.insert(first + 1, "    " + statement.replace("\n    ", "\n    "))
    check_parse_outcome("\n".join(lines))
