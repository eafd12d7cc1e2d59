"""Zones of control: the hexes next to a side's units, as the game declares."""
from __future__ import annotations

from .attachments import gives_zoc
from .board import Board
from .definition import GameDefinition
from .hexes import Hex
from .state import GameState


_NO_ZOC: frozenset[Hex] = frozenset()  # the ZOC in a game without zones of control


def selector_match(selectors: frozenset[str], unit_class: str, flags: frozenset[str]) -> bool:
    return bool(selectors) and (unit_class in selectors or bool(selectors & flags) or "all" in selectors)


def _prohibited_hexside(game: GameDefinition, features: frozenset[str]) -> bool:
    chart = game.chart.effects
    for f in features:
        eff = chart.get(f)
        if eff is not None and eff.move and all(c.kind == "no" for _, c in eff.move):
            return True
    return False


def zoc_of(game: GameDefinition, board: Board, state: GameState, side: str) -> frozenset[Hex]:
    """Hexes in the ZOC of ``side``'s units (the ZOC ``side`` exerts).
    Cached until one of ``side``'s units moves (on the version where
    attachments or closed sources may change it too)."""
    if not game.zoc.exists:
        return _NO_ZOC  # (a game without ZOC: nothing to work out or keep)
    key = ("zoc", side, _stamp(game, state, side))
    cache = _cache(state)
    hit = cache.get(key)
    if hit is not None:
        return hit
    rules = game.zoc
    out: set[Hex] = set()
    if rules.exists:
        reach = _reach(game, board)
        for u in state.units.values():
            if u.hex is None or u.side != side:
                continue
            if game.matches(u.id, rules.exempt) and not (u.id in state.attached and gives_zoc(game, state, u.id)):
                continue
            out.update(reach[u.hex])
    if game.supply.closed_sources:  # no ZOC into the other sides' sources (GJ63 2.2.1 5)
        from .supply import sources_of  # (supply reads ZOC)
        for other in game.sides:
            if other != side:
                out -= sources_of(board, state, other)
    result = frozenset(out)
    cache[key] = result
    return result


def _stamp(game: GameDefinition, state: GameState, side: str):
    """What ``side``'s ZOC is kept on: its own units' stamp (the version
    where attachments or closed sources may change it too)."""
    return state.version if state.attached or game.supply.closed_sources else state.side_stamp(side)


def _reach(game: GameDefinition, board: Board) -> dict[Hex, tuple[Hex, ...]]:
    """Hex -> the neighbours a unit there exerts ZOC into (not into ``not-into``
    terrain, not across a hexside movement may never cross): fixed by the map,
    computed once per board."""
    rules = game.zoc
    kept = board.__dict__.get("_zoc_reach")
    if kept is not None and kept[0] is rules:
        return kept[1]
    reach = {h: tuple(n for n, e in nbrs if board.terrain(n) not in rules.not_into
                      and not (e.hexside and _prohibited_hexside(game, e.hexside)))
             for h, nbrs in board.adj.items()}
    board.__dict__["_zoc_reach"] = (rules, reach)
    return reach


def negated_hexes(game: GameDefinition, state: GameState, side: str) -> frozenset[Hex]:
    """Hexes where ``side``'s units ignore enemy ZOC (a fortress, 14.2(2))."""
    rules = game.zoc
    if not rules.negated_by:
        return frozenset()
    key = ("negated", side, state.side_stamp(side))  # kept until one of the side's units moves
    hit = state.cache.get(key)
    if hit is None:
        units = state.units
        hit = _cache(state)[key] = frozenset(units[x].hex for x in _negating(game) if x in units and
                                             units[x].hex is not None and units[x].side == side)
    return hit


_NEGATING: dict[int, tuple[GameDefinition, tuple[str, ...]]] = {}


def _negating(game: GameDefinition) -> tuple[str, ...]:
    """The counters that negate enemy ZOC where they stand (``negated-by``): fixed for a game."""
    kept = _NEGATING.get(id(game))
    if kept is not None and kept[0] is game:
        return kept[1]
    out = tuple(cid for cid in game.counters if game.matches(cid, game.zoc.negated_by))
    if len(_NEGATING) > 16:
        _NEGATING.clear()
    _NEGATING[id(game)] = (game, out)
    return out


def enemy_zoc(game: GameDefinition, board: Board, state: GameState, side: str) -> frozenset[Hex]:
    """Hexes where ``side``'s units are in an enemy ZOC (after negation)."""
    if not game.zoc.exists:
        return _NO_ZOC
    key = ("enemy", side, state.version)
    cache = _cache(state)
    hit = cache.get(key)
    if hit is not None:
        return hit
    others = [other for other in game.sides if other != side]
    zocs = [zoc_of(game, board, state, other) for other in others]
    result = zocs[0] if len(zocs) == 1 else frozenset().union(*zocs)
    negated = negated_hexes(game, state, side)
    if not result.isdisjoint(negated):
        # kept while the other side's ZOC and the hexes negating it stand
        less = ("enemy-less", side, negated, _stamp(game, state, others[0]) if len(others) == 1 else state.version)
        hit = cache.get(less)
        if hit is None:
            hit = cache[less] = result - negated
        result = hit
    cache[key] = result  # the other side's own ZOC where nothing negates it: shared while it stands
    return result


def _cache(state: GameState) -> dict:
    """The state's scratch cache; entries are keyed on ``state.version``."""
    if len(state.cache) > 64:
        state.cache.clear()
    return state.cache
