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
    activate 7Pz         pick a unit for a RESERVE/OKH activation; "done" to stop; the HQ a chit of
                         "hq any" activates; a tag's commander of a chain per tag (AVD 3 d; "done": none)
    choose escape        answer an effect's ``choose`` (runtime.effects)
    take 31ID            pick a unit for an effect (``move ... by SIDE``, ``restore``; "done" to stop a restore)
    attach Tiger LAH     put a counter under a unit in a reorganize phase (runtime/reorganize.py); "done" to stop
    designate LAH        give a unit a designate phase's marker (a reserve: runtime/designate.py); "done" to stop
    return Tiger         send a counter under a unit back to the reorganize phase's pool
    move / attack / lose / retreat / advance / done   (runtime.engine)
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from .action_lists import Placements, Transfers
from .actions import Action, Attack, Displace, Done, Fire, IllegalActionError, Move, Use, shortened
from .board import Board
from .chitpull import ChitPull
from .designate import Designation, designate_markers, until_turn_markers
from .decisions import Activate, Choose, Pick, Place, Play, RunnerAction, Take, Transfer, Withdraw, parse
from .definition import GameDefinition, Phase
from .effects import Effects
from .engine import Engine
from .observe import observe
from .reinforce import Reinforcements
from .reorganize import Reorganization
from .attachments import attach, face_up, host_of
from .stacking import extra_bars, extra_limits, judged_at_end
from .state import GameState, fingerprint, new_state
from .supply import check_supply, supply_status
from .victory import MissingParams, UnreadParam, VictoryRules, params_of, params_read


ENGINE_ACTIONS = get_args(Action)  # what the engine itself answers (movement, combat, a battle's steps)


class SequenceError(RuntimeError):
    """A sequence of play that cannot go on: the game's rules are at fault."""


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
               "victory-check", "roll", "recover", "rebuild", "strategic-move", "decide", "event", "effects",
               "reorganize", "designate"}


