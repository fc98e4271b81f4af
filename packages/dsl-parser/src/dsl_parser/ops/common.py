"""Checks shared by the op families: operand types, broadcasting, axes, static shapes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._mlir import Value
from ..types import (
    Dim,
    DType,
    Dynamic,
    PlType,
    TensorType,
    dims_match,
)
from ..values import TypedValue, literal_dtype, literal_problem
from .numerics import scalar
from .rule import OpCall, RefCall


def _tensor(call: OpCall, name: str) -> TensorType:
    t = call[name]
    assert isinstance(t, TypedValue) and isinstance(t.type, TensorType)
    return t.type


def _merge_shape(a: tuple[Dim, ...], b: tuple[Dim, ...]) -> tuple[Dim, ...]:
    """Prefer named dynamic dimensions over anonymous ones."""
    return tuple(y if isinstance(x, Dynamic) and x.name is None else x
                 for x, y in zip(a, b, strict=True))


def _operand_type(call: OpCall, name: str, want: DType) -> None:
    value = call[name]
    if isinstance(value, TypedValue):
        if value.dtype != want:
            call.fail(name, f"scalar operand is {value.type}, the tensor elements are {want!r}")
    elif (problem := literal_problem(value, want)) is not None:
        call.fail(name, problem)


def broadcast_shapes(a: tuple[Dim, ...], b: tuple[Dim, ...]) -> tuple[Dim, ...] | str:
    """numpy.broadcast_shapes of two shapes, or why they do not broadcast.

    A static 1 stretches; ``?`` against ``n`` is assumed to be ``n``, two dynamic
    dimensions are assumed equal (a named one wins over an anonymous one), but two
    different names never match."""
    rank = max(len(a), len(b))
    pa, pb = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    out: list[Dim] = []
    for axis, (x, y) in enumerate(zip(pa, pb, strict=True)):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif isinstance(x, int) and isinstance(y, int):
            if x != y:
                return f"dimension {axis} is {x} vs {y}"
            out.append(x)
        elif isinstance(x, int):
            out.append(x)
        elif isinstance(y, int):
            out.append(y)
        elif not dims_match(x, y):
            return f"dimension {axis} is {x!r} vs {y!r}"
        else:
            out.append(y if x.name is None else x)
    return tuple(out)


def _common_shape(call: OpCall, names: Sequence[str]) -> tuple[Dim, ...]:
    """The broadcast shape of the tensor arguments ``names`` (scalars count as ``()``)."""
    shape: tuple[Dim, ...] = ()
    seen: list[TensorType] = []
    for name in names:
        value = call[name]
        if not (isinstance(value, TypedValue) and isinstance(value.type, TensorType)):
            continue
        t = value.type
        assert t.shape is not None
        merged = broadcast_shapes(shape, t.shape)
        if isinstance(merged, str):
            shapes = " and ".join(str(s) for s in [*seen, t])
            call.fail(name, f"operands have different shapes that do not broadcast: "
                            f"{shapes} ({merged})")
        shape = merged
        seen.append(t)
    return shape


def _element_dtype(call: OpCall, names: Sequence[str]) -> DType:
    """The dtype of the tensor and scalar operands ``names`` (literals adopt it)."""
    typed = [(n, v) for n in names if isinstance(v := call[n], TypedValue)]
    if not typed:
        return literal_dtype(call[names[0]])
    first, value = typed[0]
    want = value.dtype
    for name, other in typed[1:]:
        if other.dtype != want:
            if other.is_tensor and value.is_tensor:
                call.fail(name, f"operands have different dtypes: {value.type} and {other.type}")
            scalar, tensor_ = (other, value) if value.is_tensor else (value, other)
            call.fail(name if scalar is other else first,
                      f"scalar operand is {scalar.type}, the tensor elements are "
                      f"{tensor_.dtype!r}")
    for name in names:
        if not isinstance(call[name], TypedValue):
            _operand_type(call, name, want)
    return want


def _infer_elementwise(call: OpCall, names: Sequence[str], dtype: DType | None = None
                       ) -> TensorType:
    if not any(isinstance(v := call[n], TypedValue) and v.is_tensor for n in names):
        call.fail(None, "at least one operand must be a tensor (use operators for scalars)")
    element = _element_dtype(call, names)
    return TensorType(_common_shape(call, names), dtype or element)


def _floats_only(call: OpCall, t: TensorType) -> None:
    if not t.dtype.is_float:
        call.fail(None, f"takes floats, got elements of {t.dtype!r}")


def _operand_value(call: OpCall, name: str, dtype: DType) -> Value:
    """A tensor or scalar operand as is, a literal as a constant of ``dtype``."""
    value = call[name]
    if isinstance(value, TypedValue):
        return value.value
    return call.ctx.materialize(value, call.nodes[name], dtype).value


# -- signedness -----------------------------------------------------------------------
# MLIR integers are signless: a UINTn tensor is a tensor of iN, and the dsl op that
# reads it carries ``is_unsigned`` (``source_unsigned``/``result_unsigned`` on dsl.cast) so
# that its lowering uses unsigned semantics (divui, maxui, ult, extui, uitofp, fptoui).
# Every emit of an op whose meaning depends on signedness passes ``**_sign(dtype)``.
def _sign(dtype: DType, attr: str = "is_unsigned") -> dict[str, bool]:
    """``{attr: True}`` for an unsigned integer dtype, else nothing."""
    return {attr: True} if dtype.kind == "uint" else {}


def _emit_unary(op_class: Callable[..., object],
                attrs: Callable[[TypedValue, PlType], dict[str, bool]] | None = None
                ) -> Callable[[OpCall, PlType], Value]:
    """Emits ``op_class(x)``; ``attrs(x, result type)`` adds unit attributes (signedness)."""
    def emit(call: OpCall, t: PlType) -> Value:
        x = call["x"]
        assert isinstance(x, TypedValue)
        ctx = call.ctx
        extra = attrs(x, t) if attrs is not None else {}
        return op_class(ctx.mlir_type(t), x.value, **extra,  # type: ignore[attr-defined]
                        loc=ctx.loc, ip=ctx.ip).result
    return emit


def _shape_type(call: OpCall, dtype: DType) -> TensorType:
    shape = call["shape"]
    assert isinstance(shape, tuple)
    dims = tuple(Dynamic(None) if isinstance(d, TypedValue) else d for d in shape)
    if dtype.kind == "index":
        call.fail("dtype", "tensors of INDEX are not supported")
    return TensorType(dims, dtype)


def _axis(call: OpCall, name: str, axis: int, rank: int, extra: int = 0) -> int:
    """``axis`` normalized into ``[0, rank + extra)`` (negative axes count from the end)."""
    size = rank + extra
    if not -size <= axis < size:
        call.fail(name, f"axis {axis} is out of range for {_tensor_of(call)} of rank {rank}: "
                        f"expected {-size}..{size - 1}")
    return axis % size


def _tensor_of(call: OpCall) -> str:
    x = call.args.get("x")
    return str(x.type) if isinstance(x, TypedValue) else "the tensor"


def _static(call: OpCall, name: str) -> tuple[int, ...]:
    shape = call[name]
    assert isinstance(shape, tuple)
    if not all(isinstance(d, int) for d in shape):
        call.fail(name, f"the shape must be static ints, got {list(shape)!r}")
    return shape


def _count(shape: Sequence[Dim]) -> int | None:
    total = 1
    for d in shape:
        if not isinstance(d, int):
            return None
        total *= d
    return total


# -- reference rules ---------------------------------------------------------------------------
def _ref_dtype(call: RefCall, names: Sequence[str]) -> DType:
    """The dtype of the operands ``names`` under the interpreter (literals adopt it)."""
    for name in names:
        t = call.types.get(name)
        if t is not None:
            return t.dtype
    return literal_dtype(call[names[0]])


def _ref_operand(call: RefCall, name: str, dtype: DType) -> Any:
    """A tensor (array) or typed scalar as is, a literal as a value of ``dtype``."""
    if name in call.types:
        return call[name]
    return scalar(call[name], dtype)


def _ref_check_dynamic_sizes(call: RefCall, names: Sequence[str], t: PlType) -> None:
    """ValueError where a ``pl.dynamic`` size of an operand differs at run time from the
    result's size, as the compiled code's check (docs/mlir.md, "Run-time checks"): only a
    static 1 broadcasts, so a ``pl.dynamic`` size of 1 against 3 is an error, not a numpy
    broadcast."""
    if not call.declared or not isinstance(t, TensorType) or t.shape is None:
        return
    result = t.shape
    for name in names:
        declared = call.declared.get(name)
        if not isinstance(declared, TensorType) or declared.shape is None:
            continue
        lead = len(result) - len(declared.shape)
        for k, dim in enumerate(declared.shape):
            size, want = int(call[name].shape[k]), result[lead + k]
            if isinstance(dim, Dynamic) and size != want:
                call.fail(f"an operand has size {size} in dimension {lead + k} where the result "
                          f"has size {want} (a pl.dynamic size must equal the size it is "
                          "combined with; only a static 1 broadcasts)", ValueError)


def _ref_axes(call: RefCall, rank: int, extra: int = 0) -> tuple[int, ...]:
    """The ``axis`` argument as a sorted tuple of non-negative axes."""
    axes = call["axis"]
    if axes is None:
        return tuple(range(rank))
    items = [axes] if isinstance(axes, int) else list(axes)
    return tuple(sorted(a % (rank + extra) for a in items))
