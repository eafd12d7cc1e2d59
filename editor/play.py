"""Playtest: play a scenario of the open game in the editor, hotseat or
against bots, with the rules enforced by the runtime.

Game > Play… (F5) compiles the game from the editor's current texts
(unsaved edits included), asks for a scenario, variants, a seed and who
plays each side, and opens a :class:`PlayWindow`:

* the map draws the units of the game state; a selected unit's reachable
  hexes are shaded with their MP cost, a click moves it along the cheapest
  path, an illegal target says why;
* movement modes (march, forced march, strategic movement): the reach of
  the mode chosen in the Decision panel's menu is shaded green, hexes only
  another mode the unit may use now reaches are shaded blue, and a click
  there uses that mode; the menu follows the phase and the selected unit;
* combat: click an enemy hex (the adjacent eligible units become the
  attackers; click your hexes or the check-list to change them); the odds
  panel shows every attack and defence factor, each column shift with its
  reason, the final column and the probability of every result before the
  roll;
* firepower combat (attacks by moving in, Barbarossa): the Combat panel is
  a battle panel: each side's firepower item by item (units, modifiers,
  battle options), the totals, the damage each unit can take and the
  outcomes A-D; Fight opens a battle, options are used from the Decision
  list, points of firepower are taken by clicking a counter (on the map or
  in the panel's list), a retreat by clicking a highlighted hex;
* losses, retreats (legal hexes highlighted), advances, chits, interrupts,
  reinforcements (legal hexes highlighted): the Decision panel lists the
  legal answers; the map takes the clicks it can;
* the Game panel shows the turn, phase, active side, the chit cup, the
  active HQ and its command range (outlined on the map), activated units,
  the turn track, VP and the off-map boxes; the Log lists every action and
  die roll;
* Take back (Ctrl+Z) undoes within the current activation until a die is
  rolled or a chit drawn (the sandbox switch allows taking back anything);
  Save / Load game; |< < > >| step through the game;
* each side is played by a person, the random bot or the greedy bot, and
  may be handed over at any time; bots play on a timer (the window stays
  responsive) with a progress bar and a Stop button.
"""
from __future__ import annotations

import traceback
from pathlib import Path
from typing import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QKeySequence
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDockWidget, QFileDialog, QLabel, QListWidget,
                               QListWidgetItem, QMainWindow, QMessageBox, QProgressBar, QPushButton, QScrollArea,
                               QSizePolicy, QToolBar)

from runtime import attachments as A
from runtime.actions import Advance, Attack, Displace, Done, Hit, IllegalActionError, Move, Retreat, Use
from runtime.combat.odds import OddsReport, combat_odds
from runtime.decisions import Activate
from runtime.combat.fire import fire_odds
from runtime.combat.dicepool.fight import AIR_STAGES
from runtime.combat.dicepool.odds import battle_odds
from runtime.combat.dicepool.setup import default_pairs
from runtime.definition import GameDefinition
from runtime.victory import UnreadParam, params_read
from runtime.combat.firepower import BattleReport
from runtime.hexes import Hex
from runtime.movement import MoveError, MoveRange, move_range, show_mp
from runtime.observe import hides_anything, observe, seen_entry
from runtime.replay import LockedError, ReplayError, SavedGame, Timeline
from runtime.runner import Place
from runtime.state import GameState
from runtime.supply import supply_status

from . import playtext as T
from .combatpanel import battle_html, last_battle_html, odds_html, dice_pool_html, last_dice_pool_html
from .playbots import AGENT_TITLES, AGENTS, BotPlayer
from .playmap import PlayDoc, PlayMapView
from .mapview import add_action
from .playclicks import PlayClicks
from .playpanels import DecisionPanel, HandOver, OddsPanel, StatusPanel
from .playsetup import PlayError, SetupDialog, compile_for_play, new_runner, new_timeline, variants_hint
from .stackview import StackView, state_entries

ENTRY_COLOURS = {"roll": "#b00060", "draw": "#6a1b9a", "turn": "#000000", "over": "#000000", "vp": "#0d6b2a",
                 "battle": "#8a3b00", "loss": "#b00000", "action": "#202020", "info": "#555555"}
SAVE_FILTER = "hexforge saved games (*.hxgame *.json)"


# ------------------------------------------------------------------ the window

