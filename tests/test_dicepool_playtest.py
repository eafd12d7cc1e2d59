"""The playtest of a dice-pool game (docs/examples/prokhorovka): the Combat
panel shows a battle's dice pools, duels and exact chance of winning before
the dice, the decisions (support chits, pairs, retreat) are listed, and the
last battle's dice are shown after it.  Screenshots go to
/tmp/hexforge-play-shots."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from editor.document import GameDocument  # noqa: E402
from editor.play import open_playtest  # noqa: E402
from runtime import attachments as A  # noqa: E402
from runtime.actions import Done, Use  # noqa: E402
from runtime.combat.dicepool.odds import battle_odds, pct  # noqa: E402

from helpers import german_combat_at, only_these_on_the_map, prokhorovka_hotseat  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path("/tmp/hexforge-play-shots")


def test_a_dice_pool_battle_in_the_playtest(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(ROOT / "docs" / "examples" / "prokhorovka")
    try:
        w = open_playtest(doc, "campaign", (), 1, {"german": "human", "soviet": "human"})
        w.interactive = False
        qtbot.addWidget(w)
        w.resize(1600, 1000)
        w.show()
        qtbot.waitExposed(w)
        s = w.state.copy()
        g, b = w.game, w.board
        for uid in list(s.units):
            if s.units[uid].hex is not None:
                s.place(uid, None, "removed")
        s.attached = {}
        for uid, h in (("LAH", "0303"), ("DR", "0203"), ("29TK", "0304")):
            s.place(uid, b.parse(h))
        for aid, host in (("Tiger", "LAH"), ("PzIV", "DR"), ("KV1", "29TK"), ("T34", "29TK")):
            s.place(aid, None, "pool:german-tank-cup")
            A.attach(g, s, aid, host)
        s.place("Arty", None, "pool:german-support")
        german_combat_at(w, s, "0304")
        assert w.attackers == ["DR", "LAH"]
        odds = battle_odds(w.runner.engine.dicepool.preview(s, ["DR", "LAH"], b.parse("0304")))
        html = w.odds.report.toPlainText()
        assert "German attacks Soviet in 0304" in html and f"German wins {pct(odds.win['german'])}" in html
        assert "Tiger (" in html and "survives) against" in html
        assert [w.odds.attackers.item(i).text() for i in range(w.odds.attackers.count())] == \
            ["DR (3-3-6) in 0203 with PzIV", "LAH (3-3-6) in 0303 with Tiger"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-odds.png"))
        w.roll()   # Fight
        assert "German allocates support chits" in w.decision.prompt.text()
        assert [w.decision.list.item(i).text() for i in range(w.decision.list.count())] == \
            ["Use support chit Arty (Heavy artillery)"]
        w.act(Use("Arty"))
        assert "pairs the tank weapons" in w.decision.prompt.text()
        w.act(w.legal()[0])
        text = w.odds.report.toPlainText()
        assert "Last battle in 0304" in text and "Artillery (11.3): german 3 dice" in text
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-after.png"))
    finally:
        doc.close()


def test_the_combat_panel_shows_what_the_support_chits_do(qtbot, tmp_path, monkeypatch):
    """games/prokhorovka: the Soviets use hand-to-hand and a minefield; the
    panel's pools, damage step and odds show them before the dice."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609"})
        A.attach(g, s, "Wittmann", "LAH")
        A.attach(g, s, "T34-1", "52G")
        s.place("DR", b.parse("0810"))
        A.attach(g, s, "Hummel1", "DR")   # range 3: it may support the battle in 0609 (11.2(1)3)
        for c, pool in (("SMelee", "soviet-support"), ("Mines", "soviet-support"), ("GArty1", "german-support")):
            s.place(c, None, f"pool:{pool}")
        german_combat_at(w, s, "0609")
        w.roll()   # Declare the attack
        w.act(Done())   # every attack declared: the battle is fought (9.2(3)); the Soviets allocate first
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())   # all the equipment fights (11.2(1))
        assert "Soviet allocates support chits" in w.decision.prompt.text()
        w.act(Use("SMelee"))
        w.act(Use("Mines"))
        text = w.odds.report.toPlainText()
        assert "SMelee (soviet): normal-combat dice x2 for both sides" in text
        assert "Mines +2 (Soviet)" in text and "Wittmann: a shot by or at it may be rolled again once" in text
        p = w.state.pending[0]
        odds = battle_odds(w.runner.engine.dicepool.setup(w.state, p))
        assert odds.notes and "Normal combat (11.4)" in text
        items = [w.decision.list.item(i).text() for i in range(w.decision.list.count())]
        assert items == ["Use support chit GArty1 (Heavy artillery)", "Support with Hummel1 (Hummel) from DR in 0810"]
        assert "equipment in range" in w.decision.prompt.text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-chits.png"))


