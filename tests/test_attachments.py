"""Attachments and cups (docs/dsl.md §4.26, runtime/attachments.py) on the
small test game tests/games/attach: equipment chits under units up to their
equipment value (GJ63 3.4(2)), moving, retreating and dying with them,
lost instead of a step (13.0(2)3), returned to their cup (3.5(7)),
reorganised (5.1(7)), a detachment that leaves its unit as a one-step unit,
and seeded draws from per-side cups."""
from __future__ import annotations

from pathlib import Path

import pytest

from dsl.compiler import check_game, compile_game
from runtime import attachments as A
from runtime.actions import Detach, Done, IllegalActionError, LoseStep, Move
from runtime.bots import GreedyBot, RandomBot, play
from runtime.combat.odds import attack_strength, defence_strength
from runtime.decisions import Attach, Return
from runtime.movement import scaled, unit_mp
from runtime.replay import SavedGame, Timeline, digest
from runtime.runner import Runner
from runtime.state import eliminate
from runtime.zoc import zoc_of

GAME = Path(__file__).resolve().parent / "games" / "attach"


@pytest.fixture(scope="module")
def game():
    return compile_game(GAME)


@pytest.fixture
def runner(game):
    return Runner(game)


def sandbox(runner, seed=0, phase="movement", side="red"):
    """The set-up, then a free segment for one side (no sequence of play)."""
    s = runner.new_game(seed).copy()
    s.pending, s.effects = [], []
    s.phase, s.active, s.step, s.activated = phase, side, {}, set()
    return s


def hx(runner, text):
    return runner.board.parse(text)


def invariants(game, s):
    """What must hold in every state: the index and the boxes agree, nothing
    is under a counter that is itself under one, hosts on the map stay within
    their capacity, an attachment is on the map only once converted."""
    for host, ids in s.attached.items():
        assert ids, host
        assert not s.units[host].box.startswith(A.UNDER), host
        for aid in ids:
            u = s.units[aid]
            assert u.box == A.UNDER + host and u.hex is None, (aid, u)
        if s.units[host].hex is not None:
            for kind in game.attachments.values():
                cap = A.capacity(game, s, host, kind)
                assert cap is None or A.count_of(game, s, host, kind) <= cap, (host, ids)
    for u in s.units.values():
        if u.box.startswith(A.UNDER):
            assert u.id in s.attached.get(u.box[len(A.UNDER):], ()), u
        if u.hex is not None and u.id in game.attachment_of:
            assert A.converts(game, u.id), u


# ---------------------------------------------------------------- the declaration

def test_the_kind_compiles_with_its_counters_capacity_and_what_it_gives(game):
    k = game.attachments["equipment"]
    assert k.capacity == (("all", "equipment"),) and k.returns == "cup" and k.loss and k.zoc
    assert ("attack", "fire") in k.adds and ("move", "move") in k.adds
    assert {c for c, kid in game.attachment_of.items() if kid == "equipment"} == \
        {"Tiger", "Panther", "PzIV", "Opel", "Det", "T34", "KV1"}
    assert game.pools["red-tank-cup"].kind == "cup" and game.pools["red-reorganization"].kind == "box"


def test_setup_puts_counters_under_units_and_fills_the_cups(runner):
    s = runner.new_game(0)
    assert s.attached["R1"] == ("Tiger",)
    tiger = s.units["Tiger"]
    assert tiger.hex is None and tiger.box == "under:R1"
    # the turn-1 draws: two red chits into the reorganisation pool, Blue's tanks straight onto B2 and B1
    reorg = sorted(u.id for u in s.units.values() if u.box == "pool:red-reorganization")
    cup = sorted(u.id for u in s.units.values() if u.box == "pool:red-tank-cup")
    assert len(reorg) == 2 and len(cup) == 1 and set(reorg + cup) == {"Panther", "PzIV", "Opel"}
    assert sorted(s.attached["B1"] + s.attached["B2"]) == ["KV1", "T34"]
    assert s.step["decision"] == "reorganize" and s.step["side"] == "red"  # 4.0(5): Red places them
    invariants(runner.game, s)


# ---------------------------------------------------------------- cascades

