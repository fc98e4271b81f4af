"""@jit functions across processes: pickling (by reference, by value with their source),
and examples/dask_pipeline.py on a dask.distributed LocalCluster with a real Redis."""

from __future__ import annotations

import json
import linecache
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from redis_server import RedisServer

import dsl_parser.language as pl
from dsl_runtime import jit

ROOT = Path(__file__).resolve().parents[3]
KEY = "a-team-signing-key-0123456789"
N = pl.dynamic("N")
SCALE = 3.0
#: Runs in a fresh process: unpickles a function from stdin, calls it, reports as JSON.
LOADER = """
import json, pickle, sys
import numpy as np
import dsl_runtime
from dsl_runtime import cache
fn = pickle.loads(sys.stdin.buffer.read())
x = np.arange(5, dtype=np.float32)
result = fn(x)
cache.flush()
print(json.dumps({"result": result.tolist(), "source": fn.compile(x).source,
                  "stats": dsl_runtime.cache_stats(), "file": fn.__wrapped__.__code__.co_filename}))
"""


def generated(tmp_path: Path, body: str = "x * SCALE + 1.0") -> Any:
    """A @jit function defined in a file that exists only in this process's linecache
    (what a worker on another machine sees of the user's script)."""
    path = str(tmp_path / "user_script_not_on_the_worker.py")
    text = ("\n" * 9 + "@jit\n"
            "def user_fn(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:\n"
            f"    return {body}\n")
    linecache.cache[path] = (len(text), None, text.splitlines(keepends=True), path)
    namespace: dict[str, Any] = {"pl": pl, "N": N, "jit": jit, "SCALE": SCALE,
                                 "__name__": "__main__"}
    exec(compile(text, path, "exec"), namespace)
    return namespace["user_fn"]


def load_elsewhere(data: bytes, tmp_path: Path, cache_name: str, **env: str) -> dict[str, Any]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("DSL_CACHE")}
    full.update(DSL_CACHE_DIR=str(tmp_path / cache_name), **env)
    full.setdefault("DSL_CACHE_TIMEOUT", "30")  # a loaded machine is not a fault
    proc = subprocess.run([sys.executable, "-c", LOADER], input=data, env=full,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_module_level_functions_pickle_by_reference() -> None:
    import shared_cache_child as defs

    data = pickle.dumps(defs.scale_add)
    assert b"shared_cache_child" in data and len(data) < 200  # a name, not the code
    assert pickle.loads(data) is defs.scale_add


def test_a_script_function_travels_by_value_with_its_source(tmp_path: Path) -> None:
    import cloudpickle

    fn = generated(tmp_path)
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(fn(x), x * 3 + 1)
    report = load_elsewhere(cloudpickle.dumps(fn), tmp_path, "worker")
    assert report["result"] == (x * 3 + 1).tolist() and report["source"] == "compiled"
    assert report["file"].endswith("user_script_not_on_the_worker.py")  # errors point there


def test_a_worker_loads_the_senders_compile_from_the_shared_cache(
        tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch) -> None:
    import cloudpickle

    from dsl_runtime import cache, configure_cache

    configure_cache(redis_server.url, key=KEY, timeout=30.0)
    fn = generated(tmp_path)
    x = np.arange(5, dtype=np.float32)
    fn(x)
    cache.flush()
    assert len(redis_server.values()) == 1
    report = load_elsewhere(cloudpickle.dumps(fn), tmp_path, "worker",
                            DSL_CACHE_BACKEND=redis_server.url, DSL_CACHE_KEY=KEY)
    assert report["result"] == (x * 3 + 1).tolist()
    assert report["source"] == "shared-cache"
    assert report["stats"] == {"remote_hits": 1}  # no compile on the worker


def test_unpickling_again_reuses_the_function_unless_its_values_changed(tmp_path: Path) -> None:
    import cloudpickle

    fn = generated(tmp_path)
    x = np.arange(5, dtype=np.float32)
    first = cloudpickle.loads(cloudpickle.dumps(fn))
    assert first is not fn and cloudpickle.loads(cloudpickle.dumps(fn)) is first
    np.testing.assert_array_equal(first(x), x * 3 + 1)
    fn.__wrapped__.__globals__["SCALE"] = 5.0  # the sender's global changed: new code
    second = cloudpickle.loads(cloudpickle.dumps(fn))
    assert second is not first
    np.testing.assert_array_equal(second(x), x * 5 + 1)


def test_dask_pipeline_compiles_once_for_all_workers(tmp_path: Path,
                                                     redis_server: RedisServer) -> None:
    pytest.importorskip("distributed")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSL_CACHE")}
    # No disk cache anywhere: what the workers do not compile comes from Redis.
    env.update(DSL_CACHE_BACKEND=redis_server.url, DSL_CACHE_KEY=KEY,
               DSL_DISABLE_DISK_CACHE="1", DSL_CACHE_DIR=str(tmp_path / "unused"),
               DSL_CACHE_TIMEOUT="30")
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "dask_pipeline.py")],
                          env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "dask_pipeline ok" in proc.stdout
    report = json.loads(proc.stdout.split("report ", 1)[1].splitlines()[0])
    assert report["client"]["compiles"] == 1 and report["client"]["remote_published"] == 1
    workers = report["workers"]
    assert len(workers) == 2
    assert sum(w.get("compiles", 0) for w in workers) == 0
    assert sum(w.get("remote_hits", 0) for w in workers) >= 1
    assert all(w.get("remote_hits", 0) <= 1 for w in workers)  # one lookup per process
