"""The playtest window on a firepower game, Barbarossa postcard (offscreen,
pytest-qt): the set-up by the players, a scripted Axis first turn by a
person through the window's own methods (a normal move, a forced march,
attacks by moving in, the hexside limit, the battle panel, battle options,
points of firepower taken on the map and in the panel, the outcome and the
retreat), the Soviet rebuilding and strategic movement, the words for every
log entry, and a whole game between bots run in the window.  Screenshots go
to /tmp/hexforge-play-shots/barbarossa-*.png."""
from __future__ import annotations

import shutil

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QPointF, Qt  # noqa: E402

from editor import playtext as T  # noqa: E402
from editor.document import GameDocument  # noqa: E402
from editor.play import PlayWindow, open_playtest  # noqa: E402
from runtime.actions import Hit, Move, Retreat, Use  # noqa: E402
from runtime.bots import RandomBot  # noqa: E402
from runtime.movement import move_range, why_not  # noqa: E402
from runtime.replay import Timeline, digest  # noqa: E402

from helpers import GAMES  # noqa: E402
from test_playtest import listed, log_text, show, shot  # noqa: E402

HUMANS = {"axis": "human", "soviet": "human"}


@pytest.fixture
def doc(tmp_path, monkeypatch):
    shutil.copytree(GAMES / "barbarossa-postcard", tmp_path / "barbarossa-postcard")
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    d = GameDocument.open(tmp_path / "barbarossa-postcard")
    yield d
    d.close()


def panel(w: PlayWindow) -> str:
    return w.odds.report.toPlainText()


def panel_units(w: PlayWindow) -> list[str]:
    return [w.odds.attackers.item(i).text() for i in range(w.odds.attackers.count())]


def set_up(w: PlayWindow) -> None:
    """3.0: the Soviet player sets up first, then the Axis player: one unit
    each by a click on a highlighted hex, the rest where the scenario puts them."""
    g = w.game
    for side in ("soviet", "axis"):
        assert w.kind() == "deploy" and w.runner.to_move(w.state) == side
        assert "sets up" in w.decision.prompt.text() and w.decision.done.text() == "Place the rest"
        uid = w.sel_unit
        assert uid and listed(w)[0].startswith(f"Select {uid} to set up")
        area = g.map.areas[w.state.units[uid].box.split(":", 1)[1]]
        legal = set(w.view.mp.overlay.legal)
        assert legal and legal <= area
        h = min(legal, key=g.map.grid.to_colrow)
        w.click_hex(h)
        assert w.state.units[uid].hex == h and f"{uid} " in w.decision.message.text()
        w.press_done()


