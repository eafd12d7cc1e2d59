"""A Victory Denied's rules (games/a-victory-denied/game.hxr), played on the
game's own map and order of battle when they are there, else on the stand-in
board and counters of tests/games/avd-stand-in: check, full bot games, and
scripted cases of the rulebook (shared/rules/a-victory-denied.zh.txt)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dsl.compiler import compile_game
from runtime.actions import Done
from runtime.bots import RandomBot, play
from runtime.decisions import Choose, Take
from runtime.runner import Runner

from helpers import ROOT

RULES = ROOT / "games" / "a-victory-denied"
STAND_IN = ROOT / "tests" / "games" / "avd-stand-in"


def avd_folder(tmp: Path) -> Path:
    """The rules with the stand-in board and counters, whose hexes the scripted cases name."""
    folder = tmp / "lib" / "a-victory-denied"
    folder.mkdir(parents=True)
    shutil.copy(RULES / "game.hxr", folder)
    for f in ("units.hxr", "map.hxm"):
        shutil.copy(STAND_IN / f, folder)
    return folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return avd_folder(tmp_path_factory.mktemp("avd"))


@pytest.fixture(scope="module")
def game(folder):
    return compile_game(folder)


@pytest.fixture
def runner(game):
    return Runner(game)


# ------------------------------------------------------------------ whole games

@pytest.fixture(scope="module")
def full_game():
    return compile_game(RULES)


def test_the_game_with_its_map_and_counters_plays_to_its_end(full_game):
    # (a greedy game of it: test_avd_game_combat's greedy_game, which asks the same of it)
    r = Runner(full_game)
    s, _ = play(r, r.new_game(seed=1), {"german": RandomBot(1), "soviet": RandomBot(101)})
    assert s.result["winner"] in ("german", "soviet", "draw")
    assert any(e.get("bought") for e in s.log) and any(e.get("arrival") == "ninth-army" for e in s.log)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_random_game_plays_to_its_end_the_same_way_twice(game, seed):
    logs = []
    for _ in range(2):
        r = Runner(game)
        s, _ = play(r, r.new_game(seed=seed), {"german": RandomBot(seed), "soviet": RandomBot(seed + 100)})
        assert s.result["turns"] in (8, 10) or "wins" in s.result["ended"] or "enters" in s.result["ended"]
        logs.append(repr(s.log))
    assert logs[0] == logs[1]


# ------------------------------------------------------------------ the Supply chit (4 d-f)

def test_the_supply_chit_lets_the_soviet_player_mark_the_turn_tracks_number_of_german_units(runner):
    s = runner.new_game(seed=1)
    s.turn = 2                                             # the track prints 2 on turn 2
    s.mark("4Pz", "out-of-supply")
    runner.run_effects(s, "chit:Supply", "Supply drawn")
    assert "out-of-supply" not in s.units["4Pz"].markers   # 4 d: the old markers come off first
    ask = s.effects[0]["ask"]
    assert ask["side"] == "soviet" and ask["left"] == 2 and ask["verb"] == "mark"
    assert set(ask["units"]) >= {"4Pz", "7Pz"} and not any(s.units[u].side == "soviet" for u in ask["units"])
    s = runner.apply(s, Take("7Pz"))
    assert "out-of-supply" in s.units["7Pz"].markers and s.effects[0]["ask"]["left"] == 1


def test_no_out_of_supply_markers_on_turn_1(runner):
    s = runner.new_game(seed=1)
    runner.run_effects(s, "chit:Supply", "Supply drawn")
    assert not s.effects and not any("out-of-supply" in u.markers for u in s.units.values())


# ------------------------------------------------------------------ the Minsk pocket (5 g-i)

def release(runner, units, chit: bool | None, turn: int = 2):
    s = runner.new_game(seed=4)
    s.turn = turn
    runner.run_effects(s, "chit:Reinf", "Reinforcements drawn")
    s = runner.apply(s, Choose("release"))
    for u in units:
        s = runner.apply(s, Take(u))
    if s.effects and s.effects[0]["ask"]["decision"] == "take":
        s = runner.apply(s, "done")                                     # release no more
    if chit is not None:
        s = runner.apply(s, Choose("add-9a-chit" if chit else "no-9a-chit"))
    return s


def test_releasing_the_pocket_counts_hq_2_infantry_1_and_the_9th_army_chit_1(runner):
    cup = runner.new_game(seed=4).cup
    s = release(runner, ["9A", "31ID"], chit=True)
    assert s.units["9A"].box == "pool:arriving" and s.units["31ID"].box == "pool:arriving"  # they enter at 3106
    assert s.variables["minsk-points"] == 4 and s.cup.count("9A") == cup.count("9A") + 1
    roll = next(e for e in reversed(s.log) if e.get("table") == "minsk-escape")
    assert roll["input"] == 4 and roll["result"] in ("A", "B", "-")   # column 1-7; turn 2: +1
    if roll["result"] != "-":
        assert any(m["kind"] == "minsk-drm" for m in s.markers)
        assert any(s.units[u].box == "pool:minsk-escaped" for u in ("24RD", "2RD"))   # they enter later (5 h ii)


def test_releasing_only_infantry_asks_no_chit(runner):
    s = release(runner, ["31ID"], chit=None)
    assert s.variables["minsk-points"] == 1 and s.units["9A"].box == "pool:minsk-pocket"
    assert not s.effects


@pytest.mark.parametrize("in_cup", [0, 1, 2])
def test_the_pocket_ends_when_the_reinforcements_chit_is_drawn_on_turn_4(runner, game, in_cup):
    s = runner.new_game(seed=4)
    s.turn = 4
    runner.run_effects(s, "event:minsk-ends", "Minsk Pocket ends")    # the turn's special event: not yet
    assert s.units["9A"].box == "pool:minsk-pocket"
    s.cup = ["9A"] * in_cup + ["Supply"]                              # 9th Army chits chosen for the cup this turn
    hqs = sum(1 for u in s.units.values() if u.box == "pool:minsk-pocket" and game.counters[u.id].unit_class == "hq")
    runner.run_effects(s, "chit:Reinf", "Reinforcements drawn")
    asked = 0
    while s.effects:                                                  # ii: an unused 9th Army chit per HQ released
        ask = s.effects[0]["ask"]
        if ask["decision"] == "choose":
            asked += 1
            s = runner.apply(s, Choose(next(o for o in ask["options"] if o.startswith("add-"))))
        else:
            s = runner.apply(s, Take(ask["units"][0]))
    assert s.units["9A"].box == "pool:arriving"                       # 5 i: every German unit leaves, by road
    assert s.units["24RD"].box == "removed" and s.units["2RD"].box == "removed"   # iii: every Soviet one is lost
    assert hqs >= 1 and asked == min(hqs, 2 - in_cup)                 # one per HQ, while one of the 2 is unused
    assert s.cup.count("9A") == in_cup + asked
    assert not any(e.get("table") == "minsk-escape" for e in s.log)   # no escape roll


def test_a_9th_army_chit_guderian_sent_back_into_the_cup_is_one_chit_in_play(runner):
    """抽取 2 a ii: when Guderian's chit is played the chit just drawn goes back into the cup: it is one 9th
    Army chit in play, not two (drawn, and in the cup). With the other one unused (only one was chosen), a
    released HQ may still put it in (5 g iii). Until this fix chits-in-play(9A) read 2 and the German
    player was not asked."""
    s = runner.new_game(seed=4)
    s.turn = 2
    s.cup = ["9A", "Supply"]                                          # one 9A chosen, drawn, sent back
    s.log.append({"turn": 2, "draw": "9A", "left": 1})
    s.log.append({"turn": 2, "interrupt": "2PzG", "returned": "9A"})
    runner.run_effects(s, "chit:Reinf", "Reinforcements drawn")
    s = runner.apply(s, Choose("release"))
    s = runner.apply(s, Take("9A"))
    if s.effects and s.effects[0]["ask"]["decision"] == "take":
        s = runner.apply(s, "done")
    ask = s.effects[0]["ask"]
    assert ask["decision"] == "choose" and "add-9a-chit" in ask["options"]
    s = runner.apply(s, Choose("add-9a-chit"))
    assert s.cup.count("9A") == 2


@pytest.mark.parametrize("in_cup", [0, 1, 2])
def test_turn_1s_9th_army_chit_goes_into_the_cup_only_while_one_is_unused(runner, in_cup):
    """增援 5 f iv: "此时 (第 1 回合) 立即将 9 集指挥旗放进黑箱": one of the 9th Army's 2 chits, as 5 g iii and
    5 i ii put an unused one; when both were chosen for the cup (turn 1's 3 German chits can only be 2PzG
    and the two 9A) none is added. Until this fix a third 9A chit went in, and turn 1 drew it three times."""
    s = runner.new_game(seed=4)
    assert s.turn == 1
    s.cup = ["9A"] * in_cup + ["Supply"]                              # 9th Army chits chosen for the cup
    runner.run_effects(s, "chit:Reinf", "Reinforcements drawn")
    while s.effects:
        s = runner.apply(s, Choose("hold"))                           # no Minsk release
    assert s.cup.count("9A") == min(in_cup + 1, 2)


def test_a_greedy_first_turn_draws_the_9th_army_chit_at_most_twice(full_game):
    from runtime.bots import GreedyBot
    r = Runner(full_game)
    s = r.new_game(seed=3)
    agents = {"german": GreedyBot(3), "soviet": GreedyBot(4)}
    while s.result is None and s.turn == 1:
        s = r.apply(s, agents[r.to_move(s)].choose(r, s))
    picked = next(e["chits"] for e in s.log if e.get("side") == "german" and "chits" in e)
    assert picked.count("9A") == 2                                    # both chosen on turn 1
    assert sum(1 for e in s.log if e.get("turn") == 1 and e.get("draw") == "9A") == 2


def test_the_plus_1_drm_lasts_into_turn_4_until_the_reinforcements_chit(runner):
    """5 h v: the Soviets get +1 DRM "直到下次'增援阶段'为止"; turn 4's special event (Minsk Pocket ends)
    does not remove it: the pocket ends when the Reinforcements chit is drawn (the Escape Table's note)."""
    s = runner.new_game(seed=4)
    m = runner.new_marker("minsk-drm", None, "", None)
    runner.place_marker_at(m, "minsk-pocket")
    s.markers.append(m)
    s.turn = 4
    drm = lambda: runner.env(s)[1]["marker-at"]("minsk-pocket", "minsk-drm")  # noqa: E731
    runner.run_effects(s, "event:minsk-ends", "Minsk Pocket ends")
    assert drm()                                                      # Soviet attacks before the chit: +1
    runner.run_effects(s, "chit:Reinf", "Reinforcements drawn")
    assert not drm()


# ------------------------------------------------------------------ victory

def end_with(runner, s, directive: str, chose_moscow: bool = False, box: int = 0, held: int = 0,
             motorized_lost: int = 0):
    s.rolled["hitler-directive"] = directive
    if chose_moscow:
        s.done.add("chosen:objective-moscow")
    s.markers = [m for m in s.markers if m["kind"] != "vp-chit"]
    if box:
        s.markers.append(runner.new_marker("vp-chit", None, "pool:victory-chits", box))
    if held:
        s.markers.append(runner.new_marker("vp-chit", None, "pool:soviet-chits", held))
    s.lost = list(s.lost) + ["4Pz"] * motorized_lost
    runner.finish(s, "the last turn")
    return s.result


def test_hitler_distracted_counts_chits_once_and_4_per_motorized_unit(runner):
    r = end_with(runner, runner.new_game(seed=1), "hitler-distracted", box=5, held=2, motorized_lost=1)
    assert r["vp"] == {"german": 5, "soviet": 6} and r["winner"] == "soviet"
    r = end_with(runner, runner.new_game(seed=1), "hitler-distracted", box=6, held=2, motorized_lost=1)
    assert r["winner"] == "draw"                                   # a tie


def test_objective_moscow_rolled_doubles_the_soviet_chits_and_the_germans_win_ties(runner):
    r = end_with(runner, runner.new_game(seed=1), "objective-moscow", box=10, held=2, motorized_lost=1)
    assert r["vp"] == {"german": 10, "soviet": 10} and r["winner"] == "german"


def test_objective_moscow_chosen_a_higher_german_total_is_only_a_draw(runner):
    r = end_with(runner, runner.new_game(seed=1), "guderians-choice", chose_moscow=True, box=12, held=1)
    assert r["vp"] == {"german": 12, "soviet": 2} and r["winner"] == "draw"
    r = end_with(runner, runner.new_game(seed=1), "guderians-choice", chose_moscow=True, box=1, held=1)
    assert r["winner"] == "soviet"


# ------------------------------------------------------------------ command (指挥旗)

def run_to_selection(runner):
    """A new game run to the German chit selection of turn 1 (the turn-1 segments done by 'done')."""
    s = runner.new_game(seed=1)
    while s.step.get("decision") != "choose" and not any("chits" in e for e in s.log):
        s = runner.apply(s, "done")
    return s


def test_turn_1_the_2nd_panzer_group_fights_then_the_3rd_panzer_group_chit_is_played_first(runner, game):
    s = run_to_selection(runner)
    first = next(e for e in s.log if e.get("activate") == "first-2pzg-activation")
    assert set(first["units"]) == {u for u, c in game.counters.items() if c.formation == "2PzG"
                                   and s.units[u].hex is not None}
    assert {"turn": 1, "play": "3PzG", "phase": "first-3pzg-activation"} in s.log
    moves = [e for e in s.log if e.get("phase") == "movement"]
    assert moves and all(e["action"] == "done" for e in moves)      # no movement for the 2PzG segment
    assert runner._chit_count(s, "german") == 3                       # 4 on the track, the 3PzG chit played
    assert "3PzG" not in runner._available_chits(s, "german")


def test_turn_8s_german_chit_count_depends_on_the_directive(runner):
    s = runner.new_game(seed=1)
    s.turn = 8
    s.rolled["hitler-directive"] = "hitler-distracted"
    assert runner._chit_count(s, "german") == 3 and runner._chit_count(s, "soviet") == 3
    s.rolled["hitler-directive"] = "objective-moscow"
    assert runner._chit_count(s, "german") == 5
    s.rolled["hitler-directive"] = "guderians-choice"
    assert runner._chit_count(s, "german") == 3
    s.done.add("chosen:objective-moscow")
    assert runner._chit_count(s, "german") == 5


def test_the_9th_army_chit_activates_hqs_and_non_motorized_units_in_range(runner, game):
    s = runner.new_game(seed=1)
    grid = game.map.grid
    s.place("9A", grid.parse_id("2005"))
    s.place("31ID", grid.parse_id("2006"))
    s.place("4Pz", grid.parse_id("2007"))                            # motorized, in range
    s.place("3PzG", grid.parse_id("2008"))                           # an HQ in range
    assert runner.command(s, "9A", ("range",), game.chits["9A"].units) == {"9A", "31ID", "3PzG"}
    assert "4Pz" in runner.command(s, "9A", ("range",))             # an HQ chit without 'units': everyone


def test_the_3rd_panzer_group_chit_links_its_motorized_units_by_gaps_of_3(runner, game):
    """3 d: a chain per corps colour from a commander the German player picks (tests/test_avd_chains.py
    on the game's own counters); here the stand-in's 7Pz (yellow) and 900L (purple)."""
    s = runner.new_game(seed=1)
    grid = game.map.grid
    s.place("3PzG", grid.parse_id("1001"))
    s.place("7Pz", grid.parse_id("1501"))                           # 5 hexes: out of the HQ's range 4
    s.place("900L", grid.parse_id("1301"))                          # 2 from 7Pz, but purple
    assert runner.command_chain(s, "3PzG", "7Pz", "yellow") == {"7Pz"}
    assert runner.command_chain(s, "3PzG", "900L", "purple") == {"900L"}
    assert runner.command(s, "3PzG", ("chain",)) == {"3PzG"}        # the chains start at the commanders


# ------------------------------------------------------------------ what check refuses

def diagnostics(tmp_path, old: str, new: str) -> list[str]:
    from dsl.compiler import check_game
    folder = avd_folder(tmp_path)
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    assert old in text, old
    (folder / "game.hxr").write_text(text.replace(old, new, 1), encoding="utf-8")
    _, diags, _ = check_game(folder)
    return [f"{d.span.line}: {d.message}" for d in diags.items if d.span]


@pytest.mark.parametrize("old,new,message", [
    ("per-turn german = track", "per-turn germans = track", "unknown side 'germans'"),
    ('per-turn german = track("moscow.german-chits")', "per-turn german", "per-turn takes a side and = the number"),
    ("hq-on-map  infantry", "hq-on-map  infantri", "'infantri' is not a unit class, class flag"),
    ("procedure activate; formation 2PzG", "procedure activate; formation 2PG", "no counter belongs to formation '2PG'"),
    ("procedure activate; chit 3PzG", "procedure activate; chit 3PG", "unknown chit '3PG'"),
    ("procedure activate; chit 3PzG", "procedure activate; chit 3PzG; formation 3PzG",
     "activates by chit and formation: an activate phase takes one of chit, formation or hq-class"),
    ("from map to removed by soviet marked isolated", "from map to removed by soviet marked isolatd",
     "'isolatd' is not a unit marker the engine reads"),
    ("lose-source 1517", "lose-source reserve", "'reserve' is not a hex, an area"),
    ("move 1 elite from map to elite-cup", "move 1 elite from mapp to elite-cup", "'mapp' is not a hex, an area"),
    ("  at marker vp-chit\n", "  at marker vp-chip\n", "vp-chip"),
    ("  at hq for brown elite", "  at headquarters for brown elite", "at takes 'marker KIND', 'hq' or 'next-to-hq'"),
    ("  cost hq 2", "  cost hqs 2", "'hqs' is not a unit class"),
    ("  at hq for brown elite\n  at next-to-hq for brown elite\n", "", "per-hq is not used by any rule"),
    ("  cost elite pvo 0 ", "  chit-cost 2 ", "chit-cost"),
    ("to arriving by german upto", "to arriving upto", "'upto' lets the side that picks stop early"),
    ("procedure move; mode normal strategic }\n    phase first-3pzg-combat",
     "procedure move; mode normal strategic; chit 3PzG }\n    phase first-3pzg-combat",
     "'chit' is not used by any rule of a move phase"),
])
def test_check_refuses_what_no_rule_reads_at_its_place(tmp_path, old, new, message):
    found = diagnostics(tmp_path, old, new)
    assert any(message in d for d in found), found


# ------------------------------------------------------------------ supply (补给)

def test_the_soviet_source_1517_is_lost_when_the_pocket_ends(runner, game):
    from runtime.supply import in_supply, sources_of
    s = runner.new_game(seed=1)
    h1517 = game.map.grid.parse_id("1517")
    assert h1517 in sources_of(runner.board, s, "soviet")
    # 13A stands on 1517; German units around the hexes east of it cut it off from the east edge
    ring = [n for n in h1517.neighbours() if n in game.map.hexes]
    for uid, n in zip(("4Pz", "10Pz", "7Pz", "900L", "31ID", "250ID"), ring):
        s.place(uid, n)
    assert in_supply(game, runner.board, s, "13A")                   # its own hex is a source
    s.turn = 4
    runner.run_effects(s, "event:minsk-ends", "Minsk Pocket ends")
    assert h1517 not in sources_of(runner.board, s, "soviet")
    assert not in_supply(game, runner.board, s, "13A")
    assert {"turn": 4, "effect": "1517 is no longer a supply source", "why": "Minsk Pocket ends"} in s.log


@pytest.mark.parametrize("option,unit,isolated,box", [
    ("disband-isolated", "28RD", True, "removed"),
    ("disband-brown", "28RD", False, "pool:reserve"),
    ("disband-red", "1MRD", False, "pool:elite-cup"),
])
def test_a_disbanded_soviet_unit_goes_where_its_kind_says(runner, game, option, unit, isolated, box):
    s = runner.new_game(seed=1)
    if unit == "1MRD":
        s.place("1MRD", game.map.grid.parse_id("2012"))
    if isolated:
        s.mark(unit, "isolated")
    runner.run_effects(s, "trigger:supply-check", "HQ relocation (4 j) and Soviet disbanding (4 k)")
    s = past_relocation(runner, s)
    s = runner.apply(s, Choose(option))
    ask = s.effects[0]["ask"]
    assert unit in ask["units"] and "PVO1" not in ask["units"] and not any(
        "hq" in game.unit_classes[game.counters[u].unit_class].flags for u in ask["units"])
    assert all(("isolated" in s.units[u].markers) == isolated for u in ask["units"])
    s = runner.apply(s, Take(unit))
    assert s.units[unit].box == box and s.units[unit].hex is None and unit not in s.lost


def past_relocation(runner, s):
    """Both sides leave their HQs where they are (4 j), up to the disbanding (4 k)."""
    while runner.effect_asks(s) and runner.effect_asks(s)["decision"] == "relocate":
        s = runner.apply(s, "done")
    return s


# ------------------------------------------------------------------ HQ relocation at the supply check (补给 4 j)

def relocation_board(runner, game):
    """13A alone at 1012, a division 28RD at 1712 (out of its range); 4Pz at
    1011 (its ZOC covers 1012's neighbours); the Soviet line runs to 1517."""
    s = overrun_board(runner, game)
    s.phase, s.active = "", ""
    s.place("28RD", game.map.grid.parse_id("1712"))
    return s


def test_at_the_supply_check_every_hq_may_be_relocated_as_4_f_displaces_it(runner, game):
    from runtime.actions import Displace
    from runtime.supply import supply_map
    grid = game.map.grid
    s = relocation_board(runner, game)
    before = supply_map(game, runner.board, s, "soviet")[grid.parse_id("1012")]
    runner.run_effects(s, "trigger:supply-check", "HQ relocation (4 j) and Soviet disbanding (4 k)")
    ask = runner.effect_asks(s)       # no German HQ is on the map: the Soviets are asked first
    assert ask["decision"] == "relocate" and ask["side"] == "soviet" and runner.to_move(s) == "soviet"
    acts = runner.legal_actions(s)
    moves = [a for a in acts if isinstance(a, Displace)]
    assert acts[-1] == Done() and moves and {a.unit for a in moves} == {"13A"}
    lines = supply_map(game, runner.board, s, "soviet")
    for a in moves:
        h = grid.parse_id(a.to)
        assert lines[h] <= before - 4                                   # 4 f i: 4 hexes toward supply
        assert s.units["4Pz"].hex.distance(h) > 1                        # 4 f ii: not in enemy ZOC
    s.mark("13A", "isolated")
    s2 = runner.apply(s, moves[-1])                                     # the owner's choice, not the nearest
    assert s2.units["13A"].hex == grid.parse_id(moves[-1].to)
    assert "isolated" not in s2.units["13A"].markers                    # 4 f iii: the new hex is in supply
    assert runner.effect_asks(s2)["decision"] == "choose"               # 4 k comes next
    assert {"turn": 1, "side": "soviet", "action": str(moves[-1])} in s2.log


def test_an_hq_its_owner_does_not_relocate_stays(runner, game):
    grid = game.map.grid
    s = relocation_board(runner, game)
    runner.run_effects(s, "trigger:supply-check", "HQ relocation (4 j) and Soviet disbanding (4 k)")
    s2 = runner.apply(s, "done")
    assert s2.units["13A"].hex == grid.parse_id("1012") and runner.effect_asks(s2)["decision"] == "choose"


def test_a_relocation_the_rule_does_not_allow_is_refused_with_the_hexes_it_allows(runner, game):
    s = relocation_board(runner, game)
    runner.run_effects(s, "trigger:supply-check", "HQ relocation (4 j) and Soviet disbanding (4 k)")
    with pytest.raises(Exception, match="13A cannot be relocated to 1013: it may go to "):
        runner.apply(s, "displace 13A 1013")
    with pytest.raises(Exception, match="28RD cannot be relocated: soviet may relocate 13A"):
        runner.apply(s, "displace 28RD 1515")


def test_both_sides_relocate_the_germans_first(runner, game):
    grid = game.map.grid
    s = relocation_board(runner, game)
    s.place("9A", grid.parse_id("2505"))
    runner.run_effects(s, "trigger:supply-check", "HQ relocation (4 j) and Soviet disbanding (4 k)")
    assert runner.effect_asks(s)["side"] == "german" and runner.effect_asks(s)["units"] == ["9A"]
    s = runner.apply(s, "done")
    assert runner.effect_asks(s)["side"] == "soviet"


def test_the_greedy_bot_relocates_an_hq_only_where_it_commands_more_units(runner, game):
    from runtime.actions import Displace
    from runtime.bots import GreedyBot
    grid = game.map.grid
    s = relocation_board(runner, game)
    runner.run_effects(s, "trigger:supply-check", "HQ relocation (4 j) and Soviet disbanding (4 k)")
    pick = GreedyBot(1).choose(runner, s)                  # 13A commands nobody at 1012; 28RD stands at 1712
    assert isinstance(pick, Displace) and grid.parse_id(pick.to).distance(grid.parse_id("1712")) <= 4
    s.place("28RD", grid.parse_id("1013"))                 # now it commands 28RD where it stands
    s.effects = []
    runner.run_effects(s, "trigger:supply-check", "HQ relocation (4 j) and Soviet disbanding (4 k)")
    far = [a for a in runner.legal_actions(s) if isinstance(a, Displace)
           and grid.parse_id(a.to).distance(grid.parse_id("1013")) > 4]
    assert far and GreedyBot(1).choose(runner, s) not in far


def test_turn_7_under_hitler_distracted_the_germans_withdraw_4_motorized_units(runner, game):
    s = runner.new_game(seed=1)
    s.turn = 7
    s.rolled["hitler-directive"] = "hitler-distracted"
    runner.run_effects(s, "event:distracted", "Hitler Distracted")
    ask = s.effects[0]["ask"]
    assert ask["side"] == "german" and ask["left"] == 4 and set(ask["units"]) == {"4Pz", "10Pz", "7Pz", "900L"}
    for u in ("4Pz", "10Pz", "7Pz", "900L"):
        s = runner.apply(s, Take(u))
    assert all(s.units[u].box == "removed" for u in ("4Pz", "10Pz", "7Pz", "900L")) and not s.lost
    s2 = runner.new_game(seed=1)
    s2.turn, s2.rolled["hitler-directive"] = 7, "objective-moscow"
    runner.run_effects(s2, "event:distracted", "Hitler Distracted")
    assert not s2.effects


# ------------------------------------------------------------------ reinforcements (增援)

def to_soviet_purchase(runner, turn: int = 2):
    """The state as the Reinforcements chit is drawn on ``turn``: the Soviets buy first."""
    s = runner.new_game(seed=1)
    s.turn = turn
    s.pc = next(i for i, st in enumerate(runner.program) if st.kind == "proc"
                and st.phase.procedure == "activate" and not st.phase.params)
    s.step = {"chit": "Reinf"}
    runner.run_effects(s, "chit:Reinf", "Reinforcements drawn")
    while s.effects:                                  # the pocket: hold; the "*" units: the first offered
        ask = s.effects[0]["ask"]
        if ask["decision"] == "choose":  # hold the pocket; on turn 4 no 9th Army chit
            s = runner.apply(s, Choose("hold" if "hold" in ask["options"] else
                                       next(o for o in ask["options"] if o.startswith("no-"))))
        else:
            s = runner.apply(s, Take(ask["units"][0]))
    if not s.step.get("decision"):                    # (answering the effects ran the activation already)
        runner._proc_activate(s, runner.program[s.pc].phase)
    while s.step.get("decision") == "place" and s.step["side"] != "soviet":
        s = runner.apply(s, "done")
    return s


def test_soviet_points_buy_units_for_1_hqs_for_2_and_chits_for_1(runner, game):
    s = to_soviet_purchase(runner, turn=2)             # the track gives 4 points on turn 2
    assert s.step["decision"] == "place" and s.step["side"] == "soviet" and s.step["points"] == 4
    assert {"1MRD", "101TD"} & set(s.step["units"])    # the turn's elite division joined the reserve
    assert runner.unit_cost("19A") == 2 and runner.unit_cost("50RD") == 1 and runner.unit_cost("PVO2") == 0
    acts = {str(a) for a in runner.legal_actions(s)}
    assert "choose 13A" in acts and "choose Tim" not in acts            # Timoshenko is not on the map
    s = runner.apply(s, "choose 13A")
    assert s.step["points"] == 3 and s.cup.count("13A") == 1
    s = runner.apply(s, "place 19A 3810")                                # an HQ on a star hex with a VP chit
    assert s.step["points"] == 1 and s.units["19A"].hex == game.map.grid.parse_id("3810")
    s = runner.apply(s, "place 50RD 2515")                               # beside 20A (2515)
    assert s.step["points"] == 0                                          # only the free units are left to place
    assert {a.unit for a in runner.legal_actions(s) if hasattr(a, "unit")} <= {"101TD", "107TD", "1MRD", "PVO2", "PVO3"}


def test_a_chit_played_this_turn_cannot_be_bought_back_into_the_cup(runner):
    """增援 5 d iii: 1 point puts "地图上有对应 HQ 的指挥旗" into the cup: a chit not chosen for it (指挥旗选择 3: in
    the Unused Command Chits box). A chit drawn this turn lies face up in the Played Chits box (抽取 2) and is
    not bought back for a second activation; one an interrupt sent back is in the cup already."""
    s = to_soviet_purchase(runner, turn=2)
    buyable = {str(a) for a in runner.legal_actions(s) if str(a).startswith("choose ")}
    assert {"choose 13A", "choose 16A"} <= buyable
    s.log.append({"turn": 2, "draw": "13A", "left": 5})                 # 13A was drawn and played this turn
    s.log.append({"turn": 2, "draw": "16A", "left": 4})
    s.log.append({"turn": 2, "interrupt": "2PzG", "returned": "16A"})   # Guderian sent 16A back into the cup
    s.cup.append("16A")
    buyable = {str(a) for a in runner.legal_actions(s) if str(a).startswith("choose ")}
    assert "choose 13A" not in buyable and "choose 16A" not in buyable
    s.cup.remove("16A")                                                 # drawn again and played
    s.log.append({"turn": 2, "draw": "16A", "left": 3})
    assert "choose 16A" not in {str(a) for a in runner.legal_actions(s)}
    s.log.append({"turn": 3, "draw": "Supply", "left": 8})               # the next turn: both may be bought
    s.turn = 3
    assert {"choose 13A", "choose 16A"} <= {str(a) for a in runner.legal_actions(s)}


def test_a_reserve_armys_hq_bought_onto_the_map_has_its_chit(full_game):
    """指挥旗选择 2: "如果对应的 HQ 还在地图上, 则该指挥旗'可用'"; 增援 5 d iii: 1 point puts the chit of an
    HQ on the map into the cup. The Reserve Front's HQs (24A-32A, "R") start in the Soviet Reserve Box."""
    r = Runner(full_game)
    s = r.new_game(seed=1)
    reserve_hqs = {"24A", "28A", "29A", "30A", "31A", "32A"}
    assert {s.units[h].box for h in reserve_hqs} == {"pool:reserve"}
    assert not reserve_hqs & set(r._available_chits(s, "soviet")) and not reserve_hqs & set(r.buyable_chits(s, "soviet"))
    s.place("24A", s.units["16A"].hex)                    # bought onto a star hex
    assert "24A" in r._available_chits(s, "soviet") and "24A" in r.buyable_chits(s, "soviet")
    assert "28A" not in r._available_chits(s, "soviet")


def test_a_unit_bought_onto_an_empty_star_hex_draws_a_victory_chit(runner, game):
    """5 e ii 3 c: "如果是空的'五星'格, 苏军玩家就从胜分池内抽一个 VP 面朝上放在对应格内" (20A stands on
    Yelnya, 2515, an empty star hex of the stand-in map)."""
    s = to_soviet_purchase(runner, turn=2)
    P = game.map.grid.parse_id
    assert not any(m["kind"] == "vp-chit" and m["hex"] == P("2515") for m in s.markers)
    in_box = sum(1 for m in s.markers if m["kind"] == "vp-chit" and m["box"] == "pool:victory-chits")
    s = runner.apply(s, "place 50RD 2515")
    chit = [m for m in s.markers if m["kind"] == "vp-chit" and m["hex"] == P("2515")]
    assert len(chit) == 1 and chit[0]["face"] == "up"
    assert sum(1 for m in s.markers if m["kind"] == "vp-chit" and m["box"] == "pool:victory-chits") == in_box - 1


def test_where_bought_units_may_be_placed(runner, game):
    s = to_soviet_purchase(runner, turn=2)
    ids = lambda uid: {runner.board.hex_id(h) for h in runner.placement_hexes(s, uid)}  # noqa: E731
    hq_hexes = ids("19A")
    assert hq_hexes == {"3810"}                      # HQs: star hexes holding a VP chit (2010 holds 16A: below)
    assert ids("PVO2") <= {"2010", "3810"}           # PVO too
    rifle = ids("50RD")
    assert "2515" in rifle and "2514" in rifle                           # 20A's hex and a hex beside it


def test_bought_and_escaped_units_are_placed_within_the_stacking_limits(runner, game):
    """堆叠 2 a: "每格最多 2 格部队 1 个 HQ"; b: "任意 2 个褐色部队不能互相堆叠"; d: "在增援进场移动时
    必须遵循限制". The star hex 2010 holds the HQ 16A and the brown 28RD."""
    s = to_soviet_purchase(runner, turn=2)
    ids = lambda uid: {runner.board.hex_id(h) for h in runner.placement_hexes(s, uid)}  # noqa: E731
    assert "2010" not in ids("19A")                  # a second HQ
    assert "2010" not in ids("50RD") and "2011" not in ids("50RD")   # a second brown unit (28RD, 38RD)
    assert "2010" in ids("101TD")                    # a red (elite) unit may join 28RD
    acts = {str(a) for a in runner.legal_actions(s)}
    assert "place 50RD 2010" not in acts and "place 19A 2010" not in acts and "place 101TD 2010" in acts
    s = runner.apply(s, "place 101TD 2010")          # now two units: no third
    assert "2010" not in ids("PVO2")


def test_one_star_unit_per_hq(runner, game):
    s = to_soviet_purchase(runner, turn=4)
    assert "120RD" in s.step["units"] or "121RD" in s.step["units"]      # 1d6 "*" units joined the reserve
    star = sorted(u for u in s.step["units"] if game.counters[u].unit_class == "star-rifle")
    if len(star) < 2:
        pytest.skip("one * unit came in")
    s = runner.apply(s, f"place {star[0]} 2514")                          # beside 20A at 2515
    beside_20a = {runner.board.hex_id(h) for h in runner.placement_hexes(s, star[1])}
    assert "2514" not in beside_20a and "2515" not in beside_20a
    assert "2515" in {runner.board.hex_id(h) for h in runner.placement_hexes(s, "50RD")}


# ------------------------------------------------------------------ movement (移动)

def test_no_major_river_crossing_when_both_banks_are_in_enemy_zoc_even_by_a_bridge(runner, game):
    from runtime.movement import move_range
    grid = game.map.grid
    s = runner.new_game(seed=1)
    for u in ("16A", "28RD", "38RD"):
        s.place(u, None, "removed")
    s.place("4Pz", grid.parse_id("2009"))              # 2009/2010 is a bridged major river (a road crosses it)
    s.place("28RD", grid.parse_id("2011"))             # 2010 in a Soviet ZOC
    h2009, h2010 = grid.parse_id("2009"), grid.parse_id("2010")
    r = move_range(game, runner.board, s, "4Pz")
    assert r.path_to(h2010) == [h2009, h2010]           # straight over the bridge
    s.place("38RD", grid.parse_id("2008"))             # and 2009 too: both banks
    r = move_range(game, runner.board, s, "4Pz")
    assert h2010 not in r.destinations or r.path_to(h2010)[-2] != h2009   # only around, not across


# ------------------------------------------------------------------ turn end (回合结束)

def test_an_hq_with_no_friendly_unit_in_range_is_removed_at_the_end_of_the_turn(runner, game):
    s = runner.new_game(seed=1)
    s.place("22A", game.map.grid.parse_id("4001"))         # far from every Soviet unit
    runner.run_effects(s, "trigger:hq-removal", "turn end")
    assert s.units["22A"].box == "removed" and "22A" not in s.lost
    assert s.units["16A"].hex is not None                   # 28RD stands with it
    assert s.units["2PzG"].hex is not None                  # its panzer divisions are in range


def test_stacking_two_units_one_hq_and_never_two_brown_units(runner, game):
    s = runner.new_game(seed=1)
    from runtime.movement import move_range
    h2011 = game.map.grid.parse_id("2011")
    assert s.units["38RD"].hex == h2011
    s.place("50RD", game.map.grid.parse_id("2012"))
    assert h2011 not in move_range(game, runner.board, s, "50RD").destinations   # 38RD is brown too


def test_strategic_movement_follows_roads_at_a_third_and_never_enters_a_vp_star(runner, game):
    from runtime.movement import move_range
    grid = game.map.grid
    s = runner.new_game(seed=1)
    for u in ("4Pz", "10Pz"):
        s.place(u, None, "removed")
    s.place("31ID", grid.parse_id("3106"))
    r = move_range(game, runner.board, s, "31ID", "strategic")
    assert grid.parse_id("2906") in r.destinations and r.cost[grid.parse_id("2906")] == r.mp // 6  # 2 road hexes: 2/3 MP
    assert grid.parse_id("2806") not in r.cost and grid.parse_id("2706") not in r.cost   # Krupki is a VP star
    assert grid.parse_id("2806") in move_range(game, runner.board, s, "31ID").destinations   # a normal move may


# ------------------------------------------------------------------ overrun and HQ displacement (移动 4 e-f)

def overrun_board(runner, game):
    """A German move in the movement phase: 4Pz at 1013, the Soviet 13A HQ alone
    at 1012; the Soviet line runs to the source at 1517 (the stand-in's only one)."""
    grid = game.map.grid
    s = runner.new_game(seed=1)
    for u in s.units.values():
        if u.hex is not None:
            s.place(u.id, None, "removed")
    s.phase, s.active, s.activated = "movement", "german", set()
    s.place("4Pz", grid.parse_id("1011"))
    s.place("13A", grid.parse_id("1012"))
    return s


def test_a_unit_overruns_a_lone_hq_which_moves_4_hexes_toward_its_supply(runner, game):
    from runtime.actions import Move
    from runtime.supply import supply_map
    grid = game.map.grid
    s = overrun_board(runner, game)
    before = supply_map(game, runner.board, s, "soviet")[grid.parse_id("1012")]
    s2 = runner.engine.apply(s, Move("4Pz", "1013"))            # through the HQ's hex, on beyond it
    assert s2.units["4Pz"].hex == grid.parse_id("1013")
    # 4 f: the Soviet player chooses where 13A goes, among the hexes that qualify
    assert s2.pending[0]["kind"] == "displace" and runner.to_move(s2) == "soviet"
    options = runner.engine.legal_actions(s2)
    assert len(options) > 1 and all(str(a).startswith("displace 13A ") for a in options)
    entry = next(e for e in s2.log if e.get("action", "").startswith("move 4Pz"))
    assert entry["overrun"] == {"13A": "its owner chooses"}
    lines = supply_map(game, runner.board, s2, "soviet")
    for a in options:
        h = grid.parse_id(a.to)
        assert lines[h] <= before - 4                            # 4 f i: at least 4 hexes toward supply
        assert s2.units["4Pz"].hex.distance(h) > 1               # 4 f ii: not in enemy ZOC
    s3 = runner.engine.apply(s2, options[-1])                    # not the nearest: the owner's choice
    assert s3.units["13A"].hex == grid.parse_id(options[-1].to) and not s3.pending
    assert s3.control[grid.parse_id("1012")] == "german"
    with pytest.raises(Exception, match="13A is displaced toward its supply: choose one of"):
        runner.engine.apply(s2, "displace 13A 1012")


def test_the_greedy_bot_displaces_its_hq_where_it_commands_the_most_units(runner, game):
    from runtime.actions import Move
    from runtime.bots import GreedyBot
    grid = game.map.grid
    s = runner.engine.apply(overrun_board(runner, game), Move("4Pz", "1013"))
    options = runner.engine.legal_actions(s)
    far = grid.parse_id(options[-1].to)                           # its division stands by the farthest choice
    s.place("28RD", next(n for n, _ in runner.board.adj[far] if not s.units_at(n)))
    pick = GreedyBot(1).choose(runner, s)
    assert pick == options[-1] or grid.parse_id(pick.to).distance(s.units["28RD"].hex) <= 4
    assert str(GreedyBot(1).choose(runner, runner.engine.apply(overrun_board(runner, game), Move("4Pz", "1013")))) \
        == str(options[0])                                        # nobody to command: the nearest hex


def test_an_overrun_hq_with_no_hex_toward_supply_is_eliminated(runner, game):
    from runtime.actions import Move
    grid = game.map.grid
    s = overrun_board(runner, game)
    s.place("10Pz", grid.parse_id("1517"))                        # the Soviet source is taken: no line
    s2 = runner.engine.apply(s, Move("4Pz", "1012"))
    assert s2.units["13A"].hex is None and "13A" in s2.lost       # 4 f iv
    assert s2.units["4Pz"].hex == grid.parse_id("1012")


def test_an_hq_cannot_overrun_and_a_stack_with_a_combat_unit_is_not_lone(runner, game):
    from runtime.movement import move_range
    grid = game.map.grid
    s = overrun_board(runner, game)
    s.place("2PzG", grid.parse_id("1010"))
    assert grid.parse_id("1012") not in move_range(game, runner.board, s, "2PzG").cost   # HQs do not overrun
    assert grid.parse_id("1012") in move_range(game, runner.board, s, "4Pz").destinations
    s.place("28RD", grid.parse_id("1012"))                        # the HQ is no longer alone
    assert grid.parse_id("1012") not in move_range(game, runner.board, s, "4Pz").cost


@pytest.mark.parametrize("old, new, message", [
    ("overrun hq by panzer infantry rifle star-rifle elite displace 4",
     "overrun hq panzer displace 4", "overrun takes the units overrun, 'by' the units"),
    ("overrun hq by panzer infantry rifle star-rifle elite displace 4",
     "overrun hq by panzer displace 0", "displace must be 1 to 99, not 0"),
    ("overrun hq by panzer infantry rifle star-rifle elite displace 4",
     "overrun hq by tanks displace 4", "tanks"),
])
def test_check_refuses_a_malformed_overrun(tmp_path, old, new, message):
    assert any(message in d for d in diagnostics(tmp_path, old, new))


@pytest.mark.parametrize("old, new, message", [
    ("relocate all hq by german", "relocate all hq", "'relocate' needs 'by ...'"),
    ("relocate all hq by german", "relocate all hq by germans", "unknown side 'germans'"),
    ("relocate all hq by german", "relocate all hq by german random", "'relocate' takes no 'random'"),
    ("relocate all hq by german", "relocate all hqs by german", "unknown unit selector 'hqs'"),
    ("  overrun hq by panzer infantry rifle star-rifle elite displace 4\n", "",
     "relocate needs the movement's overrun rule"),
])
def test_check_refuses_a_malformed_relocation(tmp_path, old, new, message):
    assert any(message in d for d in diagnostics(tmp_path, old, new))
