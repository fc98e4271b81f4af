"""The `dsl` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dsl_runtime

KERNELS = Path(__file__).parent / "runtime_kernels.py"


def dsl(*args: str, cache_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DSL_CACHE_DIR": str(cache_dir)}
    return subprocess.run([sys.executable, "-m", "dsl_runtime.cli", *args], env=env,
                          capture_output=True, text=True)


@pytest.mark.parametrize(("emit", "needle"), [
    ("dsl", "dsl.add"), ("lowered", "llvm.func @_mlir_ciface_scale_add"),
    ("llvm", "define void @_mlir_ciface_scale_add"), ("abi", '"packed_symbol"'),
    ("asm", "_mlir_ciface_scale_add:"),
])
def test_compile_emits_each_stage(emit: str, needle: str, _isolated_cache: Path) -> None:
    proc = dsl("compile", f"{KERNELS}::scale_add", "--emit", emit, "--timings", cache_dir=_isolated_cache)
    assert proc.returncode == 0, proc.stderr
    assert needle in proc.stdout
    assert "lower:" in proc.stderr or "load:" in proc.stderr


def test_compile_with_arg_types_for_specialized_params(_isolated_cache: Path) -> None:
    proc = dsl("compile", f"{KERNELS}::repeat_add", "--emit", "abi", "--arg-types", "f32[8],=3",
               cache_dir=_isolated_cache)
    assert proc.returncode == 0, proc.stderr
    abi = json.loads(proc.stdout)
    assert abi["params"][1]["value"] == "3"
    missing = dsl("compile", f"{KERNELS}::repeat_add", cache_dir=_isolated_cache)
    assert missing.returncode == 2 and "give --arg-types" in missing.stderr


def test_run_prints_results_and_timing(_isolated_cache: Path) -> None:
    proc = dsl("run", f"{KERNELS}::static_add", "--repeat", "3", cache_dir=_isolated_cache)
    assert proc.returncode == 0, proc.stderr
    assert "result 0: shape=(4, 8) dtype=float32" in proc.stdout
    assert "us per call (3 calls)" in proc.stdout


def test_cache_commands(_isolated_cache: Path) -> None:
    assert dsl("compile", f"{KERNELS}::scale_add", cache_dir=_isolated_cache).returncode == 0
    ls = dsl("cache", "ls", cache_dir=_isolated_cache)
    assert "scale_add" in ls.stdout
    stats = dsl("cache", "stats", cache_dir=_isolated_cache)
    assert "entries:   1" in stats.stdout
    cleared = dsl("cache", "clear", cache_dir=_isolated_cache)
    assert "removed 1 entries" in cleared.stdout
    assert "entries:   0" in dsl("cache", "stats", cache_dir=_isolated_cache).stdout


def test_doctor(_isolated_cache: Path) -> None:
    proc = dsl("doctor", cache_dir=_isolated_cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for needle in (f"dsl-runtime {dsl_runtime.__version__}", "dsl-mlir", "dsl-parser", "dsl-core",
                   "MLIR 22.1.8", "writable", "gpu: "):
        assert needle in proc.stdout


def test_errors_have_exit_codes(_isolated_cache: Path, tmp_path: Path) -> None:
    assert dsl("compile", "nofile.py::f", cache_dir=_isolated_cache).returncode == 2
    assert dsl("compile", f"{KERNELS}::nothing", cache_dir=_isolated_cache).returncode == 2
    bad = tmp_path / "bad_kernel.py"
    bad.write_text(
        "import dsl_parser.language as pl\n"
        "def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
        "    return pl.no_such_op(x)\n")
    proc = dsl("compile", f"{bad}::f", cache_dir=_isolated_cache)
    assert proc.returncode == 1
    assert "bad_kernel.py:3" in proc.stderr and "no_such_op" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_mlir_file_is_a_usage_error_not_an_assertion(_isolated_cache: Path,
                                                         tmp_path: Path) -> None:
    text = tmp_path / "k.mlir"
    text.write_text("func.func @f() { return }\n")
    proc = dsl("compile", f"{text}::f", cache_dir=_isolated_cache)
    assert proc.returncode == 2
    assert "is not a Python file" in proc.stderr and "dsl-opt" in proc.stderr
    assert "AssertionError" not in proc.stderr


def test_the_files_prints_go_to_stderr_not_into_the_ir(_isolated_cache: Path,
                                                       tmp_path: Path) -> None:
    source = tmp_path / "noisy.py"
    source.write_text("import dsl_parser.language as pl\n"
                      "print('hello from the user')\n"
                      "def f(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
                      "    return pl.add(x, x)\n")
    proc = dsl("compile", f"{source}::f", "--emit", "dsl", cache_dir=_isolated_cache)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().startswith("module") and "hello" not in proc.stdout
    assert "hello from the user" in proc.stderr


def test_doctor_reports_an_out_of_range_sibling_instead_of_dying(tmp_path: Path) -> None:
    """With dsl-mlir 0.0.1 installed (a fake distribution and package first on the path),
    importing dsl_runtime is an ImportError, but `dsl doctor` reports it and exits 1."""
    fake = tmp_path / "site" / "dsl_mlir-0.0.1.dist-info"
    fake.mkdir(parents=True)
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: dsl-mlir\nVersion: 0.0.1\n")
    package = tmp_path / "site" / "dsl_mlir"
    package.mkdir()
    for name in ("__init__.py", "_version.py"):  # what the version check reads
        (package / name).write_text('__version__ = "0.0.1"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")]),
        "DSL_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "dsl_runtime.cli", "doctor"], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "incompatible:" in proc.stdout and "dsl-mlir" in proc.stdout and "0.0.1" in proc.stdout
    imported = subprocess.run([sys.executable, "-c", "import dsl_runtime"], env=env,
                              capture_output=True, text=True)
    assert imported.returncode == 1 and "ImportError" in imported.stderr
