"""Running DSL functions as Python: the function's own code (a copy compiled from its
source, with its real file and line numbers, so ``print``, ``breakpoint()`` and pdb work),
with the ``pl`` markers answering through the interpreter.

The copy differs from the source in two ways only: a loop with ``init_values`` first binds
the names its ``pl.yield_`` assigns to the initial values (what they hold after zero
iterations), and Python's ``range`` in a ``for`` means ``pl.range``.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from types import CodeType, FunctionType
from typing import Any

from dsl_core.sources import parse_python

from ..kernel import Kernel
from ..markers import set_interpreter
from ..ops.numerics import np, numpy_dtype, round_bf16
from ..types import BF16, DType, Dynamic, ScalarType, TensorType
from ..values import is_literal, literal_problem
from . import runtime, state
from .blocks import run_block
from .protocols import protocol_from_user, protocol_type, struct_from_user
from .values import IScalar, ITensor

_INITIAL, _RANGE = "__dsl_initial__", "__dsl_range__"
_COMPILED: weakref.WeakKeyDictionary[Any, FunctionType] = weakref.WeakKeyDictionary()


class _Rewrite(ast.NodeTransformer):
    """Zero-trip bindings before loops with ``init_values``; ``range`` -> ``pl.range``."""

    def visit_For(self, node: ast.For) -> Any:
        self.generic_visit(node)
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
            it.func = ast.copy_location(ast.Name(_RANGE, ast.Load()), it.func)
        init = _init_values(it)
        last = node.body[-1] if node.body else None
        if init is None or not (isinstance(last, ast.Assign) and _is_yield(last.value)):
            return node
        bind = ast.Assign(targets=last.targets,
                          value=ast.Call(ast.Name(_INITIAL, ast.Load()), [init], []))
        ast.copy_location(bind, node)
        ast.fix_missing_locations(bind)
        return [bind, node]


def _init_values(it: ast.expr) -> ast.expr | None:
    if not isinstance(it, ast.Call):
        return None
    return next((k.value for k in it.keywords if k.arg == "init_values"), None)


def _is_yield(value: ast.expr) -> bool:
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute | ast.Name)
            and getattr(value.func, "attr", getattr(value.func, "id", None)) == "yield_")


def compiled(py_func: FunctionType) -> FunctionType:
    """The interpreter's copy of ``py_func`` (cached per function)."""
    found = _COMPILED.get(py_func)
    if found is None:
        found = _COMPILED[py_func] = _compile(py_func)
    return found


