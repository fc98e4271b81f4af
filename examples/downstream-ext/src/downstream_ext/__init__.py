"""downstream-ext: an example extension of the dsl toolkit.

``import downstream_ext.language as dx`` gives the DSL namespace (``dx.cube``,
``dx.leaky_relu``). dsl-parser and dsl-runtime find the package through its
entry point ``dsl.extensions = downstream_ext:register``; importing this module
is cheap (the rules are imported by ``register``).
"""

from __future__ import annotations

from typing import Any

__version__ = "0.3.0"

#: The extension's name (its entry point's name).
NAME = "downstream-ext"


def register(registry: Any) -> None:
    """Declare the ``dx`` namespace, the ``dext`` dialect, the ops and their lowering."""
    from . import lowering, ops

    registry.namespace("dx", "downstream_ext.language")
    registry.dialect("dext", ops.IRDL)
    registry.op(ops.CUBE)
    registry.op(ops.LEAKY_RELU)
    registry.lowering("dext.leaky_relu", lowering.lower_leaky_relu)


__all__ = ["NAME", "__version__", "register"]
