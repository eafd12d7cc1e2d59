"""Lines of communication (supply): which hexes a side's lines reach.

One multi-source search per side and state, cached on ``state.version``;
a unit's supply is a lookup of its hex in that map.

Rules (``SupplyRules``), decided precisely here:

* A line is a chain of adjacent hexes from a source to the hex it supplies.
  Its *length* is the number of steps.  For a side with a rail rule
  (``rules.rail[side] = N``) the length is counted from the rail net: the
  hexes of the side's sources and every hex reached from them moving only
  across hexsides that carry a ``rail`` link count as sources (length 0), and
  a line runs at most N hexes beyond them (Smolensk 3.3(3): 6 off the rail is
  supplied, 7 is not).  A side listed in ``rules.range`` has lines of at most
  that length (with both, the smaller limit applies to the off-rail length).
* A line may not ENTER a hex that
    - holds enemy units (``blocked_by_enemy_units``),
    - has impassable terrain or an impassable feature (``impassable``),
    - has terrain/a feature in ``impassable_unless`` unless it crosses the
      hexside along the named link (a mountain entered along the road),
  and may not CROSS a hexside whose kind is in ``blocking_hexsides`` unless
  the hexside is bridged.
* Enemy ZOC (3.3(1) "不能通过...自军单位不存在的敌支配地域. 但能进入敌人的支配地域"):
  a line may END in an enemy-ZOC hex but may not pass THROUGH one, i.e. it may
  not LEAVE an enemy-ZOC hex, unless a friendly unit is in that hex (when
  ``friendly_negates_zoc``).  ZOC negation by fortresses is already applied by
  ``zoc.enemy_zoc``.  The same holds for the rail net: a rail hex in enemy ZOC
  is reached but the rail trace stops there.
* Sources: ``board.supply_sources(side)`` minus hexes a line could not enter
  (enemy-occupied, impassable terrain).  A source in terrain that is
  impassable-unless-link still counts (no hexside is crossed to reach it).
  A source in enemy ZOC (no friendly unit) supplies itself only: the line
  would have to leave it.

The blocking is applied through the weight function of the search (returns
None for a step a line may not take); the board graph is never edited or
viewed.  ``supply_map_reference`` is an independent plain-deque
implementation of the same rules, used by tests and the benchmark.
"""
from __future__ import annotations

import weakref
from collections import deque

import networkx as nx

from .board import Board
from .definition import GameDefinition, SupplyRules
from .hexes import Hex
from .state import GameState, eliminate
from .zoc import enemy_zoc

__all__ = ["supply_map", "reached", "supply_status", "trace_line", "supply_map_reference", "in_supply",
           "sources_of"]

RAIL = "rail"


# ---------------------------------------------------------------- static data

