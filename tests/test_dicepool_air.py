"""Air combat in dice-pool battles (Prokhorovka 16.0-16.3), declared by the
game's ``dice-pool { air ... }`` block and the aircraft's ``on-use`` roles:
the Rudel example of the chit catalogue step by step, bombing (damage and
16.2(3)'s neutralised tank weapons), AA fire, interception and
counter-interception, recon, smoke, the 4-chit limit; the odds with damage
already on the track against brute force; what check refuses."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import product


from runtime import attachments as A
from runtime.combat.dicepool.battle import Pool
from runtime.combat.dicepool.hits import HitTest
from runtime.combat.dicepool.odds import battle_odds
from test_dicepool import _check_against_enumeration, setup_of


def _game():
    from dsl.compiler import compile_game
    from helpers import ROOT
    from runtime.runner import Runner
    runner = Runner(compile_game(ROOT / "games" / "prokhorovka"))
    s = runner.new_game(1)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    return runner, s


def _stack(runner, s, item: str, hid: str) -> str:
    uid, *carried = item.split("+")
    s.place(uid, runner.board.parse(hid))
    for c in carried:
        A.attach(runner.game, s, c, uid)
    return uid


def _attack(runner, s, pools=(), attack=("LAH+Tiger1@0504",), defend=("52G+T34-1@0505",), target="0505",
            active="german"):
    """A battle opened by ``active`` on ``target``, the stacks in place, the
    chits in their side's support pool."""
    stacks = {}
    for item in (*attack, *defend):
        what, hid = item.split("@")
        stacks.setdefault(hid, []).append(_stack(runner, s, what, hid))
    for c in pools:
        side = runner.game.counters[c].side
        s.place(c, None, f"pool:{side}-support")
    attackers = [u for item in attack for u in [item.split("@")[0].split("+")[0]]]
    s.phase, s.active, s.step, s.activated, s.pending = "combat", active, {}, set(), []
    s = runner.engine.apply(s, f"attack {target} with {','.join(attackers)}")
    s = runner.engine.apply(s, "done")   # every attack declared: the battle is fought (9.2(3))
    while s.pending and s.pending[0].get("stage") == "equipment":   # all the equipment fights (11.2(1))
        s = runner.engine.apply(s, "done")
    A.face_up(runner.game, s, [*attackers, *(u.id for u in s.units_at(runner.board.parse(target)))])
    return s


def _legal(runner, s):
    return {str(a) for a in runner.engine.legal_actions(s)}


def _steps(s):
    return [e["step"] for e in s.log if "step" in e]


def _until(runner, s, stage):
    """Pass ('done') until the battle reaches ``stage``."""
    while s.pending and s.pending[0].get("stage") != stage:
        s = runner.engine.apply(s, "done")
    return s


