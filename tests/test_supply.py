"""Lines of communication (runtime/supply.py): hand-built boards for each
rule, then property tests on random boards against a brute-force per-hex
search and the plain reference implementation."""
from __future__ import annotations

import random
import tempfile
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl.compiler import compile_game
from runtime.board import Board
from runtime.definition import MapDef, MapHex, frozen_map
from runtime.hexes import Grid, Hex, Hexside
from runtime.state import new_state
from runtime.supply import supply_map, supply_map_reference, supply_status, trace_line
from runtime.zoc import enemy_zoc

from helpers import make_game

# Side a traces like the Soviets in Smolensk (no length limit); side b like
# the Axis (rail net from its sources, then 6 hexes off it).
GAME = """\
game sup "Supply test" { map "map.hxm" }
dice d6
side a "A" { colour "#aa0000" }
side b "B" { colour "#0000aa" }
unit-class inf "Infantry" { symbol infantry; factors strength move }
unit-class fortress "Fortress" { symbol fortress; factors strength; flags fortress immobile }
terrain clear "Clear" { colour "#eeeecc" }
terrain forest "Forest" { colour "#88aa66" }
terrain sea "Sea" { colour "#6688cc" }
terrain mountain "Mountain" { colour "#b9a27f" }
feature town "Town" { colour "#555555" }
hexside river "River" { colour "#2244cc" }
hexside major-river "Major river" { colour "#1f5fa8" }
link road "Road" { colour "#885522" }
link rail "Railway" { colour "#202020" }
terrain-effects {
  bridges road rail
  table {
    terrain      move:all  left-shift
    clear        1         0
    forest       2         1
    sea          no        no
    mountain     no        2
    town         -         1
    river        +1        -
    major-river  all       -
    road         1         -
  }
}
zoc { not-into sea; negated-by fortress }
supply {
  blocked-by enemy-units enemy-zoc
  friendly-negates-zoc yes
  impassable sea
  impassable mountain unless road
  blocking-hexsides major-river
  rail b 6
}
results std {
  table {
    code  attacker  defender  retreat
    R     0         0         1
  }
}
crt std "CRT" {
  results std
  table {
    die  1-1
    1    R
    2    R
    3    R
    4    R
    5    R
    6    R
  }
}
counters a-units {
  side a
  table {
    id   class     full
%(a_rows)s
  }
}
counters b-units {
  side b
  table {
    id   class     full
%(b_rows)s
  }
}
pool reserve "Reserve pool" { side both }
turn-track {
  table {
    turn  date
    1     "June 1"
  }
}
scenario basic "Basic" {
  turns 1 1
  setup {
    table {
      counter  at
      A1       reserve
    }
  }
}
sequence { phase end-of-turn "End of turn" { procedure advance-turn } }
"""

N_UNITS = 10


def game_text() -> str:
    a = [f"    A{i}   inf       3-4" for i in range(1, N_UNITS + 1)] + ["    AF   fortress  4"]
    b = [f"    B{i}   inf       3-4" for i in range(1, N_UNITS + 1)] + ["    BF   fortress  4"]
    return GAME % {"a_rows": "\n".join(a), "b_rows": "\n".join(b)}


def map_text(cols: int, rows: int, terrain: dict[str, str] | None = None, extra: str = "") -> str:
    """A map: every hex clear unless ``terrain`` says otherwise ("sea",
    "mountain", "clear town"), plus ``extra`` lines (paths, supply, hexsides)."""
    lines = ["map t", f"grid {{ orientation flat; shifted even; columns 01-{cols:02d}; rows 01-{rows:02d} }}",
             "default clear"]
    if terrain:
        lines += ["hexes {", "  table {", "    hex  terrain  features"]
        for hid, t in sorted(terrain.items()):
            ter, *feat = t.split()
            lines.append(f"    {hid}  {ter}  {feat[0] if feat else '-'}")
        lines += ["  }", "}"]
    return "\n".join(lines) + "\n" + extra


def corridor(cols: int, **special: str) -> dict[str, str]:
    """Rows 01 and 03 sea, row 02 clear: a one-hex-wide corridor 0102 ... 0N02
    (row-02 hexes of consecutive columns are adjacent)."""
    t = {f"{c:02d}{r:02d}": "sea" for c in range(1, cols + 1) for r in (1, 3)}
    t.update(special)
    return t


