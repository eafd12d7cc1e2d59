"""Prokhorovka 7.0(2), 3.4(4): several units enter by one supply source in
the same turn.  ``stacking { judged end }``: the limit (one combat unit a
hex) is judged where a move, retreat or advance ends, not at the
reinforcements' placement nor on the way; a ``move-on`` reinforce phase's
units enter in the movement phase, the source hex being the first hex of
their move (its cost off their MP).  The movement cannot end while a hex is
over the limit and a unit there can move out; a unit that cannot goes back
where it came from."""
from __future__ import annotations

import shutil

import pytest

from dsl.compiler import compile_game
from runtime.actions import Done, IllegalActionError, Move, SendBack
from runtime.bots import GreedyBot, RandomBot
from runtime.replay import SavedGame, Timeline
from runtime.runner import Runner
from runtime.stacking import ENTERING, overstacked

from helpers import GAMES

SOURCE = "1405"  # an eastern Soviet source (XXXVG enters in the east, 7.0(1))


@pytest.fixture(scope="module")
def runner():
    return Runner(compile_game(GAMES / "prokhorovka"))


def _phase(r, s):
    return r.program[s.pc].phase.id if s.pc < len(r.program) else ""


def _play(r, s, done, bot=None, limit=3000, t=None):
    bot = bot or GreedyBot(1)
    for _ in range(limit):
        if done(s):
            return s
        a = bot.choose(r, s)
        s = r.apply(s, a) if t is None else t.apply(a, bot=True)
    raise AssertionError("never got there")


def _both_on_one_source(r, t=None):
    """Seed 1, turn 5: the track brings two XXXVG divisions (7.0(1)); both
    are placed on one eastern source, and the game goes on to the Soviet
    movement phase."""
    s = _play(r, r.new_game(1) if t is None else t.latest,
              lambda s: s.active == "soviet" and s.step.get("decision") == "place"
              and _phase(r, s) == "soviet-formations", t=t)
    assert s.turn == 5 and s.step["n"] == 2 and s.step["units"] == ["92G", "93G", "94G"]
    for uid in ("92G", "93G"):
        s = r.apply(s, f"place {uid} {SOURCE}") if t is None else t.apply(f"place {uid} {SOURCE}")
    return _play(r, s, lambda s: s.active == "soviet" and s.phase == "movement" and not s.pending, t=t)


def test_two_units_enter_by_one_source_and_end_their_moves_in_different_hexes(runner):
    r = runner
    s = _both_on_one_source(r)
    h = r.board.parse(SOURCE)
    assert s.occupants[h] == ("92G", "93G")
    # 7.0(2): they enter by normal movement from the source: its cost (clear, 1 MP) is spent
    assert {e["moves-on"]: (e["at"], e["mp"]) for e in s.log if e.get("turn") == 5 and "moves-on" in e
            and r.game.counters[e["moves-on"]].side == "soviet"} == {"92G": (SOURCE, "1"), "93G": (SOURCE, "1")}
    assert s.entering == {"92G": 60, "93G": 60}
    acts = r.legal_actions(s)
    assert Done() not in acts  # two units over the limit, and both can move out
    first = sorted({a.to for a in acts if isinstance(a, Move) and a.unit == "92G" and not a.mode})
    assert first == sorted({a.to for a in acts if isinstance(a, Move) and a.unit == "93G" and not a.mode})
    assert SOURCE not in first  # (moving is leaving)
    s = r.apply(s, f"move 92G {first[0]}")
    # 3.4(1): a unit may not end its move on an occupied hex (92G's, now)
    assert r.engine.explain(s, f"move 93G {first[0]}") == \
        f"93G cannot end its move in {first[0]}: it would hold 2 units; the stacking limit is 1"
    assert Done() in r.legal_actions(s)  # 93G alone on the source ends its entry there
    s = r.apply(s, "done")
    assert r.board.hex_id(s.units["92G"].hex) == first[0] and s.units["93G"].hex == h
    assert not any(k.startswith(ENTERING) for k in s.done)


