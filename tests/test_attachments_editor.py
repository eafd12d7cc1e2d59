"""Attachments in the editor (offscreen, pytest-qt) on tests/games/attach:
the counters under a unit drawn beside it (render, print, playtest), the
stack view, the scenario panel's stacks and drops onto a unit, the counter
table's attachment column and cups.  Screenshots go to
/tmp/hexforge-attach-shots."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF  # noqa: E402
from PySide6.QtGui import QColor, QImage  # noqa: E402

from dsl.compiler import compile_game  # noqa: E402
from editor.app import MainWindow  # noqa: E402
from editor.counters import carries  # noqa: E402
from editor.document import GameDocument  # noqa: E402
from editor.paint import S, attachment_rects, render_image  # noqa: E402
from editor.play import PlayWindow  # noqa: E402
from editor.playtext import boxes, describe  # noqa: E402
from editor.stackview import setup_entries  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "tests" / "games" / "attach"
SHOTS = Path("/tmp/hexforge-attach-shots")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    dst = tmp_path / "attach"
    shutil.copytree(GAME, dst)
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    return dst


@pytest.fixture
def win(qtbot, folder):
    doc = GameDocument.open(folder)
    w = MainWindow(doc, autosave_ms=0)
    w.ask_on_close = False
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    yield w
    doc.close()


def test_the_snapshot_reads_kinds_capacities_and_cups(folder, qapp):
    doc = GameDocument.open(folder)
    try:
        snap = doc.snapshot
        assert snap.attachment_of("Tiger").id == "equipment" and snap.attachment_of("R1") is None
        kind = snap.attachments["equipment"]
        assert snap.capacity("R1", kind) == 2 and snap.capacity("R1", kind, reduced=True) == 1
        assert snap.pool_kinds["red-tank-cup"] == "cup" and snap.pool_kinds["red-support"] == "box"
        assert carries(snap, "R1") == "Equipment chit: 2/1"
        assert carries(snap, "Tiger") == "under a unit: Equipment chit"
        entries = setup_entries(snap, doc.placements("meeting"), "0203")
        assert [e.title.split()[0] for e in entries] == ["R1"]
        assert [t for _, t in entries[0].under] == ["Tiger"] and entries[0].carries == "Equipment chit: 1 of 2"
    finally:
        doc.close()


def test_render_draws_what_a_unit_carries_beside_it(folder, qapp):
    doc = GameDocument.open(folder)
    try:
        img: QImage = render_image(doc, "meeting", 60.0, False)
        SHOTS.mkdir(exist_ok=True)
        img.save(str(SHOTS / "render.png"))
        from editor.paint import MapPainter
        mp = MapPainter(doc)
        mp.scenario = "meeting"
        assert mp.under() == {"R1": ["Tiger"], "R2": ["Det"]}
        # the chit beside R1 is drawn in Red's colour where the hex would be bare: right of R1's counter
        h = doc.map.grid.parse_id("0203")
        x, y = mp.geo.centre(h)
        c = S * 1.05
        chip = attachment_rects(QRectF(x - c / 2, y - c / 2, c, c), 1)[0]
        rect = mp.scene_rect()
        scale = img.width() / rect.width()
        px = int((chip.right() - chip.width() * 0.15 - rect.left()) * scale)
        py = int((chip.center().y() - rect.top()) * scale)
        red = QColor(doc.snapshot.sides["red"].colour)
        got = img.pixelColor(px, py)
        assert abs(got.red() - red.red()) + abs(got.green() - red.green()) + abs(got.blue() - red.blue()) < 60, got
    finally:
        doc.close()


def test_the_scenario_panel_lists_a_stack_and_takes_a_drop_onto_a_unit(win, qtbot):
    pane = win.scenario_pane
    tree = pane.tree

    def find(text_start):
        out = []
        stack = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        while stack:
            it = stack.pop()
            if it.text(0).startswith(text_start):
                out.append(it)
            stack.extend(it.child(j) for j in range(it.childCount()))
        return out
    r1 = find("R1 ")[0]
    assert [r1.child(j).text(0).split()[0] for j in range(r1.childCount())] == ["Tiger"]
    cup = find("red-tank-cup")[0]
    assert "3, a cup" in cup.text(0)  # a cup starts with what arrives in it
    assert pane.can_host("Panther", "R3") and not pane.can_host("Panther", "B1") and not pane.can_host("R2", "R1")
    got = []
    tree.placeRequested.connect(lambda cid, at: got.append((cid, at)))
    r3 = find("R3 ")[0]
    tree.expandAll()
    tree.scrollToItem(r3)
    assert tree.target_at(tree.visualItemRect(r3).center(), "Panther") == ("target", "R3")
    win.place("Panther", "R3")
    assert win.doc.placements("meeting")["Panther"] == "R3"


def test_the_stack_view_shows_the_selected_hex(win):
    win.show_stack(win.doc.map.grid.parse_id("0202"))
    e = win.stack_view.entries
    assert [x.title.split()[0] for x in e] == ["R2"] and [t for _, t in e[0].under] == ["Det"]
    assert win.stack_dock.isVisible()
    SHOTS.mkdir(exist_ok=True)
    assert win.grab().save(str(SHOTS / "editor-stack.png"))


def test_the_playtest_draws_attachments_and_shows_the_stack(qtbot):
    game = compile_game(GAME)
    w = PlayWindow(game, seed=1)
    w.interactive = False
    w.bot_delay_ms = 0
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.act("attach PzIV R1")
    w.sel_unit = "R1"
    w.refresh()
    e = w.stack_view.entries
    assert [t.split()[0] for _, t in e[0].under] == ["Tiger", "PzIV"]
    assert e[0].carries == "Equipment chit: 2 of 2"
    assert w.view.mp.under()["R1"] == ["Tiger", "PzIV"]
    s = w.timeline.state
    assert not any(b.startswith("under:") for b in boxes(s))  # drawn beside their unit, not listed as boxes
    texts = [describe(x) for x in s.log]
    assert "PzIV goes under R1 (Equipment onto units (4.0(5)))" in texts
    assert any(t.startswith("drawn at random (move from red-tank-cup): ") for t in texts)
    SHOTS.mkdir(exist_ok=True)
    assert w.grab().save(str(SHOTS / "playtest-stack.png"))
    w.close()


def test_a_printed_map_draws_what_units_carry(folder, qapp, tmp_path):
    from editor.paint import MapPainter
    from editor.printing import render_tiled_map
    doc = GameDocument.open(folder)
    try:
        calls = []
        real = MapPainter.draw_under

        def spy(self, p, r, uid, px):
            calls.append((uid, self.options.printed))
            return real(self, p, r, uid, px)
        MapPainter.draw_under = spy
        try:
            out = tmp_path / "map.pdf"
            render_tiled_map(doc, out, "meeting", "a4", True)
        finally:
            MapPainter.draw_under = real
        assert out.stat().st_size > 1000
        assert ("R1", True) in calls and ("R2", True) in calls
    finally:
        doc.close()
