"""lit configuration for the dsl dialect and pass tests (FileCheck)."""

import os
import shutil
import sysconfig

import lit.formats

config.name = "dsl-mlir"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["lit.cfg.py"]  # noqa: F821


def _find(tool: str, param: str, extra_dirs: list[str]) -> str:
    explicit = lit_config.params.get(param)  # noqa: F821
    if explicit:
        return explicit
    for d in extra_dirs:
        cand = os.path.join(d, tool)
        if os.path.exists(cand):
            return cand
    found = shutil.which(tool)
    if not found:
        lit_config.fatal(f"{tool} not found: pass --param {param}=PATH")  # noqa: F821
    return found


_site = sysconfig.get_paths()["purelib"]
dsl_opt = _find("dsl-opt", "dsl_opt", [])
filecheck = _find("FileCheck", "filecheck", [os.path.join(_site, "llvm", "bin")])
not_tool = _find("not", "not_tool", [os.path.join(_site, "llvm", "bin")])
config.substitutions.append(("dsl-opt", dsl_opt))  # noqa: F821
config.substitutions.append(("FileCheck", filecheck))  # noqa: F821
config.substitutions.append(("%not", not_tool))  # noqa: F821