def test_the_rudel_example(dice):
    """签一览, Ju87 (Rudel): La-5 intercepts, rolls 3 and hits; the Germans roll
    it again: 5, missed.  Rudel attacks a T34 (armour 1: 3 or less hits):
    4, rolled again: 2, destroyed; its second shot at a PakFront on a hill
    (4 or less): 2, removed; Rudel goes back to its cup."""
    runner, s = _game()
    eng = runner.engine
    _stack(runner, s, "31TK+PakFront1", "0506")  # on a hill next to the battle, in range (2)
    s = _attack(runner, s, pools=("Rudel", "La5-1"))
    assert "use PakFront1" in _legal(runner, s)
    assert "use Rudel" not in _legal(runner, s) and "use La5-1" not in _legal(runner, s)  # aircraft fly later
    s = eng.apply(s, "use PakFront1")
    A.face_up(runner.game, s, ["31TK"], only="PakFront1")  # the runner turns it face up (11.2(1)4)
    s = _until(runner, s, "air")
    p = s.pending[0]
    assert p["side"] == "german"            # the Soviets have no mission to fly (a fighter only intercepts)
    assert _legal(runner, s) == {"use Rudel", "done"}
    s = eng.apply(s, "use Rudel")
    assert s.pending[0]["stage"] == "intercept" and s.pending[0]["side"] == "soviet"
    assert _legal(runner, s) == {"use La5-1", "done"}
    dice["faces"] = [3, 5]
    s = eng.apply(s, "use La5-1")           # no German fighter: no counter-interception
    p = s.pending[0]
    assert p["stage"] == "air-target" and p["side"] == "german"
    assert _legal(runner, s) == {"use Rudel T34-1", "use Rudel PakFront1", "done"}
    dice["faces"] = [4, 2]
    s = eng.apply(s, "use Rudel T34-1")
    dice["faces"] = [2]
    s = eng.apply(s, "use Rudel PakFront1")
    steps = _steps(s)
    assert "interception: La5-1 at Rudel: 3 hits; Rudel's owner rolls it again" in steps
    assert "interception: La5-1 (soviet) at Rudel (3 or less): 5, missed" in steps
    assert "ground attack: Rudel at T34-1: 4 misses; Rudel's owner rolls it again" in steps
    assert "ground attack: Rudel (german) at T34-1 (◆ (1, or die + 1 <= 4)): 2, " \
           "hit: 1 damage, and it goes back to its cup" in steps
    assert "ground attack: Rudel (german) at PakFront1 (4 or less): 2, hit: 1 damage, " \
           "and it goes back to its cup" in steps
    assert s.units["T34-1"].box == "pool:soviet-tank-cup" and s.units["PakFront1"].box == "pool:soviet-equip-cup"
    assert s.units["Rudel"].box == "pool:german-support-cup" and s.units["La5-1"].box == "pool:soviet-support-cup"
    p = s.pending[0]
    assert p["track"] == [["german", "Rudel", 1], ["german", "Rudel", 1]]
    st = eng.dicepool.setup(s, p)
    assert st.track == (("german", "Rudel", 1), ("german", "Rudel", 1))
    assert all(w.id not in ("T34-1", "PakFront1") for w in st.weapons)


def test_bombing_scores_damage_and_the_raider_allots_the_hits(dice):
    """16.2: a bomber's dice hit as artillery (the attacker: the target's
    bombing column; clear 3); the raider allots the hits to enemy duel
    weapons, each neutralised for its armour (a T-70, armour 0, for 1: 16.2(3)
    1-2); what he does not allot adds to the next bomber's hits (the
    catalogue's note on several bombers)."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1", "He111-2"), defend=("52G+KV1-1+T70-1@0505",))
    s = _until(runner, s, "air")
    dice["faces"] = [1, 6, 6]               # He 111: 3 dice, 3 or less on clear: 1 hit
    s = eng.apply(s, "use He111-1")
    assert "bombing: He111-1 (german) 3 dice (3 or less) 1,6,6: 1 damage" in _steps(s)
    p = s.pending[0]
    assert p["stage"] == "air-target" and p["side"] == "german"
    assert _legal(runner, s) == {"use He111-1 T70-1", "done"}   # the KV-1 needs 2
    assert "german allots the bombing hits over 0505 (1 left)" in eng.explain(s, "use He111-1 KV1-1")
    s = eng.apply(s, "done")                # kept for the next bomber
    p = s.pending[0]
    assert p["neutral"] == [] and p["air"]["left"]["german"] == 1
    dice["faces"] = [2, 6, 6]
    s = eng.apply(s, "use He111-2")         # 1 more hit: 2 in all, the KV-1 (armour 2) or the T-70
    assert _legal(runner, s) == {"use He111-2 KV1-1", "use He111-2 T70-1", "done"}
    s = eng.apply(s, "use He111-2 KV1-1")
    assert "bombing: german allots 2 hits to KV1-1: it is neutralised for this battle (16.2(3))" in _steps(s)
    p = s.pending[0]
    assert p["neutral"] == ["KV1-1"] and p["air"]["left"]["german"] == 0   # (no more missions: the dice)
    assert p["track"] == [["german", "He111-1", 1], ["german", "He111-2", 1]]
    assert all(w.id != "KV1-1" for w in eng.dicepool.setup(s, p).weapons)
    s = _until(runner, s, "retreat") if s.pending[0]["stage"] != "retreat" else s
    r = next(e for e in s.log if e.get("battle") == "0505" and "losses" in e)
    assert r["damage"]["german"] >= 2


def test_the_bots_allot_bombing_hits_to_the_strongest_weapon_first(dice):
    """The bots' allotment: the strongest weapon (fire, then armour) the hits
    pay for, as the bombing odds assume."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1",), defend=("52G+KV1-1+T70-1@0505",))
    s = _until(runner, s, "air")
    dice["faces"] = [1, 2, 6]               # 2 hits
    s = eng.apply(s, "use He111-1")
    p = s.pending[0]
    acts = eng.legal_actions(s)
    assert str(eng.dicepool.default(s, p, acts)) == "use He111-1 KV1-1"
    assert eng.dicepool.air.neutralised(s, p, "german", 2)[0] == ["KV1-1"]


