"""Map files (.hxm): the board, in the same syntax as the rules.

    map smolensk "Smolensk 1941"
    grid { orientation flat; shifted even; columns 01-55; rows 01-35 }
    default clear
    hexes {
      table {
        hex   terrain       features  name        vp
        0927  clear         town      "Brest"     -
        4112  clear         city      "Smolensk"  10
      }
    }
    hexsides {
      table {
        hexside    features
        0927/0928  river
      }
    }
    path road 0927 1027 1127 1226      # consecutive hexes must be adjacent
    supply axis edge:west 0101-0135
    area 3PzA "3rd Panzer Group setup" 1001-1010 1102
    outside 0101 0102                  # grid hexes that are not in play

Hexes not listed in ``hexes`` have the default terrain.  ``write_map`` prints
a MapDef back in this canonical form (one hex per line, sorted), so a diff of
a map edit shows only what changed.
"""
from __future__ import annotations

import re
from pathlib import Path

from runtime import definition as D
from runtime.hexes import Grid, Hex, HexIdError, Hexside, hexside
from runtime.vocabulary import EDGES

from .ast import Arg, Statement
from .checker import Body, Ctx, TableView, is_dash
from .diagnostics import Span, did_you_mean
from .loader import Source, parse_file

# errors the map editor itself mends (it paints the area; it puts the hex back in play or takes the
# source off it): the map still loads there, and check fails
MAP_MENDS = "map-mends"
MAP_KEYWORDS = ("map", "grid", "default", "hexes", "hexsides", "path", "supply", "area", "outside", "background")


def load_map(path: Path, src: Source, ctx: Ctx, at: Span | None, art_dir: Path | None = None) -> D.MapDef | None:
    """``art_dir``: where a ``background`` image must be (the game folder);
    None reads its path without looking for the file (the editor's map
    view, which reads a copy of the texts)."""
    f = parse_file(path, src, ctx.diags, at)
    if f is None:
        return None
    return MapReader(ctx, art_dir).read([e for e in f.entries if isinstance(e, Statement)], f.entries,
                                        Span(f.path, 1, 1))


