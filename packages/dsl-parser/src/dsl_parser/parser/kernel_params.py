"""The declared parameters of a ``@pl.kernel``: what each launch argument must be.

Read from the kernel's ``def`` before it is parsed (a launch decides from them
which specialization it needs): tensors (shaped, or unshaped ``pl.Tensor[dtype]``
specialized on the argument), scalars, ``dc.Constexpr[T]`` (compile-time values),
``@dc.struct`` classes (one ``gpu.func`` argument per leaf) and types dsl-core's
registry knows (one argument per IR value of the launch's value).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping

import dsl_core as dc

from ..errors import ParserTypeError, UndefinedVariableError, UnsupportedFeatureError
from ..types import PlType, ScalarType, TensorType
from .annotations import annotation_object, is_constexpr, is_stream
from .evaluator import MISSING, Evaluator
from .source import SourceTracker
from .structs import is_struct, union_problem
from .type_resolver import TypeResolver, as_type

TENSOR, SCALAR, CONSTEXPR, STRUCT, PROTOCOL = "tensor", "scalar", "constexpr", "struct", "protocol"


class KernelParam:
    """One declared parameter: its kind, DSL type (tensor/scalar; a tensor may be
    unshaped) or Python class (Constexpr/struct), and its ``ast.arg``. Not changed after
    construction."""

    __slots__ = ("annotation", "kind", "name", "node", "type")

    def __init__(self, name: str, kind: str, node: ast.arg, type: PlType | None = None,
                 annotation: object = None) -> None:
        self.name = name
        self.kind = kind
        self.node = node
        self.type = type
        self.annotation = annotation


def resolver_for(src: SourceTracker, evaluator: Evaluator) -> TypeResolver:
    """A type resolver over a kernel's globals and closure (no locals)."""

    def lookup(name: str, node: ast.AST) -> object:
        value = evaluator.resolve(name)
        if value is MISSING:
            src.error(node, UndefinedVariableError, f"name '{name}' is not defined")
        return value

    return TypeResolver(src, lookup)


def read_params(name: str, node: ast.FunctionDef, src: SourceTracker, evaluator: Evaluator,
                annotations: Mapping[str, object]) -> list[KernelParam]:
    """The parameters of kernel ``name`` in order; errors at the kernel's own lines."""
    a = node.args
    extra = a.vararg or a.kwarg or (a.kwonlyargs[0] if a.kwonlyargs else None)
    if extra is not None:
        src.error(extra, UnsupportedFeatureError,
                  "*args, **kwargs and keyword-only parameters are not supported")
    if a.defaults:
        src.error(a.defaults[0], UnsupportedFeatureError,
                  "parameter default values are not supported")
    resolver = resolver_for(src, evaluator)
    return [_param(name, arg, src, resolver, annotations) for arg in a.posonlyargs + a.args]


def _param(kernel: str, arg: ast.arg, src: SourceTracker, resolver: TypeResolver,
           annotations: Mapping[str, object]) -> KernelParam:
    if arg.annotation is None and arg.arg not in annotations:
        src.error(arg, ParserTypeError,
                  f"parameter '{arg.arg}' of kernel '{kernel}' has no type annotation",
                  hint=f"annotate it: {arg.arg}: pl.Tensor[[N], pl.FP32] or pl.Scalar[pl.INDEX]")
    where = arg.annotation or arg
    obj = annotation_object(arg, annotations, resolver)
    if is_constexpr(obj):
        return KernelParam(arg.arg, CONSTEXPR, arg, annotation=obj)
    if is_stream(obj):
        src.error(where, UnsupportedFeatureError,
                  f"parameter '{arg.arg}': a @pl.kernel cannot take a dc.Stream",
                  hint="pass the stream to .launch(stream=...) in the host function")
    problem = union_problem(obj, arg.arg)
    if problem is not None:
        src.error(where, UnsupportedFeatureError, problem)
    if is_struct(obj):
        return KernelParam(arg.arg, STRUCT, arg, annotation=obj)
    t = as_type(obj)
    protocol = dc.JitArgumentRegistry.parameter_type(obj) if t is None else None
    if protocol is not None:  # a type dsl-core's registry knows
        return KernelParam(arg.arg, PROTOCOL, arg, annotation=protocol)
    if t is None:
        src.error(where, ParserTypeError,
                  f"the annotation of parameter '{arg.arg}' of kernel '{kernel}' is not a DSL "
                  f"type: {ast.unparse(arg.annotation) if arg.annotation else obj!r}",
                  hint="use pl.Tensor[[sizes], dtype], pl.Tensor[dtype], pl.Scalar[dtype], "
                       "dc.Constexpr[int] or a @dc.struct")
    return KernelParam(arg.arg, TENSOR if isinstance(t, TensorType) else SCALAR, arg, type=t)


def describe(param: KernelParam) -> str:
    """How a parameter's expected argument reads in messages."""
    if param.kind == CONSTEXPR:
        inner = getattr(param.annotation, "inner", None)
        return f"dc.Constexpr[{getattr(inner, '__name__', inner)}]"
    if param.kind == STRUCT:
        return f"a {getattr(param.annotation, '__name__', '?')} struct"
    if param.kind == PROTOCOL:
        return f"a {getattr(param.annotation, '__qualname__', '?')}"
    assert isinstance(param.type, (TensorType, ScalarType))
    return str(param.type)


def constant_token(value: object) -> str:
    """A Constexpr value in a symbol: ``c4``, ``cm3`` (-3), ``c1p5`` (1.5), ``cTrue``."""
    if isinstance(value, bool):
        return f"c{value}"
    if isinstance(value, float):
        if math.isnan(value):
            return "cnan"
        if math.isinf(value):
            return "cinf" if value > 0 else "cminf"
        text = repr(value)
    else:
        text = str(value)
    return "c" + text.replace("-", "m").replace(".", "p").replace("+", "")


def type_token(shape: tuple[object, ...], element: str) -> str:
    """A specialized tensor type in a symbol: ``t64xf32``, ``tdx8xf16`` (``d`` is dynamic)."""
    dims = ["d" if not isinstance(d, int) else str(d) for d in shape]
    return "t" + "x".join([*dims, element])
