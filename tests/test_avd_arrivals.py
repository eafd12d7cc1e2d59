"""A Victory Denied's German reinforcements (增援 5 f): they move onto the map
by strategic movement, 1/3 MP a road hex with their full MP from the entry
hex, never into enemy ZOC or a VP star; the 3rd Panzer Group's HQ at most 10
hexes (5 f iii) -- the arrivals' move-by of games/a-victory-denied/game.hxr,
on the stand-in board with a road from 3902 along column 39."""
from __future__ import annotations

import pytest

from dsl.compiler import compile_game
from runtime.runner import Runner

from test_avd_rules import avd_folder, diagnostics


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = avd_folder(tmp_path_factory.mktemp("avd-arrivals"))
    text = (folder / "map.hxm").read_text(encoding="utf-8")
    road = " ".join(f"39{r:02d}" for r in range(2, 18))                  # 3902 ... 3917: 15 road hexes on
    (folder / "map.hxm").write_text(text + f"path road {road}\n", encoding="utf-8")
    return compile_game(folder)


def targets(runner, s, arrival: str, uid: str) -> list[str]:
    return sorted(runner.board.hex_id(h) for h in runner.move_on_targets(s, runner.game.arrivals[arrival], uid))


def bare(runner):
    s = runner.new_game(seed=1).copy()
    for uid, u in s.units.items():
        if u.hex is not None:
            s.place(uid, None, "removed")
    return s


def test_the_arrivals_move_by_road_entry_and_the_movement_phases_do_not_offer_it(game):
    assert game.arrivals["ninth-army"].move_by == ("road-entry",)
    assert game.arrivals["third-panzer"].move_by == ("hq-entry", "road-entry")
    assert not game.arrivals["ninth-army"].move_on
    phases, stack = [], list(game.sequence)
    while stack:
        ph = stack.pop()
        phases += [ph] if ph.procedure == "move" else []
        stack.extend(ph.children)
    assert len(phases) == 2 and all(tuple(p.params["mode"]) == ("normal", "strategic") for p in phases)


def test_a_panzer_division_goes_24_road_hexes_and_the_3rd_panzer_group_hq_10(game):
    """5 f iii: "每格 1/3MP" -- every hex, the entry hex the first of them, with the unit's full MP."""
    runner = Runner(game)
    s = bare(runner)
    pz = targets(runner, s, "third-panzer", "7Pz")                      # 8 MP at 1/3: 24 hexes, the road ends at 3917
    assert "3917" in pz and "3902" in pz and all(h.startswith("39") for h in pz)
    inf = targets(runner, s, "third-panzer", "31ID")                    # 4 MP: 12 hexes, 3902 the first
    assert inf == [f"39{r:02d}" for r in range(2, 14)]
    hq = targets(runner, s, "third-panzer", "3PzG")                     # its HQ: 10 hexes at most (5 f iii 1)
    assert hq == [f"39{r:02d}" for r in range(2, 12)]


def test_a_move_onto_the_map_never_enters_enemy_zoc_nor_a_star(game):
    runner = Runner(game)
    s = bare(runner)
    s.place("28RD", game.map.grid.parse_id("4008"))                    # Soviet ZOC over 3908 (and 3909)
    pz = targets(runner, s, "third-panzer", "7Pz")
    assert "3907" in pz and not any(h >= "3908" for h in pz)
    inf = targets(runner, s, "ninth-army", "31ID")                      # 3106 -> 3006 2906, then Krupki's star 2806
    assert inf == ["2906", "3006", "3106"]


def test_an_arrival_places_where_its_move_ends_and_logs_the_path(game):
    runner = Runner(game)
    s = bare(runner)
    s.set_unit("7Pz", box="pool:arriving")
    s.step = {"decision": "place", "side": "german", "units": ["7Pz"], "n": 1, "placed": 0,
              "arrival": "third-panzer", "chit": "Reinf"}
    acts = [str(a) for a in runner.legal_actions(s)]
    assert "place 7Pz 3910" in acts and "place 7Pz 3901" not in acts
    s2 = runner.apply(s, "place 7Pz 3910")
    assert s2.units["7Pz"].hex == game.map.grid.parse_id("3910")
    entry = next(e for e in s2.log if e.get("moves-on") == "7Pz")
    assert entry["path"] == [f"39{r:02d}" for r in range(2, 11)] and entry["at"] == "3902"


@pytest.mark.parametrize("old,new,message", [
    ("  move-by road-entry ", "  move-by road-entri ", "road-entri"),
    ("  enter 3106\n  move-by road-entry ", "  enter 3106 move-on\n  move-by road-entry ",
     "move-by moves the units onto the map already"),
])
def test_check_refuses_a_bad_move_by_at_its_place(tmp_path, old, new, message):
    found = diagnostics(tmp_path, old, new)
    assert any(message in d for d in found), found