class Setup:
    def __init__(self, tmp_path: Path, map_src: str, units: dict[str, str] | None = None, **rules):
        game = compile_game(make_game(tmp_path, game_text(), map_src))
        if rules:
            game = replace(game, supply=replace(game.supply, **{
                k: frozen_map(v) if isinstance(v, dict) else v for k, v in rules.items()}))
        self.game = game
        self.board = Board(game)
        self.state = new_state(game)
        for uid, hid in (units or {}).items():
            self.place(uid, hid)

    def place(self, uid: str, hid: str | None) -> None:
        self.state.place(uid, self.board.parse(hid) if hid else None, "removed")

    def h(self, hid: str) -> Hex:
        return self.board.parse(hid)

    def smap(self, side: str = "a") -> dict[str, int]:
        m = supply_map(self.game, self.board, self.state, side)
        assert m == supply_map_reference(self.game, self.board, self.state, side)
        return {self.board.hex_id(h): n for h, n in m.items()}

    def status(self, side: str = "a") -> dict[str, bool]:
        return supply_status(self.game, self.board, self.state, side)

    def line(self, hid: str, side: str = "a") -> list[str] | None:
        p = trace_line(self.game, self.board, self.state, side, self.h(hid))
        return None if p is None else [self.board.hex_id(h) for h in p]


CORRIDOR_SUPPLY = "supply a 0102\n"


# ---------------------------------------------------------------- hand-built boards

def test_open_corridor_lengths_and_line(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY), {"A1": "0802"})
    m = s.smap()
    assert m == {f"0{c}02": c - 1 for c in range(1, 9)}  # sea is never entered
    assert s.status() == {"A1": True}
    assert s.line("0802") == [f"0{c}02" for c in range(1, 9)]
    assert s.line("0101") is None  # sea


def test_blocked_by_enemy_unit(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY), {"B1": "0502", "A1": "0702"},
              blocked_by_enemy_zoc=False)
    m = s.smap()
    assert m == {"0102": 0, "0202": 1, "0302": 2, "0402": 3}
    assert s.status() == {"A1": False}
    s.place("B1", None)  # the enemy leaves: the cache is keyed on the state version
    assert s.status() == {"A1": True}


def test_enemy_units_do_not_block_when_the_rule_is_off(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY), {"B1": "0502", "A1": "0702"},
              blocked_by_enemy_zoc=False, blocked_by_enemy_units=False)
    assert s.smap()["0502"] == 4
    assert s.status() == {"A1": True}


def test_source_holding_an_enemy_unit_does_not_count(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY), {"B1": "0102", "A1": "0302"},
              blocked_by_enemy_zoc=False)
    assert s.smap() == {}
    assert s.status() == {"A1": False}
    assert s.line("0302") is None


# B1 in the clear hex 0503 (off the corridor) puts 0402, 0502, 0602 in its ZOC.
ZOC_TERRAIN = corridor(8, **{"0503": "clear"})


def test_enemy_zoc_blocks_passing_through_but_a_line_may_end_there(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, ZOC_TERRAIN, CORRIDOR_SUPPLY), {"B1": "0503", "A1": "0802"})
    z = enemy_zoc(s.game, s.board, s.state, "a")
    assert {s.board.hex_id(h) for h in z} == {"0402", "0502", "0602"}
    m = s.smap()
    assert m == {"0102": 0, "0202": 1, "0302": 2, "0402": 3}  # 0402: entered, not left
    assert s.status() == {"A1": False}
    assert s.line("0402") == ["0102", "0202", "0302", "0402"]


def test_friendly_units_negate_enemy_zoc(tmp_path):
    units = {"B1": "0503", "A1": "0402", "A2": "0502", "A3": "0602", "A4": "0802"}
    s = Setup(tmp_path, map_text(8, 3, ZOC_TERRAIN, CORRIDOR_SUPPLY), units)
    assert s.smap()["0802"] == 7
    assert s.status() == {"A1": True, "A2": True, "A3": True, "A4": True}
    # one hex of the ZOC left empty: the line ends there
    s.place("A2", None)
    assert s.status() == {"A1": True, "A3": False, "A4": False}
    assert s.smap()["0502"] == 4


