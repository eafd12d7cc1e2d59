"""The commander's third choice (Prokhorovka 签一览, 指挥官 ①): a commander
that cancels nothing is kept, and once the battle's dice are rolled its side
may roll any one of them again; the battle is worked out again from the same
dice with that one replaced (``dice-pool { on-use commander { ... reroll-die } }``)."""
from __future__ import annotations


from runtime.combat.dicepool.battle import Weapon
from runtime.combat.dicepool.reroll import replay
from test_dicepool import setup_of


def _battle(dice, faces):
    from dsl.compiler import compile_game
    from helpers import ROOT
    from runtime.runner import Runner
    runner = Runner(compile_game(ROOT / "games" / "prokhorovka"))
    s = runner.new_game(1)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    b = runner.board
    s.place("LAH", b.parse("0504"))
    s.place("52G", b.parse("0505"))
    s.place("GCmdr1", None, "pool:german-support")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    eng = runner.engine
    s = eng.apply(eng.apply(s, "attack 0505 with LAH"), "done")
    dice["faces"] = list(faces)
    s = eng.apply(s, "use GCmdr1")   # nothing for the commander to cancel: it is kept; the dice
    return runner, s


def test_a_kept_commander_rolls_one_die_of_the_battle_again(dice):
    # LAH: 4 dice on 3 or less (clear): 6,6,6,6; 52G: 2 dice on 2 or less: 1,1
    runner, s = _battle(dice, [6, 6, 6, 6, 1, 1])
    eng = runner.engine
    p = s.pending[0]
    assert p["stage"] == "reroll" and p["side"] == "german"
    assert [f for _, f in p["dice"]] == [6, 6, 6, 6, 1, 1]
    legal = {str(a) for a in eng.legal_actions(s)}
    assert legal == {f"use GCmdr1 {i}" for i in range(1, 7)} | {"done"}
    assert eng.dicepool.rerolls.label(p, "5") == "Normal combat (11.4): soviet (it showed 1)"
    assert str(eng.default_action(s)) in ("use GCmdr1 5", "use GCmdr1 6")   # a Soviet hit: 4 in 6 to undo it
    dice["faces"] = [6]
    s = eng.apply(s, "use GCmdr1 5")
    steps = [e["step"] for e in s.log if "step" in e]
    assert "GCmdr1 (german) rolls again Normal combat (11.4): soviet: 1, now 6" in steps
    r = next(e for e in s.log if e.get("battle") == "0505" and "losses" in e)
    assert r["damage"] == {"german": 0, "soviet": 1} and r["losses"]["german"] == 1
    assert s.units["GCmdr1"].box == "pool:german-support-cup"


def test_a_commander_that_cancels_is_not_kept(dice):
    from dsl.compiler import compile_game
    from helpers import ROOT
    from runtime import attachments as A
    from runtime.runner import Runner
    runner = Runner(compile_game(ROOT / "games" / "prokhorovka"))
    s = runner.new_game(1)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    b = runner.board
    s.place("LAH", b.parse("0504"))
    s.place("52G", b.parse("0505"))
    A.attach(runner.game, s, "T34-1", "52G")
    s.place("GCmdr1", None, "pool:german-support")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    eng = runner.engine
    s = eng.apply(eng.apply(s, "attack 0505 with LAH"), "done")
    s = eng.apply(s, "done")   # the Soviets' equipment: all of it fights (11.2(1))
    s = eng.apply(s, "use GCmdr1")
    assert s.pending[0]["stage"] == "cancel"
    s = eng.apply(s, "use GCmdr1 T34-1")
    assert not s.pending or s.pending[0].get("stage") != "reroll"


def test_replay_drops_the_shots_that_no_longer_happen_and_rolls_the_new_ones():
    w = [Weapon("Tiger", "A", 6, 2, 2, 1), Weapon("KV1", "D", 3, 2, 2, 2)]
    st = setup_of(weapons=w, pairs=[("Tiger", "KV1")])
    fresh = []
    out, used = replay(st, [], lambda why: fresh.append(why) or 2)   # Tiger hits (2 + 2 <= 6): KV1 never fires
    assert out.destroyed == ["KV1"] and len(used) == 1
    used[0][1] = 6                                                   # rolled again: 6 misses; KV1 fires now
    out, used2 = replay(st, used, lambda why: fresh.append(why) or 1)
    assert out.destroyed == ["Tiger"] and [f for _, f in used2] == [6, 1]
    assert fresh[-1].endswith("KV1 at Tiger")


