"""The Barbarossa postcard game (games/barbarossa-postcard), rule by rule.

Each test sets up a position on the real map, runs the real sequence of play
from the phase named and checks what the rulebook (shared/rules/
barbarossa-postcard.zh.txt) says must happen.  Section numbers refer to it.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dsl.compiler import compile_game
from runtime.actions import IllegalActionError
from runtime.bots import RandomBot, play
from runtime.runner import Runner
from runtime.state import GameState

from helpers import GAMES, ROOT

GAME = GAMES / "barbarossa-postcard"


@pytest.fixture(scope="module")
def game():
    return compile_game(GAME)


def runner_for(variants=()) -> Runner:
    return Runner(compile_game(GAME, variants=list(variants)))


def bare(r: Runner, turn: int = 1, seed: int = 0, **units: str) -> GameState:
    """A new game with only the named units on the map (unit=hex id)."""
    s = r.new_game(seed)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    for uid, hid in units.items():
        s.place(uid, r.board.parse(hid))
        s.control[r.board.parse(hid)] = s.units[uid].side
    s.turn = turn
    s.log.clear()
    return s


def hold(r: Runner, s: GameState, side: str, *hexes: str) -> None:
    """Give hexes to a side (control changes invalidate cached supply lines)."""
    for x in hexes:
        s.control[r.board.parse(x)] = side
    s.version += 1


def at(r: Runner, s: GameState, phase: str) -> GameState:
    """Run the sequence of play from the phase with this id."""
    idx = next(i for i, st in enumerate(r.program) if st.kind == "proc" and st.phase.id == phase)
    side = next(st.phase.side for st in reversed(r.program[:idx]) if st.kind == "side")
    s.pc, s.active, s.step, s.phase = idx, side, {}, ""
    return r._run(s)


def acts(r: Runner, s: GameState) -> set[str]:
    return {str(a) for a in r.legal_actions(s)}


def play_out(r: Runner, s: GameState, *actions: str) -> GameState:
    for a in actions:
        s = r.apply(s, a)
    return s


def h(r: Runner, hid: str):
    return r.board.parse(hid)


# ---------------------------------------------------------------- the files

def test_check_passes_with_every_variant():
    out = subprocess.run([sys.executable, "-m", "editor.cli", "check", str(GAME)], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok barbarossa-postcard: 2 sides, 7 unit classes, 24 counters, 80 hexes, 4 turns")


# ---------------------------------------------------------------- set-up (3.0)

def test_the_players_set_up_soviets_first(game):
    r = Runner(game)
    s = r.new_game(1)
    assert s.step["decision"] == "deploy" and r.to_move(s) == "soviet"
    assert s.units["NWF"].hex == h(r, "0204")            # the fronts' border hexes are fixed: one in each
    opts = acts(r, s)
    assert {a.split()[2] for a in opts if a.startswith("place 1T")} == {"0204", "0205", "0206", "0207"}
    assert "place 4T 0603" in opts and "place 4T 0204" not in opts
    s = play_out(r, s, "place 1T 0206", "place 2T 0206", "place 4T 0603")
    s = r.apply(s, "done")                                 # the rest where the scenario puts them
    assert s.units["3T"].hex in {h(r, x) for x in ("0204", "0205", "0206", "0207")}
    assert r.to_move(s) == "axis" and s.step["decision"] == "deploy"
    opts = acts(r, s)
    assert {a.split()[2] for a in opts if a.startswith("place 11A")} == {"0106", "0107", "0108"}
    assert {a.split()[2] for a in opts if a.startswith("place AGN")} == {"0104", "0105"}
    s = r.apply(s, "done")
    assert all(s.units[u].hex is not None for u in ("AGN", "11A", "3RoA", "1PzG"))
    assert s.step.get("decision") == "movement" and s.active == "axis"   # turn 1 begins
    assert s.units["1T"].hex == s.units["2T"].hex == h(r, "0206") and s.units["4T"].hex == h(r, "0603")


# ---------------------------------------------------------------- movement (6.0)

def test_normal_move_is_one_hex_and_forced_march_one_more(game):
    r = Runner(game)
    s = at(r, bare(r, **{"2PzG": "0105", "11A": "0107"}), "axis-movement")
    moves = acts(r, s)
    assert "move 2PzG 0104" in moves and "move 2PzG 0304 forced-march" not in moves
    assert not any(m.startswith("move 2PzG") and m.endswith("forced-march") for m in moves)  # not before a normal move
    s = r.apply(s, "move 2PzG 0205")
    moves = acts(r, s)
    assert "move 2PzG 0305 forced-march" in moves and "move 2PzG 0304 forced-march" in moves
    s = r.apply(s, "move 2PzG 0304 forced-march")
    assert s.units["2PzG"].hex == h(r, "0304")
    assert not any(m.startswith("move 2PzG") for m in acts(r, s))  # spent
    with pytest.raises(IllegalActionError, match="already used Forced march"):
        r.apply(s, "move 2PzG 0404 forced-march")


def test_a_forced_march_continues_the_move_at_once(game):
    """6.1: one unit's move ends before the next unit's starts, so a forced
    march comes right after that unit's normal move."""
    r = Runner(game)
    s = at(r, bare(r, **{"2PzG": "0105", "3PzG": "0105"}), "axis-movement")
    s = play_out(r, s, "move 2PzG 0205", "move 3PzG 0206")
    assert not any(m.startswith("move 2PzG") for m in acts(r, s))
    with pytest.raises(IllegalActionError, match="its move ended when 3PzG moved"):
        r.apply(s, "move 2PzG 0305 forced-march")
    assert "move 3PzG 0306 forced-march" in acts(r, s)


def test_army_groups_and_fronts_never_forced_march(game):
    r = Runner(game)
    s = at(r, bare(r, AGN="0105"), "axis-movement")
    s = r.apply(s, "move AGN 0205")
    assert not any(m.startswith("move AGN") for m in acts(r, s))
    with pytest.raises(IllegalActionError, match="AGN may not use Forced march"):
        r.apply(s, "move AGN 0305 forced-march")
    s = at(r, bare(r, WF="0604"), "soviet-movement")
    s = r.apply(s, "move WF 0605")
    assert not any(m.startswith("move WF") for m in acts(r, s))


def test_forced_march_never_enters_mountains_or_crosses_the_kerch_strait(game):
    r = Runner(game)
    s = at(r, bare(r, **{"1PzG": "0104"}), "axis-movement")   # Slovenia (0106) is a mountain hex
    s = play_out(r, s, "move 1PzG 0105")
    assert "move 1PzG 0106 forced-march" not in acts(r, s)
    assert "move 1PzG 0206 forced-march" in acts(r, s)
    s = at(r, bare(r, **{"1T": "0407"}), "soviet-movement")
    s = play_out(r, s, "move 1T 0408")
    assert "move 1T 0508 forced-march" not in acts(r, s)       # the strait, by forced march
    s = at(r, bare(r, **{"1T": "0408"}), "soviet-movement")
    assert "move 1T 0508" in acts(r, s)                        # ... but a normal move crosses it (6.1)


def test_sea_hexsides_and_sea_are_closed(game):
    r = Runner(game)
    s = at(r, bare(r, **{"1T": "0307"}), "soviet-movement")
    moves = acts(r, s)
    assert "move 1T 0408" not in moves and "move 1T 0308" not in moves  # a sea hexside, a sea hex
    assert "move 1T 0207" in moves


