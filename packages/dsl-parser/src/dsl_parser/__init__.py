"""dsl-parser: Python DSL -> MLIR in the ``dsl`` dialect, and back.

``import dsl_parser.language as pl`` for the DSL itself; this module exports
the error family, the result classes, ``structural_equal`` and the version.
"""

from __future__ import annotations

from ._compat import check_siblings as _check_siblings
from ._version import __version__ as __version__

_check_siblings()  # before dsl-mlir is imported: a clear ImportError when it is out of range

from ._mlir import default_context as default_context  # noqa: E402
from .errors import InvalidOperationError as InvalidOperationError  # noqa: E402
from .errors import Note as Note  # noqa: E402
from .errors import ParserError as ParserError  # noqa: E402
from .errors import ParserSyntaxError as ParserSyntaxError  # noqa: E402
from .errors import ParserTypeError as ParserTypeError  # noqa: E402
from .errors import ScopeIsolationError as ScopeIsolationError  # noqa: E402
from .errors import SSAViolationError as SSAViolationError  # noqa: E402
from .errors import UndefinedVariableError as UndefinedVariableError  # noqa: E402
from .errors import UnsupportedFeatureError as UnsupportedFeatureError  # noqa: E402
from .function import Function as Function  # noqa: E402
from .function import Param as Param  # noqa: E402
from .function import Program as Program  # noqa: E402
from .function import Signature as Signature  # noqa: E402
from .kernel import Kernel as Kernel  # noqa: E402
from .kernel import KernelSpecialization as KernelSpecialization  # noqa: E402
from .spans import Span as Span  # noqa: E402
from .structural import structural_equal as structural_equal  # noqa: E402

__all__ = [
    "Function",
    "InvalidOperationError",
    "Kernel",
    "KernelSpecialization",
    "Note",
    "Param",
    "ParserError",
    "ParserSyntaxError",
    "ParserTypeError",
    "Program",
    "SSAViolationError",
    "ScopeIsolationError",
    "Signature",
    "Span",
    "UndefinedVariableError",
    "UnsupportedFeatureError",
    "__version__",
    "default_context",
    "structural_equal",
]