class _Static:
    """Board-only blocking data for one SupplyRules: computed once per board."""

    __slots__ = ("rules", "impassable", "bad_steps", "bad_targets", "neighbours", "along", "hexes", "index",
                 "nbr", "bad", "along_nbr")

    def __init__(self, board: Board, rules: SupplyRules):
        self.rules = rules
        hexes = board.map.hexes
        imp = rules.impassable
        unless = rules.impassable_unless
        blocking = rules.blocking_hexsides
        impassable = set()
        need: dict[Hex, frozenset[str]] = {}  # hex -> the links a line must enter it along (all of them)
        for h, mh in hexes.items():
            kinds = (mh.terrain, *mh.features)
            if imp and any(k in imp for k in kinds):
                impassable.add(h)
                continue
            if unless:
                links = frozenset(unless[k] for k in kinds if k in unless)
                if links:
                    need[h] = links
        bad: set[tuple[Hex, Hex]] = set()
        for u, nbrs in board.adj.items():
            for v, e in nbrs:
                req = need.get(v)
                if req is not None and not req <= e.links:
                    bad.add((u, v))  # entering v not along every required link
                elif blocking and not e.bridged and e.hexside & blocking:
                    bad.add((u, v))
        self.impassable = frozenset(impassable)
        self.bad_steps = frozenset(bad)
        self.bad_targets = frozenset(v for _, v in bad)
        # the board's adjacency without the edges, for the search's loops
        self.neighbours = {u: tuple(v for v, _ in nbrs) for u, nbrs in board.adj.items()}
        self.along: dict[str, dict[Hex, tuple[Hex, ...]]] = {}  # link -> neighbours across a hexside with it
        # the same as integers for the search: hex i is hexes[i]; nbr[i] its neighbours' numbers, in the
        # adjacency's order; bad holds u * n + v for each step (u, v) in bad_steps
        self.hexes: list[Hex] = list(board.adj)
        self.index: dict[Hex, int] = {h: i for i, h in enumerate(self.hexes)}
        index = self.index
        self.nbr: list[tuple[int, ...]] = [tuple(index[v] for v in self.neighbours[u]) for u in self.hexes]
        n = len(self.hexes)
        self.bad = frozenset(index[u] * n + index[v] for u, v in bad)
        self.along_nbr: dict[str, list[tuple[int, ...]]] = {}

    def numbered_along(self, board: Board, link: str) -> list[tuple[int, ...]]:
        out = self.along_nbr.get(link)
        if out is None:
            along, index = self.neighbours_along(board, link), self.index
            out = self.along_nbr[link] = [tuple(index[v] for v in along[u]) for u in self.hexes]
        return out

    def neighbours_along(self, board: Board, link: str) -> dict[Hex, tuple[Hex, ...]]:
        out = self.along.get(link)
        if out is None:
            out = self.along[link] = {u: tuple(v for v, e in nbrs if link in e.links) for u, nbrs in board.adj.items()}
        return out


_STATIC: "weakref.WeakKeyDictionary[Board, _Static]" = weakref.WeakKeyDictionary()


def _static(board: Board, rules: SupplyRules) -> _Static:
    s = _STATIC.get(board)
    if s is None or s.rules is not rules:
        s = _Static(board, rules)
        _STATIC[board] = s
    return s


# ---------------------------------------------------------------- dynamic blocking

def lost_sources(board: Board, state: GameState) -> frozenset[Hex]:
    """Source hexes an effect took away (``lose-source``: AVD's Soviet 1517 from
    turn 4).  None in a game without that effect; else kept for the state's
    version (the effect bumps it)."""
    if not _loses_sources(board):
        return frozenset()
    key = ("lost-sources", state.version)
    hit = state.cache.get(key)
    if hit is None:
        hit = state.cache[key] = frozenset(board.parse(k[len("source-lost:"):]) for k in state.done
                                           if k.startswith("source-lost:"))
    return hit


def _loses_sources(board: Board) -> bool:
    """Whether any of the game's effects is a ``lose-source`` (fixed for a board)."""
    kept = board.__dict__.get("_loses_sources")
    if kept is None:
        kept = board.__dict__["_loses_sources"] = any(e.verb == "lose-source" for effs in board.game.effects.values()
                                                      for e in effs)
    return kept


def sources_of(board: Board, state: GameState, side: str) -> frozenset[Hex]:
    """The side's supply sources now: the printed ones and its map edges, less the lost ones."""
    lost = lost_sources(board, state)
    return board.supply_sources(side) - lost if lost else board.supply_sources(side)


def closed_to(game: GameDefinition, board: Board, state: GameState, side: str) -> frozenset[Hex]:
    """The hexes ``side``'s units may never enter: the other sides' sources,
    where the game closes them (``supply { closed-sources }``, GJ63 2.2.1 5)."""
    if not game.supply.closed_sources:
        return frozenset()
    out: set[Hex] = set()
    for other in game.sides:
        if other != side:
            out |= sources_of(board, state, other)
    return frozenset(out)


def _blocking(game: GameDefinition, board: Board, state: GameState, side: str):
    """(no_enter, no_exit, static): hexes a line may not enter / leave now."""
    st = _static(board, game.supply)
    enemy, no_exit = _unit_blocking(game, board, state, side)
    return st.impassable | enemy, no_exit, st


def _unit_blocking(game: GameDefinition, board: Board, state: GameState, side: str
                   ) -> tuple[frozenset[Hex], frozenset[Hex]]:
    """What blocks lines now besides the board (``_blocking`` without the
    impassable hexes): the hexes a line may not enter for the units or
    control there, and the hexes it may not leave (enemy ZOC)."""
    return enemy_blocking(game, board, state, side), _zoc_stops(game, board, state, side)