def test_only_german_infantry_armies_cross_swamp_hexsides(game):
    r = Runner(game)
    s = at(r, bare(r, **{"2A": "0205", "2PzG": "0205", "AGC": "0205"}), "axis-movement")
    moves = acts(r, s)
    assert "move 2A 0206" in moves
    assert "move 2PzG 0206" not in moves and "move AGC 0206" not in moves
    from runtime.movement import why_not
    assert why_not(game, r.board, s, "2PzG", h(r, "0206")) == \
        "2PzG cannot cross the swamp (pripyat) hexside from 0205 to 0206"
    s = play_out(r, s, "move 2A 0305")
    assert "move 2A 0306 forced-march" not in acts(r, s)      # a forced march never crosses one (6.2)


def test_infantry_may_not_attack_by_forced_march_but_armour_may(game):
    r = Runner(game)
    s = at(r, bare(r, **{"11A": "0107", "1PzG": "0107", "SF": "0307"}), "axis-movement")
    s = play_out(r, s, "move 11A 0207")
    assert "move 11A 0307 forced-march" not in acts(r, s)
    with pytest.raises(IllegalActionError, match="11A cannot attack 0307 by Forced march"):
        r.apply(s, "move 11A 0307 forced-march")
    s = play_out(r, s, "move 1PzG 0207")
    assert "move 1PzG 0307 forced-march" in acts(r, s)


def test_a_unit_that_attacked_may_not_forced_march(game):
    r = Runner(game)
    s = at(r, bare(r, **{"1PzG": "0105", "WF": "0205"}), "axis-movement")
    s = r.apply(s, "move 1PzG 0205")
    assert s.attack_from["1PzG"] == h(r, "0105")
    assert not any(m.startswith("move 1PzG") for m in acts(r, s))
    assert s.control[h(r, "0205")] == "soviet"                 # a battle hex does not change hands yet


@pytest.mark.parametrize("turn,disrupted", [(2, False), (3, True), (4, True)])
def test_infantry_forced_march_disrupts_in_mud_and_snow(game, turn, disrupted):
    r = Runner(game)
    s = at(r, bare(r, turn=turn, **{"11A": "0107", "1PzG": "0107"}), "axis-movement")
    s = play_out(r, s, "move 11A 0207", "move 11A 0306 forced-march", "move 1PzG 0207", "move 1PzG 0306 forced-march")
    assert ("disrupted" in s.units["11A"].markers) is disrupted
    assert "disrupted" not in s.units["1PzG"].markers


def test_disrupted_units_do_not_move_normally(game):
    r = Runner(game)
    s = bare(r, **{"2PzG": "0105"})
    s.mark("2PzG", "disrupted")
    s = at(r, s, "axis-movement")
    assert not any(m.startswith("move 2PzG") for m in acts(r, s))
    with pytest.raises(IllegalActionError, match="it is disrupted"):
        r.apply(s, "move 2PzG 0104")


def test_blitz_movement_is_forced_march_only_and_not_for_army_groups(game):
    r = Runner(game)
    s = at(r, bare(r, **{"2PzG": "0105", "AGN": "0104", "2A": "0105"}), "blitz-movement")
    moves = acts(r, s)
    assert "move 2PzG 0205 forced-march" in moves and "move 2PzG 0205" not in moves
    assert not any(m.startswith("move AGN") for m in moves)
    assert "move 2A 0205 forced-march" in moves


def test_hexside_attack_limits(game):
    """6.3: across one hexside at most 4 Axis units, of them 1 army group and
    2 panzer groups; at most 3 Soviet units, of them 2 fronts."""
    r = Runner(game)
    s = at(r, bare(r, **{"AGN": "0105", "AGC": "0105", "1PzG": "0105", "2PzG": "0105", "3PzG": "0105",
                         "2A": "0105", "11A": "0105", "WF": "0205"}), "axis-movement")
    s = play_out(r, s, "move AGN 0205")
    with pytest.raises(IllegalActionError, match="at most 1 army-group unit attack across one hexside"):
        r.apply(s, "move AGC 0205")
    s = play_out(r, s, "move 1PzG 0205", "move 2PzG 0205")
    with pytest.raises(IllegalActionError, match="at most 2 panzer-group units"):
        r.apply(s, "move 3PzG 0205")
    s = play_out(r, s, "move 2A 0205")
    with pytest.raises(IllegalActionError, match="at most 4 Axis units attack across one hexside"):
        r.apply(s, "move 11A 0205")
    assert "move 11A 0205" not in acts(r, s)
    s2 = at(r, bare(r, **{"3PzG": "0104", "WF": "0205"}), "axis-movement")   # another hexside is another count
    assert "move 3PzG 0205" in acts(r, s2)

    s = at(r, bare(r, **{"NWF": "0304", "WF": "0304", "SWF": "0304", "1T": "0304", "2T": "0304",
                         "2A": "0205"}), "soviet-movement")
    s = play_out(r, s, "move NWF 0205", "move WF 0205")
    with pytest.raises(IllegalActionError, match="at most 2 front units"):
        r.apply(s, "move SWF 0205")
    s = play_out(r, s, "move 1T 0205")
    with pytest.raises(IllegalActionError, match="at most 3 Soviet units"):
        r.apply(s, "move 2T 0205")


def test_oil_losses_stop_the_armour_forced_march(game):
    """6.4: without Bucharest the German panzers neither forced-march nor move
    in the blitz; without Maikop the Soviet tanks do not forced-march."""
    r = Runner(game)
    s = bare(r, **{"1PzG": "0105", "11A": "0105", "1T": "0503"})
    hold(r, s, "soviet", "0108")          # Bucharest lost
    s = at(r, s, "axis-movement")
    s = play_out(r, s, "move 1PzG 0205")
    with pytest.raises(IllegalActionError, match="6.4: the Axis has lost Bucharest"):
        r.apply(s, "move 1PzG 0305 forced-march")
    s = play_out(r, s, "move 11A 0104")
    assert "move 11A 0204 forced-march" in acts(r, s)
    s = at(r, s, "blitz-movement")
    assert not any(m.startswith("move 1PzG") for m in acts(r, s))
    hold(r, s, "axis", "0609")            # Maikop lost
    s = at(r, s, "soviet-movement")
    s = play_out(r, s, "move 1T 0504")
    with pytest.raises(IllegalActionError, match="6.4: the Soviets have lost Maikop"):
        r.apply(s, "move 1T 0505 forced-march")


# ---------------------------------------------------------------- firepower (7.1)

def battle(r: Runner, s: GameState, target: str):
    return r.engine.battle_report(s, target=h(r, target))


def fire_items(rep, side: str) -> dict[str, int]:
    """Modifier and option titles -> amounts (an option's providing unit,
    "(AGC)" at the end of its title, dropped; amounts of the same title added)."""
    out: dict[str, int] = {}
    for t, v in rep.fire[side].modifiers + rep.fire[side].options:
        head, _, tail = t.rpartition(" (")
        key = head if head and tail.endswith(")") and "." not in tail and " " not in tail else t
        out[key] = out.get(key, 0) + v
    return out


