"""dsl-core's version: declared once in pyproject, the same in the package; the ``ir`` extra's
range is the one the lazy IR hooks check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import dsl_core
from dsl_core import versions
from dsl_core._ir import COMPATIBLE_MLIR
from dsl_core.versions import check_requirements, satisfies

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_pyproject_declares_the_version_and_the_ir_range_the_check_uses() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert project["version"] == dsl_core.__version__
    assert project["dependencies"] == ["packaging>=22"]  # the version checks read PEP 440
    assert project["optional-dependencies"]["ir"] == [f"dsl-mlir{COMPATIBLE_MLIR}"]


@pytest.mark.parametrize(("version", "ok"), [("0.1", True), ("0.1.7", True), ("0.1.7rc1", True),
                                             ("0.2.0", False), ("0.0.9", False),
                                             ("0.2.0.dev1", False), ("not-a-version", False)])
def test_satisfies_reads_pep440(version: str, ok: bool) -> None:
    # PEP 440: "<0.2" excludes the pre-releases of 0.2 too (a hand-written parser did not)
    assert satisfies(version, ">=0.1,<0.2") is ok


@pytest.mark.parametrize("specifier", [">=0.1,<0.2", ">=0.1.1,<0.2", "==0.1", "!=0.1.0", ">0.1",
                                       "<=1.2.0", ">=1,<2, !=1.4", "~=0.1.1", ">=0.1rc1"])
def test_plain_releases_compare_as_packaging_does(specifier: str) -> None:
    # the fast path (plain releases and comparisons, read without packaging) against
    # packaging's PEP 440 on versions around every bound
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    for version in ("0", "0.0.9", "0.1", "0.1.0", "0.1.0.0", "0.1.1", "0.1.10", "0.2", "0.2.0",
                    "1", "1.2", "1.2.0", "1.2.1", "1.4", "1.4.0", "2.0", "10.0"):
        want = SpecifierSet(specifier).contains(Version(version), prereleases=True)
        assert satisfies(version, specifier) is want, (version, specifier)


def test_the_version_is_read_without_importing_the_package(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from dsl_core.versions import installed_version

    package = tmp_path / "dsl_fake_sibling"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (package / "_version.py").write_text('"""doc"""\n\n__version__ = "0.3.1"\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert installed_version("dsl-fake-sibling") == "0.3.1"
    assert "dsl_fake_sibling" not in sys.modules
    assert installed_version("dsl-core") == dsl_core.__version__
    assert installed_version("no-such-dist-anywhere") is None


def test_check_requirements_names_both_versions_and_the_fix() -> None:
    found = {"a-pkg": "1.4.0", "b-pkg": "2.0.1"}
    assert check_requirements("x 1.0", {"a-pkg": ">=1.2,<2"}, found.get) == {"a-pkg": "1.4.0"}
    with pytest.raises(ImportError) as err:
        check_requirements("x 1.0", {"a-pkg": ">=1.2,<2", "b-pkg": ">=1,<2"}, found.get)
    assert str(err.value) == ("x 1.0 needs b-pkg>=1,<2 but b-pkg 2.0.1 is installed; fix: pip "
                              "install 'b-pkg>=1,<2' (or a x release that supports b-pkg 2.0.1)")
    with pytest.raises(ImportError, match=r"^x 1.0 needs c-pkg>=1, which is not installed; "
                                          r"fix: pip install 'c-pkg>=1'$"):
        check_requirements("x 1.0", {"c-pkg": ">=1"}, found.get)


def test_package_fingerprint_states_cover_the_files_and_folders_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The states a caller may keep instead of the files: one per folder walked and per
    file hashed, taken before the read; an edit, a new file or a removed one shows."""
    package = tmp_path / "fp_pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("A = 1\n")
    (package / "sub" / "rules.py").write_text("B = 2\n")
    (package / "notes.txt").write_text("not source\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    digest, states = versions.package_fingerprint("fp_pkg")
    assert digest == versions.package_digest.__wrapped__("fp_pkg") and len(digest) == 16
    assert [p for p, _, _ in states] == [str(package), str(package / "sub"),
                                         str(package / "__init__.py"),
                                         str(package / "sub" / "rules.py")]
    assert versions.unchanged(states)
    now = max(t for _, _, t in states)
    assert not versions.settled(states, now)  # just written: may change within a tick
    assert versions.settled(states, now + versions.SETTLE_NS)
    (package / "sub" / "rules.py").write_text("B = 3\n")  # same size
    later = os.stat(package / "sub" / "rules.py").st_mtime_ns + 10**9
    os.utime(package / "sub" / "rules.py", ns=(later, later))
    assert not versions.unchanged(states)
    assert versions.package_fingerprint("fp_pkg")[0] != digest
    _, states = versions.package_fingerprint("fp_pkg")
    (package / "sub" / "rules.py").unlink()
    assert not versions.unchanged(states)
    assert versions.package_fingerprint("missing_fp_pkg") == ("unknown", [])
    assert not versions.unchanged([(str(package / "gone.py"), -1, -1)])
