"""Plans: how the ``search`` bot answers a whole activation where attacks are
declared after movement (Smolensk), when asked to (``search:plans=3``).

A movement segment there offers thousands of moves, whose worth shows only
after the combat they prepare and the enemy's reply; a tree over single
moves cannot tell them apart within budget, and the search used to move as
the greedy bot does.  A plan is a whole way of playing instead: the greedy
bot with its options set otherwise (``PLANS``: attacking at worse or only at
better odds, keeping costly units out of more or less danger, holding more
or fewer of the places the enemy plays for).  This is a portfolio search, as
Churchill and Buro's Portfolio Greedy Search chooses among scripted
policies where the moves are too many to search one by one:

- when the side's activation starts (a movement decision of the side after
  any other decision of it: ``Planner.answer``), each plan plays the rest
  of the turn for the side, the greedy bot for the other sides, from
  ``samples`` samples of what the side cannot know (the dice to come, the
  chits it cannot see: ``search.determinise``); every plan meets the same
  samples (common random numbers);
- where the turn ends (or the game), the search's heuristic scores it
  (``search.evaluate``: VP, who would win, material, supply, the distance to
  the objectives);
- the greedy bot as given stands unless other plans beat it by more than
  ``SPREAD`` standard errors of their paired differences (then the best of
  those by its mean); the plan chosen answers every decision of the side
  until the activation ends.

Deterministic for a seed: the samples' generator derives from the bot's seed
and the decision's number."""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import expr as E
from .actions import IllegalActionError
from .runner import Runner, RunnerAction, SequenceError
from .state import GameState

# The portfolio: the greedy bot as given first, then each of its options (runtime.bot_options) set below
# and above its default.  Smolensk's short game, bid 9, seeds 0-19 against the greedy bot (the plans
# then per side: attack and risk for the Axis, hold and risk for the Soviets): the Axis won 13 games
# where greedy won 10 (4.7 VP a game more), the Soviets ... where greedy won 10
PLANS: tuple[dict[str, float], ...] = ({}, {"attack": 0.3}, {"attack": 0.7}, {"risk": 0.1}, {"risk": 0.6},
                                       {"hold": 0.0}, {"hold": 1.0})
# another plan than the first must beat it by this many standard errors of the paired differences
SPREAD = 1.0
# a playout ends with the turn, or after this many decisions
HORIZON = 3000


def plan_name(options: dict[str, float]) -> str:
    """How a plan is named: ``greedy`` for the bot as given, else its options (``attack=0.3``)."""
    return ",".join(f"{k}={v:g}" for k, v in options.items()) or "greedy"


@dataclass
class Choice:
    """A plan search's result: the plan chosen, and each plan's mean value."""

    plan: int
    means: list[float]


