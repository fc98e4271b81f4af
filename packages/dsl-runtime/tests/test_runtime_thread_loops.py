"""The cpu backend's thread loops (dsl-thread-loops): guards on the thread's global index
become loop bounds, and the loops over x are vectorized by LLVM. Every form of guard, odd
sizes and block shapes, serial and parallel blocks, with and without boundscheck, against
numpy and the interpreter; inputs unchanged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import runtime_guard_defs as d

from dsl_runtime import jit

VARIANTS = {
    "serial": lambda f: jit(f),
    "parallel": lambda f: jit(f, pipeline_options={"parallel": True}),
    "boundscheck": lambda f: jit(f, boundscheck=True),
    "interpret": lambda f: jit(f, backend="interpret"),
}


@pytest.mark.parametrize("how", list(VARIANTS))
@pytest.mark.parametrize("block", [256, 64, 100, 1])
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 257, 1000])
def test_guarded_elementwise(how: str, block: int, n: int) -> None:
    if how == "interpret" and (n > 257 or block == 1):
        pytest.skip("the interpreter is slow: small sizes")
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    keep = x.copy()
    z = np.full(n, np.nan, np.float32)
    VARIANTS[how](d.scale)(x, z, block)
    np.testing.assert_array_equal(z, x * np.float32(2) + np.float32(1))
    np.testing.assert_array_equal(x, keep)


def window_reference(n: int, lo: int, hi: int, k: int, last: int) -> np.ndarray:
    x = np.arange(n, dtype=np.int32)
    i = np.arange(n)
    x[(i >= lo) & (i < hi) & (i - 1 < n - 1)] += 1
    x[i == k] += 10
    x[(i + 2 <= last) & (i > 0)] += 100
    return x


WINDOWS = [(0, 0, 0, 0), (3, 40, 7, 20), (-5, 1000, 0, 1000), (50, 10, 999, -3), (0, 130, 129, 131)]


@pytest.mark.parametrize("how", list(VARIANTS))
@pytest.mark.parametrize("block", [64, 48])
@pytest.mark.parametrize("window", WINDOWS)
def test_every_comparison_form(how: str, block: int, window: tuple[int, int, int, int]) -> None:
    n = 130
    lo, hi, k, last = window
    hi, last = min(hi, n), min(last, n + 1)  # keep the kernel's writes inside x
    x = np.arange(n, dtype=np.int32)
    VARIANTS[how](d.window)(x, lo, hi, k, last, block)
    np.testing.assert_array_equal(x, window_reference(n, lo, hi, k, last))


@pytest.mark.parametrize("how", list(VARIANTS))
@pytest.mark.parametrize(("lo", "hi"), [(0, 200), (10, 20), (20, 10), (-4, 3), (199, 500)])
def test_nested_guards(how: str, lo: int, hi: int) -> None:
    x = np.arange(200, dtype=np.int32)
    VARIANTS[how](d.nested)(x, lo, hi)
    want = np.arange(200, dtype=np.int32)
    sel = slice(max(lo, 0), max(min(hi, 200), max(lo, 0)))
    want[sel] *= 3
    np.testing.assert_array_equal(x, want)


@pytest.mark.parametrize("how", list(VARIANTS))
@pytest.mark.parametrize("n", [1, 31, 32, 33, 200])
def test_conditions_left_in_the_loop(how: str, n: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    mask = rng.integers(-1, 2, n).astype(np.int32)
    z = np.zeros(n, np.float32)
    VARIANTS[how](d.masked)(x, mask, z)
    i = np.arange(n)
    want = np.where((i % 3 != 1) & (mask > 0), x - np.float32(1), np.float32(0))
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("how", ["serial", "parallel", "boundscheck"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 5), (5, 3), (67, 130), (130, 67)])
@pytest.mark.parametrize("block", [(16, 16), (64, 4), (32, 8), (7, 3), (1, 1)])
def test_stencil(how: str, shape: tuple[int, int], block: tuple[int, int]) -> None:
    a = np.random.default_rng(shape[0]).standard_normal(shape).astype(np.float32)
    keep = a.copy()
    b = np.full(shape, -7.0, np.float32)
    VARIANTS[how](d.stencil)(a, b, *block)
    want = np.full(shape, -7.0, np.float32)
    want[1:-1, 1:-1] = np.float32(0.25) * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    np.testing.assert_allclose(b, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(a, keep)


def test_stencil_matches_the_interpreter() -> None:
    a = np.random.default_rng(5).standard_normal((9, 21)).astype(np.float32)
    got, ref = np.zeros_like(a), np.zeros_like(a)
    jit(d.stencil)(a, got, 8, 4)
    jit(d.stencil, backend="interpret")(a, ref, 8, 4)
    np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_in_place_and_aliased_arguments() -> None:
    """The same array as input and output of one thread's element (no thread reads
    what another writes): the result is the element-wise one."""
    x = np.arange(1000, dtype=np.float32)
    jit(d.scale)(x, x, 128)
    np.testing.assert_array_equal(x, np.arange(1000, dtype=np.float32) * 2 + 1)
    y = np.arange(300, dtype=np.float32)
    z = np.zeros(300, np.float32)
    jit(d.shift)(y, z)
    np.testing.assert_array_equal(z[1:], y[:-1] + y[1:])
    assert z[0] == 0


def test_thread_loops_are_vectorized() -> None:
    """The x loop asks LLVM to vectorize it, with its accesses declared parallel, and the
    guard is gone from it (the loop bounds carry it)."""
    x = np.zeros(100, np.float32)
    cf = jit(d.scale).compile(x, x, 64)
    llvm_ir = cf.mlir("llvm")
    assert "llvm.loop.vectorize.enable" in llvm_ir
    assert "llvm.loop.parallel_accesses" in llvm_ir
    assert "!llvm.access.group" in llvm_ir
    lowered = cf.mlir("lowered")
    assert "llvm.intr.smin" in lowered  # the bound min(64, n - block * 64)


RATIO_SCRIPT = """
import numpy as np, runtime_guard_defs as d
from dsl_runtime import jit
div = np.array([0, 5, 3, 0, -7, 20, 9, 0] * 9, np.int32)
out = np.zeros_like(div)
jit(d.ratio{options})(div, out, 70)  # threads 70..71 would read beyond n
print(out.tolist())
"""


@pytest.mark.parametrize("options", ["", ", boundscheck=True", ", backend='interpret'",
                                     ", pipeline_options={'parallel': True}"])
def test_and_or_short_circuit_like_python(options: str) -> None:
    """``i < n and d[i] != 0 and 100 // d[i] > 10`` reads ``d[i]`` only for ``i < n`` and
    divides only by non-zero values, as Python does (evaluating every operand used to
    read past ``n`` and trap on the division by zero: run in a subprocess)."""
    done = subprocess.run([sys.executable, "-c", RATIO_SCRIPT.format(options=options)],
                          capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr
    div = np.array([0, 5, 3, 0, -7, 20, 9, 0] * 9, np.int32)
    want = [3 if i < 70 and v != 0 and 100 // v > 10 else 0 for i, v in enumerate(div.tolist())]
    assert done.stdout.split("\n")[-2] == str(want)
    assert "remark" not in done.stderr  # LLVM's remarks never reach the user's stderr
