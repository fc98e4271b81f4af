"""The op table: every ``pl.<op>`` is one ``OpRule`` entry.

An entry gives the op's parameters (how each argument is checked), its type
inference, how it emits MLIR and how the printer spells it back. Adding an op
(``pl.exp``, a reduction, ...) is adding an entry to ``OPS``: the language
namespace, the parser and the printer all read this table.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import NoReturn, Protocol

from . import scalar_casts
from ._mlir import Value, dsl, ir, tensor
from .errors import ParserError, ParserTypeError
from .types import (
    BOOL,
    FP32,
    INDEX,
    INT64,
    Dim,
    DType,
    Dynamic,
    PlType,
    ScalarType,
    TensorType,
    dims_match,
)
from .values import TypedValue, is_literal, literal_dtype, literal_problem


class Arg(Enum):
    """How an argument is checked before the rule sees it."""

    TENSOR = "a tensor"
    OPERAND = "a tensor, a scalar or a number"
    VALUE = "a scalar or a number"
    SHAPE = "a list of sizes"
    OFFSETS = "a list of INDEX offsets"
    DTYPE = "a dtype such as pl.FP32"
    FLAG = "True or False"
    INT = "an int"
    AXES = "an int, a list of ints or None"
    INTS = "a list of ints"
    TENSORS = "a list of tensors"
    SIZE = "a size (an int or an INDEX scalar)"


REQUIRED = object()


@dataclass(frozen=True)
class Param:
    name: str
    kind: Arg
    default: object = REQUIRED


class OpContext(Protocol):
    """What rules may use while emitting (implemented by the op parser)."""

    def error(self, where: ast.AST, cls: type[ParserError], message: str,
              *, hint: str | None = None) -> NoReturn: ...

    def materialize(self, value: object, where: ast.AST, dtype: DType | None) -> TypedValue: ...

    def dynamic_sizes(self, t: TensorType, entries: Sequence[object], where: ast.AST,
                      source: TypedValue | None = None) -> list[Value]: ...

    def new(self, value: Value, t: PlType) -> TypedValue: ...

    @property
    def loc(self) -> object: ...

    @property
    def ip(self) -> object: ...

    def mlir_type(self, t: PlType) -> object: ...


@dataclass
class OpCall:
    """One call of a ``pl.<op>``: its checked arguments, their nodes, the context."""

    rule: OpRule
    args: dict[str, object]
    nodes: dict[str, ast.AST]
    node: ast.AST
    ctx: OpContext

    def __getitem__(self, name: str) -> object:
        return self.args[name]

    def fail(self, arg: str | None, message: str,
             cls: type[ParserError] = ParserTypeError) -> NoReturn:
        where = self.nodes.get(arg, self.node) if arg else self.node
        self.ctx.error(where, cls, f"{self.rule.qualname}: {message}")


class Spelling(Protocol):
    """What printer rules may use (implemented by the printer)."""

    op: object

    def operand(self, index: int, dtype: DType | None = None) -> str: ...

    def shape(self, t: PlType, first_dynamic: int) -> str: ...

    def result_type(self) -> PlType: ...

    def operand_type(self, index: int) -> PlType: ...


@dataclass(frozen=True)
class OpRule:
    """One ``pl.<name>``: parameters, inference, emission and spelling.

    ``mlir_name`` is the op the printer spells back with ``spell`` (``None`` for a
    composite that emits existing ops: it prints as what it emitted). ``namespace``
    is ``"pl"`` for the language's own ops and a downstream package's alias
    (``"dx"`` for ``dx.cube``, see ``dsl_parser.extensions``) otherwise.
    """

    name: str
    mlir_name: str | None
    params: tuple[Param, ...]
    infer: Callable[[OpCall], PlType]
    emit: Callable[[OpCall, PlType], Value]
    spell: Callable[[Spelling], str]
    doc: str
    fold: Callable[[OpCall], object] | None = None
    namespace: str = "pl"

    @property
    def qualname(self) -> str:
        """``pl.add``, ``dx.cube``: how users spell the op (and how messages name it)."""
        return f"{self.namespace}.{self.name}"

    @property
    def key(self) -> str:
        """Its key: the name in ``OPS`` for ``pl`` ops, the qualified name in ``EXTENSION_OPS``."""
        return self.name if self.namespace == "pl" else self.qualname


# -- signedness -----------------------------------------------------------------------
# MLIR integers are signless: a UINTn tensor is a tensor of iN, and the dsl op that
# reads it carries ``is_unsigned`` (``source_unsigned``/``result_unsigned`` on dsl.cast) so
# that its lowering uses unsigned semantics (divui, maxui, ult, extui, uitofp, fptoui).
# Every emit of an op whose meaning depends on signedness passes ``**_sign(dtype)``.
def _sign(dtype: DType, attr: str = "is_unsigned") -> dict[str, bool]:
    """``{attr: True}`` for an unsigned integer dtype, else nothing."""
    return {attr: True} if dtype.kind == "uint" else {}


# -- shared checks -------------------------------------------------------------------
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


# -- elementwise binary ops ------------------------------------------------------------------
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


def _infer_binary(call: OpCall) -> PlType:
    return _infer_elementwise(call, ("lhs", "rhs"))


def _floats_only(call: OpCall, t: TensorType) -> None:
    if not t.dtype.is_float:
        call.fail(None, f"takes floats, got elements of {t.dtype!r}")


def _operand_value(call: OpCall, name: str, dtype: DType) -> Value:
    """A tensor or scalar operand as is, a literal as a constant of ``dtype``."""
    value = call[name]
    if isinstance(value, TypedValue):
        return value.value
    return call.ctx.materialize(value, call.nodes[name], dtype).value


def _binary(name: str, op_class: Callable[..., object], what: str,
            floats: bool = False) -> OpRule:
    def infer(call: OpCall) -> PlType:
        t = _infer_elementwise(call, ("lhs", "rhs"))
        if floats:
            _floats_only(call, t)
        return t

    def emit(call: OpCall, t: PlType) -> Value:
        assert isinstance(t, TensorType)
        lhs = _operand_value(call, "lhs", t.dtype)
        rhs = _operand_value(call, "rhs", t.dtype)
        ctx = call.ctx
        return op_class(ctx.mlir_type(t), lhs, rhs, **_sign(t.dtype),  # type: ignore[attr-defined]
                        loc=ctx.loc, ip=ctx.ip).result

    def spell(s: Spelling) -> str:
        dtype = s.result_type().dtype
        return f"pl.{name}({s.operand(0, dtype)}, {s.operand(1, dtype)})"

    return OpRule(
        name, f"dsl.{name}", (Param("lhs", Arg.OPERAND), Param("rhs", Arg.OPERAND)),
        infer, emit, spell,
        f"Elementwise {what}; operands broadcast as in numpy, either may be a scalar.")


def _unary(name: str, op_class: Callable[..., object], what: str, floats: bool) -> OpRule:
    def infer(call: OpCall) -> PlType:
        t = _tensor(call, "x")
        if floats:
            _floats_only(call, t)
        return t

    return OpRule(name, f"dsl.{name}", (Param("x", Arg.TENSOR),), infer,
                  _emit_unary(op_class, lambda x, t: _sign(x.dtype)),
                  lambda s: f"pl.{name}({s.operand(0)})", f"Elementwise {what}.")


# -- matmul -----------------------------------------------------------------------------------
def _infer_matmul(call: OpCall) -> PlType:
    a, b = _tensor(call, "lhs"), _tensor(call, "rhs")
    for name, t in (("lhs", a), ("rhs", b)):
        if t.rank != 2:
            call.fail(name, f"operands must be 2-D, got {t}")
    if a.dtype != b.dtype:
        call.fail("rhs", f"operands have different dtypes: {a} and {b}")
    assert a.shape is not None and b.shape is not None
    m, ka = (a.shape[1], a.shape[0]) if call["a_trans"] else a.shape
    kb, n = (b.shape[1], b.shape[0]) if call["b_trans"] else b.shape
    if not dims_match(ka, kb):
        call.fail("rhs", f"contracting dimensions differ: lhs {a} gives K={ka!r}, "
                         f"rhs {b} gives K={kb!r}")
    out = call["out_dtype"] or a.dtype
    assert isinstance(out, DType)
    if out.is_float != a.dtype.is_float or out.bits < a.dtype.bits:
        call.fail("out_dtype", f"out_dtype {out!r} must be of the same kind as {a.dtype!r} "
                               "and at least as wide")
    return TensorType((m, n), out)


def _emit_matmul(call: OpCall, t: PlType) -> Value:
    ctx = call.ctx
    lhs, rhs = call["lhs"], call["rhs"]
    assert isinstance(lhs, TypedValue) and isinstance(rhs, TypedValue)
    return dsl.MatmulOp(ctx.mlir_type(t), lhs.value, rhs.value,
                        a_trans=True if call["a_trans"] else None,
                        b_trans=True if call["b_trans"] else None, **_sign(lhs.dtype),
                        loc=ctx.loc, ip=ctx.ip).result


def _spell_matmul(s: Spelling) -> str:
    parts = [s.operand(0), s.operand(1)]
    attrs = s.op.attributes  # type: ignore[attr-defined]
    parts += [f"{flag}=True" for flag in ("a_trans", "b_trans") if flag in attrs]
    out = s.result_type().dtype
    if out != s.operand_type(0).dtype:
        parts.append(f"out_dtype={out!r}")
    return f"pl.matmul({', '.join(parts)})"


# -- cast, slice ------------------------------------------------------------------------------
def _infer_cast(call: OpCall) -> PlType:
    target, x = call["target_type"], call["x"]
    assert isinstance(target, DType)
    if not isinstance(x, TypedValue):  # a scalar cast converts a value; numbers use pl.const
        call.fail("x", f"expected a tensor or a scalar value, got {x!r} "
                       f"(use pl.const({x!r}, {target!r}) for a typed constant)")
    if not x.is_tensor:  # scalars, INDEX included: see scalar_casts
        return ScalarType(target)
    if target.kind == "index":
        call.fail("target_type", "tensors of INDEX are not supported")
    return TensorType(_tensor(call, "x").shape, target)


def _emit_cast(call: OpCall, t: PlType) -> Value:
    x = call["x"]
    assert isinstance(x, TypedValue)
    if x.is_tensor:
        return _emit_unary(dsl.CastOp, _cast_signs)(call, t)
    ctx = call.ctx
    return scalar_casts.convert(x.value, x.dtype, t.dtype, loc=ctx.loc, ip=ctx.ip)


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


def _cast_signs(x: TypedValue, t: PlType) -> dict[str, bool]:
    """dsl.cast's ``source_unsigned`` / ``result_unsigned`` for UINT source / result dtypes."""
    return {**_sign(x.dtype, "source_unsigned"), **_sign(t.dtype, "result_unsigned")}


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


