"""The one module of dsl_parser that imports dsl-mlir (the private MLIR bindings).

Everything else imports ``ir``, the dialect modules and the helpers from here.
The version of dsl-mlir is checked before this module runs (``_compat``).
dsl-mlir ships no type information, so the MLIR classes are typed as ``Any``
through the aliases below.
"""

from __future__ import annotations

from typing import Any

import dsl_mlir as _dsl_mlir
from dsl_mlir import Diagnostic as Diagnostic
from dsl_mlir import MLIRDiagnosticError as MLIRDiagnosticError

ir: Any = _dsl_mlir.ir
arith: Any = _dsl_mlir.dialects.arith
dsl: Any = _dsl_mlir.dialects.dsl
func: Any = _dsl_mlir.dialects.func
gpu: Any = _dsl_mlir.dialects.gpu
memref: Any = _dsl_mlir.dialects.memref
scf: Any = _dsl_mlir.dialects.scf
tensor: Any = _dsl_mlir.dialects.tensor
vector: Any = _dsl_mlir.dialects.vector

verify: Any = _dsl_mlir.verify
parse_module: Any = _dsl_mlir.parse_module
new_context: Any = _dsl_mlir.context
MLIR_VERSION: str = _dsl_mlir.MLIR_VERSION
DSL_MLIR_VERSION: str = _dsl_mlir.__version__

# Aliases for annotations (the bindings are untyped).
Context = Any
Location = Any
Module = Any
Operation = Any
Type = Any
Value = Any
Block = Any

#: Size value MLIR uses for a dynamic dimension (``?``).
DYNAMIC_SIZE: int = ir.ShapedType.get_dynamic_size()

_DEFAULT: list[Any] = []


def irdl() -> Any:
    """The ``irdl`` dialect module (imported on first use: only extensions need it)."""
    return _dsl_mlir.dialects.irdl


def default_context() -> Context:
    """The package-owned context used when no ``context=`` is passed (created once)."""
    if not _DEFAULT:
        _DEFAULT.append(new_context())
    return _DEFAULT[0]