def test_aa_fire_sends_a_mission_back_and_fighters_shoot_each_other_down(dice):
    """16.1(2): an AA gun in range fires first (3 or less): a hit sends the
    aircraft back to its cup.  16.1(4)(5): a counter-interception that hits
    removes the interceptor from the game; an interception that hits removes
    the aircraft from the game."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1", "Ju87-1", "Ju87-2", "Bf109-1", "La5-1", "La5-2"),
                defend=("52G+T34-1+AA1@0505",))
    s = _until(runner, s, "air")
    dice["faces"] = [2]
    s = eng.apply(s, "use He111-1")
    assert "AA fire: AA1 (soviet) at He111-1 (3 or less): 2, hit: back to its cup" in _steps(s)
    assert s.units["He111-1"].box == "pool:german-support-cup"
    p = s.pending[0]
    assert p["stage"] == "air" and p["side"] == "german"    # the Soviets may answer: no mission, so back to the Germans
    dice["faces"] = [5]                     # AA misses
    s = eng.apply(s, "use Ju87-1")
    assert s.pending[0]["stage"] == "intercept"
    s = eng.apply(s, "use La5-1")
    assert s.pending[0]["stage"] == "counter" and _legal(runner, s) == {"use Bf109-1", "done"}
    dice["faces"] = [4]                     # Bf 109 (4 or less) at La-5: shot down
    s = eng.apply(s, "use Bf109-1")
    assert "counter-interception: Bf109-1 (german) at La5-1 (4 or less): 4, shot down: out of the game" in _steps(s)
    assert s.units["La5-1"].box == "removed"
    assert s.pending[0]["stage"] == "air-target"
    s = eng.apply(s, "done")
    assert s.units["Bf109-1"].box == "pool:german-support-cup" and s.units["Ju87-1"].box == "pool:german-support-cup"
    # the Soviets intercept the next one without a German counter-interception: 3 or less, the Ju 87 is lost
    assert s.pending[0]["stage"] == "air" and s.pending[0]["side"] == "german"
    dice["faces"] = [6, 1]                  # AA misses, La-5 hits
    s = eng.apply(s, "use Ju87-2")
    s = eng.apply(s, "use La5-2")
    assert "interception: La5-2 (soviet) at Ju87-2 (3 or less): 1, shot down: out of the game" in _steps(s)
    assert s.units["Ju87-2"].box == "removed"


def test_air_chits_do_not_count_toward_the_limit_and_smoke_grounds_bombing(dice):
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("GArty1", "GArty2", "GArty3", "GCmdr1", "He111-1", "SSniper1"))
    s = eng.apply(s, "done")                 # the Soviets first: nothing
    for c in ("GArty1", "GArty2", "GArty3", "GCmdr1"):
        s = eng.apply(s, f"use {c}")
    assert s.pending[0]["stage"] != "support" or "use He111-1" not in _legal(runner, s)
    s = _until(runner, s, "air")
    while s.pending[0]["side"] != "german":
        s = eng.apply(s, "done")
    assert "use He111-1" in _legal(runner, s)   # four support chits, and the bomber still flies (16.0(1))
    # German smoke in a battle the Soviets fight: their air attacks count for nothing (签一览, smoke)
    runner, s = _game()
    s = _attack(runner, s, pools=("Il2-1", "GSmoke"), attack=("52G@0504",), defend=("LAH+Tiger1@0505",),
                active="soviet")
    assert s.pending[0]["side"] == "german"  # the Soviets have no support chit to allocate
    s = runner.engine.apply(s, "use GSmoke")   # then the air combat: the Il-2 may not fly; the dice
    assert not any("flies" in x for x in _steps(s)) and s.units["Il2-1"].box == "pool:soviet-support"


def test_recon_turns_face_down_enemy_chits_face_up_in_its_own_turn_only(dice):
    runner, s = _game()
    eng = runner.engine
    _stack(runner, s, "31TK+T34-2+PakFront2", "0808")
    s = _attack(runner, s, pools=("Fw189",))
    hidden = lambda st: [a for a in ("T34-2", "PakFront2") if f"face-up:{a}" not in st.done]  # noqa: E731
    assert hidden(s) == ["T34-2", "PakFront2"]
    s = _until(runner, s, "air")
    assert "use Fw189" in _legal(runner, s)
    s = eng.apply(s, "use Fw189")
    # the targets are named by their place under the unit (3.5(5): how many, not which)
    assert _legal(runner, s) == {"use Fw189 31TK#1", "use Fw189 31TK#2", "done"}
    assert s.attached["31TK"][-2:] == ("T34-2", "PakFront2")
    s = eng.apply(s, "use Fw189 31TK#2")
    assert hidden(s) == ["T34-2"]
    assert "Fw189 (german) turns PakFront2 under 31TK face up" in _steps(s)
    # not in the enemy's turn (16.1(1)3)
    runner, s = _game()
    _stack(runner, s, "31TK+T34-2", "0808")
    s = _attack(runner, s, pools=("Fw189",), attack=("52G@0504",), defend=("LAH+Tiger1@0505",), active="soviet")
    s = _until(runner, s, "retreat")
    assert not any("Fw189" in x for x in _steps(s)) and s.units["Fw189"].box == "pool:german-support"


def test_the_bots_answer_every_air_decision():
    """Greedy games over two seeds finish; air missions are flown, the
    enemy intercepts."""
    from runtime.bots import make_bot, play
    runner, _ = _game()
    flown = intercepted = 0
    for seed in (1, 2):
        agents = {side: make_bot("greedy", seed) for side in runner.game.sides}
        s, _ = play(runner, runner.new_game(seed), agents)
        assert s.result is not None
        steps = _steps(s)
        flown += sum("flies a bombing mission" in x for x in steps)
        intercepted += sum(x.endswith(" intercepts " + x.split()[-1]) for x in steps if " intercepts " in x)
    assert flown > 0 and intercepted > 0


def test_damage_on_the_track_before_the_dice_shifts_the_odds_exactly():
    pools = [Pool("normal", "Normal combat", "A", (("LAH", 2),), HitTest("number", 3)),
             Pool("normal", "Normal combat", "D", (("52G", 2),), HitTest("number", 2))]
    base = setup_of(pools)
    s = replace(base, track=(("A", "He111-1", 2), ("D", "Il2-1", 1)))
    _check_against_enumeration(s)
    odds, before = battle_odds(s), battle_odds(base)
    assert odds.damage["A"] == {k + 2: p for k, p in before.damage["A"].items()}
    assert odds.damage["D"] == {k + 1: p for k, p in before.damage["D"].items()}


def test_the_bots_bombing_chance_matches_brute_force(dice):
    """AirCombat.chance over a bomber's dice equals the mean, over every
    face of its dice, of the battle's exact odds after that bombing."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1",), defend=("52G+KV1-1+T70-1@0505",))
    s = _until(runner, s, "air")
    p = s.pending[0]
    air = eng.dicepool.air
    want = Fraction(0)
    test = air.bomb_test(s, p, "german")
    for faces in product(range(1, 7), repeat=3):
        k = sum(test.hits(f) for f in faces)
        gone, _ = air.neutralised(s, p, "german", k)
        track = [["german", "He111-1", k]] if k else []
        odds = battle_odds(eng.dicepool.preview(s, p["attackers"], runner.board.parse("0505"), p["chits"],
                                                tuple(gone), None, tuple(tuple(x) for x in track)))
        want += Fraction(1, 216) * (odds.win["german"] + odds.tie / 2)
    assert air.chance(s, p, "german", "He111-1") == want