# -- constructors --------------------------------------------------------------------------------
def _shape_type(call: OpCall, dtype: DType) -> TensorType:
    shape = call["shape"]
    assert isinstance(shape, tuple)
    dims = tuple(Dynamic(None) if isinstance(d, TypedValue) else d for d in shape)
    if dtype.kind == "index":
        call.fail("dtype", "tensors of INDEX are not supported")
    return TensorType(dims, dtype)


def _infer_create(call: OpCall) -> PlType:
    dtype = call["dtype"]
    assert isinstance(dtype, DType)
    return _shape_type(call, dtype)


def _emit_create(call: OpCall, t: PlType) -> Value:
    ctx, shape = call.ctx, call["shape"]
    assert isinstance(t, TensorType) and isinstance(shape, tuple)
    sizes = ctx.dynamic_sizes(t, shape, call.nodes["shape"])
    return dsl.CreateTensorOp(ctx.mlir_type(t), sizes, loc=ctx.loc, ip=ctx.ip).result


def _infer_full(call: OpCall) -> PlType:
    value, dtype = call["value"], call["dtype"]
    if dtype is None:
        dtype = value.dtype if isinstance(value, TypedValue) else literal_dtype(value)
    assert isinstance(dtype, DType)
    _operand_type(call, "value", dtype)
    return _shape_type(call, dtype)


