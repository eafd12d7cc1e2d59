"""Effects, markers and two-way tables (docs/dsl.md, "Effects"), on the
small test game tests/games/effects (a pocket modelled on A Victory Denied's
Minsk Pocket and Minsk Escape Table)."""
from __future__ import annotations

from pathlib import Path

import pytest

from dsl.compiler import check_game, compile_game
from dsl.diagnostics import DslError
from runtime.actions import Done, IllegalActionError, Move
from runtime.bots import RandomBot, play
from runtime.decisions import Choose, Take
from runtime.runner import Runner

GAME = Path(__file__).resolve().parent / "games" / "effects"


@pytest.fixture(scope="module")
def game():
    return compile_game(GAME)


@pytest.fixture
def runner(game):
    return Runner(game)


def errors_of(tmp_path: Path, old: str, new: str) -> list[str]:
    folder = tmp_path / "pocket"
    folder.mkdir()
    (folder / "map.hxm").write_text((GAME / "map.hxm").read_text())
    text = (GAME / "game.hxr").read_text()
    assert old in text
    (folder / "game.hxr").write_text(text.replace(old, new))
    _, diags, _ = check_game(folder)
    return [f"{d.span.line if d.span else '?'}: {d.message}" for d in diags.items]


# ------------------------------------------------------------------ markers

def test_a_scenario_places_markers_with_their_own_hidden_values(runner):
    s = runner.new_game(seed=1)
    chits = [m for m in s.markers if m["kind"] == "vp-chit" and m["hex"] is None]
    assert sorted(m["value"] for m in chits) == [1, 2]
    assert all(m["face"] == "down" and m["box"] == "pool:victory-chits" and m["hex"] is None for m in chits)
    names, fns = runner.env(s)
    assert fns["markers"]("victory-chits", "vp-chit") == 2
    assert fns["marker-value"]("victory-chits", "vp-chit") == 3
    assert fns["marker-at"]("pocket", "drm") is False
    assert fns["marker-at"]("0501", "objective") and fns["marker-value"]("0603", "vp-chit") == 3
    assert fns["markers"]("all", "vp-chit") == 3


def test_a_scenario_moves_markers_it_set_up_drawing_at_random_with_the_seed(tmp_path):
    folder = tmp_path / "pocket"
    folder.mkdir()
    (folder / "map.hxm").write_text((GAME / "map.hxm").read_text())
    text = (GAME / "game.hxr").read_text()
    old = "  place vp-chit at 0603 value 3\n"
    assert old in text
    (folder / "game.hxr").write_text(text.replace(old, old + "  place vp-chit at 0501 from victory-chits random\n"))
    r = Runner(compile_game(folder))
    drawn = set()
    for seed in range(12):
        s = r.new_game(seed=seed)
        [m] = [m for m in s.markers if m["kind"] == "vp-chit" and str(m["hex"]) == str(r.game.map.grid.parse_id("0501"))]
        assert m["face"] == "down" and m["value"] in (1, 2)            # one of the box's two, still face down
        assert sorted(x["value"] for x in s.markers if x["box"] == "pool:victory-chits") == [3 - m["value"]]
        assert r.new_game(seed=seed).markers == s.markers                # the same seed draws the same chit
        drawn.add(m["value"])
    assert drawn == {1, 2}


def test_a_marker_never_blocks_movement_nor_counts_for_stacking(runner):
    s = runner.new_game(seed=3)
    assert Choose("hold") in runner.legal_actions(s)
    s = runner.apply(s, Choose("hold"))
    before = {str(a) for a in runner.legal_actions(s)}
    s2 = s.copy()
    grid = runner.game.map.grid
    for hid in ("0601", "0502", "0101"):  # empty hexes, and a full stack (B1 and B2: the limit is 2)
        m = runner.new_marker("drm", grid.parse_id(hid), "", None)
        s2.markers.append(m)
    assert {str(a) for a in runner.legal_actions(s2)} == before
    assert "move B3 0601" in before
    s3 = runner.apply(s2, "move B3 0601")  # onto the marker: the unit moves, the marker stays
    assert s3.units["B3"].hex == grid.parse_id("0601")
    assert len(s3.markers) == len(s2.markers)
    assert s3.side_at(grid.parse_id("0502")) is None  # a marker occupies nothing


# ------------------------------------------------------------------ effects and decisions

