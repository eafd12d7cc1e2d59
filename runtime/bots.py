"""Bots that play through the same legal_actions/apply as a person.

``random``: uniform among the legal actions (attacks included).
``greedy``: one stated rule per decision (``GreedyBot.DECISIONS``, and
``_pending`` for those owed after a combat): the best-odds attacks that are
at least even to hurt the defender, on goal hexes first and with no more
units than the column needs (without HQs; where attacks are moves
into enemy hexes, those whose firepower beats the defence), moves toward
contested objectives (VP hexes and cities the enemy holds, or its own within
reach of the enemy: those it has held since the start only once the enemy is
close, ``GreedyBot.HOLD``) staying in supply, HQs following their units, chits
(and, for a chit of ``hq any``, the HQ) that activate the most units, reinforcements nearest the objectives,
retreats toward its own supply, advances that gain ground, the weakest of
the reinforcements that cannot enter sent back (the strongest stays), no transfers
off the map, no gambles; units whose loss gives the enemy VP (A Victory
Denied's German motorized units: runtime.objectives ``costly``) take no
last step while another unit can, and neither move nor advance where the
enemy's next attack would take them with a chance of ``RISK`` or more
(runtime.menace: the enemy's reach, the odds, the steps and the retreats
the result takes; and move out of such a hex); a place whose
entering scores for the enemy (AVD's star hexes) that it holds near the
enemy is filled up to the stacking limit by units whose loss costs no VP;
an effect's choices (AVD's Minsk release) by the VP lead they leave at the
game's end as things stand, on average over the dice.  A decision it
has no rule for is an error.
The greedy bot's movement is in runtime/greedy_moves.py (``GreedyMoves``).
Both are deterministic for a given seed.  Both decide from what their side
sees (runtime/observe.py): ``random`` reads only the side's legal actions,
``greedy`` the side's view with its secrets filled by one sample drawn from
the view alone (``seen``), so that no decision depends on a hidden value.
"""
from __future__ import annotations

import copy
import math
import random
from collections import Counter
from typing import Callable

from .action_lists import Placements, UnitPlacements
from .actions import Advance, Attack, Displace, Done, Fire, Hold, LoseStep, Use
from .bot_options import ATTACK, HOLD, OPTIONS, RISK, SWITCHES
from .combat.odds import combat_odds, modified_by
from .decisions import Activate, Attach, Designate, Pick, Take, Withdraw
from .greedy_moves import GreedyMoves, Nearest
from .hexes import any_within, count_within, counts_within, nearest
from .observe import determinise, hides_anything, observe
from .objectives import Objectives, victory_objectives
from .runner import Choose, Place, Play, Runner, RunnerAction, SequenceError
from .state import GameState


# the dice of a look-ahead that must not know the game's: the generator seeded with 0, worked out once
# (seeding one costs more than a greedy decision's copy of the state; the state is a tuple, never changed)
_UNKNOWN_DICE = random.Random(0).getstate()


def seen(runner: Runner, state: GameState, side: str | None) -> GameState:
    """The state a bot decides from: ``side``'s view (runtime/observe.py),
    its secrets filled with one sample drawn from the view alone and the dice
    re-seeded, so that the decision never depends on what the side cannot
    see.  The state itself when the game hides nothing (a look-ahead there
    still rolls the game's own dice, as it always has)."""
    view = observe(runner.game, state, side, log=False)
    if view is state:
        return state
    sample = determinise(runner.game, view, random.Random(0))
    if sample is view:
        sample = copy.copy(view)  # shallow, as the view
    sample.rng_state = _UNKNOWN_DICE  # a look-ahead does not know the dice either
    return sample


class RandomBot:
    """Uniform among the legal actions: the side's own options, which it
    always knows; it reads nothing else of the state."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, runner: Runner, state: GameState) -> RunnerAction:
        acts = runner.legal_actions(state)
        return acts[self.rng.randrange(len(acts))]

    @staticmethod
    def reads_winner(game) -> bool:
        """Whether its choices may read whom the win rules name (``blind_to_winner``): never."""
        return False


def _first_places(acts: list) -> dict:
    """Each answer's first place in ``acts`` (what ``acts.index`` says, without its search)."""
    out: dict = {}
    for i, a in enumerate(acts):
        out.setdefault(a, i)
    return out


