"""Counters (units and markers), chits and the turn track.

Part of the compiler: methods of ``_Compiler`` (see ``core.py``)."""
from __future__ import annotations

import dataclasses


from runtime import definition as D
from runtime.vocabulary import ACTIVATION_KINDS

from ..ast import Arg, Statement
from ..art import art_file
from ..checker import Body, TableView, is_dash, read_list, read_yes_no, where
from ..diagnostics import did_you_mean
from .parts import CompilerParts

fm = D.frozen_map
UNRUN_CHIT_KINDS = ("event", "air", "artillery")  # kinds whose draw does nothing but their on-draw effects


class CountersMixin(CompilerParts):
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
        self.chit_from: dict[str, Arg] = {}  # chits whose first turn is written in the chits table
        if st is None:
            return out
        ctx = self.ctx
        b = Body(ctx, st, "chits")
        view = TableView.of(ctx, b.table(), "the chits table", st.span)
        drawn = {od.args[0].text for od in b.all("on-draw") if od.args}  # chits whose draw runs effects
        self.chit_counts = []
        for pt in b.all("per-turn"):  # per-turn SIDE = EXPRESSION [when CONDITION]
            if len(pt.args) != 1 or pt.value is None:
                ctx.error("arguments", "per-turn takes a side and = the number of chits it chooses", pt.span,
                          'write: per-turn german = track("moscow.german-chits") when turn == 8')
                continue
            side = ctx.ref("side", pt.args[0])
            ctx.expr(pt.value)
            ctx.expr(pt.condition)
            if side:
                self.chit_counts.append(D.ChitCount(side, pt.value, pt.condition, where(pt)))
        for od in b.all("on-draw"):
            if len(od.args) == 1 and ctx.ref("chit", od.args[0]):
                self.fx.block(od, f"chit:{od.args[0].text}")
            elif len(od.args) != 1:
                ctx.error("arguments", "on-draw takes one chit", od.span, "write: on-draw Reinf { effects }")
        b.finish()
        if view is None:
            return out
        view.require_first("id")
        cols = ("id", "side", "kind", "hq", "count", "from", "always", "pick", "command", "needs", "units", "title")
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
            if fr is not None and not is_dash(fr):
                self.chit_from[cid] = fr
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
            units: frozenset[str] = frozenset()
            uc = view.cell(r, "units")
            if uc is not None and not is_dash(uc):
                ok = set(self.ctx.symbols.get("unit-class", {})) | ctx.class_flags | {"all"} | \
                    set(ctx.symbols.get("nationality", {})) | set(ctx.symbols.get("side", {}))
                units = frozenset(read_list(uc))
                for x in sorted(units - ok):
                    ctx.error("unknown-name", f"'{x}' is not a unit class, class flag, nationality or side",
                              uc.span, did_you_mean(x, ok))
                if kind not in ("hq", "interrupt"):
                    ctx.error("unused", f"chit {cid}'s units are not used by any rule: a {kind} chit activates "
                              "no HQ", uc.span)
                elif "range" not in command:
                    ctx.error("unused", f"chit {cid}'s units are not used by any rule: they choose among the units "
                              "of its command range, and it commands by chain only", uc.span)
            out[cid] = D.Chit(cid, title.text if title is not None and not is_dash(title) else cid, side, kind,
                              hq, count, first, always, pick, where(r), any_hq, command, needs_hq, units)
        return out

    # ------------------------------------------------------------ turn track
    def turn_track(self, weather, chits, events) -> D.TurnTrack:
        st = self.one("turn-track")
        self.chit_track_turn: dict[str, int] = {}  # chits listed in the track's `chits` column: on which turn
        self.track_column_types: dict[str, str] = {}  # the track's own columns: number, text or list
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
        self.track_column_types = custom
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
            self.chits_from_track(chits, n, values.get("chits") or (), view.cell(r, "chits"))
        return D.TurnTrack(tuple(turns), tuple(view.columns[1:]))

    def chits_from_track(self, chits: dict[str, D.Chit], turn: int, listed: tuple[str, ...], a: Arg | None
                         ) -> None:
        """The track's `chits` column: the turn each listed chit becomes
        available.  It sets the first turn of a chit whose `from` is not
        written, and must agree with one that is."""
        for cid in listed:
            if cid not in chits or a is None:
                continue
            seen = self.chit_track_turn
            if cid in seen:
                self.ctx.error("value", f"chit {cid} is listed on turn {seen[cid]} and again on turn {turn} of the "
                               "turn track: a chit becomes available once", a.span)
                continue
            seen[cid] = turn
            fr = self.chit_from.get(cid)
            if fr is not None and chits[cid].available != turn:
                self.ctx.error("value", f"chit {cid} becomes available on turn {turn} by the turn track, but the "
                               f"chits table says from {chits[cid].available}", a.span,
                               "write the same turn in both, or leave the chits table's 'from' as -")
            elif fr is None:
                chits[cid] = dataclasses.replace(chits[cid], available=turn)

    def _ref_text(self, kind: str, name: str, a: Arg) -> bool:
        if self.ctx.has(kind, name):
            return True
        self.ctx.error("unknown-name", f"unknown {kind} '{name}'", a.span,
                       did_you_mean(name, self.ctx.symbols.get(kind, {})))
        return False
