"""Saved games, replays and taking moves back.

The game is deterministic: a seed and the list of actions (in their text
notation) give back every state.  A saved game is therefore a small JSON
file::

    {"format": "hexforge-game", "version": 2, "game": "games/smolensk",
     "scenario": "short", "variants": [], "seed": 3,
     "params": {"bid": 5},      # the numbers the rules ask for, if any
     "actions": ["done", "done", "move 3Pz 0626", ...],
     "digest": "…",            # of the final log: tells when the rules changed
     "state": {...}}           # the final state in full (``snapshot``)

and loading one is compile + ``Runner.new_game(seed)`` + re-applying the
actions.  A save holds the whole game, secrets included (the chits in every
hand and in the cup, face-down markers' values): never one side's view
(runtime/observe.py), which could not be played on.  Version 2 added the
``state``, which the replay must reach; version 1 saves (without it) still
load, and a newer version is refused with a sentence saying so.  :class:`Timeline` keeps the states (every state near the end, one
in ``every`` further back; the others are recomputed from the nearest kept
one), so that a game can be stepped through forward and back.

Taking back (``undo``): a die roll or a chit draw locks the past, as in
Wesnoth, and so does handing the move to another player or a bot's
decision: :meth:`Timeline.floor` is the earliest position one may return
to.  ``sandbox`` lifts the lock.  No Qt, no Lark.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .actions import IllegalActionError
from .runner import Runner, RunnerAction
from .state import GameState

FORMAT = "hexforge-game"
VERSION = 2  # 2: the final state in full ("state")


class ReplayError(Exception):
    """A saved game that cannot be read or does not replay."""


class LockedError(IllegalActionError):
    """Going back past a die roll, a chit draw or the other player's move."""


def chance_in(entries: list[dict]) -> bool:
    """Whether log entries record chance: a die roll or a chit draw."""
    return any("roll" in e or "draw" in e for e in entries)