def _zoc_stops(game: GameDefinition, board: Board, state: GameState, side: str) -> frozenset[Hex]:
    """The enemy ZOC that stops a line of ``side``'s now: none where ZOC
    does not block lines; less the hexes a friendly unit negates it in."""
    rules = game.supply
    if not rules.blocked_by_enemy_zoc:
        return frozenset()
    units = state.units
    no_exit = enemy_zoc(game, board, state, side)
    if rules.friendly_negates_zoc:  # a friendly unit (first in its hex) lets a line leave
        # (found among the stacks on the map: fewer than the hexes of the enemy ZOC)
        friendly = [h for h, ids in state.occupants.items() if h in no_exit and ids and units[ids[0]].side == side]
        if friendly:
            no_exit = no_exit.difference(friendly)
    return no_exit


def barred_ends(game: GameDefinition, board: Board, state: GameState, side: str) -> frozenset[Hex]:
    """The hexes a line of ``side``'s reaches but may not end in: where
    lines may not end in enemy ZOC (``supply { ends-in-zoc no }``, GJ63
    3.2(1)), the enemy ZOC that no friendly unit negates; none elsewhere
    (Gekitou 3.3(1): a line may enter enemy ZOC).  A place there is not
    supplied (``supplied(side, hex)``: a GJ63 VP hex next to an enemy unit);
    a unit's own hex never is one, since the unit negates the ZOC."""
    if game.supply.ends_in_zoc:
        return frozenset()
    key = ("barred-ends", side, state.version)
    hit = state.cache.get(key)
    if hit is None:
        hit = state.cache[key] = _zoc_stops(game, board, state, side)
    return hit


def enemy_blocking(game: GameDefinition, board: Board, state: GameState, side: str) -> frozenset[Hex]:
    """The hexes a line of ``side``'s may not enter for the units or control
    there now (``_unit_blocking`` without the enemy ZOC)."""
    rules = game.supply
    units = state.units
    # where only the enemy's units block, kept until one of them moves (a two-sided game: the other side's
    # stamp), so that the states between share one set, and the supply searches keyed on it a quick look-up;
    # not where attacks move into enemy hexes (a hex holding both sides counts for the side that came first,
    # which a friendly unit leaving it changes)
    key = None
    if not rules.blocked_by_enemy_control and len(game.sides) == 2 and side in game.sides and \
            game.combat.attack != "move-in":
        other = next(x for x in game.sides if x != side)
        key = ("enemy-blocking", side, state.side_stamp(other))
        hit = state.cache.get(key)
        if hit is not None:
            return hit
    enemy: set[Hex] = set()
    if rules.blocked_by_enemy_units:
        enemy.update(h for h, ids in state.occupants.items() if ids and units[ids[0]].side != side)
    if rules.blocked_by_enemy_control:  # lines run only through the side's own hexes (Barbarossa 9.0)
        # (the map's hexes less the side's own: a set difference, not a look-up per hex)
        enemy.update(board.map.hexes.keys() - [h for h, owner in state.control.items() if owner == side])
    result = frozenset(enemy)
    if key is not None:
        if len(state.cache) > 64:
            state.cache.clear()
        state.cache[key] = result
    return result


def _cutoff(rules: SupplyRules, side: str) -> int | None:
    limits = [n for n in (rules.rail.get(side), rules.range.get(side)) if n is not None]
    return min(limits) if limits else None


def _weights(no_enter, no_exit, st: _Static, link: str = RAIL):
    """The weight functions: 1 per step, None for a step a line may not take.
    Kept to two set lookups on the common path (a hot loop: ~40,000 calls on
    a 7,200-hex map)."""
    bad_steps = st.bad_steps
    special = no_enter | st.bad_targets  # hexes some step into may be refused

    def step(u, v, d):
        # networkx calls weight(from, to, edge data)
        if u in no_exit:
            return None
        if v in special and (v in no_enter or (u, v) in bad_steps):
            return None
        return 1

    def rail_step(u, v, d):
        if u in no_exit or link not in d["edge"].links:
            return None
        if v in special and (v in no_enter or (u, v) in bad_steps):
            return None
        return 1

    return step, rail_step


