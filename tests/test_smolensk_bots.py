"""The greedy bot in a chit-pull game whose HQs activate by command range
(Smolensk 8.1, 8.2): the Axis set-up by its player (4.0(2)2), HQs that
follow the units that make the advance, units that stay within an HQ's
reach.  Behaviour, not strength: strength targets live in bench/."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from dsl.compiler import compile_game
from runtime.actions import Move
from runtime.bots import GreedyBot
from runtime.greedy_moves import listed_moves
from runtime.runner import Runner

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture(scope="module")
def smolensk():
    return compile_game(GAMES / "smolensk")


def deployed(runner: Runner, seed: int = 0):
    """A new short game with the Axis set up by the greedy bot; the bot and the state after it."""
    bot = GreedyBot(seed)
    s = runner.new_game(seed)
    assert s.step.get("decision") == "deploy" and s.step.get("side") == "axis"
    while s.step.get("decision") == "deploy":
        s = runner.apply(s, bot.choose(runner, s))
    return bot, s


def _axis_moving(tmp_path, counters: list[str], placements: list[str], **kw):
    """A small Gekitou-series game (tests/helpers.py) in the Axis movement
    phase: the game, its runner, the state and a greedy bot."""
    from helpers import gekitou_game, setup_state
    game = gekitou_game(tmp_path, counters, placements, **kw)
    r = Runner(game, "s")
    s = setup_state(game)
    s.active, s.phase = "axis", "movement"
    return game, r, s, GreedyBot(0)


def _moves_by_unit(r: Runner, s) -> dict:
    """The listed moves of each unit, as the greedy bot weighs them."""
    return listed_moves(r.board, r.engine.legal_actions(s))[0]


def test_the_axis_sets_up_at_the_front_within_its_hqs_command(smolensk):
    r = Runner(smolensk, "short")
    _, s = deployed(r)
    g = r.game
    enemy = [h for h, ids in s.occupants.items() if ids and s.units[ids[0]].side == "soviet"]
    for p in r.scenario.setup:
        if p.kind != "area" or g.counters[p.counter].side != "axis":
            continue
        u, hq = s.units[p.counter], s.units[g.counters[p.counter].formation]
        assert u.hex in g.map.areas[p.where_to]
        assert u.hex.distance(hq.hex) <= g.counters[hq.id].steps[0]["command"], p.counter
    # the panzer divisions stand next to the enemy: 15.1's surprise attack has them all
    panzers = [c.id for c in g.counters.values() if c.unit_class == "panzer" and c.side == "axis"]
    assert all(min(s.units[x].hex.distance(e) for e in enemy) <= 2 for x in panzers)
    act = next(e for e in s.log if e.get("activate") == "surprise-activation")
    started = {c.id for c in g.counters.values() if c.side == "axis" and c.unit_class != "panzer-hq"
               and ({"start:2PzA", "start:3PzA"} & c.tags) and s.units[c.id].hex is not None}
    assert started <= set(act["units"])
    assert s.step.get("decision") == "combat" and len(r.legal_actions(s)) > 10


def test_the_set_up_is_the_same_for_a_seed(smolensk):
    r = Runner(smolensk, "short")
    a = {u.id: u.hex for u in deployed(r, 4)[1].units.values()}
    b = {u.id: u.hex for u in deployed(r, 4)[1].units.values()}
    assert a == b


def test_hq_posts_only_where_hqs_command_by_range_alone(smolensk):
    bot = GreedyBot(0)
    r = Runner(smolensk, "short")
    _, s = deployed(r)
    posts = bot._posts(r, s, "axis", set())
    assert {(r.board.hex_id(h), n) for h, n, _ in posts} >= {("0727", 5), ("0614", 5), ("0424", 4), ("0317", 4)}
    moving = {x[1] for x in bot._posts(r, s, "axis", {"2PzA"}) if x[0] == s.units["2PzA"].hex}
    assert moving == {5 + 6}  # its range and its MP: it follows its units after they move
    for other in ("a-victory-denied", "barbarossa-postcard"):  # chains; no chits
        ro = Runner(compile_game(GAMES / other))
        so = ro.new_game(0)
        assert all(bot._posts(ro, so, side, set()) is None for side in ro.game.sides)


def test_an_hq_follows_the_strongest_units_it_commands(smolensk):
    """Weighed by their factors, one panzer division draws the HQ away from two
    infantry divisions; counted one a unit, the infantry would."""
    bot = GreedyBot(0)
    r = Runner(smolensk, "short")
    _, s = deployed(r)
    H = r.board.parse
    keep = {"3PzA", "7Pz", "5ID", "6ID"}
    for u in list(s.units.values()):
        if u.hex is not None and u.id not in keep:
            s.place(u.id, None, box="pool:removed")
    s.place("3PzA", H("2010"))
    s.place("7Pz", H("2016"))                      # 6 hexes south: out of its range (5)
    s.place("5ID", H("2004"))                      # 6 hexes north, with 6ID
    s.place("6ID", H("2004"))
    moves, _ = listed_moves(r.board, [Move("3PzA", "2013"), Move("3PzA", "2007")])
    lines = set(r.game.map.hexes)
    assert bot._hq_move(r, s, moves, "axis", lines, [H("4112")], weigh=True).move() == Move("3PzA", "2013")
    assert bot._hq_move(r, s, moves, "axis", lines, [H("4112")], weigh=False).move() == Move("3PzA", "2007")


def test_an_hq_goes_to_the_units_no_other_hq_commands(smolensk):
    """Three infantry divisions outweigh one panzer division by their factors
    (24 to 22), but where another HQ (AOK9) commands the infantry, the panzer
    division that no HQ commands draws 3PzA: only its chit could activate it
    (``GreedyBot.ALONE``).  Without AOK9 every unit is alone and the infantry
    draws it again."""
    bot = GreedyBot(0)
    r = Runner(smolensk, "short")
    _, s = deployed(r)
    H = r.board.parse
    for u in list(s.units.values()):
        if u.hex is not None:
            s.place(u.id, None, box="pool:removed")
    for uid, h in (("3PzA", "2010"), ("7Pz", "2016"), ("5ID", "2004"), ("6ID", "2004"), ("8ID", "2005")):
        s.place(uid, H(h))
    moves, _ = listed_moves(r.board, [Move("3PzA", "2013"), Move("3PzA", "2007")])
    lines = set(r.game.map.hexes)
    assert bot._hq_move(r, s, moves, "axis", lines, [H("4112")], weigh=True).move() == Move("3PzA", "2007")
    s.place("AOK9", H("2002"))  # commands the three infantry divisions (range 4)
    assert bot._hq_move(r, s, moves, "axis", lines, [H("4112")], weigh=True).move() == Move("3PzA", "2013")


def test_a_unit_within_an_hqs_reach_does_not_move_out_of_every_hqs_reach(smolensk):
    bot = GreedyBot(1)
    r = Runner(smolensk, "short")
    _, s = deployed(r, 1)
    soviet = GreedyBot(2)
    checked = 0
    for _ in range(400):
        if s.result is not None:
            break
        side = r.to_move(s)
        if side != "axis":
            s = r.apply(s, soviet.choose(r, s))
            continue
        a = bot.choose(r, s)
        if isinstance(a, Move) and s.step.get("decision") == "movement" and not bot._is_hq(r, a.unit):
            moving = {u for u in s.activated if bot._is_hq(r, u) and u not in s.moved}
            posts = bot._posts(r, s, "axis", moving)
            if bot._covered(r, posts, a.unit, s.units[a.unit].hex):
                assert bot._covered(r, posts, a.unit, r.board.parse(a.to)), a
                checked += 1
        s = r.apply(s, a)
    assert checked > 50


def test_units_leave_their_line_of_communication_only_while_their_supply_check_is_skipped(smolensk):
    """15.1(4): the Axis skips the supply check on turns 1 to 3, so the greedy
    Axis may end moves beyond its line of communication then (the panzers ran
    ahead of it); from turn 4, and for the Soviets always, every move ends on
    a hex that traces one."""
    from runtime.supply import supply_map
    r = Runner(smolensk, "short")
    bots = {"axis": GreedyBot(1), "soviet": GreedyBot(2)}
    s = r.new_game(1)
    beyond, checked = {"axis": 0, "soviet": 0}, 0
    while s.result is None and s.turn <= 4:
        side = r.to_move(s)
        a = bots[side].choose(r, s)
        if isinstance(a, Move) and s.step.get("decision") == "movement":
            assert r.supply_skipped(s, side) == (side == "axis" and s.turn <= 3)
            if r.board.parse(a.to) not in supply_map(r.game, r.board, s, side):
                assert r.supply_skipped(s, side), (s.turn, side, str(a))
                beyond[side] += 1
            checked += 1
        s = r.apply(s, a)
    assert s.turn == 5 and checked > 300
    assert beyond["axis"] > 0 and beyond["soviet"] == 0


def test_a_set_up_move_raises_the_column_of_an_attack_already_likely_to_succeed(tmp_path):
    """P1 (9) next to D (2) attacks at 4-1: the defender retreats or loses a
    step on 5 rolls in 6.  P2 moving next to D as well makes it 9-1, where
    every roll takes steps (1RR to 3RR): the set-up is worth making however
    good the attack already is (the bot stopped at 5 in 6)."""
    from runtime.supply import supply_map
    game, r, s, bot = _axis_moving(tmp_path, ["P1 german panzer 9-4-10 4-2-10", "P2 german panzer 9-4-10 4-2-10",
                                              "D red-army infantry 2-5 1-5"], ["P1 0405", "P2 0205", "D 0505"])
    d = r.board.parse("0505")
    assert bot._attack_odds(r, s, ["P1"], d)[1] == Fraction(5, 6)
    move, ready = bot._attack_setup(r, s, _moves_by_unit(r, s), "axis", supply_map(game, r.board, s, "axis"), set())
    assert move is not None and move.unit == "P2" and r.board.parse(move.to).distance(d) == 1
    after = r.engine.apply(s, move.move())
    assert r.game.crts["gekitou"].columns[bot._attack_odds(r, after, ["P1", "P2"], d)[0]].label == "9-1"
    assert ready == {"P1"}


def test_the_attack_option_sets_the_chance_the_greedy_bot_attacks_at(tmp_path):
    """``greedy:attack=X``: P1 alone attacks D at 4-1, a defender loss or
    retreat on 5 rolls in 6: an attack the default bot counts as set (at
    least even), one that asks 9 in 10 does not, and for both the move of P2
    that makes it 9-1 (every roll) is the set-up to make."""
    from runtime.bots import make_bot
    from runtime.supply import supply_map
    game, r, s, _ = _axis_moving(tmp_path, ["P1 german panzer 9-4-10 4-2-10", "P2 german panzer 9-4-10 4-2-10",
                                            "D red-army infantry 2-5 1-5"], ["P1 0405", "P2 0205", "D 0505"])
    lines = supply_map(game, r.board, s, "axis")
    for name, ready in (("greedy", {"P1"}), ("greedy:attack=0.9", set())):
        bot = make_bot(name, 0)
        move, got = bot._attack_setup(r, s, _moves_by_unit(r, s), "axis", lines, set())
        assert got == ready, name
        assert move is not None and move.unit == "P2", name


def test_units_converge_on_a_goal_no_single_move_makes_a_good_attack_on(tmp_path):
    """The town 0505 (10 VP, 2 columns left) is held by two 3-5 divisions.
    One panzer next to it attacks at 9-6, below 1-1 after the shifts (no
    attack at all); two at 18-6, 1-1, a defender loss or retreat on 2 rolls
    in 6; all three at 27-6, 2-1, on 3 in 6.  No single move makes a good
    attack, but the three together do: the bot makes the first move of that
    assault (``_sieges``).  Where only two panzers could come, it makes none."""
    from helpers import gekitou_game, setup_state
    from runtime.supply import supply_map

    def moving(panzers: list[str], at: list[str]):
        game = gekitou_game(tmp_path / str(len(panzers)), [f"{p} german panzer 9-4-10 4-2-10" for p in panzers] +
                            ["D1 red-army infantry 3-5 2-5", "D2 red-army infantry 3-5 2-5"],
                            [f"{p} {h}" for p, h in zip(panzers, at)] + ["D1 0505", "D2 0505"],
                            hexes=["0505 clear city Town 10"])
        r = Runner(game, "s")
        s = setup_state(game)
        s.active, s.phase = "axis", "movement"
        return game, r, s

    game, r, s = moving(["P1", "P2", "P3"], ["0205", "0208", "0202"])
    bot, town = GreedyBot(0), r.board.parse("0505")
    assert bot.objectives(r, "axis") == [town]
    for panzers, chance in ((["P1"], None), (["P1", "P2"], Fraction(1, 3)), (["P1", "P2", "P3"], Fraction(1, 2))):
        t = s.copy()
        for uid, h in zip(panzers, ["0405", "0404", "0504"]):
            t.place(uid, r.board.parse(h))
            t.moved.add(uid)
        odds = bot._attack_odds(r, t, panzers, town)
        assert (odds and odds[1]) == chance
    lines = supply_map(game, r.board, s, "axis")
    move, _ = bot._attack_setup(r, s, _moves_by_unit(r, s), "axis", lines, set())
    assert move is not None and r.board.parse(move.to).distance(town) == 1
    after = r.engine.apply(s, move.move())
    move, _ = bot._attack_setup(r, after, _moves_by_unit(r, after), "axis", lines, set())
    assert move is not None and r.board.parse(move.to).distance(town) == 1   # the second joins it

    game, r, s = moving(["P1", "P2"], ["0205", "0208"])
    lines = supply_map(game, r.board, s, "axis")
    assert GreedyBot(0)._attack_setup(r, s, _moves_by_unit(r, s), "axis", lines, set())[0] is None


def test_a_unit_takes_a_place_worth_more_than_its_loss_where_the_enemy_may_destroy_it(smolensk):
    """The reduced 86th Infantry Division (its loss costs the Axis 1 VP,
    15.5(6)) may advance after combat into Vitebsk, worth 15 VP to the Axis
    on turn 1 (15.5(2), (3)1), where six Soviet tank divisions next to it
    would destroy it one time in two: it does.  Into 3511 beside it, as
    dangerous and worth nothing, it does not."""
    from runtime.actions import Advance, Done
    from runtime.menace import Menace
    r = Runner(smolensk, "short")
    s = r.new_game(seed=1)
    for u in s.units.values():
        if u.hex is not None:
            s.place(u.id, None, "removed")
    s.phase, s.active, s.activated = "combat", "axis", set()
    P = smolensk.map.grid.parse_id
    vitebsk = P("3510")
    s.place("86ID", P("3511"))
    s.set_unit("86ID", step=1)
    for uid, at in (("101TD", "3609"), ("105TD", "3609"), ("18TD", "3610"), ("50TD", "3610"), ("107TD", "3710"),
                    ("13TD", "3710")):
        s.place(uid, P(at))
    bot = GreedyBot(1)
    assert Menace(smolensk, r.board, s, "soviet").loss_chance(s, "86ID", vitebsk) == 0.5
    assert bot._costly(r, "86ID") == 1.0 and bot._endangered(r, s, vitebsk, "axis", "86ID")
    s.pending = [{"kind": "advance"}]
    assert bot._advance(r, s, [Advance("86ID", ("3510",))], "axis") == Advance("86ID", ("3510",))
    s.place("86ID", P("3512"))
    assert bot._endangered(r, s, P("3511"), "axis", "86ID")
    assert bot._advance(r, s, [Advance("86ID", ("3511",))], "axis") == Done()


def test_a_fast_unit_does_not_turn_back_for_an_attack(tmp_path):
    """The panzer P (10 MP, faster than the side's infantry) stands east of
    the enemy D with its goal further east: the move that would set up a
    good attack on D ends farther from the goal, so it is left to the
    infantry; without the goal's distance the bot makes it."""
    from runtime.supply import supply_map
    game, r, s, bot = _axis_moving(tmp_path, ["P german panzer 9-4-10 4-2-10", "I1 german infantry 5-5 2-5",
                                              "I2 german infantry 5-5 2-5", "D red-army infantry 1-5 1-5"],
                                   ["P 0605", "I1 0101", "I2 0110", "D 0405"])
    assert bot._fast(r, "axis") == {"P"}
    goal = r.board.parse("1005")
    lines = supply_map(game, r.board, s, "axis")
    by_unit = {"P": _moves_by_unit(r, s)["P"]}
    move, _ = bot._attack_setup(r, s, by_unit, "axis", lines, set())
    assert move is not None and move.unit == "P" and r.board.parse(move.to).distance(r.board.parse("0405")) == 1
    move, _ = bot._attack_setup(r, s, by_unit, "axis", lines, set(), dist=lambda h: h.distance(goal))
    assert move is None or r.board.parse(move.to).distance(goal) <= s.units["P"].hex.distance(goal)


def test_the_slower_units_clear_the_enemy_cut_off_on_the_sides_rail_lines(tmp_path):
    """Where lines run along rail (3.3(3)), an enemy unit cut off from its own
    supply on the side's rail net (C, on the rail from the west edge, behind
    the Axis screen in column 06 that no Soviet line may cross) cuts the
    side's lines; one off the rail (O) or one still in its own supply (F)
    does not matter to them."""
    rail = "path rail " + " ".join(f"{c:02d}05" for c in range(1, 11))
    game, r, s, bot = _axis_moving(
        tmp_path, ["A1 german infantry 5-5 2-5", "A2 german infantry 5-5 2-5", "A3 german infantry 5-5 2-5",
                   "A4 german infantry 5-5 2-5", "I german infantry 5-5 2-5", "C red-army infantry 1-5 1-5",
                   "O red-army infantry 1-5 1-5", "F red-army infantry 1-5 1-5"],
        ["A1 0602", "A2 0605", "A3 0608", "A4 0610", "I 0109", "C 0305", "O 0309", "F 0905"], paths=[rail])
    assert bot._on_our_lines(r, s, "axis") == [r.board.parse("0305")]
    assert bot._on_our_lines(r, s, "soviet") == []  # no rail for the Soviets' lines


def test_a_unit_cut_off_from_supply_moves_back_into_it(tmp_path):
    """A unit standing outside its lines of communication moves to a hex
    inside them, the one nearest its goal; a unit inside them is left to
    the other rules."""
    game, r, s, bot = _axis_moving(tmp_path, ["P german panzer 9-4-10 4-2-10", "I german infantry 5-5 2-5",
                                              "D red-army infantry 1-5 1-5"], ["P 0605", "I 0203", "D 0909"])
    lines = {h for h in game.map.hexes if h.q <= 3}  # (the test draws the lines itself)
    goal = r.board.parse("1005")
    by_unit = _moves_by_unit(r, s)
    move = bot._resupply(r, s, by_unit, "axis", lines, lambda h: h.distance(goal))
    assert move is not None and move.unit == "P"
    h = r.board.parse(move.to)
    assert h in lines and h.distance(goal) == min(r.board.parse(m.to).distance(goal) for m in by_unit["P"]
                                                  if r.board.parse(m.to) in lines)
    assert bot._resupply(r, s, {"I": by_unit["I"]}, "axis", lines, lambda h: h.distance(goal)) is None


def test_a_place_held_since_the_start_is_held_only_once_the_enemy_is_near(smolensk):
    """``goals``: a Soviet city the Axis plays for, Soviet since the game
    began, is a place to hold once an Axis unit is within a quarter of the
    reach (``GreedyBot.HOLD``); the same city taken back in the game is
    held within the whole reach, as it is by a bot with ``hold=1.0``."""
    r = Runner(smolensk, "short")
    _, s = deployed(r)
    bot, wide = GreedyBot(0), GreedyBot(0, hold=1.0)
    axis = [h for h, ids in s.occupants.items() if ids and s.units[ids[0]].side == "axis"]
    vitebsk = r.board.parse("3510")
    assert vitebsk in bot._objectives(r).enemy("soviet") and s.control.get(vitebsk) == "soviet"
    d = min(vitebsk.distance(e) for e in axis)  # (27 hexes after the greedy set-up)
    assert vitebsk not in s.control_since
    # nothing near enough: the goals are all of the side's own (its six cities), Vitebsk not first
    own = bot.objectives(r, "soviet")
    assert bot.goals(r, s, "soviet", d) == own and len(own) == 6
    assert bot.goals(r, s, "soviet", 4 * d - 4) == own
    assert wide.goals(r, s, "soviet", d) == [vitebsk]  # the nearest city, the only one within 27
    assert bot.goals(r, s, "soviet", 4 * d) == [vitebsk]
    s.control_since[vitebsk] = 1  # taken back in the game
    assert bot.goals(r, s, "soviet", d) == [vitebsk]
