"""The engine's caches and lazy lists give what a fresh computation gives:
supply maps and retreat distances shared across states (runtime/supply.py,
runtime/retreat.py) after random action sequences, the CRT columns and
probabilities kept per argument, set-up hexes shared by units alike, the
place decisions built on demand (runtime.action_lists.Placements), and bots
that play the same game again for the same seed."""
from __future__ import annotations

import random
import re
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl.compiler import compile_game
from runtime import expr as E
from runtime import movement as M
from runtime import supply as S
from runtime.action_lists import Moves, Placements, Transfers, UnitPlacements
from runtime.actions import Done, IllegalActionError, Move, Use
from runtime.bots import make_bot, play
from runtime.decisions import Place, Transfer
from runtime.runner import Runner
from runtime.supply import sources_of
from runtime.zoc import enemy_zoc, zoc_of

from helpers import GAMES


@lru_cache(maxsize=None)
def runner(folder: str, scenario: str | None) -> Runner:
    return Runner(compile_game(GAMES / folder), scenario)


def random_walk(r: Runner, s, rnd: random.Random, steps: int):
    """The states after each of up to ``steps`` random answers from ``s``
    (fewer once the game is over), drawn with ``rnd``."""
    for _ in range(steps):
        if s.result is not None:
            return
        acts = r.legal_actions(s)
        s = r.apply(s, acts[rnd.randrange(len(acts))])
        yield s


def played(r: Runner, s, rnd: random.Random, steps: int):
    """The state after ``random_walk``'s last answer (``s`` if it gave none)."""
    for s in random_walk(r, s, rnd, steps):
        pass
    return s


def fresh_supply(r: Runner, s, side: str) -> dict:
    """The supply map computed from nothing: an uncached copy of the state,
    no shared searches."""
    c = s.copy()
    c.cache = {}
    S._SHARED.clear()
    return S.supply_map(r.game, r.board, c, side)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from([("smolensk", "short"), ("barbarossa-postcard", None)]),
       steps=st.integers(1, 120))
def test_property_cached_supply_map_equals_a_fresh_one(seed, game, steps):
    r = runner(*game)
    rnd = random.Random(seed)
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        for side in r.game.sides:
            cached = S.supply_map(r.game, r.board, s, side)
            assert cached == fresh_supply(r, s, side)
            assert cached == S.supply_map_reference(r.game, r.board, s, side)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from([("smolensk", "short"), ("a-victory-denied", None)]),
       steps=st.integers(1, 120))
def test_property_the_enemy_units_blocking_lines_are_kept_while_they_stand(seed, game, steps):
    """The hexes the enemy's units bar to a side's lines, kept on the enemy's
    stamp, are those a fresh look at the state gives; a state in which only
    the side's own units moved shares its parent's set."""
    r = runner(*game)
    rnd = random.Random(seed)
    before, shared = None, 0
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        for side in r.game.sides:
            kept = S.enemy_blocking(r.game, r.board, s, side)
            fresh = s.copy()
            fresh.cache = {}
            assert kept == S.enemy_blocking(r.game, r.board, fresh, side)
            if before is not None and before[1] == side and before[2] == s.side_stamp(before[3]):
                shared += kept is before[0]
            if side == s.active:
                other = next(x for x in r.game.sides if x != side)
                before = (kept, side, s.side_stamp(other), other)
    assert shared or steps < 30


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from([("smolensk", "short"), ("barbarossa-postcard", None),
                                                             ("a-victory-denied", None)]),
       steps=st.integers(1, 120))
def test_property_a_map_kept_where_more_hexes_close_to_leaving_equals_a_fresh_search(seed, game, steps):
    """The side's last supply map is kept for more hexes closed to leaving
    (a friendly unit gone from an enemy ZOC hex) only where a fresh search
    gives it as it is, the same hexes, lengths and order: checked for a few
    hexes of the map (and of its edge) closed at random, after random action
    sequences, both where the map is kept and where it is not; and it is
    kept for some."""
    r = runner(*game)
    rnd = random.Random(seed)
    st_ = S._static(r.board, r.game.supply)
    kept = 0
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        for side in r.game.sides:
            enemy, no_exit = S._unit_blocking(r.game, r.board, s, side)
            lost = S.lost_sources(r.board, s)
            lines = S._search(r.game, r.board, side, st_.impassable | enemy, no_exit, st_, lost)
            if not lines:
                continue
            for k in (1, 1, 2, 4):
                more = no_exit | frozenset(rnd.sample(list(lines), min(k, len(lines))))
                fresh = S._search(r.game, r.board, side, st_.impassable | enemy, more, st_, lost)
                if S._stopped_anyway(r.game, side, st_, lines, no_exit, more):
                    kept += 1
                    assert list(fresh.items()) == list(lines.items())
                else:
                    assert more != no_exit
    assert kept or steps < 20


def test_a_map_is_kept_for_a_hex_closed_that_carried_no_line_on():
    """A hex the search never carried on from (every neighbour it could add
    was added first) closed to leaving keeps the map; a hex that added one
    does not, and closing some of those changes the map."""
    r = runner("smolensk", "short")
    s = r.new_game(1)
    st_ = S._static(r.board, r.game.supply)
    enemy, no_exit = S._unit_blocking(r.game, r.board, s, "soviet")
    lines = S._search(r.game, r.board, "soviet", st_.impassable | enemy, no_exit, st_)
    kept = [h for h in list(lines)[:400]
            if S._stopped_anyway(r.game, "soviet", st_, lines, no_exit, no_exit | {h})]
    assert kept and len(kept) < 400
    changed = 0
    for h in list(lines)[:400]:
        fresh = S._search(r.game, r.board, "soviet", st_.impassable | enemy, no_exit | {h}, st_)
        if h in kept:
            assert list(fresh.items()) == list(lines.items())
        else:
            changed += list(fresh.items()) != list(lines.items())
    assert changed


