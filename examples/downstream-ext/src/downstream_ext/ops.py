"""The ops of the ``dx`` namespace: the parser-side surface (arguments, checks, emission).

* ``dx.cube(x)`` is a composite: two ``dsl.mul`` ops, nothing to lower.
* ``dx.leaky_relu(x, alpha=0.0)`` emits ``dext.leaky_relu`` of the IRDL dialect
  below; ``lowering.py`` rewrites it into a ``linalg.generic``.

Argument checks (``infer``) fail at the user's line; the IRDL constraints
(operand and result of one tensor type, ``alpha`` a float attribute) verify
the op again whenever the module is verified, e.g. when parsed from text.
"""

from __future__ import annotations

import math

from dsl_mlir.dialects import dsl
from dsl_parser.extensions import F64, composite, custom_op
from dsl_parser.ops import Arg, OpCall, Param
from dsl_parser.types import PlType, TensorType
from dsl_parser.values import TypedValue

IRDL = """
irdl.dialect @dext {
  irdl.operation @leaky_relu {
    %tensor = irdl.base "!builtin.tensor"
    %float = irdl.base "#builtin.float"
    irdl.attributes { "alpha" = %float }
    irdl.operands(x: %tensor)
    irdl.results(result: %tensor)
  }
}
"""


def _tensor(call: OpCall) -> TensorType:
    x = call["x"]
    assert isinstance(x, TypedValue) and isinstance(x.type, TensorType)
    return x.type


def _emit_cube(call: OpCall, t: PlType) -> object:
    x = call["x"]
    assert isinstance(x, TypedValue)
    ctx = call.ctx
    mlir_type = ctx.mlir_type(t)
    square = dsl.MulOp(mlir_type, x.value, x.value, loc=ctx.loc, ip=ctx.ip).result
    return dsl.MulOp(mlir_type, square, x.value, loc=ctx.loc, ip=ctx.ip).result


CUBE = composite("dx", "cube", (Param("x", Arg.TENSOR),), _tensor, _emit_cube,
                 "Elementwise x * x * x (two dsl.mul ops).")


def _infer_leaky_relu(call: OpCall) -> PlType:
    t = _tensor(call)
    if not t.dtype.is_float:
        call.fail("x", f"x must be a tensor of floats, got {t}")
    alpha = call["alpha"]
    if isinstance(alpha, (TypedValue, bool)) or not math.isfinite(alpha):  # type: ignore[arg-type]
        call.fail("alpha", f"alpha must be a finite number known at compile time, got {alpha!r}")
    return t


LEAKY_RELU = custom_op(
    "dx", "leaky_relu", mlir_name="dext.leaky_relu",
    params=(Param("x", Arg.TENSOR), Param("alpha", Arg.VALUE, 0.0)),
    infer=_infer_leaky_relu, operands=("x",), attributes={"alpha": F64},
    doc="Elementwise x if x > 0 else alpha * x (lowered to linalg.generic).")
