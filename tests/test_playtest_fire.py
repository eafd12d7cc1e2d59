"""The playtest with fire attacks (docs/dsl.md §4.27): when a fire effect
asks, a click on an enemy hex in reach makes it the target, the Combat
panel shows the fire attack's fixed column, shifts and chances, and the
button fires; on tests/games/avd-combat (A Victory Denied's bomber)."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from dsl.compiler import compile_game  # noqa: E402
from editor.play import PlayWindow  # noqa: E402
from runtime.actions import Fire  # noqa: E402

GAME = Path(__file__).parent / "games" / "avd-combat"
SHOTS = Path("/tmp/hexforge-play-shots")


def test_a_fire_attack_in_the_playtest(qtbot):
    w = PlayWindow(compile_game(GAME), "duel", (), 1, None)
    w.interactive = False
    w.bot_delay_ms = 0
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    for _ in range(200):  # the first decisions, until the Luftwaffe chit offers the bomber
        if w.fire_ask() is not None:
            break
        w.act(w.runner.legal_actions(w.state)[0])
    assert w.fire_ask() is not None
    target = next(a.target for a in w.runner.legal_actions(w.state) if isinstance(a, Fire))
    w.click(target)
    html = w.odds.report.toHtml()
    assert "German bomber (once a game) fires on " + target in html and "fixed column 8-1" in html
    assert w.odds.roll.isEnabled() and w.odds.roll.text().startswith("Fire (")
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(10)
    assert w.grab().save(str(SHOTS / "avd-combat-fire.png"))
    n = len(w.state.log)
    w.roll()
    assert any(str(e.get("action", "")).startswith(f"fire bomber {target}") for e in w.state.log[n:])
    w.close()
