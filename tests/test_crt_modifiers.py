"""CRT modifiers applied (docs/dsl.md §4.11): die roll modifiers, column
shifts and strength modifiers, with conditions, in combat_odds, in the
engine's roll, in `hexforge odds` and in the playtest's odds panel.

The cases are A Victory Denied's (shared/rules/a-victory-denied.zh.txt,
攻击阶段 3-4): the turn-1 German two shifts right (4.a.i), the Minsk Pocket
+1 DRM for Soviet attacks (3.c.i), Timoshenko's +1 column (4.a.x), the
German d6 and the Soviet d10 on one CRT (3.c), on the small game
tests/games/crt-modifiers."""
from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from dsl import cli
from dsl.compiler import check_game, compile_game
from runtime.combat.odds import code_at, combat_odds
from runtime.runner import Runner
from runtime.state import new_state

from helpers import MINI_GAME, make_game

GAME = Path(__file__).parent / "games" / "crt-modifiers"


@pytest.fixture(scope="module")
def runner():
    return Runner(compile_game(GAME), "duel")


def state(runner, turn=1, active="german", chit="", **at):
    s = new_state(runner.game, seed=3)
    s.turn, s.active, s.phase = turn, active, "combat"
    if chit:
        s.step = {"chit": chit}
    for uid, hid in at.items():
        s.place(uid, runner.board.parse(hid))
    return s


def odds(runner, s, attackers, target):
    return combat_odds(runner.game, runner.board, s, attackers, runner.board.parse(target), env=runner.env)


def test_turn_1_german_attacks_gain_two_shifts_right(runner):
    # 4Pz (6) from the hill attacks 28RD (3) in the town: 2-1, town 1 left, turn 1 two right: 3-1
    s = state(runner, turn=1, **{"4Pz": "0303", "28RD": "0403"})
    rep = odds(runner, s, ["4Pz"], "0403")
    assert rep.legal, rep.validate
    assert rep.shifts == [(-1, "town: 1 left"), (2, "turn 1: all German attacks: 2 right")]
    assert rep.column.label == "3-1"
    assert rep.die.name == "d6" and rep.drms == []
    s2 = state(runner, turn=2, **{"4Pz": "0303", "28RD": "0403"})
    assert odds(runner, s2, ["4Pz"], "0403").column.label == "1.5-1"  # turn 2: the town's shift alone


def test_timoshenko_activated_attacks_gain_one_column(runner):
    # 28RD (3) + 1MRD (4) attack 4Pz (defence 4) on the hill: 7-4 = 1.5-1, hill 1 left: 1-1
    at = {"4Pz": "0303", "28RD": "0403", "1MRD": "0304"}
    plain = odds(runner, state(runner, turn=2, active="soviet", **at), ["28RD", "1MRD"], "0303")
    assert plain.column.label == "1-1" and plain.die.name == "d10"
    tim = odds(runner, state(runner, turn=2, active="soviet", chit="Tim", **at), ["28RD", "1MRD"], "0303")
    assert (1, "attack activated by Timoshenko: 1 right") in tim.shifts
    assert tim.column.label == "1.5-1"


def test_minsk_drm_modifies_the_soviet_d10(runner):
    at = {"4Pz": "0303", "28RD": "0403", "1MRD": "0304"}
    plain = odds(runner, state(runner, turn=2, active="soviet", **at), ["28RD", "1MRD"], "0303")
    s = state(runner, turn=2, active="soviet", **at)
    s.place("minsk-drm", runner.board.parse("0601"))
    drm = odds(runner, s, ["28RD", "1MRD"], "0303")
    assert drm.drms == [(1, "Minsk Pocket escapees: Soviet non-artillery attacks")] and drm.drm == 1
    assert plain.drm == 0
    # d10 on 1-1: a modified 10 (a 9 or a 10 rolled) is RED: 1/10 becomes 2/10
    assert plain.probabilities["RED"] == F(1, 10)
    assert drm.probabilities["RED"] == F(2, 10)
    # German attacks do not get it
    s.active = "german"
    assert odds(runner, s, ["4Pz"], "0403").drms == []


