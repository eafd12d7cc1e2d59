"""Prokhorovka 19.3 (optional, variant ``su152``): the SU-152 may fight a
battle of its own stack as a self-propelled anti-tank gun with fire 5
(19.3(1), range 0); used so, it fires no artillery until the next Soviet
turn begins, and used as artillery it is no anti-tank gun until then
(19.3(2)).  ``dice-pool { role anti-tank ... { units SU152; as sp-at 5-1;
lock until soviet } }``: chosen when the Soviets declare the equipment
that fights (11.2(1))."""
from __future__ import annotations

import shutil

import pytest

from runtime import attachments as A

from helpers import GAMES


@pytest.fixture(scope="module")
def runner():
    from dsl.compiler import compile_game
    from runtime.runner import Runner
    return Runner(compile_game(GAMES / "prokhorovka", variants=["su152"]))


def _empty(runner):
    s = runner.new_game(1)
    for u in s.units.values():
        s.place(u.id, None, "removed")
    s.attached = {}
    return s


def _place(runner, s, placing):
    for item, hid in placing:
        uid, *carried = item.split("+")
        s.place(uid, runner.board.parse(hid))
        for c in carried:
            A.attach(runner.game, s, c, uid)


def _to_equipment(eng, s, target, attackers, side="german"):
    s.phase, s.active, s.step, s.activated, s.pending = "combat", side, {}, set(), []
    s = eng.apply(s, f"attack {target} with {','.join(attackers)}")
    s = eng.apply(s, "done")  # the declarations end: the only battle is fought (9.2(3))
    while s.pending[0]["stage"] != "equipment" or s.pending[0]["side"] != "soviet":
        s = eng.apply(s, eng.default_action(s))
    return s


def _until_rolled(eng, s, n=None):
    """The battle's dice rolled and applied (its losses not yet taken)."""
    n = len(s.log) if n is None else n
    while not any("winner" in e for e in s.log[n:]):
        s = eng.apply(s, eng.default_action(s))
    return s


def _next_battle(runner, s, attacker, target):
    """A German attack in the next combat phase (the reserve attack: equipment with a range fights in one
    battle a phase, 11.2(1)3), up to the Soviet equipment declaration."""
    eng = runner.engine
    s.pending, s.attacked, s.attacked_hexes, s.step = [], set(), set(), {}
    s.done = {k for k in s.done if not k.startswith("ranged:")}
    return _to_equipment(eng, s, target, [attacker])


def test_the_variant_declares_the_su152s_second_role(runner):
    (role,) = runner.game.dice_pool.roles
    assert role.id == "anti-tank" and role.units == {"SU152"} and role.unit_class == "sp-at"
    assert dict(role.factors) == {"fire": 5, "armour": 1} and role.lock == "soviet"
    assert runner.game.counters["SU152"].steps[0] == {"artillery": 4, "armour": 1, "range": 1}


def test_the_su152_fights_as_an_anti_tank_gun_of_fire_5_and_then_fires_no_artillery(runner):
    eng = runner.engine
    s = _empty(runner)
    _place(runner, s, [("LAH", "0504"), ("52G+SU152", "0505"), ("DR", "0405")])  # (no tank to hit it)
    s = _to_equipment(eng, s, "0505", ["LAH"])
    acts = {str(a) for a in eng.legal_actions(s)}
    assert {"use SU152 out", "use SU152 anti-tank", "done"} <= acts
    st = eng.dicepool.setup(s, s.pending[0])
    assert any(i == "SU152" for p in st.pools if p.step == "bombardment" for i, _ in p.items)  # as itself
    assert "SU152" not in {w.id for w in st.weapons}
    s = eng.apply(s, "use SU152 anti-tank")
    st = eng.dicepool.setup(s, s.pending[0])
    w = st.weapon("SU152")  # 19.3(1): an SP anti-tank gun, fire 5, firing in the defender's anti-tank round
    assert (w.fire, w.armour, st.rounds[w.round]) == (5, 1, "Anti-tank round")
    assert not any(i == "SU152" for p in st.pools for i, n in p.items if n)
    s = _until_rolled(eng, s)
    marks = s.units["SU152"].markers
    assert "fought-in-role:anti-tank" in marks and not any(m.startswith("role:") for m in marks)
    # 19.3(2): until the next Soviet turn it fires no artillery in a battle of its stack (the role again it may)
    assert s.units["SU152"].box == "under:52G"  # (the losses are not taken yet)
    s = _next_battle(runner, s, "DR", "0505")
    st = eng.dicepool.setup(s, s.pending[0])
    assert not any(i == "SU152" for p in st.pools for i, n in p.items if n)
    assert ("SU152", "soviet", 1) in st.armour  # (its armour still counts in the damage step)
    assert "use SU152 anti-tank" in {str(a) for a in eng.legal_actions(s)}