def test_without_friendly_negation_a_unit_in_zoc_is_supplied_but_the_line_stops(tmp_path):
    units = {"B1": "0503", "A1": "0402", "A2": "0502", "A3": "0802"}
    s = Setup(tmp_path, map_text(8, 3, ZOC_TERRAIN, CORRIDOR_SUPPLY), units, friendly_negates_zoc=False)
    assert s.status() == {"A1": True, "A2": False, "A3": False}


def test_enemy_zoc_does_not_block_when_the_rule_is_off(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, ZOC_TERRAIN, CORRIDOR_SUPPLY), {"B1": "0503", "A1": "0802"},
              blocked_by_enemy_zoc=False)
    assert s.status() == {"A1": True}


def test_fortress_negates_zoc_for_its_side(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, ZOC_TERRAIN, CORRIDOR_SUPPLY),
              {"B1": "0503", "AF": "0402", "A1": "0502", "A2": "0602", "A3": "0802"}, friendly_negates_zoc=False)
    # 0402 holds a fortress (no ZOC there); 0502 is still enemy ZOC
    assert s.status() == {"AF": True, "A1": True, "A2": False, "A3": False}


def test_source_in_enemy_zoc_supplies_only_itself(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, ZOC_TERRAIN, "supply a 0402\n"), {"B1": "0503", "A1": "0302"},
              friendly_negates_zoc=False)
    assert s.smap() == {"0402": 0}
    assert s.status() == {"A1": False}


def test_sea_is_impassable(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8, **{"0402": "sea"}), CORRIDOR_SUPPLY), {"A1": "0602"})
    assert s.smap() == {"0102": 0, "0202": 1, "0302": 2}
    assert s.status() == {"A1": False}


def test_a_line_goes_round_a_sea(tmp_path):
    # open 9x9 map, a sea wall in column 05 except 0509
    sea = {f"05{r:02d}": "sea" for r in range(1, 9)}
    s = Setup(tmp_path, map_text(9, 9, sea, "supply a 0103\n"), {"A1": "0903"})
    m = s.smap()
    assert "0503" not in m and m["0509"] >= 6
    assert m["0903"] > s.h("0103").distance(s.h("0903"))
    path = s.line("0903")
    assert path[0] == "0103" and path[-1] == "0903" and "0509" in path
    assert len(path) - 1 == m["0903"]


def test_impassable_feature(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8, **{"0402": "clear town"}), CORRIDOR_SUPPLY), {"A1": "0602"},
              impassable=frozenset({"sea", "town"}))
    assert s.status() == {"A1": False}
    assert "0402" not in s.smap()


def test_mountain_only_along_a_road(tmp_path):
    t = corridor(8, **{"0402": "mountain"})
    s = Setup(tmp_path, map_text(8, 3, t, CORRIDOR_SUPPLY), {"A1": "0602"})
    assert s.smap() == {"0102": 0, "0202": 1, "0302": 2}
    assert s.status() == {"A1": False}
    # a road into the mountain hex: entered along it, left by any hexside
    s = Setup(tmp_path, map_text(8, 3, t, CORRIDOR_SUPPLY + "path road 0302 0402\n"), {"A1": "0602"})
    assert s.smap()["0402"] == 3 and s.smap()["0602"] == 5
    assert s.status() == {"A1": True}
    # a road that leaves the mountain hex but does not enter it from the west
    s = Setup(tmp_path, map_text(8, 3, t, CORRIDOR_SUPPLY + "path road 0402 0502\n"), {"A1": "0602"})
    assert "0402" not in s.smap()
    assert s.status() == {"A1": False}
    # a rail is not a road
    s = Setup(tmp_path, map_text(8, 3, t, CORRIDOR_SUPPLY + "path rail 0302 0402\n"), {"A1": "0602"})
    assert s.status() == {"A1": False}


def test_blocking_hexside_unless_bridged(tmp_path):
    river = "hexsides {\n  table {\n    hexside  features\n    0302/0402  %s\n  }\n}\n"
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY + river % "major-river"), {"A1": "0602"})
    assert s.smap() == {"0102": 0, "0202": 1, "0302": 2}
    assert s.status() == {"A1": False}
    # a plain river is not a blocking hexside
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY + river % "river"), {"A1": "0602"})
    assert s.status() == {"A1": True}
    # a road bridges the major river
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY + river % "major-river"
                                 + "path road 0302 0402\n"), {"A1": "0602"})
    assert s.smap()["0602"] == 5
    assert s.status() == {"A1": True}
    # with no blocking hexsides declared the major river is crossed (Smolensk 3.3(2))
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY + river % "major-river"), {"A1": "0602"},
              blocking_hexsides=frozenset())
    assert s.status() == {"A1": True}


