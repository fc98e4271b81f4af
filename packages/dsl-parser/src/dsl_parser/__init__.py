"""dsl-parser: Python DSL -> MLIR in the ``dsl`` dialect, and back.

``import dsl_parser.language as pl`` for the DSL itself; this module exports
the error family, the result classes, ``structural_equal`` and the version.
"""

from __future__ import annotations

from ._mlir import default_context as default_context
from ._version import __version__ as __version__
from .errors import InvalidOperationError as InvalidOperationError
from .errors import Note as Note
from .errors import ParserError as ParserError
from .errors import ParserSyntaxError as ParserSyntaxError
from .errors import ParserTypeError as ParserTypeError
from .errors import ScopeIsolationError as ScopeIsolationError
from .errors import SSAViolationError as SSAViolationError
from .errors import UndefinedVariableError as UndefinedVariableError
from .errors import UnsupportedFeatureError as UnsupportedFeatureError
from .function import Function as Function
from .function import Param as Param
from .function import Program as Program
from .function import Signature as Signature
from .spans import Span as Span
from .structural import structural_equal as structural_equal

__all__ = [
    "Function",
    "InvalidOperationError",
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
