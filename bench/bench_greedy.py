#!/usr/bin/env python3
"""What a balance batch costs: decisions per second of greedy-vs-greedy games
(the bots ``hexforge balance`` plays by default), game by game, beside the
plain reference measured in the same run: random-vs-random games of the same
game and scenario (the engine alone, no bot thinking), and the greedy games an
hour one core plays.

    python bench/bench_greedy.py            # a table
    python bench/bench_greedy.py --json     # one JSON object

    GAME_greedy_decisions_per_s     greedy against greedy, seeds 1-2 (best of 2 passes)
    GAME_random_decisions_per_s     random against random, the same seeds (best of 2 passes)
    GAME_greedy_games_per_hour      one core; --jobs N of ``hexforge balance`` plays N times as many

Rates are per second of the process's CPU time (time.process_time), as in
bench_playout.py: on a shared machine the waits for a core say nothing of the
bots.  The first pass of each game also pays for its searches' first-time
work (move ranges, supply lines kept across states), so the best pass counts.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_search import SMOLENSK_EVEN  # noqa: E402

# (figure name, game folder, scenario, variants, params): Smolensk's short game made even between
# greedy bots by 16.1's bid (bench_search.SMOLENSK_EVEN), the game designers balance most
GAMES = (("smolensk_short", "smolensk", "short", SMOLENSK_EVEN["variants"], SMOLENSK_EVEN["params"]),
         ("barbarossa", "barbarossa-postcard", None, (), ()),
         ("a_victory_denied", "a-victory-denied", None, (), ()),
         ("prokhorovka", "prokhorovka", None, (), ()))
SEEDS = (1, 2)
PASSES = 2


def _rate(runner, bot: str, seeds=SEEDS, passes: int = PASSES) -> tuple[float, float]:
    """(decisions a second, seconds a game) of ``bot`` on both sides, the best pass."""
    from runtime.bots import make_bot, play

    best = None
    for _ in range(passes):
        t = time.process_time()
        n = 0
        for seed in seeds:
            bots = {side: make_bot(bot, seed * 1000 + i + 1) for i, side in enumerate(runner.game.sides)}
            n += play(runner, runner.new_game(seed), bots)[1]
        dt = time.process_time() - t
        if best is None or dt < best[1]:
            best = (n, dt)
    n, dt = best
    return n / dt, dt / len(seeds)


def bench_greedy(games=GAMES) -> dict:
    from dsl.compiler import compile_game
    from runtime.compiled import status
    from runtime.runner import Runner

    figures: dict = {"compiled": status()[0]}
    for name, folder, scenario, variants, params in games:
        runner = Runner(compile_game(ROOT / "games" / folder, variants), scenario, params=dict(params))
        greedy, per_game = _rate(runner, "greedy")
        random_rate, _ = _rate(runner, "random")
        figures[f"{name}_greedy_decisions_per_s"] = round(greedy)
        figures[f"{name}_random_decisions_per_s"] = round(random_rate)
        figures[f"{name}_greedy_games_per_hour"] = round(3600 / per_game)
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    figures = bench_greedy()
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        for k, v in figures.items():
            print(f"{k:42} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