# Rail: an open 16x5 map, a railway along row 03 from the source 0103 to 0603.
RAIL = "supply b 0103\npath rail 0103 0203 0303 0403 0503 0603\n"


def test_rail_net_then_six_hexes_off_it(tmp_path):
    s = Setup(tmp_path, map_text(16, 5, None, RAIL), {"B1": "1203", "B2": "1303"})
    m = s.smap("b")
    assert all(m[f"0{c}03"] == 0 for c in range(1, 7))  # the rail net
    assert m["1203"] == 6 and "1303" not in m  # 6 hexes off the railway: supplied; 7: not
    assert max(m.values()) == 6
    assert s.status("b") == {"B1": True, "B2": False}
    path = s.line("1203", "b")
    assert path[0] == "0103" and path[-1] == "1203" and "0603" in path
    assert len(path) == 12
    # the same map for a side without the rail rule: unlimited
    assert s.smap("a") == {}  # (side a has no source here)


def test_rail_net_broken_by_an_enemy_unit(tmp_path):
    s = Setup(tmp_path, map_text(16, 5, None, RAIL), {"A1": "0403", "B1": "0903", "B2": "1003"},
              blocked_by_enemy_zoc=False)
    m = s.smap("b")
    assert m["0303"] == 0 and "0403" not in m
    assert m["0503"] == 2 and m["0603"] == 3  # round the enemy, off the rail now
    assert m["0903"] == 6 and "1003" not in m
    assert s.status("b") == {"B1": True, "B2": False}


def test_rail_net_stops_in_enemy_zoc(tmp_path):
    # A1 at 0502 puts 0503 (on the railway) in enemy ZOC: the rail trace may
    # enter it but not leave it.
    s = Setup(tmp_path, map_text(16, 5, None, RAIL), {"A1": "0502"})
    z = {s.board.hex_id(h) for h in enemy_zoc(s.game, s.board, s.state, "b")}
    assert "0503" in z and "0403" not in z and "0603" not in z
    m = s.smap("b")
    assert m["0403"] == 0 and m["0503"] == 0  # reached along the rail
    assert m["0603"] == 2  # not through 0503: round it, off the rail
    assert m["1003"] == 6 and "1103" not in m


def test_range_limit(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY), {"A1": "0402", "A2": "0502"},
              range={"a": 3})
    assert s.smap() == {"0102": 0, "0202": 1, "0302": 2, "0402": 3}
    assert s.status() == {"A1": True, "A2": False}


def test_rail_and_range_the_smaller_limit(tmp_path):
    s = Setup(tmp_path, map_text(16, 5, None, RAIL), range={"b": 2})
    m = s.smap("b")
    assert m["0803"] == 2 and "0903" not in m


def test_map_edge_sources(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8), "supply a edge:east\n"), {"A1": "0102"})
    assert s.smap()["0102"] == 7
    assert s.status() == {"A1": True}


def test_cached_on_state_version(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY), {"A1": "0802"})
    first = supply_map(s.game, s.board, s.state, "a")
    assert ("supply", "a", s.state.version) in s.state.cache
    first.clear()  # callers get a copy
    assert supply_map(s.game, s.board, s.state, "a")[s.h("0802")] == 7
    s.place("B1", "0402")
    assert s.status() == {"A1": False}


def test_units_off_the_map_are_not_listed(tmp_path):
    s = Setup(tmp_path, map_text(8, 3, corridor(8), CORRIDOR_SUPPLY), {"A1": "0802"})
    assert s.status() == {"A1": True}
    assert s.status("b") == {}


# ---------------------------------------------------------------- property tests

@lru_cache(maxsize=1)
def base_game():
    folder = make_game(Path(tempfile.mkdtemp(prefix="hexforge-supply-")), game_text(), map_text(3, 3))
    return compile_game(folder)