def test_entering_by_strategic_movement_pays_the_road_not_the_terrain(runner):
    """7.0(2), 8.3: a reserve entering by strategic movement moves along the
    road from the source at double MP; the source is the first hex of its
    move, and what it costs is the road's cost in the doubled MP (1 of 8),
    not the terrain's before doubling (2 of 8).  By normal movement it costs
    the terrain (clear: 1 of 4)."""
    from runtime.movement import SCALE, mode_by_id, move_range, unit_mp
    r = runner
    s = _play(r, r.new_game(1), lambda s: s.active == "soviet" and s.step.get("decision") == "place"
              and _phase(r, s) == "soviet-formations")
    s = r.apply(r.apply(s, "place 92G 1402"), "place 93G 1405")  # 1402: a source on a road (to 1303)
    s = _play(r, s, lambda s: s.active == "soviet" and s.phase == "movement" and not s.pending)
    assert "reserve" in s.units["92G"].markers  # (designated: it may move strategically, 5.1(3)2)
    entry = next(e for e in s.log if e.get("moves-on") == "92G")
    assert entry == {"turn": 5, "moves-on": "92G", "at": "1402", "mp": "1", "strategic": "1"}
    from editor.playtext import describe
    assert describe(entry, r) == "92G moves onto the map at 1402 (1 MP; by strategic movement (8.3): 1 MP)"
    # 1405 has no road: 93G may not move strategically, and pays its terrain only
    assert next(e for e in s.log if e.get("moves-on") == "93G") == \
        {"turn": 5, "moves-on": "93G", "at": "1405", "mp": "1"}
    strategic = mode_by_id(r.game, "strategic")
    from runtime.hexes import hex_distance
    road = r.board.parse("1203")   # the road on from the source, clear of German ZOC (8.3(1)2) whatever the game did
    for u in [u.id for u in s.on_map("german") if hex_distance(u.hex, road) <= 2]:
        s.place(u, None, "removed")
    s.version += 1
    assert unit_mp(r.game, s, "92G") == 3 * SCALE  # 4 MP, 1 for the source
    assert unit_mp(r.game, s, "92G", strategic) == 7 * SCALE  # 2 x 4 MP, 1 for the source along the road
    far = move_range(r.game, r.board, s, "92G", "strategic")  # the search reads the same (the road
    assert far.mp == 7 * SCALE and far.destinations  # ends at 1103 here, 4 road hexes on)
    h = sorted(far.destinations)[0]
    s = r.apply(s, Move("92G", r.board.hex_id(h), "strategic"))
    assert s.units["92G"].hex == h and "92G" in s.moved


def test_three_units_by_one_source_each_end_apart(runner):
    """Three units on one source: two move out to two different hexes, the
    third stays; none ends on another's hex."""
    r = runner
    s = _both_on_one_source(r)
    h = r.board.parse(SOURCE)
    s.place("94G", h)  # a third unit on the source, as a placement there would put it
    s.done.add(f"{ENTERING}94G=pool:soviet-reserve")
    s.version += 1
    assert overstacked(r.game, s, "soviet") == {h: "3 units; the stacking limit is 1"}
    s = r.apply(s, "move 92G 1404")
    assert Done() not in r.legal_actions(s)  # still 2 units on the source
    assert "1404" not in {a.to for a in r.legal_actions(s) if isinstance(a, Move) and a.unit == "93G"}
    second = min(a.to for a in r.legal_actions(s) if isinstance(a, Move) and a.unit == "93G" and not a.mode)
    s = r.apply(s, f"move 93G {second}")
    s = r.apply(s, "done")
    ends = {uid: r.board.hex_id(s.units[uid].hex) for uid in ("92G", "93G", "94G")}
    assert ends == {"92G": "1404", "93G": second, "94G": SOURCE}


def test_the_movement_cannot_end_over_the_limit_and_says_why(runner):
    r = runner
    s = _both_on_one_source(r)
    message = ("the movement cannot end with 1405 over the stacking limit, judged where moves end (92G, 93G: "
               "2 units; the stacking limit is 1): move one of them out")
    with pytest.raises(IllegalActionError) as e:
        r.apply(s, "done")
    assert str(e.value) == message
    assert r.engine.explain(s, Done()) == message


