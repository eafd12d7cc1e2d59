"""Hidden information (runtime/observe.py, docs/dsl.md "Hidden information"):
each side's view of the state, reveals, and the property that no bot decision
depends on what its side cannot see.  The test game tests/games/hidden lays
victory chits of hidden value face down on star hexes, as A Victory Denied
does; Smolensk has chits chosen in secret, a cup and a hand."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl.compiler import check_game, compile_game
from runtime.bots import GreedyBot, RandomBot, make_bot
from runtime.observe import UNKNOWN, determinise, observe, observe_log, view_key
from runtime.runner import Runner

HERE = Path(__file__).resolve().parent
GAME = HERE / "games" / "hidden"
GAMES = HERE.parent / "games"


@pytest.fixture(scope="module")
def stars():
    return compile_game(GAME)


@pytest.fixture(scope="module")
def smolensk():
    return compile_game(GAMES / "smolensk")


def vp_chits(s, side):
    return sorted((str(m["hex"]), m["box"], m["value"], m["face"])
                  for m in observe_state(s, side).markers if m["kind"] == "vp-chit")


def observe_state(s, side):
    return observe(RUNNERS["stars"].game, s, side)


RUNNERS: dict[str, Runner] = {}


@pytest.fixture
def runner(stars):
    RUNNERS["stars"] = Runner(stars)
    return RUNNERS["stars"]


def walk(runner, seed: int, n: int):
    """The state after ``n`` random decisions (or the end)."""
    bot = RandomBot(seed)
    s = runner.new_game(seed)
    for _ in range(n):
        if s.result is not None:
            break
        s = runner.apply(s, bot.choose(runner, s))
    return s


# ------------------------------------------------------------------ views

def test_a_game_that_hides_nothing_is_observed_as_the_state_itself():
    game = compile_game(GAMES / "barbarossa-postcard")
    r = Runner(game)
    s = r.new_game(1)
    for side in game.sides:
        assert observe(game, s, side) is s
        assert r.observe(s, side) is s
    assert observe_log(game, s.log, "axis") == s.log


def test_face_down_chits_show_no_value_to_either_side_until_revealed(runner):
    s = runner.new_game(0)
    for side in ("blue", "red"):
        view = runner.observe(s, side)
        chits = [m for m in view.markers if m["kind"] == "vp-chit"]
        assert len(chits) == 5 and all(m["value"] is None for m in chits)
        assert view.observed["unseen"] == {"vp-chit": [1, 1, 2, 2, 3]}  # the counter mix, not who has which
        assert [m["value"] for m in s.markers if m["kind"] == "vp-chit"] == [1, 3, 2, 1, 2]  # the state keeps them
    assert runner.observe(s, None) is s  # the designer's view


def test_a_blue_unit_entering_a_star_reveals_its_chit_to_both_sides(runner):
    s = runner.new_game(0)
    s = s.copy()
    s.place("B1", runner.board.parse("0402"))
    s2 = runner.apply(s, "move B1 0502")
    for side in ("blue", "red"):
        view = runner.observe(s2, side)
        taken = [m for m in view.markers if m["kind"] == "vp-chit" and m["box"] == "pool:blue-chits"]
        assert [(m["value"], m["face"]) for m in taken] == [(1, "up")]
        assert sum(m["value"] is None for m in view.markers if m["kind"] == "vp-chit") == 4
        reveal = [e for e in view.log if str(e.get("effect", "")).startswith("reveal")]
        assert reveal and reveal[-1]["values"] == [1]  # the log shows what was revealed to all


def test_reveal_to_one_side_shows_the_value_to_that_side_only(tmp_path, stars):
    folder = tmp_path / "stars"
    folder.mkdir()
    (folder / "map.hxm").write_text((GAME / "map.hxm").read_text())
    text = (GAME / "game.hxr").read_text()
    old = "  reveal vp-chit at hex\n  place vp-chit at blue-chits from hex\n"
    assert old in text
    (folder / "game.hxr").write_text(text.replace(old, "  reveal vp-chit at hex to blue\n"))
    game = compile_game(folder)
    r = Runner(game)
    s = r.new_game(0).copy()
    s.place("B1", r.board.parse("0402"))
    s2 = r.apply(s, "move B1 0502")
    blue = [m["value"] for m in observe(game, s2, "blue").markers if m["kind"] == "vp-chit" and str(m["hex"]) != "None"]
    red = [m["value"] for m in observe(game, s2, "red").markers if m["kind"] == "vp-chit" and str(m["hex"]) != "None"]
    assert sorted(v for v in blue if v is not None) == [1] and all(v is None for v in red)
    entry = [e for e in s2.log if str(e.get("effect", "")).startswith("reveal")][-1]
    assert entry["values"] == [1] and entry["to"] == "blue"
    assert "values" not in observe_log(game, [entry], "red")[0]
    assert observe_log(game, [entry], "blue")[0]["values"] == [1]


def test_a_chit_drawn_face_down_is_not_in_the_other_sides_log(runner):
    s = runner.new_game(0)
    drawn = [m for m in s.markers if m["box"] == "pool:victory-chits"][:1]
    entry = {"turn": 1, "draw": [dict(m) for m in drawn], "for": "vp-chit from victory-chits"}
    for side in ("blue", "red"):
        assert observe_log(runner.game, [entry], side)[0]["draw"][0]["value"] is None
    assert observe_log(runner.game, [entry], None)[0]["draw"][0]["value"] == drawn[0]["value"]


def test_hidden_unit_markers_are_missing_from_the_enemys_units(runner):
    s = runner.new_game(0).copy()
    s.mark("R1", "disrupted")
    assert "disrupted" in runner.observe(s, "red").units["R1"].markers
    assert "disrupted" not in runner.observe(s, "blue").units["R1"].markers
    assert "disrupted" in s.units["R1"].markers  # the view never changes the state


def test_smolensk_hides_the_other_sides_chits_in_the_cup_and_in_hand(smolensk):
    r = Runner(smolensk)
    bot = RandomBot(3)
    s = r.new_game(3)
    while not s.cup and s.result is None:
        s = r.apply(s, bot.choose(r, s))
    assert s.cup
    for side in smolensk.sides:
        view = r.observe(s, side)
        mine = sorted(c for c in s.cup if smolensk.chits[c].side == side)
        shared = sorted(c for c in s.cup if smolensk.chits[c].side == "both")  # SUPPLY: always in the cup
        theirs = len(s.cup) - len(mine) - len(shared)
        rest = view.cup[len(mine):]
        assert view.cup[:len(mine)] == mine and sorted(c for c in rest if c != UNKNOWN) == shared
        assert rest.count(UNKNOWN) == theirs
        for other, hand in s.hands.items():
            if other != side:
                assert view.hands[other] == [UNKNOWN] * len(hand)
        for e in view.log:
            if e.get("side") not in (side, None) and str(e.get("action", "")).startswith("choose "):
                assert e["action"] == "choose ?"
    # one sample of what the side cannot see: whole chits again, the side's own as they are
    side = next(iter(smolensk.sides))
    sample = determinise(smolensk, r.observe(s, side), random.Random(1))
    assert UNKNOWN not in sample.cup and len(sample.cup) == len(s.cup)
    assert all(c in smolensk.chits for c in sample.cup)


def test_check_refuses_a_hidden_declaration_it_cannot_enforce(tmp_path):
    folder = tmp_path / "stars"
    folder.mkdir()
    (folder / "map.hxm").write_text((GAME / "map.hxm").read_text())
    text = (GAME / "game.hxr").read_text()
    bad = (text.replace("unit-marker disrupted from enemy",
                        "unit-marker dizrupted from enemy\n  unit-marker isolated from friends")
           .replace('marker vp-chit "Victory chit" { colour "#d4af37"; hidden }',
                    'marker vp-chit "Victory chit" { colour "#d4af37"; hidden from enemy }'))
    (folder / "game.hxr").write_text(bad)
    _, diags, _ = check_game(folder)
    messages = [d.message for d in diags.items]
    assert any("'dizrupted' is not a unit marker" in m for m in messages), messages
    assert any("unit-marker takes a unit marker and whom it is hidden from" in m for m in messages), messages
    assert any("hidden from the enemy: say whose it is" in m for m in messages), messages


# ------------------------------------------------------------------ decisions from the view only

def alike(runner, s, side, seed):
    """Another state that ``side`` sees exactly as it sees ``s``: its secrets drawn anew."""
    other = determinise(runner.game, observe(runner.game, s, side), random.Random(seed))
    assert view_key(observe(runner.game, other, side)) == view_key(observe(runner.game, s, side))
    return other


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 14), other=st.integers(0, 10_000))
def test_states_a_side_sees_alike_get_the_same_bot_decision(stars, seed, n, other):
    r = Runner(stars)
    s = walk(r, seed, n)
    if s.result is not None:
        return
    side = r.to_move(s)
    t = alike(r, s, side, other)
    for name in ("greedy", "random", "search:12"):
        a = make_bot(name, seed).choose(r, s)
        b = make_bot(name, seed).choose(r, t)
        assert a == b, (name, a, b)


@settings(max_examples=6)
@given(seed=st.integers(0, 1000), n=st.integers(1, 30), other=st.integers(0, 1000))
def test_smolensk_bots_never_read_the_other_sides_chits(smolensk, seed, n, other):
    r = Runner(smolensk)
    bot = RandomBot(seed)
    s = r.new_game(seed)
    for _ in range(n):
        s = r.apply(s, bot.choose(r, s))
    side = r.to_move(s)
    t = alike(r, s, side, other)
    assert GreedyBot(seed).choose(r, s) == GreedyBot(seed).choose(r, t)


# ------------------------------------------------------------------ saves, the command line

def test_a_save_holds_the_hidden_values_and_replays_to_them(runner, tmp_path):
    from runtime.replay import SavedGame, Timeline
    t = Timeline(runner, 2)
    bot = RandomBot(2)
    for _ in range(12):
        t.apply(bot.choose(runner, t.latest))
    saved = t.saved(str(GAME), "stars")
    values = sorted(m["value"] for m in saved.state["markers"] if m["kind"] == "vp-chit")
    assert values == [1, 1, 2, 2, 3]  # the whole game, not a side's view
    p = saved.save(tmp_path / "g.hxgame")
    loaded = SavedGame.load(p)
    assert loaded.state == saved.state
    t2, problem = Timeline.replay(runner, loaded)
    assert problem == "" and t2.actions == t.actions
    loaded.state["markers"][0]["value"] = 9  # a state the replay does not reach
    loaded.digest = ""
    assert "not the one saved" in Timeline.replay(runner, loaded)[1]
    old = SavedGame.loads(p.read_text().replace('"version": 2', '"version": 1'))  # a version 1 save
    assert old.state is None and Timeline.replay(runner, old)[1] == ""


def play(args, capsys):
    from dsl.cli import main
    code = main(["play", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_play_log_side_writes_what_that_side_saw(tmp_path, capsys):
    full, blue = tmp_path / "full.jsonl", tmp_path / "blue.jsonl"
    assert play([str(GAME), "--agents", "random", "--seed", "2", "--log", str(full)], capsys)[0] == 0
    assert play([str(GAME), "--agents", "random", "--seed", "2", "--log", str(blue), "--log-side", "blue"],
                capsys)[0] == 0
    import json
    full_draws = [json.loads(x) for x in full.read_text().splitlines() if '"draw"' in x]
    blue_draws = [json.loads(x) for x in blue.read_text().splitlines() if '"draw"' in x]
    assert full_draws and [d["value"] for e in full_draws for d in e["draw"]] != [None]
    assert [d["value"] for e in blue_draws for d in e["draw"]] == [None] * len(full_draws)
    code, _, err = play([str(GAME), "--log-side", "bleu", "--log", str(blue)], capsys)
    assert code == 1 and "no side 'bleu'" in err and "blue" in err
    code, _, err = play([str(GAME), "--log-side", "blue"], capsys)
    assert code == 1 and "--log FILE" in err


def test_play_output_shows_no_hidden_value_before_it_is_revealed(tmp_path, capsys):
    """Two games whose face-down chits carry other values print the same lines
    until the end awards count them."""
    outs = []
    for values in ((1, 3, 2), (3, 2, 1)):
        folder = tmp_path / f"v{values[0]}"
        folder.mkdir()
        (folder / "map.hxm").write_text((GAME / "map.hxm").read_text())
        text = (GAME / "game.hxr").read_text()
        for hex_id, old, new in zip(("0502", "0603", "0702"), (1, 3, 2), values):
            text = text.replace(f"place vp-chit at {hex_id} value {old}", f"place vp-chit at {hex_id} value {new}")
        (folder / "game.hxr").write_text(text)
        outs.append(play([str(folder), "--agents", "greedy", "--seed", "1"], capsys)[1].splitlines())
    assert outs[0][:3] == outs[1][:3]  # turns 1-3: nothing revealed counts yet


# ------------------------------------------------------------------ cups (pools of kind cup)

@pytest.fixture(scope="module")
def cups():
    return compile_game(HERE / "games" / "attach")


def test_counters_in_a_cup_show_only_as_counts(cups):
    r = Runner(cups)
    s = r.new_game(1)
    in_cups = {u.id for u in s.units.values() if u.box in ("pool:red-tank-cup", "pool:red-support-cup",
                                                           "pool:blue-tank-cup")}
    assert in_cups
    for side in ("red", "blue"):
        view = r.observe(s, side)
        assert all(view.units[uid].box == UNKNOWN for uid in in_cups)  # nobody sees into a cup
        counts = view.observed["places"]
        assert sum(counts.values()) == len(in_cups)
        assert all(s.units[uid].box != UNKNOWN for uid in in_cups)  # the state keeps them
        sample = determinise(cups, view, random.Random(3))
        for place, n in counts.items():
            assert sum(1 for u in sample.units.values() if u.box == place) == n
        assert not any(u.box == UNKNOWN for u in sample.units.values())


@settings(max_examples=6)
@given(seed=st.integers(0, 1000), n=st.integers(0, 30), other=st.integers(0, 1000))
def test_bots_never_read_what_is_in_a_cup(cups, seed, n, other):
    r = Runner(cups)
    s = walk(r, seed, n)
    if s.result is not None:
        return
    side = r.to_move(s)
    t = alike(r, s, side, other)
    assert GreedyBot(seed).choose(r, s) == GreedyBot(seed).choose(r, t)


# ------------------------------------------------------------------ the chits' history in a sample

def _hidden_chits(game, s, side):
    """The other sides' chits in the cup and hands of the real state that ``side`` cannot see."""
    view = observe(game, s, side, log=False)
    out: dict[str, int] = {}
    for c in s.cup:
        if not view.cup or UNKNOWN in view.cup:
            if game.chits[c].side != side and not game.chits[c].always:
                out[c] = out.get(c, 0) + 1
    for other, hand in s.hands.items():
        if other != side:
            for c in hand:
                out[c] = out.get(c, 0) + 1
    return out


