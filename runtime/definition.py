"""GameDefinition: the immutable, validated model of a game's rules.

The compiler in ``dsl/`` builds it from game files; the runtime reads it and
never sees syntax.  Everything here is frozen; mappings are exposed as
read-only ``MappingProxyType``s built by the compiler.  Each definition keeps
``where`` ("file:line") so the runtime can say where a rule came from.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from .expr import Expr
from .hexes import Grid, Hex, Hexside

FrozenMap = Mapping  # read-only mappings (MappingProxyType) at run time


def frozen_map(d: dict) -> Mapping:
    return MappingProxyType(dict(d))


# ---------------------------------------------------------------- basics

@dataclass(frozen=True, slots=True)
class Die:
    """A die or dice sum: ``d6`` (1 x 6), ``d10``, ``2d6`` (2 x 6)."""

    name: str
    count: int
    sides: int

    @property
    def low(self) -> int:
        return self.count

    @property
    def high(self) -> int:
        return self.count * self.sides

    def distribution(self) -> dict[int, Fraction]:
        """Exact probability of each total."""
        return dict(_totals(self.count, self.sides))


@lru_cache(maxsize=None)
def _totals(count: int, sides: int) -> tuple[tuple[int, Fraction], ...]:
    """(total, probability) of ``count`` dice of ``sides`` faces, computed once per kind of die."""
    dist = {0: Fraction(1)}
    for _ in range(count):
        nxt: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + p / sides
        dist = nxt
    return tuple(dist.items())


@dataclass(frozen=True, slots=True)
class GameInfo:
    id: str
    title: str
    series: str = ""
    designer: str = ""
    publisher: str = ""
    year: str = ""
    scale: str = ""
    notes: tuple[str, ...] = ()
    rounding: str = "down"  # how "1/2" is rounded everywhere in the game
    where: str = ""


@dataclass(frozen=True, slots=True)
class Side:
    id: str
    title: str
    colour: str
    text_colour: str = "#000000"
    supply_edges: tuple[str, ...] = ()  # map edges the side traces supply to
    where: str = ""


@dataclass(frozen=True, slots=True)
class Nationality:
    id: str
    title: str
    side: str
    colour: str
    text_colour: str = "#000000"
    where: str = ""


@dataclass(frozen=True, slots=True)
class UnitClass:
    """A kind of unit: its NATO symbol, which factors its counters print
    (in printed order) and its flags (mechanized, hq, ...)."""

    id: str
    title: str
    symbol: str
    factors: tuple[str, ...]
    flags: frozenset[str] = frozenset()
    size: str = ""
    where: str = ""

    def has(self, flag: str) -> bool:
        return flag in self.flags


@dataclass(frozen=True, slots=True)
class Counter:
    """One counter of the counter sheet.  ``steps[0]`` is the full-strength
    side; a single-step counter has one entry.  Factors are keyed by the
    class's factor names."""

    id: str
    name: str
    side: str
    nationality: str
    unit_class: str
    steps: tuple[Mapping[str, int], ...]
    formation: str = ""  # army / front / corps the counter belongs to
    arrives: str = ""  # "" (setup), "turn:N", "pool:ID", ...
    tags: frozenset[str] = frozenset()
    where: str = ""
    front: str = ""  # art for the counter's faces: image paths relative to the game folder (editor, render)
    back: str = ""

    def factor(self, name: str, step: int = 0) -> int:
        return self.steps[step][name]


# ---------------------------------------------------------------- terrain

TERRAIN_KINDS = ("terrain", "feature", "hexside", "link")


@dataclass(frozen=True, slots=True)
class Terrain:
    """Hex terrain, a hex feature (town, city), a hexside (river) or a link
    (road, rail) that runs from hex to hex across a hexside."""

    id: str
    title: str
    kind: str  # one of TERRAIN_KINDS
    colour: str = "#cccccc"
    pattern: str = ""
    where: str = ""
    side: str = ""  # a feature that belongs to a side: its chart effects count for that side's stacks only (17.2(2))


@dataclass(frozen=True, slots=True)
class Cost:
    """A terrain effects chart cell for movement.

    kind: ``set`` (costs ``value`` MP), ``add`` (+value on top), ``all`` (all
    of the unit's MP), ``no`` (prohibited), ``inherit`` (other terrain in the
    hex applies: printed ``-``)."""

    kind: str
    value: Fraction = Fraction(0)

    def __str__(self) -> str:
        if self.kind == "set":
            return str(self.value)
        if self.kind == "add":
            return f"+{self.value}"
        return {"all": "all", "no": "no", "inherit": "-"}[self.kind]


@dataclass(frozen=True, slots=True)
class TerrainEffect:
    """One row of the terrain effects chart."""

    terrain: str
    move: tuple[tuple[str, Cost], ...] = ()  # (unit selector, cost) in chart order
    left_shifts: int | None = None  # combat column shifts toward the defender
    shifts_add: bool = False  # "+1": adds to the hex terrain's shifts
    attack: str = ""  # "half": attack strength halved across it / into it
    advance: int | None = None  # advance after combat stops after this many hexes
    zoc_to_zoc: bool = True  # may cross it from enemy ZOC to enemy ZOC
    combat_prohibited: bool = False
    defence: Fraction | None = None  # a multiplier on defence, where a game has one
    values: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))  # other columns, as written
    # movement-mode columns (``forced-march``, ``strategic:tank-army``): mode -> (selector, cost) in chart order
    modes: Mapping[str, tuple[tuple[str, Cost], ...]] = field(default_factory=lambda: frozen_map({}))
    where: str = ""
    zoc_to_zoc_bridged: bool = True  # zoc-to-zoc no: a bridge allows it; never: not even a bridge (AVD)

    def cost_for(self, flags: frozenset[str], unit_class: str, mode: str = "") -> Cost:
        """The first matching column that says something ("-" falls through
        to the next matching column).  For a movement mode, its own columns
        come first, then the movement columns."""
        columns = (self.modes.get(mode, ()) + self.move) if mode else self.move
        for selector, cost in columns:
            if cost.kind != "inherit" and (selector in ("all", "other") or selector == unit_class or selector in flags):
                return cost
        return Cost("inherit")

    def mode_cost(self, flags: frozenset[str], unit_class: str, mode: str) -> Cost:
        """The cell of the mode's own columns alone ("inherit" when they say nothing)."""
        for selector, cost in self.modes.get(mode, ()):
            if cost.kind != "inherit" and (selector in ("all", "other") or selector == unit_class or selector in flags):
                return cost
        return Cost("inherit")


@dataclass(frozen=True, slots=True)
class TerrainChart:
    effects: Mapping[str, TerrainEffect]
    bridging_links: frozenset[str] = frozenset()  # links that bridge the hexsides they cross
    adjacent_cities_linked: tuple[str, ...] = ()  # link kinds assumed between adjacent cities
    where: str = ""