def _stuck(r, t=None):
    """Both on the source, and neither may move any more (here: as if both
    had moved): the movement may end, and a unit must go back."""
    s = _both_on_one_source(r, t)
    s.moved |= {"92G", "93G"}
    s.version += 1
    return s


def test_the_owner_chooses_which_unit_that_cannot_move_out_goes_back(runner):
    """Nothing on the over-stacked source can move: the movement ends with
    the Soviet player choosing which of the two goes back to the pool it came
    from (with what it carries, to come again); the log says so."""
    r = runner
    s = _stuck(r)
    carried = s.attached.get("92G", ())
    assert Done() in r.legal_actions(s)
    s = r.apply(s, "done")
    assert s.pending == [{"kind": "send-back", "side": "soviet", "hex": SOURCE, "units": ["92G", "93G"],
                          "why": "2 units; the stacking limit is 1"}]
    assert r.to_move(s) == "soviet" and s.phase == "movement"
    assert list(r.legal_actions(s)) == [SendBack("92G"), SendBack("93G")]  # no 'done': one must go
    assert r.engine.explain(s, Done()) == (
        "1405 is over the stacking limit at the end of movement (2 units; the stacking limit is 1) and no unit "
        "there can move out: soviet sends back one of 92G, 93G to where it came from (e.g. 'send-back 93G')")
    from editor.playtext import action_label, describe, prompt
    assert prompt(r, s).startswith("1405 (outlined) is over the stacking limit at the end of movement (2 units; "
                                   "the stacking limit is 1) and no unit there can move out: Soviet chooses which "
                                   "of 92G, 93G (ringed) goes back")
    assert action_label(SendBack("92G"), r, s).startswith("Send 92G (") and \
        action_label(SendBack("92G"), r, s).endswith(") back to soviet-reserve")
    s = r.apply(s, "send-back 92G")  # (the first placed: the engine alone sent back the last)
    assert not s.pending or s.pending[0].get("window")   # (an air window may open the next phase, 16.0)
    assert s.phase != "movement"
    assert s.units["92G"].hex is None and s.units["92G"].box == "pool:soviet-reserve"
    assert s.attached.get("92G", ()) == carried
    assert r.board.hex_id(s.units["93G"].hex) == SOURCE
    assert not any(k.startswith(ENTERING) for k in s.done)
    entry = next(e for e in s.log if "cannot-enter" in e)
    assert entry == {"turn": 5, "cannot-enter": "92G", "at": SOURCE, "to": "pool:soviet-reserve",
                     "why": "no move out of 1405 (2 units; the stacking limit is 1)"}
    assert describe(entry, r) == ("92G cannot enter from 1405: no move out of 1405 (2 units; the stacking limit "
                                  "is 1); back to soviet-reserve")


def test_no_choice_when_every_candidate_must_go(runner):
    """Three units on the source and none can move: two must go and the
    owner chooses one of three; then one of the two left."""
    r = runner
    s = _stuck(r)
    s.place("94G", r.board.parse(SOURCE))
    s.done.add(f"{ENTERING}94G=pool:soviet-reserve")
    s.moved.add("94G")
    s = r.apply(s, "done")
    assert s.pending[0]["units"] == ["92G", "93G", "94G"]
    s = r.apply(s, "send-back 93G")
    assert s.pending[0]["units"] == ["92G", "94G"] and s.pending[0]["why"] == "2 units; the stacking limit is 1"
    s = r.apply(s, "send-back 94G")
    assert (not s.pending or s.pending[0].get("window")) and r.board.hex_id(s.units["92G"].hex) == SOURCE
    assert [e["cannot-enter"] for e in s.log if "cannot-enter" in e] == ["93G", "94G"]


