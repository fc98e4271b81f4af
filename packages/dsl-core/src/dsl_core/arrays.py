"""``Array[E, N]``: DslType and Storable (when ``E`` is), never JitArgument.

Interned: ``Array[Int32, 4] is Array[Int32, 4]``. An array is ``N * size(E)`` bytes aligned
like ``E`` (wrap it in ``Align`` for more); its SSA form is the elements' values concatenated.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ._util import type_name
from .capabilities import why_not
from .codec import BytesStorable, pack_into, unpack_from
from .constexpr import is_constexpr_type
from .dispatch import coerce_to, construct_from_ir_values, extract_to_ir_values, ir_arity
from .signatures import type_signature

_ARRAYS: dict[tuple[type, int], type] = {}


class Array:
    """A fixed-length sequence of ``element`` values: ``Array[Float32, 3]([1, 2, 3])``."""

    __slots__ = ("_items",)
    element: ClassVar[Any] = None
    length: ClassVar[int] = 0
    __dsl_unsupported__: ClassVar[dict[str, str]] = {}
    _items: tuple[Any, ...]

    def __class_getitem__(cls, params: Any) -> Any:
        if cls.element is not None:
            raise TypeError(f"{cls.__name__} is already specialized")
        element, length = _array_params(params)
        found = _ARRAYS.get((element, length))
        if found is None:
            found = _ARRAYS[(element, length)] = _make_array(element, length)
        return found

    if TYPE_CHECKING:
        def __set__(self, instance: object, value: Array | Sequence[Any], /) -> None:
            """For type checkers only: a ``@struct`` field ``Array[E, N]`` is set from an
            array or a sequence of ``N`` values."""

    def __init__(self, items: Sequence[Any]) -> None:
        cls = type(self)
        if cls.element is None:
            raise TypeError("Array needs an element type and a length: Array[E, N]")
        items = tuple(items)
        if len(items) != cls.length:
            raise ValueError(f"{cls.__name__} expects {cls.length} elements, got {len(items)}")
        self._items = tuple(_element(cls, i, x) for i, x in enumerate(items))

    @classmethod
    def _trusted(cls, items: Sequence[Any]) -> Any:
        obj = object.__new__(cls)
        obj._items = tuple(items)
        return obj

    @classmethod
    def _dsl_coerce_(cls, value: Any) -> Any:
        return value if type(value) is cls else cls(value)

    def __getitem__(self, i: int) -> Any:
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._items == other._items

    def __hash__(self) -> int:
        return hash((type(self), self._items))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self._items)!r})"

    @classmethod
    def __dsl_type_signature__(cls) -> Hashable:
        return ("Array", type_signature(cls.element), cls.length)

    __dsl_static_signature__ = True

    @classmethod
    def __dsl_ir_arity__(cls, exemplar: Any = None) -> int:
        items = exemplar if exemplar is not None else [None] * cls.length
        return sum(ir_arity(cls.element, e) for e in items)


def _element(cls: Any, i: int, x: Any) -> Any:
    try:
        return coerce_to(cls.element, x)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{cls.__name__} element {i}: {exc}") from None


def _array_params(params: Any) -> tuple[type, int]:
    if not (isinstance(params, tuple) and len(params) == 2):
        raise TypeError(f"Array[E, N] takes an element type and a length, got {params!r}")
    element, length = params
    if not isinstance(element, type):
        raise TypeError(f"Array[{element!r}, {length!r}]: element must be a DSL type")
    if is_constexpr_type(element):
        raise TypeError(f"Array[{type_name(element)}, {length!r}]: element cannot be Constexpr")
    if type(length) is not int or length < 0:
        raise ValueError(f"Array[{type_name(element)}, {length!r}]: length must be an int >= 0")
    return element, length


class ArrayDsl:
    """DslType hooks of arrays: the elements' SSA values, concatenated."""

    __slots__ = ()

    def __extract_to_ir_values__(self) -> list[Any]:
        return [v for item in self._items for v in extract_to_ir_values(item)]  # type: ignore[attr-defined]

    @classmethod
    def __construct_from_ir_values__(cls, values: Sequence[Any], exemplar: Any = None) -> Any:
        c: Any = cls
        items = list(exemplar) if exemplar is not None else [None] * c.length
        counts = [ir_arity(c.element, e) for e in items]
        if sum(counts) != len(values):
            raise TypeError(f"construct_from_ir_values: {c.__name__} expects {sum(counts)} "
                            f"ir.Values, got {len(values)}")
        out, start = [], 0
        for e, n in zip(items, counts, strict=True):
            out.append(construct_from_ir_values(c.element, list(values[start:start + n]), e))
            start += n
        return c._trusted(out)


class ArrayStorable(BytesStorable):
    """Storable hooks of arrays: elements at a stride of ``size(E)``."""

    __slots__ = ()

    @classmethod
    def __dsl_size_of__(cls) -> int:
        c: Any = cls
        return int(c.length * c.element.__dsl_size_of__())

    @classmethod
    def __dsl_align_of__(cls) -> int:
        return int(cls.element.__dsl_align_of__())  # type: ignore[attr-defined]

    @classmethod
    def _pack_into_(cls, buf: bytearray, offset: int, value: Any) -> None:
        c: Any = cls
        stride = c.element.__dsl_size_of__()
        for i, item in enumerate(c._dsl_coerce_(value)):
            pack_into(c.element, buf, offset + i * stride, item)

    @classmethod
    def _unpack_from_(cls, buf: bytes | bytearray, offset: int) -> Any:
        c: Any = cls
        stride = c.element.__dsl_size_of__()
        return c._trusted([unpack_from(c.element, buf, offset + i * stride)
                           for i in range(c.length)])


def _make_array(element: type, length: int) -> type:
    name = f"Array[{type_name(element)}, {length}]"
    unsupported = {"JitArgument": f"{name} is not JitArgument (arrays are DslType and "
                                  "Storable only)"}
    bases: list[type] = [Array]
    for proto, mixin in (("DslType", ArrayDsl), ("Storable", ArrayStorable)):
        reason = why_not(element, proto)
        if reason is None:
            bases.append(mixin)
        else:
            unsupported[proto] = f"{name} is not {proto}: its element {reason}"
    if "Storable" not in unsupported:
        _check_stride(name, element)
    ns = {"__slots__": (), "element": element, "length": length, "__module__": "dsl_core",
          "__qualname__": name, "__dsl_unsupported__": unsupported}
    return type(name, tuple(bases), ns)


def _check_stride(name: str, element: Any) -> None:
    size, align = element.__dsl_size_of__(), element.__dsl_align_of__()
    if size % align:
        raise ValueError(f"{name}: element size {size} is not a multiple of its alignment {align}")
