"""``hexforge balance``: a batch of bot games and its statistics and plots."""
from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from pathlib import Path

from runtime.bot_options import examples


def add_balance_command(sub) -> None:
    b = sub.add_parser("balance", help="play a batch of bot games: win rates, VP and plots (resumable)")
    b.add_argument("game", help="a game folder")
    b.add_argument("--games", type=int, default=100, help="games per sweep value (default 100)")
    b.add_argument("--agents", default="greedy,greedy",
                   help="one bot per side, in side order (greedy,random), with options after it (" + examples("; ")
                   + ")")
    b.add_argument("--scenario", default="", help="the scenario (default: the game's first)")
    b.add_argument("--variant", action="append", default=[], help="switch on a variant (repeatable)")
    b.add_argument("--param", action="append", default=[], help="a number the rules ask for: NAME=N (repeatable)")
    b.add_argument("--sweep", default=None, help="play the batch once per value of a number: NAME=V1,V2,... "
                   "(one row each, e.g. bid=30,40,50)")
    b.add_argument("--seed", type=int, default=0, help="the batch's seed: game k is seeded from (seed, k)")
    where = b.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, default=1, help="local worker processes (default 1)")
    where.add_argument("--cluster", default="", help="run on Dask: 'local' (a LocalCluster of 2 workers) "
                       "or a scheduler address tcp://HOST:PORT")
    b.add_argument("--out", default="", help="the results folder (default balance-GAME-SCENARIO); "
                   "running again with the same folder resumes the batch")
    b.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    b.set_defaults(func=cmd_balance)


def fail(msg: str, hint: str = "") -> int:
    print(f"hexforge: error: {msg}", file=sys.stderr)
    if hint:
        print(f"  hint: {hint}", file=sys.stderr)
    return 1


def _number_pair(item: str, flag: str) -> tuple[str, list[int]] | str:
    key, eq, val = item.partition("=")
    values = [v.strip() for v in val.split(",")]
    if not eq or not key.strip() or not all(v.lstrip("-").isdigit() for v in values):
        shape = "NAME=N" if flag == "--param" else "NAME=N1,N2,..."
        return f"{flag} takes {shape}, not '{item}'"
    return key.strip(), [int(v) for v in values]


def cmd_balance(args: argparse.Namespace) -> int:
    from runtime.bots import make_bot
    from runtime.runner import Runner
    from runtime.victory import UnreadParam

    from .balance import MAX_GAMES, BalanceError, BatchSpec, check_out_dir, read_game_texts
    from .cli import param_hint
    from .diagnostics import did_you_mean

    if not 1 <= args.games <= MAX_GAMES:
        return fail(f"--games must be from 1 to {MAX_GAMES:,}, not {args.games:,}",
                    "play more as several batches, each with its own --seed and --out" if args.games > MAX_GAMES
                    else "")
    if args.jobs < 1:
        return fail(f"--jobs must be at least 1, not {args.jobs}")
    params: dict[str, int] = {}
    for item in args.param:
        got = _number_pair(item, "--param")
        if isinstance(got, str) or len(got[1]) != 1:
            return fail(got if isinstance(got, str) else f"--param takes NAME=N, not '{item}'")
        params[got[0]] = got[1][0]
    sweep_key, sweep_values = "", []
    if args.sweep is not None:  # (an empty one, say from an unset shell variable, is refused as well)
        got = _number_pair(args.sweep, "--sweep")
        if isinstance(got, str):
            return fail(got)
        sweep_key, sweep_values = got
        if len(set(sweep_values)) != len(sweep_values):
            return fail(f"--sweep {args.sweep} names a value twice")
        if sweep_key in params:
            return fail(f"--sweep {sweep_key} and --param {sweep_key} both set {sweep_key}: give one")
        if args.games * len(sweep_values) > MAX_GAMES:
            return fail(f"--games {args.games:,} at {len(sweep_values):,} sweep values is "
                        f"{args.games * len(sweep_values):,} games: at most {MAX_GAMES:,} a batch",
                        "play more as several batches, each with its own --seed and --out")
    path = Path(args.game)
    if not path.exists():
        return fail(f"{args.game}: no such game folder")
    try:
        texts, game = read_game_texts(path, args.variant)
    except BalanceError as e:
        return fail(str(e))
    scenario = args.scenario or next(iter(game.scenarios), "")
    if scenario not in game.scenarios:
        return fail(f"{game.info.id} has no scenario '{scenario}'", did_you_mean(scenario, game.scenarios))
    sides = list(game.sides)
    names = [a.strip() for a in args.agents.split(",")]
    if len(names) == 1:
        names = names * len(sides)
    if len(names) != len(sides):
        return fail(f"--agents takes one bot per side ({', '.join(sides)}), e.g. greedy,random")
    for n in names:  # as play reads them: random, greedy, search, search:ITERATIONS, greedy:hold=X (make_bot)
        try:
            make_bot(n, 0)
        except ValueError as e:
            return fail(str(e))
    try:  # the scenario must set up (and have every number it asks for) before any worker starts
        for v in sweep_values or [None]:
            Runner(game, scenario, params=dict(params, **({sweep_key: v} if sweep_key else {}))).new_game(0)
    except UnreadParam as e:
        return fail(f"{'--sweep' if e.name == sweep_key else '--param'} {e.name}: {e}", param_hint(path, game, e.name))
    except (NotImplementedError, ValueError) as e:
        return fail(f"{game.info.id} {scenario}: {e}")
    out = Path(args.out or f"balance-{game.info.id}-{scenario}")
    spec = BatchSpec(game=texts, scenario=scenario, agents=tuple(names), sides=tuple(sides),
                     variants=tuple(args.variant), params=tuple(sorted(params.items())),
                     sweep_key=sweep_key, sweep_values=tuple(sweep_values), seed=args.seed)
    try:
        check_out_dir(out)
    except BalanceError as e:
        return fail(str(e))
    return _run(args, spec, out)


