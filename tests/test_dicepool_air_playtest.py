"""Air combat in the playtest (games/prokhorovka, 16.0): the decisions list
offers the aircraft's missions, the interception and the targets, and the
Combat panel keeps showing the battle with what the air combat scored.
Screenshots go to /tmp/hexforge-play-shots."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from runtime import attachments as A  # noqa: E402
from runtime.actions import Done, Use  # noqa: E402

from helpers import german_combat_at, only_these_on_the_map, prokhorovka_hotseat  # noqa: E402

SHOTS = Path("/tmp/hexforge-play-shots")


def _items(w):
    return [w.decision.list.item(i).text() for i in range(w.decision.list.count())]



def test_air_missions_in_the_playtest(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609"})
        A.attach(g, s, "Tiger1", "LAH")
        A.attach(g, s, "T34-1", "52G")
        for c, pool in (("He111-1", "german-support"), ("Rudel", "german-support"), ("La5-1", "soviet-support")):
            s.place(c, None, f"pool:{pool}")
        german_combat_at(w, s, "0609")
        w.roll()   # Declare the attack
        w.act(Done())   # the battle is fought: no support chit to allocate (aircraft fly in the air combat); the Soviets fly nothing
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())   # all the equipment fights (11.2(1))
        assert "air combat: German may fly a mission" in w.decision.prompt.text()
        assert _items(w) == ["Fly He111-1 (He 111): bombing (its dice as artillery; the hits neutralise tank weapons)",
                             "Fly Rudel (Ju 87 (Rudel)): bombing, 2 shots at enemy equipment"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air.png"))
        w.act(Use("Rudel"))
        assert "Rudel flies over the battle: Soviet may send a fighter" in w.decision.prompt.text()
        assert _items(w) == ["Intercept with La5-1 (La-5)"]
        assert "German attacks Soviet in 0609" in w.odds.report.toPlainText()
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air-intercept.png"))
        w.act(w.legal()[-1])   # no interception: Rudel picks its targets
        assert "picks Rudel's the enemy equipment it shoots at" in w.decision.prompt.text()
        assert _items(w) == ["Rudel shoots at T34-1 (T-34) under 52G in 0609"]
        w.act(Use("Rudel", "T34-1"))
        assert "Rudel (german): 1 damage on the track from the air (16.2)" in w.odds.report.toPlainText() or \
            any("missed" in e.get("step", "") for e in w.state.log[-3:])
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air-target.png"))


def test_the_bomber_allots_its_hits_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """16.2(3): after a bombing that hits, the German player picks the Soviet
    tank weapons the hits neutralise, each for its armour."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    from runtime import state
    faces = [1, 2, 6]   # the He 111's three dice: 2 hits on clear (3 or less)
    monkeypatch.setattr(state, "LOADED_DICE", lambda s, die, why: faces.pop(0) if faces and "bombing" in why
                        else None)
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609"})
        A.attach(g, s, "Tiger1", "LAH")
        A.attach(g, s, "KV1-1", "52G")
        A.attach(g, s, "T70-1", "52G")
        s.place("He111-1", None, "pool:german-support")
        german_combat_at(w, s, "0609")
        w.roll()
        w.act(Done())
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())
        w.act(Use("He111-1"))
        assert "German allots 2 bombing hits (16.2(3)): neutralising a tank weapon costs" in w.decision.prompt.text()
        assert _items(w) == ["Neutralise KV1-1 (KV-1) under 52G in 0609 (2 bombing hits)",
                             "Neutralise T70-1 (T-70) under 52G in 0609 (1 bombing hit)"]
        assert w.decision.done.text() == "Keep the rest"
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air-allot.png"))
        w.act(Use("He111-1", "KV1-1"))
        assert "KV1-1" in w.state.pending[0]["neutral"]


