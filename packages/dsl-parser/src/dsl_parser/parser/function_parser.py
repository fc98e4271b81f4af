"""One ``func.func`` from one ``def``: signature first (pass 1), then the body (pass 2).

Parameters are resolved in order with the overrides applied: a DSL type
replaces the annotation, a ``ConstValue`` removes the parameter from the
signature and binds its name to a compile-time constant. The declared
results (if any) are checked against the ``return``; an unshaped declared
tensor result takes the returned shape.

A function whose body contains a ``.launch(...)`` call is a *host* function
(decided by scanning the AST first): its tensor parameters are memrefs, it may
take ``dc.Stream`` parameters, and it returns nothing. ``KernelParser``
(``kernel_parser``) reuses this class for ``@pl.kernel`` bodies.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from .._mlir import Block, Module, Operation, func, ir
from ..errors import ParserSyntaxError, ParserTypeError, UnsupportedFeatureError
from ..function import Param, Signature
from ..types import (
    STREAM,
    ConstValue,
    Dynamic,
    ParamType,
    PlType,
    ProtocolArgument,
    StreamType,
    TensorType,
    types_match,
)
from ..values import TypedValue, ValueInfo
from .annotations import annotation_object, is_constexpr, is_stream
from .ast_parser import ASTParser
from .builder import IRBuilder
from .evaluator import Evaluator
from .protocol_params import construct_protocol, ir_param_types
from .protocol_params import leaf_args as protocol_leaf_args
from .returns import hoist_returns
from .scopes import ScopeManager
from .source import SourceTracker
from .state import FUNCTION, HOST, KERNEL, Callee, KernelTable, ParserState, StreamValue, Symbols
from .structs import construct, is_struct, leaf_args, leaves, union_problem
from .type_resolver import as_type

#: The module attribute that marks a module holding a ``gpu.module``.
CONTAINER_ATTR = "gpu.container_module"


class FunctionSource:
    """A ``def`` and what its names resolve against."""

    __slots__ = ("annotations", "evaluator", "is_method", "kernel", "node", "overrides", "src",
                 "strict")

    def __init__(self, node: ast.FunctionDef, src: SourceTracker, evaluator: Evaluator,
                 annotations: Mapping[str, object] | None = None,
                 overrides: Mapping[str, object] | None = None, strict: bool = True,
                 is_method: bool = False, kernel: bool = False) -> None:
        self.node = node
        self.src = src
        self.evaluator = evaluator
        self.annotations: Mapping[str, object] = {} if annotations is None else annotations
        self.overrides: Mapping[str, object] = {} if overrides is None else overrides
        self.strict = strict
        self.is_method = is_method
        self.kernel = kernel  # a @pl.kernel body


def launches_kernels(node: ast.FunctionDef, src: SourceTracker) -> bool:
    """Whether the body calls ``<...>.launch(...)`` anywhere (a host function).

    The source text is searched first: most functions never say "launch", and walking
    the whole AST would cost more than a tenth of a plain function's parse."""
    if not src.mentions(node.body, ("launch",)):
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr == "launch" for stmt in node.body for n in ast.walk(stmt))


