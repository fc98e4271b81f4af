"""The kernel ABI description: every parameter's slots, types and layout.

A ``KernelABI`` is a frozen, validated record (``dsl_runtime.records``; JSON, stored
beside cached artifacts). ``build_abi`` derives it from the parsed function's ``Signature`` (the
parameters' DSL types) and dsl-core's dtype table, and describes the packed C interface
of docs/abi.md; ``abi_mismatch`` checks a cached one against a function;
``packed_plan`` turns it into the slot plan of ``dsl_mlir.dispatch.PackedKernel``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from dsl_core import dtypes

from .errors import CompileError
from .records import Record

if TYPE_CHECKING:
    from dsl_parser.function import Signature
    from dsl_parser.types import ParamType

    from .params import ParamSpec

#: Slot kinds, in the numbering of dsl_mlir.dispatch.SLOT_KINDS.
SLOT_KINDS = ("memref", "i64", "i32", "i16", "i8", "bool", "f64", "f32", "f16", "bf16",
              "u64", "u32", "u16", "u8", "ptr", "raw")

#: dtype name (numpy spelling) -> (scalar slot kind, buffer format char, C type), from
#: dsl-core's dtype table.
DTYPES: dict[str, tuple[str, str, str]] = {d.abi_name: (d.slot, d.format, d.c_type)
                                           for d in dtypes.ALL}

Dim = int | str | None  # static size, named dynamic dimension, anonymous dynamic


@dataclass(frozen=True, kw_only=True)
class Slot(Record):
    """One packed-interface slot: what ``args[i]`` points to."""

    kind: str
    ctype: str


@dataclass(frozen=True, kw_only=True)
class Param(Record):
    """A parameter (or a result, as an out-parameter) of the compiled function."""

    name: str
    role: Literal["input", "output", "constexpr"]
    kind: Literal["tensor", "scalar", "constexpr", "struct", "stream", "protocol"]
    dtype: str | None = None
    shape: tuple[Dim, ...] | None = None
    mlir_type: str | None = None
    value: str | None = None  # repr of a Constexpr value
    slots: tuple[Slot, ...] = ()
    #: a struct's scalar leaves ("p.a", ...) or a protocol argument's __c_abi_spec__ entries
    #: ("q.0", ...: tensor and scalar fields marshalled natively, "protocol" ones raw)
    fields: tuple[Param, ...] = ()


Param.NESTED = {"slots": Slot, "fields": Param}


@dataclass(frozen=True, kw_only=True)
class KernelABI(Record):
    """The ABI of one compiled specialization."""

    function: str
    calling_convention: Literal["mlir-packed-ciface-v1"] = "mlir-packed-ciface-v1"
    packed_symbol: str
    c_symbol: str
    params: tuple[Param, ...]
    results: tuple[Param, ...]
    symbols: tuple[str, ...]

    NESTED: ClassVar[dict[str, type[Record]]] = {"params": Param, "results": Param}

    @property
    def inputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.role == "input")

    def slots(self) -> list[Slot]:
        """All slots in call order: inputs, then one per result."""
        return [s for p in (*self.inputs, *self.results) for s in p.slots]


_CHECKED: list[bool] = []


def check_dispatcher(dispatch: Any) -> None:
    """RuntimeError unless the C dispatcher (``dsl_mlir.dispatch``) numbers its slot kinds as
    :data:`SLOT_KINDS` and reads every dtype's format character as dsl-core's dtype table
    describes it (once per process, before the first kernel is made)."""
    if _CHECKED:
        return
    problems = []
    if tuple(dispatch.SLOT_KINDS) != tuple(k.upper() for k in SLOT_KINDS):
        problems.append(f"slot kinds {dispatch.SLOT_KINDS} != {SLOT_KINDS}")
    for d in dtypes.ALL:
        if d.slot not in SLOT_KINDS:
            problems.append(f"{d.name}: no slot kind {d.slot!r}")
        seen = dispatch.FORMATS.get(d.format)
        if seen != (d.storage, d.itemsize):
            problems.append(f"{d.name}: format {d.format!r} is {seen} in the dispatcher, "
                            f"{(d.storage, d.itemsize)} in dsl-core's dtype table")
    if problems:
        raise RuntimeError("dsl-mlir's dispatcher and dsl-core's dtype table disagree: "
                           + "; ".join(problems))
    _CHECKED.append(True)


def memref_slot(dtype: str, rank: int) -> Slot:
    return Slot(kind="memref", ctype=f"Memref<{DTYPES[dtype][2].split()[0]}, {rank}> *")


def stream_slot() -> Slot:
    """A ``dc.Stream``: the stream handle (``None``/0: the default stream)."""
    return Slot(kind="ptr", ctype="void * /* stream */")


def raw_slot(ctype: str) -> Slot:
    """A slot filled in Python by a protocol argument's ``__c_abi_spec__`` entry."""
    return Slot(kind="raw", ctype=ctype)


