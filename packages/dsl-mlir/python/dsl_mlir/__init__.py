"""dsl-mlir: a self-contained private MLIR with the ``dsl`` dialect.

Everything MLIR lives under the private namespace ``dsl_mlir._mlir`` (the
upstream Python bindings, built against our one aggregate C API library);
this package re-exports what the other layers use::

    import dsl_mlir
    from dsl_mlir import ir
    from dsl_mlir.dialects import arith, func, dsl

    with dsl_mlir.context(), ir.Location.unknown():
        module = dsl_mlir.parse_module(text)
        lowered = dsl_mlir.lower(module)            # dsl-to-llvm-cpu
        engine = dsl_mlir.jit(lowered)              # ExecutionEngine

C++ dialects and passes come in as plugins (``dsl_mlir.load_plugin(path)``,
built with ``find_package(DslMLIR)``; ``python -m dsl_mlir.cmake_dir`` prints
the folder of its CMake package config). See docs/extending.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._compiled import ASYNC_RUNTIME as ASYNC_RUNTIME
from ._compiled import CAPI_LIBRARY as CAPI_LIBRARY
from ._compiled import ERROR_HOOK_SYMBOL as ERROR_HOOK_SYMBOL
from ._compiled import FAST_LLVM_PASSES as FAST_LLVM_PASSES
from ._compiled import GPU_RUNTIME as GPU_RUNTIME
from ._compiled import install_error_hook as install_error_hook
from ._compiled import native_build_id as native_build_id
from ._compiled import raise_pending_error as raise_pending_error
from ._errors import Diagnostic as Diagnostic
from ._errors import MLIRDiagnosticError as MLIRDiagnosticError
from ._errors import PluginError as PluginError
from ._paths import get_cmake_dir as get_cmake_dir
from ._paths import get_include_dir as get_include_dir
from ._tools import dsl_opt_path as dsl_opt_path
from ._version import DIALECT_VERSION as DIALECT_VERSION
from ._version import MLIR_VERSION as MLIR_VERSION
from ._version import __version__ as __version__

if TYPE_CHECKING:
    from ._lib import PLUGIN_ABI_VERSION as PLUGIN_ABI_VERSION
    from ._lib import dialects as dialects
    from ._lib import execution_engine as execution_engine
    from ._lib import ir as ir
    from ._lib import passmanager as passmanager
    from ._mlir import runtime as runtime
    from .api import PluginInfo as PluginInfo
    from .api import context as context
    from .api import jit as jit
    from .api import load_plugin as load_plugin
    from .api import loaded_plugins as loaded_plugins
    from .api import lower as lower
    from .api import parse_module as parse_module
    from .api import pipeline_names as pipeline_names
    from .api import shared_context as shared_context
    from .api import to_assembly as to_assembly
    from .api import to_llvm_ir as to_llvm_ir
    from .api import verify as verify

#: Names whose module loads the MLIR bindings (the aggregate native library): imported
#: on first use, so that importing dsl_mlir (the dispatcher, a disk-cache hit) stays cheap.
_LAZY = {
    **dict.fromkeys(("PLUGIN_ABI_VERSION", "dialects", "execution_engine", "ir", "passmanager"),
                    "._lib"),
    **dict.fromkeys(("PluginInfo", "context", "jit", "load_plugin", "loaded_plugins", "lower",
                     "parse_module", "pipeline_names", "shared_context", "to_assembly", "to_llvm_ir", "verify"),
                    ".api"),
}


def __getattr__(name: str) -> Any:
    if name == "runtime":
        value: Any = importlib.import_module(".runtime", __name__)
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    else:
        raise AttributeError(f"module 'dsl_mlir' has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "ASYNC_RUNTIME",
    "ERROR_HOOK_SYMBOL",
    "FAST_LLVM_PASSES",
    "DIALECT_VERSION",
    "GPU_RUNTIME",
    "MLIR_VERSION",
    "Diagnostic",
    "MLIRDiagnosticError",
    "PLUGIN_ABI_VERSION",
    "PluginError",
    "PluginInfo",
    "__version__",
    "context",
    "dsl_opt_path",
    "dialects",
    "execution_engine",
    "get_cmake_dir",
    "get_include_dir",
    "install_error_hook",
    "ir",
    "jit",
    "load_plugin",
    "loaded_plugins",
    "lower",
    "parse_module",
    "passmanager",
    "pipeline_names",
    "raise_pending_error",
    "runtime",
    "shared_context",
    "to_assembly",
    "to_llvm_ir",
    "verify",
]
