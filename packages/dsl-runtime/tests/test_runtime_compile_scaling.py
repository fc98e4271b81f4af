"""Long element-wise programs compile in time linear in their length, and their results
match the interpreter. Element-wise fusion used to recompute every shared value in each
of its consumers, compounding: a 100-statement program with shared subexpressions never
finished compiling. Each program runs in a subprocess with a timeout, so that a
regression fails the test instead of hanging the suite."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

OPS = ("pl.add({a}, y)", "pl.sub({a}, x)", "pl.mul({a}, y)", "pl.mul({a}, 0.5)")


def program(count: int, reuse: bool) -> str:
    """``count`` element-wise statements, each on the previous value; with ``reuse``,
    each also adds an earlier value (up to three later statements read each one), and
    halves the sum so that values stay finite."""
    lines = ["import dsl_parser.language as pl", "",
             "def chain(x: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32]):"]
    names = ["x", "y"]
    for i in range(count):
        op = OPS[i % len(OPS)].format(a=names[-1])
        if reuse:
            op = f"pl.mul(pl.add({op}, {names[(i * 7) % len(names)]}), 0.5)"
        lines.append(f"    v{i} = {op}")
        names.append(f"v{i}")
    lines.append(f"    return {names[-1]}")
    return "\n".join(lines) + "\n"


CHECK = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    from generated import chain
    from dsl_parser.interpreter import interpret
    from dsl_runtime import jit

    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 1.5, 64).astype(np.float32)
    y = rng.uniform(0.5, 1.5, 64).astype(np.float32)
    got = jit(chain)(x, y)
    want = interpret(chain, x, y)
    assert np.isfinite(want).all() and np.abs(want).max() > 0
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-30)
    print("OK", float(got[0]))
""")


@pytest.mark.parametrize(("count", "reuse"), [(150, True), (800, False)],
                         ids=["shared-subexpressions", "chain"])
def test_long_elementwise_programs_compile_quickly_and_match_the_interpreter(
        tmp_path: Path, count: int, reuse: bool) -> None:
    (tmp_path / "generated.py").write_text(program(count, reuse))
    try:
        out = subprocess.run([sys.executable, "-c", CHECK, str(tmp_path)],
                             capture_output=True, text=True, timeout=150)
    except subprocess.TimeoutExpired:
        pytest.fail(f"compiling {count} element-wise statements took over 150 s")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("OK ")
