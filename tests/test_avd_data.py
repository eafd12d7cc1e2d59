"""A Victory Denied's data (issue 14): the reconstructed map and the order of battle.

The rules file (games/a-victory-denied/game.hxr) is written on another branch; until it
is on main, these tests compile the data files under a small harness that declares
only what they name (sides, the TEC's terrain kinds, the turn track)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dsl.compiler import compile_game
from runtime.hexes import hexside

from helpers import GAMES

AVD = GAMES / "a-victory-denied"

# What game.hxr must declare for the data files (the ids they use).
HARNESS = """\
game a-victory-denied "A Victory Denied (data harness)" { map "map.hxm" }
dice d6 d10
side german "German" { colour "#9aa0a6" }
side soviet "Soviet" { colour "#b5562c"; text-colour "#ffffff" }
terrain clear "Clear" { colour "#e9e4c4" }
terrain swamp "Swamp" { colour "#a9cfc4"; pattern marsh }
terrain woods "Woods" { colour "#8fbf6a"; pattern trees }
terrain hill "Hill" { colour "#c8b48a"; pattern hills }
terrain town "Town" { colour "#b0a090" }
terrain city "City" { colour "#d23c2c" }
hexside minor-river "Minor river" { colour "#3b7fc4" }
hexside major-river "Major river" { colour "#1f5fa8" }
link road "Road" { colour "#8b5a2b" }
link railway "Railway" { colour "#202020" }
feature german-supply "German supply source" { colour "#303030" }
feature soviet-supply "Soviet supply source" { colour "#b00000" }
feature minor-vp "Minor VP (silver star)" { colour "#c0c0c0" }
feature major-vp "Major VP (gold star)" { colour "#d4af37" }
turn-track {
  table {
    turn  date
    1     1941-07-10
    2     1941-07-17
    3     1941-07-24
    4     1941-07-31
    5     1941-08-07
    6     1941-08-14
    7     1941-08-21
    8     1941-08-28
    9     1941-09-04
    10    1941-09-11
  }
}
unit-class panzer "German motorized division" { symbol armour; factors attack defence move; flags motorized }
unit-class infantry "German infantry or cavalry division" { symbol infantry; factors strength move }
unit-class hq "Headquarters" { symbol hq; factors command move; flags hq }
unit-class rifle "Soviet rifle or cavalry division (brown)" { symbol infantry; factors strength move; flags brown }
unit-class star-rifle "Soviet * division (brown)" { symbol infantry; factors strength move; flags brown star }
unit-class elite "Soviet elite division (red)" { symbol armour; factors attack defence move; flags motorized elite }
unit-class pvo "Soviet PVO division" { symbol infantry; factors strength move; flags pvo }
stacking { units 2; exempt hq }
marker vp-chit "Victory chit" { colour "#d4af37"; hidden }
pool reserve "Soviet Reserve Box" { side soviet }
pool elite-cup "Soviet Elite Division cup" { side soviet }
pool star-units "Soviet * units" { side soviet }
pool minsk-pocket "Minsk Pocket" { side both }
pool victory-chits "Victory Chits Box" { side both }
victory avd "Victory Points Table" {
  end at turn-end "the game ends after turn 10" when turn == 10
}
sequence { phase end-of-turn "End of turn" { procedure advance-turn } }
"""


def harness(tmp_path: Path, with_units: bool) -> Path:
    """The game folder: the game itself once its rules are there, else the data under HARNESS."""
    if (AVD / "game.hxr").exists() and (AVD / "units.hxr").exists():
        return AVD
    folder = tmp_path / "lib" / "a-victory-denied"
    folder.mkdir(parents=True)
    shutil.copy(AVD / "map.hxm", folder / "map.hxm")
    text = HARNESS
    if with_units:
        shutil.copy(AVD / "units.hxr", folder / "units.hxr")
        text = 'import "units.hxr"\n' + text
    (folder / "game.hxr").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    return compile_game(harness(tmp_path_factory.mktemp("avd"), with_units=False)).map


def hx(board, hid: str):
    return board.grid.parse_id(hid)


def terrain(board, hid: str) -> str:
    mh = board.hexes.get(hx(board, hid))
    return mh.terrain if mh else board.default_terrain


def features(board, hid: str) -> tuple[str, ...]:
    mh = board.hexes.get(hx(board, hid))
    return mh.features if mh else ()


def named(board, name: str) -> str:
    hits = [board.grid.format_id(h) for h, mh in board.hexes.items() if mh.name == name]
    assert len(hits) == 1, (name, hits)
    return hits[0]


def on_road(board, hid: str) -> bool:
    h = hx(board, hid)
    return any(h in (s.a, s.b) for s in board.links["road"])


# ---------------------------------------------------------------- the hexes the rulebook names

def test_the_entry_hexes_are_road_hexes_on_the_german_side(board):
    # 5 f: 9th Army units enter at 3106, 3rd Panzer Group units at 3902, by road
    for hid in ("3106", "3902"):
        assert on_road(board, hid)
        assert board.grid.contains(hx(board, hid))
    assert named(board, "Tolochin") == "3106"          # on the Minsk-Moscow highway
    assert board.areas["entry-3106"] == {hx(board, "3106")}
    assert board.areas["entry-3902"] == {hx(board, "3902")}
    # both lie west of the Dnieper and the Western Dvina, nearer the German sources than Smolensk
    sources = board.supply["german"]
    for hid in ("3106", "3902"):
        assert min(hx(board, hid).distance(s) for s in sources) <= 6
        assert min(hx(board, named(board, "SMOLENSK")).distance(s) for s in sources) > 10


def test_1517_is_a_soviet_supply_source_on_the_map_edge(board):
    # 4 c / 4 g i: supply sources are the circles on the map edge; 1517 is lost from turn 4
    h = hx(board, "1517")
    assert h in board.supply["soviet"]
    assert "soviet-supply" in features(board, "1517")
    assert any(not board.grid.contains(n) for n in h.neighbours())
    assert board.areas["soviet-source-1517"] == {h}
    assert on_road(board, "1517")


def test_the_cities_are_the_five_the_rulebook_prints_in_capitals(board):
    # TEC: "Cities are in all CAPITAL letters"; the notes list Moscow, Smolensk, Kaluga, Vyazma, Roslavl
    cities = {mh.name for mh in board.hexes.values() if mh.terrain == "city"}
    assert cities == {"MOSCOW", "SMOLENSK", "KALUGA", "VYAZMA", "ROSLAVL"}
    for name in ("Vitebsk", "Bobruysk", "Orsha", "Mogilev", "Yelnya", "Gomel", "Bryansk", "Orel"):
        assert terrain(board, named(board, name)) == "town"


def test_vitebsk_and_bobruysk_are_vp_star_hexes(board):
    # set-up: the German player returns the VP chits of Vitebsk and Bobruysk to the pool
    for name in ("Vitebsk", "Bobruysk"):
        f = features(board, named(board, name))
        assert "major-vp" in f or "minor-vp" in f
    gold = {board.grid.format_id(h) for h in board.areas["gold-stars"]}
    silver = {board.grid.format_id(h) for h in board.areas["silver-stars"]}
    assert gold and silver and not gold & silver
    for hid in gold:
        assert "major-vp" in features(board, hid)
    for hid in silver:
        assert "minor-vp" in features(board, hid)
    assert "moscow" in board.areas and "minsk-box-edge" in board.areas


def test_every_terrain_of_the_tec_is_on_the_map(board):
    terrains = {mh.terrain for mh in board.hexes.values()} | {board.default_terrain}
    assert terrains == {"clear", "swamp", "woods", "hill", "town", "city"}
    sides = set().union(*board.hexsides.values())
    assert sides == {"minor-river", "major-river"}
    assert set(board.links) == {"road", "railway"}
    feats = {f for mh in board.hexes.values() for f in mh.features}
    assert feats == {"german-supply", "soviet-supply", "minor-vp", "major-vp"}


# ---------------------------------------------------------------- geography

def test_the_places_lie_where_the_history_puts_them(board):
    """Column numbers grow northward, row numbers eastward (see README)."""
    def colrow(name):
        return board.grid.to_colrow(hx(board, named(board, name)))
    vit, orsha, mog, smol, mos = (colrow(n) for n in ("Vitebsk", "Orsha", "Mogilev", "SMOLENSK", "MOSCOW"))
    assert vit[0] > orsha[0] > mog[0]                       # Vitebsk north of Orsha, north of Mogilev
    assert orsha[1] < smol[1] < colrow("VYAZMA")[1] < mos[1]  # the highway runs east to Moscow
    assert colrow("Yelnya")[1] > smol[1] and colrow("ROSLAVL")[0] < smol[0]
    assert colrow("Gomel")[0] < colrow("Rogachev")[0] < mog[0]


def banks(board) -> list[set]:
    """The parts of the map the major rivers cut it into (hexes joined across no major-river hexside)."""
    import networkx as nx
    g = nx.Graph()
    for h in board.grid.all_hexes():
        g.add_node(h)
        for n in h.neighbours():
            if board.grid.contains(n) and "major-river" not in board.hexsides.get(hexside(h, n), ()):
                g.add_edge(h, n)
    return list(nx.connected_components(g))


def test_the_major_rivers_run_from_edge_to_edge(board):
    """The Dnieper runs from the north edge to the south edge and the Western Dvina from the
    north edge to the west edge, so each is a continuous barrier (crossed only at bridges)."""
    parts = banks(board)

    def part(name):
        h = hx(board, name if name.isdigit() else named(board, name))
        return next(i for i, p in enumerate(parts) if h in p)
    west = part("3106")
    # the German entry hexes and the Dnieper's right bank: Mogilev, Shklov, Bykhov, Zhlobin
    assert {part(n) for n in ("3902", "Mogilev", "Shklov", "Bykhov", "Zhlobin", "Bobruysk", "Vitebsk")} == {west}
    # beyond the Dnieper: Rogachev (left bank), Chausy, Yelnya, Roslavl, Gomel, Moscow
    east = part("MOSCOW")
    assert east != west
    assert {part(n) for n in ("Rogachev", "Chausy", "Yelnya", "ROSLAVL", "Gomel", "1517")} == {east}
    # north of the Western Dvina: Polotsk, Gorodok, Nevel, Velizh
    north = part("Polotsk")
    assert north not in (west, east)
    assert {part(n) for n in ("Gorodok", "Nevel", "Velizh")} == {north}
    # 3902 faces Polotsk across the Dvina, with a road bridge
    assert "major-river" in board.hexsides[hexside(hx(board, "3902"), hx(board, "3903"))]
    assert hexside(hx(board, "3902"), hx(board, "3903")) in board.links["road"]


def test_roads_join_the_cities_and_reach_every_town(board):
    import networkx as nx
    g = nx.Graph()
    for s in board.links["road"]:
        g.add_edge(s.a, s.b)
    for a, b in (("Tolochin", "MOSCOW"), ("Bobruysk", "ROSLAVL"), ("Vitebsk", "SMOLENSK"), ("SMOLENSK", "Bryansk"),
                 ("Orel", "KALUGA")):
        assert nx.has_path(g, hx(board, named(board, a)), hx(board, named(board, b))), (a, b)
    # every road hex is on the grid, and every named town has a road
    for mh in board.hexes.values():
        if mh.terrain in ("town", "city"):
            assert mh.hex in g, mh.name


# ---------------------------------------------------------------- the order of battle

@pytest.fixture(scope="module")
def avd(tmp_path_factory):
    return compile_game(harness(tmp_path_factory.mktemp("avd-units"), with_units=True))


def counters(game, **want):
    out = []
    for c in game.counters.values():
        if all((getattr(c, k) if k != "tags" else set(c.tags)) == v if k != "tags" else v <= set(c.tags)
               for k, v in want.items()):
            out.append(c)
    return out


def full(c) -> tuple[int, ...]:
    """The printed factors of the full-strength side, in the class's order."""
    return tuple(c.steps[0].values())


