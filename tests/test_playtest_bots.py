"""Bots in the playtest window: they think on a worker thread, resume by
themselves after a take-back of a person's decision, wait with a clear
prompt when the take-back lands on their own decision, never deliver an
answer asked before a take-back or Stop; and the map's tooltips."""
from __future__ import annotations

import threading

import pytest

pytest.importorskip("pytestqt")

from dsl.scaffold import NewGame, write_game  # noqa: E402
from editor.document import GameDocument  # noqa: E402
from editor.play import open_playtest  # noqa: E402
from runtime.actions import Done, Move  # noqa: E402

from test_playtest import show  # noqa: E402


@pytest.fixture
def doc(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    write_game(tmp_path / "lib" / "g", NewGame("g", "G"))
    d = GameDocument.open(tmp_path / "lib" / "g")
    yield d
    d.close()


def blue_to_move(w) -> bool:
    return w.timeline.at_end and w.runner.to_move(w.timeline.latest) == "blue" and not w.thinking()


def test_bots_think_off_the_gui_thread_and_resume_after_a_take_back(qtbot, doc, monkeypatch):
    w = show(qtbot, open_playtest(doc, "standard", (), 4, {"blue": "human", "red": "greedy"}))
    w.bot_delay_ms = 0
    threads = []
    bot = w.bots["red"]
    real = bot.choose
    monkeypatch.setattr(bot, "choose", lambda r, s: (threads.append(threading.current_thread()), real(r, s))[1])
    while w.runner.to_move(w.state) == "blue":
        assert w.act(Done())
    qtbot.waitUntil(lambda: blue_to_move(w), timeout=20000)  # red's whole turn, played by the bot
    assert threads and all(t is not threading.main_thread() for t in threads)
    # a person's move taken back: the person decides again and the bots go on by themselves
    while w.kind() != "movement":  # reinforcements to place first
        legal = w.legal()
        assert w.act(Done() if Done() in legal else legal[0])
    move = next(a for a in w.runner.legal_actions(w.state) if isinstance(a, Move))
    assert w.act(move)
    w.undo()
    assert not w.paused and not w.paused_by_takeback and w.runner.to_move(w.state) == "blue"
    end = w.timeline.end
    while w.runner.to_move(w.state) == "blue":
        assert w.act(Done())
    qtbot.waitUntil(lambda: blue_to_move(w) and w.timeline.end > end + 3, timeout=20000)


def test_a_take_back_onto_a_bots_decision_waits_with_a_clear_prompt(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "standard", (), 4, {"blue": "human", "red": "greedy"}))
    w.bot_delay_ms = 0
    while w.runner.to_move(w.state) == "blue":
        assert w.act(Done())
    qtbot.waitUntil(lambda: blue_to_move(w), timeout=20000)
    w.set_sandbox(True)
    w.undo()  # red's last decision comes back
    assert w.runner.to_move(w.state) == "red"
    assert w.paused and w.paused_by_takeback
    assert "press Run bots (Ctrl+R)" in w.decision.prompt.text()
    qtbot.wait(200)
    assert w.runner.to_move(w.state) == "red"  # it waits: the bot does not replay at once
    w.run_button.click()
    qtbot.waitUntil(lambda: blue_to_move(w), timeout=20000)
    assert not w.paused


def test_an_answer_asked_before_stop_is_dropped(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "standard", (), 4, {"blue": "human", "red": "greedy"}))
    w.bot_delay_ms = 0
    while w.runner.to_move(w.state) == "blue":
        assert w.act(Done())
    w.stop_bots()
    end = w.timeline.end
    gen = w._bot_gen - 1  # an answer from before Stop
    w.on_bot_chose(Done(), None, gen)
    assert w.timeline.end == end


def test_hex_tooltips_say_terrain_costs_zoc_and_supply(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "standard", (), 4, {"blue": "human", "red": "human"}))
    g = w.game
    crossing = next(h for h, mh in g.map.hexes.items() if mh.name == "Crossing")
    w.hover_hex(crossing)
    tip = w.view.viewport().toolTip()
    assert tip.startswith(f"{g.map.grid.format_id(crossing)} Crossing: Clear, Town; 2 VP")
    assert "to enter: 1 MP for every unit" in tip or "to enter: 1 MP (" in tip
    unit = next(u for u in w.state.units.values() if u.hex is not None and u.side == "red")
    w.hover_hex(unit.hex)
    tip = w.view.viewport().toolTip()
    assert f"• {unit.id}" in tip and "in supply" in tip and "in the ZOC of Red" in tip
    forest = next(h for h, mh in g.map.hexes.items() if mh.terrain == "forest")
    w.hover_hex(forest)
    assert "2 MP (Armoured division)" in w.view.viewport().toolTip()
