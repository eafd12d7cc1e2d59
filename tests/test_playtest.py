"""The playtest window (editor/play.py), offscreen with pytest-qt: a scripted
first turn of Smolensk (draw, activate, move, attack with the odds checked,
retreat, advance), taking back, save / load / replay, bots (handing a side
over, bot-vs-bot to the end, stopping), reinforcement placement, supply
marks, and games that cannot be played.  Screenshots of the key moments go
to /tmp/hexforge-play-shots."""
from __future__ import annotations

import re

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialog, QMessageBox  # noqa: E402

from editor.app import MainWindow  # noqa: E402
from editor.document import GameDocument  # noqa: E402
from editor.play import PlayError, PlayWindow, open_playtest, start_playtest  # noqa: E402
from runtime.actions import Done  # noqa: E402
from runtime.bots import RandomBot  # noqa: E402
from runtime.combat.odds import combat_odds, fmt_num  # noqa: E402
from runtime.movement import move_range, show_mp, why_not  # noqa: E402
from runtime.replay import SavedGame, Timeline, digest  # noqa: E402
from runtime.runner import Place  # noqa: E402
from runtime.supply import supply_status  # noqa: E402
from helpers import listed_set_up, playtest_set_up_as_listed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path("/tmp/hexforge-play-shots")
BRIDGEHEAD = ROOT / "docs" / "examples" / "bridgehead"


@pytest.fixture
def lib(tmp_path, monkeypatch):
    dst = tmp_path / "games"
    shutil.copytree(ROOT / "games", dst)
    shutil.copytree(BRIDGEHEAD.parent, tmp_path / "examples")
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    return dst


@pytest.fixture
def smolensk_doc(lib):
    doc = GameDocument.open(lib / "smolensk")
    yield doc
    doc.close()


def show(qtbot, w: PlayWindow) -> PlayWindow:
    w.interactive = False
    w.bot_delay_ms = 0
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    return w


