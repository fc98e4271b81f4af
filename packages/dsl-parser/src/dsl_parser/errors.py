"""The ParserError family: every error points at the user's source.

``str(err)`` is the message, the ``--> file:line:col`` location, the source
line with a caret under the offending text, the notes and an optional hint.
The parser raises them through one helper (``SourceTracker.error``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .spans import Span, render


@dataclass(frozen=True)
class Note:
    """A secondary location attached to an error (e.g. a previous definition)."""

    message: str
    span: Span | None
    source_line: str | None = None


class ParserError(Exception):
    """Base class of every error the parser reports; ``.span`` locates it."""

    def __init__(
        self,
        message: str,
        span: Span | None = None,
        *,
        source_line: str | None = None,
        hint: str | None = None,
        notes: Sequence[Note] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.source_line = source_line
        self.hint = hint
        self.notes = tuple(notes)

    def render(self) -> str:
        """The full report: message, location, source line, caret, notes, hint."""
        lines = [self.message, *render(self.span, self.source_line)]
        for note in self.notes:
            lines.append(f"note: {note.message}")
            lines.extend(render(note.span, note.source_line))
        if self.hint:
            lines.append(f"   = hint: {self.hint}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (type(self), self.message, self.span, self.source_line,
                           self.hint, self.notes))


def _rebuild(cls: type[ParserError], message: str, span: Span | None, source_line: str | None,
             hint: str | None, notes: tuple[Note, ...]) -> ParserError:
    return cls(message, span, source_line=source_line, hint=hint, notes=notes)


class ParserSyntaxError(ParserError, SyntaxError):
    """Malformed Python or DSL syntax (also a ``SyntaxError``)."""

    def __init__(
        self,
        message: str,
        span: Span | None = None,
        *,
        source_line: str | None = None,
        hint: str | None = None,
        notes: Sequence[Note] = (),
    ) -> None:
        super().__init__(message, span, source_line=source_line, hint=hint, notes=notes)
        if span is not None:
            self.filename, self.lineno = span.filename, span.begin_line
            self.offset = span.begin_column
            self.text = self.source_line
        self.msg = message

    def __str__(self) -> str:
        return self.render()


class ParserTypeError(ParserError):
    """A type annotation that does not hold, or operands of the wrong type or shape."""


class UndefinedVariableError(ParserError):
    """A name that is defined nowhere (function, closure, globals)."""


class SSAViolationError(ParserError):
    """A second assignment to a name in strict SSA mode (a note points at the first)."""


class ScopeIsolationError(ParserError):
    """A value defined in an inner scope used outside it without a ``pl.yield_``."""


class UnsupportedFeatureError(ParserError):
    """A Python construct the DSL does not support (while, try, lambda, ...)."""


class InvalidOperationError(ParserError):
    """An unknown ``pl.<op>``, bad arguments to an op, or IR that fails MLIR verification."""


__all__ = [
    "InvalidOperationError",
    "Note",
    "ParserError",
    "ParserSyntaxError",
    "ParserTypeError",
    "SSAViolationError",
    "ScopeIsolationError",
    "Span",
    "UndefinedVariableError",
    "UnsupportedFeatureError",
]
