"""Firepower combat (Barbarossa postcard 7.0): no CRT.

A battle is fought in a hex that holds units of both sides: the attacker
moved in (``combat { attack move-in }``).  Each side's firepower is

* the combat factor (``combat { firepower strength }``) of its undisrupted
  units in the hex (8.0: disrupted units do not fire),
* plus the game's ``modifier firepower`` statements, evaluated once per side
  with ``side``, ``enemy``, ``attacker``, ``defender``, ``terrain`` (the
  battle hex's), ``city-vp`` (the hex's VP), ``all-attackers-across`` (the
  hexside kinds every attacker crossed, unbridged) and ``units`` bound, and
  ``units-of(SELECTOR)``: the side's units in the battle that match it
  (disrupted ones too: they keep their terrain bonus),
* plus the battle options the side used (air strikes, desperate efforts,
  whose die tables add to either side),

and never below 0.  Each side's firepower is dealt to the other side's units,
one point at a time as their owner assigns it: a unit is disrupted once it
has absorbed its ``disrupt-at`` points (the game's ``modifier disrupt-at``
statements: 1, a German 2-strength unit 2), and a disrupted unit is
eliminated once it absorbs its ``eliminate-at`` points.

Then the game's outcome table applies (``outcome`` statements; Barbarossa
7.2): with ``combat { disrupted-attackers back }`` disrupted attackers first go
back to the hex they attacked from; the first outcome whose condition holds
says who holds the hex (the attacker takes control of it), whether the
attackers go back and whether the defenders left there retreat, one hex by
``retreat { into own-control }``, or are eliminated.  The functions compute the
firepower; ``FirepowerBattles`` runs a battle's decisions for the engine.
"""
from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass, field
from typing import Any, Callable, cast

from .. import expr as E
from ..actions import Action, Attack, Done, Hit, IllegalActionError, Retreat, Use
from ..attachments import bonus
from ..board import Board
from ..definition import BattleOption, GameDefinition
from ..hexes import Hex
from ..movement import class_costs
from ..state import Frozen, GameState, eliminate
from ..tables import number, roll_table
from .modifiers import Env
from .options import open_options, open_uses, spend


@dataclass
class Fire:
    """One side's firepower in one battle, item by item (for the log and the
    editor's panel)."""

    side: str
    base: list[tuple[str, int]] = field(default_factory=list)  # (unit, factor) of units that fire
    modifiers: list[tuple[str, int]] = field(default_factory=list)  # (title, amount)
    options: list[tuple[str, int]] = field(default_factory=list)  # (title, amount) from battle options

    @property
    def total(self) -> int:
        return max(0, sum(v for _, v in self.base) + sum(v for _, v in self.modifiers)
                   + sum(v for _, v in self.options))

    def items(self) -> dict[str, list]:
        """The same as plain data: {"base": [[unit, factor]], "modifiers": [[title, n]], "options": [[title, n]]}."""
        return {"base": [list(x) for x in self.base], "modifiers": [list(x) for x in self.modifiers],
                "options": [list(x) for x in self.options]}

    def lines(self) -> list[str]:
        out = [f"{u} {v}" for u, v in self.base] or ["no unit fires"]
        out += [f"{'+' if v >= 0 else ''}{v} {t}" for t, v in self.modifiers + self.options]
        return out


@dataclass
class BattleReport:
    hex: Hex
    attacker: str
    defender: str
    attackers: list[str]
    defenders: list[str]
    across: tuple[str, ...]
    fire: dict[str, Fire]

    def text(self, board: Board) -> str:
        a, d = self.fire[self.attacker], self.fire[self.defender]
        return (f"battle in {board.hex_id(self.hex)}: {self.attacker} {a.total} ({'; '.join(a.lines())}) "
                f"against {self.defender} {d.total} ({'; '.join(d.lines())})")


def factor(game: GameDefinition, state: GameState, uid: str) -> int:
    u = state.units[uid]
    c = game.counters[uid]
    f = c.steps[min(u.step, len(c.steps) - 1)].get(game.combat.factor, 0)
    return f + bonus(game, state, uid, game.combat.factor) if uid in state.attached else f


def crossed(game: GameDefinition, board: Board, state: GameState, attackers: list[str], h: Hex) -> tuple[str, ...]:
    """The hexside kinds every attacker crossed (unbridged) to enter ``h``."""
    common: set[str] | None = None
    for uid in attackers:
        origin = state.attack_from.get(uid)
        edge = board.edge(origin, h) if origin is not None else None
        kinds = set(edge.hexside) if edge and not edge.bridged else set()
        common = kinds if common is None else common & kinds
    return tuple(sorted(common or ()))


