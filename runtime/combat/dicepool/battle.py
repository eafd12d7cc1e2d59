"""One dice-pool battle, as plain data, and its resolution (Prokhorovka
11.3-11.6, 12.0).

A ``Setup`` holds everything the dice need, read from the game beforehand
(``runtime.combat.dicepool.setup``): each side's **pools** (one per fire
step: so many dice against a hit test), the **duel weapons** (tank-battle
weapons with fire, armour and the firing round they fire in), the
**pairs** the tactically superior side chose, the **tank support** test
of each side's unpaired weapons, the items whose armour counts in the
damage step and the defender's defence level.

``resolve`` rolls it, step by step, in the rulebook's order:

1. each fire step: every die at or under the hit number is one damage on
   the side's track;
2. the tank duel: the firing rounds in order, every pair in each round; a
   shot hits when the die is 1 or the die plus the target's guard (its
   armour; a defender's weapon takes the defence level when that is
   higher, 12.0(2)) is at most the shooter's fire; a weapon that is hit is
   destroyed at once and fires no more; duels add no damage;
3. tank support: each unpaired weapon scores one damage on its side's test;
4. damage: each track plus the side's bonuses (the defender's defence
   level, the best armour among its surviving items); the higher total
   wins, the loser loses as many steps as the winner's track; a tie: both
   lose the other's track.

The die comes from a callable (``roll(purpose) -> int``) so that the
engine rolls through the game state and the tests enumerate every face.

The rolls come in **phases** (``phases``): each fire step, each firing
round, the tank support.  An air combat may come between two of them
(16.0(1)); what it does is an ``event`` of the setup applied once its phase
is rolled: damage on a side's track, or a weapon neutralised for the rest
of the battle (it fires no more, is shot at no more, supports nothing, and
its armour does not count).  ``resolve(..., upto=k)`` rolls the first k
phases only; ``rest`` is the battle still to roll after k phases, for the
odds between two rolls."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Callable

from .hits import HitTest, firing_round


@dataclass(frozen=True, slots=True)
class Pool:
    """One side's dice in one fire step: ``items`` are (source, dice)."""

    step: str
    title: str
    side: str
    items: tuple[tuple[str, int], ...]
    test: HitTest

    @property
    def dice(self) -> int:
        return sum(n for _, n in self.items)


@dataclass(frozen=True, slots=True)
class Weapon:
    """A tank-battle weapon in a battle.  ``guard``: what a shot at it must
    beat (its armour, or for the defender's the defence level if higher);
    ``round``: the index of the firing round it fires in, -1 if it takes
    part but does not fire."""

    id: str
    side: str
    fire: int
    armour: int
    guard: int
    round: int


@dataclass(frozen=True, slots=True)
class Setup:
    attacker: str
    defender: str
    pools: tuple[Pool, ...]
    weapons: tuple[Weapon, ...]
    rounds: tuple[str, ...]  # the firing rounds' titles
    pairs: tuple[tuple[str, str], ...]  # (attacker's weapon, defender's weapon)
    support: tuple[tuple[str, HitTest], ...]  # (side, test) of tank support; a ◆ test takes fire per weapon
    armour: tuple[tuple[str, str, int], ...]  # (item, side, armour): other items whose armour counts (11.6)
    level: int  # the defender's defence level, added to its total (11.6(1)1)
    target_level: int  # the "armour" a ◆ tank-support shot must beat: the defence level of the target
    sides: int = 6
    extra: tuple[tuple[str, str, int], ...] = ()  # (side, what, amount) added in the damage step (a minefield)
    both_lose: bool = False  # the winner loses the loser's track too (close combat)
    notes: tuple[str, ...] = ()  # what the chits used do (runtime.combat.dicepool.chits)
    rerolls: frozenset[str] = frozenset()  # weapons whose owner may roll a shot by or at them again, once
    track: tuple[tuple[str, str, int], ...] = ()  # (side, what, damage) on the track before the dice (bombing, 16.2)
    # (phase, kind, side, what, n): after that phase, "damage" n on side's track or "out" (what, neutralised), 16.0
    events: tuple[tuple[int, str, str, str, int], ...] = ()
    defending: tuple[str, ...] = ()  # the defender's counters in the battle (what 'hit attacker N against' reads)

    def weapon(self, wid: str) -> Weapon:
        return next(w for w in self.weapons if w.id == wid)

    def unpaired(self) -> list[Weapon]:
        paired = {x for pair in self.pairs for x in pair}
        return [w for w in self.weapons if w.id not in paired]

    def supporting(self) -> list[Weapon]:
        """The unpaired weapons that fire in tank support (one that takes
        part without firing, round -1, does not: 5.1(6)1)."""
        return [w for w in self.unpaired() if w.round >= 0]

    def support_test(self, w: Weapon) -> HitTest:
        t = dict(self.support).get(w.side, HitTest("auto"))
        return firing_round(w.fire, self.target_level) if t.kind == "round" else t

    def shot_probability(self, test: HitTest, shooter: str, target: str = "") -> Fraction:
        """The chance that a shot hits, with the rerolls its shooter's owner
        (a miss) and its target's owner (a hit) may make (``shoot``)."""
        p = test.probability(self.sides)
        mine, theirs = shooter in self.rerolls, target in self.rerolls

        def after(used_mine: bool, used_theirs: bool) -> Fraction:
            hit = after(used_mine, True) if theirs and not used_theirs else Fraction(1)
            miss = after(True, used_theirs) if mine and not used_mine else Fraction(0)
            return p * hit + (1 - p) * miss
        return after(False, False)

    def shots(self, rnd: int, a: Weapon, d: Weapon) -> list[tuple[Weapon, Weapon]]:
        """The shots of one pair in one firing round, as (shooter, target)."""
        return [(w, d if w is a else a) for w in (a, d) if w.round == rnd]


