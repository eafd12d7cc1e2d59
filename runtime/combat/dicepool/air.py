"""Air combat in a dice-pool battle (Prokhorovka 16.0-16.3), declared by
``dice-pool { air NAME "title" { ... } }`` and the aircraft's ``on-use``
roles (``bomb FACTOR``, ``ground-attack FACTOR [shots N]``, ``recon N``,
``intercept``).

The air combat interrupts the battle once its support chits are face up and
cancelled (after the ``cancel`` stage), before the Molotov strikes, the duel
pairing and the first die, and again between two of the battle's rolls
(after each fire step, firing round and the tank support that rolled dice,
16.0(1)) when either side has a mission it may fly: the stages of the
battle's pending entry are

* ``air``: the side that declares first, then the other, may fly a mission
  with an aircraft from its support pool (``use CHIT``) or pass (``done``);
  the air combat ends when both pass in a row.  Aircraft do not count
  against the support-chit limit (16.0(1)).  A bomber or a ground-attack
  aircraft bombs the battle (16.1(1)1); a recon aircraft flies only in its
  side's own player turn (16.1(1)3).  An enemy chit that cancels the air
  step (smoke: ``cancel-step NAME``) grounds the side's bombing;
* ``aa`` (the engine): every enemy anti-aircraft gun whose range reaches the
  battle hex fires, one die each, a hit at or under its anti-air factor;
  the first hit sends the aircraft back to its cup (16.1(2));
* ``intercept``: the enemy may send one fighter (``use CHIT``) or not;
* ``counter``: the raider may send one of its fighters at the interceptor;
* ``dogfight`` (the engine): the counter-interceptor fires first, a hit
  removes the interceptor from the game; else the interceptor fires, a hit
  removes the aircraft from the game (16.1(4)(5));
* ``mission`` (the engine) and ``air-target``: a bomber rolls its dice as
  artillery (the air block's hit numbers), each hit one damage on its
  side's track, and the hits (with what earlier bombers left) neutralise
  enemy duel weapons for the rest of the battle: the raider allots them
  (``use CHIT WEAPON``, ``done`` keeps the rest for a later bomber), each
  weapon costing its armour (at least 1) (16.2(3)); a ground-attack aircraft
  shoots ``shots`` times at face-up enemy equipment with armour in the
  battle (``use CHIT TARGET``): the TEC column's cell of the target's hex
  (◆: the aircraft's factor against the target's armour; hexsides do not
  count), a hit is one damage and the target goes back to its cup (16.2(2),
  16.3); a recon aircraft turns up to N face-down enemy counters on the map
  face up (``use CHIT TARGET``, ``done`` to stop).  Then the aircraft and
  the fighters that flew go back to their cup.

Outside any battle (``window move combat``, 16.0 "at any time", the moment
reconstructed): at the start of each phase of those procedures the engine
opens an air window, a pending entry of kind "dice-pool" with ``window``
and no battle, when either side has a mission it may fly: the phasing side,
then the other, declares a ground attack at a face-up enemy counter with
armour on the map or, in its own turn, a recon, naming the target with the
mission (``use CHIT TARGET``, its hex the mission's for the AA guns); the
same stages follow, a ground-attack hit sends the counter back to its cup
(no damage track), and the window closes when both pass in a row.  An AA gun
that fires turns face up (3.5(6)).

A shot by or at an aircraft the air block's ``reroll`` names (Rudel) is
rolled again once when that helps its owner.  Each air combat roll (AA fire, counter-
interception, interception, a ground attack's shot, a bombing's dice) is a
``throw``: before it counts, a commander kept in the battle (``reroll-die``,
签一览 ①: "at any roll") may roll one of its dice again (stage
``air-reroll``: ``use CHIT N`` or ``done``), once; then ``land`` applies it.

Between two rolls what a mission does is kept as the battle's events
(``mid``: ``Setup.events``), so that the rolls already made stand: damage
on the track, a weapon neutralised or hit from the air (it fires no more;
a counter hit goes back to its cup when the battle is applied)."""
from __future__ import annotations

from fractions import Fraction

from ... import attachments as A
from ...actions import Action, Done, Use
from ...definition import AirRules, Effect
from ...hexes import hex_distance
from ...state import GameState
from .chits import _effects
from .hits import HitTest, binomial, firing_round, read_test
from .setup import across, defence_level, factor, hit_test, stack_items

ROLES = ("bomb", "ground-attack", "recon", "intercept")