def scalar_slot(dtype: str) -> Slot:
    kind, _, ctype = DTYPES[dtype]
    return Slot(kind=kind, ctype=ctype)


def _dims(shape: tuple[Dim, ...], symbols: tuple[str, ...], fresh: list[int]) -> list[int]:
    out = []
    for dim in shape:
        if isinstance(dim, int):
            out.append(dim)
        elif dim is None:  # anonymous: its own symbol, never compared
            fresh[0] += 1
            out.append(-(len(symbols) + fresh[0]))
        else:
            out.append(-(symbols.index(dim) + 1))
    return out


#: One slot of ``PackedKernel``'s plan: (name, kind, format, dims, writable).
PlanSlot = tuple[str, int, str, list[int], bool]


def packed_plan(abi: KernelABI) -> tuple[list[PlanSlot], tuple[str, ...]]:
    """``(slots, symbols)`` arguments of ``PackedKernel`` for this ABI."""
    flat = [leaf for p in (*abi.inputs, *abi.results) for leaf in (p.fields or (p,))]
    anonymous = sum(1 for p in flat if p.shape for d in p.shape if d is None)
    symbols = abi.symbols + tuple(f"?{i}" for i in range(anonymous))
    fresh = [0]
    plan: list[PlanSlot] = []
    for param in flat:
        if param.kind == "protocol":  # raw slots, filled by a __c_abi_spec__ entry's fill
            raw = SLOT_KINDS.index("raw")
            plan.extend((param.name if len(param.slots) == 1 else f"{param.name}.{i}", raw, "",
                         [], False) for i in range(len(param.slots)))
            continue
        kind = SLOT_KINDS.index(param.slots[0].kind)
        if param.kind == "tensor":
            assert param.dtype is not None and param.shape is not None
            fmt = DTYPES[param.dtype][1]
            plan.append((param.name, kind, fmt, _dims(param.shape, abi.symbols, fresh),
                         param.role == "output"))
        else:
            plan.append((param.name, kind, "", [], False))
    return plan, symbols


def _shape(shape: tuple[Any, ...]) -> tuple[int | str | None, ...]:
    return tuple(d if isinstance(d, int) else d.name for d in shape)


def _param(name: str, role: Literal["input", "output"], t: ParamType, ctx: Any,
           host: bool = False) -> Param:
    from dsl_parser.types import StreamType, TensorType, memref_type

    if isinstance(t, StreamType):
        return Param(name=name, role=role, kind="stream", mlir_type=str(t.to_mlir(ctx)),
                     slots=(stream_slot(),))
    dtype = t.dtype.abi_name  # dsl-core's dtype table
    if isinstance(t, TensorType):
        assert t.shape is not None, f"{name}: unshaped tensors are specialized before this"
        # functions that launch kernels take memrefs
        mlir = str(memref_type(t, ctx) if host else t.to_mlir(ctx))
        return Param(name=name, role=role, kind="tensor", dtype=dtype, shape=_shape(t.shape),
                     mlir_type=mlir, slots=(memref_slot(dtype, len(t.shape)),))
    mlir = str(t.to_mlir(ctx))
    if role == "output":
        raise CompileError(f"result '{name}' is a scalar; return a tensor (scalar results are "
                           "not supported by the runtime's calling convention)")
    return Param(name=name, role=role, kind="scalar", dtype=dtype, mlir_type=mlir,
                 slots=(scalar_slot(dtype),))


