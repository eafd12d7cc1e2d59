"""hexforge balance: statistics, seeding, resuming, and the same games on
one process, two processes or a Dask cluster."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dsl import balance
from dsl.balance import BalanceError, BatchSpec, game_seed, read_game_texts, run_batch, summarize, wilson
from dsl.cli import main

ROOT = Path(__file__).resolve().parent.parent
BARBAROSSA = ROOT / "games" / "barbarossa-postcard"
SMOLENSK = ROOT / "games" / "smolensk"


def rows_of(out: Path) -> list[dict]:
    with open(out / "games.csv", encoding="utf-8", newline="") as f:
        return sorted(csv.DictReader(f), key=lambda r: (r["sweep"], int(r["game"])))


def balance_json(capsys, *argv) -> dict:
    assert main(["balance", *map(str, argv), "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def barbarossa_spec(**kw) -> BatchSpec:
    texts, game = read_game_texts(BARBAROSSA)
    return BatchSpec(game=texts, scenario="standard", agents=("greedy", "greedy"), sides=tuple(game.sides), **kw)


@pytest.mark.parametrize("wins,n,lo,hi", [  # Newcombe (1998), Statistics in Medicine 17, table I, method 3
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)])
def test_wilson_interval_matches_published_values(wins, n, lo, hi):
    a, b = wilson(wins, n)
    assert (round(a, 4), round(b, 4)) == (lo, hi)


def test_wilson_interval_narrows_with_games():
    # FINDINGS: 50% of 40 games is about +-14 points, of 400 about +-5
    a, b = wilson(20, 40)
    assert 0.14 < (b - a) / 2 < 0.15
    a, b = wilson(200, 400)
    assert 0.045 < (b - a) / 2 < 0.05
    assert wilson(0, 0) == (0.0, 1.0)


def test_game_seed_is_a_stable_function_of_seed_and_game():
    assert game_seed(0, 0) == game_seed(0, 0) == 3410499354  # the same on every machine and run
    assert len({game_seed(s, k) for s in range(5) for k in range(200)}) == 1000


def test_a_batch_game_is_the_game_hexforge_play_plays_with_its_seed(tmp_path, capsys):
    summary = balance_json(capsys, BARBAROSSA, "--games", 2, "--agents", "greedy,random", "--out", tmp_path)
    assert summary["rows"][0]["games"] == 2 and summary["played"] == 2
    row = rows_of(tmp_path)[1]
    assert main(["play", str(BARBAROSSA), "--agents", "greedy,random", "--seed", row["seed"], "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert (played["winner"], played["turns"], played["actions"]) == (row["winner"], int(row["turns"]),
                                                                        int(row["decisions"]))
    assert played["vp"] == {"axis": int(row["vp_axis"]), "soviet": int(row["vp_soviet"])}
    assert row["vp_by_turn_axis"].split()[-1] == f"{row['turns']}:{row['vp_axis']}"


def test_the_vp_by_turn_are_the_standing_as_each_turn_ends(tmp_path, capsys):
    """Barbarossa gives its city VP at the end only: a game's VP by turn are
    what each side would score if the game ended after that turn (the
    standing), read again here by replaying the game, not the VP given so
    far (0 until the last turn)."""
    from dsl.compiler import compile_game
    from runtime.bots import make_bot, play
    from runtime.runner import Runner
    balance_json(capsys, BARBAROSSA, "--games", 1, "--agents", "greedy,greedy", "--out", tmp_path)
    row = rows_of(tmp_path)[0]
    runner, seed = Runner(compile_game(BARBAROSSA)), int(row["seed"])
    agents = {side: make_bot("greedy", seed * 1000 + i + 1) for i, side in enumerate(runner.game.sides)}
    standing: dict[int, dict] = {}
    play(runner, runner.new_game(seed), agents,
         on_action=lambda st, side, a: standing.setdefault(st.turn - 1, runner.standing(st)[0]))
    recorded = dict(item.split(":") for item in row["vp_by_turn_axis"].split())
    earlier = [t for t in standing if 1 <= t < int(row["turns"])]
    assert earlier and all(int(recorded[str(t)]) == standing[t].get("axis", 0) for t in earlier)
    assert any(standing[t].get("axis", 0) > 0 for t in earlier)       # cities held before the end count


def test_a_search_budget_is_read_as_play_reads_it(tmp_path, capsys):
    """--agents search:N plays the search bot with N iterations a decision, the game play gives."""
    summary = balance_json(capsys, BARBAROSSA, "--games", 1, "--agents", "search:2,greedy", "--out", tmp_path)
    assert summary["agents"] == {"axis": "search:2", "soviet": "greedy"} and summary["played"] == 1
    row = rows_of(tmp_path)[0]
    assert main(["play", str(BARBAROSSA), "--agents", "search:2,greedy", "--seed", row["seed"], "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert (played["winner"], played["actions"]) == (row["winner"], int(row["decisions"]))
    for agents, says in (("search:x,greedy", "search:x: the budget is a number of iterations"),
                         ("greedy:5,greedy", "the greedy bot takes no budget"),
                         ("greedy,greedy:hold=9", "greedy:hold=9: hold takes a number from 0 to 1")):
        assert main(["balance", str(BARBAROSSA), "--agents", agents, "--out", str(tmp_path / "no")]) == 1
        assert says in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_a_greedy_bots_hold_reach_is_read_as_play_reads_it(tmp_path, capsys):
    """--agents greedy,greedy:hold=1: the Soviets hold every city the Axis could
    reach (the greedy bot before it held only where the enemy was near): the
    batch records the name, plays the games play gives, and other games than
    the default greedy bot's."""
    held = balance_json(capsys, BARBAROSSA, "--games", 3, "--agents", "greedy,greedy:hold=1", "--out",
                        tmp_path / "held")
    assert held["agents"] == {"axis": "greedy", "soviet": "greedy:hold=1"} and held["played"] == 3
    rows = rows_of(tmp_path / "held")
    for row in rows:
        assert main(["play", str(BARBAROSSA), "--agents", "greedy,greedy:hold=1", "--seed", row["seed"], "--json"]) == 0
        played = json.loads(capsys.readouterr().out)
        assert (played["winner"], played["actions"]) == (row["winner"], int(row["decisions"]))
    balance_json(capsys, BARBAROSSA, "--games", 3, "--agents", "greedy,greedy", "--out", tmp_path / "near")
    assert [r["decisions"] for r in rows_of(tmp_path / "near")] != [r["decisions"] for r in rows]


