"""A tiny stand-in for ``dsl_mlir.ir``: enough to test the IR hooks' logic without MLIR.

Types are compared by their text; values are objects carrying a type. Constants record the
attribute text they were built from, so tests can assert what would have been emitted.
"""

from __future__ import annotations

import types
from typing import Any, ClassVar


class Type:
    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Type) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__

    @staticmethod
    def parse(text: str) -> Type:
        return Type(text)


class VectorType(Type):
    def __init__(self, shape: list[int], element_type: Type) -> None:
        super().__init__(f"vector<{'x'.join(map(str, shape))}x{element_type}>")
        self.shape, self.element_type = list(shape), element_type

    @staticmethod
    def get(shape: list[int], element_type: Type) -> VectorType:
        return VectorType(shape, element_type)

    def is_dynamic_dim(self, i: int) -> bool:
        return False


class MemRefType(VectorType):
    def __init__(self, shape: list[int], element_type: Type) -> None:
        super().__init__(shape, element_type)
        dims = "x".join("?" if d < 0 else str(d) for d in shape)
        self.text = f"memref<{dims}x{element_type}>"

    def is_dynamic_dim(self, i: int) -> bool:
        return self.shape[i] < 0


class RankedTensorType(MemRefType):
    pass


class IntegerType:
    @staticmethod
    def get_signless(width: int) -> Type:
        return Type(f"i{width}")


def _float(name: str) -> Any:
    return types.SimpleNamespace(get=lambda: Type(name))


F16Type, BF16Type, F32Type, F64Type = (_float(n) for n in ("f16", "bf16", "f32", "f64"))


class Value:
    def __init__(self, type: Type, name: str = "") -> None:
        self.type, self.name = type, name

    def __repr__(self) -> str:
        return f"%{self.name}: {self.type}"


class Attribute:
    def __init__(self, text: str) -> None:
        self.text = text

    @staticmethod
    def parse(text: str) -> Attribute:
        return Attribute(text)


class Operation:
    created: ClassVar[list[tuple[str, str]]] = []

    def __init__(self, name: str, result: Value) -> None:
        self.name, self.result = name, result

    @staticmethod
    def create(name: str, results: list[Type], attributes: dict[str, Attribute]) -> Operation:
        Operation.created.append((name, attributes["value"].text))
        return Operation(name, Value(results[0], "cst"))


def module() -> types.ModuleType:
    """A fake ``dsl_mlir`` package exposing this file as ``ir``."""
    import sys

    pkg = types.ModuleType("dsl_mlir")
    pkg.__version__ = "0.1.0"  # type: ignore[attr-defined]
    pkg.ir = sys.modules[__name__]  # type: ignore[attr-defined]
    return pkg
