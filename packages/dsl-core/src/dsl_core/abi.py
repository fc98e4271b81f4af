"""The packed C ABI: ctypes slots and the fills that write each call's argument into them.

Scalars take one slot of the matching ctypes type (Float16/BFloat16: their ``c_uint16`` bit
pattern; Boolean: ``c_bool``; Stream: ``c_void_p``). A struct passed by value is flattened
recursively: one slot per scalar leaf in declaration order, Constexpr fields contributing
none. Everything here is cached per concrete type; fills are generated once per type.

Every entry of a static ABI is a :class:`NativeSlot`: besides its ``(ctype, fill)`` it
names its slot kind and its *source* (the Python value of the slot: ``v.a.value`` for a
struct leaf), so a dispatcher that marshals that kind itself (dsl-runtime's C dispatcher)
never calls the Python fill; one that does not calls ``fill``. User types may return
NativeSlot entries from their own ``__c_abi_spec__`` (see :func:`scalar_slot`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import _numbers
from ._memory import ctypes_module
from ._util import type_name
from .protocols import AbiEntry
from .scalars import BFloat16, Boolean, Float16, Float32, Float64, Integer, Numeric
from .stream import Stream, stream_handle

Leaf = tuple[tuple[str, ...], type]
Source = Callable[[Any], Any]
Fill = Callable[[Any, Any], None]
FillAll = Callable[[Any, Sequence[Any]], None]

_SLOTS: dict[type, list[Any]] = {}
_FILL: dict[type, FillAll] = {}
_SPEC: dict[type, list[AbiEntry]] = {}


class NativeSlot(tuple):  # type: ignore[type-arg]
    """An ``__c_abi_spec__`` entry naming its slot kind, so that a dispatcher knowing the
    kind marshals ``source(argument)`` itself instead of calling ``fill`` per call.

    It unpacks as every entry does, ``ctype, fill = entry``. ``kind`` is ``"memref"``
    (``source`` gives a buffer of ``dtype`` elements and ``rank`` dimensions), a scalar
    slot kind of the dtype table (``DType.slot``: ``"f32"``, ``"i32"``, ``"u8"``...;
    ``source`` gives a number) or ``"ptr"`` (a pointer-sized int handle, None for NULL).
    ``source`` is ``None`` when the slot's value is the argument itself.
    """

    kind: str
    source: Source | None
    dtype: Any
    rank: int | None

    def __new__(cls, ctype: Any, fill: Fill, kind: str, source: Source | None = None, *,
                dtype: Any = None, rank: int | None = None) -> NativeSlot:
        entry = super().__new__(cls, (ctype, fill))
        entry.kind, entry.source, entry.dtype, entry.rank = kind, source, dtype, rank
        return entry

    def value_of(self, argument: Any) -> Any:
        """What a dispatcher marshals for this slot from ``argument``."""
        return argument if self.source is None else self.source(argument)

    def __repr__(self) -> str:
        return f"NativeSlot({self.kind}, {getattr(self[0], '__name__', self[0])})"


def scalar_slot(t: type, source: Source) -> NativeSlot:
    """The entry of a scalar slot of dsl-core scalar type ``t`` (``dc.Float32``...) whose
    value is ``source(argument)``: marshalled natively by a dispatcher that knows the
    dtype's slot kind, else written by ``t``'s fill."""
    one = scalar_fill(t)

    def fill(argument: Any, storage: Any) -> None:
        one(source(argument), storage)

    return NativeSlot(leaf_ctype(t), fill, _leaf_kind(t), source, dtype=getattr(t, "dtype", None))


def _leaf_kind(leaf: type) -> str:
    return "ptr" if leaf is Stream else str(leaf.dtype.slot)  # type: ignore[attr-defined]


def static_leaves(t: type) -> list[Leaf] | None:
    """``[(field path, leaf type)]`` when ``t``'s ABI is fixed by its type, else ``None``."""
    if t is Stream or (isinstance(t, type) and issubclass(t, Numeric) and t.ctype_name):
        return [((), t)]
    leaves: list[Leaf] | None = getattr(t, "__dsl_abi_leaves__", None)
    return leaves


def _require_leaves(where: str, t: type) -> list[Leaf]:
    leaves = static_leaves(t)
    if leaves is None:
        raise TypeError(f"{where}: {type_name(t)} has no static C ABI (use c_abi_spec(value))")
    return leaves


def leaf_ctype(leaf: type) -> Any:
    ct = ctypes_module()
    return ct.c_void_p if leaf is Stream else getattr(ct, leaf.ctype_name)  # type: ignore[attr-defined]


def abi_slots(t: type) -> list[Any]:
    """The ctypes types of ``t``'s packed C-ABI slots, in order."""
    slots = _SLOTS.get(t)
    if slots is None:
        slots = [leaf_ctype(leaf) for _, leaf in _require_leaves("abi_slots", t)]
        _SLOTS[t] = slots
    return list(slots)


_f16 = _numbers.f16_bits


def _bf16(x: float) -> int:
    return _numbers.bf16_bits("BFloat16", x)


