"""The designate procedure (GJ63 5.1(3): reserve designation): a mixin of
``runtime.runner.Runner``.

A designate phase lets its side give the phase's ``marker`` to some of its
units on the map, one decision at a time:

    designate LAH        LAH carries the marker (reserve) from now on
    done                 the phase ends

Who may be designated: the side's units on the map that match the phase's
``only`` selectors (all, without them) and none of its ``exclude`` ones; a
unit matching an ``outside-zoc`` selector only while it is outside every
enemy ZOC (5.1(3): non-mechanized units).  Phases then read the marker as a
state: ``exclude reserve`` (the normal attack), ``only reserve`` (the reserve
attack), a movement mode's ``only reserve`` (strategic movement, 8.3).

The marker lasts until the end of the player turn the phase stands in (a
designate phase outside a player turn: until its next run); the runner
clears it there (``end_designations``).  Declared ``hidden { unit-marker
reserve from enemy }``, it is missing from the enemy's view and the enemy's
log shows ``designate ?`` (runtime/observe.py), until the unit does what only
the marker allows — an attack in a phase whose ``only`` names it, a move in a
mode whose ``only`` names it: the runner records ``shown:MARKER:UNIT`` in
``state.done`` and every side sees it from then on (``shows``).
"""
from __future__ import annotations

from .actions import Attack, Done, Move
from .combat.dicepool.setup import AS_ITSELF, IN_ROLE
from .decisions import Designate
from .definition import Phase
from .movement import mode_by_id
from .runner_parts import RunnerParts
from .state import GameState
from .zoc import enemy_zoc


def until_turn_markers(game) -> dict[str, tuple[str, ...]]:
    """Side -> the unit markers that last until that side's next player turn
    begins (the runner clears them there): a dice-pool role's locks (GJ63
    19.3(2): the SU-152 that fought as an anti-tank gun fires no artillery
    until the next Soviet turn, and the other way round)."""
    out: dict[str, tuple[str, ...]] = {}
    rules = getattr(game, "dice_pool", None)
    for r in (rules.roles if rules is not None else ()):
        if r.lock:
            out[r.lock] = out.get(r.lock, ()) + (IN_ROLE + r.id, AS_ITSELF + r.id)
    return out


def designate_markers(phases) -> dict[str, tuple[str, ...]]:
    """Player turn id -> the markers the designate (and reinforce) phases
    inside it give (cleared when that player turn ends)."""
    out: dict[str, tuple[str, ...]] = {}

    def under(ph: Phase) -> list[str]:
        found = [ph.params["marker"][0]] if ph.procedure in ("designate", "reinforce") and ph.params.get("marker") \
            else []
        for c in ph.children:
            found += under(c)
        return found

    def walk(ph: Phase) -> None:
        if ph.kind == "player-turn":
            found = under(ph)
            if found:
                out[ph.id] = tuple(dict.fromkeys(found))
        for c in ph.children:
            walk(c)

    for ph in phases:
        walk(ph)
    return out


class Designation(RunnerParts):
    def _proc_designate(self, s: GameState, ph: Phase) -> None:
        side = ph.side if ph.side and ph.side != "both" else s.active
        marker = ph.params["marker"][0]
        self._clear_marker(s, marker, side)  # a marker from an earlier run (a phase outside a player turn)
        s.step = {"decision": "designate", "side": side, "marker": marker}
        if not self._designate_actions(s)[:-1]:  # nobody may be designated: the phase passes
            s.step = {}
            s.pc += 1

    def _designate_candidates(self, s: GameState) -> list[str]:
        g = self.game
        ph = self.program[s.pc].phase
        side, marker = s.step["side"], s.step["marker"]
        only = frozenset(ph.params.get("only") or ())
        exclude = frozenset(ph.params.get("exclude") or ())
        outside = frozenset(ph.params.get("outside-zoc") or ())
        zoc = enemy_zoc(g, self.board, s, side) if outside else frozenset()
        out = []
        for u in s.on_map(side):
            if marker in u.markers:
                continue
            mine = g.selectors_of(u.id) | u.markers
            if (only and not only & mine) or exclude & mine:
                continue
            if outside & mine and u.hex in zoc:
                continue
            out.append(u.id)
        return sorted(out)

    def _designate_actions(self, s: GameState) -> list:
        return [Designate(u) for u in self._designate_candidates(s)] + [Done()]

    def _answer_designate(self, s: GameState, a) -> None:
        if isinstance(a, Designate):
            s.mark(a.unit, s.step["marker"])
            s.log[-1]["marker"] = s.step["marker"]  # whose log may show the unit (runtime/observe.py)
            if self._designate_actions(s)[:-1]:
                return
        s.step = {}
        s.pc += 1

    def _why_designate(self, s: GameState, a) -> str:
        unit = getattr(a, "unit", None)
        if not isinstance(a, (Designate, Done)):
            return f"'{a}' is not possible now: {s.step['side']} designates units (designate UNIT) or 'done'"
        u = s.units.get(unit)
        if u is None:
            return f"there is no unit {unit}"
        if s.step["marker"] in u.markers:
            return f"{unit} is already {s.step['marker']}"
        if u.side != s.step["side"] or u.hex is None:
            return f"{unit} is not a unit of {s.step['side']} on the map"
        ph = self.program[s.pc].phase
        if ph.params.get("outside-zoc") and u.hex in enemy_zoc(self.game, self.board, s, u.side):
            return f"{unit} cannot be {s.step['marker']}: it stands in an enemy ZOC"
        return f"{unit} cannot be {s.step['marker']} in this phase"

    def _clear_marker(self, s: GameState, marker: str, side: str | None) -> None:
        for u in list(s.units.values()):
            if marker in u.markers and (side is None or u.side == side):
                s.unmark(u.id, marker)
        gone = {k for k in s.done if k.startswith(f"shown:{marker}:")}
        if gone:
            s.done -= gone

    def end_designations(self, s: GameState, ph: Phase) -> None:
        """The end of a player turn: the markers its designate phases gave are removed."""
        for marker in self._designations.get(ph.id, ()):
            self._clear_marker(s, marker, None)

    def shows(self, s: GameState, action) -> None:
        """A designated unit that does what only its marker allows shows the
        marker to every side: an attack in a phase whose ``only`` names it, a
        move in a mode whose ``only`` names it."""
        hidden = self.game.hidden.unit_markers if self.game.hidden is not None else {}
        if not hidden:
            return
        if isinstance(action, Attack) and s.step.get("only"):
            names = set(s.step["only"]) & set(hidden)
            units = action.attackers
        elif isinstance(action, Move) and action.mode:
            m = mode_by_id(self.game, action.mode)
            names = set(m.only) & set(hidden) if m is not None else set()
            units = (action.unit,)
        else:
            return
        for uid in units:
            u = s.units.get(uid)
            for mk in names & set(u.markers if u is not None else ()):
                s.done.add(f"shown:{mk}:{uid}")
