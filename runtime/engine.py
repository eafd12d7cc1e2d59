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

from .actions import Action, Advance, Attack, Done, Hold, IllegalActionError, LoseStep, Move, Retreat, parse_action
from .board import Board
from .combat import combat_odds, resolve
from .definition import GameDefinition
from .hexes import Hex
from .movement import MoveError, move_range, why_not
from .retreat import advance_paths, retreat_paths
from .zoc import selector_match
from .state import GameState, eliminate


class Engine:
    def __init__(self, game: GameDefinition, board: Board | None = None):
        self.game = game
        self.board = board or Board(game)
        self.controllable = frozenset(h for h, mh in game.map.hexes.items() if mh.features or mh.vp)

    # ---------------------------------------------------------- helpers
    def hex(self, text: str) -> Hex:
        try:
            h = self.board.parse(text)
        except ValueError as e:
            raise IllegalActionError(str(e)) from None
        if h not in self.board:
            raise IllegalActionError(f"{text} is not in play")
        return h

    def unit(self, state: GameState, uid: str):
        u = state.units.get(uid)
        if u is None:
            raise IllegalActionError(f"there is no unit {uid}")
        return u

    def can_act(self, state: GameState, uid: str) -> bool:
        u = state.units[uid]
        return u.hex is not None and u.side == state.active and (not state.activated or uid in state.activated)

    def immobile(self, uid: str) -> bool:
        c = self.game.counters[uid]
        return "immobile" in self.game.unit_classes[c.unit_class].flags

    def _matches(self, uid: str, selectors: frozenset[str]) -> bool:
        c = self.game.counters[uid]
        cls = self.game.unit_classes[c.unit_class]
        return selector_match(selectors, cls.id, cls.flags)

    def pass_through(self, state: GameState, side: str, hexes) -> None:
        """A hex belongs to the side whose unit last passed through it (3.4);
        the turn it changed hands is kept (15.5(4) pays by capture turn)."""
        # a hex taken after this turn's supply check counts half a turn later
        when = state.turn + (Fraction(1, 2) if f"supply@{state.turn}" in state.done else 0)
        for h in hexes:
            if state.control.get(h) != side:
                state.control[h] = side
                state.control_since[h] = when

    def record(self, state: GameState, action: Action, side: str = "", **extra) -> None:
        entry = {"turn": state.turn, "phase": state.phase, "side": side or state.active, "action": str(action)}
        entry.update(extra)
        state.log.append(entry)

    def lose_step(self, state: GameState, uid: str) -> None:
        u = state.units[uid]
        steps = len(self.game.counters[uid].steps)
        if u.step + 1 < steps:
            u.step += 1
        else:
            box = eliminate(self.game, state, uid)
            state.log.append({"eliminated": uid, "to": box})

    # ---------------------------------------------------------- queries
    def legal_actions(self, state: GameState) -> list[Action]:
        if state.pending:
            return self._pending_actions(state)
        if state.phase == "movement":
            out: list[Action] = []
            for uid, u in state.units.items():
                if not self.can_act(state, uid) or uid in state.moved or self.immobile(uid):
                    continue
                normal = move_range(self.game, self.board, state, uid).destinations
                out.extend(Move(uid, self.board.hex_id(h)) for h in sorted(normal))
                for m in self.game.movement.modes:
                    try:
                        extra = move_range(self.game, self.board, state, uid, m.id).destinations - normal
                    except MoveError:
                        continue
                    out.extend(Move(uid, self.board.hex_id(h), m.id) for h in sorted(extra))
            out.append(Done())
            return out
        if state.phase == "combat":
            return self._attack_actions(state) + [Done()]
        return []

    def _attack_actions(self, state: GameState) -> list[Action]:
        targets: dict[Hex, list[str]] = {}
        for uid, u in state.units.items():
            if not self.can_act(state, uid) or uid in state.attacked or self.immobile(uid):
                continue
            for n, _ in self.board.adj[u.hex]:
                other = state.side_at(n)
                if other is not None and other != u.side and n not in state.attacked_hexes:
                    targets.setdefault(n, []).append(uid)
        out: list[Action] = []
        for h in sorted(targets):
            units = sorted(targets[h])
            options = [tuple(units)] + ([(x,) for x in units] if len(units) > 1 else [])
            for group in options:
                rep = combat_odds(self.game, self.board, state, list(group), h)
                if rep.legal:
                    out.append(Attack(self.board.hex_id(h), group))
        return out

    def _pending_actions(self, state: GameState) -> list[Action]:
        p = state.pending[0]
        if p["kind"] == "loss":
            return [LoseStep(u) for u in p["units"] if state.units[u].hex is not None]
        if p["kind"] == "retreat":
            return [Retreat(p["unit"], tuple(self.board.hex_id(h) for h in path.hexes) if not path.destroyed else ())
                    for path in self._retreat_options(state, p)]
        if p["kind"] == "hold":
            return [Hold(), Done()]
        if p["kind"] == "advance":
            target = self.board.parse(p["hex"])
            out: list[Action] = [Done()]
            for uid in p["units"]:
                if uid in p["advanced"] or state.units[uid].hex is None:
                    continue
                for path in advance_paths(self.game, self.board, state, uid, target):
                    out.append(Advance(uid, tuple(self.board.hex_id(h) for h in path)))
            return out
        raise AssertionError(p)

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
        s = state.copy()
        if s.pending:
            self._apply_pending(s, action)
        elif isinstance(action, Move):
            self._move(s, action)
        elif isinstance(action, Attack):
            self._attack(s, action)
        elif isinstance(action, Done):
            if s.phase not in ("movement", "combat"):
                raise IllegalActionError("there is no segment to end")
            self.record(s, action)
            s.phase = "combat" if s.phase == "movement" else ""
        else:
            raise IllegalActionError(f"'{action}' answers a decision, but none is pending")
        self._settle(s)
        return s

    def _move(self, s: GameState, a: Move) -> None:
        if s.phase != "movement":
            raise IllegalActionError(f"{a.unit} cannot move now: it is not a movement segment")
        u = self.unit(s, a.unit)
        if u.side != s.active:
            raise IllegalActionError(f"{a.unit} cannot move: it is {u.side}'s unit and {s.active} is moving")
        if s.activated and a.unit not in s.activated:
            raise IllegalActionError(f"{a.unit} cannot move: it is not activated")
        if a.unit in s.moved:
            raise IllegalActionError(f"{a.unit} has already moved in this activation")
        if u.hex is None:
            raise IllegalActionError(f"{a.unit} is not on the map")
        if self.immobile(a.unit):
            raise IllegalActionError(f"{a.unit} cannot move")
        dest = self.hex(a.to)
        reason = why_not(self.game, self.board, s, a.unit, dest, a.mode or None)
        if reason:
            raise IllegalActionError(reason)
        r = move_range(self.game, self.board, s, a.unit, a.mode or None)
        path = r.path_to(dest)
        s.place(a.unit, dest)
        s.moved.add(a.unit)
        self.pass_through(s, u.side, path[1:])
        self.record(s, a, path=[self.board.hex_id(h) for h in path], mp=str(r.mp_to(dest)))

    def _attack(self, s: GameState, a: Attack) -> None:
        if s.phase != "combat":
            raise IllegalActionError("no attack now: it is not a combat segment")
        target = self.hex(a.target)
        for uid in a.attackers:
            self.unit(s, uid)
            if s.units[uid].side != s.active:
                raise IllegalActionError(f"{uid} cannot attack: it is {s.units[uid].side}'s unit")
        for uid in a.attackers:
            if self.immobile(uid):  # a fortress marker neither moves nor attacks (14.3(1))
                raise IllegalActionError(f"{uid} cannot attack: it never moves or attacks")
        if len(set(a.attackers)) != len(a.attackers):
            raise IllegalActionError("a unit is named twice among the attackers")
        rep = combat_odds(self.game, self.board, s, list(a.attackers), target)
        if rep.errors:
            raise IllegalActionError(rep.errors[0])
        if rep.column.column is None:
            raise IllegalActionError(f"no attack on {a.target} at these odds: {rep.column.reason}")
        crt = rep.crt
        defenders = [u.id for u in s.units_at(target)]
        die_total = s.roll(rep.die, f"combat at {a.target}")
        result = resolve(crt, rep.column.index, die_total, self.game)
        s.attacked.update(a.attackers)
        s.attacked_hexes.add(target)
        self.record(s, a, odds=f"{rep.attack}-{rep.defence}", column=rep.column.label, die=die_total,
                    result=result.code)
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
        s.pending.append({"kind": "advance-check", "hex": a.target, "units": list(a.attackers),
                          "defenders": defenders})

    def _apply_pending(self, s: GameState, a: Action) -> None:
        p = s.pending[0]
        legal = self._pending_actions(s)
        if a not in legal:
            if p["kind"] == "loss":
                raise IllegalActionError(f"{p['side']} must lose a step from one of "
                                         f"{', '.join(u for u in p['units'] if s.units[u].hex is not None)}")
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
        if isinstance(a, LoseStep):
            self.lose_step(s, a.unit)
            p["steps"] -= 1
            if p["steps"] <= 0 or not any(s.units[u].hex is not None for u in p["units"]):
                s.pending.pop(0)
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
            s.place(a.unit, chosen.end)
            self.pass_through(s, u.side, chosen.hexes)
            for _ in range(chosen.losses):
                if s.units[a.unit].hex is not None:
                    self.lose_step(s, a.unit)
        elif isinstance(a, Advance):
            u = s.units[a.unit]
            hexes = [self.board.parse(x) for x in a.path]
            s.place(a.unit, hexes[-1])
            self.pass_through(s, u.side, hexes)
            p["advanced"].append(a.unit)
        elif isinstance(a, Hold):  # step losses instead of the retreat
            s.pending.pop(0)
            s.pending.insert(0, {"kind": "loss", "side": p["side"], "steps": p["hexes"], "units": p["units"]})
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
            if p["kind"] == "retreat-all":
                units = [u for u in p["units"] if s.units[u].hex is not None]
                hold_with = self.game.retreat.hold_with
                if hold_with and not p.get("held") and any(self._matches(u, hold_with) for u in units):
                    s.pending[0] = {"kind": "hold", "side": s.units[units[0]].side, "units": units,
                                    "hexes": p["hexes"], "enemy": p["enemy"]}
                    return
                s.pending.pop(0)
                for u in [u for u in units if self.immobile(u)]:  # it cannot retreat (14.3(1))
                    box = eliminate(self.game, s, u)
                    s.log.append({"destroyed": u, "why": "it cannot retreat", "to": box})
                units = [u for u in units if not self.immobile(u)]
                s.pending[0:0] = [{"kind": "retreat", "unit": u, "hexes": p["hexes"], "enemy": p["enemy"]}
                                  for u in units]
                continue
            if p["kind"] == "advance-check":
                s.pending.pop(0)
                target = self.board.parse(p["hex"])
                vacated = not s.units_at(target)
                attackers = [u for u in p["units"] if s.units[u].hex is not None]
                if vacated and attackers:
                    s.pending.insert(0, {"kind": "advance", "hex": p["hex"], "units": attackers, "advanced": []})
                continue
            if p["kind"] == "loss":
                alive = [u for u in p["units"] if s.units[u].hex is not None]
                if not alive:
                    s.pending.pop(0)
                    continue
                if len(alive) == 1:
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
                return
            if p["kind"] == "advance":
                if len(self._pending_actions(s)) == 1:  # only "done" is left
                    s.pending.pop(0)
                    continue
                return
            return

    # ---------------------------------------------------------- bots' defaults
    def default_action(self, state: GameState) -> Action:
        """The default answer to a pending decision, for bots: lose the step
        that costs the least strength; take the first retreat; advance
        nobody."""
        acts = self.legal_actions(state)
        if state.pending and state.pending[0]["kind"] == "loss":
            def cost(a: LoseStep) -> tuple[int, str]:
                u = state.units[a.unit]
                steps = self.game.counters[a.unit].steps
                now = sum(steps[u.step].values())
                after = sum(steps[u.step + 1].values()) if u.step + 1 < len(steps) else 0
                return now - after, a.unit
            return min(acts, key=cost)
        return acts[0]