def test_an_attachment_moves_and_retreats_with_its_unit(runner):
    s = sandbox(runner)
    s2 = runner.engine.apply(s, Move("R1", "0303"))
    assert s2.units["R1"].hex == hx(runner, "0303")
    assert s2.attached["R1"] == ("Tiger",) and s2.units["Tiger"].hex is None
    assert A.host_of(s2, "Tiger") == "R1"
    # a retreat is a placement of the host: what is under it goes along
    s2.pending = [{"kind": "retreat", "unit": "R1", "hexes": 1, "enemy": "blue"}]
    acts = runner.engine.legal_actions(s2)
    s3 = runner.engine.apply(s2, acts[0])
    assert s3.units["R1"].hex != hx(runner, "0303") and s3.attached["R1"] == ("Tiger",)
    invariants(runner.game, s3)


def test_an_eliminated_unit_sends_what_it_carried_back_to_its_cup(runner):
    s = sandbox(runner)
    box = eliminate(runner.game, s, "R1")
    assert box == "eliminated"
    assert "R1" not in s.attached
    assert s.units["Tiger"].box == "pool:red-tank-cup"  # 3.5(7): its own cup
    assert {"detach": "Tiger", "to": "red-tank-cup", "from": "R1", "for": "R1 eliminated", "turn": 1} in s.log
    assert "Tiger" not in s.lost  # it was not eliminated: it went back to its cup
    invariants(runner.game, s)


def test_a_step_loss_may_be_taken_on_an_attachment_instead(runner):
    s = sandbox(runner, phase="combat")
    s.pending = [{"kind": "loss", "side": "red", "steps": 1, "units": ["R1"]}]
    runner.engine._settle(s)  # one unit, but a chit under it: a decision, not an automatic loss
    acts = runner.engine.legal_actions(s)
    assert acts == [LoseStep("R1"), LoseStep("Tiger")]
    s2 = runner.engine.apply(s, LoseStep("Tiger"))
    assert s2.units["R1"].step == 0 and s2.units["Tiger"].box == "pool:red-tank-cup" and not s2.pending
    s3 = runner.engine.apply(s, LoseStep("R1"))
    assert s3.units["R1"].step == 1 and s3.attached["R1"] == ("Tiger",)


def test_a_unit_that_loses_a_step_keeps_only_what_it_may_still_carry(runner, game):
    s = sandbox(runner)
    A.attach(game, s, "Panther", "R1")  # R1 carries 2 at full strength, 1 reduced
    runner.engine.lose_step(s, "R1")
    assert s.attached["R1"] == ("Tiger",)
    assert s.units["Panther"].box == "pool:red-tank-cup"
    invariants(game, s)


# ---------------------------------------------------------------- capacity, what they give

def test_capacity_is_the_units_equipment_value(runner, game):
    s = sandbox(runner)
    assert A.capacity(game, s, "R1", game.attachments["equipment"]) == 2
    assert A.why_not_attach(game, s, "Panther", "R1") == ""
    A.attach(game, s, "Panther", "R1")
    assert A.why_not_attach(game, s, "PzIV", "R1") == \
        "R1 cannot carry PzIV: it already carries 2 (equipment chit: at most 2)"
    assert A.why_not_attach(game, s, "PzIV", "R3") == "R3 cannot carry PzIV: it already carries 0 (equipment chit: at most 0)"
    assert A.why_not_attach(game, s, "PzIV", "B1") == "PzIV is red's and B1 is blue's"
    assert A.why_not_attach(game, s, "R2", "R1") == "R2 is a unit, not an attachment: it cannot go under another unit"
    assert A.why_not_attach(game, s, "PzIV", "Tiger") == "Tiger is itself under R1"


def test_attachments_add_to_attack_defence_and_movement(runner, game):
    s = sandbox(runner)
    target = hx(runner, "0303")
    assert attack_strength(game, runner.board, s, "R1", target) == (7, "R1 3+4")  # Tiger's fire 4
    assert defence_strength(game, runner.board, s, "R1")[0] == 5  # Tiger's armour 2
    mp = unit_mp(game, s, "R1")
    A.attach(game, s, "Opel", "R1")  # a truck adds its move 2
    assert unit_mp(game, s, "R1") == mp + scaled(2)


def test_a_unit_exerts_a_zoc_while_it_carries_equipment(runner, game):
    s = sandbox(runner)
    b1 = s.units["B1"]
    assert s.attached.get("B1")  # the turn-1 draw put a tank under it
    assert b1.hex.distance(hx(runner, "0403")) == 1 and hx(runner, "0403") in zoc_of(game, runner.board, s, "blue")
    for aid in A.under(s, "B1"):
        A.remove(game, s, aid, "test")
    blue_zoc = zoc_of(game, runner.board, s, "blue")  # infantry is exempt without equipment
    assert not any(h in blue_zoc for h, _ in runner.board.adj[b1.hex]
                   if h.distance(s.units["B2"].hex) > 1)


