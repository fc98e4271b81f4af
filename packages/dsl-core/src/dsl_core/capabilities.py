"""Which protocols a type supports, and why not: hook presence plus recorded reasons."""

from __future__ import annotations

from ._util import has_hook, type_name, unsupported_reason
from .protocols import PROTOCOL_HOOKS

PROTOCOLS = tuple(PROTOCOL_HOOKS)


def why_not(t: type, protocol: str) -> str | None:
    """``None`` when ``t`` supports ``protocol``; otherwise a sentence saying why not."""
    reason = unsupported_reason(t, protocol)
    if reason is not None:
        return reason
    for hook in PROTOCOL_HOOKS[protocol]:
        if not has_hook(t, hook):
            return f"{type_name(t)} is not {protocol} (it has no {hook} hook)"
    return None


def supports(t: type, protocol: str) -> bool:
    """True when the class ``t`` provides every hook of ``protocol``."""
    return why_not(t, protocol) is None


def field_reason(
    kind: str, owner: str, fields: list[tuple[str, type]], protocol: str
) -> str | None:
    """Reason a composite does not support ``protocol``: its first unsupported field."""
    for name, ftype in fields:
        if why_not(ftype, protocol) is not None:
            return (
                f"{kind} {owner} is not {protocol}: field {name!r} of type "
                f"{type_name(ftype)} is not {protocol}"
            )
    return None


def capabilities(t: type) -> dict[str, bool]:
    """``{"JitArgument": ..., "DslType": ..., "Storable": ...}`` for the class ``t``."""
    return {p: supports(t, p) for p in PROTOCOLS}
