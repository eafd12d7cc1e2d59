"""The compiler: what a designer writes, what the model holds, and the
diagnostics a mistake gets (file:line:col, message, hint)."""
from __future__ import annotations

from fractions import Fraction

import pytest

from dsl.compiler import check_game, compile_game
from dsl.diagnostics import DslError
from runtime.hexes import hexside

from helpers import MINI_GAME, make_game


def diagnostics_of(folder):
    with pytest.raises(DslError) as e:
        compile_game(folder)
    return e.value.diagnostics


def only(diags, code=None):
    errs = [d for d in diags if d.severity == "error"]
    assert len(errs) == 1, "\n".join(d.format() for d in errs)
    if code:
        assert errs[0].code == code
    return errs[0]


def test_mini_game_compiles_to_the_model(tmp_path):
    g = compile_game(make_game(tmp_path))
    assert set(g.sides) == {"a", "b"}
    assert g.dice["d10"].sides == 10
    assert g.counters["A2"].steps[0] == {"attack": 5, "defence": 3, "move": 8}
    assert g.counters["A2"].steps[1]["attack"] == 2
    assert len(g.counters["B1"].steps) == 1
    crt = g.crts["std"]
    assert [c.label for c in crt.columns] == ["1-1", "1.5-1", "2-1", "3-1+"]
    assert crt.columns[1].ratio == Fraction(3, 2)
    assert crt.columns[-1].open_ended
    assert crt.rows[6] == ("R", "1R", "1R", "1R")
    assert g.results["std"]["1R"].defender_loss == 1
    assert g.results["std"]["1R"].defender_retreat == 1
    assert g.results["std"]["-"].no_effect
    forest = g.chart.effects["forest"]
    assert forest.cost_for(frozenset({"mechanized"}), "tank").value == 2
    assert forest.cost_for(frozenset(), "inf").value == 1
    assert g.chart.effects["river"].move[0][1].kind == "add"
    assert g.chart.effects["river"].attack == "half"
    assert g.chart.effects["sea"].combat_prohibited
    m = g.map
    assert m.grid.format_id(m.grid.parse_id("0403")) == "0403"
    assert m.hexes[m.grid.parse_id("0403")].features == ("city",)
    assert m.hexes[m.grid.parse_id("0403")].vp == 5
    assert m.terrain_at(m.grid.parse_id("0302")) == "forest"
    side = hexside(m.grid.parse_id("0202"), m.grid.parse_id("0302"))
    assert m.hexsides[side] == {"river"}
    assert len(m.links["road"]) == 2
    assert len(m.areas["start"]) == 5
    assert m.supply_edges["a"] == ("west",)
    sc = g.scenarios["basic"]
    assert [(p.counter, p.kind, p.where_to) for p in sc.setup] == [
        ("A1", "hex", "0101"), ("A2", "area", "start"), ("B1", "hex", "0403")]
    assert g.turn_track.turn(2).values["a.chits"] == 2


def test_misspelt_top_level_keyword(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace("unit-class inf", "unit-clas inf"))),
             "unknown-keyword")
    assert d.span.file == "mini/game.hxr" and d.span.line == 5 and d.span.col == 1
    assert "unit-class" in d.hint


def test_misspelt_keyword_inside_a_block(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace('side a "A" { colour', 'side a "A" { colur'))))
    assert "'colur' is not a keyword of side a" in d.message
    assert "colour" in d.hint and d.span.line == 3


def test_unknown_terrain_name_in_the_chart(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace("    forest   2  ", "    forrest  2  "))),
             "unknown-name")
    assert d.message == "unknown terrain 'forrest'" and "forest" in d.hint
    assert (d.span.line, d.span.col) == (17, 5)


def test_crt_row_missing_a_cell_gives_one_diagnostic(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace("    3    -    -      R    1R",
                                                                  "    3    -    -      R"))),
             "table-width")
    assert "no value for column '3-1+'" in d.message
    assert "'-'" in d.hint


def test_crt_columns_must_ascend(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace("die  1-1  1.5-1  2-1", "die  1-1  2-1  1.5-1"))),
             "crt-order")
    assert "1.5-1" in d.message


