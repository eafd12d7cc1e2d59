"""The benchmarks' plain references still run and play the same games: a
reference that breaks when the engine changes (as the supply search's
did when sources could be lost) would leave the speed figures without
their yardstick."""
from __future__ import annotations

import os
import subprocess
import sys

from bench.bench_greedy import GAMES, bench_greedy
from bench.bench_playout import earlier_algorithms, playout_rate
from dsl.compiler import compile_game
from runtime import movement as M
from runtime import supply as S
from runtime.bots import make_bot, play
from runtime.compiled import compiled
from runtime.runner import Runner

from helpers import ROOT


def _game_log(runner, seed):
    state = runner.new_game(seed)
    agents = {side: make_bot("random", seed + i) for i, side in enumerate(runner.game.sides)}
    end, n = play(runner, state, agents)
    return n, end.log


def test_the_playout_reference_plays_the_same_game_as_the_engine():
    if compiled(S) or compiled(M):  # (the reference goes back into the plain modules: test it in a plain process)
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                              f"{__file__}::test_the_playout_reference_plays_the_same_game_as_the_engine"],
                             cwd=ROOT / "tests", env=dict(os.environ, HEXFORGE_PURE="1"), capture_output=True,
                             text=True)
        assert run.returncode == 0, run.stdout[-3000:]
        return
    game = compile_game(ROOT / "games" / "barbarossa-postcard")
    runner = Runner(game, None)
    fast = _game_log(runner, 4)
    with earlier_algorithms(runner):
        slow = _game_log(runner, 4)
    assert fast == slow and fast[0] > 0


def test_the_playout_bench_measures_all_three():
    assert playout_rate("barbarossa-postcard", None, seeds=(1,)) > 0
    assert playout_rate("barbarossa-postcard", None, seeds=(1,), plain=True) > 0
    assert playout_rate("barbarossa-postcard", None, seeds=(1,), reference=True) > 0


def test_the_greedy_bench_measures_the_bots_beside_the_engine():
    figures = bench_greedy(games=[g for g in GAMES if g[0] == "barbarossa"])
    assert figures["barbarossa_random_decisions_per_s"] > figures["barbarossa_greedy_decisions_per_s"] > 0
    assert figures["barbarossa_greedy_games_per_hour"] > 0


def test_search_on_both_sides_is_measured_beside_greedy_on_the_same_seeds():
    from bench.bench_search import search_both_sides
    figures = search_both_sides("barbarossa-postcard", None, "search:2", 2)
    for f in (figures, figures["greedy_reference"]):
        assert f["games"] == 2 and sum(f["winners"].values()) == 2
        for side, (lo, hi) in f["wilson95"].items():  # each side's wins with their interval
            assert lo <= f["winners"][side] / 2 <= hi
        assert f["axis_took_cities_in"] == sum(1 for n in f["axis_cities_taken"] if n)
    assert set(figures["departed"]) == {"axis", "soviet"}


def test_the_evaluation_bench_sets_the_search_s_value_beside_the_vp_standing():
    """bench_evaluation: per side and turn, how the search's evaluation at the turn's end follows the
    side's final VP, beside the VP standing then; the games are the greedy games of seeds 0.."""
    from bench.bench_evaluation import bench_evaluation, correlation, one_game
    assert correlation([1.0, 2.0, 3.0], [2.0, 4.0, 7.0]) > 0.98 and correlation([3.0, 2.0, 1.0], [1.0, 2.0, 3.0]) == -1.0
    assert correlation([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None and correlation([1.0, 2.0], [2.0, 1.0]) is None
    figures = bench_evaluation("barbarossa-postcard", None, 4)
    games = [one_game("barbarossa-postcard", None, k) for k in range(4)]
    assert figures["games"] == 4 and set(figures["sides"]) == {"axis", "soviet"}
    for side, rows in figures["sides"].items():
        assert list(rows) == sorted({t for g in games for t in g["turns"]})
        for turn, row in rows.items():
            assert row["games"] == sum(1 for g in games if turn in g["turns"])
            value = [g["turns"][turn][side][0] for g in games if turn in g["turns"]]
            final = [float(g["vp"].get(side, 0)) for g in games if turn in g["turns"]]
            r = correlation(value, final)
            assert row["evaluation"] == (None if r is None else round(r, 2))
    assert all(-1.0 <= g["turns"][t][s][0] <= 1.0 for g in games for t in g["turns"] for s in g["turns"][t])


def test_the_luck_share_is_the_within_game_variance_of_games_played_on_from_one_position():
    """luck_share: a one-way analysis of variance of the final VP of games played on from each
    game's position; all luck where the positions' groups agree, none where each group is
    constant; a game's replays are seeded, and the bench's ceiling is the root of the rest."""
    from bench.bench_evaluation import bench_evaluation, luck_share, one_game
    assert luck_share([[0.0, 2.0], [0.0, 2.0], [0.0, 2.0]]) == 1.0  # the same spread from every position
    assert luck_share([[1.0, 1.0], [5.0, 5.0], [9.0, 9.0]]) == 0.0  # each position decides its result
    # within: variance 2 in each group; between: variance of the means (4, 6, 8) is 4, less 2 / 2 = 3
    assert luck_share([[3.0, 5.0], [5.0, 7.0], [7.0, 9.0]]) == 2.0 / (2.0 + 3.0)
    assert luck_share([[1.0], [2.0], [3.0]]) is None and luck_share([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]) is None
    game = one_game("barbarossa-postcard", None, 1, replays=2)
    assert game == one_game("barbarossa-postcard", None, 1, replays=2)  # seeded: the same replays again
    for turn, row in game["turns"].items():
        assert len(row["replays"]) == 2 and all(set(r) == {"axis", "soviet"} for r in row["replays"])
    figures = bench_evaluation("barbarossa-postcard", None, 3, replays=2)
    for rows in figures["sides"].values():
        for row in rows.values():
            assert row["luck"] is None or (0.0 <= row["luck"] <= 1.0 and
                                           abs(row["ceiling"] - (1 - row["luck"]) ** 0.5) < 0.01)
