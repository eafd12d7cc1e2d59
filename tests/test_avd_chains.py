"""A Victory Denied 抽取 3 d: the panzer group chits' command chains, one per
corps colour (``activation { command-chain 3 motorized per yellow purple
orange }``).  i: the German player picks one unit of each colour as its
"commander"; ii: it activates the group's motorized units of its colour that
a chain with links of at most 3 hexes connects to it.  On the game's own map
and counters at set-up: 2nd Panzer Group's HQ at 2907; XXIV Corps (yellow)
3Pz 4Pz at 2408, 10Mot at 2308, 5 and 6 hexes from it; XXXXVI (purple) 10Pz
SSR at 2808, GD at 2909; XXXXVII (orange) 17Pz 18Pz at 3008, 29Mot at 3007."""
from __future__ import annotations

import shutil

import pytest

from dsl.compiler import check_game, compile_game
from runtime.actions import Done, IllegalActionError
from runtime.bots import GreedyBot, RandomBot, play
from runtime.decisions import Activate
from runtime.replay import SavedGame, Timeline
from runtime.runner import Runner
from runtime.search import SearchBot

from helpers import ROOT

RULES = ROOT / "games" / "a-victory-denied"
XXIV, XXXXVI, XXXXVII = {"3Pz", "4Pz", "10Mot"}, {"10Pz", "SSR", "GD"}, {"17Pz", "18Pz", "29Mot"}


@pytest.fixture(scope="module")
def game():
    return compile_game(RULES)


@pytest.fixture
def runner(game):
    return Runner(game)


def drawn(r: Runner, s, chit: str):
    """The state as if ``chit`` had just been drawn from the cup on turn 2 (the chit loop's activation)."""
    s.turn = 2
    s.pc = next(i for i, st in enumerate(r.program) if st.kind == "proc" and st.phase.id == "activation")
    s.step = {"chit": chit}
    r._proc_activate(s, r.program[s.pc].phase)
    return s


def at(r: Runner, s, unit: str, hex_id: str):
    s.place(unit, r.board.parse(hex_id))


def test_the_2nd_panzer_group_chit_activates_xxiv_corps_by_its_own_colour_chain(runner):
    """3 d: XXIV Corps stands 5-6 hexes from the HQ and more than 3 from the other corps; its own
    commander's chain activates it."""
    s = drawn(runner, runner.new_game(seed=1), "2PzG")
    assert s.step["decision"] == "commander" and s.step["group"] == "yellow" and s.step["side"] == "german"
    assert runner.legal_actions(s) == [Activate("10Mot"), Activate("3Pz"), Activate("4Pz"), Done()]
    assert s.activated == {"2PzG"}                                     # the HQ itself, nothing by range
    s = runner.apply(s, "activate 3Pz")
    assert s.activated == {"2PzG"} | XXIV
    assert {"turn": 2, "activate": "2PzG", "commander": "3Pz", "group": "yellow",
            "units": ["10Mot", "3Pz", "4Pz"]} in s.log
    assert s.step["group"] == "purple" and s.step["candidates"] == ["10Pz", "GD", "SSR"]
    s = runner.apply(s, "activate GD")
    assert s.step["group"] == "orange"
    s = runner.apply(s, "activate 29Mot")
    assert s.activated == {"2PzG"} | XXIV | XXXXVI | XXXXVII
    assert s.step["decision"] == "movement" and s.active == "german"  # then the segment's movement


def test_a_unit_of_the_colour_more_than_3_hexes_from_its_chain_is_not_activated(runner):
    s = runner.new_game(seed=1)
    at(runner, s, "10Mot", "2411")                                     # 3 hexes from 3Pz and 4Pz at 2408
    s = runner.apply(drawn(runner, s, "2PzG"), "activate 4Pz")
    assert XXIV <= s.activated
    s = runner.new_game(seed=1)
    at(runner, s, "10Mot", "2412")                                     # 4 hexes: the chain does not reach
    s = runner.apply(drawn(runner, s, "2PzG"), "activate 4Pz")
    assert "10Mot" not in s.activated and {"3Pz", "4Pz"} <= s.activated
    s = runner.new_game(seed=1)
    at(runner, s, "10Mot", "2908")                                     # next to purple 10Pz, 5 from 3Pz
    s = runner.apply(drawn(runner, s, "2PzG"), "activate 3Pz")
    for u in ("activate GD", "activate 17Pz"):
        s = runner.apply(s, u)
    assert "10Mot" not in s.activated                                  # another colour's chain does not link it


def test_the_commander_may_stand_alone_and_a_colour_may_be_declined(runner):
    s = runner.new_game(seed=1)
    at(runner, s, "10Mot", "2412")
    s = runner.apply(drawn(runner, s, "2PzG"), "activate 10Mot")      # its own chain: itself
    assert s.activated == {"2PzG", "10Mot"}
    s = runner.apply(s, "done")                                        # no purple commander
    assert {"turn": 2, "activate": "2PzG", "group": "purple", "units": [], "why": "no commander picked"} in s.log
    s = runner.apply(s, "activate 18Pz")
    assert s.activated == {"2PzG", "10Mot"} | XXXXVII


