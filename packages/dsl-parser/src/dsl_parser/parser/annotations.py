"""Parameter annotations that are Python classes rather than DSL types.

dsl-core is not imported: its classes are recognized by their protocol hooks.
``dc.Stream`` reports the type signature ``"Stream"``, ``dc.Constexpr[T]``
``("Constexpr", T)``; a ``@dc.struct`` has ``__dsl_fields__`` (see ``structs``).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from ..errors import ParserError
from .type_resolver import TypeResolver

_MISSING = object()


def _type_signature(annotation: object) -> object:
    hook = getattr(annotation, "__dsl_type_signature__", None) \
        if isinstance(annotation, type) else None
    if not callable(hook):
        return None
    try:
        return hook()
    except TypeError:
        return None


def is_stream(annotation: object) -> bool:
    """``dc.Stream`` (an execution stream handle, ``!llvm.ptr``)."""
    return _type_signature(annotation) == "Stream"


def is_constexpr(annotation: object) -> bool:
    """``dc.Constexpr[T]`` (a compile-time value)."""
    signature = _type_signature(annotation)
    return isinstance(signature, tuple) and signature[:1] == ("Constexpr",)


def annotation_object(arg: ast.arg, annotations: Mapping[str, object],
                      resolver: TypeResolver, *, strict: bool = True) -> object:
    """The Python object a parameter's annotation denotes (None when there is none).

    Annotations Python already evaluated are used as they are; postponed ones
    (strings) and text annotations are evaluated from the AST. With ``strict=False``
    an annotation that cannot be evaluated gives None instead of an error.
    """
    value = annotations.get(arg.arg, _MISSING)
    if value is not _MISSING and not isinstance(value, str):
        return value
    if arg.annotation is None:
        return None
    try:
        return resolver.value(arg.annotation)
    except ParserError:
        if strict:
            raise
        return None
