"""What the enemy could bring against a hex in its next combat, and the
chance that a unit standing there would be lost to it: the bots' weighing of
where a unit whose loss gives the enemy VP may stand (``GreedyMoves``).

An estimate, made from the state as it stands: each enemy unit's move range
(runtime.movement: the menaced side's ZOC and units stop it) and the odds
CRT.  It leaves out the enemy's activations (a chit-pull game activates a
part of its units at a time), its other attacks (a second attack on the
hex in a later segment, fire attacks), stacking where it attacks from, and
the CRT's modifiers; it counts every enemy unit that could reach a hex next
to the one weighed.
"""
from __future__ import annotations

from fractions import Fraction

from .board import Board
from .combat.odds import (attack_factor, attack_strength, column_for, defence_strength, die_for, probabilities,
                          round_value, terrain_shift_parts)
from .definition import Crt, GameDefinition
from .hexes import Hex
from .movement import MoveError, cheapest_step, move_range, unit_mp
from .retreat import retreat_paths
from .state import GameState


def odds_crt(game: GameDefinition) -> Crt | None:
    """The CRT the game's attacks use, where it is an odds or differential CRT (else None)."""
    crt = game.crts.get(game.combat.crt) or next(iter(game.crts.values()), None)
    return crt if crt is not None and crt.method in ("odds", "differential") else None


