#!/usr/bin/env python3
"""Instructions a decision: the engine's and the bots' cost counted by
valgrind's callgrind, which counts the machine instructions a process runs
(``Ir``).  The count does not depend on the other work of the machine, so
that a change of a few percent shows, run after run, where a timed figure
on this project's shared two-core host moves by a third from hour to hour
(bench_playout.py, bench_greedy.py).  Instructions are not time (a cache
miss costs more than an addition), but a change that runs fewer of them
for the same games runs faster.

    python bench/bench_instructions.py            # a table
    python bench/bench_instructions.py --json     # one JSON object

    barbarossa_random_instructions_per_decision   random against random, seeds 1-10
    smolensk_random_instructions_per_decision     Smolensk's full game, random against random, seeds 1-3
    smolensk_greedy_instructions_per_decision     Smolensk's short game (bid 5), greedy against greedy,
                                                  seed 1, its first DECISIONS decisions
    reference_instructions                        a fixed piece of plain Python (sorting, dicts, tuples):
                                                  what this Python build costs, beside the figures

Each is counted in a child process run under callgrind with its counting
switched off (``--instr-atstart=no``) while the game compiles, and on for
the games alone (``callgrind_control -i on``).  The games are the same seeded
games every run, so the figures change only when the code does (or the
Python, or the build of the compiled modules: ``compiled`` says whether the
engine ran compiled).  It takes about four minutes: callgrind runs a program
some fifty times slower.  Needs valgrind (Debian: ``apt install valgrind``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DECISIONS = 300  # greedy decisions counted (a whole short game is over 1,000, some four minutes more)

# (figure name, game folder, scenario, variants, params, bot, seeds, decisions a game at most or None)
RUNS = (("barbarossa_random", "barbarossa-postcard", None, (), (), "random", tuple(range(1, 11)), None),
        ("smolensk_random", "smolensk", "full", (), (), "random", (1, 2, 3), None),
        ("smolensk_greedy", "smolensk", "short", ("vp-bidding",), (("bid", 5),), "greedy", (1,), DECISIONS))


def _switch(on: bool) -> None:
    """Counting on or off in this process (run under callgrind)."""
    subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(os.getpid())],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def _child_games(spec: list) -> None:
    """In the child: compile, then play the seeded games with counting on;
    prints the decisions taken."""
    import gc

    from dsl.compiler import compile_game
    from runtime.bots import make_bot
    from runtime.runner import Runner

    folder, scenario, variants, params, bot, seeds, most = spec
    runner = Runner(compile_game(ROOT / "games" / folder, tuple(variants)), scenario,
                    params={k: v for k, v in params})
    gc.collect()
    _switch(True)
    n = 0
    for seed in seeds:
        agents = {side: make_bot(bot, seed + i) for i, side in enumerate(runner.game.sides)}
        state, taken = runner.new_game(seed), 0
        while state.result is None and (most is None or taken < most):
            side = runner.to_move(state)
            state = runner.apply(state, agents[side].choose(runner, state))
            taken += 1
        n += taken
    _switch(False)
    print(n)


def _child_reference() -> None:
    """In the child: a fixed piece of plain Python with counting on."""
    import random

    rng = random.Random(1)
    _switch(True)
    table: dict = {}
    for i in range(20_000):
        key = (rng.randrange(100), rng.randrange(100))
        table[key] = table.get(key, 0) + i
    rows = sorted(table.items(), key=lambda kv: (kv[1], kv[0]))
    total = sum(v for _, v in rows[:1000])
    _switch(False)
    print(total)


def count(args: list[str]) -> tuple[int, str]:
    """(instructions counted, the child's last line of output) of this
    script run with ``args`` under callgrind."""
    with tempfile.TemporaryDirectory(prefix="hexforge-ir-") as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                              sys.executable, __file__, *args], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"the child failed under callgrind:\n{run.stderr[-2000:]}")
        found = re.search(r"Collected : (\d+)", run.stderr)
        if found is None:
            raise RuntimeError(f"callgrind printed no count:\n{run.stderr[-2000:]}")
        return int(found.group(1)), run.stdout.strip().splitlines()[-1]


def bench_instructions(runs=RUNS) -> dict:
    from runtime.compiled import status

    figures: dict = {"compiled": status()[0]}
    for name, *spec in runs:
        ir, decisions = count(["--games", json.dumps(spec)])
        figures[f"{name}_instructions_per_decision"] = round(ir / int(decisions))
        figures[f"{name}_decisions"] = int(decisions)
    figures["reference_instructions"] = count(["--reference"])[0]
    return figures


def main() -> int:
    if sys.argv[1:2] == ["--games"]:  # (the child processes, under callgrind)
        _child_games(json.loads(sys.argv[2]))
        return 0
    if sys.argv[1:2] == ["--reference"]:
        _child_reference()
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    missing = [t for t in ("valgrind", "callgrind_control") if shutil.which(t) is None]
    if missing:
        print(f"bench_instructions: {' and '.join(missing)} not found: install valgrind "
              f"(Debian: apt install valgrind)", file=sys.stderr)
        return 1
    figures = bench_instructions()
    if args.json:
        print(json.dumps(figures))
    else:
        for k, v in figures.items():
            print(f"{k:48} {v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{k:48} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
