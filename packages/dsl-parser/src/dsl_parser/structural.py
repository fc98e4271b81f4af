"""Structural equality of IR: same ops, types, attributes and dataflow, whatever the
locations and SSA names.

Float attributes compare by value, except NaNs, which compare by bits (the
same NaN payload is equal, different ones are not); ``+0.0 == -0.0``.
"""

from __future__ import annotations

import math
from typing import Any

from ._mlir import Operation, Value, ir


def _operation(obj: object) -> Operation:
    """The top-level operation of a Function, Program, Module or Operation."""
    module = getattr(obj, "module", None)
    if module is not None and not isinstance(obj, ir.Operation):
        obj = module
    if isinstance(obj, ir.Module):
        return obj.operation
    return getattr(obj, "operation", obj)


def structural_equal(a: object, b: object) -> bool:
    """Whether two IR objects (Function, Program, ir.Module, operations) are the same program."""
    return _Comparer().ops(_operation(a), _operation(b))


def _float_equal(a: Any, b: Any) -> bool:
    fa, fb = a, b
    if fa.type != fb.type:
        return False
    va, vb = fa.value, fb.value
    if math.isnan(va) or math.isnan(vb):
        return str(a) == str(b)
    return bool(va == vb)


def _attr_equal(a: object, b: object) -> bool:
    if isinstance(a, ir.FloatAttr) and isinstance(b, ir.FloatAttr):
        return _float_equal(a, b)
    return bool(a == b)


class _Comparer:
    """Walks two operations in lockstep, mapping the values of ``a`` to those of ``b``."""

    def __init__(self) -> None:
        self.values: dict[Value, Value] = {}

    def ops(self, a: Operation, b: Operation) -> bool:
        a, b = a.operation, b.operation
        if a.name != b.name or len(a.operands) != len(b.operands) \
                or len(a.results) != len(b.results) or len(a.regions) != len(b.regions):
            return False
        if any(self.values.get(x) != y for x, y in zip(a.operands, b.operands, strict=False)):
            return False
        if not self._attributes(a, b):
            return False
        for x, y in zip(a.results, b.results, strict=False):
            if x.type != y.type:
                return False
            self.values[x] = y
        return all(self._region(x, y) for x, y in zip(a.regions, b.regions, strict=False))

    def _attributes(self, a: Operation, b: Operation) -> bool:
        attrs_a = {a.attributes[i].name: a.attributes[i].attr for i in range(len(a.attributes))}
        attrs_b = {b.attributes[i].name: b.attributes[i].attr for i in range(len(b.attributes))}
        if attrs_a.keys() != attrs_b.keys():
            return False
        return all(_attr_equal(attrs_a[k], attrs_b[k]) for k in attrs_a)

    def _region(self, a: object, b: object) -> bool:
        blocks_a, blocks_b = list(a.blocks), list(b.blocks)  # type: ignore[attr-defined]
        if len(blocks_a) != len(blocks_b):
            return False
        return all(self._block(x, y) for x, y in zip(blocks_a, blocks_b, strict=False))

    def _block(self, a: object, b: object) -> bool:
        args_a, args_b = list(a.arguments), list(b.arguments)  # type: ignore[attr-defined]
        if len(args_a) != len(args_b):
            return False
        for x, y in zip(args_a, args_b, strict=False):
            if x.type != y.type:
                return False
            self.values[x] = y
        ops_a, ops_b = list(a.operations), list(b.operations)  # type: ignore[attr-defined]
        return len(ops_a) == len(ops_b) and all(
            self.ops(x, y) for x, y in zip(ops_a, ops_b, strict=True))
