"""Shape ops: transpose, reshape, concat, expand_dims, squeeze, broadcast, slice, assemble
(lowered by ``lib/Conversion/DslToLinalg/ShapeOps.cpp``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._mlir import LateOp, Value, dsl, ir
from ..types import (
    INDEX,
    Dim,
    Dynamic,
    PlType,
    TensorType,
    dims_match,
)
from ..values import TypedValue
from .common import (
    _axis,
    _count,
    _emit_unary,
    _static,
    _tensor,
)
from .numerics import np
from .rule import Arg, OpCall, OpRule, Param, RefCall, Spelling, with_references


def _infer_transpose(call: OpCall) -> PlType:
    t, perm = _tensor(call, "x"), call["perm"]
    assert isinstance(perm, tuple) and t.shape is not None
    if sorted(perm) != list(range(len(t.shape))):
        call.fail("perm", f"{list(perm)!r} is not a permutation of the {len(t.shape)} "
                          f"dimensions of {t}")
    return TensorType(tuple(t.shape[p] for p in perm), t.dtype)


def _emit_transpose(call: OpCall, t: PlType) -> Value:
    ctx, x = call.ctx, call["x"]
    assert isinstance(x, TypedValue)
    return dsl.TransposeOp(ctx.mlir_type(t), x.value, list(call["perm"]),  # type: ignore[call-overload]
                           loc=ctx.loc, ip=ctx.ip).result


def _spell_transpose(s: Spelling) -> str:
    perm = list(ir.DenseI64ArrayAttr(s.op.attributes["permutation"]))  # type: ignore[attr-defined]
    return f"pl.transpose({s.operand(0)}, {perm!r})"


def _infer_reshape(call: OpCall) -> PlType:
    t = _tensor(call, "x")
    shape = _static(call, "shape")
    assert t.shape is not None
    if _count(t.shape) is None:
        call.fail("x", f"reshape needs a static shape, got {t}")
    if _count(t.shape) != _count(shape):
        call.fail("shape", f"cannot reshape {t} ({_count(t.shape)} elements) to "
                           f"{list(shape)!r} ({_count(shape)} elements)")
    return TensorType(shape, t.dtype)


def _spell_reshape(s: Spelling) -> str:
    t = s.result_type()
    assert isinstance(t, TensorType) and t.shape is not None
    return f"pl.reshape({s.operand(0)}, {list(t.shape)!r})"


def _infer_concat(call: OpCall) -> PlType:
    inputs, axis = call["tensors"], call["axis"]
    assert isinstance(inputs, tuple) and isinstance(axis, int)
    if not inputs:
        call.fail("tensors", "at least one tensor is required")
    types = [v.type for v in inputs]
    first = types[0]
    assert isinstance(first, TensorType) and first.shape is not None
    axis = _axis(call, "axis", axis, len(first.shape))
    size: Dim = 0
    for t in types:
        assert isinstance(t, TensorType) and t.shape is not None
        same = t.dtype == first.dtype and len(t.shape) == len(first.shape) and all(
            i == axis or dims_match(a, b) for i, (a, b) in enumerate(
                zip(t.shape, first.shape, strict=False)))
        if not same:
            call.fail("tensors", f"{first} and {t} differ in dtype, rank or a dimension "
                                 f"other than the axis {axis}")
        d = t.shape[axis]
        size = size + d if isinstance(size, int) and isinstance(d, int) else Dynamic(None)
    return TensorType(tuple(size if i == axis else d for i, d in enumerate(first.shape)),
                      first.dtype)


def _emit_concat(call: OpCall, t: PlType) -> Value:
    ctx, inputs = call.ctx, call["tensors"]
    assert isinstance(inputs, tuple) and isinstance(t, TensorType)
    axis = call["axis"] % len(t.shape or ())  # type: ignore[operator]
    return dsl.ConcatOp(ctx.mlir_type(t), [v.value for v in inputs], axis,
                        loc=ctx.loc, ip=ctx.ip).result


def _spell_concat(s: Spelling) -> str:
    count = len(s.op.operands)  # type: ignore[attr-defined]
    axis = ir.IntegerAttr(s.op.attributes["axis"]).value  # type: ignore[attr-defined]
    return f"pl.concat([{', '.join(s.operand(i) for i in range(count))}], {axis})"


def _infer_expand_dims(call: OpCall) -> PlType:
    t, axis = _tensor(call, "x"), call["axis"]
    assert isinstance(axis, int) and t.shape is not None
    axis = _axis(call, "axis", axis, len(t.shape), extra=1)
    return TensorType((*t.shape[:axis], 1, *t.shape[axis:]), t.dtype)


def _infer_squeeze(call: OpCall) -> PlType:
    t, axis = _tensor(call, "x"), call["axis"]
    assert isinstance(axis, int) and t.shape is not None
    axis = _axis(call, "axis", axis, len(t.shape))
    if t.shape[axis] != 1:
        call.fail("axis", f"dimension {axis} of {t} is {t.shape[axis]!r}, not 1")
    return TensorType(t.shape[:axis] + t.shape[axis + 1:], t.dtype)


def _axis_op(op_class: Callable[..., object], extra: int) -> Callable[[OpCall, PlType], Value]:
    def emit(call: OpCall, t: PlType) -> Value:
        ctx, x, axis = call.ctx, call["x"], call["axis"]
        assert isinstance(x, TypedValue) and isinstance(axis, int)
        axis %= (x.type.rank or 0) + extra  # type: ignore[union-attr]
        return op_class(ctx.mlir_type(t), x.value, axis,  # type: ignore[attr-defined]
                        loc=ctx.loc, ip=ctx.ip).result
    return emit


def _spell_axis(name: str) -> Callable[[Spelling], str]:
    def spell(s: Spelling) -> str:
        axis = ir.IntegerAttr(s.op.attributes["axis"]).value  # type: ignore[attr-defined]
        return f"pl.{name}({s.operand(0)}, {axis})"
    return spell


def _infer_broadcast(call: OpCall) -> PlType:
    t, shape = _tensor(call, "x"), call["shape"]
    assert isinstance(shape, tuple) and t.shape is not None
    if any(isinstance(d, TypedValue) for d in shape):
        call.fail("shape", "sizes must be ints or pl.dynamic dimensions")
    if len(shape) < len(t.shape):
        call.fail("shape", f"cannot broadcast {t} to the lower rank {list(shape)!r}")
    padded = (1,) * (len(shape) - len(t.shape)) + t.shape
    for axis, (have, want) in enumerate(zip(padded, shape, strict=True)):
        ok = (have == 1 and isinstance(want, int)) or dims_match(have, want)
        if not ok:
            call.fail("shape", f"cannot broadcast {t} to {list(shape)!r}: dimension {axis} is "
                               f"{have!r} vs {want!r}")
    return TensorType(shape, t.dtype)


def _spell_broadcast(s: Spelling) -> str:
    t = s.result_type()
    assert isinstance(t, TensorType) and t.shape is not None
    return f"pl.broadcast({s.operand(0)}, {list(t.shape)!r})"


def _infer_slice(call: OpCall) -> PlType:
    t = _tensor(call, "x")
    sizes, offsets = call["sizes"], call["offsets"]
    assert isinstance(sizes, tuple) and isinstance(offsets, tuple)
    if not all(isinstance(d, int) for d in sizes):
        call.fail("sizes", f"slice sizes must be static ints, got {list(sizes)!r}")
    for name, items in (("sizes", sizes), ("offsets", offsets)):
        if len(items) != t.rank:
            call.fail(name, f"{len(items)} {name} given for the rank-{t.rank} tensor {t}")
    return TensorType(sizes, t.dtype)


def _emit_slice(call: OpCall, t: PlType) -> Value:
    ctx, x, offsets = call.ctx, call["x"], call["offsets"]
    assert isinstance(x, TypedValue) and isinstance(offsets, tuple)
    where = call.nodes["offsets"]
    values = [ctx.materialize(o, where, INDEX).value for o in offsets]
    return dsl.SliceOp(ctx.mlir_type(t), x.value, values, loc=ctx.loc, ip=ctx.ip).result


def _spell_slice(s: Spelling) -> str:
    t = s.result_type()
    assert isinstance(t, TensorType) and t.shape is not None
    offsets = ", ".join(s.operand(i + 1, INDEX) for i in range(len(t.shape)))
    return f"pl.slice({s.operand(0)}, {list(t.shape)!r}, [{offsets}])"


def _infer_assemble(call: OpCall) -> PlType:
    dst, src, offsets = _tensor(call, "dst"), _tensor(call, "src"), call["offsets"]
    assert isinstance(offsets, tuple) and dst.shape is not None and src.shape is not None
    if dst.dtype != src.dtype or len(dst.shape) != len(src.shape):
        call.fail("src", f"src {src} and dst {dst} differ in dtype or rank")
    if len(offsets) != len(dst.shape):
        call.fail("offsets", f"{len(offsets)} offsets given for the rank-{len(dst.shape)} "
                             f"tensor {dst}")
    for axis, (d, n) in enumerate(zip(dst.shape, src.shape, strict=True)):
        o = offsets[axis]
        if isinstance(d, int) and isinstance(n, int) and (
                n > d or (isinstance(o, int) and o + n > d)):
            call.fail("src", f"src {src} does not fit into dst {dst} at dimension {axis}")
    return dst


def _emit_assemble(call: OpCall, t: PlType) -> Value:
    ctx, dst, src, offsets = call.ctx, call["dst"], call["src"], call["offsets"]
    assert isinstance(dst, TypedValue) and isinstance(src, TypedValue)
    assert isinstance(offsets, tuple)
    where = call.nodes["offsets"]
    values = [ctx.materialize(o, where, INDEX).value for o in offsets]
    return dsl.AssembleOp(ctx.mlir_type(t), dst.value, src.value, values,
                          loc=ctx.loc, ip=ctx.ip).result


def _spell_assemble(s: Spelling) -> str:
    rank = s.result_type().rank or 0  # type: ignore[union-attr]
    offsets = ", ".join(s.operand(i + 2, INDEX) for i in range(rank))
    return f"pl.assemble({s.operand(0)}, {s.operand(1)}, [{offsets}])"


# -- reference rules (numpy) ------------------------------------------------------------------
def _window(call: RefCall, offsets: Any, sizes: Any, shape: Any) -> tuple[slice, ...]:
    """The window ``offsets`` + ``sizes`` of ``shape``; an IndexError when it does not fit."""
    window = []
    for axis, (o, n, d) in enumerate(zip(offsets, sizes, shape, strict=True)):
        o = int(o)
        if o < 0 or o + n > d:
            call.fail(f"offset {o} with size {n} is out of bounds for dimension {axis} "
                      f"of size {d} (shape {list(shape)})")
        window.append(slice(o, o + n))
    return tuple(window)


def _slice_ref(call: RefCall, t: PlType) -> Any:
    x = call["x"]
    return x[_window(call, call["offsets"], call["sizes"], x.shape)].copy()


def _assemble_ref(call: RefCall, t: PlType) -> Any:
    dst, src = call["dst"], call["src"]
    out = dst.copy()
    out[_window(call, call["offsets"], src.shape, dst.shape)] = src
    return out


def _references() -> dict[str, Callable[[RefCall, PlType], Any]]:
    n = np
    return {
        "transpose": lambda call, t: n().transpose(call["x"], call["perm"]).copy(),
        "reshape": lambda call, t: call["x"].reshape(call["shape"]),
        "concat": lambda call, t: n().concatenate(call["tensors"], axis=call["axis"]),
        "expand_dims": lambda call, t: n().expand_dims(call["x"],
                                                       call["axis"] % (call["x"].ndim + 1)),
        "squeeze": lambda call, t: n().squeeze(call["x"], call["axis"]),
        "broadcast": lambda call, t: n().broadcast_to(
            call["x"], tuple(int(d) for d in call["shape"])).copy(),
        "slice": _slice_ref,
        "assemble": _assemble_ref,
    }


#: This family's entries of the op table.
RULES: tuple[OpRule, ...] = (
    OpRule("transpose", "dsl.transpose", (Param("x", Arg.TENSOR), Param("perm", Arg.INTS)),
           _infer_transpose, _emit_transpose, _spell_transpose,
           "Result dimension i is x's dimension perm[i]."),
    OpRule("reshape", "dsl.reshape", (Param("x", Arg.TENSOR), Param("shape", Arg.SHAPE)),
           _infer_reshape, _emit_unary(LateOp(dsl, "ReshapeOp")), _spell_reshape,
           "The same elements (row-major) in another static shape."),
    OpRule("concat", "dsl.concat", (Param("tensors", Arg.TENSORS), Param("axis", Arg.INT, 0)),
           _infer_concat, _emit_concat, _spell_concat,
           "Tensors joined along axis (equal in every other dimension)."),
    OpRule("expand_dims", "dsl.expand_dims", (Param("x", Arg.TENSOR), Param("axis", Arg.INT)),
           _infer_expand_dims, _axis_op(LateOp(dsl, "ExpandDimsOp"), 1), _spell_axis("expand_dims"),
           "A new size-1 dimension at axis."),
    OpRule("squeeze", "dsl.squeeze", (Param("x", Arg.TENSOR), Param("axis", Arg.INT)),
           _infer_squeeze, _axis_op(LateOp(dsl, "SqueezeOp"), 0), _spell_axis("squeeze"),
           "Removes the size-1 dimension axis."),
    OpRule("broadcast", "dsl.broadcast", (Param("x", Arg.TENSOR), Param("shape", Arg.SHAPE)),
           _infer_broadcast, _emit_unary(LateOp(dsl, "BroadcastOp")), _spell_broadcast,
           "numpy.broadcast_to: x stretched to a larger shape."),
    OpRule("assemble", "dsl.assemble",
           (Param("dst", Arg.TENSOR), Param("src", Arg.TENSOR), Param("offsets", Arg.OFFSETS)),
           _infer_assemble, _emit_assemble, _spell_assemble,
           "A copy of dst with src written at offsets (one per dimension)."),
    OpRule("slice", "dsl.slice",
           (Param("x", Arg.TENSOR), Param("sizes", Arg.SHAPE), Param("offsets", Arg.OFFSETS)),
           _infer_slice, _emit_slice, _spell_slice,
           "A static-size window of x at (dynamic) offsets, one per dimension."),
)
RULES = with_references(RULES, _references())
