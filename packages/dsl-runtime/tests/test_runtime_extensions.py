"""What the runtime keys its disk cache on (extension, MLIR and dialect versions) and what
`dsl doctor` reports about extensions.

The end-to-end use of an extension from @jit is tested by examples/downstream-ext.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsl_parser import extensions
from dsl_parser.extensions import discovery, registry
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
    discovery.package_digest.cache_clear()
    before = dict(keys.extension_code())["rt-edit"]
    key_before = keys.digest("kernel")
    (package / "lowering.py").write_text("SCALE = 2\n")  # the lowering changed, same version
    assert dict(keys.extension_code())["rt-edit"] == before  # same process: code in use
    discovery.package_digest.cache_clear()  # what a fresh process reads
    after = dict(keys.extension_code())["rt-edit"]
    assert after != before and keys.digest("kernel") != key_before
    assert len(after) == 16 and before != "unknown"


def test_the_extension_index_follows_installations(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The index of installed extensions (read instead of scanning the entry points) is
    rescanned when the distributions in a sys.path folder change: a new extension changes
    the cache key; other files there (a script's folder) do not count."""
    site, scripts = tmp_path / "site", tmp_path / "scripts"
    site.mkdir()
    scripts.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(sys, "path", [str(scripts), *sys.path])  # the script's folder first
    base = keys.digest("kernel")
    assert "idx-ext" not in {name for name, _, _ in keys.installed_extensions()}
    state = keys._path_state()
    (scripts / "edited.py").write_text("x = 1\n")  # editing scripts does not count
    assert keys._path_state() == state
    dist = site / "idx_ext-1.2.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: idx-ext\nVersion: 1.2\n")
    (dist / "entry_points.txt").write_text("[dsl.extensions]\nidx-ext = idx_ext_pkg:register\n")
    mtime = os.stat(site).st_mtime_ns + 10**9  # coarse file-system clocks: a visible change
    os.utime(site, ns=(mtime, mtime))
    assert ("idx-ext", "idx_ext_pkg:register", "1.2") in keys.installed_extensions()
    assert keys.digest("kernel") != base
    index = json.loads((Path(os.environ["DSL_CACHE_DIR"]) / "v1" / keys.INDEX).read_bytes())
    assert len(index["states"]) == 2  # before and after the installation


def test_the_fingerprints_before_the_registry_loads_are_the_discovery_ones(
        tmp_path: Path, installed: list[importlib.metadata.EntryPoint],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm first call computes the extension fingerprints without the parser's extension
    modules; a process that has loaded them (it compiled something) must get the same
    ones, or the two would never share cache entries."""
    package = tmp_path / "rt_fast_ext"
    package.mkdir()
    (package / "__init__.py").write_text("def register(r):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    installed.append(importlib.metadata.EntryPoint(
        "rt-fast", "rt_fast_ext.sub:register", extensions.ENTRY_POINT_GROUP))
    installed.append(importlib.metadata.EntryPoint(  # a duplicate name: the first one counts
        "rt-fast", "other_pkg:register", extensions.ENTRY_POINT_GROUP))
    monkeypatch.setattr(keys, "_scanned", {})
    monkeypatch.setattr(registry, "_ACTIVE", {})
    with_registry = keys._extension_fingerprints()
    monkeypatch.delitem(sys.modules, "dsl_parser.extensions.registry")
    without = keys._extension_fingerprints()
    assert without == with_registry == discovery.fingerprints(keys.installed_extensions())
    assert without[0] == (("rt-fast", "unversioned"),)
    assert without[1] == (("rt-fast", discovery.package_digest("rt_fast_ext")),)
    assert without[1][0][1] not in ("unknown", discovery.package_digest("other_pkg"))


WARM = textwrap.dedent("""
    import sys, numpy as np
    import dsl_parser.language as pl
    from dsl_runtime import jit, cache
    N = pl.dynamic("N")

    @jit
    def twice(x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        return pl.add(x, x)

    z = twice(np.arange(4, dtype=np.float32))
    cache.flush()
    heavy = [m for m in ("importlib.metadata", "dsl_mlir._mlir._mlir_libs._mlir", "pydantic",
                         "dsl_parser.parser.entry", "dsl_parser.extensions",
                         "dsl_mlir.objects") if m in sys.modules]
    print(z.tolist(), sorted(twice.timings), heavy)
""")


def test_a_warm_first_call_loads_neither_mlir_nor_the_parser_nor_metadata(tmp_path: Path) -> None:
    script = tmp_path / "warm_kernel.py"
    script.write_text(WARM)
    env = {**os.environ, "DSL_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    first, second = (r.stdout.strip() for r in runs)
    assert first.startswith("[0.0, 2.0, 4.0, 6.0] ['jit', 'lower', 'parse', 'total']")
    assert second == "[0.0, 2.0, 4.0, 6.0] ['load', 'total'] []"