# ---------------------------------------------------------------- tables

@dataclass(frozen=True, slots=True)
class ResultCode:
    """What a combat result code does, defined once per game."""

    code: str
    attacker_loss: int = 0
    defender_loss: int = 0
    attacker_retreat: int = 0
    defender_retreat: int = 0
    exchange: bool = False
    special: str = ""
    title: str = ""
    where: str = ""

    @property
    def no_effect(self) -> bool:
        return not (self.attacker_loss or self.defender_loss or self.attacker_retreat
                    or self.defender_retreat or self.exchange or self.special)


@dataclass(frozen=True, slots=True)
class CrtColumn:
    """A CRT column as printed.  Odds: ``ratio`` (1.5-1 → 3/2); differential:
    ``ratio`` holds the difference.  ``open_ended`` for "10+"."""

    label: str
    ratio: Fraction
    open_ended: bool = False


@dataclass(frozen=True, slots=True)
class Crt:
    id: str
    title: str
    method: str  # "odds" | "differential"
    results: str  # id of the ResultCode set
    dice: Mapping[str, str]  # side id (or "*") -> die name
    columns: tuple[CrtColumn, ...]
    rows: Mapping[int, tuple[str, ...]]  # die total -> result code per column
    rounding: str = "down"  # odds: down (toward the defender) | nearest | up
    clamp: str = "before-shifts"  # apply the highest column before or after shifts
    below_lowest: str = "no-attack"  # | "lowest"
    above_highest: str = "highest"
    where: str = ""

    def die_for(self, side: str) -> str:
        return self.dice.get(side) or self.dice["*"]


@dataclass(frozen=True, slots=True)
class DieTable:
    """A generic die table: die total (rows, possibly ranges) against either
    named output columns or ranges of an input value (2-D tables)."""

    id: str
    title: str
    die: str
    row_ranges: tuple[tuple[int, int | None], ...]  # (low, high or None for "6+")
    columns: tuple[str, ...]  # output names, or input ranges as printed ("1-7")
    column_ranges: tuple[tuple[int, int | None], ...] | None  # set when the table is 2-D
    cells: tuple[tuple[str, ...], ...]
    modifiers: tuple["Modifier", ...] = ()
    where: str = ""
    input: Expr | None = None  # a 2-D table's column: the value looked up (``input = EXPR``)
    results: frozenset[str] = frozenset()  # codes with effects (``on CODE { ... }``): "table:ID:CODE" in effects

    def row_for(self, total: int) -> int | None:
        for i, (lo, hi) in enumerate(self.row_ranges):
            if total >= lo and (hi is None or total <= hi):
                return i
        return None

    def column_for(self, value: int) -> int | None:
        if self.column_ranges is None:
            return None
        for i, (lo, hi) in enumerate(self.column_ranges):
            if value >= lo and (hi is None or value <= hi):
                return i
        return None


@dataclass(frozen=True, slots=True)
class Modifier:
    """A value added under a condition, e.g. a die roll modifier or a
    firepower modifier: ``modifier defender +1 when ...``."""

    target: str
    amount: Expr
    condition: Expr | None = None
    title: str = ""
    where: str = ""


# ---------------------------------------------------------------- time

@dataclass(frozen=True, slots=True)
class Turn:
    number: int
    date: str = ""
    values: Mapping[str, object] = field(default_factory=lambda: frozen_map({}))
    where: str = ""


@dataclass(frozen=True, slots=True)
class TurnTrack:
    turns: tuple[Turn, ...]
    columns: tuple[str, ...]

    def turn(self, n: int) -> Turn:
        for t in self.turns:
            if t.number == n:
                return t
        raise KeyError(n)


@dataclass(frozen=True, slots=True)
class Weather:
    id: str
    title: str
    where: str = ""


@dataclass(frozen=True, slots=True)
class Chit:
    """A command chit.  kind: hq | reserve | reinforcements | supply |
    interrupt.  ``hq`` is the HQ counter it activates (``any_hq``: one its
    side chooses)."""

    id: str
    title: str
    side: str  # a side id, or "both"
    kind: str
    hq: str = ""
    count: int = 1
    available: int = 1  # first turn the chit may be chosen
    always: bool = False  # always goes in the cup (SUPPLY)
    pick: bool = False  # selectable only once its side has picked it (15.2(2)5), SIDE.new-chits a turn
    where: str = ""
    any_hq: bool = False  # hq "any": its side chooses which of its HQs on the map activates
    command: tuple[str, ...] = ("range",)  # whom the HQ activates: "range" (command range), "chain" (command chain)
    needs_hq: bool = False  # available (chosen for the cup, or put in it) only while its HQ is on the map
    units: frozenset[str] = frozenset()  # unit selectors its HQ's command range activates (empty: every unit)


@dataclass(frozen=True, slots=True)
class ChitCount:
    """``chits { per-turn SIDE = EXPRESSION when CONDITION }``: how many chits
    the side chooses while the condition holds, instead of the turn track's
    ``SIDE.chits`` (AVD turn 8: "3/5", 5 under Objective Moscow!)."""

    side: str
    amount: object  # an expression
    condition: object | None = None
    where: str = ""


@dataclass(frozen=True, slots=True)
class Pool:
    """An off-map holding box: reserve pool, available reinforcements,
    transfer box, eliminated units...  ``kind``: ``box`` (open: anybody may
    look and take), ``cup`` (counters are drawn from it at random, never
    picked; nobody sees what is in it, only how many) or ``hand`` (its side's
    counters, unseen by the other side: a support pool)."""

    id: str
    title: str
    side: str = ""
    where: str = ""
    kind: str = "box"  # box | cup | hand


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    title: str
    text: str = ""
    where: str = ""


@dataclass(frozen=True, slots=True)
class Phase:
    """A node of the sequence of play.  kind: ``phase`` (runs its
    procedure), ``player-turn`` (its phases, for one side), ``chit-loop``
    (draw a chit and run its phases until the cup is empty), ``segment``."""

    id: str
    title: str
    kind: str
    procedure: str = ""
    side: str = ""
    params: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: frozen_map({}))
    condition: Expr | None = None
    children: tuple["Phase", ...] = ()
    where: str = ""


@dataclass(frozen=True, slots=True)
class VictoryRule:
    """``award SIDE AMOUNT when COND`` / ``win SIDE when COND`` / ``end when
    COND``: evaluated by the runtime at the checkpoints the rule names."""

    kind: str  # award | win | end
    side: str
    amount: Expr | None
    condition: Expr | None
    at: str = ""  # checkpoint: "end", "supply", "turn-end", ...
    title: str = ""
    where: str = ""


