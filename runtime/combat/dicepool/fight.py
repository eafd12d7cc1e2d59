"""Dice-pool battles for the engine (Prokhorovka 9.2, 11.0-15.0).

``attack HEX with UNITS`` opens one pending entry of kind "dice-pool" that
carries the battle through its stages:

* ``support``: each side allocates support chits from its support pool,
  the side the rules name (``declares-first``) first, at most
  ``support-chits`` each: ``use CHIT``, then ``done``.  A chit is offered
  only where one of its factors feeds a fire step (heavy artillery) or the
  game says what it does in a battle (``on-use``: ``chits``); chits whose
  effects are not run yet (aircraft) are not offered;
  Equipment carried by the side's other stacks whose ``ranged`` factor
  reaches the battle hex is offered too (``use Pak1``, face up, not
  counted against the limit; once per combat phase, 11.2(1)3);
* ``cancel``: each chit used whose effects cancel (a sniper, a commander:
  ``runtime.combat.dicepool.chits``) asks its side for a target, ``use
  CHIT TARGET`` or ``done``, the side that declares first first; a chit
  whose effects are a ``choose`` first asks its side which option, in the
  stage ``choose`` (``use CHIT OPTION``), then for a target if the option
  holds a decision;
* the air combat (``runtime.combat.dicepool.air``: stages ``air``, ``aa``,
  ``intercept``, ``counter``, ``dogfight``, ``mission``, ``air-target``),
  when the game declares one: missions flown with aircraft from the support
  pool, outside the support-chit limit;
* ``pairs``: the superior side pairs tank-battle weapons one to one,
  ``pair MINE THEIRS``, until one side has none left (11.5(2));
* the roll (``runtime.combat.dicepool.battle.resolve``), a phase at a time
  (each fire step, each firing round, the tank support): between two
  phases that rolled dice, and before the damage step, the air combat again
  when either side has a mission it may fly (16.0(1)); what it does then
  holds for the rest of the battle (``Setup.events``);
* ``retreat``: each side that loses steps, the one that declares first
  first, may retreat to halve its losses (rounded down): ``hold`` takes
  them all and stays, ``done`` retreats (14.0);
* then the engine's own entries: the losses (``lose UNIT``), the retreat
  of every participating stack one hex, and an advance by one attacking
  stack into a vacated hex (15.0), ignoring ZOC.

Used support chits go back to their side's ``support-to`` pool; a duel
weapon that is hit goes where its attachment kind returns it (its cup), or
is eliminated when it stands as a unit of its own."""
from __future__ import annotations

from fractions import Fraction
from itertools import product

from ... import attachments as A
from ...actions import Action, Attack, Done, Hold, IllegalActionError, Pair, Use
from ...definition import GameDefinition
from ...hexes import hex_distance
from ...state import GameState, eliminate
from ..order import live_attackers, settle_order
from .air import AirCombat
from .battle import Setup, phases, rest
from .chits import CHOSE, choices, chosen, decisions, forget_choice, strikes
from .odds import BattleOdds, battle_odds, mix_odds, pct
from .reroll import Rerolls, replay
from .setup import AS_ITSELF, IN_ROLE, ROLE, build, default_pairs, factor, ranged_key


BREAKDOWNS_COUNTED = 8  # the odds before the dice count at most so many breakdowns (2**8 battles)
AIR_STAGES = ("air", "aa", "intercept", "counter", "dogfight", "mission", "air-target", "air-reroll")
AT_ONCE_STAGES = ("cancel", "reroll", "strike-reroll", "air-reroll")  # where a chit acts (its decision, a roll again)


