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
(or it is a source itself, when that one is shorter than N).  The owner
chooses among the hexes that qualify (runtime.engine: a pending "displace"
decision when there are several).
"""
from __future__ import annotations

from .board import Board
from .definition import GameDefinition
from .hexes import Hex
from .stacking import stacking_bars
from .state import GameState
from .supply import supply_map
from .zoc import enemy_zoc


def displace_hexes(game: GameDefinition, board: Board, state: GameState, unit_id: str) -> list[Hex]:
    """The hexes an overrun unit may be displaced to (its owner chooses), the
    nearest to the hex it leaves first (then the shortest line, then the hex
    id); the unit is taken off the map meanwhile (box "displaced")."""
    u = state.units[unit_id]
    start = u.hex
    assert start is not None
    n = game.movement.displace
    state.place(unit_id, None, "displaced")  # off the map while its new hex is sought
    lines = supply_map(game, board, state, u.side)
    # the line from the hex it leaves: through a neighbour a line reaches
    here = min((lines[x] + 1 for x, _ in board.adj[start] if x in lines), default=None)
    if here is None:
        return []
    zoc = enemy_zoc(game, board, state, u.side)
    found = []
    for h, d in lines.items():
        if not (d <= here - n or d == 0) or h == start or h in zoc:
            continue
        if any(x.side != u.side for x in state.units_at(h)) or stacking_bars(game, state, h, unit_id):
            continue
        found.append(((start.distance(h), d, board.hex_id(h)), h))
    return [h for _, h in sorted(found)]
