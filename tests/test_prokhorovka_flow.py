"""Prokhorovka around the battles (GJ63 5.1, 8.3, 2.2.1 5): the player turn
in the rulebook's order, the reserve designation hidden from the enemy until
the stack acts, strategic movement for reserve stacks only, and the supply
sources closed to the enemy."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl.compiler import compile_game
from runtime.actions import Attack, Done, IllegalActionError, Move
from runtime.bots import GreedyBot, RandomBot
from runtime.decisions import Designate
from runtime.observe import observe, observe_log, view_key
from runtime.runner import Runner
from runtime.supply import sources_of
from runtime.zoc import zoc_of

from helpers import GAMES


@pytest.fixture(scope="module")
def game():
    return compile_game(GAMES / "prokhorovka")


def until(r, s, done, bot=None, limit=3000):
    """Play on (greedy by default, 'done' for designations) until ``done(s)``."""
    bot = bot or GreedyBot(1)
    for _ in range(limit):
        if done(s):
            return s
        s = r.apply(s, bot.choose(r, s))
    raise AssertionError("never got there")


def phase_id(r, s):
    return r.program[s.pc].phase.id if s.pc < len(r.program) else ""


def at_designation(r, seed=1, turn=1, side="german"):
    s = r.new_game(seed)
    return until(r, s, lambda s: s.step.get("decision") == "designate" and s.turn == turn and s.step["side"] == side)


def test_each_player_turn_runs_in_the_rulebooks_order(game):
    """5.1: support (the Germans' first chosen, 4.0(6)1), reinforcements,
    reserve designation, normal attack, movement, reserve attack,
    reorganisation."""
    turns = {ph.side: [c.procedure for c in ph.children if c.procedure != "effects"]
             for ph in game.sequence if ph.kind == "player-turn"}
    # (effects phases: support draws, equipment drawn, 17.1's markers; the first reorganize
    # puts the reinforcements' equipment under them, 7.0)
    assert turns["german"] == ["reinforce", "reorganize", "designate", "combat", "move", "combat", "reorganize"]
    assert turns["soviet"] == ["reinforce", "reinforce", "reorganize", "designate", "combat", "move", "combat",
                               "reorganize"]
    firsts = {ph.side: ph.children[0].id for ph in game.sequence if ph.kind == "player-turn"}
    assert firsts == {"german": "german-first-support", "soviet": "soviet-support"}
    attacks = [c for ph in game.sequence if ph.kind == "player-turn" for c in ph.children if c.procedure == "combat"]
    assert [(set(c.params.get("exclude") or ()), set(c.params.get("only") or ())) for c in attacks] == \
        [({"reserve", "arrived"}, set()), (set(), {"reserve"})] * 2


def test_mechanized_stacks_and_foot_outside_enemy_zoc_may_be_designated(game):
    r = Runner(game)
    s = at_designation(r)
    zoc = zoc_of(game, r.board, s, "soviet")
    cands = {a.unit for a in r.legal_actions(s) if isinstance(a, Designate)}
    for u in s.on_map("german"):
        foot = game.counters[u.id].unit_class == "foot"
        assert (u.id in cands) == (not foot or u.hex not in zoc), u.id
    foot_in_zoc = [u.id for u in s.on_map("german") if game.counters[u.id].unit_class == "foot" and u.hex in zoc]
    for uid in foot_in_zoc:
        with pytest.raises(IllegalActionError, match="enemy ZOC"):
            r.apply(s, f"designate {uid}")


def test_the_reserve_is_hidden_from_the_enemy_and_kept_out_of_the_normal_attack(game):
    r = Runner(game)
    s = at_designation(r)
    mech = sorted(a.unit for a in r.legal_actions(s) if isinstance(a, Designate)
                  and game.counters[a.unit].unit_class == "mech")
    uid = mech[0]
    s = r.apply(s, f"designate {uid}")
    assert "reserve" in s.units[uid].markers
    assert "reserve" in observe(game, s, "german").units[uid].markers
    assert "reserve" not in observe(game, s, "soviet").units[uid].markers
    assert observe_log(game, s.log, "soviet")[-1]["action"] == "designate ?"
    assert observe_log(game, s.log, "german")[-1]["action"] == f"designate {uid}"
    s = r.apply(s, "done")
    assert phase_id(r, s) == "german-normal-attack" or s.pending
    if not s.pending:
        assert all(uid not in a.attackers for a in r.legal_actions(s) if isinstance(a, Attack))


def test_only_reserve_stacks_move_strategically_and_the_move_shows_the_reserve(game):
    r = Runner(game)
    s = at_designation(r, turn=2)
    mech = sorted(a.unit for a in r.legal_actions(s) if isinstance(a, Designate)
                  and game.counters[a.unit].unit_class == "mech")
    reserve, plain = mech[0], mech[1]
    s = r.apply(s, f"designate {reserve}")
    s = until(r, r.apply(s, "done"), lambda s: s.step.get("decision") == "movement" and not s.pending)
    # both on the Belgorod roads, the Soviets gone from the map (a test's set-up)
    for u in list(s.on_map("soviet")):
        s.place(u.id, None, "pool:soviet-reserve")
    for uid, at in ((reserve, "0912"), (plain, "1011")):
        for other in s.units_at(r.board.parse(at)):
            if other.id not in (reserve, plain):
                s.place(other.id, None, "pool:german-reserve")
        s.place(uid, r.board.parse(at))
    s.version += 1
    moves = [a for a in r.legal_actions(s) if isinstance(a, Move)]
    strategic = [m for m in moves if m.unit == reserve and m.mode == "strategic"]
    assert strategic and not any(m.unit == plain and m.mode == "strategic" for m in moves)
    with pytest.raises(IllegalActionError, match="only reserve"):
        r.apply(s, Move(plain, strategic[0].to, "strategic"))
    road = {h for h, nbrs in r.board.adj.items() for _, e in nbrs if "road" in e.links}
    assert all(r.board.parse(m.to) in road for m in strategic)
    far = max(strategic, key=lambda m: (s.units[reserve].hex.distance(r.board.parse(m.to)), m.to))
    assert s.units[reserve].hex.distance(r.board.parse(far.to)) > 6  # beyond 6 MP: double, along the road
    assert "reserve" not in observe(game, s, "soviet").units[reserve].markers
    s2 = r.apply(s, far)
    assert "reserve" in observe(game, s2, "soviet").units[reserve].markers  # it acted as a reserve
    # the end of the German player turn takes the markers off
    s3 = until(r, s2, lambda s: s.active == "soviet")
    assert not any("reserve" in u.markers for u in s3.units.values() if u.side == "german")
    assert not any(k.startswith("shown:") for k in s3.done)


def test_the_enemys_sources_are_closed_to_movement_and_zoc(game):
    r = Runner(game)
    s = r.new_game(1)
    soviet_sources = sources_of(r.board, s, "soviet")
    german_sources = sources_of(r.board, s, "german")
    assert soviet_sources and german_sources and not soviet_sources & german_sources
    # a German unit standing next to a Soviet source exerts no ZOC into it, and cannot enter it
    src = sorted(soviet_sources)[0]
    nxt = next(n for n, _ in r.board.adj[src] if n not in soviet_sources)
    s.place("LAH", nxt)
    assert src not in zoc_of(game, r.board, s, "german")
    from runtime.movement import move_range
    s.version += 1
    assert src not in move_range(game, r.board, s, "LAH").destinations


def test_a_designate_phase_needs_a_marker_and_known_states(tmp_path):
    import shutil
    from dsl.compiler import check_game
    folder = tmp_path / "prokhorovka"
    shutil.copytree(GAMES / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text()
    text = text.replace("      marker reserve\n      outside-zoc foot           #",
                        "      outside-zoc fot           #", 1)
    (folder / "game.hxr").write_text(text)
    _, diags, _ = check_game(folder)
    messages = [d.message for d in diags.items]
    assert any("designates units with no marker" in m for m in messages), messages
    assert any("'fot' is not a unit class" in m for m in messages), messages


# ------------------------------------------------------------------ decisions from the view only

def hidden_toggled(game, s, side, rng):
    """A state ``side`` sees exactly as ``s``: the enemy's reserve markers drawn anew."""
    t = s.copy()
    for uid, u in s.units.items():
        if u.side != side and u.hex is not None and f"shown:reserve:{uid}" not in s.done:
            t.units[uid] = replace(u, markers=(u.markers | {"reserve"}) if rng.random() < 0.5
                                   else (u.markers - {"reserve"}))
    t.cache = {}
    return t


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 1000), n=st.integers(0, 300), other=st.integers(0, 1000))
def test_no_bot_decision_depends_on_the_enemys_reserve(game, seed, n, other):
    r = Runner(game)
    bot = RandomBot(seed)
    s = r.new_game(seed)
    for _ in range(n):
        if s.result is not None:
            return
        s = r.apply(s, bot.choose(r, s))
    if s.result is not None:
        return
    side = r.to_move(s)
    t = hidden_toggled(game, s, side, random.Random(other))
    assert view_key(observe(game, t, side)) == view_key(observe(game, s, side))
    for make in (GreedyBot, RandomBot):
        assert make(seed).choose(r, s) == make(seed).choose(r, t)


