"""The repository's PTX check (the root conftest.py): which targets a PTX is assembled
for, that ptxas's errors are reported, and that real PTX of the NVPTX pipeline passes."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

import dsl_mlir
from dsl_mlir import gpu

ROOT_CONFTEST = Path(__file__).resolve().parents[3] / "conftest.py"

VADD = """
module attributes {gpu.container_module} {
  gpu.module @dsl_kernels {
    gpu.func @vadd(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel {
      %i = gpu.thread_id x
      %ok = arith.cmpi ult, %i, %n : index
      scf.if %ok {
        %a = memref.load %x[%i] : memref<?xf32>
        memref.store %a, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
"""


@pytest.fixture(scope="module")
def check() -> Any:
    spec = importlib.util.spec_from_file_location("repo_conftest", ROOT_CONFTEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_targets(check: Any) -> None:
    assert check.targets(".version 8.0\n.target sm_80\n") == ["sm_80", "sm_90"]
    assert check.targets(".target sm_52\n") == ["sm_52", "sm_80", "sm_90"]
    assert check.targets(".target sm_90a\n") == ["sm_90a"]  # arch-specific features
    assert check.targets(".target sm_100\n") == ["sm_100"]


def test_ptxas_errors_are_reported_and_real_ptx_assembles(check: Any) -> None:
    if check.PTXAS is None:
        pytest.skip("ptxas is not on PATH")
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(VADD), "dsl-to-llvm-nvptx",
                                 {"chip": "sm_80"})
        (ptx,) = gpu.ptx_of(lowered).values()
    assert check.assemble(ptx) == []
    broken = ptx.replace("ret;", "not_an_instruction %r1;", 1)
    assert broken != ptx
    errors = check.assemble(broken)
    assert len(errors) == 2 and errors[0].startswith("ptxas -arch=sm_80: ")
    assert "not_an_instruction" in errors[0] or "syntax error" in errors[0]


def test_lowering_writes_its_ptx_where_the_environment_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ptx"
    monkeypatch.setenv("DSL_PTX_DUMP_DIR", str(folder))
    with dsl_mlir.context():
        lowered = dsl_mlir.lower(dsl_mlir.parse_module(VADD), "dsl-to-llvm-nvptx")
        (ptx,) = gpu.ptx_of(lowered).values()
        dsl_mlir.lower(dsl_mlir.parse_module(VADD), "dsl-to-llvm-nvptx")  # same PTX: one file
    import hashlib

    assert [p.name for p in folder.iterdir()] == [hashlib.sha256(ptx.encode()).hexdigest() + ".ptx"]
    assert (folder / f"{hashlib.sha256(ptx.encode()).hexdigest()}.ptx").read_text() == ptx
    monkeypatch.delenv("DSL_PTX_DUMP_DIR")
    other = tmp_path / "unused"
    with dsl_mlir.context():
        dsl_mlir.lower(dsl_mlir.parse_module(VADD), "dsl-to-llvm-nvptx", {"chip": "sm_90"})
    assert not other.exists() and len(list(folder.iterdir())) == 1
