"""Die tables: rolling one (with its modifiers) and reading its cells."""
from __future__ import annotations

from . import expr as E
from .definition import DieTable, GameDefinition
from .state import GameState


def roll_table(game: GameDefinition, s: GameState, t: DieTable, env: tuple[dict, dict], purpose: str
               ) -> tuple[int, int]:
    """Roll a die table's die plus its modifiers: (modified total, row).  A
    modified total beyond the table reads its nearest end."""
    names, fns = env
    total = s.roll(game.dice[t.die], purpose)
    for m in t.modifiers:
        if m.condition is None or E.evaluate(m.condition, names, fns) is True:
            total += int(E.evaluate(m.amount, names, fns))
    row = t.row_for(total)
    if row is None:
        row = 0 if total < t.row_ranges[0][0] else len(t.row_ranges) - 1
    return total, row


def number(t: DieTable, row: int, column: str) -> int:
    """A cell read as a whole number ("+1" is 1; "-" and words are 0)."""
    cells = dict(zip(t.columns, t.cells[row]))
    try:
        return int(cells.get(column, "-"))
    except ValueError:
        return 0