# ---------------------------------------------------------------- mechanisms
# The parameters with which a game selects and tunes the engine's general
# mechanisms.  Selectors name unit classes or class flags ("mechanized").


@dataclass(frozen=True, slots=True)
class MovementMode:
    """A way of moving other than normal movement: Smolensk's march mode
    (half cost along roads, never in enemy ZOC), AVD's strategic movement
    (1/3 MP per road hex), Prokhorovka's strategic move (double MP)."""

    id: str
    title: str
    along: frozenset[str] = frozenset()  # every step along one of these links
    cost: Fraction | None = None  # MP per hex along the links
    multiplier: Fraction = Fraction(1)  # of the unit's MP
    no_enemy_zoc: bool = False  # may not start in or enter enemy ZOC
    no_attack: frozenset[str] = frozenset()  # selectors that may not attack with it ("all": nobody)
    only: frozenset[str] = frozenset()  # selectors allowed to use it (empty: all)
    barred: frozenset[str] = frozenset()  # markers that bar a unit from it (16.2(2): out of command)
    points: int | None = None  # a fixed allowance (hexes or MP) instead of the unit's MP
    follows: bool = False  # continues a normal move of the same phase (forced march, Barbarossa 6.2)
    excluded: frozenset[str] = frozenset()  # selectors that may never use it
    # (selectors, condition, title): barred while the condition holds; ``side`` is the unit's side
    forbid: tuple[tuple[frozenset[str], Expr, str], ...] = ()
    # (marker, selectors, condition or None): markers a unit gets for using it (strategic move: disrupted)
    marks: tuple[tuple[str, frozenset[str], Expr | None], ...] = ()
    own_control: bool = False  # every hex entered must be controlled by the moving side
    where: str = ""
    avoid: frozenset[str] = frozenset()  # terrain and features whose hexes the mode never enters (AVD: VP stars)


@dataclass(frozen=True, slots=True)
class MovementRules:
    points: str = "move"  # the factor holding MP, or a whole number for every unit
    modes: tuple[MovementMode, ...] = ()
    where: str = ""
    # overrun (AVD 4 e-f): a unit matching ``overrun_by`` may enter a hex whose only
    # occupants are enemy units matching ``overrun``; they are displaced at least
    # ``displace`` hexes toward their own supply, to a hex in supply outside enemy
    # ZOC, or eliminated (runtime.overrun)
    overrun: frozenset[str] = frozenset()
    overrun_by: frozenset[str] = frozenset()
    displace: int = 0
    # (area, pool, selectors): a unit the selectors name, in a hex of the area with
    # at least 1 MP left, may move on off the map into the pool (a box: AVD 移动 1 d,
    # the Minsk Pocket): ``move UNIT POOL``
    exits: tuple[tuple[str, str, frozenset[str]], ...] = ()
    # (pool, condition): the box is entered that way only while the condition holds
    # (``exit ... when CONDITION``: AVD, the Minsk Pocket until it is cleared on turn 4)
    exit_when: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class ZocRules:
    """Zones of control.  ``enter``/``leave`` are extra MP, or "stop" (the
    move ends on entering).  ``zoc_to_zoc``: "allowed", "adjacent" (may step
    from one enemy ZOC hex to an adjacent one and stop) or "no"."""

    exists: bool = True
    exempt: frozenset[str] = frozenset()  # selectors that exert no ZOC
    enter: str = "0"
    leave: str = "0"
    zoc_to_zoc: str = "allowed"
    not_into: frozenset[str] = frozenset()  # terrain a ZOC does not extend into
    negated_by: frozenset[str] = frozenset()  # selectors whose hex ignores enemy ZOC (fortress)
    where: str = ""


@dataclass(frozen=True, slots=True)
class SupplyRules:
    """Lines of communication: what blocks them and what being cut costs."""

    blocked_by_enemy_units: bool = True
    blocked_by_enemy_zoc: bool = True
    friendly_negates_zoc: bool = True
    impassable: frozenset[str] = frozenset()  # terrain a line may not enter
    impassable_unless: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))  # terrain -> link
    blocking_hexsides: frozenset[str] = frozenset()  # unbridged hexsides a line may not cross
    rail: Mapping[str, int] = field(default_factory=lambda: frozen_map({}))  # side -> hexes beyond rail
    rail_link: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))  # side -> the link traced (rail)
    range: Mapping[str, int] = field(default_factory=lambda: frozen_map({}))  # side -> max length
    consequence: str = "out-of-supply"  # lose-step | out-of-supply | isolated | disrupt | eliminate
    exempt: frozenset[str] = frozenset()  # selectors a supply check never harms (a fortress, 14.2(4))
    order: tuple[str, ...] = ()  # sides in the order their supply is checked (11.1(2): Soviets first)
    skip: tuple[tuple[str, Expr], ...] = ()  # (side, condition): the side skips the check (15.1(4))
    transfer: str = ""  # a pool units in supply may be withdrawn to after the check (11.2); "" for none
    # marker -> what it halves ("attack", "defence", "move"): AVD's OOS halves attack,
    # isolated halves attack, defence and movement
    marker_halves: Mapping[str, frozenset[str]] = field(default_factory=lambda: frozen_map({}))
    blocked_by_enemy_control: bool = False  # lines run only through hexes the side controls (Barbarossa 9.0)
    # (selectors, consequence): a consequence for some units, before the general one (9.0: German units disrupt)
    consequences: tuple[tuple[frozenset[str], str], ...] = ()
    city_supply: frozenset[str] = frozenset()  # sides whose units in a VP hex are supplied, up to its VP (9.0)
    # a side's sources are closed to the enemy: its stacks never enter them, its ZOC never extends
    # into them (GJ63 2.2.1 5: runtime.supply.closed_to)
    closed_sources: bool = False
    # a line may end in a hex of enemy ZOC that no friendly unit negates (Gekitou 3.3(1): "but it can enter
    # enemy ZOC"); False: a place there is not reached (GJ63 3.2(1) has no such clause: a VP hex next to an
    # enemy unit is not supplied, 18.0(1)).  A unit's own hex is its own: the friendly unit negates the ZOC
    ends_in_zoc: bool = True
    where: str = ""

    def consequence_for(self, unit_selectors: frozenset[str]) -> str:
        """The consequence for a unit, given everything it matches (class, flags, nationality)."""
        for sel, cons in self.consequences:
            if sel & unit_selectors or "all" in sel:
                return cons
        return self.consequence

    def halves(self, markers, what: str) -> list[str]:
        """The markers among ``markers`` that halve ``what``."""
        return sorted(m for m in markers if what in self.marker_halves.get(m, ()))


