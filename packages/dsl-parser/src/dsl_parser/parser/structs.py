"""Struct parameters: a ``@dc.struct`` annotation becomes one scalar parameter per leaf.

A parameter ``p: Pair`` (``@dc.struct class Pair: a: dc.Int32; b: dc.Float32``)
turns into the MLIR parameters ``p.a: i32, p.b: f32`` (declaration order, nested
structs flattened), matching dsl-core's C-ABI flattening; the leaves' dtypes are the
fields' (``dc.Int32.dtype`` is ``pl.INT32``). In the body ``p`` is the struct itself,
rebuilt from the leaves by its DslType hook ``__construct_from_ir_values__`` (its fields
are traced dsl-core scalars, read back as DSL values); a launch passes it on with
``__extract_to_ir_values__``.
"""

from __future__ import annotations

import ast
from typing import Any

from ..types import ScalarType, dtype_of


def is_struct(annotation: object) -> bool:
    return isinstance(annotation, type) and getattr(annotation, "__dsl_kind__", None) == "struct"


def union_problem(annotation: object, name: str) -> str | None:
    """Why a ``@dc.union`` cannot be parameter ``name`` (None for anything else)."""
    if not (isinstance(annotation, type) and getattr(annotation, "__dsl_kind__", None) == "union"):
        return None
    return (f"parameter '{name}': {annotation.__name__} is a @dc.union, which is storage only "
            "(it has no IR value to pass); pass the member you need, or a @dc.struct")


class Leaf:
    """One scalar leaf of a struct parameter: its path and type (not changed after
    construction)."""

    __slots__ = ("path", "type")

    def __init__(self, path: tuple[str, ...], type: ScalarType) -> None:
        self.path = path  # ("p", "inner", "x")
        self.type = type

    @property
    def name(self) -> str:
        return ".".join(self.path)


def leaves(annotation: Any, path: tuple[str, ...]) -> list[Leaf] | str:
    """The scalar leaves of a struct type, or a message saying why it cannot be a parameter."""
    found: list[Leaf] = []
    for f in annotation.__dsl_fields__:
        where = ".".join((*path, f.name))
        if f.constexpr:
            return (f"field '{where}' is a Constexpr: Constexpr fields of struct parameters "
                    "are not supported")
        if is_struct(f.value_type):
            inner = leaves(f.value_type, (*path, f.name))
            if isinstance(inner, str):
                return inner
            found.extend(inner)
            continue
        dtype = dtype_of(f.value_type)
        if dtype is None:
            return (f"field '{where}' of type {getattr(f.value_type, '__name__', f.value_type)} "
                    "is not a scalar or struct")
        found.append(Leaf((*path, f.name), ScalarType(dtype)))
    return found


def leaf_args(arg: ast.arg, found: list[Leaf]) -> list[ast.arg]:
    """Synthetic parameters (``p.a``) located at the struct parameter."""
    return [ast.copy_location(ast.arg(arg=leaf.name), arg) for leaf in found]


def construct(annotation: Any, values: list[Any]) -> Any:
    """The body's value of a struct parameter from its leaves' TypedValues, in order
    (dsl-core's ``__construct_from_ir_values__``)."""
    import dsl_core as dc

    return dc.construct_from_ir_values(annotation, [v.value for v in values])