def test_a_non_motorized_unit_is_never_activated_by_a_panzer_group_chit(runner):
    s = runner.new_game(seed=1)
    at(runner, s, "1Cav", "2906")                                      # 2nd Panzer Group's cavalry, next to its HQ
    at(runner, s, "255ID", "2407")                                     # infantry next to XXIV Corps
    s = drawn(runner, s, "2PzG")
    seen = []
    while s.step.get("decision") == "commander":
        seen += s.step["candidates"]
        s = runner.apply(s, f"activate {s.step['candidates'][0]}")
    assert "1Cav" not in seen and "255ID" not in seen                  # they command no chain
    assert not {"1Cav", "255ID", "267ID", "3PzG"} & s.activated        # nor are linked, nor in range
    assert s.activated == {"2PzG"} | XXIV | XXXXVI | XXXXVII


def test_the_9th_army_chit_on_a_panzer_group_hq_activates_its_non_motorized_units(runner):
    """3 c: the 9th Army chit activates any one HQ, and in its range HQs and non-motorized units
    (no chain, no commander)."""
    s = runner.new_game(seed=1)
    at(runner, s, "1Cav", "2906")
    s = runner.apply(drawn(runner, s, "9A"), "activate 2PzG")
    assert s.activated == {"2PzG", "1Cav"} and s.step["decision"] == "movement"


def test_an_illegal_commander_says_why(runner):
    s = drawn(runner, runner.new_game(seed=1), "2PzG")
    with pytest.raises(IllegalActionError) as e:
        runner.apply(s, "activate 10Pz")
    assert str(e.value) == "10Pz cannot command the yellow chain of 2PzG: german picks one of 10Mot, 3Pz, 4Pz, " \
                           "or 'done' for none"


def test_turn_1_the_2nd_panzer_group_fights_then_the_3rd_picks_its_commanders(runner, game):
    """1 a: every 2nd Panzer Group unit (the cavalry too) fights a combat segment, no chain;
    1 b: the 3rd Panzer Group chit then moves and fights, its units activated by its colours' chains."""
    s = runner.new_game(seed=1)
    first = next(e for e in s.log if e.get("activate") == "first-2pzg-activation")
    assert "1Cav" in first["units"] and XXIV <= set(first["units"])
    assert s.step["decision"] == "combat"
    s = runner.apply(s, "done")
    assert s.step["decision"] == "commander" and s.step["hq"] == "3PzG" and s.step["groups"] == ["purple", "orange"]
    yellow = set(s.step["candidates"])
    s = runner.apply(s, f"activate {s.step['candidates'][0]}")
    assert s.step["group"] == "purple"                                 # 3rd Panzer Group has no orange corps
    s = runner.apply(s, f"activate {s.step['candidates'][0]}")
    assert s.step["decision"] == "movement" and "3PzG" in s.activated and yellow <= s.activated
    assert not any(game.counters[u].formation == "2PzG" for u in s.activated)


def test_the_greedy_bot_picks_the_commander_whose_chain_activates_most(runner):
    s = runner.new_game(seed=1)
    at(runner, s, "10Mot", "2412")                                     # alone: a chain of 1
    s = drawn(runner, s, "2PzG")
    assert GreedyBot(0).choose(runner, s) in (Activate("3Pz"), Activate("4Pz"))
    s = runner.apply(s, "done")
    assert GreedyBot(0).choose(runner, s) in (Activate("10Pz"), Activate("SSR"), Activate("GD"))


def test_random_and_search_bots_answer_the_commander_decision(runner):
    s = drawn(runner, runner.new_game(seed=1), "2PzG")
    legal = runner.legal_actions(s)
    assert RandomBot(3).choose(runner, s) in legal
    assert SearchBot(3, "4", horizon=8).choose(runner, s) in legal


def test_a_game_with_commanders_saves_and_replays(runner, tmp_path):
    t = Timeline(runner, seed=1)
    for a in ("done", "activate 7Pz", "done"):                         # turn 1: 2PzG combat, 3PzG's commanders
        t.apply(a)
    path = t.saved(str(RULES), "campaign").save(tmp_path / "g.json")
    t2, problem = Timeline.replay(runner, SavedGame.load(path))
    assert problem == "" and t2.latest.activated == t.latest.activated
    assert any(e.get("commander") == "7Pz" for e in t2.latest.log)


