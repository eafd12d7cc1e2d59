"""Decisions before the roll in CRT combat (docs/dsl.md §4.21).

After ``attack HEX with UNITS`` on a CRT the attack is declared, not yet
rolled: the attacker, then the defender, may use battle options that shift
the column (``battle-option ... { shift N }``: a Stuka, two columns in its
user's favour), one ``use OPTION [UNIT]`` at a time, then ``done``.  Each
option is used at most once per side in an attack.  A side with no option
open is skipped, so a game without such options rolls at once, as before.
Then the engine works the odds out again with the options' shifts and
rolls; if the defender's options leave no attack (below the lowest
column), the attack is called off and the attackers count as having
attacked."""
from __future__ import annotations

from ..actions import Action, Done, Use
from ..definition import GameDefinition
from ..state import GameState
from .odds import combat_odds
from .options import open_options, open_uses, spend


class CrtDeclarations:
    """The declaration stage of attacks on a CRT, for an engine: one pending
    entry of kind "declare" ({hex, attackers, attacker, defender, side,
    used: [[option, unit, side, shift]]})."""

    def __init__(self, engine):
        self.e = engine
        self.game: GameDefinition = engine.game

    def uses(self, s: GameState, p: dict) -> list[Use]:
        if not self.game.battle_options or not p["side"]:
            return []
        options = open_options(self.game, p["side"], p["attacker"], p["defender"], self.e.env(s))
        return open_uses(self.game, s, p["side"], self.e.hex(p["hex"]), p["used"], options, once=True)

    def start(self, s: GameState, hex_id: str, attackers: list[str], defender: str) -> bool:
        """Open the stage for an attack; False when neither side has an
        option open (the engine rolls at once)."""
        if not self.game.battle_options:
            return False
        p = {"kind": "declare", "hex": hex_id, "attackers": list(attackers), "attacker": s.active,
             "defender": defender, "side": s.active, "used": []}
        if not self.uses(s, p) and not self.uses(s, dict(p, side=defender)):
            return False
        s.pending.append(p)
        return True

    @staticmethod
    def shifts(game: GameDefinition, p: dict, extra: Use | None = None, side: str = "") -> list[tuple[int, str]]:
        """The column shifts of the options used so far (and of ``extra``,
        were ``side`` to use it), as (columns, title): the attacker's to the
        right, the defender's to the left."""
        used = list(p["used"])
        if extra is not None:
            used.append([extra.option, extra.unit, side, game.battle_options[extra.option].shift])
        out = []
        for oid, unit, who, n in used:
            title = game.battle_options[oid].title + (f" ({unit})" if unit else "")
            out.append((n if who == p["attacker"] else -n, title))
        return out

    def odds(self, s: GameState, p: dict, extra: Use | None = None, side: str = ""):
        return combat_odds(self.game, self.e.board, s, list(p["attackers"]), self.e.hex(p["hex"]), env=self.e.env,
                           options=self.shifts(self.game, p, extra, side))

    def actions(self, s: GameState, p: dict) -> list[Action]:
        return [*self.uses(s, p), Done()]

    def why(self, s: GameState, p: dict, a: Action, legal: list[Action]) -> str:
        can = ", ".join(f"'{x}'" for x in legal if isinstance(x, Use))
        return f"the attack on {p['hex']} waits for {p['side']}'s options before the roll: " + \
            (f"it may answer {can}, or 'done'" if can else "it may use nothing more: 'done'")

    def answer(self, s: GameState, p: dict, a: Action) -> None:
        self.e.record(s, a, side=p["side"])
        if isinstance(a, Use):
            opt = self.game.battle_options[a.option]
            spend(self.game, s, opt, p["side"], a.unit, p["hex"])
            p["used"].append([opt.id, a.unit, p["side"], opt.shift])
            s.log.append({"turn": s.turn, "option": opt.id, "unit": a.unit, "side": p["side"], "shift": opt.shift})
        elif p["side"] == p["attacker"]:
            p["side"] = p["defender"]
        else:
            p["side"] = ""

    def settle(self, s: GameState, p: dict) -> bool:
        """Skip a side with nothing to decide; roll when both have declared.
        True when the entry moved on (the caller settles again)."""
        if p["side"] and self.uses(s, p):
            return False
        if p["side"] == p["attacker"]:
            p["side"] = p["defender"]
            return True
        s.pending.pop(0)
        self.e.roll_attack(s, p["hex"], p["attackers"], self.shifts(self.game, p))
        return True

    def worth(self, s: GameState, p: dict, a: Use) -> bool:
        """Does using ``a`` change the attack for its user: a better column,
        or (for the defender) no attack at all?  The bots' rule: a scarce
        option is not spent where it changes nothing."""
        before, after = self.odds(s, p), self.odds(s, p, a, p["side"])
        if p["side"] == p["attacker"]:
            return after.legal and (not before.legal or after.column.index > before.column.index)
        return before.legal and (not after.legal or after.column.index < before.column.index)