def _emit_full(call: OpCall, t: PlType) -> Value:
    ctx, shape = call.ctx, call["shape"]
    assert isinstance(t, TensorType) and isinstance(shape, tuple)
    scalar = ctx.materialize(call["value"], call.nodes["value"], t.dtype)
    sizes = ctx.dynamic_sizes(t, shape, call.nodes["shape"])
    return dsl.FullOp(ctx.mlir_type(t), scalar.value, sizes, loc=ctx.loc, ip=ctx.ip).result


def _spell_create(s: Spelling) -> str:
    t = s.result_type()
    return f"pl.create_tensor({s.shape(t, 0)}, dtype={t.dtype!r})"


def _spell_full(s: Spelling) -> str:
    t = s.result_type()
    return f"pl.full({s.shape(t, 1)}, {s.operand(0, t.dtype)}, dtype={t.dtype!r})"


# -- scalars: pl.dim, pl.const ------------------------------------------------------------------
def _fold_dim(call: OpCall) -> object:
    t, axis = _tensor(call, "x"), call["axis"]
    assert isinstance(axis, int) and t.shape is not None
    if not -len(t.shape) <= axis < len(t.shape):
        call.fail("axis", f"axis {axis} is out of range for {t}")
    dim = t.shape[axis]
    return dim if isinstance(dim, int) or dim.name is not None else None