class MapReader:
    def __init__(self, ctx: Ctx, art_dir: Path | None = None):
        self.ctx = ctx
        self.art_dir = art_dir

    def read(self, sts: list[Statement], entries, top: Span | None = None) -> D.MapDef | None:
        """``top``: the file's first line, where what it lacks is reported
        (an empty file has no statement to point at)."""
        ctx = self.ctx
        for e in entries:
            if not isinstance(e, Statement):
                ctx.error("table-place", "a table must stand inside hexes { } or hexsides { }", e.span)
        by: dict[str, list[Statement]] = {}
        for st in sts:
            if st.keyword not in MAP_KEYWORDS:
                ctx.error("unknown-keyword", f"'{st.keyword}' is not a map keyword", st.span,
                          did_you_mean(st.keyword, MAP_KEYWORDS))
                continue
            by.setdefault(st.keyword, []).append(st)
        for kw in ("map", "grid", "default", "hexes", "hexsides", "background"):
            for extra in by.get(kw, [])[1:]:
                ctx.error("duplicate", f"'{kw}' appears twice in the map", extra.span)
        head = by.get("map", [None])[0]
        name = head.name if head and head.args else "map"
        grid_st = by.get("grid", [None])[0]
        if grid_st is None:
            ctx.error("missing", "the map has no grid", head.span if head else top,
                      "write: grid { orientation flat; shifted even; columns 01-55; rows 01-35 }")
            return None
        grid = self.grid(grid_st)
        if grid is None:
            return None
        ctx.grid = grid
        default = "clear"
        d = by.get("default", [None])[0]
        if d is not None:
            default = ctx.terrain_ref(d.args[0], ("terrain",)) or default if d.args else default
        elif not ctx.has("terrain", "clear"):
            ctx.error("missing", "the map has no default terrain", head.span if head else grid_st.span,
                      "write: default TERRAIN")
        outside: set[Hex] = set()
        for st in by.get("outside", []):
            outside.update(self.hex_list(st.args))
        hexes = {h: D.MapHex(h, default) for h in grid.all_hexes() if h not in outside}
        labels: dict[Hex, str] = {}
        for st in by.get("hexes", []):
            self.hexes(st, grid, hexes, labels)
        sides: dict[Hexside, frozenset[str]] = {}
        for st in by.get("hexsides", []):
            self.hexsides(st, grid, sides)
        links: dict[str, set[Hexside]] = {}
        for st in by.get("path", []):
            self.path(st, grid, links)
        supply: dict[str, set[Hex]] = {}
        supply_at: dict[Hex, Span] = {}  # where each source is listed (an error names that line)
        edges: dict[str, list[str]] = {}
        for st in by.get("supply", []):
            side = ctx.ref("side", st.arg(0))
            if not side:
                continue
            for a in st.args[1:]:
                if a.text.startswith("edge:"):
                    e = a.text[5:]
                    if e in EDGES:
                        edges.setdefault(side, []).append(e)
                    else:
                        ctx.error("value", f"'{e}' is not a map edge", a.span, did_you_mean(e, EDGES))
                else:
                    listed = self.hex_list((a,))
                    supply.setdefault(side, set()).update(listed)
                    supply_at.update((h, a.span) for h in listed)
        areas: dict[str, frozenset[Hex]] = {}
        for st in by.get("area", []):
            if not st.args or st.args[0].quoted:
                ctx.error("name", "area needs a name", st.span)
                continue
            aname = st.args[0].text
            if aname in areas:
                ctx.error("duplicate", f"area {aname} is declared twice", st.args[0].span)
            rest = [a for a in st.args[1:] if not a.quoted]
            areas[aname] = frozenset(self.hex_list(rest))
            if not rest:  # (a unit set up or a marker placed there would find no hex)
                ctx.error(MAP_MENDS, f"area {aname} has no hexes", st.args[0].span,
                          "list its hexes (or paint them in the editor), or remove the area")
            ctx.declare("area", aname, st.args[0].span)
        for s, hs in supply.items():
            for h in hs:
                if h not in hexes:
                    ctx.error(MAP_MENDS, f"supply source {grid.format_id(h)} is not in play", supply_at.get(h, top),
                              "put the hex back in play, or take the source off it")
        background = ""
        for st in by.get("background", [])[:1]:
            if len(st.args) != 1:
                ctx.error("arguments", "background takes one image file", st.span, 'write: background "art/map.png"')
            elif self.art_dir is not None:
                from .art import art_file
                background = art_file(ctx, self.art_dir, st.args[0], "the map background")
            else:
                background = st.args[0].text
        return D.MapDef(
            background=background,
            name=name, grid=grid, default_terrain=default, hexes=D.frozen_map(hexes),
            hexsides=D.frozen_map(sides), links=D.frozen_map({k: frozenset(v) for k, v in links.items()}),
            supply=D.frozen_map({k: frozenset(v) for k, v in supply.items()}),
            supply_edges=D.frozen_map({k: tuple(v) for k, v in edges.items()}),
            areas=D.frozen_map(areas), labels=D.frozen_map(labels),
            where=f"{head.span.file}:{head.span.line}" if head else "")

    def grid(self, st: Statement) -> Grid | None:
        ctx = self.ctx
        b = Body(ctx, st, "grid")
        orientation = b.text("orientation", "flat")
        shifted = b.text("shifted", "even")
        cols, rows = b.arg("columns"), b.arg("rows")
        b.finish()
        if orientation not in ("flat", "pointy"):
            ctx.error("value", f"orientation is flat or pointy, not '{orientation}'", st.span)
            return None
        if shifted not in ("odd", "even"):
            ctx.error("value", f"shifted is odd or even, not '{shifted}'", st.span)
            return None
        spans = []
        for a, what in ((cols, "columns"), (rows, "rows")):
            if a is None:
                ctx.error("missing", f"grid needs '{what}'", st.span, f"write: {what} 01-55")
                return None
            m = re.fullmatch(r"([0-9]+)-([0-9]+)", a.text)
            if not m or int(m.group(2)) < int(m.group(1)):
                ctx.error("type", f"{what} is a range such as 01-55, not '{a.text}'", a.span)
                return None
            if int(m.group(2)) - int(m.group(1)) >= 500:
                ctx.error("range", f"{what}: a map of more than 500 hexes a side is not supported", a.span)
                return None
            spans.append((int(m.group(1)), int(m.group(2)), len(m.group(2))))
        (c0, c1, cd), (r0, r1, rd) = spans
        try:
            return Grid(orientation, shifted, c0, r0, c1 - c0 + 1, r1 - r0 + 1, cd, rd)
        except ValueError as e:
            ctx.error("grid", str(e), st.span)
            return None

    def hex_(self, a: Arg) -> Hex | None:
        grid = self.ctx.grid
        try:
            h = grid.parse_id(a.text)
        except HexIdError as e:
            self.ctx.error("hex", str(e), a.span)
            return None
        if not grid.contains(h):
            self.ctx.error("hex", f"hex {a.text} is off the grid", a.span)
            return None
        return h

    def hex_list(self, args) -> list[Hex]:
        out: list[Hex] = []
        for a in args:
            if "-" in a.text:
                lo, _, hi = a.text.partition("-")
                try:
                    out.extend(self.ctx.grid.id_range(lo, hi))
                except HexIdError as e:
                    self.ctx.error("hex", str(e), a.span)
            else:
                h = self.hex_(a)
                if h is not None:
                    out.append(h)
        return out

    def hexes(self, st: Statement, grid: Grid, hexes: dict[Hex, D.MapHex], labels: dict[Hex, str]) -> None:
        ctx = self.ctx
        b = Body(ctx, st, "hexes")
        view = TableView.of(ctx, b.table(), "the hexes table", st.span)
        b.finish()
        if view is None:
            return
        view.require_first("hex")
        cols = ("hex", "terrain", "features", "name", "vp")
        view.check_columns(lambda c: c in cols, cols)
        for r in view.rows:
            h = self.hex_(r.cells[0])
            if h is None:
                continue
            if h not in hexes:
                ctx.error("hex", f"hex {r.cells[0].text} is listed as outside the play area", r.cells[0].span)
                continue
            old = hexes[h]
            terrain = old.terrain
            t = view.cell(r, "terrain")
            if t is not None and not is_dash(t):
                terrain = ctx.terrain_ref(t, ("terrain",)) or terrain
            feats = ()
            f = view.cell(r, "features")
            if f is not None and not is_dash(f):
                feats = tuple(x for x in f.text.split(",")
                              if ctx.terrain_ref(Arg(x, f.span), ("feature",)))
            n = view.cell(r, "name")
            name = n.text if n is not None and not is_dash(n) else ""
            v = view.cell(r, "vp")
            vp = 0 if v is None or is_dash(v) else (ctx.int_(v, "VP", 0, 999) or 0)
            hexes[h] = D.MapHex(h, terrain, feats, name, vp)
            if name:
                labels[h] = name

    def hexsides(self, st: Statement, grid: Grid, sides: dict[Hexside, frozenset[str]]) -> None:
        ctx = self.ctx
        b = Body(ctx, st, "hexsides")
        view = TableView.of(ctx, b.table(), "the hexsides table", st.span)
        b.finish()
        if view is None:
            return
        view.require_first("hexside")
        view.check_columns(lambda c: c in ("hexside", "features"), ("hexside", "features"))
        for r in view.rows:
            a = r.cells[0]
            left, slash, right = a.text.partition("/")
            if not slash:
                ctx.error("hexside", f"a hexside is written as two adjacent hexes, 0927/0928, not '{a.text}'",
                          a.span)
                continue
            ha, hb = self.hex_(Arg(left, a.span)), self.hex_(Arg(right, a.span))
            if ha is None or hb is None:
                continue
            if ha.distance(hb) != 1:
                ctx.error("hexside", f"{left} and {right} are not adjacent", a.span)
                continue
            f = view.cell(r, "features")
            feats = [x for x in (f.text.split(",") if f is not None and not is_dash(f) else [])
                     if ctx.terrain_ref(Arg(x, f.span), ("hexside",))]
            sides[hexside(ha, hb)] = frozenset(feats)

    def path(self, st: Statement, grid: Grid, links: dict[str, set[Hexside]]) -> None:
        ctx = self.ctx
        if len(st.args) < 3:
            ctx.error("arguments", "path needs a link kind and at least two hexes", st.span,
                      "write: path road 0927 1027 1127")
            return
        kind = ctx.terrain_ref(st.args[0], ("link",))
        hs = [self.hex_(a) for a in st.args[1:]]
        if kind is None or None in hs:
            return
        for (a, b), arg in zip(zip(hs, hs[1:]), st.args[2:]):
            if a.distance(b) != 1:
                ctx.error("path", f"the {kind} jumps from {grid.format_id(a)} to {arg.text}: they are not adjacent",
                          arg.span)
                return
            links.setdefault(kind, set()).add(hexside(a, b))


