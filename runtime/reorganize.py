"""The reorganize procedure (GJ63 5.1(7)) and the effects phase: a mixin of
``runtime.runner.Runner``.

A reorganize phase lets its side move counters of attachment kinds between
its units and its pools (the phase's ``from`` pools whose side is the
side's, or ``both``):

    attach Tiger LAH     a counter from a pool under a unit on the map (at most
                         ``limit`` of them a phase), or, with ``transfer yes``,
                         from under one unit to another
    return Tiger         with ``returns yes``: a counter under a unit, or a
                         converted counter standing as a unit (with what it
                         carries), back to the side's first pool
    done                 the phase ends

With ``traced yes`` every unit involved traces a line of communication
(runtime/supply.py ``reached``).  The capacity of the host is checked by
``runtime.attachments.why_not_attach``.  A phase with nothing to do passes.
"""
from __future__ import annotations

from . import attachments as A
from .actions import Done
from .decisions import Attach, Return
from .definition import Phase
from .runner_parts import RunnerParts
from .state import GameState
from .supply import reached


class Reorganization(RunnerParts):
    def _proc_effects(self, s: GameState, ph: Phase) -> None:
        """The effects in the phase's ``do { }`` block (each turn's draws from the cups)."""
        s.pc += 1
        self.run_effects(s, ph.params["do"][0], ph.title)

    def _proc_reorganize(self, s: GameState, ph: Phase) -> None:
        s.step = {"decision": "reorganize", "side": ph.side or s.active, "taken": 0}
        if len(self._reorganize_actions(s)) <= 1:  # only "done": nothing to do
            s.step = {}
            s.pc += 1

    def _reorganize_pools(self, s: GameState, ph: Phase) -> list[str]:
        side = s.step["side"]
        return [p for p in ph.params.get("from", ()) if self.game.pools[p].side in (side, "both", "")]

    def _reorganize_hosts(self, s: GameState, ph: Phase) -> list[str]:
        """The side's units on the map that may take part: those its ``only``
        selectors or unit markers name (GJ63 7.0: ``only arrived``, the
        reinforcements), tracing a line where the phase says so."""
        side = s.step["side"]
        only = frozenset(ph.params.get("only") or ())
        units = [u for u in s.on_map(side) if not only or only & (self.game.selectors_of(u.id) | u.markers)]
        if ph.params.get("traced"):
            lines = reached(self.game, self.board, s, side)
            units = [u for u in units if u.hex in lines]
        return sorted(u.id for u in units)

    def _reorganize_actions(self, s: GameState) -> list:
        g = self.game
        ph = self.program[s.pc].phase
        pools = self._reorganize_pools(s, ph)
        hosts = self._reorganize_hosts(s, ph)
        limit = int(ph.params["limit"][0]) if ph.params.get("limit") else None
        out: list = []
        if limit is None or s.step["taken"] < limit:
            boxes = {f"pool:{p}" for p in pools}
            waiting = sorted(u.id for u in s.units.values() if u.hex is None and u.box in boxes
                             and u.id in g.attachment_of)
            for aid in waiting:
                out.extend(Attach(aid, h) for h in hosts if not A.why_not_attach(g, s, aid, h))
        if ph.params.get("transfer"):
            for h in hosts:
                for aid in A.under(s, h):
                    out.extend(Attach(aid, h2) for h2 in hosts if h2 != h and not A.why_not_attach(g, s, aid, h2))
        if ph.params.get("returns") and pools:
            for h in hosts:
                out.extend(Return(aid) for aid in A.under(s, h))
                if h in g.attachment_of and A.converts(g, h):
                    out.append(Return(h))
        out.append(Done())
        return out

    def _why_reorganize(self, s: GameState, a) -> str:
        g = self.game
        ph = self.program[s.pc].phase
        side = s.step["side"]
        if isinstance(a, Attach):
            if a.unit not in s.units or a.unit not in g.attachment_of:
                return f"{a.unit} is no counter that goes under a unit"
            if a.host not in s.units:
                return f"there is no unit {a.host}"
            if s.units[a.host].side != side or s.units[a.host].hex is None:
                return f"{a.host} is not a {side} unit on the map"
            only = ph.params.get("only")
            if only and not set(only) & (g.selectors_of(a.host) | s.units[a.host].markers):
                return f"{a.host} takes no counters in this phase: only {', '.join(only)} units do"
            if a.host not in self._reorganize_hosts(s, ph):
                return f"{a.host} traces no line of communication"
            was = A.host_of(s, a.unit)
            if was is not None and not ph.params.get("transfer"):
                return f"{a.unit} is under {was}: this phase moves no counter from one unit to another"
            if was is None and s.units[a.unit].box not in {f"pool:{p}" for p in self._reorganize_pools(s, ph)}:
                return f"{a.unit} is not in {' or '.join(self._reorganize_pools(s, ph)) or 'a pool of this phase'}"
            limit = ph.params.get("limit")
            if was is None and limit and s.step["taken"] >= int(limit[0]):
                return f"{side} has taken {limit[0]} counters from the pool this phase, the most it may"
            return A.why_not_attach(g, s, a.unit, a.host) or f"'{a}' is not possible now"
        if isinstance(a, Return):
            if not ph.params.get("returns"):
                return "this phase returns no counter to a pool"
            return f"{a.unit} is neither under a {side} unit that traces a line nor a detachment that may go back"
        return f"'{a}' is not possible now: attach, return or done"

    def _answer_reorganize(self, s: GameState, a) -> None:
        g = self.game
        ph = self.program[s.pc].phase
        if isinstance(a, Attach):
            if A.host_of(s, a.unit) is None:
                s.step["taken"] += 1
            A.attach(g, s, a.unit, a.host, ph.title)
        elif isinstance(a, Return):
            box = f"pool:{self._reorganize_pools(s, ph)[0]}"
            if A.host_of(s, a.unit) is not None:
                A.detach(g, s, a.unit, box, ph.title)
            else:  # a converted counter back into the pool, with what it carries (GJ63: the detachment)
                for aid in A.under(s, a.unit):
                    A.detach(g, s, aid, box, ph.title)
                s.set_unit(a.unit, markers=frozenset())
                s.place(a.unit, None, box)
                s.log.append({"turn": s.turn, "return": a.unit, "to": box.split(":")[-1]})
        if isinstance(a, Done) or len(self._reorganize_actions(s)) <= 1:
            s.step = {}
            s.pc += 1
