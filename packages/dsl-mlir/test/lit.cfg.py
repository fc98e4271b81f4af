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
