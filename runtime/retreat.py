"""Retreat and advance after combat (Smolensk 10.6, 10.7), as the game's
RetreatRules, AdvanceRules and terrain effects chart declare them.

Retreat: N hexes, no MP, each step closer to the side's own supply sources;
a step into a hex the rules forbid destroys the unit (off-map, sea,
prohibited, a second hex across an unbridged major river); each enemy-ZOC
hex entered costs a step (or destroys, or nothing); an over-stacked final
hex extends the retreat.  Among the paths that follow the shortest way to
supply, the owner chooses, preferring (in the rulebook's order) paths that do
not destroy, then fewer ZOC losses, then no extension.  With ``toward
supply-first`` (A Victory Denied 6 h: "如果有多条撤退路径", a rule for choosing
among several paths) every path is open, and after those two the paths with
fewer hexes that are not nearer supply are preferred: a unit that can only
retreat sideways or away is not destroyed for it.  With ``toward
supply-line`` (Smolensk 10.6(6): "往自军联络源开始的联络线(参见 3.3)方向")
"nearer" is measured round the hexes a line of communication can never pass
(``distance_along_lines``: enemy units), so a hex held by the enemy is never
the way to supply; each hex is one of the nearest open to it ("按照最短距离退却"),
the rulebook's order choosing among them.

Advance: into the vacated hex first, then (mechanized) one more; a hex or
hexside whose chart row limits advance to 1 stops it, and so does a
``first-hex-across`` hexside crossed unbridged (only as the first hex); ZOC is ignored;
stacking is checked at the end.
"""
from __future__ import annotations

import weakref
from collections import deque
from dataclasses import dataclass

from .board import Board
from .definition import GameDefinition
from .hexes import Hex
from .movement import class_costs, overrun_hexes, stack_count, stack_weight
from .stacking import extra_bars, extra_limits
from .state import GameState
from .supply import _static, blocking_flags, closed_to, enemy_blocking, lost_sources, spread, started
from .zoc import zoc_of


@dataclass(frozen=True, slots=True)
class RetreatPath:
    hexes: tuple[Hex, ...]  # the hexes entered, in order (empty: cannot move at all)
    losses: int  # steps lost to enemy ZOC on the way
    destroyed: bool  # the retreat destroys the unit
    reason: str = ""
    away: int = 0  # hexes entered that are not nearer the side's supply (``toward supply-first``)

    @property
    def end(self) -> Hex | None:
        return self.hexes[-1] if self.hexes else None

    def rank(self) -> tuple[int, int, int, int]:
        return (int(self.destroyed), self.losses, self.away, len(self.hexes))


def distance_to_supply(game: GameDefinition, board: Board, side: str,
                       lost: frozenset[Hex] = frozenset()) -> dict[Hex, int]:
    """Static hex distance from each hex to the side's supply sources (less
    the ``lost`` ones), through terrain a unit may enter (units and ZOC ignored)."""
    cache = board.__dict__.setdefault("_supply_distance", {})
    key = (side, lost) if lost else side
    if key in cache:
        return cache[key]
    impassable = set(game.supply.impassable) | {t for t, eff in game.chart.effects.items()
                                                if game.terrain.get(t) and game.terrain[t].kind == "terrain"
                                                and eff.move and all(c.kind == "no" for _, c in eff.move)}
    dist: dict[Hex, int] = {}
    q: deque[Hex] = deque()
    for h in board.supply_sources(side) - lost:
        if board.terrain(h) not in impassable:
            dist[h] = 0
            q.append(h)
    while q:
        h = q.popleft()
        for n, _ in board.adj[h]:
            if n not in dist and board.terrain(n) not in impassable:
                dist[n] = dist[h] + 1
                q.append(n)
    cache[key] = dist
    return dist


_CUT_OFF = 1 << 20  # added to the static distance of a hex no line of communication reaches


