"""Downstream extensions: new ops (and dialects) without rebuilding dsl-mlir.

An installed package publishes ``register(registry)`` in the entry-point group
``dsl.extensions``; ``load()`` (called lazily by the parser, the printer and
the runtime) activates every installed one. ``register`` declares

* a namespace: ``registry.namespace("dx", "downstream_ext.language")``, the
  module users import (``import downstream_ext.language as dx``), which calls
  ``expose("dx", globals())``;
* ops: ``registry.op(composite(...))`` for ops built from existing ones, or
  ``registry.op(custom_op(...))`` for ops of its own dialect;
* IRDL dialects: ``registry.dialect("dext", IRDL_TEXT)``, whose constraints
  verify the ops it defines;
* lowering rules: ``registry.lowering("dext.leaky_relu", fn)``, Python functions
  that rewrite an op into ``dsl``/linalg/arith/tensor ops before dsl-mlir's
  pipeline (``lower_extensions``).

A failing extension is disabled with an ``ExtensionWarning`` that names it.
See docs/extending.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .discovery import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from .discovery import fingerprints as fingerprints
from .discovery import installed as installed

if TYPE_CHECKING:
    from .dialects import ensure_dialect as ensure_dialect
    from .dialects import prepare_context as prepare_context
    from .lowering import lower_extensions as lower_extensions
    from .registry import Extension as Extension
    from .registry import ExtensionRegistry as ExtensionRegistry
    from .registry import ExtensionWarning as ExtensionWarning
    from .registry import LoweringFn as LoweringFn
    from .registry import activate as activate
    from .registry import active as active
    from .registry import code_fingerprint as code_fingerprint
    from .registry import deactivate as deactivate
    from .registry import declared_fingerprint as declared_fingerprint
    from .registry import failures as failures
    from .registry import fingerprint as fingerprint
    from .registry import load as load
    from .registry import namespace_of_module as namespace_of_module
    from .rules import BOOL as BOOL
    from .rules import F64 as F64
    from .rules import I64 as I64
    from .rules import Attr as Attr
    from .rules import composite as composite
    from .rules import custom_op as custom_op
    from .rules import expose as expose
    from .rules import markers as markers

#: Names imported on first use: the registry (its records, the op table, the entry-point
#: machinery), the dialect and lowering helpers (MLIR's dialect modules); a cache key needs
#: only ``.discovery``.
_LAZY = {
    **dict.fromkeys(("Extension", "ExtensionRegistry", "ExtensionWarning", "LoweringFn",
                     "activate", "active", "code_fingerprint", "deactivate",
                     "declared_fingerprint", "failures", "fingerprint", "load",
                     "namespace_of_module"), ".registry"),
    **dict.fromkeys(("ensure_dialect", "prepare_context"), ".dialects"),
    **dict.fromkeys(("lower_extensions",), ".lowering"),
    **dict.fromkeys(("BOOL", "F64", "I64", "Attr", "composite", "custom_op", "expose", "markers"),
                    ".rules"),
}


_SUBMODULES = frozenset({"dialects", "discovery", "lowering", "registry", "rules"})


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name not in _LAZY:
        raise AttributeError(f"module 'dsl_parser.extensions' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "BOOL",
    "ENTRY_POINT_GROUP",
    "F64",
    "I64",
    "Attr",
    "Extension",
    "ExtensionRegistry",
    "ExtensionWarning",
    "LoweringFn",
    "activate",
    "active",
    "code_fingerprint",
    "composite",
    "custom_op",
    "deactivate",
    "declared_fingerprint",
    "ensure_dialect",
    "expose",
    "failures",
    "fingerprint",
    "fingerprints",
    "installed",
    "load",
    "lower_extensions",
    "markers",
    "namespace_of_module",
    "prepare_context",
]
