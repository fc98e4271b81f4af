"""``Vector``: a DslType only; ``Vector[E, shape]`` is also Storable (seeds/000 table).

A traced vector wraps one ``ir.Value`` of type ``vector<shape x E>``; the exemplar keeps the
DSL element type (``Int32`` and ``UInt32`` are both ``i32``) and the logical shape. A
specialized ``Vector[Float32, 4]`` can also hold host elements; in memory it is laid out as
LLVM does: elements contiguous, alignment the total size rounded up to a power of two, size a
multiple of it (``vector<3xf32>``: 16 bytes, aligned 16). Boolean vectors are not Storable
(LLVM packs ``i1`` vectors as bits).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

from . import _ir
from ._util import align_up, type_name
from .capabilities import why_not
from .codec import BytesStorable, pack_into, unpack_from
from .dispatch import coerce_to
from .scalars import SCALAR_TYPES, Boolean, Numeric
from .signatures import type_signature

_VECTORS: dict[tuple[type, tuple[int, ...]], type] = {}
_BY_KIND = {t.kind: t for t in reversed(SCALAR_TYPES)}


def dsl_scalar_for(kind: str) -> Any:
    """The DSL scalar for an MLIR element type text (signed for integers)."""
    found = _BY_KIND.get(kind)
    if found is None:
        raise TypeError(f"no DSL scalar type for MLIR element type {kind}")
    return found


def _prod(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class Vector:
    """A vector value; build traced ones with ``Vector.from_ir_value(v)``."""

    __slots__ = ("_v", "element", "shape")
    element_type: ClassVar[Any] = None
    vshape: ClassVar[tuple[int, ...]] = ()
    _v: Any
    element: Any
    shape: tuple[int, ...]

    def __class_getitem__(cls, params: Any) -> Any:
        if cls.element_type is not None:
            raise TypeError(f"{cls.__name__} is already specialized")
        element, shape = _vector_params(params)
        found = _VECTORS.get((element, shape))
        if found is None:
            found = _VECTORS[(element, shape)] = _make_vector(element, shape)
        return found

    def __init__(self, elements: Sequence[Any]) -> None:
        cls = type(self)
        if cls.element_type is None:
            raise TypeError("Vector host values need a specialized type: Vector[E, shape]")
        items = tuple(elements)
        if len(items) != _prod(cls.vshape):
            raise ValueError(f"{cls.__name__} expects {_prod(cls.vshape)} elements, "
                             f"got {len(items)}")
        self._set(tuple(coerce_to(cls.element_type, x) for x in items),
                  cls.element_type, cls.vshape)

    def _set(self, v: Any, element: Any, shape: tuple[int, ...]) -> None:
        self._v, self.element, self.shape = v, element, shape

    @classmethod
    def from_ir_value(cls, value: Any, element: Any = None,
                      shape: Sequence[int] | None = None) -> Any:
        """Wrap a vector-typed ``ir.Value``; ``element``/``shape`` default from its type."""
        _ir.check_value(cls.__name__, value, cls._ir_type_or_none())
        info = _ir.shaped_info(value.type)
        if info is None or not str(value.type).startswith("vector<"):
            raise TypeError(f"{cls.__name__}: expected a vector-typed ir.Value, got {value.type}")
        kind, dims = info
        element = element or cls.element_type or dsl_scalar_for(kind)
        logical = tuple(shape) if shape is not None else tuple(d or 0 for d in dims)
        if _prod(logical) != _prod([d or 0 for d in dims]):
            raise ValueError(f"{cls.__name__}: logical shape {logical} does not match {value.type}")
        obj = object.__new__(cls)
        obj._set(value, element, logical)
        return obj

    @classmethod
    def _ir_type_or_none(cls) -> Any:
        return None

    @property
    def is_traced(self) -> bool:
        return not isinstance(self._v, tuple)

    def __getitem__(self, i: int) -> Any:
        if self.is_traced:
            raise TypeError("indexing a traced Vector needs IR ops (vector.extract)")
        return self._v[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vector):
            return NotImplemented
        return type(self) is type(other) and self.shape == other.shape and self._v == other._v

    def __hash__(self) -> int:
        return hash((type(self), self.shape, self._v))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._v!r})"

    def __extract_to_ir_values__(self) -> list[Any]:
        if self.is_traced:
            return [self._v]
        return [_ir.constant(_ir.vector_type(self.shape, self.element.ir_type()),
                             _dense_text(self))]

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Any:
        if len(values) != 1:
            raise TypeError(f"construct_from_ir_values: {cls.__name__} expects 1 ir.Values, "
                            f"got {len(values)}")
        element = getattr(exemplar, "element", None)
        shape = getattr(exemplar, "shape", None)
        return cls.from_ir_value(values[0], element, shape)

    @classmethod
    def __dsl_ir_arity__(cls, exemplar: Any = None) -> int:
        return 1

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        if cls.element_type is None:
            return ("Vector",)
        return ("Vector", type_signature(cls.element_type), cls.vshape)

    @classmethod
    def _dsl_coerce_(cls, value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if isinstance(value, Vector):
            raise TypeError(f"expected a {cls.__name__}, got {type(value).__name__}")
        return cls(value)


def _nested(items: list[str], shape: tuple[int, ...]) -> str:
    if len(shape) == 1:
        return "[" + ", ".join(items) + "]"
    step = len(items) // shape[0]
    parts = [_nested(items[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]
    return "[" + ", ".join(parts) + "]"


def _dense_text(v: Vector) -> str:
    items = [x._attribute_text().split(" : ")[0] for x in v._v]
    return f"dense<{_nested(items, v.shape)}> : {_ir.vector_type(v.shape, v.element.ir_type())}"


def _vector_params(params: Any) -> tuple[type, tuple[int, ...]]:
    if not (isinstance(params, tuple) and len(params) == 2):
        raise TypeError(f"Vector[E, shape] takes an element type and a shape, got {params!r}")
    element, shape = params
    shape = (shape,) if type(shape) is int else tuple(shape)
    if not (isinstance(element, type) and issubclass(element, Numeric) and element.kind):
        raise TypeError(f"Vector[{element!r}, ...]: element must be a scalar DSL type")
    if not shape or any(type(d) is not int or d <= 0 for d in shape):
        raise ValueError(f"Vector[{type_name(element)}, {shape!r}]: shape must be positive ints")
    return element, shape


class VectorStorable(BytesStorable):
    """LLVM vector memory layout (see the module docstring)."""

    __slots__ = ()

    @classmethod
    def __dsl_align_of__(cls) -> int:
        c: Any = cls
        total = _prod(c.vshape) * c.element_type.__dsl_size_of__()
        return int(1 << max(total - 1, 0).bit_length())

    @classmethod
    def __dsl_size_of__(cls) -> int:
        c: Any = cls
        return align_up(_prod(c.vshape) * c.element_type.__dsl_size_of__(), c.__dsl_align_of__())

    @classmethod
    def _pack_into_(cls, buf: bytearray, offset: int, value: Any) -> None:
        c: Any = cls
        v = c._dsl_coerce_(value)
        if v.is_traced:
            raise TypeError(f"poke_into_ptr: {c.__name__} is traced (an ir.Value)")
        stride = c.element_type.__dsl_size_of__()
        for i, item in enumerate(v._v):
            pack_into(c.element_type, buf, offset + i * stride, item)

    @classmethod
    def _unpack_from_(cls, buf: bytes | bytearray, offset: int) -> Any:
        c: Any = cls
        stride = c.element_type.__dsl_size_of__()
        items = tuple(unpack_from(c.element_type, buf, offset + i * stride)
                      for i in range(_prod(c.vshape)))
        obj = object.__new__(c)
        obj._set(items, c.element_type, c.vshape)
        return obj


def _make_vector(element: type, shape: tuple[int, ...]) -> type:
    dims = shape[0] if len(shape) == 1 else shape
    name = f"Vector[{type_name(element)}, {dims}]"
    unsupported = {"JitArgument": f"{name} is not JitArgument"}
    bases: list[type] = [Vector]
    if element is Boolean:
        unsupported["Storable"] = f"{name} is not Storable: i1 vectors are bit-packed in memory"
    elif why_not(element, "Storable") is None:
        bases.append(VectorStorable)
    ns: dict[str, Any] = {
        "__slots__": (), "element_type": element, "vshape": shape, "__module__": "dsl_core",
        "__qualname__": name, "__dsl_unsupported__": unsupported, "__dsl_static_signature__": True,
        "_ir_type_or_none": classmethod(lambda c: _ir.vector_type(shape, element.ir_type())),  # type: ignore[attr-defined]
    }
    return type(name, tuple(bases), ns)
