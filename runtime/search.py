"""The ``search`` bot: Monte Carlo tree search over ``legal_actions``/``apply``.

How it decides (one search per decision, nothing kept between decisions):

- **The side's view.**  The search starts from ``observe(runner, state,
  side)``, the state as the deciding side sees it (runtime/observe.py), and
  every iteration re-seeds the generator (``determinise(view, rng)``): the
  future of the dice and chit draws is unknown.  Where the view hides
  something (the other side's chits in hand or in the cup, face-down
  markers' values), the search is determinised (PIMC, as in Long et al.
  2010): ``samples`` states are drawn that agree with the view, the
  iteration budget is shared among trees rooted at each, and the answers'
  visits are added up; so the decision depends on the view alone.  A view
  that hides nothing is searched as one tree, as before.
- **Chance.**  The search never reads the real generator: a node's action
  is applied with the iteration's own generator.  A transition that draws
  nothing from it is deterministic and its child state is kept; one that
  rolls dice or draws a chit is a chance node, whose children are its
  outcomes (told apart by the rolls and draws it logged), each sampled as
  often as it comes up, as OpenSpiel's ``mcts.py`` samples chance outcomes.
- **Where the budget goes.**  In a game whose attacks are declared (not
  made by moving in), a movement decision (every answer a move on the map,
  or done) and a set-up placement are the greedy bot's without a search:
  those are most of a Smolensk game's decisions, the greedy answer stood in
  nearly all of them, and their searches took most of the thinking.  The
  attacks, advances, retreats, transfers, placements of arrivals and picks
  are searched (``moves=True`` searches the movement decisions and the
  set-up too).
- **Large action lists.**  A Smolensk movement decision offers thousands of
  moves.  Each node ranks its legal actions with a cheap prior (the greedy
  bot's own choice first, with ``trust`` of the prior whatever the others
  score; then moves by their progress toward the side's objectives and
  staying in supply, attacks by their odds), keeps the best ``width`` of
  them (at most ``per_unit`` destinations for any one unit, and always
  "done" and the greedy bot's choice: an attack set-up move gains few hexes
  and used to fall past the width, so the search never weighed the answer
  it improves on), and selects among them with PUCT (AlphaZero's prior-
  weighted UCB), so a few iterations look at sensible moves.
- **Evaluation.**  A new node is scored after a greedy playout: the greedy
  bot plays on for both sides, deciding from the sampled state as it stands
  (every secret in it was drawn from the deciding side's view, so there is
  no other side's secret to keep from it), until the activation (a chit drawn from the
  cup) or player turn in which the answer was given is over (``replies``:
  how many such ends to play through; at most ``horizon`` decisions), the
  same end for every answer (one that ends a segment is not scored after
  the next chit's activation as well), with the iteration's generator,
  because a move's worth often shows only after the combat it prepares (in
  Barbarossa an attack is a move into an enemy hex, a battle only once every
  attacker is in).  Where the playout stops, a heuristic read from the
  game's declarations scores it: the VP the victory rules' ``at end``
  awards would give if the game ended now, and who their ``win`` rules
  would name; material (the printed factors of the side's units on the
  map against the strongest other side's); the share of the side's units
  in supply against the other side's (a unit cut off weighs on its own
  side and counts for the enemy: Smolensk's Axis wins by encirclement);
  and how close each side's units stand to the places its victory
  expressions name
  (runtime.objectives) that it does not hold yet.  A finished game scores
  its result.
- **Common random numbers.**  The k-th try of every answer at the root is
  played with the same sample of the unknown (dice, draws), so answers are
  compared on the same luck.
- **The answer.**  The most visited answer, but the greedy bot's own answer
  stands unless that one's mean value beats it by more than ``margin``
  (``MARGIN`` where movement is not searched, else 0) and by more than
  ``SPREAD`` standard errors of the difference: the search improves
  on the greedy policy (a rollout policy, in Bertsekas' sense) rather than
  replacing it on the strength of a few noisy playouts.
- **Budget.**  ``iterations`` per decision (``search:200`` as an agent), or
  ``think`` seconds per decision.  With an iteration budget the bot is
  deterministic for a seed (the iterations' generators derive from the bot's
  seed and the decision's number); a time budget is not, since how many
  iterations fit depends on the machine.  A decision with a single answer is
  taken at once.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from . import expr as E
from .actions import Attack, Done, IllegalActionError, Move
from .combat.odds import combat_odds
from .hexes import Hex
from .observe import determinise as fill
from .observe import needs_sample
from .observe import observe as _observe
from .objectives import Objectives, victory_objectives
from .runner import Runner, RunnerAction, SequenceError
from .state import GameState
from .supply import reached


# ------------------------------------------------------------------ the side's view

def observe(runner: Runner, state: GameState, side: str) -> GameState:
    """The state as ``side`` sees it (runtime/observe.py), without its log."""
    return _observe(runner.game, state, side, log=False)


def determinise(view: GameState, rng: random.Random, game=None) -> GameState:
    """One sample of what the deciding side cannot know, consistent with its
    view: the generator's future (dice, chit draws) and, given the ``game``,
    the secrets the view hides (runtime/observe.py)."""
    s = fill(game, view, rng).copy() if game is not None else view.copy()
    s.rng_state = random.Random(rng.getrandbits(64)).getstate()
    return s


# ------------------------------------------------------------------ what the game values

@dataclass
class Values:
    """What the evaluation reads from a game, computed once per runner."""

    sides: tuple[str, ...]
    objectives: dict[str, tuple[Hex, ...]]  # per side: places its victory expressions name
    vp_scale: float  # VP leads are measured in these
    diameter: int  # map size, for distances
    distance: dict[Hex, dict[Hex, int]]  # objective -> hex -> hexes between them
    aims: Objectives  # what each place is worth to each side

    def weight(self, side: str, h: Hex, turn: int) -> float:
        """What the evaluation weighs an objective by: its share of the VP
        holding it is still worth to the side (at least 1)."""
        return max(1.0, self.aims.share_now(side, h, turn))


def game_values(runner: Runner) -> Values:
    g = runner.game
    sides = tuple(g.sides)
    aims = victory_objectives(runner)
    objectives = aims.places
    amounts = [abs(r.amount.value) for r in runner.victory if r.kind == "award" and isinstance(r.amount, E.Num)]
    # a lead is measured against half of all the VP the rules could award per
    # side, so that it does not saturate where cities are worth 10 each
    scale = max(1.0, sum(amounts) / (2 * max(1, len(sides))))
    qs = [h.q for h in g.map.hexes] or [0]
    rs = [h.r for h in g.map.hexes] or [0]
    places = set().union(*objectives.values())
    distance = {o: {h: o.distance(h) for h in g.map.hexes} for o in places}
    return Values(sides, dict(objectives), scale, max(1, max(qs) - min(qs) + max(rs) - min(rs)), distance, aims)


def evaluate(runner: Runner, values: Values, s: GameState) -> dict[str, float]:
    """Each side's prospects in ``s``, in [-1, 1]."""
    g = runner.game
    sides = values.sides
    if s.result is not None:
        vp, winner = s.result.get("vp", {}), s.result.get("winner")
    else:
        vp, winner = runner.standing(s)
    material = {side: 0.0 for side in sides}
    supplied = {side: 0 for side in sides}
    count = {side: 0 for side in sides}
    lines = {side: reached(g, runner.board, s, side) for side in sides} if s.result is None else {}  # (read only)
    for u in s.units.values():
        if u.hex is None or u.side not in material:
            continue
        steps = g.counters[u.id].steps
        material[u.side] += sum(steps[min(u.step, len(steps) - 1)].values())
        count[u.side] += 1
        if s.result is None and u.hex in lines[u.side]:
            supplied[u.side] += 1
    # (a place that matters only as the edge of a box that may not be entered now is no objective)
    closed = values.aims.closed(lambda pool: runner.engine.exit_open(s, pool)) if s.result is None else frozenset()
    out = {}
    for side in sides:
        others = [x for x in sides if x != side]
        lead = vp.get(side, 0) - max((vp.get(x, 0) for x in others), default=0)
        won = 1.0 if winner == side else (0.0 if winner in (None, "draw") else -1.0)
        if s.result is not None:
            out[side] = 0.8 * won + 0.2 * math.tanh(lead / values.vp_scale)
            continue
        # material: the side's printed strength on the map against the
        # strongest other's, in [-1, 1] (a share of the whole would move by
        # half as much, and drown in the VP terms: attacks that destroy
        # units were not worth their risk)
        rival = max((material[x] for x in others), default=0.0)
        share = (material[side] - rival) / ((material[side] + rival) or 1.0)
        # supply: the side's share of units in supply less the other's (the
        # best supplied other's), in [-1, 1]: the enemy units a move cuts off count
        # for it (Smolensk's Axis, search:40, bid 21, seeds 0-23: better VP
        # than greedy's in 13 seeds and worse in 3, where counting only its own
        # units it was better in 8 and worse in 6)
        in_supply = supplied[side] / count[side] if count[side] else 0.0
        if others:
            in_supply -= max(supplied[x] / count[x] if count[x] else 0.0 for x in others)
        out[side] = (0.3 * won + 0.3 * math.tanh(lead / values.vp_scale) + 0.25 * share
                     + 0.05 * in_supply + 0.10 * _closeness(values, s, side, closed))
    return out


