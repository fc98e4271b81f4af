"""The shape of an op-table entry: ``OpRule`` and what its rules see (``OpCall``, ``Spelling``)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NoReturn, Protocol

from .._mlir import Value
from ..errors import ParserError, ParserTypeError
from ..types import (
    DType,
    PlType,
    TensorType,
)
from ..values import TypedValue


class Arg(Enum):
    """How an argument is checked before the rule sees it."""

    TENSOR = "a tensor"
    TENSOR_OR_SCALAR = "a tensor or a scalar value"
    OPERAND = "a tensor, a scalar or a number"
    VALUE = "a scalar or a number"
    SHAPE = "a list of sizes"
    OFFSETS = "a list of INDEX offsets"
    DTYPE = "a dtype such as pl.FP32"
    FLAG = "True or False"
    INT = "an int"
    AXES = "an int, a list of ints or None"
    INTS = "a list of ints"
    TENSORS = "a list of tensors"
    SIZE = "a size (an int or an INDEX scalar)"


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


@dataclass
class RefCall:
    """One call of an op under the reference interpreter (what ``OpRule.reference`` sees).

    ``args`` holds the bound arguments with tensors as numpy arrays in their storage
    form (BF16 as float32 arrays holding bf16 values), typed scalars as numpy scalars,
    literals, shapes and flags as given; ``types`` the DSL type of each tensor and
    typed-scalar argument; ``where`` the user's ``file:line`` for messages;
    ``declared`` the types the parser gave the tensor arguments where some of their
    sizes are ``pl.dynamic`` (``Dynamic`` dimensions; the compiled code checks those
    sizes at run time).
    """

    rule: OpRule
    args: dict[str, Any]
    types: dict[str, PlType]
    where: str
    declared: dict[str, PlType] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.args[name]

    def fail(self, message: str, cls: type[Exception] = IndexError) -> NoReturn:
        raise cls(f"{self.rule.qualname} at {self.where}: {message}")


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
    ``reference`` is the op's meaning in numpy, what the reference interpreter
    (``dsl_parser.interpreter``) runs: every ``pl`` op has one (``register`` refuses
    a ``pl`` op without it); an extension op may leave it out, and the interpreter
    then raises ``NotImplementedError`` naming the op.
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
    reference: Callable[[RefCall, PlType], object] | None = None

    @property
    def qualname(self) -> str:
        """``pl.add``, ``dx.cube``: how users spell the op (and how messages name it)."""
        return f"{self.namespace}.{self.name}"

    @property
    def key(self) -> str:
        """Its key: the name in ``OPS`` for ``pl`` ops, the qualified name in ``EXTENSION_OPS``."""
        return self.name if self.namespace == "pl" else self.qualname


def with_references(rules: tuple[OpRule, ...],
                    references: dict[str, Callable[[RefCall, PlType], object]],
                    ) -> tuple[OpRule, ...]:
    """``rules`` with each one's ``reference`` taken from ``references`` (by name)."""
    from dataclasses import replace

    return tuple(replace(rule, reference=references[rule.name]) if rule.name in references
                 else rule for rule in rules)
