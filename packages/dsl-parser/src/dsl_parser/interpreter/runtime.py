"""What ``pl.*`` does under the interpreter: ops through the op table's reference rules,
loops and yields, subscripts, kernel thread positions and element accesses."""

from __future__ import annotations

import linecache
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from ..errors import InvalidOperationError, ParserError, ParserTypeError
from ..markers import (
    AtomicBuiltin,
    BlockBuiltin,
    ControlBuiltin,
    DslBuiltin,
    KernelBuiltin,
    OpBuiltin,
    ScalarBuiltin,
    VectorBuiltin,
    WarpBuiltin,
)
from ..ops import REQUIRED, OpCall, OpRule, RefCall, lookup
from ..ops.numerics import np, scalar, store
from ..parser.intrinsic_parser import scalar_min_max
from ..parser.op_parser import _CHECKS
from ..spans import Span
from ..types import BOOL, INDEX, DType, Dynamic, PlType, ScalarType, TensorType
from ..values import TypedValue, is_literal, literal_problem
from . import state
from .atomics import atomic
from .values import IScalar, ITensor, index
from .warps import warp_builtin


# -- errors at the user's line ---------------------------------------------------------------
def fail(cls: type[Exception], message: str) -> NoReturn:
    """Raise ``cls`` located at the DSL statement being run."""
    filename, line = state.location()
    if issubclass(cls, ParserError):
        text = linecache.getline(filename, line).rstrip("\n") or None
        col = 1 + (len(text) - len(text.lstrip())) if text else 1
        end = len(text) + 1 if text else col
        raise cls(message, Span(filename, line, col, line, end), source_line=text)
    raise cls(f"{message} (at {filename}:{line})")


class _Context:
    """The ``OpContext`` of type inference under the interpreter: only ``error`` is used."""

    def error(self, where: object, cls: type[ParserError], message: str,
              *, hint: str | None = None) -> NoReturn:
        fail(cls, message)

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"type inference used OpContext.{name}, which only emission has")


_CTX = _Context()


# -- ops ---------------------------------------------------------------------------------------
def _static_view(value: object) -> object:
    """How inference sees an interpreter value: tensors with their real (static) shapes."""
    if isinstance(value, ITensor):
        return TypedValue(None, TensorType(value.shape, value.dtype))
    if isinstance(value, IScalar):
        return TypedValue(None, ScalarType(value.dtype))
    if isinstance(value, list | tuple):
        return type(value)(_static_view(v) for v in value)
    return value


def _numeric(value: object) -> object:
    """How a reference rule sees an interpreter value: arrays, numpy scalars, ints."""
    if isinstance(value, ITensor):
        return value.array
    if isinstance(value, IScalar):
        return int(value.value) if value.dtype == INDEX else value.value
    if isinstance(value, Dynamic):
        return _dynamic_size(value)
    if isinstance(value, list | tuple):
        return tuple(_numeric(v) for v in value)
    return value


def _dynamic_size(d: Dynamic) -> int:
    bound = state.current().dynamic.get(d.name or "")
    if bound is None:
        fail(ParserTypeError, f"pl.dynamic({d.name!r}) is not a dimension of any parameter")
    return bound


def _bind(rule: OpRule, args: Sequence[object], kwargs: dict[str, object]
          ) -> tuple[dict[str, object], set[str]]:
    params = rule.params
    if len(args) > len(params):
        fail(InvalidOperationError,
             f"{rule.qualname} takes {len(params)} arguments, {len(args)} given")
    bound = dict(zip((p.name for p in params), args, strict=False))
    names = {p.name for p in params}
    for key, value in kwargs.items():
        if key not in names:
            fail(InvalidOperationError, f"{rule.qualname} has no parameter '{key}'")
        if key in bound:
            fail(InvalidOperationError, f"{rule.qualname} got two values for '{key}'")
        bound[key] = value
    given = set(bound)
    for param in params:
        if param.name not in bound:
            if param.default is REQUIRED:
                fail(InvalidOperationError,
                     f"{rule.qualname} is missing its argument '{param.name}'")
            bound[param.name] = param.default
    return bound, given


