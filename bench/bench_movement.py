"""move_range_ms: one unit's legal destinations on the 120x60 synthetic map
with 300 units, next to a minimal plain-heapq Dijkstra (terrain costs only)."""
from __future__ import annotations

import heapq
import statistics
import time

from runtime.board import Board
from runtime.movement import class_costs, move_range, unit_mp
from runtime.state import new_state


def reference_range(board: Board, costs, start, mp: int) -> dict:
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        d, h = heapq.heappop(heap)
        if d != dist[h]:
            continue
        for n, _ in board.adj[h]:
            c = costs.enter[n]
            if c is None or c < 0:
                continue
            nd = d + c
            if nd <= mp and nd < dist.get(n, 1 << 60):
                dist[n] = nd
                heapq.heappush(heap, (nd, n))
    return dist


def bench_movement(game=None, runs: int = 41) -> dict:
    if game is None:
        from bench.synthetic import synthetic_game
        game, _ = synthetic_game()
    board = Board(game)
    state = new_state(game)
    g = game.map.grid
    for p in game.scenarios["all"].setup:
        state.place(p.counter, g.parse_id(p.where_to))
    movers = [u.id for u in state.units.values() if u.hex is not None and game.counters[u.id].unit_class == "panzer"]
    times, ref = [], []
    for i in range(runs):
        uid = movers[i % len(movers)]
        t0 = time.perf_counter()
        move_range(game, board, state, uid)
        times.append((time.perf_counter() - t0) * 1000)
        costs = class_costs(game, board, game.counters[uid].unit_class)
        t0 = time.perf_counter()
        reference_range(board, costs, state.units[uid].hex, unit_mp(game, state, uid))
        ref.append((time.perf_counter() - t0) * 1000)
    return {"move_range_ms": round(statistics.median(times), 3),
            "move_range_reference_ms": round(statistics.median(ref), 3)}


if __name__ == "__main__":
    print(bench_movement())
