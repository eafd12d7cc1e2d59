"""The exact odds of a dice-pool battle before the dice (Prokhorovka 11.0):
the probability of each damage total of each side, of each side winning
and of a tie, as the odds panel gives the probability of each CRT result.

Every die is independent, so a side's damage track is the convolution of
its pools' hit counts and its tank support; the duels add no damage but
decide which armour counts in the damage step, and each pair's duel is
independent of the others, so the best surviving armour of the two sides
is folded pair by pair.  Nothing is sampled: the figures are Fractions."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .battle import Pool, Setup, Weapon
from .hits import binomial, convolve, firing_round


@dataclass
class BattleOdds:
    attacker: str
    defender: str
    pools: list[tuple[Pool, dict[int, Fraction]]]  # each pool's hits
    support: dict[str, dict[int, Fraction]]  # each side's tank support hits
    damage: dict[str, dict[int, Fraction]]  # each side's damage track
    totals: dict[str, dict[int, Fraction]]  # each side's total in the damage step (track + bonuses)
    win: dict[str, Fraction]
    tie: Fraction
    survives: dict[str, Fraction]  # each duel weapon's chance to survive the duel
    notes: tuple[str, ...] = ()  # what the support chits used do

    def lines(self) -> list[str]:
        out = []
        for pool, dist in self.pools:
            if pool.dice:
                out.append(f"{pool.title}: {pool.side} {pool.dice} dice, {pool.test.text()}: "
                           f"{mean(dist):.2f} damage on average")
        for side, dist in self.support.items():
            if max(dist) > 0:
                out.append(f"tank support: {side} {mean(dist):.2f} damage on average")
        for wid, p in self.survives.items():
            out.append(f"duel: {wid} survives {pct(p)}")
        for side in (self.attacker, self.defender):
            out.append(f"{side} damage: " + ", ".join(f"{k} {pct(v)}" for k, v in sorted(self.damage[side].items())))
        out.extend(self.notes)
        out.append(f"{self.attacker} wins {pct(self.win[self.attacker])}, {self.defender} wins "
                   f"{pct(self.win[self.defender])}, tie (both lose) {pct(self.tie)}")
        return out


def mean(dist: dict[int, Fraction]) -> float:
    return float(sum(k * p for k, p in dist.items()))


def pct(p: Fraction) -> str:
    return f"{float(p) * 100:.1f}%"


def pair_outcomes(setup: Setup, a: Weapon, d: Weapon) -> dict[frozenset[str], Fraction]:
    """The probability of each set of destroyed weapons after one pair's
    firing rounds (a weapon hit in an earlier round does not fire)."""
    dist = {frozenset(): Fraction(1)}
    for rnd in range(len(setup.rounds)):
        for shooter, target in setup.shots(rnd, a, d):
            p = setup.shot_probability(firing_round(shooter.fire, target.guard), shooter.id, target.id)
            nxt: dict[frozenset[str], Fraction] = {}
            for dead, q in dist.items():
                if shooter.id in dead or target.id in dead:
                    nxt[dead] = nxt.get(dead, Fraction(0)) + q
                    continue
                hit = dead | {target.id}
                nxt[hit] = nxt.get(hit, Fraction(0)) + q * p
                nxt[dead] = nxt.get(dead, Fraction(0)) + q * (1 - p)
            dist = nxt
    return dist


def battle_odds(setup: Setup) -> BattleOdds:
    att, dfd = setup.attacker, setup.defender
    pools = [(pool, binomial(pool.dice, pool.test.probability(setup.sides))) for pool in setup.pools]
    unpaired = setup.unpaired()
    support = {}
    for side in (att, dfd):
        dist = {0: Fraction(1)}
        for w in setup.supporting():
            if w.side == side:
                test = setup.support_test(w)
                p = setup.shot_probability(test, w.id) if test.rolls else Fraction(1)
                dist = convolve(dist, {0: 1 - p, 1: p} if p < 1 else {1: Fraction(1)})
        support[side] = {k: v for k, v in sorted(dist.items()) if v}
    damage = {}
    for side in (att, dfd):
        before = sum(n for s, _, n in setup.track if s == side)  # already on the track (bombing, 16.2)
        dist = {k + before: p for k, p in support[side].items()}
        for pool, d in pools:
            if pool.side == side:
                dist = convolve(dist, d)
        damage[side] = dist
    # the best armour of each side: static items and unpaired weapons always count, paired ones if they survive
    base = {att: 0, dfd: 0}
    for w in unpaired:
        base[w.side] = max(base[w.side], w.armour)
    for _, side, a in setup.armour:
        base[side] = max(base[side], a)
    bonus = {(base[att], base[dfd]): Fraction(1)}
    survives: dict[str, Fraction] = {}
    for aid, did in setup.pairs:
        a, d = setup.weapon(aid), setup.weapon(did)
        outcomes = pair_outcomes(setup, a, d)
        survives[a.id] = sum((p for dead, p in outcomes.items() if a.id not in dead), Fraction(0))
        survives[d.id] = sum((p for dead, p in outcomes.items() if d.id not in dead), Fraction(0))
        nxt: dict[tuple[int, int], Fraction] = {}
        for (ba, bd), q in bonus.items():
            for dead, p in outcomes.items():
                key = (max(ba, 0 if a.id in dead else a.armour), max(bd, 0 if d.id in dead else d.armour))
                nxt[key] = nxt.get(key, Fraction(0)) + q * p
        bonus = nxt
    totals: dict[str, dict[int, Fraction]] = {att: {}, dfd: {}}
    win = {att: Fraction(0), dfd: Fraction(0)}
    tie = Fraction(0)
    extra = {att: 0, dfd: 0}
    for side, _, n in setup.extra:
        extra[side] += n
    for (ba, bd), q in bonus.items():
        ta = {k + ba + extra[att]: p for k, p in damage[att].items()}
        td = {k + bd + setup.level + extra[dfd]: p for k, p in damage[dfd].items()}
        for side, t in ((att, ta), (dfd, td)):
            for k, p in t.items():
                totals[side][k] = totals[side].get(k, Fraction(0)) + q * p
        for x, p in ta.items():
            for y, r in td.items():
                if x > y:
                    win[att] += q * p * r
                elif y > x:
                    win[dfd] += q * p * r
                else:
                    tie += q * p * r
    return BattleOdds(att, dfd, pools, support, damage,
                      {s: dict(sorted(t.items())) for s, t in totals.items()}, win, tie, survives,
                      setup.notes)


def mix_odds(parts: list[tuple[Fraction, BattleOdds]], note: str = "") -> BattleOdds:
    """The odds of a battle that is one of ``parts`` (weight, odds) by chance
    before its dice (19.5: counters that may break down as they join it).
    Pools and weapons are the first part's (the battle as it stands)."""
    first = parts[0][1]

    def mixed(get) -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        for w, o in parts:
            for k, v in get(o).items():
                out[k] = out.get(k, Fraction(0)) + w * v
        return {k: v for k, v in sorted(out.items()) if v}
    sides = (first.attacker, first.defender)
    return BattleOdds(first.attacker, first.defender, first.pools,
                      {x: mixed(lambda o, x=x: o.support[x]) for x in sides},
                      {x: mixed(lambda o, x=x: o.damage[x]) for x in sides},
                      {x: mixed(lambda o, x=x: o.totals[x]) for x in sides},
                      {x: sum((w * o.win[x] for w, o in parts), Fraction(0)) for x in sides},
                      sum((w * o.tie for w, o in parts), Fraction(0)),
                      {wid: sum((w * o.survives.get(wid, Fraction(0)) for w, o in parts), Fraction(0))
                       for wid in first.survives},
                      first.notes + ((note,) if note else ()))