class Planner:
    """Chooses a plan when an activation of the side starts and keeps it until
    the activation ends.  ``make``: a greedy bot for the options given and
    ``observe`` (False in the playouts: a sample holds no secret of another
    side); ``sample``: one state drawn from the side's view; ``score``: the
    heuristic's value of a state for the side."""

    def __init__(self, seed: int, samples: int, base: dict[str, float],
                 make: Callable[[dict[str, float], bool], object],
                 sample: Callable[[Runner, GameState, str, random.Random], GameState],
                 score: Callable[[Runner, GameState, str], float]):
        self.seed, self.samples = seed, max(1, samples)
        # each plan's options over the bot's own (``search:plans=3:hold=1``: hold=1 is the first plan)
        self.options: list[dict[str, float]] = []
        for p in PLANS:  # (a plan the same as one before it, where the bot's own options set it, once)
            if dict(base, **p) not in self.options:
                self.options.append(dict(base, **p))
        self._make, self._sample, self._score = make, sample, score
        self._bots: dict[tuple[int, bool], object] = {}
        self._other = make(dict(base), False)  # the other sides in the playouts
        self._key: tuple | None = None  # the activation the plan stands for
        # whether the side's last decision was a movement decision: a movement decision after any other
        # starts an activation (Smolensk: the key alone comes round again, a chit played from the hand
        # leaving as many in the cup as the draw before)
        self._moving = False
        self._plan = 0
        self.chosen: list[tuple[tuple, Choice]] = []  # (the activation's key, what was chosen), in order

    @staticmethod
    def key(state: GameState, side: str) -> tuple:
        """What tells an activation of the side from the one before: the turn, the side in play, the
        chits left in the cup (one fewer with each draw)."""
        return (state.turn, state.active, len(state.cup), side)

    def bot(self, plan: int, observe: bool = True):
        hit = self._bots.get((plan, observe))
        if hit is None:
            hit = self._bots[(plan, observe)] = self._make(self.options[plan], observe)
        return hit

    def answer(self, runner: Runner, state: GameState, side: str, decision: int,
               acts: Sequence[RunnerAction]) -> RunnerAction | None:
        """The plan's answer to this decision of ``side`` (``acts``: its answers), choosing the plan if
        an activation of the side starts here; None where no plan stands (another side's activation, a
        decision before any movement: chits, transfers, set-up).  Every decision of the side is shown
        here, those with one answer too: they tell one activation from the next."""
        key = self.key(state, side)
        moving = state.step.get("decision") == "movement" and state.active == side
        if len(acts) == 1:
            self._moving = moving
            return acts[0]
        if moving and not (self._moving and key == self._key):
            choice = self.choose(runner, state, side, random.Random(f"plans:{self.seed}:{decision}"))
            self._key, self._plan = key, choice.plan
            self.chosen.append((key, choice))
        self._moving = moving
        if key != self._key:
            return None
        return self.bot(self._plan).choose(runner, state)  # type: ignore[attr-defined]

    def choose(self, runner: Runner, state: GameState, side: str, rng: random.Random) -> Choice:
        """Each plan played from the same samples to the end of the turn: of the plans whose values beat
        the first plan's by ``SPREAD`` standard errors of the paired differences, the best mean; the
        first plan where none does."""
        n = len(self.options)
        values: list[list[float]] = [[] for _ in range(n)]
        same: set[int] = set()  # plans that played the first sample exactly as the first plan did
        for k in range(self.samples):
            sample = self._sample(runner, state, side, rng)
            first: list = []
            for i in range(n):
                if i in same:  # (an option that changes nothing here: Smolensk's Axis holds no place to hold)
                    values[i].append(values[0][-1])
                    continue
                value, log = self._playout(runner, sample.copy(), side, i)
                values[i].append(value)
                if i == 0:
                    first = log
                elif k == 0 and log == first:
                    same.add(i)
        means = [sum(v) / len(v) for v in values]
        better = [i for i in range(1, n) if _beats(values[i], values[0])]
        return Choice(max(better, key=lambda i: (means[i], -i)) if better else 0, means)

    def _playout(self, runner: Runner, s: GameState, side: str, plan: int) -> tuple[float, list]:
        """The plan plays the side to the end of the turn, the greedy bot the others; the heuristic's
        value of where that ends, and the log of the play."""
        turn = s.turn
        mine = self.bot(plan, observe=False)
        for _ in range(HORIZON):
            if s.result is not None or s.turn != turn:
                break
            bot = mine if runner.to_move(s) == side else self._other
            try:
                s = runner.apply(s, bot.choose(runner, s))  # type: ignore[attr-defined]
            except (IllegalActionError, SequenceError, E.ExprError, NotImplementedError, StopIteration, ValueError):
                break  # (a bot's answer the rules refuse: scored where it stands, as the search's playouts are)
        return self._score(runner, s, side), s.log


def _beats(values: list[float], first: list[float]) -> bool:
    """Whether a plan's values beat the first plan's on the same samples: their paired differences'
    mean is above ``SPREAD`` standard errors of it (and above 0)."""
    diffs = [a - b for a, b in zip(values, first)]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
    return mean > max(0.0, SPREAD * math.sqrt(var / len(diffs)))
