"""Game > Balance… offscreen: the batch runs in the background with a
progress bar, Stop keeps the finished games, Run resumes, and the summary
and plots are shown."""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from editor.app import MainWindow  # noqa: E402
from editor.document import GameDocument  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path("/tmp/hexforge-editor-shots")


@pytest.fixture(autouse=True)
def batch_failures(monkeypatch):
    """A batch that fails shows its message in a modal box, which under test
    would wait for a click for ever: the message is kept instead, and a test
    that leaves one fails (a failing engine fails the test, never hangs it)."""
    from editor import balance as bal

    seen: list[str] = []
    monkeypatch.setattr(bal.QMessageBox, "critical", lambda parent, title, text: seen.append(text))
    yield seen
    assert not seen, f"a batch failed: {seen}"


@pytest.fixture
def win(qtbot, tmp_path, monkeypatch):
    shutil.copytree(ROOT / "games" / "barbarossa-postcard", tmp_path / "games" / "barbarossa-postcard")
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    w = MainWindow(GameDocument.open(tmp_path / "games" / "barbarossa-postcard"), autosave_ms=0)
    w.ask_on_close = False
    qtbot.addWidget(w)
    w.show()
    yield w
    w.doc.close()


@pytest.fixture
def smolensk_win(qtbot, tmp_path, monkeypatch):
    """The editor on a copy of the games folder, Smolensk open (16.1's bid is a variant of it)."""
    shutil.copytree(ROOT / "games", tmp_path / "games")
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    w = MainWindow(GameDocument.open(tmp_path / "games" / "smolensk"), autosave_ms=0)
    w.ask_on_close = False
    qtbot.addWidget(w)
    yield w
    w.doc.close()


def test_balance_runs_in_the_background_stops_resumes_and_shows_plots(qtbot, win, tmp_path):
    action = next(a for m in win.menuBar().actions() if m.text() == "&Game"
                  for a in m.menu().actions() if a.text() == "&Balance…")
    action.trigger()
    dlg = win.balance_dialog
    qtbot.addWidget(dlg)
    out = tmp_path / "bal"
    dlg.out.setText(str(out))
    dlg.games.setValue(40)
    dlg.jobs.setValue(1)
    dlg.agents["soviet"].setCurrentText("random")
    dlg.run_button.click()
    assert dlg.running() and not dlg.run_button.isEnabled()
    # the bar moves by signals the window's own event loop delivers while games are played
    qtbot.waitUntil(lambda: dlg.bar.value() >= 2, timeout=60_000)
    dlg.stop_button.click()
    qtbot.waitUntil(lambda: not dlg.running() and dlg.run_button.isEnabled(), timeout=60_000)
    with open(out / "games.csv", encoding="utf-8") as f:
        kept = len(list(csv.DictReader(f)))
    assert 2 <= kept < 40
    assert "stopped early" in dlg.summary.text()

    dlg.games.setValue(kept + 2)  # Run again: only the two new games are played
    dlg.run_button.click()
    qtbot.waitUntil(lambda: not dlg.running() and dlg.run_button.isEnabled(), timeout=60_000)
    text = dlg.summary.text()
    assert text.startswith(f"2 played, {kept} already in the folder")
    assert f"{kept + 2} games" in text and "axis" in text and "95%" in text
    assert dlg.bar.value() == dlg.bar.maximum() == kept + 2
    for label in dlg.plot_labels.values():
        assert not label.image.isNull() and label.image.width() > 300
    assert "paid in" not in text  # the VP by award are a plot's tab
    SHOTS.mkdir(parents=True, exist_ok=True)
    dlg.resize(900, 820)
    assert dlg.grab().save(str(SHOTS / "balance-dialog.png"))
    # VP by award: a row per award of each side, as wide as the tab and scrolled
    awards = dlg.plot_labels["awards.png"]
    dlg.plots.setCurrentWidget(awards)
    qtbot.waitUntil(lambda: not awards.label.pixmap().isNull(), timeout=5_000)
    assert awards.label.pixmap().width() <= awards.viewport().width()
    assert dlg.grab().save(str(SHOTS / "balance-awards.png"))