@dataclass(frozen=True, slots=True)
class RetreatRules:
    toward: str = "supply"  # supply (each hex nearer) | supply-line (nearer along the lines open now: Smolensk
    # 10.6(6)) | supply-first (nearer preferred: AVD 6 h) | own-edge | away
    destroyed_into: frozenset[str] = frozenset()  # terrain ids, "off-map", "prohibited"
    enemy_zoc: str = "lose-step"  # lose-step | destroyed | allowed
    second_hex_across: frozenset[str] = frozenset()  # unbridged hexsides that destroy a 2nd-hex retreat
    overstack: str = "extend"  # extend | destroyed
    # a defending hex holding one of these may take a step loss per retreat hex
    # instead of retreating (Smolensk 14.2(5): a fortress turns R into 1, RR into 2)
    hold_with: frozenset[str] = frozenset()
    into: str = ""  # "own-control": one hex, into a hex the side controls (Barbarossa 7.2 C)
    where: str = ""
    # False: units that retreated into a hex add no defence there for the rest of the combat
    # segment (Smolensk 10.3(1)2)
    retreated_defend: bool = True
    # units that never retreat: each retreat hex costs them a step instead, and
    # the units stacked with them stay while one of them lives (AVD 6 k)
    stand: frozenset[str] = frozenset()
    # units that lose nothing entering an enemy-ZOC hex that holds friendly
    # units (AVD 6 g ii: German motorized units)
    zoc_free_with_friends: frozenset[str] = frozenset()
    # units that do not retreat on their own: each follows the retreat of a
    # unit it stacked with (its owner picks which); left alone it is displaced
    # as an overrun unit is (AVD 6 c, j: HQs)
    follows: frozenset[str] = frozenset()
    # a retreat may overrun as a move does (movement { overrun ... }), when the
    # unit survives its ZOC losses (AVD 6 f)
    overrun: bool = False
    # hexsides a retreat never crosses, even bridged, when the hex it starts
    # from and the hex it ends in are both in enemy ZOC (AVD 6 e: a major river)
    zoc_to_zoc_across: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class AdvanceRules:
    hexes: tuple[tuple[str, int], ...] = (("all", 1),)  # (selector, hexes) in order
    ignores_zoc: bool = True
    where: str = ""
    # hexsides an advance crosses unbridged only on its first hex, and stops
    # there (AVD 7 iii: an unbridged major river)
    first_hex_across: frozenset[str] = frozenset()
    # units that may advance with a unit that leaves their hex, along its path
    # (AVD 7 iv: HQs)
    follows: frozenset[str] = frozenset()
    # an advance may overrun as a move does (movement { overrun ... }) (AVD 7 v)
    overrun: bool = False

    def hexes_for(self, flags: frozenset[str], unit_class: str) -> int:
        for sel, n in self.hexes:
            if sel in ("all", "other") or sel == unit_class or sel in flags:
                return n
        return 0


@dataclass(frozen=True, slots=True)
class ActivationRules:
    """Chit-pull activation (Smolensk 8.0): an HQ activates the friendly
    combat units within its command range, counted in hexes."""

    range_factor: str = "command"  # the HQ factor holding its command range
    same_nationality: frozenset[str] = frozenset()  # sides whose HQs activate only their own nationality (8.3)
    hq_activates_hq: bool = False  # 8.1(4): HQs do not activate HQs
    max_mechanized: int | None = None  # 16.6: at most this many mechanized units per HQ activation
    where: str = ""
    chain: int = 0  # command chain: units linked to their HQ by steps of at most this many hexes
    chain_units: frozenset[str] = frozenset()  # unit selectors of the units a command chain links
    # ``per TAGS`` (AVD 抽取 3 d): a chain per tag, from a unit of that tag its side picks (the tag's
    # "commander"), linking units of the tag; without: one chain from the HQ
    chain_groups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ReinforcementRules:
    """Where reinforcements come from and where they may be placed (12.0)."""

    pools: tuple[str, ...] = ("available",)  # boxes reinforcements are taken from
    enter: str = "supplied"  # rail: a rail hex traced by rail to an own source | supplied: any supplied hex
    not_in: frozenset[str] = frozenset()  # enemy-zoc, enemy-cities
    # (side, selectors, pool, losses, marker): units eliminated in combat (or, with
    # "supply" in losses, to supply) that come back as reinforcements
    # (12.3(1), 13.0(3)); others stay eliminated.  marker: None, or ("marked" |
    # "unmarked", MARKER): only units that carry / do not carry that unit marker
    # as they are lost (AVD 攻击 5 f i: an isolated Soviet unit is out of the game)
    returns: tuple[tuple[str, frozenset[str], str, frozenset[str], tuple[str, str] | None], ...] = ()
    where: str = ""
    # point-buy (AVD 5 c-e): with costs, the turn track's SIDE.reinforcements is points;
    # (selectors, points) per unit, the first line that matches (1 without one)
    costs: tuple[tuple[frozenset[str], int], ...] = ()
    chit_cost: int | None = None  # points to put the chit of an HQ of the side on the map into the cup
    # where units may be placed: ("marker", KIND, selectors) hexes holding such a marker, ("hq", "", selectors)
    # a friendly HQ's hex, ("next-to-hq", "", selectors) beside one and outside enemy ZOC; empty selectors:
    # every unit.  Always a supplied hex.  Without lines: every entry hex (``enter``)
    at: tuple[tuple[str, str, frozenset[str]], ...] = ()
    per_hq: tuple[frozenset[str], int] | None = None  # at most N units matching, at or beside one HQ, per placement
    order: tuple[str, ...] = ()  # the sides in turn, for a reinforcements chit of both sides


@dataclass(frozen=True, slots=True)
class Arrival:
    """Units that enter the map when a chit is drawn (Smolensk 15.3(1): 19A
    on turn 3; 15.4: the strategic reserve from turn 6), at entry hexes."""

    id: str
    title: str
    side: str
    formation: str = ""  # the units of this formation...
    pools: tuple[str, ...] = ()  # ...or any of the side's units waiting in these pools
    on_chit: str = ""
    first: int = 1
    last: int = 999
    count: str = "all"  # "all", a number, or a turn-track column
    hexes: frozenset = frozenset()  # entry hexes (Hex)
    traced: bool = False  # an entry hex must trace a line of communication
    where: str = ""
    # the units move onto the map (15.3(1)): the entry hex's cost comes off their MP for that activation
    move_on: bool = False
    # movement modes the units move onto the map by, as they arrive (AVD 5 f iii: strategic movement
    # by road at 1/3 MP, full MP from the entry hex): each unit the first mode whose ``only`` takes it
    move_by: tuple[str, ...] = ()
    # the arrival comes after the chit's own (point-buy) reinforcements, not before them
    # (AVD 5 b: the Soviets buy first, then the Germans enter)
    after_reinforcements: bool = False
    # the units are placed where the game's reinforcements block places bought ones, at no cost,
    # instead of at entry hexes (AVD 5 h ii: escaped Soviet units "遵循苏军增援规则进场")
    as_reinforcements: bool = False
    # the units that arrive are activated: their side moves and fights with them in the chit's
    # movement and combat segment (AVD 5 a ii: Timoshenko's reinforcements)
    activate: bool = False


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """Units a side must take off the map (Smolensk 15.3(2): mechanized units
    totalling 18 attack on turn 6's supply check).  They do not count as lost."""

    id: str
    title: str
    side: str
    selectors: frozenset[str]
    factor: str
    total: int
    on_chit: str
    first: int = 1
    last: int = 999
    where: str = ""


