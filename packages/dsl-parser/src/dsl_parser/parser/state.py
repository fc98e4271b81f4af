"""Shared services of one function's parse, and the operations every sub-parser needs.

One ``ParserState`` per function: the source tracker, the IR builder, the
scopes, the compile-time evaluator and the type resolver, plus the values of
the symbolic dimensions bound by the parameters. Sub-parsers receive it
explicitly (they never hold the whole ``ASTParser``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from .._mlir import Block, Value, ir, memref, tensor
from ..errors import ParserTypeError, ScopeIsolationError, UndefinedVariableError
from ..types import INDEX, DType, Dynamic, ParamType, PlType, ScalarType, TensorType
from ..values import TypedValue, is_literal, literal_dtype, literal_problem
from .builder import IRBuilder
from .evaluator import MISSING, Evaluator
from .scopes import ScopeManager
from .source import SourceTracker
from .type_resolver import TypeResolver

if TYPE_CHECKING:
    from ..kernel import Kernel, KernelSpecialization
    from .kernel_params import KernelParam


class Callee:
    """A function of the program being parsed, as seen by calls to it."""

    __slots__ = ("host", "name", "params", "results")

    def __init__(self, name: str, params: list[tuple[str, ParamType]],
                 results: list[PlType] | None, host: bool = False) -> None:
        self.name = name
        self.params = params
        self.results = results
        self.host = host  # it launches kernels


class Symbols(Protocol):
    """The functions of a program (``self.f(...)`` targets)."""

    def callee(self, name: str, where: ast.AST) -> Callee: ...


class KernelTable(Protocol):
    """The kernels of the module being parsed (the targets of ``.launch``)."""

    def params(self, kernel: Kernel) -> list[KernelParam]: ...

    def specialize(self, kernel: Kernel, overrides: dict[str, object], tokens: list[str],
                   where: ast.AST, caller: SourceTracker) -> KernelSpecialization: ...


#: What kind of function is being parsed: a tensor function, a function that launches
#: kernels ("host": tensors are memrefs, scalar code only) or a kernel.
FUNCTION, HOST, KERNEL = "function", "host", "kernel"


class StreamValue:
    """A ``dc.Stream`` parameter inside a host function (only ``.launch(stream=...)`` takes it).

    Not changed after construction."""

    __slots__ = ("value",)

    def __init__(self, value: Value) -> None:
        self.value = value

    def __repr__(self) -> str:  # read in error messages (``_describe``)
        return f"StreamValue(value={self.value!r})"


class SelfRef:
    """The ``self`` of a program method; ``self.f`` is a call target (not changed after
    construction)."""

    __slots__ = ("symbols",)

    def __init__(self, symbols: Symbols) -> None:
        self.symbols = symbols

    def __repr__(self) -> str:  # read in error messages (``_describe``)
        return f"SelfRef(symbols={self.symbols!r})"


class ParserState:
    """The services of one function's parse."""

    __slots__ = ("builder", "dims", "entry", "evaluator", "kernels", "launched", "lazy_dims",
                 "mode", "program", "scopes", "self_name", "src", "strict", "types")

    def __init__(self, src: SourceTracker, builder: IRBuilder, scopes: ScopeManager,
                 evaluator: Evaluator, strict: bool, program: Symbols | None = None,
                 self_name: str | None = None, dims: dict[str, TypedValue] | None = None,
                 mode: str = FUNCTION, kernels: KernelTable | None = None,
                 entry: Block | None = None,
                 lazy_dims: dict[str, tuple[TypedValue, int, ast.AST]] | None = None,
                 launched: list[KernelSpecialization] | None = None) -> None:
        self.src = src
        self.builder = builder
        self.scopes = scopes
        self.evaluator = evaluator
        self.strict = strict
        self.program = program
        self.self_name = self_name
        self.dims: dict[str, TypedValue] = {} if dims is None else dims
        self.mode = mode
        self.kernels = kernels
        #: The entry block (where dimensions bound on first use are read).
        self.entry = entry
        #: Dimensions read on first use (memref modes): name -> (parameter, axis, annotation).
        self.lazy_dims: dict[str, tuple[TypedValue, int, ast.AST]] = \
            {} if lazy_dims is None else lazy_dims
        #: The kernel specializations launched so far, in order.
        self.launched: list[KernelSpecialization] = [] if launched is None else launched
        self.types = TypeResolver(self.src, self.lookup,
                                  lambda name: self.scopes.lookup(name) is not None)

    # -- names -------------------------------------------------------------------------
    def lookup(self, name: str, node: ast.AST) -> object:
        """What ``name`` denotes here: a local, ``self``, a closure/global, or an error."""
        binding = self.scopes.lookup(name)
        if binding is not None:
            return binding.value
        if name == self.self_name and self.program is not None:
            return SelfRef(self.program)
        hidden = self.scopes.hidden(name)
        if hidden is not None:
            span, kind = hidden
            self.src.error(
                node, ScopeIsolationError,
                f"'{name}' is defined inside {'an' if kind[0] in 'aeiou' else 'a'} {kind} "
                "and is not visible here",
                notes=[self.src.note(f"'{name}' is defined here", span)],
                hint=f"pass it out with pl.yield_: `{name} = pl.yield_(...)` "
                     f"at the end of the {kind}")
        value = self.evaluator.resolve(name)
        if value is MISSING:
            self.src.error(node, UndefinedVariableError, f"name '{name}' is not defined",
                           hint=self._similar(name))
        return value

    def _similar(self, name: str) -> str | None:
        names = [n for scope in self.scopes.stack for n in scope.bindings]
        import difflib  # only for this error's suggestion: it compiles regexes on import

        close = difflib.get_close_matches(name, names, n=1)
        return f"did you mean '{close[0]}'?" if close else None

    # -- values ------------------------------------------------------------------------
    def materialize(self, value: object, where: ast.AST, dtype: DType | None) -> TypedValue:
        """An IR scalar for ``value``: a literal becomes a constant of ``dtype``."""
        if isinstance(value, TypedValue):
            if dtype is not None and value.type != ScalarType(dtype):
                self.src.error(where, ParserTypeError,
                               f"expected {ScalarType(dtype)}, got {value.type}")
            return value
        if isinstance(value, Dynamic):
            return self._dim_value(value, where, dtype)
        if not is_literal(value):
            want = f"a {dtype!r} value" if dtype is not None else "a number or a scalar"
            self.src.error(where, ParserTypeError, f"expected {want}, got {_describe(value)}")
        target = dtype or literal_dtype(value)
        problem = literal_problem(value, target)
        if problem is not None:
            self.src.error(where, ParserTypeError, problem)
        builder = self.builder
        saved = builder.enter(where)
        try:
            return builder.constant(value, target)  # type: ignore[arg-type]
        finally:
            builder.leave(saved)

    def _dim_value(self, dim: Dynamic, where: ast.AST, dtype: DType | None) -> TypedValue:
        bound = self.dims.get(dim.name or "")
        if bound is None and dim.name in self.lazy_dims:
            bound = self._read_lazy_dim(dim.name)
        if bound is None:
            self.src.error(where, ParserTypeError,
                           f"dynamic dimension {dim!r} is not the size of any parameter",
                           hint="a pl.dynamic size gets its value from a parameter "
                                "whose shape uses it")
        if dtype is not None and dtype != INDEX:
            self.src.error(where, ParserTypeError, f"dimension {dim!r} is an INDEX, not {dtype!r}")
        return bound

    def dynamic_sizes(self, t: TensorType, entries: Sequence[object], where: ast.AST,
                      source: TypedValue | None = None) -> list[Value]:
        """Index values for the dynamic dimensions of ``t`` (from ``entries`` or ``source``)."""
        sizes: list[Value] = []
        for axis, (dim, entry) in enumerate(zip(t.shape or (), entries, strict=False)):
            if not isinstance(dim, Dynamic):
                continue
            if isinstance(entry, TypedValue):
                sizes.append(entry.value)
            elif isinstance(entry, Dynamic) and entry.name is not None:
                sizes.append(self._dim_value(entry, where, INDEX).value)
            elif source is not None:
                sizes.append(self.read_dim(source, axis, where).value)
            else:
                self.src.error(where, ParserTypeError, f"the size of dimension {axis} is unknown")
        return sizes

    def read_dim(self, source: TypedValue, axis: int, where: ast.AST) -> TypedValue:
        """``tensor.dim`` (``memref.dim`` for a memref) of ``source`` along ``axis``."""
        index = self.materialize(axis, where, INDEX)
        dim_op = memref.DimOp if isinstance(source.value.type, ir.MemRefType) else tensor.DimOp
        with self.builder.located(where):
            op = dim_op(source.value, index.value, loc=self.builder.loc, ip=self.builder.ip)
        return self.builder.typed(op.result, ScalarType(INDEX))

    # -- dimensions read on first use (kernels and host functions) -------------------------
    def bind_dim_lazily(self, name: str, source: TypedValue, axis: int, where: ast.AST) -> None:
        """``name`` is dimension ``axis`` of the parameter ``source``, read when first used."""
        if name not in self.dims and name not in self.lazy_dims:
            self.lazy_dims[name] = (source, axis, where)

    def anonymous_dim(self, source: TypedValue, axis: int) -> Dynamic:
        """A named stand-in for the unnamed dynamic dimension ``axis`` of a parameter."""
        owner = self.builder.info.names.get(source.value, "tensor")
        name = f"{owner}.shape[{axis}]"
        where = self.builder.where
        self.bind_dim_lazily(name, source, axis,
                             where if isinstance(where, ast.AST) else ast.Pass())
        return Dynamic(name)

    def _read_lazy_dim(self, name: str) -> TypedValue:
        """Read a lazily bound dimension at the start of the entry block (so it dominates
        every use) and remember it."""
        source, axis, where = self.lazy_dims.pop(name)
        b = self.builder
        saved = b.ip
        b.ip = ir.InsertionPoint.at_block_begin(self.entry)
        try:
            with b.located(where):
                value = self.read_dim(source, axis, where)
        finally:
            b.ip = saved
        b.info.names.setdefault(value.value, name)
        self.dims[name] = value
        return value

    def new(self, value: Value, t: PlType, name: str | None = None) -> TypedValue:
        return self.builder.typed(value, t, name)


def _describe(value: object) -> str:
    if isinstance(value, TypedValue):
        return str(value.type)
    if isinstance(value, StreamValue):
        return "a dc.Stream"
    if hasattr(type(value), "__dsl_fields__"):
        return f"a {type(value).__name__} struct"
    if isinstance(value, TensorType | ScalarType):
        return f"the type {value}"
    return f"{type(value).__name__} {value!r}"