def test_one_process_two_processes_and_a_dask_cluster_play_the_same_games(tmp_path, capsys):
    args = [BARBAROSSA, "--games", 4, "--agents", "greedy,random", "--seed", 7]
    balance_json(capsys, *args, "--out", tmp_path / "one")
    balance_json(capsys, *args, "--jobs", 2, "--out", tmp_path / "two")
    balance_json(capsys, *args, "--cluster", "local", "--out", tmp_path / "dask")
    one = rows_of(tmp_path / "one")
    assert len(one) == 4 and len({r["seed"] for r in one}) == 4
    assert rows_of(tmp_path / "two") == one
    assert rows_of(tmp_path / "dask") == one
    # a finished batch's file is in game order: the same bytes however it ran
    data = (tmp_path / "one" / "games.csv").read_bytes()
    assert (tmp_path / "two" / "games.csv").read_bytes() == data
    assert (tmp_path / "dask" / "games.csv").read_bytes() == data
    for name in ("summary.json", "winrate.png", "vp.png", "vp_by_turn.png"):
        assert (tmp_path / "dask" / name).stat().st_size > 0


def test_an_interrupted_batch_resumes_without_replaying_a_finished_game(tmp_path, monkeypatch):
    spec = barbarossa_spec(seed=3)
    played: list[int] = []
    real = balance.play_game

    def counting(spec, sweep, k, stop=None):
        played.append(k)
        return real(spec, sweep, k, stop=stop)

    monkeypatch.setattr(balance, "play_game", counting)
    stop = threading.Event()
    first = run_batch(spec, 6, tmp_path, progress=lambda done, total: done >= 3 and stop.set(), stop=stop)
    assert first.played == 3 and played == [0, 1, 2]
    with open(tmp_path / "games.csv", "a", encoding="utf-8") as f:
        f.write(",3,12345,axis,cut short by the kil")  # the kill came in the middle of a line
    second = run_batch(spec, 6, tmp_path)
    assert second.played == 3 and played == [0, 1, 2, 3, 4, 5]
    assert [r["game"] for r in second.rows] == list(range(6))
    assert [int(r["game"]) for r in rows_of(tmp_path)] == list(range(6))
    again = run_batch(spec, 6, tmp_path)  # nothing left to play
    assert again.played == 0 and len(played) == 6
    assert summarize(spec, again.rows)["rows"][0]["games"] == 6


