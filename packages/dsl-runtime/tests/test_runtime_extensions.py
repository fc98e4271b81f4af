"""What the runtime keys its disk cache on (extension, MLIR and dialect versions) and what
`dsl doctor` reports about extensions.

The end-to-end use of an extension from @jit is tested by examples/downstream-ext.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator

import pytest

from dsl_parser import extensions
from dsl_parser.extensions import registry
from dsl_runtime import cli, keys


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[importlib.metadata.EntryPoint]]:
    """The installed extensions are the entry points the test adds (discovery reruns)."""
    eps: list[importlib.metadata.EntryPoint] = []

    def entry_points(**params: object) -> list[importlib.metadata.EntryPoint]:
        return eps if params.get("group") == extensions.ENTRY_POINT_GROUP else []

    before = set(registry._ACTIVE)
    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(registry, "_DISCOVERED", False)
    monkeypatch.setattr(registry, "_FAILED", {})
    yield eps
    for name in set(registry._ACTIVE) - before:
        extensions.deactivate(name)


def _nothing(registry: extensions.ExtensionRegistry) -> None:
    registry.namespace("rtx", "rtx_language")


def test_the_cache_key_changes_with_an_extensions_version(installed: list[object]) -> None:
    base = keys.digest("kernel")
    assert extensions.activate(_nothing, name="rt-ext", version="1.0")
    assert ("rt-ext", "1.0") in keys.extension_versions()
    with_1 = keys.digest("kernel")
    extensions.deactivate("rt-ext")
    assert extensions.activate(_nothing, name="rt-ext", version="2.0")
    with_2 = keys.digest("kernel")
    assert len({base, with_1, with_2}) == 3


def test_doctor_lists_extensions_and_fails_on_a_broken_one(
        installed: list[importlib.metadata.EntryPoint], capsys: pytest.CaptureFixture[str]) -> None:
    installed.append(importlib.metadata.EntryPoint(
        "rt-ext", "test_runtime_extensions:_nothing", extensions.ENTRY_POINT_GROUP))
    assert cli.main(["doctor"]) == 0
    out = capsys.readouterr().out
    active = len(extensions.active())  # rt-ext, and any extension a test imported earlier
    assert f"extensions: {active} active\n" in out
    assert "\n  rt-ext (unversioned): namespaces rtx; ops -\n" in out

    installed.append(importlib.metadata.EntryPoint(
        "broken-ext", "dsl_no_such_module_xyz:register", extensions.ENTRY_POINT_GROUP))
    registry._DISCOVERED = False  # monkeypatch restores it
    assert cli.main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert f"extensions: {active} active, 1 FAILED" in out
    assert "dsl extension 'broken-ext' (entry point dsl_no_such_module_xyz:register) failed to " \
           "load and is disabled: ModuleNotFoundError" in out


def test_the_cache_key_covers_the_dialect_and_mlir_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    import dsl_mlir as mlir_version

    keys.component_versions.cache_clear()
    versions = dict(keys.component_versions())
    assert versions["mlir"] == mlir_version.MLIR_VERSION
    assert versions["dsl-dialect"] == str(mlir_version.DIALECT_VERSION)
    base = keys.digest("kernel")
    monkeypatch.setattr(mlir_version, "DIALECT_VERSION", mlir_version.DIALECT_VERSION + 1)
    keys.component_versions.cache_clear()
    try:
        assert keys.digest("kernel") != base
    finally:
        keys.component_versions.cache_clear()


def test_the_cache_key_changes_when_an_extensions_code_changes(
        installed: list[importlib.metadata.EntryPoint], tmp_path: object,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An editable extension edited without a version bump: its package's files are part
    of the key (read once per process, so a fresh process sees the edit)."""
    from pathlib import Path

    root = Path(str(tmp_path))
    package = root / "rt_edit_ext"
    package.mkdir()
    (package / "__init__.py").write_text("def register(r):\n    r.namespace('rte', 'x')\n")
    (package / "lowering.py").write_text("SCALE = 1\n")
    monkeypatch.syspath_prepend(str(root))
    installed.append(importlib.metadata.EntryPoint(
        "rt-edit", "rt_edit_ext:register", extensions.ENTRY_POINT_GROUP))
    registry._package_digest.cache_clear()
    before = dict(keys.extension_code())["rt-edit"]
    key_before = keys.digest("kernel")
    (package / "lowering.py").write_text("SCALE = 2\n")  # the lowering changed, same version
    assert dict(keys.extension_code())["rt-edit"] == before  # same process: code in use
    registry._package_digest.cache_clear()  # what a fresh process reads
    after = dict(keys.extension_code())["rt-edit"]
    assert after != before and keys.digest("kernel") != key_before
    assert len(after) == 16 and before != "unknown"