class _Ended(KeyboardInterrupt):
    """SIGTERM or SIGHUP while a batch runs (``kill``, a closed terminal, a
    job scheduler's time limit): handled as Ctrl-C is."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextmanager
def _signals_interrupt():
    """Within it, SIGTERM and SIGHUP raise ``_Ended`` in the main thread, so
    that the batch stops its workers and keeps its finished games as on
    Ctrl-C (by default the driver would die at once and leave its workers
    playing on for nobody)."""
    import signal

    def ended(signum, frame):
        raise _Ended(signum)

    before = {}
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            try:
                before[sig] = signal.signal(sig, ended)
            except ValueError:  # (not the main thread: left as they are)
                break
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _run(args, spec, out: Path) -> int:
    from tqdm import tqdm

    from .balance import BalanceError, batch_title, format_summary, run_batch, shared_note, summarize, write_summary
    from .balance_plots import write_plots

    quiet = args.json or not sys.stderr.isatty()
    bar = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if quiet:
            return
        if bar is None:
            bar = tqdm(total=total, initial=done, unit="game", file=sys.stderr, dynamic_ncols=True,
                       desc=f"{spec.game.entry.split('/')[0]} {spec.scenario}")
        else:
            bar.update(done - bar.n)

    where = f"Dask {args.cluster}" if args.cluster else f"{args.jobs} process{'es' * (args.jobs != 1)}"
    try:
        with _signals_interrupt():
            result = run_batch(spec, args.games, out, jobs=args.jobs, cluster=args.cluster, progress=progress)
    except BalanceError as e:
        return fail(str(e))
    except KeyboardInterrupt as e:
        signum = e.signum if isinstance(e, _Ended) else None  # (None: Ctrl-C)
        how = "interrupted" if signum is None else f"stopped by signal {signum}"
        print(f"\n{how}: the finished games are in {out / 'games.csv'}; "
              "run the same command again to resume", file=sys.stderr)
        return 128 + (signum or 2)  # (Ctrl-C: SIGINT, 2)
    finally:
        if bar is not None:
            bar.close()
    summary = summarize(spec, result.rows)
    summary["played"] = result.played
    summary["resumed"] = len(result.rows) - result.played
    summary["shared"] = result.shared
    summary["beyond"] = result.beyond
    try:
        files = [write_summary(out, summary)] + write_plots(out, spec, summary, result.rows)
    except OSError as e:
        return fail(f"cannot write {out}: {e.strerror or e}")
    files.insert(0, out / "games.csv")
    summary["files"] = [str(f) for f in files]
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
        return 0
    print(batch_title(summary) + f", seed {spec.seed}; {result.played} played on {where}, "
          f"{summary['resumed']} already in {out}")
    if result.beyond:
        print(f"{out / 'games.csv'} also holds {result.beyond} game{'s' * (result.beyond != 1)} this batch did not "
              "ask for (more --games, or other sweep values, before): kept there, not counted here")
    if result.shared:  # (the bots played each game once: the sweep's number decides only who wins)
        print(shared_note(spec))
    for line in format_summary(summary):
        print(line)
    print("wrote " + ", ".join(str(f) for f in files))
    return 0
