"""Value semantics: a call writes only its outputs; out= that overlaps an input is computed
as numpy does; results are independent arrays; DSL_CHECK_INPUTS catches a call that writes
an input. (Every call in these tests also runs under DSL_CHECK_INPUTS=1, see conftest.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import runtime_value_kernels as v

from dsl_runtime import jit
from dsl_runtime.abi import packed_plan

HERE = Path(__file__).resolve().parent


def run_isolated(body: str) -> subprocess.CompletedProcess[str]:
    """Run ``body`` (with numpy as np and the kernels as v) in a fresh interpreter."""
    script = f"import sys; sys.path.insert(0, {str(HERE)!r})\nimport numpy as np\n"
    script += "import runtime_value_kernels as v\n" + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, DSL_CHECK_INPUTS="1"))


def arange(*shape: int) -> np.ndarray:
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7 - 1


# -- 1. parameters are read-only ------------------------------------------------------------
def test_loop_carrying_a_parameter_leaves_it_unchanged() -> None:
    x = arange(10)
    keep = x.copy()
    np.testing.assert_array_equal(v.loop_on_param(x, 3), keep * 8)
    np.testing.assert_array_equal(x, keep)


def test_loop_carrying_a_static_parameter_leaves_it_unchanged() -> None:
    x = arange(4, 8)
    keep = x.copy()
    np.testing.assert_allclose(v.loop_on_static_param(x), keep ** 8, rtol=1e-6)
    np.testing.assert_array_equal(x, keep)


def test_nonstrict_reassigned_parameter_leaves_it_unchanged() -> None:
    x, y = arange(6), np.full(6, 0.5, np.float32)
    keep = x.copy()
    np.testing.assert_allclose(v.nonstrict_carried(x, y), keep + 2, rtol=1e-6)
    np.testing.assert_array_equal(x, keep)


def test_assemble_into_a_parameter_is_a_copy() -> None:
    a, b = arange(8), np.array([10, 20], np.float32)
    keep = a.copy()
    want = keep.copy()
    want[3:5] = b
    np.testing.assert_array_equal(v.assemble_into_param(a, b), want)
    np.testing.assert_array_equal(a, keep)


def test_assemble_in_a_loop_carrying_a_parameter() -> None:
    a, b = arange(8), np.array([10, 20], np.float32)
    keep = a.copy()
    np.testing.assert_array_equal(v.assemble_in_loop(a, b), np.tile(b, 4))
    np.testing.assert_array_equal(a, keep)


# -- 2. out= that overlaps an input ------------------------------------------------------------
def test_matmul_out_is_an_input() -> None:
    a, b = arange(16, 16), arange(16, 16).T.copy()
    want = a @ b
    v.mm(a, b, out=a)
    np.testing.assert_allclose(a, want, rtol=1e-5, atol=1e-5)
    a, b = arange(16, 16), arange(16, 16) * 2
    want = a @ b
    assert v.mm(a, b, out=b) is b
    np.testing.assert_allclose(b, want, rtol=1e-5, atol=1e-5)


def test_transpose_out_is_its_input() -> None:
    a = arange(8, 8)
    want = a.T.copy()
    v.tr(a, out=a)
    np.testing.assert_array_equal(a, want)


def test_out_partially_overlaps_an_input() -> None:
    buf = np.arange(12, dtype=np.float32)
    x, out = buf[0:8], buf[4:12]
    y = np.full(8, 100, np.float32)
    want = np.add(x.copy(), y)
    v.shift_add(x, y, out=out)
    np.testing.assert_array_equal(buf[4:12], want)
    np.testing.assert_array_equal(buf[0:4], np.arange(4, dtype=np.float32))


def test_out_is_an_input_through_the_prepared_call() -> None:
    a = arange(8, 8)
    want = a.T.copy()
    cf = v.tr.compile(a)
    cf.kernel(a, a)
    np.testing.assert_array_equal(a, want)


def test_outputs_sharing_memory_are_refused() -> None:
    x, z = arange(5), np.zeros(5, np.float32)
    with pytest.raises(ValueError, match=r"two_results: outputs 'result0' and 'result1' share memory"):
        v.two_results(x, out=(z, z))
    buf = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="share memory"):
        v.two_results(x, out=(buf[0:5], buf[3:8]))
    r0, r1 = np.zeros(5, np.float32), np.zeros(5, np.float32)
    v.two_results(x, out=(r0, r1))
    np.testing.assert_array_equal(r0, x + x)
    np.testing.assert_array_equal(r1, x * x)


def test_disjoint_out_has_no_temporary_and_empty_arrays_never_overlap() -> None:
    x = np.zeros(0, np.float32)
    r0, r1 = v.two_results(x)
    assert r0.shape == r1.shape == (0,)
    v.two_results(x, out=(x, x))  # nothing to write: no overlap


# -- 4. results are independent arrays ---------------------------------------------------------
def test_same_value_returned_twice_static() -> None:
    proc = run_isolated("""
        x = np.arange(32, dtype=np.float32).reshape(4, 8)
        a, b = v.same_twice(x)
        assert not np.shares_memory(a, b)
        assert (a == 2 * x).all() and (b == 2 * x).all(), (a, b)
        a[:] = 0
        assert (b == 2 * x).all()
        print("ok")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"


