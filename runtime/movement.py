"""Movement: legal destinations and cheapest paths for one unit.

A Dijkstra bounded by the unit's MP over (hex, must-stop) states, so that
path-dependent rules extend the search state, not the graph:

* entering a hex costs its terrain (features may replace or add), crossing a
  hexside adds its cost (river +1) unless bridged; along a road the road's
  cost applies whatever the terrain (9.2(1)4);
* a hexside costing ``all`` (major river) can only be crossed as the first
  step of a move and ends it (9.2(3)1);
* leaving and entering enemy ZOC cost what the game declares (Smolensk +2
  each) or end the move ("stop"); a hexside whose chart row says
  zoc-to-zoc no cannot be crossed from enemy ZOC to enemy ZOC unless bridged
  (zoc-to-zoc never: not even bridged);
* a movement mode (march) restricts every step to its links at its cost and
  keeps out of enemy ZOC;
* enemy-occupied hexes cannot be entered; stacking is checked only where a
  move ends.

MP are scaled to integers (60ths) so that 1/2 and 1/3 costs stay exact.
"""
from __future__ import annotations

import heapq
import weakref
from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .attachments import bonus
from .board import Board
from .definition import Cost, GameDefinition, MovementMode
from .hexes import Hex
from .stacking import extra_bars, extra_limits
from .state import GameState, mypyc_attr
from .supply import closed_to
from .zoc import enemy_zoc

SCALE = 60
ALL = -1  # "costs all of the unit's MP"
NO = None


class MoveError(Exception):
    """A move that the rules forbid; the message is in the game's terms."""


def scaled(x: Fraction | int) -> int:
    if type(x) is int:  # the common case, without building a Fraction
        return x * SCALE
    return int(Fraction(x) * SCALE)


def show_mp(v: int) -> str:
    """Scaled MP as printed: "3", "7/2" (as str of their Fraction)."""
    text = _MP_TEXT.get(v)
    if text is None:
        f = Fraction(v, SCALE)
        text = str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
        if len(_MP_TEXT) < 10_000:
            _MP_TEXT[v] = text
    return text


_MP_TEXT: dict[int, str] = {}


@dataclass(frozen=True, slots=True)
class ClassCosts:
    """Movement costs for one unit class, precomputed over the board."""

    enter: dict[Hex, int | None]  # hex -> scaled cost, ALL, or None (prohibited)
    hexside: dict[str, int | None]  # hexside kind -> scaled extra cost (0 if none), ALL, or None
    links: dict[str, int]  # link kind -> scaled cost when moving along it
    zoc_to_zoc_sides: frozenset[str]  # hexside kinds never crossed from enemy ZOC to enemy ZOC
    # hex -> ((neighbour, static step cost, costs all MP, no ZOC-to-ZOC), ...) for normal
    # movement: terrain, hexside and road costs, which never change during play
    steps: "_Steps"


@mypyc_attr(native_class=False)  # (a dict subclass with __missing__: an ordinary class, where compiled)
class _Steps(dict):
    """``ClassCosts.steps``: a hex's row is worked out the first time a
    search reads it (most searches read a small part of the map)."""

    __slots__ = ("_row", "_both_ways")

    def __init__(self, row: Callable[[Hex], tuple[tuple[Hex, int, bool, bool], ...]]):
        super().__init__()
        self._row = row
        self._both_ways: tuple | None = None

    def __missing__(self, h: Hex) -> tuple[tuple[Hex, int, bool, bool], ...]:
        out = self[h] = self._row(h)
        return out

    def both_ways(self, hexes) -> tuple[dict[Hex, frozenset[Hex]], int] | None:
        """For ``_flood``, worked out once over the map's ``hexes``: where a
        step from each hex that some step enters leads, and the dearest
        step; or None when a step between such hexes costs all MP or cannot
        be taken back (then a move's reach is not a component)."""
        if self._both_ways is None:
            rows = {h: self[h] for h in hexes}
            entered = {n for row in rows.values() for n, *_ in row}
            ends = {h: frozenset(n for n, *_ in rows[h]) for h in entered if h in rows}
            ok = all(not all_mp and h in ends.get(n, ()) for h in ends for n, _, all_mp, _ in rows[h])
            longest = max((step for h in ends for _, step, _, _ in rows[h]), default=0)
            self._both_ways = ((ends, longest) if ok else None,)
        return self._both_ways[0]


def _cell(cost: Cost) -> int | None:
    if cost.kind == "no":
        return NO
    if cost.kind == "all":
        return ALL
    return scaled(cost.value)


def class_costs(game: GameDefinition, board: Board, unit_class: str, mode: str = "") -> ClassCosts:
    """Static costs for a unit class, in normal movement or in a movement
    mode with its own chart columns (whose cells come first).  A link with a
    cost in the mode's own columns is a route for the mode: moving along it
    costs that, whatever hexside it crosses (Barbarossa's sea lane)."""
    cache = board.__dict__.setdefault("_class_costs", {})
    hit = cache.get((unit_class, mode))
    if hit is not None:
        return hit
    flags = game.unit_classes[unit_class].flags
    chart = game.chart.effects

    def cost_of(tid: str) -> Cost:
        eff = chart.get(tid)
        return eff.cost_for(flags, unit_class, mode) if eff else Cost("inherit")

    routes: dict[str, int] = {}
    if mode:
        for tid, t in game.terrain.items():
            eff = chart.get(tid)
            if t.kind == "link" and eff is not None:
                c = eff.mode_cost(flags, unit_class, mode)
                if c.kind == "set":
                    routes[tid] = scaled(c.value)
    # classes whose chart cells are all alike (most classes of a game) share one ClassCosts
    cells = (mode, tuple(cost_of(tid) for tid in game.terrain), tuple(routes.items()))
    alike = cache.get(cells)
    if alike is not None:
        cache[(unit_class, mode)] = alike
        return alike

    enter: dict[Hex, int | None] = {}
    memo: dict[tuple, int | None] = {}
    for h, mh in board.map.hexes.items():
        key = (mh.terrain, mh.features)
        if key not in memo:
            base = cost_of(mh.terrain)
            v: int | None = _cell(base) if base.kind != "inherit" else scaled(1)
            if base.kind == "add":
                v = scaled(1) + scaled(base.value)
            for f in mh.features:
                c = cost_of(f)
                if c.kind == "inherit" or v is NO:
                    continue
                if c.kind == "no":
                    v = NO
                elif c.kind == "all":
                    v = ALL
                elif c.kind == "add":
                    v = v if v == ALL else v + scaled(c.value)
                else:  # a feature's own cost replaces the terrain's (a city road grid)
                    v = scaled(c.value)
            memo[key] = v
        enter[h] = memo[key]
    hexside: dict[str, int | None] = {}
    links: dict[str, int] = {}
    zz = set()
    zz_never = set()  # not even over a bridge (AVD: a major river with both banks in enemy ZOC)
    for tid, t in game.terrain.items():
        c = cost_of(tid)
        if t.kind == "hexside":
            hexside[tid] = 0 if c.kind == "inherit" else _cell(c)
            eff = chart.get(tid)
            if eff is not None and not eff.zoc_to_zoc:
                zz.add(tid)
                if not eff.zoc_to_zoc_bridged:
                    zz_never.add(tid)
        elif t.kind == "link" and c.kind == "set":
            links[tid] = scaled(c.value)
    zz_sides = frozenset(zz)
    link_memo: dict[frozenset[str], int | None] = {}
    adj = board.adj

    def row(h: Hex) -> tuple[tuple[Hex, int, bool, bool], ...]:
        out = []
        for n, e in adj[h]:
            step = None
            never = bool(zz_never and e.hexside & zz_never)
            route = [routes[k] for k in e.links if k in routes] if routes else None
            if route:
                out.append((n, min(route), False, never))
                continue
            if e.links:
                if e.links not in link_memo:
                    known = [links[k] for k in e.links if k in links]
                    link_memo[e.links] = min(known) if known else None
                step = link_memo[e.links]
            if step is None:
                step = enter[n]
            if step is NO:
                continue
            all_mp = step == ALL
            if all_mp:
                step = 0
            zz_here = never
            if e.hexside and not e.bridged:
                for f in e.hexside:
                    extra = hexside.get(f, 0)
                    if extra is NO:
                        step = None
                        break
                    if extra == ALL:
                        all_mp = True
                    else:
                        step += extra
                    zz_here = zz_here or f in zz_sides
                if step is None:
                    continue
            out.append((n, step, all_mp, zz_here))
        return tuple(out)

    steps = _Steps(row)
    result = ClassCosts(enter, hexside, links, zz_sides, steps)
    cache[(unit_class, mode)] = cache[cells] = result
    return result


