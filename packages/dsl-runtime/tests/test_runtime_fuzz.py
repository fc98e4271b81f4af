"""Differential fuzzing in CI: a fixed-seed budget of random valid programs, each compiled
under every option set of ``fuzz_programs.OPTION_SETS`` (default, parallel=True,
llvm_passes="default", opt_level=0), compared with the reference interpreter (tolerance
per dtype), with the inputs checked unchanged after every call.

The generator covers elementwise unary/binary ops with broadcasting and scalar operands,
comparisons and select, reductions on any axes (keepdim or not), argmax, casts between
every dtype pair of the enabled dtypes, slices/assemble with static and run-time offsets,
subscript windows, matmul (transposes, out_dtype), shape ops, creation ops, loops with
iter_args, ifs with yields, program calls, several results, static and dynamic shapes
and 0-size dimensions: together with the interpreter's own tests this is the op x dtype
matrix against numpy. Features that hit known bugs are off here (``KNOWN_BUGS``, empty today);
``make fuzz`` runs longer (``FUZZ_SECONDS``) and writes minimized reproducers.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, seed, settings

import dsl_parser.language as pl
from dsl_runtime import jit

sys.path.insert(0, str(Path(__file__).parent))
import fuzz_programs as fp

EXAMPLES = int(os.environ.get("DSL_FUZZ_EXAMPLES", "120"))


def test_compiled_code_agrees_with_the_interpreter(tmp_path: Path) -> None:
    directory = tmp_path
    ran: list[int] = []

    @seed(20261201)
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), print_blob=True)
    @given(case=fp.programs(fp.Features()))
    def one(case: fp.Case) -> None:
        try:
            ran.append(fp.check(case, directory=directory))
        except fp.Skip:
            reject()

    try:
        one()
    finally:
        fp.WORKER.close()
    # the budget really compared programs (it cannot pass by rejecting them all)
    assert len(ran) >= EXAMPLES // 2, f"only {len(ran)} of {EXAMPLES} programs ran"


D1 = pl.dynamic("D1")


def dynamic_one(x: pl.Tensor[[2, 3], pl.INT32], y: pl.Tensor[[2, D1], pl.INT32]):
    return pl.sub(y, x)


def test_dynamic_size_one_against_a_static_size_is_a_value_error() -> None:
    """Found by the fuzzer: y's pl.dynamic D1 is 1 at run time where the op's type says 3
    (the parser's assumption D1 == 3); the code read y out of bounds. Now a run-time check
    of the op raises, naming the op, the user's line and the sizes; equal sizes compute."""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    f = jit(dynamic_one)
    line = dynamic_one.__code__.co_firstlineno + 1
    with pytest.raises(ValueError, match=rf"dsl.sub at .*test_runtime_fuzz.py:{line}:.*size 1 "
                                         r"in dimension 1 where the result has size 3"):
        f(x, np.array([[10], [20]], np.int32))
    y = np.arange(6, dtype=np.int32).reshape(2, 3) * 10
    np.testing.assert_array_equal(f(x, y), y - x)


def dynamic_chain(x: pl.Tensor[[2, 3], pl.INT32], y: pl.Tensor[[2, D1], pl.INT32],
                  z: pl.Tensor[[2, D1], pl.INT32]):
    s = pl.add(y, z)  # D1 with D1: whatever the size, no broadcast to check
    return pl.select(pl.gt(s, 0), s, x)  # D1 against 3: checked


def test_the_interpreter_checks_dynamic_sizes_as_the_compiled_code() -> None:
    """The interpreter (the fuzzer's oracle) broadcast the run-time 1 as numpy does; it now
    raises the compiled code's ValueError, and the dynamic sizes flow through results."""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    one = np.array([[10], [20]], np.int32)
    with pytest.raises(ValueError, match=r"pl.sub at .*: an operand has size 1 in dimension 1 "
                                         r"where the result has size 3"):
        jit(dynamic_one, backend="interpret")(x, one)
    for backend in ("interpret", "cpu"):
        f = jit(dynamic_chain, backend=backend)
        with pytest.raises(ValueError, match=r"size 1 in dimension 1 where the result has size 3"):
            f(x, one, one)
        y = np.arange(6, dtype=np.int32).reshape(2, 3) - 2
        s = y + y
        np.testing.assert_array_equal(f(x, y, y), np.where(s > 0, s, x))


def dead_mismatch(x: pl.Tensor[[3], pl.FP32], y: pl.Tensor[[D1], pl.FP32]):
    unused = pl.add(x, y)  # noqa: F841 (its check must still run)
    return pl.abs(x)


def test_a_check_of_an_unused_op_still_runs() -> None:
    """Found by the fuzzer: the inliner's canonicalization erased the unused pl.add before its
    run-time check was emitted, so compiled code returned where the interpreter raised."""
    x, one = np.array([-1, 2, -3], np.float32), np.ones(1, np.float32)
    for backend in ("interpret", "cpu"):
        f = jit(dead_mismatch, backend=backend)
        with pytest.raises(ValueError, match=r"size 1 in dimension 0 where the result has size 3"):
            f(x, one)
        np.testing.assert_array_equal(f(x, np.ones(3, np.float32)), [1, 2, 3])


def empty_windows(p0: pl.Tensor[[0], pl.FP32], p1: pl.Tensor[[2, 0], pl.FP32]):
    a = pl.assemble(p0, p0, [0])
    s = pl.slice(p1, [2, 0], [0, 0])
    return a, s


def test_empty_windows_at_offset_zero_compile() -> None:
    """Found by the fuzzer: upstream's slice verifiers refuse offset 0 in a dimension of
    size 0 ("offset 0 is out-of-bounds: 0 >= 0"): pl.assemble of an empty tile failed."""
    p0, p1 = np.zeros(0, np.float32), np.zeros((2, 0), np.float32)
    for backend in ("interpret", "cpu"):
        a, s = jit(empty_windows, backend=backend)(p0, p1)
        assert a.shape == (0,) and s.shape == (2, 0)
