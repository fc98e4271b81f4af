"""Arguments whose types dsl-core's protocols describe: bound through the registry,
filled by their own ``__c_abi_spec__``.

A ``@jit`` parameter annotated with a type that ``dsl_core.JitArgumentRegistry`` knows
(a registered Python type, a registration's ``dsl_type``, or a class implementing both
``JitArgument`` and ``DslType``) is a *protocol* parameter. For each call:

1. ``JitArgumentRegistry.adapt(value)`` gives the ``JitArgument`` and its ``DslType``;
2. its ``__cache_signature__`` is part of the specialization key (and of the disk-cache
   key when it is plain data), its ``__get_ir_types__`` the MLIR parameters the parser
   declares (``pl.ProtocolArgument``), and the DslType rebuilds the value in the body;
3. its ``__c_abi_spec__`` entries ``(ctype, fill)`` are read once per specialization
   (:class:`SlotPlan`); each call fills fresh ctypes storage with ``fill(argument,
   storage)`` and hands the C dispatcher the storages' addresses (``raw`` slots). A
   JitArgument whose ABI is fixed by its type (a ``@dc.struct`` of scalars, a dsl-core
   scalar) is filled by dsl-core's generated ``compile_fill`` instead: one call writes
   every slot, from the same leaves as its ``__c_abi_spec__``.

Everything else (arrays, numbers, structs, streams, Constexpr) is marshalled by the C
dispatcher itself from the slot kinds of the ABI.
"""

from __future__ import annotations

import ctypes
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import dsl_core as dc
from dsl_core.abi import static_leaves

#: Types a cache signature may be built from to be part of the disk-cache key (their
#: ``repr`` is their value; anything else is specialized in memory only).
_PLAIN = (str, int, float, bool, bytes, type(None))


def is_plain(signature: object) -> bool:
    """Whether ``signature`` is plain data (nested tuples of str/int/float/bool/bytes/None)."""
    if isinstance(signature, _PLAIN):
        return True
    return type(signature) is tuple and all(is_plain(item) for item in signature)


def adapt(value: Any, expected: type, function: str, param: str) -> Any:
    """The JitArgument of ``value`` for parameter ``param`` of ``function``, which takes
    ``expected`` (a DslType); TypeError naming both when the registry has no adapter or
    one for another DslType."""
    try:
        argument, dsl_type = dc.JitArgumentRegistry.adapt(value)
    except TypeError as err:
        raise TypeError(f"{function}(): argument '{param}' expects a {expected.__qualname__}: "
                        f"{err}") from None
    if dsl_type is not expected and not (isinstance(dsl_type, type)
                                         and issubclass(dsl_type, expected)):
        raise TypeError(f"{function}(): argument '{param}' expects a {expected.__qualname__}, "
                        f"got {type(value).__name__} (whose DSL type is "
                        f"{dsl_type.__qualname__})")
    return argument


_TYPE_NAMES: dict[type, str] = {}


def signature_of(argument: Any, dsl_type: type, function: str, param: str) -> Hashable:
    """``(DslType's qualified name, __cache_signature__)``: what the specialization key holds."""
    try:
        signature = dc.cache_signature(argument)
        hash(signature)
    except Exception as err:  # a user's hook
        raise TypeError(f"{function}(): argument '{param}': {dsl_type.__qualname__}."
                        f"__cache_signature__ failed: {type(err).__name__}: {err}") from None
    name = _TYPE_NAMES.get(dsl_type)
    if name is None:
        name = _TYPE_NAMES[dsl_type] = f"{dsl_type.__module__}.{dsl_type.__qualname__}"
    return (name, signature)


@dataclass(frozen=True)
class SlotPlan:
    """The ``__c_abi_spec__`` entries of one protocol parameter of a specialization
    (and, for a type with a static ABI, dsl-core's generated fill of all its slots)."""

    name: str
    entries: tuple[tuple[Any, Any], ...]  # (ctypes type, fill(argument, storage))
    fill_all: Any = None  # fill(argument, storages) of dsl_core.compile_fill, or None

    @classmethod
    def of(cls, name: str, argument: Any, expected_slots: int, function: str) -> SlotPlan:
        entries = tuple(dc.c_abi_spec(argument))
        if len(entries) != expected_slots:
            raise TypeError(f"{function}(): argument '{name}': __c_abi_spec__ has "
                            f"{len(entries)} entries but __get_ir_types__ gave "
                            f"{expected_slots} IR types")
        static = static_leaves(type(argument)) is not None
        return cls(name, entries, dc.compile_fill(type(argument)) if static else None)

    def fill(self, argument: Any, keep: list[Any]) -> list[int]:
        """The addresses of freshly filled storages, one per slot (kept alive in ``keep``)."""
        storages = [ctype() for ctype, _ in self.entries]
        if self.fill_all is not None:
            self.fill_all(argument, storages)
        else:
            for storage, (_, fill) in zip(storages, self.entries, strict=True):
                fill(argument, storage)
        keep.extend(storages)
        return [ctypes.addressof(storage) for storage in storages]


def ctype_name(ctype: Any) -> str:
    """How a slot's ctypes type reads in ``cf.abi`` (``c_float``, ``LP_Memref2D``)."""
    return str(getattr(ctype, "__name__", ctype))
