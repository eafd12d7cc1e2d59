"""Compiles effect blocks (runtime/effects.py runs them), markers, game
variables and triggers.

An effect block is a list of statements, one effect each, from a closed
vocabulary (``VERBS``); each may take ``when CONDITION``.  Blocks stand in a
die table (``on CODE { ... }``), an event (``do { ... }``), the chits
(``on-draw CHIT { ... }``), a trigger (``trigger NAME at CHECKPOINT { ... }``)
and a ``choose`` option.  Every block compiled is stored under a key in
``GameDefinition.effects``.
"""
from __future__ import annotations

from runtime import definition as D
from runtime import expr as E

from .ast import Arg, Statement
from .checker import Body, Ctx, did_you_mean, title_of, where
from .diagnostics import Span

VERBS = {
    "place": "place KIND at WHERE [value N] [count N] [from WHERE [random]]",
    "remove": "remove KIND [at WHERE]",
    "flip": "flip KIND [at WHERE]",
    "reveal": "reveal KIND [at WHERE] [to SIDE]",
    "award": "award SIDE N  or  award SIDE = EXPRESSION",
    "set": "set VARIABLE = EXPRESSION",
    "move": "move N|all SELECTORS from WHERE|map to WHERE [random | by SIDE [upto]] [marked|unmarked MARKER] "
            "[commanding-nobody]",
    "attach": "attach N|all SELECTORS from WHERE to UNITS [random]",
    "eliminate": "eliminate N|all SELECTORS from WHERE|map [random | by SIDE] [marked|unmarked MARKER]",
    "put-chit": "put-chit CHIT cup  or  put-chit CHIT hand SIDE",
    "take-chit": "take-chit CHIT",
    "restore": "restore N|all SELECTORS by SIDE [cost N] = POINTS",
    "mark": "mark N|all SELECTORS with MARKER [random | by SIDE]",
    "relocate": "relocate N|all SELECTORS by SIDE",
    "unmark": "unmark MARKER [SELECTORS]",
    "roll": "roll TABLE",
    "lose-source": "lose-source HEX",
    "end-game": "end-game SIDE|draw [\"why\"]",
    "choose": "choose SIDE [\"question\"] { option NAME [\"title\"] { effects } ... }",
    "fire": "fire KIND[,KIND...] N  or  fire KIND = EXPRESSION  or  fire KIND roll TABLE",
    "join": "join N|all SELECTORS from WHERE [random] [else-row N]",
    "reroll": "reroll",
    "multiply": "multiply STEP N [both]",
    "add-damage": "add-damage N",
    "cancel-step": "cancel-step STEP",
    "neutralise": "neutralise SELECTORS",
    "both-lose": "both-lose",
    "cancel-chit": "cancel-chit SELECTORS",
    "cancel-equipment": "cancel-equipment SELECTORS [removed-with FACTOR]",
    "send-back": "send-back SELECTORS [within N]",
    "strike": "strike SELECTORS on N [spent]",
    "reroll-die": "reroll-die",
    "intercept": "intercept",
    "bomb": "bomb FACTOR",
    "ground-attack": "ground-attack FACTOR [shots N]",
    "recon": "recon N",
}
RESULT_VERBS = ("join", "reroll")  # a CRT result's own effects: only in results { on CODE { ... } }
# a support chit's effects in a dice-pool battle: only in dice-pool { on-use SELECTORS { ... } }
# (runtime/combat/dicepool/chits.py applies them; they change that battle only)
# an aircraft's role in a dice-pool battle's air combat (dice-pool { air { ... } }, Prokhorovka 16.0)
AIR_VERBS = ("intercept", "bomb", "ground-attack", "recon")
BATTLE_VERBS = ("multiply", "add-damage", "cancel-step", "neutralise", "both-lose", "cancel-chit", "cancel-equipment",
                "send-back", "strike", "reroll-die", *AIR_VERBS)
# the words after a verb's first arguments that take one value
KEYWORDS = {"at", "value", "count", "from", "to", "by", "cost", "with", "roll", "else-row", "marked", "unmarked",
            "removed-with", "on", "shots", "within"}