def test_in_hotseat_the_germans_do_not_see_the_soviet_chits_before_they_are_turned_up(qtbot, tmp_path, monkeypatch):
    """9.2(2)2: support chits are allocated face down; the Combat panel of the
    side at the screen shows its own chits only (runtime.observe)."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(ROOT / "games" / "prokhorovka")
    try:
        w = open_playtest(doc, "campaign", (), 1, {"german": "human", "soviet": "human"}, secrets=True)
        w.interactive = False
        qtbot.addWidget(w)
        w.resize(1600, 1000)
        w.show()
        qtbot.waitExposed(w)
        s = w.state.copy()
        b = w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609"})
        for c, pool in (("SMelee", "soviet-support"), ("Mines", "soviet-support"), ("GArty1", "german-support"),
                        ("GSmoke", "german-support")):
            s.place(c, None, f"pool:{pool}")
        s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {"decision": "combat"}, set(), []
        w.timeline._kept[w.timeline.end] = s
        w.viewer = "german"
        w._click_combat(b.parse("0609"))
        w.roll()   # Declare the attack
        w.act(Done())   # every attack declared: the battle is fought (9.2(3)); the Soviets allocate first
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())   # all the equipment fights (11.2(1))
        if w.handover.isVisible():
            w.handover.go.click()
        assert w.viewing_side() == "soviet"
        w.act(Use("SMelee"))
        assert "SMelee (soviet)" in w.odds.report.toPlainText()   # the Soviet player sees his own chit
        w.act(w.legal()[-1])   # done: the Germans allocate
        if w.handover.isVisible():
            w.handover.go.click()
        assert w.viewing_side() == "german"
        text = w.odds.report.toPlainText()
        assert "German attacks Soviet in 0609" in text and "SMelee" not in text and "x2" not in text
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-hidden-chits.png"))
    finally:
        doc.close()


def test_the_commander_names_its_target_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """11.2(3): once both sides have allocated, a commander's side says what it
    cancels; the Combat panel keeps showing the battle meanwhile."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609", "DR": "0810"})
        for aid, host in (("Tiger1", "LAH"), ("PakFront2", "52G"), ("Hummel1", "DR")):
            A.attach(g, s, aid, host)
        for c, pool in (("SArty1", "soviet-support"), ("GCmdr1", "german-support"), ("GArty1", "german-support")):
            s.place(c, None, f"pool:{pool}")
        german_combat_at(w, s, "0609")
        w.roll()
        w.act(Done())   # every attack declared: the battle is fought (9.2(3))
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())   # all the equipment fights (11.2(1))
        w.act(Use("SArty1"))
        w.act(Use("GCmdr1"))
        w.act(Use("Hummel1"))
        w.act(w.legal()[-1])   # the Germans are done: the commander names its target
        assert "German says what GCmdr1 cancels" in w.decision.prompt.text()
        assert [w.decision.list.item(i).text() for i in range(w.decision.list.count())] == \
            ["GCmdr1 (Commander) cancels SArty1", "GCmdr1 (Commander) cancels PakFront2"]
        text = w.odds.report.toPlainText()
        assert "German attacks Soviet in 0609" in text and "Hummel1 3" in text
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-commander.png"))