def _origins(game, board, side, no_enter, rail_step, state) -> tuple[set[Hex], set[Hex]]:
    """(sources, origins of the search): for rail sides the origins are the
    rail net, found by a first search along rail hexsides only."""
    sources = {h for h in sources_of(board, state, side) if h not in no_enter}
    if not sources or side not in game.supply.rail:
        return sources, sources
    net = nx.multi_source_dijkstra_path_length(board.graph, sources, weight=rail_step)
    return sources, set(net)


# ---------------------------------------------------------------- public API

def supply_map(game: GameDefinition, board: Board, state: GameState, side: str) -> dict[Hex, int]:
    """Every hex a line of communication of ``side`` reaches, with its length
    (off-rail length for rail sides).  Cached on ``state.version``; the
    returned dict is a copy the caller may keep or change."""
    return dict(_supply_map(game, board, state, side))


def reached(game: GameDefinition, board: Board, state: GameState, side: str) -> dict[Hex, int]:
    """``supply_map`` without the copy, for callers that only read it (the
    map is shared by every state whose lines are blocked alike: never change it)."""
    return _supply_map(game, board, state, side)


def _supply_map(game, board, state, side) -> dict[Hex, int]:
    key = ("supply", side, state.version)
    cache = state.cache
    hit = cache.get(key)
    if hit is not None:
        return hit
    enemy, no_exit = _unit_blocking(game, board, state, side)
    # the map is a function of what blocks lines now: states that differ only
    # in what does not block (a unit leaving a stack, a move outside every ZOC)
    # share one search (the board's impassable hexes are the same for all)
    shared = _SHARED.get(board)
    if shared is None or shared[0] is not game.supply:
        shared = (game.supply, {}, {})
        _SHARED[board] = shared
    lost = lost_sources(board, state)
    content = (side, enemy, no_exit, lost)
    result = shared[1].get(content)
    if result is None:
        st = _static(board, game.supply)
        last = shared[2].get(side)  # (a unit that left an enemy ZOC hex where it alone let lines through:
        # the side's last map stands if lines never went on from that hex)
        if last is not None and last[0][1] == enemy and last[0][3] == lost and last[0][2] < no_exit and \
                _stopped_anyway(game, side, st, last[1], last[0][2], no_exit):
            result = last[1]
        else:
            result = _search(game, board, side, st.impassable | enemy, no_exit, st, lost)
        if len(shared[1]) >= 256:
            shared[1].pop(next(iter(shared[1])))  # the oldest first
        shared[1][content] = result
    shared[2][side] = (content, result)
    if len(cache) > 64:
        cache.clear()
    cache[key] = result
    return result


# board -> (supply rules, {(side, enemy, no_exit, lost): supply map}, {side: (content, map) of its map asked
# for last}): searches shared across states
_SHARED: "weakref.WeakKeyDictionary[Board, tuple[SupplyRules, dict, dict]]" = weakref.WeakKeyDictionary()


def _stopped_anyway(game: GameDefinition, side: str, st: _Static, lines: dict[Hex, int], no_exit: frozenset[Hex],
                    more: frozenset[Hex]) -> bool:
    """Whether ``_search`` with the hexes ``more`` (a superset of ``no_exit``)
    closed to leaving gives ``lines``, its map with ``no_exit``, as it is
    (the same hexes, lengths and order): true where no hex newly closed added
    a hex to the search when it was carried on from (``spread``), every hex
    it could have added having been added before by a hex ahead of it in
    the map's order, at the same length, that lines may leave.  A hex on the
    rail net (length 0 on a rail side) is not judged: false."""
    rules = game.supply
    cutoff = _cutoff(rules, side)
    index, hexes, nbr, bad, n = st.index, st.hexes, st.nbr, st.bad, len(st.hexes)
    pos = None
    for x in more - no_exit:
        dx = lines.get(x)
        if dx is None or (cutoff is not None and dx + 1 > cutoff):
            continue  # never carried on from
        if dx == 0 and side in rules.rail:
            return False
        if pos is None:
            pos = {h: i for i, h in enumerate(lines)}
        i = index[x]
        for v in nbr[i]:
            if lines.get(hexes[v]) != dx + 1 or i * n + v in bad:
                continue  # not a hex x could have added
            # added by x unless a hex ahead of it at its length, open to leaving, adds it first
            if not any(w != i and v in nbr[w] and lines.get(hexes[w]) == dx and pos[hexes[w]] < pos[x]
                       and hexes[w] not in no_exit and w * n + v not in bad for w in nbr[v]):
                return False
    return True


