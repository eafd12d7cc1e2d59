"""The greedy bot's care for the units whose loss gives the enemy VP, read
from the victory rules (A Victory Denied: each eliminated German motorized
unit is worth 4 or 6 VP to the Soviets), on the rules' stand-in board."""
from __future__ import annotations

import pytest

from dsl.compiler import compile_game
from runtime.actions import Advance, Done, LoseStep
from runtime.bots import GreedyBot
from runtime.decisions import Take
from runtime.objectives import victory_objectives
from runtime.runner import Runner

from helpers import ROOT
from test_avd_rules import avd_folder


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    return compile_game(avd_folder(tmp_path_factory.mktemp("avd-bot")))


@pytest.fixture
def runner(game):
    return Runner(game)


@pytest.fixture(scope="module")
def nearer(tmp_path_factory):
    """The rules with every retreat hex nearer supply (toward supply): the
    ways back are the two hexes the case names."""
    from test_avd_retreat import nearer_only
    return compile_game(nearer_only(avd_folder(tmp_path_factory.mktemp("avd-bot-nearer"))))


def empty_board(runner, game):
    """Every unit off the map; the German player moves."""
    s = runner.new_game(seed=1)
    for u in s.units.values():
        if u.hex is not None:
            s.place(u.id, None, "removed")
    s.phase, s.active, s.activated = "movement", "german", set()
    return s


def test_the_victory_rules_say_which_losses_give_the_enemy_vp(runner):
    # 胜负结算: 4 (Hitler Distracted) or 6 (Objective Moscow!) VP per German motorized unit
    assert victory_objectives(runner).costly == {"german": {"motorized": 6.0}, "soviet": {}}
    # Smolensk 15.5(6) takes VP from the Axis for its own units removed
    # (- 3 * eliminated(axis, "mechanized"), - eliminated(axis, "non-mechanized")):
    # a loss that costs the side's own VP is as costly as one that gives the enemy VP
    smolensk = Runner(compile_game(ROOT / "games" / "smolensk"))
    assert victory_objectives(smolensk).costly == {"axis": {"mechanized": 3.0, "non-mechanized": 1.0},
                                                   "soviet": {}}
    assert GreedyBot(0)._costly(smolensk, "3Pz") == 3.0 and GreedyBot(0)._costly(smolensk, "31ID") == 1.0


def test_a_step_loss_spares_the_last_step_of_a_motorized_unit(runner, game):
    bot = GreedyBot(1)
    s = empty_board(runner, game)
    h = game.map.grid.parse_id("2806")
    s.place("4Pz", h)
    s.place("31ID", h)
    s.set_unit("4Pz", step=1)                                       # 3-2-8: its next loss eliminates it
    assert bot._lose(runner, s, [LoseStep("4Pz"), LoseStep("31ID")], "german") == LoseStep("31ID")
    s.set_unit("4Pz", step=0)                                       # 6-4-8 -> 3-2-8 costs 5, 4-4 -> 2-4 costs 2
    assert bot._lose(runner, s, [LoseStep("4Pz"), LoseStep("31ID")], "german") == LoseStep("31ID")


def test_its_own_units_taken_out_of_the_game_are_the_weakest(runner, game):
    # turn 7, Hitler Distracted: the German player removes 4 motorized units
    bot = GreedyBot(1)
    s = empty_board(runner, game)
    for uid, at in (("4Pz", "2806"), ("10Pz", "2807"), ("900L", "2808")):
        s.place(uid, game.map.grid.parse_id(at))
    s.set_unit("10Pz", step=1)
    takes = [Take("4Pz"), Take("10Pz"), Take("900L")]
    ask = {"decision": "take", "side": "german", "units": ["4Pz", "10Pz", "900L"], "left": 1, "to": "removed"}
    assert bot._effect(runner, s, takes, "german", ask) == Take("10Pz")   # 3-2-8 before 3-3-8 and 6-4-8
    assert bot._effect(runner, s, takes, "german", dict(ask, to="arriving")) == Take("4Pz")


