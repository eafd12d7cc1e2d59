"""Source spans and diagnostics: every error a game file can cause is reported
as ``FILE:LINE:COL: error: MESSAGE`` with the source line, a caret and a hint."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, NamedTuple


def normalise_newlines(text: str) -> str:
    """``\r\n`` and a lone ``\r`` become ``\n``: the only line break the
    parser knows, so every line number means the same line everywhere."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


@lru_cache(maxsize=16)
def source_lines(text: str) -> tuple[str, ...]:
    """The lines of a game file as the parser counts them: split at ``\n``
    (after ``normalise_newlines``) and nowhere else (not at U+2028, U+0085 or
    the other breaks ``str.splitlines`` knows).  Cached: a file with many
    diagnostics is split once."""
    return tuple(normalise_newlines(text).split("\n"))


class Span(NamedTuple):
    """Where something stands in a file (a NamedTuple: there is one per
    table cell, and tuples are built in C)."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @staticmethod
    def parse(where: str) -> "Span | None":
        """Inverse of ``str(span)`` for the ``where`` labels expressions carry."""
        try:
            file, line, col = where.rsplit(":", 2)
            return Span(file, int(line), int(col))
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span | None
    hint: str = ""
    severity: str = "error"

    def format(self, sources: "dict[str, str] | None" = None) -> str:
        # (about the whole game, not a place in a file: the reader knows which game)
        out = [f"{self.span}: {self.severity}: {self.message}" if self.span else f"{self.severity}: {self.message}"]
        text = (sources or {}).get(self.span.file) if self.span else None
        if text is not None and self.span and self.span.line >= 1:
            lines = source_lines(text)
            if self.span.line <= len(lines):
                line = lines[self.span.line - 1]
                # a tab, U+2028 or a control character would break the caret's alignment (or the terminal)
                src = line if line.isprintable() else "".join(c if c.isprintable() else " " for c in line)
                out.append(f"    {src}")
                width = 1
                if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                    width = self.span.end_col - self.span.col
                out.append("    " + " " * (self.span.col - 1) + "^" * max(1, width))
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


class DslError(Exception):
    """Raised with every diagnostic found; nothing is half-compiled."""

    def __init__(self, diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None):
        self.diagnostics = list(diagnostics)
        self.sources = dict(sources or {})
        super().__init__(self.format())

    def format(self) -> str:
        return format_diagnostics(self.diagnostics, self.sources)


MAX_SHOWN = 50  # diagnostics printed in full; the rest are counted


def format_diagnostics(items: "list[Diagnostic]", sources: "dict[str, str] | None" = None,
                       limit: int = MAX_SHOWN) -> str:
    """The first ``limit`` diagnostics in full, then one line counting the rest."""
    out = [d.format(sources) for d in items[:limit]]
    rest = items[limit:]
    if rest:
        errors = sum(1 for d in rest if d.severity == "error")
        parts = [f"{errors} more error{'s' * (errors != 1)}"] if errors else []
        if len(rest) - errors:
            parts.append(f"{len(rest) - errors} more warning{'s' * (len(rest) - errors != 1)}")
        out.append("... and " + " and ".join(parts))
    return "\n".join(out)


class DslSyntaxError(DslError):
    pass


@dataclass
class Diagnostics:
    """Collects diagnostics during checking so that all of them are reported."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, span: Span | None, hint: str = "") -> None:
        self.items.append(Diagnostic(code, message, span, hint))

    def warning(self, code: str, message: str, span: Span | None, hint: str = "") -> None:
        self.items.append(Diagnostic(code, message, span, hint, "warning"))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    def __bool__(self) -> bool:
        return bool(self.errors)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A hint naming the closest choice, or the list of choices if few."""
    options = sorted(set(choices))
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if not close:
        low = {o.lower(): o for o in options}
        close = difflib.get_close_matches(word.lower(), list(low), n=1, cutoff=0.6)
        close = [low[c] for c in close]
    if close:
        return f"did you mean '{close[0]}'?"
    if 0 < len(options) <= 12:
        return "expected one of: " + ", ".join(options)
    return ""
