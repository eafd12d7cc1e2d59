#!/usr/bin/env python3
"""Supply benchmark: lines of communication for every unit of a side on the
synthetic 120x60 game (7,200 hexes, 300 units, Gekitou rules).

    python bench/bench_supply.py          # JSON figures (medians, ms)

``supply_all_ms``: ``supply_status`` for all Soviet units (unlimited lines:
the search covers nearly the whole map, the worst case), state cache
cleared before each run so ZOC and the search are recomputed.
``supply_all_reference_ms``: the same with ``supply_map_reference``
(plain deque BFS).  The ``_axis`` figures are the Axis side (rail net first,
then at most 6 hexes off it).  ``nx_floor_ms``: networkx's multi-source
Dijkstra from the same Soviet sources with a constant weight function (no
rules at all), measured in the same runs: what the library alone costs on
this machine.  Target: supply_all_ms <= 20.
"""
from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import networkx as nx  # noqa: E402

from runtime.board import Board  # noqa: E402
from runtime.definition import GameDefinition  # noqa: E402
from runtime.state import GameState, new_state  # noqa: E402
from runtime.supply import supply_map, supply_map_reference, supply_status  # noqa: E402


def scenario_state(game: GameDefinition, board: Board, scenario: str = "all") -> GameState:
    """A state with the scenario's hex placements made."""
    s = new_state(game)
    for p in game.scenarios[scenario].setup:
        if p.kind == "hex":
            s.place(p.counter, board.parse(p.where_to))
    return s


def _interleaved_medians(fns: dict, state: GameState, runs: int) -> dict[str, float]:
    """Median ms of each function, the runs interleaved (so a busy moment on a
    shared machine costs every figure alike); the state cache is cleared
    before each call.  A full garbage collection runs before each call (not
    timed), so one function's garbage is not charged to the next; collections
    a call's own allocations trigger are charged to it."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            state.cache.clear()
            gc.collect()
            t0 = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t0) * 1000)
    return {k: round(statistics.median(v), 2) for k, v in times.items()}


def bench_supply(runs: int = 15) -> dict:
    from bench.synthetic import synthetic_game

    game, _ = synthetic_game()
    board = Board(game)
    state = scenario_state(game, board)
    sources = list(board.supply_sources("soviet"))
    fns = {"nx_floor_ms": lambda: nx.multi_source_dijkstra_path_length(board.graph, sources,
                                                                       weight=lambda u, v, d: 1)}
    extra: dict = {}
    for side, suffix in (("soviet", ""), ("axis", "_axis")):
        assert supply_map(game, board, state, side) == supply_map_reference(game, board, state, side)
        units = [u.id for u in state.on_map(side)]

        def fast(side=side):
            return supply_status(game, board, state, side)

        def reference(side=side, units=units):
            reached = supply_map_reference(game, board, state, side)
            return {uid: state.units[uid].hex in reached for uid in units}

        fast(), reference()  # warm up (board-static blocking data is built once per board)
        fns[f"supply_all{suffix}_ms"] = fast
        fns[f"supply_all{suffix}_reference_ms"] = reference
        state.cache.clear()
        extra[f"supply_hexes{suffix}"] = len(supply_map(game, board, state, side))
        extra[f"units_in_supply{suffix}"] = f"{sum(fast().values())}/{len(units)}"
    out = _interleaved_medians(fns, state, runs)
    order = ["supply_all_ms", "supply_all_reference_ms", "nx_floor_ms", "supply_all_axis_ms",
             "supply_all_axis_reference_ms"]
    return {**{k: out[k] for k in order}, **extra}


if __name__ == "__main__":
    print(json.dumps(bench_supply(), indent=2))
