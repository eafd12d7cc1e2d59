"""What being out of supply does, as each game declares it."""
from __future__ import annotations

from fractions import Fraction

from runtime.board import Board
from runtime.combat.odds import attack_strength, defence_strength
from runtime.movement import SCALE, unit_mp
from runtime.supply import check_supply

from helpers import gekitou_game, setup_state

RING = ["0404", "0405", "0504", "0506", "0604", "0605"]  # the six neighbours of 0505


def test_smolensk_units_cut_off_lose_a_step_and_then_are_removed(tmp_path):
    counters = ["X german infantry 3-5 2-5", "F german fortress 1"] + \
        [f"E{i} red-army infantry 2-5 1-5" for i in range(6)]
    game = gekitou_game(tmp_path, [c if c.count(" ") == 4 else c + " -" for c in counters],
                        ["X 0505", "F 0505"] + [f"E{i} {h}" for i, h in enumerate(RING)])
    board, s = Board(game), setup_state(game)
    events = check_supply(game, board, s, "axis")
    assert events == [{"supply": "X", "result": "loses a step"}]   # the fortress is exempt (14.2(4))
    assert s.units["X"].step == 1 and s.units["F"].step == 0
    assert check_supply(game, board, s, "axis") == [{"supply": "X", "result": "eliminated (removed from play)"}]
    assert s.units["X"].box == "removed"  # removed by supply: never returns (12.3(2))


def test_markers_halve_what_the_game_says(tmp_path):
    extra = ('override supply { consequence isolated; marker isolated halve attack defence move; '
             'marker out-of-supply halve attack }')
    game = gekitou_game(tmp_path, ["X german infantry 4-5 2-5", "E red-army infantry 2-5 1-5"],
                        ["X 0505", "E 0605"], extra=extra)
    board, s = Board(game), setup_state(game)
    target = game.map.grid.parse_id("0605")
    assert attack_strength(game, board, s, "X", target)[0] == 4
    s.mark("X", "isolated")
    value, why = attack_strength(game, board, s, "X", target)
    assert value == 2 and "isolated" in why
    assert defence_strength(game, board, s, "X")[0] == 2
    assert unit_mp(game, s, "X") == 2 * SCALE  # 5 MP halved, rounded down
    s.set_unit("X", markers=frozenset({"out-of-supply"}))
    assert attack_strength(game, board, s, "X", target)[0] == 4 / Fraction(2)
    assert defence_strength(game, board, s, "X")[0] == 4


def test_isolation_marks_and_unmarks(tmp_path):
    extra = "override supply { consequence isolated }"
    ring = RING
    counters = ["X german infantry 4-5 2-5"] + [f"E{i} red-army infantry 2-5 1-5" for i in range(6)]
    game = gekitou_game(tmp_path, counters, ["X 0505"] + [f"E{i} {h}" for i, h in enumerate(ring)], extra=extra)
    board, s = Board(game), setup_state(game)
    assert check_supply(game, board, s, "axis") == [{"supply": "X", "result": "marked isolated"}]
    assert "isolated" in s.units["X"].markers
    for i in range(6):
        s.place(f"E{i}", None, "eliminated")
    assert check_supply(game, board, s, "axis") == [{"supply": "X", "result": "back in supply: isolated removed"}]
    assert not s.units["X"].markers