# in an on-use block, ``choose { option NAME "title" { EFFECTS } ... }``: the chit's side picks one option as
# the battle's chits are turned face up; these verbs do not stand in such an option (a role in the air, a
# strike before the duel and a roll again do not wait for that choice)
NOT_IN_BATTLE_OPTION = ("reroll-die", "strike", *AIR_VERBS)
UNIT_MARKERS = ("out-of-supply", "isolated", "disrupted")  # markers on units (runtime/supply.py reads them)
BLOCK_KEYWORDS = ("do", "on", "on-draw", "option", "on-use", "at-once")  # statements whose body is effects (no global value/condition rules)


class EffectCompiler:
    def __init__(self, ctx: Ctx, areas: set[str], pools: set[str], tables: set[str]):
        self.ctx = ctx
        self.areas = areas
        self.pools = pools
        self.tables = tables
        self.cups: set[str] = set()  # pools of kind cup: drawn from at random only
        self.effects: dict[str, tuple[D.Effect, ...]] = {}
        self.bound_places: tuple[str, ...] = ()  # names a trigger binds that stand for a place (``hex`` at enter)
        self.battle_steps: tuple[str, ...] = ()  # the dice-pool battle's fire steps (multiply, cancel-step)
        self.factors: set[str] = set()  # the factors unit classes print (cancel-equipment removed-with)

    # ------------------------------------------------------------ places
    def location(self, a: Arg, boxes: bool = True, whole_map: bool = False) -> str | None:
        """A hex id, an area or (``boxes``) a pool, ``eliminated`` or ``removed``
        (``whole_map``: or ``map``, every hex)."""
        t = a.text
        if t in self.areas or t in self.bound_places or \
                (boxes and (t in self.pools or t in ("eliminated", "removed"))) or (whole_map and t == "map"):
            return t
        if self.ctx.grid is not None:
            try:
                self.ctx.grid.parse_id(t)
                return t
            except ValueError:
                pass
        choices = sorted(self.areas) + (sorted(self.pools) + ["eliminated", "removed"] if boxes else [])
        self.ctx.error("unknown-name", f"'{t}' is not a hex, an area{' or a pool' if boxes else ''}", a.span,
                       did_you_mean(t, choices))
        return None

    # ------------------------------------------------------------ blocks
    def block(self, st: Statement, key: str) -> str:
        """Compile the effects in a statement's body under ``key``; returns the key."""
        out = []
        for e in st.body or ():
            if not isinstance(e, Statement):
                self.ctx.error("table-place", "an effect block does not take a table", e.span)
                continue
            eff = self.effect(e, key, len(out))
            if eff is not None:
                out.append(eff)
        if st.body is None:
            self.ctx.error("block", f"'{st.keyword}' needs a block of effects", st.span,
                           "write: { place minsk-drm at minsk-pocket }")
        self.effects[key] = tuple(out)
        return key

    def _split(self, e: Statement, positional: int) -> tuple[list[Arg], dict[str, Arg], set[str]] | None:
        """The first ``positional`` arguments, then ``KEYWORD VALUE`` pairs and flags (``random``)."""
        args = list(e.args)
        title = args.pop() if args and args[-1].quoted and e.keyword in ("end-game", "choose") else None
        pos, named, flags = args[:positional], {}, set()
        rest = args[positional:]
        i = 0
        while i < len(rest):
            w = rest[i].text
            if w in KEYWORDS and i + 1 < len(rest):
                named[w] = rest[i + 1]
                i += 2
            elif w in ("random", "upto", "commanding-nobody", "both", "spent"):
                flags.add(w)
                i += 1
            else:
                self.ctx.error("arguments", f"'{w}' is not understood in '{e.keyword}'", rest[i].span,
                               f"write: {VERBS[e.keyword]}")
                return None
        if len(pos) < positional:
            self.ctx.error("arguments", f"'{e.keyword}' needs more arguments", e.span, f"write: {VERBS[e.keyword]}")
            return None
        if title is not None:
            named["title"] = title
        return pos, named, flags

    def effect(self, e: Statement, key: str, i: int) -> D.Effect | None:
        ctx = self.ctx
        verb = e.keyword
        if verb not in VERBS:
            ctx.error("unknown-keyword", f"'{verb}' is not an effect", e.span,
                      did_you_mean(verb, VERBS) or "effects: " + ", ".join(VERBS))
            return None
        ctx.expr(e.condition)
        if verb in RESULT_VERBS and not key.startswith("result:"):
            ctx.error("value", f"'{verb}' is a combat result's effect: it stands only in a results block's "
                      "on CODE { ... }", e.span, "write: results NAME { table { ... }; on CODE { " + VERBS[verb] + " } }")
            return None
        in_battle = key.startswith("battle:")
        in_option = in_battle and key.count(".") > 0  # battle:on-use:N.I.OPTION: a battle choose's option
        if in_battle and verb == "choose" and in_option:
            ctx.error("value", "a choose's option cannot hold another choose", e.span,
                      "write the options side by side in one choose")
            return None
        if in_option and verb in NOT_IN_BATTLE_OPTION:
            ctx.error("value", f"'{verb}' cannot stand in a choose's option (the chit's air role, strike or roll again "
                      "does not wait for the choice)", e.span, f"write it in the on-use block itself: on-use CHIT {{ {VERBS[verb]} }}")
            return None
        if (verb in BATTLE_VERBS) != in_battle and not (in_battle and verb == "choose"):
            if verb in BATTLE_VERBS:
                ctx.error("value", f"'{verb}' changes a dice-pool battle: it stands only in dice-pool's "
                          "on-use SELECTORS { ... }", e.span, "write: dice-pool { on-use melee { " + VERBS[verb] + " } }")
            else:
                ctx.error("value", f"'{verb}' is not a battle effect: a dice-pool on-use block takes "
                          + ", ".join(BATTLE_VERBS), e.span, did_you_mean(verb, BATTLE_VERBS))
            return None
        if e.value is not None:
            ctx.expr(e.value)
            if verb not in ("award", "set", "restore", "move", "eliminate", "mark", "attach", "fire"):
                ctx.error("value-place", f"'{verb}' takes no '= value'", Span.parse(e.value.where) or e.span)
        if e.body is not None and verb != "choose":
            ctx.error("block", f"'{verb}' takes no block", e.span)
        counted = (verb in ("move", "eliminate", "mark", "attach") and e.value is None) or verb == "restore"
        npos = {"place": 1, "remove": 1, "flip": 1, "reveal": 1, "award": 1 + (e.value is None), "set": 1,
                "move": 1 + counted, "eliminate": 1 + counted, "put-chit": 2, "take-chit": 1, "restore": 1 + counted,
                "roll": 1, "end-game": 1, "choose": 0 if in_battle else 1, "mark": 1 + counted, "relocate": 2, "unmark": max(1, min(2, len(e.args))),
                "attach": 1 + counted,
                "fire": 1 + (e.value is None and not any(a.text == "roll" for a in e.args[1:])),
                "join": 2, "reroll": 0, "lose-source": 1,
                "multiply": 2, "add-damage": 1, "cancel-step": 1, "neutralise": 1, "both-lose": 0,
                "cancel-chit": 1, "cancel-equipment": 1, "send-back": 1, "strike": 1,
                "reroll-die": 0, "intercept": 0, "bomb": 1, "ground-attack": 1, "recon": 1}[verb]
        split = self._split(e, npos)
        if split is None:
            return None
        pos, named, flags = split
        args: dict[str, object] = {}
        options: tuple[tuple[str, str, str], ...] = ()
        ok = True

        def need(word: str) -> Arg | None:
            nonlocal ok
            if word not in named:
                ctx.error("arguments", f"'{verb}' needs '{word} ...'", e.span, f"write: {VERBS[verb]}")
                ok = False
            return named.get(word)

        def refuse(*words: str) -> None:
            nonlocal ok
            for w in list(named) + sorted(flags):
                if w not in words and w != "title":
                    a = named.get(w)
                    ctx.error("arguments", f"'{verb}' takes no '{w}'", a.span if a else e.span,
                              f"write: {VERBS[verb]}")
                    ok = False

        if verb in ("place", "remove", "flip", "reveal"):
            args["kind"] = ctx.ref("marker", pos[0], "marker kind")
            ok = ok and args["kind"] is not None
            if verb == "place":
                refuse("at", "value", "count", "from", "random")
                at = need("at")
                args["at"] = self.location(at) if at else None
                ok = ok and args["at"] is not None
                if "value" in named:
                    args["value"] = ctx.int_(named["value"], "a marker's value", -99, 99)
                if "count" in named:
                    args["count"] = ctx.int_(named["count"], "count", 1, 99) or 1
                if "from" in named:
                    args["from"] = self.location(named["from"])
                    args["random"] = "random" in flags
                    if "value" in named:
                        ctx.error("arguments", "a marker taken from somewhere keeps its value", named["value"].span)
                elif "random" in flags:
                    ctx.error("arguments", "'random' picks among markers taken 'from' somewhere", e.span)
            else:
                refuse("at", "to") if verb == "reveal" else refuse("at")
                if "at" in named:
                    args["at"] = self.location(named["at"])
                if verb == "reveal" and "to" in named:
                    to = ctx.ref("side", named["to"], allow=("both",))
                    args["to"] = "" if to == "both" else to
                    ok = ok and to is not None
        elif verb == "award":
            args["side"] = ctx.ref("side", pos[0])
            refuse()
            amount = e.value
            if amount is None:
                if len(e.args) != 2:
                    ctx.error("arguments", "award needs an amount: N or = EXPRESSION", e.span, f"write: {VERBS[verb]}")
                    return None
                n = ctx.int_(e.args[1], "an award")
                amount = E.Num(n or 0, where=str(e.args[1].span))
            return D.Effect(verb, D.frozen_map(args), amount, e.condition, (), where(e)) if args["side"] else None
        elif verb == "set":
            args["variable"] = ctx.ref("variable", pos[0])
            refuse()
            if e.value is None:
                ctx.error("value-place", "set needs '= EXPRESSION'", e.span, f"write: {VERBS[verb]}")
                ok = False
            ok = ok and args["variable"] is not None
        elif verb in ("move", "eliminate", "restore"):
            if counted:
                c = pos[0]
                args["count"] = "all" if c.text == "all" else ctx.int_(c, "how many", 0, 99)
                ok = ok and args["count"] is not None
            sel = pos[-1]
            args["units"] = tuple(self.selectors(sel))
            if verb == "restore":
                refuse("by", "cost")
                if e.value is None:
                    ctx.error("value-place", "restore needs '= POINTS' (the replacement points to spend)", e.span,
                              f"write: {VERBS[verb]}")
                    ok = False
                if "cost" in named:
                    args["cost"] = ctx.int_(named["cost"], "points per step", 0, 99)
            else:
                refuse("from", "to", "by", "random", "upto", "marked", "unmarked", "commanding-nobody") \
                    if verb == "move" else refuse("from", "by", "random", "marked", "unmarked", "commanding-nobody")
                if "commanding-nobody" in flags:  # HQs with no friendly unit in their command range
                    args["idle"] = True
                fr = need("from")
                args["from"] = self.location(fr, whole_map=True) if fr else None
                for w in ("marked", "unmarked"):
                    if w in named:
                        args[w] = self.unit_marker(named[w])
                        ok = ok and args[w] is not None
                ok = ok and args["from"] is not None
                if verb == "move":
                    to = need("to")
                    args["to"] = self.location(to) if to else None
                    ok = ok and args["to"] is not None
                if "by" in named and "random" in flags:
                    ctx.error("arguments", f"'{verb}' is either 'random' or 'by SIDE', not both", named["by"].span)
                    ok = False
            if "by" in named:
                args["by"] = ctx.ref("side", named["by"])
                ok = ok and args["by"] is not None
            elif verb == "restore":
                need("by")
            if "upto" in flags:  # the side may stop before N (AVD 5 g: the units it releases)
                if "by" not in named:
                    ctx.error("arguments", "'upto' lets the side that picks stop early: it needs 'by SIDE'", e.span,
                              f"write: {VERBS[verb]}")
                    ok = False
                args["upto"] = True
        elif verb == "attach":  # counters drawn (or taken) from a place onto units (runtime/attachments.py)
            refuse("from", "to", "random")
            if counted:
                c = pos[0]
                args["count"] = "all" if c.text == "all" else ctx.int_(c, "how many", 0, 99)
                ok = ok and args["count"] is not None
            args["units"] = tuple(self.selectors(pos[-1]))
            fr = need("from")
            args["from"] = self.location(fr) if fr else None
            to = need("to")
            args["to"] = tuple(self.selectors(to, self.ctx.designated)) if to else ()
            args["random"] = "random" in flags
            ok = ok and args["from"] is not None and bool(args["to"])
        elif verb == "mark":
            refuse("with", "by", "random")
            if counted:
                c = pos[0]
                args["count"] = "all" if c.text == "all" else ctx.int_(c, "how many", 0, 99)
                ok = ok and args["count"] is not None
            args["units"] = tuple(self.selectors(pos[-1]))
            w = need("with")
            args["marker"] = self.unit_marker(w) if w else None
            ok = ok and args["marker"] is not None
            if "by" in named and "random" in flags:
                ctx.error("arguments", "'mark' is either 'random' or 'by SIDE', not both", named["by"].span)
                ok = False
            if "by" in named:
                args["by"] = ctx.ref("side", named["by"])
                ok = ok and args["by"] is not None
        elif verb == "relocate":  # the side may displace its units that match (AVD 补给 4 j: its HQs)
            refuse("by")
            c = pos[0]
            args["count"] = "all" if c.text == "all" else ctx.int_(c, "how many", 1, 99)
            args["units"] = tuple(self.selectors(pos[1]))
            by = need("by")
            args["by"] = ctx.ref("side", by) if by else None
            ok = ok and args["count"] is not None and bool(args["units"]) and args["by"] is not None
        elif verb == "unmark":
            if len(e.args) > 2:
                ctx.error("arguments", "unmark takes a unit marker and, optionally, unit selectors", e.args[2].span,
                          f"write: {VERBS[verb]}")
                ok = False
            args["marker"] = self.unit_marker(pos[0])
            ok = ok and args["marker"] is not None
            args["units"] = tuple(self.selectors(e.args[1])) if len(e.args) > 1 else ()
        elif verb in ("put-chit", "take-chit"):
            args["chit"] = ctx.ref("chit", pos[0])
            ok = ok and args["chit"] is not None
            refuse()
            if verb == "put-chit":
                into = pos[1].text
                if into == "cup" and len(e.args) == 2:
                    args["into"] = "cup"
                elif into == "hand" and len(e.args) == 3:
                    args["into"] = ctx.ref("side", e.args[2]) or ""
                    ok = ok and bool(args["into"])
                else:
                    ctx.error("arguments", "put-chit puts a chit into the cup or a side's hand", pos[1].span,
                              f"write: {VERBS[verb]}")
                    ok = False
        elif verb == "lose-source":
            refuse()
            args["at"] = self.location(pos[0], boxes=False)
            ok = ok and args["at"] is not None
            if len(e.args) > 1:
                ctx.error("arguments", "lose-source takes one hex or area", e.args[1].span, f"write: {VERBS[verb]}")
                ok = False
        elif verb == "roll":
            refuse()
            args["table"] = ctx.ref("die-table", pos[0])
            ok = ok and args["table"] is not None
        elif verb == "fire":
            refuse("roll")
            kinds = [k for k in pos[0].text.split(",")]
            for k in kinds:
                if not ctx.has("fire-attack", k):
                    ctx.error("unknown-name", f"unknown fire attack '{k}'", pos[0].span,
                              did_you_mean(k, list(ctx.symbols.get("fire-attack", {}))) or
                              "declare it: fire-attack NAME \"Title\" { side SIDE; column 3-1 }")
                    ok = False
            args["kinds"] = tuple(kinds)
            if "roll" in named:
                args["table"] = ctx.ref("die-table", named["roll"])
                ok = ok and args["table"] is not None
                if e.value is not None:
                    ctx.error("arguments", "fire takes a count, '= EXPRESSION' or 'roll TABLE', not two of them",
                              e.span, f"write: {VERBS[verb]}")
                    ok = False
            elif e.value is None:
                args["count"] = ctx.int_(pos[1], "how many fire attacks", 0, 99)
                ok = ok and args["count"] is not None
        elif verb == "join":
            refuse("from", "random", "else-row")
            c = pos[0]
            args["count"] = "all" if c.text == "all" else ctx.int_(c, "how many", 1, 99)
            args["units"] = tuple(self.selectors(pos[1]))
            fr = need("from")
            args["from"] = self.location(fr) if fr else None
            args["random"] = "random" in flags
            if "else-row" in named:
                args["else-row"] = ctx.int_(named["else-row"], "a CRT row", 0, 999)
                ok = ok and args["else-row"] is not None
            ok = ok and args["count"] is not None and args["from"] is not None
        elif verb == "reroll":
            refuse()
            if e.args:
                ctx.error("arguments", "reroll takes no arguments", e.args[0].span, "write: reroll")
                ok = False
        elif verb in AIR_VERBS:
            refuse(*(("shots",) if verb == "ground-attack" else ()))
            if verb in ("bomb", "ground-attack"):
                f = pos[0].text
                if f not in self.factors:
                    ctx.error("unknown-name", f"no unit class prints a factor '{f}' ({verb})", pos[0].span,
                              did_you_mean(f, self.factors))
                    ok = False
                args["factor"] = f
                args["shots"] = ctx.int_(named["shots"], "shots", 1, 9) if "shots" in named else 1
                ok = ok and args["shots"] is not None
            elif verb == "recon":
                args["count"] = ctx.int_(pos[0], "how many face-down counters", 1, 99)
                ok = ok and args["count"] is not None
        elif verb in BATTLE_VERBS:
            refuse(*{"multiply": ("both",), "cancel-equipment": ("removed-with",), "send-back": ("within",),
                     "strike": ("on", "spent")}.get(verb, ()))
            if verb in ("multiply", "cancel-step"):
                step = pos[0].text
                if step not in self.battle_steps:
                    ctx.error("unknown-name", f"the dice-pool battle has no step '{step}'", pos[0].span,
                              did_you_mean(step, self.battle_steps) or "steps: " + ", ".join(self.battle_steps))
                    ok = False
                args["step"] = step
            if verb == "multiply":
                args["times"] = ctx.int_(pos[1], "how many times the dice", 1, 9)
                args["both"] = "both" in flags
                ok = ok and args["times"] is not None
            elif verb == "add-damage":
                args["amount"] = ctx.int_(pos[0], "damage added", -99, 99)
                ok = ok and args["amount"] is not None
            if verb == "strike":
                on = need("on")
                args["on"] = ctx.int_(on, "the hit number", 0, 99) if on else None
                args["spent"] = "spent" in flags
                ok = ok and args["on"] is not None
            if verb in ("neutralise", "cancel-chit", "cancel-equipment", "send-back", "strike"):
                args["units"] = tuple(self.selectors(pos[0]))
                ok = ok and bool(args["units"])
                if verb == "send-back":
                    args["within"] = ctx.int_(named["within"], "hexes from the side's stacks", 0, 99) \
                        if "within" in named else 0
                    ok = ok and args["within"] is not None
                if "removed-with" in named:
                    f = named["removed-with"].text
                    if f not in self.factors:
                        ctx.error("unknown-name", f"no unit class prints a factor '{f}'", named["removed-with"].span,
                                  did_you_mean(f, self.factors))
                        ok = False
                    args["removed-with"] = f
        elif verb == "end-game":
            refuse()
            args["winner"] = ctx.ref("side", pos[0], allow=("draw",))
            args["title"] = named["title"].text if "title" in named else ""
            ok = ok and args["winner"] is not None
        elif verb == "choose":
            refuse()
            # in an on-use block: the chit's side chooses (no SIDE)
            args["side"] = "side" if in_battle else ctx.ref("side", pos[0], allow=("active", "enemy"))
            args["question"] = named["title"].text if "title" in named else ""
            b = Body(ctx, e, "choose")
            opts = []
            for o in b.all("option"):
                if not o.args or o.args[0].quoted:
                    ctx.error("name", "an option needs a name", o.span, 'write: option escape "Release the units" { ... }')
                    continue
                name = o.args[0].text
                okey = f"{key}.{i}.{name}"
                self.block(o, okey) if o.body is not None else self.effects.setdefault(okey, ())
                opts.append((name, title_of(o), okey))
            b.finish()
            if len(opts) < 2:
                ctx.error("arguments", "choose needs at least two options", e.span)
                ok = False
            options = tuple(opts)
            ok = ok and args["side"] is not None
        if ok and verb in ("move", "eliminate", "attach") and args.get("from") in self.cups:
            if args.get("by"):
                ctx.error("value", f"{args['from']} is a cup: counters are drawn from it at random, not chosen",
                          named["by"].span, "write 'random' instead of 'by SIDE'")
                ok = False
            elif "random" not in flags and not (args.get("count") == "all" and e.value is None):
                ctx.error("value", f"{args['from']} is a cup: counters are drawn from it at random", e.span,
                          f"add 'random': {VERBS[verb]}")
                ok = False
        if not ok:
            return None
        return D.Effect(verb, D.frozen_map(args), e.value, e.condition, options, where(e))

    def unit_marker(self, a: Arg) -> str | None:
        """A marker a unit carries, that the engine reads (supply halving, recovery, movement bars)."""
        if a.text in UNIT_MARKERS or a.text in self.ctx.designated or a.text in self.ctx.phase_read:
            return a.text  # the engine's own, one a phase gives, or one a phase reads (exclude held)
        self.ctx.error("unknown-name", f"'{a.text}' is not a unit marker the engine reads", a.span,
                       did_you_mean(a.text, UNIT_MARKERS) or "unit markers: " + ", ".join(UNIT_MARKERS))
        return None

    def selectors(self, a: Arg, markers=()) -> list[str]:
        """Unit selectors: sides, classes, flags, nationalities, counters, all
        (and the unit markers given, where units carrying one may be named)."""
        out = []
        known = set(markers)
        for kind in ("side", "unit-class", "nationality", "counter"):
            known |= set(self.ctx.symbols.get(kind, {}))
        known |= self.ctx.class_flags | {"all"}
        for x in a.text.split(","):
            if x not in known:
                self.ctx.error("unknown-name", f"unknown unit selector '{x}'", a.span, did_you_mean(x, known))
            else:
                out.append(x)
        return out


