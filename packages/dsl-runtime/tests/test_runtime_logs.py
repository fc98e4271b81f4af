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


def _triple(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    return pl.mul(x, 3.0)


def _fill(*fns: object) -> None:
    x = np.arange(3, dtype=np.float32)
    for f in fns:
        jit(f)(x)
    cache.flush()


def test_cache_clear_of_one_function_and_ls_of_an_empty_cache(tmp_path: Path) -> None:
    from dsl_runtime.cli import main

    _fill(_double, _triple)
    names = sorted(e.function.rsplit(".", 1)[-1] for e in cache.entries())
    assert names == ["_double", "_triple"]
    assert cache.clear("_double") == 1
    assert [e.function.rsplit(".", 1)[-1] for e in cache.entries()] == ["_triple"]
    cache.clear()
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["cache", "ls"]) == 0
    assert out.getvalue().startswith("empty (")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["cache", "stats", "_double"]) == 2  # only clear takes a function


def test_prune_evicts_the_least_recently_used_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(_double, _triple)
    found = {e.function.rsplit(".", 1)[-1]: e for e in cache.entries()}
    os.utime(found["_double"].path, (1_000, 1_000))  # _double used long ago
    keep = found["_triple"].size
    removed = cache.prune(keep)
    assert [e.function.rsplit(".", 1)[-1] for e in removed] == ["_double"]
    assert [e.function.rsplit(".", 1)[-1] for e in cache.entries()] == ["_triple"]
    assert cache.parse_size("2G") == 2 << 30 and cache.parse_size("1.5k") == 1536
    assert cache.parse_size("4096") == 4096
    with pytest.raises(ValueError, match="expected a size such as 500M"):
        cache.parse_size("lots")


def test_the_size_cap_is_applied_after_each_write(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSL_CACHE_MAX_SIZE", "1")  # one byte: every entry but none fits
    _fill(_double)
    assert cache.entries() == []
