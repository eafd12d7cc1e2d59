"""The Declarations tab: sides, unit classes, terrain, scenarios and
variants as forms; an edit changes exactly its words (one undo step) and the
game compiled from the saved files has the new value."""
from __future__ import annotations

import difflib

import pytest

pytest.importorskip("pytestqt")

from dsl.compiler import compile_game  # noqa: E402
from dsl.scaffold import NewGame, write_game  # noqa: E402
from editor.app import MainWindow  # noqa: E402
from editor.document import GameDocument  # noqa: E402

GAME = "g/game.hxr"


@pytest.fixture
def w(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    write_game(tmp_path / "lib" / "g", NewGame("g", "G"))
    doc = GameDocument.open(tmp_path / "lib" / "g")
    win = MainWindow(doc, autosave_ms=0)
    win.ask_on_close = False
    qtbot.addWidget(win)
    win.show()
    win.tabs.setCurrentWidget(win.declarations)
    yield win
    win._closed = True
    doc.close()


def diff(before: str, after: str) -> list[str]:
    return [ln for ln in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]


def test_side_title_and_colour_edits_change_only_their_words(w):
    d = w.declarations
    assert d.select("side", "blue")
    before = w.doc.files[GAME].text
    d.fields["title"].setText("Blue Army")
    d.fields["title"].editingFinished.emit()
    assert diff(before, w.doc.files[GAME].text) == [
        '-side blue "Blue" { colour "#5b7fb0"; text-colour "#ffffff"; supply-edge west }',
        '+side blue "Blue Army" { colour "#5b7fb0"; text-colour "#ffffff"; supply-edge west }']
    assert d.set_property("colour", '"#336699"')
    assert w.doc.game.sides["blue"].colour == "#336699" and w.doc.game.sides["blue"].title == "Blue Army"
    assert w.stack.count() == 2
    w.save()
    again = compile_game(w.doc.folder)
    assert again.sides["blue"].colour == "#336699" and again.sides["blue"].title == "Blue Army"
    w.stack.undo()
    w.stack.undo()
    assert w.doc.files[GAME].text == before


def test_a_unit_class_property(w):
    d = w.declarations
    assert d.select("unit-class", "armour")
    assert d.fields["flags"].text() == "mechanized"
    before = w.doc.files[GAME].text
    assert d.set_property("symbol", "mechanized")
    assert w.doc.game.unit_classes["armour"].symbol == "mechanized"
    assert len(diff(before, w.doc.files[GAME].text)) == 2


def test_a_mistake_is_diagnosed_not_hidden_and_empty_values_are_refused(w):
    d = w.declarations
    assert d.select("unit-class", "armour")
    assert d.set_property("symbol", "dragon")
    assert any("dragon" in x.message for x in w.doc.diagnostics)
    before = w.doc.files[GAME].text
    assert not d.set_property("symbol", "  ")
    assert w.doc.files[GAME].text == before


def test_scenarios_and_the_game_are_listed(w):
    d = w.declarations
    assert d.select("scenario", "standard") and d.fields["title"].text() == "G"
    assert "turns" in d.fields and d.fields["turns"].text() == "1 6"
    assert d.set_property("turns", "1 5")
    assert w.doc.game.scenarios["standard"].last_turn == 5
    assert d.select("game", "g")
