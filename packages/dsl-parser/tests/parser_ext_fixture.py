"""A small extension for the tests of dsl_parser.extensions (namespace ``tx``, dialect ``tx``).

``tx.square`` is a composite; ``tx.neg`` an IRDL op with a Python lowering to
``linalg.generic``; ``tx.bad`` a deliberately wrong rule (its result type breaks
the IRDL constraint); ``tx.boom`` an op whose lowering raises. The ``register_*``
functions below it are broken extensions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dsl_mlir import ir
from dsl_mlir.dialects import arith, dsl, linalg, tensor

from dsl_parser.extensions import F64, ExtensionRegistry, composite, custom_op
from dsl_parser.ops import Arg, OpCall, Param
from dsl_parser.types import FP64, PlType, TensorType
from dsl_parser.values import TypedValue

NAMESPACE_MODULE = "parser_ext_fixture_ns"

IRDL = """
irdl.dialect @tx {
  irdl.operation @neg {
    %t = irdl.base "!builtin.tensor"
    %f = irdl.base "#builtin.float"
    irdl.attributes { "scale" = %f }
    irdl.operands(x: %t)
    irdl.results(result: %t)
  }
  irdl.operation @bad {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(x: %t)
    irdl.results(result: %t)
  }
  irdl.operation @boom {
    %t = irdl.base "!builtin.tensor"
    irdl.operands(x: %t)
    irdl.results(result: %t)
  }
}
"""


def _x(call: OpCall) -> TensorType:
    x = call["x"]
    assert isinstance(x, TypedValue) and isinstance(x.type, TensorType)
    return x.type


def _infer_float(call: OpCall) -> PlType:
    t = _x(call)
    if not t.dtype.is_float:
        call.fail("x", f"x must be a tensor of floats, got {t}")
    return t


def _emit_square(call: OpCall, t: PlType) -> Any:
    x = call["x"]
    assert isinstance(x, TypedValue)
    return dsl.MulOp(call.ctx.mlir_type(t), x.value, x.value, loc=call.ctx.loc,
                     ip=call.ctx.ip).result


def _infer_bad(call: OpCall) -> PlType:  # wrong on purpose: f64 result for any input
    return TensorType(_x(call).shape, FP64)


SQUARE = composite("tx", "square", (Param("x", Arg.TENSOR),), _x, _emit_square, "x * x")
NEG = custom_op("tx", "neg", mlir_name="tx.neg",
                params=(Param("x", Arg.TENSOR), Param("scale", Arg.VALUE, 1.0)),
                infer=_infer_float, operands=("x",), attributes={"scale": F64}, doc="-scale * x")
BAD = custom_op("tx", "bad", mlir_name="tx.bad", params=(Param("x", Arg.TENSOR),),
                infer=_infer_bad, operands=("x",), doc="breaks its IRDL constraint")
BOOM = custom_op("tx", "boom", mlir_name="tx.boom", params=(Param("x", Arg.TENSOR),),
                 infer=_x, operands=("x",), doc="its lowering raises")


def lower_neg(op: Any) -> Sequence[Any]:
    """-scale * x as a linalg.generic over a tensor.empty of x's (static) shape."""
    x = op.operands[0]
    t = ir.RankedTensorType(x.type)
    scale = ir.FloatAttr(op.attributes["scale"]).value
    init = tensor.EmptyOp(list(t.shape), t.element_type).result
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(t.rank))
    parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    generic = linalg.GenericOp_([x], [init], ir.ArrayAttr.get([identity, identity]),
                                ir.ArrayAttr.get([parallel] * t.rank))
    body = generic.regions[0].blocks[0]
    with ir.InsertionPoint(body):
        scaled = arith.mulf(body.arguments[0], arith.constant(t.element_type, scale))
        linalg.YieldOp([arith.negf(scaled)])
    return [generic.results[0]]


def lower_boom(op: Any) -> Sequence[Any]:
    raise RuntimeError("boom while lowering")


def register(registry: ExtensionRegistry) -> None:
    registry.namespace("tx", NAMESPACE_MODULE)
    registry.dialect("tx", IRDL)
    for rule in (SQUARE, NEG, BAD, BOOM):
        registry.op(rule)
    registry.lowering("tx.neg", lower_neg)
    registry.lowering("tx.boom", lower_boom)


def register_raising(registry: ExtensionRegistry) -> None:
    """Registers a namespace and an op, then fails: both must be rolled back."""
    registry.namespace("bx", "nowhere.language")
    registry.op(composite("bx", "square", (Param("x", Arg.TENSOR),), _x, _emit_square, "x * x"))
    raise RuntimeError("half-registered")


def register_stealing_a_dialect(registry: ExtensionRegistry) -> None:
    """Defines a dialect under the name of one dsl-mlir has (loading it would abort MLIR)."""
    registry.dialect("arith", "irdl.dialect @arith {\n}")
