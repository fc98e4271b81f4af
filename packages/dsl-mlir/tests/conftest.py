"""Fixtures for dsl-mlir tests."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

import dsl_mlir
from dsl_mlir import ir

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture
def ctx() -> Iterator[ir.Context]:
    with dsl_mlir.context() as c, ir.Location.unknown():
        yield c


@pytest.fixture(scope="session")
def cpp_plugin(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """examples/cpp-plugin built against the installed dsl-mlir, in a temporary folder."""
    if shutil.which("c++") is None:
        pytest.skip("no C++ compiler")
    build = tmp_path_factory.mktemp("cpp-plugin") / "build"
    start = time.perf_counter()
    proc = subprocess.run([str(REPO / "examples" / "cpp-plugin" / "build.sh"), str(build)],
                          env=dict(os.environ, PYTHON=sys.executable), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-6000:]
    print(f"\nexamples/cpp-plugin built in {time.perf_counter() - start:.1f} s")
    path = pathlib.Path(proc.stdout.strip().splitlines()[-1])
    assert path.is_file(), path
    return path