def test_the_greedy_bot_designates_stacks_with_no_enemy_next_to_them(game):
    r = Runner(game)
    s = at_designation(r)
    a = GreedyBot(1).choose(r, s)
    assert isinstance(a, (Designate, Done))
    if isinstance(a, Designate):
        h = s.units[a.unit].hex
        assert not any(s.side_at(n) == "soviet" for n, _ in r.board.adj[h])


# ------------------------------------------------------------------ support chits chosen, pools of kind hand

def test_the_german_player_chooses_his_first_eight_support_chits(game):
    """4.0(6)1: the Germans choose 8 of their 18 support chits; the rest go into the cup."""
    r = Runner(game)
    s = r.new_game(3)
    s = until(r, s, lambda s: r.effect_asks(s) and r.effect_asks(s)["side"] == "german")
    offered = sorted(a.unit for a in r.legal_actions(s) if hasattr(a, "unit"))
    assert len(offered) == 18 and all("support" in game.unit_classes[game.counters[c].unit_class].flags
                                       for c in offered)
    chosen = ["Rudel", "GArty1", "GArty2", "GArty3", "Fw189", "Bf109-1", "GCmdr1", "GSmoke"]
    for c in chosen:
        s = r.apply(s, f"take {c}")
    in_pool = sorted(u.id for u in s.units.values() if u.box == "pool:german-support")
    assert in_pool == sorted(chosen)
    cup = [u.id for u in s.units.values() if u.box == "pool:german-support-cup"]
    assert len(cup) == 10 and not set(cup) & set(chosen)
    # the Soviets see how many, not which; their log does not name them
    view = observe(game, s, "soviet")
    assert all(view.units[c].box == "?" for c in chosen)
    assert view.observed["places"]["pool:german-support"] == 8
    assert observe(game, s, "german").units["Rudel"].box == "pool:german-support"
    log = observe_log(game, s.log, "soviet")
    assert not any("Rudel" in str(e) for e in log)
    assert sum(1 for e in log if e.get("action") == "take ?") == 8
    assert any("Rudel" in str(e) for e in observe_log(game, s.log, "german"))


