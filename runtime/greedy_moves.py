"""The greedy bot's movement (``GreedyMoves``, a part of ``runtime.bots.GreedyBot``).

One move a decision: where attacks are moves into enemy hexes, the battles
worth fighting (``_move_in``); where attacks follow movement, the move that
sets up a good attack (``_attack_setup``); then a unit whose loss costs VP
out of a hex where the enemy's next attack would likely take it
(``_pull_back``: runtime.menace), a unit cut off from supply back into it
(``_resupply``), a detachment onto a goal
(``_detach``), and the unit whose best move gains the most toward a goal,
staying in supply, out of pockets, within its HQ's reach or its command
chain (``_kept``); HQs follow their units (``_hq_move``).  The move lists
are read as ``_Dest``s (``listed_moves``) and distances to the goals kept per
hex (``Nearest``).  The rest of the bot (goals, strength, what is costly,
the odds of an attack) is in runtime/bots.py.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Callable

from .action_lists import Moves
from .actions import Detach, Done, IllegalActionError, Move
from .hexes import farthest, nearest
from .objectives import entry_places
from .menace import Menace, odds_crt
from .runner import Runner, RunnerAction
from .stacking import overstacked
from .state import GameState
from .supply import RAIL, linked, reached

if TYPE_CHECKING:
    from .objectives import Objectives


class Nearest:
    """Hexes between a hex and the nearest of ``places`` (0 when there are
    none), remembered per hex: the greedy bot asks it of every move.  With
    ``ahead`` (one number per place), a place counts as that many hexes
    nearer than it stands: a unit makes for the place with the fewest hexes
    to go less its head start, and a move's gain is still counted in hexes."""

    __slots__ = ("places", "known", "ahead")

    def __init__(self, places, known: dict | None = None, ahead: tuple | None = None):
        self.places = tuple(places)
        self.known: dict = {} if known is None else known
        self.ahead = ahead

    def __call__(self, h) -> float:
        d = self.known.get(h)
        if d is None:
            if self.ahead is None:
                d = nearest(h, self.places)
            else:  # (hex_distance written out: see runtime.hexes)
                q0, r0 = h
                d = min(((abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0)) // 2 - a
                         for (q, r), a in zip(self.places, self.ahead)), default=0)
            self.known[h] = d
        return d


class _Everywhere:
    """Stands for a supply map where every hex is in supply."""

    def __contains__(self, h) -> bool:
        return True


_EVERYWHERE = _Everywhere()


class _Dest:
    """A listed move as the greedy bot weighs it: the unit, the hex it ends
    in and the mode, read from the move list's groups (no hex id written and
    parsed back: a Smolensk movement decision lists thousands); the Move is
    built for the answer given (``move``)."""

    __slots__ = ("unit", "hex", "mode", "_board")

    def __init__(self, unit: str, h, mode: str, board) -> None:
        self.unit, self.hex, self.mode, self._board = unit, h, mode, board

    @property
    def to(self) -> str:
        return self._board.hex_id(self.hex)

    def move(self) -> Move:
        return Move(self.unit, self.to, self.mode)


def listed_moves(board, acts, kept: dict | None = None) -> tuple[dict[str, list[_Dest]], list[Move]]:
    """The moves on the map among ``acts``, per unit in the list's order, and
    the moves into boxes off the map (AVD: the Minsk Pocket).  ``kept``: the
    caller's store of the listed moves built before on this board, (unit,
    mode) -> hex -> move, reused (a unit's destinations change little from
    one decision to the next; a Smolensk game lists 400,000 of them)."""
    by_unit: dict[str, list[_Dest]] = {}
    if isinstance(acts, Moves):  # (its boxes, if any, are in its tail, not its groups)
        for uid, mode, hexes in acts.groups:
            if kept is None:
                dests = [_Dest(uid, h, mode, board) for h in hexes]
            else:
                known = kept.get((uid, mode))
                if known is None:
                    known = kept[(uid, mode)] = {}
                get = known.get
                dests = [get(h) or known.setdefault(h, _Dest(uid, h, mode, board)) for h in hexes]
            by_unit.setdefault(uid, []).extend(dests)
        return by_unit, [a for a in acts.tail if isinstance(a, Move)]
    boxes = []
    pools = board.game.pools
    for a in acts:
        if isinstance(a, Move):
            if a.to in pools:
                boxes.append(a)
            else:
                by_unit.setdefault(a.unit, []).append(_Dest(a.unit, board.parse(a.to), a.mode, board))
    return by_unit, boxes