def _check(rule: OpRule, bound: dict[str, object], given: set[str]) -> dict[str, object]:
    view: dict[str, object] = {}
    for param in rule.params:
        value = _static_view(bound[param.name])
        if param.name in given:
            ok, value = _CHECKS[param.kind](value)
            if bound[param.name] is None and param.default is not None:
                ok = False
            if not ok:
                fail(ParserTypeError, f"{rule.qualname}: argument '{param.name}' must be "
                                      f"{param.kind.value}, got {bound[param.name]!r}")
        view[param.name] = value
    return view


def call_op(rule: OpRule, args: Sequence[object], kwargs: dict[str, object]) -> Any:
    """One ``pl.<op>(...)``: bind and check as the parser does, infer, run the reference."""
    bound, given = _bind(rule, args, kwargs)
    view = _check(rule, bound, given)
    call = OpCall(rule, view, {}, None, _CTX)  # type: ignore[arg-type]
    if rule.fold is not None:
        folded = rule.fold(call)
        if isinstance(folded, int):
            return folded
    result_type = rule.infer(call)
    if rule.reference is None:
        raise NotImplementedError(
            f"{rule.qualname} has no reference rule (OpRule.reference): the interpreter "
            f"cannot run it (at {state.where()})")
    types: dict[str, PlType] = {name: v.type for name, v in view.items()
                                if isinstance(v, TypedValue)}
    declared, declared_result = _declared_types(rule, bound, view)
    numeric = {name: _numeric(v) for name, v in bound.items()}
    ref = RefCall(rule, numeric, types, state.where(), declared)
    with np().errstate(all="ignore"):
        result = rule.reference(ref, result_type)
    return _wrap(rule, result, result_type, declared_result)


def _declared_types(rule: OpRule, bound: dict[str, object], view: dict[str, object]
                    ) -> tuple[dict[str, PlType], PlType | None]:
    """The types the parser would give the tensor arguments that have ``pl.dynamic`` sizes,
    and the op's result type inferred from them (None where that inference fails)."""
    declared: dict[str, PlType] = {}
    for name, value in bound.items():
        if isinstance(value, ITensor) and value.dynamic is not None:
            shape = tuple(Dynamic(None) if dyn else size
                          for dyn, size in zip(value.dynamic, value.shape, strict=True))
            declared[name] = TensorType(shape, value.dtype)
    if not declared:
        return declared, None
    typed = {**view, **{n: TypedValue(None, t) for n, t in declared.items()}}
    try:
        return declared, rule.infer(OpCall(rule, typed, {}, None, _CTX))  # type: ignore[arg-type]
    except Exception:  # e.g. an op that needs static sizes: the sizes are then static
        return declared, None


def _wrap(rule: OpRule, result: Any, t: PlType, declared: PlType | None = None) -> Any:
    if isinstance(t, ScalarType):
        return index(int(result)) if t.dtype == INDEX else IScalar(result, t.dtype)
    assert isinstance(t, TensorType)
    array = store(result, t.dtype)
    want = tuple(d for d in (t.shape or ()))
    if len(want) != array.ndim or any(isinstance(d, int) and d != n
                                     for d, n in zip(want, array.shape, strict=True)):
        raise AssertionError(f"{rule.qualname}: the reference rule gave shape {array.shape}, "
                             f"inference {t}")
    mask = None
    if isinstance(declared, TensorType) and declared.shape is not None \
            and len(declared.shape) == array.ndim:
        mask = tuple(isinstance(d, Dynamic) for d in declared.shape)
    return ITensor(array, t.dtype, mask)


def call_op_named(name: str, args: Sequence[object], kwargs: dict[str, object]) -> Any:
    return call_op(lookup(name), args, kwargs)


