"""A Victory Denied's victory chits (移动 1 g-h, 胜负): the triggers vp-draw and
vp-return of games/a-victory-denied/game.hxr, run at the `enter-each` checkpoint
(every hex a move, a retreat or an advance enters), on the stand-in board (chits: the box 1+1+2, Smolensk 2010 a 3,
Moscow 3810 a 5; Yelnya 2515 and Krupki 2806 are empty star hexes)."""
from __future__ import annotations

import pytest

from dsl.compiler import compile_game
from runtime.runner import Runner
from test_avd_rules import avd_folder


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    return compile_game(avd_folder(tmp_path_factory.mktemp("avd-vp")))


@pytest.fixture
def runner(game):
    return Runner(game)


def chits(s, where: str) -> list[dict]:
    return [m for m in s.markers if m["kind"] == "vp-chit"
            and (m["box"] == f"pool:{where}" if m["hex"] is None else str(m["hex"]) == where)]


def at(game, s, hex_id: str) -> list[dict]:
    h = game.map.grid.parse_id(hex_id)
    return [m for m in s.markers if m["kind"] == "vp-chit" and m["hex"] == h]


def enter(runner, game, s, unit: str, hex_id: str):
    """What the runner does when ``unit`` enters ``hex_id``."""
    s.place(unit, game.map.grid.parse_id(hex_id))
    runner.checkpoint(s, "enter-each", hex=hex_id, side=s.units[unit].side)
    return s


def test_a_german_unit_entering_a_star_returns_its_chit_to_the_box_face_down(runner, game):
    s = enter(runner, game, runner.new_game(seed=1), "4Pz", "2010")
    assert at(game, s, "2010") == []
    assert sorted(m["value"] for m in chits(s, "victory-chits")) == [1, 1, 2, 3]
    for side in ("german", "soviet"):                                 # nobody has seen it
        assert all(m["value"] is None for m in runner.observe(s, side).markers if m["kind"] == "vp-chit")
    s.rolled["hitler-directive"] = "hitler-distracted"
    runner.finish(s, "the last turn")
    assert s.result["vp"] == {"german": 4 + 3, "soviet": 5}           # the box is the German's


def test_a_soviet_unit_entering_an_empty_star_draws_a_chit_from_the_box_face_up(runner, game):
    s = enter(runner, game, runner.new_game(seed=1), "28RD", "2515")
    [chit] = at(game, s, "2515")
    assert chit["value"] in (1, 2) and len(chits(s, "victory-chits")) == 2
    for side in ("german", "soviet"):                                 # face up: both see it
        seen = [m for m in runner.observe(s, side).markers if m["kind"] == "vp-chit" and m["hex"] == chit["hex"]]
        assert [m["value"] for m in seen] == [chit["value"]]
    s.rolled["hitler-directive"] = "hitler-distracted"
    runner.finish(s, "the last turn")
    assert s.result["vp"] == {"german": 4 - chit["value"], "soviet": 8 + chit["value"]}


def test_the_soviets_win_at_once_when_no_chit_is_left_to_draw(runner, game):
    s = runner.new_game(seed=1)
    s.markers = [m for m in s.markers if m["box"] != "pool:victory-chits"]
    enter(runner, game, s, "28RD", "2806")
    assert s.result is not None and s.result["winner"] == "soviet"
    assert "no victory chit left" in s.result["why"]


@pytest.mark.parametrize("unit, hex_id", [("28RD", "2010"),            # a Soviet unit on a star with a chit
                                          ("4Pz", "2515"),             # a German unit on an empty star
                                          ("28RD", "2011"),            # no star
                                          ("4Pz", "2011")])
def test_other_entries_move_no_chit(runner, game, unit, hex_id):
    s = runner.new_game(seed=1)
    before = sorted((str(m["hex"]), m["box"], m["value"], m["face"]) for m in s.markers if m["kind"] == "vp-chit")
    enter(runner, game, s, unit, hex_id)
    after = sorted((str(m["hex"]), m["box"], m["value"], m["face"]) for m in s.markers if m["kind"] == "vp-chit")
    assert after == before and s.result is None