def distance_along_lines(game: GameDefinition, board: Board, state: GameState, side: str) -> dict[Hex, int]:
    """``retreat { toward supply-line }`` (Smolensk 10.6(6), and the Leningrad
    errata: "退却是优先从自军联络源可以引的最短联络线的格子中退却"): each hex's
    distance to the side's sources round what a line of communication can
    never pass now (3.3(1): an enemy unit; the supply rules' impassable
    terrain and unbridged blocking hexsides), counted in hexes (no rail net:
    the shortest distance).  Enemy ZOC does not bend it: a retreat into ZOC
    costs a step (10.6(4)) and the owner's choice weighs that.  A hex no such
    way reaches gets ``_CUT_OFF`` plus its static distance
    (``distance_to_supply``), so a unit cut off still retreats toward its
    sources.  Kept for the state's version."""
    key = ("retreat-lines", side, state.version)
    hit = state.cache.get(key)
    if hit is not None:
        return hit
    enemy = enemy_blocking(game, board, state, side)
    lost = lost_sources(board, state)
    # a function of what blocks lines now: the states that differ only in the
    # side's own units (a move, a retreat weighed by a bot) share one search
    shared = _SHARED.get(board)
    if shared is None or shared[0] is not game.supply:
        shared = _SHARED[board] = (game.supply, {})
    content = (side, enemy, lost)
    out = shared[1].get(content)
    if out is None:
        out = _lines_search(game, board, side, enemy, lost)
        if len(shared[1]) >= 64:
            shared[1].pop(next(iter(shared[1])))  # the oldest first
        shared[1][content] = out
    if len(state.cache) > 64:
        state.cache.clear()
    state.cache[key] = out
    return out


# board -> (supply rules, {(side, enemy-held hexes, lost sources): distances}): ``distance_along_lines``
# shared across states (never change one)
_SHARED: "weakref.WeakKeyDictionary[Board, tuple]" = weakref.WeakKeyDictionary()


def _lines_search(game: GameDefinition, board: Board, side: str, enemy: frozenset[Hex],
                  lost: frozenset[Hex]) -> dict[Hex, int]:
    """``distance_along_lines``' breadth-first search: the supply search's
    (runtime.supply), without the rail net, the range or the enemy ZOC."""
    st = _static(board, game.supply)
    flags = blocking_flags(st, st.impassable | enemy, ())
    dist, order = started(st, flags, board.supply_sources(side) - lost if lost else board.supply_sources(side))
    spread(st, flags, dist, order, st.nbr, 1)
    index = st.index
    out = {}
    for h, d in distance_to_supply(game, board, side, lost).items():
        i = index.get(h)
        out[h] = dist[i] if i is not None and dist[i] >= 0 else _CUT_OFF + d
    return out


def _forbidden(game: GameDefinition, board: Board, unit_class: str, h: Hex) -> str:
    """Why a retreat into ``h`` destroys the unit ("" if it does not)."""
    rules = game.retreat
    if h not in board:
        return "off the map" if "off-map" in rules.destroyed_into else ""
    terrain = board.terrain(h)
    if terrain in rules.destroyed_into:
        return f"into {game.terrain[terrain].title.lower()}"
    if "prohibited" in rules.destroyed_into and class_costs(game, board, unit_class).enter.get(h) is None:
        return "into prohibited terrain"
    return ""