def shot(qtbot, w, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(10)
    p = SHOTS / name
    assert w.grab().save(str(p))
    return p


def listed(w) -> list[str]:
    return [w.decision.list.item(i).text() for i in range(w.decision.list.count())]


def log_text(w) -> str:
    return "\n".join(w.log_list.item(i).text() for i in range(w.log_list.count()))


def test_a_scripted_first_turn_of_smolensk(qtbot, smolensk_doc):
    w = show(qtbot, open_playtest(smolensk_doc, "short", (), 3, {"axis": "human", "soviet": "human"}))
    g, board = w.game, w.board
    H = board.parse
    # the Axis sets up its divisions in their areas (4.0(2)2): here each where the runner would put it
    # without 'deploy' (the fewest units, then the first hex in map order, in the set-up table's order)
    assert w.kind() == "deploy"
    playtest_set_up_as_listed(w)
    # the pre-war surprise attack comes first; decline it: the chits go in, one is drawn
    assert w.kind() == "combat" and "attacks" in w.decision.prompt.text()
    assert w.decision.done.text() == "End combat" and w.decision.done.isEnabled()
    # a listed attack loads into the odds panel: each column shift with its reason
    item = next(w.decision.list.item(i) for i in range(w.decision.list.count())
                if w.decision.list.item(i).text() == "Attack 0616 with 14Mot, 20Mot")
    w.item_clicked(item)
    assert w.target == H("0616") and w.attackers == ["14Mot", "20Mot"]
    rep = combat_odds(g, board, w.state, ["14Mot", "20Mot"], H("0616"))
    text = w.odds.report.toPlainText()
    assert rep.shifts == [(-1, "light forest: 1 left"), (-1, "town: +1 left")]
    for n, why in rep.shifts:
        assert f"{n} (left): {why}" in text
    assert f"Final column: {rep.column.label}" in text
    w.odds.clear.click()
    assert w.target is None and not w.odds.roll.isEnabled()
    w.decision.done.click()
    assert "chit drawn: AOK4 (8 left in the cup)" in log_text(w)
    assert w.kind() == "interrupt" and listed(w) == ["Play Guderian"] and w.decision.done.text() == "Pass"
    assert "8 left" in w.status_panel.cup.text() and "Guderian" in w.status_panel.cup.text()
    w.decision.done.click()                                          # keep Guderian: AOK4 activates
    s = w.state
    assert w.kind() == "movement" and "AOK4" in w.status_panel.command.text()
    assert "command range 4" in w.status_panel.command.text() and "16 units" in w.status_panel.command.text()
    assert "DR" in s.activated                                       # SS Das Reich is German (8.3)
    ov = w.view.mp.overlay
    assert s.units["AOK4"].hex in ov.command and all(h.distance(s.units["AOK4"].hex) <= 4 for h in ov.command)
    assert "Turn 1" in w.status_panel.header.text() and "Movement" in w.status_panel.header.text()
    # select 3Pz with a real mouse click: its reachable hexes are shaded with their MP cost
    w.view.centre_on_hex(H("0126"))
    qtbot.mouseClick(w.view.viewport(), Qt.LeftButton, pos=w.view.mapFromScene(w.view.scene_pos(H("0126"))))
    assert w.sel_unit == "3Pz"
    r = move_range(g, board, s, "3Pz")
    assert ov.reach == {h: show_mp(r.cost[h]) for h in r.destinations} and ov.reach[H("0626")] == "7"
    w.hover_hex(H("0626"))
    assert ov.path == r.path_to(H("0626")) and ov.path[0] == H("0126")
    shot(qtbot, w, "1-activation-reach.png")
    # an illegal target says why
    w.click("2030")
    assert w.decision.message.text() == why_not(g, board, s, "3Pz", H("2030")) == "3Pz cannot enter 2030: needs 32 MP, has 10"
    assert w.state.units["3Pz"].hex == H("0126")
    # a click on a shaded hex moves along the cheapest path
    w.click("0626")
    assert w.state.units["3Pz"].hex == H("0626") and "path 0126→0225→0326→0426→0527→0626, 7 MP" in log_text(w)
    for unit_hex, to in (("0127", "0626"), ("0225", "0526"), ("0326", "0526")):
        w.click(unit_hex)
        w.click(to)
    assert {w.state.units[u].hex for u in ("4Pz", "134ID", "267ID")} == {H("0626"), H("0526")}
    w.click("0126")                                                   # 3Pz has moved: it says so
    w.click("0626")
    assert "has already moved" in w.decision.message.text() or w.sel_unit == "4Pz"
    w.press_done()
    assert w.kind() == "combat"
    # attack: click the defender; the adjacent eligible units attack; the odds come before the roll
    w.click("0625")
    assert w.target == H("0625") and w.attackers == ["134ID", "267ID", "3Pz", "4Pz"]
    rep = combat_odds(g, board, w.state, w.attackers, H("0625"))
    text = w.odds.report.toPlainText()
    for uid, v, why in rep.attack_parts + rep.defence_parts:
        assert uid in text and fmt_num(v) in text
    assert "halved across river" in text                              # each factor with its reason
    for n, why in rep.shifts:
        assert why in text
    assert rep.column.label == "4-1" and "Final column: 4-1" in text
    for code, p in rep.probabilities.items():
        assert f"{float(p) * 100:.1f}%" in text and code in text
    assert sum(rep.probabilities.values()) == 1
    assert w.odds.roll.isEnabled() and w.odds.roll.text() == "Declare (4-1)"   # 10.2(1): declared first
    # untick 4Pz: the odds change before anything is rolled
    it = next(w.odds.attackers.item(i) for i in range(w.odds.attackers.count())
              if w.odds.attackers.item(i).data(Qt.UserRole) == "4Pz")
    it.setCheckState(Qt.Unchecked)
    qtbot.waitUntil(lambda: "4Pz" not in w.attackers)
    qtbot.waitUntil(lambda: "Final column: 3-1" in w.odds.report.toPlainText())
    w.click("0626")                                                   # a click on a stack toggles it back in
    assert w.attackers == ["134ID", "267ID", "3Pz", "4Pz"]
    n_rolls = sum(1 for e in w.state.log if "roll" in e)
    shot(qtbot, w, "2-odds-before-roll.png")
    w.odds.roll.click()
    assert sum(1 for e in w.state.log if "roll" in e) == n_rolls        # declared: nothing rolled yet
    assert "Declared: 0625" in w.decision.prompt.text()
    w.press_done()                                                     # every attack declared: fought
    assert sum(1 for e in w.state.log if "roll" in e) == n_rolls + 1
    assert "die d6 rolled 5 (for combat at 0625)" in log_text(w) and "column 4-1, die 5: RR" in log_text(w)
    # RR: two retreat paths; their ends are highlighted; the Soviet player clicks one
    assert w.kind() == "retreat" and w.runner.to_move(w.state) == "soviet"
    assert set(ov.legal) == {H("0824"), H("0825")}
    assert listed(w) == ["Retreat 75RD → 0725 → 0824", "Retreat 75RD → 0725 → 0825"]
    w.hover_hex(H("0824"))
    assert ov.path == [H("0625"), H("0725"), H("0824")]
    w.click("0626")
    assert "cannot retreat to 0626" in w.decision.message.text()
    w.click("0824")
    assert w.state.units["75RD"].hex == H("0824")
    shot(qtbot, w, "3-after-retreat.png")
    # advance after combat: a click on the vacated hex advances; select a unit first to choose who
    assert w.kind() == "advance" and set(ov.legal) == {H("0625")}
    w.click("0625")
    assert H("0625") == w.state.units["134ID"].hex
    assert w.decision.done.text() == "No (more) advance" and w.decision.done.isEnabled()
    w.click("0626")
    assert w.sel_unit == "3Pz"
    w.click("0625")
    assert w.state.units["3Pz"].hex == H("0625")
    assert w.kind() != "combat"              # the hex is full: advancing is over, and with it the last battle
    # the window's saved game replays to the same state
    saved = w.saved()
    t2, problem = Timeline.replay(w.runner, saved)
    assert problem == "" and digest(t2.latest) == digest(w.timeline.latest)
    w.close()


def test_take_back_until_a_roll_and_the_sandbox(qtbot, smolensk_doc):
    w = show(qtbot, open_playtest(smolensk_doc, "short", (), 3, {"axis": "human", "soviet": "human"}))
    playtest_set_up_as_listed(w)
    w.press_done()
    w.press_done()
    assert not w.undo_action.isEnabled() or w.timeline.floor() < w.timeline.end
    w.click("0126")
    w.click("0626")
    assert w.undo_action.isEnabled()
    w.undo_action.trigger()
    assert w.state.units["3Pz"].hex == w.board.parse("0126") and "Taken back" in w.decision.message.text()
    for a in ("move 3Pz 0626", "move 134ID 0526", "done", "attack 0625 with 134ID,3Pz", "done"):
        assert w.act(a)
    assert not w.undo_action.isEnabled() and "rolled a die" in w.undo_action.toolTip()
    w.undo()
    assert "rolled a die" in w.decision.message.text() and w.state.units["75RD"].hex == w.board.parse("0725")
    w.sandbox.setChecked(True)
    assert w.undo_action.isEnabled()
    w.undo()
    assert w.state.units["75RD"].hex == w.board.parse("0625") and w.kind() == "combat"
    w.close()


def test_save_load_and_step_through_a_game(qtbot, smolensk_doc, tmp_path):
    w = show(qtbot, open_playtest(smolensk_doc, "short", (), 5, {"axis": "human", "soviet": "human"}))
    bot = RandomBot(9)
    for _ in range(40):
        assert w.act(bot.choose(w.runner, w.timeline.latest))
    p = w.save_to(tmp_path / "game.hxgame")
    saved = SavedGame.load(p)
    assert saved.actions == w.timeline.actions and saved.seed == 5 and saved.scenario == "short"
    assert saved.game.endswith("smolensk")
    end_digest = digest(w.timeline.latest)
    w2 = show(qtbot, open_playtest(smolensk_doc, "short", (), 1, {"axis": "human", "soviet": "human"}))
    assert w2.load_from(p) == ""
    assert w2.timeline.end == 40 and digest(w2.timeline.latest) == end_digest
    assert w2.pos_label.text() == "40 / 40"
    # step back and forward: the map and the log follow; nothing can be played from the past
    w2.first_action.trigger()
    assert w2.timeline.position == 0 and w2.log_list.count() == len(w2.timeline.state_at(0).log)
    for i in range(1, 6):
        w2.fwd_action.trigger()
        assert w2.timeline.position == i
        assert w2.view.mp.state is w2.timeline.state
    w2.back_action.trigger()
    assert w2.pos_label.text() == "4 / 40" and "Viewing decision 4 of 40" in w2.decision.prompt.text()
    w2.click("0126")
    assert "press >|" in w2.decision.message.text()
    assert not w2.act("done")
    w2.last_action.trigger()
    assert w2.timeline.at_end and w2.log_list.count() == len(w2.timeline.latest.log)
    # a save of another game is refused; a file that is not a save says so
    other = tmp_path / "other.hxgame"
    SavedGame("games/bridgehead", "crossing", 1).save(other)
    assert "not of" in w2.load_from(other)
    junk = tmp_path / "junk.hxgame"
    junk.write_text("{}")
    assert "not a hexforge saved game" in w2.load_from(junk)
    w.close()
    w2.close()


def test_bots_play_either_side_to_the_end_and_stop(qtbot, lib):
    doc = GameDocument.open(lib.parent / "examples" / "bridgehead")
    try:
        w = show(qtbot, open_playtest(doc, None, (), 2, {"axis": "greedy", "soviet": "greedy"}))
        qtbot.waitUntil(lambda: w.timeline.latest.result is not None, timeout=20000)
        assert w.progress.value() == 1000 and "game over" in w.progress.format()
        assert not w.run_button.isEnabled() and w.kind() == "over"
        assert "game over" in log_text(w)
        w.close()
    finally:
        doc.close()


def test_handing_sides_to_bots_and_stopping_them(qtbot, smolensk_doc):
    w = show(qtbot, open_playtest(smolensk_doc, "short", (), 4, {"axis": "human", "soviet": "human"}))
    assert w.run_button.text() == "Run bots" and not w.run_button.isEnabled()
    w.agent_boxes["axis"].setCurrentIndex(2)                          # the greedy bot takes the Axis
    assert w.agents["axis"] == "greedy"
    qtbot.waitUntil(lambda: w.timeline.end > 0)
    w.set_agent("soviet", "random")
    qtbot.waitUntil(lambda: w.timeline.end > 90, timeout=20000)     # past the Axis set-up (4.0(2)2)
    w.run_button.click()                                              # Stop
    n = w.timeline.end
    assert w.paused and w.run_button.text() == "Run bots"
    qtbot.wait(100)
    assert w.timeline.end == n                                        # stopped means stopped
    assert 0 < w.progress.value() < 1000
    w.click("0126")
    w.set_agent("axis", "human")
    w.set_agent("soviet", "human")
    assert w.human_to_move()
    w.close()


def test_reinforcements_are_placed_on_highlighted_hexes(qtbot, smolensk_doc):
    game = smolensk_doc.game
    w = show(qtbot, open_playtest(smolensk_doc, "short", (), 6, {"axis": "human", "soviet": "human"}))
    t, bot = w.timeline, RandomBot(3)
    while t.latest.step.get("decision") != "place" or t.latest.pending:
        t.apply(bot.choose(w.runner, t.latest))
        assert t.latest.result is None
    w.refresh()
    s = w.state
    assert w.kind() == "place" and w.sel_unit == s.step["units"][0]
    legal = {w.board.parse(a.at) for a in w.runner.legal_actions(s) if isinstance(a, Place) and a.unit == w.sel_unit}
    assert set(w.view.mp.overlay.legal) == legal and legal
    far = next(h for h in game.map.hexes if h not in legal and not s.occupants.get(h))
    w.click_hex(far)
    assert "cannot be placed" in w.decision.message.text()
    second = s.step["units"][1] if len(s.step["units"]) > 1 else s.step["units"][0]
    w.item_clicked(next(w.decision.list.item(i) for i in range(w.decision.list.count())
                        if w.decision.list.item(i).text().startswith(f"Select {second}")))
    assert w.sel_unit == second
    h = sorted(w.view.mp.overlay.legal, key=game.map.grid.to_colrow)[0]
    w.click_hex(h)
    assert w.state.units[second].hex == h and w.decision.message.text() == f"place {second} {w.hid(h)}"
    shot(qtbot, w, "4-reinforcements.png")
    w.close()


def test_supply_marks_on_the_map(qtbot, lib):
    doc = GameDocument.open(lib.parent / "examples" / "bridgehead")
    try:
        w = show(qtbot, open_playtest(doc, None, (), 2, {"axis": "human", "soviet": "human"}))
        s = w.state
        cut = {u for side in w.game.sides for u, ok in supply_status(w.game, w.board, s, side).items() if not ok}
        assert w.view.mp.overlay.unsupplied == cut
        # surround 1Pz's stack with Soviet units: the next refresh rings it
        s2 = s.copy()
        for h, uid in zip(s.units["1Pz"].hex.neighbours(), ("20RD", "22RD", "8TD", "5A")):
            if h in w.board and not s2.occupants.get(h):
                s2.place(uid, h)
        w.timeline._kept[w.timeline.end] = s2
        w.refresh()
        cut2 = {u for side in w.game.sides for u, ok in supply_status(w.game, w.board, s2, side).items() if not ok}
        assert w.view.mp.overlay.unsupplied == cut2
        w.supply_action.setChecked(False)
        w.refresh()
        assert w.view.mp.overlay.unsupplied == set()
        w.close()
    finally:
        doc.close()


def test_unsaved_edits_are_played_and_broken_games_are_refused(qtbot, smolensk_doc, lib, monkeypatch):
    doc = smolensk_doc
    shown = doc.entry
    text = doc.text(shown)
    assert "  turns 1 6\n" in text
    doc.set_text(shown, text.replace("  turns 1 6\n", "  turns 1 2\n", 1))   # not saved
    doc.refresh()
    w = show(qtbot, open_playtest(doc, "short", (), 1, {"axis": "human", "soviet": "human"}))
    assert w.runner.scenario.last_turn == 2 and "of 1–2" in w.status_panel.header.text()
    w.close()
    doc.set_text(shown, text.replace("scenario short", "scenario short {{", 1))   # a syntax error
    doc.refresh()
    with pytest.raises(PlayError, match="does not compile"):
        open_playtest(doc, "short")
    doc.set_text(shown, text)
    doc.refresh()
    with pytest.raises(PlayError, match="no scenario 'long'"):
        open_playtest(doc, "long")
    folder = lib.parent / "examples" / "prokhorovka"   # combat phases without a combat procedure: not run
    rules = (folder / "game.hxr").read_text(encoding="utf-8")
    rules = re.sub(r"\ndice-pool \{.*?\n\}\n", "\n", rules, flags=re.S).replace("procedure dice-pool", "procedure none").replace(
        "  loss yes\n", "")
    (folder / "game.hxr").write_text(rules, encoding="utf-8")
    other = GameDocument.open(folder)
    try:
        with pytest.raises(PlayError, match="does not run yet|no combat procedure the engine runs"):
            open_playtest(other)
        # from the editor's menu, the problem is shown, not raised
        win = MainWindow(other, autosave_ms=0)
        win.ask_on_close = False
        qtbot.addWidget(win)
        seen = []
        monkeypatch.setattr(QMessageBox, "critical", lambda *a: seen.append(a[2]))
        from editor import play as play_mod
        monkeypatch.setattr(play_mod.SetupDialog, "exec", lambda self: play_mod.QDialog.Accepted)
        assert start_playtest(win) is None and ("does not run yet" in seen[0] or "no combat procedure" in seen[0])
        assert any(a.text() == "&Play…" for a in win.menuBar().actions()[-1].menu().actions())
    finally:
        other.close()


def test_a_scenario_that_asks_for_a_number_is_played_saved_and_loaded_with_it(qtbot, smolensk_doc, tmp_path,
                                                                               monkeypatch):
    """Smolensk 16.1's VP bid (param("bid"), with the vp-bidding variant):
    the Play dialog's Numbers field gives it; the game is played by it, and
    a saved game keeps it, so that loading it plays the same game."""
    import json

    from editor.playsetup import SetupDialog
    humans = {"axis": "human", "soviet": "human"}
    with pytest.raises(PlayError, match="the scenario asks for bid: write bid=N under Numbers"):
        open_playtest(smolensk_doc, "short", ("vp-bidding",), 1, humans)
    with pytest.raises(PlayError, match="Numbers: no rule in play reads the number 'bid' \\(they read none\\)"
                                        "\n\n16.1 VP bidding reads it: tick it under Variants"):
        open_playtest(smolensk_doc, "short", (), 1, humans, params={"bid": 5})
    w = show(qtbot, open_playtest(smolensk_doc, "short", ("vp-bidding",), 1, humans, params={"bid": 5}))
    assert w.runner.params == {"bid": 5} and "<b>Numbers:</b> bid = 5" in w.status_panel.vp.text()
    t = w.timeline
    for a in listed_set_up(w.runner, t.latest):
        t.apply(a)
    end = t.latest.copy()
    w.runner.finish(end, "test")
    assert end.result["winner"] == "soviet" and "param(\"bid\") = 5" in end.result["why"]  # 0 VP: short of 5
    path = w.save_to(tmp_path / "bid.hxgame")
    assert json.loads(path.read_text(encoding="utf-8"))["params"] == {"bid": 5}
    w.close()
    w2 = show(qtbot, open_playtest(smolensk_doc, "short", (), 1, humans))  # no bid, no variant
    assert w2.load_from(path) == ""
    assert w2.runner.params == {"bid": 5} and w2.variants == ["vp-bidding"]
    assert w2.timeline.latest.log == t.latest.log
    w2.close()
    # the dialog's field: NAME=N items; a bad one is refused there, with the dialog kept open
    seen = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: seen.append(a[2]))
    dlg = SetupDialog(None, w.game)
    qtbot.addWidget(dlg)
    dlg.numbers.setText("bid=five")
    dlg.accept()
    assert seen == ["Numbers: write NAME=N, not 'bid=five'"] and dlg.result() != QDialog.Accepted
    dlg.numbers.setText(" bid=5  ")
    dlg.accept()
    assert dlg.result() == QDialog.Accepted and dlg.params() == {"bid": 5}