def test_result_code_used_but_not_defined(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace("6    R    1R     1R   1R",
                                                                  "6    R    1R     1R   2R"))),
             "unknown-result")
    assert "'2R'" in d.message and "did you mean" in d.hint


def test_crt_without_a_row_for_every_die_face(tmp_path):
    text = MINI_GAME.replace("    6    R    1R     1R   1R\n", "")
    assert "no row for d6 roll 6" in only(diagnostics_of(make_game(tmp_path, text)), "crt-rows").message


def test_per_side_dice_need_every_row(tmp_path):
    text = MINI_GAME.replace('crt std "CRT" {\n  results std', 'crt std "CRT" {\n  results std\n  die a d6\n  die b d10')
    d = only(diagnostics_of(make_game(tmp_path, text)), "crt-rows")
    assert "d10 rolls 7, 8, 9, 10" in d.message


def test_factors_must_fit_the_class(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace("A2   tank   5-3-8", "A2   tank   5-8"))),
             "factors")
    assert "attack-defence-move" in d.message


def test_duplicate_declaration_names_the_first(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME + 'side a "Again" { colour "#000000" }\n')), "duplicate")
    assert "mini/game.hxr:3" in d.hint and "override" in d.hint


def test_every_diagnostic_is_reported_at_once(tmp_path):
    text = (MINI_GAME.replace("unit-class inf", "unit-clas inf")
            .replace('colour "#aa0000"', 'colour "red"')
            .replace("A1       0101", "A1       9999"))
    codes = sorted(d.code for d in diagnostics_of(make_game(tmp_path, text)))
    assert "unknown-keyword" in codes and "type" in codes and "hex" in codes


def test_setup_checks_stacking_and_prohibited_terrain(tmp_path):
    game = MINI_GAME.replace("      B1       0403", "      B1       0403\n").replace(
        'scenario basic', 'stacking { units 1 }\nscenario basic').replace(
        "      A2       start", "      A2       0101")
    d = only(diagnostics_of(make_game(tmp_path, game)), "over-stacked")
    assert "hex 0101 holds 2 units" in d.message


def test_import_override_and_table_merge(tmp_path):
    system = MINI_GAME.split("counters a-units")[0].replace('game mini "Mini" { map "map.hxm" }', "system base")
    game = ('import "../base/system.hxr"\n'
            'game mini "Mini" { map "map.hxm" }\n'
            'override crt std { rounding nearest; table { die 1-1\n 1 R } }\n'
            'override side b "Blue" { colour "#0000ff" }\n'
            'counters a-units { side a; table { id class full\n A1 inf 3-4 } }\n')
    folder = make_game(tmp_path, game, extra={"base/system.hxr": system})
    g = compile_game(folder)
    assert g.crts["std"].rows[1] == ("R", "A1", "-", "R")
    assert g.crts["std"].rounding == "nearest"
    assert g.sides["b"].title == "Blue" and g.sides["b"].colour == "#0000ff"


def test_override_of_nothing(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME + "override crt nope { rounding up }\n")),
             "override-missing")
    assert "crt nope" in d.message


def test_import_cycle_is_reported(tmp_path):
    folder = make_game(tmp_path, 'import "a.hxr"\n' + MINI_GAME,
                       extra={"mini/a.hxr": 'import "b.hxr"\n', "mini/b.hxr": 'import "a.hxr"\n'})
    d = only(diagnostics_of(folder), "import-cycle")
    assert "mini/a.hxr -> mini/b.hxr -> mini/a.hxr" in d.message


def test_import_may_not_leave_the_library(tmp_path):
    (tmp_path / "secret.hxr").write_text("side x\n")
    folder = make_game(tmp_path, 'import "../../secret.hxr"\n' + MINI_GAME)
    d = only(diagnostics_of(folder), "import-outside")
    assert (d.span.line, d.span.col) == (1, 8)


def test_map_may_not_leave_the_game_folder(tmp_path):
    folder = make_game(tmp_path, MINI_GAME.replace('map "map.hxm"', 'map "../other/map.hxm"'))
    assert only(diagnostics_of(folder), "map-outside")