def setup(game) -> dict[str, str]:
    return {p.counter: f"turn:{p.where_to}" if p.kind == "turn" else p.where_to
            for p in game.scenarios["campaign"].setup}


def test_the_counters_the_rulebook_describes(avd):
    c = avd.counters
    # 图例 3: the 9th Army HQ prints 6-5 (command range 6, 5 MP) and starts in the Minsk Pocket ("M")
    assert (c["9A"].unit_class, full(c["9A"])) == ("hq", (6, 5))
    assert setup(avd)["9A"] == "minsk-pocket" and "minsk" in c["9A"].tags
    # 图例 4: PVO 2-0; the elite 1st Motor Rifle Division 4-3-6 (motorized); the 28th Rifle Division 3-4
    assert all(full(p) == (2, 0) for p in counters(avd, unit_class="pvo"))
    assert (c["1MRD"].unit_class, full(c["1MRD"])) == ("elite", (4, 3, 6))
    assert (c["28RD"].unit_class, full(c["28RD"])) == ("rifle", (3, 4))
    # 图例 1: 4th Panzer Division (2nd Panzer Group), 900th Lehr Brigade (3rd Panzer Group)
    assert (c["4Pz"].formation, c["900L"].formation) == ("2PzG", "3PzG")
    assert c["4Pz"].unit_class == c["900L"].unit_class == "panzer"
    # 图例 2: the 9th Army's 31st Infantry Division; the cavalry division is non-motorized
    assert (c["31ID"].unit_class, c["31ID"].formation) == ("infantry", "9A")
    assert c["1Cav"].unit_class == "infantry"
    # the afterword: Timoshenko's command range is 6
    assert full(c["Tim"])[0] == 6
    # the HQs the rules' chits name
    for hq in ("2PzG", "3PzG", "9A", "13A", "16A", "19A", "20A", "21A", "22A", "Tim"):
        assert c[hq].unit_class == "hq" and c[hq].formation == hq