def _check_fails(tmp_path, capfd, old: str, new: str, *more: str) -> str:
    import shutil
    from editor.cli import main
    from helpers import ROOT
    folder = tmp_path / "prokhorovka"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(ROOT / "games" / "prokhorovka", folder)
    rules = (folder / "game.hxr").read_text(encoding="utf-8")
    for o, n in ((old, new), *zip(more[::2], more[1::2])):
        assert o in rules
        rules = rules.replace(o, n, 1)
    (folder / "game.hxr").write_text(rules, encoding="utf-8")
    assert main(["check", str(folder)]) != 0
    return capfd.readouterr().err


def test_check_refuses_air_roles_the_engine_would_not_fly(tmp_path, capfd):
    err = _check_fails(tmp_path, capfd, "on-use sniper { cancel-chit tactical }", "on-use sniper { bomb bombing }")
    assert "GSniper takes an air role but is not one of air air-combat's aircraft" in err
    err = _check_fails(tmp_path, capfd, "on-use fighter { intercept }", "on-use fighter { intercept; add-damage 1 }")
    assert "an aircraft's on-use holds its air role only" in err
    err = _check_fails(tmp_path, capfd, "on-use recon { recon 3 }", "on-use recon { recon 3 }; on-use fighter { add-damage 1 }")
    assert "is an aircraft (air air-combat): what it does is an air role" in err
    err = _check_fails(tmp_path, capfd, "on-use bomber { bomb bombing }", "on-use bomber { bomb bombs }")
    assert "no unit class prints a factor 'bombs' (bomb)" in err
    err = _check_fails(tmp_path, capfd, "    ground-attack column ground-attack", "    ground-attack column ground")
    assert "the terrain effects chart has no column 'ground'" in err
    import re
    from helpers import ROOT
    rules = (ROOT / "games" / "prokhorovka" / "game.hxr").read_text(encoding="utf-8")
    block = re.search(r"  air air-combat .*?\n  }\n", rules, re.S).group(0)
    err = _check_fails(tmp_path, capfd, block, "", "cancel-step bombardment; cancel-step air-combat",
                       "cancel-step bombardment")
    assert "'intercept' is an air role: the dice-pool block needs air" in err


