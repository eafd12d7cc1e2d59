"""Balance batches: many bot games of one scenario, and their statistics.

A batch is a ``BatchSpec``: the game as text (every file it compiles from,
so a worker on another machine rebuilds the same game without unpickling a
definition), the scenario, variants, parameters, one bot per side, a seed
and optionally a parameter swept over several values (Smolensk 16.1's VP
bid).  Game *k* of a batch (for every sweep value) is played with the seed
``game_seed(seed, k)``, so a batch gives the same games however it is split
across processes or a Dask cluster, and ``hexforge play --seed S`` replays
any one of them.

Finished games are appended to ``games.csv`` in the output folder one line
at a time as they finish, so an interrupted batch resumes where it stopped
(a complete batch's file is rewritten in game order);
``batch.json`` records what the batch is, so a folder is never resumed with
other rules, bots or seed.  ``summarize`` turns the rows into the per-side
figures (win rate with a Wilson 95% interval, draws, VP quartiles, length)
and where the VP came from: each award of the victory rules, its mean per
game and the share of games it paid in (a bonus no game earns is a rule the
bots never reach, or one the scenario makes unreachable).
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import statistics
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

GAMES_CSV = "games.csv"
BATCH_JSON = "batch.json"
# the most games a batch plays, all sweep values together (its games are listed, and kept, in memory: a
# thousand million would not fit); more are played as several batches, each with its own seed and folder
MAX_GAMES = 1_000_000
SUMMARY_JSON = "summary.json"
FORMAT = 2  # 2: games.csv has the awards column
Z95 = 1.959963984540054  # the 97.5% point of the standard normal


class BalanceError(Exception):
    """A batch that cannot start or go on: the message says why."""


# ------------------------------------------------------------ statistics

def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default):
    unlike p ± z·sqrt(p(1-p)/n) it stays inside [0, 1] and is not empty at
    0 or n wins."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def game_seed(seed: int, k: int) -> int:
    """The seed of game k of a batch: a stable hash of (seed, k), the same
    on every machine and Python (never ``hash()``, which is salted)."""
    digest = hashlib.sha256(f"hexforge-balance:{seed}:{k}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    if len(xs) == 1:
        return (xs[0],) * 3
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[1], q[2]


# ------------------------------------------------------------ the batch

@dataclass(frozen=True)
class GameTexts:
    """A game as the text of its files, by path inside the game library
    (``smolensk/game.hxr``, ``gekitou/system.hxr``): enough to compile it
    again anywhere."""

    entry: str
    files: tuple[tuple[str, str], ...]

    @property
    def digest(self) -> str:
        h = hashlib.sha256(self.entry.encode())
        for name, text in self.files:
            h.update(b"\0" + name.encode() + b"\0" + text.encode())
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class BatchSpec:
    """What a batch plays (everything but how many games and where)."""

    game: GameTexts
    scenario: str
    agents: tuple[str, ...]  # one bot per side, in the game's side order
    sides: tuple[str, ...]
    variants: tuple[str, ...] = ()
    params: tuple[tuple[str, int], ...] = ()
    sweep_key: str = ""
    sweep_values: tuple[int, ...] = ()
    seed: int = 0

    def identity(self) -> dict:
        """What must match for a folder's finished games to be reused."""
        return {"format": FORMAT, "game": self.game.entry.split("/")[0], "rules": self.game.digest,
                "engine": engine_digest(),
                "scenario": self.scenario, "variants": list(self.variants), "params": dict(self.params),
                "agents": dict(zip(self.sides, self.agents)), "sweep": self.sweep_key, "seed": self.seed}

    def keys(self, games: int) -> list[tuple[str, int]]:
        """(sweep value, game number) of every game of a batch of ``games``
        per sweep value; the sweep value is '' without a sweep."""
        values = [str(v) for v in self.sweep_values] or [""]
        return [(v, k) for v in values for k in range(games)]

    def csv_columns(self) -> list[str]:
        cols = ["sweep", "game", "seed", "winner", "why", "turns", "decisions"]
        cols += [f"vp_{s}" for s in self.sides] + [f"vp_by_turn_{s}" for s in self.sides]
        return cols + ["awards"]