def test_the_numbers_the_rulebook_states(avd):
    s = setup(avd)
    # turn track: "+1 PVO" on turns 1-9, none on turn 10
    pvo = counters(avd, unit_class="pvo")
    assert sorted(s[p.id] for p in pvo) == [f"turn:{t}" for t in range(1, 10)]
    # "+1 Elite Div." on turns 1-10: the cup holds one for every turn
    assert len([x for x, at in s.items() if at == "elite-cup"]) >= 10
    # the Spanish Blue Division ("6") is on the turn track at 6
    assert s["250ID"] == "turn:6" and "turn6" in avd.counters["250ID"].tags
    # turn 7: four German motorized units are withdrawn; the Germans have them
    assert len(counters(avd, side="german", unit_class="panzer")) >= 4
    # 5 e v: from turn 4, 1d6 "*" units a turn go to the reserve
    assert len([x for x, at in s.items() if at == "star-units"]) >= 6
    assert {avd.counters[x].unit_class for x, at in s.items() if at == "star-units"} == {"star-rifle"}
    # the Minsk Escape Table: the German units' value (infantry 1, HQ 2) reaches every column (13+),
    # and the pocket holds at least the 3 Soviet units result B lets escape
    pocket = [avd.counters[x] for x, at in s.items() if at == "minsk-pocket"]
    value = sum(2 if p.unit_class == "hq" else 1 for p in pocket if p.side == "german")
    assert value >= 13
    assert len([p for p in pocket if p.side == "soviet"]) >= 3
    # every "M" counter is in the pocket, every "R" in the reserve, every "1" enters on turn 1
    for cid, c in avd.counters.items():
        mark = {"minsk": "minsk-pocket", "reserve": "reserve", "turn1": "turn:1", "star": "star-units"}
        for tag, at in mark.items():
            if tag in c.tags:
                assert s[cid] == at, cid