def test_balance_refuses_bad_numbers_with_a_message(qtbot, win, monkeypatch):
    from editor import balance as bal
    seen = []
    monkeypatch.setattr(bal.QMessageBox, "warning", lambda parent, title, text: seen.append(text))
    dlg = win.balance()
    qtbot.addWidget(dlg)
    # Barbarossa reads no number: the boxes show the form, not another game's number
    assert (dlg.params.placeholderText(), dlg.sweep.placeholderText()) == ("NAME=NUMBER", "NAME=V1,V2,V3")
    dlg.sweep.setText("bid=1,x")
    dlg.run_button.click()
    assert seen == ["Sweep: write NAME=N1,N2,…, not 'bid=1,x'"] and not dlg.running()
    dlg.sweep.setText("bid=1,2")  # Barbarossa's rules read no number: a sweep would change nothing
    dlg.run_button.click()
    assert seen[-1] == "no rule in play reads the number 'bid' (they read none)" and not dlg.running()


def test_the_number_boxes_show_the_names_the_rules_read(qtbot, win):
    from dsl.compiler import compile_game
    from editor.balance import BalanceDialog
    game = compile_game(ROOT / "games" / "smolensk", variants=["vp-bidding"])  # 16.1 reads param("bid")
    dlg = BalanceDialog(win, {}, game)
    qtbot.addWidget(dlg)
    assert (dlg.params.placeholderText(), dlg.sweep.placeholderText()) == ("bid=N", "bid=V1,V2,V3")


def test_balance_names_the_variant_that_reads_a_number(qtbot, smolensk_win, monkeypatch):
    from editor import balance as bal
    seen = []
    monkeypatch.setattr(bal.QMessageBox, "warning", lambda parent, title, text: seen.append(text))
    dlg = smolensk_win.balance()
    qtbot.addWidget(dlg)
    dlg.sweep.setText("bid=0,5")  # Smolensk 16.1's bid, without its variant
    dlg.run_button.click()
    assert seen == ["no rule in play reads the number 'bid' (they read none)\n\n"
                    "16.1 VP bidding reads it: tick it under Variants"] and not dlg.running()
    dlg.sweep.setText("")  # the variant ticked, and no bid given
    dlg.variants["vp-bidding"].setChecked(True)
    dlg.run_button.click()
    assert seen[-1] == "the scenario asks for bid: write bid=N under Numbers, or sweep it" and not dlg.running()


def test_a_sweep_of_the_bid_says_the_bots_played_each_game_once(qtbot, smolensk_win, tmp_path):
    dlg = smolensk_win.balance()
    qtbot.addWidget(dlg)
    dlg.out.setText(str(tmp_path / "bid"))
    dlg.variants["vp-bidding"].setChecked(True)
    dlg.sweep.setText("bid=0,10")
    dlg.games.setValue(2)
    dlg.jobs.setValue(1)
    for side in ("axis", "soviet"):
        dlg.agents[side].setCurrentText("random")
    dlg.run_button.click()
    qtbot.waitUntil(lambda: not dlg.running() and dlg.run_button.isEnabled(), timeout=120_000)
    lines = dlg.summary.text().splitlines()
    assert lines[0] == "4 played, 0 already in the folder"
    assert lines[1] == "bid decides only who wins and no bot weighs who would: the bots played each game " \
                       "once, judged at every bid"
    assert dlg.bar.value() == dlg.bar.maximum() == 4
    SHOTS.mkdir(parents=True, exist_ok=True)
    dlg.resize(900, 820)
    assert dlg.grab().save(str(SHOTS / "balance-shared-sweep.png"))


