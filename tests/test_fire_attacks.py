"""Fire attacks (docs/dsl.md §4.27): attacks by fire on a fixed CRT column,
granted by a ``fire`` effect, on A Victory Denied's cases
(shared/rules/a-victory-denied.zh.txt, 6 "苏联炮兵 (ART) 指挥旗" and 7
"德军空军指挥旗"): the Soviet artillery (d6 / 2 attacks, 3-1 on a d6, range
1 or 2 from a hill, one per hex, terrain shifts, no loss to the firer), the
rocket (7-1 once a game), the bomber (8-1 once a game, retreats ignored),
the Luftwaffe chit bringing a used Stuka back; on tests/games/avd-combat."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from dsl import cli
from dsl.compiler import check_game, compile_game
from runtime.actions import Fire, IllegalActionError
from runtime.combat.fire import fire_odds
from runtime.runner import Runner
from runtime.state import new_state

from helpers import MINI_GAME, make_game

GAME = Path(__file__).parent / "games" / "avd-combat"


@pytest.fixture(scope="module")
def runner():
    return Runner(compile_game(GAME), "duel")


def board_state(runner, turn=2, seed=3, **at):
    """A state with only the units named on the map, at the hexes given."""
    s = new_state(runner.game, seed=seed)
    s.turn = turn
    s.step = {"decision": "test"}  # the sequence of play waits: only the effects and the engine run
    for uid in list(s.units):
        s.place(uid, None, "pool:airfields" if uid.startswith("Stuka") else "removed")
    for uid, hid in at.items():
        s.place(uid, runner.board.parse(hid))
    return s


def grant(runner, s, chit):
    """Draw ``chit``: its on-draw effects run (the ART chit rolls its attacks)."""
    s.step = {"chit": chit, "decision": "test"}
    runner.run_effects(s, f"chit:{chit}", f"{runner.game.chits[chit].title} drawn")
    return s


def fire_odds_at(runner, s, kind, hid):
    return fire_odds(runner.game, runner.board, s, kind, runner.board.parse(hid), runner.env)


# ------------------------------------------------------------------ the rulebook's cases

def test_artillery_fires_on_3_1_with_a_d6_and_terrain_shifts(runner):
    # 6.d: 3-1 on a d6 (the Soviet player rolls a d10 on the CRT otherwise); 6.d.ii-vi: town 1 left, city 2
    s = board_state(runner, **{"28RD": "0402", "4Pz": "0403"})  # 4Pz in the town, next to 28RD
    rep = fire_odds_at(runner, s, "artillery", "0403")
    assert rep.legal, rep.validate
    assert rep.die.name == "d6" and rep.fire == "artillery"
    assert rep.shifts == [(-1, "town: 1 left")] and rep.column.label == "2-1"
    s = board_state(runner, **{"28RD": "0104", "4Pz": "0105"})  # the city
    assert fire_odds_at(runner, s, "artillery", "0105").column.label == "1.5-1"
    s = board_state(runner, **{"28RD": "0202", "4Pz": "0203"})  # clear
    assert fire_odds_at(runner, s, "artillery", "0203").column.label == "3-1"


def test_range_1_and_2_from_a_hill(runner):
    # 6.c: the target is next to a Soviet unit or HQ; 6.c.i: 2 hexes from one on a hill (0303, 0601)
    s = board_state(runner, **{"28RD": "0501", "4Pz": "0503"})
    rep = fire_odds_at(runner, s, "artillery", "0503")
    assert not rep.legal and "0503 is out of range" in rep.validate and "2 hexes from one on hill" in rep.validate
    assert rep.validate.endswith("Soviet artillery reaches 1 hex from a spotting unit (hq, infantry or panzer), "
                                 "2 hexes from one on hill")
    s = board_state(runner, **{"28RD": "0601", "4Pz": "0603"})  # 28RD on the hill, 2 hexes away
    assert fire_odds_at(runner, s, "artillery", "0603").legal
    s = board_state(runner, **{"Tim": "0402", "4Pz": "0403"})  # an HQ spots too
    assert fire_odds_at(runner, s, "artillery", "0403").legal
    s = board_state(runner, **{"minsk-drm": "0402", "4Pz": "0403"})  # a marker class does not (by ...)
    assert not fire_odds_at(runner, s, "artillery", "0403").legal


def test_the_minsk_drm_does_not_apply_to_fire_attacks(runner):
    # 3.c.i: the +1 DRM is for Soviet attacks that are not artillery; the modifier reads fire-attack
    s = board_state(runner, **{"28RD": "0402", "4Pz": "0403", "minsk-drm": "0101"})
    assert fire_odds_at(runner, s, "artillery", "0403").drms == []
    from runtime.combat.odds import combat_odds
    s.active = "soviet"
    rep = combat_odds(runner.game, runner.board, s, ["28RD"], runner.board.parse("0403"), env=runner.env)
    assert rep.drms == [(1, "Minsk Pocket escapees: Soviet non-artillery attacks")]


def test_the_art_chit_grants_d6_halved_attacks_one_per_hex(runner):
    for seed in range(1, 12):
        s = board_state(runner, seed=seed, **{"28RD": "0402", "1MRD": "0302", "4Pz": "0403", "31ID": "0303"})
        grant(runner, s, "ART")
        rolled = next(e for e in s.log if e.get("table") == "art-attacks")
        n = {1: 0, 2: 1, 3: 1, 4: 2, 5: 2, 6: 3}[rolled["total"]]  # 6.b: d6 / 2, rounded down
        assert rolled["result"] == str(n)
        if n == 0:
            assert not s.effects and "0 fire attacks" in s.log[-1]["effect"]
            continue
        assert runner.to_move(s) == "soviet"
        acts = [str(a) for a in runner.legal_actions(s)]
        assert acts == ["fire artillery 0303", "fire artillery 0403", "fire rocket 0303", "fire rocket 0403", "done"]
        s = runner.apply(s, "fire artillery 0403")
        while s.pending:  # the German player takes the losses and retreats
            s = runner.apply(s, runner.legal_actions(s)[0])
        left = [str(a) for a in runner.legal_actions(s)] if s.effects else []
        assert "fire artillery 0403" not in left and "fire rocket 0403" not in left  # 6.c.ii: once per hex
        if n >= 2 and runner.effect_asks(s):
            with pytest.raises(IllegalActionError, match="already been fired on"):
                runner.apply(s, "fire rocket 0403")
        return
    pytest.fail("no seed rolled an ART attack")


def test_the_firer_never_loses_and_the_target_does(runner):
    # 6.d: attacker results are ignored: the city's 1.5-1 prints A1 on 1-2 and nothing touches the Soviets
    seen = set()
    for seed in range(30):
        s = board_state(runner, seed=seed, **{"28RD": "0104", "4Pz": "0105"})
        s.effects = [{"key": "chit:ART", "i": 1, "why": "test", "bound": {},
                      "ask": {"decision": "fire", "side": "soviet", "kinds": ["artillery"], "left": 1, "fired": []}}]
        s = runner.apply(s, "fire artillery 0105")
        while s.pending:
            s = runner.apply(s, runner.legal_actions(s)[0])
        entry = next(e for e in s.log if e.get("action") == "fire artillery 0105")
        seen.add(entry["result"])
        assert s.units["28RD"].hex == runner.board.parse("0104") and s.units["28RD"].step == 0
    assert "A1" in seen and {"DR"} & seen


def test_the_rocket_fires_once_a_game(runner):
    s = board_state(runner, **{"28RD": "0402", "4Pz": "0403", "31ID": "0303", "1MRD": "0302"})
    s.effects = [{"key": "chit:ART", "i": 1, "why": "test", "bound": {},
                  "ask": {"decision": "fire", "side": "soviet", "kinds": ["artillery", "rocket"], "left": 2,
                          "fired": []}}]
    assert fire_odds_at(runner, s, "rocket", "0403").column.label == "6-1"  # 7-1, the town 1 left
    s = runner.apply(s, "fire rocket 0403")
    while s.pending:
        s = runner.apply(s, runner.legal_actions(s)[0])
    assert [str(a) for a in runner.legal_actions(s)] == ["fire artillery 0303", "done"]
    with pytest.raises(IllegalActionError, match="used 1 time this game"):
        runner.apply(s, "fire rocket 0303")


def test_the_bomber_ignores_retreats_and_fires_once(runner):
    # 7.b: 8-1 (turn 2: no turn-1 shift), losses only
    for seed in range(8):
        s = board_state(runner, seed=seed, **{"4Pz": "0203", "1MRD": "0304", "28RD": "0305"})
        grant(runner, s, "Luftwaffe")
        assert [str(a) for a in runner.legal_actions(s)][-1] == "done"
        rep = fire_odds_at(runner, s, "bomber", "0304")
        assert rep.column.label == "8-1" and rep.die.name == "d6"
        s = runner.apply(s, "fire bomber 0304")
        assert not any(p["kind"] in ("retreat", "retreat-all") for p in s.pending)
        while s.pending:
            s = runner.apply(s, runner.legal_actions(s)[0])
        u = s.units["1MRD"]
        assert u.hex is None or u.hex == runner.board.parse("0304")
        grant(runner, s, "Luftwaffe")  # once a game: the next Luftwaffe chit brings no bomber
        assert not runner.effect_asks(s) and "has been used 1 time this game" in s.log[-1]["effect"]


def test_the_luftwaffe_chit_brings_a_used_stuka_back(runner):
    # 7.a: an effect on the chit's draw (a move between pools)
    s = board_state(runner, **{"4Pz": "0203"})
    s.place("Stuka1", None, "pool:used-air")
    grant(runner, s, "Luftwaffe")
    assert s.units["Stuka1"].box == "pool:airfields"


def test_done_ends_the_fire_and_the_effects_go_on(runner):
    s = board_state(runner, **{"28RD": "0402", "4Pz": "0403"})
    s.effects = [{"key": "chit:ART", "i": 1, "why": "test", "bound": {},
                  "ask": {"decision": "fire", "side": "soviet", "kinds": ["artillery"], "left": 2, "fired": []}}]
    with pytest.raises(IllegalActionError, match="names a fire attack"):
        runner.apply(s, "take 4Pz")
    s = runner.apply(s, "done")
    assert not s.effects and s.log[-1]["action"] == "done"


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["artillery", "rocket"]),
       target=st.sampled_from(["0403", "0203", "0303"]))
def test_property_a_fire_attack_never_touches_the_firer(runner, seed, kind, target):
    """Whatever the roll: the Soviet units stay where they are, at full
    strength, and a result for the attacker leaves the target as it was."""
    s = board_state(runner, seed=seed, **{"28RD": "0402", "1MRD": "0302", "Tim": "0304", "4Pz": target})
    before = {u: (s.units[u].hex, s.units[u].step) for u in ("28RD", "1MRD", "Tim")}
    s.effects = [{"key": "chit:ART", "i": 1, "why": "test", "bound": {},
                  "ask": {"decision": "fire", "side": "soviet", "kinds": [kind], "left": 1, "fired": []}}]
    if Fire(kind, target) not in runner.legal_actions(s):
        return
    s = runner.apply(s, f"fire {kind} {target}")
    while s.pending:
        s = runner.apply(s, runner.legal_actions(s)[0])
    assert {u: (s.units[u].hex, s.units[u].step) for u in before} == before
    code = next(e for e in s.log if e.get("action") == f"fire {kind} {target}")["result"]
    result = runner.game.results["avd"][code]
    if not (result.defender_loss or result.defender_retreat):  # an attacker result, or none: nothing happens
        assert (s.units["4Pz"].hex, s.units["4Pz"].step) == (runner.board.parse(target), 0)


# ------------------------------------------------------------------ bots and seeded games

def test_greedy_games_fire_and_replay_byte_identical(runner):
    from runtime.bots import make_bot, play

    def game(seed):
        end, _ = play(runner, runner.new_game(seed=seed), {"german": make_bot("greedy", 1),
                                                          "soviet": make_bot("greedy", 2)})
        return end
    fired = 0
    for seed in (1, 3):
        a, b = game(seed), game(seed)
        assert json.dumps(a.log, sort_keys=True, default=str) == json.dumps(b.log, sort_keys=True, default=str)
        fired += sum(1 for e in a.log if str(e.get("action", "")).startswith("fire "))
        assert a.result is not None
    assert fired >= 2


def test_random_games_finish(runner):
    from runtime.bots import make_bot, play
    for seed in range(4):
        end, _ = play(runner, runner.new_game(seed=seed), {"german": make_bot("random", seed),
                                                          "soviet": make_bot("random", seed + 1)})
        assert end.result is not None


# ------------------------------------------------------------------ hexforge odds and the panel

def run(capsys, *args):
    code = cli.main(["odds", str(GAME), *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_odds_of_a_fire_attack(capsys):
    code, out, err = run(capsys, "--fire", "artillery", "--defense", 3, "--terrain", "town")
    assert code == 0, err
    assert "Soviet artillery fires on: 3-1" in out and "(odds, d6)" in out and "final column: 2-1" in out
    code, out, err = run(capsys, "--fire", "bomber", "--defense", 3, "--json")
    data = json.loads(out)
    assert data["column"] == "8-1" and data["fire"] == "bomber" and data["die"] == "d6"
    code, out, err = run(capsys, "--fire", "bombr", "--defense", 3)
    assert code == 1 and "no fire attack 'bombr'" in err and "bomber" in err
    code, out, err = run(capsys, "--fire", "bomber", "--attack", 3, "--defense", 3)
    assert code == 1 and "takes no --attack" in err


def test_odds_panel_shows_a_fire_attack(runner):
    from editor.combatpanel import odds_html
    s = board_state(runner, **{"28RD": "0402", "4Pz": "0403"})
    html = odds_html(runner.game, runner.board, fire_odds_at(runner, s, "artillery", "0403"))
    assert "Soviet artillery fires on 0403" in html and "fixed column 3-1" in html
    assert "<b>Attack</b>" not in html and "Final column: 2-1" in html


# ------------------------------------------------------------------ the checker

FIRE_GAME = MINI_GAME + """
die-table art "ART" { die d6; table { die attacks; 1-3 1; 4-6 2 } }
chits {
  table {
    id   side  kind       hq  count  from  always  title
    ART  a     artillery  -   1      1     yes     "Artillery"
  }
  on-draw ART { fire guns roll art }
}
"""


def errors_of(tmp_path, extra: str, game: str = FIRE_GAME) -> list[str]:
    folder = make_game(tmp_path, game + extra)
    _, diags, _ = check_game(folder)
    return [d.format() for d in diags.errors]


def test_a_fire_attack_compiles(tmp_path):
    g = compile_game(make_game(tmp_path, FIRE_GAME + 'fire-attack guns "Guns" { side a; column 1-1; range 1; '
                                                   'range 2 from forest city; ignore retreats; per-game 3 }\n'))
    fa = g.fire_attacks["guns"]
    assert (fa.side, fa.crt, g.crts[fa.crt].columns[fa.column].label, fa.per_game) == ("a", "std", "1-1", 3)
    assert [(r.hexes, sorted(r.terrain)) for r in fa.ranges] == [(1, []), (2, ["city", "forest"])]
    assert fa.ignore == frozenset({"retreats"})


@pytest.mark.parametrize("extra,message", [
    ('fire-attack guns "Guns" { side a; column 9-1 }', "crt std has no column '9-1'"),
    ('fire-attack guns "Guns" { side a }', "fire-attack guns needs 'column'"),
    ('fire-attack guns "Guns" { column 1-1 }', "fire-attack guns needs 'side'"),
    ('fire-attack guns "Guns" { side a; column 1-1; ignore losses }', "ignores 'retreats', not 'losses'"),
    ('fire-attack guns "Guns" { side a; column 1-1; range 2 form hill }', "range takes a number of hexes"),
    ('fire-attack guns "Guns" { side a; column 1-1; rnage 2 }', "'rnage' is not a keyword of fire-attack guns"),
    ('fire-attack guns "Guns" { side a; column 1-1 }\nfire-attack idle "Idle" { side a; column 1-1 }',
     "fire-attack idle is not used by any rule: no 'fire' effect grants it"),
    ('fire-attack guns "Guns" { side a; column 1-1 }\nfire-attack other "Other" { side b; column 1-1 }\n'
     'event e "E" { do { fire guns,other 1 } }', "one fire effect grants one side's fire attacks"),
])
def test_fire_attack_errors_are_located(tmp_path, extra, message):
    errs = errors_of(tmp_path, extra + "\n")
    assert any(message in e for e in errs), errs
    assert all("game.hxr:" in e for e in errs)


def test_a_fire_effect_names_known_kinds_and_whole_numbers(tmp_path):
    errs = errors_of(tmp_path, 'fire-attack gun "Guns" { side a; column 1-1 }\n')
    assert any("unknown fire attack 'guns'" in e and "gun" in e for e in errs), errs
    game = FIRE_GAME.replace("1-3 1; 4-6 2", "1-3 one; 4-6 2")
    errs = errors_of(tmp_path, 'fire-attack guns "Guns" { side a; column 1-1 }\n', game)
    assert any("'one' is not a whole number" in e for e in errs), errs
