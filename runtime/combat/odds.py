"""Odds and differential CRT combat: strengths, terrain shifts, the column,
the probability of every result, and whether an attack is legal.

Everything is read from the definition (``Crt``, ``TerrainChart``, counters);
no game is named here.  The rules, as ``Crt`` spells them:

* The **ladder** of columns is the printed columns, extended by virtual
  columns on both sides.  Below the lowest printed column of an odds table
  the ladder goes on through whole ratios and then 1-2, 1-3, 1-4 ...; of a
  differential table through the integers.  Above the highest it goes on
  through whole ratios / integers (11-1, 12-1 ... or +7, +8 ...).
* **Rounding** places the ratio (A/D, or A-D) on the ladder: ``down`` (toward
  the defender) takes the highest column not above it, ``up`` the lowest not
  below it, ``nearest`` the closer of the two (a tie goes down, toward the
  defender).
* **Clamp**: ``before-shifts`` uses the highest printed column for a ratio
  above it and then shifts along the printed columns (12-1, two left: 10+,
  9-1, 8-1); ``after-shifts`` keeps the virtual columns above the table
  while shifting (12-1, two left: 10-1) and clamps only the final column.
* **Shifts**: negative moves left (toward the defender), positive right.
* After shifting, a column above the table uses the highest; below the
  lowest is no attack (``below_lowest == "no-attack"``) or the lowest.
* Odds with a defence of 0 use the highest column.

Strength totals: each unit's factor is taken exactly (halved as a Fraction
where the terrain effects chart says ``attack half``); the side's total is
summed exactly and rounded once, at the end, per ``game.info.rounding``
(Smolensk 1.0(2): fractions are dropped).  So two 3s halved across a river
make 1.5 + 1.5 = 3, not 1 + 1.
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import islice
from typing import Callable, Iterable

from ..attachments import bonus
from ..board import Board
from ..definition import Crt, CrtColumn, Die, GameDefinition, ResultCode, TerrainEffect
from ..hexes import Hex
from ..state import GameState
from .modifiers import Env, combat_names, plain_env, strength_modifiers, whole_modifiers


# ------------------------------------------------------------------ numbers

def fmt_num(x: Fraction | int) -> str:
    """12 -> "12", 15/2 -> "7.5", 1/3 -> "0.33"."""
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    return f"{float(x):.2f}".rstrip("0").rstrip(".")


def round_value(x: Fraction, rounding: str = "down") -> Fraction:
    """Round a strength total the way the game rounds halves."""
    x = Fraction(x)
    if x.denominator == 1:
        return x
    if rounding == "up":
        return Fraction(math.ceil(x))
    if rounding == "nearest":
        return Fraction(math.floor(x + Fraction(1, 2)))
    return Fraction(math.floor(x))


# ------------------------------------------------------------------ the ladder

class _Ladder:
    """The printed columns of a CRT plus the virtual columns around them,
    indexed by position: 0..n-1 printed, negative below, >= n above."""

    def __init__(self, crt: Crt):
        if not crt.columns:
            raise ValueError(f"crt {crt.id} has no columns")
        self.crt = crt
        self.cols = crt.columns
        self.n = len(crt.columns)
        self.odds = crt.method != "differential"
        self.low = crt.columns[0].ratio
        self.high = crt.columns[-1].ratio

    # value and label of any position
    def value(self, p: int) -> Fraction:
        if 0 <= p < self.n:
            return self.cols[p].ratio
        if p >= self.n:
            return Fraction(math.floor(self.high) + (p - self.n + 1))
        i = -p
        top = math.ceil(self.low) - 1  # the first whole value below the lowest column
        if not self.odds:
            return Fraction(top - i + 1)
        whole = max(0, top)  # whole ratios k-1 below the lowest column: top .. 1
        if i <= whole:
            return Fraction(top - i + 1)
        j0 = 2 if self.low > Fraction(1, 2) else math.floor(1 / self.low) + 1
        return Fraction(1, j0 + (i - whole) - 1)

    def label(self, p: int) -> str:
        if 0 <= p < self.n:
            return self.cols[p].label
        return ratio_label(self.value(p), self.odds)

    # rounding
    def down(self, r: Fraction) -> int:
        """The highest position whose value is <= r."""
        hi = self.n - 1
        step = 1
        while self.value(hi) <= r:  # only when r is above the table
            hi += step
            step *= 2
        lo = min(-1, hi - 1)
        step = 1
        while self.value(lo) > r:
            lo -= step
            step *= 2
        while hi - lo > 1:  # value(lo) <= r < value(hi)
            mid = (lo + hi) // 2
            if self.value(mid) <= r:
                lo = mid
            else:
                hi = mid
        return lo

    def up(self, r: Fraction) -> int:
        """The lowest position whose value is >= r."""
        d = self.down(r)
        return d if self.value(d) == r else d + 1

    def place(self, r: Fraction, rounding: str) -> int:
        if rounding == "up":
            return self.up(r)
        d = self.down(r)
        if rounding == "nearest":
            u = self.up(r)
            if u != d and self.value(u) - r < r - self.value(d):
                return u
        return d


def ratio_label(value: Fraction, odds: bool = True) -> str:
    """A column label in the printed style: 3/2 -> "1.5-1", 1/3 -> "1-3"; a
    difference: 3 -> "+3", -2 -> "-2", 0 -> "0"."""
    if not odds:
        n = value
        s = fmt_num(abs(n))
        return "0" if n == 0 else (f"+{s}" if n > 0 else f"-{s}")
    if value >= 1:
        return f"{fmt_num(value)}-1"
    return f"1-{fmt_num(1 / value)}"


# ------------------------------------------------------------------ columns

@dataclass(frozen=True)
class ColumnResult:
    """Where an attack falls on a CRT.  ``column`` is None when no attack is
    allowed (``reason`` says why).  ``rounded`` is the column (printed or
    virtual) before shifts; ``ratio`` is A/D (None for a defence of 0) or,
    on a differential table, A-D."""

    column: CrtColumn | None
    index: int | None
    ratio: Fraction | None
    rounded: str
    steps: list[str] = field(default_factory=list)
    reason: str = ""
    shift: int = 0

    @property
    def label(self) -> str | None:
        return self.column.label if self.column else None

    @property
    def allowed(self) -> bool:
        return self.column is not None


def _shift_words(shift: int) -> str:
    n = abs(shift)
    return f"{n} {'left' if shift < 0 else 'right'} shift{'s' * (n != 1)}"


def column_for(crt: Crt, attack: Fraction | int, defence: Fraction | int, shift: int = 0) -> ColumnResult:
    """The CRT column for ``attack`` against ``defence`` after ``shift``
    columns (negative: left, toward the defender).  A function of its
    arguments, kept for each (a bot weighs the same attacks again and
    again): the result is shared, never change it."""
    key = (id(crt), attack, defence, shift)
    hit = _COLUMNS.get(key)
    if hit is not None and hit[0] is crt:
        return hit[1]
    out = _column_for(crt, attack, defence, shift)
    if len(_COLUMNS) >= _KEPT:
        _COLUMNS.clear()
    _COLUMNS[key] = (crt, out)
    return out


_KEPT = 4096  # results kept by column_for and probabilities, each (all dropped when full)
_COLUMNS: dict[tuple, tuple[Crt, ColumnResult]] = {}  # (id(crt), attack, defence, shift) -> (crt, column)
_PROBABILITIES: dict[tuple, tuple] = {}  # (id(game), id(crt), column, die, drm) -> (game, crt, probabilities)


def _column_for(crt: Crt, attack: Fraction | int, defence: Fraction | int, shift: int) -> ColumnResult:
    lad = _Ladder(crt)
    attack, defence = Fraction(attack), Fraction(defence)
    steps: list[str] = []
    after = crt.clamp == "after-shifts"
    odds = lad.odds
    n = lad.n
    pos: int | None
    if odds:
        if defence <= 0:
            ratio = None
            pos = n - 1
            steps.append(f"odds {fmt_num(attack)}-0: no defence, the highest column {lad.label(pos)}")
            if after and shift:
                steps.append(f"{_shift_words(shift)} cannot bring an unlimited ratio below the table")
                shift = 0
        elif attack <= 0:
            ratio = Fraction(0)
            pos = None
            steps.append(f"odds 0-{fmt_num(defence)}: no attack strength")
        else:
            ratio = attack / defence
            pos = None
    else:
        ratio = attack - defence
        pos = None
    if pos is None and ratio is not None and not (odds and ratio == 0):
        shown = f"odds {fmt_num(attack)}-{fmt_num(defence)} = {fmt_num(ratio)}" if odds else \
            f"difference {fmt_num(attack)} - {fmt_num(defence)} = {ratio_label(ratio, False)}"
        pos = lad.place(ratio, crt.rounding)
        if pos >= n and not after:
            top = crt.columns[-1]
            steps.append(f"{shown}: {top.label}" if top.open_ended else
                         f"{shown}: above the highest column, use {top.label}")
            pos = n - 1
        elif pos >= n:
            steps.append(f"{shown}: {lad.label(pos)} (beyond {lad.label(n - 1)}; clamped after shifts)")
        elif pos < 0:
            steps.append(f"{shown}: {lad.label(pos)}, below the lowest column {lad.label(0)}")
        else:
            how = "" if lad.value(pos) == ratio or lad.cols[pos].open_ended else f" (rounded {crt.rounding})"
            steps.append(f"{shown}: {lad.label(pos)}{how}")
    if pos is None:  # no attack strength at all
        rounded = "0"
        if crt.below_lowest == "no-attack":
            reason = "no attack strength"
            return ColumnResult(None, None, ratio, rounded, steps, reason, shift)
        steps.append(f"use the lowest column {lad.label(0)}")
        return ColumnResult(crt.columns[0], 0, ratio, rounded, steps, "", shift)
    return _shifted(crt, lad, pos, shift, steps, ratio)


def fixed_column(crt: Crt, index: int, shift: int = 0, why: str = "") -> ColumnResult:
    """A fire attack's column: the printed column ``index`` (``why`` names
    it, "artillery fires on 3-1") moved by ``shift`` columns."""
    lad = _Ladder(crt)
    steps = [f"{why}: {lad.label(index)}" if why else f"fixed column {lad.label(index)}"]
    return _shifted(crt, lad, index, shift, steps, None)


def _shifted(crt: Crt, lad: _Ladder, pos: int, shift: int, steps: list[str], ratio: Fraction | None) -> ColumnResult:
    """The column at ladder position ``pos`` after ``shift`` columns, clamped
    to the table (below the lowest: no attack or the lowest)."""
    odds, n = lad.odds, lad.n
    rounded = lad.label(pos)
    final = pos + shift
    if shift:
        steps.append(f"{_shift_words(shift)}: {rounded} → {lad.label(final)}")
    if final >= n:
        steps.append(f"{lad.label(final)} is above the table: use the highest column {lad.label(n - 1)}")
        final = n - 1
    elif final < 0:
        if crt.below_lowest == "no-attack":
            reason = f"final odds {lad.label(final)} are below {lad.label(0)}" if odds else \
                f"final column {lad.label(final)} is below {lad.label(0)}"
            steps.append(f"{reason}: no attack")
            return ColumnResult(None, None, ratio, rounded, steps, reason, shift)
        steps.append(f"{lad.label(final)} is below the table: use the lowest column {lad.label(0)}")
        final = 0
    steps.append(f"final column {lad.label(final)}")
    return ColumnResult(crt.columns[final], final, ratio, rounded, steps, "", shift)


def code_at(crt: Crt, column_index: int, die_total: int) -> str:
    """The result code printed in a column for a die total."""
    row = crt.rows.get(die_total)
    if row is None:
        # a modified roll beyond the printed rows reads the nearest end row
        lo, hi = min(crt.rows), max(crt.rows)
        row = crt.rows[lo if die_total < lo else hi] if crt.rows else None
        if row is None:
            raise KeyError(f"crt {crt.id} has no rows")
    return row[column_index]


def resolve(crt: Crt, column_index: int, die_total: int, game: GameDefinition | None = None) -> ResultCode:
    """The result of a die total on a column: the game's ResultCode for the
    printed code when ``game`` is given, else a bare ResultCode(code)."""
    code = code_at(crt, column_index, die_total)
    if game is not None:
        found = game.results.get(crt.results, {}).get(code)
        if found is not None:
            return found
    return ResultCode(code)


def die_named(game: GameDefinition, name: str) -> Die:
    d = game.dice.get(name)
    if d is not None:
        return d
    count, _, sides = name.partition("d")
    return Die(name, int(count or 1), int(sides))


def die_for(game: GameDefinition, crt: Crt, side: str) -> Die | None:
    name = crt.dice.get(side) or crt.dice.get("*")
    return die_named(game, name) if name else None


def probabilities(game: GameDefinition | None, crt: Crt, column_index: int, die: Die,
                  drm: int = 0) -> dict[str, Fraction]:
    """Probability of each result code on a column, the die modified by
    ``drm``, codes in the order of the game's result table (then first
    appearance).  Kept for its arguments; each call gets a dict of its own."""
    key = (id(game), id(crt), column_index, die, drm)
    hit = _PROBABILITIES.get(key)
    if hit is not None and hit[0] is game and hit[1] is crt:
        return dict(hit[2])
    out = _probabilities(game, crt, column_index, die, drm)
    if len(_PROBABILITIES) >= _KEPT:
        _PROBABILITIES.clear()
    _PROBABILITIES[key] = (game, crt, out)
    return dict(out)


def _probabilities(game: GameDefinition | None, crt: Crt, column_index: int, die: Die, drm: int) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for total, p in sorted(die.distribution().items()):
        code = code_at(crt, column_index, total + drm)
        out[code] = out.get(code, Fraction(0)) + p
    if game is not None:
        order = list(game.results.get(crt.results, {}))
        out = dict(sorted(out.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    return out


# ------------------------------------------------------------------ terrain

def _name(game: GameDefinition, tid: str) -> str:
    t = game.terrain.get(tid)
    title = t.title if t and t.title else tid
    return title[:1].lower() + title[1:]


def terrain_shift_parts(game: GameDefinition, terrain_ids: Iterable[str]) -> list[tuple[int, str]]:
    """The left shifts for a defender in ``terrain_ids`` (a hex's terrain and
    its features), one (columns, reason) per chart row that counts.  A row
    marked ``+N`` adds to the others; of the other rows only the largest
    applies (a city in clear: 2; a town in light forest: 1 + 1)."""
    chart = game.chart.effects
    base, base_id, adds = 0, "", []
    for tid in terrain_ids:
        eff = chart.get(tid)
        if eff is None or eff.left_shifts is None:
            continue
        if eff.shifts_add:
            adds.append((tid, eff.left_shifts))
        elif not base_id or eff.left_shifts > base:
            base, base_id = eff.left_shifts, tid
    parts = []
    if base_id and base:
        parts.append((base, f"{_name(game, base_id)}: {base} left"))
    for tid, n in adds:
        if n:
            parts.append((n, f"{_name(game, tid)}: {'+' if n > 0 else ''}{n} left"))
    return parts


def terrain_shift_of(game: GameDefinition, terrain_ids: Iterable[str]) -> tuple[int, list[str]]:
    """Total left shifts for terrain ``terrain_ids``, with the reasons."""
    parts = terrain_shift_parts(game, terrain_ids)
    return sum(n for n, _ in parts), [r for _, r in parts]


def terrain_shift(game: GameDefinition, board: Board, h: Hex) -> tuple[int, list[str]]:
    """Left shifts the terrain of a defending hex gives (Smolensk: town in
    light forest = 1 + 1; a city alone = 2)."""
    return terrain_shift_of(game, (board.terrain(h), *board.features(h)))


def _prohibited(eff: TerrainEffect | None) -> bool:
    return eff is not None and eff.combat_prohibited


# ------------------------------------------------------------------ strengths

def _factor(game: GameDefinition, unit_id: str, step: int, names: tuple[str, ...]) -> int | None:
    c = game.counters[unit_id]
    factors = c.steps[min(step, len(c.steps) - 1)]
    for n in names:
        if n in factors:
            return factors[n]
    return None


def _added(game: GameDefinition, state: GameState, unit_id: str, names: tuple[str, ...]) -> int:
    """What the counters under the unit add to the first of ``names`` it prints (``adds``)."""
    if unit_id not in state.attached:
        return 0
    factors = game.counters[unit_id].steps[0]
    name = next((n for n in names if n in factors), names[0])
    return bonus(game, state, unit_id, name)


def attack_factor(game: GameDefinition, unit_id: str, step: int) -> int:
    """The attack factor the unit prints at ``step`` ("attack", else "strength"; 0 where none)."""
    return _factor(game, unit_id, step, ("attack", "strength")) or 0


def attack_strength(game: GameDefinition, board: Board, state: GameState, unit_id: str,
                    target: Hex, origin: Hex | None = None) -> tuple[Fraction | int, str]:
    """The unit's attack factor at its current step ("attack", else
    "strength"), halved (exactly) when it attacks across a hexside or into
    terrain whose chart row says ``attack half``, bridged or not.  Several
    such rows halve it once.  ``origin``: the hex it would attack from
    (a bot weighing an attack the unit could move to make), else its own."""
    u = state.units[unit_id]
    origin = u.hex if origin is None else origin
    f = _factor(game, unit_id, u.step, ("attack", "strength"))
    if f is None:
        return Fraction(0), f"{unit_id}: no attack factor"
    added = _added(game, state, unit_id, ("attack", "strength"))
    value: Fraction | int = f + added  # (a Fraction once halved: a bot weighs thousands of attacks a game)
    shown = f"{f}+{added}" if added else str(f)
    chart = game.chart.effects
    halves = []
    ignored = set(state.step.get("ignore", ()))  # a segment that ignores rivers (Smolensk 15.1(3))
    if origin is not None:
        for kind in sorted(board.edge(origin, target).hexside):
            eff = chart.get(kind)
            if eff is not None and eff.attack == "half" and kind not in ignored:
                halves.append(f"across {_name(game, kind)}")
    if target in board:
        for tid in (board.terrain(target), *board.features(target)):
            eff = chart.get(tid)
            if eff is not None and eff.attack == "half":
                halves.append(f"into {_name(game, tid)}")
    marked = game.supply.halves(u.markers, "attack")
    if marked:  # out of supply / isolated: a separate halving (AVD halves each)
        value = Fraction(value, 2)
    if halves:
        value = Fraction(value, 2)
    why = [*halves, *(f"{m}" for m in marked)]
    if why:
        return value, f"{unit_id} {shown}, halved {' and '.join(why)}: {fmt_num(value)}"
    return value, f"{unit_id} {shown}"


def defence_strength(game: GameDefinition, board: Board, state: GameState, unit_id: str,
                     at: Hex | None = None) -> tuple[Fraction | int, str]:
    """The unit's defence factor at its current step ("defence", else
    "strength"; fortress markers are units and count), times any defence
    multiplier of its hex's chart rows.  ``at``: the hex it would defend in
    (a bot weighing a move), else its own."""
    u = state.units[unit_id]
    at = u.hex if at is None else at
    f = _factor(game, unit_id, u.step, ("defence", "strength"))
    if f is None:
        return Fraction(0), f"{unit_id}: no defence factor"
    added = _added(game, state, unit_id, ("defence", "strength"))
    value: Fraction | int = f + added  # (a Fraction once halved or multiplied)
    shown = f"{f}+{added}" if added else str(f)
    mults = []
    for m in game.supply.halves(u.markers, "defence"):
        value = Fraction(value, 2)
        mults.append(f"halved ({m})")
    if at is not None and at in board:
        for eff in board.effects(at):
            if eff.defence is not None:
                value = Fraction(value) * eff.defence
                mults.append(f"x{fmt_num(eff.defence)} in {_name(game, eff.terrain)}")
    if mults:
        return value, f"{unit_id} {shown}, {', '.join(mults)}: {fmt_num(value)}"
    return value, f"{unit_id} {shown}"


# ------------------------------------------------------------------ a whole attack

@dataclass
class OddsReport:
    """Everything about one declared attack.  ``validate`` is "" for a legal
    attack, else the reasons it is illegal ("; "-joined, ``errors`` lists
    them).  ``probabilities`` is empty when no attack is allowed."""

    crt: Crt
    attackers: list[str]
    target: Hex
    attack: Fraction  # total, rounded per the game
    defence: Fraction
    attack_exact: Fraction
    defence_exact: Fraction
    attack_parts: list[tuple[str, Fraction, str]]
    defence_parts: list[tuple[str, Fraction, str]]
    shifts: list[tuple[int, str]]  # (columns, reason): negative = left
    shift: int
    column: ColumnResult
    die: Die | None
    probabilities: dict[str, Fraction]
    errors: list[str] = field(default_factory=list)
    drms: list[tuple[int, str]] = field(default_factory=list)  # (amount, reason): die roll modifiers
    fire: str = ""  # the fire attack's id (runtime.combat.fire), "" for an attack by units

    @property
    def drm(self) -> int:
        return sum(n for n, _ in self.drms)

    @property
    def validate(self) -> str:
        return "; ".join(self.errors)

    @property
    def legal(self) -> bool:
        return not self.errors and self.column.column is not None


def _modified(parts: list[tuple[str, Fraction, str]], mods: dict[str, list[tuple[Fraction, str]]]
              ) -> list[tuple[str, Fraction, str]]:
    """Unit factors with the game's strength modifiers added (never below 0),
    each modifier named in the unit's line."""
    out = []
    for uid, v, why in parts:
        for amount, title in mods.get(uid, ()):
            v = max(Fraction(0), v + amount)
            why = f"{why}, {title} {'+' if amount > 0 else ''}{fmt_num(amount)}: {fmt_num(v)}"
        out.append((uid, v, why))
    return out