@dataclass(frozen=True, slots=True)
class HexsideLimit:
    """6.3-style limits on attacking across one hexside: at most ``total``
    units of ``side``, and at most N of each selector."""

    side: str
    total: int
    per: tuple[tuple[str, int], ...] = ()  # (selector, most)
    where: str = ""


@dataclass(frozen=True, slots=True)
class CombatRules:
    procedure: str = "odds"  # odds | firepower | dice-pool
    crt: str = ""
    attack: str = "adjacent"  # adjacent: declared against an adjacent hex | move-in: by moving into it
    limits: tuple[HexsideLimit, ...] = ()  # per-hexside attack limits (move-in)
    factor: str = "strength"  # firepower: the factor each undisrupted unit fires with
    disrupted_back: bool = False  # firepower: disrupted attackers go back before the outcome (Barbarossa 7.2)
    where: str = ""
    # units that never take a step loss from a combat result: the others take them (AVD 5 f: losses are
    # combat strength, which an HQ has none of; 5 f iv: an HQ the losses leave alone is displaced)
    no_losses: frozenset[str] = frozenset()
    # units that cannot be attacked: a hex holding only such units is the target of no attack and no
    # fire attack (AVD 攻击 1 a: "不能攻击敌方 HQ"; a lone HQ is overrun by a move instead, 移动 4 e)
    not_attacked: frozenset[str] = frozenset()
    # odds: every attack of a combat segment is declared before the first is rolled, then the
    # attacker fights them in the order it chooses (``declare-first``: Smolensk 10.2(1))
    declare_first: bool = False

    def limit_for(self, side: str) -> HexsideLimit | None:
        for x in self.limits:  # (a loop, not next() over a generator: asked for every move into an enemy hex)
            if x.side == side:
                return x
        return None


@dataclass(frozen=True, slots=True)
class BattleOption:
    """Something a side may add to one battle or attack before the fire or
    the roll: an air strike, air support, a desperate effort, a once-per-game
    artillery (firepower), a Stuka (a CRT's column shift).

    ``by``: unit selectors that provide it (each unit provides one option per
    combat phase); empty: the side itself.  ``within``: how far the provider
    may be from the battle hex.  ``adds``: (own, enemy) firepower; ``roll``: a
    die table whose ``own`` / ``enemy`` columns give them instead."""

    id: str
    title: str
    side: str  # a side id, attacker, defender or both
    condition: Expr | None = None  # ``side`` is the side using it
    by: frozenset[str] = frozenset()
    not_marked: frozenset[str] = frozenset()  # markers that keep a unit from providing it
    within: int = 0
    adds: tuple[int, int] = (0, 0)
    roll: str = ""
    per_game: int | None = None
    uses: str = ""  # what a provider spends, once per combat phase (air options share "air"); "" = the option id
    shift: int = 0  # CRT combat: columns in the user's favour (the attacker's right, the defender's left)
    from_pool: str = ""  # providers are the side's units in this pool (a Stuka in the airfields), not on the map
    to_pool: str = ""  # where a provider from a pool goes once used ("" stays)
    where: str = ""


@dataclass(frozen=True, slots=True)
class FireRange:
    """How far a fire attack reaches from a spotting unit: ``hexes``; with
    ``terrain``, only from a unit whose hex has one of these terrains or
    features (AVD: 2 hexes from a hill)."""

    hexes: int
    terrain: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class FireAttack:
    """An attack by fire on a fixed CRT column (AVD: the Soviet artillery at
    3-1, the rocket at 7-1, the bomber at 8-1), not by units moving or
    attacking from adjacent hexes.  A ``fire`` effect grants a side a number
    of them; each names a target hex holding enemy units (at most one fire
    attack per hex per grant).  The column is shifted by the target's
    terrain and the CRT's shift modifiers, the roll by its die modifiers
    (``fire-attack`` names this id there).  ``ranges``: the hex must be within
    one of them of a unit of the side matching ``by`` (empty: anywhere).
    ``ignore``: "attacker" (the firer's losses and retreats), "retreat" (the
    target's retreats: losses only).  ``per_game``: at most this many in the
    game."""

    id: str
    title: str
    side: str
    crt: str
    column: int  # index of a printed column of the CRT
    die: str = ""  # "" = the CRT's die for the side
    by: frozenset[str] = frozenset()  # the spotting units (selectors); empty: every unit of the side
    ranges: tuple[FireRange, ...] = ()
    ignore: frozenset[str] = frozenset()
    per_game: int | None = None
    condition: Expr | None = None  # when it is open, with ``side`` bound
    where: str = ""


@dataclass(frozen=True, slots=True)
class BattleOutcome:
    """A row of a firepower battle's outcome table (Barbarossa 7.2 A-D),
    tried in order after the fire: the first whose condition holds applies.
    The condition reads ``attackers``, ``defenders``, ``undisrupted-attackers``
    and ``undisrupted-defenders`` (units in the battle hex)."""

    id: str
    title: str
    condition: Expr | None
    holds: str  # attacker | defender: whose the hex is afterwards
    attackers_back: bool = False  # the attackers go back to the hexes they attacked from
    defenders_retreat: bool = False  # the defenders left in the hex retreat (by the retreat rules) or die
    where: str = ""


@dataclass(frozen=True, slots=True)
class RebuildRule:
    """Units that come back from a pool onto hexes with a feature (Barbarossa
    10.0: fronts on infantry markers, tanks on factory markers)."""

    id: str
    title: str
    side: str
    units: frozenset[str]  # selectors
    pools: tuple[str, ...]
    at: frozenset[str]  # features (or terrain) of the hexes
    controlled: bool = True  # the hex must be under the side's control
    per_hex: int = 1  # rebuilt units per hex per phase
    marker: str = ""  # the units come back with it (disrupted)
    where: str = ""