def test_every_counter_is_set_up_and_the_colours_follow_the_legend(avd):
    s = setup(avd)
    assert set(s) == set(avd.counters)
    for c in avd.counters.values():
        if c.side == "german" and c.unit_class == "panzer":
            assert c.nationality == {"2PzG": "pzgr2", "3PzG": "pzgr3"}[c.formation]
        if c.unit_class in ("rifle", "star-rifle"):
            assert c.nationality == "soviet-brown"
        if c.unit_class == "elite":
            assert c.nationality == "soviet-red"
        if c.side == "german" and c.unit_class == "infantry" and c.formation == "9A":
            assert c.nationality == "aok9"
    # two brown units never start in one hex (stacking 2 b); HQs do not count
    per_hex: dict[str, int] = {}
    for cid, at in s.items():
        if at[0].isdigit() and avd.counters[cid].unit_class in ("rifle", "star-rifle"):
            per_hex[at] = per_hex.get(at, 0) + 1
    assert max(per_hex.values()) == 1


def test_the_front_of_10_july(avd):
    """Germans start west of the Dnieper (or north of the Dvina); the 2nd Panzer Group is in
    contact, so its turn-1 combat segment has something to attack."""
    board, s = avd.map, setup(avd)
    parts = banks(board)
    east = next(p for p in parts if hx(board, "4142") in p)
    german = {cid: at for cid, at in s.items() if at[0].isdigit() and avd.counters[cid].side == "german"}
    soviet = {at for cid, at in s.items() if at[0].isdigit() and avd.counters[cid].side == "soviet"}
    assert german and all(hx(board, at) not in east for at in german.values())
    for cid in ("3Pz", "10Pz", "17Pz"):
        h = hx(board, german[cid])
        assert any(board.grid.format_id(n) in soviet for n in h.neighbours()), cid
    # the VP chits: one face down on every star hex but Vitebsk's and Bobruysk's, theirs in the box
    # (drawn by colour at set-up: tests/test_avd_game_combat.py checks the draw)
    from runtime.runner import Runner
    chits = [m for m in Runner(avd).new_game(seed=1).markers if m["kind"] == "vp-chit"]
    on_map = sorted(board.grid.format_id(m["hex"]) for m in chits if m["hex"] is not None)
    stars = board.areas["gold-stars"] | board.areas["silver-stars"]
    returned = {named(board, "Vitebsk"), named(board, "Bobruysk")}
    assert on_map == sorted(board.grid.format_id(h) for h in stars if board.grid.format_id(h) not in returned)
    in_box = [m for m in chits if m["box"] == "pool:victory-chits"]
    assert len(in_box) >= 3 and all(m["value"] for m in chits)