def report(game: GameDefinition, board: Board, state: GameState, h: Hex, attacker: str,
           env: Env, used: list | None = None) -> BattleReport:
    """The firepower of both sides in the battle in ``h``; ``used`` holds
    the battle options taken so far: [option id, unit, side, own, enemy]."""
    here = state.units_at(h)
    attackers = sorted(u.id for u in here if u.side == attacker)
    defenders = sorted(u.id for u in here if u.side != attacker)
    defender = next((u.side for u in here if u.side != attacker), "")
    if not defender:
        defender = next(s for s in game.sides if s != attacker)
    across = crossed(game, board, state, attackers, h)
    mh = board.map.hexes.get(h)
    names, fns = env
    local = dict(names)  # (one copy: each side sets the same names, then its own)
    local.update({"attacker": attacker, "defender": defender, "terrain": board.terrain(h), "hex": board.hex_id(h),
                  "city-vp": mh.vp if mh else 0, "all-attackers-across": across})
    fire: dict[str, Fire] = {}
    for side, units in ((attacker, attackers), (defender, defenders)):
        f = Fire(side)
        for uid in units:
            if "disrupted" not in state.units[uid].markers:
                f.base.append((uid, factor(game, state, uid)))
        local.update({"side": side, "enemy": defender if side == attacker else attacker, "units": len(units)})
        local_fns = ChainMap({"units-of": lambda sel, units=units: sum(  # (the env's not copied)
            1 for x in units if str(sel) in game.selectors_of(x))}, fns)
        for m in game.modifiers.get("firepower", ()):
            if m.condition is None or E.evaluate(m.condition, local, local_fns) is True:
                amount: Any = E.evaluate(m.amount, local, local_fns)  # (a number: the checker saw to it)
                v = int(amount)
                if v:
                    f.modifiers.append((m.title or "modifier", v))
        fire[side] = f
    for oid, unit, side, own, enemy in used or ():
        title = game.battle_options[oid].title + (f" ({unit})" if unit else "")
        other = defender if side == attacker else attacker
        if own:
            fire[side].options.append((title, own))
        if enemy:
            fire[other].options.append((title, enemy))
    return BattleReport(h, attacker, defender, attackers, defenders, across, fire)


def calls_nothing(exprs) -> bool:
    """Whether none of these expressions (None is none) calls a function:
    their values depend on the names they are given alone."""
    return not any(isinstance(n, E.Call) for x in exprs if x is not None for n in E.walk(x))


def threshold(game: GameDefinition, state: GameState, uid: str, target: str, env: Env) -> int:
    """The firepower a unit absorbs before it is disrupted (``disrupt-at``)
    or, already disrupted, eliminated (``eliminate-at``): the sum of the
    game's modifiers, at least 1."""
    names, fns = env
    c = game.counters[uid]
    local = dict(names)
    local.update({"side": c.side, "strength": c.steps[0].get(game.combat.factor, 0),
                  "nationality": c.nationality, "unit-class": c.unit_class})
    total = 0
    for m in game.modifiers.get(target, ()):
        if m.condition is None or E.evaluate(m.condition, local, fns) is True:
            amount: Any = E.evaluate(m.amount, local, fns)  # (a number: the checker saw to it)
            total += int(amount)
    return max(1, total)


