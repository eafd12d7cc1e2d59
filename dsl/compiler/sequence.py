"""The sequence of play: phases, their properties, victory rules and checkpoints.

Part of the compiler: methods of ``_Compiler`` (see ``core.py``)."""
from __future__ import annotations


from runtime import definition as D
from runtime.vocabulary import PHASE_PROPERTIES, PROCEDURES

from ..ast import Statement
from ..checker import Body, read_yes_no, title_of, where
from ..diagnostics import Span, did_you_mean
from .parts import CompilerParts

fm = D.frozen_map
UNIT_STATES = frozenset({"disrupted", "out-of-supply", "isolated", "reserve"})  # markers a phase may name in only/exclude


class SequenceMixin(CompilerParts):
    # ------------------------------------------------------------ sequence
    def sequence(self) -> tuple[D.Phase, ...]:
        st = self.one("sequence")
        if st is None:
            for sc in self.all("scenario")[:1]:  # something to play, and no way to play it
                self.ctx.error("missing", f"scenario {sc.name} cannot be played: the game has no sequence of play",
                               sc.span, "write: sequence { phase ... { procedure move } ... "
                               "phase end-of-turn \"End of turn\" { procedure advance-turn } }")
            return ()
        out = self.phases(st, "sequence")
        if not out:
            self.ctx.error("missing", "the sequence of play has no phase", st.span,
                           'write its phases: phase movement "Movement" { procedure move } ...')
        stack, ends = list(out), False
        while stack:
            ph = stack.pop()
            ends = ends or ph.procedure == "advance-turn"
            stack.extend(ph.children)
        if out and not ends:
            self.ctx.error("missing", "the sequence of play never moves the turn marker", st.span,
                           'add a phase: phase end-of-turn "End of turn" { procedure advance-turn }')
        return out

    PHASE_KINDS = ("phase", "player-turn", "chit-loop", "segment")

    def phases(self, st: Statement, what: str) -> tuple[D.Phase, ...]:
        ctx = self.ctx
        out = []
        b = Body(ctx, st, what)
        for kw in self.PHASE_KINDS:
            b.all(kw)
        if st.keyword in self.PHASE_KINDS:
            for kw in self.PHASE_PROPERTIES:
                b.all(kw)  # a phase's own properties; read (and checked against its procedure) in phase()
        for e in st.body or ():
            if isinstance(e, Statement) and e.keyword in self.PHASE_KINDS:
                out.append(self.phase(e))
        b.finish()
        # `before NAME`: an overriding phase placed before a sibling (overrides append otherwise)
        for ph in [p for p in out if p.params.get("before")]:
            target = ph.params["before"][0]
            names = [p.id for p in out if p is not ph]
            if target not in names:
                span = Span.parse(ph.where + ":1")
                ctx.error("unknown-name", f"phase {ph.id} is to come before '{target}', which is not beside it",
                          span, did_you_mean(target, names))
                continue
            out.remove(ph)
            out.insert(next(i for i, p in enumerate(out) if p.id == target), ph)
        return tuple(out)

    PHASE_PROPERTIES = ("procedure", "note", "before") + tuple(sorted({p for ps in PHASE_PROPERTIES.values()
                                                                       for p in ps}))

    def phase(self, st: Statement) -> D.Phase:
        ctx = self.ctx
        name = st.name or st.keyword
        side = ""
        if st.keyword == "player-turn":
            side = ctx.ref("side", st.arg(0)) or ""
        title = title_of(st) or name
        params: dict[str, tuple[str, ...]] = {}
        procedure = ""
        formation_args: list = []
        entry_names: dict[str, Span] = {}  # the names of 'at AREA for NAME...' lines, each once
        for e in st.body or ():
            if not isinstance(e, Statement) or e.keyword in self.PHASE_KINDS:
                continue
            if e.keyword == "procedure":
                if not e.args:
                    ctx.error("arguments", "procedure names what the phase does", e.span,
                              did_you_mean("", PROCEDURES))
                    continue
                procedure = e.args[0].text
                if procedure not in PROCEDURES:
                    ctx.error("unknown-procedure", f"unknown procedure '{procedure}'", e.args[0].span,
                              did_you_mean(procedure, PROCEDURES))
                for extra in e.args[1:]:
                    ctx.error("unused", f"'{extra.text}' after the procedure is not used by any rule", extra.span,
                              "a procedure takes no arguments: its phase's properties tune it")
            elif e.keyword == "side":
                side = ctx.ref("side", e.arg(0), allow=("both",)) or side
            elif e.keyword == "ignore":  # hexside kinds a combat segment ignores (15.1(3))
                params["ignore"] = params.get("ignore", ()) + tuple(
                    a.text for a in e.args if ctx.terrain_ref(a, ("hexside",)))
            elif e.keyword == "loc-check":
                params["loc-check"] = tuple(a.text for a in e.args if ctx.ref("unit-class", a, "unit class"))
            elif e.keyword == "chit":  # activate: the chit is played as if drawn (AVD turn 1: 3PzG first)
                if len(e.args) != 1:
                    ctx.error("arguments", "chit takes one chit", e.span, "write: chit 3PzG")
                elif ctx.ref("chit", e.args[0]):
                    params["chit"] = (e.args[0].text,)
            elif e.keyword == "formation":  # activate: every unit of the formation on the map (AVD turn 1: 2PzG)
                forms = getattr(self, "formations", set())
                for a in e.args:
                    if a.text not in forms:
                        ctx.error("unknown-name", f"no counter belongs to formation '{a.text}'", a.span,
                                  did_you_mean(a.text, forms))
                if not e.args:
                    ctx.error("arguments", "formation names one or more formations", e.span, "write: formation 2PzG")
                params["formation"] = tuple(a.text for a in e.args)
                formation_args = list(e.args)
            elif e.keyword == "hq-class":
                params["hq-class"] = tuple(a.text for a in e.args if ctx.ref("unit-class", a, "unit class"))
            elif e.keyword == "die-table":
                params["die-table"] = params.get("die-table", ()) + tuple(
                    a.text for a in e.args if ctx.ref("die-table", a))
            elif e.keyword in ("only", "exclude", "outside-zoc"):  # who may act: unit selectors or a state (disrupted)
                params[e.keyword] = params.get(e.keyword, ()) + tuple(sorted(  # sorted: no output hangs on hash order
                    self.selectors(e.args, self.ctx.symbols.get("unit-class", {}),
                                   UNIT_STATES | ctx.designated | ctx.marked)))
            elif e.keyword == "hold-fire":  # combat: the attacker's duel weapons that take part without firing
                params["hold-fire"] = tuple(sorted(self.selectors(e.args, self.ctx.symbols.get("unit-class", {}))))
                self.hold_fire.append(e)
            elif e.keyword == "marker":  # designate, reinforce: the unit marker it gives
                if len(e.args) != 1 or e.args[0].quoted:
                    ctx.error("arguments", "marker takes the one unit marker the phase gives", e.span,
                              "write: marker reserve")
                else:
                    params["marker"] = (e.args[0].text,)
            elif e.keyword == "count":  # reinforce: at most this many units
                if len(e.args) != 1 or ctx.int_(e.args[0], "count", 1, 999) is None:
                    if len(e.args) != 1:
                        ctx.error("arguments", "count takes a number of units", e.span, "write: count 2")
                    continue
                params["count"] = (e.args[0].text,)
            elif e.keyword == "limit":
                if len(e.args) != 1 or ctx.int_(e.args[0], "limit", 1, 999) is None:
                    if len(e.args) != 1:
                        ctx.error("arguments", "limit takes a number of units", e.span, "write: limit 2")
                    continue
                params["limit"] = (e.args[0].text,)
            elif e.keyword == "at" and len(e.args) >= 2 and e.args[1].text == "for":
                self.entry_area(e, params, entry_names)  # GJ63 7.0(1): the turn track's entry edge
            elif e.keyword == "at":  # where a reinforce phase's units enter: an area
                if len(e.args) != 1:
                    ctx.error("arguments", "at takes one map area", e.span,
                              "write: at axis-north (or: at soviet-north for 5GA, for some units only)")
                elif "at" in params:
                    ctx.error("duplicate", "the phase says twice where its units enter", e.span,
                              "keep one 'at AREA'; 'at AREA for NAME...' sends some units elsewhere")
                else:
                    params["at"] = (e.args[0].text,)
                    self.phase_areas.append(e.args[0])
            elif e.keyword == "pick":  # reinforce: the units are drawn at random (GJ63 19.2(2))
                if [a.text for a in e.args] != ["random"]:
                    ctx.error("value", "pick takes 'random': the phase's units are drawn at random from its pools",
                              e.span, "write: pick random (without it the side chooses them)")
                else:
                    params["pick"] = ("random",)
            elif e.keyword == "move-on":  # reinforce: they pay their entry hex in the next movement phase (7.0(2))
                if e.args:
                    ctx.error("arguments", "move-on takes nothing: the units move onto the map in their side's "
                              "next movement phase, paying the cost of the hex they were placed on", e.span,
                              "write: move-on")
                else:
                    params["move-on"] = ("yes",)
            elif e.keyword == "due":
                if [a.text for a in e.args] != ["next-turn"]:
                    ctx.error("value", "due takes 'next-turn': units due next turn enter now", e.span)
                else:
                    params["due"] = ("next-turn",)
            elif e.keyword == "do":  # the effects an effects phase runs
                key = f"phase:{name}"
                if key in self.fx.effects:
                    ctx.error("duplicate", f"two phases named {name} run effects", e.span,
                              "give each effects phase its own name")
                params["do"] = (self.fx.block(e, key),)
            elif e.keyword == "from":  # the pools a reorganize phase takes counters from and returns them to
                pools = []
                for a in e.args:
                    p = ctx.ref("pool", a)
                    if p and self.pool_kinds.get(p) == "cup":
                        ctx.error("value", f"{p} is a cup: counters are drawn from it at random, never picked",
                                  a.span, "draw them into a pool first (move N ... from CUP to POOL random)")
                    elif p:
                        pools.append(p)
                params["from"] = params.get("from", ()) + tuple(pools)
            elif e.keyword in ("traced", "transfer", "returns"):
                if read_yes_no(ctx, e.arg(0), e.keyword, True) and len(e.args) <= 1:
                    params[e.keyword] = ("yes",)
                elif len(e.args) > 1:
                    ctx.error("arguments", f"{e.keyword} takes yes or no", e.span)
            elif e.keyword == "option":  # option NAME "question": a yes/no choice, read as chosen(NAME)
                if not e.args or e.args[0].quoted:
                    ctx.error("arguments", "option takes a name and the question", e.span,
                              'write: option siberian-early "Bring the Siberians in now?"')
                else:
                    params["option"] = (e.args[0].text, title_of(e) or e.args[0].text)
            else:  # repeated properties accumulate (two 'note' lines keep both)
                params[e.keyword] = params.get(e.keyword, ()) + tuple(a.text for a in e.args)
        self.check_phase_properties(st, procedure)
        if procedure == "reinforce":  # each formation's number is the turn track's column of its name
            self.reinforce_formations.extend(formation_args)
        ways = [k for k in ("chit", "formation", "hq-class") if k in params]
        if procedure == "activate" and len(ways) > 1:
            ctx.error("value", f"phase {name} activates by {' and '.join(ways)}: an activate phase takes one of "
                      "chit, formation or hq-class", st.span)
        if procedure in ("move", "strategic-move"):
            modes = set(ctx.symbols.get("movement-mode", {})) | {"normal"}
            for e in st.body or ():
                if isinstance(e, Statement) and e.keyword == "mode":
                    for a in e.args:
                        if a.text not in modes:
                            ctx.error("unknown-name", f"'{a.text}' is not a movement mode", a.span,
                                      did_you_mean(a.text, modes))
        if procedure == "reorganize" and not any(isinstance(e, Statement) and e.keyword == "from"
                                                   for e in st.body or ()):
            ctx.error("missing", f"phase {name} reorganizes from no pool", st.span,
                      "write: from german-reorganization (the pools counters are taken from and returned to)")
        if procedure == "effects" and f"phase:{name}" not in self.fx.effects:
            ctx.error("missing", f"phase {name} runs no effects", st.span, "write: do { effects }")
        if procedure == "designate" and "marker" not in params:
            ctx.error("missing", f"phase {name} designates units with no marker", st.span,
                      "write: marker reserve (the unit marker the designated units carry until the turn ends)")
        if procedure == "decide" and "option" not in params:
            ctx.error("missing", f"phase {name} decides nothing: it needs an option", st.span,
                      'write: option siberian-early "Bring the Siberians in now?"')
        if st.keyword == "phase" and not procedure:
            ctx.error("missing", f"phase {name} needs a procedure", st.span, did_you_mean("", PROCEDURES))
        children = self.phases(st, f"{st.keyword} {name}") if st.body else ()
        ctx.expr(st.condition)
        return D.Phase(name, title, st.keyword, procedure, side, fm(params), st.condition, children, where(st))

    def entry_area(self, e: Statement, params: dict, seen: dict) -> None:
        """``at AREA for NAME...`` on a reinforce phase: the units it names (a
        counter, a formation or a unit selector) enter only in that area, the
        others where the phase's plain ``at`` says (GJ63 7.0(1): the turn
        track's 【N/E】, each reinforcement's entry edge).  Stored as
        ``params["at-for"]``: one "AREA NAME..." string a line."""
        ctx = self.ctx
        area, names = e.args[0], e.args[2:]
        if not names:
            ctx.error("arguments", "at AREA for takes the units that enter there", e.span,
                      "write: at soviet-north for 5GA 10TK (formations, counters or unit selectors)")
            return
        known = (getattr(self, "counter_ids", set()) | getattr(self, "formations", set())
                 | set(ctx.symbols.get("unit-class", {})) | ctx.class_flags
                 | set(ctx.symbols.get("nationality", {})) | set(ctx.symbols.get("side", {})))
        ok = []
        for a in names:
            if a.text not in known:
                ctx.error("unknown-name", f"'{a.text}' is no counter, formation, unit class, class flag, "
                          "nationality or side", a.span, did_you_mean(a.text, known))
            elif a.text in seen:
                ctx.error("duplicate", f"{a.text} already enters elsewhere (line {seen[a.text].line})", a.span,
                          "name each reinforcement in one 'at AREA for' line")
            else:
                seen[a.text] = a.span
                ok.append(a.text)
        self.phase_areas.append(area)
        if ok:
            params["at-for"] = params.get("at-for", ()) + (" ".join([area.text, *ok]),)

    def check_phase_properties(self, st: Statement, procedure: str) -> None:
        """Each property of a phase is one its procedure reads (a player-turn,
        chit-loop or segment reads none but its notes)."""
        if st.keyword == "phase" and procedure not in PHASE_PROPERTIES:
            return  # an unknown procedure: reported already
        reads = PHASE_PROPERTIES.get(procedure, ()) if st.keyword == "phase" else ()
        noun = f"{procedure} phase" if st.keyword == "phase" else st.keyword
        what = ("an " if noun[0] in "aeiou" else "a ") + noun
        for e in st.body or ():
            if not isinstance(e, Statement) or e.keyword in self.PHASE_KINDS or e.keyword in ("note", "before"):
                continue
            if e.keyword == "procedure" and st.keyword == "phase":
                continue
            if e.keyword in reads or e.keyword not in self.PHASE_PROPERTIES:
                continue
            users = sorted(p for p, ps in PHASE_PROPERTIES.items() if e.keyword in ps)
            hint = (f"phases with procedure {', '.join(users)} read it" if users and e.keyword != "procedure"
                    else "put it on a phase inside this block")
            if not reads and st.keyword == "phase":
                hint += f"; {what} takes no property"
            self.ctx.error("unused", f"'{e.keyword}' is not used by any rule of {what}", e.span, hint)

    # ------------------------------------------------------------ victory
    def victory(self, st: Statement) -> tuple[D.VictoryRule, ...]:
        ctx = self.ctx
        b = Body(ctx, st, f"victory {st.name}")
        rules = []
        for kw in ("award", "win", "end"):
            for e in b.all(kw):
                args = list(e.args)
                title = args.pop().text if args and args[-1].quoted else ""
                side = ""
                if kw != "end":
                    side = ctx.ref("side", args.pop(0) if args else None, allow=("draw",)) or ""
                    if not side and not e.args:
                        ctx.error("arguments", f"{kw} needs a side", e.span)
                at = ""
                if len(args) >= 2 and args[-2].text == "at":
                    at = args.pop().text
                    args.pop()
                amount = e.value
                if kw == "award" and amount is None:
                    if len(args) == 1:
                        from runtime.expr import Num
                        v = ctx.int_(args[0], "VP")
                        amount = Num(v or 0, where=str(args[0].span))
                        args = []
                    else:
                        ctx.error("arguments", "award needs VP: a number or = EXPRESSION", e.span)
                for extra in args:
                    ctx.error("arguments", f"unexpected '{extra.text}'", extra.span,
                              f"write: {kw} SIDE {'N ' if kw == 'award' else ''}[at CHECKPOINT] [when CONDITION]")
                ctx.expr(amount)
                ctx.expr(e.condition)
                rules.append(D.VictoryRule(kw, side, amount, e.condition, at, title, where(e)))
        b.finish()
        return tuple(rules)

    CHECKPOINTS = ("end", "turn-end", "supply", "roll", "failed-attack", "enter", "enter-each")

    def check_checkpoints(self, victory: dict, sequence: tuple[D.Phase, ...]) -> set[str]:
        """Every ``at CHECKPOINT`` names one the engine reaches: a fixed one or a victory-check phase."""
        known = set(self.CHECKPOINTS)
        stack = list(sequence)
        while stack:
            ph = stack.pop()
            if ph.procedure == "victory-check":
                known.add(ph.id)
            stack.extend(ph.children)
        for rules in victory.values():
            for r in rules:
                if r.at and r.at not in known:
                    span = Span.parse(r.where + ":1")
                    self.ctx.error("unknown-name", f"unknown checkpoint '{r.at}': no phase reaches it", span,
                                   did_you_mean(r.at, sorted(known)))
        return known
