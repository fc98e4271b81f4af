"""Every runtime test gets its own disk cache folder; every call checks its inputs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Every compiled call in these tests checks that it left its non-output inputs
# byte-identical (docs/runtime.md, "Value semantics"); read when a function is compiled.
os.environ.setdefault("DSL_CHECK_INPUTS", "1")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    cache_dir = tmp_path / "dsl-cache"
    monkeypatch.setenv("DSL_CACHE_DIR", str(cache_dir))
    monkeypatch.delenv("DSL_DISABLE_DISK_CACHE", raising=False)
    from dsl_runtime import knobs, shared_cache

    for name in knobs.SHARED_CACHE_VARIABLES:
        monkeypatch.delenv(name, raising=False)

    shared_cache.reset_stats()
    yield cache_dir
    shared_cache.reset()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Any]:
    """A real redis-server on loopback, for this test only (tests/redis_server.py)."""
    from redis_server import RedisServer, require_redis

    require_redis()
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()