@dataclass(frozen=True, slots=True)
class AttachmentKind:
    """Counters that sit under a unit instead of standing on a hex
    (runtime/attachments.py): equipment and support chits (GJ63 2.12, 3.4,
    3.5).  An attached counter has no hex of its own: it moves, retreats and
    leaves the map with its host and never counts for stacking, ZOC or
    control by itself.

    ``counters``: selectors of the counters of this kind; ``hosts``: who may
    carry them (empty: any unit that is no attachment); ``capacity``:
    (host selector, a factor of the host or a whole number) tried in order,
    how many of this kind a host may carry; ``returns``: where one goes when
    it is removed (its host eliminated, a loss taken on it): ``cup`` (the pool
    its counter arrives in), a pool, ``eliminated`` or ``removed``; ``loss``:
    a step loss of the host's side may be taken by removing one instead;
    ``adds``: (host factor, attachment factor or a number) added to the
    host's factor while carried; ``zoc``: a host carrying one exerts a ZOC
    even if its class does not; ``converts``: selectors of the counters that
    may leave the host as a unit of their own in a movement phase (a
    detachment); ``left_behind``: selectors of the counters that, face
    up, go where ``returns`` says when their host moves or retreats (a
    position)."""

    id: str
    title: str
    counters: frozenset[str]
    hosts: frozenset[str] = frozenset()
    capacity: tuple[tuple[str, str | int], ...] = ()
    returns: str = "cup"
    loss: bool = False
    adds: tuple[tuple[str, str | int], ...] = ()
    zoc: bool = False
    converts: frozenset[str] = frozenset()
    where: str = ""
    # face down under their unit (GJ63 3.5(5)): the other sides do not see which counter it is until
    # its stack fights ("cup": they see which cup it comes from, tank or equipment; "blind": not even
    # that, 19.6); "" face up
    face_down: str = ""
    # ``shown-from POOLS``: a counter put under its unit from one of these pools shows which cup it comes
    # from while it stays there, even "blind" (GJ63 19.6(2): the enemy still sees reinforcements' chits
    # placed as tank or equipment chits)
    shown_from: frozenset[str] = frozenset()
    # left behind: such a counter, once face up (always, in a kind that is not face down), goes where
    # ``returns`` says when its host moves or retreats (GJ63 签一览 阵地: a face-up position)
    left_behind: frozenset[str] = frozenset()


# ---------------------------------------------------------------- map

@dataclass(frozen=True, slots=True)
class MapHex:
    hex: Hex
    terrain: str
    features: tuple[str, ...] = ()
    name: str = ""
    vp: int = 0


@dataclass(frozen=True, slots=True)
class MapDef:
    """The board: grid numbering, terrain per hex, hexside features, links
    (roads, rails) as hex-to-hex hexsides, names, supply sources, areas."""

    name: str
    grid: Grid
    default_terrain: str
    hexes: Mapping[Hex, MapHex]
    hexsides: Mapping[Hexside, frozenset[str]]
    links: Mapping[str, frozenset[Hexside]]
    supply: Mapping[str, frozenset[Hex]]  # side -> source hexes
    supply_edges: Mapping[str, tuple[str, ...]]  # side -> map edges (west, east, ...)
    areas: Mapping[str, frozenset[Hex]]
    labels: Mapping[Hex, str] = field(default_factory=lambda: frozen_map({}))
    where: str = ""
    background: str = ""  # an image under the map, relative to the game folder (editor, render)

    def terrain_at(self, h: Hex) -> str:
        mh = self.hexes.get(h)
        return mh.terrain if mh else self.default_terrain

    def in_play(self, h: Hex) -> bool:
        return h in self.hexes


# ---------------------------------------------------------------- scenario

@dataclass(frozen=True, slots=True)
class Placement:
    counter: str
    kind: str  # hex | area | pool | turn | under (where_to: the counter id of the unit it goes under)
    where_to: str  # printed hex ID, area id, pool id or turn number
    count: int = 1
    where: str = ""


@dataclass(frozen=True, slots=True)
class Scenario:
    id: str
    title: str
    first_turn: int
    last_turn: int
    variants: tuple[str, ...] = ()
    setup: tuple[Placement, ...] = ()
    victory: str = ""  # id of a victory block
    notes: tuple[str, ...] = ()
    control: tuple[tuple[str, str], ...] = ()  # (side, area id or "all") in order: who holds what at the start
    deploy: tuple[str, ...] = ()  # sides, in order, whose units set up in an area are placed by their player
    where: str = ""
    markers: tuple[MarkerPlacement, ...] = ()  # markers set up (``place KIND at WHERE``)


@dataclass(frozen=True, slots=True)
class Variant:
    """A named optional or balance rule.  Its body overrides parts of the
    game; ``compile_game(..., variants=[id])`` applies it."""

    id: str
    title: str
    kind: str = "optional"  # optional | balance | series
    notes: tuple[str, ...] = ()
    where: str = ""


# ---------------------------------------------------------------- markers & effects

@dataclass(frozen=True, slots=True)
class MarkerKind:
    """A counter that is no unit: a DRM marker, an out-of-supply marker, a VP
    chit, an objective.  It belongs to no side (``side`` only says who may
    handle it) and never blocks movement, exerts a ZOC or counts for stacking
    or control; rules ask for it with ``marker-at(WHERE, KIND)``.  ``value``:
    the printed value; ``hidden``: the value is printed on the back (each
    marker placed carries its own value, face down until flipped or
    revealed); ``hidden_from``: whom a face-down value is hidden from, "all"
    or "enemy" (the sides other than ``side``: runtime/observe.py)."""

    id: str
    title: str
    colour: str = "#f0d040"
    text_colour: str = "#000000"
    side: str = ""
    value: int | None = None
    hidden: bool = False
    where: str = ""
    hidden_from: str = "all"


@dataclass(frozen=True, slots=True)
class HiddenRules:
    """What a game hides besides the engine's own secrets (the chits in the
    other sides' hands and in the cup, face-down markers' values): ``hidden {
    unit-marker NAME from enemy|all }``.  ``unit_markers``: a unit marker ->
    whom it is hidden from ("enemy": the sides other than the unit's).
    runtime/observe.py reads it."""

    unit_markers: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))
    where: str = ""


@dataclass(frozen=True, slots=True)
class MarkerPlacement:
    """A marker a scenario sets up: on a hex, in an area (its first hex) or in
    a pool; with ``source``, ``count`` markers set up before are moved there
    from that place (drawn at random with ``random``: AVD's face-down victory
    chits, drawn by colour onto the star hexes)."""

    kind: str
    at: str  # printed hex id, area id or pool id
    value: int | None = None
    count: int = 1
    where: str = ""
    source: str = ""  # a hex, area or pool the markers are taken from
    random: bool = False


