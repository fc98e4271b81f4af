"""Row ops fused into one loop over rows (dsl-fuse-rows, issue 15): softmax, layer norm
and rms norm compiled with and without the fusion, serial and parallel, static and
dynamic shapes (one row, one column, odd widths), against numpy and the reference
interpreter; cases the pass must not fuse (a mean also returned, a column mean, a
matmul producer) still compute the right values; inputs are left unchanged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import jit

R = pl.dynamic("R")
C = pl.dynamic("C")


def softmax(x: pl.Tensor[[R, C], pl.FP32]):
    m = pl.max(x, axis=1, keepdim=True)
    e = pl.exp(x - m)
    return e / pl.sum(e, axis=1, keepdim=True)


def layer_norm(x: pl.Tensor[[R, C], pl.FP32], g: pl.Tensor[[C], pl.FP32],
               b: pl.Tensor[[C], pl.FP32]):
    mu = pl.mean(x, axis=1, keepdim=True)
    d = x - mu
    var = pl.mean(d * d, axis=1, keepdim=True)
    return d * pl.rsqrt(var + 1e-5) * g + b


def rms_norm(x: pl.Tensor[[R, C], pl.FP64], w: pl.Tensor[[C], pl.FP64]):
    return x * pl.rsqrt(pl.mean(x * x, axis=1, keepdim=True) + 1e-6) * w


def softmax_static(x: pl.Tensor[[37, 1000], pl.FP32]):
    m = pl.max(x, axis=1, keepdim=True)
    e = pl.exp(x - m)
    return e / pl.sum(e, axis=1, keepdim=True)


def centered_and_mean(x: pl.Tensor[[R, C], pl.FP32]):
    mu = pl.mean(x, axis=1, keepdim=True)
    return x - mu, mu


def column_centered(x: pl.Tensor[[R, C], pl.FP32]):
    return x - pl.mean(x, axis=0, keepdim=True)


def scores_softmax(q: pl.Tensor[[R, 16], pl.FP32], k: pl.Tensor[[C, 16], pl.FP32]):
    s = pl.matmul(q, k, b_trans=True)
    e = pl.exp(s - pl.max(s, axis=1, keepdim=True))
    return e / pl.sum(e, axis=1, keepdim=True)


def np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def np_layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    d = x64 - x64.mean(axis=1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * g + b


def np_rms_norm(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w


RNG = np.random.default_rng(15)
SHAPES = [(1, 1), (1, 7), (7, 1), (37, 1000), (64, 64), (3, 4099), (300, 257)]
SETTINGS = [
    pytest.param({}, id="fused"),
    pytest.param({"pipeline_options": {"parallel": True}}, id="fused-parallel"),
    pytest.param({"pipeline_options": {"fuse-rows": False}}, id="unfused"),
]


def check(fn: Callable[..., object], args: tuple[np.ndarray, ...], want: object,
          settings: dict[str, object], tol: float) -> None:
    """Compiled `fn` with `settings` and the interpreter agree with `want`; `args` are
    unchanged by the call."""
    copies = [a.copy() for a in args]
    got = jit(fn, **settings)(*args)  # type: ignore[call-overload]
    for a, was in zip(args, copies):
        np.testing.assert_array_equal(a, was)
    interpreted = jit(fn, backend="interpret")(*args)  # type: ignore[call-overload]
    pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
    for value, expected in pairs:
        assert value.shape == expected.shape
        np.testing.assert_allclose(value, expected, rtol=tol, atol=tol)
    ipairs = zip(interpreted, want) if isinstance(want, tuple) else [(interpreted, want)]
    for value, expected in ipairs:
        np.testing.assert_allclose(value, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_softmax(shape: tuple[int, int], settings: dict[str, object]) -> None:
    x = (RNG.standard_normal(shape) * 4).astype(np.float32)
    check(softmax, (x,), np_softmax(x.astype(np.float64)), settings, 1e-5)


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_layer_norm(shape: tuple[int, int], settings: dict[str, object]) -> None:
    x = (RNG.standard_normal(shape) + 3).astype(np.float32)
    g = RNG.standard_normal(shape[1]).astype(np.float32)
    b = RNG.standard_normal(shape[1]).astype(np.float32)
    check(layer_norm, (x, g, b), np_layer_norm(x, g, b), settings, 2e-3)


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_rms_norm_f64(shape: tuple[int, int], settings: dict[str, object]) -> None:
    x = RNG.standard_normal(shape)
    w = RNG.standard_normal(shape[1])
    check(rms_norm, (x, w), np_rms_norm(x, w), settings, 1e-12)


@pytest.mark.parametrize("settings", SETTINGS)
def test_static_softmax(settings: dict[str, object]) -> None:
    x = (RNG.standard_normal((37, 1000)) * 4).astype(np.float32)
    check(softmax_static, (x,), np_softmax(x.astype(np.float64)), settings, 1e-5)


@pytest.mark.parametrize("settings", SETTINGS)
def test_softmax_extremes(settings: dict[str, object]) -> None:
    """Rows of -inf but one, a NaN row and huge values: the fused row loop keeps
    numpy's answer row by row (a NaN stays in its row)."""
    x = np.zeros((4, 33), np.float32)
    x[0] = -np.inf
    x[0, 5] = 1.0
    x[1, 3] = np.nan
    x[2] = 3e38
    x[3] = np.arange(33, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        want = np_softmax(x.astype(np.float64)).astype(np.float32)
    got = jit(softmax, **settings)(x)  # type: ignore[call-overload]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    assert np.isnan(got[1]).all() and not np.isnan(got[[0, 2, 3]]).any()


@pytest.mark.parametrize("settings", SETTINGS)
def test_not_fused_cases(settings: dict[str, object]) -> None:
    """A mean also returned, a column mean and a matmul producer (left out of the row
    loop) give numpy's values."""
    x = RNG.standard_normal((45, 130)).astype(np.float32)
    mu = x.astype(np.float64).mean(axis=1, keepdims=True)
    check(centered_and_mean, (x,), (x - mu, mu), settings, 1e-5)
    check(column_centered, (x,), x - x.astype(np.float64).mean(axis=0, keepdims=True),
          settings, 1e-5)
    q = RNG.standard_normal((29, 16)).astype(np.float32)
    k = RNG.standard_normal((71, 16)).astype(np.float32)
    check(scores_softmax, (q, k), np_softmax(q.astype(np.float64) @ k.T), settings, 1e-4)


MANY_ROWS = """
import numpy as np
import dsl_parser.language as pl
from dsl_runtime import jit

def softmax(x: pl.Tensor[[1024, 8192], pl.FP32]):
    e = pl.exp(x - pl.max(x, axis=1, keepdim=True))
    return e / pl.sum(e, axis=1, keepdim=True)

def norm(x: pl.Tensor[[1024, 8192], pl.FP32]):
    mu = pl.mean(x, axis=1, keepdim=True)
    d = x - mu
    return d * pl.rsqrt(pl.mean(d * d, axis=1, keepdim=True) + 1e-5)

x = np.random.default_rng(3).standard_normal((1024, 8192)).astype(np.float32)
e = np.exp(x - x.max(axis=1, keepdims=True))
for _ in range(3):
    np.testing.assert_allclose(jit(softmax, pipeline_options={"parallel": True})(x),
                               e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
d = x.astype(np.float64) - x.mean(axis=1, keepdims=True, dtype=np.float64)
np.testing.assert_allclose(jit(norm, pipeline_options={"parallel": True})(x),
                           d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5), rtol=2e-3,
                           atol=2e-3)
print("ok")
"""


def test_parallel_row_temporaries_live_on_each_task_stack(tmp_path: Path) -> None:
    """Parallel rows keep their static row temporaries (32 KB per row here) on the stack
    of the thread running the row (dsl-task-stack-buffers), released after each row: 1024
    rows would need 32 MB of stack without the release. In a subprocess: a stack
    overflow is a crash."""
    import subprocess
    import sys

    script = tmp_path / "many_rows.py"  # a file: @jit reads the functions' source
    script.write_text(MANY_ROWS)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
