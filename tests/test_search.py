"""The search bot (runtime/search.py): legal, deterministic, and it looks ahead."""
from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dsl.compiler import compile_game
from helpers import GAMES, ROOT
from runtime.bots import GreedyBot, make_bot, play
from runtime.runner import Runner
from runtime.search import SearchBot, game_values

DECOY = ROOT / "tests" / "games" / "decoy"
SHOTS = Path("/tmp/hexforge-play-shots")


@pytest.fixture(scope="module")
def barbarossa():
    return Runner(compile_game(GAMES / "barbarossa-postcard"))


def test_the_bots_go_for_what_the_victory_rules_name_not_the_decoy():
    """The town is worth VP on the map; holding the bridge at the end wins,
    as the victory rules say.  Both bots read their goals from the victory
    rules (runtime.objectives), so the town draws neither."""
    runner = Runner(compile_game(DECOY))
    for bot, winner in ((GreedyBot(1), "a"), (SearchBot(1, "30", moves=True), "a")):
        state, _ = play(runner, runner.new_game(1), {"a": bot, "b": GreedyBot(2)})
        assert state.result["winner"] == winner, bot.name
    values = game_values(runner)
    assert values.objectives["a"] == (runner.board.parse("0105"),)  # read from the win rule, not the map's VP


def _first_movement_decision(runner, seed):
    """The first decision whose answers are all moves (and done), more than one."""
    from runtime.actions import Done, Move

    s, greedy = runner.new_game(seed), GreedyBot(seed)
    while s.result is None:
        acts = runner.legal_actions(s)
        if len(acts) > 1 and all(isinstance(a, (Move, Done)) for a in acts) and \
                any(isinstance(a, Move) for a in acts):
            return s
        s = runner.apply(s, greedy.choose(runner, s))
    raise AssertionError("no movement decision")


@pytest.fixture
def searched(monkeypatch):
    """The ``moves`` setting of every search tree grown while the test runs (one per tree)."""
    trees = []
    real = SearchBot._search

    def spy(self, *a, **k):
        trees.append(self.moves)
        return real(self, *a, **k)

    monkeypatch.setattr(SearchBot, "_search", spy)
    return trees


def test_movement_decisions_are_greedys_where_attacks_are_declared(searched, barbarossa):
    """Where attacks are declared (the decoy game), a movement decision is the
    greedy bot's answer without a search; ``moves=True`` (``search:N:moves=1``)
    searches it.  Where an attack is a move into an enemy hex (Barbarossa),
    moves are searched, unless ``moves=0``."""
    decoy = Runner(compile_game(DECOY))
    s = _first_movement_decision(decoy, 1)
    assert SearchBot(1, "8").choose(decoy, s) == GreedyBot(1).choose(decoy, s)
    assert searched == []
    SearchBot(1, "8", moves=True).choose(decoy, s)
    assert searched == [True]
    make_bot("search:8:moves=1", 1).choose(decoy, s)  # (the agent name's switch)
    assert searched == [True, True]
    b = _first_movement_decision(barbarossa, 1)
    assert make_bot("search:4:moves=0", 1).choose(barbarossa, b) == GreedyBot(1).choose(barbarossa, b)
    assert searched == [True, True]
    SearchBot(1, "4").choose(barbarossa, b)
    assert searched[2:] and set(searched[2:]) == {None}


def test_set_up_placements_are_greedys_where_attacks_are_declared(searched, barbarossa):
    """Smolensk's Axis set-up (attacks declared after movement): a placement is
    the greedy bot's answer without a search, its playouts ending before any
    unit moves or fights; ``moves=True`` searches it.  Barbarossa's set-up
    (attacks made by moving in) is searched."""
    smolensk = Runner(compile_game(GAMES / "smolensk"), "short")
    s = smolensk.new_game(1)
    assert s.step.get("decision") == "deploy" and len(smolensk.legal_actions(s)) > 1
    assert SearchBot(1, "4").choose(smolensk, s) == GreedyBot(1).choose(smolensk, s)
    assert searched == []
    SearchBot(1, "2", moves=True).choose(smolensk, s)
    assert searched and set(searched) == {True}
    b = barbarossa.new_game(1)
    assert b.step.get("decision") == "deploy"
    searched.clear()
    SearchBot(1, "2").choose(barbarossa, b)
    assert searched and set(searched) == {None}