def mode_steps(game: GameDefinition, board: Board, unit_class: str, m: MovementMode) -> _Steps:
    """Static steps for a movement mode: only along its links, at its cost
    (or the link's), hexsides bridged by the link itself."""
    cache = board.__dict__.setdefault("_mode_steps", {})
    key = (unit_class, m.id)
    if key in cache:
        return cache[key]
    costs = class_costs(game, board, unit_class)
    edges = cache.get(m.id)  # hex -> ((neighbour, the mode's links across), ...): the same for every class
    if edges is None:
        along = m.along
        edges = cache[m.id] = {h: row for h, row in ((h, tuple((n, e.links & along) for n, e in nbrs
                                                              if e.links and not along.isdisjoint(e.links)))
                                                       for h, nbrs in board.adj.items()) if row}
    mode_cost = scaled(m.cost) if m.cost is not None else None  # (a Fraction: scaled once)
    adj = board.adj

    def row(h: Hex) -> tuple[tuple[Hex, int, bool, bool], ...]:
        adj[h]  # (a hex off the board has no row)
        out = []
        for n, along in edges.get(h, ()):
            step: int | None
            if mode_cost is not None:
                step = mode_cost
            else:
                known = [costs.links[k] for k in along if k in costs.links]
                step = min(known) if known else costs.enter[n]
            if step is NO or step == ALL:
                continue
            out.append((n, step, False, False))
        return tuple(out)

    out = cache[key] = _Steps(row)
    return out


@dataclass(eq=False, slots=True)
class MoveRange:
    """Where one unit can move now, and how.  Its costs and paths are those
    of the search it read (``cost``, ``prev``, ``stop_prev``); two ranges
    are equal when all of it is."""

    unit: str
    start: Hex
    mp: int  # scaled
    destinations: frozenset[Hex]  # legal end hexes (stacking checked, start excluded)
    search: "_Search" = field(compare=False, repr=False)  # the search it read
    mode: str = ""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MoveRange):
            return NotImplemented
        return (self.unit, self.start, self.mp, self.destinations, self.mode) == \
            (other.unit, other.start, other.mp, other.destinations, other.mode) and \
            self.cost == other.cost and self.prev == other.prev and self.stop_prev == other.stop_prev

    __hash__ = None  # type: ignore[assignment]  # (mutable data: as a dataclass with eq)

    @property
    def cost(self) -> dict[Hex, int]:
        """The cheapest scaled cost to each hex reached."""
        return self.search.cost

    @property
    def prev(self) -> dict[Hex, Hex | None]:
        """The predecessor on a cheapest path to each hex where the move may go on."""
        return self.search.prev

    @property
    def stop_prev(self) -> dict[Hex, Hex]:
        """The predecessor where the move must end in the hex (and is cheaper)."""
        return self.search.stop_prev

    def path_to(self, h: Hex) -> list[Hex]:
        cost, prev = self.search.toward(h)
        if h not in cost:
            return []
        out = [h]
        node = self.stop_prev.get(h, prev.get(h))
        while node is not None:
            out.append(node)
            node = prev[node]
        return out[::-1]

    def cost_to(self, h: Hex) -> int:
        """The cheapest scaled cost to ``h``, a hex reached (what ``cost``
        says, without a whole component's Dijkstra for one move: ``toward``)."""
        return self.search.toward(h)[0][h]

    def mp_to(self, h: Hex) -> Fraction:
        return Fraction(self.cost[h], SCALE)


def unit_mp(game: GameDefinition, state: GameState, unit_id: str, mode: MovementMode | None = None) -> int:
    pts = game.movement.points
    if pts.isdigit():
        mp = int(pts)
    else:
        u = state.units[unit_id]
        c = game.counters[unit_id]
        mp = c.steps[min(u.step, len(c.steps) - 1)].get(pts, 0)
        if unit_id in state.attached:  # what the counters under it add (an attachment's ``adds move``)
            mp += bonus(game, state, unit_id, pts)
    if not pts.isdigit():
        for _ in game.supply.halves(state.units[unit_id].markers, "move"):
            mp = mp // 2 if game.info.rounding == "down" else -(-mp // 2)  # isolated: MP halved
    v = scaled(mp) - state.entering.get(unit_id, 0)  # what moving onto the map cost (15.3(1))
    if mode is not None:
        if mode.points is not None:  # (less what entering the map cost: AVD 5 f iii's HQ, 10 hexes with the entry hex)
            return scaled(mode.points) - state.entering.get(unit_id, 0)
        if state.entering and f"{unit_id}@{mode.id}" in state.entering:  # entering cost what the mode pays
            return int(scaled(mp) * mode.multiplier) - state.entering[f"{unit_id}@{mode.id}"]  # (GJ63 7.0(2))
        if mode.multiplier != 1:
            v = int(v * mode.multiplier)
    return v


def stack_weight(game: GameDefinition, uid: str) -> int:
    """1 for a unit that counts toward the ``units`` limit, 0 for an exempt one."""
    return 0 if uid in _exempt_counters(game) else 1


def stack_count(game: GameDefinition, state: GameState, h: Hex, ignore: str = "") -> int:
    exempt = _exempt_counters(game)
    return sum(1 for x in state.occupants.get(h, ()) if x != ignore and x not in exempt)


