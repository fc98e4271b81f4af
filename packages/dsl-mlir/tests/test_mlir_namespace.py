"""The private namespace, versions and the lean registration."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import dsl_mlir
from dsl_mlir import ir

REPO = pathlib.Path(__file__).resolve().parents[3]


def test_versions() -> None:
    assert dsl_mlir.MLIR_VERSION == "22.1.8"
    assert re.fullmatch(r"\d+\.\d+\.\d+", dsl_mlir.__version__)


def test_bindings_live_under_private_prefix() -> None:
    assert ir.__name__ == "dsl_mlir._mlir.ir"
    assert ir.Context.__module__.startswith("dsl_mlir._mlir")
    from dsl_mlir.dialects import arith, dsl
    assert dsl.AddOp.__module__ == "dsl_mlir._mlir.dialects._dsl_ops_gen"
    assert arith.AddFOp.OPERATION_NAME == "arith.addf"


def test_import_does_not_load_a_global_mlir() -> None:
    code = "import sys, dsl_mlir; from dsl_mlir.dialects import dsl; print('mlir' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "False"


def test_no_project_source_imports_global_mlir() -> None:
    pattern = re.compile(r"^\s*(import mlir\b|from mlir\b)", re.M)
    offenders = []
    for path in (REPO / "packages").rglob("*.py"):
        if "/_mlir/" in str(path) or "build" in path.parts:
            continue
        if path.name == "test_mlir_wheel.py":  # drives the *other* package on purpose
            continue
        if pattern.search(path.read_text(encoding="utf-8")):
            offenders.append(str(path))
    assert offenders == []


def test_nanobind_domain_and_single_capi_library() -> None:
    libs = pathlib.Path(ir.__file__).parent / "_mlir_libs"
    names = sorted(p.name for p in libs.iterdir())
    assert "libnanobind-dsl_mlir.so" in names
    assert [n for n in names if n.startswith("libDslPythonCAPI")] == ["libDslPythonCAPI.so"]


# What libDslPythonCAPI.so may export (python/gen_exports.py, docs/extending.md): the C API,
# and for C++ plugins the symbols of namespaces mlir and llvm (mlir::dsl included).
_CXX_EXPORT = re.compile(r"^_Z(?:T[VIS]|GVZ?|Th[^_]*_|Tv[^_]*_[^_]*_|Z)?N[KVRO]*4(?:mlir|llvm)")


def _defined_symbol_versions(lib: pathlib.Path) -> dict[str, str]:
    """name -> version of every defined dynamic symbol (readelf shows versions at any
    binutils version, where nm only does from 2.35); "" for an unversioned one."""
    out = subprocess.run(["readelf", "--dyn-syms", "-W", str(lib)], check=True,
                         capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 8 or not fields[0].rstrip(":").isdigit() or fields[6] in ("UND", "ABS"):
            continue
        name, _, version = fields[7].partition("@")
        found[name] = version.lstrip("@")
    return found


@pytest.mark.skipif(shutil.which("nm") is None or shutil.which("readelf") is None,
                    reason="binutils (nm, readelf) not installed")
def test_aggregate_exports_the_c_api_and_mlir_cxx_under_one_version() -> None:
    lib = pathlib.Path(ir.__file__).parent / "_mlir_libs" / "libDslPythonCAPI.so"
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], check=True,
                         capture_output=True, text=True).stdout
    node = f"DSLMLIR_{dsl_mlir.__version__}"
    names, unique = [], []
    for line in out.splitlines():
        if not line.strip():
            continue
        name = line.split()[-1].partition("@")[0]
        if line.split()[-2] == "u":
            unique.append(name)
        if name == node:  # the version node itself (an absolute symbol)
            continue
        names.append(name)
    c_api = [n for n in names if n.startswith(("mlir", "dsl"))]
    cxx = [n for n in names if _CXX_EXPORT.match(n)]
    assert len(c_api) > 500  # the whole MLIR C API is there
    assert len(cxx) > 10000  # and MLIR/LLVM's C++ for plugins
    allowed = set(c_api) | set(cxx)
    assert [n for n in names if n not in allowed] == []  # no std::, nanobind, ...
    # every defined symbol carries our version node
    defined = _defined_symbol_versions(lib)
    assert len(defined) == len(set(names)) and set(defined.values()) == {node}
    # What a plugin needs: the ABI-breaking-checks guard, the dsl dialect's C++ API.
    assert "_ZN4llvm23EnableABIBreakingChecksE" in cxx
    assert "_ZN4mlir6detail14TypeIDResolverINS_3dsl5MulOpEvE2idE" in cxx
    # GNU unique symbols are merged process-wide, whatever the library: exported, ours
    # would be shared with another MLIR in the process.
    assert unique == []
    # The plugins' release stamp must come from the plugin, never from us.
    assert "dslPluginAbiVersion" not in names


def test_aggregate_binds_its_own_symbols() -> None:
    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) not installed")
    lib = pathlib.Path(ir.__file__).parent / "_mlir_libs" / "libDslPythonCAPI.so"
    dyn = subprocess.run(["readelf", "-d", str(lib)], check=True, capture_output=True, text=True).stdout
    assert "SYMBOLIC" in dyn  # -Bsymbolic: another MLIR in the process cannot interpose


def test_extensions_find_the_aggregate_through_origin() -> None:
    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) not installed")
    libs = pathlib.Path(ir.__file__).parent / "_mlir_libs"
    linking = []
    for so in libs.glob("*.so"):
        dyn = subprocess.run(["readelf", "-d", str(so)], check=True, capture_output=True, text=True).stdout
        if "(NEEDED)" in dyn and "Shared library: [libDslPythonCAPI.so]" in dyn:
            linking.append(so.name)
            assert re.search(r"\((?:RUNPATH|RPATH)\).*\$ORIGIN", dyn), so.name
    # the core extension and the execution engine at least load the aggregate
    assert any(n.startswith("_mlir.") for n in linking), linking
    assert any(n.startswith("_mlirExecutionEngine.") for n in linking), linking


def test_lean_registration(ctx: ir.Context) -> None:
    registered = {"builtin", "func", "arith", "math", "scf", "cf", "memref", "tensor",
                  "linalg", "vector", "llvm", "dsl"}
    for name in registered:
        assert ctx.is_registered_operation(f"{name}.{_some_op(name)}"), name
    # Everything-registration would bring these; a lean context does not.
    assert not ctx.is_registered_operation("tosa.add")
    assert not ctx.is_registered_operation("spirv.IAdd")


def _some_op(dialect: str) -> str:
    return {"builtin": "module", "func": "func", "arith": "addf", "math": "exp", "scf": "for",
            "cf": "br", "memref": "alloc", "tensor": "empty", "linalg": "generic",
            "vector": "broadcast", "llvm": "add", "dsl": "add"}[dialect]


def test_dsl_opt_console_command_runs() -> None:
    search = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    exe = shutil.which("dsl-opt", path=search)
    assert exe is not None
    out = subprocess.run([exe, "--show-dialects"], check=True, capture_output=True, text=True).stdout
    dialects = out.split(":", 1)[1].strip().split(",")
    assert {"dsl", "linalg", "func", "arith", "llvm"} <= set(dialects)
    assert "tosa" not in dialects
