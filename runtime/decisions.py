"""The runner's decisions that are not unit actions, with their text
notation (runtime.runner's docstring lists them): choosing, picking and
playing chits, placing units, activating, withdrawing, transferring,
attaching counters to units and returning them to a pool."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Union

from .actions import Action, ActionList, HexGroups, parse_action


@dataclass(frozen=True, slots=True)
class Choose:
    chit: str

    def __str__(self) -> str:
        return f"choose {self.chit}"


@dataclass(frozen=True, slots=True)
class Pick:
    chit: str

    def __str__(self) -> str:
        return f"pick {self.chit}"


@dataclass(frozen=True, slots=True)
class Play:
    chit: str

    def __str__(self) -> str:
        return f"play {self.chit}"


@dataclass(frozen=True, slots=True)
class Place:
    unit: str
    at: str

    def __str__(self) -> str:
        return f"place {self.unit} {self.at}"


@dataclass(frozen=True, slots=True)
class Activate:
    unit: str

    def __str__(self) -> str:
        return f"activate {self.unit}"


@dataclass(frozen=True, slots=True)
class Transfer:
    unit: str

    def __str__(self) -> str:
        return f"transfer {self.unit}"


@dataclass(frozen=True, slots=True)
class Withdraw:
    unit: str

    def __str__(self) -> str:
        return f"withdraw {self.unit}"


@dataclass(frozen=True, slots=True)
class Take:
    """A unit picked for an effect (``move ... by SIDE``, ``restore``)."""

    unit: str

    def __str__(self) -> str:
        return f"take {self.unit}"


@dataclass(frozen=True, slots=True)
class Attach:
    """A counter put under a unit (from a pool, or from another unit: a
    transfer) in a reorganize phase (runtime/reorganize.py)."""

    unit: str
    host: str

    def __str__(self) -> str:
        return f"attach {self.unit} {self.host}"


@dataclass(frozen=True, slots=True)
class Return:
    """A counter under a unit (or a detachment standing as a unit) sent back to
    the phase's pool in a reorganize phase."""

    unit: str

    def __str__(self) -> str:
        return f"return {self.unit}"


@dataclass(frozen=True, slots=True)
class Designate:
    """A unit given a designate phase's marker (GJ63 5.1(3): a reserve)."""

    unit: str

    def __str__(self) -> str:
        return f"designate {self.unit}"


class Transfers(ActionList):
    """The transfer decisions ``[Transfer(u) for u in units] + tail``, without
    building them: a side may transfer any of its dozens of units in
    supply, one answer at a time, each answer listing the rest again."""

    __slots__ = ("units", "tail")

    def __init__(self, units: list[str], tail: list):
        self.units, self.tail = units, list(tail)

    def __len__(self) -> int:
        return len(self.units) + len(self.tail)

    def _at(self, i: int):
        return Transfer(self.units[i]) if i < len(self.units) else self.tail[i - len(self.units)]

    def __contains__(self, a) -> bool:
        return a.unit in self.units if isinstance(a, Transfer) else a in self.tail

    def __iter__(self):
        for u in self.units:
            yield Transfer(u)
        yield from self.tail

    def __repr__(self) -> str:
        return f"Transfers({self.units!r} + {self.tail!r})"


class Placements(ActionList):
    """The place decisions ``[Place(u, h) for u in units for h in hexes] + tail``,
    in that order, without building them: a reinforcement step can offer
    tens of thousands (every waiting unit times every hex with room)."""

    __slots__ = ("units", "hexes", "tail", "_units", "_hexes")

    def __init__(self, units: list[str], hexes: list[str], tail: list):
        self.units, self.hexes, self.tail = list(units), list(hexes), list(tail)
        self._units, self._hexes = frozenset(self.units), frozenset(self.hexes)

    def __len__(self) -> int:
        return len(self.units) * len(self.hexes) + len(self.tail)

    def _at(self, i: int):
        k = len(self.units) * len(self.hexes)
        if i >= k:
            return self.tail[i - k]
        u, h = divmod(i, len(self.hexes))
        return Place(self.units[u], self.hexes[h])

    def __contains__(self, a) -> bool:
        if isinstance(a, Place):
            return a.unit in self._units and a.at in self._hexes
        return a in self.tail

    def __iter__(self):
        for u in self.units:
            for h in self.hexes:
                yield Place(u, h)
        yield from self.tail

    def __repr__(self) -> str:
        return f"Placements({len(self.units)} units x {len(self.hexes)} hexes + {self.tail!r})"


class UnitPlacements(HexGroups):
    """The place decisions ``[Place(unit, hex_id(h)) for (unit, hexes) in
    groups for h in hexes] + tail``, in that order, without building them:
    a set-up offers every waiting unit each hex open to it, and an agent
    takes one."""

    __slots__ = ("_ids",)

    def __init__(self, groups: list[tuple[str, Sequence]], tail: list, hex_id: Callable[[Any], str]):
        super().__init__(groups, tail, hex_id)
        self._ids: dict[str, frozenset[str]] = {}  # unit -> the hex ids it may take, when asked

    def _make(self, group: tuple, hex_id: str) -> Place:
        return Place(group[0], hex_id)

    def __iter__(self):
        hex_id = self._hex_id
        for unit, hexes in self.groups:
            for h in hexes:
                yield Place(unit, hex_id(h))
        yield from self.tail

    def __contains__(self, a) -> bool:
        if not isinstance(a, Place):
            return a in self.tail
        ids = self._ids.get(a.unit)
        if ids is None:  # (the unit's hexes as ids, worked out for the units asked about)
            hex_id = self._hex_id
            ids = self._ids[a.unit] = frozenset(hex_id(h) for unit, hexes in self.groups if unit == a.unit
                                                for h in hexes)
        return a.at in ids or a in self.tail


RunnerAction = Union[Action, Choose, Pick, Play, Place, Activate, Withdraw, Transfer, Take, Attach, Return, Designate]


def parse(text: str) -> RunnerAction:
    words = text.split()
    if len(words) == 2 and words[0] == "choose":
        return Choose(words[1])
    if len(words) == 2 and words[0] == "pick":
        return Pick(words[1])
    if len(words) == 2 and words[0] == "play":
        return Play(words[1])
    if len(words) == 3 and words[0] == "place":
        return Place(words[1], words[2])
    if len(words) == 2 and words[0] == "activate":
        return Activate(words[1])
    if len(words) == 2 and words[0] == "withdraw":
        return Withdraw(words[1])
    if len(words) == 2 and words[0] == "transfer":
        return Transfer(words[1])
    if len(words) == 2 and words[0] == "take":
        return Take(words[1])
    if len(words) == 3 and words[0] == "attach":
        return Attach(words[1], words[2])
    if len(words) == 2 and words[0] == "return":
        return Return(words[1])
    if len(words) == 2 and words[0] == "designate":
        return Designate(words[1])
    return parse_action(text)
