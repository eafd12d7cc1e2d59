"""The dice-pool battle block (``dice-pool { ... }``, Prokhorovka 11.0):
fire steps against the terrain's hit numbers, the tank duel and its firing
rounds, support chits per battle, the retreat that halves losses.

Part of the compiler: methods of ``_Compiler`` (see ``core.py``).  What
each property means: ``runtime.definition.DicePoolRules``; what the engine
does with it: ``runtime/combat/dicepool/``."""
from __future__ import annotations

import re

from runtime import definition as D

from ..ast import Arg, Statement
from ..checker import Body, title_of, where
from ..diagnostics import Span, did_you_mean
from .parts import CompilerParts

ROLES = ("attacker", "defender")
WINDOWS = ("move", "combat")  # the phase procedures an air window outside a battle opens at


def _number(cell: str) -> bool:
    return re.fullmatch(r"[0-9]+", cell) is not None


class DicePoolMixin(CompilerParts):
    def dice_pool(self, classes, chart: D.TerrainChart, pools, combat: D.CombatRules,
                  counters=None) -> D.DicePoolRules | None:
        st = self.one("dice-pool")
        ctx = self.ctx
        if st is None:
            if combat.procedure == "dice-pool":
                combat_st = self.one("combat")
                ctx.error("missing", "combat { procedure dice-pool } needs a dice-pool { ... } block that says "
                          "how a battle is fought", combat_st.span if combat_st else None, "docs/dsl.md §7.2 shows one")
            return None
        if combat.procedure != "dice-pool":
            ctx.error("value", "dice-pool { ... } describes the battles of combat { procedure dice-pool }, and this "
                      f"game's combat procedure is {combat.procedure}", st.span, "write: combat { procedure dice-pool }")
        b = Body(ctx, st, "dice-pool")
        factors = {f for c in classes.values() for f in c.factors}
        columns = {c for eff in chart.effects.values() for c in eff.values}

        def factor(a: Arg | None, what: str) -> str:
            if a is None:
                ctx.error("missing", f"dice-pool needs {what}", st.span)
                return ""
            if a.text not in factors:
                ctx.error("unknown-name", f"no unit class prints a factor '{a.text}' ({what})", a.span,
                          did_you_mean(a.text, factors))
            return a.text

        def column(a: Arg | None, allowed: tuple[str, ...], what: str, adds: bool = False) -> str:
            """A TEC column whose cells are hit tests: a terrain row must give one of ``allowed``
            ("number", "●", "◆"); a feature or hexside row one of those or '-' (the hex's applies)."""
            if a is None:
                return ""
            if a.text not in columns:
                ctx.error("unknown-name", f"the terrain effects chart has no column '{a.text}' ({what})", a.span,
                          did_you_mean(a.text, columns) or "declare it: terrain-effects { column NAME ... }")
                return ""
            for tid, eff in chart.effects.items():
                cell = eff.values.get(a.text, "-")
                kind = ctx.terrain_kind.get(tid)
                ok = ("number" in allowed and _number(cell)) or cell in allowed or \
                    (kind != "terrain" and cell == "-") or \
                    (adds and kind != "terrain" and re.fullmatch(r"\+[0-9]+", cell) is not None)
                if not ok and kind in ("terrain", "feature", "hexside"):
                    want = " or ".join("a number" if x == "number" else x for x in allowed)
                    ctx.error("value", f"{tid}'s {a.text} is '{cell}': {what} reads {want}"
                              + ("" if kind == "terrain" else (" or '-'" + (" or +N" if adds else ""))),
                              Span.parse(eff.where + ":1") if eff.where else a.span)
            return a.text

        def chosen(args, what: str) -> frozenset[str]:
            """Unit selectors or counter ids (Wittmann)."""
            out = set()
            for a in args:
                if a.text in (counters or {}):
                    out.add(a.text)
                else:
                    out |= self.selectors([a], classes)
            if not args:
                ctx.error("arguments", f"{what} needs unit selectors or counter ids", st.span)
            return frozenset(out)

        def hit_cell(s: Statement, allowed: tuple[str, ...], what: str) -> tuple[str, str] | None:
            """ROLE VALUE | ROLE column COLUMN."""
            args = list(s.args)
            if len(args) >= 4 and args[2].text == "against":
                return None  # hit attacker N against SELECTOR...: read by the step
            if len(args) not in (2, 3) or args[0].text not in ROLES or (len(args) == 3 and args[1].text != "column"):
                ctx.error("arguments", f"'{s.keyword}' takes attacker or defender and a hit number "
                          "(a number or ●) or 'column COLUMN'", s.span, f"write: {s.keyword} attacker column normal")
                return None
            if len(args) == 3:
                col = column(args[2], allowed, what)
                return (args[0].text, f"column {col}") if col else None
            cell = args[1].text
            if not ((_number(cell) and "number" in allowed) or cell in allowed):
                ctx.error("value", f"'{cell}' is not a hit number here: write "
                          + " or ".join("a number" if x == "number" else x for x in allowed), args[1].span)
                return None
            return args[0].text, cell

        def hit_against(hit_sts) -> tuple[tuple[frozenset[str], str], ...]:
            """hit attacker N against SELECTOR...: the attacker's hit number
            when the defending stack holds such a counter (a bunker)."""
            out = []
            for h in hit_sts:
                if len(h.args) >= 4 and h.args[2].text == "against":
                    role, cell = h.args[0].text, h.args[1].text
                    if role != "attacker":
                        ctx.error("value", "'against' changes the attacker's hit number: write hit attacker N "
                                  "against SELECTOR", h.args[0].span)
                    elif not (_number(cell) or cell == "●"):
                        ctx.error("value", f"'{cell}' is not a hit number here: write a number or ●", h.args[1].span)
                    else:
                        out.append((self.selectors(h.args[3:], classes), cell))
            return tuple(out)

        die = ctx.ref("die", b.arg("die")) or "d6"
        if die not in self._dice():
            die = next(iter(self._dice()), "d6")
        n = b.arg("support-chits")
        support = ctx.int_(n, "support chits a side per battle", 0, 99) or 0 if n is not None else 0
        sides: dict[str, list[str]] = {}
        for kw in ("support-from", "support-to"):
            s = b.one(kw, (1, 9))
            found = []
            for a in (s.args if s else ()):
                pid = ctx.ref("pool", a)
                if not pid:
                    continue
                side = pools[pid].side
                if not side:
                    ctx.error("value", f"pool {pid} belongs to no side: {kw} names each side's pool", a.span,
                              f"write: pool {pid} \"...\" {{ side SIDE }}")
                elif side in sides.setdefault(kw, []):
                    ctx.error("duplicate", f"{kw} names two pools of {side}", a.span)
                else:
                    sides[kw].append(side)
                    found.append(pid)
            sides[kw + ":pools"] = found
        if support and not sides.get("support-from:pools"):
            ctx.error("missing", "support-chits needs support-from: each side's pool of support chits", n.span,
                      "write: support-from german-support soviet-support")
        first = ctx.ref("side", b.arg("declares-first")) or ""
        superior = ctx.ref("side", b.arg("superior")) or ""
        if b.arg("superior") is None:
            ctx.error("missing", "dice-pool needs 'superior SIDE': the side that pairs the tank duels (3.7)", st.span)
        lv = b.arg("defence-level")
        level = column(lv, ("number",), "the defence level", adds=True) if lv is not None else ""
        steps = []
        for s in b.all("step"):
            sb = Body(ctx, s, f"step {s.name}")
            f = factor(sb.arg("factor"), f"step {s.name}'s factor")
            exc = sb.one("except", (1, 9))
            hit_sts = sb.all("hit")
            hits = dict(x for x in (hit_cell(h, ("number", "●"), f"step {s.name}") for h in hit_sts) if x)
            against = hit_against(hit_sts)
            for role in ROLES:
                if role not in hits:
                    ctx.error("missing", f"step {s.name} needs 'hit {role} ...'", s.span,
                              "write: hit defender 2 and hit attacker column artillery")
            sb.finish()
            if not s.name:
                ctx.error("name", "a step needs a name", s.span, 'write: step bombardment "Artillery" { ... }')
            d, a = hits.get("defender", "-"), hits.get("attacker", "-")
            if d.startswith("column "):
                ctx.error("value", "the defender's hit number is a number or ● (11.3: 2)", s.span)
            steps.append(D.FireStep(s.name or "?", title_of(s) or s.name or "?", f,
                                    self.selectors(exc.args, classes) if exc else frozenset(), d,
                                    a[len("column "):] if a.startswith("column ") else "", where(s), against))
            if a and not a.startswith("column "):
                ctx.error("value", "the attacker's hit number is read from the terrain effects chart: "
                          "hit attacker column COLUMN", s.span)
        du = b.one("duel", (0, 1))
        weapons, fire, armour, exclude, rounds, cells = frozenset(), "", "", [], [], []
        rerolls: frozenset[str] = frozenset()
        if du is not None:
            db = Body(ctx, du, "duel")
            w = db.one("weapons", (1, 9))
            weapons = self.selectors(w.args, classes) if w else frozenset()
            if not w:
                ctx.error("missing", "duel needs 'weapons SELECTOR': the tank-battle weapons", du.span)
            fire = factor(db.arg("fire"), "the duel's fire")
            armour = factor(db.arg("armour"), "the duel's armour")
            for e in db.all("exclude"):
                if len(e.args) < 2 or e.args[0].text not in ROLES:
                    ctx.error("arguments", "exclude takes attacker or defender and selectors", e.span,
                              "write: exclude attacker at-gun")
                    continue
                exclude.append((e.args[0].text, self.selectors(e.args[1:], classes)))
            for r in db.all("round"):
                rb = Body(ctx, r, f"round {r.name}")
                side = self.choice(rb.arg("side"), ROLES, "role (attacker or defender)") or ""
                if rb.arg("side") is None:
                    ctx.error("missing", f"round {r.name} needs 'side attacker' or 'side defender'", r.span)
                ws = rb.one("weapons", (1, 9))
                rb.finish()
                rounds.append(D.DuelRound(r.name or "?", title_of(r) or r.name or "?", side,
                                          self.selectors(ws.args, classes) if ws else frozenset(), where(r)))
            if not rounds:
                ctx.error("missing", "duel needs at least one firing round", du.span,
                          "write: round attacker \"Attacker's round\" { side attacker }")
            cells = [x for x in (hit_cell(s, ("number", "●", "◆"), "tank support") for s in db.all("support")) if x]
            rr = db.one("reroll", (0, 1))
            rerolls = chosen(rr.args, "reroll") if rr is not None else frozenset()
            for role in ROLES:
                if role not in dict(cells):
                    ctx.error("missing", f"duel needs 'support {role} ...': how an unpaired weapon scores", du.span)
            db.finish()
        rg = b.one("ranged", (1, 2))
        ranged = factor(rg.args[0], "ranged") if rg is not None and rg.args else ""
        active = False
        if rg is not None and len(rg.args) == 2:  # 11.2(1)3: the attacker's from its active stacks only
            if rg.args[1].text != "active":
                ctx.error("value", f"ranged takes a factor and optionally 'active', not '{rg.args[1].text}'",
                          rg.args[1].span, "write: ranged range active (the attacker's only from stacks "
                          "that may attack in the combat phase)")
            active = True
        pos = b.arg("position-level")
        position = factor(pos, "position-level") if pos is not None else ""
        r = b.one("retreat")
        if r is not None and r.args and r.args[0].text != "halves-losses":
            ctx.error("value", f"retreat is 'halves-losses', not '{r.args[0].text}'", r.args[0].span)
        breakdown = []
        for e in b.all("breakdown"):  # 19.5: breakdown sp-at side german on 1
            words = [a.text for a in e.args]
            cut = min((words.index(w) for w in ("side", "on") if w in words), default=len(words))
            side, n = "", None
            if "side" in words and words.index("side") + 1 < len(words):
                side = ctx.ref("side", e.args[words.index("side") + 1]) or ""
            if "on" in words and words.index("on") + 1 < len(words):
                n = ctx.int_(e.args[words.index("on") + 1], "the breakdown's die", 1, 99)
            if not cut or n is None:
                ctx.error("arguments", "breakdown takes the counters, optionally their side, and the die that "
                          "breaks them down", e.span, "write: breakdown sp-at side german on 1")
                continue
            breakdown.append((self.selectors(e.args[:cut], classes), side, n))
        ob = b.one("order-battles", (0, 0))
        de = b.one("declare-equipment", (0, 0))
        air = self._air(b, classes, factor, column, chosen, hit_cell, hit_against)
        self.fx.battle_steps = tuple(s.id for s in steps) + ((air.id,) if air else ())
        self.fx.factors = factors
        uses = []
        for i, u in enumerate(b.all("on-use")):
            uses.append((chosen(u.args, "on-use"), self.fx.block(u, f"battle:on-use:{i}")))
        self._air_roles(b, air, uses, classes, counters or {})
        at_once = []
        for i, u in enumerate(b.all("at-once")):
            bad = [e for e in (u.body or ()) if isinstance(e, Statement) and e.keyword != "cancel-chit"]
            for e in bad:
                ctx.error("value", f"'{e.keyword}' is not an at-once effect: a chit played at once cancels the "
                          "enemy chit that acts (cancel-chit SELECTORS)", e.span,
                          "write: at-once sniper { cancel-chit commander }")
            if not bad:
                at_once.append((chosen(u.args, "at-once"), self.fx.block(u, f"battle:at-once:{i}")))
        roles = tuple(r for r in (self._battle_role(e, classes, chosen, de is not None, counters or {})
                                  for e in b.all("role")) if r is not None)
        if not steps and du is None:
            ctx.error("missing", "dice-pool needs at least one step or a duel", st.span)
        b.finish()
        return D.DicePoolRules(die, support, tuple(sides.get("support-from:pools", ())),
                               tuple(sides.get("support-to:pools", ())), first, superior, level, tuple(steps),
                               weapons, fire, armour, tuple(exclude), tuple(rounds), tuple(cells), r is not None,
                               where(st), position, tuple(uses), rerolls, ranged, air, active, tuple(breakdown),
                               ob is not None, de is not None, roles, tuple(at_once))

    def _battle_role(self, e: Statement, classes, chosen, declared: bool, counters) -> D.BattleRole | None:
        """``role ID "Title" { units SELECTORS; as CLASS FACTORS; lock until SIDE }``:
        another way a counter may fight, chosen when its side declares the
        equipment that fights (Prokhorovka 19.3: the SU-152 as an anti-tank gun)."""
        ctx = self.ctx
        if not e.name:
            ctx.error("name", "a role needs a name", e.span, 'write: role anti-tank "As an anti-tank gun" { ... }')
            return None
        if not declared:
            ctx.error("missing", f"role {e.name} is chosen when a side declares the equipment that fights, and this "
                      "dice-pool has no declare-equipment", e.span, "write: declare-equipment (11.2(1))")
        b = Body(ctx, e, f"role {e.name}")
        u = b.one("units", (1, 99))
        units = chosen(u.args, "units") if u is not None else frozenset()
        if u is None:
            ctx.error("missing", f"role {e.name} needs 'units': the counters that may fight this way", e.span,
                      "write: units SU152")
        a = b.one("as", (2, 2))
        cls, factors = "", {}
        if a is None:
            ctx.error("missing", f"role {e.name} needs 'as CLASS FACTORS': how the counters fight in it", e.span,
                      "write: as sp-at 5-1")
        elif ctx.ref("unit-class", a.args[0], "unit class"):
            cls = a.args[0].text
            names = classes[cls].factors if cls in classes else ()
            vals = a.args[1].text.split("-")
            if len(vals) != len(names) or not all(v.isdigit() for v in vals):
                ctx.error("factors", f"'{a.args[1].text}' does not fit class {cls}: it prints {'-'.join(names)}",
                          a.args[1].span, f"write {len(names)} whole number{'s' * (len(names) > 1)} joined by '-'")
            else:
                factors = dict(zip(names, map(int, vals)))
        lock = ""
        lk = b.one("lock", (2, 2))
        if lk is not None:
            if lk.args[0].text != "until":
                ctx.error("value", f"lock takes 'until SIDE', not '{lk.args[0].text}'", lk.args[0].span,
                          "write: lock until soviet (until that side's next player turn begins)")
            else:
                lock = ctx.ref("side", lk.args[1]) or ""
        b.finish()
        if not units or not cls or not factors:
            return None
        return D.BattleRole(e.name, title_of(e) or e.name, units, cls, D.frozen_map(factors), lock, where(e))

    def _air(self, b: Body, classes, factor, column, chosen, hit_cell, hit_against) -> D.AirRules | None:
        """``air NAME "title" { aircraft SEL; anti-air FACTOR; anti-aircraft SEL; hit defender N;
        hit attacker column C; hit attacker N against SEL; ground-attack column C; reroll SEL;
        window PROCEDURES }`` (Prokhorovka
        16.0; ``window move combat``: an air window outside any battle at the start of each move and
        combat phase, ``runtime.combat.dicepool.air``)."""
        ctx = self.ctx
        found = b.all("air")
        for extra in found[1:]:
            ctx.error("duplicate", "dice-pool has one air block", extra.span)
        if not found:
            return None
        s = found[0]
        ab = Body(ctx, s, "air")
        ac = ab.one("aircraft", (1, 9))
        aircraft = self.selectors(ac.args, classes) if ac else frozenset()
        if ac is None:
            ctx.error("missing", "air needs 'aircraft SELECTORS': the support chits that fly air missions", s.span,
                      "write: aircraft aircraft")
        aa = factor(ab.arg("anti-air"), "air's anti-air: the factor a die must not exceed to hit an aircraft")
        guns = ab.one("anti-aircraft", (0, 9))
        hit_sts = ab.all("hit")
        hits = dict(x for x in (hit_cell(h, ("number", "●"), "bombing") for h in hit_sts) if x)
        against = hit_against(hit_sts)  # a bunker: bombing hits on 1 too (签一览, 阵地 1)
        for role in ROLES:
            if role not in hits:
                ctx.error("missing", f"air needs 'hit {role} ...': the bombing dice's hit number", s.span,
                          "write: hit defender 2 and hit attacker column bombing")
        d, a = hits.get("defender", "-"), hits.get("attacker", "-")
        if d.startswith("column "):
            ctx.error("value", "the defender's bombing hit number is a number or ● (16.2(1)1, as 11.3: 2)", s.span)
        if a != "-" and not a.startswith("column "):
            ctx.error("value", "the attacker's bombing hit number is read from the terrain effects chart: "
                      "hit attacker column COLUMN", s.span)
        g = ab.one("ground-attack", (2, 2))
        ground = ""
        if g is not None:
            if g.args[0].text != "column":
                ctx.error("arguments", "ground-attack takes 'column COLUMN'", g.span,
                          "write: ground-attack column ground-attack")
            else:
                ground = column(g.args[1], ("number", "◆"), "a ground-attack shot")
        rr = ab.one("reroll", (0, 9))
        rerolls = chosen(rr.args, "reroll") if rr is not None else frozenset()
        wd = ab.one("window", (1, 2))
        windows: tuple[str, ...] = ()
        for x in wd.args if wd is not None else ():
            if x.text not in WINDOWS:
                ctx.error("value", f"'{x.text}' is not a phase procedure an air window opens at: "
                          f"{', '.join(WINDOWS)}", x.span, "write: window move combat")
            elif x.text not in windows:
                windows += (x.text,)
        if windows and not ground:
            ctx.error("missing", "an air window outside a battle needs 'ground-attack column C' "
                      "(what its ground attacks hit on)", wd.span)
        ab.finish()
        if not s.name:
            ctx.error("name", "air needs a name (what cancel-step calls it)", s.span,
                      'write: air air-combat "Air combat (16.0)" { ... }')
        return D.AirRules(s.name or "air", title_of(s) or s.name or "air", aircraft, aa,
                          self.selectors(guns.args, classes) if guns else frozenset(),
                          d, a[len("column "):] if a.startswith("column ") else "", ground, rerolls, where(s),
                          windows, against)

    def _air_roles(self, b: Body, air: D.AirRules | None, uses, classes, counters) -> None:
        """An aircraft's on-use is its air role and nothing else; an air role needs
        the air block, and a ground-attack its column (checked here so that no
        role is accepted that the engine would not fly)."""
        from ..effects import AIR_VERBS
        ctx = self.ctx
        for (sel, key), u in zip(uses, b.all("on-use")):
            effs = self.fx.effects.get(key, ())
            roles = [e for e in effs if e.verb in AIR_VERBS]
            if not roles:
                if air is not None:
                    flying = sorted(c for c, ctr in counters.items() if (c in sel or self._sel_of(classes, ctr) & sel)
                                    and self._sel_of(classes, ctr) & air.aircraft)
                    if flying:
                        ctx.error("value", f"{flying[0]} is an aircraft (air {air.id}): what it does is an air role "
                                  "(intercept, bomb, ground-attack, recon), flown in the air combat", u.span)
                continue
            if air is None:
                ctx.error("missing", f"'{roles[0].verb}' is an air role: the dice-pool block needs "
                          'air NAME "title" { ... } (16.0)', u.span)
                continue
            if len(roles) != len(effs):
                ctx.error("value", "an aircraft's on-use holds its air role only (intercept, bomb, ground-attack, "
                          "recon)", u.span)
            if len(roles) > 1:
                ctx.error("value", "an aircraft has one air role: " + ", ".join(e.verb for e in roles), u.span)
            if any(e.condition is not None for e in roles):
                ctx.error("value", "an air role takes no 'when'", u.span)
            if any(e.verb == "ground-attack" for e in roles) and not air.ground:
                ctx.error("missing", "a ground-attack role needs air's 'ground-attack column COLUMN' (16.3)", u.span)
            grounded = sorted(c for c, ctr in counters.items() if (c in sel or self._sel_of(classes, ctr) & sel)
                              and not self._sel_of(classes, ctr) & air.aircraft)
            if grounded:
                ctx.error("value", f"{grounded[0]} takes an air role but is not one of air {air.id}'s aircraft "
                          f"({', '.join(sorted(air.aircraft))})", u.span)

    @staticmethod
    def _sel_of(classes, c) -> frozenset[str]:
        cl = classes.get(c.unit_class)
        return frozenset({c.id, c.unit_class, c.nationality, c.side, "all", "other", *(cl.flags if cl else ())})
