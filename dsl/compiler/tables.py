"""The terrain effects chart, CRTs, result codes, die tables and their modifiers.

Part of the compiler: methods of ``_Compiler`` (see ``core.py``)."""
from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from runtime import definition as D

from ..ast import Arg, Statement
from ..checker import Body, TableView, is_dash, read_fraction, read_range, read_yes_no, title_of, where
from ..effects import check_results
from ..diagnostics import Span, did_you_mean
from .parts import CompilerParts

fm = D.frozen_map


class TablesMixin(CompilerParts):
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
            zc = view.cell(r, "zoc-to-zoc")
            never = zc is not None and zc.text == "never"  # not even over a bridge (AVD: major rivers)
            z = False if never else read_yes_no(ctx, zc, "zoc-to-zoc", True)
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
                                            where(r), zoc_to_zoc_bridged=not never)
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
        ons = b.all("on")
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
        for o in ons:  # effects a result runs before it applies (a CRT result: join, reroll)
            if len(o.args) != 1:
                ctx.error("arguments", "on takes one result code", o.span, "write: on RED { effects }")
            elif o.args[0].text not in out:
                ctx.error("unknown-name", f"results {st.name} has no code '{o.args[0].text}'", o.args[0].span,
                          did_you_mean(o.args[0].text, out))
            else:
                self.fx.block(o, f"result:{st.name}:{o.args[0].text}")
        return out

    def check_result_rows(self, crts: dict[str, D.Crt]) -> None:
        """A result's ``join ... else-row N`` reads row N of every CRT that
        prints the result's set: the row must be there."""
        for crt in crts.values():
            for key, effects in self.fx.effects.items():
                if not key.startswith(f"result:{crt.results}:"):
                    continue
                for eff in effects:
                    row = eff.args.get("else-row") if eff.verb == "join" else None
                    if row is not None and row not in crt.rows:
                        self.ctx.error("crt-rows", f"else-row {row}: crt {crt.id} has no row {row}",
                                       Span.parse(eff.where + ":1"), f"its rows: {min(crt.rows)}-{max(crt.rows)}"
                                       if crt.rows else None)

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