@dataclass
class Outcome:
    damage: dict[str, int]  # each side's damage track
    bonus: dict[str, list[tuple[str, int]]]  # (what, amount) added in the damage step
    destroyed: list[str] = field(default_factory=list)  # duel weapons destroyed
    lines: list[str] = field(default_factory=list)  # what happened, for the log
    both_lose: bool = False  # the winner loses the loser's track too

    def total(self, side: str) -> int:
        return self.damage[side] + sum(n for _, n in self.bonus[side])

    def winner(self, attacker: str, defender: str) -> str:
        """The side with the higher total, "" for a tie."""
        a, d = self.total(attacker), self.total(defender)
        return attacker if a > d else defender if d > a else ""

    def losses(self, attacker: str, defender: str) -> dict[str, int]:
        """Steps each side loses before any retreat: the loser the winner's
        track; on a tie both lose the other's track (11.6(2)(3)); with
        ``both_lose`` the winner too."""
        w = self.winner(attacker, defender)
        out = {attacker: 0, defender: 0}
        for side, other in ((attacker, defender), (defender, attacker)):
            if w != side or self.both_lose:
                out[side] = self.damage[other]
        return out


def armour_bonus(setup: Setup, side: str, destroyed: set[str]) -> tuple[str, int] | None:
    """The best armour among the side's surviving items (11.6(1)2)."""
    best: tuple[str, int] | None = None
    items = [(w.id, w.armour) for w in setup.weapons if w.side == side and w.id not in destroyed]
    items += [(i, a) for i, s, a in setup.armour if s == side and i not in destroyed]
    for item, a in items:
        if a > 0 and (best is None or a > best[1]):
            best = (item, a)
    return best


def shoot(setup: Setup, test: HitTest, shooter: str, target: str, roll: Callable[[str], int], why: str,
          out: Outcome) -> tuple[int, bool]:
    """One shot: the die and whether it hits.  The shooter's owner rolls a
    miss again, the target's owner a hit, once each, where ``rerolls``
    names them (Wittmann); the same order as ``Setup.shot_probability``."""
    used_mine = used_theirs = False
    while True:
        die = roll(why)
        hit = test.hits(die)
        if hit and target in setup.rerolls and not used_theirs:
            used_theirs = True
            out.lines.append(f"{why}: {die} hits; {target}'s owner rolls it again")
        elif not hit and shooter in setup.rerolls and not used_mine:
            used_mine = True
            out.lines.append(f"{why}: {die} misses; {shooter}'s owner rolls it again")
        else:
            return die, hit


def phases(setup: Setup) -> list[tuple[str, object, str]]:
    """The battle's rolls in order, as (kind, which, title): each fire step
    ("pool", its id), each firing round ("round", its index), the tank
    support ("support")."""
    steps = list(dict.fromkeys((p.step, p.title) for p in setup.pools))
    return [("pool", sid, title) for sid, title in steps] + \
        [("round", r, title) for r, title in enumerate(setup.rounds)] + [("support", None, "Tank support")]


def roll_pool(pool: Pool, roll: Callable[[str], int], out: Outcome) -> None:
    """One side's dice of one fire step: each hit one damage on its track."""
    hits = 0
    faces = []
    for _ in range(pool.dice):
        if pool.test.rolls:
            d = roll(f"{pool.title}: {pool.side}")
            faces.append(d)
            hits += pool.test.hits(d)
        else:
            hits += 1
    out.damage[pool.side] += hits
    if pool.dice:
        out.lines.append(f"{pool.title}: {pool.side} {pool.dice} dice ({pool.test.text()})"
                         f"{' ' + ','.join(map(str, faces)) if faces else ''}: {hits} damage")