def test_a_killed_batch_keeps_its_finished_games(tmp_path):
    out = tmp_path / "bal"
    cmd = [sys.executable, "-m", "dsl.cli", "balance", str(BARBAROSSA), "--games", "8", "--jobs", "2",
           "--out", str(out), "--json"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "games.csv").exists() and len(rows_of(out)) >= 2:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver and its workers, mid-batch
    proc.wait()
    kept = len(rows_of(out))
    assert 2 <= kept < 8
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["resumed"], summary["played"]) == (kept, 8 - kept)
    assert [int(r["game"]) for r in rows_of(out)] == list(range(8))


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, ended and not yet reaped by whoever adopted it, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the processes from /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_driver_leaves_no_worker_playing(tmp_path, sig):
    """``kill`` (SIGTERM) stops the batch as Ctrl-C does: the workers end at
    once, in the middle of their games, and the driver says how to resume;
    a driver killed outright (SIGKILL) takes its workers with it."""
    out = tmp_path / "bal"
    cmd = [sys.executable, "-m", "dsl.cli", "balance", str(BARBAROSSA), "--games", "8", "--jobs", "2",
           "--agents", "search:5000,search:5000", "--out", str(out)]  # (games of minutes each)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 3:  # (two workers and the resource tracker)
            time.sleep(0.1)
            workers = _children(proc.pid)
        assert len(workers) >= 3, "the batch started no workers"
        time.sleep(3)  # (each has the batch's game and is playing)
        proc.send_signal(sig)  # the driver alone
        proc.wait(timeout=10)
        gone = time.monotonic() + 5
        while time.monotonic() < gone and any(map(_alive, workers)):
            time.sleep(0.05)
        assert not any(map(_alive, workers))
    finally:  # (whatever failed: no process of the batch outlives the test)
        proc.kill()
        for pid in [*workers, *_children(proc.pid)]:
            if _alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    if sig == signal.SIGTERM:
        assert proc.returncode == 128 + signal.SIGTERM
        said = proc.stderr.read()
        assert "stopped by signal 15" in said and "run the same command again to resume" in said
    assert not (out / "games.csv").exists() or rows_of(out) == []


def test_sweep_gives_one_row_per_value(tmp_path, capsys):
    lib = tmp_path / "lib" / "barbarossa-target"
    lib.mkdir(parents=True)
    for f in ("game.hxr", "map.hxm"):
        text = (BARBAROSSA / f).read_text(encoding="utf-8")
        text = text.replace('vp(axis) >= 6', 'vp(axis) >= param("target")').replace(
            'vp(axis) < 6', 'vp(axis) < param("target")')
        (lib / f).write_text(text, encoding="utf-8")
    summary = balance_json(capsys, lib, "--games", 3, "--sweep", "target=0,99", "--out", tmp_path / "out")
    assert [r["target"] for r in summary["rows"]] == [0, 99]
    at0, at99 = summary["rows"]
    assert at0["sides"]["axis"]["wins"] + at0["sides"]["soviet"]["wins"] == 3
    assert at99["sides"]["axis"]["win_rate"] == 0 and at99["sides"]["soviet"]["wins"] == 3
    assert at0["sides"]["axis"]["wins"] >= 1  # 0 VP is enough, unless a Soviet unit reaches Königsberg
    rows = rows_of(tmp_path / "out")
    assert [(r["sweep"], r["game"]) for r in rows] == [(v, str(k)) for v in ("0", "99") for k in range(3)]
    # the same seeds at every value: only the rule changed
    assert [r["seed"] for r in rows[:3]] == [r["seed"] for r in rows[3:]]
    assert main(["balance", str(lib), "--games", "1", "--out", str(tmp_path / "x")]) == 1
    assert "--param target=N" in capsys.readouterr().err


