"""Atomics in kernels: ``pl.atomic_add(x, i, v)`` -> ``memref.atomic_rmw``.

``x`` is a tensor parameter of the kernel, ``i`` an index (INDEX or integer scalar, or an
int) or a tuple of one per dimension, ``v`` a scalar or number of ``x``'s dtype (a
number takes it). Each call returns the element's old value. Element types: int32,
int64, uint32, uint64, float32, float64; and/or/xor and ``atomic_cas`` take integers.

| call | op | kinds |
|---|---|---|
| ``atomic_add`` | ``atomic_rmw addi`` / ``addf`` | all |
| ``atomic_min`` / ``atomic_max`` | ``mins``/``minu``/``minimumf`` (``max``...) | all |
| ``atomic_xchg`` | ``atomic_rmw assign`` | all |
| ``atomic_and`` / ``or`` / ``xor`` | ``andi`` / ``ori`` / ``xori`` | integers |
| ``atomic_cas(x, i, expected, v)`` | ``generic_atomic_rmw`` (compare-and-swap) | integers |

Both backends lower these to LLVM ``atomicrmw``/``cmpxchg``: real atomics when blocks
run in parallel on the CPU, ``atom.*`` on the GPU.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .._mlir import Value, arith, memref
from ..errors import InvalidOperationError, ParserTypeError
from ..markers import AtomicBuiltin
from ..types import FP32, FP64, INT32, INT64, UINT32, UINT64, DType, ScalarType, TensorType
from ..values import TypedValue, is_literal, literal_problem
from .element_parser import element_indices
from .state import ParserState, _describe

#: Element types atomics take (what LLVM and PTX both implement for 32/64-bit words).
ATOMIC_DTYPES = (INT32, INT64, UINT32, UINT64, FP32, FP64)

_KINDS = {  # (name, dtype kind) -> arith.AtomicRMWKind member
    ("add", "int"): "addi", ("add", "uint"): "addi", ("add", "float"): "addf",
    ("min", "int"): "mins", ("min", "uint"): "minu", ("min", "float"): "minimumf",
    ("max", "int"): "maxs", ("max", "uint"): "maxu", ("max", "float"): "maximumf",
    ("xchg", "int"): "assign", ("xchg", "uint"): "assign", ("xchg", "float"): "assign",
    ("and", "int"): "andi", ("and", "uint"): "andi",
    ("or", "int"): "ori", ("or", "uint"): "ori",
    ("xor", "int"): "xori", ("xor", "uint"): "xori",
}


class AtomicParser:
    """Emits the atomics above."""

    def __init__(self, state: ParserState) -> None:
        self.state = state

    def call(self, func: AtomicBuiltin, node: ast.Call, args: Sequence[object],
             kwargs: dict[str, object]) -> TypedValue:
        src, qual = self.state.src, repr(func)
        op = func.name.removeprefix("atomic_")
        count = 4 if op == "cas" else 3
        if kwargs or len(args) != count:
            shape = "x, i, expected, v" if op == "cas" else "x, i, v"
            src.error(node, InvalidOperationError, f"{qual} takes {count} arguments ({shape})")
        target = self._target(qual, args[0], node.args[0])
        dtype = target.type.dtype
        indices = element_indices(self.state, args[1], node.args[1], target)
        values = [self._operand(qual, v, n, dtype) for v, n in zip(args[2:], node.args[2:],
                                                                   strict=True)]
        b = self.state.builder
        if op == "cas":
            self._need_integer(qual, dtype, node.args[0])
            with b.located(node):
                result = self._cas(target.value, indices, values[0], values[1], dtype)
            return self.state.new(result, ScalarType(dtype))
        kind = _KINDS.get((op, dtype.kind))
        if kind is None:
            src.error(node.args[0], ParserTypeError,
                      f"{qual} takes integer elements; '{ast.unparse(node.args[0])}' holds "
                      f"{dtype!r}")
        with b.located(node):
            rmw = memref.AtomicRMWOp(getattr(arith.AtomicRMWKind, kind), values[0], target.value,
                                     indices, loc=b.loc, ip=b.ip)
        return self.state.new(rmw.result, ScalarType(dtype))

    def _target(self, qual: str, value: object, where: ast.expr) -> TypedValue:
        if not (isinstance(value, TypedValue) and isinstance(value.type, TensorType)):
            self.state.src.error(where, ParserTypeError,
                                 f"{qual}: the first argument must be a tensor parameter of the "
                                 f"kernel, got {_describe(value)}")
        dtype = value.type.dtype
        if dtype not in ATOMIC_DTYPES:
            names = ", ".join(d.numpy_name for d in ATOMIC_DTYPES)
            self.state.src.error(where, ParserTypeError,
                                 f"{qual}: atomics take elements of {names}; "
                                 f"'{ast.unparse(where)}' holds {dtype!r}")
        return value

    def _operand(self, qual: str, value: object, where: ast.expr, dtype: DType) -> Value:
        if isinstance(value, TypedValue):
            if value.type != ScalarType(dtype):
                self.state.src.error(where, ParserTypeError,
                                     f"{qual}: the value must be a {dtype!r} scalar like the "
                                     f"tensor's elements, got {value.type}")
            return value.value
        if not is_literal(value):
            self.state.src.error(where, ParserTypeError,
                                 f"{qual}: expected a {dtype!r} scalar or a number, got "
                                 f"{_describe(value)}")
        problem = literal_problem(value, dtype)
        if problem is not None:
            self.state.src.error(where, ParserTypeError, f"{qual}: {problem}")
        return self.state.materialize(value, where, dtype).value

    def _need_integer(self, qual: str, dtype: DType, where: ast.expr) -> None:
        if dtype.is_float:
            self.state.src.error(where, ParserTypeError,
                                 f"{qual} compares integers; '{ast.unparse(where)}' holds "
                                 f"{dtype!r} (compare-and-swap the bits of an integer view)")

    def _cas(self, base: Value, indices: list[Value], expected: Value, new: Value,
             dtype: DType) -> Value:
        b = self.state.builder
        mlir = b.mlir_type(ScalarType(dtype))
        op = memref.GenericAtomicRMWOp(mlir, base, indices, loc=b.loc, ip=b.ip)
        block = op.regions[0].blocks.append(mlir, arg_locs=[b.loc])
        with b.at(block):
            current = block.arguments[0]
            same = arith.CmpIOp(arith.CmpIPredicate.eq, current, expected, loc=b.loc,
                                ip=b.ip).result
            chosen = arith.SelectOp(same, new, current, loc=b.loc, ip=b.ip).result
            memref.AtomicYieldOp(chosen, loc=b.loc, ip=b.ip)
        return op.result
