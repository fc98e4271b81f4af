"""Public entry points: Python objects (decorators, ``parse_function``) and text.

Each entry point catches ParserErrors itself and re-raises them cleaned: the
traceback a user sees holds their own frames and this one frame, never the
parser's internals or a chained exception.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import inspect
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dsl_core.sources import parse_python

from .._mlir import Context, default_context
from ..errors import ParserError, ParserSyntaxError
from ..function import Function, Program
from ..kernel import Kernel
from ..spans import Span
from .evaluator import Evaluator, closure_of
from .function_parser import FunctionSource
from .program_parser import build_function, build_program
from .source import SourceMap, SourceTracker
from .source import source_of as _source_of
from .text import TextModule


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic GC while parsing: the parse allocates many long-lived objects
    (AST nodes, IR wrappers) and no cycles worth collecting; about 5% of parse time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _clean(err: ParserError) -> ParserError:
    """Strip what happened inside the parser: no internal frames, no chained exceptions."""
    err.__context__ = err.__cause__ = None
    err.__suppress_context__ = True
    return err.with_traceback(None)


# -- Python objects ----------------------------------------------------------------------------
def _is_method(fn: Callable[..., Any]) -> bool:
    code = getattr(fn, "__code__", None)
    return bool(code and code.co_argcount and code.co_varnames[0] == "self")


def parse_function(py_func: Callable[..., Any], *, overrides: Mapping[str, object] | None = None,
                   strict_ssa: bool = True, source_map: SourceMap | None = None,
                   context: Context | None = None) -> Function:
    """Parse a Python function object into a ``Function``.

    Source comes from ``inspect.getsource`` (dedented); names resolve through
    the function's globals and closure cells; locations are in its real file.
    ``overrides`` maps a parameter name to a DSL type (replacing its
    annotation) or to ``pl.ConstValue(v)`` (removed from the signature, every
    use is the constant ``v``). ``context`` defaults to the package's shared
    context (``dsl_parser.default_context()``).
    """
    try:
        with _no_gc():
            return _parse_function(py_func, overrides, strict_ssa, source_map, context)
    except ParserError as err:
        raise _clean(err) from None


def _parse_function(py_func: Callable[..., Any], overrides: Mapping[str, object] | None,
                    strict_ssa: bool, source_map: SourceMap | None,
                    context: Context | None) -> Function:
    if not inspect.isfunction(py_func):
        raise TypeError(f"parse_function takes a Python function, got {py_func!r}")
    node, src = _source_of(py_func, source_map)
    if not isinstance(node, ast.FunctionDef):
        raise ValueError(f"{py_func!r} is not defined by a def statement")
    source = FunctionSource(node, src, Evaluator(py_func.__globals__, closure_of(py_func)),
                            annotations=dict(getattr(py_func, "__annotations__", {})),
                            overrides=dict(overrides or {}), strict=strict_ssa)
    fn = build_function(context or default_context(), source)
    fn.python = py_func
    return fn


def parse_class(cls: type, *, strict_ssa: bool = True, source_map: SourceMap | None = None,
                context: Context | None = None) -> Program:
    """Parse a class of DSL methods into a ``Program`` (what ``@pl.program`` does)."""
    try:
        with _no_gc():
            return _parse_class(cls, strict_ssa, source_map, context)
    except ParserError as err:
        raise _clean(err) from None


def _parse_class(cls: type, strict_ssa: bool, source_map: SourceMap | None,
                 context: Context | None) -> Program:
    node, src = _source_of(cls, source_map)
    if not isinstance(node, ast.ClassDef):
        raise ValueError(f"{cls!r} is not defined by a class statement")
    sources = []
    for item in TextModule.methods(node, src):
        fn = cls.__dict__.get(item.name)
        if isinstance(fn, Kernel):
            TextModule.kernel_method(item, src)
        fn = getattr(fn, "__func__", fn)
        options = getattr(fn, "__pl_options__", {})
        evaluator = Evaluator(getattr(fn, "__globals__", {}), closure_of(fn) if fn else {})
        sources.append(FunctionSource(item, src, evaluator,
                                      annotations=dict(getattr(fn, "__annotations__", {})),
                                      strict=options.get("strict_ssa", strict_ssa),
                                      is_method=True))
    program = build_program(context or default_context(), node.name, sources)
    program.python = cls
    return program


def function(fn: Callable[..., Any] | None = None, *, strict_ssa: bool = True,
             context: Context | None = None) -> Any:
    """``@pl.function`` / ``@pl.function(strict_ssa=False)``: parse into a ``Function``.

    On a method (first parameter ``self``) it only records its options: the
    enclosing ``@pl.program`` parses it.
    """
    if fn is None:
        return functools.partial(function, strict_ssa=strict_ssa, context=context)
    if _is_method(fn):
        fn.__pl_options__ = {"strict_ssa": strict_ssa}  # type: ignore[attr-defined]
        return fn
    try:
        with _no_gc():
            return _parse_function(fn, None, strict_ssa, None, context)
    except ParserError as err:
        raise _clean(err) from None


def kernel(fn: Callable[..., Any] | None = None, *, strict_ssa: bool = False) -> Any:
    """``@pl.kernel`` / ``@pl.kernel(strict_ssa=True)``: a GPU-style kernel (a ``Kernel``).

    Nothing is parsed here: a host function's ``k(args).launch(grid=..., block=...)``
    parses the kernel for that launch's argument types and Constexpr values into a
    ``gpu.func`` of the host's module. Kernel bodies are non-strict by default
    (loop-carried scalars and values assigned in both branches need no ``pl.yield_``).
    """
    if fn is None:
        return functools.partial(kernel, strict_ssa=strict_ssa)
    if isinstance(fn, Kernel):
        return fn
    if not inspect.isfunction(fn):
        raise TypeError(f"@pl.kernel takes a Python function, got {fn!r}")
    return Kernel(fn, strict_ssa=strict_ssa)


def program(cls: type | None = None, *, strict_ssa: bool = True,
            context: Context | None = None) -> Any:
    """``@pl.program``: parse a class into a ``Program`` (one function per method)."""
    if cls is None:
        return functools.partial(program, strict_ssa=strict_ssa, context=context)
    try:
        with _no_gc():
            return _parse_class(cls, strict_ssa, None, context)
    except ParserError as err:
        raise _clean(err) from None


# -- text ----------------------------------------------------------------------------------------
def parse(code: str, filename: str | None = None, source_map: SourceMap | None = None, *,
          context: Context | None = None) -> Function | Program:
    """Parse DSL source text holding exactly one ``@pl.function`` or ``@pl.program``.

    Returns what the decorators return. ValueError when the text defines none
    or several; a ParserSyntaxError (a SyntaxError) for invalid Python.
    """
    try:
        with _no_gc():
            return _parse_text(code, filename, source_map, context)
    except ParserError as err:
        raise _clean(err) from None


def _parse_text(code: str, filename: str | None, source_map: SourceMap | None,
                context: Context | None) -> Function | Program:
    name = filename or "<string>"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # e.g. "1x": the error follows
            tree = parse_python(code, name)
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset or 1
        raise ParserSyntaxError(f"invalid Python syntax: {exc.msg}",
                                Span(name, line, col, line, col + 1),
                                source_line=(exc.text or "").rstrip("\n") or None) from None
    src = SourceTracker(name, code.splitlines(), source_map=source_map)
    text = TextModule(tree, src)
    kind, node, options = text.single_definition(name)
    ctx = context or default_context()
    strict = options.get("strict_ssa", True)
    if kind == "function":
        assert isinstance(node, ast.FunctionDef)
        return build_function(ctx, FunctionSource(node, src, text.evaluator(), strict=strict))
    assert isinstance(node, ast.ClassDef)
    return build_program(ctx, node.name, text.method_sources(node, strict))


def parse_program(code: str, filename: str | None = None,
                  source_map: SourceMap | None = None) -> Function | Program:
    """Deprecated alias of ``pl.parse``."""
    warnings.warn("pl.parse_program is deprecated; use pl.parse", DeprecationWarning,
                  stacklevel=2)
    return parse(code, filename, source_map)


def loads_program(path: str) -> Function | Program:
    """Deprecated alias of ``pl.loads``."""
    warnings.warn("pl.loads_program is deprecated; use pl.loads", DeprecationWarning,
                  stacklevel=2)
    return loads(path)


def loads(path: str, *, context: Context | None = None) -> Function | Program:
    """Parse the DSL file at ``path`` (one ``@pl.function`` or ``@pl.program``)."""
    with open(path, encoding="utf-8") as handle:
        code = handle.read()
    try:
        with _no_gc():
            return _parse_text(code, str(path), None, context)
    except ParserError as err:
        raise _clean(err) from None
