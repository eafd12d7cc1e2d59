"""Fire attacks: ``fire-attack`` declarations (runtime/combat/fire.py runs
them) and the check that each one is granted by a ``fire`` effect.

Part of the compiler: methods of ``_Compiler`` (see ``core.py``)."""
from __future__ import annotations

from runtime import definition as D

from ..checker import Body, title_of, where
from ..diagnostics import Span, did_you_mean
from .parts import CompilerParts


class FireMixin(CompilerParts):
    def fire_attack(self, st, classes, crts: dict[str, D.Crt], combat: D.CombatRules) -> D.FireAttack | None:
        """fire-attack ID "Title" [when COND] { side SIDE; crt CRT; column LABEL; die DIE; by SELECTOR...;
        range N [from TERRAIN...]; ignore retreats; per-game N }."""
        ctx = self.ctx
        b = Body(ctx, st, f"fire-attack {st.name}")
        side = ctx.ref("side", b.arg("side"))
        if b.arg("side") is None:
            ctx.error("missing", f"fire-attack {st.name} needs 'side' (whose attack it is)", st.span,
                      "write: side soviet")
        crt_arg = b.arg("crt")
        crt_id = ctx.ref("crt", crt_arg) if crt_arg is not None else combat.crt
        col_arg = b.arg("column")
        die_arg = b.arg("die")
        die = ctx.ref("die", die_arg) or "" if die_arg is not None else ""
        by = b.one("by", (1, 9))
        ranges = []
        for r in b.all("range"):
            args = list(r.args)
            n = ctx.int_(args[0], "range in hexes", 0, 99) if args else None
            terrain: frozenset[str] = frozenset()
            if len(args) >= 3 and args[1].text == "from":
                terrain = self.terrain_set(args[2:], ("terrain", "feature"))
            elif len(args) != 1:
                ctx.error("arguments", "range takes a number of hexes, then optionally 'from' and terrains",
                          r.span, "write: range 1   or   range 2 from hill")
                continue
            if n is not None:
                ranges.append(D.FireRange(n, terrain))
        ignore = set()
        for ig in b.all("ignore"):
            for a in ig.args:
                if a.text == "retreats":
                    ignore.add("retreats")
                else:
                    ctx.error("value", f"a fire attack ignores 'retreats', not '{a.text}'", a.span,
                              "the firer's own results never apply (nobody fires from next to the target); "
                              "write: ignore retreats (the target takes its losses only)")
            if not ig.args:
                ctx.error("arguments", "ignore takes 'retreats'", ig.span, "write: ignore retreats")
        pg = b.arg("per-game")
        per_game = ctx.int_(pg, "per-game", 1, 99) if pg is not None else None
        b.finish()
        ctx.expr(st.condition)
        if combat.procedure != "odds":
            ctx.error("value", f"fire-attack {st.name} is not used by any rule: fire attacks roll on a CRT, "
                      f"and this game fights by {combat.procedure}", st.span,
                      "write: combat { procedure odds; crt NAME }")
            return None
        crt = crts.get(crt_id or "")
        if crt is None:
            if crt_arg is None:
                ctx.error("missing", f"fire-attack {st.name} needs 'crt'", st.span, "write: crt NAME")
            return None
        column = None
        if col_arg is None:
            ctx.error("missing", f"fire-attack {st.name} needs 'column' (the printed CRT column it fires on)",
                      st.span, f"write: column {crt.columns[len(crt.columns) // 2].label}" if crt.columns else None)
        else:
            labels = [c.label for c in crt.columns]
            if col_arg.text in labels:
                column = labels.index(col_arg.text)
            else:
                ctx.error("unknown-name", f"crt {crt.id} has no column '{col_arg.text}'", col_arg.span,
                          did_you_mean(col_arg.text, labels) or "columns: " + " ".join(labels))
        if die and crt.rows:
            d = self._dice().get(die)
            missing = [t for t in range(d.low, d.high + 1) if t not in crt.rows] if d else []
            if missing:
                ctx.error("crt-rows", f"crt {crt.id} has no row for {die} roll{'s' * (len(missing) > 1)} "
                          f"{', '.join(map(str, missing))}", die_arg.span)
        dname = die or crt.dice.get(side or "") or crt.dice.get("*") or ""
        d = self._dice().get(dname)
        if d is not None and side is not None:  # a fire attack runs no result effects: none may be rolled
            reached = {code for t in range(d.low, d.high + 1) if t in crt.rows for code in crt.rows[t]}
            ran = sorted(c for c in reached if f"result:{crt.results}:{c}" in self.fx.effects)
            if ran:
                ctx.error("value", f"fire-attack {st.name} can roll {ran[0]} on crt {crt.id}, a result with effects, "
                          "which a fire attack does not run", st.span,
                          "give the fire attack a die that does not reach it (die d6), or drop the result's effects")
        if side is None or column is None:
            return None
        return D.FireAttack(st.name, title_of(st) or st.name, side, crt.id, column, die,
                            self.selectors(by.args, classes) if by else frozenset(), tuple(ranges),
                            frozenset(ignore), per_game, st.condition, where(st))

    def check_fire_grants(self, fire_attacks: dict[str, D.FireAttack], tables: dict[str, D.DieTable]) -> None:
        """Every fire attack is granted by some ``fire`` effect (else nothing
        would ever fire it); a ``fire ... roll TABLE`` reads whole numbers."""
        granted: set[str] = set()
        for effects in self.fx.effects.values():
            for eff in effects:
                if eff.verb != "fire":
                    continue
                granted.update(eff.args["kinds"])
                sides = {fire_attacks[k].side for k in eff.args["kinds"] if k in fire_attacks}
                if len(sides) > 1:
                    self.ctx.error("value", f"one fire effect grants one side's fire attacks, not "
                                   f"{' and '.join(sorted(sides))}'s", Span.parse(eff.where + ":1"),
                                   "write one fire effect per side")
                t = tables.get(str(eff.args.get("table") or ""))
                if t is not None:
                    bad = [row[0] if row else "" for row in t.cells if not row or not (row[0] == "-" or row[0].lstrip("-").isdigit())]
                    if bad:
                        self.ctx.error("value", f"fire ... roll {t.id}: the first cell of each row is the number "
                                       f"of fire attacks, and '{bad[0] or '(empty)'}' is not a whole number",
                                       Span.parse(eff.where + ":1"), f"see die-table {t.id}")
        for fid in fire_attacks:
            if fid not in granted:
                st = next(s for s in self.all("fire-attack") if s.name == fid)
                self.ctx.error("unused", f"fire-attack {fid} is not used by any rule: no 'fire' effect grants it",
                               st.args[0].span, f"grant it where it happens, e.g. chits {{ on-draw CHIT "
                               f"{{ fire {fid} 1 }} }}")
