"""What the parser returns: ``Function`` and ``Program``, wrapping a verified MLIR module."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._mlir import Context, MLIRDiagnosticError, Module, Operation
from .errors import ParserError
from .types import ParamType, PlType
from .values import ValueInfo

if TYPE_CHECKING:
    from .kernel import KernelSpecialization
    from .parser.source import SourceTracker


@dataclass(frozen=True)
class Param:
    """One parameter of the MLIR signature (after overrides); a ``dc.Stream`` parameter
    of a host function has the type ``StreamType``."""

    name: str
    type: ParamType


@dataclass(frozen=True)
class Signature:
    """Parameters (in order, compile-time constants removed) and result types."""

    params: list[Param]
    results: list[PlType]

    def __str__(self) -> str:
        params = ", ".join(f"{p.name}: {p.type}" for p in self.params)
        results = ", ".join(str(r) for r in self.results)
        return f"({params}) -> ({results})"


@dataclass(eq=False)
class Function:
    """A DSL function: ``module`` holds its ``func.func`` (for a program member, the
    program's module). ``str(fn)`` is the MLIR text.

    ``host`` is True for a function that launches kernels (its tensor parameters are
    memrefs, it returns nothing); ``kernels`` are the ``gpu.func`` specializations it
    launches, in order of their first launch.
    """

    name: str
    module: Module
    signature: Signature
    constants: dict[str, object] = field(default_factory=dict)
    info: ValueInfo = field(default_factory=ValueInfo, repr=False)
    sources: Sequence[SourceTracker] = field(default=(), repr=False)
    program: Program | None = field(default=None, repr=False)
    host: bool = False
    kernels: tuple[KernelSpecialization, ...] = ()
    #: The Python function it was parsed from (None for text): what the interpreter runs.
    python: object = field(default=None, repr=False)

    @property
    def context(self) -> Context:
        return self.module.context

    @property
    def func_op(self) -> Operation:
        """The ``func.func`` operation of this function."""
        for op in self.module.body.operations:
            if op.operation.name == "func.func" and op.sym_name.value == self.name:
                return op
        raise LookupError(f"no func.func @{self.name} in the module")

    def as_python(self, concise: bool = False) -> str:
        """DSL source that parses back to a structurally equal module.

        NotImplementedError for a function that launches kernels (kernels and launches
        are not printed back)."""
        from .printer import print_function

        return print_function(self, concise=concise)

    def error_from_mlir(self, err: MLIRDiagnosticError) -> ParserError:
        """A ParserError at the Python line of the op an MLIR diagnostic is about
        (for failures of passes run later on this module)."""
        from .parser.diagnostics import error_from_diagnostics

        return error_from_diagnostics(err, self.sources)

    def __str__(self) -> str:
        return str(self.module)


@dataclass(eq=False)
class Program:
    """A DSL program: one module, one ``func.func`` per method."""

    name: str
    module: Module
    functions: dict[str, Function] = field(default_factory=dict)
    info: ValueInfo = field(default_factory=ValueInfo, repr=False)
    sources: Sequence[SourceTracker] = field(default=(), repr=False)
    #: The Python class it was parsed from (None for text): what the interpreter runs.
    python: object = field(default=None, repr=False)

    @property
    def context(self) -> Context:
        return self.module.context

    def get_function(self, name: str) -> Function:
        """The function ``name`` of the program."""
        try:
            return self.functions[name]
        except KeyError:
            raise KeyError(f"program {self.name} has no function {name!r}; it has: "
                           f"{', '.join(self.functions)}") from None

    def as_python(self, concise: bool = False) -> str:
        """A ``@pl.program`` class that parses back to a structurally equal module
        (NotImplementedError when a function of it launches kernels)."""
        from .printer import print_program

        return print_program(self, concise=concise)

    def error_from_mlir(self, err: MLIRDiagnosticError) -> ParserError:
        from .parser.diagnostics import error_from_diagnostics

        return error_from_diagnostics(err, self.sources)

    def __str__(self) -> str:
        return str(self.module)
