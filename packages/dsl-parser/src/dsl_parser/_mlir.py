"""The one module of dsl_parser that imports dsl-mlir (the private MLIR bindings).

Everything else imports ``ir``, the dialect modules and the helpers from here.
The version of dsl-mlir is checked before this module runs (``_compat``).
dsl-mlir ships no type information, so the MLIR classes are typed as ``Any``
through the aliases below.
"""

from __future__ import annotations

import importlib
from typing import Any

import dsl_mlir as _dsl_mlir  # cheap: the bindings load on first use of ir/dialects
from dsl_mlir import Diagnostic as Diagnostic
from dsl_mlir import MLIRDiagnosticError as MLIRDiagnosticError


class _OnUse:
    """A module of the MLIR bindings imported on its first attribute access (then each
    attribute read is cached on this object): importing the parser (``import
    dsl_parser.language as pl`` in a user's file) loads no native code."""

    def __init__(self, module: str) -> None:
        self._module_name = module

    def __getattr__(self, name: str) -> Any:
        value = getattr(importlib.import_module(self._module_name), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"<{self._module_name}, imported on use>"


class LateOp:
    """An op class of a dialect module looked up at its first construction, for the tables
    built at import time (``LateOp(dsl, "AddOp")(result_type, lhs, rhs, loc=..., ip=...)``)."""

    __slots__ = ("_class", "_dialect", "_name")

    def __init__(self, dialect: Any, name: str) -> None:
        self._dialect, self._name = dialect, name
        self._class: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._class is None:
            self._class = getattr(self._dialect, self._name)
        return self._class(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<op class {self._name}, looked up on use>"


ir: Any = _OnUse("dsl_mlir.ir")
arith: Any = _OnUse("dsl_mlir._mlir.dialects.arith")
dsl: Any = _OnUse("dsl_mlir._mlir.dialects.dsl")
func: Any = _OnUse("dsl_mlir._mlir.dialects.func")
gpu: Any = _OnUse("dsl_mlir._mlir.dialects.gpu")
memref: Any = _OnUse("dsl_mlir._mlir.dialects.memref")
scf: Any = _OnUse("dsl_mlir._mlir.dialects.scf")
tensor: Any = _OnUse("dsl_mlir._mlir.dialects.tensor")
vector: Any = _OnUse("dsl_mlir._mlir.dialects.vector")


def verify(module: Any) -> None:
    """``dsl_mlir.verify``."""
    _dsl_mlir.verify(module)


def parse_module(text: str, ctx: Any = None) -> Any:
    """``dsl_mlir.parse_module``."""
    return _dsl_mlir.parse_module(text, ctx)


def new_context() -> Any:
    """``dsl_mlir.context()``: a new context with the toolkit's dialects."""
    return _dsl_mlir.context()


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

#: Size value MLIR uses for a dynamic dimension (``?``): ``ShapedType::kDynamic``, the
#: smallest int64 (a test checks it against ``ir.ShapedType.get_dynamic_size()``).
DYNAMIC_SIZE: int = -(2**63)

_DEFAULT: list[Any] = []


def irdl() -> Any:
    """The ``irdl`` dialect module (imported on first use: only extensions need it)."""
    return _dsl_mlir.dialects.irdl


def default_context() -> Context:
    """The package-owned context used when no ``context=`` is passed (created once)."""
    if not _DEFAULT:
        _DEFAULT.append(new_context())
    return _DEFAULT[0]