def test_the_engine_rolls_with_the_modifier(runner):
    s = state(runner, turn=2, active="soviet", **{"4Pz": "0303", "28RD": "0403", "1MRD": "0304"})
    s.place("minsk-drm", runner.board.parse("0601"))
    after = runner.engine.apply(s, "attack 0303 with 1MRD,28RD")
    after = runner.engine.apply(after, "done")  # no battle option: the roll
    entry = next(e for e in after.log if e.get("action", "").startswith("attack"))
    rolled = next(e for e in after.log if "roll" in e)["result"]
    assert entry["die"] == rolled and entry["drm"] == 1
    assert entry["result"] == code_at(runner.game.crts["avd"], 0, rolled + 1)


def test_strength_modifiers_halve_again_and_add_by_class_and_terrain(runner):
    # 4Pz (6) attacks across the minor river: halved to 3; out of fuel: halved again to 1.5
    s = state(runner, turn=2, **{"4Pz": "0502", "1MRD": "0503"})
    s.mark("4Pz", "no-fuel")
    rep = odds(runner, s, ["4Pz"], "0503")
    assert rep.attack_parts[0][1] == F(3, 2)
    assert rep.attack_parts[0][2] == "4Pz 6, halved across minor river: 3, no fuel: halved -1.5: 1.5"
    # 1MRD (motorized, defence 3) in the town: +1; 28RD (infantry) is not motorized
    s = state(runner, turn=2, **{"31ID": "0303", "1MRD": "0403"})
    rep = odds(runner, s, ["31ID"], "0403")
    assert rep.defence_parts == [("1MRD", F(4), "1MRD 3, motorized in a town +1: 4")]
    s = state(runner, turn=2, **{"31ID": "0303", "28RD": "0403"})
    assert odds(runner, s, ["31ID"], "0403").defence == 3


def test_greedy_bot_games_still_finish(runner):
    from runtime.bots import make_bot, play
    for seed in (1, 2):
        end, _ = play(runner, runner.new_game(seed=seed), {"german": make_bot("greedy", 1),
                                                          "soviet": make_bot("greedy", 2)})
        assert end.result is not None
        attacks = [e for e in end.log if "column" in e]
        # the turn-1 German attacks take two shifts right (and a Stuka may add two more): the
        # greedy bot attacks where the defender loses or retreats at least as often as not
        cols = [c.label for c in runner.game.crts["avd"].columns]
        first = [e for e in attacks if e["turn"] == 1 and e["side"] == "german"]
        assert first and all(cols.index(e["column"]) >= cols.index("3-1") for e in first)


# ------------------------------------------------------------------ hexforge odds

