"""Actions: small dataclasses with a text notation that round-trips.

    move 7Pz 1405            move 7Pz 1405 march
    attack 1305 with 4Pz,10Mot
    lose 4Pz                 (allocate one step of a combat loss)
    retreat 7Pz 1306,1407    retreat 7Pz -   (no hex: the unit is destroyed)
    advance 4Pz 1305,1306
    hold                     (take step losses instead of retreating, where the rules allow)
    use desperate-effort 1PzG  (use a battle option, firepower combat)
    hit WF                   (assign one point of enemy firepower to a unit, firepower combat)
    detach Det1 0305         (a counter attached to a unit leaves it as a unit and moves: a detachment)
    fire artillery 1203      (a fire attack on a hex, where a fire effect grants one)
    pair Tiger KV1           (pair one of my tank weapons with an enemy one, dice-pool tank duels)
    send-back 93G            (a unit that cannot enter goes back where it came from: stacking judged end)
    done                     (end the current segment, or decline an advance or a hold)
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Union


class IllegalActionError(Exception):
    """An action the rules forbid; the message says why, in the game's terms
    ("7Pz cannot enter 1203: needs 6 MP, has 5")."""


@dataclass(frozen=True, slots=True)
class Move:
    unit: str
    to: str
    mode: str = ""

    def __str__(self) -> str:
        return f"move {self.unit} {self.to}" + (f" {self.mode}" if self.mode else "")


class ActionList(Sequence):
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


@dataclass(frozen=True, slots=True)
class Attack:
    target: str
    attackers: tuple[str, ...]

    def __str__(self) -> str:
        return f"attack {self.target} with {','.join(self.attackers)}"


@dataclass(frozen=True, slots=True)
class LoseStep:
    unit: str

    def __str__(self) -> str:
        return f"lose {self.unit}"


@dataclass(frozen=True, slots=True)
class Retreat:
    unit: str
    path: tuple[str, ...]

    def __str__(self) -> str:
        return f"retreat {self.unit} {','.join(self.path) or '-'}"


@dataclass(frozen=True, slots=True)
class Advance:
    unit: str
    path: tuple[str, ...]

    def __str__(self) -> str:
        return f"advance {self.unit} {','.join(self.path)}"


@dataclass(frozen=True, slots=True)
class Displace:
    """Where an overrun (or stranded) unit goes (AVD 移动 4 f: its owner chooses)."""
    unit: str
    to: str

    def __str__(self) -> str:
        return f"displace {self.unit} {self.to}"


@dataclass(frozen=True, slots=True)
class Hold:
    """Take step losses instead of retreating (Smolensk 14.2(5))."""

    def __str__(self) -> str:
        return "hold"


@dataclass(frozen=True, slots=True)
class Use:
    """Use a battle option (firepower combat): ``use desperate-effort 1PzG``,
    ``use stavka-artillery`` (an option the side itself provides)."""

    option: str
    unit: str = ""

    def __str__(self) -> str:
        return f"use {self.option}" + (f" {self.unit}" if self.unit else "")


@dataclass(frozen=True, slots=True)
class Hit:
    """Assign one point of enemy firepower to a unit (firepower combat)."""

    unit: str

    def __str__(self) -> str:
        return f"hit {self.unit}"


@dataclass(frozen=True, slots=True)
class Detach:
    """A counter under a unit leaves it as a unit of its own and moves from
    the host's hex (an attachment kind's ``converts``: GJ63's detachment)."""

    unit: str
    to: str

    def __str__(self) -> str:
        return f"detach {self.unit} {self.to}"


@dataclass(frozen=True, slots=True)
class Fire:
    """A fire attack of a kind on a hex: ``fire artillery 1203`` (runtime.combat.fire)."""

    kind: str
    target: str

    def __str__(self) -> str:
        return f"fire {self.kind} {self.target}"


@dataclass(frozen=True, slots=True)
class Pair:
    """Pair one of my tank-battle weapons with an enemy one for the tank duel
    (dice-pool combat, Prokhorovka 11.5(2))."""

    unit: str
    target: str

    def __str__(self) -> str:
        return f"pair {self.unit} {self.target}"


@dataclass(frozen=True, slots=True)
class SendBack:
    """The unit that goes back to where it came from when a hex stays over
    the stacking limit at the end of movement and no unit there can move
    out (GJ63 3.4(4), 7.0(2): its owner chooses among the reinforcements
    placed there this turn)."""

    unit: str

    def __str__(self) -> str:
        return f"send-back {self.unit}"


@dataclass(frozen=True, slots=True)
class Done:
    def __str__(self) -> str:
        return "done"


Action = Union[Move, Attack, LoseStep, Retreat, Advance, Displace, Hold, Use, Hit, Detach, Fire, Pair, SendBack,
               Done]


def parse_action(text: str) -> Action:
    """Read an action's text notation; IllegalActionError if malformed."""
    words = text.split()
    if not words:
        raise IllegalActionError("an empty action")
    verb, rest = words[0], words[1:]
    try:
        if verb == "move" and len(rest) in (2, 3):
            return Move(rest[0], rest[1], rest[2] if len(rest) == 3 else "")
        if verb == "attack" and len(rest) == 3 and rest[1] == "with":
            return Attack(rest[0], tuple(x for x in rest[2].split(",") if x))
        if verb == "lose" and len(rest) == 1:
            return LoseStep(rest[0])
        if verb == "retreat" and len(rest) == 2:
            return Retreat(rest[0], () if rest[1] == "-" else tuple(rest[1].split(",")))
        if verb == "advance" and len(rest) == 2:
            return Advance(rest[0], tuple(rest[1].split(",")))
        if verb == "displace" and len(rest) == 2:
            return Displace(rest[0], rest[1])
        if verb == "done" and not rest:
            return Done()
        if verb == "hold" and not rest:
            return Hold()
        if verb == "use" and len(rest) in (1, 2):
            return Use(rest[0], rest[1] if len(rest) == 2 else "")
        if verb == "hit" and len(rest) == 1:
            return Hit(rest[0])
        if verb == "detach" and len(rest) == 2:
            return Detach(rest[0], rest[1])
        if verb == "fire" and len(rest) == 2:
            return Fire(rest[0], rest[1])
        if verb == "pair" and len(rest) == 2:
            return Pair(rest[0], rest[1])
        if verb == "send-back" and len(rest) == 1:
            return SendBack(rest[0])
    except ValueError:
        pass
    raise IllegalActionError(f"cannot read the action '{text}': write e.g. 'move 7Pz 1405', "
                             "'attack 1305 with 4Pz,10Mot', 'lose 4Pz', 'retreat 7Pz 1306', 'advance 4Pz 1305', "
                             "'use desperate-effort 1PzG', 'hit WF', 'displace 13A 1215', 'detach Det1 0305', 'fire artillery 1203', "
                             "'pair Tiger KV1', 'send-back 93G', 'done'")