# -- control flow ---------------------------------------------------------------------------
class Loop:
    """``pl.range``/``pl.unroll``: yields ``i`` or ``(i, (carried, ...))``; the carried
    values of the next iteration are the body's last ``pl.yield_``."""

    def __init__(self, bounds: Sequence[object], init_values: object) -> None:
        ints = [_index_bound(b) for b in bounds]
        if not 1 <= len(ints) <= 3:
            fail(InvalidOperationError, f"pl.range takes 1 to 3 bounds, got {len(ints)}")
        start, stop, step = (0, ints[0], 1) if len(ints) == 1 else (*ints, 1)[:3]
        if step <= 0:
            fail(ValueError, f"pl.range: the step must be positive, got {step}")
        self.range = range(start, stop, step)
        self.carried: tuple[object, ...] | None = None
        if init_values is not None:
            if not isinstance(init_values, list | tuple):
                fail(ParserTypeError, "init_values must be a tuple of values")
            self.carried = tuple(init_values)
        self.yielded: tuple[object, ...] | None = None

    def __iter__(self) -> Iterator[object]:
        frame = state.current()
        frame.loops.append(self)
        try:
            for i in self.range:
                if self.carried is None:
                    yield index(i)
                    continue
                self.yielded = None
                yield index(i), self.carried
                if self.yielded is None:
                    fail(InvalidOperationError, "a loop with init_values must end with "
                                                "x = pl.yield_(...)")
                self.carried = _check_carried(self.carried, self.yielded)
        finally:
            frame.loops.remove(self)


def _check_carried(old: tuple[object, ...], new: tuple[object, ...]) -> tuple[object, ...]:
    if len(old) != len(new):
        fail(ParserTypeError, f"the loop has {len(old)} iteration arguments but "
                              f"pl.yield_ gives {len(new)} values")
    for a, b in zip(old, new, strict=True):
        ta, tb = _type_name(a), _type_name(b)
        if ta != tb:
            fail(ParserTypeError, f"pl.yield_ gives {tb} for an iteration argument of {ta}")
    return new


def _type_name(value: object) -> str:
    if isinstance(value, ITensor):
        return f"a rank-{value.rank} {value.dtype!r} tensor"
    if isinstance(value, IScalar):
        return f"a {value.dtype!r} scalar"
    return type(value).__name__


def _index_bound(value: object) -> int:
    if isinstance(value, IScalar):
        if value.dtype != INDEX:
            fail(ParserTypeError, f"loop bounds are INDEX, got a {value.dtype!r} scalar")
        return int(value.value)
    if isinstance(value, bool) or not isinstance(value, int):
        fail(ParserTypeError, f"loop bounds are INDEX, got {value!r}")
    return value


def loop(bounds: Sequence[object], init_values: object = None) -> Loop:
    return Loop(bounds, init_values)


def initial(values: Sequence[object]) -> object:
    """What the names bound by a loop's ``pl.yield_`` hold when it runs zero times."""
    items = tuple(values)
    return items[0] if len(items) == 1 else items


def yield_(values: Sequence[object]) -> object:
    loops = state.current().loops
    if loops:
        loops[-1].yielded = tuple(values)
    return values[0] if len(values) == 1 else tuple(values)


# -- subscripts -----------------------------------------------------------------------------
def _element_index(tensor: ITensor, key: object) -> tuple[int, ...]:
    items = key if isinstance(key, tuple) else (key,)
    if len(items) != tensor.rank:
        fail(IndexError, f"{len(items)} indices for the rank-{tensor.rank} tensor")
    out = []
    for axis, (i, d) in enumerate(zip(items, tensor.shape, strict=True)):
        if isinstance(i, IScalar) and i.dtype.is_integer and i.dtype != BOOL:
            i = int(i.value)
        if isinstance(i, bool) or not isinstance(i, int):
            fail(ParserTypeError, f"an element index must be an INDEX scalar, got {i!r}")
        if not 0 <= i < d:
            fail(IndexError, f"index {i} is out of bounds for dimension {axis} of size {d} "
                             f"(shape {list(tensor.shape)})")
        out.append(i)
    return tuple(out)


def subscript(tensor: ITensor, key: object) -> Any:
    """``x[i, j]`` in a kernel (an element), ``x[a:b, c:]`` in a function (a window)."""
    if state.current().kernel:
        return IScalar(tensor.array[_element_index(tensor, key)], tensor.dtype)
    items = key if isinstance(key, tuple) else (key,)
    if len(items) > tensor.rank:
        fail(IndexError, f"{len(items)} subscripts for the rank-{tensor.rank} tensor")
    window = []
    for axis, (item, d) in enumerate(zip(items, tensor.shape, strict=False)):
        if not isinstance(item, slice):
            fail(ParserTypeError, "integer indexing of a tensor is not supported in a "
                                  "function: use a slice (x[1:2, :]) or pl.slice")
        if item.step not in (None, 1):
            fail(ParserTypeError, f"slice steps must be 1, got {item.step!r}")
        lo, hi = (_slice_bound(b, default, d) for b, default in
                  ((item.start, 0), (item.stop, d)))
        if not 0 <= lo <= hi <= d:
            fail(IndexError, f"slice {lo}:{hi} is out of bounds for dimension {axis} of size "
                             f"{d} (shape {list(tensor.shape)})")
        window.append(slice(lo, hi))
    return ITensor(tensor.array[tuple(window)].copy(), tensor.dtype)


