"""Attacks on a CRT declared before the first is rolled (``combat {
declare-first }``: Smolensk 10.2(1), "攻击方必须先全部宣称攻击哪些格子，然后
攻击方按照顺序结算战斗").

In a combat segment ``attack HEX with UNITS`` only declares the attack: the
odds are checked as they stand, the units and the hex count as having
attacked, nothing is rolled.  ``done`` closes the declarations; the attacker
then picks the battle fought next among those still live, one at a time, in
a pending entry of kind "crt-order" ({side, battles: [[hex, attackers]]}).
Each battle is fought as an attack made then (the odds worked out again: a
unit that retreated into the hex meanwhile adds no defence, 10.3(1)2), and
its results (losses, retreats, advances) are settled before the next is
picked.  A battle whose hex no longer holds the enemy, or whose attackers
are all gone or no longer next to it, is void.  The segment ends after the
last battle."""
from __future__ import annotations

from ..actions import Action, Attack, IllegalActionError
from ..state import GameState
from .odds import combat_odds


class DeclaredAttacks:
    """The declarations and the order of battles, for an engine."""

    def __init__(self, engine):
        self.e = engine
        self.game = engine.game

    def declare(self, s: GameState, a: Attack) -> None:
        """Record the attack (already checked): fought once every attack is declared."""
        s.attacked.update(a.attackers)
        s.attacked_hexes.add(self.e.hex(a.target))
        self.e.record(s, a, declared=True)
        s.step = dict(s.step, declared=[*s.step.get("declared", []), [a.target, list(a.attackers)]])

    def close(self, s: GameState) -> None:
        """``done`` with attacks declared: the battles are fought next, in the attacker's order."""
        battles = [[h, list(u)] for h, u in s.step.get("declared", [])]
        s.step = dict(s.step, declared=[])
        s.pending.append({"kind": "crt-order", "side": s.active, "battles": battles})

    def live(self, s: GameState, hex_id: str, attackers: list[str]) -> list[str]:
        return live_attackers(self.e, s, hex_id, attackers)

    def actions(self, s: GameState, p: dict) -> list[Action]:
        return [Attack(h, tuple(self.live(s, h, u))) for h, u in p["battles"]]

    def settle(self, s: GameState, p: dict) -> bool:
        return settle_order(s, p, self.live, self.fight, lambda s, h: {
            "turn": s.turn, "side": s.active, "attack": h, "called-off": "its defenders or attackers are gone"})

    def fight(self, s: GameState, p: dict, a: Attack) -> None:
        """Fight one declared battle: its results are settled before this
        entry picks the next (the entry goes behind them)."""
        p["battles"] = [x for x in p["battles"] if x[0] != a.target]
        s.pending.pop(0)
        rep = self._odds_now(s, a)
        if rep.errors or rep.column.column is None:  # the odds allow no attack any more
            s.attacked.update(a.attackers)
            s.attacked_hexes.add(self.e.hex(a.target))
            s.log.append({"turn": s.turn, "side": s.active, "attack": a.target,
                          "called-off": rep.errors[0] if rep.errors else rep.column.reason})
        else:
            self.e.fight_odds(s, a, rep)
        s.pending.append(p)

    def answer(self, s: GameState, p: dict, a: Action) -> None:
        if a not in self.actions(s, p):
            raise IllegalActionError(self.why(s, p))
        self.fight(s, p, a)

    def why(self, s: GameState, p: dict) -> str:
        return f"{p['side']} fights one of its declared attacks next: " + \
            "; ".join(str(a) for a in self.actions(s, p))

    def odds(self, s: GameState, a: Attack):
        """The odds of a declared battle as it stands now (worked out on a copy of ``s``)."""
        return self._odds_now(s.copy(), a)

    def _odds_now(self, s: GameState, a: Attack):
        """The odds of a declared battle in ``s``, its declaration taken off
        first (the odds' checks would read it as an attack made)."""
        target = self.e.hex(a.target)
        s.attacked.difference_update(a.attackers)
        s.attacked_hexes.discard(target)
        return combat_odds(self.game, self.e.board, s, list(a.attackers), target, env=self.e.env)

    def default(self, s: GameState, p: dict, acts: list[Action]) -> Action:
        """The battle at the best odds first (its retreats may leave the next defenders alone)."""
        t = s.copy()  # (one copy for all the battles: each one's odds read with its own declaration taken off)

        def key(a: Attack) -> tuple:
            t.attacked, t.attacked_hexes = set(s.attacked), set(s.attacked_hexes)
            rep = self._odds_now(t, a)
            ratio = rep.attack / rep.defence if rep.defence else float(rep.attack)
            return (not rep.legal, -ratio, a.target)
        return min(acts, key=key)


def live_attackers(engine, s: GameState, hex_id: str, attackers: list[str]) -> list[str]:
    """The declared attackers that may still fight the battle in ``hex_id``
    (on the map and next to it, the hex still holding the enemy); [] when
    the battle is void.  For CRT and dice-pool battles alike."""
    target = engine.hex(hex_id)
    there = s.units_at(target)
    if not there or there[0].side == s.active:
        return []
    near = {n for n, _ in engine.board.adj.get(target, ())}
    return [u for u in attackers if s.units[u].hex is not None and s.units[u].hex in near]


def settle_order(s: GameState, p: dict, live, fight, note) -> bool:
    """Declared battles waiting to be fought (``p["battles"]``, the pending
    entry in front): the void ones dropped (``note(s, hex)``: the log entry
    saying so); after the last, the combat segment ends; the only one left
    is fought (``fight(s, p, attack)``).  False while the side picks the
    next."""
    for h, u in list(p["battles"]):
        if not live(s, h, u):
            p["battles"].remove([h, u])
            s.log.append(note(s, h))
    if not p["battles"]:
        s.pending.pop(0)
        s.phase = ""  # the combat segment is over
        return True
    if len(p["battles"]) == 1:
        h, u = p["battles"][0]
        fight(s, p, Attack(h, tuple(live(s, h, u))))
        return True
    return False
