"""A Victory Denied's retreat and advance (撤退 6, 推进 7 of
shared/rules/a-victory-denied.zh.txt), on the stand-in board of
tests/games/avd-stand-in: PVO units stand (6 k), German motorized units
retreat into enemy ZOC beside Germans for free (6 g ii), motorized units
advance 2 hexes and PVO none (7 ii, vi)."""
from __future__ import annotations

import pytest

from dsl.compiler import compile_game
from runtime.retreat import advance_limit, retreat_paths
from runtime.runner import Runner

from test_avd_rules import avd_folder, diagnostics


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    return compile_game(avd_folder(tmp_path_factory.mktemp("avd")))


def empty_board(runner):
    s = runner.new_game(seed=1)
    for uid, u in s.units.items():
        if u.hex is not None:
            s.place(uid, None, "removed")
    return s


def retreat(runner, s, units: list[str], hexes: int, enemy: str):
    """Settle a CRT retreat of ``units`` (a defending stack) by ``hexes``."""
    s.pending = [{"kind": "retreat-all", "units": units, "hexes": hexes, "enemy": enemy}]
    runner.engine._settle(s)
    return s


def test_the_retreat_rules_are_declared(game):
    r = game.retreat
    assert (r.toward, r.enemy_zoc, r.overstack) == ("supply", "lose-step", "extend")
    assert r.stand == {"pvo"} and r.zoc_free_with_friends == {"panzer"}


# ------------------------------------------------------------------ 6 k: PVO never retreats

def test_a_pvo_unit_loses_a_step_instead_of_retreating_and_its_stack_mate_then_retreats(game):
    runner = Runner(game)
    s = empty_board(runner)
    h = game.map.grid.parse_id("2514")
    s.place("PVO1", h)
    s.place("28RD", h)
    s.place("4Pz", game.map.grid.parse_id("2614"))
    s = retreat(runner, s, ["PVO1", "28RD"], 1, "german")
    assert s.units["PVO1"].hex is None and "PVO1" in s.lost          # one step: a DR destroys it (k i)
    assert {"stands": "PVO1", "steps": 1} in s.log
    # then the stack-mate retreats (k ii): its retreat is the decision due, or done already
    assert (s.pending and s.pending[0]["kind"] == "retreat" and s.pending[0]["unit"] == "28RD") \
        or s.units["28RD"].hex != h


@pytest.fixture(scope="module")
def rifles_stand(tmp_path_factory):
    """The same rules with rifle divisions (two steps) standing like PVO."""
    folder = avd_folder(tmp_path_factory.mktemp("avd-stand"))
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    (folder / "game.hxr").write_text(text.replace("  stand pvo ", "  stand rifle ", 1), encoding="utf-8")
    return compile_game(folder)


def test_the_stack_stays_while_the_standing_unit_lives(rifles_stand):
    runner = Runner(rifles_stand)
    s = empty_board(runner)
    h = rifles_stand.map.grid.parse_id("2514")
    s.place("28RD", h)
    s.place("1MRD", h)
    s = retreat(runner, s, ["28RD", "1MRD"], 1, "german")              # DR: one step
    assert s.units["28RD"].hex == h and s.units["28RD"].step == 1
    assert s.units["1MRD"].hex == h and s.units["1MRD"].step == 0 and not s.pending


def test_a_dr2_costs_two_steps_and_then_the_stack_mates_retreat(rifles_stand):
    runner = Runner(rifles_stand)
    s = empty_board(runner)
    h = rifles_stand.map.grid.parse_id("2514")
    s.place("28RD", h)
    s.place("1MRD", h)
    s = retreat(runner, s, ["28RD", "1MRD"], 2, "german")              # DR2: two steps, 28RD is gone
    assert s.units["28RD"].hex is None and "28RD" in s.lost
    while s.pending and s.pending[0]["kind"] == "retreat":
        s = runner.engine.apply(s, runner.engine.legal_actions(s)[0])
    assert s.units["1MRD"].hex is not None and s.units["1MRD"].hex.distance(h) == 2


# ------------------------------------------------------------------ 6 g ii: motorized into ZOC beside Germans