def _slice_bound(bound: object, default: int, size: int) -> int:
    if bound is None:
        return default
    if isinstance(bound, bool) or not isinstance(bound, int):
        fail(ParserTypeError, f"slice bounds must be compile-time ints, got {bound!r} "
                              "(use pl.slice(x, sizes, offsets) for run-time offsets)")
    return bound + size if bound < 0 else bound  # negative bounds count from the end


def store_element(tensor: ITensor, key: object, value: object) -> None:
    """``z[i] = v`` in a kernel (bounds checked; ``v`` of the tensor's dtype)."""
    if not state.current().kernel:
        fail(ParserTypeError, "tensors are values in a function: x[...] = v is only "
                              "allowed in a @pl.kernel (use pl.assemble)")
    where = _element_index(tensor, key)
    if isinstance(value, IScalar):
        if value.dtype != tensor.dtype:
            fail(ParserTypeError, f"storing a {value.dtype!r} value into a {tensor.dtype!r} "
                                  "tensor")
        tensor.array[where] = value.value
    elif is_literal(value):
        problem = literal_problem(value, tensor.dtype)
        if problem is not None:
            fail(ParserTypeError, problem)
        tensor.array[where] = scalar(value, tensor.dtype)
    else:
        fail(ParserTypeError, f"storing {value!r} into a tensor element")


# -- the markers' entry point -----------------------------------------------------------------
def _thread_position(name: str, args: Sequence[object]) -> IScalar:
    thread = state.current().thread
    if thread is None:
        fail(InvalidOperationError, f"pl.{name} only has a meaning inside a @pl.kernel")
    if len(args) != 1 or args[0] not in (0, 1, 2) or isinstance(args[0], bool):
        fail(InvalidOperationError, f"pl.{name} takes a dimension 0, 1 or 2")
    d = int(args[0])
    return index(getattr(thread, name)[d])


