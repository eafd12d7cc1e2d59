"""Meaning: checks game files and builds the runtime's GameDefinition.

Two passes over the merged statements: the first declares every name (so
references may point forwards), the second elaborates each statement into
its definition.  Every problem becomes a Diagnostic; checking carries on
after an error so that a designer sees all of them at once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable

from runtime import expr as E
from runtime.hexes import Grid
from runtime.vocabulary import EXPR_FUNCTIONS, EXPR_NAMES

from .ast import Arg, Row, Statement, Table
from .diagnostics import Diagnostics, Span, did_you_mean

DASHES = {"-", "—", "–", "−", "--"}
COLOUR = re.compile(r"#[0-9a-fA-F]{6}$")
DICE = re.compile(r"([1-9][0-9]?)?d([1-9][0-9]{0,2})$")
SYMBOLS = ("armour", "mechanized", "motorized", "infantry", "cavalry", "mountain", "marine", "security",
           "hq", "artillery", "airborne", "engineer", "recon", "anti-tank", "fortress", "army-group",
           "front", "panzer-group", "tank", "none")

# Which symbol table a top-level keyword declares into.
DECLARES = {
    "side": "side", "nationality": "nationality", "unit-class": "unit-class",
    "terrain": "terrain", "feature": "terrain", "hexside": "terrain", "link": "terrain",
    "results": "results", "crt": "crt", "die-table": "die-table", "pool": "pool",
    "weather": "weather", "event": "event", "victory": "victory", "scenario": "scenario",
    "variant": "variant", "counters": "counter-group", "movement-mode": "movement-mode", "arrival": "arrival",
    "withdrawal": "withdrawal", "battle-option": "battle-option", "rebuild": "rebuild",
    "fire-attack": "fire-attack",
    "outcome": "outcome", "marker": "marker", "variable": "variable", "trigger": "trigger",
    "attachment": "attachment",
}


def is_dash(a: Arg | str) -> bool:
    return (a.text if isinstance(a, Arg) else a) in DASHES


@dataclass
class Ctx:
    diags: Diagnostics
    symbols: dict[str, dict[str, Span]] = field(default_factory=dict)
    terrain_kind: dict[str, str] = field(default_factory=dict)
    class_flags: set[str] = field(default_factory=set)
    grid: Grid | None = None
    # names declared by a statement that already has an error (a misspelt
    # keyword): references to them stay quiet, so one mistake is one diagnostic
    poisoned: set[str] = field(default_factory=set)
    track_calls: list = field(default_factory=list)  # track("column") calls, checked once the turn track is read
    # unit markers the game gives besides the engine's own: designate and reinforce phases' markers
    # (a reserve), and those a supply { marker NAME halve ... } line names
    designated: set[str] = field(default_factory=set)
    marked: set[str] = field(default_factory=set)  # unit markers 'mark ... with NAME' effects give
    phase_read: set[str] = field(default_factory=set)  # the words of only/exclude lines (markers phases read)

    # (code, message, span) of every diagnostic so far, and how many items that covers
    _seen: set[tuple] = field(default_factory=set)
    _seen_upto: int = 0

    def error(self, code: str, message: str, span: Span | None, hint: str = "") -> None:
        items = self.diags.items
        for d in items[self._seen_upto:]:  # a set, not a scan: checking stays linear in the errors found
            self._seen.add((d.code, d.message, d.span))
        self._seen_upto = len(items)
        if (code, message, span) in self._seen:
            return  # the same mistake seen again (a define's body checked where it is used)
        self.diags.error(code, message, span, hint)

    def declare(self, kind: str, name: str, span: Span) -> bool:
        table = self.symbols.setdefault(kind, {})
        if name in table:
            self.error("duplicate", f"{kind} '{name}' is declared twice", span, f"first declared at {table[name]}")
            return False
        table[name] = span
        return True

    def has(self, kind: str, name: str) -> bool:
        return name in self.symbols.get(kind, {})

    def ref(self, kind: str, arg: Arg | None, what: str | None = None, allow: Iterable[str] = ()) -> str | None:
        """Check that ``arg`` names a declared ``kind``; report with a hint."""
        if arg is None:
            return None
        name = arg.text
        if name in allow or self.has(kind, name):
            return name
        if name in self.poisoned:
            return None
        known = list(self.symbols.get(kind, {})) + list(allow)
        hint = did_you_mean(name, known)
        if not known:
            hint = f"no {kind} is declared yet"
        self.error("unknown-name", f"unknown {what or kind} '{name}'", arg.span, hint)
        return None

    def terrain_ref(self, arg: Arg, kinds: tuple[str, ...]) -> str | None:
        name = self.ref("terrain", arg, "terrain")
        if name and self.terrain_kind.get(name) not in kinds:
            self.error("wrong-kind", f"'{name}' is a {self.terrain_kind.get(name)}, not a {' or '.join(kinds)}",
                       arg.span)
            return None
        return name

    def int_(self, arg: Arg | None, what: str, lo: int | None = None, hi: int | None = None) -> int | None:
        if arg is None:
            return None
        try:
            v = int(arg.text.lstrip("+")) if re.fullmatch(r"[+-]?[0-9]+", arg.text) else None
        except ValueError:
            v = None
        if v is None:
            self.error("type", f"{what} must be a whole number, not '{arg.text}'", arg.span)
            return None
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f"{lo if lo is not None else '...'} to {hi if hi is not None else '...'}"
            self.error("range", f"{what} must be {rng}, not {v}", arg.span)
            return None
        return v

    def colour(self, arg: Arg | None) -> str | None:
        if arg is None:
            return None
        if not COLOUR.match(arg.text):
            self.error("type", f"a colour is written \"#rrggbb\", not '{arg.text}'", arg.span,
                       'for example colour "#8c8c8c"')
            return None
        return arg.text.lower()

    def expr(self, e: E.Expr | None, local: Iterable[str] = ()) -> E.Expr | None:
        """Check that every name and function an expression uses exists."""
        if e is None:
            return None
        known_names = set(EXPR_NAMES) | set(local) | self.class_flags  # a flag names itself (units-of(infantry))
        for kind in ("side", "nationality", "unit-class", "terrain", "weather", "event", "chit", "counter",
                     "variant", "pool", "area", "die-table", "scenario", "option", "marker", "variable"):
            known_names |= set(self.symbols.get(kind, {}))
        stack = [e]
        while stack:
            n = stack.pop()
            if isinstance(n, E.Name) and n.name not in known_names and n.name not in self.poisoned:
                self.error("unknown-name", f"unknown name '{n.name}' in expression", Span.parse(n.where),
                           did_you_mean(n.name, known_names) or
                           ("put spaces around '-' to subtract" if "-" in n.name else ""))
            elif isinstance(n, E.Call):
                if n.func == "track":
                    self.track_calls.append(n)
                if n.func == "param" and len(n.args) == 1 and not isinstance(n.args[0], E.Str):
                    # (which number a game asks for is known before it starts: hexforge play --param NAME=N)
                    self.error("type", "param() takes the number's name in quotes, such as param(\"bid\")",
                               Span.parse(n.args[0].where or n.where))
                if n.func == "marked" and len(n.args) == 2:  # marked(counter, "marker"): a unit marker rules give
                    m = n.args[1]
                    known = self.designated | self.marked | {"disrupted", "out-of-supply", "isolated", "reserve"}
                    if not isinstance(m, E.Str) or m.value not in known:
                        self.error("unknown-name", f"marked() takes a unit marker in quotes that a rule gives, "
                                   f"not {getattr(m, 'value', None) or getattr(m, 'name', '?')}",
                                   Span.parse(m.where or n.where), did_you_mean(getattr(m, "value", ""), known))
                if n.func not in EXPR_FUNCTIONS:
                    self.error("unknown-function", f"unknown function '{n.func}'", Span.parse(n.where),
                               did_you_mean(n.func, EXPR_FUNCTIONS))
                else:
                    arity = EXPR_FUNCTIONS[n.func]
                    if arity is not None and arity != len(n.args):
                        self.error("arity", f"{n.func}() takes {arity} argument{'s' * (arity != 1)}, "
                                   f"not {len(n.args)}", Span.parse(n.where))
                stack.extend(n.args)
            elif isinstance(n, E.Unary):
                stack.append(n.operand)
            elif isinstance(n, E.Binary):
                stack.extend((n.left, n.right))
            elif isinstance(n, E.ListExpr):
                stack.extend(n.items)
        return e


class Body:
    """Reads a statement's block: each accessor names a keyword the block may
    hold; ``finish`` reports anything else with a did-you-mean."""

    def __init__(self, ctx: Ctx, st: Statement, what: str):
        self.ctx = ctx
        self.st = st
        self.what = what
        self.allowed: set[str] = set()
        self.used: set[int] = set()
        self.entries = list(st.body or ())
        self.table_allowed = False

    def all(self, keyword: str) -> list[Statement]:
        self.allowed.add(keyword)
        out = []
        for i, e in enumerate(self.entries):
            if isinstance(e, Statement) and e.keyword == keyword:
                self.used.add(i)
                out.append(e)
        return out

    def one(self, keyword: str, nargs: tuple[int, int] = (1, 1)) -> Statement | None:
        found = self.all(keyword)
        for extra in found[1:]:
            self.ctx.error("duplicate", f"'{keyword}' is given twice in {self.what}", extra.span,
                           f"first at {found[0].span}")
        if not found:
            return None
        st = found[0]
        lo, hi = nargs
        if not (lo <= len(st.args) <= hi):
            want = f"{lo}" if lo == hi else f"{lo} to {hi}"
            self.ctx.error("arguments", f"'{keyword}' takes {want} argument{'s' * (hi != 1)}, "
                           f"got {len(st.args)}", st.span)
        return st

    def arg(self, keyword: str, i: int = 0) -> Arg | None:
        st = self.one(keyword)
        return st.arg(i) if st else None

    def text(self, keyword: str, default: str = "") -> str:
        a = self.arg(keyword)
        return a.text if a else default

    def flag(self, keyword: str) -> bool:
        return bool(self.all(keyword))

    def table(self) -> Table | None:
        self.table_allowed = True
        tables = [(i, e) for i, e in enumerate(self.entries) if isinstance(e, Table)]
        for i, _ in tables:
            self.used.add(i)
        for _, extra in tables[1:]:
            self.ctx.error("duplicate", f"{self.what} has more than one table", extra.span)
        return tables[0][1] if tables else None

    def finish(self) -> None:
        for i, e in enumerate(self.entries):
            if i in self.used:
                continue
            if isinstance(e, Table):
                self.ctx.error("table-place", f"{self.what} does not take a table", e.span)
                continue
            hint = did_you_mean(e.keyword, self.allowed)
            self.ctx.error("unknown-keyword", f"'{e.keyword}' is not a keyword of {self.what}", e.span, hint)


def title_of(st: Statement, i: int = 1) -> str:
    a = st.arg(i)
    return a.text if a and a.quoted else ""


def where(st: Statement | Row | Arg | Table) -> str:
    return f"{st.span.file}:{st.span.line}"


# ----------------------------------------------------------------- tables

@dataclass
class TableView:
    """A table with a named header: ``cell(row, "move:mechanized")``."""

    ctx: Ctx
    table: Table
    what: str
    columns: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    bad_rows: int = 0  # rows dropped for their width: later checks stay quiet

    @staticmethod
    def of(ctx: Ctx, table: Table | None, what: str, at: Span) -> "TableView | None":
        if table is None or not table.rows:
            ctx.error("table-missing", f"{what} needs a table", table.span if table else at,
                      "write: table { header row, then one row per line }")
            return None
        header = table.rows[0]
        view = TableView(ctx, table, what, [c.text for c in header.cells])
        seen: dict[str, Arg] = {}
        for c in header.cells:
            if c.text in seen:
                ctx.error("duplicate", f"column '{c.text}' appears twice in {what}", c.span)
            seen[c.text] = c
        keys: dict[str, Row] = {}
        for r in table.rows[1:]:
            if len(r.cells) != len(header.cells):
                n, m = len(r.cells), len(header.cells)
                if n < m:
                    missing = view.columns[n]
                    ctx.error("table-width", f"this row of {what} has {n} cells but the header has {m}: "
                              f"no value for column '{missing}'", r.cells[-1].span,
                              f"write '-' for an empty cell; the header is at line {header.span.line}")
                    view.bad_rows += 1
                else:
                    ctx.error("table-width", f"this row of {what} has {n} cells but the header has {m}",
                              r.cells[m].span, f"the header is at line {header.span.line}")
                view.bad_rows += 1
                continue
            k = r.cells[0].text
            if k in keys:
                ctx.error("duplicate", f"row '{k}' appears twice in {what}", r.cells[0].span,
                          f"first at line {keys[k].span.line}")
                continue
            keys[k] = r
            view.rows.append(r)
        return view

    def col(self, name: str) -> int | None:
        return self.columns.index(name) if name in self.columns else None

    def cell(self, row: Row, name: str) -> Arg | None:
        i = self.col(name)
        return row.cells[i] if i is not None else None

    def header_cell(self, name: str) -> Arg:
        return self.table.rows[0].cells[self.columns.index(name)]

    def require_first(self, name: str) -> bool:
        if not self.columns or self.columns[0] != name:
            cell = self.table.rows[0].cells[0]
            self.ctx.error("table-header", f"the first column of {self.what} must be '{name}'", cell.span)
            return False
        return True

    def check_columns(self, allowed: Callable[[str], bool], choices: Iterable[str]) -> None:
        for c in self.table.rows[0].cells:
            if not allowed(c.text):
                self.ctx.error("table-header", f"'{c.text}' is not a column of {self.what}", c.span,
                               did_you_mean(c.text, choices))


# ----------------------------------------------------------- value readers

RANGE = re.compile(r"([0-9]+)(?:-([0-9]+)|(\+))?$")


def read_range(ctx: Ctx, a: Arg, what: str) -> tuple[int, int | None] | None:
    """``5`` → (5, 5); ``1-4`` → (1, 4); ``6+`` → (6, None); ``13+`` too."""
    m = RANGE.match(a.text)
    if not m:
        ctx.error("type", f"{what} '{a.text}' is not a number or range", a.span,
                  "write 5, 1-4 or 6+")
        return None
    lo = int(m.group(1))
    if m.group(3):
        return lo, None
    hi = int(m.group(2)) if m.group(2) else lo
    if hi < lo:
        ctx.error("range", f"range '{a.text}' runs backwards", a.span)
        return None
    return lo, hi


def read_list(a: Arg) -> list[str]:
    if is_dash(a):
        return []
    return [x for x in a.text.split(",") if x]


def read_yes_no(ctx: Ctx, a: Arg | None, what: str, default: bool) -> bool:
    if a is None or is_dash(a):
        return default
    if a.text in ("yes", "true"):
        return True
    if a.text in ("no", "false"):
        return False
    ctx.error("type", f"{what} is yes or no, not '{a.text}'", a.span)
    return default


def read_fraction(text: str) -> Fraction | None:
    try:
        if "/" in text:
            n, d = text.split("/", 1)
            return Fraction(int(n), int(d))
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
