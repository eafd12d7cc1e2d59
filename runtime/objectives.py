"""What each side plays for, read from the game's victory rules (for the bots).

A side's *objectives* are the places its own awards (of positive VP) and
win rules name through ``controls``/``occupies``/``supplied``/``held-since``
with the side as first argument: Smolensk's cities for both sides,
Barbarossa's Soviet cities for the Axis and Königsberg, Warsaw and Bucharest
for the Soviets.  A game whose victory rules name no place falls back on its
VP hexes and cities, for every side.

``worth`` is what holding a place is worth to a side: the VP its awards
name for it, as of the first turn, and ``worth_now`` the same as of a later
turn.  Awards whose condition holds on one turn only (``turn == N`` among
its conjuncts; ``turn <= N``, ``turn < N``: up to a turn) are bonuses, added
to the rest while their turn is still to come (Smolensk 15.5(3): Vitebsk +5
at turn 4's supply check, Smolensk +10 at turn 5's and +5 at turn 6's, on
top of the 10 a major city is worth at the end); the others are one worth
told several ways (10 with a line of communication, 5 without), of which
the largest counts.  A computed amount, or a place a win rule names, is
worth 1.

A side also plays for the places whose entering sets off a rule for it
(an ``enter`` trigger whose condition names the side: A Victory Denied's
star hexes, where a Soviet unit draws a victory chit and a German unit
returns it to the German box): the hexes of the terrain or features its
condition asks for with ``terrain-at(hex, ...)``, and those where the
scenario sets up the markers it asks for with ``marker-at(hex, ...)``.

``sudden`` are the places a side wins the game at once by reaching: those
its ``win`` rules name that are tried before the game's end (A Victory
Denied's Moscow, Barbarossa's Warsaw), and the map hexes from which a move
off the map enters a box whose entering ends the game for it (``exit_wins``:
A Victory Denied's Minsk Pocket edge): the other side guards them whatever
the distance, since one enemy move there ends the game.  Such an edge
hex matters only while its box may be entered (``exit ... when
CONDITION``: A Victory Denied's pocket, until it is cleared on turn 4):
``exits`` names the boxes of the places that are objectives only as such
edges, and ``closed`` those of them a state has shut.

``costly`` are the units whose loss costs their side VP: an award of
another side whose amount counts ``eliminated(SIDE, CLASS-OR-FLAG)`` (A
Victory Denied's German motorized units, 4 or 6 VP each to the Soviets), or
an award of the side itself that takes VP away for them (Smolensk 15.5(6):
``- 3 * eliminated(axis, "mechanized")``), with the VP a loss is worth (the
largest constant factor the awards put on it; 1 when there is none).  A side
keeps such units out of harm's way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import expr as E
from .hexes import Hex

# calls in victory expressions whose last argument is a place the side wants
PLACE_CALLS = ("controls", "occupies", "supplied", "held-since")


@dataclass(frozen=True)
class Objectives:
    places: dict[str, tuple[Hex, ...]]  # side -> the places it plays for
    worth: dict[str, dict[Hex, float]]  # side -> place -> VP it is worth on the first turn (at least 1)
    sudden: dict[str, tuple[Hex, ...]] = None  # side -> the places whose taking wins it the game at once
    costly: dict[str, dict[str, float]] = None  # side -> class or flag -> VP another side gets per unit lost
    # side -> place -> (VP, the last turn it can be earned on) of the bonuses counted in ``worth``
    bonuses: dict[str, dict[Hex, tuple[tuple[float, int], ...]]] = None
    # side -> place -> how many places share the award its worth comes from (Smolensk 15.5(3)4: one
    # award of 30 VP for any of 14 east-edge sources); 1 where the place is not listed
    shared: dict[str, dict[Hex, int]] = None
    # place -> the boxes it is the edge of, for the places that are objectives only as such edges
    exits: dict[Hex, tuple[str, ...]] = None

    def worth_now(self, side: str, h: Hex, turn: int) -> float:
        """What holding ``h`` is worth to ``side`` from ``turn`` on: ``worth``
        less the bonuses whose last turn has passed."""
        w = self.worth.get(side, {}).get(h, 0.0)
        for amount, last in (self.bonuses or {}).get(side, {}).get(h, ()):
            if last < turn:
                w -= amount
        return w

    def share_now(self, side: str, h: Hex, turn: int) -> float:
        """``worth_now`` divided among the places that share its award: what
        a side's plans should weigh the place by (one of 14 sources of one
        30-VP award weighs 30/14)."""
        return self.worth_now(side, h, turn) / (self.shared or {}).get(side, {}).get(h, 1)

    def enemy(self, side: str) -> tuple[Hex, ...]:
        """The places the other sides play for (what ``side`` defends)."""
        out: set[Hex] = set()
        for s, hexes in self.places.items():
            if s != side:
                out.update(hexes)
        return tuple(sorted(out))

    def enemy_sudden(self, side: str) -> tuple[Hex, ...]:
        """The places whose taking by another side ends the game at once."""
        return tuple(sorted({h for s, hexes in (self.sudden or {}).items() if s != side for h in hexes}))

    def closed(self, is_open: Callable[[str], bool]) -> frozenset[Hex]:
        """The places that are objectives only as the edge of boxes none of
        which may be entered now (``is_open``: whether a box may be, in the
        state at hand: ``Engine.exit_open``); empty in most games."""
        if not self.exits:
            return frozenset()
        shut: dict[str, bool] = {}
        for pools in self.exits.values():
            for p in pools:
                if p not in shut:
                    shut[p] = not is_open(p)
        return frozenset(h for h, pools in self.exits.items() if all(shut[p] for p in pools))


def places_named(runner, e) -> list[Hex]:
    """The hexes a place argument names: a map area, a hex id or a name."""
    g = runner.game
    if isinstance(e, (E.Name, E.Str)):
        text = e.name if isinstance(e, E.Name) else e.value
        if text in g.map.areas:
            return list(g.map.areas[text])
        try:
            h = g.map.grid.parse_id(text)
        except ValueError:
            return []
        return [h] if h in g.map.hexes else []
    return []


def victory_objectives(runner) -> Objectives:
    g = runner.game
    sides = tuple(g.sides)
    worth: dict[str, dict[Hex, float]] = {s: {} for s in sides}
    bonuses: dict[str, dict[Hex, list[tuple[float, int]]]] = {s: {} for s in sides}
    shared: dict[str, dict[Hex, int]] = {s: {} for s in sides}
    sudden: dict[str, set[Hex]] = {s: set() for s in sides}
    for r in runner.victory:
        if r.kind not in ("award", "win") or r.condition is None or r.side not in worth:
            continue
        amount = 1.0
        if r.kind == "award" and isinstance(r.amount, E.Num):
            if r.amount.value <= 0:
                continue
            amount = float(r.amount.value)
        named: dict[Hex, None] = {}  # (in order; a place named by both controls() and supplied() counts once)
        for n in E.walk(r.condition):
            if isinstance(n, E.Call) and n.func in PLACE_CALLS and len(n.args) >= 2:
                who = n.args[0]
                if isinstance(who, (E.Name, E.Str)) and \
                        (who.name if isinstance(who, E.Name) else who.value) == r.side:
                    named.update(dict.fromkeys(places_named(runner, n.args[-1])))
        last = last_turn(r.condition) if r.kind == "award" else None
        for h in named:
            if last is not None:
                bonuses[r.side].setdefault(h, []).append((amount, last))
            elif amount > worth[r.side].get(h, 0.0):
                worth[r.side][h] = amount
                shared[r.side][h] = len(named)
            if r.kind == "win" and r.at not in ("", "end"):
                sudden[r.side].add(h)
    for side, places in bonuses.items():
        for h, extra in places.items():
            worth[side][h] = worth[side].get(h, 0.0) + sum(a for a, _ in extra)
    if not any(worth.values()):  # no places in the victory rules: VP hexes and cities
        marked = {h: float(mh.vp or 1) for h, mh in g.map.hexes.items() if mh.vp or "city" in mh.features}
        worth = {s: dict(marked) for s in sides}
    for side, hexes in entry_places(runner).items():
        for h in hexes:
            worth[side].setdefault(h, 1.0)
    exits: dict[Hex, set[str]] = {}
    edges = exit_wins(runner)
    named = {h for places in worth.values() for h in places}  # (objectives of any side for another reason)
    for side, found in edges.items():
        for h, pools in found.items():
            if h not in named:  # an objective only as the box's edge
                exits.setdefault(h, set()).update(pools)
            worth[side].setdefault(h, 1.0)
            sudden[side].add(h)
    return Objectives({s: tuple(sorted(v)) for s, v in worth.items()}, worth,
                      {s: tuple(sorted(v)) for s, v in sudden.items()}, costly_units(runner),
                      {s: {h: tuple(v) for h, v in places.items()} for s, places in bonuses.items()}, shared,
                      {h: tuple(sorted(v)) for h, v in exits.items()})


def last_turn(condition) -> int | None:
    """The last turn on which a condition can hold, where one of its
    conjuncts (the operands of its top-level ``and``) bounds the turn:
    ``turn == N`` and ``turn <= N`` give N, ``turn < N`` gives N - 1 (either
    way round); None where none does."""
    pending, out = [condition], None
    while pending:
        n = pending.pop()
        if not isinstance(n, E.Binary):
            continue
        if n.op == "and":
            pending += [n.left, n.right]
            continue
        for a, b, op in ((n.left, n.right, n.op), (n.right, n.left, _MIRRORED.get(n.op))):
            if isinstance(a, E.Name) and a.name == "turn" and isinstance(b, E.Num) and op in ("==", "<=", "<"):
                bound = int(b.value) - (1 if op == "<" else 0)
                out = bound if out is None else min(out, bound)
    return out


_MIRRORED = {"==": "==", "<=": ">=", ">=": "<=", "<": ">", ">": "<"}  # N op turn -> turn op' N


def costly_units(runner) -> dict[str, dict[str, float]]:
    """Side -> class or flag -> the VP a unit of it lost costs the side:
    what another side's awards give for it (``N * eliminated(SIDE,
    "motorized")``: N) or the side's own awards take away (``- N *
    eliminated(SIDE, ...)``: N)."""
    sides = tuple(runner.game.sides)
    out: dict[str, dict[str, float]] = {s: {} for s in sides}

    def found(e, factor: float, gainer: str) -> None:
        if isinstance(e, E.Unary) and e.op == "-":
            found(e.operand, -factor, gainer)
            return
        if isinstance(e, E.Binary) and e.op == "*":
            for a, b in ((e.left, e.right), (e.right, e.left)):
                sign = 1.0
                if isinstance(a, E.Unary) and a.op == "-":  # (- 3 * eliminated(...))
                    a, sign = a.operand, -1.0
                if isinstance(a, E.Num):
                    found(b, sign * factor * float(a.value), gainer)
                    return
        if isinstance(e, E.Call) and e.func == "eliminated" and len(e.args) == 2 and \
                all(isinstance(x, (E.Name, E.Str)) for x in e.args):
            side, what = (x.name if isinstance(x, E.Name) else x.value for x in e.args)
            if side in out and (side != gainer and factor > 0 or side == gainer and factor < 0):
                out[side][what] = max(out[side].get(what, 0.0), abs(factor))
            return
        for n in E._children(e):
            found(n, factor, gainer)

    for r in runner.victory:
        if r.kind == "award" and r.amount is not None:
            found(r.amount, 1.0, r.side)
    return out



def exit_wins(runner) -> dict[str, dict[Hex, set[str]]]:
    """Side -> the map hexes from which a unit moves off the map into a box
    whose entering ends the game in the side's favour: the areas of the
    movement's ``exit AREA to POOL`` whose POOL an ``enter``/``enter-each``
    trigger's condition names (``hex == POOL``) and whose effects include
    ``end-game SIDE`` (A Victory Denied 移动 1 d: a Soviet unit entering the
    Minsk Pocket from 2701, 2801 or 2901 wins), each with those boxes."""
    g = runner.game
    out: dict[str, dict[Hex, set[str]]] = {s: {} for s in g.sides}
    exits = getattr(g.movement, "exits", ())
    if not exits:
        return out
    for t in g.triggers:
        if t.at not in ("enter", "enter-each") or t.condition is None:
            continue
        winners = {e.args.get("winner") for e in g.effects.get(t.effects, ()) if e.verb == "end-game"}
        named = set()
        for n in E.walk(t.condition):
            if isinstance(n, E.Binary) and n.op == "==":
                for a, b in ((n.left, n.right), (n.right, n.left)):
                    if isinstance(a, E.Name) and a.name == "hex" and isinstance(b, (E.Name, E.Str)):
                        named.add(b.name if isinstance(b, E.Name) else b.value)
        for area, pool, _ in exits:
            if pool in named:
                for side in winners & set(out):
                    for h in g.map.areas.get(area, ()):
                        out[side].setdefault(h, set()).add(pool)
    return out


def entry_places(runner) -> dict[str, set[Hex]]:
    """Side -> the hexes whose entering runs an ``enter`` or ``enter-each`` trigger for it."""
    g = runner.game
    out: dict[str, set[Hex]] = {s: set() for s in g.sides}
    for t in g.triggers:
        if t.at not in ("enter", "enter-each") or t.condition is None:
            continue
        sides = _sides_compared(t.condition, g.sides) or set(g.sides)
        hexes = _asked_hexes(runner, t.condition)
        for side in sides:
            out[side] |= hexes
    return out


def _sides_compared(e, sides) -> set[str]:
    """The sides a condition requires with ``side == X`` (outside any ``not``)."""
    found: set[str] = set()
    pending = [e]
    while pending:
        n = pending.pop()
        if isinstance(n, E.Unary) and n.op == "not":
            continue
        if isinstance(n, E.Binary):
            if n.op == "==":
                for a, b in ((n.left, n.right), (n.right, n.left)):
                    if isinstance(a, E.Name) and a.name == "side" and isinstance(b, (E.Name, E.Str)):
                        value = b.name if isinstance(b, E.Name) else b.value
                        if value in sides:
                            found.add(value)
            pending += [n.left, n.right]
    return found


def _asked_hexes(runner, e) -> set[Hex]:
    """The hexes the condition's ``terrain-at(hex, T)`` and ``marker-at(hex, K)``
    calls (outside any ``not``) can hold for: T's hexes, and the hexes the
    scenario sets K markers up on."""
    g = runner.game
    out: set[Hex] = set()
    pending = [e]
    while pending:
        n = pending.pop()
        if isinstance(n, E.Unary):
            if n.op != "not":
                pending.append(n.operand)
            continue
        if isinstance(n, E.Binary):
            pending += [n.left, n.right]
            continue
        if not (isinstance(n, E.Call) and len(n.args) == 2 and isinstance(n.args[0], E.Name)
                and n.args[0].name == "hex" and isinstance(n.args[1], (E.Name, E.Str))):
            continue
        what = n.args[1].name if isinstance(n.args[1], E.Name) else n.args[1].value
        if n.func == "terrain-at":
            out |= {h for h, mh in g.map.hexes.items() if mh.terrain == what or what in mh.features}
        elif n.func == "marker-at":
            out |= _set_up_on(runner, what)
    return out


def _set_up_on(runner, kind: str) -> set[Hex]:
    """The hexes where the scenario's set-up leaves markers of a kind (its
    ``place`` lines in order: a line ``from`` a place moves them on)."""
    count: dict[str, int] = {}
    for m in runner.scenario.markers:
        if m.kind != kind:
            continue
        if m.source:
            moved = min(m.count, count.get(m.source, m.count))
            count[m.source] = count.get(m.source, 0) - moved
            count[m.at] = count.get(m.at, 0) + moved
        else:
            count[m.at] = count.get(m.at, 0) + m.count
    out: set[Hex] = set()
    for where, n in count.items():
        hexes = runner.where_hexes(where) if n > 0 else None  # a pool: None
        out.update(hexes[:1] if hexes else ())  # an area: its first hex, where the runner puts it
    return out
