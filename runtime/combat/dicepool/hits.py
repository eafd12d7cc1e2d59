"""Hit tests and exact hit distributions (Prokhorovka 10.3, 12.0).

A hit test is what one die must show to score: a number N ("this or
less"), ``●`` (an automatic hit, no die) or ``◆`` (a firing round: the die
plus the target's armour at most the weapon's fire, and a 1 always hits).
Chart cells are kept as written; ``read_test`` turns one into a test.
Distributions are exact (``Fraction``), built by convolution, so that the
probability of every number of hits of a pool is known before the dice."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

AUTO = "●"
ROUND = "◆"


@dataclass(frozen=True, slots=True)
class HitTest:
    """``kind``: "auto" (●), "number" (hit on ``value`` or less) or "round"
    (◆: hit when the die is 1 or die + ``armour`` <= ``value``, the
    weapon's fire)."""

    kind: str
    value: int = 0
    armour: int = 0

    def hits(self, die: int) -> bool:
        if self.kind == "auto":
            return True
        if self.kind == "number":
            return die <= self.value
        return die == 1 or die + self.armour <= self.value

    @property
    def rolls(self) -> bool:
        """Whether the test needs a die (● does not)."""
        return self.kind != "auto"

    def probability(self, sides: int = 6) -> Fraction:
        if self.kind == "auto":
            return Fraction(1)
        return Fraction(sum(1 for d in range(1, sides + 1) if self.hits(d)), sides)

    def text(self) -> str:
        if self.kind == "auto":
            return "● (automatic)"
        if self.kind == "number":
            return f"{self.value} or less"
        return f"◆ (1, or die + {self.armour} <= {self.value})"


def read_test(cell: str) -> HitTest | None:
    """A chart cell as a hit test: "3", "●", "◆" (the fire and armour of a
    ◆ are filled in by the caller); None for anything else ("-")."""
    cell = cell.strip()
    if cell == AUTO:
        return HitTest("auto")
    if cell == ROUND:
        return HitTest("round")
    if cell.lstrip("-").isdigit():
        return HitTest("number", int(cell))
    return None


def firing_round(fire: int, armour: int) -> HitTest:
    return HitTest("round", fire, armour)


def convolve(a: dict[int, Fraction], b: dict[int, Fraction]) -> dict[int, Fraction]:
    """The distribution of the sum of two independent totals."""
    out: dict[int, Fraction] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, Fraction(0)) + p * q
    return out


def binomial(n: int, p: Fraction) -> dict[int, Fraction]:
    """The exact probability of each number of hits of ``n`` dice that each
    hit with probability ``p`` (one pool: every die has the same test)."""
    if p >= 1:
        return {n: Fraction(1)}
    if p <= 0:
        return {0: Fraction(1)}
    return {k: comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)}


def hits_distribution(tests, sides: int = 6) -> dict[int, Fraction]:
    """The exact probability of each number of hits of independent tests
    (one per die or weapon)."""
    dist = {0: Fraction(1)}
    for t in tests:
        p = t.probability(sides)
        dist = convolve(dist, {0: 1 - p, 1: p} if p < 1 else {1: Fraction(1)})
    return {k: v for k, v in sorted(dist.items()) if v}