def random_board(rnd: random.Random, rules: dict):
    base = base_game()
    cols, rows = rnd.randint(3, 9), rnd.randint(3, 7)
    grid = Grid("flat", "even", 1, 1, cols, rows, 2, 2)
    hexes = {}
    for h in grid.all_hexes():
        if rnd.random() < 0.06:
            continue  # not in play
        t = rnd.choices(["clear", "forest", "sea", "mountain"], [6, 2, 1.2, 1.5])[0]
        hexes[h] = MapHex(h, t, ("town",) if rnd.random() < 0.12 else ())
    hexsides: dict[Hexside, frozenset[str]] = {}
    links: dict[str, set[Hexside]] = {"road": set(), "rail": set()}
    for h in hexes:
        for n in h.neighbours():
            if n in hexes and h < n:
                side = Hexside(h, n)
                if rnd.random() < 0.18:
                    hexsides[side] = frozenset({rnd.choice(["river", "major-river"])})
                if rnd.random() < 0.2:
                    links["road"].add(side)
                if rnd.random() < 0.3:
                    links["rail"].add(side)
    in_play = sorted(hexes)
    supply = {s: frozenset(rnd.sample(in_play, rnd.randint(1, 3))) for s in ("a", "b")}
    edges = {s: tuple(rnd.sample(["west", "east", "north", "south"], rnd.randint(0, 1))) for s in ("a", "b")}
    m = MapDef("random", grid, "clear", frozen_map(hexes), frozen_map(hexsides),
               frozen_map({k: frozenset(v) for k, v in links.items()}), frozen_map(supply), frozen_map(edges),
               frozen_map({}))
    game = replace(base, map=m, supply=replace(base.supply, **rules))
    board = Board(game)
    state = new_state(game)
    side_at: dict[Hex, str] = {}
    for uid, u in state.units.items():
        if rnd.random() < 0.55:
            h = rnd.choice(in_play)
            if side_at.setdefault(h, u.side) == u.side:  # never two sides in a hex
                state.place(uid, h)
    return game, board, state


def brute_force(game, state, side: str, target: Hex) -> int | None:
    """The length of a shortest line from a source of ``side`` to ``target``,
    found by a search backwards from ``target``, every step checked in the
    direction the line runs (source -> target), from the map data and the
    rules directly (not the Board)."""
    rules, m = game.supply, game.map
    enemy = {u.hex for u in state.units.values() if u.hex is not None and u.side != side}
    friend = {u.hex for u in state.units.values() if u.hex is not None and u.side == side}
    zoc = enemy_zoc(game, Board(game), state, side) if rules.blocked_by_enemy_zoc else set()
    link_at: dict[Hexside, set[str]] = {}
    for kind, sides in m.links.items():
        for s in sides:
            link_at.setdefault(s, set()).add(kind)

    cities = {h for h, mh in m.hexes.items() if "city" in mh.features}
    for h in cities:  # a chart may join adjacent cities by road and rail
        for n in h.neighbours():
            if n in cities:
                link_at.setdefault(Hexside(h, n), set()).update(game.chart.adjacent_cities_linked)

    def kinds(h):
        return {m.hexes[h].terrain, *m.hexes[h].features}

    def enterable(h):
        return not (rules.blocked_by_enemy_units and h in enemy) and not (kinds(h) & rules.impassable)

    def can_step(p, x):  # the line runs p -> x
        if p in zoc and not (rules.friendly_negates_zoc and p in friend):
            return False  # it would pass through enemy ZOC
        if not enterable(x):
            return False
        ls = link_at.get(Hexside(p, x), set())
        if any(k in rules.impassable_unless and rules.impassable_unless[k] not in ls for k in kinds(x)):
            return False
        feats = m.hexsides.get(Hexside(p, x), frozenset())
        bridged = bool(feats) and bool(ls & game.chart.bridging_links)
        return bridged or not (feats & rules.blocking_hexsides)

    def nbrs(h):
        return [n for n in h.neighbours() if n in m.hexes]

    sources = set(m.supply.get(side, ()))
    edge_of = {}
    for h in m.hexes:
        c, r = m.grid.to_colrow(h)
        edge_of.setdefault(("west", r), []).append((c, h))
        edge_of.setdefault(("east", r), []).append((-c, h))
        edge_of.setdefault(("north", c), []).append((r, h))
        edge_of.setdefault(("south", c), []).append((-r, h))
    for e in m.supply_edges.get(side, ()):
        sources |= {min(v)[1] for (name, _), v in edge_of.items() if name == e}
    origins = {h for h in sources if enterable(h)}
    if side in rules.rail:  # fixpoint: the rail net
        changed = True
        while changed:
            changed = False
            for p in list(origins):
                for x in nbrs(p):
                    if x not in origins and "rail" in link_at.get(Hexside(p, x), ()) and can_step(p, x):
                        origins.add(x)
                        changed = True
    limits = [n for n in (rules.rail.get(side), rules.range.get(side)) if n is not None]
    limit = min(limits) if limits else len(m.hexes)
    layer, seen = {target}, {target}
    for length in range(limit + 1):
        if layer & origins:
            return length
        nxt = set()
        for x in layer:
            for p in nbrs(x):
                if p not in seen and can_step(p, x):
                    nxt.add(p)
        seen |= nxt
        layer = nxt
        if not layer:
            return None
    return None


