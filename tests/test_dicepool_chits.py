"""The chit catalogue in dice-pool battles (Prokhorovka 签一览): what a
support chit used in a battle does, declared in the game's
``dice-pool { on-use ... }`` blocks with the effects vocabulary's battle
verbs, and the Wittmann reroll (``duel { reroll ... }``); the exact odds
with them against a brute-force enumeration of every die face."""
from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from runtime.combat.dicepool.battle import Pool, Weapon, resolve
from runtime.combat.dicepool.hits import HitTest, firing_round
from runtime.actions import Use
from runtime.combat.dicepool.odds import battle_odds
from test_dicepool import _check_against_enumeration, enumerate_battle, scripted, setup_of


def test_a_reroll_takes_back_a_miss_of_its_own_and_a_hit_on_it():
    w = [Weapon("Wittmann", "A", 6, 2, 2, 1), Weapon("KV1", "D", 3, 2, 2, 2)]
    s = replace(setup_of(weapons=w, pairs=[("Wittmann", "KV1")]), rerolls=frozenset({"Wittmann"}))
    # Wittmann at KV1 (guard 2: hits on 4 or less): 6 misses, rolled again: 3 hits; KV1 never fires
    o = resolve(s, scripted([6, 3]))
    assert o.destroyed == ["KV1"]
    assert any("6 misses; Wittmann's owner rolls it again" in x for x in o.lines)
    # Wittmann 5 misses, 6 misses again (once only); KV1 at Wittmann: 1 hits, rolled again: 4 misses
    o = resolve(s, scripted([5, 6, 1, 4]))
    assert o.destroyed == []
    # 签一览 Wittmann: its shot hits with 1 - (2/6)^2, a shot at it with (1/6)^2 (KV1: 1 only)
    assert s.shot_probability(firing_round(6, 2), "Wittmann", "KV1") == 1 - Fraction(2, 6) ** 2
    assert s.shot_probability(firing_round(3, 2), "KV1", "Wittmann") == Fraction(1, 36)
    odds = battle_odds(s)
    assert odds.survives["KV1"] == Fraction(4, 36)
    _check_against_enumeration(s)


def test_extra_damage_and_both_lose():
    pools = [Pool("normal", "Normal combat", "A", (("LAH", 2),), HitTest("number", 3)),
             Pool("normal", "Normal combat", "D", (("52G", 1),), HitTest("number", 2))]
    s = replace(setup_of(pools), extra=(("D", "Mines", 2),), both_lose=True)
    o = resolve(s, scripted([1, 2, 6]))     # the attacker 2 damage, the defender 0 + 2 (the minefield)
    assert o.total("A") == 2 and o.total("D") == 2 and o.winner("A", "D") == ""
    o = resolve(s, scripted([1, 2, 1]))     # 2 against 1 + 2: the defender wins, and loses 2 all the same
    assert o.winner("A", "D") == "D" and o.losses("A", "D") == {"A": 1, "D": 2}
    _check_against_enumeration(s)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 3)), min_size=1, max_size=2),
       st.lists(st.tuples(st.integers(1, 6), st.integers(0, 3)), min_size=1, max_size=1),
       st.sampled_from([(), ("a0",), ("d0",), ("a1",)]), st.integers(-2, 2), st.integers(-2, 2))
def test_exact_odds_with_rerolls_and_extra_damage_match_enumeration(aw, dw, rerolls, ea, ed):
    ws = [Weapon(f"a{i}", "A", f, a, a, 1) for i, (f, a) in enumerate(aw)]
    ws += [Weapon(f"d{i}", "D", f, a, a, 0 if i == 0 else 2) for i, (f, a) in enumerate(dw)]
    pairs = [("a0", "d0")]
    s = replace(setup_of(weapons=ws, pairs=pairs, support=(("A", HitTest("round")), ("D", HitTest("number", 2))),
                         target_level=1),
                rerolls=frozenset(rerolls), extra=(("A", "x", ea), ("D", "y", ed)))
    _check_against_enumeration(s)
    odds = battle_odds(s)
    runs = enumerate_battle(s)
    for wid in odds.survives:
        assert odds.survives[wid] == sum((p for p, o in runs if wid not in o.destroyed), Fraction(0))


# ---------------------------------------------------------------- the catalogue in games/prokhorovka

def declared(eng, s):
    """Every side declares all its equipment (11.2(1): 'done' in the equipment stage)."""
    while s.pending and s.pending[0].get("stage") == "equipment":
        s = eng.apply(s, "done")
    return s


def _battle(support=(), defend=("52G",), attack=(("167ID", "0610"), ("LAH", "0710"))):
    from dsl.compiler import compile_game
    from helpers import ROOT
    from runtime import attachments as A
    from runtime.runner import Runner
    game = compile_game(ROOT / "games" / "prokhorovka")
    runner = Runner(game)
    s = runner.new_game(1)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    b = runner.board
    target = b.parse("0609")
    for item in defend:
        uid, *carried = item.split("+")
        s.place(uid, target)
        for c in carried:
            A.attach(game, s, c, uid)
    attackers = []
    for item, h in attack:
        uid, *carried = item.split("+")
        s.place(uid, b.parse(h))
        attackers.append(uid)
        for c in carried:
            A.attach(game, s, c, uid)
    chits: dict[str, list[str]] = {}
    for c in support:
        chits.setdefault(game.counters[c].side, []).append(c)
    return runner, s, runner.engine.dicepool.preview(s, attackers, target, chits)


def _dice(st, step, side):
    return next(p for p in st.pools if p.step == step and p.side == side).dice


def test_hand_to_hand_doubles_both_sides_normal_fire():
    _, _, base = _battle()
    _, _, st = _battle(["SMelee"])
    for side in ("german", "soviet"):
        assert _dice(st, "normal-combat", side) == 2 * _dice(base, "normal-combat", side)
        assert _dice(st, "bombardment", side) == _dice(base, "bombardment", side)
    assert "SMelee (soviet): normal-combat dice x2 for both sides" in st.notes


def test_smoke_cancels_the_enemys_artillery_only():
    _, _, st = _battle(["GArty1", "SArty1", "GSmoke"])
    assert _dice(st, "bombardment", "soviet") == 0 and _dice(st, "bombardment", "german") == 3
    assert battle_odds(st).damage["soviet"] == battle_odds(_battle(["GArty1"])[2]).damage["soviet"]


def test_a_minefield_adds_2_in_defence_only():
    _, _, st = _battle(["Mines"])
    assert st.extra == (("soviet", "Mines", 2),)
    base = battle_odds(_battle()[2])
    odds = battle_odds(st)
    assert odds.totals["soviet"] == {k + 2: p for k, p in base.totals["soviet"].items()}
    assert odds.win["soviet"] > base.win["soviet"]
    # the Soviets attacking with it: nothing
    _, _, st = _battle(["Mines"], defend=("LAH",), attack=(("52G", "0610"),))
    assert st.extra == ()


