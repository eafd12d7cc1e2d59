"""GameState: plain data, cheap to copy.  Every change goes through an action
(runtime/engine.py); every die roll goes through ``roll`` and is logged, and
the same seed gives the same rolls."""
from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction

from .definition import Die, GameDefinition
from .hexes import Hex

try:  # (mypyc reads the mark where it compiles this module and those that import it from here: runtime/compiled.py)
    from mypy_extensions import mypyc_attr
except ImportError:  # (no mypy, so nothing compiled: the mark means nothing)
    def mypyc_attr(*_attrs, **_marks):  # type: ignore[no-redef,misc]
        return lambda cls: cls


TRAIL_KEPT = 256  # the longest trail: data carried from further back is worked out again


@dataclass(frozen=True, slots=True)
class Unit:
    """One counter in play.  Frozen: copies of a state share their units (a
    state copy copies the dict of units, not the units), so a unit is changed
    through its state (``place``, ``set_unit``, ``mark``, ``unmark``), which
    puts a new Unit in that state alone."""

    id: str  # the counter id
    side: str
    step: int = 0  # index into the counter's steps: 0 is full strength
    hex: Hex | None = None  # on the map, or None when in a box
    box: str = ""  # off the map: "pool:reserve", "turn:3", "eliminated", "removed"
    markers: frozenset[str] = frozenset()  # disrupted, out-of-supply, isolated, ...


@dataclass
class Roll:
    die: str
    result: int
    purpose: str


