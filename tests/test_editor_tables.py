"""The Tables tab: the TEC, CRT, turn track and every other chart-shaped
table edited as a grid; each edit is one undo step that rewrites one row of
the text (comments kept), and the game compiled from the saved files has the
new value (edit in the grid → text diff → reopen → same model)."""
from __future__ import annotations

import difflib

import pytest

pytest.importorskip("pytestqt")

from dsl.compiler import compile_game  # noqa: E402
from dsl.scaffold import NewGame, write_game  # noqa: E402
from editor.app import MainWindow  # noqa: E402
from editor.document import GameDocument  # noqa: E402
from runtime.definition import Cost  # noqa: E402

GAME = "g/game.hxr"


@pytest.fixture
def w(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    folder = tmp_path / "lib" / "g"
    write_game(folder, NewGame("g", "G"))
    text = (folder / "game.hxr").read_text()
    (folder / "game.hxr").write_text(text.replace("    forest   2 ", "    forest   2 ", 1)
                                     .replace("    forest   2                1           1           -       1        -",
                                              "    forest   2                1           1           -       1        -"
                                              "        # dense woods"))
    doc = GameDocument.open(folder)
    win = MainWindow(doc, autosave_ms=0)
    win.ask_on_close = False
    qtbot.addWidget(win)
    win.show()
    win.tabs.setCurrentWidget(win.tables)
    yield win
    win._closed = True
    doc.close()


def cell(w, row_name: str, column: str):
    g = w.tables.grid
    cols = [g.horizontalHeaderItem(c).text() for c in range(g.columnCount())]
    r = next(r for r in range(g.rowCount()) if g.item(r, 0).text() == row_name)
    return r, cols.index(column)


def changed_lines(before: str, after: str) -> list[str]:
    return [ln for ln in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]


def test_every_table_is_listed(w):
    labels = [w.tables.list.item(i).text() for i in range(w.tables.list.count())]
    for label in ("terrain-effects", "crt standard", "results standard", "turn-track", "counters blue-units",
                  "scenario standard › setup"):
        assert label in labels


def test_a_tec_cell_edit_is_one_row_one_undo_step_and_reaches_the_game(w, tmp_path):
    assert w.tables.select("terrain-effects")
    before = w.doc.files[GAME].text
    r, c = cell(w, "forest", "move:mechanized")
    w.tables.grid.item(r, c).setText("3")
    after = w.doc.files[GAME].text
    diff = changed_lines(before, after)
    assert len(diff) == 2 and diff[0].startswith("-    forest") and diff[1].startswith("+    forest")
    assert diff[1].endswith("# dense woods")  # the row's comment stays
    assert w.doc.diagnostics == []
    assert dict(w.doc.game.chart.effects["forest"].move)["mechanized"] == Cost("set", 3)
    w.save()
    again = compile_game(w.doc.folder)
    assert dict(again.chart.effects["forest"].move)["mechanized"] == Cost("set", 3)
    w.stack.undo()
    assert w.doc.files[GAME].text == before


def test_the_crt_looks_like_the_chart_and_edits_reach_the_game(w):
    assert w.tables.select("crt standard")
    g = w.tables.grid
    assert [g.horizontalHeaderItem(c).text() for c in range(g.columnCount())] == \
        ["die", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1+"]
    r, c = cell(w, "1", "1-2")
    assert g.item(r, c).text() == "AE" and g.item(r, c).background().color().isValid()
    g.item(r, c).setText("A1")
    assert w.doc.game.crts["standard"].rows[1][0] == "A1"
    g.item(r, c).setText("ZZ")  # not a result code: the compiler says so, the text keeps it
    assert any("ZZ" in d.message for d in w.doc.diagnostics)
    w.stack.undo()
    w.stack.undo()
    w.doc.refresh()
    assert w.doc.game.crts["standard"].rows[1][0] == "AE" and w.doc.diagnostics == []


def test_turn_track_rows_are_added_and_deleted(w):
    assert w.tables.select("turn-track")
    g = w.tables.grid
    r, _ = cell(w, "6", "turn")
    g.setCurrentCell(r, 0)
    w.tables.add_row()
    r7 = g.rowCount() - 1
    g.item(r7, 0).setText("7")
    g.item(r7, 1).setText("Day 7")
    turns = w.doc.game.turn_track.turns
    assert [t.number for t in turns][-1] == 7 and turns[-1].date == "Day 7"
    g.setCurrentCell(r7, 0)
    w.tables.delete_row()
    assert [t.number for t in w.doc.game.turn_track.turns][-1] == 6


def test_an_empty_cell_is_refused(w):
    assert w.tables.select("terrain-effects")
    before = w.doc.files[GAME].text
    r, c = cell(w, "clear", "advance")
    w.tables.grid.item(r, c).setText("")
    assert w.doc.files[GAME].text == before and w.tables.grid.item(r, c).text() == "2"
