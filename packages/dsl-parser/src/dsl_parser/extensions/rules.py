"""Building op rules for an extension namespace: composites and ops of its own dialect.

* ``composite``: a ``dx.<name>`` that emits existing ops (``dsl.mul``...). It
  needs no dialect and no lowering, and prints as the ops it emitted (print ->
  parse -> print stays a fixed point).
* ``custom_op``: a ``dx.<name>`` that emits one op of the extension's IRDL
  dialect, with its tensor/scalar operands and compile-time parameters stored
  as attributes; it prints back as ``dx.<name>(...)`` and needs a lowering rule.

``expose(alias, globals())`` fills the extension's namespace module with the
markers the parser recognizes (``dx.cube``), as ``pl`` has them for its ops.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._mlir import Value, ir
from ..markers import OpBuiltin
from ..ops import EXTENSION_OPS, REQUIRED, OpCall, OpRule, Param, Spelling
from ..types import PlType
from ..values import TypedValue
from .dialects import ensure_dialect


@dataclass(frozen=True)
class Attr:
    """How a compile-time parameter is stored as an attribute, and read back for printing."""

    to_mlir: Callable[[Any], Any]
    from_mlir: Callable[[Any], object]


#: A float parameter stored as an f64 ``FloatAttr`` (exact for every Python float).
F64 = Attr(lambda v: ir.FloatAttr.get_f64(float(v)), lambda a: float(ir.FloatAttr(a).value))
#: An int parameter stored as an i64 ``IntegerAttr``.
I64 = Attr(lambda v: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v)),
           lambda a: int(ir.IntegerAttr(a).value))
#: A flag stored as a ``BoolAttr``.
BOOL = Attr(lambda v: ir.BoolAttr.get(bool(v)), lambda a: bool(ir.BoolAttr(a).value))


def _no_spelling(s: Spelling) -> str:
    raise ValueError("a composite op prints as the ops it emits")


def composite(namespace: str, name: str, params: Sequence[Param],
              infer: Callable[[OpCall], PlType], emit: Callable[[OpCall, PlType], Value],
              doc: str) -> OpRule:
    """A ``namespace.name`` op that ``emit`` builds from existing ops (no dialect, no lowering)."""
    return OpRule(name, None, tuple(params), infer, emit, _no_spelling, doc, namespace=namespace)


def custom_op(namespace: str, name: str, *, mlir_name: str, params: Sequence[Param],
              infer: Callable[[OpCall], PlType], operands: Sequence[str],
              attributes: Mapping[str, Attr] | None = None, doc: str) -> OpRule:
    """A ``namespace.name`` op emitting the op ``mlir_name`` of a registered IRDL dialect.

    ``operands`` names the parameters passed as SSA operands (tensors or scalar
    values), in order; ``attributes`` the compile-time parameters stored as
    attributes. ``infer`` checks the arguments (errors point at the user's line)
    and returns the result type; the dialect's IRDL constraints verify the op
    again when the module is verified.
    """
    attrs = dict(attributes or {})
    unknown = (set(operands) | set(attrs)) ^ {p.name for p in params}
    if unknown:
        raise ValueError(f"{namespace}.{name}: every parameter must be an operand or an "
                         f"attribute; check {sorted(unknown)}")
    dialect = mlir_name.split(".", 1)[0]

    def emit(call: OpCall, t: PlType) -> Value:
        ctx = call.ctx
        ensure_dialect(ctx.loc.context, dialect)  # type: ignore[attr-defined]
        values = []
        for operand in operands:
            value = call[operand]
            if not isinstance(value, TypedValue):
                value = ctx.materialize(value, call.nodes.get(operand, call.node), None)
            values.append(value.value)
        attributes = {key: attr.to_mlir(call[key]) for key, attr in attrs.items()}
        op = ir.Operation.create(mlir_name, results=[ctx.mlir_type(t)], operands=values,
                                 attributes=attributes, loc=ctx.loc, ip=ctx.ip)
        return op.results[0]

    defaults = {p.name: p.default for p in params}
    qualname = f"{namespace}.{name}"

    def spell(s: Spelling) -> str:
        parts = [s.operand(i) for i in range(len(operands))]
        op_attrs = s.op.attributes  # type: ignore[attr-defined]
        for key, attr in attrs.items():
            value = attr.from_mlir(op_attrs[key])
            if defaults[key] is REQUIRED or value != defaults[key]:
                parts.append(f"{key}={value!r}")
        return f"{qualname}({', '.join(parts)})"

    return OpRule(name, mlir_name, tuple(params), infer, emit, spell, doc, namespace=namespace)


def markers(alias: str) -> dict[str, OpBuiltin]:
    """The markers of the ops registered in namespace ``alias``: ``{"cube": dx.cube, ...}``."""
    return {rule.name: OpBuiltin(key, rule.doc) for key, rule in EXTENSION_OPS.items()
            if rule.namespace == alias}


def expose(alias: str, namespace: dict[str, Any]) -> None:
    """Fill a namespace module's globals with its op markers and a ``__getattr__`` that
    names the namespace when an op is missing (call at the end of the module)."""
    namespace.update(markers(alias))

    def __getattr__(name: str) -> Any:
        rule = EXTENSION_OPS.get(f"{alias}.{name}")
        if rule is not None:
            return OpBuiltin(rule.key, rule.doc)
        raise AttributeError(f"namespace {alias!r} ({namespace.get('__name__')}) has no "
                             f"operation or attribute {name!r}")

    namespace["__getattr__"] = __getattr__