def barbarossa_with(tmp_path, name: str, replace: dict[str, str]) -> Path:
    """A copy of Barbarossa in a library of its own, its rules' texts replaced."""
    lib = tmp_path / "lib" / name
    lib.mkdir(parents=True)
    for f in ("game.hxr", "map.hxm"):
        text = (BARBAROSSA / f).read_text(encoding="utf-8")
        for old, new in replace.items():
            text = text.replace(old, new)
        (lib / f).write_text(text, encoding="utf-8")
    return lib


TARGET = {'vp(axis) >= 6': 'vp(axis) >= param("target")', 'vp(axis) < 6': 'vp(axis) < param("target")'}


def test_a_number_only_the_winner_reads_is_played_once_and_judged_at_every_value(tmp_path, capsys, monkeypatch):
    lib = barbarossa_with(tmp_path, "barbarossa-target", TARGET)
    bots: list[int] = []  # the games the bots played (not followed under another value's rules)
    real = balance.play_game

    def counting(spec, sweep, k, record=None, script=None, stop=None):
        if script is None:
            bots.append(k)
        return real(spec, sweep, k, record=record, script=script, stop=stop)

    monkeypatch.setattr(balance, "play_game", counting)
    args = [lib, "--games", 4, "--sweep", "target=5,6,7", "--agents", "greedy,greedy", "--seed", 5]
    once = balance_json(capsys, *args, "--out", tmp_path / "once")
    assert once["shared"] and bots == [0, 1, 2, 3]
    bots.clear()
    balance_json(capsys, *args, "--jobs", 2, "--out", tmp_path / "two")  # (the workers play; this process does not)
    monkeypatch.setattr(balance, "shares_games", lambda spec: False)  # every value played by the bots
    each = balance_json(capsys, *args, "--out", tmp_path / "each")
    assert not each["shared"] and bots == [0, 1, 2, 3] * 3
    # the very games, however they were played: only who won differs from value to value
    data = (tmp_path / "each" / "games.csv").read_bytes()
    assert (tmp_path / "once" / "games.csv").read_bytes() == data
    assert (tmp_path / "two" / "games.csv").read_bytes() == data
    rows = rows_of(tmp_path / "once")
    assert [r["sweep"] for r in rows] == ["5"] * 4 + ["6"] * 4 + ["7"] * 4
    by_value = {v: [r for r in rows if r["sweep"] == v] for v in ("5", "6", "7")}
    assert any(by_value["5"][k]["winner"] != by_value["7"][k]["winner"] for k in range(4))  # (the values matter)
    for k in range(4):
        vp = int(by_value["5"][k]["vp_axis"])
        assert len({by_value[v][k]["vp_axis"] for v in by_value}) == 1
        for v in by_value:
            assert by_value[v][k]["winner"] == ("axis" if vp >= int(v) else "soviet")
            assert f'param("target") = {v}' in by_value[v][k]["why"]


def test_games_are_played_at_every_value_where_the_number_or_a_bot_may_change_them(tmp_path):
    from runtime.bots import blind_to_winner
    from runtime.runner import Runner
    from runtime.victory import decides_only_winner

    def decides(lib, **params):
        texts, game = read_game_texts(lib)
        return decides_only_winner(game, Runner(game, "standard", params=params).victory, "target")

    assert decides(barbarossa_with(tmp_path, "only-win", TARGET), target=6)
    # read by an award (the VP change), by an end (the game's length), by a rule of play, or by a win that
    # ends the game as soon as it holds: the games differ from value to value
    award = {**TARGET, '= 0 - eliminated(axis, army-group)': '= param("target") - 6 - eliminated(axis, army-group)'}
    assert not decides(barbarossa_with(tmp_path, "award", award), target=6)
    sudden = {'when rolled(siberian-early) == "soviet-loses"': 'when vp(axis) >= param("target")'}
    assert not decides(barbarossa_with(tmp_path, "sudden", sudden), target=6)
    texts, smolensk = read_game_texts(SMOLENSK, ["vp-bidding"])
    assert decides_only_winner(smolensk, Runner(smolensk, "short", params={"bid": 9}).victory, "bid")
    # the search bot weighs who would win; the greedy bot does, where a move off the map may win at once
    assert blind_to_winner(["greedy", "random", "greedy:hold=1"], smolensk)
    assert not blind_to_winner(["greedy", "search:10"], smolensk)
    texts, avd = read_game_texts(ROOT / "games" / "a-victory-denied")
    assert not blind_to_winner(["greedy", "greedy"], avd) and blind_to_winner(["random", "random"], avd)
    spec = BatchSpec(game=texts, scenario="campaign", agents=("greedy", "greedy"), sides=tuple(avd.sides))
    assert not balance.shares_games(spec)  # (no sweep)


