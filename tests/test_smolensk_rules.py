"""Smolensk rules checked against the rulebook (shared/rules/gj-smolensk-
blitzkrieg.zh.txt), each test naming the rule it plays: scripted positions
on the real game files or on the series system (helpers.gekitou_game)."""
from __future__ import annotations

from pathlib import Path

import pytest

from runtime.actions import Advance, Retreat
from runtime.board import Board
from runtime.engine import Engine
from runtime.supply import in_supply

from helpers import fixed_die, gekitou_game, setup_state

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def smolensk():
    from dsl.compiler import compile_game
    return compile_game(ROOT / "games" / "smolensk")


# ---------------------------------------------------------------- 2.1(1)3, 3.3: sources

def test_soviet_sources_are_the_printed_hexes_not_the_whole_east_edge(smolensk):
    # 2.1(1)3: "红色的联络线标记印刷在格子上，表示苏军单位的联络源" -- the sources are
    # the marked hexes (the map lists 5503-5513, 5516, 5522, 5528), not every
    # hex of the east edge.
    board = Board(smolensk)
    soviet = sorted(board.hex_id(h) for h in board.supply_sources("soviet"))
    assert soviet == [f"55{r:02d}" for r in range(3, 14)] + ["5516", "5522", "5528"]
    # the Axis map line says edge:west itself
    assert {board.hex_id(h) for h in board.edge_hexes["west"]} <= \
        {board.hex_id(h) for h in board.supply_sources("axis")}


def test_a_soviet_unit_on_an_unmarked_east_edge_hex_needs_a_line(smolensk):
    # 5531 is on the east edge but carries no source mark: cut off from the
    # marked hexes by German units, it is out of supply (11.1(1)).
    board = Board(smolensk)
    s = setup_state(smolensk, "short")
    for uid in list(s.units):
        s.place(uid, None, "removed")
    s.place("27RD", board.parse("5531"))
    assert in_supply(smolensk, board, s, "27RD")
    for uid, h in (("7Pz", "5530"), ("12Pz", "5430"), ("19Pz", "5431"), ("20Pz", "5432"), ("14Mot", "5532")):
        s.place(uid, board.parse(h))
    s.version += 1
    ring = {board.hex_id(n) for n, _ in board.adj[board.parse("5531")]}
    assert ring <= {"5530", "5430", "5431", "5432", "5532"}
    assert not in_supply(smolensk, board, s, "27RD")


# ---------------------------------------------------------------- 15.1(3): the surprise attack ignores rivers

def test_surprise_attack_advance_ignores_the_river(tmp_path, monkeypatch):
    # 15.1(3) "开战前奇袭忽视河川效果": in the surprise combat segment a river
    # neither halves the attack nor stops a mechanized advance after one hex
    # (TEC: river, advance 1).  In an ordinary combat segment it does both.
    game = gekitou_game(tmp_path, ["P german panzer 9-4-10 4-2-10", "D red-army infantry 1-5 -"],
                        ["P 0405", "D 0505"], hexsides=["0405/0505 river"])
    eng = Engine(game)
    for ignore, two in (([], False), (["river", "major-river"], True)):
        s = setup_state(game)
        s.active, s.phase = "axis", "combat"
        s.step = {"decision": "combat", "ignore": ignore}
        fixed_die(monkeypatch, 6)
        s2 = eng.apply(eng.apply(s, "attack 0505 with P"), "done")  # declared, then fought (10.2(1))
        while s2.pending and s2.pending[0]["kind"] != "advance":
            s2 = eng.apply(s2, eng.legal_actions(s2)[0])
        advances = {a for a in eng.legal_actions(s2) if isinstance(a, Advance)}
        assert Advance("P", ("0505",)) in advances
        assert any(len(a.path) == 2 for a in advances) is two


# ---------------------------------------------------------------- 10.6(6): retreat along the line of communication

def test_a_unit_flanked_on_its_supply_side_retreats_round_the_enemy(tmp_path, monkeypatch):
    # 10.6(6) "退却是往自军联络源开始的联络线(参见 3.3)方向，按照最短距离退却": the
    # way back is a line of communication, which never passes an enemy unit
    # (3.3(1)).  D's two hexes nearer the east edge (its sources) hold the
    # attackers; by the map alone it could only retreat into them and would
    # be destroyed.  Along the lines open now it retreats round them.
    game = gekitou_game(tmp_path, ["A german infantry 3-5 2-5", "B german infantry 3-5 2-5",
                                   "D red-army infantry 2-5 1-5"], ["A 0604", "B 0605", "D 0505"])
    eng = Engine(game)
    s = setup_state(game)
    s.active, s.phase = "axis", "combat"
    s.step = {"decision": "combat"}
    fixed_die(monkeypatch, 3)  # 3-1, die 3: R
    s2 = eng.apply(eng.apply(s, "attack 0505 with A,B"), "done")  # declared, then fought (10.2(1))
    assert s2.pending and s2.pending[0]["kind"] == "retreat"
    options = eng.legal_actions(s2)
    assert options and all(isinstance(o, Retreat) and len(o.path) == 1 for o in options)
    # the nearest open hexes round A and B (north or south of them; 0404 and 0405
    # are farther), in the attackers' ZOC: D loses a step there (10.6(4))
    assert {o.path[0] for o in options} == {"0504", "0506"}
    s3 = eng.apply(s2, options[0])
    assert s3.units["D"].hex is not None and s3.units["D"].step == 1
    assert s3.units["D"].hex != game.map.grid.parse_id("0505")


