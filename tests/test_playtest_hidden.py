"""The playtest shows each person their own side's observation
(runtime/observe.py): face-down victory chits of tests/games/hidden show '?'
to the side at the screen, against bots and in hotseat, and the designer
view shows everything under a red banner.  Screenshots go to
/tmp/hexforge-play-shots."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from editor.document import GameDocument  # noqa: E402
from editor.play import PlayWindow, open_playtest  # noqa: E402
from runtime.actions import Move  # noqa: E402

HERE = Path(__file__).resolve().parent
SHOTS = Path("/tmp/hexforge-play-shots")


@pytest.fixture
def doc(tmp_path, monkeypatch):
    dst = tmp_path / "games" / "hidden"
    shutil.copytree(HERE / "games" / "hidden", dst)
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    d = GameDocument.open(dst)
    yield d
    d.close()


def show(qtbot, w: PlayWindow) -> PlayWindow:
    w.interactive = False
    w.bot_delay_ms = 0
    w.paused = True
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    return w


def shot(qtbot, w, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(10)
    p = SHOTS / name
    assert w.grab().save(str(p))
    return p


def chit_values(state) -> list:
    return sorted((m["value"] for m in state.markers if m["kind"] == "vp-chit"), key=lambda v: (v is None, v or 0))


def test_a_person_against_a_bot_sees_no_hidden_value_and_the_designer_view_shows_them(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "stars", (), 2, {"blue": "human", "red": "greedy"}, secrets=True))
    assert w.viewing_side() == "blue" and not w.designer_banner.isVisible()
    assert chit_values(w.view.mp.state) == [None] * 5  # what the map draws: '?' on every chit
    assert chit_values(w.state) == [1, 1, 2, 2, 3]  # the game itself keeps them
    assert "DESIGNER" not in w.windowTitle()
    shot(qtbot, w, "hidden-1-blue-view.png")
    w.designer_action.setChecked(True)
    w.toggle_designer()
    assert w.viewing_side() is None and w.designer_banner.isVisible() and "DESIGNER VIEW" in w.windowTitle()
    assert chit_values(w.view.mp.state) == [1, 1, 2, 2, 3]
    shot(qtbot, w, "hidden-2-designer-view.png")
    w.designer_action.setChecked(False)
    w.toggle_designer()
    assert not w.designer_banner.isVisible() and chit_values(w.view.mp.state) == [None] * 5
    w.close()


def test_hotseat_shows_each_side_its_own_view_after_the_hand_over(qtbot, doc):
    w = show(qtbot, open_playtest(doc, "stars", (), 2, {"blue": "human", "red": "human"}, secrets=True))
    assert w.hotseat() and w.handover.isVisible() and "Blue" in w.handover.label.text()
    w.handover.go.click()
    assert w.viewing_side() == "blue" and chit_values(w.view.mp.state) == [None] * 5
    t, r = w.timeline, w.runner
    s = t.latest.copy()  # a Blue unit next to a star: entering it reveals the chit to both sides
    s.place("B1", r.board.parse("0402"))
    t._kept[t.end] = s
    w._legal_cache = None
    assert w.act(Move("B1", "0502"))
    assert chit_values(w.view.mp.state) == [1, None, None, None, None]
    assert "reveal vp-chit at 0502" in "\n".join(w.log_list.item(i).text() for i in range(w.log_list.count()))
    w.press_done()
    assert w.handover.isVisible() and "Red" in w.handover.label.text()
    w.handover.go.click()
    assert w.viewing_side() == "red" and chit_values(w.view.mp.state) == [1, None, None, None, None]
    shot(qtbot, w, "hidden-3-hotseat-red.png")
    w.close()


def test_a_game_without_secrets_shows_everything_without_a_banner(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    dst = tmp_path / "barbarossa-postcard"
    shutil.copytree(HERE.parent / "games" / "barbarossa-postcard", dst)
    d = GameDocument.open(dst)
    try:
        w = show(qtbot, open_playtest(d, None, (), 1, {"axis": "human", "soviet": "greedy"}, secrets=True))
        assert w.shown_state() is w.state and not w.designer_banner.isVisible()
        assert not w.designer_action.isEnabled()
        w.close()
    finally:
        d.close()


def test_the_status_panel_lists_the_other_sides_hands_and_every_cup_by_count_only(qtbot):
    """Prokhorovka's support chits are in hands and its equipment in cups: the German at the
    screen sees how many the Soviet pools hold, never which chits (AA1, Il2-1...)."""
    from dsl.compiler import compile_game
    game = compile_game(HERE.parent / "games" / "prokhorovka")
    w = show(qtbot, PlayWindow(game, seed=1, agents={"german": "human", "soviet": "human"}, secrets=True))
    w.viewer = "german"
    w.refresh()
    assert w.viewing_side() == "german"
    text = w.status_panel.boxes.text()
    soviet_support = sorted(u for u, x in w.state.units.items() if x.side == "soviet" and x.hex is None
                            and x.box.startswith("pool:soviet-support"))
    assert soviet_support and not any(u in text for u in soviet_support)
    assert "Soviet support chit cup (18):</b> 18 (a cup)" in text
    assert "?:" not in text and "under:" not in text
    w.designer_action.setChecked(True)  # the designer view reads the full state: a cup is counted all the same
    w.toggle_designer()
    assert "Soviet support chit cup (18):</b> 18 (a cup)" in w.status_panel.boxes.text()
    w.close()


@pytest.mark.parametrize("variants", [(), ("blind-equipment",)])
def test_the_enemys_face_down_equipment_shows_as_backs_on_the_map_and_in_the_stack(qtbot, variants):
    """GJ63 3.5(5): the other side sees how many equipment chits a unit carries and whether each is a
    tank chit, never which one; under 19.6 not even that.  The stack dock counts them all."""
    from dsl.compiler import compile_game
    from editor.stackview import state_entries
    from runtime.bots import GreedyBot
    from runtime.observe import hidden_under, observe
    from runtime.runner import Runner
    game = compile_game(HERE.parent / "games" / "prokhorovka", variants=list(variants))
    r = Runner(game)
    s = r.new_game(1)
    bot = GreedyBot(1)
    while not any(u.side == "soviet" and u.box.startswith("under:") for u in s.units.values()):
        s = r.apply(s, bot.choose(r, s))
    view = observe(game, s, "german", log=False)
    backs = hidden_under(view)
    hosts = sorted({u.box[len("under:"):] for u in s.units.values() if u.side == "soviet" and u.box.startswith("under:")})
    assert hosts and sorted(backs) == hosts
    host = hosts[0]
    real = list(s.attached[host])
    w = show(qtbot, PlayWindow(game, seed=1))
    entry = state_entries(game, view, [host], w.view.mp.look)[0]
    titles = [t for _, t in entry.under]
    assert len(titles) == len(real) and all(t.startswith("? face down") for t in titles)
    assert not any(a in " ".join(titles) for a in real)
    tags = sorted(look.label for look, _ in entry.under)
    if variants:
        assert set(tags) == {"?"} and titles == ["? face down"] * len(real)
    else:
        assert set(tags) <= {"Tank", "Equip"}
        want = sorted("Tank" if "tank" in game.counters[a].arrives else "Equip" for a in real)
        assert tags == want
    assert f"Equipment chit: {len(real)} of" in entry.carries
    w.close()