def test_no_log_a_side_sees_names_the_enemys_face_down_chits_before_they_fight(game):
    r = Runner(game)
    s = r.new_game(1)
    s = until(r, s, lambda s: s.turn == 2 and s.active == "soviet")
    german_chits = {cid for cid, c in game.counters.items() if c.side == "german" and c.arrives.startswith("pool:")
                    and game.pools[c.arrives[5:]].kind in ("cup", "hand")}
    for e in observe_log(game, s.log, "soviet"):
        if "draw" in e or "effect" in e or e.get("action", "").startswith("take"):
            words = set(str(e.get("effect", "")).split()) | set(str(e.get("action", "")).split()) | \
                {x for x in e.get("draw") or () if isinstance(x, str)}
            assert not words & german_chits, e


def test_a_pool_kind_is_box_cup_or_hand(tmp_path):
    import shutil
    from dsl.compiler import check_game
    folder = tmp_path / "prokhorovka"
    shutil.copytree(GAMES / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text().replace('{ side german; kind hand }', '{ side german; kind hamd }', 1)
    (folder / "game.hxr").write_text(text)
    _, diags, _ = check_game(folder)
    assert any("'hamd' is not a pool kind (box, cup or hand)" in d.message for d in diags.items)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 1000), n=st.integers(0, 250), other=st.integers(0, 1000))
def test_states_a_side_sees_alike_get_the_same_bot_decision(game, seed, n, other):
    """Cups, hands and the reserve: a state drawn anew from what the side sees
    (determinise) is seen alike and gets the same decisions."""
    from runtime.observe import determinise
    r = Runner(game)
    bot = RandomBot(seed)
    s = r.new_game(seed)
    for _ in range(n):
        if s.result is not None:
            return
        s = r.apply(s, bot.choose(r, s))
    if s.result is not None:
        return
    side = r.to_move(s)
    t = determinise(game, observe(game, s, side), random.Random(other))
    assert not any(u.box == "?" for u in t.units.values())
    assert view_key(observe(game, t, side)) == view_key(observe(game, s, side))
    for make in (GreedyBot, RandomBot):
        assert make(seed).choose(r, s) == make(seed).choose(r, t)


# ------------------------------------------------------------------ reinforcements (7.0, 17.1)

def soviet_south_before_german_turn_2(r):
    """Turn 1's Soviet reorganisation, a Soviet stack then put south of the start line."""
    s = until(r, r.new_game(1), lambda s: s.turn == 1 and s.active == "soviet"
              and s.step.get("decision") == "reorganize")
    south = r.game.map.areas["start-line-south"]
    h = next(h for h in sorted(south) if not s.units_at(h) and h not in sources_of(r.board, s, "german"))
    uid = sorted(u.id for u in s.on_map("soviet"))[0]
    s.place(uid, h)
    s.version += 1
    return s