_EXEMPT: dict[int, tuple[GameDefinition, frozenset[str]]] = {}


def _exempt_counters(game: GameDefinition) -> frozenset[str]:
    """The counters that do not count toward stacking (``exempt:CLASS-OR-FLAG``):
    fixed for a game, computed once."""
    kept = _EXEMPT.get(id(game))
    if kept is not None and kept[0] is game:
        return kept[1]
    exempt = {k[7:] for k in game.stacking if k.startswith("exempt:")}
    out = frozenset(cid for cid, c in game.counters.items()
                    if c.unit_class in exempt or exempt & game.unit_classes[c.unit_class].flags)
    if len(_EXEMPT) > 16:
        _EXEMPT.clear()
    _EXEMPT[id(game)] = (game, out)
    return out


def held_by_others(state: GameState, side: str) -> frozenset[Hex]:
    """Hexes holding a unit of another side than ``side`` (kept until the
    other side's units move, where there is one other side)."""
    placed = state.placed
    other, n = "", 0
    for k in placed:  # (the other sides whose units were placed: most games have one)
        if k != side:
            other, n = k, n + 1
    # (the other side's stamp, ``GameState.side_stamp``, read here without the call)
    key = ("held", side, ("placed", other, placed[other]) if n == 1 else state.version)
    hit = state.cache.get(key)
    if hit is None:
        units = state.units
        hit = state.cache[key] = frozenset(h for h, ids in state.occupants.items()
                                           if any(units[x].side != side for x in ids))
    return hit


def mode_by_id(game: GameDefinition, mode: str | None) -> MovementMode | None:
    if not mode:
        return None
    for m in game.movement.modes:
        if m.id == mode:
            return m
    raise MoveError(f"this game has no movement mode '{mode}'")


def move_range(game: GameDefinition, board: Board, state: GameState, unit_id: str, mode: str | None = None,
               limit: int | None = None, ranges: "_Ranges | None" = None) -> MoveRange:
    """All hexes the unit can reach.  ``limit`` (scaled MP) overrides the
    unit's MP: ``why_not`` searches further to say how much a hex needs.
    ``ranges``: ``carried_ranges`` for the unit's side, when the caller has
    them (listing every unit's moves).

    Kept from state to state (``carried_ranges``), keyed on what of the unit
    itself the search reads (hex, step, markers, MP spent entering the map,
    counters attached): listing the moves, checking one and making it
    search once, and a unit far from the units that moved keeps its range.
    The search itself is shared across states and units (``_SEARCHES``):
    units of one class starting in one hex with the same MP, among the same
    enemy ZOC and enemy-held hexes, reach the same hexes; only the stacking
    check of where the move may end is made for each state.  The range
    returned is shared: never change it."""
    u = state.units[unit_id]
    if u.hex is None:
        raise MoveError(f"{unit_id} is not on the map")
    if limit is not None:
        return _move_range(game, board, state, unit_id, mode, limit)
    if ranges is None:
        ranges = carried_ranges(game, board, state, u.side)
    entering = state.entering
    attached = state.attached.get(unit_id)
    key = (unit_id, mode or "", u.hex, u.step, u.markers or None,
           (entering.get(unit_id, 0), entering.get(f"{unit_id}@{mode}")) if entering else None,
           (attached, tuple(state.units[x] for x in attached)) if attached else None)
    hit = ranges.get(key)
    if hit is None:
        hit = ranges[key] = _move_range(game, board, state, unit_id, mode, limit, shared=True, inputs=ranges)
    elif type(hit) is _Rejudge:  # (carried, with hexes where the units changed since)
        hit = ranges[key] = _judged_again(game, board, state, hit.range, hit.hexes)
    return hit


class _Ranges(dict):
    """A side's carried move ranges (``carried_ranges``), by their keys,
    with the enemy ZOC, the enemy-held hexes and the enemy sources closed to
    the side in the state they were carried to: what every new range of the
    side reads there (``_move_range``), worked out once."""

    __slots__ = ("zoc", "held", "closed")
    zoc: frozenset[Hex]
    held: frozenset[Hex]
    closed: frozenset[Hex]


class _Carried:
    """A side's move ranges as of one point of the trail (``GameState.trail``),
    among the enemy ZOC, enemy-held hexes and enemy sources closed to it
    that the ranges hold (``_Ranges``)."""

    __slots__ = ("trail", "version", "ranges")

    def __init__(self, trail: tuple | None, version: int, ranges: _Ranges):
        self.trail, self.version, self.ranges = trail, version, ranges


def carried_ranges(game: GameDefinition, board: Board, state: GameState, side: str) -> _Ranges:
    """The move ranges of ``side``'s units worked out in this state or an
    earlier one of the same game and still valid.  Besides the unit itself
    (its key) a range reads the enemy ZOC, the enemy-held hexes and the
    enemy sources closed to the side (all are dropped when one of them
    changes), and of the hexes it reached and their neighbours: the control
    of those it may cross (a mode that keeps to the side's own hexes), the
    units in those it may overrun, and the units in, and attacks into, those
    where stacking or 6.3's limits may bar its move from ending.  One that
    read a hex that changed so since (the trail says which) is dropped, but
    where only the units where its move may end changed (a game with a
    stacking limit): it keeps its search, and where it may end is judged
    again in those hexes when it is next read (``_Rejudge``).  All are
    dropped when the trail is longer than ``TRAIL_KEPT``."""
    key = ("carried", "ranges", side)
    found: _Carried | None = state.cache.get(key)
    trail = state.trail
    if found is not None and found.trail is trail and found.version == state.version:
        return found.ranges  # (the ZOC, the enemy-held hexes and the closed sources change with the version)
    zoc = enemy_zoc(game, board, state, side)
    held = held_by_others(state, side)
    closed = closed_to(game, board, state, side)
    was = found.ranges if found is not None else None
    same = found is not None and was is not None and (was.zoc is zoc or was.zoc == zoc) and \
        (was.held is held or was.held == held) and (was.closed is closed or was.closed == closed)
    if found is not None and same and found.trail is trail:
        return found.ranges
    ranges: dict = {}
    if found is not None and same:
        units: set[Hex] = set()
        control: set[Hex] = set()
        t = trail
        while t is not found.trail and t is not None:
            (control if t[3] else units).add(t[0])
            t = t[1]
        if t is found.trail:
            units_now = state.units  # (a unit that left the hex of a range needs it no more)
            if not units:
                ranges = {k: r for k, r in found.ranges.items() if units_now[k[0]].hex == k[2]}
            elif _stacking_limited(game):  # (the units where the moves may end: judged again there when read)
                ranges = {k: r if r.search.reached.isdisjoint(units) else _Rejudge.of(r, units)
                          for k, r in found.ranges.items() if units_now[k[0]].hex == k[2]}
            else:  # (the units where the moves' attacks end)
                ranges = {k: r for k, r in found.ranges.items()
                          if units_now[k[0]].hex == k[2] and r.search.stop_prev.keys().isdisjoint(units)}
            if units and game.movement.overrun:  # (the units in the hexes it may overrun)
                ranges = {k: r for k, r in ranges.items() if _reads(board, r.search).isdisjoint(units)}
            if control:  # (who controls the hexes a mode that keeps to the side's own may cross)
                owned = {m.id for m in game.movement.modes if m.own_control}
                ranges = {k: r for k, r in ranges.items()
                          if r.mode not in owned or _reads(board, r.search).isdisjoint(control)}
    out = _Ranges(ranges)
    out.zoc, out.held, out.closed = zoc, held, closed
    state.cache[key] = _Carried(trail, state.version, out)
    return out