def test_a_sniper_played_at_once_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """签一览 狙击兵 ※: as the German commander names its target, the Soviet player may play a sniper at once
    from the support pool; the decisions list offers it, and 'Let it act'."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609"})
        A.attach(g, s, "Tiger1", "LAH")
        for c, pool in (("SArty1", "soviet-support"), ("SSniper1", "soviet-support"), ("GCmdr1", "german-support")):
            s.place(c, None, f"pool:{pool}")
        german_combat_at(w, s, "0609")
        w.roll()
        w.act(Done())   # every attack declared: the battle is fought (9.2(3))
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())
        w.act(Use("SArty1"))
        w.act(Done())   # the Soviets keep their sniper in the pool
        w.act(Use("GCmdr1"))
        if w.state.pending[0]["stage"] == "support":
            w.act(Done())
        w.act(Use("GCmdr1", "SArty1"))
        assert "GCmdr1 acts (SArty1); Soviet may play at once" in w.decision.prompt.text()
        assert [w.decision.list.item(i).text() for i in range(w.decision.list.count())] == \
            ["Play SSniper1 (Sniper) at once: it cancels GCmdr1 before it acts"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-sniper-at-once.png"))
        w.act(Use("SSniper1", "GCmdr1"))
        assert w.state.units["GCmdr1"].box == "pool:german-support-cup"


def test_the_engineer_picks_its_use_then_its_target_in_the_playtest(qtbot, tmp_path, monkeypatch):
    """签一览 工兵: the German player picks one of the engineer's two uses from the decisions list (the
    effects' choose), then the position it sends back, one of an adjacent stack seen face up."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        s = w.state.copy()
        g, b = w.game, w.board
        only_these_on_the_map(s, b, {"LAH": "0710", "52G": "0609", "51G": "0709"})
        for aid, host in (("Tiger1", "LAH"), ("SBunker1", "52G"), ("SMGNest1", "51G")):
            A.attach(g, s, aid, host)
        s.done.add("face-up:SMGNest1")
        s.place("GEng", None, "pool:german-support")
        german_combat_at(w, s, "0609")
        w.roll()
        w.act(Done())   # every attack declared: the battle is fought (9.2(3))
        while w.state.pending and w.state.pending[0].get("stage") == "equipment":
            w.act(Done())   # all the equipment fights (11.2(1))
        w.act(Use("GEng"))
        if w.state.pending[0]["stage"] == "support":
            w.act(Done())
        assert "German picks what GEng does" in w.decision.prompt.text()
        assert [w.decision.list.item(i).text() for i in range(w.decision.list.count())] == \
            ["GEng (Engineer): Remove one position of an adjacent stack (back to its cup)",
             "GEng (Engineer): Neutralise every enemy position in this battle"]
        assert "GEng (german): its side picks one of" in w.odds.report.toPlainText()
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-engineer-choose.png"))
        w.act(Use("GEng", "remove"))
        assert [w.decision.list.item(i).text() for i in range(w.decision.list.count())] == \
            ["GEng (Engineer) sends SMGNest1 (under 51G in 0709) back to soviet-equip-cup",
             "GEng (Engineer) sends SBunker1 (under 52G in 0609) back to soviet-equip-cup"]
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "dicepool-engineer-target.png"))
        w.act(Use("GEng", "SMGNest1"))
        assert w.state.units["SMGNest1"].box == "pool:soviet-equip-cup"


def test_a_real_battle_at_its_declaration_stage_and_its_duel_pairing(qtbot, tmp_path, monkeypatch):
    """games/prokhorovka as the greedy bots play it to a reserve attack: the
    battle hex and its attackers are outlined on the map, the Combat panel
    gives the report the room (no empty attackers list), each pairing says
    who hits with what chance, and an SP anti-tank gun that holds its fire
    (5.1(6)1) says so."""
    from runtime.bots import GreedyBot
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    with prokhorovka_hotseat(qtbot) as w:
        r, s, bot = w.runner, w.state.copy(), GreedyBot(1)
        SHOTS.mkdir(parents=True, exist_ok=True)
        for stage in ("support", "pairs"):
            while not (s.pending and s.pending[0].get("kind") == "dice-pool" and s.pending[0]["stage"] == stage
                       and len(r.legal_actions(s)) > 2):
                s = r.apply(s, bot.choose(r, s))
            w.timeline._kept[w.timeline.end] = s
            w.refresh()
            p = s.pending[0]
            ov = w.view.mp.overlay
            assert ov.target == w.board.parse(p["hex"]) and ov.attackers == set(p["attackers"])
            assert not w.odds.attackers.isVisible() and "attacks" in w.odds.report.toPlainText()
            qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
            assert w.grab().save(str(SHOTS / f"dicepool-real-{stage}.png"))
        items = [w.decision.list.item(i).text() for i in range(w.decision.list.count())]
        assert items and all("(tank duel: " in t and " hits " in t for t in items)
        silent = [x.id for x in r.engine.dicepool.setup(s, s.pending[0]).weapons if x.round < 0]
        assert all(any(f"{x} does not fire" in t for t in items) for x in silent)
        assert w.odds.units_label.isHidden()


