"""Air combat between two rolls of a dice-pool battle (Prokhorovka 16.0(1):
航空兵装在满足条件时可以在任意时机使用; 16.0(3): the result applies at once,
then the resolution goes on).  After each fire step, firing round and the
tank support that rolled dice the air combat opens again when either side
has a mission to fly; the rolls already made stand.  The odds of what is
still to roll (``battle.rest``) are checked against brute force."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.combat.dicepool.battle import Pool, Weapon, phases, resolve, rest
from runtime.combat.dicepool.hits import HitTest, read_test
from runtime.combat.dicepool.odds import battle_odds
from test_dicepool import setup_of
from test_dicepool_air import _attack, _game, _legal, _steps, _until



class _More(Exception):
    pass


def _runs(setup, upto=None):
    """(probability, faces, outcome) of every sequence of faces."""
    out, stack = [], [()]
    while stack:
        prefix = stack.pop()
        i = 0

        def roll(_why):
            nonlocal i
            if i >= len(prefix):
                raise _More
            i += 1
            return prefix[i - 1]
        try:
            o = resolve(setup, roll, upto)
        except _More:
            stack.extend(prefix + (f,) for f in range(1, setup.sides + 1))
            continue
        out.append((Fraction(1, setup.sides ** len(prefix)), prefix, o))
    return out


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("AD"), st.integers(0, 2), st.integers(1, 6)), max_size=1),
       st.lists(st.tuples(st.integers(1, 6), st.integers(0, 3), st.integers(0, 2)), max_size=2),
       st.lists(st.tuples(st.integers(1, 6), st.integers(0, 3), st.integers(0, 2)), max_size=1),
       st.integers(0, 2), st.sampled_from(["●", "◆", "3"]), st.integers(0, 5), st.integers(0, 2),
       st.booleans())
def test_the_odds_between_two_rolls_match_brute_force(pools, aw, dw, level, support, k, bombs, neutralise):
    """For every way the first k phases can fall, and an air mission after
    them (bombing damage, a weapon neutralised), the exact odds of what is
    still to roll equal the enumeration of the rest of the battle."""
    ps = [Pool(f"p{i}", f"pool {i}", side, (("x", n),), HitTest("number", h)) for i, (side, n, h) in enumerate(pools)]
    ws = [Weapon(f"a{i}", "A", f, a, a, r if r != 0 else 1) for i, (f, a, r) in enumerate(aw)]
    ws += [Weapon(f"d{i}", "D", f, a, max(a, level), r if r != 1 else 2) for i, (f, a, r) in enumerate(dw)]
    pairs = [(f"a{i}", f"d{i}") for i in range(min(len(aw), len(dw)))]
    base = setup_of(ps, ws, pairs, support=(("A", read_test(support)), ("D", HitTest("auto"))), level=level,
                    target_level=level)
    k = min(k, len(phases(base)))
    target = ws[-1].id if ws and neutralise else ""
    events = ((k - 1, "damage", "A", "bomber", bombs),) + (((k - 1, "out", "D", target, 0),) if target else ())
    full = replace(base, events=events if k else ())
    groups: dict[tuple, list] = {}
    for p, faces, o in _runs(full):
        it = iter(faces)
        before = resolve(base, lambda _why: next(it), k)
        used = faces[:len(faces) - len(list(it))]
        groups.setdefault(used, []).append((p, o, before))
    for used, runs in groups.items():
        total = sum(p for p, _, _ in runs)
        win = sum((p for p, o, _ in runs if o.winner("A", "D") == "A"), Fraction(0)) / total
        tie = sum((p for p, o, _ in runs if o.winner("A", "D") == ""), Fraction(0)) / total
        before = runs[0][2]
        if k:
            before.damage["A"] += bombs
        odds = battle_odds(rest(base, k, before, {target} if target and k else set()))
        assert (odds.win["A"], odds.tie) == (win, tie), (used, k)


def test_a_bomber_flies_between_two_rolls_and_the_rolls_made_stand(dice):
    """No mission before the dice; after the normal fire step the Germans
    fly the He 111: 2 hits, allotted to the T-34, which then does not fire
    in the duel and whose armour does not count; the damage is on the
    German track."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1",), defend=("52G+T34-1@0505",))
    s = _until(runner, s, "air")
    assert "the air combat over 0505 waits for german" in eng.explain(s, "pair Tiger1 T34-1")
    dice["faces"] = [6, 6, 6, 6, 6, 6]      # LAH's normal fire (4 dice) and 52G's (2): no hit
    s = eng.apply(s, "done")                # no mission before the dice: the pairs (one), the first fire step
    p = s.pending[0]
    assert p["stage"] == "air" and p["side"] == "german" and p["rolled"] >= 1
    assert "the air combat over 0505 (after Normal combat (11.4)) waits for german" in \
        eng.explain(s, "pair Tiger1 T34-1")
    assert any(x.startswith("Normal combat (11.4): german 4 dice") for x in _steps(s))   # logged before the air
    dice["faces"] = [1, 2, 6]               # He 111: 2 hits
    s = eng.apply(s, "use He111-1")
    s = eng.apply(s, "use He111-1 T34-1")
    p = s.pending[0]
    assert p["neutral"] == [] and ["german", "He111-1", 2] not in p["track"]
    assert [e[1:] for e in p["mid"]] == [["damage", "german", "He111-1", 2], ["out", "soviet", "T34-1", 0]]
    dice["faces"] = [6] * 10
    s = _until(runner, s, "retreat") if s.pending[0]["stage"] != "retreat" else s
    steps = _steps(s)
    assert not any("T34-1 (soviet) fires" in x for x in steps)
    r = next(e for e in s.log if e.get("battle") == "0505" and "losses" in e)
    assert r["damage"]["german"] == 2
    assert all("armour of T34-1" not in x for x in steps)      # neutralised: its armour does not count


