"""Rolling one die of a dice-pool battle again (Prokhorovka 签一览, the
commander's first choice: 任何掷骰时，可以选择重掷一次骰子取代第一次的结果).

A chit whose ``on-use`` holds ``reroll-die`` and that neither cancelled
anything in the ``cancel`` stage nor was cancelled is **kept**: once the
battle's dice are rolled (fire steps, duel, tank support; a strike's and an
air combat's die as it is rolled: ``fight.strike``, ``air.throw``), before anything
is applied, its side (the ``declares-first`` side first) may name one of
those dice, ``use CHIT N`` (N: the die's number in the battle), to roll it
again, or ``done``.  The battle is then worked out again from the same
dice with that one replaced: a die is known by what it was rolled for and
its turn among the rolls for the same thing, so a duel shot that now does
not happen (its weapon was destroyed earlier) is dropped and one that now
happens is rolled new.

The dice are kept in the battle's pending entry as ``dice``: [purpose,
face] in the order they were asked for."""
from __future__ import annotations

from fractions import Fraction

from ...actions import Action, Done, Use
from ...state import GameState
from .battle import Outcome, Setup, resolve
from .chits import _effects


def rerolls_die(game, chit: str) -> bool:
    return any(e.verb == "reroll-die" for e in _effects(game, chit))


def replay(setup: Setup, dice: list, fresh, upto: int | None = None) -> tuple[Outcome, list]:
    """Resolve ``setup`` (its first ``upto`` phases) with the faces of
    ``dice`` ([purpose, face]) where the same roll is asked for again;
    ``fresh(purpose)`` rolls the others.  Returns the outcome and the dice
    it used."""
    known: dict[tuple[str, int], int] = {}
    seen: dict[str, int] = {}
    for why, face in dice:
        k = seen.get(why, 0)
        seen[why] = k + 1
        known[(why, k)] = face
    asked: dict[str, int] = {}
    used: list = []

    def roll(why: str) -> int:
        k = asked.get(why, 0)
        asked[why] = k + 1
        face = known.get((why, k))
        if face is None:
            face = fresh(why)
        used.append([why, face])
        return face
    return resolve(setup, roll, upto), used


def value(out: Outcome, side: str, attacker: str, defender: str) -> float:
    """How good an outcome is for ``side``: a win 1, a tie half, and a
    hundredth for each step the enemy loses more than the side."""
    w = out.winner(attacker, defender)
    other = defender if side == attacker else attacker
    loss = out.losses(attacker, defender)
    return (1.0 if w == side else 0.5 if w == "" else 0.0) + (loss[other] - loss[side]) / 100


class Rerolls:
    def __init__(self, battles):
        self.b = battles
        self.game = battles.game

    def kept(self, p: dict) -> list[list[str]]:
        """[side, chit] of the chits kept to roll a die again, in order."""
        return [[side, c] for side in self.b.order(p) for c in p["chits"].get(side, ())
                if rerolls_die(self.game, c) and c not in p.get("used", ())]

    def actions(self, s: GameState, p: dict) -> list[Action]:
        _, chit = p["reroll"][0]
        return [Use(chit, str(i + 1)) for i in range(len(p["dice"]))] + [Done()]

    def label(self, p: dict, n: str) -> str:
        why, face = p["dice"][int(n) - 1]
        return f"{why} (it showed {face})"

    def why(self, s: GameState, p: dict) -> str:
        side, chit = p["reroll"][0]
        return f"{side} may roll one die of the battle in {p['hex']} again with {chit}: 'use {chit} N' " \
               f"(N from 1 to {len(p['dice'])}), or 'done'"

    def answer(self, s: GameState, p: dict, a: Action) -> None:
        side, chit = p["reroll"].pop(0)
        if not isinstance(a, Use):
            return
        i = int(a.unit) - 1
        why, old = p["dice"][i]
        die = self.game.dice[self.b.rules.die]
        face = s.roll(die, f"{chit} rolls again: {why} in {p['hex']}")
        p["dice"][i] = [why, face]
        s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{chit} ({side}) rolls again {why}: {old}, "
                      f"now {face}"})
        self.b.replay(s, p)  # a duel shot that now happens is rolled at once

    def best(self, s: GameState, p: dict, acts: list[Action]) -> Action:
        """The bot's die: the one whose new roll raises its side's expected
        outcome most (over every face; a die whose change would ask for new
        dice is left alone), or done."""
        side = p["reroll"][0][0]
        st = self.b.setup(s, p)
        att, dfd = p["attacker"], p["defender"]
        base, _ = replay(st, p["dice"], lambda why: 0)
        now = value(base, side, att, dfd)
        sides = self.game.dice[self.b.rules.die].sides
        best, gain = Done(), Fraction(0)
        for a in acts:
            if not isinstance(a, Use):
                continue
            i = int(a.unit) - 1
            total, ok = Fraction(0), True
            for f in range(1, sides + 1):
                dice = [list(x) for x in p["dice"]]
                dice[i][1] = f
                missing = []
                out, _ = replay(st, dice, lambda why: missing.append(why) or 1)
                if missing:
                    ok = False
                    break
                total += Fraction(1, sides) * Fraction(value(out, side, att, dfd)).limit_denominator(10 ** 6)
            g = total - Fraction(now).limit_denominator(10 ** 6)
            if ok and g > gain:
                best, gain = a, g
        return best