#: The slot kinds the C dispatcher marshals itself: a protocol argument's ``NativeSlot``
#: entry of one of these kinds is marshalled natively, any other entry by its Python fill.
NATIVE_KINDS: frozenset[str] = frozenset(SLOT_KINDS) - {"raw"}


def _protocol_param(spec: ParamSpec, parsed: Mapping[str, ParamType], argument: Any,
                    ctx: Any, host: bool) -> Param:
    """A protocol parameter: one field per ``__c_abi_spec__`` entry (``q.0``, ``q.1``...)
    with its IR type as parsed; a ``NativeSlot`` entry of a kind in :data:`NATIVE_KINDS`
    is a tensor or scalar field (the C dispatcher marshals it), any other a raw slot."""
    import dsl_core as dc

    types = [(n, t) for n, t in parsed.items() if n.startswith(spec.name + ".")]
    entries = dc.c_abi_spec(argument)
    if len(entries) != len(types):
        raise CompileError(f"argument '{spec.name}': {spec.dsl_type.__qualname__}'s "
                           f"__c_abi_spec__ has {len(entries)} entries but __get_ir_types__ "
                           f"gave {len(types)} IR types")
    fields = tuple(_protocol_field(spec, i, entry, name, t, ctx, host)
                   for i, (entry, (name, t)) in enumerate(zip(entries, types, strict=True)))
    return Param(name=spec.name, role="input", kind="protocol",
                 mlir_type=", ".join(str(f.mlir_type) for f in fields),
                 slots=tuple(s for f in fields for s in f.slots), fields=fields)


def _protocol_field(spec: ParamSpec, i: int, entry: Any, name: str, t: ParamType, ctx: Any,
                    host: bool) -> Param:
    from dsl_core.abi import NativeSlot
    from dsl_parser.types import TensorType, memref_type

    from .arguments import ctype_name

    if isinstance(entry, NativeSlot) and entry.kind in NATIVE_KINDS:
        problem = _native_mismatch(entry, t)
        if problem is not None:
            raise CompileError(f"argument '{spec.name}': entry {i} of "
                               f"{spec.dsl_type.__qualname__}'s __c_abi_spec__ is a {problem}")
        return _param(name, "input", t, ctx, host)
    mlir = memref_type(t, ctx) if host and isinstance(t, TensorType) else t.to_mlir(ctx)
    return Param(name=name, role="input", kind="protocol", mlir_type=str(mlir),
                 slots=(raw_slot(ctype_name(entry[0])),))


def _native_mismatch(entry: Any, t: ParamType) -> str | None:
    """Why a NativeSlot entry cannot pass a value of IR type ``t`` (None when it can)."""
    from dsl_parser.types import ScalarType, TensorType

    if entry.kind == "memref":
        if isinstance(t, TensorType) and t.shape is not None \
                and (entry.dtype is None or entry.dtype is t.dtype) \
                and (entry.rank is None or entry.rank == len(t.shape)):
            return None
        what = f"{entry.rank}D {entry.dtype.numpy_name if entry.dtype else ''} array slot"
    elif isinstance(t, ScalarType) and t.dtype.slot == entry.kind:
        return None
    else:
        what = f"native {entry.kind} slot"
    return f"{what.replace('  ', ' ')} but __get_ir_types__ gave {t} for it"