class _Rejudge:
    """A carried range whose search reached hexes whose units changed since
    it was worked out (``hexes``): its destinations are judged again in those
    hexes, and only there, when it is next read (``move_range``); a range
    carried on and never read again (a unit that has moved) costs nothing."""

    __slots__ = ("range", "hexes")

    def __init__(self, r: MoveRange, hexes: frozenset[Hex]):
        self.range, self.hexes = r, hexes

    @staticmethod
    def of(r: "MoveRange | _Rejudge", changed: set[Hex]) -> "_Rejudge":
        if isinstance(r, _Rejudge):
            return _Rejudge(r.range, r.hexes.union(changed.intersection(r.range.search.reached)))
        return _Rejudge(r, frozenset(changed.intersection(r.search.reached)))

    @property
    def search(self) -> "_Search":
        return self.range.search

    @property
    def mode(self) -> str:
        return self.range.mode


def _judged_again(game: GameDefinition, board: Board, state: GameState, r: MoveRange,
                  hexes: frozenset[Hex]) -> MoveRange:
    """``r`` with its destinations judged again in ``hexes`` (hexes its search
    reached whose units changed since; ``_barred`` judges each hex by what
    it holds): the same search."""
    move_in = _unit_in_mode(game, r.unit, r.mode or None)[4]
    barred = _barred(game, board, state, r.unit, r.search, move_in, overrun_hexes(game, state, r.unit), hexes)
    dests = r.destinations.difference(hexes).union(hexes.difference(barred))
    return MoveRange(r.unit, r.start, r.mp, r.search.reached if dests == r.search.reached else dests, r.search, r.mode)


def _reads(board: Board, found: "_Search") -> frozenset[Hex]:
    """The hexes a search read: those it reached, and the neighbours of
    those it went on from (worked out once per search)."""
    if found.reads is None:  # (a component search works its own out)
        adj = board.adj
        found.reads = frozenset(found.cost).union(*([n for n, _ in adj[h]] for h in found.prev))
    return found.reads


def _stacking_limited(game: GameDefinition) -> bool:
    """Whether a stacking limit may bar a move from ending in any hex it
    reached (then ``_destinations`` reads the units in every hex a move
    reached, else only in those where the move must end: attacks)."""
    limit_units, extra, _ = _limits(game)
    return limit_units is not None or extra


@mypyc_attr(native_class=False)  # (its subclass _Reach fills some slots when first read)
class _Search:
    """One bounded Dijkstra of ``_move_range``: what it reached and how, for
    every state and unit whose search reads the same inputs."""

    __slots__ = ("cost", "prev", "stop_prev", "reached", "ordered", "reads")

    def __init__(self, cost: dict[Hex, int], prev: dict[Hex, Hex | None], stop_prev: dict[Hex, Hex], start: Hex):
        self.cost, self.prev, self.stop_prev = cost, prev, stop_prev
        self.reached = frozenset(cost) - {start}  # the destinations where no stacking rule bars any
        self.ordered: tuple[Hex, ...] | None = None  # ``reached`` sorted, when asked for
        self.reads: frozenset[Hex] | None = None  # the hexes it read (``_reads``), when asked for

    def toward(self, h: Hex) -> tuple[dict[Hex, int], dict[Hex, Hex | None]]:
        """(cost, prev), final for ``h`` and the hexes of its cheapest path."""
        return self.cost, self.prev


@mypyc_attr(native_class=False)  # (slots filled when first read: __getattr__)
class _Reach(_Search):
    """A search whose reach is a whole component (``_component_search``):
    known without the Dijkstra, which runs, with the same inputs, only when
    its costs or paths are first read (the move made, not every move listed).
    Nothing in it stops a move early, so ``stop_prev`` is empty."""

    __slots__ = ("_component", "_inputs", "_toward")

    def __init__(self, comp: "_Component", start: Hex, inputs: tuple):
        self.stop_prev = {}
        self.reached = comp.hexes - {start}
        self._component = comp
        self._inputs = inputs  # (a weak reference to the board, then _search's other arguments)
        # hex -> the Dijkstra run until it reached the hex (``toward``); None once the whole of it ran
        self._toward: dict[Hex, tuple] | None = {}

    def toward(self, h: Hex) -> tuple[dict[Hex, int], dict[Hex, Hex | None]]:
        """(cost, prev), final for ``h`` and the hexes of its cheapest path:
        the Dijkstra stops once it takes ``h`` off its heap (with no step
        costing less than nothing, nothing it does after changes them), so a
        move made reads a part of the component, not the whole of it."""
        if self._toward is None:
            return self.cost, self.prev  # (the whole Dijkstra ran)
        hit = self._toward.get(h)
        if hit is None:
            found = self._search(h)
            hit = self._toward[h] = (found.cost, found.prev)
        return hit

    def _search(self, target: Hex | None = None) -> "_Search":
        """The component's Dijkstra (``_search``), up to ``target`` when given."""
        board_ref, cls_id, m, start, mp, bound, zoc, held, overruns, move_in, own, closed = self._inputs
        board = board_ref()
        return _search(board.game, board, cls_id, m, start, mp, bound, zoc, held, overruns, move_in, own, closed,
                       target)

    def __getattr__(self, name: str):  # (only for slots not set yet: ordered, cost and prev)
        if name == "ordered":  # the component's hexes sorted once, less the start
            comp = self._component
            if comp.ordered is None:
                comp.ordered = tuple(sorted(comp.hexes))
            i = bisect_left(comp.ordered, self._inputs[3])  # (the start is one of them)
            self.ordered = comp.ordered[:i] + comp.ordered[i + 1:]
            return self.ordered
        if name == "reads":  # the component's hexes and their neighbours
            self.reads = self._component.read_hexes()
            return self.reads
        if name not in ("cost", "prev"):
            raise AttributeError(name)
        found = self._search()
        if found.reached != self.reached or found.stop_prev:
            raise AssertionError("a component's reach differs from its Dijkstra's")
        self.cost, self.prev = found.cost, found.prev
        self._toward = None
        return found.cost if name == "cost" else found.prev


