"""The one module of dsl_mlir that imports the native private MLIR package.

Other modules (and other layers) import ``ir``, ``passmanager``,
``execution_engine`` and ``dialects`` from here or from ``dsl_mlir``.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from ._mlir import execution_engine as execution_engine
from ._mlir import ir as ir
from ._mlir import passmanager as passmanager
from ._mlir._mlir_libs import _site_initialize_0 as _dsl_native
from ._mlir._mlir_libs import get_dialect_registry as get_dialect_registry

#: Dialect modules available under ``dsl_mlir.dialects``.
DIALECTS = (
    "affine", "arith", "bufferization", "builtin", "cf", "dsl", "func", "gpu",
    "index", "irdl", "linalg", "llvm", "math", "memref", "nvvm", "pdl", "scf",
    "tensor", "ub", "vector",
)


class _Dialects(ModuleType):
    """Lazy view of ``dsl_mlir._mlir.dialects``: ``dialects.arith`` etc."""

    def __getattr__(self, name: str) -> ModuleType:
        if name not in DIALECTS:
            raise AttributeError(
                f"dsl_mlir.dialects has no dialect {name!r}; available: {', '.join(DIALECTS)}"
            )
        module = importlib.import_module(f"dsl_mlir._mlir.dialects.{name}")
        setattr(self, name, module)
        return module

    def __dir__(self) -> list[str]:
        return list(DIALECTS)


dialects = _Dialects("dsl_mlir.dialects", "Dialect modules of the private MLIR.")

# `from dsl_mlir.ir import Context`, `from dsl_mlir.dialects import arith`:
# public aliases of the private modules (the same module objects, so op classes
# are registered once). ``dsl_mlir.runtime`` (numpy <-> memref helpers, which import
# ml_dtypes: slow) is its own module, imported on use.
for _alias, _module in (("ir", ir), ("passmanager", passmanager),
                        ("execution_engine", execution_engine), ("dialects", dialects)):
    sys.modules.setdefault(f"dsl_mlir.{_alias}", _module)


def checked_invoke(engine: execution_engine.ExecutionEngine, name: str, *ctypes_args: object) -> None:
    """``engine.invoke(name, *ctypes_args)`` (pointers to the arguments and results of
    the C interface of ``name``), then raise what the code's run-time checks recorded
    during the call (IndexError, ValueError)."""
    from ._compiled import raise_pending_error
    from ._dispatch import clear_pending_error

    clear_pending_error()
    execution_engine.ExecutionEngine.invoke(engine, name, *ctypes_args)
    raise_pending_error()


def _give_engines_their_methods() -> None:
    """Engines made from a capsule (``create_engine``) are instances of the native class,
    which lacks the Python class's ``lookup``, ``invoke`` and ``register_runtime``: the
    native class of this private MLIR gets them, ``invoke`` raising the run-time checks'
    errors as ``dsl_mlir.jit``'s engines do."""
    native = execution_engine.ExecutionEngine.__mro__[1]
    native.lookup = execution_engine.ExecutionEngine.lookup
    native.register_runtime = execution_engine.ExecutionEngine.register_runtime
    native.invoke = checked_invoke


_give_engines_their_methods()


def create_engine(module: ir.Module, llvm_passes: str, codegen_opt_level: int,
                  shared_libs: list[str], object_dump: bool) -> execution_engine.ExecutionEngine:
    """An ExecutionEngine whose LLVM IR pipeline is ``llvm_passes`` (new-PM text)."""
    capsule = _dsl_native.create_engine(module, llvm_passes, codegen_opt_level, shared_libs, object_dump)
    return execution_engine.ExecutionEngine._CAPICreate(capsule)


def emit_assembly(llvm_ir: str, llvm_passes: str, codegen_opt_level: int) -> str:
    """The host assembly of LLVM IR text, optimized by ``llvm_passes`` (new-PM text; empty:
    LLVM's default pipeline at the level) and compiled at ``codegen_opt_level`` as the
    JIT does (RuntimeError with LLVM's message on failure)."""
    text: str = _dsl_native.emit_assembly(llvm_ir, llvm_passes, codegen_opt_level)
    return text


def lookup_symbol(engine: execution_engine.ExecutionEngine, name: str) -> int:
    """The address of ``name`` (a function or a global, as spelled in the module; unlike
    ``raw_lookup``, without the ``_mlir_`` prefix of packed wrappers) in ``engine``; 0
    when it has none."""
    address: int = _dsl_native.lookup_symbol(engine, name)
    return address


#: The release plugins must have been built against ("dsl-mlir X.Y.Z (MLIR A.B.C)").
PLUGIN_ABI_VERSION: str = _dsl_native.plugin_abi_version()

#: What load_plugin_library returns: (error, name, version, has_dialects, has_passes, already_loaded).
PluginResult = tuple[str | None, str | None, str | None, bool, bool, bool]


def load_plugin_library(path: str) -> PluginResult:
    """``dslLoadPlugin``: load and check a plugin, insert its dialects into the
    registry every new Context appends, register its passes (once).

    Never raises for a bad plugin: ``error`` says why it was refused.
    """
    result: PluginResult = _dsl_native.load_plugin(path, get_dialect_registry())
    return result


def translate_to_llvm_ir(module: ir.Module) -> str:
    """LLVM IR text of a module already in the LLVM dialect (RuntimeError with MLIR's
    diagnostics when an op does not translate: upstream's binding crashed on those)."""
    text: str = _dsl_native.translate_to_llvm_ir(module.operation)
    return text