def _closeness(values: Values, s: GameState, side: str, closed: frozenset) -> float:
    """0..1: how near the side's units stand to the objectives it does not
    hold (less ``closed``: the edges of boxes shut now), each weighed by its
    share of what holding it is still worth to the side
    (runtime.objectives: share_now): Smolensk's 14 east-edge sources
    are one award of 30 VP between them, not 14 objectives to Smolensk's one."""
    wanted = [h for h in values.objectives.get(side, ()) if s.control.get(h) != side and h not in closed]
    if not wanted:
        return 1.0
    mine = {u.hex for u in s.units.values() if u.side == side and u.hex is not None}
    if not mine:
        return 0.0
    far = values.diameter
    weights = [values.weight(side, h, s.turn) for h in wanted]
    total = sum(weights) or 1.0
    try:  # (every unit on the map stands in a hex of the map: the distances hold it)
        d = sum(w * min(map(values.distance[h].__getitem__, mine)) for h, w in zip(wanted, weights)) / total
    except KeyError:
        d = sum(w * min(values.distance[h].get(m, far) for m in mine) for h, w in zip(wanted, weights)) / total
    return 1.0 - min(1.0, d / far)


# ------------------------------------------------------------------ the tree

@dataclass
class Edge:
    action: RunnerAction
    prior: float
    n: int = 0
    w: dict[str, float] = field(default_factory=dict)
    w2: dict[str, float] = field(default_factory=dict)  # at the root: the values' squares, summed (``_final``)
    chance: bool | None = None  # None: not tried yet
    kids: dict = field(default_factory=dict)  # outcome key (None: deterministic) -> Node
    dead: bool = False  # applying it failed


