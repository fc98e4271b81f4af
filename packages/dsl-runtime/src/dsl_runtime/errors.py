"""Compile failures rendered at the user's Python line."""

from __future__ import annotations

import linecache


class CompileError(RuntimeError):
    """Lowering or JIT compilation failed; points at the user's line when MLIR knows it."""

    def __init__(self, message: str, filename: str | None = None, line: int | None = None,
                 column: int | None = None, details: str = "") -> None:
        self.filename, self.line, self.column = filename, line, column
        parts = [message]
        if filename and line:
            parts.append(f"  --> {filename}:{line}:{column or 1}")
            source = linecache.getline(filename, line).rstrip("\n")
            if source:
                parts.append(f"   | {source}")
                parts.append("   | " + " " * max((column or 1) - 1, 0) + "^")
        if details:
            parts.append(details)
        super().__init__("\n".join(parts))


def from_mlir(summary: str, err: BaseException) -> CompileError:
    """A CompileError from a dsl_mlir.MLIRDiagnosticError (first located diagnostic)."""
    diags = getattr(err, "diagnostics", ())
    located = next((d for d in diags if d.filename and d.line), None)
    details = "\n".join(str(d) for d in diags)
    if located is None:
        return CompileError(f"{summary}: {err}", details="")
    return CompileError(f"{summary}: {located.message}", located.filename, located.line,
                        located.column, details)