# slots: the fields are read everywhere in the engine's loops, and a slot is read quicker than an instance
# dict's entry (copy sets every field: a field it leaves out is missing from the copy)
@dataclass(slots=True)
class GameState:
    turn: int = 1
    phase: str = ""
    active: str = ""
    units: dict[str, Unit] = field(default_factory=dict)
    control: dict[Hex, str] = field(default_factory=dict)  # who last passed through each hex (3.4)
    vp: dict[str, int] = field(default_factory=dict)
    cup: list[str] = field(default_factory=list)  # chits in the cup
    hands: dict[str, list[str]] = field(default_factory=dict)  # chits held (Guderian)
    activated: set[str] = field(default_factory=set)  # units activated now
    # units that moved this activation or phase, and "UNIT@MODE" for each way it moved ("normal" for a
    # plain move), "UNIT@attack" after a move into an enemy hex (runtime.engine.mode_bars reads them)
    moved: set[str] = field(default_factory=set)
    # units that attacked this segment, "spent:RESOURCE:UNIT" for a battle option a unit provided, and
    # "retreated:UNIT" for a unit that retreated this segment (10.3(1)2)
    attacked: set[str] = field(default_factory=set)
    attacked_hexes: set[Hex] = field(default_factory=set)  # hexes attacked this segment
    pending: list[dict] = field(default_factory=list)  # decisions owed (losses, retreats, advances)
    seed: int = 0
    rng_state: tuple | None = None
    log: list[dict] = field(default_factory=list)
    occupants: dict[Hex, tuple[str, ...]] = field(default_factory=dict)  # index: hex -> unit ids, in arrival order
    version: int = 0  # bumped whenever a unit moves; caches key on it
    edits: int = 0  # bumped whenever a unit changes (place, set_unit, mark, unmark): ``fingerprint`` reads it
    pc: int = 0  # where the sequence of play stands (runtime/runner.py)
    step: dict = field(default_factory=dict)  # the current step's own data (a chit drawn, a decision owed)
    result: dict | None = None  # set when the game is over: winner, vp, turns
    lost: list[str] = field(default_factory=list)  # units eliminated, in order (a returned unit may recur)
    done: set[str] = field(default_factory=set)  # once-only triggers already run ("19A-arrival@3")
    control_since: dict = field(default_factory=dict)  # Hex -> turn it changed hands (+1/2: after that turn's supply check)
    rolled: dict[str, str] = field(default_factory=dict)  # die table -> the result of its latest roll
    attack_from: dict[str, Hex] = field(default_factory=dict)  # unit -> hex it attacked from (move-in attacks)
    # markers and neutral map objects (runtime/effects.py): {"kind", "hex" (Hex or None), "box", "value", "face"}
    markers: list[dict] = field(default_factory=list)
    variables: dict[str, object] = field(default_factory=dict)  # game counters and flags (``variable``)
    # effects under way, in order: {"key", "i", "why", "bound"} (+ "ask": a decision owed), runtime/effects.py
    effects: list[dict] = field(default_factory=list)
    # units that moved onto the map this activation (15.3(1)) -> the scaled MP their entry hex cost;
    # "UNIT@MODE" -> what it cost in a movement mode's own MP where that differs (GJ63 7.0(2): by road)
    entering: dict[str, int] = field(default_factory=dict)
    # host unit id -> the counters attached under it, in order (runtime/attachments.py); each of them has
    # no hex and the box "under:HOST".  Tuples, so that a copy copies the dict only
    attached: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # side -> how many times one of its units was placed (``place``, which bumps ``version`` too): derived
    # data that only one side's units decide (its ZOC, the hexes it holds) is cached on ``side_stamp``
    placed: dict[str, int] = field(default_factory=dict)
    cache: dict = field(default_factory=dict, repr=False, compare=False)  # derived data (ZOC...), never copied
    # the hexes whose occupants, control or move-in attacks changed, newest first: (hex, the trail before,
    # its length, whether its control changed), shared with copies (``touch``).  Derived data read from a
    # few hexes (a move range) is carried to later states (cache keys ("carried", ...)) and dropped only
    # where what it read of a hex changed
    trail: tuple | None = field(default=None, repr=False, compare=False)
    # set on a side's view of a state (runtime/observe.py): {"side", "unseen"}; None on a state, and on copies
    observed: dict | None = field(default=None, repr=False, compare=False)

    # ----------------------------------------------------------------- copy
    def copy(self) -> "GameState":
        s = type(self).__new__(type(self))  # (not through __init__: its defaults would be thrown away)
        # numbers, strings, the dice's state and the trail are shared; each container is copied with its
        # own copy(), the quickest way; what is empty most of the game is copied only when it is not
        s.turn, s.phase, s.active, s.seed, s.rng_state = self.turn, self.phase, self.active, self.seed, self.rng_state
        s.version, s.edits, s.pc, s.trail, s.observed = self.version, self.edits, self.pc, self.trail, None
        s.units = self.units.copy()
        s.control = self.control.copy()
        s.vp = self.vp.copy()
        s.cup = self.cup.copy()
        s.hands = {k: v.copy() for k, v in self.hands.items()} if self.hands else {}
        s.activated = self.activated.copy()
        s.moved = self.moved.copy()
        s.attacked = self.attacked.copy()
        s.attacked_hexes = self.attacked_hexes.copy()
        s.pending = [_plain_copy(p) for p in self.pending] if self.pending else []
        s.log = self.log.copy()
        s.occupants = self.occupants.copy()
        s.step = self.step.copy()
        s.result = self.result.copy() if self.result else None
        s.lost = self.lost.copy()
        s.done = self.done.copy()
        s.control_since = self.control_since.copy()
        s.rolled = self.rolled.copy()
        s.attack_from = self.attack_from.copy()
        s.markers = [m.copy() for m in self.markers] if self.markers else []
        s.variables = self.variables.copy()
        s.effects = [_plain_copy(e) for e in self.effects] if self.effects else []
        s.entering = self.entering.copy()
        s.attached = self.attached.copy()
        s.placed = self.placed.copy()
        # derived data keyed on the version stays valid until a unit moves, data keyed on a side's
        # stamp until one of that side's units moves, carried data until a hex it read changes (it is
        # checked against the trail when read); facts fixed at set-up (string keys) always do
        v, placed = self.version, self.placed
        kept: dict = {}
        for k, x in self.cache.items():
            if type(k) is tuple:
                last = k[-1]
                if last == v or (type(last) is tuple and len(last) == 3 and last[0] == "placed"
                                     and placed.get(last[1], 0) == last[2]) or k[0] == "carried":
                    kept[k] = x
            elif isinstance(k, str):
                kept[k] = x
        s.cache = kept
        return s

    def side_stamp(self, side: str) -> tuple:
        """A cache key's last element for data that only ``side``'s units
        decide (where they stand): it changes when one of them is placed."""
        return ("placed", side, self.placed.get(side, 0))

    # ------------------------------------------------------------ placement
    def units_at(self, h: Hex) -> list[Unit]:
        return [self.units[i] for i in self.occupants.get(h, ())]

    def side_at(self, h: Hex) -> str | None:
        ids = self.occupants.get(h)
        return self.units[ids[0]].side if ids else None

    def place(self, unit_id: str, h: Hex | None, box: str = "") -> Unit:
        """Put a unit in a hex, or (h None) into a box.  Keeps the index.
        Returns the unit as it is now."""
        u = self.units[unit_id]
        occupants = self.occupants
        if u.hex is not None:
            ids = occupants.get(u.hex)
            if ids and unit_id in ids:
                rest = tuple(x for x in ids if x != unit_id)
                if rest:
                    occupants[u.hex] = rest
                else:
                    del occupants[u.hex]
            self.touch(u.hex)
        u = self.units[unit_id] = Unit(u.id, u.side, u.step, h, "" if h is not None else box, u.markers)
        if h is not None:
            occupants[h] = occupants.get(h, ()) + (unit_id,)
            self.touch(h)
        self.version += 1
        self.edits += 1
        self.placed[u.side] = self.placed.get(u.side, 0) + 1
        return u

    def touch(self, h: Hex, control: bool = False) -> None:
        """Note on the trail that what ``h`` holds changed: its occupants
        (``place`` notes both ends of a move) or the move-in attacks made
        into it, or (``control``) who controls it.  Whoever changes its
        control or an attack's record without placing a unit there says so
        here."""
        t = self.trail
        if t is None or t[2] >= TRAIL_KEPT:  # a new trail: data carried from before it is dropped
            self.trail = (h, None, 1, control)
        else:
            self.trail = (h, t, t[2] + 1, control)

    def set_unit(self, unit_id: str, **changes) -> Unit:
        """Change a unit's step, box or markers (its hex: ``place``).
        Returns the unit as it is now."""
        if "hex" in changes:
            raise ValueError("a unit's hex changes through place(), which keeps the index")
        u = self.units[unit_id] = replace(self.units[unit_id], **changes)
        self.edits += 1
        return u

    def mark(self, unit_id: str, marker: str) -> None:
        """Give a unit a marker (no change if it has it)."""
        u = self.units[unit_id]
        if marker not in u.markers:
            self.units[unit_id] = Unit(u.id, u.side, u.step, u.hex, u.box, u.markers | {marker})
            self.edits += 1

    def unmark(self, unit_id: str, marker: str) -> None:
        """Take a marker off a unit (no change if it has none)."""
        u = self.units[unit_id]
        if marker in u.markers:
            self.units[unit_id] = Unit(u.id, u.side, u.step, u.hex, u.box, u.markers - {marker})
            self.edits += 1

    def on_map(self, side: str | None = None) -> list[Unit]:
        return [u for u in self.units.values() if u.hex is not None and (side is None or u.side == side)]

    # ----------------------------------------------------------------- dice
    def rng(self) -> random.Random:
        if self.rng_state is None:
            return random.Random(self.seed)
        r = random.Random.__new__(random.Random)  # not seeded twice: its state is set next
        r.setstate(self.rng_state)
        return r

    def roll(self, die: Die, purpose: str) -> int:
        """Roll a die: the only source of chance (unless the dice are
        loaded: ``LOADED_DICE``).  Logged."""
        loaded = LOADED_DICE
        total = loaded(self, die, purpose) if loaded is not None else None
        if total is None:
            r = self.rng()
            total = sum(r.randint(1, die.sides) for _ in range(die.count))
            self.rng_state = r.getstate()
        self.log.append({"roll": die.name, "result": total, "for": purpose})
        return total