@dataclass(frozen=True, slots=True)
class Effect:
    """One effect of the closed vocabulary (runtime/effects.py runs it):
    ``verb`` names it, ``args`` holds its plain arguments (strings and whole
    numbers), ``amount`` an expression (``= EXPR``), ``condition`` when it
    applies, ``options`` the (name, title, effects key) of a ``choose``."""

    verb: str
    args: Mapping[str, object]
    amount: Expr | None = None
    condition: Expr | None = None
    options: tuple[tuple[str, str, str], ...] = ()
    where: str = ""


@dataclass(frozen=True, slots=True)
class Trigger:
    """``trigger NAME "title" at CHECKPOINT when COND { effects }``: effects a
    checkpoint runs (``turn-end``, ``supply``, ``roll``, a victory-check phase...)."""

    id: str
    title: str
    at: str
    condition: Expr | None
    effects: str  # key into GameDefinition.effects
    where: str = ""


@dataclass(frozen=True, slots=True)
class Variable:
    """A game counter or flag: ``variable NAME "title" = INITIAL``; expressions read it by name."""

    id: str
    title: str
    initial: object
    where: str = ""


@dataclass(frozen=True, slots=True)
class FireStep:
    """One fire step of a dice-pool battle (Prokhorovka 11.3, 11.4): each
    side rolls one die per point of ``factor`` of its items in the battle
    (units, what they carry, support chits used), except those matching
    ``except_``; a die at or under the hit number scores one damage.  The
    hit numbers are chart cells as written ("2", "●"): ``defender`` is the
    defender's, ``attacker`` the TEC column read for the target hex."""

    id: str
    title: str
    factor: str
    except_: frozenset[str]
    defender: str
    attacker: str  # a TEC column
    where: str = ""
    # (selectors, cell): the attacker's hit number when the defender has a counter that matches
    # (a bunker: artillery hits on 1; an MG nest: normal fire on 1)
    against: tuple[tuple[frozenset[str], str], ...] = ()


@dataclass(frozen=True, slots=True)
class DuelRound:
    """A firing round of the tank duel: the weapons of ``side`` (attacker or
    defender) that match ``weapons`` (empty: all) and have not fired yet."""

    id: str
    title: str
    side: str
    weapons: frozenset[str] = frozenset()
    where: str = ""


@dataclass(frozen=True, slots=True)
class BattleRole:
    """``dice-pool { role ID "Title" { units SELECTORS; as CLASS FACTORS; lock until SIDE } }``:
    a counter that matches ``units`` may fight a battle as ``unit_class`` with
    ``factors`` instead of as itself, its side choosing so when it declares
    the equipment that fights (11.2(1); Prokhorovka 19.3: the SU-152 as an
    anti-tank gun, fire 5).  ``lock``: a side; a counter that fought in one
    way (this role, or as itself) may not fight in the other until that
    side's next player turn begins (19.3(2))."""

    id: str
    title: str
    units: frozenset[str]
    unit_class: str
    factors: Mapping[str, int]
    lock: str = ""
    where: str = ""


@dataclass(frozen=True, slots=True)
class AirRules:
    """Air combat in a dice-pool battle (``dice-pool { air { ... } }``,
    Prokhorovka 16.0): an interrupt before the battle's first die in which
    either side flies air missions with its ``aircraft`` support chits,
    outside the battle's support-chit limit.  What a chit does is its
    ``on-use`` role (``bomb``, ``ground-attack``, ``recon``, ``intercept``);
    ``anti_air``: the factor a die must not exceed in AA fire,
    interception and counter-interception; ``guns``: the equipment that
    fires at a mission over a hex within its ``ranged`` factor (AA guns);
    ``defender``/``attacker``: the bombing dice's hit numbers (a cell, and
    a TEC column for the attacker, as a fire step's); ``ground``: the TEC
    column of a ground-attack shot (a number, or ◆: the aircraft's fire
    against the target's armour); ``against``: the attacker's bombing hit
    number against a defending stack holding such a counter (a bunker);
    ``rerolls``: aircraft whose owner may roll
    a shot by or at them again, once (Rudel); ``windows``: the procedures
    (``move``, ``combat``) at the start of whose phases an air window opens
    outside any battle, for ground attacks on face-up equipment and, in the
    side's own player turn, recon (16.0, 16.1(1)2-3)."""

    id: str
    title: str
    aircraft: frozenset[str]
    anti_air: str
    guns: frozenset[str]
    defender: str
    attacker: str  # a TEC column
    ground: str  # a TEC column
    rerolls: frozenset[str] = frozenset()
    where: str = ""
    windows: tuple[str, ...] = ()
    # (selectors, cell): the attacker's bombing hit number when the defending stack holds a
    # counter that matches, as a fire step's (a bunker: bombing hits on 1, 签一览 阵地 1)
    against: tuple[tuple[frozenset[str], str], ...] = ()


@dataclass(frozen=True, slots=True)
class DicePoolRules:
    """A dice-pool battle (``dice-pool { ... }``, runtime/combat/dicepool/).

    ``support``: at most so many support chits a side per battle, taken
    from its pool in ``support_from`` and returned to its pool in
    ``support_to``; ``declares_first``: the side that allocates chits first
    (9.2(2)4); ``superior``: the side that pairs the tank duels (3.7,
    11.5(2)); ``level``: the TEC column of the defence level (a number, or
    +N to add; a hexside every attacker crosses adds too for the firing
    rounds); ``steps``: the fire steps in order; ``duel_weapons``: the
    selectors of tank-battle weapons; ``fire``/``armour``: their factors;
    ``exclude``: (role, selectors) that do not take part; ``rounds``: the
    firing rounds in order; ``support_cells``: (role, cell or "column X")
    of unpaired weapons' tank support; ``retreat``: a losing side may
    retreat one hex to halve its losses (14.0); ``position``: a factor whose
    value on a defender's counter (a position chit) replaces the terrain's
    defence level when higher, before the +N rows are added; ``uses``: the
    support chits' effects in a battle (the chit catalogue); ``rerolls``:
    duel weapons whose owner may roll a shot by or at them again (Wittmann)."""

    die: str
    support: int
    support_from: tuple[str, ...]
    support_to: tuple[str, ...]
    declares_first: str
    superior: str
    level: str
    steps: tuple[FireStep, ...]
    duel_weapons: frozenset[str]
    fire: str
    armour: str
    exclude: tuple[tuple[str, frozenset[str]], ...]
    rounds: tuple[DuelRound, ...]
    support_cells: tuple[tuple[str, str], ...]
    retreat: bool
    where: str = ""
    position: str = ""  # a factor: a defender's counter with it raises the defence level to it (positions)
    # ``on-use SELECTORS { EFFECTS }``: (selectors, effects key) of what a support chit that matches does
    # in the battle it is used in (runtime/combat/dicepool/chits.py applies the battle verbs)
    uses: tuple[tuple[frozenset[str], str], ...] = ()
    # ``duel { reroll SELECTORS }``: a shot by or at such a weapon may be rolled again once, by its owner
    rerolls: frozenset[str] = frozenset()
    # ``ranged FACTOR``: a counter carried with this factor may support a battle up to that many hexes
    # from its stack, once per combat phase (Prokhorovka 11.2(1)3)
    ranged: str = ""
    # ``air { ... }``: air missions as an interrupt before the battle's dice (Prokhorovka 16.0)
    air: AirRules | None = None
    # ``ranged FACTOR active``: the attacker's ranged counters only from stacks that may attack in the
    # combat phase (Prokhorovka 11.2(1)3: the active stacks of the normal or the reserve attack)
    ranged_active: bool = False
    # ``breakdown SELECTORS [side SIDE] on N``: (selectors, side, n): each such counter that joins a battle
    # (declared to fight, 11.2(1), or supporting from a range) rolls the die and leaves the game on N or less (19.5)
    breakdown: tuple[tuple[frozenset[str], str, int], ...] = ()
    # ``order-battles``: an attack only declares its battle; once the attacker has declared every
    # attack of the phase, the ``superior`` side fights them in the order it chooses (9.2(3), 11.0)
    order_battles: bool = False
    # ``declare-equipment``: each side declares which counters its stacks in the battle carry fight
    # (11.2(1)2: not necessarily all); the others take no part and stay face down
    declare_equipment: bool = False
    # ``role ID "Title" { ... }``: other ways a counter may fight, chosen in that declaration (19.3)
    roles: tuple[BattleRole, ...] = ()
    # ``at-once SELECTORS { cancel-chit SELECTORS }``: (chits, effects key): such a chit in its side's support
    # pool may be played at once in a battle, outside the limit, to cancel an enemy chit that matches as it
    # acts there (its decision, its roll again) (Prokhorovka 签一览 (2), the red names; 狙击兵 ※)
    at_once: tuple[tuple[frozenset[str], str], ...] = ()


