"""What a click does in the playtest: on the map (move, attack, retreat, advance, loss,
place, activate, withdraw) and in the Decision and Combat panels (choose, roll, fight).
Methods of :class:`editor.play.PlayWindow`."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QListWidgetItem

from runtime.actions import Advance, Attack, Displace, Done, Fire, Hit, Move, Retreat
from runtime.combat.odds import combat_odds, fmt_num
from runtime.hexes import Hex
from runtime.movement import show_mp, why_not
from runtime.runner import Activate, Place, Withdraw

from . import playtext as T
from .playbots import AGENT_TITLES


class PlayClicks:
    # -- map clicks -------------------------------------------------------------------------------
    def click(self, hid: str, right: bool = False, unit: str = "") -> None:
        """A click on a hex given by its ID, on the counter ``unit`` if given
        (for scripts and tests)."""
        self.click_hex(self.hex(hid), right, unit)

    def click_hex(self, h: Hex | None, right: bool = False, unit: str = "") -> None:
        """A click on a hex; ``unit``: the counter under the mouse ("" if none)."""
        if right or h is None:
            self.clear_selection_and_refresh()
            return
        self.view.mp.options.selected = h
        if not self.timeline.at_end:
            self.say(f"You are looking at decision {self.timeline.position} of {self.timeline.end}: press >| to "
                     "play on.", error=True)
            self.refresh()
            return
        s = self.state
        side = self.runner.to_move(s)
        if side is None:
            self.say("The game is over.")
            return
        if self.agents.get(side, "human") != "human":
            self.say(f"It is {T.side_title(self.runner, side)}'s decision, played by the "
                     f"{AGENT_TITLES[self.agents[side]].lower()}.", error=True)
            return
        ask = self.runner.effect_asks(s)
        k = ask["decision"] if ask is not None and ask["decision"] in ("fire", "relocate") and not s.pending \
            else self.kind()
        handler = getattr(self, f"_click_{k}", None)
        if handler is None:
            units = ", ".join(u.id for u in s.units_at(h))
            self.say(f"{self.hid(h)}{': ' + units if units else ''}. Answer in the Decision panel.")
            self.refresh()
            return
        handler(h, unit)

    def _click_fire(self, h: Hex, unit: str = "") -> None:
        """A fire effect asks: an enemy hex it may fire on becomes the target (the odds panel shows the
        fire attack; Roll fires)."""
        kinds = [a.kind for a in self.legal() if isinstance(a, Fire) and a.target == self.hid(h)]
        if not kinds:
            self.say(f"no fire attack can reach {self.hid(h)} now", error=True)
            self.refresh()
            return
        self.target = h
        self.fire_kind = self.fire_kind if self.fire_kind in kinds else kinds[0]
        self.say(f"{self.hid(h)}: {self.game.fire_attacks[self.fire_kind].title}. Fire fires; the Decision list "
                 "offers the other kinds.")
        self.refresh()

    def _click_movement(self, h: Hex, unit: str = "") -> None:
        s = self.state
        movable = [u.id for u in s.units_at(h) if u.id in set(self.movable())]
        if self.sel_unit and h != s.units[self.sel_unit].hex:
            mode, why = self.mode_to(self.sel_unit, h)
            if mode is not None:
                self.act(Move(self.sel_unit, self.hid(h), mode))
                return
            if movable:  # another of your units: select it instead
                self.select_unit(unit if unit in movable else movable[0])
                return
            if not why:
                _, why = self.move_range(self.sel_unit)
            reason = why or why_not(self.game, self.board, s, self.sel_unit, h, self.mode() or None)
            self.say(reason or f"{self.sel_unit} cannot move to {self.hid(h)}", error=True)
            self.refresh()
            return
        if unit and unit not in movable and s.units[unit].side == s.active:  # a counter that cannot move
            self.say(self.why_not_moving(unit), error=True)
            self.refresh()
            return
        if movable:
            if unit in movable and unit != self.sel_unit:  # the counter clicked
                self.select_unit(unit)
            elif self.sel_unit in movable:  # a second click on the stack: the next unit in it
                i = movable.index(self.sel_unit)
                self.select_unit(movable[(i + 1) % len(movable)])
            else:
                self.select_unit(movable[0])
            return
        here = s.units_at(h)
        if any(u.side == s.active for u in here):
            why = [self.why_not_moving(u.id) for u in here if u.side == s.active]
            self.say("; ".join(why) or f"nothing in {self.hid(h)} can move", error=True)
        elif here:
            self.say(f"{self.hid(h)} holds enemy units: select one of your units first", error=True)
        else:
            self.say("Select one of your activated units first (a green ring marks them).", error=True)
        self.refresh()

    def why_not_moving(self, uid: str) -> str:
        """Why one of the active side's units cannot move now."""
        s = self.state
        eng = self.runner.engine
        if eng.immobile(uid):
            return f"{uid} never moves"
        if s.activated and uid not in s.activated:
            return f"{uid} is not activated"
        if eng.phase_bars(s, uid):
            return eng.phase_bars(s, uid)
        reasons = [self.move_range(uid, m)[1] for m in T.phase_modes(self.runner, s)]
        return "; ".join(dict.fromkeys(r for r in reasons if r)) or f"{uid} has nowhere to go"

    def select_unit(self, uid: str) -> None:
        self.sel_unit = uid
        s = self.state
        if self.kind() == "movement":
            rs = self.ranges(uid)
            if rs and self.mode() not in rs:  # the menu follows the unit: the mode it may use now
                self.set_mode(next(iter(rs)))
            r, why = self.move_range(uid)
            if r is None:
                self.say(why, error=True)
            else:
                other = [T.mode_title(self.runner, m) for m in rs if m != self.mode()]
                n = len(r.destinations)
                self.say(f"{uid}: {show_mp(r.mp)} MP by {T.mode_title(self.runner, self.mode())}, "
                         f"{n} hex{'es' * (n != 1)} within reach" +
                         (f" (blue: by {', '.join(other)})" if other else "") + ". Click one to move.")
        elif self.relocating(uid):
            n = len(self.runner.effect_asks(s)["hexes"][uid])
            self.say(f"{uid} may be relocated to {n} hex{'es' * (n != 1)} (highlighted): click one, or "
                     "'Leave the rest' to keep the HQs where they are.")
        else:
            self.say(f"{uid} selected")
        if s.units[uid].hex is not None:
            self.view.mp.options.selected = s.units[uid].hex
        self.refresh()

    def _click_combat(self, h: Hex, unit: str = "") -> None:
        if self.firepower:
            self._click_battle_hex(h)
            return
        s = self.state
        here = s.units_at(h)
        if here and here[0].side != s.active:  # an enemy hex: the target
            if h not in self.attack_targets():
                eligible = self.eligible_attackers(h)
                if h in s.attacked_hexes:
                    why = f"{self.hid(h)} has already been attacked this combat segment"
                elif eligible and self.game.dice_pool is not None:
                    why = f"{self.hid(h)} cannot be attacked now"
                elif eligible:
                    rep = combat_odds(self.game, self.board, s, eligible, h, env=self.runner.env)
                    why = rep.errors[0] if rep.errors else rep.column.reason or f"{self.hid(h)} cannot be attacked"
                else:
                    why = f"none of your units that may attack is next to {self.hid(h)}"
                self.say(why, error=True)
                self.refresh()
                return
            self.target = h
            self.attackers = self.eligible_attackers(h)
            if self.game.dice_pool is not None:
                self.say(f"Battle in {self.hid(h)}: the Combat panel shows the dice pools and the chance to win. "
                         "Fight when ready.")
                self.refresh()
                return
            rep = self.odds_report()
            self.say(f"Attack on {self.hid(h)}: " + (f"{fmt_num(rep.attack)} to {fmt_num(rep.defence)}, column "
                                                     f"{rep.column.label}" if rep and rep.legal else
                                                     (rep.validate if rep else "")) +
                     (". Declare when ready." if self.game.combat.declare_first else ". Roll when ready."),
                     error=bool(rep and not rep.legal))
            self.refresh()
            return
        if here:  # own units: into or out of the attack
            if self.target is None:
                self.say("Click an enemy hex first: it becomes the target.", error=True)
                return
            eligible = set(self.eligible_attackers(self.target))
            mine = [u.id for u in here if u.id in eligible]
            if not mine:
                self.say(f"nothing in {self.hid(h)} can attack {self.hid(self.target)}", error=True)
                return
            if all(u in self.attackers for u in mine):
                self.attackers = [u for u in self.attackers if u not in mine]
            else:
                self.attackers = sorted(set(self.attackers) | set(mine))
            self.refresh()
            return
        self.say("Click an enemy hex to attack it.", error=True)

    def _click_battle_hex(self, h: Hex) -> None:
        """Firepower combat: a click on a battle hex shows its battle."""
        battles = self.attack_targets()
        if h not in battles:
            self.say(f"There is no battle in {self.hid(h)}: battles are fought where your units moved in with enemy "
                     "units" + (f" ({', '.join(sorted(self.hid(x) for x in battles))})." if battles else
                                ", and none is left: End combat."), error=True)
            self.refresh()
            return
        s = self.state
        self.target = h
        self.attackers = sorted(u.id for u in s.units_at(h) if u.side == s.active)
        rep = self.runner.engine.battle_report(s, target=h)
        self.say(f"Battle in {self.hid(h)}: {T.side_title(self.runner, rep.attacker)} "
                 f"{rep.fire[rep.attacker].total} against {T.side_title(self.runner, rep.defender)} "
                 f"{rep.fire[rep.defender].total} before battle options. Fight when ready.")
        self.refresh()

    def _click_battle(self, h: Hex, unit: str = "") -> None:
        """A firepower battle being fought: a click on a counter (or a hex with
        one candidate) takes a point of firepower; on a highlighted hex, retreats."""
        s = self.state
        p = s.pending[0]
        acts = self.legal()
        if p["stage"] == "absorb":
            hits = [a for a in acts if isinstance(a, Hit) and (a.unit == unit if unit else s.units[a.unit].hex == h)]
            if len(hits) == 1:
                self.act(hits[0])
            elif hits:
                self.say(f"Click one of the counters in {self.hid(h)} (or choose in the list): "
                         f"{', '.join(a.unit for a in hits)}", error=True)
            else:
                self.say(f"{unit or 'nothing in ' + self.hid(h)} cannot take the point: click one of "
                         f"{T.side_title(self.runner, p['side'])}'s units in {p['hex']}", error=True)
        elif p["stage"] == "retreat":
            opts = [a for a in acts if isinstance(a, Retreat) and a.path and self.hex(a.path[0]) == h]
            if opts:
                self.act(opts[0])
            else:
                self.say(f"{p['retreats'][0]} cannot retreat to {self.hid(h)}: pick a highlighted hex", error=True)
        else:
            self.say("Battle options are chosen in the Decision list; the Combat panel shows what they add.",
                     error=True)

    def battle_unit_clicked(self, item: QListWidgetItem) -> None:
        """A unit clicked in the battle panel's list: it takes a point of firepower."""
        if not self.firepower or self.kind() != "battle" or not self.human_to_move():
            return
        uid = item.data(Qt.UserRole)
        if Hit(uid) in self.legal():
            self.act(Hit(uid))
        else:
            self.say(f"{uid} cannot take a point now", error=True)

    def _click_retreat(self, h: Hex, unit: str = "") -> None:
        opts = [a for a in self.legal() if isinstance(a, Retreat) and a.path and self.hex(a.path[-1]) == h]
        if not opts:
            self.say(f"{self.state.pending[0]['unit']} cannot retreat to {self.hid(h)}: pick a highlighted hex",
                     error=True)
            return
        self.act(opts[0])

    _click_follow = _click_retreat  # an HQ retreating with a stack-mate (AVD 6 c)

    def _click_displace(self, h: Hex, unit: str = "") -> None:
        """Where a displaced HQ goes (AVD 移动 4 f)."""
        opts = [a for a in self.legal() if isinstance(a, Displace) and self.hex(a.to) == h]
        if not opts:
            self.say(f"{self.state.pending[0]['unit']} cannot go to {self.hid(h)}: pick a highlighted hex", error=True)
            return
        self.act(opts[0])

    def relocating(self, uid: str) -> bool:
        """Whether a relocate effect asks now and ``uid`` may be relocated."""
        ask = self.runner.effect_asks(self.state)
        return ask is not None and ask["decision"] == "relocate" and uid in ask["units"]

    def _click_relocate(self, h: Hex, unit: str = "") -> None:
        """An HQ its owner may relocate (AVD 补给 4 j): a click on it selects it, a click on a
        highlighted hex puts the selected one there."""
        ask = self.runner.effect_asks(self.state)
        here = [u.id for u in self.state.units_at(h) if u.id in ask["units"]]
        opts = [a for a in self.legal() if isinstance(a, Displace) and a.unit == self.sel_unit and self.hex(a.to) == h]
        if opts:
            self.act(opts[0])
        elif here:
            self.select_unit(unit if unit in here else here[0])
        elif self.sel_unit in ask["units"]:
            self.say(f"{self.sel_unit} cannot be relocated to {self.hid(h)}: click a highlighted hex", error=True)
        else:
            self.say(f"Select an HQ to relocate first: {', '.join(ask['units'])}", error=True)

    def _click_advance(self, h: Hex, unit: str = "") -> None:
        opts = [a for a in self.legal() if isinstance(a, Advance) and self.hex(a.path[-1]) == h]
        here = [u.id for u in self.state.units_at(h)]
        p = self.state.pending[0]
        pick = [u for u in here if u in p["units"] and u not in p["advanced"]]
        if pick and not opts:  # a click on an attacker: it is the one to advance
            self.select_unit(pick[0])
            return
        if self.sel_unit:
            mine = [a for a in opts if a.unit == self.sel_unit]
            opts = mine or opts
        if not opts:
            self.say(f"no unit can advance to {self.hid(h)}: pick a highlighted hex", error=True)
            return
        self.act(opts[0])

    def _click_loss(self, h: Hex, unit: str = "") -> None:
        opts = [a for a in self.legal() if self.state.units[a.unit].hex == h]
        opts = [a for a in opts if a.unit == unit] or opts
        if len(opts) == 1:
            self.act(opts[0])
        elif opts:
            self.say(f"several units in {self.hid(h)} may lose the step: choose in the Decision list", error=True)
        else:
            self.say(f"no unit in {self.hid(h)} takes part in this loss", error=True)

    def _click_place(self, h: Hex, unit: str = "") -> None:
        opts = [a for a in self.legal() if isinstance(a, Place) and a.at == self.hid(h)]
        if not opts:
            why = self.runner._why(self.state, Place(self.sel_unit or "?", self.hid(h))) if self.kind() == "place" \
                else "pick a highlighted hex"
            self.say(f"{self.sel_unit or 'a reinforcement'} cannot be placed in {self.hid(h)}: {why}", error=True)
            return
        mine = [a for a in opts if a.unit == self.sel_unit]
        self.act((mine or opts)[0])

    _click_rebuild = _click_place
    _click_deploy = _click_place

    def placing(self) -> list[str]:
        """The units waiting to be placed (reinforcements), rebuilt or set up."""
        if self.kind() == "place":
            return list(self.state.step.get("units", []))
        return sorted({a.unit for a in self.legal() if isinstance(a, Place)})

    def _click_activate(self, h: Hex, unit: str = "") -> None:
        opts = [a for a in self.legal() if isinstance(a, Activate) and self.state.units[a.unit].hex == h]
        if opts:
            self.act(opts[0])
        else:
            self.say(f"nothing in {self.hid(h)} may be activated", error=True)

    def _click_commander(self, h: Hex, unit: str = "") -> None:
        """A chain per tag (AVD 3 d): the clicked unit (or the first one in the hex) of the tag commands it."""
        opts = [a for a in self.legal() if isinstance(a, Activate) and self.state.units[a.unit].hex == h]
        mine = [a for a in opts if a.unit == unit]
        if opts:
            self.act((mine or opts)[0])
        else:
            self.say(f"no {self.state.step.get('group')} unit in {self.hid(h)} may command the chain", error=True)

    def _click_withdraw(self, h: Hex, unit: str = "") -> None:
        opts = [a for a in self.legal() if isinstance(a, Withdraw) and self.state.units[a.unit].hex == h]
        if opts:
            self.act(opts[0])
        else:
            self.say(f"nothing in {self.hid(h)} may be withdrawn", error=True)

    def hover_hex(self, h: Hex | None) -> None:
        self.hover = h
        ov = self.view.mp.overlay
        path: list[Hex] = []
        reach = ""
        if h is not None and self.sel_unit and self.kind() == "movement" and self.timeline.at_end:
            mode, _ = self.mode_to(self.sel_unit, h)
            if mode is not None:
                r = self.ranges(self.sel_unit)[mode]
                path = r.path_to(h)
                reach = (f"{self.sel_unit} to {self.hid(h)}: {show_mp(r.cost[h])} MP "
                         f"by {T.mode_title(self.runner, mode)} via {'→'.join(self.hid(x) for x in path)}")
                self.statusBar().showMessage(reach, 4000)
        elif h is not None and self.timeline.at_end and self.kind() in ("retreat", "follow", "advance", "battle") and \
                self.human_to_move():
            for a in self.legal():
                if isinstance(a, (Retreat, Advance)) and a.path and self.hex(a.path[-1]) == h and \
                        (self.kind() in ("retreat", "follow") or not self.sel_unit or a.unit == self.sel_unit):
                    path = [self.state.units[a.unit].hex] + [self.hex(x) for x in a.path]
                    break
        if path != ov.path:
            ov.path = path
            self.view.refresh()
        self.view.viewport().setToolTip(T.hex_tooltip(self.runner, self.shown_state(), h, reach=reach) if h is not None
                                        and h in self.game.map.hexes else "")

    # -- the decision list ------------------------------------------------------------------------
    def item_clicked(self, item: QListWidgetItem) -> None:
        kind, value = item.data(Qt.UserRole)
        if kind == "select":
            self.select_unit(value)
        elif kind == "action" and isinstance(value, Attack):  # a battle (firepower): shown before it is fought
            self._click_battle_hex(self.hex(value.target))
        elif kind == "action" and isinstance(value, Fire):  # a fire attack: its odds in the Combat panel
            self.target = self.hex(value.target)
            self.fire_kind = value.kind
            self.refresh()
        elif kind == "attack":
            self.target = self.hex(value.target)
            self.attackers = list(value.attackers)
            self.refresh()

    def item_activated(self, item: QListWidgetItem) -> None:
        kind, value = item.data(Qt.UserRole)
        if kind == "action":
            self.act(value)
        else:
            self.item_clicked(item)

    def do_selected(self) -> None:
        it = self.decision.list.currentItem()
        if it is None:
            self.say("Choose an answer in the list first.", error=True)
            return
        self.item_activated(it)

    def choose(self, text: str) -> bool:
        """Take the listed answer whose action reads ``text`` (scripts, tests)."""
        for i in range(self.decision.list.count()):
            it = self.decision.list.item(i)
            kind, value = it.data(Qt.UserRole)
            if str(value) == text:
                self.decision.list.setCurrentItem(it)
                self.do_selected()
                return True
        return False

    def press_done(self) -> None:
        if Done() in self.legal():
            self.act(Done())
        else:
            self.say("'done' is not an answer now", error=True)

    def roll(self) -> None:
        if self.firepower:
            self.fight()
            return
        if self.game.dice_pool is not None:
            a = Attack(self.hid(self.target), tuple(self.attackers)) if self.target is not None else None
            if a is None or a not in self.legal():
                self.say("Choose a battle first: click an enemy hex next to your units.", error=True)
                return
            self.act(a)
            return
        rep = self.odds_report()
        if rep is None:
            self.say("Choose a target first: click an enemy hex.", error=True)
            return
        if not rep.legal:
            self.say(rep.validate, error=True)
            return
        if rep.fire:
            self.act(Fire(rep.fire, self.hid(self.target)))
            return
        self.act(Attack(self.hid(self.target), tuple(self.attackers)))

    def fight(self) -> None:
        """Firepower combat: open the battle shown in the Combat panel."""
        a = next((a for a in self.legal() if isinstance(a, Attack) and self.hex(a.target) == self.target), None)
        if a is None:
            self.say("Choose a battle first: click a battle hex (outlined in red).", error=True)
            return
        self.act(a)

    def attackers_ticked(self, item: QListWidgetItem) -> None:
        uid = item.data(Qt.UserRole)
        on = item.checkState() == Qt.Checked
        if on and uid not in self.attackers:
            self.attackers = sorted(self.attackers + [uid])
        elif not on and uid in self.attackers:
            self.attackers = [u for u in self.attackers if u != uid]
        else:
            return
        QTimer.singleShot(0, self.refresh)  # not while the list emits
