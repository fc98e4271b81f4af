"""Vector loads and stores of contiguous tensor elements, inside a ``@pl.kernel``.

* ``a, b, c, d = pl.load(x, (i, j), width=4)``: ``x[i, j]`` ... ``x[i, j + 3]`` with one
  ``vector.load`` (a tuple of ``width`` scalars of ``x``'s dtype);
* ``pl.store(x, (i, j), (a, b, c, d))``: the elements back with one ``vector.store``
  (numbers take the element dtype).

The elements are consecutive in the last dimension (tensor parameters are row-major);
``width`` is a compile-time 2, 4, 8 or 16. By default the vector ops claim only the
element's natural alignment (always true), so any index is valid: the CPU backend emits
one vector load or store, PTX one access per element. ``aligned=True`` promises that the
address is a multiple of the whole vector (``width * itemsize`` bytes: the index a
multiple of ``width`` in an array whose rows start so aligned); PTX then has one
``ld.global.v4``/``st.global.v4``, and a broken promise is a misaligned-address error of
the GPU. A single index is allowed for rank-1 tensors (``pl.load(x, i, 4)``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .._mlir import Value, ir, vector
from ..errors import InvalidOperationError, ParserTypeError
from ..markers import VectorBuiltin
from ..types import BOOL, ScalarType, TensorType
from ..values import TypedValue, is_literal, literal_problem
from .element_parser import element_indices
from .state import ParserState, _describe

WIDTHS = (2, 4, 8, 16)


class VectorParser:
    """Emits ``pl.load`` and ``pl.store``."""

    def __init__(self, state: ParserState) -> None:
        self.state = state

    def call(self, func: VectorBuiltin, node: ast.Call, args: Sequence[object],
             kwargs: dict[str, object]) -> object:
        src, qual = self.state.src, repr(func)
        aligned = kwargs.pop("aligned", False)
        if not isinstance(aligned, bool):
            src.error(node, ParserTypeError, f"{qual}: aligned must be True or False")
        if func.name == "load":
            values = list(args) + [kwargs[k] for k in ("width",) if k in kwargs]
            if len(values) != 3 or set(kwargs) - {"width"}:
                src.error(node, InvalidOperationError,
                          "pl.load takes a tensor, an index and a width: "
                          "pl.load(x, (i, j), width=4)")
            return self._load(node, *values, aligned=aligned)
        if kwargs or len(args) != 3:
            src.error(node, InvalidOperationError,
                      "pl.store takes a tensor, an index and a tuple of values: "
                      "pl.store(x, (i, j), (a, b, c, d))")
        self._store(node, *args, aligned=aligned)
        return None

    def _target(self, qual: str, value: object, where: ast.expr) -> TypedValue:
        if not (isinstance(value, TypedValue) and isinstance(value.type, TensorType)):
            self.state.src.error(where, ParserTypeError,
                                 f"{qual}: the first argument must be a tensor of the kernel, "
                                 f"got {_describe(value)}")
        if value.dtype == BOOL:
            self.state.src.error(where, ParserTypeError,
                                 f"{qual}: vector access takes numeric elements, not BOOL")
        return value

    def _vector_type(self, target: TypedValue, width: int) -> object:
        element = self.state.builder.mlir_type(ScalarType(target.dtype))
        return ir.VectorType.get([width], element)

    @staticmethod
    def _alignment(target: TypedValue, width: int, aligned: bool) -> int:
        """Bytes the access may assume: the element's, or the whole vector's when the
        caller says the address is aligned to it (``aligned=True``)."""
        size = target.dtype.itemsize
        return size * width if aligned else size

    def _load(self, node: ast.Call, base: object, index: object, width: object, *,
              aligned: bool) -> tuple[TypedValue, ...]:
        target = self._target("pl.load", base, node.args[0])
        if isinstance(width, bool) or width not in WIDTHS:
            self.state.src.error(node, ParserTypeError,
                                 f"pl.load: width must be a compile-time 2, 4, 8 or 16, got "
                                 f"{_describe(width)}")
        assert isinstance(width, int)
        indices = element_indices(self.state, index, node.args[1], target)
        b = self.state.builder
        with b.located(node):
            loaded = vector.LoadOp(self._vector_type(target, width), target.value, indices,
                                   alignment=self._alignment(target, width, aligned),
                                   loc=b.loc, ip=b.ip).result
            items = [vector.ExtractOp(loaded, [], [k], loc=b.loc, ip=b.ip).result
                     for k in range(width)]
        return tuple(self.state.new(v, ScalarType(target.dtype)) for v in items)

    def _store(self, node: ast.Call, base: object, index: object, values: object, *,
               aligned: bool) -> None:
        target = self._target("pl.store", base, node.args[0])
        if not isinstance(values, (tuple, list)) or len(values) not in WIDTHS:
            self.state.src.error(node.args[2], ParserTypeError,
                                 "pl.store: the values must be a tuple of 2, 4, 8 or 16 "
                                 f"scalars, got {_describe(values)}")
        where = list(node.args[2].elts) if isinstance(node.args[2], (ast.Tuple, ast.List)) \
            else [node.args[2]] * len(values)
        elements = [self._element(v, target, n) for v, n in zip(values, where, strict=True)]
        indices = element_indices(self.state, index, node.args[1], target)
        b = self.state.builder
        with b.located(node):
            packed = vector.FromElementsOp(self._vector_type(target, len(elements)), elements,
                                           loc=b.loc, ip=b.ip).result
            vector.StoreOp(packed, target.value, indices,
                           alignment=self._alignment(target, len(elements), aligned),
                           loc=b.loc, ip=b.ip)

    def _element(self, value: object, target: TypedValue, where: ast.expr) -> Value:
        dtype = target.dtype
        if isinstance(value, TypedValue):
            if value.type != ScalarType(dtype):
                self.state.src.error(where, ParserTypeError,
                                     f"pl.store: a {value.type} value cannot be stored into "
                                     f"{dtype!r} elements")
            return value.value
        if not is_literal(value) or literal_problem(value, dtype) is not None:
            self.state.src.error(where, ParserTypeError,
                                 f"pl.store: expected a {dtype!r} scalar or a number, got "
                                 f"{_describe(value)}")
        return self.state.materialize(value, where, dtype).value
