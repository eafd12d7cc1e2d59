"""CRT results that run effects (docs/dsl.md §4.8: ``results { on CODE {
... } }`` with ``join`` and ``reroll``) and the stacking limits ``hq N`` and
``limit N SELECTOR...`` (§4.19), on A Victory Denied's cases
(shared/rules/a-victory-denied.zh.txt): 攻击阶段 3.c.ii-iii, row 10 "RED"
(a modified 10 draws an elite unit from the cup into an attacking stack, the
odds are worked out again and the die rolled again; row 9 when stacking
forbids it), and 移动阶段 2 (two units and one HQ a hex; two Soviet brown
units may not stack); on tests/games/avd-combat."""
from __future__ import annotations

from pathlib import Path

import pytest

from dsl.compiler import check_game, compile_game
from runtime.runner import Runner
from runtime.stacking import stacking_bars
from runtime.state import new_state

from helpers import MINI_GAME, make_game

GAME = Path(__file__).parent / "games" / "avd-combat"


@pytest.fixture(scope="module")
def runner():
    return Runner(compile_game(GAME), "duel")


def board(runner, seed=0, cup=("2MRD", "3MRD"), **at):
    """A Soviet combat segment with only the units named on the map and
    ``cup`` in the elite cup."""
    s = new_state(runner.game, seed=seed)
    s.turn, s.active, s.phase = 2, "soviet", "combat"
    s.step = {"decision": "combat"}
    for uid in list(s.units):
        s.place(uid, None, "removed")
    for uid in cup:
        s.place(uid, None, "pool:elite-cup")
    for uid, hid in at.items():
        s.place(uid, runner.board.parse(hid))
    return s


def attack(runner, s, text):
    s = runner.engine.apply(s, text)
    while s.pending and s.pending[0]["kind"] == "declare":  # no reserve guns
        s = runner.engine.apply(s, "done")
    return s


def first_red(runner, cup, **at):
    """The first seed whose attack rolls a 10 (RED), and the state after it."""
    for seed in range(300):
        s = attack(runner, board(runner, seed, cup, **at), "attack 0403 with " + ",".join(
            sorted(u for u in at if u not in ("31ID",) and runner.game.counters[u].side == "soviet"
                   and u not in cup)))
        if any(e.get("result") == "RED" for e in s.log):
            return s
    pytest.fail("no seed rolled a 10")


# ------------------------------------------------------------------ RED

def test_red_draws_an_elite_unit_into_the_attack_and_rolls_again(runner):
    # 28RD (3) and 1MRD (4) attack 31ID (4) in the town: 7-4, 1.5-1, the town 1 left: 1-1
    s = first_red(runner, ("2MRD", "3MRD"), **{"28RD": "0402", "1MRD": "0404", "31ID": "0403"})
    i = next(i for i, e in enumerate(s.log) if e.get("result") == "RED")
    assert s.log[i]["action"] == "attack 0403 with 1MRD,28RD" and s.log[i]["die"] == 10
    joined = next(e for e in s.log[i:] if "joins the attack" in str(e.get("effect", "")))
    uid = joined["effect"].split()[0]
    assert uid in ("2MRD", "3MRD") and s.units[uid].hex in (runner.board.parse("0402"), runner.board.parse("0404"))
    again = next(e for e in s.log[i:] if "reroll" in e)
    assert again["attackers"] == ["1MRD", "28RD", uid] and again["odds"] == "11-4"  # the odds worked out again
    assert again["column"] in ("1.5-1", "1-1") or again["result"]
    # the reroll is not a second action: a replay applies the attack once
    assert sum(1 for e in s.log if e.get("action", "").startswith("attack 0403")) == 1


def test_red_reads_row_9_when_no_unit_can_stack(runner):
    # the cup holds only a brown unit: it may not stack with 28RD (brown), and 1MRD's hex is full
    s = first_red(runner, ("29RD",), **{"28RD": "0402", "1MRD": "0404", "3MRD": "0404", "31ID": "0403"})
    i = next(i for i, e in enumerate(s.log) if e.get("result") == "RED")
    assert any("no unit can join the attack on 0403: row 9 applies" in str(e.get("effect", "")) for e in s.log[i:])
    row = next(e for e in s.log[i:] if e.get("row") == 9)
    crt = runner.game.crts["avd"]
    col = [c.label for c in crt.columns].index(s.log[i]["column"])
    assert row["result"] == crt.rows[9][col]
    assert s.units["29RD"].box == "pool:elite-cup" and not any("reroll" in e for e in s.log)


def test_result_effects_are_checked(tmp_path):
    game = MINI_GAME.replace("    1R    0         1         1\n  }", "    1R    0         1         1\n  }\n"
                             "  on 1R { join 1 all from 0101 else-row 12; reroll }\n  on 2R { reroll }")
    _, diags, _ = check_game(make_game(tmp_path, game))
    errs = [d.format() for d in diags.errors]
    assert any("results std has no code '2R'" in e for e in errs), errs
    assert any("else-row 12: crt std has no row 12" in e for e in errs), errs
    game2 = MINI_GAME + 'event e "E" { do { reroll } }\n'
    _, diags, _ = check_game(make_game(tmp_path / "b", game2))
    assert any("'reroll' is a combat result's effect" in d.format() for d in diags.errors)


# ------------------------------------------------------------------ stacking

