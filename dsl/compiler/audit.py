"""Declarations that no rule reads: a die table nothing rolls, a turn-track
column nothing reads.  ``check`` refuses them at their place (``... is not
used by any rule``), so that it never says ok to a construct the engine
ignores.

Part of the compiler: methods of ``_Compiler`` (see ``core.py``)."""
from __future__ import annotations

from runtime import definition as D
from runtime import expr as E

from .parts import CompilerParts


class AuditMixin(CompilerParts):
    def check_unread(self, tables: dict[str, D.DieTable], sequence: tuple[D.Phase, ...],
                     battle_options: dict[str, D.BattleOption], arrivals: dict[str, D.Arrival]) -> None:
        ctx = self.ctx
        rolled: set[str] = set()
        stack = list(sequence)
        while stack:
            ph = stack.pop()
            stack.extend(ph.children)
            if ph.procedure in ("roll", "activate"):
                rolled.update(ph.params.get("die-table", ()))
        for effects in self.fx.effects.values():
            for eff in effects:
                if eff.verb in ("roll", "fire") and eff.args.get("table"):
                    rolled.add(str(eff.args["table"]))
        rolled.update(o.roll for o in battle_options.values() if o.roll)
        system = self.one("system")
        shared = system.span.file if system is not None else None  # a series system's tables serve several games
        for st in self.all("die-table"):
            if st.name in tables and st.name not in rolled and st.span.file != shared:
                ctx.error("unused", f"die-table {st.name} is not used by any rule: nothing rolls it", st.args[0].span,
                          "roll it in a phase (procedure roll; die-table NAME), with an effect (roll NAME), from "
                          "a battle option (roll NAME) or a fire effect (fire KIND roll NAME)")
        read = {c.args[0].value for c in ctx.track_calls if len(c.args) == 1 and isinstance(c.args[0], E.Str)}
        read.update(a.count for a in arrivals.values())
        read.update(a.text for a in self.reinforce_formations)
        track = self.one("turn-track")
        for c in (s for s in (track.body or ()) if getattr(s, "keyword", "") == "column") if track else ():
            if len(c.args) == 2 and c.args[0].text not in read:
                ctx.error("unused", f"the turn-track column '{c.args[0].text}' is not used by any rule", c.args[0].span,
                          f"read it in an expression: track(\"{c.args[0].text}\"), or as an arrival's count")
