"""What the runner's procedure classes read of the ``Runner`` they make up
(runtime.chitpull, runtime.reinforce, runtime.victory, runtime.effects,
runtime.reorganize, runtime.designate): the attributes ``Runner.__init__``
sets and the methods one of them calls of another, declared once so that a
type checker follows them.  Declarations only: nothing here runs, and the
``Runner`` itself defines all of it."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import Board
    from .definition import GameDefinition, Scenario, VictoryRule
    from .engine import Engine
    from .hexes import Hex
    from .runner import Step
    from .state import GameState


class RunnerParts:
    """The base of the runner's procedure classes (see the module)."""

    game: GameDefinition
    scenario: Scenario
    engine: Engine
    board: Board
    program: tuple[Step, ...]
    victory: tuple[VictoryRule, ...]
    params: dict[str, int]
    declared_names: dict
    _designations: dict
    _rail_traces: dict
    _rail_entry_lists: dict
    _ids_kept: dict

    if TYPE_CHECKING:  # defined by one procedure class or the runner, called by another
        def env(self, s: GameState) -> tuple[dict, dict]: ...

        def run_effects(self, s: GameState, key: str, why: str, **bound) -> None: ...

        def supply_phase(self, s: GameState) -> None: ...

        def finish(self, s: GameState, ended: str, decided_by=None, winner: str | None = None) -> None: ...

        def placement_hexes(self, s: GameState, uid: str) -> list[Hex]: ...

        def arrival_hexes(self, s: GameState, a) -> list[Hex]: ...

        def marker_function_makers(self) -> dict: ...

        def _true(self, s: GameState, cond) -> bool: ...

        def _pick(self, s: GameState, pool: list, n: int | None, why: str) -> list: ...

        def _start_placement(self, s: GameState, side: str, area: str = "", early: bool = False) -> None: ...

        def _start_placements(self, s: GameState, sides: list[str]) -> None: ...
