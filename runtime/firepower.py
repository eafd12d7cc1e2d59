"""Firepower combat (Barbarossa postcard 7.0): no CRT.

A battle is fought in a hex that holds units of both sides: the attacker
moved in (``combat { attack move-in }``).  Each side's firepower is

* the combat factor (``combat { firepower strength }``) of its undisrupted
  units in the hex (8.0: disrupted units do not fire),
* plus the game's ``modifier firepower`` statements, evaluated once per side
  with ``side``, ``enemy``, ``attacker``, ``defender``, ``terrain`` (the
  battle hex's), ``infantry`` (the side's infantry units in the battle,
  disrupted ones too: they keep their terrain bonus), ``city-vp`` (the
  hex's VP), ``all-attackers-across`` (the hexside kinds every attacker
  crossed, unbridged) and ``units`` bound,
* plus the battle options the side used (air strikes, desperate efforts,
  whose die tables add to either side),

and never below 0.  Each side's firepower is dealt to the other side's units,
one point at a time as their owner assigns it: a unit is disrupted once it
has absorbed its ``disrupt-at`` points (the game's ``modifier disrupt-at``
statements: 1, a German 2-strength unit 2), and a disrupted unit is
eliminated once it absorbs its ``eliminate-at`` points.

Then (7.2) disrupted attackers go back to the hex they attacked from, and:

A  no attacker left, defenders present: the defender holds;
B  attackers and undisrupted defenders: the defender holds, the attackers go back;
C  attackers, only disrupted defenders: the attacker wins; the defenders
   retreat one hex into a hex their side controls or are eliminated;
D  attackers and no defender: the attacker wins.

The attacker takes control of the hex in C and D.  This module computes the
firepower; ``runtime.engine`` runs the decisions.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import expr as E
from .board import Board
from .definition import BattleOption, GameDefinition
from .hexes import Hex
from .state import GameState


@dataclass
class Fire:
    """One side's firepower in one battle, item by item (for the log and the
    editor's panel)."""

    side: str
    base: list[tuple[str, int]] = field(default_factory=list)  # (unit, factor) of units that fire
    modifiers: list[tuple[str, int]] = field(default_factory=list)  # (title, amount)
    options: list[tuple[str, int]] = field(default_factory=list)  # (title, amount) from battle options

    @property
    def total(self) -> int:
        return max(0, sum(v for _, v in self.base) + sum(v for _, v in self.modifiers)
                   + sum(v for _, v in self.options))

    def lines(self) -> list[str]:
        out = [f"{u} {v}" for u, v in self.base] or ["no unit fires"]
        out += [f"{'+' if v >= 0 else ''}{v} {t}" for t, v in self.modifiers + self.options]
        return out


@dataclass
class BattleReport:
    hex: Hex
    attacker: str
    defender: str
    attackers: list[str]
    defenders: list[str]
    across: tuple[str, ...]
    fire: dict[str, Fire]

    def text(self, board: Board) -> str:
        a, d = self.fire[self.attacker], self.fire[self.defender]
        return (f"battle in {board.hex_id(self.hex)}: {self.attacker} {a.total} ({'; '.join(a.lines())}) "
                f"against {self.defender} {d.total} ({'; '.join(d.lines())})")


def factor(game: GameDefinition, state: GameState, uid: str) -> int:
    u = state.units[uid]
    c = game.counters[uid]
    return c.steps[min(u.step, len(c.steps) - 1)].get(game.combat.factor, 0)


def crossed(game: GameDefinition, board: Board, state: GameState, attackers: list[str], h: Hex) -> tuple[str, ...]:
    """The hexside kinds every attacker crossed (unbridged) to enter ``h``."""
    common: set[str] | None = None
    for uid in attackers:
        origin = state.attack_from.get(uid)
        kinds = set(board.edge(origin, h).hexside) if origin is not None and board.edge(origin, h) and \
            not board.edge(origin, h).bridged else set()
        common = kinds if common is None else common & kinds
    return tuple(sorted(common or ()))


