#!/usr/bin/env python3
"""What the search's evaluation sees: over greedy games, how well its value of
the position at the end of each turn (``runtime.search.evaluate``) foretells
each side's VP at the end of the game, beside the plain reference of the VP
that side would have if the game ended then (``Runner.standing``).

A search can only improve on the greedy bot where the value it plays to tells
a better position from a worse one.  In Smolensk's short game between greedy
bots most of the result is still luck after the first three turns, so a
value's correlation with single results is small there however good it is,
and moves a lot from one batch to the next (December 2026: the evaluation's r
at the end of turn 3 was 0.01 over 120 games, 0.13 over 40, 0.35 over 40
others, where ``--replays`` put the ceiling near 0.55; docs/balance.md).

    python bench/bench_evaluation.py --games 120 --jobs 2
    python bench/bench_evaluation.py --game barbarossa-postcard --scenario "" --games 200 --json
    python bench/bench_evaluation.py --games 40 --replays 4 --jobs 2

With ``--replays K`` each game is also played on K more times from each turn's
end, with other dice, chit draws and bot seeds: how much of the result is
still luck then, and so the most any value of the position could foretell (in
Smolensk's short game two thirds or more after turns 1 to 3, a quarter after
turn 4: docs/balance.md).

Game k uses seed k whatever --jobs runs it.  Figures are Pearson
correlations over the games still going at the turn's end; a side's row says
how its final VP, and whether it won, follow its value ("-" where a figure does
not vary: Barbarossa's Soviets score no VP).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_search import _runner  # noqa: E402  (the runner of a game, kept per worker process)


def one_game(folder: str, scenario: str | None, seed: int, variants: tuple[str, ...] = (),
             params: tuple = (), replays: int = 0) -> dict:
    """A greedy game of seed ``seed``: per turn that ended with the game still going, each side's
    evaluation and VP standing then, and (``replays``) the final VP of that many more greedy games
    played on from there with other dice and chit draws; the final VP."""
    from runtime.bots import make_bot
    from runtime.search import evaluate, game_values

    runner = _runner(folder, scenario, variants, params)
    values = game_values(runner)
    sides = list(runner.game.sides)
    bots = {side: make_bot("greedy", seed * 1000 + i + 1) for i, side in enumerate(sides)}
    s = runner.new_game(seed)
    turns: dict[int, dict] = {}
    turn = s.turn
    while s.result is None:
        s = runner.apply(s, bots[runner.to_move(s)].choose(runner, s))
        if s.result is None and s.turn != turn:
            vp, _ = runner.standing(s)
            value = evaluate(runner, values, s)
            turns[turn] = {side: [round(value[side], 5), vp.get(side, 0)] for side in sides}
            if replays:
                turns[turn]["replays"] = [play_on(runner, s, f"{seed}:{turn}:{k}") for k in range(replays)]
            turn = s.turn
    return {"seed": seed, "turns": turns, "vp": s.result.get("vp", {}), "winner": s.result.get("winner")}


def play_on(runner, state, key: str) -> dict[str, int]:
    """Each side's final VP in a greedy game played on from ``state`` with dice and chit draws
    of their own (the generator re-seeded from ``key``), the bots seeded from it too."""
    import random

    from runtime.bots import make_bot, play
    from runtime.search import determinise

    rng = random.Random(f"replay:{key}")
    s = determinise(state, rng)
    s, _ = play(runner, s, {side: make_bot("greedy", rng.getrandbits(32)) for side in runner.game.sides})
    return {side: s.result.get("vp", {}).get(side, 0) for side in runner.game.sides}


def _play(args) -> dict:
    return one_game(*args)


def correlation(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r; None where either list does not vary (or has fewer than 3 values)."""
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return statistics.correlation(xs, ys)


def _rounded(r: float | None) -> float | None:
    return None if r is None else round(r, 2)


def luck_share(groups: list[list[float]]) -> float | None:
    """The share of the final VP's variance that is left to luck once a turn has ended, from
    ``groups``: per game, the final VP of the games played from its position then (the game's
    own result among them).  A one-way analysis of variance (the intraclass correlation): the
    variance within a group is luck; that of the groups' means, less what luck adds to a mean
    of that many, is what the positions decide.  None where nothing varies (or too few
    games)."""
    groups = [g for g in groups if len(g) >= 2]
    if len(groups) < 3:
        return None
    n = statistics.fmean(len(g) for g in groups)
    within = statistics.fmean(statistics.variance(g) for g in groups)
    between = max(0.0, statistics.variance([statistics.fmean(g) for g in groups]) - within / n)
    if within + between == 0:
        return None
    return within / (within + between)