def _trusted_expr(leaf: type, x: str) -> str:
    """Expression giving the slot value of ``x``, an already-validated value of ``leaf``."""
    if leaf is Float16:
        return f"_f16({x}._v)"
    if leaf is BFloat16:
        return f"_bf16({x}._v)"
    if leaf is Stream:
        return f"_handle({x})"
    return f"{x}._v"


_NAMESPACE: dict[str, Any] = {"_f16": _f16, "_bf16": _bf16, "_handle": stream_handle}


def _generate(name: str, t: type, params: str, body: list[str]) -> Any:
    ns = dict(_NAMESPACE, T=t)
    src = "\n".join([f"def {name}({params}):", *("    " + line for line in body)])
    exec(src, ns)
    return ns[name]


def _coerce_line(t: type) -> list[str]:
    return ["if v.__class__ is not T:", "    v = T._dsl_coerce_(v)"]


def _composite_fill(t: type, leaves: list[Leaf]) -> FillAll:
    body = _coerce_line(t)
    for i, (path, leaf) in enumerate(leaves):
        expr = _trusted_expr(leaf, "v" + "".join("." + p for p in path))
        body.append(f"s[{i}].value = {expr}")
    return _generate("fill", t, "v, s", body)  # type: ignore[no-any-return]


def _composite_entry(t: type, path: tuple[str, ...], leaf: type) -> NativeSlot:
    x = "v" + "".join("." + p for p in path)
    fill = _generate("fill", t, "v, st", [*_coerce_line(t),
                                          f"st.value = {_trusted_expr(leaf, x)}"])
    value = f"_handle({x})" if leaf is Stream else f"{x}._v"
    source = _generate("source", t, "v", [*_coerce_line(t), f"return {value}"])
    return NativeSlot(leaf_ctype(leaf), fill, _leaf_kind(leaf), source,
                      dtype=getattr(leaf, "dtype", None))


def scalar_fill(t: type) -> Fill:
    """``fill(argument, storage)`` for a scalar type or Stream; accepts raw Python values."""
    if t is Stream:
        return _stream_fill
    if issubclass(t, Integer):
        return _int_fill(t)
    if t is Float32:
        return _f32_fill(t)
    if t is Float64 or t is Boolean:
        return _plain_fill(t, float if t is Float64 else bool)
    return _bits_fill(t)


def _stream_fill(arg: Any, st: Any) -> None:
    st.value = stream_handle(arg)


def _int_fill(t: Any) -> Fill:
    lo, hi = t.lo, t.hi

    def fill(arg: Any, st: Any) -> None:
        c = arg.__class__
        if c is int and lo <= arg <= hi:
            st.value = arg
        else:
            st.value = arg._v if c is t else t._dsl_coerce_(arg)._v

    return fill


def _f32_fill(t: Any) -> Fill:
    limit = _numbers.F32_LIMIT

    def fill(arg: Any, st: Any) -> None:
        c = arg.__class__
        if c is float and -limit < arg < limit:
            st.value = arg
        else:
            st.value = arg._v if c is t else t._dsl_coerce_(arg)._v

    return fill


def _plain_fill(t: Any, fast: type) -> Fill:
    def fill(arg: Any, st: Any) -> None:
        c = arg.__class__
        st.value = arg if c is fast else arg._v if c is t else t._dsl_coerce_(arg)._v

    return fill


def _bits_fill(t: Any) -> Fill:
    to_bits = _f16 if t is Float16 else _bf16

    def fill(arg: Any, st: Any) -> None:
        st.value = to_bits(t._dsl_coerce_(arg)._v)

    return fill


def compile_fill(t: type) -> FillAll:
    """One callable ``fill(value, storages)`` writing all of ``t``'s slots (see abi_slots)."""
    fill = _FILL.get(t)
    if fill is None:
        leaves = _require_leaves("compile_fill", t)
        if leaves == [((), t)]:
            one = scalar_fill(t)

            def fill(v: Any, s: Sequence[Any]) -> None:
                one(v, s[0])
        else:
            fill = _composite_fill(t, leaves)
        _FILL[t] = fill
    return fill


def abi_spec_of_type(t: type) -> list[AbiEntry]:
    """``[(ctype, fill(argument, storage))]`` for a type with a static ABI (cached)."""
    spec = _SPEC.get(t)
    if spec is None:
        leaves = _require_leaves("c_abi_spec", t)
        if leaves == [((), t)]:
            source = stream_handle if t is Stream else _scalar_source(t)
            spec = [NativeSlot(leaf_ctype(t), scalar_fill(t), _leaf_kind(t), source,
                               dtype=getattr(t, "dtype", None))]
        else:
            spec = [_composite_entry(t, p, leaf) for p, leaf in leaves]
        _SPEC[t] = spec
    return list(spec)


def _scalar_source(t: Any) -> Source:
    """The plain Python value of an argument of scalar type ``t`` (checked by ``t``)."""
    def source(argument: Any) -> Any:
        return argument._v if argument.__class__ is t else t._dsl_coerce_(argument)._v

    return source
