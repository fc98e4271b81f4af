"""The one module of dsl_parser that imports dsl-mlir (the private MLIR bindings).

Everything else imports ``ir``, the dialect modules and the helpers from here.
dsl-mlir ships no type information, so the MLIR classes are typed as ``Any``
through the aliases below.
"""

from __future__ import annotations

from typing import Any

import dsl_mlir as _dsl_mlir
from dsl_mlir import MLIRDiagnosticError as MLIRDiagnosticError

from ._version import DSL_MLIR_RANGE


def _check_version(version: str) -> None:
    """Fail at import with a clear message when dsl-mlir is out of range (like jax/jaxlib)."""
    try:
        found = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return
    low, high = DSL_MLIR_RANGE
    if not low <= found < high:
        raise ImportError(
            f"dsl-parser needs dsl-mlir>={low[0]}.{low[1]},<{high[0]}.{high[1]}, "
            f"found dsl-mlir {version}; install a compatible dsl-mlir"
        )


_check_version(_dsl_mlir.__version__)

ir: Any = _dsl_mlir.ir
arith: Any = _dsl_mlir.dialects.arith
dsl: Any = _dsl_mlir.dialects.dsl
func: Any = _dsl_mlir.dialects.func
scf: Any = _dsl_mlir.dialects.scf
tensor: Any = _dsl_mlir.dialects.tensor

verify: Any = _dsl_mlir.verify
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


def default_context() -> Context:
    """The package-owned context used when no ``context=`` is passed (created once)."""
    if not _DEFAULT:
        _DEFAULT.append(new_context())
    return _DEFAULT[0]