def _fresh_range(r: Runner, s, uid: str, mode: str | None):
    c = s.copy()
    c.cache = {}
    try:
        return M._move_range(r.game, r.board, c, uid, mode, None)
    except M.MoveError as e:
        return str(e)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from([("smolensk", "short"), ("barbarossa-postcard", None)]),
       steps=st.integers(1, 150))
def test_property_cached_move_ranges_and_rail_entries_equal_fresh_ones(seed, game, steps):
    """Move ranges kept in a state's cache (and carried to the copies that
    share its version), move searches shared across states and units, and
    rail entry traces shared across states (and the entry hexes with room
    kept for them), are what a search from nothing gives, after random
    action sequences."""
    r = runner(*game)
    rnd = random.Random(seed)
    modes = [None] + [m.id for m in r.game.movement.modes]
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        units = [u.id for u in s.on_map()]
        for uid in rnd.sample(units, min(6, len(units))):
            for mode in modes:
                try:
                    cached = M.move_range(r.game, r.board, s, uid, mode)
                except M.MoveError as e:
                    cached = str(e)
                assert cached == _fresh_range(r, s, uid, mode)
        if r.game.reinforcements.enter == "rail":
            for side in r.game.sides:
                ezoc = enemy_zoc(r.game, r.board, s, side)
                assert r._rail_from_sources(s, side) == _fresh_rail(r, s, side, ezoc, sources_of(r.board, s, side))
                entries = r.entry_hexes(s, side)
                assert entries == _fresh_entries(r, s, side, ezoc)
                # the ids of those with room, from the ids kept for the list shared by states alike
                assert r._room(s, entries) == [r.board.hex_id(h) for h in entries if r._fits(s, h)]


def _fresh_rail(r, s, side, ezoc, sources) -> set:
    """The rail entry hexes traced from nothing over the board's edges (12.1(2))."""
    start = [h for h in sources if s.side_at(h) in (None, side) and h not in ezoc]
    seen = set(start)
    todo = list(start)
    while todo:
        h = todo.pop()
        for n, e in r.board.adj[h]:
            if n in seen or "rail" not in e.links or s.side_at(n) not in (None, side) or n in ezoc:
                continue
            seen.add(n)
            todo.append(n)
    return {h for h in seen if any("rail" in e.links for _, e in r.board.adj[h])}


def _fresh_entries(r, s, side, ezoc) -> list:
    """The rail entry hexes where reinforcements may enter (12.1), from
    nothing: each rail hex traced, free of enemy units, and of enemy ZOC and
    enemy-held cities where the game says so, in map order."""
    not_in = r.game.reinforcements.not_in
    return sorted((h for h in _fresh_rail(r, s, side, ezoc, sources_of(r.board, s, side))
                   if s.side_at(h) in (None, side) and not ("enemy-zoc" in not_in and h in ezoc)
                   and not ("enemy-cities" in not_in and h in r.engine.controllable and s.control.get(h, side) != side)),
                  key=r.board.colrow.__getitem__)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from([("smolensk", "short"), ("barbarossa-postcard", None)]),
       steps=st.integers(1, 150))
def test_property_side_stamped_caches_equal_fresh_ones(seed, game, steps):
    """A side's ZOC, the enemy ZOC (and the part of it negated) and the
    enemy-held hexes, kept in a state's cache until the side (or the other
    side) moves a unit and carried to copies, are what a state without a
    cache gives, after random action sequences (the cached values are asked
    for along the way); so are the destinations of every unit that may move."""
    r = runner(*game)
    rnd = random.Random(seed)
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        bare = s.copy()
        bare.cache = {}
        for side in r.game.sides:
            assert zoc_of(r.game, r.board, s, side) == zoc_of(r.game, r.board, bare, side)
            assert enemy_zoc(r.game, r.board, s, side) == enemy_zoc(r.game, r.board, bare, side)
            assert M.held_by_others(s, side) == M.held_by_others(bare, side)
        if s.step.get("decision") == "movement" and not s.pending:
            # the destinations kept with a shared search for each unit (while nobody enters or leaves
            # the hexes it reached), and the stack counts kept per version, against a search from nothing
            for uid in r.engine.actors(s):
                for mode in [None] + [m.id for m in r.game.movement.modes]:
                    try:
                        kept = M.move_range(r.game, r.board, s, uid, mode).destinations
                    except M.MoveError:
                        continue
                    assert kept == _fresh_range(r, s, uid, mode).destinations


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1),
       game=st.sampled_from([("smolensk", "short"), ("barbarossa-postcard", None), ("a-victory-denied", None),
                             ("prokhorovka", None)]),
       steps=st.integers(1, 200), agent=st.sampled_from(["random", "greedy"]))
def test_property_carried_move_ranges_equal_fresh_ones(seed, game, steps, agent):
    """Move ranges carried from state to state (runtime.movement.carried_ranges:
    kept while the hexes each read stay as they were, by the state's trail)
    are what a search from nothing gives, for units on the map (8 drawn at
    each step) in every mode, after random or greedy action sequences in every game folder
    (overruns, move-in attacks, own-control modes, stacking judged at the end,
    reinforcements paying their entry)."""
    r = runner(*game)
    rnd = random.Random(seed)
    bots = {side: make_bot(agent, seed + i) for i, side in enumerate(r.game.sides)}
    s = r.new_game(seed)
    modes = [None] + [m.id for m in r.game.movement.modes]
    for _ in range(steps):
        if s.result is not None:
            break
        if agent == "random":
            acts = r.legal_actions(s)
            s = r.apply(s, acts[rnd.randrange(len(acts))])
        else:
            s = r.apply(s, bots[r.to_move(s)].choose(r, s))
        on_map = s.on_map()
        for u in rnd.sample(on_map, min(len(on_map), 8)):  # (every unit every step: most of the suite's time)
            for mode in modes:
                try:
                    kept = M.move_range(r.game, r.board, s, u.id, mode)
                except M.MoveError as e:
                    kept = str(e)
                assert kept == _fresh_range(r, s, u.id, mode)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1),
       game=st.sampled_from([("smolensk", "short"), ("barbarossa-postcard", None), ("a-victory-denied", None),
                             ("prokhorovka", None)]),
       steps=st.integers(1, 150))
