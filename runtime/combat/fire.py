"""Fire attacks (docs/dsl.md §4.27, ``fire-attack``): an attack by fire on a
fixed column of a CRT, not by units attacking from adjacent hexes: A
Victory Denied's Soviet artillery (3-1, a d6), its rocket (7-1, once a
game) and the German bomber (8-1, once a game, retreats ignored).

A ``fire`` effect (runtime.effects) grants a side a number of fire attacks
of some kinds; the side names one target hex at a time (``fire KIND HEX``)
or stops (``done``).  A target holds enemy units, lies within a range of
one of the side's spotting units (none declared: anywhere) and has not been
fired on under the same grant.  The column is the declared one, shifted by
the target's terrain (as an attack by units is) and by the CRT's shift
modifiers; the roll takes the CRT's die roll modifiers; both are evaluated
with ``fire-attack`` bound to the fire attack's id.  Nobody fires from the
target's neighbourhood, so the attacker's results never apply; the
defender's losses and retreats do (``ignore retreats``: losses only).
Nothing here names a game.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from .. import expr as E
from ..actions import Fire, IllegalActionError
from ..board import Board
from ..definition import FireAttack, GameDefinition
from ..hexes import Hex
from ..state import GameState
from .modifiers import Env, combat_names, plain_env, whole_modifiers
from .odds import (OddsReport, _name, _prohibited, defence_strength, die_for, die_named, fixed_column, not_attacked,
                   probabilities, resolve, round_value, terrain_shift_parts)


def used_in_game(state: GameState, fa: FireAttack) -> int:
    """How many fire attacks of this kind the game has seen."""
    return sum(1 for d in state.done if d.startswith(f"fired:{fa.id}@"))


def fire_open(game: GameDefinition, state: GameState, fa: FireAttack, side: str, env: Env) -> str:
    """Why ``side`` may not make a fire attack of this kind now ("" if it may)."""
    if fa.side != side:
        return f"{fa.title} is {fa.side}'s, not {side}'s"
    if fa.per_game is not None and used_in_game(state, fa) >= fa.per_game:
        return f"{fa.title} has been used {fa.per_game} time{'s' * (fa.per_game != 1)} this game"
    if fa.condition is not None:
        names, fns = env
        if E.evaluate(fa.condition, dict(names, side=side), fns) is not True:
            return f"{fa.title} is not open now"
    return ""


def in_range(game: GameDefinition, board: Board, state: GameState, fa: FireAttack, target: Hex) -> str:
    """Why ``target`` is out of the fire attack's reach ("" when a spotting
    unit of its side has it within one of the ranges, or none are declared)."""
    if not fa.ranges:
        return ""
    for u in state.on_map(fa.side):
        if fa.by and not game.matches(u.id, fa.by):
            continue
        d = u.hex.distance(target)
        here = {board.terrain(u.hex), *board.features(u.hex)}
        for r in fa.ranges:
            if d <= r.hexes and (not r.terrain or r.terrain & here):
                return ""
    who = f"a spotting unit ({_or(sorted(fa.by))})" if fa.by else f"a {fa.side} unit"
    plain = [r.hexes for r in fa.ranges if not r.terrain]
    parts = [f"{_hexes(max(plain))} from {who}"] if plain else []
    for r in fa.ranges:  # a longer reach from some terrain (AVD 12.2: artillery on a hill)
        if r.terrain:
            on = _or([_name(game, t) for t in sorted(r.terrain)])
            parts.append(f"{_hexes(r.hexes)} from {'one' if parts else who} on {on}")
    return f"{board.hex_id(target)} is out of range: {fa.title} reaches {', '.join(parts)}"


def _hexes(n: int) -> str:
    return f"{n} hex{'es' * (n != 1)}"


def _or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def fire_odds(game: GameDefinition, board: Board, state: GameState, fire: str, target: Hex,
              env: Callable[[GameState], Env] | None = None) -> OddsReport:
    """The column, shifts, die roll modifiers and result probabilities of a
    fire attack of kind ``fire`` on ``target``, and whether it is legal
    (range, an enemy-held hex, terrain that allows attacks).  Whether the
    kind is open and the hex not yet fired on is the grant's business."""
    fa = game.fire_attacks[fire]
    table = game.crts[fa.crt]
    errors: list[str] = []
    tid = board.hex_id(target) if target in board else str(target)
    defenders = state.units_at(target) if target in board else []
    if target not in board:
        errors.append(f"{tid} is not on the map")
    elif not defenders:
        errors.append(f"there are no units in {tid} to fire on")
    elif defenders[0].side == fa.side:
        errors.append(f"{tid} holds {fa.side}'s own units")
    elif why := not_attacked(game, tid, defenders):
        errors.append(why)
    else:
        for t in (board.terrain(target), *board.features(target)):
            if _prohibited(game.chart.effects.get(t)):
                errors.append(f"attacks into {_name(game, t)} ({tid}) are prohibited")
        why = in_range(game, board, state, fa, target)
        if why:
            errors.append(why)
    def_parts = [(u.id, *defence_strength(game, board, state, u.id)) for u in defenders]
    d_exact = sum((v for _, v, _ in def_parts), Fraction(0))
    shifts: list[tuple[int, str]] = []
    drms: list[tuple[int, str]] = []
    if target in board:
        for left, reason in terrain_shift_parts(game, (board.terrain(target), *board.features(target))):
            shifts.append((-left, reason))
        if defenders and any(k in game.modifiers for k in (table.id, f"{table.id}.shift")):
            names, fns = combat_names(game, board, state, [], target, env(state) if env else plain_env(game, state))
            enemy = defenders[0].side
            names = dict(names, attacker=fa.side, side=fa.side, defender=enemy, enemy=enemy, units=0)
            names["fire-attack"] = fa.id
            for n, title in whole_modifiers(game, f"{table.id}.shift", (names, fns)):
                shifts.append((n, f"{title}: {abs(n)} {'left' if n < 0 else 'right'}"))
            drms = whole_modifiers(game, table.id, (names, fns))
    total = sum(n for n, _ in shifts)
    col = fixed_column(table, fa.column, total, f"{fa.title} fires on")
    die = die_named(game, fa.die) if fa.die else die_for(game, table, fa.side)
    if die is None:
        errors.append(f"crt {table.id} names no die for {fa.side}")
    drm = sum(n for n, _ in drms)
    probs = probabilities(game, table, col.index, die, drm) if col.column is not None and die else {}
    if col.column is None and not errors:
        errors.append(f"cannot fire on {tid}: {col.reason}")
    return OddsReport(table, [], target, Fraction(0), round_value(d_exact, game.info.rounding), Fraction(0), d_exact,
                      [], def_parts, shifts, total, col, die, probs, errors, list(drms), fire=fa.id)


