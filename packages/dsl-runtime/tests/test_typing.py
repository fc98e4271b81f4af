"""Typing and IDEs (issue 16): what type checkers and ``help``/``inspect`` see of DSL code.

The static checks run mypy (with ``dsl_parser.mypy_plugin``) and, when it is installed,
pyright on a small DSL script: it must check cleanly, and deliberately wrong calls of a
jitted function must be reported.
"""

from __future__ import annotations

import inspect
import pydoc
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")

GOOD = '''
from __future__ import annotations

import numpy as np

import dsl_core as dc
import dsl_parser.language as pl
from dsl_runtime import jit

N = pl.dynamic("N")


@jit
def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    """x * x + y."""
    return pl.add(pl.mul(x, x), y)


@jit(opt_level=2)
def axpy(a: pl.Scalar[pl.FP32], x: pl.Tensor[[128], pl.FP32],
         y: pl.Tensor[[128], pl.FP32]) -> pl.Tensor[[128], pl.FP32]:
    z: pl.Tensor[[128], pl.FP32] = x * a + y
    return z


@pl.kernel
def vadd_k(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32],
           n: pl.Scalar[pl.INDEX]) -> None:
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < n:
        z[i] = x[i] + y[i]


@jit
def vadd(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32]) -> None:
    vadd_k(x, y, z, x.shape[0]).launch(grid=(pl.ceil_div(x.shape[0], 64),), block=(64,))


@jit
def tiled(x: pl.Tensor[[N], pl.FP32], z: pl.Tensor[[N], pl.FP32], BLOCK: dc.Constexpr[int]) -> None:
    vadd_k(x, x, z, x.shape[0]).launch(grid=(pl.ceil_div(x.shape[0], BLOCK),),
                                        block=(BLOCK // 2 * 2,))


@dc.struct
class Pair:
    re: dc.Float32
    im: dc.Float32


def main() -> None:
    x = np.ones(128, np.float32)
    z = scale_add(x, x)
    scale_add(x, x, out=z)
    total: float = float(z.sum()) + float(axpy(2.0, x, x).max())
    vadd(x, x, z)
    tiled(x, z, 64)
    print(total, scale_add.timings, scale_add.cache_info(), scale_add.compile(x, x).abi,
          scale_add.__wrapped__.__name__, Pair(1.0, 2.0).re)
'''

BAD = GOOD + '''

def wrong() -> None:
    x = np.ones(128, np.float32)
    scale_add("not a tensor", x)
    scale_add(x)
    Pair(1.0)
    tiled(x, x, "64")
'''


def _write(tmp_path: Path, text: str) -> Path:
    script = tmp_path / "dsl_script.py"
    script.write_text(textwrap.dedent(text))
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\nplugins = dsl_parser.mypy_plugin\n"
                      "[mypy-dsl_mlir._mlir.*,dsl_mlir._mlir,dsl_mlir._dispatch]\n"
                      "ignore_missing_imports = True\nfollow_imports = skip\n")
    return script


def _mypy(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is not installed")
    script = _write(tmp_path, text)
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(tmp_path / "mypy.ini"),
                           "--cache-dir", str(tmp_path / "cache"), "--no-error-summary", str(script)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)


@pytest.mark.slow
def test_mypy_strict_checks_dsl_code_with_the_plugin(tmp_path: Path) -> None:
    proc = _mypy(tmp_path, GOOD)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_mypy_reports_wrong_calls_of_a_jitted_function(tmp_path: Path) -> None:
    proc = _mypy(tmp_path, BAD)
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = {int(e.split(":")[1]) for e in errors}
    wrong = BAD.splitlines().index("def wrong() -> None:") + 1  # 1-based line of the def
    # a str for a tensor, a missing argument, a missing struct field, a str for a Constexpr[int]
    assert {wrong + 2, wrong + 3, wrong + 4, wrong + 5} <= lines, proc.stdout
    assert len(lines) == 4, proc.stdout  # and nothing in the good part


def _pyright() -> list[str] | None:
    """pyright of this interpreter's environment (ci/requirements-dev.txt), else on PATH."""
    beside = Path(sys.executable).parent / "pyright"
    exe = str(beside) if beside.exists() else shutil.which("pyright")
    return None if exe is None else [exe]