# ---------------------------------------------------------------- the game

@dataclass(frozen=True, slots=True)
class GameDefinition:
    info: GameInfo
    dice: Mapping[str, Die]
    sides: Mapping[str, Side]
    nationalities: Mapping[str, Nationality]
    unit_classes: Mapping[str, UnitClass]
    counters: Mapping[str, Counter]
    terrain: Mapping[str, Terrain]
    chart: TerrainChart
    results: Mapping[str, Mapping[str, ResultCode]]
    crts: Mapping[str, Crt]
    die_tables: Mapping[str, DieTable]
    turn_track: TurnTrack
    weather: Mapping[str, Weather]
    chits: Mapping[str, Chit]
    pools: Mapping[str, Pool]
    events: Mapping[str, Event]
    sequence: tuple[Phase, ...]
    scenarios: Mapping[str, Scenario]
    variants: Mapping[str, Variant]
    victory: Mapping[str, tuple[VictoryRule, ...]]
    modifiers: Mapping[str, tuple[Modifier, ...]]  # by what they modify
    stacking: Mapping[str, int]
    movement: MovementRules
    zoc: ZocRules
    supply: SupplyRules
    retreat: RetreatRules
    advance: AdvanceRules
    combat: CombatRules
    activation: ActivationRules
    reinforcements: ReinforcementRules
    arrivals: Mapping[str, Arrival]
    withdrawals: Mapping[str, Withdrawal]
    map: MapDef | None
    battle_options: Mapping[str, BattleOption] = field(default_factory=lambda: frozen_map({}))
    battle_outcomes: tuple[BattleOutcome, ...] = ()
    fire_attacks: Mapping[str, FireAttack] = field(default_factory=lambda: frozen_map({}))
    rebuilds: Mapping[str, RebuildRule] = field(default_factory=lambda: frozen_map({}))
    control_hexes: str = "features"  # which hexes change hands: "features" (with a feature or VP) or "all"
    unit_selectors: Mapping[str, frozenset[str]] = field(default_factory=lambda: frozen_map({}))  # see selectors_of
    active_variants: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # files compiled, game folder relative
    markers: Mapping[str, MarkerKind] = field(default_factory=lambda: frozen_map({}))
    variables: Mapping[str, Variable] = field(default_factory=lambda: frozen_map({}))
    triggers: tuple[Trigger, ...] = ()
    chit_counts: tuple[ChitCount, ...] = ()  # per-turn chit counts that replace the turn track's (first that holds)
    # effect lists by owner: "event:ID", "table:ID:CODE", "trigger:ID", "chit:ID", "option:...": run by runtime/effects.py
    effects: Mapping[str, tuple[Effect, ...]] = field(default_factory=lambda: frozen_map({}))
    attachments: Mapping[str, AttachmentKind] = field(default_factory=lambda: frozen_map({}))  # by id
    attachment_of: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))  # counter id -> its kind
    hidden: HiddenRules = field(default_factory=HiddenRules)  # what each side cannot see (runtime/observe.py)
    dice_pool: DicePoolRules | None = None  # the dice-pool battle, when combat { procedure dice-pool }

    def selectors_of(self, counter_id: str) -> frozenset[str]:
        """Everything a unit selector may name that this counter matches: its
        class, the class's flags, its nationality, its side, ``all``."""
        hit = self.unit_selectors.get(counter_id)
        if hit is not None:
            return hit
        c = self.counters[counter_id]
        return self.unit_classes[c.unit_class].flags | {c.unit_class, c.nationality, c.side, "all", "other"}

    def declared_ids(self) -> dict[str, str]:
        """Every id the game declares, and every class flag, as an expression
        name standing for itself (``controls(axis, moscow)``, ``units-of(infantry)``)."""
        names: dict[str, str] = {}
        tables = (self.sides, self.nationalities, self.unit_classes, self.terrain, self.weather, self.events,
                  self.chits, self.counters, self.variants, self.pools, self.die_tables, self.scenarios,
                  self.map.areas if self.map else {}, self.markers, self.fire_attacks)
        for table in tables:
            for k in table:
                names.setdefault(k, k)
        for cls in self.unit_classes.values():
            for flag in cls.flags:
                names.setdefault(flag, flag)
        return names

    def matches(self, counter_id: str, selectors: frozenset[str]) -> bool:
        """Does a unit selector list name this counter (by class, flag, nationality, side or all)?"""
        return bool(selectors & self.selectors_of(counter_id))

    def summary(self) -> str:
        hexes = len(self.map.hexes) if self.map else 0
        return (f"{self.info.id}: {len(self.sides)} sides, {len(self.unit_classes)} unit classes, "
                f"{len(self.counters)} counters, {hexes} hexes, {len(self.turn_track.turns)} turns")
