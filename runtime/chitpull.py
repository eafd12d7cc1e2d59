"""Chit-pull procedures of the runner (Smolensk 6.0-8.0, A Victory
Denied): choosing chits for the cup, drawing them, interrupt chits, HQ and
RESERVE activation, and what a chit triggers (arrivals, withdrawals, the
supply chit's transfer box, HQ transfers, lines of communication at
activation).  A mixin of ``runtime.runner.Runner``."""
from __future__ import annotations

from . import expr as E
from .actions import Done
from .decisions import Activate, Choose, Pick, Play, Transfer
from .definition import Chit, Phase
from .hexes import Hex
from .runner_parts import RunnerParts
from .state import GameState
from .supply import reached, trace_line
from .tables import roll_table


class ChitPull(RunnerParts):
    def _proc_choose_chits(self, s: GameState, ph: Phase) -> None:
        st = s.step
        if "sides" not in st:
            st.clear()
            st["sides"] = [side for side in self.game.sides]
            s.cup = []
            for side in self.game.sides:
                s.hands[side] = []
        while st["sides"]:
            side = st["sides"][0]
            new = (self.game.turn_track.turn(s.turn).values.get(f"{side}.new-chits") or 0) \
                if self.game.turn_track.turns else 0
            if new and f"picked:{side}@{s.turn}" not in s.done and self._pickable(s, side):
                st.update(decision="pick", side=side, picks=new)
                return
            avail = self._available_chits(s, side)
            count = self._chit_count(s, side)
            if count is None or count == "all" or count >= len(avail):
                for cid in avail:
                    self._put_chit(s, cid)
                s.log.append({"turn": s.turn, "side": side, "chits": sorted(avail)})
                st["sides"].pop(0)
                continue
            st.update(decision="choose", side=side, left=avail, count=count, chosen=[])
            return
        for cid, chit in self.game.chits.items():  # SUPPLY always goes in (6.2(3))
            if chit.always and chit.available <= s.turn and self._hq_present(s, chit):
                s.cup.extend([cid] * chit.count)
        s.step = {}
        s.pc += 1

    def _available_chits(self, s: GameState, side: str) -> list[str]:
        out = []
        for cid, c in self.game.chits.items():
            if c.side == side and c.available <= s.turn and not c.always and \
                    (not c.pick or f"picked:{cid}" in s.done) and self._hq_present(s, c):
                played = f"played:{cid}@{s.turn}" in s.done  # played before the selection (a phase's chit)
                out.extend([cid] * (c.count - 1 if played else c.count))
        return out

    def _chit_count(self, s: GameState, side: str):
        """How many chits ``side`` chooses this turn: the first ``per-turn``
        count whose condition holds, else the turn track's SIDE.chits ("all"
        without one); less the side's chits a phase played before the
        selection this turn (AVD turn 1: the 3rd Panzer Group chit)."""
        g = self.game
        count = None
        for pc in g.chit_counts:
            if pc.side == side and self._true(s, pc.condition):
                names, fns = self.env(s)
                count = max(0, int(E.evaluate(pc.amount, names, fns)))
                break
        if count is None:
            count = g.turn_track.turn(s.turn).values.get(f"{side}.chits") if g.turn_track.turns else "all"
        if isinstance(count, int):
            played = sum(1 for cid, c in g.chits.items() if c.side == side and f"played:{cid}@{s.turn}" in s.done)
            count = max(0, count - played)
        return count

    def _hq_present(self, s: GameState, chit: Chit) -> bool:
        """A chit that needs its HQ on the map (AVD: Timoshenko; 9th Army: any
        German HQ) is available only then."""
        if not chit.needs_hq:
            return True
        if chit.any_hq:
            return bool(self._commanders(s, chit.side))
        u = s.units.get(chit.hq)
        return u is not None and u.hex is not None

    def _commanders(self, s: GameState, side: str) -> list[str]:
        """The HQs on the map a chit of ``hq any`` may activate."""
        g = self.game
        return sorted(u.id for u in s.on_map(side) if "hq" in g.unit_classes[g.counters[u.id].unit_class].flags)

    def _pickable(self, s: GameState, side: str) -> list[str]:
        return sorted(cid for cid, c in self.game.chits.items()
                      if c.side == side and c.pick and c.available <= s.turn and f"picked:{cid}" not in s.done)

    def _answer_pick(self, s: GameState, a) -> None:
        st = s.step
        if isinstance(a, Pick):
            s.done.add(f"picked:{a.chit}")
            st["picks"] -= 1
        if isinstance(a, Done) or st["picks"] <= 0 or not self._pickable(s, st["side"]):
            s.done.add(f"picked:{st['side']}@{s.turn}")
            for k in ("decision", "side", "picks"):
                st.pop(k, None)

    def _put_chit(self, s: GameState, cid: str) -> None:
        chit = self.game.chits[cid]
        if chit.kind == "interrupt":
            s.hands.setdefault(chit.side, []).append(cid)
        else:
            s.cup.append(cid)

    def _answer_choose(self, s: GameState, a) -> None:
        st = s.step
        if isinstance(a, Choose):
            st["left"] = list(st["left"])
            st["left"].remove(a.chit)
            st["chosen"] = st["chosen"] + [a.chit]
            self._put_chit(s, a.chit)
        if isinstance(a, Done) or len(st["chosen"]) >= st["count"] or not st["left"]:
            st["sides"] = st["sides"][1:]
            for k in ("decision", "side", "left", "count", "chosen"):
                st.pop(k, None)

    def _held_interrupts(self, s: GameState) -> list[tuple[str, str]]:
        return [(side, c) for side, hand in sorted(s.hands.items()) for c in hand
                if self.game.chits[c].kind == "interrupt"]

    def _proc_draw_chit(self, s: GameState, ph: Phase) -> None:
        st = s.step
        if st.get("skip-draw"):  # a chit played at the end of the turn (7.3(3)) stands in for a draw
            s.step = {"chit": st["chit"]}
            s.pc += 1
            return
        r = s.rng()
        i = r.randrange(len(s.cup))
        s.rng_state = r.getstate()
        cid = s.cup.pop(i)
        s.log.append({"turn": s.turn, "draw": cid, "left": len(s.cup)})
        s.step = {"chit": cid, "drawn": True}
        holders = self._held_interrupts(s)  # 7.3(1): a held chit may answer any draw
        if holders:
            s.step.update(decision="interrupt", side=holders[0][0], playable=[c for _, c in holders])
            return
        s.step = {"chit": cid}
        s.pc += 1
        self.run_effects(s, f"chit:{cid}", f"{self.game.chits[cid].title} drawn")

    def _answer_interrupt(self, s: GameState, a) -> None:
        st = s.step
        at_end = st.get("at-end")
        if isinstance(a, Play):
            s.hands[st["side"]].remove(a.chit)
            if not at_end:  # 7.3(1): the drawn chit goes back into the cup
                s.cup.append(st["chit"])
                s.log.append({"turn": s.turn, "interrupt": a.chit, "returned": st["chit"]})
            else:
                s.log.append({"turn": s.turn, "interrupt": a.chit})
            s.step = {"chit": a.chit}
            if at_end:
                # run the chit's activation, move and combat, then come back to the loop's end
                loop_start = next(i for i in range(s.pc, -1, -1) if self.program[i].kind == "loop")
                s.pc = loop_start + 1
                s.step = {"chit": a.chit, "skip-draw": True}
            else:
                s.pc += 1
            return
        if at_end:  # declined at the end of the turn: the chit is not used
            s.hands[st["side"]] = []
            s.step = {"end-offered": True}
        else:
            s.step = {"chit": st["chit"]}
            s.pc += 1
            self.run_effects(s, f"chit:{st['chit']}", f"{self.game.chits[st['chit']].title} drawn")

    def _proc_activate(self, s: GameState, ph: Phase) -> None:
        g = self.game
        fixed = ph.params.get("chit")
        if fixed and s.step.get("played") != ph.id:  # the phase plays this chit as if drawn (AVD turn 1: 3PzG)
            s.done.add(f"played:{fixed[0]}@{s.turn}")
            s.step = {"chit": fixed[0], "played": ph.id}
            s.log.append({"turn": s.turn, "play": fixed[0], "phase": ph.id})
            self.run_effects(s, f"chit:{fixed[0]}", f"{g.chits[fixed[0]].title} played")
            if s.effects:
                return  # its on-draw effects ask a side first
        cid = s.step.get("chit")
        if cid and self._start_trigger(s, cid):
            return  # an arrival or withdrawal the chit triggers comes first
        s.activated = set()
        s.moved, s.attacked, s.attacked_hexes = set(), set(), set()
        spec = ph.params.get("outside-command") or ()
        for u in list(s.units.values()) if spec else ():  # the marker lasts one activation
            if spec[0] in u.markers:
                s.unmark(u.id, spec[0])
        if ph.params.get("formation"):  # every unit of the formations on the map (AVD turn 1: 2nd Panzer Group)
            forms = set(ph.params["formation"])
            units = sorted(u.id for u in s.units.values() if u.hex is not None and g.counters[u.id].formation in forms)
            s.activated = set(units)
            if units:
                s.active = s.units[units[0]].side
            s.log.append({"turn": s.turn, "activate": ph.id, "units": units})
            s.pc += 1
            return
        if ph.params.get("hq-class"):  # every HQ of these classes activates (15.1(1))
            self._activate_all(s, ph)
            s.pc += 1
            return
        if not cid:
            s.pc += 1
            return
        chit: Chit = g.chits[cid]
        s.active = chit.side if chit.side != "both" else ""
        if chit.kind in ("hq", "interrupt") and chit.any_hq:
            cands = self._commanders(s, chit.side)
            if cands:  # its side chooses the HQ it activates
                s.step = {"chit": cid, "decision": "command-hq", "side": chit.side, "candidates": cands}
                return
            s.log.append({"turn": s.turn, "activate": cid, "units": [], "why": f"no {chit.side} HQ is on the map"})
        elif chit.kind in ("hq", "interrupt"):
            if self._activate_hq(s, ph, cid, chit.hq):
                return
        elif chit.kind == "supply":
            self.supply_phase(s)
            if s.result is None and g.supply.transfer:
                sides = list(g.supply.order) or list(g.sides)
                s.step = {"chit": cid, "decision": "transfer", "side": sides[0], "sides": sides[1:]}
                return
        elif chit.kind == "reinforcements":
            late = any(a.after_reinforcements and a.on_chit == cid for a in g.arrivals.values())
            key = f"reinforced:{cid}@{s.turn}"  # (with late arrivals this phase runs again after each)
            if not (late and key in s.done):
                if late:
                    s.done.add(key)
                if chit.side == "both":  # each side in turn (AVD 5 b: the Soviets first)
                    self._start_placements(s, list(g.reinforcements.order) or list(g.sides))
                else:
                    self._start_placement(s, chit.side)
                if s.step.get("decision"):
                    s.step["chit"] = cid
                    return
            if late and self._start_trigger(s, cid, late=True):  # AVD 5 f: the Germans enter after the purchase
                return
        elif chit.kind == "reserve":
            table = g.die_tables.get((ph.params.get("die-table") or ("",))[0])
            if table is not None:
                total, row = roll_table(g, s, table, self.env(s), f"{cid} activation")
                n = int(table.cells[row][0]) if table.cells[row][0].isdigit() else 0
                cands = sorted(u.id for u in s.on_map(chit.side))
                if n and cands:
                    s.step = {"chit": cid, "decision": "activate", "side": chit.side, "candidates": cands, "n": n}
                    return
        self._activate_arrived(s, cid)
        s.step = {"chit": cid}
        s.pc += 1

    def _activate_arrived(self, s: GameState, cid: str) -> None:
        """The units an ``activate`` arrival brought with this chit move and fight in its segment, their
        side active (AVD 5 a ii: Timoshenko's reinforcements)."""
        if not any(a.activate for a in self.game.arrivals.values()):
            return  # (no arrival activates: nothing to read in the long list of things done)
        keys = {k for k in s.done if k.startswith("activated:")}
        if not keys:
            return
        s.done -= keys
        units = sorted(u for u in (k[len("activated:"):].rpartition("@")[0] for k in keys)
                       if s.units[u].hex is not None)
        if units:  # (with the units the chit's HQ activates, if any)
            s.activated = set(s.activated) | set(units)
            s.active = s.active or s.units[units[0]].side
            s.log.append({"turn": s.turn, "activate": cid, "units": units, "why": "arrived"})

    def _activate_hq(self, s: GameState, ph: Phase, cid: str, hq_id: str) -> bool:
        """The chit's HQ activates its units; True when a decision (an HQ
        transfer) is due before the segment."""
        hq = s.units.get(hq_id)
        refused = self._loc_check(s, ph, hq_id) if hq is not None and hq.hex is not None else ""
        if hq is None or hq.hex is None:
            s.log.append({"turn": s.turn, "activate": cid, "units": [], "why": f"{hq_id} is not on the map"})
        elif refused:
            s.log.append({"turn": s.turn, "activate": cid, "units": [], "why": refused})
        else:
            chit = self.game.chits[cid]
            s.activated = self.command(s, hq_id, chit.command, chit.units)
            entry = {"turn": s.turn, "activate": cid, "units": sorted(s.activated)}
            if hq_id != self.game.chits[cid].hq:
                entry["hq"] = hq_id
            s.log.append(entry)
            if "chain" in chit.command and self.game.activation.chain_groups and \
                    self._ask_commander(s, cid, hq_id, list(self.game.activation.chain_groups)):
                return True
            return self._ask_hq_transfer(s, ph, cid, hq_id)
        return False

    def _ask_hq_transfer(self, s: GameState, ph: Phase, cid: str, hq_id: str) -> bool:
        """16.4: after an activation the phase may let the HQ send HQs in its range away."""
        if "hq-transfer" in ph.params and self._hq_transferable(s, hq_id):
            s.step = {"chit": cid, "decision": "hq-transfer", "side": s.units[hq_id].side, "hq": hq_id}
            return True
        return False

    def _ask_commander(self, s: GameState, cid: str, hq_id: str, groups: list[str]) -> bool:
        """``command-chain ... per TAGS`` (AVD 抽取 3 d i): the HQ's side picks a commander for the
        next tag that has a unit to pick; True when that decision is due (tags without one are skipped)."""
        while groups:
            tag, groups = groups[0], groups[1:]
            cands = self.chain_candidates(s, hq_id, tag)
            if cands:
                s.step = {"chit": cid, "decision": "commander", "side": s.units[hq_id].side, "hq": hq_id,
                          "group": tag, "groups": groups, "candidates": cands}
                return True
        return False

    def _answer_commander(self, s: GameState, a) -> None:
        """The commander of a tag's chain (or 'done': none for that tag): it and the units of the tag its
        chain links are activated; then the next tag."""
        st = s.step
        cid, hq_id, tag = st["chit"], st["hq"], st["group"]
        if isinstance(a, Activate):
            units = self.command_chain(s, hq_id, a.unit, tag)
            s.activated = set(s.activated) | units
            s.log.append({"turn": s.turn, "activate": cid, "commander": a.unit, "group": tag, "units": sorted(units)})
        else:
            s.log.append({"turn": s.turn, "activate": cid, "group": tag, "units": [], "why": "no commander picked"})
        if self._ask_commander(s, cid, hq_id, list(st["groups"])):
            return
        s.step = {"chit": cid}
        if self._ask_hq_transfer(s, self.program[s.pc].phase, cid, hq_id):
            return
        s.pc += 1

    def _answer_command_hq(self, s: GameState, a) -> None:
        """The HQ a chit of ``hq any`` activates (AVD: the 9th Army chit)."""
        cid = s.step["chit"]
        s.step = {"chit": cid}
        if self._activate_hq(s, self.program[s.pc].phase, cid, a.unit):
            return
        s.pc += 1

    # ---------------------------------------------------------- triggers
    def _start_trigger(self, s: GameState, cid: str, late: bool = False) -> bool:
        """Start the first withdrawal or arrival this chit triggers now (with
        ``late``: the arrivals that come after the chit's reinforcements)."""
        for w in self.game.withdrawals.values():
            key = f"{w.id}@{s.turn}"
            if w.on_chit == cid and w.first <= s.turn <= w.last and key not in s.done:
                s.done.add(key)
                s.step = {"chit": cid, "decision": "withdraw", "side": w.side, "withdrawal": w.id, "sum": 0}
                if self._withdrawable(s):
                    return True
                s.step = {"chit": cid}
        for a in self.game.arrivals.values():
            key = f"{a.id}@{s.turn}"
            if a.on_chit == cid and a.first <= s.turn <= a.last and key not in s.done and \
                    a.after_reinforcements == late:
                s.done.add(key)
                units = self._arriving(s, a)
                n = len(units) if a.count == "all" else (int(a.count) if a.count.isdigit() else
                                                         self.game.turn_track.turn(s.turn).values.get(a.count) or 0)
                step = {"chit": cid, "decision": "place", "side": a.side, "units": units, "n": n,
                        "placed": 0, "arrival": a.id, **({"per_hq": {}} if a.as_reinforcements else {})}
                if units and n and self._can_arrive(s, a, step):
                    s.step = step
                    return True
                s.log.append({"turn": s.turn, "arrival": a.id, "placed": 0})
        return False

    def _can_arrive(self, s: GameState, a, step: dict) -> bool:
        """Whether a unit of the arrival has a hex to enter now: an entry hex,
        or (``enter as-reinforcements``) a hex where a bought unit could go."""
        if not a.as_reinforcements:
            return bool(self.arrival_hexes(s, a))
        t = s.copy()
        t.step = step
        return any(self.placement_hexes(t, u) for u in step["units"])

    def _arriving(self, s: GameState, a) -> list[str]:
        out = []
        for u in s.units.values():
            if u.side != a.side or u.hex is not None:
                continue
            c = self.game.counters[u.id]
            if a.formation and c.formation == a.formation and u.box not in ("eliminated", "removed", "withdrawn"):
                out.append(u.id)
            elif a.pools and u.box in {f"pool:{p}" for p in a.pools}:
                out.append(u.id)
        return sorted(out)

    def arrival_hexes(self, s: GameState, a) -> list[Hex]:
        lines = reached(self.game, self.board, s, a.side) if a.traced else None
        out = []
        for h in sorted(a.hexes, key=self.board.colrow.__getitem__):
            if s.side_at(h) not in (None, a.side) or (lines is not None and h not in lines):
                continue
            out.append(h)
        return out

    def _transferable(self, s: GameState, side: str) -> list[str]:
        """Units of ``side`` that trace a line of communication (11.2)."""
        lines = reached(self.game, self.board, s, side)
        units, immobile = s.units, self.engine.immobile
        # (the units on the map by their hexes: a few dozen stacks, where the units in play are hundreds)
        out = [x for h, ids in s.occupants.items() if h in lines
               for x in ids if units[x].side == side and not immobile(x)]
        out.sort()
        return out

    def _answer_transfer(self, s: GameState, a) -> None:
        st = s.step
        if isinstance(a, Transfer):
            s.place(a.unit, None, f"pool:{self.game.supply.transfer}")
            s.done.add(f"transferred:{a.unit}@{s.turn}")  # back as a reinforcement from next turn (11.2)
            return
        if st["sides"]:
            st["side"], st["sides"] = st["sides"][0], st["sides"][1:]
            return
        s.step = {"chit": st["chit"]}
        s.pc += 1

    def _hq_transferable(self, s: GameState, hq_id: str) -> list[str]:
        """16.4: other friendly HQs inside the activated HQ's command range that
        trace a line of communication."""
        g = self.game
        hq = s.units[hq_id]
        c = g.counters[hq_id]
        rng = c.steps[min(hq.step, len(c.steps) - 1)].get(g.activation.range_factor, 0)
        lines = reached(g, self.board, s, hq.side)
        return sorted(u.id for u in s.on_map(hq.side) if u.id != hq_id and u.hex in lines
                      and "hq" in g.unit_classes[g.counters[u.id].unit_class].flags
                      and hq.hex.distance(u.hex) <= rng)

    def _answer_hq_transfer(self, s: GameState, a) -> None:
        if isinstance(a, Transfer):  # to the next turn's box: back as a reinforcement (16.4(2))
            s.place(a.unit, None, f"turn:{s.turn + 1}")
            s.activated.discard(a.unit)
            s.log.append({"turn": s.turn, "hq-transfer": a.unit, "to": f"turn:{s.turn + 1}"})
            if self._hq_transferable(s, s.step["hq"]):
                return
        s.step = {"chit": s.step["chit"]}
        s.pc += 1

    def _withdrawable(self, s: GameState) -> list[str]:
        w = self.game.withdrawals[s.step["withdrawal"]]
        out = []
        for u in s.on_map(w.side):
            if self.game.matches(u.id, w.selectors):
                out.append(u.id)
        return sorted(out)

    def _answer_withdraw(self, s: GameState, a) -> None:
        w = self.game.withdrawals[s.step["withdrawal"]]
        u = s.units[a.unit]
        c = self.game.counters[a.unit]
        s.step["sum"] += c.steps[min(u.step, len(c.steps) - 1)].get(w.factor, 0)
        s.place(a.unit, None, "withdrawn")
        if s.step["sum"] >= w.total or not self._withdrawable(s):
            s.log.append({"turn": s.turn, "withdrawal": w.id, w.factor: s.step["sum"]})
            s.step = {"chit": s.step["chit"]}

    def _answer_activate(self, s: GameState, a) -> None:
        if isinstance(a, Activate):
            s.activated.add(a.unit)
        if isinstance(a, Done) or len(s.activated) >= s.step["n"]:
            s.log.append({"turn": s.turn, "activate": s.step["chit"], "units": sorted(s.activated)})
            self._mark_outside_command(s, self.program[s.pc].phase)
            s.step = {"chit": s.step["chit"]}
            s.pc += 1

    def _activate_all(self, s: GameState, ph: Phase) -> None:
        classes = set(ph.params["hq-class"])
        tag = (ph.params.get("same-tag") or ("",))[0]
        for u in sorted(s.units.values(), key=lambda x: x.id):
            if u.hex is None or self.game.counters[u.id].unit_class not in classes:
                continue
            s.active = u.side
            units = self.command(s, u.id)
            if tag:  # 15.1(2): only units whose start mark is the HQ's
                mark = next((t for t in self.game.counters[u.id].tags if t.startswith(tag + ":")), None)
                units = {x for x in units if x == u.id or mark in self.game.counters[x].tags}
            s.activated |= units
        s.log.append({"turn": s.turn, "activate": ph.id, "units": sorted(s.activated)})

    def _loc_check(self, s: GameState, ph: Phase, hq_id: str) -> str:
        """16.7: an HQ of the phase's ``loc-check`` classes traces its line of
        communication when activated, over railways no other such HQ's line
        used this turn.  Without a line it may not be activated again this
        turn.  Returns why this activation is refused ("" if it is not)."""
        classes = set(ph.params.get("loc-check") or ())
        if not classes or self.game.counters[hq_id].unit_class not in classes:
            return ""
        turn = s.turn
        if f"noloc:{hq_id}@{turn}" in s.done:
            return f"{hq_id} had no line of communication at its last activation: not again this turn (16.7(1))"
        g, board = self.game, self.board
        taken = frozenset(board.parse(k.split(":")[2].split("@")[0]) for k in s.done
                          if k.startswith("railused:") and k.endswith(f"@{turn}") and k.split(":")[1] != hq_id)
        hq = s.units[hq_id]
        line = trace_line(g, board, s, hq.side, hq.hex, rail_excluded=taken)
        link = g.supply.rail_link.get(hq.side, "rail")
        if line is None:
            s.done.add(f"noloc:{hq_id}@{turn}")
            s.log.append({"turn": turn, "loc": hq_id, "result": "no line: it may not be activated again this turn"})
            return ""
        for a, b in zip(line, line[1:]):  # 16.7(2): the railway it used is its own this turn
            if link in board.edge(a, b).links:
                for x in (a, b):
                    s.done.add(f"railused:{hq_id}:{board.hex_id(x)}@{turn}")
        return ""

    def _mark_outside_command(self, s: GameState, ph: Phase) -> None:
        """16.2(2): units a RESERVE chit activates outside every HQ's command
        range get the phase's marker (which the game says halves MP, bars march)."""
        spec = ph.params.get("outside-command") or ()
        if not spec:
            return
        marker, sides = spec[0], set(spec[1:])
        g = self.game
        hqs = [u for u in s.units.values() if u.hex is not None and "hq" in
               g.unit_classes[g.counters[u.id].unit_class].flags]
        for uid in s.activated:
            u = s.units[uid]
            if sides and u.side not in sides:
                continue
            in_range = any(h.side == u.side and h.hex.distance(u.hex) <=
                           g.counters[h.id].steps[min(h.step, len(g.counters[h.id].steps) - 1)].get(
                               g.activation.range_factor, 0) for h in hqs)
            if not in_range:
                s.mark(uid, marker)

    def command(self, s: GameState, hq_id: str, how: tuple[str, ...] = ("range",),
                only: frozenset[str] = frozenset()) -> set[str]:
        """The units an HQ activates now: itself, and the friendly combat
        units within its command range (8.2), of its nationality where the
        game says so (8.3), HQs excepted (8.1(4)); by ``chain``, the units
        its command chain links (``command_chain``).  ``only``: the unit
        selectors a chit lets its HQ's range activate (HQs are not filtered)."""
        g = self.game
        rules = g.activation
        hq = s.units[hq_id]
        c = g.counters[hq_id]
        rng = c.steps[min(hq.step, len(c.steps) - 1)].get(rules.range_factor, 0) if "range" in how else -1
        # (per TAGS: the chains start at commanders the side picks: _ask_commander)
        out = {hq_id} | (self.command_chain(s, hq_id) if "chain" in how and not rules.chain_groups else set())
        for u in s.on_map(hq.side):
            if u.id == hq_id or hq.hex.distance(u.hex) > rng:
                continue
            uc = g.counters[u.id]
            flags = g.unit_classes[uc.unit_class].flags
            if "hq" in flags and not rules.hq_activates_hq:
                continue
            if "immobile" in flags:
                continue
            if hq.side in rules.same_nationality and uc.nationality != c.nationality:
                continue
            if only and "hq" not in flags and not g.matches(u.id, only):
                continue  # the chit activates only these units in range (AVD: the 9th Army chit, non-motorized)
            out.add(u.id)
        cap = rules.max_mechanized
        mech = sorted((hq.hex.distance(s.units[x].hex), x) for x in out
                      if "mechanized" in g.unit_classes[g.counters[x].unit_class].flags)
        if cap is not None and len(mech) > cap:  # 16.6: the nearest ones
            out -= {x for _, x in mech[cap:]}
        return out

    def _chain_members(self, s: GameState, hq_id: str, tag: str = "") -> list:
        """The units a chain of the HQ may link: of its formation, matching the game's chain selectors
        (and carrying ``tag``, for a chain per tag), on the map."""
        g = self.game
        hq = s.units[hq_id]
        formation = g.counters[hq_id].formation
        return [u for u in s.on_map(hq.side) if u.id != hq_id and formation
                and g.counters[u.id].formation == formation and g.matches(u.id, g.activation.chain_units)
                and (not tag or tag in g.counters[u.id].tags)]

    def chain_candidates(self, s: GameState, hq_id: str, tag: str) -> list[str]:
        """The units that may command the HQ's chain of ``tag`` (``per TAGS``)."""
        return sorted(u.id for u in self._chain_members(s, hq_id, tag))

    def command_chain(self, s: GameState, hq_id: str, commander: str = "", tag: str = "") -> set[str]:
        """The units of the HQ's formation matching the game's chain selectors
        that a chain links to the HQ: each within ``chain`` hexes of the HQ or
        of a unit already linked (AVD 3.d: a panzer group's motorized units,
        gaps of at most 3 hexes).  With a ``commander`` (``per TAGS``): the
        chain starts at that unit instead and links the units of ``tag`` only
        (the commander included)."""
        g = self.game
        start = s.units[commander or hq_id].hex
        members = self._chain_members(s, hq_id, tag)
        linked, frontier = {start}, [start]
        out = {commander} if commander else set()
        while frontier:
            here = frontier.pop()
            for u in members:
                if u.id not in out and here.distance(u.hex) <= g.activation.chain:
                    out.add(u.id)
                    if u.hex not in linked:
                        linked.add(u.hex)
                        frontier.append(u.hex)
        return out