# ---------------------------------------------------------------- conversion

def test_a_detachment_leaves_its_unit_as_a_one_step_unit_and_moves(runner, game):
    s = sandbox(runner)
    acts = runner.engine.legal_actions(s)
    detaches = [a for a in acts if isinstance(a, Detach)]
    assert detaches and all(a.unit == "Det" for a in detaches)
    assert Detach("Det", "0302") in detaches
    s2 = runner.engine.apply(s, Detach("Det", "0302"))
    assert s2.units["Det"].hex == hx(runner, "0302") and "R2" not in s2.attached
    assert "Det" in s2.moved and len(game.counters["Det"].steps) == 1
    assert s2.units["R2"].hex == hx(runner, "0202")  # its unit stays
    with pytest.raises(IllegalActionError, match="Tiger cannot leave R1 as a unit of its own"):
        runner.engine.apply(s, Detach("Tiger", "0302"))
    with pytest.raises(IllegalActionError, match="needs|cannot"):
        runner.engine.apply(s, Detach("Det", "0603"))
    invariants(game, s2)


# ---------------------------------------------------------------- reorganisation

def reorganisation(runner, seed=0):
    """The state at Red's turn-1 reorganisation phase, the set-up placement done."""
    s = runner.new_game(seed)
    s = runner.apply(s, Done())  # 4.0(5): place nothing
    while s.step.get("decision") != "reorganize":
        s = runner.apply(s, Done())
    return s


def test_reorganisation_attaches_from_the_pool_within_its_limit_and_returns(runner):
    s = reorganisation(runner)
    acts = runner.legal_actions(s)
    waiting = sorted(u.id for u in s.units.values() if u.box == "pool:red-reorganization")
    assert {a.unit for a in acts if isinstance(a, Attach)} == set(waiting)
    assert Return("Tiger") in acts and Return("Det") in acts and Done() in acts
    assert not any(isinstance(a, Attach) and a.host == "R3" for a in acts)  # equipment value 0
    s = runner.apply(s, Return("Tiger"))
    assert s.units["Tiger"].box == "pool:red-reorganization"
    s = runner.apply(s, Attach("Tiger", "R1"))
    s = runner.apply(s, Attach(waiting[0], "R1"))
    assert s.step.get("decision") != "reorganize" or not any(
        isinstance(a, Attach) for a in runner.legal_actions(s))  # limit 2 reached
    with pytest.raises(IllegalActionError):
        runner.apply(s, Attach(waiting[1], "R2"))


def test_a_transfer_between_units_needs_a_phase_that_allows_it(runner):
    s = reorganisation(runner)
    with pytest.raises(IllegalActionError, match="this phase moves no counter from one unit to another"):
        runner.apply(s, Attach("Tiger", "R2"))


# ---------------------------------------------------------------- cups and draws

def test_seeded_draws_are_deterministic(runner):
    def drawn(seed):
        s = runner.new_game(seed)
        return [e["draw"] for e in s.log if "draw" in e]
    assert drawn(5) == drawn(5)
    assert len({tuple(map(tuple, drawn(seed))) for seed in range(8)}) > 1


def test_support_chits_return_to_the_cup_and_are_drawn_by_the_turn_track(game):
    r = Runner(game)
    s, _ = play(r, r.new_game(2), {"*": RandomBot(2)})
    counts = {}
    for e in s.log:
        if str(e.get("for", "")).startswith("move from red-support-cup"):
            counts[e["turn"]] = len(e["draw"])
    assert counts.get(1) == 2 and counts.get(2) == 1  # red-support: 2, then 1 (turn 3: '-')


@pytest.mark.parametrize("seed", range(6))
def test_bot_games_keep_the_invariants_and_replay_from_their_actions(game, seed):
    r = Runner(game)
    agents = {"*": RandomBot(seed)} if seed % 2 else {"red": GreedyBot(seed), "blue": RandomBot(seed)}
    actions = []

    def check(state, side, action):
        invariants(game, state)
        actions.append(str(action))
    final, _ = play(r, r.new_game(seed), agents, on_action=check)
    saved = SavedGame("tests/games/attach", "meeting", seed, actions, digest=digest(final))
    t, problem = Timeline.replay(Runner(game), SavedGame.loads(saved.dumps()))
    assert problem == ""
    assert t.latest.attached == final.attached
    assert {k: (u.hex, u.box, u.step) for k, u in t.latest.units.items()} == \
        {k: (u.hex, u.box, u.step) for k, u in final.units.items()}


