"""``dsl_mlir.execution_engine``: the MLIR bindings' ``execution_engine`` module.

This file only makes the name importable before the bindings are loaded; importing it
replaces it, in ``sys.modules``, by the module itself.
"""

from __future__ import annotations

import sys
from typing import Any

from ._lib import execution_engine as _module

sys.modules[__name__] = _module


def __getattr__(name: str) -> Any:  # for type checkers: the module's attributes are untyped
    return getattr(_module, name)