def test_enemy_units_cut_off_count_for_the_side(monkeypatch, barbarossa):
    """The evaluation's supply term is the side's share of units in supply
    less the enemy's: with every Soviet unit cut off, the Axis's prospects
    rise by what the Soviets' fall, the Soviets' share before times the
    term's weight."""
    import runtime.search as SR

    s = _first_movement_decision(barbarossa, 1)
    values = game_values(barbarossa)
    before = SR.evaluate(barbarossa, values, s)
    real = SR.reached
    monkeypatch.setattr(SR, "reached", lambda g, b, st, side: {} if side == "soviet" else real(g, b, st, side))
    after = SR.evaluate(barbarossa, values, s)
    soviets = [u for u in s.units.values() if u.side == "soviet" and u.hex is not None]
    share = sum(1 for u in soviets if u.hex in real(barbarossa.game, barbarossa.board, s, "soviet")) / len(soviets)
    assert share > 0.5
    assert after["axis"] - before["axis"] == pytest.approx(0.05 * share)
    assert before["soviet"] - after["soviet"] == pytest.approx(0.05 * share)


def test_the_standing_reads_the_end_awards(barbarossa):
    s = barbarossa.new_game(3)
    vp, winner = barbarossa.standing(s)
    assert winner == "soviet" and vp["axis"] < 6  # no city held yet: the Soviet would win now


def _decisions(runner, seed, budget, n):
    bots = {side: make_bot(f"search:{budget}", seed * 10 + i) for i, side in enumerate(runner.game.sides)}
    s, out = runner.new_game(seed), []
    while s.result is None and len(out) < n:
        side = runner.to_move(s)
        a = bots[side].choose(runner, s)
        out.append(str(a))
        s = runner.apply(s, a)
    return out


def test_same_seed_and_iterations_give_the_same_decisions(barbarossa):
    first = _decisions(barbarossa, 4, 4, 30)
    assert first == _decisions(barbarossa, 4, 4, 30)
    assert len(first) == 30


def test_a_whole_barbarossa_game_with_search_on_one_side_takes_only_legal_actions(barbarossa):
    runner = barbarossa
    search, greedy = SearchBot(5, "4"), GreedyBot(6)
    s, taken = runner.new_game(5), 0
    while s.result is None:
        side = runner.to_move(s)
        bot = search if side == "axis" else greedy
        a = bot.choose(runner, s)
        if bot is search:
            assert a in runner.legal_actions(s)
            taken += 1
        s = runner.apply(s, a)
    assert s.result["winner"] in ("axis", "soviet") and taken > 50


def test_the_search_counts_the_decisions_it_answered_otherwise_than_greedy(barbarossa, monkeypatch):
    runner = barbarossa
    search, greedy = SearchBot(3, "20"), GreedyBot(4)
    finals = []
    real = SearchBot._final

    def final(self, root, side, margin=0.0):
        edge = real(self, root, side, margin)
        finals.append((edge.action, root.pick))
        return edge

    monkeypatch.setattr(SearchBot, "_final", final)
    s = runner.new_game(3)
    while s.result is None and s.turn <= 2:
        bot = search if runner.to_move(s) == "soviet" else greedy
        s = runner.apply(s, bot.choose(runner, s))
    assert search.searched == len(finals) > 20
    # the Soviet search departs from greedy in Barbarossa (it wins where greedy does not), now and then
    assert 0 < search.departed == sum(a != pick for a, pick in finals) < search.searched


def test_agent_names_take_a_budget_only_for_search():
    assert make_bot("search:250", 1).iterations == 250
    assert make_bot("search", 1, think=0.5).think == 0.5
    assert make_bot("greedy", 1, think=0.5).name == "greedy"  # a time budget is for the bots that search
    with pytest.raises(ValueError, match="takes no budget"):
        make_bot("greedy:5", 1)
    with pytest.raises(ValueError, match="number of iterations"):
        make_bot("search:lots", 1)
    # no iterations and no time to think: a search that never ended (search:0 hung)
    with pytest.raises(ValueError, match=re.escape("search:0: the budget is at least 1 iteration a decision")):
        make_bot("search:0", 1)
    for think in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="the time to think is a number of seconds above 0"):
            make_bot("search", 1, think=think)


