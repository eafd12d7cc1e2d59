"""The search bot's plans (runtime/plans.py): where attacks are declared after
movement, ``search:plans=N`` plays each activation of its side by the best of
a portfolio of greedy plans, each played to the end of the turn."""
from __future__ import annotations

import random
import re

import pytest

from dsl.compiler import compile_game
from helpers import GAMES, ROOT
from runtime.bots import GreedyBot, make_bot
from runtime.plans import PLANS, SPREAD, Planner, plan_name
from runtime.runner import Runner
from runtime.search import SearchBot


@pytest.fixture(scope="module")
def smolensk():
    return Runner(compile_game(GAMES / "smolensk", ("vp-bidding",)), "short", params={"bid": 9})


def _first_axis_movement(runner, seed: int = 1):
    s, greedy = runner.new_game(seed), GreedyBot(seed)
    while not (s.step.get("decision") == "movement" and s.active == "axis" == runner.to_move(s)):
        s = runner.apply(s, greedy.choose(runner, s))
    return s


def test_an_activation_is_played_by_the_plan_chosen_where_it_starts(smolensk):
    """At the first decision of the Axis's first activation the plans are played out and one is
    chosen; every decision of that activation is then that plan's greedy bot's answer, with no
    new choice, and the next activation chooses again.  The same seed chooses the same."""
    s = _first_axis_movement(smolensk)
    bot = make_bot("search:plans=1", 7)
    first = bot.choose(smolensk, s)
    planner = bot._planner[1]
    assert len(planner.chosen) == 1 and bot.searched == 1
    key, choice = planner.chosen[0]
    assert key == (s.turn, "axis", len(s.cup), "axis") and len(choice.means) == len(planner.options)
    assert first == GreedyBot(7, **planner.options[choice.plan]).choose(smolensk, s)
    again = make_bot("search:plans=1", 7)
    assert again.choose(smolensk, s) == first and again._planner[1].chosen[0][1] == choice
    # the rest of the activation: the plan's answers, no new choice
    n, t = 0, s
    while Planner.key(t, "axis") == key and n < 400:
        if smolensk.to_move(t) == "axis":
            a = bot.choose(smolensk, t)
            assert a == planner.bot(choice.plan).choose(smolensk, t)
        else:
            a = GreedyBot(2).choose(smolensk, t)
        t, n = smolensk.apply(t, a), n + 1
    assert len(planner.chosen) == 1 and 1 < n < 400
    # on to the next activation, every decision of the Axis shown to the bot (those with one answer
    # too: they tell one activation from the next, whose key may be the same)
    while len(planner.chosen) == 1 and n < 1000:
        a = bot.choose(smolensk, t) if smolensk.to_move(t) == "axis" else GreedyBot(2).choose(smolensk, t)
        t, n = smolensk.apply(t, a), n + 1
    assert len(planner.chosen) == 2 and t.step.get("decision") == "movement" and t.active == "axis"


def test_a_plan_that_plays_the_first_sample_as_the_first_plan_is_not_played_again(smolensk, monkeypatch):
    """Holding places the enemy plays for changes nothing for Smolensk's Axis on turn 1 (it holds none):
    those plans play the first sample exactly as the greedy bot as given, and are scored as it is on
    the others without being played."""
    s = _first_axis_movement(smolensk)
    bot = make_bot("search:plans=2", 3)
    played = []
    real = Planner._playout

    def spy(self, runner, state, side, plan):
        played.append(plan)
        return real(self, runner, state, side, plan)

    monkeypatch.setattr(Planner, "_playout", spy)
    bot.choose(smolensk, s)
    planner = bot._planner[1]
    holds = [i for i, o in enumerate(planner.options) if o["hold"] != GreedyBot.HOLD]
    assert len(holds) == 2 and len(planner.options) == len(PLANS)
    assert played[:len(PLANS)] == list(range(len(PLANS)))  # the first sample: every plan
    assert not set(holds) & set(played[len(PLANS):]) and 0 in played[len(PLANS):]
    means = planner.chosen[0][1].means
    assert all(means[i] == means[0] for i in holds)


def test_another_plan_must_beat_the_first_by_more_than_the_noise():
    """The greedy bot as given stands unless another plan's mean beats it by ``SPREAD`` standard
    errors of their paired differences: a plan better on average but not on every sample does not."""
    scores = {0: [0.10, 0.20, 0.30], 1: [0.50, 0.10, 0.40], 2: [0.15, 0.25, 0.35]}
    for plan_1, plan_2, chosen in ((scores[1], scores[2], 2), (scores[1], scores[0], 0),
                                   (scores[2], [0.2, 0.3, 0.4], 2)):
        planner = Planner(1, 3, {}, lambda options, sees: None, lambda r, s, side, rng: _Copyable(), None)
        values = {0: iter(scores[0]), 1: iter(plan_1), 2: iter(plan_2)}
        planner._playout = lambda runner, s, side, i: (next(values[i]) if i in values else -1.0, [i])
        choice = planner.choose(None, None, "a", random.Random(1))
        assert choice.plan == chosen, (plan_1, plan_2)
    # plan 1 beats the first on average (0.333 against 0.2) but its paired differences (0.4, -0.1, 0.1)
    # have a standard error of 0.145, more than their mean: noise (``SPREAD`` is 1); the plan that is
    # 0.05 or 0.1 better on every sample beats it, and of two such the better mean is chosen
    assert SPREAD == 1.0


class _Copyable:
    def copy(self):
        return self


def test_plans_are_only_for_games_whose_movement_is_not_searched():
    """Where moving in attacks (the Barbarossa postcard game) the search weighs every move itself:
    ``plans`` changes nothing there."""
    barbarossa = Runner(compile_game(GAMES / "barbarossa-postcard"))
    s = barbarossa.new_game(1)
    while not (s.step.get("decision") == "movement" and len(barbarossa.legal_actions(s)) > 1):
        s = barbarossa.apply(s, GreedyBot(1).choose(barbarossa, s))
    bot = SearchBot(1, "4", plans=2)
    assert bot.choose(barbarossa, s) == SearchBot(1, "4").choose(barbarossa, s)
    assert bot._planner is None


def test_agent_names_take_plans_as_a_whole_number():
    assert make_bot("search:plans=3", 1).plans == 3 and make_bot("search:20", 1).plans == 0
    assert make_bot("search:plans=2:hold=1", 1).greedy.hold == 1.0
    for name, says in (("search:plans=2.5", "plans=2.5: the samples each plan is played from, a whole number"),
                       ("search:plans=21", "plans takes a number from 0 to 20"),
                       ("greedy:plans=3", "the greedy bot has no option 'plans'")):
        with pytest.raises(ValueError, match=re.escape(says)):
            make_bot(name, 1)
    assert [plan_name(p) for p in PLANS[:2]] == ["greedy", "attack=0.3"]


def test_the_decoy_games_side_plans_its_one_activation():
    """A whole game with plans on one side (the decoy game: declared attacks, one turn)."""
    from runtime.bots import play

    runner = Runner(compile_game(ROOT / "tests" / "games" / "decoy"))
    bot = make_bot("search:plans=2", 1)
    state, _ = play(runner, runner.new_game(1), {"a": bot, "b": GreedyBot(2)})
    assert state.result["winner"] == "a" and [k for k, _ in bot._planner[1].chosen] == [(1, "a", 0, "a")]
