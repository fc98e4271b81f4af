"""Field declarations of ``@struct`` / ``@union`` classes, read from class annotations."""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

from .constexpr import is_constexpr_type

MISSING: Any = type("MISSING", (), {"__repr__": lambda self: "MISSING"})()


class Field(NamedTuple):
    name: str
    type: Any  # the annotation: may be Align[T, A] or Constexpr[T]
    value_type: Any  # the type of the field's values (Align[T, A] -> T)
    default: Any
    constexpr: bool


def value_type(t: Any) -> Any:
    """The type of values stored in a field annotated ``t`` (unwraps ``Align``)."""
    return getattr(t, "__dsl_value_type__", t)


def _resolve(cls: type, kind: str, name: str, annotation: Any, local: dict[str, Any]) -> Any:
    if isinstance(annotation, str):
        module = sys.modules.get(cls.__module__)
        scope = dict(vars(module)) if module is not None else {}
        try:
            annotation = eval(annotation, scope, {**local, **vars(cls)})
        except Exception as exc:
            raise TypeError(
                f"{kind} {cls.__name__}: cannot resolve the annotation {annotation!r} of field "
                f"{name!r} ({exc})"
            ) from None
    if not isinstance(annotation, type):
        raise TypeError(
            f"{kind} {cls.__name__}: field {name!r} must be annotated with a DSL type, "
            f"got {annotation!r}"
        )
    return annotation


def read_fields(cls: type, kind: str, local: dict[str, Any]) -> tuple[Field, ...]:
    """The annotated fields of ``cls`` in declaration order, with their defaults.

    String annotations (``from __future__ import annotations``) are evaluated in the
    class's module, then ``local`` (the namespace where the decorator was applied)."""
    if cls.__bases__ != (object,):
        raise TypeError(f"{kind} {cls.__name__}: base classes are not supported")
    annotations = getattr(cls, "__annotations__", {})
    fields = []
    for name, annotation in annotations.items():
        t = _resolve(cls, kind, name, annotation, local)
        default = cls.__dict__.get(name, MISSING)
        fields.append(Field(name, t, value_type(t), default, is_constexpr_type(t)))
    _check_defaults(cls.__name__, kind, fields)
    return tuple(fields)


def _check_defaults(owner: str, kind: str, fields: list[Field]) -> None:
    seen_default = False
    for f in fields:
        if f.constexpr:
            continue
        if f.default is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(
                f"{kind} {owner}: field {f.name!r} without a default follows a field with one"
            )


def class_namespace(cls: type, fields: tuple[Field, ...]) -> dict[str, Any]:
    """``cls``'s namespace without the field defaults and the instance ``__dict__``."""
    skip = {f.name for f in fields} | {"__dict__", "__weakref__"}
    return {k: v for k, v in cls.__dict__.items() if k not in skip}