def test_an_area_with_no_hexes_is_an_error_at_its_name(tmp_path):
    """A unit set up or a marker placed in an area with no hexes finds no
    hex: check said ok and play ended in a traceback."""
    from helpers import MINI_MAP
    assert "area start 0101-0105\n" in MINI_MAP
    folder = make_game(tmp_path, map_text=MINI_MAP.replace("area start 0101-0105\n", "area start\n"))
    d = only(diagnostics_of(folder), "map-mends")
    assert d.message == "area start has no hexes" and d.span.file.endswith("map.hxm")
    assert (d.span.line, d.span.col) == (MINI_MAP.splitlines().index("area start 0101-0105") + 1, 6)


def test_a_scenario_whose_first_turn_is_after_its_last_is_an_error(tmp_path):
    """turns 4 1 played turn 4 alone, quietly."""
    assert "  turns 1 2\n" in MINI_GAME
    text = MINI_GAME.replace("  turns 1 2\n", "  turns 2 1\n", 1)
    d = only(diagnostics_of(make_game(tmp_path, text)), "range")
    assert d.message == "turns 2 1: the first turn is after the last" and d.hint == "write turns 1 2"


def test_a_die_that_is_not_one_is_not_suggested_for_the_tables_that_roll_it(tmp_path):
    """'dice d999999999' is an error, and the tables that roll d6 then are
    told of an unknown die: the hint named the very die refused."""
    import shutil
    from helpers import GAMES
    folder = tmp_path / "barbarossa-postcard"
    shutil.copytree(GAMES / "barbarossa-postcard", folder)
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    assert "\ndice d6\n" in text
    (folder / "game.hxr").write_text(text.replace("\ndice d6\n", "\ndice d999999999\n", 1), encoding="utf-8")
    errs = [d for d in diagnostics_of(folder) if d.severity == "error"]
    assert errs[0].message == "'d999999999' is not a die" and errs[0].hint == "write d6, d10 or 2d6"
    assert [d.message for d in errs[1:]] == ["unknown die 'd6'"] * 3
    assert all("d999999999" not in d.hint for d in errs)


def test_a_game_that_names_its_map_twice_is_an_error(tmp_path):
    text = MINI_GAME.replace('game mini "Mini" { map "map.hxm" }', 'game mini "Mini" { map "map.hxm"; map "map.hxm" }')
    assert text != MINI_GAME
    d = only(diagnostics_of(make_game(tmp_path, text)), "duplicate")
    assert d.message == "the game names its map twice"


def test_a_map_that_links_out_of_the_game_folder_says_so(tmp_path):
    folder = make_game(tmp_path)
    outside = tmp_path / "elsewhere.hxm"
    (folder / "map.hxm").rename(outside)
    (folder / "map.hxm").symlink_to(outside)
    d = only(diagnostics_of(folder), "map-outside")
    assert d.message == "map.hxm is a link to a file outside the game folder"


def test_a_rules_file_with_no_game_statement_is_told_at_its_first_line(tmp_path):
    folder = make_game(tmp_path, MINI_GAME.replace('game mini "Mini" { map "map.hxm" }', "# no game here"))
    d = next(d for d in diagnostics_of(folder) if d.message == "no 'game' statement")
    assert d.span is not None and d.span.file.endswith("game.hxr") and (d.span.line, d.span.col) == (1, 1)


def test_variants_apply_their_overrides(tmp_path):
    game = MINI_GAME + '''
variant hard "Hard" {
  kind balance
  override turn-track { table { turn a.chits
    2 1 } }
  override crt std { clamp after-shifts }
}
'''
    folder = make_game(tmp_path, game)
    base = compile_game(folder)
    hard = compile_game(folder, ["hard"])
    assert base.turn_track.turn(2).values["a.chits"] == 2
    assert hard.turn_track.turn(2).values["a.chits"] == 1
    assert hard.crts["std"].clamp == "after-shifts"
    assert hard.active_variants == ("hard",) and base.variants["hard"].kind == "balance"
    with pytest.raises(DslError) as e:
        compile_game(folder, ["hardd"])
    assert "did you mean 'hard'" in e.value.diagnostics[0].hint