# ------------------------------------------------------------------ writing

def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _table(rows: list[list[str]], indent: str = "    ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def _paths(edges: frozenset[Hexside]) -> list[list[Hex]]:
    """Split a set of hex-to-hex edges into paths, deterministically."""
    adj: dict[Hex, set[Hex]] = {}
    for e in edges:
        adj.setdefault(e.a, set()).add(e.b)
        adj.setdefault(e.b, set()).add(e.a)
    left = set(edges)
    out = []
    # start from path ends (odd degree) first, then any remaining cycles
    starts = sorted(h for h, n in adj.items() if len(n) % 2 == 1) + sorted(adj)
    for s in starts:
        while any(hexside(s, n) in left for n in adj[s]):
            path = [s]
            cur = s
            while True:
                nxt = sorted(n for n in adj[cur] if hexside(cur, n) in left)
                if not nxt:
                    break
                left.discard(hexside(cur, nxt[0]))
                cur = nxt[0]
                path.append(cur)
            out.append(path)
    return out


def write_map(m: D.MapDef, title: str = "") -> str:
    g = m.grid
    fmt = g.format_id
    c1, r1 = g.first_col + g.cols - 1, g.first_row + g.rows - 1
    lines = [f"map {m.name}" + (f" {_q(title)}" if title else ""),
             "grid {",
             f"  orientation {g.orientation}",
             f"  shifted {g.shifted}",
             f"  columns {str(g.first_col).zfill(g.col_digits)}-{str(c1).zfill(g.col_digits)}",
             f"  rows {str(g.first_row).zfill(g.row_digits)}-{str(r1).zfill(g.row_digits)}",
             "}",
             f"default {m.default_terrain}"]
    if m.background:
        lines.append(f"background {_q(m.background)}")
    out_hexes = [h for h in g.all_hexes() if h not in m.hexes]
    if out_hexes:
        ids = [fmt(h) for h in out_hexes]
        for i in range(0, len(ids), 12):
            lines.append("outside " + " ".join(ids[i:i + 12]))
    rows = [["hex", "terrain", "features", "name", "vp"]]
    for h in g.all_hexes():
        mh = m.hexes.get(h)
        if mh is None or (mh.terrain == m.default_terrain and not mh.features and not mh.name and not mh.vp):
            continue
        rows.append([fmt(h), mh.terrain, ",".join(mh.features) or "-", _q(mh.name) if mh.name else "-",
                     str(mh.vp) if mh.vp else "-"])
    lines += ["hexes {", "  table {"] + _table(rows) + ["  }", "}"]
    srows = [["hexside", "features"]]
    for s in sorted(m.hexsides, key=lambda s: (g.to_colrow(s.a), g.to_colrow(s.b))):
        if m.hexsides[s]:
            srows.append([f"{fmt(s.a)}/{fmt(s.b)}", ",".join(sorted(m.hexsides[s]))])
    lines += ["hexsides {", "  table {"] + _table(srows) + ["  }", "}"]
    for kind in sorted(m.links):
        for p in _paths(m.links[kind]):
            lines.append(f"path {kind} " + " ".join(fmt(h) for h in p))
    for side in sorted(set(m.supply) | set(m.supply_edges)):
        parts = [f"edge:{e}" for e in m.supply_edges.get(side, ())]
        parts += [fmt(h) for h in sorted(m.supply.get(side, ()), key=g.to_colrow)]
        lines.append(f"supply {side} " + " ".join(parts))
    for name in sorted(m.areas):
        ids = [fmt(h) for h in sorted(m.areas[name], key=g.to_colrow)]
        lines.append(f"area {name} " + " ".join(ids))
    return "\n".join(lines) + "\n"
