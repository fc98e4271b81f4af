"""Each layer installs and works on its own, from wheels, in a fresh virtual environment.

Slow: builds the pure-Python wheels (and dsl-mlir's, reusing the incremental
build dir build/dsl-mlir, as packages/dsl-mlir/tests/test_mlir_wheel.py does)
and creates venvs under build/test-venvs/layer-*. Our packages come from the
wheel folder only (``pip --isolated --no-index --find-links``); numpy
and the test tools come from the index, at the pins of ci/requirements-dev.txt.

* ``DSL_WHEEL_DIR=dist`` checks the four wheels of ``make wheels`` instead of
  building them (``make check-wheels`` does this);
* ``DSL_MLIR_WHEEL=path.whl`` reuses an already built dsl-mlir wheel.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest
import tomllib

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
WORK = REPO / "build" / "test-venvs"
PURE = ("dsl-core", "dsl-parser", "dsl-runtime")
EXTENSION = REPO / "examples" / "downstream-ext"


def _run(cmd: list[str | Path], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, check=False,
                          **kw)  # type: ignore[call-overload]


def _ok(cmd: list[str | Path], **kw: object) -> str:
    proc = _run(cmd, **kw)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _native_wheels_module() -> Any:
    """ci/native_wheels.py, which builds the dsl-mlir wheels and finds the interpreters."""
    spec = importlib.util.spec_from_file_location("native_wheels", REPO / "ci" / "native_wheels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: ci/native_wheels.py: the pins of ci/requirements-dev.txt and the interpreters.
NATIVE = _native_wheels_module()


def _wheel(source: Path, out: Path, *extra: str) -> None:
    _ok([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps",
         "-w", out, source, *extra])


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the four wheels of our packages and the example extension's."""
    out = tmp_path_factory.mktemp("wheels")
    given = os.environ.get("DSL_WHEEL_DIR")
    if given:
        for wheel in Path(given).glob("dsl_*.whl"):
            shutil.copy(wheel, out)
    else:
        for name in PURE:
            _wheel(REPO / "packages" / name, out)
        mlir = os.environ.get("DSL_MLIR_WHEEL")
        if mlir:
            shutil.copy(mlir, out)
        else:
            _wheel(REPO / "packages" / "dsl-mlir", out, f"-Cbuild-dir={REPO / 'build' / 'dsl-mlir'}")
    _wheel(EXTENSION, out)
    names = sorted({w.name.split("-")[0] for w in out.glob("*.whl")})  # dsl_mlir: one per CPython
    assert names == ["downstream_ext", "dsl_core", "dsl_mlir", "dsl_parser", "dsl_runtime"], names
    return out


def _venv(name: str, wheels: Path, ours: list[str], index: list[str],
          base: Path = Path(sys.executable), pinned: bool = True) -> Path:
    """A fresh venv of ``base`` with ``index`` from the package index (at our pins, unless
    ``pinned`` is false: another Python may need other releases) and ``ours`` from
    ``wheels`` only."""
    path = WORK / f"layer-{name}"
    shutil.rmtree(path, ignore_errors=True)
    _ok([base, "-m", "venv", path])
    py = path / "bin" / "python"
    if index:
        _ok([py, "-m", "pip", "install", "-q", *(NATIVE.pins(*index) if pinned else index)])
    _ok([py, "-m", "pip", "install", "-q", "--isolated", "--no-index", "--find-links", wheels, *ours])
    return py


def _installed(py: Path) -> set[str]:
    out = _ok([py, "-m", "pip", "list", "--format=freeze"])
    return {line.split("==")[0].lower() for line in out.splitlines()}


def _absent(py: Path, *modules: str) -> None:
    code = f"import importlib.util as u; print([m for m in {modules!r} if u.find_spec(m)])"
    assert _ok([py, "-c", code]).strip() == "[]"


def _all(wheels: Path, name: str) -> list[Path]:
    """The wheels of one package (dsl-mlir has one per CPython version)."""
    found = sorted(wheels.glob(f"{name}-*.whl"))
    assert found, name
    return found


