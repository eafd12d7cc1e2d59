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

from dataclasses import dataclass
from typing import Union


class IllegalActionError(Exception):
    """An action the rules forbid; the message says why, in the game's terms
    ("7Pz cannot enter 1203: needs 6 MP, has 5")."""


def shortened(text, most: int = 60) -> str:
    """An action, or a name in it, as a message quotes it: a text typed or
    edited by hand may be any length."""
    text = str(text)
    return text if len(text) <= most else text[:most] + "..."


@dataclass(frozen=True, slots=True)
class Move:
    unit: str
    to: str
    mode: str = ""

    def __str__(self) -> str:
        return f"move {self.unit} {self.to}" + (f" {self.mode}" if self.mode else "")


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
    raise IllegalActionError(f"cannot read the action '{shortened(text)}': write e.g. 'move 7Pz 1405', "
                             "'attack 1305 with 4Pz,10Mot', 'lose 4Pz', 'retreat 7Pz 1306', 'advance 4Pz 1305', "
                             "'use desperate-effort 1PzG', 'hit WF', 'displace 13A 1215', 'detach Det1 0305', 'fire artillery 1203', "
                             "'pair Tiger KV1', 'send-back 93G', 'done'")