def test_a_bot_takes_a_typed_search_budget_or_option_and_a_bad_one_is_refused(qtbot, win, monkeypatch):
    from editor import balance as bal
    seen = []
    monkeypatch.setattr(bal.QMessageBox, "warning", lambda parent, title, text: seen.append(text))
    dlg = win.balance()
    qtbot.addWidget(dlg)
    axis = dlg.agents["axis"]
    assert axis.isEditable() and "search:N" in axis.toolTip()
    axis.setCurrentText("search:2")
    assert dlg.spec().agents == ("search:2", "greedy")
    axis.setCurrentText("search:x")
    dlg.run_button.click()
    assert seen == ["Bot: search:x: the budget is a number of iterations, e.g. search:200"] and not dlg.running()
    dlg.agents["soviet"].setCurrentText("greedy:hold=1")  # an option, as play and balance read it
    axis.setCurrentText("greedy")
    assert dlg.spec().agents == ("greedy", "greedy:hold=1") and "greedy:hold=1" in axis.toolTip()
    dlg.agents["soviet"].setCurrentText("greedy:hold=3")
    dlg.run_button.click()
    assert seen[-1].startswith("Bot: greedy:hold=3: hold takes a number from 0 to 1") and not dlg.running()


def test_closing_the_dialog_mid_batch_stops_it_and_keeps_the_finished_games(qtbot, win, tmp_path):
    dlg = win.balance()
    qtbot.addWidget(dlg)
    out = tmp_path / "bal"
    dlg.out.setText(str(out))
    dlg.games.setValue(200)
    dlg.jobs.setValue(1)
    dlg.agents["soviet"].setCurrentText("random")
    dlg.run_button.click()
    qtbot.waitUntil(lambda: dlg.bar.value() >= 1, timeout=60_000)
    dlg.close()  # at once: the batch's thread ends once the game under way is done (a search's may take minutes)
    from editor import balance as B
    qtbot.waitUntil(lambda: not dlg.running() and not B._LEFT_RUNNING, timeout=60_000)
    with open(out / "games.csv", encoding="utf-8") as f:
        assert 1 <= len(list(csv.DictReader(f))) < 200


def test_closing_the_dialog_does_not_wait_for_a_slow_game(qtbot, win, tmp_path):
    """Closing the dialog mid-game froze the editor until the game under way
    ended: with a large search budget, for good.  It closes at once, and the
    budget has a ceiling."""
    import time
    from editor import balance as B
    dlg = win.balance()
    qtbot.addWidget(dlg)
    dlg.out.setText(str(tmp_path / "bal"))
    dlg.games.setValue(2)
    dlg.jobs.setValue(1)
    dlg.agents["axis"].setCurrentText("search:200")
    dlg.run_button.click()
    qtbot.waitUntil(dlg.running, timeout=10_000)
    start = time.monotonic()
    dlg.close()
    assert time.monotonic() - start < 2 and B._LEFT_RUNNING
    qtbot.waitUntil(lambda: not B._LEFT_RUNNING, timeout=30_000)  # (after the decision under way: the game is left)


def test_a_batch_needs_a_results_folder(qtbot, win, monkeypatch, tmp_path):
    """An empty Results folder wrote the batch where the editor was started."""
    said = []
    from editor import balance as bal
    monkeypatch.setattr(bal.QMessageBox, "warning", lambda parent, title, text: said.append(text))
    cwd = tmp_path / "started-here"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    dlg = win.balance()
    qtbot.addWidget(dlg)
    dlg.out.setText("  ")
    dlg.run_button.click()
    assert said == ["choose a Results folder: the batch's games and plots go there"]
    assert not dlg.running() and list(cwd.iterdir()) == []


def test_the_dialog_says_results_folder_where_the_command_line_says_out(qtbot, win, monkeypatch, tmp_path):
    from editor import balance as bal
    said = []
    monkeypatch.setattr(bal.QMessageBox, "critical", lambda parent, title, text: said.append(text))
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    dlg = win.balance()
    qtbot.addWidget(dlg)
    dlg.out.setText(str(tmp_path / "a-file"))
    dlg.games.setValue(1)
    dlg.run_button.click()
    qtbot.waitUntil(lambda: bool(said), timeout=30_000)
    assert "--out" not in said[0] and "(the Results folder is a folder)" in said[0], said
    assert bal.dialog_words("x: use another --out") == "x: choose another Results folder"
