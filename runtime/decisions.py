"""The runner's decisions that are not unit actions, with their text
notation (runtime.runner's docstring lists them): choosing, picking and
playing chits, placing units, activating, withdrawing, transferring,
attaching counters to units and returning them to a pool."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .actions import Action, parse_action


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
