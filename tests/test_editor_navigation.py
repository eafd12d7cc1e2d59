"""Getting around: go to hex, find in the rules, tool keys, the overview map
and the undo history."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtGui import QImage, QPainter  # noqa: E402

from editor.app import MainWindow  # noqa: E402
from editor.document import GameDocument  # noqa: E402
from editor.navigation import TOOL_KEYS, go_to_hex  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def w(qtbot, tmp_path, monkeypatch):
    shutil.copytree(ROOT / "games", tmp_path / "games")
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(tmp_path / "games" / "barbarossa-postcard")
    win = MainWindow(doc, autosave_ms=0)
    win.ask_on_close = False
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win._closed = True
    doc.close()


def test_go_to_hex_by_id_or_name(w):
    m = w.doc.map
    named = next(h for h, mh in m.hexes.items() if mh.name)
    hid = m.grid.format_id(named)
    assert go_to_hex(w, hid) and w.tools.hex == named and w.map_view.mp.options.selected == named
    assert go_to_hex(w, m.hexes[named].name.lower()) and w.tools.hex == named
    assert not go_to_hex(w, "9999") and "not on this map" in w.statusBar().currentMessage()
    assert not go_to_hex(w, "Atlantis") and "no hex 'Atlantis'" in w.statusBar().currentMessage()


def test_find_in_the_rules_wraps_and_says_so(w, qtbot):
    qtbot.keyClick(w, Qt.Key_F, Qt.ControlModifier)
    assert w.tabs.currentWidget() is w.rules and w.find_bar.isVisible()
    text = w.rules.edit.toPlainText()
    n = text.lower().count("disrupted")  # case-insensitive, as find is
    assert n >= 2
    w.find_bar.text.setText("disrupted")
    positions = []
    for _ in range(n):
        assert w.find_bar.find()
        positions.append(w.rules.edit.textCursor().selectionStart())
    assert positions == sorted(positions) and len(set(positions)) == n
    assert w.find_bar.find() and w.find_bar.status.text() == "wrapped"
    assert w.rules.edit.textCursor().selectionStart() == positions[0]
    w.find_bar.text.setText("no such words anywhere")
    assert not w.find_bar.find() and w.find_bar.status.text() == "not found"


def test_tool_keys_work_on_the_map_only(w, qtbot):
    w.tabs.setCurrentIndex(0)
    w.map_view.setFocus()
    qtbot.keyClick(w.map_view, Qt.Key_T)
    assert w.settings.tool == "terrain"
    qtbot.keyClick(w.map_view, Qt.Key_A)
    assert w.settings.tool == "area"
    assert len(set(TOOL_KEYS.values())) == len(TOOL_KEYS)
    # typing in the rules text types; it does not switch tools
    w.tabs.setCurrentWidget(w.rules)
    w.rules.edit.setFocus()
    qtbot.keyClick(w.rules.edit, Qt.Key_S)
    assert w.settings.tool == "area"


def test_overview_click_moves_the_view(w, qtbot):
    ov = w.overview
    ov.resize(300, 200)
    before = w.map_view.mapToScene(w.map_view.viewport().rect().center())
    qtbot.mouseClick(ov, Qt.LeftButton, pos=QPoint(10, 10))
    after = w.map_view.mapToScene(w.map_view.viewport().rect().center())
    assert after != before
    img = ov.grab().toImage()
    assert img.width() > 0


def test_overview_draws_no_town_names(w, monkeypatch):
    """A thumbnail of the map: town names would only crowd it (the main view
    draws them)."""
    named = []
    monkeypatch.setattr(w.map_view.mp, "_name", lambda p, geo, h, mh, px: named.append(mh.name))
    ov = w.overview
    ov.resize(600, 400)  # large enough that the main view's rule would draw names
    ov.refresh_image()
    ov.grab()
    assert named == []
    img = QImage(400, 300, QImage.Format_ARGB32)
    p = QPainter(img)
    w.map_view.mp.paint_static(p, w.map_view.mp.scene_rect(), 1.0)
    p.end()
    assert named  # the same painter draws them at full size


def test_history_lists_the_undo_steps(w):
    from editor.commands import MapCommand
    from runtime.definition import MapHex
    m = w.doc.map
    h = next(iter(m.hexes))
    w.stack.push(MapCommand(w.doc, "paint one hex", [(("hex", h), MapHex(h, "forest"))]))
    model = w.history_view.model()
    labels = [model.data(model.index(i, 0)) for i in range(model.rowCount())]
    assert labels == ["(opened)", "paint one hex"]
    w.history_view.setCurrentIndex(model.index(0, 0))  # clicking the first row undoes to it
    assert w.stack.index() == 0 and m.hexes[h].terrain != "forest"
