"""DSL types: dtypes, tensor and scalar types, symbolic dimensions.

These are plain Python objects with introspection and ``to_mlir(ctx)``::

    pl.Tensor[[64, 128], pl.FP16]       # TensorType((64, 128), FP16)
    pl.Tensor((64, 128), pl.FP16)       # legacy spelling, same object
    pl.Tensor[pl.FP32]                  # unshaped: only legal when overridden
    pl.Scalar[pl.INT32]                 # ScalarType(INT32)
    pl.Tensor[[M, 128], pl.FP32]        # M = pl.dynamic("M"): tensor<?x128xf32>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from dsl_core import dtypes

from ._mlir import DYNAMIC_SIZE, Context, Type, ir

#: An element type. ``pl.FP32`` is dsl-core's ``dtypes.FP32``, the object
#: ``dsl_core.Float32.dtype`` names too: one dtype table for every layer.
DType = dtypes.DType

FP16, BF16, FP32, FP64 = dtypes.FP16, dtypes.BF16, dtypes.FP32, dtypes.FP64
INT8, INT16, INT32, INT64 = dtypes.INT8, dtypes.INT16, dtypes.INT32, dtypes.INT64
UINT8, UINT16, UINT32, UINT64 = dtypes.UINT8, dtypes.UINT16, dtypes.UINT32, dtypes.UINT64
BOOL, INDEX = dtypes.BOOL, dtypes.INDEX

DTYPES: dict[str, DType] = dict(dtypes.BY_DSL_NAME)

#: Which dtype an MLIR element type reads back as (signless integers are signed).
_FROM_MLIR = {d.mlir_name: d for d in dtypes.ALL if d.kind != "uint"}


@dataclass(frozen=True)
class Dynamic:
    """A symbolic dimension, shared by name (``pl.dynamic("M")``); ``name=None`` is anonymous."""

    name: str | None

    def __repr__(self) -> str:
        return self.name if self.name is not None else "?"


Dim = int | Dynamic


def dims_match(a: Dim, b: Dim) -> bool:
    """Equal static sizes, or dynamic sizes with the same name (anonymous matches any dynamic)."""
    if isinstance(a, Dynamic) and isinstance(b, Dynamic):
        return a.name is None or b.name is None or a.name == b.name
    return a == b


@dataclass(frozen=True)
class TensorType:
    """A ranked tensor type; ``shape=None`` is an unshaped annotation to be specialized."""

    shape: tuple[Dim, ...] | None
    dtype: DType

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    def to_mlir(self, ctx: Context | None = None) -> Type:
        """``tensor<64x?xf32>`` (symbolic dimensions become ``?``)."""
        if self.shape is None:
            raise TypeError(f"{self} has no shape: the rank/shape must be specialized")
        sizes = [DYNAMIC_SIZE if isinstance(d, Dynamic) else d for d in self.shape]
        loc = ir.Location.unknown(ctx)
        return ir.RankedTensorType.get(sizes, self.dtype.to_mlir(ctx), loc=loc)

    def matches(self, other: TensorType) -> bool:
        """Same dtype and shape (dimension by dimension, see ``dims_match``)."""
        if self.shape == other.shape and self.dtype == other.dtype:
            return True
        if self.dtype != other.dtype or self.shape is None or other.shape is None:
            return self.dtype == other.dtype and (self.shape is None or other.shape is None)
        return len(self.shape) == len(other.shape) and all(
            dims_match(a, b) for a, b in zip(self.shape, other.shape, strict=False))

    def __str__(self) -> str:
        if self.shape is None:
            return f"pl.Tensor[{self.dtype!r}]"
        return f"pl.Tensor[[{', '.join(map(repr, self.shape))}], {self.dtype!r}]"


@dataclass(frozen=True)
class ScalarType:
    """A scalar of ``dtype`` (INDEX, integers, floats, BOOL)."""

    dtype: DType

    def to_mlir(self, ctx: Context | None = None) -> Type:
        return self.dtype.to_mlir(ctx)

    def matches(self, other: ScalarType) -> bool:
        return self.dtype == other.dtype

    def __str__(self) -> str:
        return f"pl.Scalar[{self.dtype!r}]"


PlType = TensorType | ScalarType


@dataclass(frozen=True)
class StreamType:
    """A ``dc.Stream`` parameter of a function that launches kernels: an opaque
    execution-stream handle, ``!llvm.ptr`` in IR. Not a value type of the language
    (it can only be passed to ``.launch(stream=...)``)."""

    def to_mlir(self, ctx: Context | None = None) -> Type:
        return ir.Type.parse("!llvm.ptr", ctx)

    def __str__(self) -> str:
        return "dc.Stream"


STREAM = StreamType()

#: What a parameter of a signature may be: a DSL type, or a stream (host functions only).
ParamType = TensorType | ScalarType | StreamType


def memref_type(t: TensorType, ctx: Context | None = None) -> Type:
    """``memref<64x?xf32>`` (identity layout) for a shaped tensor type: how tensors are
    passed to functions that launch kernels and to kernels."""
    if t.shape is None:
        raise TypeError(f"{t} has no shape: the rank/shape must be specialized")
    sizes = [DYNAMIC_SIZE if isinstance(d, Dynamic) else d for d in t.shape]
    return ir.MemRefType.get(sizes, t.dtype.to_mlir(ctx), loc=ir.Location.unknown(ctx))


def types_match(a: PlType, b: PlType) -> bool:
    """Whether a value of type ``b`` satisfies an annotation ``a`` (and vice versa)."""
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return a.matches(b)
    if isinstance(a, ScalarType) and isinstance(b, ScalarType):
        return a.matches(b)
    return False


def from_mlir(t: Type) -> PlType:
    """The DSL type of an MLIR type (dynamic sizes become anonymous dimensions)."""
    if isinstance(t, ir.RankedTensorType):
        shape = tuple(Dynamic(None) if d == DYNAMIC_SIZE else d for d in t.shape)
        return TensorType(shape, _element_dtype(t.element_type))
    return ScalarType(_element_dtype(t))


def _element_dtype(t: Type) -> DType:
    dtype = _FROM_MLIR.get(str(t))
    if dtype is None:
        raise TypeError(f"MLIR type {t} has no DSL dtype")
    return dtype


#: Static sizes are 64-bit signed in MLIR: a dimension is below 2**63.
MAX_DIM = 1 << 63


def _check_shape(shape: object) -> tuple[Dim, ...]:
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"a tensor shape must be a list of sizes, got {shape!r}")
    for dim in shape:
        if isinstance(dim, bool) or not isinstance(dim, (int, Dynamic)) or (
                isinstance(dim, int) and not 0 <= dim < MAX_DIM):
            raise TypeError(f"a dimension must be a non-negative int below 2**63 or pl.dynamic, "
                            f"got {dim!r}")
    return tuple(shape)


def dtype_of(obj: object) -> DType | None:
    """The dtype ``obj`` denotes: a dtype (``pl.FP32``), or a dsl-core scalar class
    (``dc.Float32``, whose ``dtype`` is the same object); None for anything else."""
    if isinstance(obj, DType):
        return obj
    dtype = getattr(obj, "dtype", None) if isinstance(obj, type) else None
    return dtype if isinstance(dtype, DType) else None


def _check_dtype(dtype: object) -> DType:
    found = dtype_of(dtype)
    if found is None:
        raise TypeError(f"expected a dtype such as pl.FP32 or dc.Float32, got {dtype!r}")
    return found


class _TensorAnnotation:
    """``pl.Tensor``: subscript (``pl.Tensor[[64, 128], pl.FP16]``) or legacy call syntax."""

    def __getitem__(self, item: object) -> TensorType:
        if isinstance(item, tuple) and len(item) == 2:
            return TensorType(_check_shape(item[0]), _check_dtype(item[1]))
        if dtype_of(item) is not None:
            return TensorType(None, _check_dtype(item))
        raise TypeError("pl.Tensor takes [shape, dtype], e.g. pl.Tensor[[64, 128], pl.FP16]")

    def __call__(self, shape: object, dtype: object) -> TensorType:
        return TensorType(_check_shape(shape), _check_dtype(dtype))

    def __repr__(self) -> str:
        return "pl.Tensor"


class _ScalarAnnotation:
    """``pl.Scalar[pl.INT32]`` (or ``pl.Scalar(pl.INT32)``)."""

    def __getitem__(self, item: object) -> ScalarType:
        return ScalarType(_check_dtype(item))

    def __call__(self, dtype: object) -> ScalarType:
        return ScalarType(_check_dtype(dtype))

    def __repr__(self) -> str:
        return "pl.Scalar"


if TYPE_CHECKING:
    # What ``pl.Tensor[...]`` and ``pl.Scalar[...]`` annotations mean to a static type
    # checker. The subscript of these non-generic classes with their own
    # ``__class_getitem__`` is not a type expression to pyright (it evaluates the shape
    # and dtype as values, without errors); the annotation means an instance of the
    # class: a protocol that numpy arrays (Python and numpy numbers) satisfy, with the
    # operations DSL bodies use. mypy reads them through dsl-parser's plugin
    # (``plugins = ["dsl_parser.mypy_plugin"]``), which makes them ``numpy.ndarray`` and
    # numbers of the dtype's kind (see docs/parser.md, "Type checking").

    class _Arithmetic(Protocol):
        """The arithmetic, comparison and unary operators tensors and scalars share."""

        def __add__(self, other: Any, /) -> Any: ...
        def __radd__(self, other: Any, /) -> Any: ...
        def __sub__(self, other: Any, /) -> Any: ...
        def __rsub__(self, other: Any, /) -> Any: ...
        def __mul__(self, other: Any, /) -> Any: ...
        def __rmul__(self, other: Any, /) -> Any: ...
        def __truediv__(self, other: Any, /) -> Any: ...
        def __rtruediv__(self, other: Any, /) -> Any: ...
        def __floordiv__(self, other: Any, /) -> Any: ...
        def __rfloordiv__(self, other: Any, /) -> Any: ...
        def __mod__(self, other: Any, /) -> Any: ...
        def __rmod__(self, other: Any, /) -> Any: ...
        def __pow__(self, other: Any, /) -> Any: ...
        def __rpow__(self, other: Any, /) -> Any: ...
        def __lt__(self, other: Any, /) -> Any: ...
        def __le__(self, other: Any, /) -> Any: ...
        def __gt__(self, other: Any, /) -> Any: ...
        def __ge__(self, other: Any, /) -> Any: ...
        def __neg__(self) -> Any: ...
        def __pos__(self) -> Any: ...
        def __abs__(self) -> Any: ...

    class Tensor(_Arithmetic, Protocol):
        """A tensor (``pl.Tensor[[N, 64], pl.FP32]``) to a type checker: an array."""

        def __class_getitem__(cls, item: Any) -> TensorType: ...

        @property
        def shape(self) -> Any: ...
        @property
        def dtype(self) -> Any: ...
        @property
        def ndim(self) -> Any: ...
        @property
        def size(self) -> Any: ...
        @property
        def T(self) -> Any: ...
        def __array__(self, *args: Any, **kwargs: Any) -> Any: ...
        def __len__(self) -> int: ...
        def __iter__(self) -> Any: ...
        def __getitem__(self, key: Any, /) -> Any: ...
        def __setitem__(self, key: Any, value: Any, /) -> None: ...
        def __matmul__(self, other: Any, /) -> Any: ...
        def __rmatmul__(self, other: Any, /) -> Any: ...
        def __and__(self, other: Any, /) -> Any: ...
        def __rand__(self, other: Any, /) -> Any: ...
        def __or__(self, other: Any, /) -> Any: ...
        def __ror__(self, other: Any, /) -> Any: ...
        def __xor__(self, other: Any, /) -> Any: ...
        def __rxor__(self, other: Any, /) -> Any: ...
        def __lshift__(self, other: Any, /) -> Any: ...
        def __rshift__(self, other: Any, /) -> Any: ...
        def all(self, *args: Any, **kwargs: Any) -> Any: ...
        def any(self, *args: Any, **kwargs: Any) -> Any: ...
        def argmax(self, *args: Any, **kwargs: Any) -> Any: ...
        def argmin(self, *args: Any, **kwargs: Any) -> Any: ...
        def astype(self, *args: Any, **kwargs: Any) -> Any: ...
        def copy(self, *args: Any, **kwargs: Any) -> Any: ...
        def cumsum(self, *args: Any, **kwargs: Any) -> Any: ...
        def dot(self, *args: Any, **kwargs: Any) -> Any: ...
        def fill(self, *args: Any, **kwargs: Any) -> Any: ...
        def flatten(self, *args: Any, **kwargs: Any) -> Any: ...
        def item(self, *args: Any, **kwargs: Any) -> Any: ...
        def max(self, *args: Any, **kwargs: Any) -> Any: ...
        def mean(self, *args: Any, **kwargs: Any) -> Any: ...
        def min(self, *args: Any, **kwargs: Any) -> Any: ...
        def prod(self, *args: Any, **kwargs: Any) -> Any: ...
        def ravel(self, *args: Any, **kwargs: Any) -> Any: ...
        def reshape(self, *args: Any, **kwargs: Any) -> Any: ...
        def std(self, *args: Any, **kwargs: Any) -> Any: ...
        def sum(self, *args: Any, **kwargs: Any) -> Any: ...
        def tobytes(self, *args: Any, **kwargs: Any) -> Any: ...
        def tolist(self, *args: Any, **kwargs: Any) -> Any: ...
        def transpose(self, *args: Any, **kwargs: Any) -> Any: ...
        def var(self, *args: Any, **kwargs: Any) -> Any: ...
        def view(self, *args: Any, **kwargs: Any) -> Any: ...

    class Scalar(_Arithmetic, Protocol):
        """A scalar (``pl.Scalar[pl.INT32]``) to a type checker: a number."""

        def __class_getitem__(cls, item: Any) -> ScalarType: ...

        def __float__(self) -> float: ...
else:
    Tensor = _TensorAnnotation()
    Scalar = _ScalarAnnotation()


def dynamic(name: str) -> Dynamic:
    """A symbolic dimension: every ``pl.dynamic("M")`` is the same size within a function."""
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"pl.dynamic takes an identifier, got {name!r}")
    return Dynamic(name)


@dataclass(frozen=True, eq=False)
class ProtocolArgument:
    """Override value: the parameter is a value of a type dsl-core's protocols describe.

    ``@jit`` gives one for a parameter annotated with a registered or
    protocol-implementing type: ``argument`` is the call's ``JitArgument``, whose
    ``__get_ir_types__`` gives the MLIR parameters, and ``dsl_type`` the ``DslType`` that
    rebuilds the value in the body (``argument`` is its exemplar). A launch gives one to
    the kernel with ``types`` (the DSL types of the values the host passes) and the host's
    value as ``argument``."""

    dsl_type: type
    argument: object
    types: tuple[PlType, ...] | None = None

    def describe(self) -> str:
        return getattr(self.dsl_type, "__qualname__", repr(self.dsl_type))


@dataclass(frozen=True)
class ConstValue:
    """Override value: the parameter becomes this compile-time constant (int, float or bool)."""

    value: int | float | bool

    def __post_init__(self) -> None:
        if not isinstance(self.value, (int, float, bool)):
            raise TypeError(f"ConstValue takes an int, float or bool, got {self.value!r}")