# ---------------------------------------------------------------- 10.2(1): attacks declared first

def test_every_attack_is_declared_before_the_first_is_rolled(tmp_path, monkeypatch):
    # 10.2(1) "攻击方必须先全部宣称攻击哪些格子，然后攻击方按照顺序结算战斗": an attack
    # only declares its battle; 'done' closes the declarations and the
    # attacker then fights them in the order it chooses, each settled
    # (retreat, advance) before the next; the segment ends after the last.
    from runtime.actions import Attack, Done, IllegalActionError
    game = gekitou_game(tmp_path, ["A german panzer 9-4-10 4-2-10", "B german panzer 9-4-10 4-2-10",
                                   "D red-army infantry 3-5 1-5", "E red-army infantry 3-5 1-5"],
                        ["A 0404", "B 0408", "D 0504", "E 0508"])
    assert game.combat.declare_first
    eng = Engine(game)
    s = setup_state(game)
    s.active, s.phase = "axis", "combat"
    s.step = {"decision": "combat"}
    fixed_die(monkeypatch, 1)
    s = eng.apply(s, "attack 0504 with A")
    assert not any("roll" in e for e in s.log) and not s.pending          # declared, nothing rolled
    assert s.step["declared"] == [["0504", ["A"]]] and "A" in s.attacked
    with pytest.raises(IllegalActionError, match="already"):
        eng.apply(s, "attack 0504 with A")                                 # a unit and a hex attack once
    s = eng.apply(s, "attack 0508 with B")
    assert Attack("0508", ("B",)) not in eng.legal_actions(s) and Done() in eng.legal_actions(s)
    s = eng.apply(s, "done")
    p = s.pending[0]
    assert p["kind"] == "crt-order" and p["side"] == "axis"                # the attacker picks the order
    assert set(eng.legal_actions(s)) == {Attack("0504", ("A",)), Attack("0508", ("B",))}
    assert eng.default_action(s) in eng.legal_actions(s)
    s = eng.apply(s, "attack 0508 with B")            # the second declared, fought first; the last follows
    while s.pending:
        s = eng.apply(s, eng.default_action(s))
    assert [e["action"] for e in s.log if "die" in e] == ["attack 0508 with B", "attack 0504 with A"]
    assert s.phase == ""                                                   # the segment is over


def test_declare_first_is_for_attacks_on_a_crt(tmp_path):
    from dsl.compiler import compile_game
    import shutil
    from dsl.diagnostics import DslError
    folder = tmp_path / "b"
    shutil.copytree(ROOT / "games" / "barbarossa-postcard", folder)
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    (folder / "game.hxr").write_text(text.replace("  procedure firepower\n", "  procedure firepower\n  declare-first\n", 1),
                                     encoding="utf-8")
    with pytest.raises(DslError) as e:
        compile_game(folder)
    assert "declare-first is for attacks on a CRT" in str(e.value) and "game.hxr:" in str(e.value)


def test_a_declared_battle_whose_defenders_are_gone_is_called_off(tmp_path, monkeypatch):
    # a declared battle is fought only while its hex holds the enemy and an
    # attacker stands next to it; otherwise it is called off and logged
    game = gekitou_game(tmp_path, ["A german panzer 9-4-10 4-2-10", "B german panzer 9-4-10 4-2-10",
                                   "D red-army infantry 3-5 1-5", "E red-army infantry 3-5 1-5"],
                        ["A 0404", "B 0408", "D 0504", "E 0508"])
    eng = Engine(game)
    s = setup_state(game)
    s.active, s.phase = "axis", "combat"
    s.step = {"decision": "combat"}
    fixed_die(monkeypatch, 1)
    s = eng.apply(eng.apply(s, "attack 0504 with A"), "attack 0508 with B")
    s.place("E", None, "eliminated")                    # (as an effect might: 0508 is empty now)
    s = eng.apply(s, "done")
    while s.pending:
        s = eng.apply(s, eng.default_action(s))
    assert [e["action"] for e in s.log if "die" in e] == ["attack 0504 with A"]
    assert any(e.get("attack") == "0508" and "called-off" in e for e in s.log) and s.phase == ""
