"""Units coming onto the map, procedures of the runner: the set-up by the
players (a scenario's ``deploy``), reinforcements (entry hexes by rail or by
supply line, an area, units due early) and rebuilding (Barbarossa 10.0).
A mixin of ``runtime.runner.Runner``."""
from __future__ import annotations

from fractions import Fraction

from .actions import Done
from .action_lists import UnitPlacements
from .decisions import Choose, Place
from .definition import Phase, Placement
from .hexes import Hex
from .movement import (ALL, SCALE, MoveError, class_costs, mode_by_id, move_range, scaled, stack_count, stack_weight,
                       unit_mp)
from .observe import this_turn
from .runner_parts import RunnerParts
from .stacking import ENTERING, extra_bars, extra_limits, judged_at_end, names_of, stacking_bars
from .state import GameState, fingerprint
from .supply import reached, sources_of
from .zoc import enemy_zoc


ENTRY_COST = "entry-cost:"  # s.done: UID, placed by a ``move-on`` reinforce phase: its entry hex's cost comes
# off its MP in its side's next movement phase


class Reinforcements(RunnerParts):
    # (state, its step, fingerprint, actions): the rebuild answers listed last (``_rebuild_actions``)
    _rebuild_memo: tuple | None = None

    # ---------------------------------------------------------- set-up by the players
    def _deploying(self, s: GameState, side: str) -> list[str]:
        """The side's units waiting in set-up areas, by id: kept until a unit
        changes (an answer asks after placing a unit, the next list again)."""
        key = ("deploying", side, s.edits, s.version)
        hit = s.cache.get(key)
        if hit is None:
            hit = s.cache[key] = sorted(u.id for u in s.units.values() if u.side == side and u.box.startswith("deploy:"))
        return hit

    def deploy_hexes(self, s: GameState, uid: str, open_in: dict | None = None) -> list[Hex]:
        """Where a unit set up in an area may go: a hex of the area free of
        enemy units, within the stacking limit.  ``open_in``: the hexes of
        each area that no unit's own limits come into (enemy units, the
        units limit), and each area's answer for the units that the hq and
        limit rules cannot tell apart, kept across the units of one list of
        answers (one state)."""
        g = self.game
        area = s.units[uid].box.split(":", 1)[1]
        side = s.units[uid].side
        open_in = {} if open_in is None else open_in
        hexes = open_in.get(area)
        if hexes is None:
            occupants, units = s.occupants, s.units
            limit = g.stacking.get("units")
            room = limit is None or limit >= 1  # (in an empty hex)
            hexes = open_in[area] = [h for h in self._in_map_order(area)
                                     if (units[ids[0]].side == side and self._fits(s, h)
                                         if (ids := occupants.get(h)) else room)]
        if not g.stacking or not extra_limits(g.stacking):  # (no hq or per-selector limit: every unit alike)
            return list(hexes)
        # the hq and limit rules tell units apart only by the limits whose selectors they match:
        # the units of an area alike so share one answer
        names = names_of(g, uid)
        alike = (area, tuple(not sel.isdisjoint(names) for _, sel, _ in extra_limits(g.stacking)))
        kept = open_in.get(alike)
        if kept is not None:
            return list(kept)
        # in an empty hex the unit is alone, the same answer in every one
        alone = None
        out = []
        for h in hexes:
            if h in s.occupants:
                if not extra_bars(g, s, h, uid):
                    out.append(h)
            else:
                if alone is None:
                    alone = not extra_bars(g, s, h, uid)
                if alone:
                    out.append(h)
        open_in[alike] = out
        return list(out)

    def _in_map_order(self, area: str) -> list[Hex]:
        """The hexes of a map area in map order (sorted once per area)."""
        kept = self.__dict__.setdefault("_area_order", {})
        hit = kept.get(area)
        if hit is None:
            hit = kept[area] = sorted(self.game.map.areas[area], key=self.board.colrow.__getitem__)
        return hit

    def _deploy_actions(self, s: GameState, tail: list) -> UnitPlacements:
        """Each waiting unit in each hex open to it, then ``tail``: the Place
        actions built when read (most set-up answers are never looked at)."""
        open_in: dict[str, list[Hex]] = {}
        # where no hq or per-selector limit tells units apart, the units of an area share its list (read only)
        alike = not (self.game.stacking and extra_limits(self.game.stacking))
        units = s.units
        groups = []
        for uid in self._deploying(s, s.step["side"]):
            hexes = open_in.get(units[uid].box.split(":", 1)[1]) if alike else None
            groups.append((uid, hexes if hexes is not None else self.deploy_hexes(s, uid, open_in)))
        return UnitPlacements(groups, tail, self.board.hex_id)

    def _answer_deploy(self, s: GameState, a) -> None:
        side = s.step["side"]
        if isinstance(a, Place):
            h = self.board.parse(a.at)
            s.place(a.unit, h)
            if h in self.engine.controllable:
                s.control[h] = side
            if self._deploying(s, side):
                return
        for uid in self._deploying(s, side):  # 'done': the rest where the scenario's default puts them
            area = s.units[uid].box.split(":", 1)[1]
            self._place_in_area(s, Placement(uid, "area", area))
            s.log.append({"turn": s.turn, "deploy": uid, "at": self.board.hex_id(s.units[uid].hex)})
        rest = [x for x in s.step["sides"] if self._deploying(s, x)]
        s.step = {"decision": "deploy", "side": rest[0], "sides": rest[1:]} if rest else {}

    def _place_in_area(self, s: GameState, p: Placement) -> None:
        g = self.game
        hexes = self.board.in_map_order(g.map.areas[p.where_to])
        limit = g.stacking.get("units", 99)
        side = s.units[p.counter].side
        best = None
        for h in hexes:
            if s.side_at(h) not in (None, side):
                continue
            n = stack_count(g, s, h)
            if n + 1 > limit or extra_bars(g, s, h, p.counter):
                continue
            if best is None or n < best[0]:
                best = (n, h)
                if n == 0:
                    break  # no hex has room for more
        if best is None:
            raise ValueError(f"no room in area {p.where_to} for {p.counter}")
        s.place(p.counter, best[1])


    def _proc_reinforce(self, s: GameState, ph: Phase) -> None:
        area = (ph.params.get("at") or ("",))[0]
        self._start_placement(s, ph.side or s.active, area, bool(ph.params.get("due")),
                              ph.params.get("from"), int(ph.params["count"][0]) if ph.params.get("count") else None,
                              ph.params.get("formation", ()), bool(ph.params.get("pick")),
                              ph.params.get("at-for", ()))
        if s.step.get("decision") and ph.params.get("marker"):
            s.step["marker"] = ph.params["marker"][0]  # placed units carry it to the end of the player turn
        if s.step.get("decision") and ph.params.get("move-on"):
            s.step["move-on"] = True  # they pay their entry hex in the side's next movement phase
        if not s.step.get("decision"):
            s.pc += 1

    def _start_placement(self, s: GameState, side: str, area: str = "", early: bool = False,
                         pools_from: tuple[str, ...] | None = None, count: int | None = None,
                         formations: tuple[str, ...] = (), drawn: bool = False,
                         entries: tuple[str, ...] = ()) -> None:
        """Reinforcements of ``side`` waiting in the reinforcement pools: as
        many as the turn track's SIDE.reinforcements column says, or all of
        them without one.  ``area``: only there (12.3: Warsaw or Königsberg);
        ``early``: the units due next turn come now (10.0: the Siberians).
        A phase's ``from`` pools replace the game's reinforcement pools, and
        its ``count`` caps the number (GJ63 7.0: two of the XXIV Corps).
        ``formations``: the side chooses, of each formation, as many of its
        waiting units as the track's column of that name says (GJ63 7.0(1):
        XXXVG, 5GA, 5GTA); ``drawn``: the units are drawn at random, not
        chosen (19.2(2)); ``entries``: the phase's ``at AREA for NAME...``
        lines, the area where the units they name enter instead of ``area``
        (7.0(1): the turn track's 【N/E】); a unit whose area has no entry hex
        now does not come."""
        track = self.game.turn_track
        column = f"{side}.reinforcements"
        pools = {f"pool:{p}" for p in (pools_from or self.game.reinforcements.pools)}
        if self.game.supply.transfer and not pools_from:
            pools.add(f"pool:{self.game.supply.transfer}")
        if early:
            pools = {f"turn:{s.turn + 1}"}
        units = sorted(u.id for u in s.units.values() if u.side == side and u.box in pools
                       and f"transferred:{u.id}@{s.turn}" not in s.done)
        areas = self._entry_areas(units, entries)
        if areas:  # only the units that can enter where the track says (7.0(1))
            units = [u for u in units if self._room(s, self.entry_hexes(s, side, areas.get(u, area)))]
        quota: dict[str, int] = {}
        if formations:
            row = next((t.values for t in track.turns if t.number == s.turn), {})
            for f in formations:
                have = sum(1 for u in units if self.game.counters[u].formation == f)
                if min(int(row.get(f) or 0), have):
                    quota[f] = min(int(row.get(f) or 0), have)
            units = [u for u in units if self.game.counters[u].formation in quota]
            n = sum(quota.values())
        elif track.turns and column in track.columns:
            n = track.turn(s.turn).values.get(column) or 0
        else:
            n = len(units)
        if count is not None:
            n = min(n, count)
        if drawn and n < len(units):
            units = self._pick(s, units, n, "reinforcements")
        if self.game.reinforcements.costs and not early:  # point-buy: n is the side's points (AVD 5 c-e)
            s.step = dict(s.step, decision="place", side=side, units=units, n=n, placed=0, area=area,
                          points=n, per_hq={})
            if n and self._can_buy(s):
                s.log.append({"turn": s.turn, "reinforcements": side, "points": n})
                return
            s.step = {k: v for k, v in s.step.items()
                      if k not in ("decision", "side", "units", "n", "placed", "area", "points", "per_hq")}
            s.log.append({"turn": s.turn, "reinforcements": side, "placed": 0})
            return
        if not n or not units or not areas and not self.entry_hexes(s, side, area):
            s.log.append({"turn": s.turn, "reinforcements": side, "placed": 0})
            return
        s.step = dict(s.step, decision="place", side=side, units=units, n=n, placed=0, area=area)
        if areas:
            s.step["areas"] = {u: a for u, a in areas.items() if u in units}
        if quota:
            s.step["quota"] = quota
        if (formations or count is not None) and not drawn and n < len(units):
            s.step["choice"] = True  # the side chooses which units come (GJ63 7.0: two of three)

    def _entry_areas(self, units: list[str], entries: tuple[str, ...]) -> dict[str, str]:
        """Each unit an ``at AREA for NAME...`` line names (by its id, its
        formation or a unit selector) -> that line's area, the first line
        naming it."""
        g = self.game
        out: dict[str, str] = {}
        for line in entries:
            area, *names = line.split()
            wanted = frozenset(names)
            for u in units:
                if u not in out and (u in wanted or g.counters[u].formation in wanted or g.matches(u, wanted)):
                    out[u] = area
        return out

    def placement_area(self, s: GameState, uid: str) -> str:
        """The area where a waiting reinforcement may enter now ('' anywhere)."""
        return s.step.get("areas", {}).get(uid, s.step.get("area", ""))

    def _start_placements(self, s: GameState, sides: list[str]) -> None:
        """Reinforcements of several sides in turn (a chit of both sides: AVD's
        Reinforcements chit, the Soviets first): the first side with a
        placement to make asks; the others wait in ``then``."""
        while sides:
            side, sides = sides[0], sides[1:]
            self._start_placement(s, side)
            if s.step.get("decision"):
                s.step["then"] = sides
                return

    # ---------------------------------------------------------- point-buy (AVD 5 c-e)
    def unit_cost(self, uid: str) -> int:
        for sel, n in self.game.reinforcements.costs:
            if uid in sel or self.game.matches(uid, sel):
                return n
        return 1

    def buyable_chits(self, s: GameState, side: str) -> list[str]:
        """Chits of the side's HQs on the map that are neither in the cup nor
        in a hand nor played this turn (AVD 5 d iii: a chit not chosen for the
        cup, from the Unused Command Chits box; one drawn this turn lies in the
        Played Chits box, 抽取 2, and does not go back into the cup)."""
        out = []
        held = list(s.cup) + [c for hand in s.hands.values() for c in hand]
        played = self._played_this_turn(s)
        for cid, c in sorted(self.game.chits.items()):
            if c.side != side or c.always or c.any_hq or not c.hq or c.kind not in ("hq", "interrupt"):
                continue
            hq = s.units.get(c.hq)
            if hq is not None and hq.hex is not None and held.count(cid) + played.get(cid, 0) < c.count:
                out.append(cid)
        return out

    @staticmethod
    def _played_this_turn(s: GameState) -> dict[str, int]:
        """How many copies of each chit were played this turn (the log's
        draws, interrupts and phases' plays, less the draws an interrupt sent
        back into the cup)."""
        out: dict[str, int] = {}
        for e in this_turn(s):
            for key, n in (("draw", 1), ("interrupt", 1), ("play", 1), ("returned", -1)):
                cid = e.get(key)
                if isinstance(cid, str):
                    out[cid] = out.get(cid, 0) + n
        return out

    def placement_hexes(self, s: GameState, uid: str) -> list[Hex]:
        """Where a bought unit may be placed: a supplied entry hex that one of
        the game's ``at`` lines allows for it (a marker's hex, a friendly HQ's
        hex, beside one outside enemy ZOC), within the ``per-hq`` limit."""
        g, rules, st = self.game, self.game.reinforcements, s.step
        side = s.units[uid].side
        # every stacking rule, for this unit: an HQ beside two units, no second HQ, no
        # second unit of a ``limit`` kind (AVD 2 b, d: no two brown units, on entry too)
        entry = self.entry_hexes(s, side, st.get("area", ""))
        if not rules.at:
            return [h for h in entry if not stacking_bars(g, s, h, uid)]
        ok = set(entry)  # the stacking rules are asked only of the hexes the ``at`` lines allow (fewer)
        hexes: set[Hex] = set()
        hqs = [u for u in s.on_map(side) if "hq" in g.unit_classes[g.counters[u.id].unit_class].flags]
        limited = rules.per_hq is not None and g.matches(uid, rules.per_hq[0])
        room = [u for u in hqs if not limited or st.get("per_hq", {}).get(u.id, 0) < rules.per_hq[1]]
        ezoc = None
        for kind, arg, sel in rules.at:
            if sel and not g.matches(uid, sel):
                continue
            if kind == "marker":
                hexes |= {m["hex"] for m in s.markers if m["kind"] == arg and m["hex"] is not None}
            elif kind == "hq":
                hexes |= {u.hex for u in room}
            else:
                if ezoc is None:
                    ezoc = enemy_zoc(g, self.board, s, side)
                hexes |= {n for u in room for n, _ in self.board.adj[u.hex] if n not in ezoc}
        return sorted((h for h in hexes if h in ok and not stacking_bars(g, s, h, uid)), key=self.board.colrow.__getitem__)

    def _affordable(self, s: GameState):
        """Each waiting unit the side's points pay for, with the hexes where it
        may be placed (``placement_hexes``), found once per kind of unit: what
        the placement rules read of a unit (its side, class, flags,
        nationality and tags, whether it counts toward the stacking limit)
        is the same for all the units of a kind."""
        g, pts = self.game, s.step["points"]
        known: dict = {}
        for uid in s.step["units"]:
            if self.unit_cost(uid) <= pts:
                key = (names_of(g, uid), stack_weight(g, uid), s.units[uid].hex)
                hexes = known.get(key)
                if hexes is None:
                    hexes = known[key] = self.placement_hexes(s, uid)
                yield uid, hexes

    def _point_actions(self, s: GameState) -> list:
        st = s.step
        acts: list = [Place(uid, self.board.hex_id(h)) for uid, hexes in self._affordable(s) for h in hexes]
        cost = self.game.reinforcements.chit_cost
        if cost is not None and cost <= st["points"]:
            acts.extend(Choose(c) for c in self.buyable_chits(s, st["side"]))
        return acts + [Done()]

    def _can_buy(self, s: GameState) -> bool:
        """Whether the side may buy anything now (``_point_actions`` offers more than done)."""
        if any(hexes for _, hexes in self._affordable(s)):
            return True
        cost = self.game.reinforcements.chit_cost
        return cost is not None and cost <= s.step["points"] and bool(self.buyable_chits(s, s.step["side"]))

    def _count_for_hq(self, s: GameState, uid: str, h: Hex) -> None:
        """A unit of the ``per-hq`` kind placed by an HQ (on or beside its hex,
        not on a marker's hex) counts toward that HQ's limit (AVD 5 e ii: one "*" unit)."""
        g, rules, st = self.game, self.game.reinforcements, s.step
        if rules.per_hq is None or not g.matches(uid, rules.per_hq[0]) or \
                any(m["kind"] == arg and m["hex"] == h for k, arg, _ in rules.at if k == "marker" for m in s.markers):
            return
        hq = next((u for u in sorted(s.on_map(st["side"]), key=lambda x: x.id)
                   if "hq" in g.unit_classes[g.counters[u.id].unit_class].flags
                   and st["per_hq"].get(u.id, 0) < rules.per_hq[1] and u.hex.distance(h) <= 1), None)
        if hq is not None:
            st["per_hq"] = dict(st["per_hq"], **{hq.id: st["per_hq"].get(hq.id, 0) + 1})

    def _answer_points(self, s: GameState, a) -> bool:
        """A point-buy answer; True while the side buys on."""
        st = s.step
        rules = self.game.reinforcements
        if isinstance(a, Place):
            h = self.board.parse(a.at)
            cost = self.unit_cost(a.unit)
            self._count_for_hq(s, a.unit, h)
            s.place(a.unit, h)
            st["units"] = [u for u in st["units"] if u != a.unit]
            st["points"] -= cost
            st["placed"] += 1
            s.log.append({"turn": s.turn, "bought": a.unit, "at": a.at, "points": cost})
            if self.engine.on_enter is not None:  # it enters its hex (AVD 5 e ii 3 c: an empty star draws a chit)
                self.engine.on_enter(s, a.unit, [h])
        elif isinstance(a, Choose):
            s.cup.append(a.chit)
            st["points"] -= rules.chit_cost or 0
            s.log.append({"turn": s.turn, "bought": a.chit, "into": "cup", "points": rules.chit_cost})
        return not isinstance(a, Done) and self._can_buy(s)

    def _answer_place(self, s: GameState, a) -> None:
        st = s.step
        if "points" in st:
            if self._answer_points(s, a):
                return
        elif isinstance(a, Place) and st.get("arrival") and self.game.arrivals[st["arrival"]].move_by:
            h = self.board.parse(a.at)  # moved onto the map by its mode (AVD 5 f iii)
            path = self.move_on_targets(s, self.game.arrivals[st["arrival"]], a.unit)[h]
            s.place(a.unit, h)
            self.engine.pass_through(s, s.units[a.unit].side, path)
            s.log.append({"turn": s.turn, "moves-on": a.unit, "at": self.board.hex_id(path[0]), "to": a.at,
                          "path": [self.board.hex_id(x) for x in path]})
            if self.engine.on_enter is not None:
                self.engine.on_enter(s, a.unit, path)
            st["units"] = [u for u in st["units"] if u != a.unit]
            st["placed"] += 1
        elif isinstance(a, Place):
            h = self.board.parse(a.at)
            arrival = self.game.arrivals.get(st.get("arrival", ""))
            if arrival is None and judged_at_end(self.game):  # back there if it cannot end a move (3.4(4))
                s.done.add(f"{ENTERING}{a.unit}={s.units[a.unit].box}")
            if arrival is None and st.get("move-on"):  # its move starts with the entry hex (7.0(2))
                s.done.add(f"{ENTRY_COST}{a.unit}")
            if arrival is not None and arrival.as_reinforcements:  # as a bought unit is placed (AVD 5 h ii)
                self._count_for_hq(s, a.unit, h)
                s.log.append({"turn": s.turn, "enters": a.unit, "at": a.at, "arrival": arrival.id})
            s.place(a.unit, h)
            if arrival is not None and arrival.as_reinforcements and self.engine.on_enter is not None:
                self.engine.on_enter(s, a.unit, [h])  # as a bought unit enters its hex
            if st.get("marker"):
                s.mark(a.unit, st["marker"])
            if arrival is not None and arrival.activate:  # it moves and fights in the chit's segment (5 a ii)
                s.done.add(f"activated:{a.unit}@{s.turn}")
            if arrival is not None and arrival.move_on:  # it moved onto the map: the entry hex's cost is spent
                c = self.game.counters[a.unit]
                cost = class_costs(self.game, self.board, c.unit_class).enter.get(h)
                s.entering[a.unit] = unit_mp(self.game, s, a.unit) if cost is None or cost == ALL else cost
                s.log.append({"turn": s.turn, "moves-on": a.unit, "at": a.at, "mp": str(Fraction(s.entering[a.unit], SCALE))})
            st["units"] = [u for u in st["units"] if u != a.unit]
            st["placed"] += 1
            if st.get("quota"):  # one fewer of its formation to come (7.0(1))
                f = self.game.counters[a.unit].formation
                st["quota"] = {k: v - (k == f) for k, v in st["quota"].items() if v - (k == f)}
                st["units"] = [u for u in st["units"] if self.game.counters[u].formation in st["quota"]]
        if "points" in st or isinstance(a, Done) or st["placed"] >= st["n"] or not st["units"]:
            chit = st.get("chit")
            if st.get("then"):  # the next side of a chit of both sides
                s.log.append({"turn": s.turn, "reinforcements": st["side"], "placed": st["placed"]})
                s.step = {"chit": chit} if chit else {}
                self._start_placements(s, st["then"])
                if not s.step.get("decision") and not (chit and any(
                        a.after_reinforcements and a.on_chit == chit for a in self.game.arrivals.values())):
                    s.pc += 1  # (with arrivals after these, back to the chit's activation)
                return
            if st.get("arrival"):  # back to the chit's own effect
                s.log.append({"turn": s.turn, "arrival": st["arrival"], "placed": st["placed"]})
                s.step = {"chit": chit}
                return
            s.log.append({"turn": s.turn, "reinforcements": st["side"], "placed": st["placed"]})
            s.step = {"chit": chit} if chit else {}
            if chit and any(a.after_reinforcements and a.on_chit == chit for a in self.game.arrivals.values()):
                return  # back to the chit's activation: the arrivals that come after these
            s.pc += 1

    def _pay_entry(self, s: GameState) -> None:
        """A movement phase begins: the active side's units placed by a
        ``move-on`` reinforce phase move onto the map in it (GJ63 7.0(2)): the
        hex each was placed on is the first hex of its move, whose cost (its
        class's terrain cost there; all its MP where it may not enter) comes
        off its MP for this phase; in a movement mode, what the mode pays
        for it comes off the mode's MP (``entry_cost``: by strategic movement
        along the road, the road's cost off the doubled MP, 8.3)."""
        if self.__dict__.get("_move_on") is None:  # (no game without such a phase pays for the look)
            self._move_on = any(st.phase.params.get("move-on") for st in self.program if st.phase is not None)
        if not self._move_on:
            return
        g = self.game
        for key in sorted(k for k in s.done if k.startswith(ENTRY_COST)):
            uid = key[len(ENTRY_COST):]
            u = s.units.get(uid)
            if u is None or u.side != s.active:
                continue
            s.done.discard(key)
            if u.hex is None:
                continue
            cost = self.entry_cost(uid, u.hex)
            s.entering[uid] = unit_mp(g, s, uid) if cost is None or cost == ALL else cost
            entry = {"turn": s.turn, "moves-on": uid, "at": self.board.hex_id(u.hex),
                     "mp": str(Fraction(s.entering[uid], SCALE))}
            for m in g.movement.modes:
                c = self.entry_cost(uid, u.hex, m) if m.points is None else None
                if c is not None and c != ALL:
                    s.entering[f"{uid}@{m.id}"] = c
                    entry[m.id] = str(Fraction(c, SCALE))
            s.log.append(entry)

    def entry_cost(self, uid: str, h: Hex, mode=None) -> int | None:
        """What entering ``h`` from off the map costs ``uid`` (scaled MP; ALL;
        None where it may not), as for any other hex of its move: normal
        movement, its class's terrain cost; a movement mode along links,
        the mode's cost or its cheapest link's at ``h`` (None where no such
        link reaches it); a mode with chart columns of its own, its column's."""
        cls = self.game.counters[uid].unit_class
        if mode is None:
            return class_costs(self.game, self.board, cls).enter.get(h)
        if not mode.along:
            return class_costs(self.game, self.board, cls, mode.id).enter.get(h)
        links = set().union(*(e.links & mode.along for _, e in self.board.adj[h]))
        if not links:
            return None
        if mode.cost is not None:
            return scaled(mode.cost)
        costs = class_costs(self.game, self.board, cls).links
        known = [costs[k] for k in links if k in costs]
        return min(known) if known else class_costs(self.game, self.board, cls).enter.get(h)

    def entry_hexes(self, s: GameState, side: str, area: str = "") -> list[Hex]:
        """Hexes where ``side``'s reinforcements may enter now (12.1), in
        ``area`` if one is given."""
        key = ("entry", side, area, s.version)
        if key in s.cache:
            return s.cache[key]
        rules = self.game.reinforcements
        within = self.game.map.areas.get(area, frozenset()) if area else None
        if rules.enter == "rail":
            # in map order; the trace stops short of enemy ZOC and of hexes holding enemy units, so it has
            # none of them to leave out: only the enemy-held cities it found
            found, hexes = self._rail_trace(s, side)
            out = self._rail_entries(found, hexes, area, within, self._cities_taken(s, side, found))
        else:
            found = reached(self.game, self.board, s, side)
            hexes = sorted(found, key=self.board.colrow.__getitem__)
            if within is not None:
                hexes = [h for h in hexes if h in within]
            ezoc = enemy_zoc(self.game, self.board, s, side) if "enemy-zoc" in rules.not_in else frozenset()
            out = []
            occupants, units = s.occupants, s.units
            for h in hexes:
                ids = occupants.get(h)
                if h in ezoc or (ids and units[ids[0]].side != side):  # (side_at)
                    continue
                out.append(h)
            taken = self._cities_taken(s, side, found)
            if taken:
                out = [h for h in out if h not in taken]
        s.cache[key] = out
        return out

    def _cities_taken(self, s: GameState, side: str, found) -> frozenset[Hex]:
        """The cities among the hexes ``found`` that another side holds, where
        reinforcements may not enter them (``not-in enemy-cities``; none
        otherwise): a few cities, not a look-up per hex."""
        if "enemy-cities" not in self.game.reinforcements.not_in:
            return frozenset()
        control = s.control
        return frozenset(h for h in self.engine.controllable.intersection(found) if control.get(h, side) != side)

    def _rail_entries(self, found: frozenset[Hex], hexes: tuple[Hex, ...], area: str, within: frozenset[Hex] | None,
                      taken: frozenset[Hex]) -> list[Hex]:
        """The hexes of a rail trace (``found``, ``hexes`` in map order) in
        ``area`` (``within``) but the enemy-held cities ``taken``: one list
        for each, kept for the last 64 asked about, so that states whose
        trace and cities are alike (one of the side's reinforcements placed,
        a unit transferred) share it, and ``_room`` its printed ids (never
        change it)."""
        kept = self._rail_entry_lists
        k = (found, area, taken)
        out = kept.get(k)
        if out is None:
            if len(kept) >= 64:
                kept.pop(next(iter(kept)))  # the oldest first
            out = kept[k] = [h for h in hexes if (within is None or h in within) and h not in taken]
        return out

    def _rail_from_sources(self, s: GameState, side: str) -> set[Hex]:
        """Rail hexes traced along unbroken rail from an own source, through
        no enemy unit and no enemy ZOC (friendly units do not help, 12.1(2)).
        A function of the side's sources and where enemy units and their ZOC
        are: states that differ only in the side's own units share one trace."""
        return set(self._rail_trace(s, side)[0])

    def _rail_trace(self, s: GameState, side: str) -> tuple[frozenset[Hex], tuple[Hex, ...]]:
        """``_rail_from_sources`` as kept: the hexes, and the same in map order."""
        ezoc = enemy_zoc(self.game, self.board, s, side)
        units = s.units
        sources = tuple(sources_of(self.board, s, side))  # a source may be lost (AVD 4)
        enemy = frozenset(h for h, ids in s.occupants.items() if ids and units[ids[0]].side != side)
        content = (side, sources, ezoc, enemy)
        shared = self._rail_traces
        hit = shared.get(content)
        if hit is None:
            if len(shared) >= 64:
                shared.pop(next(iter(shared)))  # the oldest first
            found = frozenset(self._trace_rail(ezoc | enemy, sources))
            hit = shared[content] = (found, tuple(sorted(found, key=self.board.colrow.__getitem__)))
        return hit

    def _trace_rail(self, blocked: frozenset[Hex], sources) -> set[Hex]:
        """The rail hexes reached along rail from ``sources``, through no
        ``blocked`` hex (enemy units, enemy ZOC)."""
        rail = self._rail_neighbours()
        start = [h for h in sources if h not in blocked]
        seen = set(start)
        todo = list(start)
        while todo:
            for n in rail[todo.pop()]:
                if n not in seen and n not in blocked:
                    seen.add(n)
                    todo.append(n)
        return {h for h in seen if rail[h]}

    def _rail_neighbours(self) -> dict[Hex, tuple[Hex, ...]]:
        """Hex -> its neighbours across a hexside with a rail link (fixed for the board)."""
        kept = self.board.__dict__.get("_rail_neighbours")
        if kept is None:
            kept = self.board.__dict__["_rail_neighbours"] = {
                h: tuple(n for n, e in nbrs if "rail" in e.links) for h, nbrs in self.board.adj.items()}
        return kept

    def move_on_targets(self, s: GameState, arrival, uid: str) -> dict[Hex, list[Hex]]:
        """Where ``uid`` may end its move onto the map by the arrival's
        ``move-by`` modes (AVD 5 f iii: strategic movement by road with its
        full MP, 1/3 MP a hex, the entry hex the first of them): each hex ->
        its path from an entry hex (an entry
        hex itself: a path of that hex).  The unit moves by the first mode
        whose ``only`` takes it; a mode it may not use there leaves it on the
        entry hex."""
        g = self.game
        mode = next((m for m in arrival.move_by
                     if not mode_by_id(g, m).only or g.matches(uid, mode_by_id(g, m).only)), None)
        out: dict[Hex, list[Hex]] = {}
        for e in self.arrival_hexes(s, arrival):
            if stacking_bars(g, s, e, uid):
                continue
            out.setdefault(e, [e])
            if mode is None:
                continue
            t = s.copy()
            t.place(uid, e)
            m = mode_by_id(g, mode)  # the entry hex is the move's first hex: it costs as a hex of the mode
            if m.cost is not None:
                t.entering = {uid: scaled(m.cost)}
            else:
                c = class_costs(g, self.board, g.counters[uid].unit_class).enter.get(e)
                t.entering = {uid: unit_mp(g, t, uid) if c is None or c == ALL else c}
            try:
                r = move_range(g, self.board, t, uid, mode)
            except MoveError:
                continue
            for h in sorted(r.destinations, key=g.map.grid.to_colrow):
                if h not in out:
                    out[h] = r.path_to(h)
        return out

    def _room(self, s: GameState, hexes: list[Hex]) -> list[str]:
        """The ids of ``hexes`` where one more unit fits (``_fits``), in order
        (all of them where the limits are judged at the end of movement:
        ``stacking { judged end }``)."""
        ids, where = self._ids_of(hexes)
        limit = self.game.stacking.get("units")
        if limit is None or judged_at_end(self.game):  # 3.4(4): not judged at the placement
            return list(ids)
        if limit < 1:
            return []
        if len(where) < len(hexes):  # (a hex twice: each place of it judged)
            return [i for h, i in zip(hexes, ids) if h not in s.occupants or stack_count(self.game, s, h) + 1 <= limit]
        # the stacks already at the limit (a few hexes, where the hexes asked about are hundreds), taken out
        # of the ids by their places, the last first
        out = list(ids)
        for i in sorted((where[h] for h in s.occupants if h in where and stack_count(self.game, s, h) + 1 > limit),
                        reverse=True):
            del out[i]
        return out

    def _ids_of(self, hexes: list[Hex]) -> tuple[list[str], dict[Hex, int]]:
        """The printed ids of ``hexes`` and the place of each hex in the
        list, kept for the last 16 lists asked about (by the list itself,
        held here: ``entry_hexes`` gives the states alike one list, which
        nobody changes)."""
        kept = self._ids_kept
        hit = kept.get(id(hexes))
        if hit is None or hit[0] is not hexes:
            if len(kept) >= 16:
                kept.pop(next(iter(kept)))  # the oldest first
            hit = kept[id(hexes)] = (hexes, self.board.hex_ids(hexes), {h: i for i, h in enumerate(hexes)})
        return hit[1], hit[2]

    def _fits(self, s: GameState, h: Hex) -> bool:
        limit = self.game.stacking.get("units")
        if limit is None or h not in s.occupants:
            return limit is None or limit >= 1
        return stack_count(self.game, s, h) + 1 <= limit


    # ---------------------------------------------------------- rebuild
    def _proc_rebuild(self, s: GameState, ph: Phase) -> None:
        """Units come back from pools onto the game's rebuild hexes (10.0),
        any number, at most ``per-hex`` on each hex in this phase."""
        side = ph.side or s.active
        s.step = {"decision": "rebuild", "side": side, "used": {}}
        if not self._rebuild_actions(s).groups:
            s.log.append({"turn": s.turn, "rebuild": side, "placed": 0})
            s.step = {}
            s.pc += 1

    def rebuild_hexes(self, s: GameState, rule) -> list[Hex]:
        """The rule's hexes open to a rebuilt unit now, in map order."""
        used = s.step.get("used", {})
        units, occupants = s.units, s.occupants
        out = []
        for h in self._rebuild_sites(rule):
            if rule.controlled and s.control.get(h) != rule.side:
                continue
            if any(units[x].side != rule.side for x in occupants.get(h, ())):
                continue
            if used.get(self.board.hex_id(h), 0) >= rule.per_hex or not self._fits(s, h):
                continue
            out.append(h)
        return out

    def _rebuild_sites(self, rule) -> list[Hex]:
        """The hexes whose terrain or features a rebuild rule names, in map
        order (found once per rule)."""
        kept = self.__dict__.setdefault("_rebuild_site_memo", {})
        hit = kept.get(id(rule))
        if hit is None or hit[0] is not rule:
            hit = kept[id(rule)] = (rule, sorted((h for h, mh in self.game.map.hexes.items()
                                                  if rule.at & ({mh.terrain} | set(mh.features))),
                                                 key=self.board.colrow.__getitem__))
        return hit[1]

    def _rebuild_actions(self, s: GameState) -> UnitPlacements:
        """Each unit that may rebuild on each hex open to it, then 'done':
        the Place actions built when read.  Kept for the last state asked
        about while it stays as it is: a placement works them out to see
        whether the phase goes on (any group left), then the player lists
        them (never change the list)."""
        memo = self._rebuild_memo
        fp = fingerprint(s)
        if memo is not None and memo[0] is s and memo[1] is s.step and memo[2] == fp:
            return memo[3]
        groups: list[tuple[str, list[Hex]]] = []
        side = s.step["side"]
        extra = bool(self.game.stacking and extra_limits(self.game.stacking))  # (hq or per-selector limits)
        for rule in self.game.rebuilds.values():
            if rule.side != side:
                continue
            pools = {f"pool:{p}" for p in rule.pools}
            units = sorted(u.id for u in s.units.values() if u.side == side and u.box in pools
                           and rule.units & self.game.selectors_of(u.id))
            if not units:
                continue
            hexes = self.rebuild_hexes(s, rule)
            for uid in units:  # (the units of a rule share its list of hexes where no limit tells them apart)
                mine = [h for h in hexes if not extra_bars(self.game, s, h, uid)] if extra else hexes
                if mine:
                    groups.append((uid, mine))
        out = UnitPlacements(groups, [Done()], self.board.hex_id)
        self._rebuild_memo = (s, s.step, fp, out)
        return out

    def _answer_rebuild(self, s: GameState, a) -> None:
        if isinstance(a, Place):
            rule = next(r for r in self.game.rebuilds.values() if r.side == s.step["side"]
                        and r.units & self.game.selectors_of(a.unit))
            s.place(a.unit, self.board.parse(a.at))
            if rule.marker:
                s.mark(a.unit, rule.marker)
            s.step["used"] = dict(s.step["used"], **{a.at: s.step["used"].get(a.at, 0) + 1})
            s.log.append({"turn": s.turn, "rebuilt": a.unit, "at": a.at, "rule": rule.id})
            if self._rebuild_actions(s).groups:
                return
        s.step = {}
        s.pc += 1
