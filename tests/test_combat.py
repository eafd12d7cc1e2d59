"""Odds / differential CRT combat (runtime/combat/odds.py) and `hexforge odds`.

The Smolensk cases are the rulebook's own (10.3, shared/rules/
gj-smolensk-blitzkrieg.zh.txt); the CRT and TEC are the real ones from
games/gekitou/system.hxr.  Scenarios with units run on a small map that
imports the real series system."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction as F

import pytest

from dsl import cli
from dsl.compiler import compile_game
from runtime.board import Board
from runtime.combat.odds import (column_for, combat_odds, attack_strength, defence_strength, die_for,
                            probabilities, resolve, terrain_shift, terrain_shift_of)
from runtime.definition import Die
from runtime.state import new_state

from helpers import GAMES, MINI_GAME, ROOT, make_game

SMOLENSK = GAMES / "smolensk"


@pytest.fixture(scope="module")
def smolensk():
    return compile_game(SMOLENSK)


@pytest.fixture(scope="module")
def crt(smolensk):
    return smolensk.crts[smolensk.combat.crt]


def label(c, a, d, shift=0):
    return column_for(c, a, d, shift).label


# ------------------------------------------------------------------ 10.3 odds and rounding

@pytest.mark.parametrize("a, d, col", [
    (15, 5, "3-1"), (26, 9, "2-1"), (12, 7, "1.5-1"), (18, 13, "1-1"), (25, 2, "10+"),
])
def test_rulebook_rounding_examples(crt, a, d, col):
    r = column_for(crt, a, d)
    assert r.label == col
    assert r.rounded == col
    assert r.ratio == F(a, d)
    assert r.column is crt.columns[r.index]
    assert r.reason == ""


def test_town_in_forest_shifts_3_1_to_1_5_1(smolensk, crt):
    left, reasons = terrain_shift_of(smolensk, ["light-forest", "town"])
    assert left == 2
    assert reasons == ["light forest: 1 left", "town: +1 left"]
    r = column_for(crt, 15, 5, -left)
    assert r.rounded == "3-1" and r.label == "1.5-1"
    assert any("3-1 → 1.5-1" in s for s in r.steps)


def test_12_1_two_left_is_8_1(crt):
    r = column_for(crt, 12, 1, -2)
    assert r.rounded == "10+"
    assert r.label == "8-1"


def test_ten_and_more_use_the_highest_column(crt):
    for a, d in ((10, 1), (25, 2), (100, 1), (11, 1)):
        assert label(crt, a, d) == "10+"
    assert column_for(crt, 5, 0).label == "10+"  # no defence at all
    assert column_for(crt, 5, 0).ratio is None


def test_below_1_1_after_shifts_is_no_attack(crt):
    r = column_for(crt, 3, 2, -1)  # 1.5-1, one left: 1-1
    assert r.label == "1-1"
    r = column_for(crt, 3, 2, -2)  # 1.5-1, two left: below 1-1
    assert r.column is None and r.index is None
    assert r.rounded == "1.5-1"
    assert "below 1-1" in r.reason
    r = column_for(crt, 10, 10, -1)
    assert r.column is None


def test_odds_of_1_2_cannot_attack(crt):
    r = column_for(crt, 1, 2)
    assert r.column is None
    assert r.rounded == "1-2"
    assert r.reason == "final odds 1-2 are below 1-1"
    assert column_for(crt, 12, 13).column is None  # 0.92: under 1-1
    assert column_for(crt, 0, 3).column is None  # no attack strength


def test_right_shifts_move_up_the_virtual_columns_below_the_table(crt):
    assert label(crt, 1, 2, 1) == "1-1"  # 1-2 one right
    r = column_for(crt, 1, 3, 1)  # 1-3 one right: 1-2, still no attack
    assert r.column is None and r.reason == "final odds 1-2 are below 1-1"
    assert label(crt, 10, 1, 3) == "10+"  # above the table: highest


def test_below_lowest_may_use_the_lowest_column(crt):
    lowest = replace(crt, below_lowest="lowest")
    assert label(lowest, 1, 2) == "1-1"
    assert label(lowest, 3, 2, -4) == "1-1"
    assert label(lowest, 0, 5) == "1-1"


def test_clamp_after_shifts_keeps_virtual_columns_while_shifting(crt):
    after = replace(crt, clamp="after-shifts")
    r = column_for(after, 12, 1, -2)  # 12-1, 11-1, 10-1
    assert r.rounded == "12-1" and r.label == "10+"
    assert label(after, 15, 1, -6) == "9-1"  # 15-1 → 9-1
    assert label(crt, 15, 1, -6) == "4-1"  # before shifts: 10+ → 4-1
    assert label(after, 25, 2, -3) == "9-1"  # 12.5 → 12-1 → 9-1
    assert label(after, 30, 1, -1) == "10+"  # 29-1 is clamped
    assert label(after, 5, 0, -3) == "10+"  # no defence: unlimited


def test_rounding_up_and_nearest(crt):
    up = replace(crt, rounding="up")
    nearest = replace(crt, rounding="nearest")
    assert label(up, 26, 9) == "3-1"
    assert label(up, 12, 7) == "2-1"
    assert label(up, 15, 5) == "3-1"
    assert label(up, 25, 2) == "10+"
    assert label(nearest, 26, 9) == "3-1"  # 2.89
    assert label(nearest, 12, 7) == "1.5-1"  # 1.71
    assert label(nearest, 13, 10) == "1.5-1"  # 1.3
    assert label(nearest, 5, 4) == "1-1"  # 1.25: a tie goes toward the defender
    assert label(up, 9, 10) == "1-1"  # 0.9 up: 1-1


# ------------------------------------------------------------------ probabilities

def hand_count(c, index):
    out = {}
    for total in range(1, 7):
        code = c.rows[total][index]
        out[code] = out.get(code, 0) + 1
    return {k: F(v, 6) for k, v in out.items()}


def test_probabilities_match_the_printed_smolensk_columns(smolensk, crt):
    d6 = smolensk.dice["d6"]
    labels = [c.label for c in crt.columns]
    p31 = probabilities(smolensk, crt, labels.index("3-1"), d6)
    assert p31 == {"-": F(2, 6), "R": F(2, 6), "RR": F(2, 6)}
    p11 = probabilities(smolensk, crt, labels.index("1-1"), d6)
    assert p11 == {"A2": F(1, 6), "A1": F(2, 6), "-": F(2, 6), "R": F(1, 6)}
    p10 = probabilities(smolensk, crt, labels.index("10+"), d6)
    assert p10 == {"1RR": F(1, 6), "2RR": F(2, 6), "3RR": F(2, 6), "4RR": F(1, 6)}
    for i in range(len(crt.columns)):
        p = probabilities(smolensk, crt, i, d6)
        assert sum(p.values()) == 1
        assert p == hand_count(crt, i)
        assert list(p) == [c for c in smolensk.results[crt.results] if c in p]  # the result table's order


def test_resolve_looks_up_the_result(smolensk, crt):
    i = [c.label for c in crt.columns].index("3-1")
    assert resolve(crt, i, 6).code == "RR"
    rc = resolve(crt, i, 6, smolensk)
    assert rc.defender_retreat == 2 and rc.defender_loss == 0
    assert resolve(crt, 0, 1, smolensk).attacker_loss == 2  # A2 at 1-1
    assert resolve(crt, i, 1, smolensk).no_effect
    # a modified roll beyond the printed rows reads the nearest end row
    assert resolve(crt, i, 7).code == resolve(crt, i, 6).code
    assert resolve(crt, i, 0).code == resolve(crt, i, 1).code


# ------------------------------------------------------------------ differential CRT, per-side dice

DIFF_CRT = """\
crt std "Differential CRT" {
  method differential
  results std
  die d6
  die b d10
  table {
    die  -2   -1   0    +1   +2   +3+
    1    A1   A1   A1   -    -    R
    2    A1   A1   -    -    R    R
    3    A1   -    -    R    R    1R
    4    -    -    R    R    1R   1R
    5    -    R    R    1R   1R   1R
    6    R    R    1R   1R   1R   1R
    7    R    1R   1R   1R   1R   1R
    8    R    1R   1R   1R   1R   1R
    9    1R   1R   1R   1R   1R   1R
    10   1R   1R   1R   1R   1R   1R
  }
}
"""


def diff_game(tmp_path):
    start = MINI_GAME.index('crt std "CRT"')
    end = MINI_GAME.index("counters a-units")
    return make_game(tmp_path, MINI_GAME[:start] + DIFF_CRT + MINI_GAME[end:], name="diff")


def test_differential_crt_columns(tmp_path):
    g = compile_game(diff_game(tmp_path))
    c = g.crts["std"]
    assert c.method == "differential"
    r = column_for(c, 7, 5)
    assert r.label == "+2" and r.ratio == 2
    assert label(c, 10, 4) == "+3+"  # +6: the open-ended column
    assert label(c, 5, 5) == "0"
    assert label(c, 3, 4, -1) == "-2"  # -1, one left
    r = column_for(c, 3, 6)  # -3: below the table
    assert r.column is None and r.rounded == "-3"
    assert label(c, 3, 6, 1) == "-2"  # -3 one right
    assert label(c, 10, 4, -2) == "+1"  # clamped to +3+, then two left
    assert label(replace(c, clamp="after-shifts"), 10, 4, -2) == "+3+"  # +6 → +4: still the highest
    assert label(replace(c, below_lowest="lowest"), 1, 9) == "-2"
    assert label(c, F(15, 2), 5) == "+2"  # +2.5 rounds down


def test_per_side_dice(tmp_path):
    g = compile_game(diff_game(tmp_path))
    c = g.crts["std"]
    d_a, d_b = die_for(g, c, "a"), die_for(g, c, "b")
    assert (d_a.name, d_b.name) == ("d6", "d10")
    col = column_for(c, 5, 5).index  # "0"
    pa = probabilities(g, c, col, d_a)
    pb = probabilities(g, c, col, d_b)
    assert sum(pa.values()) == 1 and sum(pb.values()) == 1
    assert pa == {"A1": F(1, 6), "-": F(2, 6), "R": F(2, 6), "1R": F(1, 6)}
    assert pb == {"A1": F(1, 10), "-": F(2, 10), "R": F(2, 10), "1R": F(5, 10)}


def test_two_dice_sum(crt):
    crt2 = replace(crt, rows={**{t: crt.rows[min(t, 6)] for t in range(2, 13)}})
    p = probabilities(None, crt2, 0, Die("2d6", 2, 6))
    assert sum(p.values()) == 1
    assert p["R"] == F(26, 36)  # totals 6..12 on the 1-1 column


# ------------------------------------------------------------------ units on a map

SMOL_GAME = """\
import "../gekitou/system.hxr"
game smol "Combat test" { series gekitou; map "map.hxm" }
counters axis-units {
  side axis
  nationality german
  table {
    id    class     full     reduced
    7Pz   panzer    8-4-10   4-2-10
    5Inf  infantry  7-6      3-6
    3Inf  infantry  3-6      1-6
    9Inf  infantry  5-6      2-6
  }
}
counters soviet-units {
  side soviet
  nationality red-army
  table {
    id    class     full  reduced
    64R   infantry  5-5   2-5
    fort  fortress  1     -
    20R   infantry  4-5   2-5
  }
}
"""

SMOL_MAP = """\
map smol
grid { orientation flat; shifted even; columns 01-06; rows 01-06 }
default clear
hexes {
  table {
    hex   terrain       features  name
    0101  heavy-forest  -         -
    0102  clear         city      "Minsk"
    0103  light-forest  town      "Orsha"
    0104  heavy-forest  town      -
    0106  sea           -         -
  }
}
hexsides {
  table {
    hexside    features
    0302/0303  river
    0303/0304  river
  }
}
path road 0304 0303
"""


@pytest.fixture(scope="module")
def smol(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("combat")
    system = (GAMES / "gekitou" / "system.hxr").read_text(encoding="utf-8")
    folder = make_game(tmp, SMOL_GAME, SMOL_MAP, name="smol", extra={"gekitou/system.hxr": system})
    game = compile_game(folder)
    return game, Board(game)


def setup(smol, **at):
    game, board = smol
    s = new_state(game)
    for uid, hid in at.items():
        s.place(uid, board.parse(hid))
    return s


def H(smol, hid):
    return smol[1].parse(hid)


def test_terrain_shift_of_a_hex(smol):
    game, board = smol
    assert terrain_shift(game, board, board.parse("0103")) == (2, ["light forest: 1 left", "town: +1 left"])
    assert terrain_shift(game, board, board.parse("0104")) == (3, ["heavy forest: 2 left", "town: +1 left"])
    assert terrain_shift(game, board, board.parse("0101")) == (2, ["heavy forest: 2 left"])
    assert terrain_shift(game, board, board.parse("0102")) == (2, ["major city: 2 left"])
    assert terrain_shift(game, board, board.parse("0505")) == (0, [])
    # a feature without "+" gives the hex its value only if larger
    assert terrain_shift_of(game, ["heavy-forest", "city"])[0] == 2
    assert terrain_shift_of(game, ["light-forest", "city"]) == (2, ["major city: 2 left"])


def test_river_halves_only_the_units_that_cross_it(smol):
    game, board = smol
    s = setup(smol, **{"7Pz": "0302", "5Inf": "0203", "64R": "0303"})
    t = H(smol, "0303")
    assert attack_strength(game, board, s, "7Pz", t) == (F(4), "7Pz 8, halved across river: 4")
    assert attack_strength(game, board, s, "5Inf", t) == (F(7), "5Inf 7")
    r = combat_odds(game, board, s, ["7Pz", "5Inf"], t)
    assert r.validate == ""
    assert r.attack == 11 and r.defence == 5
    assert r.column.label == "2-1"  # 11-5
    assert r.die.name == "d6"
    assert sum(r.probabilities.values()) == 1


def test_river_halves_across_a_bridge_too(smol):
    game, board = smol
    s = setup(smol, **{"7Pz": "0304", "64R": "0303"})
    assert board.edge(H(smol, "0304"), H(smol, "0303")).bridged
    assert attack_strength(game, board, s, "7Pz", H(smol, "0303"))[0] == 4


def test_halves_are_totalled_exactly_then_rounded(smol):
    game, board = smol
    # 3 and 5 across the river: 1.5 + 2.5 = 4 (not 1 + 2)
    s = setup(smol, **{"3Inf": "0302", "9Inf": "0302", "64R": "0303"})
    r = combat_odds(game, board, s, ["3Inf", "9Inf"], H(smol, "0303"))
    assert r.attack_exact == 4 and r.attack == 4
    # 8/2 + 3/2 = 5.5: the fraction of the total is dropped
    s = setup(smol, **{"3Inf": "0302", "7Pz": "0302", "64R": "0303"})
    r = combat_odds(game, board, s, ["3Inf", "7Pz"], H(smol, "0303"))
    assert r.attack_exact == F(11, 2) and r.attack == 5
    assert r.column.label == "1-1"


def test_reduced_steps_and_fortress_defence(smol):
    game, board = smol
    s = setup(smol, **{"7Pz": "0203", "64R": "0303", "fort": "0303"})
    s.set_unit("7Pz", step=1)
    s.set_unit("64R", step=1)
    t = H(smol, "0303")
    assert attack_strength(game, board, s, "7Pz", t)[0] == 4
    assert defence_strength(game, board, s, "64R")[0] == 2
    assert defence_strength(game, board, s, "fort") == (F(1), "fort 1")
    r = combat_odds(game, board, s, ["7Pz"], t)
    assert r.defence == 3  # reduced 64R 2 + fortress 1
    assert r.column.label == "1-1"  # 4-3


def test_terrain_shifts_in_combat_odds(smol):
    game, board = smol
    s = setup(smol, **{"7Pz": "0203", "5Inf": "0202", "64R": "0103"})
    t = H(smol, "0103")
    r = combat_odds(game, board, s, ["7Pz", "5Inf"], t)  # 15-5 in a town in light forest
    assert r.validate == ""
    assert r.shifts == [(-1, "light forest: 1 left"), (-1, "town: +1 left")]
    assert r.shift == -2
    assert r.column.rounded == "3-1" and r.column.label == "1.5-1"
    assert r.probabilities == {"-": F(2, 6), "A1": F(2, 6), "R": F(2, 6)}
    r = combat_odds(game, board, s, ["7Pz", "5Inf"], t, extra_shift=1)
    assert r.column.label == "2-1"
    assert r.shifts[-1] == (1, "other: 1 right")
    r = combat_odds(game, board, s, ["7Pz"], t)  # 8-5: 1-1, two left: no attack
    assert r.column.column is None
    assert r.probabilities == {}
    assert r.validate == "cannot attack 0103: final odds 1-2 are below 1-1"


def test_validation_messages(smol):
    game, board = smol
    t = H(smol, "0303")
    s = setup(smol, **{"7Pz": "0203", "5Inf": "0503", "64R": "0303", "9Inf": "0302", "20R": "0106",
                       "3Inf": "0105"})
    ok = combat_odds(game, board, s, ["7Pz"], t)
    assert ok.validate == "" and ok.legal
    assert combat_odds(game, board, s, ["5Inf"], t).validate == "5Inf cannot attack 0303: it is not adjacent"
    assert combat_odds(game, board, s, ["7Pz"], H(smol, "0202")).validate == \
        "there are no units in 0202 to attack"
    assert "holds friendly units" in combat_odds(game, board, s, ["7Pz"], H(smol, "0302")).validate
    assert combat_odds(game, board, s, ["3Inf"], H(smol, "0106")).validate == \
        "attacks into sea (0106) are prohibited"
    s.attacked.add("7Pz")
    assert combat_odds(game, board, s, ["7Pz"], t).validate == \
        "7Pz cannot attack 0303: it has already attacked this combat segment"
    s.attacked.clear()
    s.attacked_hexes.add(t)
    assert combat_odds(game, board, s, ["7Pz"], t).validate == \
        "0303 has already been attacked this combat segment"
    s.attacked_hexes.clear()
    s.activated = {"9Inf"}
    r = combat_odds(game, board, s, ["7Pz", "9Inf"], t)
    assert r.validate == "7Pz cannot attack 0303: it is not activated"
    assert r.errors == ["7Pz cannot attack 0303: it is not activated"]
    s.activated = {"9Inf", "7Pz"}
    assert combat_odds(game, board, s, ["7Pz", "9Inf"], t).validate == ""
    assert combat_odds(game, board, s, [], t).validate == "no units attack 0303"


def test_prohibited_hexside(smol, tmp_path):
    game, board = smol
    system = (GAMES / "gekitou" / "system.hxr").read_text(encoding="utf-8")
    lines = system.splitlines()
    header = next(line.split() for line in lines if line.split()[:2] == ["terrain", "move:mechanized"])
    for i, line in enumerate(lines):  # the river row: left-shift and attack "no"
        cells = line.split()
        if cells[:1] == ["river"]:
            cells[header.index("left-shift")] = cells[header.index("attack")] = "no"
            lines[i] = "    " + "  ".join(cells)
    system = "\n".join(lines) + "\n"
    folder = make_game(tmp_path, SMOL_GAME, SMOL_MAP, name="smol", extra={"gekitou/system.hxr": system})
    g = compile_game(folder)
    b = Board(g)
    s = new_state(g)
    for uid, hid in {"7Pz": "0302", "9Inf": "0304", "64R": "0303"}.items():
        s.place(uid, b.parse(hid))
    assert g.chart.effects["river"].combat_prohibited
    r = combat_odds(g, b, s, ["7Pz"], b.parse("0303"))
    assert r.validate == "7Pz cannot attack 0303: attacks across the river hexside are prohibited"
    assert combat_odds(g, b, s, ["9Inf"], b.parse("0303")).validate == ""  # bridged


# ------------------------------------------------------------------ the command

def run_cli(capsys, *args):
    code = cli.main(["odds", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text(capsys):
    code, out, err = run_cli(capsys, SMOLENSK, "--attack", 15, "--defense", 5, "--terrain", "light-forest,town")
    assert code == 0, err
    lines = out.splitlines()
    assert "odds 15-5 = 3: 3-1" in lines
    assert "shift: light forest: 1 left" in lines
    assert "shift: town: +1 left" in lines
    assert "2 left shifts: 3-1 → 1.5-1" in lines
    assert "final column: 1.5-1" in lines
    assert any(line.split()[:3] == ["A1", "33.3%", "1/3"] for line in lines)
    assert any(line.split()[:3] == ["-", "33.3%", "1/3"] for line in lines)


def test_cli_shift_and_no_attack(capsys):
    code, out, _ = run_cli(capsys, SMOLENSK, "--attack", 12, "--defense", 1, "--shift", -2)
    assert code == 0
    assert "final column: 8-1" in out
    code, out, _ = run_cli(capsys, SMOLENSK, "--attack", 1, "--defense", 2)
    assert code == 0
    assert "no attack: final odds 1-2 are below 1-1" in out


def test_cli_json(capsys):
    code, out, _ = run_cli(capsys, SMOLENSK, "--attack", 12, "--defense", 7, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["column"] == "1.5-1"
    assert data["no_attack"] is None
    assert data["rounded"] == "1.5-1"
    assert data["ratio"] == pytest.approx(12 / 7)
    assert data["shifts"] == []
    assert data["results"] == pytest.approx({"A1": 2 / 6, "-": 2 / 6, "R": 2 / 6})
    assert sum(data["results"].values()) == pytest.approx(1)
    code, out, _ = run_cli(capsys, SMOLENSK, "--attack", 10, "--defense", 5, "--terrain", "heavy-forest,town",
                           "--json")
    data = json.loads(out)
    assert data["column"] is None
    assert data["no_attack"] == "final odds 1-2 are below 1-1"  # 2-1, three left
    assert [s["columns"] for s in data["shifts"]] == [-2, -1]
    assert data["results"] == {}


def test_cli_per_side_die(capsys, tmp_path):
    folder = diff_game(tmp_path)
    code, out, _ = run_cli(capsys, folder, "--attack", 5, "--defense", 5, "--side", "b", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["die"] == "d10" and data["column"] == "0"
    assert data["results"]["1R"] == pytest.approx(0.5)
    code, out, _ = run_cli(capsys, folder, "--attack", 5, "--defense", 5, "--side", "c")
    assert code == 1


@pytest.mark.parametrize("args, message", [
    (["--attack", 15, "--defense", 5, "--terrain", "ligt-forest"], "did you mean 'light-forest'?"),
    (["--attack", "lots", "--defense", 5], "--attack must be a number"),
    (["--attack", 15, "--defense", "-3"], "cannot be negative"),
    (["--attack", 15, "--defense", 5, "--shift", "1.5"], "--shift must be a whole number"),
    # an exponent is refused, not built: 1e999999999 took for ever, 1e5000 could not be printed
    (["--attack", "1e999999999", "--defense", 5], "--attack must be a number such as 12, 7.5 or 15/2, not"),
    (["--attack", 15, "--defense", "1e5000"], "--defense must be a number"),
    (["--attack", "1" * 5000, "--defense", 5], "each part at most 9 digits"),
    (["--attack", 15, "--defense", 5, "--crt", "gekitu"], "did you mean 'gekitou'?"),
])
def test_cli_errors(capsys, args, message):
    code, out, err = run_cli(capsys, SMOLENSK, *args)
    assert code == 1
    assert message in err
    assert "Traceback" not in err


def test_cli_takes_a_battle_option_once(capsys):
    """A battle option is used once in a battle (runtime.combat.declare):
    given twice, its shift was counted twice."""
    from helpers import GAMES
    args = ["--attack", 6, "--defense", 2, "--side", "german", "--turn", 2, "--use", "stuka"]
    code, out, err = run_cli(capsys, GAMES / "a-victory-denied", *args, "--use", "stuka")
    assert code == 1 and "--use stuka is given twice" in err
    assert run_cli(capsys, GAMES / "a-victory-denied", *args)[0] == 0


def test_cli_game_that_does_not_compile(capsys, tmp_path):
    folder = make_game(tmp_path, MINI_GAME.replace("unit-class inf", "unit-clas inf"))
    code, out, err = run_cli(capsys, folder, "--attack", 3, "--defense", 1)
    assert code == 1
    assert "game.hxr:" in err and "error:" in err
    assert "does not compile" in err
    code, _, err = run_cli(capsys, tmp_path / "nowhere", "--attack", 3, "--defense", 1)
    assert code == 1 and "no such game folder" in err


def test_cli_as_a_command_has_no_traceback():
    exe = shutil.which("hexforge", path=str(ROOT / ".venv" / "bin"))
    cmd = [exe] if exe else [sys.executable, "-m", "dsl.cli"]
    p = subprocess.run([*cmd, "odds", str(SMOLENSK), "--attack", "9", "--defense", "3", "--terrain", "forest"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 1
    assert "unknown terrain 'forest'" in p.stderr
    assert "Traceback" not in p.stderr
    p = subprocess.run([*cmd, "odds", str(SMOLENSK), "--attack", "9", "--defense", "3", "--json"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["column"] == "3-1"


def test_a_kept_report_is_the_report_worked_out_again():
    """combat_odds keeps its reports by what it read of the state (an attack
    weighed again, decision after decision, by the bots and by the listing of
    attacks): on the states of a random Smolensk game, every attack the
    engine lists, and each after its units change (a step lost, a marker, the
    hex attacked), reads as the report worked out from nothing."""
    from runtime.actions import Attack
    from runtime.bots import make_bot
    from runtime.combat.odds import _combat_odds
    from runtime.runner import Runner

    game = compile_game(GAMES / "smolensk")
    runner = Runner(game, "short")
    board = runner.board
    bots = {side: make_bot("random", i + 7) for i, side in enumerate(game.sides)}
    s = runner.new_game(7)
    compared = changed = 0

    def same(state, attackers, target):
        kept = combat_odds(game, board, state, attackers, target)
        assert kept == _combat_odds(game, board, state, attackers, target, 0, game.combat.crt, None, ())
        return kept

    while s.result is None and compared < 300:
        side = runner.to_move(s)
        if s.phase == "combat" and not s.pending:
            for a in [a for a in runner.legal_actions(s) if isinstance(a, Attack)][:6]:
                target = board.parse(a.target)
                before = same(s, list(a.attackers), target)
                t = s.copy()
                d = t.occupants[target][0]
                t.set_unit(d, step=min(t.units[d].step + 1, len(game.counters[d].steps) - 1))
                t.mark(a.attackers[0], "out-of-supply")
                t.attacked_hexes.add(target)
                after = same(t, list(a.attackers), target)
                changed += after != before
                compared += 1
        s = runner.apply(s, bots[side].choose(runner, s))
    assert compared > 10 and changed == compared