rule_sets = st.fixed_dictionaries({
    "blocked_by_enemy_units": st.booleans(),
    "blocked_by_enemy_zoc": st.booleans(),
    "friendly_negates_zoc": st.booleans(),
    "impassable": st.sampled_from([frozenset({"sea"}), frozenset({"sea", "town"}), frozenset()]),
    "impassable_unless": st.sampled_from([{"mountain": "road"}, {}, {"mountain": "road", "town": "rail"}]).map(
        frozen_map),
    "blocking_hexsides": st.sampled_from([frozenset({"major-river"}), frozenset({"river", "major-river"}),
                                          frozenset()]),
    "rail": st.sampled_from([{}, {"b": 6}, {"b": 1}, {"a": 0, "b": 2}]).map(frozen_map),
    "range": st.sampled_from([{}, {"a": 3}, {"b": 1}]).map(frozen_map),
})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=rule_sets)
def test_property_one_search_equals_brute_force_and_reference(seed, rules):
    game, board, state = random_board(random.Random(seed), rules)
    for side in ("a", "b"):
        state.cache.clear()
        m = supply_map(game, board, state, side)
        assert m == supply_map_reference(game, board, state, side)
        for h in game.map.hexes:
            assert m.get(h) == brute_force(game, state, side, h), (side, board.hex_id(h))
        status = supply_status(game, board, state, side)
        assert status == {u.id: brute_force(game, state, side, u.hex) is not None
                          for u in state.units.values() if u.hex is not None and u.side == side}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=rule_sets)
def test_property_trace_line_is_a_legal_shortest_line(seed, rules):
    game, board, state = random_board(random.Random(seed), rules)
    for side in ("a", "b"):
        m = supply_map(game, board, state, side)
        sources = board.supply_sources(side)
        for h in game.map.hexes:
            path = trace_line(game, board, state, side, h)
            if h not in m:
                assert path is None
                continue
            assert path[0] in sources and path[-1] == h
            assert len(set(path)) == len(path)
            steps = list(zip(path, path[1:]))
            for a, b in steps:
                assert b in dict(board.adj[a])
            # every step is legal: the prefix of each line is itself supplied, one step shorter or on the rail net
            off = len(steps) - m[h]
            assert off >= 0
            if side not in game.supply.rail:
                assert off == 0
            for a, b in steps[:off]:
                assert "rail" in board.edge(a, b).links
            for i, x in enumerate(path[off:]):
                assert m[x] == i


def test_gekitou_rules_on_a_synthetic_game(tmp_path):
    """The series rules as compiled (rail axis 6, sea, mountain unless road)
    on a generated board: the search, the reference and the brute force agree."""
    from bench.bench_supply import scenario_state
    from bench.synthetic import synthetic_game

    game, _ = synthetic_game(30, 16, 60, seed=3, folder=tmp_path)
    assert game.supply.rail == {"axis": 6}
    board = Board(game)
    state = scenario_state(game, board)
    for side in ("axis", "soviet"):
        m = supply_map(game, board, state, side)
        assert m == supply_map_reference(game, board, state, side)
        assert m and (side != "axis" or max(m.values()) <= 6)
        status = supply_status(game, board, state, side)
        assert len(status) == 30
        for u in state.on_map(side):
            assert status[u.id] == (brute_force(game, state, side, u.hex) is not None)