@pytest.mark.parametrize("folder", ["smolensk", "a-victory-denied"])
def test_a_sample_deals_only_chits_the_public_history_allows(folder):
    """determinise draws the other side's hidden chits from those the turn's
    public history allows: never one seen drawn this turn, never one not yet
    available, an interrupt chit only into a hand; and the truth is always
    among what it may draw (so no sample is impossible by construction)."""
    from runtime.observe import chit_bags, spent_chits, this_turn
    game = compile_game(GAMES / folder)
    r = Runner(game)
    checked = 0
    for seed in (1, 2):
        bot = RandomBot(seed)
        s = r.new_game(seed)
        for n in range(160):
            if s.result is not None:
                break
            if n % 5 == 0:
                for side in game.sides:
                    view = observe(game, s, side, log=False)
                    truth = _hidden_chits(game, s, side)
                    if not truth:
                        continue
                    likely, rest = chit_bags(game, view, side, random.Random(n))
                    pickable = [cid for cid, c in game.chits.items() if c.pick]
                    for cid, k in truth.items():  # the real hidden chits are all possible
                        assert likely.count(cid) >= k or cid in pickable, (cid, k, likely)
                    spent = spent_chits(this_turn(s))
                    sample = determinise(game, view, random.Random(n))
                    for cid in set(sample.cup) | {c for h in sample.hands.values() for c in h}:
                        c = game.chits[cid]
                        if c.side == side or c.always:
                            continue
                        held = sample.cup.count(cid) + sum(h.count(cid) for h in sample.hands.values())
                        assert c.available <= s.turn, (cid, s.turn)
                        assert held <= c.count - max(0, spent.get(cid, 0)), (cid, held, spent)
                    for other, hand in sample.hands.items():
                        if other != side:
                            assert all(game.chits[c].kind == "interrupt" for c in hand), hand
                    checked += 1
            s = r.apply(s, bot.choose(r, s))
    assert checked > 10