def test_base_firepower_is_the_strength_of_undisrupted_units(game):
    r = Runner(game)
    s = at(r, bare(r, turn=3, **{"1PzG": "0304", "2A": "0304", "NF": "0404", "1T": "0404"}), "axis-movement")
    s = play_out(r, s, "move 1PzG 0404", "move 2A 0404")
    s.mark("1T", "disrupted")
    rep = battle(r, s, "0404")
    assert rep.fire["axis"].base == [("1PzG", 2), ("2A", 1)]
    assert rep.fire["soviet"].base == [("NF", 1)]                 # 8.0: disrupted units do not fire
    # mud (turn 3): the attacker -1; Smolensk is a 1-VP city: +1
    assert fire_items(rep, "axis") == {"mud (7.1): the attacker -1 in every battle": -1}
    assert rep.fire["axis"].total == 2 and rep.fire["soviet"].total == 2


def test_river_gives_the_defender_one_when_every_attacker_crosses_it(game):
    """Smolensk (0404): 0303/0404 is a river hexside, 0304/0404 is not."""
    r = Runner(game)
    river = "river or Kerch strait (7.1, 14.0): defender +1 when every attacker crosses one; rivers do not count in snow"
    s = at(r, bare(r, turn=2, **{"1PzG": "0304", "2PzG": "0303", "NF": "0404"}), "axis-movement")
    s = play_out(r, s, "move 1PzG 0404", "move 2PzG 0404")
    assert battle(r, s, "0404").across == ()
    assert river not in fire_items(battle(r, s, "0404"), "soviet")     # 1PzG did not cross it
    s = at(r, bare(r, turn=2, **{"2PzG": "0303", "NF": "0404"}), "axis-movement")
    s = play_out(r, s, "move 2PzG 0404")
    assert battle(r, s, "0404").across == ("river",)
    assert fire_items(battle(r, s, "0404"), "soviet")[river] == 1
    s = at(r, bare(r, turn=4, **{"2PzG": "0303", "NF": "0404"}), "axis-movement")
    s = play_out(r, s, "move 2PzG 0404")
    assert river not in fire_items(battle(r, s, "0404"), "soviet")   # rivers do not count in snow


def test_kerch_strait_counts_in_snow(game):
    r = Runner(game)
    s = at(r, bare(r, turn=4, **{"1PzG": "0408", "1T": "0508"}), "axis-movement")
    s = play_out(r, s, "move 1PzG 0508")
    items = fire_items(battle(r, s, "0508"), "soviet")
    assert items["river or Kerch strait (7.1, 14.0): defender +1 when every attacker crosses one; rivers do not "
                 "count in snow"] == 1
    assert items["snow (7.1): Soviet +1, attacking or defending"] == 1
    assert fire_items(battle(r, s, "0508"), "axis") == {"snow (7.1): Axis -1, attacking or defending": -1}


def test_snow_hurts_the_axis_when_defending_too(game):
    r = Runner(game)
    s = at(r, bare(r, turn=4, **{"1T": "0604", "1PzG": "0605"}), "soviet-movement")
    s = play_out(r, s, "move 1T 0605")
    rep = battle(r, s, "0605")
    assert fire_items(rep, "axis") == {"snow (7.1): Axis -1, attacking or defending": -1}
    assert fire_items(rep, "soviet") == {"snow (7.1): Soviet +1, attacking or defending": 1}
    assert rep.fire["axis"].total == 1 and rep.fire["soviet"].total == 2


def test_infantry_in_mountains_get_one_each(game):
    r = Runner(game)
    s = at(r, bare(r, **{"SF": "0207", "1T": "0207", "11A": "0106", "3RoA": "0106"}), "soviet-movement")
    s = play_out(r, s, "move SF 0106", "move 1T 0106")
    rep = battle(r, s, "0106")
    assert fire_items(rep, "axis") == {"mountain (7.1): +1 for each infantry unit": 2}
    assert fire_items(rep, "soviet") == {"mountain (7.1): +1 for each infantry unit": 1}   # SF; 1T is armour


def test_soviet_city_adds_its_vp_even_for_disrupted_defenders(game):
    r = Runner(game)
    s = bare(r, turn=2, **{"1PzG": "0604", "RsF": "0603"})
    s.mark("RsF", "disrupted")
    s = at(r, s, "axis-movement")
    s = play_out(r, s, "move 1PzG 0603")
    rep = battle(r, s, "0603")
    assert rep.fire["soviet"].base == []
    assert fire_items(rep, "soviet") == {"Soviet city (7.1): Soviet firepower + the city's VP": 3}  # Moscow
    assert rep.fire["soviet"].total == 3


def test_air_strike_and_air_support_on_turns_1_and_2(game):
    r = Runner(game)
    s = at(r, bare(r, turn=1, **{"AGC": "0105", "1PzG": "0104", "AGN": "0104", "WF": "0205"}), "axis-movement")
    s = play_out(r, s, "move AGC 0205", "move 1PzG 0205", "done", "attack 0205 with 1PzG,AGC")
    opts = acts(r, s)
    assert {"use air-strike AGC", "use air-strike-on-enemy AGC", "use air-support AGC", "use air-support AGN",
            "use desperate-effort AGC", "use desperate-effort 1PzG", "done"} == opts
    s = r.apply(s, "use air-strike-on-enemy AGC")
    opts = acts(r, s)
    assert not any("AGC" in o and "air" in o for o in opts)       # one air use per army group and phase
    s = r.apply(s, "use air-support AGN")
    roll = next(e for e in reversed(s.log) if e.get("roll"))["result"]
    rep = r.engine.battle_report(s, s.pending[0])
    assert fire_items(rep, "soviet")["Air strike (7.1): the enemy -1 instead"] == -1
    support = fire_items(rep, "axis").get("Air support (7.1): from an army group in or next to the battle hex, "
                                          "1-3 succeeds", 0)
    assert support == (1 if roll <= 3 else 0)
    # turn 3: no air
    s = at(r, bare(r, turn=3, **{"AGC": "0105", "WF": "0205"}), "axis-movement")
    s = play_out(r, s, "move AGC 0205", "done", "attack 0205 with AGC")
    assert not any("air" in o for o in acts(r, s))


def test_air_options_are_for_axis_attacks_only(game):
    r = Runner(game)
    s = at(r, bare(r, turn=2, **{"AGC": "0205", "WF": "0304"}), "soviet-movement")
    s = play_out(r, s, "move WF 0205", "done", "attack 0205 with WF", "done")
    assert s.pending[0]["side"] == "axis"
    assert acts(r, s) == {"use desperate-effort AGC", "done"}


@pytest.mark.parametrize("seed", range(6))
def test_desperate_effort_follows_its_die_table(game, seed):
    """7.1: 1-3 own side +1, 4-6 the enemy +1; the attacker decides first."""
    r = Runner(game)
    s = at(r, bare(r, turn=2, seed=seed, **{"1PzG": "0304", "NF": "0305"}), "axis-movement")
    s = play_out(r, s, "move 1PzG 0305", "done", "attack 0305 with 1PzG", "use desperate-effort 1PzG")
    assert s.pending[0]["side"] == "soviet"          # nothing else for the Axis: the defender's turn
    s = r.apply(s, "use desperate-effort NF")
    rolls = [e["result"] for e in s.log if e.get("roll")]
    assert len(rolls) == 2
    fire = next(e for e in s.log if e.get("fire"))["fire"]
    assert fire["axis"] == 2 + (rolls[0] <= 3) + (rolls[1] >= 4)
    assert fire["soviet"] == 1 + (rolls[0] >= 4) + (rolls[1] <= 3)