def test_two_units_and_one_hq_a_hex(runner):
    s = board(runner, **{"1MRD": "0202", "3MRD": "0202", "Tim": "0202", "2MRD": "0302", "13A": "0303"})
    g = runner.game
    h = runner.board.parse("0202")
    assert stacking_bars(g, s, h, "2MRD") == "2MRD would make 3 units in 0202; the stacking limit is 2"
    assert stacking_bars(g, s, h, "13A") == "13A would make 2 HQ units in 0202; the stacking limit is 1"
    s.place("Tim", runner.board.parse("0101"))
    assert stacking_bars(g, s, h, "13A") == ""  # an HQ does not count among the 2 units


def test_an_empty_hex_bars_a_unit_only_where_a_limit_bars_it_alone(runner):
    # (stacking_bars answers an empty hex from the counter alone: the placements ask it of whole maps)
    import dataclasses
    s = board(runner, **{"1MRD": "0202"})
    h = runner.board.parse("0303")
    g = runner.game
    assert stacking_bars(g, s, h, "2MRD") == stacking_bars(g, s, h, "13A") == ""
    none = dataclasses.replace(g, stacking={**g.stacking, "units": 0})
    assert stacking_bars(none, s, h, "2MRD") == "2MRD would make 1 units in 0303; the stacking limit is 0"
    assert stacking_bars(none, s, h, "13A") == ""  # (exempt: an HQ counts only toward its own limit)
    no_hq = dataclasses.replace(g, stacking={**g.stacking, "hq": 0})
    assert stacking_bars(no_hq, s, h, "13A") == "13A would make 1 HQ units in 0303; the stacking limit is 0"
    assert stacking_bars(no_hq, s, h, "2MRD") == ""


def test_two_brown_units_may_not_stack(runner):
    s = board(runner, **{"28RD": "0202", "29RD": "0302"})
    s.phase, s.step = "movement", {"decision": "movement"}
    why = runner.engine.explain(s, "move 29RD 0202")
    assert why == "29RD cannot end its move in 0202: 29RD would make 2 brown units in 0202; the stacking limit is 1"
    s.place("1MRD", runner.board.parse("0303"))
    assert "move 1MRD 0202" in [str(a) for a in runner.engine.legal_actions(s)]  # brown and red stack


def test_a_retreat_does_not_end_over_the_hq_limit(runner):
    from runtime.retreat import retreat_paths
    s = board(runner, **{"Tim": "0303", "13A": "0304", "31ID": "0404"})
    for path in retreat_paths(runner.game, runner.board, s, "13A", 1, "german"):
        assert path.destroyed or path.end != runner.board.parse("0303")


def test_setup_and_declarations_are_checked(tmp_path):
    extra = "stacking { units 2; hq 1; limit 1 tank }\n"
    game = MINI_GAME.replace("      B1       0403", "      B1       0403\n      A2       0101").replace(
        "      A2       start\n", "")
    _, diags, _ = check_game(make_game(tmp_path, game + extra.replace("hq 1; ", "")))
    assert not diags.errors, [d.format() for d in diags.errors]
    game3 = game.replace("      A1       0101\n", "      A1       0102\n")
    _, diags, _ = check_game(make_game(tmp_path / "c", game3 + extra.replace("hq 1; ", "").replace(
        "limit 1 tank", "limit 0 tank")))
    assert any("hex 0101 holds 1 tank units at setup; the stacking limit is 0" in d.format() for d in diags.errors)
    _, diags, _ = check_game(make_game(tmp_path / "d", game + extra))
    assert any("the stacking limit 'hq' counts units whose class has the flag hq" in d.format()
               for d in diags.errors)
    _, diags, _ = check_game(make_game(tmp_path / "e", game + "stacking { units 2; limit 1 tnak }\n"))
    assert any("'tnak' is not a unit class" in d.format() and "tank" in d.format() for d in diags.errors)
    _, diags, _ = check_game(make_game(tmp_path / "f", game + "stacking { units 2; per-class 1 }\n"))
    assert any("the stacking limit 'per-class' is not used by any rule" in d.format() for d in diags.errors)


def test_greedy_games_with_red_and_stacking_replay_identically(runner):
    import json
    from runtime.bots import make_bot, play
    for seed in (2, 5):
        logs = []
        for _ in range(2):
            end, _ = play(runner, runner.new_game(seed=seed), {"german": make_bot("greedy", 1),
                                                              "soviet": make_bot("greedy", 2)})
            assert end.result is not None
            logs.append(json.dumps(end.log, sort_keys=True, default=str))
            for h, ids in end.occupants.items():
                assert not runner.game.stacking or len([x for x in ids if x in ("28RD", "29RD")]) <= 1
        assert logs[0] == logs[1]


def test_a_fire_attack_that_can_roll_a_result_with_effects_is_refused(tmp_path):
    game = MINI_GAME.replace("    1R    0         1         1\n  }", "    1R    0         1         1\n  }\n"
                             "  on 1R { reroll }")
    game += ('fire-attack guns "Guns" { side a; column 1-1 }\n'
             'event e "E" { do { fire guns 1 } }\n')
    _, diags, _ = check_game(make_game(tmp_path, game))
    assert any("fire-attack guns can roll 1R on crt std, a result with effects" in d.format()
               for d in diags.errors), [d.format() for d in diags.errors]
