"""The values a DSL function handles under the interpreter: ``ITensor`` and ``IScalar``.

A tensor is a numpy array in its dtype's storage form (``ops.numerics``: BF16 as a
float32 array of bf16 values) plus its DSL dtype; a typed scalar a numpy scalar plus
its dtype. Their Python operators have the DSL's meaning: ``+ - * /`` and comparisons on
tensors are ``pl.add`` ... ``pl.ge``; on scalars they are the ``arith`` ops the parser
emits (``//`` is ``floordivsi``/``divui``, ``%`` takes the divisor's sign as in Python,
integers wrap). Python numbers next to a typed value take its dtype, as literals do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ops.numerics import floor_div, np, python_rem, scalar, store
from ..types import BOOL, INDEX, DType
from ..values import is_literal, literal_problem
from . import state


class ITensor:
    """A tensor value: ``array`` (storage form, never written by an op) and ``dtype``.

    ``dynamic`` marks the dimensions whose size the parser's types leave open
    (``pl.dynamic``), as the compiled code sees them: a ``pl.dynamic`` size of 1 does
    not broadcast there (a ValueError, as the compiled code's run-time check); None when
    every size is static."""

    __slots__ = ("array", "dtype", "dynamic")
    __hash__ = None  # type: ignore[assignment]
    __array_priority__ = 1000  # numpy defers to our reflected operators

    def __init__(self, array: Any, dtype: DType,
                 dynamic: tuple[bool, ...] | None = None) -> None:
        self.array = array
        self.dtype = dtype
        self.dynamic = dynamic if dynamic is not None and any(dynamic) else None

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.array.shape)

    @property
    def rank(self) -> int:
        return int(self.array.ndim)

    def numpy(self) -> Any:
        """The values as a numpy array of the dtype's numpy type (BF16: a float32 copy)."""
        return self.array.copy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return self.array if dtype is None else self.array.astype(dtype)

    def __repr__(self) -> str:
        return f"ITensor({self.array!r}, {self.dtype!r})"

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 0

    # -- operators: the op table ---------------------------------------------------------
    def _op(self, name: str, lhs: object, rhs: object) -> Any:
        return state.op(name, (lhs, rhs))

    def __add__(self, o: object) -> Any: return self._op("add", self, o)
    def __radd__(self, o: object) -> Any: return self._op("add", o, self)
    def __sub__(self, o: object) -> Any: return self._op("sub", self, o)
    def __rsub__(self, o: object) -> Any: return self._op("sub", o, self)
    def __mul__(self, o: object) -> Any: return self._op("mul", self, o)
    def __rmul__(self, o: object) -> Any: return self._op("mul", o, self)
    def __truediv__(self, o: object) -> Any: return self._op("div", self, o)
    def __rtruediv__(self, o: object) -> Any: return self._op("div", o, self)
    def __eq__(self, o: object) -> Any: return self._op("eq", self, o)
    def __ne__(self, o: object) -> Any: return self._op("ne", self, o)
    def __lt__(self, o: object) -> Any: return self._op("lt", self, o)
    def __le__(self, o: object) -> Any: return self._op("le", self, o)
    def __gt__(self, o: object) -> Any: return self._op("gt", self, o)
    def __ge__(self, o: object) -> Any: return self._op("ge", self, o)

    def __neg__(self) -> Any:
        return state.op("neg", (self,))

    def __bool__(self) -> bool:
        raise TypeError(f"a tensor has no truth value (at {state.where()}): compare it with "
                        "pl.eq/pl.lt... and reduce it, or test a BOOL scalar")

    # -- subscripts: windows (functions), elements (kernels) --------------------------------
    def __getitem__(self, key: object) -> Any:
        return state.subscript(self, key)

    def __setitem__(self, key: object, value: object) -> None:
        state.store_element(self, key, value)


def _arith(symbol: str) -> Callable[[Any, Any, DType], Any]:
    def float_or_int(a: Any, b: Any, dtype: DType) -> Any:
        where = f"'{symbol}' at {state.where()}"
        if symbol == "/":
            if not dtype.is_float:
                raise TypeError(f"{where}: '/' takes floats, got {dtype!r} (use '//')")
            return a / b
        if symbol == "//":
            if dtype.is_float or dtype == BOOL:
                raise TypeError(f"{where}: '//' takes integers, got {dtype!r}")
            return floor_div(a, b, dtype, where)
        if symbol == "%":
            if dtype == BOOL:
                raise TypeError(f"{where}: '%' takes numbers, got {dtype!r}")
            return python_rem(a, b, dtype, where)
        if symbol in "&|^":
            if dtype.is_float:
                raise TypeError(f"{where}: '{symbol}' takes integers or BOOL, got {dtype!r}")
            return {"&": a & b, "|": a | b, "^": a ^ b}[symbol]
        if dtype == BOOL:
            raise TypeError(f"{where}: '{symbol}' does not take BOOL operands")
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b}[symbol]()

    return float_or_int


