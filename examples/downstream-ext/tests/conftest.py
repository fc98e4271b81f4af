"""Every test gets its own disk cache folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSL_CACHE_DIR", str(tmp_path / "dsl-cache"))
    monkeypatch.delenv("DSL_DISABLE_DISK_CACHE", raising=False)
