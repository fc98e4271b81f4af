"""What each parameter of a @jit function is, read from its annotations."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Literal

import dsl_core as dc
from dsl_core import dtypes
from dsl_core.constexpr import Constexpr

Kind = Literal["tensor", "scalar", "constexpr", "struct", "stream", "protocol"]


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: its kind and annotation (a pl type, a dsl-core scalar class,
    ``dc.Constexpr[T]``, a ``@dc.struct``, ``dc.Stream``, or for a *protocol* parameter a
    type the ``JitArgumentRegistry`` knows; ``dsl_type`` is then the DslType it takes)."""

    name: str
    kind: Kind
    annotation: Any
    dsl_type: Any = None

    @property
    def specializes(self) -> bool:
        """Whether the argument's value/shape/signature is part of the compile key."""
        return self.kind in ("constexpr", "protocol") or (
            self.kind == "tensor" and self.annotation.shape is None)


def _kind(name: str, annotation: Any, where: str) -> Kind:
    if isinstance(annotation, type) and issubclass(annotation, Constexpr):
        return "constexpr"
    composite = getattr(annotation, "__dsl_kind__", None) if isinstance(annotation, type) else None
    if composite == "struct":
        return "struct"
    if composite == "union":
        raise TypeError(f"{where}: parameter '{name}' is a @dc.union ({annotation.__name__}), "
                        "which is storage only (it has no IR value to pass); pass the member "
                        "you need, or a @dc.struct")
    if _is_stream(annotation):
        return "stream"
    shape = getattr(annotation, "shape", inspect.Parameter.empty)
    if shape is not inspect.Parameter.empty and hasattr(annotation, "dtype"):
        return "tensor"
    if hasattr(annotation, "dtype") and (hasattr(annotation, "to_mlir")
                                         or isinstance(annotation.dtype, dtypes.DType)):
        return "scalar"  # pl.Scalar[...] / pl.INT32, or a dsl-core scalar class (dc.Int32)
    if dc.JitArgumentRegistry.parameter_type(annotation) is not None:
        return "protocol"
    raise TypeError(
        f"{where}: parameter '{name}' has annotation {annotation!r}; expected pl.Tensor[...], "
        f"pl.Scalar[...], a dsl-core scalar type (dc.Int32, ...), a @dc.struct, dc.Stream, "
        f"dc.Constexpr[T], or a type registered with dsl_core.JitArgumentRegistry")


def _is_stream(annotation: Any) -> bool:
    """``dc.Stream`` (or the parser's StreamType of a parsed signature)."""
    return annotation is dc.Stream or type(annotation).__name__ == "StreamType"


def read_params(fn: Any) -> tuple[ParamSpec, ...]:
    """The parameters of a Python function, from its (evaluated) annotations."""
    where = getattr(fn, "__qualname__", repr(fn))
    annotations = inspect.get_annotations(fn, eval_str=True)
    specs = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"{where}: *args/**kwargs parameters are not supported ('{p.name}')")
        if p.name not in annotations:
            raise TypeError(f"{where}: parameter '{p.name}' needs a type annotation "
                            f"(pl.Tensor[...], pl.Scalar[...] or dc.Constexpr[T])")
        ann = annotations[p.name]
        if isinstance(ann, dtypes.DType):  # `n: pl.INT32` means pl.Scalar[pl.INT32]
            from dsl_parser.types import ScalarType

            ann = ScalarType(ann)
        kind = _kind(p.name, ann, where)
        specs.append(ParamSpec(p.name, kind, ann,
                               dc.JitArgumentRegistry.parameter_type(ann)
                               if kind == "protocol" else None))
    return tuple(specs)


def params_of_signature(signature: Any) -> tuple[ParamSpec, ...]:
    """The parameters of an already parsed function (dsl-parser ``Signature``)."""
    specs = []
    for p in signature.params:
        kind: Kind = ("stream" if _is_stream(p.type)
                      else "tensor" if getattr(p.type, "shape", None) is not None else "scalar")
        specs.append(ParamSpec(p.name, kind, p.type))
    return tuple(specs)


def struct_leaves(spec: ParamSpec, value: Any, where: str) -> tuple[Any, ...]:
    """The scalar leaves of a struct argument, in declaration order (nested structs flattened)."""
    from .binder import leaf_getter

    if not isinstance(value, spec.annotation):
        raise TypeError(f"{where}: argument '{spec.name}' expects a {spec.annotation.__name__} "
                        f"struct, got {type(value).__name__}")
    return leaf_getter(type(value))(value)


def constexpr_value(spec: ParamSpec, value: Any, where: str) -> int | float | bool:
    """The Python value of a Constexpr argument, type-checked (TypeError naming the parameter)."""
    try:
        checked = spec.annotation.check(value)
    except TypeError as err:
        raise TypeError(f"{where}: Constexpr parameter '{spec.name}': {err}") from None
    raw = getattr(checked, "value", checked)
    if not isinstance(raw, (int, float, bool)):
        raise TypeError(f"{where}: Constexpr parameter '{spec.name}' must hold an int, float or "
                        f"bool to specialize code, got {type(raw).__name__}")
    return raw