def test_property_inputs_kept_with_carried_ranges_equal_fresh_ones(seed, game, steps):
    """The enemy ZOC, enemy-held hexes and closed sources kept with a side's
    carried ranges (what every new range of the side reads) are those of a
    state without caches, after random answers; and whether a counter is
    barred from attacking alone across a hexside (kept per counter and side)
    is what the game's limits say."""
    r = runner(*game)
    rnd = random.Random(seed)
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        for side in r.game.sides:
            kept = M.carried_ranges(r.game, r.board, s, side)
            c = s.copy()
            c.cache = {}
            assert kept.zoc == enemy_zoc(r.game, r.board, c, side)
            assert kept.held == M.held_by_others(c, side)
            assert kept.closed == S.closed_to(r.game, r.board, c, side)
    for uid, counter in r.game.counters.items():
        lim = r.game.combat.limit_for(counter.side)
        fresh = lim is not None and (lim.total < 1 or any(sel in r.game.selectors_of(uid) and most < 1
                                                          for sel, most in lim.per))
        assert M._alone_barred(r.game, s, uid) == fresh


def test_a_range_is_dropped_where_a_hex_it_read_changed():
    """A unit's carried range survives a move far from it and is judged
    again where a unit moves into a hex it reached (Barbarossa: the attacks
    into a hex count toward 6.3's limits there)."""
    r = runner("barbarossa-postcard", None)
    rnd = random.Random(5)
    s = r.new_game(5)
    while not (s.step.get("decision") == "movement" and not s.pending and r.engine.actors(s)):
        acts = r.legal_actions(s)
        s = r.apply(s, acts[rnd.randrange(len(acts))])
    uid = r.engine.actors(s)[0]
    kept = M.move_range(r.game, r.board, s, uid)
    t = s.copy()
    t.touch(next(h for h in r.board.map.hexes if h not in M._reads(r.board, kept.search)))
    assert M.move_range(r.game, r.board, t, uid) is kept
    if kept.stop_prev:
        t.touch(next(iter(kept.stop_prev)))
        again = M.move_range(r.game, r.board, t, uid)
        assert again is not kept
        # (the hex is judged again, by the same search: friendly units and attacks there change
        # where the move may end, not where it can go)
        assert again.search is kept.search and again == kept
    t.trail = None  # a trail that does not lead back to the range's: everything is worked out again
    assert M.move_range(r.game, r.board, t, uid) is not kept


def test_a_state_changed_in_place_gets_its_legal_actions_afresh():
    """The runner keeps the last list of legal actions for the state it was
    asked about; a change to that state (a unit placed) is not answered from it."""
    r = runner("barbarossa-postcard", None)
    rnd = random.Random(3)
    s = r.new_game(3)
    while s.step.get("decision") != "movement":
        acts = r.legal_actions(s)
        s = r.apply(s, acts[rnd.randrange(len(acts))])
    before = r.legal_actions(s)
    assert r.legal_actions(s) is before
    mover = next(a.unit for a in before if hasattr(a, "unit"))
    s.place(mover, None, "eliminated")
    after = r.legal_actions(s)
    assert all(getattr(a, "unit", None) != mover for a in after)
    assert after == list(r.engine.legal_actions(s))


def _all_moves(r: Runner, s) -> list:
    """The movement segment's actions built in full, unit by unit, as the
    engine listed them before they were built on demand."""
    e, out = r.engine, []
    for uid in s.units:
        if not e.can_act(s, uid) or e.immobile(uid):
            continue
        normal = frozenset()
        if not e.mode_bars(s, uid, ""):
            normal = M.move_range(r.game, r.board, s, uid).destinations
            out += [Move(uid, r.board.hex_id(h)) for h in sorted(normal)]
        for m in r.game.movement.modes:
            if e.mode_bars(s, uid, m.id):
                continue
            try:
                extra = M.move_range(r.game, r.board, s, uid, m.id).destinations - normal
            except M.MoveError:
                continue
            out += [Move(uid, r.board.hex_id(h), m.id) for h in sorted(extra)]
    return out + (e._detach_actions(s) if s.attached else []) + [Done()]


def _outcome(r: Runner, s, a):
    """What applying ``a`` to ``s`` gives: the reason it is refused, or the log it adds and where the units stand."""
    try:
        after = r.apply(s, a)
    except IllegalActionError as e:
        return str(e)
    return after.log[len(s.log):], {k: u.hex for k, u in after.units.items()}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from([("smolensk", "short"), ("barbarossa-postcard", None)]))