def test_no_soviet_desperate_effort_on_turn_1(game):
    r = Runner(game)
    s = at(r, bare(r, turn=2, **{"1PzG": "0304", "NF": "0305"}), "axis-movement")
    s = play_out(r, s, "move 1PzG 0305", "done", "attack 0305 with 1PzG", "done")
    assert s.pending[0]["side"] == "soviet" and acts(r, s) == {"use desperate-effort NF", "done"}   # turn 2
    s = at(r, bare(r, turn=1, **{"1PzG": "0304", "NF": "0305"}), "axis-movement")
    s = play_out(r, s, "move 1PzG 0305", "done", "attack 0305 with 1PzG", "done")
    assert s.pending == []      # turn 1: the Soviets had nothing to choose; the battle was fought
    assert not any(e.get("option") for e in s.log)
    assert next(e for e in s.log if e.get("outcome"))["outcome"] == "D"


# ---------------------------------------------------------------- damage and outcomes (7.1, 7.2)

def fight(r, s, target, attackers):
    """Attack with no options on either side; the log of the battle."""
    s = r.apply(s, f"attack {target} with {attackers}")
    while s.pending and s.pending[0]["stage"] == "options":
        s = r.apply(s, "done")
    return s


def test_german_two_strength_units_ignore_one_point(game):
    """1PzG (2) against a front (1) in the open, turn 2: each side deals its
    firepower; 1 point does not disrupt the panzer group, 2 disrupt the front
    and then eliminate it: D, the hex changes hands."""
    r = Runner(game)
    s = at(r, bare(r, turn=2, **{"1PzG": "0304", "NF": "0305"}), "axis-movement")
    s = play_out(r, s, "move 1PzG 0305", "done")
    s = fight(r, s, "0305", "1PzG")
    assert s.pending == []
    assert "disrupted" not in s.units["1PzG"].markers                    # absorbed 1: ignored
    assert s.units["NF"].box == "pool:soviet-available"                  # disrupted by 1, eliminated by the 2nd
    out = next(e for e in s.log if e.get("outcome"))
    assert out["outcome"] == "D" and out["winner"] == "axis"
    assert s.control[h(r, "0305")] == "axis" and s.units["1PzG"].hex == h(r, "0305")


def test_tough_germans_need_their_printed_strength_to_die(game):
    r = runner_for(["tough-germans"])
    s = bare(r, turn=2, **{"1PzG": "0304", "NF": "0305"})
    s.mark("1PzG", "disrupted")
    hold(r, s, "axis", "0205")
    s = at(r, s, "soviet-movement")   # a front attacks a disrupted panzer group
    s = play_out(r, s, "move NF 0304", "done")
    s = fight(r, s, "0304", "NF")
    # 1 point on a disrupted 2-strength unit is not enough under 11.3: it survives, and retreats (C)
    assert not any(e.get("eliminated") == "1PzG" for e in s.log)
    assert s.units["1PzG"].hex == h(r, "0205") and "disrupted" in s.units["1PzG"].markers
    r2 = Runner(game)
    s = bare(r2, turn=2, **{"1PzG": "0304", "NF": "0305"})
    s.mark("1PzG", "disrupted")
    s = at(r2, s, "soviet-movement")
    s = play_out(r2, s, "move NF 0304", "done")
    s = fight(r2, s, "0304", "NF")
    assert s.units["1PzG"].box == "eliminated"                         # the standard rule: 1 point


def test_outcome_a_no_attacker_left(game):
    """2.Army (1) attacks two fronts in Moscow: 2 + 3 (the city's VP) = 5
    points disrupt and eliminate it; its 1 point disrupts a front.  A."""
    r = Runner(game)
    s = at(r, bare(r, turn=2, **{"2A": "0604", "RsF": "0603", "NF": "0603"}), "axis-movement")
    s = play_out(r, s, "move 2A 0603", "done")
    s = fight(r, s, "0603", "2A")
    s = r.apply(s, "hit RsF")
    assert s.pending == []
    assert s.units["2A"].box == "eliminated" and "disrupted" in s.units["RsF"].markers
    out = next(e for e in s.log if e.get("outcome"))
    assert out["outcome"] == "A" and out["winner"] == "soviet"
    assert s.control[h(r, "0603")] == "soviet"


def test_outcome_b_attackers_go_back(game):
    """AGC and 1PzG (4) attack three fronts (3) in the open on turn 2.  The
    Axis spreads the 3 points: AGC ignores 1, 1PzG takes 2 and is disrupted.
    The Soviets put 2 points on NF and 2 on WF: both eliminated, SWF stays
    fresh.  B: the defender holds; 1PzG goes back first (disrupted), then AGC."""
    r = Runner(game)
    s = at(r, bare(r, turn=2, **{"AGC": "0304", "1PzG": "0304", "NF": "0305", "WF": "0305", "SWF": "0305"}),
           "axis-movement")
    s = play_out(r, s, "move AGC 0305", "move 1PzG 0305", "done")
    s = fight(r, s, "0305", "1PzG,AGC")
    assert s.pending[0]["fire"] == {"axis": 4, "soviet": 3}
    s = play_out(r, s, "hit NF", "hit NF", "hit WF", "hit WF")       # the Soviets assign the Axis fire
    s = play_out(r, s, "hit AGC", "hit 1PzG", "hit 1PzG")            # the Axis assigns the Soviet fire
    assert s.pending == []
    out = next(e for e in s.log if e.get("outcome"))
    assert out["outcome"] == "B" and out["winner"] == "soviet"
    assert [e["back"] for e in s.log if e.get("back")] == ["1PzG", "AGC"]
    assert s.units["AGC"].hex == s.units["1PzG"].hex == h(r, "0304")
    assert "disrupted" in s.units["1PzG"].markers and "disrupted" not in s.units["AGC"].markers
    assert s.units["NF"].box == s.units["WF"].box == "pool:soviet-available"
    assert s.units["SWF"].hex == h(r, "0305") and s.control[h(r, "0305")] == "soviet"
    assert s.attack_from == {}


def test_outcome_c_disrupted_defenders_retreat_into_own_hexes_or_die(game):
    r = Runner(game)
    # AGC (2) attacks 2 fronts: 2 points disrupt both; the fronts' 2 points on AGC (ignores 1) disrupt it
    s = at(r, bare(r, turn=3, **{"AGC": "0304", "1PzG": "0304", "NF": "0404", "WF": "0404"}), "axis-movement")
    s = play_out(r, s, "move AGC 0404", "move 1PzG 0404", "done")
    s = fight(r, s, "0404", "AGC,1PzG")
    # mud: Axis 4 - 1 = 3; Soviet 2 + 1 (Smolensk) = 3
    assert s.pending[0]["side"] == "soviet" and s.pending[0]["points"] == 3
    s = play_out(r, s, "hit NF", "hit WF")           # both disrupted...
    s = r.apply(s, "hit NF")                         # ...and NF eliminated
    # the Soviet 3 points: the Axis assigns them
    s = play_out(r, s, "hit AGC", "hit AGC", "hit 1PzG")    # AGC disrupted (2), 1PzG absorbs 1
    out_ev = [e for e in s.log if e.get("outcome")]
    assert not out_ev                                 # WF must retreat first
    opts = acts(r, s)
    assert opts and all(o.startswith("retreat WF ") for o in opts)
    assert "retreat WF 0304" not in opts              # an Axis-held hex
    s = r.apply(s, sorted(opts)[0])
    out = next(e for e in s.log if e.get("outcome"))
    assert out["outcome"] == "C"
    assert s.units["AGC"].hex == h(r, "0304")          # disrupted attackers go back first
    assert s.units["1PzG"].hex == h(r, "0404") and s.control[h(r, "0404")] == "axis"
    assert s.units["WF"].hex != h(r, "0404") and "disrupted" in s.units["WF"].markers


