"""The lists of decisions a runner offers without building them: a movement
segment's moves, a set-up's or a reinforcement step's placements, the
transfers (thousands of answers, of which an agent takes one).  Each reads as
the list it stands for.

They are compiled (runtime/compiled.py), so they do not derive from
``collections.abc.Sequence``: a class that mypyc compiles shares the registry
of the abstract class it derives from, and ``isinstance(a list, Placements)``
came out true.  ``ActionList`` is registered as a ``Sequence`` instead, and
says itself what the abstract class would have added (``index``, ``count``,
``reversed``); the engine casts the move list it returns to the ``Sequence``
its type says."""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

from .actions import Move
from .decisions import Place, Transfer


class ActionList:
    """Decisions listed without building them (a movement segment or a set-up
    offers thousands), read as the list they stand for: length, index
    (slices and negative indices too), membership, iteration, equality and
    ``+``.  A subclass says its length, builds the answer at a valid index
    (``_at``) and iterates."""

    __slots__ = ()

    def _at(self, i: int):
        raise NotImplementedError

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("action index out of range")
        return self._at(i)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and all(a == b for a, b in zip(self, other))

    def __add__(self, other) -> list:
        return list(self) + list(other)

    def __len__(self) -> int:
        raise NotImplementedError

    def __iter__(self):
        raise NotImplementedError

    def __contains__(self, a) -> bool:
        raise NotImplementedError

    def __reversed__(self):
        for i in range(len(self) - 1, -1, -1):
            yield self._at(i)

    def index(self, a) -> int:
        for i, b in enumerate(self):
            if b == a:
                return i
        raise ValueError(f"{a} is not among the actions")

    def count(self, a) -> int:
        return sum(1 for b in self if b == a)


Sequence.register(ActionList)


class HexGroups(ActionList):
    """Answers in groups, each ending with the hexes its answers name (by
    their ids, ``hex_id``), then a tail of other answers: a group's answer
    for one hex is ``_make(group, hex id)``."""

    __slots__ = ("groups", "tail", "_hex_id", "_ends")

    def __init__(self, groups: list[tuple], tail: list, hex_id: Callable[[Any], str]):
        self.groups, self.tail, self._hex_id = groups, list(tail), hex_id
        ends, n = [], 0
        for g in groups:
            n += len(g[-1])
            ends.append(n)
        self._ends = ends

    def _make(self, group: tuple, hex_id: str):
        raise NotImplementedError

    def __len__(self) -> int:
        return (self._ends[-1] if self._ends else 0) + len(self.tail)

    def _at(self, i: int):
        k = self._ends[-1] if self._ends else 0
        if i >= k:
            return self.tail[i - k]
        g = bisect_right(self._ends, i)
        group = self.groups[g]
        return self._make(group, self._hex_id(group[-1][i - (self._ends[g - 1] if g else 0)]))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} actions)"


class Moves(HexGroups):
    """The move decisions ``[Move(unit, hex_id(h), mode) for (unit, mode,
    hexes) in groups for h in hexes] + tail``, in that order, without
    building them: a movement segment offers every destination of every unit
    that may move, and an agent takes one (the move last built is known to
    be in the list without a search: the engine asks when it is made)."""

    __slots__ = ("_parse", "_made")

    def __init__(self, groups: list[tuple[str, str, Sequence]], tail: list, hex_id: Callable[[Any], str],
                 parse: Callable[[str], Any]):
        super().__init__(groups, tail, hex_id)
        self._parse = parse
        self._made: Move | None = None

    def _make(self, group: tuple, hex_id: str) -> Move:
        a = self._made = Move(group[0], hex_id, group[1])
        return a

    def __iter__(self):
        hex_id = self._hex_id
        for unit, mode, hexes in self.groups:
            for h in hexes:
                yield Move(unit, hex_id(h), mode)
        yield from self.tail

    def __contains__(self, a) -> bool:
        if a is self._made and a is not None:  # (built from the list: in it)
            return True
        if isinstance(a, Move):  # (the hex its id names, if that is how the list names it, among the unit's)
            try:
                h = self._parse(a.to)
            except (ValueError, TypeError):  # (not a hex id: not a listed move)
                h = None
            if h is not None and self._hex_id(h) == a.to and \
                    any(unit == a.unit and mode == a.mode and h in hexes for unit, mode, hexes in self.groups):
                return True
        return a in self.tail


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
