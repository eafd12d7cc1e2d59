"""The syntax tree of a rules or map file.  Every node carries its span.

The tree is deliberately generic (statements, blocks, tables); meaning is
given by dsl/checker.py.  Expressions are built directly as runtime.expr
nodes, which the runtime evaluates; their ``where`` label is the span."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Union

from runtime.expr import Expr

from .diagnostics import Span


class Arg(NamedTuple):
    """An argument or table cell, kept exactly as written (``0927`` stays
    ``0927``).  ``quoted`` tells a "string" from a bare atom."""

    text: str
    span: Span
    quoted: bool = False

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Row:
    cells: tuple[Arg, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Table:
    rows: tuple[Row, ...]
    span: Span

    @property
    def header(self) -> Row | None:
        return self.rows[0] if self.rows else None

    @property
    def body(self) -> tuple[Row, ...]:
        return self.rows[1:]


@dataclass(frozen=True, slots=True)
class Statement:
    keyword: str
    span: Span  # the keyword
    args: tuple[Arg, ...] = ()
    condition: Expr | None = None
    value: Expr | None = None
    body: tuple["Entry", ...] | None = None
    override: bool = False
    end: Span | None = field(default=None, compare=False)

    @property
    def name(self) -> str | None:
        return self.args[0].text if self.args else None

    def arg(self, i: int) -> Arg | None:
        return self.args[i] if i < len(self.args) else None


Entry = Union[Statement, Table]


@dataclass(frozen=True, slots=True)
class File:
    path: str
    entries: tuple[Entry, ...]