# ------------------------------------------------------------ markers, variables, triggers

def marker_kind(ctx: Ctx, st: Statement) -> D.MarkerKind:
    """``marker NAME "title" { colour; text-colour; value N; hidden [from all|enemy]; side SIDE }``."""
    b = Body(ctx, st, f"marker {st.name}")
    colour = ctx.colour(b.arg("colour")) or "#f0d040"
    text = ctx.colour(b.arg("text-colour")) or "#000000"
    value = ctx.int_(b.arg("value"), "a marker's value", -99, 99)
    hid = b.one("hidden", (0, 2))
    hidden = hid is not None
    side = ctx.ref("side", b.arg("side")) or "" if b.arg("side") else ""
    hidden_from = "all"
    if hid is not None and hid.args:
        words = [a.text for a in hid.args]
        if words in (["from", "all"], ["from", "enemy"]):
            hidden_from = words[1]
        else:
            ctx.error("arguments", f"'hidden' takes nothing, 'from all' or 'from enemy', not '{' '.join(words)}'",
                      hid.args[0].span, "write: hidden from enemy (its side sees the values, the others do not)")
        if hidden_from == "enemy" and not b.arg("side"):
            ctx.error("arguments", f"marker {st.name} is hidden from the enemy: say whose it is with 'side SIDE'",
                      hid.span, "write: side german")
    b.finish()
    if st.condition is not None:
        ctx.error("condition-place", "a marker declaration takes no 'when'", Span.parse(st.condition.where) or st.span,
                  "say when a marker is placed or removed with the effects that do it")
    return D.MarkerKind(st.name, title_of(st) or st.name, colour, text, side, value, hidden, where(st),
                        hidden_from=hidden_from)