# Loaded dice, for a test that needs a roll's result (a CRT's row, a bombing's hits): None, or a function
# (state, die, what the roll is for) -> the total to take instead of rolling, or None to roll (the
# generator is then drawn as it would be).  A module variable a test sets, not a method it patches:
# GameState is compiled (runtime/compiled.py), and compiled code calls its methods directly.
LOADED_DICE: Callable[[GameState, Die, str], int | None] | None = None


def fingerprint(s: GameState) -> tuple:
    """What changes when a state is changed in place (an action applied to it
    by the runner's own procedures, or a test's edit): a list of legal actions
    kept for ``s`` is not reused after any of it changes."""
    return (s.version, s.edits, s.pc, s.turn, s.phase, s.active, len(s.log), len(s.pending), len(s.effects),
            len(s.activated), len(s.moved), len(s.attacked), len(s.done), len(s.cup), s.result is None)


def _refuse(self, *args, **kwargs):
    raise TypeError("a Frozen dict is never changed")


@mypyc_attr(native_class=False)  # (a dict subclass: an ordinary class, where compiled)
class Frozen(dict):
    """A dict of plain data that is never changed once made, nor what it
    holds (what each side fired in a battle, which the log holds too): the
    copies of a state share it (``_plain_copy``) instead of copying it."""

    __slots__ = ()

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __reduce__(self):  # (copied and pickled as made, not item by item)
        return Frozen, (dict(self),)