class DicePoolBattles:
    def __init__(self, engine):
        self.e = engine
        self.game: GameDefinition = engine.game
        self.rules = engine.game.dice_pool
        self.air = AirCombat(self) if self.rules.air is not None else None
        self.rerolls = Rerolls(self)
        self._quiet = False

    # ------------------------------------------------------------ reading
    def setup(self, s: GameState, p: dict, pairs: list | None = None) -> Setup:
        return build(self.game, self.e.board, s, p["attackers"], self.e.hex(p["hex"]), p["chits"],
                     [tuple(x) for x in (p["pairs"] if pairs is None else pairs)], tuple(p.get("neutral", ())),
                     p.get("ranged"), p.get("track", ()), p.get("mid", ()), tuple(p.get("ranged-here", ())))

    def preview(self, s: GameState, attackers: list[str], target, chits: dict[str, list[str]] | None = None,
                neutral: tuple[str, ...] = (), ranged: dict[str, list[str]] | None = None,
                track=()) -> Setup:
        """The battle as it would be fought now (with these support chits,
        without the ``neutral`` counters, with ``track``: (side, what, damage)
        already scored from the air), paired by default (the panel's and
        ``hexforge battle``'s odds)."""
        st = build(self.game, self.e.board, s, attackers, target, chits, (), neutral, ranged, track)
        return build(self.game, self.e.board, s, attackers, target, chits, default_pairs(st), neutral, ranged, track)

    def order(self, p: dict) -> list[str]:
        first = self.rules.declares_first
        return [first, p["defender"] if first == p["attacker"] else p["attacker"]] \
            if first in (p["attacker"], p["defender"]) else [p["attacker"], p["defender"]]

    def _support_pool(self, side: str, pools: tuple[str, ...]) -> str:
        return next((pid for pid in pools if self.game.pools[pid].side == side), "")

    def chits_open(self, s: GameState, p: dict) -> list[str]:
        side = p["side"]
        pool = self._support_pool(side, self.rules.support_from)
        if not pool or len(p["chits"].get(side, [])) >= self.rules.support:
            return []
        box = f"pool:{pool}"
        used = set(p["chits"].get(side, []))
        return sorted(u.id for u in s.units.values() if u.box == box and u.hex is None and u.side == side
                      and u.id not in used and self.supports(s, u.id))

    def supports(self, s: GameState, cid: str) -> bool:
        """Whether the counter ``cid`` may be a support chit of a battle: it
        adds to one of its pools or has a use there, and is no aircraft
        (those fly in the air combat)."""
        g = self.game
        air = self.rules.air.aircraft if self.rules.air else frozenset()
        if air and g.matches(cid, air):
            return False
        return any(factor(g, s, cid, st.factor) > 0 for st in self.rules.steps) or \
            any(cid in sel or g.matches(cid, sel) for sel, _ in self.rules.uses)

    def ranged_open(self, s: GameState, p: dict) -> list[str]:
        """The deciding side's counters carried by its other stacks that may
        support this battle from where they are: their ``ranged`` factor
        reaches the battle hex, and they have not supported one this turn
        (11.2(1)3); with ``ranged FACTOR active`` the attacker's only from
        stacks the combat phase lets attack."""
        f, g = self.rules.ranged, self.game
        if not f:
            return []
        side, target = p["side"], self.e.hex(p["hex"])
        role = "attacker" if side == p["attacker"] else "defender"
        barred = frozenset().union(*(sel for r, sel in self.rules.exclude if r == role))  # an attacker's AT gun
        inside = set(p["attackers"]) | {u.id for u in s.units_at(target)}
        used = set(p.get("ranged", {}).get(side, ()))
        out = []
        for uid in sorted(s.attached):
            u = s.units[uid]
            if u.side != side or u.hex is None or uid in inside:
                continue
            if role == "attacker" and self.rules.ranged_active and self.e.phase_bars(s, uid):
                continue  # 11.2(1)3: the attacker's from the stacks that may attack in this phase only
            for a in A.under(s, uid):
                r = factor(g, s, a, f)
                if self.rules.roles and any(m.startswith(IN_ROLE) for m in s.units[a].markers):
                    continue  # it fought in a role: not as itself until the lock ends (19.3(2))
                if r > 0 and a not in used and ranged_key(s, a) not in s.done and \
                        hex_distance(u.hex, target) <= r and not (barred and g.matches(a, barred)) and \
                        not (self.air and g.matches(a, self.rules.air.guns) and not self.duel_weapon(a)):
                    out.append(a)  # an AA gun fires in the air combat; one that is a duel weapon too (GJ63
                    # 签一览 防空炮: also an anti-tank gun) supports with its range as that weapon
        return out

    def duel_weapon(self, cid: str) -> bool:
        """Whether ``cid`` fights in the duel (the duel's ``weapons``)."""
        return bool(self.rules.duel_weapons) and self.game.matches(cid, self.rules.duel_weapons)

    # ------------------------------------------------------------ roles (19.3: the SU-152 as an anti-tank gun)
    def roles_open(self, s: GameState, cid: str) -> list:
        """The roles ``cid`` may fight this battle in: those whose ``units``
        name it, not chosen yet, and not barred by its having fought as
        itself since the role's lock side's player turn began (19.3(2))."""
        g, marks = self.game, s.units[cid].markers
        if any(m.startswith(ROLE) for m in marks):
            return []
        return [r for r in self.rules.roles if (cid in r.units or g.matches(cid, r.units))
                and AS_ITSELF + r.id not in marks]

    def _role(self, rid: str):
        return next(r for r in self.rules.roles if r.id == rid)

    def lock_roles(self, s: GameState, st: Setup) -> None:
        """The counters that fought: in a role, barred as themselves; as
        themselves (dice in a fire step, a weapon in the duel), barred from
        their roles, until the lock side's next player turn (19.3(2))."""
        g = self.game
        fought = {i for pool in st.pools for i, n in pool.items if n > 0} | {w.id for w in st.weapons if w.round >= 0}
        for cid in sorted(fought):
            role = next((m[len(ROLE):] for m in s.units[cid].markers if m.startswith(ROLE)), None)
            for r in self.rules.roles:
                if not r.lock:
                    continue
                if role == r.id:
                    s.mark(cid, IN_ROLE + r.id)
                elif role is None and (cid in r.units or g.matches(cid, r.units)):
                    s.mark(cid, AS_ITSELF + r.id)

    def end_roles(self, s: GameState) -> None:
        """The battle is over: no counter fights in a role any more."""
        for u in [u for u in s.units.values() if any(m.startswith(ROLE) for m in u.markers)]:
            for m in [m for m in u.markers if m.startswith(ROLE)]:
                s.unmark(u.id, m)

    def enemy(self, p: dict, side: str) -> str:
        return p["defender"] if side == p["attacker"] else p["attacker"]

    def targets(self, s: GameState, p: dict, side: str, chit: str) -> list[str]:
        """What ``chit``'s decisions may cancel: enemy chits used in the
        battle, enemy counters carried into it (``chits``)."""
        return list(dict.fromkeys(t for eff in decisions(self.game, chit, s)
                                  for t in self._targets_of(s, p, side, eff)))

    def sent_back(self, s: GameState, p: dict) -> list[str]:
        """The stage ``cancel``: the counters its chit would send back (``send-back``)."""
        side, chit = p["cancel"][0]
        return [t for e in decisions(self.game, chit, s) if e.verb == "send-back" for t in self._targets_of(s, p, side, e)]

    def _targets_of(self, s: GameState, p: dict, side: str, eff) -> list[str]:
        g, enemy = self.game, self.enemy(p, side)
        out: list[str] = []
        sel = frozenset(eff.args["units"])
        if eff.verb == "cancel-chit":
            out += [c for c in p["chits"].get(enemy, []) if c in sel or g.matches(c, sel)]
        elif eff.verb == "send-back":  # carried by an enemy stack within N of the side's stacks in the battle
            here = self.e.hex(p["hex"])
            mine = [s.units[u].hex for u in p["attackers"] if s.units[u].hex is not None] \
                if side == p["attacker"] else [here]
            n = int(eff.args.get("within", 0))
            theirs = p["attackers"] if enemy == p["attacker"] else [u.id for u in s.units_at(here) if u.side == enemy]
            stacks = [u.id for u in s.on_map(enemy) if A.kind_of(g, u.id) is None and
                      (u.id in theirs if n == 0 else any(hex_distance(u.hex, h) <= n for h in mine))]
            for u in sorted(stacks):
                for a in A.under(s, u):  # what the side can see: face up (declared to fight, revealed)
                    k = A.kind_of(g, a)
                    seen = k is None or not k.face_down or f"face-up:{a}" in s.done
                    if seen and a not in p.get("neutral", ()) and (a in sel or g.matches(a, sel)):
                        out.append(a)
        else:  # cancel-equipment: carried into the battle
            units = p["attackers"] if enemy == p["attacker"] else \
                [u.id for u in s.units_at(self.e.hex(p["hex"])) if u.side == enemy]
            out += [a for u in units if s.units[u].hex is not None for a in A.under(s, u)
                    if a not in p.get("neutral", ()) and (a in sel or g.matches(a, sel))]
        return out

    def strike_targets(self, s: GameState, p: dict, side: str, eff, neutral=None, ranged=None) -> list[str]:
        """The enemy counters in the battle a strike may hit (sorted)."""
        g, enemy = self.game, self.enemy(p, side)
        neutral = set(p.get("neutral", ()) if neutral is None else neutral)
        ranged = p.get("ranged", {}) if ranged is None else ranged
        sel = frozenset(eff.args["units"])
        units = p["attackers"] if enemy == p["attacker"] else \
            [u.id for u in s.units_at(self.e.hex(p["hex"])) if u.side == enemy]
        items = [a for u in units if s.units[u].hex is not None for a in A.under(s, u)] + list(ranged.get(enemy, ()))
        return sorted({a for a in items if a not in neutral and (a in sel or g.matches(a, sel))})

    def strike(self, s: GameState, p: dict) -> bool:
        """Before the duel: each chit's strike, the side that declares first
        first: a target drawn at random, one die (Molotov cocktail).  A kept
        commander may roll that die again (签一览 ①, any roll): the strike
        waits in the stage ``strike-reroll`` for its side (False); True once
        every strike is done."""
        g = self.game
        if "strikes" not in p:
            p["strikes"] = [[side, chit, i] for side in self.order(p) for chit in list(p["chits"].get(side, ()))
                            for i, _ in enumerate(strikes(g, chit))]
        while p["strikes"]:
            side, chit, i = p["strikes"][0]
            eff = strikes(g, chit)[i]
            if "struck" not in p:
                cands = self.strike_targets(s, p, side, eff)
                if not cands:
                    p["strikes"].pop(0)
                    continue
                r = s.rng()
                target = r.choice(cands)
                s.rng_state = r.getstate()
                s.log.append({"turn": s.turn, "draw": [target], "for": f"{chit} in {p['hex']}"})
                p["struck"] = [target, s.roll(g.dice[self.rules.die], f"{chit} at {target} in {p['hex']}")]
                kept = self.rerolls.kept(p)
                if kept:  # a commander may roll this die again
                    p["stage"], p["reroll"], p["side"] = "strike-reroll", kept, kept[0][0]
                    return False
            self._land_strike(s, p, side, chit, eff)
        del p["strikes"]
        return True

    def _land_strike(self, s: GameState, p: dict, side: str, chit: str, eff) -> None:
        """The strike's die as it stands: on N or less its target is destroyed."""
        target, roll = p.pop("struck")
        p["strikes"].pop(0)
        hit = roll <= eff.args["on"]
        line = f"{chit} ({side}) at {target}: {roll}, " + ("destroyed" if hit else "missed")
        if hit:
            p.setdefault("neutral", []).append(target)
            if A.host_of(s, target) is not None:
                A.remove(self.game, s, target, f"{chit}")
            if eff.args.get("spent"):
                p.setdefault("spent", []).append(chit)
                line += f"; {chit} leaves the game"
        s.log.append({"turn": s.turn, "battle": p["hex"], "step": line})

    def struck(self, p: dict) -> tuple[str, str, str, int, bool]:
        """The strike whose die a commander may roll again: (its side, its
        chit, its target, the die, whether that hits)."""
        side, chit, i = p["strikes"][0]
        target, roll = p["struck"]
        return side, chit, target, roll, roll <= strikes(self.game, chit)[i].args["on"]

    def cancel(self, s: GameState, p: dict, side: str, chit: str, target: str) -> None:
        g, enemy = self.game, self.enemy(p, side)
        p.setdefault("used", []).append(chit)  # its one choice is made (no reroll of a die then)
        eff = next(e for e in decisions(g, chit, s) if target in self._targets_of(s, p, side, e))
        if eff.verb == "cancel-chit":
            p["chits"][enemy].remove(target)
            forget_choice(s, target)
            back = self._support_pool(enemy, self.rules.support_to)
            if back:
                s.place(target, None, f"pool:{back}")
            line = f"{chit} ({side}) cancels {target}" + (f": back to {back}" if back else "")
        elif eff.verb == "send-back":
            host = A.host_of(s, target)
            where = self.e.board.hex_id(s.units[host].hex)
            if target in self.carried(s, p, enemy):
                p.setdefault("neutral", []).append(target)
            A.remove(g, s, target, f"sent back by {chit}")
            line = f"{chit} ({side}) sends {target} ({host} in {where}) back to {A.returns_box(g, target).removeprefix('pool:')}"
        else:
            p.setdefault("neutral", []).append(target)
            line = f"{chit} ({side}) cancels {target} for this battle"
            f = eff.args.get("removed-with")
            if f and factor(g, s, target, f) > 0:
                A.detach(g, s, target, "removed", f"cancelled by {chit}")
                line += f" and removes it from the game ({f} {factor(g, s, target, f)})"
        s.log.append({"turn": s.turn, "battle": p["hex"], "step": line})

    def pairs_open(self, s: GameState, p: dict) -> list[Pair]:
        st = self.setup(s, p)
        done = {x for pair in p["pairs"] for x in pair}
        mine = [w.id for w in st.weapons if w.side == p["side"] and w.id not in done]
        theirs = [w.id for w in st.weapons if w.side != p["side"] and w.id not in done]
        return [Pair(a, b) for a in mine for b in theirs]

    # ------------------------------------------------------------ the engine's hooks
    def start(self, s: GameState, a: Attack, declared: bool = False) -> None:
        """The battle begins (``declared``: it was declared earlier, and the
        superior side chose it now)."""
        target = self.e.hex(a.target)
        defender = s.units_at(target)[0].side
        if not declared:
            s.attacked.update(a.attackers)
            s.attacked_hexes.add(target)
            self.e.record(s, a)
        p = {"kind": "dice-pool", "hex": a.target, "attackers": list(a.attackers), "attacker": s.active,
             "defender": defender, "stage": "support", "chits": {}, "pairs": [], "losses": {}, "retreat": [],
             "cancel": [], "neutral": [], "track": []}
        if self.rules.declare_equipment:  # 11.2(1): first each side declares the equipment that fights
            p["stage"] = "equipment"
        p["side"] = self.order(p)[0]
        if declared:  # before the list of battles still to fight
            s.pending.insert(0, p)
        else:
            s.pending.append(p)
        if not self.rules.declare_equipment:  # every counter carried into the battle takes part
            self.break_down(s, p)

    def break_down(self, s: GameState, p: dict, ids: list[str] | None = None) -> None:
        """``breakdown``: each counter that matches and takes part in the
        battle rolls the die; on N or less it leaves the game (19.5: "参战时",
        when it joins the battle: once the equipment that fights is declared,
        11.2(1), or as it comes to support the battle from a range).
        ``ids``: the counters that join now (all that take part: None)."""
        if not self.rules.breakdown:
            return
        g = self.game
        die = g.dice[self.rules.die]
        if ids is None:
            ids = [c for side in (p["attacker"], p["defender"]) for c in self.carried(s, p, side)]
            p["broken-down"] = True  # the odds before the dice count it no more
        for sel, side, n in self.rules.breakdown:
            for c in ids:
                if A.host_of(s, c) is None or (side and s.units[c].side != side) or not (c in sel or g.matches(c, sel)):
                    continue
                roll = s.roll(die, f"breakdown of {c} in {p['hex']}")
                broke = roll <= n
                s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{c} ({s.units[c].side}) rolls {roll} for a "
                              f"breakdown (on {n} or less): {'it breaks down and leaves the game' if broke else 'it runs'}"})
                if broke:
                    A.detach(g, s, c, "removed", "broke down")

    # ------------------------------------------------------------ the order of the battles (9.2(3))
    def declare(self, s: GameState, a: Attack) -> None:
        """``order-battles``: the attack is declared, to be fought once every
        attack of the phase is (the attacker's ``done``)."""
        s.attacked.update(a.attackers)
        s.attacked_hexes.add(self.e.hex(a.target))
        self.e.record(s, a)
        s.step = dict(s.step, declared=[*s.step.get("declared", []), [a.target, list(a.attackers)]])
        s.log.append({"turn": s.turn, "battle": a.target, "step": f"{s.active} declares an attack on {a.target} "
                      f"with {', '.join(a.attackers)}: it is fought once every attack is declared (9.2(3))"})

    def fight_declared(self, s: GameState) -> None:
        """Every attack is declared: the superior side fights them in the order it chooses."""
        battles = s.step.get("declared", [])
        s.step = dict(s.step, declared=[])
        s.pending.append({"kind": "dice-pool", "stage": "order", "side": self.rules.superior,
                          "attacker": s.active, "battles": [[h, list(u)] for h, u in battles]})

    def live(self, s: GameState, hid: str, attackers: list[str]) -> list[str]:
        return live_attackers(self.e, s, hid, attackers)

    def order_open(self, s: GameState, p: dict) -> list[Attack]:
        return [Attack(h, tuple(self.live(s, h, u))) for h, u in p["battles"]]

    def settle_order(self, s: GameState, p: dict) -> bool:
        return settle_order(s, p, self.live, self.fight, lambda s, h: {
            "turn": s.turn, "battle": h, "step": f"no battle in {h}: its defenders or attackers are gone"})

    def fight(self, s: GameState, p: dict, a: Attack) -> None:
        p["battles"] = [x for x in p["battles"] if x[0] != a.target]
        s.log.append({"turn": s.turn, "battle": a.target, "step": f"{p['side']} has the battle in {a.target} "
                      "fought next (9.2(3))"})
        self.start(s, a, declared=True)

    def carried(self, s: GameState, p: dict, side: str) -> list[str]:
        """The counters ``side``'s stacks in the battle carry that still take part."""
        units = p["attackers"] if side == p["attacker"] else \
            [u.id for u in s.units_at(self.e.hex(p["hex"])) if u.side == side]
        return [a for u in units if s.units[u].hex is not None for a in A.under(s, u) if a not in p["neutral"]]

    def declared(self, s: GameState, p: dict) -> None:
        """The side's equipment is declared; after both, what fights turns face up (11.2(1)4)."""
        order = self.order(p)
        if p["side"] == order[0]:
            p["side"] = order[1]
            return
        for side in order:
            for a in self.carried(s, p, side):
                host = A.host_of(s, a)
                A.face_up(self.game, s, [host], only=a)
        self.break_down(s, p)  # 19.5: what fights has joined the battle
        p["stage"], p["side"] = "support", order[0]

    def actions(self, s: GameState, p: dict) -> list[Action]:
        if p["stage"] == "equipment":
            carried = self.carried(s, p, p["side"])
            return [Use(a, "out") for a in carried] + \
                [Use(a, r.id) for a in carried for r in self.roles_open(s, a)] + [Done()]
        if p["stage"] == "reroll":
            return self.rerolls.actions(s, p)
        if p["stage"] == "strike-reroll":
            return [Use(p["reroll"][0][1], "1"), Done()]
        if p["stage"] == "order":
            return list(self.order_open(s, p))
        if p["stage"] in AIR_STAGES:
            return self.air.actions(s, p)
        if p["stage"] == "support":
            return [Use(c) for c in self.chits_open(s, p) + self.ranged_open(s, p)] + [Done()]
        if p["stage"] == "pairs":  # (none open: in a view where the enemy's weapons are unknown)
            return list(self.pairs_open(s, p)) or [Done()]
        if p["stage"] == "cancel":
            side, chit = p["cancel"][0]
            return [Use(chit, t) for t in self.targets(s, p, side, chit)] + [Done()]
        if p["stage"] == "choose":
            chit = p["cancel"][0][1]
            return [Use(chit, name) for name, _, _ in choices(self.game, chit)]
        if p["stage"] == "at-once":
            return [Use(c, p["held"]["action"][0]) for c in self.at_once_open(s, p)] + [Done()]
        if p["stage"] == "retreat":
            return [Hold(), Done()]
        return []

    def why(self, s: GameState, p: dict, a: Action, legal: list[Action]) -> str:
        if p["stage"] == "equipment":
            roles = "".join(f", 'use {x.option} {x.unit}' makes it fight as {self._role(x.unit).title}"
                            for x in legal if isinstance(x, Use) and x.unit != "out")
            return f"{p['side']} declares the equipment that fights in {p['hex']}: 'use X out' leaves X out " \
                   f"({', '.join(x.option for x in legal if isinstance(x, Use) and x.unit == 'out') or 'none'}){roles}" \
                   f", 'done' when the rest fights"
        if p["stage"] == "reroll":
            return self.rerolls.why(s, p)
        if p["stage"] == "strike-reroll":
            _, chit, target, roll, hit = self.struck(p)
            return f"{p['side']} may roll again with {p['reroll'][0][1]} the die of {chit} at {target} in {p['hex']} " \
                   f"({roll}: {'destroyed' if hit else 'missed'}): 'use {p['reroll'][0][1]} 1', or 'done' to keep it"
        if p["stage"] == "order":
            return f"{p['side']} chooses the battle fought next (9.2(3)): " + "; ".join(str(x) for x in legal)
        if p["stage"] in AIR_STAGES:
            return self.air.why(s, p, legal)
        if p["stage"] == "support":
            can = ", ".join(f"'{x}'" for x in legal if isinstance(x, Use))
            return f"the battle in {p['hex']} waits for {p['side']}'s support chits " \
                   f"(at most {self.rules.support}): " + (f"it may answer {can}, or 'done'" if can else "'done'")
        if p["stage"] == "at-once":
            held = p["held"]
            return f"{held['side']}'s {held['action'][0]} acts in {p['hex']} ('use {' '.join(held['action'])}'): " \
                   f"{p['side']} may play at once from its support pool a chit that cancels it first: " + \
                   "; ".join(f"'{x}'" for x in legal if isinstance(x, Use)) + ", or 'done'"
        if p["stage"] == "choose":
            chit = p["cancel"][0][1]
            return f"{p['side']} picks what {chit} does in {p['hex']}: " + "; ".join(
                f"'use {chit} {name}'" + (f" ({title})" if title else "") for name, title, _ in choices(self.game, chit))
        if p["stage"] == "cancel":
            return f"{p['side']} says what {p['cancel'][0][1]} cancels in {p['hex']}: " \
                   f"{'; '.join(str(x) for x in legal if isinstance(x, Use))}, or 'done' for nothing"
        if p["stage"] == "pairs":
            return f"{p['side']} pairs the tank weapons in {p['hex']}: choose one of: " \
                   f"{'; '.join(str(x) for x in legal)}"
        n = p["losses"][p["side"]]
        return f"{p['side']} loses {n} step{'s' * (n != 1)} in {p['hex']}: 'hold' takes them all and stays, " \
               f"'done' retreats one hex and loses {n // 2}"

    def answer(self, s: GameState, p: dict, a: Action) -> None:
        if p["stage"] == "at-once":
            self._answer_at_once(s, p, a)
            return
        if not self._quiet and isinstance(a, Use) and self.may_answer(s, p, a):  # the enemy may play a chit at once against the chit acting (签一览 (2))
            self._record(s, a, side=p["side"])
            enemy = self.enemy(p, p["side"])
            p["held"] = {"stage": p["stage"], "side": p["side"], "action": [a.option, a.unit]}
            s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{a.option} ({p['side']}) acts: "
                          f"{enemy} may answer at once"})
            p["stage"], p["side"] = "at-once", enemy
            return
        if p["stage"] == "equipment":  # what is left out stays face down: the enemy's log reads 'use ?'
            self._record(s, a, side=p["side"], **({"face": "down"} if isinstance(a, Use) else {}))
            if isinstance(a, Use) and a.unit != "out":  # a role (19.3): shown when the counters turn face up
                s.mark(a.option, ROLE + a.unit)
                s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{p['side']} declares how a counter under "
                              f"{A.host_of(s, a.option)} fights"})
            elif isinstance(a, Use):
                p["neutral"].append(a.option)
                s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{p['side']} leaves a counter under "
                              f"{A.host_of(s, a.option)} out of the battle (11.2(1)2)"})
            else:
                self.declared(s, p)
            return
        if p["stage"] == "order":
            self._record(s, a, side=p["side"])
            self.fight(s, p, a)
            return
        if p["stage"] in AIR_STAGES:
            self._record(s, a, side=p["side"])
            self.air.answer(s, p, a)
            return
        if p["stage"] == "reroll":
            self._record(s, a, side=p["side"])
            self.rerolls.answer(s, p, a)
            if isinstance(a, Use):
                p["logged"] = 0  # the battle is worked out again: all of it goes to the log
            return
        if p["stage"] == "strike-reroll":
            self._record(s, a, side=p["side"])
            side, cmdr = p["reroll"].pop(0)
            if isinstance(a, Use):  # the commander's one choice: this die again (once)
                _, chit, target, old, _ = self.struck(p)
                p.setdefault("used", []).append(cmdr)
                p["struck"][1] = s.roll(self.game.dice[self.rules.die], f"{cmdr} rolls again: {chit} at {target} "
                                        f"in {p['hex']}")
                s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{cmdr} ({side}) rolls again {chit}'s die "
                              f"at {target}: {old}, now {p['struck'][1]}"})
                p["reroll"] = []
            return
        secret = p["stage"] == "support" and isinstance(a, Use) and a.option in self.chits_open(s, p)  # face down
        self._record(s, a, side=p["side"], **({"face": "down"} if secret else {}))
        if p["stage"] == "support" and isinstance(a, Use) and a.option not in self.chits_open(s, p):
            p.setdefault("ranged", {}).setdefault(p["side"], []).append(a.option)  # equipment, declared face up
            s.done.add(ranged_key(s, a.option))
            s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{a.option} ({p['side']}) supports the battle "
                          f"from {self.e.board.hex_id(s.units[A.host_of(s, a.option)].hex)}"})
            self.break_down(s, p, [a.option])  # it joins the battle (19.5)
        elif p["stage"] == "support":
            if isinstance(a, Use):
                p["chits"].setdefault(p["side"], []).append(a.option)
                s.log.append({"turn": s.turn, "support": a.option, "side": p["side"], "battle": p["hex"],
                              "face": "down"})
            else:
                self._next_declarer(p, s)
        elif p["stage"] == "cancel":
            side, chit = p["cancel"].pop(0)
            if isinstance(a, Use):
                self.cancel(s, p, side, chit, a.unit)
        elif p["stage"] == "choose" and isinstance(a, Use):  # the option stays the chit's until the battle is over
            chit = p["cancel"][0][1]
            s.mark(chit, CHOSE + a.unit)
            title = next(t or n for n, t, _ in choices(self.game, chit) if n == a.unit)
            s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{chit} ({p['side']}): {title}"})
            p["stage"] = "cancel"
        elif p["stage"] == "pairs" and isinstance(a, Done):
            p["stage"] = "roll"
        elif p["stage"] == "pairs" and isinstance(a, Pair):
            mine_attacks = p["side"] == p["attacker"]
            p["pairs"].append([a.unit, a.target] if mine_attacks else [a.target, a.unit])
        elif p["stage"] == "retreat":
            side = p["side"]
            if isinstance(a, Done):
                p["retreat"].append(side)
                p["losses"][side] //= 2
            p["deciding"].pop(0)

    def _record(self, s: GameState, a: Action, **kw) -> None:
        if not self._quiet:  # (an action held for the enemy's answer at once is recorded when it is taken)
            self.e.record(s, a, **kw)

    # ------------------------------------------------------------ chits played at once (签一览 (2))
    def answers(self, chit: str, acting: str) -> bool:
        """Whether ``chit``, played at once, cancels the enemy chit ``acting`` (``at-once``)."""
        g = self.game
        return any(eff.verb == "cancel-chit" and (acting in eff.args["units"] or
                                                 g.matches(acting, frozenset(eff.args["units"])))
                   for sel, key in self.rules.at_once if chit in sel or g.matches(chit, sel)
                   for eff in g.effects.get(key, ()))

    def _pool_count(self, s: GameState, p: dict, side: str) -> int:
        """How many chits ``side``'s support pool holds, besides those it
        allocated to this battle (public; which, only in its own view)."""
        pool = self._support_pool(side, self.rules.support_from)
        if not pool:
            return 0
        box = f"pool:{pool}"
        m = (p.get("air") or {}).get("mission") or {}  # aircraft flying a mission are in no hand
        flying = [m.get("chit"), m.get("counter")] if m.get("side") == side else [m.get("interceptor")] if m else []
        return sum(1 for u in s.units.values() if u.box == box and u.hex is None) + \
            ((s.observed or {}).get("places") or {}).get(box, 0) - len(p["chits"].get(side, ())) - \
            sum(1 for c in flying if c and s.units[c].box != "removed")

    def may_answer(self, s: GameState, p: dict, a: Action) -> bool:
        """Whether the enemy is asked to answer ``a`` at once: a chit of the
        side acts in the battle (its decision, its roll again), some chit of
        the game may cancel it at once, and the enemy's support pool holds
        any chit (asked whatever it holds: which chits it holds stays hidden)."""
        if not self.rules.at_once or p.get("window") or p["stage"] not in AT_ONCE_STAGES or not isinstance(a, Use) \
                or a.option not in p["chits"].get(p["side"], ()):
            return False
        g = self.game
        if not any(eff.verb == "cancel-chit" and (a.option in eff.args["units"] or
                                                  g.matches(a.option, frozenset(eff.args["units"])))
                   for _, key in self.rules.at_once for eff in g.effects.get(key, ())):
            return False
        return self._pool_count(s, p, self.enemy(p, p["side"])) > 0

    def at_once_open(self, s: GameState, p: dict) -> list[str]:
        """The chits in the answering side's support pool that cancel the chit acting."""
        pool = self._support_pool(p["side"], self.rules.support_from)
        acting = p["held"]["action"][0]
        return sorted(u.id for u in s.units.values() if pool and u.box == f"pool:{pool}" and u.hex is None
                      and u.side == p["side"] and u.id not in p["chits"].get(p["side"], ())
                      and self.answers(u.id, acting))

    def _answer_at_once(self, s: GameState, p: dict, a: Action) -> None:
        held = p.pop("held")
        side, acting = held["side"], held["action"][0]
        self._record(s, a, side=p["side"])
        p["stage"], p["side"], answering = held["stage"], side, p["side"]
        if isinstance(a, Use):  # the acting chit is cancelled before it acts: back to its cup; so is the chit played
            p["chits"][side].remove(acting)
            forget_choice(s, acting)
            back = self._support_pool(side, self.rules.support_to)
            if back:
                s.place(acting, None, f"pool:{back}")
            mine = self._support_pool(answering, self.rules.support_to)
            s.place(a.option, None, f"pool:{mine}" if mine else "removed")
            s.log.append({"turn": s.turn, "battle": p["hex"], "step": f"{a.option} ({answering}) played at once "
                          f"cancels {acting}" + (f": back to {back}" if back else "") + " before it acts"})
            (p["cancel"] if held["stage"] in ("cancel", "choose") else p["reroll"]).pop(0)
            return
        self._quiet = True  # not answered: the chit acts as its side said
        try:
            self.answer(s, p, Use(*held["action"]))
        finally:
            self._quiet = False

    def _next_declarer(self, p: dict, s: GameState) -> None:
        order = self.order(p)
        if p["side"] == order[0]:
            p["side"] = order[1]
            if self.air is not None and self.air.recon_between(s, p):  # recon at the chits face down (16.1(6)3)
                self.air.open(s, p, back="support")
        else:
            if any(p["chits"].values()):  # 11.2(2): every chit allocated to the battle is turned face up
                s.log.append({"turn": s.turn, "battle": p["hex"], "revealed": {k: list(v) for k, v in p["chits"].items()},
                              "step": "support chits: " + "; ".join(f"{k} {', '.join(v)}" for k, v in p["chits"].items()
                                                                   if v)})  # the chits that cancel others, the side that declares first first (11.2(3))
            p["stage"] = "cancel"
            p["cancel"] = [[side, c] for side in order for c in p["chits"].get(side, [])
                           if decisions(self.game, c, s) or choices(self.game, c)]

    def settle(self, s: GameState, p: dict) -> bool:
        """Run the automatic stages; True when the entry moved on."""
        if p["stage"] == "equipment":
            if not self.carried(s, p, p["side"]):
                self.declared(s, p)
                return True
            return False
        if p["stage"] == "order":
            return self.settle_order(s, p)
        if p["stage"] == "support":
            if not self.chits_open(s, p) and not self.ranged_open(s, p):
                self._next_declarer(p, s)
                return True
            return False
        if p["stage"] in ("choose", "at-once"):
            return False
        if p["stage"] == "cancel":
            while p["cancel"]:
                side, chit = p["cancel"][0]
                if chit in p["chits"].get(side, []) and choices(self.game, chit) and chosen(s, chit) is None:
                    p["stage"], p["side"] = "choose", side  # first its side picks the option
                    return False
                if chit in p["chits"].get(side, []) and self.targets(s, p, side, chit):
                    p["side"] = side
                    return False
                p["cancel"].pop(0)  # cancelled itself, or nothing to cancel
            if self.air is not None:
                self.air.open(s, p)
            else:
                self.to_duel(s, p)
            return True
        if p["stage"] in AIR_STAGES:
            return self.air.settle(s, p)
        if p["stage"] == "pairs":
            if p["side"] not in (p["attacker"], p["defender"]):
                p["side"] = p["attacker"]
            opts = self.pairs_open(s, p)
            if not opts:
                p["stage"] = "roll"
                return True
            if len(opts) == 1:
                self.answer(s, p, opts[0])
                return True
            return False
        if p["stage"] == "roll":
            self.roll(s, p)
            return True
        if p["stage"] == "strike-reroll":
            if p["reroll"]:
                p["side"] = p["reroll"][0][0]
                return False
            self.to_duel(s, p)  # the strike as its die stands, then the next
            return True
        if p["stage"] == "reroll":
            if p["reroll"]:
                p["side"] = p["reroll"][0][0]
                return False
            self.apply(s, p, self.replay(s, p))
            return True
        if p["stage"] == "retreat":
            if not p["deciding"]:
                self.finish(s, p)
                return True
            p["side"] = p["deciding"][0]
            if p["losses"][p["side"]] < 2:  # halving 1 loses nothing: no reason to retreat
                p["deciding"].pop(0)
                return True
            return False
        return False

    def to_duel(self, s: GameState, p: dict) -> None:
        """The strikes, then the superior side pairs the duel."""
        if not self.strike(s, p):
            return  # a commander may roll a strike's die again first
        p["stage"] = "pairs"
        p["side"] = self.rules.superior

    def roll(self, s: GameState, p: dict) -> None:
        """The dice, a phase at a time (``battle.phases``; ``rolled``: how many
        are); after a phase that rolled dice, the air combat when either side
        has a mission to fly (16.0(1)); once all are rolled, the commanders'
        rolls again and the outcome."""
        st = self.setup(s, p)
        if "rolled" not in p:
            if self.rules.ranged:  # what fights with a range here supports no other battle this phase (11.2(1)3)
                inside = [*p["attackers"], *(u.id for u in s.units_at(self.e.hex(p["hex"])))]
                for cid in [a for u in inside for a in A.under(s, u)]:
                    if factor(self.game, s, cid, self.rules.ranged) > 0:
                        s.done.add(ranged_key(s, cid))
                        # its mark is this battle's: it fights on here (between two rolls too)
                        p.setdefault("ranged-here", []).append(cid)
            if self.rules.roles:
                self.lock_roles(s, st)
            p["dice"], p["rolled"], p["mid"], p["destroyed"] = [], 0, [], []
        plan = phases(st)
        while p["rolled"] < len(plan):
            before = len(p["dice"])
            p["rolled"] += 1
            out = self.replay(s, p, st, p["rolled"])
            p["destroyed"] = list(out.destroyed)
            if len(p["dice"]) > before and self.air is not None and self.air.wanted(s, p):
                for line in out.lines[p.get("logged", 0):]:  # what the dice did so far, before the air combat
                    s.log.append({"turn": s.turn, "battle": p["hex"], "step": line})
                p["logged"] = len(out.lines)
                self.air.open(s, p, plan[p["rolled"] - 1][2])
                return
        out = self.replay(s, p, st)
        p["reroll"] = self.rerolls.kept(p)
        if p["reroll"]:  # a commander kept to roll one of these dice again (签一览)
            p["stage"] = "reroll"
            s.log.append({"turn": s.turn, "battle": p["hex"], "step": "the dice: " + "; ".join(
                f"{i + 1}. {why} {face}" for i, (why, face) in enumerate(p["dice"])) + " (before any roll again)"})
            return
        self.apply(s, p, out)

    def replay(self, s: GameState, p: dict, st: Setup | None = None, upto: int | None = None):
        """Resolve the battle (its first ``upto`` phases) with the dice it
        already rolled (``dice``), rolling those it has not
        (runtime.combat.dicepool.reroll)."""
        die = self.game.dice[self.rules.die]
        out, p["dice"] = replay(st or self.setup(s, p), p.get("dice", []),
                                lambda why: s.roll(die, f"{why} in {p['hex']}"), upto)
        return out

    def apply(self, s: GameState, p: dict, out) -> None:
        """The battle's outcome: the log, weapons destroyed, chits back, the losses."""
        att, dfd = p["attacker"], p["defender"]
        for line in out.lines[p.get("logged", 0):]:  # (those logged before an air combat between two rolls)
            s.log.append({"turn": s.turn, "battle": p["hex"], "step": line})
        downed = (p.get("air") or {}).get("downed", ())
        for wid in downed:  # hit from the air between two rolls (16.3(3))
            if A.host_of(s, wid) is not None:
                A.remove(self.game, s, wid, "hit from the air (16.3(3))")
        for wid in out.destroyed:
            if wid in downed:  # (a commander's roll again had the duel destroy it first: it is back in its cup)
                continue
            if A.host_of(s, wid) is not None:  # an equipment chit goes where its kind returns it (its cup)
                A.remove(self.game, s, wid, "hit in the tank duel")
            else:
                box = eliminate(self.game, s, wid)
                s.log.append({"turn": s.turn, "destroyed": wid, "why": "hit in the tank duel", "to": box})
        for side, used in p["chits"].items():
            back = self._support_pool(side, self.rules.support_to)
            for c in used:
                if c not in s.units:  # a chit unknown in this view (the other side's, allocated face down)
                    continue
                forget_choice(s, c)
                if c in p.get("spent", ()):
                    s.place(c, None, "removed")
                elif back:
                    s.place(c, None, f"pool:{back}")
        winner = out.winner(att, dfd)
        p["losses"] = out.losses(att, dfd)
        p["result"] = {"damage": dict(out.damage), "total": {x: out.total(x) for x in (att, dfd)},
                       "winner": winner}
        s.log.append({"turn": s.turn, "battle": p["hex"], "damage": dict(out.damage),
                      "total": p["result"]["total"], "winner": winner or "tie: both lose",
                      "losses": dict(p["losses"])})
        if self.rules.roles:
            self.end_roles(s)
        p["stage"] = "retreat"
        p["deciding"] = [x for x in self.order(p) if self.rules.retreat and p["losses"][x] > 0]

    def finish(self, s: GameState, p: dict) -> None:
        """Queue the losses, the retreats and the advance (engine entries)."""
        target = self.e.hex(p["hex"])
        stacks = {p["attacker"]: [u for u in p["attackers"] if s.units[u].hex is not None],
                  p["defender"]: [u.id for u in s.units_at(target) if u.side == p["defender"]]}
        follow: list[dict] = []
        for side in self.order(p):
            if p["losses"][side] > 0 and stacks[side]:
                follow.append({"kind": "loss", "side": side, "steps": p["losses"][side], "units": stacks[side]})
        for side in self.order(p):
            if side in p["retreat"] and stacks[side]:
                other = p["defender"] if side == p["attacker"] else p["attacker"]
                follow.append({"kind": "retreat-all", "units": stacks[side], "hexes": 1, "enemy": other,
                               "held": True})
        if p["attacker"] not in p["retreat"]:  # 15.0(4): no advance after the attacker retreats
            follow.append({"kind": "advance-check", "hex": p["hex"], "units": stacks[p["attacker"]],
                           "defenders": stacks[p["defender"]], "one": True})
        s.pending.pop(0)
        s.pending[0:0] = follow

    def side_chance(self, s: GameState, side: str, attackers: list[str], hid: str) -> float:
        """``side``'s exact chance to win the battle as it stands (a tie half)."""
        odds = self.preview_odds(s, attackers, self.e.hex(hid))
        return float(odds.win[side] + odds.tie / 2)

    def win_chance(self, s: GameState, attackers: list[str], target) -> float:
        """The attacker's exact chance to win the battle as it stands (paired
        by default, no support chits): the greedy bot's measure."""
        return float(self.preview_odds(s, attackers, target).win[s.units[attackers[0]].side])

    # ------------------------------------------------------------ odds before a breakdown (19.5)
    def breakdown_chance(self, s: GameState, cid: str) -> Fraction:
        """The chance ``cid`` breaks down as it joins a battle (19.5)."""
        g = self.game
        sides = g.dice[self.rules.die].sides
        keep = Fraction(1)
        for sel, side, n in self.rules.breakdown:
            if (not side or s.units[cid].side == side) and (cid in sel or g.matches(cid, sel)):
                keep *= 1 - Fraction(max(0, min(n, sides)), sides)
        return 1 - keep

    def odds(self, s: GameState, st: Setup, rebuild, rolled: bool = False) -> BattleOdds:
        """The exact odds of the battle ``st`` before its dice, over every
        breakdown still to roll (19.5; ``rolled``: none is): each counter in
        it that may break down, gone or not; ``rebuild(gone)``: the battle
        without the counters in ``gone``."""
        if not self.rules.breakdown or rolled:
            return battle_odds(st)
        ids = sorted({i for pool in st.pools for i, _ in pool.items} | {w.id for w in st.weapons} |
                     {i for i, _, _ in st.armour})
        risk = [(c, q) for c in ids if c in self.game.counters and (q := self.breakdown_chance(s, c)) > 0]
        if not risk:
            return battle_odds(st)
        risk = risk[:BREAKDOWNS_COUNTED]
        parts = []
        for mask in product((False, True), repeat=len(risk)):
            w = Fraction(1)
            for (_, q), gone in zip(risk, mask):
                w *= q if gone else 1 - q
            gone = tuple(c for (c, _), b in zip(risk, mask) if b)
            parts.append((w, battle_odds(rebuild(gone)) if gone else battle_odds(st)))
        return mix_odds(parts, "breakdown (19.5): " + ", ".join(f"{c} leaves the game {pct(q)}" for c, q in risk)
                        + " as it joins the battle (counted)")

    def preview_odds(self, s: GameState, attackers: list[str], target, chits=None, neutral: tuple = (),
                     ranged=None, track=()) -> BattleOdds:
        """``preview``'s exact odds, the breakdowns to come counted (19.5)."""
        st = self.preview(s, attackers, target, chits, neutral, ranged, track)
        return self.odds(s, st, lambda gone: self.preview(s, attackers, target, chits, (*neutral, *gone), ranged,
                                                          track))

    def battle_odds_now(self, s: GameState, p: dict) -> tuple[Setup, BattleOdds]:
        """The battle being fought, paired by default, and its exact odds (the
        breakdowns counted until they are rolled)."""
        st = self.setup(s, p)
        st = self.setup(s, p, default_pairs(st))

        def rebuild(gone):
            q = dict(p, neutral=[*p.get("neutral", ()), *gone])
            return self.setup(s, q, default_pairs(self.setup(s, q)))
        return st, self.odds(s, st, rebuild, rolled=bool(p.get("broken-down")) or not self.rules.declare_equipment)

    def chance(self, s: GameState, p: dict, chits: dict[str, list[str]], neutral=None, ranged=None, track=None,
               side: str = ""):
        """The deciding side's (or ``side``'s) exact chance to win, with these
        chits (and ranged equipment, and damage already on the track), paired
        by default; a tie counts half (both lose)."""
        neutral = tuple(p.get("neutral", ()) if neutral is None else neutral)
        ranged = p.get("ranged", {}) if ranged is None else ranged
        track = tuple(tuple(x) for x in (p.get("track", ()) if track is None else track))
        g = self.game
        chits = {k: [c for c in v if c in g.counters] for k, v in chits.items()}  # '?': the enemy's, unseen
        todo = [(side, eff) for side in self.order(p) for c in chits.get(side, ()) for eff in strikes(g, c)] \
            if p["stage"] in ("support", "choose", "cancel", *AIR_STAGES) and "rolled" not in p else []
        return self._mix(s, p, chits, neutral, ranged, todo, track, side or p["side"])

    def to_roll(self, s: GameState, p: dict, chits, neutral: tuple, ranged, track) -> Setup:
        """The battle as it would be rolled with these chits, ``neutral``
        counters and ``track`` (``preview``); once its dice began, the phases
        still to roll (``battle.rest``), ``neutral`` and ``track`` beyond the
        battle's own counting as done from the air now."""
        if "rolled" not in p:
            return self.preview(s, p["attackers"], self.e.hex(p["hex"]), chits, neutral, ranged, track)
        st = self.setup(s, p)
        out, _ = replay(st, p["dice"], lambda why: 1, p["rolled"])  # (every die of those phases is rolled)
        for side, _, n in track[len(p.get("track", ())):]:
            out.damage[side] += int(n)
        gone = {e[3] for e in p["mid"] if e[1] == "out"} | (set(neutral) - set(p.get("neutral", ())))
        return rest(st, p["rolled"], out, gone)

    def _mix(self, s: GameState, p: dict, chits, neutral: tuple, ranged, todo, track=(), side=""):
        """The chance over every outcome of the strikes still to come
        (a target at random, then one die)."""
        if not todo:
            odds = battle_odds(self.to_roll(s, p, chits, neutral, ranged, track))
            return odds.win[side] + odds.tie / 2
        (side, eff), rest = todo[0], todo[1:]
        cands = self.strike_targets(s, p, side, eff, neutral, ranged)
        if not cands:
            return self._mix(s, p, chits, neutral, ranged, rest, track, side)
        sides = self.game.dice[self.rules.die].sides
        q = Fraction(max(0, min(eff.args["on"], sides)), sides)
        total = (1 - q) * self._mix(s, p, chits, neutral, ranged, rest, track, side)
        for t in cands:
            total += q / len(cands) * self._mix(s, p, chits, (*neutral, t), ranged, rest, track, side)
        return total

    # ------------------------------------------------------------ bots
    def default(self, s: GameState, p: dict, acts: list[Action]) -> Action:
        if p["stage"] == "equipment":  # everything fights, in the role that raises the side's chance most (19.3)
            best, chance = Done(), None
            for a in acts:
                if isinstance(a, Use) and a.unit != "out":
                    chance = self.chance(s, p, p["chits"]) if chance is None else chance
                    t = s.copy()
                    t.mark(a.option, ROLE + a.unit)
                    c = self.chance(t, p, p["chits"])
                    if c > chance:
                        best, chance = a, c
            return best
        if p["stage"] == "reroll":
            return self.rerolls.best(s, p, acts)
        if p["stage"] == "strike-reroll":  # a die that went against the side: the striker's miss, a hit on its own
            striker, _, _, _, hit = self.struck(p)
            return acts[0] if hit != (p["side"] == striker) else Done()
        if p["stage"] == "order":  # the battle most likely to go the superior side's way first
            return max((a for a in acts if isinstance(a, Attack)),
                       key=lambda a: (self.side_chance(s, p["side"], list(a.attackers), a.target), -acts.index(a)))
        if p["stage"] in AIR_STAGES:
            return self.air.default(s, p, acts)
        if p["stage"] == "support":  # the chit that raises the side's chance to win most, if one does
            best, chance = Done(), self.chance(s, p, p["chits"])
            far = set(self.ranged_open(s, p))
            for a in acts:
                if isinstance(a, Use) and a.option in far:
                    rg = p.get("ranged", {})
                    c = self.chance(s, p, p["chits"], None, {**rg, p["side"]: [*rg.get(p["side"], []), a.option]})
                    if c > chance:
                        best, chance = a, c
                elif isinstance(a, Use):  # (a chit with a choose: as its best option would make it)
                    chits = {**p["chits"], p["side"]: [*p["chits"].get(p["side"], []), a.option]}
                    c = self.chance(s, p, chits) if not choices(self.game, a.option) else \
                        max(self.chance(self._picked(s, a.option, name), p, chits)
                            for name, _, _ in choices(self.game, a.option))
                    if c > chance:
                        best, chance = a, c
            return best
        if p["stage"] == "cancel":  # the target whose loss lowers the enemy's chance most, if one does
            return self._best_target(s, p, acts)[0]
        if p["stage"] == "at-once":  # the enemy's chit acts only where that helps the enemy: cancel it
            return next((a for a in acts if isinstance(a, Use)), Done())
        if p["stage"] == "choose":  # the option that raises the side's chance most (with its best target); of those
            best, key = acts[0], None  # as good, one with a target (an engineer's position sent back), the first
            for a in acts:
                if not isinstance(a, Use):
                    continue
                t = self._picked(s, a.option, a.unit)
                q = {**p, "stage": "cancel"}
                x, c = self._best_target(t, q, self.actions_of_cancel(t, q))
                k = (c, isinstance(x, Use))
                if key is None or k > key:
                    best, key = a, k
            return best
        if p["stage"] == "pairs":  # the strongest against the strongest, of the pairs legal now
            st = self.setup(s, p)
            mine_first = p["side"] == p["attacker"]
            for x, y in default_pairs(st)[len(p["pairs"]):]:
                a = Pair(x, y) if mine_first else Pair(y, x)
                if a in acts:  # (a sample of the side's view may hold a weapon the real battle lost)
                    return a
            fire = {w.id: (w.fire, w.armour) for w in st.weapons}
            pairs = [a for a in acts if isinstance(a, Pair)]
            return max(pairs, key=lambda a: (fire.get(a.unit, (0, 0)), fire.get(a.target, (0, 0)), a.unit, a.target),
                       default=acts[0])
        return Done() if self.retreat_saves(s, p, p["side"]) else Hold()

    @staticmethod
    def _picked(s: GameState, chit: str, option: str) -> GameState:
        """A copy of ``s`` where ``chit``'s side picked ``option`` of its choose."""
        t = s.copy()
        t.mark(chit, CHOSE + option)
        return t

    def actions_of_cancel(self, s: GameState, p: dict) -> list[Action]:
        side, chit = p["cancel"][0]
        return [Use(chit, x) for x in self.targets(s, p, side, chit)] + [Done()]

    def _best_target(self, s: GameState, p: dict, acts: list[Action]) -> tuple[Action, Fraction]:
        """Of a chit's targets, the one whose loss lowers the enemy's chance
        most, if one does (else ``done``; but a counter sent back from the
        map costs the side nothing: then the first), and the chance then."""
        best, chance = Done(), self.chance(s, p, p["chits"])
        back = self.sent_back(s, p)
        for a in acts:
            if isinstance(a, Use):
                chits = {k: [c for c in v if c != a.unit] for k, v in p["chits"].items()}
                c = self.chance(s, p, chits, (*p.get("neutral", ()), a.unit))
                if c > chance or (c == chance and isinstance(best, Done) and a.unit in back):
                    best, chance = a, c
        return best, chance

    def retreat_saves(self, s: GameState, p: dict, side: str) -> bool:
        """Whether retreating (losses halved, 14.0) loses the side fewer steps
        than holding: a stack whose every retreat hex destroys it (enemy
        ZOC, enemy hexes, off the map, 14.0(4)) is lost whole."""
        from ...retreat import retreat_paths
        losses = p["losses"].get(side, 0)
        if losses < 2:
            return False
        g = self.game
        target = self.e.hex(p["hex"])
        stacks = [u for u in p["attackers"] if s.units[u].hex is not None] if side == p["attacker"] else \
            [u.id for u in s.units_at(target) if u.side == side]
        enemy = self.enemy(p, side)

        def steps(uid: str) -> int:
            kept = sum(1 for a in A.under(s, uid) if A.kind_of(g, a) is None or A.kind_of(g, a).loss)
            return len(g.counters[uid].steps) - s.units[uid].step + kept
        total = sum(steps(u) for u in stacks)
        doomed = [u for u in stacks if all(r.destroyed for r in retreat_paths(g, self.e.board, s, u, 1, enemy))]
        lost_whole = sum(steps(u) for u in doomed)
        held = min(losses, total)
        retreating = lost_whole + min(losses // 2, total - lost_whole)
        return retreating < held


def check_attack(engine, s: GameState, attackers: list[str], target) -> None:
    """Why a dice-pool attack is illegal (raises), beyond the unit checks the
    engine makes: the target holds enemy units, each attacker is adjacent,
    neither attacked yet this phase (9.1(1)(3))."""
    tid = engine.board.hex_id(target)
    if not attackers:
        raise IllegalActionError(f"no units attack {tid}")
    defenders = s.units_at(target)
    if not defenders:
        raise IllegalActionError(f"there are no units in {tid} to attack")
    if defenders[0].side == s.active:
        raise IllegalActionError(f"{tid} holds friendly units, not enemy ones")
    if target in s.attacked_hexes:
        raise IllegalActionError(f"{tid} has already been attacked this combat phase")
    for uid in attackers:
        u = s.units[uid]
        if u.hex is None:
            raise IllegalActionError(f"{uid} cannot attack {tid}: it is not on the map")
        if target not in {n for n, _ in engine.board.adj.get(u.hex, ())}:
            raise IllegalActionError(f"{uid} cannot attack {tid}: it is not adjacent")
        if uid in s.attacked:
            raise IllegalActionError(f"{uid} cannot attack {tid}: it has already attacked this combat phase")
