"""The sequence of play (Smolensk 5-8, 11, 12, 15): a scripted turn checked
against the rulebook, and complete bot games that never reach an illegal
state."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dsl.compiler import compile_game
from runtime.actions import Done, IllegalActionError
from runtime.bots import GreedyBot, RandomBot, play
from runtime.runner import Play, Place, Runner
from runtime.state import new_state

from helpers import GAMES, ROOT, set_up_as_listed


@pytest.fixture(scope="module")
def smolensk():
    return compile_game(GAMES / "smolensk")


@pytest.fixture(scope="module")
def runner(smolensk):
    return Runner(smolensk, "short")


def empty_state(runner):
    s = new_state(runner.game)
    s.turn = 1
    return s


def test_hq_activates_friendly_units_in_range_of_its_nationality(runner):
    g = runner.game.map.grid
    s = empty_state(runner)
    hq = g.parse_id("2020")
    for uid, h in {"2PzA": hq, "3Pz": hq.neighbour(0).neighbour(0).neighbour(0).neighbour(0).neighbour(0),
                   "4Pz": g.parse_id("2620"), "31ID": hq.neighbour(3).neighbour(3).neighbour(3),
                   "DR": hq.neighbour(1), "AOK4": hq.neighbour(2)}.items():
        s.place(uid, h)
    assert g.parse_id("2620").distance(hq) == 6
    # command range 5 (2PzA prints 2-5-6): 3Pz at 5 and 31ID at 3 are in, 4Pz at 6 is out;
    # AOK4 is an HQ (8.1(4)); SS Das Reich is German under 8.3 (no SS HQ could ever activate it)
    assert runner.command(s, "2PzA") == {"2PzA", "3Pz", "31ID", "DR"}


def test_a_turn_starts_with_the_chits_the_track_allows(runner):
    s = past_surprise(runner, runner.new_game(seed=11))
    choices = [e for e in s.log if "chits" in e]
    axis = next(e for e in choices if e["side"] == "axis")["chits"]
    soviet = next(e for e in choices if e["side"] == "soviet")["chits"]
    assert sorted(axis) == ["2PzA", "3PzA", "3PzA", "AOK4", "AOK9", "Guderian"]   # 15.2(1)1, all of them
    assert sorted(soviet) == ["10A", "3A", "4A"]                                    # 15.2(2)1
    assert "Guderian" not in s.cup and "SUPPLY" in s.cup + [e.get("draw") for e in s.log]
    assert s.hands["axis"] == ["Guderian"] or any(e.get("interrupt") == "Guderian" for e in s.log)


def past_surprise(runner, s):
    """Decline the pre-war surprise attack (15.1) to reach the first draw."""
    while runner.program[s.pc].phase.id.startswith("surprise") or s.pending:
        s = runner.apply(s, Done() if not s.pending else runner.engine.default_action(s))
    return s


def test_guderian_interrupts_a_draw(runner):
    s = past_surprise(runner, runner.new_game(seed=11))
    assert s.step.get("decision") == "interrupt" and runner.to_move(s) == "axis"
    drawn = s.step["chit"]
    assert Play("Guderian") in runner.legal_actions(s)
    s2 = runner.apply(s, "play Guderian")
    assert drawn in s2.cup                                   # 7.3(1): the drawn chit goes back
    act = next(e for e in reversed(s2.log) if "activate" in e)
    assert act["activate"] == "Guderian" and "2PzA" in act["units"]
    assert s2.hands["axis"] == []


def test_passing_keeps_the_drawn_chit(runner):
    s = past_surprise(runner, runner.new_game(seed=11))
    drawn = s.step["chit"]
    s2 = runner.apply(s, Done())
    act = next(e for e in reversed(s2.log) if "activate" in e)
    assert act["activate"] == drawn and s2.hands["axis"] == ["Guderian"]


def test_supply_soviets_first_and_axis_waived_on_turns_1_to_3(runner):
    s = runner.new_game(seed=4)
    s.turn = 2
    runner.supply_phase(s)
    supply = [e for e in s.log if "supply" in e and e.get("result") == "skipped"]
    assert supply == [{"turn": 2, "supply": "axis", "result": "skipped"}]
    s.turn = 4
    n = len(s.log)
    runner.supply_phase(s)
    assert not any(e.get("result") == "skipped" for e in s.log[n:])


def test_reinforcements_enter_on_rail_linked_to_a_source_and_not_in_enemy_zoc(runner, smolensk):
    from runtime.zoc import enemy_zoc
    s = runner.new_game(seed=4)
    hexes = runner.entry_hexes(s, "soviet")
    assert hexes
    ezoc = enemy_zoc(smolensk, runner.board, s, "soviet")
    for h in hexes:
        assert any("rail" in e.links for _, e in runner.board.adj[h])
        assert h not in ezoc and s.side_at(h) in (None, "soviet")
    # an Axis unit on a rail hex takes it, and its ZOC, out of the entry hexes (12.1(2))
    target = hexes[len(hexes) // 2]
    axis_unit = next(u.id for u in s.on_map("axis"))
    s.place(axis_unit, target)
    after = runner.entry_hexes(s, "soviet")
    assert target not in after and not any(n in after for n, _ in runner.board.adj[target])


def test_vp_awarded_at_the_supply_check(runner):
    # 15.5(3)1: +5 VP if the Axis holds Vitebsk, with a line of communication, at turn 4's supply check
    s = runner.new_game(seed=4)
    for u in s.on_map("soviet"):
        s.place(u.id, None, "eliminated")  # nothing blocks the Axis lines any more
    vitebsk = runner.game.map.grid.parse_id("3510")
    s.control[vitebsk] = "axis"
    s.turn = 4
    runner.checkpoint(s, "supply")
    gained = [e for e in s.log if e.get("vp") == "axis"]
    assert [e["for"] for e in gained] == ["15.5(3)1 Vitebsk held at the turn 4 supply check"]
    assert s.vp["axis"] == 5
    s.turn = 5
    runner.checkpoint(s, "supply")
    assert s.vp["axis"] == 5  # Smolensk, not Vitebsk, counts on turn 5


def test_illegal_decisions_are_refused_with_a_reason(runner):
    s = past_surprise(runner, runner.new_game(seed=11))
    with pytest.raises(IllegalActionError):
        runner.apply(s, "choose 3A")
    with pytest.raises(IllegalActionError):
        runner.apply(s, "place 13A 5510")


def test_a_decisions_answer_where_the_engine_waits_is_refused_with_what_is_due(capsys):
    """A place, choose or activate given during movement or a battle (a save
    edited by hand, say) is refused as illegal, saying what is due: with the
    compiled engine it was a TypeError (its type hint enforced), in plain
    Python a message that no decision was pending."""
    game = compile_game(GAMES / "barbarossa-postcard")
    r = Runner(game)
    s = r.new_game(seed=1)
    while s.step.get("decision") != "movement":
        s = r.apply(s, RandomBot(1).choose(r, s))
    side = r.to_move(s)
    for text in ("place AGN 0205", "choose x", "activate AGN", "designate AGN"):
        with pytest.raises(IllegalActionError) as e:
            r.apply(s, text)
        assert str(e.value) == f"'{text}' is not possible now: it is {side}'s movement: move a unit, or 'done'"
    with pytest.raises(IllegalActionError) as e:
        r.apply(s, "move " + "X" * 5000 + " 0205")
    assert len(str(e.value)) < 200 and "there is no unit XXXX" in str(e.value)
    with pytest.raises(IllegalActionError) as e:
        r.apply(s, "frobnicate " + "y" * 5000)
    assert len(str(e.value)) < 600 and "cannot read the action 'frobnicate yyy" in str(e.value)


def test_a_refused_answer_names_the_answers_due(runner):
    """'X is not possible now' said neither what was asked nor what would do:
    the decision and some of its answers (the unit's own first)."""
    s = runner.new_game(seed=11)
    for _ in range(400):
        if s.step.get("decision") in ("transfer", "interrupt", "deploy"):
            break
        s = runner.apply(s, RandomBot(3).choose(runner, s))
    d = s.step.get("decision")
    assert d in ("transfer", "interrupt", "deploy"), d
    legal = [str(a) for a in runner.legal_actions(s)]
    with pytest.raises(IllegalActionError) as e:
        runner.apply(s, "pick nobody")
    said = str(e.value)
    assert said.startswith(f"'pick nobody' is not possible now: {runner.to_move(s)} answers the {d} decision: ")
    assert f"'{legal[0]}'" in said


def check_invariants(runner, s):
    g = runner.game
    limit = g.stacking.get("units", 99)
    seen = set()
    for h, ids in s.occupants.items():
        sides = {s.units[i].side for i in ids}
        assert len(sides) == 1, f"both sides in {runner.board.hex_id(h)}"
        count = sum(1 for i in ids if "fortress" not in g.unit_classes[g.counters[i].unit_class].flags)
        assert count <= limit, f"{runner.board.hex_id(h)} holds {count} units"
        for i in ids:
            assert i not in seen, f"{i} in two places"
            seen.add(i)
            assert s.units[i].hex == h and s.units[i].box == ""
    for u in s.units.values():
        assert (u.hex is None) == (u.id not in seen)


@pytest.mark.parametrize("scenario,seed,bots", [("short", 1, ("random", "random")), ("short", 2, ("greedy", "random")),
                                                ("full", 3, ("random", "random"))])
def test_bot_games_reach_the_end_without_illegal_states(smolensk, scenario, seed, bots):
    r = Runner(smolensk, scenario)
    mk = {"random": RandomBot, "greedy": GreedyBot}
    s = r.new_game(seed)
    s, n = play(r, s, {"axis": mk[bots[0]](seed), "soviet": mk[bots[1]](seed + 1)},
                on_action=lambda st, side, a: check_invariants(r, st))
    assert s.result["winner"] in ("axis", "soviet", "draw")
    assert s.result["turns"] == r.scenario.last_turn
    assert n > 100


def test_play_command_is_deterministic(tmp_path):
    cmd = [sys.executable, "-m", "dsl.cli", "play", str(GAMES / "smolensk"), "--scenario", "short", "--seed", "5",
           "--json", "--log"]
    a = subprocess.run(cmd + [str(tmp_path / "a.jsonl")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    b = subprocess.run(cmd + [str(tmp_path / "b.jsonl")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    result = json.loads(a.stdout)
    assert result["winner"] in ("axis", "soviet", "draw") and set(result["vp"]) == {"axis", "soviet"}
    assert result["turns"] == 6 and result["actions"] > 0
    rolls = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert any("roll" in e for e in rolls) and any("draw" in e for e in rolls)


def drive_to_activation(runner, s, chit, turn):
    """Put ``chit`` alone in the cup on ``turn`` and draw it."""
    s.turn = turn
    s.cup = [chit]
    s.hands = {k: [] for k in s.hands}
    s.pending = []
    s.step = {}
    s.pc = next(i for i, st in enumerate(runner.program) if st.kind == "proc" and st.phase.procedure == "draw-chit")
    return runner._run(s)


def test_19A_arrives_at_the_east_edge_when_its_chit_is_drawn_on_turn_3(runner, smolensk):
    s = runner.new_game(seed=2)
    s = drive_to_activation(runner, s, "19A", 3)
    assert s.step["decision"] == "place" and s.step["arrival"] == "19A-arrival" and s.step["n"] == 12
    legal = runner.legal_actions(s)
    east = max(runner.game.map.grid.to_colrow(h)[0] for h in runner.game.map.hexes)
    for a in legal:
        if isinstance(a, Place):
            col = runner.game.map.grid.to_colrow(runner.board.parse(a.at))[0]
            assert a.unit in s.step["units"] and col >= east - 1  # the eastern edge
    while s.step.get("decision") == "place":
        s = runner.apply(s, next(a for a in runner.legal_actions(s) if isinstance(a, Place)))
    arrived = [u.id for u in s.units.values() if smolensk.counters[u.id].formation == "19A" and u.hex]
    assert len(arrived) == 12
    act = next(e for e in reversed(s.log) if "activate" in e)
    assert act["activate"] == "19A" and "19A" in act["units"]   # then the chit activates its HQ


def test_panzer_withdrawal_on_turn_6(runner, smolensk):
    s = set_up_as_listed(runner, runner.new_game(seed=2))  # the Axis set up (4.0(2)2) as the runner would
    s = drive_to_activation(runner, s, "SUPPLY", 6)
    assert s.step["decision"] == "withdraw" and runner.to_move(s) == "axis"
    total = 0
    while s.step.get("decision") == "withdraw":
        a = runner.legal_actions(s)[0]
        u = s.units[a.unit]
        assert "mechanized" in smolensk.unit_classes[smolensk.counters[a.unit].unit_class].flags
        total += smolensk.counters[a.unit].steps[u.step]["attack"]
        s = runner.apply(s, a)
    assert total >= 18 and total - 18 < 10
    withdrawn = [u.id for u in s.units.values() if u.box == "withdrawn"]
    assert withdrawn and not set(withdrawn) & set(s.lost)  # not counted as losses (15.3(2))


def test_pre_war_surprise_attack(runner, smolensk):
    # 15.1: before turn 1 every panzer group HQ activates its own army's units for
    # one combat segment, no movement, rivers ignored (once the Axis has set up, 4.0(2)2)
    s = runner.new_game(seed=3)
    assert s.step.get("decision") == "deploy" and s.step.get("side") == "axis"
    s = set_up_as_listed(runner, s)
    assert runner.program[s.pc].phase.id == "surprise-combat" and s.phase == "combat" and s.active == "axis"
    tags = {smolensk.counters[u].tags for u in s.activated}
    assert all(any(t in ("start:2PzA", "start:3PzA") for t in tg) for tg in tags)
    assert {"2PzA", "3PzA"} <= s.activated
    assert not any(isinstance(a, __import__("runtime.actions", fromlist=["Move"]).Move)
                   for a in runner.legal_actions(s))
    assert s.step["ignore"] == ["river", "major-river"]
    s2 = runner.apply(s, Done())
    assert runner.program[s2.pc].phase.id != "surprise-combat" and not s2.activated or s2.step.get("decision")


@pytest.mark.parametrize("taken,vp", [(5, 20), (8, 15), ("8.5", 10), (9, 5)])
def test_kiev_rail_link_pays_by_when_it_was_taken(smolensk, taken, vp):
    from fractions import Fraction
    r = Runner(smolensk, "full")
    s = r.new_game(1)
    for u in s.on_map("soviet"):
        s.place(u.id, None, "eliminated")  # nothing cuts the Axis line to the hex
    h = smolensk.map.grid.parse_id("4230")
    s.control[h], s.control_since[h] = "axis", Fraction(str(taken))
    s.vp = {"axis": 0, "soviet": 0}
    r.checkpoint_end_awards(s)
    assert [e["amount"] for e in s.log if e.get("vp") == "axis" and "Kiev" in e["for"]] == [vp]


def test_hexes_change_hands_after_the_supply_check_half_a_turn_later(runner):
    s = runner.new_game(seed=1)
    g = runner.game.map.grid
    s.turn = 8
    runner.engine.pass_through(s, "axis", [g.parse_id("4230")])
    assert s.control_since[g.parse_id("4230")] == 8
    s.done.add("supply@8")
    runner.engine.pass_through(s, "axis", [g.parse_id("4730")])
    assert s.control_since[g.parse_id("4730")] == 8.5


def test_transfer_box_after_supply_and_back_as_reinforcements_next_turn(runner, smolensk):
    # 11.2: after the supply check, units that trace a line may go to the transfer box;
    # they re-enter with the side's reinforcements from the next turn
    from runtime.runner import Transfer
    s = runner.new_game(seed=2)
    s = drive_to_activation(runner, s, "SUPPLY", 4)
    assert s.step["decision"] == "transfer" and s.step["side"] == "soviet"   # 11.1(2): Soviets first
    unit = next(a.unit for a in runner.legal_actions(s) if isinstance(a, Transfer))
    s = runner.apply(s, f"transfer {unit}")
    assert s.units[unit].box == "pool:transfer"
    s = runner.apply(s, Done())                       # the Soviets are done; the Axis may transfer
    assert s.step["side"] == "axis"
    s = runner.apply(s, Done())
    # this turn it is not a reinforcement yet; next turn it is
    s2 = drive_to_activation(runner, s, "SOVIET-REINF", 4)
    assert s2.step.get("decision") != "place" or unit not in s2.step["units"]
    s3 = drive_to_activation(runner, s, "SOVIET-REINF", 5)
    assert s3.step["decision"] == "place" and unit in s3.step["units"]


def test_one_more_soviet_army_chit_each_turn_from_turn_4(runner):
    # 15.2(2)5: from turn 4 the Soviet adds one army chit of his choice each turn
    from runtime.runner import Pick
    s = runner.new_game(seed=2)
    s.turn, s.step, s.pending = 4, {}, []
    s.pc = next(i for i, st in enumerate(runner.program) if st.kind == "proc" and st.phase.procedure == "choose-chits")
    s = runner._run(s)
    assert s.step["decision"] == "pick" and s.step["side"] == "soviet"
    picks = [a for a in runner.legal_actions(s) if isinstance(a, Pick)]
    assert {a.chit for a in picks} == {"24A", "28A", "29A", "30A", "31A", "43A", "50A"}
    s = runner.apply(s, "pick 29A")
    assert s.step["decision"] == "choose" and "29A" in s.step["left"] and "24A" not in s.step["left"]


def test_vp_bidding_needs_a_bid_and_decides_by_it():
    g = compile_game(GAMES / "smolensk", ["vp-bidding"])
    with pytest.raises(ValueError, match="--param bid=N"):
        Runner(g, "short")
    r = Runner(g, "short", params={"bid": 0})
    s = r.new_game(1)
    r.finish(s, "test")
    assert s.result["winner"] == "axis"  # 0 VP reaches a bid of 0
    r2 = Runner(g, "short", params={"bid": 99})
    s2 = r2.new_game(1)
    r2.finish(s2, "test")
    assert s2.result["winner"] == "soviet"


def test_a_number_no_rule_reads_is_refused():
    """--param NAME=N that no rule in play reads (misspelt, or read only by a
    variant not switched on) would change nothing, silently: refused."""
    from runtime.victory import UnreadParam
    with pytest.raises(UnreadParam, match="no rule in play reads the number 'bid' \\(they read none\\)"):
        Runner(compile_game(GAMES / "smolensk"), "short", params={"bid": 5})  # the bid is 16.1's variant's
    bidding = compile_game(GAMES / "smolensk", ["vp-bidding"])
    with pytest.raises(UnreadParam, match="'bud' \\(they read 'bid'\\)") as e:  # before the bid it lacks
        Runner(bidding, "short", params={"bud": 5})
    assert e.value.name == "bud"
    Runner(bidding, "short", params={"bid": 5})


def test_a_number_read_outside_the_victory_rules_is_asked_for(tmp_path):
    """param("NAME") in any rule, not only a victory rule, is a number the
    game needs before it starts, and one it reads."""
    from runtime.victory import UnreadParam, params_read
    lib = tmp_path / "lib" / "barbarossa-oil"
    lib.mkdir(parents=True)
    for f in ("game.hxr", "map.hxm"):
        text = (GAMES / "barbarossa-postcard" / f).read_text(encoding="utf-8")
        (lib / f).write_text(text.replace('when side == axis and lost(bucharest)',
                                          'when side == axis and lost(bucharest) and param("oil") == 1'),
                             encoding="utf-8")
    g = compile_game(lib)
    assert params_read(g) == params_read(g, outside_victory=True) == {"oil"}
    with pytest.raises(ValueError, match="this scenario needs --param oil=N"):
        Runner(g, None)
    with pytest.raises(UnreadParam, match="'target'"):
        Runner(g, None, params={"oil": 1, "target": 6})
    r = Runner(g, None, params={"oil": 1})
    assert play(r, r.new_game(1), {"*": RandomBot(1)})[0].result is not None


def test_mechanized_activation_limit_16_6():
    g = compile_game(GAMES / "smolensk", ["mech-activation-limit"])
    r = Runner(g, "short")
    s = new_state(g)
    hq = g.map.grid.parse_id("2020")
    s.place("3PzA", hq)
    mech = [c for c, d in g.counters.items() if d.side == "axis" and d.nationality == "german"
            and "mechanized" in g.unit_classes[d.unit_class].flags][:12]
    ring = [h for h in hq.within(3) if h != hq and h in g.map.hexes]
    for uid, h in zip(mech, ring):
        s.place(uid, h)
    active = r.command(s, "3PzA")
    assert sum(1 for u in active if u in mech) == 10       # at most 10 mechanized units (16.6)


def test_reserve_units_outside_command_move_half_and_not_in_march_16_2():
    from runtime.movement import MoveError, SCALE, move_range, unit_mp
    g = compile_game(GAMES / "smolensk", ["reserve-okh"])
    r = Runner(g, "short")
    s = new_state(g)
    far = g.map.grid.parse_id("3020")
    s.place("13RD" if "13RD" in g.counters else next(c for c, d in g.counters.items()
                                                        if d.side == "soviet" and d.unit_class == "infantry"), far)
    uid = next(u.id for u in s.on_map("soviet"))
    s.activated = {uid}
    phase = next(st.phase for st in r.program if st.kind == "proc" and st.phase.params.get("outside-command"))
    r._mark_outside_command(s, phase)
    assert "out-of-command" in s.units[uid].markers        # no HQ on the map: outside every range
    full = g.counters[uid].steps[0]["move"]
    assert unit_mp(g, s, uid) == (full // 2) * SCALE
    with pytest.raises(MoveError, match="out-of-command"):
        move_range(g, r.board, s, uid, "march")


def test_hq_transfer_16_4():
    from runtime.runner import Transfer
    g = compile_game(GAMES / "smolensk", ["hq-transfer"])
    r = Runner(g, "short")
    s = r.new_game(2)
    s = drive_to_activation(r, s, "AOK4", 1)
    while s.step.get("decision") == "interrupt":
        s = r.apply(s, Done())
    assert s.step.get("decision") == "hq-transfer"   # AOK9 stands inside AOK4's range at set-up
    other = next(a.unit for a in r.legal_actions(s) if isinstance(a, Transfer))
    s = r.apply(s, f"transfer {other}")
    assert s.units[other].box == "turn:2" and other not in s.activated


def test_panzer_hq_lines_16_7(tmp_path):
    """16.7: a panzer group HQ's line at activation uses a railway that another
    panzer group HQ may not use; without a line, no second activation."""
    from helpers import gekitou_game
    from runtime.definition import Phase, frozen_map
    rail = "path rail " + " ".join(f"{c:02d}05" for c in range(1, 11))
    game = gekitou_game(tmp_path, ["P1 german panzer-hq 2-5-6 1-5-6", "P2 german panzer-hq 2-5-6 1-5-6"],
                        ["P1 0905", "P2 1005"], paths=[rail])
    r = Runner(game, "s")
    s = new_state(game)
    s.turn = 1
    s.place("P1", game.map.grid.parse_id("0905"))
    s.place("P2", game.map.grid.parse_id("1005"))
    ph = Phase("activation", "Activation", "phase", "activate", params=frozen_map({"loc-check": ("panzer-hq",)}))
    assert r._loc_check(s, ph, "P1") == ""                      # P1 traces along the railway
    assert any(k.startswith("railused:P1:") for k in s.done)
    assert r._loc_check(s, ph, "P2") == ""                      # activated, but the railway is P1's:
    assert "noloc:P2@1" in s.done                               # no line (8+ hexes off any rail)
    assert "16.7" in r._loc_check(s, ph, "P2")                  # so no second activation this turn
    assert r._loc_check(s, ph, "P1") == ""                      # P1 may use its own railway again
    s.turn = 2
    assert r._loc_check(s, ph, "P2") == ""                      # a new turn: the railways are free
    assert "noloc:P2@2" not in s.done


def test_roll_phase_and_a_second_game_plays_to_the_end():
    """A Victory Denied (docs/examples/avd): the Hitler directive roll on turn 6 is
    logged and readable as rolled(); the whole game runs with its d6/d10 CRT."""
    from dsl.compiler import compile_game as cg
    g = cg(ROOT / "docs" / "examples" / "avd")
    r = Runner(g)
    s, n = play(r, r.new_game(2), {side: RandomBot(i) for i, side in enumerate(g.sides)})
    rolls = [e for e in s.log if e.get("table") == "hitler-directive"]
    assert len(rolls) == 1 and rolls[0]["turn"] == 6
    assert rolls[0]["result"] in ("guderians-choice", "hitler-distracted", "objective-moscow")
    assert s.rolled["hitler-directive"] == rolls[0]["result"]
    assert s.result["winner"] in list(g.sides) + ["draw"] and n > 20


def test_recover_phase_lifts_disruption_for_supplied_units_of_the_named_nationality(smolensk):
    """The recover procedure (Barbarossa 8.0), tried on Smolensk units."""
    from runtime.definition import Phase, frozen_map
    r = Runner(smolensk, "short")
    s = r.new_game(1)
    axis = [u.id for u in s.on_map("axis")][:3]
    for uid in axis:
        s.mark(uid, "disrupted")
    ph = Phase("recovery", "Recovery", "phase", "recover", side="axis", params=frozen_map({"only": ("ss",)}))
    r._proc_recover(s, ph)
    assert all("disrupted" in s.units[uid].markers for uid in axis)  # no SS unit in Smolensk: the phase names only ss
    ph = Phase("recovery", "Recovery", "phase", "recover", side="axis", params=frozen_map({"only": ("german",)}))
    r._proc_recover(s, ph)
    assert all("disrupted" not in s.units[uid].markers for uid in axis if smolensk.counters[uid].nationality == "german")



def test_units_that_retreated_into_a_hex_add_no_defence_there(runner):
    """10.3(1)2: in the same combat segment, units that retreated into a hex
    from elsewhere do not add their defence (retreat { retreated-defend no })."""
    from runtime.combat.odds import combat_odds
    assert runner.game.retreat.retreated_defend is False
    g = runner.game.map.grid
    s = empty_state(runner)
    target = g.parse_id("3020")
    s.place("27RD", target)
    s.place("56RD", target)
    s.place("3Pz", target.neighbour(0))
    before = combat_odds(runner.game, runner.board, s, ["3Pz"], target)
    s.attacked.add("retreated:56RD")  # what the engine records when 56RD retreats (runtime.engine)
    after = combat_odds(runner.game, runner.board, s, ["3Pz"], target)
    assert after.defence < before.defence
    assert any(uid == "56RD" and v == 0 and "retreated" in why for uid, v, why in after.defence_parts)


def test_19A_moves_onto_the_map_paying_for_its_entry_hex(runner):
    """15.3(1): 19A enters from the east edge "by any movement method": its
    units move on (the entry hex's cost comes off their MP), they are not
    placed with their full MP."""
    from runtime.movement import class_costs, scaled, unit_mp
    g = runner.game
    assert g.arrivals["19A-arrival"].move_on
    s = runner.new_game(1)
    s.turn = 3
    for uid in ("19A", "127RD"):
        s.set_unit(uid, box="turn:3")
    s.step = {"chit": "19A", "decision": "place", "side": "soviet", "units": ["19A", "127RD"], "n": 2,
              "placed": 0, "arrival": "19A-arrival"}
    place = next(a for a in runner.legal_actions(s) if isinstance(a, Place) and a.unit == "127RD")
    s2 = runner.apply(s, place)
    h = runner.board.parse(place.at)
    cost = class_costs(g, runner.board, g.counters["127RD"].unit_class).enter[h]
    assert s2.entering["127RD"] == cost > 0
    assert unit_mp(g, s2, "127RD") == scaled(5) - cost
    assert any(e.get("moves-on") == "127RD" for e in s2.log)
