"""Plays a scenario: the sequence of play the game declares, turn by turn.

The declared sequence (phases, player turns, chit loops, segments) is
flattened once into a small program; ``state.pc`` points into it.  Steps
that need nobody's decision (drawing a chit, activating units, supply, the
end of a turn) run by themselves; at a decision the runner stops and
``legal_actions`` lists the answers, whoever must give them (``to_move``).

Decisions, with their text notation:

    pick 24A             make a chit selectable from now on (15.2(2)5: one army a turn); "done" to stop
    choose 3PzA          put a chit in the cup (choose-chits); "done" to stop
    play Guderian        play a held chit (an interrupt: 7.3); "done" to pass
    place 13A 5510       place a reinforcement or an arriving unit; "done" to stop
    withdraw 7Pz         take a unit off the map for a withdrawal (15.3(2))
    transfer 13A         after a supply check, send a supplied unit to the transfer box (11.2)
    activate 7Pz         pick a unit for a RESERVE/OKH activation; "done" to stop
    move / attack / lose / retreat / advance / done   (runtime.engine)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from . import expr as E
from .actions import Action, Done, IllegalActionError, parse_action
from .board import Board
from .definition import Chit, GameDefinition, Phase, Placement
from .engine import Engine
from .tables import roll_table
from .hexes import Hex
from .movement import stack_count
from .state import GameState, new_state
from .supply import check_supply, supply_map, supply_status, trace_line
from .zoc import enemy_zoc


# ------------------------------------------------------------------ actions

@dataclass(frozen=True, slots=True)
class Choose:
    chit: str

    def __str__(self) -> str:
        return f"choose {self.chit}"


@dataclass(frozen=True, slots=True)
class Pick:
    chit: str

    def __str__(self) -> str:
        return f"pick {self.chit}"


@dataclass(frozen=True, slots=True)
class Play:
    chit: str

    def __str__(self) -> str:
        return f"play {self.chit}"


@dataclass(frozen=True, slots=True)
class Place:
    unit: str
    at: str

    def __str__(self) -> str:
        return f"place {self.unit} {self.at}"


@dataclass(frozen=True, slots=True)
class Activate:
    unit: str

    def __str__(self) -> str:
        return f"activate {self.unit}"


@dataclass(frozen=True, slots=True)
class Transfer:
    unit: str

    def __str__(self) -> str:
        return f"transfer {self.unit}"


@dataclass(frozen=True, slots=True)
class Withdraw:
    unit: str

    def __str__(self) -> str:
        return f"withdraw {self.unit}"


RunnerAction = Union[Action, Choose, Pick, Play, Place, Activate, Withdraw, Transfer]


def parse(text: str) -> RunnerAction:
    words = text.split()
    if len(words) == 2 and words[0] == "choose":
        return Choose(words[1])
    if len(words) == 2 and words[0] == "pick":
        return Pick(words[1])
    if len(words) == 2 and words[0] == "play":
        return Play(words[1])
    if len(words) == 3 and words[0] == "place":
        return Place(words[1], words[2])
    if len(words) == 2 and words[0] == "activate":
        return Activate(words[1])
    if len(words) == 2 and words[0] == "withdraw":
        return Withdraw(words[1])
    if len(words) == 2 and words[0] == "transfer":
        return Transfer(words[1])
    return parse_action(text)


# ------------------------------------------------------------------ program

@dataclass(frozen=True, slots=True)
class Step:
    kind: str  # proc | side | end-side | loop | jump | if
    phase: Phase
    target: int = 0  # loop/if: where to go when done or false; jump: the loop's start
    scoped: bool = False  # a move/combat after an activation in its block: only activated units act


def flatten(phases: tuple[Phase, ...]) -> tuple[Step, ...]:
    prog: list[Step] = []

    def emit_all(children, scoped: bool) -> None:
        for c in children:
            scoped = emit(c, scoped)

    def emit(ph: Phase, scoped: bool) -> bool:
        """Emit one node; returns whether later siblings follow an activation."""
        guard = None
        if ph.condition is not None and ph.kind != "phase":
            guard = len(prog)
            prog.append(Step("if", ph))
        if ph.kind == "phase":
            prog.append(Step("proc", ph, scoped=scoped))
            scoped = scoped or ph.procedure == "activate"
        elif ph.kind == "player-turn":
            prog.append(Step("side", ph))
            emit_all(ph.children, False)
            prog.append(Step("end-side", ph))
        elif ph.kind == "chit-loop":
            start = len(prog)
            prog.append(Step("loop", ph))
            emit_all(ph.children, False)
            prog.append(Step("jump", ph, start))
            prog[start] = Step("loop", ph, len(prog))
        else:  # segment: its phases in order (an activation inside it stays inside it)
            emit_all(ph.children, scoped)
        if guard is not None:
            prog[guard] = Step("if", ph, len(prog))
        return scoped

    emit_all(phases, False)
    return tuple(prog)


IMPLEMENTED = {"choose-chits", "draw-chit", "activate", "move", "combat", "supply", "reinforce", "advance-turn",
               "victory-check", "roll", "recover", "rebuild", "strategic-move", "decide"}


class Runner:
    def __init__(self, game: GameDefinition, scenario: str | None = None, board: Board | None = None,
                 params: dict[str, int] | None = None):
        if not game.scenarios:
            raise ValueError(f"{game.info.id} has no scenario")
        if scenario is None:
            scenario = next(iter(game.scenarios))
        if scenario not in game.scenarios:
            raise ValueError(f"{game.info.id} has no scenario '{scenario}': it has {', '.join(game.scenarios)}")
        self.game = game
        self.scenario = game.scenarios[scenario]
        self.engine = Engine(game, board)
        self.engine.env = self.env
        self.engine.on_battle = self._after_battle
        self.board = self.engine.board
        self.program = flatten(game.sequence)
        missing = sorted({s.phase.procedure for s in self.program if s.kind == "proc"} - IMPLEMENTED)
        for st in self.program:  # a roll phase reads a 1-D table: die total -> result
            if st.kind == "proc" and st.phase.procedure == "roll":
                for t in st.phase.params.get("die-table", ()):
                    if game.die_tables[t].column_ranges is not None:
                        raise NotImplementedError(f"phase {st.phase.id} rolls on {t}, a two-way table, which a "
                                                  "roll phase cannot read yet")
        fights = any(st.kind == "proc" and st.phase.procedure == "combat" for st in self.program)
        if fights and (game.combat.procedure == "none" or (game.combat.procedure == "odds" and not game.crts)):
            raise NotImplementedError(f"{game.info.id} has combat phases but no combat procedure the engine "
                                      "runs: declare combat { procedure odds; crt NAME } or "
                                      "combat { procedure firepower; attack move-in }")
        if game.combat.procedure not in ("odds", "firepower", "none"):
            raise NotImplementedError(f"{game.info.id} uses the {game.combat.procedure} combat procedure, "
                                      "which the engine does not run yet (odds CRTs and firepower only)")
        if game.combat.procedure == "firepower" and game.combat.attack != "move-in":
            raise NotImplementedError(f"{game.info.id}: firepower combat runs with attacks by moving in: "
                                      "declare combat { procedure firepower; attack move-in }")
        if missing:
            raise NotImplementedError(f"{game.info.id}'s sequence of play uses procedure"
                                      f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}, "
                                      "which the engine does not run yet")
        self.victory = game.victory.get(self.scenario.victory, ())
        self.params = dict(params or {})  # numbers chosen before play (16.1: the Axis VP bid)
        needed = sorted({a.value for r in self.victory for e in (r.condition, r.amount) if e is not None
                         for n in E.walk(e) if isinstance(n, E.Call) and n.func == "param"
                         for a in n.args if isinstance(a, E.Str)} - set(self.params))
        if needed:
            raise ValueError("this scenario needs " + ", ".join(f"--param {n}=N" for n in needed))

    # ---------------------------------------------------------- set-up
    def new_game(self, seed: int = 0) -> GameState:
        g, s = self.game, new_state(self.game, seed)
        s.turn = self.scenario.first_turn
        grid = g.map.grid
        for p in self.scenario.setup:
            if p.kind == "hex":
                s.place(p.counter, grid.parse_id(p.where_to))
        for p in self.scenario.setup:
            if p.kind == "area" and s.units[p.counter].side in self.scenario.deploy:
                s.units[p.counter].box = f"deploy:{p.where_to}"  # its player places it (3.0)
            elif p.kind == "area":
                self._place_in_area(s, p)
            elif p.kind == "pool":
                s.units[p.counter].box = f"pool:{p.where_to}"
            elif p.kind == "turn":
                s.units[p.counter].box = f"turn:{p.where_to}"
        for side, area in self.scenario.control:
            hexes = self.engine.controllable if area == "all" else \
                self.engine.controllable & g.map.areas.get(area, frozenset())
            for h in hexes:
                s.control[h] = side
        for u in s.units.values():  # units on the map hold their hexes
            if u.hex is not None and u.hex in self.engine.controllable:
                s.control[u.hex] = u.side
        s.cache["initial-control"] = dict(s.control)
        s.step = {}
        s.log.append({"turn": s.turn, "event": "setup", "scenario": self.scenario.id, "seed": seed})
        sides = [side for side in self.scenario.deploy if self._deploying(s, side)]
        if sides:
            s.step = {"decision": "deploy", "side": sides[0], "sides": sides[1:]}
            return s
        return self._run(s)

    # ---------------------------------------------------------- set-up by the players
    def _deploying(self, s: GameState, side: str) -> list[str]:
        return sorted(u.id for u in s.units.values() if u.side == side and u.box.startswith("deploy:"))

    def deploy_hexes(self, s: GameState, uid: str) -> list[Hex]:
        """Where a unit set up in an area may go: a hex of the area free of
        enemy units, within the stacking limit."""
        g = self.game
        area = s.units[uid].box.split(":", 1)[1]
        side = s.units[uid].side
        return [h for h in sorted(g.map.areas[area], key=g.map.grid.to_colrow)
                if s.side_at(h) in (None, side) and self._fits(s, h)]

    def _deploy_actions(self, s: GameState) -> list[RunnerAction]:
        return [Place(uid, self.board.hex_id(h)) for uid in self._deploying(s, s.step["side"])
                for h in self.deploy_hexes(s, uid)]

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
        hexes = sorted(g.map.areas[p.where_to], key=g.map.grid.to_colrow)
        limit = g.stacking.get("units", 99)
        side = s.units[p.counter].side
        best = None
        for h in hexes:
            if s.side_at(h) not in (None, side):
                continue
            n = stack_count(g, s, h)
            if n + 1 > limit:
                continue
            if best is None or n < best[0]:
                best = (n, h)
        if best is None:
            raise ValueError(f"no room in area {p.where_to} for {p.counter}")
        s.place(p.counter, best[1])

    # ---------------------------------------------------------- queries
    def over(self, s: GameState) -> bool:
        return s.result is not None

    def to_move(self, s: GameState) -> str | None:
        """The side whose decision it is (None when the game is over)."""
        if s.result is not None:
            return None
        if s.pending:
            p = s.pending[0]
            if "side" in p:
                return p["side"]
            unit = p.get("unit") or (p.get("units") or [None])[0]
            return s.units[unit].side if unit else s.active
        return s.step.get("side") or s.active

    def legal_actions(self, s: GameState) -> list[RunnerAction]:
        if s.result is not None:
            return []
        d = s.step.get("decision")
        if s.pending or d in ("movement", "combat"):
            return self.engine.legal_actions(s)
        if d == "choose":
            return [Choose(c) for c in sorted(set(s.step["left"]))] + [Done()]
        if d == "pick":
            return [Pick(c) for c in self._pickable(s, s.step["side"])] + [Done()]
        if d == "interrupt":
            return [Play(c) for c in s.step["playable"]] + [Done()]
        if d == "withdraw":
            return [Withdraw(u) for u in self._withdrawable(s)]
        if d == "transfer":
            return [Transfer(u) for u in self._transferable(s, s.step["side"])] + [Done()]
        if d == "hq-transfer":
            return [Transfer(u) for u in self._hq_transferable(s, s.step["hq"])] + [Done()]
        if d == "place":
            out: list[RunnerAction] = []
            arrival = s.step.get("arrival")
            hexes = self.arrival_hexes(s, self.game.arrivals[arrival]) if arrival else \
                self.entry_hexes(s, s.step["side"], s.step.get("area", ""))
            room = [self.board.hex_id(h) for h in hexes if self._fits(s, h)]  # the same for every unit
            for uid in s.step["units"]:
                out.extend(Place(uid, hid) for hid in room)
            return out + [Done()]
        if d == "activate":
            return [Activate(u) for u in s.step["candidates"] if u not in s.activated] + [Done()]
        if d == "decide":
            return [Choose(s.step["option"]), Done()]
        if d == "deploy":
            return self._deploy_actions(s) + [Done()]
        if d == "rebuild":
            return self._rebuild_actions(s) + [Done()]
        return []

    # ---------------------------------------------------------- apply
    def apply(self, s: GameState, action: RunnerAction | str) -> GameState:
        if isinstance(action, str):
            action = parse(action)
        if s.result is not None:
            raise IllegalActionError("the game is over")
        d = s.step.get("decision")
        if s.pending or d in ("movement", "combat"):
            s2 = self.engine.apply(s, action)
            if not s2.pending and s2.phase != s.phase and d in ("movement", "combat"):
                s2.step = dict(s2.step, decision=None)
                s2.phase = ""  # the segment is over; the next step sets its own
                s2.pc += 1
            return self._run(s2)
        legal = self.legal_actions(s)
        if action not in legal:
            raise IllegalActionError(self._why(s, action))
        s2 = s.copy()
        s2.step = dict(s.step)
        s2.log.append({"turn": s2.turn, "side": self.to_move(s), "action": str(action)})
        if d == "choose":
            self._answer_choose(s2, action)
        elif d == "pick":
            self._answer_pick(s2, action)
        elif d == "interrupt":
            self._answer_interrupt(s2, action)
        elif d == "place":
            self._answer_place(s2, action)
        elif d == "activate":
            self._answer_activate(s2, action)
        elif d == "withdraw":
            self._answer_withdraw(s2, action)
        elif d == "transfer":
            self._answer_transfer(s2, action)
        elif d == "hq-transfer":
            self._answer_hq_transfer(s2, action)
        elif d == "decide":
            self._answer_decide(s2, action)
        elif d == "deploy":
            self._answer_deploy(s2, action)
        elif d == "rebuild":
            self._answer_rebuild(s2, action)
        return self._run(s2)

    def _why(self, s: GameState, action) -> str:
        d = s.step.get("decision")
        if d == "choose":
            return f"{s.step['side']} cannot choose {getattr(action, 'chit', action)}: it may choose " \
                   f"{', '.join(sorted(set(s.step['left']))) or 'nothing more'}, or 'done'"
        if d == "place" and isinstance(action, Place):
            if action.unit not in s.step["units"]:
                return f"{action.unit} is not waiting as a reinforcement"
            return f"{action.unit} cannot be placed in {action.at}: reinforcements enter " \
                   f"{'on a rail hex linked by rail to a supply source' if self.game.reinforcements.enter == 'rail' else 'in a supplied hex'}" \
                   f", not in enemy ZOC or an enemy-held city, within the stacking limit"
        return f"'{action}' is not possible now"

    # ---------------------------------------------------------- the loop
    def _run(self, s: GameState) -> GameState:
        """Run automatic steps until a decision is due or the game ends."""
        guard = 0
        while s.result is None and not s.pending and not s.step.get("decision"):
            guard += 1
            if guard > 100_000:
                raise RuntimeError("the sequence of play does not advance")
            if s.pc >= len(self.program):
                s.pc = 0  # the sequence repeats every turn; advance-turn moved the marker
                continue
            step = self.program[s.pc]
            self._step(s, step)
        return s

    def _step(self, s: GameState, step: Step) -> None:
        ph = step.phase
        if step.kind == "if":
            if not self._true(s, ph.condition):
                s.pc = step.target
                return
            s.pc += 1
        elif step.kind == "side":
            s.active = ph.side
            s.step = {}
            s.pc += 1
        elif step.kind == "end-side":
            s.active = ""
            s.pc += 1
        elif step.kind == "loop":
            if s.cup:
                s.pc += 1
            elif self._held_interrupts(s) and not s.step.get("end-offered"):
                s.step = {"decision": "interrupt", "side": self._held_interrupts(s)[0][0],
                          "playable": [c for _, c in self._held_interrupts(s)], "end-offered": True,
                          "at-end": True}
            else:
                s.step = {}
                s.pc = step.target
        elif step.kind == "jump":
            s.pc = step.target
        else:
            if ph.condition is not None and not self._true(s, ph.condition):
                s.pc += 1
                return
            if step.scoped and ph.procedure in ("move", "combat") and not s.activated:
                s.phase = ""
                s.pc += 1  # nothing was activated: the segment has nobody to act
                return
            getattr(self, "_proc_" + ph.procedure.replace("-", "_"))(s, ph)

    # ---------------------------------------------------------- procedures
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
            count = self.game.turn_track.turn(s.turn).values.get(f"{side}.chits") \
                if self.game.turn_track.turns else "all"
            if count is None or count == "all" or count >= len(avail):
                for cid in avail:
                    self._put_chit(s, cid)
                s.log.append({"turn": s.turn, "side": side, "chits": sorted(avail)})
                st["sides"].pop(0)
                continue
            st.update(decision="choose", side=side, left=avail, count=count, chosen=[])
            return
        for cid, chit in self.game.chits.items():  # SUPPLY always goes in (6.2(3))
            if chit.always and chit.available <= s.turn:
                s.cup.extend([cid] * chit.count)
        s.step = {}
        s.pc += 1

    def _available_chits(self, s: GameState, side: str) -> list[str]:
        out = []
        for cid, c in self.game.chits.items():
            if c.side == side and c.available <= s.turn and not c.always and \
                    (not c.pick or f"picked:{cid}" in s.done):
                out.extend([cid] * c.count)
        return out

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

    def _proc_activate(self, s: GameState, ph: Phase) -> None:
        g = self.game
        cid = s.step.get("chit")
        if cid and self._start_trigger(s, cid):
            return  # an arrival or withdrawal the chit triggers comes first
        s.activated = set()
        s.moved, s.attacked, s.attacked_hexes = set(), set(), set()
        spec = ph.params.get("outside-command") or ()
        for u in s.units.values():  # the marker lasts one activation
            if spec and spec[0] in u.markers:
                u.markers.discard(spec[0])
        if ph.params.get("hq-class"):  # every HQ of these classes activates (15.1(1))
            self._activate_all(s, ph)
            s.pc += 1
            return
        if not cid:
            s.pc += 1
            return
        chit: Chit = g.chits[cid]
        s.active = chit.side if chit.side != "both" else ""
        if chit.kind in ("hq", "interrupt"):
            hq = s.units.get(chit.hq)
            refused = self._loc_check(s, ph, chit.hq) if hq is not None and hq.hex is not None else ""
            if hq is None or hq.hex is None:
                s.log.append({"turn": s.turn, "activate": cid, "units": [], "why": f"{chit.hq} is not on the map"})
            elif refused:
                s.log.append({"turn": s.turn, "activate": cid, "units": [], "why": refused})
            else:
                s.activated = self.command(s, chit.hq)
                s.log.append({"turn": s.turn, "activate": cid, "units": sorted(s.activated)})
                if "hq-transfer" in ph.params and self._hq_transferable(s, chit.hq):
                    s.step = {"chit": cid, "decision": "hq-transfer", "side": hq.side, "hq": chit.hq}
                    return
        elif chit.kind == "supply":
            self.supply_phase(s)
            if s.result is None and g.supply.transfer:
                sides = list(g.supply.order) or list(g.sides)
                s.step = {"chit": cid, "decision": "transfer", "side": sides[0], "sides": sides[1:]}
                return
        elif chit.kind == "reinforcements":
            self._start_placement(s, chit.side)
            if s.step.get("decision"):
                s.step["chit"] = cid
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
        s.step = {"chit": cid}
        s.pc += 1

    # ---------------------------------------------------------- triggers
    def _start_trigger(self, s: GameState, cid: str) -> bool:
        """Start the first withdrawal or arrival this chit triggers now."""
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
            if a.on_chit == cid and a.first <= s.turn <= a.last and key not in s.done:
                s.done.add(key)
                units = self._arriving(s, a)
                n = len(units) if a.count == "all" else (int(a.count) if a.count.isdigit() else
                                                         self.game.turn_track.turn(s.turn).values.get(a.count) or 0)
                if units and n and self.arrival_hexes(s, a):
                    s.step = {"chit": cid, "decision": "place", "side": a.side, "units": units, "n": n,
                              "placed": 0, "arrival": a.id}
                    return True
                s.log.append({"turn": s.turn, "arrival": a.id, "placed": 0})
        return False

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
        lines = supply_map(self.game, self.board, s, a.side) if a.traced else None
        out = []
        for h in sorted(a.hexes, key=self.game.map.grid.to_colrow):
            if s.side_at(h) not in (None, a.side) or (lines is not None and h not in lines):
                continue
            out.append(h)
        return out

    def _transferable(self, s: GameState, side: str) -> list[str]:
        """Units of ``side`` that trace a line of communication (11.2)."""
        lines = supply_map(self.game, self.board, s, side)
        return sorted(u.id for u in s.on_map(side) if u.hex in lines and not self.engine.immobile(u.id))

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
        lines = supply_map(g, self.board, s, hq.side)
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
                u.markers.add(marker)

    def command(self, s: GameState, hq_id: str) -> set[str]:
        """The units an HQ activates now: itself, and the friendly combat
        units within its command range (8.2), of its nationality where the
        game says so (8.3), HQs excepted (8.1(4))."""
        g = self.game
        rules = g.activation
        hq = s.units[hq_id]
        c = g.counters[hq_id]
        rng = c.steps[min(hq.step, len(c.steps) - 1)].get(rules.range_factor, 0)
        out = {hq_id}
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
            out.add(u.id)
        cap = rules.max_mechanized
        mech = sorted((hq.hex.distance(s.units[x].hex), x) for x in out
                      if "mechanized" in g.unit_classes[g.counters[x].unit_class].flags)
        if cap is not None and len(mech) > cap:  # 16.6: the nearest ones
            out -= {x for _, x in mech[cap:]}
        return out

    def _proc_move(self, s: GameState, ph: Phase) -> None:
        if ph.side:
            s.active = ph.side
        if not self.program[s.pc].scoped:  # a phase of its own: every unit may move again
            s.moved = set()
        s.phase = "movement"
        s.step = self._segment_step(s, ph, "movement")

    def _segment_step(self, s: GameState, ph: Phase, decision: str) -> dict:
        """A move or combat segment's own data, read by the engine: the chit
        that started it (if any), who may act (``only``, ``exclude``,
        ``limit``: runtime.engine.phase_bars), the movement modes of the phase
        ("normal": ordinary moves) and the hexsides a combat ignores.  Nothing
        carries over from the phase before."""
        step: dict = {"decision": decision}
        if "chit" in s.step:
            step["chit"] = s.step["chit"]
        for key in ("only", "exclude"):
            if ph.params.get(key):
                step[key] = list(ph.params[key])
        if ph.params.get("limit"):
            step["limit"] = int(ph.params["limit"][0])
        if decision == "movement" and ph.params.get("mode"):
            step["modes"] = list(ph.params["mode"])
        if decision == "combat":
            step["ignore"] = list(ph.params.get("ignore", ()))
        return step

    def _proc_strategic_move(self, s: GameState, ph: Phase) -> None:
        """Strategic movement: a move phase for the phase's modes (10.0)."""
        self._proc_move(s, ph)

    def _proc_combat(self, s: GameState, ph: Phase) -> None:
        if ph.side:
            s.active = ph.side
        s.phase = "combat"
        s.attacked, s.attacked_hexes = set(), set()
        s.step = self._segment_step(s, ph, "combat")

    def _proc_supply(self, s: GameState, ph: Phase) -> None:
        self.supply_phase(s)
        s.pc += 1

    def supply_phase(self, s: GameState) -> None:
        s.done.add(f"supply@{s.turn}")
        rules = self.game.supply
        order = list(rules.order) or list(self.game.sides)
        for side in order:
            if any(sk == side and self._true(s, cond) for sk, cond in rules.skip):
                s.log.append({"turn": s.turn, "supply": side, "result": "skipped"})
                continue
            check_supply(self.game, self.board, s, side)
        self.checkpoint(s, "supply")

    def _proc_reinforce(self, s: GameState, ph: Phase) -> None:
        area = (ph.params.get("at") or ("",))[0]
        self._start_placement(s, ph.side or s.active, area, bool(ph.params.get("due")))
        if not s.step.get("decision"):
            s.pc += 1

    def _start_placement(self, s: GameState, side: str, area: str = "", early: bool = False) -> None:
        """Reinforcements of ``side`` waiting in the reinforcement pools: as
        many as the turn track's SIDE.reinforcements column says, or all of
        them without one.  ``area``: only there (12.3: Warsaw or Königsberg);
        ``early``: the units due next turn come now (10.0: the Siberians)."""
        track = self.game.turn_track
        column = f"{side}.reinforcements"
        pools = {f"pool:{p}" for p in self.game.reinforcements.pools}
        if self.game.supply.transfer:
            pools.add(f"pool:{self.game.supply.transfer}")
        if early:
            pools = {f"turn:{s.turn + 1}"}
        units = sorted(u.id for u in s.units.values() if u.side == side and u.box in pools
                       and f"transferred:{u.id}@{s.turn}" not in s.done)
        if track.turns and column in track.columns:
            n = track.turn(s.turn).values.get(column) or 0
        else:
            n = len(units)
        if not n or not units or not self.entry_hexes(s, side, area):
            s.log.append({"turn": s.turn, "reinforcements": side, "placed": 0})
            return
        s.step = dict(s.step, decision="place", side=side, units=units, n=n, placed=0, area=area)

    def _answer_place(self, s: GameState, a) -> None:
        st = s.step
        if isinstance(a, Place):
            s.place(a.unit, self.board.parse(a.at))
            st["units"] = [u for u in st["units"] if u != a.unit]
            st["placed"] += 1
        if isinstance(a, Done) or st["placed"] >= st["n"] or not st["units"]:
            chit = st.get("chit")
            if st.get("arrival"):  # back to the chit's own effect
                s.log.append({"turn": s.turn, "arrival": st["arrival"], "placed": st["placed"]})
                s.step = {"chit": chit}
                return
            s.log.append({"turn": s.turn, "reinforcements": st["side"], "placed": st["placed"]})
            s.step = {"chit": chit} if chit else {}
            s.pc += 1

    def entry_hexes(self, s: GameState, side: str, area: str = "") -> list[Hex]:
        """Hexes where ``side``'s reinforcements may enter now (12.1), in
        ``area`` if one is given."""
        key = ("entry", side, area, s.version)
        if key in s.cache:
            return s.cache[key]
        rules = self.game.reinforcements
        lines = supply_map(self.game, self.board, s, side)
        if rules.enter == "rail":
            hexes = self._rail_from_sources(s, side)
        else:
            hexes = set(lines)
        if area:
            hexes &= self.game.map.areas.get(area, frozenset())
        ezoc = enemy_zoc(self.game, self.board, s, side) if "enemy-zoc" in rules.not_in else frozenset()
        out = []
        for h in sorted(hexes, key=self.game.map.grid.to_colrow):
            if h in ezoc or s.side_at(h) not in (None, side):
                continue
            if "enemy-cities" in rules.not_in and h in self.engine.controllable and \
                    s.control.get(h, side) != side:
                continue
            out.append(h)
        s.cache[key] = out
        return out

    def _rail_from_sources(self, s: GameState, side: str) -> set[Hex]:
        """Rail hexes traced along unbroken rail from an own source, through
        no enemy unit and no enemy ZOC (friendly units do not help, 12.1(2))."""
        ezoc = enemy_zoc(self.game, self.board, s, side)
        start = [h for h in self.board.supply_sources(side) if s.side_at(h) in (None, side) and h not in ezoc]
        seen = set(start)
        todo = list(start)
        while todo:
            h = todo.pop()
            for n, e in self.board.adj[h]:
                if n in seen or "rail" not in e.links or s.side_at(n) not in (None, side) or n in ezoc:
                    continue
                seen.add(n)
                todo.append(n)
        return {h for h in seen if any("rail" in e.links for _, e in self.board.adj[h])}

    def _fits(self, s: GameState, h: Hex) -> bool:
        limit = self.game.stacking.get("units")
        return limit is None or stack_count(self.game, s, h) + 1 <= limit

    def _proc_advance_turn(self, s: GameState, ph: Phase) -> None:
        s.cup, s.activated, s.moved = [], set(), set()
        s.hands = {k: [] for k in s.hands}
        s.active, s.phase = "", ""
        self.checkpoint(s, "turn-end")
        if s.result is not None:
            return
        if s.turn >= self.scenario.last_turn:
            self.finish(s, "the last turn is over")
            return
        s.turn += 1
        pool = f"pool:{self.game.reinforcements.pools[0]}" if self.game.reinforcements.pools else ""
        waiting = {a.formation for a in self.game.arrivals.values() if a.formation}
        for u in s.units.values():  # 5.0(5): next turn's units become available...
            if u.box == f"turn:{s.turn}" and pool and self.game.counters[u.id].formation not in waiting:
                u.box = pool  # ...unless an arrival brings them (15.3(1): 19A)
        s.log.append({"turn": s.turn, "event": "new turn"})
        s.step = {}
        s.pc += 1

    def _proc_roll(self, s: GameState, ph: Phase) -> None:
        """Roll on the phase's die tables (plus their modifiers); the result is
        logged and readable in expressions as rolled("table")."""
        g = self.game
        for tid in ph.params.get("die-table", ()):
            t = g.die_tables[tid]
            total, row = roll_table(g, s, t, self.env(s), tid)
            result = " ".join(t.cells[row]) if t.cells[row] else ""
            s.rolled[tid] = result
            s.log.append({"turn": s.turn, "table": tid, "total": total, "result": result})
        s.pc += 1
        self.checkpoint(s, "roll")

    def _proc_recover(self, s: GameState, ph: Phase) -> None:
        """Disrupted units in supply recover (8.0): those of the phase's side
        (or the active side) that its ``only`` / ``exclude`` selectors allow."""
        g = self.game
        side = ph.side or s.active
        only = frozenset(ph.params.get("only") or ())
        exclude = frozenset(ph.params.get("exclude") or ())
        sides = [side] if side and side != "both" else list(g.sides)
        for sd in sides:
            status = supply_status(g, self.board, s, sd)  # city supply counts (9.0)
            for u in sorted(s.on_map(sd), key=lambda x: x.id):
                mine = g.selectors_of(u.id) | u.markers
                if "disrupted" not in u.markers or (only and not only & mine) or exclude & mine:
                    continue
                if status.get(u.id):
                    u.markers.discard("disrupted")
                    s.log.append({"turn": s.turn, "recover": u.id})
        s.pc += 1

    def _proc_victory_check(self, s: GameState, ph: Phase) -> None:
        """The victory rules attached to this phase: ``at PHASE-ID``."""
        self.checkpoint(s, ph.id)
        s.pc += 1

    def _after_battle(self, s: GameState, outcome: str, attacker: str, defender: str, winner: str) -> None:
        """After a firepower battle: an attack whose outcome leaves the hex to
        the defender is a failed attack (the ``failed-attack`` checkpoint, 11.1)."""
        if winner == defender:
            self.checkpoint(s, "failed-attack", attacker=attacker, defender=defender, outcome=outcome)

    # ---------------------------------------------------------- decide
    def _proc_decide(self, s: GameState, ph: Phase) -> None:
        """A yes/no choice of the phase's side: 'choose OPTION' or 'done' (no)."""
        name, question = ph.params["option"]
        s.step = {"decision": "decide", "side": ph.side or s.active, "option": name, "question": question}

    def _answer_decide(self, s: GameState, a) -> None:
        name = s.step["option"]
        if isinstance(a, Choose):
            s.done.add(f"chosen:{name}")
        s.log.append({"turn": s.turn, "decide": name, "answer": "yes" if isinstance(a, Choose) else "no"})
        s.step = {}
        s.pc += 1

    # ---------------------------------------------------------- rebuild
    def _proc_rebuild(self, s: GameState, ph: Phase) -> None:
        """Units come back from pools onto the game's rebuild hexes (10.0),
        any number, at most ``per-hex`` on each hex in this phase."""
        side = ph.side or s.active
        s.step = {"decision": "rebuild", "side": side, "used": {}}
        if not self._rebuild_actions(s):
            s.log.append({"turn": s.turn, "rebuild": side, "placed": 0})
            s.step = {}
            s.pc += 1

    def rebuild_hexes(self, s: GameState, rule) -> list[Hex]:
        g = self.game
        used = s.step.get("used", {})
        out = []
        for h, mh in g.map.hexes.items():
            if not rule.at & ({mh.terrain} | set(mh.features)):
                continue
            if rule.controlled and s.control.get(h) != rule.side:
                continue
            if any(u.side != rule.side for u in s.units_at(h)):
                continue
            if used.get(self.board.hex_id(h), 0) >= rule.per_hex or not self._fits(s, h):
                continue
            out.append(h)
        return sorted(out, key=g.map.grid.to_colrow)

    def _rebuild_actions(self, s: GameState) -> list[RunnerAction]:
        out: list[RunnerAction] = []
        side = s.step["side"]
        for rule in self.game.rebuilds.values():
            if rule.side != side:
                continue
            pools = {f"pool:{p}" for p in rule.pools}
            units = sorted(u.id for u in s.units.values() if u.side == side and u.box in pools
                           and rule.units & self.game.selectors_of(u.id))
            if not units:
                continue
            hexes = [self.board.hex_id(h) for h in self.rebuild_hexes(s, rule)]
            out.extend(Place(uid, hid) for uid in units for hid in hexes)
        return out

    def _answer_rebuild(self, s: GameState, a) -> None:
        if isinstance(a, Place):
            rule = next(r for r in self.game.rebuilds.values() if r.side == s.step["side"]
                        and r.units & self.game.selectors_of(a.unit))
            s.place(a.unit, self.board.parse(a.at))
            if rule.marker:
                s.units[a.unit].markers.add(rule.marker)
            s.step["used"] = dict(s.step["used"], **{a.at: s.step["used"].get(a.at, 0) + 1})
            s.log.append({"turn": s.turn, "rebuilt": a.unit, "at": a.at, "rule": rule.id})
            if self._rebuild_actions(s):
                return
        s.step = {}
        s.pc += 1

    # ---------------------------------------------------------- victory
    def env(self, s: GameState) -> tuple[dict, dict]:
        g = self.game
        names: dict[str, object] = {"turn": s.turn, "last-turn": self.scenario.last_turn, "phase": s.phase,
                                    "active": s.active, "side": s.active}
        for table in (g.sides, g.nationalities, g.unit_classes, g.terrain, g.weather, g.events, g.chits,
                      g.counters, g.variants, g.pools, g.die_tables, g.scenarios, g.map.areas):
            for k in table:
                names.setdefault(k, k)
        weather = g.turn_track.turn(s.turn).values.get("weather") if g.turn_track.turns else None
        names["weather"] = weather or ""
        for st in self.program:  # the options of decide phases, read by chosen(...)
            if st.kind == "proc" and st.phase.params.get("option"):
                names.setdefault(st.phase.params["option"][0], st.phase.params["option"][0])

        def hexes_of(where: object) -> list[Hex]:
            w = str(where)
            if w in g.map.areas:
                return list(g.map.areas[w])
            try:
                return [g.map.grid.parse_id(w)]
            except ValueError as e:
                raise E.ExprError(str(e)) from None

        def controls(side, where):
            return any(s.control.get(h) == side for h in hexes_of(where))

        def occupies(side, where):
            return any(u.side == side for h in hexes_of(where) for u in s.units_at(h))

        def supplied(side, where):
            lines = supply_map(g, self.board, s, str(side))
            return any(h in lines for h in hexes_of(where))

        def eliminated(side, flag):
            """Units of ``side`` lost so far (in combat or to supply) whose class or flag is ``flag``."""
            n = 0
            for uid in s.lost:
                c = g.counters[uid]
                if c.side == side and (flag == c.unit_class or flag in g.unit_classes[c.unit_class].flags):
                    n += 1
            return n

        initial = s.cache.get("initial-control", {})
        fns = {"controls": controls, "occupies": occupies, "supplied": supplied, "vp": lambda side: s.vp.get(side, 0),
               "eliminated": eliminated, "on-map": lambda cid: s.units[cid].hex is not None,
               "variant": lambda v: v in g.active_variants,
               "lost": lambda where: any(s.control.get(h) != initial.get(h) for h in hexes_of(where)),
               "held-since": lambda side, where: min((s.control_since.get(h, 0) for h in hexes_of(where)
                                                      if s.control.get(h) == side), default=0),
               "chosen": lambda name: f"chosen:{name}" in s.done,
               "param": self._param,
               "rolled": lambda table: s.rolled.get(str(table), "")}
        return names, fns

    def _param(self, name):
        if name not in self.params:
            raise E.ExprError(f"the game needs a value for '{name}': give it with --param {name}=N")
        return self.params[name]

    def _true(self, s: GameState, cond) -> bool:
        if cond is None:
            return True
        names, fns = self.env(s)
        v = E.evaluate(cond, names, fns)
        if not isinstance(v, bool):
            raise E.ExprError(f"a condition must be true or false, not {v!r}", cond.where)
        return v

    def checkpoint(self, s: GameState, at: str, **bound) -> None:
        """Awards, end conditions and immediate wins (``win SIDE at CHECKPOINT``)
        that the rules attach to ``at``; ``bound``: extra names (attacker...)."""
        names, fns = self.env(s)
        names.update(bound)
        for r in self.victory:
            if r.at != at or r.kind != "award":
                continue
            if r.condition is None or E.evaluate(r.condition, names, fns) is True:
                amount = E.evaluate(r.amount, names, fns)
                if amount:
                    s.vp[r.side] = s.vp.get(r.side, 0) + int(amount)
                    s.log.append({"turn": s.turn, "vp": r.side, "amount": int(amount), "for": r.title})
        for r in self.victory:
            if r.kind == "end" and r.at in (at, "") and (r.condition is None or E.evaluate(r.condition, names, fns)):
                self.finish(s, r.title or "the game ends")
                return
            if r.kind == "win" and r.at == at and at != "end" and \
                    (r.condition is None or E.evaluate(r.condition, names, fns) is True):
                self.finish(s, r.title or f"{r.side} wins", winner=r.side)
                return

    def finish(self, s: GameState, why: str, winner: str | None = None) -> None:
        self.checkpoint_end_awards(s)
        names, fns = self.env(s)
        for r in self.victory:
            if winner is not None:
                break
            if r.kind == "win" and r.at in ("end", "") and \
                    (r.condition is None or E.evaluate(r.condition, names, fns)):
                winner = r.side
        winner = winner or "draw"
        s.result = {"winner": winner, "vp": dict(s.vp), "turns": s.turn, "why": why}
        s.log.append({"turn": s.turn, "event": "game over", **s.result})

    def checkpoint_end_awards(self, s: GameState) -> None:
        names, fns = self.env(s)
        for r in self.victory:
            if r.kind == "award" and r.at in ("end", ""):
                if r.condition is None or E.evaluate(r.condition, names, fns) is True:
                    amount = E.evaluate(r.amount, names, fns)
                    if amount:
                        s.vp[r.side] = s.vp.get(r.side, 0) + int(amount)
                        s.log.append({"turn": s.turn, "vp": r.side, "amount": int(amount), "for": r.title})