@mypyc_attr(native_class=False)  # (its slots are filled when first read)
class _Component:
    """Hexes that reach each other under one set of search inputs
    (``_flood``); they sorted, and those a search of them reads (they and
    their neighbours: ``_reads``), when asked for."""

    __slots__ = ("hexes", "ordered", "reads", "_board")

    def __init__(self, hexes: frozenset[Hex], board: Board):
        self.hexes = hexes
        self.ordered: tuple[Hex, ...] | None = None
        self.reads: frozenset[Hex] | None = None
        self._board = weakref.ref(board)

    def read_hexes(self) -> frozenset[Hex]:
        if self.reads is None:
            board = self._board()
            assert board is not None  # (the board outlives the searches kept for it)
            adj = board.adj
            self.reads = self.hexes.union(*([n for n, _ in adj[h]] for h in self.hexes))
        return self.reads


# board -> {search inputs: _Search}: move searches shared across states and units
_SEARCHES: "weakref.WeakKeyDictionary[Board, dict]" = weakref.WeakKeyDictionary()
_SEARCHES_KEPT = 1024  # the oldest goes first
# board -> {search inputs but the start and MP: {hex: its _Component, or None where none serves}}
_COMPONENTS: "weakref.WeakKeyDictionary[Board, dict]" = weakref.WeakKeyDictionary()
_COMPONENTS_KEPT = 256  # the oldest goes first


def ordered_destinations(r: MoveRange) -> Sequence[Hex]:
    """``r.destinations`` sorted (kept with a shared search when no stacking
    rule bars any of the hexes it reached)."""
    found = r.search
    if found is None:
        return sorted(r.destinations)
    if found.ordered is None:
        found.ordered = tuple(sorted(found.reached))
    if r.destinations is found.reached:
        return found.ordered
    dests = r.destinations  # some of the hexes it reached: in the same order
    return [h for h in found.ordered if h in dests]


def _move_range(game: GameDefinition, board: Board, state: GameState, unit_id: str, mode: str | None,
                limit: int | None, shared: bool = False, inputs: _Ranges | None = None) -> MoveRange:
    """The range from nothing (``shared``: the search may come from, and go
    to, the searches shared across states; ``inputs``: the carried ranges of
    the unit's side in ``state``, with the enemy ZOC, enemy-held hexes and
    closed sources there)."""
    u = state.units[unit_id]
    cls_id, m, only_class, excluded, move_in = _unit_in_mode(game, unit_id, mode)
    start = u.hex
    if start is None:
        raise MoveError(f"{unit_id} is not on the map")
    side = u.side
    if m is not None:  # (what bars the mode to the unit itself first: nothing else is worked out for it)
        if not only_class and not m.only & u.markers:  # a class, or a state (reserve)
            raise MoveError(f"{unit_id} may not use {m.title}: only {', '.join(sorted(m.only))} units do")
        if m.barred & u.markers:
            raise MoveError(f"{unit_id} may not use {m.title}: it is {', '.join(sorted(m.barred & u.markers))}")
        if excluded:
            raise MoveError(f"{unit_id} may not use {m.title}")
        on_link = not m.along or any(e.links & m.along for _, e in board.adj[start])
        if not on_link:
            raise MoveError(f"{unit_id} cannot use {m.title}: it does not start on a {'/'.join(sorted(m.along))}")
    zoc = enemy_zoc(game, board, state, side) if inputs is None else inputs.zoc
    if m is not None and m.no_enemy_zoc and start in zoc:
        raise MoveError(f"{unit_id} cannot use {m.title}: it starts in an enemy ZOC")
    mp = unit_mp(game, state, unit_id, m)
    bound = mp if limit is None else limit
    if inputs is None:
        held = held_by_others(state, side)
        closed = closed_to(game, board, state, side)  # the enemy's sources, where the game closes them
    else:
        held, closed = inputs.held, inputs.closed

    own_control = m is not None and m.own_control
    overruns = overrun_hexes(game, state, unit_id)  # enemy hexes it may overrun (AVD 4 e)
    own = controlled(state, side) if own_control else None
    found: _Search | None = None
    searches: dict = {}
    content: tuple = ()
    if shared:
        kept = _SEARCHES.get(board)
        if kept is None:
            kept = _SEARCHES[board] = {}
        searches = kept
        content = (cls_id, m.id if m is not None else "", start, mp, zoc, held, overruns, move_in, own, closed)
        found = searches.get(content)
        if found is None and not (zoc or move_in):  # (_component_search's first test, without the call)
            found = _component_search(game, board, cls_id, m, start, mp, zoc, held, overruns, move_in, own, closed)
    if found is None:
        found = _search(game, board, cls_id, m, start, mp, bound, zoc, held, overruns, move_in, own, closed)
    if shared and content not in searches:
        if len(searches) >= _SEARCHES_KEPT:
            searches.pop(next(iter(searches)))
        searches[content] = found
    return MoveRange(unit_id, start, mp, _destinations(game, board, state, unit_id, found, move_in, overruns),
                     found, m.id if m else "")


_IN_MODE: dict[int, tuple[GameDefinition, dict]] = {}


def _kept_for(store: dict[int, tuple[GameDefinition, dict]], game: GameDefinition) -> dict:
    """The dict ``store`` keeps for ``game`` (facts fixed for a game,
    worked out once), a new one for a game not seen before."""
    kept = store.get(id(game))
    if kept is None or kept[0] is not game:
        if len(store) > 16:
            store.clear()
        kept = store[id(game)] = (game, {})
    return kept[1]


def _unit_in_mode(game: GameDefinition, unit_id: str,
                  mode: str | None) -> tuple[str, MovementMode | None, bool, bool, bool]:
    """What ``_move_range`` reads of the game for a counter in a movement
    mode (or normal movement), fixed for a game: its class, the mode,
    whether its class or flags are among those the mode is ``only`` for
    (or the mode names none), whether the mode ``excludes`` it, and whether
    it may attack by moving in (Barbarossa 6.3: an enemy hex may be entered,
    and the move ends there) in that mode."""
    kept = _kept_for(_IN_MODE, game)
    hit = kept.get((unit_id, mode))
    if hit is None:
        m = mode_by_id(game, mode)
        move_in = game.combat.attack == "move-in" and not (m is not None and m.no_attack and
                                                           game.matches(unit_id, m.no_attack))
        hit = kept[(unit_id, mode)] = (
            game.counters[unit_id].unit_class, m, m is None or not m.only or game.matches(unit_id, m.only),
            m is not None and bool(m.excluded) and game.matches(unit_id, m.excluded), move_in)
    return hit