def test_property_move_decisions_read_as_the_full_list(seed, game):
    """The movement segment's actions, built when read (runtime.action_lists.Moves),
    are the full list in its order: length, every index (negative too),
    slices, membership (and what is not in it), iteration and equality; a
    move not in it is judged as it is without a list: refused for the same
    reason, or (a mode's move to a hex the normal move lists already, which
    the list leaves out) made alike (a listed move is not judged again when
    made)."""
    r = runner(*game)
    rnd = random.Random(seed)
    s = r.new_game(seed)
    seen = 0
    while s.result is None and seen < 4:
        acts = r.legal_actions(s)
        if s.step.get("decision") == "movement" and not s.pending and not r.effect_asks(s):
            seen += 1
            full = _all_moves(r, s)
            assert isinstance(acts, Moves)
            assert len(acts) == len(full) and list(acts) == full and acts == full
            assert [acts[i] for i in range(-len(full), len(full))] == full + full
            assert acts[2:7] == full[2:7]
            assert all(a in acts for a in full[:: max(1, len(full) // 50)])
            assert Move("no-such-unit", "0101") not in acts
            # membership by each unit's hex ids in each mode: what is not listed is not in it either
            ids = sorted({a.to for a in full if isinstance(a, Move)})
            for u in sorted({a.unit for a in full if isinstance(a, Move)}):
                for mode in ["", *(m.id for m in r.game.movement.modes)]:
                    for h in rnd.sample(ids, min(8, len(ids))):
                        assert (Move(u, h, mode) in acts) == (Move(u, h, mode) in full)
                        if Move(u, h, mode) not in full:  # (a move not listed is judged, as without a list:
                            # refused for the same reason, or, where a mode reaches a hex the normal move lists
                            # already, made the same way)
                            listed, fresh = _outcome(r, s, Move(u, h, mode)), None
                            r._legal_memo = r.engine._listed = None
                            fresh = _outcome(r, s, Move(u, h, mode))
                            assert listed == fresh
                            acts = r.legal_actions(s)
        s = r.apply(s, acts[rnd.randrange(len(acts))])
    assert seen


def test_placements_read_as_the_list_they_stand_for():
    units, hexes = ["19A", "20A", "21A"], ["0101", "0102"]
    lazy = Placements(units, hexes, [Done()])
    full = [Place(u, h) for u in units for h in hexes] + [Done()]
    assert len(lazy) == len(full) and list(lazy) == full and lazy == full
    assert [lazy[i] for i in range(-len(full), len(full))] == full + full
    assert lazy[1:4] == full[1:4]
    assert all(a in lazy for a in full)
    assert Place("19A", "0103") not in lazy and Place("22A", "0101") not in lazy
    assert Placements([], hexes, [Done()]) == [Done()]


def test_transfers_read_as_the_list_they_stand_for():
    units = ["19A", "20A", "21A"]
    lazy = Transfers(units, [Done()])
    full = [Transfer(u) for u in units] + [Done()]
    assert len(lazy) == len(full) and list(lazy) == full and lazy == full
    assert [lazy[i] for i in range(-len(full), len(full))] == full + full
    assert lazy[1:3] == full[1:3]
    assert all(a in lazy for a in full)
    assert Transfer("22A") not in lazy and Place("19A", "0101") not in lazy
    assert Transfers([], [Done()]) == [Done()]


def test_a_place_decision_lists_every_unit_in_every_hex_with_room():
    r = runner("smolensk", "short")
    rnd = random.Random(5)
    s = r.new_game(5)
    seen = 0
    while s.result is None and seen < 3:
        acts = r.legal_actions(s)
        if s.step.get("decision") == "place":
            seen += 1
            places = [a for a in acts if isinstance(a, Place)]
            assert {a.unit for a in places} == set(s.step["units"])
            assert len(places) == len(set(places)) == len(acts) - 1
        s = r.apply(s, acts[rnd.randrange(len(acts))])
    assert seen


def test_point_buy_answers_equal_each_units_own_placements():
    """A Victory Denied's point-buy (5 c-e) asks the placement rules once per
    kind of unit (runtime.reinforce ``_affordable``): its answers are those
    of asking them unit by unit, and it offers a purchase exactly when that
    list has one."""
    r = runner("a-victory-denied", None)
    rnd = random.Random(3)
    s = r.new_game(3)
    seen = 0
    for _ in range(3000):
        if s.result is not None or seen >= 6:
            break
        acts = r.legal_actions(s)
        if s.step.get("decision") == "place" and "points" in s.step:
            seen += 1
            by_unit = [Place(u, r.board.hex_id(h)) for u in s.step["units"] if r.unit_cost(u) <= s.step["points"]
                       for h in r.placement_hexes(s, u)]
            assert [a for a in acts if isinstance(a, Place)] == by_unit
            assert r._can_buy(s) == (len(acts) > 1)
        s = r.apply(s, acts[rnd.randrange(len(acts))])
    assert seen


def test_bots_play_the_same_game_for_the_same_seed():
    for folder, scenario, bot in (("smolensk", "short", "random"), ("barbarossa-postcard", None, "random"),
                                  ("barbarossa-postcard", None, "greedy")):
        r = runner(folder, scenario)
        logs = []
        for _ in range(2):
            agents = {side: make_bot(bot, 7 + i) for i, side in enumerate(r.game.sides)}
            S._SHARED.clear()
            end, n = play(r, r.new_game(7), agents)
            logs.append((n, end.log, end.result))
        assert logs[0] == logs[1], f"{bot} in {folder}"


def test_greedy_has_a_rule_for_every_decision_the_runner_asks():
    import inspect

    from runtime import runner as R
    from runtime.bots import GreedyBot
    asked = set(re.findall(r'd == "([a-z-]+)"', inspect.getsource(R.Runner.legal_actions))) | {"movement", "combat"}
    assert asked <= set(GreedyBot.DECISIONS), asked - set(GreedyBot.DECISIONS)


def test_greedy_smolensk_first_turn_keeps_its_units_and_attacks():
    """11.2: the greedy bot used to send ~140 units (HQs included) to the
    transfer box on turn 1 and barely attack."""
    r = runner("smolensk", "short")
    agents = {side: make_bot("greedy", 3 + i) for i, side in enumerate(r.game.sides)}
    s = r.new_game(3)
    while s.result is None and s.turn < 2:
        s = r.apply(s, agents[r.to_move(s)].choose(r, s))
    actions = [e["action"] for e in s.log if "action" in e]
    assert not [a for a in actions if a.startswith("transfer")]
    assert sum(1 for e in s.log if e.get("side") == "axis" and e.get("action", "").startswith("attack")) >= 3
    hqs = [u for u in s.on_map("axis") if "hq" in r.game.unit_classes[r.game.counters[u.id].unit_class].flags]
    assert all(len(r.command(s, u.id)) > 1 for u in hqs)  # every HQ still commands units


def test_a_state_copy_shares_no_mutable_field_and_copies_pending_data_deeply():
    """GameState.copy copies every field that holds a dict, list or set (a
    field added later is covered too), and the pending decisions and effects
    under way as plain data, nested lists and dicts included."""
    import dataclasses
    r = runner("barbarossa-postcard", None)
    s = r.new_game(1)
    s.pending.append({"kind": "battle", "used": [["x", "AGN", "axis", 1, 0]], "taken": {"AGN": 1}, "hexes": {1}})
    s.effects.append({"key": "k", "bound": {"units": ["AGN"]}})
    c = s.copy()
    for f in dataclasses.fields(s):
        v = getattr(s, f.name)
        if isinstance(v, (dict, list, set)):
            assert getattr(c, f.name) is not v, f.name
            if f.name != "cache":
                assert getattr(c, f.name) == v, f.name
    assert c.pending[0]["used"][0] is not s.pending[0]["used"][0] and c.pending[0]["used"] == s.pending[0]["used"]
    assert c.pending[0]["taken"] is not s.pending[0]["taken"] and c.effects[0]["bound"]["units"] == ["AGN"]
    assert c.effects[0]["bound"]["units"] is not s.effects[0]["bound"]["units"]
    assert c.observed is None and c.trail is s.trail


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(1, 250))
def test_property_component_searches_equal_dijkstra(seed, steps):
    """A move search answered by a component of hexes (Barbarossa's 99-MP
    strategic movement: runtime.movement._component_search, shared by every
    start hex of the component) reaches what the bounded Dijkstra reaches,
    and its costs and paths, worked out when first read, are the
    Dijkstra's, and so are the path and cost of one move, read from a
    Dijkstra stopped at its hex: from every hex of the map, for every class
    of either side, after random action sequences."""
    r = runner("barbarossa-postcard", None)
    g, b = r.game, r.board
    s = played(r, r.new_game(seed), random.Random(seed), steps)
    m = M.mode_by_id(g, "strategic")
    answered = 0
    for side in g.sides:
        zoc = enemy_zoc(g, b, s, side)
        held = M.held_by_others(s, side)
        own = M.controlled(s, side)
        closed = S.closed_to(g, b, s, side)
        for cls in sorted({c.unit_class for c in g.counters.values() if c.side == side}):
            for h in b.map.hexes:
                mp = M.scaled(99)
                found = M._component_search(g, b, cls, m, h, mp, zoc, held, frozenset(), False, own, closed)
                plain = M._search(g, b, cls, m, h, mp, mp, zoc, held, frozenset(), False, own, closed)
                if found is None:
                    continue
                answered += 1
                assert found.reached == plain.reached
                assert found.stop_prev == plain.stop_prev == {}
                whole = M.MoveRange("x", h, mp, plain.reached, plain)
                for t in sorted(plain.reached)[::7]:  # (a Dijkstra stopped at the hex: _Reach.toward)
                    part = M.MoveRange("x", h, mp, found.reached, found)
                    assert part.path_to(t) == whole.path_to(t) and part.cost_to(t) == plain.cost[t]
                assert found.cost == plain.cost and found.prev == plain.prev
                assert found.reads == M._reads(b, plain)
                assert list(found.ordered) == sorted(plain.reached)
    assert answered  # (the side's own hexes hold units, whose hexes are always entered)


def test_a_component_search_is_not_used_where_mp_or_steps_do_not_allow_it():
    """A component search answers only where it gives the Dijkstra's
    answer: not from a hex no step enters (a forced march may leave a
    mountain hex, never enter one: the step out cannot be taken back); not
    where the MP could run out; not for a normal move, which may attack by
    moving in."""
    r = runner("barbarossa-postcard", None)
    g, b = r.game, r.board
    s = r.new_game(1)
    m = M.mode_by_id(g, "forced-march")
    ends, _ = M._steps_for(g, b, "german-army", m).both_ways(b.map.hexes)
    slovenia = b.parse("0106")
    assert slovenia not in ends
    assert M._flood(b, ends, m, slovenia, frozenset(), frozenset(), None, frozenset()) is None
    h = b.parse("0205")
    own = M.controlled(s, "soviet")
    strategic = M.mode_by_id(g, "strategic")
    assert M._component_search(g, b, "front", strategic, h, M.scaled(1), frozenset(), frozenset(), frozenset(),
                               False, own, frozenset()) is None  # 1 MP could run out
    assert M._component_search(g, b, "front", None, h, M.scaled(99), frozenset(), frozenset(), frozenset(),
                               True, None, frozenset()) is None  # attacks by moving in
    assert M._component_search(g, b, "front", strategic, h, M.scaled(99), frozenset(), frozenset(), frozenset(),
                               False, own, frozenset()) is not None


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from([("barbarossa-postcard", None), ("smolensk", "short")]),
       steps=st.integers(1, 200))
def test_property_answers_checked_against_the_listed_ones_apply_as_fresh(seed, game, steps):
    """``Engine.apply`` checks an answer against the answers listed for the
    very state it is applied to, and the conditions evaluated listing them
    (runtime.engine.Engine._listed): the state it gives is the one an
    engine that listed nothing gives, after random action sequences; the
    answers noted while settling a battle (``note_answers``) are the ones
    listed from nothing."""
    r = runner(*game)
    rnd = random.Random(seed)
    s = r.new_game(seed)
    for _ in range(steps):
        if s.result is not None:
            break
        acts = r.legal_actions(s)
        a = acts[rnd.randrange(len(acts))]
        kept = r.apply(s, a)
        r._legal_memo = r.engine._listed = None
        fresh = r.apply(s, a)
        assert kept.log == fresh.log and kept.units == fresh.units and kept.pending == fresh.pending
        assert kept.step == fresh.step and kept.control == fresh.control
        r._legal_memo = r.engine._listed = None
        again = r.apply(s, a)  # (as the game went: what settling it noted is kept)
        noted = list(r.legal_actions(again))
        r._legal_memo = r.engine._listed = None
        assert noted == list(r.legal_actions(again))
        s = kept


def test_an_answer_is_not_checked_against_answers_listed_before_the_state_changed():
    """Answers listed for a state are not reused once the state is changed
    in place: a battle option listed, then spent, is judged afresh."""
    r = runner("barbarossa-postcard", None)
    for seed in range(1, 40):
        rnd = random.Random(seed)
        s = r.new_game(seed)
        while s.result is not None or not any(isinstance(a, Use) and a.unit for a in r.legal_actions(s)):
            if s.result is not None:
                break
            acts = r.legal_actions(s)
            s = r.apply(s, acts[rnd.randrange(len(acts))])
        if s.result is None:
            break
    use = next(a for a in r.legal_actions(s) if isinstance(a, Use) and a.unit)
    opt = r.game.battle_options[use.option]
    s.attacked.add(f"spent:{opt.uses or opt.id}:{use.unit}")  # (spent meanwhile: the list is stale)
    with pytest.raises(IllegalActionError):
        r.apply(s, use)


FOUR_GAMES = [("smolensk", "short"), ("barbarossa-postcard", None), ("a-victory-denied", None), ("prokhorovka", None)]


def _game_expressions(r: Runner) -> list:
    """Every condition and amount a game's rules hold where ``env`` is read:
    movement modes' forbid lines, victory rules, phase conditions, triggers."""
    out = [cond for m in r.game.movement.modes for _, cond, _ in m.forbid]
    out += [e for v in r.victory for e in (v.condition, v.amount) if e is not None]
    out += [p.condition for p in (step.phase for step in r.program) if getattr(p, "condition", None) is not None]
    out += [t.condition for t in r.game.triggers if t.condition is not None]
    return out


def _value(expr, names, fns):
    try:
        return E.evaluate(expr, names, fns)
    except E.ExprError as e:
        return f"error: {e}"


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from(FOUR_GAMES), steps=st.integers(1, 150))
def test_property_actors_and_functions_made_on_demand_equal_fresh_ones(seed, game, steps):
    """The units that may act, judged by the selectors worked out once per
    phase's ``only`` and ``exclude`` lists (Engine.actors), are those that
    can_act lets act; and the expression functions made when first called
    (runtime.victory.Functions) give what those made all at once give, for
    every condition of the game's rules, after random action sequences in
    every game folder."""
    r = runner(*game)
    e = r.engine
    exprs = _game_expressions(r)
    rnd = random.Random(seed)
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        assert e.actors(s) == [x for x in s.units if e.can_act(s, x)]
        names, fns = r.env(s)
        # env's names are shared from call to call: nothing the walk evaluated (conditions, effects,
        # checkpoints with names of their own) changed them
        assert names == r._build_names(s)
        names = dict(names)  # (changed below: on a copy)
        full = r._build_functions(s)
        assert set(fns) == set(full) and len(fns) == len(full) and all(k in fns for k in full)
        for side in r.game.sides:
            names["side"] = side
            for x in exprs:
                assert _value(x, names, fns) == _value(x, names, full)


