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
from collections.abc import Callable
from typing import Any, ClassVar, Literal, NoReturn, TypeVar, Union

R = TypeVar("R", bound="Record")


class RecordError(ValueError):
    """A record field that does not hold what its annotation says."""


def _name(tp: Any) -> str:
    if typing.get_origin(tp) is Literal:
        return " | ".join(repr(a) for a in typing.get_args(tp))
    if typing.get_args(tp):  # tuple[int, str], int | None
        return str(tp).replace("typing.", "")
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


Checker = Callable[[Any, str], Any]
#: Checks built so far, by the annotation and its spelling (unions compare equal in any
#: order, but ``float | int`` and ``int | float`` check 1 differently).
_CHECKERS: dict[tuple[Any, str], Checker] = {}


def _checker(tp: Any) -> Checker:
    """The check of field type ``tp``, built once per type: a process reading its first
    cache entry validates dozens of values, and walking the annotation for each (what
    ``typing.get_origin`` / ``get_args`` do) would cost more than the reading."""
    memo = (tp, repr(tp))
    found = _CHECKERS.get(memo)
    if found is None:
        found = _CHECKERS[memo] = _build_checker(tp)
    return found


def _reject(tp: Any, value: Any, where: str) -> NoReturn:
    shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
    raise RecordError(f"{where}: expected {_name(tp)}, got {type(value).__name__} {shown}")


def _build_checker(tp: Any) -> Checker:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return lambda value, where: value
    if origin is Literal:
        return _literal_checker(tp, args)
    if origin in (Union, types.UnionType):
        return _union_checker(tp, [_checker(arm) for arm in args])
    if origin is tuple:
        return _tuple_checker(tp, args)
    if origin is dict:
        return _dict_checker(tp, _checker(args[0]), _checker(args[1]))
    if tp is type(None) or tp in (int, str, bool, float):
        return _scalar_checker(tp)
    if isinstance(tp, type) and issubclass(tp, Record):
        record: type[Record] = tp

        def check_record(value: Any, where: str) -> Any:
            if isinstance(value, record):
                return value
            if isinstance(value, dict):
                return record.from_dict(value, where)
            _reject(record, value, where)
        return check_record
    raise TypeError(f"records cannot hold fields of type {tp!r}")


def _literal_checker(tp: Any, args: tuple[Any, ...]) -> Checker:
    allowed = {(type(a), a) for a in args}

    def check(value: Any, where: str) -> Any:
        try:
            if (type(value), value) in allowed:
                return value
        except TypeError:  # unhashable: not one of the literals
            pass
        _reject(tp, value, where)
    return check


def _union_checker(tp: Any, arms: list[Checker]) -> Checker:
    def check(value: Any, where: str) -> Any:
        for arm in arms:
            try:
                return arm(value, where)
            except RecordError:
                continue
        _reject(tp, value, where)
    return check


def _tuple_checker(tp: Any, args: tuple[Any, ...]) -> Checker:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _checker(args[0])

        def check_items(value: Any, where: str) -> Any:
            if isinstance(value, (list, tuple)):
                return tuple([item(v, f"{where}[{i}]") for i, v in enumerate(value)])
            _reject(tp, value, where)
        return check_items
    fixed = [_checker(a) for a in args]

    def check_fixed(value: Any, where: str) -> Any:
        if isinstance(value, (list, tuple)) and len(value) == len(fixed):
            return tuple([c(v, f"{where}[{i}]") for i, (c, v) in enumerate(zip(fixed, value))])
        _reject(tp, value, where)
    return check_fixed


def _dict_checker(tp: Any, key: Checker, item: Checker) -> Checker:
    def check(value: Any, where: str) -> Any:
        if isinstance(value, dict):
            return {key(k, f"{where} key"): item(v, f"{where}[{k!r}]") for k, v in value.items()}
        _reject(tp, value, where)
    return check


