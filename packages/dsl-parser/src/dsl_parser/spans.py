"""Source spans and their rendering with a caret under the offending text.

Coordinates are 1-based lines and 1-based *character* columns (not UTF-8
bytes); ``end_column`` is exclusive (one past the last character), so a span
over ``foo`` starting at column 5 ends at column 8. The rendering follows
xDSL's ``Span.print_with_context``::

      --> kernel.py:8:13
       |
     8 |     scores = pl.matmull(q, k)
       |              ^^^^^^^^^^
       = hint: did you mean pl.matmul?
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """A region of a source file."""

    filename: str
    begin_line: int
    begin_column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.begin_line}:{self.begin_column}"

    def is_valid(self) -> bool:
        """Lines and columns are 1-based: anything smaller is a missing location."""
        return self.begin_line >= 1 and self.begin_column >= 1


def read_line(filename: str, line: int) -> str | None:
    """Line ``line`` of a real file (through linecache), or None."""
    if filename.startswith("<"):
        return None
    text = linecache.getline(filename, line)
    return text.rstrip("\r\n") if text else None


def _caret_line(source_line: str, span: Span) -> str:
    """Spaces (tabs kept, so the caret lines up) then one caret per spanned character."""
    start = max(span.begin_column - 1, 0)
    if span.end_line == span.begin_line:
        stop = max(span.end_column - 1, start + 1)
    else:
        stop = max(len(source_line.rstrip()), start + 1)
    prefix = "".join("\t" if ch == "\t" else " " for ch in source_line[:start])
    return prefix + "^" * (stop - start)


def render(span: Span | None, source_line: str | None, label: str = "") -> list[str]:
    """The ``--> file:line:col`` block with the source line and the caret."""
    if span is None:
        return []
    lines = [f"  --> {span}" + (f" ({label})" if label else "")]
    if source_line is None:
        return lines
    number = str(span.begin_line)
    gutter = " " * len(number)
    lines.append(f" {gutter} |")
    lines.append(f" {number} | {source_line}")
    lines.append(f" {gutter} | {_caret_line(source_line, span)}")
    return lines