def retreat_paths(game: GameDefinition, board: Board, state: GameState, unit_id: str, hexes: int,
                  enemy: str) -> list[RetreatPath]:
    """The retreat paths the owner may choose from (best-ranked only).  A
    single entry with ``destroyed`` when the unit cannot retreat."""
    u = state.units[unit_id]
    start = u.hex
    assert start is not None
    rules = game.retreat
    counter = game.counters[unit_id]
    line = rules.toward == "supply-line"
    if line:  # nearer along the lines of communication open now (10.6(6))
        dist = distance_along_lines(game, board, state, u.side)
    else:
        dist = distance_to_supply(game, board, u.side, lost_sources(board, state))
    ezoc = zoc_of(game, board, state, enemy)
    free = bool(rules.zoc_free_with_friends) and game.matches(unit_id, rules.zoc_free_with_friends)
    overrun = overrun_hexes(game, state, unit_id) if rules.overrun else frozenset()
    limit = game.stacking.get("units")
    if limit is None and extra_limits(game.stacking):
        limit = 99  # only the hq and per-selector limits apply
    closed = closed_to(game, board, state, u.side)  # the enemy's sources (GJ63 2.2.1 5)

    def over(h: Hex) -> bool:
        return stack_count(game, state, h, unit_id) + stack_weight(game, unit_id) > limit or bool(extra_bars(game, state, h, unit_id))
    big = 1 << 30

    first = rules.toward == "supply-first"  # nearer supply is a preference among the paths (AVD 6 h)

    def blocked(n: Hex) -> bool:
        side_there = state.side_at(n)
        return side_there is not None and side_there != u.side and n not in overrun or n in closed

    def extend(path: tuple[Hex, ...], losses: int, remaining: int, extended: int,
               crossed: frozenset[str] = frozenset(), away: int = 0) -> list[RetreatPath]:
        here = path[-1] if path else start
        if remaining == 0:
            if limit is not None and rules.overstack == "extend" and path and \
                    over(here):
                if extended > 12:
                    return [RetreatPath(path, losses, True, "no hex to stop in", away)]
                return extend(path, losses, 1, extended + 1, crossed, away)
            if limit is not None and rules.overstack == "destroyed" and path and \
                    over(here):
                return [RetreatPath(path, losses, True, "over-stacked at the end of its retreat", away)]
            if crossed and start in ezoc and here in ezoc:  # AVD 6 e: its start and its end in enemy ZOC
                return [RetreatPath(path, losses, True, f"across a {'/'.join(sorted(crossed))} from enemy ZOC "
                                    "to enemy ZOC", away)]
            return [RetreatPath(path, losses, False, "", away)]
        options: list[RetreatPath] = []
        d_here = dist.get(here, big)
        # offboard: a unit on the map edge may be forced off
        step_targets = [(n, e) for n, e in board.adj[here] if n not in path and n != start]
        if first and not extended:  # every hex of the ordered retreat: the ranking prefers the nearer
            candidates = step_targets
        elif first:  # an over-stacked end retreats on: nearer, else as near, else farther, where it can
            open_ = [(n, e) for n, e in step_targets if not blocked(n)]
            candidates = [(n, e) for n, e in open_ if dist.get(n, big) < d_here] or \
                [(n, e) for n, e in open_ if dist.get(n, big) == d_here] or open_
        elif line:  # the nearest of the open hexes: the shortest way back along the lines (10.6(6))
            open_ = [(n, e) for n, e in step_targets if not blocked(n)]
            best = min((dist.get(n, big) for n, _ in open_), default=big)
            candidates = [(n, e) for n, e in open_ if dist.get(n, big) == best] if best <= d_here else []
        else:
            closer = [(n, e) for n, e in step_targets if dist.get(n, big) < d_here]
            candidates = closer or [(n, e) for n, e in step_targets if dist.get(n, big) <= d_here]
        for n, e in candidates:
            if blocked(n):
                continue
            step_away = away + int(first and dist.get(n, big) >= d_here)
            why = _forbidden(game, board, counter.unit_class, n)
            if not why and len(path) >= 1 and any(e.crosses(f) for f in rules.second_hex_across):
                why = f"across an unbridged {'/'.join(sorted(rules.second_hex_across))} on its second hex"
            if why:
                options.append(RetreatPath(path + (n,), losses, True, why, step_away))
                continue
            add = 0
            if n in ezoc and not (free and state.side_at(n) == u.side):
                if rules.enemy_zoc == "destroyed":
                    options.append(RetreatPath(path + (n,), losses, True, "into an enemy ZOC", step_away))
                    continue
                if rules.enemy_zoc == "lose-step":
                    add = 1
            options.extend(extend(path + (n,), losses + add, remaining - 1, extended,
                                  crossed | (e.hexside & rules.zoc_to_zoc_across), step_away))
        if not options:
            return [RetreatPath(path, losses, True, "no hex to retreat into")]
        return options

    paths = extend((), 0, hexes, 0)
    best = min(p.rank()[:3] for p in paths)
    chosen = [p for p in paths if p.rank()[:3] == best]
    # no extension beats extension (10.6(6) priority (5))
    shortest = min(len(p.hexes) for p in chosen)
    chosen = [p for p in chosen if len(p.hexes) == shortest]
    unique = {p.hexes: p for p in chosen}
    return sorted(unique.values(), key=lambda p: [board.hex_id(h) for h in p.hexes])