def _search(game, board, side, no_enter, no_exit, st: _Static, lost: frozenset[Hex] = frozenset()) -> dict[Hex, int]:
    """The search of ``supply_map``: breadth first (every step costs 1) over
    the board graph's adjacency (as numbered neighbour tuples, and along the
    rail link for the rail net, computed once per board), with the same step
    rule as the weight functions of ``_weights``; the map it returns lists
    the hexes in the order the search reached them."""
    rules = game.supply
    flags = blocking_flags(st, no_enter, no_exit)
    dist, order = started(st, flags, (h for h in board.supply_sources(side) if h not in lost))
    if order and side in rules.rail:  # the rail net first: it counts as sources
        spread(st, flags, dist, order, st.numbered_along(board, rules.rail_link.get(side, RAIL)), 0)
    spread(st, flags, dist, order, st.nbr, 1, _cutoff(rules, side))
    hexes = st.hexes
    return {hexes[i]: dist[i] for i in order}


def blocking_flags(st: _Static, no_enter, no_exit) -> bytearray:
    """Per numbered hex (``_Static.hexes``): 1 = a line may not enter it, 2 =
    may not leave it, 4 = some step into it is refused (``_Static.bad``)."""
    index = st.index
    flags = bytearray(len(st.hexes))
    for h in st.bad_targets:
        flags[index[h]] |= 4
    for h in no_enter:
        i = index.get(h)
        if i is not None:
            flags[i] |= 1
    for h in no_exit:
        i = index.get(h)
        if i is not None:
            flags[i] |= 2
    return flags


def started(st: _Static, flags: bytearray, sources) -> tuple[list[int], list[int]]:
    """(distance per numbered hex, -1 where not reached; the hexes reached in
    order): a breadth-first search begun at the ``sources`` a line may enter."""
    index = st.index
    dist = [-1] * len(st.hexes)
    order = []
    for h in sources:
        i = index[h]
        if dist[i] < 0 and not flags[i] & 1:
            dist[i] = 0
            order.append(i)
    return dist, order


def spread(st: _Static, flags: bytearray, dist: list[int], order: list[int], nbr: list[tuple[int, ...]],
           step: int, cutoff: int | None = None) -> None:
    """Carry a breadth-first search on from every hex in ``order`` (read from
    the start, while it grows) along ``nbr``, each step adding ``step`` (0:
    the rail net, which counts as sources), to at most ``cutoff``: never
    into a hex flagged 1, out of one flagged 2, nor a refused step into one
    flagged 4 (``blocking_flags``)."""
    n, bad = len(st.hexes), st.bad
    append = order.append
    for u in order:
        d = dist[u] + step
        if (cutoff is not None and d > cutoff) or flags[u] & 2:
            continue
        for v in nbr[u]:
            if dist[v] < 0:
                f = flags[v]
                if f and (f & 1 or (f & 4 and u * n + v in bad)):
                    continue
                dist[v] = d
                append(v)


def reached_along(game: GameDefinition, board: Board, state: GameState, side: str, link: str) -> frozenset[Hex]:
    """The hexes a line of ``side``'s reaches running along ``link`` all the
    way from a source (GJ63 18.0(1)2: a line along roads only), blocked as
    any line is."""
    key = ("along", side, link, state.version)
    hit = state.cache.get(key)
    if hit is not None:
        return hit
    no_enter, no_exit, st = _blocking(game, board, state, side)
    out = linked(board, sources_of(board, state, side), link, no_enter, no_exit, st.bad_steps)
    if len(state.cache) > 64:
        state.cache.clear()
    state.cache[key] = out
    return out


