"""Atomics in kernels: results against numpy on the CPU backend (blocks serial and in
parallel: real atomics), under the interpreter, and their PTX through ptxas (the root
conftest assembles every PTX the tests produce)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import runtime_flow_defs as d

import dsl_parser.language as pl
from dsl_parser.errors import ParserError
from dsl_runtime import jit

VARIANTS = {
    "serial": lambda f: jit(f),
    "parallel": lambda f: jit(f, pipeline_options={"parallel": True}),
    "interpret": lambda f: jit(f, backend="interpret"),
}


@pytest.mark.parametrize("how", list(VARIANTS))
def test_histogram_with_atomic_add_and_cas(how: str) -> None:
    rng = np.random.default_rng(7)
    n = 5000 if how != "interpret" else 700
    x = rng.integers(0, 37, n, dtype=np.int32)
    before = x.copy()
    bins = np.zeros(40, np.int32)
    first = np.full(40, -1, np.int32)
    VARIANTS[how](d.histogram)(x, bins, first)
    np.testing.assert_array_equal(bins, np.bincount(x, minlength=40))
    np.testing.assert_array_equal(x, before)
    for b in range(40):  # some thread holding that value won the compare-and-swap
        assert first[b] == -1 if bins[b] == 0 else x[first[b]] == b
    if how != "parallel":  # threads run in order: the first writer is the first index
        want = [int(np.argmax(x == b)) if (x == b).any() else -1 for b in range(40)]
        assert first.tolist() == want


@pytest.mark.parametrize("how", list(VARIANTS))
def test_float_atomics_min_max_add_xchg(how: str) -> None:
    rng = np.random.default_rng(8)
    x = rng.standard_normal(300).astype(np.float32)
    out = np.array([np.inf, -np.inf, 0.0, 5.0], np.float32)
    total = np.zeros((1, 1), np.float64)
    swaps = np.zeros(300, np.float32)
    VARIANTS[how](d.extremes)(x, out, total, swaps)
    assert out[0] == x.min() and out[1] == x.max() and out[3] == 5.0
    np.testing.assert_allclose(total[0, 0], x.astype(np.float64).sum(), rtol=1e-12)
    # the exchanges form a chain: every value but one was swapped out exactly once
    seen = sorted([*swaps.tolist(), float(out[2])])
    assert seen == sorted([0.0, *x.tolist()])


@pytest.mark.parametrize("how", list(VARIANTS))
def test_bitwise_atomics_on_unsigned(how: str) -> None:
    x = np.array([0xF0F0_0001, 0x0FF0_0003, 0xFFFF_FFFF, 0x8000_0007], np.uint32)
    acc = np.array([0, 0xFFFF_FFFF, 0], np.uint32)
    VARIANTS[how](d.bits)(x, acc)
    assert acc.tolist() == [int(np.bitwise_or.reduce(x)), int(np.bitwise_and.reduce(x)),
                            int(np.bitwise_xor.reduce(x))]


def test_the_ptx_of_atomics_assembles() -> None:
    x, bins = np.zeros(8, np.int32), np.zeros(4, np.int32)
    ptx = jit(d.histogram).ptx(x, bins, bins)
    assert "atom" in ptx
    f = np.zeros(8, np.float32)
    ptx = jit(d.extremes).ptx(f, np.zeros(4, np.float32), np.zeros((1, 1)), f)
    assert "atom" in ptx
    # pointer parameters carry their element's natural alignment (was .align 1)
    aligns = [line.split(".align")[1].split()[0] for line in ptx.splitlines()
              if ".ptr .align" in line]
    assert aligns == ["4"] * 4 + ["8"] * 2 + ["4"] * 2, aligns  # x, out, total (f64), swaps
    assert "atom" in jit(d.bits).ptx(np.zeros(4, np.uint32), np.zeros(3, np.uint32))


@pytest.mark.parametrize(("call", "message"), [
    ("pl.atomic_add(h, i, 1.0)", r"atomics take elements of int32, int64, uint32, uint64, "
                                  r"float32, float64; 'h' holds pl.FP16"),
    ("pl.atomic_and(f, i, 1.0)", r"pl.atomic_and takes integer elements; 'f' holds pl.FP32"),
    ("pl.atomic_cas(f, i, 1.0, 2.0)", r"pl.atomic_cas compares integers; 'f' holds pl.FP32"),
    ("pl.atomic_add(y, i, 1.5)", r"pl.atomic_add: .*1.5"),
    ("pl.atomic_add(y, (i, i), 1)", r"the tensor has rank 1 .* but 2 indices are given"),
    ("pl.atomic_add(y, i)", r"pl.atomic_add takes 3 arguments \(x, i, v\)"),
    ("pl.atomic_add(i, i, 1)", r"the first argument must be a tensor parameter"),
])
def test_atomic_misuse_is_an_error_at_the_call(call: str, message: str, tmp_path: Any) -> None:
    source = f'''
import dsl_parser.language as pl
from dsl_runtime import jit
N = pl.dynamic("N")

@pl.kernel
def k(h: pl.Tensor[[N], pl.FP16], f: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.INT32]):
    i = pl.thread_id(0)
    {call}

@jit
def host(h: pl.Tensor[[N], pl.FP16], f: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.INT32]):
    k(h, f, y).launch(grid=(1,), block=(4,))
'''
    path = tmp_path / "atomic_misuse.py"
    path.write_text(source)
    import runpy

    module = runpy.run_path(str(path))
    with pytest.raises(ParserError, match=message) as info:
        module["host"](np.zeros(4, np.float16), np.zeros(4, np.float32), np.zeros(4, np.int32))
    assert f"{path}:9" in str(info.value)


def test_atomics_outside_a_kernel_are_refused() -> None:
    def f(x: pl.Tensor[[4], pl.INT32]) -> pl.Tensor[[4], pl.INT32]:
        pl.atomic_add(x, 0, 1)
        return x

    with pytest.raises(ParserError, match=r"pl.atomic_add is only available inside a "
                                          r"@pl.kernel, not in a function"):
        jit(f)(np.zeros(4, np.int32))


def test_boundscheck_covers_atomics() -> None:
    """Under boundscheck an atomic at an out-of-range index is an IndexError naming the
    kernel's line, and changes nothing (neither the add nor the compare-and-swap)."""
    f = jit(d.histogram, boundscheck=True)
    x = np.array([0, 3, 9, 1], np.int32)  # bin 9 does not exist
    bins, first = np.zeros(4, np.int32), np.full(4, -1, np.int32)
    with pytest.raises(IndexError, match=r"histogram: kernel 'histogram_k' at .*"
                                         r"runtime_flow_defs.py:\d+:\d+: atomic index 9 is out "
                                         r"of range for dimension 0 of size 4"):
        f(x, bins, first)
    assert bins.tolist() == [1, 1, 0, 1] and first.tolist() == [0, 3, -1, 1]
