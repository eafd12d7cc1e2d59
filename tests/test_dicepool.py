"""Dice-pool battles (Prokhorovka 11.0, 12.0): the battle machine step by
step against the rulebook's examples, and the exact odds against a
brute-force enumeration of every die face the machine can roll."""
from __future__ import annotations

from fractions import Fraction

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
