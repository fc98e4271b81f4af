"""The insertion-point helper: where ops go, which location they carry, typed constants.

Sub-parsers never thread insertion points by hand: ``ASTParser.visit`` sets the
node being parsed (``builder.where``), blocks open with ``with builder.at(block):``
and ops are created with ``loc=b.loc, ip=b.ip``. The location is computed only
when an op asks for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .._mlir import Block, Context, Location, Type, Value, arith, ir
from ..floats import Float64Bits, float_attr
from ..types import DType, ParamType, PlType, ScalarType, TensorType, memref_type
from ..values import TypedValue, ValueInfo, to_signless


class IRBuilder:
    """Current insertion point and location, type cache and the module's value table."""

    def __init__(self, ctx: Context, info: ValueInfo, locate: Callable[[object], Location],
                 memrefs: bool = False) -> None:
        self.ctx = ctx
        #: Tensors are memrefs (a kernel, a function that launches kernels).
        self.memrefs = memrefs
        self.info = info
        self.ip: object = None
        self.where: object = None  # the AST node being parsed
        self._loc: Location = None
        self._locate = locate
        self._types: dict[object, Type] = {}

    @property
    def loc(self) -> Location:
        """The location of the node being parsed (computed on first use)."""
        if self._loc is None:
            self._loc = self._locate(self.where)
        return self._loc

    def enter(self, node: object) -> tuple[object, Location]:
        """Make ``node`` the current node; returns what ``leave`` restores."""
        saved = (self.where, self._loc)
        self.where, self._loc = node, None
        return saved

    def leave(self, saved: tuple[object, Location]) -> None:
        self.where, self._loc = saved

    def mlir_type(self, t: ParamType | DType) -> Type:
        """The MLIR type of a DSL type (cached: types are uniqued per context anyway);
        a tensor is a memref when ``memrefs`` is set."""
        cached = self._types.get(t)
        if cached is None:
            if self.memrefs and isinstance(t, TensorType):
                cached = self._types[t] = memref_type(t, self.ctx)
            else:
                cached = self._types[t] = t.to_mlir(self.ctx)
        return cached

    @contextmanager
    def at(self, block: Block) -> Iterator[None]:
        """Insert at the end of ``block`` inside the ``with``."""
        saved = self.ip
        self.ip = ir.InsertionPoint(block)
        try:
            yield
        finally:
            self.ip = saved

    @contextmanager
    def located(self, node: object) -> Iterator[None]:
        """Build at the location of ``node`` inside the ``with``."""
        saved = self.enter(node)
        try:
            yield
        finally:
            self.leave(saved)

    def typed(self, value: Value, t: PlType, name: str | None = None) -> TypedValue:
        """Wrap a fresh MLIR value and record its DSL type (and name) for the printer."""
        tv = TypedValue(value, t)
        self.info.record(tv, name)
        return tv

    def constant(self, value: int | float | bool | Float64Bits, dtype: DType) -> TypedValue:
        """``arith.constant`` of ``dtype`` (the caller checked the range)."""
        mlir_type = self.mlir_type(dtype)
        if dtype.is_float:
            number = value if isinstance(value, Float64Bits) else float(value)
            attr = float_attr(number, dtype, mlir_type)
        else:
            attr = ir.IntegerAttr.get(mlir_type, to_signless(int(value), dtype))  # type: ignore[arg-type]
        op = arith.ConstantOp(mlir_type, attr, loc=self.loc, ip=self.ip)
        return self.typed(op.result, ScalarType(dtype))
