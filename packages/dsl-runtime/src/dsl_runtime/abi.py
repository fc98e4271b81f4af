"""The kernel ABI description: every parameter's slots, types and layout.

A ``KernelABI`` is a pydantic model (JSON-serializable, stored beside cached
artifacts). It is derived from the parsed function's signature and describes
the packed C interface of docs/abi.md; ``packed_plan`` turns it into the slot
plan of ``dsl_mlir._dispatch.PackedKernel``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from dsl_core import dtypes

#: Slot kinds, in the numbering of dsl_mlir._dispatch.
SLOT_KINDS = ("memref", "i64", "i32", "i16", "i8", "bool", "f64", "f32", "f16", "bf16",
              "u64", "u32", "u16", "u8", "ptr")

#: dtype name (numpy spelling) -> (scalar slot kind, buffer format char, C type), from
#: dsl-core's dtype table.
DTYPES: dict[str, tuple[str, str, str]] = {d.name: (d.slot, d.format, d.c_type)
                                           for d in dtypes.ALL}

Dim = int | str | None  # static size, named dynamic dimension, anonymous dynamic


class Slot(BaseModel):
    """One packed-interface slot: what ``args[i]`` points to."""

    model_config = ConfigDict(frozen=True)
    kind: str
    ctype: str


class Param(BaseModel):
    """A parameter (or a result, as an out-parameter) of the compiled function."""

    model_config = ConfigDict(frozen=True)
    name: str
    role: Literal["input", "output", "constexpr"]
    kind: Literal["tensor", "scalar", "constexpr", "struct", "stream"]
    dtype: str | None = None
    shape: tuple[Dim, ...] | None = None
    mlir_type: str | None = None
    value: str | None = None  # repr of a Constexpr value
    slots: tuple[Slot, ...] = ()
    fields: tuple[Param, ...] = ()  # a struct's scalar leaves ("p.a", ...), one slot each


class KernelABI(BaseModel):
    """The ABI of one compiled specialization."""

    model_config = ConfigDict(frozen=True)
    function: str
    calling_convention: Literal["mlir-packed-ciface-v1"] = "mlir-packed-ciface-v1"
    packed_symbol: str
    c_symbol: str
    params: tuple[Param, ...]
    results: tuple[Param, ...]
    symbols: tuple[str, ...]

    @property
    def inputs(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.role == "input")

    def slots(self) -> list[Slot]:
        """All slots in call order: inputs, then one per result."""
        return [s for p in (*self.inputs, *self.results) for s in p.slots]


def memref_slot(dtype: str, rank: int) -> Slot:
    return Slot(kind="memref", ctype=f"Memref<{DTYPES[dtype][2].split()[0]}, {rank}> *")


def stream_slot() -> Slot:
    """A ``dc.Stream``: the stream handle (``None``/0: the default stream)."""
    return Slot(kind="ptr", ctype="void * /* stream */")


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


def packed_plan(abi: KernelABI) -> tuple[list[tuple[str, int, str, list[int], bool]], tuple[str, ...]]:
    """``(slots, symbols)`` arguments of ``PackedKernel`` for this ABI."""
    flat = [leaf for p in (*abi.inputs, *abi.results) for leaf in (p.fields or (p,))]
    anonymous = sum(1 for p in flat if p.shape for d in p.shape if d is None)
    symbols = abi.symbols + tuple(f"?{i}" for i in range(anonymous))
    fresh = [0]
    plan = []
    for param in flat:
        kind = SLOT_KINDS.index(param.slots[0].kind)
        if param.kind == "tensor":
            assert param.dtype is not None and param.shape is not None
            fmt = DTYPES[param.dtype][1]
            plan.append((param.name, kind, fmt, _dims(param.shape, abi.symbols, fresh),
                         param.role == "output"))
        else:
            plan.append((param.name, kind, "", [], False))
    return plan, symbols
