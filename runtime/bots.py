"""Bots that play through the same legal_actions/apply as a person.

``random``: uniform among the legal actions (attacks included).
``greedy``: takes the best-odds attacks (where attacks are moves into enemy
hexes, those whose firepower beats the defence), moves toward objectives
(VP hexes and cities held by the enemy), keeps its units in supply, declines
risky choices, and answers decisions with the engine's defaults (cheapest
step loss or hit, first retreat, battle options that help on average).
Both are deterministic for a given seed.
"""
from __future__ import annotations

import random
from typing import Callable

from .actions import Attack, Done, Move
from .combat.odds import combat_odds
from .runner import Choose, Place, Play, Runner, RunnerAction, SequenceError
from .state import GameState
from .supply import supply_map


class RandomBot:
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, runner: Runner, state: GameState) -> RunnerAction:
        acts = runner.legal_actions(state)
        return acts[self.rng.randrange(len(acts))]


class GreedyBot:
    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self._targets: dict[str, list] = {}

    def objectives(self, runner: Runner, side: str) -> list:
        """Hexes worth taking: VP hexes and cities."""
        if side not in self._targets:
            m = runner.game.map
            self._targets[side] = [h for h, mh in m.hexes.items() if mh.vp or "city" in mh.features]
        return self._targets[side]

    def choose(self, runner: Runner, state: GameState) -> RunnerAction:
        acts = runner.legal_actions(state)
        side = runner.to_move(state)
        if runner.effect_asks(state):  # an effect's choice (runtime.effects): the first answer
            return acts[0]
        if state.pending:
            return runner.engine.default_action(state) if not any(isinstance(a, Done) for a in acts) or \
                state.pending[0]["kind"] != "advance" else self._advance(runner, state, acts)
        d = state.step.get("decision")
        if d == "choose":
            chits = [a for a in acts if isinstance(a, Choose)]
            return self.rng.choice(chits) if chits else acts[-1]
        if d == "interrupt":
            plays = [a for a in acts if isinstance(a, Play)]
            return plays[0] if plays and state.step.get("at-end") else acts[-1]
        if d == "place":
            places = [a for a in acts if isinstance(a, Place)]
            return self._closest(runner, places, side, lambda a: a.at) if places else acts[-1]
        if d in ("deploy", "decide"):  # the scenario's own set-up; no gamble
            return Done()
        if d == "combat":
            if runner.game.combat.procedure == "firepower":  # every battle is fought, in any order
                return acts[0]
            return self._attack(runner, state, acts)
        if d == "movement":
            return self._move(runner, state, acts, side)
        return acts[0]

    def _closest(self, runner: Runner, acts: list, side: str, hex_of: Callable):
        targets = self.objectives(runner, side)
        board = runner.board

        def score(a):
            h = board.parse(hex_of(a))
            return min((h.distance(t) for t in targets), default=0), str(a)
        return min(acts, key=score)

    def _attack(self, runner: Runner, state: GameState, acts: list) -> RunnerAction:
        attacks = [a for a in acts if isinstance(a, Attack)]
        best, best_key = None, None
        for a in attacks:
            rep = combat_odds(runner.game, runner.board, state, list(a.attackers), runner.board.parse(a.target),
                              env=runner.env)
            if not rep.legal:
                continue
            good = sum(p for code, p in rep.probabilities.items()
                       if (r := runner.game.results[rep.crt.results].get(code)) and
                       (r.defender_loss or r.defender_retreat))
            key = (rep.column.index, good, len(a.attackers))
            if best_key is None or key > best_key:
                best, best_key = a, key
        if best is not None and best_key[1] >= 0.5:
            return best
        return next(a for a in acts if isinstance(a, Done))

    def _move(self, runner: Runner, state: GameState, acts: list, side: str) -> RunnerAction:
        moves = [a for a in acts if isinstance(a, Move)]
        if not moves:
            return acts[-1]
        targets = self.objectives(runner, side)
        targets = [t for t in targets if state.control.get(t) != side] or targets
        lines = supply_map(runner.game, runner.board, state, side)
        board = runner.board
        # the unit whose best move gains the most toward an objective, staying in supply
        best, best_gain = None, 0
        by_unit: dict[str, list[Move]] = {}
        for m in moves:
            by_unit.setdefault(m.unit, []).append(m)
        move_in = runner.game.combat.attack == "move-in"
        follows_control = runner.game.supply.blocked_by_enemy_control
        for uid, ms in sorted(by_unit.items()):
            here = state.units[uid].hex
            d0 = min((here.distance(t) for t in targets), default=0)
            for m in ms:
                h = board.parse(m.to)
                if move_in and any(u.side != side for u in state.units_at(h)):
                    gain = self._attack_gain(runner, state, m, side)
                elif h not in lines and not (follows_control and any(n in lines for n, _ in board.adj[h])):
                    continue  # (where lines follow control, a move next to a line takes the hex into it)
                else:
                    gain = d0 - min((h.distance(t) for t in targets), default=0)
                if gain > best_gain:
                    best, best_gain = m, gain
        return best or next(a for a in acts if isinstance(a, Done))

    def _attack_gain(self, runner: Runner, state: GameState, m: Move, side: str) -> int:
        """An attack by moving in is worth it when the side's firepower there
        would then beat the defenders' (before battle options)."""
        from .combat.firepower import factor
        after = runner.engine.apply(state, m)
        rep = runner.engine.battle_report(after, target=runner.board.parse(m.to))
        joining = {a.unit for a in runner.engine.legal_actions(after) if isinstance(a, Move) and a.to == m.to}
        mine = rep.fire[side].total + sum(factor(runner.game, after, u) for u in joining)  # if they all join
        return 5 if mine > rep.fire[rep.defender].total else 0

    def _advance(self, runner: Runner, state: GameState, acts: list) -> RunnerAction:
        advances = [a for a in acts if not isinstance(a, Done)]
        return advances[0] if advances else acts[0]


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int):
    if name not in BOTS:
        raise ValueError(f"no bot named '{name}': choose {', '.join(BOTS)}")
    return BOTS[name](seed)


def play(runner: Runner, state: GameState, agents: dict[str, object], max_actions: int = 200_000,
         on_action: Callable | None = None) -> tuple[GameState, int]:
    """Let the agents play to the end; returns the final state and the
    number of decisions taken."""
    n = 0
    while state.result is None:
        if n >= max_actions:
            raise SequenceError(f"no end after {max_actions} decisions: does the game end (turns, victory rules)?")
        side = runner.to_move(state)
        agent = agents.get(side) or agents.get("*")
        action = agent.choose(runner, state)
        state = runner.apply(state, action)
        n += 1
        if on_action is not None:
            on_action(state, side, action)
    return state, n