def _destinations_in_full(r: Runner, s, uid: str, found, move_in: bool, overruns) -> frozenset:
    """runtime.movement._destinations as it was: every occupied hex reached
    judged for stacking and 6.3's hexside limits, whatever the game's limits."""
    g, occupants = r.game, s.occupants
    barred = []
    if move_in and found.stop_prev and M._alone_barred(g, s, uid):
        barred.extend(h for h in found.stop_prev if h not in occupants)
    side, start = s.units[uid].side, s.units[uid].hex
    limit_units, exempt = g.stacking.get("units"), M._exempt_counters(g)
    room = None if limit_units is None else limit_units - (uid not in exempt)
    for h in [h for h in found.reached if h in occupants]:
        if h == start or (overruns and h in overruns):
            continue
        if move_in and h in found.stop_prev and s.side_at(h) != side:
            if M.hexside_limit_reason(g, r.board, s, uid, found.stop_prev[h], h):
                barred.append(h)
        elif room is not None and sum(1 for x in occupants[h] if x != uid and x not in exempt) > room:
            barred.append(h)
        elif M.extra_limits(g.stacking) and M.extra_bars(g, s, h, uid):
            barred.append(h)
    return found.reached.difference(barred)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from(FOUR_GAMES), steps=st.integers(1, 150))