def test_the_greedy_bot_keeps_the_strongest_on_the_map(runner):
    """The greedy bot sends back the unit worth least with what it carries
    (its factors and its counters'), of equals the one placed last, deciding
    from its own side's view; the enemy sees the same decision (the units in
    the hex are public)."""
    from runtime.observe import observe
    r = runner
    from runtime import attachments as A
    s = r.apply(_stuck(r), "done")
    for uid, aa in (("92G", "AA1"), ("93G", "AA2")):  # two alike stacks
        for c in A.under(s, uid):
            A.remove(r.game, s, c, "")
        A.attach(r.game, s, aa, uid)
    s.version += 1
    assert s.attached["92G"] == ("AA1",) and s.attached["93G"] == ("AA2",)
    bot = GreedyBot(1)
    assert bot.choose(r, s) == SendBack("93G")  # of equals, the last placed
    moved = s.copy()  # 93G carries both AA guns: 92G goes back
    moved.attached = dict(s.attached, **{"92G": (), "93G": ("AA1", "AA2")})
    moved.version += 1
    assert bot.choose(r, moved) == SendBack("92G")
    assert observe(r.game, s, "german").pending == s.pending
    assert RandomBot(3).choose(r, s) in (SendBack("92G"), SendBack("93G"))
    from runtime.bots import make_bot
    assert make_bot("search:2", 1).choose(r, s) in (SendBack("92G"), SendBack("93G"))  # through the legal actions


def test_the_greedy_and_random_bots_play_entries_to_the_end(runner):
    """Full games: a hex over the limit never outlasts its side's movement
    phase, and every unit ends within the limit wherever a movement ends."""
    r = runner
    for bot in (GreedyBot(2), RandomBot(2)):
        s = r.new_game(2)
        over_seen = 0
        for _ in range(4000):
            if s.result is not None:
                break
            a = bot.choose(r, s)
            # the movement's 'done', or the send-back it may ask for (3.4(4), 7.0(2))
            ending = s.phase == "movement" and (isinstance(a, SendBack) or not s.pending and isinstance(a, Done))
            over_seen += bool(s.phase == "movement" and overstacked(r.game, s, s.active))
            side = s.active
            s = r.apply(s, a)
            if ending and not (s.pending and s.pending[0].get("kind") == "send-back"):
                assert not overstacked(r.game, s, side), (s.turn, side)
        assert s.result is not None and over_seen


def test_a_saved_game_with_units_on_one_source_replays(runner, tmp_path):
    r = runner
    t = Timeline(r, 1)
    s = _both_on_one_source(r, t)
    s = t.apply("move 92G 1404")
    saved = SavedGame.load(t.saved("games/prokhorovka", "campaign", [], {}).save(tmp_path / "g.hxgame"))
    back, problem = Timeline.replay(r, saved)
    assert problem == "" and back.latest.occupants == s.occupants and back.latest.done == s.done
    assert back.latest.entering == s.entering
    s = back.apply("done")
    assert s.phase != "movement" and r.board.hex_id(s.units["93G"].hex) == SOURCE