def hidden_rules(ctx: Ctx, st: Statement | None) -> D.HiddenRules:
    """``hidden { unit-marker NAME from enemy|all }``: what the game hides
    besides the engine's own secrets (runtime/observe.py)."""
    if st is None:
        return D.HiddenRules()
    b = Body(ctx, st, "hidden")
    units: dict[str, str] = {}
    form = "write: unit-marker NAME from enemy (or from all)"
    for s in b.all("unit-marker"):
        words = [a.text for a in s.args]
        if len(words) != 3 or words[1] != "from" or words[2] not in ("enemy", "all"):
            ctx.error("arguments", "unit-marker takes a unit marker and whom it is hidden from", s.span, form)
            continue
        known = UNIT_MARKERS + tuple(sorted(ctx.designated))  # and those designate phases give (a reserve)
        if words[0] not in known:
            ctx.error("unknown-name", f"'{words[0]}' is not a unit marker the engine reads", s.args[0].span,
                      did_you_mean(words[0], known) or "unit markers: " + ", ".join(known))
            continue
        if words[0] in units:
            ctx.error("duplicate", f"unit-marker {words[0]} is declared hidden twice", s.span)
        units[words[0]] = words[2]
    b.finish()
    if st.condition is not None:
        ctx.error("condition-place", "'hidden' takes no 'when'", Span.parse(st.condition.where) or st.span,
                  "reveal markers with the effects 'flip' and 'reveal'")
    return D.HiddenRules(D.frozen_map(units), where(st))