def _emit_dim(call: OpCall, t: PlType) -> Value:
    ctx, x, axis = call.ctx, call["x"], call["axis"]
    assert isinstance(x, TypedValue) and isinstance(axis, int) and isinstance(x.type, TensorType)
    index = ctx.materialize(axis % len(x.type.shape or ()), call.nodes["axis"], INDEX)
    return tensor.DimOp(x.value, index.value, loc=ctx.loc, ip=ctx.ip).result


def _infer_const(call: OpCall) -> PlType:
    value, dtype = call["value"], call["dtype"]
    assert isinstance(dtype, DType)
    if not is_literal(value):
        call.fail("value", f"the value must be a number literal, got {value!r}")
    _operand_type(call, "value", dtype)
    return ScalarType(dtype)


def _emit_const(call: OpCall, t: PlType) -> Value:
    return call.ctx.materialize(call["value"], call.nodes["value"], t.dtype).value


def _spell_const(s: Spelling) -> str:  # the printer prints constants itself (see printer.exprs)
    return s.operand(0)


# -- reductions ----------------------------------------------------------------------------------
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


def _reduced_axes(call: OpCall, t: TensorType) -> list[int]:
    assert t.rank is not None
    axes = call["axis"]
    if axes is None:
        items: list[int] = list(range(t.rank))
    else:
        items = [axes] if isinstance(axes, int) else list(axes)  # type: ignore[call-overload]
    if not items:
        call.fail("axis", "at least one axis is required (None reduces every axis)")
    out = [_axis(call, "axis", a, t.rank) for a in items]
    if len(set(out)) != len(out):
        call.fail("axis", f"axes {items!r} repeat a dimension of {t}")
    return sorted(out)


def _reduced_type(call: OpCall, t: TensorType, axes: Sequence[int], dtype: DType) -> TensorType:
    assert t.shape is not None
    keep = call["keepdim"]
    shape = tuple(1 if i in axes else d for i, d in enumerate(t.shape) if keep or i not in axes)
    return TensorType(shape, dtype)


def _reduction(name: str, op_class: Callable[..., object], what: str,
               floats: bool = False) -> OpRule:
    def infer(call: OpCall) -> PlType:
        t = _tensor(call, "x")
        if floats:
            _floats_only(call, t)
        return _reduced_type(call, t, _reduced_axes(call, t), t.dtype)

    def emit(call: OpCall, t: PlType) -> Value:
        ctx, x = call.ctx, call["x"]
        assert isinstance(x, TypedValue) and isinstance(x.type, TensorType)
        axes = _reduced_axes(call, x.type)
        return op_class(ctx.mlir_type(t), x.value, axes,  # type: ignore[attr-defined]
                        keepdim=True if call["keepdim"] else None, **_sign(x.type.dtype),
                        loc=ctx.loc, ip=ctx.ip).result

    def spell(s: Spelling) -> str:
        attrs = s.op.attributes  # type: ignore[attr-defined]
        axes = list(ir.DenseI64ArrayAttr(attrs["axes"]))
        rank = s.operand_type(0).rank  # type: ignore[union-attr]
        parts = [s.operand(0)]
        if axes != list(range(rank or 0)):
            parts.append(f"axis={axes[0] if len(axes) == 1 else axes!r}")
        if "keepdim" in attrs:
            parts.append("keepdim=True")
        return f"pl.{name}({', '.join(parts)})"

    return OpRule(name, f"dsl.{name}",
                  (Param("x", Arg.TENSOR), Param("axis", Arg.AXES, None),
                   Param("keepdim", Arg.FLAG, False)),
                  infer, emit, spell,
                  f"The {what} over axis (an int, a list, or None for every axis); "
                  "keepdim keeps reduced dimensions as size 1.")


