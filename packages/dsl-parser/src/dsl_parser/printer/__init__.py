"""IR -> DSL source: ``Function.as_python()`` / ``Program.as_python()``.

The output uses the subscript type notation, parses back to a structurally
equal module, and print -> parse -> print is a fixed point. ``concise=True``
omits the annotations of intermediate values (parameters and results keep
theirs).
"""

from __future__ import annotations

from collections.abc import Iterable

from .._mlir import Operation, ir
from ..extensions.registry import NAMESPACES
from ..function import Function, Program
from ..ops import BY_MLIR_NAME
from ..types import Dynamic, PlType, StreamType, TensorType, from_mlir
from .function_printer import INDENT, FunctionPrinter

HEADER = "import dsl_parser.language as pl"


def _dynamic_names(types: Iterable[PlType]) -> list[str]:
    names: dict[str, None] = {}
    for t in types:
        if isinstance(t, TensorType):
            for dim in t.shape or ():
                if isinstance(dim, Dynamic) and dim.name is not None:
                    names.setdefault(dim.name, None)
    return list(names)


def _name_anonymous(types: list[PlType]) -> list[PlType]:
    """Parameters read from bare MLIR have unnamed ``?`` sizes: call them D0, D1, ..."""
    counter = iter(range(1 << 30))
    named: list[PlType] = []
    for t in types:
        if isinstance(t, TensorType) and t.shape is not None:
            shape = tuple(Dynamic(f"D{next(counter)}") if isinstance(d, Dynamic) and d.name is None
                          else d for d in t.shape)
            t = TensorType(shape, t.dtype)
        named.append(t)
    return named


def _function_lines(fn: Function, concise: bool, method: bool, reserved: set[str]) -> list[str]:
    op = fn.func_op
    entry = op.regions[0].blocks[0]
    params = fn.signature.params
    names = [p.name for p in params] or [f"arg{i}" for i in range(len(entry.arguments))]
    types = _name_anonymous([p.type for p in params if not isinstance(p.type, StreamType)]
                            or [from_mlir(a.type) for a in entry.arguments])
    printer = FunctionPrinter(op, fn.info, names, types, fn.signature.results, concise, method,
                              reserved)
    return printer.print()


def _dims_of(functions: Iterable[Function]) -> list[str]:
    types: list[PlType] = []
    for fn in functions:
        types += [p.type for p in fn.signature.params if not isinstance(p.type, StreamType)]
        types += list(fn.signature.results)
        types += list(fn.info.types.values())
    return _dynamic_names(types)


def _imports(functions: Iterable[Function]) -> list[str]:
    """``import dsl_parser.language as pl`` and one import per extension namespace used."""
    aliases: set[str] = set()

    def visit(op: Operation) -> object:
        rule = BY_MLIR_NAME.get(op.name)
        if rule is not None and rule.namespace != "pl":
            aliases.add(rule.namespace)
        return ir.WalkResult.ADVANCE

    for fn in functions:
        fn.func_op.operation.walk(visit)
    return [HEADER] + [f"import {NAMESPACES[alias]} as {alias}" for alias in sorted(aliases)]


def _module_text(dims: list[str], body: list[str], imports: list[str]) -> str:
    lines = [*imports, ""]
    lines += [f'{d} = pl.dynamic("{d}")' for d in dims]
    lines += ["", ""] if dims else [""]
    return "\n".join(lines + body) + "\n"


def _no_kernels(functions: Iterable[Function]) -> None:
    for fn in functions:
        if fn.host:
            raise NotImplementedError(
                f"'{fn.name}' launches kernels: printing kernels and launches back to Python "
                "is not supported (str(fn) is the MLIR)")


def print_function(fn: Function, concise: bool = False) -> str:
    """A ``@pl.function`` module for ``fn`` (a program member prints as its method)."""
    _no_kernels([fn])
    dims = _dims_of([fn])
    lines = _function_lines(fn, concise, fn.program is not None, set(dims))
    if fn.program is not None:
        return "\n".join(lines) + "\n"
    return _module_text(dims, lines, _imports([fn]))


def print_program(program: Program, concise: bool = False) -> str:
    """A ``@pl.program`` class with one method per function."""
    _no_kernels(program.functions.values())
    dims = _dims_of(program.functions.values())
    body = ["@pl.program", f"class {program.name}:"]
    for i, fn in enumerate(program.functions.values()):
        if i:
            body.append("")
        body += [INDENT + line if line else line
                 for line in _function_lines(fn, concise, True, set(dims))]
    return _module_text(dims, body, _imports(program.functions.values()))