def digest(state: GameState) -> str:
    """A short fingerprint of a state's whole log (every action, roll and
    consequence): two replays agree when their digests do."""
    text = json.dumps(state.log, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def snapshot(runner: Runner, state: GameState) -> dict:
    """The state in full as plain JSON data, secrets included: the turn,
    phase and side to act, VP and variables, every unit (side, step, hex or
    box, markers), every marker (where, value, face, who has seen it), the cup
    and the hands, and the result."""
    def where(h):
        return runner.board.hex_id(h) if h is not None else None

    return {
        "turn": state.turn, "phase": state.phase, "active": state.active, "to-move": runner.to_move(state),
        "vp": dict(sorted(state.vp.items())),
        "variables": {k: v for k, v in sorted(state.variables.items())},
        "units": {u.id: [u.side, u.step, where(u.hex), u.box, sorted(u.markers)]
                  for u in sorted(state.units.values(), key=lambda u: u.id)},
        "markers": [{"kind": m["kind"], "hex": where(m["hex"]), "box": m["box"], "value": m["value"],
                     "face": m["face"], **({"seen": list(m["seen"])} if m.get("seen") else {})}
                    for m in state.markers],
        "cup": list(state.cup), "hands": {k: list(v) for k, v in sorted(state.hands.items())},
        "result": dict(state.result) if state.result else None,
    }


# ------------------------------------------------------------------ saved games

@dataclass
class SavedGame:
    game: str  # the game folder (as the player gave it)
    scenario: str
    seed: int
    actions: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    digest: str = ""  # of the final state's log; "" when unknown
    agents: dict[str, str] = field(default_factory=dict)  # side -> human | random | greedy (informative)
    by_bots: list[int] = field(default_factory=list)  # indices of the actions a bot took
    state: dict | None = None  # the final state in full (``snapshot``); None in a version 1 save
    params: dict[str, int] = field(default_factory=dict)  # the numbers the rules ask for (16.1's VP bid)

    def to_dict(self) -> dict:
        d = {"format": FORMAT, "version": VERSION, "game": self.game, "scenario": self.scenario,
             "variants": list(self.variants), "seed": self.seed, "agents": dict(self.agents),
             "by-bots": list(self.by_bots), "actions": list(self.actions), "digest": self.digest}
        if self.params:  # (only where the rules ask for numbers: other saves stay as they were)
            d["params"] = dict(self.params)
        if self.state is not None:
            d["state"] = self.state
        return d

    def dumps(self) -> str:
        d = self.to_dict()
        actions = d.pop("actions")
        state = d.pop("state", None)
        by_bots = d.pop("by-bots")
        # one action a line: diffable, and readable by a person; the numbers of the actions bots took on
        # one line (a game bots played holds every number); the state on one line at the end
        head = json.dumps(d, indent=1, sort_keys=True)[:-2] + ',\n "by-bots": ' + json.dumps(by_bots)
        body = ",\n".join("  " + json.dumps(a) for a in actions)
        tail = (',\n "state": ' + json.dumps(state, sort_keys=True)) if state is not None else ""
        return head + ',\n "actions": [\n' + body + ("\n " if actions else "") + "]" + tail + "\n}\n"

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(self.dumps(), encoding="utf-8")
        tmp.replace(p)
        return p

    @classmethod
    def from_dict(cls, d: object) -> "SavedGame":
        """Check every field: a save is untrusted input, and each way it can
        be wrong gets one sentence (ReplayError), never a raw exception."""
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ReplayError("not a hexforge saved game (its \"format\" is not \"hexforge-game\")")
        version = d.get("version", VERSION)
        if not _whole(version) or version < 1:
            raise ReplayError(f"\"version\" must be a whole number such as {VERSION}, not {_show(version)}")
        if version > VERSION:
            raise ReplayError(f"saved by a newer hexforge (format version {version}; this one reads {VERSION})")
        for key in ("game", "scenario", "seed", "actions"):
            if key not in d:
                raise ReplayError(f"the saved game has no \"{key}\"")
        game, scenario, seed, actions = d["game"], d["scenario"], d["seed"], d["actions"]
        if not isinstance(game, str) or not game:
            raise ReplayError(f"\"game\" must be the game folder's name, not {_show(game)}")
        if not isinstance(scenario, str) or not scenario:
            raise ReplayError(f"\"scenario\" must be a scenario's name, not {_show(scenario)}")
        if not _whole(seed) or not -2 ** 63 <= seed < 2 ** 64:
            raise ReplayError(f"\"seed\" must be a whole number of at most 19 digits, not {_show(seed)}")
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise ReplayError("\"actions\" must be a list of texts")
        variants = d.get("variants") or []
        if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
            raise ReplayError("\"variants\" must be a list of names")
        agents = d.get("agents") or {}
        if not isinstance(agents, dict) or not all(isinstance(v, str) for v in agents.values()):
            raise ReplayError("\"agents\" must map each side to human, random or greedy, such as "
                              "{\"axis\": \"human\", \"soviet\": \"random\"}")
        by_bots = d.get("by-bots") or []
        if not isinstance(by_bots, list) or not all(_whole(i) and 0 <= i < len(actions) for i in by_bots):
            raise ReplayError("\"by-bots\" must be a list of action numbers")
        dig = d.get("digest") or ""
        if not isinstance(dig, str):
            raise ReplayError(f"\"digest\" must be a text, not {_show(dig)}")
        params = d.get("params") or {}
        if not isinstance(params, dict) or not all(isinstance(k, str) and _whole(v) and abs(v) < 10 ** 30
                                                   for k, v in params.items()):
            raise ReplayError("\"params\" must map each number's name to a whole number, such as {\"bid\": 5}")
        state = d.get("state") if version >= 2 else None  # version 1 had none: replaying gives it
        if state is not None and not isinstance(state, dict):
            raise ReplayError(f"\"state\" must be the saved game's state (a JSON object), not {_show(state)}")
        return cls(game, scenario, seed, list(actions), list(variants), dig,
                   {str(k): v for k, v in agents.items()}, list(by_bots), state, dict(params))

    @classmethod
    def loads(cls, text: str) -> "SavedGame":
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise ReplayError(f"not a saved game: {e}") from None
        except RecursionError:
            raise ReplayError("not a saved game: its JSON is nested too deeply") from None
        except ValueError as e:  # a number of more than 4,300 digits, and the like
            why = "a number in it is too long" if "digits" in str(e) else str(e)
            raise ReplayError(f"not a saved game: {why}") from None
        return cls.from_dict(d)

    @classmethod
    def load(cls, path: str | Path) -> "SavedGame":
        p = Path(path)
        try:
            if not p.is_file():
                raise ReplayError(f"cannot read {path}: " + ("it is a folder" if p.is_dir() else
                                                             "no such file" if not p.exists() else "not a file"))
            if p.stat().st_size > MAX_BYTES:
                raise ReplayError(f"cannot read {path}: larger than {MAX_BYTES // 2 ** 20} MB, not a saved game")
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ReplayError(f"cannot read {path}: {e}") from None
        try:
            return cls.loads(text)
        except ReplayError as e:
            raise ReplayError(f"{p.name}: {e}") from None


MAX_BYTES = 64 * 2 ** 20  # a saved game is a list of actions: far smaller


def _whole(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _show(x: object) -> str:
    """A JSON value in an error message, cut short."""
    try:
        text = json.dumps(x)
    except (ValueError, RecursionError):
        text = type(x).__name__
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------ the timeline

@dataclass(frozen=True, slots=True)
class Step:
    """What is known about one applied action."""

    action: str
    side: str | None  # who took it
    next_side: str | None  # who decides next
    chance: bool  # it rolled a die or drew a chit
    bot: bool  # a bot took it


class Timeline:
    """The states of one game, from the set-up (position 0) to the last
    action (position ``end``).  ``position`` is the state shown: stepping
    back and forward moves it without changing the game; ``apply`` and
    ``undo`` change the game."""

    def __init__(self, runner: Runner, seed: int = 0, every: int = 16, recent: int = 96,
                 start: GameState | None = None):
        self.runner = runner
        self.seed = seed
        self.every = max(1, every)
        self.recent = max(1, recent)
        self.steps: list[Step] = []
        self._kept: dict[int, GameState] = {0: start if start is not None else runner.new_game(seed)}
        self._view: tuple[int, GameState] | None = None
        self.position = 0
        self.sandbox = False

    # ---------------------------------------------------------- reading
    @property
    def end(self) -> int:
        return len(self.steps)

    @property
    def actions(self) -> list[str]:
        return [s.action for s in self.steps]

    @property
    def at_end(self) -> bool:
        return self.position == self.end

    @property
    def latest(self) -> GameState:
        return self.state_at(self.end)

    @property
    def state(self) -> GameState:
        """The state at ``position``."""
        return self.state_at(self.position)

    def state_at(self, i: int) -> GameState:
        if not 0 <= i <= self.end:
            raise IndexError(f"position {i} is outside 0..{self.end}")
        hit = self._kept.get(i)
        if hit is not None:
            return hit
        if self._view is not None and self._view[0] == i:
            return self._view[1]
        j = max(k for k in self._kept if k <= i)
        s = self._kept[j]
        for k in range(j, i):
            s = self.runner.apply(s, self.steps[k].action)
            if k + 1 > j and (k + 1) % self.every == 0:
                self._kept[k + 1] = s
        self._view = (i, s)
        return s

    def _forget(self) -> None:
        """Drop kept states that are neither recent nor on the ``every`` grid."""
        cut = self.end - self.recent
        for k in [k for k in self._kept if 0 < k < cut and k % self.every]:
            del self._kept[k]

    # ---------------------------------------------------------- the lock
    def floor(self) -> int:
        """The earliest position one may go back to: just after the last die
        roll or chit draw, the last bot decision, or the last action after
        which another player had the move (0 in a sandbox)."""
        if self.sandbox:
            return 0
        for i in range(self.end - 1, -1, -1):
            st = self.steps[i]
            if st.chance or st.bot or (st.next_side is not None and st.next_side != st.side):
                return i + 1
        return 0

    def why_locked(self) -> str:
        """Why the action before the floor cannot be taken back ("" if it can)."""
        f = self.floor()
        if f == 0:
            return ""
        st = self.steps[f - 1]
        if st.chance:
            return f"'{st.action}' rolled a die or drew a chit: the past is locked (switch on the sandbox to go back)"
        if st.bot:
            return f"'{st.action}' was a bot's decision (switch on the sandbox to go back)"
        return f"after '{st.action}' the move passed to {st.next_side} (switch on the sandbox to go back)"

    def can_undo(self) -> bool:
        return self.end > self.floor()

    def can_truncate(self, i: int) -> bool:
        return self.floor() <= i <= self.end

    # ---------------------------------------------------------- changing the game
    def apply(self, action: RunnerAction | str, bot: bool = False) -> GameState:
        """Apply an action at the end of the game (the position must be at
        the end: see ``truncate`` to play on from an earlier one)."""
        if not self.at_end:
            raise LockedError(f"showing position {self.position} of {self.end}: go to the end to play on, "
                              "or take the game back to here first")
        s = self.latest
        side = self.runner.to_move(s)
        s2 = self.runner.apply(s, action)
        text = str(action) if not isinstance(action, str) else " ".join(action.split())
        self.steps.append(Step(text, side, self.runner.to_move(s2), chance_in(s2.log[len(s.log):]), bot))
        self._kept[self.end] = s2
        self.position = self.end
        self._forget()
        return s2

    def truncate(self, i: int) -> GameState:
        """Take the game back to position ``i`` (the later actions are
        dropped).  Raises LockedError past the floor."""
        if i < 0 or i > self.end:
            raise IndexError(f"position {i} is outside 0..{self.end}")
        if i < self.floor():
            raise LockedError(self.why_locked() or "that part of the game is locked")
        s = self.state_at(i)
        del self.steps[i:]
        for k in [k for k in self._kept if k > i]:
            del self._kept[k]
        self._kept[i] = s
        self._view = None
        self.position = i
        return s

    def undo(self) -> GameState:
        """Take back the last action."""
        if self.end == 0:
            raise LockedError("there is nothing to take back")
        return self.truncate(self.end - 1)

    def undo_to_floor(self) -> GameState:
        """Take back everything that may be taken back."""
        return self.truncate(self.floor())

    # ---------------------------------------------------------- viewing
    def seek(self, i: int) -> GameState:
        self.position = max(0, min(i, self.end))
        return self.state

    def forward(self) -> GameState:
        return self.seek(self.position + 1)

    def back(self) -> GameState:
        return self.seek(self.position - 1)

    # ---------------------------------------------------------- saving
    def saved(self, game: str, scenario: str, variants: list[str] | tuple[str, ...] = (),
              agents: dict[str, str] | None = None) -> SavedGame:
        return SavedGame(game, scenario, self.seed, self.actions, list(variants), digest(self.latest),
                         dict(agents or {}), [i for i, st in enumerate(self.steps) if st.bot],
                         snapshot(self.runner, self.latest), dict(self.runner.params))

    @classmethod
    def replay(cls, runner: Runner, saved: SavedGame, bots: Callable[[int], bool] | None = None,
               every: int = 16, recent: int = 96) -> tuple["Timeline", str]:
        """Re-apply a saved game's actions.  Returns the timeline and a
        problem ("" when none): an action that is no longer legal (the
        timeline stops before it), or a final log that differs from the one
        saved (the rules changed since)."""
        t = cls(runner, saved.seed, every, recent)
        if bots is None:  # the save says which actions bots took
            marked = set(saved.by_bots)
            bots = marked.__contains__
        for i, a in enumerate(saved.actions):
            try:
                t.apply(a, bot=bool(bots(i)))
            except IllegalActionError as e:
                return t, f"action {i + 1} of {len(saved.actions)}, '{a}', does not replay: {e}"
        if saved.digest and digest(t.latest) != saved.digest:
            return t, "the game replays, but not as it was saved: the rules have changed since"
        if saved.state is not None and json.loads(json.dumps(snapshot(runner, t.latest))) != saved.state:
            return t, "the game replays, but its state is not the one saved: the rules have changed since"
        return t, ""


def open_saved(saved: SavedGame, compile_game: Callable[[str, list[str]], object],
               folder: str | Path | None = None) -> tuple[Runner, Timeline, str]:
    """Compile a saved game's rules with ``compile_game(folder, variants)``
    (the caller's compiler: the runtime does not import the DSL) from
    ``folder``, else the folder the save names, and replay it."""
    game = compile_game(str(folder or saved.game), list(saved.variants))
    runner = Runner(game, saved.scenario, params=saved.params)
    t, problem = Timeline.replay(runner, saved)
    return runner, t, problem