def test_recon_before_the_german_support_chits_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """16.1(6)3: after the Soviets allocate, the German may fly recon at their
    chits, face down, before allocating his own; the targets are the chits'
    places (#1, #2), not their names."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609"})
        A.attach(g, s, "Tiger1", "LAH")
        for c, pool in (("Fw189", "german-support"), ("GArty1", "german-support"), ("SArty1", "soviet-support"),
                        ("Mines", "soviet-support")):
            s.place(c, None, f"pool:{pool}")
        german_combat_at(w, s, "0609")
        w.roll()
        w.act(Done())
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())
        w.act(Use("SArty1"))
        w.act(Use("Mines"))
        assert "air combat before German's support chits: German may fly recon" in w.decision.prompt.text()
        assert _items(w) == ["Fly Fw189 (Fw 189 (recon)): recon (turns up to 3 face-down enemy counters face up)"]
        w.act(Use("Fw189"))
        assert _items(w) == ["Fw189 turns face up the enemy's support chit #1 (allocated face down to this battle)",
                             "Fw189 turns face up the enemy's support chit #2 (allocated face down to this battle)"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air-recon-chits.png"))
        w.act(Use("Fw189", "#2"))
        assert w.state.pending[0]["seen"] == ["Mines"]


def test_air_combat_between_two_rolls_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """16.0(1): after the normal fire step the air combat opens again; the
    Combat panel shows the damage rolled so far and the odds of the rolls
    still to come, and says that missions not flown are not counted."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609"})
        A.attach(g, s, "Tiger1", "LAH")
        A.attach(g, s, "T34-1", "52G")
        s.place("He111-1", None, "pool:german-support")
        german_combat_at(w, s, "0609")
        w.roll()
        w.act(Done())
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())
        assert "air missions not yet flown are not counted" in w.odds.report.toPlainText()
        w.act(Done())   # no mission before the dice: the normal fire step is rolled
        assert "air combat after Normal combat (11.4) (16.0(1)): German may fly" in \
            w.decision.prompt.text()
        report = w.odds.report.toPlainText()
        assert "Rolled so far: German" in report and "the figures are of the rolls still to come" in report
        assert "Normal combat (11.4)  German" not in report   # rolled: no longer in the pools
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air-between-rolls.png"))


def test_the_germans_order_the_declared_battles_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """9.2(3): Declare, Declare, End combat: the Germans pick the battle fought next."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        b = w.board
        only_these_on_the_map(s, b, {"LAH": "0504", "52G": "0505", "167ID": "0610", "31TK": "0609"})
        german_combat_at(w, s, "0505")
        assert w.odds.roll.text() == "Declare the attack on 0505"
        w.roll()
        w._click_combat(b.parse("0609"))
        w.roll()
        assert "German declares attacks" in w.decision.prompt.text() and "Declared: 0505, 0609." in \
            w.decision.prompt.text()
        w.act(Done())
        assert "Every attack is declared: German chooses the battle fought next" in w.decision.prompt.text()
        assert [x.split(";")[0] for x in _items(w)] == ["Fight the battle in 0505 next (LAH",
                                                        "Fight the battle in 0609 next (167ID"]
        assert "German wins" in _items(w)[0]
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-order.png"))


def test_a_commander_rolls_a_die_again_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """签一览 指挥官 ①: a kept commander lists every die of the battle to roll again."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        b = w.board
        only_these_on_the_map(s, b, {"LAH": "0504", "52G": "0505"})
        s.place("GCmdr1", None, "pool:german-support")
        german_combat_at(w, s, "0505")
        w.roll()
        w.act(Done())
        w.act(Use("GCmdr1"))
        assert "German may roll one of them again with GCmdr1" in w.decision.prompt.text()
        items = _items(w)
        assert len(items) == 6 and items[0].startswith("GCmdr1 (Commander) rolls again die 1: Normal combat (11.4): "
                                                       "german (it showed ")
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-reroll.png"))