def test_the_su152_no_longer_supports_from_a_range_after_fighting_as_a_gun(runner):
    eng = runner.engine
    s = _empty(runner)
    _place(runner, s, [("LAH", "0504"), ("52G", "0505"), ("31TK+SU152", "0506")])
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {}, set(), []
    s = eng.apply(s, "attack 0505 with LAH")
    s = eng.apply(s, "done")
    while not (s.pending[0].get("stage") == "support" and s.pending[0]["side"] == "soviet"):
        s = eng.apply(s, eng.default_action(s))
    assert "use SU152" in {str(a) for a in eng.legal_actions(s)}  # its range 1 reaches 0505 (11.2(1)3)
    s.mark("SU152", "fought-in-role:anti-tank")
    assert "use SU152" not in {str(a) for a in eng.legal_actions(s)}


def test_the_su152_that_fired_its_artillery_is_no_anti_tank_gun_until_the_soviet_turn(runner):
    eng = runner.engine
    s = _empty(runner)
    _place(runner, s, [("LAH", "0504"), ("52G+SU152", "0505"), ("DR", "0405")])
    s = _to_equipment(eng, s, "0505", ["LAH"])
    st = eng.dicepool.setup(s, s.pending[0])
    assert ("SU152", 4) in next(p for p in st.pools if p.step == "bombardment" and p.side == "soviet").items
    s = eng.apply(s, "done")  # it fights as itself: 4 artillery dice
    s = _until_rolled(eng, s, 0)
    assert "fought-as-itself:anti-tank" in s.units["SU152"].markers
    assert s.units["SU152"].box == "under:52G"  # (the losses are not taken yet)
    s = _next_battle(runner, s, "DR", "0505")
    acts = {str(a) for a in eng.legal_actions(s)}
    assert "use SU152 anti-tank" not in acts and "use SU152 out" in acts
    st = eng.dicepool.setup(s, s.pending[0])
    assert ("SU152", 4) in next(p for p in st.pools if p.step == "bombardment" and p.side == "soviet").items


def test_the_locks_end_when_the_soviet_player_turn_begins(runner):
    """19.3(2): "until the next Soviet turn begins": through the German player turn, off at the Soviet one."""
    from runtime.bots import GreedyBot
    s = runner.new_game(1)
    bot = GreedyBot(1)
    while s.active != "german":
        s = runner.apply(s, bot.choose(runner, s))
    s.mark("95G", "fought-in-role:anti-tank")  # (a unit waiting in the reserve pool: nothing else touches it)
    s.mark("95G", "fought-as-itself:anti-tank")
    while s.active != "soviet":
        s = runner.apply(s, bot.choose(runner, s))
        if s.active == "german":
            assert {"fought-in-role:anti-tank", "fought-as-itself:anti-tank"} <= s.units["95G"].markers
    assert not any(m.startswith("fought-") for u in s.units.values() for m in u.markers)


@pytest.mark.parametrize("old, new, message", [
    ("as sp-at 5-1", "as sp-at 5-1-1", "'5-1-1' does not fit class sp-at: it prints fire-armour"),
    ("lock until soviet", "lock until sovet", "sovet"),
    ("lock until soviet", "lock after soviet", "lock takes 'until SIDE'"),
    ("units SU152", "units SU153", "SU153"),
    ("  declare-equipment ", "  # declare-equipment ", "role anti-tank is chosen when a side declares the equipment"),
])
def test_check_refuses_a_role_it_cannot_run(tmp_path, old, new, message):
    from dsl.compiler import check_game
    folder = tmp_path / "prokhorovka"
    shutil.copytree(GAMES / "prokhorovka", folder)
    text = (folder / "game.hxr").read_text()
    assert old in text
    (folder / "game.hxr").write_text(text.replace(old, new, 1))
    _, diags, _ = check_game(folder)
    assert any(message in d.message and d.span for d in diags.items), [d.message for d in diags.items]


