"""Effects: the closed vocabulary of things a rule may do to the game, run
by the runner (a mixin of ``runtime.runner.Runner``).

Table results (``on CODE { ... }`` in a die table), events (``do { ... }``
in an event, run by an ``event`` phase), triggers (``trigger NAME at
CHECKPOINT``) and chit draws (``on-draw CHIT { ... }`` in ``chits``) name
lists of effects; the compiler stores them in ``GameDefinition.effects`` by
key.  An effect list under way is a plain entry of ``state.effects``
(``{"key", "i", "why", "bound"}``), so a state with effects pending copies,
saves and replays like any other; an effect that needs a side's decision
(``choose``, a ``move ... by SIDE``) puts an ``ask`` on its entry, and the
runner lists the answers as legal actions (``choose OPTION``, ``take UNIT``).

The verbs (docs/dsl.md, "Effects"):

    place KIND at WHERE [value N] [count N] [from WHERE [random]]   a marker
    remove KIND [at WHERE]          flip KIND [at WHERE]            markers
    reveal KIND [at WHERE] [to SIDE]                                face down markers shown to every side (or one)
    award SIDE N | = EXPR           set VARIABLE = EXPR
    move N|all SELECTORS from WHERE|map to WHERE [random | by SIDE [upto]] [marked|unmarked MARKER]   units
    attach N|all SELECTORS from WHERE to UNITS [random]             counters onto units (runtime/attachments.py)
    eliminate N|all SELECTORS from WHERE|map [random | by SIDE] [marked|unmarked MARKER]       units
    lose-source HEX                 the hex is no longer a supply source (for every side)
    put-chit CHIT cup | hand SIDE   take-chit CHIT                  chits
    restore N|all SELECTORS by SIDE points = EXPR [cost N]          steps back from replacement points
    mark N|all SELECTORS with MARKER [random | by SIDE]             a unit marker (out-of-supply) on units on the map
    relocate N|all SELECTORS by SIDE                                the side may displace its units (runtime/overrun.py)
    unmark MARKER [SELECTORS]                                       off every unit (that matches)
    roll TABLE                      end-game SIDE|draw "why"
    fire KIND[,KIND...] N | = EXPR | roll TABLE                     fire attacks a side makes now
    join N|all SELECTORS from WHERE [random] [else-row N]          (a CRT result) units join the attack
    reroll                                                          (a CRT result) work the odds out, roll again
    choose SIDE "question" { option NAME "title" { effects } ... }

Random picks use the game's seeded generator and are logged as draws.
"""
from __future__ import annotations

from dataclasses import replace

from . import attachments as A
from . import expr as E
from .actions import Displace
from .definition import Effect
from .hexes import Hex
from .overrun import displace_hexes
from .runner_parts import RunnerParts
from .stacking import stacking_bars
from .state import GameState, eliminate
from .tables import roll_table


PLACES = ("at", "from", "to")  # the arguments that name a location (a trigger's bound ``hex`` may stand there)


class EffectError(RuntimeError):
    """An effect that cannot run as written (a location the game does not have)."""