def test_a_kept_commander_rolls_an_air_combat_die_again(dice):
    """签一览 ①: a commander kept in the battle (it cancelled nothing) rolls
    one die again "at any roll": an air combat's too (AA fire, interception,
    counter-interception, bombing, ground attack), before the die counts;
    once, and then it is no longer kept for the battle's dice."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("Ju87-1", "GCmdr1"), defend=("52G+T34-1+AA1@0505",))
    s = eng.apply(s, "use GCmdr1")           # the Soviets allocate nothing; the German commander
    assert s.pending[0]["stage"] == "cancel"
    s = eng.apply(s, "done")                 # cancels nothing: it is kept
    assert s.pending[0]["stage"] == "air" and s.pending[0]["side"] == "german"
    dice["faces"] = [2]                      # AA fire hits (3 or less)
    s = eng.apply(s, "use Ju87-1")
    p = s.pending[0]
    assert p["stage"] == "air-reroll" and p["side"] == "german"
    assert _legal(runner, s) == {"use GCmdr1 1", "done"}
    assert str(eng.default_action(s)) == "use GCmdr1 1"   # a hit on its own aircraft: roll it again
    assert "AA fire: AA1 at Ju87-1" in eng.dicepool.why(s, p, None, eng.legal_actions(s))
    dice["faces"] = [6]
    s = eng.apply(s, "use GCmdr1 1")
    steps = _steps(s)
    assert steps[-2:] == ["GCmdr1 (german) rolls again the die of AA fire: AA1 at Ju87-1: 2, now 6",
                          "AA fire: AA1 (soviet) at Ju87-1 (3 or less): 6, missed"]
    assert s.pending[0]["stage"] == "air-target" and "GCmdr1" in s.pending[0]["used"]
    dice["faces"] = [6]                      # the ground attack misses: the commander is spent, no offer
    s = eng.apply(s, "use Ju87-1 T34-1")
    assert next(x for x in _steps(s) if x.startswith("ground attack: Ju87-1 (german) at T34-1")).endswith("missed")
    # the dice are rolled, and the commander is not kept for them either
    assert [x for x in _steps(s) if "rolls again" in x] == ["GCmdr1 (german) rolls again the die of AA fire: AA1 at "
                                                           "Ju87-1: 2, now 6"]
    assert not any(q.get("stage") in ("reroll", "air-reroll") for q in s.pending)


def test_a_kept_commander_may_roll_again_a_bombing_die_or_keep_the_interceptions(dice):
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1", "SCmdr", "La5-1"), defend=("52G+T34-1@0505",))
    assert s.pending[0]["side"] == "soviet"
    s = eng.apply(s, "use SCmdr")            # the Soviet commander; the Germans allocate nothing
    s = _until(runner, s, "cancel") if s.pending[0]["stage"] != "cancel" else s
    s = eng.apply(s, "done")                 # kept
    s = _until(runner, s, "air")
    while s.pending[0]["side"] != "german":
        s = eng.apply(s, "done")
    s = eng.apply(s, "use He111-1")          # no AA gun; the Soviets may intercept
    assert s.pending[0]["stage"] == "intercept"
    dice["faces"] = [5]                      # La-5 (3 or less) misses the He 111
    s = eng.apply(s, "use La5-1")
    assert s.pending[0]["stage"] == "air-reroll" and s.pending[0]["side"] == "soviet"
    assert str(eng.default_action(s)) == "use SCmdr 1"   # its own fighter's miss: roll it again
    dice["faces"] = [1, 1, 6]                # kept as it fell; the bomber's three dice: two hits on clear
    s = eng.apply(s, "done")
    assert "interception: La5-1 (soviet) at He111-1 (3 or less): 5, missed" in _steps(s)
    p = s.pending[0]
    assert p["stage"] == "air-reroll" and _legal(runner, s) == {"use SCmdr 1", "use SCmdr 2", "use SCmdr 3", "done"}
    assert str(eng.default_action(s)) == "use SCmdr 1"   # the first German hit
    dice["faces"] = [6]
    s = eng.apply(s, "use SCmdr 1")
    assert "SCmdr (soviet) rolls again the die of bombing: He111-1: 1, now 6" in _steps(s)
    assert any(x.startswith("bombing: He111-1 (german) 3 dice") and x.endswith("6,1,6: 1 damage") for x in _steps(s))


def test_bombing_a_stack_holding_a_bunker_hits_on_1(dice):
    """签一览, 阵地 1: a bunker makes the enemy's artillery and bombing fire hit
    on 1 (16.2(1)1: bombing dice as artillery).  In clear terrain a He 111's
    dice hit on 3 or less; over a defending stack with a bunker, on 1 only;
    the bunker of the attacking stack changes nothing (in defence only)."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1",), defend=("52G+SBunker1+T70-1@0505",))
    s = _until(runner, s, "air")
    p = s.pending[0]
    assert eng.dicepool.air.bomb_test(s, p, "german").text() == "1 or less"
    dice["faces"] = [1, 2, 3]
    s = eng.apply(s, "use He111-1")
    assert "bombing: He111-1 (german) 3 dice (1 or less) 1,2,3: 1 damage" in _steps(s)
    # the same stack without its bunker: 3 or less on clear
    runner, s = _game()
    s = _attack(runner, s, pools=("He111-1",), defend=("52G+T70-1@0505",))
    s = _until(runner, s, "air")
    assert runner.engine.dicepool.air.bomb_test(s, s.pending[0], "german").text() == "3 or less"
    # a Soviet bomber over the German attackers: the defender's 2 (11.3), a bunker beside it or not
    runner, s = _game()
    s = _attack(runner, s, pools=("Pe2",), attack=("LAH+Bunker1@0504",), defend=("52G+T70-1@0505",))
    s = _until(runner, s, "air")
    assert runner.engine.dicepool.air.bomb_test(s, s.pending[0], "soviet").text() == "2 or less"