def test_a_saved_game_with_a_unit_sent_back_replays(tmp_path):
    """The owner's choice is saved as an action ('send-back 92G') and replays
    to the same state.  (A copy of the game where 92G and 93G have 1 MP:
    entering by the source spends it, so neither can move out.)"""
    folder = tmp_path / "prokhorovka"
    shutil.copytree(GAMES / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text()
    for uid in ("92G", "93G"):
        line = next(x for x in text.splitlines() if x.strip().startswith(uid + " "))
        text = text.replace(line, line.replace("2-1-4  1-1-4", "2-1-1  1-1-1"))
    (folder / "game.hxr").write_text(text)
    r = Runner(compile_game(folder))
    t = Timeline(r, 1)
    s = _both_on_one_source(r, t)
    assert not [a for a in r.legal_actions(s) if isinstance(a, Move) and a.unit in ("92G", "93G")]
    s = t.apply("done")
    assert s.pending[0]["kind"] == "send-back"
    s = t.apply("send-back 92G")
    assert s.units["92G"].box == "pool:soviet-reserve" and r.board.hex_id(s.units["93G"].hex) == SOURCE
    saved = SavedGame.load(t.saved(str(folder), "campaign", [], {}).save(tmp_path / "g.hxgame"))
    assert saved.actions[-2:] == ["done", "send-back 92G"]
    back, problem = Timeline.replay(r, saved)
    assert problem == "" and back.latest.occupants == s.occupants and back.latest.log == s.log


@pytest.mark.parametrize("old, new, message", [
    ("judged end               # 3.4(4)", "judged start             # 3.4(4)",
     "judged takes 'end': the limits hold where a move, retreat or advance ends, not at a reinforcement's "
     "placement"),
    ("      move-on                    # 7.0(2): they enter in the movement phase, from the source\n    }\n"
     "    phase soviet-formations",
     "      move-on 2\n    }\n    phase soviet-formations",
     "move-on takes nothing: the units move onto the map in their side's next movement phase"),
    ("phase german-reserve \"Reserve designation (5.1(3))\" {\n      procedure designate\n",
     "phase german-reserve \"Reserve designation (5.1(3))\" {\n      procedure designate\n      move-on\n",
     "'move-on' is not used by any rule of a designate phase"),
])
def test_check_refuses_what_it_cannot_run(tmp_path, old, new, message):
    from dsl.compiler import check_game
    folder = tmp_path / "prokhorovka"
    shutil.copytree(GAMES / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text()
    assert old in text
    (folder / "game.hxr").write_text(text.replace(old, new, 1))
    _, diags, _ = check_game(folder)
    assert any(message in d.message and d.span for d in diags.items), [d.message for d in diags.items]


def test_check_refuses_judged_end_without_a_move_phase(tmp_path):
    from dsl.compiler import check_game
    folder = tmp_path / "prokhorovka"
    shutil.copytree(GAMES / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text()
    for old in ("{ procedure move }", "{ procedure move; exclude held }"):
        assert old in text
        text = text.replace(old, "{ procedure designate; marker held }")
    (folder / "game.hxr").write_text(text)
    _, diags, _ = check_game(folder)
    assert any("stacking 'judged end' lets reinforcements be placed over the limit" in d.message and d.span
               for d in diags.items), [d.message for d in diags.items]


def test_the_playtest_names_the_hex_over_the_limit_and_refuses_done(qtbot, tmp_path, monkeypatch):
    pytest.importorskip("pytestqt")
    from pathlib import Path

    from helpers import prokhorovka_hotseat
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = _both_on_one_source(w.runner)
        w.timeline._kept[w.timeline.end] = s
        w.refresh()
        prompt = w.decision.prompt.text()
        assert "Over the stacking limit, judged where moves end: 1405 (92G, 93G: 2 units; the stacking limit " \
               "is 1): move units out before movement ends" in prompt
        w.press_done()
        assert w.decision.message.text().startswith("the movement cannot end with 1405 over the stacking limit")
        shots = Path("/tmp/hexforge-play-shots")
        shots.mkdir(parents=True, exist_ok=True)
        assert w.grab().save(str(shots / "prokhorovka-entry.png"))


def test_the_playtest_asks_which_unit_goes_back(qtbot, tmp_path, monkeypatch):
    pytest.importorskip("pytestqt")
    from pathlib import Path

    from helpers import prokhorovka_hotseat
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.runner.apply(_stuck(w.runner), "done")
        w.timeline._kept[w.timeline.end] = s
        w.refresh()
        assert w.decision.prompt.text().startswith("1405 (outlined) is over the stacking limit at the end of "
                                                   "movement")
        labels = [w.decision.list.item(i).text() for i in range(w.decision.list.count())]
        assert labels == ["Send 92G (2-1-4, carrying 1 counter) back to soviet-reserve",
                          "Send 93G (2-1-4, carrying 1 counter) back to soviet-reserve"]
        assert not w.decision.done.isEnabled()
        assert w.view.mp.overlay.attackers == {"92G", "93G"}
        shots = Path("/tmp/hexforge-play-shots")
        shots.mkdir(parents=True, exist_ok=True)
        assert w.grab().save(str(shots / "prokhorovka-send-back.png"))
