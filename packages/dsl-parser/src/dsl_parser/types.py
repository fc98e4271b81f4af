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

from ._mlir import DYNAMIC_SIZE, Context, Type, ir


@dataclass(frozen=True, eq=False)
class DType:
    """An element type: ``name`` (FP16), ``bits``, ``kind`` and its numpy/MLIR names.

    Equal by name (the fields follow from it)."""

    name: str
    bits: int
    kind: str  # "float" | "int" | "uint" | "bool" | "index"
    numpy_name: str
    mlir_name: str

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_signed(self) -> bool:
        """True for floats, signed integers and INDEX; False for UINTn and BOOL."""
        return self.kind in ("float", "int", "index")

    @property
    def is_integer(self) -> bool:
        """Integers of any signedness, INDEX and BOOL (everything arith treats as iN)."""
        return self.kind != "float"

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, DType) and self.name == other.name)

    def __hash__(self) -> int:
        return hash(self.name)

    def to_mlir(self, ctx: Context | None = None) -> Type:
        """The MLIR element type (unsigned dtypes map to signless integers)."""
        if self.kind == "index":
            return ir.IndexType.get(ctx)
        if self.kind != "float":
            return ir.IntegerType.get_signless(self.bits, ctx)
        return _FLOAT_TYPES[self.name].get(ctx)

    def __repr__(self) -> str:
        return f"pl.{self.name}"


def _dtype(name: str, bits: int, kind: str, numpy_name: str, mlir_name: str) -> DType:
    return DType(name, bits, kind, numpy_name, mlir_name)


FP16 = _dtype("FP16", 16, "float", "float16", "f16")
BF16 = _dtype("BF16", 16, "float", "bfloat16", "bf16")
FP32 = _dtype("FP32", 32, "float", "float32", "f32")
FP64 = _dtype("FP64", 64, "float", "float64", "f64")
INT8 = _dtype("INT8", 8, "int", "int8", "i8")
INT16 = _dtype("INT16", 16, "int", "int16", "i16")
INT32 = _dtype("INT32", 32, "int", "int32", "i32")
INT64 = _dtype("INT64", 64, "int", "int64", "i64")
UINT8 = _dtype("UINT8", 8, "uint", "uint8", "i8")
UINT16 = _dtype("UINT16", 16, "uint", "uint16", "i16")
UINT32 = _dtype("UINT32", 32, "uint", "uint32", "i32")
UINT64 = _dtype("UINT64", 64, "uint", "uint64", "i64")
BOOL = _dtype("BOOL", 1, "bool", "bool", "i1")
INDEX = _dtype("INDEX", 64, "index", "int64", "index")

DTYPES: dict[str, DType] = {
    d.name: d
    for d in (FP16, BF16, FP32, FP64, INT8, INT16, INT32, INT64,
              UINT8, UINT16, UINT32, UINT64, BOOL, INDEX)
}

_FLOAT_TYPES = {"FP16": ir.F16Type, "BF16": ir.BF16Type, "FP32": ir.F32Type, "FP64": ir.F64Type}

#: Which dtype an MLIR element type reads back as (signless integers are signed).
_FROM_MLIR = {"f16": FP16, "bf16": BF16, "f32": FP32, "f64": FP64, "i1": BOOL, "i8": INT8,
              "i16": INT16, "i32": INT32, "i64": INT64, "index": INDEX}


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


def _check_dtype(dtype: object) -> DType:
    if not isinstance(dtype, DType):
        raise TypeError(f"expected a dtype such as pl.FP32, got {dtype!r}")
    return dtype


class _TensorAnnotation:
    """``pl.Tensor``: subscript (``pl.Tensor[[64, 128], pl.FP16]``) or legacy call syntax."""

    def __getitem__(self, item: object) -> TensorType:
        if isinstance(item, tuple) and len(item) == 2:
            return TensorType(_check_shape(item[0]), _check_dtype(item[1]))
        if isinstance(item, DType):
            return TensorType(None, item)
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


Tensor = _TensorAnnotation()
Scalar = _ScalarAnnotation()


def dynamic(name: str) -> Dynamic:
    """A symbolic dimension: every ``pl.dynamic("M")`` is the same size within a function."""
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"pl.dynamic takes an identifier, got {name!r}")
    return Dynamic(name)


@dataclass(frozen=True)
class ConstValue:
    """Override value: the parameter becomes this compile-time constant (int, float or bool)."""

    value: int | float | bool

    def __post_init__(self) -> None:
        if not isinstance(self.value, (int, float, bool)):
            raise TypeError(f"ConstValue takes an int, float or bool, got {self.value!r}")
