"""Overrun and displacement (A Victory Denied 移动 4 e-f).

A game's ``movement { overrun SELECTOR... by SELECTOR... displace N }`` lets
a moving unit enter a hex whose only occupants are enemies the first
selectors name (a lone HQ).  Each of them is displaced at once: it moves at
least N hexes toward its own side's supply, along a line of communication
(not through enemy units, nor enemy ZOC no friendly unit stands in: the
supply rules' own lines), to a hex in supply, outside enemy ZOC, where
stacking allows it; if there is none it is eliminated.

"Toward supply" is measured by the length of the side's supply line: the new
hex's line is at least N hexes shorter than the one from the hex it leaves
(or it is a source itself, when that one is shorter than N).  Of the hexes
that qualify the engine takes the nearest to the one left (then the shortest
line, then the hex id): the owner's choice among them is not offered yet.
"""
from __future__ import annotations

from .board import Board
from .definition import GameDefinition
from .hexes import Hex
from .stacking import stacking_bars
from .state import GameState, eliminate
from .supply import supply_map
from .zoc import enemy_zoc


def displace(game: GameDefinition, board: Board, state: GameState, unit_id: str) -> Hex | None:
    """Move an overrun unit toward its supply; returns its new hex, or None
    when none qualifies and it was eliminated."""
    u = state.units[unit_id]
    start = u.hex
    assert start is not None
    n = game.movement.displace
    state.place(unit_id, None, "displaced")  # off the map while its new hex is sought
    lines = supply_map(game, board, state, u.side)
    # the line from the hex it leaves: through a neighbour a line reaches
    here = min((lines[x] + 1 for x, _ in board.adj[start] if x in lines), default=None)
    if here is None:
        eliminate(game, state, unit_id, "overrun")
        return None
    zoc = enemy_zoc(game, board, state, u.side)
    best = None
    for h, d in lines.items():
        if not (d <= here - n or d == 0) or h == start or h in zoc:
            continue
        if any(x.side != u.side for x in state.units_at(h)) or stacking_bars(game, state, h, unit_id):
            continue
        key = (start.distance(h), d, board.hex_id(h))
        if best is None or key < best[0]:
            best = (key, h)
    if best is None:
        eliminate(game, state, unit_id, "overrun")
        return None
    state.place(unit_id, best[1])
    return best[1]