def test_property_destinations_judged_where_a_limit_can_bar_equal_all_judged(seed, game, steps):
    """Where a move may end (runtime.movement._destinations, which judges only
    the ends of attacks in a game without stacking limits, and reads the
    game's limits once) is what judging every occupied hex reached gives,
    for every unit and mode, after random action sequences in every game."""
    r = runner(*game)
    rnd = random.Random(seed)
    modes = [None] + [m.id for m in r.game.movement.modes]
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        for u in s.on_map():
            for mode in modes:
                try:
                    rng = M.move_range(r.game, r.board, s, u.id, mode)
                except M.MoveError:
                    continue
                m = M.mode_by_id(r.game, mode)
                move_in = r.game.combat.attack == "move-in" and not (
                    m is not None and m.no_attack and r.game.matches(u.id, m.no_attack))
                over = M.overrun_hexes(r.game, s, u.id)
                assert rng.destinations == _destinations_in_full(r, s, u.id, rng.search, move_in, over)


def _all_deployments(r: Runner, s) -> list:
    """A set-up decision's actions built in full, as the runner listed them
    before they were built on demand."""
    return [Place(uid, r.board.hex_id(h)) for uid in r._deploying(s, s.step["side"])
            for h in r.deploy_hexes(s, uid, {})] + [Done()]  # (each unit's hexes from nothing: none shared)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), game=st.sampled_from(FOUR_GAMES))