def test_a_motorized_unit_sees_where_a_retreat_would_cost_its_last_step(nearer):
    # 撤退 6 g: a step lost per enemy-ZOC hex entered; the hexes toward supply (3106) are 2906 and 2907
    game, runner = nearer, Runner(nearer)
    bot = GreedyBot(1)
    grid = game.map.grid
    s = empty_board(runner, game)
    h = grid.parse_id("2806")
    s.place("4Pz", h)
    s.set_unit("4Pz", step=1)
    assert not bot._trapped(runner, s, h, "german", "4Pz")        # no enemy near: nothing to fear
    s.place("28RD", grid.parse_id("2805"))
    assert not bot._trapped(runner, s, h, "german", "4Pz")        # 2906 and 2907 are free of its ZOC
    s.place("38RD", grid.parse_id("2907"))
    assert bot._trapped(runner, s, h, "german", "4Pz")            # every way back enters its ZOC
    s.set_unit("4Pz", step=0)
    assert not bot._trapped(runner, s, h, "german", "4Pz")        # 6-4-8 lives through one step lost
    s.set_unit("4Pz", step=1)
    s.place("4Pz", grid.parse_id("2706"))                        # after combat, it could advance into 2806
    s.pending = [{"kind": "advance"}]
    assert bot._advance(runner, s, [Advance("4Pz", ("2806",))], "german") == Done()


def test_the_minsk_pocket_edge_is_a_place_the_soviets_win_by_reaching(runner):
    # 移动 1 d: a Soviet unit entering the Minsk Pocket box (from 2701, 2801, 2901) wins at once
    aims = victory_objectives(runner)
    assert [runner.board.hex_id(h) for h in aims.sudden["soviet"]] == ["2701", "2801", "2901"]
    assert [runner.board.hex_id(h) for h in aims.enemy_sudden("german")] == ["2701", "2801", "2901"]


def test_the_minsk_pocket_edge_is_no_goal_once_the_pocket_is_cleared(runner, game):
    # 移动 1 d: the box may be entered only while the pocket exists (exit ... when minsk-cleared == 0); once
    # turn 4's Reinforcements chit clears it, its map edge is worth nothing to either side
    bot = GreedyBot(1)
    s = empty_board(runner, game)
    P = game.map.grid.parse_id
    edge = {P("2701"), P("2801"), P("2901")}
    s.place("4Pz", P("2801"))                                    # the last German unit on the edge
    s.place("28RD", P("2810"))                                   # a Soviet unit far to the east
    s.place("31ID", P("2806"))
    aims = victory_objectives(runner)
    assert aims.closed(lambda pool: runner.engine.exit_open(s, pool)) == frozenset()
    assert edge - {P("2801")} <= set(bot.goals(runner, s, "german", 2))   # guarded whatever the distance
    assert "4Pz" in bot._guards(runner, s, "german", 2)                  # and the unit on it stays
    assert edge <= set(bot.goals(runner, s, "soviet", 2))                # the Soviets make for it
    s.variables["minsk-cleared"] = 1
    assert aims.closed(lambda pool: runner.engine.exit_open(s, pool)) == frozenset(edge)
    assert not edge & set(bot.goals(runner, s, "german", 2))
    assert "4Pz" not in bot._guards(runner, s, "german", 2)
    assert not edge & set(bot.goals(runner, s, "soviet", 2))
    stars = set(aims.places["soviet"]) - edge                            # the star hexes stay the Soviets' aims
    assert stars and stars <= set(bot.goals(runner, s, "soviet", 2)) | {h for h in stars if s.control.get(h) == "soviet"}


def test_a_lone_unit_on_a_star_hex_near_the_enemy_is_joined_by_a_unit_whose_loss_costs_no_vp(runner, game):
    # 移动 1 g: a Soviet unit entering an emptied star hex draws a victory chit
    from runtime.actions import Move
    bot = GreedyBot(1)
    s = empty_board(runner, game)
    P = game.map.grid.parse_id
    s.place("31ID", P("2806"))                                   # Krupki, a star hex, held by the 31st
    s.control[P("2806")] = "german"
    s.control_since[P("2806")] = 1                               # taken in the game: held within the whole reach
    s.place("28RD", P("2804"))                                   # a Soviet unit two hexes away
    for uid, at in (("250ID", "2908"), ("4Pz", "2908"), ("2PzG", "2701"), ("3PzG", "2801"), ("9A", "2901")):
        s.place(uid, P(at))                                      # (the Minsk Pocket edge held)
    assert bot._thin(runner, s, "german", 2) == [P("2806")]
    moves = [Move(u, to) for u in ("250ID", "4Pz") for to in ("2807", "2806", "3007")]
    assert bot._move(runner, s, moves + [Done()], "german") == Move("250ID", "2806")  # not the 4Pz (6 VP if lost)
    s.place("28RD", P("2011"))                                   # no enemy near: it goes on (toward SMOLENSK)
    assert bot._thin(runner, s, "german", 2) == []