def test_the_help_texts_show_every_option_an_agent_name_takes(capsys):
    # hexforge play --help, hexforge balance --help and the Balance dialog's tooltip read one list of examples
    from dsl.cli import main
    from runtime.bot_options import EXAMPLES, OPTIONS, examples
    from runtime.bots import make_bot
    assert {k for k in OPTIONS if any(f":{k}=" in name for name, _ in EXAMPLES)} == set(OPTIONS)
    for name, _ in EXAMPLES:
        make_bot(name.replace(":N", ":5"), 1)                  # each example is a name the bots take
    for command in ("play", "balance"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert " ".join(capsys.readouterr().out.split()).count("greedy:risk=0.5 keeps a unit") == 1
    assert examples("\n").count("\n") == len(EXAMPLES) - 1


def test_agent_names_set_the_greedy_bots_hold_reach():
    """``greedy:hold=1`` is the greedy bot that holds every place of its own the
    enemy could reach; ``search:N:hold=X`` improves on, and plays its playouts
    with, that greedy bot; a wrong option says what the bot takes."""
    from runtime.bots import GreedyBot

    assert make_bot("greedy", 1).hold == GreedyBot.HOLD
    assert make_bot("greedy:hold=1", 1).hold == 1.0
    bot = make_bot("search:30:hold=0.5", 1)
    assert (bot.iterations, bot.greedy.hold, bot.rollout_bot.hold) == (30, 0.5, 0.5)
    assert make_bot("greedy", 1).attack == GreedyBot.ATTACK
    bot = make_bot("search:30:attack=0.34", 1)
    assert (bot.greedy.attack, bot.rollout_bot.attack, bot.greedy.hold) == (0.34, 0.34, GreedyBot.HOLD)
    assert (make_bot("search:4:moves=1", 1).moves, make_bot("search:4:moves=0", 1).moves,
            make_bot("search:4", 1).moves) == (True, False, None)
    for name, says in (("greedy:hold=2", "hold takes a number from 0 to 1"),
                       ("greedy:hold=lots", "hold takes a number from 0 to 1"),
                       ("greedy:reach=3", "the greedy bot has no option 'reach' (options: hold, attack, risk)"),
                       ("greedy:risk=1.5", "risk takes a number from 0 to 1"),
                       ("greedy:hold=1:hold=0", "greedy:hold=1:hold=0: hold is given twice"),
                       ("greedy:attack=-1", "attack takes a number from 0 to 1"),
                       ("search:4:moves=0.5", "moves takes 0 or 1"),
                       ("greedy:moves=1", "the greedy bot has no option 'moves'"),
                       ("random:hold=1", "the random bot has no option 'hold'"),
                       ("search:5:6", "one budget only"),
                       ("search:99999999999999999999", "the budget is at most 10,000 iterations a decision")):
        with pytest.raises(ValueError, match=re.escape(says)):
            make_bot(name, 1)


def test_play_command_takes_search_with_a_budget():
    cmd = [sys.executable, "-m", "editor.cli", "play", str(DECOY), "--agents", "search:20,greedy", "--seed", "2"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "winner a" in r.stdout
    r = subprocess.run(cmd[:5] + ["--agents", "greedy:20,greedy"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "takes no budget" in r.stderr and "Traceback" not in r.stderr
    for bad, says in ((["--agents", "search:0,greedy"], "search:0: the budget is at least 1 iteration"),
                      (["--agents", "greedy,greedy", "--think", "-1"], "--think -1: the time to think is a number "
                                                                       "of seconds above 0")):
        r = subprocess.run(cmd[:5] + bad, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and says in r.stderr and "Traceback" not in r.stderr


def test_playtest_offers_the_search_bot(qtbot, tmp_path, monkeypatch):
    """Game > Play…: a side set to search plays with a short time budget and wins the decoy."""
    import shutil

    from editor.document import GameDocument
    from editor.play import AGENTS, open_playtest

    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    shutil.copytree(DECOY, tmp_path / "decoy")
    doc = GameDocument.open(tmp_path / "decoy")
    try:
        w = open_playtest(doc, "basic", (), 1, {"a": "human", "b": "human"})
        w.interactive, w.bot_delay_ms = False, 0
        qtbot.addWidget(w)
        w.show()
        assert "search" in AGENTS and w.agent_boxes["a"].findData("search") >= 0
        w.set_agent("a", "search")
        qtbot.waitUntil(lambda: w.timeline.latest.result is not None, timeout=20_000)
        assert w.timeline.latest.result["winner"] == "a"
        SHOTS.mkdir(parents=True, exist_ok=True)
        assert w.grab().save(str(SHOTS / "search-playtest.png"))  # to look at
        w.close()
    finally:
        doc.close()


def test_wilson_interval_of_the_bench():
    from bench.bench_search import wilson
    lo, hi = wilson(20, 40)
    assert round(lo, 3) == 0.352 and round(hi, 3) == 0.648  # about +-14 points at 50% over 40 games
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_a_chance_outcome_that_draws_markers_is_a_tree_key():
    """A Victory Denied draws victory chits (markers, logged as their dicts: a Soviet unit entering a
    star, the set-up): the search tree keys a chance transition by what it drew (it crashed on them)."""
    from runtime.search import _outcome
    r = Runner(compile_game(ROOT / "games" / "a-victory-denied"))
    s1, s2, s3 = r.new_game(seed=1), r.new_game(seed=1), r.new_game(seed=2)
    assert any(isinstance(e.get("draw"), list) and isinstance(e["draw"][0], dict) for e in s1.log)
    keys = {_outcome(0, s1): "seed 1"}
    assert keys.get(_outcome(0, s2)) == "seed 1" and _outcome(0, s3) not in keys


def test_greedys_economised_attack_is_among_the_answers_searched():
    """Greedy leaves out of an attack the units its odds column does not need;
    the legal actions offer only the whole group.  Its answer is still one
    the search weighs (it had been missing, and the search then chose among
    the listed groups only)."""
    from runtime.actions import Attack
    from runtime.search import observe

    runner = Runner(compile_game(GAMES / "smolensk"), "short")
    s, greedy = runner.new_game(0), GreedyBot(1)
    for _ in range(3000):
        acts = runner.legal_actions(s)
        pick = greedy.choose(runner, s)
        if isinstance(pick, Attack) and pick not in acts:
            break
        s = runner.apply(s, pick)
    else:
        raise AssertionError("greedy attacked with no group smaller than the listed one")
    bot = SearchBot(1, "4")
    side = runner.to_move(s)
    edges = bot._rank(runner, game_values(runner), observe(runner, s, side), side, acts, pick)
    assert pick in [e.action for e in edges]
    assert runner.apply(s, pick).result is None  # and it is a legal answer


def test_another_answer_than_greedys_must_beat_it_by_more_than_the_noise():
    """``_final``: greedy's answer stands against one whose mean value is
    higher by less than ``SPREAD`` standard errors of the difference of
    their means; a gain as large but steady is taken."""
    from runtime.actions import Done, Move
    from runtime.search import SPREAD, Edge, Node

    def edge(action, values):
        return Edge(action, 0.5, n=len(values), w={"a": sum(values)}, w2={"a": sum(v * v for v in values)})

    greedy, other = Move("u", "0101"), Done()
    root = Node(None, "a", {})
    root.pick = greedy
    steady = [0.50, 0.52, 0.48, 0.50]
    root.edges = [edge(greedy, steady), edge(other, [0.9, 0.1] * 5)]  # mean 0.5 + 0: nothing gained
    assert SearchBot(1, "8")._final(root, "a") is root.edges[0]
    root.edges = [edge(greedy, steady), edge(other, [0.95, 0.15] * 5)]  # 0.05 more, the noise 0.4 a playout
    assert SPREAD > 0 and SearchBot(1, "8")._final(root, "a") is root.edges[0]
    root.edges = [edge(greedy, steady), edge(other, [0.56, 0.54] * 5)]  # 0.05 more, steadily
    assert SearchBot(1, "8")._final(root, "a") is root.edges[1]


def test_the_search_weighs_attacks_whose_modifiers_read_the_game_s_functions():
    """A Victory Denied's Minsk escapee modifier reads ``marker-at``, one of the runner's functions:
    the search's attack prior works the odds out with them (it once raised "unknown function")."""
    from runtime.actions import Attack
    game = compile_game(GAMES / "a-victory-denied")
    r = Runner(game)
    s = r.new_game(seed=1)
    sov, target = next((u, n) for u in s.on_map("soviet") if not game.counters[u.id].steps[0].get("command")
                       for n, _ in r.board.adj[u.hex] if s.side_at(n) == "german")
    from runtime.combat.odds import combat_odds
    rep = combat_odds(game, r.board, s, [sov.id], target, env=r.env)
    hurt = sum(p for code, p in rep.probabilities.items()
               if (res := game.results[rep.crt.results].get(code)) and (res.defender_loss or res.defender_retreat))
    scores = [0.0]
    SearchBot(3, "4")._score_attacks(r, s, [(0, Attack(r.board.hex_id(target), (sov.id,)))], scores)
    assert scores[0] == (2.0 * hurt - 1.0 if rep.legal else -2.0)
