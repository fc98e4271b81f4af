"""Typed, frozen data records that cross a process or disk boundary (the kernel ABI,
compile options, cache manifests), validated field by field, read from and written as
JSON.

A record is a frozen dataclass whose base class checks every field against its
annotation when constructed: ``str``, ``int``, ``float``, ``bool``, ``Literal[...]``,
unions (``X | None``), ``tuple[X, ...]`` (lists are accepted and frozen into tuples),
``dict[str, X]`` and nested records (given as records or as dicts). A wrong value is a
``RecordError`` (a ValueError) naming the record, the field and what was expected.

Built on the standard library only: importing it costs microseconds, where a model
library costs tens of milliseconds at every start of a process, which the first call
of a cached function cannot afford (docs/runtime.md, "Compile time").
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from typing import Any, ClassVar, Literal, TypeVar, Union

R = TypeVar("R", bound="Record")


class RecordError(ValueError):
    """A record field that does not hold what its annotation says."""


def _name(tp: Any) -> str:
    if typing.get_origin(tp) is Literal:
        return " | ".join(repr(a) for a in typing.get_args(tp))
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _check(tp: Any, value: Any, where: str) -> Any:
    """``value`` as field type ``tp`` holds it (lists frozen into tuples, dicts of nested
    records built); RecordError naming ``where`` otherwise."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return value
    if origin is Literal:
        if value in typing.get_args(tp) and type(value) in {type(a) for a in typing.get_args(tp)}:
            return value
    elif origin in (Union, types.UnionType):
        for arm in typing.get_args(tp):
            try:
                return _check(arm, value, where)
            except RecordError:
                continue
    elif origin is tuple:
        args = typing.get_args(tp)
        if isinstance(value, (list, tuple)):
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(_check(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
            if len(args) == len(value):
                return tuple(_check(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value)))
    elif origin is dict:
        key_type, value_type = typing.get_args(tp)
        if isinstance(value, dict):
            return {_check(key_type, k, f"{where} key"): _check(value_type, v, f"{where}[{k!r}]")
                    for k, v in value.items()}
    elif tp is type(None):
        if value is None:
            return value
    elif isinstance(tp, type) and issubclass(tp, Record):
        if isinstance(value, tp):
            return value
        if isinstance(value, dict):
            return tp.from_dict(value, where)
    elif tp is float:
        if type(value) in (int, float):
            return float(value)
    elif tp in (int, str, bool):
        if type(value) is tp:  # strict: True is not an int here, 1 not a bool
            return value
    else:
        raise TypeError(f"{where}: records cannot hold fields of type {tp!r}")
    shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
    raise RecordError(f"{where}: expected {_name(tp)}, got {type(value).__name__} {shown}")


def _plain(value: Any) -> Any:
    """JSON-ready form: records as dicts, tuples as lists."""
    if isinstance(value, Record):
        return value.model_dump()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class Record:
    """Base of the frozen, validated records (subclasses are ``@dataclass(frozen=True)``).

    ``EXTRA``: whether unknown keys are kept (in ``extra``) when read from a dict or
    JSON, rather than refused.
    """

    EXTRA: ClassVar[bool] = False
    _hints: ClassVar[dict[str, Any]]

    @classmethod
    def _field_types(cls) -> dict[str, Any]:
        hints = cls.__dict__.get("_hints")
        if hints is None:  # each annotation evaluated once, in its module (typing's
            # get_type_hints costs milliseconds on a process's first cache hit)
            namespace = vars(sys.modules[cls.__module__])
            hints = {f.name: eval(f.type, namespace) if isinstance(f.type, str) else f.type
                     for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                     if f.name != "extra"}
            cls._hints = hints
        return hints

    def __post_init__(self) -> None:
        for name, tp in self._field_types().items():
            checked = _check(tp, getattr(self, name), f"{type(self).__name__}.{name}")
            object.__setattr__(self, name, checked)

    @classmethod
    def from_dict(cls: type[R], data: Any, where: str | None = None) -> R:
        """The record of a dict (as read from JSON); RecordError when a key is unknown or
        missing or a value has the wrong type."""
        where = where or cls.__name__
        if not isinstance(data, dict):
            raise RecordError(f"{where}: expected an object, got {type(data).__name__}")
        known = cls._field_types()
        unknown = [k for k in data if k not in known]
        fields = {k: v for k, v in data.items() if k in known}
        if unknown and not cls.EXTRA:
            raise RecordError(f"{where}: unknown field {unknown[0]!r}; the fields are: "
                              f"{', '.join(known)}")
        if unknown:
            fields["extra"] = {k: data[k] for k in unknown}
        try:
            return cls(**fields)
        except TypeError as err:  # a required field is missing
            raise RecordError(f"{where}: {err}") from None

    @classmethod
    def model_validate_json(cls: type[R], text: str | bytes) -> R:
        """The record of a JSON document (RecordError when it is not one)."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise RecordError(f"{cls.__name__}: not JSON: {err}") from None
        return cls.from_dict(data)

    def model_dump(self) -> dict[str, Any]:
        """The record as a dict of plain values (tuples as lists, records as dicts)."""
        out = {name: _plain(getattr(self, name)) for name in self._field_types()}
        out.update(getattr(self, "extra", None) or {})
        return out

    def model_dump_json(self, indent: int | None = None) -> str:
        """The record as JSON (``model_validate_json`` reads it back equal)."""
        return json.dumps(self.model_dump(), indent=indent)


__all__ = ["Record", "RecordError"]
