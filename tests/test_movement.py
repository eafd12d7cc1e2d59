"""Movement: the Smolensk 9.2 and 9.3 worked examples and the rules around
them, then invariants on random positions."""
from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime.board import Board
from runtime.movement import MoveError, move_range, why_not

from helpers import gekitou_game, setup_state

INF5 = "X german infantry 3-5 2-5"  # a German infantry division with 5 MP


def ids(game, *hexes):
    return [game.map.grid.format_id(h) for h in hexes]


def build(tmp_path, counters, setup, **kw):
    game = gekitou_game(tmp_path, counters, setup, **kw)
    return game, Board(game), setup_state(game)


def test_worked_example_9_2(tmp_path):
    # X starts at 0505 in the ZOC of E1 (NE of it) and E2 (SW).  A (north,
    # clear) is in E1's ZOC; B (SE, heavy forest) in E1's; C (south, across a
    # river) in E2's.
    from runtime.hexes import Grid
    g = Grid("flat", "even", 1, 1, 10, 10)
    start = g.parse_id("0505")
    a, e1, b, c, e2 = (start.neighbour(d) for d in (0, 1, 2, 3, 4))
    A, E1, B, C, E2 = (g.format_id(h) for h in (a, e1, b, c, e2))
    game, board, state = build(
        tmp_path, [INF5, "E1 red-army infantry 2-5 1-5", "E2 red-army infantry 2-5 1-5"],
        ["X 0505", f"E1 {E1}", f"E2 {E2}"],
        hexes=[f"{B} heavy-forest"], hexsides=[f"0505/{C} river"])
    r = move_range(game, board, state, "X")
    assert r.mp_to(a) == 5 and a in r.destinations          # 1 + 2 (leave) + 2 (enter)
    assert b not in r.cost and c not in r.cost                  # 2 + 4 = 6 and 1 + 1 + 4 = 6
    assert why_not(game, board, state, "X", b) == f"X cannot enter {B}: needs 6 MP, has 5"
    assert why_not(game, board, state, "X", c) == f"X cannot enter {C}: needs 6 MP, has 5"
    assert why_not(game, board, state, "X", a) is None
    assert r.path_to(a) == [start, a]


def test_road_costs_one_mp_whatever_the_terrain(tmp_path):
    game, board, state = build(tmp_path, [INF5], ["X 0105"],
                               hexes=[f"{h} heavy-forest" for h in ("0205", "0305", "0405", "0505", "0605")],
                               paths=["path road 0105 0205 0305 0405 0505 0605"])
    r = move_range(game, board, state, "X")
    far = game.map.grid.parse_id("0605")
    assert r.mp_to(far) == 5
    assert [game.map.grid.format_id(h) for h in r.path_to(far)] == ["0105", "0205", "0305", "0405", "0505", "0605"]


def test_march_mode_half_cost_along_roads_and_never_into_enemy_zoc(tmp_path):
    road = ["0102", "0202", "0302", "0402", "0502", "0602", "0702", "0802", "0902", "1002"]
    game, board, state = build(tmp_path, [INF5, "E red-army infantry 2-5 1-5"], ["X 0102", "E 0903"],
                               paths=["path road " + " ".join(road)])
    r = move_range(game, board, state, "X", mode="march")
    g = game.map.grid
    reached = sorted(g.format_id(h) for h in r.cost)
    # 5 MP at 1/2 per road hex would reach 10 hexes, but 0802 and beyond are in E's ZOC
    assert "0702" in reached and "0802" not in reached
    assert r.mp_to(g.parse_id("0702")) == 3
    assert all(h in {g.parse_id(x) for x in road} for h in r.cost)  # every step along the road
    with pytest.raises(MoveError, match="does not start on a road"):
        move_range(game, board, state, "E", mode="march")


def river_line(col: int, kind: str = "major-river") -> list[str]:
    """Hexsides between column ``col`` and ``col + 1`` over the whole map."""
    from runtime.hexes import Grid
    g = Grid("flat", "even", 1, 1, 10, 10)
    out = []
    for r in range(1, 11):
        h = g.to_hex(col, r)
        for n in h.neighbours():
            if g.contains(n) and g.to_colrow(n)[0] == col + 1:
                out.append(f"{g.format_id(h)}/{g.format_id(n)} {kind}")
    return out


def test_major_river_only_from_the_start_and_it_ends_the_move(tmp_path):
    game, board, state = build(tmp_path, [INF5], ["X 0305"], hexsides=river_line(3) + river_line(5))
    g = game.map.grid
    r = move_range(game, board, state, "X")
    across = g.parse_id("0405")
    assert across in r.destinations and r.mp_to(across) == 5     # all MP, and the move ends
    assert r.path_to(across) == [g.parse_id("0305"), across]
    assert not any(g.to_colrow(h)[0] >= 5 for h in r.cost)     # nothing beyond the far bank
    # a unit that first moves along the near bank cannot cross afterwards
    state.place("X", g.parse_id("0205"))
    r2 = move_range(game, board, state, "X")
    assert not any(g.to_colrow(h)[0] >= 4 for h in r2.cost)