def test_a_choice_is_a_decision_in_legal_actions(runner):
    s = runner.new_game(seed=1)
    assert runner.to_move(s) == "blue"
    assert runner.legal_actions(s) == [Choose("break-out"), Choose("hold")]
    with pytest.raises(IllegalActionError, match="is not an answer to Release from the pocket"):
        runner.apply(s, Choose("surrender"))
    s = runner.apply(s, Choose("break-out"))
    # Blue picks the two units that leave the pocket
    assert runner.legal_actions(s) == [Take("B1"), Take("B2")]
    s = runner.apply(s, Take("B2"))
    assert runner.legal_actions(s) == [Take("B1")]
    s = runner.apply(s, Take("B1"))
    exit_hex = runner.game.map.grid.parse_id("0301")
    assert s.units["B1"].hex == exit_hex and s.units["B2"].hex == exit_hex
    assert s.variables["released"] == 2
    assert any(e.get("table") == "escape" and e.get("input") == 2 for e in s.log)


def test_the_escape_table_reads_the_column_from_its_input_and_the_row_from_die_plus_modifiers(game):
    t = game.die_tables["escape"]
    for seed in range(12):
        for turn, released in ((1, 2), (2, 5), (1, 9)):
            r = Runner(game)
            s = r.new_game(seed=seed)
            s.turn = turn
            s.variables["released"] = released
            result = r.roll_die_table(s, "escape")
            roll = next(e for e in reversed(s.log) if e.get("roll") == "d6")
            total = roll["result"] + (1 if turn == 2 else 0)
            col = {2: 0, 5: 1, 9: 2}[released]
            assert result == t.cells[t.row_for(total)][col]
            assert s.rolled["escape"] == result
            if result in ("A", "B", "C"):  # any escape puts the +1 DRM marker on the pocket
                assert [m["hex"] for m in s.markers if m["kind"] == "drm"] == [game.map.grid.parse_id("0101")]
            else:
                assert not any(m["kind"] == "drm" for m in s.markers)


def test_escapes_are_drawn_at_random_with_the_seeded_generator(game):
    outs = set()
    for seed in range(8):
        r = Runner(game)
        s = r.new_game(seed=seed)
        r.run_effects(s, "table:escape:A", "test")
        assert sum(s.units[u].box == "pool:reserve" for u in ("R1", "R2")) == 1
        outs.add(next(u for u in ("R1", "R2") if s.units[u].box == "pool:reserve"))
        assert any("draw" in e for e in s.log)
        s2 = r.new_game(seed=seed)
        r.run_effects(s2, "table:escape:A", "test")
        assert s2.log == s.log  # the same seed, the same draw
    assert outs == {"R1", "R2"}


def test_a_captured_chit_moves_face_down_and_the_last_one_ends_the_game(runner):
    s = runner.new_game(seed=2)
    runner.run_effects(s, "table:escape:C", "Escape Table: C")
    assert runner.env(s)[1]["markers"]("red-chits", "vp-chit") == 1
    assert s.units["R1"].box == s.units["R2"].box == "pool:reserve"
    runner.run_effects(s, "table:escape:C", "Escape Table: C")
    assert runner.env(s)[1]["markers"]("victory-chits", "vp-chit") == 0
    assert s.result is None
    runner.run_effects(s, "table:escape:C", "Escape Table: C")
    assert s.result["winner"] == "red" and s.result["ended"] == "no victory chit left to capture" \
        and s.result["why"] == "winner red: no victory chit left to capture"


def test_events_remove_markers_eliminate_units_and_award_vp(runner):
    s = runner.new_game(seed=1)
    runner.run_effects(s, "table:escape:A", "test")
    assert runner.env(s)[1]["marker-at"]("pocket", "drm")
    runner.run_effects(s, "event:pocket-ends", "The pocket ends")
    assert not runner.env(s)[1]["marker-at"]("all", "drm")
    assert all(s.units[u].hex is None for u in ("R1", "R2"))
    assert s.vp["blue"] == 1
    assert {"turn": 1, "effect": "remove drm", "why": "The pocket ends", "count": 1} in s.log


def test_replacement_points_restore_steps_to_reduced_units(runner):
    s = runner.new_game(seed=3)
    s = runner.apply(s, Choose("hold"))
    s.set_unit("R3", step=1)
    s.set_unit("R1", step=1)
    s = runner.apply(s, Done())  # the end of Blue's movement: the turn ends, Red spends its point
    assert runner.to_move(s) == "red"
    assert runner.legal_actions(s) == [Take("R1"), Take("R3"), Done()]
    s = runner.apply(s, Take("R3"))  # one point: one step
    assert s.units["R3"].step == 0 and s.units["R1"].step == 1
    assert s.turn == 2


