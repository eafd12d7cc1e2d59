"""Activation per chit (issue 12 item 7): command range, command chain, a
chit that activates any one HQ of its side, and chits available only while
their HQ is on the map.  The small game is tests/games/command; the A Victory
Denied cases run on docs/examples/avd."""
from __future__ import annotations

import pytest

from dsl.compiler import compile_game
from dsl.diagnostics import DslError
from runtime.decisions import Activate
from runtime.runner import Runner

from helpers import ROOT, make_game

COMMAND = ROOT / "tests" / "games" / "command"
AVD = ROOT / "docs" / "examples" / "avd"


@pytest.fixture(scope="module")
def game():
    return compile_game(COMMAND)


def activation_step(r: Runner) -> int:
    return next(i for i, st in enumerate(r.program) if st.kind == "proc" and st.phase.procedure == "activate")


def draw(r: Runner, s, chit: str):
    """The state as if ``chit`` had just been drawn: its activation runs."""
    s.pc = activation_step(r)
    s.step = {"chit": chit}
    r._proc_activate(s, r.program[s.pc].phase)
    return s


def test_the_chain_links_motorized_units_of_the_formation_by_steps_of_at_most_3_hexes(game):
    r = Runner(game)
    s = r.new_game(1)
    hexes = {u: s.units[u].hex for u in ("PG", "M1", "M2", "M3")}
    assert hexes["PG"].distance(hexes["M1"]) == 3 and hexes["M1"].distance(hexes["M2"]) == 3
    assert hexes["M2"].distance(hexes["M3"]) == 4          # the gap that breaks the chain
    draw(r, s, "PGC")                                       # chain only
    assert s.activated == {"PG", "M1", "M2"}                # not M3 (too far), I1 (not motorized), X1 (other formation)


def test_range_and_chain_together(game):
    r = Runner(game)
    s = draw(r, r.new_game(1), "PG")
    assert s.activated == {"PG", "I1", "M1", "M2"}          # I1 is within the HQ's command range of 1
    assert s.log[-1] == {"turn": 1, "activate": "PG", "units": ["I1", "M1", "M2", "PG"]}


def test_moving_a_link_breaks_the_chain(game):
    r = Runner(game)
    s = r.new_game(1)
    s.place("M1", game.map.grid.parse_id("1503"))           # the middle link leaves
    draw(r, s, "PGC")
    assert s.activated == {"PG"}


def test_a_chit_of_hq_any_asks_its_side_which_hq(game):
    r = Runner(game)
    s = draw(r, r.new_game(1), "ANY")
    assert s.step["decision"] == "command-hq" and s.step["side"] == "red"
    assert r.legal_actions(s) == [Activate("AR"), Activate("PG")]   # a choice: no 'done'
    s = r.apply(s, "activate AR")
    assert s.activated == {"AR", "I2"}
    assert {"turn": 1, "activate": "ANY", "units": ["AR", "I2"], "hq": "AR"} in s.log


def test_a_chit_is_available_only_while_its_hq_is_on_the_map(game):
    r = Runner(game)
    s = r.new_game(1)
    assert r._available_chits(s, "blue") == ["BH"]          # LT waits in a pool: its chit stays out
    s.place("LT", game.map.grid.parse_id("1805"))
    assert r._available_chits(s, "blue") == ["BH", "LT"]
    for hq in ("PG", "AR"):                                 # hq any: while any HQ of its side is on the map
        s.place(hq, None, "eliminated")
    assert "ANY" not in r._available_chits(s, "red")
    assert "PGC" in r._available_chits(s, "red")            # no 'needs': always available


def test_the_game_plays_to_the_end(game):
    from runtime.bots import RandomBot, play
    r = Runner(game)
    s, n = play(r, r.new_game(3), {side: RandomBot(i) for i, side in enumerate(game.sides)})
    assert s.result is not None and n > 5


# ---------------------------------------------------------------- the checker

def errors_of(tmp_path, old: str, new: str) -> list[str]:
    text = (COMMAND / "game.hxr").read_text(encoding="utf-8")
    assert old in text
    folder = make_game(tmp_path, text.replace(old, new), (COMMAND / "map.hxm").read_text(encoding="utf-8"))
    with pytest.raises(DslError) as e:
        compile_game(folder)
    return [d.format(e.value.sources) for d in e.value.diagnostics]


def test_a_chain_chit_needs_the_games_command_chain(tmp_path):
    errs = errors_of(tmp_path, "activation {\n  command-chain 3 motorized\n}\n", "")
    assert any("chit PG commands by chain, but the game gives no command chain" in e for e in errs)


def test_a_command_chain_no_chit_uses_is_refused(tmp_path):
    text = (COMMAND / "game.hxr").read_text(encoding="utf-8")
    text = text.replace("PG   range,chain", "PG   range      ").replace("PG   chain      ", "PG   range      ")
    folder = make_game(tmp_path, text, (COMMAND / "map.hxm").read_text(encoding="utf-8"))
    with pytest.raises(DslError) as e:
        compile_game(folder)
    msgs = [d.format(e.value.sources) for d in e.value.diagnostics]
    assert any("game.hxr:38:3: error: the command chain is not used by any rule" in m for m in msgs), msgs