def test_a_bridge_negates_the_river(tmp_path):
    sides = [h if not h.startswith("0305/0405") else "0305/0405 major-river" for h in river_line(3)]
    game, board, state = build(tmp_path, [INF5], ["X 0305"], hexsides=sides, paths=["path road 0305 0405"])
    r = move_range(game, board, state, "X")
    assert r.mp_to(game.map.grid.parse_id("0405")) == 1
    assert any(game.map.grid.to_colrow(h)[0] >= 5 for h in r.cost)


def test_no_river_crossing_from_zoc_to_zoc(tmp_path):
    # 9.2(3)2: never across a major river from enemy ZOC to enemy ZOC
    game, board, state = build(tmp_path, ["X german panzer 6-4-10 3-2-10", "E red-army infantry 2-5 1-5"],
                               ["X 0305", "E 0404"], hexsides=river_line(3))
    g = game.map.grid
    assert g.parse_id("0405") not in move_range(game, board, state, "X").cost
    state.place("E", g.parse_id("0909"))
    assert g.parse_id("0405") in move_range(game, board, state, "X").cost


def test_enemy_hexes_cannot_be_entered_and_stacking_is_checked_at_the_end(tmp_path):
    game, board, state = build(tmp_path, [INF5, "F1 german infantry 3-5 2-5", "F2 german infantry 3-5 2-5",
                                          "E red-army infantry 2-5 1-5"],
                               ["X 0105", "F1 0205", "F2 0205", "E 0905"])
    g = game.map.grid
    r = move_range(game, board, state, "X")
    full = g.parse_id("0205")
    assert full in r.cost and full not in r.destinations          # passes through, may not stop
    assert g.parse_id("0305") in r.destinations                    # reached through the full hex
    assert "stacking limit is 2" in why_not(game, board, state, "X", full)
    assert why_not(game, board, state, "X", g.parse_id("0905")) == "X cannot enter 0905: it holds enemy units"


def test_sea_is_prohibited(tmp_path):
    game, board, state = build(tmp_path, [INF5], ["X 0105"], hexes=["0205 sea"])
    assert why_not(game, board, state, "X", game.map.grid.parse_id("0205")) == \
        "X cannot enter 0205: sea is prohibited"


def test_mechanized_pay_more_in_forest(tmp_path):
    game, board, state = build(tmp_path, ["P german panzer 6-4-10 3-2-10", INF5], ["P 0105", "X 0107"],
                               hexes=["0205 light-forest", "0207 light-forest"])
    g = game.map.grid
    assert move_range(game, board, state, "P").mp_to(g.parse_id("0205")) == 2
    assert move_range(game, board, state, "X").mp_to(g.parse_id("0207")) == 1


# ----------------------------------------------------------------- invariants

@pytest.fixture(scope="module")
def synthetic():
    from bench.synthetic import synthetic_game
    game, _ = synthetic_game(30, 20, units=60, seed=7)
    return game, Board(game)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), pick=st.integers(0, 10_000))
def test_no_move_ends_over_stacked_or_in_an_enemy_hex(synthetic, seed, pick):
    import random

    from runtime.state import new_state
    game, board = synthetic
    rnd = random.Random(seed)
    state = new_state(game)
    hexes = list(game.map.hexes)
    for cid in game.counters:
        for _ in range(20):
            h = rnd.choice(hexes)
            if len(state.units_at(h)) < 2 and state.side_at(h) in (None, state.units[cid].side):
                state.place(cid, h)
                break
    movers = [u for u in state.units.values() if u.hex is not None]
    unit = movers[pick % len(movers)]
    r = move_range(game, board, state, unit.id)
    for h in r.destinations:
        assert state.side_at(h) in (None, unit.side)
        assert len([x for x in state.units_at(h) if x.id != unit.id]) + 1 <= 2
        path = r.path_to(h)
        assert path[0] == unit.hex and path[-1] == h
        assert all(a.distance(b) == 1 for a, b in zip(path, path[1:]))
        assert r.cost[h] <= r.mp


def test_mountains_closed_except_by_road_or_to_mountain_troops(tmp_path):
    # 9.2(4): mountains are closed except along a road; a mountain division may
    # enter one by spending all its MP
    game, board, state = build(tmp_path, [INF5, "M german mountain 3-5 2-5"], ["X 0105", "M 0107"],
                               hexes=["0205 mountain", "0207 mountain", "0204 mountain"],
                               paths=["path road 0105 0204"])
    g = game.map.grid
    rx = move_range(game, board, state, "X")
    assert g.parse_id("0205") not in rx.cost and rx.mp_to(g.parse_id("0204")) == 1  # by road only
    rm = move_range(game, board, state, "M")
    assert rm.mp_to(g.parse_id("0207")) == 5 and g.parse_id("0207") in rm.destinations
    assert r_path_ends(rm, g.parse_id("0207"))


def r_path_ends(r, h):
    """An all-MP entry ends the move: nothing is reached through that hex."""
    return all(r.path_to(x)[-2] != h for x in r.cost if len(r.path_to(x)) > 1)
