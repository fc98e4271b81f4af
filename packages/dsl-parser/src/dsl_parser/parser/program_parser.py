"""Modules: one function, or a program class with one ``func.func`` per method.

Two passes: every signature is declared first, so calls may go forward; then
the bodies are parsed. A function called before its body was parsed and
without declared results is parsed on demand (recursion then needs an
annotation). The module is verified at the end; a verifier failure is
reported at the Python line of the op it is about.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .._mlir import Context, Module, ir
from ..errors import ParserTypeError, UndefinedVariableError
from ..function import Function, Program, Signature
from ..values import ValueInfo
from .diagnostics import verify_module
from .function_parser import FunctionParser, FunctionSource
from .kernel_parser import ModuleKernels
from .source import SourceTracker
from .state import HOST, Callee


class ModuleParser:
    """Declares, defines and verifies the functions of one module (the program's Symbols)."""

    def __init__(self, ctx: Context, sources: Sequence[FunctionSource],
                 name: str | None = None) -> None:
        self.ctx = ctx
        self.info = ValueInfo()
        self.trackers: list[SourceTracker] = []
        for source in sources:
            if source.src not in self.trackers:
                self.trackers.append(source.src)
        self.sources = sources
        self.module_name = name
        self.parsers: dict[str, FunctionParser] = {}
        self.signatures: dict[str, Signature] = {}
        self._in_progress: list[str] = []

    def parse(self) -> tuple[Module, dict[str, Function]]:
        with self.ctx, ir.Location.unknown(self.ctx):
            module = ir.Module.create()
            if self.module_name:
                module.operation.attributes["sym_name"] = ir.StringAttr.get(self.module_name)
            symbols = self if self.module_name else None
            kernels = ModuleKernels(module, self.info, self.trackers)
            for source in self.sources:
                parser = FunctionParser(source, module, self.info, symbols, kernels)
                if parser.name in self.parsers:
                    source.src.error(source.node, ParserTypeError,
                                     f"function '{parser.name}' is defined twice")
                self.parsers[parser.name] = parser
                parser.declare()
            for name in self.parsers:
                self._define(name)
            verify_module(module, self.trackers)
        functions = {name: Function(name, module, self.signatures[name],
                                    dict(parser.constants), self.info, self.trackers,
                                    host=parser.mode == HOST,
                                    kernels=tuple(parser.state.launched))
                     for name, parser in self.parsers.items()}
        return module, functions

    def _define(self, name: str) -> None:
        if name not in self.signatures:
            self._in_progress.append(name)
            self.signatures[name] = self.parsers[name].define()
            self._in_progress.pop()

    def callee(self, name: str, where: ast.AST) -> Callee:
        """The target of ``self.<name>(...)`` (parsing it first if its results are unknown)."""
        parser = self.parsers.get(name)
        src = self.sources[0].src
        if parser is None:
            src.error(where, UndefinedVariableError,
                      f"program {self.module_name} has no function '{name}'",
                      hint=f"its functions are: {', '.join(self.parsers)}")
        if parser.results is None:
            if name in self._in_progress:
                src.error(where, ParserTypeError,
                          f"the result types of '{name}' are needed before its return is parsed",
                          hint=f"annotate the results of '{name}' (-> pl.Tensor[...])")
            self._define(name)
        return parser.callee()


def build_function(ctx: Context, source: FunctionSource) -> Function:
    """Parse one function into its own module."""
    _, functions = ModuleParser(ctx, [source]).parse()
    return functions[source.node.name]


def build_program(ctx: Context, name: str, sources: Sequence[FunctionSource]) -> Program:
    """Parse the methods of a program class into one module."""
    parser = ModuleParser(ctx, sources, name)
    module, functions = parser.parse()
    program = Program(name, module, functions, parser.info, parser.trackers)
    for function in functions.values():
        function.program = program
    return program