def report(game: GameDefinition, board: Board, state: GameState, h: Hex, attacker: str,
           env: tuple[dict, dict], used: list | None = None) -> BattleReport:
    """The firepower of both sides in the battle in ``h``; ``used`` holds
    the battle options taken so far: [option id, unit, side, own, enemy]."""
    here = state.units_at(h)
    attackers = sorted(u.id for u in here if u.side == attacker)
    defenders = sorted(u.id for u in here if u.side != attacker)
    defender = next((u.side for u in here if u.side != attacker), "")
    if not defender:
        defender = next(s for s in game.sides if s != attacker)
    across = crossed(game, board, state, attackers, h)
    mh = board.map.hexes.get(h)
    names, fns = env
    fire: dict[str, Fire] = {}
    for side, units in ((attacker, attackers), (defender, defenders)):
        f = Fire(side)
        for uid in units:
            if "disrupted" not in state.units[uid].markers:
                f.base.append((uid, factor(game, state, uid)))
        local = dict(names)
        local.update({"side": side, "enemy": defender if side == attacker else attacker, "attacker": attacker,
                      "defender": defender, "terrain": board.terrain(h), "hex": board.hex_id(h),
                      "infantry": sum(1 for x in units if "infantry" in game.selectors_of(x)),
                      "city-vp": mh.vp if mh else 0, "all-attackers-across": across, "units": len(units)})
        for m in game.modifiers.get("firepower", ()):
            if m.condition is None or E.evaluate(m.condition, local, fns) is True:
                v = int(E.evaluate(m.amount, local, fns))
                if v:
                    f.modifiers.append((m.title or "modifier", v))
        fire[side] = f
    for oid, unit, side, own, enemy in used or ():
        title = game.battle_options[oid].title + (f" ({unit})" if unit else "")
        other = defender if side == attacker else attacker
        if own:
            fire[side].options.append((title, own))
        if enemy:
            fire[other].options.append((title, enemy))
    return BattleReport(h, attacker, defender, attackers, defenders, across, fire)


def threshold(game: GameDefinition, state: GameState, uid: str, target: str, env: tuple[dict, dict]) -> int:
    """The firepower a unit absorbs before it is disrupted (``disrupt-at``)
    or, already disrupted, eliminated (``eliminate-at``): the sum of the
    game's modifiers, at least 1."""
    names, fns = env
    c = game.counters[uid]
    local = dict(names)
    local.update({"side": c.side, "strength": c.steps[0].get(game.combat.factor, 0),
                  "nationality": c.nationality, "unit-class": c.unit_class})
    total = 0
    for m in game.modifiers.get(target, ()):
        if m.condition is None or E.evaluate(m.condition, local, fns) is True:
            total += int(E.evaluate(m.amount, local, fns))
    return max(1, total)


def option_open(game: GameDefinition, opt: BattleOption, side: str, attacker: str, defender: str,
                env: tuple[dict, dict]) -> bool:
    """May ``side`` use ``opt`` in a battle between these sides now?"""
    role = "attacker" if side == attacker else "defender"
    if opt.side not in ("both", side, role):
        return False
    if opt.condition is None:
        return True
    names, fns = env
    local = dict(names)
    local.update({"side": side, "enemy": defender if side == attacker else attacker, "attacker": attacker,
                  "defender": defender})
    return E.evaluate(opt.condition, local, fns) is True


def providers(game: GameDefinition, state: GameState, opt: BattleOption, side: str, h: Hex) -> list[str]:
    """The units of ``side`` that could provide ``opt`` to the battle in ``h``
    (before the once-per-phase check)."""
    out = []
    for u in state.on_map(side):
        if u.hex.distance(h) > opt.within:
            continue
        if opt.not_marked & u.markers:
            continue
        if opt.by & game.selectors_of(u.id):
            out.append(u.id)
    return sorted(out)
