"""Scalar math in kernels (issue 14): pl.exp/log/sqrt/rsqrt/tanh/abs of scalar values,
compiled on the CPU backend against the reference interpreter and numpy, for every float
dtype; the NVPTX build's PTX is assembled by the repository's ptxas check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dsl_runtime import jit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import runtime_math_defs as d  # noqa: E402


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bf16(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _want(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return np.exp(x) + np.sqrt(np.abs(x)) + np.tanh(x) + np.log(np.abs(x) + 1) + \
        1 / np.sqrt(x * x + 1)


@pytest.mark.parametrize(("host", "dtype", "tol"), [
    (d.HOST64, np.float64, 1e-12), (d.HOST32, np.float32, 2e-6)])
def test_wide_floats_match_numpy_and_the_interpreter(host: object, dtype: type,
                                                     tol: float) -> None:
    x = np.linspace(-3, 3, 77).astype(dtype)
    before = x.copy()
    outs = {}
    for backend in ("cpu", "interpret"):
        y = np.full_like(x, np.nan)
        jit(host, backend=backend)(x, y)
        outs[backend] = y
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(outs["cpu"], _want(x), rtol=tol, atol=tol)
    np.testing.assert_allclose(outs["cpu"], outs["interpret"], rtol=tol, atol=tol)


NARROW = """
import sys; sys.path.insert(0, {here!r})
import numpy as np, runtime_math_defs as d
from dsl_runtime import jit
x = np.linspace(-3, 3, 77)
h = x.astype(np.float16); yh = np.zeros_like(h); jit(d.HOST16)(h, yh)
bits = np.load({bits!r}); yb = np.zeros_like(bits); jit(d.HOSTBF)(bits, yb)
np.save({out16!r}, yh); np.save({outbf!r}, yb)
print("OK")
"""


def test_narrow_floats_compute_in_fp32_in_a_subprocess(tmp_path: Path) -> None:
    # a subprocess: an LLVM abort on fp16/bf16 code would take pytest down with it
    x = np.linspace(-3, 3, 77)
    np.save(tmp_path / "bits.npy", _bf16_bits(x))
    paths = {k: str(tmp_path / f"{k}.npy") for k in ("bits", "out16", "outbf")}
    proc = subprocess.run([sys.executable, "-c", NARROW.format(here=str(HERE), **paths)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr[-3000:]
    y16 = np.load(paths["out16"]).astype(np.float64)
    ybf = _from_bf16(np.load(paths["outbf"])).astype(np.float64)
    # each op rounds to the narrow type: a few units of its last place
    np.testing.assert_allclose(y16, _want(x.astype(np.float16)), rtol=6e-3, atol=6e-3)
    np.testing.assert_allclose(ybf, _want(_from_bf16(_bf16_bits(x))), rtol=5e-2, atol=5e-2)


def test_integer_abs() -> None:
    x = np.array([-7, 0, 5, -(2**30)], np.int32)
    u = np.array([255, 0, 1, 128], np.uint8)
    for backend in ("cpu", "interpret"):
        y = np.zeros(4, np.int32)
        jit(d.host_iabs, backend=backend)(x, u, y)
        np.testing.assert_array_equal(y, np.abs(x.astype(np.int64)) + u)


def test_the_nvptx_build_has_the_math_inline() -> None:
    x = np.zeros(64, np.float32)
    ptx = jit(d.HOST32).ptx(x, np.zeros_like(x))
    assert ".entry k(" in ptx
    assert "call" not in ptx.split(".entry", 1)[1]  # no libdevice calls: PTX instructions


@pytest.mark.parametrize(("host", "dtype", "tol"), [
    (d.MORE64, np.float64, 1e-12), (d.MORE32, np.float32, 2e-6)])
def test_sin_cos_floor_ceil_fma_select(host: object, dtype: type, tol: float) -> None:
    x = np.linspace(-4, 4, 81).astype(dtype)
    w = np.sin(x.astype(np.float64)) * np.cos(x.astype(np.float64)) + np.floor(x) + np.ceil(x)
    want = np.where(x > 0, w, -w)
    outs = {}
    for backend in ("cpu", "interpret"):
        y = np.full_like(x, np.nan)
        jit(host, backend=backend)(x, y)
        outs[backend] = y
    np.testing.assert_allclose(outs["cpu"], want, rtol=tol, atol=tol)
    np.testing.assert_allclose(outs["interpret"], want, rtol=tol, atol=tol)


def test_fma_rounds_once_in_compiled_code_and_in_the_interpreter() -> None:
    rng = np.random.default_rng(11)
    a, b, c = (rng.standard_normal(256).astype(np.float32) for _ in range(3))
    c[:64] = -(a[:64].astype(np.float64) * b[:64]).astype(np.float32)  # cancellation
    results = {}
    for backend in ("cpu", "interpret"):
        y = np.zeros(256, np.float32)
        jit(d.host_fma, backend=backend)(a, b, c, y)
        results[backend] = y
    from fractions import Fraction

    exact = [Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r))
             for p, q, r in zip(a, b, c)]
    for y in results.values():  # within half a unit of the last place of the exact value
        for got, want in zip(y, exact):
            ulp = float(np.spacing(np.float32(abs(float(want))) or np.float32(1e-45)))
            assert abs(Fraction(float(got)) - want) <= Fraction(ulp) / 2
    np.testing.assert_array_equal(results["cpu"].view(np.uint32),
                                  results["interpret"].view(np.uint32))