def test_every_wheel_is_typed(wheels: Path) -> None:
    for name in ("dsl_core", "dsl_mlir", "dsl_parser", "dsl_runtime"):
        for wheel in _all(wheels, name):
            assert f"{name}/py.typed" in zipfile.ZipFile(wheel).namelist(), wheel.name
    stubs = "dsl_mlir/_mlir/_mlir_libs/_mlir/"  # the MLIR bindings' stubs (nanobind stubgen)
    for wheel in _all(wheels, "dsl_mlir"):
        names = set(zipfile.ZipFile(wheel).namelist())
        for stub in ("__init__.pyi", "ir.pyi", "passmanager.pyi", "rewrite.pyi"):
            assert stubs + stub in names, (wheel.name, stub)


#: The licence each wheel declares (SPDX, PEP 639) and the licence files it carries.
LICENCES = {
    "dsl_core": ("Apache-2.0", ["LICENSE"]),
    "dsl_parser": ("Apache-2.0", ["LICENSE"]),
    "dsl_runtime": ("Apache-2.0", ["LICENSE"]),
    "dsl_mlir": ("Apache-2.0 WITH LLVM-exception AND BSD-3-Clause AND MIT",
                 ["LICENSE", "THIRD_PARTY_NOTICES.txt"]),
}


def test_every_wheel_carries_its_licence_and_the_bundled_components_notices(wheels: Path) -> None:
    for name, (expression, files) in LICENCES.items():
        for wheel in _all(wheels, name):
            archive = zipfile.ZipFile(wheel)
            info = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            folder = info.rsplit("/", 1)[0]
            meta = archive.read(info).decode()
            assert f"License-Expression: {expression}" in meta.splitlines(), wheel.name
            for file in files:
                assert f"License-File: {file}" in meta.splitlines(), (wheel.name, file)
                text = archive.read(f"{folder}/licenses/{file}").decode()
                assert "Apache License" in text and "Version 2.0, January 2004" in text
    for mlir in _all(wheels, "dsl_mlir"):
        _check_mlir_notices(zipfile.ZipFile(mlir))


def _check_mlir_notices(archive: zipfile.ZipFile) -> None:
    folder = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA")).rsplit("/", 1)[0]
    own = archive.read(f"{folder}/licenses/LICENSE").decode()
    assert "---- LLVM Exceptions to the Apache 2.0 License ----" in own
    notices = archive.read(f"{folder}/licenses/THIRD_PARTY_NOTICES.txt").decode()
    for needle in ("The LLVM Project is under the Apache License v2.0 with LLVM Exceptions",
                   "University of Illinois/NCSA", "Copyright (c) 2022 Wenzel Jakob",
                   "Copyright (c) 2017 Thibaut Goetghebuer-Planchon"):
        assert needle in notices, needle


def test_the_licence_files_of_the_packages_agree() -> None:
    """One licence text for the project: the packages' copies are the root's (dsl-mlir's
    adds the LLVM exceptions, under which its code can move to and from upstream MLIR)."""
    root = (REPO / "LICENSE").read_text()
    for name in ("dsl-core", "dsl-parser", "dsl-runtime"):
        assert (REPO / "packages" / name / "LICENSE").read_text() == root, name
    mlir = (REPO / "packages" / "dsl-mlir" / "LICENSE").read_text()
    assert mlir.startswith(root) and "LLVM Exceptions" in mlir[len(root):]