def test_outcome_c_without_a_retreat_hex_eliminates(game):
    """0305 (open ground): every hex around it is Axis-held."""
    r = Runner(game)
    around = ("0205", "0206", "0405", "0406", "0306")

    s = bare(r, turn=2, **{"1PzG": "0304", "WF": "0305"})
    hold(r, s, "axis", *around)
    s.mark("WF", "disrupted")
    s = at(r, s, "axis-movement")
    s = play_out(r, s, "move 1PzG 0305", "done")
    s = fight(r, s, "0305", "1PzG")
    # the Axis 2 points: the disrupted front is eliminated by the first; it fires nothing back
    assert s.units["WF"].box == "pool:soviet-available"
    out = next(e for e in s.log if e.get("outcome"))
    assert out["outcome"] == "D" and s.control[h(r, "0305")] == "axis"

    s = bare(r, turn=2, **{"1PzG": "0304", "WF": "0305", "NWF": "0305"})
    hold(r, s, "axis", *around)
    s.mark("WF", "disrupted")
    s = at(r, s, "axis-movement")
    s = play_out(r, s, "move 1PzG 0305", "done")
    s = fight(r, s, "0305", "1PzG")
    s = play_out(r, s, "hit NWF", "hit WF")    # NWF disrupted, WF eliminated; NWF's 1 point: ignored by 1PzG
    assert "disrupted" not in s.units["1PzG"].markers
    out = next(e for e in s.log if e.get("outcome"))
    assert out["outcome"] == "C"
    assert s.units["NWF"].box == "pool:soviet-available"   # nowhere to retreat: eliminated
    assert any(e.get("destroyed") == "NWF" and "retreat" in e["why"] for e in s.log)
    assert s.units["1PzG"].hex == h(r, "0305") and s.control[h(r, "0305")] == "axis"


def test_every_battle_must_be_fought(game):
    r = Runner(game)
    s = at(r, bare(r, turn=2, **{"1PzG": "0304", "NF": "0305"}), "axis-movement")
    s = play_out(r, s, "move 1PzG 0305", "done")
    assert acts(r, s) == {"attack 0305 with 1PzG"}
    with pytest.raises(IllegalActionError, match="every battle must be fought"):
        r.apply(s, "done")
    with pytest.raises(IllegalActionError, match="every unit that moved in fights"):
        r.apply(s, "attack 0305 with 1PzG,2PzG")


# ---------------------------------------------------------------- recovery and supply (8.0, 9.0)

def test_recovery_needs_supply(game):
    r = Runner(game)
    s = bare(r, **{"NF": "0604", "WF": "0305", "SWF": "0205", "1PzG": "0104"})
    hold(r, s, "axis", "0304", "0204", "0206", "0405", "0406", "0306")
    for u in ("NF", "WF", "SWF", "1PzG"):
        s.mark(u, "disrupted")
    s = at(r, s, "soviet-recovery")
    assert "disrupted" not in s.units["NF"].markers        # traces east
    assert "disrupted" in s.units["WF"].markers            # cut off in the open
    assert "disrupted" not in s.units["SWF"].markers       # cut off, but Minsk supplies one unit (9.0)
    assert "disrupted" in s.units["1PzG"].markers          # not the German recovery phase
    s = at(r, s, "german-recovery")
    assert "disrupted" not in s.units["1PzG"].markers


def test_out_of_supply_at_the_end_of_a_player_turn(game):
    r = Runner(game)
    s = bare(r, **{"WF": "0305", "1PzG": "0404", "2PzG": "0405", "3RoA": "0406"})
    s.mark("2PzG", "disrupted")
    # the Axis units stand deep in Soviet-held land: no line to the west edge
    s = at(r, s, "axis-supply")
    assert "disrupted" in s.units["1PzG"].markers and s.units["1PzG"].hex is not None  # German: disrupted
    assert s.units["2PzG"].box == "removed"                                         # already disrupted: gone
    assert s.units["3RoA"].box == "removed"                                         # Romanian: eliminated
    assert s.lost == ["2PzG", "3RoA"]
    assert s.units["WF"].hex is not None                                            # the Soviet line runs east


def test_soviets_cut_off_are_eliminated_but_come_back(game):
    r = Runner(game)
    s = bare(r, **{"WF": "0305", "NF": "0305"})
    hold(r, s, "axis", *("0205", "0206", "0304", "0306", "0405", "0406"))
    s = at(r, s, "soviet-supply")
    assert s.units["WF"].box == s.units["NF"].box == "pool:soviet-available"   # 10.0 rebuilds them


def test_a_city_supplies_as_many_units_as_its_vp(game):
    r = Runner(game)
    s = bare(r, **{"NWF": "0603", "WF": "0603", "SWF": "0603", "SF": "0603"})
    hold(r, s, "axis", *("0502", "0503", "0602", "0702", "0703", "0604"))
    s = at(r, s, "soviet-supply")
    on_map = sorted(u for u in ("NWF", "WF", "SWF", "SF") if s.units[u].hex is not None)
    assert len(on_map) == 3                                 # Moscow: 3 VP
    assert sum(1 for e in s.log if "supplied by the city" in str(e.get("result", ""))) == 3


def test_axis_supply_runs_through_axis_hexes_to_the_west_edge(game):
    from runtime.supply import supply_map
    r = Runner(game)
    s = bare(r, **{"1PzG": "0305"})
    assert h(r, "0305") not in supply_map(game, r.board, s, "axis")
    hold(r, s, "axis", *("0205", "0305"))
    lines = supply_map(game, r.board, s, "axis")
    assert h(r, "0305") in lines and h(r, "0104") in lines
    assert h(r, "0303") not in lines                         # Soviet-held


# ---------------------------------------------------------------- the Soviet turn's first phase (10.0)

def test_rebuilding_fronts_and_tanks(game):
    r = Runner(game)
    s = bare(r, **{"1PzG": "0506"})
    hold(r, s, "axis", "0506")                             # Kharkov lost
    for u in ("1T", "BrF", "KaF"):
        s.place(u, None, "pool:soviet-available")
    s = at(r, s, "rebuild")
    assert s.step["decision"] == "rebuild"
    opts = acts(r, s)
    assert "place BrF 0603" in opts and "place BrF 0401" in opts and "place BrF 0904" in opts
    assert "place BrF 0506" not in opts                    # not under Soviet control
    assert "place BrF 0803" not in opts                    # Gorky: a factory only
    assert "place 1T 0803" in opts and "place 1T 0603" not in opts
    listed = r.legal_actions(s)  # (built when read) by index as in order, each answer once, 'done' last
    order = [str(a) for a in listed]
    assert [str(listed[i]) for i in range(len(listed))] == order and set(order) == opts
    assert len(order) == len(opts) and order[-1] == "done"
    # rule by rule (fronts, then tanks), unit by unit, each unit's hexes in map order
    assert order.index("place BrF 0401") < order.index("place BrF 0904") < order.index("place KaF 0401") \
        < order.index("place 1T 0803")
    s = r.apply(s, "place BrF 0603")
    assert "disrupted" in s.units["BrF"].markers           # fronts come back disrupted
    assert "place KaF 0603" not in acts(r, s)              # one per hex
    s = r.apply(s, "place 1T 0807")
    assert "disrupted" not in s.units["1T"].markers        # tanks come back whole
    s = r.apply(s, "done")
    assert s.step.get("decision") == "movement"            # strategic movement next