def test_a_soviet_stack_south_of_the_start_line_brings_up_the_xxiv_panzer_corps(game):
    r = Runner(game)
    s = soviet_south_before_german_turn_2(r)
    s = until(r, s, lambda s: s.active == "german" and s.step.get("decision") in ("place", "designate"))
    assert s.step["decision"] == "place" and s.step["side"] == "german" and s.step["n"] == 2
    assert sorted(s.step["units"]) == ["17Pz", "23Pz", "VIK"]
    places = [a for a in r.legal_actions(s) if hasattr(a, "at")]
    assert {a.at for a in places} <= {"0112", "0412", "0712", "0912", "1212"}  # the German sources
    first, second = sorted({a.at for a in places})[:2]
    s = r.apply(s, f"place VIK {first}")
    s = r.apply(s, f"place 17Pz {second}")
    assert s.units["23Pz"].box == "pool:german-reserve"  # two of the three
    # 4 tank and 3 equipment chits drawn at random, placed as the German player likes
    drawn = sorted(u.id for u in s.units.values() if u.box == "pool:german-arriving")
    assert len(drawn) == 7 and sum(game.counters[c].unit_class == "tank" for c in drawn) == 4
    assert s.step["decision"] == "reorganize" and s.step["side"] == "german"
    hosts = {a.host for a in r.legal_actions(s) if hasattr(a, "host")}
    assert hosts == {"VIK", "17Pz"}  # only the arriving units take them
    with pytest.raises(IllegalActionError, match="only arrived units do"):
        r.apply(s, f"attach {drawn[0]} LAH")
    last = drawn[-1]
    s = r.apply(s, f"attach {last} 17Pz")
    assert list(s.attached["17Pz"]) == [last]
    s = r.apply(s, "done")  # the rest go to the reorganisation pool (3.5(3))
    assert all(s.units[c].box == "pool:german-reorganization" for c in drawn if c != last)
    assert all("arrived" in s.units[u].markers for u in ("VIK", "17Pz"))
    # they enter in the movement phase: no attack before it
    s = until(r, s, lambda s: s.step.get("decision") == "combat" and s.active == "german" and not s.pending)
    assert all(u not in a.attackers for a in r.legal_actions(s) if isinstance(a, Attack) for u in ("VIK", "17Pz"))
    s = until(r, s, lambda s: s.active == "soviet")
    assert not any("arrived" in u.markers for u in s.units.values())


def test_no_german_reinforcements_without_a_soviet_stack_south_of_the_start_line(game):
    r = Runner(game)
    for seed in range(1, 4):
        s = until(r, r.new_game(seed), lambda s: s.turn == 2 and s.active == "german"
                  and s.step.get("decision") in ("place", "designate"))
        south = any(u.side == "soviet" and u.hex in game.map.areas["start-line-south"] for u in s.units.values())
        assert (s.step["decision"] == "place") == south
    s = until(r, r.new_game(1), lambda s: s.turn == 1 and s.active == "soviet"
              and s.step.get("decision") == "reorganize")
    for u in list(s.on_map("soviet")):
        if u.hex in game.map.areas["start-line-south"]:
            s.place(u.id, None, "pool:soviet-reserve")
    s.version += 1
    s = until(r, s, lambda s: s.turn == 2 and s.active == "german" and s.step.get("decision") in ("place", "designate"))
    assert s.step["decision"] == "designate"


def test_the_start_line_divides_the_set_up_and_leaves_korocha_soviet(game):
    """2.2.1 3 / 3.3(1): at the start the ground north of the start line is
    Soviet and south of it German; Korocha (a VP hex, 1411) lay behind the
    7th Guards Army's front east of Belgorod, so a Soviet stack holding it is
    no breakthrough and brings no German reinforcements (7.0)."""
    south = game.map.areas["start-line-south"]
    korocha = game.map.grid.parse_id("1411")
    assert korocha not in south and game.map.areas["vp-korocha"] == {korocha}
    s = Runner(game).new_game(1)
    assert all(u.hex in south for u in s.on_map("german"))
    assert not any(u.hex in south for u in s.on_map("soviet"))
    r = Runner(game)
    s = until(r, r.new_game(1), lambda s: s.turn == 1 and s.active == "soviet"
              and s.step.get("decision") == "reorganize")
    for u in list(s.on_map("soviet")):
        if u.hex in south:
            s.place(u.id, None, "pool:soviet-reserve")
    s.place(sorted(u.id for u in s.on_map("soviet"))[0], korocha)
    s.version += 1
    s = until(r, s, lambda s: s.turn == 2 and s.active == "german" and s.step.get("decision") in ("place", "designate"))
    assert s.step["decision"] == "designate"  # no XXIV Panzer Corps


def test_soviet_reinforcements_bring_the_tracks_tank_and_equipment_chits(game):
    """7.0: the units the track names enter at a Soviet source with the
    track's TK and EQ chits drawn at random, placed as the Soviet player likes."""
    r = Runner(game)
    s = until(r, r.new_game(1), lambda s: s.turn == 3 and s.active == "soviet" and s.step.get("decision") == "place")
    assert s.step["units"] == ["10TK"]
    places = [a for a in r.legal_actions(s) if hasattr(a, "at")]
    assert {a.at for a in places} <= {"0101", "0301", "1001", "1301"}  # the track's N (7.0(1), reconstructed)
    s = r.apply(s, f"place 10TK {sorted({a.at for a in places})[0]}")
    drawn = sorted(u.id for u in s.units.values() if u.box == "pool:soviet-arriving")
    assert sum(game.counters[c].unit_class == "tank" for c in drawn) == 2 and len(drawn) == 3  # turn 3: TK 2, EQ 1
    assert s.step["decision"] == "reorganize"
    for c in drawn:
        s = r.apply(s, f"attach {c} 10TK")
    assert sorted(s.attached["10TK"]) == drawn


