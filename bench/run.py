#!/usr/bin/env python3
"""hexforge benchmarks.  Prints figures (medians, in ms unless named _s);
targets live in the issues and docs, not in assertions.

    python bench/run.py          # a table
    python bench/run.py --json   # one JSON object
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# In a fresh process: import the packages (reported as import_ms), then
# time what compiling costs: loading the parser's tables (shipped in
# dsl/hxr_parser.py; no cache file) and compiling the game.
COMPILE_IN_FRESH_PROCESS = r"""
import sys, time
t0 = time.perf_counter()
from dsl.compiler import compile_game
from dsl.parser import _lark
t1 = time.perf_counter()
_lark()
compile_game(sys.argv[1])
t2 = time.perf_counter()
print((t2 - t1) * 1000, (t1 - t0) * 1000)
"""


def fresh_process_compile_ms(game: Path, runs: int = 5) -> tuple[float, float]:
    """Median (compile ms, import ms) over fresh processes."""
    env = dict(os.environ)
    times, imports = [], []
    for _ in range(runs):
        r = subprocess.run([sys.executable, "-c", COMPILE_IN_FRESH_PROCESS, str(game)], cwd=ROOT, env=env,
                           check=True, capture_output=True, text=True)
        compile_ms, import_ms = map(float, r.stdout.split())
        times.append(compile_ms)
        imports.append(import_ms)
    return statistics.median(times), statistics.median(imports)


def in_process_compile_ms(game: Path, runs: int = 7) -> float:
    from dsl.compiler import compile_game

    compile_game(game)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        compile_game(game)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def bench_game(folder: str, scenario: str | None, seeds: tuple[int, ...] = (1, 2, 3),
               bot: str = "random") -> tuple[float, float]:
    """Median seconds and decisions per second of whole games, bot against bot."""
    from dsl.compiler import compile_game
    from runtime.bots import make_bot, play
    from runtime.runner import Runner

    game = compile_game(ROOT / "games" / folder)
    runner = Runner(game, scenario)
    times, rates = [], []
    for seed in seeds:
        agents = {side: make_bot(bot, seed + i) for i, side in enumerate(game.sides)}
        t0 = time.perf_counter()
        state, n = play(runner, runner.new_game(seed), agents)
        dt = time.perf_counter() - t0
        times.append(dt)
        rates.append(n / dt)
    return round(statistics.median(times), 2), round(statistics.median(rates), 1)


def bench_smolensk_game() -> dict:
    """A full Smolensk game (turns 1-9), random bot against random bot."""
    secs, _ = bench_game("smolensk", "full")
    return {"smolensk_full_random_game_s": secs}


def bench_barbarossa_game() -> dict:
    """A Barbarossa postcard game (4 turns), random and greedy bots."""
    secs, _ = bench_game("barbarossa-postcard", None)
    greedy, _ = bench_game("barbarossa-postcard", None, bot="greedy")
    return {"barbarossa_random_game_s": secs, "barbarossa_greedy_game_s": greedy}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--search-games", type=int, default=0,
                    help="also the search bot's strength over this many games per side (slow: see bench_search.py)")
    args = ap.parse_args()
    smolensk = ROOT / "games" / "smolensk"
    cold, imports = fresh_process_compile_ms(smolensk)
    figures = {
        # a fresh process: parser loaded from its shipped tables + compile.  There is no parser cache any
        # more (it was a pickle in the shared temp folder), so the "cached" figure is the same measurement.
        "compile_smolensk_ms": round(cold, 1),
        "compile_smolensk_cached_ms": round(cold, 1),
        "compile_smolensk_warm_ms": round(in_process_compile_ms(smolensk), 1),  # parser in memory
        "import_ms": round(imports, 1),  # importing dsl and runtime, not counted above
    }
    # runtime core on a generated 120x60 map with 300 units
    from bench.bench_movement import bench_movement
    from bench.bench_supply import bench_supply
    from bench.synthetic import synthetic_game

    game, _ = synthetic_game()
    figures.update(bench_movement(game))
    figures.update(bench_supply())
    figures.update(bench_smolensk_game())
    figures.update(bench_barbarossa_game())
    from bench.bench_playout import bench_playouts  # decisions/s beside the earlier algorithms
    figures.update(bench_playouts())
    from bench.bench_greedy import bench_greedy  # greedy games (a balance batch) beside random ones
    figures.update({k: v for k, v in bench_greedy().items() if k != "compiled"})
    from bench.bench_editor import run as bench_editor  # Qt, offscreen: last, in its own section
    figures.update(bench_editor())
    if args.search_games:
        from bench.bench_search import bench_search
        figures.update(bench_search(args.search_games, budget=50, smolensk_budget=10))
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for k, v in figures.items():
            print(f"{k:32} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
