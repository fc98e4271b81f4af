"""Cache signatures: stable across processes, hashable, free of run-time values.

A signature is built only from ``str``, ``int``, ``bool``, ``None`` and tuples of them, so its
``repr`` is the same in every process and :func:`signature_digest` can hash it. Types are named
by their qualified name (``module.qualname``), never by ``id()``; floats by ``float.hex()``.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Hashable
from typing import Any

from ._util import qualified_name, type_name


def type_signature(t: type) -> Hashable:
    """The static, compilation-relevant signature of a DSL type (type, layout, metadata)."""
    hook = getattr(t, "__dsl_type_signature__", None)
    if hook is not None:
        return hook()  # type: ignore[no-any-return]
    return ("type", qualified_name(t))


def has_static_signature(t: type) -> bool:
    """True when every value of ``t`` has the same cache signature: ``type_signature(t)``."""
    return bool(getattr(t, "__dsl_static_signature__", False))


def constant_signature(value: Any, where: str = "Constexpr") -> Hashable:
    """Signature of a compile-time constant: its type tag and its value (``1`` != ``True``)."""
    t = type(value)
    if t is bool or t is int or t is str or value is None:
        return (t.__name__, value)
    if t is float:
        return ("float", value.hex())
    if t is bytes:
        return ("bytes", value.hex())
    if t is tuple or t is list:
        return (t.__name__, tuple(constant_signature(x, where) for x in value))
    return _object_signature(value, where)


def _object_signature(value: Any, where: str) -> Hashable:
    from .scalars import Numeric

    t = type(value)
    if isinstance(value, Numeric):
        return (type_name(t), constant_signature(value.value, where))
    if isinstance(value, enum.Enum):
        return ("enum", qualified_name(t), value.name)
    if isinstance(value, type):
        return ("type", type_signature(value))
    hook = getattr(value, "__cache_signature__", None)
    if hook is not None:
        return (qualified_name(t), hook())
    if hasattr(value, "__index__"):
        return ("int", operator.index(value))
    raise TypeError(
        f"{where}: a value of type {t.__name__} has no stable cache signature "
        "(use int, float, bool, str, bytes, None, tuples, enums, types, "
        "or an object with __cache_signature__)"
    )


def signature_digest(signature: Hashable) -> str:
    """Hex SHA-256 of a signature's canonical text: the same in every process."""
    import hashlib

    return hashlib.sha256(repr(signature).encode()).hexdigest()
