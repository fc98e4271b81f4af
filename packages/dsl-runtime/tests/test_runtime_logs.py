"""DSL_LOG lines (compile, disk cache, tuning) and the per-function cache=False."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import cache, jit

SCRIPT = """
import numpy as np, dsl_parser.language as pl
from dsl_runtime import jit
N = pl.dynamic("N")
@jit
def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.add(pl.mul(x, 2.0), y)
print(scale_add(np.ones(4, np.float32), np.ones(4, np.float32)).tolist())
"""


def _run(tmp_path: Path, log: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "logged.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "DSL_LOG": log, "DSL_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DSL_DISABLE_DISK_CACHE", None)
    return subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True)


def test_dsl_log_prints_a_line_per_compile_and_cache_event(tmp_path: Path) -> None:
    first = _run(tmp_path, "compile,cache")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "[3.0, 3.0, 3.0, 3.0]"
    lines = [line for line in first.stderr.splitlines() if line.startswith("dsl: ")]
    assert any(line.startswith("dsl: disk cache miss for scale_add") for line in lines)
    compiled = [line for line in lines if line.startswith("dsl: compiled scale_add in ")]
    assert len(compiled) == 1 and "parse " in compiled[0] and " key " in compiled[0]
    second = _run(tmp_path, "all")
    hits = [line for line in second.stderr.splitlines()
            if line.startswith("dsl: disk cache hit for scale_add")]
    assert len(hits) == 1 and "compiled" not in second.stderr
    quiet = _run(tmp_path, "")
    assert "dsl: " not in quiet.stderr


def test_an_unknown_dsl_log_category_is_named(tmp_path: Path) -> None:
    proc = _run(tmp_path, "compile,everything")
    assert proc.returncode == 1
    assert "DSL_LOG: unknown category everything; the categories are compile, cache, tune" \
        in proc.stderr


N = pl.dynamic("N")


def _double(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.add(x, x)


def test_cache_false_keeps_a_function_off_the_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    before = len(cache.entries())
    off = jit(_double, cache=False)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(off(x), 2 * x)
    cache.flush()
    assert len(cache.entries()) == before and off.compile(x).source == "compiled"
    on = jit(_double)
    np.testing.assert_array_equal(on(x), 2 * x)
    cache.flush()
    assert len(cache.entries()) == before + 1
