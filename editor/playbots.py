"""Bots in the playtest window: who plays each side, and the bots' turns.

A bot thinks on a worker thread (a search bot may take seconds; even the
greedy bot took half a second for some Smolensk decisions), so the window
never freezes; its answer comes back to the GUI thread as a signal and is
applied there.  Every answer carries the generation it was asked in: a
take-back, a seek, Stop or a change of player starts a new generation, and
an answer from an older one is dropped.
"""
from __future__ import annotations

import threading
import time

from PySide6.QtCore import QRectF

from runtime.bots import BOTS, make_bot

from . import playtext as T

AGENTS = ("human",) + tuple(BOTS)
AGENT_TITLES = {"human": "Human", **{b: f"{b.title()} bot" for b in BOTS}}


class BotPlayer:
    """Mixin of PlayWindow: the bots' side of the playtest."""

    _bot_gen = 0  # bumped whenever a pending answer must be dropped
    _thinking = False
    paused_by_takeback = False  # bots wait after a take-back until a person decides

    def _make_bots(self) -> None:
        seed = self.timeline.seed
        for i, side in enumerate(self.game.sides):
            kind = self.agents[side]
            if kind != "human" and (side not in self.bots or getattr(self.bots[side], "name", "") != kind):
                self.bots[side] = make_bot(kind, seed * 1000 + i + 1 + self.timeline.end)

    def forget_thinking(self) -> None:
        """Drop the answer a bot may still be working on."""
        self._bot_gen += 1
        self.bot_timer.stop()

    def set_agent(self, side: str, kind: str) -> None:
        if kind not in AGENTS:
            raise ValueError(f"no agent '{kind}': choose {', '.join(AGENTS)}")
        self.forget_thinking()
        self.agents[side] = kind
        if self.agent_boxes[side].currentData() != kind:
            self.agent_boxes[side].setCurrentIndex(AGENTS.index(kind))
        self._make_bots()
        if kind != "human":
            self.paused = False
            self.paused_by_takeback = False
        self.refresh()
        self.schedule_bots()

    def bot_to_move(self) -> str | None:
        t = self.timeline
        if not t.at_end:
            return None
        side = self.runner.to_move(t.latest)
        return side if side is not None and self.agents.get(side, "human") != "human" else None

    def all_bots(self) -> bool:
        return all(a != "human" for a in self.agents.values())

    def thinking(self) -> bool:
        return self._thinking

    def schedule_bots(self) -> None:
        if self.paused or self._thinking or self.bot_to_move() is None:
            self._update_run_button()
            return
        delay = self.bot_delay_ms if self.bot_delay_ms is not None else (0 if self.all_bots() else 150)
        self.bot_timer.start(delay)
        self._update_run_button()

    def bot_step(self) -> None:
        """Ask the bot whose decision is due, on a worker thread."""
        if self.paused or self._thinking:
            return
        side = self.bot_to_move()
        if side is None:
            self._update_run_button()
            return
        bot = self.bots.get(side)
        if bot is None:
            self._make_bots()
            bot = self.bots[side]
        state = self.timeline.latest.copy()  # the bot's own copy: the window keeps reading the latest state
        runner, gen = self.runner, self._bot_gen
        self._thinking = True
        self._think_side = side

        def think() -> None:
            try:
                action, error = bot.choose(runner, state), None
            except Exception as e:  # noqa: BLE001  (reported in the window, never raised in the thread)
                action, error = None, e
            try:
                self.botChose.emit(action, error, gen)
            except RuntimeError:  # the window was closed and deleted meanwhile
                pass

        threading.Thread(target=think, name=f"hexforge-bot-{side}", daemon=True).start()
        self._update_run_button()
        if not self.all_bots():
            self.statusBar().showMessage(f"{T.side_title(self.runner, side)}: the "
                                         f"{AGENT_TITLES[self.agents[side]].lower()} is thinking…", 2000)

    def on_bot_chose(self, action, error, gen: int) -> None:
        self._thinking = False
        if gen != self._bot_gen or self.paused or self.bot_to_move() is None:
            self._update_run_button()  # asked before a take-back, a seek, Stop or a change of player
            self.schedule_bots()
            return
        if error is not None:
            self.fail(error)
            self.refresh()
            return
        before = len(self.timeline.latest.log)
        try:
            self.timeline.apply(action, bot=True)
        except Exception as e:  # noqa: BLE001
            self.fail(e)
            self.refresh()
            return
        moved = []
        for e in self.timeline.latest.log[before:]:  # where the bots' units went
            if e.get("path") and len(e["path"]) > 1:
                moved.append([self.hex(x) for x in e["path"]])
        self.bot_trail = (self.bot_trail + moved)[-40:]
        self.sel_unit, self.target, self.attackers = "", None, []
        now = time.perf_counter()
        busy = self.all_bots() and self.bot_to_move() is not None
        if not busy or now - getattr(self, "_last_bot_refresh", 0.0) > 0.06:
            self._last_bot_refresh = now
            self.refresh()
            if moved and self.follow_bots:
                self.follow(moved[-1][-1])
        self.schedule_bots()

    def follow(self, h) -> None:
        """Keep a bot's last move in sight (the view scrolls only as far as needed)."""
        x, y = self.view.mp.geo.centre(h)
        r = self.view.mp.geo.hex_rect(h) if hasattr(self.view.mp.geo, "hex_rect") else QRectF(x - 20, y - 20, 40, 40)
        self.view.ensureVisible(r, 80, 80)

    def toggle_run(self) -> None:
        if self.paused:
            self.run_bots()
        else:
            self.stop_bots()

    def running(self) -> bool:
        """A bot is playing now (not paused, and a bot's decision is due)."""
        return not self.paused and self.bot_to_move() is not None

    def run_bots(self) -> None:
        self.paused = False
        self.paused_by_takeback = False
        self.failed = ""
        if self.bot_to_move() is None:
            side = self.runner.to_move(self.timeline.latest)
            self.say("The game is over." if side is None else
                     f"Bots are on: they play when their side's decision comes "
                     f"({T.side_title(self.runner, side)} is played by a person now).")
        self.schedule_bots()

    def stop_bots(self) -> None:
        self.paused = True
        self.paused_by_takeback = False
        self.forget_thinking()
        self._thinking = False
        self.say("Bots stopped.")
        self._update_run_button()

    def pause_for_takeback(self) -> None:
        """After a take-back: bots wait while it is a bot's decision (so that
        it is not played again at once) and go on by themselves as soon as a
        person decides; the prompt says so."""
        self.forget_thinking()
        self._thinking = False
        if self.bot_to_move() is not None and not self.paused:
            self.paused = True
            self.paused_by_takeback = True

    def person_decided(self) -> None:
        if self.paused_by_takeback:
            self.paused = False
            self.paused_by_takeback = False

    def _update_run_button(self) -> None:
        """"Stop bots" while bots may play (they play whenever their side's decision is due);
        "Run bots" when they are stopped."""
        has_bots = any(a != "human" for a in self.agents.values()) and self.timeline.latest.result is None
        self.run_button.setText("Run bots" if self.paused or not has_bots else "Stop bots")
        self.run_button.setEnabled(has_bots)