def test_property_set_up_decisions_read_as_the_full_list(seed, game):
    """A set-up decision's actions (``deploy``), built when read
    (runtime.action_lists.UnitPlacements), are the full list in its order:
    length, every index (negative too), slices, membership (and what is not
    in it), iteration and equality, in every game that sets up so."""
    r = runner(*game)
    rnd = random.Random(seed)
    s = r.new_game(seed)
    for _ in range(300):
        if s.result is not None:
            break
        acts = r.legal_actions(s)
        if s.step.get("decision") == "deploy" and not s.pending and not r.effect_asks(s):
            full = _all_deployments(r, s)
            assert isinstance(acts, UnitPlacements)
            assert len(acts) == len(full) and list(acts) == full and acts == full
            assert [acts[i] for i in range(-len(full), len(full))] == full + full
            assert acts[1:5] == full[1:5]
            assert all(a in acts for a in full)
            # membership of placements that mix a unit with another unit's hexes: 400 pairs a
            # decision, drawn (every pair was 50,000 in Smolensk, most of the suite's time)
            units = sorted({a.unit for a in full if isinstance(a, Place)})
            hexes = sorted({a.at for a in full if isinstance(a, Place)})
            pairs = random.Random(seed + len(full))
            listed = set(full)
            for _ in range(400 if units else 0):
                p = Place(pairs.choice(units), pairs.choice(hexes))
                assert (p in acts) == (p in listed)
            assert Place("no-such-unit", "0101") not in acts
        s = r.apply(s, acts[rnd.randrange(len(acts))])


@settings(max_examples=60, deadline=None)
@given(q=st.integers(-60, 60), r=st.integers(-60, 60), n=st.integers(-1, 4))
def test_property_hexes_within_a_distance_kept_equal_fresh_ones(q, r, n):
    """Hex.within, kept per hex and distance, lists the hexes at most ``n``
    away in its order every time, and a caller that changes the list it got
    changes nothing kept."""
    from runtime.hexes import Hex
    h = Hex(q, r)
    fresh = [Hex(q + dq, r + dr) for dq in range(-n, n + 1) for dr in range(max(-n, -dq - n), min(n, -dq + n) + 1)]
    got = h.within(n)
    assert got == fresh and all(h.distance(x) <= n for x in got)
    got.append(h)
    assert h.within(n) == fresh


def _lines_reference(r: Runner, s, side: str) -> dict:
    """retreat.distance_along_lines as a plain breadth-first search over the
    board's adjacency, from nothing (no numbered arrays, nothing shared)."""
    from collections import deque

    from runtime.retreat import _CUT_OFF, distance_to_supply
    from runtime.supply import _static, _unit_blocking, lost_sources
    st = _static(r.board, r.game.supply)
    no_enter = st.impassable | _unit_blocking(r.game, r.board, s, side)[0]
    line: dict = {}
    q: deque = deque()
    for h in sources_of(r.board, s, side):
        if h not in no_enter:
            line[h] = 0
            q.append(h)
    while q:
        u = q.popleft()
        for v, _ in r.board.adj[u]:
            if v not in line and v not in no_enter and (u, v) not in st.bad_steps:
                line[v] = line[u] + 1
                q.append(v)
    static = distance_to_supply(r.game, r.board, side, lost_sources(r.board, s))
    return {h: line.get(h, _CUT_OFF + d) for h, d in static.items()}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(1, 120))
def test_property_retreat_distances_shared_across_states_equal_fresh_ones(seed, steps):
    """Smolensk 10.6(6)'s distances along the lines of communication, shared
    by the states whose lines are blocked alike (runtime/retreat.py), are
    what a plain search from nothing gives, after random answers (and the
    states a bot weighs: a unit placed in each hex next to it)."""
    from runtime.retreat import distance_along_lines
    r = runner("smolensk", "short")
    rnd = random.Random(seed)
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        if rnd.random() < 0.8:
            continue  # (a fifth of the states: the reference search is slow)
        for side in r.game.sides:
            assert distance_along_lines(r.game, r.board, s, side) == _lines_reference(r, s, side)
        mine = [u for u in s.on_map() if rnd.random() < 0.05]
        for u in mine[:2]:
            for n, _ in r.board.adj[u.hex]:
                t = s.copy()
                t.place(u.id, n)
                for side in r.game.sides:
                    assert distance_along_lines(r.game, r.board, t, side) == _lines_reference(r, t, side)