def test_effects_undo_and_replay_like_any_action(game):
    r = Runner(game)
    s0 = r.new_game(seed=1)
    s1 = r.apply(s0, Choose("break-out"))
    assert s0.effects and "ask" in s0.effects[0] and s0.effects[0]["ask"]["decision"] == "choose"
    assert s1.effects[0]["ask"]["decision"] == "take"  # the earlier state is untouched (undo)
    final, _ = play(r, r.new_game(seed=5), {"*": RandomBot(5)})
    actions = [e["action"] for e in final.log if "action" in e]
    s = r.new_game(seed=5)
    for a in actions:
        s = r.apply(s, a)
    assert s.log == final.log and s.result == final.result


@pytest.mark.parametrize("seed", range(6))
def test_random_bots_play_the_test_game_to_the_end(game, seed):
    r = Runner(game)
    final, n = play(r, r.new_game(seed=seed), {"*": RandomBot(seed)})
    assert final.result is not None and n < 100


# ------------------------------------------------------------------ the checker

@pytest.mark.parametrize("old,new,message", [
    ("remove drm\n", "remove drn\n", "unknown marker kind 'drn'"),
    ("award blue 1\n", "award blue 1\n    explode all\n", "'explode' is not an effect"),
    ("move 1 red from pocket to reserve random", "move 1 red from pocket to nowhere random",
     "'nowhere' is not a hex, an area or a pool"),
    ("  on C {", "  on D {", "no cell of die-table escape reads 'D'"),
    ("at turn-end when turn == 2", "at turn-ends when turn == 2", "unknown checkpoint 'turn-ends'"),
    ("set released = released + 2", "set released", "set needs '= EXPRESSION'"),
    ("set released = released + 2", "set releasd = 1", "unknown variable 'releasd'"),
    ("move 2 blue from pocket to exit by blue", "move 2 blue from pocket to exit by blue random",
     "either 'random' or 'by SIDE'"),
    ("place drm at pocket when not marker-at(pocket, drm)\n  }\n  on B",
     "place drm at pocket when not marker-at(pocket, drn)\n  }\n  on B", "unknown name 'drn'"),
    ("  input = released\n", "", "a two-way table without"),
    ("  place objective at 0501\n", "  place objective at 0501 from victory-chits value 2\n",
     "a scenario's place takes no 'value' here"),
    ("  place objective at 0501\n", "  place objective at 0501 random\n", "a scenario's place takes no 'random' here"),
    ("  place objective at 0501\n", "  place objective at 0501 from nowhere\n",
     "'nowhere' is not a hex, an area or a pool"),
])
def test_misused_effects_get_located_errors(tmp_path, old, new, message):
    if message == "a two-way table without":
        folder = tmp_path / "pocket"
        folder.mkdir()
        (folder / "map.hxm").write_text((GAME / "map.hxm").read_text())
        (folder / "game.hxr").write_text((GAME / "game.hxr").read_text().replace(old, new).replace(
            "phase events", "phase roll \"Roll\" { procedure roll; die-table escape }\n  phase events"))
        with pytest.raises(DslError) as e:  # check refuses what play could not run, at the phase
            compile_game(folder)
        assert any(message in d.format(e.value.sources) and "pocket/game.hxr:" in d.format(e.value.sources)
                   for d in e.value.diagnostics)
        return
    errs = errors_of(tmp_path, old, new)
    assert any(message in e for e in errs), errs
    assert all(not e.startswith("?") for e in errs if message in e)


def test_an_input_on_a_one_way_table_is_an_error(tmp_path):
    errs = errors_of(tmp_path, "    die  1-3  4-6  7+\n", "    die  x  y  z\n")
    assert any("only a two-way table" in e for e in errs), errs


def test_moves_by_unit_never_enter_marker_hexes_as_enemy(runner):
    """A marker is nobody's unit: Move legality ignores it (no ZOC, no enemy hex)."""
    s = runner.apply(runner.new_game(seed=3), Choose("hold"))
    grid = runner.game.map.grid
    s.markers.append(runner.new_marker("vp-chit", grid.parse_id("0401"), "", 2))
    moves = [a for a in runner.legal_actions(s) if isinstance(a, Move) and a.unit == "B3"]
    assert any(a.to == "0401" for a in moves)


