"""Arguments whose types dsl-core's protocols describe: bound through the registry,
filled by their own ``__c_abi_spec__``.

A ``@jit`` parameter annotated with a type that ``dsl_core.JitArgumentRegistry`` knows
(a registered Python type, a registration's ``dsl_type``, or a class implementing both
``JitArgument`` and ``DslType``) is a *protocol* parameter. For each call:

1. ``JitArgumentRegistry.adapt(value)`` gives the ``JitArgument`` and its ``DslType``;
2. its ``__cache_signature__`` is part of the specialization key (and of the disk-cache
   key when it is plain data), its ``__get_ir_types__`` the MLIR parameters the parser
   declares (``pl.ProtocolArgument``), and the DslType rebuilds the value in the body;
3. its ``__c_abi_spec__`` entries are read once per specialization (:class:`SlotPlan`):
   an entry that is a ``dsl_core.NativeSlot`` of a kind the C dispatcher marshals
   (memref, a scalar kind, ptr) becomes a native slot of the ABI, and each call hands
   the dispatcher ``source(argument)`` (an array, a number) to check and marshal; any
   other entry is a ``raw`` slot: each call fills fresh ctypes storage with
   ``fill(argument, storage)`` and the dispatcher passes its address.

The built-in arguments (arrays, numbers, structs, streams) are the same entries:
``dsl_runtime.adapters`` and dsl-core describe them as NativeSlots, which is why the C
dispatcher marshals them without a Python fill.
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
    """How the slots of one protocol parameter of a specialization get their values, from
    its ``__c_abi_spec__`` entries (read once): a ``NativeSlot`` the ABI marshals natively
    gives the C dispatcher its value (``source(argument)``: an array, a number); any
    other entry fills fresh ctypes storage whose address the dispatcher passes as it is
    (a ``raw`` slot). A type with a static ABI and only raw slots is filled by
    dsl-core's generated ``compile_fill`` (one call for all slots)."""

    name: str
    entries: tuple[tuple[Any, Any], ...]  # (ctypes type, fill(argument, storage))
    native: tuple[bool, ...]  # per entry: the C dispatcher marshals its value
    fill_all: Any = None  # fill(argument, storages) of dsl_core.compile_fill, or None

    @classmethod
    def of(cls, param: Any, argument: Any, function: str) -> SlotPlan:
        """The plan of ``param`` (the parameter's ``abi.Param``) for arguments like
        ``argument``; TypeError when its ``__c_abi_spec__`` does not match the ABI."""
        entries = tuple(dc.c_abi_spec(argument))
        kinds = [s.kind for s in param.slots]
        if len(entries) != len(kinds):
            raise TypeError(f"{function}(): argument '{param.name}': __c_abi_spec__ has "
                            f"{len(entries)} entries but the ABI has {len(kinds)} slots")
        native = tuple(kind != "raw" for kind in kinds)
        for i, (entry, kind) in enumerate(zip(entries, kinds, strict=True)):
            if kind != "raw" and getattr(entry, "kind", None) != kind:
                raise TypeError(f"{function}(): argument '{param.name}': entry {i} of "
                                f"__c_abi_spec__ is not the native {kind} slot of the ABI")
        static = not any(native) and static_leaves(type(argument)) is not None
        return cls(param.name, entries, native, dc.compile_fill(type(argument)) if static else None)

    def values(self, argument: Any, keep: list[Any]) -> list[Any]:
        """One value per slot for the C dispatcher: a native slot's value, or the address
        of freshly filled storage (kept alive in ``keep``)."""
        if self.fill_all is not None:
            storages = [ctype() for ctype, _ in self.entries]
            self.fill_all(argument, storages)
            keep.extend(storages)
            return [ctypes.addressof(storage) for storage in storages]
        out = []
        for entry, native in zip(self.entries, self.native, strict=True):
            if native:
                out.append(entry.value_of(argument))  # type: ignore[attr-defined]
            else:
                storage = entry[0]()
                entry[1](argument, storage)
                keep.append(storage)
                out.append(ctypes.addressof(storage))
        return out


def ctype_name(ctype: Any) -> str:
    """How a slot's ctypes type reads in ``cf.abi`` (``c_float``, ``LP_Memref2D``)."""
    return str(getattr(ctype, "__name__", ctype))