def _infer_argmax(call: OpCall) -> PlType:
    t = _tensor(call, "x")
    axis = call["axis"]
    assert isinstance(axis, int) and t.rank is not None
    return _reduced_type(call, t, [_axis(call, "axis", axis, t.rank)], INT64)


def _emit_argmax(call: OpCall, t: PlType) -> Value:
    ctx, x, axis = call.ctx, call["x"], call["axis"]
    assert isinstance(x, TypedValue) and isinstance(x.type, TensorType)
    assert isinstance(axis, int) and x.type.rank
    return dsl.ArgmaxOp(ctx.mlir_type(t), x.value, axis % x.type.rank,
                        keepdim=True if call["keepdim"] else None, **_sign(x.type.dtype),
                        loc=ctx.loc, ip=ctx.ip).result


def _spell_argmax(s: Spelling) -> str:
    attrs = s.op.attributes  # type: ignore[attr-defined]
    keep = ", keepdim=True" if "keepdim" in attrs else ""
    return f"pl.argmax({s.operand(0)}, {ir.IntegerAttr(attrs['axis']).value}{keep})"


# -- comparison and selection ------------------------------------------------------------------
#: pl.<name> -> dsl.CmpPredicate member; also what tensor operators map to.
PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


def _compare(name: str) -> OpRule:
    def infer(call: OpCall) -> PlType:
        return _infer_elementwise(call, ("lhs", "rhs"), BOOL)

    def emit(call: OpCall, t: PlType) -> Value:
        ctx = call.ctx
        dtype = _element_dtype(call, ("lhs", "rhs"))
        lhs, rhs = _operand_value(call, "lhs", dtype), _operand_value(call, "rhs", dtype)
        predicate = getattr(dsl.CmpPredicate, name)
        return dsl.CmpOp(ctx.mlir_type(t), predicate, lhs, rhs, **_sign(dtype),
                         loc=ctx.loc, ip=ctx.ip).result

    return OpRule(name, "dsl.cmp" if name == "eq" else None,
                  (Param("lhs", Arg.OPERAND), Param("rhs", Arg.OPERAND)), infer, emit,
                  _spell_cmp, f"Elementwise comparison '{name}' (a BOOL tensor); operands "
                  "broadcast, either may be a scalar. Tensor operators (x < y) map here.")


def _spell_cmp(s: Spelling) -> str:
    attrs = s.op.attributes  # type: ignore[attr-defined]
    name = PREDICATES[ir.IntegerAttr(attrs["predicate"]).value]
    dtype = s.operand_type(0).dtype
    return f"pl.{name}({s.operand(0, dtype)}, {s.operand(1, dtype)})"


def _infer_select(call: OpCall) -> PlType:
    if not any(isinstance(v := call[n], TypedValue) and v.is_tensor for n in ("cond", "a", "b")):
        call.fail(None, "at least one operand must be a tensor")
    cond = call["cond"]
    if isinstance(cond, TypedValue):
        if cond.dtype != BOOL:
            call.fail("cond", f"the condition must be BOOL, got {cond.type}")
    elif not isinstance(cond, bool):
        call.fail("cond", f"the condition must be BOOL, got {cond!r}")
    dtype = _element_dtype(call, ("a", "b"))
    return TensorType(_common_shape(call, ("cond", "a", "b")), dtype)


def _emit_select(call: OpCall, t: PlType) -> Value:
    assert isinstance(t, TensorType)
    ctx = call.ctx
    cond = _operand_value(call, "cond", BOOL)
    a, b = _operand_value(call, "a", t.dtype), _operand_value(call, "b", t.dtype)
    return dsl.SelectOp(ctx.mlir_type(t), cond, a, b, loc=ctx.loc, ip=ctx.ip).result