def test_strategic_movement(game):
    r = Runner(game)
    s = bare(r, **{"SF": "0307", "1T": "0307", "NF": "0603", "WF": "0604", "1PzG": "0505"})
    hold(r, s, "axis", "0407", "0508")      # Sevastopol is reachable only by sea
    s = at(r, s, "strategic-movement")
    opts = acts(r, s)
    assert "move SF 0408 strategic" in opts                 # the sea lane (10.0)
    assert "move 1T 0408 strategic" not in opts             # never tanks by sea
    assert "move NF 0909 strategic" in opts                 # any distance through Soviet hexes
    assert "move NF 0505 strategic" not in opts             # not into an Axis unit's hex
    s = play_out(r, s, "move SF 0408 strategic", "move NF 0909 strategic")
    assert "disrupted" in s.units["SF"].markers and "disrupted" in s.units["NF"].markers
    assert not any(m.startswith("move WF") for m in acts(r, s))   # at most 2 units
    with pytest.raises(IllegalActionError, match="at most 2 units move in this phase"):
        r.apply(s, "move WF 0605 strategic")


def test_the_strategic_limit_does_not_carry_into_the_movement_phase(game):
    r = Runner(game)
    s = bare(r, **{"NF": "0603", "WF": "0604", "SWF": "0605", "1T": "0606", "2T": "0607"})
    s = at(r, s, "strategic-movement")
    s = play_out(r, s, "move NF 0401 strategic", "move WF 0904 strategic", "done")
    assert r.program[s.pc].phase.id == "soviet-movement" and "limit" not in s.step
    s = play_out(r, s, "move SWF 0705", "move 1T 0706", "move 2T 0707")       # three units: no limit of 2
    assert s.units["2T"].hex == h(r, "0707")
    with pytest.raises(IllegalActionError, match="it is disrupted"):   # the strategic move disrupted NF
        r.apply(s, "move NF 0402")


def test_disrupted_units_may_move_strategically(game):
    r = Runner(game)
    s = bare(r, **{"NF": "0603"})
    s.mark("NF", "disrupted")
    s = at(r, s, "strategic-movement")
    assert "move NF 0401 strategic" in acts(r, s)


def test_siberians_arrive_on_turn_4_in_a_supplied_soviet_hex(game):
    r = Runner(game)
    s = r.new_game(0)
    assert s.units["Sib"].box == "turn:4"
    s = bare(r, turn=4, **{"1PzG": "0603"})
    hold(r, s, "axis", "0603")
    s.place("Sib", None, "pool:arriving")
    s = at(r, s, "soviet-reinforcement")
    opts = acts(r, s)
    assert "place Sib 0604" in opts and "place Sib 0603" not in opts and "place Sib 0105" not in opts
    s = r.apply(s, "place Sib 0604")
    assert s.units["Sib"].hex == h(r, "0604")


@pytest.mark.parametrize("seed", range(8))
def test_siberians_early_win_or_lose(game, seed):
    r = Runner(game)
    s = bare(r, turn=3, seed=seed, **{"NF": "0603"})
    s.place("Sib", None, "turn:4")
    s = at(r, s, "siberian-choice")
    assert s.step["decision"] == "decide" and acts(r, s) == {"choose siberian-early", "done"}
    s = r.apply(s, "choose siberian-early")
    roll = next(e for e in s.log if e.get("table") == "siberian-early")
    if roll["total"] >= 4:   # 10.0: dismissed
        assert s.result and s.result["winner"] == "axis" and "Siberians" in s.result["why"]
    else:
        assert s.result is None and s.step["decision"] == "place"
        assert {a.split()[1] for a in acts(r, s) if a.startswith("place")} == {"Sib"}


def test_declining_the_siberian_roll(game):
    r = Runner(game)
    s = bare(r, turn=3, **{"NF": "0603"})
    s.place("Sib", None, "turn:4")
    s = at(r, s, "siberian-choice")
    s = r.apply(s, "done")
    assert not any(e.get("table") == "siberian-early" for e in s.log)
    assert s.units["Sib"].box == "turn:4"


# ---------------------------------------------------------------- victory (4.0)

def test_sudden_death_when_a_soviet_unit_holds_warsaw(game):
    r = Runner(game)
    s = bare(r, **{"1T": "0105", "1PzG": "0104"})
    s = at(r, s, "axis-turn-end")
    assert s.result["winner"] == "soviet" and "Königsberg, Warsaw or Bucharest" in s.result["why"]


def test_victory_points_at_the_end(game):
    r = Runner(game)
    s = bare(r, turn=4, **{"1PzG": "0603", "2PzG": "0401", "AGN": "0205"})
    hold(r, s, "axis", *("0204", "0205", "0304", "0404", "0503", "0603", "0402", "0302", "0301", "0401", "0303", "0203"))
    s.lost = ["AGS"]
    r.finish(s, "test")
    got = {e["for"]: e["amount"] for e in s.log if e.get("vp") == "axis"}
    assert got == {"Moscow": 3, "Leningrad": 2, "Minsk": 1, "Kaunas": 1, "Smolensk": 1, "Riga": 1,
                   "-1 per German 2-strength unit destroyed": -1}
    assert s.result["vp"]["axis"] == 8 and s.result["winner"] == "axis"


def test_unsupplied_cities_do_not_score(game):
    r = Runner(game)
    s = bare(r, turn=4, **{"1PzG": "0603"})
    hold(r, s, "axis", "0603")              # Moscow, cut off
    r.finish(s, "test")
    assert s.result["vp"]["axis"] == 0 and s.result["winner"] == "soviet"


# ---------------------------------------------------------------- optional and balance rules (11.0, 12.0)

def test_hold_order_pays_for_failed_soviet_attacks(game):
    r = runner_for(["hold-order"])
    s = at(r, bare(r, turn=4, **{"NF": "0604", "AGC": "0603"}), "soviet-movement")
    s = play_out(r, s, "move NF 0603", "done")
    s = fight(r, s, "0603", "NF")
    out = next(e for e in s.log if e.get("outcome"))
    assert out["outcome"] in ("A", "B")
    assert s.vp["axis"] == 2                 # snow: +2


def test_stavka_artillery_once_per_game(game):
    r = runner_for(["stavka"])
    s = at(r, bare(r, turn=4, **{"NF": "0604", "WF": "0505", "AGC": "0603", "AGN": "0506"}), "soviet-movement")
    s = play_out(r, s, "move NF 0603", "move WF 0506", "done", "attack 0506 with WF")
    assert "use stavka-artillery" in acts(r, s)
    s = r.apply(s, "use stavka-artillery")
    assert "use stavka-artillery" not in acts(r, s)
    while s.pending:
        s = r.apply(s, sorted(acts(r, s))[0] if s.pending[0]["stage"] != "options" else "done")
    s = r.apply(s, "attack 0603 with NF")
    assert "use stavka-artillery" not in acts(r, s)
    r3 = Runner(game)
    s = at(r3, bare(r3, turn=3, **{"NF": "0604", "AGC": "0603"}), "soviet-movement")
    s = play_out(r3, s, "move NF 0603", "done", "attack 0603 with NF")
    assert "use stavka-artillery" not in acts(r3, s)


