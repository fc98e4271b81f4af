"""Source coordinates: AST positions -> spans, MLIR locations and errors.

``ast`` columns are 0-based UTF-8 byte offsets; spans and MLIR locations use
1-based character columns. The conversion happens here, once. Source that was
dedented (a method, a nested function) gets its indentation added back, so
columns are those of the real file. A ``source_map`` ``{line: (file, line,
col)}`` sends a (generated) line to the user's file: the column becomes
``col`` plus the node's offset from the first non-blank character of its line.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Mapping, Sequence
from typing import NoReturn

from dsl_core.sources import definition, parse_python

from .._mlir import Location, ir
from ..errors import Note, ParserError
from ..spans import Span, read_line

SourceMap = Mapping[int, tuple[str, int, int]]
Located = ast.AST | Span


class SourceTracker:
    """Spans, locations and the one error helper for one parsed source text."""

    def __init__(
        self,
        filename: str,
        lines: Sequence[str],
        *,
        line_offset: int = 0,
        indent: str = "",
        source_map: SourceMap | None = None,
    ) -> None:
        self.filename = filename
        self.lines = list(lines)  # the text the AST was parsed from (dedented)
        self.line_offset = line_offset
        self.indent = indent
        self.source_map = dict(source_map or {})
        self._locs: dict[tuple[int, int], Location] = {}
        self._ascii = [line.isascii() for line in self.lines]
        #: (file, line, col) of every location handed out -> its full span.
        self.spans_by_loc: dict[tuple[str, int, int], Span] = {}

    # -- coordinates ---------------------------------------------------------------
    def _char_col(self, line: int, byte_col: int) -> int:
        if 0 < line <= len(self.lines) and self._ascii[line - 1]:
            return byte_col + 1 + len(self.indent)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        chars = len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))
        return chars + 1 + len(self.indent)

    def _remap(self, line: int, col: int) -> tuple[str, int, int]:
        target = self.source_map.get(line)
        if target is None:
            return self.filename, line, col
        file, orig_line, orig_col = target
        text = self.real_line(line) or ""
        first = len(text) - len(text.lstrip()) + 1
        return file, orig_line, max(orig_col + col - first, orig_col)

    def span(self, node: Located) -> Span:
        """The span of an AST node in the user's file (after dedent and source map)."""
        if isinstance(node, Span):
            return node
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        col = self._char_col(line, getattr(node, "col_offset", 0))
        end_col = self._char_col(end_line, getattr(node, "end_col_offset", None) or 0)
        file, real, rcol = self._remap(line + self.line_offset, col)
        if (file, real) != (self.filename, line + self.line_offset):
            if end_line == line:
                return Span(file, real, rcol, real, rcol + max(end_col - col, 1))
            return Span(file, real, rcol, real + end_line - line, end_col)
        return Span(file, real, col, end_line + self.line_offset, end_col)

    def keyword_span(self, node: ast.AST) -> Span:
        """The span of the first word of a statement (``while``, ``try``, ``def``)."""
        span = self.span(node)
        text = self.source_line(span) or ""
        rest = text[span.begin_column - 1:]
        word = len(rest) - len(rest.lstrip("abcdefghijklmnopqrstuvwxyz_"))
        return Span(span.filename, span.begin_line, span.begin_column, span.begin_line,
                    span.begin_column + max(word, 1))

    def real_line(self, line: int) -> str | None:
        """Line ``line`` (file numbering) of the parsed text with its indentation."""
        index = line - self.line_offset - 1
        if 0 <= index < len(self.lines):
            return self.indent + self.lines[index] if self.lines[index] else ""
        return None

    def source_line(self, span: Span) -> str | None:
        """The text of the first line of ``span`` for the caret rendering."""
        if span.filename == self.filename:
            text = self.real_line(span.begin_line)
            if text is not None:
                return text
        return read_line(span.filename, span.begin_line)

    def mentions(self, body: Sequence[ast.stmt], words: Sequence[str]) -> bool:
        """Whether the text of ``body`` (its first line to its last) contains one of
        ``words``: a cheap test before walking every node of it for a keyword's
        statement. True when the statements carry no positions."""
        first = getattr(body[0], "lineno", None) if body else None
        last = getattr(body[-1], "end_lineno", None) if body else None
        if first is None or last is None:
            return bool(body)
        return any(word in line for line in self.lines[first - 1:last] for word in words)

    # -- MLIR locations ----------------------------------------------------------
    def loc(self, node: object) -> Location:
        """A FileLineColLoc for ``node`` (cached per line and column)."""
        if isinstance(node, Span):
            return ir.Location.file(node.filename, node.begin_line, node.begin_column)
        key = (getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
        loc = self._locs.get(key)
        if loc is None:
            span = self.span(node)  # type: ignore[arg-type]
            loc = ir.Location.file(span.filename, span.begin_line, span.begin_column)
            self._locs[key] = loc
            self.spans_by_loc.setdefault((span.filename, span.begin_line, span.begin_column), span)
        return loc

    # -- errors ----------------------------------------------------------------------
    def note(self, message: str, where: Located) -> Note:
        span = self.span(where)
        return Note(message, span, self.source_line(span))

    def make_error(
        self,
        where: Located,
        cls: type[ParserError],
        message: str,
        *,
        hint: str | None = None,
        notes: Sequence[Note] = (),
    ) -> ParserError:
        span = self.span(where)
        return cls(message, span, source_line=self.source_line(span), hint=hint, notes=notes)

    def error(
        self,
        where: Located,
        cls: type[ParserError],
        message: str,
        *,
        hint: str | None = None,
        notes: Sequence[Note] = (),
    ) -> NoReturn:
        """Raise ``cls`` at ``where``: the single place the parser raises from."""
        raise self.make_error(where, cls, message, hint=hint, notes=notes)

    def internal(self, where: Located, exc: BaseException) -> ParserError:
        """An unexpected failure inside the parser, anchored at the node being parsed."""
        err = self.make_error(
            where, ParserError,
            f"internal error while parsing this code: {type(exc).__name__}: {exc}",
            hint="this is a bug in dsl-parser; please report it with this code")
        err.__cause__ = None
        err.__suppress_context__ = True
        return err


def source_of(obj: object, source_map: SourceMap | None) -> tuple[ast.AST, SourceTracker]:
    """The first definition in the source of a Python function or class (dedented), and
    its tracker (real file and line numbers). A function's lines are cut by its code's
    positions (``dsl_core.sources``), anything else's found by ``inspect``."""
    try:
        found = definition(obj)
        if found is not None:
            lines, start = found[0].splitlines(keepends=True), found[2]
        else:
            lines, start = inspect.getsourcelines(obj)  # type: ignore[arg-type]
        filename = inspect.getsourcefile(obj) or "<unknown>"  # type: ignore[arg-type]
    except (OSError, TypeError) as exc:
        raise ValueError(f"cannot read the source of {obj!r} ({exc}); "
                         "use pl.parse(code) for generated code") from None
    first = lines[0]
    indent = first[: len(first) - len(first.lstrip())]
    dedented = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines]
    text = "".join(dedented)
    tree = parse_python(text)
    src = SourceTracker(filename, text.splitlines(), line_offset=start - 1, indent=indent,
                        source_map=source_map)
    return tree.body[0], src