def test_a_scripted_axis_first_turn(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "standard", (), 3, HUMANS))
    g, board, H = w.game, w.board, w.board.parse
    assert w.firepower and "Clear" in w.status_panel.header.text()
    set_up(w)
    s = w.state
    assert w.kind() == "movement" and s.active == "axis"
    assert "Forced march (6.2)" in w.decision.prompt.text() and "attacks it" in w.decision.prompt.text()
    here = {u: board.hex_id(s.units[u].hex) for u in ("11A", "AGC", "2A", "1PzG", "3PzG", "2PzG")}
    assert here == {"11A": "0106", "AGC": "0105", "2A": "0105", "1PzG": "0104", "3PzG": "0105", "2PzG": "0104"}
    ov = w.view.mp.overlay

    # a normal move: the reach is the normal range, enemy hexes in it are outlined (a move there attacks)
    w.click("0106", unit="11A")
    assert w.sel_unit == "11A" and w.mode() == ""
    r = move_range(g, board, s, "11A")
    assert set(ov.reach) == set(r.destinations) and not ov.reach_modes
    assert ov.targets == {h for h in r.destinations if s.side_at(h) == "soviet"} and H("0207") in ov.targets
    w.click("0107")
    s = w.state
    assert s.units["11A"].hex == H("0107") and {"11A", "11A@normal"} <= s.moved
    # ...and 11A is still listed and selectable: a forced march is left (6.2); the menu follows
    # 6.1: its move may go on at once, so 11A stays selected, in the forced-march mode
    assert "11A in 0107 — Forced march (6.2) ◀" in listed(w)
    assert w.sel_unit == "11A" and w.mode() == "forced-march"
    assert set(ov.reach) == move_range(g, board, s, "11A", "forced-march").destinations == {H("0108")}
    shot(qtbot, w, "barbarossa-1-forced-march.png")
    w.click("0108")
    assert w.state.units["11A"].hex == H("0108") and "move 11A 0108 forced-march" in log_text(w)
    assert "11A" not in w.movable()
    w.click("0108", unit="11A")
    assert "has already used Forced march" in w.decision.message.text()

    # armour forced-marches on after a normal move; a click on a hex only another mode reaches uses it
    w.click("0104", unit="1PzG")
    w.click("0105")
    assert w.sel_unit == "1PzG"                                       # still selected (6.1)
    w.set_mode("")                                                    # the menu on normal moves...
    w.select_unit("1PzG")
    assert w.mode() == "forced-march"                                 # ...follows the unit's only mode
    w.set_mode("")
    w.refresh()
    assert not ov.reach and H("0206") in ov.reach_modes and ov.reach_modes[H("0206")] == "1 FM"
    w.click("0206")
    s = w.state
    assert s.units["1PzG"].hex == H("0206") and s.attack_from["1PzG"] == H("0105")
    assert "1PzG@attack" in s.moved and "attacks 0206" in log_text(w)

    # attacks by moving in: AGC and 2A into Minsk; a contested hex holds both sides
    for uid in ("AGC", "2A"):
        w.click("0105", unit=uid)
        w.click("0205")
    s = w.state
    assert {u.id for u in s.units_at(H("0205"))} == {"AGC", "2A", "2T", "WF"}
    assert H("0205") in w.view.mp.contested() and H("0206") in w.view.mp.contested()
    placed = dict(w.view.mp.placed(H("0205")))
    assert placed["AGC"].center().x() < placed["WF"].center().x()     # each side's stack beside the other
    for uid, r in placed.items():                                     # every counter's top strip can be clicked
        assert w.view.mp.unit_at(r.center().x(), r.top() + r.height() * 0.08) == uid
    # 6.3: at most 2 panzer groups across one hexside
    w.click("0105", unit="3PzG")
    w.click("0206")
    w.click("0104", unit="2PzG")
    w.click("0105")                                                       # 2PzG stays selected (6.1)
    assert w.mode() == "forced-march" and H("0206") not in ov.reach_modes.keys() | ov.reach.keys()
    w.click("0206")
    assert w.decision.message.text() == why_not(g, board, w.state, "2PzG", H("0206"), "forced-march")
    assert "at most 2 panzer-group units attack across one hexside" in w.decision.message.text()
    assert w.state.units["2PzG"].hex == H("0105")
    shot(qtbot, w, "barbarossa-2-movement.png")
    w.press_done()

    # the combat phase: every battle must be fought; the panel shows one before it is
    assert w.kind() == "combat" and not w.decision.done.isEnabled()
    assert listed(w) == ["Fight the battle in 0205: 2A, AGC against 2T, WF",
                         "Fight the battle in 0206: 1PzG, 3PzG against 3T, SWF"]
    assert w.target == H("0205") and w.odds.roll.text() == "Fight the battle in 0205"
    assert "Battle in 0205 (Minsk)" in panel(w) and "Not fought yet" in panel(w)
    w.click("0301")
    assert "no battle in 0301" in w.decision.message.text()
    w.odds.roll.click()

    # battle options: the attacker first; what they add is in the panel at once
    s = w.state
    p = s.pending[0]
    assert w.kind() == "battle" and p["stage"] == "options" and w.runner.to_move(s) == "axis"
    assert w.decision.done.text() == "No (more) options"
    assert "AGC: Air strike (7.1): the enemy -1 instead" in listed(w)
    assert w.view.mp.overlay.target == H("0205") and "AGC" in ov.attackers   # option providers are ringed
    assert w.choose("use air-strike-on-enemy AGC")
    assert "Air strike (7.1): the enemy -1 instead (AGC) (option)" in panel(w)
    assert "Axis uses Air strike (7.1): the enemy -1 instead with AGC: -1 enemy" in log_text(w)
    shot(qtbot, w, "barbarossa-3-battle-options.png")
    w.press_done()                                                   # no Soviet options on turn 1 (7.1)

    # fire: Axis 3 (AGC 2, 2A 1), Soviet 3 (2T, WF, Minsk's VP) - 1 = 2; the Soviet player takes 3 points
    s = w.state
    p = s.pending[0]
    assert p["stage"] == "absorb" and p["side"] == "soviet" and p["fire"] == {"axis": 3, "soviet": 2}
    assert "Axis fired (attacker)" in panel(w) and "Soviet city (7.1)" in panel(w)
    assert "battle in 0205: firepower Axis 3, Soviet 2" in log_text(w)
    assert listed(w) == ["Take a point on 2T (1 more point disrupts it)",
                         "Take a point on WF (1 more point disrupts it)"]
    assert any(t.startswith("WF · Soviet · strength 1 · 1 more point disrupts it") for t in panel_units(w))
    # a real mouse click on WF's counter (the top strip of the Soviet column shows)
    r = dict(w.view.mp.placed(H("0205")))["WF"]
    w.view.centerOn(r.center())
    at = w.view.mapFromScene(QPointF(r.center().x(), r.top() + r.height() * 0.08))
    qtbot.mouseClick(w.view.viewport(), Qt.LeftButton, pos=at)
    assert "disrupted" in w.state.units["WF"].markers and "WF is disrupted" in log_text(w)
    assert "WF · Soviet · strength 1 · disrupted: 1 more point eliminates it" in panel_units(w)
    assert "Take a point on WF (disrupted: 1 more point eliminates it)" in listed(w)
    shot(qtbot, w, "barbarossa-4-battle-fire.png")
    item = next(w.odds.attackers.item(i) for i in range(w.odds.attackers.count())
                if w.odds.attackers.item(i).text().startswith("WF"))
    w.battle_unit_clicked(item)                                      # a click in the panel's list
    s = w.state
    assert s.units["WF"].hex is None and "disrupted" in s.units["2T"].markers   # the last point: 2T, the only one
    # the Axis player takes 2: a German 2-strength unit ignores the first point (7.1)
    p = s.pending[0]
    assert p["side"] == "axis" and p["points"] == 2 and w.runner.to_move(s) == "axis"
    w.click("0205")
    assert "Click one of the counters in 0205" in w.decision.message.text()
    w.click("0205", unit="AGC")
    assert not w.state.units["AGC"].markers and w.state.pending[0]["taken"]["AGC"] == 1
    assert w.choose("hit 2A")
    # 2A is disrupted and goes back; AGC holds: 7.2 C, the disrupted 2T retreats where the Soviet player clicks
    s = w.state
    p = s.pending[0]
    assert s.units["2A"].hex == H("0105") and "2A goes back to 0105" in log_text(w)
    assert p["stage"] == "retreat" and p["outcome"] == "C" and w.runner.to_move(s) == "soviet"
    assert set(ov.legal) == {H(a.path[0]) for a in w.legal() if isinstance(a, Retreat)} and H("0304") in ov.legal
    assert "2T retreats one hex" in w.decision.prompt.text()
    text = panel(w)
    assert "only disrupted defenders remain" in text
    w.hover_hex(H("0304"))
    assert ov.path == [H("0205"), H("0304")]
    w.click("0206")
    assert "cannot retreat to 0206" in w.decision.message.text()
    w.click("0304")
    s = w.state
    assert s.units["2T"].hex == H("0304") and s.control[H("0205")] == "axis"
    assert "battle in 0205: outcome C" in log_text(w) and "(Axis wins)" in log_text(w)

    # the second battle is next: the panel turns to it
    assert w.kind() == "combat" and w.target == H("0206")
    rep = w.runner.engine.battle_report(s, target=H("0206"))
    assert "Axis firepower (attacker)" in panel(w) and str(rep.fire["axis"].total) in panel(w)
    # the window's game replays to the same state
    t2, problem = Timeline.replay(w.runner, w.saved())
    assert problem == "" and digest(t2.latest) == digest(w.timeline.latest)
    w.close()


