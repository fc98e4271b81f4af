"""dsl-parser's own version and its import-time check of dsl-mlir."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dsl_parser
from dsl_parser._compat import check_siblings
from dsl_parser._version import SIBLINGS

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

# Runs ``import dsl_parser`` with dsl-mlir at version FAKE (None: not installed).
SCRIPT = textwrap.dedent("""
    import importlib.metadata as md, sys
    if FAKE is None:  # neither metadata nor the package (a build tree would have one)
        real = md.version
        def version(dist):
            if dist == DIST:
                raise md.PackageNotFoundError(dist)
            return real(dist)
        md.version = version
        sys.modules[DIST.replace("-", "_")] = None
    else:  # what the check reads: the __version__ of the package's _version.py
        import dsl_core.versions as v
        real_module_version = v._module_version
        v._module_version = lambda m: FAKE if m == DIST.replace("-", "_") else \
            real_module_version(m)
    try:
        import dsl_parser
    except ImportError as err:
        print("ERROR", err)
    print("MLIR_IMPORTED", isinstance(sys.modules.get("dsl_mlir"), type(sys)))
""")


def _import_with(fake: str | None) -> str:
    code = f"DIST, FAKE = 'dsl-mlir', {fake!r}\n" + SCRIPT
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout


def test_an_out_of_range_dsl_mlir_fails_before_it_is_imported() -> None:
    out = _import_with("0.3.0")
    v = dsl_parser.__version__
    assert f"ERROR dsl-parser {v} needs dsl-mlir>=0.1,<0.2 but dsl-mlir 0.3.0 is installed; " \
           f"fix: pip install 'dsl-mlir>=0.1,<0.2' (or a dsl-parser release that supports " \
           f"dsl-mlir 0.3.0)" in out
    assert "MLIR_IMPORTED False" in out


def test_a_missing_dsl_mlir_names_the_fix() -> None:
    out = _import_with(None)
    assert f"ERROR dsl-parser {dsl_parser.__version__} needs dsl-mlir>=0.1,<0.2, which is not " \
           "installed; fix: pip install 'dsl-mlir>=0.1,<0.2'" in out


def test_an_in_range_dsl_mlir_imports() -> None:
    out = _import_with("0.1.7")
    assert "ERROR" not in out and "MLIR_IMPORTED True" in out
    assert check_siblings()["dsl-mlir"] == dsl_parser._mlir.DSL_MLIR_VERSION
    assert set(check_siblings()) == {"dsl-core", "dsl-mlir"}


def test_pyproject_declares_the_version_and_the_ranges_the_check_uses() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert project["version"] == dsl_parser.__version__
    declared = sorted(d for d in project["dependencies"] if d.startswith("dsl-"))
    assert declared == sorted(f"{dist}{spec}" for dist, spec in SIBLINGS.items())