# ---------------------------------------------------------------- check's located errors

def errors_of(tmp_path: Path, old: str, new: str) -> list[str]:
    folder = tmp_path / "attach"
    folder.mkdir()
    (folder / "map.hxm").write_text((GAME / "map.hxm").read_text())
    text = (GAME / "game.hxr").read_text()
    assert old in text, old
    (folder / "game.hxr").write_text(text.replace(old, new))
    _, diags, _ = check_game(folder)
    return [f"{d.span.line if d.span else '?'}: {d.message}" for d in diags.errors]


@pytest.mark.parametrize("old,new,expected", [
    ("capacity equipment ", "capacity equipmnet ", "no unit that may carry equipment prints a factor 'equipmnet'"),
    ("adds attack fire ", "adds fire fire ", "the engine reads no host factor 'fire' that an attachment could add to"),
    ("adds attack fire ", "adds attack speed ", "no equipment counter prints a factor 'speed'"),
    ("Tiger   tank        4-2      red-tank-cup", "Tiger   tank        4-2      -",
     "Tiger is an equipment chit that returns to its cup, but it arrives in no pool"),
    ("      Det      R2\n", "      Det      R3\n", "R3 carries 1 at set-up (equipment chit: at most 0)"),
    ("      Tiger    R1\n", "      Tiger    0303\n", "Tiger is an equipment chit: set it up under a unit (at UNIT), or in a pool"),
    ("      Tiger    R1\n", "      Tiger    B1\n", "Tiger is red's and B1 is blue's"),
    ("      R3       0204\n", "      R3       R1\n", "R3 is a unit, not a counter that goes under one"),
    ("move 2 tank,truck from red-tank-cup to red-reorganization random",
     "move 2 tank,truck from red-tank-cup to red-reorganization",
     "red-tank-cup is a cup: counters are drawn from it at random"),
    ("from red-reorganization\n      limit 2", "from red-tank-cup\n      limit 2",
     "red-tank-cup is a cup: counters are drawn from it at random, never picked"),
    ("converts detachment ", "converts tank ", "Tiger converts into a unit but its class tank prints no 'move' factor"),
])
def test_check_gives_located_errors(tmp_path, old, new, expected):
    errs = errors_of(tmp_path, old, new)
    assert any(expected in e for e in errs), errs
    assert all(not e.startswith("?") for e in errs), errs


def test_a_unit_an_effect_moves_out_of_play_leaves_what_it_carried(runner, game):
    s = sandbox(runner)
    entry = {"why": "test"}
    runner.move_unit(s, "R1", "move", "removed", entry)
    assert s.units["R1"].box == "removed" and "R1" not in s.attached
    assert s.units["Tiger"].box == "pool:red-tank-cup"
    runner.move_unit(s, "R2", "move", "red-reorganization", entry)  # into a pool: it keeps its chits
    assert s.attached["R2"] == ("Det",)
    invariants(game, s)


def test_a_phase_with_transfer_moves_a_counter_from_one_unit_to_another(tmp_path):
    folder = tmp_path / "attach"
    folder.mkdir()
    (folder / "map.hxm").write_text((GAME / "map.hxm").read_text())
    text = (GAME / "game.hxr").read_text()
    old = "      traced yes\n      returns yes\n"
    assert old in text
    (folder / "game.hxr").write_text(text.replace(old, old + "      transfer yes\n"))
    g = compile_game(folder)
    r = Runner(g)
    s = reorganisation(r)
    assert Attach("Tiger", "R2") not in r.legal_actions(s)  # R2 carries Det: full
    s = r.apply(s, Return("Det"))
    assert Attach("Tiger", "R2") in r.legal_actions(s)
    taken = s.step["taken"]
    s = r.apply(s, Attach("Tiger", "R2"))
    assert s.attached["R2"] == ("Tiger",) and "R1" not in s.attached
    assert s.step.get("taken", taken) == taken  # a transfer takes nothing from the pool
    assert {"turn": 1, "attach": "Tiger", "to": "R2", "from": "R1", "for": "Reorganization (5.1(7))"} in s.log
    invariants(g, s)