class Effects(RunnerParts):
    # ---------------------------------------------------------- locations
    def where_hexes(self, where: str) -> list[Hex] | None:
        """The hexes a location names (a hex id or an area), or None for a box."""
        g = self.game
        if g.map is not None and where in g.map.areas:
            return sorted(g.map.areas[where], key=g.map.grid.to_colrow)
        if where in g.pools or where in ("eliminated", "removed"):
            return None
        try:
            return [g.map.grid.parse_id(where)]
        except (ValueError, AttributeError):
            raise EffectError(f"'{where}' is neither a hex, an area nor a pool of {g.info.id}") from None

    @staticmethod
    def box_of(where: str) -> str:
        return where if where in ("eliminated", "removed") else f"pool:{where}"

    def markers_at(self, s: GameState, where: str, kind: str) -> list[dict]:
        """The markers of a kind at a location (``all``: anywhere)."""
        if where == "all":
            return [m for m in s.markers if m["kind"] == kind]
        hexes = self.where_hexes(str(where))
        if hexes is None:
            box = self.box_of(str(where))
            return [m for m in s.markers if m["kind"] == kind and m["hex"] is None and m["box"] == box]
        hs = set(hexes)
        return [m for m in s.markers if m["kind"] == kind and m["hex"] in hs]

    def units_in(self, s: GameState, where: str, selectors) -> list[str]:
        g = self.game
        if where == "map":  # every unit on the map
            return sorted(u.id for u in s.units.values() if u.hex is not None
                          and (u.id in selectors or g.matches(u.id, selectors)))
        hexes = self.where_hexes(where)
        if hexes is None:
            box = self.box_of(where)
            ids = [u.id for u in s.units.values() if u.hex is None and u.box == box]
        else:
            ids = [uid for h in hexes for uid in s.occupants.get(h, ())]
        return sorted(uid for uid in ids if uid in selectors or g.matches(uid, selectors))

    def marker_function_makers(self) -> dict:
        """The expression functions that read markers and variables, as
        makers: each, called with a state, returns the function reading that
        state (``runtime.victory.Functions``)."""
        def make_value(s):
            def value(where, kind):
                return sum(m["value"] or 0 for m in self.markers_at(s, str(where), str(kind)))
            return value

        def make_track(s):
            def track(column):
                turn = next((t for t in self.game.turn_track.turns if t.number == s.turn), None)
                v = turn.values.get(str(column)) if turn else None
                return v if isinstance(v, (int, str)) and not isinstance(v, bool) else 0
            return track

        def make_units_at(s):
            def units_at(side, where, selectors):
                """How many units of ``side`` at a hex, an area, a pool or ``map`` match the selectors (text)."""
                sel = frozenset(str(selectors).split(","))
                return sum(1 for uid in self.units_in(s, str(where), sel) if s.units[uid].side == side)
            return units_at

        return {"track": make_track, "units-at": make_units_at,
                "marker-at": lambda s: lambda where, kind: bool(self.markers_at(s, str(where), str(kind))),
                "markers": lambda s: lambda where, kind: len(self.markers_at(s, str(where), str(kind))),
                "marker-value": make_value}

    def new_marker(self, kind: str, hex_: Hex | None, box: str, value: int | None) -> dict:
        mk = self.game.markers[kind]
        v = value if value is not None else mk.value
        return {"kind": kind, "hex": hex_, "box": box, "value": v, "face": "down" if mk.hidden else "up"}

    def place_marker_at(self, m: dict, where: str) -> None:
        hexes = self.where_hexes(where)
        if hexes is None:
            m["hex"], m["box"] = None, self.box_of(where)
        else:
            m["hex"], m["box"] = hexes[0], ""

    # ---------------------------------------------------------- the queue
    def run_effects(self, s: GameState, key: str, why: str, **bound) -> None:
        """Start an effect list (if the game has one under ``key``) and run it
        until it ends or asks a side."""
        if not self.game.effects.get(key):
            return
        s.effects.insert(0, {"key": key, "i": 0, "why": why, "bound": {k: str(v) for k, v in bound.items()}})
        self.drain_effects(s)

    def effect_asks(self, s: GameState) -> dict | None:
        ask = s.effects[0].get("ask") if s.effects else None
        if ask is not None and ask["decision"] == "fire" and s.pending:
            return None  # the last fire attack's losses and retreats are decided first
        return ask

    def drain_effects(self, s: GameState) -> None:
        guard = 0
        while s.effects and "ask" not in s.effects[0] and s.result is None:
            guard += 1
            if guard > 10_000:
                raise EffectError("effects run on without end: does an effect list roll a table whose result "
                                  "rolls it again?")
            entry = s.effects[0]
            effects = self.game.effects[entry["key"]]
            if entry["i"] >= len(effects):
                s.effects.pop(0)
                continue
            eff = effects[entry["i"]]
            entry["i"] += 1
            names, fns = self.env(s)
            bound = entry["bound"]
            if bound:
                names = {**names, **bound}  # (env's names are shared: bound on a copy)
            if bound and any(k in PLACES and v in bound for k, v in eff.args.items()):  # ``at hex`` at enter
                eff = replace(eff, args={k: bound[v] if k in PLACES and v in bound else v for k, v in eff.args.items()})
            if eff.condition is not None and E.evaluate(eff.condition, names, fns) is not True:
                continue
            getattr(self, "_effect_" + eff.verb.replace("-", "_"))(s, eff, entry, names, fns)
        if s.effects and s.result is not None:
            s.effects = []

    def _log(self, s: GameState, entry: dict, text: str, **more) -> None:
        s.log.append({"turn": s.turn, "effect": text, "why": entry["why"], **more})

    def _count(self, eff: Effect, names, fns) -> int | None:
        """How many an effect takes: a number, ``all`` (None) or ``= EXPR``."""
        if eff.amount is not None and eff.verb in ("move", "eliminate", "mark", "attach"):
            return max(0, int(E.evaluate(eff.amount, names, fns)))
        n = eff.args.get("count", "all")
        return None if n == "all" else int(n)

    def _pick(self, s: GameState, pool: list, n: int | None, why: str) -> list:
        """``n`` of ``pool`` drawn at random with the game's seeded generator (all of it for None)."""
        if n is None or n >= len(pool):
            return list(pool)
        r = s.rng()
        picked = r.sample(pool, n)
        s.rng_state = r.getstate()
        if picked and isinstance(picked[0], dict):  # markers: the log keeps them as they were drawn
            s.log.append({"turn": s.turn, "draw": [dict(m) for m in picked], "for": why})
            return picked
        picked = sorted(picked)
        s.log.append({"turn": s.turn, "draw": picked, "for": why})
        return picked

    # ---------------------------------------------------------- markers
    def _effect_place(self, s, eff, entry, names, fns) -> None:
        a = eff.args
        n = int(a.get("count", 1))
        if a.get("from"):
            found = self.markers_at(s, a["from"], a["kind"])
            taken = self._pick(s, found, n, f"{a['kind']} from {a['from']}") if a.get("random") else found[:n]
            for m in taken:
                self.place_marker_at(m, a["at"])
            self._log(s, entry, f"{len(taken)} {a['kind']} from {a['from']} to {a['at']}")
            return
        for _ in range(n):
            m = self.new_marker(a["kind"], None, "", a.get("value"))
            self.place_marker_at(m, a["at"])
            s.markers.append(m)
        self._log(s, entry, f"place {a['kind']} at {a['at']}" + (f" x{n}" if n > 1 else ""))

    def _effect_remove(self, s, eff, entry, names, fns) -> None:
        a = eff.args
        gone = self.markers_at(s, a.get("at") or "all", a["kind"])
        ids = {id(m) for m in gone}
        s.markers = [m for m in s.markers if id(m) not in ids]
        self._log(s, entry, f"remove {a['kind']}" + (f" at {a['at']}" if a.get("at") else ""), count=len(gone))

    def _effect_flip(self, s, eff, entry, names, fns) -> None:
        a = eff.args
        for m in self.markers_at(s, a.get("at") or "all", a["kind"]):
            m["face"] = "up" if m["face"] == "down" else "down"
        self._log(s, entry, f"flip {a['kind']}" + (f" at {a['at']}" if a.get("at") else ""))

    def _effect_reveal(self, s, eff, entry, names, fns) -> None:
        """Face-down markers shown: to every side (face up for good), or
        ``to SIDE``, to that side alone (runtime/observe.py reads ``seen``)."""
        a = eff.args
        to = a.get("to") or ""
        found = self.markers_at(s, a.get("at") or "all", a["kind"])
        for m in found:
            if not to:
                m["face"] = "up"
            elif to not in m.get("seen", ()):
                m["seen"] = sorted({*m.get("seen", ()), to})
        # the values shown go into the log: for every side, or (``to``) for that side alone (runtime/observe.py)
        self._log(s, entry, f"reveal {a['kind']}" + (f" at {a['at']}" if a.get("at") else "")
                  + (f" to {to}" if to else ""), count=len(found), values=sorted(m["value"] or 0 for m in found),
                  **({"to": to} if to else {}))

    # ---------------------------------------------------------- VP, variables, chits, the end
    def _effect_award(self, s, eff, entry, names, fns) -> None:
        side = eff.args["side"]
        n = int(E.evaluate(eff.amount, names, fns))
        s.vp[side] = s.vp.get(side, 0) + n
        s.log.append({"turn": s.turn, "vp": side, "amount": n, "for": entry["why"]})

    def _effect_set(self, s, eff, entry, names, fns) -> None:
        var = eff.args["variable"]
        v = E.evaluate(eff.amount, names, fns)
        s.variables[var] = v
        self._log(s, entry, f"set {var} = {str(v).lower() if isinstance(v, bool) else v}")

    def _effect_put_chit(self, s, eff, entry, names, fns) -> None:
        a = eff.args
        if a["into"] == "cup":
            s.cup.append(a["chit"])
        else:
            s.hands.setdefault(a["into"], []).append(a["chit"])
        self._log(s, entry, f"put {a['chit']} into {'the cup' if a['into'] == 'cup' else a['into'] + ' hand'}")

    def _effect_take_chit(self, s, eff, entry, names, fns) -> None:
        chit = eff.args["chit"]
        if chit in s.cup:
            s.cup.remove(chit)
        else:
            for hand in s.hands.values():
                if chit in hand:
                    hand.remove(chit)
                    break
            else:
                return
        self._log(s, entry, f"take {chit} out of play")

    def _effect_end_game(self, s, eff, entry, names, fns) -> None:
        winner = eff.args["winner"]
        self._log(s, entry, f"the game ends: {winner}")
        self.finish(s, eff.args.get("title") or entry["why"], winner=winner)

    def _effect_lose_source(self, s, eff, entry, names, fns) -> None:
        """The hexes named stop being supply sources (AVD 4 c: the Soviet source 1517 from turn 4)."""
        for h in self.where_hexes(eff.args["at"]) or ():
            s.done.add(f"source-lost:{self.board.hex_id(h)}")
        s.version += 1  # lines of communication change
        self._log(s, entry, f"{eff.args['at']} is no longer a supply source")

    def _effect_roll(self, s, eff, entry, names, fns) -> None:
        self.roll_die_table(s, eff.args["table"])

    def roll_die_table(self, s: GameState, tid: str) -> str:
        """Roll a die table (a 2-D table reads its input for the column); log
        the result, keep it for rolled(TABLE) and run its effects."""
        g = self.game
        t = g.die_tables[tid]
        env = self.env(s)
        total, row = roll_table(g, s, t, env, tid)
        entry: dict = {"turn": s.turn, "table": tid, "total": total}
        if t.column_ranges is not None:
            value = int(E.evaluate(t.input, *env))
            col = t.column_for(value)
            if col is None:
                col = 0 if value < t.column_ranges[0][0] else len(t.columns) - 1
            result = t.cells[row][col]
            entry["input"] = value
        else:
            result = " ".join(t.cells[row]) if t.cells[row] else ""
        s.rolled[tid] = result
        s.log.append(dict(entry, result=result))
        if result in t.results:
            self.run_effects(s, f"table:{tid}:{result}", f"{t.title}: {result}")
        return result

    # ---------------------------------------------------------- units
    def _effect_move(self, s, eff, entry, names, fns) -> None:
        a = eff.args
        pool = self.units_in(s, a["from"], frozenset(a["units"]))
        if a.get("marked"):  # only units carrying the marker (AVD 4 k: a disbanded isolated unit)
            pool = [u for u in pool if a["marked"] in s.units[u].markers]
        if a.get("unmarked"):
            pool = [u for u in pool if a["unmarked"] not in s.units[u].markers]
        if a.get("idle"):  # HQs with no friendly unit in their command range (AVD turn end 1)
            pool = [u for u in pool if self.commands_nobody(s, u)]
        n = self._count(eff, names, fns)
        if a.get("by"):
            need = len(pool) if n is None else min(n, len(pool))
            if need:
                entry["ask"] = {"decision": "take", "side": a["by"], "units": pool, "left": need,
                                "verb": eff.verb, "to": a.get("to", "")}
                if a.get("upto"):
                    entry["ask"]["optional"] = True  # 'done' stops early
            return
        for uid in self._pick(s, pool, n, f"{eff.verb} from {a['from']}"):
            self.move_unit(s, uid, eff.verb, a.get("to", ""), entry)

    _effect_eliminate = _effect_move

    def move_unit(self, s: GameState, uid: str, verb: str, to: str, entry: dict) -> None:
        if verb == "eliminate":
            box = eliminate(self.game, s, uid, "effect")
            self._log(s, entry, f"eliminate {uid}", to=box.split(":")[-1])
            return
        hexes = self.where_hexes(to)
        if hexes is None:
            s.set_unit(uid, markers=frozenset())
            if to in ("eliminated", "removed") and uid in s.attached:  # out of play: what it carried goes back
                A.release(self.game, s, uid, f"{uid} {to}")
            s.place(uid, None, self.box_of(to))
        else:
            s.place(uid, hexes[0])
        self._log(s, entry, f"move {uid} to {to}")

    def _effect_attach(self, s, eff, entry, names, fns) -> None:
        """Counters of an attachment kind taken from a place (drawn at random
        with ``random``, else the first by id) onto units: each onto the first
        unit (by id) of ``to`` with room for it; one that finds no room stays."""
        a = eff.args
        g = self.game
        pool = [x for x in self.units_in(s, a["from"], frozenset(a["units"])) if x in g.attachment_of]
        n = self._count(eff, names, fns)
        taken = self._pick(s, pool, n, f"attach from {a['from']}") if a.get("random") else \
            (pool if n is None else pool[:n])
        hosts = frozenset(a["to"])
        candidates = sorted(u.id for u in s.units.values() if not u.box.startswith(A.UNDER) and
                            (u.id in hosts or g.matches(u.id, hosts) or hosts & u.markers))
        for aid in taken:
            host = next((h for h in candidates if not A.why_not_attach(g, s, aid, h)), None)
            if host is None:
                self._log(s, entry, f"{aid}: no unit has room for it")
                continue
            A.attach(g, s, aid, host, entry["why"])

    def commands_nobody(self, s: GameState, uid: str) -> bool:
        """An HQ on the map with no friendly unit (other than HQs) within its command range."""
        g = self.game
        u = s.units[uid]
        c = g.counters[uid]
        if u.hex is None or "hq" not in g.unit_classes[c.unit_class].flags:
            return False
        rng = c.steps[min(u.step, len(c.steps) - 1)].get(g.activation.range_factor, 0)
        return not any(x.id != uid and "hq" not in g.unit_classes[g.counters[x.id].unit_class].flags
                       and u.hex.distance(x.hex) <= rng for x in s.on_map(u.side))

    def _effect_mark(self, s, eff, entry, names, fns) -> None:
        """A unit marker (out-of-supply, disrupted...) on units on the map that
        match and do not carry it yet: drawn at random, or picked by a side
        (AVD 4 e: the Soviet player puts the turn's out-of-supply markers on German units)."""
        a = eff.args
        units = frozenset(a["units"])
        pool = sorted(u.id for u in s.units.values() if u.hex is not None and a["marker"] not in u.markers
                      and (u.id in units or self.game.matches(u.id, units)))
        n = self._count(eff, names, fns)
        if a.get("by"):
            need = len(pool) if n is None else min(n, len(pool))
            if need:
                entry["ask"] = {"decision": "take", "side": a["by"], "units": pool, "left": need,
                                "verb": "mark", "to": a["marker"]}
            return
        for uid in self._pick(s, pool, n, f"mark {a['marker']}"):
            s.mark(uid, a["marker"])
            self._log(s, entry, f"mark {uid} {a['marker']}")

    def _effect_relocate(self, s, eff, entry, names, fns) -> None:
        """The side may relocate its units on the map that match, each once (up
        to the count), to a hex where the displacement rule would put them
        (movement { overrun ... displace N }: runtime/overrun.py); a unit it
        leaves, or one no hex qualifies for, stays where it is (AVD 补给 4 j:
        every HQ may be relocated when supply is traced)."""
        a = eff.args
        units = frozenset(a["units"])
        mine = sorted(u.id for u in s.units.values() if u.hex is not None and u.side == a["by"]
                      and (u.id in units or self.game.matches(u.id, units)))
        n = self._count(eff, names, fns)
        hexes = self.relocation_hexes(s, mine)
        if not hexes or n == 0:
            self._log(s, entry, f"{a['by']} has no unit to relocate")
            return
        entry["ask"] = {"decision": "relocate", "side": a["by"], "units": sorted(hexes), "hexes": hexes,
                        "left": len(hexes) if n is None else min(n, len(hexes))}

    def relocation_hexes(self, s: GameState, units: list[str]) -> dict[str, list[str]]:
        """{unit: the hex ids it may be relocated to} for those of ``units``
        that have any (runtime/overrun.py's displacement hexes, in its order)."""
        out = {}
        for uid in units:
            hexes = displace_hexes(self.game, self.board, s.copy(), uid)  # (it takes the unit off a copy)
            if hexes:
                out[uid] = [self.board.hex_id(h) for h in hexes]
        return out

    def relocate_actions(self, ask: dict) -> list[Displace]:
        return [Displace(uid, h) for uid in ask["units"] for h in ask["hexes"][uid]]

    def answer_relocate(self, s: GameState, action) -> None:
        """A unit relocated (``displace UNIT HEX``), or ``done``: the others stay."""
        entry = s.effects[0]
        ask = entry["ask"]
        if not isinstance(action, Displace):
            del entry["ask"]
            self.drain_effects(s)
            return
        uid = action.unit
        s.place(uid, self.board.parse(action.to))
        self._log(s, entry, f"relocate {uid} to {action.to}")
        marker = {"out-of-supply": "out-of-supply", "isolated": "isolated"}.get(
            self.game.supply.consequence_for(self.game.selectors_of(uid)))
        if marker and marker in s.units[uid].markers:  # the new hex is in supply
            s.unmark(uid, marker)
            self._log(s, entry, f"{uid} is back in supply: {marker} removed")
        ask["left"] -= 1
        rest = [u for u in ask["units"] if u != uid]
        ask["hexes"] = self.relocation_hexes(s, rest) if ask["left"] > 0 else {}
        ask["units"] = sorted(ask["hexes"])
        if not ask["units"]:
            del entry["ask"]
        self.drain_effects(s)

    def _effect_unmark(self, s, eff, entry, names, fns) -> None:
        a = eff.args
        units = frozenset(a["units"])
        gone = sorted(u.id for u in s.units.values() if a["marker"] in u.markers
                      and (not units or u.id in units or self.game.matches(u.id, units)))
        for uid in gone:
            s.unmark(uid, a["marker"])
        self._log(s, entry, f"unmark {a['marker']}", units=gone)

    def _effect_restore(self, s, eff, entry, names, fns) -> None:
        """Replacement points (``points = EXPR``) spent, ``cost`` a step, on
        the side's reduced units that match: ``by SIDE`` picks them."""
        a = eff.args
        points = int(E.evaluate(eff.amount, names, fns))
        cost = int(a.get("cost", 1))
        reduced = [u.id for u in s.units.values() if u.side == a["by"] and u.step > 0 and u.hex is not None
                   and (u.id in a["units"] or self.game.matches(u.id, frozenset(a["units"])))]
        n = self._count(eff, names, fns)
        can = points // cost if cost else len(reduced)
        need = min(len(reduced), can, len(reduced) if n is None else n)
        self._log(s, entry, f"{a['by']} has {points} replacement points", reduced=len(reduced))
        if need:
            entry["ask"] = {"decision": "take", "side": a["by"], "units": sorted(reduced), "left": need,
                            "verb": "restore", "to": "", "optional": True}

    # ---------------------------------------------------------- fire attacks
    def _effect_fire(self, s, eff, entry, names, fns) -> None:
        """Fire attacks of the kinds named (runtime.combat.fire), as many as
        the count says (a number, ``= EXPR``, or the first cell of a die
        table's row, rolled now); the side they belong to names the targets."""
        a = eff.args
        if eff.amount is not None:
            n = int(E.evaluate(eff.amount, names, fns))
        elif a.get("table"):
            cell = self.roll_die_table(s, a["table"]).split()
            n = int(cell[0]) if cell and cell[0].lstrip("-").isdigit() else 0
        else:
            n = int(a["count"])
        kinds = list(a["kinds"])
        side = self.game.fire_attacks[kinds[0]].side
        closed = self.engine.fire.closed(s, kinds, side)
        if n > 0 and len(closed) == len(kinds):
            self._log(s, entry, f"{side} makes no fire attack: {'; '.join(closed)}")
            return
        n = max(n, 0)
        self._log(s, entry, f"{side} may make {n} fire attack{'s' * (n != 1)} ({', '.join(kinds)})")
        if n > 0 and self.engine.fire.actions(s, kinds, side, []):
            entry["ask"] = {"decision": "fire", "side": side, "kinds": kinds, "left": n, "fired": []}
        elif n > 0:
            self._log(s, entry, f"{side} has no target in reach")

    def fire_actions(self, s: GameState, ask: dict) -> list:
        return self.engine.fire.actions(s, ask["kinds"], ask["side"], ask["fired"])

    def answer_fire(self, s: GameState, action) -> None:
        """A fire attack the asked side makes (``fire KIND HEX``), or ``done``."""
        entry = s.effects[0]
        ask = entry["ask"]
        if getattr(action, "kind", None) is None:
            del entry["ask"]
            self.drain_effects(s)
            return
        self.engine.fire.fire(s, action, ask["side"])
        ask["fired"] = ask["fired"] + [action.target]
        ask["left"] -= 1
        if ask["left"] <= 0 or not self.fire_actions(s, ask):
            del entry["ask"]
        self.drain_effects(s)

    # ---------------------------------------------------------- CRT results
    @staticmethod
    def _attack_result(s: GameState) -> dict:
        """The attack whose result runs these effects (runtime.engine: a
        pending entry of kind "result")."""
        return next(p for p in s.pending if p["kind"] == "result")

    def _effect_join(self, s, eff, entry, names, fns) -> None:
        """Units from a pool or hex join the attack: each is placed in an
        attacking unit's hex where the stacking limits allow (the first such
        hex in map order) and attacks with the others.  When none can be
        placed, ``else-row N``: the result printed in row N of the same
        column applies instead, and the rest of the block is skipped."""
        a = eff.args
        p = self._attack_result(s)
        pool = self.units_in(s, a["from"], frozenset(a["units"]))
        picked = self._pick(s, pool, self._count(eff, names, fns), f"join from {a['from']}") if a.get("random") \
            else pool[:len(pool) if self._count(eff, names, fns) is None else self._count(eff, names, fns)]
        placed = 0
        for uid in picked:
            hexes = sorted({s.units[x].hex for x in p["attackers"] if s.units[x].hex is not None},
                           key=self.game.map.grid.to_colrow)
            room = [h for h in hexes if not stacking_bars(self.game, s, h, uid)]
            if not room:
                continue
            s.place(uid, room[0])
            if s.activated:  # it acts in this attack (and has attacked, like the others)
                s.activated.add(uid)
            p["attackers"] = p["attackers"] + [uid]
            placed += 1
            self._log(s, entry, f"{uid} joins the attack on {p['hex']} in {self.board.hex_id(room[0])}")
        if not placed and a.get("else-row") is not None:
            p["then"], p["row"] = "row", int(a["else-row"])
            entry["i"] = len(self.game.effects[entry["key"]])  # the rest of the block does not apply
            self._log(s, entry, f"no unit can join the attack on {p['hex']}: row {p['row']} applies")

    def _effect_reroll(self, s, eff, entry, names, fns) -> None:
        """The attack's odds are worked out again (with any unit that joined)
        and the die is rolled again; the new result applies instead."""
        p = self._attack_result(s)
        p["then"] = "reroll"
        self._log(s, entry, f"the attack on {p['hex']} is rolled again")

    # ---------------------------------------------------------- decisions
    def _effect_choose(self, s, eff, entry, names, fns) -> None:
        entry["ask"] = {"decision": "choose", "side": eff.args["side"], "question": eff.args.get("question", ""),
                        "options": [o[0] for o in eff.options], "keys": {o[0]: o[2] for o in eff.options},
                        "titles": {o[0]: o[1] for o in eff.options}}

    def answer_effect(self, s: GameState, option: str | None, unit: str | None) -> None:
        """The asked side's answer: an option (``choose``) or a unit (``take``;
        None: done, where stopping early is allowed)."""
        entry = s.effects[0]
        ask = entry["ask"]
        if ask["decision"] == "choose":
            del entry["ask"]
            s.done.add(f"chosen:{option}")
            s.log.append({"turn": s.turn, "decide": option, "side": ask["side"], "for": entry["why"]})
            key = ask["keys"][option]
            if self.game.effects.get(key):
                s.effects.insert(0, {"key": key, "i": 0, "why": f"{entry['why']}: {ask['titles'][option] or option}",
                                     "bound": dict(entry["bound"])})
        elif unit is None:
            del entry["ask"]
        else:
            ask["units"] = [u for u in ask["units"] if u != unit]
            ask["left"] -= 1
            if ask["verb"] == "restore":
                s.set_unit(unit, step=s.units[unit].step - 1)
                self._log(s, entry, f"restore a step to {unit}")
            elif ask["verb"] == "mark":
                s.mark(unit, ask["to"])
                self._log(s, entry, f"mark {unit} {ask['to']}")
            else:
                self.move_unit(s, unit, ask["verb"], ask["to"], entry)
            if ask["left"] <= 0 or not ask["units"]:
                del entry["ask"]
        self.drain_effects(s)
