"""Every test gets its own disk cache folder; every call checks its inputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Every compiled call in these tests checks that it left its non-output inputs
# byte-identical (docs/runtime.md, "Value semantics"); read when a function is compiled.
os.environ.setdefault("DSL_CHECK_INPUTS", "1")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSL_CACHE_DIR", str(tmp_path / "dsl-cache"))
    monkeypatch.delenv("DSL_DISABLE_DISK_CACHE", raising=False)
