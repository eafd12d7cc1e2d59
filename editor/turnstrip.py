"""The turn track under the map, as printed on a game map: one box a turn
with its date, weather and events and the counters the scenario brings in
on that turn.  Counters are dropped on a box to arrive on that turn; turns
outside the scenario are greyed."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from .mapview import MIME


class TurnBox(QFrame):
    dropped = Signal(str, str)  # counter id, "turn:N"

    def __init__(self, turn: int):
        super().__init__()
        self.turn = turn
        self.setAcceptDrops(True)
        self.setFrameShape(QFrame.StyledPanel)
        self.setMinimumWidth(120)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.setSpacing(0)
        self.label = QLabel()
        self.label.setWordWrap(False)
        self.label.setTextFormat(Qt.RichText)
        self.label.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        lay.addWidget(self.label)

    def show_turn(self, date: str, weather: str, events: list[str], arriving: list[str], in_play: bool) -> None:
        parts = [f"<b>Turn {self.turn}</b>" + (f"&nbsp; <span style='color:#555'>{date}</span>" if date else "")]
        if arriving:
            parts.append(f"<b style='color:#0b3d91'>+{len(arriving)} arriving</b>")
        if weather:
            parts.append(weather)
        if events:
            first = events[0] if len(events[0]) <= 22 else events[0][:20] + "…"
            parts.append(f"<i>{first}</i>" + (f" <span style='color:#666'>+{len(events) - 1}</span>"
                                               if len(events) > 1 else ""))
        self.label.setText("<br>".join(parts))
        self.setMinimumWidth(self.label.sizeHint().width() + 10)
        self.label.setToolTip("\n".join(x for x in (date, weather, ", ".join(events),
                                                    ("arriving: " + ", ".join(arriving)) if arriving else "") if x))
        self.setStyleSheet("TurnBox { background: %s; }" % ("#fffdf3" if in_play else "#e4e4e4"))

    def dragEnterEvent(self, e) -> None:
        if e.mimeData().hasFormat(MIME):
            e.acceptProposedAction()
        else:
            e.ignore()

    def dropEvent(self, e) -> None:
        if not e.mimeData().hasFormat(MIME):
            e.ignore()
            return
        e.acceptProposedAction()
        self.dropped.emit(bytes(e.mimeData().data(MIME)).decode("utf-8"), f"turn:{self.turn}")


class TurnStrip(QScrollArea):
    placeRequested = Signal(str, object)  # counter id, "turn:N"

    def __init__(self, doc, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.setWidgetResizable(True)
        self.setFixedHeight(84)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.inner = QWidget()
        self.row = QHBoxLayout(self.inner)
        self.row.setContentsMargins(2, 2, 2, 2)
        self.row.setSpacing(3)
        self.setWidget(self.inner)
        self.boxes: dict[int, TurnBox] = {}

    def reload(self, scenario: str) -> None:
        """The boxes for the game's turn track, for ``scenario``'s set-up."""
        snap = self.doc.snapshot
        turns = list(snap.turns)
        if list(self.boxes) != turns:
            for b in self.boxes.values():
                b.setParent(None)
            self.boxes = {}
            while self.row.count():
                self.row.takeAt(0)
            for t in turns:
                b = TurnBox(t)
                b.dropped.connect(self.placeRequested.emit)
                self.boxes[t] = b
                self.row.addWidget(b)
            self.row.addStretch(1)
        self.setVisible(bool(turns))
        sc = snap.scenarios.get(scenario)
        placed = {k: p.at for k, p in sc.placements.items()} if sc else {}
        game = self.doc.game  # the last game that compiled: dates, weather, events
        track = game.turn_track if game is not None else None
        for t, b in self.boxes.items():
            date, weather, events = "", "", []
            if track is not None and track.turns and t in {x.number for x in track.turns}:
                row = track.turn(t)
                date = row.date
                w = game.weather.get(row.values.get("weather") or "")
                weather = w.title if w else ""
                events = [game.events[e].title if e in game.events else e for e in row.values.get("events") or ()]
            arriving = sorted(cid for cid, at in placed.items() if at == f"turn:{t}")
            in_play = sc is None or sc.first_turn <= t <= sc.last_turn
            b.show_turn(date, weather, events, arriving, in_play)