def test_user_errors_are_messages(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["balance", str(BARBAROSSA), "--games", "1", "--out", str(blocker / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"hexforge: error: cannot write {blocker / 'out'}: ") and "Traceback" not in err
    assert main(["balance", str(BARBAROSSA), "--games", "1", "--out", str(blocker)]) == 1  # (the file itself)
    assert f"cannot write the results into {blocker}: it is a file, not a folder" in capsys.readouterr().err
    assert blocker.read_text() == "not a folder"
    assert main(["balance", str(BARBAROSSA), "--agents", "greedy,nobody", "--out", str(tmp_path / "a")]) == 1
    assert "no bot named 'nobody'" in capsys.readouterr().err
    assert main(["balance", str(BARBAROSSA), "--sweep", "bid=1,x", "--out", str(tmp_path / "a")]) == 1
    assert "--sweep takes NAME=N1,N2,..." in capsys.readouterr().err
    assert main(["balance", str(BARBAROSSA), "--games", "100000000", "--out", str(tmp_path / "a")]) == 1
    err = capsys.readouterr().err  # (its list of games did not fit in memory: a MemoryError's traceback)
    assert "error: --games must be from 1 to 1,000,000, not 100,000,000" in err and "Traceback" not in err
    assert "hint: play more as several batches, each with its own --seed and --out" in err
    values = ",".join(str(v) for v in range(20))
    assert main(["balance", str(BARBAROSSA), "--games", "100000", "--sweep", f"bid={values}",
                 "--out", str(tmp_path / "a")]) == 1
    assert "error: --games 100,000 at 20 sweep values is 2,000,000 games: at most 1,000,000 a batch" in \
        capsys.readouterr().err
    with pytest.raises(BalanceError, match="more than 1,000,000 games a batch"):
        run_batch(barbarossa_spec(sweep_key="bid", sweep_values=tuple(range(20))), 100_000, tmp_path / "a")
    assert main(["balance", str(BARBAROSSA), "--sweep", "", "--out", str(tmp_path / "a")]) == 1  # not no sweep
    assert "--sweep takes NAME=N1,N2,..., not ''" in capsys.readouterr().err
    # a number no rule reads: a sweep over it would give rows that differ by luck alone
    assert main(["balance", str(BARBAROSSA), "--sweep", "bid=1,2", "--out", str(tmp_path / "a")]) == 1
    assert "error: --sweep bid: no rule in play reads the number 'bid' (they read none)" in capsys.readouterr().err
    assert main(["balance", str(SMOLENSK), "--scenario", "short", "--variant", "vp-bidding", "--param", "bud=5",
                 "--out", str(tmp_path / "a")]) == 1
    err = capsys.readouterr().err
    assert "error: --param bud: no rule in play reads the number 'bud' (they read 'bid')" in err
    assert "hint: did you mean 'bid'?" in err
    assert main(["balance", str(SMOLENSK), "--scenario", "short", "--param", "bid=5",
                 "--out", str(tmp_path / "a")]) == 1
    assert "hint: variant vp-bidding reads it: add --variant vp-bidding" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()  # (refused before any folder is made)
    # a folder holding another batch is not mixed with this one
    assert main(["balance", str(BARBAROSSA), "--games", "1", "--out", str(tmp_path / "b"), "--json"]) == 0
    capsys.readouterr()
    assert main(["balance", str(BARBAROSSA), "--games", "1", "--agents", "random,random",
                 "--out", str(tmp_path / "b")]) == 1
    assert "holds games of another batch (agents axis=greedy,soviet=greedy there, " \
           "axis=random,soviet=random now)" in capsys.readouterr().err
    meta = tmp_path / "b" / "batch.json"  # games of an older engine or bots are not mixed in either
    meta.write_text(meta.read_text().replace(balance.engine_digest(), "0123456789abcdef"))
    assert main(["balance", str(BARBAROSSA), "--games", "1", "--out", str(tmp_path / "b")]) == 1
    assert "(the engine or bots changed since)" in capsys.readouterr().err


def test_a_results_file_that_is_not_a_batchs_is_a_message(tmp_path, capsys):
    """games.csv is read back to resume: bytes that are not UTF-8, a field
    past the csv module's limit or a quote never closed are messages, not
    tracebacks, that name the line the row starts on."""
    assert main(["balance", str(BARBAROSSA), "--games", "2", "--out", str(tmp_path), "--json"]) == 0
    capsys.readouterr()
    good = (tmp_path / "games.csv").read_bytes()
    for extra, says in ((b"\xff\xfe,1,x\n", "games.csv:4: not text (UTF-8)"),
                        (b',1,"' + b"x" * 200_000 + b'"\n', "games.csv:4: not a game row (field larger than"),
                        # a quote never closed runs to the end of the file: the row's first line is named
                        (b',1,"x\n,2,y\n,3,z\n', "games.csv:4: not a game row: use another --out")):
        (tmp_path / "games.csv").write_bytes(good + extra)
        assert main(["balance", str(BARBAROSSA), "--games", "3", "--out", str(tmp_path)]) == 1
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err


def test_the_table_and_plots_name_the_variants_and_numbers(tmp_path, capsys):
    """Batches of one game under other variants or numbers are told apart
    by their heads and plot titles, not only by their folders."""
    from dsl.balance import batch_title
    summary = {"game": "smolensk", "scenario": "short", "variants": ["vp-bidding", "reserve-okh"],
               "params": {"bid": 5}, "agents": {"axis": "search:10", "soviet": "greedy"}}
    assert batch_title(summary) == \
        "smolensk short + vp-bidding + reserve-okh (bid=5): search:10 (axis) vs greedy (soviet)"
    assert main(["balance", str(BARBAROSSA), "--variant", "oil", "--games", "1", "--out", str(tmp_path)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("barbarossa-postcard standard + oil: greedy (axis) vs greedy (soviet), seed 0; 1 played")


def test_a_folder_with_no_finished_game_is_taken_over(tmp_path, capsys):
    """A batch that stopped before its first game (a cluster not reached,
    Ctrl-C at once) leaves its description and an empty games.csv: another
    batch may use the folder, as there is nothing to mix with."""
    stop = threading.Event()
    stop.set()
    assert run_batch(barbarossa_spec(), 2, tmp_path, stop=stop).played == 0
    assert (tmp_path / "batch.json").exists() and rows_of(tmp_path) == []
    summary = balance_json(capsys, BARBAROSSA, "--games", 2, "--agents", "random,random", "--out", tmp_path)
    assert summary["played"] == 2 and len(rows_of(tmp_path)) == 2
    assert json.loads((tmp_path / "batch.json").read_text())["agents"] == {"axis": "random", "soviet": "random"}


def test_compile_texts_refuses_paths_outside_the_library(tmp_path):
    spec = barbarossa_spec()
    bad = balance.GameTexts("x/game.hxr", (("../../evil.hxr", "game x {}"),))
    with pytest.raises(BalanceError, match="leaves the game library"):
        balance.compile_texts(bad)
    assert spec.game.entry == "barbarossa-postcard/game.hxr"


def test_the_vp_are_told_by_award(tmp_path, capsys):
    """Each game's row says what each side got its VP for; the summary gives
    every award of the rules (in their order) its mean VP a game and the
    share of games it paid in, and names those that paid in none."""
    summary = balance_json(capsys, BARBAROSSA, "--games", 4, "--agents", "greedy,random", "--out", tmp_path)
    rows = rows_of(tmp_path)
    for row in rows:
        got = json.loads(row["awards"])
        assert sum(got.get("axis", {}).values()) == int(row["vp_axis"])
        assert sum(got.get("soviet", {}).values()) == int(row["vp_soviet"])
    axis = summary["rows"][0]["sides"]["axis"]
    titles = [a["award"] for a in axis["awards"]]
    assert titles[:3] == ["Riga", "Kaunas", "Minsk"]  # the rules' order, paid or not
    games = [json.loads(r["awards"]).get("axis", {}) for r in rows]
    for a in axis["awards"]:
        assert a["mean"] == pytest.approx(sum(g.get(a["award"], 0) for g in games) / 4)
        assert a["paid"] == sum(1 for g in games if g.get(a["award"])) / 4
    assert sum(a["mean"] for a in axis["awards"]) == pytest.approx(axis["vp"]["mean"])
    assert (tmp_path / "awards.png").stat().st_size > 0
    text = "\n".join(balance.format_summary(summary))
    never = [a["award"] for a in axis["awards"] if not a["paid"]]
    assert never and " ".join(text.split()).count("paid in no game: " + "; ".join(never)) == 1
    for a in axis["awards"]:
        if a["paid"]:
            assert f"{a['mean']:+7.2f} VP a game, paid in {a['paid'] * 100:3.0f}%  {a['award']}" in text
    assert "paid in" not in "\n".join(balance.format_summary(summary, awards=False))


def test_a_games_file_with_a_bad_awards_cell_is_refused_with_its_line(tmp_path, capsys):
    balance_json(capsys, BARBAROSSA, "--games", 2, "--out", tmp_path)
    path = tmp_path / "games.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].rsplit(",", 1)[0] + ',"{""axis"": {""Riga"": ""many""}}"'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["balance", str(BARBAROSSA), "--games", "3", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:3: not a game row" in err and "Traceback" not in err


def test_a_row_with_a_field_too_many_or_a_bad_vp_by_turn_is_refused_before_anything_is_written(tmp_path, capsys):
    """A row with more fields than columns, or a VP-by-turn cell that is not
    turn:vp pairs, is named by its line; the file is left as it was (the
    summary and plots are not written from it)."""
    balance_json(capsys, BARBAROSSA, "--games", 2, "--out", tmp_path)
    path = tmp_path / "games.csv"
    good = path.read_text(encoding="utf-8").splitlines()
    cols = good[0].split(",")
    turn_col = cols.index("vp_by_turn_axis")
    for bad in (good[1] + ",extra", ",".join(x if i != turn_col else "1:4 2" for i, x in enumerate(good[1].split(","))),
                ",".join(x if i != turn_col else "x:y" for i, x in enumerate(good[1].split(",")))):
        text = "\n".join([good[0], bad, good[2]]) + "\n"
        path.write_text(text, encoding="utf-8")
        (tmp_path / "summary.json").unlink(missing_ok=True)
        assert main(["balance", str(BARBAROSSA), "--games", "3", "--out", str(tmp_path)]) == 1
        err = capsys.readouterr().err
        assert f"{path}:2: not a game row" in err and "Traceback" not in err, err
        assert path.read_text(encoding="utf-8") == text and not (tmp_path / "summary.json").exists()


@pytest.mark.parametrize("text", ["[]", "null", "3"])
def test_a_batch_description_that_is_not_an_object_is_a_message(tmp_path, capsys, text):
    (tmp_path / "batch.json").write_text(text, encoding="utf-8")
    assert main(["balance", str(BARBAROSSA), "--games", "1", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "batch.json is not a batch description" in err and "Traceback" not in err


def test_a_results_file_that_links_elsewhere_is_refused_and_left_alone(tmp_path, capsys):
    """games.csv is appended to, and a line cut short is cut off: a link in
    the results folder would change a file outside it.  It is refused before
    anything is read or written."""
    out = tmp_path / "out"
    balance_json(capsys, BARBAROSSA, "--games", 1, "--out", out)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"important line 1\nimportant line 2")  # (no newline at the end: a line 'cut short')
    (out / "games.csv").unlink()
    (out / "games.csv").symlink_to(victim)
    assert main(["balance", str(BARBAROSSA), "--games", "2", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "games.csv is a symbolic link" in err and "Traceback" not in err
    assert victim.read_bytes() == b"important line 1\nimportant line 2"


def test_a_batch_of_fewer_games_keeps_the_folders_other_games(tmp_path, capsys):
    """Resuming with a smaller --games plays and counts that many, and
    keeps the folder's other finished games in games.csv (they were lost
    when the file was rewritten in order)."""
    balance_json(capsys, BARBAROSSA, "--games", 4, "--out", tmp_path)
    path = tmp_path / "games.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0]] + lines[2:]) + "\n", encoding="utf-8")  # game 0 not finished
    summary = balance_json(capsys, BARBAROSSA, "--games", 2, "--out", tmp_path)
    assert (summary["played"], summary["resumed"], summary["beyond"]) == (1, 1, 2)
    assert summary["rows"][0]["games"] == 2
    assert path.read_text(encoding="utf-8").splitlines() == lines  # all four, in order
    assert main(["balance", str(BARBAROSSA), "--games", "2", "--out", str(tmp_path)]) == 0
    assert "also holds 2 games this batch did not ask for" in capsys.readouterr().out


def test_the_vp_plot_of_a_wide_spread_draws_a_hundred_bars(tmp_path, monkeypatch):
    """One bar per VP value, unless the VP spread over more values than
    MAX_BARS (VP counted in millions drew ten million bars, for hours)."""
    import matplotlib.axes
    from dsl import balance_plots
    spec = barbarossa_spec()
    rows = [{"sweep": "", "game": k, "winner": "axis", "vp_axis": vp, "vp_soviet": 0, "turns": 4, "decisions": 9,
             "vp_by_turn_axis": f"1:{vp}", "vp_by_turn_soviet": "1:0", "awards": "{}", "why": "", "seed": k}
            for k, vp in enumerate((0, 10**7, 10**38))]
    bins = []
    real_hist = matplotlib.axes.Axes.hist

    def hist(self, x, **kw):
        bins.append(kw["bins"])
        return real_hist(self, x, **kw)
    monkeypatch.setattr(matplotlib.axes.Axes, "hist", hist)
    files = balance_plots.write_plots(tmp_path, spec, summarize(spec, rows), rows)
    assert bins == [balance_plots.MAX_BARS // 2] and all(f.exists() for f in files)
    bins.clear()
    rows[1]["vp_axis"], rows[2]["vp_axis"] = 12, 30
    balance_plots.write_plots(tmp_path, spec, summarize(spec, rows), rows)
    assert bins == [[x - 0.5 for x in range(0, 32)]]


def test_an_address_that_is_no_dask_scheduler_is_a_message_not_a_hang(tmp_path, capsys, monkeypatch):
    """A server that takes the connection and never answers as Dask does (a
    web server, say) left the batch waiting for ever: it is a message once
    CONNECT_SECONDS pass."""
    import socket
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    accepted = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    monkeypatch.setattr(balance, "CONNECT_SECONDS", 2)
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    start = time.monotonic()
    try:
        assert main(["balance", str(BARBAROSSA), "--games", "1", "--cluster", address, "--out", str(tmp_path)]) == 1
    finally:
        server.close()
    err = capsys.readouterr().err
    assert f"cannot reach the Dask scheduler at {address}: no answer as a Dask scheduler" in err
    assert time.monotonic() - start < 30 and accepted


def test_a_stop_in_this_process_leaves_the_game_under_way(tmp_path, monkeypatch):
    """A batch played in this process (the editor's, --jobs 1) stops after
    the decision under way: the unfinished game is not written, and the
    next run plays it whole."""
    spec = barbarossa_spec()
    stop = threading.Event()
    decisions = []
    from runtime import bots

    real_play = bots.play

    def play(runner, state, agents, on_action=None, **kw):
        def counted(st, side, action):
            decisions.append(action)
            if len(decisions) == 30:  # (mid-way through the first game)
                stop.set()
            on_action(st, side, action)
        return real_play(runner, state, agents, on_action=counted, **kw)
    monkeypatch.setattr(bots, "play", play)
    first = run_batch(spec, 2, tmp_path, stop=stop)
    monkeypatch.undo()
    assert first.played == 0 and len(decisions) == 30 and rows_of(tmp_path) == []
    again = run_batch(spec, 2, tmp_path)
    assert again.played == 2 and [int(r["game"]) for r in rows_of(tmp_path)] == [0, 1]
