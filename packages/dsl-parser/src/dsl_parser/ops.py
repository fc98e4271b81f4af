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

from ._mlir import Value, dsl, tensor
from .errors import ParserError, ParserTypeError
from .types import INDEX, Dim, DType, Dynamic, PlType, ScalarType, TensorType, dims_match
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
def _infer_binary(call: OpCall) -> PlType:
    lhs, rhs = call["lhs"], call["rhs"]
    tensors = [v for v in (lhs, rhs) if isinstance(v, TypedValue) and v.is_tensor]
    if not tensors:
        call.fail(None, "at least one operand must be a tensor (use operators for scalars)")
    if len(tensors) == 1:
        t = tensors[0].type
        assert isinstance(t, TensorType)
        _operand_type(call, "rhs" if tensors[0] is lhs else "lhs", t.dtype)
        return t
    a, b = _tensor(call, "lhs"), _tensor(call, "rhs")
    if a.dtype != b.dtype:
        call.fail("rhs", f"operands have different dtypes: {a} and {b}")
    if not a.matches(b):
        call.fail("rhs", f"operands have different shapes: {a} and {b}")
    assert a.shape is not None and b.shape is not None
    return a if a.shape == b.shape else TensorType(_merge_shape(a.shape, b.shape), a.dtype)


def _broadcast(call: OpCall, name: str, t: TensorType) -> Value:
    """The tensor operand itself, or a pl.full of the scalar one (sizes first, then value)."""
    value = call[name]
    if isinstance(value, TypedValue) and value.is_tensor:
        return value.value
    ctx = call.ctx
    source = call["rhs" if name == "lhs" else "lhs"]
    assert t.shape is not None and isinstance(source, TypedValue)
    sizes = ctx.dynamic_sizes(t, t.shape, call.nodes[name], source)
    scalar = ctx.materialize(value, call.nodes[name], t.dtype)
    op = dsl.FullOp(ctx.mlir_type(t), scalar.value, sizes, loc=ctx.loc, ip=ctx.ip)
    return ctx.new(op.result, t).value


def _binary(name: str, op_class: Callable[..., object], what: str) -> OpRule:
    def emit(call: OpCall, t: PlType) -> Value:
        assert isinstance(t, TensorType)
        lhs, rhs = _broadcast(call, "lhs", t), _broadcast(call, "rhs", t)
        ctx = call.ctx
        return op_class(ctx.mlir_type(t), lhs, rhs, loc=ctx.loc, ip=ctx.ip).result  # type: ignore[attr-defined]

    return OpRule(
        name, f"dsl.{name}", (Param("lhs", Arg.OPERAND), Param("rhs", Arg.OPERAND)),
        _infer_binary, emit, lambda s: f"pl.{name}({s.operand(0)}, {s.operand(1)})",
        f"Elementwise {what}; a scalar operand is broadcast with pl.full.")


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
                        b_trans=True if call["b_trans"] else None, loc=ctx.loc, ip=ctx.ip).result


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
    target = call["target_type"]
    assert isinstance(target, DType)
    if target.kind == "index":
        call.fail("target_type", "tensors of INDEX are not supported")
    return TensorType(_tensor(call, "x").shape, target)


def _emit_unary(op_class: Callable[..., object]) -> Callable[[OpCall, PlType], Value]:
    def emit(call: OpCall, t: PlType) -> Value:
        x = call["x"]
        assert isinstance(x, TypedValue)
        ctx = call.ctx
        return op_class(ctx.mlir_type(t), x.value, loc=ctx.loc, ip=ctx.ip).result  # type: ignore[attr-defined]
    return emit


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


def _table(*rules: OpRule) -> dict[str, OpRule]:
    return {rule.name: rule for rule in rules}


OPS: dict[str, OpRule] = _table(
    _binary("add", dsl.AddOp, "addition"),
    _binary("sub", dsl.SubOp, "subtraction"),
    _binary("mul", dsl.MulOp, "multiplication"),
    _binary("div", dsl.DivOp, "division"),
    OpRule("matmul", "dsl.matmul",
           (Param("lhs", Arg.TENSOR), Param("rhs", Arg.TENSOR), Param("a_trans", Arg.FLAG, False),
            Param("b_trans", Arg.FLAG, False), Param("out_dtype", Arg.DTYPE, None)),
           _infer_matmul, _emit_matmul, _spell_matmul,
           "2-D matrix product, optionally transposing either operand; "
           "out_dtype widens the result."),
    OpRule("cast", "dsl.cast", (Param("x", Arg.TENSOR), Param("target_type", Arg.DTYPE)),
           _infer_cast, _emit_unary(dsl.CastOp),
           lambda s: f"pl.cast({s.operand(0)}, target_type={s.result_type().dtype!r})",
           "Elementwise conversion to another dtype."),
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