def test_german_motorized_units_retreat_into_enemy_zoc_beside_germans_for_free(game):
    runner = Runner(game)
    s = empty_board(runner)
    grid, board = game.map.grid, runner.board
    start = grid.parse_id("3010")               # 3009 and 3110 are the hexes closer to German supply
    s.place("31ID2", grid.parse_id("3009"))     # a German unit there
    s.place("28RD", grid.parse_id("3008"))      # a Soviet ZOC over 3009 ...
    s.place("38RD", grid.parse_id("3210"))      # ... and over 3110

    def paths(uid, hexes):
        s.place(uid, start)
        out = [([board.hex_id(h) for h in p.hexes], p.losses) for p in retreat_paths(game, board, s, uid, hexes, "soviet")]
        s.place(uid, None, "removed")
        return out

    assert paths("4Pz", 1) == [(["3009"], 0)]                        # motorized: no loss beside the 31st
    assert paths("31ID", 1) == [(["3009"], 1), (["3110"], 1)]        # infantry: a step either way
    assert paths("4Pz", 2) == [(["3009", "3109"], 1)]                # 3109 holds no German: a step


# ------------------------------------------------------------------ 推进 7

def test_motorized_units_advance_two_hexes_others_one_pvo_none(game):
    runner = Runner(game)
    assert [advance_limit(game, runner.board, u) for u in ("4Pz", "1MRD", "31ID", "28RD", "PVO1")] == [2, 2, 1, 1, 0]


# ------------------------------------------------------------------ what check refuses

@pytest.mark.parametrize("old,new,message", [
    ("  stand pvo ", "  stand pv0 ", "'pv0' is not a unit class, class flag"),
    ("  zoc-free-with-friends panzer ", "  zoc-free-with-friends panzr ", "'panzr' is not a unit class"),
    ("  enemy-zoc lose-step\n", "  enemy-zoc allowed\n", "zoc-free-with-friends is not read when enemy-zoc is allowed"),
    ("  first-hex-across major-river", "  first-hex-across major-rivr", "major-rivr"),
    ("  first-hex-across major-river", "  first-hex-across road", "road"),
])
def test_check_refuses_a_bad_retreat_declaration_at_its_place(tmp_path, old, new, message):
    found = diagnostics(tmp_path, old, new)
    assert any(message in d for d in found), found


# ------------------------------------------------------------------ 7 iii: an unbridged major river

@pytest.fixture(scope="module")
def river(tmp_path_factory):
    """The stand-in board with an unbridged major river along 2114/2115 and 2214/2215."""
    folder = avd_folder(tmp_path_factory.mktemp("avd-river"))
    text = (folder / "map.hxm").read_text(encoding="utf-8")
    old = "    3005/3006  minor-river\n"
    assert old in text
    (folder / "map.hxm").write_text(text.replace(old, old + "    2114/2115  major-river\n    2214/2215  major-river\n"),
                                    encoding="utf-8")
    return compile_game(folder)


def advances(runner, s, uid, vacated):
    from runtime.retreat import advance_paths
    b = runner.board
    return sorted([b.hex_id(h) for h in p] for p in advance_paths(runner.game, b, s, uid, b.parse(vacated)))


def test_a_motorized_advance_crosses_an_unbridged_major_river_only_into_its_first_hex(river):
    runner = Runner(river)
    s = empty_board(runner)
    s.place("4Pz", river.map.grid.parse_id("2114"))
    assert advances(runner, s, "4Pz", "2115") == [["2115"]]             # across first: and no further
    s.place("4Pz", river.map.grid.parse_id("2113"))
    paths = advances(runner, s, "4Pz", "2114")
    assert ["2114"] in paths and any(len(p) == 2 for p in paths)
    assert ["2114", "2115"] not in paths                                 # not across as its second hex
    s.place("4Pz", river.map.grid.parse_id("3005"))                     # a minor river does not stop it
    assert any(len(p) == 2 for p in advances(runner, s, "4Pz", "3006"))


def test_a_bridged_major_river_does_not_stop_an_advance(game):
    runner = Runner(game)
    s = empty_board(runner)
    s.place("4Pz", game.map.grid.parse_id("2009"))                      # 2009/2010: a road bridges it
    assert any(len(p) == 2 for p in advances(runner, s, "4Pz", "2010"))
