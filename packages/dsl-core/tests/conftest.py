from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

import dsl_core._ir as core_ir


@pytest.fixture
def fake_ir(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """Install the fake ``dsl_mlir`` (see core_fake_mlir.py) for one test."""
    import core_fake_mlir

    monkeypatch.setitem(sys.modules, "dsl_mlir", core_fake_mlir.module())
    monkeypatch.setattr(core_ir, "_IR", None)
    core_fake_mlir.Operation.created.clear()
    yield core_fake_mlir
    core_ir._IR = None
