"""C++ plugins: the installed CMake package, dsl_mlir.load_plugin, dsl-opt's plugin options.

The example plugin (examples/cpp-plugin: dialect `myext`, op `myext.square`, pass
`myext-lower-square`) is built once per session by the `cpp_plugin` fixture (conftest.py);
it is loaded in subprocesses, so that its dialect stays out of this process's contexts.
The refused libraries are tiny C libraries built with `cc -shared`.
"""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import dsl_mlir
from dsl_mlir import dsl_opt_path

SOURCE = """
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = myext.square %x : tensor<?xf32>
  %1 = dsl.add %0, %y : tensor<?xf32>
  return %1 : tensor<?xf32>
}
"""

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=120)


# --- the installed development files ------------------------------------------------


def test_cmake_dir_prints_the_package_config_folder() -> None:
    proc = subprocess.run([sys.executable, "-m", "dsl_mlir.cmake_dir"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    folder = pathlib.Path(proc.stdout.strip())
    assert folder == pathlib.Path(dsl_mlir.get_cmake_dir())
    assert (folder / "DslMLIRConfig.cmake").is_file()
    assert (folder / "DslMLIRConfigVersion.cmake").is_file()
    config = (folder / "DslMLIRConfig.cmake").read_text()
    assert f"dsl-mlir {dsl_mlir.__version__}" in config and "add_dsl_mlir_plugin" in config


def test_headers_are_installed_with_the_release() -> None:
    include = pathlib.Path(dsl_mlir.get_include_dir())
    for header in ("dsl/Plugin.h", "dsl/Version.h", "dsl-c/Dsl.h", "dsl/Dialect/Dsl/IR/DslDialect.h",
                   "dsl/Dialect/Dsl/IR/DslOps.h.inc", "dsl/Dialect/Dsl/IR/DslOps.td", "dsl/Conversion/Passes.h"):
        assert (include / header).is_file(), header
    version_h = (include / "dsl" / "Version.h").read_text()
    assert f'#define DSL_MLIR_ABI_VERSION "{dsl_mlir.PLUGIN_ABI_VERSION}"' in version_h


def test_plugin_abi_version_names_release_and_mlir() -> None:
    expected = f"dsl-mlir {dsl_mlir.__version__} (MLIR {dsl_mlir.MLIR_VERSION})"
    assert expected == dsl_mlir.PLUGIN_ABI_VERSION


# --- the example plugin ---------------------------------------------------------------


def test_plugin_links_only_the_aggregate_and_exports_its_entry_points(cpp_plugin: pathlib.Path) -> None:
    if shutil.which("readelf") is None or shutil.which("nm") is None:
        pytest.skip("binutils not installed")
    dyn = subprocess.run(["readelf", "-d", str(cpp_plugin)], check=True, capture_output=True, text=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn))
    # MLIR and LLVM come from the aggregate only: no libMLIR*.so, libLLVM*.so, static copies.
    assert "libDslPythonCAPI.so" in needed
    assert needed <= {"libDslPythonCAPI.so", "libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libc.so.6"}
    out = subprocess.run(["nm", "-D", "--defined-only", str(cpp_plugin)], check=True,
                         capture_output=True, text=True).stdout
    exported = {line.split()[-1] for line in out.splitlines() if line.strip()}
    assert exported == {"mlirGetDialectPluginInfo", "mlirGetPassPluginInfo", "dslPluginAbiVersion"}


def test_plugin_dialect_parses_and_verifies_in_old_and_new_contexts(cpp_plugin: pathlib.Path) -> None:
    proc = _python("""
        import sys, dsl_mlir
        from dsl_mlir import ir
        before = dsl_mlir.context()                     # made before the plugin is loaded
        info = dsl_mlir.load_plugin(sys.argv[1])
        print(info.name, info.version, info.dialects, info.passes)
        src = sys.argv[2]
        for ctx in (before, dsl_mlir.context(), ir.Context()):
            module = dsl_mlir.parse_module(src, ctx)
            dsl_mlir.verify(module)
            assert "myext.square %arg0 : tensor<?xf32>" in str(module), module
        bad = (
            "func.func @g(%x: tensor<4xi32>) -> tensor<4xi32> {"
            "  %0 = myext.square %x : tensor<4xi32>"
            "  return %0 : tensor<4xi32>"
            "}")
        try:
            dsl_mlir.parse_module(bad, dsl_mlir.context())
        except dsl_mlir.MLIRDiagnosticError as err:
            print("REFUSED", err)
        print("OK")
    """, str(cpp_plugin), SOURCE)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "myext 0.1.0 True True" in proc.stdout
    assert "REFUSED" in proc.stdout
    assert "'myext.square' op operand #0 must be ranked tensor of floating-point" in proc.stdout
    assert proc.stdout.rstrip().endswith("OK")


def test_plugin_pass_rewrites_square_into_dsl_mul(cpp_plugin: pathlib.Path) -> None:
    proc = _python("""
        import sys, dsl_mlir
        dsl_mlir.load_plugin(sys.argv[1])
        with dsl_mlir.context():
            module = dsl_mlir.parse_module(sys.argv[2])
            print(dsl_mlir.lower(module, "myext-lower-square"))
            print("INPUT", module)                   # lower() leaves its input alone
    """, str(cpp_plugin), SOURCE)
    assert proc.returncode == 0, proc.stderr[-4000:]
    lowered, _, original = proc.stdout.partition("INPUT")
    assert "dsl.mul %arg0, %arg0 : tensor<?xf32>" in lowered and "myext.square" not in lowered
    assert "myext.square" in original


def test_shared_context_and_its_kept_pass_manager_see_a_plugin_loaded_later(
        cpp_plugin: pathlib.Path) -> None:
    proc = _python("""
        import sys, dsl_mlir
        plain = "func.func @g(%x: tensor<?xf32>) -> tensor<?xf32> {" \\
                "  %0 = dsl.add %x, %x : tensor<?xf32>  return %0 : tensor<?xf32> }"
        ctx = dsl_mlir.shared_context()                 # made and used before the load
        before = str(dsl_mlir.lower(dsl_mlir.parse_module(plain, ctx)))
        dsl_mlir.load_plugin(sys.argv[1])
        assert dsl_mlir.shared_context() is ctx
        module = dsl_mlir.parse_module(sys.argv[2], ctx)
        print(dsl_mlir.lower(module, "myext-lower-square"))
        lowered = dsl_mlir.lower(module, "myext-lower-square,dsl-to-llvm-cpu")
        assert "llvm.func @_mlir_ciface_f" in str(lowered), lowered
        assert str(dsl_mlir.lower(dsl_mlir.parse_module(plain, ctx))) == before
        print("OK")
    """, str(cpp_plugin), SOURCE)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "dsl.mul %arg0, %arg0 : tensor<?xf32>" in proc.stdout
    assert proc.stdout.rstrip().endswith("OK")


def test_plugin_jit_result_equals_numpy(cpp_plugin: pathlib.Path) -> None:
    # The example script itself: load, myext-lower-square + dsl-to-llvm-cpu, JIT, compare with numpy.
    script = pathlib.Path(__file__).resolve().parents[3] / "examples" / "cpp-plugin" / "run_plugin.py"
    proc = subprocess.run([sys.executable, str(script), str(cpp_plugin)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "myext.square(x) + y =" in proc.stdout


def test_loading_twice_changes_nothing(cpp_plugin: pathlib.Path) -> None:
    proc = _python("""
        import os, sys, dsl_mlir
        first = dsl_mlir.load_plugin(sys.argv[1])
        again = dsl_mlir.load_plugin(os.path.relpath(sys.argv[1]))  # another spelling, same library
        assert again == first and first.name == "myext", (first, again)
        assert dsl_mlir.loaded_plugins() == [first]
        with dsl_mlir.context():
            m = dsl_mlir.lower(dsl_mlir.parse_module(sys.argv[2]), "myext-lower-square")
        print("OK", "dsl.mul" in str(m))
    """, str(cpp_plugin), SOURCE)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "OK True" in proc.stdout


def test_dsl_opt_loads_dialect_and_pass_plugins(cpp_plugin: pathlib.Path, tmp_path: pathlib.Path) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(SOURCE)
    pipeline = "--pass-pipeline=builtin.module(myext-lower-square)"
    for loads in ([f"--load-dialect-plugin={cpp_plugin}", f"--load-pass-plugin={cpp_plugin}"],
                  ["--load-dialect-plugin", str(cpp_plugin), "-load-pass-plugin", str(cpp_plugin)]):
        proc = subprocess.run([dsl_opt_path(), *loads, pipeline, str(source)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert "dsl.mul %arg0, %arg0" in proc.stdout and "myext.square" not in proc.stdout
    # Without the plugin the op is unknown.
    proc = subprocess.run([dsl_opt_path(), str(source)], capture_output=True, text=True)
    assert proc.returncode != 0 and "myext" in proc.stderr


def test_dsl_opt_refuses_a_missing_plugin() -> None:
    proc = subprocess.run([dsl_opt_path(), "--load-dialect-plugin=/nonexistent/libX.so", "--show-dialects"],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "dsl-opt: error: dsl-mlir plugin '/nonexistent/libX.so' does not exist" in proc.stderr


# --- refused libraries ----------------------------------------------------------------

# The upstream entry point's struct, in C.
FAKE_PLUGIN = r"""
#include <stdint.h>
typedef struct { uint32_t apiVersion; const char *name; const char *version; void (*cb)(void *); } Info;
static void registerNothing(void *registry) { (void)registry; }
#ifndef API
#define API 1
#endif
Info mlirGetDialectPluginInfo(void) { Info info = {API, "fake", "1.0", registerNothing}; return info; }
#ifdef STAMP
const char *dslPluginAbiVersion(void) { return STAMP; }
#endif
"""


def _cc(tmp: pathlib.Path, name: str, source: str, *flags: str) -> pathlib.Path:
    (tmp / f"{name}.c").write_text(source)
    out = tmp / f"lib{name}.so"
    proc = subprocess.run(["cc", "-shared", "-fPIC", "-o", str(out), str(tmp / f"{name}.c"), *flags],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


def _refused(path: pathlib.Path | str) -> str:
    with pytest.raises(dsl_mlir.PluginError) as info:
        dsl_mlir.load_plugin(path)
    return str(info.value)


def test_missing_file_and_directory_are_refused(tmp_path: pathlib.Path) -> None:
    message = _refused(tmp_path / "libnothing.so")
    assert message == f"dsl-mlir plugin '{tmp_path / 'libnothing.so'}' does not exist"
    assert "is a directory" in _refused(tmp_path)


def test_a_file_that_is_not_a_library_is_refused(tmp_path: pathlib.Path) -> None:
    (tmp_path / "libtext.so").write_text("not an ELF file\n" * 100)
    message = _refused(tmp_path / "libtext.so")
    assert message.startswith(f"cannot load dsl-mlir plugin '{tmp_path / 'libtext.so'}': ")
    assert "ELF" in message


@needs_cc
def test_a_library_without_entry_point_is_refused(tmp_path: pathlib.Path) -> None:
    lib = _cc(tmp_path, "plain", "int answer(void) { return 42; }\n")
    assert _refused(lib) == (f"'{lib}' is not a dsl-mlir plugin: it exports neither mlirGetDialectPluginInfo "
                             "nor mlirGetPassPluginInfo (declare them with DSL_MLIR_PLUGIN_EXPORT from dsl/Plugin.h)")


@needs_cc
def test_a_plugin_without_release_stamp_is_refused(tmp_path: pathlib.Path) -> None:
    lib = _cc(tmp_path, "nostamp", FAKE_PLUGIN)
    message = _refused(lib)
    assert "does not record the dsl-mlir release it was built against (dslPluginAbiVersion)" in message
    assert 'include "dsl/Plugin.h"' in message


@needs_cc
def test_a_plugin_of_another_release_is_refused_naming_both(tmp_path: pathlib.Path) -> None:
    lib = _cc(tmp_path, "old", FAKE_PLUGIN, '-DSTAMP="dsl-mlir 0.0.1 (MLIR 21.1.0)"')
    assert _refused(lib) == (f"dsl-mlir plugin '{lib}' was built against dsl-mlir 0.0.1 (MLIR 21.1.0), but this "
                             f"process runs {dsl_mlir.PLUGIN_ABI_VERSION}; rebuild the plugin against "
                             f"dsl-mlir {dsl_mlir.__version__}")


@needs_cc
def test_a_plugin_linked_against_another_release_is_refused_naming_both(tmp_path: pathlib.Path) -> None:
    # The library exports every symbol under the version node DSLMLIR_<release>: a plugin
    # linked against another release needs a node this one lacks, and cannot even be loaded.
    stub_dir = tmp_path / "stub"
    stub_dir.mkdir()
    (stub_dir / "stub.map").write_text("DSLMLIR_0.0.1 { global: dslRegisterPasses; local: *; };\n")
    _cc(stub_dir, "stub", "void dslRegisterPasses(void) {}\n", f"-Wl,--version-script={stub_dir / 'stub.map'}",
        "-Wl,-soname,libDslPythonCAPI.so")
    (stub_dir / "libstub.so").rename(stub_dir / "libDslPythonCAPI.so")
    source = FAKE_PLUGIN + "void dslRegisterPasses(void);\nvoid touch(void) { dslRegisterPasses(); }\n"
    lib = _cc(tmp_path, "linkedold", source, '-DSTAMP="dsl-mlir 0.0.1 (MLIR 22.1.8)"',
              str(stub_dir / "libDslPythonCAPI.so"))
    message = _refused(lib)
    assert message.startswith(f"dsl-mlir plugin '{lib}' was built against dsl-mlir 0.0.1, but this process runs "
                              f"{dsl_mlir.PLUGIN_ABI_VERSION}; rebuild the plugin against dsl-mlir "
                              f"{dsl_mlir.__version__}")
    assert "version `DSLMLIR_0.0.1' not found" in message


@needs_cc
def test_another_plugin_api_version_is_refused(tmp_path: pathlib.Path) -> None:
    lib = _cc(tmp_path, "api9", FAKE_PLUGIN, "-DAPI=9", f'-DSTAMP="{dsl_mlir.PLUGIN_ABI_VERSION}"')
    assert _refused(lib) == (f"dsl-mlir plugin '{lib}' uses MLIR plugin API version 9 in mlirGetDialectPluginInfo; "
                             "this MLIR supports version 1")


@needs_cc
def test_a_symbol_dsl_mlir_does_not_export_is_named_demangled(tmp_path: pathlib.Path) -> None:
    source = FAKE_PLUGIN + "void _ZN4mlir4tosa7missingEv(void);\nvoid touch(void) { _ZN4mlir4tosa7missingEv(); }\n"
    lib = _cc(tmp_path, "undef", source, f'-DSTAMP="{dsl_mlir.PLUGIN_ABI_VERSION}"')
    message = _refused(lib)
    assert "undefined symbol: _ZN4mlir4tosa7missingEv" in message
    assert "[mlir::tosa::missing()]" in message and "exports the MLIR/LLVM code it contains" in message


@needs_cc
def test_dsl_opt_refuses_a_plugin_of_another_release(tmp_path: pathlib.Path) -> None:
    lib = _cc(tmp_path, "old", FAKE_PLUGIN, '-DSTAMP="dsl-mlir 0.0.1 (MLIR 22.1.8)"')
    proc = subprocess.run([dsl_opt_path(), f"--load-pass-plugin={lib}", "--show-dialects"],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "built against dsl-mlir 0.0.1 (MLIR 22.1.8)" in proc.stderr
    assert dsl_mlir.PLUGIN_ABI_VERSION in proc.stderr


# --- paths that are not plugin files, plugins of the wrong kind (issue 12) -----------------

LOAD_IN_CHILD = """
import sys, dsl_mlir
try:
    dsl_mlir.load_plugin(sys.argv[1])
except dsl_mlir.PluginError as err:
    print("REFUSED", err)
"""


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_load_plugin_refuses_what_is_not_a_regular_file(tmp_path: pathlib.Path, kind: str) -> None:
    # dlopen of a FIFO blocked forever, /dev/zero fed it without end: checked first, in a
    # child with a timeout (a hang would otherwise stop the test run).
    if kind == "fifo":
        path, what = tmp_path / "libfifo.so", "is not a regular file (a FIFO), not a shared library"
        import os

        os.mkfifo(path)
    elif kind == "dev-zero":
        path, what = pathlib.Path("/dev/zero"), "is not a regular file (a character device), not a shared library"
    else:
        path, what = tmp_path, "is a directory, not a shared library"
    proc = _python(LOAD_IN_CHILD, str(path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == f"REFUSED dsl-mlir plugin '{path}' {what}"


@needs_cc
@pytest.mark.parametrize("option", ["--load-pass-plugin", "--load-dialect-plugin"])
def test_dsl_opt_refuses_a_plugin_of_the_wrong_kind(tmp_path: pathlib.Path, option: str) -> None:
    # FAKE_PLUGIN exports only the dialect entry point; the pass one comes from renaming it.
    source = FAKE_PLUGIN if option == "--load-pass-plugin" else FAKE_PLUGIN.replace(
        "mlirGetDialectPluginInfo", "mlirGetPassPluginInfo")
    lib = _cc(tmp_path, "onekind", source, f'-DSTAMP="{dsl_mlir.PLUGIN_ABI_VERSION}"')
    proc = subprocess.run([dsl_opt_path(), f"{option}={lib}", "--show-dialects"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1, proc.stderr  # upstream's loader aborted here
    has, lacks, other = (("mlirGetDialectPluginInfo", "mlirGetPassPluginInfo", "--load-dialect-plugin")
                         if option == "--load-pass-plugin" else
                         ("mlirGetPassPluginInfo", "mlirGetDialectPluginInfo", "--load-pass-plugin"))
    kind = "dialect" if option == "--load-pass-plugin" else "pass"
    assert proc.stderr.strip() == (f"dsl-opt: error: '{lib}' is a {kind} plugin: it exports {has} but not {lacks}, "
                                   f"which {option} needs; load it with {other}")
    # The right option loads it.
    ok = subprocess.run([dsl_opt_path(), f"{other}={lib}", "--show-dialects"], capture_output=True, text=True,
                        timeout=60)
    assert ok.returncode == 0, ok.stderr
