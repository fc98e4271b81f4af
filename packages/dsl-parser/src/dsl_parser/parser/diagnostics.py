"""MLIR diagnostics -> ParserErrors at the Python line of the failing op."""

from __future__ import annotations

from collections.abc import Sequence

from .._mlir import MLIRDiagnosticError, Module, verify
from ..errors import InvalidOperationError, Note, ParserError
from ..spans import Span, read_line
from .source import SourceTracker


def _span(trackers: Sequence[SourceTracker], file: str, line: int,
          col: int) -> tuple[Span, str | None]:
    for tracker in trackers:
        span = tracker.spans_by_loc.get((file, line, col))
        if span is not None:
            return span, tracker.source_line(span)
    span = Span(file, line, col, line, col + 1)
    for tracker in trackers:
        if tracker.filename == file:
            return span, tracker.source_line(span)
    return span, read_line(file, line)


def error_from_diagnostics(err: MLIRDiagnosticError, trackers: Sequence[SourceTracker],
                           summary: str = "invalid IR") -> ParserError:
    """The first located diagnostic as an InvalidOperationError (the others as notes)."""
    diagnostics = list(getattr(err, "diagnostics", ()))
    located = [d for d in diagnostics if d.filename is not None and d.line is not None]
    if not located:
        return InvalidOperationError(f"{summary}: {err}")
    first = located[0]
    span, line = _span(trackers, first.filename, first.line, first.column or 1)
    notes = []
    for diag in [*first.notes, *located[1:]]:
        if diag.message.startswith("see current operation"):
            continue
        if diag.filename is not None and diag.line is not None:
            note_span, note_line = _span(trackers, diag.filename, diag.line, diag.column or 1)
            notes.append(Note(diag.message, note_span, note_line))
        else:
            notes.append(Note(diag.message, None))
    return InvalidOperationError(f"{summary}: {first.message}", span, source_line=line,
                                 notes=notes,
                                 hint="the MLIR verifier rejected the operation built "
                                      "for this line")


def verify_module(module: Module, trackers: Sequence[SourceTracker]) -> None:
    """Run the MLIR verifier; failures become errors at the user's line."""
    try:
        verify(module)
    except MLIRDiagnosticError as err:
        raise error_from_diagnostics(err, trackers) from None
