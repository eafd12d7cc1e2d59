"""CRT modifiers: the game's ``modifier`` statements that change one attack
on a CRT, read from ``GameDefinition.modifiers`` by target:

* ``CRT`` (the table's id): die roll modifiers, added to the roll;
* ``CRT.shift``: column shifts (positive: right, toward the attacker);
* ``strength.attacker`` / ``strength.defender``: added to each attacking /
  defending unit's factor (``= -strength / 2`` halves it, exactly).

Each is evaluated with the attack's names bound (``combat_names``): the
sides, the target hex and its terrain, the attackers, the hexsides they
cross, the chit that activated the attack; a strength modifier also sees
the unit's own ``strength``, class, nationality, markers and crossing.
A fractional die or shift amount is cut to a whole number (toward 0).
"""
from __future__ import annotations

from collections import ChainMap
from fractions import Fraction
from typing import Any

from .. import expr as E
from ..board import Board
from ..definition import GameDefinition
from ..hexes import Hex
from ..state import GameState

# the names and functions an expression reads: the functions a dict, or a mapping that makes each when
# first looked up (runtime.victory.Functions)
Env = tuple[dict, Any]


def plain_env(game: GameDefinition, state: GameState) -> Env:
    """Names every rule may read without a runner: the turn, its weather and
    the game's declared ids (the runner's ``env`` adds its functions)."""
    weather = game.turn_track.turn(state.turn).values.get("weather") if game.turn_track.turns else None
    names: dict = dict(game.declared_ids())
    names.update({"turn": state.turn, "weather": weather or "", "active": state.active, "side": state.active})
    return names, {"variant": lambda v: v in game.active_variants}


def crossed_by(board: Board, state: GameState, uid: str, target: Hex) -> tuple[str, ...]:
    """The hexside kinds a unit crosses, unbridged, to attack ``target``."""
    u = state.units[uid]
    if u.hex is None or target not in board:
        return ()
    e = board.edge(u.hex, target)
    return tuple(sorted(e.hexside)) if e and not e.bridged else ()


def combat_names(game: GameDefinition, board: Board, state: GameState, attackers: list[str], target: Hex,
                 env: Env) -> Env:
    """The names and functions an attack's modifiers read: ``attacker``,
    ``defender``, ``side`` (the attacker), ``enemy``, ``terrain`` and ``hex``
    (the target's), ``units`` (attackers), ``units-of(SELECTOR)`` (attackers
    that match), ``all-attackers-across``, ``chit`` (the chit drawn when
    the attack is made, "" without one), ``fire-attack`` ("": an attack by
    units; a fire attack binds its id)."""
    names, fns = env
    att = [state.units[a] for a in attackers if a in state.units]
    defenders = state.units_at(target) if target in board else []
    a_side = att[0].side if att else state.active
    d_side = defenders[0].side if defenders else next((s for s in game.sides if s != a_side), "")
    common: set[str] | None = None
    for u in att:
        kinds = set(crossed_by(board, state, u.id, target))
        common = kinds if common is None else common & kinds
    local = dict(names)
    local.update({"attacker": a_side, "defender": d_side, "side": a_side, "enemy": d_side,
                  "terrain": board.terrain(target) if target in board else "",
                  "hex": board.hex_id(target) if target in board else str(target),
                  "units": len(att), "all-attackers-across": tuple(sorted(common or ())),
                  "chit": str(state.step.get("chit", "") or ""), "fire-attack": ""})
    ids = [u.id for u in att]
    # (the env's functions under the attack's own, not copied: they are made when called)
    local_fns = ChainMap({"units-of": lambda sel: sum(1 for x in ids if str(sel) in game.selectors_of(x))}, fns)
    return local, local_fns


def _holds(m, names: dict, fns: dict) -> bool:
    return m.condition is None or E.evaluate(m.condition, names, fns) is True


def whole_modifiers(game: GameDefinition, target: str, env: Env) -> list[tuple[int, str]]:
    """(amount, title) of each ``modifier TARGET`` whose condition holds and
    whose amount, cut to a whole number, is not 0."""
    names, fns = env
    out = []
    for m in game.modifiers.get(target, ()):
        if _holds(m, names, fns):
            v = int(E.evaluate(m.amount, names, fns))
            if v:
                out.append((v, m.title or f"modifier {target}"))
    return out


def strength_modifiers(game: GameDefinition, state: GameState, board: Board, role: str, uid: str,
                       strength: Fraction, target: Hex, env: Env) -> list[tuple[Fraction, str]]:
    """(amount, title) of each ``modifier strength.ROLE`` that holds for one
    unit, with ``side`` (the unit's), ``enemy``, ``strength`` (its factor so
    far), ``unit-class``, ``nationality``, ``unit-markers``, ``across`` (the
    hexsides it crosses to attack) and ``units-of(SELECTOR)`` (1 when the
    unit matches) bound besides the attack's names."""
    mods = game.modifiers.get(f"strength.{role}", ())
    if not mods:
        return []
    names, fns = env
    c = game.counters[uid]
    u = state.units[uid]
    local = dict(names)
    local.update({"side": u.side, "enemy": names.get("defender") if role == "attacker" else names.get("attacker"),
                  "strength": strength, "unit-class": c.unit_class, "nationality": c.nationality,
                  "unit-markers": tuple(sorted(u.markers)),
                  "across": crossed_by(board, state, uid, target) if role == "attacker" else ()})
    local_fns = ChainMap({"units-of": lambda sel: int(str(sel) in game.selectors_of(uid))}, fns)
    out = []
    for m in mods:
        if _holds(m, local, local_fns):
            v = E.evaluate(m.amount, local, local_fns)
            if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
                raise E.ExprError(f"a strength modifier must be a number, not {v!r}", m.where)
            if v:
                out.append((Fraction(v), m.title or f"modifier strength.{role}"))
    return out
