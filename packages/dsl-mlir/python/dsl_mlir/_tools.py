"""Console entry points installed with the package."""

from __future__ import annotations

import os
import sys

from ._compiled import LIBS_DIR


def dsl_opt_path() -> str:
    """Path of the dsl-opt executable shipped in this package."""
    return os.path.join(LIBS_DIR, "dsl-opt")


def dsl_opt_main() -> None:
    """Run dsl-opt (mlir-opt with the dsl dialect and passes) with our argv."""
    path = dsl_opt_path()
    os.execv(path, [path, *sys.argv[1:]])