class FirepowerBattles:
    """Runs firepower battles for an engine (Barbarossa 7.0).  One pending
    entry of kind "battle" carries the whole battle through its stages:
    options (attacker, then defender), fire, absorb (each side assigns the
    enemy's firepower), outcome, retreat."""

    def __init__(self, engine: Any) -> None:  # (the Engine: runtime/engine.py imports this module)
        self.e = engine
        self.game: GameDefinition = engine.game
        self.board: Board = engine.board
        # (unit, target, turn, phase, active side, variables) -> its ``threshold``, for the targets whose
        # modifiers call no function: they read the unit's counter and the names of ``env`` alone (``_kept``)
        self._thresholds: dict[tuple, int] = {}
        self._kept_targets = frozenset(t for t in ("disrupt-at", "eliminate-at") if calls_nothing(
            x for m in self.game.modifiers.get(t, ()) for x in (m.condition, m.amount)))
        # (side, attacker, defender, turn, phase, active side, variables) -> the battle options open to the
        # side (``open_options``), when no option's condition calls a function (``_kept``)
        self._open: dict[tuple, tuple[BattleOption, ...]] = {}
        self._keep_open = calls_nothing(opt.condition for opt in self.game.battle_options.values())

    def _kept(self, memo: dict, key: tuple, s: GameState, work: Callable[[], object]):
        """``work()``, kept in ``memo`` under ``key`` with what the names of
        ``env`` read in ``s`` (its turn, phase, active side and variables: as
        the engine's ``_true`` keeps conditions); for work that reads nothing
        else of ``s``.  Not kept when a variable holds a list."""
        key += (s.turn, s.phase, s.active, tuple(s.variables.items()))
        try:
            value = memo.get(key)
        except TypeError:
            return work()
        if value is None:
            if len(memo) >= 4096:
                memo.clear()
            value = memo[key] = work()
        return value

    def threshold(self, s: GameState, uid: str, target: str) -> int:
        """``threshold`` of ``uid`` in ``s`` (kept: ``_thresholds``)."""
        def work() -> int:
            return threshold(self.game, s, uid, target, self.e.env(s))
        return self._kept(self._thresholds, (uid, target), s, work) if target in self._kept_targets else work()

    def hit_harm(self, s: GameState, p: dict, uid: str) -> tuple[int, int]:
        """How much one more point on ``uid`` costs: (0 absorbed, 1 disrupted,
        2 eliminated; the unit's factor)."""
        taken = p["taken"].get(uid, 0) + 1
        if "disrupted" in s.units[uid].markers:
            level = 2 if taken >= self.threshold(s, uid, "eliminate-at") else 0
        else:
            level = 1 if taken >= self.threshold(s, uid, "disrupt-at") else 0
        return level, factor(self.game, s, uid)

    def option_value(self, option: str) -> float:
        """The firepower a battle option gains its side on average (own minus enemy)."""
        opt = self.game.battle_options[option]
        value = float(opt.adds[0] - opt.adds[1])
        if opt.roll:  # (die modifiers aside)
            t = self.game.die_tables[opt.roll]
            for total, prob in self.game.dice[t.die].distribution().items():
                row = t.row_for(total)
                if row is not None:
                    value += float(prob) * (number(t, row, "own") - number(t, row, "enemy"))
        return round(value, 9)  # a fair gamble is worth 0, not 5.6e-17 (Barbarossa's desperate effort)

    def start(self, s: GameState, a: Attack) -> None:
        target = self.e.hex(a.target)
        if target not in self.e.battle_hexes(s):
            raise IllegalActionError(f"there is no battle in {a.target}: no {s.active} unit has moved in "
                                     "with enemy units")
        here = sorted(u.id for u in s.units_at(target) if u.side == s.active)
        if sorted(a.attackers) != here:
            raise IllegalActionError(f"the attackers in {a.target} are {','.join(here)}: every unit that moved in "
                                     "fights")
        defender = next(u.side for u in s.units_at(target) if u.side != s.active)
        s.attacked.update(here)
        s.attacked_hexes.add(target)
        self.e.record(s, a)
        s.pending.append({"kind": "battle", "hex": a.target, "attacker": s.active, "defender": defender,
                          "stage": "options", "side": s.active, "used": [], "taken": {}, "queue": [],
                          "retreats": [], "fire": {}, "points": 0})

    def _hex(self, p: dict) -> Hex:
        """The hex of the pending battle ``p`` (its id was checked when the battle started)."""
        return self.board.parse(p["hex"])

    def report(self, s: GameState, p: dict | None = None, target: Hex | None = None) -> BattleReport:
        """The firepower of the battle pending now (or of the battle ``target``
        would be, for the editor's panel)."""
        if p is not None:
            return report(self.game, self.board, s, self._hex(p), p["attacker"], self.e.env(s), p["used"])
        if target is None:
            raise ValueError("a battle report needs the battle pending or a target hex")
        return report(self.game, self.board, s, target, s.active, self.e.env(s), [])

    def open_options(self, s: GameState, p: dict) -> tuple[BattleOption, ...]:
        """``open_options`` for the side due to choose in the battle ``p``
        (kept: ``_open``)."""
        def work() -> tuple[BattleOption, ...]:
            return open_options(self.game, p["side"], p["attacker"], p["defender"], self.e.env(s))
        return self._kept(self._open, (p["side"], p["attacker"], p["defender"]), s, work) if self._keep_open \
            else work()

    def option_actions(self, s: GameState, p: dict) -> list[Action]:
        # (a list of Use actions, read as the list of answers it is: not copied)
        return cast(list[Action], open_uses(self.game, s, p["side"], self._hex(p), p["used"], self.open_options(s, p)))

    def hit_candidates(self, s: GameState, p: dict) -> list[str]:
        h = self._hex(p)
        return sorted(u.id for u in s.units_at(h) if u.side == p["side"])

    def retreat_hexes(self, s: GameState, uid: str) -> list[Hex]:
        """One hex a defeated unit may retreat into (7.2 C): passable for it,
        free of enemy units and, with ``retreat { into own-control }``, held
        by its side."""
        u = s.units[uid]
        costs = class_costs(self.game, self.board, self.game.counters[uid].unit_class)
        out = []
        for n, _step, _all, _zz in costs.steps[u.hex]:
            if any(x.side != u.side for x in s.units_at(n)):
                continue
            if self.game.retreat.into == "own-control" and s.control.get(n) != u.side:
                continue
            out.append(n)
        return sorted(out)

    def actions(self, s: GameState, p: dict) -> list[Action]:
        stage = p["stage"]
        if stage == "options":
            return self.option_actions(s, p) + [Done()]
        if stage == "absorb":
            return [Hit(u) for u in self.hit_candidates(s, p)]
        if stage == "retreat":
            uid = p["retreats"][0]
            return [Retreat(uid, (self.board.hex_id(h),)) for h in self.retreat_hexes(s, uid)] or [Retreat(uid, ())]
        return []

    def why(self, s: GameState, p: dict, a: Action, legal: list[Action]) -> str:
        if p["stage"] == "options":
            if isinstance(a, Use):
                can = ", ".join(f"'{x}'" for x in legal if isinstance(x, Use))
                return f"{p['side']} cannot use {a.option}{' with ' + a.unit if a.unit else ''} in this battle: " + \
                    (f"it may answer {can}, or 'done'" if can else "it may use nothing more: 'done'")
            return f"the battle in {p['hex']} waits for {p['side']}'s battle options: 'use OPTION UNIT' or 'done'"
        if p["stage"] == "absorb":
            return f"{p['side']} must assign {p['points']} point{'s' * (p['points'] != 1)} of firepower: " \
                   f"{', '.join(str(x) for x in legal)}"
        return f"'{a}' is not possible now: choose one of: {'; '.join(str(x) for x in legal)}"

    def answer(self, s: GameState, p: dict, a: Action) -> None:
        self.e.record(s, a, side=p["side"])
        if isinstance(a, Use):
            self.use_option(s, p, a)
        elif isinstance(a, Done):  # the attacker has chosen; now the defender (7.1)
            if p["side"] == p["attacker"]:
                p["side"] = p["defender"]
            else:
                p["stage"] = "fire"
        elif isinstance(a, Hit):
            self.hit(s, p, a.unit)
        elif isinstance(a, Retreat):
            uid = p["retreats"].pop(0)
            if a.path:
                h = self.board.parse(a.path[0])
                s.place(uid, h)
                self.e.pass_through(s, s.units[uid].side, [h])
                s.log.append({"turn": s.turn, "retreat": uid, "to": a.path[0]})
            else:
                box = eliminate(self.game, s, uid)
                s.log.append({"turn": s.turn, "destroyed": uid, "why": "no hex to retreat into", "to": box})

    def use_option(self, s: GameState, p: dict, a: Use) -> None:
        g = self.game
        opt = g.battle_options[a.option]
        own, enemy = opt.adds
        if opt.roll:
            t = g.die_tables[opt.roll]
            env = self.e.env(s)
            _, row = roll_table(g, s, t, (dict(env[0], side=p["side"]), env[1]), f"{opt.title} in {p['hex']}")
            own, enemy = own + number(t, row, "own"), enemy + number(t, row, "enemy")
        spend(g, s, opt, p["side"], a.unit, p["hex"])
        p["used"].append([opt.id, a.unit, p["side"], own, enemy])
        s.log.append({"turn": s.turn, "option": opt.id, "unit": a.unit, "side": p["side"], "own": own,
                      "enemy": enemy})

    def hit(self, s: GameState, p: dict, uid: str) -> None:
        u = s.units[uid]
        taken = p["taken"].get(uid, 0) + 1
        if "disrupted" in u.markers:
            if taken >= self.threshold(s, uid, "eliminate-at"):
                box = eliminate(self.game, s, uid)
                s.log.append({"turn": s.turn, "eliminated": uid, "to": box})
                taken = 0
        elif taken >= self.threshold(s, uid, "disrupt-at"):
            s.mark(uid, "disrupted")
            s.log.append({"turn": s.turn, "disrupted": uid})
            taken = 0
        p["taken"][uid] = taken
        p["points"] -= 1

    def settle(self, s: GameState, p: dict) -> bool:
        """Run the battle's automatic stages; True when it moved on (call
        again), False when a decision is due."""
        stage = p["stage"]
        if stage == "options":
            uses = self.option_actions(s, p)
            if not uses:  # nothing to choose: move on
                if p["side"] == p["attacker"]:
                    p["side"] = p["defender"]
                else:
                    p["stage"] = "fire"
                return True
            if p is s.pending[0]:  # the decision due: its answers (``actions``), not worked out again
                self.e.note_answers(s, uses + [Done()])
            return False
        if stage == "fire":
            rep = self.report(s, p)
            a, d = rep.fire[p["attacker"]].total, rep.fire[p["defender"]].total
            p["fire"] = {p["attacker"]: a, p["defender"]: d}
            # what each side fired, item by item (shared with the log, never changed: not copied with the state)
            p["fired"] = Frozen({side: f.items() for side, f in rep.fire.items()})
            s.log.append({"turn": s.turn, "battle": p["hex"], "attacker": p["attacker"], "fire": dict(p["fire"]),
                          "items": p["fired"], "detail": rep.text(self.board)})
            # each side's firepower is dealt to the other side; the receiver assigns it (7.1)
            p["queue"] = [[p["defender"], a], [p["attacker"], d]]
            p["stage"] = "absorb"
            p["points"] = 0
            return True
        if stage == "absorb":
            cands = self.hit_candidates(s, p)
            while p["points"] <= 0 or not cands:
                if not p["queue"]:
                    p["stage"] = "outcome"
                    return True
                p["side"], p["points"] = p["queue"].pop(0)
                p["taken"] = {}
                cands = self.hit_candidates(s, p)
            if len(cands) == 1:
                self.hit(s, p, cands[0])
                return True
            return False
        if stage == "outcome":
            self.outcome(s, p)
            return True
        if stage == "retreat":
            if not p["retreats"]:
                self.end(s, p)
                return True
            uid = p["retreats"][0]
            if s.units[uid].hex is None:
                p["retreats"].pop(0)
                return True
            opts = self.actions(s, p)
            if len(opts) == 1:
                self.answer(s, p, opts[0])
                return True
            p["side"] = s.units[uid].side
            return False
        return False

    def back(self, s: GameState, uid: str) -> None:
        """An attacker goes back to the hex it attacked from (7.2)."""
        origin = s.attack_from.pop(uid, None)
        if origin is not None and s.units[uid].hex is not None:
            s.place(uid, origin)
            s.log.append({"turn": s.turn, "back": uid, "to": self.board.hex_id(origin)})

    def outcome(self, s: GameState, p: dict) -> None:
        """The game's outcome table (7.2): disrupted attackers go back first
        where the game says so, then the first outcome whose condition holds
        applies."""
        g = self.game
        h = self._hex(p)
        if g.combat.disrupted_back:
            for u in [u for u in s.units_at(h) if u.side == p["attacker"] and "disrupted" in u.markers]:
                self.back(s, u.id)
        here = s.units_at(h)
        attackers = [u for u in here if u.side == p["attacker"]]
        defenders = [u for u in here if u.side != p["attacker"]]
        names, fns = self.e.env(s)
        names = dict(names, attacker=p["attacker"], defender=p["defender"], attackers=len(attackers),
                     defenders=len(defenders),
                     **{"undisrupted-attackers": sum(1 for u in attackers if "disrupted" not in u.markers),
                        "undisrupted-defenders": sum(1 for u in defenders if "disrupted" not in u.markers)})
        chosen = next(o for o in g.battle_outcomes if o.condition is None or
                      E.evaluate(o.condition, names, fns) is True)  # the last one has no condition
        if chosen.attackers_back:
            for u in attackers:
                self.back(s, u.id)
        p["retreats"] = sorted(u.id for u in defenders) if chosen.defenders_retreat else []
        p["outcome"] = chosen.id
        p["stage"] = "retreat"
        p["side"] = p["defender"]

    def end(self, s: GameState, p: dict) -> None:
        h = self._hex(p)
        chosen = next(o for o in self.game.battle_outcomes if o.id == p["outcome"])
        attackers = [u.id for u in s.units_at(h) if u.side == p["attacker"]]
        for uid in attackers:
            s.attack_from.pop(uid, None)
        s.touch(h)  # (6.3's limits on attacks across a hexside into it read them)
        if chosen.holds == "attacker" and attackers:
            self.e.pass_through(s, p["attacker"], [h])
        s.pending.pop(0)
        winner = p["attacker"] if chosen.holds == "attacker" else p["defender"]
        s.log.append({"turn": s.turn, "battle": p["hex"], "outcome": chosen.id, "why": chosen.title,
                      "winner": winner})
        if self.e.on_battle is not None:
            self.e.on_battle(s, chosen.id, p["attacker"], p["defender"], winner)