class FireAttacks:
    """Fire attacks for an engine: the targets a grant allows, and one fire
    attack rolled with its results queued as the engine's pending decisions
    (the target's owner takes the losses and retreats)."""

    def __init__(self, engine):
        self.e = engine
        self.game: GameDefinition = engine.game

    def kinds_open(self, s: GameState, kinds: list[str], side: str) -> list[str]:
        env = self.e.env(s)
        return [k for k in kinds if not fire_open(self.game, s, self.game.fire_attacks[k], side, env)]

    def closed(self, s: GameState, kinds: list[str], side: str) -> list[str]:
        """Why each closed kind is closed (per game, its condition)."""
        env = self.e.env(s)
        return [w for k in kinds if (w := fire_open(self.game, s, self.game.fire_attacks[k], side, env))]

    def actions(self, s: GameState, kinds: list[str], side: str, fired: list[str]) -> list[Fire]:
        """``fire KIND HEX`` for every open kind and legal target not yet fired on."""
        enemy_hexes = sorted(h for h, ids in s.occupants.items()
                             if ids and any(s.units[x].side != side for x in ids))
        out = []
        for k in self.kinds_open(s, kinds, side):
            for h in enemy_hexes:
                hid = self.e.board.hex_id(h)
                if hid in fired:
                    continue
                if fire_odds(self.game, self.e.board, s, k, h, self.e.env).legal:
                    out.append(Fire(k, hid))
        return out

    def fire(self, s: GameState, a: Fire, side: str) -> None:
        """Roll one fire attack and queue its results."""
        fa = self.game.fire_attacks.get(a.kind)
        if fa is None:
            raise IllegalActionError(f"this game has no fire attack '{a.kind}'")
        target = self.e.hex(a.target)
        why = fire_open(self.game, s, fa, side, self.e.env(s))
        if why:
            raise IllegalActionError(why)
        rep = fire_odds(self.game, self.e.board, s, fa.id, target, self.e.env)
        if not rep.legal:
            raise IllegalActionError(rep.errors[0] if rep.errors else f"cannot fire on {a.target}")
        defenders = [u.id for u in s.units_at(target)]
        die_total = s.roll(rep.die, f"{fa.title} at {a.target}")
        result = resolve(rep.crt, rep.column.index, die_total + rep.drm, self.game)
        s.done.add(f"fired:{fa.id}@{s.turn}:{a.target}")
        drm = {"drm": rep.drm} if rep.drm else {}
        self.e.record(s, a, side=side, column=rep.column.label, die=die_total, **drm, result=result.code)
        def_side = s.units[defenders[0]].side
        if result.defender_loss:
            s.pending.append({"kind": "loss", "side": def_side, "steps": result.defender_loss, "units": defenders})
        if result.defender_retreat and "retreats" not in fa.ignore:
            s.pending.append({"kind": "retreat-all", "units": defenders, "hexes": result.defender_retreat,
                              "enemy": side})
        if self.game.retreat.follows:  # an HQ its stack-mates' losses leave alone is displaced (AVD 5 f iv)
            s.pending.append({"kind": "alone-check", "hexes": [a.target]})
        self.e._settle(s)

    def expected_harm(self, s: GameState, a: Fire) -> Fraction:
        """The bots' measure of a target: the expected steps the defender
        loses, plus half a step for each chance of a retreat that applies."""
        fa = self.game.fire_attacks[a.kind]
        rep = fire_odds(self.game, self.e.board, s, a.kind, self.e.hex(a.target), self.e.env)
        codes = self.game.results.get(rep.crt.results, {})
        harm = Fraction(0)
        for code, p in rep.probabilities.items():
            r = codes.get(code)
            if r is None:
                continue
            harm += p * r.defender_loss
            if r.defender_retreat and "retreats" not in fa.ignore:
                harm += p / 2
        return harm
