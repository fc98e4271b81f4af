"""Protocol parameters under the interpreter: a user's registered argument type.

A parameter annotated with a type ``dsl_core.JitArgumentRegistry`` knows (see
``parser/protocol_params``) is bound as ``@jit`` binds it: the registry adapts the
argument, ``__get_ir_types__`` gives the DSL type of each slot and each
``__c_abi_spec__`` entry, a ``dsl_core.NativeSlot``, the slot's value (its ``source``:
an array or a number, checked against that type). ``__construct_from_ir_values__``
rebuilds the body's value from those tensors and scalars. An entry with only a Python
fill (ctypes storage) has no value the interpreter can read: a TypeError says so.
"""

from __future__ import annotations

from typing import Any

from ..types import ProtocolArgument


def protocol_type(annotation: Any) -> type | None:
    """The DslType of a protocol parameter annotated ``annotation``, else None (streams
    and Constexpr parameters are not protocol parameters, as in ``@jit``)."""
    import dsl_core as dc
    from dsl_core.constexpr import Constexpr

    if annotation is dc.Stream or (isinstance(annotation, type)
                                   and issubclass(annotation, Constexpr)):
        return None
    return dc.JitArgumentRegistry.parameter_type(annotation)


def protocol_from_user(value: Any, dsl_type: type, name: str, convert: Any) -> Any:
    """The body's value of protocol parameter ``name``; ``convert(value, pl_type, slot)``
    turns one slot's value into an interpreter tensor or scalar."""
    import dsl_core as dc
    from dsl_core.abi import NativeSlot

    if isinstance(value, ArrayView) or (isinstance(value, dsl_type) and _is_rebuilt(value)):
        return value  # rebuilt in an interpreted host function, passed on to a kernel
    argument, got = _adapt(value, dsl_type, name)
    if getattr(got, "__dsl_kind__", None) == "struct":
        return struct_from_user(argument, got, name, convert)
    types = _slot_types(argument, dsl_type, name)
    entries = dc.c_abi_spec(argument)
    if len(entries) != len(types):
        raise TypeError(f"argument '{name}': {dsl_type.__qualname__}'s __c_abi_spec__ has "
                        f"{len(entries)} entries but __get_ir_types__ gave {len(types)}")
    values = []
    for i, (entry, t) in enumerate(zip(entries, types, strict=True)):
        if not isinstance(entry, NativeSlot):
            raise TypeError(f"argument '{name}': entry {i} of {dsl_type.__qualname__}'s "
                            "__c_abi_spec__ is a (ctype, fill) pair; the interpreter reads "
                            "slot values from dsl_core.NativeSlot entries (their source)")
        values.append(convert(entry.value_of(argument), t, f"{name}.{i}"))
    if issubclass(got, dc.Array):
        return ArrayView(values)  # its elements, indexed as in the compiled body
    return dc.construct_from_ir_values(got, values, argument)


class ArrayView(tuple):  # type: ignore[type-arg]
    """A ``dc.Array`` argument in an interpreted body: its elements as typed scalars."""


class StructView:
    """A ``@dc.struct`` argument in an interpreted body: its fields as the compiled body
    sees them (scalar leaves as typed scalars, nested structs as views, Constexpr
    fields as their values)."""

    def __init__(self, cls: type, fields: dict[str, Any]) -> None:
        self.__dict__.update(fields)
        self._dsl_struct = cls

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k != "_dsl_struct")
        return f"{self._dsl_struct.__qualname__}({items})"


def struct_from_user(value: Any, cls: type, name: str, convert: Any) -> Any:
    """A ``@dc.struct`` argument (an instance of ``cls``) as a :class:`StructView`."""
    import dsl_core as dc

    if isinstance(value, StructView):
        return value  # passed on by an interpreted host function
    if not isinstance(value, cls):
        raise TypeError(f"argument '{name}' expects a {cls.__qualname__} struct, got "
                        f"{type(value).__name__}")
    fields: dict[str, Any] = {}
    for f in dc.fields_of(cls):
        item = getattr(value, f.name)
        if f.constexpr:
            fields[f.name] = getattr(item, "value", item)
        elif getattr(f.value_type, "__dsl_kind__", None) == "struct":
            fields[f.name] = struct_from_user(item, f.value_type, f"{name}.{f.name}", convert)
        else:
            fields[f.name] = convert(item.value, _scalar(f.value_type), f"{name}.{f.name}")
    return StructView(cls, fields)


def _scalar(t: Any) -> Any:
    from ..types import ScalarType

    return ScalarType(t.dtype)


def _adapt(value: Any, dsl_type: type, name: str) -> tuple[Any, type]:
    import dsl_core as dc

    try:
        argument, got = dc.JitArgumentRegistry.adapt(value)
    except TypeError as err:
        raise TypeError(f"argument '{name}' expects a {dsl_type.__qualname__}: {err}") from None
    if not (isinstance(got, type) and issubclass(got, dsl_type)):
        raise TypeError(f"argument '{name}' expects a {dsl_type.__qualname__}, got "
                        f"{type(value).__name__}")
    return argument, got


def _is_rebuilt(value: Any) -> bool:
    from .values import IScalar, ITensor

    return any(isinstance(v, (ITensor, IScalar)) for v in vars(value).values()) \
        if hasattr(value, "__dict__") else False


def _slot_types(argument: Any, dsl_type: type, name: str) -> list[Any]:
    from .._mlir import new_context
    from ..parser.protocol_params import ir_param_types

    found = ir_param_types(None, ProtocolArgument(dsl_type, argument), new_context())  # type: ignore[arg-type]
    if isinstance(found, str):
        raise TypeError(f"argument '{name}': {found}")
    return found

