"""Dice-pool battles (Prokhorovka 11.0, 12.0): the battle machine step by
step against the rulebook's examples, and the exact odds against a
brute-force enumeration of every die face the machine can roll."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from runtime.combat.dicepool.battle import Pool, Setup, Weapon, resolve
from runtime.combat.dicepool.hits import HitTest, firing_round, hits_distribution, read_test
from runtime.combat.dicepool.odds import battle_odds


class _More(Exception):
    pass


def enumerate_battle(setup: Setup):
    """Every sequence of faces the machine asks for, with its probability,
    and the outcome: (probability, outcome)."""
    out = []
    stack = [()]
    while stack:
        prefix = stack.pop()
        i = 0

        def roll(_purpose):
            nonlocal i
            if i >= len(prefix):
                raise _More
            i += 1
            return prefix[i - 1]
        try:
            o = resolve(setup, roll)
        except _More:
            stack.extend(prefix + (f,) for f in range(1, setup.sides + 1))
            continue
        assert i == len(prefix)
        out.append((Fraction(1, setup.sides ** len(prefix)), o))
    return out


def scripted(faces):
    it = iter(faces)
    return lambda _purpose: next(it)


def setup_of(pools=(), weapons=(), pairs=(), support=(("A", HitTest("number", 3)), ("D", HitTest("auto"))),
             armour=(), level=0, target_level=0, rounds=("anti-tank", "attacker", "defender")):
    return Setup("A", "D", tuple(pools), tuple(weapons), tuple(rounds), tuple(pairs), tuple(support),
                 tuple(armour), level, target_level)


def test_hit_tests_read_chart_cells_and_a_1_always_hits():
    assert read_test("3") == HitTest("number", 3)
    assert read_test("●").kind == "auto" and read_test("◆").kind == "round"
    assert read_test("-") is None
    # 12.0 example: a Tiger (fire 6) at a KV-1 (armour 2) in an entrenched town across a river:
    # defence level 2 + 1 + 1 = 4 beats the armour 2; hits on 6 - 4 = 2 or less
    t = firing_round(6, max(2, 2 + 1 + 1))
    assert [d for d in range(1, 7) if t.hits(d)] == [1, 2]
    # a hit number of 0 or less still hits on a 1
    assert [d for d in range(1, 7) if firing_round(2, 5).hits(d)] == [1]
    assert hits_distribution([HitTest("number", 2)] * 2) == {0: Fraction(4, 9), 1: Fraction(4, 9),
                                                             2: Fraction(1, 9)}


def test_fire_steps_score_on_the_track_and_the_higher_total_wins():
    pools = [Pool("art", "Artillery", "A", (("Arty", 3),), HitTest("number", 3)),
             Pool("art", "Artillery", "D", (("Guns", 2),), HitTest("number", 2)),
             Pool("normal", "Normal combat", "A", (("LAH", 3),), HitTest("number", 3)),
             Pool("normal", "Normal combat", "D", (("18TK", 2),), HitTest("number", 2))]
    s = setup_of(pools, level=2)
    o = resolve(s, scripted([1, 2, 6, 5, 1, 3, 4, 5, 6, 6]))
    assert o.damage == {"A": 3, "D": 1}
    assert o.total("A") == 3 and o.total("D") == 3  # the defender's level 2
    assert o.winner("A", "D") == ""                  # a tie: both lose the other's track
    assert o.losses("A", "D") == {"A": 1, "D": 3}
    o = resolve(s, scripted([1, 2, 3, 5, 1, 3, 4, 5, 6, 6]))
    assert o.winner("A", "D") == "A" and o.losses("A", "D") == {"A": 0, "D": 4}


def test_tank_duel_rounds_destroyed_weapons_do_not_fire_and_armour_counts():
    # the defender's anti-tank gun fires first (round 0), then the attacker's tank, then the defender's tank
    w = [Weapon("Tiger", "A", 6, 2, 2, 1), Weapon("PzIV", "A", 4, 1, 1, 1),
         Weapon("Pak", "D", 4, 1, 2, 0), Weapon("KV1", "D", 3, 2, 2, 2)]
    s = setup_of(weapons=w, pairs=[("Tiger", "KV1"), ("PzIV", "Pak")])
    # round 0: Pak at PzIV: 4 + 1 > 4 miss... 1 always hits -> PzIV destroyed, so it never fires
    o = resolve(s, scripted([1, 5, 6]))
    # round 1: Tiger at KV1 (guard 2): 5 + 2 > 6 miss; round 2: KV1 at Tiger: 6 miss
    assert o.destroyed == ["PzIV"]
    assert o.damage == {"A": 0, "D": 0}
    assert o.bonus == {"A": [("armour of Tiger", 2)], "D": [("armour of KV1", 2)]}
    o = resolve(s, scripted([6, 4, 2]))  # Pak misses; Tiger hits KV1 (4 + 2 <= 6); PzIV hits Pak (2 + 2 <= 4)
    assert sorted(o.destroyed) == ["KV1", "Pak"]
    assert o.bonus["D"] == [] and o.winner("A", "D") == "A"


def test_unpaired_weapons_give_tank_support_on_their_sides_test():
    w = [Weapon("T1", "A", 4, 1, 1, 1), Weapon("T2", "A", 5, 0, 0, 1), Weapon("K", "D", 3, 2, 2, 2)]
    s = setup_of(weapons=w, pairs=[("T1", "K")], support=(("A", HitTest("round")), ("D", HitTest("auto"))),
                 target_level=2)
    # duel: T1 at K: 6 miss; K at T1: 6 miss; support T2 (◆: 1 or die + 2 <= 5): 3 hits
    o = resolve(s, scripted([6, 6, 3]))
    assert o.damage == {"A": 1, "D": 0}


def _check_against_enumeration(s: Setup):
    odds = battle_odds(s)
    runs = enumerate_battle(s)
    assert sum(p for p, _ in runs) == 1
    win = {"A": Fraction(0), "D": Fraction(0), "": Fraction(0)}
    dmg = {"A": {}, "D": {}}
    for p, o in runs:
        win[o.winner("A", "D")] += p
        for side in "AD":
            dmg[side][o.damage[side]] = dmg[side].get(o.damage[side], 0) + p
    assert odds.win["A"] == win["A"] and odds.win["D"] == win["D"] and odds.tie == win[""]
    for side in "AD":
        assert odds.damage[side] == dict(sorted(dmg[side].items()))
        assert sum(odds.totals[side].values()) == 1


def test_exact_odds_match_brute_force_enumeration():
    pools = [Pool("art", "Artillery", "A", (("Arty", 1),), HitTest("number", 3)),
             Pool("normal", "Normal combat", "D", (("18TK", 2),), HitTest("number", 2))]
    w = [Weapon("Tiger", "A", 6, 2, 2, 1), Weapon("PzIV", "A", 4, 1, 1, 1), Weapon("Pak", "D", 4, 1, 2, 0)]
    s = setup_of(pools, w, [("Tiger", "Pak")], support=(("A", HitTest("round")), ("D", HitTest("auto"))),
                 armour=[("Wespe", "A", 1)], level=1, target_level=2)
    _check_against_enumeration(s)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("AD"), st.integers(0, 2), st.integers(1, 6)), max_size=2),
       st.lists(st.tuples(st.integers(1, 6), st.integers(0, 3), st.integers(0, 2)), max_size=2),
       st.lists(st.tuples(st.integers(1, 6), st.integers(0, 3), st.integers(0, 2)), max_size=1),
       st.integers(0, 3), st.sampled_from(["●", "◆", "3"]))
def test_exact_odds_match_enumeration_for_random_small_battles(pools, aw, dw, level, support):
    ps = [Pool(f"p{i}", f"pool {i}", side, (("x", n),), HitTest("number", k)) for i, (side, n, k) in enumerate(pools)]
    ws = [Weapon(f"a{i}", "A", f, a, a, r if r != 0 else 1) for i, (f, a, r) in enumerate(aw)]
    ws += [Weapon(f"d{i}", "D", f, a, max(a, level), r if r != 1 else 2) for i, (f, a, r) in enumerate(dw)]
    pairs = [(f"a{i}", f"d{i}") for i in range(min(len(aw), len(dw)))]
    s = setup_of(ps, ws, pairs, support=(("A", read_test(support)), ("D", HitTest("auto"))), level=level,
                 target_level=level)
    _check_against_enumeration(s)


# ---------------------------------------------------------------- in the engine (docs/examples/prokhorovka)

def _battle_state(seed=0):
    from dsl.compiler import compile_game
    from runtime.runner import Runner
    from helpers import ROOT
    game = compile_game(ROOT / "docs" / "examples" / "prokhorovka")
    runner = Runner(game)
    s = runner.new_game(seed)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    from runtime import attachments as A
    b = runner.board
    for uid, h in (("LAH", "0303"), ("29TK", "0304")):
        s.place(uid, b.parse(h))
    for aid, host in (("Tiger", "LAH"), ("PzIV", "LAH"), ("KV1", "29TK"), ("T34", "29TK")):
        A.attach(game, s, aid, host)   # equipment chits under their units (2.12)
    s.place("Arty", None, "pool:german-support")
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    return runner, s


def test_the_engine_runs_a_battle_through_its_decisions():
    runner, s = _battle_state()
    eng = runner.engine
    assert "attack 0304 with LAH" in {str(a) for a in eng.legal_actions(s)}
    s = eng.apply(s, "attack 0304 with LAH")   # its equipment comes with it
    p = s.pending[0]
    # the Soviet side declares first but has no support chit: the German side allocates
    assert p["kind"] == "dice-pool" and p["stage"] == "support" and p["side"] == "german"
    assert [str(a) for a in eng.legal_actions(s)] == ["use Arty", "done"]
    s = eng.apply(s, "use Arty")   # its only chit: nothing is left to choose, the battle moves on
    # the German side pairs the tank duel (3.7): two weapons a side, four ways to start
    assert s.pending[0]["stage"] == "pairs"
    assert {str(a) for a in eng.legal_actions(s)} == {"pair Tiger KV1", "pair Tiger T34", "pair PzIV KV1",
                                                      "pair PzIV T34"}
    err = eng.explain(s, "pair KV1 Tiger")
    assert "german pairs the tank weapons in 0304" in err
    s = eng.apply(s, "pair Tiger KV1")   # PzIV against T34 follows: the only pair left
    rolled = [e for e in s.log if e.get("battle") == "0304" and "damage" in e]
    assert len(rolled) == 1
    r = rolled[0]
    assert any("Artillery (11.3): german 3 dice" in e.get("step", "") for e in s.log)
    assert s.units["Arty"].box == "pool:german-support-cup"   # used chits go back to the cup
    assert r["losses"] == {"german": 0 if r["winner"] == "german" else r["damage"]["soviet"],
                           "soviet": 0 if r["winner"] == "soviet" else r["damage"]["german"]}
    # a duel weapon that was hit went back to its cup (3.5(7))
    for wid, cup in (("Tiger", "german-tank-cup"), ("PzIV", "german-tank-cup"), ("KV1", "soviet-tank-cup"),
                     ("T34", "soviet-tank-cup")):
        assert s.units[wid].box in (f"under:{'LAH' if wid in ('Tiger', 'PzIV') else '29TK'}", f"pool:{cup}")


def test_a_loser_may_retreat_to_halve_its_losses():
    for seed in range(40):
        runner, s = _battle_state(seed)
        eng = runner.engine
        s = eng.apply(s, "attack 0304 with LAH")
        s = eng.apply(s, "done")
        s = eng.apply(s, "pair Tiger KV1")
        if s.pending and s.pending[0]["kind"] == "dice-pool" and s.pending[0]["stage"] == "retreat":
            p = s.pending[0]
            side, n = p["side"], p["losses"][p["side"]]
            assert [str(a) for a in eng.legal_actions(s)] == ["hold", "done"]
            assert f"'done' retreats one hex and loses {n // 2}" in eng.explain(s, "pair Tiger KV1")
            s = eng.apply(s, "done")
            nxt = s.pending[0] if s.pending else {}
            while nxt.get("kind") == "dice-pool":   # the other side's choice
                s = eng.apply(s, "hold")
                nxt = s.pending[0] if s.pending else {}
            losses = [e for e in s.pending if e["kind"] == "loss" and e["side"] == side]
            assert not losses or losses[0]["steps"] == n // 2
            return
    raise AssertionError("no seed gave a loss of 2 or more")


def test_check_locates_errors_in_the_dice_pool_block(tmp_path, capfd):
    import shutil
    from editor.cli import main
    from helpers import ROOT
    folder = tmp_path / "prokhorovka"
    shutil.copytree(ROOT / "docs" / "examples" / "prokhorovka", folder)
    rules = (folder / "game.hxr").read_text(encoding="utf-8")
    rules = rules.replace("    factor artillery\n", "    factor artilery\n").replace(
        "hit attacker column normal\n", "hit attacker column normall\n").replace(
        "    round defender \"Defender's round\" { side defender }\n", "    round defender \"Defender's round\" { side defence }\n")
    (folder / "game.hxr").write_text(rules, encoding="utf-8")
    assert main(["check", str(folder)]) != 0
    err = capfd.readouterr().err
    lines = rules.splitlines()
    at = {k: next(i + 1 for i, line in enumerate(lines) if k in line) for k in ("artilery", "normall", "defence }")}
    assert f"game.hxr:{at['artilery']}:12: error: no unit class prints a factor 'artilery'" in err
    assert f"game.hxr:{at['normall']}:25: error: the terrain effects chart has no column 'normall'" in err
    assert f"game.hxr:{at['defence }']}" in err and "'defence' is not a role (attacker or defender)" in err


def test_a_position_raises_the_defence_level_and_lowers_the_hit_number():
    from runtime import attachments as A
    runner, s = _battle_state()
    eng = runner.engine
    target = runner.board.parse("0304")   # a town (level 2) with an entrenchment (+1)
    assert eng.dicepool.preview(s, ["LAH"], target).level == 3
    s.place("Bunker", None, "pool:soviet-equip-cup")
    A.attach(runner.game, s, "Bunker", "29TK")
    st = eng.dicepool.preview(s, ["LAH"], target)
    assert st.level == 4   # 17.2 example: bunker 3 + entrenchment 1
    art = next(p for p in st.pools if p.step == "bombardment" and p.side == "german")
    assert art.test.kind == "number" and art.test.value == 1   # a bunker: artillery hits on 1
    normal = next(p for p in st.pools if p.step == "normal-combat" and p.side == "german")
    assert normal.test.value == 2   # the town's number: no MG nest here


def test_hexforge_battle_prints_a_dice_pool_battles_exact_odds(capsys):
    from editor.cli import main
    from helpers import ROOT
    game = str(ROOT / "games" / "prokhorovka")
    assert main(["battle", game, "--hex", "0609", "--attack", "167ID@0610,LAH+Tiger1+Panther1@0710",
                 "--defend", "52G+PakFront2", "--support", "GArty1,SArty1"]) == 0
    out = capsys.readouterr().out
    assert "Artillery (11.3): german 3 dice (GArty1 3), hit on 2 or less" in out
    assert "duel: Tiger1 against PakFront2" in out and "tank support: Panther1 (german)" in out
    assert "German wins 41.8%, Soviet wins 37.5%, tie (both lose) 20.7%" in out
    assert "(Air combat (16.0): the air missions are not in these figures;" in out
    assert main(["battle", game, "--hex", "0609", "--attack", "LAH+Tiger1+Panther1+PzIV1+PzIV2@0710",
                 "--defend", "52G"]) == 1
    assert "LAH cannot carry PzIV2" in capsys.readouterr().err


@pytest.mark.parametrize("extra, says", [
    (["--near", "LAH@0810"], "--near: LAH is named twice (--attack too)"),  # (was an IndexError)
    (["--near", "52G@0810"], "--near: 52G is named twice (--defend too)"),
    (["--near", "DR+Tiger1@0810"], "--near DR+Tiger1@0810: Tiger1 is named twice (--attack too)"),
    (["--support", "Panther1"], "--support: Panther1 is equipment a unit carries, not a support chit"),
    (["--support", "DR"], "--support: DR is one of the scenario's units, not a support chit"),
    (["--support", "SMelee,SMelee"], "--support: SMelee is named twice (--support too)"),
    (["--support", "Ju87-1"], "--support: Ju87-1 is an aircraft: air missions are not in these odds"),
    (["--near", "DR@0810", "--disrupted", "DR"], "--disrupted: DR is not in the battle (--near stacks support it"),
])
def test_hexforge_battle_refuses_a_set_up_no_battle_could_have(capsys, extra, says):
    """Each counter is in the battle once, in one role: the odds of a set-up
    that names one twice, or a unit or equipment as a support chit, were
    printed as if it could be."""
    from editor.cli import main
    from helpers import ROOT
    base = ["battle", str(ROOT / "games" / "prokhorovka"), "--hex", "0609", "--attack", "LAH+Tiger1@0710", "--defend",
            "52G"]
    assert main(base + extra) == 1
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err, err
    assert main(base + ["--disrupted", "LAH", "--support", "GArty1"]) == 0  # an attacker stands beside the hex
    assert "German wins" in capsys.readouterr().out


def test_a_dice_pool_attack_with_no_attackers_is_refused():
    """Battles are declared before they are fought: an attack with no units
    was taken, the hex marked attacked (its real attack then refused) and
    the save written with a text that did not read back."""
    from dsl.compiler import compile_game
    from runtime.actions import Attack, IllegalActionError
    from runtime.bots import make_bot
    from runtime.runner import Runner
    from helpers import GAMES
    r = Runner(compile_game(GAMES / "prokhorovka"))
    s, bot = r.new_game(1), make_bot("random", 1)
    while not (s.phase == "combat" and not s.pending and any(isinstance(a, Attack) for a in r.legal_actions(s))):
        s = r.apply(s, bot.choose(r, s))
    attack = next(a for a in r.legal_actions(s) if isinstance(a, Attack))
    for empty in (Attack(attack.target, ()), f"attack {attack.target} with ,"):
        with pytest.raises(IllegalActionError, match=f"no units attack {attack.target}"):
            r.apply(s, empty)
    r.apply(s, attack)  # (the hex is not spoilt)