def test_check_reads_a_bombing_hit_number_against_a_position(tmp_path, capfd):
    """hit attacker N against SELECTOR in the air block is read, not passed over:
    its errors are those of a fire step's."""
    err = _check_fails(tmp_path, capfd, "    hit attacker 1 against bunker                   # 签一览 阵地 1",
                       "    hit defender 1 against bunker                   # 签一览 阵地 1")
    assert "'against' changes the attacker's hit number" in err
    err = _check_fails(tmp_path, capfd, "    hit attacker 1 against bunker                   # 签一览 阵地 1",
                       "    hit attacker ◆ against bunker                   # 签一览 阵地 1")
    assert "'◆' is not a hit number here" in err


def test_an_aa_gun_is_an_anti_tank_gun_too(dice):
    """签一览 防空炮: "防空炮也能当作反坦克炮使用": an AA gun fights the tank
    battle as an anti-tank gun: in its stack's defence it fires in the
    anti-tank round (11.5(3)1); attacking it takes no part, as an anti-tank
    gun (11.5(1)1); within its range it supports another battle as one
    ("当作反坦克炮使用时，也可以使用其射程进行协同防御"), once a combat phase, and
    it still fires at the air missions over any battle in range."""
    runner, s = _game()
    eng = runner.engine
    _stack(runner, s, "LAH+Tiger1", "0504")
    _stack(runner, s, "52G+AA1", "0505")
    st = eng.dicepool.preview(s, ["LAH"], runner.board.parse("0505"))
    aa = st.weapon("AA1")
    assert (aa.side, aa.fire, aa.armour, st.rounds[aa.round]) == ("soviet", 4, 1, "Anti-tank round")
    assert st.pairs == (("Tiger1", "AA1"),)
    runner, s = _game()
    dice["faces"] = [6] * 6 + [1]           # the fire steps miss; AA1 (fire 4) at the Tiger: a 1 always hits
    s = _attack(runner, s, defend=("52G+AA1@0505",))
    assert "Anti-tank round: AA1 (soviet) fires at Tiger1 (◆ (1, or die + 2 <= 4)): 1, destroyed" in _steps(s)
    # attacking, it takes no part in the tank battle
    runner, s = _game()
    _stack(runner, s, "52G+AA1", "0504")
    _stack(runner, s, "LAH+Tiger1", "0505")
    st = runner.engine.dicepool.preview(s, ["52G"], runner.board.parse("0505"))
    assert [w.id for w in st.weapons] == ["Tiger1"]
    # from the next hex it supports the defence of 0505 with its range (1), and fires at the bomber too
    runner, s = _game()
    eng = runner.engine
    _stack(runner, s, "31TK+AA1", "0506")
    s = _attack(runner, s, pools=("He111-1",))
    assert "use AA1" in _legal(runner, s)
    s = eng.apply(s, "use AA1")
    assert "AA1" in [w.id for w in eng.dicepool.setup(s, s.pending[0]).weapons]
    s = _until(runner, s, "air")
    dice["faces"] = [6]
    s = eng.apply(s, "use He111-1")
    assert any(x.startswith("AA fire: AA1 (soviet) at He111-1") for x in _steps(s))