def test_xl_panzer_corps_enters_in_warsaw_or_koenigsberg_on_turn_2(game):
    r = runner_for(["xl-panzer-corps"])
    s = r.new_game(1)
    assert s.units["40PzK"].box == "turn:2"
    s = bare(r, turn=2)
    s.place("40PzK", None, "pool:arriving")
    s = at(r, s, "axis-reinforcement")
    assert {a for a in acts(r, s) if a.startswith("place")} == {"place 40PzK 0104", "place 40PzK 0105"}


def next_phase(r: Runner, s: GameState) -> str:
    return r.program[s.pc].phase.id


def test_general_winter_balance_rule(game):
    """12.1: no Axis forced march in mud, no Axis blitz in snow."""
    r = runner_for(["balance-weather"])
    s = at(r, bare(r, turn=3, **{"1PzG": "0105"}), "axis-movement")
    s = r.apply(s, "move 1PzG 0205")
    with pytest.raises(IllegalActionError, match="12.1: no Axis forced march in mud"):
        r.apply(s, "move 1PzG 0305 forced-march")
    s = at(r, bare(r, turn=3, **{"1PzG": "0105"}), "soviet-recovery")
    assert next_phase(r, s) == "blitz-movement" and acts(r, s) == {"done"}   # mud: the blitz has no moves
    s = at(r, bare(r, turn=4, **{"1PzG": "0105"}), "soviet-recovery")
    assert next_phase(r, s) != "blitz-movement" and s.active == "soviet"      # snow: no blitz at all
    plain = Runner(game)
    s = at(plain, bare(plain, turn=4, **{"1PzG": "0105"}), "soviet-recovery")
    assert next_phase(plain, s) == "blitz-movement" and "move 1PzG 0205 forced-march" in acts(plain, s)


def test_fair_weather_has_no_mud():
    g = compile_game(GAME, variants=["fair-weather"])
    assert g.turn_track.turn(3).values["weather"] == "clear"
    r = Runner(g)
    s = at(r, bare(r, turn=3, **{"11A": "0107"}), "axis-movement")
    s = play_out(r, s, "move 11A 0207", "move 11A 0306 forced-march")
    assert "disrupted" not in s.units["11A"].markers


# ---------------------------------------------------------------- whole games

@pytest.mark.parametrize("seed", range(1, 7))
def test_random_bot_games_finish_and_keep_the_rules(game, seed):
    r = Runner(game)
    bots = {side: RandomBot(seed * 7 + i) for i, side in enumerate(game.sides)}
    phases_ended: list[tuple] = []

    def check(s: GameState, side, action) -> None:
        for hx, ids in s.occupants.items():
            assert r.board.terrain(hx) != "sea"
            if len({s.units[x].side for x in ids}) > 1:   # a battle hex exists only until its combat phase ends
                assert s.phase in ("movement", "combat"), (hx, s.phase)
        if str(action) == "done" and s.phase == "" and not s.pending:
            phases_ended.append((s.turn, side))

    final, n = play(r, r.new_game(seed), bots, on_action=check)
    assert final.result is not None and final.result["winner"] in ("axis", "soviet"), final.result
    assert n > 20
    assert any(e.get("outcome") for e in final.log)            # battles were fought
    assert not any(len({final.units[x].side for x in ids}) > 1 for ids in final.occupants.values())


def test_cli_game_is_deterministic():
    cmd = [sys.executable, "-m", "editor.cli", "play", str(GAME), "--agents", "random,random", "--seed", "3",
           "--json"]
    a = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    b = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    out = json.loads(a.stdout)
    assert out["winner"] in ("axis", "soviet") and out["turns"] >= 1


# ---------------------------------------------------------------- diagnostics for the new constructs

def mutated(tmp_path, old: str, new: str):
    import shutil
    folder = tmp_path / "barbarossa-postcard"
    shutil.copytree(GAME, folder)
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    assert old in text, old
    (folder / "game.hxr").write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


@pytest.mark.parametrize("old,new,message", [
    ("win soviet at axis-turn-end", "win soviet at axis-turn-ned",
     "unknown checkpoint 'axis-turn-ned': no phase reaches it"),
    ("      limit 2\n", "      limit two\n", "limit"),
    ("  across-hexside soviet 3 front 2\n", "  across-hexside soviet 3 front 2\n  across-hexside soviet 2\n",
     "the hexside limits for soviet are given twice"),
    ("      mode normal forced-march\n", "      mode normal forced-marhc\n", "'forced-marhc' is not a movement mode"),
    ('        option siberian-early "Bring the Siberian unit in on turn 3 (a roll of 4-6 loses the game)?"\n', "",
     "decides nothing: it needs an option"),
    ("  by air-strike\n  uses air\n  adds enemy -1\n", "  by air-strik\n  uses air\n  adds enemy -1\n",
     "'air-strik' is not a unit class, class flag, nationality or side"),
    ("  units front\n", "  units frnot\n", "'frnot' is not a unit class"),
    ("      at axis-north ", "      at axis-nort ", "unknown area 'axis-nort'"),
    ('(7.2 D)" { holds attacker }', '(7.2 D)" when defenders == 0 { holds attacker }',
     "the last outcome (D) has a condition: a battle might have no outcome"),
    ('when attackers == 0 { holds defender }', 'when attackers == 0 { holds nobody }',
     "'nobody' is not a side holding the hex"),
    ("  defenders retreat\n", "  defenders flee\n", "defenders 'retreat', not 'flee'"),
    ("    3     1941-10  mud      siberian-option\n", "", "the scenario runs turns 1 to 4, but turn 3 is not on the turn track"),
    ("    procedure advance-turn\n", "    procedure victory-check\n", "the sequence of play never moves the turn marker"),
    ("when undisrupted-defenders > 0 {", "when undisrupted-defender > 0 {", "unknown name 'undisrupted-defender'"),
])
def test_mistakes_get_one_clear_diagnostic(tmp_path, old, new, message):
    from dsl.diagnostics import DslError
    with pytest.raises(DslError) as e:
        compile_game(mutated(tmp_path, old, new))
    errors = [d for d in e.value.diagnostics if d.severity == "error"]
    assert len(errors) == 1, "\n".join(d.format() for d in errors)
    assert message in errors[0].message and errors[0].span is not None
    assert errors[0].format().startswith("barbarossa-postcard/game.hxr:")


def test_move_in_attacks_need_the_firepower_procedure(tmp_path):
    from dsl.diagnostics import DslError
    folder = mutated(tmp_path, "  procedure firepower\n", "  procedure none\n")
    with pytest.raises(DslError) as e:
        compile_game(folder)
    assert "attacks by moving in are fought by the firepower procedure" in str(e.value)


# ---------------------------------------------------------------- property: any battle ends cleanly

from hypothesis import given, settings, strategies as st  # noqa: E402

AXIS_POOL = ["AGC", "1PzG", "2PzG", "2A", "11A", "3RoA"]
SOVIET_POOL = ["NF", "WF", "SWF", "1T", "2T"]