def _component_search(game: GameDefinition, board: Board, cls_id: str, m: MovementMode | None, start: Hex, mp: int,
                      zoc: frozenset[Hex], held: frozenset[Hex], overruns: frozenset[Hex], move_in: bool,
                      own: frozenset[Hex] | None, closed: frozenset[Hex]) -> _Search | None:
    """The search of a move that nothing stops early and whose MP cannot
    run out anywhere on the map (Barbarossa's 99-MP strategic movement):
    its reach is the component of hexes that reach each other under its
    inputs, worked out once for all the units and start hexes sharing them;
    the Dijkstra (costs and paths) runs only for a move made.  None where
    that does not hold: enemy ZOC, attacks by moving in, a step costing all
    MP, less than nothing, or one that cannot be taken back (``both_ways``),
    MP that could run out (the dearest step for each hex of the map but
    one; before that is worked out, fewer MP in 60ths than the map has
    hexes: Smolensk's moves never pay for it), or a start hex that the move
    could not enter."""
    hexes = board.map.hexes
    if zoc or move_in or mp < len(hexes) - 1 or not _no_negative_costs(game):
        return None  # (the MP bound asked first: both_ways works over the whole map)
    steps = _steps_for(game, board, cls_id, m)
    both = steps.both_ways(hexes)
    if both is None or mp < (len(hexes) - 1) * both[1]:
        return None
    comps = _COMPONENTS.get(board)
    if comps is None:
        comps = _COMPONENTS[board] = {}
    key = (cls_id, m.id if m is not None else "", held, overruns, own, closed)
    labels = comps.get(key)
    if labels is None:
        if len(comps) >= _COMPONENTS_KEPT:
            comps.pop(next(iter(comps)))
        labels = comps[key] = {}
    comp = labels.get(start, False)
    if comp is False:
        comp = _flood(board, both[0], m, start, held, overruns, own, closed)
        for h in comp.hexes if comp is not None else (start,):
            labels[h] = comp
    if comp is None:
        return None
    return _Reach(comp, start, (weakref.ref(board), cls_id, m, start, mp, mp, zoc, held, overruns, move_in, own, closed))


def _steps_for(game: GameDefinition, board: Board, cls_id: str, m: MovementMode | None) -> _Steps:
    """The static steps ``_search`` takes for a class in a mode (or normal movement)."""
    if m is None:
        return class_costs(game, board, cls_id).steps
    if m.along:
        return mode_steps(game, board, cls_id, m)
    return class_costs(game, board, cls_id, m.id).steps


def cheapest_step(game: GameDefinition, board: Board, cls_id: str) -> int:
    """The least a step of normal movement costs a unit of the class
    anywhere on the map (scaled MP; terrain, hexsides and roads), so that no
    move of ``mp`` goes further than ``mp // cheapest_step + 1`` hexes (the
    last step may cost all MP); 0 where a step may cost nothing or less
    (then no such bound holds).  Worked out once per class."""
    kept = _kept_for(_CHEAPEST, game)
    hit = kept.get((board, cls_id))
    if hit is None:
        steps = class_costs(game, board, cls_id).steps
        costs = [c for h in board.graph for _, c, all_mp, _ in steps[h] if not all_mp]
        hit = kept[(board, cls_id)] = max(min(costs, default=0), 0) if _no_negative_costs(game) else 0
    return hit


_CHEAPEST: dict[int, tuple[GameDefinition, dict]] = {}  # id(game) -> (game, {(board, class): cheapest_step})


def _flood(board: Board, ends: dict[Hex, frozenset[Hex]], m: MovementMode | None, start: Hex,
           held: frozenset[Hex], overruns: frozenset[Hex], own: frozenset[Hex] | None,
           closed: frozenset[Hex]) -> _Component | None:
    """The hexes reached from ``start`` by steps (``ends``: each can be
    taken back) into hexes that ``_search`` lets the move enter (no enemy
    ZOC, no attack): then each of them reaches every other, and the
    component serves a move from any of them.  None when ``start`` itself
    could not be entered (or no step enters it)."""
    blocked = held - overruns if overruns else held
    # (_search's tests of a hex entered; a dict's keys less a set are a set)
    open_: set[Hex] | frozenset[Hex] = (own if own is not None else ends.keys()) - blocked
    if closed:
        open_ -= closed
    avoid = m.avoid if m is not None else frozenset()
    if avoid:
        hexes = board.map.hexes
        open_ = {n for n in open_ if not (hexes[n].terrain in avoid or avoid & set(hexes[n].features))}
    if start not in ends or start not in open_:
        return None
    seen = {start}
    todo = [start]
    add, push = seen.add, todo.append
    while todo:
        for n in ends[todo.pop()]:
            if n in open_ and n not in seen:
                add(n)
                push(n)
    return _Component(frozenset(seen), board)


def controlled(state: GameState, side: str) -> frozenset[Hex]:
    """The hexes ``side`` controls (kept for the state's version)."""
    key = ("controlled", side, state.version)
    hit = state.cache.get(key)
    if hit is None:
        hit = state.cache[key] = frozenset(h for h, s in state.control.items() if s == side)
    return hit


def _search(game: GameDefinition, board: Board, cls_id: str, m: MovementMode | None, start: Hex,
            mp: int, bound: int, zoc: frozenset[Hex], held: frozenset[Hex], overruns: frozenset[Hex], move_in: bool,
            own: frozenset[Hex] | None, closed: frozenset[Hex], target: Hex | None = None) -> _Search:
    """The bounded Dijkstra of a move: it reads the unit's class, mode, start
    hex and MP, the enemy ZOC, the enemy-held hexes, the hexes it may
    overrun, whether it may attack by moving in, the enemy sources closed to
    it, and (``own``, for a mode that keeps to its own hexes) the hexes the
    side controls: nothing of the state itself."""
    setups = board.__dict__.setdefault("_search_setup", {})
    key = (cls_id, m.id if m is not None else "")
    setup = setups.get(key)
    if setup is None:
        setup = setups[key] = _search_setup(game, board, cls_id, m)
    steps, enter_stop, leave_stop, z2z_no, z2z_adjacent, enter_cost, leave_cost, no_enemy_zoc, avoid, settled, \
        cheapest = setup
    own_control = own is not None
    hexes = board.map.hexes
    rare = own_control or bool(closed) or bool(avoid)  # checks most moves never need

    # Free states (the move may go on) go through the heap; states where the
    # move must end (ZOC "stop", an all-MP crossing) never expand, so they are
    # only recorded.
    dist: dict[Hex, int] = {start: 0}
    prev: dict[Hex, Hex | None] = {start: None}
    stop_dist: dict[Hex, int] = {}
    stop_prev: dict[Hex, Hex] = {}
    heap = [(0, start)]
    big = 1 << 60
    reached, pop, push = dist.get, heapq.heappop, heapq.heappush  # (bound once: the loop's hottest calls)
    while heap:
        d, h = pop(heap)
        if d != dist[h]:
            continue
        if h == target:
            break  # (``_Reach.toward``: its cost and path are final)
        h_in_zoc = h in zoc
        for n, step, all_mp, zz in steps[h]:
            if settled and (reached(n, big) <= d or d + step > bound and not all_mp):
                continue  # no step costs less than 0: too far already, or nothing better nor a stop to keep
            stop = False
            if n in held and not (overruns and n in overruns):
                if not move_in:
                    continue  # enemy-occupied
                stop = True  # an attack: the move ends in the enemy hex
            if rare and ((own is not None and n not in own)  # a mode that keeps to the side's own hexes
                         or (closed and n in closed)  # an enemy source (GJ63 2.2.1 5)
                         or (avoid and (hexes[n].terrain in avoid or avoid & set(hexes[n].features)))):
                continue  # (a mode that keeps out of such hexes: AVD strategic movement, VP stars)
            if zoc:  # (a game without ZOC, or none of the enemy's near: nothing to ask)
                n_in_zoc = n in zoc
                if h_in_zoc:
                    if n_in_zoc and (zz or z2z_no or (z2z_adjacent and d != 0)):
                        continue
                    if leave_stop:
                        continue
                    step += leave_cost
                if n_in_zoc:
                    if no_enemy_zoc:
                        continue  # a mode that keeps out of enemy ZOC (march, 9.3)
                    if enter_stop:
                        stop = True
                    else:
                        step += enter_cost
            if all_mp:
                # 9.2(3): only from the hex where the move starts, and it ends the move
                if d != 0 or mp <= 0:
                    continue
                nd, stop = mp, True
            else:
                nd = d + step
            if nd > bound:
                continue
            if stop:
                if nd < stop_dist.get(n, big):
                    stop_dist[n] = nd
                    stop_prev[n] = h
            elif nd < reached(n, big):
                dist[n] = nd
                prev[n] = h
                if settled and nd:  # (a hex it could not go on from is not put on the heap: a 1-MP move's neighbours)
                    least = cheapest.get(n)
                    if least is None:
                        least = cheapest[n] = min((step for _, step, _, _ in steps[n]), default=big)
                    if nd + least > bound:
                        continue  # no step from n fits in what is left (an all-MP step only from the start)
                push(heap, (nd, n))
    cost: dict[Hex, int] = dict(dist)
    for h, d in stop_dist.items():
        if d < cost.get(h, big):
            cost[h] = d
        else:
            del stop_prev[h]
    return _Search(cost, prev, stop_prev, start)