def test_an_engineer_neutralises_every_enemy_position():
    _, _, st = _battle(["SArty1"], defend=("52G+SBunker1",))
    assert st.level == 4   # 0609, an entrenched hill: a bunker 3 + the entrenchment 1 (17.2 example)
    assert next(p for p in st.pools if p.step == "bombardment" and p.side == "german").test.value == 1
    runner, s, st = _battle(["GArty1", "GEng", "Mines"], defend=("52G+SBunker1",))
    assert st.level == 4 and st.extra   # its side has not picked its use yet: nothing
    assert "GEng (german): its side picks one of: Remove one position of an adjacent stack (back to its cup); " \
        "Neutralise every enemy position in this battle" in st.notes
    s.mark("GEng", "chose:neutralise")   # (the engine marks the chit with its side's pick)
    st = runner.engine.dicepool.preview(s, ["167ID", "LAH"], runner.board.parse("0609"),
                                        {"german": ["GArty1", "GEng"], "soviet": ["Mines"]})
    assert st.level == 2 and st.extra == ()   # the hill's 1 + 1: the bunker and the minefield are gone
    art = next(p for p in st.pools if p.step == "bombardment" and p.side == "german")
    assert art.test.value == 2   # the hill's artillery number, no longer the bunker's 1
    assert "GEng (german): SBunker1, Mines neutralised" in st.notes


