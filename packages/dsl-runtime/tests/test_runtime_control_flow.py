"""while, break, continue and early return: compiled kernels and functions agree with the
interpreter (which runs the Python code itself) and with plain Python references;
their PTX assembles (the ptxas check of the root conftest)."""

from __future__ import annotations

import numpy as np
import pytest
import runtime_flow_defs as d

import dsl_parser.language as pl
from dsl_parser.errors import ParserError
from dsl_runtime import jit


def _both(fn):  # type: ignore[no-untyped-def]
    return jit(fn, strict_ssa=False), jit(fn, backend="interpret")


def _mandelbrot_ref(cr: np.ndarray, ci: np.ndarray, max_iter: int) -> np.ndarray:
    out = np.zeros(len(cr), np.int32)
    for k in range(len(cr)):
        x = y = np.float32(0)
        n = 0
        while n < max_iter:
            if x * x + y * y > 4:
                break
            x, y = x * x - y * y + cr[k], np.float32(2) * x * y + ci[k]
            n += 1
        out[k] = n
    return out


@pytest.mark.parametrize("n", [1, 64, 200])
def test_mandelbrot_while_break_and_early_return(n: int) -> None:
    cr = np.linspace(-2, 1, n, dtype=np.float32)
    ci = np.linspace(-1.2, 1.2, n, dtype=np.float32)[::-1].copy()
    before = (cr.copy(), ci.copy())
    want = _mandelbrot_ref(cr, ci, 60)
    for f in _both(d.mandelbrot):
        out = np.full(n, -7, np.int32)
        f(cr, ci, out, 60)
        np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(cr, before[0])
    np.testing.assert_array_equal(ci, before[1])
    if n > 1:  # points inside and outside the set
        assert want.min() == 1 and want.max() == 60


def test_continue_and_break_in_a_for_loop() -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal((37, 23)).astype(np.float32)
    for limit in (0.5, 3.0, 1e9):
        want_t, want_c = np.zeros(37, np.float32), np.zeros(37, np.int32)
        for r in range(37):
            acc, used = np.float32(0), 0
            for v in a[r]:
                if v < 0:
                    continue
                acc, used = acc + v, used + 1
                if acc > limit:
                    break
            want_t[r], want_c[r] = acc, used
        for f in _both(d.row_scan):
            total, count = np.zeros(37, np.float32), np.zeros(37, np.int32)
            f(a, limit, total, count)
            np.testing.assert_array_equal(count, want_c)
            np.testing.assert_allclose(total, want_t, rtol=1e-6)


def test_return_from_inside_a_loop() -> None:
    rng = np.random.default_rng(5)
    a = rng.integers(0, 6, (40, 9), dtype=np.int32)
    for target in (0, 3, 99):
        want = np.array([list(row).index(target) if target in row else -1 for row in a],
                        np.int32)
        for f in _both(d.find):
            where = np.full(40, -5, np.int32)
            f(a, target, where)
            np.testing.assert_array_equal(where, want)


def test_break_leaves_only_the_inner_while_loop() -> None:
    rng = np.random.default_rng(6)
    a = rng.integers(0, 2, (21, 12), dtype=np.int32)
    want = np.zeros(21, np.int32)
    for r in range(21):
        for j in range(12):
            k = j + 1
            while k < 12 and a[r, k] == a[r, j]:
                k += 1
            want[r] += k - j
    for f in _both(d.runs):
        out = np.zeros(21, np.int32)
        f(a, out)
        np.testing.assert_array_equal(out, want)


def test_a_while_loop_in_a_function() -> None:
    def steps(n: int) -> int:
        count = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        return count

    for f in _both(d.collatz_steps):
        assert [int(f(n)[0]) for n in (1, 6, 27, 97)] == [steps(n) for n in (1, 6, 27, 97)]


def test_the_ptx_of_early_exits_assembles() -> None:
    """The NVPTX backend lowers the rewritten loops (scf.while, flags); the root conftest
    assembles every PTX the tests produce with ptxas."""
    n = 8
    cr, ci, out = (np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.int32))
    ptx = jit(d.mandelbrot).ptx(cr, ci, out, 10)
    assert ".entry" in ptx and "bra" in ptx
    a, where = np.zeros((4, 4), np.int32), np.zeros(4, np.int32)
    assert ".entry" in jit(d.find).ptx(a, 1, where)


def test_errors_point_at_the_loop() -> None:
    def forever(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        while True:
            x = pl.add(x, x)
        return x

    with pytest.raises(ParserError, match=r"this while loop never ends") as info:
        jit(forever, strict_ssa=False)(np.zeros(4, np.float32))
    assert "while True" in str(info.value)

    def not_bool(n: pl.INT32) -> pl.Tensor[[1], pl.INT32]:
        while n:
            n = n - 1
        return pl.full([1], n, pl.INT32)

    with pytest.raises(ParserError, match=r"a while condition must be a BOOL scalar, got "
                                          r"pl.Scalar\[pl.INT32\]"):
        jit(not_bool, strict_ssa=False)(3)

    def with_else(n: pl.INT32) -> pl.Tensor[[1], pl.INT32]:
        while n > 0:
            n = n - 1
        else:
            n = n + 1
        return pl.full([1], n, pl.INT32)

    with pytest.raises(ParserError, match=r"while \.\.\. else is not supported"):
        jit(with_else, strict_ssa=False)(3)
    with pytest.raises(ParserError, match=r"a while loop carries the names it reassigns, "
                                          r"which strict SSA forbids"):
        jit(not_bool)(3)


def test_scalar_min_max_agree_with_the_interpreter() -> None:
    x = np.array([-3.0, -0.5, 0.25, 2.0, np.nan, -np.inf], np.float32)
    u = np.array([0, 3, 7, 8, 2**31 + 5, 2**32 - 1], np.uint32)
    results = []
    for f in _both(d.clamp):
        out, uout = np.zeros(6, np.float32), np.zeros(6, np.uint32)
        f(x, u, out, uout)
        results.append((out, uout))
    for out, uout in results:
        np.testing.assert_array_equal(out, [-1.0, -0.5, 0.25, 1.0, np.nan, -1.0])
        assert uout.tolist() == [7, 7, 7, 8, 2**31 + 5, 2**32 - 1]


def test_vector_loads_and_stores() -> None:
    x = np.arange(40, dtype=np.float32).reshape(5, 8)
    before = x.copy()
    want = np.concatenate([x[:, 4:][:, ::-1], x[:, :4][:, ::-1]], axis=1)
    for f in _both(d.swap_halves):
        y = np.zeros_like(x)
        f(x, y, 4)
        np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(x, before)
    a = np.zeros((4, 8), np.float32)
    ptx = jit(d.swap_halves).ptx(a, a, 4)
    assert "ld.global.v4" in ptx and "st.global.v4" in ptx  # the aligned ones
    assert "vector<4xf32>" in jit(d.swap_halves).lower(a, a, 4)


def test_boundscheck_covers_vector_accesses() -> None:
    f = jit(d.swap_halves, boundscheck=True)
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    y = np.zeros_like(x)
    with pytest.raises(IndexError, match=r"kernel 'swap_halves_k' at .*: store index 8 is out "
                                         r"of range for dimension 1 of size 8"):
        f(x, y, 5)  # elements 5..8 of a row of 8
    np.testing.assert_array_equal(y[:, :4], x[:, 4:][:, ::-1])  # the aligned store ran
    np.testing.assert_array_equal(y[:, 4:], 0)  # the failed one wrote nothing
