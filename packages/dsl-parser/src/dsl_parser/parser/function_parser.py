"""One ``func.func`` from one ``def``: signature first (pass 1), then the body (pass 2).

Parameters are resolved in order with the overrides applied: a DSL type
replaces the annotation, a ``ConstValue`` removes the parameter from the
signature and binds its name to a compile-time constant. The declared
results (if any) are checked against the ``return``; an unshaped declared
tensor result takes the returned shape.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

from .._mlir import Module, Operation, func, ir
from ..errors import ParserSyntaxError, ParserTypeError, UnsupportedFeatureError
from ..function import Param, Signature
from ..types import ConstValue, Dynamic, PlType, TensorType, types_match
from ..values import TypedValue, ValueInfo
from .ast_parser import ASTParser
from .builder import IRBuilder
from .evaluator import Evaluator
from .scopes import ScopeManager
from .source import SourceTracker
from .state import Callee, ParserState, Symbols
from .structs import assemble, is_struct, leaf_args, leaves
from .type_resolver import as_type


@dataclass
class FunctionSource:
    """A ``def`` and what its names resolve against."""

    node: ast.FunctionDef
    src: SourceTracker
    evaluator: Evaluator
    annotations: Mapping[str, object] = field(default_factory=dict)
    overrides: Mapping[str, object] = field(default_factory=dict)
    strict: bool = True
    is_method: bool = False


class FunctionParser:
    """Declares and then defines one function of a module."""

    def __init__(self, source: FunctionSource, module: Module, info: ValueInfo,
                 symbols: Symbols | None = None) -> None:
        self.source = source
        self.node = source.node
        self.module = module
        builder = IRBuilder(module.context, info, source.src.loc)
        scopes = ScopeManager(source.src, source.strict)
        self.state = ParserState(source.src, builder, scopes, source.evaluator, source.strict,
                                 program=symbols, self_name="self" if source.is_method else None)
        self.params: list[tuple[ast.arg, PlType]] = []
        self.structs: list[tuple[ast.arg, object]] = []  # struct parameters (annotation)
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
        if self.declared is not None and all(_shaped(t) for t in self.declared):
            self.results = list(self.declared)
        b = self.state.builder
        ftype = ir.FunctionType.get([b.mlir_type(t) for _, t in self.params],
                                    [b.mlir_type(t) for t in self.results or []])
        self.func_op = func.FuncOp(self.name, ftype, loc=self.state.src.loc(self.node),
                                   ip=ir.InsertionPoint(self.module.body))
        return self.callee()

    def callee(self) -> Callee:
        return Callee(self.name, [(a.arg, t) for a, t in self.params], self.results)

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

    def _param_entries(self, arg: ast.arg) -> list[tuple[ast.arg, PlType]]:
        """One entry per MLIR parameter: a struct parameter gives one per scalar leaf."""
        annotation = self.source.annotations.get(arg.arg)
        if isinstance(annotation, str) and isinstance(arg.annotation, ast.Name):
            annotation = self.source.evaluator.resolve(arg.annotation.id)  # postponed annotations
        if arg.arg in self.source.overrides or not is_struct(annotation):
            return [(arg, self._param_type(arg))]
        found = leaves(annotation, (arg.arg,))
        if isinstance(found, str):
            self.state.src.error(arg.annotation or arg, UnsupportedFeatureError,
                                 f"parameter '{arg.arg}': {found}")
        self.structs.append((arg, annotation))
        return list(zip(leaf_args(arg, found), [leaf.type for leaf in found], strict=True))

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
        entry = self.func_op.add_entry_block([state.src.loc(a) for a, _ in self.params])
        with b.at(entry), b.located(self.node):
            leaf_values = {}
            for (arg, t), value in zip(self.params, entry.arguments, strict=False):
                typed = state.new(value, t, arg.arg)
                if "." in arg.arg:  # a struct leaf: reachable as an attribute of its struct
                    leaf_values[arg.arg] = typed
                else:
                    state.scopes.define(arg.arg, typed, arg)
            for arg, annotation in self.structs:
                state.scopes.define(arg.arg, assemble(annotation, (arg.arg,), leaf_values), arg)
            self._bind_dims(entry)
            parser = ASTParser(state)
            returned = parser.parse_body(self.node.body)
            values = self._results(returned)
            last = self.node.body[-1] if isinstance(self.node.body[-1], ast.Return) else self.node
            func.ReturnOp([v.value for v in values], loc=state.src.loc(last), ip=b.ip)
        ftype = ir.FunctionType.get([b.mlir_type(t) for _, t in self.params],
                                    [b.mlir_type(t) for t in self.results or []])
        self.func_op.attributes["function_type"] = ir.TypeAttr.get(ftype)
        return Signature([Param(a.arg, t) for a, t in self.params], list(self.results or []))

    def _bind_dims(self, entry: object) -> None:
        """Give each symbolic dimension of the parameters its value (``tensor.dim``)."""
        state = self.state
        for (arg, t), value in zip(self.params, entry.arguments, strict=False):  # type: ignore[attr-defined]
            if not isinstance(t, TensorType):
                continue
            for axis, dim in enumerate(t.shape or ()):
                if isinstance(dim, Dynamic) and dim.name and dim.name not in state.dims:
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