def _afresh(read, *args):
    """``read`` with the memos of the log readers set aside: the list read
    from its start, as if nothing had been read before."""
    import runtime.observe as O
    kept = O._TURN, O._SPENT, dict(O._OBSERVED)
    O._TURN, O._SPENT = O._Read(), O._Read()
    O._OBSERVED.clear()
    try:
        return read(*args)
    finally:
        O._TURN, O._SPENT = kept[0], kept[1]
        O._OBSERVED.clear()
        O._OBSERVED.update(kept[2])


def test_the_turn_log_read_on_from_the_last_read_is_the_whole_read():
    """this_turn, spent_chits and observe_log go on from where they read the
    log last (a bot reads it at every decision, a few entries longer each
    time): on logs that share their first entries and then branch (states of
    one game and of the search's tries from one state), on a new turn and on
    another game's log, each gives what reading the list afresh gives."""
    from runtime.observe import spent_chits, this_turn
    game = compile_game(GAMES / "smolensk")
    r = Runner(game, "short")
    trunk = r.new_game(4)
    bot = RandomBot(4)
    states = []
    for _ in range(400):
        if trunk.result is not None:
            break
        trunk = r.apply(trunk, bot.choose(r, trunk))
        states.append(trunk)
    branches = []
    for k, s in enumerate(states[::15]):  # a branch from every 15th state, read in turns with the trunk
        b = s
        other = RandomBot(100 + k)
        for _ in range(10):
            if b.result is not None:
                break
            b = r.apply(b, other.choose(r, b))
        branches.append(b)
    order = [x for pair in zip(states, (branches * 30)[:len(states)]) for x in pair]
    order += [r.new_game(5), *states[:5]]  # another game's log, then the first ones again
    turns = set()
    for s in order:
        turns.add(s.turn)
        tail = this_turn(s)
        assert tail == _afresh(this_turn, s)
        assert spent_chits(tail) == _afresh(spent_chits, tail)
        for side in game.sides:
            assert observe_log(game, tail, side) == _afresh(observe_log, game, tail, side)
    assert len(turns) > 2  # (read across the ends of turns)


def test_the_log_readers_read_right_from_two_threads_at_once():
    """The editor's bots think on threads of their own: two threads reading
    two games' logs at once, each state's turn, chits spent and observed log
    are what a fresh read gives (the memo is one tuple, read and replaced
    whole)."""
    import sys
    import threading

    from runtime.observe import spent_chits, this_turn
    game = compile_game(GAMES / "smolensk")
    r = Runner(game, "short")
    games = []
    for seed in (6, 7):
        s, bot, states = r.new_game(seed), RandomBot(seed), []
        for _ in range(150):
            s = r.apply(s, bot.choose(r, s))
            states.append(s)
        games.append([(s, _afresh(this_turn, s), _afresh(spent_chits, _afresh(this_turn, s)),
                       _afresh(observe_log, game, _afresh(this_turn, s), "axis")) for s in states])
    wrong: list = []

    def read(expected):
        for _ in range(2):
            for s, tail, spent, seen in expected:
                got = this_turn(s)
                if got != tail or spent_chits(got) != spent or observe_log(game, got, "axis") != seen:
                    wrong.append(s.turn)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads take turns as often as the interpreter lets them)
    try:
        threads = [threading.Thread(target=read, args=(g,)) for g in games]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert not wrong
