"""``@struct``: frozen, dataclass-like composite DSL types with C layout.

Fields are annotated class attributes in declaration order. A struct supports a protocol when
all its non-Constexpr fields do (the hooks are present only then; otherwise the reason is
recorded and reported by the free functions). A Constexpr field specializes the struct type
itself: ``S(n=4, x=1)`` is an instance of the interned subclass ``S.specialize(n=4)``.
Positional arguments fill, in order, the fields whose value the type does not fix.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ._fields import MISSING, Field, class_namespace, read_fields
from ._util import qualified_name
from .capabilities import field_reason
from .dispatch import coerce_to
from .layout import Layout, struct_layout
from .signatures import constant_signature
from .struct_hooks import attach_protocols, mixins_for, struct_type_signature

C = TypeVar("C", bound=type)

if TYPE_CHECKING:  # typing_extensions: type checkers know it on every Python; no run-time need
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**kwargs: Any) -> Any:
        """``typing.dataclass_transform`` where it exists (Python 3.11+), else a no-op."""
        import typing

        transform = getattr(typing, "dataclass_transform", None)
        return transform(**kwargs) if transform is not None else (lambda f: f)


class StructValue:
    """Base class of every ``@struct`` type."""

    __slots__ = ()
    __dsl_kind__: ClassVar[str] = "struct"
    __dsl_fields__: ClassVar[tuple[Field, ...]] = ()
    __dsl_runtime_fields__: ClassVar[tuple[Field, ...]] = ()
    __dsl_constexpr__: ClassVar[dict[str, Any]] = {}
    __dsl_generic__: ClassVar[type[StructValue]]
    __dsl_layout__: ClassVar[Layout | None] = None
    __dsl_unsupported__: ClassVar[dict[str, str]] = {}
    __dsl_specializations__: ClassVar[dict[Hashable, type[StructValue]]]
    #: ``(name, coerce)`` of each field when none is Constexpr (the constructor's
    #: positional fast path), else None.
    __dsl_plain__: ClassVar[tuple[tuple[str, Callable[[Any], Any]], ...] | None] = None

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        plain = cls.__dsl_plain__
        if plain is not None and not kwargs and len(args) == len(plain):
            # every field given by position and none Constexpr (an adapter's
            # ``Affine(z.real, z.imag)`` on each call): no binding by name
            obj = object.__new__(cls)
            try:
                for (name, coerce), value in zip(plain, args):  # noqa: B905 (lengths checked)
                    object.__setattr__(obj, name, coerce(value))
                return obj
            except (TypeError, ValueError):
                pass  # binding by name below raises it again, naming the field
        values = _bind(cls, args, kwargs)
        target = _target_class(cls, values)
        obj = object.__new__(target)
        for f in target.__dsl_runtime_fields__:
            object.__setattr__(obj, f.name, _coerce_field(target, f, values[f.name]))
        return obj

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @classmethod
    def _from_fields_(cls, values: dict[str, Any]) -> Any:
        """Build without validation from already-typed field values."""
        obj = object.__new__(cls)
        for f in cls.__dsl_runtime_fields__:
            object.__setattr__(obj, f.name, values[f.name])
        return obj

    @classmethod
    def _dsl_coerce_(cls, value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if isinstance(value, (tuple, list)):
            return cls(*value)
        if isinstance(value, dict):
            return cls(**value)
        raise TypeError(f"struct {cls.__name__}: expected a {cls.__name__}, a tuple or a dict, "
                        f"got {type(value).__name__}")

    @classmethod
    def specialize(cls, **constexpr: Any) -> Any:
        """The interned struct type with the given Constexpr field values."""
        return _specialize(cls.__dsl_generic__, {**cls.__dsl_constexpr__, **constexpr})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"struct {type(self).__name__} is frozen: cannot assign {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"struct {type(self).__name__} is frozen: cannot delete {name!r}")

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        return struct_type_signature(cls)

    def _field_values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in self.__dsl_runtime_fields__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._field_values() == other._field_values()

    def __hash__(self) -> int:
        return hash((type(self), self._field_values()))

    def __repr__(self) -> str:
        parts = [f"{f.name}={getattr(self, f.name)!r}" for f in self.__dsl_fields__]
        return f"{self.__dsl_generic__.__name__}({', '.join(parts)})"


def _bind(cls: type[StructValue], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    name, bound = cls.__name__, cls.__dsl_constexpr__
    free = [f for f in cls.__dsl_fields__ if f.name not in bound]
    if len(args) > len(free):
        raise TypeError(f"struct {name} takes {len(free)} positional values, got {len(args)}")
    values = {f.name: a for f, a in zip(free, args, strict=False)}
    known = {f.name for f in cls.__dsl_fields__}
    for key, value in kwargs.items():
        if key not in known:
            raise TypeError(f"struct {name} has no field {key!r}")
        if key in values:
            raise TypeError(f"struct {name}: field {key!r} given twice")
        values[key] = value
    for f in cls.__dsl_fields__:
        if f.name not in values:
            values[f.name] = _missing(name, f, bound)
    return values


def _missing(name: str, f: Field, bound: dict[str, Any]) -> Any:
    if f.name in bound:
        return bound[f.name]
    if f.default is MISSING:
        raise TypeError(f"struct {name}: missing value for field {f.name!r}")
    return f.default


def _target_class(cls: type[StructValue], values: dict[str, Any]) -> type[StructValue]:
    if not any(f.constexpr for f in cls.__dsl_fields__):
        return cls
    constexpr = {f.name: values[f.name] for f in cls.__dsl_fields__ if f.constexpr}
    return _specialize(cls.__dsl_generic__, constexpr)


def _coercer(t: type) -> Callable[[Any], Any]:
    """``coerce_to(t, ·)``, looked up once."""
    coerce = getattr(t, "_dsl_coerce_", None)
    return coerce if coerce is not None else functools.partial(coerce_to, t)


def _coerce_field(cls: type, f: Field, value: Any) -> Any:
    try:
        return coerce_to(f.value_type, value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"struct {cls.__name__}: field {f.name!r}: {exc}") from None


def _check_constexpr(generic: type[StructValue], values: dict[str, Any]) -> dict[str, Any]:
    checked = {}
    for f in generic.__dsl_fields__:
        if f.constexpr and f.name in values:
            try:
                checked[f.name] = f.type.check(values[f.name])
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"struct {generic.__name__}: field {f.name!r}: {exc}") from None
    unknown = set(values) - {f.name for f in generic.__dsl_fields__ if f.constexpr}
    if unknown:
        raise TypeError(f"struct {generic.__name__}: {sorted(unknown)} are not Constexpr fields")
    return checked


def _specialize(generic: type[StructValue], values: dict[str, Any]) -> type[StructValue]:
    checked = _check_constexpr(generic, values)
    key = tuple((k, constant_signature(v)) for k, v in checked.items())
    bound = generic.__dsl_constexpr__
    if key == tuple((k, constant_signature(v)) for k, v in bound.items()):
        return generic
    found = generic.__dsl_specializations__.get(key)
    if found is None:
        label = ", ".join(f"{k}={v!r}" for k, v in checked.items())
        ns: dict[str, Any] = {"__slots__": (), "__module__": generic.__module__, **checked}
        found = type(f"{generic.__name__}[{label}]", (generic,), ns)
        found.__qualname__ = f"{generic.__qualname__}[{label}]"
        _finish(found, generic.__dsl_fields__, checked)
        generic.__dsl_specializations__[key] = found
    return found


def _finish(cls: type, fields: tuple[Field, ...], constexpr: dict[str, Any]) -> None:
    """Record fields, bound Constexpr values and per-class protocol facts on ``cls``."""
    cls.__dsl_fields__ = fields  # type: ignore[attr-defined]
    cls.__dsl_runtime_fields__ = tuple(f for f in fields if not f.constexpr)  # type: ignore[attr-defined]
    cls.__dsl_constexpr__ = dict(constexpr)  # type: ignore[attr-defined]
    cls.__dsl_plain__ = None if any(f.constexpr for f in fields) else tuple(  # type: ignore[attr-defined]
        (f.name, _coercer(f.value_type)) for f in fields)
    attach_protocols(cls)


def _capabilities(cls: type, fields: tuple[Field, ...]) -> tuple[dict[str, str], Layout | None]:
    runtime = [(f.name, f.type) for f in fields if not f.constexpr]
    value_fields = [(f.name, f.value_type) for f in fields if not f.constexpr]
    unsupported: dict[str, str] = {}
    for proto in ("JitArgument", "DslType"):
        reason = field_reason("struct", cls.__name__, value_fields, proto)
        if reason is not None:
            unsupported[proto] = reason
    reason = field_reason("struct", cls.__name__, runtime, "Storable")
    if reason is not None:
        unsupported["Storable"] = reason
        return unsupported, None
    return unsupported, struct_layout(f"struct {cls.__name__}", runtime)


def _build(cls: type, fields: tuple[Field, ...]) -> type:
    unsupported, layout = _capabilities(cls, fields)
    runtime = [f.name for f in fields if not f.constexpr]
    bases = (StructValue, *mixins_for(unsupported))
    ns = class_namespace(cls, fields)
    ns.update(__slots__=tuple(runtime), __dsl_layout__=layout,
              __dsl_unsupported__=unsupported, __dsl_specializations__={})
    new = type(cls.__name__, bases, ns)
    new.__qualname__ = cls.__qualname__
    new.__dsl_generic__ = new  # type: ignore[attr-defined]
    return new


@dataclass_transform(eq_default=True, frozen_default=True)
def struct(cls: C) -> C:
    """Class decorator: make ``cls`` a frozen struct DSL type (see the module docstring).

    Type checkers see a frozen dataclass (``typing.dataclass_transform``): the fields, in
    order, are the constructor's parameters, and a field of a dsl-core scalar type also
    takes a Python number."""
    fields = read_fields(cls, "struct", sys._getframe(1).f_locals)
    new = _build(cls, fields)
    new.__dsl_fields__ = fields  # type: ignore[attr-defined]
    defaults = {f.name: f.default for f in fields if f.constexpr and f.default is not MISSING}
    checked = _check_constexpr(new, defaults)
    for name, value in checked.items():
        setattr(new, name, value)
    _finish(new, fields, checked)
    return new  # type: ignore[return-value]


def replace(value: Any, **changes: Any) -> Any:
    """A copy of struct ``value`` with some fields changed."""
    if not isinstance(value, StructValue):
        raise TypeError(f"replace: expected a struct value, got {type(value).__name__}")
    current = {f.name: getattr(value, f.name) for f in value.__dsl_fields__}
    return type(value)(**{**current, **changes})


def is_struct_type(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, StructValue)


def fields_of(t: type) -> tuple[Field, ...]:
    """The declared fields of a struct or union type, in order."""
    fields: tuple[Field, ...] | None = getattr(t, "__dsl_fields__", None)
    if fields is None:
        raise TypeError(f"fields_of: {qualified_name(t)} is not a struct or union")
    return fields

