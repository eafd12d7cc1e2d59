"""The playtest window's panels: the hand-over screen, the Game (status) panel, the
Decision panel and the odds panel."""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFrame, QHBoxLayout, QLabel, QListWidget, QScrollArea,
                               QPushButton, QTextBrowser, QVBoxLayout, QWidget)

from runtime.expr import ExprError
from runtime.observe import UNKNOWN
from runtime.state import GameState

from . import playtext as T
from .playbots import AGENT_TITLES

if TYPE_CHECKING:
    from .play import PlayWindow


class HandOver(QFrame):
    """Hotseat: a screen over the whole window while the device passes to
    the next player, so that nobody sees the other side's secrets."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setAutoFillBackground(True)
        self.setStyleSheet("HandOver { background: #2b2b2b; } QLabel { color: #f0f0f0; font-size: 16pt; }")
        lay = QVBoxLayout(self)
        lay.addStretch(1)
        self.label = QLabel()
        self.label.setAlignment(Qt.AlignCenter)
        self.label.setWordWrap(True)
        lay.addWidget(self.label)
        self.go = QPushButton()
        self.go.setMinimumHeight(40)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.go)
        row.addStretch(1)
        lay.addLayout(row)
        lay.addStretch(1)
        parent.installEventFilter(self)
        self.hide()

    def show_for(self, side_title: str) -> None:
        if not side_title:
            self.hide()
            return
        self.label.setText(f"Hand the screen to the {side_title} player.<br><span style='font-size:11pt'>"
                           "Each side's chosen chits and chits in hand stay hidden from the other.</span>")
        self.go.setText(f"I play {side_title}: show my decision")
        self.setGeometry(self.parentWidget().rect())
        self.show()
        self.raise_()

    def eventFilter(self, obj, e) -> bool:
        if obj is self.parentWidget() and e.type() == QEvent.Resize and not self.isHidden():
            self.setGeometry(obj.rect())
        return False


class StatusPanel(QWidget):
    """Turn, phase, sides, the cup, the active HQ, VP, the turn track, the boxes."""

    def __init__(self):
        super().__init__()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.header = QLabel()
        self.cup = QLabel()
        self.command = QLabel()
        self.vp = QLabel()
        self.track = QLabel()
        self.boxes = QLabel()
        for w in (self.header, self.cup, self.command, self.vp, self.track, self.boxes):
            w.setWordWrap(True)
            w.setTextFormat(Qt.RichText)
            w.setTextInteractionFlags(Qt.TextSelectableByMouse)
            lay.addWidget(w)
        lay.addStretch(1)

    @staticmethod
    def _standing(w: "PlayWindow", s: GameState) -> str:
        """Where the rules count places at the end (most games): the VP each side would have if the game
        ended now (runtime.victory ``standing``).  Only where everything is shown: a side's view may hide
        what the count reads (A Victory Denied's face-down VP chits)."""
        if w.viewing_side() is not None or s.result is not None:
            return ""
        try:
            apart = w.runner.standing_apart(s)
        except ExprError:
            return ""
        if apart is None:
            return ""
        sides = w.runner.game.sides
        return "<br><span style='color:#555'>if the game ended now: " + \
            " · ".join(f"{sides[k].title} {v}" for k, v in sorted(apart.items())) + "</span>"

    def show_state(self, w: "PlayWindow", s: GameState) -> None:
        r = w.runner
        g = r.game
        sides = g.sides

        def side(sid):
            sd = sides.get(sid)
            if not sd:
                return sid or "—"
            return f"<span style='background:{sd.colour};color:{sd.text_colour};padding:0 3px'>&nbsp;{sd.title}&nbsp;</span>"
        date = ""
        if g.turn_track.turns:
            try:
                row = g.turn_track.turn(s.turn)
                weather = g.weather.get(row.values.get("weather") or "")
                date = " · ".join(x for x in (row.date, weather.title if weather else "") if x)
            except KeyError:
                date = ""
        mover = r.to_move(s)
        who = f"{side(mover)} ({AGENT_TITLES[w.agents.get(mover, 'human')]})" if mover else "—"
        self.header.setText(
            f"<b style='font-size:14pt'>Turn {s.turn}</b>{f' · {date}' if date else ''} "
            f"<span style='color:#666'>(of {r.scenario.first_turn}–{r.scenario.last_turn})</span><br>"
            f"<b>Phase:</b> {T.phase_title(r, s)}<br><b>Active side:</b> {side(s.active) if s.active else '—'}"
            f" &nbsp; <b>To decide:</b> {who}")
        drawn = T.drawn_this_turn(s)
        hidden = w.hidden_sides()
        hands = ", ".join(f"{sides[k].title if k in sides else k}: " +
                          (f"{len(v)} chit{'s' * (len(v) != 1)} (hidden)" if k in hidden else ', '.join(v))
                          for k, v in sorted(s.hands.items()) if v)
        if g.chits:
            chit = s.step.get("chit")
            self.cup.setText(f"<b>Chit cup:</b> {len(s.cup)} left"
                             + (f" · <b>now:</b> {chit}" if chit else "")
                             + f"<br><b>Drawn this turn:</b> {', '.join(drawn) or '—'}"
                             + f"<br><b>In hand:</b> {hands or '—'}")
            self.cup.show()
        else:
            self.cup.hide()
        hq = T.active_hq(r, s)
        act = len(s.activated)
        parts = []
        if hq and "range" not in g.chits[hq[0]].command:  # AVD 3 d: its units follow command chains
            parts.append(f"<b>Active HQ:</b> {hq[1]} (chit {hq[0]}), commanding by chains of at most "
                         f"{g.activation.chain} hexes, not by its command range")
        elif hq:
            parts.append(f"<b>Active HQ:</b> {hq[1]} (chit {hq[0]}), command range {hq[2]} — outlined on the map")
        if act:
            moved = len({x for x in s.moved if "@" not in x})
            attacked = len({x for x in s.attacked if ":" not in x})
            parts.append(f"<b>Activated:</b> {act} unit{'s' * (act != 1)} (green ring); moved {moved}, "
                         f"attacked {attacked}")
        self.command.setText("<br>".join(parts))
        self.command.setVisible(bool(parts))
        # the numbers the rules asked for (Smolensk 16.1's VP bid), which decide the game as the VP do
        numbers = ("<br><b>Numbers:</b> " + ", ".join(f"{html.escape(k)} = {v}" for k, v in sorted(r.params.items()))
                   if r.params else "")
        self.vp.setText("<b>VP:</b> " + " · ".join(f"{side(k)} <b>{v}</b>" for k, v in sorted(s.vp.items()))
                        + self._standing(w, s) + numbers)
        # the turn track: one cell per turn of the scenario
        cells: list[str] = []
        waiting = T.boxes(s)
        for t in range(r.scenario.first_turn, r.scenario.last_turn + 1):
            d = ""
            if g.turn_track.turns:
                try:
                    d = g.turn_track.turn(t).date
                except KeyError:
                    d = ""
            n = len(waiting.get(f"turn:{t}", []))
            bg = "#ffd84a" if t == s.turn else ("#d8d8d8" if t < s.turn else "#ffffff")
            tip = f"{n} unit{'s' * (n != 1)} arrive" if n else ""
            cells.append(f"<td align='center' style='background:{bg};border:1px solid #888;padding:2px' title='{tip}'>"
                         f"<b>{t}</b><br><small>{d}</small>{f'<br><small>+{n} units</small>' if n else ''}</td>")
        rows = ["<tr>" + "".join(cells[i:i + 4]) + "</tr>" for i in range(0, len(cells), 4)]
        self.track.setText("<b>Turn track</b><table cellspacing='0' width='100%'>" + "".join(rows) + "</table>")
        lines = []
        hidden = dict(((s.observed or {}).get("places") or {})) if s.observed else {}
        for box, ids in waiting.items():
            if box.startswith("turn:"):
                continue
            if box == UNKNOWN:  # the other sides' hands and the cups, seen through an observation: counts only
                for place, n in hidden.items():
                    if place.startswith("under:"):
                        continue  # face down under a unit: drawn beside it on the map
                    p = g.pools.get(place.partition(":")[2]) if place.startswith("pool:") else None
                    how = "a cup" if p is not None and p.kind == "cup" else "face down"
                    lines.append(f"<b>{T.box_title(r, place)}:</b> {n} ({how})")
                continue
            pool = g.pools.get(box.partition(":")[2]) if box.startswith("pool:") else None
            if pool is not None and pool.kind == "cup":  # drawn at random: what is in it is nobody's to see
                lines.append(f"<b>{T.box_title(r, box)}:</b> {len(ids)} (a cup)")
                continue
            lines.append(f"<b>{T.box_title(r, box)}:</b> {len(ids)} ({', '.join(ids[:8])}{'…' if len(ids) > 8 else ''})")
        self.boxes.setText("<br>".join(lines))
        self.boxes.setVisible(bool(lines))


class PromptLabel(QLabel):
    """The decision's prompt: word-wrapped, and its area as high as the
    whole text needs (``PromptArea``)."""

    def __init__(self):
        super().__init__()
        self.area: PromptArea | None = None
        self.setWordWrap(True)
        font = self.font()  # bold by the font, not a style sheet: heightForWidth measures with it
        font.setBold(True)
        self.setFont(font)
        self.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse)

    def setText(self, text: str) -> None:  # noqa: N802  (Qt's name)
        super().setText(text)
        if self.area is not None:
            self.area.fit()


