"""A dice-pool battle's ``Setup`` read from the game and the state: who is
in it, the hit numbers the terrain gives, the weapons and their rounds.

* The items of a side: each participating unit and the counters attached
  under it (``runtime.attachments``: equipment chits), and the support
  chits the side used in this battle.
* A hit number for the attacker is the TEC column's cell for the target
  hex: its terrain's, replaced by a feature's cell that says something,
  replaced by the cell of a hexside every attacker crosses (Prokhorovka
  11.4: across a river the normal-fire number is 1; 11.5(4): tank support
  ◆ whatever the terrain).
* The defence level: the terrain's number, a feature's higher number
  (take the higher, 17.2 example) or ``+N`` added (an entrenchment); in
  the firing rounds a crossed hexside's ``+N`` is added too (12.0(2)),
  not in the damage step (11.6(1)1)."""
from __future__ import annotations

from ... import attachments as A
from ...board import Board
from ...definition import BattleRole, DicePoolRules, GameDefinition
from ...hexes import Hex
from ...state import GameState
from ..modifiers import crossed_by
from .battle import Pool, Setup, Weapon
from .chits import chit_effects
from .hits import HitTest, read_test


ROLE = "role:"  # unit marker: the counter fights this battle in that role (19.3), until the battle ends
IN_ROLE = "fought-in-role:"  # it fought in the role: as itself it fires nothing until the role's lock ends
AS_ITSELF = "fought-as-itself:"  # it fought as itself: not in the role until the lock ends


def role_of(game: GameDefinition, state: GameState, uid: str) -> BattleRole | None:
    """The role (``dice-pool { role ... }``) the counter fights in now, if any."""
    u = state.units.get(uid)
    if u is None or not u.markers:
        return None
    for m in u.markers:
        if m.startswith(ROLE):
            return next((r for r in game.dice_pool.roles if r.id == m[len(ROLE):]), None)
    return None


def role_selectors(game: GameDefinition, uid: str, role: BattleRole) -> frozenset[str]:
    """What a selector may name of ``uid`` fighting in ``role``: the role's class and its flags, not its own."""
    c = game.counters[uid]
    own = game.unit_classes[c.unit_class].flags | {c.unit_class}
    return (game.selectors_of(uid) - own) | game.unit_classes[role.unit_class].flags | {role.unit_class}


def stack_items(state: GameState, uid: str) -> list[str]:
    """A unit and what it carries."""
    return [uid, *A.under(state, uid)]


def ranged_key(state: GameState, cid: str) -> str:
    """The record that ``cid`` fought with its range in this combat phase
    (11.2(1)3: once a phase; an SP gun fires at most three times a full turn)."""
    return f"ranged:{state.turn}:{state.pc}:{cid}"


def factor(game: GameDefinition, state: GameState, uid: str, name: str) -> int:
    c = game.counters[uid]
    return c.steps[min(state.units[uid].step, len(c.steps) - 1)].get(name, 0) if name else 0


def across(board: Board, state: GameState, attackers: list[str], target: Hex) -> tuple[str, ...]:
    """The hexside kinds every attacker crosses (unbridged) into the target."""
    common: set[str] | None = None
    for uid in attackers:
        kinds = set(crossed_by(board, state, uid, target))
        common = kinds if common is None else common & kinds
    return tuple(sorted(common or ()))


def works_for(game: GameDefinition, board: Board, target: Hex, side: str) -> tuple[str, ...]:
    """The hex's features that work for ``side``'s stack: a feature that
    belongs to the other side does not (GJ63 17.2(2): entrenchments)."""
    feats = sorted(board.features(target))
    return tuple(f for f in feats if not side or getattr(game.terrain.get(f), "side", "") in ("", side))


def cell(game: GameDefinition, board: Board, column: str, target: Hex, crossed: tuple[str, ...] = (),
         defender: str = "") -> str:
    """The chart cell of ``column`` for an attack on ``target`` across ``crossed``."""
    eff = game.chart.effects
    out = "-"
    for tid in (board.terrain(target), *works_for(game, board, target, defender), *crossed):
        v = eff[tid].values.get(column, "-") if tid in eff else "-"
        if v not in ("-", "") and not v.startswith("+"):
            out = v
    return out