def test_crt_columns_and_probabilities_kept_equal_fresh_ones():
    """column_for and probabilities are kept per argument: every answer is
    what working it out afresh gives, and a caller that changes the
    probabilities it got changes nothing kept."""
    from fractions import Fraction

    from runtime.combat import odds as O
    r = runner("smolensk", "short")
    g = r.game
    crt = g.crts[g.combat.crt]
    die = O.die_for(g, crt, "axis")
    for a in range(0, 40, 3):
        for d in (0, 1, 2, 5, Fraction(7, 2)):
            for shift in (-2, 0, 1):
                fresh = O._column_for(crt, a, d, shift)
                assert O.column_for(crt, a, d, shift) == fresh
                assert O.column_for(crt, a, d, shift) == fresh  # (kept)
                if fresh.index is not None:
                    for drm in (-1, 0, 2):
                        want = O._probabilities(g, crt, fresh.index, die, drm)
                        got = O.probabilities(g, crt, fresh.index, die, drm)
                        assert got == want and list(got) == list(want)
                        got.clear()
                        assert O.probabilities(g, crt, fresh.index, die, drm) == want


def test_set_up_hexes_shared_only_by_units_the_limits_cannot_tell_apart():
    """A set-up's hexes are worked out once for the units of an area that
    the hq and limit rules cannot tell apart (runtime/reinforce.py): where
    an HQ already stands in a hex of the area (A Victory Denied: one HQ a
    hex), a second HQ set up there gets the other hexes, an ordinary unit
    every hex, and a third unit of either kind the answer of its own kind."""
    r = runner("a-victory-denied", None)
    g = r.game
    s = r.new_game(1)
    area = "gomel"
    hexes = sorted(g.map.areas[area], key=r.board.colrow.__getitem__)
    hq = lambda uid: "hq" in g.unit_classes[g.counters[uid].unit_class].flags  # noqa: E731
    side = "german"
    mine = [u.id for u in s.units.values() if u.side == side]
    hqs = [u for u in mine if hq(u)][:3]
    others = [u for u in mine if not hq(u)][:2]
    for h in hexes:  # (the area emptied)
        for x in list(s.occupants.get(h, ())):
            s.place(x, None, "eliminated")
    s.place(hqs[0], hexes[0])
    for uid in (hqs[1], others[0], hqs[2], others[1]):
        s.place(uid, None, f"deploy:{area}")
    shared: dict = {}
    got = {uid: r.deploy_hexes(s, uid, shared) for uid in (hqs[1], others[0], hqs[2], others[1])}
    assert got == {uid: r.deploy_hexes(s, uid, {}) for uid in got}
    assert hexes[0] not in got[hqs[1]] and hexes[0] in got[others[0]]
    assert got[hqs[1]] == got[hqs[2]] and got[others[0]] == got[others[1]]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1),
       game=st.sampled_from([("smolensk", "short"), ("barbarossa-postcard", None), ("a-victory-denied", None),
                             ("prokhorovka", None)]),
       steps=st.integers(1, 300))
def test_property_actors_are_listed_in_the_order_of_the_units(seed, game, steps):
    """``Engine.actors`` takes the activated units in the counters' order
    (not by reading every unit of the state): that is the order of
    ``state.units`` in every state a game reaches, so the units that may act
    are those, in the order, that a reading of every unit gives."""
    r = runner(*game)
    rnd = random.Random(seed)
    for s in random_walk(r, r.new_game(seed), rnd, steps):
        assert list(s.units) == list(r.game.counters)
        read = [x for x, u in s.units.items() if u.side == s.active and u.hex is not None
                and (not s.activated or x in s.activated)]
        if not (s.step.get("only") or s.step.get("exclude") or s.step.get("limit")):
            assert r.engine.actors(s) == read
        else:
            assert r.engine.actors(s) == [x for x in read if not r.engine.phase_bars(s, x)]


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), upto=st.integers(150, 450))
def test_property_attacks_the_greedy_bot_kept_equal_fresh_ones(seed, upto):
    """The greedy bot keeps the odds of the attacks it weighed from one
    decision to the next (GreedyBot._attack_odds, by what combat_odds reads
    of the state): every answer it gives, kept or worked out, is what
    combat_odds gives on the state it was asked about, over the set-up and
    the first turns of greedy Smolensk play (moves that set up attacks,
    attacks after others, retreats, advances, out-of-supply halving)."""
    from runtime.combat.odds import combat_odds
    r = runner("smolensk", "short")
    g = r.game
    bots = {side: make_bot("greedy", seed + i) for i, side in enumerate(g.sides)}
    asked = []
    for bot in bots.values():
        def checked(runner_, state, attackers, target, kept=bot._attack_odds):
            got = kept(runner_, state, attackers, target)
            rep = combat_odds(g, runner_.board, state, attackers, target)
            fresh = (rep.column.index, sum(p for code, p in rep.probabilities.items()
                                           if (x := g.results[rep.crt.results].get(code)) and
                                           (x.defender_loss or x.defender_retreat))) if rep.legal else None
            assert got == fresh, (attackers, target)
            asked.append(got)
            return got
        bot._attack_odds = checked
    s = r.new_game(seed)
    for _ in range(upto):
        if s.result is not None:
            break
        s = r.apply(s, bots[r.to_move(s)].choose(r, s))
    assert asked and bots["axis"]._odds[1], "no attack weighed, none kept"


def test_names_bound_for_one_condition_stay_out_of_the_shared_names():
    """env hands out one names dict from call to call (runtime.victory.VictoryRules.env): a
    condition evaluated with names of its own (an attacker, a unit's side) or a checkpoint with
    bound names binds them on a copy, and the next condition does not see them."""
    r = runner("barbarossa-postcard", None)
    s = r.new_game(1)
    probe = E.Binary("==", E.Name("probe"), E.Num(1))
    assert r.engine._true(s, probe, probe=1) is True
    names, _ = r.env(s)
    assert "probe" not in names and names == r._build_names(s)
    with pytest.raises(E.ExprError):  # (an unknown name: the bound one is gone)
        E.evaluate(probe, names, {})
    r.checkpoint(s, "end", probe=1)
    assert "probe" not in r.env(s)[0]