class PromptArea(QScrollArea):
    """Holds the prompt and grows with it: the whole prompt shows, however
    long (the air windows' prompts run to six lines), up to 40% of the
    panel; beyond that it scrolls."""

    LEAST = 52

    def __init__(self, label: PromptLabel):
        super().__init__()
        self.label = label
        label.area = self
        self.setWidget(label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)

    def fit(self) -> None:
        need = max(self.LEAST, self.label.heightForWidth(max(self.viewport().width(), 100)))
        panel = self.parentWidget()
        most = max(120, int(panel.height() * 0.4)) if panel is not None else 200
        height = min(need, most) + 2 * self.frameWidth()
        if height != self.height():
            self.setFixedHeight(height)
            if panel is not None and panel.layout() is not None:
                panel.layout().activate()  # the list below moves down now, not at the next event

    def resizeEvent(self, e) -> None:  # noqa: N802  (Qt's name)
        super().resizeEvent(e)
        self.fit()


class DecisionPanel(QWidget):
    def __init__(self):
        super().__init__()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.prompt = PromptLabel()
        self.prompt_area = PromptArea(self.prompt)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.mode = QComboBox()
        self.mode.setToolTip("How the selected unit moves")
        self.list = QListWidget()
        self.list.setSelectionMode(QAbstractItemView.SingleSelection)
        self.list.setWordWrap(True)
        self.do = QPushButton("Do it")
        self.do.setToolTip("Take the answer selected in the list (or double-click it)")
        self.done = QPushButton("Done")
        bl = QHBoxLayout()
        bl.addWidget(self.do)
        bl.addWidget(self.done)
        lay.addWidget(self.prompt_area)
        lay.addWidget(self.mode)
        lay.addWidget(self.list, 1)
        lay.addLayout(bl)
        lay.addWidget(self.message)


class OddsPanel(QWidget):
    def __init__(self):
        super().__init__()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.attackers = QListWidget()
        self.attackers.setMaximumHeight(110)
        self.attackers.setWordWrap(True)
        self.attackers.setToolTip("The units that attack: tick or untick them")
        self.report = QTextBrowser()
        self.report.setOpenLinks(False)
        self.roll = QPushButton("Roll")
        self.roll.setToolTip("Resolve the attack: roll the die")
        self.clear = QPushButton("Clear")
        bl = QHBoxLayout()
        bl.addWidget(self.roll, 1)
        bl.addWidget(self.clear)
        self.units_label = QLabel("Attackers")
        lay.addWidget(self.units_label)
        lay.addWidget(self.attackers)
        lay.addWidget(self.report, 1)
        lay.addLayout(bl)