def test_the_playtest_offers_each_soviet_reinforcement_its_entry_edge(qtbot, tmp_path, monkeypatch):
    """7.0(1) 【N/E】: on turn 7 the playtest highlights the north sources for
    a 5GA division and the east sources for a 5GTA corps, and says so."""
    from runtime.bots import GreedyBot
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(ROOT / "games" / "prokhorovka")
    w = open_playtest(doc, "campaign", (), 2, {"german": "human", "soviet": "human"})
    try:
        w.interactive = False
        qtbot.addWidget(w)
        w.resize(1600, 1000)
        w.show()
        qtbot.waitExposed(w)
        r, s, bot = w.runner, w.state, GreedyBot(1)
        while not (s.turn == 7 and s.step.get("decision") == "place" and s.active == "soviet"
                   and r.program[s.pc].phase.id == "soviet-formations"):
            s = r.apply(s, bot.choose(r, s))
        w.timeline._kept[w.timeline.end] = s
        w.refresh()
        hexes = {}
        for uid in ("95G", "5GMK"):
            w.sel_unit = uid
            w.refresh()
            hexes[uid] = {w.hid(h) for h in w.view.mp.overlay.legal}
        assert hexes["95G"] and hexes["95G"] <= {"0101", "0301", "1001", "1301"}
        assert hexes["5GMK"] and hexes["5GMK"] <= {"1402", "1405", "1408"}
        assert "95G, 97G, 9GAB, 42G in soviet-north" in w.decision.prompt.text() or \
            "in soviet-north" in w.decision.prompt.text()
        assert "in soviet-east" in w.decision.prompt.text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "prokhorovka-entry-edges.png"))
    finally:
        w.close()


def test_the_playtest_offers_the_su152_as_an_anti_tank_gun(qtbot, tmp_path, monkeypatch):
    """19.3 (variant su152): the Soviet equipment declaration lists the SU-152's second role."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(ROOT / "games" / "prokhorovka")
    w = open_playtest(doc, "campaign", ("su152",), 1, {"german": "human", "soviet": "human"})
    try:
        w.interactive = False
        qtbot.addWidget(w)
        w.resize(1600, 1000)
        w.show()
        qtbot.waitExposed(w)
        s = w.state.copy()
        g, b, eng = w.game, w.board, w.runner.engine
        for uid in list(s.units):
            if s.units[uid].hex is not None:
                s.place(uid, None, "removed")
        s.attached = {}
        s.place("LAH", b.parse("0504"))
        s.place("52G", b.parse("0505"))
        A.attach(g, s, "Tiger1", "LAH")
        A.attach(g, s, "SU152", "52G")
        s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
        s = eng.apply(s, "attack 0505 with LAH")
        s = eng.apply(s, "done")
        w.timeline._kept[w.timeline.end] = s
        w.refresh()
        labels = [w.decision.list.item(i).text() for i in range(w.decision.list.count())]
        assert "SU152 (SU-152) fights as an anti-tank gun (19.3) (under 52G; sp-at 5-1)" in labels
        assert "or choose how it fights" in w.decision.prompt.text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "prokhorovka-su152-role.png"))
    finally:
        w.close()


def test_the_combat_panel_counts_the_breakdowns_to_come(qtbot, tmp_path, monkeypatch):
    """19.5 (variant breakdown): the odds before the battle weigh the German SP anti-tank gun's breakdown."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(ROOT / "games" / "prokhorovka")
    w = open_playtest(doc, "campaign", ("breakdown",), 1, {"german": "human", "soviet": "human"})
    try:
        w.interactive = False
        qtbot.addWidget(w)
        w.resize(1600, 1000)
        w.show()
        qtbot.waitExposed(w)
        s = w.state.copy()
        g, b = w.game, w.board
        for uid in list(s.units):
            if s.units[uid].hex is not None:
                s.place(uid, None, "removed")
        s.attached = {}
        s.place("LAH", b.parse("0504"))
        s.place("52G", b.parse("0505"))
        A.attach(g, s, "StuG1", "LAH")
        A.attach(g, s, "PakFront2", "52G")
        german_combat_at(w, s, "0505")
        odds = w.runner.engine.dicepool.preview_odds(s, ["LAH"], b.parse("0505"))
        text = w.odds.report.toPlainText()
        assert "breakdown (19.5): StuG1 leaves the game 16.7% as it joins the battle (counted)" in text
        assert f"German wins {pct(odds.win['german'])}" in text
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "prokhorovka-breakdown-odds.png"))
    finally:
        w.close()


