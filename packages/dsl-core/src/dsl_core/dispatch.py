"""The free functions that dispatch to the protocol hooks.

Dispatch is by concrete type through per-type caches, never by ``isinstance`` against a
runtime-checkable Protocol. ``get_ir_types``, ``cache_signature``, ``c_abi_spec`` and
``extract_to_ir_values`` also accept tuples/lists of values (results concatenated in order;
signatures as a tuple); ``construct_from_ir_values`` accepts a tuple/list of types.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ._memory import check_address
from ._util import type_name
from .abi import abi_spec_of_type, static_leaves
from .capabilities import why_not
from .protocols import AbiEntry
from .signatures import has_static_signature, type_signature

_SEQUENCES = (tuple, list)
_SIG_FN: dict[type, Callable[[Any], Hashable]] = {}
_STATIC_SIG: dict[type, Hashable] = {}
_NONE: Any = object()
_STATIC_ABI: dict[type, bool] = {}


def _hook(where: str, t: type, protocol: str, name: str) -> Any:
    hook = getattr(t, name, None)
    if hook is None:
        raise TypeError(f"{where}: {why_not(t, protocol)}")
    return hook


def _value_hook(where: str, value: Any, protocol: str, name: str) -> Any:
    _hook(where, type(value), protocol, name)
    return getattr(value, name)


def _storable_type(where: str, t: Any) -> type:
    if not isinstance(t, type):
        raise TypeError(f"{where}: expected a Storable type, got {type(t).__name__} {t!r}")
    return t


# -- Storable -------------------------------------------------------------------------------
def dsl_size_of(t: type) -> int:
    """Static byte size of the Storable type ``t``."""
    t = _storable_type("dsl_size_of", t)
    return int(_hook("dsl_size_of", t, "Storable", "__dsl_size_of__")())


def dsl_align_of(t: type) -> int:
    """Required byte alignment of the Storable type ``t``."""
    t = _storable_type("dsl_align_of", t)
    return int(_hook("dsl_align_of", t, "Storable", "__dsl_align_of__")())


def peek_from_ptr(t: type, ptr: Any) -> Any:
    """Read a ``t`` from ``ptr`` (an int address, ctypes object, numpy array or buffer)."""
    t = _storable_type("peek_from_ptr", t)
    hook = _hook("peek_from_ptr", t, "Storable", "__peek_from_ptr__")
    return hook(check_address(f"peek_from_ptr({type_name(t)})", ptr))


def poke_into_ptr(t: type, ptr: Any, value: Any) -> None:
    """Write ``value`` as a ``t`` at ``ptr``."""
    t = _storable_type("poke_into_ptr", t)
    hook = _hook("poke_into_ptr", t, "Storable", "__poke_into_ptr__")
    hook(check_address(f"poke_into_ptr({type_name(t)})", ptr), value)


# -- JitArgument ----------------------------------------------------------------------------
def get_ir_types(value: Any) -> list[Any]:
    """MLIR types of a JIT argument (or of each element of a tuple/list, concatenated)."""
    if value.__class__ in _SEQUENCES:
        return [ty for v in value for ty in get_ir_types(v)]
    return list(_value_hook("get_ir_types", value, "JitArgument", "__get_ir_types__")())


def _sequence_signature(value: Any) -> Hashable:
    return tuple([cache_signature(v) for v in value])


def _signature_fn(t: type) -> Callable[[Any], Hashable]:
    if t in _SEQUENCES:
        return _sequence_signature
    _hook("cache_signature", t, "JitArgument", "__cache_signature__")
    if has_static_signature(t):
        sig = type_signature(t)
        return lambda _v: sig
    return lambda v: v.__cache_signature__()


def cache_signature(value: Any) -> Hashable:
    """The stable, hashable cache-key contribution of a JIT argument."""
    cls = value.__class__
    sig: Hashable = _STATIC_SIG.get(cls, _NONE)
    if sig is not _NONE:
        return sig
    fn = _SIG_FN.get(cls)
    if fn is None:
        fn = _SIG_FN[cls] = _signature_fn(cls)
        if cls not in _SEQUENCES and has_static_signature(cls):
            _STATIC_SIG[cls] = fn(value)
    return fn(value)


def _sequence_spec(value: Sequence[Any]) -> list[AbiEntry]:
    spec: list[AbiEntry] = []
    for i, item in enumerate(value):
        for ctype, fill in c_abi_spec(item):
            spec.append((ctype, _indexed(fill, i)))
    return spec


def _indexed(fill: Callable[[Any, Any], None], i: int) -> Callable[[Any, Any], None]:
    return lambda arg, storage: fill(arg[i], storage)


def c_abi_spec(value: Any) -> list[AbiEntry]:
    """Ordered ``(ctype, fill)`` entries; each ``fill(argument, storage)`` reads ``argument``."""
    t = value.__class__
    static = _STATIC_ABI.get(t)
    if static is None:
        static = _STATIC_ABI[t] = static_leaves(t) is not None
    if static:
        return abi_spec_of_type(t)
    if t in _SEQUENCES:
        return _sequence_spec(value)
    return list(_value_hook("c_abi_spec", value, "JitArgument", "__c_abi_spec__")())


# -- DslType --------------------------------------------------------------------------------
def extract_to_ir_values(value: Any) -> list[Any]:
    """The ordered ``ir.Value``s of a DSL value (tuples/lists concatenated)."""
    if value.__class__ in _SEQUENCES:
        return [v for item in value for v in extract_to_ir_values(item)]
    hook = _value_hook("extract_to_ir_values", value, "DslType", "__extract_to_ir_values__")
    return list(hook())


def ir_arity(t: type, exemplar: Any = None) -> int:
    """How many ``ir.Value``s a ``t`` takes; from the type, else from the exemplar."""
    hook = getattr(t, "__dsl_ir_arity__", None)
    if hook is not None:
        return int(hook(exemplar))
    if exemplar is not None and getattr(type(exemplar), "__get_ir_types__", None) is not None:
        return len(get_ir_types(exemplar))
    if exemplar is not None and getattr(type(exemplar), "__extract_to_ir_values__", None):
        return len(extract_to_ir_values(exemplar))
    raise TypeError(f"construct_from_ir_values: the number of ir.Values of {type_name(t)} "
                    "depends on its value; pass an exemplar")


def construct_from_ir_values(t: Any, values: Sequence[Any], exemplar: Any = None) -> Any:
    """Rebuild a ``t`` (or a tuple of values for a tuple/list of types) from SSA values."""
    if t.__class__ in _SEQUENCES:
        return _construct_sequence(t, list(values), exemplar)
    if not isinstance(t, type):
        raise TypeError(f"construct_from_ir_values: expected a DslType type, got {t!r}")
    hook = _hook("construct_from_ir_values", t, "DslType", "__construct_from_ir_values__")
    return hook(list(values), exemplar)


def _construct_sequence(types: Sequence[Any], values: list[Any], exemplar: Any) -> tuple[Any, ...]:
    exemplars = list(exemplar) if exemplar is not None else [None] * len(types)
    if len(exemplars) != len(types):
        raise TypeError(f"construct_from_ir_values: {len(types)} types but "
                        f"{len(exemplars)} exemplars")
    counts = [ir_arity(t, e) for t, e in zip(types, exemplars, strict=True)]
    if sum(counts) != len(values):
        raise TypeError(f"construct_from_ir_values: the types expect {sum(counts)} "
                        f"ir.Values, got {len(values)}")
    out, start = [], 0
    for t, e, n in zip(types, exemplars, counts, strict=True):
        out.append(construct_from_ir_values(t, values[start:start + n], e))
        start += n
    return tuple(out)


def coerce_to(t: type, value: Any) -> Any:
    """``value`` as a value of DSL type ``t`` (for struct fields, array elements)."""
    coerce = getattr(t, "_dsl_coerce_", None)
    if coerce is not None:
        return coerce(value)
    if isinstance(value, t):
        return value
    raise TypeError(f"expected a {type_name(t)}, got {type(value).__name__}")
