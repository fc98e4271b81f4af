"""downstream-ext end to end: discovery, @jit against numpy, printer round trip, errors."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import downstream_ext
import downstream_ext.language as dx
import dsl_parser.language as pl
from dsl_parser import InvalidOperationError, ParserTypeError, extensions, structural_equal
from dsl_runtime import cache, jit, keys

N = pl.dynamic("N")
M = pl.dynamic("M")


def leaky(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, x, x.dtype.type(alpha) * x)


@jit
def cube(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return dx.cube(x)


@jit
def leaky_relu(x: pl.Tensor[[M, N], pl.FP64]) -> pl.Tensor[[M, N], pl.FP64]:
    return dx.leaky_relu(x, alpha=0.25)


@jit
def mixed(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.add(dx.leaky_relu(dx.cube(x), alpha=0.1), dx.leaky_relu(y))


def test_the_installed_package_is_found_through_its_entry_point() -> None:
    code = textwrap.dedent("""
        import dsl_parser.language as pl
        from dsl_parser import extensions
        ext = extensions.active()["downstream-ext"]
        print(ext.origin, "|", ext.version, "|", ext.ops)
        f = pl.parse('''
        import downstream_ext.language as dx

        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            return dx.leaky_relu(x, alpha=0.5)
        ''')
        print('"dext.leaky_relu"' in str(f))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd="/").stdout
    assert out.splitlines() == [
        f"entry point downstream_ext:register of downstream-ext {downstream_ext.__version__} | "
        f"{downstream_ext.__version__} | ['dx.cube', 'dx.leaky_relu']", "True"]


def test_composite_op_runs_and_matches_numpy() -> None:
    x = np.linspace(-3, 3, 1001, dtype=np.float32)
    np.testing.assert_allclose(cube(x), x * x * x, rtol=1e-6)


def test_op_with_its_own_lowering_runs_and_matches_numpy() -> None:
    x = np.random.default_rng(0).standard_normal((7, 13))
    np.testing.assert_array_equal(leaky_relu(x), leaky(x, 0.25))
    lowered = leaky_relu.compile(x).mlir("lowered")
    assert "dext." not in lowered


def test_both_ops_with_core_ops_and_out() -> None:
    x = np.linspace(-2, 2, 64, dtype=np.float32)
    y = np.linspace(1, -1, 64, dtype=np.float32)
    want = leaky(x * x * x, 0.1) + leaky(y, 0.0)
    np.testing.assert_allclose(mixed(x, y), want, rtol=1e-6)
    out = np.empty_like(x)
    mixed(x, y, out=out)
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_printer_round_trip() -> None:
    @pl.function
    def f(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        y = dx.cube(x)
        return dx.leaky_relu(y, alpha=0.125)

    printed = f.as_python()
    assert printed.splitlines()[:2] == ["import dsl_parser.language as pl",
                                        "import downstream_ext.language as dx"]
    assert "return dx.leaky_relu(y, alpha=0.125)" in printed
    again = pl.parse(printed)
    assert structural_equal(again, f) and again.as_python() == printed


def test_an_integer_tensor_is_rejected_at_the_users_line() -> None:
    @jit
    def bad(x: pl.Tensor[[4], pl.INT32]) -> pl.Tensor[[4], pl.INT32]:
        return dx.leaky_relu(x)

    with pytest.raises(ParserTypeError) as info:
        bad(np.arange(4, dtype=np.int32))
    err = info.value
    line = inspect.getsourcelines(test_an_integer_tensor_is_rejected_at_the_users_line)[1] + 3
    assert err.span is not None and (err.span.begin_line, err.span.begin_column) == (line, 30)
    assert err.message == \
        "dx.leaky_relu: x must be a tensor of floats, got pl.Tensor[[4], pl.INT32]"
    assert str(err).splitlines()[1] == f"  --> {__file__}:{line}:30"


def test_alpha_must_be_a_compile_time_number() -> None:
    code = textwrap.dedent("""
        import downstream_ext.language as dx

        @pl.function
        def f(x: pl.Tensor[[4], pl.FP32], a: pl.Scalar[pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            return dx.leaky_relu(x, alpha=a)
    """)
    with pytest.raises(ParserTypeError, match=r"dx.leaky_relu: alpha must be a finite number known "
                                              r"at compile time") as info:
        pl.parse(code)
    assert info.value.span is not None and info.value.span.begin_line == 6
    with pytest.raises(InvalidOperationError, match=r"unknown operation 'dx\.cub'") as unknown:
        pl.parse(code.replace("dx.leaky_relu(x, alpha=a)", "dx.cub(x)"))
    assert unknown.value.hint == "did you mean dx.cube?"


def test_the_cache_key_and_manifest_include_the_extension_version(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ext = extensions.active()["downstream-ext"]
    assert ("downstream-ext", downstream_ext.__version__) in keys.extension_versions()
    before = keys.digest("same kernel")
    monkeypatch.setattr(ext, "version", "9.9.9")
    assert keys.digest("same kernel") != before
    monkeypatch.undo()
    monkeypatch.setenv("DSL_CACHE_DIR", str(tmp_path / "cache"))

    @jit
    def once(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        return dx.cube(x)

    once(np.ones(3, np.float32))
    cache.flush()  # entries are written in the background
    (manifest,) = (tmp_path / "cache").rglob("manifest.json")
    assert json.loads(manifest.read_text())["extensions"]["downstream-ext"] == \
        downstream_ext.__version__
