"""A Victory Denied's combat items in games/a-victory-denied itself (the
mechanisms are tested on tests/games/avd-combat): the ART chit from turn 2
(6 a) granting d6/2 fire attacks, the rocket and the bomber once a game,
3 Stukas in the Luftwaffe Airfields Box (4 a viii-ix) that the Luftwaffe
chit brings back (7 a), row 10's elite draw (3 c ii-iii), and the German
sudden death in Moscow (移动 1 e), which the Soviet greedy bot guards."""
from __future__ import annotations

import pytest

from dsl.compiler import compile_game
from runtime.bots import GreedyBot, play
from runtime.runner import Runner

from helpers import ROOT

RULES = ROOT / "games" / "a-victory-denied"


@pytest.fixture(scope="module")
def game():
    return compile_game(RULES)


@pytest.fixture(scope="module")
def greedy_game(game):
    r = Runner(game)
    s, _ = play(r, r.new_game(seed=1), {"german": GreedyBot(1), "soviet": GreedyBot(2)})
    return s


def test_the_stukas_wait_in_the_airfields_and_row_10_draws_from_the_elite_cup(game):
    s = Runner(game).new_game(seed=1)
    assert sorted(u for u, x in s.units.items() if x.box == "pool:airfields") == ["Stuka1", "Stuka2", "Stuka3"]
    assert all(s.units[u].hex is None for u in ("Stuka1", "Stuka2", "Stuka3"))
    stuka = game.battle_options["stuka"]
    assert stuka.shift == 2 and stuka.side == "german"
    assert (stuka.from_pool, stuka.to_pool) == ("airfields", "used-air")
    assert [e.verb for e in game.effects["result:avd:RED"]] == ["join", "reroll"]


def test_a_greedy_game_plays_to_its_end_with_purchases_and_the_ninth_armys_arrival(greedy_game):
    s = greedy_game
    assert s.result["winner"] in ("german", "soviet", "draw")
    assert any(e.get("bought") for e in s.log) and any(e.get("arrival") == "ninth-army" for e in s.log)


def test_a_greedy_game_uses_artillery_from_turn_2_stukas_and_the_bomber_once(greedy_game):
    log = greedy_game.log
    draws = [(e["turn"], e["draw"]) for e in log if isinstance(e.get("draw"), str)]
    assert ("ART" in {d for t, d in draws if t >= 2}) and not any(d == "ART" for t, d in draws if t == 1)
    assert any(d == "Luftwaffe" for t, d in draws)
    fires = [e for e in log if str(e.get("action", "")).startswith("fire ")]
    assert fires and all(e["side"] == ("german" if e["action"].startswith("fire bomber") else "soviet")
                         for e in fires)
    assert sum(e["action"].startswith("fire bomber") for e in fires) <= 1       # once a game
    assert sum(e["action"].startswith("fire rocket") for e in fires) <= 1
    art = [e for e in fires if e["action"].startswith("fire artillery")]
    assert art and all(e["column"] in ("3-1", "2-1", "1.5-1", "1-1") for e in art)  # 3-1, terrain to the left
    used = [e for e in log if e.get("option") == "stuka"]
    assert used and all(e["side"] == "german" and e["shift"] == 2 for e in used)
    # a used Stuka goes to the used box, and the Luftwaffe chit brings one back
    assert any(str(e.get("effect", "")).endswith("to airfields") and "Luftwaffe" in e.get("why", "") for e in log)


def test_a_german_unit_entering_moscow_wins_at_once(game):
    r = Runner(game)
    s = r.new_game(seed=1)
    s.place("4Pz", game.map.grid.parse_id("4142"))
    r.checkpoint(s, "enter", hex="4142", side="german")
    assert s.result is not None and s.result["winner"] == "german"
    assert "Moscow" in s.result["why"]


def test_a_soviet_unit_in_moscow_wins_nothing(game):
    r = Runner(game)
    s = r.new_game(seed=1)
    s.place("28RD", game.map.grid.parse_id("4142"))
    r.checkpoint(s, "enter", hex="4142", side="soviet")
    assert s.result is None


def test_the_soviet_greedy_bot_guards_moscow_however_far_the_germans_are(game):
    r = Runner(game)
    s = r.new_game(seed=1)
    moscow = game.map.grid.parse_id("4142")
    bot = GreedyBot(1)
    assert bot._objectives(r).enemy_sudden("soviet") == (moscow,)
    edge = tuple(game.map.grid.parse_id(h) for h in ("2701", "2801", "2901"))
    assert bot._objectives(r).enemy_sudden("german") == edge   # 移动 1 d: the Minsk Pocket's map edge
    assert moscow in bot.goals(r, s, "soviet", reach=2)            # nobody's yet, 30 hexes from any German
    s.place("28RD", moscow)
    assert moscow not in bot.goals(r, s, "soviet", reach=2)        # held: the unit there guards it
    assert "28RD" in bot._guards(r, s, "soviet", reach=2)