def defence_level(game: GameDefinition, board: Board, column: str, target: Hex,
                  crossed: tuple[str, ...] = (), position: int = 0, defender: str = "") -> int:
    """The defence level: the terrain's (or a feature's, or a position's,
    ``position``) number, whichever is highest, plus the +N rows; only the
    features that work for the ``defender``'s stack count."""
    if not column:
        return 0
    eff = game.chart.effects
    base, adds = position, 0
    for tid in (board.terrain(target), *works_for(game, board, target, defender), *crossed):
        v = eff[tid].values.get(column, "-") if tid in eff else "-"
        if v.startswith("+") and v[1:].isdigit():
            adds += int(v[1:])
        elif v.isdigit():
            base = max(base, int(v))
    return base + adds


def hit_test(game: GameDefinition, board: Board, text: str, target: Hex, crossed: tuple[str, ...],
             defender: str = "") -> HitTest:
    if text.startswith("column "):
        text = cell(game, board, text[len("column "):], target, crossed, defender)
    return read_test(text) or HitTest("number", 0)


def build(game: GameDefinition, board: Board, state: GameState, attackers: list[str], target: Hex,
          chits: dict[str, list[str]] | None = None, pairs: list[tuple[str, str]] = (),
          neutral: tuple[str, ...] = (), ranged: dict[str, list[str]] | None = None, track=(), events=(),
          here: tuple[str, ...] = ()) -> Setup:
    """The battle of ``attackers`` against the stack in ``target``; ``chits``:
    the support chits each side used; ``pairs``: (attacker's weapon,
    defender's weapon) as paired so far; ``track``: (side, what, damage)
    scored before the dice (the air combat's bombing, 16.2); ``events``:
    what the air combat did between two rolls (``Setup.events``); ``here``:
    the counters with a range marked as fighting in this battle when its dice
    began (11.2(1)3: they support no other battle this phase, and fight on in
    this one)."""
    rules: DicePoolRules = game.dice_pool
    # a chit another side allocated face down is unknown in that side's view (runtime.observe): it counts for nothing
    chits = {k: [c for c in v if c in game.counters] for k, v in (chits or {}).items()}
    att = state.units[attackers[0]].side
    defenders = [u.id for u in state.units_at(target)]
    dfd = state.units[defenders[0]].side if defenders else next(s for s in game.sides if s != att)
    crossed = across(board, state, attackers, target)
    items = {att: [i for uid in attackers for i in stack_items(state, uid)],
             dfd: [i for uid in defenders for i in stack_items(state, uid)]}
    for side, used in (chits or {}).items():
        items[side] = items[side] + list(used)
    far = {i for v in (ranged or {}).values() for i in v}  # equipment supporting from another stack (11.2(1)3)
    for side, used in (ranged or {}).items():  # (one hit from the air since is back in its cup)
        items[side] = items[side] + [i for i in used if i not in items[side] and A.host_of(state, i) is not None]
    for side in items:  # counters a commander cancelled for this battle, or that fought with their range
        items[side] = [i for i in items[side] if i not in neutral and  # in another battle this phase
                       (i in far or i in here or not rules.ranged or ranged_key(state, i) not in state.done)]
    fx = chit_effects(game, items, chits or {}, att, dfd, state.turn, state)  # the chit catalogue (on-use)
    for side, gone in fx.neutral.items():
        items[side] = [i for i in items[side] if i not in gone]
    roles: dict[str, BattleRole] = {}  # 19.3: counters fighting in another role, and those barred as themselves
    silent: set[str] = set()
    if rules.roles:
        for i in (i for v in items.values() for i in v):
            r = role_of(game, state, i)
            if r is not None:
                roles[i] = r
            elif any(m.startswith(IN_ROLE) for m in state.units[i].markers):
                silent.add(i)
    role_sel = {i: role_selectors(game, i, r) for i, r in roles.items()}

    def fac(i: str, name: str) -> int:
        return roles[i].factors.get(name, 0) if i in roles and name else factor(game, state, i, name)

    def matches(i: str, sel: frozenset[str]) -> bool:
        return bool(sel & role_sel[i]) if i in role_sel else game.matches(i, sel)
    pools = []
    for step in rules.steps:
        for side, role in ((att, "attacker"), (dfd, "defender")):
            times = fx.multiply.get((side, step.id), (1, ""))[0]
            got = tuple((i, fac(i, step.factor) * times) for i in items[side]
                        if i not in silent and not (step.except_ and matches(i, step.except_)))
            got = tuple(x for x in got if x[1] > 0 and (side, step.id) not in fx.cancel)
            test = read_test(step.defender) if role == "defender" else \
                hit_test(game, board, f"column {step.attacker}", target, crossed, dfd)
            if role == "attacker":  # a position in the defending stack (a bunker: artillery hits on 1)
                cell = next((c for sel, c in step.against if any(matches(i, sel) for i in items[dfd])), None)
                test = read_test(cell) if cell is not None else test
            pools.append(Pool(step.id, step.title, side, got, test or HitTest("number", 0)))
    position = max((fac(i, rules.position) for i in items[dfd]), default=0)
    level = defence_level(game, board, rules.level, target, (), position, dfd)
    guard_level = defence_level(game, board, rules.level, target, crossed, position, dfd)
    weapons = []
    hold = frozenset(state.step.get("hold-fire") or ())  # the combat phase's: the attacker's take part, not fire
    for side, role in ((att, "attacker"), (dfd, "defender")):
        excluded = frozenset().union(*(sel for r, sel in rules.exclude if r == role))
        for i in items[side]:
            if i in silent or not (rules.duel_weapons and matches(i, rules.duel_weapons)):
                continue
            if excluded and matches(i, excluded):
                continue
            fire, armour = fac(i, rules.fire), fac(i, rules.armour)
            rnd = next((k for k, r in enumerate(rules.rounds) if r.side == role and
                        (not r.weapons or matches(i, r.weapons))), -1)
            if role == "attacker" and hold and matches(i, hold):
                rnd = -1  # 5.1(6)1: an SP anti-tank gun in the reserve attack may be shot at, does not fire
            if i in far:  # from another hex: its armour guards it, and counts for nothing in the damage step
                weapons.append(Weapon(i, side, fire, 0, armour, rnd))
                continue
            weapons.append(Weapon(i, side, fire, armour, armour if role == "attacker" else max(armour, guard_level),
                                  rnd))
    duel = {w.id for w in weapons}
    pairs = [(a, d) for a, d in pairs if a in duel and d in duel]  # a weapon gone since it was paired
    armour_items = tuple((i, side, fac(i, rules.armour)) for side in (att, dfd) for i in items[side]
                         if i not in duel and i not in far and fac(i, rules.armour) > 0)
    support = tuple((att if role == "attacker" else dfd, hit_test(game, board, text, target, crossed, dfd))
                    for role, text in rules.support_cells)
    sides = game.dice[rules.die].sides if rules.die in game.dice else 6
    return Setup(att, dfd, tuple(pools), tuple(weapons), tuple(r.title for r in rules.rounds), tuple(pairs),
                 support, armour_items, level, guard_level, sides,
                 tuple((side, chit, n) for side, chit, n in fx.damage), bool(fx.both_lose),
                 tuple(fx.notes) + tuple(f"{what} ({side}): {n} damage on the track from the air (16.2)"
                                         for side, what, n in track),
                 frozenset(i for i in rules.rerolls if i in duel) |
                 frozenset(w.id for w in weapons if rules.rerolls and game.matches(w.id, rules.rerolls)),
                 tuple((side, what, int(n)) for side, what, n in track),
                 tuple((int(k), ev, side, what, int(n)) for k, ev, side, what, n in events),
                 tuple(items[dfd]))


def default_pairs(setup: Setup) -> list[tuple[str, str]]:
    """The pairs a superior side makes without being asked (the panel's
    assumption, the bots' choice): its strongest weapon against the enemy's
    strongest, and so on, as (attacker's, defender's)."""
    done = {x for p in setup.pairs for x in p}
    free = [w for w in setup.weapons if w.id not in done]
    key = lambda w: (-w.fire, -w.armour, w.id)  # noqa: E731
    a = sorted((w for w in free if w.side == setup.attacker), key=key)
    d = sorted((w for w in free if w.side == setup.defender), key=key)
    return list(setup.pairs) + [(x.id, y.id) for x, y in zip(a, d)]
