"""Arrivals, withdrawals, battle options and outcomes, rebuilds, control, variants, scenarios and their setups.

Part of the compiler: methods of ``_Compiler`` (see ``core.py``)."""
from __future__ import annotations


from runtime import definition as D
from runtime.hexes import HexIdError
from runtime.stacking import extra_limits, over_extra_limits

from ..ast import Arg, Statement
from ..checker import Body, TableView, title_of, where
from ..effects import placement
from ..diagnostics import Span, did_you_mean
from ..loader import TOP_LEVEL
from .parts import CompilerParts



class ScenariosMixin(CompilerParts):
    def turns_of(self, b: Body) -> tuple[int, int]:
        t = b.one("turns", (2, 2))
        if t and len(t.args) == 2:
            first = self.ctx.int_(t.args[0], "first turn", 0, 999) or 1
            last = self.ctx.int_(t.args[1], "last turn", 0, 999) or 999
            self._in_order(t, first, last)
            return first, last
        return 1, 999

    def _in_order(self, t: Statement, first: int, last: int) -> None:
        """``turns FIRST LAST`` runs forward (turns 4 1 played turn 4 alone)."""
        if first > last:
            self.ctx.error("range", f"turns {first} {last}: the first turn is after the last", t.span,
                           f"write turns {last} {first}")

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
        traced = move_on = as_reinforcements = False
        ent = b.one("enter", (1, 99))
        if ent is not None and [a.text for a in ent.args] == ["as-reinforcements"]:
            as_reinforcements = True  # where bought reinforcements go (reinforcements { at ... })
        elif ent is not None and any(a.text == "as-reinforcements" for a in ent.args):
            ctx.error("value", "'enter as-reinforcements' places the units as bought reinforcements are placed: "
                      "it takes no entry hexes", ent.span, "write: enter as-reinforcements")
        elif ent is not None and map_def is not None:
            from ..mapfile import MapReader
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
        af = b.arg("after")
        if af is not None and af.text != "reinforcements":
            ctx.error("value", f"an arrival comes 'after reinforcements' (the chit's own), not after '{af.text}'",
                      af.span)
        mb = b.one("move-by", (1, 9))
        move_by = tuple(a.text for a in mb.args if ctx.ref("movement-mode", a)) if mb else ()
        if mb and move_on:
            ctx.error("value", "move-by moves the units onto the map already: leave out move-on", mb.span)
        if mb and as_reinforcements:
            ctx.error("value", "move-by moves the units on from entry hexes: 'enter as-reinforcements' has none",
                      mb.span)
        act = self.yes(b, "activate", False)  # they move and fight in the chit's segment (AVD 5 a ii)
        if act and mb:
            ctx.error("value", "'activate' lets the units move in the chit's movement segment; move-by moved them "
                      "onto the map already", b.one("activate", (0, 1)).span)
        if act and not chit:
            ctx.error("missing", "'activate' activates the units for the chit's movement and combat: the arrival "
                      "needs 'on-chit'", b.one("activate", (0, 1)).span, "write: on-chit Reinf")
        b.finish()
        return D.Arrival(st.name, title_of(st) or st.name, side, formation, pools, chit, first, last, count,
                         frozenset(hexes), traced, where(st), move_on, move_by,
                         af is not None and af.text == "reinforcements", as_reinforcements, act)

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
            self._in_order(t, first, last)
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
        if t in counters:  # under a unit (an attachment: runtime/attachments.py)
            return D.Placement(cid, "under", t, 1, where(r))
        choices = list(pools) + (list(map_def.areas) if map_def else [])
        ctx.error("unknown-name", f"'{t}' is not a hex, area, pool, unit or turn:N", at.span,
                  did_you_mean(t, choices + list(counters)))
        return None

    def check_attachments_setup(self, setup, counters) -> None:
        """Counters set up under units are of an attachment kind the unit may
        carry, of its side, within its capacity at full strength; a counter
        of an attachment kind set up on the map must be one that converts."""
        ctx = self.ctx
        kinds, of = self.attachment_kinds, self.attachment_of
        where_of = {p.counter: p for p in setup}
        count: dict[tuple[str, str], int] = {}
        for p in setup:
            span = Span.parse(p.where + ":1")
            k = kinds.get(of.get(p.counter, ""))
            if p.kind in ("hex", "area") and k is not None and not (
                    p.counter in k.converts or self.class_flags_of(self.classes_seen, counters[p.counter]) & k.converts):
                ctx.error("attachment", f"{p.counter} is {'an' if k.title[0].lower() in 'aeiou' else 'a'} "
                          f"{k.title.lower()}: set it up under a unit (at UNIT), or in a pool", span)
            if p.kind != "under":
                continue
            host = p.where_to
            if k is None:
                ctx.error("attachment", f"{p.counter} is a unit, not a counter that goes under one", span,
                          "declare its class in an attachment's 'counters'")
                continue
            hp = where_of.get(host)
            if hp is None or hp.kind == "under":
                ctx.error("attachment", f"{p.counter} is set up under {host}, which is "
                          f"{'itself under a unit' if hp else 'not set up'}", span)
                continue
            hc, ac = counters[host], counters[p.counter]
            if hc.side != ac.side:
                ctx.error("attachment", f"{p.counter} is {ac.side}'s and {host} is {hc.side}'s", span)
                continue
            flags = self.class_flags_of(self.classes_seen, hc) | {host}
            if k.hosts and not flags & k.hosts:
                ctx.error("attachment", f"{host} cannot carry {k.title.lower()}: only "
                          f"{', '.join(sorted(k.hosts))} units do", span)
                continue
            if host in of and not k.hosts:
                ctx.error("attachment", f"{host} is itself a counter that goes under a unit", span)
                continue
            cap = next((v for sel, v in k.capacity if sel == "all" or sel in flags), None) if k.capacity else None
            if isinstance(cap, str):
                cap = hc.steps[0].get(cap, 0)
            if k.capacity and cap is None:
                cap = 0
            n = count[(host, k.id)] = count.get((host, k.id), 0) + 1
            if cap is not None and n > cap:
                ctx.error("over-capacity", f"{host} carries {n} at set-up ({k.title.lower()}: at most {cap})",
                          span)

    def check_setup(self, setup, counters, map_def, stacking, chart, st) -> None:
        ctx = self.ctx
        self.check_attachments_setup(setup, counters)
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
            elif extra_limits(stacking):  # hq N, limit N SELECTOR...
                def names(c: D.Counter) -> frozenset[str]:
                    return self.class_flags.get(c.unit_class, frozenset()) | c.tags | \
                        {c.unit_class, c.nationality, c.side}
                why = over_extra_limits(stacking, [names(counters[p.counter]) for p in ps if p.counter in counters])
                if why:
                    ctx.error("over-stacked", f"hex {hx} holds {why.split(';')[0]} at setup;{why.split(';', 1)[1]}",
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