def _molotov(dice, faces, commander="GCmdr1"):
    """LAH with a Tiger attacks 52G; the Soviets use a Molotov cocktail, and
    a commander that cancels nothing is kept (签一览 ①: any roll).  The dice
    show ``faces`` from the Molotov's on (6 after them)."""
    from dsl.compiler import compile_game
    from helpers import ROOT
    from runtime import attachments as A
    from runtime.runner import Runner
    runner = Runner(compile_game(ROOT / "games" / "prokhorovka"))
    s = runner.new_game(1)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    b = runner.board
    s.place("LAH", b.parse("0504"))
    s.place("52G", b.parse("0505"))
    A.attach(runner.game, s, "Tiger1", "LAH")
    s.place("Molotov", None, "pool:soviet-support")
    side = runner.game.counters[commander].side
    s.place(commander, None, f"pool:{side}-support")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    eng = runner.engine
    dice["faces"] = list(faces)
    s = eng.apply(eng.apply(s, "attack 0505 with LAH"), "done")
    s = eng.apply(s, "done")  # the Germans' equipment: the Tiger fights
    s = eng.apply(s, "use Molotov")
    if side == "soviet":
        s = eng.apply(s, f"use {commander}")
    for who in ("soviet", "german"):
        if who == side == "german":
            s = eng.apply(s, f"use {commander}")
        if s.pending[0]["stage"] == "support" and s.pending[0]["side"] == who:
            s = eng.apply(s, "done")
    while s.pending[0]["stage"] == "cancel":  # the commander cancels nothing: it is kept
        s = eng.apply(s, "done")
    return runner, s


def test_a_kept_commander_may_roll_a_molotovs_die_again(dice):
    """签一览 指挥官 ①: 任何掷骰时 (at any roll): the German commander rolls
    again the Molotov's hit on the Tiger (1, now 6: missed); then it is used
    and rolls no die of the battle again."""
    runner, s = _molotov(dice, [1, 6])
    eng = runner.engine
    p = s.pending[0]
    assert p["stage"] == "strike-reroll" and p["side"] == "german"
    assert eng.dicepool.struck(p)[1:] == ("Molotov", "Tiger1", 1, True)
    assert {str(a) for a in eng.legal_actions(s)} == {"use GCmdr1 1", "done"}
    assert str(eng.default_action(s)) == "use GCmdr1 1"  # a hit on its own Tiger: roll it again
    s = eng.apply(s, "use GCmdr1 1")
    steps = [e["step"] for e in s.log if "step" in e]
    assert "GCmdr1 (german) rolls again Molotov's die at Tiger1: 1, now 6" in steps
    assert "Molotov (soviet) at Tiger1: 6, missed" in steps
    assert not any(e.get("stage") == "reroll" for e in s.pending)
    assert not any("the dice:" in x and "before any roll again" in x for x in steps)  # no second roll again
    assert s.units["Tiger1"].box == "under:LAH" and s.units["Molotov"].box == "pool:soviet-support-cup"


def test_a_commander_keeps_a_molotovs_die_that_went_its_way(dice):
    runner, s = _molotov(dice, [4])  # the Molotov misses
    eng = runner.engine
    assert s.pending[0]["stage"] == "strike-reroll" and str(eng.default_action(s)) == "done"
    s = eng.apply(s, "done")
    steps = [e["step"] for e in s.log if "step" in e]
    assert "Molotov (soviet) at Tiger1: 4, missed" in steps
    assert s.pending[0]["stage"] == "reroll" and s.pending[0]["reroll"] == [["german", "GCmdr1"]]  # still kept


def test_the_soviet_commander_may_roll_its_own_molotovs_miss_again(dice):
    runner, s = _molotov(dice, [5, 2], commander="SCmdr")
    eng = runner.engine
    p = s.pending[0]
    assert p["stage"] == "strike-reroll" and p["side"] == "soviet"
    assert str(eng.default_action(s)) == "use SCmdr 1"
    s = eng.apply(s, "use SCmdr 1")
    steps = [e["step"] for e in s.log if "step" in e]
    assert "Molotov (soviet) at Tiger1: 2, destroyed; Molotov leaves the game" in steps
    assert s.units["Tiger1"].box == "pool:german-tank-cup"
