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

from ._errors import Diagnostic as Diagnostic
from ._errors import MLIRDiagnosticError as MLIRDiagnosticError
from ._errors import PluginError as PluginError
from ._lib import ASYNC_RUNTIME as ASYNC_RUNTIME
from ._lib import CAPI_LIBRARY as CAPI_LIBRARY
from ._lib import GPU_RUNTIME as GPU_RUNTIME
from ._lib import PLUGIN_ABI_VERSION as PLUGIN_ABI_VERSION
from ._lib import dialects as dialects
from ._lib import execution_engine as execution_engine
from ._lib import ir as ir
from ._lib import passmanager as passmanager
from ._lib import runtime as runtime
from ._paths import get_cmake_dir as get_cmake_dir
from ._paths import get_include_dir as get_include_dir
from ._tools import dsl_opt_path as dsl_opt_path
from ._version import DIALECT_VERSION as DIALECT_VERSION
from ._version import MLIR_VERSION as MLIR_VERSION
from ._version import __version__ as __version__
from .api import ERROR_HOOK_SYMBOL as ERROR_HOOK_SYMBOL
from .api import FAST_LLVM_PASSES as FAST_LLVM_PASSES
from .api import PluginInfo as PluginInfo
from .api import context as context
from .api import install_error_hook as install_error_hook
from .api import jit as jit
from .api import load_plugin as load_plugin
from .api import loaded_plugins as loaded_plugins
from .api import lower as lower
from .api import native_build_id as native_build_id
from .api import parse_module as parse_module
from .api import pipeline_names as pipeline_names
from .api import raise_pending_error as raise_pending_error
from .api import to_llvm_ir as to_llvm_ir
from .api import verify as verify

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
    "to_llvm_ir",
    "verify",
]