def test_the_battle_panel_shows_every_firepower_item(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "standard", (), 5, HUMANS))
    w.press_done()
    w.press_done()
    for a in ("move AGC 0205", "move 3PzG 0205", "done"):
        assert w.act(a)
    s = w.state
    H = w.board.parse
    # before the battle: the preview; then with an option used
    for step in ("preview", "options"):
        rep = w.runner.engine.battle_report(s, s.pending[0]) if s.pending else \
            w.runner.engine.battle_report(s, target=H("0205"))
        text = panel(w)
        for side, f in rep.fire.items():
            for uid, v in f.base:
                assert uid in text
            for title, v in f.modifiers + f.options:
                assert title in text and f"{'+' if v >= 0 else ''}{v}" in text
            assert f"{T.side_title(w.runner, side)} firepower" in text
        for why in (o.title for o in w.game.battle_outcomes):
            assert why in text
        units = panel_units(w)
        assert [u.split(" · ")[0] for u in units] == rep.attackers + rep.defenders
        if step == "preview":
            assert w.odds.roll.isEnabled()
            w.fight()
            assert w.choose("use air-strike AGC")
            s = w.state
            assert s.pending[0]["used"] == [["air-strike", "AGC", "axis", 1, 0]]
    assert "Air strike (7.1): +1 for the army group (AGC)" in panel(w)
    w.close()


