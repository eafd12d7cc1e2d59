"""What the editor needs from a game's files, read at the syntax level.

The compiler refuses a game with any error (an over-stacked hex at setup
stops it), but the editor must keep showing counters, setups and the map
while a designer is half-way through a change.  So the editor reads the
statements itself (after the loader's imports, overrides and ``extends``),
tolerating semantic errors, and keeps where every counter row and setup row
stands so that edits go back into the text.  The diagnostics themselves
always come from the real compiler (``document.GameDocument.check``).
Nothing here imports Qt.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dsl.ast import Arg, Statement, Table
from dsl.checker import DECLARES, Ctx
from dsl.diagnostics import Diagnostic, Diagnostics, Span
from dsl.loader import Loader, merge_entries, resolve_extends
from runtime.definition import MapDef

COUNTER_COLUMNS = ("id", "side", "nationality", "class", "full", "reduced", "formation", "arrives", "name", "tags",
                   "front", "back")


@dataclass(frozen=True)
class SideInfo:
    id: str
    title: str
    colour: str = "#cccccc"
    text_colour: str = "#000000"


@dataclass(frozen=True)
class NationalityInfo:
    id: str
    title: str
    side: str
    colour: str = "#cccccc"
    text_colour: str = "#000000"


@dataclass(frozen=True)
class ClassInfo:
    id: str
    title: str
    symbol: str = "none"
    factors: tuple[str, ...] = ()
    size: str = ""
    flags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class TerrainInfo:
    id: str
    title: str
    kind: str  # terrain | feature | hexside | link
    colour: str = "#cccccc"
    pattern: str = ""


@dataclass(frozen=True)
class CounterRow:
    """One row of a counters table, with the group's defaults applied."""

    id: str
    group: str
    file: str  # display path, relative to the library
    line: int
    side: str = ""
    nationality: str = ""
    unit_class: str = ""
    full: str = ""
    reduced: str = ""
    formation: str = ""
    arrives: str = ""
    name: str = ""
    tags: str = ""
    front: str = ""  # art: image paths relative to the game folder
    back: str = ""

    def get(self, column: str) -> str:
        return getattr(self, "unit_class" if column == "class" else column)

    @property
    def title(self) -> str:
        return self.name or self.id


@dataclass(frozen=True)
class GroupInfo:
    name: str
    file: str
    line: int
    columns: tuple[str, ...]
    defaults: dict  # property -> value (side, nationality, class, formation)


@dataclass(frozen=True)
class PlacementRow:
    counter: str
    at: str
    file: str
    line: int


@dataclass(frozen=True)
class MarkerInfo:
    """A marker kind (``marker``): drawn as a small chip, never as a unit."""

    id: str
    title: str
    colour: str = "#f0d040"
    text_colour: str = "#000000"
    value: str = ""
    hidden: bool = False

    @property
    def label(self) -> str:
        """What the chip prints: its value (+1), '?' for a hidden value, else the title's initials."""
        if self.hidden:
            return "?"
        if self.value:
            return self.value if self.value.startswith(("-", "+", "(")) else f"+{self.value}"
        words = [w for w in self.title.replace("-", " ").split() if w[:1].isalnum()]
        return "".join(w[0] for w in words[:3]).upper() or self.id[:3].upper()


@dataclass(frozen=True)
class AttachmentInfo:
    """An attachment kind (``attachment``): counters drawn beside the unit they sit under."""

    id: str
    title: str
    counters: frozenset[str] = frozenset()  # selectors: classes, flags, sides, nationalities, counter ids
    hosts: frozenset[str] = frozenset()
    capacity: tuple[tuple[str, str], ...] = ()  # (host selector or "all", factor name or number) in order


@dataclass
class ScenarioInfo:
    id: str
    title: str
    file: str
    line: int
    first_turn: int = 1
    last_turn: int = 1
    placements: dict[str, PlacementRow] = field(default_factory=dict)
    markers: list[tuple[str, str]] = field(default_factory=list)  # (kind, at) of each ``place``