def test_the_soviet_player_chooses_the_tracks_number_of_each_formations_units(game):
    """7.0(1): (XXXVG/5GA/5GTA) the Soviet player takes from his reserve pool
    as many units of the formation as the turn track shows, as he chooses."""
    r = Runner(game)
    assert {u for u, c in game.counters.items() if c.formation == "5GTA"} == {"18TK", "29TK", "5GMK"}
    s = until(r, r.new_game(1), lambda s: s.turn == 6 and s.active == "soviet" and s.step.get("decision") == "place"
              and r.program[s.pc].phase.id == "soviet-formations")
    assert s.step["quota"] == {"XXXVG": 1, "5GTA": 2}  # the track: XXXVG x1, 5GTA x2
    assert sorted(s.step["units"]) == ["18TK", "29TK", "5GMK", "94G"]  # (92G and 93G came on turn 5)
    assert s.units["95G"].box == "pool:soviet-reserve"  # 5GA: not this turn
    with pytest.raises(IllegalActionError, match=r"95G \(5GA\) does not come this turn: the turn track brings "
                                                 r"2 of 5GTA, 1 of XXXVG"):
        r.apply(s, "place 95G 1001")
    s.place("2TK", game.map.grid.parse_id("1303"))  # (this seed's 2TK still stands on the source 1402)
    s.version += 1
    assert {a.at for a in r.legal_actions(s) if hasattr(a, "at")} == {"1402", "1405", "1408"}  # all from the east
    def free(unit):
        return sorted({a.at for a in r.legal_actions(s) if getattr(a, "unit", "") == unit})[0]
    s = r.apply(s, f"place 5GMK {free('5GMK')}")
    s = r.apply(s, f"place 29TK {free('29TK')}")
    assert s.step["quota"] == {"XXXVG": 1} and s.step["units"] == ["94G"]  # 18TK stays in the pool
    s = r.apply(s, f"place 94G {free('94G')}")
    assert s.units["18TK"].box == "pool:soviet-reserve"
    assert all("arrived" in s.units[u].markers for u in ("5GMK", "29TK", "94G"))
    assert s.step["decision"] == "reorganize"  # turn 6: TK 4, EQ 3 to place under them


def test_each_soviet_reinforcement_enters_on_the_edge_the_track_marks(game):
    """7.0(1) 【N/E】: the units the track marks N or E enter at any Soviet
    source of that edge (reconstructed: 10TK and 5GA north, 2TK, XXXVG and
    5GTA east); 3.4(4), 7.0(2): a source held by a friendly unit takes
    reinforcements too (the limit is judged where their move ends)."""
    north, east = {"0101", "0301", "1001", "1301"}, {"1402", "1405", "1408"}
    r = Runner(game)
    s = until(r, r.new_game(2), lambda s: s.turn == 4 and s.active == "soviet" and s.step.get("decision") == "place")
    assert s.step["units"] == ["2TK"] and {a.at for a in r.legal_actions(s) if hasattr(a, "at")} <= east
    with pytest.raises(IllegalActionError, match=r"2TK cannot be placed in 1001: it enters in soviet-east "
                                                 r"\(1402, 1405, 1408\)"):
        r.apply(s, "place 2TK 1001")
    s = until(r, s, lambda s: s.turn == 7 and s.active == "soviet" and s.step.get("decision") == "place"
              and r.program[s.pc].phase.id == "soviet-formations")
    for a in r.legal_actions(s):
        if hasattr(a, "at"):
            assert a.at in (north if game.counters[a.unit].formation == "5GA" else east), a
    # every eastern source held by a Soviet unit: 5GTA's unit still comes, onto a held source
    s = until(r, r.new_game(2), lambda s: s.turn == 7 and phase_id(r, s) == "german-reorganization")
    blockers = sorted(u.id for u in s.on_map("soviet") if u.hex not in {game.map.grid.parse_id(h) for h in east})
    for h, uid in zip(sorted(east), blockers):
        s.place(uid, game.map.grid.parse_id(h))
    s.version += 1
    s = until(r, s, lambda s: s.active == "soviet" and s.step.get("decision"))
    assert s.step.get("decision") == "place" and phase_id(r, s) == "soviet-formations"
    assert {game.counters[u].formation for u in s.step["units"]} == {"5GA", "5GTA"} and s.step["n"] == 3
    tank = next(u for u in s.step["units"] if game.counters[u].formation == "5GTA")
    assert {a.at for a in r.legal_actions(s) if getattr(a, "unit", "") == tank} == east


