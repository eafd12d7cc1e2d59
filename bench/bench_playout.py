"""Decisions per second of random playouts (the speed a search bot needs),
each beside a reference measured in the same run: the same playouts with the
engine's earlier algorithms put back (a networkx Dijkstra supply search for
every new state, no supply or move searches shared across states, a move
Dijkstra for every unit listed where a component of hexes would do, every
legal-action list built in full).

    smolensk_actions_per_s              Smolensk full game, random vs random
    smolensk_plain_actions_per_s        the same games, the engine as plain Python
    smolensk_reference_actions_per_s    the same games, earlier algorithms
    barbarossa_actions_per_s            Barbarossa postcard, random vs random
    barbarossa_plain_actions_per_s      the same games, the engine as plain Python
    barbarossa_reference_actions_per_s  the same games, earlier algorithms

The engine's hottest modules run compiled by mypyc where they are built
(``python -m runtime.compile``; ``make`` builds them): the first figure of
each game is the engine as a user runs it, ``compiled`` says whether that
was compiled, and the plain figure is the same code as plain Python
(``HEXFORGE_PURE=1``, in a child process).  The earlier algorithms are put
back into the plain Python modules (a compiled module calls its own
functions directly, past a patched module attribute), so the reference
runs in a plain child process too.

Rates are decisions per second of the process's CPU time (time.process_time):
on a machine shared with other work, wall-clock time counts the waits for a
core, which say nothing about the engine.  The engine's figures are the best
of ``REPEAT`` passes, each from a fresh compile of the game (so each pays the
first-time work of its searches); the slow reference is one pass.  Garbage is collected before each
timed game (as timeit and pyperf do): otherwise the first full collection of
the freshly compiled game (the board's graph, the definitions) falls into the
first timed game, a fixed cost of a few short games that says nothing of the
engine either.
"""
from __future__ import annotations

import contextlib
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runtime import movement as M  # noqa: E402
from runtime import supply as S  # noqa: E402
from runtime.compiled import compiled  # noqa: E402


def _networkx_search(game, board, side, no_enter, no_exit, st, lost=frozenset()):
    """The supply search as it was: networkx multi-source Dijkstra with weight functions."""
    step, rail_step = S._weights(no_enter, no_exit, st, game.supply.rail_link.get(side, S.RAIL))
    origins = {h for h in board.supply_sources(side) if h not in no_enter and h not in lost}
    if origins and side in game.supply.rail:  # the rail net counts as sources
        origins = set(nx.multi_source_dijkstra_path_length(board.graph, origins, weight=rail_step))
    if not origins:
        return {}
    return nx.multi_source_dijkstra_path_length(board.graph, origins, cutoff=S._cutoff(game.supply, side),
                                                weight=step)


@contextlib.contextmanager
def earlier_algorithms(runner):
    if compiled(S) or compiled(M):
        raise RuntimeError("the earlier algorithms go back into plain Python modules: run with HEXFORGE_PURE=1")
    search, shared, moves, component, legal = (S._search, S._SHARED, M._SEARCHES, M._component_search,
                                               runner.legal_actions)
    S._search = _networkx_search
    S._SHARED = _NoShareStore()
    M._SEARCHES = _NoShareStore()
    M._component_search = lambda *args: None  # every move range from its own Dijkstra
    runner.legal_actions = lambda s: list(legal(s))
    try:
        yield
    finally:
        S._search, S._SHARED, M._SEARCHES, M._component_search = search, shared, moves, component
        del runner.legal_actions


# the engine's figures are the best of this many passes (as timeit's repeat advises: on a shared machine
# the slower passes measure the other work); the reference, slow, is one pass
REPEAT = 3


class _NoShareStore:
    """Stands for the per-board store of shared searches, and keeps nothing."""

    def get(self, board):
        return None

    def __setitem__(self, board, value) -> None:
        pass


def playout_rate(folder: str, scenario: str | None, seeds=(1, 2, 3), reference: bool = False,
                 plain: bool = False, repeat: int = 1) -> float:
    """Decisions per second over whole random games (all seeds together):
    the engine as it runs here, or as plain Python (``plain``), or with its
    earlier algorithms (``reference``, as plain Python).  ``repeat``: the
    best of that many passes, each from a fresh compile of the game (so
    each pays the first-time work of its searches, as one pass does)."""
    if (plain or reference) and (compiled(S) or compiled(M)):
        return _in_plain_process(folder, scenario, seeds, reference, repeat)
    return max(_one_pass(folder, scenario, seeds, reference) for _ in range(repeat))


def _one_pass(folder: str, scenario: str | None, seeds, reference: bool) -> float:
    from dsl.compiler import compile_game
    from runtime.bots import make_bot, play
    from runtime.runner import Runner

    game = compile_game(ROOT / "games" / folder)
    runner = Runner(game, scenario)
    n_all, t_all = 0, 0.0
    ctx = earlier_algorithms(runner) if reference else contextlib.nullcontext()
    with ctx:
        for seed in seeds:
            agents = {side: make_bot("random", seed + i) for i, side in enumerate(game.sides)}
            gc.collect()
            t0 = time.process_time()
            _, n = play(runner, runner.new_game(seed), agents)
            t_all += time.process_time() - t0
            n_all += n
    return round(n_all / t_all, 1)


def _in_plain_process(folder: str, scenario: str | None, seeds, reference: bool, repeat: int) -> float:
    """``playout_rate`` measured in a child process that runs the engine as plain Python."""
    args = [sys.executable, __file__, "--rate", json.dumps([folder, scenario, list(seeds), reference, repeat])]
    run = subprocess.run(args, env=dict(os.environ, HEXFORGE_PURE="1"), capture_output=True, text=True, check=True)
    return float(run.stdout.split()[-1])


def bench_playouts(repeat: int = REPEAT) -> dict:
    barbarossa = tuple(range(1, 11))
    return {
        "compiled": compiled(M) and compiled(S),
        "smolensk_actions_per_s": playout_rate("smolensk", "full", repeat=repeat),
        "smolensk_plain_actions_per_s": playout_rate("smolensk", "full", plain=True, repeat=repeat),
        "smolensk_reference_actions_per_s": playout_rate("smolensk", "full", reference=True),
        "barbarossa_actions_per_s": playout_rate("barbarossa-postcard", None, seeds=barbarossa, repeat=repeat),
        "barbarossa_plain_actions_per_s": playout_rate("barbarossa-postcard", None, seeds=barbarossa, plain=True,
                                                       repeat=repeat),
        "barbarossa_reference_actions_per_s": playout_rate("barbarossa-postcard", None, seeds=barbarossa,
                                                           reference=True),
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["--rate"]:  # (the child process of _in_plain_process)
        folder, scenario, seeds, reference, repeat = json.loads(sys.argv[2])
        print(playout_rate(folder, scenario, tuple(seeds), reference=reference, repeat=repeat))
        sys.exit(0)
    for k, v in bench_playouts().items():
        print(f"{k:36} {v}")