class Node:
    __slots__ = ("state", "side", "value", "edges", "n", "pick")

    def __init__(self, state: GameState, side: str | None, value: dict[str, float]):
        self.state, self.side, self.value = state, side, value
        self.edges: list[Edge] | None = None  # ranked when first visited
        self.n = 0
        self.pick = None  # at the root: the greedy bot's answer


def _outcome(before: int, s: GameState):
    """What a chance transition drew: the rolls and chit draws it logged."""
    return tuple((e.get("roll"), e.get("result"), e.get("for"), _hashable(e.get("draw")), e.get("table"),
                  e.get("total")) for e in s.log[before:] if "roll" in e or "draw" in e or "table" in e)


def _hashable(x):
    """A draw of several counters is logged as a list, a draw of markers as a list of the markers'
    dicts (runtime/effects.py ``_pick``: AVD's victory chits)."""
    if isinstance(x, list):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in x.items()))
    return x


# How much better (in the evaluation's [-1, 1]) another answer's mean value must be for the search to
# give it instead of the greedy bot's (``_final``), in a game whose movement it does not search
# (attacks declared after movement: Smolensk).  There a playout ends with the activation, before
# what the searched answers (attacks, advances, retreats) lead to shows: declining an advance or
# attacking with another group moved the mean by 0.0001 to 0.003 (about 1 VP of a Smolensk lead is
# 0.004), and following such differences the searching Axis scored 11.3 VP a game where greedy
# scored 22.9 (16 games of the short game made even by 16.1's bid of 21); with this margin, 21.8.
# Where moving in attacks (Barbarossa) a battle is fought within the playout and small differences
# are real: there any better mean counts (with this margin the searching Soviets won 14 of 30 games
# where they won 25 without it).
MARGIN = 0.005
# ``_final``: another answer than greedy's must beat it by this many standard errors of the difference
# of their mean values as well.  Barbarossa, search:50 against the greedy bot that holds its own ground
# only where the enemy is near, seeds 0-9: as the Axis 4 wins of 10 without it (greedy 10), 9 with it;
# as the Soviets 9 of 10 either way (greedy none)
SPREAD = 2.0


