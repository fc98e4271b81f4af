"""Parse-time benchmark of dsl-parser (text -> verified MLIR module).

Three generated functions: 200 and 1,000 straight-line statements (annotated
tensor ops, a mix of pl.add/sub/mul/matmul and scalar broadcasts), and a
loop/if-heavy one (nested pl.range loops with iter_args and if/else yields).
Each is parsed ``--repeat`` times with the package context already created;
the table shows the best and the median time (ms) and the rate per statement.
The peer measured in the same run is CPython's own ``compile()`` of the same text
(source to bytecode), the floor of any parser that starts from Python's AST. The
reference parser's figure (seeds/002) is not measured here: it is printed on a
separate line, labelled as published.

    python bench/parse_bench.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import dsl_parser.language as pl

T = "pl.Tensor[[64, 64], pl.FP16]"
OPS = ("pl.add({a}, {b})", "pl.sub({a}, {b})", "pl.mul({a}, {b})", "{a} + {b}",
       "pl.matmul({a}, {b}, b_trans=True)", "pl.mul({a}, 0.5)")


def straight_line(count: int) -> str:
    """``count`` annotated statements, each using two earlier values."""
    lines = [f"@pl.function\ndef straight(x: {T}, y: {T}) -> {T}:"]
    names = ["x", "y"]
    for i in range(count):
        op = OPS[i % len(OPS)].format(a=names[-1], b=names[(i * 7) % len(names)])
        lines.append(f"    v{i}: {T} = {op}")
        names.append(f"v{i}")
    lines.append(f"    return {names[-1]}")
    return "\n".join(lines) + "\n"


def control_flow(loops: int) -> str:
    """``loops`` outer loops, each with an inner loop and an if/else with yields."""
    lines = [f"@pl.function\ndef branchy(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:"]
    prev = "x"
    for k in range(loops):
        lines += [
            f"    for i{k}, (a{k},) in pl.range(0, n, 1, init_values=({prev},)):",
            f"        for j{k}, (b{k},) in pl.range(4, init_values=(a{k},)):",
            f"            if i{k} * 4 + j{k} < 7:",
            f"                t{k}: {T} = pl.add(b{k}, x)",
            f"                r{k} = pl.yield_(t{k})",
            "            else:",
            f"                u{k}: {T} = pl.mul(b{k}, 0.5)",
            f"                r{k} = pl.yield_(u{k})",
            f"            c{k} = pl.yield_(r{k})",
            f"        o{k} = pl.yield_(c{k})",
        ]
        prev = f"o{k}"
    lines.append(f"    return {prev}")
    return "\n".join(lines) + "\n"


#: Not measured in this run (the reference parser is not installed here).
PUBLISHED = "published figure, not measured here: the reference parser (seeds/002), 41 ms for 200 statements"


def measure(parse: Callable[[Any], object], code: Any, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        parse(code)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def cpython_compile(code: str) -> object:
    return compile(code, "<bench>", "exec")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    cases: list[tuple[str, Callable[[], str], int]] = [
        ("200 statements", lambda: straight_line(200), 200),
        ("1,000 statements", lambda: straight_line(1000), 1000),
        ("loops/ifs (25 nests)", lambda: control_flow(25), 25 * 10),
    ]
    pl.parse(straight_line(10))  # warm up: context, imports
    print(f"{'case':<24}{'statements':>11}{'best ms':>10}{'median ms':>11}{'us/stmt':>9}"
          f"{'compile() ms':>14}{'ours/compile':>14}")
    for name, make, statements in cases:
        code = make()
        times = measure(pl.parse, code, args.repeat)
        best, median = min(times), statistics.median(times)
        floor = min(measure(cpython_compile, code, args.repeat))
        print(f"{name:<24}{statements:>11}{best:>10.2f}{median:>11.2f}"
              f"{best * 1e3 / statements:>9.1f}{floor:>14.2f}{best / floor:>13.1f}x")
    print(f"\n{PUBLISHED}")
    lowering_threads(max(10, args.repeat))
    scaling(max(3, args.repeat // 5))


def lowering_threads(repeat: int) -> None:
    """The pipeline on the calling thread (the runtime's contexts: ``"auto"``) against
    the context's thread pool (MLIR's default), each run in a fresh context (median ms),
    for a 3-op kernel and a 200-statement chain."""
    import dsl_mlir

    print(f"\nLowering, one thread vs the context's pool (median of {repeat} fresh contexts)")
    print(f"{'kernel':<24}{'one thread ms':>15}{'pool ms':>10}{'pool/one':>10}")
    for name, text in (("3 ops", elementwise_line(3)), ("200-op chain", elementwise_line(200))):
        medians = []
        for threading in ("auto", True):
            times = []
            for _ in range(repeat):
                module = pl.parse(text, context=dsl_mlir.context(multithreading=threading)).module
                start = time.perf_counter()
                dsl_mlir.lower(module)
                times.append((time.perf_counter() - start) * 1e3)
            medians.append(statistics.median(times))
        print(f"{name:<24}{medians[0]:>15.2f}{medians[1]:>10.2f}{medians[1] / medians[0]:>9.2f}x")


ELEMENTWISE = ("pl.add({a}, y)", "pl.sub({a}, x)", "pl.mul({a}, y)", "pl.mul({a}, 0.5)")


def elementwise_line(count: int, reuse: bool = False) -> str:
    """``count`` element-wise statements, each on the previous value (``reuse``: and on
    an earlier one, a DAG of shared subexpressions)."""
    lines = ["@pl.function\ndef chain(x: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32])"
             " -> pl.Tensor[[64], pl.FP32]:"]
    names = ["x", "y"]
    for i in range(count):
        op = ELEMENTWISE[i % len(ELEMENTWISE)].format(a=names[-1])
        if reuse:
            op = f"pl.add({op}, {names[(i * 7) % len(names)]})"
        lines.append(f"    v{i} = {op}")
        names.append(f"v{i}")
    lines.append(f"    return {names[-1]}")
    return "\n".join(lines) + "\n"


def scaling(repeat: int) -> None:
    """Time per statement at 100, 1,000 and 5,000 statements: flat when linear. Parse of
    straight-line code and of loop nests, and the lowering pipeline (dsl-to-llvm-cpu) of
    element-wise chains and of element-wise DAGs whose values are read by up to three
    later statements (fusion recomputes small shared values in each reader)."""
    import dsl_mlir

    print("\nScaling (best of", repeat, "runs; us per statement should stay flat)")
    print(f"{'series':<34}{'100':>12}{'1,000':>12}{'5,000':>12}")
    series: list[tuple[str, Callable[[int], Any], Callable[[Any], object]]] = [
        ("parse, straight-line", straight_line, pl.parse),
        ("parse, loop nests (10 stmts each)", lambda n: control_flow(max(1, n // 10)), pl.parse),
        ("lower, element-wise chain (parsed)",
         lambda n: pl.parse(elementwise_line(n)).module, dsl_mlir.lower),
        ("lower, element-wise DAG (parsed)",
         lambda n: pl.parse(elementwise_line(n, reuse=True)).module, dsl_mlir.lower),
    ]
    for name, make, run in series:
        cells = []
        for count in (100, 1000, 5000):
            subject = make(count)
            best = min(measure(run, subject, repeat if count < 5000 else 1))
            cells.append(f"{best * 1e3 / count:>9.1f} us")
        print(f"{name:<34}" + "".join(f"{c:>12}" for c in cells))


if __name__ == "__main__":
    main()