def test_check_game_also_compiles_every_variant(tmp_path):
    game = MINI_GAME + 'variant broken "Broken" { override crt std { rounding sideways } }\n'
    g, diags, _ = check_game(make_game(tmp_path, game))
    assert g is not None
    assert [d.message for d in diags.errors] == ["'sideways' is not a odds rounding"] or \
        any("sideways" in d.message for d in diags.errors)


def test_expressions_are_checked_for_unknown_names_and_functions(tmp_path):
    game = MINI_GAME + 'victory v { award a = 5 when turn == 2 and controls(a, "0403") and wether == 3\n' \
                       '  win b at end when vpp(a) < 6 }\n'
    diags = diagnostics_of(make_game(tmp_path, game))
    msgs = sorted(d.message for d in diags)
    assert msgs == ["unknown function 'vpp'", "unknown name 'wether' in expression"]
    hints = {d.message: d.hint for d in diags}
    assert "weather" in hints["unknown name 'wether' in expression"]
    assert "vp" in hints["unknown function 'vpp'"]


def test_param_takes_a_quoted_name(tmp_path):
    """Which numbers a game asks for (hexforge play --param NAME=N) is known
    before it starts: param(6) and param("x" + "y") are refused by check
    (param(6) asked for --param 6=N in play)."""
    game = MINI_GAME + 'victory v { win a at end when vp(a) >= param(6)\n  win b at end when vp(b) >= param("x" + "y") }\n'
    diags = diagnostics_of(make_game(tmp_path, game))
    assert [d.message for d in diags] == ["param() takes the number's name in quotes, such as param(\"bid\")"] * 2
    assert all(d.span is not None for d in diags)


def test_die_tables_one_and_two_dimensional(tmp_path):
    game = MINI_GAME + '''
die-table act "Activation" {
  die d6
  table {
    die  units
    1-4  3
    5    4
    6    5
  }
}
die-table escape "Escape" {
  die d6
  modifier +1 when turn == 2
  table {
    die  1-7  8-12  13+
    1    B    C     C
    2-3  A    B     C
    4+   -    A     B
  }
  input = turn
}
event rolls "Rolls" { do { roll act; roll escape } }
'''
    g = compile_game(make_game(tmp_path, game))
    act = g.die_tables["act"]
    assert [act.cells[act.row_for(n)][0] for n in range(1, 7)] == ["3", "3", "3", "3", "4", "5"]
    esc = g.die_tables["escape"]
    assert esc.column_for(9) == 1 and esc.column_for(40) == 2 and esc.column_for(0) is None
    assert esc.cells[esc.row_for(7)][esc.column_for(13)] == "B"
    assert len(esc.modifiers) == 1


def test_when_and_value_only_where_they_mean_something(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace('side b "B" {', 'side b "B" when turn > 1 {'))),
             "condition-place")
    assert d.message == "'side' takes no 'when' condition" and d.span.line == 4


def test_a_series_system_gives_the_game_its_defaults(tmp_path):
    system = 'system base "Base" { rounding nearest; publisher "GJ" }\n'
    folder = make_game(tmp_path, 'import "../base/system.hxr"\n' + MINI_GAME, extra={"base/system.hxr": system})
    info = compile_game(folder).info
    assert (info.rounding, info.publisher, info.series) == ("nearest", "GJ", "base")


def test_modifiers_are_added_not_overridden(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME + "override modifier x 2\n")), "override-many")
    assert "@" not in d.message


def test_open_ended_crt_row_covers_the_higher_rolls(tmp_path):
    text = MINI_GAME.replace("    5    R    R      1R   1R\n    6    R    1R     1R   1R\n",
                             "    5+   R    R      1R   1R\n")
    g = compile_game(make_game(tmp_path, text))
    assert g.crts["std"].rows[6] == g.crts["std"].rows[5] == ("R", "R", "1R", "1R")