def not_attacked(game: GameDefinition, tid: str, defenders: list) -> str:
    """Why no attack may target a hex whose units are all of the kinds the
    combat rules say cannot be attacked (``combat { not-attacked ... }``: AVD
    攻击 1 a, HQs), or ""."""
    spared = game.combat.not_attacked
    if not spared or not defenders or not all(game.matches(u.id, spared) for u in defenders):
        return ""
    names = ", ".join(u.id for u in defenders)
    return f"{tid} holds only {names}, which cannot be attacked"


def modified_by(game: GameDefinition, crt_id: str) -> bool:
    """Whether the game's modifiers touch an attack on CRT ``crt_id``: its die
    roll, its column or the units' strengths (what ``combat_odds`` then reads
    through the game's expressions, which may read anything in the state)."""
    return any(k in game.modifiers for k in (crt_id, f"{crt_id}.shift", "strength.attacker", "strength.defender"))


def combat_odds(game: GameDefinition, board: Board, state: GameState, attackers: list[str], target: Hex,
                extra_shift: int = 0, crt: str | None = None,
                env: Callable[[GameState], Env] | None = None,
                options: Iterable[tuple[int, str]] = ()) -> OddsReport:
    """The odds, column, shifts, die roll modifiers and result probabilities
    of ``attackers`` attacking ``target``, and whether the attack is legal.
    ``env``: gives the names and functions the game's modifiers read (the
    runner's ``env``; without it, only the turn, weather and ids); it is
    called only when the game has CRT modifiers.  ``options``: column
    shifts of battle options used before the roll, (columns, title)."""
    crt_id = crt or game.combat.crt or next(iter(game.crts), "")
    if crt_id not in game.crts:
        raise KeyError(f"{game.info.id} has no CRT '{crt_id}'")
    if modified_by(game, crt_id):  # (the modifiers' expressions may read anything in the state)
        return _combat_odds(game, board, state, attackers, target, extra_shift, crt_id, env, options)
    kept = _REPORTS.get(board)
    if kept is None or kept[0] is not game:
        kept = _REPORTS[board] = (game, {})
    reports = kept[1]
    options = tuple(options)
    key = _read(state, attackers, target, extra_shift, crt_id, options)
    rep = reports.get(key)
    if rep is None:
        if len(reports) >= _REPORTS_KEPT:  # the oldest quarter goes (the attacks weighed lately stay)
            for k in list(islice(reports, _REPORTS_KEPT // 4)):
                del reports[k]
        rep = reports[key] = _combat_odds(game, board, state, attackers, target, extra_shift, crt_id, env, options)
    return rep


# board -> (its game, {what combat_odds read of a state: the report}): an attack weighed again (the bots
# weigh every attack a move would set up, decision after decision; the listing of attacks weighs every
# group) is not worked out again.  Only where no modifier touches the attack (``modified_by``).  The
# reports are shared: never change one
_REPORTS: "weakref.WeakKeyDictionary[Board, tuple[GameDefinition, dict]]" = weakref.WeakKeyDictionary()
_REPORTS_KEPT = 8192  # a report with its reasons and key takes some 2.3 kB: about 19 MB at most


def _read(state: GameState, attackers: list[str], target: Hex, extra_shift: int, crt_id: str,
          options: tuple) -> tuple:
    """What ``combat_odds`` reads of ``state`` (the board and the game aside)
    for an attack without modifiers: the attackers and defenders as they
    stand (hex, step, markers, the counters under them), which attacked or
    retreated this segment, which are activated, the rivers the segment
    ignores, and whether the hex was attacked."""
    units, attacked, activated, attached = state.units, state.attacked, state.activated, state.attached

    def under(x: str):
        ids = attached.get(x)
        return tuple((a, units[a].step, units[a].markers) for a in ids) if ids else None

    return (crt_id, target, extra_shift, options, tuple(state.step.get("ignore") or ()),
            target in state.attacked_hexes, bool(activated),
            tuple((a, (u.side, u.hex, u.step, u.markers, under(a), a in attacked, a in activated)
                   if (u := units.get(a)) is not None else None) for a in attackers),
            tuple((d, (u := units[d]).side, u.step, u.markers, under(d), f"retreated:{d}" in attacked)
                  for d in state.occupants.get(target, ())))


def _combat_odds(game: GameDefinition, board: Board, state: GameState, attackers: list[str], target: Hex,
                 extra_shift: int, crt_id: str, env: Callable[[GameState], Env] | None,
                 options: Iterable[tuple[int, str]]) -> OddsReport:
    """``combat_odds``, worked out."""
    table = game.crts[crt_id]
    chart = game.chart.effects
    errors: list[str] = []
    tid = board.hex_id(target) if target in board else str(target)
    if not attackers:
        errors.append(f"no units attack {tid}")
    if target not in board:
        errors.append(f"{tid} is not on the map")
    defenders = [u for u in state.units_at(target)] if target in board else []
    att_units = [state.units[a] for a in attackers if a in state.units]
    for a in attackers:
        if a not in state.units:
            errors.append(f"there is no unit {a}")
    att_side = att_units[0].side if att_units else ""
    if target in board and not defenders:
        errors.append(f"there are no units in {tid} to attack")
    elif defenders and att_side and defenders[0].side == att_side:
        errors.append(f"{tid} holds friendly units, not enemy ones")
    elif why := not_attacked(game, tid, defenders):
        errors.append(why)
    if target in board:
        for t in (board.terrain(target), *board.features(target)):
            if _prohibited(chart.get(t)):
                errors.append(f"attacks into {_name(game, t)} ({tid}) are prohibited")
    if target in state.attacked_hexes:
        errors.append(f"{tid} has already been attacked this combat segment")
    for u in att_units:
        where = f"{u.id} cannot attack {tid}"
        if u.side != att_side:
            errors.append(f"{where}: it is not on the same side as {att_units[0].id}")
        if u.hex is None:
            errors.append(f"{where}: it is not on the map")
            continue
        if target in board and target not in {n for n, _ in board.adj.get(u.hex, ())}:
            errors.append(f"{where}: it is not adjacent")
            continue
        if u.id in state.attacked:
            errors.append(f"{where}: it has already attacked this combat segment")
        if state.activated and u.id not in state.activated:
            errors.append(f"{where}: it is not activated")
        e = board.edge(u.hex, target)
        for kind in sorted(e.hexside):
            if _prohibited(chart.get(kind)) and not e.bridged:
                errors.append(f"{where}: attacks across the {_name(game, kind)} hexside are prohibited")
    # strengths
    att_parts: list[tuple[str, Fraction, str]] = []
    for u in att_units:
        if u.hex is None:
            continue
        v, why = attack_strength(game, board, state, u.id, target)
        att_parts.append((u.id, v, why))
    def_parts = [(u.id, *defence_strength(game, board, state, u.id)) for u in defenders]
    modified = target in board and bool(att_units) and modified_by(game, table.id)
    names = combat_names(game, board, state, [u.id for u in att_units if u.hex is not None], target,
                         env(state) if env else plain_env(game, state)) if modified else ({}, {})
    if modified:
        att_parts = _modified(att_parts, {uid: strength_modifiers(game, state, board, "attacker", uid, v, target,
                                                                  names) for uid, v, _ in att_parts})
        def_parts = _modified(def_parts, {uid: strength_modifiers(game, state, board, "defender", uid, v, target,
                                                                  names) for uid, v, _ in def_parts})
    if not game.retreat.retreated_defend:  # 10.3(1)2: units that retreated here this segment add nothing
        def_parts = [(uid, Fraction(0), f"{uid} retreated here in this combat segment: no defence")
                     if f"retreated:{uid}" in state.attacked else (uid, v, why) for uid, v, why in def_parts]
    a_exact = Fraction(sum(v for _, v, _ in att_parts))  # (units' factors are mostly whole: summed as ints)
    d_exact = Fraction(sum(v for _, v, _ in def_parts))
    rounding = game.info.rounding
    a_total, d_total = round_value(a_exact, rounding), round_value(d_exact, rounding)
    # shifts
    shifts: list[tuple[int, str]] = []
    if target in board:
        for left, reason in terrain_shift_parts(game, (board.terrain(target), *board.features(target))):
            shifts.append((-left, reason))
        across = None
        for u in att_units:
            if u.hex is not None:
                kinds = board.edge(u.hex, target).hexside
                across = set(kinds) if across is None else across & kinds
        for kind in sorted(across or ()):
            eff = chart.get(kind)
            if eff is not None and eff.left_shifts:
                shifts.append((-eff.left_shifts, f"every attacker attacks across {_name(game, kind)}: "
                                                 f"{eff.left_shifts} left"))
    drms: list[tuple[int, str]] = []
    if modified:
        for n, title in whole_modifiers(game, f"{table.id}.shift", names):
            shifts.append((n, f"{title}: {abs(n)} {'left' if n < 0 else 'right'}"))
        drms = [(n, title) for n, title in whole_modifiers(game, table.id, names)]
    for n, title in options:
        if n:
            shifts.append((n, f"{title}: {abs(n)} {'left' if n < 0 else 'right'}"))
    if extra_shift:
        shifts.append((extra_shift, f"other: {abs(extra_shift)} {'left' if extra_shift < 0 else 'right'}"))
    total_shift = sum(s for s, _ in shifts)
    col = column_for(table, a_total, d_total, total_shift)
    die = die_for(game, table, att_side) if att_side else die_for(game, table, "*")
    if die is None and att_side:
        errors.append(f"crt {table.id} names no die for {att_side}")
    drm = sum(n for n, _ in drms)
    probs = probabilities(game, table, col.index, die, drm) if col.column is not None and die else {}
    if col.column is None and not errors:
        errors.append(f"cannot attack {tid}: {col.reason}")
    return OddsReport(table, list(attackers), target, a_total, d_total, a_exact, d_exact, att_parts, def_parts,
                      shifts, total_shift, col, die, probs, errors, drms)