def _spell_select(s: Spelling) -> str:
    dtype = s.result_type().dtype
    return f"pl.select({s.operand(0, BOOL)}, {s.operand(1, dtype)}, {s.operand(2, dtype)})"


# -- shape ops -----------------------------------------------------------------------------
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


# -- zeros, ones, arange -------------------------------------------------------------------------
def _filled(name: str, fill: int) -> OpRule:
    def infer(call: OpCall) -> PlType:
        dtype = call["dtype"]
        assert isinstance(dtype, DType)
        return _shape_type(call, dtype)

    def emit(call: OpCall, t: PlType) -> Value:
        ctx, shape = call.ctx, call["shape"]
        assert isinstance(t, TensorType) and isinstance(shape, tuple)
        value: object = fill if t.dtype.is_integer else float(fill)
        scalar = ctx.materialize(value, call.node, t.dtype)
        sizes = ctx.dynamic_sizes(t, shape, call.nodes["shape"])
        return dsl.FullOp(ctx.mlir_type(t), scalar.value, sizes, loc=ctx.loc, ip=ctx.ip).result

    return OpRule(name, None, (Param("shape", Arg.SHAPE), Param("dtype", Arg.DTYPE, FP32)),
                  infer, emit, _spell_full,
                  f"A new tensor of {name} (pl.full of {fill}; dtype defaults to pl.FP32).")


def _infer_arange(call: OpCall) -> PlType:
    dtype = call["dtype"]
    if dtype is None:
        typed = [v for n in ("start", "step") if isinstance(v := call[n], TypedValue)]
        if typed:
            dtype = typed[0].dtype
        else:
            floats = any(isinstance(call[n], float) for n in ("start", "step"))
            dtype = FP32 if floats else INT64
    assert isinstance(dtype, DType)
    if dtype.kind in ("index", "bool"):
        call.fail("dtype", f"pl.arange makes numbers, not {dtype!r}")
    for name in ("start", "step"):
        _operand_type(call, name, dtype)
    n = call["n"]
    if isinstance(n, int) and n < 0:
        call.fail("n", f"the length must not be negative, got {n}")
    dim: Dim = n if isinstance(n, int | Dynamic) else Dynamic(None)
    return TensorType((dim,), dtype)


def _emit_arange(call: OpCall, t: PlType) -> Value:
    assert isinstance(t, TensorType)
    ctx = call.ctx
    start = ctx.materialize(call["start"], call.nodes.get("start", call.node), t.dtype).value
    step = ctx.materialize(call["step"], call.nodes.get("step", call.node), t.dtype).value
    sizes = ctx.dynamic_sizes(t, [call["n"]], call.nodes["n"])
    return dsl.ArangeOp(ctx.mlir_type(t), start, step, sizes, loc=ctx.loc, ip=ctx.ip).result


def _spell_arange(s: Spelling) -> str:
    t = s.result_type()
    assert isinstance(t, TensorType) and t.shape is not None
    n = s.operand(2) if isinstance(t.shape[0], Dynamic) else repr(t.shape[0])
    return (f"pl.arange({n}, start={s.operand(0, t.dtype)}, step={s.operand(1, t.dtype)}, "
            f"dtype={t.dtype!r})")


def _table(*rules: OpRule) -> dict[str, OpRule]:
    return {rule.name: rule for rule in rules}