def test_a_move_onto_a_star_runs_the_trigger(runner, game):
    """The runner's own path: a legal move of a German unit ends on Smolensk."""
    s = runner.apply(runner.new_game(seed=1), "done")                # turn 1: the 3rd Panzer Group moves
    s = runner.apply(runner.apply(s, "activate 7Pz"), "activate 900L")  # its commanders (抽取 3 d)
    assert s.step.get("decision") == "movement" and s.active == "german"
    s = s.copy()
    for u in ("16A", "28RD", "38RD"):                                # Smolensk's defenders gone
        s.place(u, None, "removed")
    s.place("7Pz", game.map.grid.parse_id("2009"))
    s2 = runner.apply(s, "move 7Pz 2010")
    assert at(game, s2, "2010") == [] and len(chits(s2, "victory-chits")) == 4
    assert any("vp-return" in str(e) or "star hex with a chit" in str(e) for e in s2.log)


# ------------------------------------------------------------------ every hex entered (移动 1 g-h: 进入)

def bare(runner, active: str):
    """The set-up with every unit off the map, in a movement segment of ``active``."""
    s = runner.new_game(seed=1).copy()
    for uid, u in s.units.items():
        if u.hex is not None:
            s.place(uid, None, "removed")
    s.pending, s.phase, s.active, s.activated, s.step = [], "movement", active, set(), {}
    return s


def test_a_soviet_unit_moving_through_an_empty_star_draws_a_chit(runner, game):
    s = bare(runner, "soviet")
    s.place("28RD", game.map.grid.parse_id("2514"))
    s = runner.engine.apply(s, "move 28RD 2516")          # 2515 (Yelnya) is the only hex between
    assert next(e for e in s.log if e.get("action") == "move 28RD 2516")["path"] == ["2514", "2515", "2516"]
    [chit] = at(game, s, "2515")
    assert chit["face"] == "up" and len(chits(s, "victory-chits")) == 2


def test_a_german_advance_through_a_star_returns_its_chit(runner, game):
    s = bare(runner, "german")
    s.place("4Pz", game.map.grid.parse_id("2009"))
    s.phase = "combat"
    s.pending = [{"kind": "advance", "hex": "2010", "units": ["4Pz"], "advanced": []}]
    s = runner.engine.apply(s, "advance 4Pz 2010,2011")   # through Smolensk
    assert at(game, s, "2010") == [] and len(chits(s, "victory-chits")) == 4


def test_a_soviet_retreat_through_an_empty_star_draws_a_chit(runner, game):
    s = bare(runner, "german")
    s.place("28RD", game.map.grid.parse_id("2615"))
    s.phase = "combat"
    s.pending = [{"kind": "retreat", "unit": "28RD", "hexes": 2, "enemy": "german"}]
    s = runner.engine.apply(s, "retreat 28RD 2515,2414")  # through Yelnya
    assert len(at(game, s, "2515")) == 1 and len(chits(s, "victory-chits")) == 2
    s2 = bare(runner, "german")
    s2.place("28RD", game.map.grid.parse_id("2615"))
    s2.phase = "combat"
    s2.pending = [{"kind": "retreat", "unit": "28RD", "hexes": 2, "enemy": "german"}]
    s2 = runner.engine.apply(s2, "retreat 28RD 2516,2416")  # past it: nothing drawn
    assert at(game, s2, "2515") == [] and len(chits(s2, "victory-chits")) == 3


# ------------------------------------------------------------------ 移动 1 d, f: the Minsk Pocket box

def test_a_soviet_unit_moving_into_the_minsk_pocket_box_wins_at_once(runner, game):
    s = bare(runner, "soviet")
    assert s.result is None                               # the Soviet units set up in the box entered nothing
    s.place("28RD", game.map.grid.parse_id("2803"))       # two hexes from the box's edge hex 2801
    acts = [str(a) for a in runner.engine.legal_actions(s)]
    assert "move 28RD minsk-pocket" in acts
    s = runner.engine.apply(s, "move 28RD minsk-pocket")
    entry = next(e for e in s.log if e.get("action") == "move 28RD minsk-pocket")
    assert entry["path"] == ["2803", "2802", "2801", "minsk-pocket"] and entry["mp"] == "3"
    assert s.units["28RD"].hex is None and s.units["28RD"].box == "pool:minsk-pocket"
    assert s.result is not None and s.result["winner"] == "soviet" and "Minsk Pocket" in s.result["why"]


