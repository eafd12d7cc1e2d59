#!/usr/bin/env python3
"""Observation benchmark: what a side's view costs (runtime/observe.py).

    python bench/bench_observe.py          # JSON figures (medians, microseconds)

On Smolensk after 300 random decisions (chits in the cup and in hand, picked
chits), and on tests/games/hidden at its set-up (face-down victory chits):
``observe_us`` builds one side's view (without its log), ``determinise_us``
draws one whole state from that view, and ``state_copy_us``, the plain
reference measured in the same run, is one ``GameState.copy``.  A game that
hides nothing (Barbarossa) is observed as the state itself:
``observe_nothing_hidden_us``.  The greedy bot pays one view and one sample
a decision; the random bot pays nothing.
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dsl.compiler import compile_game  # noqa: E402
from runtime.bots import RandomBot  # noqa: E402
from runtime.observe import determinise, observe  # noqa: E402
from runtime.runner import Runner  # noqa: E402


def per_call_us(fn, n: int, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - t0) / n * 1e6)
    return round(statistics.median(times), 1)


def state_after(folder: Path, decisions: int):
    game = compile_game(folder)
    r = Runner(game)
    bot = RandomBot(1)
    s = r.new_game(1)
    for _ in range(decisions):
        if s.result is not None:
            break
        s = r.apply(s, bot.choose(r, s))
    return game, r, s


def bench_observe() -> dict:
    out = {}
    for name, folder, n in (("smolensk", ROOT / "games" / "smolensk", 300),
                            ("hidden", ROOT / "tests" / "games" / "hidden", 0)):
        game, r, s = state_after(folder, n)
        side = r.to_move(s) or next(iter(game.sides))
        view = observe(game, s, side, log=False)
        out[f"{name}_observe_us"] = per_call_us(lambda: observe(game, s, side, log=False), 2000)
        out[f"{name}_determinise_us"] = per_call_us(lambda: determinise(game, view, random.Random(0)), 500)
        out[f"{name}_state_copy_us"] = per_call_us(s.copy, 200)
    game, r, s = state_after(ROOT / "games" / "barbarossa-postcard", 50)
    out["observe_nothing_hidden_us"] = per_call_us(lambda: observe(game, s, "axis", log=False), 20000)
    return out


if __name__ == "__main__":
    print(json.dumps(bench_observe(), indent=1))