OPS: dict[str, OpRule] = _table(
    _binary("add", dsl.AddOp, "addition"),
    _binary("sub", dsl.SubOp, "subtraction"),
    _binary("mul", dsl.MulOp, "multiplication"),
    _binary("div", dsl.DivOp, "division"),
    _binary("maximum", dsl.MaximumOp, "maximum (NaN-propagating)"),
    _binary("minimum", dsl.MinimumOp, "minimum (NaN-propagating)"),
    _binary("pow", dsl.PowOp, "power lhs ** rhs, floats only", floats=True),
    _unary("exp", dsl.ExpOp, "e ** x, floats only", True),
    _unary("log", dsl.LogOp, "natural logarithm, floats only", True),
    _unary("sqrt", dsl.SqrtOp, "square root, floats only", True),
    _unary("rsqrt", dsl.RsqrtOp, "1 / sqrt(x), floats only", True),
    _unary("tanh", dsl.TanhOp, "hyperbolic tangent, floats only", True),
    _unary("abs", dsl.AbsOp, "absolute value", False),
    _unary("neg", dsl.NegOp, "negation", False),
    _unary("relu", dsl.ReluOp, "maximum(x, 0)", False),
    _reduction("sum", dsl.SumOp, "sum"),
    _reduction("max", dsl.MaxOp, "maximum"),
    _reduction("min", dsl.MinOp, "minimum"),
    _reduction("mean", dsl.MeanOp, "mean (floats only)", floats=True),
    OpRule("argmax", "dsl.argmax",
           (Param("x", Arg.TENSOR), Param("axis", Arg.INT), Param("keepdim", Arg.FLAG, False)),
           _infer_argmax, _emit_argmax, _spell_argmax,
           "The INT64 index of the first maximum along axis."),
    *(_compare(name) for name in PREDICATES),
    OpRule("select", "dsl.select",
           (Param("cond", Arg.OPERAND), Param("a", Arg.OPERAND), Param("b", Arg.OPERAND)),
           _infer_select, _emit_select, _spell_select,
           "numpy.where: a where the BOOL cond holds, else b; all three broadcast."),
    OpRule("transpose", "dsl.transpose", (Param("x", Arg.TENSOR), Param("perm", Arg.INTS)),
           _infer_transpose, _emit_transpose, _spell_transpose,
           "Result dimension i is x's dimension perm[i]."),
    OpRule("reshape", "dsl.reshape", (Param("x", Arg.TENSOR), Param("shape", Arg.SHAPE)),
           _infer_reshape, _emit_unary(dsl.ReshapeOp), _spell_reshape,
           "The same elements (row-major) in another static shape."),
    OpRule("concat", "dsl.concat", (Param("tensors", Arg.TENSORS), Param("axis", Arg.INT, 0)),
           _infer_concat, _emit_concat, _spell_concat,
           "Tensors joined along axis (equal in every other dimension)."),
    OpRule("expand_dims", "dsl.expand_dims", (Param("x", Arg.TENSOR), Param("axis", Arg.INT)),
           _infer_expand_dims, _axis_op(dsl.ExpandDimsOp, 1), _spell_axis("expand_dims"),
           "A new size-1 dimension at axis."),
    OpRule("squeeze", "dsl.squeeze", (Param("x", Arg.TENSOR), Param("axis", Arg.INT)),
           _infer_squeeze, _axis_op(dsl.SqueezeOp, 0), _spell_axis("squeeze"),
           "Removes the size-1 dimension axis."),
    OpRule("broadcast", "dsl.broadcast", (Param("x", Arg.TENSOR), Param("shape", Arg.SHAPE)),
           _infer_broadcast, _emit_unary(dsl.BroadcastOp), _spell_broadcast,
           "numpy.broadcast_to: x stretched to a larger shape."),
    OpRule("assemble", "dsl.assemble",
           (Param("dst", Arg.TENSOR), Param("src", Arg.TENSOR), Param("offsets", Arg.OFFSETS)),
           _infer_assemble, _emit_assemble, _spell_assemble,
           "A copy of dst with src written at offsets (one per dimension)."),
    _filled("zeros", 0),
    _filled("ones", 1),
    OpRule("arange", "dsl.arange",
           (Param("n", Arg.SIZE), Param("start", Arg.VALUE, 0), Param("step", Arg.VALUE, 1),
            Param("dtype", Arg.DTYPE, None)),
           _infer_arange, _emit_arange, _spell_arange,
           "[start, start + step, ...] of length n (dtype: from start/step, else INT64)."),
    OpRule("matmul", "dsl.matmul",
           (Param("lhs", Arg.TENSOR), Param("rhs", Arg.TENSOR), Param("a_trans", Arg.FLAG, False),
            Param("b_trans", Arg.FLAG, False), Param("out_dtype", Arg.DTYPE, None)),
           _infer_matmul, _emit_matmul, _spell_matmul,
           "2-D matrix product, optionally transposing either operand; "
           "out_dtype widens the result."),
    OpRule("cast", "dsl.cast", (Param("x", Arg.OPERAND), Param("target_type", Arg.DTYPE)),
           _infer_cast, _emit_cast,
           lambda s: f"pl.cast({s.operand(0)}, target_type={s.result_type().dtype!r})",
           "Conversion to another dtype: elementwise for a tensor; a scalar (INDEX "
           "included) becomes a scalar of target_type."),
    OpRule("slice", "dsl.slice",
           (Param("x", Arg.TENSOR), Param("sizes", Arg.SHAPE), Param("offsets", Arg.OFFSETS)),
           _infer_slice, _emit_slice, _spell_slice,
           "A static-size window of x at (dynamic) offsets, one per dimension."),
    OpRule("create_tensor", "dsl.create_tensor",
           (Param("shape", Arg.SHAPE), Param("dtype", Arg.DTYPE)),
           _infer_create, _emit_create, _spell_create,
           "A new tensor with undefined contents."),
    OpRule("full", "dsl.full",
           (Param("shape", Arg.SHAPE), Param("value", Arg.VALUE), Param("dtype", Arg.DTYPE, None)),
           _infer_full, _emit_full, _spell_full, "A new tensor with every element equal to value."),
    OpRule("dim", "tensor.dim", (Param("x", Arg.TENSOR), Param("axis", Arg.INT)),
           lambda call: ScalarType(INDEX), _emit_dim,
           lambda s: f"pl.dim({s.operand(0)}, {s.operand(1)})",
           "The size of one dimension (an int when static).", fold=_fold_dim),
    OpRule("const", "arith.constant", (Param("value", Arg.VALUE), Param("dtype", Arg.DTYPE)),
           _infer_const, _emit_const, _spell_const,
           "A typed scalar constant: pl.const(42, pl.INT64)."),
)

