"""compile_game(): game folder → validated, immutable GameDefinition.

    load files and imports → merge overrides and variants → declare names →
    elaborate every construct → one GameDefinition, or DslError with every
    diagnostic found.
"""
from __future__ import annotations

import dataclasses
import re
from fractions import Fraction
from pathlib import Path
from typing import Iterable

from runtime import definition as D
from runtime import expr as E
from runtime.hexes import HexIdError
from runtime.runner import sequence_problems
from runtime.vocabulary import ACTIVATION_KINDS, EDGES, PHASE_PROPERTIES, PROCEDURES

from .ast import Arg, Statement
from .art import art_file
from .checker import (DECLARES, DICE, SYMBOLS, Body, Ctx, TableView, is_dash, read_fraction,
                      read_list, read_range, read_yes_no, title_of, where)
from .defines import expand_defines
from .effects import BLOCK_KEYWORDS, EffectCompiler, check_results, marker_kind, placement, trigger, variable
from .diagnostics import Diagnostics, DslError, Span, did_you_mean
from .loader import MAP_SUFFIX, TOP_LEVEL, Loader, apply_variants, merge_entries, resolve_extends
from . import mapfile

fm = D.frozen_map


def compile_game(path: str | Path, variants: Iterable[str] = (), art_dir: str | Path | None = None
                 ) -> D.GameDefinition:
    """Compile the game at ``path`` (a folder holding game.hxr, or a rules
    file) with the named variants switched on.  Raises DslError.
    ``art_dir``: where the game's art is, when the rules are read from a copy
    of the texts (the editor's); by default the game folder."""
    loader = Loader(Path(path))
    if art_dir is not None:
        loader.art_dir = Path(art_dir)
    entries = loader.load()
    diags = loader.diags
    variants = list(variants)
    if not diags:
        entries = apply_variants(entries, variants, diags)
    statements = [e for e in resolve_extends(merge_entries(entries, diags), diags) if isinstance(e, Statement)]
    game = None
    if not diags.errors:
        game = _Compiler(Ctx(diags), statements, loader, tuple(variants)).run()
    if diags.errors or game is None:
        raise DslError(diags.items, loader.src.texts)
    return game


def check_game(path: str | Path, art_dir: str | Path | None = None
               ) -> tuple[D.GameDefinition | None, Diagnostics, dict[str, str]]:
    """Compile the game and each of its variants; collect all diagnostics."""
    try:
        game = compile_game(path, art_dir=art_dir)
    except DslError as e:
        d = Diagnostics()
        d.items.extend(e.diagnostics)
        return None, d, e.sources
    diags = Diagnostics()
    sources: dict[str, str] = {}
    for v in game.variants:
        try:
            compile_game(path, [v], art_dir=art_dir)
        except DslError as e:
            for item in e.diagnostics:
                if item not in diags.items:
                    diags.items.append(item)
            sources.update(e.sources)
    return game, diags, sources


UNRUN_CHIT_KINDS = ("event", "air", "artillery")  # kinds whose draw does nothing but their on-draw effects
UNIT_STATES = frozenset({"disrupted", "out-of-supply", "isolated", "reserve"})  # markers a phase may name in only/exclude