def test_the_box_needs_a_hex_of_its_edge_with_1_mp_left(runner, game):
    from runtime.actions import IllegalActionError
    s = bare(runner, "soviet")
    s.place("28RD", game.map.grid.parse_id("2805"))       # 4 MP: reaches 2801 with none left
    assert "move 28RD minsk-pocket" not in [str(a) for a in runner.engine.legal_actions(s)]
    with pytest.raises(IllegalActionError, match="cannot move into minsk-pocket: it must reach a hex of "
                                                 "minsk-box-edge with 1 MP left"):
        runner.engine.apply(s, "move 28RD minsk-pocket")


def test_german_units_never_enter_the_box(runner, game):
    from runtime.actions import IllegalActionError
    s = bare(runner, "german")
    s.place("4Pz", game.map.grid.parse_id("2801"))
    assert not any(str(a).endswith("minsk-pocket") for a in runner.engine.legal_actions(s))
    with pytest.raises(IllegalActionError, match="4Pz cannot move into minsk-pocket: only soviet units may"):
        runner.engine.apply(s, "move 4Pz minsk-pocket")


def test_once_the_pocket_is_cleared_on_turn_4_no_soviet_unit_enters_the_box(runner, game):
    """Special events, turn 4: "Minsk Pocket ends"; the Minsk Escape Table: "When the reinforcement chit is
    drawn on game turn 4, the Minsk pocket has been cleared" (5 i iii: what is left in it is removed). After
    that there is no pocket to enter (移动 1 d) and no unit leaves the map (1 a). Until this fix a Soviet unit
    reaching the box's edge won at any turn (greedy v greedy, seed 0's ninth game: on turn 7)."""
    from runtime.actions import IllegalActionError
    from runtime.decisions import Choose, Take
    s = bare(runner, "soviet")
    s.turn = 4
    s.place("28RD", game.map.grid.parse_id("2803"))
    assert "move 28RD minsk-pocket" in [str(a) for a in runner.engine.legal_actions(s)]   # not cleared yet
    runner.run_effects(s, "chit:Reinf", "Reinforcements drawn")
    while s.effects:                                      # no 9th Army chit; the "*" units: the first offered
        ask = s.effects[0]["ask"]
        s = runner.apply(s, Choose(next(o for o in ask["options"] if o.startswith("no-")))
                         if ask["decision"] == "choose" else Take(ask["units"][0]))
    assert s.variables["minsk-cleared"] == 1
    s.pending, s.phase, s.active, s.activated, s.step = [], "movement", "soviet", set(), {}
    assert "move 28RD minsk-pocket" not in [str(a) for a in runner.engine.legal_actions(s)]
    with pytest.raises(IllegalActionError, match="cannot move into minsk-pocket: it is closed now"):
        runner.engine.apply(s, "move 28RD minsk-pocket")
    assert s.result is None
    s.turn = 7
    assert "move 28RD minsk-pocket" not in [str(a) for a in runner.engine.legal_actions(s)]


@pytest.mark.parametrize("new, message", [
    ("exit minsk-box-edg to minsk-pocket by soviet", "unknown area 'minsk-box-edg'"),
    ("exit minsk-box-edge to minsk-pockt by soviet", "minsk-pockt"),
    ("exit minsk-box-edge to minsk-pocket by sovet", "'sovet' is not a unit class"),
    ("exit minsk-box-edge minsk-pocket soviet", "exit takes a map area, 'to' a pool"),
    ("exit minsk-box-edge to minsk-pocket by soviet when minsk-cleard == 0", "minsk-cleard"),
])
def test_check_refuses_a_malformed_exit_at_its_place(tmp_path, new, message):
    from test_avd_rules import diagnostics
    found = diagnostics(tmp_path, "exit minsk-box-edge to minsk-pocket by soviet when minsk-cleared == 0", new)
    assert any(message in d for d in found), found
