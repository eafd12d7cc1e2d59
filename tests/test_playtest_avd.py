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
from runtime.actions import Displace  # noqa: E402
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
