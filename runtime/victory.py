"""Victory, as the runner evaluates it: the names and functions the game's
expressions read (``env``), the checkpoints where awards, ends and
immediate wins are tried, and the end of the game.  A mixin of
``runtime.runner.Runner``."""
from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from . import expr as E
from .hexes import Hex
from .observe import this_turn
from .runner_parts import RunnerParts
from .state import GameState
from .supply import barred_ends, reached, reached_along


def params_of(rules) -> list[str]:
    """The names victory rules ask for with ``param("NAME")`` (given with
    ``hexforge play --param NAME=N``), sorted."""
    return sorted({a.value for r in rules for e in (r.condition, r.amount) if e is not None
                   for n in E.walk(e) if isinstance(n, E.Call) and n.func == "param"
                   for a in n.args if isinstance(a, E.Str)})


class UnreadParam(ValueError):
    """A ``--param`` that no rule in play asks for (a misspelt name, or one
    that only a variant not switched on reads): refused, since it would
    change nothing, and a sweep over it would show rows that differ by luck
    alone."""

    def __init__(self, name: str, read: frozenset[str]):
        self.name = name
        super().__init__(f"no rule in play reads the number '{name}' (" +
                         (f"they read {', '.join(repr(n) for n in sorted(read))})" if read else "they read none)"))


class MissingParams(ValueError):
    """Numbers the rules in play ask for with ``param("NAME")`` that were
    not given: the game cannot start without them."""

    def __init__(self, names: list[str]):
        self.names = names
        super().__init__("this scenario needs " + ", ".join(f"--param {n}=N" for n in names))


# id(game) -> (game, its params_read: everywhere, outside its victory rules)
_PARAMS: dict[int, tuple[object, tuple]] = {}


def params_read(game, outside_victory: bool = False) -> frozenset[str] | None:
    """The names the game's compiled rules (with the variants it was
    compiled with) ask for with ``param("NAME")`` anywhere, or
    (``outside_victory``) anywhere but in its victory rules, which only the
    scenario that plays them reads; None where a ``param`` call does not
    name its parameter in quotes (which it reads is then known only in play).
    Found by walking the whole definition (but the map, which holds no
    expression), so that no place an expression may stand is missed."""
    kept = _PARAMS.get(id(game))
    if kept is None or kept[0] is not game:
        if len(_PARAMS) > 16:
            _PARAMS.clear()
        outside, inside = _walk_params(game, game, game.victory), _walk_params(game, game.victory, None)
        kept = _PARAMS[id(game)] = (game, (None if outside is None or inside is None else outside | inside, outside))
    return kept[1][1 if outside_victory else 0]


def decides_only_winner(game, rules, name: str) -> bool:
    """Whether the number ``name`` (``param("NAME")``) is read by the ``win
    ... at end`` rules of ``rules`` (a scenario's victory rules in play) and
    by nothing else of the game: then it names who wins and changes nothing
    of how a game goes (its VP, when it ends, what any rule does meanwhile),
    and games that differ only in it are one game judged by other rules
    (Smolensk 16.1's VP bid).  False where some ``param`` call does not
    name its number in quotes (which it reads is then known only in play)."""
    outside = params_read(game, outside_victory=True)
    at_end = [r for r in rules if r.kind == "win" and r.at in ("end", "")]
    before = [r for r in rules if not (r.kind == "win" and r.at in ("end", ""))]
    read_at_end, read_before = _walk_params(game, at_end, None), _walk_params(game, before, None)
    if outside is None or read_at_end is None or read_before is None:
        return False
    return name in read_at_end and name not in read_before and name not in outside


def _walk_params(game, top, skip) -> frozenset[str] | None:
    found: set[str] = set()
    seen: set[int] = set()
    stack: list = [top]
    while stack:
        x = stack.pop()
        if x is None or isinstance(x, (str, int, float, bool, bytes)) or id(x) in seen or x is skip or \
                x is game.map:
            continue
        seen.add(id(x))
        if isinstance(x, E.Call) and x.func == "param":
            if not all(isinstance(a, E.Str) for a in x.args):
                return None
            found.update(a.value for a in x.args)
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, Mapping):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (tuple, list, set, frozenset)):
            stack.extend(x)
    return frozenset(found)


