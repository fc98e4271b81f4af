"""dsl-runtime's own version and its import-time check of dsl-core, dsl-mlir and dsl-parser."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dsl_runtime
from dsl_runtime._compat import check_siblings
from dsl_runtime._version import SIBLINGS

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

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
        import dsl_runtime
    except ImportError as err:
        print("ERROR", err)
    else:
        print("IMPORTED")
""")


def _import_with(dist: str, fake: str | None) -> str:
    code = f"DIST, FAKE = {dist!r}, {fake!r}\n" + SCRIPT
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.parametrize(("dist", "fake"), [("dsl-parser", "0.2.5"), ("dsl-core", "0.0.9"),
                                            ("dsl-mlir", "1.0.0")])
def test_an_out_of_range_sibling_names_both_versions_and_the_fix(dist: str, fake: str) -> None:
    want = f"{dist}{SIBLINGS[dist]}"
    assert f"ERROR dsl-runtime {dsl_runtime.__version__} needs {want} but {dist} {fake} is " \
           f"installed; fix: pip install '{want}' (or a dsl-runtime release that supports " \
           f"{dist} {fake})" in _import_with(dist, fake)


def test_a_missing_sibling_names_the_fix() -> None:
    assert "ERROR dsl-runtime " + dsl_runtime.__version__ + " needs dsl-core>=0.1,<0.2, which " \
           "is not installed; fix: pip install 'dsl-core>=0.1,<0.2'" in _import_with("dsl-core", None)


def test_in_range_siblings_import() -> None:
    assert "IMPORTED" in _import_with("dsl-parser", "0.1.9")
    assert set(check_siblings()) == {"dsl-core", "dsl-mlir", "dsl-parser"}


def test_pyproject_declares_the_version_and_the_ranges_the_check_uses() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert project["version"] == dsl_runtime.__version__
    declared = sorted(d for d in project["dependencies"] if d.startswith("dsl-"))
    assert declared == sorted(f"{dist}{spec}" for dist, spec in SIBLINGS.items())