def rest(setup: Setup, done: int, out: Outcome, gone: set[str] = frozenset()) -> Setup:
    """The battle still to roll once its first ``done`` phases gave ``out``
    (and ``gone``: weapons neutralised since): the damage so far on the
    track, the fire steps not rolled, the pairs whose weapons both stand
    (a weapon that has fired fires no more), the weapons that no longer
    fire (their duel enemy gone, or the tank support rolled) counting their
    armour only; a destroyed or neutralised weapon counts for nothing."""
    plan = phases(setup)[:done]
    rolled = {which for kind, which, _ in plan if kind == "pool"}
    rounds = sum(1 for kind, _, _ in plan if kind == "round")
    supported = any(kind == "support" for kind, _, _ in plan)
    out_ids = set(out.destroyed) | set(gone)
    partner = {x: y for a, d in setup.pairs for x, y in ((a, d), (d, a))}
    weapons, armour = [], list(setup.armour)
    for w in setup.weapons:
        if w.id in out_ids:
            continue
        if (w.id in partner and partner[w.id] in out_ids) or (w.id not in partner and supported):
            armour.append((w.id, w.side, w.armour))
            continue
        weapons.append(replace(w, round=-1) if w.id in partner and w.round < rounds else w)
    alive = {w.id for w in weapons}
    return replace(setup, pools=tuple(p for p in setup.pools if p.step not in rolled), weapons=tuple(weapons),
                   pairs=tuple((a, d) for a, d in setup.pairs if a in alive and d in alive), armour=tuple(armour),
                   track=tuple((side, "so far", n) for side, n in out.damage.items()), notes=(), events=())


def resolve(setup: Setup, roll: Callable[[str], int], upto: int | None = None) -> Outcome:
    """Roll the battle (see the module's docstring); with ``upto``, only its
    first ``upto`` phases, without the damage step."""
    att, dfd = setup.attacker, setup.defender
    out = Outcome({att: 0, dfd: 0}, {att: [], dfd: []}, both_lose=setup.both_lose)
    out.lines.extend(setup.notes)
    for side, what, n in setup.track:
        out.damage[side] += n
    destroyed: set[str] = set()
    gone: set[str] = set()  # neutralised from the air between two rolls (16.2(3))
    plan = phases(setup)
    for k, (kind, which, title) in enumerate(plan[:upto]):
        if kind == "pool":
            for pool in setup.pools:
                if pool.step == which:
                    roll_pool(pool, roll, out)
        elif kind == "round":
            for aid, did in setup.pairs:
                a, d = setup.weapon(aid), setup.weapon(did)
                for shooter, target in setup.shots(which, a, d):
                    if {shooter.id, target.id} & (destroyed | gone):
                        continue
                    test = firing_round(shooter.fire, target.guard)
                    die, hit = shoot(setup, test, shooter.id, target.id, roll, f"{title}: {shooter.id} at {target.id}",
                                     out)
                    out.lines.append(f"{title}: {shooter.id} ({shooter.side}) fires at {target.id} "
                                     f"({test.text()}): {die}, {'destroyed' if hit else 'missed'}")
                    if hit:
                        destroyed.add(target.id)
                        out.destroyed.append(target.id)
        else:
            for w in setup.supporting():
                if w.id in gone:
                    continue
                test = setup.support_test(w)
                if test.rolls:
                    die, hit = shoot(setup, test, w.id, "", roll, f"tank support: {w.id}", out)
                    out.lines.append(f"tank support: {w.id} ({w.side}, {test.text()}): {die}, "
                                     f"{'1 damage' if hit else 'miss'}")
                else:
                    hit = True
                    out.lines.append(f"tank support: {w.id} ({w.side}, automatic): 1 damage")
                out.damage[w.side] += int(hit)
        for phase, ev, side, what, n in setup.events:
            if phase == k and ev == "damage":
                out.damage[side] += n
            elif phase == k and ev == "out":
                gone.add(what)
    if upto is not None:
        return out
    destroyed |= gone  # a neutralised weapon's armour does not count (11.6(1)2)
    if setup.level:
        out.bonus[dfd].append(("defence level", setup.level))
    for side, what, n in setup.extra:
        out.bonus[side].append((what, n))
    for side in (att, dfd):
        best = armour_bonus(setup, side, destroyed)
        if best is not None:
            out.bonus[side].append((f"armour of {best[0]}", best[1]))
    for side in (att, dfd):
        extra = "".join(f" + {n} {what}" for what, n in out.bonus[side])
        out.lines.append(f"damage: {side} {out.damage[side]}{extra} = {out.total(side)}")
    return out
