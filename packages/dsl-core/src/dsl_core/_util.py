"""Small helpers shared by every module: names, alignment arithmetic, hook lookup."""

from __future__ import annotations

from typing import Any


def type_name(t: Any) -> str:
    """Short display name of a DSL type (``Int32``, ``Array[Int32, 4]``, ``Pair``)."""
    if isinstance(t, type):
        return t.__name__
    return type(t).__name__


def qualified_name(t: type) -> str:
    """``module.qualname``: the stable identity of a user-defined type across processes."""
    return f"{t.__module__}.{t.__qualname__}"


def is_pow2(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0


def align_up(offset: int, align: int) -> int:
    return (offset + align - 1) // align * align


def has_hook(t: type, name: str) -> bool:
    """True when ``t`` (a class) provides ``name`` and it is not set to ``None``."""
    return getattr(t, name, None) is not None


def unsupported_reason(t: type, protocol: str) -> str | None:
    """The reason a composite type recorded for not supporting ``protocol``, if any."""
    reasons: dict[str, str] | None = getattr(t, "__dsl_unsupported__", None)
    if reasons is None:
        return None
    return reasons.get(protocol)
