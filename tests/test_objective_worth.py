"""What a place is worth to a side, read from the victory rules
(runtime.objectives: worth, worth_now, share_now), and the greedy bot's
drive for the place worth the most: Smolensk 15.5(3)'s timed bonuses."""
from __future__ import annotations

from dsl.compiler import compile_game
from helpers import GAMES, gekitou_game, setup_state
from runtime.actions import Done, Move
from runtime.bots import GreedyBot
from runtime.objectives import last_turn, victory_objectives
from runtime.runner import Runner
from runtime import expr as E

# two towns, 0502 and 0509 (one column), each 10 VP at the end; 0509 is worth 10 more
# if held at turn 2's supply check (a bonus, as Smolensk's 15.5(3)2)
VICTORY = """
victory v {
  award axis 10 at end "north town" when controls(axis, "0502")
  award axis 10 at end "south town" when controls(axis, "0509")
  award axis 10 at supply "south town held at turn 2" when turn == 2 and controls(axis, "0509")
}
"""


def _game(tmp_path):
    """A panzer on a small Gekitou-series map whose scenario plays for the two towns."""
    gekitou_game(tmp_path, ["P german panzer 9-4-10 4-2-10", "D red-army infantry 1-5 1-5"],
                 ["P 0505", "D 1010"], hexes=["0502 clear town", "0509 clear town"], extra=VICTORY)
    folder = tmp_path / "lib" / "g"
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    (folder / "game.hxr").write_text(text.replace('scenario s "S" {', 'scenario s "S" {\n  victory v'),
                                     encoding="utf-8")
    return compile_game(folder)


def test_a_timed_award_is_a_bonus_while_its_turn_is_to_come(tmp_path):
    game = _game(tmp_path)
    r = Runner(game, "s")
    aims = victory_objectives(r)
    north, south = r.board.parse("0502"), r.board.parse("0509")
    assert aims.worth["axis"] == {north: 10.0, south: 20.0}
    assert [aims.worth_now("axis", south, t) for t in (1, 2, 3)] == [20.0, 20.0, 10.0]
    assert aims.worth_now("axis", north, 3) == 10.0

    # the panzer stands one hex nearer the north town (3 against 4 hexes along
    # its column, 0505 to 0502 and 0509): on turn 1 it makes for the south town,
    # worth 10 VP more (5 hexes ahead at HEXES_PER_VP 0.5); once the bonus's
    # turn has passed, for the nearer
    bot = GreedyBot(0)
    s = setup_state(game)
    s.active, s.phase = "axis", "movement"
    here = s.units["P"].hex
    assert here.distance(north) < here.distance(south)
    moves = [Move("P", "0504"), Move("P", "0506"), Done()]
    assert bot._move(r, s, moves, "axis") == Move("P", "0506")
    s.turn = 3
    assert bot._move(r, s, moves, "axis") == Move("P", "0504")


def test_the_last_turn_a_condition_can_hold_on():
    T, N = E.Name("turn"), E.Num
    held = E.Call("controls", (E.Name("axis"), E.Str("0509")))
    assert last_turn(E.Binary("and", E.Binary("==", T, N(4)), held)) == 4
    assert last_turn(E.Binary("and", held, E.Binary("<", T, N(7)))) == 6
    assert last_turn(E.Binary(">=", N(5), T)) == 5                     # 5 >= turn
    assert last_turn(E.Binary(">", T, N(5))) is None                   # from a turn on: no last turn
    assert last_turn(E.Binary("or", E.Binary("==", T, N(4)), held)) is None  # not a conjunct
    assert last_turn(held) is None


def test_smolensk_the_cities_are_worth_their_bonuses_and_the_sources_share_one_award():
    r = Runner(compile_game(GAMES / "smolensk"), "short")
    aims = victory_objectives(r)
    P = r.board.parse
    vitebsk, smolensk, gomel, source = P("3510"), P("4112"), P("3726"), P("5506")
    # 15.5(2) 10 VP a major city; 15.5(3) Vitebsk +5 at turn 4, Smolensk +10 at turn 5 and +5 at turn 6
    assert [aims.worth_now("axis", vitebsk, t) for t in (1, 4, 5)] == [15.0, 15.0, 10.0]
    assert [aims.worth_now("axis", smolensk, t) for t in (1, 5, 6, 7)] == [25.0, 25.0, 15.0, 10.0]
    assert aims.worth_now("axis", gomel, 1) == 10.0 and aims.worth_now("soviet", smolensk, 1) == 10.0
    # 15.5(3)4: any one of the 14 Soviet east-edge sources, 30 VP: each worth 30, a 14th share of it
    assert aims.worth_now("axis", source, 1) == 30.0
    assert aims.share_now("axis", source, 1) == 30.0 / 14
    assert aims.share_now("axis", smolensk, 1) == 25.0