#: Ops of extension namespaces by qualified name (``"dx.cube"``); see dsl_parser.extensions.
EXTENSION_OPS: dict[str, OpRule] = {}

#: Printer dispatch: MLIR op name -> rule (of either table).
BY_MLIR_NAME: dict[str, OpRule] = {rule.mlir_name: rule for rule in OPS.values()
                                   if rule.mlir_name is not None}


def lookup(key: str) -> OpRule:
    """The rule of ``pl.<key>`` or of the extension op ``key`` (``"dx.cube"``)."""
    rule = OPS.get(key)
    return rule if rule is not None else EXTENSION_OPS[key]


def register(rule: OpRule) -> None:
    """Add ``pl.<rule.name>`` to ``OPS`` (or ``<namespace>.<name>`` to ``EXTENSION_OPS``).

    The parser, the printer and the namespace pick it up at once. Downstream
    packages normally register through ``dsl_parser.extensions``."""
    table = OPS if rule.namespace == "pl" else EXTENSION_OPS
    if rule.key in table or (rule.mlir_name is not None and rule.mlir_name in BY_MLIR_NAME):
        raise ValueError(f"{rule.qualname} / {rule.mlir_name} is already registered")
    table[rule.key] = rule
    if rule.mlir_name is not None:
        BY_MLIR_NAME[rule.mlir_name] = rule


def unregister(name: str) -> None:
    """Remove an op added with ``register`` (``name`` is its key: ``"empty"``, ``"dx.cube"``)."""
    rule = OPS.pop(name) if name in OPS else EXTENSION_OPS.pop(name)
    if rule.mlir_name is not None and BY_MLIR_NAME.get(rule.mlir_name) is rule:
        del BY_MLIR_NAME[rule.mlir_name]


def unknown_op_hint(name: str, namespace: str = "pl") -> str | None:
    """'did you mean pl.matmul?' for a misspelled op name (of ``namespace``)."""
    import difflib

    if namespace == "pl":
        names = [*OPS, "range", "unroll", "yield_"]
    else:
        names = [rule.name for rule in EXTENSION_OPS.values() if rule.namespace == namespace]
    close = difflib.get_close_matches(name, names, n=1)
    return f"did you mean {namespace}.{close[0]}?" if close else None


__all__ = ["BY_MLIR_NAME", "EXTENSION_OPS", "OPS", "Arg", "OpCall", "OpRule", "Param", "lookup",
           "register", "unregister"]