def test_a_bot_game_picks_commanders_for_every_colour(game):
    r = Runner(game)
    s, n = play(r, r.new_game(seed=4), {"german": GreedyBot(4), "soviet": RandomBot(5)})
    assert s.result is not None
    picked = [e for e in s.log if e.get("commander")]
    assert {e["group"] for e in picked if e["activate"] == "2PzG"} == {"yellow", "purple", "orange"}
    assert all(game.counters[u].formation == e["activate"] and e["group"] in game.counters[u].tags
               for e in picked for u in e["units"])                   # a chain links its own colour only
    assert not any(e.get("why") == "no commander picked" for e in s.log)  # greedy never declines one


# ------------------------------------------------------------------ what check refuses

def diagnostics(tmp_path, old: str, new: str) -> list[str]:
    folder = tmp_path / "a-victory-denied"
    shutil.copytree(RULES, folder)
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    assert old in text, old
    (folder / "game.hxr").write_text(text.replace(old, new, 1), encoding="utf-8")
    _, diags, _ = check_game(folder)
    return [f"{d.span.line}:{d.span.col}: {d.message}" + (f" ({d.hint})" if d.hint else "")
            for d in diags.items if d.span]


@pytest.mark.parametrize("new,message", [
    ("command-chain 3 motorized per yelow purple orange",
     "no counter the command chain links carries the tag 'yelow' (did you mean 'yellow'?)"),
    ("command-chain 3 motorized per", "'per' takes the tags that make one chain each"),
    ("command-chain 3 per yellow", "command-chain takes the units it links before 'per'"),
    ("command-chain 3 infantry per yellow", "no counter the command chain links carries the tag 'yellow'"),
])
def test_check_refuses_a_chain_per_tag_it_cannot_run(tmp_path, new, message):
    old = "command-chain 3 motorized per yellow purple orange"
    line = next(i for i, x in enumerate((RULES / "game.hxr").read_text(encoding="utf-8").splitlines(), 1) if old in x)
    found = diagnostics(tmp_path, old, new)
    assert any(message in m and m.startswith(f"{line}:") for m in found), found


def test_the_greedy_bot_keeps_a_chain_member_linked_to_its_chain(runner):
    """A motorized unit that leaves its colour's chain (or breaks it) is never activated by its
    panzer group's chit again: the greedy bot's moves keep it linked to as many of its chain as now."""
    bot, hex_ = GreedyBot(0), runner.board.parse
    s = runner.new_game(seed=1)                                        # 3Pz 4Pz at 2408, 10Mot at 2308
    kept = bot._chained(runner, s, "3Pz", hex_("2408"))
    assert kept(hex_("2411")) and kept(hex_("2305"))                   # within 3 of 4Pz / of 10Mot
    assert not kept(hex_("2412")) and not kept(hex_("2804"))           # 4 hexes from both
    at(runner, s, "10Mot", "2411")                                     # 10Mot links 4Pz at 2413 to 3Pz
    at(runner, s, "4Pz", "2413")
    kept = bot._chained(runner, s, "10Mot", hex_("2411"))
    assert kept(hex_("2411")) and kept(hex_("2410"))                   # within 3 of both
    assert not kept(hex_("2408"))                                      # 5 from 4Pz: the chain splits
    at(runner, s, "10Mot", "2420")
    assert bot._chained(runner, s, "10Mot", hex_("2420")) is None      # out of its chain already
    assert bot._chained(runner, s, "1Cav", s.units["1Cav"].hex) is None  # not motorized: no chain
    sov = next(u for u in s.on_map("soviet"))
    assert bot._chained(runner, s, sov.id, sov.hex) is None


def test_greedy_panzer_moves_never_shrink_their_chain(game):
    """Over the first three turns of a seeded greedy game, no German movement decision takes a
    chain member to where fewer of its colour's units are linked to it than before the move."""
    r = Runner(game)
    s = r.new_game(seed=3)
    bots = {"german": GreedyBot(1), "soviet": GreedyBot(2)}
    chain, checked = game.activation.chain, 0

    def linked(state, uid) -> int:
        c = game.counters[uid]
        tag = next(t for t in game.activation.chain_groups if t in c.tags)
        members = {u.id: u.hex for u in state.on_map("german") if game.counters[u.id].formation == c.formation
                   and tag in game.counters[u.id].tags and game.matches(u.id, game.activation.chain_units)}
        out, todo = {uid}, [uid]
        while todo:
            h = members[todo.pop()]
            for x, y in members.items():
                if x not in out and h.distance(y) <= chain:
                    out.add(x)
                    todo.append(x)
        return len(out)
    while s.result is None and s.turn <= 3:
        side = r.to_move(s)
        a = bots[side].choose(r, s)
        after = r.apply(s, a)
        if side == "german" and s.step.get("decision") == "movement" and type(a).__name__ == "Move" \
                and a.unit in s.activated and game.counters[a.unit].tags & set(game.activation.chain_groups):
            before = linked(s, a.unit)
            if before > 1:
                assert linked(after, a.unit) >= before, f"{a} left its chain"
                checked += 1
        s = after
    assert checked >= 10
