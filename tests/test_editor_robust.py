"""The editor keeps working through mistakes: a syntax error leaves the views
on the last version that read, with a banner naming the error; the compiler
runs off the GUI thread and its stale results are thrown away."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from editor.app import MainWindow  # noqa: E402
from editor.document import GameDocument  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAME = "barbarossa-postcard/game.hxr"


@pytest.fixture
def w(qtbot, tmp_path, monkeypatch):
    shutil.copytree(ROOT / "games", tmp_path / "games")
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(tmp_path / "games" / "barbarossa-postcard")
    win = MainWindow(doc, autosave_ms=0)
    win.ask_on_close = False
    qtbot.addWidget(win)
    win.show()
    yield win
    win._closed = True
    doc.close()


def errors(win):
    return [d for d in win.doc.diagnostics if d.severity == "error"]


def test_a_syntax_error_keeps_the_last_version_that_read(w, qtbot):
    counters, scenarios = len(w.doc.snapshot.counters), set(w.doc.snapshot.scenarios)
    assert counters and not w.banner.isVisibleTo(w)
    text = w.doc.files[GAME].text
    w.doc.set_text(GAME, text.replace("turn-track {", "turn-track { {", 1))
    qtbot.waitUntil(lambda: bool(errors(w)), timeout=10000)
    assert len(w.doc.snapshot.counters) == counters and set(w.doc.snapshot.scenarios) == scenarios
    assert w.scenario_pane.tree.topLevelItemCount() > 0 and w.counters.model.rowCount() == counters
    assert w.banner.isVisibleTo(w) and "last version that did" in w.banner.text()
    assert "unexpected '{'" in w.banner.text()
    w.banner_clicked()  # goes to the error in the rules text
    assert w.tabs.currentWidget() is w.rules and w.rules.shown == GAME
    w.doc.set_text(GAME, text)
    qtbot.waitUntil(lambda: not errors(w), timeout=10000)
    assert not w.banner.isVisibleTo(w) and w.doc.showing_last_read is None


def test_a_semantic_error_is_named_in_the_banner(w, qtbot):
    text = w.doc.files[GAME].text
    w.doc.set_text(GAME, text.replace("side soviet", "side soviet\nside soviet", 1))
    qtbot.waitUntil(lambda: bool(errors(w)), timeout=10000)
    assert w.banner.isVisibleTo(w) and "does not compile" in w.banner.text()
    assert w.doc.showing_last_read is None  # it reads: the views show the text as it is


def test_a_stale_background_compile_is_thrown_away(w, qtbot):
    text = w.doc.files[GAME].text
    rev, job = w.doc.check_job()
    w.doc.set_text(GAME, text.replace("side soviet", "side soviet\nside soviet", 1))  # typed meanwhile
    w.doc.refresh(check=False)
    assert not w.doc.take_check(rev, job())  # compiled the old text: not kept
    rev, job = w.doc.check_job()
    assert w.doc.take_check(rev, job()) and errors(w)


def test_typing_compiles_off_the_gui_thread(w, qtbot, monkeypatch):
    import threading

    from dsl import compiler
    threads = []
    real = compiler.compile_game
    monkeypatch.setattr(compiler, "compile_game", lambda *a, **k: (threads.append(threading.current_thread()),
                                                                   real(*a, **k))[1])
    w.doc.typing = True
    w.doc.set_text(GAME, w.doc.files[GAME].text + "\n# a comment\n")
    qtbot.waitUntil(lambda: bool(threads) and not w._checking, timeout=10000)
    assert all(t is not threading.main_thread() for t in threads)