def engine_digest() -> str:
    """A digest of the engine and bots' source (runtime/): games played by
    another engine are not mixed into a batch."""
    import runtime

    h = hashlib.sha256()
    root = Path(runtime.__file__).parent
    for p in sorted(root.rglob("*.py")):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def read_game_texts(path: str | Path, variants: Iterable[str] = ()) -> tuple[GameTexts, object]:
    """Compile the game at ``path`` and read back the files it came from;
    returns the texts and the game compiled from those very texts (so the
    driver and every worker play the same rules even if a file is saved
    meanwhile).  Raises DslError or BalanceError."""
    from .compiler import compile_game
    from .loader import find_game_file

    path = Path(path).resolve()
    game = compile_game(path, variants)
    library = (path if path.is_dir() else path.parent).parent
    files = []
    for rel in game.sources:
        try:
            files.append((rel, (library / rel).read_text(encoding="utf-8-sig")))
        except (OSError, UnicodeDecodeError) as e:
            raise BalanceError(f"cannot read {rel}: {getattr(e, 'strerror', None) or e}") from e
    entry_file = find_game_file(path)
    entry = str(PurePosixPath(entry_file.parent.name) / entry_file.name)
    texts = GameTexts(entry, tuple(files))
    return texts, compile_texts(texts, tuple(variants))