def test_the_editor_and_render_draw_scenario_markers_as_chips(monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication
    from editor.document import GameDocument
    from editor.paint import MapPainter, render_image
    app = QApplication.instance() or QApplication([])
    doc = GameDocument.open(GAME)
    assert doc.snapshot.markers["vp-chit"].label == "?" and doc.snapshot.markers["drm"].label == "+1"
    mp = MapPainter(doc)
    mp.scenario = "pocket"
    grid = doc.map.grid
    assert mp.marker_chips() == {grid.parse_id("0501"): ["objective"], grid.parse_id("0603"): ["vp-chit"]}
    assert mp.stacks().get(grid.parse_id("0603")) is None  # a marker is no counter of the setup
    img = render_image(doc, "pocket", hex_px=40)
    assert not img.isNull() and app is not None


# ------------------------------------------------------------------ A Victory Denied (docs/examples/avd)

AVD = Path(__file__).resolve().parent.parent / "docs" / "examples" / "avd"
# The Minsk Escape Table as printed (rulebook charts): die (1-6+) by value leaving (1-7, 8-12, 13+)
MINSK = {1: "BCC", 2: "ABC", 3: "-BC", 4: "-AB", 5: "-AA", 6: "---"}


@pytest.fixture(scope="module")
def avd():
    return compile_game(AVD)


def test_avd_minsk_escape_table_reads_value_leaving_and_the_turn_drms(avd):
    for seed in range(6):
        for turn, points in ((1, 1), (2, 8), (3, 13), (1, 12), (3, 4)):
            r = Runner(avd)
            s = r.new_game(seed)
            s.turn = turn
            s.variables["minsk-points"] = points
            result = r.roll_die_table(s, "minsk-escape")
            die = next(e for e in reversed(s.log) if e.get("roll") == "d6")["result"]
            row = min(6, die + {1: 0, 2: 1, 3: 3}[turn])  # 14.0: game turn 2 +1, game turn 3 +3
            col = 0 if points <= 7 else 1 if points <= 12 else 2
            assert result == MINSK[row][col], (turn, points, die)


def test_avd_an_escape_places_the_plus1_drm_marker_and_the_next_reinforcements_remove_it(avd):
    r = Runner(avd)
    s = r.new_game(1)
    names, fns = r.env(s)
    drm = next(m for m in avd.modifiers["avd"] if "Minsk" in m.title)
    from runtime import expr as E
    assert E.evaluate(drm.condition, dict(names, attacker="soviet", **{"fire-attack": ""}), fns) is False
    r.run_effects(s, "table:minsk-escape:A", "Minsk Escape Table: A")
    # 2 Soviet units escape (to the reserve, drawn at random), the +1 DRM marker goes on the pocket
    assert sorted(u for u in ("24RD", "2RD") if s.units[u].box == "pool:reserve") == ["24RD", "2RD"]
    names, fns = r.env(s)
    assert E.evaluate(drm.condition, dict(names, attacker="soviet", **{"fire-attack": ""}), fns) is True
    assert E.evaluate(drm.condition, dict(names, attacker="german", **{"fire-attack": ""}), fns) is False
    assert s.side_at(avd.map.grid.parse_id("0110")) != "soviet"  # the marker is nobody's unit
    r.run_effects(s, "table:minsk-escape:B", "Minsk Escape Table: B")
    assert fns["markers"]("minsk-pocket", "minsk-drm") == 1  # one marker, not two
    r.run_effects(s, "chit:Reinf", "Reinforcements drawn")  # until the next reinforcement phase
    assert not r.env(s)[1]["marker-at"]("all", "minsk-drm")


def test_avd_the_german_release_is_a_decision_and_rolls_with_the_value_released(avd):
    r = Runner(avd)
    s = r.new_game(4)
    r.run_effects(s, "chit:Reinf", "Reinforcements drawn")
    assert r.to_move(s) == "german"
    assert [str(a) for a in r.legal_actions(s)] == ["choose release-all", "choose release-all-and-chit",
                                                    "choose release-infantry", "choose hold"]
    cup = list(s.cup)
    s2 = r.apply(s, Choose("release-all-and-chit"))
    entry = avd.map.grid.parse_id("3106")
    assert s2.units["9A"].hex == entry and s2.units["31ID"].hex == entry
    assert s2.cup.count("9A") == cup.count("9A") + 1
    roll = next(e for e in s2.log if e.get("table") == "minsk-escape")
    assert roll["input"] == 4 and s2.rolled["minsk-escape"] == roll["result"]
    s3 = r.apply(s, Choose("release-infantry"))  # the earlier state is untouched: undo works
    assert s3.units["31ID"].hex == entry and s3.units["9A"].hex != entry


def test_avd_a_captured_victory_chit_with_none_left_is_an_immediate_soviet_win(avd):
    r = Runner(avd)
    s = r.new_game(2)
    for _ in range(3):
        r.run_effects(s, "table:minsk-escape:C", "Minsk Escape Table: C")
    assert s.result is None and r.env(s)[1]["markers"]("soviet-chits", "vp-chit") == 3
    assert all(m["face"] == "down" for m in s.markers if m["kind"] == "vp-chit")
    r.run_effects(s, "table:minsk-escape:C", "Minsk Escape Table: C")
    assert s.result["winner"] == "soviet"


def test_avd_the_minsk_pocket_ends_on_turn_4(avd):
    r = Runner(avd)
    s = r.new_game(3)
    m = r.new_marker("minsk-drm", None, "", None)
    r.place_marker_at(m, "minsk-pocket")
    s.markers.append(m)
    r.run_effects(s, "event:minsk-ends", "Minsk Pocket ends")
    assert not r.env(s)[1]["marker-at"]("all", "minsk-drm")
    assert s.units["9A"].hex == s.units["31ID"].hex == avd.map.grid.parse_id("3106")  # all Germans released
    assert s.units["24RD"].box == s.units["2RD"].box == "eliminated"  # no escape: the Soviets are lost


def test_avd_the_soviet_player_assigns_the_turns_out_of_supply_markers(avd):
    """4 d-e: the Supply chit lifts the German out-of-supply markers, then the Soviet player
    puts as many as the turn track prints (turn 3: 2) on German units of his choice."""
    r = Runner(avd)
    s = r.new_game(1)
    s.turn = 3
    r.run_effects(s, "chit:Supply", "Supply drawn")
    assert r.to_move(s) == "soviet"
    germans = sorted(u.id for u in s.on_map("german"))
    assert [str(a) for a in r.legal_actions(s)] == [f"take {u}" for u in germans]
    s = r.apply(s, Take("7Pz"))
    s = r.apply(s, Take("4Pz"))
    assert r.effect_asks(s) is None
    assert {u.id for u in s.units.values() if "out-of-supply" in u.markers} == {"7Pz", "4Pz"}
    assert avd.supply.halves(s.units["7Pz"].markers, "attack") == ["out-of-supply"]
    s.turn = 1  # turn 1 prints 0: the old markers go, none come
    r.run_effects(s, "chit:Supply", "Supply drawn")
    assert not any("out-of-supply" in u.markers for u in s.units.values())


def test_a_unit_marker_must_be_one_the_engine_reads(tmp_path):
    errs = errors_of(tmp_path, "    award blue 1\n", "    award blue 1\n    mark all red with shaken\n")
    assert any("'shaken' is not a unit marker the engine reads" in e for e in errs), errs


def test_the_playtest_map_draws_the_markers_of_the_state(game, monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtWidgets import QApplication
    from editor.paint import S
    from editor.playmap import PlayDoc, PlayPainter
    app = QApplication.instance() or QApplication([])
    r = Runner(game)
    s = r.new_game(1)
    r.run_effects(s, "table:escape:A", "test")  # the +1 DRM goes on the pocket during play
    pp = PlayPainter(PlayDoc(game))
    pp.set_state(s)
    assert pp.doc.snapshot.markers["drm"].label == "+1"
    rect, scale = pp.scene_rect(), 50 / S
    img = QImage(int(rect.width() * scale) + 1, int(rect.height() * scale) + 1, QImage.Format_ARGB32_Premultiplied)
    img.fill(QColor("#ffffff"))
    p = QPainter(img)
    p.scale(scale, scale)
    p.translate(-rect.left(), -rect.top())
    pp.paint(p, rect, scale)
    p.end()
    x, y = pp.geo.centre(game.map.grid.parse_id("0603"))  # the face-down chit: "?" on its colour
    cx, cy = (x - rect.left()) * scale, (y + S * 0.86 - S * 0.2 - rect.top()) * scale
    near = [QColor(img.pixel(int(cx) + dx, int(cy) + dy)).name() for dx in (-4, 4) for dy in (-4, 4)]
    assert "#d4af37" in near and app is not None


def test_track_names_a_column_of_the_turn_track(tmp_path):
    folder = tmp_path / "avd"
    folder.mkdir()
    (folder / "map.hxm").write_text((AVD / "map.hxm").read_text())
    text = (AVD / "game.hxr").read_text()
    assert 'track("german-oos")' in text
    (folder / "game.hxr").write_text(text.replace('track("german-oos")', 'track("german-os")'))
    _, diags, _ = check_game(folder)
    errs = [(d.span.line, d.message, d.hint) for d in diags.items]
    assert any(m == "the turn track has no column 'german-os'" and "german-oos" in h for _, m, h in errs), errs