def run_to(w: PlayWindow, bot: RandomBot, done, limit: int = 400) -> None:
    """Let a bot play both sides (through the timeline) until ``done(state)``."""
    t = w.timeline
    while not done(t.latest):
        t.apply(bot.choose(w.runner, t.latest))
        assert t.latest.result is None and t.end < limit
    w.clear_selection_and_refresh()  # as after an action made in the window


def test_rebuilding_and_strategic_movement(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "standard", (), 4, HUMANS))
    bot = RandomBot(1)
    run_to(w, bot, lambda s: s.step.get("decision") == "rebuild")
    s = w.state
    assert w.kind() == "rebuild" and "rebuilds units" in w.decision.prompt.text()
    assert w.decision.done.text() == "Stop rebuilding"
    uid = w.sel_unit
    assert s.units[uid].box == "pool:soviet-available" and listed(w)[0].startswith(f"Select {uid} to rebuild")
    rule = next(r for r in w.game.rebuilds.values() if r.units & w.game.selectors_of(uid))
    hexes = set(w.view.mp.overlay.legal)
    assert hexes and all(rule.at & set(w.game.map.hexes[h].features) for h in hexes)
    assert any(x.startswith(f"Rebuild {uid} in ") for x in listed(w))
    h = min(hexes, key=w.game.map.grid.to_colrow)
    w.click_hex(h)
    s = w.state
    assert s.units[uid].hex == h and f"{uid} is rebuilt in {w.hid(h)}" in log_text(w)
    assert ("disrupted" in s.units[uid].markers) == (rule.marker == "disrupted")   # 10.0: fronts come back disrupted
    run_to(w, bot, lambda s: s.step.get("modes") == ["strategic"])
    s = w.state
    assert w.kind() == "movement" and "Strategic movement (10.0), at most 2 units" in w.decision.prompt.text()
    assert w.mode() == "strategic"
    uid = next(u for u in w.movable() if "disrupted" not in s.units[u].markers)
    w.click(w.hid(s.units[uid].hex), unit=uid)
    r = move_range(w.game, w.board, s, uid, "strategic")
    assert w.sel_unit == uid and set(w.view.mp.overlay.reach) == set(r.destinations)
    far = max(r.destinations, key=lambda x: (s.units[uid].hex.distance(x), x.q, x.r))
    shot(qtbot, w, "barbarossa-5-strategic.png")
    w.click_hex(far)
    s = w.state
    assert s.units[uid].hex == far and "disrupted" in s.units[uid].markers
    assert f"{uid} is disrupted (Strategic movement (10.0))" in log_text(w)
    assert uid not in w.movable()
    w.close()


def test_the_siberian_question(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "standard", (), 4, HUMANS))
    run_to(w, RandomBot(2), lambda s: s.step.get("decision") == "decide", limit=2000)
    s = w.state
    assert w.kind() == "decide" and s.turn == 3
    assert s.step["question"] in w.decision.prompt.text() and w.decision.done.text() == "No"
    assert listed(w) == [f"Yes: {s.step['question']}"]
    w.press_done()
    assert "decision siberian-early: no" in log_text(w)
    w.close()


def test_bots_play_a_whole_game_in_the_window(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "standard", (), 3, {"axis": "random", "soviet": "random"}))
    qtbot.waitUntil(lambda: w.timeline.latest.result is not None, timeout=60000)
    s = w.timeline.latest
    assert s.result["winner"] in ("axis", "soviet") and w.kind() == "over"
    assert w.progress.value() == 1000 and "game over" in log_text(w)
    assert any("outcome" in e for e in s.log) and any("option" in e for e in s.log)
    assert "Last battle" in panel(w)
    # every log entry reads as a sentence, never the key/value fallback
    for e in s.log:
        text = T.describe(e, w.runner)
        assert text and "{" not in text and not text.startswith("turn ")
    # the same seed and agents give the same game
    t2, problem = Timeline.replay(w.runner, w.saved())
    assert problem == "" and t2.latest.result == s.result
    shot(qtbot, w, "barbarossa-6-game-over.png")
    w.close()


def test_a_move_in_the_list_of_a_unit_with_a_forced_march_left(qtbot, doc):
    """Units that moved keep their forced march: movable() follows the
    engine's Move actions, not 'has not moved'."""
    w = show(qtbot, open_playtest(doc, "standard", (), 3, HUMANS))
    w.press_done()
    w.press_done()
    assert w.act("move 11A 0107")
    legal = {a.unit for a in w.runner.legal_actions(w.state) if isinstance(a, Move)}
    assert set(w.movable()) == legal and "11A" in legal
    assert not any(isinstance(a, (Hit, Use)) for a in w.legal())
    w.close()
