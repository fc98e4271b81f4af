"""The per-call fast path of JIT-compiled functions (the C module behind it is private).

``PackedKernel(address, slots, symbols, name, ...)`` calls a packed-interface entry
(``void _mlir__mlir_ciface_<name>(void **args)``), marshalling each argument by its slot:
a memref descriptor from a buffer (element type, rank, static and dynamic sizes,
contiguity and writability checked), a scalar by value, a pointer, or a ``RAW`` slot
whose argument is the address of storage a Python fill already wrote (the protocol
path of user-registered argument types). ``Dispatcher(impl)`` sends ``f(*args,
out=...)`` straight to the installed kernel and everything else to ``impl``.

``SLOT_KINDS`` lists the slot kinds in the C module's numbering (``MEMREF`` is 0);
``FORMATS`` maps each buffer format character the C checks know to ``(element type
name, itemsize)``.
"""

from __future__ import annotations

from ._dispatch import (
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    FORMATS,
    I8,
    I16,
    I32,
    I64,
    MAX_RANK,
    MEMREF,
    PTR,
    RAW,
    U8,
    U16,
    U32,
    U64,
    Dispatcher,
    PackedKernel,
)

#: Slot kind names, indexed by their number in the C module.
SLOT_KINDS: tuple[str, ...] = tuple(sorted(
    ("MEMREF", "I64", "I32", "I16", "I8", "BOOL", "F64", "F32", "F16", "BF16", "U64", "U32",
     "U16", "U8", "PTR", "RAW"), key=lambda name: int(globals()[name])))

__all__ = ["BF16", "BOOL", "F16", "F32", "F64", "FORMATS", "I8", "I16", "I32", "I64", "MAX_RANK", "MEMREF",
           "PTR", "RAW", "SLOT_KINDS", "U8", "U16", "U32", "U64", "Dispatcher", "PackedKernel"]