class PlayWindow(PlayClicks, BotPlayer, QMainWindow):
    botChose = Signal(object, object, int)  # a bot's (action, error, generation), from its thread

    def __init__(self, game: GameDefinition, scenario: str | None = None, variants=(), seed: int = 0,
                 agents: dict[str, str] | None = None, compile_fn: Callable[[list[str]], GameDefinition] | None = None,
                 game_ref: str = "", timeline: Timeline | None = None, secrets: bool = False,
                 params: dict[str, int] | None = None):
        super().__init__()
        self.secrets = secrets  # hide each side's chits from the others, with a hand-over in hotseat
        self.game = game
        self.scenario_id = scenario or next(iter(game.scenarios), "")
        self.variants = list(variants)
        self.compile_fn = compile_fn
        self.game_ref = game_ref or game.info.id
        self.runner = timeline.runner if timeline is not None else new_runner(game, self.scenario_id, params)
        self.timeline = timeline if timeline is not None else new_timeline(self.runner, seed)
        self.agents = {s: (agents or {}).get(s, "human") for s in game.sides}
        self.bots: dict[str, object] = {}
        self.interactive = True  # False in tests: no modal message boxes
        self.paused = False
        self.bot_delay_ms: int | None = None  # None: 150 ms a decision when a person watches, 0 for bots alone
        self.failed = ""  # the last engine failure, if any
        # hidden information (chits chosen in secret, chits in hand): whose secrets the window shows.
        # With one person playing, that person's side; in hotseat, the side that last took the screen
        self.viewer: str | None = None
        self.bot_trail: list[list[Hex]] = []  # the bots' moves since a person last decided (drawn on the map)
        # selection
        self.sel_unit = ""
        self.target: Hex | None = None
        self.fire_kind = ""  # the fire attack shown in the odds panel (a fire effect's ask)
        self.attackers: list[str] = []
        self.hover: Hex | None = None
        self._ranges: tuple[GameState | None, dict[str, dict[str, MoveRange]]] = (None, {})
        self._legal_cache: tuple[GameState, list] | None = None
        self._zoomed = False
        self._log_shown: tuple[int, str | None, int] = (-1, None, 0)  # (id of the log, viewer, entries shown)
        self.setWindowTitle(f"Playtest: {game.info.title} — {self.runner.scenario.title or self.scenario_id}")
        self.resize(1500, 950)
        self.follow_bots = True  # the view scrolls to keep the bots' moves in sight
        self._build()
        self.botChose.connect(self.on_bot_chose)
        self._make_bots()
        self.refresh()
        self._initial_zoom()
        self.schedule_bots()

    def showEvent(self, e) -> None:
        super().showEvent(e)
        if not self._zoomed:  # the view has its real size now
            self._zoomed = True
            self._initial_zoom()

    # -- building ------------------------------------------------------------------------
    def _build(self) -> None:
        self.handover = HandOver(self)
        self.handover.go.clicked.connect(self.take_the_screen)
        self.doc = PlayDoc(self.game)
        self.view = PlayMapView(self.doc)
        self.setCentralWidget(self.view)
        # the designer view shows every side's secrets: a banner over the window says so
        self.designer_banner = QLabel("DESIGNER VIEW \u2014 every side's secrets are shown: hidden values, "
                                      "chits in hand and in the cup")
        self.designer_banner.setObjectName("designer-banner")
        self.designer_banner.setAlignment(Qt.AlignCenter)
        self.designer_banner.setStyleSheet("QLabel { background: #b00020; color: white; font-weight: bold; "
                                           "padding: 4px; }")
        self.status_panel = StatusPanel()
        sa = QScrollArea()
        sa.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        sa.setWidget(self.status_panel)
        sa.setWidgetResizable(True)
        self.decision = DecisionPanel()
        self.odds = OddsPanel()
        self.log_list = QListWidget()
        self.log_list.setUniformItemSizes(True)
        docks = []
        for title, w, area in (("Game", sa, Qt.LeftDockWidgetArea), ("Decision", self.decision, Qt.RightDockWidgetArea),
                               ("Combat", self.odds, Qt.RightDockWidgetArea), ("Log", self.log_list,
                                                                              Qt.BottomDockWidgetArea)):
            d = QDockWidget(title, self)
            d.setObjectName(title.lower())
            d.setWidget(w)
            self.addDockWidget(area, d)
            docks.append(d)
        self.stack_view: StackView | None = None
        if self.game.attachments:  # units carry counters: a stack view shows them (editor/stackview.py)
            self.stack_view = StackView()
            d = QDockWidget("Stack", self)
            d.setObjectName("stack")
            d.setWidget(self.stack_view)
            self.addDockWidget(Qt.LeftDockWidgetArea, d)
            docks.append(d)
        self.docks = {d.objectName(): d for d in docks}
        self._dock_layout: str | None = None
        self._centred_on: object = None
        self._centred_for = ""  # the unit selected when the view was last brought to the highlighted hexes
        self.resizeDocks([docks[0]], [330], Qt.Horizontal)
        self.resizeDocks([docks[1]], [390], Qt.Horizontal)
        self.resizeDocks([docks[3]], [150], Qt.Vertical)
        # toolbar
        tb = QToolBar("Play")
        tb.setObjectName("play-toolbar")
        self.addToolBar(tb)
        self.undo_action = QAction("Take back", self)
        self.undo_action.setShortcut(QKeySequence.Undo)
        self.undo_action.triggered.connect(self.undo)
        tb.addAction(self.undo_action)
        self.sandbox = QCheckBox("Sandbox")
        self.sandbox.setToolTip("Allow taking back anything, die rolls and chit draws included")
        self.sandbox.toggled.connect(self.set_sandbox)
        tb.addWidget(self.sandbox)
        tb.addSeparator()
        self.first_action = tb.addAction("|<", lambda: self.seek(0))
        self.back_action = tb.addAction("<", lambda: self.seek(self.timeline.position - 1))
        self.pos_label = QLabel()
        self.pos_label.setMinimumWidth(70)
        self.pos_label.setAlignment(Qt.AlignCenter)
        tb.addWidget(self.pos_label)
        self.fwd_action = tb.addAction(">", lambda: self.seek(self.timeline.position + 1))
        self.last_action = tb.addAction(">|", lambda: self.seek(self.timeline.end))
        for a, tip in ((self.first_action, "The set-up"), (self.back_action, "One decision back (viewing only)"),
                       (self.fwd_action, "One decision forward"), (self.last_action, "The latest position: play on")):
            a.setToolTip(tip)
        self.back_action.setShortcut("Alt+Left")
        self.fwd_action.setShortcut("Alt+Right")
        self.truncate_action = tb.addAction("Take back to here", self.truncate_here)
        self.truncate_action.setToolTip("Drop every decision after the position shown and play on from it")
        tb.addSeparator()
        self.agent_boxes: dict[str, QComboBox] = {}
        for sid, sd in self.game.sides.items():
            tb.addWidget(QLabel(f" {sd.title}: "))
            cb = QComboBox()
            for a in AGENTS:
                cb.addItem(AGENT_TITLES[a], a)
            cb.setCurrentIndex(AGENTS.index(self.agents[sid]))
            cb.currentIndexChanged.connect(lambda _i, sid=sid, cb=cb: self.set_agent(sid, cb.currentData()))
            self.agent_boxes[sid] = cb
            tb.addWidget(cb)
        self.run_button = QPushButton("Stop bots")
        self.run_button.setShortcut("Ctrl+R")
        self.run_button.setToolTip("Run or stop the bots (Ctrl+R)")
        self.run_button.clicked.connect(self.toggle_run)
        tb.addWidget(self.run_button)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(220)
        self.progress.setFormat("turn %v")
        tb.addWidget(self.progress)
        # menus
        mb = self.menuBar()
        gm = mb.addMenu("&Game")
        self._act(gm, "&Save game…", self.save_dialog, QKeySequence.Save)
        self._act(gm, "&Load game…", self.load_dialog, QKeySequence.Open)
        gm.addSeparator()
        gm.addAction(self.undo_action)
        gm.addSeparator()
        self._act(gm, "&Close", self.close, QKeySequence.Close)
        vm = mb.addMenu("&View")
        self.supply_action = self._act(vm, "&Supply status", self.refresh, "Ctrl+L")
        self.supply_action.setCheckable(True)
        self.supply_action.setChecked(True)
        self.supply_action.setToolTip("Ring the units that could not trace supply now (red dashes)")
        self.ids_action = self._act(vm, "Hex &IDs", self.toggle_ids, "Ctrl+I")
        self.ids_action.setCheckable(True)
        self._act(vm, "Zoom &in", lambda: self.view.zoom(1.25), QKeySequence.ZoomIn)
        self._act(vm, "Zoom &out", lambda: self.view.zoom(0.8), QKeySequence.ZoomOut)
        self.follow_action = self._act(vm, "&Follow the bots' moves", lambda: setattr(
            self, "follow_bots", self.follow_action.isChecked()))
        self.follow_action.setCheckable(True)
        self.follow_action.setChecked(self.follow_bots)
        vm.addSeparator()
        self.designer_action = self._act(vm, "&Designer view (show every side's secrets)", self.toggle_designer,
                                         "Ctrl+Shift+D")
        self.designer_action.setCheckable(True)
        self.designer_action.setToolTip("Show what every side hides (face-down values, chits in hand and in the "
                                        "cup), marked by a red banner; off: each person sees their own side's view")
        self.designer_action.setEnabled(hides_anything(self.game))
        bar = QToolBar("Designer view")
        bar.setObjectName("designer-bar")
        bar.setMovable(False)
        self.designer_banner.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        bar.addWidget(self.designer_banner)
        self.addToolBarBreak()
        self.addToolBar(bar)
        self.designer_bar = bar
        bar.hide()
        # wiring
        self.view.hexClicked.connect(self.click_hex)
        self.view.hexHovered.connect(self.hover_hex)
        self.decision.list.itemClicked.connect(self.item_clicked)
        self.decision.list.itemDoubleClicked.connect(self.item_activated)
        self.decision.list.itemActivated.connect(self.item_activated)
        self.decision.do.clicked.connect(self.do_selected)
        self.decision.done.clicked.connect(self.press_done)
        self.decision.mode.currentIndexChanged.connect(lambda _i: self.refresh())
        self.odds.roll.clicked.connect(self.roll)
        self.odds.clear.clicked.connect(self.clear_selection_and_refresh)
        self.odds.attackers.itemChanged.connect(self.attackers_ticked)
        self.odds.attackers.itemClicked.connect(self.battle_unit_clicked)
        self.bot_timer = QTimer(self)
        self.bot_timer.setSingleShot(True)
        self.bot_timer.timeout.connect(self.bot_step)
        self.decision.mode.addItem("Normal movement", "")
        for m in self.game.movement.modes:
            self.decision.mode.addItem(m.title or m.id, m.id)
        self.decision.mode.setVisible(bool(self.game.movement.modes))

    def _act(self, menu, text, slot, shortcut=None) -> QAction:
        return add_action(self, menu, text, slot, shortcut)

    def _initial_zoom(self) -> None:
        """Zoom 0.9, or more for a map smaller than the view (fitted, then
        centred); a larger map is centred on the units of the side to move."""
        area = self.view.viewport().rect()
        box = self.view.item.boundingRect()
        fit = min(area.width() / box.width(), area.height() / box.height()) * 0.97 if not box.isEmpty() else 0.9
        self.view.zoom_to(max(0.9, min(fit, 3.0)))
        if fit >= 0.9:
            self.view.centerOn(box.center())
            return
        s = self.state
        hs = [u.hex for u in s.units.values() if u.hex is not None and u.side == (self.runner.to_move(s) or u.side)]
        if hs:
            self.view.centre_on_hex(hs[len(hs) // 2])

    def toggle_ids(self) -> None:
        self.view.mp.options.show_ids = self.ids_action.isChecked()
        self.view.refresh()

    # -- reading ----------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        return self.timeline.state

    @property
    def board(self):
        return self.runner.board

    def hid(self, h: Hex) -> str:
        return self.board.hex_id(h)

    def hex(self, text: str) -> Hex:
        return self.board.parse(text)

    def kind(self) -> str:
        return T.decision_kind(self.state)

    def human_to_move(self) -> bool:
        s = self.state
        side = self.runner.to_move(s)
        return self.timeline.at_end and side is not None and self.agents.get(side, "human") == "human"

    def legal(self) -> list:
        """The legal actions in the state shown (cached per state)."""
        s = self.state
        if self._legal_cache is None or self._legal_cache[0] is not s:
            try:
                acts = self.runner.legal_actions(s) if self.kind() != "movement" else \
                    [Done()]  # moves are taken on the map: listing every one costs a search per unit
            except Exception as e:  # noqa: BLE001  (an engine failure must not take the editor down)
                self.fail(e)
                acts = []
            self._legal_cache = (s, acts)
        return self._legal_cache[1]

    @property
    def firepower(self) -> bool:
        """Battles by firepower after attacks by moving in (Barbarossa), not odds on a CRT."""
        return self.game.combat.procedure == "firepower"

    def movable(self) -> list[str]:
        """The units that may still move now in some mode: the engine's Move
        actions, without searching the range of a unit that may move normally
        (a unit that moved may still have a forced march left)."""
        s = self.state
        eng = self.runner.engine
        return sorted(uid for uid in s.units if eng.can_act(s, uid) and not eng.immobile(uid)
                      and (not eng.mode_bars(s, uid, "") or self.ranges(uid)))

    def mode(self) -> str:
        """The movement mode chosen in the Decision panel's menu ("" normal)."""
        return self.decision.mode.currentData() or ""

    def set_mode(self, mode: str) -> None:
        i = self.decision.mode.findData(mode)
        if i >= 0 and i != self.decision.mode.currentIndex():
            self.decision.mode.blockSignals(True)
            self.decision.mode.setCurrentIndex(i)
            self.decision.mode.blockSignals(False)

    def ranges(self, uid: str) -> dict[str, MoveRange]:
        """Where ``uid`` can move now in each movement mode it may use ("" for
        normal moves), modes without a destination left out; cached per state."""
        s = self.state
        if self._ranges[0] is not s:
            self._ranges = (s, {})
        cache = self._ranges[1]
        if uid not in cache:
            eng = self.runner.engine
            out: dict[str, MoveRange] = {}
            for mode in ("", *(m.id for m in self.game.movement.modes)):
                if eng.mode_bars(s, uid, mode):
                    continue
                try:
                    r = move_range(self.game, self.board, s, uid, mode or None)
                except MoveError:
                    continue
                if r.destinations:
                    out[mode] = r
            cache[uid] = out
        return cache[uid]

    def move_range(self, uid: str, mode: str | None = None) -> tuple[MoveRange | None, str]:
        """The unit's range in ``mode`` (None: the mode chosen in the menu), or
        why it has none."""
        mode = self.mode() if mode is None else mode
        r = self.ranges(uid).get(mode)
        if r is not None:
            return r, ""
        s = self.state
        eng = self.runner.engine
        why = eng.phase_bars(s, uid) or eng.mode_bars(s, uid, mode)
        if not why:
            try:
                move_range(self.game, self.board, s, uid, mode or None)
                why = f"{uid} has nowhere to go by {T.mode_title(self.runner, mode)}"
            except MoveError as e:
                why = str(e)
        return None, why

    def mode_to(self, uid: str, h: Hex) -> tuple[str | None, str]:
        """The mode that takes ``uid`` to ``h``: the menu's if it does, else the
        only other mode that does; (None, why) when several do (choose in the
        menu), (None, "") when none does."""
        rs = self.ranges(uid)
        mode = self.mode()
        if mode in rs and h in rs[mode].destinations:
            return mode, ""
        others = [m for m, r in rs.items() if h in r.destinations]
        if len(others) == 1:
            return others[0], ""
        if others:
            return None, f"{uid} can reach {self.hid(h)} by " + \
                " or ".join(T.mode_title(self.runner, m) for m in others) + ": choose one in the menu"
        return None, ""

    def eligible_attackers(self, target: Hex) -> list[str]:
        s = self.state
        eng = self.runner.engine
        adj = {n for n, _ in self.board.adj.get(target, ())}
        return sorted(uid for uid, u in s.units.items() if u.hex in adj and eng.can_act(s, uid)
                      and uid not in s.attacked and not eng.immobile(uid))

    def attack_targets(self) -> set[Hex]:
        return {self.hex(a.target) for a in self.legal() if isinstance(a, Attack)}

    def fire_ask(self) -> dict | None:
        """The fire attacks a fire effect offers now (runtime.combat.fire), if any."""
        ask = self.runner.effect_asks(self.state)
        return ask if ask is not None and ask["decision"] == "fire" else None

    def odds_report(self) -> OddsReport | None:
        s = self.state
        ask = self.fire_ask()
        if ask is not None:  # a fire attack on the target chosen: its fixed column, shifts and chances
            if self.target is None:
                return None
            kind = self.fire_kind if self.fire_kind in ask["kinds"] else ask["kinds"][0]
            try:
                return fire_odds(self.game, self.board, s, kind, self.target, self.runner.env)
            except Exception as e:  # noqa: BLE001
                self.fail(e)
                return None
        if s.pending and s.pending[0]["kind"] == "declare":  # the odds with the options used so far
            try:
                return self.runner.engine.declare.odds(s, s.pending[0])
            except Exception as e:  # noqa: BLE001
                self.fail(e)
                return None
        if self.target is None or self.kind() != "combat" or self.game.dice_pool is not None:
            return None
        try:
            return combat_odds(self.game, self.board, self.state, list(self.attackers), self.target,
                               env=self.runner.env)
        except Exception as e:  # noqa: BLE001
            self.fail(e)
            return None

    # -- acting ------------------------------------------------------------------------------
    def say(self, text: str, error: bool = False) -> None:
        self.decision.message.setText(text)
        self.decision.message.setStyleSheet("color: #b00000" if error else "color: #205020")
        self.statusBar().showMessage(text, 10000)

    def fail(self, e: Exception) -> None:
        """An engine failure: reported, bots stopped, the window stays up."""
        self.failed = f"{type(e).__name__}: {e}"
        traceback.print_exc()
        self.paused = True
        self.say(f"The engine failed: {self.failed}. Bots are stopped; take the last decision back or try another.",
                 error=True)

    def act(self, action, bot: bool = False) -> bool:
        """Apply an action at the end of the game; say why when it is illegal."""
        if not self.timeline.at_end:
            self.say(f"You are looking at decision {self.timeline.position} of {self.timeline.end}: press >| to "
                     "play on, or 'Take back to here'.", error=True)
            return False
        try:
            before = len(self.timeline.latest.log)
            s = self.timeline.apply(action, bot=bot)
        except IllegalActionError as e:
            self.say(str(e), error=True)
            return False
        except Exception as e:  # noqa: BLE001
            self.fail(e)
            self.refresh()
            return False
        if not bot:
            side = self.viewing_side()
            new = [T.describe(seen_entry(self.game, x, side) if side is not None else x, self.runner)
                   for x in s.log[before:] if "roll" in x or "draw" in x]
            self.say(f"{action}" + (f" — {'; '.join(new)}" if new else ""))
            self.person_decided()  # bots waiting after a take-back go on
        self.after_action()
        if not bot and isinstance(action, Move) and action.unit in self.movable():
            self.select_unit(action.unit)  # its move may go on at once (a forced march, Barbarossa 6.1)
        return True

    def after_action(self) -> None:
        self.bot_trail = []  # a person decided: the bots' moves before are old news
        self.sel_unit = ""
        self.target = None
        self.attackers = []
        self.hover = None
        self.view.mp.overlay.path = []
        self.view.mp.options.selected = None
        self.refresh()
        self.schedule_bots()

    def clear_selection_and_refresh(self) -> None:
        self.sel_unit = ""
        self.target = None
        self.attackers = []
        self.view.mp.options.selected = None
        self.refresh()


    # -- time -------------------------------------------------------------------------------------
    def undo(self) -> None:
        t = self.timeline
        if not t.at_end:
            self.say("Go to the latest position (>|) to take back, or use 'Take back to here'.", error=True)
            return
        try:
            t.undo()
        except LockedError as e:
            self.say(str(e), error=True)
            return
        self.pause_for_takeback()
        self.say("Taken back." + (" It is a bot's decision: the bots wait until you press Run bots (Ctrl+R), or "
                                  "take back further." if self.paused_by_takeback else ""))
        self.after_action()

    def truncate_here(self) -> None:
        t = self.timeline
        try:
            t.truncate(t.position)
        except LockedError as e:
            self.say(str(e), error=True)
            return
        self.pause_for_takeback()
        self.say(f"The game goes on from decision {t.position}." +
                 (" It is a bot's decision: press Run bots (Ctrl+R) to let it play." if self.paused_by_takeback else ""))
        self.after_action()

    def set_sandbox(self, on: bool) -> None:
        self.timeline.sandbox = on
        self.say("Sandbox: anything may be taken back." if on else "Die rolls and chit draws lock the past again.")
        self.refresh()

    def seek(self, i: int) -> None:
        self.forget_thinking()
        self.timeline.seek(i)
        self.sel_unit, self.target, self.attackers = "", None, []
        self.view.mp.overlay.path = []
        self.refresh()
        if self.timeline.at_end:
            self.schedule_bots()

    def saved(self) -> SavedGame:
        return self.timeline.saved(self.game_ref, self.scenario_id, self.variants, self.agents)

    def save_to(self, path: str | Path) -> Path:
        p = self.saved().save(path)
        self.say(f"Saved {len(self.timeline.steps)} decisions to {p}")
        return p

    def load_from(self, path: str | Path) -> str:
        """Load a saved game of this game (compiled from the editor's texts
        now).  Returns "" or the problem met (also shown)."""
        try:
            saved = SavedGame.load(path)
        except ReplayError as e:
            self.say(str(e), error=True)
            return str(e)
        if Path(saved.game).name != Path(self.game_ref).name:
            msg = f"{Path(path).name} is a game of {saved.game}, not of {self.game_ref}"
            self.say(msg, error=True)
            return msg
        try:
            game = self.compile_fn(list(saved.variants)) if self.compile_fn is not None and \
                list(saved.variants) != self.variants else self.game
            runner = new_runner(game, saved.scenario, saved.params)
            timeline, problem = Timeline.replay(runner, saved)
        except PlayError as e:
            self.say(str(e), error=True)
            return str(e)
        except Exception as e:  # noqa: BLE001
            self.fail(e)
            return self.failed
        self.forget_thinking()
        self._thinking = False
        self.game, self.runner, self.timeline = game, runner, timeline
        self.scenario_id, self.variants = saved.scenario, list(saved.variants)
        self.timeline.sandbox = self.sandbox.isChecked()
        self.paused = True  # a loaded game waits: press Run bots for bots to go on
        self._legal_cache = None
        self._log_shown = (-1, None, 0)
        if self.doc.game is not game:
            self.doc = PlayDoc(game)
            self.view.set_doc(self.doc)
        self._make_bots()
        self.sel_unit, self.target, self.attackers = "", None, []
        self.refresh()
        self._initial_zoom()  # (on the units of the side to move where the loaded game stands, as a new game)
        msg = problem or f"Loaded {Path(path).name}: {timeline.end} decisions (|< < > >| step through it)."
        self.say(msg, error=bool(problem))
        return problem

    def save_dialog(self) -> None:
        p = QFileDialog.getSaveFileName(self, "Save game", str(Path.cwd() / f"{self.game.info.id}.hxgame"),
                                        SAVE_FILTER)[0]
        if p:
            if not Path(p).suffix:
                p += ".hxgame"
            try:
                self.save_to(p)
            except OSError as e:
                QMessageBox.critical(self, "Save game", f"could not save: {e}")

    def load_dialog(self) -> None:
        p = QFileDialog.getOpenFileName(self, "Load game", str(Path.cwd()), SAVE_FILTER)[0]
        if p:
            problem = self.load_from(p)
            if problem and self.interactive:
                QMessageBox.warning(self, "Load game", problem)

    def closeEvent(self, e) -> None:
        self.forget_thinking()
        self.paused = True
        if self in _play_windows:
            _play_windows.remove(self)
        e.accept()

    # -- showing ----------------------------------------------------------------------------------
    # -- hidden information --------------------------------------------------------------
    def hotseat(self) -> bool:
        """Two or more sides played by people at one screen, in a game with secrets (chits, hidden values)."""
        return hides_anything(self.game) and sum(1 for a in self.agents.values() if a == "human") >= 2

    def hidden_sides(self) -> set[str]:
        """The sides whose secrets (chits chosen, chits in hand) the window hides now."""
        viewer = self.viewing_side()
        return {sd for sd in self.game.sides if sd != viewer} if viewer is not None else set()

    def designer_view(self) -> bool:
        """Everything is shown: the designer view is on, or the game hides nothing from anybody here
        (no secrets kept, nothing hidden, bots alone)."""
        if self.designer_action.isChecked():
            return True
        return not self.secrets or not hides_anything(self.game) or \
            not any(a == "human" for a in self.agents.values())

    def viewing_side(self) -> str | None:
        """Whose observation the window shows (runtime/observe.py): the person playing, in hotseat the
        side that last took the screen; None in the designer view."""
        if self.designer_view():
            return None
        humans = [sd for sd, a in self.agents.items() if a == "human"]
        viewer = self.viewer if self.hotseat() else humans[0]
        return viewer or humans[0]

    def shown_state(self, s: GameState | None = None) -> GameState:
        """The state as the window shows it: the viewing side's observation (everything in the designer view)."""
        s = self.state if s is None else s
        side = self.viewing_side()
        return observe(self.game, s, side, log=False) if side is not None else s

    def toggle_designer(self) -> None:
        self.refresh()

    def _hand_over_due(self) -> str | None:
        """In hotseat, the side that must take the screen before it sees its decision."""
        if not self.secrets or not self.hotseat() or not self.timeline.at_end:
            return None
        mover = self.runner.to_move(self.timeline.latest)
        if mover is None or self.agents.get(mover, "human") != "human" or mover == self.viewer:
            return None
        return mover

    def take_the_screen(self) -> None:
        """The player of the side to move has the screen: show its secrets, hide the others'."""
        mover = self._hand_over_due()
        if mover is not None:
            self.viewer = mover
        self.refresh()

    def refresh(self) -> None:
        due = self._hand_over_due()
        self.handover.show_for(T.side_title(self.runner, due) if due else "")
        t = self.timeline
        s = t.state
        shown = self.shown_state(s)  # what the person at the screen may see; the full state for the rest
        designer = self.viewing_side() is None and hides_anything(self.game)  # everything shown: say so
        self.designer_bar.setVisible(designer)
        title = self.windowTitle().split(" \u2014 DESIGNER VIEW")[0]
        self.setWindowTitle(title + (" \u2014 DESIGNER VIEW" if designer else ""))
        mp = self.view.mp
        mp.designer = self.viewing_side() is None
        mp.set_state(shown)
        self._sync_mode(s)
        self._overlay(s)
        self.status_panel.show_state(self, shown)
        if self.stack_view is not None:
            self._stack(shown)
        self._decisions(s)
        self._odds(s)
        self._log(s)
        self.pos_label.setText(f"{t.position} / {t.end}")
        self.first_action.setEnabled(t.position > 0)
        self.back_action.setEnabled(t.position > 0)
        self.fwd_action.setEnabled(t.position < t.end)
        self.last_action.setEnabled(t.position < t.end)
        self.truncate_action.setEnabled(not t.at_end and t.can_truncate(t.position))
        self.undo_action.setEnabled(t.at_end and t.can_undo())
        self.undo_action.setToolTip("Take back the last decision" if t.can_undo() else
                                    (t.why_locked() or "Nothing to take back"))
        p = T.progress(self.runner, t.latest)
        self.progress.setValue(int(p * 1000))
        last = t.latest
        self.progress.setFormat(f"game over (turn {last.turn})" if last.result else
                                f"turn {last.turn} of {self.runner.scenario.last_turn}")
        self._update_run_button()
        self._layout_for(s)
        self.view.refresh()

    def _stack(self, s: GameState) -> None:
        """The stack view: the selected unit's hex (the unit it is under, for an attachment)."""
        uid = self.sel_unit if self.sel_unit in s.units else ""
        host = A.host_of(s, uid) if uid else None
        u = s.units[host or uid] if uid else None
        if u is None or u.hex is None:
            self.stack_view.show_entries("", [])
            return
        ids = list(s.occupants.get(u.hex, ()))
        self.stack_view.show_entries(f"<b>Stack in {self.board.hex_id(u.hex)}</b>",
                                     state_entries(self.game, s, ids, self.view.mp.look))

    def _layout_for(self, s: GameState) -> None:
        """Room for the odds or the battle in combat (and for the list of
        battle options), for the list otherwise; and the highlighted hexes of
        a new decision brought into view."""
        k = self.kind()
        layout = "list"
        if k in ("combat", "battle") and self.human_to_move():
            layout = "options" if k == "battle" and s.pending[0]["stage"] == "options" else "combat"
        if layout != self._dock_layout:
            self._dock_layout = layout
            self.resizeDocks([self.docks["decision"], self.docks["combat"]],
                             {"combat": [260, 640], "options": [420, 480], "list": [520, 380]}[layout], Qt.Vertical)
        legal = self.view.mp.overlay.legal
        if legal and self.view.isVisible() and (self._centred_on is not s or self._centred_for != self.sel_unit):
            self._centred_on, self._centred_for = s, self.sel_unit
            seen = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
            if not any(seen.contains(self.view.scene_pos(h)) for h in legal):
                self.view.centre_on_hex(min(legal, key=self.game.map.grid.to_colrow))

    def _sync_mode(self, s: GameState) -> None:
        """The movement-mode menu shows a mode the phase allows."""
        allowed = s.step.get("modes") if s.step.get("decision") == "movement" else None
        if allowed and (self.mode() or "normal") not in allowed:
            self.set_mode("" if allowed[0] == "normal" else allowed[0])

    def _overlay(self, s: GameState) -> None:
        ov = self.view.mp.overlay
        ov.reach, ov.reach_modes, ov.legal, ov.targets = {}, {}, {}, set()
        ov.target, ov.attackers = None, set()
        ov.selected_unit = self.sel_unit
        hq = T.active_hq(self.runner, s)
        ov.command = T.command_hexes(self.runner, s) if hq and s.step.get("decision") in ("movement", "combat") \
            else set()
        ov.unsupplied = set()
        if self.supply_action.isChecked():
            try:
                for side in self.game.sides:
                    ov.unsupplied |= {u for u, ok in supply_status(self.game, self.board, s, side).items() if not ok}
            except Exception:  # noqa: BLE001  (the overlay is optional)
                ov.unsupplied = set()
        ov.trail = self.bot_trail if self.timeline.at_end else []
        k = self.kind()
        if k in ("battle", "dice-pool") and s.pending[0].get("hex"):  # the battle being fought, whoever decides
            # (not the choice of the next battle, 9.2(3); outside a battle, an air mission's hex)
            ov.target = self.hex(s.pending[0]["hex"])
            if k == "dice-pool" and not s.pending[0].get("window"):  # and who attacks it (Prokhorovka 9.1(4): one battle)
                ov.attackers = {u for u in s.pending[0]["attackers"] if s.units[u].hex is not None}
        if not self.timeline.at_end or not self.human_to_move():
            ov.path = []
            return
        ask = self.runner.effect_asks(s)
        if ask is not None and ask["decision"] == "relocate":  # who may be relocated; where the selected one may go
            ov.attackers = set(ask["units"])
            for a in self.legal():
                if isinstance(a, Displace) and a.unit == self.sel_unit:
                    ov.legal.setdefault(self.hex(a.to), "")
        elif k == "movement" and self.sel_unit:
            self._reach_overlay(s, ov)
        elif k == "combat":
            ov.targets = self.attack_targets()
            if self.firepower and self.target not in ov.targets and ov.targets:  # the next battle to fight
                self.target = min(ov.targets, key=self.game.map.grid.to_colrow)
                self.attackers = sorted(u.id for u in s.units_at(self.target) if u.side == s.active)
            ov.target = self.target
            ov.attackers = set(self.attackers)
        elif k == "battle":
            stage = s.pending[0]["stage"]
            for a in self.legal():
                if isinstance(a, Hit) or (isinstance(a, Use) and a.unit):
                    ov.attackers.add(a.unit)  # who may take the point, or provide an option
                elif isinstance(a, Retreat) and a.path and stage == "retreat":
                    ov.legal[self.hex(a.path[0])] = ""
        elif k == "displace":  # where it was overrun (outlined), where it may go
            ov.target = self.hex(s.pending[0]["from"]) if s.pending[0].get("from") else None
            for a in self.legal():
                ov.legal.setdefault(self.hex(a.to), "")
        elif k == "send-back":  # the hex over the stacking limit (outlined), who may go back (ringed)
            ov.target = self.hex(s.pending[0]["hex"])
            ov.attackers = set(s.pending[0]["units"])
        elif k in ("retreat", "follow"):
            if k == "follow":  # the HQ that goes with one of its stack-mates (ringed)
                ov.attackers = {s.pending[0]["unit"]}
            for a in self.legal():
                if isinstance(a, Retreat) and a.path:
                    ov.legal.setdefault(self.hex(a.path[-1]), "")
        elif k == "advance":
            for a in self.legal():
                if isinstance(a, Advance) and (not self.sel_unit or a.unit == self.sel_unit):
                    ov.legal.setdefault(self.hex(a.path[-1]), "")
        elif k in ("place", "rebuild", "deploy"):
            units = self.placing()
            if self.sel_unit not in units and units:
                self.sel_unit = units[0]
                ov.selected_unit = self.sel_unit
            for a in self.legal():
                if isinstance(a, Place) and a.unit == self.sel_unit:
                    ov.legal[self.hex(a.at)] = ""
        elif k == "loss":
            ov.attackers = {a.unit for a in self.legal() if hasattr(a, "unit")}
        elif k == "commander":  # who may command the tag's chain (ringed), in highlighted hexes
            ov.attackers = {a.unit for a in self.legal() if isinstance(a, Activate)}
            for u in ov.attackers:
                ov.legal.setdefault(s.units[u].hex, "")

    def _reach_overlay(self, s: GameState, ov) -> None:
        """The selected unit's reach: green in the menu's mode (MP costs),
        blue where only another mode it may use now goes, red outlines on the
        enemy hexes it would attack by moving in."""
        rs = self.ranges(self.sel_unit)
        mode = self.mode()
        if mode in rs:
            r = rs[mode]
            ov.reach = {h: show_mp(r.cost[h]) for h in r.destinations}
        for m, r in rs.items():
            if m != mode:
                for h in r.destinations - ov.reach.keys():
                    ov.reach_modes.setdefault(h, f"{show_mp(r.cost[h])} {T.mode_abbr(self.runner, m)}")
        side = s.units[self.sel_unit].side
        ov.targets = {h for h in ov.reach.keys() | ov.reach_modes.keys() if any(u.side != side for u in s.units_at(h))}

    def _decisions(self, s: GameState) -> None:
        d = self.decision
        lst = d.list
        lst.blockSignals(True)
        lst.clear()
        t = self.timeline
        side = self.runner.to_move(s)
        d.done.setText("Done")
        d.mode.setVisible(bool(self.game.movement.modes) and self.kind() == "movement" and self.human_to_move())
        if not t.at_end:
            d.prompt.setText(f"Viewing decision {t.position} of {t.end}" +
                             (f" (next: {t.steps[t.position].action})" if t.position < t.end else "") +
                             ". Press >| to play on.")
            d.done.setEnabled(False)
            d.do.setEnabled(False)
            lst.blockSignals(False)
            return
        if side is not None and self.agents.get(side, "human") != "human":
            who = AGENT_TITLES[self.agents[side]].lower()
            if self.paused_by_takeback:
                tail = " — after the take-back the bots wait: press Run bots (Ctrl+R) to let it play"
            elif self.paused:
                tail = " — bots are stopped: press Run bots (Ctrl+R)"
            elif self.thinking():
                tail = " (thinking…)"
            else:
                tail = ""
            d.prompt.setText(f"{T.side_title(self.runner, side)}'s decision: the {who} plays it{tail}.")
            d.done.setEnabled(False)
            d.do.setEnabled(False)
            lst.blockSignals(False)
            return
        d.prompt.setText(T.prompt(self.runner, s))
        k = self.kind()
        acts = self.legal()
        d.done.setText(T.done_label(s))
        d.done.setEnabled(Done() in acts)
        items: list[tuple[str, object, str]] = []
        ask = self.runner.effect_asks(s)
        if ask is not None and ask["decision"] == "relocate":  # the HQs; where the selected one may go
            for uid in ask["units"]:
                n = len(ask["hexes"][uid])
                items.append(("select", uid, f"Select {uid} in {self.hid(s.units[uid].hex)} to relocate it "
                              f"({n} hex{'es' * (n != 1)})" + (" ◀" if uid == self.sel_unit else "")))
            for a in acts:
                if isinstance(a, Displace) and a.unit == self.sel_unit:
                    items.append(("action", a, T.action_label(a, self.runner, s)))
        elif k == "movement":
            eng = self.runner.engine
            several = len(T.phase_modes(self.runner, s)) > 1
            for uid in self.movable():
                u = s.units[uid]
                modes = "" if not several or not eng.mode_bars(s, uid, "") else \
                    " — " + ", ".join(T.mode_title(self.runner, m) for m in self.ranges(uid))
                items.append(("select", uid, f"{uid} in {self.hid(u.hex)}{T.unit_note(s, uid)}{modes}"
                              + (" ◀" if uid == self.sel_unit else "")))
        elif k == "combat":
            for a in acts:
                if isinstance(a, Attack):  # a battle (firepower) is fought from the list; an attack is loaded
                    items.append(("action" if self.firepower else "attack", a, T.action_label(a, self.runner, s)))
        elif k in ("place", "rebuild", "deploy"):
            verb = {"place": "place", "rebuild": "rebuild", "deploy": "set up"}[k]
            for uid in self.placing():
                items.append(("select", uid, f"Select {uid} to {verb}{T.unit_note(s, uid)}"
                              + (" ◀" if uid == self.sel_unit else "")))
            for a in acts:
                if isinstance(a, Place) and a.unit == self.sel_unit:
                    items.append(("action", a, T.action_label(a, self.runner, s)))
        else:
            for a in acts:
                if not isinstance(a, Done):
                    items.append(("action", a, T.action_label(a, self.runner, s)))
        for kind, value, label in items:
            it = QListWidgetItem(label)
            it.setData(Qt.UserRole, (kind, value))
            if kind == "action":
                it.setForeground(QBrush(QColor("#0b3d91")))
            lst.addItem(it)
        d.do.setEnabled(any(kind == "action" for kind, _, _ in items) or
                        k in ("movement", "combat", "place", "rebuild", "deploy"))
        lst.blockSignals(False)

    def _odds(self, s: GameState) -> None:
        if self.firepower:
            self._battle_panel(s)
            return
        if self.game.dice_pool is not None:
            self._dice_pool_panel(s)
            return
        o = self.odds
        o.attackers.blockSignals(True)
        o.attackers.clear()
        rep = self.odds_report() if self.timeline.at_end and self.human_to_move() else None
        if rep is None:
            last = next((e for e in reversed(s.log) if "odds" in e), None)
            o.report.setHtml("<p>Click an enemy hex to see the odds of attacking it.</p>" +
                             (f"<p><b>Last attack:</b> {T.describe(last, self.runner)}</p>" if last else ""))
            o.roll.setEnabled(False)
            o.roll.setText("Declare" if self.game.combat.declare_first else "Roll")
            o.clear.setEnabled(self.target is not None)
            o.attackers.blockSignals(False)
            return
        declaring = self.kind() == "declare"
        for uid in ([] if declaring or rep.fire else self.eligible_attackers(self.target)):
            it = QListWidgetItem(f"{uid} ({T.factors_text(self.runner, s, uid)}) in {self.hid(s.units[uid].hex)}")
            it.setData(Qt.UserRole, uid)
            it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
            it.setCheckState(Qt.Checked if uid in self.attackers else Qt.Unchecked)
            o.attackers.addItem(it)
        o.report.setHtml(odds_html(self.game, self.board, rep))
        o.roll.setEnabled(rep.legal and not declaring)
        verb = "Fire" if rep.fire else "Declare" if self.game.combat.declare_first and not declaring else "Roll"
        o.roll.setText(verb + (f" ({rep.column.label})" if rep.legal else ""))
        o.clear.setEnabled(True)
        o.attackers.blockSignals(False)

    def dice_pool_setup(self, s: GameState):
        """The dice-pool battle to show: the one being fought (its chits and
        pairs so far, the rest paired by default), or the attack chosen in
        the combat phase; (setup, hex id, fighting) or None."""
        eng = self.runner.engine
        try:
            if s.pending and s.pending[0]["kind"] == "dice-pool" and not s.pending[0].get("window") and \
                    s.pending[0]["stage"] in ("equipment", "support", "choose", "cancel", "at-once", *AIR_STAGES, "strike-reroll", "pairs"):
                p = s.pending[0]
                if "rolled" in p:  # an air combat between two rolls: the rolls still to come (16.0(1))
                    return eng.dicepool.to_roll(s, p, p["chits"], tuple(p.get("neutral", ())), p.get("ranged", {}),
                                                tuple(tuple(x) for x in p.get("track", ()))), p["hex"], True
                st = eng.dicepool.setup(s, p)
                return eng.dicepool.setup(s, p, default_pairs(st)), p["hex"], True
            if self.kind() == "combat" and self.target is not None and self.attackers:
                return eng.dicepool.preview(s, list(self.attackers), self.target), self.hid(self.target), False
        except Exception as e:  # noqa: BLE001
            self.fail(e)
        return None

    def dice_pool_odds(self, s: GameState, st):
        """The exact odds of the battle shown, the breakdowns still to roll counted (19.5)."""
        eng = self.runner.engine
        if s.pending and s.pending[0]["kind"] == "dice-pool" and "rolled" in s.pending[0]:
            return battle_odds(st)  # between two rolls: the rolls still to come (every breakdown rolled)
        if s.pending and s.pending[0]["kind"] == "dice-pool" and s.pending[0].get("attackers"):
            return eng.dicepool.battle_odds_now(s, s.pending[0])[1]
        if self.target is not None and self.attackers:
            return eng.dicepool.preview_odds(s, list(self.attackers), self.target)
        return battle_odds(st)

    def _dice_pool_panel(self, s: GameState) -> None:
        """The Combat panel of a dice-pool game: the attackers to tick, each
        side's dice pools against their hit numbers, the duels, and the exact
        chance of each damage total and of winning (Prokhorovka 11.0)."""
        o = self.odds
        o.attackers.blockSignals(True)
        o.attackers.clear()
        # from the viewing side's observation: the chits the enemy allocated face down stay hidden (9.2(2)2)
        shown = self.dice_pool_setup(self.shown_state(s)) if self.timeline.at_end else None
        fighting = shown is not None and shown[2]
        choosing = self.kind() == "combat" and self.target is not None and self.human_to_move()
        o.units_label.setVisible(choosing)  # the attackers to tick; in a battle the map outlines them and
        o.attackers.setVisible(choosing)    # the report has the room
        if choosing:
            for uid in self.eligible_attackers(self.target):
                carried = ", ".join(A.under(s, uid))
                it = QListWidgetItem(f"{uid} ({T.factors_text(self.runner, s, uid)}) in {self.hid(s.units[uid].hex)}"
                                     + (f" with {carried}" if carried else ""))
                it.setData(Qt.UserRole, uid)
                it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
                it.setCheckState(Qt.Checked if uid in self.attackers else Qt.Unchecked)
                o.attackers.addItem(it)
        legal = shown is not None and not fighting and Attack(shown[1], tuple(self.attackers)) in self.legal()
        o.roll.setEnabled(legal and self.human_to_move())
        verb = "Declare the attack on" if self.game.dice_pool.order_battles else "Fight the battle in"
        o.roll.setText(f"{verb} {shown[1]}" if legal else verb.split()[0])
        o.clear.setEnabled(self.target is not None)
        if shown is None:
            o.report.setHtml("<p>Click an enemy hex to see the dice pools and the chance of winning a battle there.</p>"
                             + last_dice_pool_html(self.runner, s))
        else:
            st, tid, _ = shown
            o.report.setHtml(dice_pool_html(self.game, tid, st, self.dice_pool_odds(self.shown_state(s), st),
                                            fighting))
        o.attackers.blockSignals(False)

    def battle_report(self, s: GameState) -> tuple[BattleReport | None, dict | None]:
        """The firepower battle to show: the one being fought (with its
        pending entry), or the battle hex chosen in the combat phase."""
        eng = self.runner.engine
        p = s.pending[0] if s.pending and s.pending[0]["kind"] == "battle" else None
        try:
            if p is not None:
                return eng.battle_report(s, p), p
            if self.kind() == "combat" and self.target is not None and self.target in eng.battle_hexes(s):
                return eng.battle_report(s, target=self.target), None
        except Exception as e:  # noqa: BLE001
            self.fail(e)
        return None, None

    def _battle_panel(self, s: GameState) -> None:
        """The Combat panel of a firepower game: the units in the battle (a
        click takes a point of firepower) and the firepower, item by item."""
        o = self.odds
        o.clear.hide()
        o.attackers.blockSignals(True)
        o.attackers.clear()
        rep, p = self.battle_report(s)
        fight = rep is not None and p is None and self.human_to_move()
        o.roll.setEnabled(fight)
        o.roll.setText(f"Fight the battle in {self.hid(rep.hex)}" if fight else "Fight")
        o.roll.setToolTip("Open the battle: battle options, fire, the points taken, the outcome")
        absorbing = p is not None and p["stage"] == "absorb" and self.human_to_move()
        o.units_label.setText("Units in the battle" + (": click one to take a point" if absorbing else ""))
        if rep is None:
            o.report.setHtml("<p>Battles are fought in the hexes where the active side's units moved in with enemy "
                             "units: click one in the combat phase to see both sides' firepower.</p>"
                             + last_battle_html(self.runner, s))
            o.attackers.blockSignals(False)
            return
        hits = {a.unit for a in self.legal() if isinstance(a, Hit)} if absorbing else set()
        for uid in rep.attackers + rep.defenders:
            u = s.units[uid]
            text = f"{uid} · {T.side_title(self.runner, u.side)} · strength {T.factors_text(self.runner, s, uid)}"
            it = QListWidgetItem(text + (f" · {T.hit_note(self.runner, s, uid)}" if uid in hits else
                                         T.unit_note(s, uid)))
            it.setData(Qt.UserRole, uid)
            if uid in hits:
                it.setForeground(QBrush(QColor("#0b3d91")))
                f = it.font()
                f.setBold(True)
                it.setFont(f)
            elif "disrupted" in u.markers:
                it.setForeground(QBrush(QColor("#888888")))
            o.attackers.addItem(it)
        o.report.setHtml(battle_html(self.runner, s, rep, p))
        o.attackers.blockSignals(False)

    def _log(self, s: GameState) -> None:
        lst = self.log_list
        ident, viewer, shown = self._log_shown
        log = s.log
        hidden = self.hidden_sides()
        side = self.viewing_side()
        if ident != id(self.timeline) or viewer != side or shown > len(log) or \
                (shown and lst.count() != shown):
            lst.clear()
            shown = 0
        # a different branch with the same length: compare the last shown entry
        if shown and lst.item(shown - 1).data(Qt.UserRole) != id(log[shown - 1]):
            lst.clear()
            shown = 0
        for e in log[shown:]:
            seen = seen_entry(self.game, e, side) if side is not None else e  # what the viewing side saw
            it = QListWidgetItem(f"T{e.get('turn', s.turn)}  {T.describe(seen, self.runner, hidden)}")
            it.setToolTip(it.text())
            it.setData(Qt.UserRole, id(e))
            k = T.entry_kind(e)
            it.setForeground(QBrush(QColor(ENTRY_COLOURS[k])))
            if k in ("turn", "over", "roll"):
                f = it.font()
                f.setBold(True)
                it.setFont(f)
            lst.addItem(it)
        self._log_shown = (id(self.timeline), side, len(log))
        if len(log) != shown:
            lst.scrollToBottom()


# ------------------------------------------------------------------ starting

_play_windows: list[PlayWindow] = []


def open_playtest(doc, scenario: str | None = None, variants=(), seed: int = 0,
                  agents: dict[str, str] | None = None, secrets: bool = False,
                  params: dict[str, int] | None = None) -> PlayWindow:
    """A play window on the document's game as it stands (unsaved edits
    included); ``secrets``: hide each side's chits from the others (hotseat
    hand-over); ``params``: the numbers the rules ask for (Smolensk's VP
    bid).  Raises PlayError when the game cannot be played."""
    game = compile_for_play(doc, variants)
    if not game.scenarios:
        raise PlayError(f"{game.info.title} has no scenario to play: add a scenario block")
    if scenario is not None and scenario not in game.scenarios:
        raise PlayError(f"{game.info.title} has no scenario '{scenario}': it has {', '.join(game.scenarios)}")
    read = params_read(game)  # (None: a rule names its number by an expression: known only in play)
    unread = sorted(set(params or {}) - read) if read is not None else []
    if unread:  # (the runner refuses it too: here the variants that read it are named as well)
        hint = variants_hint(unread[0], game, lambda v: compile_for_play(doc, v))
        raise PlayError(f"{game.info.title}: Numbers: {UnreadParam(unread[0], read)}" + (f"\n\n{hint}" if hint else ""))
    ref = str(doc.folder) if doc.folder is not None else doc.game_name
    w = PlayWindow(game, scenario, variants, seed, agents, compile_fn=lambda v: compile_for_play(doc, v),
                   game_ref=ref, secrets=secrets, params=params)
    _play_windows.append(w)
    return w


def start_playtest(win) -> PlayWindow | None:
    """Game > Play…: ask for the scenario, variants, seed and players, then
    open the play window; problems are shown, never raised."""
    win.refresh_now()
    try:
        base = compile_for_play(win.doc, ())
        if not base.scenarios:
            raise PlayError(f"{base.info.title} has no scenario to play: add a scenario block")
    except PlayError as e:
        win.show_diagnostics()
        QMessageBox.critical(win, "Play", str(e))
        return None
    dlg = SetupDialog(win, base)
    if dlg.exec() != QDialog.Accepted:
        return None
    scenario, variants, seed, agents, secrets = dlg.values()
    try:
        w = open_playtest(win.doc, scenario, variants, seed, agents, secrets, dlg.params())
    except PlayError as e:
        QMessageBox.critical(win, "Play", str(e))
        return None
    w.show()
    return w
