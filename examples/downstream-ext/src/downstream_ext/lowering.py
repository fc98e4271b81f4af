"""Lowering of ``dext.leaky_relu`` to ``linalg.generic`` (tensor.empty + arith in the body).

Called by ``dsl_parser.extensions.lower_extensions`` with the insertion point
before the op and its location active; returns the replacement of its result.
dsl-mlir's pipeline then bufferizes and lowers the generic like its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dsl_mlir import ir
from dsl_mlir.dialects import arith, tensor


def _empty_like(x: Any) -> Any:
    """A ``tensor.empty`` of ``x``'s type (dynamic sizes read with ``tensor.dim``)."""
    t = ir.RankedTensorType(x.type)
    sizes = [tensor.dim(x, arith.constant(ir.IndexType.get(), axis)) if t.is_dynamic_dim(axis)
             else t.shape[axis] for axis in range(t.rank)]
    return tensor.EmptyOp(sizes, t.element_type).result


def lower_leaky_relu(op: Any) -> Sequence[Any]:
    """``x > 0 ? x : alpha * x`` for every element, as one parallel ``linalg.generic``."""
    # Imported here, not at module level: upstream's linalg Python module takes ~50 ms to import,
    # and the extension is registered in every process that compiles anything.
    from dsl_mlir.dialects import linalg

    x = op.operands[0]
    t = ir.RankedTensorType(x.type)
    alpha = ir.FloatAttr(op.attributes["alpha"]).value
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(t.rank))
    parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    generic = linalg.GenericOp_([x], [_empty_like(x)], ir.ArrayAttr.get([identity, identity]),
                                ir.ArrayAttr.get([parallel] * t.rank))
    body = generic.regions[0].blocks[0]
    with ir.InsertionPoint(body):
        element = body.arguments[0]
        zero = arith.constant(t.element_type, 0.0)
        scaled = arith.mulf(element, arith.constant(t.element_type, alpha))
        positive = arith.cmpf(arith.CmpFPredicate.OGT, element, zero)
        linalg.YieldOp([arith.select(positive, element, scaled)])
    return [generic.results[0]]