def _scalar_checker(tp: Any) -> Checker:
    if tp is float:
        def check_float(value: Any, where: str) -> Any:
            if type(value) in (int, float):
                return float(value)
            _reject(tp, value, where)
        return check_float
    kind = type(None) if tp is type(None) else tp

    def check(value: Any, where: str) -> Any:
        if type(value) is kind:  # strict: True is not an int here, 1 not a bool
            return value
        _reject(tp, value, where)
    return check


def _plain(value: Any) -> Any:
    """JSON-ready form: records as dicts, tuples as lists."""
    if isinstance(value, Record):
        return value.model_dump()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _frozen(value: Any) -> Any:
    """Lists (at any depth) as tuples, as a record's fields hold them."""
    return tuple([_frozen(v) for v in value]) if type(value) is list else value


class Record:
    """Base of the frozen, validated records (subclasses are ``@dataclass(frozen=True)``).

    ``EXTRA``: whether unknown keys are kept (in ``extra``) when read from a dict or
    JSON, rather than refused.
    """

    EXTRA: ClassVar[bool] = False
    #: The fields that hold records (alone, in a tuple, or None), by their record class:
    #: what ``from_trusted`` rebuilds without reading the annotations (a test checks
    #: that it agrees with them).
    NESTED: ClassVar[dict[str, type[Record]]] = {}
    _hints: ClassVar[dict[str, Any]]
    _names: ClassVar[frozenset[str]]
    _checks: ClassVar[dict[str, Checker]]

    @classmethod
    def _field_types(cls) -> dict[str, Any]:
        hints = cls.__dict__.get("_hints")
        if hints is None:  # the annotations evaluated once, in their module, in one eval
            # (typing's get_type_hints, or an eval per field, costs a process's first
            # cache hit a millisecond)
            fields = [f for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                      if f.name != "extra"]
            text = "(" + "".join(f"{f.type}," if isinstance(f.type, str) else "None,"
                                 for f in fields) + ")"
            values = eval(text, vars(sys.modules[cls.__module__]))
            hints = {f.name: value if isinstance(f.type, str) else f.type
                     for f, value in zip(fields, values, strict=True)}
            cls._hints = hints
        return hints

    @classmethod
    def _field_checks(cls) -> dict[str, Checker]:
        checks = cls.__dict__.get("_checks")
        if checks is None:
            checks = {name: _checker(tp) for name, tp in cls._field_types().items()}
            cls._checks = checks
        return checks

    def __post_init__(self) -> None:
        owner = type(self).__name__
        for name, check in self._field_checks().items():
            checked = check(getattr(self, name), f"{owner}.{name}")
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
        except RecordError as err:  # "Leaf.name: ..." read as "Tree.leaves[0].name: ..."
            text = str(err)
            if where != cls.__name__ and text.startswith(f"{cls.__name__}."):
                text = where + text[len(cls.__name__):]
            raise RecordError(text) from None

    @classmethod
    def from_trusted(cls: type[R], data: Any) -> R:
        """The record of a dict that ``model_dump`` wrote and an integrity check vouches
        for (a checksum or a signature): its structure is checked (an object with exactly
        the record's fields, nested records alike; RecordError otherwise), its values
        are not. Building the field checks costs a process's first read of a record
        about a millisecond; this is the read path of cached entries (validated when
        written)."""
        names = cls.__dict__.get("_names")
        if names is None:
            names = frozenset(f.name for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                              if f.name != "extra")
            cls._names = names
        if cls.EXTRA or type(data) is not dict or data.keys() != names:
            raise RecordError(f"{cls.__name__}: not the fields of a {cls.__name__} record")
        record = object.__new__(cls)
        nested = cls.NESTED
        for name, value in data.items():
            inner = nested.get(name)
            if type(value) is list:
                value = tuple([inner.from_trusted(v) for v in value] if inner is not None
                              else [_frozen(v) for v in value])
            elif type(value) is dict:
                value = inner.from_trusted(value) if inner is not None else value
            object.__setattr__(record, name, value)
        return record

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
