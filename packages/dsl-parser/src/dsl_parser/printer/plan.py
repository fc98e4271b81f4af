"""Which ops print as statements and which inline into the expression that uses them.

An unnamed single-use value inlines into its user when re-parsing the printed
expression rebuilds the ops in the same order: the user's inlinable operands
must be exactly the most recent pending expressions of the block. Anything
else becomes a statement with a name. Reads of symbolic dimensions
(``tensor.dim`` of a parameter whose shape names it) print as the name.
"""

from __future__ import annotations

from collections.abc import Callable

from .._mlir import Operation, Value
from ..types import Dynamic, PlType, TensorType

_NOT_INLINABLE = frozenset({"scf.for", "scf.if", "scf.yield", "func.return"})

TypeOf = Callable[[Value], PlType]


def dim_name(op: Operation, type_of: TypeOf, params: set[Value]) -> str | None:
    """``M`` when ``op`` reads the symbolic dimension M of a parameter."""
    op = op.operation
    if op.name != "tensor.dim" or op.operands[0] not in params:
        return None
    index_op = op.operands[1].owner
    if getattr(index_op, "name", None) != "arith.constant":
        return None
    t = type_of(op.operands[0])
    axis = int(str(index_op.attributes["value"]).split(":")[0])
    if isinstance(t, TensorType) and t.shape and 0 <= axis < len(t.shape):
        dim = t.shape[axis]
        if isinstance(dim, Dynamic) and dim.name is not None:
            return dim.name
    return None


class BlockPlan:
    """The statements of one block, the ops inlined into them and the dimension reads."""

    def __init__(self, block: object, names: dict[Value, str], type_of: TypeOf,
                 params: set[Value]) -> None:
        self.inlined: set[Operation] = set()
        self.dims: dict[Operation, str] = {}
        ops = [op.operation for op in block.operations]  # type: ignore[attr-defined]
        self._find_dims(ops, type_of, params)
        self._plan(ops, names)
        self.statements = [op for op in ops if op not in self.inlined and op not in self.dims]

    def _find_dims(self, ops: list[Operation], type_of: TypeOf, params: set[Value]) -> None:
        for op in ops:
            name = dim_name(op, type_of, params)
            if name is not None:
                self.dims[op] = name
                index_op = op.operands[1].owner
                if _uses(op.operands[1]) == 1:
                    self.dims[index_op.operation] = ""

    def _candidate(self, op: Operation, names: dict[Value, str]) -> bool:
        if op.name in _NOT_INLINABLE or len(op.results) != 1 or len(op.regions):
            return False
        result = op.results[0]
        if result in names or _uses(result) != 1:
            return False
        user = next(iter(result.uses)).owner
        return bool(user.operation.block == op.block)

    def _plan(self, ops: list[Operation], names: dict[Value, str]) -> None:
        pending: list[Operation] = []
        for op in ops:
            if op in self.dims:
                continue
            wanted = []
            for operand in op.operands:
                owner = getattr(operand.owner, "operation", None)
                if owner is not None and owner in pending and owner not in wanted:
                    wanted.append(owner)
            k = len(wanted)
            if k and len(pending) >= k and set(pending[-k:]) == set(wanted):
                del pending[-k:]
                self.inlined.update(wanted)
            elif k:
                pending.clear()
            if self._candidate(op, names):
                pending.append(op)
            else:
                pending.clear()


def _uses(value: Value) -> int:
    return sum(1 for _ in value.uses)
