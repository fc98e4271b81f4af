"""@autotune: the fastest config per key, failing configs skipped, the choice kept on disk
for a fresh process, inputs as the caller gave them (reset_to_zero, restore_value)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import runtime_block_defs as d

import dsl_core as dc
import dsl_parser.language as pl
import dsl_runtime.tuning as at
from dsl_runtime import autotune, jit

TILES = [{"TILE": 4}, {"TILE": 8}, {"TILE": 16}, {"TILE": 128}]  # 128: too much shared memory


def _fake_timer(monkeypatch: pytest.MonkeyPatch, ms: dict[int, float]) -> list[int]:
    """Time each config by its TILE from ``ms`` (the calls still run); returns the
    TILEs measured, in order."""
    measured: list[int] = []

    def measure(run: Any, warmup: int, rep: int) -> float:
        run()
        tile = run.__defaults__[0]["TILE"]
        measured.append(tile)
        return ms[tile]

    monkeypatch.setattr(at, "_measure", measure)
    return measured


def test_the_fastest_working_config_is_chosen_per_key(monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    measured = _fake_timer(monkeypatch, {4: 3.0, 8: 1.0, 16: 2.0, 128: 0.1})
    tuned = autotune(configs=TILES, key=["a", "b"])(d.tiled_matmul)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((20, 12)).astype(np.float32)
    b = rng.standard_normal((12, 9)).astype(np.float32)
    c = np.zeros((20, 9), np.float32)
    with caplog.at_level(logging.DEBUG, logger="dsl_runtime.tuning"):
        tuned(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    k = next(iter(tuned.choices))
    assert tuned.choices[k] == {"TILE": 8}  # 128 failed to compile: skipped, not chosen
    assert [ms for _, ms in tuned.timings[k]] == [3.0, 1.0, 2.0, None]
    assert "config {'TILE': 128} failed: InvalidOperationError: 1 block of 16384 threads" \
        in caplog.text
    assert measured == [4, 8, 16]
    c2 = np.zeros((20, 9), np.float32)
    tuned(a, b, c2)  # the same key: no tuning
    assert measured == [4, 8, 16]
    np.testing.assert_array_equal(c2, c)
    a3 = rng.standard_normal((7, 12)).astype(np.float32)
    tuned(a3, b, np.zeros((7, 9), np.float32))  # a new shape: a new key, tuned again
    assert len(tuned.choices) == 2 and measured == [4, 8, 16] * 2


def test_inputs_are_reset_or_restored_around_the_tuning_runs() -> None:
    """The histogram accumulates with atomics: without reset_to_zero every tuning run
    would add to it; with it the result is the one call's."""
    values = np.random.default_rng(1).integers(0, 64, 3000).astype(np.int32)
    hist = np.zeros(64, np.int32)
    tuned = autotune(configs=[{"PER_THREAD": 2}, {"PER_THREAD": 8}], key=["x"], rep=3,
                     reset_to_zero=["hist"])(d.histogram)
    tuned(values, hist)
    np.testing.assert_array_equal(hist, np.bincount(values, minlength=64))
    start = np.full(64, 5, np.int32)
    hist = start.copy()
    tuned2 = autotune(configs=[{"PER_THREAD": 2}, {"PER_THREAD": 4}], key=["x"], rep=2,
                      restore_value=["hist"])(d.histogram)
    tuned2(values, hist)
    np.testing.assert_array_equal(hist, start + np.bincount(values, minlength=64))


def test_configuration_errors_name_the_parameter() -> None:
    with pytest.raises(TypeError, match=r"autotune\(tiled_matmul\): BLOCK is not a Constexpr "
                                        r"parameter of tiled_matmul \(its Constexpr "
                                        r"parameters: TILE\)"):
        autotune(configs=[{"BLOCK": 4}], key=["a"])(d.tiled_matmul)
    with pytest.raises(TypeError, match=r"key names q, which is not an argument"):
        autotune(configs=[{"TILE": 4}], key=["q"])(d.tiled_matmul)
    with pytest.raises(TypeError, match=r"every config must set the same parameters"):
        autotune(configs=[{"TILE": 4}, {}], key=["a"])(d.tiled_matmul)
    with pytest.raises(TypeError, match=r"configs must be a non-empty list"):
        autotune(configs=[], key=["a"])(d.tiled_matmul)


def test_every_config_failing_raises_the_last_error() -> None:
    from dsl_parser.errors import ParserError

    tuned = autotune(configs=[{"TILE": 128}, {"TILE": 256}], key=["a"])(d.tiled_matmul)
    a = np.zeros((4, 4), np.float32)
    with pytest.raises(ParserError, match=r"exceeds the limit of 1024 threads per block"):
        tuned(a, a, a)


_SCRIPT = """
import sys, json
sys.path.insert(0, {tests!r})
import numpy as np, runtime_block_defs as d
from dsl_runtime import autotune
tuned = autotune(configs=[{{"TILE": 4}}, {{"TILE": 8}}], key=["a"], rep=2)(d.tiled_matmul)
a = np.ones((8, 8), np.float32)
c = np.zeros((8, 8), np.float32)
tuned(a, a, c)
print(json.dumps({{"tuned": len(tuned.timings), "choice": list(tuned.choices.values()),
                  "ok": bool((c == 8).all())}}))
"""


def test_a_fresh_process_reuses_the_recorded_choice(tmp_path: Path) -> None:
    import json
    import os

    tests = str(Path(__file__).parent)
    env = {**os.environ, "DSL_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DSL_DISABLE_DISK_CACHE", None)
    script = _SCRIPT.format(tests=tests)
    runs = [json.loads(subprocess.run([sys.executable, "-c", script], env=env, check=True,
                                      capture_output=True, text=True).stdout)
            for _ in range(2)]
    assert runs[0]["tuned"] == 1 and runs[1]["tuned"] == 0  # no tuning when warm
    assert runs[0]["choice"] == runs[1]["choice"] and runs[1]["ok"]
    # a planted record naming a config the tuner does not have is ignored (tuned again)
    records = list((tmp_path / "cache" / "v1" / "tuning").glob("*.json"))
    assert len(records) == 1
    records[0].write_text(json.dumps({"config": {"TILE": 4096}}))
    again = json.loads(subprocess.run([sys.executable, "-c", script], env=env, check=True,
                                      capture_output=True, text=True).stdout)
    assert again["tuned"] == 1 and again["choice"] in ([{"TILE": 4}], [{"TILE": 8}])


n = pl.dynamic("n")


def _scale(x: pl.Tensor[[n], pl.FP32], K: dc.Constexpr[int]) -> pl.Tensor[[n], pl.FP32]:
    return pl.mul(x, float(K))


def test_a_plain_function_is_jit_compiled() -> None:
    tuned = autotune(configs=[{"K": 2}, {"K": 3}], key=["x"], rep=1)(_scale)
    x = np.arange(4, dtype=np.float32)
    got = tuned(x)
    (choice,) = tuned.choices.values()
    np.testing.assert_array_equal(got, x * choice["K"])
    assert tuned.__name__ == "_scale" and jit(_scale) is not None