def test_check_refuses_an_entry_area_it_cannot_run(tmp_path):
    import shutil
    from dsl.compiler import check_game
    for old, new, message in [
        ("at soviet-east for 2TK", "at soviet-east for 2TX",
         "'2TX' is no counter, formation, unit class, class flag, nationality or side"),
        ("at soviet-east for 2TK", "at soviet-eats for 2TK", "unknown area 'soviet-eats'"),
        ("at soviet-east for 2TK", "at soviet-east for", "at AREA for takes the units that enter there"),
        ("at soviet-north for 5GA", "at soviet-north for 5GA XXXVG", "XXXVG already enters elsewhere"),
        ("at soviet-north for 10TK", "at soviet-north", "the phase says twice where its units enter"),
    ]:
        folder = tmp_path / new.replace(" ", "_")
        shutil.copytree(GAMES / "prokhorovka", folder)
        text = (folder / "game.hxr").read_text()
        assert old in text
        (folder / "game.hxr").write_text(text.replace(old, new, 1))
        _, diags, _ = check_game(folder)
        assert any(message in d.message and d.span for d in diags.items), (new, [d.message for d in diags.items])


def test_the_greedy_bot_takes_the_strongest_units_when_it_chooses(game):
    r = Runner(game)
    s = until(r, r.new_game(1), lambda s: s.turn == 7 and s.active == "soviet" and s.step.get("decision") == "place"
              and r.program[s.pc].phase.id == "soviet-formations")
    assert s.step["choice"] and GreedyBot(1).choose(r, s).unit == "5GMK"  # 3-2-6 before the 3-1-4 rifles


def test_the_first_tank_army_and_the_reserve_stand_on_turn_1_and_move_at_half_speed_on_turn_2(game):
    """17.1(3): the Soviet units of 1TA and R cannot move on turn 1 and move at
    half MP on turn 2 (R: 2GTK and 5GTK, the Front reserve, reconstructed)."""
    r = Runner(game)
    first = ("6TK", "31TK", "3MK", "2GTK", "5GTK")
    assert {game.counters[u].formation for u in first} == {"1TA", "R"}
    s = until(r, r.new_game(1), lambda s: s.turn == 1 and s.active == "soviet" and s.step.get("decision") == "movement"
              and not s.pending)  # (not in an air window, 16.0)
    assert all(s.units[u].hex is not None for u in first)
    moving = {a.unit for a in r.legal_actions(s) if isinstance(a, Move)}
    assert moving and not moving & set(first)
    s = until(r, s, lambda s: s.turn == 2 and s.active == "soviet" and s.step.get("decision") == "movement")
    from runtime.movement import unit_mp, SCALE
    assert all(unit_mp(game, s, u) == 3 * SCALE for u in first if s.units[u].hex is not None)
    others = [u.id for u in s.on_map("soviet") if u.id not in first and game.counters[u.id].unit_class == "mech"]
    assert all(unit_mp(game, s, u) == 6 * SCALE for u in others)
    s = until(r, s, lambda s: s.turn == 3)
    assert not any({"held", "slowed"} & u.markers for u in s.units.values())


# ------------------------------------------------------------------ entrenchments, victory (17.2, 18.0)

def test_an_entrenchment_works_for_its_own_sides_stack_only(game):
    """17.2(2): the (Soviet) entrenchments add 1 to the defence level of a
    Soviet stack only, even in a hex the Germans took."""
    from runtime.combat.dicepool.setup import build, defence_level
    r = Runner(game)
    town = r.board.parse("0708")  # Yakovlevo: a town (2) with an entrenchment
    assert "entrenchment" in r.board.features(town)
    assert defence_level(game, r.board, "defence-level", town, (), 0, "soviet") == 3
    assert defence_level(game, r.board, "defence-level", town, (), 0, "german") == 2
    s = r.new_game(1)
    for u in list(s.units_at(town)) + list(s.units_at(r.board.parse("0709"))):
        s.place(u.id, None, "pool:soviet-reserve" if u.side == "soviet" else "pool:german-reserve")
    s.place("LAH", town)
    s.place("52G", r.board.parse("0709"))
    s.version += 1
    assert build(game, r.board, s, ["52G"], town).level == 2  # a German stack in the Soviet entrenchment
    s.place("LAH", r.board.parse("0709"))
    s.place("52G", town)
    s.version += 1
    assert build(game, r.board, s, ["LAH"], town).level == 3


def test_check_refuses_a_feature_of_a_side_where_nothing_reads_it(tmp_path):
    from helpers import MINI_GAME, MINI_MAP, make_game
    from dsl.compiler import check_game
    text = MINI_GAME.replace('feature city "City" { colour "#cc2222" }', 'feature city "City" { colour "#cc2222"; side a }')
    assert text != MINI_GAME
    _, diags, _ = check_game(make_game(tmp_path, text, MINI_MAP))
    assert any("feature city belongs to a side, which only dice-pool battles read" in d.message for d in diags.items)