_COMPARE = {"==": "equal", "!=": "not_equal", "<": "less", "<=": "less_equal", ">": "greater",
            ">=": "greater_equal"}


class IScalar:
    """A typed scalar (INDEX, INTn, UINTn, BOOL, a float): ``value`` in storage form."""

    __slots__ = ("dtype", "value")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, value: object, dtype: DType) -> None:
        self.value = scalar(value, dtype)
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"IScalar({self.value!r}, {self.dtype!r})"

    def __str__(self) -> str:
        return str(self.value)

    def _other(self, other: object, symbol: str) -> Any:
        if isinstance(other, IScalar):
            if other.dtype != self.dtype:
                raise TypeError(f"operands of '{symbol}' have different types: {self.dtype!r} "
                                f"and {other.dtype!r} (at {state.where()})")
            return other.value
        if is_literal(other):
            problem = literal_problem(other, self.dtype)
            if problem is not None:
                raise TypeError(f"'{symbol}' at {state.where()}: {problem}")
            return scalar(other, self.dtype)
        return NotImplemented

    def _binary(self, other: object, symbol: str, reflected: bool = False) -> Any:
        if isinstance(other, ITensor):
            return NotImplemented
        value = self._other(other, symbol)
        if value is NotImplemented:
            return NotImplemented
        a, b = (value, self.value) if reflected else (self.value, value)
        with np().errstate(all="ignore"):
            out = _arith(symbol)(a, b, self.dtype)
        return IScalar(store(out, self.dtype)[()], self.dtype)

    def _compare(self, other: object, symbol: str) -> Any:
        if isinstance(other, ITensor):
            return NotImplemented
        value = self._other(other, symbol)
        if value is NotImplemented:
            return NotImplemented
        return IScalar(bool(getattr(np(), _COMPARE[symbol])(self.value, value)), BOOL)

    def __add__(self, o: object) -> Any: return self._binary(o, "+")
    def __radd__(self, o: object) -> Any: return self._binary(o, "+", True)
    def __sub__(self, o: object) -> Any: return self._binary(o, "-")
    def __rsub__(self, o: object) -> Any: return self._binary(o, "-", True)
    def __mul__(self, o: object) -> Any: return self._binary(o, "*")
    def __rmul__(self, o: object) -> Any: return self._binary(o, "*", True)
    def __truediv__(self, o: object) -> Any: return self._binary(o, "/")
    def __rtruediv__(self, o: object) -> Any: return self._binary(o, "/", True)
    def __floordiv__(self, o: object) -> Any: return self._binary(o, "//")
    def __rfloordiv__(self, o: object) -> Any: return self._binary(o, "//", True)
    def __mod__(self, o: object) -> Any: return self._binary(o, "%")
    def __rmod__(self, o: object) -> Any: return self._binary(o, "%", True)
    def __and__(self, o: object) -> Any: return self._binary(o, "&")
    def __rand__(self, o: object) -> Any: return self._binary(o, "&", True)
    def __or__(self, o: object) -> Any: return self._binary(o, "|")
    def __ror__(self, o: object) -> Any: return self._binary(o, "|", True)
    def __xor__(self, o: object) -> Any: return self._binary(o, "^")
    def __rxor__(self, o: object) -> Any: return self._binary(o, "^", True)
    def __eq__(self, o: object) -> Any: return self._compare(o, "==")
    def __ne__(self, o: object) -> Any: return self._compare(o, "!=")
    def __lt__(self, o: object) -> Any: return self._compare(o, "<")
    def __le__(self, o: object) -> Any: return self._compare(o, "<=")
    def __gt__(self, o: object) -> Any: return self._compare(o, ">")
    def __ge__(self, o: object) -> Any: return self._compare(o, ">=")

    def __neg__(self) -> IScalar:
        with np().errstate(all="ignore"):
            return IScalar(store(-self.value, self.dtype)[()], self.dtype)

    def __bool__(self) -> bool:
        if self.dtype != BOOL:
            raise TypeError(f"a condition must be a BOOL scalar, got {self.dtype!r} "
                            f"(at {state.where()})")
        return bool(self.value)

    def __index__(self) -> int:
        if not self.dtype.is_integer or self.dtype == BOOL:
            raise TypeError(f"{self.dtype!r} scalar used as an integer (at {state.where()})")
        return int(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)


def index(value: int) -> IScalar:
    """An INDEX scalar."""
    return IScalar(value, INDEX)