_IMMUTABLE = frozenset({str, int, bool, float, type(None), Hex, Fraction, frozenset, Frozen})


def _plain_copy(x):
    """A deep copy of plain data (dicts, lists and sets of strings, numbers,
    hexes, tuples of them): what a pending decision or an effect under way
    holds.  Much cheaper than copy.deepcopy, which it falls back on for
    anything else."""
    t = type(x)
    if t in _IMMUTABLE:
        return x
    imm = _IMMUTABLE  # (the values that are not copied are tested here, without a call each)
    if t is dict:
        return {k: v if type(v) in imm else _plain_copy(v) for k, v in x.items()}
    if t is list:
        return [v if type(v) in imm else _plain_copy(v) for v in x]
    if t is tuple:
        return tuple([v if type(v) in imm else _plain_copy(v) for v in x])
    if t is set:
        return {v if type(v) in imm else _plain_copy(v) for v in x}
    return copy.deepcopy(x)


def eliminate(game: GameDefinition, state: GameState, unit_id: str, how: str = "combat") -> str:
    """Take a unit off the map for good or back to a pool, as the game says:
    combat losses may return as reinforcements (Smolensk 12.3(1): Soviet
    non-mechanized units and HQs), units lost to supply never do (12.3(2)).
    Returns the box it went to."""
    u = state.units[unit_id]
    box = "removed" if how == "supply" else "eliminated"
    for side, selectors, pool, losses, marker in game.reinforcements.returns:
        if marker is not None and (marker[1] in u.markers) != (marker[0] == "marked"):
            continue  # AVD 5 f i: 'unmarked isolated', an isolated unit does not come back
        if how in losses and side in (u.side, "all") and game.matches(unit_id, selectors):
            box = f"pool:{pool}"
            break
    state.set_unit(unit_id, step=0 if box.startswith("pool:") else u.step, markers=frozenset())
    if unit_id in state.attached:  # what it carried goes where its kind says (GJ63 13.0(3))
        from .attachments import release
        release(game, state, unit_id, f"{unit_id} eliminated")
    state.attack_from.pop(unit_id, None)
    state.place(unit_id, None, box)
    state.lost.append(unit_id)
    return box


def new_state(game: GameDefinition, seed: int = 0) -> GameState:
    """An empty state for a game: every counter in the removed box."""
    s = GameState(seed=seed)
    for cid, c in game.counters.items():
        s.units[cid] = Unit(cid, c.side, 0, None, "removed")
    s.vp = {side: 0 for side in game.sides}
    s.variables = {v.id: v.initial for v in game.variables.values()}
    return s
