"""The engine API over movement and odds combat: actions in text, illegal
actions explained, combat results applied (losses, retreat, advance), and
invariants of retreats on random positions."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime.actions import Advance, Attack, Done, IllegalActionError, LoseStep, Move, Retreat, parse_action
from runtime.engine import Engine

from helpers import fixed_die, gekitou_game, setup_state


@pytest.mark.parametrize("text", ["move 7Pz 1405", "move 7Pz 1405 march", "attack 1305 with 4Pz,10Mot",
                                  "lose 4Pz", "retreat 7Pz 1306,1407", "retreat 7Pz -", "advance 4Pz 1305,1306",
                                  "done"])
def test_action_text_round_trips(text):
    assert str(parse_action(text)) == text


def test_unreadable_action():
    with pytest.raises(IllegalActionError, match="cannot read the action 'fly 7Pz'"):
        parse_action("fly 7Pz")


def game_with(tmp_path, counters, setup, **kw):
    game = gekitou_game(tmp_path, counters, setup, **kw)
    eng = Engine(game)
    s = setup_state(game)
    s.active = "axis"
    return game, eng, s


def fight(eng, s, attack: str):
    """An attack fought at once: declared, then 'done', where the game
    declares every attack before the first is rolled (Gekitou 10.2(1))."""
    s = eng.apply(s, attack)
    return eng.apply(s, "done") if eng.game.combat.declare_first else s


def test_moves_change_the_state_and_are_logged(tmp_path):
    game, eng, s = game_with(tmp_path, ["X german infantry 3-5 2-5"], ["X 0105"],
                             hexes=["0305 clear town"])
    s.phase = "movement"
    assert Move("X", "0305") in eng.legal_actions(s)
    s2 = eng.apply(s, "move X 0305")
    assert s2.units["X"].hex == game.map.grid.parse_id("0305") and s.units["X"].hex != s2.units["X"].hex
    assert s2.control[game.map.grid.parse_id("0305")] == "axis"
    path = s2.log[-1]["path"]
    assert s2.log[-1]["action"] == "move X 0305" and path[0] == "0105" and path[-1] == "0305" and len(path) == 3
    with pytest.raises(IllegalActionError, match="X has already moved"):
        eng.apply(s2, "move X 0405")


def test_illegal_move_says_why_in_the_games_terms(tmp_path):
    game, eng, s = game_with(tmp_path, ["X german infantry 3-5 2-5"], ["X 0105"])
    s.phase = "movement"
    with pytest.raises(IllegalActionError, match=r"^X cannot enter 0705: needs 6 MP, has 5$"):
        eng.apply(s, "move X 0705")
    s.phase = "combat"
    with pytest.raises(IllegalActionError, match="not a movement segment"):
        eng.apply(s, "move X 0205")


def test_attack_with_retreat_and_advance(tmp_path, monkeypatch):
    # 3-1 (9 against 3), die 6 -> RR: the defender retreats 2 hexes east
    # (toward the Soviet map edge), the panzer may advance 2 through clear.
    game, eng, s = game_with(tmp_path, ["P german panzer 9-4-10 4-2-10", "D red-army infantry 3-5 1-5"],
                             ["P 0405", "D 0505"])
    s.phase = "combat"
    acts = eng.legal_actions(s)
    assert Attack("0505", ("P",)) in acts
    fixed_die(monkeypatch, 6)
    s2 = fight(eng, s, "attack 0505 with P")
    entry = next(e for e in s2.log if e.get("action", "").startswith("attack") and "die" in e)  # (fought, not declared)
    assert (entry["column"], entry["die"], entry["result"]) == ("3-1", 6, "RR")
    g = game.map.grid
    assert s2.pending[0]["kind"] == "retreat"                 # two equal ways east: the Soviet chooses
    options = eng.legal_actions(s2)
    assert len(options) > 1 and all(isinstance(o, Retreat) and len(o.path) == 2 for o in options)
    s2 = eng.apply(s2, options[0])
    d_hex = s2.units["D"].hex
    assert d_hex is not None and g.to_colrow(d_hex)[0] == 7  # two hexes east
    assert s2.pending and s2.pending[0]["kind"] == "advance"
    advances = [a for a in eng.legal_actions(s2) if isinstance(a, Advance)]
    assert Advance("P", ("0505",)) in advances
    assert any(len(a.path) == 2 for a in advances)             # mechanized: up to 2 through clear
    s3 = eng.apply(s2, advances[-1])
    assert s3.units["P"].hex == g.parse_id(advances[-1].path[-1])
    assert not s3.pending
    with pytest.raises(IllegalActionError, match="not a combat segment"):
        eng.apply(s3, f"attack {g.format_id(d_hex)} with P")   # the battles fought, the segment is over


def test_advance_stops_after_one_hex_in_forest(tmp_path, monkeypatch):
    game, eng, s = game_with(tmp_path, ["P german panzer 9-4-10 4-2-10", "D red-army infantry 1-5 -"],
                             ["P 0405", "D 0505"], hexes=["0505 light-forest"])
    s.phase = "combat"
    fixed_die(monkeypatch, 6)
    s2 = fight(eng, s, "attack 0505 with P")
    assert {a for a in eng.legal_actions(s2) if isinstance(a, Advance)} == {Advance("P", ("0505",))}


def test_losses_are_allocated_by_the_owner(tmp_path, monkeypatch):
    # 1-1 (3 against 3), die 1 -> A2: two attackers, the Axis chooses
    game, eng, s = game_with(tmp_path, ["A german infantry 2-5 1-5", "B german infantry 1-5 -",
                                        "D red-army infantry 3-5 1-5"], ["A 0405", "B 0404", "D 0505"])
    s.phase = "combat"
    fixed_die(monkeypatch, 1)
    s2 = fight(eng, s, "attack 0505 with A,B")
    assert s2.pending[0]["kind"] == "loss"
    assert set(eng.legal_actions(s2)) == {LoseStep("A"), LoseStep("B")}
    with pytest.raises(IllegalActionError, match="axis must lose a step from one of A, B"):
        eng.apply(s2, "lose D")
    s3 = eng.apply(s2, "lose B")                          # B is eliminated, the 2nd step falls on A
    assert s3.units["B"].box == "eliminated" and s3.units["A"].step == 1 and not s3.pending
    assert s3.lost == ["B"]  # German units do not come back


def test_retreat_through_enemy_zoc_costs_a_step(tmp_path, monkeypatch):
    # the only hexes toward the east edge lie in the ZOC of Z
    game, eng, s = game_with(tmp_path, ["P german panzer 9-4-10 4-2-10", "Z german infantry 3-5 2-5",
                                        "D red-army infantry 3-5 2-5"],
                             ["P 0405", "Z 0705", "D 0505"])
    s.phase = "combat"
    fixed_die(monkeypatch, 5)  # 3-1, die 5 -> RR
    s2 = fight(eng, s, "attack 0505 with P")
    while s2.pending and s2.pending[0]["kind"] == "retreat":
        s2 = eng.apply(s2, eng.legal_actions(s2)[0])
    d = s2.units["D"]
    # a step lost to the ZOC; a Soviet rifle division eliminated in combat returns to
    # the available box (12.3(1)) at full strength
    assert (d.step == 1 and d.hex is not None) or (d.box == "pool:available" and "D" in s2.lost)


def test_surrounded_unit_is_destroyed_by_a_retreat(tmp_path, monkeypatch):
    ring = ["0404", "0405", "0504", "0506", "0604", "0605"]
    counters = [f"A{i} german infantry 3-5 2-5" for i in range(6)] + ["D red-army infantry 3-5 2-5"]
    setup = [f"A{i} {h}" for i, h in enumerate(ring)] + ["D 0505"]
    game, eng, s = game_with(tmp_path, counters, setup)
    s.phase = "combat"
    fixed_die(monkeypatch, 6)  # 15-3 = 5-1, die 6 -> 1RR: a step, then 2 hexes: nowhere to go
    s2 = fight(eng, s, "attack 0505 with A1")
    s2 = fight(eng, s, "attack 0505 with " + ",".join(f"A{i}" for i in range(6)))
    assert s2.units["D"].box == "pool:available" and s2.lost == ["D"]   # 12.3(1)
    assert any(e.get("destroyed") == "D" or e.get("eliminated") == "D" for e in s2.log)


def test_a_unit_that_moved_in_a_no_attack_mode_does_not_attack_across_a_hexside(tmp_path):
    # movement-mode no-attack with attacks on adjacent hexes (a CRT): the unit
    # that moved so is left out of the attacks listed and refused by name
    rail = 'movement-mode rail "Rail" { points 4; no-attack }'
    game, eng, s = game_with(tmp_path, ["P german panzer 9-4-10 4-2-10", "Q german panzer 9-4-10 4-2-10",
                                        "D red-army infantry 3-5 1-5"],
                             ["P 0205", "Q 0604", "D 0505"], extra=rail)
    s.phase = "movement"
    s = eng.apply(s, "move P 0405 rail")
    s = eng.apply(s, "move Q 0605")  # a normal move next to D as well
    s = eng.apply(s, "done")
    assert s.phase == "combat"
    attacks = [a for a in eng.legal_actions(s) if isinstance(a, Attack)]
    assert attacks and all("P" not in a.attackers for a in attacks)
    assert Attack("0505", ("Q",)) in attacks
    with pytest.raises(IllegalActionError, match="^P cannot attack: it moved by Rail$"):
        eng.apply(s, "attack 0505 with P,Q")
    eng.apply(s, "attack 0505 with Q")


def test_done_ends_segments(tmp_path):
    game, eng, s = game_with(tmp_path, ["X german infantry 3-5 2-5"], ["X 0105"])
    s.phase = "movement"
    s2 = eng.apply(s, Done())
    assert s2.phase == "combat"
    assert eng.apply(s2, Done()).phase == ""


# ---------------------------------------------------------------- invariants

@pytest.fixture(scope="module")
def small_world():
    from bench.synthetic import synthetic_game
    from runtime.board import Board
    game, _ = synthetic_game(16, 12, units=40, seed=3)
    return game, Board(game)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 100_000), hexes=st.integers(1, 2))
def test_retreats_avoid_enemy_zoc_when_they_can(small_world, seed, hexes):
    import random

    from runtime.retreat import distance_to_supply, retreat_paths
    from runtime.state import new_state
    from runtime.zoc import zoc_of
    game, board = small_world
    rnd = random.Random(seed)
    s = new_state(game)
    cells = list(game.map.hexes)
    for cid in game.counters:
        h = rnd.choice(cells)
        if len(s.units_at(h)) < 2 and s.side_at(h) in (None, s.units[cid].side):
            s.place(cid, h)
    soviets = [u for u in s.units.values() if u.hex is not None and u.side == "soviet"]
    if not soviets:
        return
    u = soviets[seed % len(soviets)]
    paths = retreat_paths(game, board, s, u.id, hexes, "axis")
    ezoc = zoc_of(game, board, s, "axis")
    assert paths
    for p in paths:
        assert all(s.side_at(h) in (None, "soviet") for h in p.hexes)
        chain = (u.hex,) + p.hexes
        assert all(a.distance(b) == 1 for a, b in zip(chain, chain[1:]))
    # brute force: is there a non-destroying retreat that never enters enemy ZOC?
    dist = distance_to_supply(game, board, "soviet")
    big = 1 << 30

    def clean(here, seen, left):
        if left == 0:
            return True
        d = dist.get(here, big)
        nbrs = [n for n, _ in board.adj[here] if n not in seen and s.side_at(n) in (None, "soviet")]
        closer = [n for n in nbrs if dist.get(n, big) < d]
        cands = closer or [n for n in nbrs if dist.get(n, big) <= d]
        second = len(seen) >= 2  # a second hex across an unbridged major river destroys (10.6(3)4)
        return any(n not in ezoc and board.terrain(n) != "sea"
                   and not (second and board.edge(here, n).crosses("major-river"))
                   and clean(n, seen | {n}, left - 1) for n in cands)

    if clean(u.hex, {u.hex}, hexes):
        for p in paths:
            assert p.destroyed or not any(h in ezoc for h in p.hexes), (p, u.hex)


def test_the_same_seed_gives_the_same_log(tmp_path):
    import json
    game, eng, s = game_with(tmp_path, [f"A{i} german panzer 6-4-10 3-2-10" for i in range(3)] +
                             [f"D{i} red-army infantry 2-5 1-5" for i in range(3)],
                             ["A0 0403", "A1 0405", "A2 0407", "D0 0503", "D1 0505", "D2 0507"])

    def play(seed):
        st = setup_state(game, seed=seed)
        st.active, st.phase = "axis", "combat"
        for target, unit in (("0503", "A0"), ("0505", "A1"), ("0507", "A2")):
            st = eng.apply(st, f"attack {target} with {unit}")   # declared (10.2(1))
        st = eng.apply(st, "done")                               # then fought, in the attacker's order
        while st.pending:
            st = eng.apply(st, eng.default_action(st))
        return json.dumps(st.log, sort_keys=True)

    assert play(7) == play(7)
    assert any(play(7) != play(seed) for seed in range(8, 20))


def fortress_attack(tmp_path, monkeypatch):
    game, eng, s = game_with(tmp_path, ["P german panzer 12-4-10 6-2-10", "D red-army infantry 3-5 1-5",
                                        "F red-army fortress 1 -"], ["P 0405", "D 0505", "F 0505"])
    s.phase = "combat"
    fixed_die(monkeypatch, 3)  # 12 against 3 + 1 = 3-1, die 3: R
    s2 = fight(eng, s, "attack 0505 with P")
    return game, eng, s2


def test_a_fortress_may_turn_a_retreat_into_a_step_loss(tmp_path, monkeypatch):
    from runtime.actions import Hold
    game, eng, s = fortress_attack(tmp_path, monkeypatch)
    assert s.pending[0]["kind"] == "hold" and set(eng.legal_actions(s)) == {Hold(), Done()}
    s2 = eng.apply(s, "hold")                                  # 14.2(5): R becomes one step lost
    assert s2.pending[0]["kind"] == "loss" and s2.pending[0]["steps"] == 1
    s3 = eng.apply(s2, "lose D")
    d = s3.units["D"]
    assert d.step == 1 and d.hex == game.map.grid.parse_id("0505") and s3.units["F"].hex == d.hex


def test_a_fortress_cannot_retreat(tmp_path, monkeypatch):
    game, eng, s = fortress_attack(tmp_path, monkeypatch)
    s2 = eng.apply(s, "done")                                  # retreat after all
    while s2.pending and s2.pending[0]["kind"] == "retreat":
        s2 = eng.apply(s2, eng.legal_actions(s2)[0])
    assert s2.units["F"].hex is None and "F" in s2.lost         # 14.3(1): it cannot retreat
    assert s2.units["D"].hex != game.map.grid.parse_id("0505")


@pytest.mark.parametrize("folder, scenario", [("smolensk", "short"), ("a-victory-denied", None)])
def test_the_answers_noted_while_settling_are_the_answers_worked_out_afresh(folder, scenario):
    """A retreat or advance that settling could not take by itself lists its
    answers once (``note_answers``): the engine lists them again from the
    note while the state stands as it is; on every such decision of random
    games, the noted answers are the answers worked out afresh."""
    from pathlib import Path

    from dsl.compiler import compile_game
    from runtime.bots import RandomBot
    from runtime.runner import Runner

    runner = Runner(compile_game(Path(__file__).resolve().parent.parent / "games" / folder), scenario)
    engine, compared = runner.engine, 0
    for seed in range(1, 11):
        bot, s = RandomBot(seed), runner.new_game(seed)
        for _ in range(3000):
            if s.result is not None or compared >= 40:
                break
            if s.pending and s.pending[0]["kind"] in ("retreat", "advance"):
                assert list(engine.legal_actions(s)) == list(engine._pending_actions(s))
                compared += 1
            s = runner.apply(s, bot.choose(runner, s))
    assert compared >= 10