def test_a_game_played_on_the_command_line_is_stepped_through_in_the_playtest(qtbot, lib, tmp_path, capsys):
    """hexforge play --save FILE.hxgame: a game bots played headless (a batch's
    odd game, replayed from its seed) is loaded in the playtest to be looked at."""
    import json

    from dsl.cli import main
    save = tmp_path / "seed3.hxgame"
    args = ["play", str(lib / "smolensk"), "--scenario", "short", "--variant", "vp-bidding", "--param", "bid=5",
            "--agents", "greedy,greedy", "--seed", "3", "--save", str(save)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert err == f"wrote {save}\n" and "16.1 the Axis" in out  # (reaches its bid, or falls short of it)
    assert main([*args[:-2], "--json"]) == 0  # (the JSON result names the numbers, as the variants)
    played = json.loads(capsys.readouterr().out)
    assert (played["params"], played["variants"]) == ({"bid": 5}, ["vp-bidding"])
    assert f"winner {played['winner']}: 16.1 the Axis" in out
    saved = SavedGame.load(save)
    assert saved.params == {"bid": 5} and saved.by_bots == list(range(len(saved.actions)))
    doc = GameDocument.open(lib / "smolensk")
    try:
        w = show(qtbot, open_playtest(doc, "short", (), 1, {"axis": "human", "soviet": "human"}))
        assert w.load_from(save) == ""  # (replayed: the same log as the game played)
        assert w.timeline.end == len(saved.actions) and w.timeline.latest.result["winner"] == played["winner"]
        assert w.variants == ["vp-bidding"] and w.runner.params == {"bid": 5}
        # the map of the game as compiled with the variant, in the same view: it kept its room (a new view
        # put in the window's middle was squeezed to a strip beside the docks)
        assert w.centralWidget() is w.view and w.view.doc is w.doc and w.doc.game is w.game
        qtbot.wait(50)
        assert w.view.width() > w.width() // 3
        w.close()
    finally:
        doc.close()
    assert main(["play", str(lib / "smolensk"), "--save", str(tmp_path / "g.json")]) == 1
    assert "--save writes a saved game: write --save g.hxgame" in capsys.readouterr().err
    same = str(tmp_path / "g.hxgame")  # (the save overwrote the log, and both were said to be written)
    assert main(["play", str(lib / "smolensk"), "--log", same, "--save", same]) == 1
    assert f"--log and --save name the same file ({same}): give each its own" in capsys.readouterr().err
    assert not (tmp_path / "g.hxgame").exists()


def test_play_from_the_editor_menu_and_engine_failures_do_not_crash(qtbot, lib, monkeypatch):
    doc = GameDocument.open(lib / "smolensk")
    try:
        win = MainWindow(doc, autosave_ms=0)
        win.ask_on_close = False
        qtbot.addWidget(win)
        from editor import play as play_mod
        monkeypatch.setattr(play_mod.SetupDialog, "exec", lambda self: play_mod.QDialog.Accepted)
        w = win.play()
        assert isinstance(w, PlayWindow) and w.isVisible()
        w.interactive = False
        assert w.runner.scenario.id == "short" and set(w.agents.values()) == {"human"}

        def boom(*a, **k):
            raise KeyError("no CRT ''")
        monkeypatch.setattr(w.runner, "apply", boom)
        assert not w.act("done")
        assert "The engine failed: KeyError" in w.decision.message.text() and w.isVisible()
        w.close()
    finally:
        doc.close()


def test_step_losses_are_allocated_from_the_list_or_the_map(qtbot, smolensk_doc):
    from runtime.bots import RandomBot
    w = show(qtbot, open_playtest(smolensk_doc, "short", (), 2, {"axis": "human", "soviet": "human"}))
    t, bot = w.timeline, RandomBot(1)  # a loss with a choice in the surprise attack (the greedy bot avoids them)
    for a in listed_set_up(w.runner, t.latest):
        t.apply(a)
    while not (t.latest.pending and t.latest.pending[0]["kind"] == "loss"):
        t.apply(bot.choose(w.runner, t.latest))
        assert t.end < 200
    w.refresh()
    s = w.state
    p = s.pending[0]
    assert w.kind() == "loss" and f"loses {p['steps']} step" in w.decision.prompt.text()
    assert listed(w) == [f"Lose a step from {u} ({'reduced' if len(w.game.counters[u].steps) > 1 else 'eliminated'})"
                         for u in p["units"]]
    assert w.view.mp.overlay.attackers == set(p["units"])           # the units that may lose it are ringed
    by_hex: dict = {}
    for u in p["units"]:
        by_hex.setdefault(s.units[u].hex, []).append(u)
    h, units = min(by_hex.items(), key=lambda kv: len(kv[1]))
    w.click_hex(h)
    if len(units) == 1:
        assert w.state.units[units[0]].step == 1 or w.state.units[units[0]].hex is None
    else:
        assert "choose in the Decision list" in w.decision.message.text()
        assert w.choose(f"lose {units[0]}")
    assert len(w.timeline.latest.log) > len(s.log) and "lose" in w.timeline.steps[-1].action
    w.close()


def test_hotseat_keeps_each_sides_chits_secret(qtbot, smolensk_doc):
    """Two people at one screen: a hand-over screen covers the window when the
    decision passes to the other side, and each side's chosen chits and
    chits in hand are hidden from the other."""
    w = show(qtbot, open_playtest(smolensk_doc, "short", (), 3, {"axis": "human", "soviet": "human"}, secrets=True))
    assert w.handover.isVisible() and "Axis" in w.handover.label.text()
    assert w.handover.geometry() == w.rect()
    shot(qtbot, w, "5-hotseat-hand-over.png")
    w.handover.go.click()
    assert not w.handover.isVisible() and w.viewer == "axis"
    # both sides played on by a bot: a Soviet decision while the Axis holds Guderian
    bot, t, r = RandomBot(2), w.timeline, w.runner
    while not (t.latest.hands.get("axis") and r.to_move(t.latest) == "soviet"):
        t.apply(bot.choose(r, t.latest))
    w.clear_selection_and_refresh()
    assert w.handover.isVisible() and "Soviet" in w.handover.label.text()
    w.handover.go.click()
    assert w.viewer == "soviet" and not w.handover.isVisible()
    assert "Axis: 1 chit (hidden)" in w.status_panel.cup.text() and "Guderian" not in w.status_panel.cup.text()
    # ...until the Soviet player chooses its chits for the cup
    while not (t.latest.step.get("decision") == "choose" and r.to_move(t.latest) == "soviet"):
        t.apply(bot.choose(r, t.latest))
    w.clear_selection_and_refresh()
    if w.handover.isVisible():
        w.handover.go.click()
    assert w.viewer == "soviet"
    choice = next(a for a in w.legal() if str(a).startswith("choose "))
    assert w.act(choice)
    assert f"Soviet: {choice}" in log_text(w)
    while r.to_move(t.latest) != "axis":
        t.apply(bot.choose(r, t.latest))
    w.clear_selection_and_refresh()
    assert w.handover.isVisible() and "Axis" in w.handover.label.text()
    w.handover.go.click()
    assert "Soviet chooses a chit (hidden)" in log_text(w) and f"Soviet: {choice}" not in log_text(w)
    # without the option (the default for scripts), nothing is hidden and nobody hands over
    plain = show(qtbot, open_playtest(smolensk_doc, "short", (), 3, {"axis": "human", "soviet": "human"}))
    assert not plain.handover.isVisible() and plain.hidden_sides() == set()


def test_the_bots_moves_stay_on_the_map_until_a_person_decides(qtbot, smolensk_doc):
    w = show(qtbot, open_playtest(smolensk_doc, "short", (), 4, {"axis": "human", "soviet": "human"}))
    w.set_agent("axis", "random")
    qtbot.waitUntil(lambda: any(e.get("path") for e in w.timeline.latest.log), timeout=20000)
    w.set_agent("axis", "human")
    qtbot.wait(50)
    moves = [e for e in w.timeline.latest.log if e.get("path") and len(e["path"]) > 1]
    trail = w.view.mp.overlay.trail
    assert trail and trail[-1] == [w.hex(x) for x in moves[-1]["path"]]
    shot(qtbot, w, "6-bot-trail.png")
    if w.human_to_move() and Done() in w.legal():
        w.press_done()                                                  # a person decides: the trail goes
        assert w.view.mp.overlay.trail == []


def test_the_status_shows_what_each_side_would_score_if_the_game_ended_now(qtbot, lib):
    """Barbarossa counts its cities at the end: once the Axis has taken some, the VP line says what
    each side would have if the game ended now, beside the VP given so far (0 until the end)."""
    from runtime.bots import GreedyBot
    doc = GameDocument.open(lib / "barbarossa-postcard")
    try:
        w = show(qtbot, open_playtest(doc, None, (), 1, {"axis": "human", "soviet": "human"}))
        assert "if the game ended now" not in w.status_panel.vp.text()   # nothing taken yet
        bots = {"axis": GreedyBot(1), "soviet": GreedyBot(2)}
        while w.timeline.latest.turn < 2:
            s = w.timeline.latest
            assert w.act(bots[w.runner.to_move(s)].choose(w.runner, s))
        s = w.timeline.state
        standing = w.runner.standing(s)[0]
        assert standing["axis"] > 0 and s.vp.get("axis", 0) == 0
        assert f"if the game ended now: Axis {standing['axis']} · Soviet {standing.get('soviet', 0)}" \
            in w.status_panel.vp.text()
        shot(qtbot, w, "status-standing.png")
        w.close()
    finally:
        doc.close()


def test_the_status_keeps_the_standing_to_the_designer_view_where_the_game_hides_its_count(qtbot, lib):
    """A Victory Denied counts face-down VP chits: a side's view shows no standing; the designer
    view, which shows every secret, does."""
    doc = GameDocument.open(lib / "a-victory-denied")
    try:
        w = show(qtbot, open_playtest(doc, None, (), 1, {"german": "human", "soviet": "greedy"}, secrets=True))
        s = w.timeline.state
        standing = w.runner.standing(s)[0]
        assert standing != {k: s.vp.get(k, 0) for k in standing}           # the chits count at the end
        assert w.viewing_side() is not None and "if the game ended now" not in w.status_panel.vp.text()
        w.designer_action.setChecked(True)
        w.refresh()
        assert "if the game ended now" in w.status_panel.vp.text()
        w.close()
    finally:
        doc.close()
