"""Struct parameters: a ``@dc.struct`` annotation becomes one scalar parameter per leaf.

A parameter ``p: Pair`` (``@dc.struct class Pair: a: dc.Int32; b: dc.Float32``)
turns into the MLIR parameters ``p.a: i32, p.b: f32`` (declaration order, nested
structs flattened), matching dsl-core's C-ABI flattening; in the body ``p`` is a
``StructValue`` whose attributes are the leaf values (``p.a``). dsl-core is not
imported: structs are recognized by their ``__dsl_fields__``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..types import DTYPES, ScalarType

#: dsl-core scalar class name -> DSL dtype name.
_SCALARS = {"Int8": "INT8", "Int16": "INT16", "Int32": "INT32", "Int64": "INT64",
            "UInt8": "UINT8", "UInt16": "UINT16", "UInt32": "UINT32", "UInt64": "UINT64",
            "Float16": "FP16", "BFloat16": "BF16", "Float32": "FP32", "Float64": "FP64",
            "Boolean": "BOOL"}


def is_struct(annotation: object) -> bool:
    return isinstance(annotation, type) and hasattr(annotation, "__dsl_fields__")


class StructValue:
    """A struct parameter inside the body: its attributes are the leaf values."""

    def __init__(self, type_name: str, fields: dict[str, Any], cls: Any = None) -> None:
        self._type_name = type_name
        self._type = cls  # the @dc.struct class
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return f"<struct {self._type_name}>"


@dataclass(frozen=True)
class Leaf:
    path: tuple[str, ...]  # ("p", "inner", "x")
    type: ScalarType

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
        dtype = _SCALARS.get(getattr(f.value_type, "__name__", ""))
        if dtype is None:
            return (f"field '{where}' of type {getattr(f.value_type, '__name__', f.value_type)} "
                    "is not a scalar or struct")
        found.append(Leaf((*path, f.name), ScalarType(DTYPES[dtype])))
    return found


def leaf_args(arg: ast.arg, found: list[Leaf]) -> list[ast.arg]:
    """Synthetic parameters (``p.a``) located at the struct parameter."""
    return [ast.copy_location(ast.arg(arg=leaf.name), arg) for leaf in found]


def assemble(annotation: Any, path: tuple[str, ...], values: dict[str, Any]) -> StructValue:
    """The StructValue of ``path`` from the leaf values by dotted name."""
    fields: dict[str, Any] = {}
    for f in annotation.__dsl_fields__:
        sub = (*path, f.name)
        fields[f.name] = (assemble(f.value_type, sub, values) if is_struct(f.value_type)
                          else values[".".join(sub)])
    return StructValue(annotation.__name__, fields, annotation)