def test_a_ground_attack_round_counts_the_defenders_defence_level_not_the_hexsides(dice):
    """16.3(2)2: on a ◆ the ground attack is a firing round (12.0) "but the
    hexside terrain's modifier does not count": the defender's counter takes
    the defence level of its hex when higher than its armour (12.0(2)), the
    entrenchment of its own side counted, a river it is attacked across not.
    Pokrovka (0605, a town, 2, with a Soviet entrenchment, +1): a Ju 87
    (fire 4) hits a T-34 (armour 1) on 4 - 3 = 1 only; an attacker's
    counter takes its armour (12.0(2): the attacker has no defence level)."""
    runner, s = _game()
    air = runner.engine.dicepool.air
    s = _attack(runner, s, pools=("Ju87-1", "Il2-1"), attack=("LAH+PzIV1@0604",), defend=("52G+T34-1@0605",),
                target="0605")
    s = _until(runner, s, "air")
    p = s.pending[0]
    assert air.ground_test(s, p, "Ju87-1", "T34-1").text() == "◆ (1, or die + 3 <= 4)"
    assert air.ground_test(s, p, "Il2-1", "PzIV1").text() == "◆ (1, or die + 1 <= 3)"   # 0604: clear, the attacker
    # outside a battle: a German Panzer IV in Yakovlevo (0708, a town, 2; the entrenchment is Soviet)
    runner, s = _game()
    air = runner.engine.dicepool.air
    _stack(runner, s, "LAH+PzIV1", "0708")
    A.face_up(runner.game, s, ["LAH"])
    s.place("Il2-1", None, "pool:soviet-support")
    s.phase, s.active, s.step, s.activated, s.pending = "movement", "soviet", {}, set(), []
    air.open_window(s, "move", "Movement (8.0)")
    p = s.pending[0]
    assert p.get("window") and air.ground_test(s, p, "Il2-1", "PzIV1").text() == "◆ (1, or die + 2 <= 3)"