def linked(board: Board, sources, link: str, no_enter=frozenset(), no_exit=frozenset(),
           bad_steps=frozenset()) -> frozenset[Hex]:
    """The hexes joined to ``sources`` by hexsides carrying ``link`` (rail,
    road): a step never into ``no_enter``, nor out of ``no_exit``, nor one of
    ``bad_steps``; the sources in ``no_enter`` are left out."""
    starts = [h for h in sources if h not in no_enter]
    seen = set(starts)
    todo = deque(starts)
    while todo:
        u = todo.popleft()
        if u in no_exit:
            continue
        for v, e in board.adj[u]:
            if v in seen or link not in e.links or v in no_enter or (u, v) in bad_steps:
                continue
            seen.add(v)
            todo.append(v)
    return frozenset(seen)


def supply_status(game: GameDefinition, board: Board, state: GameState, side: str,
                  by_city: dict[str, Hex] | None = None) -> dict[str, bool]:
    """Unit id -> in supply, for every unit of ``side`` on the map.  Where
    the game has city supply for the side (Barbarossa 9.0), a unit without a
    line in a VP hex is supplied, up to the hex's VP in units (by unit id);
    those units are put in ``by_city`` (unit -> hex)."""
    reached = _supply_map(game, board, state, side)
    status = {u.id: u.hex in reached for u in state.units.values() if u.hex is not None and u.side == side}
    if side in game.supply.city_supply:
        room: dict[Hex, int] = {}
        for uid in sorted(x for x, ok in status.items() if not ok):  # (by unit id, as the room is handed out)
            h = state.units[uid].hex
            assert h is not None  # (status holds the units on the map)
            mh = board.map.hexes.get(h)
            if mh is None or not mh.vp:
                continue
            room.setdefault(h, mh.vp)
            if room[h] > 0:
                room[h] -= 1
                status[uid] = True
                if by_city is not None:
                    by_city[uid] = h
    return status


def in_supply(game: GameDefinition, board: Board, state: GameState, unit_id: str) -> bool:
    u = state.units[unit_id]
    return u.hex is not None and u.hex in _supply_map(game, board, state, u.side)


def trace_line(game: GameDefinition, board: Board, state: GameState, side: str, h: Hex,
               rail_excluded: frozenset[Hex] = frozenset()) -> list[Hex] | None:
    """A line of communication from a source to ``h`` (source first), or None.
    For rail sides: the rail part (shortest in rail hexes) then the shortest
    off-rail part.  ``rail_excluded``: rail hexes the line may not follow
    (Smolensk 16.7: a railway another panzer group HQ's line used)."""
    if not rail_excluded and h not in _supply_map(game, board, state, side):
        return None
    no_enter, no_exit, st = _blocking(game, board, state, side)
    step, plain_rail_step = _weights(no_enter, no_exit, st, game.supply.rail_link.get(side, RAIL))

    def rail_step(u, v, d):
        return None if v in rail_excluded else plain_rail_step(u, v, d)

    sources, origins = _origins(game, board, side, no_enter, rail_step, state)
    if not origins:
        return None
    try:
        _, path = nx.multi_source_dijkstra(board.graph, origins, target=h, cutoff=_cutoff(game.supply, side),
                                           weight=step)
    except nx.NetworkXNoPath:
        return None
    start = path[0]
    if start in sources:
        return path
    _, rail_path = nx.multi_source_dijkstra(board.graph, sources, target=start, weight=rail_step)
    return rail_path + path[1:]


# ---------------------------------------------------------------- reference

