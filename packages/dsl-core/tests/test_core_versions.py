"""dsl-core's version: declared once in pyproject, the same in the package; the ``ir`` extra's
range is the one the lazy IR hooks check."""

from __future__ import annotations

from pathlib import Path

import pytest

import dsl_core
from dsl_core._ir import COMPATIBLE_MLIR

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_pyproject_declares_the_version_and_the_ir_range_the_check_uses() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert project["version"] == dsl_core.__version__
    assert project["dependencies"] == []  # dsl-core stands alone
    (low_major, low_minor), (high_major, high_minor) = COMPATIBLE_MLIR
    assert project["optional-dependencies"]["ir"] == [
        f"dsl-mlir>={low_major}.{low_minor},<{high_major}.{high_minor}"]
