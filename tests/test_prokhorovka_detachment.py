"""Prokhorovka 签一览 分遣队 (the detachment chit): face down it is an ordinary
equipment chit (a normal weapon: its fire counts in normal combat, 10.2(1)2);
in a movement phase it may leave its unit (3.4(3), 3.5(2)'s exception) as a
one-step infantry unit, fire 1, equipment 1, move 3, moving on from its
unit's hex; a unit of its own, it counts for stacking (3.4(1)); reorganised,
it goes back to the reorganisation pool with the chit it carries."""
from __future__ import annotations

from runtime import attachments as A
from runtime.movement import SCALE, unit_mp

from test_dicepool_air import _game, _stack


def test_under_its_unit_a_detachment_is_a_normal_weapon():
    runner, s = _game()
    _stack(runner, s, "LAH+Detach1", "0504")
    _stack(runner, s, "52G", "0505")
    st = runner.engine.dicepool.preview(s, ["LAH"], runner.board.parse("0505"))
    normal = next(p for p in st.pools if p.step == "normal-combat" and p.side == "german")
    assert dict(normal.items) == {"LAH": 4, "Detach1": 1}


def test_a_detachment_leaves_its_unit_in_the_movement_phase_and_moves_as_a_unit():
    runner, s = _game()
    eng, g = runner.engine, runner.game
    _stack(runner, s, "52G+SDetach1+T34-1", "0406")
    _stack(runner, s, "51G", "0404")
    s.phase, s.active, s.step, s.activated, s.pending = "movement", "soviet", {}, set(), []
    s.version += 1
    legal = {str(a) for a in eng.legal_actions(s)}
    assert "detach SDetach1 0405" in legal and "detach SDetach1 0404" not in legal   # 3.4(1): 51G is there
    s = eng.apply(s, "detach SDetach1 0405")
    assert s.units["SDetach1"].hex == runner.board.parse("0405") and s.attached["52G"] == ("T34-1",)
    assert unit_mp(g, s, "SDetach1") == 3 * SCALE
    assert A.capacity(g, s, "SDetach1", g.attachments["equipment"]) == 1
    assert {"turn": s.turn, "convert": "SDetach1", "from": "52G"} in s.log
    # a unit of its own: in a battle its fire is a unit's, one step
    _stack(runner, s, "LAH", "0505")
    st = eng.dicepool.preview(s, ["LAH"], runner.board.parse("0405"))
    assert dict(next(p for p in st.pools if p.step == "normal-combat" and p.side == "soviet").items) == {"SDetach1": 1}


def test_a_detachment_on_the_map_goes_back_to_the_pool_when_reorganised():
    """签一览 分遣队: "正面表示的分遣队进行再编成时，将其从地图上取除移至再编成池。分遣队与
    装备签堆叠时，则将该装备签也移至再编成池" (it must trace a line, 5.1(7)2)."""
    from dsl.compiler import compile_game
    from runtime.bots import GreedyBot
    from runtime.runner import Runner
    from helpers import GAMES
    r = Runner(compile_game(GAMES / "prokhorovka"))
    s, bot = r.new_game(1), GreedyBot(1)
    while not (s.turn == 1 and s.step.get("decision") == "reorganize" and s.active == "soviet" and not s.pending):
        s = r.apply(s, bot.choose(r, s))
    for c in ("SDetach1", "T70-1"):   # wherever the draw put them
        if A.host_of(s, c) is not None:
            A.remove(r.game, s, c, "")
        s.place(c, None, "pool:soviet-equip-cup")
    A.attach(r.game, s, "SDetach1", "73G")
    A.convert(r.game, s, "SDetach1")            # it left 73G: on the map as a unit
    A.attach(r.game, s, "T70-1", "SDetach1")
    s.version += 1
    assert "return SDetach1" in {str(a) for a in r.legal_actions(s)}
    s = r.apply(s, "return SDetach1")
    assert s.units["SDetach1"].hex is None and s.units["SDetach1"].box == "pool:soviet-reorganization"
    assert s.units["T70-1"].box == "pool:soviet-reorganization"


def test_the_greedy_bot_detaches_to_take_or_hold_an_empty_goal():
    """The greedy bot sends a detachment onto a goal (a VP hex to take or hold) within its 3 MP that no unit
    of its side stands on, in supply and not cut off; with none in reach it keeps it under its unit."""
    from runtime.actions import Detach
    from runtime.bots import GreedyBot
    from test_dicepool_air import _stack as stack
    runner, s = _game()
    b = runner.board
    stack(runner, s, "LAH+Detach1", "0909")
    stack(runner, s, "52G", "0302")   # an enemy, far away
    s.phase, s.active, s.step, s.activated, s.pending = "movement", "german", {"decision": "movement"}, set(), []
    s.version += 1
    bot = GreedyBot(1)
    goals = {b.hex_id(h) for h in bot.goals(runner, s, "german", 6)}
    assert "0907" in goals   # Teterevino, a VP hex the Germans do not hold
    a = bot.choose(runner, s)
    assert isinstance(a, Detach) and a.unit == "Detach1" and a.to in goals
    t = runner.engine.apply(s, a)
    assert t.units["Detach1"].hex == b.parse(a.to) and A.host_of(t, "Detach1") is None
    # no goal within its reach: it stays with its unit
    runner, s = _game()
    stack(runner, s, "LAH+Detach1", "0112")
    stack(runner, s, "52G", "0302")
    s.phase, s.active, s.step, s.activated, s.pending = "movement", "german", {"decision": "movement"}, set(), []
    s.version += 1
    assert not isinstance(GreedyBot(1).choose(runner, s), Detach)