def test_command_and_needs_values_are_checked(tmp_path):
    errs = errors_of(tmp_path, "PGC    red   hq    PG   chain        -  ", "PGC    red   hq    PG   chian        always")
    assert any("'chian' is not a way to command" in e and "did you mean 'chain'" in e for e in errs)
    assert any("'always' is not a condition a chit can need" in e for e in errs)


# ---------------------------------------------------------------- A Victory Denied

@pytest.fixture(scope="module")
def avd():
    return compile_game(AVD)


def test_avd_panzer_group_chit_links_its_motorized_units_beyond_the_command_range(avd):
    """3.d: a panzer group chit activates the group's motorized units that form a
    chain with gaps of at most 3 hexes; 3rd Panzer Group's HQ has command range 4."""
    r = Runner(avd)
    s = r.new_game(1)
    hx = avd.map.grid.parse_id
    s.place("3PzG", hx("3901"))
    s.place("7Pz", hx("3904"))                               # 3 hexes from the HQ
    s.place("900L", hx("3907"))                              # 6 from the HQ, 3 from 7Pz
    assert "900L" not in r.command(s, "3PzG", ("range",))    # outside the command range...
    draw(r, s, "3PzG")
    assert s.activated == {"3PzG", "7Pz", "900L"}            # ...but linked by the chain
    s.place("7Pz", hx("3501"))                               # the link moves away: 900L is cut off
    draw(r, s, "3PzG")
    assert "900L" not in s.activated and "7Pz" in s.activated


def test_avd_9th_army_chit_activates_any_one_german_hq(avd):
    """3.c: the 9th Army chit activates any one HQ: the German player chooses
    among the German HQs on the map (9th Army's own HQ stands in the Minsk Pocket)."""
    r = Runner(avd)
    s = draw(r, r.new_game(1), "9A")
    assert s.step["decision"] == "command-hq"
    assert r.legal_actions(s) == [Activate("2PzG"), Activate("3PzG"), Activate("9A")]
    s = r.apply(s, "activate 2PzG")
    assert {"4Pz", "10Pz", "2PzG"} <= s.activated
    assert any(e.get("activate") == "9A" and e.get("hq") == "2PzG" for e in s.log)


def test_avd_timoshenko_chit_is_available_only_once_he_is_on_the_map(avd):
    """2: a chit is available if its HQ is on the map; 2.a: the 9th Army chit if
    any German HQ is."""
    r = Runner(avd)
    s = r.new_game(1)
    assert "Tim" not in r._available_chits(s, "soviet")      # Timoshenko waits in the reserve box
    s.place("Tim", avd.map.grid.parse_id("3005"))
    assert "Tim" in r._available_chits(s, "soviet")
    assert r._available_chits(s, "german").count("9A") == 2
    for hq in ("2PzG", "3PzG", "9A"):
        s.place(hq, None, "eliminated")
    assert "9A" not in r._available_chits(s, "german")       # no German HQ on the map


def test_the_greedy_bot_chooses_the_hq_that_activates_most(avd):
    from runtime.bots import GreedyBot
    r = Runner(avd)
    s = draw(r, r.new_game(1), "9A")
    choice = GreedyBot(0).choose(r, s)
    sizes = {a.unit: len(r.command(s, a.unit)) for a in r.legal_actions(s)}
    assert sizes[choice.unit] == max(sizes.values())


def test_the_greedy_bot_keeps_its_units_on_the_hqs_chain(game):
    """A command chain from the HQ (no ``per``): a motorized unit the chain links moves only where
    the chain still links it and every unit it linked (the middle link M1 would cut M2 off)."""
    from runtime.bots import GreedyBot
    r = Runner(game)
    s = r.new_game(1)
    bot, at = GreedyBot(0), {u: s.units[u].hex for u in ("PG", "M1", "M2", "M3")}
    board = list(r.board.graph)
    kept = bot._chained(r, s, "M1", at["M1"])
    near_hq_only = [h for h in board if h.distance(at["PG"]) <= 3 and h.distance(at["M2"]) > 3]
    both = [h for h in board if h.distance(at["PG"]) <= 3 and h.distance(at["M2"]) <= 3]
    assert near_hq_only and both
    assert not any(kept(h) for h in near_hq_only) and all(kept(h) for h in both)
    kept = bot._chained(r, s, "M2", at["M2"])                 # the chain's end: anywhere within 3 of M1
    assert all(kept(h) == (h.distance(at["M1"]) <= 3 or h.distance(at["PG"]) <= 3) for h in board
               if h.distance(at["M3"]) > 3)
    assert bot._chained(r, s, "M3", at["M3"]) is None          # off the chain: no chit moves it
    assert bot._chained(r, s, "I1", s.units["I1"].hex) is None  # not motorized