def _search_setup(game: GameDefinition, board: Board, cls_id: str, m: MovementMode | None) -> tuple:
    """What ``_search`` reads of the game for a class in a mode (or normal
    movement), fixed for a board: its steps, the ZOC rules (enter "stop",
    leave "stop", ZOC to ZOC "no" / "adjacent", the scaled costs of entering
    and leaving), whether the mode keeps out of enemy ZOC, what it never
    enters, whether no step costs less than nothing, and (filled in as
    searches read them) each hex's cheapest step."""
    rules = game.zoc
    enter_stop = rules.enter == "stop"
    leave_stop = rules.leave == "stop"  # a "sticky" ZOC: units in it cannot leave
    return (_steps_for(game, board, cls_id, m), enter_stop, leave_stop, rules.zoc_to_zoc == "no",
            rules.zoc_to_zoc == "adjacent",  # one step from ZOC to ZOC, then stop
            0 if enter_stop else scaled(int(rules.enter)), 0 if leave_stop else scaled(int(rules.leave)),
            m is not None and m.no_enemy_zoc,
            m.avoid if m is not None else frozenset(),  # terrain and features the mode never enters
            _no_negative_costs(game),
            {})  # hex -> the cheapest static step out of it, filled in as searches read the hexes


_NONNEGATIVE: dict[int, tuple[GameDefinition, bool]] = {}


def _no_negative_costs(game: GameDefinition) -> bool:
    """Whether no chart cell, mode or ZOC rule of the game makes a step cost
    less than nothing (then a search never improves a hex it reached at a
    cost no higher than the hex it steps from): fixed for a game."""
    kept = _NONNEGATIVE.get(id(game))
    if kept is not None and kept[0] is game:
        return kept[1]
    cells = [c for eff in game.chart.effects.values()
             for _, c in (*eff.move, *(x for col in eff.modes.values() for x in col))]
    ok = all(c.value >= 0 for c in cells) and all(m.cost is None or m.cost >= 0 for m in game.movement.modes) \
        and all(v == "stop" or int(v) >= 0 for v in (game.zoc.enter, game.zoc.leave))
    if len(_NONNEGATIVE) > 16:
        _NONNEGATIVE.clear()
    _NONNEGATIVE[id(game)] = (game, ok)
    return ok


def _destinations(game: GameDefinition, board: Board, state: GameState, unit_id: str, found: _Search,
                  move_in: bool, overruns: frozenset[Hex]) -> frozenset[Hex]:
    """The hexes the search reached where the move may end: stacking, and
    6.3's hexside limits on a move-in attack, checked where they can bar
    (occupied hexes, and the ends of move-in attacks).  Where the game has
    no stacking limit only the ends of attacks can be barred: the other
    hexes reached are not looked at (a 99-MP move reaches most of the map)."""
    attacks = found.stop_prev if move_in else None  # (where a move-in attack may end)
    limit_units, extra, _ = _limits(game)
    if limit_units is None and not extra:
        alone = bool(attacks) and _alone_barred(game, state, unit_id)
        if not attacks or not (alone or state.attack_from):  # (with no attack made yet, an attack is
            # barred only where the limits allow no unit at all: hexside_limit_reason)
            if attacks and alone:  # (a move that must end in an empty hex: judged as an attack with no
                occupants = state.occupants  # other unit across)
                return found.reached.difference([h for h in attacks if h not in occupants])
            return found.reached
        barred = _barred(game, board, state, unit_id, found, move_in, overruns, attacks)
    else:
        barred = _barred(game, board, state, unit_id, found, move_in, overruns, found.reached)
    return found.reached.difference(barred) if barred else found.reached


def _barred(game: GameDefinition, board: Board, state: GameState, unit_id: str, found: _Search,
            move_in: bool, overruns: frozenset[Hex], hexes: Collection[Hex]) -> list[Hex]:
    """Those of ``hexes`` (reached by ``found``, a search of the unit's now)
    where the move may not end (``_destinations``).  Each hex is judged by
    what it holds alone (its units, the move-in attacks made into it), so a
    range carried to a later state is judged again only where that changed
    (``carried_ranges``)."""
    occupants = state.occupants
    attacks = found.stop_prev if move_in else None
    barred: list[Hex] = []
    if attacks and _alone_barred(game, state, unit_id):
        # a move that must end in an empty hex is judged as an attack with no other unit across
        # its hexside: barred only where the limits allow no unit at all
        barred.extend(h for h in attacks if h not in occupants and h in hexes)
    if len(occupants) < len(hexes):
        check = [h for h in occupants if h in hexes]
    else:
        check = [h for h in hexes if h in occupants]
    if not check:
        return barred
    limit_units, extra, exempt = _limits(game)
    side = state.units[unit_id].side
    start = state.units[unit_id].hex
    room = None if limit_units is None else limit_units - (unit_id not in exempt)  # others it may join
    for h in check:
        if h == start:
            continue
        if overruns and h in overruns:
            pass  # its occupants will be displaced: the hex was theirs alone
        elif move_in and h in found.stop_prev and state.side_at(h) != side:  # an attack: 6.3's hexside limits
            if hexside_limit_reason(game, board, state, unit_id, found.stop_prev[h], h):
                barred.append(h)
        elif room is not None and h in occupants and \
                sum(1 for x in occupants[h] if x != unit_id and x not in exempt) > room:  # stack_count
            barred.append(h)
        elif extra and h in occupants and extra_bars(game, state, h, unit_id):
            barred.append(h)
    return barred