def test_a_misspelt_counters_column_is_one_diagnostic(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace("id   class  full    reduced",
                                                                  "id   clas   full    reduced"))))
    assert "'clas' is not a column" in d.message and "class" in d.hint


def test_a_block_extends_another_of_its_kind(tmp_path):
    game = MINI_GAME + '''
scenario long "Long" {
  extends basic
  turns 1 2
  note "the same set-up as basic"
}
scenario loop1 { extends loop2 }
scenario loop2 { extends loop1 }
'''
    diags = diagnostics_of(make_game(tmp_path, game))
    assert [d.code for d in diags if d.severity == "error"] == ["extends-cycle", "extends-cycle"] or \
        all(d.code == "extends-cycle" for d in diags if d.severity == "error")
    g = compile_game(make_game(tmp_path / "ok", MINI_GAME + 'scenario long "Long" { extends basic; note "x" }\n'))
    assert g.scenarios["long"].setup == g.scenarios["basic"].setup and g.scenarios["long"].notes == ("x",)
    assert g.scenarios["long"].title == "Long"


def test_a_malformed_hex_id_in_a_setup_is_a_diagnostic(tmp_path):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME.replace("A1       0101", "A1       12345"))), "hex")
    assert "12345" in d.message and d.span.line > 60


# ---------------------------------------------------------------- define

def test_defines_expand_where_they_are_used(tmp_path):
    game = MINI_GAME + """
define late = turn >= 3
define both(x, y) = x and y
modifier std +1 "late surprise" when both(late, weather != "")
"""
    g = compile_game(make_game(tmp_path, game))
    m = g.modifiers["std"][-1]
    from runtime.expr import Binary, evaluate, free_names
    assert isinstance(m.condition, Binary) and m.condition.op == "and"
    assert free_names(m.condition) == {"turn", "weather"}          # no define is left for the runtime
    assert evaluate(m.condition, {"turn": 3, "weather": "mud"}) is True
    assert evaluate(m.condition, {"turn": 2, "weather": "mud"}) is False


@pytest.mark.parametrize("lines,message", [
    ("define a = b\ndefine b = a\nmodifier std +1 when a", "define a uses itself: a -> b -> a"),
    ("define f(x) = x > 1\nmodifier std +1 when f(1, 2)", "f() takes 1 argument, not 2"),
    ("define f(x) = x > 1\nmodifier std +1 when f", "f takes 1 argument: write f(x)"),
    ("define f(x) = y > 1\nmodifier std +1 when f(turn)", "unknown name 'y' in expression"),
    ("define late = turn > 3\ndefine late = turn > 4", "late is defined twice"),
    ("define late when turn > 3", "define late needs = EXPRESSION"),
])
def test_define_mistakes(tmp_path, lines, message):
    d = only(diagnostics_of(make_game(tmp_path, MINI_GAME + "\n" + lines + "\n")))
    assert message in d.message and d.span is not None


def _smolensk_with(tmp_path, old: str, new: str):
    import shutil
    from pathlib import Path
    shutil.copytree(Path(__file__).resolve().parent.parent / "games", tmp_path / "games")
    folder = tmp_path / "games" / "smolensk"
    f = folder / "game.hxr"
    text = f.read_text(encoding="utf-8")
    assert old in text
    f.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


AOK2_ROW = "    AOK2          axis    hq              AOK2  1      4     no      no    \"2A\""


def test_the_turn_tracks_chits_column_sets_when_a_chit_becomes_available(tmp_path):
    """The track's `chits` column is read: a chit whose `from` is left as -
    becomes available on the turn the track lists it."""
    folder = _smolensk_with(tmp_path, AOK2_ROW, AOK2_ROW.replace(" 4     no", " -     no"))
    assert compile_game(folder).chits["AOK2"].available == 4


def test_a_chit_whose_from_disagrees_with_the_turn_track_is_an_error(tmp_path):
    folder = _smolensk_with(tmp_path, AOK2_ROW, AOK2_ROW.replace(" 4     no", " 5     no"))
    d = only(diagnostics_of(folder), "value")
    assert "chit AOK2 becomes available on turn 4 by the turn track, but the chits table says from 5" in d.message
    assert d.span.line > 0