def run(capsys, *args):
    code = cli.main(["odds", str(GAME), *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_counts_the_modifiers_its_options_decide(capsys):
    code, out, err = run(capsys, "--attack", 6, "--defense", 3, "--terrain", "town", "--side", "german",
                         "--turn", 1)
    assert code == 0, err
    lines = out.splitlines()
    assert "shift: turn 1: all German attacks: 2 right" in lines
    assert "final column: 3-1" in lines
    code, out, err = run(capsys, "--attack", 7, "--defense", 4, "--terrain", "hill", "--side", "soviet",
                         "--chit", "Tim", "--json")
    data = json.loads(out)
    assert {"columns": 1, "reason": "attack activated by Timoshenko: 1 right"} in data["shifts"]
    assert data["column"] == "1.5-1" and data["die"] == "d10"
    assert any("not counted: Minsk Pocket" in n and "on-map()" in n for n in data["notes"])


def test_cli_names_what_a_modifier_needs(capsys):
    code, out, err = run(capsys, "--attack", 6, "--defense", 3, "--side", "german")
    assert "note: not counted: turn 1: all German attacks (it needs --turn)" in out.splitlines()
    code, out, err = run(capsys, "--attack", 6, "--defense", 3, "--side", "german", "--chit", "Timo")
    assert code == 1 and "no chit 'Timo'" in err


# ------------------------------------------------------------------ the checker

def errors_of(tmp_path, extra: str, game: str = MINI_GAME) -> list[str]:
    folder = make_game(tmp_path, game + extra)
    _, diags, _ = check_game(folder)
    return [d.format() for d in diags.errors]


def test_an_unknown_target_is_a_located_error(tmp_path):
    errs = errors_of(tmp_path, 'modifier std.shfit +1 "typo"\n')
    assert len(errs) == 1
    assert "game.hxr" in errs[0] and "unknown modifier target 'std.shfit': nothing would read it" in errs[0]
    assert "std.shift" in errs[0]  # did you mean


def test_firepower_modifiers_in_a_crt_game_are_refused(tmp_path):
    errs = errors_of(tmp_path, 'modifier firepower +1 "air"\n')
    assert len(errs) == 1 and "modifier firepower is not used by any rule" in errs[0]


def test_crt_modifiers_compile_by_target(tmp_path):
    folder = make_game(tmp_path, MINI_GAME + 'modifier std +1 "a"\nmodifier std.shift -1 "b" when turn == 2\n'
                       'modifier strength.attacker "c" = -strength / 2 when "x" in unit-markers\n')
    g = compile_game(folder)
    assert set(g.modifiers) == {"std", "std.shift", "strength.attacker"}


def test_a_top_level_die_table_modifier_joins_the_table(tmp_path):
    extra = ('die-table wx "Weather" { die d6; modifier +1 "inner"; table { die w; 1-6 a } }\n'
             'modifier wx +2 "outer" when turn == 1\n'
             'event e "E" { do { roll wx } }\n')
    g = compile_game(make_game(tmp_path, MINI_GAME + extra))
    assert [m.title for m in g.die_tables["wx"].modifiers] == ["inner", "outer"]
    assert "wx" not in g.modifiers


def test_odds_panel_lists_the_modifiers(runner):
    from editor.combatpanel import odds_html
    s = state(runner, turn=1, **{"4Pz": "0303", "28RD": "0403"})
    s.place("minsk-drm", runner.board.parse("0601"))
    html = odds_html(runner.game, runner.board, odds(runner, s, ["4Pz"], "0403"))
    assert "turn 1: all German attacks: 2 right" in html
    s = state(runner, turn=2, active="soviet", **{"4Pz": "0303", "28RD": "0403", "1MRD": "0304"})
    s.place("minsk-drm", runner.board.parse("0601"))
    html = odds_html(runner.game, runner.board, odds(runner, s, ["28RD", "1MRD"], "0303"))
    assert "Die roll modifiers" in html and "+1: Minsk Pocket escapees" in html


# ------------------------------------------------------------------ decisions before the roll

def declare_state(runner, **kw):
    s = state(runner, **kw)
    for st in ("Stuka1", "Stuka2"):
        s.place(st, None, "pool:airfields")
    return s


def test_a_stuka_shifts_the_attackers_column_two_right(runner):
    e = runner.engine
    s = declare_state(runner, turn=2, **{"4Pz": "0303", "28RD": "0403"})
    s = e.apply(s, "attack 0403 with 4Pz")
    p = s.pending[0]
    assert p["kind"] == "declare" and runner.to_move(s) == "german"
    assert [str(a) for a in e.legal_actions(s)] == ["use stuka Stuka1", "use stuka Stuka2", "done"]
    assert e.declare.odds(s, p).column.label == "1.5-1"  # 6-3 = 2-1, the town 1 left
    s = e.apply(s, "use stuka Stuka1")
    assert s.units["Stuka1"].box == "pool:used-air"  # set aside (4.a.ix)
    # one Stuka per attack, and the Soviet side has no option when it defends: the roll follows
    assert not s.pending or s.pending[0]["kind"] != "declare"
    entry = next(x for x in reversed(s.log) if x.get("action") == "attack 0403 with 4Pz")
    assert entry["column"] == "3-1"
    assert any(x.get("option") == "stuka" and x.get("shift") == 2 for x in s.log)


def test_a_defending_stuka_shifts_left_and_can_call_the_attack_off(runner):
    e = runner.engine
    at = {"4Pz": "0303", "28RD": "0403", "1MRD": "0304"}
    s = declare_state(runner, turn=2, active="soviet", **at)
    s = e.apply(s, "attack 0303 with 1MRD,28RD")  # 7-4: 1.5-1, the hill 1 left: 1-1
    assert runner.to_move(s) == "soviet"
    assert [str(a) for a in e.legal_actions(s)] == ["use reserve-guns", "done"]
    s = e.apply(s, "use reserve-guns")  # 1.5-1; nothing more for the Soviet side: the German decides
    assert runner.to_move(s) == "german"
    assert e.default_action(s) == e.legal_actions(s)[0]  # the bots' rule: it changes the column
    p = s.pending[0]
    assert not e.declare.odds(s, p, e.legal_actions(s)[0], "german").legal  # 1.5-1 two left: below 1-1
    s = e.apply(s, "use stuka Stuka2")  # nothing more to decide: the attack is worked out again
    assert s.log[-1] == {"turn": 2, "side": "soviet", "attack": "0303",
                         "called-off": "cannot attack 0303: final odds 1-2 are below 1-1"}
    assert {"1MRD", "28RD"} <= s.attacked and not s.pending
    # once per game: the reserve guns are not offered again
    s.attacked, s.attacked_hexes = set(), set()
    s = e.apply(s, "attack 0303 with 1MRD,28RD")
    assert "use reserve-guns" not in [str(a) for a in e.legal_actions(s)]


def test_a_stuka_is_not_spent_where_it_changes_nothing(runner):
    e = runner.engine
    s = declare_state(runner, turn=2, **{"4Pz": "0303", "31ID": "0203", "28RD": "0304"})
    s.set_unit("28RD", step=1)  # 1-4: 10-1 already
    s = e.apply(s, "attack 0304 with 31ID,4Pz")
    assert e.declare.odds(s, s.pending[0]).column.label == "10+-1"
    assert str(e.default_action(s)) == "done"


def test_cli_use_shifts_before_the_roll(capsys):
    code, out, err = run(capsys, "--attack", 6, "--defense", 3, "--terrain", "town", "--side", "german",
                         "--use", "stuka")
    assert code == 0, err
    assert "shift: Stuka (attacker): 2 right" in out.splitlines() and "final column: 3-1" in out.splitlines()
    code, out, err = run(capsys, "--attack", 6, "--defense", 3, "--side", "soviet", "--use", "stuka:defender",
                         "--json")
    assert json.loads(out)["column"] == "1-1"  # 2-1 two left
    code, out, err = run(capsys, "--attack", 6, "--defense", 3, "--side", "soviet", "--use", "stuka")
    assert code == 1 and "the attacker cannot use stuka: it is german's" in err
    code, out, err = run(capsys, "--attack", 6, "--defense", 3, "--side", "german", "--use", "stukka")
    assert code == 1 and "no battle option 'stukka'" in err and "stuka" in err


def test_options_of_the_other_family_are_refused(tmp_path):
    errs = errors_of(tmp_path, 'battle-option air "Air" { side a; adds own 1 }\n')
    assert len(errs) == 1 and "'adds' is not used by any rule: an attack on a CRT reads 'shift'" in errs[0]
    errs = errors_of(tmp_path, 'pool p "P" { side a }\nbattle-option air "Air" { side a; from p; shift 1 }\n')
    assert len(errs) == 1 and "'from POOL' takes the providing units from a pool: name them with 'by'" in errs[0]
    errs = errors_of(tmp_path, 'combat { procedure firepower; attack move-in }\n'
                     'outcome D "d" { holds attacker }\nbattle-option air "Air" { side a; shift 1 }\n')
    assert any("shift is not used by any rule: a firepower battle reads 'adds' and 'roll'" in e for e in errs)


def test_greedy_moves_a_unit_next_to_an_enemy_stack_to_make_an_attack_worth_declaring(runner):
    """Attacks follow movement on a CRT: the greedy bot moves 4Pz from 0303 next to
    Timoshenko's lone HQ (0604, defence 0) and attacks it there at the highest column,
    rather than walking toward an objective and attacking only what it happens to touch."""
    from runtime.bots import make_bot, play
    end, _ = play(runner, runner.new_game(seed=1), {"german": make_bot("greedy", 1), "soviet": make_bot("greedy", 2)})
    acts = [e for e in end.log if e.get("action")]
    assert acts[0]["action"] == "move 4Pz 0603"
    attack = next(e for e in acts if e["action"].startswith("attack"))
    assert attack["action"] == "attack 0604 with 4Pz" and attack["column"] == "10+-1"