_LIMITS: dict[int, tuple[GameDefinition, object, tuple]] = {}


def _limits(game: GameDefinition) -> tuple[int | None, bool, frozenset[str]]:
    """(the ``units`` stacking limit or None, whether the game has hq or
    per-selector limits, the counters exempt from stacking): what
    ``_destinations`` asks of the game for every range, fixed for a game."""
    kept = _LIMITS.get(id(game))
    if kept is not None and kept[0] is game and kept[1] is game.stacking:
        return kept[2]
    out = (game.stacking.get("units"), bool(extra_limits(game.stacking)), _exempt_counters(game))
    if len(_LIMITS) > 16:
        _LIMITS.clear()
    _LIMITS[id(game)] = (game, game.stacking, out)
    return out


_ALONE: dict[int, tuple[GameDefinition, dict[tuple[str, str], bool]]] = {}


def _alone_barred(game: GameDefinition, state: GameState, unit_id: str) -> bool:
    """Whether ``hexside_limit_reason`` bars ``unit_id`` with no other unit
    attacking across the hexside (a limit of 0 units): fixed for a counter
    of a side in a game, worked out once."""
    kept = _kept_for(_ALONE, game)
    side = state.units[unit_id].side
    hit = kept.get((unit_id, side))
    if hit is None:
        lim = game.combat.limit_for(side)
        mine = game.selectors_of(unit_id)
        hit = kept[(unit_id, side)] = lim is not None and (lim.total < 1 or any(sel in mine and most < 1
                                                                          for sel, most in lim.per))
    return hit


def overrun_hexes(game: GameDefinition, state: GameState, unit_id: str) -> frozenset[Hex]:
    """Hexes ``unit_id`` may move into or through by overrunning them: every
    unit there is an enemy the game's ``overrun`` names (AVD 4 e: a lone HQ)."""
    mv = game.movement
    if not mv.overrun or not game.matches(unit_id, mv.overrun_by):
        return frozenset()
    side = state.units[unit_id].side
    key = ("overrun", side, state.version)  # the same for every unit of the side while no unit moves
    hit = state.cache.get(key)
    if hit is None:
        units = state.units
        hit = state.cache[key] = frozenset(
            h for h, ids in state.occupants.items()
            if all(units[x].side != side and game.matches(x, mv.overrun) for x in ids))
    return hit


def hexside_limit_reason(game: GameDefinition, board: Board, state: GameState, unit_id: str, origin: Hex,
                         target: Hex) -> str | None:
    """Why ``unit_id`` may not attack ``target`` from ``origin`` across their
    hexside (Barbarossa 6.3: at most 4 Axis units, of them at most 1 army
    group and 2 panzer groups), or None."""
    side = state.units[unit_id].side
    lim = game.combat.limit_for(side)
    if lim is None:
        return None
    across = [x for x, h in state.attack_from.items() if h == origin and state.units[x].hex == target
              and x != unit_id] if state.attack_from else []
    if len(across) + 1 > lim.total:
        where = f"{board.hex_id(origin)} to {board.hex_id(target)}"
        return f"{unit_id} cannot attack {board.hex_id(target)} from {board.hex_id(origin)}: at most {lim.total} " \
               f"{game.sides[side].title} units attack across one hexside ({where}: {', '.join(sorted(across))})"
    mine = game.selectors_of(unit_id)
    for sel, most in lim.per:
        if sel in mine:
            same = [x for x in across if sel in game.selectors_of(x)]
            if len(same) + 1 > most:
                where = f"{board.hex_id(origin)} to {board.hex_id(target)}"
                return f"{unit_id} cannot attack {board.hex_id(target)} from {board.hex_id(origin)}: at most " \
                       f"{most} {sel} unit{'s' * (most != 1)} attack across one hexside ({where}: " \
                       f"{', '.join(sorted(same))})"
    return None


def why_not(game: GameDefinition, board: Board, state: GameState, unit_id: str, dest: Hex,
            mode: str | None = None) -> str | None:
    """None when the unit may end its move in ``dest``; otherwise the reason,
    e.g. "7Pz cannot enter 1203: needs 6 MP, has 5"."""
    u = state.units[unit_id]
    where = board.hex_id(dest)
    if dest not in board:
        return f"{unit_id} cannot move to {where}: it is not in play"
    try:
        r = move_range(game, board, state, unit_id, mode)
    except MoveError as err:
        return str(err)
    start = u.hex
    assert start is not None  # (move_range raised otherwise)
    if dest in r.destinations:
        return None
    if dest == start:
        return f"{unit_id} is already in {where}"
    other = state.side_at(dest)
    if other is not None and other != u.side:
        if game.combat.attack == "move-in" and dest in r.cost and dest in r.stop_prev:
            reason = hexside_limit_reason(game, board, state, unit_id, r.stop_prev[dest], dest)
            if reason:
                return reason
        m = mode_by_id(game, mode)
        if game.combat.attack == "move-in" and m is not None and m.no_attack:
            return f"{unit_id} cannot attack {where} by {m.title}"
        if game.combat.attack != "move-in" or start.distance(dest) == 1:
            return f"{unit_id} cannot enter {where}: it holds enemy units"
    m = mode_by_id(game, mode)
    costs = class_costs(game, board, game.counters[unit_id].unit_class, m.id if m is not None and not m.along else "")
    if costs.enter.get(dest) is NO and all(e.links.isdisjoint(costs.links) for _, e in board.adj[dest]):
        return f"{unit_id} cannot enter {where}: {game.terrain[board.terrain(dest)].title.lower()} is prohibited" + \
            (f" for {m.title}" if m is not None else "")
    e = board.edge(start, dest)
    closed = sorted(f for f in e.hexside if costs.hexside.get(f, 0) is NO) if not e.bridged else []
    if closed and not any(n == dest for n, *_ in costs.steps[start]):
        return f"{unit_id} cannot cross the {game.terrain[closed[0]].title.lower()} hexside from " \
               f"{board.hex_id(start)} to {where}" + (f" by {m.title}" if m is not None else "")
    if dest in r.cost:
        limit = game.stacking.get("units")
        if limit is None or stack_count(game, state, dest, unit_id) + stack_weight(game, unit_id) <= limit:
            return f"{unit_id} cannot end its move in {where}: {extra_bars(game, state, dest, unit_id)}"
        return f"{unit_id} cannot end its move in {where}: it would hold {stack_count(game, state, dest, unit_id) + stack_weight(game, unit_id)} " \
               f"units; the stacking limit is {limit}"
    far = move_range(game, board, state, unit_id, mode, limit=max(r.mp, scaled(1)) * 4 + scaled(20))
    if dest in far.cost:
        return f"{unit_id} cannot enter {where}: needs {show_mp(far.cost[dest])} MP, has {show_mp(r.mp)}"
    return f"{unit_id} cannot reach {where}: no legal path"
