"""MLIR diagnostics as Python exceptions."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO


@dataclass(frozen=True)
class Diagnostic:
    """One MLIR diagnostic with its location split out when it is a file location."""

    severity: str
    message: str
    location: str
    filename: str | None = None
    line: int | None = None
    column: int | None = None
    notes: tuple[Diagnostic, ...] = field(default=())

    def __str__(self) -> str:
        text = f"{self.location}: {self.severity}: {self.message}"
        for note in self.notes:
            text += f"\n  {note}"
        return text


class MLIRDiagnosticError(RuntimeError):
    """Invalid IR, a bad pipeline or a failing pass, with MLIR's diagnostics."""

    def __init__(self, summary: str, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
        self.summary = summary
        self.diagnostics = tuple(diagnostics)
        lines = [summary] + [str(d) for d in self.diagnostics]
        super().__init__("\n".join(lines))


class PluginError(RuntimeError):
    """A plugin library that ``dsl_mlir.load_plugin`` refuses; the message says why."""


def _file_location(loc: Any) -> tuple[str | None, int | None, int | None]:
    """(file, line, col) of a FileLineColLoc, or of the first one inside a callsite/fused/name loc."""
    try:
        if loc.is_a_file():
            return str(loc.filename), int(loc.start_line), int(loc.start_col)
        if loc.is_a_name():
            return _file_location(loc.child_loc)
        if loc.is_a_callsite():
            return _file_location(loc.callee)
        if loc.is_a_fused():
            for sub in loc.locations:
                found = _file_location(sub)
                if found[0] is not None:
                    return found
    except Exception:  # pragma: no cover - unknown location kinds
        pass
    return None, None, None


def diagnostic_from_mlir(info: Any) -> Diagnostic:
    """Convert an upstream ``DiagnosticInfo`` (or Diagnostic) to ours."""
    severity = str(info.severity).rsplit(".", 1)[-1].lower()
    filename, line, column = _file_location(info.location)
    notes = tuple(diagnostic_from_mlir(n) for n in info.notes)
    return Diagnostic(severity, str(info.message), str(info.location), filename, line, column, notes)


def from_mlir_error(summary: str, err: Any) -> MLIRDiagnosticError:
    """Wrap an upstream ``ir.MLIRError``."""
    diags = [diagnostic_from_mlir(d) for d in getattr(err, "error_diagnostics", [])]
    if not diags:
        diags = [Diagnostic("error", str(err), "unknown")]
    return MLIRDiagnosticError(summary, diags)


_stderr_lock = threading.Lock()


def _sink() -> BinaryIO:
    """An anonymous read-write file for the captured text: a memfd where the OS has one
    (no import of ``tempfile``, whose ``shutil``/``bz2``/``random`` imports cost 4-5 ms
    of a fresh process's first compile), else a temporary file."""
    if hasattr(os, "memfd_create"):
        try:
            return os.fdopen(os.memfd_create("dsl-stderr", os.MFD_CLOEXEC), "w+b")
        except OSError:  # e.g. a seccomp filter without memfd_create
            pass
    import tempfile

    return tempfile.TemporaryFile()


@contextmanager
def capture_stderr() -> Iterator[list[str]]:
    """Collect what native code writes to file descriptor 2 inside the block.

    LLVM reports some failures only by printing (ORC's "JIT session error: Symbols
    not found: [...]"); this turns that text into data for the exception. The text
    is handed out as the single item of the yielded list after the block and is also
    written back to the real stderr, so nothing is swallowed.
    """
    printed: list[str] = []
    with _stderr_lock, _sink() as sink:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield printed
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text = sink.read(1 << 20).decode(errors="replace")
            printed.append(text)
            if text:
                sys.stderr.write(text)
                sys.stderr.flush()
