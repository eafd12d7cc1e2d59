"""The greedy bot's shortcuts read what the long way would: the odds of an
attack a move would set up, looked up without making the move; a unit's
retreats from where it stands, weighed without a copy of the state; the
farthest move, kept for a list of destinations seen before; the menace's
attack strengths and units' reach, kept across states on the board.  Each is
checked against the long way on the states of a Smolensk game."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl.compiler import compile_game
from runtime.action_lists import Moves
from runtime.bots import GreedyBot
from runtime.greedy_moves import listed_moves
from runtime.hexes import Hex, count_within, counts_within, farthest
from runtime.menace import Menace
from runtime.retreat import retreat_paths
from runtime.runner import Runner

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture(scope="module")
def movement_states():
    """The first movement decisions of a greedy Smolensk short game (bid 5), each with its side."""
    runner = Runner(compile_game(GAMES / "smolensk", ("vp-bidding",)), "short", params={"bid": 5})
    bots = {side: GreedyBot(i + 1) for i, side in enumerate(runner.game.sides)}
    s = runner.new_game(3)
    out = []
    while s.result is None and len(out) < 60:
        side = runner.to_move(s)
        if s.phase == "movement" and not s.pending and isinstance(runner.legal_actions(s), Moves):
            out.append((s, side))
        s = runner.apply(s, bots[side].choose(runner, s))
    assert len(out) >= 30
    return runner, out


def test_the_odds_of_a_move_weighed_are_keyed_as_if_it_were_made(movement_states):
    runner, states = movement_states
    bot = GreedyBot(0)
    board, engine = runner.board, runner.engine
    compared = 0
    for s, side in states[::3]:
        by_unit, _ = listed_moves(board, runner.legal_actions(s))
        enemy = set(bot._enemy_hexes(s, side))
        for uid, ms in [(u, ms) for u, ms in sorted(by_unit.items()) if not bot._is_hq(runner, u)][:6]:
            here = s.units[uid].hex
            ready_mover = uid not in s.attacked and engine.can_act(s, uid) and not engine.no_attack_after_move(s, uid)
            for m in ms:
                for t in (t for t, _ in board.adj[m.hex] if t in enemy and t.distance(here) > 1):
                    base = bot._ready(runner, s, side, t)
                    after = s.copy()
                    after.place(uid, m.hex)
                    after.moved.add(uid)
                    made = bot._ready(runner, after, side, t)
                    assert made == sorted([*base, uid] if ready_mover else base)
                    assert bot._odds_key(after, made, t) == bot._odds_key(s, made, t, (uid, m.hex))
                    compared += 1
    assert compared > 50


def test_retreats_weighed_where_a_unit_stands_need_no_copy(movement_states):
    runner, states = movement_states
    g, board = runner.game, runner.board
    compared = 0
    for s, side in states[::4]:
        enemy = next(x for x in g.sides if x != side)
        for u in [u for u in s.units.values() if u.side == side and u.hex is not None][:12]:
            moved = s.copy()
            moved.place(u.id, u.hex)  # (what the bot did before: the unit put back where it stands, in a copy)
            assert retreat_paths(g, board, s, u.id, 2, enemy) == retreat_paths(g, board, moved, u.id, 2, enemy)
            compared += 1
    assert compared > 50


def test_a_menace_read_from_what_the_board_kept_is_the_menace_worked_out_afresh(movement_states):
    """Menace keeps each enemy unit's reach and attack strengths on the
    board, across states (a search weighs a menace for each battle's
    result): on every state, the enemy's attack on the hexes near the front,
    and the chance a unit standing there is lost, are what a menace worked
    out with nothing kept gives."""
    runner, states = movement_states
    board = runner.board
    compared = 0
    for s, side in states[::2]:
        enemy = next(x for x in runner.game.sides if x != side)
        kept = Menace(runner.game, board, s, enemy)
        board.__dict__.pop("_menace_units", None)
        board.__dict__.pop("_menace_strengths", None)
        fresh = Menace(runner.game, board, s, enemy)
        assert kept._units == fresh._units
        mine = [u for u in s.on_map(side) if not runner.game.counters[u.id].unit_class.endswith("hq")][:8]
        for u in mine:
            for h in [u.hex, *(n for n, _ in board.adj[u.hex])]:
                assert kept.attack(h) == fresh.attack(h)
                assert kept.loss_chance(s, u.id, h) == fresh.loss_chance(s, u.id, h)
                compared += 1
    assert compared > 100


def test_the_farthest_move_kept_is_the_farthest_move(movement_states):
    runner, states = movement_states
    bot = GreedyBot(0)
    for s, _ in states:
        acts = runner.legal_actions(s)
        by_unit, _ = listed_moves(runner.board, acts)
        want = max((farthest(s.units[u].hex, hexes) for u, _, hexes in acts.groups), default=0)
        assert bot._farthest(s, acts, by_unit) == want
    assert bot._far  # (kept, and read again by the decisions that followed)


@given(st.lists(st.tuples(st.integers(-12, 12), st.integers(-12, 12)), max_size=25),
       st.integers(0, 6), st.tuples(st.integers(-20, 20), st.integers(-20, 20)))
@settings(max_examples=200, deadline=None)
def test_counts_within_a_range_worked_out_at_once_are_the_counts_one_by_one(hexes, n, at):
    # (the HQ relocations of A Victory Denied count the units an HQ would command from each hex)
    units = [Hex(q, r) for q, r in hexes]
    counts = counts_within(units, n)
    h = Hex(*at)
    assert counts.get(h, 0) == count_within(h, units, n)
    assert all(counts[k] == count_within(Hex(*k), units, n) for k in counts)
