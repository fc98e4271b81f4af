"""dsl-runtime: ``@jit`` on the CPU for the dsl toolkit.

.. code-block:: python

    import numpy as np
    import dsl_parser.language as pl
    from dsl_runtime import jit

    N = pl.dynamic("N")

    @jit
    def scale_add(x: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        return pl.add(pl.mul(x, x), y)

    z = scale_add(np.ones(1000, np.float32), np.arange(1000, dtype=np.float32))

Importing this package is cheap: dsl-parser and dsl-mlir are imported at the
first compile.
"""

from __future__ import annotations

import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._compat import check_siblings as _check_siblings
from ._version import __version__ as __version__

#: Why the sibling check failed, when this process is ``dsl doctor`` (which reports it
#: instead of dying with the ImportError it exists to diagnose).
SIBLING_ERROR: ImportError | None = None
try:
    _check_siblings()
except ImportError as _err:
    _command = _sys.argv[0].replace("\\", "/").rsplit("/", 1)[-1]
    if _sys.argv[1:2] != ["doctor"] or _command not in ("dsl", "cli.py", "-m"):
        raise
    SIBLING_ERROR = _err

from . import adapters as _adapters  # noqa: E402
from . import logs as _logs  # noqa: E402
from .abi import KernelABI as KernelABI  # noqa: E402
from .compiled import CompiledFunction as CompiledFunction  # noqa: E402
from .device import DeviceArray as DeviceArray  # noqa: E402
from .errors import CompileError as CompileError  # noqa: E402
from .jit import JitFunction as JitFunction  # noqa: E402
from .jit import compile as compile  # noqa: E402
from .jit import jit as jit  # noqa: E402
from .options import CompileOptions as CompileOptions  # noqa: E402
from .shared_cache import configure_cache as configure_cache  # noqa: E402
from .shared_cache import stats as cache_stats  # noqa: E402
from .tuning import Autotuner as Autotuner  # noqa: E402
from .tuning import autotune as autotune  # noqa: E402

if _TYPE_CHECKING:  # at run time, imported on first use (__getattr__)
    from .aot import export as export

_adapters.register()
_logs.configure_from_env()


def __getattr__(name: str) -> object:
    """``dsl_runtime.kernel``: dsl-parser's ``pl.kernel``; ``dsl_runtime.export``: the
    ahead-of-time export (``dsl_runtime.aot``); both imported on first use."""
    if name == "kernel":
        from dsl_parser.language import kernel

        return kernel
    if name == "export":
        from .aot import export

        return export
    raise AttributeError(f"module 'dsl_runtime' has no attribute {name!r}")


__all__ = ["Autotuner", "CompileError", "CompileOptions", "CompiledFunction", "DeviceArray",
           "JitFunction", "KernelABI", "__version__", "autotune", "cache_stats", "compile",
           "configure_cache", "export", "jit", "kernel"]