def test_the_soviets_buy_first_then_the_germans_enter(tmp_path_factory):
    """5 b: the Soviet purchase comes before the German arrivals (5 f), and once only."""
    from test_avd_rules import to_soviet_purchase
    game = compile_game(avd_folder(tmp_path_factory.mktemp("avd-order")))
    assert game.arrivals["ninth-army"].after_reinforcements and not game.arrivals["timoshenko"].after_reinforcements
    runner = Runner(game)
    s = to_soviet_purchase(runner, turn=2)
    assert s.step["decision"] == "place" and s.step["side"] == "soviet" and "points" in s.step
    arriving = sorted(u for u, x in s.units.items() if x.box == "pool:arriving" and x.side == "german")
    s = runner.apply(s, "done")                                         # the Soviets buy nothing
    seen = []
    while s.step.get("decision") == "place":
        assert s.step["side"] == "german"                              # never the Soviet purchase again
        seen.append(s.step.get("arrival", "german reinforcements"))
        s = runner.apply(s, "done")
    assert not arriving or any(a in ("ninth-army", "third-panzer") for a in seen)
    assert any(e.get("reinforcements") == "soviet" for e in s.log)
    assert "german reinforcements" not in seen                          # 5 c-e are the Soviets' alone
    assert not any(e.get("reinforcements") == "german" for e in s.log)


# ------------------------------------------------------------------ 5 h ii: escaped Soviet units; 5 a ii: Timoshenko

def test_escaped_soviet_units_enter_after_the_germans_where_bought_units_go_at_no_cost(tmp_path_factory):
    """5 h ii: "如果有苏军部队逃脱, 则在德军所有部队进场以后, 遵循苏军增援规则进场" -- not bought
    with the turn's points (they were before), after every German arrival, where 5 e places a bought unit."""
    from test_avd_rules import to_soviet_purchase
    game = compile_game(avd_folder(tmp_path_factory.mktemp("avd-escape")))
    runner = Runner(game)
    s = to_soviet_purchase(runner, turn=2)
    for u in ("24RD", "2RD"):                                           # escaped on the Minsk Escape Table
        s.place(u, None, "pool:minsk-escaped")
    assert "24RD" not in s.step["units"] and all(str(a) != "place 24RD 2010" for a in runner.legal_actions(s))
    points = s.step["points"]
    s = runner.apply(s, "done")                                         # the Soviet purchase
    seen = []
    while s.step.get("decision") == "place" and s.step.get("arrival") != "minsk-escapees":
        seen.append(s.step["side"])
        s = runner.apply(s, "done")
    assert set(seen) <= {"german"} and s.step["side"] == "soviet" and "points" not in s.step
    acts = [str(a) for a in runner.legal_actions(s)]
    t = s.copy()
    t.step = dict(t.step, units=["24RD"], points=points, per_hq={}, area="")
    assert {a for a in acts if a.startswith("place 24RD")} == \
        {f"place 24RD {runner.board.hex_id(h)}" for h in runner.placement_hexes(t, "24RD")}   # 5 e's hexes
    assert "place 24RD 3810" in acts                                     # a supplied star with a chit
    assert "place 24RD 2010" not in acts                                 # (28RD is brown too: 堆叠 2 b, d)
    s = runner.apply(s, "place 24RD 3810")
    assert s.units["24RD"].hex == game.map.grid.parse_id("3810")
    assert {"turn": 2, "enters": "24RD", "at": "3810", "arrival": "minsk-escapees"} in s.log
    s = runner.apply(s, "done")                                         # 2RD waits for the next chit
    assert s.units["2RD"].box == "pool:minsk-escaped"


def test_timoshenkos_reinforcements_move_and_fight_as_they_enter(tmp_path_factory):
    """5 a ii: "他们进入时可以执行一个正常的移动和战斗阶段": the Reinforcements chit's movement and
    combat segment is theirs (the entry hex's cost spent); the other units stay put."""
    from test_avd_rules import to_soviet_purchase
    game = compile_game(avd_folder(tmp_path_factory.mktemp("avd-tim")))
    assert game.arrivals["timoshenko"].activate and not game.arrivals["ninth-army"].activate
    runner = Runner(game)
    s = to_soviet_purchase(runner, turn=1)
    assert s.step.get("arrival") == "timoshenko"
    s = runner.apply(s, "place Tim 3443")
    s = runner.apply(s, "place 107TD 4143")
    while s.step.get("decision") == "place":                            # the rest, the purchase, the Germans
        s = runner.apply(s, "done")
    assert s.step["decision"] == "movement" and s.active == "soviet"
    assert {"Tim", "107TD"} <= s.activated and "28RD" not in s.activated
    assert {"turn": 1, "activate": "Reinf", "units": sorted(s.activated), "why": "arrived"} in s.log
    moves = {a.unit for a in runner.legal_actions(s) if hasattr(a, "to") and hasattr(a, "mode")}
    assert "107TD" in moves and "28RD" not in moves
    s = runner.apply(s, "done")
    assert s.step["decision"] == "combat" and s.active == "soviet"
    assert not any(k.startswith("activated:") for k in s.done)          # for this segment only


@pytest.mark.parametrize("old,new,message", [
    ("  enter as-reinforcements\n", "  enter as-reinforcements 3106\n", "it takes no entry hexes"),
    ("  enter as-reinforcements\n", "  enter as-reinforcements\n  move-by road-entry\n",
     "'enter as-reinforcements' has none"),
    ("  activate yes\n", "  activate maybe\n", "maybe"),
    ("  enter 3106\n  move-by road-entry ", "  enter 3106\n  activate yes\n  move-by road-entry ",
     "move-by moved them onto the map already"),
])
def test_check_refuses_a_bad_arrival_option_at_its_place(tmp_path, old, new, message):
    found = diagnostics(tmp_path, old, new)
    assert any(message in d for d in found), found