def build_abi(name: str, specs: tuple[ParamSpec, ...], signature: Signature,
              constexprs: Mapping[str, Any], ctx: Any, host: bool = False,
              protocols: Mapping[str, Any] | None = None) -> KernelABI:
    """The KernelABI of a parsed function (``signature`` from dsl-parser); ``protocols``
    holds the JitArgument of each protocol parameter."""
    parsed = {p.name: p.type for p in signature.params}
    params = []
    for spec in specs:
        if spec.kind == "protocol":
            params.append(_protocol_param(spec, parsed, (protocols or {})[spec.name], ctx, host))
        elif spec.kind == "constexpr":
            params.append(Param(name=spec.name, role="constexpr", kind="constexpr",
                                value=repr(constexprs[spec.name])))
        elif spec.kind == "struct":
            leaves = tuple(_param(n, "input", t, ctx, host) for n, t in parsed.items()
                           if n.startswith(spec.name + "."))
            params.append(Param(name=spec.name, role="input", kind="struct",
                                mlir_type=f"!struct<{spec.annotation.__qualname__}>",
                                slots=tuple(s for leaf in leaves for s in leaf.slots),
                                fields=leaves))
        else:
            params.append(_param(spec.name, "input", parsed[spec.name], ctx, host))
    results = tuple(_param(f"result{i}" if len(signature.results) > 1 else "result", "output",
                           t, ctx) for i, t in enumerate(signature.results))
    symbols: list[str] = []
    for p in (*params, *results):
        for d in p.shape or ():
            if isinstance(d, str) and d not in symbols:
                symbols.append(d)
    return KernelABI(function=name, packed_symbol=f"_mlir__mlir_ciface_{name}",
                     c_symbol=f"_mlir_ciface_{name}", params=tuple(params), results=results,
                     symbols=tuple(symbols))


def abi_mismatch(abi: KernelABI, name: str, specs: tuple[ParamSpec, ...],
                 overrides: Mapping[str, Any]) -> str | None:
    """Why a (cached) ABI cannot be the ABI of function ``name`` with these parameters and
    specialization, or None when it can (a forged or stale ``abi.json`` is never used)."""
    if (abi.function, abi.c_symbol, abi.packed_symbol) != (
            name, f"_mlir_ciface_{name}", f"_mlir__mlir_ciface_{name}"):
        return "its function or entry symbols differ"
    got, want = [(p.name, p.kind) for p in abi.params], [(s.name, s.kind) for s in specs]
    if got != want:
        return f"its parameters are {got}, expected {want}"
    for spec, param in zip(specs, abi.params, strict=True):
        problem = _param_mismatch(spec, param, overrides.get(spec.name))
        if problem is not None:
            return f"parameter '{param.name}': {problem}"
    for r in abi.results:
        if r.kind != "tensor" or r.dtype not in DTYPES or r.shape is None \
                or r.slots != (memref_slot(r.dtype, len(r.shape)),):
            return f"result '{r.name}' is not a tensor with a memref slot"
    return None


def _param_mismatch(spec: ParamSpec, param: Param, override: Any) -> str | None:
    if spec.kind == "stream":
        return None if param.slots == (stream_slot(),) else "not a stream slot"
    if spec.kind == "protocol":
        return None if param.role == "input" and param.slots and len(param.fields) == len(
            param.slots) and [s for f in param.fields for s in f.slots] == list(param.slots) \
            else "not a protocol argument's slots"
    if spec.kind in ("constexpr", "struct"):
        return None if param.role == ("constexpr" if spec.kind == "constexpr" else "input") \
            else "wrong role"
    t = override if spec.kind == "tensor" and hasattr(override, "shape") else spec.annotation
    dtype = t.dtype.abi_name
    if param.role != "input" or param.dtype != dtype:
        return f"dtype {param.dtype}, expected {dtype}"
    if spec.kind == "scalar":
        return None if param.slots == (scalar_slot(dtype),) else "not a scalar slot"
    shape = tuple(t.shape)
    if param.shape is None or len(param.shape) != len(shape) \
            or param.slots != (memref_slot(dtype, len(shape)),):
        return "wrong rank"
    for mine, theirs in zip(shape, param.shape, strict=True):
        if isinstance(mine, int) != isinstance(theirs, int) or (isinstance(mine, int) and mine != theirs):
            return f"shape {list(param.shape)}, expected {list(_shape(shape))}"
    return None