def sequence_problems(game: GameDefinition) -> list[tuple[str, str]]:
    """Why the engine cannot run this game's sequence of play, as (where,
    message) pairs: a procedure it lacks, a roll on a two-way table without input, combat
    phases without a combat procedure it runs.  The checker reports them at
    their place; the runner refuses to start with the first."""
    out: list[tuple[str, str]] = []
    program = flatten(game.sequence)
    procs = [st.phase for st in program if st.kind == "proc"]
    for ph in procs:  # a two-way table needs its input (the column's value)
        if ph.procedure == "roll":
            for t in ph.params.get("die-table", ()):
                table = game.die_tables.get(t)
                if table is not None and table.column_ranges is not None and table.input is None:
                    out.append((ph.where, f"phase {ph.id} rolls on {t}, a two-way table without "
                                "'input = EXPRESSION' (the value that picks the column)"))
    fights = [ph for ph in procs if ph.procedure == "combat"]
    if fights and (game.combat.procedure == "none" or (game.combat.procedure == "odds" and not game.crts)):
        out.append((fights[0].where, f"{game.info.id} has combat phases but no combat procedure the engine "
                    "runs: declare combat { procedure odds; crt NAME } or "
                    "combat { procedure firepower; attack move-in }"))
    where = game.combat.where or (fights[0].where if fights else "")
    if game.combat.procedure not in ("odds", "firepower", "dice-pool", "none"):
        out.append((where, f"{game.info.id} uses the {game.combat.procedure} combat procedure, "
                    "which the engine does not run yet (odds CRTs and firepower only)"))
    if game.combat.procedure == "firepower" and game.combat.attack != "move-in":
        out.append((where, f"{game.info.id}: firepower combat runs with attacks by moving in: "
                    "declare combat { procedure firepower; attack move-in }"))
    missing = sorted({ph.procedure for ph in procs} - IMPLEMENTED)
    if missing:
        ph = next(p for p in procs if p.procedure in missing)
        out.append((ph.where, f"{game.info.id}'s sequence of play uses procedure"
                    f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}, which the engine does not run yet"))
    return out


class Runner(ChitPull, Reinforcements, VictoryRules, Effects, Reorganization, Designation):
    """Plays a scenario; the chit-pull, reinforcement, victory and effect
    procedures are in runtime.chitpull, runtime.reinforce, runtime.victory
    and runtime.effects."""

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
        self.engine.on_result = self.run_effects
        self.board = self.engine.board
        self.program = flatten(game.sequence)
        self._designations = designate_markers(game.sequence)  # player turn -> markers cleared at its end
        self._until_turn = until_turn_markers(game)  # side -> markers cleared when its player turn begins
        self._face_down = any(k.face_down for k in game.attachments.values())  # GJ63 3.5(5)
        # ids, flags and the options of decide phases (read by chosen(...)) as expression names
        self.declared_names = dict(self.engine.declared)
        for st in self.program:
            if st.kind == "proc" and st.phase.params.get("option"):
                self.declared_names.setdefault(st.phase.params["option"][0], st.phase.params["option"][0])
        problems = sequence_problems(game)
        if problems:
            raise NotImplementedError(problems[0][1])
        self.victory = game.victory.get(self.scenario.victory, ())
        self.params = dict(params or {})  # numbers chosen before play (16.1: the Axis VP bid)
        # (state, its step, fingerprint, actions): the legal actions listed last (legal_actions)
        self._legal_memo: tuple | None = None
        self._rail_traces: dict = {}  # (side, enemy ZOC, enemy-held hexes) -> rail entry hexes (reinforce.py)
        self._rail_entry_lists: dict = {}  # (rail hexes, area, enemy-held cities) -> entry hexes (reinforce.py)
        self._ids_kept: dict = {}  # id(list of hexes) -> (the list, its hex ids, their places) (reinforce.py)
        # a number no rule in play reads is refused (a misspelt name would change nothing, silently)
        read = params_read(game)
        if read is not None:  # (None: a rule names its parameter by an expression, known only in play)
            for n in sorted(self.params):
                if n not in read:
                    raise UnreadParam(n, read)
        # the numbers the rules in play ask for: this scenario's victory rules', and any other rule's
        elsewhere = params_read(game, outside_victory=True)
        needed = sorted(n for n in {*params_of(self.victory), *(elsewhere or ())} if n not in self.params)
        if needed:
            raise MissingParams(needed)
        # the ``enter`` checkpoint (a unit moved into a hex) is run only for games that use it
        self._enter = any(t.at == "enter" for t in game.triggers) or any(r.at == "enter" for r in self.victory)
        # the ``enter-each`` checkpoint: every hex a unit enters (moves, retreats, advances), run by the engine
        if any(t.at == "enter-each" for t in game.triggers) or any(r.at == "enter-each" for r in self.victory):
            self.engine.on_enter = self._entered

    # ---------------------------------------------------------- set-up
    def new_game(self, seed: int = 0) -> GameState:
        g, s = self.game, new_state(self.game, seed)
        s.turn = self.scenario.first_turn
        for p in self.scenario.setup:
            if p.kind == "hex":
                s.place(p.counter, self.board.parse(p.where_to))  # (the board keeps the ids it has read)
        for p in self.scenario.setup:
            if p.kind == "area" and s.units[p.counter].side in self.scenario.deploy:
                s.set_unit(p.counter, box=f"deploy:{p.where_to}")  # its player places it (3.0)
            elif p.kind == "area":
                self._place_in_area(s, p)
            elif p.kind == "pool":
                s.set_unit(p.counter, box=f"pool:{p.where_to}")
            elif p.kind == "turn":
                s.set_unit(p.counter, box=f"turn:{p.where_to}")
        self._release_due(s)  # units due on the first turn are available at once (AVD: the "1" counters)
        for p in self.scenario.setup:  # counters set up under a unit (checked by the compiler)
            if p.kind == "under":
                attach(g, s, p.counter, p.where_to, "set-up")
        placed = {p.counter for p in self.scenario.setup}
        for cid, c in g.counters.items():  # a counter the set-up does not place starts where it arrives:
            if c.arrives and cid not in placed:  # a pool or cup, or the turn it enters (as turn N would put it)
                s.set_unit(cid, box=c.arrives)
        for side, area in self.scenario.control:
            hexes = self.engine.controllable if area == "all" else \
                self.engine.controllable & g.map.areas.get(area, frozenset())
            for h in hexes:
                s.control[h] = side
        for u in s.units.values():  # units on the map hold their hexes
            if u.hex is not None and u.hex in self.engine.controllable:
                s.control[u.hex] = u.side
        s.cache["initial-control"] = dict(s.control)
        for m in self.scenario.markers:
            if m.source:  # markers set up above, moved (drawn at random with ``random``)
                found = self.markers_at(s, m.source, m.kind)
                why = f"set-up: {m.kind} from {m.source} to {m.at}"
                for mk in (self._pick(s, found, m.count, why) if m.random else found[:m.count]):
                    self.place_marker_at(mk, m.at)
                continue
            for _ in range(m.count):
                mk = self.new_marker(m.kind, None, "", m.value)
                self.place_marker_at(mk, m.at)
                s.markers.append(mk)
        s.step = {}
        s.log.append({"turn": s.turn, "event": "setup", "scenario": self.scenario.id, "seed": seed})
        sides = [side for side in self.scenario.deploy if self._deploying(s, side)]
        if sides:
            s.step = {"decision": "deploy", "side": sides[0], "sides": sides[1:]}
            return s
        return self._run(s)

    # ---------------------------------------------------------- queries
    def over(self, s: GameState) -> bool:
        return s.result is not None

    def observe(self, s: GameState, side: str | None) -> GameState:
        """The state as ``side`` sees it (runtime/observe.py; None: everything)."""
        return observe(self.game, s, side)

    def to_move(self, s: GameState) -> str | None:
        """The side whose decision it is (None when the game is over)."""
        if s.result is not None:
            return None
        if self.effect_asks(s):
            return self.effect_asks(s)["side"]
        if s.pending:
            p = s.pending[0]
            if "side" in p:
                return p["side"]
            unit = p.get("unit") or (p.get("units") or [None])[0]
            return s.units[unit].side if unit else s.active
        return s.step.get("side") or s.active

    def legal_actions(self, s: GameState) -> Sequence[RunnerAction]:
        """The answers to the decision due in ``s``.  The list is kept for the
        last state asked about (an agent asks, then ``apply`` checks the answer
        against the same list): never change it."""
        memo = self._legal_memo
        if memo is not None and memo[0] is s and memo[1] is s.step and memo[2] == fingerprint(s):
            return memo[3]
        acts = self._legal_actions(s)
        listed = self.engine._listed  # (the engine's list for this state, with the state's fingerprint then)
        fp = listed[2] if listed is not None and listed[3] is acts and listed[0] is s and listed[1] is s.step \
            else fingerprint(s)
        self._legal_memo = (s, s.step, fp, acts)
        return acts

    def _legal_actions(self, s: GameState) -> Sequence[RunnerAction]:
        if s.result is not None:
            return []
        ask = self.effect_asks(s)
        if ask:
            if ask["decision"] == "choose":
                return [Choose(o) for o in ask["options"]]
            if ask["decision"] == "fire":
                return [*self.fire_actions(s, ask), Done()]
            if ask["decision"] == "relocate":
                return [*self.relocate_actions(ask), Done()]
            return [Take(u) for u in ask["units"]] + ([Done()] if ask.get("optional") else [])
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
            return Transfers(self._transferable(s, s.step["side"]), [Done()])  # built when read
        if d == "hq-transfer":
            return [Transfer(u) for u in self._hq_transferable(s, s.step["hq"])] + [Done()]
        if d == "place" and "points" in s.step:  # point-buy (AVD 5 c-e)
            return self._point_actions(s)
        if d == "place" and s.step.get("arrival") and self.game.arrivals[s.step["arrival"]].as_reinforcements:
            return [Place(u, self.board.hex_id(h)) for u in s.step["units"]  # where bought units go (AVD 5 h ii)
                    for h in self.placement_hexes(s, u)] + [Done()]
        if d == "place" and s.step.get("arrival") and self.game.arrivals[s.step["arrival"]].move_by:
            arrival = self.game.arrivals[s.step["arrival"]]  # each unit: where its move onto the map may end
            return [Place(u, self.board.hex_id(h)) for u in s.step["units"]
                    for h in self.move_on_targets(s, arrival, u)] + [Done()]
        if d == "place" and s.step.get("areas"):  # units entering in areas of their own (GJ63 7.0(1))
            end = judged_at_end(self.game)  # (3.4(4): the limits are judged where their move ends)
            return [Place(u, hid) for u in s.step["units"]
                    for hid in self._room(s, self.entry_hexes(s, s.step["side"], self.placement_area(s, u)))
                    if end or not extra_bars(self.game, s, self.board.parse(hid), u)] + [Done()]
        if d == "place":
            arrival = s.step.get("arrival")
            hexes = self.arrival_hexes(s, self.game.arrivals[arrival]) if arrival else \
                self.entry_hexes(s, s.step["side"], s.step.get("area", ""))
            room = self._room(s, hexes)  # the same for every unit...
            if extra_limits(self.game.stacking) and not judged_at_end(self.game):  # ...unless an hq or
                # per-selector limit tells units apart
                return [Place(u, hid) for u in s.step["units"] for hid in room
                        if not extra_bars(self.game, s, self.board.parse(hid), u)] + [Done()]
            return Placements(s.step["units"], room, [Done()])  # every unit x every hex, built when read
        if d == "activate":
            return [Activate(u) for u in s.step["candidates"] if u not in s.activated] + [Done()]
        if d == "command-hq":
            return [Activate(u) for u in s.step["candidates"]]
        if d == "commander":  # per TAGS: the unit whose chain the tag's units follow, or none
            return [Activate(u) for u in s.step["candidates"]] + [Done()]
        if d == "decide":
            return [Choose(s.step["option"]), Done()]
        if d == "deploy":
            return self._deploy_actions(s, [Done()])
        if d == "rebuild":
            return self._rebuild_actions(s)
        if d == "reorganize":
            return self._reorganize_actions(s)
        if d == "designate":
            return self._designate_actions(s)
        return []

    # ---------------------------------------------------------- apply
    def apply(self, s: GameState, action: RunnerAction | str) -> GameState:
        if isinstance(action, str):
            action = parse(action)
        if s.result is not None:
            raise IllegalActionError("the game is over")
        if self.effect_asks(s):
            return self._answer_effect(s, action)
        d = s.step.get("decision")
        if s.pending or d in ("movement", "combat"):
            if not isinstance(action, ENGINE_ACTIONS):  # (a decision's answer: the engine takes none)
                raise IllegalActionError(self._why_not_engine(s, action))
            s2 = self.engine.apply(s, action)
            if self._designations and not s.pending:
                self.shows(s2, action)
            if self._face_down and isinstance(action, Attack) and not s.pending and \
                    not (self.game.dice_pool and self.game.dice_pool.declare_equipment):  # the stacks fight: face up
                target = self.board.parse(action.target)
                face_up(self.game, s2, [*action.attackers, *(u.id for u in s.units_at(target))])
            elif self._face_down and isinstance(action, Use) and not action.unit and \
                    s2.units.get(action.option) is not None:
                host = host_of(s2, action.option)  # a counter under another stack used in the battle (ranged)
                if host is not None and action.option in s2.attached.get(host, ()):
                    face_up(self.game, s2, [host], only=action.option)
            if self._enter and isinstance(action, Move) and s2.result is None:
                self.checkpoint(s2, "enter", hex=action.to, side=s2.units[action.unit].side)
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
        elif d == "command-hq":
            self._answer_command_hq(s2, action)
        elif d == "commander":
            self._answer_commander(s2, action)
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
        elif d == "reorganize":
            self._answer_reorganize(s2, action)
        elif d == "designate":
            self._answer_designate(s2, action)
        return self._run(s2)

    def _answer_effect(self, s: GameState, action: RunnerAction) -> GameState:
        ask = self.effect_asks(s)
        if ask["decision"] == "fire":
            return self._answer_fire(s, ask, action)
        if ask["decision"] == "relocate":
            return self._answer_relocate(s, ask, action)
        if action not in self.legal_actions(s):
            what = "options " + ", ".join(ask["options"]) if ask["decision"] == "choose" else \
                "units " + ", ".join(ask["units"])
            raise IllegalActionError(f"'{action}' is not an answer to {s.effects[0]['why']}: "
                                     f"{ask['side']} picks one of the {what}")
        s2 = s.copy()
        s2.log.append({"turn": s2.turn, "side": ask["side"], "action": str(action)})
        self.answer_effect(s2, getattr(action, "chit", None), getattr(action, "unit", None))
        if s2.pending and not s2.effects:  # a CRT result's effects are over: its attack goes on
            self.engine._settle(s2)
        return self._run(s2)

    def _answer_fire(self, s: GameState, ask: dict, action: RunnerAction) -> GameState:
        """A fire attack (``fire KIND HEX``) or ``done`` where a fire effect asks."""
        if not isinstance(action, (Fire, Done)):
            raise IllegalActionError(f"'{action}' is not an answer to {s.effects[0]['why']}: {ask['side']} names "
                                     f"a fire attack (fire {ask['kinds'][0]} HEX) or 'done'")
        if isinstance(action, Fire):
            if action.kind not in ask["kinds"]:
                raise IllegalActionError(f"{action.kind} is not one of the fire attacks {s.effects[0]['why']} "
                                         f"grants: {', '.join(ask['kinds'])}")
            if action.target in ask["fired"]:
                raise IllegalActionError(f"{action.target} has already been fired on: one fire attack per hex")
        s2 = s.copy()
        if isinstance(action, Done):
            s2.log.append({"turn": s2.turn, "side": ask["side"], "action": "done"})
        self.answer_fire(s2, action)
        return self._run(s2)

    def _answer_relocate(self, s: GameState, ask: dict, action: RunnerAction) -> GameState:
        """A unit relocated (``displace UNIT HEX``) or ``done`` where a relocate effect asks."""
        if action not in self.legal_actions(s):
            unit = getattr(action, "unit", None)
            if isinstance(action, Displace) and unit in ask["hexes"]:
                why = f"{unit} cannot be relocated to {action.to}: it may go to " + ", ".join(ask["hexes"][unit])
            elif isinstance(action, Displace):
                why = f"{unit} cannot be relocated: {ask['side']} may relocate " + ", ".join(ask["units"])
            else:
                why = f"{ask['side']} relocates a unit (displace UNIT HEX) or says 'done'"
            raise IllegalActionError(f"'{action}' is not an answer to {s.effects[0]['why']}: {why}")
        s2 = s.copy()
        s2.log.append({"turn": s2.turn, "side": ask["side"], "action": str(action)})
        self.answer_relocate(s2, action)
        return self._run(s2)

    def _why(self, s: GameState, action) -> str:
        d = s.step.get("decision")
        if d == "reorganize":
            return self._why_reorganize(s, action)
        if d == "designate":
            return self._why_designate(s, action)
        if d == "commander" and isinstance(action, Activate):
            return f"{action.unit} cannot command the {s.step['group']} chain of {s.step['chit']}: " \
                   f"{s.step['side']} picks one of {', '.join(s.step['candidates'])}, or 'done' for none"
        if d == "choose" and isinstance(action, Choose):
            return f"{s.step['side']} cannot choose {action.chit}: it may choose " \
                   f"{', '.join(sorted(set(s.step['left']))) or 'nothing more'}, or 'done'"
        if d == "place" and isinstance(action, Place):
            if action.unit not in s.step["units"]:
                f = self.game.counters[action.unit].formation if action.unit in self.game.counters else ""
                if s.step.get("quota") is not None and f:
                    left = ", ".join(f"{n} of {k}" for k, n in sorted(s.step["quota"].items())) or "no more units"
                    return f"{action.unit} ({f}) does not come this turn: the turn track brings {left}"
                return f"{action.unit} is not waiting as a reinforcement"
            area = s.step.get("areas", {}).get(action.unit)
            if area:
                hexes = sorted(self.game.map.areas.get(area, ()), key=self.board.colrow.__getitem__)
                return f"{action.unit} cannot be placed in {action.at}: it enters in {area} " \
                       f"({', '.join(self.board.hex_id(h) for h in hexes)}), in a hex free of the enemy" + \
                       (" (the stacking limit is judged where its move ends)" if judged_at_end(self.game)
                        else ", within the stacking limit")
            return f"{action.unit} cannot be placed in {action.at}: reinforcements enter " \
                   f"{'on a rail hex linked by rail to a supply source' if self.game.reinforcements.enter == 'rail' else 'in a supplied hex'}" \
                   f", not in enemy ZOC or an enemy-held city, within the stacking limit"
        legal = list(self.legal_actions(s))
        unit = getattr(action, "unit", None)  # (a unit's own answers first: where it may be placed, say)
        legal = [a for a in legal if unit is not None and getattr(a, "unit", None) == unit] or legal
        shown = ", ".join(f"'{a}'" for a in legal[:6]) + (f" ... ({len(legal)} in all)" if len(legal) > 6 else "")
        return f"'{shortened(action)}' is not possible now: {self.to_move(s)} answers the " \
               f"{str(d).replace('-', ' ')} decision" + (f": {shown}" if shown else "")

    def _why_not_engine(self, s: GameState, action) -> str:
        """A decision's answer (place, activate, choose...) given where the
        engine waits for a move, an attack or a battle's answer."""
        side = self.to_move(s)
        if s.pending:
            p = s.pending[0]
            where = f" in {p['hex']}" if isinstance(p.get("hex"), str) else ""
            return f"'{shortened(action)}' is not possible now: the {p.get('kind', 'battle')}{where} waits for " \
                   f"{side}'s answer"
        what = "move a unit" if s.step.get("decision") == "movement" else "attack"
        return f"'{shortened(action)}' is not possible now: it is {side}'s {s.step.get('decision')}: {what}, or 'done'"

    # ---------------------------------------------------------- the loop
    def _run(self, s: GameState) -> GameState:
        """Run automatic steps until a decision is due or the game ends."""
        guard = 0
        self.drain_effects(s)
        while s.result is None and not s.effects and not s.pending and not s.step.get("decision"):
            guard += 1
            if guard > 100_000:
                raise SequenceError(f"the sequence of play runs on without a decision and without ending (turn "
                                    f"{s.turn}, at {self.program[s.pc].phase.id if s.pc < len(self.program) else '?'})"
                                    ": does a phase with procedure advance-turn run every turn, and can the game "
                                    "end?")
            if s.pc >= len(self.program):
                s.pc = 0  # the sequence repeats every turn; advance-turn moved the marker
                continue
            step = self.program[s.pc]
            self._step(s, step)
            self.drain_effects(s)
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
            for marker in self._until_turn.get(ph.side, ()):  # markers that last until this side's turn begins
                self._clear_marker(s, marker, None)
            s.pc += 1
        elif step.kind == "end-side":
            if self._designations:
                self.end_designations(s, ph)
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
    def _proc_move(self, s: GameState, ph: Phase) -> None:
        if ph.side:
            s.active = ph.side
        if not self.program[s.pc].scoped:  # a phase of its own: every unit may move again
            s.moved = set()
        self._pay_entry(s)  # reinforcements that move onto the map now (reinforce 'move-on')
        s.phase = "movement"
        s.step = self._segment_step(s, ph, "movement")
        self._air_window(s, "move", ph)

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
            if ph.params.get("hold-fire"):
                step["hold-fire"] = list(ph.params["hold-fire"])
        return step

    def _proc_strategic_move(self, s: GameState, ph: Phase) -> None:
        """Strategic movement: a move phase for the phase's modes (10.0)."""
        self._proc_move(s, ph)

    def _proc_combat(self, s: GameState, ph: Phase) -> None:
        if ph.side:
            s.active = ph.side
        s.phase = "combat"
        s.attacked, s.attacked_hexes = set(), set()
        s.entering = {}  # a move onto the map counts for the movement segment just over
        s.step = self._segment_step(s, ph, "combat")
        self._air_window(s, "combat", ph)

    def _air_window(self, s: GameState, when: str, ph: Phase) -> None:
        """Air missions outside a battle at the start of the phase, where the
        game's air combat opens a window there (Prokhorovka 16.0)."""
        dp = self.engine.dicepool
        if dp is not None and dp.air is not None and dp.air.air.windows:
            dp.air.open_window(s, when, ph.title or ph.id)

    def _proc_supply(self, s: GameState, ph: Phase) -> None:
        self.supply_phase(s)
        s.pc += 1

    def supply_phase(self, s: GameState) -> None:
        s.done.add(f"supply@{s.turn}")
        rules = self.game.supply
        order = list(rules.order) or list(self.game.sides)
        for side in order:
            if self.supply_skipped(s, side):
                s.log.append({"turn": s.turn, "supply": side, "result": "skipped"})
                continue
            check_supply(self.game, self.board, s, side)
        self.checkpoint(s, "supply")

    def supply_skipped(self, s: GameState, side: str) -> bool:
        """``side`` skips the supply check as things stand (``supply { skip
        SIDE when ... }``: Smolensk's Axis on turns 1 to 3, 15.1(4))."""
        return any(sk == side and self._true(s, cond) for sk, cond in self.game.supply.skip)

    def _entered(self, s: GameState, uid: str, hexes) -> None:
        """The ``enter-each`` checkpoint for each hex ``uid`` entered, in order
        (a box a move ends in, by its pool id: AVD's Minsk Pocket)."""
        side = s.units[uid].side
        for h in hexes:
            if s.result is not None:
                return
            self.checkpoint(s, "enter-each", hex=h if isinstance(h, str) else self.board.hex_id(h), side=side)

    def _proc_advance_turn(self, s: GameState, ph: Phase) -> None:
        s.cup, s.activated, s.moved = [], set(), set()
        s.entering = {}
        s.hands = {k: [] for k in s.hands}
        s.active, s.phase = "", ""
        if not s.step.get("turn-end-checked"):
            self.checkpoint(s, "turn-end")
            if s.result is not None:
                return
            if s.effects:  # a turn-end effect asks a side: the turn ends after the answer
                s.step = {"turn-end-checked": True}
                return
        if s.turn >= self.scenario.last_turn:
            self.finish(s, "the last turn is over")
            return
        s.turn += 1
        self._release_due(s)
        s.log.append({"turn": s.turn, "event": "new turn"})
        s.step = {}
        s.pc += 1

    def _release_due(self, s: GameState) -> None:
        """The units due this turn (set up ``turn:N``) go into the first
        reinforcement pool (Smolensk 5.0(5))..."""
        pool = f"pool:{self.game.reinforcements.pools[0]}" if self.game.reinforcements.pools else ""
        waiting = {a.formation for a in self.game.arrivals.values() if a.formation}
        for u in list(s.units.values()):
            if u.box == f"turn:{s.turn}" and pool and self.game.counters[u.id].formation not in waiting:
                s.set_unit(u.id, box=pool)  # ...unless an arrival brings them (15.3(1): 19A)

    def _proc_roll(self, s: GameState, ph: Phase) -> None:
        """Roll on the phase's die tables (plus their modifiers); the result is
        logged and readable in expressions as rolled("table")."""
        s.pc += 1
        for tid in ph.params.get("die-table", ()):
            self.roll_die_table(s, tid)
        self.checkpoint(s, "roll")

    def _proc_event(self, s: GameState, ph: Phase) -> None:
        """The turn track's events for this turn: each event's ``do`` effects, in order."""
        s.pc += 1
        track = self.game.turn_track
        turn = next((t for t in track.turns if t.number == s.turn), None)
        for eid in (turn.values.get("events", ()) if turn else ()):
            ev = self.game.events[eid]
            s.log.append({"turn": s.turn, "event": eid, "title": ev.title})
            self.run_effects(s, f"event:{eid}", ev.title)

    def _proc_recover(self, s: GameState, ph: Phase) -> None:
        """Disrupted units in supply recover (8.0): those of the phase's side
        (or the active side) that its ``only`` / ``exclude`` selectors allow."""
        g = self.game
        side = ph.side or s.active
        only = frozenset(ph.params.get("only") or ())
        exclude = frozenset(ph.params.get("exclude") or ())
        sides = [side] if side and side != "both" else list(g.sides)
        for sd in sides:
            disrupted = sorted((u for u in s.units.values() if u.side == sd and u.hex is not None
                                and "disrupted" in u.markers), key=lambda x: x.id)
            if not disrupted:
                continue  # (no supply to work out for nobody)
            status = supply_status(g, self.board, s, sd)  # city supply counts (9.0)
            for u in disrupted:
                mine = g.selectors_of(u.id) | u.markers
                if (only and not only & mine) or exclude & mine:
                    continue
                if status.get(u.id):
                    s.unmark(u.id, "disrupted")
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
