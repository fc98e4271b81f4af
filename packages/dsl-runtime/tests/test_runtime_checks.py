"""Run-time checks of offsets and sizes (once per op), kernel boundscheck, and call-time
argument errors. Cases that used to read or write out of bounds run in a subprocess."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import runtime_check_defs as d

from dsl_runtime import CompileOptions, jit

HERE = Path(__file__).parent
DEFS = inspect.getsourcefile(d)


def line_of(fn: object, text: str) -> int:
    """The line of ``text`` in the source of ``fn`` (for exact messages)."""
    lines, first = inspect.getsourcelines(fn)  # type: ignore[arg-type]
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(f"{text!r} not in {fn}")


def run_isolated(body: str, env: dict[str, str] | None = None) -> str:
    """Run ``body`` in a fresh interpreter (the defs importable); it must exit cleanly."""
    script = f"import sys\nsys.path.insert(0, {str(HERE)!r})\n" + textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


# -- slice -------------------------------------------------------------------

@pytest.mark.parametrize("fn", [d.slice_static, d.slice_dynamic], ids=["static", "dynamic"])
def test_slice_edges(fn: object) -> None:
    f = jit(fn)
    x = np.arange(8, dtype=np.float32) * 1.5
    for i in range(5):  # 4 is the last valid offset
        np.testing.assert_array_equal(f(x, i), x[i:i + 4])
    line = line_of(fn, "pl.slice")
    for bad in (5, 6, -1, -2, 1 << 40, -(1 << 62)):
        with pytest.raises(IndexError) as err:
            f(x, bad)
        assert str(err.value) == (
            f"{fn.__name__}: dsl.slice at {DEFS}:{line}:12: offset {bad} in dimension 0 is out "  # type: ignore[attr-defined]
            "of bounds (a window of size 4 in a dimension of size 8)")
    np.testing.assert_array_equal(f(x, 2), x[2:6])  # the error was consumed


def test_slice_dynamic_source_smaller_than_window() -> None:
    f = jit(d.slice_dynamic)
    x = np.arange(3, dtype=np.float32)
    with pytest.raises(IndexError, match=r"offset 0 in dimension 0 is out of bounds "
                                         r"\(a window of size 4 in a dimension of size 3\)"):
        f(x, 0)


def test_slice_2d_reports_the_failing_dimension() -> None:
    f = jit(d.slice_2d)
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    np.testing.assert_array_equal(f(x, 2, 2), x[2:4, 2:5])
    with pytest.raises(IndexError, match=r"offset 3 in dimension 1 is out of bounds \(a window "
                                         r"of size 3 in a dimension of size 5\)"):
        f(x, 0, 3)
    with pytest.raises(IndexError, match="offset -1 in dimension 0"):
        f(x, -1, 0)


def test_slice_far_offset_used_to_crash() -> None:
    out = run_isolated("""
        import numpy as np, runtime_check_defs as d
        from dsl_runtime import jit
        f = jit(d.slice_dynamic)
        x = np.arange(8, dtype=np.float32)
        for bad in (6, 1 << 40, -(1 << 40)):
            try:
                f(x, bad)
            except IndexError as err:
                print("IndexError", str(err).split(": ", 1)[1].split(": ", 1)[1])
        print(f(x, 4).tolist())
    """)
    assert out.splitlines() == [
        "IndexError offset 6 in dimension 0 is out of bounds (a window of size 4 in a dimension of size 8)",
        f"IndexError offset {1 << 40} in dimension 0 is out of bounds (a window of size 4 in a dimension of size 8)",
        f"IndexError offset {-(1 << 40)} in dimension 0 is out of bounds (a window of size 4 in a dimension of size 8)",
        "[4.0, 5.0, 6.0, 7.0]"]


# -- assemble ------------------------------------------------------------------

@pytest.mark.parametrize("fn", [d.assemble_static, d.assemble_dynamic], ids=["static", "dynamic"])
def test_assemble_edges(fn: object) -> None:
    f = jit(fn)
    dst = np.zeros(8, np.float32)
    src = np.array([1.0, 2.0], np.float32)
    for i in range(7):  # 6 is the last valid offset
        want = dst.copy()
        want[i:i + 2] = src
        np.testing.assert_array_equal(f(dst, src, i), want)
    line = line_of(fn, "pl.assemble")
    for bad in (7, -1, -2, 1 << 50):
        with pytest.raises(IndexError) as err:
            f(dst, src, bad)
        assert str(err.value) == (
            f"{fn.__name__}: dsl.assemble at {DEFS}:{line}:12: offset {bad} in dimension 0 is "  # type: ignore[attr-defined]
            "out of bounds (a tile of size 2 in a destination of size 8)")
    assert (dst == 0).all()  # the input was never written


def test_assemble_dynamic_tile_larger_than_destination() -> None:
    f = jit(d.assemble_dynamic)
    with pytest.raises(IndexError, match=r"a tile of size 5 in a destination of size 4"):
        f(np.zeros(4, np.float32), np.ones(5, np.float32), 0)


def test_assemble_negative_offset_used_to_corrupt_the_heap() -> None:
    out = run_isolated("""
        import numpy as np, runtime_check_defs as d
        from dsl_runtime import jit
        f = jit(d.assemble_dynamic)
        dst, src = np.zeros(8, np.float32), np.ones(2, np.float32)
        for _ in range(3):
            for bad in (-2, 7, -(1 << 40)):
                try:
                    f(dst, src, bad)
                except IndexError as err:
                    print("IndexError", "offset" in str(err))
        print(f(dst, src, 6).tolist())
    """)
    assert out.splitlines() == ["IndexError True"] * 9 + ["[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]"]


# -- sizes -----------------------------------------------------------------------

def test_arange_sizes() -> None:
    f = jit(d.arange_n)
    np.testing.assert_array_equal(f(4, out=np.empty(4, np.float32)), np.arange(4) + 1.0)
    line = line_of(d.arange_n, "pl.arange")
    with pytest.raises(ValueError) as err:
        f(-3, out=np.empty(4, np.float32))
    assert str(err.value) == (
        f"arange_n: dsl.arange at {DEFS}:{line}:12: size -3 of dimension 0 is negative or too "
        "large (the tensor would have more than 2^47 bytes)")


def test_arange_larger_than_out_used_to_write_past_it() -> None:
    out = run_isolated("""
        import numpy as np, runtime_check_defs as d
        from dsl_runtime import jit
        f = jit(d.arange_n)
        buf = np.zeros(6, np.float32)
        out = buf[:4]
        try:
            f(16, out=out)
        except ValueError as err:
            print("ValueError", str(err))
        print(buf[4:].tolist())
    """)
    lines = out.splitlines()
    assert lines[-1] == "[0.0, 0.0]"  # nothing written past out
    line = line_of(d.arange_n, "return pl.arange")
    assert lines[0] == (f"ValueError arange_n: return at {DEFS}:{line}:5: result 0 has size 16 "
                        "in dimension 0, but its output array has size 4"), lines


def test_full_negative_size() -> None:
    f = jit(d.full_n)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(f(x, 5), x + 2.0)
    with pytest.raises(ValueError, match=r"dsl.full at .*: size -1 of dimension 0 is negative"):
        f(x, -1)


# -- kernels under boundscheck -------------------------------------------------

def test_kernel_boundscheck_load_and_store() -> None:
    load = jit(d.shift_load, boundscheck=True)
    store = jit(d.shift_store, boundscheck=True)
    x = np.arange(8, dtype=np.float32)
    z = np.zeros(7, np.float32)
    load(x, z, 1)  # last valid: x[6 + 1]
    np.testing.assert_array_equal(z, x[1:8])
    line = line_of(d.shift_load_k, "x[i + k]")
    lines, first = inspect.getsourcelines(d.shift_load_k)
    col = lines[line - first].index("x[i + k]") + 1
    with pytest.raises(IndexError) as err:
        load(x, np.zeros(8, np.float32), 1)
    assert str(err.value) == (f"shift_load: kernel 'shift_load_k' at {DEFS}:{line}:{col}: load "
                              "index 8 is out of range for dimension 0 of size 8")
    z = np.zeros(9, np.float32)
    store(x, z, 1)
    np.testing.assert_array_equal(z[1:], x)
    with pytest.raises(IndexError, match=r"kernel 'shift_store_k' at .*: store index 8 is out of "
                                         r"range for dimension 0 of size 8"):
        store(x, np.zeros(8, np.float32), 1)


def test_kernel_boundscheck_2d_negative_index() -> None:
    at = jit(d.at, boundscheck=True)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    z = np.zeros(1, np.float32)
    at(a, z, 2, 3, None)
    assert z[0] == a[2, 3]
    with pytest.raises(IndexError, match=r"load index 4 is out of range for dimension 1 of size 4"):
        at(a, z, 2, 4, None)
    with pytest.raises(IndexError, match=rf"load index {-1} is out of range for dimension 0 of size 3"):
        at(a, z, -1, 0, None)


def test_boundscheck_env_and_cache_key(monkeypatch: pytest.MonkeyPatch) -> None:
    assert CompileOptions().boundscheck is False
    monkeypatch.setenv("DSL_BOUNDSCHECK", "1")
    assert CompileOptions().boundscheck is True
    assert CompileOptions().key() != CompileOptions(boundscheck=False).key()
    assert CompileOptions(backend="nvptx").boundscheck is False  # cpu only
    with pytest.raises(ValueError, match="boundscheck=True is supported by the cpu backend only"):
        CompileOptions(backend="nvptx", boundscheck=True)
    monkeypatch.setenv("DSL_BOUNDSCHECK", "maybe")
    with pytest.raises(ValueError, match="DSL_BOUNDSCHECK must be 0 or 1"):
        CompileOptions()


def test_kernel_out_of_range_is_unchecked_by_default_but_checked_from_the_env() -> None:
    out = run_isolated("""
        import numpy as np, runtime_check_defs as d
        from dsl_runtime import jit
        f = jit(d.at)
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        z = np.zeros(1, np.float32)
        try:
            f(a, z, 2, 4, None)
        except IndexError as err:
            print("IndexError", "load index 4" in str(err))
    """, env={"DSL_BOUNDSCHECK": "1"})
    assert out.splitlines() == ["IndexError True"]


def test_checks_survive_the_disk_cache(_isolated_cache: Path) -> None:
    body = """
        import numpy as np, runtime_check_defs as d
        from dsl_runtime import jit, cache
        f = jit(d.slice_dynamic)
        x = np.arange(8, dtype=np.float32)
        print(f.compile(x, 0).source)
        try:
            f(x, 5)
        except IndexError as err:
            print("IndexError", "offset 5 in dimension 0" in str(err))
        print(f(x, 4).tolist())
        cache.flush()
    """
    env = {"DSL_CACHE_DIR": str(_isolated_cache)}
    first = run_isolated(body, env).splitlines()
    second = run_isolated(body, env).splitlines()
    assert first == ["compiled", "IndexError True", "[4.0, 5.0, 6.0, 7.0]"]
    assert second == ["disk-cache", "IndexError True", "[4.0, 5.0, 6.0, 7.0]"]


# -- call-time arguments ---------------------------------------------------------

@pytest.mark.parametrize("bad, got", [
    (1.5, "float"), (None, "NoneType"), ("abc", "str"),
    (np.float32(2.0), "a 0-d numpy.float32"), (np.array(2.0, np.float32), "a 0-d numpy.ndarray")])
def test_non_array_for_a_tensor_is_a_type_error(bad: object, got: str) -> None:
    f = jit(d.scale)
    with pytest.raises(TypeError) as err:
        f(bad, 2.0)
    assert str(err.value) == f"scale: argument 'x' expects a 1D float32 array, got {got}"
    out = np.empty(3, np.float32)  # with out=, the C dispatcher says the same
    with pytest.raises(TypeError) as err:
        f(bad, 2.0, out=out)
    assert str(err.value) == f"scale: argument 'x' expects a 1D float32 array, got {got}"


def test_non_array_with_out_is_a_type_error() -> None:
    f = jit(d.scale)
    out = np.empty(3, np.float32)
    with pytest.raises(TypeError, match=r"^scale: argument 'x' expects a 1D float32 array, got NoneType$"):
        f(None, 2.0, out=out)
    with pytest.raises(TypeError, match=r"^scale: argument 'x' expects a 1D float32 array, got a 0-d numpy.ndarray$"):
        f(np.array(1.0, np.float32), 2.0, out=out)


class _DLPackOnly:
    def __dlpack__(self, **kwargs: object) -> object:
        return object()

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def test_broken_dlpack_object_is_a_type_error_naming_the_parameter() -> None:
    f = jit(d.scale)
    with pytest.raises(TypeError, match=r"^scale\(\): argument 'x': cannot view _DLPackOnly through DLPack"):
        f(_DLPackOnly(), 2.0)


def test_numpy_scalars_for_scalar_parameters() -> None:
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(jit(d.scale)(x, np.float32(1.5)), x * np.float32(1.5))
    np.testing.assert_array_equal(jit(d.scale)(x, np.int64(3)), x * 3)
    u = np.array([1, 2, 0xFFFFFFF0], np.uint32)
    np.testing.assert_array_equal(jit(d.add_u32)(u, np.uint32(5)), u + np.uint32(5))
    np.testing.assert_array_equal(jit(d.add_u32)(u, np.uint32(0xFFFFFFFF)), u + np.uint32(0xFFFFFFFF))
    i8 = np.array([1, -2], np.int8)
    np.testing.assert_array_equal(jit(d.add_i8)(i8, np.int8(-7)), i8 + np.int8(-7))
    f64 = np.array([1.0, 2.0])
    np.testing.assert_array_equal(jit(d.add_f64)(f64, np.float16(0.5)), f64 + 0.5)


def test_bad_scalars_still_rejected() -> None:
    u = np.array([1, 2], np.uint32)
    with pytest.raises(OverflowError, match=r"argument 'a' = -1 does not fit in uint32"):
        jit(d.add_u32)(u, np.int64(-1))
    with pytest.raises(TypeError, match=r"argument 'a' expects an integer \(uint32\), got numpy.float32"):
        jit(d.add_u32)(u, np.float32(1.0))
    with pytest.raises(TypeError, match=r"argument 'a' expects a number \(float32\), got str"):
        jit(d.scale)(np.ones(2, np.float32), "1.5")
    with pytest.raises(TypeError, match=r"argument 'a' expects a number \(float32\), got numpy.ndarray"):
        jit(d.scale)(np.ones(2, np.float32), np.ones(2, np.float32))
