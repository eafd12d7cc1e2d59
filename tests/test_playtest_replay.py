"""Saved games, replays and taking back (runtime/replay.py), without Qt:
a save/load round trip gives back every state, replays are deterministic,
a die roll or a chit draw locks the past unless the sandbox is on, and the
playtest's words (editor/playtext.py) cover every log entry of real games."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dsl.compiler import compile_game
from editor import playtext as T
from runtime.actions import Done, IllegalActionError
from runtime.bots import GreedyBot, RandomBot
from runtime.replay import (LockedError, ReplayError, SavedGame, Timeline, chance_in, digest, open_saved)
from runtime.runner import Runner

from helpers import GAMES, ROOT, without_deploy

BRIDGEHEAD = ROOT / "docs" / "examples" / "bridgehead"


@pytest.fixture(scope="module")
def smolensk():
    return compile_game(GAMES / "smolensk")


@pytest.fixture(scope="module")
def runner(smolensk):
    # the timelines below are scripted from the first decision on: the Axis divisions stand
    # where the runner puts them without 4.0(2)2's set-up by the player (tests/helpers.py)
    return Runner(without_deploy(smolensk), "short")


def first_activation(runner, seed=3) -> Timeline:
    """Decline the surprise attack and the Guderian interrupt: AOK4's units move."""
    t = Timeline(runner, seed)
    t.apply("done")   # no surprise attack; the chits go in; AOK4 is drawn
    t.apply("done")   # Guderian is not played
    assert t.latest.step.get("decision") == "movement"
    return t


def bot_game(runner, seed: int, n: int, bot=RandomBot) -> Timeline:
    t = Timeline(runner, seed, every=4, recent=8)
    b = bot(seed)
    while t.end < n and t.latest.result is None:
        t.apply(b.choose(runner, t.latest), bot=True)
    return t


def test_save_and_load_give_back_every_state(runner, tmp_path):
    t = bot_game(runner, 7, 60)
    saved = t.saved("games/smolensk", "short", [], {"axis": "random", "soviet": "random"})
    p = saved.save(tmp_path / "g.hxgame")
    text = p.read_text()
    assert json.loads(text)["actions"] == t.actions            # plain JSON, one action a line
    assert text.count("\n") > len(t.actions)
    back = SavedGame.load(p)
    assert back == saved
    t2, problem = Timeline.replay(Runner(runner.game, "short"), back)
    assert problem == "" and t2.end == t.end
    for i in range(0, t.end + 1, 5):                           # the same states, position by position
        assert t2.state_at(i).log == t.state_at(i).log
        assert {u.id: (u.hex, u.step, u.box) for u in t2.state_at(i).units.values()} == \
               {u.id: (u.hex, u.step, u.box) for u in t.state_at(i).units.values()}
    assert digest(t2.latest) == saved.digest
    # the bots' decisions are remembered: they lock the past after loading as before saving
    assert saved.by_bots == list(range(t.end)) and [st.bot for st in t2.steps] == [st.bot for st in t.steps]
    assert t2.floor() == t.floor() == t.end and "bot" in t2.why_locked()


def test_old_saves_without_bot_marks_still_load(runner, tmp_path):
    t = bot_game(runner, 3, 10)
    d = t.saved("games/smolensk", "short").to_dict()
    del d["by-bots"]
    back = SavedGame.from_dict(d)
    assert back.by_bots == [] and back.actions == t.actions
    with pytest.raises(ReplayError, match="by-bots"):
        SavedGame.from_dict(dict(d, **{"by-bots": ["x"]}))


def test_kept_states_and_recomputed_states_agree(runner):
    t = bot_game(runner, 11, 40)
    assert len(t._kept) < t.end                                 # not every state is kept...
    direct = [t.state_at(0)]
    for a in t.actions:
        direct.append(runner.apply(direct[-1], a))
    for i in range(t.end, -1, -1):                             # ...but each one comes back, stepping backwards
        assert t.seek(i).log == direct[i].log
    assert t.position == 0 and t.end == 40                      # viewing changes nothing
    t.seek(t.end + 5)
    assert t.at_end