class Functions(Mapping):
    """The functions of ``env`` for one state, read as a dict of them: each
    is made (its maker called with the state) when first looked up, so a
    condition that calls none, or one, does not make all of them."""

    __slots__ = ("_makers", "_state", "_made")

    def __init__(self, makers: dict, s: GameState):
        self._makers, self._state, self._made = makers, s, {}

    def __getitem__(self, name: str):
        f = self._made.get(name)
        if f is None:
            f = self._made[name] = self._makers[name](self._state)
        return f

    def __contains__(self, name: object) -> bool:
        return name in self._makers

    def __iter__(self):
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


class VictoryRules(RunnerParts):
    # (what of a state the names read, names): the last names built (``env``)
    _names_memo: tuple | None = None
    # (state, functions): the last functions built (``env``)
    _functions_memo: tuple | None = None

    def env(self, s: GameState) -> tuple[dict, dict]:
        """The names and functions of the game's expressions in ``s``.  The
        names dict is shared (kept from call to call): read it, and copy it
        before adding names of your own (``{**names, **bound}``).  The
        functions read ``s`` when called (kept for the last state asked
        about); the names read only its turn, phase, active side and
        variables (kept while those stay, from state to state)."""
        check = (s.turn, s.phase, s.active, tuple(s.variables.items()))
        names = self._names_memo
        if names is None or names[0] != check:
            names = self._names_memo = (check, self._build_names(s))
        fns = self._functions_memo
        if fns is None or fns[0] is not s:
            fns = self._functions_memo = (s, Functions(self._function_makers(), s))
        return names[1], fns[1]

    def _build_names(self, s: GameState) -> dict:
        """The names of ``env``: the game's ids, the turn, phase, active side,
        weather and the game's variables."""
        g = self.game
        names: dict[str, object] = dict(self.declared_names)
        weather = g.turn_track.turn(s.turn).values.get("weather") if g.turn_track.turns else None
        names.update({"turn": s.turn, "last-turn": self.scenario.last_turn, "phase": s.phase, "active": s.active,
                      "side": s.active, "weather": weather or ""})
        names.update(s.variables)  # the game's counters and flags (``variable``)
        return names

    def _build_functions(self, s: GameState) -> dict:
        """The functions of ``env``, reading ``s``, all made at once."""
        return {name: make(s) for name, make in self._function_makers().items()}

    def _function_makers(self) -> dict:
        """Each function of ``env`` by name, as a maker: called with a state,
        it returns the function reading that state.  Made once per runner;
        ``Functions`` calls a maker only when an expression calls its
        function (most conditions read names only, or stop before a call)."""
        makers = self.__dict__.get("_makers")
        if makers is not None:
            return makers
        g = self.game

        def hexes_of(where: object) -> Collection[Hex]:
            """The hexes an expression names: an area's (not copied: only read), or one hex's."""
            w = str(where)
            if w in g.map.areas:
                return g.map.areas[w]
            if w in g.pools:  # a box off the map (the hex bound at enter-each when a move ends in one)
                return ()
            try:
                return (self.board.parse(w),)  # (the board keeps the ids it has read)
            except ValueError as e:
                raise E.ExprError(str(e)) from None

        def make_controls(s):
            def controls(side, where):
                return any(s.control.get(h) == side for h in hexes_of(where))
            return controls

        def make_occupies(s):
            def occupies(side, where):
                if str(where) in g.pools:  # a unit of the side waits in the box (AVD: the Minsk Pocket)
                    box = f"pool:{where}"
                    return any(u.side == side and u.hex is None and u.box == box for u in s.units.values())
                return any(u.side == side for h in hexes_of(where) for u in s.units_at(h))
            return occupies

        def make_supplied(s):
            def supplied(side, where):
                lines = reached(g, self.board, s, str(side))  # (read only: not copied)
                barred = barred_ends(g, self.board, s, str(side))
                return any(h in lines and h not in barred for h in hexes_of(where))
            return supplied

        def make_supplied_along(s):
            def supplied_along(side, where, link):
                lines = reached_along(g, self.board, s, str(side), str(link))
                barred = barred_ends(g, self.board, s, str(side))
                return any(h in lines and h not in barred for h in hexes_of(where))
            return supplied_along

        def make_eliminated(s):
            def eliminated(side, flag):
                """Units of ``side`` lost so far (in combat or to supply) whose class or flag is ``flag``."""
                n = 0
                for uid in s.lost:
                    c = g.counters[uid]
                    if c.side == side and (flag == c.unit_class or flag in g.unit_classes[c.unit_class].flags):
                        n += 1
                return n
            return eliminated

        def make_terrain_at(s):
            def terrain_at(where, kind):
                """The hex's terrain or one of its features is ``kind`` (an area: any of its hexes)."""
                return any(g.map.terrain_at(h) == kind or kind in (g.map.hexes[h].features if h in g.map.hexes else ())
                           for h in hexes_of(where))
            return terrain_at

        def make_lost(s):
            def lost(where):
                initial = s.cache.get("initial-control", {})
                return any(s.control.get(h) != initial.get(h) for h in hexes_of(where))
            return lost

        makers = {"terrain-at": make_terrain_at, "controls": make_controls, "occupies": make_occupies,
                  "supplied": make_supplied, "supplied-along": make_supplied_along,
                  "vp": lambda s: lambda side: s.vp.get(side, 0),
                  "eliminated": make_eliminated, "on-map": lambda s: lambda cid: s.units[cid].hex is not None,
                  "marked": lambda s: lambda cid, marker: str(marker) in s.units[cid].markers,
                  "variant": lambda s: lambda v: v in g.active_variants,
                  "lost": make_lost,
                  "held-since": lambda s: lambda side, where: min((s.control_since.get(h, 0) for h in hexes_of(where)
                                                                   if s.control.get(h) == side), default=0),
                  "chosen": lambda s: lambda name: f"chosen:{name}" in s.done,
                  "chits-in-play": lambda s: lambda cid: s.cup.count(str(cid)) + self._drawn_this_turn(s, str(cid)),
                  "param": lambda s: self._param,
                  "rolled": lambda s: lambda table: s.rolled.get(str(table), ""),
                  **self.marker_function_makers()}
        self.__dict__["_makers"] = makers
        return makers

    @staticmethod
    def _drawn_this_turn(s: GameState, cid: str) -> int:
        """How many times ``cid`` was drawn from the cup this turn and not put
        back (the log's draws, less the draws an interrupt chit sent back into
        the cup, AVD 抽取 2 a ii: those are counted in the cup)."""
        return sum((e.get("draw") == cid) - (e.get("returned") == cid) for e in this_turn(s))

    def _param(self, name):
        if name not in self.params:
            raise E.ExprError(f"the game needs a value for '{name}': give it with --param {name}=N")
        return self.params[name]

    def _true(self, s: GameState, cond) -> bool:
        if cond is None:
            return True
        names, fns = self.env(s)
        v = E.evaluate(cond, names, fns)
        if not isinstance(v, bool):
            raise E.ExprError(f"a condition must be true or false, not {v!r}", cond.where)
        return v

    def checkpoint(self, s: GameState, at: str, **bound) -> None:
        """Awards, end conditions and immediate wins (``win SIDE at CHECKPOINT``)
        that the rules attach to ``at``; ``bound``: extra names (attacker...)."""
        awards, ends, triggers = self._rules_at(at)
        if not (awards or ends or triggers):
            return  # (most checkpoints of a game have no rule: nothing to evaluate)
        names, fns = self.env(s)
        if bound:
            names = {**names, **bound}
        for r in awards:
            if r.condition is None or E.evaluate(r.condition, names, fns) is True:
                amount = E.evaluate(r.amount, names, fns)
                if amount:
                    s.vp[r.side] = s.vp.get(r.side, 0) + int(amount)
                    s.log.append({"turn": s.turn, "vp": r.side, "amount": int(amount), "for": r.title})
        for r in ends:
            if r.kind == "end" and (r.condition is None or E.evaluate(r.condition, names, fns)):
                self.finish(s, r.title or "the game ends")
                return
            if r.kind == "win" and (r.condition is None or E.evaluate(r.condition, names, fns) is True):
                self.finish(s, r.title or f"{r.side} wins", decided_by=r)
                return
        for t in triggers:  # the game's triggers at this checkpoint (runtime.effects)
            if s.result is None and (t.condition is None or E.evaluate(t.condition, names, fns) is True):
                self.run_effects(s, t.effects, t.title or t.id, **bound)

    def _rules_at(self, at: str) -> tuple[list, list, list]:
        """What ``checkpoint`` tries at ``at``, in the rules' order: the
        awards at ``at``; the ends (at ``at`` or at every checkpoint) and
        immediate wins at ``at``; the game's triggers at ``at``.  Gathered
        once per checkpoint (the rules are fixed for a runner)."""
        kept = self.__dict__.setdefault("_checkpoint_rules", {})
        hit = kept.get(at)
        if hit is None:
            awards = [r for r in self.victory if r.at == at and r.kind == "award"]
            ends = [r for r in self.victory if (r.kind == "end" and r.at in (at, ""))
                    or (r.kind == "win" and r.at == at and at != "end")]
            triggers = [t for t in self.game.triggers if t.at == at]
            hit = kept[at] = (awards, ends, triggers)
        return hit

    def finish(self, s: GameState, ended: str, decided_by=None, winner: str | None = None) -> None:
        """End the game: ``ended`` says why it ended; the winner is the side
        of ``decided_by`` (an immediate win), ``winner`` (an effect that
        ends the game: ``ended`` is its reason), or that of the first ``win
        ... at end`` rule that holds.  ``why`` in the result names the rule."""
        self.checkpoint_end_awards(s)
        names, fns = self.env(s)
        rule = decided_by
        for r in self.victory:
            if rule is not None or winner is not None:
                break
            if r.kind == "win" and r.at in ("end", "") and \
                    (r.condition is None or E.evaluate(r.condition, names, fns)):
                rule = r
        if winner is not None:
            why = f"winner {winner}: {ended}"
        else:
            winner = rule.side if rule is not None else "draw"
            why = f"winner {winner}: " + (self.explain(rule, names, fns) if rule is not None
                                          else "no victory condition holds")
        s.result = {"winner": winner, "vp": dict(s.vp), "turns": s.turn, "ended": ended, "why": why}
        s.log.append({"turn": s.turn, "event": "game over", **s.result})

    @staticmethod
    def explain(rule, names, fns) -> str:
        """A win rule's title and the values its condition read: VP totals
        and rolled tables (``the Axis has fewer than 6 VP (4.0); vp(axis) = 3``)."""
        shown: dict[str, object] = {}
        if rule.condition is not None:
            for n in E.walk(rule.condition):
                if isinstance(n, E.Call) and n.func in ("vp", "param", "rolled"):
                    shown.setdefault(E.to_text(n), n)
        parts = [f"{text} = {E.evaluate(n, names, fns)}" for text, n in shown.items()]
        title = rule.title or f"{rule.side} wins"
        return title + (f"; {', '.join(parts)}" if parts else "")

    def standing(self, s: GameState) -> tuple[dict[str, int], str | None]:
        """The VP each side would have if the game ended in ``s`` (the ``at
        end`` awards added to those given so far; ``s`` is left as it is), and
        the winner the ``win ... at end`` rules would name (None if none)."""
        names, fns = self.env(s)
        vp = dict(s.vp)
        for r, amount in self._end_awards(names, fns):
            vp[r.side] = vp.get(r.side, 0) + amount
        fns = dict(fns, vp=lambda side: vp.get(side, 0))
        for r in self.victory:
            if r.kind == "win" and r.at in ("end", "") and \
                    (r.condition is None or E.evaluate(r.condition, names, fns) is True):
                return vp, r.side
        return vp, None

    def standing_apart(self, s: GameState) -> dict[str, int] | None:
        """The standing's VP (``standing``), every side's, where they differ
        from the VP given so far (most games count their places at the end
        only); None where they do not."""
        vp = self.standing(s)[0]
        if all(vp.get(k, 0) == s.vp.get(k, 0) for k in self.game.sides):
            return None
        return {k: vp.get(k, 0) for k in self.game.sides}

    def _end_awards(self, names: dict, fns):
        """The ``at end`` awards that pay now, each with its VP (not 0), one
        after another: each is read when the one before has been counted."""
        for r in self.victory:
            if r.kind == "award" and r.at in ("end", ""):
                if r.condition is None or E.evaluate(r.condition, names, fns) is True:
                    amount = E.evaluate(r.amount, names, fns)
                    if amount:
                        yield r, int(amount)

    def checkpoint_end_awards(self, s: GameState) -> None:
        names, fns = self.env(s)
        for r, amount in self._end_awards(names, fns):
            s.vp[r.side] = s.vp.get(r.side, 0) + amount
            s.log.append({"turn": s.turn, "vp": r.side, "amount": amount, "for": r.title})
