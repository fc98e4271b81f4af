# DSL annotations (Array[E, N], Align[T, A]) and struct constructors are not static types:
# mypy: disable-error-code="call-arg, type-arg, valid-type, misc"
"""dsl-core per-call costs: cache_signature and C-ABI fill, in ns/op.

Run: python bench/core_bench.py   (a few seconds). These are the operations the runtime does
on every call of a compiled function, for a scalar, a 4-field struct and a nested struct.
The peer, measured in the same run: plain ctypes, a ``ctypes.Structure`` with the same slots
built from the already unpacked Python numbers (what a hand-written binding pays at least).
"""

from __future__ import annotations

import ctypes
import timeit
from collections.abc import Callable
from functools import partial

import dsl_core as dc


@dc.struct
class Quad:
    a: dc.Int32
    b: dc.Float32
    c: dc.Int64
    d: dc.Float64


@dc.struct
class Nested:
    q: Quad
    h: dc.Float16
    inner: Quad
    flag: dc.Boolean


def ns_per_op(fn: Callable[[], object], repeat: int = 5, number: int = 100_000) -> float:
    """Best of ``repeat`` runs of ``number`` calls, in ns per call."""
    return min(timeit.Timer(fn).repeat(repeat, number)) / number * 1e9


def spec_fill(exemplar: object, value: object) -> Callable[[], None]:
    """Per-entry fills from c_abi_spec, as a generic runtime would call them."""
    spec = dc.c_abi_spec(exemplar)
    pairs = [(fill, ctype()) for ctype, fill in spec]

    def run() -> None:
        for fill, storage in pairs:
            fill(value, storage)

    return run


def compiled_fill(t: type, value: object) -> Callable[[], None]:
    """The per-type fast path: one generated fill for all slots."""
    fill = dc.compile_fill(t)
    storages = [ctype() for ctype in dc.abi_slots(t)]
    return lambda: fill(value, storages)


def ctypes_peer(t: type, value: object) -> Callable[[], object]:
    """A ctypes.Structure of ``t``'s slots built from plain Python numbers (the leaves)."""
    slots = dc.abi_slots(t)
    storages = [ctype() for ctype in slots]
    dc.compile_fill(t)(value, storages)
    leaves = [s.value for s in storages]
    layout = type("Slots", (ctypes.Structure,),
                  {"_fields_": [(f"s{i}", c) for i, c in enumerate(slots)]})
    return lambda: layout(*leaves)


def main() -> None:
    quad = Quad(1, 2.0, 3, 4.0)
    cases = [  # (row, type, value); a raw Python int is filled as an Int32 argument
        ("Int32 (Python int)", dc.Int32, 7),
        ("Int32 (DSL value)", dc.Int32, dc.Int32(7)),
        ("Quad (4 fields)", Quad, quad),
        ("Nested (10 leaves)", Nested, Nested(quad, 0.5, quad, True)),
    ]
    print(f"{'value':<20} {'slots':>5} {'cache_signature':>16} {'compile_fill':>13} "
          f"{'c_abi_spec fills':>17} {'ctypes Structure':>17}")
    for name, t, value in cases:
        signed = dc.Int32(value) if type(value) is int else value
        sig = ns_per_op(partial(dc.cache_signature, signed))
        fast = ns_per_op(compiled_fill(t, value))
        generic = ns_per_op(spec_fill(signed, value))
        peer = ns_per_op(ctypes_peer(t, value))
        print(f"{name:<20} {len(dc.abi_slots(t)):>5} {sig:>13.0f} ns {fast:>10.0f} ns "
              f"{generic:>14.0f} ns {peer:>14.0f} ns")


if __name__ == "__main__":
    main()