def test_replays_are_deterministic_and_seeds_differ(runner):
    a = bot_game(runner, 21, 50, GreedyBot)
    b, _ = Timeline.replay(Runner(runner.game, "short"), a.saved("smolensk", "short"))
    assert digest(b.latest) == digest(a.latest)
    c = Timeline(runner, 22)
    assert digest(c.latest) != digest(Timeline(runner, 21).latest)   # another seed draws other chits


def test_a_roll_locks_the_past_and_the_sandbox_lifts_the_lock(runner):
    t = first_activation(runner)
    floor = t.floor()
    assert floor == 1 and "drew a chit" in t.why_locked()      # ending the surprise attack drew AOK4
    t.undo()                                                    # declining Guderian may be taken back
    t.apply("play Guderian")
    assert t.latest.step.get("chit") == "Guderian"
    t.undo()
    t.apply("done")
    t.apply("move 3Pz 0626")
    t.apply("move 4Pz 0626")
    assert t.can_undo()
    t.undo()                                                    # moves in the activation are taken back
    assert t.latest.units["4Pz"].hex == runner.board.parse("0127") and t.end == 3
    t.apply("move 134ID 0526")
    t.apply("move 267ID 0526")
    t.apply("done")
    t.apply("attack 0625 with 134ID,267ID,3Pz")                 # declared: nothing rolled (10.2(1))
    assert not chance_in(t.latest.log[-1:]) and t.can_undo()
    t.apply("done")                                             # fought
    assert chance_in(t.latest.log) and t.floor() == t.end       # the die locks it
    with pytest.raises(LockedError, match="rolled a die"):
        t.undo()
    with pytest.raises(LockedError):
        t.truncate(3)
    t.sandbox = True
    assert t.floor() == 0
    t.truncate(3)                                               # anything may be taken back now
    assert t.end == 3 and t.latest.units["134ID"].hex == runner.board.parse("0225")
    t.sandbox = False
    assert t.floor() == 1


def test_the_other_players_move_and_bots_lock_the_past(runner):
    t = first_activation(runner)
    for a in ("move 3Pz 0626", "move 4Pz 0626", "move 134ID 0526", "move 267ID 0526", "done",
              "attack 0625 with 134ID,267ID,3Pz,4Pz", "done"):
        t.apply(a)
    assert runner.to_move(t.latest) == "soviet"                 # RR: the Soviet player picks the retreat
    t.apply("retreat 75RD 0725,0824")
    assert t.floor() == t.end and "passed to axis" in t.why_locked()
    t.apply("advance 134ID 0625")
    t.undo()                                                    # Axis's own advance may be taken back
    assert t.latest.units["134ID"].hex == runner.board.parse("0526")
    u = first_activation(runner)
    u.apply("move 3Pz 0626", bot=True)
    assert u.floor() == 3 and "bot" in u.why_locked()


def test_a_single_retreat_is_taken_automatically(runner):
    t = first_activation(runner)
    for a in ("move 3Pz 0626", "move 134ID 0526", "done", "attack 0625 with 134ID,3Pz", "done"):
        t.apply(a)
    s = t.latest
    assert s.log[-2]["result"] == "R" and s.log[-1]["action"] == "retreat 75RD 0725"
    assert s.units["75RD"].hex == runner.board.parse("0725") and s.pending[0]["kind"] == "advance"


def test_playing_from_the_past_needs_taking_back_first(runner):
    t = first_activation(runner)
    t.apply("move 3Pz 0626")
    t.seek(2)
    with pytest.raises(LockedError, match="go to the end"):
        t.apply("move 4Pz 0626")
    t.truncate(2)                                               # a new branch from the position shown
    t.apply("move 4Pz 0626")
    assert t.actions == ["done", "done", "move 4Pz 0626"]
    with pytest.raises(IllegalActionError):
        t.apply("move 4Pz 0627")                                # the rules still apply: it has moved
    assert t.end == 3


