"""lit configuration for the dsl dialect and pass tests (FileCheck)."""

import os
import shutil
import sysconfig

import lit.formats

config.name = "dsl-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py"]


def _find(tool: str, param: str, extra_dirs: list[str]) -> str:
    explicit = lit_config.params.get(param)
    if explicit:
        return explicit
    for d in extra_dirs:
        cand = os.path.join(d, tool)
        if os.path.exists(cand):
            return cand
    found = shutil.which(tool)
    if not found:
        lit_config.fatal(f"{tool} not found: pass --param {param}=PATH")
    return found


_site = sysconfig.get_paths()["purelib"]
dsl_opt = _find("dsl-opt", "dsl_opt", [])
filecheck = _find("FileCheck", "filecheck", [os.path.join(_site, "llvm", "bin")])
not_tool = _find("not", "not_tool", [os.path.join(_site, "llvm", "bin")])
config.substitutions.append(("dsl-opt", dsl_opt))
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%not", not_tool))

# Tiny C plugins for the dsl-opt plugin tests, linked against the aggregate
# library of the installed package (beside the dsl-opt executable).
_libs = lit_config.params.get("dsl_libs") or os.path.join(_site, "dsl_mlir", "_mlir", "_mlir_libs")
_capi = os.path.join(_libs, "libDslPythonCAPI.so")
_cc = lit_config.params.get("cc") or shutil.which("cc")
config.substitutions.append(("%dsl_libs", _libs))
config.substitutions.append(("%dsl_capi", _capi))
if _cc and os.path.exists(_capi):
    config.available_features.add("cc")
    config.substitutions.append(("%cc", _cc))