def test_a_ground_attack_between_two_firing_rounds(dice):
    """After the attacker's firing round (the Tiger misses), Rudel shoots the
    T-34 before it fires in the defender's round: hit, 1 damage; it fires
    no more and goes back to its cup when the battle is applied."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("Rudel",), defend=("52G+T34-1@0505",))
    s = _until(runner, s, "air")
    dice["faces"] = [6] * 6
    s = eng.apply(s, "done")                 # normal fire: no hit; a window (Rudel may fly)
    assert s.pending[0]["stage"] == "air"
    dice["faces"] = [6]                      # the attacker's round: the Tiger misses
    s = eng.apply(s, "done")                 # (the Soviets have nothing): back to the dice
    p = s.pending[0]
    assert p["stage"] == "air" and "Tiger1 (german) fires at T34-1" in " ".join(_steps(s))
    assert "(after Attacker's firing round" in eng.explain(s, "pair Tiger1 T34-1") or p["air"]["after"]
    s = eng.apply(s, "use Rudel")
    assert _legal(runner, s) == {"use Rudel T34-1", "done"}
    dice["faces"] = [1] + [6] * 10
    s = eng.apply(s, "use Rudel T34-1")      # no target left: the dice go on, to the end of the battle
    assert "ground attack: Rudel (german) at T34-1 (◆ (1, or die + 1 <= 4)): 1, hit: 1 damage, and it goes back " \
           "to its cup" in _steps(s)
    assert not any("T34-1 (soviet) fires" in x for x in _steps(s))
    assert s.units["T34-1"].box == "pool:soviet-tank-cup"
    r = next(e for e in s.log if e.get("battle") == "0505" and "losses" in e)
    assert r["damage"]["german"] == 1


def test_no_window_without_a_mission_keeps_the_battle_as_before(dice):
    """Without an aircraft in either support pool the dice roll straight on
    and the log is what it was: the lines after the dice."""
    runner, s = _game()
    dice["faces"] = [6] * 20
    s = _attack(runner, s, defend=("52G+T34-1@0505",))   # (no decision to make: the battle is fought at once)
    entries = [e for e in s.log if e.get("battle") == "0505" or "roll" in e]
    last_roll = max(i for i, e in enumerate(entries) if "roll" in e)
    first_line = min(i for i, e in enumerate(entries) if str(e.get("step", "")).startswith("Normal combat"))
    assert first_line > last_roll


def test_recon_turns_up_the_support_chits_the_enemy_allocated_face_down(dice):
    """16.1(6)3: recon turns up three equipment or support chits on the map
    (the catalogue: 将地图上合计三枚敌装备签或支援签翻至正面表示), not those in a
    pool (16.1(1)).  The Soviets allocate first; before the Germans allocate
    theirs, in their own turn, the Fw 189 may turn the Soviet chits up: the
    German view shows them, the Soviet one its own as ever."""
    from runtime.observe import UNKNOWN, observe
    runner, s = _game()
    eng, g = runner.engine, runner.game
    s = _attack(runner, s, pools=("Fw189", "SArty1", "Mines", "GArty1"))
    p = s.pending[0]
    assert p["stage"] == "support" and p["side"] == "soviet"
    s = eng.apply(s, "use SArty1")
    s = eng.apply(s, "use Mines")            # no Soviet chit left: the Germans' turn to allocate
    p = s.pending[0]
    assert p["stage"] == "air" and p["side"] == "german" and _legal(runner, s) == {"use Fw189", "done"}
    assert "(before its support chits, recon only)" in eng.explain(s, "use GArty1")
    assert observe(g, s, "german").pending[0]["chits"]["soviet"] == [UNKNOWN, UNKNOWN]   # still face down
    s = eng.apply(s, "use Fw189")
    assert _legal(runner, s) == {"use Fw189 #1", "use Fw189 #2", "done"}   # which is which: what recon finds out
    assert {str(a) for a in runner.engine.legal_actions(observe(g, s, "german"))} == _legal(runner, s)
    s = eng.apply(s, "use Fw189 #2")
    assert "Fw189 (german) turns soviet's support chit #2 in 0505 face up: Mines" in _steps(s)
    assert observe(g, s, "german").pending[0]["chits"]["soviet"] == [UNKNOWN, "Mines"]
    s = eng.apply(s, "done")                 # the rest stays face down; the Fw 189 goes back to its cup
    p = s.pending[0]
    assert p["stage"] == "support" and p["side"] == "german" and "use GArty1" in _legal(runner, s)
    assert observe(g, s, "german").pending[0]["chits"]["soviet"] == [UNKNOWN, "Mines"]
    assert s.units["Fw189"].box == "pool:german-support-cup"
    s = eng.apply(s, "done")                 # every chit face up (11.2(2))
    assert not s.pending or s.pending[0]["stage"] != "support"
    # in the Soviets' turn the Germans may not fly recon (16.1(1)3): no such window
    runner, s = _game()
    s = _attack(runner, s, pools=("Fw189", "GArty1", "SArty1"), attack=("52G@0504",),
                defend=("LAH+Tiger1@0505",), active="soviet")
    assert s.pending[0]["stage"] == "support" and s.pending[0]["side"] == "soviet"
    s = runner.engine.apply(s, "use SArty1")   # (no Soviet chit left)
    assert s.pending[0]["stage"] == "support" and s.pending[0]["side"] == "german"


def test_the_search_bot_decides_between_two_rolls_and_allots_bombing_hits(dice):
    """The search bot's look-ahead goes through an air combat between two
    rolls, the bombing allotment and the recon at chits face down."""
    from runtime.bots import make_bot
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1", "Fw189", "SArty1"), defend=("52G+KV1-1+T70-1@0505",))
    s = eng.apply(s, "use SArty1")           # the Germans may fly recon at it, face down
    assert s.pending[0]["stage"] == "air"
    a = make_bot("search:8", 1).choose(runner, s)
    assert a in runner.legal_actions(s)
    while s.pending and not (s.pending[0]["stage"] == "air" and "rolled" in s.pending[0]):
        legal = [str(x) for x in runner.legal_actions(s)]
        s = eng.apply(s, "done" if "done" in legal else legal[0])
    a = make_bot("search:8", 1).choose(runner, s)
    assert a in runner.legal_actions(s)
    dice["faces"] = [1, 2, 6]
    s = eng.apply(s, "use He111-1")
    assert s.pending[0]["stage"] == "air-target"
    a = make_bot("search:8", 1).choose(runner, s)
    assert a in runner.legal_actions(s)


def test_equipment_with_a_range_fights_on_in_its_own_battle_after_an_air_combat_between_two_rolls(dice):
    """11.2(1)3 bars equipment with a range that fought in *another* battle
    this combat phase; the mark its own battle makes as the dice begin must
    not take it out of that battle when the dice stop for an air combat
    (16.0(1)): the anti-tank gun paired with the Tiger still fires in the
    anti-tank round, is shot at, and its armour counts in the damage step."""
    runner, s = _game()
    eng = runner.engine
    s = _attack(runner, s, pools=("He111-1",), defend=("52G+PakFront1@0505",))
    s = _until(runner, s, "air")
    s = eng.apply(s, "done")                # no mission before the dice: the pair, the normal fire (all 6s)
    p = s.pending[0]
    assert p["stage"] == "air" and p["rolled"] >= 1
    assert ("Tiger1", "PakFront1") in eng.dicepool.setup(s, p).pairs
    while s.pending and s.pending[0].get("stage") == "air":
        s = eng.apply(s, "done")            # no mission: the dice go on (to the next stop)
    steps = _steps(s)
    assert "Anti-tank round: PakFront1 (soviet) fires at Tiger1 (◆ (1, or die + 2 <= 4)): 6, missed" in steps
    assert "Attacker's round: Tiger1 (german) fires at PakFront1 (◆ (1, or die + 1 <= 6)): 6, missed" in steps
    assert "damage: soviet 0 + 1 armour of PakFront1 = 1" in steps
    assert not any(x.startswith("tank support: Tiger1") for x in steps)