def variable(ctx: Ctx, st: Statement) -> D.Variable:
    """``variable NAME "title" = 0`` (a whole number, true or false)."""
    if st.body is not None:
        ctx.error("block", "variable takes no block", st.span)
    v = st.value
    initial: object = 0
    if isinstance(v, E.Num):
        initial = int(v.value) if float(v.value).is_integer() else v.value
    elif isinstance(v, E.Bool):
        initial = v.value
    elif isinstance(v, E.Unary) and isinstance(v.operand, E.Num) and v.op == "-":
        initial = -int(v.operand.value)
    else:
        ctx.error("value-place", f"variable {st.name} needs a starting value: = 0, = true or = false",
                  Span.parse(v.where) if v is not None else st.span)
    return D.Variable(st.name, title_of(st) or st.name, initial, where(st))


def trigger(ctx: Ctx, st: Statement, fx: EffectCompiler, checkpoints: set[str]) -> D.Trigger | None:
    """``trigger NAME "title" at CHECKPOINT [when COND] { effects }``."""
    args = [a for a in st.args[1:] if not a.quoted]
    if len(args) != 2 or args[0].text != "at":
        ctx.error("arguments", f"trigger {st.name} needs 'at CHECKPOINT'", st.span,
                  f"write: trigger {st.name} \"title\" at turn-end when ... {{ effects }}; checkpoints: "
                  + ", ".join(sorted(checkpoints)))
        return None
    at = args[1]
    if at.text not in checkpoints:
        ctx.error("unknown-name", f"unknown checkpoint '{at.text}': no phase reaches it", at.span,
                  did_you_mean(at.text, sorted(checkpoints)))
        return None
    ctx.expr(st.condition)
    fx.bound_places = ("hex",) if at.text in ("enter", "enter-each") else ()  # the hex entered
    key = fx.block(st, f"trigger:{st.name}")
    fx.bound_places = ()
    return D.Trigger(st.name, title_of(st) or st.name, at.text, st.condition, key, where(st))