def test_the_bot_makes_the_su152_a_gun_where_that_raises_its_chance(runner):
    from runtime.combat.dicepool.setup import ROLE
    eng = runner.engine
    for attack in ("LAH", "LAH+Tiger1+Panther1"):
        s = _empty(runner)
        _place(runner, s, [(attack, "0504"), ("52G+SU152", "0505")])
        s = _to_equipment(eng, s, "0505", ["LAH"])
        p = s.pending[0]
        plain = eng.dicepool.chance(s, p, p["chits"])
        t = s.copy()
        t.mark("SU152", ROLE + "anti-tank")
        gun = eng.dicepool.chance(t, p, p["chits"])
        assert plain != gun
        assert str(eng.default_action(s)) == ("use SU152 anti-tank" if gun > plain else "done"), attack


# ------------------------------------------------------------------ hexforge battle --role
def _battle(capsys, *extra):
    from editor.cli import main
    rc = main(["battle", str(GAMES / "prokhorovka"), "--hex", "0505", "--attack", "LAH+Tiger1@0504", *extra])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_hexforge_battle_shows_the_su152_fighting_as_an_anti_tank_gun(capsys):
    """19.3(1): as a gun the SU-152 fires no artillery and duels the Tiger with fire 5 in the
    defender's anti-tank round; as itself it fires 4 artillery dice and fights no duel."""
    rc, out, _ = _battle(capsys, "--defend", "52G+SU152", "--variant", "su152")
    assert rc == 0
    assert "Artillery (11.3): soviet 4 dice (SU152 4), hit on 2 or less" in out and "duel:" not in out
    rc, out, _ = _battle(capsys, "--defend", "52G+SU152", "--variant", "su152", "--role", "SU152=anti-tank")
    assert rc == 0
    assert "SU152 fights as an anti-tank gun (19.3): as sp-at fire 5, armour 1" in out
    assert "Artillery" not in out and "duel: Tiger1 against SU152" in out
    assert "German wins 71.8%, Soviet wins 12.2%, tie (both lose) 16.0%" in out
    import json
    rc, out, _ = _battle(capsys, "--defend", "52G+SU152", "--variant", "su152", "--role", "SU152=anti-tank", "--json")
    got = json.loads(out)
    assert got["roles"] == {"SU152": "anti-tank"} and got["pairs"] == [["Tiger1", "SU152"]]


@pytest.mark.parametrize("extra, message", [
    (("--defend", "52G+SU152", "--role", "SU152=anti-tank"),
     "--role SU152=anti-tank: Kursk South: Prokhorovka 1943 declares no battle role (dice-pool { role }) without "
     "a variant\n  hint: the role 'anti-tank' is the variant su152's: add --variant su152"),
    (("--defend", "52G+SU152", "--variant", "su152", "--role", "52G=anti-tank"),
     "--role 52G=anti-tank: 52G has no role 'anti-tank': As an anti-tank gun (19.3) is for SU152"),
    (("--defend", "52G+SU152", "--variant", "su152", "--role", "SU152=antitank"),
     "no role 'antitank' (the roles: anti-tank)\n  hint: did you mean 'anti-tank'?"),
    (("--defend", "52G", "--near", "31TK+SU152@0506", "--variant", "su152", "--role", "SU152=anti-tank"),
     "SU152 is not in the battle: a counter fights in a role in its own stack's battle"),
    (("--defend", "52G+SU152", "--variant", "su152", "--role", "SU152"), "write COUNTER=ROLE (SU152=anti-tank)"),
])
def test_hexforge_battle_refuses_a_role_it_cannot_set(capsys, extra, message):
    rc, out, err = _battle(capsys, *extra)
    assert rc == 1 and message in err and not out
