"""Every runtime test gets its own disk cache folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    cache_dir = tmp_path / "dsl-cache"
    monkeypatch.setenv("DSL_CACHE_DIR", str(cache_dir))
    monkeypatch.delenv("DSL_DISABLE_DISK_CACHE", raising=False)
    yield cache_dir