@dataclass
class Snapshot:
    game_id: str = ""
    title: str = ""
    map_file: str = ""  # as written in `map "..."`, relative to the game folder
    sides: dict[str, SideInfo] = field(default_factory=dict)
    nationalities: dict[str, NationalityInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    terrain: dict[str, TerrainInfo] = field(default_factory=dict)
    pools: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (title, side)
    markers: dict[str, MarkerInfo] = field(default_factory=dict)
    attachments: dict[str, AttachmentInfo] = field(default_factory=dict)
    pool_kinds: dict[str, str] = field(default_factory=dict)  # pool id -> box | cup
    turns: list[int] = field(default_factory=list)
    counters: dict[str, CounterRow] = field(default_factory=dict)
    groups: dict[str, GroupInfo] = field(default_factory=dict)
    scenarios: dict[str, ScenarioInfo] = field(default_factory=dict)
    stacking: int | None = None
    declarations: dict[str, list[Span]] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)  # syntax errors while reading
    sources: dict[str, str] = field(default_factory=dict)  # display path -> text read

    def of_kind(self, kind: str) -> list[str]:
        return [t.id for t in self.terrain.values() if t.kind == kind]

    def selectors_of(self, cid: str) -> frozenset[str]:
        c = self.counters.get(cid)
        if c is None:
            return frozenset()
        cls = self.classes.get(c.unit_class)
        return (cls.flags if cls else frozenset()) | {cid, c.unit_class, c.side, c.nationality, "all"}

    def attachment_of(self, cid: str) -> AttachmentInfo | None:
        """The attachment kind a counter is of (None: a unit)."""
        mine = self.selectors_of(cid)
        return next((k for k in self.attachments.values() if k.counters & mine), None)

    def capacity(self, host: str, kind: AttachmentInfo, reduced: bool = False) -> int | None:
        """How many of ``kind`` a unit may carry, from its printed factors (None: no limit)."""
        if not kind.capacity:
            return None
        mine = self.selectors_of(host)
        for sel, value in kind.capacity:
            if sel == "all" or sel in mine:
                if value.isdigit():
                    return int(value)
                c = self.counters[host]
                cls = self.classes.get(c.unit_class)
                printed = ((c.reduced or c.full) if reduced else c.full).split("-")
                if cls and value in cls.factors and len(printed) == len(cls.factors):
                    v = printed[cls.factors.index(value)]
                    return int(v) if v.isdigit() else 0
                return 0
        return 0

    def look(self, c: CounterRow) -> tuple[str, str]:
        """(background, text) colours of a counter: nationality, else side."""
        n = self.nationalities.get(c.nationality)
        if n is not None:
            return n.colour, n.text_colour
        s = self.sides.get(c.side)
        if s is not None:
            return s.colour, s.text_colour
        return "#cccccc", "#000000"


def _props(st: Statement) -> dict[str, list[Arg]]:
    out: dict[str, list[Arg]] = {}
    for e in st.body or ():
        if isinstance(e, Statement) and e.keyword not in out:
            out[e.keyword] = list(e.args)
    return out


def _title(st: Statement) -> str:
    a = st.arg(1)
    return a.text if a is not None and a.quoted else (st.name or "")


def _text(props: dict[str, list[Arg]], key: str, default: str = "") -> str:
    a = props.get(key)
    return a[0].text if a else default


def _table(st: Statement) -> Table | None:
    return next((e for e in st.body or () if isinstance(e, Table)), None)


def _dash(s: str) -> bool:
    return s in ("-", "—", "–", "−", "--")


def read_snapshot(game_path: Path) -> Snapshot:
    """Read a game folder (the editor's mirror of it) at the syntax level."""
    snap = Snapshot()
    loader = Loader(Path(game_path))
    entries = loader.load()
    snap.sources = dict(loader.src.texts)
    snap.problems = list(loader.diags.items)
    for e in entries:
        if isinstance(e, Statement):
            kind = DECLARES.get(e.keyword)
            if kind and e.args and not e.args[0].quoted:
                snap.declarations.setdefault(e.args[0].text, []).append(e.args[0].span)
            if e.keyword in ("counters", "chits"):
                t = _table(e)
                if t is not None:
                    for r in t.rows[1:]:
                        if r.cells:
                            snap.declarations.setdefault(r.cells[0].text, []).append(r.cells[0].span)
    quiet = Diagnostics()
    statements = [e for e in resolve_extends(merge_entries(entries, quiet), quiet) if isinstance(e, Statement)]
    for st in statements:
        kw, name = st.keyword, st.name or ""
        if kw == "game":
            p = _props(st)
            snap.game_id, snap.title = name, _title(st)
            m = p.get("map")
            snap.map_file = m[0].text if m else ""
        elif kw == "side":
            p = _props(st)
            snap.sides[name] = SideInfo(name, _title(st), _text(p, "colour", "#cccccc"),
                                        _text(p, "text-colour", "#000000"))
        elif kw == "nationality":
            p = _props(st)
            snap.nationalities[name] = NationalityInfo(name, _title(st), _text(p, "side"),
                                                       _text(p, "colour", "#cccccc"),
                                                       _text(p, "text-colour", "#000000"))
        elif kw == "unit-class":
            p = _props(st)
            flags = frozenset(a.text for s in st.body or () if isinstance(s, Statement) and s.keyword == "flags"
                              for a in s.args)
            snap.classes[name] = ClassInfo(name, _title(st), _text(p, "symbol", "none"),
                                           tuple(a.text for a in p.get("factors", [])), _text(p, "size"), flags)
        elif kw in ("terrain", "feature", "hexside", "link"):
            p = _props(st)
            snap.terrain[name] = TerrainInfo(name, _title(st), kw, _text(p, "colour", "#cccccc"), _text(p, "pattern"))
        elif kw == "pool":
            snap.pools[name] = (_title(st), _text(_props(st), "side"))
            snap.pool_kinds[name] = _text(_props(st), "kind", "box")
        elif kw == "attachment":
            body = [s for s in st.body or () if isinstance(s, Statement)]

            def words(key: str) -> frozenset[str]:
                return frozenset(x for s in body if s.keyword == key for a in s.args for x in a.text.split(",") if x)
            caps = tuple((s.args[0].text, s.args[1].text) if len(s.args) == 2 else ("all", s.args[0].text)
                         for s in body if s.keyword == "capacity" and len(s.args) in (1, 2))
            snap.attachments[name] = AttachmentInfo(name, _title(st), words("counters"), words("hosts"), caps)
        elif kw == "marker":
            p = _props(st)
            snap.markers[name] = MarkerInfo(name, _title(st), _text(p, "colour", "#f0d040"),
                                            _text(p, "text-colour", "#000000"), _text(p, "value"), "hidden" in p)
        elif kw == "stacking":
            u = _props(st).get("units")
            if u and u[0].text.isdigit():
                snap.stacking = int(u[0].text)
        elif kw == "turn-track":
            t = _table(st)
            if t is not None:
                snap.turns = [int(r.cells[0].text) for r in t.rows[1:] if r.cells and r.cells[0].text.isdigit()]
        elif kw == "counters":
            _counters(snap, st)
        elif kw == "scenario":
            _scenario(snap, st)
    return snap


