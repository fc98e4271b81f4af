"""Fixtures for dsl-mlir tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import dsl_mlir
from dsl_mlir import ir


@pytest.fixture
def ctx() -> Iterator[ir.Context]:
    with dsl_mlir.context() as c, ir.Location.unknown():
        yield c
