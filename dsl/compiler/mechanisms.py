"""The rules blocks: stacking, movement, zones of control, supply, retreat, advance, activation, reinforcements and combat.

Part of the compiler: methods of ``_Compiler`` (see ``core.py``)."""
from __future__ import annotations

import re
from fractions import Fraction

from runtime import definition as D

from ..checker import Body, read_fraction, read_yes_no, title_of, where
from ..diagnostics import Span, did_you_mean
from ..effects import UNIT_MARKERS
from .parts import CompilerParts

fm = D.frozen_map


class MechanismsMixin(CompilerParts):
    def stacking(self, counters: dict[str, D.Counter]) -> dict[str, int]:
        st = self.one("stacking")
        if st is None:
            return {}
        b = Body(self.ctx, st, "stacking")
        out = {}
        for kw in ("units", "hq", "per-class", "equipment"):
            a = b.arg(kw)
            if a is not None and kw not in ("units", "hq"):
                self.ctx.error("unused", f"the stacking limit '{kw}' is not used by any rule", b.one(kw).span,
                               "the engine enforces 'units N', 'hq N' and 'limit N SELECTOR...' (movement, "
                               "retreat, advance, placement, set-up), with 'exempt' classes not counted in units")
            elif a is not None:
                v = self.ctx.int_(a, f"stacking {kw}", 0, 99)
                if v is not None:
                    out[kw] = v
        tags = {t for c in counters.values() for t in c.tags}
        known = set(self.ctx.symbols.get("unit-class", {})) | self.ctx.class_flags | tags | \
            set(self.ctx.symbols.get("nationality", {})) | set(self.ctx.symbols.get("side", {}))
        for lim in b.all("limit"):  # limit N SELECTOR...: at most N units that match one of them
            if len(lim.args) < 2:
                self.ctx.error("arguments", "limit takes a number and unit selectors", lim.span,
                               "write: limit 1 brown   (at most one unit with the tag, class, flag, "
                               "nationality or side brown)")
                continue
            n = self.ctx.int_(lim.args[0], "stacking limit", 0, 99)
            sel = []
            for a in lim.args[1:]:
                if a.text in known:
                    sel.append(a.text)
                else:
                    self.ctx.error("unknown-name", f"'{a.text}' is not a unit class, class flag, nationality, "
                                   "side or counter tag", a.span, did_you_mean(a.text, known))
            if n is not None and sel:
                out[f"limit:{','.join(sorted(sel))}"] = n
        if "hq" in out and "hq" not in self.ctx.class_flags:
            self.ctx.error("unused", "the stacking limit 'hq' counts units whose class has the flag hq, and no "
                           "class has it", b.one("hq").span, "write: unit-class hq \"HQ\" { ...; flags hq }")
        for s in b.all("exempt"):
            for a in s.args:
                out[f"exempt:{a.text}"] = 1
        judged = b.one("judged")
        if judged is not None:  # 3.4(4) GJ63: the limits hold where a move, retreat or advance ends
            self.stacking_judged = judged
            if [a.text for a in judged.args] != ["end"]:
                self.ctx.error("value", "judged takes 'end': the limits hold where a move, retreat or advance ends, "
                               "not at a reinforcement's placement", judged.span, "write: judged end")
            else:
                out["judged-end"] = 1
        b.finish()
        return out

    def check_stacking_judged(self, stacking: dict[str, int], sequence) -> None:
        """``judged end`` needs a phase where the limits are judged after a
        placement: a movement phase (reinforcements placed over the limit
        move apart there)."""
        if not stacking.get("judged-end"):
            return

        def moves(ph) -> bool:
            return ph.procedure in ("move", "strategic-move") or any(moves(c) for c in ph.children)
        if not any(moves(ph) for ph in sequence):
            self.ctx.error("missing", "stacking 'judged end' lets reinforcements be placed over the limit and judges "
                           "it at the end of movement, and the sequence has no move phase",
                           self.stacking_judged.span, "add a phase with 'procedure move', or leave 'judged' out")

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
        overrun: frozenset[str] = frozenset()
        overrun_by: frozenset[str] = frozenset()
        displace = 0
        exits: list[tuple[str, str, frozenset[str]]] = []
        exit_when: list = []
        if st is not None:
            b = Body(ctx, st, "movement")
            points = b.text("points", "move")
            ov = b.one("overrun", (4, 30))
            if ov is not None:
                overrun, overrun_by, displace = self._overrun(ov, classes)
            for ex in b.all("exit"):
                found = self._exit(ex, classes)
                exits.extend(found)
                if ex.condition is not None and found:  # exit ... when CONDITION: the box is open while it holds
                    exit_when.extend((pool, ctx.expr(ex.condition)) for _, pool, _ in found)
            b.finish()
        self.overrun_declared = bool(overrun)  # read by retreat/advance { overrun yes; follows ... }
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
            av = b.one("avoid", (1, 9))  # avoid TERRAIN|FEATURE...: hexes the mode never enters
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
                                        self.selectors(only.args, classes, ctx.designated) if only else frozenset(),
                                        frozenset(a.text for a in barred.args) if barred else frozenset(),
                                        allowance, fo is not None,
                                        self.selectors(ex.args, classes) if ex else frozenset(),
                                        tuple(forbid), tuple(marks), b.flag("own-control"), where(m),
                                        self.terrain_set(av.args, ("terrain", "feature")) if av else frozenset()))
            b.finish()
        return D.MovementRules(points, tuple(modes), where(st) if st else "", overrun, overrun_by, displace,
                               tuple(exits), tuple(exit_when))

    def _exit(self, st, classes) -> list[tuple[str, str, frozenset[str]]]:
        """exit AREA to POOL by SELECTOR... [when CONDITION]: units the selectors
        name may move from a hex of the area (with 1 MP left) into the pool (a
        box off the map), while the condition holds."""
        words = [a.text for a in st.args]
        if len(words) < 5 or words[1] != "to" or words[3] != "by":
            self.ctx.error("arguments", "exit takes a map area, 'to' a pool, and 'by' the units that may leave "
                           "the map there", st.span, "write: exit minsk-box-edge to minsk-pocket by soviet")
            return []
        self.phase_areas.append(st.args[0])  # checked once the map is read
        pool = self.ctx.ref("pool", st.args[2])
        sel = self.selectors(st.args[4:], classes)
        return [(words[0], pool, sel)] if pool and sel else []

    def _overrun(self, st, classes) -> tuple[frozenset[str], frozenset[str], int]:
        """overrun SELECTOR... by SELECTOR... displace N: who may be overrun when
        alone in a hex, by whom, and how far toward supply they are displaced."""
        ctx = self.ctx
        words = [a.text for a in st.args]
        if "by" not in words or "displace" not in words or \
                not 0 < words.index("by") < words.index("displace") - 1 or words.index("displace") != len(words) - 2:
            ctx.error("arguments", "overrun takes the units overrun, 'by' the units that overrun them and "
                      "'displace' the hexes they are pushed toward supply", st.span,
                      "write: overrun hq by panzer infantry displace 4")
            return frozenset(), frozenset(), 0
        i, j = words.index("by"), words.index("displace")
        n = ctx.int_(st.args[j + 1], "displace", 1, 99)
        return self.selectors(st.args[:i], classes), self.selectors(st.args[i + 1:j], classes), n or 0

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
                               city_supply=city, closed_sources=b.flag("closed-sources"),
                               ends_in_zoc=self.yes(b, "ends-in-zoc", True), where=where(st))
        if not result.ends_in_zoc:
            # (a unit in enemy ZOC that does not negate it would be cut off where the line ends: not enforced)
            ez = b.all("ends-in-zoc")[0]
            if not result.blocked_by_enemy_zoc:
                ctx.error("value", "ends-in-zoc no needs lines blocked by enemy ZOC (blocked-by enemy-zoc)",
                          ez.span, "add enemy-zoc to blocked-by, or leave ends-in-zoc out")
            elif not result.friendly_negates_zoc:
                ctx.error("value", "ends-in-zoc no is supported only where a friendly unit negates enemy ZOC "
                          "(friendly-negates-zoc yes): a unit's own hex would cut its line", ez.span,
                          "leave ends-in-zoc out, or write friendly-negates-zoc yes")
        b.finish()
        return result

    def _retreat(self, classes) -> D.RetreatRules:
        """Retreat after combat."""
        ctx = self.ctx
        st = self.one("retreat")
        if st is None:
            return D.RetreatRules()
        b = Body(ctx, st, "retreat")
        toward = self.choice(b.arg("toward"), ("supply", "supply-line", "supply-first", "own-edge", "away"),
                             "retreat direction") or "supply"
        if toward not in ("supply", "supply-line", "supply-first"):
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
        sd = b.one("stand", (1, 9))
        zf = b.one("zoc-free-with-friends", (1, 9))
        if zf and ez != "lose-step":
            ctx.error("unused", f"zoc-free-with-friends is not read when enemy-zoc is {ez}", zf.span,
                      "it exempts units from the step an enemy-ZOC hex costs (enemy-zoc lose-step)")
        zz = b.one("zoc-to-zoc-across", (1, 9))
        follows, overrun = self._follows_and_overrun(b, "retreat", classes)
        result = D.RetreatRules(toward, frozenset(dest), ez,
                                self.terrain_set(sh.args, ("hexside",)) if sh else frozenset(), ov,
                                self.selectors(hw.args, classes) if hw else frozenset(), into,
                                where(st), rd == "yes",
                                self.selectors(sd.args, classes) if sd else frozenset(),
                                self.selectors(zf.args, classes) if zf else frozenset(),
                                follows, overrun,
                                self.terrain_set(zz.args, ("hexside",)) if zz else frozenset())
        b.finish()
        return result

    def _follows_and_overrun(self, b: Body, block: str, classes) -> tuple[frozenset[str], bool]:
        """``follows SELECTOR...`` (units that go with a stack-mate: retreat,
        advance) and ``overrun yes`` (the movement's overrun applies), both of
        which need the movement's ``overrun ... displace N``: a follower left
        alone is displaced, and an overrun needs its rule."""
        fo = b.one("follows", (1, 9))
        follows = self.selectors(fo.args, classes) if fo else frozenset()
        overrun = self.yes(b, "overrun", False)
        if not getattr(self, "overrun_declared", False):
            for kw, used in (("follows", bool(fo) and block == "retreat"), ("overrun", overrun)):
                if used:
                    self.ctx.error("missing", f"{block} {kw} needs the movement's overrun rule: "
                                   + ("a follower left alone is displaced as an overrun unit is" if kw == "follows"
                                      else "it names who is overrun, by whom, and how far they are displaced"),
                                   b.one(kw, (0, 9)).span, "write: movement { overrun hq by panzer infantry displace 4 }")
        return follows, overrun

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
        fh = b.one("first-hex-across", (1, 9))
        follows, overrun = self._follows_and_overrun(b, "advance", classes)
        result = D.AdvanceRules(tuple(hexes) or (("all", 1),), self.yes(b, "ignores-zoc", True),
                                where(st), self.terrain_set(fh.args, ("hexside",)) if fh else frozenset(),
                                follows, overrun)
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
        ch = b.one("command-chain", (2, 40))
        chain = ctx.int_(ch.arg(0), "command-chain step", 1, 99) or 0 if ch else 0
        units, groups = list(ch.args[1:]) if ch else [], []
        per = next((i for i, a in enumerate(units) if a.text == "per"), None)
        if per is not None:  # command-chain N SELECTORS per TAG...: a chain per tag, from a commander
            units, groups = units[:per], units[per + 1:]
            if not groups:
                ctx.error("syntax", "'per' takes the tags that make one chain each (the counters' tags)",
                          ch.args[1 + per].span, "e.g. command-chain 3 motorized per yellow purple orange")
            if not units:
                ctx.error("syntax", "command-chain takes the units it links before 'per'", ch.args[1 + per].span,
                          "e.g. command-chain 3 motorized per yellow purple orange")
        self.chain_groups = groups
        result = D.ActivationRules(
                                   b.text("command-range", "command"),
                                   frozenset(a.text for a in (sn.args if sn else ()) if ctx.ref("side", a)),
                                   self.yes(b, "hq-activates-hq", False),
                                   ctx.int_(mm, "max-mechanized", 0, 999) if mm is not None else None, where(st),
                                   chain, self.selectors(units, classes) if ch else frozenset(),
                                   tuple(dict.fromkeys(a.text for a in groups)))
        self.activation_chain = ch
        b.finish()
        return result

    def check_command_chain(self, chits: dict[str, D.Chit], rules: D.ActivationRules,
                            game: D.GameDefinition) -> None:
        """A chit commanding by chain needs the chain's step; a chain no chit uses is not used; each
        tag of ``per`` is carried by a counter the chain links (else no commander could ever be picked)."""
        for a in getattr(self, "chain_groups", ()):
            if not any(a.text in c.tags and game.matches(cid, rules.chain_units) for cid, c in game.counters.items()):
                tagged = sorted({t for cid, c in game.counters.items() if game.matches(cid, rules.chain_units)
                                 for t in c.tags})
                self.ctx.error("unknown-name", f"no counter the command chain links carries the tag '{a.text}'",
                               a.span, did_you_mean(a.text, tagged) or
                               "the tags are the counters' 'tags' column (units.hxr)")
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
            # returns SIDE SELECTOR... to POOL [from combat supply] [marked|unmarked MARKER]
            rargs = list(r.args)
            marker = None
            words = [a.text for a in rargs]
            for w in ("marked", "unmarked"):
                if w in words:
                    i = words.index(w)
                    if i + 1 >= len(rargs):
                        ctx.error("arguments", f"'{w}' takes a unit marker", rargs[i].span,
                                  "write: returns soviet rifle to reserve unmarked isolated")
                        rargs = rargs[:i]
                    else:
                        name = rargs[i + 1].text
                        if name in UNIT_MARKERS:
                            marker = (w, name)
                        else:
                            ctx.error("unknown-name", f"'{name}' is not a unit marker the engine reads",
                                      rargs[i + 1].span, did_you_mean(name, UNIT_MARKERS)
                                      or "unit markers: " + ", ".join(UNIT_MARKERS))
                        rargs = rargs[:i] + rargs[i + 2:]
                    words = [a.text for a in rargs]
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
                returns.append((side, sel, pool, frozenset(losses), marker))
        costs = []
        for c in b.all("cost"):  # cost SELECTOR... N
            if len(c.args) < 2:
                ctx.error("arguments", "cost takes unit selectors and the points they cost", c.span,
                          "write: cost hq 2")
                continue
            n = ctx.int_(c.args[-1], "points", 0, 99)
            sel = self.selectors(c.args[:-1], classes)
            if n is not None:
                costs.append((sel, n))
        chit_cost = None
        cc = b.one("chit-cost", (1, 1))
        if cc is not None:
            chit_cost = ctx.int_(cc.args[0], "points", 0, 99)
            if not costs:
                ctx.error("unused", "chit-cost is not used by any rule without 'cost' lines: reinforcements are "
                          "bought with points only when units have costs", cc.span, "add: cost all 1")
        at = []
        for a in b.all("at"):  # at marker KIND [for SELECTORS] | at hq [for ...] | at next-to-hq [for ...]
            words = [x.text for x in a.args]
            sel: frozenset[str] = frozenset()
            if "for" in words:
                i = words.index("for")
                sel = self.selectors(a.args[i + 1:], classes)
                words = words[:i]
            if words and words[0] == "marker" and len(words) == 2:
                if ctx.ref("marker", a.args[1], "marker kind"):
                    at.append(("marker", words[1], sel))
            elif words in (["hq"], ["next-to-hq"]):
                at.append((words[0], "", sel))
            else:
                ctx.error("arguments", "at takes 'marker KIND', 'hq' or 'next-to-hq', then optionally "
                          "'for SELECTORS'", a.span, "write: at next-to-hq for brown elite")
        per_hq = None
        ph = b.one("per-hq", (2, 9))
        if ph is not None:
            n = ctx.int_(ph.args[-1], "units per HQ", 0, 99)
            if n is not None:
                per_hq = (self.selectors(ph.args[:-1], classes), n)
            if not any(k in ("hq", "next-to-hq") for k, _, _ in at):
                ctx.error("unused", "per-hq is not used by any rule: no 'at hq' or 'at next-to-hq' line",
                          ph.span)
        od = b.one("order", (1, 9))
        order = tuple(a.text for a in (od.args if od else ()) if ctx.ref("side", a))
        result = D.ReinforcementRules(pools, enter, frozenset(not_in), tuple(returns), where(st),
                                      tuple(costs), chit_cost, tuple(at), per_hq, order)
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
            nl = b.one("no-losses", (1, 9))
            no_losses = self.selectors(nl.args, classes) if nl else frozenset()
            if nl and proc != "odds":
                ctx.error("value", "no-losses names units that take no step loss from a CRT result: the "
                          f"{proc} procedure assigns its losses otherwise", nl.span)
            na = b.one("not-attacked", (1, 9))
            not_attacked = self.selectors(na.args, classes) if na else frozenset()
            if na and proc != "odds":
                ctx.error("value", "not-attacked names units a CRT attack or a fire attack may not target: the "
                          f"{proc} procedure chooses its targets otherwise", na.span)
            df = b.one("declare-first", (0, 0))
            if df is not None and proc != "odds":
                ctx.error("value", "declare-first is for attacks on a CRT: the "
                          f"{proc} procedure orders its battles otherwise", df.span,
                          "a dice-pool game says 'order-battles' in its dice-pool block" if proc == "dice-pool"
                          else "firepower battles are fought in the order the attacker picks them")
            result = D.CombatRules(proc, crt, attack, tuple(limits), factor, db is not None, where(st), no_losses,
                                   not_attacked, df is not None and proc == "odds")
            b.finish()
        return result