def test_dsl_core_alone_imports_and_passes_its_tests(wheels: Path) -> None:
    py = _venv("core", wheels, ["dsl-core"], ["pytest", "hypothesis", "numpy", "packaging"])
    assert {"dsl-core"} == {d for d in _installed(py) if d.startswith("dsl")}
    _absent(py, "dsl_mlir", "dsl_parser", "dsl_runtime")
    smoke = textwrap.dedent("""
        import dsl_core as dc
        @dc.struct
        class P:
            a: dc.Int8
            b: dc.Float64
        assert (dc.dsl_size_of(P), dc.dsl_align_of(P), dc.offset_of(P, "b")) == (16, 8, 8)
        print("CORE_OK", dc.__version__, dc.cache_signature(dc.Int32(3)))
    """)
    assert "CORE_OK" in _ok([py, "-c", smoke], cwd="/")
    out = _ok([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", REPO / "packages/dsl-core/tests"],
              cwd=REPO)
    assert " passed" in out and "failed" not in out
    assert "skipped" in out  # the tests that need dsl-mlir's IR skip themselves


def test_dsl_mlir_alone_lowers_and_runs(wheels: Path) -> None:
    py = _venv("mlir", wheels, ["dsl-mlir"], ["numpy"])
    _absent(py, "dsl_core", "dsl_parser", "dsl_runtime")
    script = textwrap.dedent("""
        import ctypes, numpy as np, dsl_mlir
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
        print("MLIR_OK", dsl_mlir.__version__)
    """)
    assert "MLIR_OK" in _ok([py, "-c", script], cwd="/")


def test_dsl_parser_works_without_the_runtime(wheels: Path) -> None:
    py = _venv("parser", wheels, ["dsl-parser"], ["numpy", "packaging"])
    assert {"dsl-core", "dsl-mlir", "dsl-parser"} == {d for d in _installed(py)
                                                      if d.startswith("dsl")}
    _absent(py, "dsl_runtime")
    script = textwrap.dedent("""
        import ctypes
        import numpy as np
        import dsl_mlir
        import dsl_parser.language as pl
        from dsl_mlir.runtime import get_ranked_memref_descriptor as desc
        from dsl_parser import structural_equal

        @pl.function
        def f(x: pl.Tensor[[4, 8], pl.FP32], y: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
            return pl.add(pl.mul(x, 2.0), y)

        assert "dsl.add" in str(f)
        assert structural_equal(pl.parse(f.as_python()), f)
        x = np.arange(32, dtype=np.float32).reshape(4, 8)
        y = np.full((4, 8), 0.5, np.float32)
        z = np.zeros((4, 8), np.float32)
        engine = dsl_mlir.jit(dsl_mlir.lower(f.module))
        engine.invoke("f", *[ctypes.pointer(ctypes.pointer(desc(a))) for a in (x, y, z)])
        assert (z == x * 2.0 + y).all(), z
        print("PARSER_OK")
    """)
    work = WORK / "layer-parser" / "kernel.py"  # @pl.function reads its source from a file
    work.write_text(script)
    assert "PARSER_OK" in _ok([py, work], cwd="/")


def test_all_layers_and_an_extension_from_wheels_only(wheels: Path) -> None:
    py = _venv("all", wheels, ["dsl-runtime", "downstream-ext"],
               ["numpy", "packaging"])
    assert {"dsl-core", "dsl-mlir", "dsl-parser", "dsl-runtime", "downstream-ext"} <= _installed(py)
    script = textwrap.dedent("""
        import numpy as np
        import dsl_parser.language as pl
        from dsl_runtime import jit

        N = pl.dynamic("N")

        @jit
        def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
            return pl.add(pl.mul(x, x), y)

        x = np.arange(1000, dtype=np.float32); y = np.ones(1000, np.float32)
        np.testing.assert_array_equal(scale_add(x, y), x * x + y)
        print("RUNTIME_OK")
    """)
    work = WORK / "layer-all" / "kernel.py"
    work.write_text(script)
    env = {**os.environ, "DSL_CACHE_DIR": str(WORK / "layer-all" / "cache")}
    assert "RUNTIME_OK" in _ok([py, work], cwd="/", env=env)
    demo = _ok([py, REPO / "examples" / "downstream_ext_demo.py"], cwd="/", env=env)
    assert "downstream_ext_demo ok: extension downstream-ext" in demo
    doctor = _ok([py.parent / "dsl", "doctor"], cwd="/", env=env)
    for needle in ("dsl-core", "dsl-mlir", "dsl-parser", "extensions: 1 active",
                   "downstream-ext 0.3.0"):
        assert needle in doctor, doctor


def _classified(pyproject: Path) -> list[str]:
    """The CPython versions a package's classifiers name ("3.10", ...)."""
    prefix = "Programming Language :: Python :: "
    meta = tomllib.loads(pyproject.read_text())["project"]
    return [c[len(prefix):] for c in meta["classifiers"] if c.startswith(prefix + "3.")]


#: What dsl-mlir's wheels are built for (make wheels' WHEEL_PYTHONS) and what its
#: metadata claims; every package says the same.
PYTHONS = _classified(REPO / "packages" / "dsl-mlir" / "pyproject.toml")


def test_every_package_classifies_the_versions_it_requires() -> None:
    assert PYTHONS == ["3.10", "3.11", "3.12", "3.13"]
    for name in ("dsl-core", "dsl-mlir", "dsl-parser", "dsl-runtime"):
        pyproject = REPO / "packages" / name / "pyproject.toml"
        meta = tomllib.loads(pyproject.read_text())["project"]
        assert _classified(pyproject) == PYTHONS, name
        assert meta["requires-python"] == f">={PYTHONS[0]}", name
    make_default = re.search(r"^WHEEL_PYTHONS \?= (.*)$", (REPO / "Makefile").read_text(), re.M)
    assert make_default is not None and make_default.group(1).split() == PYTHONS


def _tags(wheel: Path) -> tuple[str, str, str]:
    """(python, abi, platform) of a wheel's file name."""
    python, abi, platform = wheel.name[:-len(".whl")].split("-")[-3:]
    return python, abi, platform


def test_native_wheels_carry_a_manylinux_tag_for_every_classified_python(wheels: Path) -> None:
    if not os.environ.get("DSL_WHEEL_DIR"):
        pytest.skip("make wheels builds the wheel of every version (DSL_WHEEL_DIR=dist)")
    found = {_tags(w)[0]: w for w in _all(wheels, "dsl_mlir")}
    assert sorted(found) == sorted(f"cp{v.replace('.', '')}" for v in PYTHONS)
    for python, wheel in found.items():
        _, abi, platform = _tags(wheel)
        assert abi == python and re.fullmatch(r"manylinux_2_\d+_x86_64(\.manylinux\w+)*", platform), wheel.name
        archive = zipfile.ZipFile(wheel)
        info = next(n for n in archive.namelist() if n.endswith(".dist-info/WHEEL"))
        tags = [line.split(": ")[1] for line in archive.read(info).decode().splitlines()
                if line.startswith("Tag: ")]
        assert tags and all(t.startswith(f"{python}-{python}-manylinux_2_") for t in tags), tags
        modules = [n for n in archive.namelist() if ".cpython-" in n]
        assert modules and all(f".cpython-{python[2:]}-x86_64-linux-gnu.so" in n for n in modules)


SMOKE = textwrap.dedent("""
    import sys
    import numpy as np
    import dsl_mlir
    import dsl_parser.language as pl
    from dsl_runtime import jit

    N = pl.dynamic("N")

    @jit
    def axpy(a: pl.Scalar[pl.FP32], x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        return pl.add(pl.mul(x, a), y)

    x = np.linspace(-2, 2, 1001, dtype=np.float32); y = np.arange(1001, dtype=np.float32)
    before = (x.copy(), y.copy())
    z = axpy(np.float32(3.0), x, y)
    np.testing.assert_allclose(z, x * np.float32(3.0) + y, rtol=1e-6)
    assert (x == before[0]).all() and (y == before[1]).all()
    assert "dsl.mul" in axpy.compile(np.float32(3.0), x, y).mlir("dsl")
    print("SMOKE_OK", "%d.%d" % sys.version_info[:2], dsl_mlir.__file__)
""")


@pytest.mark.parametrize("version", PYTHONS)
def test_a_fresh_venv_of_each_python_parses_lowers_jits_and_calls(wheels: Path, version: str) -> None:
    base = NATIVE.find_python(version)
    if base is None:
        message = f"no CPython {version} here (python{version} on PATH or under pyenv)"
        if os.environ.get("DSL_WHEEL_DIR"):
            pytest.fail(message)  # make wheels built this version, so the interpreter exists
        pytest.skip(message)
    # numpy's pin (2.4) has no wheels for 3.10: each Python takes its newest numpy
    py = _venv(f"python-{version}", wheels, ["dsl-runtime"], ["numpy", "packaging"], base, pinned=False)
    path = py.parents[1]
    work = path / "smoke.py"  # @jit reads the function's source from its file
    work.write_text(SMOKE)
    env = {**os.environ, "DSL_CACHE_DIR": str(path / "cache")}
    out = _ok([py, work], cwd="/", env=env)
    assert f"SMOKE_OK {version} {path}" in out, out
