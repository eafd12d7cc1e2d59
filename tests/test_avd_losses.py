"""A Victory Denied 攻击 5 f i-iii (shared/rules/a-victory-denied.zh.txt): where an
eliminated unit goes. "被消灭的 PVO 部队, '*' 标部队以及被孤立的部队, 直接移出游戏。
被消灭的德军机动部队直接放进对应'池/BOX'中。其他被消灭德军部队直接移出游戏。": PVO,
"*" and isolated units are out of the game, German motorized units go to the
Eliminated Motorized Units Box (the victory formula counts them), the other German
units are out of the game; the other Soviet units come back where 4 k sends a
disbanded one: brown to the Soviet Reserve Box, red into the Elite Division cup
(game.hxr: 'returns ... unmarked isolated')."""
from __future__ import annotations

import pytest

from dsl.compiler import compile_game
from runtime.runner import Runner
from runtime.state import eliminate

from test_avd_rules import avd_folder, diagnostics


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    return compile_game(avd_folder(tmp_path_factory.mktemp("avd")))


@pytest.mark.parametrize("unit,isolated,box", [
    ("28RD", False, "pool:reserve"),        # brown: back to the Soviet Reserve Box, full strength
    ("28RD", True, "eliminated"),           # isolated: out of the game (i)
    ("1MRD", False, "pool:elite-cup"),      # red: into the Soviet Elite Division cup
    ("1MRD", True, "eliminated"),
    ("121RD", False, "eliminated"),         # a "*" unit: out of the game (i)
    ("PVO1", False, "eliminated"),          # PVO: out of the game (i)
    ("4Pz", False, "eliminated"),           # German motorized: the box the victory formula counts (ii)
    ("31ID", False, "eliminated"),          # other German units: out of the game (iii)
])
def test_where_an_eliminated_unit_goes(game, unit, isolated, box):
    s = Runner(game).new_game(seed=1)
    s.place(unit, game.map.grid.parse_id("2514"))
    s.set_unit(unit, step=len(game.counters[unit].steps) - 1)          # reduced, where it has two steps
    if isolated:
        s.mark(unit, "isolated")
    assert eliminate(game, s, unit) == box
    assert s.units[unit].hex is None and unit in s.lost
    if box.startswith("pool:"):
        assert s.units[unit].step == 0 and not s.units[unit].markers   # comes back at full strength


def test_a_returned_rifle_division_is_bought_again_from_the_reserve(game):
    """Back in the Soviet Reserve Box it is one of the units the turn's points buy (5 c-d: 1 point)."""
    from test_avd_rules import to_soviet_purchase
    lost = Runner(game).new_game(seed=1)
    eliminate(game, lost, "28RD")

    class FromThere(Runner):
        def new_game(self, seed=0):
            return lost
    runner = FromThere(game)
    s = to_soviet_purchase(runner, turn=2)
    assert "28RD" in s.step["units"] and runner.unit_cost("28RD") == 1
    assert s.units["28RD"].box == "pool:reserve"


@pytest.mark.parametrize("old,new,message", [
    ("returns soviet rifle to reserve unmarked isolated", "returns soviet rifle to reserve unmarked isolatd",
     "'isolatd' is not a unit marker the engine reads"),
    ("returns soviet rifle to reserve unmarked isolated", "returns soviet rifle to reserve unmarked",
     "'unmarked' takes a unit marker"),
])
def test_check_refuses_a_returns_marker_the_engine_does_not_read(tmp_path, old, new, message):
    assert any(message in d for d in diagnostics(tmp_path, old, new))