def placement(ctx: Ctx, st: Statement, fx: EffectCompiler) -> D.MarkerPlacement | None:
    """A scenario's ``place KIND at WHERE [value N] [count N]``, or ``place
    KIND at WHERE from WHERE [count N] [random]`` (markers set up above, moved)."""
    usage = "write: place KIND at WHERE [value N] [count N], or place KIND at WHERE from WHERE [count N] [random]"
    split = fx._split(st, 1)
    if split is None:
        return None
    pos, named, flags = split
    kind = ctx.ref("marker", pos[0], "marker kind")
    bad = [w for w in list(named) + sorted(flags) if w not in ("at", "value", "count", "from", "random")]
    if "from" in named and "value" in named:
        bad.append("value")
    if "random" in flags and "from" not in named:
        bad.append("random")
    for w in bad:
        ctx.error("arguments", f"a scenario's place takes no '{w}'" + (" here" if w in ("value", "random") else ""),
                  named[w].span if w in named else st.span, usage)
    if "at" not in named:
        ctx.error("arguments", "place needs 'at WHERE'", st.span, usage)
        return None
    at = fx.location(named["at"])
    source = fx.location(named["from"]) if "from" in named else ""
    value = ctx.int_(named["value"], "a marker's value", -99, 99) if "value" in named else None
    count = ctx.int_(named["count"], "count", 1, 99) or 1 if "count" in named else 1
    if kind is None or at is None or source is None or bad:
        return None
    return D.MarkerPlacement(kind, at, value, count, where(st), source or "", "random" in flags)


def check_results(ctx: Ctx, t: D.DieTable, ons: list[Statement]) -> None:
    """Every ``on CODE`` of a die table names a code its cells print."""
    cells = {c for row in t.cells for c in row}
    for o in ons:
        if len(o.args) != 1:
            ctx.error("arguments", "on takes one result code", o.span, "write: on A { effects }")
        elif o.args[0].text not in cells:
            ctx.error("unknown-name", f"no cell of die-table {t.id} reads '{o.args[0].text}'", o.args[0].span,
                      did_you_mean(o.args[0].text, sorted(cells)))