def test_saved_games_that_do_not_load_or_do_not_replay(runner, tmp_path):
    bad = tmp_path / "bad.hxgame"
    bad.write_text("{not json")
    with pytest.raises(ReplayError, match="not a saved game"):
        SavedGame.load(bad)
    bad.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ReplayError, match="not a hexforge saved game"):
        SavedGame.load(bad)
    bad.write_text(json.dumps({"format": "hexforge-game", "game": "g", "scenario": "short", "actions": []}))
    with pytest.raises(ReplayError, match="no \"seed\""):
        SavedGame.load(bad)
    with pytest.raises(ReplayError, match="cannot read"):
        SavedGame.load(tmp_path / "missing.hxgame")
    t = first_activation(runner)
    t.apply("move 3Pz 0626")
    saved = t.saved("smolensk", "short")
    saved.actions.append("move 3Pz 0727")                       # 3Pz has moved already
    t2, problem = Timeline.replay(runner, saved)
    assert "action 4 of 4, 'move 3Pz 0727', does not replay" in problem and t2.end == 3
    saved = t.saved("smolensk", "short")
    saved.digest = "0" * 20
    _, problem = Timeline.replay(runner, saved)
    assert "rules have changed" in problem


def test_open_saved_compiles_with_the_saved_variants(tmp_path):
    game = compile_game(BRIDGEHEAD, ["high-water"])
    r = Runner(game, "crossing")
    t = bot_game(r, 4, 1000, GreedyBot)
    assert t.latest.result is not None                          # a whole game
    p = t.saved(str(BRIDGEHEAD), "crossing", ["high-water"]).save(tmp_path / "b.hxgame")
    seen = []

    def compile_(folder, variants):
        seen.append((folder, variants))
        return compile_game(folder, variants)
    runner, t2, problem = open_saved(SavedGame.load(p), compile_)
    assert problem == "" and seen == [(str(BRIDGEHEAD), ["high-water"])]
    assert t2.latest.result == t.latest.result and "high-water" in runner.game.active_variants


def test_the_runtime_stays_free_of_qt_and_lark():
    code = ("import sys, runtime.replay, runtime.runner; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'lark', 'dsl', 'editor')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("folder,scenario", [(GAMES / "smolensk", "short"), (BRIDGEHEAD, None)])
def test_every_log_entry_of_a_bot_game_reads_as_a_sentence(folder, scenario):
    game = compile_game(folder)
    r = Runner(game, scenario)
    t = bot_game(r, 5, 5000)
    s = t.latest
    assert s.result is not None
    for e in s.log:
        text = T.describe(e, r)
        assert text and "{" not in text
        kind = T.entry_kind(e)
        if kind == "info":   # info lines are the named kinds, never the key/value fallback
            assert any(k in e for k in ("chits", "activate", "interrupt", "reinforcements", "arrival",
                                        "withdrawal", "supply", "moves-on")), e
    assert T.progress(r, s) == 1.0
    assert T.prompt(r, s).startswith("The game is over")
    assert T.decision_kind(s) == "over"


def test_prompts_and_labels_of_the_first_turn(runner):
    t = Timeline(runner, 3)
    s = t.latest
    assert T.decision_kind(s) == "combat" and T.done_label(s) == "End combat"
    assert "attacks" in T.prompt(runner, s)
    t.apply(Done())
    s = t.latest
    assert T.decision_kind(s) == "interrupt" and "Guderian" in T.prompt(runner, s)
    assert [T.action_label(a, runner, s) for a in runner.legal_actions(s)] == ["Play Guderian", "Pass"]
    assert T.drawn_this_turn(s) == ["AOK4"]
    t.apply(Done())
    s = t.latest
    assert T.active_hq(runner, s) == ("AOK4", "AOK4", 4)
    hexes = T.command_hexes(runner, s)
    assert s.units["AOK4"].hex in hexes and all(h.distance(s.units["AOK4"].hex) <= 4 for h in hexes)
    assert T.factors_text(runner, s, "3Pz") == "7-4-10"
    assert T.box_title(runner, "turn:3") == "arriving on turn 3"
