"""Helpers of the kernel tests: parse DSL text with kernels, walk and check the IR."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from pathlib import Path

import dsl_mlir
import pytest

import dsl_parser.language as pl
from dsl_parser import Function, ParserError

HEADER = "import dsl_parser.language as pl\nimport dsl_core as dc\n"


def parse_text(code: str) -> Function:
    """Parse dedented DSL text (``pl`` and ``dc`` imported on lines 1-2) and check the module."""
    fn = pl.parse(HEADER + textwrap.dedent(code).lstrip("\n"))
    assert isinstance(fn, Function)
    check_module(fn)
    return fn


def check_module(fn: Function) -> None:
    """The module verifies and round-trips through MLIR's own parser."""
    fn.module.operation.verify()
    with fn.context:
        dsl_mlir.verify(fn.module)
        again = dsl_mlir.parse_module(str(fn.module))
        dsl_mlir.verify(again)
    assert str(again) == str(fn.module)


def raises_at(cls: type[ParserError], code: str, line: int, words: Iterable[str] = (), *,
              col: int) -> ParserError:
    """Parse text expecting ``cls`` at ``line:col`` (the line counted in ``code`` from 1 after
    the header lines) whose message has every one of ``words``."""
    with pytest.raises(cls) as info:
        pl.parse(HEADER + textwrap.dedent(code).lstrip("\n"))
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err}"
    assert err.span is not None
    assert (err.span.begin_line, err.span.begin_column) == (line + 2, col), str(err)
    for word in words:
        assert word in err.message, (word, err.message)
    assert f"--> {err.span.filename}:{line + 2}:{col}" in str(err)
    return err


def line_of(module_file: str, marker: str) -> tuple[int, int]:
    """(line, column) of the first occurrence of ``marker`` in a file (1-based)."""
    lines = Path(module_file).read_text(encoding="utf-8").splitlines()
    for number, text in enumerate(lines, 1):
        if marker in text:
            return number, text.index(marker) + 1
    raise AssertionError(f"{marker!r} not in {module_file}")


def walk(fn: Function) -> list[object]:
    """Every op of the module, in order (nested regions included)."""
    found: list[object] = []

    def visit(op: object) -> None:
        for region in op.regions:  # type: ignore[attr-defined]
            for block in region.blocks:
                for inner in block.operations:
                    found.append(inner)
                    visit(inner.operation)

    visit(fn.module.operation)
    return found


def ops_named(fn: Function, name: str) -> list[object]:
    return [op for op in walk(fn) if op.operation.name == name]  # type: ignore[attr-defined]


def names(fn: Function) -> list[str]:
    return [op.operation.name for op in walk(fn)]  # type: ignore[attr-defined]


def gpu_funcs(fn: Function) -> dict[str, object]:
    """The gpu.func ops by symbol."""
    return {op.attributes["sym_name"].value: op  # type: ignore[attr-defined]
            for op in ops_named(fn, "gpu.func")}


def arg_types(op: object) -> list[str]:
    """The argument types of a function-like op's entry block."""
    return [str(a.type) for a in op.regions[0].blocks[0].arguments]  # type: ignore[attr-defined]


def launches(fn: Function) -> list[object]:
    return ops_named(fn, "gpu.launch_func")


def kernel_symbol(launch: object) -> str:
    return str(launch.attributes["kernel"])  # type: ignore[attr-defined]


def owner_name(value: object) -> str:
    """The op name defining ``value`` (``block_arg`` for block arguments)."""
    owner = value.owner  # type: ignore[attr-defined]
    return getattr(owner, "name", None) or "block_arg"


def constant_value(value: object) -> int | None:
    """The integer of an ``arith.constant`` operand, else None."""
    owner = value.owner  # type: ignore[attr-defined]
    if getattr(owner, "name", None) != "arith.constant":
        return None
    return int(str(owner.attributes["value"]).split(":")[0])


def launch_config(launch: object) -> tuple[list[object], list[object], list[object], object]:
    """(grid operands, block operands, kernel operands, async object or None)."""
    view = launch.opview  # type: ignore[attr-defined]
    grid = [view.gridSizeX, view.gridSizeY, view.gridSizeZ]
    block = [view.blockSizeX, view.blockSizeY, view.blockSizeZ]
    return grid, block, list(view.kernelOperands), view.asyncObject


def enclosing(op: object, name: str) -> object:
    """The nearest ancestor operation of ``op`` called ``name``."""
    parent = op.operation.parent  # type: ignore[attr-defined]
    while parent is not None and parent.name != name:
        parent = parent.parent
    assert parent is not None, f"no enclosing {name}"
    return parent