class _Compiler:
    def __init__(self, ctx: Ctx, statements: list[Statement], loader: Loader, variants: tuple[str, ...]):
        self.ctx = ctx
        # `define` names and functions, expanded where used; their bodies are checked in run()
        statements, self.define_bodies = expand_defines(ctx, statements)
        self.sts = statements
        self.loader = loader
        self.variants = variants
        self.map_failed = False  # a map was named but did not load: setups stay quiet
        self.phase_areas: list[Arg] = []  # areas named by phases, checked once the map is read
        self.by_kw: dict[str, list[Statement]] = {}
        for st in statements:
            if TOP_LEVEL.get(st.keyword) == "named" and not st.name:
                continue  # a named statement without a name: declare() reports it; nothing else reads it
            self.by_kw.setdefault(st.keyword, []).append(st)

    def all(self, kw: str) -> list[Statement]:
        return self.by_kw.get(kw, [])

    def one(self, kw: str) -> Statement | None:
        found = self.all(kw)
        return found[0] if found else None

    # ------------------------------------------------------------ pass 1
    def declare(self) -> None:
        ctx = self.ctx
        for st in self.sts:
            if st.keyword not in TOP_LEVEL:
                ctx.error("unknown-keyword", f"'{st.keyword}' is not a top-level keyword", st.span,
                          did_you_mean(st.keyword, TOP_LEVEL))
                if st.args and not st.args[0].quoted:
                    ctx.poisoned.add(st.args[0].text)
                continue
            kind = DECLARES.get(st.keyword)
            if kind is None:
                continue
            if not st.args or st.args[0].quoted:
                ctx.error("name", f"{st.keyword} needs a name", st.span,
                          f'write: {st.keyword} NAME "Title" {{ ... }}')
                continue
            name = st.args[0].text
            if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_\-.]*", name):
                ctx.error("name", f"'{name}' is not a valid name", st.args[0].span,
                          "names use letters, digits, '-', '_' and '.'")
                continue
            if ctx.declare(kind, name, st.args[0].span) and kind == "terrain":
                ctx.terrain_kind[name] = st.keyword
        # names that live inside tables
        for st in self.all("counters"):
            body = st.body or ()
            for e in body:
                if not hasattr(e, "rows") or not e.rows:
                    continue
                for r in e.rows[1:]:
                    if r.cells:
                        ctx.declare("counter", r.cells[0].text, r.cells[0].span)
        for st in self.all("chits"):
            for e in st.body or ():
                if hasattr(e, "rows") and e.rows:
                    for r in e.rows[1:]:
                        if r.cells:
                            ctx.declare("chit", r.cells[0].text, r.cells[0].span)
        stack = list(self.all("sequence"))  # the options decide phases ask: names for chosen(...)
        while stack:
            st = stack.pop()
            for e in st.body or ():
                if isinstance(e, Statement):
                    if e.keyword == "option" and e.args and not e.args[0].quoted:
                        ctx.declare("option", e.args[0].text, e.args[0].span)
                    stack.append(e)
        for st in self.all("unit-class"):
            b = [e for e in st.body or () if isinstance(e, Statement) and e.keyword == "flags"]
            for f in b:
                ctx.class_flags.update(a.text for a in f.args)
        if self.one("dice"):
            for a in self.one("dice").args:
                ctx.declare("die", a.text, a.span)

    # statements whose `= value` / `when condition` the compiler reads
    TAKES_VALUE = {"modifier", "award", "define", "variable", "input"}
    TAKES_CONDITION = {"modifier", "award", "win", "end", "phase", "player-turn", "chit-loop", "segment", "skip",
                       "battle-option", "forbid", "marker", "outcome", "trigger"}

    def check_expression_places(self) -> None:
        stack = list(self.sts)
        while stack:
            st = stack.pop()
            if st.value is not None and st.keyword not in self.TAKES_VALUE:
                self.ctx.error("value-place", f"'{st.keyword}' takes no '= value'", Span.parse(st.value.where) or st.span,
                               "only modifier and award statements take one")
            if st.condition is not None and st.keyword not in self.TAKES_CONDITION:
                self.ctx.error("condition-place", f"'{st.keyword}' takes no 'when' condition",
                               Span.parse(st.condition.where) or st.span,
                               "conditions stand on modifier, award, win, end and phases")
            if st.keyword in ("trigger", "choose") or st.keyword in BLOCK_KEYWORDS:
                continue  # effect blocks: dsl/effects.py reads their values and conditions
            stack.extend(e for e in st.body or () if isinstance(e, Statement))

    # ------------------------------------------------------------ pass 2
    def run(self) -> D.GameDefinition | None:
        self.declare()
        for body, params in self.define_bodies:
            self.ctx.expr(body, local=params)
        self.check_expression_places()
        ctx = self.ctx
        info = self.game_info()
        dice = self.dice()
        sides = {st.name: self.side(st) for st in self.all("side")}
        nats = {st.name: self.nationality(st) for st in self.all("nationality")}
        classes = {st.name: self.unit_class(st) for st in self.all("unit-class")}
        terrain = {st.name: self.terrain(st) for kw in ("terrain", "feature", "hexside", "link")
                   for st in self.all(kw)}
        weather = {st.name: D.Weather(st.name, title_of(st) or st.name, where(st)) for st in self.all("weather")}
        for st in self.all("weather"):
            Body(ctx, st, f"weather {st.name}").finish()
        pools = {st.name: self.pool(st) for st in self.all("pool")}
        map_def = self.map_(info)
        self.fx = EffectCompiler(ctx, set(map_def.areas) if map_def else set(), set(pools),
                                 set(ctx.symbols.get("die-table", {})))
        markers = {st.name: marker_kind(ctx, st) for st in self.all("marker")}
        variables = {st.name: variable(ctx, st) for st in self.all("variable")}
        events = {st.name: self.event(st) for st in self.all("event")}
        chart = self.terrain_effects(classes)
        results = {st.name: self.results(st) for st in self.all("results")}
        crts = {st.name: self.crt(st, results) for st in self.all("crt")}
        tables = {st.name: self.die_table(st) for st in self.all("die-table")}
        counters: dict[str, D.Counter] = {}
        for st in self.all("counters"):
            counters.update(self.counters(st, classes, nats))
        chits = self.chits(counters)
        track = self.turn_track(weather, chits, events)
        sequence = self.sequence()
        victory = {st.name: self.victory(st) for st in self.all("victory")}
        checkpoints = self.check_checkpoints(victory, sequence)
        triggers = tuple(t for t in (trigger(ctx, st, self.fx, checkpoints) for st in self.all("trigger")) if t)
        stacking = self.stacking()
        mechanisms = self.mechanisms(classes)
        modifiers = self.modifiers(crts, tables, mechanisms["combat"])
        battle_options = {st.name: self.battle_option(st, classes, mechanisms["combat"])
                          for st in self.all("battle-option")}
        outcomes = self.battle_outcomes(mechanisms["combat"])
        rebuilds = {st.name: self.rebuild(st, classes) for st in self.all("rebuild")}
        control_hexes = self.control()
        if map_def is not None:
            for a in self.phase_areas:
                if a.text not in map_def.areas:
                    ctx.error("unknown-name", f"unknown area '{a.text}'", a.span, did_you_mean(a.text, map_def.areas))
        arrivals = {st.name: self.arrival(st, map_def, chits, track) for st in self.all("arrival")}
        withdrawals = {st.name: self.withdrawal(st, classes, chits) for st in self.all("withdrawal")}
        variants = {st.name: self.variant(st) for st in self.all("variant")}
        self.class_flags = {k: v.flags for k, v in classes.items()}
        scenarios = {st.name: self.scenario(st, counters, map_def, track, stacking, pools, chart)
                     for st in self.all("scenario")}
        for call in ctx.track_calls:  # track("column") names a column of the turn track
            arg = call.args[0] if len(call.args) == 1 else None
            if not isinstance(arg, E.Str):
                ctx.error("type", "track() takes a turn-track column in quotes: track(\"german-oos\")",
                          Span.parse(call.where))
            elif arg.value not in track.columns:
                ctx.error("unknown-name", f"the turn track has no column '{arg.value}'", Span.parse(arg.where or call.where),
                          did_you_mean(arg.value, track.columns))
        if not sides:
            ctx.error("missing", "the game declares no side", None, 'write: side axis "Axis" { colour "#8c8c8c" }')
        if ctx.diags.errors:
            return None
        game = D.GameDefinition(
                                info=info, dice=fm(dice), sides=fm(sides), nationalities=fm(nats), unit_classes=fm(classes),
                                counters=fm(counters), terrain=fm(terrain), chart=chart, results=fm(results), crts=fm(crts),
                                die_tables=fm(tables), turn_track=track, weather=fm(weather), chits=fm(chits), pools=fm(pools),
                                events=fm(events), sequence=sequence, scenarios=fm(scenarios), variants=fm(variants),
                                victory=fm(victory), modifiers=fm({k: tuple(v) for k, v in modifiers.items()}),
                                stacking=fm(stacking), map=map_def, arrivals=fm(arrivals), withdrawals=fm(withdrawals), **mechanisms,
                                battle_options=fm(battle_options), battle_outcomes=outcomes, rebuilds=fm(rebuilds),
                                control_hexes=control_hexes,
                                unit_selectors=fm({cid: classes[c.unit_class].flags | {c.unit_class, c.nationality, c.side, "all", "other"}
                                                   for cid, c in counters.items() if c.unit_class in classes}),
                                active_variants=self.variants,
                                sources=tuple(self.loader.src.texts),
                                markers=fm(markers), variables=fm(variables), triggers=triggers,
                                effects=fm(self.fx.effects))
        self.check_command_chain(chits, mechanisms["activation"])
        for at, message in sequence_problems(game):  # check says no where play would refuse
            ctx.error("cannot-run", message, Span.parse(at + ":1") if at else None,
                      "docs/dsl.md lists the procedures and combat procedures the engine runs")
        return None if ctx.diags.errors else game

    # ------------------------------------------------------------ game
    def game_info(self) -> D.GameInfo:
        st = self.one("game")
        if st is None:
            self.ctx.error("missing", "no 'game' statement", None,
                           'the game folder\'s game.hxr starts with: game ID "Title" { ... }')
            return D.GameInfo("?", "?")
        b = Body(self.ctx, st, "game")
        series = b.text("series")
        sys_st = self.one("system")
        inherited: dict[str, str] = {}
        if sys_st is not None:  # the series system's properties are the game's defaults
            sb = Body(self.ctx, sys_st, "system")
            for kw in ("designer", "publisher", "year", "scale", "rounding"):
                a = sb.arg(kw)
                if a is not None:
                    inherited[kw] = a.text
            sb.all("note")
            sb.finish()
            series = series or (sys_st.name or "")
        info = D.GameInfo(
            id=st.name or "?", title=title_of(st) or st.name or "?", series=series,
            designer=b.text("designer", inherited.get("designer", "")),
            publisher=b.text("publisher", inherited.get("publisher", "")),
            year=b.text("year", inherited.get("year", "")), scale=b.text("scale", inherited.get("scale", "")),
            notes=tuple(s.args[0].text for s in b.all("note") if s.args),
            rounding=self.choice(b.arg("rounding"), ("down", "up", "nearest"), "rounding")
            or inherited.get("rounding", "down"),
            where=where(st))
        b.all("map")
        b.finish()
        return info

    def choice(self, a: Arg | None, options: tuple[str, ...], what: str) -> str | None:
        if a is None:
            return None
        if a.text not in options:
            self.ctx.error("value", f"'{a.text}' is not a {what}", a.span, did_you_mean(a.text, options))
            return None
        return a.text

    def dice(self) -> dict[str, D.Die]:
        st = self.one("dice")
        out: dict[str, D.Die] = {}
        if st is None:
            return {"d6": D.Die("d6", 1, 6)}
        if not st.args:
            self.ctx.error("arguments", "dice names at least one die", st.span, "write: dice d6 d10 2d6")
        for a in st.args:
            m = DICE.match(a.text)
            if not m:
                self.ctx.error("type", f"'{a.text}' is not a die", a.span, "write d6, d10 or 2d6")
                continue
            out[a.text] = D.Die(a.text, int(m.group(1) or 1), int(m.group(2)))
        return out

    def side(self, st: Statement) -> D.Side:
        b = Body(self.ctx, st, f"side {st.name}")
        colour = self.ctx.colour(b.arg("colour")) or "#cccccc"
        edges = []
        es = b.one("supply-edge", (1, 4))
        for a in (es.args if es else ()):
            if a.text in EDGES:
                edges.append(a.text)
            else:
                self.ctx.error("value", f"'{a.text}' is not a map edge", a.span, did_you_mean(a.text, EDGES))
        text = self.ctx.colour(b.arg("text-colour")) or "#000000"
        b.finish()
        return D.Side(st.name, title_of(st) or st.name, colour, text, tuple(edges), where(st))

    def nationality(self, st: Statement) -> D.Nationality:
        b = Body(self.ctx, st, f"nationality {st.name}")
        side = self.ctx.ref("side", b.arg("side")) or ""
        if not b.arg("side"):
            self.ctx.error("missing", f"nationality {st.name} needs 'side'", st.span)
        colour = self.ctx.colour(b.arg("colour")) or "#cccccc"
        text = self.ctx.colour(b.arg("text-colour")) or "#000000"
        b.finish()
        return D.Nationality(st.name, title_of(st) or st.name, side, colour, text, where(st))

    def unit_class(self, st: Statement) -> D.UnitClass:
        b = Body(self.ctx, st, f"unit-class {st.name}")
        sym = b.arg("symbol")
        symbol = self.choice(sym, SYMBOLS, "unit symbol") if sym else "none"
        fs = b.one("factors", (1, 6))
        factors = tuple(a.text for a in fs.args) if fs else ()
        if not fs:
            self.ctx.error("missing", f"unit-class {st.name} needs 'factors'", st.span,
                           "write e.g. factors attack defence move, or factors strength move")
        flags = frozenset(a.text for f in b.all("flags") for a in f.args)
        size = b.text("size")
        b.finish()
        return D.UnitClass(st.name, title_of(st) or st.name, symbol or "none", factors, flags, size, where(st))

    def terrain(self, st: Statement) -> D.Terrain:
        b = Body(self.ctx, st, f"{st.keyword} {st.name}")
        colour = self.ctx.colour(b.arg("colour")) or "#cccccc"
        pattern = b.text("pattern")
        b.finish()
        return D.Terrain(st.name, title_of(st) or st.name, st.keyword, colour, pattern, where(st))

    def pool(self, st: Statement) -> D.Pool:
        b = Body(self.ctx, st, f"pool {st.name}")
        side = self.ctx.ref("side", b.arg("side"), allow=("both",)) or ""
        b.finish()
        return D.Pool(st.name, title_of(st) or st.name, side, where(st))

    def event(self, st: Statement) -> D.Event:
        b = Body(self.ctx, st, f"event {st.name}")
        text = b.text("text")
        for do in b.all("do"):
            self.fx.block(do, f"event:{st.name}")
        b.finish()
        return D.Event(st.name, title_of(st) or st.name, text, where(st))

    # ------------------------------------------------------------ map
    def map_(self, info: D.GameInfo) -> D.MapDef | None:
        st = self.one("game")
        if st is None:
            return None
        m = next((e for e in st.body or () if isinstance(e, Statement) and e.keyword == "map"), None)
        if m is None:
            return None
        if len(m.args) != 1 or not m.args[0].quoted:
            self.ctx.error("arguments", "map takes one quoted file name", m.span, 'write: map "map.hxm"')
            return None
        game_dir = Path(self.loader.entry_file).parent
        path = (game_dir / m.args[0].text).resolve()
        try:
            path.relative_to(game_dir)
        except ValueError:
            self.ctx.error("map-outside", "the map file must be inside the game folder", m.args[0].span)
            self.map_failed = True
            return None
        if path.suffix != MAP_SUFFIX or not self.loader.game_place(path):  # checked where a link leads, too
            self.ctx.error("map-kind", f"the map must be a {MAP_SUFFIX} file in the game folder", m.args[0].span,
                           'write: map "map.hxm"')
            self.map_failed = True
            return None
        result = mapfile.load_map(path, self.loader.src, self.ctx, m.args[0].span, self.loader.art_dir)
        self.map_failed = result is None
        return result

    # ------------------------------------------------------------ TEC
    def terrain_effects(self, classes: dict[str, D.UnitClass]) -> D.TerrainChart:
        st = self.one("terrain-effects")
        if st is None:
            return D.TerrainChart(fm({}))
        ctx = self.ctx
        b = Body(ctx, st, "terrain-effects")
        bridging = frozenset(a.text for s in b.all("bridges") for a in s.args
                             if ctx.terrain_ref(a, ("link",)))
        linked = tuple(a.text for s in b.all("adjacent-cities-linked") for a in s.args
                       if ctx.terrain_ref(a, ("link",)))
        extra = {a.text for s in b.all("column") for a in s.args}
        view = TableView.of(ctx, b.table(), "the terrain effects chart", st.span)
        b.finish()
        effects: dict[str, D.TerrainEffect] = {}
        if view is None:
            return D.TerrainChart(fm({}), bridging, linked, where(st))
        view.require_first("terrain")
        selectors = set(classes) | ctx.class_flags | {"other", "all"}
        fixed = ("terrain", "move", "left-shift", "attack", "advance", "zoc-to-zoc", "combat", "defence")

        modes = set(ctx.symbols.get("movement-mode", {}))

        def mode_column(c: str) -> bool:
            """A movement mode's own column: MODE or MODE:SELECTOR (forced-march, strategic:tank-army)."""
            mode, _, sel = c.partition(":")
            return mode in modes and (not sel or sel in selectors)

        def allowed(c: str) -> bool:
            if c.startswith("move:"):
                sel = c[5:]
                return sel in selectors
            return c in fixed or c in extra or mode_column(c)

        view.check_columns(allowed, list(fixed) + [f"move:{s}" for s in sorted(selectors)] + sorted(extra)
                           + sorted(modes))
        move_cols = [c for c in view.columns if c == "move" or c.startswith("move:")]
        mode_cols = [c for c in view.columns if mode_column(c) and c not in extra]
        for r in view.rows:
            name = ctx.terrain_ref(r.cells[0], ("terrain", "feature", "hexside", "link"))
            if not name:
                continue
            moves = []
            for c in move_cols:
                cost = self.cost(view.cell(r, c))
                if cost:
                    moves.append(("all" if c == "move" else c[5:], cost))
            shift_cell = view.cell(r, "left-shift")
            shifts, add, combat_no = None, False, False
            if shift_cell is not None and not is_dash(shift_cell):
                t = shift_cell.text
                if t == "no":
                    combat_no = True
                else:
                    add = t.startswith("+")
                    shifts = ctx.int_(shift_cell, "a column shift", -10, 10)
            attack = ""
            ac = view.cell(r, "attack")
            if ac is not None and not is_dash(ac):
                if ac.text in ("half", "1/2"):
                    attack = "half"
                elif ac.text == "no":
                    combat_no = True
                else:
                    ctx.error("value", f"attack effect is 'half', 'no' or '-', not '{ac.text}'", ac.span)
            cc = view.cell(r, "combat")
            if cc is not None and not is_dash(cc):
                combat_no = combat_no or not read_yes_no(ctx, cc, "combat", True)
            adv = None
            av = view.cell(r, "advance")
            if av is not None and not is_dash(av):
                adv = 0 if av.text == "no" else ctx.int_(av, "advance after combat", 0, 20)
            z = read_yes_no(ctx, view.cell(r, "zoc-to-zoc"), "zoc-to-zoc", True)
            defence = None
            dc = view.cell(r, "defence")
            if dc is not None and not is_dash(dc):
                defence = read_fraction(dc.text.lstrip("x×"))
                if defence is None:
                    ctx.error("type", f"defence is a multiplier such as x2 or 1/2, not '{dc.text}'", dc.span)
            values = {c: view.cell(r, c).text for c in view.columns if c in extra}
            by_mode: dict[str, list[tuple[str, D.Cost]]] = {}
            for c in mode_cols:
                cost = self.cost(view.cell(r, c))
                if cost:
                    mode, _, sel = c.partition(":")
                    by_mode.setdefault(mode, []).append((sel or "all", cost))
            effects[name] = D.TerrainEffect(name, tuple(moves), shifts, add, attack, adv, z, combat_no,
                                            defence, fm(values), fm({k: tuple(v) for k, v in by_mode.items()}),
                                            where(r))
        return D.TerrainChart(fm(effects), bridging, linked, where(st))

    def cost(self, a: Arg | None) -> D.Cost | None:
        if a is None:
            return None
        t = a.text
        if is_dash(t):
            return D.Cost("inherit")
        if t in ("all", "no"):
            return D.Cost(t)
        add = t.startswith("+")
        v = read_fraction(t.lstrip("+"))
        if v is None or v < 0:
            self.ctx.error("type", f"a movement cost is a number, +N, all, no or '-', not '{t}'", a.span,
                           "for example 2, +1, 1/2, all (all MP), no (prohibited), - (other terrain applies)")
            return None
        return D.Cost("add" if add else "set", v)

    # ------------------------------------------------------------ results & CRT
    def results(self, st: Statement) -> dict[str, D.ResultCode]:
        ctx = self.ctx
        b = Body(ctx, st, f"results {st.name}")
        view = TableView.of(ctx, b.table(), f"results {st.name}", st.span)
        b.finish()
        out: dict[str, D.ResultCode] = {}
        if view is None:
            return out
        view.require_first("code")
        cols = ("code", "attacker", "defender", "retreat", "attacker-retreat", "exchange", "special", "title")
        view.check_columns(lambda c: c in cols, cols)

        def num(r, c):
            a = view.cell(r, c)
            if a is None or is_dash(a):
                return 0
            return ctx.int_(a, f"'{c}'", 0, 99) or 0

        for r in view.rows:
            code = r.cells[0].text
            code = "-" if is_dash(code) else code
            sp = view.cell(r, "special")
            ex = view.cell(r, "exchange")
            if ex is not None and read_yes_no(ctx, ex, "exchange", False):
                ctx.error("unused", f"the exchange of {code} is not used by any rule", ex.span,
                          "the engine applies step losses and retreats: write the steps each side loses "
                          "in the attacker and defender columns")
            if sp is not None and not is_dash(sp):
                ctx.error("unused", f"the special result '{sp.text}' of {code} is not used by any rule", sp.span,
                          "the engine applies the attacker, defender, retreat and attacker-retreat "
                          "columns; write '-' (or describe the result in its title)")
            out[code] = D.ResultCode(
                code, num(r, "attacker"), num(r, "defender"), num(r, "attacker-retreat"), num(r, "retreat"),
                read_yes_no(ctx, view.cell(r, "exchange"), "exchange", False),
                "" if sp is None or is_dash(sp) else sp.text,
                (view.cell(r, "title").text if view.cell(r, "title") is not None else ""), where(r))
        out.setdefault("-", D.ResultCode("-", title="no effect"))
        return out

    COLUMN = re.compile(r"([0-9]+(?:\.[0-9]+)?)(?:[-:]([0-9]+(?:\.[0-9]+)?))?(\+)?(?:-1)?$")
    DIFF = re.compile(r"([+-]?[0-9]+)(\+)?$")

    def crt(self, st: Statement, results: dict[str, dict[str, D.ResultCode]]) -> D.Crt:
        ctx = self.ctx
        b = Body(ctx, st, f"crt {st.name}")
        method = self.choice(b.arg("method"), ("odds", "differential"), "CRT method") or "odds"
        res_name = ctx.ref("results", b.arg("results")) or ""
        if b.arg("results") is None:
            ctx.error("missing", f"crt {st.name} needs 'results' naming its result codes", st.span,
                      "write: results NAME, and define them in: results NAME { table { code ... } }")
        dice: dict[str, str] = {}
        for d in b.all("die"):
            if len(d.args) == 1:
                dice["*"] = ctx.ref("die", d.args[0]) or "d6"
            elif len(d.args) == 2:
                side = ctx.ref("side", d.args[0])
                if side:
                    dice[side] = ctx.ref("die", d.args[1]) or "d6"
            else:
                ctx.error("arguments", "die takes a die, or a side and a die", d.span,
                          "write: die d6   or   die soviet d10")
        if not dice:
            dice["*"] = "d6"
        rounding = self.choice(b.arg("rounding"), ("down", "nearest", "up"), "odds rounding") or "down"
        clamp = self.choice(b.arg("clamp"), ("before-shifts", "after-shifts"), "clamp rule") or "before-shifts"
        below = self.choice(b.arg("below-lowest"), ("no-attack", "lowest"), "rule below the lowest column") \
            or "no-attack"
        above = self.choice(b.arg("above-highest"), ("highest",), "rule above the highest column") or "highest"
        view = TableView.of(ctx, b.table(), f"crt {st.name}", st.span)
        b.finish()
        columns: list[D.CrtColumn] = []
        rows: dict[int, tuple[str, ...]] = {}
        if view is not None:
            for h in view.table.rows[0].cells[1:]:
                col = self.crt_column(h, method)
                if col:
                    if columns and col.ratio <= columns[-1].ratio:
                        ctx.error("crt-order", f"CRT columns must ascend: '{h.text}' comes after "
                                  f"'{columns[-1].label}'", h.span)
                    columns.append(col)
            codes = results.get(res_name, {})
            for r in view.rows:
                rng = read_range(ctx, r.cells[0], "die roll")
                if rng is None:
                    continue
                lo, hi = rng
                cells = []
                for c in r.cells[1:]:
                    code = "-" if is_dash(c) else c.text
                    if codes and code not in codes:
                        ctx.error("unknown-result", f"result code '{code}' is not defined in results {res_name}",
                                  c.span, did_you_mean(code, codes) or f"define it in results {res_name}")
                    cells.append(code)
                if hi is None:  # "6+": this row and every higher total the CRT's dice give
                    top = max((d.high for d in self._dice().values()), default=lo)
                    hi = max(lo, top)
                for total in range(lo, hi + 1):
                    rows[total] = tuple(cells)
            dice_map = self._dice() if not view.bad_rows else {}
            for side, dname in dice.items():
                die = dice_map.get(dname)
                if die is None:
                    continue
                missing = [t for t in range(die.low, die.high + 1) if t not in rows]
                if missing:
                    ctx.error("crt-rows", f"crt {st.name} has no row for {dname} roll"
                              f"{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}",
                              view.table.span)
        return D.Crt(st.name, title_of(st) or st.name, method, res_name, fm(dice), tuple(columns), fm(rows),
                     rounding, clamp, below, above, where(st))

    def _dice(self) -> dict[str, D.Die]:
        return self.dice() if self.one("dice") else {"d6": D.Die("d6", 1, 6)}

    def crt_column(self, h: Arg, method: str) -> D.CrtColumn | None:
        t = h.text
        if method == "differential":
            m = self.DIFF.match(t)
            if not m:
                self.ctx.error("crt-column", f"'{t}' is not a differential column", h.span, "write -2, 0, +3 or +6+")
                return None
            return D.CrtColumn(t, Fraction(int(m.group(1))), bool(m.group(2)))
        m = self.COLUMN.match(t)
        if not m:
            self.ctx.error("crt-column", f"'{t}' is not an odds column", h.span,
                           "write odds as printed: 1-2, 1-1, 1.5-1, 3-1 or 10+")
            return None
        a = Fraction(m.group(1))
        d = Fraction(m.group(2)) if m.group(2) else Fraction(1)
        if d == 0:
            self.ctx.error("crt-column", f"'{t}' divides by zero", h.span)
            return None
        return D.CrtColumn(t, a / d, bool(m.group(3)))

    # ------------------------------------------------------------ die tables
    def die_table(self, st: Statement) -> D.DieTable:
        ctx = self.ctx
        b = Body(ctx, st, f"die-table {st.name}")
        die = ctx.ref("die", b.arg("die")) or "d6"
        mods = []
        for m in b.all("modifier"):
            mm = self.modifier(m, target=st.name)
            if mm:
                mods.append(mm)
        view = TableView.of(ctx, b.table(), f"die-table {st.name}", st.span)
        inp = b.one("input", (0, 0))
        ons = b.all("on")
        b.finish()
        if inp is not None:
            ctx.expr(inp.value)
            if inp.value is None:
                ctx.error("value-place", "input needs '= EXPRESSION' (the value that picks the column)", inp.span)
        if view is None:
            return D.DieTable(st.name, title_of(st) or st.name, die, (), (), None, (), tuple(mods), where(st))
        view.require_first("die")
        headers = view.table.rows[0].cells[1:]
        col_ranges = None
        if headers and all(re.match(r"[0-9]", h.text) for h in headers):
            col_ranges = tuple(r for r in (read_range(ctx, h, "column") for h in headers) if r)
        row_ranges, cells = [], []
        for r in view.rows:
            rng = read_range(ctx, r.cells[0], "die roll")
            if rng:
                row_ranges.append(rng)
                cells.append(tuple("-" if is_dash(c) else c.text for c in r.cells[1:]))
        if inp is not None and col_ranges is None:
            ctx.error("input", f"die-table {st.name} has named columns: only a two-way table (columns of value "
                      "ranges such as 1-7 8-12 13+) reads an input", inp.span)
        table = D.DieTable(st.name, title_of(st) or st.name, die, tuple(row_ranges),
                           tuple(h.text for h in headers), col_ranges, tuple(cells), tuple(mods), where(st),
                           inp.value if inp is not None else None,
                           frozenset(o.args[0].text for o in ons if o.args))
        check_results(ctx, table, ons)
        for o in ons:
            if o.args:
                self.fx.block(o, f"table:{st.name}:{o.args[0].text}")
        return table

    def modifiers(self, crts: dict[str, D.Crt], tables: dict[str, D.DieTable],
                  combat: D.CombatRules) -> dict[str, list[D.Modifier]]:
        """Top-level ``modifier`` statements by target; those on a die table's
        id join the table's own modifier lines (a ``roll`` reads them).  A
        target nothing reads is an error: an unknown one, or one of the other
        combat family (firepower modifiers in a CRT game and back)."""
        ctx = self.ctx
        out: dict[str, list[D.Modifier]] = {}
        known = ("firepower", "disrupt-at", "eliminate-at", "strength.attacker", "strength.defender",
                 *crts, *(f"{c}.shift" for c in crts))
        for st in self.all("modifier"):
            m = self.modifier(st)
            if m is None:
                continue
            span = st.args[0].span if st.args else st.span
            if m.target in tables:
                t = tables[m.target]
                tables[m.target] = dataclasses.replace(t, modifiers=t.modifiers + (m,))
                continue
            if m.target not in known:
                ctx.error("unknown-name", f"unknown modifier target '{m.target}': nothing would read it", span,
                          did_you_mean(m.target, known + tuple(tables)) or
                          "a CRT's id (its die roll), CRT.shift, strength.attacker, strength.defender, a die "
                          "table's id, firepower, disrupt-at or eliminate-at")
                continue
            if m.target in ("firepower", "disrupt-at", "eliminate-at") and combat.procedure != "firepower":
                ctx.error("value", f"modifier {m.target} is not used by any rule: only firepower combat reads it",
                          span, "write: combat { procedure firepower ... }")
                continue
            if m.target.startswith("strength.") and combat.procedure != "odds":
                ctx.error("value", f"modifier {m.target} is not used by any rule: only combat on a CRT reads it",
                          span, "write: combat { procedure odds; crt ID }")
                continue
            out.setdefault(m.target, []).append(m)
        return out

    def modifier(self, st: Statement, target: str | None = None) -> D.Modifier | None:
        """``modifier TARGET [N | = EXPR] ["title"] [when COND]``."""
        ctx = self.ctx
        args = list(st.args)
        title = ""
        if args and args[-1].quoted:
            title = args.pop().text
        if target is None:
            if not args:
                ctx.error("arguments", "modifier needs what it modifies", st.span,
                          'write: modifier firepower "river" = 1 when side == defender')
                return None
            target = args.pop(0).text
        amount = st.value
        if amount is None:
            if len(args) != 1:
                ctx.error("arguments", "modifier needs an amount: +1, -2 or = EXPRESSION", st.span)
                return None
            v = ctx.int_(args[0], "a modifier")
            if v is None:
                return None
            from runtime.expr import Num
            amount = Num(v, where=str(args[0].span))
        elif args:
            ctx.error("arguments", "a modifier has either a number or '= expression', not both", args[0].span)
        ctx.expr(amount)
        ctx.expr(st.condition)
        if st.body is not None:
            ctx.error("block", "modifier takes no block", st.span)
        return D.Modifier(target, amount, st.condition, title, where(st))

    # ------------------------------------------------------------ counters
    def counters(self, st: Statement, classes: dict[str, D.UnitClass],
                 nats: dict[str, D.Nationality]) -> dict[str, D.Counter]:
        ctx = self.ctx
        b = Body(ctx, st, f"counters {st.name}")
        d_side = ctx.ref("side", b.arg("side"))
        d_nat = ctx.ref("nationality", b.arg("nationality"))
        d_class = ctx.ref("unit-class", b.arg("class"), "unit class")
        d_form = b.text("formation")
        view = TableView.of(ctx, b.table(), f"counters {st.name}", st.span)
        b.finish()
        out: dict[str, D.Counter] = {}
        if view is None:
            return out
        view.require_first("id")
        cols = ("id", "class", "side", "nationality", "full", "reduced", "formation", "arrives", "name", "tags",
                "front", "back")
        before = len(ctx.diags.errors)
        view.check_columns(lambda c: c in cols, cols)
        if len(ctx.diags.errors) > before:
            return out  # rows read against a wrong header would only repeat the error
        if "full" not in view.columns:
            ctx.error("table-header", f"counters {st.name} needs a 'full' column with the printed factors",
                      view.table.rows[0].span)
            return out
        for r in view.rows:
            cid = r.cells[0].text
            cls = ctx.ref("unit-class", view.cell(r, "class"), "unit class") if view.col("class") is not None \
                else d_class
            nat = ctx.ref("nationality", view.cell(r, "nationality")) if view.col("nationality") is not None \
                else d_nat
            side = ctx.ref("side", view.cell(r, "side")) if view.col("side") is not None else d_side
            if nat and not side:
                side = nats[nat].side if nat in nats else None
            if not cls or cls not in classes:
                if cls is None and view.col("class") is None:
                    ctx.error("missing", f"counter {cid} has no class", r.cells[0].span,
                              "add a 'class' column or a 'class' line to the block")
                continue
            if not side:
                ctx.error("missing", f"counter {cid} has no side", r.cells[0].span,
                          "add a 'side' or 'nationality' column, or a line to the block")
                continue
            if nat and nat in nats and nats[nat].side != side:
                ctx.error("side", f"counter {cid} is on side {side} but nationality {nat} is {nats[nat].side}",
                          r.cells[0].span)
            factors = classes[cls].factors
            steps = []
            for col in ("full", "reduced"):
                cell = view.cell(r, col)
                if cell is None or is_dash(cell):
                    if col == "full":
                        ctx.error("missing", f"counter {cid} has no printed factors", r.cells[0].span)
                    continue
                vals = cell.text.split("-")
                if len(vals) != len(factors) or not all(v.isdigit() for v in vals):
                    ctx.error("factors", f"'{cell.text}' does not fit class {cls}: it prints "
                              f"{'-'.join(factors)}", cell.span,
                              f"write {len(factors)} whole number{'s' * (len(factors) > 1)} joined by '-'")
                    continue
                steps.append(fm(dict(zip(factors, map(int, vals)))))
            if not steps:
                continue
            arrives = ""
            ac = view.cell(r, "arrives")
            if ac is not None and not is_dash(ac) and ac.text != "setup":
                if ac.text.isdigit():
                    arrives = f"turn:{int(ac.text)}"
                elif ctx.has("pool", ac.text):
                    arrives = f"pool:{ac.text}"
                else:
                    ctx.ref("pool", ac, "pool", allow=())
            form = view.cell(r, "formation")
            formation = form.text if form is not None and not is_dash(form) else d_form
            name = view.cell(r, "name")
            tags = view.cell(r, "tags")
            front = art_file(ctx, self.loader.art_dir, view.cell(r, "front"), f"counter {cid}'s front")
            back = art_file(ctx, self.loader.art_dir, view.cell(r, "back"), f"counter {cid}'s back")
            out[cid] = D.Counter(cid, name.text if name is not None and not is_dash(name) else cid, side,
                                 nat or "", cls, tuple(steps), formation, arrives,
                                 frozenset(read_list(tags)) if tags is not None else frozenset(), where(r),
                                 front, back)
        return out

    # ------------------------------------------------------------ chits
    def chits(self, counters: dict[str, D.Counter]) -> dict[str, D.Chit]:
        st = self.one("chits")
        out: dict[str, D.Chit] = {}
        if st is None:
            return out
        ctx = self.ctx
        b = Body(ctx, st, "chits")
        view = TableView.of(ctx, b.table(), "the chits table", st.span)
        drawn = {od.args[0].text for od in b.all("on-draw") if od.args}  # chits whose draw runs effects
        for od in b.all("on-draw"):
            if len(od.args) == 1 and ctx.ref("chit", od.args[0]):
                self.fx.block(od, f"chit:{od.args[0].text}")
            elif len(od.args) != 1:
                ctx.error("arguments", "on-draw takes one chit", od.span, "write: on-draw Reinf { effects }")
        b.finish()
        if view is None:
            return out
        view.require_first("id")
        cols = ("id", "side", "kind", "hq", "count", "from", "always", "pick", "command", "needs", "title")
        view.check_columns(lambda c: c in cols, cols)
        for r in view.rows:
            cid = r.cells[0].text
            side = ctx.ref("side", view.cell(r, "side"), allow=("both",)) or ""
            kind = self.choice(view.cell(r, "kind"), ACTIVATION_KINDS, "chit kind") or "hq"
            if kind in UNRUN_CHIT_KINDS and cid not in drawn:
                ctx.error("unused", f"a chit of kind '{kind}' is not used by any rule: drawing it does nothing",
                          view.cell(r, "kind").span, "the engine runs chits of kind " +
                          ", ".join(k for k in ACTIVATION_KINDS if k not in UNRUN_CHIT_KINDS) +
                          f"; give it effects (on-draw {cid} {{ ... }}) or leave it out")
            hq = ""
            hc = view.cell(r, "hq")
            any_hq = hc is not None and hc.text == "any"
            if any_hq:
                if kind not in ("hq", "interrupt"):
                    ctx.error("value", f"chit {cid} is a {kind} chit: only hq and interrupt chits activate an HQ",
                              hc.span)
            elif hc is not None and not is_dash(hc):
                hq = ctx.ref("counter", hc, "HQ counter", allow=("any",)) or ""
                if hq and hq in counters and side not in ("", "both") and counters[hq].side != side:
                    ctx.error("side", f"chit {cid} is {side}'s but activates {hq}, a {counters[hq].side} unit",
                              hc.span)
            elif kind == "hq":
                ctx.error("missing", f"chit {cid} is an hq chit but names no HQ", r.cells[0].span,
                          "name its HQ counter, or write any: its side chooses one of its HQs")
            cnt = view.cell(r, "count")
            count = 1 if cnt is None or is_dash(cnt) else ctx.int_(cnt, "count", 1, 99) or 1
            fr = view.cell(r, "from")
            first = 1 if fr is None or is_dash(fr) else ctx.int_(fr, "first turn", 0, 999) or 1
            always = read_yes_no(ctx, view.cell(r, "always"), "always", False)
            pick = read_yes_no(ctx, view.cell(r, "pick"), "pick", False)
            title = view.cell(r, "title")
            command: tuple[str, ...] = ("range",)
            cc = view.cell(r, "command")
            if cc is not None and not is_dash(cc):
                command = tuple(read_list(cc))
                for x in command:
                    if x not in ("range", "chain"):
                        ctx.error("value", f"'{x}' is not a way to command", cc.span,
                                  did_you_mean(x, ("range", "chain")) or "write range, chain or range,chain")
                if kind not in ("hq", "interrupt"):
                    ctx.error("unused", f"chit {cid}'s command is not used by any rule: a {kind} chit activates "
                              "no HQ", cc.span)
            nc = view.cell(r, "needs")
            needs_hq = nc is not None and not is_dash(nc)
            if needs_hq and nc.text != "hq-on-map":
                ctx.error("value", f"'{nc.text}' is not a condition a chit can need", nc.span,
                          "write hq-on-map (the chit's HQ, or with hq any one of its side's HQs, is on the map)")
            elif needs_hq and not (hq or any_hq):
                ctx.error("unused", f"chit {cid} needs its HQ on the map but names no HQ", nc.span)
            out[cid] = D.Chit(cid, title.text if title is not None and not is_dash(title) else cid, side, kind,
                              hq, count, first, always, pick, where(r), any_hq, command, needs_hq)
        return out

    # ------------------------------------------------------------ turn track
    def turn_track(self, weather, chits, events) -> D.TurnTrack:
        st = self.one("turn-track")
        if st is None:
            return D.TurnTrack((), ())
        ctx = self.ctx
        b = Body(ctx, st, "turn-track")
        custom: dict[str, str] = {}
        for c in b.all("column"):
            if len(c.args) != 2 or c.args[1].text not in ("number", "text", "list"):
                ctx.error("arguments", "column takes a name and a type: number, text or list", c.span)
                continue
            custom[c.args[0].text] = c.args[1].text
        view = TableView.of(ctx, b.table(), "the turn track", st.span)
        b.finish()
        if view is None:
            return D.TurnTrack((), ())
        view.require_first("turn")
        sides = set(ctx.symbols.get("side", {}))
        per_side = ("chits", "reinforcements", "new-chits")

        def allowed(c: str) -> bool:
            if c in ("turn", "date", "weather", "chits", "events") or c in custom:
                return True
            s, _, what = c.partition(".")
            return s in sides and what in per_side

        view.check_columns(allowed, ["date", "weather", "chits", "events"] + list(custom) +
                           [f"{s}.{w}" for s in sides for w in per_side])
        turns = []
        last = 0
        for r in view.rows:
            n = ctx.int_(r.cells[0], "turn number", 0, 999)
            if n is None:
                continue
            if n <= last and turns:
                ctx.error("turn-order", f"turn {n} comes after turn {last}", r.cells[0].span)
            last = n
            values: dict[str, object] = {}
            for c, a in zip(view.columns[1:], r.cells[1:]):
                if c == "date":
                    continue
                if is_dash(a):
                    values[c] = () if c in ("chits", "events") or custom.get(c) == "list" else None
                elif c == "weather":
                    values[c] = ctx.ref("weather", a)
                elif c == "chits":
                    values[c] = tuple(x for x in read_list(a) if self._ref_text("chit", x, a))
                elif c == "events":
                    values[c] = tuple(x for x in read_list(a) if self._ref_text("event", x, a))
                elif c.endswith(".chits") and a.text == "all":
                    values[c] = "all"
                elif custom.get(c) == "text":
                    values[c] = a.text
                elif custom.get(c) == "list":
                    values[c] = tuple(read_list(a))
                else:
                    values[c] = ctx.int_(a, f"'{c}'", 0, 999)
            date = view.cell(r, "date")
            turns.append(D.Turn(n, date.text if date is not None and not is_dash(date) else "", fm(values), where(r)))
        return D.TurnTrack(tuple(turns), tuple(view.columns[1:]))

    def _ref_text(self, kind: str, name: str, a: Arg) -> bool:
        if self.ctx.has(kind, name):
            return True
        self.ctx.error("unknown-name", f"unknown {kind} '{name}'", a.span,
                       did_you_mean(name, self.ctx.symbols.get(kind, {})))
        return False

    # ------------------------------------------------------------ sequence
    def sequence(self) -> tuple[D.Phase, ...]:
        st = self.one("sequence")
        if st is None:
            for sc in self.all("scenario")[:1]:  # something to play, and no way to play it
                self.ctx.error("missing", f"scenario {sc.name} cannot be played: the game has no sequence of play",
                               sc.span, "write: sequence { phase ... { procedure move } ... "
                               "phase end-of-turn \"End of turn\" { procedure advance-turn } }")
            return ()
        out = self.phases(st, "sequence")
        if not out:
            self.ctx.error("missing", "the sequence of play has no phase", st.span,
                           'write its phases: phase movement "Movement" { procedure move } ...')
        stack, ends = list(out), False
        while stack:
            ph = stack.pop()
            ends = ends or ph.procedure == "advance-turn"
            stack.extend(ph.children)
        if out and not ends:
            self.ctx.error("missing", "the sequence of play never moves the turn marker", st.span,
                           'add a phase: phase end-of-turn "End of turn" { procedure advance-turn }')
        return out

    PHASE_KINDS = ("phase", "player-turn", "chit-loop", "segment")

    def phases(self, st: Statement, what: str) -> tuple[D.Phase, ...]:
        ctx = self.ctx
        out = []
        b = Body(ctx, st, what)
        for kw in self.PHASE_KINDS:
            b.all(kw)
        if st.keyword in self.PHASE_KINDS:
            for kw in self.PHASE_PROPERTIES:
                b.all(kw)  # a phase's own properties; read (and checked against its procedure) in phase()
        for e in st.body or ():
            if isinstance(e, Statement) and e.keyword in self.PHASE_KINDS:
                out.append(self.phase(e))
        b.finish()
        # `before NAME`: an overriding phase placed before a sibling (overrides append otherwise)
        for ph in [p for p in out if p.params.get("before")]:
            target = ph.params["before"][0]
            names = [p.id for p in out if p is not ph]
            if target not in names:
                span = Span.parse(ph.where + ":1")
                ctx.error("unknown-name", f"phase {ph.id} is to come before '{target}', which is not beside it",
                          span, did_you_mean(target, names))
                continue
            out.remove(ph)
            out.insert(next(i for i, p in enumerate(out) if p.id == target), ph)
        return tuple(out)

    PHASE_PROPERTIES = ("procedure", "note", "before") + tuple(sorted({p for ps in PHASE_PROPERTIES.values()
                                                                       for p in ps}))

    def phase(self, st: Statement) -> D.Phase:
        ctx = self.ctx
        name = st.name or st.keyword
        side = ""
        if st.keyword == "player-turn":
            side = ctx.ref("side", st.arg(0)) or ""
        title = title_of(st) or name
        params: dict[str, tuple[str, ...]] = {}
        procedure = ""
        for e in st.body or ():
            if not isinstance(e, Statement) or e.keyword in self.PHASE_KINDS:
                continue
            if e.keyword == "procedure":
                if not e.args:
                    ctx.error("arguments", "procedure names what the phase does", e.span,
                              did_you_mean("", PROCEDURES))
                    continue
                procedure = e.args[0].text
                if procedure not in PROCEDURES:
                    ctx.error("unknown-procedure", f"unknown procedure '{procedure}'", e.args[0].span,
                              did_you_mean(procedure, PROCEDURES))
                for extra in e.args[1:]:
                    ctx.error("unused", f"'{extra.text}' after the procedure is not used by any rule", extra.span,
                              "a procedure takes no arguments: its phase's properties tune it")
            elif e.keyword == "side":
                side = ctx.ref("side", e.arg(0), allow=("both",)) or side
            elif e.keyword == "ignore":  # hexside kinds a combat segment ignores (15.1(3))
                params["ignore"] = params.get("ignore", ()) + tuple(
                    a.text for a in e.args if ctx.terrain_ref(a, ("hexside",)))
            elif e.keyword == "loc-check":
                params["loc-check"] = tuple(a.text for a in e.args if ctx.ref("unit-class", a, "unit class"))
            elif e.keyword == "hq-class":
                params["hq-class"] = tuple(a.text for a in e.args if ctx.ref("unit-class", a, "unit class"))
            elif e.keyword == "die-table":
                params["die-table"] = params.get("die-table", ()) + tuple(
                    a.text for a in e.args if ctx.ref("die-table", a))
            elif e.keyword in ("only", "exclude"):  # who may act: unit selectors or a state (disrupted)
                params[e.keyword] = params.get(e.keyword, ()) + tuple(
                    self.selectors(e.args, self.ctx.symbols.get("unit-class", {}), UNIT_STATES))
            elif e.keyword == "limit":
                if len(e.args) != 1 or ctx.int_(e.args[0], "limit", 1, 999) is None:
                    if len(e.args) != 1:
                        ctx.error("arguments", "limit takes a number of units", e.span, "write: limit 2")
                    continue
                params["limit"] = (e.args[0].text,)
            elif e.keyword == "at":  # where a reinforce phase's units enter: an area
                if len(e.args) != 1:
                    ctx.error("arguments", "at takes one map area", e.span, "write: at axis-north")
                else:
                    params["at"] = (e.args[0].text,)
                    self.phase_areas.append(e.args[0])
            elif e.keyword == "due":
                if [a.text for a in e.args] != ["next-turn"]:
                    ctx.error("value", "due takes 'next-turn': units due next turn enter now", e.span)
                else:
                    params["due"] = ("next-turn",)
            elif e.keyword == "option":  # option NAME "question": a yes/no choice, read as chosen(NAME)
                if not e.args or e.args[0].quoted:
                    ctx.error("arguments", "option takes a name and the question", e.span,
                              'write: option siberian-early "Bring the Siberians in now?"')
                else:
                    params["option"] = (e.args[0].text, title_of(e) or e.args[0].text)
            else:  # repeated properties accumulate (two 'note' lines keep both)
                params[e.keyword] = params.get(e.keyword, ()) + tuple(a.text for a in e.args)
        self.check_phase_properties(st, procedure)
        if procedure in ("move", "strategic-move"):
            modes = set(ctx.symbols.get("movement-mode", {})) | {"normal"}
            for e in st.body or ():
                if isinstance(e, Statement) and e.keyword == "mode":
                    for a in e.args:
                        if a.text not in modes:
                            ctx.error("unknown-name", f"'{a.text}' is not a movement mode", a.span,
                                      did_you_mean(a.text, modes))
        if procedure == "decide" and "option" not in params:
            ctx.error("missing", f"phase {name} decides nothing: it needs an option", st.span,
                      'write: option siberian-early "Bring the Siberians in now?"')
        if st.keyword == "phase" and not procedure:
            ctx.error("missing", f"phase {name} needs a procedure", st.span, did_you_mean("", PROCEDURES))
        children = self.phases(st, f"{st.keyword} {name}") if st.body else ()
        ctx.expr(st.condition)
        return D.Phase(name, title, st.keyword, procedure, side, fm(params), st.condition, children, where(st))

    def check_phase_properties(self, st: Statement, procedure: str) -> None:
        """Each property of a phase is one its procedure reads (a player-turn,
        chit-loop or segment reads none but its notes)."""
        if st.keyword == "phase" and procedure not in PHASE_PROPERTIES:
            return  # an unknown procedure: reported already
        reads = PHASE_PROPERTIES.get(procedure, ()) if st.keyword == "phase" else ()
        noun = f"{procedure} phase" if st.keyword == "phase" else st.keyword
        what = ("an " if noun[0] in "aeiou" else "a ") + noun
        for e in st.body or ():
            if not isinstance(e, Statement) or e.keyword in self.PHASE_KINDS or e.keyword in ("note", "before"):
                continue
            if e.keyword == "procedure" and st.keyword == "phase":
                continue
            if e.keyword in reads or e.keyword not in self.PHASE_PROPERTIES:
                continue
            users = sorted(p for p, ps in PHASE_PROPERTIES.items() if e.keyword in ps)
            hint = (f"phases with procedure {', '.join(users)} read it" if users and e.keyword != "procedure"
                    else "put it on a phase inside this block")
            if not reads and st.keyword == "phase":
                hint += f"; {what} takes no property"
            self.ctx.error("unused", f"'{e.keyword}' is not used by any rule of {what}", e.span, hint)

    # ------------------------------------------------------------ victory
    def victory(self, st: Statement) -> tuple[D.VictoryRule, ...]:
        ctx = self.ctx
        b = Body(ctx, st, f"victory {st.name}")
        rules = []
        for kw in ("award", "win", "end"):
            for e in b.all(kw):
                args = list(e.args)
                title = args.pop().text if args and args[-1].quoted else ""
                side = ""
                if kw != "end":
                    side = ctx.ref("side", args.pop(0) if args else None, allow=("draw",)) or ""
                    if not side and not e.args:
                        ctx.error("arguments", f"{kw} needs a side", e.span)
                at = ""
                if len(args) >= 2 and args[-2].text == "at":
                    at = args.pop().text
                    args.pop()
                amount = e.value
                if kw == "award" and amount is None:
                    if len(args) == 1:
                        from runtime.expr import Num
                        v = ctx.int_(args[0], "VP")
                        amount = Num(v or 0, where=str(args[0].span))
                        args = []
                    else:
                        ctx.error("arguments", "award needs VP: a number or = EXPRESSION", e.span)
                for extra in args:
                    ctx.error("arguments", f"unexpected '{extra.text}'", extra.span,
                              f"write: {kw} SIDE {'N ' if kw == 'award' else ''}[at CHECKPOINT] [when CONDITION]")
                ctx.expr(amount)
                ctx.expr(e.condition)
                rules.append(D.VictoryRule(kw, side, amount, e.condition, at, title, where(e)))
        b.finish()
        return tuple(rules)

    CHECKPOINTS = ("end", "turn-end", "supply", "roll", "failed-attack")

    def check_checkpoints(self, victory: dict, sequence: tuple[D.Phase, ...]) -> set[str]:
        """Every ``at CHECKPOINT`` names one the engine reaches: a fixed one or a victory-check phase."""
        known = set(self.CHECKPOINTS)
        stack = list(sequence)
        while stack:
            ph = stack.pop()
            if ph.procedure == "victory-check":
                known.add(ph.id)
            stack.extend(ph.children)
        for rules in victory.values():
            for r in rules:
                if r.at and r.at not in known:
                    span = Span.parse(r.where + ":1")
                    self.ctx.error("unknown-name", f"unknown checkpoint '{r.at}': no phase reaches it", span,
                                   did_you_mean(r.at, sorted(known)))
        return known

    def stacking(self) -> dict[str, int]:
        st = self.one("stacking")
        if st is None:
            return {}
        b = Body(self.ctx, st, "stacking")
        out = {}
        for kw in ("units", "hq", "per-class", "equipment"):
            a = b.arg(kw)
            if a is not None and kw != "units":
                self.ctx.error("unused", f"the stacking limit '{kw}' is not used by any rule", b.one(kw).span,
                               "the engine enforces 'units N' (movement, retreat, advance, placement), with "
                               "'exempt' classes not counted")
            elif a is not None:
                v = self.ctx.int_(a, f"stacking {kw}", 0, 99)
                if v is not None:
                    out[kw] = v
        for s in b.all("exempt"):
            for a in s.args:
                out[f"exempt:{a.text}"] = 1
        b.finish()
        return out

    # ------------------------------------------------------------ mechanisms
    def selectors(self, args, classes, markers: frozenset[str] = frozenset()) -> frozenset[str]:
        """Unit selectors: unit classes, class flags, nationalities, sides,
        ``all``/``other`` (and the markers given, where a state may be named)."""
        ok = set(classes) | self.ctx.class_flags | {"all", "other"} | set(markers) | \
            set(self.ctx.symbols.get("nationality", {})) | set(self.ctx.symbols.get("side", {}))
        out = set()
        for a in args:
            if a.text in ok:
                out.add(a.text)
            else:
                self.ctx.error("unknown-name", f"'{a.text}' is not a unit class, class flag, nationality or side",
                               a.span, did_you_mean(a.text, ok))
        return frozenset(out)

    def terrain_set(self, args, kinds=("terrain", "feature", "hexside", "link")) -> frozenset[str]:
        return frozenset(a.text for a in args if self.ctx.terrain_ref(a, kinds))

    def yes(self, b: Body, kw: str, default: bool) -> bool:
        return read_yes_no(self.ctx, b.arg(kw), kw, default) if b.one(kw, (0, 1)) else default

    def mechanisms(self, classes) -> dict:
        """The engine's general mechanisms as the game tunes them, one block each."""
        return {kind: getattr(self, f"_{kind}")(classes) for kind in
                ("movement", "zoc", "supply", "retreat", "advance", "activation", "reinforcements", "combat")}

    def _movement(self, classes) -> D.MovementRules:
        """Movement and its modes."""
        ctx = self.ctx
        st = self.one("movement")
        points = "move"
        if st is not None:
            b = Body(ctx, st, "movement")
            points = b.text("points", "move")
            b.finish()
        modes = []
        for m in self.all("movement-mode"):
            b = Body(ctx, m, f"movement-mode {m.name}")
            along = self.terrain_set(b.one("along", (1, 9)).args if b.one("along", (1, 9)) else (), ("link",))
            c = b.arg("cost")
            cost = read_fraction(c.text) if c else None
            if c and cost is None:
                ctx.error("type", f"cost is a number such as 1/2, not '{c.text}'", c.span)
            mu = b.arg("multiplier")
            mult = read_fraction(mu.text) if mu else Fraction(1)
            if mu and mult is None:
                ctx.error("type", f"multiplier is a number such as 2, not '{mu.text}'", mu.span)
                mult = Fraction(1)
            only = b.one("only", (1, 9))
            barred = b.one("barred", (1, 9))
            na = b.one("no-attack", (0, 9))
            no_attack = frozenset() if na is None else (self.selectors(na.args, classes) if na.args
                                                        else frozenset({"all"}))
            pts = b.arg("points")
            allowance = ctx.int_(pts, "points", 0, 999) if pts is not None else None
            fo = b.arg("follows")
            if fo is not None and fo.text != "normal":
                ctx.error("value", f"a movement mode follows 'normal' movement, not '{fo.text}'", fo.span)
            ex = b.one("except", (1, 9))
            forbid = []
            for f in b.all("forbid"):
                # forbid SELECTOR... ["title"] when CONDITION
                args = [a for a in f.args if not a.quoted]
                title = next((a.text for a in f.args if a.quoted), "")
                if not args or f.condition is None:
                    ctx.error("arguments", "forbid takes unit selectors and a condition", f.span,
                              'write: forbid armour "6.4: oil lost" when lost(bucharest)')
                    continue
                forbid.append((self.selectors(args, classes), ctx.expr(f.condition), title))
            marks = []
            for mk in b.all("marker"):
                # marker MARKER [SELECTOR...] [when CONDITION]: the unit gets the marker for using the mode
                if not mk.args:
                    ctx.error("arguments", "marker takes a marker name and unit selectors", mk.span,
                              "write: marker disrupted infantry when weather in [mud, snow]")
                    continue
                sel = self.selectors(mk.args[1:], classes) if len(mk.args) > 1 else frozenset({"all"})
                marks.append((mk.args[0].text, sel, ctx.expr(mk.condition)))
            modes.append(D.MovementMode(m.name, title_of(m) or m.name, along, cost, mult,
                                        b.flag("no-enemy-zoc"), no_attack,
                                        self.selectors(only.args, classes) if only else frozenset(),
                                        frozenset(a.text for a in barred.args) if barred else frozenset(),
                                        allowance, fo is not None,
                                        self.selectors(ex.args, classes) if ex else frozenset(),
                                        tuple(forbid), tuple(marks), b.flag("own-control"), where(m)))
            b.finish()
        return D.MovementRules(points, tuple(modes), where(st) if st else "")

    def _zoc(self, classes) -> D.ZocRules:
        """Zones of control."""
        ctx = self.ctx
        st = self.one("zoc")
        if st is None:
            return D.ZocRules()
        b = Body(ctx, st, "zoc")
        none = b.flag("none")

        def cost(kw):
            a = b.arg(kw)
            if a is None:
                return "0"
            if a.text == "stop" or re.fullmatch(r"[0-9]+", a.text.lstrip("+")):
                return a.text.lstrip("+")
            ctx.error("value", f"{kw} is extra MP (a number) or 'stop', not '{a.text}'", a.span)
            return "0"

        ex = b.one("exempt", (1, 9))
        z2z = self.choice(b.arg("zoc-to-zoc"), ("allowed", "adjacent", "no"), "zoc-to-zoc rule") or "allowed"
        ni = b.one("not-into", (1, 9))
        nb = b.one("negated-by", (1, 9))
        result = D.ZocRules(not none, self.selectors(ex.args, classes) if ex else frozenset(),
                            cost("enter"), cost("leave"), z2z,
                            self.terrain_set(ni.args) if ni else frozenset(),
                            self.selectors(nb.args, classes) if nb else frozenset(), where(st))
        b.finish()
        return result

    def _supply(self, classes) -> D.SupplyRules:
        """Lines of communication and what being cut costs."""
        ctx = self.ctx
        st = self.one("supply")
        if st is None:
            return D.SupplyRules()
        b = Body(ctx, st, "supply")
        given = b.all("blocked-by")
        # without a blocked-by line, lines are blocked by both (the usual rule)
        blocked = {a.text for s in given for a in s.args} if given else {"enemy-units", "enemy-zoc"}
        for s in b.all("blocked-by"):
            for a in s.args:
                if a.text not in ("enemy-units", "enemy-zoc", "enemy-control"):
                    ctx.error("value", "supply is blocked-by enemy-units, enemy-zoc or enemy-control, "
                              f"not '{a.text}'", a.span)
        imp, unless = set(), {}
        for s in b.all("impassable"):
            args = list(s.args)
            if len(args) == 3 and args[1].text == "unless":
                t = ctx.terrain_ref(args[0], ("terrain", "feature"))
                l = ctx.terrain_ref(args[2], ("link",))
                if t and l:
                    unless[t] = l
            else:
                imp |= self.terrain_set(args, ("terrain", "feature"))
        bh = b.one("blocking-hexsides", (1, 9))
        rail, rng = {}, {}
        rail_link = {}
        for s in b.all("rail"):
            # rail SIDE N [along LINK]: lines follow the link unbroken from a source, then N hexes
            if len(s.args) in (2, 4) and ctx.ref("side", s.args[0]):
                v = ctx.int_(s.args[1], "hexes beyond the railway", 0, 999)
                if v is not None:
                    rail[s.args[0].text] = v
                if len(s.args) == 4:
                    if s.args[2].text != "along":
                        ctx.error("arguments", f"expected 'along', not '{s.args[2].text}'", s.args[2].span,
                                  "write: rail soviet 12 along road")
                    elif ctx.terrain_ref(s.args[3], ("link",)):
                        rail_link[s.args[0].text] = s.args[3].text
            else:
                ctx.error("arguments", "rail takes a side and the hexes a line may run beyond the railway",
                          s.span, "write: rail axis 6   or   rail soviet 12 along road")
        for s in b.all("range"):
            if len(s.args) == 2 and ctx.ref("side", s.args[0]):
                v = ctx.int_(s.args[1], "supply range", 0, 999)
                if v is not None:
                    rng[s.args[0].text] = v
        kinds = ("lose-step", "out-of-supply", "isolated", "disrupt", "eliminate")
        cons, by_unit = "out-of-supply", []
        for s in b.all("consequence"):
            # consequence KIND [for SELECTOR...]: the first one naming a unit's selectors applies
            if not s.args:
                ctx.error("arguments", "consequence takes what happens to units out of supply", s.span,
                          did_you_mean("", kinds))
                continue
            kind = self.choice(s.args[0], kinds, "supply consequence") or "out-of-supply"
            if len(s.args) == 1:
                cons = kind
            elif s.args[1].text != "for" or len(s.args) < 3:
                ctx.error("arguments", f"expected 'for' and unit selectors after '{s.args[0].text}'",
                          s.args[1].span, "write: consequence disrupt for german")
            else:
                by_unit.append((self.selectors(s.args[2:], classes), kind))
        cs = b.one("city-supply", (1, 9))
        city = frozenset(a.text for a in (cs.args if cs else ()) if ctx.ref("side", a))
        ex = b.one("exempt", (1, 9))
        halves: dict[str, frozenset[str]] = {}
        for s in b.all("marker"):
            # marker NAME halve attack defence move
            if len(s.args) < 3 or s.args[1].text != "halve":
                ctx.error("arguments", "marker takes a marker name, 'halve' and what it halves", s.span,
                          "write: marker isolated halve attack defence move")
                continue
            what = set()
            for a in s.args[2:]:
                if a.text in ("attack", "defence", "move"):
                    what.add(a.text)
                else:
                    ctx.error("value", f"a marker halves attack, defence or move, not '{a.text}'", a.span)
            halves[s.args[0].text] = frozenset(what)
        order = tuple(a.text for a in (b.one("order", (1, 9)).args if b.one("order", (1, 9)) else ())
                      if ctx.ref("side", a))
        skip = []
        for s in b.all("skip"):
            if len(s.args) != 1 or s.condition is None:
                ctx.error("arguments", "skip takes a side and a condition", s.span,
                          "write: skip axis when turn <= 3")
                continue
            if ctx.ref("side", s.args[0]):
                skip.append((s.args[0].text, ctx.expr(s.condition)))
        result = D.SupplyRules(
                               blocked_by_enemy_units="enemy-units" in blocked, blocked_by_enemy_zoc="enemy-zoc" in blocked,
                               friendly_negates_zoc=self.yes(b, "friendly-negates-zoc", True), impassable=frozenset(imp),
                               impassable_unless=fm(unless),
                               blocking_hexsides=self.terrain_set(bh.args, ("hexside",)) if bh else frozenset(),
                               rail=fm(rail), rail_link=fm(rail_link), range=fm(rng), consequence=cons,
                               exempt=self.selectors(ex.args, classes) if ex else frozenset(), marker_halves=fm(halves),
                               order=order, skip=tuple(skip), transfer=ctx.ref("pool", b.arg("transfer-to")) or "",
                               blocked_by_enemy_control="enemy-control" in blocked, consequences=tuple(by_unit),
                               city_supply=city, where=where(st))
        b.finish()
        return result

    def _retreat(self, classes) -> D.RetreatRules:
        """Retreat after combat."""
        ctx = self.ctx
        st = self.one("retreat")
        if st is None:
            return D.RetreatRules()
        b = Body(ctx, st, "retreat")
        toward = self.choice(b.arg("toward"), ("supply", "own-edge", "away"), "retreat direction") or "supply"
        if toward != "supply":
            ctx.error("unused", f"retreat toward {toward} is not used by any rule", b.arg("toward").span,
                      "the engine retreats units toward supply (toward supply, the default)")
        di = b.one("destroyed-into", (1, 9))
        dest = set()
        for a in (di.args if di else ()):
            if a.text in ("off-map", "prohibited"):
                dest.add(a.text)
            elif ctx.terrain_ref(a, ("terrain", "feature")):
                dest.add(a.text)
        ez = self.choice(b.arg("enemy-zoc"), ("lose-step", "destroyed", "allowed"), "retreat ZOC rule") \
            or "lose-step"
        sh = b.one("second-hex-across", (1, 9))
        ov = self.choice(b.arg("overstack"), ("extend", "destroyed"), "over-stacking rule") or "extend"
        hw = b.one("hold-with", (1, 9))
        into = self.choice(b.arg("into"), ("own-control",), "retreat destination") or ""
        rd = self.choice(b.arg("retreated-defend"), ("yes", "no"), "retreated-defend answer") or "yes"
        result = D.RetreatRules(toward, frozenset(dest), ez,
                                self.terrain_set(sh.args, ("hexside",)) if sh else frozenset(), ov,
                                self.selectors(hw.args, classes) if hw else frozenset(), into,
                                where(st), rd == "yes")
        b.finish()
        return result

    def _advance(self, classes) -> D.AdvanceRules:
        """Advance after combat."""
        ctx = self.ctx
        st = self.one("advance")
        if st is None:
            return D.AdvanceRules()
        b = Body(ctx, st, "advance")
        hexes = []
        for s in b.all("hexes"):
            if len(s.args) != 2:
                ctx.error("arguments", "hexes takes a unit selector and a number", s.span,
                          "write: hexes mechanized 2")
                continue
            sel = self.selectors(s.args[:1], classes)
            n = ctx.int_(s.args[1], "advance hexes", 0, 20)
            if sel and n is not None:
                hexes.append((s.args[0].text, n))
        if not self.yes(b, "ignores-zoc", True):
            self.ctx.error("unused", "ignores-zoc no is not used by any rule", b.one("ignores-zoc", (0, 1)).span,
                           "the engine's advance after combat always ignores ZOC (ignores-zoc yes, the default)")
        result = D.AdvanceRules(tuple(hexes) or (("all", 1),), self.yes(b, "ignores-zoc", True),
                                where(st))
        b.finish()
        return result

    def _activation(self, classes) -> D.ActivationRules:
        """Chit-pull activation."""
        ctx = self.ctx
        st = self.one("activation")
        if st is None:
            return D.ActivationRules()
        b = Body(ctx, st, "activation")
        sn = b.one("same-nationality", (1, 9))
        mm = b.arg("max-mechanized")
        ch = b.one("command-chain", (2, 9))
        chain = ctx.int_(ch.arg(0), "command-chain step", 1, 99) or 0 if ch else 0
        result = D.ActivationRules(
                                   b.text("command-range", "command"),
                                   frozenset(a.text for a in (sn.args if sn else ()) if ctx.ref("side", a)),
                                   self.yes(b, "hq-activates-hq", False),
                                   ctx.int_(mm, "max-mechanized", 0, 999) if mm is not None else None, where(st),
                                   chain, self.selectors(ch.args[1:], classes) if ch else frozenset())
        self.activation_chain = ch
        b.finish()
        return result

    def check_command_chain(self, chits: dict[str, D.Chit], rules: D.ActivationRules) -> None:
        """A chit commanding by chain needs the chain's step; a chain no chit uses is not used."""
        users = [c for c in chits.values() if "chain" in c.command]
        for c in users:
            if not rules.chain:
                self.ctx.error("missing", f"chit {c.id} commands by chain, but the game gives no command chain",
                               Span.parse(c.where + ":1"),
                               "write: activation { command-chain 3 motorized } (steps of at most 3 hexes "
                               "between motorized units of the HQ's formation)")
        ch = getattr(self, "activation_chain", None)
        if ch is not None and not users:
            self.ctx.error("unused", "the command chain is not used by any rule: no chit commands by chain",
                           ch.span, "give a chit command chain (or range,chain) in the chits table")

    def _reinforcements(self, classes) -> D.ReinforcementRules:
        """Where reinforcements come from and go."""
        ctx = self.ctx
        st = self.one("reinforcements")
        if st is None:
            return D.ReinforcementRules()
        b = Body(ctx, st, "reinforcements")
        fr = b.one("from", (1, 9))
        pools = tuple(a.text for a in (fr.args if fr else ()) if ctx.ref("pool", a)) or ("available",)
        enter = self.choice(b.arg("enter"), ("rail", "supplied"), "reinforcement entry rule") or "supplied"
        ni = b.one("not-in", (1, 9))
        not_in = set()
        for a in (ni.args if ni else ()):
            if a.text in ("enemy-zoc", "enemy-cities"):
                not_in.add(a.text)
            else:
                ctx.error("value", f"reinforcements are kept out of enemy-zoc or enemy-cities, not '{a.text}'",
                          a.span)
        returns = []
        for r in b.all("returns"):
            # returns SIDE SELECTOR... to POOL [from combat supply]
            rargs = list(r.args)
            losses = {"combat"}
            if "from" in [a.text for a in rargs]:
                i = [a.text for a in rargs].index("from")
                losses = set()
                for a in rargs[i + 1:]:
                    if a.text in ("combat", "supply"):
                        losses.add(a.text)
                    else:
                        ctx.error("value", f"units return from combat or supply losses, not '{a.text}'", a.span)
                rargs = rargs[:i]
            args = [a.text for a in rargs]
            if len(args) < 4 or args[-2] != "to":
                ctx.error("arguments", "returns takes a side, unit selectors, 'to' and a pool", r.span,
                          "write: returns soviet non-mechanized hq to available")
                continue
            side = ctx.ref("side", rargs[0], allow=("all",))
            pool = ctx.ref("pool", rargs[-1])
            sel = self.selectors(rargs[1:-2], classes)
            if side and pool:
                returns.append((side, sel, pool, frozenset(losses)))
        result = D.ReinforcementRules(pools, enter, frozenset(not_in), tuple(returns), where(st))
        b.finish()
        return result

    def _combat(self, classes) -> D.CombatRules:
        """The combat procedure."""
        ctx = self.ctx
        st = self.one("combat")
        if st is None:
            crts = [s.name for s in self.all("crt")]
            result = D.CombatRules("odds" if crts else "none", crts[0] if crts else "")
        else:
            b = Body(ctx, st, "combat")
            proc = self.choice(b.arg("procedure"), ("odds", "firepower", "dice-pool", "none"),
                               "combat procedure") or "odds"
            crt = ctx.ref("crt", b.arg("crt")) or ""
            if proc == "odds" and not b.arg("crt"):
                ctx.error("missing", "an odds combat procedure needs 'crt'", st.span)
            attack = self.choice(b.arg("attack"), ("adjacent", "move-in"), "way of attacking") or "adjacent"
            limits = []
            for s in b.all("across-hexside"):
                # across-hexside SIDE N [SELECTOR M]...  (6.3)
                args = list(s.args)
                if len(args) < 2 or len(args) % 2:
                    ctx.error("arguments", "across-hexside takes a side, a number of units, then pairs of "
                              "unit selector and number", s.span, "write: across-hexside axis 4 army-group 1")
                    continue
                side = ctx.ref("side", args[0])
                total = ctx.int_(args[1], "units across one hexside", 1, 99)
                per = []
                for sa, na in zip(args[2::2], args[3::2]):
                    sel = self.selectors([sa], classes)
                    n = ctx.int_(na, f"{sa.text} across one hexside", 0, 99)
                    if sel and n is not None:
                        per.append((sa.text, n))
                if side and total is not None:
                    if any(x.side == side for x in limits):
                        ctx.error("duplicate", f"the hexside limits for {side} are given twice", s.span,
                                  "write one across-hexside line per side")
                        continue
                    limits.append(D.HexsideLimit(side, total, tuple(per), where(s)))
            if limits and attack != "move-in":
                ctx.error("value", "across-hexside limits need 'attack move-in'", st.span)
            if attack == "move-in" and proc != "firepower":
                ctx.error("value", "attacks by moving in are fought by the firepower procedure", st.span,
                          "write: procedure firepower")
            factor = b.text("firepower", "strength")
            db = b.one("disrupted-attackers", (1, 1))
            if db is not None and db.args and db.args[0].text != "back":
                ctx.error("value", f"disrupted attackers go 'back', not '{db.args[0].text}'", db.args[0].span)
            result = D.CombatRules(proc, crt, attack, tuple(limits), factor, db is not None, where(st))
            b.finish()
        return result

    def turns_of(self, b: Body) -> tuple[int, int]:
        t = b.one("turns", (2, 2))
        if t and len(t.args) == 2:
            return (self.ctx.int_(t.args[0], "first turn", 0, 999) or 1,
                    self.ctx.int_(t.args[1], "last turn", 0, 999) or 999)
        return 1, 999

    def arrival(self, st: Statement, map_def, chits, track) -> D.Arrival:
        """arrival ID "Title" { side S; units formation F | units from POOL...; on-chit C;
        turns A B; count all|N|COLUMN; enter HEXES... [traced] [move-on] }"""
        ctx = self.ctx
        b = Body(ctx, st, f"arrival {st.name}")
        side = ctx.ref("side", b.arg("side")) or ""
        formation, pools = "", ()
        u = b.one("units", (2, 9))
        if u is not None and len(u.args) >= 2:
            if u.args[0].text == "formation":
                formation = u.args[1].text
            elif u.args[0].text == "from":
                pools = tuple(a.text for a in u.args[1:] if ctx.ref("pool", a))
            else:
                ctx.error("value", "units is 'formation NAME' or 'from POOL...'", u.args[0].span)
        elif u is None:
            ctx.error("missing", f"arrival {st.name} needs 'units'", st.span,
                      "write: units formation 19A   or   units from available reserve")
        chit = ctx.ref("chit", b.arg("on-chit")) or ""
        first, last = self.turns_of(b)
        cnt = b.arg("count")
        count = "all"
        if cnt is not None:
            if cnt.text == "all" or cnt.text.isdigit() or cnt.text in track.columns:
                count = cnt.text
            else:
                ctx.error("value", f"count is all, a number or a turn-track column, not '{cnt.text}'", cnt.span,
                          did_you_mean(cnt.text, track.columns))
        hexes: set = set()
        traced = move_on = False
        ent = b.one("enter", (1, 99))
        if ent is not None and map_def is not None:
            from .mapfile import MapReader
            reader = MapReader(ctx)
            ctx.grid = map_def.grid
            rest = []
            for a in ent.args:
                if a.text == "traced":
                    traced = True
                elif a.text == "move-on":
                    move_on = True
                elif a.text.startswith("edge:"):
                    e = a.text[5:]
                    rows = {}
                    for h in map_def.hexes:
                        c, r = map_def.grid.to_colrow(h)
                        key = r if e in ("east", "west") else c
                        pick = max if e in ("east", "south") else min
                        val = c if e in ("east", "west") else r
                        if key not in rows or pick(val, rows[key][0]) == val:
                            rows[key] = (val, h)
                    hexes |= {h for _, h in rows.values()}
                else:
                    rest.append(a)
            hexes |= set(reader.hex_list(rest))
        elif ent is None:
            ctx.error("missing", f"arrival {st.name} needs 'enter' with its entry hexes", st.span)
        b.finish()
        return D.Arrival(st.name, title_of(st) or st.name, side, formation, pools, chit, first, last, count,
                         frozenset(hexes), traced, where(st), move_on)

    def withdrawal(self, st: Statement, classes, chits) -> D.Withdrawal:
        """withdrawal ID "Title" { side S; units SELECTOR...; total FACTOR N; on-chit C; turns A B }"""
        ctx = self.ctx
        b = Body(ctx, st, f"withdrawal {st.name}")
        side = ctx.ref("side", b.arg("side")) or ""
        u = b.one("units", (1, 9))
        sel = self.selectors(u.args, classes) if u else frozenset()
        tot = b.one("total", (2, 2))
        factor, total = "attack", 0
        if tot is not None and len(tot.args) == 2:
            factor = tot.args[0].text
            total = ctx.int_(tot.args[1], "total", 0, 999) or 0
        else:
            ctx.error("missing", f"withdrawal {st.name} needs 'total FACTOR N'", st.span, "write: total attack 18")
        chit = ctx.ref("chit", b.arg("on-chit")) or ""
        first, last = self.turns_of(b)
        b.finish()
        return D.Withdrawal(st.name, title_of(st) or st.name, side, sel, factor, total, chit, first, last, where(st))

    def battle_option(self, st: Statement, classes, combat: D.CombatRules) -> D.BattleOption:
        """battle-option ID "Title" [when COND] { side S|attacker|defender|both; by SELECTOR...;
        not MARKER...; within N | from POOL [to POOL]; adds own|enemy N; roll TABLE; shift N; per-game N;
        uses RESOURCE }: firepower battles read adds and roll, attacks on a CRT shift."""
        ctx = self.ctx
        b = Body(ctx, st, f"battle-option {st.name}")
        side = ctx.ref("side", b.arg("side"), allow=("attacker", "defender", "both")) or "both"
        by = b.one("by", (1, 9))
        nm = b.one("not", (1, 9))
        w = b.arg("within")
        own = enemy = 0
        for a in b.all("adds"):
            if len(a.args) != 2 or a.args[0].text not in ("own", "enemy"):
                ctx.error("arguments", "adds takes own or enemy and a number", a.span, "write: adds enemy -1")
                continue
            v = ctx.int_(a.args[1], "firepower", -99, 99)
            if v is not None:
                if a.args[0].text == "own":
                    own += v
                else:
                    enemy += v
        roll = ctx.ref("die-table", b.arg("roll")) or ""
        pg = b.arg("per-game")
        uses = b.text("uses", "")
        sh = b.arg("shift")
        shift = (ctx.int_(sh, "columns", -9, 9) or 0) if sh is not None else 0
        frm, to = b.arg("from"), b.arg("to")
        from_pool = ctx.ref("pool", frm) or "" if frm is not None else ""
        to_pool = ctx.ref("pool", to) or "" if to is not None else ""
        if not roll and not own and not enemy and not shift:
            ctx.error("missing", f"battle-option {st.name} adds nothing: give 'adds own N', 'adds enemy N' "
                      "or 'roll TABLE' (firepower combat), or 'shift N' (combat on a CRT)", st.span)
        firepower = combat.procedure == "firepower"
        if firepower and shift:
            ctx.error("value", "shift is not used by any rule: a firepower battle reads 'adds' and 'roll'",
                      sh.span, "write: adds own 1")
        if not firepower:
            for kw, span in (("adds", b.all("adds")[0].span if b.all("adds") else None),
                             ("roll", b.arg("roll").span if roll else None)):
                if span is not None:
                    ctx.error("value", f"'{kw}' is not used by any rule: an attack on a CRT reads 'shift' "
                              "(columns in the user's favour)", span, "write: shift 2")
        if frm is not None and not by:
            ctx.error("missing", "'from POOL' takes the providing units from a pool: name them with 'by'",
                      frm.span, "write: by stuka")
        if frm is not None and w is not None:
            ctx.error("value", "'within' is for providers on the map; 'from POOL' takes them from a pool",
                      w.span)
        if to is not None and frm is None:
            ctx.error("missing", "'to POOL' is where a provider from a pool goes: give 'from POOL' too", to.span)
        b.finish()
        ctx.expr(st.condition)
        return D.BattleOption(st.name, title_of(st) or st.name, side, st.condition,
                              self.selectors(by.args, classes) if by else frozenset(),
                              frozenset(a.text for a in (nm.args if nm else ())),
                              (ctx.int_(w, "within", 0, 99) or 0) if w is not None else 0, (own, enemy), roll,
                              ctx.int_(pg, "per-game", 1, 99) if pg is not None else None, uses, shift,
                              from_pool, to_pool, where(st))

    def battle_outcomes(self, combat: D.CombatRules) -> tuple[D.BattleOutcome, ...]:
        """outcome ID "Title" [when COND] { holds attacker|defender; attackers back; defenders retreat }:
        tried in order; the last one takes no condition, so that every battle has an outcome."""
        ctx = self.ctx
        out = []
        sts = self.all("outcome")
        for st in sts:
            b = Body(ctx, st, f"outcome {st.name}")
            holds = self.choice(b.arg("holds"), ("attacker", "defender"), "side holding the hex")
            if holds is None and b.arg("holds") is None:
                ctx.error("missing", f"outcome {st.name} needs 'holds attacker' or 'holds defender'", st.span)
            back = b.one("attackers", (1, 1))
            if back is not None and back.args and back.args[0].text != "back":
                ctx.error("value", f"attackers go 'back', not '{back.args[0].text}'", back.args[0].span)
            ret = b.one("defenders", (1, 1))
            if ret is not None and ret.args and ret.args[0].text != "retreat":
                ctx.error("value", f"defenders 'retreat', not '{ret.args[0].text}'", ret.args[0].span)
            b.finish()
            ctx.expr(st.condition)
            out.append(D.BattleOutcome(st.name, title_of(st) or st.name, st.condition, holds or "defender",
                                       back is not None, ret is not None, where(st)))
        if combat.procedure == "firepower" and not sts:
            ctx.error("missing", "firepower combat needs its outcomes: outcome statements tried in order", None,
                      'write: outcome D "no defender is left" { holds attacker }')
        elif sts and sts[-1].condition is not None:
            ctx.error("missing", f"the last outcome ({sts[-1].name}) has a condition: a battle might have no "
                      "outcome", sts[-1].span, "leave the last outcome without 'when'")
        return tuple(out)

    def rebuild(self, st: Statement, classes) -> D.RebuildRule:
        """rebuild ID "Title" { side S; units SELECTOR...; from POOL...; at FEATURE...;
        controlled yes|no; per-hex N; marker M }"""
        ctx = self.ctx
        b = Body(ctx, st, f"rebuild {st.name}")
        side = ctx.ref("side", b.arg("side")) or ""
        u = b.one("units", (1, 9))
        fr = b.one("from", (1, 9))
        at = b.one("at", (1, 9))
        if u is None or fr is None or at is None or b.arg("side") is None:
            ctx.error("missing", f"rebuild {st.name} needs side, units, from and at", st.span,
                      "write: side soviet; units front; from soviet-available; at infantry-marker")
        ph = b.arg("per-hex")
        rule = D.RebuildRule(st.name, title_of(st) or st.name, side,
                             self.selectors(u.args, classes) if u else frozenset(),
                             tuple(a.text for a in (fr.args if fr else ()) if ctx.ref("pool", a)),
                             self.terrain_set(at.args if at else (), ("terrain", "feature")),
                             self.yes(b, "controlled", True),
                             (ctx.int_(ph, "per-hex", 1, 99) or 1) if ph is not None else 1,
                             b.text("marker", ""), where(st))
        b.finish()
        return rule

    def control(self) -> str:
        """control { hexes all|features }: which hexes change hands."""
        st = self.one("control")
        if st is None:
            return "features"
        b = Body(self.ctx, st, "control")
        v = self.choice(b.arg("hexes"), ("all", "features"), "controlled hexes") or "features"
        b.finish()
        return v

    def variant(self, st: Statement) -> D.Variant:
        kind = "optional"
        notes = tuple(e.args[0].text for e in st.body or ()
                      if isinstance(e, Statement) and e.keyword == "note" and e.args)
        for e in st.body or ():
            if isinstance(e, Statement) and e.keyword == "kind" and e.args:
                kind = self.choice(e.args[0], ("optional", "balance", "series"), "variant kind") or kind
            elif isinstance(e, Statement) and e.keyword not in TOP_LEVEL and e.keyword not in ("note", "conflicts"):
                self.ctx.error("unknown-keyword", f"'{e.keyword}' cannot stand in a variant", e.span,
                               did_you_mean(e.keyword, list(TOP_LEVEL) + ["kind", "note"]))
        return D.Variant(st.name, title_of(st) or st.name, kind, notes, where(st))

    # ------------------------------------------------------------ scenario
    def scenario(self, st: Statement, counters, map_def, track, stacking, pools, chart) -> D.Scenario:
        ctx = self.ctx
        b = Body(ctx, st, f"scenario {st.name}")
        t = b.one("turns", (2, 2))
        first, last = 1, (track.turns[-1].number if track.turns else 1)
        if t and len(t.args) == 2:
            first = ctx.int_(t.args[0], "first turn", 0, 999) or first
            last = ctx.int_(t.args[1], "last turn", 0, 999) or last
            numbers = {x.number for x in track.turns}
            for n, a in ((first, t.args[0]), (last, t.args[1])):
                if numbers and n not in numbers:
                    ctx.error("range", f"turn {n} is not on the turn track", a.span)
            gaps = [n for n in range(first, last + 1) if numbers and n not in numbers]
            if gaps and first in numbers and last in numbers:
                ctx.error("range", f"the scenario runs turns {first} to {last}, but turn {gaps[0]} is not on the "
                          "turn track", t.span, "every turn the scenario plays needs a row in the turn track")
        vs = tuple(a.text for s in b.all("variants") for a in s.args if ctx.ref("variant", a))
        vic = b.arg("victory")
        victory = ctx.ref("victory", vic) or "" if vic else ""
        notes = tuple(s.args[0].text for s in b.all("note") if s.args)
        control = []
        for s in b.all("control"):
            if len(s.args) != 2:
                ctx.error("arguments", "control takes a side and an area (or all)", s.span,
                          "write: control soviet all; control axis start-line-west")
                continue
            side = ctx.ref("side", s.args[0])
            area = s.args[1].text
            if area != "all" and map_def is not None and area not in map_def.areas:
                ctx.error("unknown-name", f"unknown area '{area}'", s.args[1].span,
                          did_you_mean(area, list(map_def.areas) + ["all"]))
                continue
            if side:
                control.append((side, area))
        deploy = tuple(a.text for d in b.all("deploy") for a in d.args if ctx.ref("side", a))
        setup: list[D.Placement] = []
        for s in b.all("setup"):
            sb = Body(ctx, s, "setup")
            view = TableView.of(ctx, sb.table(), "the setup", s.span)
            sb.finish()
            if view is None:
                continue
            view.require_first("counter")
            view.check_columns(lambda c: c in ("counter", "at"), ("counter", "at"))
            if view.col("at") is None:
                ctx.error("table-header", "the setup needs an 'at' column", view.table.rows[0].span)
                continue
            for r in view.rows:
                p = self.placement(r, view, counters, map_def, track, pools)
                if p:
                    setup.append(p)
        markers = tuple(m for m in (placement(ctx, x, self.fx) for x in b.all("place")) if m)
        b.finish()
        self.check_setup(setup, counters, map_def, stacking, chart, st)
        return D.Scenario(st.name, title_of(st) or st.name, first, last, vs, tuple(setup), victory, notes,
                          tuple(control), deploy, where(st), markers)

    def placement(self, r, view, counters, map_def, track, pools) -> D.Placement | None:
        ctx = self.ctx
        cid = ctx.ref("counter", r.cells[0], "counter")
        at = view.cell(r, "at")
        if not cid or at is None:
            return None
        t = at.text
        if self.map_failed and not t.startswith("turn:") and t not in pools:
            return None
        if t.startswith("turn:"):
            n = ctx.int_(Arg(t[5:], at.span), "turn")
            if n is not None and track.turns and n not in {x.number for x in track.turns}:
                ctx.error("range", f"turn {n} is not on the turn track", at.span)
            return D.Placement(cid, "turn", str(n), 1, where(r))
        if t.isdigit():
            if map_def is None:
                ctx.error("no-map", f"{cid} is set up in hex {t} but the game has no map", at.span)
                return None
            try:
                h = map_def.grid.parse_id(t)
            except HexIdError as e:
                ctx.error("hex", str(e), at.span)
                return None
            if h not in map_def.hexes:
                ctx.error("hex", f"hex {t} is not in play on the map", at.span)
                return None
            return D.Placement(cid, "hex", t, 1, where(r))
        if map_def is not None and t in map_def.areas:
            return D.Placement(cid, "area", t, 1, where(r))
        if t in pools:
            return D.Placement(cid, "pool", t, 1, where(r))
        choices = list(pools) + (list(map_def.areas) if map_def else [])
        ctx.error("unknown-name", f"'{t}' is not a hex, area, pool or turn:N", at.span, did_you_mean(t, choices))
        return None

    def check_setup(self, setup, counters, map_def, stacking, chart, st) -> None:
        ctx = self.ctx
        seen: dict[str, D.Placement] = {}
        per_hex: dict[str, list[D.Placement]] = {}
        for p in setup:
            if p.counter in seen:
                ctx.error("duplicate", f"{p.counter} is set up twice", Span.parse(p.where + ":1"),
                          f"first at {seen[p.counter].where}")
            seen[p.counter] = p
            if p.kind == "hex":
                per_hex.setdefault(p.where_to, []).append(p)
        limit = stacking.get("units")
        for hx, ps in per_hex.items():
            units = [p for p in ps if p.counter in counters and
                     not any(stacking.get(f"exempt:{x}") for x in
                             (counters[p.counter].unit_class, *counters[p.counter].tags))]
            if limit is not None and len(units) > limit:
                ctx.error("over-stacked", f"hex {hx} holds {len(units)} units at setup; the limit is {limit}",
                          Span.parse(ps[-1].where + ":1"), ", ".join(p.counter for p in ps))
            sides = {counters[p.counter].side for p in ps if p.counter in counters}
            if len(sides) > 1:
                ctx.error("mixed-stack", f"hex {hx} holds units of both sides at setup", Span.parse(ps[-1].where + ":1"))
            if map_def is not None:
                h = map_def.grid.parse_id(hx)
                terr = map_def.terrain_at(h)
                eff = chart.effects.get(terr)
                for p in ps:
                    c = counters.get(p.counter)
                    if c is None or eff is None:
                        continue
                    cost = eff.cost_for(self.class_flags.get(c.unit_class, frozenset()), c.unit_class)
                    if cost.kind == "no":
                        ctx.error("prohibited", f"{p.counter} is set up in hex {hx}, which is {terr}: "
                                  f"prohibited terrain", Span.parse(p.where + ":1"))
