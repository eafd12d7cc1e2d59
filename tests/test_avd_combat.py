"""A Victory Denied's combat on its CRT (shared/rules/a-victory-denied.zh.txt,
攻击阶段 3-4), scripted on tests/games/avd-combat: the German d6 and the
Soviet d10, odds rounded down, below 1-1 no attack, above 10-1 the 10-1
column (after the shifts), the turn-1 German two shifts, Timoshenko's
column, a Stuka's two columns (one per attack), terrain shifts."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from dsl.compiler import compile_game
from runtime.combat.odds import column_for, combat_odds
from runtime.runner import Runner
from runtime.state import new_state

GAME = Path(__file__).parent / "games" / "avd-combat"


@pytest.fixture(scope="module")
def runner():
    return Runner(compile_game(GAME), "duel")


def state(runner, turn=2, active="german", chit="", **at):
    s = new_state(runner.game, seed=1)
    s.turn, s.active, s.phase = turn, active, "combat"
    s.step = {"decision": "combat", **({"chit": chit} if chit else {})}
    for uid in list(s.units):
        s.place(uid, None, "removed")
    for uid, hid in at.items():
        s.place(uid, runner.board.parse(hid))
    return s


def odds(runner, s, attackers, target):
    return combat_odds(runner.game, runner.board, s, attackers, runner.board.parse(target), env=runner.env)


def test_the_german_rolls_a_d6_and_the_soviet_a_d10(runner):
    # 3.c: 德军投 d6 / 苏军投 d10
    s = state(runner, **{"4Pz": "0202", "28RD": "0203"})
    assert odds(runner, s, ["4Pz"], "0203").die.name == "d6"
    s = state(runner, active="soviet", **{"4Pz": "0202", "28RD": "0203", "1MRD": "0302"})
    rep = odds(runner, s, ["1MRD", "28RD"], "0202")
    assert rep.die.name == "d10" and set(rep.probabilities) <= set(runner.game.results["avd"])


def test_odds_round_down_and_below_1_1_there_is_no_attack(runner):
    # 4.b-c: the ratio rounded down (toward the defender); below 1-1 after the shifts: no attack
    crt = runner.game.crts["avd"]
    assert column_for(crt, 5, 2).column.label == "2-1"  # 2.5-1
    assert column_for(crt, 7, 4).column.label == "1.5-1"  # 1.75-1
    r = column_for(crt, 3, 4)
    assert r.column is None and "below 1-1" in r.reason
    s = state(runner, **{"31ID": "0303", "28RD": "0403"})  # 4 against 3 in the town: 1-1, 1 left: no attack
    rep = odds(runner, s, ["31ID"], "0403")
    assert not rep.legal and "below 1-1" in rep.validate


def test_above_10_1_the_10_1_column_after_the_shifts(runner):
    # 4.c: modified odds above 10-1 use 10-1 (clamp after shifts: 12-1 two left is 10-1, not 8-1)
    crt = runner.game.crts["avd"]
    assert column_for(crt, 12, 1, -2).column.label == "10+-1"
    assert column_for(crt, 11, 1, -2).column.label == "9-1"
    assert column_for(crt, 30, 1).column.label == "10+-1"


def test_turn_1_german_attacks_shift_two_right_and_timoshenko_one(runner):
    # 4.a.i, 4.a.x
    s = state(runner, turn=1, **{"4Pz": "0202", "28RD": "0203"})
    rep = odds(runner, s, ["4Pz"], "0203")  # 6-3 = 2-1, two right: 4-1
    assert rep.column.label == "4-1" and (2, "turn 1: all German attacks: 2 right") in rep.shifts
    s = state(runner, active="soviet", chit="Tim", **{"4Pz": "0202", "28RD": "0203", "1MRD": "0302"})
    rep = odds(runner, s, ["1MRD", "28RD"], "0202")  # 7-4 = 1.5-1, one right: 2-1
    assert rep.column.label == "2-1" and (1, "attack activated by Timoshenko: 1 right") in rep.shifts


def test_one_stuka_per_attack_two_columns(runner):
    # 4.a.viii-ix: two columns in the user's favour; one Stuka per attack
    e = runner.engine
    s = state(runner, **{"4Pz": "0202", "28RD": "0203"})
    for st_ in ("Stuka1", "Stuka2"):
        s.place(st_, None, "pool:airfields")
    s = e.apply(s, "attack 0203 with 4Pz")
    assert [str(a) for a in e.legal_actions(s)] == ["use stuka Stuka1", "use stuka Stuka2", "done"]
    s = e.apply(s, "use stuka Stuka1")
    entry = next(x for x in reversed(s.log) if x.get("action") == "attack 0203 with 4Pz")
    assert entry["column"] == "4-1"  # 2-1, two right
    assert s.units["Stuka1"].box == "pool:used-air" and s.units["Stuka2"].box == "pool:airfields"


@settings(max_examples=40, deadline=None)
@given(a=st.integers(1, 60), d=st.integers(1, 20), shift=st.integers(-4, 4))
def test_property_the_column_is_never_above_10_1_and_never_below_1_1(runner, a, d, shift):
    """Whatever the strengths and shifts: an allowed attack reads a printed
    column, and the column never falls as the attack grows."""
    crt = runner.game.crts["avd"]
    r = column_for(crt, a, d, shift)
    if r.column is not None:
        assert 0 <= r.index < len(crt.columns)
        bigger = column_for(crt, a + 1, d, shift)
        assert bigger.column is not None and bigger.index >= r.index
    else:
        assert Fraction(a, d) < 10 and "below 1-1" in r.reason
