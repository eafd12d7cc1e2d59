"""The runner's decisions that are not unit actions, with their text
notation (runtime.runner's docstring lists them): choosing, picking and
playing chits, placing units, activating, withdrawing, transferring."""
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


RunnerAction = Union[Action, Choose, Pick, Play, Place, Activate, Withdraw, Transfer, Take]


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
    return parse_action(text)