def test_the_sides_declare_their_equipment_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """11.2(1): the Soviets, then the Germans, may leave equipment out of a battle."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0504", "52G": "0505"})
        for aid, host in (("Tiger1", "LAH"), ("T34-1", "52G"), ("PakFront1", "52G")):
            A.attach(g, s, aid, host)
        german_combat_at(w, s, "0505")
        w.roll()
        w.act(Done())
        assert "Soviet declares the equipment that fights (11.2(1))" in w.decision.prompt.text()
        assert _items(w) == ["Leave T34-1 (T-34) out of the battle (under 52G; it stays face down)",
                             "Leave PakFront1 (Pak front) out of the battle (under 52G; it stays face down)"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-equipment.png"))
        w.act(Use("T34-1", "out"))
        assert _items(w) == ["Leave PakFront1 (Pak front) out of the battle (under 52G; it stays face down)"]


def test_recon_names_a_face_down_counter_by_its_place_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """16.1(6)3 with GJ63 3.5(5): the German sees how many counters 31TK
    carries face down, not which; the recon's targets say so."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609", "31TK": "0808"})
        A.attach(g, s, "Tiger1", "LAH")
        A.attach(g, s, "T34-1", "52G")
        A.attach(g, s, "T34-2", "31TK")
        A.attach(g, s, "PakFront2", "31TK")
        s.place("Fw189", None, "pool:german-support")
        german_combat_at(w, s, "0609")
        w.roll()
        w.act(Done())
        while w.state.pending and w.state.pending[0].get("stage") in ("equipment", "support"):
            w.act(Done())
        assert any(i.startswith("Fly Fw189") for i in _items(w)), _items(w)
        w.act(Use("Fw189"))
        items = _items(w)
        assert "Fw189 turns face up the face-down counter #2 under 31TK in 0808" in items, items
        assert not any("T34-2" in i or "PakFront2" in i for i in items)
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air-recon-under.png"))
        w.act(Use("Fw189", "31TK#2"))
        assert "face-up:PakFront2" in w.state.done and "face-up:T34-2" not in w.state.done


def test_an_air_window_outside_a_battle_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """16.0, 16.1(1)2-3: at the start of a phase the decisions list offers
    each mission with its target (the chance to hit it), recon in the side's
    own turn; the prompt says it all (a long prompt is not clipped)."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609", "31TK": "0808"})
        A.attach(g, s, "Tiger1", "LAH")
        A.attach(g, s, "T34-1", "52G")
        A.attach(g, s, "T34-2", "31TK")
        A.face_up(g, s, ["52G"])
        for c in ("Rudel", "Fw189"):
            s.place(c, None, "pool:german-support")
        s.phase, s.active, s.step, s.activated, s.pending = "movement", "german", {"decision": "movement"}, set(), []
        w.runner.engine.dicepool.air.open_window(s, "move", "Movement (8.0)")
        w.timeline._kept[w.timeline.end] = s
        w.refresh()
        prompt = w.decision.prompt.text()
        assert prompt.startswith("Air missions at the start of Movement (8.0) (16.0: outside a battle): German may "
                                 "fly a ground attack")
        assert _items(w) == [
            "Fly Fw189 (Fw 189 (recon)): recon, turning up to 3 face-down enemy counters face up, first the "
            "face-down counter #1 under 31TK in 0808",
            "Fly Rudel (Ju 87 (Rudel)): ground attack at T34-1 (T-34) under 52G in 0609: hits 66.7%, and it goes "
            "back to its cup"]
        assert w.decision.done.text() == "No (more) missions"
        d = w.decision   # the whole prompt shows: the list begins below it
        assert d.prompt.height() >= d.prompt.heightForWidth(d.prompt.width()) > 52
        assert d.list.geometry().top() >= d.prompt_area.geometry().bottom()
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air-window.png"))
        w.act(Use("Rudel", "T34-1"))
        assert any("Rudel (german) flies a ground-attack mission at T34-1 in 0609" in str(e.get("step"))
                   for e in w.state.log)


def test_a_commander_rolls_an_air_die_again_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """签一览 ①: the AA gun's hit on the German aircraft, and the German
    commander kept in the battle offered to roll that die again."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    from runtime import state
    monkeypatch.setattr(state, "LOADED_DICE", lambda s, die, why: 2 if why.startswith("AA fire") else None)
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609"})
        A.attach(g, s, "Tiger1", "LAH")
        A.attach(g, s, "T34-1", "52G")
        A.attach(g, s, "AA1", "52G")
        for c in ("Ju87-1", "GCmdr1"):
            s.place(c, None, "pool:german-support")
        german_combat_at(w, s, "0609")
        w.roll()
        w.act(Done())
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())
        w.act(Use("GCmdr1"))
        w.act(Done())   # the commander cancels nothing: kept
        w.act(Use("Ju87-1"))
        assert w.state.pending[0]["stage"] == "air-reroll"
        assert "air combat: AA fire: AA1 at Ju87-1 rolled 2; German may roll a die again with GCmdr1" in \
            w.decision.prompt.text()
        assert _items(w) == ["GCmdr1 (Commander) rolls again die 1 of AA fire: AA1 at Ju87-1 (it showed 2)"]
        assert w.decision.done.text() == "Keep the die"
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-air-reroll.png"))