def test_both_sides_play_for_the_star_hexes_their_enter_triggers_name(game):
    from runtime.objectives import entry_places, victory_objectives
    r = Runner(game)
    stars = {h for h, mh in game.map.hexes.items() if {"minor-vp", "major-vp"} & set(mh.features)
             or mh.terrain in ("minor-vp", "major-vp")}
    places = entry_places(r)
    assert places["soviet"] == stars                       # vp-draw: any star hex (移动 1 g)
    s = r.new_game(seed=1)
    chits = {m["hex"] for m in s.markers if m["kind"] == "vp-chit" and m["hex"] is not None}
    assert places["german"] == chits and chits <= stars    # vp-return: the stars set up with a chit (移动 1 h)
    aims = victory_objectives(r)
    edge = {game.map.grid.parse_id(h) for h in ("2701", "2801", "2901")}
    assert set(aims.places["soviet"]) == stars | edge      # and the Minsk Pocket's map edge (移动 1 d)
    assert set(aims.places["german"]) == chits | {game.map.grid.parse_id("4142")}   # and Moscow (移动 1 e)


def test_the_victory_chits_are_drawn_by_colour_onto_the_stars_face_down(game):
    r = Runner(game)
    gold = set(game.map.areas["gold-stars"])
    silver = set(game.map.areas["silver-stars"])
    layouts = set()
    for seed in range(6):
        s = r.new_game(seed=seed)
        chits = [m for m in s.markers if m["kind"] == "vp-chit"]
        on = {m["hex"]: m["value"] for m in chits if m["hex"] is not None}
        box = sorted(m["value"] for m in chits if m["box"] == "pool:victory-chits")
        assert set(on) == (gold | silver) - {game.map.grid.parse_id("3709"), game.map.grid.parse_id("2204")}
        assert all(2 <= on[h] <= 4 for h in on if h in gold) and all(on[h] <= 2 for h in on if h in silver)
        assert sorted(list(on.values()) + box) == sorted([4] + [3] * 4 + [2] * 3 + [2] * 3 + [1] * 8)
        assert len(box) == 5 and all(m["face"] == "down" for m in chits)
        for side in ("german", "soviet"):                      # nobody sees a value at the start
            assert all(m["value"] is None for m in r.observe(s, side).markers if m["kind"] == "vp-chit")
        layouts.add(tuple(sorted(on.items())))
    assert len(layouts) > 1


def test_hexforge_odds_shows_the_d6_and_d10_and_notes_only_modifiers_that_could_apply(capsys):
    import os

    from dsl import cli
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        assert cli.main(["odds", "games/a-victory-denied", "--attack", "12", "--defense", "3", "--side", "soviet"]) == 0
        soviet = capsys.readouterr().out
        assert cli.main(["odds", "games/a-victory-denied", "--attack", "12", "--defense", "3", "--side", "german",
                         "--turn", "1", "--use", "stuka", "--terrain", "town"]) == 0
        german = capsys.readouterr().out
        assert cli.main(["odds", "games/a-victory-denied", "--fire", "artillery", "--defense", "3",
                         "--terrain", "city"]) == 0
        fire = capsys.readouterr().out
    finally:
        os.chdir(old)
    assert "(odds, d10)" in soviet and "RED    10.0%" in soviet          # row 10 only on the Soviet d10
    assert "Minsk Pocket escapees" in soviet and "turn 1" not in soviet  # a German-only shift is not even noted
    assert "(odds, d6)" in german and "RED" not in german
    assert "turn 1: all German attacks" in german and "Stuka" in german and "final column: 7-1" in german
    assert "note: not counted" not in german                           # the Minsk DRM is Soviet-only
    assert "fires on: 3-1" in fire and "final column: 1.5-1" in fire and "note: not counted" not in fire


def test_the_greedy_german_releases_the_minsk_pocket_without_risking_a_victory_chit(greedy_game):
    # Minsk Escape Table: C (all escape, a victory chit captured) on a die of 1 in the 8-12 column and
    # 1-3 in the 13+ column, +1 on turn 2, +3 on turn 3: the greedy German releases in time, in parts
    rolls = [(e["turn"], e["input"]) for e in greedy_game.log if e.get("table") == "minsk-escape"]
    assert rolls and sum(points for _, points in rolls) >= 8
    assert all(points <= 7 if turn == 1 else points <= 12 if turn == 2 else True for turn, points in rolls)