def test_same_value_returned_twice_dynamic() -> None:
    proc = run_isolated("""
        for n in (1, 7, 1000):
            x = np.arange(n, dtype=np.float32)
            a, b = v.same_twice_dynamic(x)
            assert not np.shares_memory(a, b)
            assert (a == x * x).all() and (b == x * x).all(), (a, b)
            o0, o1 = np.zeros(n, np.float32), np.zeros(n, np.float32)
            v.same_twice_dynamic(x, out=(o0, o1))
            assert (o0 == x * x).all() and (o1 == x * x).all()
        print("ok")
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"


def test_returned_parameter_is_a_new_array() -> None:
    x = arange(9)
    r = v.param_returned(x)
    assert not np.shares_memory(r, x)
    np.testing.assert_array_equal(r, x)
    r0, r1 = v.param_and_value(x)
    np.testing.assert_array_equal(r0, x)
    np.testing.assert_array_equal(r1, x + x)
    assert not np.shares_memory(r0, x)


# -- 5. program calls with dynamic shapes --------------------------------------------------------
def test_program_call_with_a_dynamic_result() -> None:
    f = jit(v.DynamicCalls, entry="sum_of_squares")
    for n in (1, 5, 300):
        a, b = arange(n), arange(n) + 2
        np.testing.assert_allclose(f(a, b), a * a + b * b, rtol=1e-6)
    sq = jit(v.DynamicCalls, entry="square")
    np.testing.assert_array_equal(sq(arange(7)), arange(7) ** 2)


# -- 3. the DSL_CHECK_INPUTS guard -------------------------------------------------------------
def test_guard_is_on_in_the_test_suite() -> None:
    cf = v.tr.compile(arange(8, 8))
    assert cf.kernel.check_inputs is True


def test_guard_raises_when_a_call_writes_an_input() -> None:
    """A kernel whose output slot is declared an input: the call writes it, the guard sees it."""
    from dsl_mlir.dispatch import PackedKernel

    cf = jit(v.tr.__wrapped__).compile(arange(8, 8))  # a fresh compile (this test's cache is empty)
    assert cf.source == "compiled"
    slots, symbols = packed_plan(cf.abi)
    as_inputs = [(name, kind, fmt, dims, False) for name, kind, fmt, dims, _ in slots]
    address = cf.keepalive[-1].raw_lookup(cf.abi.c_symbol)
    a, target = arange(8, 8), np.zeros((8, 8), np.float32)
    guarded = PackedKernel(address, as_inputs, symbols, "tr", check_inputs=True)
    with pytest.raises(RuntimeError, match=r"tr: the call modified its input 'result'"):
        guarded(a, target)
    np.testing.assert_array_equal(target, a.T)  # it did run
    unguarded = PackedKernel(address, as_inputs, symbols, "tr")
    assert unguarded.check_inputs is False
    assert unguarded(a, np.zeros((8, 8), np.float32)) is None


def test_guard_is_off_unless_asked() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys; sys.path.insert(0, {str(HERE)!r})
            import numpy as np
            import runtime_value_kernels as v
            print(v.tr.compile(np.zeros((8, 8), np.float32)).kernel.check_inputs)
        """)],
        capture_output=True, text=True, timeout=300,
        env={k: val for k, val in os.environ.items() if k != "DSL_CHECK_INPUTS"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "False"


def test_guard_leaves_functions_that_launch_kernels_alone() -> None:
    """Their memref parameters are written in place by design: not checked, still written."""
    import runtime_kernel_defs as defs

    f = jit(defs.transpose)
    a, b = arange(3, 5), np.full((5, 3), np.nan, np.float32)
    f(a, b)
    np.testing.assert_array_equal(b, a.T)
    assert f.compile(a, b).kernel.check_inputs is False
