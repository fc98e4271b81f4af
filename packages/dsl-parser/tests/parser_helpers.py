"""Shared helpers: parse DSL text, assert an error's class, words and line:col."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

import pytest

import dsl_parser.language as pl
from dsl_parser import Function, ParserError, Program


def dsl(code: str, **kwargs: object) -> Function | Program:
    """Parse dedented DSL text (``import dsl_parser.language as pl`` is implied)."""
    return pl.parse(textwrap.dedent(code), **kwargs)  # type: ignore[arg-type]


def fn(code: str, **kwargs: object) -> Function:
    result = dsl(code, **kwargs)
    assert isinstance(result, Function)
    return result


def raises_at(cls: type[ParserError], code: str, line: int, col: int,
              words: Iterable[str] = (), **kwargs: object) -> ParserError:
    """Parse ``code`` expecting ``cls`` at ``line:col`` whose message has ``words``."""
    with pytest.raises(cls) as info:
        dsl(code, **kwargs)
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err}"
    assert err.span is not None
    assert (err.span.begin_line, err.span.begin_column) == (line, col), str(err)
    for word in words:
        assert word in err.message, (word, err.message)
    assert f"--> {err.span.filename}:{line}:{col}" in str(err)
    return err


def ops_of(function: Function | Program) -> list[str]:
    """Names of every op in the module, in order (nested regions included)."""
    names: list[str] = []

    def walk(op: object) -> None:
        for region in op.regions:  # type: ignore[attr-defined]
            for block in region.blocks:
                for inner in block.operations:
                    names.append(inner.operation.name)
                    walk(inner.operation)

    walk(function.module.operation)
    return names
