"""The playtest on A Victory Denied's own decisions (games/a-victory-denied):
the HQ relocation at the supply check (补给 4 j) asked of a person, from a
scripted state: the prompt names the HQs, a click selects one and shows
where it may go, a click there relocates it."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from dsl.compiler import compile_game  # noqa: E402
from editor.play import PlayWindow  # noqa: E402
from runtime.actions import Displace, Move  # noqa: E402
from runtime.definition import ResultCode  # noqa: E402
from runtime.replay import Timeline  # noqa: E402
from runtime.runner import Runner  # noqa: E402

from helpers import ROOT  # noqa: E402

SHOTS = Path("/tmp/hexforge-play-shots")


@pytest.fixture(scope="module")
def game():
    return compile_game(ROOT / "games" / "a-victory-denied")


def window(qtbot, runner, s) -> PlayWindow:
    w = PlayWindow(runner.game, "campaign", (), 1, {"german": "human", "soviet": "human"},
                   timeline=Timeline(runner, start=s))
    w.interactive = False
    w.bot_delay_ms = 0
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_the_hq_relocation_at_the_supply_check_in_the_playtest(qtbot, game):
    runner = Runner(game)
    s = runner.new_game(seed=1)
    runner.run_effects(s, "trigger:supply-check", "HQ relocation (4 j) and Soviet disbanding (4 k)")
    ask = runner.effect_asks(s)
    assert ask["decision"] == "relocate" and ask["side"] == "german"
    w = window(qtbot, runner, s)
    text = w.decision.prompt.text()
    hq = ask["units"][0]
    assert f"may relocate {', '.join(ask['units'])}" in text
    w.click(runner.board.hex_id(s.units[hq].hex), unit=hq)           # the HQ is selected: its hexes light up
    to = [a.to for a in runner.legal_actions(s) if isinstance(a, Displace) and a.unit == hq]
    assert w.sel_unit == hq and {runner.board.hex_id(h) for h in w.view.mp.overlay.legal} == set(to)
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(10)
    assert w.grab().save(str(SHOTS / "avd-relocate.png"))
    w.click(to[-1])
    assert w.state.units[hq].hex == runner.board.parse(to[-1])
    w.close()


def test_an_overrun_hq_displaced_by_its_owner_in_the_playtest(qtbot, game):
    """移动 4 e-f: 10Mot moves onto 20A, alone in 2307; the Soviet player places it (the prompt says
    from where and under which conditions; the overrun hex is outlined, the hexes highlighted)."""
    runner = Runner(game)
    s = runner.new_game(seed=1)
    s.phase, s.active, s.activated, s.step = "movement", "german", set(), {"decision": "movement"}
    s.place("20A", runner.board.parse("2307"))
    s = runner.apply(s, Move("10Mot", "2307"))
    assert s.pending[0]["kind"] == "displace" and s.pending[0]["from"] == "2307"
    w = window(qtbot, runner, s)
    text = w.decision.prompt.text()
    assert "20A is displaced from 2307" in text and "at least 4 hexes nearer its supply" in text
    assert w.view.mp.overlay.target == runner.board.parse("2307")
    assert {runner.board.hex_id(h) for h in w.view.mp.overlay.legal} == set(s.pending[0]["hexes"])
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert w.grab().save(str(SHOTS / "avd-displace.png"))
    w.click(s.pending[0]["hexes"][-1])
    assert w.state.units["20A"].hex == runner.board.parse(s.pending[0]["hexes"][-1])
    w.close()


def test_an_hq_following_one_of_its_retreating_units_in_the_playtest(qtbot, game):
    """撤退 6 c: 20A, 170RD and 13TD in 3624 retreat 1 hex; the two divisions went different ways; the
    Soviet player picks whom 20A goes with (each choice names the unit)."""
    runner = Runner(game)
    s = runner.new_game(seed=1)
    s.active, s.phase, s.step = "german", "combat", {"decision": "combat"}
    for u in ("20A", "170RD", "13TD"):
        s.place(u, runner.board.parse("3624"))
    s.place("7Pz", runner.board.parse("3524"))
    runner.engine.queue_result(s, "3624", ["7Pz"], ResultCode("DR", defender_retreat=1))
    runner.engine._settle(s)
    while s.pending[0]["kind"] == "retreat":
        taken = {s.units[x].hex for x in ("170RD", "13TD")}
        s = runner.apply(s, next(a for a in runner.legal_actions(s) if runner.board.parse(a.path[-1]) not in taken))
    assert s.pending[0]["kind"] == "follow"
    w = window(qtbot, runner, s)
    text = w.decision.prompt.text()
    ends = {u: runner.board.hex_id(s.units[u].hex) for u in ("170RD", "13TD")}
    assert "20A (ringed) retreats with a unit it stacked with" in text
    assert all(f"{u} to {h}" in text for u, h in ends.items())
    labels = [w.decision.list.item(i).text() for i in range(w.decision.list.count())]
    assert sorted(labels) == sorted(f"Retreat 20A with {u} → {h}" for u, h in ends.items())
    assert w.view.mp.overlay.attackers == {"20A"}
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert w.grab().save(str(SHOTS / "avd-follow.png"))
    w.click(ends["13TD"])
    assert w.state.units["20A"].hex == s.units["13TD"].hex
    w.close()


def test_a_panzer_group_chits_commanders_in_the_playtest(qtbot, game):
    """抽取 3 d: the 2nd Panzer Group chit asks the German player for a commander per corps colour; the
    prompt says what a commander does, each answer whom it activates, the candidates are ringed and a
    click on one picks it."""
    runner = Runner(game)
    s = runner.new_game(seed=1)
    s.turn = 2
    s.pc = next(i for i, st in enumerate(runner.program) if st.kind == "proc" and st.phase.id == "activation")
    s.step = {"chit": "2PzG"}
    runner._proc_activate(s, runner.program[s.pc].phase)
    w = window(qtbot, runner, s)
    w.refresh()                                                      # (shown now: the candidates come into view)
    seen = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    assert any(seen.contains(w.view.scene_pos(s.units[u].hex)) for u in ("3Pz", "10Mot"))
    assert "commanding by chains of at most 3 hexes" in w.status_panel.command.text()
    text = w.decision.prompt.text()
    assert "Guderian (2nd Panzer Group) activates its units by command chains, one per yellow / purple / " \
           "orange group" in text
    assert "Pick the yellow unit that commands the yellow chain" in text and "gaps of at most 3 hexes" in text
    assert "No commander activates no yellow unit" in text
    labels = [w.decision.list.item(i).text() for i in range(w.decision.list.count())]
    assert "3Pz commands the yellow chain: activates 3 (10Mot, 3Pz, 4Pz)" in labels
    assert w.view.mp.overlay.attackers == {"3Pz", "4Pz", "10Mot"}
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(10)
    assert w.grab().save(str(SHOTS / "avd-commander.png"))
    w.click("2308", unit="10Mot")
    assert w.state.step["group"] == "purple" and {"3Pz", "4Pz", "10Mot"} <= w.state.activated
    log = "\n".join(w.log_list.item(i).text() for i in range(w.log_list.count()))
    assert "2PzG: 10Mot commands the yellow chain, activating 3 units: 10Mot, 3Pz, 4Pz" in log
    w.close()
