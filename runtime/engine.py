"""The engine API: ``legal_actions(state)`` and ``apply(state, action)``.

The engine runs the segment a state is in: ``state.phase`` is "movement" or
"combat", ``state.active`` the side acting, ``state.activated`` the units
that may act (empty: every unit of the active side, as in a sandbox).  The
sequence of play (which segment comes next, chits, turns) drives these
fields from outside.

Decisions owed after a combat (which unit loses a step, which way a unit
retreats, who advances) wait in ``state.pending`` and come before anything
else; a decision with a single possible answer is taken automatically.
Every applied action and die roll goes into ``state.log``.
"""
from __future__ import annotations

from fractions import Fraction
from collections.abc import Sequence
from typing import Any, Callable, cast

from . import attachments as A
from . import expr as E
from .combat import firepower as F
from .combat.declare import CrtDeclarations
from .combat.order import DeclaredAttacks
from .combat.fire import FireAttacks
from .combat.dicepool.fight import DicePoolBattles, check_attack
from .action_lists import Moves
from .actions import (Action, Advance, Attack, Detach, Displace, Done, Hit, Hold, IllegalActionError, LoseStep, Move,
                      Retreat, SendBack, Use, parse_action, shortened)
from .board import Board
from .combat.modifiers import Env
from .combat.odds import code_at, combat_odds, resolve
from .definition import GameDefinition, MovementMode, ResultCode
from .hexes import Hex
from .movement import (SCALE, MoveError, carried_ranges, mode_by_id, move_range, ordered_destinations, overrun_hexes,
                       show_mp, why_not)
from .stacking import end_movement, judged_at_end, overstacked, return_to_box, send_back, stacking_bars
from .overrun import displace_hexes
from .retreat import advance_paths, retreat_paths
from .state import GameState, eliminate, fingerprint


_HALF = Fraction(1, 2)


def _allowed(selectors: frozenset[str], markers: frozenset[str], only, exclude) -> bool:
    """Whether a unit with these selectors and markers passes a phase's
    ``only`` and ``exclude`` lists (either may be empty or None)."""
    if only and selectors.isdisjoint(only) and markers.isdisjoint(only):
        return False
    return not exclude or (selectors.isdisjoint(exclude) and markers.isdisjoint(exclude))


# functions of the game's expressions that read the game, never the state
_GAME_FUNCTIONS = frozenset({"variant"})
_NAMES_ONLY: dict[int, tuple[object, bool]] = {}  # id(condition) -> (condition, ``_reads_names_only``)


def _reads_names_only(cond) -> bool:
    """Whether a condition reads nothing of a state but the names of
    ``env``: it calls no function but the builtins and those that read the
    game (``variant(...)``).  Such a condition (a movement mode's ``forbid
    ... when side == axis and weather == mud``) has the same value while the
    turn, phase, active side and variables stay (what the names read)."""
    hit = _NAMES_ONLY.get(id(cond))
    if hit is None or hit[0] is not cond:
        if len(_NAMES_ONLY) >= 1024:
            _NAMES_ONLY.clear()
        calls = [n.func for n in E.walk(cond) if isinstance(n, E.Call)]
        hit = _NAMES_ONLY[id(cond)] = (cond, all(f in _GAME_FUNCTIONS or f in E.BUILTINS for f in calls))
    return hit[1]