def test_a_road_to_a_soviet_source_scores_one_vp(game):
    """18.0(1)2: a German stack next to a Soviet source along a road, with a
    line to a German source along roads only."""
    r = Runner(game)
    s = r.new_game(1)
    for u in list(s.on_map("soviet")):
        s.place(u.id, None, "pool:soviet-reserve")
    for u in list(s.on_map("german")):
        if u.id != "LAH":
            s.place(u.id, None, "pool:german-reserve")
    s.place("LAH", r.board.parse("1002"))  # Prokhorovka, next to 1001 along the road
    s.version += 1
    names, fns = r.env(s)
    assert fns["supplied-along"]("german", "1002", "road")
    assert not fns["supplied-along"]("german", "1105", "road")  # no road there
    s.vp = {}
    r.checkpoint_end_awards(s)
    with_gate = s.vp.get("german", 0)
    s.place("LAH", r.board.parse("1105"))
    s.version += 1
    s.vp = {}
    r.checkpoint_end_awards(s)
    assert with_gate == s.vp.get("german", 0) + 1
    # a Soviet stack on the road cuts the road-only line; a line across country still runs
    s.place("LAH", r.board.parse("1002"))
    s.place("52G", r.board.parse("1004"))
    s.version += 1
    names, fns = r.env(s)
    assert not fns["supplied-along"]("german", "1002", "road") and fns["supplied"]("german", "1002")


# ------------------------------------------------------------------ face-down equipment (3.5(5))

def test_face_down_equipment_shows_its_cup_not_which_chit_until_its_stack_fights(game):
    from runtime.observe import determinise
    r = Runner(game)
    s = until(r, r.new_game(1), lambda s: s.turn == 1 and s.active == "german" and s.step.get("decision") == "combat"
              and not s.pending)
    host = next(h for h in sorted(s.attached) if s.units[h].side == "german" and s.attached[h])
    chits = s.attached[host]
    view = observe(game, s, "soviet")
    assert host not in view.attached and all(view.units[c].box == "?" for c in chits)
    cups = {}
    for c in chits:
        cups[f"under:{host}|{game.counters[c].arrives}"] = cups.get(f"under:{host}|{game.counters[c].arrives}", 0) + 1
    assert {k: v for k, v in view.observed["places"].items() if k.startswith(f"under:{host}|")} == cups
    assert observe(game, s, "german").attached[host] == chits  # its own side sees them
    sample = determinise(game, view, random.Random(5))
    assert sorted(game.counters[c].arrives for c in sample.attached[host]) == \
        sorted(game.counters[c].arrives for c in chits)
    assert all(sample.units[c].box == f"under:{host}" for c in sample.attached[host])
    # the log: the German player put them under his units unseen
    log = observe_log(game, s.log, "soviet")
    assert not any(e.get("attach") in chits for e in log)
    assert any(e.get("action", "").startswith("attach ?") for e in log if e.get("side") == "german")
    # once the stack fights, its chits are face up for good (until they come back from a pool)
    attack = next((a for a in r.legal_actions(s) if isinstance(a, Attack) and host in a.attackers), None)
    if attack is None:
        return
    s2 = r.apply(r.apply(s, attack), "done")   # every attack declared (9.2(3)): the battle is fought
    while s2.pending and s2.pending[0].get("stage") == "equipment":   # all the equipment fights (11.2(1))
        s2 = r.apply(s2, "done")
    view2 = observe(game, s2, "soviet")
    alive = [c for c in chits if s2.units[c].box == f"under:{host}"]
    assert all(view2.units[c].box == f"under:{host}" for c in alive)