def supply_map_reference(game: GameDefinition, board: Board, state: GameState, side: str) -> dict[Hex, int]:
    """The same rules as ``supply_map``, written independently: plain
    breadth-first searches over ``board.adj``, every check made at each step
    straight from the rules.  Not cached.  For tests and benchmarks."""
    rules = game.supply
    hexes = board.map.hexes
    enemy_at: set[Hex] = set()
    friend_at: set[Hex] = set()
    for u in state.units.values():
        if u.hex is None:
            continue
        (friend_at if u.side == side else enemy_at).add(u.hex)
    zoc = enemy_zoc(game, board, state, side) if rules.blocked_by_enemy_zoc else frozenset()

    def kinds(h: Hex) -> tuple[str, ...]:
        mh = hexes[h]
        return (mh.terrain,) + tuple(mh.features)

    def enterable(h: Hex) -> bool:
        if rules.blocked_by_enemy_units and h in enemy_at:
            return False
        if rules.blocked_by_enemy_control and state.control.get(h) != side:
            return False
        return not any(k in rules.impassable for k in kinds(h))

    def may_leave(h: Hex) -> bool:
        if h not in zoc:
            return True
        return rules.friendly_negates_zoc and h in friend_at

    def may_step(a: Hex, b: Hex, edge) -> bool:
        if not may_leave(a) or not enterable(b):
            return False
        for k in kinds(b):
            link = rules.impassable_unless.get(k)
            if link is not None and link not in edge.links:
                return False
        if not edge.bridged and any(f in rules.blocking_hexsides for f in edge.hexside):
            return False
        return True

    start = [h for h in sources_of(board, state, side) if enterable(h)]
    dist: dict[Hex, int] = {}
    if side in rules.rail:
        net = set(start)
        todo = deque(start)
        while todo:
            a = todo.popleft()
            for b, e in board.adj[a]:
                if b not in net and rules.rail_link.get(side, RAIL) in e.links and may_step(a, b, e):
                    net.add(b)
                    todo.append(b)
        start = list(net)
    limit = None
    for n in (rules.rail.get(side), rules.range.get(side)):
        if n is not None:
            limit = n if limit is None else min(limit, n)
    for h in start:
        dist[h] = 0
    todo = deque(start)
    while todo:
        a = todo.popleft()
        d = dist[a] + 1
        if limit is not None and d > limit:
            continue
        for b, e in board.adj[a]:
            if b not in dist and may_step(a, b, e):
                dist[b] = d
                todo.append(b)
    return dist


# ------------------------------------------------------------------ consequences

_CONSEQUENCE_MARKERS = {"out-of-supply": "out-of-supply", "isolated": "isolated", "disrupt": "disrupted"}  # its marker


def check_supply(game: GameDefinition, board: Board, state: GameState, side: str) -> list[dict]:
    """Apply the game's supply consequence to ``side``'s units on the map
    (one search, then a lookup per unit) and return what happened, for the
    log: lose a step (a unit so eliminated is removed for good), a marker
    ("out-of-supply", "isolated") that supplied units lose again,
    disruption (a disrupted unit out of supply is eliminated), or
    elimination.  Units the rules exempt (a fortress) are untouched."""
    rules = game.supply
    by_city: dict[str, Hex] = {}
    status = supply_status(game, board, state, side, by_city)
    events: list[dict] = [{"supply": uid, "result": f"supplied by the city in {board.hex_id(h)}"}
                          for uid, h in sorted(by_city.items())]
    for uid in sorted(status):
        u = state.units[uid]
        c = game.counters[uid]
        if rules.exempt and game.matches(uid, rules.exempt):
            continue
        consequence = rules.consequence_for(game.selectors_of(uid)) if rules.consequences else rules.consequence
        marker = _CONSEQUENCE_MARKERS.get(consequence)
        if status[uid]:
            if marker and marker != "disrupted" and marker in u.markers:
                state.unmark(uid, marker)
                events.append({"supply": uid, "result": f"back in supply: {marker} removed"})
            continue
        result = ""
        if consequence == "lose-step":
            if u.step + 1 < len(c.steps):
                state.set_unit(uid, step=u.step + 1)
                result = "loses a step"
            else:
                eliminate(game, state, uid, "supply")
                result = "eliminated (removed from play)"
        elif consequence == "eliminate":
            eliminate(game, state, uid, "supply")
            result = "eliminated (removed from play)"
        elif consequence == "disrupt":
            if "disrupted" in u.markers:
                eliminate(game, state, uid, "supply")
                result = "already disrupted: eliminated"
            else:
                state.mark(uid, "disrupted")
                result = "disrupted"
        elif marker and marker not in u.markers:
            state.mark(uid, marker)
            result = f"marked {marker}"
        if result:
            events.append({"supply": uid, "result": result})
    state.log.extend(events)
    return events
