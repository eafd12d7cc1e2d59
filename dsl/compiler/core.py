"""compile_game(): game folder → validated, immutable GameDefinition.

    load files and imports → merge overrides and variants → declare names →
    elaborate every construct → one GameDefinition, or DslError with every
    diagnostic found.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from runtime import definition as D
from runtime import expr as E
from runtime.runner import sequence_problems
from runtime.vocabulary import EDGES

from ..ast import Arg, Statement
from ..checker import DECLARES, DICE, SYMBOLS, Body, Ctx, title_of, where
from ..defines import expand_defines
from ..effects import BLOCK_KEYWORDS, EffectCompiler, hidden_rules, marker_kind, trigger, variable
from ..diagnostics import Diagnostics, DslError, Span, did_you_mean
from ..loader import MAP_SUFFIX, TOP_LEVEL, Loader, apply_variants, merge_entries, resolve_extends
from .. import mapfile

from .tables import TablesMixin
from .counters import CountersMixin
from .sequence import SequenceMixin
from .mechanisms import MechanismsMixin
from .scenarios import ScenariosMixin
from .attachments import AttachmentsMixin
from .fire import FireMixin
from .audit import AuditMixin
from .dicepool import DicePoolMixin

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




class _Compiler(TablesMixin, CountersMixin, SequenceMixin, MechanismsMixin, ScenariosMixin, AttachmentsMixin,
                FireMixin, AuditMixin, DicePoolMixin):
    def __init__(self, ctx: Ctx, statements: list[Statement], loader: Loader, variants: tuple[str, ...]):
        self.ctx = ctx
        # `define` names and functions, expanded where used; their bodies are checked in run()
        statements, self.define_bodies = expand_defines(ctx, statements)
        self.sts = statements
        self.loader = loader
        self.variants = variants
        self.map_failed = False  # a map was named but did not load: setups stay quiet
        self.phase_areas: list[Arg] = []  # areas named by phases, checked once the map is read
        self.reinforce_formations: list[Arg] = []  # formations of reinforce phases: turn-track columns
        self.hold_fire: list[Statement] = []  # combat phases' hold-fire lines: dice-pool duels read them
        self.pool_kinds: dict[str, str] = {}  # pool -> box | cup
        self.owned_features: dict = {}  # feature -> the span of its 'side' (features that belong to a side)
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
                    if e.keyword == "phase":  # the unit markers designate phases give: names of unit states
                        body = [x for x in e.body or () if isinstance(x, Statement)]
                        if any(x.keyword == "procedure" and x.args and x.args[0].text in ("designate", "reinforce")
                               for x in body):
                            ctx.designated.update(x.args[0].text for x in body if x.keyword == "marker" and x.args)
                    stack.append(e)
        for st in self.all("supply"):  # supply { marker NAME halve ... }: a unit marker the engine reads
            ctx.designated.update(e.args[0].text for e in st.body or () if isinstance(e, Statement)
                                  and e.keyword == "marker" and e.args)
        stack = list(self.sts)  # unit markers effects give (mark ... with NAME) and phases read (only, exclude)
        while stack:
            st = stack.pop()
            words = [a.text for a in st.args]
            if st.keyword == "mark" and "with" in words[:-1]:
                ctx.marked.add(words[words.index("with") + 1])
            if st.keyword in ("only", "exclude"):
                ctx.phase_read.update(words)
            stack.extend(e for e in st.body or () if isinstance(e, Statement))
        for st in self.all("unit-class"):
            b = [e for e in st.body or () if isinstance(e, Statement) and e.keyword == "flags"]
            for f in b:
                ctx.class_flags.update(a.text for a in f.args)
        if self.one("dice"):
            for a in self.one("dice").args:
                if DICE.match(a.text):  # (one that is not a die is an error of its own: no name to suggest)
                    ctx.declare("die", a.text, a.span)

    # statements whose `= value` / `when condition` the compiler reads
    TAKES_VALUE = {"modifier", "award", "define", "variable", "input", "per-turn"}
    TAKES_CONDITION = {"modifier", "award", "win", "end", "phase", "player-turn", "chit-loop", "segment", "skip",
                       "battle-option", "forbid", "marker", "outcome", "trigger", "fire-attack", "per-turn",
                       "exit"}

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
        self.fx.cups = {k for k, p in pools.items() if p.kind == "cup"}
        markers = {st.name: marker_kind(ctx, st) for st in self.all("marker")}
        hidden = hidden_rules(ctx, self.one("hidden"))
        variables = {st.name: variable(ctx, st) for st in self.all("variable")}
        events = {st.name: self.event(st) for st in self.all("event")}
        chart = self.terrain_effects(classes)
        results = {st.name: self.results(st) for st in self.all("results")}
        crts = {st.name: self.crt(st, results) for st in self.all("crt")}
        self.check_result_rows(crts)
        tables = {st.name: self.die_table(st) for st in self.all("die-table")}
        counters: dict[str, D.Counter] = {}
        for st in self.all("counters"):
            counters.update(self.counters(st, classes, nats))
        chits = self.chits(counters)
        self.formations = {c.formation for c in counters.values() if c.formation}
        self.counter_ids = set(counters)  # reinforce phases' 'at AREA for NAME' name them
        track = self.turn_track(weather, chits, events)
        sequence = self.sequence()
        victory = {st.name: self.victory(st) for st in self.all("victory")}
        checkpoints = self.check_checkpoints(victory, sequence)
        triggers = tuple(t for t in (trigger(ctx, st, self.fx, checkpoints) for st in self.all("trigger")) if t)
        stacking = self.stacking(counters)
        self.check_stacking_judged(stacking, sequence)
        mechanisms = self.mechanisms(classes)
        if not mechanisms["movement"].displace:  # relocate moves units as the displacement rule says
            for eff in (x for block in self.fx.effects.values() for x in block if x.verb == "relocate"):
                ctx.error("missing", "relocate needs the movement's overrun rule: its 'displace N' says how far "
                          "toward supply a relocated unit goes", Span.parse(eff.where + ":1"),
                          "write: movement { overrun hq by panzer infantry displace 4 }")
        modifiers = self.modifiers(crts, tables, mechanisms["combat"])
        self.attachment_kinds, self.attachment_of = self.attachments(classes, counters, pools, mechanisms["movement"],
                                                                     mechanisms["combat"])
        battle_options = {st.name: self.battle_option(st, classes, mechanisms["combat"])
                          for st in self.all("battle-option")}
        outcomes = self.battle_outcomes(mechanisms["combat"])
        fire_attacks = {st.name: fa for st in self.all("fire-attack")
                        if (fa := self.fire_attack(st, classes, crts, mechanisms["combat"])) is not None}
        dice_pool = self.dice_pool(classes, chart, pools, mechanisms["combat"], counters)
        for e in self.hold_fire:  # 5.1(6)1: read by a dice-pool battle's tank duel only
            if dice_pool is None or not dice_pool.duel_weapons:
                ctx.error("unused", "hold-fire is read by the tank duel of a dice-pool battle, which this game has not",
                          e.span, "leave it out")
        for fid, span in self.owned_features.items():  # honoured by dice-pool battles alone (setup.py)
            if mechanisms["combat"].procedure != "dice-pool":
                ctx.error("unused", f"feature {fid} belongs to a side, which only dice-pool battles read", span,
                          "leave 'side' out: with this combat procedure the feature works for both sides")
            elif fid in chart.effects and any(c.kind != "inherit" for _, c in chart.effects[fid].move):
                ctx.error("value", f"feature {fid} belongs to a side but costs movement, which both sides pay", span,
                          "give it '-' in the chart's move columns")
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
        for a in self.reinforce_formations:  # 7.0(1): the track's number of the formation's units
            if self.track_column_types.get(a.text) != "number":
                ctx.error("missing", f"the turn track has no number column '{a.text}': a reinforce phase takes as many "
                          f"units of formation {a.text} as that column says", a.span,
                          f"write in turn-track: column {a.text} number")
        self.check_fire_grants(fire_attacks, tables)
        self.check_unread(tables, sequence, battle_options, arrivals)
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
                                fire_attacks=fm(fire_attacks),
                                control_hexes=control_hexes,
                                unit_selectors=fm({cid: classes[c.unit_class].flags | {c.unit_class, c.nationality, c.side, "all", "other"}
                                                   for cid, c in counters.items() if c.unit_class in classes}),
                                active_variants=self.variants,
                                sources=tuple(self.loader.src.texts),
                                markers=fm(markers), variables=fm(variables), triggers=triggers,
                                effects=fm(self.fx.effects), attachments=fm(self.attachment_kinds),
                                attachment_of=fm(self.attachment_of), hidden=hidden,
                                chit_counts=tuple(getattr(self, "chit_counts", ())), dice_pool=dice_pool)
        self.check_command_chain(chits, mechanisms["activation"], game)
        for at, message in sequence_problems(game):  # check says no where play would refuse
            ctx.error("cannot-run", message, Span.parse(at + ":1") if at else None,
                      "docs/dsl.md lists the procedures and combat procedures the engine runs")
        return None if ctx.diags.errors else game

    # ------------------------------------------------------------ game
    def game_info(self) -> D.GameInfo:
        st = self.one("game")
        if st is None:
            entry = self.loader.src.display(Path(self.loader.entry_file))
            self.ctx.error("missing", "no 'game' statement", Span(entry, 1, 1),
                           'the game folder\'s game.hxr starts with: game ID "Title" { ... }')
            return D.GameInfo("?", "?")
        b = Body(self.ctx, st, "game")
        series = b.text("series")
        sys_st = self.one("system")
        inherited: dict[str, str] = {}
        sys_notes: tuple[str, ...] = ()
        if sys_st is not None:  # the series system's properties are the game's defaults
            sb = Body(self.ctx, sys_st, "system")
            for kw in ("designer", "publisher", "year", "scale"):
                a = sb.arg(kw)
                if a is not None:
                    inherited[kw] = a.text
            rounding = self.choice(sb.arg("rounding"), ("down", "up", "nearest"), "rounding")
            if rounding:
                inherited["rounding"] = rounding
            sys_notes = tuple(s.args[0].text for s in sb.all("note") if s.args)  # the series' notes come first
            sb.finish()
            series = series or (sys_st.name or "")
        info = D.GameInfo(
            id=st.name or "?", title=title_of(st) or st.name or "?", series=series,
            designer=b.text("designer", inherited.get("designer", "")),
            publisher=b.text("publisher", inherited.get("publisher", "")),
            year=b.text("year", inherited.get("year", "")), scale=b.text("scale", inherited.get("scale", "")),
            notes=sys_notes + tuple(s.args[0].text for s in b.all("note") if s.args),
            rounding=self.choice(b.arg("rounding"), ("down", "up", "nearest"), "rounding")
            or inherited.get("rounding", "down"),
            where=where(st))
        for extra in b.all("map")[1:]:  # (the first is read: map_)
            self.ctx.error("duplicate", "the game names its map twice", extra.span, "keep one map line")
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
        side = ""
        if st.keyword == "feature":  # side SIDE: the feature works for that side's stacks only (GJ63 17.2(2))
            side = self.ctx.ref("side", b.arg("side")) or ""
            if side:
                self.owned_features[st.name] = b.one("side", (1, 1)).span
        b.finish()
        return D.Terrain(st.name, title_of(st) or st.name, st.keyword, colour, pattern, where(st), side)

    def pool(self, st: Statement) -> D.Pool:
        b = Body(self.ctx, st, f"pool {st.name}")
        side = self.ctx.ref("side", b.arg("side"), allow=("both",)) or ""
        kind = self.choice(b.arg("kind"), ("box", "cup", "hand"), "pool kind (box, cup or hand)") or "box"
        b.finish()
        self.pool_kinds[st.name] = kind
        return D.Pool(st.name, title_of(st) or st.name, side, where(st), kind)

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
            link = (game_dir / m.args[0].text).is_symlink()  # (the name is inside, but it leads out)
            self.ctx.error("map-outside", f"{m.args[0].text} is a link to a file outside the game folder" if link
                           else "the map file must be inside the game folder", m.args[0].span,
                           "a game reads only the files in its folder and its series folders" if link else "")
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