@settings(max_examples=60)
@given(attackers=st.lists(st.sampled_from(AXIS_POOL), min_size=1, max_size=4, unique=True),
       defenders=st.lists(st.sampled_from(SOVIET_POOL), min_size=1, max_size=3, unique=True),
       disrupted=st.sets(st.sampled_from(SOVIET_POOL)),
       turn=st.integers(1, 4), seed=st.integers(0, 999), choices=st.randoms(use_true_random=False))
def test_any_battle_ends_by_the_rules(game, attackers, defenders, disrupted, turn, seed, choices):
    """Attackers move from 0304 into 0305; whatever the options, hits and
    retreats chosen: no hex holds both sides afterwards, disrupted attackers
    are back in 0304, and the outcome letter describes the hex (7.2)."""
    r = Runner(game)
    placed = {u: "0304" for u in attackers} | {u: "0305" for u in defenders}
    s = bare(r, turn=turn, seed=seed, **placed)
    for u in disrupted & set(defenders):
        s.mark(u, "disrupted")
    s = at(r, s, "axis-movement")
    moved = []
    for u in attackers:
        if f"move {u} 0305" in acts(r, s):     # 6.3 may refuse some
            s = r.apply(s, f"move {u} 0305")
            moved.append(u)
    s = r.apply(s, "done")
    if not moved:
        return
    s = r.apply(s, f"attack 0305 with {','.join(sorted(moved))}")
    while s.pending:
        options = sorted(acts(r, s))
        s = r.apply(s, options[choices.randrange(len(options))])
    target, origin = h(r, "0305"), h(r, "0304")
    here = s.units_at(target)
    assert len({u.side for u in here}) <= 1
    out = next(e for e in s.log if e.get("outcome"))["outcome"]
    att_here = [u for u in here if u.side == "axis"]
    def_here = [u for u in here if u.side == "soviet"]
    assert all("disrupted" not in u.markers for u in att_here)
    for u in moved:
        if "disrupted" in s.units[u].markers:
            assert s.units[u].hex == origin
    if out in ("A", "B"):
        assert not att_here and s.control[target] == "soviet"
    if out == "B":
        assert any("disrupted" not in u.markers for u in def_here)
    if out in ("C", "D"):
        assert att_here and not def_here and s.control[target] == "axis"
    for u in defenders:   # a defender is in the hex, retreated next to it, or gone to the Soviet pool
        x = s.units[u]
        assert x.hex in (target, None) or (x.hex.distance(target) == 1 and s.control[x.hex] == "soviet")
        assert x.hex is not None or x.box == "pool:soviet-available"
    assert s.attack_from == {}


@pytest.mark.parametrize("seed", [2, 5])
def test_a_game_replays_from_its_action_texts(game, seed):
    """Every action's text reads back to the same action, and earlier states
    are never changed by later ones (take-back and stepping in the editor)."""
    from runtime.replay import Timeline, digest
    r = Runner(game)
    bots = {side: RandomBot(seed + i) for i, side in enumerate(game.sides)}
    texts: list[str] = []
    final, _ = play(r, r.new_game(seed), bots, on_action=lambda s, side, a: texts.append(str(a)))
    assert {t.split()[0] for t in texts} >= {"place", "move", "attack", "use", "hit", "done"}
    t = Timeline(Runner(game), seed, every=7)
    for text in texts:
        t.apply(text)
    assert digest(t.latest) == digest(final)
    middle = t.state_at(len(texts) // 2)
    before = digest(middle)
    t.state_at(len(texts))
    t.state_at(len(texts) // 2 + 3)
    assert digest(t.state_at(len(texts) // 2)) == before


def test_cli_says_when_a_set_up_does_not_fit(tmp_path):
    folder = mutated(tmp_path, "      3RoA     axis-south\n", "      3RoA     border\n")
    text = (folder / "game.hxr").read_text(encoding="utf-8").replace("  deploy soviet axis", "  # deploy", 1)
    (folder / "game.hxr").write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "editor.cli", "play", str(folder), "--seed", "1"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "the scenario cannot be set up: no room in area border for 3RoA" in out.stderr


def test_cli_says_when_the_sequence_of_play_never_ends_a_turn(tmp_path):
    folder = mutated(tmp_path, 'phase end-of-turn "End of turn (5.0)" {',
                     'phase end-of-turn "End of turn (5.0)" when turn == 99 {')
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    for side in ("axis", "soviet"):   # nobody plays either: nothing ever waits for a decision
        head = f'player-turn {side} "{side.capitalize()} player turn"'
        assert head in text
        text = text.replace(head + " {", head + " when turn == 99 {", 1)
    (folder / "game.hxr").write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "editor.cli", "play", str(folder), "--seed", "1"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "the sequence of play runs on without a decision and without ending" in out.stderr


def test_cli_battle_shows_the_firepower_of_a_battle():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "editor.cli", *args], capture_output=True, text=True, cwd=ROOT)
    out = run("battle", str(GAME), "--hex", "0404", "--attack", "2PzG@0303", "--defend", "NF",
              "--turn", "4", "--disrupted", "NF", "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["across"] == ["river"] and d["fire"]["axis"]["total"] == 1 and d["fire"]["soviet"]["total"] == 2
    assert d["fire"]["soviet"]["base"] == []                                   # NF is disrupted: it does not fire
    assert ["snow (7.1): Soviet +1, attacking or defending", 1] in d["fire"]["soviet"]["modifiers"]
    assert d["damage"]["2PzG"] == {"disrupted": False, "disrupt-at": 2, "eliminate-at": 1}
    assert [o["option"] for o in d["options"]["axis"]] == ["desperate-effort"] and d["options"]["soviet"] == []
    text = run("battle", str(GAME), "--hex", "0205", "--attack", "AGC@0105", "--defend", "WF")
    assert "Air strike (7.1): +1 for the army group (AGC), on average +1" in text.stdout
    bad = run("battle", str(GAME), "--hex", "0205", "--attack", "AGC@0107", "--defend", "WF")
    assert bad.returncode == 1 and "0107 is not next to 0205" in bad.stderr and "Traceback" not in bad.stderr
    for args, says in ((["--attack", "AGC@0105,AGC@0104", "--defend", "WF"], "--attack: AGC is named twice"),
                       (["--attack", "AGC@0105", "--defend", "WF,WF"], "--defend: WF is named twice"),
                       (["--attack", "WF@0105", "--defend", "WF"], "--defend: WF is named twice (in --attack too)")):
        twice = run("battle", str(GAME), "--hex", "0205", *args)  # (the second was taken silently)
        assert twice.returncode == 1 and says in twice.stderr, twice.stderr
    odds = run("odds", str(GAME), "--attack", "3", "--defense", "2")
    assert odds.returncode == 1 and "try hexforge battle" in odds.stderr


def test_cli_says_when_units_placed_in_the_game_find_no_room(capsys, monkeypatch):
    """Units placed in an area after the set-up (a side's units left to the
    scenario's default, an arrival) may find every hex of it full
    (runtime.reinforce raises ValueError): the game cannot go on, and
    ``play`` says so, after how many decisions, not with a traceback."""
    from dsl.cli import main
    apply = Runner.apply

    def full(self, s, a):
        if s.turn >= 2:
            raise ValueError("no room in area border for 3RoA")
        return apply(self, s, a)
    monkeypatch.setattr(Runner, "apply", full)
    assert main(["play", str(GAME), "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert "the game cannot go on after" in err and "(turn 2): no room in area border for 3RoA" in err
