"""Attachment kinds: counters that sit under a unit (runtime/attachments.py).

    attachment equipment "Equipment chit" {
      counters tank at-gun detachment     # the counters of this kind (classes, flags, counter ids)
      hosts mech foot                     # who may carry them (default: any unit that is no attachment)
      capacity equipment                  # a factor of the host, a number, or SELECTOR FACTOR|N rows
      returns cup                         # where a removed one goes: cup, a pool, eliminated, removed
      loss yes                            # a step loss may remove one instead
      adds attack fire                    # HOST-FACTOR ATTACHMENT-FACTOR|N, added while carried
      zoc yes                             # a host carrying one exerts a ZOC
      converts detachment                 # may leave the host as a unit in a movement phase
      left-behind position                # once face up, goes where 'returns' says when its host moves
                                          # or retreats (GJ63 签一览 阵地)
    }

Part of the compiler: methods of ``_Compiler`` (see ``core.py``)."""
from __future__ import annotations

from runtime import definition as D

from ..ast import Arg, Statement
from ..checker import Body, read_yes_no, title_of, where
from ..diagnostics import Span, did_you_mean
from .parts import CompilerParts

fm = D.frozen_map
RETURNS = ("cup", "eliminated", "removed")


class AttachmentsMixin(CompilerParts):
    def unit_selectors(self, args: list[Arg], classes, counters, what: str) -> frozenset[str]:
        """Unit selectors (classes, flags, nationalities, sides, all) and counter ids."""
        ok = set(classes) | self.ctx.class_flags | {"all"} | set(counters) | \
            set(self.ctx.symbols.get("nationality", {})) | set(self.ctx.symbols.get("side", {}))
        out = set()
        for a in args:
            for x in a.text.split(","):
                if x in ok:
                    out.add(x)
                elif x not in self.ctx.poisoned:
                    self.ctx.error("unknown-name", f"'{x}' is not a unit class, class flag, nationality, side or "
                                   f"counter ({what})", a.span, did_you_mean(x, ok))
        return frozenset(out)

    def attachments(self, classes: dict[str, D.UnitClass], counters: dict[str, D.Counter],
                    pools: dict[str, D.Pool], movement: D.MovementRules, combat: D.CombatRules
                    ) -> tuple[dict[str, D.AttachmentKind], dict[str, str]]:
        """Every ``attachment`` block, and which kind each counter is."""
        self.classes_seen = classes
        kinds: dict[str, D.AttachmentKind] = {}
        of: dict[str, str] = {}
        for st in self.all("attachment"):
            k = self.attachment(st, classes, counters, pools, movement, combat)
            if k is None:
                continue
            kinds[k.id] = k
            for cid, c in counters.items():
                if cid in k.counters or (self.class_flags_of(classes, c) & k.counters):
                    if cid in of:
                        self.ctx.error("duplicate", f"counter {cid} is both {of[cid]} and {k.id}",
                                       Span.parse(k.where + ":1"), "an attachment counter is of one kind")
                        continue
                    of[cid] = k.id
        return kinds, of

    @staticmethod
    def class_flags_of(classes, c: D.Counter) -> frozenset[str]:
        cls = classes.get(c.unit_class)
        return (cls.flags if cls else frozenset()) | {c.unit_class, c.nationality, c.side, "all"}

    def attachment(self, st: Statement, classes, counters, pools, movement, combat) -> D.AttachmentKind | None:
        ctx = self.ctx
        b = Body(ctx, st, f"attachment {st.name}")
        cs = b.one("counters", (1, 99))
        hs = b.one("hosts", (1, 99))
        caps = b.all("capacity")
        ret = b.one("returns")
        loss = read_yes_no(ctx, b.arg("loss"), "loss", False) if b.one("loss") else False
        zoc = read_yes_no(ctx, b.arg("zoc"), "zoc", False) if b.one("zoc") else False
        adds_st = b.all("adds")
        conv = b.one("converts", (1, 99))
        lb = b.one("left-behind", (1, 99))
        fd = b.one("face-down", (1, 1))
        sf = b.one("shown-from", (1, 99))
        face_down = ""
        if fd is not None:  # face-down yes | blind (GJ63 3.5(5), 19.6)
            face_down = {"yes": "cup", "blind": "blind", "no": ""}.get(fd.args[0].text, "?")
            if face_down == "?":
                ctx.error("value", f"face-down is yes, blind or no, not '{fd.args[0].text}'", fd.args[0].span,
                          "yes: the enemy sees which cup each comes from; blind: not even that")
                face_down = ""
        shown: set[str] = set()
        for a in (sf.args if sf is not None else ()):  # 19.6(2): placed from these pools, its cup still shows
            if ctx.ref("pool", a, "pool"):
                shown.add(a.text)
        if sf is not None and face_down != "blind":
            ctx.error("value", "shown-from is for a kind that is face down blind: the others show their cup always",
                      sf.span, "write: face-down blind; shown-from german-arriving")
        b.finish()
        if st.condition is not None:
            ctx.error("condition-place", "an attachment declaration takes no 'when'", Span.parse(st.condition.where))
        if cs is None:
            ctx.error("missing", f"attachment {st.name} needs 'counters': which counters sit under units", st.span,
                      "write: counters tank at-gun (unit classes, class flags or counter ids)")
            return None
        sel = self.unit_selectors(list(cs.args), classes, counters, "counters")
        mine = {cid: c for cid, c in counters.items() if cid in sel or self.class_flags_of(classes, c) & sel}
        if sel and not mine:
            ctx.error("unused", f"attachment {st.name}: no counter is one of {', '.join(sorted(sel))}", cs.span)
        hosts = self.unit_selectors(list(hs.args), classes, counters, "hosts") if hs else frozenset()
        # what the hosts print: every counter that may carry one
        host_counters = [c for cid, c in counters.items() if cid not in mine and
                         (not hosts or cid in hosts or self.class_flags_of(classes, c) & hosts)]
        if hs is not None and not host_counters:
            ctx.error("unused", f"attachment {st.name}: no counter may carry it", hs.span)
        capacity: list[tuple[str, str | int]] = []
        for c in caps:
            if len(c.args) not in (1, 2):
                ctx.error("arguments", "capacity takes a host factor or a number, after a host selector if you like",
                          c.span, "write: capacity equipment  or  capacity 2  or  capacity foot 1")
                continue
            who = "all"
            if len(c.args) == 2:
                s = self.unit_selectors([c.args[0]], classes, counters, "capacity")
                if not s:
                    continue
                who = c.args[0].text
            a = c.args[-1]
            if a.text.isdigit():
                v = ctx.int_(a, "a capacity", 0, 99)
                if v is not None:
                    capacity.append((who, v))
                continue
            printing = [c2.id for c2 in host_counters if a.text in classes[c2.unit_class].factors]
            if not printing:
                ctx.error("unknown-name", f"no unit that may carry {st.name} prints a factor '{a.text}'", a.span,
                          did_you_mean(a.text, sorted({f for c2 in host_counters
                                                       for f in classes[c2.unit_class].factors})))
                continue
            capacity.append((who, a.text))
        returns = "cup"
        if ret is not None:
            t = ret.args[0].text if ret.args else ""
            if t in RETURNS:
                returns = t
            elif ctx.ref("pool", ret.args[0], "pool or 'cup', 'eliminated', 'removed'", allow=RETURNS):
                returns = t
        if returns == "cup":
            for cid, c in sorted(mine.items()):
                if not c.arrives.startswith("pool:"):
                    title = (title_of(st) or st.name).lower()
                    ctx.error("missing", f"{cid} is {'an' if title[0] in 'aeiou' else 'a'} {title} that returns to "
                              "its cup, but it arrives in no pool", Span.parse(c.where + ":1"),
                              f"give it a pool in its 'arrives' column (its cup), or write 'returns removed' in "
                              f"attachment {st.name}")
                    break
        read = factors_the_engine_reads(movement, combat)
        adds: list[tuple[str, str | int]] = []
        for a_st in adds_st:
            if len(a_st.args) != 2:
                ctx.error("arguments", "adds takes the host's factor and the attachment's factor or a number",
                          a_st.span, "write: adds attack fire  or  adds move 1")
                continue
            target, value = a_st.args
            if target.text not in read:
                ctx.error("unused", f"the engine reads no host factor '{target.text}' that an attachment could add to",
                          target.span, "it reads " + ", ".join(sorted(read)) + " (combat strengths, movement points)")
                continue
            if not any(target.text in classes[c.unit_class].factors for c in host_counters):
                ctx.error("unknown-name", f"no unit that may carry {st.name} prints a factor '{target.text}'",
                          target.span, did_you_mean(target.text, sorted({f for c in host_counters
                                                                         for f in classes[c.unit_class].factors})))
                continue
            if value.text.isdigit():
                n = ctx.int_(value, "an amount", 0, 99)
                if n is not None:
                    adds.append((target.text, n))
                continue
            if not any(value.text in classes[c.unit_class].factors for c in mine.values()):
                ctx.error("unknown-name", f"no {st.name} counter prints a factor '{value.text}'", value.span,
                          did_you_mean(value.text, sorted({f for c in mine.values()
                                                           for f in classes[c.unit_class].factors})))
                continue
            adds.append((target.text, value.text))
        if loss and combat.procedure not in ("odds", "dice-pool"):  # both lose steps with 'lose UNIT'
            ctx.error("unused", f"'loss yes' lets a step loss on a CRT or in a dice-pool battle be taken on an "
                      f"attachment; "
                      f"this game's combat procedure is {combat.procedure}", b.one("loss").span)
        converts: frozenset[str] = frozenset()
        if conv is not None:
            converts = self.unit_selectors(list(conv.args), classes, counters, "converts")
            conv_counters = [c for cid, c in mine.items() if cid in converts or self.class_flags_of(classes, c) & converts]
            if converts and not conv_counters:
                ctx.error("unused", f"no {st.name} counter is one of {', '.join(sorted(converts))}", conv.span)
            pts = movement.points
            for c in conv_counters:
                if not pts.isdigit() and pts not in classes[c.unit_class].factors:
                    ctx.error("missing", f"{c.id} converts into a unit but its class {c.unit_class} prints no "
                              f"'{pts}' factor to move with", conv.span)
                    break
        left: frozenset[str] = frozenset()
        if lb is not None:  # GJ63 签一览 阵地: a face-up position goes back to its cup when its stack moves or retreats
            left = self.unit_selectors(list(lb.args), classes, counters, "left-behind")
            if left and not any(cid in left or self.class_flags_of(classes, c) & left for cid, c in mine.items()):
                ctx.error("unused", f"no {st.name} counter is one of {', '.join(sorted(left))}", lb.span)
        if face_down == "cup":
            for cid, c in sorted(mine.items()):
                if not c.arrives.startswith("pool:"):
                    ctx.error("missing", f"{cid} is face down with its cup showing, but it arrives in no pool",
                              fd.span, "give it its cup in the 'arrives' column, or write 'face-down blind'")
                    break
        return D.AttachmentKind(st.name, title_of(st) or st.name, sel, hosts, tuple(capacity), returns, loss,
                                tuple(adds), zoc, converts, where(st), face_down, frozenset(shown), left)


def factors_the_engine_reads(movement: D.MovementRules, combat: D.CombatRules) -> set[str]:
    """The unit factors the engine reads, so that an attachment may add to them:
    movement points, and the combat strengths of the game's combat procedure."""
    out = set() if movement.points.isdigit() else {movement.points}
    if combat.procedure == "odds":
        out |= {"attack", "defence", "strength"}
    elif combat.procedure == "firepower":
        out.add(combat.factor)
    return out
