"""The greedy bot's care for the units whose loss gives the enemy VP, read
from the victory rules (A Victory Denied: each eliminated German motorized
unit is worth 4 or 6 VP to the Soviets), on the rules' stand-in board."""
from __future__ import annotations

import pytest

from dsl.compiler import compile_game
from runtime.actions import Advance, Done, LoseStep, Retreat
from runtime.bots import GreedyBot
from runtime.decisions import Take
from runtime.menace import Menace
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


def test_a_motorized_unit_weighs_the_attack_the_enemy_could_bring_next(nearer):
    # The Soviets roll d10 on the CRT; 2806 is a town (1 column left).  撤退 6 g: a step is lost per
    # enemy-ZOC hex entered; the ways back toward supply (3106) are 2906 and 2907.
    game, runner = nearer, Runner(nearer)
    bot = GreedyBot(1)
    grid = game.map.grid
    P = grid.parse_id
    s = empty_board(runner, game)
    h = P("2806")
    s.place("4Pz", h)
    s.set_unit("4Pz", step=1)                                     # 3-2-8: its next step lost eliminates it

    def chance():
        return Menace(game, runner.board, s, "soviet").loss_chance(s, "4Pz", h)
    assert chance() == 0 and not bot._endangered(runner, s, h, "german", "4Pz")  # no enemy near
    s.place("28RD", P("2805"))
    # 3 against 2, 1.5-1, one column left: 1-1, DR on a 6 (the rest A1, A2, - or RED); 2906 is free of its
    # ZOC: the retreat costs nothing
    assert chance() == 0
    s.place("38RD", P("2907"))
    # 6 against 2, 3-1 -> 2-1: DR on 4 and 5, DR2 on 6; every way back now enters an enemy ZOC: 3 in 10
    assert chance() == pytest.approx(0.3)
    assert bot._endangered(runner, s, h, "german", "4Pz")         # (GreedyBot.RISK)
    assert not GreedyBot(1, risk=0.4)._endangered(runner, s, h, "german", "4Pz")
    s.place("50RD", P("2702"))                                    # 4 MP: it cannot reach a hex next to 2806
    assert Menace(game, runner.board, s, "soviet").attack(h) == 6 and chance() == pytest.approx(0.3)
    s.place("50RD", P("2704"))                                    # it can (2706): 9 against 2, 4-1 -> 3-1:
    assert Menace(game, runner.board, s, "soviet").attack(h) == 9  # DR on 3, 4, 5 and 9, DR2 on 6
    assert chance() == pytest.approx(0.5)
    s.set_unit("4Pz", step=0)                                     # 6-4-8: 9 against 4, 2-1 -> 1.5-1: its
    assert chance() == 0                                          # results take one step at most
    s.set_unit("4Pz", step=1)
    s.place("31ID", h)                                            # 4-4 beside it: 9 against 6, 1.5-1 -> 1-1:
    assert chance() == pytest.approx(0.1)                         # DR on a 6, whose retreat costs its step
    s.place("31ID", None, "removed")
    s.place("4Pz", P("2706"))                                     # after combat, it could advance into 2806
    s.pending = [{"kind": "advance"}]
    assert bot._advance(runner, s, [Advance("4Pz", ("2806",))], "german") == Done()


@pytest.mark.parametrize("folder", ["a-victory-denied", "smolensk"])
def test_no_move_goes_further_than_the_cheapest_step_allows(folder):
    # runtime.menace works out an enemy unit's range only for hexes within mp // cheapest_step + 1 hexes
    from runtime.movement import MoveError, cheapest_step, move_range, unit_mp
    game = compile_game(ROOT / "games" / folder)
    runner = Runner(game)
    s = runner.new_game(seed=1)
    checked = 0
    for u in s.units.values():
        if u.hex is None:
            continue
        cheapest = cheapest_step(game, runner.board, game.counters[u.id].unit_class)
        assert cheapest > 0
        try:
            r = move_range(game, runner.board, s, u.id)
        except MoveError:
            continue
        assert all(u.hex.distance(h) <= unit_mp(game, s, u.id) // cheapest + 1 for h in r.destinations), u.id
        checked += bool(r.destinations)
    assert checked > 30


def test_a_motorized_unit_retreats_out_of_reach_before_toward_supply(nearer):
    # 撤退 6 h: of the retreats the rules allow, the owner chooses; the greedy bot ends nearest its supply,
    # but a unit whose loss gives the enemy VP first where the enemy's next attack would not likely take it
    game, runner = nearer, Runner(nearer)
    P = game.map.grid.parse_id
    s = empty_board(runner, game)
    s.place("4Pz", P("2806"))
    s.set_unit("4Pz", step=1)
    for uid, at in (("28RD", "2805"), ("38RD", "2907"), ("50RD", "2704"), ("51RD", "2904")):
        s.place(uid, P(at))
    menace = Menace(game, runner.board, s, "soviet")
    near, far = Retreat("4Pz", ("2906", "3005")), Retreat("4Pz", ("2906", "3007"))
    # 3005, woods: 12 against 2, 6-1 -> 5-1: 1DR2 on a 5 or 6, DR2 on a 3, 4 or 9 with no second hex to go to
    assert menace.loss_chance(s, "4Pz", P("3005")) == pytest.approx(0.5)
    assert menace.loss_chance(s, "4Pz", P("3007")) == 0                   # 6 against 2, clear: its retreats are open
    from runtime.retreat import distance_to_supply
    supply = distance_to_supply(game, runner.board, "german")
    assert supply[P("3005")] < supply[P("3007")]
    assert GreedyBot(1)._retreat(runner, s, [near, far], "german") == far
    s.set_unit("4Pz", step=0)                                           # 6-4-8: safe in either, so nearer
    assert GreedyBot(1)._retreat(runner, s, [near, far], "german") == near


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