class FunctionParser:
    """Declares and then defines one function of a module."""

    def __init__(self, source: FunctionSource, module: Module, info: ValueInfo,
                 symbols: Symbols | None = None, kernels: KernelTable | None = None) -> None:
        self.source = source
        self.node = source.node
        self.module = module
        self.mode = KERNEL if source.kernel else HOST if launches_kernels(source.node, source.src) \
            else FUNCTION
        builder = IRBuilder(module.context, info, source.src.loc, memrefs=self.mode != FUNCTION)
        scopes = ScopeManager(source.src, source.strict)
        self.state = ParserState(source.src, builder, scopes, source.evaluator, source.strict,
                                 program=symbols, self_name="self" if source.is_method else None,
                                 mode=self.mode, kernels=kernels)
        self.params: list[tuple[ast.arg, ParamType]] = []
        self.structs: list[tuple[ast.arg, object]] = []  # struct parameters (annotation)
        self.protocols: list[tuple[ast.arg, ProtocolArgument, int]] = []  # (arg, override, n)
        self.constants: dict[str, object] = {}
        self.declared: list[PlType] | None = None
        self.results: list[PlType] | None = None
        self.func_op: Operation = None

    @property
    def name(self) -> str:
        return self.node.name

    # -- pass 1: the signature -----------------------------------------------------------------
    def declare(self) -> Callee:
        """Resolve the signature and create the (bodiless) ``func.func``."""
        self._check_arguments()
        self.state.scopes.push("function")
        args = self._args()
        for arg in args:  # constants first: annotations may use them
            override = self.source.overrides.get(arg.arg)
            if isinstance(override, ConstValue):
                self.constants[arg.arg] = override.value
                self.state.scopes.define(arg.arg, override.value, arg)
        self.params = [p for arg in args if arg.arg not in self.constants
                       for p in self._param_entries(arg)]
        self.declared = self.state.types.results(self.node.returns)
        if self.mode != FUNCTION:
            self._no_results()
        if self.declared is not None and all(_shaped(t) for t in self.declared):
            self.results = list(self.declared)
        b = self.state.builder
        ftype = ir.FunctionType.get([b.mlir_type(t) for _, t in self.params],
                                    [b.mlir_type(t) for t in self.results or []])
        self.func_op = self._create_op(ftype)
        return self.callee()

    def _no_results(self) -> None:
        """Kernels and host functions return nothing (``-> None`` may be written)."""
        if self.declared:
            what = "a @pl.kernel" if self.mode == KERNEL else "a function that launches kernels"
            self.state.src.error(self.node.returns or self.node, ParserTypeError,
                                 f"{what} returns nothing: '{self.name}' cannot declare results",
                                 hint="remove the return annotation (or write -> None)")
        self.declared = []
        if self.mode == HOST:
            self.module.operation.attributes[CONTAINER_ATTR] = ir.UnitAttr.get()

    def _create_op(self, ftype: object) -> Operation:
        """The (bodiless) function operation: a ``func.func`` at the end of the module."""
        return func.FuncOp(self.name, ftype, loc=self.state.src.loc(self.node),
                           ip=ir.InsertionPoint(self.module.body))

    def _entry_block(self) -> Block:
        return self.func_op.add_entry_block([self.state.src.loc(a) for a, _ in self.params])

    def _terminate(self, values: list[TypedValue], where: ast.AST) -> None:
        b = self.state.builder
        func.ReturnOp([v.value for v in values], loc=self.state.src.loc(where), ip=b.ip)

    def callee(self) -> Callee:
        return Callee(self.name, [(a.arg, t) for a, t in self.params], self.results,
                      host=self.mode == HOST)

    def signature(self) -> Signature:
        """The signature as parsed so far (final after ``define``)."""
        return Signature([Param(a.arg, t) for a, t in self.params], list(self.results or []))

    def _check_arguments(self) -> None:
        a = self.node.args
        extra = a.vararg or a.kwarg or a.kwonlyargs
        if extra:
            where = a.vararg or a.kwarg or a.kwonlyargs[0]
            self.state.src.error(where, UnsupportedFeatureError,
                                 "*args, **kwargs and keyword-only parameters are not supported")
        if a.defaults:
            self.state.src.error(a.defaults[0], UnsupportedFeatureError,
                                 "parameter default values are not supported")
        names = {x.arg for x in a.posonlyargs + a.args}
        for name in self.source.overrides:
            if name not in names:
                raise ValueError(f"override for unknown parameter {name!r} of {self.name!r}")

    def _args(self) -> list[ast.arg]:
        args = self.node.args.posonlyargs + self.node.args.args
        if self.source.is_method:
            if not args or args[0].arg != "self":
                self.state.src.error(self.node, ParserSyntaxError,
                                     f"method '{self.name}' of a program must take self first")
            args = args[1:]
        return args

    def _param_entries(self, arg: ast.arg) -> list[tuple[ast.arg, ParamType]]:
        """One entry per MLIR parameter: a struct parameter gives one per scalar leaf."""
        annotation = None
        override = self.source.overrides.get(arg.arg)
        if isinstance(override, ProtocolArgument):
            return self._protocol(arg, override)
        if arg.arg not in self.source.overrides:
            annotation = annotation_object(arg, self.source.annotations, self.state.types,
                                           strict=False)
        if is_stream(annotation):
            return [(arg, self._stream(arg))]
        if is_constexpr(annotation):
            self.state.src.error(arg.annotation or arg, ParserTypeError,
                                 f"parameter '{arg.arg}' is a dc.Constexpr: its value must be "
                                 "given at compile time",
                                 hint=f"pass overrides={{'{arg.arg}': pl.ConstValue(...)}} "
                                      "(@jit does this from the argument)")
        problem = union_problem(annotation, arg.arg)
        if problem is not None:
            self.state.src.error(arg.annotation or arg, UnsupportedFeatureError, problem)
        if not is_struct(annotation):
            return [(arg, self._param_type(arg))]
        found = leaves(annotation, (arg.arg,))
        if isinstance(found, str):
            self.state.src.error(arg.annotation or arg, UnsupportedFeatureError,
                                 f"parameter '{arg.arg}': {found}")
        self.structs.append((arg, annotation))
        return list(zip(leaf_args(arg, found), [leaf.type for leaf in found], strict=True))

    def _protocol(self, arg: ast.arg,
                  override: ProtocolArgument) -> list[tuple[ast.arg, ParamType]]:
        """One MLIR parameter per IR type of the argument (see ``protocol_params``)."""
        found = ir_param_types(arg, override, self.module.context)
        if isinstance(found, str):
            self.state.src.error(arg.annotation or arg, ParserTypeError,
                                 f"parameter '{arg.arg}': {found}")
        self.protocols.append((arg, override, len(found)))
        return list(zip(protocol_leaf_args(arg, len(found)), found, strict=True))

    def _define_protocols(self, leaf_values: dict[str, TypedValue]) -> None:
        for arg, override, count in self.protocols:
            values = [leaf_values[f"{arg.arg}.{i}"] for i in range(count)]
            try:
                value = construct_protocol(arg, override, values)
            except Exception as err:  # a user's hook: located at the parameter
                self.state.src.error(arg.annotation or arg, ParserTypeError,
                                     f"parameter '{arg.arg}': {override.describe()}."
                                     f"__construct_from_ir_values__ failed: "
                                     f"{type(err).__name__}: {err}")
            self.state.scopes.define(arg.arg, value, arg)

    def _stream(self, arg: ast.arg) -> StreamType:
        if self.mode != HOST:
            what = "a @pl.kernel cannot take" if self.mode == KERNEL else \
                "only a function that launches kernels can take"
            self.state.src.error(arg.annotation or arg, UnsupportedFeatureError,
                                 f"parameter '{arg.arg}': {what} a dc.Stream",
                                 hint="a stream is passed on with k(...).launch(..., stream=s)")
        return STREAM

    def _param_type(self, arg: ast.arg) -> PlType:
        override = self.source.overrides.get(arg.arg)
        t = as_type(override) if override is not None else self._annotation(arg)
        if t is None:
            self.state.src.error(arg, ParserTypeError,
                                 f"the override of parameter '{arg.arg}' is not a DSL type: "
                                 f"{override!r}")
        if isinstance(t, TensorType) and t.shape is None:
            self.state.src.error(arg.annotation or arg, ParserTypeError,
                                 f"parameter '{arg.arg}' is {t}: "
                                 "its rank/shape must be specialized",
                                 hint="give a shape, e.g. pl.Tensor[[64, 128], pl.FP32], or "
                                      "pass a shaped type in overrides=")
        return t

    def _annotation(self, arg: ast.arg) -> PlType:
        if arg.annotation is None:
            self.state.src.error(arg, ParserTypeError,
                                 f"parameter '{arg.arg}' has no type annotation",
                                 hint=f"annotate it: {arg.arg}: pl.Tensor[[...], pl.FP32]")
        evaluated = as_type(self.source.annotations.get(arg.arg))
        if evaluated is not None:  # decorator mode: Python already evaluated it
            return evaluated
        return self.state.types.resolve(arg.annotation, f"parameter '{arg.arg}'")

    # -- pass 2: the body -------------------------------------------------------------------------
    def define(self) -> Signature:
        """Parse the body into the function; returns the final signature."""
        state, b = self.state, self.state.builder
        entry = self._entry_block()
        state.entry = entry
        with b.at(entry), b.located(self.node):
            leaf_values = {}
            for (arg, t), value in zip(self.params, entry.arguments, strict=False):
                if isinstance(t, StreamType):
                    state.scopes.define(arg.arg, StreamValue(value), arg)
                    continue
                typed = state.new(value, t, arg.arg)
                if "." in arg.arg:  # a struct leaf: reachable as an attribute of its struct
                    leaf_values[arg.arg] = typed
                else:
                    state.scopes.define(arg.arg, typed, arg)
            for arg, annotation in self.structs:
                own = [v for n, v in leaf_values.items() if n.split(".", 1)[0] == arg.arg]
                state.scopes.define(arg.arg, construct(annotation, own), arg)
            self._define_protocols(leaf_values)
            self._bind_dims(entry)
            if self.mode != FUNCTION:
                what = "a @pl.kernel" if self.mode == KERNEL else "a function that launches kernels"
                state.scopes.forbid_tensors = (
                    f"'{{name}}' would hold a tensor: in {what} only scalars can be named")
            parser = ASTParser(state)
            body = self.node.body if self.mode == FUNCTION else hoist_returns(self.node.body,
                                                                               state.src)
            returned = parser.parse_body(body)
            values = self._results(returned)
            last = self.node.body[-1] if isinstance(self.node.body[-1], ast.Return) else self.node
            self._terminate(values, last)
        ftype = ir.FunctionType.get([b.mlir_type(t) for _, t in self.params],
                                    [b.mlir_type(t) for t in self.results or []])
        self.func_op.attributes["function_type"] = ir.TypeAttr.get(ftype)
        return self.signature()

    def _bind_dims(self, entry: object) -> None:
        """Give each symbolic dimension of the parameters its value (``tensor.dim``)."""
        state = self.state
        for (arg, t), value in zip(self.params, entry.arguments, strict=False):  # type: ignore[attr-defined]
            if not isinstance(t, TensorType):
                continue
            for axis, dim in enumerate(t.shape or ()):
                if isinstance(dim, Dynamic) and dim.name and self.mode != FUNCTION:
                    state.bind_dim_lazily(dim.name, TypedValue(value, t), axis,
                                          arg.annotation or arg)
                elif isinstance(dim, Dynamic) and dim.name and dim.name not in state.dims:
                    where = arg.annotation or arg
                    with state.builder.located(where):
                        dim_value = state.read_dim(TypedValue(value, t), axis, where)
                    state.builder.info.names[dim_value.value] = dim.name
                    state.dims[dim.name] = dim_value

    def _results(self, returned: list[TypedValue] | None) -> list[TypedValue]:
        declared, src = self.declared, self.state.src
        values = returned or []
        where: ast.AST = self.node.body[-1] if returned is not None else self.node
        if declared is None:
            self.results = [v.type for v in values]
            return values
        if len(values) != len(declared):
            src.error(where, ParserTypeError,
                      f"'{self.name}' declares {len(declared)} result(s) but returns {len(values)}")
        for want, value in zip(declared, values, strict=False):
            if not types_match(want, value.type):
                src.error(where, ParserTypeError,
                          f"'{self.name}' returns {value.type} "
                          f"where its annotation declares {want}")
        self.results = [w if _shaped(w) else v.type for w, v in zip(declared, values, strict=False)]
        return values


def _shaped(t: PlType) -> bool:
    return not isinstance(t, TensorType) or t.shape is not None