def _ceil_div(args: Sequence[object]) -> object:
    if len(args) != 2:
        fail(InvalidOperationError, "pl.ceil_div takes two values")
    a, b = args
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return -((-a) // b)  # type: ignore[operator]


def _vector_access(name: str, args: Sequence[object], kwargs: dict[str, object]) -> Any:
    """``pl.load(x, idx, width)`` (a tuple of scalars) / ``pl.store(x, idx, values)``:
    consecutive elements of the last dimension, each bounds-checked."""
    if not state.current().kernel:
        fail(InvalidOperationError, f"pl.{name} is only available inside a @pl.kernel")
    kwargs = dict(kwargs)
    kwargs.pop("aligned", None)  # an alignment promise: nothing to do in the interpreter
    values = list(args) + list(kwargs.values())
    if len(values) != 3 or not isinstance(values[0], ITensor):
        fail(InvalidOperationError, f"pl.{name} takes a tensor, an index and "
                                    f"{'a width' if name == 'load' else 'a tuple of values'}")
    x, key, third = values
    assert isinstance(x, ITensor)
    items: list[Any] = list(key) if isinstance(key, (tuple, list)) else [key]
    stored: list[Any] = list(third) if isinstance(third, (tuple, list)) else []
    count = third if name == "load" else len(stored)
    if isinstance(count, bool) or count not in (2, 4, 8, 16):
        fail(ParserTypeError, f"pl.{name}: the width must be 2, 4, 8 or 16, got {count!r}")
    assert isinstance(count, int)
    last = int(items[-1].value if isinstance(items[-1], IScalar) else items[-1])
    keys = [(*items[:-1], last + k) for k in range(count)]
    if name == "load":
        return tuple(subscript(x, k) for k in keys)
    for k, v in zip(keys, stored, strict=True):
        store_element(x, k, v)
    return None


def _scalar_min_max(name: str, args: Sequence[object]) -> Any:
    """``pl.min(a, b)`` / ``pl.max(a, b)`` of two scalars, as the parser emits them
    (``arith.minsi``/``minui``/``minimumf``...: a number takes the other's dtype; float
    NaN propagates)."""
    a, b = args
    typed = [v for v in (a, b) if isinstance(v, IScalar)]
    if not typed:
        if not (is_literal(a) and is_literal(b)):
            fail(ParserTypeError, f"pl.{name} takes two scalars or numbers, got {a!r}, {b!r}")
        pair: list[Any] = [a, b]
        return min(pair) if name == "min" else max(pair)
    dtype = typed[0].dtype
    values = []
    for v in (a, b):
        if isinstance(v, IScalar):
            if v.dtype != dtype:
                fail(ParserTypeError, f"pl.{name}: the operands have different dtypes, "
                                      f"{typed[0].dtype!r} and {v.dtype!r}")
            values.append(v.value)
        elif is_literal(v) and literal_problem(v, dtype) is None:
            values.append(scalar(v, dtype))
        else:
            fail(ParserTypeError, f"pl.{name}: expected a {dtype!r} scalar or a number, "
                                  f"got {v!r}")
    n = np()
    if dtype.is_float:
        return IScalar((n.minimum if name == "min" else n.maximum)(*values), dtype)
    return IScalar(min(values) if name == "min" else max(values), dtype)


def dispatch(builtin: DslBuiltin, args: tuple[object, ...], kwargs: dict[str, object]) -> Any:
    """Run ``pl.<name>(*args, **kwargs)`` (called by the markers while interpreting)."""
    if isinstance(builtin, OpBuiltin):
        if scalar_min_max(builtin.name, args, kwargs):
            return _scalar_min_max(builtin.name, args)
        if builtin.name == "cast" and args and type(args[0]) is int and state.current().kernel:
            # x.shape[d] of a pl.dynamic size is an INDEX value in compiled kernels
            args = (index(args[0]), *args[1:])
        return call_op(lookup(builtin.name), args, kwargs)
    if isinstance(builtin, ControlBuiltin):
        if builtin.name == "yield_":
            return yield_(args)
        unknown = set(kwargs) - {"init_values"}
        if unknown:
            fail(InvalidOperationError, f"pl.{builtin.name} has no parameter {unknown.pop()!r}")
        return loop(args, kwargs.get("init_values"))
    if isinstance(builtin, KernelBuiltin):
        return _thread_position(builtin.name, args)
    if isinstance(builtin, ScalarBuiltin):
        return _ceil_div(args)
    if isinstance(builtin, BlockBuiltin):
        return _block_builtin(builtin.name, args, kwargs)
    if isinstance(builtin, WarpBuiltin):
        return warp_builtin(builtin.name, args, kwargs, fail)
    if isinstance(builtin, VectorBuiltin):
        return _vector_access(builtin.name, args, kwargs)
    if isinstance(builtin, AtomicBuiltin):
        if not state.current().kernel:
            fail(InvalidOperationError, f"pl.{builtin.name} is only available inside a "
                                        "@pl.kernel")
        return atomic(builtin.name, args, fail, _element_index)
    raise NotImplementedError(f"{builtin!r} is not supported by the interpreter")


def _block_builtin(name: str, args: Sequence[object], kwargs: dict[str, object]) -> Any:
    """``pl.shared(shape, dtype)`` (the block's tile of this call site), ``pl.barrier()``."""
    block = state.current().block
    if block is None:
        fail(InvalidOperationError, f"pl.{name} is only available inside a @pl.kernel")
    if name == "barrier":
        if args or kwargs:
            fail(InvalidOperationError, "pl.barrier() takes no arguments")
        block.barrier.wait()
        return None
    values = list(args) + [kwargs[k] for k in ("shape", "dtype") if k in kwargs]
    if len(values) != 2 or not isinstance(values[1], DType) or not isinstance(
            values[0], (list, tuple)) or not all(isinstance(d, int) and d > 0 for d in values[0]):
        fail(ParserTypeError, "pl.shared takes a list of positive ints and a dtype: "
                              "pl.shared([64, 64], pl.FP32)")
    return block.tile(list(values[0]), values[1])


def dtype_of(t: PlType) -> DType:
    return t.dtype