class GreedyBot(GreedyMoves):
    """Every decision the runner asks for has a rule here (``DECISIONS``), and
    so has every decision owed after a combat (``_pending``); a decision the
    bot does not know is an error, never an arbitrary first action."""

    name = "greedy"
    options = ("hold", "attack", "risk")  # what an agent name may set (``make_bot``: greedy:hold=1)

    # the defaults of ``hold``, ``attack`` and ``risk`` (runtime.bot_options says what each is)
    HOLD, ATTACK, RISK = HOLD, ATTACK, RISK

    @staticmethod
    def reads_winner(game) -> bool:
        """Whether its choices may read whom the win rules name (``blind_to_winner``):
        only where a move off the map may end the game (``_weigh_moves`` takes
        a move that wins at once).  Elsewhere it weighs VP (``Runner.standing``'s
        first half), never who they would make the winner."""
        return bool(game.movement.exits)

    def __init__(self, seed: int = 0, observe: bool = True, hold: float = HOLD, attack: float = ATTACK,
                 risk: float = RISK):
        self.rng = random.Random(seed)
        # False: decide from the state given, all of it (a search's playout in one sample of what its
        # side cannot see: everything in the sample is the sample's, nothing in it is another's secret)
        self.observe = observe
        self.hold = hold
        self.attack = attack
        self.risk = risk
        # (what it was worked out for, runtime.menace.Menace, the state last asked, its stamp): _endangered
        self._menace: tuple | None = None
        self._aims: tuple[Runner, Objectives] | None = None
        self._entries: tuple[Runner, dict] | None = None
        self._enemy_near: Nearest | None = None  # see _near_enemy
        self._fast_units: tuple[tuple, frozenset[str]] | None = None  # see _fast
        self._rails: tuple[tuple, frozenset] | None = None  # see _rail_net
        self._known: dict[tuple, dict] = {}  # places -> hex -> hexes to the nearest of them (``_nearest_to``)
        self._dests: tuple[object, dict] = (None, {})  # the board, and its listed moves built (``listed_moves``)
        self._odds: tuple[object, dict | None] = (None, None)  # the runner, and the attacks weighed (``_attack_odds``)
        self._far: dict[int, tuple] = {}  # a list of destinations' id -> (it, the unit's hex, the farthest: ``_farthest``)

    # ---------------------------------------------------------- what matters
    def _objectives(self, runner: Runner) -> Objectives:
        if self._aims is None or self._aims[0] is not runner:
            self._aims = (runner, victory_objectives(runner))
        return self._aims[1]

    def objectives(self, runner: Runner, side: str) -> list:
        """Hexes worth taking: the places the side's victory rules name
        (runtime.objectives; VP hexes and cities when they name none)."""
        return list(self._objectives(runner).places.get(side, ()))

    def goals(self, runner: Runner, state: GameState, side: str, reach: int = 6) -> list:
        """The objectives that matter now: the side's own that it does not
        hold (to take), and the places the enemy plays for that the enemy
        does not hold (the side's, or nobody's yet: A Victory Denied's
        Moscow) with an enemy unit near (to hold), and, however far the
        enemy is, those whose taking would win it the game at once where no
        unit of the side stands; all of the side's own when none is.  Near
        is within ``reach`` for a place that changed hands in the game (one
        the side took), and within ``hold`` of it (at least 1 hex) for one
        that has not since the game began: a defender that sent its units
        to every place of its own the enemy could reach held none of them
        in strength (``HOLD``).  A place that matters only as the edge of a
        box that may not be entered now (A Victory Denied's Minsk Pocket,
        once cleared) is no goal of either side."""
        enemy = self._enemy_hexes(state, side)
        aims = self._objectives(runner)
        closed = self._closed(runner, state)
        out = [t for t in aims.places.get(side, ()) if state.control.get(t) != side and t not in closed]
        near = max(1, int(reach * self.hold))
        taken = state.control_since
        held = None  # the enemy's hexes as a set, for places within a short distance (``near``)
        for t in aims.enemy(side):
            if state.control.get(t) in (side, None) and t not in out and t not in closed:
                limit = reach if t in taken else near
                if 3 * limit * (limit + 1) + 1 < len(enemy):  # fewer hexes within the limit than enemy hexes
                    held = set(enemy) if held is None else held
                    if any(x in held for x in t.within(limit)):
                        out.append(t)
                elif any_within(t, enemy, limit):
                    out.append(t)
        for t in aims.enemy_sudden(side):
            if t not in out and t not in closed and enemy and \
                    not any(state.units[x].side == side for x in state.occupants.get(t, ())):
                out.append(t)
        return out or [t for t in self.objectives(runner, side) if t not in closed] or self.objectives(runner, side)

    def _closed(self, runner: Runner, state: GameState) -> frozenset:
        """The places that are objectives only as the edge of a box that may
        not be entered now (runtime.objectives: ``Objectives.closed``)."""
        return self._objectives(runner).closed(lambda pool: runner.engine.exit_open(state, pool))

    @staticmethod
    def _enemy_hexes(state: GameState, side: str) -> list:
        """The hexes holding a unit of another side (kept for the state's version: a unit that moves
        bumps it).  The list is shared: never change it."""
        key = ("bot-enemy-hexes", side, state.version)
        hit = state.cache.get(key)
        if hit is None:
            hit = state.cache[key] = [h for h, ids in state.occupants.items() if ids and state.units[ids[0]].side != side]
        return hit

    @staticmethod
    def _nearest(h, hexes, default: int = 99) -> int:
        return nearest(h, hexes, default)

    @staticmethod
    def _strength(runner: Runner, state: GameState, uid: str) -> int:
        c = runner.game.counters[uid]
        return sum(v for v in c.steps[min(state.units[uid].step, len(c.steps) - 1)].values() if isinstance(v, int))

    def _costly(self, runner: Runner, uid: str) -> float:
        """The VP another side gets if the unit is lost (runtime.objectives:
        A Victory Denied's German motorized units), 0 for most units."""
        g = runner.game
        c = g.counters[uid]
        costly = (self._objectives(runner).costly or {}).get(c.side) or {}
        if not costly:
            return 0.0
        names = {c.unit_class, *g.unit_classes[c.unit_class].flags}
        return max((v for k, v in costly.items() if k in names), default=0.0)

    def _worth_the_risk(self, runner: Runner, state: GameState, h, side: str, uid: str) -> bool:
        """Holding ``h`` is worth more VP to ``side`` (runtime.objectives:
        ``worth_now``) than ``uid``'s loss costs it (``_costly``): a city is
        taken and held by a unit the enemy may destroy there."""
        return self._objectives(runner).worth_now(side, h, state.turn) > self._costly(runner, uid)

    def _is_hq(self, runner: Runner, uid: str) -> bool:
        g = runner.game
        return "hq" in g.unit_classes[g.counters[uid].unit_class].flags

    def _chit_value(self, runner: Runner, state: GameState, cid: str) -> int:
        """What a chit is worth now: an HQ chit, the units its HQ would
        activate the way the chit commands (by range, by chain; by a chain
        per tag, each tag's best commander's: AVD 3 d), none when the HQ is
        off the map; any other chit (supply, reinforcements, reserve) one."""
        chit = runner.game.chits[cid]
        if chit.kind in ("hq", "interrupt") and chit.hq:
            hq = state.units.get(chit.hq)
            if hq is None or hq.hex is None:
                return 0
            units = runner.command(state, chit.hq, chit.command, chit.units)
            if "chain" in chit.command:
                for tag in runner.game.activation.chain_groups:
                    units |= max((runner.command_chain(state, chit.hq, c, tag)
                                  for c in runner.chain_candidates(state, chit.hq, tag)), key=len, default=set())
            return len(units)
        return 1

    # ---------------------------------------------------------- the decision
    def choose(self, runner: Runner, state: GameState) -> RunnerAction:
        acts = runner.legal_actions(state)  # the side's own options: it knows them
        side = runner.to_move(state)
        if self.observe:
            state = seen(runner, state, side)  # everything else from what the side sees
        elif hides_anything(runner.game):  # a look-ahead does not know the dice (as ``seen``)
            state = copy.copy(state)  # (shallow, as a view)
            state.rng_state = _UNKNOWN_DICE
        ask = runner.effect_asks(state)
        if ask:
            return self._effect(runner, state, acts, side, ask)
        if state.pending:
            return self._pending(runner, state, acts, side)
        d = state.step.get("decision")
        rule = self.DECISIONS.get(d)
        if rule is None:
            raise NotImplementedError(f"the greedy bot has no rule for the decision '{d}'")
        return rule(self, runner, state, acts, side)

    LOOKS = 6  # die rolls sampled to weigh an effect's choice

    def _effect(self, runner, state, acts, side, ask, depth: int = 2):
        """A choice an effect asks for (runtime.effects): of its options, the
        one after which the side leads by the most VP at the game's end as
        things stand, on average over the dice (``_expected_lead``: A Victory
        Denied's Minsk release, whose escape roll may cost a victory chit;
        the first declared on a tie); of units to take, the strongest
        (restored, or moved away), and where taking is optional (``upto``:
        AVD 5 g, units released from the Minsk Pocket), one more only while
        that does not lower the expected lead (units in play are worth having)."""
        if ask["decision"] == "choose":
            if depth <= 0:
                return acts[0]
            lead = {a: self._expected_lead(runner, state, side, a, depth - 1) for a in acts}
            first = _first_places(acts)
            return max(acts, key=lambda a: (lead[a], -first[a]))
        if ask["decision"] == "fire":  # the target that loses the most, if any loses anything
            fires = [a for a in acts if isinstance(a, Fire)]
            harm = {a: runner.engine.fire.expected_harm(state, a) for a in fires}
            best = max(fires, key=lambda a: (harm[a], a.target, a.kind), default=None)
            return best if best is not None and harm[best] > 0 else Done()
        if ask["decision"] == "relocate":  # an HQ moves where it commands more of the side's units than now
            count: dict = {}  # per HQ: how many units it would command from a hex
            gain = {}
            asked = Counter(a.unit for a in acts if isinstance(a, Displace))  # per HQ: the hexes it may go to
            for a in acts:
                if isinstance(a, Displace):
                    if a.unit not in count:  # (asked of those and of where it stands)
                        count[a.unit] = self._commanded(runner, state, side, a.unit, asked[a.unit] + 1)
                    at = count[a.unit]
                    gain[a] = at(runner.board.parse(a.to)) - at(state.units[a.unit].hex)
            first = _first_places(acts)
            best = max(gain, key=lambda a: (gain[a], -first[a]), default=None)
            return best if best is not None and gain[best] > 0 else Done()
        takes = [a for a in acts if isinstance(a, Take)]
        if not takes:
            return Done()
        if ask.get("to") == "removed" and all(state.units[a.unit].side == side for a in takes):
            # its own units out of the game (AVD turn 7: Hitler Distracted): the weakest go
            return min(takes, key=lambda a: (self._strength(runner, state, a.unit), a.unit))
        best = max(takes, key=lambda a: (self._strength(runner, state, a.unit), a.unit))
        if ask.get("optional"):
            if depth <= 0:
                return Done()
            if self._expected_lead(runner, state, side, best, depth - 1) < \
                    self._expected_lead(runner, state, side, Done(), depth - 1):
                return Done()
        return best

    def _expected_lead(self, runner, state, side, action, depth: int) -> float:
        """The side's VP lead at the game's end as things stand (the ``at
        end`` awards: ``Runner.standing``) once ``action`` and the rest
        of what the effects ask of the side are answered (by ``_effect`` at
        ``depth``), on average over ``LOOKS`` samples of the dice of the last
        answer (where an effect list ends with its roll: AVD 5 h)."""
        before, last = state, action
        after = runner.apply(state, action)
        for _ in range(64):
            ask = runner.effect_asks(after) if after.result is None else None
            if not ask or ask.get("side") not in (side, None) or runner.to_move(after) != side:
                break
            acts = runner.legal_actions(after)
            answer = self._effect(runner, after, acts, side, ask, depth)
            before, last = after, answer
            after = runner.apply(after, answer)
        total = 0.0
        for k in range(self.LOOKS):
            s = before.copy()
            s.rng_state = random.Random(k).getstate()
            end = runner.apply(s, last)
            vp = end.result["vp"] if end.result is not None else runner.standing(end)[0]
            total += vp.get(side, 0) - max((v for o, v in vp.items() if o != side), default=0)
        return total / self.LOOKS

    def _choose_chit(self, runner, state, acts, side):
        """The chit that activates the most units goes into the cup first."""
        chits = [a for a in acts if isinstance(a, Choose)]
        if not chits:
            return Done()
        return max(chits, key=lambda a: (self._chit_value(runner, state, a.chit), a.chit))

    def _pick(self, runner, state, acts, side):
        """A new army chit: the one whose HQ commands the most units now (the first by name on a tie)."""
        picks = [a for a in acts if isinstance(a, Pick)]
        if not picks:
            return Done()
        return max(picks, key=lambda a: (self._chit_value(runner, state, a.chit), [-ord(c) for c in a.chit]))

    def _interrupt(self, runner, state, acts, side):
        """A held chit is played to act before an enemy chit just drawn, or at
        the end of the turn (where it is lost if not played)."""
        plays = [a for a in acts if isinstance(a, Play)]
        if not plays:
            return Done()
        drawn = state.step.get("chit")
        if state.step.get("at-end") or (drawn and runner.game.chits[drawn].side not in (side, "both")):
            return plays[0]
        return Done()

    def _place(self, runner, state, acts, side):
        """Reinforcements go to the hex nearest a contested objective (the
        first waiting unit first: every one is placed in turn; the strongest
        first where only some of them come)."""
        if isinstance(acts, Placements):
            units, hexes = acts.units, acts.hexes
        else:
            places = [a for a in acts if isinstance(a, Place)]
            units = list(dict.fromkeys(a.unit for a in places))
            hexes = []
        if not units:
            return Done()
        unit = units[0]
        if state.step.get("choice"):  # some of them come (GJ63 7.0): the strongest
            unit = min(units, key=lambda u: (-self._strength(runner, state, u), u))
        if not isinstance(acts, Placements):  # each unit its own hexes (GJ63 7.0(1): its entry edge)
            hexes = list(dict.fromkeys(a.at for a in places if a.unit == unit))
        if not hexes:
            return Done()
        goals = self.goals(runner, state, side)
        board = runner.board
        return Place(unit, min(hexes, key=lambda h: (self._nearest(board.parse(h), goals), h)))

    def _rebuild(self, runner, state, acts, side):
        """Rebuilt units come back, the strongest first, nearest a contested objective."""
        places = [a for a in acts if isinstance(a, Place)]
        if not places:
            return Done()
        goals = self.goals(runner, state, side)
        board = runner.board
        return min(places, key=lambda a: (-self._strength(runner, state, a.unit),
                                          self._nearest(board.parse(a.at), goals), a.unit, a.at))

    def _deploy(self, runner, state, acts, side):
        """A set-up in an area by the player (a scenario's ``deploy``): where
        units act by their HQ's command (a formation HQ set up on the map
        with a command range: the chit-pull series), each unit, the
        strongest first, goes to the hex of its area inside its HQ's
        command range nearest the enemy's units (then nearest a goal): the
        front line, where the first activation can attack (Smolensk 15.1's
        surprise attack) and the HQ commands it.  Elsewhere the scenario's
        own set-up positions: 'done' places every unit there."""
        g, board = runner.game, runner.board
        rf = g.activation.range_factor
        if isinstance(acts, UnitPlacements):  # (each unit's hexes read from the list: no answer built but the one)
            groups = [(uid, hexes) for uid, hexes in acts.groups if hexes]
        else:
            by: dict[str, list] = {}
            for a in acts:
                if isinstance(a, Place):
                    by.setdefault(a.unit, []).append(board.parse(a.at))
            groups = list(by.items())

        def reach(uid):
            hq = g.counters[uid].formation
            u = state.units.get(hq)
            if not hq or hq == uid or u is None or u.hex is None:
                return None
            c = g.counters[hq]
            r = c.steps[min(u.step, len(c.steps) - 1)].get(rf, 0)
            return (u.hex, r) if r else None
        ranged = {u: reach(u) for u in dict.fromkeys(u for u, _ in groups)}
        ranged = {k: v for k, v in ranged.items() if v is not None}
        if not ranged:
            return Done()
        unit = min(ranged, key=lambda u: (-self._strength(runner, state, u), u))
        hq_hex, rng = ranged[unit]
        enemy = self._near_enemy(state, side)
        goals = self._nearest_to(self.goals(runner, state, side))
        order, i = {}, 0  # a hex's last place in the list of answers (the last tie-break)
        for _, hexes in groups:
            for h in hexes:
                order[h] = i
                i += 1
        mine = [h for u, hexes in groups if u == unit for h in hexes]
        # a hex inside the HQ's range comes before any outside it: only those are weighed, if there are any
        mine = [h for h in mine if h.distance(hq_hex) <= rng] or mine
        best = min(mine, key=lambda h: (h.distance(hq_hex) > rng, enemy(h), goals(h), order[h]))
        return Place(unit, board.hex_id(best))

    def _nearest_to(self, places, ahead: tuple | None = None) -> Nearest:
        """Hexes to the nearest of ``places`` (each ``ahead`` so many hexes
        nearer: ``_head_starts``), remembered across decisions: the goals
        change only when a place changes hands."""
        key = tuple(places)
        known = self._known.get((key, ahead))
        if known is None:
            if len(self._known) > 64:
                self._known.clear()
            known = self._known[(key, ahead)] = {}
        return Nearest(key, known, ahead)

    HEXES_PER_VP = 0.5  # how much nearer a place counts for every VP it is worth (``_head_starts``)

    def _head_starts(self, runner: Runner, state: GameState, side: str, places) -> tuple | None:
        """How many hexes nearer each of ``places`` counts for ``side``:
        ``HEXES_PER_VP`` for every VP holding it is still worth to the side
        or to the enemy, whichever is more (runtime.objectives: worth_now;
        Smolensk's Smolensk, 10 VP at the end and 15 in bonuses up to turn 6,
        draws the panzers before Gomel's 10); the places the least worth
        count as they stand.  None where every place is worth the same."""
        aims = self._objectives(runner)
        worth = [max((aims.worth_now(s, h, state.turn) for s in aims.worth), default=0.0) for h in places]
        low = min(worth, default=0.0)
        if all(w == low for w in worth):
            return None
        return tuple(self.HEXES_PER_VP * (w - low) for w in worth)

    def _near_enemy(self, state: GameState, side: str) -> "Nearest":
        """Hexes to the nearest enemy unit, kept while the enemy stands where
        it stood (a set-up places one side's units at a time: the other's
        stay put for many decisions)."""
        enemy = tuple(sorted(self._enemy_hexes(state, side)))
        kept = self._enemy_near
        if kept is None or kept.places != enemy:
            kept = self._enemy_near = Nearest(enemy)
        return kept

    def _decide(self, runner, state, acts, side):
        """Optional gambles (Barbarossa 10.0: Siberians early, a roll of 4-6 loses the game) are declined."""
        return Done()

    def _withdraw(self, runner, state, acts, side):
        """A withdrawal takes the units farthest from the enemy (least needed at the front)."""
        enemy = self._enemy_hexes(state, side)
        units = [a for a in acts if isinstance(a, Withdraw)]
        return max(units, key=lambda a: (self._nearest(state.units[a.unit].hex, enemy),
                                         -self._strength(runner, state, a.unit), a.unit))

    def _transfer(self, runner, state, acts, side):
        """11.2 / 16.4: a transferred unit or HQ leaves the map for a turn and
        comes back as a reinforcement; the greedy bot keeps its units in play."""
        return Done()

    def _activate(self, runner, state, acts, side):
        """A RESERVE activation takes the units nearest the enemy first (they can fight now)."""
        units = [a for a in acts if isinstance(a, Activate)]
        if not units:
            return Done()
        enemy = self._enemy_hexes(state, side)
        return min(units, key=lambda a: (self._nearest(state.units[a.unit].hex, enemy), a.unit))

    def _command_hq(self, runner, state, acts, side):
        """A chit that activates any one HQ: the HQ that activates the most units
        (then the one nearest the enemy)."""
        enemy = self._enemy_hexes(state, side)
        how = runner.game.chits[state.step["chit"]].command
        return min(acts, key=lambda a: (-len(runner.command(state, a.unit, how)),
                                        self._nearest(state.units[a.unit].hex, enemy), a.unit))

    def _commander(self, runner, state, acts, side):
        """A chain per tag (AVD 3 d): the commander whose chain activates the most units, then the
        strongest ones, then the one nearest the enemy; never none."""
        units = [a for a in acts if isinstance(a, Activate)]
        if not units:
            return Done()
        st, enemy = state.step, self._enemy_hexes(state, side)

        def rank(a):
            chain = runner.command_chain(state, st["hq"], a.unit, st["group"])
            return (-len(chain), -sum(self._strength(runner, state, u) for u in chain),
                    self._nearest(state.units[a.unit].hex, enemy), a.unit)
        return min(units, key=rank)

    def _combat(self, runner, state, acts, side):
        if runner.game.combat.procedure == "firepower":  # every battle is fought; the order does not matter
            return acts[0]
        if runner.engine.dicepool is not None:  # the attack most likely to win, if at least even
            chances = [(runner.engine.dicepool.win_chance(state, list(a.attackers), runner.board.parse(a.target)),
                        len(a.attackers), a) for a in acts if isinstance(a, Attack)]
            best = max(chances, key=lambda x: (x[0], x[1]), default=None)
            return best[2] if best and best[0] >= self.attack else next(a for a in acts if isinstance(a, Done))
        return self._attack(runner, state, acts)

    def _movement(self, runner, state, acts, side):
        return self._move(runner, state, acts, side)

    # ---------------------------------------------------------- after combat
    def _pending(self, runner: Runner, state: GameState, acts, side: str) -> RunnerAction:
        p = state.pending[0]
        kind = p["kind"]
        if kind == "advance":
            return self._advance(runner, state, acts, side)
        if kind in ("retreat", "follow"):
            return self._retreat(runner, state, acts, side)
        if kind == "displace":
            return self._displace(runner, state, acts, side)
        if kind == "send-back":
            return self._send_back(runner, state, acts, side)
        if kind == "hold":
            return self._hold(runner, state, acts, side, p)
        if kind == "battle" and p.get("stage") == "retreat":
            return self._battle_retreat(runner, state, acts, side)
        if kind == "battle" and p.get("stage") == "options":
            return self._battle_options(runner, state, acts, side, p)
        if kind == "dice-pool":  # the battle's own rules of thumb, among the actions legal in the real state
            return runner.engine.dicepool.default(state, p, acts)
        if kind == "loss":
            return self._lose(runner, state, acts, side)
        # step losses (the cheapest step), firepower hits and battle options: the engine's defaults
        return runner.engine.default_action(state)

    def _lose(self, runner, state, acts, side):
        """A step loss: not the last step of a unit whose loss gives the
        enemy VP (runtime.objectives: costly) while another unit can take
        it; then, as the engine's default, the step that costs the least
        strength."""
        loses = [a for a in acts if isinstance(a, LoseStep)]
        if not loses or not any(self._costly(runner, a.unit) for a in loses):
            return runner.engine.default_action(state)

        def key(a):
            u, steps = state.units[a.unit], runner.game.counters[a.unit].steps
            now = sum(v for v in steps[min(u.step, len(steps) - 1)].values() if isinstance(v, int))
            last = u.step + 1 >= len(steps)
            after = 0 if last else sum(v for v in steps[u.step + 1].values() if isinstance(v, int))
            return (self._costly(runner, a.unit) if last else 0.0, now - after, a.unit)
        return min(loses, key=key)

    def _retreat(self, runner, state, acts, side):
        """Among the retreats the rules allow: for a unit whose loss gives
        the enemy VP, one that ends where the enemy's next attack would
        not likely take it (``_endangered``); then ending nearest the
        side's own supply, then away from enemy units."""
        from .retreat import distance_to_supply
        dist = distance_to_supply(runner.game, runner.board, side)
        enemy = self._enemy_hexes(state, side)
        board = runner.board

        def key(a):
            if not a.path:
                return (1, 0, 0, 0, "")
            end = board.parse(a.path[-1])
            risky = self._costly(runner, a.unit) and self._endangered(runner, state, end, side, a.unit)
            return (0, risky, dist.get(end, 999), -self._nearest(end, enemy), str(a))
        return min(acts, key=key)

    def _displace(self, runner, state, acts, side):
        """Where a displaced unit goes (AVD 移动 4 f: an overrun HQ): the hex
        with the most of the side's other units within its command range
        (an HQ there commands them), then the nearest to where it was."""
        uid = state.pending[0]["unit"]
        first = _first_places(acts)
        at = self._commanded(runner, state, side, uid)
        return max(acts, key=lambda a: (at(runner.board.parse(a.to)), -first[a]))

    def _send_back(self, runner, state, acts, side):
        """Which reinforcement goes back to where it came from when its hex
        stays over the stacking limit at the end of movement (GJ63 3.4(4)):
        the one worth least with what it carries (its factors and those of
        the counters under it, which the side sees), so that the strongest
        stays on the map; of equals, the one placed last."""
        def worth(uid: str) -> int:
            return self._strength(runner, state, uid) + sum(self._strength(runner, state, x)
                                                            for x in state.attached.get(uid, ()) if x in state.units)
        order = {a.unit: i for i, a in enumerate(acts)}
        return min(acts, key=lambda a: (worth(a.unit), -order[a.unit]))

    def _commanded(self, runner, state, side, uid, hexes: int = 1):
        """How many of the side's units (not HQs) HQ ``uid`` would have
        within its command range from a hex: a function of the hex, which
        remembers its answers (the units stand still while it is asked).
        ``hexes``: how many hexes it will be asked of; where that is more
        than a command range holds, the count of every hex in range of a
        unit is worked out at once (``counts_within``: an AVD game's HQ
        relocations weigh some 300 hexes per HQ, one count per unit each)."""
        g = runner.game
        c = g.counters[uid]
        rng = c.steps[min(state.units[uid].step, len(c.steps) - 1)].get(g.activation.range_factor, 0)
        units = [u.hex for u in state.on_map(side) if u.id != uid and not self._is_hq(runner, u.id)]
        if hexes > 3 * rng * (rng + 1) + 1:
            counts = counts_within(units, rng)
            return lambda h: counts.get(h, 0)
        known: dict = {}

        def at(h) -> int:
            n = known.get(h)
            if n is None:
                n = known[h] = count_within(h, units, rng)  # (an A Victory Denied game asks 3 million distances)
            return n
        return at

    def _battle_options(self, runner, state, acts, side, p):
        """A battle option that gains firepower on average is used; a fair
        gamble (Barbarossa's desperate effort: +1 for either side) only by
        the side that loses the battle as it stands (a gamble helps the
        underdog and hurts the favourite)."""
        battles = runner.engine.battles
        uses = [a for a in acts if isinstance(a, Use)]
        good = [a for a in uses if battles.option_value(a.option) > 0]
        if good:
            return good[0]
        fair = [a for a in uses if battles.option_value(a.option) == 0]
        if fair:
            rep = runner.engine.battle_report(state, p)
            margin, _, spare = self._margins(runner, state, rep)
            attacker_wins = margin >= 0 and spare >= 0
            if attacker_wins != (side == p["attacker"]):
                return fair[0]
        return Done()

    def _battle_retreat(self, runner, state, acts, side):
        """A firepower battle's retreat: the hex nearest the side's own supply."""
        from .retreat import distance_to_supply
        dist = distance_to_supply(runner.game, runner.board, side)
        board = runner.board
        return min(acts, key=lambda a: (dist.get(board.parse(a.path[-1]), 999) if a.path else 1000, str(a)))

    def _hold(self, runner, state, acts, side, p):
        """Units that may hold instead of retreating hold an objective hex; elsewhere they retreat."""
        h = state.units[p["units"][0]].hex
        aims = self._objectives(runner)
        return Hold() if h in set(aims.places.get(side, ())) | set(aims.enemy(side)) else Done()

    def _advance(self, runner: Runner, state: GameState, acts, side: str) -> RunnerAction:
        """After combat the strongest attacker advances when that brings it
        nearer a contested objective (a unit whose loss gives the enemy VP
        not where the enemy's next attack would likely take it,
        ``_endangered``); the path that ends nearest wins."""
        advances = [a for a in acts if isinstance(a, Advance)]
        if not advances:
            return Done()
        near = self._nearest_to(self.goals(runner, state, side))  # (0 where there are none: every gain 0)
        board = runner.board

        def gain(a):
            return near(state.units[a.unit].hex) - near(board.parse(a.path[-1]))
        # the best first; a retreat is weighed (the dearest test) only for the advances that gain
        ranked = sorted(((gain(a), self._strength(runner, state, a.unit), a.unit, a.path, a) for a in advances),
                        key=lambda k: k[:4], reverse=True)
        for g, *_, a in ranked:
            if g <= 0:
                break
            end = board.parse(a.path[-1])
            if not (self._costly(runner, a.unit) and not self._worth_the_risk(runner, state, end, side, a.unit)
                    and self._endangered(runner, state, end, side, a.unit)):
                return a
        return Done()

    def _attack(self, runner: Runner, state: GameState, acts: list) -> RunnerAction:
        """Of the attacks whose chance of a defender loss or retreat is at
        least even, one on a goal hex (a place to take or hold: taking it
        scores) first, then the best odds column, made by no more units than
        that column needs (``_economise``); HQs stay out of attacks (a lost
        HQ activates nobody), so a group is offered without them."""
        attacks = []
        for a in acts:
            if not isinstance(a, Attack):
                continue
            fighters = tuple(u for u in a.attackers if not self._is_hq(runner, u))
            if fighters and fighters not in {x.attackers for x in attacks if x.target == a.target}:
                attacks.append(Attack(a.target, fighters))
        best, best_key = None, None
        goals = set(self.goals(runner, state, runner.to_move(state)))
        for a in attacks:
            target = runner.board.parse(a.target)
            odds = self._attack_odds(runner, state, list(a.attackers), target)
            if odds is None:
                continue
            key = (odds[1] >= self.attack and target in goals, *odds, len(a.attackers))
            if best_key is None or key > best_key:
                best, best_key = a, key
        if best is not None and best_key[2] >= self.attack:
            return self._economise(runner, state, best, best_key[1:3])
        return next(a for a in acts if isinstance(a, Done))

    def _attack_odds(self, runner: Runner, state: GameState, attackers: list[str], target) -> tuple | None:
        """(column, chance that the defender loses a step or retreats) of an attack, None if illegal.
        Kept across decisions (``_odds``) by what ``combat_odds`` reads of the state where the game has
        no combat modifiers: two thirds of a Smolensk game's attacks weighed were weighed before."""
        g = runner.game
        if self._odds[0] is not runner:
            self._odds = (runner, None if modified_by(g, g.combat.crt or next(iter(g.crts), "")) else {})
        kept = self._odds[1]
        key = None
        if kept is not None:
            key = self._odds_key(state, attackers, target)
            if key in kept:
                return kept[key]
        rep = combat_odds(g, runner.board, state, attackers, target, env=runner.env)
        out = None
        if rep.legal:
            out = rep.column.index, sum(p for code, p in rep.probabilities.items()
                                        if (r := g.results[rep.crt.results].get(code)) and
                                        (r.defender_loss or r.defender_retreat))
        if key is not None:
            if len(kept) >= 50_000:
                kept.clear()
            kept[key] = out
        return out

    @staticmethod
    def _odds_key(state: GameState, attackers: list[str], target, at: tuple | None = None) -> tuple:
        """What ``combat_odds`` reads of the state, in a game with no combat
        modifiers (``_attack_odds``); ``at``: (unit, hex) where that unit
        would stand after a move weighed, not made (``_kept_odds``)."""
        units, attacked, activated, attached = state.units, state.attacked, state.activated, state.attached
        mover, there = at if at is not None else (None, None)
        return (target, tuple(state.step.get("ignore") or ()), target in state.attacked_hexes,
                tuple((a, there if a == mover else u.hex, u.step, u.markers, attached.get(a), a in attacked,
                       not activated or a in activated) for a in attackers if (u := units.get(a)) is not None),
                len(attackers),
                tuple((d, (u := units[d]).step, u.markers, attached.get(d), f"retreated:{d}" in attacked)
                      for d in state.occupants.get(target, ())))

    _UNKNOWN = object()

    def _kept_odds(self, runner: Runner, state: GameState, attackers: list[str], target, at: tuple):
        """``_attack_odds`` of an attack weighed before (kept across decisions),
        with ``at``'s unit moved to its hex, without making the move;
        ``_UNKNOWN`` where none was kept."""
        if self._odds[0] is not runner or self._odds[1] is None:
            return self._UNKNOWN
        return self._odds[1].get(self._odds_key(state, attackers, target, at), self._UNKNOWN)

    def _economise(self, runner: Runner, state: GameState, attack: Attack, odds: tuple) -> Attack:
        """The attack with fewer attackers where the column and the chance stay
        the same: units that can attack another hex (then the strongest) are
        left out first, for the attacks still to come."""
        if len(attack.attackers) < 2:
            return attack
        board = runner.board
        target = board.parse(attack.target)

        def elsewhere(uid: str) -> int:
            return sum(1 for n, _ in board.adj[state.units[uid].hex] if n != target and n not in state.attacked_hexes
                       and state.side_at(n) not in (None, state.units[uid].side))
        kept = list(attack.attackers)
        for uid in sorted(kept, key=lambda u: (-elsewhere(u), -self._strength(runner, state, u), u)):
            rest = [u for u in kept if u != uid]
            if rest and self._attack_odds(runner, state, rest, target) == odds:
                kept = rest
        return Attack(attack.target, tuple(kept))

    def _reorganize(self, runner, state, acts, side):
        """A reorganize phase (runtime/reorganize.py): the strongest counter waiting
        in a pool goes under the strongest unit with room for it; nothing is
        transferred or returned."""
        takes = [a for a in acts if isinstance(a, Attach) and state.units[a.unit].box.startswith("pool:")]
        if not takes:
            return Done()
        return max(takes, key=lambda a: (self._strength(runner, state, a.unit), self._strength(runner, state, a.host),
                                         a.unit, a.host))

    def _designate(self, runner, state, acts, side):
        """A designate phase (runtime/designate.py, a reserve): the units with no
        enemy next to them, which could not attack before moving anyway, so
        that they may move and then attack (and move by road at double speed)."""
        enemy = set(self._enemy_hexes(state, side))
        for a in acts:
            if isinstance(a, Designate) and not any(n in enemy for n, _ in runner.board.adj[state.units[a.unit].hex]):
                return a
        return Done()