def compile_texts(texts: GameTexts, variants: tuple[str, ...] = ()):
    """Compile a game from its texts, in a private temporary folder."""
    from .compiler import compile_game

    with tempfile.TemporaryDirectory(prefix="hexforge-balance-") as tmp:
        root = Path(tmp)
        for rel, text in texts.files:
            p = PurePosixPath(rel)
            if p.is_absolute() or ".." in p.parts or "\\" in rel or not p.parts:
                raise BalanceError(f"a game file path leaves the game library: {rel}")
            target = root.joinpath(*p.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return compile_game(root.joinpath(*PurePosixPath(texts.entry).parts), variants)


# One compiled game and runner per worker process, per batch.
_RUNNERS: dict[tuple, object] = {}


def _runner_for(spec: BatchSpec, sweep: str):
    from runtime.runner import Runner

    key = (spec.game.digest, spec.variants, spec.scenario, spec.params, spec.sweep_key, sweep)
    runner = _RUNNERS.get(key)
    if runner is None:
        game_key = (spec.game.digest, spec.variants)
        game = _RUNNERS.get(game_key) or compile_texts(spec.game, spec.variants)
        _RUNNERS[game_key] = game
        params = dict(spec.params)
        if spec.sweep_key:
            params[spec.sweep_key] = int(sweep)
        runner = Runner(game, spec.scenario, params=params)
        if len(_RUNNERS) > 32:
            _RUNNERS.clear()
        _RUNNERS[key] = runner
    return runner


def shares_games(spec: BatchSpec) -> bool:
    """Whether the batch plays each game once for all its sweep values: the
    swept number decides only who wins (``decides_only_winner``: read by
    the scenario's ``win ... at end`` rules and nothing else) and no bot of
    the batch reads who would win (``blind_to_winner``).  Then game k is
    the same game at every value (the same seed, the same rules until it
    ends, the same choices), played by the bots once and followed again,
    decision by decision, under each other value's rules for its result."""
    from runtime.bots import blind_to_winner
    from runtime.victory import decides_only_winner

    if not spec.sweep_key or len(spec.sweep_values) < 2:
        return False
    runner = _runner_for(spec, str(spec.sweep_values[0]))
    return decides_only_winner(runner.game, runner.victory, spec.sweep_key) and \
        blind_to_winner(spec.agents, runner.game)


def shared_note(spec: BatchSpec) -> str:
    """What a batch that ``shares_games`` says of it (its summary's second line)."""
    return (f"{spec.sweep_key} decides only who wins and no bot weighs who would: the bots played each game once, "
            f"judged at every {spec.sweep_key}")


class _Script:
    """Plays a game's recorded decisions again (``play_game``'s ``script``),
    checking that each is asked of the side that took it."""

    def __init__(self, taken: list[tuple[str, object]]):
        self.taken, self.next = taken, 0

    def choose(self, runner, state):
        if self.next >= len(self.taken):
            raise BalanceError("a game followed under another sweep value went on past its end")
        side, action = self.taken[self.next]
        if runner.to_move(state) != side:
            raise BalanceError(f"a game followed under another sweep value went another way at decision "
                               f"{self.next + 1}: {runner.to_move(state)} to move, not {side}")
        self.next += 1
        return action


class _Abandoned(Exception):
    """A game left unfinished because the batch was stopped (``play_game``'s ``stop``)."""


def play_game(spec: BatchSpec, sweep: str, k: int, record: list | None = None, script: list | None = None,
              stop: threading.Event | None = None) -> dict:
    """Play game k of the batch (at one sweep value); its CSV row.  The
    bots get the seeds ``hexforge play --seed`` gives them.  ``record``: a
    list the decisions taken are added to, as (side, action); ``script``:
    such a list, whose decisions are taken instead of the bots' (a game of
    a batch that ``shares_games``); ``stop`` set: the game is abandoned
    after the decision under way (_Abandoned)."""
    from runtime.bots import make_bot, play

    runner = _runner_for(spec, sweep)
    seed = game_seed(spec.seed, k)
    if script is None:
        agents = {side: make_bot(name, seed * 1000 + i + 1)
                  for i, (side, name) in enumerate(zip(spec.sides, spec.agents))}
    else:
        agents = {"*": _Script(script)}
    state = runner.new_game(seed)
    by_turn: list[tuple[int, dict]] = []
    seen = [state.turn]

    def on_action(st, side, action):
        if stop is not None and stop.is_set():
            raise _Abandoned
        if record is not None:
            record.append((side, action))
        if st.turn != seen[0]:  # the standing as the turn ends: the VP each side would have if the game ended
            by_turn.append((seen[0], runner.standing(st)[0]))  # (most awards are counted at the end only)
            seen[0] = st.turn

    state, n = play(runner, state, agents, on_action=on_action)
    if not by_turn or by_turn[-1][0] != state.turn:
        by_turn.append((state.turn, dict(state.vp)))
    r = state.result
    row = {"sweep": sweep, "game": k, "seed": seed, "winner": r["winner"], "why": r["why"],
           "turns": r["turns"], "decisions": n}
    for s in spec.sides:
        row[f"vp_{s}"] = r["vp"].get(s, 0)
        row[f"vp_by_turn_{s}"] = " ".join(f"{t}:{vp.get(s, 0)}" for t, vp in by_turn)
    row["awards"] = json.dumps(game_awards(state.log), ensure_ascii=False, sort_keys=True)
    return row


def game_awards(log: list[dict]) -> dict[str, dict[str, int]]:
    """Side -> what it was given VP for (the award's title, or the effect's
    reason) -> the VP, from a game's log: every VP a side gets is logged
    with what for (runtime/victory.py, runtime/effects.py)."""
    out: dict[str, dict[str, int]] = {}
    for e in log:
        if "vp" in e and "amount" in e:
            mine = out.setdefault(str(e["vp"]), {})
            why = str(e.get("for", ""))
            mine[why] = mine.get(why, 0) + int(e["amount"])
    return out


def parse_awards(text: str) -> dict[str, dict[str, int]]:
    """The awards column of a games.csv row (an untrusted file): a JSON
    object side -> title -> VP; ValueError for anything else."""
    data = json.loads(text)
    if not isinstance(data, dict) or not all(
            isinstance(side, str) and isinstance(got, dict) and
            all(isinstance(k, str) and type(v) is int for k, v in got.items()) for side, got in data.items()):
        raise ValueError("not a table of awards")
    return data


def play_games(spec: BatchSpec, keys: list[tuple[str, int]], stop: threading.Event | None = None) -> list[dict]:
    """A worker's task: play these games; errors become BalanceError with
    the game that failed (a rules error would fail every game alike).
    ``stop`` (a batch played in this process): once set, the game under way
    is abandoned and the games finished are returned."""
    from runtime.actions import IllegalActionError
    from runtime.expr import ExprError
    from runtime.runner import SequenceError

    rows: list[dict] = []
    # one game at several sweep values (``grouped``, where the batch ``shares_games``): played once,
    # then followed under each other value's rules
    taken: list | None = [] if len({k for _, k in keys}) == 1 and len(keys) > 1 and shares_games(spec) else None
    for sweep, k in keys:
        try:
            if taken is None:
                rows.append(play_game(spec, sweep, k, stop=stop))
            elif rows:
                rows.append(play_game(spec, sweep, k, script=taken, stop=stop))
            else:
                rows.append(play_game(spec, sweep, k, record=taken, stop=stop))
        except _Abandoned:
            return rows[:0] if taken is not None else rows  # (a shared game's rows come whole or not at all)
        except (ExprError, SequenceError, ValueError, NotImplementedError, IllegalActionError) as e:
            at = f"{spec.sweep_key}={sweep}, " if spec.sweep_key else ""
            raise BalanceError(f"game {k} ({at}seed {game_seed(spec.seed, k)}) stopped: {e}") from e
    return rows


def grouped(todo: list[tuple[str, int]], shared: bool) -> list[list[tuple[str, int]]]:
    """The workers' tasks for the games ``todo``: one game each, or where
    the batch ``shares_games`` (``shared``), one game number at all its
    sweep values not yet played (the bots play it once)."""
    if not shared:
        return [[key] for key in todo]
    by_game: dict[int, list[tuple[str, int]]] = {}
    for sweep, k in todo:
        by_game.setdefault(k, []).append((sweep, k))
    return [by_game[k] for k in sorted(by_game)]


# ------------------------------------------------------------ the output folder

def check_out_dir(out: Path) -> None:
    """Make sure the batch can write its files before any game is played."""
    if out.exists() and not out.is_dir():
        raise BalanceError(f"cannot write the results into {out}: it is a file, not a folder (--out names a folder)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as e:
        raise BalanceError(f"cannot write {out}: {e.strerror or e}") from e


class ResultsFile:
    """games.csv: one row per finished game, appended and flushed as each
    game finishes (a batch killed midway keeps every finished game; a line
    cut short by the kill is dropped when the batch resumes)."""

    def __init__(self, out: Path, spec: BatchSpec):
        self.path = out / GAMES_CSV
        self.columns = spec.csv_columns()
        self.rows: dict[tuple[str, int], dict] = {}
        self._check_batch(out, spec)
        if self.path.exists():
            self._read()
        self.file = open(self.path, "a", encoding="utf-8", newline="")
        self.writer = csv.DictWriter(self.file, fieldnames=self.columns, lineterminator="\n")
        if self.file.tell() == 0:
            self.writer.writeheader()
            self.file.flush()

    def _check_batch(self, out: Path, spec: BatchSpec) -> None:
        meta = out / BATCH_JSON
        for f in (meta, self.path):  # (games.csv is appended to: a link would write wherever it points)
            if f.is_symlink():
                raise BalanceError(f"{f} is a symbolic link: a results folder holds its own files; use another --out")
        ident = spec.identity()
        if meta.exists():
            try:
                old = json.loads(meta.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise BalanceError(f"{meta} is not a batch description ({e}): use another --out") from e
            if not isinstance(old, dict):
                raise BalanceError(f"{meta} is not a batch description (not a JSON object): use another --out")
            diff = [k for k in ident if old.get(k) != ident[k]]
            if diff and not self._finished_games():  # (say, of a batch that stopped before its first game)
                try:
                    self.path.unlink(missing_ok=True)
                    self._write_batch(meta, ident)
                except OSError as e:
                    raise BalanceError(f"cannot write {out}: {e.strerror or e}") from e
                diff = []
            if diff:
                what = ", ".join("the game's files changed since" if k == "rules" else
                                 "the engine or bots changed since" if k == "engine" else
                                 f"{k} {_shown(old.get(k))} there, {_shown(ident[k])} now" for k in diff)
                raise BalanceError(f"{out} holds games of another batch ({what}): use another --out")
        elif self.path.exists():
            raise BalanceError(f"{self.path} exists but {meta} does not: use another --out")
        else:
            self._write_batch(meta, ident)

    @staticmethod
    def _write_batch(meta: Path, ident: dict) -> None:
        tmp = meta.with_suffix(".tmp")
        tmp.write_text(json.dumps(ident, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, meta)

    def _finished_games(self) -> bool:
        """Whether games.csv holds a finished game: a whole line after its header."""
        try:
            return self.path.read_bytes().count(b"\n") > 1
        except FileNotFoundError:
            return False
        except OSError as e:
            raise BalanceError(f"cannot read {self.path}: {e.strerror or e}") from e

    def _read(self) -> None:
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        whole = len(data)
        data = data[:end]  # (a last line cut short is no finished game: cut off once the rest is read)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            raise BalanceError(f"{self.path}:{line}: not text (UTF-8): use another --out") from None
        reader = csv.DictReader(io.StringIO(text))
        first = 1  # the line the row being read starts on (a quoted field may run over several)
        try:
            if data and reader.fieldnames != self.columns:
                raise BalanceError(f"{self.path} has other columns than this batch writes: use another --out")
            while True:
                first = reader.line_num + 1
                row = next(reader, None)
                if row is None:
                    break
                try:
                    if None in row or None in row.values():  # more fields than columns, or fewer
                        raise ValueError
                    key = (row["sweep"], int(row["game"]))
                    self.rows[key] = _typed(row)
                except (KeyError, ValueError, TypeError, OverflowError):
                    raise BalanceError(f"{self.path}:{first}: not a game row: use another --out") from None
        except csv.Error as e:  # (a field past the csv module's limit; a quote never closed reads as a short row)
            raise BalanceError(f"{self.path}:{first}: not a game row ({e}): use another --out") from None
        if end < whole:
            with open(self.path, "r+b") as f:
                f.truncate(end)

    def add(self, row: dict) -> None:
        self.writer.writerow(row)
        self.file.flush()
        os.fsync(self.file.fileno())
        self.rows[(row["sweep"], int(row["game"]))] = _typed({k: str(v) for k, v in row.items()})

    def close(self) -> None:
        self.file.close()

    def rewrite_in_order(self, keys: list[tuple[str, int]]) -> None:
        """Once the batch is complete: the rows in (sweep value, game) order,
        so that the file is the same bytes whatever --jobs or cluster played
        it (rows are appended in the order games finish).  Written beside
        and renamed over the old file, so a kill loses nothing."""
        self.file.close()
        tmp = self.path.with_suffix(".tmp")
        # the folder's games beyond this batch's (an earlier run with more --games or other sweep values)
        # are kept, after it
        asked = set(keys)
        kept = sorted(k for k in self.rows if k not in asked)
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=self.columns, lineterminator="\n")
            writer.writeheader()
            for key in keys + kept:
                writer.writerow(self.rows[key])
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


def _shown(value) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "none"
    return str(value) if value not in (None, "") else "none"


def _typed(row: dict) -> dict:
    """A row of games.csv with its numbers read; ValueError where one is not
    an integer (a folder written by hand or by another tool)."""
    out = dict(row)
    for k in ("game", "seed", "turns", "decisions"):
        out[k] = int(row[k])
    for k in row:
        if k.startswith("vp_by_turn_"):
            for item in row[k].split():  # turn:vp ..., read again by vp_by_turn
                t, _, vp = item.partition(":")
                int(t), int(vp)
        elif k.startswith("vp_"):
            out[k] = int(row[k])
            float(out[k])  # (OverflowError past a float's range: the plots read VP as floats)
    parse_awards(row["awards"])  # (kept as its text, the way it is written back)
    return out


# ------------------------------------------------------------ running

@dataclass
class BatchResult:
    rows: list[dict]  # the batch's games, in (sweep value, game) order
    played: int  # games played by this run (the others were in the folder)
    # the bots played each game once for every sweep value (``shares_games``): ``played`` counts a game
    # once per value, as the rows do
    shared: bool = False
    summary: dict = field(default_factory=dict)
    beyond: int = 0  # games in the folder that this batch did not ask for (kept in games.csv, not counted)


def run_batch(spec: BatchSpec, games: int, out: Path, jobs: int = 1, cluster: str = "",
              progress: Callable[[int, int], None] | None = None,
              stop: threading.Event | None = None) -> BatchResult:
    """Play the games of the batch not yet in ``out``; ``progress(done,
    total)`` after each game.  ``stop`` set: finish the games under way and
    return (what is done stays done).  Raises BalanceError."""
    if games * max(1, len(spec.sweep_values)) > MAX_GAMES:  # (the dialog's count times its sweep's values)
        raise BalanceError(f"{games:,} games at each of {len(spec.sweep_values):,} sweep values is more than "
                           f"{MAX_GAMES:,} games a batch: play more as several batches, each with its own seed "
                           "and folder")
    check_out_dir(out)
    results = ResultsFile(out, spec)
    try:
        shared = shares_games(spec)
        keys = spec.keys(games)
        todo = [key for key in keys if key not in results.rows]
        done = len(keys) - len(todo)
        if progress:
            progress(done, len(keys))

        def finished(rows: list[dict]) -> None:
            nonlocal done
            for row in rows:
                results.add(row)
                done += 1
                if progress:
                    progress(done, len(keys))

        if todo:
            tasks = grouped(todo, shared)
            if cluster:
                _run_dask(spec, tasks, cluster, finished, stop)
            elif jobs > 1:
                _run_processes(spec, tasks, jobs, finished, stop)
            else:
                for task in tasks:
                    if stop is not None and stop.is_set():
                        break
                    finished(play_games(spec, task, stop))
        rows = [results.rows[k] for k in keys if k in results.rows]
        if len(rows) == len(keys) and todo:
            results.rewrite_in_order(keys)
        return BatchResult(rows, len(rows) - (len(keys) - len(todo)), shared=shared,
                           beyond=len(results.rows) - len(rows))
    finally:
        results.close()


_WORKER_SPEC: list[BatchSpec] = []


def _init_worker(spec: BatchSpec) -> None:
    """A worker process gets the batch once (not with every game), ignores
    Ctrl-C (the driver decides when to stop) and ends with its driver: a
    driver killed outright (SIGKILL, a lost session) leaves no worker
    playing on for nobody (``_watch_driver``)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_SPEC[:] = [spec]
    threading.Thread(target=_watch_driver, args=(os.getppid(),), daemon=True, name="hexforge-driver-watch").start()


def _watch_driver(driver: int, every: float = 0.5) -> None:
    """In a worker: end the process once its driver is gone (it is then
    another process's child), whatever game it is playing."""
    while True:
        time.sleep(every)
        if os.getppid() != driver:
            os._exit(1)


def _worker_games(keys: list[tuple[str, int]]) -> list[dict]:
    return play_games(_WORKER_SPEC[0], keys)


def _run_processes(spec, tasks, jobs, finished, stop) -> None:
    """The tasks on ``jobs`` local processes.  ``stop`` set: the games under
    way finish and are kept.  Interrupted (Ctrl-C, or the CLI's SIGTERM):
    the workers end at once, their games under way lost (replayed on
    resume), instead of the driver waiting out games whose results it
    would throw away."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker, initargs=(spec,))
    pending = set()
    try:
        queue = list(reversed(tasks))
        while queue or pending:
            # keep a few games per worker in flight, so a stop or a crash wastes little
            while queue and len(pending) < 4 * jobs and not (stop is not None and stop.is_set()):
                pending.add(pool.submit(_worker_games, queue.pop()))
            if not pending:
                break
            ready, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for f in ready:
                finished(f.result())
    except BrokenProcessPool as e:
        _end_workers(pool)
        raise BalanceError("a worker process died; the games finished so far are saved: "
                           "run the same command again to resume") from e
    except BaseException:
        _end_workers(pool)
        raise
    pool.shutdown(wait=True)


def _end_workers(pool) -> None:
    """Stop a process pool's workers now, games under way and all (Python
    3.14's ``terminate_workers``; before it, each process terminated)."""
    end = getattr(pool, "terminate_workers", None)
    if end is not None:
        end()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


CONNECT_SECONDS = 20  # how long a scheduler's address may take to answer as one


def _connect(client_class, address: str):
    """A Dask client of the scheduler at ``address``.  Dask's own timeout
    covers the connection, not the handshake after it: a server that is no
    Dask scheduler (a web server, say) left it waiting for ever.  So the
    client is made on a thread of its own, given ``CONNECT_SECONDS``; one
    that does not answer is left behind (a daemon thread: it does not keep
    hexforge from exiting)."""
    box: dict = {}

    def connect() -> None:
        try:
            box["client"] = client_class(address, timeout="10s")
        except Exception as e:  # (what a server that is not Dask's sends may fail anywhere in the handshake)
            box["error"] = e

    thread = threading.Thread(target=connect, name="hexforge-dask-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_SECONDS)
    if "client" in box:
        return box["client"]
    if "error" in box:
        e = box["error"]
        raise OSError(str(e) or type(e).__name__) from e
    raise TimeoutError(f"no answer as a Dask scheduler in {CONNECT_SECONDS} s (is it one?)")


def _run_dask(spec, tasks, cluster, finished, stop) -> None:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as e:  # pragma: no cover - installed with hexforge
        raise BalanceError(f"--cluster needs Dask distributed: {e}") from e
    own = None
    try:
        if cluster == "local":
            own = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, processes=True)
            client = Client(own)
        else:
            client = _connect(Client, cluster)
    except (OSError, TimeoutError, ValueError) as e:
        if own is not None:
            own.close()
        raise BalanceError(f"cannot reach the Dask scheduler at {cluster}: {e}") from e
    try:
        shared = client.scatter(spec, broadcast=True)
        futures = [client.submit(play_games, shared, task, pure=False) for task in tasks]
        for f in as_completed(futures):
            if stop is not None and stop.is_set():
                client.cancel(futures)
                break
            try:
                rows = f.result()
            except BalanceError:
                client.cancel(futures)
                raise
            except Exception as e:  # a worker lost for good, a cancelled task
                client.cancel(futures)
                raise BalanceError(f"the Dask cluster failed a game ({type(e).__name__}: {e}); the games "
                                   "finished so far are saved: run the same command again to resume") from e
            finished(rows)
    finally:
        client.close()
        if own is not None:
            own.close()


# ------------------------------------------------------------ statistics of a batch

def summarize(spec: BatchSpec, rows: list[dict]) -> dict:
    """Per sweep value and side: win rate with its Wilson 95% interval, VP
    mean and quartiles, and the VP by award (``awards``); per sweep value:
    draws and game length."""
    declared = declared_awards(spec)
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["sweep"], []).append(r)
    out_rows = []
    for value, rs in groups.items():
        n = len(rs)
        entry: dict = {"games": n}
        if spec.sweep_key:
            entry[spec.sweep_key] = int(value)
        draws = sum(1 for r in rs if r["winner"] not in spec.sides)
        entry["draws"] = draws
        entry["draw_rate"] = draws / n
        turns = [r["turns"] for r in rs]
        decisions = [r["decisions"] for r in rs]
        entry["turns"] = {"mean": statistics.fmean(turns), "min": min(turns), "max": max(turns)}
        entry["decisions"] = {"mean": statistics.fmean(decisions), "min": min(decisions), "max": max(decisions)}
        sides = {}
        for s in spec.sides:
            wins = sum(1 for r in rs if r["winner"] == s)
            lo, hi = wilson(wins, n)
            vps = [r[f"vp_{s}"] for r in rs]
            q1, med, q3 = quartiles(vps)
            sides[s] = {"wins": wins, "win_rate": wins / n, "wilson95": [lo, hi],
                        "vp": {"mean": statistics.fmean(vps), "q1": q1, "median": med, "q3": q3,
                               "min": min(vps), "max": max(vps)},
                        "awards": awards(declared.get(s, []), [parse_awards(r["awards"]).get(s, {}) for r in rs])}
        entry["sides"] = sides
        entry["why"] = dict(sorted(_count(r["why"] for r in rs).items(), key=lambda kv: -kv[1]))
        out_rows.append(entry)
    return {"game": spec.game.entry.split("/")[0], "scenario": spec.scenario, "variants": list(spec.variants),
            "params": dict(spec.params), "agents": dict(zip(spec.sides, spec.agents)), "seed": spec.seed,
            "sweep": spec.sweep_key or None, "rows": out_rows}


def declared_awards(spec: BatchSpec) -> dict[str, list[str]]:
    """Side -> the titles of the awards its scenario's victory rules declare, in their order."""
    runner = _runner_for(spec, str(spec.sweep_values[0]) if spec.sweep_values else "")
    out: dict[str, list[str]] = {}
    for r in runner.victory:
        if r.kind == "award" and r.title not in out.setdefault(r.side, []):
            out[r.side].append(r.title)
    return out


def awards(declared: list[str], games: list[dict[str, int]]) -> list[dict]:
    """Each award a side's rules declare (in their order), then anything
    else it was given VP for (by title): its mean VP per game and the share
    of games in which it paid (gave or took VP)."""
    titles = list(declared) + sorted({t for g in games for t in g} - set(declared))
    n = len(games) or 1
    return [{"award": t, "mean": sum(g.get(t, 0) for g in games) / n,
             "paid": sum(1 for g in games if g.get(t, 0)) / n} for t in titles]


def _count(items: Iterable[str]) -> dict[str, int]:
    c: dict[str, int] = {}
    for x in items:
        c[x] = c.get(x, 0) + 1
    return c


def vp_by_turn(spec: BatchSpec, rows: list[dict]) -> dict[str, dict[str, dict[int, float]]]:
    """Mean VP standing at the end of each turn (what each side would score
    if the game ended then; its final VP on its last turn), per sweep value
    and side, over the games that played that turn."""
    out: dict[str, dict[str, dict[int, float]]] = {}
    for s in spec.sides:
        sums: dict[tuple[str, int], list[int]] = {}
        for r in rows:
            for item in str(r[f"vp_by_turn_{s}"]).split():
                t, _, vp = item.partition(":")
                sums.setdefault((r["sweep"], int(t)), []).append(int(vp))
        for (value, t), vps in sorted(sums.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            out.setdefault(value, {}).setdefault(s, {})[t] = statistics.fmean(vps)
    return out


def write_summary(out: Path, summary: dict) -> Path:
    path = out / SUMMARY_JSON
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def batch_title(summary: dict) -> str:
    """What a batch played, in a line (the plots' title, the table's head):
    the game, the scenario, the variants and numbers, the bots by side."""
    rules = [summary["scenario"], *(f"+ {v}" for v in summary.get("variants", ()))]
    numbers = ", ".join(f"{k}={v}" for k, v in sorted(summary.get("params", {}).items()))
    return f"{summary['game']} {' '.join(rules)}" + (f" ({numbers})" if numbers else "") + ": " + \
        " vs ".join(f"{a} ({s})" for s, a in summary["agents"].items())


def format_summary(summary: dict, awards: bool = True) -> list[str]:
    """The summary as text lines, one block per sweep value; with
    ``awards``, under each side the VP of each award that paid in some game
    (mean per game, share of games) and the awards that paid in none."""
    lines = []
    key = summary["sweep"]
    for row in summary["rows"]:
        n = row["games"]
        head = f"{key}={row[key]}: " if key else ""
        t = row["turns"]
        lines.append(f"{head}{n} game{'s' * (n != 1)}, {row['draws']} draw{'s' * (row['draws'] != 1)}, "
                     f"{t['mean']:.1f} turns ({t['min']}-{t['max']}), "
                     f"{row['decisions']['mean']:.0f} decisions on average")
        for s, d in row["sides"].items():
            lo, hi = d["wilson95"]
            vp = d["vp"]
            lines.append(f"  {s:<10} wins {d['wins']:>5}  {d['win_rate'] * 100:5.1f}% "
                         f"(95% {lo * 100:.1f}-{hi * 100:.1f}%)  VP mean {vp['mean']:.2f}, "
                         f"quartiles {vp['q1']:g}/{vp['median']:g}/{vp['q3']:g}")
            if awards:
                lines += _award_lines(d.get("awards", []))
    return lines


def _award_lines(items: list[dict]) -> list[str]:
    paid = [a for a in items if a["paid"]]
    lines = [f"{'':13}{a['mean']:+7.2f} VP a game, paid in {a['paid'] * 100:3.0f}%  {a['award']}" for a in paid]
    never = [a["award"] for a in items if not a["paid"]]
    if never:
        lines += textwrap.wrap("paid in no game: " + "; ".join(never), width=110, initial_indent=" " * 13,
                               subsequent_indent=" " * 15, break_long_words=False, break_on_hyphens=False)
    return lines