def _counters(snap: Snapshot, st: Statement) -> None:
    p = _props(st)
    defaults = {k: _text(p, k) for k in ("side", "nationality", "class", "formation") if k in p}
    t = _table(st)
    if t is None or not t.rows:
        snap.groups[st.name or ""] = GroupInfo(st.name or "", st.span.file, st.span.line, (), defaults)
        return
    cols = tuple(c.text for c in t.rows[0].cells)
    snap.groups[st.name or ""] = GroupInfo(st.name or "", st.span.file, st.span.line, cols, defaults)
    for r in t.rows[1:]:
        if not r.cells:
            continue
        vals = dict(defaults)
        for c, a in zip(cols, r.cells):
            vals[c] = "" if (_dash(a.text) and not a.quoted) else a.text
        side = vals.get("side", "")
        nat = vals.get("nationality", "")
        if not side and nat in snap.nationalities:
            side = snap.nationalities[nat].side
        arrives = vals.get("arrives", "")
        if arrives == "setup":
            arrives = ""
        cid = r.cells[0].text
        snap.counters[cid] = CounterRow(cid, st.name or "", r.span.file, r.span.line, side, nat, vals.get("class", ""),
                                        vals.get("full", ""), vals.get("reduced", ""), vals.get("formation", ""),
                                        arrives, vals.get("name", ""), vals.get("tags", ""),
                                        vals.get("front", ""), vals.get("back", ""))


def _scenario(snap: Snapshot, st: Statement) -> None:
    p = _props(st)
    sc = ScenarioInfo(st.name or "", _title(st), st.span.file, st.span.line)
    t = p.get("turns")
    if t and len(t) == 2 and t[0].text.isdigit() and t[1].text.isdigit():
        sc.first_turn, sc.last_turn = int(t[0].text), int(t[1].text)
    elif snap.turns:
        sc.first_turn, sc.last_turn = snap.turns[0], snap.turns[-1]
    for s in st.body or ():
        if isinstance(s, Statement) and s.keyword == "place" and len(s.args) >= 3 and s.args[1].text == "at":
            sc.markers.append((s.args[0].text, s.args[2].text))
        if isinstance(s, Statement) and s.keyword == "setup":
            tb = _table(s)
            if tb is None or not tb.rows:
                continue
            cols = [c.text for c in tb.rows[0].cells]
            if "at" not in cols:
                continue
            ai = cols.index("at")
            for r in tb.rows[1:]:
                if len(r.cells) > ai:
                    sc.placements[r.cells[0].text] = PlacementRow(r.cells[0].text, r.cells[ai].text,
                                                                  r.span.file, r.span.line)
    snap.scenarios[sc.id] = sc


def map_context(snap: Snapshot) -> Ctx:
    """A checker context with the names a map file refers to declared."""
    ctx = Ctx(Diagnostics())
    here = Span("<editor>", 1, 1)
    for t in snap.terrain.values():
        ctx.declare("terrain", t.id, here)
        ctx.terrain_kind[t.id] = t.kind
    for s in snap.sides:
        ctx.declare("side", s, here)
    return ctx


def read_map(path: Path, library: Path, snap: Snapshot) -> tuple[MapDef | None, list[Diagnostic]]:
    """Read a map file with the terrain the snapshot declares."""
    from dsl.loader import Source
    from dsl.mapfile import load_map

    ctx = map_context(snap)
    src = Source(library)
    m = load_map(path, src, ctx, None)
    return m, list(ctx.diags.items)