def think_error(think: float | None) -> str:
    """Why ``--think`` cannot be a budget ("" where it can, or is not given)."""
    if think is not None and not (0 < think < math.inf):
        return f"--think {think:g}: the time to think is a number of seconds above 0, e.g. --think 2"
    return ""


MAX_ITERATIONS = 10_000  # a decision's budget (search:160 plays a Smolensk game in some 500 s of CPU)


class SearchBot:
    """Monte Carlo tree search; see the module's docstring."""

    name = "search"
    budgeted = True  # takes search:ITERATIONS and --think SECONDS
    # the greedy bot's, for its answer and its playouts (``make_bot``: search:50:hold=1); and ``moves``
    options = ("hold", "attack", "risk", "moves")

    @staticmethod
    def reads_winner(game) -> bool:
        """Whether its choices may read whom the win rules name (``runtime.bots.blind_to_winner``):
        always (``evaluate`` scores who would win)."""
        return True

    def __init__(self, seed: int = 0, budget: str = "", think: float | None = None, *,
                 width: int = 12, per_unit: int = 2, c_puct: float = 1.5, trust: float = 0.1, samples: int = 4,
                 horizon: int = 150, margin: float | None = None, replies: int = 1, moves: bool | None = None,
                 hold: float | None = None, attack: float | None = None, risk: float | None = None):
        from .bots import GreedyBot  # the prior's first guess (bots imports this module)
        if budget and not budget.isdigit():
            raise ValueError(f"search:{budget}: the budget is a number of iterations, e.g. search:200")
        if budget and int(budget) < 1:  # (no iterations and no time: a search that never ended)
            raise ValueError(f"search:{budget}: the budget is at least 1 iteration a decision, e.g. search:200")
        if budget and int(budget) > MAX_ITERATIONS:  # (a game of it would outlast anyone waiting for it)
            raise ValueError(f"search:{budget[:12]}: the budget is at most {MAX_ITERATIONS:,} iterations a "
                             "decision; --think SECONDS bounds it by time")
        why = think_error(think)
        if why:
            raise ValueError(why)
        self.seed = seed
        self.iterations = int(budget) if budget else (0 if think else 100)
        self.think = think
        self.width, self.per_unit, self.c_puct, self.trust = width, per_unit, c_puct, trust
        self.samples = max(1, samples)  # determinisations of a view that hides something
        # ``hold``, ``attack``, ``risk``: the greedy bot's (``GreedyBot.HOLD``, ``ATTACK``, ``RISK`` when not
        # given), for its answer and its playouts
        held = {k: v for k, v in (("hold", hold), ("attack", attack), ("risk", risk)) if v is not None}
        self.greedy = GreedyBot(seed, **held)
        # plays on from a new node (its own instance: nothing shared), for both sides, in the sample of the
        # unknown the iteration plays in: it decides from that state as it stands, with no view of its own
        # (every secret in a sample was drawn from the searching side's view: none is the other side's)
        self.rollout_bot = GreedyBot(seed, observe=False, **held)
        self.horizon, self.replies = horizon, replies
        self.margin = margin  # (None: MARGIN where movement is not searched, else 0)
        self.moves = moves  # search movement decisions too (None: only where moving in attacks)
        self.decisions = 0
        # decisions searched, and those whose answer was not the greedy bot's (``_answer``): how far the search
        # departs from the bot it improves on (bench/bench_search.py prints both)
        self.searched, self.departed = 0, 0
        self._values: tuple[Runner, Values] | None = None
        self._dist: dict[tuple[Hex, ...], dict[Hex, int]] = {}

    # -------------------------------------------------------------- the agent interface
    def choose(self, runner: Runner, state: GameState) -> RunnerAction:
        acts = runner.legal_actions(state)
        self.decisions += 1
        if len(acts) == 1:
            return acts[0]
        side = runner.to_move(state)
        if self._routine(runner, state, acts):
            return self.greedy.choose(runner, observe(runner, state, side))
        if self._values is None or self._values[0] is not runner:
            self._values = (runner, game_values(runner))
            self._dist = {}
        values = self._values[1]
        view = observe(runner, state, side)
        rng = random.Random(f"search:{self.seed}:{self.decisions}")
        if not needs_sample(view):
            root = self._search(runner, values, view, side, acts, rng, self.iterations, self.think)
            return self._answer(root, side, runner)
        # the view hides something: one tree per sample of it, the answers' visits added up
        # (the answers' visits and values added up over the trees, and the
        # greedy bot's answer standing as in one tree: ``_final``)
        k = self.samples
        merged: dict = {}
        pick = None
        for _ in range(k):
            sample = fill(runner.game, view, rng)
            root = self._search(runner, values, sample, side, acts, rng,
                                max(1, self.iterations // k) if self.iterations else 0,
                                self.think / k if self.think else None)
            pick = pick if pick is not None else root.pick
            for e in root.edges:
                m = merged.setdefault(e.action, Edge(e.action, 0.0))
                m.prior = max(m.prior, e.prior)
                m.n += e.n
                m.dead = m.dead or e.dead
                for s, v in e.w.items():
                    m.w[s] = m.w.get(s, 0.0) + v
                for s, v in e.w2.items():
                    m.w2[s] = m.w2.get(s, 0.0) + v
        order = {a: i for i, a in enumerate(acts)}
        whole = Node(view, side, {})
        whole.edges = sorted(merged.values(), key=lambda e: order.get(e.action, len(order)))
        whole.pick = pick
        return self._answer(whole, side, runner)

    def _answer(self, root: "Node", side: str, runner: Runner) -> RunnerAction:
        """The searched decision's answer (``_final``), counted in ``searched`` and ``departed``."""
        answer = self._final(root, side, self._margin(runner)).action
        self.searched += 1
        self.departed += root.pick is not None and answer != root.pick
        return answer

    def _routine(self, runner: Runner, state: GameState, acts) -> bool:
        """A movement decision (every answer a move on the map, or done) or a
        set-up placement (a scenario's ``deploy``) in a game whose attacks
        are declared, not made by moving in: the greedy bot's answer is
        taken without a search.  A movement decision offers thousands of
        moves whose worth a few playouts cannot tell apart (the greedy answer
        stood in nearly all of them), and searching them took most of a
        Smolensk game's thinking.  A set-up placement's playouts end with the
        set-up, before any unit moves or fights, where the evaluation reads
        only where units stand: in two Smolensk games (search:10 as the Axis,
        seeds 0 and 1) the search gave greedy's answer in all 92 of them, and
        searching them cost 7% of such a game (seed 1: 29.8 s of CPU, 27.7 s
        without).  The budget goes to the attacks, advances, retreats and
        picks, where the answers differ in outcome.  Where attacks are made
        by moving in (Barbarossa), a move can be an attack and is searched,
        and so is the set-up before it."""
        if self._searches_moves(runner):
            return False
        if state.step.get("decision") == "deploy":
            return True
        return all(isinstance(a, Done) or (isinstance(a, Move) and a.to not in runner.game.pools) for a in acts)

    def _search(self, runner: Runner, values: Values, view: GameState, side: str, acts, rng: random.Random,
                iterations: int, think: float | None) -> Node:
        """One tree from ``view``; its root's answers carry their visits."""
        root = Node(view, side, evaluate(runner, values, view))
        self._lo, self._hi = min(root.value.values()), max(root.value.values())
        self._samples: list = []
        pick = self._greedy_pick(runner, view)
        root.edges = self._rank(runner, values, view, side, acts, pick)
        root.pick = pick
        if len(root.edges) == 1:
            return root
        deadline = time.perf_counter() + think if think else None
        i = 0
        while True:
            if iterations and i >= iterations:
                break
            if deadline is not None and i > 0 and time.perf_counter() >= deadline:
                break
            self._iterate(runner, values, root, rng)
            i += 1
            if iterations and not deadline and self._settled(root, iterations - i):
                break
        return root

    def _margin(self, runner: Runner) -> float:
        """``margin``, or where it is not given: ``MARGIN`` in a game whose
        movement decisions are not searched (``_routine``), 0 in one whose are."""
        if self.margin is not None:
            return self.margin
        return 0.0 if self._searches_moves(runner) else MARGIN

    def _searches_moves(self, runner: Runner) -> bool:
        """Whether movement decisions are searched: ``moves``, or where it is
        not given, in a game whose attacks are made by moving in."""
        return self.moves if self.moves is not None else runner.game.combat.attack == "move-in"

    def _final(self, root: "Node", side: str, margin: float = 0.0) -> "Edge":
        """The most visited answer, but the greedy bot's own answer stands
        unless the chosen one was tried at least twice and its mean value
        beats greedy's by more than ``margin`` and by more than ``SPREAD``
        standard errors of the difference of the two means (dice make a few
        playouts noisy: the search should only improve on greedy)."""
        edges = root.edges
        best = edges[max(range(len(edges)), key=lambda k: (edges[k].n, edges[k].prior, -k))]
        base = next((e for e in edges if e.action == root.pick and not e.dead), None)
        if base is None or base is best:
            return best
        if base.n == 0 or best.n < 2:  # nothing against greedy's; one playout is one roll of the dice
            return base
        mean = lambda e: e.w.get(side, 0.0) / e.n  # noqa: E731
        var = lambda e: max(0.0, e.w2.get(side, 0.0) / e.n - mean(e) ** 2)  # noqa: E731
        se = math.sqrt(var(best) / best.n + var(base) / base.n)  # of the difference of the two means
        return best if mean(best) > mean(base) + max(margin, SPREAD * se) else base

    @staticmethod
    def _settled(root: Node, left: int) -> bool:
        """The most visited answer cannot be overtaken in the iterations left."""
        ns = sorted((e.n for e in root.edges), reverse=True)
        return len(ns) > 1 and ns[0] - ns[1] > left

    # -------------------------------------------------------------- one iteration
    def _iterate(self, runner: Runner, values: Values, root: Node, rng: random.Random) -> None:
        gen = None  # this iteration's generator: see below
        node, path = root, []
        while True:
            if node.state.result is not None:
                value = node.value
                break
            if node.edges is None:
                s = node.state  # the greedy bot's answer is the prior's first guess here too
                node.edges = self._rank(runner, values, s, node.side, runner.legal_actions(s),
                                        self._greedy_pick(runner, s))
            edge = self._select(node)
            if edge is None:  # every answer failed: score the node as it stands
                value = node.value
                break
            if gen is None:
                # common random numbers: the k-th try of every root answer
                # meets the same sample of the unknown (dice, draws), so
                # answers are compared on the same luck
                k = edge.n
                while len(self._samples) <= k:
                    self._samples.append(determinise(root.state, rng).rng_state)
                gen = self._samples[k]
            path.append((node, edge))
            if edge.chance is False:
                child = edge.kids[None]
            else:
                s = node.state
                keep = s.rng_state
                s.rng_state = gen
                before = len(s.log)
                try:
                    after = runner.apply(s, edge.action)
                except (IllegalActionError, SequenceError, E.ExprError):
                    edge.dead = True
                    path.pop()
                    continue
                finally:
                    s.rng_state = keep
                edge.chance = after.rng_state != gen
                gen = after.rng_state
                key = _outcome(before, after) if edge.chance else None
                child = edge.kids.get(key)
                if child is None:
                    child = Node(after, runner.to_move(after), self._leaf_value(runner, values, after, s))
                    edge.kids[key] = child
                    value = child.value
                    child.n += 1
                    break
            node = child
        for v in value.values():
            self._lo, self._hi = min(self._lo, v), max(self._hi, v)
        for n, e in path:
            n.n += 1
            e.n += 1
            for side, v in value.items():
                e.w[side] = e.w.get(side, 0.0) + v
        if path:  # the spread of the root's answers' values, which ``_final`` weighs
            e = path[0][1]
            for side, v in value.items():
                e.w2[side] = e.w2.get(side, 0.0) + v * v
        if not path:
            root.n += 1

    def _leaf_value(self, runner: Runner, values: Values, s: GameState, before: GameState) -> dict[str, float]:
        """A new node's value: the greedy bot plays on for both sides, with
        the iteration's generator, to the end of the activation (a chit
        drawn from the cup) or player turn in which the answer was given
        (``before``: the state it was given in; ``replies``: how many such
        ends to play through; at most ``horizon`` decisions), and the
        heuristic scores where that ends.  A move's worth often shows only
        after the combat it prepares (an attack by moving in is a battle
        only once every attacker is in).  Every answer is played to the
        same end: an answer that ends a segment is not scored after more
        play (the next chit's activation, a luck of the draw) than one
        that does not."""
        if self.horizon <= 0 or s.result is not None:
            return evaluate(runner, values, s)
        key, changes = (before.active, len(before.cup)), 0
        for _ in range(self.horizon):
            now = (s.active, len(s.cup))
            if now != key:
                key, changes = now, changes + 1
            if s.result is not None or changes == self.replies:
                break
            try:
                s = runner.apply(s, self.rollout_bot.choose(runner, s))
            except (IllegalActionError, SequenceError, E.ExprError, NotImplementedError, StopIteration, ValueError):
                break
        return evaluate(runner, values, s)

    def _select(self, node: Node) -> Edge | None:
        live = [e for e in node.edges if not e.dead]
        if not live:
            return None
        side = node.side
        sqrt_n = math.sqrt(node.n + 1)
        first = node.value.get(side, 0.0)  # an untried answer is worth the position as it stands
        # values scaled to the range seen in this search (as MuZero does): the
        # evaluation's differences between answers are small, the prior's are not
        lo, span = self._lo, max(self._hi - self._lo, 1e-6)
        best, best_score = None, -math.inf
        for e in live:
            q = ((e.w.get(side, 0.0) / e.n if e.n else first) - lo) / span
            score = q + self.c_puct * e.prior * sqrt_n / (1 + e.n)
            if score > best_score:
                best, best_score = e, score
        return best

    # -------------------------------------------------------------- the prior
    def _greedy_pick(self, runner: Runner, s: GameState) -> RunnerAction | None:
        try:
            return self.greedy.choose(runner, s)
        except (IllegalActionError, SequenceError, E.ExprError, StopIteration, ValueError):
            return None

    def _rank(self, runner: Runner, values: Values, s: GameState, side: str | None,
              acts: list[RunnerAction], pick: RunnerAction | None) -> list[Edge]:
        """The answers worth searching, each with a prior probability;
        ``pick``: a bot's choice, which the prior trusts."""
        if pick is not None and pick not in acts:
            # the greedy bot's answer need not be listed: it leaves out of an
            # attack the units its odds column does not need (and HQs),
            # which the legal actions offer only as the whole group; it is
            # still the answer the search improves on
            acts = [*acts, pick]
        if len(acts) <= 1:
            return [Edge(a, 1.0) for a in acts]
        scores: dict[int, float] = {}
        moves = [(i, a) for i, a in enumerate(acts) if isinstance(a, Move) and a.to not in runner.game.pools]
        if moves:
            self._score_moves(runner, values, s, side, moves, scores)
        attacks = [(i, a) for i, a in enumerate(acts) if isinstance(a, Attack)]
        if attacks:
            self._score_attacks(runner, s, attacks, scores)
        ranked = sorted(range(len(acts)), key=lambda i: (acts[i] != pick, -scores.get(i, 0.0), i))
        keep, per = [], {}
        for i in ranked:
            a = acts[i]
            if isinstance(a, Move):
                if per.get(a.unit, 0) >= self.per_unit:
                    continue
                per[a.unit] = per.get(a.unit, 0) + 1
            keep.append(i)
            if len(keep) >= self.width:
                break
        for i, a in enumerate(acts):
            # ending the segment is always an answer worth weighing, and so is
            # the greedy bot's (an attack set-up it chose can score below the
            # width: the search must never lose the answer it improves on)
            if (isinstance(a, Done) or a == pick) and i not in keep:
                keep.append(i)
        # the greedy bot's answer takes ``trust`` of the prior whatever the
        # others score (their scores grow with the hexes a move gains, which
        # would drown it); the others share the rest by their scores
        others = [i for i in keep if acts[i] != pick]
        top = max((scores.get(i, 0.0) for i in others), default=0.0)
        raw = {i: math.exp(scores.get(i, 0.0) - top) for i in others}
        total = sum(raw.values())
        share = self.trust if len(others) < len(keep) else 0.0
        rest = (1.0 - share) if others else 0.0
        return [Edge(acts[i], share if acts[i] == pick else rest * raw[i] / total) for i in keep]

    def _distances(self, runner: Runner, targets: tuple[Hex, ...]) -> dict[Hex, int]:
        d = self._dist.get(targets)
        if d is None:
            d = {h: min((h.distance(t) for t in targets), default=0) for h in runner.game.map.hexes}
            self._dist[targets] = d
        return d

    def _score_moves(self, runner: Runner, values: Values, s: GameState, side: str | None, moves, scores) -> None:
        targets = tuple(h for h in values.objectives.get(side, ()) if s.control.get(h) != side) or \
            values.objectives.get(side, ())
        dist = self._distances(runner, targets)
        lines = reached(runner.game, runner.board, s, side) if side else {}  # (read only: not copied)
        board = runner.board
        move_in = runner.game.combat.attack == "move-in"
        for i, m in moves:
            h = board.parse(m.to)
            here = s.units[m.unit].hex
            gain = dist.get(here, 0) - dist.get(h, 0) if here is not None else 0
            score = 0.5 * gain
            if move_in and any(u.side != side for u in s.units_at(h)):
                score += 1.0
            elif lines and h not in lines:
                score -= 1.0
            scores[i] = score

    def _score_attacks(self, runner: Runner, s: GameState, attacks, scores) -> None:
        if runner.game.combat.procedure != "odds":
            return
        for i, a in attacks:
            rep = combat_odds(runner.game, runner.board, s, list(a.attackers), runner.board.parse(a.target),
                              env=runner.env)
            if not rep.legal:
                scores[i] = -2.0
                continue
            good = sum(p for code, p in rep.probabilities.items()
                       if (r := runner.game.results[rep.crt.results].get(code)) and
                       (r.defender_loss or r.defender_retreat))
            scores[i] = 2.0 * good - 1.0