def _compile(py_func: FunctionType) -> FunctionType:
    lines, first = inspect.getsourcelines(py_func)
    tree = parse_python(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    fndef = tree.body[0]
    if not isinstance(fndef, ast.FunctionDef):
        raise TypeError(f"{py_func!r} is not defined by a def statement")
    fndef.decorator_list = []
    fndef.returns = None
    for arg in [*fndef.args.posonlyargs, *fndef.args.args, *fndef.args.kwonlyargs]:
        arg.annotation = None
    fndef = _Rewrite().visit(fndef)
    free = list(py_func.__code__.co_freevars)
    outer = ast.FunctionDef(
        name="__dsl_outer__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in [_INITIAL, _RANGE, *free]],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fndef, ast.Return(ast.Name(fndef.name, ast.Load()))], decorator_list=[])
    ast.copy_location(outer, fndef)
    module = ast.fix_missing_locations(ast.Module([outer], type_ignores=[]))
    code = compile(module, py_func.__code__.co_filename, "exec", dont_inherit=True)
    outer_code = next(c for c in code.co_consts if isinstance(c, CodeType))
    cells = [c.cell_contents for c in (py_func.__closure__ or ())]
    inner = FunctionType(outer_code, py_func.__globals__)(
        runtime.initial, lambda *a, **k: runtime.loop(a, k.get("init_values")), *cells)
    assert isinstance(inner, FunctionType)
    inner.__defaults__ = py_func.__defaults__
    state.CODES.add(inner.__code__)
    return inner


# -- arguments -----------------------------------------------------------------------------
class Writeback:
    """BF16 arrays converted for the call: kernel stores are copied back to the caller's bits."""

    def __init__(self) -> None:
        self.pairs: list[tuple[Any, ITensor]] = []

    def finish(self) -> None:
        for user, tensor in self.pairs:
            user[...] = to_user(tensor.array, tensor.dtype)


def annotations_of(py_func: Callable[..., Any]) -> dict[str, Any]:
    """The evaluated parameter annotations (strings evaluated in the function's globals)."""
    out: dict[str, Any] = {}
    for name, ann in getattr(py_func, "__annotations__", {}).items():
        if isinstance(ann, str):
            closure = dict(zip(py_func.__code__.co_freevars,
                               (c.cell_contents for c in py_func.__closure__ or ()),
                               strict=False))
            ann = eval(ann, py_func.__globals__, closure)
        out[name] = ann
    return out


def from_user(value: Any, t: TensorType, name: str, dynamic: dict[str, int],
              writeback: Writeback) -> ITensor:
    """A caller's array as a tensor of type ``t`` (checked like the runtime checks it)."""
    n = np()
    array = value.array if isinstance(value, ITensor) else n.asarray(value)
    if isinstance(value, ITensor):
        if value.dtype != t.dtype:
            raise TypeError(f"argument '{name}' is a {value.dtype!r} tensor, expected {t}")
        tensor = value
    else:
        # the dtype table says how values are stored (bfloat16: as its uint16 bits)
        if array.dtype.name not in (t.dtype.storage, t.dtype.numpy_name):
            raise TypeError(f"argument '{name}' expects element type {t.dtype.numpy_name}, "
                            f"got {array.dtype}")
        if t.dtype == BF16:
            bits = array.view(n.uint16).astype(n.uint32) << 16
            tensor = ITensor(bits.view(n.float32), BF16)
            writeback.pairs.append((array, tensor))
        else:
            tensor = ITensor(array, t.dtype)
    _check_shape(tensor, t, name, dynamic)
    if t.shape is not None and any(isinstance(d, Dynamic) for d in t.shape):
        tensor = ITensor(tensor.array, tensor.dtype, tuple(isinstance(d, Dynamic) for d in t.shape))
    return tensor


def _check_shape(tensor: ITensor, t: TensorType, name: str, dynamic: dict[str, int]) -> None:
    if t.shape is None:
        return
    if len(t.shape) != tensor.rank:
        raise ValueError(f"argument '{name}' has shape {list(tensor.shape)}, expected {t}")
    for axis, (d, size) in enumerate(zip(t.shape, tensor.shape, strict=True)):
        if isinstance(d, int) and d != size:
            raise ValueError(f"argument '{name}' has shape {list(tensor.shape)}, expected {t} "
                             f"(dimension {axis})")
        if isinstance(d, Dynamic) and d.name is not None:
            bound = dynamic.setdefault(d.name, size)
            if bound != size:
                raise ValueError(f"argument '{name}': dimension {axis} is {size}, but "
                                 f"{d.name} is {bound} from an earlier argument")


def scalar_from_user(value: Any, dtype: DType, name: str) -> IScalar:
    if isinstance(value, IScalar):
        if value.dtype != dtype:
            raise TypeError(f"argument '{name}' is a {value.dtype!r} scalar, expected {dtype!r}")
        return value
    if isinstance(value, np().generic):
        value = value.item()
    if not is_literal(value):
        raise TypeError(f"argument '{name}' expects a {dtype!r} scalar, got {value!r}")
    problem = literal_problem(value, dtype)
    if problem is not None:
        raise TypeError(f"argument '{name}': {problem}")
    return IScalar(value, dtype)


def convert_args(py_func: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any],
                 skip_self: bool, writeback: Writeback) -> tuple[list[Any], dict[str, int]]:
    """Bind and convert a call's arguments by the parameters' annotations."""
    sig = inspect.signature(py_func)
    params = list(sig.parameters)
    given = [None, *args] if skip_self else list(args)
    try:
        bound = sig.bind(*given, **kwargs)
    except TypeError as err:
        raise TypeError(f"{py_func.__name__}(): {err}") from None
    anns = annotations_of(py_func)
    dynamic: dict[str, int] = {}
    out: list[Any] = []
    for i, name in enumerate(params):
        if skip_self and i == 0:
            continue
        value = bound.arguments.get(name, sig.parameters[name].default)
        ann = anns.get(name)
        if isinstance(ann, DType):
            ann = ScalarType(ann)
        if isinstance(ann, TensorType):
            value = from_user(value, ann, name, dynamic, writeback)
        elif isinstance(ann, ScalarType):
            value = scalar_from_user(value, ann.dtype, name)
        elif isinstance(ann, type):
            value = _composite_from_user(value, ann, name, _slot_converter(dynamic, writeback))
        out.append(value)
    return out, dynamic


def _composite_from_user(value: Any, ann: type, name: str, convert: Any) -> Any:
    """A ``@dc.struct`` or protocol argument as the body sees it (others: as given)."""
    if getattr(ann, "__dsl_kind__", None) == "struct":
        return struct_from_user(value, ann, name, convert)
    dsl_type = protocol_type(ann)
    return value if dsl_type is None else protocol_from_user(value, dsl_type, name, convert)


def _slot_converter(dynamic: dict[str, int], writeback: Writeback) -> Callable[..., Any]:
    """``convert(value, pl_type, name)`` of one slot of a protocol argument."""
    def convert(value: Any, t: Any, name: str) -> Any:
        if isinstance(t, TensorType):
            return from_user(value, t, name, dynamic, writeback)
        return scalar_from_user(value, t.dtype, name)

    return convert


def to_user(array: Any, dtype: DType) -> Any:
    """A result as the compiled code returns it (BF16: its uint16 bit pattern)."""
    if dtype == BF16:
        n = np()
        return (round_bf16(array).view(n.uint32) >> 16).astype(n.uint16)
    return np().array(array, dtype=numpy_dtype(dtype), copy=True)


def result_to_user(value: Any) -> Any:
    if isinstance(value, ITensor):
        return to_user(value.array, value.dtype)
    if isinstance(value, IScalar):
        return value.value
    if isinstance(value, tuple):
        return tuple(result_to_user(v) for v in value)
    return value


# -- running -------------------------------------------------------------------------------
@contextmanager
def active(frame: state.Frame) -> Any:
    stack = state.frames()
    stack.append(frame)
    previous = set_interpreter(handler)
    try:
        yield frame
    finally:
        set_interpreter(previous)
        stack.pop()


def run(py_func: FunctionType, values: Sequence[Any], frame: state.Frame) -> Any:
    """Call the interpreter's copy of ``py_func`` on converted values inside ``frame``."""
    fn = compiled(py_func)
    with active(frame), np().errstate(all="ignore"):
        return fn(*values)


# -- programs and kernel launches ------------------------------------------------------------
class ProgramSelf:
    """``self`` of an interpreted program: ``self.f(...)`` runs method ``f`` interpreted."""

    def __init__(self, cls: type) -> None:
        self._cls = cls

    def __getattr__(self, name: str) -> Callable[..., Any]:
        fn = self._cls.__dict__.get(name)
        fn = getattr(fn, "__func__", fn)
        if not isinstance(fn, FunctionType):
            raise AttributeError(f"program {self._cls.__name__} has no function {name!r} "
                                 f"(at {state.where()})")
        return lambda *args, **kwargs: call(fn, args, kwargs, self)


def call(fn: FunctionType, args: Sequence[Any], kwargs: dict[str, Any],
          self_: ProgramSelf | None) -> Any:
    writeback = Writeback()
    values, dynamic = convert_args(fn, args, kwargs, self_ is not None, writeback)
    if self_ is not None:
        values = [self_, *values]
    result = run(fn, values, state.Frame(dynamic=dynamic))
    writeback.finish()
    return result


class _Launch:
    """``kernel(args)`` in an interpreted host function; ``.launch(...)`` runs it."""

    def __init__(self, kernel: Kernel, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if kernel.fn is None:
            runtime.fail(NotImplementedError, f"kernel '{kernel.name}' was parsed from text: "
                                              "the interpreter runs Python functions only")
        self.kernel, self.args, self.kwargs = kernel, args, kwargs

    def launch(self, grid: Any = (1,), block: Any = (1,), stream: Any = None) -> None:
        fn = self.kernel.fn
        assert isinstance(fn, FunctionType)
        writeback = Writeback()
        values, dynamic = convert_args(fn, self.args, self.kwargs, False, writeback)
        g, b = _dims(grid, "grid"), _dims(block, "block")
        compiled(fn)
        for bz in range(g[2]):
            for by in range(g[1]):
                for bx in range(g[0]):
                    _run_block(fn, values, dynamic, (bx, by, bz), b, g)
        writeback.finish()


def _run_block(fn: FunctionType, values: list[Any], dynamic: dict[str, int],
               block_id: tuple[int, int, int], block: tuple[int, int, int],
               grid: tuple[int, int, int]) -> None:
    """The threads of one block (see ``blocks``: Python threads when it has barriers)."""
    run_block(fn, values, dynamic, block_id, block, grid, run)


def _dims(value: Any, what: str) -> tuple[int, int, int]:
    items = list(value) if isinstance(value, list | tuple) else [value]
    if not 1 <= len(items) <= 3:
        runtime.fail(ValueError, f"launch {what} takes 1 to 3 sizes, got {value!r}")
    sizes = [int(v) for v in items] + [1] * (3 - len(items))
    if any(s < 0 for s in sizes):
        runtime.fail(ValueError, f"launch {what} sizes must not be negative, got {sizes}")
    return sizes[0], sizes[1], sizes[2]


def handler(builtin: Any, args: tuple[object, ...], kwargs: dict[str, object]) -> Any:
    """What the ``pl`` markers (and ``Kernel.__call__``) call while interpreting."""
    if isinstance(builtin, Kernel):
        return _Launch(builtin, args, dict(kwargs))
    return runtime.dispatch(builtin, args, kwargs)
