"""Prokhorovka 签一览, 阵地 (positions): "当阵地处于正面表示，所属堆叠进行移动或撤退时，
将其返回相应的杯中": a face-up position (bunker, MG nest) goes back to its cup
when its stack moves or retreats; a face-down one moves with its unit
(``attachment equipment { left-behind position }``)."""
from __future__ import annotations


from runtime import attachments as A

from test_dicepool_air import _attack, _game, _stack


def _moving(runner, s, side="soviet"):
    s.phase, s.active, s.step, s.activated, s.pending = "movement", side, {}, set(), []
    s.version += 1
    return s


def test_a_face_up_position_stays_behind_when_its_stack_moves(dice):
    runner, s = _game()
    _stack(runner, s, "52G+SBunker1+SMGNest1", "0505")
    A.face_up(runner.game, s, ["52G"], only="SBunker1")   # it fought: face up (3.5(6)); the MG nest did not
    s = runner.engine.apply(_moving(runner, s), "move 52G 0405")
    assert s.units["SBunker1"].box == "pool:soviet-equip-cup"   # back to its cup (3.5(7))
    assert s.attached["52G"] == ("SMGNest1",)                   # face down, it moves with its unit
    assert {"turn": s.turn, "detach": "SBunker1", "to": "soviet-equip-cup", "from": "52G",
            "for": "face up, left behind as 52G moves"} in s.log
    # other face-up equipment moves with its unit
    runner, s = _game()
    _stack(runner, s, "52G+PakFront1", "0505")
    A.face_up(runner.game, s, ["52G"])
    s = runner.engine.apply(_moving(runner, s), "move 52G 0405")
    assert s.attached["52G"] == ("PakFront1",)


def test_a_face_up_position_stays_behind_when_its_stack_retreats(dice):
    runner, s = _game()
    eng = runner.engine
    dice["faces"] = [1, 6, 6, 6, 6, 6]   # the Germans score 1 (+1 tank support, +2 armour: 4), the Soviets 0 (+3 bunker)
    s = _attack(runner, s, attack=("LAH+Tiger1@0506",), defend=("52G+SBunker1@0505",))  # from the south
    assert "face-up:SBunker1" in s.done  # it fought: face up
    p = s.pending[0]
    assert p["stage"] == "retreat" and p["side"] == "soviet" and p["losses"]["soviet"] == 2
    s = eng.apply(s, "done")              # retreat: 1 step instead of 2
    s = eng.apply(s, "lose 52G")
    retreats = [a for a in eng.legal_actions(s) if str(a).startswith("retreat 52G")]
    assert retreats and s.attached.get("52G") == ("SBunker1",)
    s = eng.apply(s, retreats[0])
    assert s.units["SBunker1"].box == "pool:soviet-equip-cup" and not s.attached.get("52G")
    assert any(e.get("detach") == "SBunker1" and e.get("for") == "face up, left behind as 52G retreats"
               for e in s.log)


def test_check_refuses_left_behind_counters_the_kind_does_not_hold(tmp_path, capfd):
    from test_dicepool_air import _check_fails
    err = _check_fails(tmp_path, capfd, "  left-behind position ", "  left-behind fighter ")
    assert "game.hxr:" in err and "no equipment counter is one of fighter" in err
    err = _check_fails(tmp_path, capfd, "  left-behind position ", "  left-behind positions ")
    assert "game.hxr:" in err and "positions" in err