def test_the_playtest_offers_a_commander_the_molotovs_die(qtbot, tmp_path, monkeypatch):
    """签一览 指挥官 ① (any roll): the Molotov's die waits for the kept German commander."""
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    doc = GameDocument.open(ROOT / "games" / "prokhorovka")
    w = open_playtest(doc, "campaign", (), 1, {"german": "human", "soviet": "human"})
    try:
        w.interactive = False
        qtbot.addWidget(w)
        w.resize(1600, 1000)
        w.show()
        qtbot.waitExposed(w)
        s = w.state.copy()
        g, b, eng = w.game, w.board, w.runner.engine
        for uid in list(s.units):
            if s.units[uid].hex is not None:
                s.place(uid, None, "removed")
        s.attached = {}
        s.place("LAH", b.parse("0504"))
        s.place("52G", b.parse("0505"))
        A.attach(g, s, "Tiger1", "LAH")
        s.place("Molotov", None, "pool:soviet-support")
        s.place("GCmdr1", None, "pool:german-support")
        s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
        for a in ("attack 0505 with LAH", "done", "done", "use Molotov", "use GCmdr1", "done"):
            s = eng.apply(s, a)
        assert s.pending[0]["stage"] == "strike-reroll"
        w.timeline._kept[w.timeline.end] = s
        w.refresh()
        _, _, _, roll, hit = eng.dicepool.struck(s.pending[0])
        labels = [w.decision.list.item(i).text() for i in range(w.decision.list.count())]
        assert f"GCmdr1 (Commander) rolls again the die of Molotov at Tiger1 (it showed {roll})" in labels
        assert f"Molotov at Tiger1 rolled {roll} ({'destroyed' if hit else 'missed'})" in w.decision.prompt.text()
        from editor.playtext import done_label
        assert done_label(s) == "Keep the die"
        assert "German attacks Soviet in 0505" in w.odds.report.toPlainText()  # the battle stays in the panel
        SHOTS.mkdir(parents=True, exist_ok=True)
        qtbot.wait(20)  # the layout settles (hidden widgets give up their room) before the picture
        assert w.grab().save(str(SHOTS / "prokhorovka-molotov-reroll.png"))
    finally:
        w.close()


def test_the_combat_panel_shows_a_hit_number_with_its_less_than_sign(qtbot):
    """A tank's hit number reads '◆ (1, or die + 2 <= 4)': the Combat panel's
    HTML escapes it (an unescaped '<' began a tag, and the rest of the line
    was lost)."""
    from PySide6.QtGui import QTextDocument

    from editor.combatpanel import last_dice_pool_html
    from runtime.runner import Runner
    from dsl.compiler import compile_game
    from helpers import GAMES

    runner = Runner(compile_game(GAMES / "prokhorovka"))
    s = runner.new_game(1)
    step = "Attacker's round: Tiger1 (german) fires at PakFront1 (◆ (1, or die + 1 <= 6)): 6, missed"
    s.log = [{"action": "attack 0609 with LAH"}, {"battle": "0609", "step": step},
             {"battle": "0609", "winner": "german", "losses": {}}]
    doc = QTextDocument()
    doc.setHtml(last_dice_pool_html(runner, s))
    assert step in doc.toPlainText()
