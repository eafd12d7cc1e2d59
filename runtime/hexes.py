"""Hex geometry and printed hex numbering.

Coordinates follow Red Blob Games' hex grid guide
(https://www.redblobgames.com/grids/hexagons/): a hex is stored in *axial*
coordinates ``(q, r)``; the third cube coordinate is ``s = -q - r``.

A :class:`Grid` describes how a printed map numbers its hexes ("0927" is
column 09, row 27) and converts between printed numbers, axial hexes and
screen pixels.  Screen y grows downwards.

Direction numbers 0..5 run clockwise.  For flat-topped hexes they are
N, NE, SE, S, SW, NW; for pointy-topped hexes NW, NE, E, SE, SW, W.
``(d + 3) % 6`` is always the opposite direction.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "DIRECTIONS",
    "Grid",
    "Hex",
    "HexIdError",
    "Hexside",
    "hex_distance",
    "hex_line",
    "hex_round",
    "hexside",
]

#: Axial deltas for directions 0..5 (clockwise, see the module docstring).
DIRECTIONS: tuple[tuple[int, int], ...] = (
    (0, -1),
    (1, -1),
    (1, 0),
    (0, 1),
    (-1, 1),
    (-1, 0),
)

_SQRT3 = math.sqrt(3.0)


class HexIdError(ValueError):
    """A printed hex ID or hex range could not be understood."""


_WITHIN: dict[tuple, tuple] = {}  # (hex, distance) -> Hex.within's hexes, in its order
_WITHIN_KEPT = 50_000


def hex_distance(a: Hex, b: Hex) -> int:
    """Number of hex steps between ``a`` and ``b``."""
    dq = a.q - b.q
    dr = a.r - b.r
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


# ``hex_distance`` written out over many hexes (no call per hex: the bots ask millions a game); a
# distance doubled, |dq| + |dr| + |dq + dr|, is always even

def farthest(h: Hex, hexes) -> int:
    """The most hex steps from ``h`` to any of ``hexes`` (0 for none)."""
    q0, r0 = h
    return max((abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0) for q, r in hexes), default=0) // 2


def nearest(h: Hex, hexes, default: int = 0) -> int:
    """The fewest hex steps from ``h`` to any of ``hexes`` (``default`` for none)."""
    q0, r0 = h
    twice = min((abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0) for q, r in hexes), default=-1)
    return default if twice < 0 else twice // 2


def any_within(h: Hex, hexes, n) -> bool:
    """Whether one of ``hexes`` is at most ``n`` hex steps from ``h``."""
    q0, r0 = h
    twice = 2 * n
    return any(abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0) <= twice for q, r in hexes)


def count_within(h: Hex, hexes, n) -> int:
    """How many of ``hexes`` are at most ``n`` hex steps from ``h``."""
    q0, r0 = h
    twice = 2 * n
    return sum(1 for q, r in hexes if abs(q - q0) + abs(r - r0) + abs(q - q0 + r - r0) <= twice)


def counts_within(hexes, n: int) -> dict[tuple[int, int], int]:
    """For every hex within ``n`` hex steps of one of ``hexes``, how many of
    ``hexes`` are (``count_within`` of each, worked out at once: dearer to
    build than one count, cheaper than a count per hex of a disc).  The keys
    are (q, r) tuples, which a ``Hex`` reads as itself."""
    disc = Hex(0, 0).within(n)  # (the offsets of a disc of radius n)
    out: dict[tuple[int, int], int] = {}
    get = out.get
    for q0, r0 in hexes:
        for dq, dr in disc:
            k = (q0 + dq, r0 + dr)
            out[k] = get(k, 0) + 1
    return out


class Hex(NamedTuple):
    """One hex in axial coordinates (ordered by ``q``, then ``r``).

    A NamedTuple rather than a dataclass: hexes are dictionary keys in every
    search, and tuple hashing and comparison run in C (measured ~3x faster
    for building a 7,200-hex board)."""

    q: int
    r: int

    @property
    def s(self) -> int:
        """The third cube coordinate (``q + r + s == 0``)."""
        return -self.q - self.r

    def neighbour(self, direction: int) -> Hex:
        """The adjacent hex in ``direction`` (taken modulo 6)."""
        dq, dr = DIRECTIONS[direction % 6]
        return Hex(self.q + dq, self.r + dr)

    def neighbours(self) -> tuple[Hex, ...]:
        """The six adjacent hexes, in direction order 0..5."""
        return tuple(Hex(self.q + dq, self.r + dr) for dq, dr in DIRECTIONS)

    # ``h.distance(other)``: the number of hex steps between them (the function itself, not a
    # method calling it: bots ask it millions of times a game)
    distance = hex_distance

    def direction_to(self, other: Hex) -> int | None:
        """Direction from ``self`` to an adjacent ``other``; None if not adjacent."""
        delta = (other.q - self.q, other.r - self.r)
        try:
            return DIRECTIONS.index(delta)
        except ValueError:
            return None

    def within(self, n: int) -> list[Hex]:
        """All hexes at distance ``<= n`` (including ``self``); empty if n < 0.
        Worked out once per hex and distance (a battle asks it of the same
        hexes again and again); each call gets a list of its own."""
        kept = _WITHIN.get((self, n))
        if kept is None:
            kept = tuple(Hex(self.q + dq, self.r + dr) for dq in range(-n, n + 1)
                         for dr in range(max(-n, -dq - n), min(n, -dq + n) + 1))
            if len(_WITHIN) >= _WITHIN_KEPT:
                _WITHIN.clear()
            _WITHIN[(self, n)] = kept
        return list(kept)

    def ring(self, n: int) -> list[Hex]:
        """All hexes at distance exactly ``n``, walking clockwise from direction 0."""
        if n < 0:
            return []
        if n == 0:
            return [self]
        dq, dr = DIRECTIONS[0]
        current = Hex(self.q + dq * n, self.r + dr * n)
        result = []
        for side in range(6):
            for _ in range(n):
                result.append(current)
                current = current.neighbour(side + 2)
        return result


def hex_round(fq: float, fr: float) -> Hex:
    """The hex containing the fractional axial point ``(fq, fr)`` (cube rounding)."""
    fs = -fq - fr
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(int(q), int(r))


def hex_line(a: Hex, b: Hex) -> list[Hex]:
    """Hexes on the straight line from ``a`` to ``b``, both ends included.

    Uses cube linear interpolation and rounding; a tiny nudge breaks ties
    consistently when the line runs exactly along a hexside.
    """
    n = hex_distance(a, b)
    if n == 0:
        return [a]
    aq, ar = a.q + 1e-6, a.r + 1e-6
    bq, br = b.q + 1e-6, b.r + 1e-6
    result = []
    for i in range(n + 1):
        t = i / n
        result.append(hex_round(aq + (bq - aq) * t, ar + (br - ar) * t))
    return result


class Hexside(NamedTuple):
    """The edge between two adjacent hexes, stored in canonical order ``a < b``.

    ``Hexside(x, y) == Hexside(y, x)``; non-adjacent hexes raise ValueError.
    """

    a: Hex
    b: Hex

    @classmethod
    def _check(cls, a: Hex, b: Hex) -> tuple[Hex, Hex]:
        if hex_distance(a, b) != 1:
            raise ValueError(f"{a} and {b} are not adjacent, so they share no hexside")
        return (a, b) if a < b else (b, a)

    def other(self, h: Hex) -> Hex:
        """The hex on the far side from ``h`` (which must be ``a`` or ``b``)."""
        if h == self.a:
            return self.b
        if h == self.b:
            return self.a
        raise ValueError(f"{h} is not on either side of {self}")


def _hexside_new(cls, a: Hex, b: Hex) -> "Hexside":
    a, b = Hexside._check(a, b)
    return tuple.__new__(cls, (a, b))


Hexside.__new__ = _hexside_new  # canonical order, checked adjacency


def hexside(a: Hex, b: Hex) -> Hexside:
    """The hexside between adjacent hexes ``a`` and ``b`` (in either order)."""
    return Hexside(a, b)


_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class Grid:
    """How a printed map lays out and numbers its hexes.

    ``orientation="flat"``: flat-topped hexes in vertical columns; the printed
    columns whose number is odd/even (``shifted``) sit half a hex lower.
    ``orientation="pointy"``: pointy-topped hexes in horizontal rows; the
    printed rows whose number is odd/even sit half a hex to the right.

    Axial ``q`` is the printed column (flat) and axial ``r`` the printed row
    (pointy), so parity on the printed number and on the axial coordinate agree.
    Pixel coordinates are relative to the top-left corner of the bounding box
    of the hexes the grid contains.
    """

    orientation: str = "flat"
    shifted: str = "even"
    first_col: int = 1
    first_row: int = 1
    cols: int = 10
    rows: int = 10
    col_digits: int = 2
    row_digits: int = 2

    def __post_init__(self) -> None:
        if self.orientation not in ("flat", "pointy"):
            raise ValueError(f'grid orientation must be "flat" or "pointy", not {self.orientation!r}')
        if self.shifted not in ("odd", "even"):
            raise ValueError(f'grid shifted must be "odd" or "even", not {self.shifted!r}')
        if self.cols < 1 or self.rows < 1:
            raise ValueError("a grid needs at least one column and one row")
        if self.col_digits < 1 or self.row_digits < 1:
            raise ValueError("hex IDs need at least one digit for the column and one for the row")

    # -- printed numbers <-> axial ---------------------------------------

    def _shift(self, n: int) -> int:
        """Amount (0 or 1) that offset ``n`` is corrected by, per Red Blob's odd/even formulas."""
        return n // 2 if self.shifted == "odd" else (n + 1) // 2

    def to_hex(self, col: int, row: int) -> Hex:
        """Axial hex for printed column ``col`` and row ``row``."""
        if self.orientation == "flat":
            return Hex(col, row - self._shift(col))
        return Hex(col - self._shift(row), row)

    def to_colrow(self, h: Hex) -> tuple[int, int]:
        """Printed ``(column, row)`` of hex ``h``."""
        if self.orientation == "flat":
            return h.q, h.r + self._shift(h.q)
        return h.q + self._shift(h.r), h.r

    def contains(self, h: Hex) -> bool:
        """Whether ``h`` lies on the map described by this grid."""
        col, row = self.to_colrow(h)
        return (
            self.first_col <= col < self.first_col + self.cols
            and self.first_row <= row < self.first_row + self.rows
        )

    def all_hexes(self) -> list[Hex]:
        """Every hex on the map, column by column, rows in printed order."""
        return [
            self.to_hex(col, row)
            for col in range(self.first_col, self.first_col + self.cols)
            for row in range(self.first_row, self.first_row + self.rows)
        ]

    # -- printed IDs --------------------------------------------------------

    def _pattern(self) -> str:
        return "C" * self.col_digits + "R" * self.row_digits

    def format_id(self, h: Hex) -> str:
        """Printed ID such as ``"0927"``; wider numbers simply use more digits."""
        col, row = self.to_colrow(h)
        if col < 0 or row < 0:
            raise HexIdError(f"the hex at column {col}, row {row} has no printed ID (negative number)")
        return f"{col:0{self.col_digits}d}{row:0{self.row_digits}d}"

    def parse_id(self, text: str) -> Hex:
        """Hex for a printed ID of exactly ``col_digits + row_digits`` digits."""
        width = self.col_digits + self.row_digits
        if not isinstance(text, str) or len(text) != width or not _DIGITS.fullmatch(text):
            shown = text if isinstance(text, str) else repr(text)
            if len(shown) > 40:
                shown = shown[:37] + "..."
            raise HexIdError(
                f'"{shown}" is not a hex ID: expected {width} digits ({self._pattern()})'
            )
        return self.to_hex(int(text[: self.col_digits]), int(text[self.col_digits :]))

    def id_range(self, a: str, b: str) -> list[Hex]:
        """Hexes of a printed range such as ``"5503-5513"``, both ends included.

        The ends must share a column or a row; hexes run from ``a`` towards ``b``.
        """
        start, end = self.parse_id(a), self.parse_id(b)
        c1, r1 = self.to_colrow(start)
        c2, r2 = self.to_colrow(end)
        if c1 == c2:
            step = 1 if r2 >= r1 else -1
            return [self.to_hex(c1, r) for r in range(r1, r2 + step, step)]
        if r1 == r2:
            step = 1 if c2 >= c1 else -1
            return [self.to_hex(c, r1) for c in range(c1, c2 + step, step)]
        raise HexIdError(
            f'"{a}-{b}" is not a hex range: both ends must be in the same column or the same row'
        )

    # -- pixels ---------------------------------------------------------------

    def _raw_pixel(self, h: Hex, size: float) -> tuple[float, float]:
        """Centre of ``h`` with axial hex (0, 0) at the origin."""
        if self.orientation == "flat":
            return size * 1.5 * h.q, size * _SQRT3 * (h.r + h.q / 2)
        return size * _SQRT3 * (h.q + h.r / 2), size * 1.5 * h.r

    def _origin(self, size: float) -> tuple[float, float]:
        """Raw pixel position of the top-left corner of the map's bounding box."""
        fc, fr = self.first_col, self.first_row
        if self.orientation == "flat":
            x = self._raw_pixel(self.to_hex(fc, fr), size)[0] - size
            tops = [self._raw_pixel(self.to_hex(c, fr), size)[1] for c in range(fc, fc + min(self.cols, 2))]
            return x, min(tops) - size * _SQRT3 / 2
        lefts = [self._raw_pixel(self.to_hex(fc, r), size)[0] for r in range(fr, fr + min(self.rows, 2))]
        y = self._raw_pixel(self.to_hex(fc, fr), size)[1] - size
        return min(lefts) - size * _SQRT3 / 2, y

    def hex_to_pixel(self, h: Hex, size: float) -> tuple[float, float]:
        """Centre of ``h`` in pixels; ``size`` is the centre-to-corner distance."""
        x, y = self._raw_pixel(h, size)
        ox, oy = self._origin(size)
        return x - ox, y - oy

    def pixel_to_hex(self, x: float, y: float, size: float) -> Hex:
        """The hex containing pixel ``(x, y)`` (inverse of :meth:`hex_to_pixel`)."""
        ox, oy = self._origin(size)
        px, py = (x + ox) / size, (y + oy) / size
        if self.orientation == "flat":
            fq = px * 2 / 3
            fr = -px / 3 + py * _SQRT3 / 3
        else:
            fq = px * _SQRT3 / 3 - py / 3
            fr = py * 2 / 3
        return hex_round(fq, fr)

    def corners(self, h: Hex, size: float) -> list[tuple[float, float]]:
        """The six corners of ``h``, clockwise on screen.

        Corner ``i`` is at angle ``60*i`` degrees (flat) or ``60*i - 30`` (pointy),
        measured clockwise from east because screen y grows downwards.
        """
        cx, cy = self.hex_to_pixel(h, size)
        offset = 0.0 if self.orientation == "flat" else -30.0
        result = []
        for i in range(6):
            angle = math.radians(60.0 * i + offset)
            result.append((cx + size * math.cos(angle), cy + size * math.sin(angle)))
        return result

    def edge_corners(
        self, h: Hex, direction: int, size: float
    ) -> tuple[tuple[float, float], tuple[float, float]]:
        """The two corners of the hexside between ``h`` and ``h.neighbour(direction)``."""
        points = self.corners(h, size)
        d = direction % 6
        return points[(d + 4) % 6], points[(d + 5) % 6]