def test_close_combat_makes_the_winner_lose_too_in_the_engine():
    runner, s, st = _battle(["GClose"])
    assert st.both_lose
    eng = runner.engine
    s.place("GClose", None, "pool:german-support")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    s = declared(eng, eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done"))
    assert "use GClose" in [str(a) for a in eng.legal_actions(s)]
    s = eng.apply(s, "use GClose")
    s = eng.apply(s, "done") if s.pending and s.pending[0].get("stage") == "support" else s
    r = next(e for e in s.log if e.get("battle") == "0609" and "losses" in e)
    assert r["losses"] == {"german": r["damage"]["soviet"], "soviet": r["damage"]["german"]}


def test_the_bot_uses_a_chit_only_where_it_raises_its_chance():
    runner, s, _ = _battle()
    eng = runner.engine
    for c in ("GSmoke", "GArty1"):
        s.place(c, None, "pool:german-support")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    s = declared(eng, eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done"))
    p = s.pending[0]
    acts = eng.legal_actions(s)
    assert {str(a) for a in acts} == {"use GSmoke", "use GArty1", "done"}
    assert str(eng.dicepool.default(s, p, acts)) == "use GArty1"   # smoke: the Soviets have no artillery here
    p["chits"]["german"] = ["GArty1"]
    assert str(eng.dicepool.default(s, p, [a for a in acts if str(a) != "use GArty1"])) == "done"


def test_check_refuses_battle_verbs_out_of_place(tmp_path, capfd):
    import shutil
    from editor.cli import main
    from helpers import ROOT
    folder = tmp_path / "prokhorovka"
    shutil.copytree(ROOT / "games" / "prokhorovka", folder)
    rules = (folder / "game.hxr").read_text(encoding="utf-8")
    rules = rules.replace("on-use smoke { cancel-step bombardment;", "on-use smoke { cancel-step bombardmnt;")
    rules = rules.replace("on-use close-combat { both-lose }", "on-use close-combat { award german 1 }")
    rules = rules.replace("removed-with fire", "removed-with fyre")
    rules = rules.replace("        move 8 support from german-support-cup to german-support random\n",
                          "        move 8 support from german-support-cup to german-support random\n        both-lose\n")
    (folder / "game.hxr").write_text(rules, encoding="utf-8")
    assert main(["check", str(folder)]) != 0
    err = capfd.readouterr().err
    lines = rules.splitlines()
    at = {k: next(i + 1 for i, line in enumerate(lines) if k in line)
          for k in ("bombardmnt", "award german 1", "        both-lose", "fyre")}
    assert f"game.hxr:{at['fyre']}:" in err and "no unit class prints a factor 'fyre'" in err
    assert f"game.hxr:{at['bombardmnt']}:" in err and "the dice-pool battle has no step 'bombardmnt'" in err
    assert f"game.hxr:{at['award german 1']}:" in err and "'award' is not a battle effect" in err
    assert f"game.hxr:{at['        both-lose']}:" in err and \
        "'both-lose' changes a dice-pool battle: it stands only in dice-pool's on-use" in err


def _fight(support, defend=("52G",)):
    runner, s, _ = _battle(defend=defend)
    for c in support:
        side = runner.game.counters[c].side
        s.place(c, None, f"pool:{side}-support")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    return runner, declared(runner.engine, runner.engine.apply(runner.engine.apply(s, "attack 0609 with 167ID,LAH"), "done"))


def test_a_sniper_cancels_a_commander_before_it_acts():
    """11.2(3)1-3: the Soviets name what their sniper cancels first; a commander it names does nothing."""
    runner, s = _fight(["SSniper1", "GCmdr1", "GArty1"])
    eng = runner.engine
    s = eng.apply(s, "use SSniper1")   # the only Soviet chit: the Germans allocate next
    s = eng.apply(s, "use GCmdr1")
    s = eng.apply(s, "use GArty1")   # the last German chit: the battle moves on
    p = s.pending[0]
    assert p["stage"] == "cancel" and p["side"] == "soviet"
    assert [str(a) for a in eng.legal_actions(s)] == ["use SSniper1 GCmdr1", "done"]  # heavy guns are no tactical chit
    assert "soviet says what SSniper1 cancels in 0609" in eng.explain(s, "use SSniper1 GArty1")
    s = eng.apply(s, "use SSniper1 GCmdr1")
    assert s.units["GCmdr1"].box == "pool:german-support-cup"
    assert any(e.get("step") == "SSniper1 (soviet) cancels GCmdr1: back to german-support-cup" for e in s.log)
    assert not s.pending or s.pending[0].get("stage") != "cancel"   # the commander was cancelled: no decision


def test_a_commander_cancels_an_equipment_chit_or_a_support_chit():
    runner, s = _fight(["SArty1", "GCmdr1"], defend=("52G+PakFront2",))
    eng = runner.engine
    s = eng.apply(s, "use SArty1")
    s = eng.apply(s, "use GCmdr1")
    assert s.pending[0]["stage"] == "cancel"
    acts = eng.legal_actions(s)
    assert [str(a) for a in acts] == ["use GCmdr1 SArty1", "use GCmdr1 PakFront2", "done"]
    p = s.pending[0]
    assert str(eng.dicepool.default(s, p, acts)) in ("use GCmdr1 SArty1", "use GCmdr1 PakFront2")
    t = s.copy()
    t = eng.apply(t, "use GCmdr1 SArty1")
    assert t.units["SArty1"].box == "pool:soviet-support-cup"
    s = eng.apply(s, "use GCmdr1 PakFront2")   # an anti-tank gun with fire 4: out of the game
    assert s.units["PakFront2"].box == "removed"
    assert any("GCmdr1 (german) cancels PakFront2 for this battle and removes it from the game (fire 4)"
               == e.get("step") for e in s.log)
    assert not any("PakFront2" in e.get("step", "") and "fires" in e.get("step", "") for e in s.log)


def _near(runner, s, of: str, away: int) -> str:
    """An empty hex ``away`` hexes from ``of`` and farther from 0609's attackers (0610, 0710)."""
    from runtime.hexes import hex_distance
    b = runner.board
    taken = {u.hex for u in s.units.values() if u.hex is not None}
    return next(b.hex_id(h) for h in sorted(b.adj, key=b.hex_id) if h not in taken
                and hex_distance(h, b.parse(of)) == away
                and min(hex_distance(h, b.parse(x)) for x in ("0610", "0710")) == away)


def _engineer_battle(support=("GEng",)):
    """0609 (52G with a bunker) attacked by 167ID and LAH; 51G with an MG nest face up and one face down
    next to 0610, 90G with a face-up MG nest two hexes from the attackers."""
    from runtime import attachments as A
    runner, s, _ = _battle(defend=("52G+SBunker1",))
    g, b = runner.game, runner.board
    s.place("51G", b.parse(_near(runner, s, "0610", 1)))
    s.place("90G", b.parse(_near(runner, s, "0710", 2)))
    for host, c in (("51G", "SMGNest1"), ("51G", "SMGNest2"), ("90G", "SMGNest3")):
        A.attach(g, s, c, host)
    s.done |= {"face-up:SMGNest1", "face-up:SMGNest3"}   # SMGNest2 stays face down: the Germans cannot name it
    for c in support:
        s.place(c, None, f"pool:{g.counters[c].side}-support")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    eng = runner.engine
    s = declared(eng, eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done"))
    for c in support:
        if s.pending[0]["stage"] == "support":
            s = eng.apply(s, f"use {c}")
    while s.pending[0]["stage"] == "support":
        s = eng.apply(s, "done")
    return runner, s


def test_an_engineer_is_one_choice_of_two_its_side_makes():
    """签一览 工兵: remove one position of an adjacent stack (back to its cup), or neutralise every enemy
    position in the battle; the choose in the game's on-use block asks the German player which."""
    runner, s = _engineer_battle()
    eng = runner.engine
    p = s.pending[0]
    assert p["stage"] == "choose" and p["side"] == "german"
    assert [str(a) for a in eng.legal_actions(s)] == ["use GEng remove", "use GEng neutralise"]
    assert "german picks what GEng does in 0609: 'use GEng remove' (Remove one position" in \
        eng.explain(s, "use GEng both")
    # the first use: the bunker in the battle (face up: declared to fight, 11.2(1)4) or the face-up MG nest of
    # the stack next to 0610; not the face-down one, nor the one two hexes away
    r = eng.apply(s, "use GEng remove")
    assert r.pending[0]["stage"] == "cancel"
    assert [str(a) for a in eng.legal_actions(r)] == ["use GEng SMGNest1", "use GEng SBunker1", "done"]
    r = eng.apply(r, "use GEng SMGNest1")
    assert r.units["SMGNest1"].box == "pool:soviet-equip-cup" and "SMGNest1" not in r.attached.get("51G", ())
    assert "SMGNest2" in r.attached["51G"] and "SMGNest3" in r.attached["90G"]
    assert any(e.get("step", "").startswith("GEng (german) sends SMGNest1 (51G in ") and
               e["step"].endswith("back to soviet-equip-cup") for e in r.log)
    assert _level(r) == 4   # the bunker still stands in the battle (the battle is rolled at once: no more choices)
    # the bunker itself: gone from the battle and back to its cup
    r = eng.apply(eng.apply(s, "use GEng remove"), "use GEng SBunker1")
    assert r.units["SBunker1"].box == "pool:soviet-equip-cup"
    assert _level(r) == 2   # the hill's 1 + the entrenchment's 1 (the 17.2 example: 4 with the bunker)
    # the second use: every enemy position in this battle, none sent back
    t = s.copy()   # (the option picked, before the dice)
    eng.dicepool.answer(t, t.pending[0], Use("GEng", "neutralise"))
    assert "chose:neutralise" in t.units["GEng"].markers
    st = eng.dicepool.setup(t, t.pending[0])
    assert "SBunker1" not in st.defending and st.level == 2
    n = eng.apply(s, "use GEng neutralise")
    assert n.units["SBunker1"].box != "pool:soviet-equip-cup" and "SBunker1" in n.attached["52G"]
    assert any(e.get("step") == "GEng (german): Neutralise every enemy position in this battle" for e in n.log)
    assert any(e.get("step") == "GEng (german): SBunker1 neutralised" for e in n.log) or _level(n) == 2
    assert _level(n) == 2
    assert "chose:neutralise" not in n.units["GEng"].markers   # back in its cup, to be picked again next time
    assert n.units["GEng"].box == "pool:german-support-cup"


def _level(s) -> int:
    """The defence level the Soviets' damage counted in 0609's battle (its log)."""
    line = next(e["step"] for e in s.log if e.get("battle") == "0609" and e.get("step", "").startswith("damage: soviet"))
    return int(line.split(" defence level")[0].split("+ ")[-1])


def test_the_bot_picks_the_engineers_use_that_helps_most():
    runner, s = _engineer_battle()
    eng = runner.engine
    # the bunker alone in the battle: either use takes it away; the first (remove: it goes for good) then
    assert str(eng.dicepool.default(s, s.pending[0], eng.legal_actions(s))) == "use GEng remove"
    r = eng.apply(s, "use GEng remove")
    assert str(eng.dicepool.default(r, r.pending[0], eng.legal_actions(r))) == "use GEng SBunker1"
    # a Soviet minefield too: neutralising every position takes both
    runner, s = _engineer_battle(("Mines", "GEng"))
    assert s.pending[0]["chits"] == {"soviet": ["Mines"], "german": ["GEng"]}
    assert str(eng.dicepool.default(s, s.pending[0], eng.legal_actions(s))) == "use GEng neutralise"


def test_check_locates_a_battle_choose_out_of_place(tmp_path, capfd):
    import shutil
    from editor.cli import main
    from helpers import ROOT
    folder = tmp_path / "prokhorovka"
    shutil.copytree(ROOT / "games" / "prokhorovka", folder)
    rules = (folder / "game.hxr").read_text(encoding="utf-8")
    rules = rules.replace("        send-back position within 1 ", "        send-back position within many ")
    rules = rules.replace("        neutralise position    ",
                          "        neutralise position; reroll-die; choose { option a { both-lose }; option b { both-lose } }")
    rules = rules.replace("on-use close-combat { both-lose }",
                          "on-use close-combat { choose { option only { both-lose } } }")
    (folder / "game.hxr").write_text(rules, encoding="utf-8")
    assert main(["check", str(folder)]) != 0
    err = capfd.readouterr().err
    lines = rules.splitlines()
    at = {k: next(i + 1 for i, line in enumerate(lines) if k in line)
          for k in ("within many", "reroll-die; choose", "option only")}
    assert f"game.hxr:{at['within many']}:" in err and "hexes from the side's stacks" in err
    assert f"game.hxr:{at['reroll-die; choose']}:" in err and "'reroll-die' cannot stand in a choose's option" in err
    assert "a choose's option cannot hold another choose" in err
    assert f"game.hxr:{at['option only']}:" in err and "choose needs at least two options" in err


def test_support_chits_are_allocated_face_down_and_turned_up_together():
    """9.2(2)2, 11.2(2): the Germans allocate without knowing which chits the Soviets put in."""
    from runtime.observe import observe, view_key
    runner, s = _fight(["SSniper1", "SArty1", "GArty1", "GSmoke"])
    eng, g = runner.engine, runner.game
    a = eng.apply(eng.apply(s, "use SSniper1"), "done")
    b = eng.apply(eng.apply(s, "use SArty1"), "done")
    va, vb = observe(g, a, "german"), observe(g, b, "german")
    assert va.pending[0]["chits"] == {"soviet": ["?"]} and a.pending[0]["chits"] == {"soviet": ["SSniper1"]}
    assert observe(g, a, "soviet").pending[0]["chits"] == {"soviet": ["SSniper1"]}
    assert view_key(va) == view_key(vb)   # the Germans see the two states alike ...
    assert "use ?" in [e.get("action") for e in va.log] and not any("SSniper1" in str(e) for e in va.log)
    da = eng.dicepool.default(va, va.pending[0], eng.legal_actions(va))
    assert da == eng.dicepool.default(vb, vb.pending[0], eng.legal_actions(vb))   # ... and decide alike
    a = eng.apply(a, "use GArty1")
    a = eng.apply(a, "done") if a.pending and a.pending[0].get("stage") == "support" else a
    seen = observe(g, a, "german").log
    assert any(e.get("revealed") == {"soviet": ["SSniper1"], "german": ["GArty1"]} for e in seen)


def test_ranged_equipment_supports_a_nearby_battle_once_a_combat_phase():
    """11.2(1)3: equipment with a range, carried by another stack whose hex is
    within it of the battle, may support it (an anti-tank gun in the duel,
    self-propelled artillery with its dice), once a combat phase; its armour counts
    in the damage step only where its own stack fights."""
    from runtime import attachments as A
    from runtime.hexes import hex_distance
    runner, s, _ = _battle()
    g, b, eng = runner.game, runner.board, runner.engine
    for uid, h, carried in (("DR", "0810", ("Hummel1", "Pak1")), ("31TK", "0508", ("PakFront1",)),
                            ("6TK", "0203", ("PakFront3",))):
        s.place(uid, b.parse(h))
        for c in carried:
            A.attach(g, s, c, uid)
    target = b.parse("0609")
    assert hex_distance(b.parse("0810"), target) <= 3 and hex_distance(b.parse("0508"), target) <= 2
    assert hex_distance(b.parse("0203"), target) > 2   # too far
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    s = declared(eng, eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done"))
    assert [str(a) for a in eng.legal_actions(s)] == ["use PakFront1", "done"]   # the Soviets: no chit, one gun
    s = eng.apply(s, "use PakFront1")
    # the Germans: the Hummel, not the Pak (an attacker's anti-tank gun takes no part, 11.5(1)1)
    assert [str(a) for a in eng.legal_actions(s)] == ["use Hummel1", "done"]
    s = eng.apply(s, "use Hummel1")
    log = [e.get("step", "") for e in s.log]
    assert "PakFront1 (soviet) supports the battle from 0508" in log and \
        "Hummel1 (german) supports the battle from 0810" in log
    assert any(x.startswith("Artillery (11.3): german 3 dice") for x in log)
    assert any("PakFront1" in x and ("fires" in x or "tank support" in x) for x in log)   # it fought
    from runtime.combat.dicepool.setup import ranged_key
    assert ranged_key(s, "Hummel1") in s.done
    # the next battle this phase: the Hummel has supported one already
    p = {"hex": "0609", "attackers": ["167ID"], "attacker": "german", "defender": "soviet", "side": "german"}
    assert "Hummel1" not in eng.dicepool.ranged_open(s, p)
    s.pc += 1   # the next combat phase: it may again
    assert "Hummel1" in eng.dicepool.ranged_open(s, p)


def test_equipment_with_a_range_that_fought_in_its_own_battle_supports_no_other_this_phase():
    runner, s, _ = _battle(attack=(("167ID", "0610"), ("LAH+Hummel1", "0710")))
    eng, b = runner.engine, runner.board
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    s = declared(eng, eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done"))   # no chit either side: the battle is fought at once
    assert any(x.get("step", "").startswith("Artillery (11.3): german 3 dice") for x in s.log)  # the Hummel fired
    while s.pending:   # losses, retreats, the advance: the first choice each time
        s = eng.apply(s, eng.legal_actions(s)[0])
    assert s.units["LAH"].hex is not None and A_under(s, "LAH") == ["Hummel1"]   # this seed: both came through
    here = s.units["LAH"].hex
    free = next(n for n, _ in sorted(b.adj[here]) if not s.units_at(n))
    s.place("31TK", free)
    st = eng.dicepool.preview(s, ["LAH"], free)   # LAH's next battle this phase: the Hummel does not fire again
    assert all("Hummel1" not in dict(pool.items) for pool in st.pools)
    s.pc += 1
    assert any("Hummel1" in dict(pool.items) for pool in eng.dicepool.preview(s, ["LAH"], free).pools)


def A_under(s, uid):
    from runtime import attachments as A
    return list(A.under(s, uid))


def test_a_ranged_weapon_counts_in_the_duel_not_in_the_damage_step():
    from runtime import attachments as A
    runner, s, _ = _battle()
    g, b = runner.game, runner.board
    s.place("31TK", b.parse("0508"))
    A.attach(g, s, "PakFront1", "31TK")
    st = runner.engine.dicepool.preview(s, ["167ID", "LAH"], b.parse("0609"), ranged={"soviet": ["PakFront1"]})
    w = st.weapon("PakFront1")
    assert (w.armour, w.guard, w.round) == (0, 1, 0)   # guarded by its armour 1; the anti-tank round
    odds = battle_odds(st)   # no armour bonus for the Soviets: only the defence level is added
    assert odds.totals["soviet"] == {k + st.level: p for k, p in odds.damage["soviet"].items()}


def test_a_molotov_cocktail_strikes_a_random_tank_before_the_duel():
    """签一览 Molotov: before the tank battle, a participating tank or SP anti-tank
    gun drawn at random; 2 or less destroys it, and the chit leaves the game."""
    outcomes = set()
    for seed in range(12):
        runner, s, _ = _battle(attack=(("167ID", "0610"), ("LAH+Tiger1+Panther1", "0710")))
        eng = runner.engine
        s.rng_state = random.Random(seed).getstate()   # a different draw and die each time
        s.place("Molotov", None, "pool:soviet-support")
        s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
        s = declared(eng, eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done"))
        p = s.pending[0]
        # the Soviets' chance with it: each tank destroyed with 1/3 x 1/2, worked out exactly
        with_it = eng.dicepool.chance(s, p, {"soviet": ["Molotov"]})
        base = eng.dicepool.chance(s, p, {})
        one = [eng.dicepool.chance(s, p, {}, (t,)) for t in ("Panther1", "Tiger1")]
        assert with_it == Fraction(2, 3) * base + Fraction(1, 6) * sum(one) and with_it > base
        s = eng.apply(s, "use Molotov")   # its only chit; no German chit: the battle goes on
        line = next(e["step"] for e in s.log if e.get("step", "").startswith("Molotov (soviet) at "))
        target = line.split(" at ")[1].split(":")[0]
        assert target in ("Tiger1", "Panther1")
        if "destroyed" in line:
            assert s.units[target].box == "pool:german-tank-cup" and s.units["Molotov"].box == "removed"
            assert not any(target in e.get("step", "") and "fires" in e.get("step", "") for e in s.log)
            outcomes.add("hit")
        else:
            assert s.units["Molotov"].box == "pool:soviet-support-cup"
            outcomes.add("miss")
    assert outcomes == {"hit", "miss"}


def test_hexforge_battle_shows_ranged_support_and_the_chits(capsys):
    from editor.cli import main
    from helpers import ROOT
    game = str(ROOT / "games" / "prokhorovka")
    assert main(["battle", game, "--hex", "0609", "--attack", "167ID@0610,LAH+Wittmann@0710", "--defend", "52G",
                 "--near", "DR+Hummel1@0810,31TK+PakFront1@0508", "--support", "GArty1,SMelee"]) == 0
    out = capsys.readouterr().out
    assert "Artillery (11.3): german 6 dice (GArty1 3, Hummel1 3), hit on 2 or less" in out
    assert "duel: Wittmann against PakFront1" in out and "PakFront1 (soviet) supports from 0508 (ranged)" in out
    assert "SMelee (soviet): normal-combat dice x2 for both sides" in out
    assert "Wittmann: a shot by or at it may be rolled again once" in out
    assert main(["battle", game, "--hex", "0609", "--attack", "LAH@0710", "--defend", "52G",
                 "--near", "6TK+PakFront3@0203"]) == 1
    assert "PakFront3's range 2 does not reach 0609 (8 hexes from 0203)" in capsys.readouterr().err


def test_in_the_reserve_attack_the_attackers_sp_anti_tank_guns_take_part_but_do_not_fire():
    """5.1(6)1 and the SP anti-tank gun's entry (签一览): in the reserve attack
    phase the attacker's tanks fire, its SP anti-tank guns take part (they may
    be paired and shot at, their armour counts) but do not fire; in the
    normal attack they fire (5.1(4)1)."""
    runner, s, _ = _battle(defend=("52G+T34-1+T34-2",), attack=(("167ID", "0610"), ("LAH+StuG1+Tiger1", "0710")))
    b, eng = runner.board, runner.engine
    phases = {st.phase.id: st.phase for st in runner.program}
    assert phases["german-reserve-attack"].params["hold-fire"] == ("sp-at",)
    assert "hold-fire" not in phases["german-normal-attack"].params
    target = b.parse("0609")
    s.step = {"decision": "combat", "only": ["reserve"], "hold-fire": ["sp-at"]}
    st = eng.dicepool.preview(s, ["167ID", "LAH"], target)
    stug, tiger = st.weapon("StuG1"), st.weapon("Tiger1")
    assert stug.round == -1 and tiger.round >= 0
    assert "StuG1" in {a for a, _ in st.pairs} or "StuG1" in {w.id for w in st.unpaired()}  # it takes part
    assert "StuG1" not in {w.id for w in st.supporting()}  # no tank support either
    odds = battle_odds(st)
    assert odds.survives.get("StuG1", 1) <= 1
    from runtime.combat.dicepool.battle import resolve
    out = resolve(st, lambda why: 1)  # every die a 1: whatever fires hits
    assert not any(line.startswith(("Attacker's round: StuG1", "tank support: StuG1")) for line in out.lines)
    s.step = {"decision": "combat", "exclude": ["arrived", "reserve"]}
    st = eng.dicepool.preview(s, ["167ID", "LAH"], target)
    assert st.weapon("StuG1").round >= 0  # the normal attack: it fires


def test_the_attackers_ranged_equipment_comes_from_the_phases_active_stacks_only():
    """11.2(1)3: in the attacker's normal and reserve attack phases only
    ranged equipment carried by the stacks active in that phase may support
    (a reserve stack's Hummel waits for the reserve attack); the defender's
    from any stack."""
    from runtime import attachments as A
    runner, s, _ = _battle()
    g, b, eng = runner.game, runner.board, runner.engine
    assert g.dice_pool.ranged_active
    s.place("DR", b.parse("0810"))
    A.attach(g, s, "Hummel1", "DR")
    s.place("31TK", b.parse("0508"))
    A.attach(g, s, "PakFront1", "31TK")
    s.mark("31TK", "reserve")  # (a defender's marker bars nothing)
    p = {"hex": "0609", "attackers": ["167ID", "LAH"], "attacker": "german", "defender": "soviet", "side": "german"}
    s.active = "german"
    s.step = {"decision": "combat", "exclude": ["arrived", "reserve"]}
    assert eng.dicepool.ranged_open(s, p) == ["Hummel1"]  # DR may attack in the normal attack
    s.mark("DR", "reserve")
    assert eng.dicepool.ranged_open(s, p) == []  # DR is a reserve stack: not in the normal attack
    s.step = {"decision": "combat", "only": ["reserve"]}
    assert eng.dicepool.ranged_open(s, p) == ["Hummel1"]  # the reserve attack: it may
    assert eng.dicepool.ranged_open(s, dict(p, side="soviet")) == ["PakFront1"]  # the defender: no such limit


def test_check_refuses_ranged_with_another_word_and_hold_fire_without_a_duel(tmp_path):
    import shutil
    from dsl.compiler import check_game
    from helpers import ROOT
    folder = tmp_path / "prokhorovka"
    shutil.copytree(ROOT / "games" / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text()
    (folder / "game.hxr").write_text(text.replace("ranged range active", "ranged range always", 1))
    _, diags, _ = check_game(folder)
    assert any("ranged takes a factor and optionally 'active', not 'always'" in d.message for d in diags.items)
    (folder / "game.hxr").write_text(text.replace("hold-fire sp-at", "hold-fire sp-att", 1))
    _, diags, _ = check_game(folder)
    assert any("sp-att" in d.message for d in diags.items)
    other = tmp_path / "barbarossa"  # a game without dice-pool duels: nothing would read it
    shutil.copytree(ROOT / "games" / "barbarossa-postcard", other)
    text = (other / "game.hxr").read_text()
    (other / "game.hxr").write_text(text.replace("procedure combat\n", "procedure combat\n      hold-fire all\n", 1))
    _, diags, _ = check_game(other)
    assert any("hold-fire is read by the tank duel of a dice-pool battle" in d.message for d in diags.items)


def test_the_greedy_side_retreats_only_where_a_retreat_saves_steps():
    """14.0: a retreat halves the losses, but a stack whose retreat hexes all
    lie in enemy ZOC is destroyed (14.0(4)): the bots' answer weighs both."""
    runner, s, _ = _battle(defend=("52G+PakFront1",), attack=(("167ID", "0610"),))
    b, eng = runner.board, runner.engine
    p = {"hex": "0609", "attackers": ["167ID"], "attacker": "german", "defender": "soviet",
         "side": "soviet", "losses": {"soviet": 2, "german": 0}, "stage": "retreat"}
    fight = eng.dicepool
    assert fight.retreat_saves(s, p, "soviet")  # to 0709: 1 step lost instead of 2
    assert str(fight.default(s, p, [])) == "done"  # 'done' in the retreat stage: it retreats
    assert not fight.retreat_saves(s, dict(p, losses={"soviet": 1, "german": 0}), "soviet")  # halving 1 saves none
    s.place("LAH", b.parse("0710"))  # 0709, the way back to its sources, now in German ZOC
    assert not fight.retreat_saves(s, p, "soviet")  # the retreat would destroy 52G and its PakFront: 3 steps
    assert str(fight.default(s, p, [])) == "hold"
    p = dict(p, losses={"soviet": 6, "german": 0})
    assert fight.retreat_saves(s, p, "soviet") is False  # 3 steps either way: it holds the hex


def test_a_sample_of_the_germans_view_deals_the_soviet_chits_allocated_face_down():
    """9.2(2)2: the Germans see how many chits the Soviets allocated, not
    which; a sample of their view (the bots' look-ahead) puts that many of
    the Soviet support pool's chits into the battle, so a search can play it
    out."""
    from runtime.observe import UNKNOWN, determinise, needs_sample, observe
    runner, s, _ = _battle()
    eng = runner.engine
    for c, pool in (("SArty1", "soviet-support"), ("SMelee", "soviet-support"), ("Mines", "soviet-support"),
                    ("GArty1", "german-support")):
        s.place(c, None, f"pool:{pool}")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {"decision": "combat"}, set(), []
    s = declared(eng, eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done"))
    s = eng.apply(s, "use SMelee")
    s = eng.apply(s, "use Mines")
    s = eng.apply(s, "done")  # the Germans allocate now
    view = observe(runner.game, s, "german")
    assert view.pending[0]["chits"]["soviet"] == [UNKNOWN, UNKNOWN] and needs_sample(view)
    for seed in range(5):
        sample = determinise(runner.game, view, random.Random(seed))
        dealt = sample.pending[0]["chits"]["soviet"]
        assert len(dealt) == 2 and UNKNOWN not in dealt and len(set(dealt)) == 2
        assert all(sample.units[c].box == "pool:soviet-support" for c in dealt)
        after = runner.apply(sample, "done")  # the battle goes on in the sample
        assert after is not None


def test_19_5_german_tank_destroyers_break_down_on_a_1_when_they_take_part():
    """19.5 (optional): each time a German SP anti-tank gun takes part in a
    battle ("参战时"), roll 1d6; on 1 it is removed from the game.  Soviet ones
    never; one left out of the battle (11.2(1)2) does not take part: it rolls
    nothing.  The roll comes once the equipment that fights is declared."""
    from dsl.compiler import compile_game
    from helpers import ROOT
    from runtime import attachments as A
    from runtime.runner import Runner
    game = compile_game(ROOT / "games" / "prokhorovka", variants=["breakdown"])
    runner = Runner(game)
    seen = {"broke": 0, "ran": 0}
    for seed in range(1, 40):
        s = runner.new_game(seed)
        for u in s.units.values():
            s.place(u.id, None, "removed")
        b = runner.board
        s.place("52G", b.parse("0609"))
        A.attach(game, s, "SU76-1", "52G")
        s.place("LAH", b.parse("0710"))
        for c in ("StuG1", "Marder1", "Tiger1"):
            A.attach(game, s, c, "LAH")
        s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {"decision": "combat"}, set(), []
        s.place("DR", b.parse("0610"))
        for c in ("StuG2", "Marder2"):
            A.attach(game, s, c, "DR")
        s = runner.engine.apply(runner.engine.apply(s, "attack 0609 with DR,LAH"), "done")  # fought (9.2(3))
        s = runner.engine.apply(s, "done")  # the Soviets declare their equipment (11.2(1))
        assert not [e for e in s.log if str(e.get("for", "")).startswith("breakdown of")]  # not before it fights
        for a in ("use StuG2 out", "use Marder2 out", "done"):  # the Germans leave two out
            s = runner.engine.apply(s, a)
        rolls = [e for e in s.log if str(e.get("for", "")).startswith("breakdown of")]
        assert sorted(e["for"].split()[2] for e in rolls) == ["Marder1", "StuG1"]  # not the Tiger, not the SU-76
        for e in rolls:
            c = e["for"].split()[2]
            gone = s.units[c].box == "removed"
            assert gone == (e["result"] == 1)
            seen["broke" if gone else "ran"] += 1
    assert seen["broke"] and seen["ran"]
    plain = Runner(compile_game(ROOT / "games" / "prokhorovka"))
    assert not plain.game.dice_pool.breakdown


def test_the_search_bot_looks_ahead_through_a_battle_with_face_down_chits():
    """The search bot's look-ahead plays a dice-pool battle from samples of
    its view, the other side's face-down chits dealt (it crashed on '?')."""
    from runtime.bots import make_bot
    runner, s, _ = _battle()
    eng = runner.engine
    for c, pool in (("SArty1", "soviet-support"), ("SMelee", "soviet-support"), ("SCmdr", "soviet-support"),
                    ("La5-1", "soviet-support"), ("GArty1", "german-support"), ("GEng", "german-support")):
        s.place(c, None, f"pool:{pool}")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {"decision": "combat"}, set(), []
    s = declared(eng, eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done"))
    s = eng.apply(s, "use SMelee")
    s = eng.apply(s, "use SCmdr")
    s = eng.apply(s, "done")
    a = make_bot("search:8", 1).choose(runner, s)
    assert a in runner.legal_actions(s)


def test_a_sample_deals_aircraft_or_fewer_chits_when_its_pool_holds_too_few():
    from runtime.observe import UNKNOWN, _deal_battle_chits
    runner, s, _ = _battle()
    for c in ("SArty1", "La5-1"):
        s.place(c, None, "pool:soviet-support")
    p = {"kind": "dice-pool", "chits": {"soviet": [UNKNOWN, UNKNOWN]}}
    dealt = _deal_battle_chits(runner.game, s, p, random.Random(1))["chits"]["soviet"]
    assert sorted(dealt) == ["La5-1", "SArty1"]
    s.place("La5-1", None, "pool:soviet-support-cup")
    assert _deal_battle_chits(runner.game, s, p, random.Random(1))["chits"]["soviet"] == ["SArty1"]


def test_a_sample_of_the_soviet_view_leaves_out_what_the_germans_left_out():
    """11.2(1)2: a counter left out of a battle stays face down, so the
    Soviets know how many the Germans left out, not which.  A sample of their
    view (the search bot's look-ahead) deals face-down counters under the
    German stacks; as many of those must be the ones left out, not counted
    as fighting."""
    from runtime.observe import UNKNOWN, determinise, observe
    runner, s, _ = _battle(attack=(("167ID", "0610"), ("LAH+Tiger1+StuG1", "0710")))
    eng = runner.engine
    for c in ("Marder1", "Marder2", "StuG2"):
        s.place(c, None, "pool:german-equip-cup")
    s.place("SArty1", None, "pool:soviet-support")  # (the battle waits for the Soviets' support chits)
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {"decision": "combat"}, set(), []
    s = eng.apply(eng.apply(s, "attack 0609 with 167ID,LAH"), "done")  # (52G carries nothing to declare)
    assert s.pending[0]["stage"] == "equipment" and s.pending[0]["side"] == "german"
    s = eng.apply(s, "use StuG1 out")
    s = eng.apply(s, "done")  # the Germans leave the StuG out: it stays face down
    assert s.pending[0]["stage"] == "support" and s.pending[0]["neutral"] == ["StuG1"]
    view = observe(runner.game, s, "soviet")
    assert view.pending[0]["neutral"] == [UNKNOWN]
    for seed in range(6):
        sample = determinise(runner.game, view, random.Random(seed))
        (left,) = sample.pending[0]["neutral"]
        assert left in sample.attached["LAH"] and left != "Tiger1"  # one of the face-down ones dealt under LAH
        st = eng.dicepool.setup(sample, sample.pending[0])
        fighting = {w.id for w in st.weapons} | {i for p in st.pools for i, n in p.items if n}
        assert left not in fighting and "Tiger1" in fighting
        assert not (set(sample.attached["LAH"]) - {"Tiger1", left})  # nothing else under LAH fights


def test_19_5_the_odds_before_the_dice_count_each_breakdown_to_come():
    """The odds shown before a battle's dice (the playtest's panel, hexforge
    battle, the greedy bot's choice) weigh each German SP anti-tank gun
    that would join it: 5/6 it fights, 1/6 it is gone (19.5); once the
    breakdowns are rolled the odds are the battle's as it stands."""
    from dsl.compiler import compile_game
    from helpers import ROOT
    from runtime import attachments as A
    from runtime.runner import Runner
    runner = Runner(compile_game(ROOT / "games" / "prokhorovka", variants=["breakdown"]))
    g, eng, b = runner.game, runner.engine, runner.board
    s = runner.new_game(1)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    s.place("52G", b.parse("0609"))
    A.attach(g, s, "PakFront2", "52G")
    s.place("LAH", b.parse("0710"))
    for c in ("StuG1", "Marder1", "Tiger1"):
        A.attach(g, s, c, "LAH")
    target = b.parse("0609")
    fp = eng.dicepool
    odds = fp.preview_odds(s, ["LAH"], target)
    q = Fraction(1, 6)
    parts = {gone: battle_odds(fp.preview(s, ["LAH"], target, neutral=gone))
             for gone in ((), ("Marder1",), ("StuG1",), ("Marder1", "StuG1"))}
    weight = {(): (1 - q) ** 2, ("Marder1",): q * (1 - q), ("StuG1",): q * (1 - q), ("Marder1", "StuG1"): q * q}
    for side in ("german", "soviet"):
        assert odds.win[side] == sum(weight[k] * o.win[side] for k, o in parts.items())
    assert odds.tie == sum(weight[k] * o.tie for k, o in parts.items())
    assert odds.win["german"] != parts[()].win["german"]
    assert any("breakdown (19.5): Marder1 leaves the game 16.7%" in n for n in odds.notes)
    assert fp.win_chance(s, ["LAH"], target) == float(odds.win["german"])
    # in the battle: counted during the declarations, not once rolled
    s.place("SArty1", None, "pool:soviet-support")  # (the battle waits for the Soviets' support chits)
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {"decision": "combat"}, set(), []
    s = eng.apply(eng.apply(s, "attack 0609 with LAH"), "done")
    p = s.pending[0]
    assert p["stage"] == "equipment" and fp.battle_odds_now(s, p)[1].win == odds.win
    s = eng.apply(s, "done")  # the Soviets
    s = eng.apply(s, "done")  # the Germans: the StuG and the Marder roll
    p = s.pending[0]
    assert p["stage"] == "support" and p["broken-down"]
    st, now = fp.battle_odds_now(s, p)
    assert now.win == battle_odds(st).win


# ---------------------------------------------------------------- chits played at once (签一览 (2), 狙击兵 ※)

def _commander_acts(soviet_pool=("SSniper1", "SArty1"), soviet_uses=("SArty1",)):
    """0609 (52G) attacked; the Soviets allocate ``soviet_uses``, the Germans their commander; the commander's
    turn to cancel comes (the Soviet chits left in their support pool stay there)."""
    runner, s = _fight([*soviet_pool, "GCmdr1"])
    eng = runner.engine
    for c in soviet_uses:
        s = eng.apply(s, f"use {c}")
    if s.pending[0]["side"] == "soviet" and s.pending[0]["stage"] == "support":
        s = eng.apply(s, "done")
    s = eng.apply(s, "use GCmdr1")
    while s.pending[0]["stage"] == "support":
        s = eng.apply(s, "done")
    return runner, s


def test_a_sniper_played_at_once_cancels_a_commander_as_it_acts():
    """签一览 狙击兵 ※: a sniper not allocated to the battle, played at once from the support pool as the
    German commander acts, cancels it (and only a commander): the commander's cancel never happens."""
    runner, s = _commander_acts()
    eng = runner.engine
    assert s.pending[0]["stage"] == "cancel" and s.pending[0]["side"] == "german"
    s = eng.apply(s, "use GCmdr1 SArty1")
    p = s.pending[0]
    assert p["stage"] == "at-once" and p["side"] == "soviet"
    assert [str(a) for a in eng.legal_actions(s)] == ["use SSniper1 GCmdr1", "done"]
    assert "german's GCmdr1 acts in 0609 ('use GCmdr1 SArty1'): soviet may play at once" in \
        eng.explain(s, "use SArty1 GCmdr1")
    assert str(eng.dicepool.default(s, p, eng.legal_actions(s))) == "use SSniper1 GCmdr1"
    t = eng.apply(s, "use SSniper1 GCmdr1")
    assert t.units["GCmdr1"].box == "pool:german-support-cup" and t.units["SSniper1"].box == "pool:soviet-support-cup"
    assert not any("cancels SArty1" in e.get("step", "") for e in t.log)   # not cancelled: it fires in the battle
    assert any(e.get("step") == "SSniper1 (soviet) played at once cancels GCmdr1: back to german-support-cup before "
               "it acts" for e in t.log)
    assert any(e.get("step", "").startswith("Artillery (11.3): soviet 3 dice") for e in t.log)   # SArty1's 3
    # not answered: the commander cancels as it said, its action in the log once
    d = eng.apply(s, "done")
    assert d.units["SArty1"].box == "pool:soviet-support-cup" and d.units["SSniper1"].box == "pool:soviet-support"
    assert [e.get("action") for e in d.log].count("use GCmdr1 SArty1") == 1
    assert any(e.get("step") == "GCmdr1 (german) cancels SArty1: back to soviet-support-cup" for e in d.log)


def test_the_answer_at_once_is_asked_whatever_the_pool_holds_and_only_against_a_commander():
    """Asked whenever the enemy's support pool holds a chit (which, the other side does not see): without a
    sniper only 'done'; with an empty pool, not asked. A sniper acting is no commander: not answered."""
    runner, s = _commander_acts(soviet_pool=("SArty1", "SArty2"))
    eng = runner.engine
    s = eng.apply(s, "use GCmdr1 SArty1")
    assert s.pending[0]["stage"] == "at-once" and [str(a) for a in eng.legal_actions(s)] == ["done"]
    runner, s = _commander_acts(soviet_pool=("SArty1",))
    s = runner.engine.apply(s, "use GCmdr1 SArty1")
    assert s.units["SArty1"].box == "pool:soviet-support-cup"   # no chit left to answer with: it acts at once
    runner, s = _fight(["SSniper1", "GCmdr1", "GSniper", "GArty1"])   # the Germans keep GSniper in their pool
    eng = runner.engine
    s = eng.apply(s, "use SSniper1")
    s = eng.apply(eng.apply(s, "use GCmdr1"), "done")
    assert s.pending[0]["stage"] == "cancel" and s.pending[0]["side"] == "soviet"
    s = eng.apply(s, "use SSniper1 GCmdr1")   # the allocated sniper's own cancel (any tactical chit): no commander
    assert s.units["GCmdr1"].box == "pool:german-support-cup" and s.units["GSniper"].box == "pool:german-support"
    assert not any(p.get("stage") == "at-once" for p in s.pending)


def test_a_sniper_played_at_once_stops_a_commanders_roll_again():
    """A commander kept to roll a die again (签一览 ①) acts when it rolls: the sniper cancels that roll."""
    runner, s = _commander_acts(soviet_uses=("SArty1",))
    eng = runner.engine
    s = eng.apply(s, "done")   # the commander cancels nothing: it is kept
    while s.pending and s.pending[0].get("stage") not in ("reroll", None) and s.pending[0].get("kind") == "dice-pool":
        s = eng.apply(s, eng.dicepool.default(s, s.pending[0], eng.legal_actions(s)))
    p = s.pending[0]
    assert p["stage"] == "reroll" and p["side"] == "german"
    dice = [list(x) for x in p["dice"]]
    s = eng.apply(s, "use GCmdr1 1")
    assert s.pending[0]["stage"] == "at-once"
    t = eng.apply(s, "use SSniper1 GCmdr1")
    assert not any("GCmdr1 (german) rolls again" in e.get("step", "") for e in t.log)
    assert [e for e in t.log if e.get("roll") and "rolls again" in e.get("for", "")] == []
    assert t.units["GCmdr1"].box == "pool:german-support-cup"
    d = eng.apply(s, "done")
    assert any("GCmdr1 (german) rolls again" in e.get("step", "") for e in d.log) and dice


def test_check_refuses_an_at_once_effect_other_than_cancel_chit(tmp_path, capfd):
    import shutil
    from editor.cli import main
    from helpers import ROOT
    folder = tmp_path / "prokhorovka"
    shutil.copytree(ROOT / "games" / "prokhorovka", folder)
    rules = (folder / "game.hxr").read_text(encoding="utf-8")
    rules = rules.replace("at-once sniper { cancel-chit commander }", "at-once sniper { both-lose }")
    (folder / "game.hxr").write_text(rules, encoding="utf-8")
    assert main(["check", str(folder)]) != 0
    err = capfd.readouterr().err
    at = next(i + 1 for i, line in enumerate(rules.splitlines()) if "at-once sniper { both-lose }" in line)
    assert f"game.hxr:{at}:" in err and "'both-lose' is not an at-once effect" in err