def advance_limit(game: GameDefinition, board: Board, unit_id: str) -> int:
    c = game.counters[unit_id]
    return game.advance.hexes_for(game.selectors_of(unit_id), c.unit_class)


def _advance_cap(game: GameDefinition, board: Board, a: Hex, b: Hex, ignored: frozenset[str] = frozenset()) -> int:
    """How many hexes an advance may count once it enters ``b`` from ``a``;
    ``ignored``: hexside kinds whose effects the combat segment ignores
    (Smolensk 15.1(3): the surprise attack ignores rivers)."""
    cap = 99
    for eff in board.effects(b):
        if eff.advance is not None:
            cap = min(cap, eff.advance)
    e = board.edge(a, b)
    for f in e.hexside:
        if f in ignored:
            continue
        eff = game.chart.effects.get(f)
        if eff is not None and eff.advance is not None:
            cap = min(cap, eff.advance)
    return cap


def advance_paths(game: GameDefinition, board: Board, state: GameState, unit_id: str,
                  vacated: Hex) -> list[tuple[Hex, ...]]:
    """Legal advances for one attacker into the vacated hex and beyond."""
    u = state.units[unit_id]
    assert u.hex is not None
    if vacated not in board or u.hex.distance(vacated) != 1:
        return []
    c = game.counters[unit_id]
    costs = class_costs(game, board, c.unit_class)
    limit = game.stacking.get("units")
    n_max = advance_limit(game, board, unit_id)
    closed = closed_to(game, board, state, u.side)  # the enemy's sources (GJ63 2.2.1 5)

    overrun = overrun_hexes(game, state, unit_id) if game.advance.overrun else frozenset()
    ignored = frozenset(state.step.get("ignore", ()))  # the combat segment's (15.1(3))

    def enterable(a: Hex, b: Hex, k: int) -> bool:
        if b not in board or costs.enter.get(b) is None or b in closed:
            return False
        side_there = state.side_at(b)
        if side_there is not None and side_there != u.side and b not in overrun:
            return False
        return _advance_cap(game, board, a, b, ignored) >= k

    def fits(h: Hex) -> bool:
        return (limit is None or stack_count(game, state, h, unit_id) + stack_weight(game, unit_id) <= limit) and \
            not extra_bars(game, state, h, unit_id)

    def stops(a: Hex, b: Hex) -> bool:  # crossing a first-hex-only hexside unbridged
        e = board.edge(a, b)
        return any(e.crosses(f) for f in game.advance.first_hex_across if f not in ignored)

    out: list[tuple[Hex, ...]] = []
    if n_max < 1 or not enterable(u.hex, vacated, 1):
        return out
    if fits(vacated):
        out.append((vacated,))
    if n_max >= 2 and _advance_cap(game, board, u.hex, vacated, ignored) >= 2 and not stops(u.hex, vacated):
        for n, _ in board.adj[vacated]:
            if n != u.hex and enterable(vacated, n, 2) and fits(n) and not stops(vacated, n):
                out.append((vacated, n))
    return out