class GreedyMoves:
    """The greedy bot's movement decisions (mixed into ``GreedyBot``, whose
    goals, strengths and odds these methods read through ``self``)."""

    # What these methods read of GreedyBot, declared so that a type checker follows them.
    # Declarations only: GreedyBot.__init__ sets the attributes and defines the methods.
    attack: float
    risk: float
    _menace: tuple | None
    _entries: tuple[Runner, dict] | None
    _fast_units: tuple[tuple, frozenset[str]] | None
    _rails: tuple[tuple, frozenset] | None
    _dests: tuple[object, dict]
    _far: dict[int, tuple]
    _UNKNOWN: object

    if TYPE_CHECKING:
        def _objectives(self, runner: Runner) -> Objectives: ...

        def objectives(self, runner: Runner, side: str) -> list: ...

        def goals(self, runner: Runner, state: GameState, side: str, reach: int = 6) -> list: ...

        def _closed(self, runner: Runner, state: GameState) -> frozenset: ...

        @staticmethod
        def _enemy_hexes(state: GameState, side: str) -> list: ...

        @staticmethod
        def _nearest(h, hexes, default: int = 99) -> int: ...

        @staticmethod
        def _strength(runner: Runner, state: GameState, uid: str) -> int: ...

        def _costly(self, runner: Runner, uid: str) -> float: ...

        def _worth_the_risk(self, runner: Runner, state: GameState, h, side: str, uid: str) -> bool: ...

        def _is_hq(self, runner: Runner, uid: str) -> bool: ...

        def _nearest_to(self, places, ahead: tuple | None = None) -> Nearest: ...

        def _head_starts(self, runner: Runner, state: GameState, side: str, places) -> tuple | None: ...

        def _attack_odds(self, runner: Runner, state: GameState, attackers: list[str], target) -> tuple | None: ...

        def _kept_odds(self, runner: Runner, state: GameState, attackers: list[str], target, at: tuple): ...

    def _move(self, runner: Runner, state: GameState, acts: list, side: str) -> RunnerAction:
        """Where attacks are moves into enemy hexes, attacks first
        (``_move_in``); in CRT games the moves that set up a good attack;
        then a unit whose loss gives the enemy VP out of a hex where the
        enemy's next attack would likely take it (``_pull_back``); then a
        unit cut off from supply back into it (``_resupply``); then the unit
        whose best move gains the most toward a goal, staying in supply (unless the side
        skips the supply check now) and out of pockets (and, for such a
        unit, out of such hexes), the slower units counting the enemy cut
        off on the side's rail lines among their goals (``_on_our_lines``);
        a unit that is the last on a threatened place the enemy plays for
        stays there; HQs follow their units."""
        a = self._weigh_moves(runner, state, acts, side)
        return a.move() if isinstance(a, _Dest) else a

    def _weigh_moves(self, runner: Runner, state: GameState, acts: list, side: str):
        """``_move``'s choice: an action, or a listed move (``_Dest``)."""
        board = runner.board
        if self._dests[0] is not board:
            self._dests = (board, {})
        by_unit, boxes = listed_moves(board, acts, self._dests[1])
        if runner.game.movement.exits:  # a move off the map into a box (AVD: the Minsk Pocket): taken if it wins
            for box in boxes:
                after = runner.engine.apply(state, box)
                if after.result is not None and after.result.get("winner") == side:
                    return box
        if not by_unit:
            return acts[-1]
        move_in = runner.game.combat.attack == "move-in"
        if move_in and runner.game.combat.procedure == "firepower":
            attack = self._move_in(runner, state, by_unit, side)
            if attack is not None:
                return attack
        # how far units go this phase: the goals to hold are those the enemy could reach as far
        reach = max(2, self._farthest(state, acts, by_unit))
        # a place to hold that a unit of the side stands on needs no one else
        targets = [t for t in self.goals(runner, state, side, reach) if state.control.get(t) != side or
                   not any(state.units[x].side == side for x in state.occupants.get(t, ()))] or \
            self.goals(runner, state, side, reach)
        thin = self._thin(runner, state, side, reach)
        guards = self._guards(runner, state, side, reach)
        # the hexes a unit may end in: where it traces a line of communication, or anywhere while the
        # side skips the supply check (Smolensk 15.1(4): the Axis on turns 1 to 3, when the panzers ran ahead)
        lines = _EVERYWHERE if runner.supply_skipped(state, side) else \
            reached(runner.game, runner.board, state, side)  # (read only: not copied)
        hqs = {uid for uid in by_unit if self._is_hq(runner, uid)}
        posts = self._posts(runner, state, side, hqs)
        near = {False: self._nearest_to(targets, self._head_starts(runner, state, side, targets)),
                True: self._nearest_to(targets + thin, self._head_starts(runner, state, side, targets + thin))}
        if runner.game.combat.procedure == "odds" and not move_in:  # attacks follow movement
            setup, ready = self._attack_setup(runner, state, by_unit, side, lines, guards, posts, near[False])
            if setup is not None:
                return setup
            guards = guards | ready  # units set for a good attack wait for the combat phase
        pull = self._pull_back(runner, state, by_unit, side, lines, targets, posts)
        if pull is not None:
            return pull
        if lines is not _EVERYWHERE:
            back = self._resupply(runner, state, by_unit, side, lines, near[False], posts)
            if back is not None:
                return back
        deny = self._deny(runner, state, by_unit, side, lines, guards, posts)
        if deny is not None:
            return deny
        detach = self._detach(runner, state, acts, side, lines, targets)
        if detach is not None:
            return detach
        # the unit whose best move gains the most toward an objective, staying in supply
        best: _Dest | None = None
        best_gain: float = 0
        follows_control = runner.game.supply.blocked_by_enemy_control
        # the slower units also clear the enemy cut off on the side's rail lines, which its lines run along
        fast = self._fast(runner, side)
        cut = self._on_our_lines(runner, state, side) if fast else []
        clear = self._nearest_to(targets + cut) if cut else None
        for uid, ms in sorted(by_unit.items()):
            if uid in hqs or uid in guards:
                continue  # HQs follow their units (below); guards stay
            here = state.units[uid].hex
            kept = self._kept(runner, state, posts, uid, here)
            dist = clear if uid not in fast and clear is not None else near[bool(thin) and not self._costly(runner, uid)]
            d0 = dist(here)
            for m in ms:
                h = m.hex
                gain = d0 - dist(h)
                if gain <= best_gain:
                    continue  # the checks below only rule moves out: this one could not be the best
                if h in thin and not self._fits(runner, state, h, uid):
                    continue
                if move_in and any(u.side != side for u in state.units_at(h)):
                    continue  # attacks were weighed above
                elif h not in lines and not (follows_control and any(n in lines for n, _ in board.adj[h])):
                    continue  # (where lines follow control, a move next to a line takes the hex into it)
                elif self._exposed(board, state, h, side, uid):
                    continue  # more enemy than friendly neighbours: a unit there is cut off and lost
                elif not kept(h):
                    continue  # out of every HQ's reach, or of its command chain: never activated again
                if self._costly(runner, uid) and not self._worth_the_risk(runner, state, h, side, uid) and \
                        self._endangered(runner, state, h, side, uid):
                    continue  # likely lost there: a unit whose loss gives the enemy VP stays out (but
                    # for a place worth more than the unit)
                best, best_gain = m, gain
        if best is None and hqs:
            best = self._hq_move(runner, state, {u: by_unit[u] for u in hqs}, side, lines, targets,
                                 weigh=posts is not None)
        return best or next((a for a in acts if isinstance(a, Done)), None) or \
            self._unstack(runner, state, by_unit, side, lines, targets)

    def _farthest(self, state: GameState, acts, by_unit: dict) -> int:
        """The farthest any move on the map goes, in hexes.  A unit's
        destinations are often the very list of the decision before (its
        range carried: runtime.movement), whose farthest is kept (``_far``)."""
        if isinstance(acts, Moves):  # (its boxes, if any, are in its tail, not its groups)
            far = self._far
            if len(far) > 4096:
                far.clear()
            out = 0
            for u, _, hexes in acts.groups:
                h = state.units[u].hex
                hit = far.get(id(hexes))
                if hit is None or hit[0] is not hexes or hit[1] != h:
                    hit = far[id(hexes)] = (hexes, h, farthest(h, hexes))  # (the list itself kept: its id stays)
                out = max(out, hit[2])
            return out
        return max(state.units[m.unit].hex.distance(m.hex) for ms in by_unit.values() for m in ms)

    def _detach(self, runner: Runner, state: GameState, acts: list, side: str, lines, targets):
        """A counter that may leave its unit as a unit of its own (``detach``,
        GJ63 签一览 分遣队) goes where it ends on a goal no unit of the side
        stands on, in supply and not cut off (``_exposed``): to take or hold
        it while its host goes on; the goal nearest the enemy first, then by
        name."""
        board, enemy = runner.board, self._enemy_hexes(state, side)
        aims = set(targets)
        listed = acts.tail if isinstance(acts, Moves) else acts  # (a move list keeps its detachments in its tail)
        best = [a for a in listed if isinstance(a, Detach) and (h := board.parse(a.to)) in aims and h in lines and
                not any(state.units[x].side == side for x in state.occupants.get(h, ())) and
                not self._exposed(board, state, h, side, a.unit)]
        return min(best, key=lambda a: (self._nearest(board.parse(a.to), enemy), a.to, a.unit), default=None)

    def _posts(self, runner: Runner, state: GameState, side: str, moving: set[str]) -> list | None:
        """Where HQs activate the units within their command range and
        nothing else (chit-pull games whose every HQ chit commands by range:
        Smolensk 8.2): each of the side's HQs on the map as (hex, the hexes
        its command reaches, its nationality where activation keeps to it),
        the reach grown by its MP where the HQ moves later in this
        activation (``moving``: it follows its units); None elsewhere."""
        g = runner.game
        if not g.chits or any(c.kind in ("hq", "interrupt") and c.command != ("range",) for c in g.chits.values()):
            return None
        rf = g.activation.range_factor
        same = side in g.activation.same_nationality
        out = []
        for u in state.on_map(side):
            if not self._is_hq(runner, u.id):
                continue
            c = g.counters[u.id]
            r = c.steps[min(u.step, len(c.steps) - 1)].get(rf, 0)
            if not r:
                continue
            if u.id in moving:
                from .movement import SCALE, unit_mp
                r += unit_mp(g, state, u.id) // SCALE
            out.append((u.hex, r, c.nationality if same else None))
        return out or None

    @staticmethod
    def _covered(runner: Runner, posts: list, uid: str, h) -> bool:
        """``uid`` in ``h`` is within the reach of one of ``posts`` that may activate it."""
        nat = runner.game.counters[uid].nationality
        q0, r0 = h  # (hex_distance written out: see runtime.hexes)
        return any(abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0) <= 2 * reach and n in (None, nat)
                   for (q, r), reach, n in posts)

    def _kept(self, runner: Runner, state: GameState, posts: list | None, uid: str, here) -> Callable[[object], bool]:
        """The test of the hexes ``uid``, standing in ``here``, may end its
        move in, so that it can be activated again: where HQs command by
        range (``posts``), a unit within an HQ's reach stays within one;
        where a command chain links the units (``_chained``), the unit does
        not leave the chain it is in, nor break it."""
        in_reach = None if posts is None or not self._covered(runner, posts, uid, here) else \
            (lambda h: self._covered(runner, posts, uid, h))
        chained = self._chained(runner, state, uid, here)
        if in_reach is None or chained is None:
            return in_reach or chained or (lambda h: True)
        return lambda h: in_reach(h) and chained(h)

    def _chained(self, runner: Runner, state: GameState, uid: str, here) -> Callable[[object], bool] | None:
        """Where a command chain activates the units (AVD 抽取 3 d: a panzer
        group's motorized units of a corps colour, linked by gaps of at most
        3 hexes, from a commander; ``command-chain N SELECTORS [per TAGS]``),
        a chain member that moves out of reach of the others is never
        activated by its chit again, and one that moves away from two it
        linked splits its chain: the test of the hexes ``uid`` may end its
        move in, where it is linked to at least as many of its chain's
        units as in ``here`` (counting the HQ, for a chain from the HQ).
        None where no chain links ``uid``."""
        g = runner.game
        act = g.activation
        if not act.chain or not g.matches(uid, act.chain_units):
            return None
        c = g.counters[uid]
        tag = next((t for t in act.chain_groups if t in c.tags), None)
        if act.chain_groups and tag is None:
            return None
        side = state.units[uid].side
        others = [u.hex for u in state.on_map(side) if u.id != uid and not self._is_hq(runner, u.id)
                  and g.counters[u.id].formation == c.formation and g.matches(u.id, act.chain_units)
                  and (tag is None or tag in g.counters[u.id].tags)]
        anchor = None
        if tag is None:  # one chain from the formation's HQ
            hq = next((u for u in state.on_map(side) if self._is_hq(runner, u.id)
                       and g.counters[u.id].formation == c.formation), None)
            if hq is None:
                return None
            anchor = len(others)
            others.append(hq.hex)
        if not others:
            return None
        link = act.chain
        # the others' links without uid: a component label per unit (few units: a plain flood)
        label = [-1] * len(others)
        for i in range(len(others)):
            if label[i] < 0:
                label[i], todo = i, [i]
                while todo:
                    k = todo.pop()
                    for j in range(len(others)):
                        if label[j] < 0 and others[k].distance(others[j]) <= link:
                            label[j] = i
                            todo.append(j)
        size: dict[int, int] = {}
        for i, lab in enumerate(label):
            size[lab] = size.get(lab, 0) + (i != anchor)

        def linked(h) -> int:
            """How many units a chain through uid in h links (0 off the HQ's chain, for a chain from the HQ)."""
            touched = {label[i] for i, x in enumerate(others) if h.distance(x) <= link}
            if anchor is not None and label[anchor] not in touched:
                return 0
            return 1 + sum(size[lab] for lab in touched)
        now = linked(here)
        if now <= 1:
            return None  # out of its chain already: no chit activates it to move (or it is alone)
        return lambda h: linked(h) >= now

    def _thin(self, runner: Runner, state: GameState, side: str, reach: int) -> list:
        """The places whose entering scores for the enemy (an ``enter``
        trigger: runtime.objectives.entry_places; A Victory Denied's star
        hexes, where a Soviet unit entering an emptied one draws a victory
        chit) that the side holds with fewer units than may stack there,
        within ``reach`` + 1 of an enemy unit: a lone unit there is
        attacked at long odds and the place retaken, so units whose loss
        gives the enemy no VP move in to hold it (costly units do not)."""
        g = runner.game
        limit = g.stacking.get("units") if g.stacking else None
        if not limit or limit < 2:
            return []
        if self._entries is None or self._entries[0] is not runner:
            self._entries = (runner, entry_places(runner))
        entered = set().union(*(v for s, v in self._entries[1].items() if s != side))
        enemy = self._enemy_hexes(state, side)
        out = []
        for t in self.goals(runner, state, side, reach):
            if t not in entered:
                continue
            ids = [x for x in state.occupants.get(t, ()) if state.units[x].side == side and not self._is_hq(runner, x)]
            if ids and len(ids) < limit and any(t.distance(e) <= reach + 1 for e in enemy):
                out.append(t)
        return out

    @staticmethod
    def _fits(runner: Runner, state: GameState, h, uid: str) -> bool:
        """``uid`` may end its move in ``h`` under the stacking limits."""
        from .movement import stack_count, stack_weight
        from .stacking import extra_bars
        g = runner.game
        limit = g.stacking.get("units") if g.stacking else None
        return (limit is None or stack_count(g, state, h, uid) + stack_weight(g, uid) <= limit) and \
            not extra_bars(g, state, h, uid)

    def _unstack(self, runner: Runner, state: GameState, by_unit: dict, side: str, lines, targets) -> _Dest:
        """The movement may not end while a hex of the side is over the
        stacking limit (``stacking { judged end }``: reinforcements placed on
        one entry hex): a unit there moves out, the one whose move ends
        nearest a goal (in supply if it can), the first by name on a tie."""
        over = overstacked(runner.game, state, side)
        ms = [m for uid, ms in sorted(by_unit.items()) if state.units[uid].hex in over for m in ms]
        return min(ms or [m for _, ms in sorted(by_unit.items()) for m in ms],
                   key=lambda m: (m.hex not in lines, self._nearest(m.hex, targets), m.unit, m.to))

    def _on_our_lines(self, runner: Runner, state: GameState, side: str) -> list:
        """Where lines of communication run along rail (Smolensk 3.3(3): the
        Axis traces rail from its sources, then at most 6 hexes): the enemy
        units cut off from their own supply that stand on the side's rail
        net or next to it.  Their hex or their zone of control cuts the side's
        lines behind its front (the pockets the spearheads left), so the
        units that follow clear them; those elsewhere die of supply anyway."""
        g, board = runner.game, runner.board
        if side not in g.supply.rail:
            return []
        net = self._rail_net(runner, side)
        out = []
        for h, ids in state.occupants.items():
            if not ids or (u := state.units[ids[0]]).side == side:
                continue
            if (h in net or any(n in net for n, _ in board.adj[h])) and h not in reached(g, board, state, u.side):
                out.append(h)
        return sorted(out)

    def _rail_net(self, runner: Runner, side: str) -> frozenset:
        """The hexes joined by rail to the side's printed supply sources, on an empty map."""
        key = (runner, side)
        if self._rails is None or self._rails[0] != key:
            self._rails = (key, linked(runner.board, runner.board.supply_sources(side), RAIL))
        return self._rails[1]

    def _fast(self, runner: Runner, side: str) -> frozenset[str]:
        """The side's units that move farther than most of its units (their
        printed MP at full strength above the most common; HQs apart):
        Smolensk's mechanized divisions against its infantry.  None where
        every unit has the same MP."""
        key = (runner, side)
        if self._fast_units is None or self._fast_units[0] != key:
            g = runner.game
            pts = g.movement.points
            mp = {} if pts.isdigit() else \
                {cid: c.steps[0].get(pts, 0) for cid, c in g.counters.items()
                 if c.side == side and not self._is_hq(runner, cid)}
            common = Counter(mp.values()).most_common(1)
            usual = common[0][0] if common else 0
            self._fast_units = (key, frozenset(cid for cid, v in mp.items() if isinstance(v, int) and v > usual))
        return self._fast_units[1]

    def _ready(self, runner: Runner, state: GameState, side: str, target) -> list[str]:
        """The side's units next to ``target`` that could attack it in the combat to come."""
        engine, out = runner.engine, []
        for n, _ in runner.board.adj[target]:
            for x in state.occupants.get(n, ()):
                if state.units[x].side == side and x not in state.attacked and not self._is_hq(runner, x) \
                        and engine.can_act(state, x) and not engine.no_attack_after_move(state, x):
                    out.append(x)
        return sorted(out)

    def _attack_setup(self, runner: Runner, state: GameState, by_unit: dict, side: str, lines,
                      guards: set[str], posts: list | None = None,
                      dist: Callable[[object], float] | None = None) -> tuple[_Dest | None, set[str]]:
        """CRT games whose attacks follow movement: the move that makes an
        attack worth declaring, a unit next to an enemy stack so that the
        side's units around it would attack at odds where the defender loses
        or retreats at least as often as not, where they would not without it,
        or a column better (however good the attack is already: the better
        columns take steps as well as ground); the best such: an attack made
        good first, then the column, the chance, an objective's hex.  Also
        the units already set for a good attack (they stay).  A unit within
        an HQ's reach (``posts``) stays within one, and a unit in a command
        chain in it (``_kept``).  A fast unit (``_fast``)
        does not turn back for an attack (``dist``: hexes to the nearest
        goal): the enemy it would end farther from the goals to attack is
        left to the slower units that follow (the spearheads drive on; the
        infantry clears the pockets they cut off)."""
        board, engine = runner.board, runner.engine
        enemy = set(self._enemy_hexes(state, side))
        aims = set(self.objectives(runner, side))
        base: dict = {}
        ready: set[str] = set()

        def now(t):
            if t not in base:
                units = self._ready(runner, state, side, t)
                base[t] = (self._attack_odds(runner, state, units, t) if units else None, units)
                if base[t][0] is not None and base[t][0][1] >= self.attack:
                    ready.update(units)
            return base[t][0]

        best, best_key = None, None
        fast = self._fast(runner, side)
        tried: dict = {}  # (target, unit, the hexside it would attack across) -> odds
        # the hexes next to an enemy stack not attacked yet: a move that ends elsewhere sets up nothing
        attacked = state.attacked_hexes
        fronts = {n for t in enemy if t not in attacked for n, _ in board.adj[t]}
        sieges = self._sieges(runner, state, by_unit, side, lines, guards, posts,
                              sorted(t for t in aims if t in enemy and t not in attacked))
        for uid, ms in sorted(by_unit.items()):
            if uid in guards or self._is_hq(runner, uid):
                continue
            here = state.units[uid].hex
            kept = self._kept(runner, state, posts, uid, here)
            on = dist is not None and uid in fast
            d0 = dist(here) if on else 0
            # whether the mover could attack from where it goes (``_ready``); None where a phase's
            # limit of units that move may bar others once it moved (then the move is made to see)
            mover_ready = None if state.step.get("limit") else \
                uid not in state.attacked and engine.can_act(state, uid) and not engine.no_attack_after_move(state, uid)
            for m in ms:
                h = m.hex
                if h not in fronts or h not in lines or not kept(h):
                    continue
                back = on and dist(h) > d0  # a fast unit turns back for a siege only
                targets = [t for t, _ in board.adj[h] if t in enemy and t not in attacked
                           and (not back or t in sieges)
                           and t.distance(here) > 1]  # next to it already: moving adds nothing there
                if not targets:
                    continue
                after = None
                for t in targets:
                    before = now(t)
                    e = board.edge(h, t)
                    k = (t, uid, tuple(sorted(e.hexside)), e.bridged)
                    if k not in tried:
                        # the odds weighed before, read without making the move: the units ready after it
                        # are those ready now and the mover (none of them bars another, in a phase
                        # without a limit of units that move)
                        odds = self._UNKNOWN
                        if mover_ready is not None:
                            odds = self._kept_odds(runner, state, sorted([*base[t][1], uid] if mover_ready
                                                                         else base[t][1]), t, (uid, h))
                        if odds is self._UNKNOWN:
                            if after is None:
                                after = state.copy()
                                after.place(uid, h)
                                after.moved.add(uid)
                            odds = self._attack_odds(runner, after, self._ready(runner, after, side, t), t)
                        tried[k] = odds
                    new = tried[k]
                    if new is None or new[1] < self.attack:
                        # a goal the movers could attack together at good odds (``_sieges``): every move
                        # that adds to the attack counts, though the attack is not good (or legal) yet
                        if t not in sieges or (new is not None and before is not None and new[0] < before[0]) or \
                                not self._worth_the_risk(runner, state, t, side, uid):
                            continue
                        new, made = new or (-1, 0), True
                    else:
                        made = before is None or before[1] < self.attack
                        if not made and new[0] <= before[0]:
                            continue
                    key = (made, new[0], new[1], t in aims, uid, m.to)
                    if best_key is None or key > best_key:
                        best, best_key = m, key
        movers = {state.units[u].hex for u in by_unit}
        for t in sorted(enemy):  # the movers next to a good attack stay, whether or not a move was found
            if any(n in movers for n, _ in board.adj[t]):
                now(t)
        return best, ready

    def _sieges(self, runner: Runner, state: GameState, by_unit: dict, side: str, lines, guards: set[str],
                posts: list | None, targets: list) -> set:
        """The goals held by the enemy (``targets``) that the side's units
        could attack at good odds this phase if every mover that can reach a
        hex next to one went there (the strongest first, within the stacking
        limits, to hexes across no river first): a city held by a strong
        stack falls to a converging assault that no single move makes good
        (``_attack_setup`` then counts every move that adds to it).  A unit
        whose loss costs more VP than the place is worth (``_worth_the_risk``)
        takes no part."""
        if not targets:
            return set()
        board, engine = runner.board, runner.engine
        movers = None  # (unit, its destinations, where it may end: ``_kept``), the strongest first
        out = set()
        for t in targets:
            around = [n for n, e in sorted(board.adj[t], key=lambda ne: (bool(ne[1].hexside) and not ne[1].bridged,
                                                                         ne[0]))
                      if n in lines and state.side_at(n) in (None, side)]
            if not around:
                continue
            if movers is None:
                movers = [(uid, {m.hex for m in ms}, self._kept(runner, state, posts, uid, state.units[uid].hex))
                          for uid, ms in sorted(by_unit.items(),
                                                key=lambda um: (-self._strength(runner, state, um[0]), um[0]))
                          if uid not in guards and not self._is_hq(runner, uid) and uid not in state.attacked
                          and engine.can_act(state, uid) and not engine.no_attack_after_move(state, uid)]
            after = None
            for uid, dests, kept in movers:
                if state.units[uid].hex.distance(t) == 1:
                    continue  # (counted where it stands)
                if not self._worth_the_risk(runner, state, t, side, uid):
                    continue  # a unit whose loss costs more than the place is worth stays out
                for n in around:
                    if n in dests and kept(n):
                        if after is None:
                            after = state.copy()
                        if self._fits(runner, after, n, uid):
                            after.place(uid, n)
                            after.moved.add(uid)
                            break
            if after is None:
                continue
            odds = self._attack_odds(runner, after, self._ready(runner, after, side, t), t)
            if odds is not None and odds[1] >= self.attack:
                out.add(t)
        return out

    def _guards(self, runner: Runner, state: GameState, side: str, reach: int) -> set[str]:
        """The last unit of the side on each place the enemy plays for that
        an enemy unit could reach: it stays to hold it."""
        enemy = self._enemy_hexes(state, side)
        out = set()
        aims = self._objectives(runner)
        sudden = set(aims.enemy_sudden(side))
        closed = self._closed(runner, state)
        for t in aims.enemy(side):
            if t in closed:
                continue
            ids = state.occupants.get(t, ())
            if len(ids) == 1 and state.units[ids[0]].side == side and \
                    (t in sudden or any(t.distance(e) <= reach + 1 for e in enemy)):
                out.add(ids[0])
        return out

    def _move_in(self, runner: Runner, state: GameState, by_unit: dict, side: str) -> _Dest | None:
        """Attacks by moving into enemy hexes (firepower combat): first a
        battle already begun whose attackers' firepower does not yet beat
        what the defenders absorb before all are disrupted (the strongest
        unit that can join moves in); then a new battle that the units able
        to join would win, the one worth the most (an objective, then the
        enemy's strength there, then the least fire back); the strongest
        joins first."""
        board = runner.board
        into: dict = {}
        for uid, ms in by_unit.items():
            if self._is_hq(runner, uid):
                continue
            for m in ms:
                h = m.hex
                if any(u.side != side for u in state.units_at(h)):
                    into.setdefault(h, []).append(m)
        if not into:
            return None
        guards = self._guards(runner, state, side, 2)
        order = lambda m: (-self._strength(runner, state, m.unit), m.unit)  # noqa: E731
        best, best_key = None, None
        for h, ms in sorted(into.items()):
            ms = sorted((m for m in ms if m.unit not in guards), key=order)
            if not ms:
                continue
            if any(u.side == side for u in state.units_at(h)):  # begun
                if not self._enough(runner, state, h, side):
                    return ms[0]
                continue
            # all that can join, one after another while the rules let them
            after, joined = state, 0
            for m in ms:
                try:
                    after = runner.engine.apply(after, m.move())
                    joined += 1
                except IllegalActionError:
                    continue
            margin, back, spare = self._battle_margin(runner, after, h, side)
            if margin < 0 or spare < 0:
                continue
            strength = sum(self._strength(runner, state, u.id) for u in state.units_at(h) if u.side != side)
            key = (h in set(self.goals(runner, state, side)), strength, -back, board.hex_id(h))
            if best_key is None or key > best_key:
                best, best_key = ms[0], key
        return best

    def _battle_margin(self, runner: Runner, state: GameState, h, side: str) -> tuple[int, int, int]:
        """In the battle in ``h`` as it stands: the attackers' firepower
        less what the undisrupted defenders absorb before all are disrupted;
        the defenders' firepower; and what the attackers absorb before the
        last of them is disrupted, less the defenders' firepower (below 0:
        none is left to take the hex)."""
        return self._margins(runner, state, runner.engine.battle_report(state, target=h))

    @staticmethod
    def _margins(runner: Runner, state: GameState, rep) -> tuple[int, int, int]:
        from .combat.firepower import threshold
        side = rep.attacker
        env = runner.engine.env(state)
        need = sum(threshold(runner.game, state, uid, "disrupt-at", env) for uid in rep.defenders
                   if "disrupted" not in state.units[uid].markers)
        absorb = sum(threshold(runner.game, state, uid, "disrupt-at", env) for uid in rep.attackers)
        back = rep.fire[rep.defender].total
        return rep.fire[side].total - need, back, absorb - back - 1

    def _enough(self, runner: Runner, state: GameState, h, side: str) -> bool:
        """A battle is safe to leave as it stands when the attackers'
        firepower beats what the defenders absorb by one (a die roll may
        take one away) and one attacker would be left standing after an
        extra point of fire back."""
        margin, _, spare = self._battle_margin(runner, state, h, side)
        return margin >= 1 and spare >= 1

    @staticmethod
    def _exposed(board, state: GameState, h, side: str, uid: str) -> bool:
        """A hex with at least two more enemy-held than friendly-held neighbours."""
        enemy = friends = 0
        for n, _ in board.adj[h]:
            ids = [x for x in state.occupants.get(n, ()) if x != uid]
            if ids:
                if state.units[ids[0]].side == side:
                    friends += 1
                else:
                    enemy += 1
        return enemy - friends >= 2

    def _endangered(self, runner: Runner, state: GameState, h, side: str, uid: str) -> bool:
        """Would ``uid`` in ``h`` be lost, with a chance of ``self.risk`` or
        more, if the enemy attacked it there with all it could bring next
        (runtime.menace: its units' reach, the CRT's odds, the steps each
        result takes and the retreats the rules allow from ``h``)?  The
        enemy's reach is worked out again when one of its units has moved
        or the phase has changed (``_menace``), not for each move of the
        side's own."""
        g = runner.game
        if odds_crt(g) is None:
            return False
        enemy = next((x for x in g.sides if x != side), None)
        if enemy is None:
            return False
        m = self._menace
        # (the same state, unchanged since: its key is the last one, not built again for each hex weighed)
        stamp = (side, state.turn, state.phase, state.version, state.edits)
        if m is None or m[2] is not state or m[3] != stamp:
            key = (side, state.turn, state.phase,
                   tuple((u.id, u.hex, u.step, u.markers) for u in state.units.values() if u.side == enemy))
            menace = m[1] if m is not None and m[0] == key else Menace(g, runner.board, state, enemy)
            m = self._menace = (key, menace, state, stamp)
        return m[1].endangered(state, uid, h, self.risk)

    def _pull_back(self, runner: Runner, state: GameState, by_unit: dict, side: str, lines, targets,
                   posts: list | None = None) -> _Dest | None:
        """A unit whose loss costs VP (runtime.objectives: costly) that
        stands where the enemy's next attack would likely take it
        (``_endangered``) moves to a hex in supply where it would not,
        nearest the goals (the first such unit by name); where HQs command
        by range (``posts``), a unit within an HQ's reach stays within one
        (else no HQ activates it again), and a unit in a command chain in it
        (``_kept``)."""
        near = self._nearest_to(targets)  # (hexes to the nearest target: each order alike where there is none)
        for uid, ms in sorted(by_unit.items()):
            if self._is_hq(runner, uid) or not self._costly(runner, uid):
                continue
            here = state.units[uid].hex
            if self._worth_the_risk(runner, state, here, side, uid) or \
                    not self._endangered(runner, state, here, side, uid):
                continue  # (a place worth more than the unit is held)
            kept = self._kept(runner, state, posts, uid, here)
            ways = [m for m in ms if (h := m.hex) in lines and h != here
                    and all(u.side == side for u in state.units_at(h)) and kept(h)]
            # the nearest first, and the first not endangered there: the dearer test (the enemy's reach,
            # the odds, the retreats) is made for the few moves before it, not for all (a stable sort:
            # the move ``min`` would pick among the safe ones)
            ways.sort(key=lambda m: (near(m.hex), here.distance(m.hex), m.to))
            for m in ways:
                if not self._endangered(runner, state, m.hex, side, uid):
                    return m
        return None

    def _deny(self, runner: Runner, state: GameState, by_unit: dict, side: str, lines, guards: set[str],
              posts: list | None = None) -> _Dest | None:
        """Where a line may not end in enemy ZOC (``supply { ends-in-zoc
        no }``: GJ63 3.2(1)), a unit next to a place the enemy plays for, and
        that no enemy unit holds, keeps the enemy's lines from it: the move on
        or next to such a place, in supply and not cut off there (``_exposed``),
        that takes the most VP from what the enemy would score if the game
        ended now (its ``standing``, worked out after the move, so that what
        the unit gives back where it leaves counts too); None where no move
        takes any.  Guards stay; a unit within an HQ's reach stays within one
        (``_kept``)."""
        g = runner.game
        if g.supply.ends_in_zoc or lines is _EVERYWHERE:
            return None
        board = runner.board
        enemy_units = set(self._enemy_hexes(state, side))
        near: set = set()
        for p in self._objectives(runner).enemy(side):
            if p not in enemy_units:
                near.add(p)
                near.update(n for n, _ in board.adj[p])
        if not near:
            return None

        def scored(s: GameState) -> int:
            vp = runner.standing(s)[0]
            return max((v for x, v in vp.items() if x != side), default=0)

        now = scored(state)
        if now <= 0:
            return None
        best, best_key = None, None
        for uid, ms in sorted(by_unit.items()):
            if uid in guards or self._is_hq(runner, uid):
                continue
            here = state.units[uid].hex
            kept = self._kept(runner, state, posts, uid, here)
            for m in ms:
                h = m.hex
                if h not in near or h not in lines or not kept(h) or not self._fits(runner, state, h, uid) \
                        or any(u.side != side for u in state.units_at(h)) or self._exposed(board, state, h, side, uid):
                    continue
                after = state.copy()
                after.place(uid, h)
                gain = now - scored(after)
                if gain <= 0:
                    continue
                key = (gain, -here.distance(h), m.to, uid)
                if best_key is None or key > best_key:
                    best, best_key = m, key
        return best

    def _resupply(self, runner: Runner, state: GameState, by_unit: dict, side: str, lines,
                  dist: Callable[[object], float], posts: list | None = None) -> _Dest | None:
        """A unit cut off from supply (it stands outside ``lines``) that can
        move back to a hex in supply, not cut off there (``_exposed``), does,
        to the one nearest the goals (``dist``); the first such unit by name.
        Where it stays it loses steps at every supply check; the moves that
        gain ground only ever end in supply, so without this it would never
        move again.  A unit within an HQ's reach (``posts``) stays within one,
        and a unit in a command chain in it (``_kept``)."""
        board = runner.board
        for uid, ms in sorted(by_unit.items()):
            here = state.units[uid].hex
            if here in lines:
                continue
            kept = self._kept(runner, state, posts, uid, here)
            back = [m for m in ms if (h := m.hex) in lines and kept(h) and self._fits(runner, state, h, uid)
                    and all(u.side == side for u in state.units_at(h))
                    and not self._exposed(board, state, h, side, uid)]
            if back:
                return min(back, key=lambda m: (dist(m.hex), here.distance(m.hex), m.to))
        return None

    ALONE = 3  # the weight of a unit only the moving HQ commands (``_hq_move``), against 1

    def _hq_move(self, runner: Runner, state: GameState, by_hq: dict, side: str, lines, targets,
                 weigh: bool = False) -> _Dest | None:
        """Once the units have moved, an HQ moves to the hex (in supply, not
        next to an enemy unit) from which it commands the most of them for
        the next activation, the nearest an objective on a tie; it stays put
        unless that commands more.  ``weigh`` (where HQs command by range
        alone, ``_posts``): the units it may activate, each counted by its
        printed factors, so that the panzer spearheads draw the HQs rather
        than the infantry marching behind (Smolensk 8.1(2): every HQ
        activates whoever stands in its range, so all of them follow the
        units that make the advance), and a unit that no other HQ commands
        three times (``ALONE``)."""
        g, board = runner.game, runner.board
        enemy = set(self._enemy_hexes(state, side))
        same = side in g.activation.same_nationality
        everyone = [(u.hex, self._strength(runner, state, u.id) if weigh else 1, g.counters[u.id].nationality, u.id)
                    for u in state.on_map(side) if not self._is_hq(runner, u.id)
                    and not (weigh and "immobile" in g.unit_classes[g.counters[u.id].unit_class].flags)]
        posts = self._posts(runner, state, side, set()) if weigh else None
        plain = [(x, w, n) for x, w, n, _ in everyone]
        for uid, ms in sorted(by_hq.items()):
            hq = state.units[uid]
            c = g.counters[uid]
            rng = c.steps[min(hq.step, len(c.steps) - 1)].get(g.activation.range_factor, 0)
            nat = c.nationality if weigh and same else None
            if posts:
                # a unit that no other HQ commands where it stands counts three
                # times: only this HQ's chit can activate it (the spearheads
                # that outran the other HQs), while the units the others
                # command act when their chits are drawn anyway
                others = [p for p in posts if p[0] != hq.hex]
                units = [(x, w if self._covered(runner, others, u, x) else self.ALONE * w, n)
                         for x, w, n, u in everyone]
            else:
                units = plain

            def covered(h):
                q0, r0 = h  # (hex_distance written out: see runtime.hexes)
                return sum(w for (q, r), w, n in units
                           if abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0) <= 2 * rng and nat in (None, n))
            now = covered(hq.hex)
            options = []
            for m in ms:
                h = m.hex
                if h not in lines or any(n in enemy for n, _ in board.adj[h]):
                    continue
                options.append((covered(h), -self._nearest(h, targets), m.to, m))
            if options:
                best = max(options, key=lambda o: o[:3])
                if best[0] > now:
                    return best[3]
        return None
