"""Parameters whose type is given by dsl-core's protocols rather than by a DSL type.

A ``@jit`` function whose parameter is annotated with a user's type (one registered in
``dsl_core.JitArgumentRegistry``, or implementing both ``JitArgument`` and ``DslType``)
is parsed with a :class:`~dsl_parser.types.ProtocolArgument` override for it. The
parameter becomes one MLIR parameter per IR type of the argument's
``__get_ir_types__`` (``q.0``, ``q.1``, ...); in the body, ``q`` is the value the
type's ``__construct_from_ir_values__`` builds from them. Attributes read from that
value become DSL values again (:func:`as_dsl_value`): an ``ir.Value`` keeps the DSL type
its parameter was declared with, a traced dsl-core scalar its ``dtype``.
"""

from __future__ import annotations

import ast
from typing import Any

from .._mlir import ir
from ..types import PlType, ProtocolArgument, ScalarType, TensorType, dtype_of, from_mlir
from ..values import TypedValue, ValueInfo


def ir_param_types(arg: ast.arg, override: ProtocolArgument, ctx: Any) -> list[PlType] | str:
    """The DSL types of the MLIR parameters of ``arg``, or why there are none."""
    import dsl_core as dc

    if override.types is not None:  # a kernel's parameter: what the launch passes
        return list(override.types)
    try:
        with ctx:
            raw = list(dc.get_ir_types(override.argument))
    except Exception as err:  # a user's hook: report what it raised, at the parameter
        return f"{override.describe()}.__get_ir_types__ failed: {type(err).__name__}: {err}"
    if not raw:
        return f"{override.describe()}.__get_ir_types__ returned no IR types"
    out: list[PlType] = []
    for i, t in enumerate(raw):
        found = _as_pl_type(t)
        if found is None:
            return (f"{override.describe()}.__get_ir_types__ item {i} is {t}: a protocol "
                    "argument passes tensors and scalars (tensor<...>, iN, fN, index)")
        out.append(found)
    return out


def _as_pl_type(t: object) -> PlType | None:
    if isinstance(t, (TensorType, ScalarType)):
        return t if not isinstance(t, TensorType) or t.shape is not None else None
    if isinstance(t, ir.Type):
        try:
            return from_mlir(t)
        except TypeError:
            return None
    return None


def launch_values(value: object, dsl_type: type, info: ValueInfo) -> list[TypedValue] | str:
    """The DSL values a launch passes for a protocol argument (its DslType's
    ``__extract_to_ir_values__``), or why it cannot."""
    import dsl_core as dc

    if not isinstance(value, dsl_type):
        return f"expected a {dsl_type.__qualname__}, given {type(value).__name__}"
    try:
        raw = list(dc.extract_to_ir_values(value))
    except Exception as err:  # a user's hook
        return (f"{dsl_type.__qualname__}.__extract_to_ir_values__ failed: "
                f"{type(err).__name__}: {err}")
    out = []
    for item in raw:
        found = as_dsl_value(item, info)
        if not isinstance(found, TypedValue):
            return (f"{dsl_type.__qualname__}.__extract_to_ir_values__ gave {item!r}, "
                    "not an IR value")
        out.append(found)
    return out


def leaf_args(arg: ast.arg, count: int) -> list[ast.arg]:
    """Synthetic parameters ``q.0``, ``q.1``... located at the parameter."""
    return [ast.copy_location(ast.arg(arg=f"{arg.arg}.{i}"), arg) for i in range(count)]


def construct_protocol(arg: ast.arg, override: ProtocolArgument,
                       values: list[TypedValue]) -> object:
    """The body's value of the parameter: ``__construct_from_ir_values__`` of its type
    (raises what the hook raised, for the caller to locate)."""
    import dsl_core as dc

    return dc.construct_from_ir_values(override.dsl_type, [v.value for v in values],
                                       override.argument)


def as_dsl_value(obj: object, info: ValueInfo) -> object:
    """``obj`` as the parser sees values: an ``ir.Value`` or a traced dsl-core scalar
    becomes a TypedValue; anything else is returned as it is."""
    if isinstance(obj, ir.Value):
        known = info.types.get(obj)
        return TypedValue(obj, known if known is not None else from_mlir(obj.type))
    dtype = dtype_of(type(obj))
    if dtype is not None and getattr(obj, "is_traced", False):
        return TypedValue(obj.ir_value, ScalarType(dtype))  # type: ignore[attr-defined]
    return obj
