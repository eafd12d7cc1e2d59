"""Editing rules text in place.

The editor changes counters and scenario setups by editing the rows of the
tables that declare them, so that everything else in a rules file stays
byte-identical: a row is re-written aligned to its table's header, a new row
is inserted after an existing one, a deleted row loses its line.  Nothing
here imports Qt.

An *edit* is ``(start, end, new_text)`` on a string (offsets in characters);
:func:`apply_edits` applies several non-overlapping edits at once and
:func:`invert_edits` gives the edits that undo them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from dsl.ast import File, Row, Statement, Table
from dsl.parser import parse

Edit = tuple[int, int, str]

ATOM = re.compile(r'[^\s{}"#;=\\]+')


def quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def cell(value: str, *, quoted: bool = False) -> str:
    """A table cell for ``value``: ``-`` when empty, an atom when it can be
    one, otherwise a quoted string (``quoted`` forces quotes, as names use)."""
    value = value.strip() if not quoted else value
    if value == "" or value == "-":
        return "-"
    if not quoted and ATOM.fullmatch(value):
        return value
    return quote(value)


class Lines:
    """Line offsets of a text (lines count from 1, as spans do)."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __len__(self) -> int:
        return len(self.starts)

    def start(self, line: int) -> int:
        return self.starts[line - 1]

    def end(self, line: int) -> int:
        """Offset just after the line's newline (or the end of the text)."""
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def content_end(self, line: int) -> int:
        e = self.end(line)
        return e - 1 if e > self.start(line) and self.text[e - 1] == "\n" else e

    def line(self, line: int) -> str:
        return self.text[self.start(line):self.content_end(line)]

    def offset(self, line: int, col: int) -> int:
        """Offset of a 1-based (line, col); clamped to the line."""
        if line < 1:
            return 0
        if line > len(self.starts):
            return len(self.text)
        return min(self.start(line) + max(col, 1) - 1, self.content_end(line))

    def position(self, offset: int) -> tuple[int, int]:
        import bisect
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    out = text
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + new + out[end:]
    return out


def invert_edits(text: str, edits: Iterable[Edit]) -> list[Edit]:
    """Edits that turn ``apply_edits(text, edits)`` back into ``text``."""
    inv = []
    shift = 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        inv.append((start + shift, start + shift + len(new), text[start:end]))
        shift += len(new) - (end - start)
    return inv


def diff_edit(old: str, new: str) -> Edit | None:
    """The one edit (common prefix and suffix kept) that turns old into new."""
    if old == new:
        return None
    n = min(len(old), len(new))
    lo, hi = 0, n  # binary search on the common prefix length, in C-speed slices
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    p = lo
    lo, hi = 0, n - p
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:] == new[len(new) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    s = lo
    return p, len(old) - s, new[p:len(new) - s]


# ------------------------------------------------------------------ finding tables

def walk(entries) -> Iterator[tuple[Statement | None, Table]]:
    """Every table in a file, with the statement whose block holds it."""
    def rec(parent, body):
        for e in body or ():
            if isinstance(e, Table):
                yield parent, e
            elif isinstance(e, Statement):
                yield from rec(e, e.body)
    yield from rec(None, entries)


def parse_text(text: str, shown: str) -> File:
    return parse(text, shown)


@dataclass
class RowRef:
    statement: Statement | None
    table: Table
    row: Row

    @property
    def header(self) -> Row:
        return self.table.rows[0]

    @property
    def columns(self) -> list[str]:
        return [c.text for c in self.header.cells]


def find_row(f: File, line: int) -> RowRef | None:
    for st, t in walk(f.entries):
        for r in t.rows[1:]:
            if r.span.line == line:
                return RowRef(st, t, r)
    return None


def top(f: File, keyword: str, name: str | None = None) -> Statement | None:
    for e in f.entries:
        if isinstance(e, Statement) and e.keyword == keyword and (name is None or e.name == name):
            return e
    return None


# ------------------------------------------------------------------ formatting rows

def _tail(line: str, last_end_col: int) -> str:
    """A trailing comment after a row's last cell, kept as written."""
    rest = line[last_end_col - 1:]
    i = rest.find("#")
    return rest if i >= 0 else ""


def format_row(header: Row, header_line: str, values: list[str], indent: str | None = None) -> str:
    """``values`` (already cell text) aligned to the header's columns."""
    if indent is None:
        indent = header_line[:len(header_line) - len(header_line.lstrip())]
    out = indent
    for i, v in enumerate(values):
        if i < len(header.cells):
            target = header.cells[i].span.col - 1
            if i > 0 and len(out) > target - 2:
                out += "  "
            else:
                out = out.ljust(target)
        else:
            out += "  "
        out += v
    return out.rstrip()


def row_cells(ref: RowRef) -> list[str]:
    """The row's cells as written (strings keep their quotes)."""
    out = []
    for c in ref.row.cells:
        out.append(quote(c.text) if c.quoted else c.text)
    return out


def replace_row(text: str, ref: RowRef, values: list[str]) -> Edit:
    lines = Lines(text)
    ln = ref.row.span.line
    line = lines.line(ln)
    indent = line[:len(line) - len(line.lstrip())]
    tail = _tail(line, ref.row.cells[-1].span.end_col) if ref.row.cells and ref.row.cells[-1].span.end_line == ln \
        else ""
    hl = lines.line(ref.header.span.line)
    new = format_row(ref.header, hl, values, indent)
    if tail:
        new = new + (tail if tail.startswith((" ", "\t")) else "  " + tail)
    return lines.start(ln), lines.content_end(ln), new


def insert_row_after(text: str, ref_header: Row, after_line: int, values: list[str]) -> Edit:
    lines = Lines(text)
    hl = lines.line(ref_header.span.line)
    new = format_row(ref_header, hl, values)
    pos = lines.end(after_line)
    if pos == len(text) and not text.endswith("\n"):
        return pos, pos, "\n" + new
    return pos, pos, new + "\n"


def delete_line(text: str, line: int) -> Edit:
    lines = Lines(text)
    return lines.start(line), lines.end(line), ""


def rewrite_table(text: str, table: Table, rows: list[list[str]]) -> list[Edit]:
    """Re-write every row line of ``table`` (header first) with ``rows``,
    aligned to new column widths; comment and blank lines between rows stay."""
    lines = Lines(text)
    widths = [0] * max(len(r) for r in rows)
    for r in rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    edits = []
    for row, values in zip(table.rows, rows):
        ln = row.span.line
        line = lines.line(ln)
        indent = line[:len(line) - len(line.lstrip())]
        tail = _tail(line, row.cells[-1].span.end_col) if row.cells and row.cells[-1].span.end_line == ln else ""
        new = (indent + "  ".join(c.ljust(w) for c, w in zip(values, widths))).rstrip()
        if tail:
            new += tail if tail.startswith((" ", "\t")) else "  " + tail
        edits.append((lines.start(ln), lines.content_end(ln), new))
    return edits


def table_lines(indent: str, rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(len(r) for r in rows))]
    return [(indent + "  ".join(c.ljust(w) for c, w in zip(r, widths))).rstrip() for r in rows]