GreedyBot.DECISIONS = {
    "choose": GreedyBot._choose_chit, "pick": GreedyBot._pick, "interrupt": GreedyBot._interrupt,
    "place": GreedyBot._place, "rebuild": GreedyBot._rebuild, "deploy": GreedyBot._deploy,
    "decide": GreedyBot._decide, "withdraw": GreedyBot._withdraw, "transfer": GreedyBot._transfer,
    "hq-transfer": GreedyBot._transfer, "activate": GreedyBot._activate, "command-hq": GreedyBot._command_hq,
    "commander": GreedyBot._commander,
    "combat": GreedyBot._combat,
    "movement": GreedyBot._movement, "reorganize": GreedyBot._reorganize, "designate": GreedyBot._designate,
}

from .search import SearchBot  # noqa: E402  (it builds on GreedyBot)

BOTS = {"random": RandomBot, "greedy": GreedyBot, "search": SearchBot}


def make_bot(name: str, seed: int, think: float | None = None):
    """A bot by its agent name: ``KIND[:OPTION]...``, where KIND is
    ``random``, ``greedy`` or ``search`` and an option is the search's
    iterations per decision (``search:200``) or ``KEY=VALUE`` (``OPTIONS``:
    ``greedy:hold=1``, ``search:50:hold=0.5``, ``search:4:moves=1``); ``think``: seconds per
    decision (search only).  A name that asks for what the bot does not
    take is a ValueError that says why."""
    kind, *opts = name.split(":")
    if kind not in BOTS:
        raise ValueError(f"no bot named '{kind}': choose {', '.join(BOTS)}")
    cls = BOTS[kind]
    budget, kwargs = "", {}
    for opt in opts:
        key, eq, val = opt.partition("=")
        if not eq:
            if not getattr(cls, "budgeted", False):
                raise ValueError(f"the {kind} bot takes no budget: only search does (search:200)")
            if budget:
                raise ValueError(f"{name}: one budget only (search:200)")
            budget = opt
            continue
        takes = getattr(cls, "options", ())
        if key not in takes:
            raise ValueError(f"{name}: the {kind} bot has no option '{key}' (options: {', '.join(takes) or 'none'})")
        if key in kwargs:
            raise ValueError(f"{name}: {key} is given twice")
        lo, hi, what = OPTIONS[key]
        try:
            number = float(val)
        except ValueError:
            number = math.nan
        if key in SWITCHES:
            if number not in (0.0, 1.0):
                raise ValueError(f"{name}: {key} takes 0 or 1: {what}")
            kwargs[key] = bool(number)
            continue
        if not lo <= number <= hi:
            raise ValueError(f"{name}: {key} takes a number from {lo:g} to {hi:g}: {what}")
        kwargs[key] = number
    if not getattr(cls, "budgeted", False):
        return cls(seed, **kwargs)
    return cls(seed, budget, think, **kwargs)


def blind_to_winner(agents, game) -> bool:
    """Whether bots of these agent names (``make_bot``) choose alike in
    ``game`` whoever its ``win ... at end`` rules would name: then a number
    those rules alone read (``runtime.victory.decides_only_winner``: a VP
    bid) changes no choice of theirs either, and a game played at one value
    of it is the game at every value.  False for a bot that does not say."""
    for name in agents:
        cls = BOTS.get(name.split(":")[0])
        reads = getattr(cls, "reads_winner", None)
        if reads is None or reads(game):
            return False
    return True


def play(runner: Runner, state: GameState, agents: dict[str, object], max_actions: int = 200_000,
         on_action: Callable | None = None) -> tuple[GameState, int]:
    """Let the agents play to the end; returns the final state and the
    number of decisions taken."""
    n = 0
    while state.result is None:
        if n >= max_actions:
            raise SequenceError(f"no end after {max_actions} decisions: does the game end (turns, victory rules)?")
        side = runner.to_move(state)
        agent = agents.get(side) or agents.get("*")
        action = agent.choose(runner, state)
        state = runner.apply(state, action)
        n += 1
        if on_action is not None:
            on_action(state, side, action)
    return state, n