class Menace:
    """The units of ``enemy`` that could attack each hex next: those whose
    move range from where they stand in ``state`` (or their own hex) holds
    a hex next to it, each with the strength it would attack with from
    there.  A bot keeps one while the enemy's units stay where they are (a
    side's movement segment): the moves the menaced side makes meanwhile,
    which change the enemy's reach, are left out."""

    def __init__(self, game: GameDefinition, board: Board, state: GameState, enemy: str):
        self.game, self.board, self.state, self.enemy = game, board, state, enemy
        self.crt = odds_crt(game)
        # each enemy unit that can attack, with the most hexes it could move (None: no bound): its range is
        # worked out only when a hex weighed lies within that many hexes and one
        self._units: list[tuple[str, Hex, int | None]] = []
        # what a unit's printed factors, class and markers give (whether it attacks, how far it could go),
        # shared by the menaces of every state on the board: a search weighs one for each battle's result
        known = board.__dict__.setdefault("_menace_units", {})
        if len(known) > 100_000:
            known.clear()
        attached, entering = state.attached, state.entering
        for u in state.units.values():
            if u.side != enemy or u.hex is None:
                continue
            key = (u.id, u.step, u.markers) if u.id not in attached and u.id not in entering else None
            hit = known.get(key) if key is not None else None
            if hit is None:
                hit = (False, None)
                if attack_factor(game, u.id, u.step):
                    cheapest = cheapest_step(game, board, game.counters[u.id].unit_class)
                    hit = (True, unit_mp(game, state, u.id) // cheapest + 1 if cheapest else None)
                if key is not None:
                    known[key] = hit
            if hit[0]:
                self._units.append((u.id, u.hex, hit[1]))
        self._ranges: dict[str, frozenset[Hex]] = {}
        self._attack: dict[Hex, Fraction] = {}
        # (unit, step, markers, hex attacked from, hex attacked, the rivers ignored) -> its attack strength,
        # shared as the units above (``_strength``)
        self._strengths: dict = board.__dict__.setdefault("_menace_strengths", {})
        if len(self._strengths) > 200_000:
            self._strengths.clear()
        self._ignored = tuple(state.step.get("ignore") or ())

    def _range(self, uid: str, at: Hex) -> frozenset[Hex]:
        """Where the enemy unit could end its next move (its own hex too)."""
        hit = self._ranges.get(uid)
        if hit is None:
            try:
                hit = move_range(self.game, self.board, self.state, uid).destinations | {at}
            except MoveError:  # (a unit that may not move now attacks from where it stands)
                hit = frozenset((at,))
            self._ranges[uid] = hit
        return hit

    def attack(self, h: Hex) -> Fraction:
        """The enemy's attack strength against ``h``: each unit that could
        reach a hex next to it, at its best (rivers halve it, prohibited
        hexsides bar it)."""
        hit = self._attack.get(h)
        if hit is not None:
            return hit
        game, board = self.game, self.board
        chart = game.chart.effects
        sides = [(n, edge) for n, edge in board.adj[h]
                 if edge.bridged or not any((e := chart.get(k)) is not None and e.combat_prohibited
                                            for k in edge.hexside)]
        total = Fraction(0)
        for uid, at, far in self._units:
            if far is not None and at.distance(h) > far + 1:
                continue
            reach = self._range(uid, at)
            best = max((self._strength(uid, h, n) for n, _ in sides if n in reach), default=None)
            if best is not None:
                total += best
        self._attack[h] = total
        return total

    def _strength(self, uid: str, h: Hex, n: Hex) -> Fraction:
        """``uid``'s attack strength on ``h`` from ``n`` (runtime.combat.odds.attack_strength),
        kept by what it reads where no counter under the unit adds to it."""
        u = self.state.units[uid]
        if uid in self.state.attached:
            return Fraction(attack_strength(self.game, self.board, self.state, uid, h, n)[0])
        key = (uid, u.step, u.markers, n, h, self._ignored)
        hit = self._strengths.get(key)
        if hit is None:
            hit = self._strengths[key] = Fraction(attack_strength(self.game, self.board, self.state, uid, h, n)[0])
        return hit

    def loss_chance(self, state: GameState, uid: str, h: Hex) -> float:
        """The chance that ``uid``, standing in ``h`` with the units of its
        side there in ``state``, is lost if the enemy attacks ``h`` with all
        it could bring: the column of that strength against the stack's
        defence (after the terrain's shifts), and for each result the steps
        it takes (the other units there take them first) and the retreat it
        orders (lost where every retreat the rules allow from ``h`` destroys
        the unit or takes its last step: runtime.retreat)."""
        return float(self._chance(state, uid, h, None))

    def endangered(self, state: GameState, uid: str, h: Hex, risk: float) -> bool:
        """Whether ``loss_chance`` is ``risk`` or more: the retreats are
        weighed only where the results that surely take the unit's last step
        fall short of it and those that might reach it."""
        return self._chance(state, uid, h, risk) >= risk

    def _chance(self, state: GameState, uid: str, h: Hex, risk: float | None) -> Fraction:
        game, board, crt = self.game, self.board, self.crt
        attack = self.attack(h)
        if crt is None or not attack:
            return Fraction(0)
        side = state.units[uid].side
        stack = [x for x in state.occupants.get(h, ()) if x != uid and state.units[x].side == side]
        d_exact = Fraction(sum(defence_strength(game, board, state, x)[0] for x in stack))
        d_exact += Fraction(defence_strength(game, board, state, uid, h)[0])
        if not d_exact:
            return Fraction(1)
        rounding = game.info.rounding
        shift = -sum(left for left, _ in terrain_shift_parts(game, (board.terrain(h), *board.features(h))))
        col = column_for(crt, round_value(attack, rounding), round_value(d_exact, rounding), shift)
        die = die_for(game, crt, self.enemy)
        if col.column is None or die is None:
            return Fraction(0)
        spared = game.combat.no_losses
        others = sum(len(game.counters[x].steps) - state.units[x].step for x in stack
                     if not (spared and game.matches(x, spared)))
        left = len(game.counters[uid].steps) - state.units[uid].step
        results = game.results.get(crt.results, {})
        sure, retreats = Fraction(0), []
        for code, p in probabilities(game, crt, col.index, die).items():
            r = results.get(code)
            if r is None:
                continue
            own = max(0, r.defender_loss - others)
            if own >= left:
                sure += p
            elif r.defender_retreat:
                retreats.append((p, own, r.defender_retreat))
        if not retreats or (risk is not None and (sure >= risk or sure + sum(p for p, _, _ in retreats) < risk)):
            return sure
        after = state
        if state.units[uid].hex != h:
            after = state.copy()
            after.place(uid, h)
        paths: dict[int, list] = {}
        for p, own, hexes in retreats:
            ways = paths.get(hexes)
            if ways is None:
                ways = paths[hexes] = retreat_paths(game, board, after, uid, hexes, self.enemy)
            if all(w.destroyed or w.losses >= left - own for w in ways):
                sure += p
        return sure
