"""The ``dx`` namespace: ``import downstream_ext.language as dx``, then ``dx.cube(x)``.

Importing it activates the extension (if the entry point has not already) and
exposes one marker per op, as ``dsl_parser.language`` does for ``pl``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsl_parser import extensions as _extensions

from . import NAME as _NAME
from . import __version__ as _version
from . import register as _register

_extensions.activate(_register, name=_NAME, version=_version)
_extensions.expose("dx", globals())

if TYPE_CHECKING:
    from dsl_parser.markers import OpBuiltin

    def __getattr__(name: str) -> OpBuiltin:
        """``dx.<op>``: the markers ``expose`` adds (to a type checker: any name)."""
        ...