class AirCombat:
    def __init__(self, battles):
        self.b = battles
        self.game = battles.game
        self.air: AirRules = battles.rules.air

    # ------------------------------------------------------------ reading
    def role(self, chit: str) -> Effect | None:
        return next((e for e in _effects(self.game, chit) if e.verb in ROLES), None)

    def _pool(self, side: str) -> str:
        return self.b._support_pool(side, self.b.rules.support_from)

    def _aircraft(self, s: GameState, side: str, roles: tuple[str, ...]) -> list[str]:
        """The side's aircraft in its support pool with one of these roles."""
        pool = self._pool(side)
        if not pool:
            return []
        box, g = f"pool:{pool}", self.game
        return sorted(u.id for u in s.units.values() if u.box == box and u.hex is None and u.side == side
                      and g.matches(u.id, self.air.aircraft) and (r := self.role(u.id)) is not None and r.verb in roles)

    def smoked(self, p: dict, side: str) -> bool:
        """An enemy chit cancels ``side``'s air attacks in this battle (smoke)."""
        enemy = self.b.enemy(p, side)
        return any(e.verb == "cancel-step" and e.args["step"] == self.air.id
                   for c in p["chits"].get(enemy, ()) for e in _effects(self.game, c))

    def wanted(self, s: GameState, p: dict) -> bool:
        """Whether either side has a mission it may fly now."""
        return any(self.missions_open(s, p, side) for side in (p["attacker"], p["defender"]))

    def rolling(self, p: dict) -> bool:
        """The battle's dice have begun: what the air combat does is an event (``mid``)."""
        return "rolled" in p

    def outs(self, p: dict) -> set[str]:
        """The counters no longer in the battle: neutralised, hit from the
        air or destroyed in the duel so far."""
        return set(p.get("neutral", ())) | {e[3] for e in p.get("mid", ()) if e[1] == "out"} | \
            set(p.get("destroyed", ()))

    def event(self, p: dict, kind: str, side: str, what: str, n: int = 0) -> None:
        p["mid"].append([p["rolled"] - 1, kind, side, what, n])

    def missions_open(self, s: GameState, p: dict, side: str) -> list[str]:
        """The side's aircraft that may fly a mission now (between the two
        sides' support chits: recon only, the reason that air combat is there)."""
        if p.get("window"):  # outside a battle: ground attacks, and recon in the side's own turn
            return [c for c in self._aircraft(s, side, ("ground-attack", "recon")) if self.window_targets(s, p, side, c)]
        out = []
        between = (p.get("air") or {}).get("back") == "support"
        for c in self._aircraft(s, side, ("bomb", "ground-attack", "recon")):
            verb = self.role(c).verb
            if verb == "recon":
                if side == s.active and self.recon_targets(s, side, p):
                    out.append(c)
            elif between:
                continue
            elif not self.smoked(p, side) and (verb == "bomb" or self.ground_targets(s, p, side)):
                out.append(c)
        return out

    def fighters(self, s: GameState, side: str) -> list[str]:
        return self._aircraft(s, side, ("intercept",))

    def battle_items(self, s: GameState, p: dict, side: str) -> list[str]:
        """The side's counters in the battle, with those supporting from range."""
        target = self.b.e.hex(p["hex"])
        units = p["attackers"] if side == p["attacker"] else [u.id for u in s.units_at(target) if u.side == side]
        items = [i for u in units if s.units[u].hex is not None for i in stack_items(s, u)]
        items += [i for i in p.get("ranged", {}).get(side, ()) if A.host_of(s, i) is not None]
        gone = self.outs(p)
        return [i for i in items if i not in gone]

    def ground_targets(self, s: GameState, p: dict, side: str) -> list[str]:
        """Face-up enemy equipment with armour in the battle (16.3(1))."""
        g, enemy = self.game, self.b.enemy(p, side)
        armour = self.b.rules.armour
        out = []
        if p.get("window"):  # outside a battle: on the map (the mission's hex once it flies, its further shots)
            hexes = {p["hex"]} if (p.get("air") or {}).get("mission") else None
            items = [a for host in sorted(s.attached) if s.units[host].side == enemy and s.units[host].hex is not None
                     and (hexes is None or self.b.e.board.hex_id(s.units[host].hex) in hexes)
                     for a in A.under(s, host)]
        else:
            items = self.battle_items(s, p, enemy)
        for i in items:
            host = A.host_of(s, i)
            if host is None or armour not in g.unit_classes[g.counters[i].unit_class].factors:
                continue
            kind = A.kind_of(g, i)
            if kind is not None and kind.face_down and f"face-up:{i}" not in s.done:
                continue
            out.append(i)
        return sorted(out)

    def recon_targets(self, s: GameState, side: str, p: dict | None = None) -> list[str]:
        """The enemy's face-down counters under its units on the map, and
        the support chits it allocated face down to the battle ``p`` (16.1(6)3:
        equipment or support chits; not those in a pool, 16.1(1)).  A support
        chit face down is named by its place among the enemy's, ``#N``: which
        chit it is, is what the recon finds out."""
        out = []
        if p is not None and (p.get("air") or {}).get("back") == "support":
            enemy = self.b.enemy(p, side)
            out += [f"#{i + 1}" for i, c in enumerate(p["chits"].get(enemy, ())) if c not in p.get("seen", ())]
        for host in sorted(s.attached):
            u = s.units[host]
            if u.side == side or u.hex is None:
                continue
            out += [f"{host}#{i + 1}" for i in range(len(self.face_down_under(s, host)))]
        return out

    def face_down_under(self, s: GameState, host: str) -> list[str]:
        """The counters face down under ``host``, in the order attached.  A
        recon names one by its host and place (``31TK#2``, GJ63 3.5(5): the
        enemy sees how many there are, not which): which counter it is, is
        what the recon finds out."""
        out = []
        for a in A.under(s, host):
            kind = A.kind_of(self.game, a)
            if kind is not None and kind.face_down and f"face-up:{a}" not in s.done:
                out.append(a)
        return out

    def recon_target(self, s: GameState, target: str) -> str | None:
        """The face-down counter a recon target ``HOST#N`` names (None: none)."""
        host, _, n = target.partition("#")
        down = self.face_down_under(s, host) if host in s.units else []
        return down[int(n) - 1] if n.isdigit() and 0 < int(n) <= len(down) else None

    def guns(self, s: GameState, p: dict, side: str) -> list[str]:
        """``side``'s anti-aircraft guns whose range reaches the battle hex
        (any number of battles: 11.2(1)3's exception)."""
        if not self.air.guns:
            return []
        g, target = self.game, self.b.e.hex(p["hex"])
        gone = self.outs(p)
        out = []
        for host in sorted(s.attached):
            u = s.units[host]
            if u.side != side or u.hex is None:
                continue
            for a in A.under(s, host):
                reach = factor(g, s, a, self.b.rules.ranged) if self.b.rules.ranged else 0
                if g.matches(a, self.air.guns) and a not in gone and \
                        hex_distance(u.hex, target) <= reach:
                    out.append(a)
        return out

    def rerolls(self, cid: str) -> bool:
        return bool(cid) and (cid in self.air.rerolls or self.game.matches(cid, self.air.rerolls))

    # ------------------------------------------------------------ outside a battle
    def open_window(self, s: GameState, when: str, phase: str) -> None:
        """An air window outside any battle at the start of a phase whose
        procedure (``move``, ``combat``) the air block's ``window`` names
        (16.0: "at any time", reconstructed): the phasing side, then the
        other, may fly a ground attack at a face-up enemy counter on the map
        or, in its own turn, a recon, until both pass in a row; it opens only
        when a side has such a mission it may fly."""
        if when not in self.air.windows or not s.active:
            return
        other = next((x for x in sorted(self.game.sides) if x != s.active), "")
        p = {"kind": "dice-pool", "window": when, "phase": phase, "hex": "", "attacker": s.active, "defender": other,
             "attackers": [], "chits": {}, "pairs": [], "stage": "air", "side": s.active,
             "air": {"left": {}, "passes": 0, "mission": None, "after": "", "back": ""}}
        if any(self.missions_open(s, p, side) for side in (s.active, other)):
            s.pending.insert(0, p)
            self.b.e._settle(s)  # a side with nothing to fly is not asked

    def window_targets(self, s: GameState, p: dict, side: str, chit: str) -> list[str]:
        """What ``chit`` may fly at in an air window outside a battle: a
        ground-attack aircraft at face-up enemy equipment with armour on the
        map (16.1(1)2, 16.3(1)), a recon aircraft, in its side's own player
        turn, at a face-down enemy counter under a unit on the map (16.1(1)3;
        never one in a pool)."""
        verb = self.role(chit).verb
        if verb == "ground-attack":
            return self.ground_targets(s, p, side)
        if verb == "recon" and side == s.active:
            return self.recon_targets(s, side)
        return []

    # ------------------------------------------------------------ the stages
    def open(self, s: GameState, p: dict, after: str = "", back: str = "") -> None:
        """The air combat begins (``after``: the roll it comes after, between
        two rolls; ``back``: "support" between the two sides' support chits,
        the side that allocates second first)."""
        p["stage"] = "air"
        p["side"] = self.b.order(p)[1 if back == "support" else 0]
        p.setdefault("air", {"left": {}}).update(passes=0, mission=None, after=after, back=back)

    def recon_between(self, s: GameState, p: dict) -> bool:
        """Between the two sides' support chits: the side to allocate, in its
        own player turn, may fly recon at the chits the other allocated face down."""
        side = p["side"]
        if side != s.active or not p["chits"].get(self.b.enemy(p, side)):
            return False
        p.setdefault("air", {"left": {}})["back"] = "support"
        if self.missions_open(s, p, side):
            return True
        p["air"]["back"] = ""
        return False

    def actions(self, s: GameState, p: dict) -> list[Action]:
        st, side = p["stage"], p["side"]
        if st == "air" and p.get("window"):  # outside a battle a mission names its target as it is declared
            return [Use(c, t) for c in self.missions_open(s, p, side) for t in self.window_targets(s, p, side, c)] + \
                [Done()]
        if st == "air":
            return [Use(c) for c in self.missions_open(s, p, side)] + [Done()]
        if st in ("intercept", "counter"):
            return [Use(c) for c in self.fighters(s, side)] + [Done()]
        if st == "air-reroll":
            return [Use(p["reroll"][0][1], str(i + 1)) for i in range(len(p["air"]["throw"]["faces"]))] + [Done()]
        if st == "air-target":
            m = p["air"]["mission"]
            return [Use(m["chit"], t) for t in self.mission_targets(s, p, m)] + [Done()]
        return []

    def mission_targets(self, s: GameState, p: dict, m: dict) -> list[str]:
        if m["role"] == "recon":
            return self.recon_targets(s, m["side"], p)
        if m["role"] == "bomb":
            return self.allot_targets(s, p, m["side"])
        return self.ground_targets(s, p, m["side"])

    def cost(self, w) -> int:
        """The bombing hits that neutralise a duel weapon: its armour, at least 1 (16.2(3)1-2)."""
        return max(w.armour, 1)

    def allot_targets(self, s: GameState, p: dict, side: str) -> list[str]:
        """The enemy duel weapons in the battle that ``side``'s bombing hits
        not yet allotted pay for (16.2(3): the raider allots them)."""
        left = p["air"]["left"].get(side, 0)
        if left <= 0:
            return []
        enemy, gone = self.b.enemy(p, side), self.outs(p)
        return sorted(w.id for w in self.b.setup(s, p, []).weapons if w.side == enemy and self.cost(w) <= left
                      and w.id not in gone)

    def why(self, s: GameState, p: dict, legal: list[Action]) -> str:
        st, side = p["stage"], p["side"]
        can = ", ".join(str(x) for x in legal if isinstance(x, Use)) or "none"
        if st == "air" and p.get("window"):
            return f"the air window at the start of {p['phase']} waits for {side} (16.0: an air mission outside a " \
                   f"battle): it may fly {can}, or 'done'"
        if st == "air":
            when = f" (after {p['air']['after']})" if p["air"].get("after") else \
                " (before its support chits, recon only)" if p["air"].get("back") == "support" else ""
            return f"the air combat over {p['hex']}{when} waits for {side}: it may fly {can}, or 'done'"
        if st == "air-reroll":
            th = p["air"]["throw"]
            faces = ", ".join(map(str, th["faces"]))
            n = len(th["faces"])
            return f"{side} may roll again with {p['reroll'][0][1]} a die of {self.throw_why(p)} in {p['hex']} " \
                   f"({faces}): 'use {p['reroll'][0][1]} N' (N from 1 to {n}), or 'done' to keep it"
        if st == "intercept":
            return f"{side} may intercept {p['air']['mission']['chit']} over {p['hex']}: {can}, or 'done'"
        if st == "counter":
            return f"{side} may send a fighter at {p['air']['mission']['interceptor']}: {can}, or 'done'"
        m = p["air"]["mission"]
        if m["role"] == "bomb":
            return f"{side} allots the bombing hits over {p['hex']} ({p['air']['left'].get(side, 0)} left): each " \
                   f"neutralises an enemy tank weapon for its armour, at least 1 (16.2(3)): {can}, or 'done' to keep " \
                   "them for a later bomber"
        return f"{side} picks {m['chit']}'s {'counter to turn face up' if m['role'] == 'recon' else 'target'}: " \
               f"{can}, or 'done'"

    def log(self, s: GameState, p: dict, line: str) -> None:
        if p.get("window"):  # outside a battle
            s.log.append({"turn": s.turn, "air": p["hex"], "step": line})
        else:
            s.log.append({"turn": s.turn, "battle": p["hex"], "step": line})

    def answer(self, s: GameState, p: dict, a: Action) -> None:
        st, side, air = p["stage"], p["side"], p["air"]
        if st == "air-reroll":
            self.reroll_answer(s, p, a)
            return
        if st == "air":
            if not isinstance(a, Use):  # (the stage's answers: a mission's chit, or done)
                air["passes"] += 1
                p["side"] = self.b.enemy(p, side)
                return
            verb = self.role(a.option).verb
            air["mission"] = {"side": side, "chit": a.option, "role": verb, "interceptor": "", "counter": "",
                              "shots": self.role(a.option).args.get("count" if verb == "recon" else "shots", 1)}
            if p.get("window"):  # outside a battle: the target's hex is the mission's (16.1(2))
                air["mission"]["target"] = a.unit
                counter = self.recon_target(s, a.unit) if verb == "recon" else a.unit
                p["hex"] = self.b.e.board.hex_id(s.units[A.host_of(s, counter)].hex)
                self.log(s, p, f"{a.option} ({side}) flies a {'ground-attack' if verb != 'recon' else 'recon'} "
                         f"mission at {a.unit} in {p['hex']} (16.1(1))")
            else:
                self.log(s, p, f"{a.option} ({side}) flies a {'bombing' if verb != 'recon' else 'recon'} "
                         f"mission over {p['hex']} (16.1)")
            p["stage"] = "aa"
        elif st == "intercept":
            m = air["mission"]
            if isinstance(a, Use):
                m["interceptor"] = a.option
                self.log(s, p, f"{a.option} ({side}) intercepts {m['chit']}")
                p["stage"], p["side"] = "counter", m["side"]
            else:
                p["stage"] = "mission"
        elif st == "counter":
            m = air["mission"]
            if isinstance(a, Use):
                m["counter"] = a.option
                self.log(s, p, f"{a.option} ({side}) counter-intercepts {m['interceptor']}")
            p["stage"] = "dogfight"
        elif st == "air-target":
            m = air["mission"]
            if not isinstance(a, Use):  # (a target, or done)
                self.finish(s, p)
                return
            m["shots"] -= 1
            if m["role"] == "bomb":
                self.neutralise(s, p, side, a.unit)
            elif m["role"] == "recon" and a.unit.startswith("#"):  # a support chit allocated face down
                chit = p["chits"][self.b.enemy(p, side)][int(a.unit[1:]) - 1]
                p.setdefault("seen", []).append(chit)
                self.log(s, p, f"{m['chit']} ({side}) turns {self.b.enemy(p, side)}'s support chit {a.unit} in "
                         f"{p['hex']} face up: {chit}")
            elif m["role"] == "recon":
                chit = self.recon_target(s, a.unit)
                A.face_up(self.game, s, [A.host_of(s, chit)], only=chit)
                self.log(s, p, f"{m['chit']} ({side}) turns {chit} under {A.host_of(s, chit)} face up")
            else:
                self.ground_attack(s, p, m, a.unit)  # its landing ends the mission when it is over
                return
            if (m["role"] != "bomb" and m["shots"] <= 0) or not self.mission_targets(s, p, m):
                self.finish(s, p)

    def settle(self, s: GameState, p: dict) -> bool:
        """Run the air combat's automatic stages; True when the entry moved on."""
        st, air = p["stage"], p.get("air", {})
        m = air.get("mission")
        if st == "air":
            if air["passes"] >= 2:
                if p.get("window"):  # the window outside a battle closes: the phase goes on
                    s.pending.pop(0)
                elif air.get("back") == "support":  # back to the support chits
                    p["stage"], p["side"], air["back"] = "support", self.b.order(p)[1], ""
                elif self.rolling(p):  # back to the dice (16.0(3))
                    p["stage"] = "roll"
                else:
                    self.b.to_duel(s, p)
                return True
            if not self.missions_open(s, p, p["side"]):
                air["passes"] += 1
                p["side"] = self.b.enemy(p, p["side"])
                return True
            return False
        if st == "aa":
            enemy = self.b.enemy(p, m["side"])
            if "guns" not in m:
                m["guns"] = self.guns(s, p, enemy)
            if m["guns"]:  # the next gun fires
                gun = m["guns"].pop(0)
                A.face_up(self.game, s, [A.host_of(s, gun)], only=gun)  # used: face up (3.5(6))
                test = HitTest("number", factor(self.game, s, gun, self.air.anti_air))
                self.throw(s, p, "aa", gun, m["chit"], [self.shot(s, p, test, gun, m["chit"],
                                                                   f"AA fire: {gun} at {m['chit']}")[0]])
                return True
            p["stage"] = "intercept" if self.fighters(s, enemy) else "mission"
            p["side"] = enemy
            return True
        if st == "air-reroll":
            if p["reroll"]:
                p["side"] = p["reroll"][0][0]
                return False
            self.land(s, p)
            return True
        if st in ("intercept", "counter"):
            if not self.fighters(s, p["side"]):
                p["stage"] = "mission" if st == "intercept" else "dogfight"
                return True
            return False
        if st == "dogfight":
            self.dogfight(s, p, m)
            return True
        if st == "mission":
            p["stage"], p["side"] = "air-target", m["side"]
            if m["role"] == "bomb":
                self.bomb(s, p, m)
                if p["stage"] == "air-reroll":
                    return True
            if m.get("target"):  # outside a battle: at the target it was declared with, first
                target = m.pop("target")
                if target in self.mission_targets(s, p, m):
                    self.answer(s, p, Use(m["chit"], target))
                    return True
            if not self.mission_targets(s, p, m):
                self.finish(s, p)
            return True
        if st == "air-target":
            if not self.mission_targets(s, p, m):
                self.finish(s, p)
                return True
            return False
        return False

    # ------------------------------------------------------------ the rolls
    def shot(self, s: GameState, p: dict, test: HitTest, shooter: str, target: str, why: str) -> tuple[int, bool]:
        """One die; a shot by or at an aircraft ``reroll`` names is rolled again
        once when that helps its owner (a miss by it, a hit at it)."""
        die = self.game.dice[self.b.rules.die]
        used_mine = used_theirs = False
        while True:
            d = s.roll(die, f"{why} in {p['hex']}")
            hit = test.hits(d)
            if hit and self.rerolls(target) and not used_theirs:
                used_theirs = True
                self.log(s, p, f"{why}: {d} hits; {target}'s owner rolls it again")
            elif not hit and self.rerolls(shooter) and not used_mine:
                used_mine = True
                self.log(s, p, f"{why}: {d} misses; {shooter}'s owner rolls it again")
            else:
                return d, hit

    def dogfight(self, s: GameState, p: dict, m: dict) -> None:
        """The counter-interceptor fires first (a throw landed by ``land``),
        then, if the interceptor is still there, the interceptor."""
        aa = self.air.anti_air
        if m["counter"] and not m.get("countered"):
            m["countered"] = True
            test = HitTest("number", factor(self.game, s, m["counter"], aa))
            self.throw(s, p, "counter", m["counter"], m["interceptor"], [self.shot(
                s, p, test, m["counter"], m["interceptor"], f"counter-interception: {m['counter']} at "
                f"{m['interceptor']}")[0]])
            return
        test = HitTest("number", factor(self.game, s, m["interceptor"], aa))
        self.throw(s, p, "intercept", m["interceptor"], m["chit"], [self.shot(
            s, p, test, m["interceptor"], m["chit"], f"interception: {m['interceptor']} at {m['chit']}")[0]])

    # ------------------------------------------------------------ a commander's roll again (签一览 ①)
    def throw(self, s: GameState, p: dict, kind: str, shooter: str, target: str, faces: list[int],
              rolled: bool = True) -> None:
        """The dice of one air combat roll are down (``kind``: aa, counter,
        intercept, ground, bomb): a commander kept in the battle (its side
        first as the battle's ``reroll``) may roll one of them again before
        it counts (stage ``air-reroll``); then ``land`` applies them."""
        p["air"]["throw"] = {"kind": kind, "shooter": shooter, "target": target, "faces": list(faces),
                             "stage": p["stage"], "side": p["side"]}
        # (outside a battle no commander; between the support chits they are not yet face up, 11.2(2))
        kept = self.b.rerolls.kept(p) if not p.get("window") and p["air"].get("back") != "support" else []
        if kept and rolled:
            p["stage"], p["reroll"], p["side"] = "air-reroll", kept, kept[0][0]
            return
        self.land(s, p)

    def throw_test(self, s: GameState, p: dict, th: dict) -> HitTest:
        """The hit test of the throw's dice, read again from the state."""
        g, kind = self.game, th["kind"]
        if kind == "ground":
            return self.ground_test(s, p, th["shooter"], th["target"])
        if kind == "bomb":
            return self.bomb_test(s, p, p["air"]["mission"]["side"])
        return HitTest("number", factor(g, s, th["shooter"], self.air.anti_air))

    def throw_why(self, p: dict) -> str:
        th = p["air"]["throw"]
        what = {"aa": "AA fire", "counter": "counter-interception", "intercept": "interception",
                "ground": "ground attack", "bomb": "bombing"}[th["kind"]]
        return f"{what}: {th['shooter']}" + (f" at {th['target']}" if th["target"] else "")

    def throw_hits(self, s: GameState, p: dict) -> list[bool]:
        th = p["air"]["throw"]
        test = self.throw_test(s, p, th)
        return [test.hits(d) for d in th["faces"]]

    def reroll_answer(self, s: GameState, p: dict, a: Action) -> None:
        side, cmdr = p["reroll"].pop(0)
        if not isinstance(a, Use):
            return
        th = p["air"]["throw"]
        i = int(a.unit) - 1
        old = th["faces"][i]
        th["faces"][i] = s.roll(self.game.dice[self.b.rules.die], f"{cmdr} rolls again: {self.throw_why(p)} in "
                                f"{p['hex']}")
        p.setdefault("used", []).append(cmdr)  # its one choice is made
        self.log(s, p, f"{cmdr} ({side}) rolls again the die of {self.throw_why(p)}: {old}, now {th['faces'][i]}")
        p["reroll"] = []

    def land(self, s: GameState, p: dict) -> None:
        """The throw's dice count: what they do, and where the air combat goes on."""
        th = p["air"].pop("throw")
        p["stage"], p["side"] = th["stage"], th["side"]
        m = p["air"]["mission"]
        test = self.throw_test(s, p, th)
        kind, shooter, target = th["kind"], th["shooter"], th["target"]
        die = th["faces"][0]
        hit = test.hits(die)
        if kind == "aa":
            enemy = self.b.enemy(p, m["side"])
            self.log(s, p, f"AA fire: {shooter} ({enemy}) at {target} ({test.text()}): {die}, "
                     + ("hit: back to its cup" if hit else "missed"))
            if hit:
                self.finish(s, p)
        elif kind == "counter":
            self.log(s, p, f"counter-interception: {shooter} ({m['side']}) at {target} ({test.text()}): "
                     f"{die}, " + ("shot down: out of the game" if hit else "missed"))
            if hit:
                s.place(m["interceptor"], None, "removed")
                m["interceptor"] = ""
                p["stage"] = "mission"
        elif kind == "intercept":
            self.log(s, p, f"interception: {shooter} ({self.b.enemy(p, m['side'])}) at {target} ({test.text()}): "
                     f"{die}, " + ("shot down: out of the game" if hit else "missed"))
            if hit:
                s.place(m["chit"], None, "removed")
                self.finish(s, p)
            else:
                p["stage"] = "mission"
        elif kind == "ground":
            self.land_ground(s, p, m, target, test, die, hit)
        else:
            self.land_bomb(s, p, m, test, th["faces"])

    def bomb_test(self, s: GameState, p: dict, side: str) -> HitTest:
        if side == p["defender"]:
            return read_test(self.air.defender) or HitTest("number", 0)
        if self.air.against:  # a defending position (a bunker): the bombing hits on its number (签一览 阵地 1)
            held = self.b.setup(s, p, []).defending
            cell = next((c for sel, c in self.air.against if any(self.game.matches(i, sel) for i in held)), None)
            if cell is not None:
                return read_test(cell) or HitTest("number", 0)
        target = self.b.e.hex(p["hex"])
        crossed = across(self.b.e.board, s, p["attackers"], target)
        return hit_test(self.game, self.b.e.board, f"column {self.air.attacker}", target, crossed, p["defender"])

    def bomb(self, s: GameState, p: dict, m: dict) -> None:
        """16.2(1)1, (3): bombing dice as artillery; the hits neutralise duel weapons."""
        side, chit = m["side"], m["chit"]
        n = factor(self.game, s, chit, self.role(chit).args["factor"])
        test = self.bomb_test(s, p, side)
        faces = [s.roll(self.game.dice[self.b.rules.die], f"bombing: {chit} in {p['hex']}") if test.rolls else 1
                 for _ in range(n)]
        self.throw(s, p, "bomb", chit, "", faces, test.rolls)

    def land_bomb(self, s: GameState, p: dict, m: dict, test: HitTest, faces: list[int]) -> None:
        side, chit = m["side"], m["chit"]
        n = len(faces)
        hits = sum(test.hits(d) for d in faces)
        self.log(s, p, f"bombing: {chit} ({side}) {n} dice ({test.text()}) {','.join(map(str, faces))}: "
                 f"{hits} damage")
        if hits and self.rolling(p):
            self.event(p, "damage", side, chit, hits)
        elif hits:
            p.setdefault("track", []).append([side, chit, hits])
        p["air"]["left"][side] = p["air"]["left"].get(side, 0) + hits  # several bombers' hits add up (签一览)

    def neutralise(self, s: GameState, p: dict, side: str, wid: str) -> None:
        """The raider allots bombing hits to an enemy duel weapon: it is
        neutralised for the rest of the battle (16.2(3))."""
        w = self.b.setup(s, p, []).weapon(wid)
        p["air"]["left"][side] -= self.cost(w)
        if self.rolling(p):
            self.event(p, "out", w.side, wid)
        else:
            p.setdefault("neutral", []).append(wid)
        self.log(s, p, f"bombing: {side} allots {self.cost(w)} hit{'s' * (self.cost(w) != 1)} to {wid}: it is "
                 "neutralised for this battle (16.2(3))")

    def neutralised(self, s: GameState, p: dict, side: str, points: int) -> tuple[list[str], int]:
        """The enemy duel weapons ``points`` bombing hits neutralise when the
        raider allots them as the bots do: each costs its armour (at least 1),
        the strongest (fire, then armour) first that the points still pay for
        (16.2(3))."""
        st = self.b.setup(s, p, [])
        enemy, gone = self.b.enemy(p, side), self.outs(p)
        out = []
        for w in sorted((w for w in st.weapons if w.side == enemy and w.id not in gone), key=self.strength):
            cost = self.cost(w)
            if cost <= points:
                out.append(w.id)
                points -= cost
        return out, points

    @staticmethod
    def strength(w) -> tuple:
        """The order the bots allot bombing hits in: the strongest weapon first."""
        return -w.fire, -w.armour, w.id

    def ground_test(self, s: GameState, p: dict, chit: str, target: str) -> HitTest:
        """16.3(2): the column's cell of the target's hex, hexsides ignored; ◆:
        a firing round (12.0), the aircraft's factor against the target's
        armour or, for a counter of the defending stack (or one outside any
        battle), the defence level of its hex when that is higher (12.0(2)),
        its positions and the features that work for its side counted, the
        hexsides not (16.3(2)2: "格界线地形的修正无效")."""
        g, rules, board = self.game, self.b.rules, self.b.e.board
        host = A.host_of(s, target)
        where, side = s.units[host].hex, s.units[host].side
        test = hit_test(g, board, f"column {self.air.ground}", where, (), side)
        if test.kind == "round":
            guard = factor(g, s, target, rules.armour)
            if rules.level and (p.get("window") or (side == p.get("defender") and board.hex_id(where) == p["hex"])):
                position = max((factor(g, s, i, rules.position) for i in stack_items(s, host)), default=0)
                guard = max(guard, defence_level(g, board, rules.level, where, (), position, side))
            return firing_round(factor(g, s, chit, self.role(chit).args["factor"]), guard)
        return test

    def ground_attack(self, s: GameState, p: dict, m: dict, target: str) -> None:
        chit = m["chit"]
        test = self.ground_test(s, p, chit, target)
        die, _ = self.shot(s, p, test, chit, target, f"ground attack: {chit} at {target}")
        self.throw(s, p, "ground", chit, target, [die])

    def land_ground(self, s: GameState, p: dict, m: dict, target: str, test: HitTest, die: int, hit: bool) -> None:
        side, chit = m["side"], m["chit"]
        self.log(s, p, f"ground attack: {chit} ({side}) at {target} ({test.text()}): {die}, "
                 + ("missed" if not hit else "hit: it goes back to its cup (16.3(3))" if p.get("window") else
                    "hit: 1 damage, and it goes back to its cup"))
        if hit and self.rolling(p):  # the rolls made stand; it goes back to its cup when the battle is applied
            self.event(p, "damage", side, chit, 1)
            self.event(p, "out", s.units[target].side, target)
            p["air"].setdefault("downed", []).append(target)
        elif hit:
            if not p.get("window"):  # outside a battle no track (16.3(3))
                p.setdefault("track", []).append([side, chit, 1])
            A.remove(self.game, s, target, f"hit by {chit} (16.2(2))")
        if m["shots"] <= 0 or not self.mission_targets(s, p, m):
            self.finish(s, p)

    def finish(self, s: GameState, p: dict) -> None:
        """The mission is over: what flew and is still in play goes back to its cup."""
        m = p["air"]["mission"]
        for side, c in ((m["side"], m["chit"]), (self.b.enemy(p, m["side"]), m["interceptor"]),
                        (m["side"], m["counter"])):
            if c and s.units[c].box != "removed":
                back = self.b._support_pool(side, self.b.rules.support_to)
                if back:
                    s.place(c, None, f"pool:{back}")
        p["air"]["mission"] = None
        p["air"]["passes"] = 0
        p["stage"] = "air"
        p["side"] = self.b.enemy(p, m["side"])

    # ------------------------------------------------------------ odds and bots
    def bomb_outcomes(self, s: GameState, p: dict, side: str, chit: str) -> list[tuple[Fraction, int, list[str]]]:
        """(probability, hits, neutralised) of each number of hits of a bomber."""
        n = factor(self.game, s, chit, self.role(chit).args["factor"])
        q = self.bomb_test(s, p, side).probability(self.game.dice[self.b.rules.die].sides)
        left = p["air"]["left"].get(side, 0) if p.get("air") else 0
        return [(pr, k, self.neutralised(s, p, side, left + k)[0]) for k, pr in binomial(n, q).items() if pr]

    def chance(self, s: GameState, p: dict, side: str, chit: str) -> Fraction:
        """``side``'s chance to win (a tie half) if ``chit`` flies its mission
        and reaches the battle (AA fire and fighters not counted): exact over
        the bombing dice; a ground-attack aircraft shoots its best target."""
        verb = self.role(chit).verb
        track = [*p.get("track", [])]
        if verb == "bomb":
            total = Fraction(0)
            for pr, k, gone in self.bomb_outcomes(s, p, side, chit):
                total += pr * self.b.chance(s, p, p["chits"], (*p.get("neutral", ()), *gone), None,
                                            [*track, [side, chit, k]], side)
            return total
        if verb == "ground-attack":
            best = self.b.chance(s, p, p["chits"], None, None, track, side)
            base = best
            for t in self.ground_targets(s, p, side):
                q = self.ground_test(s, p, chit, t).probability(self.game.dice[self.b.rules.die].sides)
                c = q * self.b.chance(s, p, p["chits"], (*p.get("neutral", ()), t), None, [*track, [side, chit, 1]],
                                      side) + (1 - q) * base
                best = max(best, c)
            return best
        return self.b.chance(s, p, p["chits"], None, None, track, side)

    def default(self, s: GameState, p: dict, acts: list[Action]) -> Action:
        st, side = p["stage"], p["side"]
        uses = [a for a in acts if isinstance(a, Use)]
        if not uses:
            return Done()
        g = self.game
        if st == "air-reroll":
            return self.reroll_default(s, p, uses)
        if st in ("intercept", "counter"):  # the best fighter goes
            return max(uses, key=lambda a: (factor(g, s, a.option, self.air.anti_air), a.option))
        if p.get("window"):  # outside a battle
            return self.window_default(s, p, uses)
        if st == "air" and (p.get("air") or {}).get("back") == "support":  # recon only
            return self.recon_between_default(s, p, uses)
        if st == "air":  # the mission that raises the chance to win most, if by 5 points or more
            base = self.b.chance(s, p, p["chits"], None, None, None, side)
            best, gain = Done(), Fraction(1, 20)
            for a in uses:
                if self.role(a.option).verb == "recon":
                    continue
                c = self.chance(s, p, side, a.option) - base
                if c >= gain:
                    best, gain = a, c
            return best
        m = p["air"]["mission"]
        if m["role"] == "recon":
            return self.recon_pick(s, side, uses)
        if m["role"] == "bomb":  # the strongest weapon the hits pay for (as ``neutralised``)
            st = self.b.setup(s, p, [])
            ws = {w.id: w for w in st.weapons}
            return min(uses, key=lambda a: self.strength(ws[a.unit]) if a.unit in ws else (1, 0, a.unit))
        track = [*p.get("track", []), [side, m["chit"], 1]]
        return min(uses, key=lambda a: (-self.b.chance(s, p, p["chits"], (*p.get("neutral", ()), a.unit), None,
                                                       track, side), a.unit))

    # ------------------------------------------------------------ bots: recon and outside a battle
    def worth(self, s: GameState, cid: str) -> int:
        """What a counter is worth to the bots: the sum of its factors."""
        g = self.game
        return sum(factor(g, s, cid, f) for f in g.unit_classes[g.counters[cid].unit_class].factors)

    def through(self, s: GameState, p: dict, side: str, hid: str) -> Fraction:
        """The chance that a mission of ``side`` over ``hid`` gets through the
        enemy's AA guns (its fighters not counted)."""
        g, sides = self.game, self.game.dice[self.b.rules.die].sides
        out = Fraction(1)
        for gun in self.guns(s, dict(p, hex=hid), self.b.enemy(p, side)):
            out *= 1 - HitTest("number", factor(g, s, gun, self.air.anti_air)).probability(sides)
        return out

    def near_hosts(self, s: GameState, side: str) -> dict[str, int]:
        """The enemy units next to ``side``'s units, with how many face-down
        counters each carries: what the side may attack next."""
        mine = {u.hex for u in s.units.values() if u.side == side and u.hex is not None}
        out = {}
        for host in sorted(s.attached):
            u = s.units[host]
            if u.side != side and u.hex is not None and any(hex_distance(u.hex, h) == 1 for h in mine):
                n = len(self.face_down_under(s, host))
                if n:
                    out[host] = n
        return out

    def window_default(self, s: GameState, p: dict, uses: list[Use]) -> Action:
        """The greedy bot outside a battle.  A ground attack at the enemy
        counter worth most (its factors) whose chance to be hit, the AA guns
        over it passed, is at least even; recon (``recon_worth``) at the start
        of its own combat phase; else it passes.  Then the further shots and
        recon targets as ``recon_pick`` and the best chance times worth."""
        side, sides = p["side"], self.game.dice[self.b.rules.die].sides
        m = p["air"]["mission"]
        if p["stage"] == "air-target" and m["role"] == "recon":
            return self.recon_pick(s, side, uses)
        if p["stage"] == "air-target":  # Rudel's second shot: the best chance times worth
            return max(uses, key=lambda a: (self.ground_test(s, p, m["chit"], a.unit).probability(sides)
                                            * self.worth(s, a.unit), a.unit))
        best, score = Done(), Fraction(0)
        near = self.near_hosts(s, side) if p["window"] == "combat" and side == s.active else {}
        for a in uses:
            verb = self.role(a.option).verb
            if verb == "ground-attack":
                host = A.host_of(s, a.unit)
                q = self.ground_test(s, p, a.option, a.unit).probability(sides) * \
                    self.through(s, p, side, self.b.e.board.hex_id(s.units[host].hex))
                sc = q * self.worth(s, a.unit) if q >= Fraction(1, 2) else Fraction(0)
            else:
                sc = self.recon_worth(s, p, side, a.unit, near)
            if sc > score:
                best, score = a, sc
        return best

    def recon_worth(self, s: GameState, p: dict, side: str, target: str, near: dict[str, int]) -> Fraction:
        """A recon outside a battle is worth flying just before the side
        chooses its attacks (at the start of its combat phase), when the enemy
        units next to its own carry 2 face-down counters or more: the bot
        judges an attack from what it sees, a guess for what it cannot see
        (``runtime.bots.seen``); turned up, they count for what they are.  Its
        target is the first of those under the unit carrying most."""
        host = target.partition("#")[0]
        if sum(near.values()) < 2 or host not in near or near[host] < max(near.values()) or \
                not target.endswith("#1") or host != min(h for h, n in near.items() if n == near[host]):
            return Fraction(0)
        q = self.through(s, p, side, self.b.e.board.hex_id(s.units[host].hex))
        return q * min(3, sum(near.values())) if q >= Fraction(1, 2) else Fraction(0)

    def recon_between_default(self, s: GameState, p: dict, uses: list[Use]) -> Action:
        """Recon between the two sides' support chits: flown when the enemy
        allocated 2 chits or more face down, which the side answers with its
        own (the bot's view holds a guess for them until they are turned up)."""
        enemy = self.b.enemy(p, p["side"])
        hidden = [c for c in p["chits"].get(enemy, ()) if c not in p.get("seen", ())]
        return uses[0] if len(hidden) >= 2 else Done()

    def recon_pick(self, s: GameState, side: str, uses: list[Use]) -> Action:
        """The counter a recon turns up: an allocated support chit first, then
        one under an enemy unit next to the side's, the unit carrying most first."""
        near = self.near_hosts(s, side)

        def key(a: Use):
            host = a.unit.partition("#")[0]
            return (host != "", -near.get(host, 0), a.unit)
        return min(uses, key=key)

    def reroll_default(self, s: GameState, p: dict, uses: list[Use]) -> Action:
        """The bots' commander rolls again the first die that went against its
        side: a miss by its own shooter, a hit by the enemy's (as a Molotov
        strike's die)."""
        th = p["air"]["throw"]
        m = p["air"]["mission"]
        mine = {"aa": False, "counter": True, "intercept": False, "ground": True, "bomb": True}[th["kind"]] == \
            (p["side"] == m["side"])  # the shooter is the raider's side for counter, ground, bomb
        for i, hit in enumerate(self.throw_hits(s, p)):
            if hit != mine:
                return next((a for a in uses if a.unit == str(i + 1)), Done())
        return Done()