class Engine:
    def __init__(self, game: GameDefinition, board: Board | None = None):
        self.game = game
        self.board = board or Board(game)
        self.battles = F.FirepowerBattles(self)
        self.declare = CrtDeclarations(self)  # decisions before the roll on a CRT
        # attacks declared before the first is rolled (combat { declare-first }: Smolensk 10.2(1))
        self.declarations = DeclaredAttacks(self) if game.combat.declare_first else None
        self.fire = FireAttacks(self)  # attacks by fire on a fixed column, granted by a fire effect
        self.dicepool = DicePoolBattles(self) if game.dice_pool is not None else None  # dice-pool battles
        self.declared = game.declared_ids()  # ids as expression names: fixed for the game
        self._selections: dict[tuple, tuple[frozenset[str], frozenset[str]]] = {}  # (only, exclude) -> ``_selected``
        self._order = {cid: i for i, cid in enumerate(game.counters)}  # counter -> its place in ``state.units``
        self._immobile = frozenset(cid for cid, c in game.counters.items()  # counters of an immobile class
                                   if "immobile" in game.unit_classes[c.unit_class].flags)
        self.controllable = frozenset(h for h, mh in self.board.map.hexes.items()
                                      if game.control_hexes == "all" or mh.features or mh.vp)
        # names and functions for the game's expressions (the runner supplies the full set)
        self.env: Callable[[GameState], Env] = self._plain_env
        # (condition, the turn, phase, active side, variables and names bound) -> (condition, value), for
        # conditions that read only names (``_reads_names_only``): the names of ``env`` read nothing else
        self._names_memo: dict[tuple, tuple] = {}
        # condition results while one state's actions are listed (``_forbids``); None outside
        self._memo: dict | None = None
        # (state, its step, fingerprint, answers, the conditions evaluated listing them (_forbids) or None):
        # the answers listed last, which ``apply`` checks an answer to that state against
        self._listed: tuple | None = None
        # called after each firepower battle with (state, outcome, attacker, defender, winner): 11.1's failed attacks
        self.on_battle: Callable[[GameState, str, str, str, str], None] | None = None
        # runs a CRT result's effects (``results { on CODE { ... } }``) with (state, effects key, why)
        self.on_result: Callable[[GameState, str, str], None] | None = None
        # called with (state, unit, the hexes it entered in order) after a move, a retreat or an
        # advance: the ``enter-each`` checkpoint (AVD 移动 1 g-h: every star hex entered)
        self.on_enter: Callable[[GameState, str, list], None] | None = None

    def _plain_env(self, s: GameState) -> Env:
        g = self.game
        weather = g.turn_track.turn(s.turn).values.get("weather") if g.turn_track.turns else None
        names: dict = dict(self.declared)
        names.update({"turn": s.turn, "weather": weather or "", "active": s.active, "side": s.active})
        return names, {"variant": lambda v: v in g.active_variants}

    def _true(self, s: GameState, cond, **bound) -> bool:
        if cond is None:
            return True
        if _reads_names_only(cond):  # (the same while the names stay: kept from state to state)
            key = (id(cond), s.turn, s.phase, s.active, tuple(s.variables.items()), tuple(bound.items()))
            try:
                hit = self._names_memo.get(key)
            except TypeError:  # (a variable or a bound name holding a list: not kept)
                return self._evaluate(s, cond, bound)
            if hit is not None and hit[0] is cond:
                return hit[1]
            if len(self._names_memo) >= 256:
                self._names_memo.clear()
            value = self._evaluate(s, cond, bound)
            self._names_memo[key] = (cond, value)
            return value
        return self._evaluate(s, cond, bound)

    def _evaluate(self, s: GameState, cond, bound: dict) -> bool:
        names, fns = self.env(s)  # (names: shared, so copied before binding more)
        if bound:
            names = {**names, **bound}
        return E.evaluate(cond, names, fns) is True

    # ---------------------------------------------------------- helpers
    def hex(self, text: str) -> Hex:
        try:
            h = self.board.parse(text)
        except ValueError as e:
            raise E.without_context(IllegalActionError(str(e)))
        if h not in self.board:
            raise IllegalActionError(f"{text} is not in play")
        return h

    def unit(self, state: GameState, uid: str):
        u = state.units.get(uid)
        if u is None:
            raise IllegalActionError(f"there is no unit {shortened(uid, 40)}")
        return u

    def can_act(self, state: GameState, uid: str) -> bool:
        u = state.units[uid]
        return u.hex is not None and u.side == state.active and (not state.activated or uid in state.activated) \
            and not self.phase_bars(state, uid)

    def actors(self, state: GameState) -> list[str]:
        """The units that may act now (``can_act``), in the order of
        ``state.units``, with the phase's bars asked only of the active
        side's units on the map (of the activated ones, when some are)."""
        active, activated = state.active, state.activated
        st = state.step
        only, exclude, limit = st.get("only"), st.get("exclude"), st.get("limit")
        units = state.units
        # the activated units (a chit's, in a chit-pull game), in the order of ``state.units``: the
        # counters' order, which a state keeps (``new_state`` enters every counter; none is taken out)
        pairs = [(x, units[x]) for x in sorted(activated, key=self._order.__getitem__)] if activated \
            else units.items()
        if not (only or exclude):
            out = [x for x, u in pairs if u.side == active and u.hex is not None]
        else:
            # (phase_bars' test of only and exclude, without its messages: by the counters' selectors
            # worked out once, then by the markers of those that have some)
            chosen, barred = self._selected(only, exclude)
            ex = exclude or ()
            out = [x for x, u in pairs if u.side == active and u.hex is not None and x not in barred
                   and (not u.markers or u.markers.isdisjoint(ex))
                   and (x in chosen or not u.markers.isdisjoint(only or ()))]
        if limit and state.phase == "movement" and len({x for x in state.moved if "@" not in x}) >= int(limit):
            out = [x for x in out if x in state.moved]  # (phase_bars' test of the limit: the units that moved go on)
        return out

    def _selected(self, only, exclude) -> tuple[frozenset[str], frozenset[str]]:
        """For a phase's ``only`` and ``exclude`` lists (``actors``): the
        counters whose selectors meet ``only`` (all, without one), and those
        whose selectors meet ``exclude``; worked out once per pair of lists."""
        key = (tuple(only or ()), tuple(exclude or ()))
        hit = self._selections.get(key)
        if hit is None:
            sel = self.game.selectors_of
            ids = self.game.counters
            chosen = frozenset(x for x in ids if not only or not sel(x).isdisjoint(only))
            barred = frozenset(x for x in ids if exclude and not sel(x).isdisjoint(exclude))
            hit = self._selections[key] = (chosen, barred)
        return hit

    def phase_bars(self, state: GameState, uid: str) -> str:
        """Why the current phase does not let ``uid`` act ("" if it does): its
        ``only`` / ``exclude`` selectors (classes, flags, nationalities, or a
        state such as disrupted) and its ``limit`` of units."""
        st = state.step
        only, exclude, limit = st.get("only"), st.get("exclude"), st.get("limit")
        if not (only or exclude or limit):
            return ""
        sel, markers = self.game.selectors_of(uid), state.units[uid].markers
        if not _allowed(sel, markers, only, None):
            return f"{uid} may not act in this phase: only {', '.join(only or ())} units do"
        if not _allowed(sel, markers, None, exclude):
            return f"{uid} may not act in this phase: it is {', '.join(sorted((sel | markers) & set(exclude or ())))}"
        if limit and state.phase == "movement" and uid not in state.moved and \
                len({x for x in state.moved if "@" not in x}) >= int(limit):
            return f"{uid} cannot move: at most {limit} units move in this phase"
        return ""

    def mode_bars(self, state: GameState, uid: str, mode: str) -> str:
        """Why ``uid`` may not make a move of ``mode`` ("" or "normal" for a
        normal move) now ("" if it may): the phase's modes, whether it moved
        already (a mode that ``follows normal`` continues a normal move that
        did not attack), and the mode's ``forbid`` conditions."""
        allowed = state.step.get("modes")
        name = mode or "normal"
        m = mode_by_id(self.game, mode) if mode else None
        if allowed is not None and name not in allowed:
            return f"{uid} cannot {'use ' + m.title if m is not None else 'move normally'} in this phase"
        moved = state.moved
        if m is not None and m.follows and (allowed is None or "normal" in allowed):
            if f"{uid}@normal" not in moved:
                return f"{uid} cannot use {m.title}: it continues a normal move, and {uid} has not moved"
            if f"{uid}@attack" in moved:
                return f"{uid} cannot use {m.title}: it attacked"
            if f"{uid}@{m.id}" in moved:
                return f"{uid} has already used {m.title}"
            if state.step.get("last-moved") != uid:  # Barbarossa 6.1: one unit's move ends before the next starts
                return f"{uid} cannot use {m.title}: its move ended when {state.step.get('last-moved')} moved"
        elif uid in moved:
            return f"{uid} has already moved in this {'activation' if state.activated else 'phase'}"
        if m is not None and m.forbid:
            mine, side = self.game.selectors_of(uid), state.units[uid].side
            for sel, cond, title in m.forbid:
                if not sel.isdisjoint(mine) and self._forbids(state, cond, side):
                    return f"{uid} may not use {m.title}" + (f": {title}" if title else "")
        return ""

    def _forbids(self, state: GameState, cond, side: str) -> bool:
        """A mode's ``forbid`` condition for a unit of ``side``: the same for
        every unit of the side, so while legal_actions lists one state's
        moves each condition is evaluated once per side."""
        memo = self._memo
        if memo is None:
            return self._true(state, cond, side=side)
        key = (id(cond), side)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = self._true(state, cond, side=side)
        return hit

    def no_attack_after_move(self, state: GameState, uid: str) -> str:
        """Why ``uid`` may not attack after the move it made ("" if it may): a
        movement mode with ``no-attack`` (strategic movement)."""
        for m in self.game.movement.modes:
            if m.no_attack and f"{uid}@{m.id}" in state.moved and self.game.matches(uid, m.no_attack):
                return f"{uid} cannot attack: it moved by {m.title}"
        return ""

    def immobile(self, uid: str) -> bool:
        return uid in self._immobile

    def _matches(self, uid: str, selectors: frozenset[str]) -> bool:
        return self.game.matches(uid, selectors)

    def pass_through(self, state: GameState, side: str, hexes) -> None:
        """A hex belongs to the side whose unit last passed through it (3.4);
        the turn it changed hands is kept (15.5(4) pays by capture turn).  A
        hex that still holds enemy units (a battle hex) does not change hands."""
        when = None  # (worked out for the first hex that changes hands)
        for h in hexes:
            if any(u.side != side for u in state.units_at(h)):
                continue
            if state.control.get(h) != side:
                if when is None:  # a hex taken after this turn's supply check counts half a turn later
                    when = state.turn + (_HALF if f"supply@{state.turn}" in state.done else 0)
                state.control[h] = side
                state.control_since[h] = when
                state.version += 1  # lines through controlled hexes (Barbarossa 9.0) depend on it
                state.touch(h, control=True)  # and moves that keep to the side's own hexes (Barbarossa 10.0)

    def record(self, state: GameState, action: Action, side: str = "", **extra: object) -> None:
        entry: dict = {"turn": state.turn, "phase": state.phase, "side": side or state.active, "action": str(action)}
        entry.update(extra)
        state.log.append(entry)

    def lose_step(self, state: GameState, uid: str) -> None:
        u = state.units[uid]
        if A.host_of(state, uid) is not None:  # a loss taken on an attachment (GJ63 13.0(2)3)
            A.remove(self.game, state, uid, "a step loss")
            return
        steps = len(self.game.counters[uid].steps)
        if u.step + 1 < steps:
            state.set_unit(uid, step=u.step + 1)
            if uid in state.attached:  # a reduced unit may carry fewer
                A.fit(self.game, state, uid)
        else:
            box = eliminate(self.game, state, uid)
            state.log.append({"eliminated": uid, "to": box})

    # ---------------------------------------------------------- queries
    def legal_actions(self, state: GameState) -> Sequence[Action]:
        if state.pending:
            listed = self._listed
            if listed is not None and listed[0] is state and listed[1] is state.step and \
                    listed[2] == fingerprint(state):
                return listed[3]  # (listed while settling the state: ``note_answers``)
            acts: Sequence[Action] = self._pending_actions(state)
            self._listed = (state, state.step, fingerprint(state), acts, None)
            return acts
        if state.phase == "movement":
            memo: dict = {}  # conditions evaluated once for this state (it does not change meanwhile)
            self._memo = memo
            try:
                acts = cast(Sequence[Action], self._move_actions(state))  # (an ActionList, registered as a Sequence)
            finally:
                self._memo = None
            self._listed = (state, state.step, fingerprint(state), acts, memo)  # (apply checks a move with them)
            return acts
        if state.phase == "combat":
            if self.game.combat.procedure == "firepower":
                battles = self.battle_hexes(state)
                return [Attack(self.board.hex_id(h), tuple(sorted(u.id for u in state.units_at(h)
                                                                    if u.side == state.active)))
                        for h in battles] + ([] if battles else [Done()])
            return self._attack_actions(state) + [Done()]
        return []

    def note_answers(self, state: GameState, acts: list[Action]) -> None:
        """The answers to the decision due in ``state`` (pending), as they were
        just worked out to settle it: listing them again reads these while
        the state stays as it is (its fingerprint)."""
        self._listed = (state, state.step, fingerprint(state), acts, None)

    def _move_actions(self, state: GameState) -> Moves:
        """Every move of every unit that may move now, unit by unit (normal
        moves, then each mode's further destinations), then 'done'; the
        Move actions are built when read."""
        groups: list[tuple[str, str, Sequence[Hex]]] = []
        exits: list[Action] = []
        allowed = state.step.get("modes")  # (mode_bars bars the others: not asked of every unit)
        normal_allowed = allowed is None or "normal" in allowed
        modes = [m for m in self.game.movement.modes if allowed is None or m.id in allowed]
        # a mode that continues a normal move is open only to the unit that moved last (mode_bars)
        last = state.step.get("last-moved")
        later = [m for m in modes if not (m.follows and normal_allowed)]
        game, board, moved = self.game, self.board, state.moved
        ranges = carried_ranges(game, board, state, state.active)  # (the actors' side)
        for uid in self.actors(state):
            if uid in self._immobile:
                continue
            normal: frozenset[Hex] = frozenset()
            if normal_allowed and uid not in moved:  # (mode_bars' test of a normal move)
                r = move_range(game, board, state, uid, ranges=ranges)
                normal = r.destinations
                if normal:
                    groups.append((uid, "", ordered_destinations(r)))
                for pool in self._exits(uid, r) if self.game.movement.exits else ():
                    if self.exit_open(state, pool):
                        exits.append(Move(uid, pool))
            for m in modes if uid == last else later:
                if self.mode_bars(state, uid, m.id):
                    continue
                try:
                    r = move_range(game, board, state, uid, m.id, ranges=ranges)
                except MoveError:
                    continue
                if not normal:  # (every destination is new: in the order kept with the search)
                    if r.destinations:
                        groups.append((uid, m.id, ordered_destinations(r)))
                    continue
                extra = r.destinations - normal
                if extra:
                    groups.append((uid, m.id, sorted(extra)))
        tail: list[Action] = exits + (self._detach_actions(state) if state.attached else [])
        if not (judged_at_end(self.game) and self._unstack_first(state, {g[0] for g in groups})):
            tail.append(Done())
        return Moves(groups, tail, self.board.hex_id, self.board.parse)

    def _unstack_first(self, state: GameState, movers: set[str]) -> bool:
        """``stacking { judged end }``: does a hex of the moving side stand over
        a limit with a unit there that may still move out (then the movement
        may not end)?"""
        return any(x in movers for h in overstacked(self.game, state, state.active) for x in state.occupants[h])

    def _exits(self, uid: str, r) -> dict[str, Hex]:
        """The boxes ``uid`` may move into off the map (movement { exit AREA to
        POOL by ... }: AVD 移动 1 d), each with the hex of the area it leaves
        from: the cheapest it reaches with at least 1 MP left (then the hex id)."""
        out: dict[str, Hex] = {}
        for area, pool, sel in self.game.movement.exits:
            if pool in out or not self._matches(uid, sel):
                continue
            edge = [h for h in self.board.map.areas.get(area, ()) if h in r.cost and (h in r.prev or h == r.start)
                    and r.mp - r.cost[h] >= SCALE]
            if edge:
                out[pool] = min(edge, key=lambda h: (r.cost[h], self.board.hex_id(h)))
        return out

    def exit_open(self, s: GameState, pool: str) -> bool:
        """Whether the box may be entered now (``exit ... when CONDITION``)."""
        return all(self._true(s, cond) for p, cond in self.game.movement.exit_when if p == pool)

    def _exit(self, s: GameState, a: Move) -> None:
        """A move off the map into a box (``_exits``)."""
        if not self.exit_open(s, a.to):
            raise IllegalActionError(f"{a.unit} cannot move into {a.to}: it is closed now")
        r = move_range(self.game, self.board, s, a.unit)
        edge = self._exits(a.unit, r).get(a.to)
        if edge is None:
            mine = [(area, sel) for area, pool, sel in self.game.movement.exits if pool == a.to]
            areas = [area for area, sel in mine if self._matches(a.unit, sel)]
            if not areas:
                raise IllegalActionError(f"{a.unit} cannot move into {a.to}: only "
                                         f"{', '.join(sorted(set().union(*(sel for _, sel in mine))))} units may")
            raise IllegalActionError(f"{a.unit} cannot move into {a.to}: it must reach a hex of "
                                     f"{' or '.join(areas)} with 1 MP left")
        path = r.path_to(edge)
        u = s.units[a.unit]
        over = overrun_hexes(self.game, s, a.unit)
        s.place(a.unit, None, f"pool:{a.to}")
        s.moved.update((a.unit, f"{a.unit}@normal"))
        s.step = dict(s.step, **{"last-moved": a.unit})
        overrun = self.overrun_along(s, a.unit, path[1:], over)
        self.pass_through(s, u.side, path[1:])
        more: dict[str, Any] = {"overrun": overrun} if overrun else {}
        self.record(s, a, path=[self.board.hex_id(h) for h in path] + [a.to], mp=str(r.mp_to(edge) + 1), **more)
        if self.on_enter is not None:
            self.on_enter(s, a.unit, path[1:] + [a.to])

    def battle_report(self, s: GameState, p: dict | None = None, target: Hex | None = None) -> F.BattleReport:
        """The firepower of the battle pending now (``p``), or of the battle in
        ``target`` as it stands (the editor's panel, the greedy bot)."""
        return self.battles.report(s, p, target)

    def battle_hexes(self, state: GameState) -> list[Hex]:
        """Hexes where the active side's units stand with enemy units: every
        one must be fought before the combat phase ends (Barbarossa 7.0)."""
        units, active = state.units, state.active
        out = []
        for h, ids in state.occupants.items():
            if len(ids) > 1:  # (a lone unit is no battle: most hexes are passed over here)
                sides = {units[x].side for x in ids}
                if len(sides) > 1 and active in sides:
                    out.append(h)
        return sorted(out)

    def _attack_actions(self, state: GameState) -> list[Action]:
        targets: dict[Hex, list[str]] = {}
        units = state.units
        for uid in self.actors(state):  # (the units that ``can_act``, in order)
            u = units[uid]
            if u.hex is None or uid in state.attacked or self.immobile(uid) or self.no_attack_after_move(state, uid):
                continue
            for n, _ in self.board.adj[u.hex]:
                other = state.side_at(n)
                if other is not None and other != u.side and n not in state.attacked_hexes:
                    targets.setdefault(n, []).append(uid)
        out: list[Action] = []
        for h in sorted(targets):
            group_units = sorted(targets[h])
            options = [tuple(group_units)] + ([(x,) for x in group_units] if len(group_units) > 1 else [])
            for group in options:
                if self.dicepool is not None:  # a dice-pool battle: any adjacent group may attack
                    out.append(Attack(self.board.hex_id(h), group))
                    continue
                rep = combat_odds(self.game, self.board, state, list(group), h, env=self.env)
                if rep.legal:
                    out.append(Attack(self.board.hex_id(h), group))
        return out

    def _pending_actions(self, state: GameState) -> list[Action]:
        p = state.pending[0]
        if p["kind"] == "battle":
            return self.battles.actions(state, p)
        if p["kind"] == "declare":
            return self.declare.actions(state, p)
        if p["kind"] == "dice-pool" and self.dicepool is not None:
            return self.dicepool.actions(state, p)
        if p["kind"] == "crt-order" and self.declarations is not None:
            return self.declarations.actions(state, p)
        if p["kind"] == "loss":
            alive = self.loss_takers(state, p["units"])
            return [LoseStep(u) for u in alive + A.loss_options(self.game, state, alive)]
        if p["kind"] == "retreat":
            return [Retreat(p["unit"], tuple(self.board.hex_id(h) for h in path.hexes) if not path.destroyed else ())
                    for path in self._retreat_options(state, p)]
        if p["kind"] == "hold":
            return [Hold(), Done()]
        if p["kind"] == "follow":
            return self._follow_options(state, p)
        if p["kind"] == "displace":
            return [Displace(p["unit"], h) for h in p["hexes"]]
        if p["kind"] == "send-back":  # 3.4(4): which of the units that cannot enter goes back
            return [SendBack(u) for u in p["units"]]
        if p["kind"] == "advance":
            target = self.board.parse(p["hex"])
            out: list[Action] = [Done()]
            for uid in p["units"]:
                if uid in p["advanced"] or state.units[uid].hex is None:
                    continue
                for path in advance_paths(self.game, self.board, state, uid, target):
                    out.append(Advance(uid, tuple(self.board.hex_id(h) for h in path)))
            follows = self.game.advance.follows
            for frm, went in p.get("trail", ()) if follows else ():  # 7 iv: an HQ goes with a unit that left its hex
                end = self.board.parse(went[-1])
                for x in state.units_at(self.board.parse(frm)):
                    if x.side == state.active and x.id not in p["advanced"] and self._matches(x.id, follows) \
                            and not stacking_bars(self.game, state, end, x.id):
                        out.append(Advance(x.id, tuple(went)))
            return out
        raise AssertionError(p)

    def loss_takers(self, state: GameState, units: list[str]) -> list[str]:
        """The units of a loss decision that may take the step: on the map,
        and not among those the combat rules spare (combat { no-losses }: AVD's HQs)."""
        spared = self.game.combat.no_losses
        return [u for u in units if state.units[u].hex is not None and not (spared and self._matches(u, spared))]

    def _follow_options(self, state: GameState, p: dict) -> list[Action]:
        """The retreats a follower (AVD 6 c: an HQ) may make: the path of each
        stack-mate that retreated and stands at its end, where it fits."""
        out: list[Action] = []
        for mover, path in p["paths"]:
            end = self.board.parse(path[-1])
            if state.units[mover].hex == end and not stacking_bars(self.game, state, end, p["unit"]):
                act = Retreat(p["unit"], tuple(path))
                if act not in out:
                    out.append(act)
        return out

    def _retreat_options(self, state: GameState, p: dict):
        return retreat_paths(self.game, self.board, state, p["unit"], p["hexes"], p["enemy"])

    def explain(self, state: GameState, action: Action | str) -> str | None:
        """Why ``action`` is illegal now, or None when it is legal."""
        try:
            self.apply(state, action)
        except IllegalActionError as e:
            return str(e)
        return None

    # ---------------------------------------------------------- apply
    def apply(self, state: GameState, action: Action | str) -> GameState:
        """A new state with ``action`` applied.  Raises IllegalActionError."""
        if isinstance(action, str):
            action = parse_action(action)
        listed = self._listed  # the answers listed for this very state, and the conditions they evaluated
        legal, memo = listed[3:] if listed is not None and listed[0] is state and listed[1] is state.step and \
            listed[2] == fingerprint(state) else (None, None)
        s = state.copy()
        if s.pending:
            self._apply_pending(s, action, legal)
        elif isinstance(action, Move):
            self._move(s, action, memo, legal if isinstance(legal, Moves) else None)
        elif isinstance(action, Detach):
            self._detach(s, action)
        elif isinstance(action, Attack):
            self._attack(s, action)
        elif isinstance(action, Done):
            if s.phase not in ("movement", "combat"):
                raise IllegalActionError("there is no segment to end")
            if s.phase == "combat" and self.dicepool is not None and s.step.get("declared"):
                self.record(s, action)  # every attack is declared: the battles are fought (9.2(3))
                self.dicepool.fight_declared(s)
                self._settle(s)
                return s
            if s.phase == "combat" and self.declarations is not None and s.step.get("declared"):
                self.record(s, action)  # every attack is declared: the attacker fights them in turn (10.2(1))
                self.declarations.close(s)
                self._settle(s)
                return s
            if s.phase == "combat" and self.game.combat.procedure == "firepower" and self.battle_hexes(s):
                raise IllegalActionError("every battle must be fought before the combat phase ends: "
                                         + ", ".join(self.board.hex_id(h) for h in self.battle_hexes(s)))
            if s.phase == "movement" and judged_at_end(self.game):  # 3.4(4): judged at the end of movement
                movers: set[str] = set()
                if overstacked(self.game, s, s.active):
                    offered = self.legal_actions(s)
                    if isinstance(offered, Moves):
                        movers = {g[0] for g in offered.groups}
                why = end_movement(self.game, s, movers, self.board.hex_id)
                if why:
                    raise IllegalActionError(why)
                if s.pending:  # its owner sends back a unit that cannot enter: the movement ends after
                    self.record(s, action)
                    return s
            self.record(s, action)
            s.phase = "combat" if s.phase == "movement" else ""
        else:
            raise IllegalActionError(f"'{action}' answers a decision, but none is pending")
        self._settle(s)
        return s

    def _move(self, s: GameState, a: Move, memo: dict | None = None, legal: Moves | None = None) -> None:
        """``memo``, ``legal``: the conditions evaluated listing the moves of
        the state ``s`` was copied from, and the moves listed: a move listed
        is not judged again (the list holds exactly the moves these checks
        let through)."""
        listed = legal is not None and a in legal
        u = s.units[a.unit] if listed else self._unit_to_move(s, a, memo)
        if a.to in self.game.pools and any(pool == a.to for _, pool, _ in self.game.movement.exits):
            if a.mode:
                raise IllegalActionError(f"{a.unit} moves into {a.to} by a normal move only")
            self._exit(s, a)
            return
        dest = self.hex(a.to)
        if not listed:
            reason = why_not(self.game, self.board, s, a.unit, dest, a.mode or None)
            if reason:
                raise IllegalActionError(reason)
        r = move_range(self.game, self.board, s, a.unit, a.mode or None)
        path = r.path_to(dest)
        over = overrun_hexes(self.game, s, a.unit)
        attack = dest not in over and any(x.side != u.side for x in s.units_at(dest))
        s.place(a.unit, dest)
        if s.attached:
            A.left_behind(self.game, s, a.unit, "moves")
        s.moved.update((a.unit, f"{a.unit}@{a.mode or 'normal'}"))
        s.step = dict(s.step, **{"last-moved": a.unit})  # a move that continues this one must come next
        if attack:  # an attack by moving in (Barbarossa 6.3): fought in the combat phase
            s.attack_from[a.unit] = path[-2]
            s.moved.add(f"{a.unit}@attack")
        overrun = self.overrun_along(s, a.unit, path[1:], over)
        self.pass_through(s, u.side, path[1:])
        more: dict[str, Any] = {"attacks": a.to} if attack else {}
        if overrun:
            more["overrun"] = overrun
        self.record(s, a, path=[self.board.hex_id(h) for h in path], mp=show_mp(r.cost_to(dest)), **more)
        m = mode_by_id(self.game, a.mode) if a.mode else None
        if m is not None:
            self._mode_markers(s, a.unit, m)
        if self.on_enter is not None:
            self.on_enter(s, a.unit, path[1:])

    def _unit_to_move(self, s: GameState, a: Move, memo: dict | None):
        """The unit ``a`` moves; IllegalActionError when the move may not be
        made now for what bars the unit itself (the segment, its side, its
        activation, the phase's and the mode's bars), before where it goes
        is judged."""
        if s.phase != "movement":
            raise IllegalActionError(f"{a.unit} cannot move now: it is not a movement segment")
        u = self.unit(s, a.unit)
        if u.side != s.active:
            raise IllegalActionError(f"{a.unit} cannot move: it is {u.side}'s unit and {s.active} is moving")
        if s.activated and a.unit not in s.activated:
            raise IllegalActionError(f"{a.unit} cannot move: it is not activated")
        if u.hex is None:
            raise IllegalActionError(f"{a.unit} is not on the map")
        if a.mode and a.mode not in {m.id for m in self.game.movement.modes}:
            raise IllegalActionError(f"this game has no movement mode '{a.mode}'")
        self._memo = memo
        try:
            reason = self.phase_bars(s, a.unit) or self.mode_bars(s, a.unit, a.mode)
        finally:
            self._memo = None
        if reason:
            raise IllegalActionError(reason)
        if self.immobile(a.unit):
            raise IllegalActionError(f"{a.unit} cannot move")
        return u

    def overrun_along(self, s: GameState, uid: str, hexes, over: frozenset[Hex]) -> dict[str, str]:
        """The lone enemy units in the ``over`` hexes (``overrun_hexes``) among
        ``hexes``, which ``uid`` passed through, are displaced toward their
        supply or eliminated (AVD 4 e-f; 6 f, 7 v: by a retreat or an advance):
        {overrun unit: its new hex id or "eliminated"}."""
        out: dict[str, str] = {}
        side = s.units[uid].side
        for h in hexes if over else ():
            if h in over:
                for x in [x.id for x in s.units_at(h) if x.side != side]:
                    out[x] = self.displace(s, x)
        return out

    def displace(self, s: GameState, uid: str) -> str:
        """Displace ``uid`` (movement { overrun ... displace N }): its new hex
        id, "eliminated" when no hex qualifies, or "its owner chooses" when
        several do (a "displace" decision comes next, before anything else)."""
        here = s.units[uid].hex
        from_id = self.board.hex_id(here) if here is not None else ""
        hexes = displace_hexes(self.game, self.board, s, uid)
        if not hexes:
            eliminate(self.game, s, uid, "overrun")
            return "eliminated"
        if len(hexes) == 1:
            s.place(uid, hexes[0])
            return self.board.hex_id(hexes[0])
        s.pending.insert(0, {"kind": "displace", "unit": uid, "side": s.units[uid].side, "from": from_id,
                             "hexes": [self.board.hex_id(h) for h in hexes]})
        return "its owner chooses"

    def alone(self, s: GameState, h: Hex, follows: frozenset[str]) -> list[str]:
        """The ``follows`` units in ``h`` with no other friendly unit there."""
        here = s.units_at(h)
        fol = [x.id for x in here if self._matches(x.id, follows)]
        if fol and all(x.id in fol for x in here):
            return fol
        return []

    # ---------------------------------------------------------- detachments
    def _detach_actions(self, state: GameState) -> list[Action]:
        """Counters under units that may act now which may leave them as units
        (``converts``): every hex each could move to from its host's hex."""
        out: list[Action] = []
        for host, ids in sorted(state.attached.items()):
            if state.units[host].hex is None or not self.can_act(state, host):
                continue
            for aid in ids:
                if not A.converts(self.game, aid) or self.mode_bars(state, aid, ""):
                    continue
                t = state.copy()
                A.convert(self.game, t, aid)
                if self.phase_bars(t, aid):
                    continue
                dests = move_range(self.game, self.board, t, aid).destinations
                out.extend(Detach(aid, self.board.hex_id(h)) for h in sorted(dests))
        return out

    def _detach(self, s: GameState, a: Detach) -> None:
        if s.phase != "movement":
            raise IllegalActionError(f"{a.unit} cannot leave its unit now: it is not a movement segment")
        self.unit(s, a.unit)
        host = A.host_of(s, a.unit)
        if host is None:
            raise IllegalActionError(f"{a.unit} is not under a unit")
        if not A.converts(self.game, a.unit):
            raise IllegalActionError(f"{a.unit} cannot leave {host} as a unit of its own")
        if s.units[host].hex is None:
            raise IllegalActionError(f"{host} is not on the map")
        if not self.can_act(s, host):
            raise IllegalActionError(f"{a.unit} cannot leave {host}: {host} cannot act now")
        A.convert(self.game, s, a.unit)
        if host in s.activated:
            s.activated.add(a.unit)
        self._move(s, Move(a.unit, a.to))

    def _mode_markers(self, s: GameState, uid: str, m: MovementMode) -> None:
        """Markers a unit gets for moving in a mode (a strategic move disrupts;
        Barbarossa 6.2: infantry forced-marching in mud or snow is disrupted)."""
        mine = self.game.selectors_of(uid)
        for marker, sel, cond in m.marks:
            if sel & mine and self._true(s, cond, side=s.units[uid].side) and marker not in s.units[uid].markers:
                s.mark(uid, marker)
                s.log.append({"turn": s.turn, "marker": marker, "unit": uid, "for": m.title})

    def _attack(self, s: GameState, a: Attack) -> None:
        if s.phase != "combat":
            raise IllegalActionError("no attack now: it is not a combat segment")
        if self.game.combat.procedure == "firepower":
            self.battles.start(s, a)
            return
        target = self.hex(a.target)
        for uid in a.attackers:
            self.unit(s, uid)
            if s.units[uid].side != s.active:
                raise IllegalActionError(f"{uid} cannot attack: it is {s.units[uid].side}'s unit")
        for uid in a.attackers:
            if self.immobile(uid):  # a fortress marker neither moves nor attacks (14.3(1))
                raise IllegalActionError(f"{uid} cannot attack: it never moves or attacks")
            reason = self.phase_bars(s, uid) or self.no_attack_after_move(s, uid)
            if reason:
                raise IllegalActionError(reason)
        if len(set(a.attackers)) != len(a.attackers):
            twice = next(u for u in a.attackers if a.attackers.count(u) > 1)
            raise IllegalActionError(f"{twice} is named twice among the attackers")
        if self.dicepool is not None:
            check_attack(self, s, list(a.attackers), target)
            if self.game.dice_pool is not None and self.game.dice_pool.order_battles:
                self.dicepool.declare(s, a)
            else:
                self.dicepool.start(s, a)
            return
        rep = combat_odds(self.game, self.board, s, list(a.attackers), target, env=self.env)
        if rep.errors:
            raise IllegalActionError(rep.errors[0])
        if rep.column.column is None:
            raise IllegalActionError(f"no attack on {a.target} at these odds: {rep.column.reason}")
        if self.declarations is not None:  # fought once every attack is declared (10.2(1))
            self.declarations.declare(s, a)
            return
        self.fight_odds(s, a, rep)

    def fight_odds(self, s: GameState, a: Attack, rep) -> None:
        """An attack on the CRT whose odds ``rep`` allow it: the sides'
        decisions before the roll, or the roll."""
        if self.declare.start(s, a.target, list(a.attackers), s.units_at(self.hex(a.target))[0].side):
            return  # the sides' decisions before the roll come first
        self.roll_attack(s, a.target, list(a.attackers), [], rep)

    def roll_attack(self, s: GameState, hex_id: str, attackers: list[str], options: list[tuple[int, str]],
                    rep=None, rolls: int = 0) -> None:
        """Roll an attack on the CRT and queue its results; ``options``: the
        column shifts of the battle options the sides used (title, columns).
        ``rolls``: how many times a result's ``reroll`` rolled it already."""
        a = Attack(hex_id, tuple(attackers))
        target = self.hex(hex_id)
        if rolls:  # the same attack again: its units and hex have attacked only once
            s.attacked.difference_update(attackers)
            s.attacked_hexes.discard(target)
        if rep is None:
            rep = combat_odds(self.game, self.board, s, attackers, target, env=self.env, options=options)
        if not rep.legal:  # the defender's options left no attack
            s.attacked.update(attackers)
            s.attacked_hexes.add(target)
            s.log.append({"turn": s.turn, "side": s.active, "attack": hex_id, "called-off": rep.validate})
            return
        crt = rep.crt
        die_total = s.roll(rep.die, f"combat at {a.target}")
        result = resolve(crt, rep.column.index, die_total + rep.drm, self.game)
        s.attacked.update(a.attackers)
        s.attacked_hexes.add(target)
        drm = {"drm": rep.drm} if rep.drm else {}
        if rolls:  # the same attack rolled again (a result's reroll): not a new action
            s.log.append({"turn": s.turn, "side": s.active, "reroll": hex_id, "attackers": list(attackers),
                          "odds": f"{rep.attack}-{rep.defence}", "column": rep.column.label, "die": die_total,
                          **drm, "result": result.code})
        else:
            self.record(s, a, odds=f"{rep.attack}-{rep.defence}", column=rep.column.label, die=die_total, **drm,
                        result=result.code)
        key = f"result:{crt.results}:{result.code}"
        if self.on_result is not None and self.game.effects.get(key) and rolls < 20:
            s.pending.insert(0, {"kind": "result", "hex": hex_id, "attackers": list(attackers),
                                 "options": [list(o) for o in options], "column": rep.column.index,
                                 "crt": crt.id, "code": result.code, "rolls": rolls, "then": "", "row": 0})
            self.on_result(s, key, f"{result.title or result.code} ({result.code}) at {hex_id}")
            return
        self.queue_result(s, hex_id, list(attackers), result)

    def queue_result(self, s: GameState, hex_id: str, attackers: list[str], result) -> None:
        """The decisions a CRT result brings: the sides' step losses, the
        retreats, then the attackers' advance into a vacated hex."""
        a = Attack(hex_id, tuple(attackers))
        defenders = [u.id for u in s.units_at(self.hex(hex_id))]
        if not defenders:
            return
        att_side = s.active
        def_side = s.units[defenders[0]].side
        if result.attacker_loss:
            s.pending.append({"kind": "loss", "side": att_side, "steps": result.attacker_loss,
                              "units": list(a.attackers)})
        if result.defender_loss:
            s.pending.append({"kind": "loss", "side": def_side, "steps": result.defender_loss, "units": defenders})
        if result.defender_retreat:
            s.pending.append({"kind": "retreat-all", "units": defenders, "hexes": result.defender_retreat,
                              "enemy": att_side})
        if result.attacker_retreat:
            s.pending.append({"kind": "retreat-all", "units": list(a.attackers), "hexes": result.attacker_retreat,
                              "enemy": def_side})
        stacks = sorted({self.board.hex_id(h) for h in (s.units[x].hex for x in a.attackers) if h is not None}) \
            if self.game.retreat.follows else []  # hexes whose HQs the losses may leave alone (5 f iv)
        s.pending.append({"kind": "advance-check", "hex": a.target, "units": list(a.attackers),
                          "defenders": defenders, **({"stacks": stacks} if stacks else {})})

    def _apply_pending(self, s: GameState, a: Action, legal: list[Action] | None = None) -> None:
        """``legal``: the answers listed for the state ``s`` was copied from, when they were."""
        p = s.pending[0]
        if legal is None:
            legal = self._pending_actions(s)
        if p["kind"] == "battle":
            if a not in legal:
                raise IllegalActionError(self.battles.why(s, p, a, legal))
            self.battles.answer(s, p, a)
            return
        if p["kind"] == "declare":
            if a not in legal:
                raise IllegalActionError(self.declare.why(s, p, a, legal))
            self.declare.answer(s, p, a)
            return
        if p["kind"] == "dice-pool" and self.dicepool is not None:
            if a not in legal:
                raise IllegalActionError(self.dicepool.why(s, p, a, legal))
            self.dicepool.answer(s, p, a)
            return
        if p["kind"] == "crt-order" and self.declarations is not None:
            self.declarations.answer(s, p, a)
            return
        if a not in legal:
            if p["kind"] == "loss":
                raise IllegalActionError(f"{p['side']} must lose a step from one of "
                                         f"{', '.join(self.loss_takers(s, p['units']))}")
            if p["kind"] == "displace":
                raise IllegalActionError(f"{p['unit']} is displaced toward its supply: choose one of "
                                         + ", ".join(p["hexes"]))
            if p["kind"] == "send-back":
                raise IllegalActionError(f"{p['hex']} is over the stacking limit at the end of movement ({p['why']}) "
                                         f"and no unit there can move out: {p['side']} sends back one of "
                                         f"{', '.join(p['units'])} to where it came from (e.g. 'send-back "
                                         f"{p['units'][-1]}')")
            if p["kind"] == "follow":
                raise IllegalActionError(f"{p['unit']} retreats with a unit it stacked with: choose one of: "
                                         + "; ".join(str(x) for x in legal))
            if p["kind"] == "retreat":
                opts = "; ".join(str(x) for x in legal)
                raise IllegalActionError(f"{p['unit']} must retreat {p['hexes']} hex"
                                         f"{'es' if p['hexes'] > 1 else ''}: choose one of: {opts}")
            raise IllegalActionError(f"'{a}' is not a possible advance now: choose one of: "
                                     f"{'; '.join(str(x) for x in legal)}")
        self._answer(s, p, a)

    def _answer(self, s: GameState, p: dict, a: Action) -> None:
        unit = p.get("unit") or (p.get("units") or [None])[0]
        self.record(s, a, side=p.get("side") or (s.units[unit].side if unit else ""))  # who decided
        if isinstance(a, Displace):  # 移动 4 f: where its owner puts the displaced unit
            s.pending.pop(0)
            s.place(a.unit, self.board.parse(a.to))
        elif isinstance(a, LoseStep):
            self.lose_step(s, a.unit)
            p["steps"] -= 1
            if p["steps"] <= 0 or not self.loss_takers(s, p["units"]):
                s.pending.pop(0)
        elif isinstance(a, Retreat) and p["kind"] == "follow":  # 6 c: with the unit it stacked with
            s.pending.pop(0)
            hexes = [self.board.parse(x) for x in a.path]
            s.place(a.unit, hexes[-1])
            self.pass_through(s, s.units[a.unit].side, hexes)
            if self.on_enter is not None:
                self.on_enter(s, a.unit, hexes)
        elif isinstance(a, Retreat):
            u = s.units[a.unit]
            path = self._retreat_options(s, p)
            chosen = next(x for x in path if tuple(self.board.hex_id(h) for h in x.hexes) == a.path
                          or (x.destroyed and not a.path))
            s.pending.pop(0)
            if chosen.destroyed:
                box = eliminate(self.game, s, a.unit)
                s.log.append({"destroyed": a.unit, "why": f"retreat {chosen.reason}", "to": box})
                return
            over = overrun_hexes(self.game, s, a.unit) if self.game.retreat.overrun else frozenset()
            s.place(a.unit, chosen.end)
            if s.attached:
                A.left_behind(self.game, s, a.unit, "retreats")
            s.attacked.add(f"retreated:{a.unit}")  # for this combat segment (10.3(1)2: no defence there)
            self.pass_through(s, u.side, chosen.hexes)
            for _ in range(chosen.losses):
                if s.units[a.unit].hex is not None:
                    self.lose_step(s, a.unit)
            if s.units[a.unit].hex is not None:
                overrun = self.overrun_along(s, a.unit, chosen.hexes, over)  # 6 f: if it lives through its losses
                if overrun:
                    s.log.append({"turn": s.turn, "retreat": a.unit, "overrun": overrun})
                path_ids = [self.board.hex_id(h) for h in chosen.hexes]
                for q in s.pending:  # the followers that may go with it (6 c)
                    if q["kind"] == "follow" and a.unit in q["movers"]:
                        q["paths"] = q["paths"] + [[a.unit, path_ids]]
                if self.on_enter is not None:
                    self.on_enter(s, a.unit, list(chosen.hexes))
        elif isinstance(a, Advance):
            u = s.units[a.unit]
            hexes = [self.board.parse(x) for x in a.path]
            over = overrun_hexes(self.game, s, a.unit) if self.game.advance.overrun else frozenset()
            # the hex it leaves: who stacked there may follow (7 iv)
            if self.game.advance.follows and u.hex is not None:
                p["trail"] = p.get("trail", []) + [[self.board.hex_id(u.hex), list(a.path)]]
            s.place(a.unit, hexes[-1])
            overrun = self.overrun_along(s, a.unit, hexes, over)  # 7 v
            if overrun:
                s.log.append({"turn": s.turn, "advance": a.unit, "overrun": overrun})
            self.pass_through(s, u.side, hexes)
            p["advanced"] = p["advanced"] + [a.unit]
            if self.on_enter is not None:
                self.on_enter(s, a.unit, hexes)
            if p.get("one"):  # one stack advances (Prokhorovka 15.0(1))
                s.pending.pop(0)
        elif isinstance(a, Hold):  # step losses instead of the retreat
            s.pending.pop(0)
            s.pending.insert(0, {"kind": "loss", "side": p["side"], "steps": p["hexes"], "units": p["units"]})
        elif isinstance(a, SendBack):  # 3.4(4): its owner chose it; the others may have to go too
            s.pending.pop(0)
            return_to_box(self.game, s, a.unit, self.board.parse(p["hex"]), self.board.hex_id)
            send_back(self.game, s, self.board.hex_id)
            if not s.pending:
                s.phase = "combat"  # the movement is over
        elif isinstance(a, Done) and p["kind"] == "hold":  # retreat after all
            s.pending.pop(0)
            s.pending.insert(0, {"kind": "retreat-all", "units": p["units"], "hexes": p["hexes"],
                                 "enemy": p["enemy"], "held": True})
        elif isinstance(a, Done):
            s.pending.pop(0)

    def _settle(self, s: GameState) -> None:
        """Expand bookkeeping entries and take every forced decision."""
        while s.pending:
            p = s.pending[0]
            if p["kind"] == "battle":
                if self.battles.settle(s, p):
                    continue
                return
            if p["kind"] == "declare":
                if self.declare.settle(s, p):
                    continue
                return
            if p["kind"] == "dice-pool" and self.dicepool is not None:
                if self.dicepool.settle(s, p):
                    continue
                return
            if p["kind"] == "crt-order" and self.declarations is not None:
                if self.declarations.settle(s, p):
                    continue
                return
            if p["kind"] == "retreat-all":
                units = [u for u in p["units"] if s.units[u].hex is not None]
                hold_with = self.game.retreat.hold_with
                if hold_with and not p.get("held") and any(self._matches(u, hold_with) for u in units):
                    s.pending[0] = {"kind": "hold", "side": s.units[units[0]].side, "units": units,
                                    "hexes": p["hexes"], "enemy": p["enemy"]}
                    return
                s.pending.pop(0)
                follows = self.game.retreat.follows
                followers = [u for u in units if follows and self._matches(u, follows)]
                units = [u for u in units if u not in followers]
                standing = [u for u in units if self._matches(u, self.game.retreat.stand)]
                if standing:  # they never retreat: a step per retreat hex instead
                    for u in standing:
                        s.log.append({"stands": u, "steps": p["hexes"]})
                        for _ in range(p["hexes"]):
                            if s.units[u].hex is not None:
                                self.lose_step(s, u)
                    held = any(s.units[u].hex is not None for u in standing)
                    units = [] if held else [u for u in units if u not in standing]  # the stack stays
                    followers = [] if held else followers
                for u in [u for u in units if self.immobile(u)]:  # it cannot retreat (14.3(1))
                    box = eliminate(self.game, s, u)
                    s.log.append({"destroyed": u, "why": "it cannot retreat", "to": box})
                units = [u for u in units if not self.immobile(u)]
                s.pending[0:0] = [{"kind": "retreat", "unit": u, "hexes": p["hexes"], "enemy": p["enemy"]}
                                  for u in units] + \
                    [{"kind": "follow", "unit": u, "movers": units, "paths": []} for u in followers]
                continue
            if p["kind"] == "displace":
                return
            if p["kind"] == "follow":  # 6 c: with a stack-mate's retreat, or, left alone, displaced (6 j)
                if s.units[p["unit"]].hex is None:
                    s.pending.pop(0)
                    continue
                opts = self._follow_options(s, p)
                if not opts:
                    s.pending.pop(0)
                    s.log.append({"turn": s.turn, "alone": p["unit"], "displaced": self.displace(s, p["unit"])})
                    continue
                if len(opts) == 1:
                    self._answer(s, p, opts[0])
                    continue
                return
            if p["kind"] == "result":  # a result with effects: they run first, then the result applies
                if s.effects:
                    return
                s.pending.pop(0)
                if p["then"] == "reroll":
                    self.roll_attack(s, p["hex"], p["attackers"], [tuple(o) for o in p["options"]],
                                     rolls=p["rolls"] + 1)
                    continue
                crt = self.game.crts[p["crt"]]
                code = code_at(crt, p["column"], p["row"]) if p["then"] == "row" else p["code"]
                result = self.game.results.get(crt.results, {}).get(code) or ResultCode(code)
                if p["then"] == "row":
                    s.log.append({"turn": s.turn, "attack": p["hex"], "row": p["row"], "result": code})
                self.queue_result(s, p["hex"], p["attackers"], result)
                continue
            if p["kind"] == "advance-check":
                s.pending.pop(0)
                target = self.board.parse(p["hex"])
                vacated = not s.units_at(target)
                attackers = [u for u in p["units"] if s.units[u].hex is not None]
                if vacated and attackers:
                    s.pending.insert(0, {"kind": "advance", "hex": p["hex"], "units": attackers, "advanced": [],
                                         **({"one": True} if p.get("one") else {})})
                follows = self.game.retreat.follows
                for hid in p.get("stacks", ()) if follows else ():  # 5 f iv: an HQ the combat left alone
                    for x in self.alone(s, self.board.parse(hid), follows):  # (displaced before any advance)
                        s.log.append({"turn": s.turn, "alone": x, "displaced": self.displace(s, x)})
                continue
            if p["kind"] == "alone-check":  # 5 f iv: an HQ left alone after a fire attack's losses
                s.pending.pop(0)
                for hid in p["hexes"]:
                    for x in self.alone(s, self.board.parse(hid), self.game.retreat.follows):
                        s.log.append({"turn": s.turn, "alone": x, "displaced": self.displace(s, x)})
                continue
            if p["kind"] == "loss":
                alive = self.loss_takers(s, p["units"])
                if not alive:
                    s.pending.pop(0)
                    continue
                if len(alive) == 1 and not (s.attached and A.loss_options(self.game, s, alive)):
                    self._answer(s, p, LoseStep(alive[0]))
                    continue
                return
            if p["kind"] == "retreat":
                if s.units[p["unit"]].hex is None:
                    s.pending.pop(0)
                    continue
                opts = self._pending_actions(s)
                if len(opts) == 1:
                    self._answer(s, p, opts[0])
                    continue
                self.note_answers(s, opts)  # (listed for the decision as they stand: not worked out again)
                return
            if p["kind"] == "advance":
                opts = self._pending_actions(s)
                if len(opts) == 1:  # only "done" is left
                    s.pending.pop(0)
                    continue
                self.note_answers(s, opts)
                return
            return

    # ---------------------------------------------------------- bots' defaults
    def default_action(self, state: GameState) -> Action:
        """The default answer to a pending decision, for bots: lose the step
        that costs the least strength; take the first retreat; advance
        nobody."""
        acts = self.legal_actions(state)
        if state.pending and state.pending[0]["kind"] == "battle":
            p = state.pending[0]
            if p["stage"] == "absorb":  # the point that hurts least: ignored, then a disruption, then a loss
                hits = [a for a in acts if isinstance(a, Hit)]
                return min(hits, key=lambda a: (self.battles.hit_harm(state, p, a.unit), a.unit))
            if p["stage"] == "options":  # the options that help on average
                good = [a for a in acts if isinstance(a, Use) and self.battles.option_value(a.option) > 0]
                return good[0] if good else Done()
            return acts[0]
        if state.pending and state.pending[0]["kind"] == "dice-pool" and self.dicepool is not None:
            return self.dicepool.default(state, state.pending[0], list(acts))
        if state.pending and state.pending[0]["kind"] == "crt-order" and self.declarations is not None:
            return self.declarations.default(state, state.pending[0], list(acts))
        if state.pending and state.pending[0]["kind"] == "declare":  # an option where it changes the column
            p = state.pending[0]
            return next((a for a in acts if isinstance(a, Use) and self.declare.worth(state, p, a)), Done())
        if state.pending and state.pending[0]["kind"] == "loss":
            def cost(a: LoseStep) -> tuple[int, str]:
                u = state.units[a.unit]
                steps = self.game.counters[a.unit].steps
                if A.host_of(state, a.unit) is not None:  # an attachment: all it gives
                    return sum(steps[min(u.step, len(steps) - 1)].values()), a.unit
                now = sum(steps[u.step].values())
                after = sum(steps[u.step + 1].values()) if u.step + 1 < len(steps) else 0
                return now - after, a.unit
            return min((a for a in acts if isinstance(a, LoseStep)), key=cost)
        return acts[0]
