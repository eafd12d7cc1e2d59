"""``supply { ends-in-zoc no }``: a line may not end in enemy ZOC that no
friendly unit negates (GJ63 3.2(1): "联络线不能通过敌方单位所在格以及其支配地域。
在有己方单位存在时，可以通过敌支配地域格。", with no "but it can enter enemy ZOC"
as Gekitou's 3.3(1) has).  A VP hex next to a Soviet unit, with no German
unit in it, gives the Germans nothing (18.0(1)1)."""
from __future__ import annotations

import dataclasses

import pytest

from dsl.compiler import compile_game
from dsl.diagnostics import DslError
from helpers import ROOT
from runtime.runner import Runner
from runtime.supply import barred_ends, supply_map

from test_dicepool_air import _game


def _oboyan_vp(runner, s) -> int:
    return runner.standing(s)[0]["german"]


def test_a_vp_hex_next_to_an_enemy_unit_is_not_supplied():
    runner, s = _game()  # (every counter off the map)
    board = runner.board
    s.place("GD", board.parse("0310"))     # the line runs north from the sources on the south edge
    s.place("52G", board.parse("0303"))    # next to Oboyan (0302), south of it
    s.version += 1
    oboyan = board.parse("0302")
    assert oboyan in supply_map(runner.game, board, s, "german")  # the line reaches it ...
    assert oboyan in barred_ends(runner.game, board, s, "german")  # ... but may not end there
    vp = _oboyan_vp(runner, s)
    # the rule switched off (Gekitou's reading): the same state scores Oboyan
    lenient = Runner(dataclasses.replace(runner.game, supply=dataclasses.replace(runner.game.supply,
                                                                                 ends_in_zoc=True)))
    assert barred_ends(lenient.game, lenient.board, s, "german") == frozenset()
    assert _oboyan_vp(lenient, s) == vp + 1
    # a German unit in Oboyan negates the ZOC there: supplied
    s.place("3Pz", oboyan)
    assert oboyan not in barred_ends(runner.game, board, s, "german")
    assert _oboyan_vp(runner, s) == vp + 1
    # a hex out of enemy ZOC is supplied as before (the Kursk road, 0601, with no Soviet unit near)
    assert board.parse("0601") not in barred_ends(runner.game, board, s, "german")


def test_a_unit_in_enemy_zoc_keeps_its_line():
    runner, s = _game()
    board = runner.board
    s.place("GD", board.parse("0310"))
    s.place("52G", board.parse("0309"))    # GD stands in 52G's ZOC
    s.version += 1
    assert board.parse("0310") not in barred_ends(runner.game, board, s, "german")


def _check(tmp_path, supply_lines: str):
    folder = tmp_path / "g"
    folder.mkdir(exist_ok=True)
    text = (ROOT / "games" / "prokhorovka" / "game.hxr").read_text(encoding="utf-8")
    text = text.replace("\n  ends-in-zoc no ", "\n  # ", 1).replace("\nsupply {\n", "\nsupply {\n" + supply_lines, 1)
    (folder / "game.hxr").write_text(text, encoding="utf-8")
    (folder / "map.hxm").write_text((ROOT / "games" / "prokhorovka" / "map.hxm").read_text(encoding="utf-8"),
                                    encoding="utf-8")
    return compile_game(folder)


@pytest.mark.parametrize("lines, message", [
    ("  blocked-by enemy-units\n  ends-in-zoc no\n", "ends-in-zoc no needs lines blocked by enemy ZOC"),
    ("  friendly-negates-zoc no\n  ends-in-zoc no\n", "ends-in-zoc no is supported only where a friendly unit"),
])
def test_check_refuses_what_the_rule_cannot_mean(tmp_path, lines, message):
    with pytest.raises(DslError) as e:
        _check(tmp_path, lines)
    text = str(e.value)
    assert message in text
    assert "game.hxr:" in text  # located


def test_check_reads_yes_and_no(tmp_path):
    assert _check(tmp_path, "  ends-in-zoc no\n").supply.ends_in_zoc is False
    assert _check(tmp_path, "  ends-in-zoc yes\n").supply.ends_in_zoc is True
    assert compile_game(ROOT / "games" / "smolensk").supply.ends_in_zoc is True  # the default (Gekitou 3.3(1))
    assert compile_game(ROOT / "games" / "prokhorovka").supply.ends_in_zoc is False


def test_the_greedy_soviets_stand_by_a_vp_hex_the_german_lines_reach():
    """Where a line may not end in enemy ZOC, a unit next to a VP hex keeps
    the enemy from scoring it (``GreedyMoves._deny``): the greedy Soviet
    moves there, and the German standing drops by that VP."""
    from runtime.bots import GreedyBot
    runner, s = _game()
    board = runner.board
    s.place("GD", board.parse("0310"))
    s.place("52G", board.parse("0105"))  # next to no VP hex (at 0505 it would keep Verkhopenye and Pokrovka)
    s.phase, s.active, s.step, s.activated, s.pending = "movement", "soviet", {"decision": "movement"}, set(), []
    s.version += 1
    before = _oboyan_vp(runner, s)
    assert before >= 1 and board.parse("0302") in supply_map(runner.game, board, s, "german")
    move = GreedyBot(1).choose(runner, s)
    after = runner.engine.apply(s, move)
    assert _oboyan_vp(runner, after) < before, move
    where = after.units["52G"].hex
    vp_hexes = [next(iter(runner.game.map.areas[a])) for a in runner.game.map.areas if a.startswith("vp-")]
    assert any(where == p or where.distance(p) == 1 for p in vp_hexes)
    # where the rule is off, standing there takes nothing away: the greedy bot does not look for it
    lenient = Runner(dataclasses.replace(runner.game, supply=dataclasses.replace(runner.game.supply,
                                                                                 ends_in_zoc=True)))
    assert GreedyBot(1)._deny(lenient, s, {}, "soviet", frozenset(), set()) is None