def bench_evaluation(folder: str, scenario: str | None, games: int, jobs: int = 1, variants: tuple[str, ...] = (),
                     params: tuple = (), replays: int = 0) -> dict:
    """Per side and turn: the correlation of the evaluation at the turn's end with the side's final
    VP, beside that of the VP standing then (the plain reference), over ``games`` greedy games.
    With ``replays``: the share of the final VP's variance left to luck by then (``luck_share``)
    and the ceiling it sets on any value of the position, the square root of the rest: no
    evaluation's correlation with these bots' results can pass it (by more than chance)."""
    tasks = [(folder, scenario, k, variants, params, replays) for k in range(games)]
    if jobs <= 1:
        results = [_play(t) for t in tasks]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_play, tasks))
    sides = sorted({side for r in results for side in r["vp"]})
    out: dict = {"games": games, "sides": {}}
    last = max((t for r in results for t in r["turns"]), default=0)
    for side in sides:
        rows = {}
        for turn in range(1, last + 1):
            going = [r for r in results if turn in r["turns"]]
            at = [r["turns"][turn] for r in going]
            final = [float(r["vp"].get(side, 0)) for r in going]
            won = [1.0 if r["winner"] == side else 0.0 for r in going]
            rows[turn] = {"games": len(going),
                          "evaluation": _rounded(correlation([a[side][0] for a in at], final)),
                          "vp_standing": _rounded(correlation([float(a[side][1]) for a in at], final)),
                          "evaluation_win": _rounded(correlation([a[side][0] for a in at], won))}
            if replays:
                share = luck_share([[f, *(float(x[side]) for x in a["replays"])] for f, a in zip(final, at)])
                rows[turn]["luck"] = _rounded(share)
                rows[turn]["ceiling"] = None if share is None else _rounded(max(0.0, 1.0 - share) ** 0.5)
        out["sides"][side] = rows
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="smolensk", help="a folder under games/ (default smolensk)")
    ap.add_argument("--scenario", default="short", help='its scenario ("" for the first; default short)')
    ap.add_argument("--variant", action="append", default=None,
                    help="a variant on (repeatable; default vp-bidding for Smolensk)")
    ap.add_argument("--param", action="append", default=None,
                    help="NAME=N (repeatable; default bid=9 for Smolensk, its even game between greedy bots)")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--replays", type=int, default=0,
                    help="play each game on this many more times from each turn's end, with other dice: "
                         "prints the share of the result left to luck then, and the ceiling it sets")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    smolensk = args.game == "smolensk"
    variants = tuple(args.variant if args.variant is not None else (["vp-bidding"] if smolensk else []))
    raw = args.param if args.param is not None else (["bid=9"] if smolensk else [])
    try:
        params = tuple((k, int(v)) for k, _, v in (p.partition("=") for p in raw))
    except ValueError:
        ap.error(f"--param takes NAME=N, a whole number: {' '.join(raw)}")
    if args.replays < 0 or args.replays == 1:
        ap.error("--replays takes 0 (none) or at least 2: a spread needs two games")
    figures = bench_evaluation(args.game, args.scenario or None, args.games, args.jobs, variants, params,
                               args.replays)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{args.game} {args.scenario or ''} {' '.join(variants)} {dict(params) or ''}: {args.games} greedy games; "
          "the correlation with the side's final VP of, at the turn's end:")
    luck = f" {'left to luck':>12} {'ceiling':>7}" if args.replays else ""
    print(f"{'side':8} {'turn':>4} {'games':>5} {'evaluation':>10} {'VP standing (reference)':>24} "
          f"{'evaluation, with winning':>25}{luck}")
    show = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
    for side, rows in figures["sides"].items():
        for turn, row in rows.items():
            more = f" {show(row['luck']):>12} {show(row['ceiling']):>7}" if args.replays else ""
            print(f"{side:8} {turn:>4} {row['games']:>5} {show(row['evaluation']):>10} {show(row['vp_standing']):>24} "
                  f"{show(row['evaluation_win']):>25}{more}")
    print("(-: the figure does not vary over these games)")
    if args.replays:
        print(f"left to luck: the share of the final VP's variance within the game and {args.replays} more greedy "
              "games played on from its position at the turn's end with other dice (one-way analysis of "
              "variance); ceiling: the square root of the rest, the most any value of the position could foretell")
    return 0


if __name__ == "__main__":
    sys.exit(main())