@pytest.mark.slow
def test_pyright_checks_dsl_code_and_reports_wrong_calls(tmp_path: Path) -> None:
    command = _pyright()
    if command is None:
        pytest.skip("pyright is not installed (pip install pyright; it needs node and npm)")
    script = _write(tmp_path, BAD)
    proc = subprocess.run([*command, "--pythonpath", sys.executable, str(script)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    errors = [line for line in proc.stdout.splitlines() if " - error:" in line]
    lines = {int(e.split(":")[1]) for e in errors}
    wrong = BAD.splitlines().index("def wrong() -> None:") + 1
    assert {wrong + 2, wrong + 3, wrong + 4, wrong + 5} <= lines, proc.stdout
    assert all(line > wrong for line in lines), proc.stdout  # the good part is clean


@pytest.mark.slow
def test_pyright_finds_no_error_in_the_examples() -> None:
    """Every example (incl. the downstream extension's lowering on dsl_mlir.ir's stubs)."""
    command = _pyright()
    if command is None:
        pytest.skip("pyright is not installed (pip install pyright; it needs node and npm)")
    examples = Path(__file__).resolve().parents[3] / "examples"
    proc = subprocess.run([*command, "--pythonpath", sys.executable, str(examples)],
                          capture_output=True, text=True, cwd=examples, timeout=600)
    assert "0 errors" in proc.stdout and proc.returncode == 0, proc.stdout + proc.stderr


def test_the_mlir_bindings_ship_type_stubs() -> None:
    import dsl_mlir.ir

    stubs = Path(dsl_mlir.ir.__file__).parent / "_mlir_libs" / "_mlir"
    text = (stubs / "ir.pyi").read_text()
    for cls in ("Context as Context", "class Module", "class RankedTensorType", "class InsertionPoint"):
        assert cls in text
    assert "class PassManager" in (stubs / "passmanager.pyi").read_text()


# -- what help(), inspect and dir() see of a jitted function ---------------------------------
@jit
def documented(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
    """Add two vectors."""
    return pl.add(x, y)


def test_a_jitted_function_has_the_name_doc_and_signature_of_its_python_function() -> None:
    assert documented.__name__ == "documented"
    assert documented.__qualname__ == "documented"
    assert documented.__doc__ == "Add two vectors."
    assert documented.__module__ == __name__
    assert documented.__wrapped__.__name__ == "documented"
    assert list(inspect.signature(documented).parameters) == ["x", "y"]
    text = pydoc.render_doc(documented, renderer=pydoc.plaintext)
    assert "documented(x:" in text and "Add two vectors." in text
    x = np.ones(4, np.float32)
    np.testing.assert_array_equal(documented(x, x), 2 * x)  # still the fast C entry
    assert type(documented).__name__ == "Dispatcher"


def test_dir_of_a_jitted_function_lists_what_it_forwards() -> None:
    names = dir(documented)
    assert names == sorted(names)
    # its own (the C dispatcher's), the function's (functools.update_wrapper) and the
    # JitFunction's, which attribute access forwards to
    for name in ("impl", "kernel", "__wrapped__", "__doc__", "compile", "timings",
                 "cache_info", "specialization"):
        assert name in names, name
        getattr(documented, name)


def test_a_jitted_pl_function_shows_its_python_source() -> None:
    @pl.function
    def twice(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        """Twice x."""
        return pl.add(x, x)

    f = jit(twice)
    assert f.__name__ == "twice" and f.__doc__ == "Twice x."
    assert list(inspect.signature(f).parameters) == ["x"]
    np.testing.assert_array_equal(f(np.ones(4, np.float32)), np.full(4, 2, np.float32))


def test_a_jitted_program_entry_shows_its_method_without_self() -> None:
    @pl.program
    class Prog:
        @pl.function
        def main(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
            """The entry."""
            return pl.add(x, x)

    f = jit(Prog, entry="main")
    assert f.__name__ == "main" and f.__doc__ == "The entry."
    assert list(inspect.signature(f).parameters) == ["x"]


def test_the_interpreter_keeps_the_signature() -> None:
    f = jit(documented.__wrapped__, backend="interpret")
    assert f.__name__ == "documented" and f.__doc__ == "Add two vectors."
    assert list(inspect.signature(f).parameters) == ["x", "y"]