def test_check_refuses_a_face_down_it_does_not_know(tmp_path):
    import shutil
    from dsl.compiler import check_game
    folder = tmp_path / "prokhorovka"
    shutil.copytree(GAMES / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text().replace("face-down yes ", "face-down maybe ", 1)
    (folder / "game.hxr").write_text(text)
    _, diags, _ = check_game(folder)
    assert any("face-down is yes, blind or no, not 'maybe'" in d.message for d in diags.items)


# ------------------------------------------------------------------ optional rules (19.0)

@pytest.mark.parametrize("variant", ["extended", "xxiv-corps", "more-5ga", "breakdown", "blind-equipment"])
def test_the_optional_rules_are_variants_that_play_to_the_end(variant):
    g = compile_game(GAMES / "prokhorovka", variants=[variant])
    r = Runner(g)
    bot = GreedyBot(2)
    s = r.new_game(2)
    while s.result is None:
        s = r.apply(s, bot.choose(r, s))
    assert s.turn == (10 if variant == "extended" else 9), variant


def test_19_2_a_roll_of_1_or_2_brings_a_xxiv_corps_unit_in():
    g = compile_game(GAMES / "prokhorovka", variants=["xxiv-corps"])
    r = Runner(g)
    seen: set[str] = set()
    # seeds 4 and 100 roll 1-2 and draw VIK and 23Pz today (checked by playing seeds 1-48 and 100: VIK
    # in 4; 23Pz in 100, 2, 3, 7 and others; 17Pz in 17, 21, 38); the others follow in case a rule or
    # bot change moves the dice
    for seed in dict.fromkeys((4, 100, *range(1, 60))):
        s = until(r, r.new_game(seed), lambda s: s.turn >= 5 or s.result is not None)
        s = until(r, s, lambda s: s.result is not None or
                  (s.log and s.log[-1].get("table") == "xxiv-corps" and s.log[-1]["result"] == "commits"))
        if s.result is not None:
            continue
        # 19.2(2): one unit drawn at random from the reserve pool, with its chits
        assert s.step.get("decision") == "place" and s.step["n"] == 1 and s.step["side"] == "german"
        assert len(s.step["units"]) == 1
        uid = s.step["units"][0]
        seen.add(uid)
        hexes = sorted({a.at for a in r.legal_actions(s) if hasattr(a, "at")})
        s = r.apply(s, f"place {uid} {hexes[0]}")
        carried = s.attached.get(uid, ())
        tanks = sum(g.counters[c].unit_class == "tank" for c in carried)
        assert (tanks, len(carried) - tanks) == ((2, 1) if uid == "VIK" else (1, 1))  # VIK: 2 tank, 1 equipment
        if "VIK" in seen and len(seen) > 1:
            return
    raise AssertionError(f"the roll of 1-2 drew only {seen} in 61 games")


def test_19_4_adds_two_5ga_divisions_and_19_6_hides_the_cups_too():
    g = compile_game(GAMES / "prokhorovka", variants=["more-5ga"])
    r = Runner(g)
    s = r.new_game(1)
    assert s.units["6GAb"].box == s.units["66G"].box == "pool:soviet-reserve"
    assert g.counters["6GAb"].formation == g.counters["66G"].formation == "5GA"
    assert [(g.turn_track.turn(n).values["5GA"], g.turn_track.turn(n).values["soviet-eq"]) for n in (5, 6)] == \
        [(1, 3), (1, 4)]  # one more 5GA unit and equipment chit on turns 5 and 6
    g = compile_game(GAMES / "prokhorovka", variants=["blind-equipment"])
    r = Runner(g)
    s = until(r, r.new_game(1), lambda s: s.turn == 1 and s.active == "german" and s.step.get("decision") == "combat")
    places = observe(g, s, "soviet").observed["places"]
    under = [k for k in places if k.startswith("under:")]
    assert under and all("|" not in k for k in under)


@pytest.mark.parametrize("old, new, message", [
    ("column 5GTA number", "column 5GTX number",
     "the turn track has no number column '5GTA': a reinforce phase takes as many units of formation 5GTA"),
    ("formation XXXVG 5GA 5GTA", "formation XXXVG 5GA 5GTR", "no counter belongs to formation '5GTR'"),
    ("pick random", "pick strongest", "pick takes 'random'"),
    ('marked(VIK, "arrived")', 'marked(VIK, "arived")', 'marked() takes a unit marker in quotes that a rule gives'),
])
def test_check_refuses_reinforcement_choices_it_cannot_run(tmp_path, old, new, message):
    import shutil
    from dsl.compiler import check_game
    folder = tmp_path / "prokhorovka"
    shutil.copytree(GAMES / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text()
    assert old in text
    (folder / "game.hxr").write_text(text.replace(old, new, 1))
    _, diags, _ = check_game(folder)
    assert any(message in d.message for d in diags.items), [d.message for d in diags.items]


def test_19_6_2_chits_placed_as_reinforcements_still_show_their_cup():
    """19.6(2): under blind-equipment the enemy still sees whether a chit a player puts under a unit as a
    reinforcement is a tank or an equipment chit (the game's shown-from german-arriving soviet-arriving);
    other face-down chits show nothing; which chit it is stays hidden."""
    from runtime import attachments as A
    from runtime.observe import determinise, hidden_under
    g = compile_game(GAMES / "prokhorovka", variants=["blind-equipment"])
    assert g.attachments["equipment"].shown_from == frozenset({"german-arriving", "soviet-arriving"})
    r = Runner(g)
    s = r.new_game(1)
    host = next(u.id for u in s.on_map("german") if not A.under(s, u.id) and A.kind_of(g, u.id) is None)
    s.place("Tiger1", None, "pool:german-arriving")      # drawn for the reinforcements (7.0)
    s.place("StuG1", None, "pool:german-reorganization")
    A.attach(g, s, "Tiger1", host, "reinforcement equipment")
    A.attach(g, s, "StuG1", host, "reorganization")
    v = observe(g, s, "soviet")
    assert hidden_under(v)[host] == ["", "pool:german-tank-cup"]   # the reinforcement's cup; the other, nothing
    assert not any("Tiger1" in k for k in v.done) and v.units["Tiger1"].box == "?"
    t = determinise(g, v, random.Random(3))
    under = [a for a in t.attached[host] if g.counters[a].arrives == "pool:german-tank-cup"]
    assert under   # a sample puts a tank chit there
    assert hidden_under(observe(g, s, "german")) == {}  # (its owner sees them)
    # put back in the cup and drawn again into the reorganization pool: it shows nothing once more
    A.remove(g, s, "Tiger1", "test")
    s.place("Tiger1", None, "pool:german-reorganization")
    A.attach(g, s, "Tiger1", host, "reorganization")
    assert hidden_under(observe(g, s, "soviet"))[host] == ["", ""]
    # without the variant the cup always shows, and shown-from is refused where it means nothing
    g0 = compile_game(GAMES / "prokhorovka")
    assert g0.attachments["equipment"].shown_from == frozenset()
