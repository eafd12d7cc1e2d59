"""File > New: the questions ``hexforge new`` asks, as a dialog.  The game it
makes is dsl/scaffold.py's small, complete, playable game."""
from __future__ import annotations

from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QSpinBox)

from dsl.scaffold import MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, NewGame, ScaffoldError, slug


class NewGameDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("New game")
        f = QFormLayout(self)
        self.title = QLineEdit()
        self.title.setPlaceholderText("New game")
        self.game_id = QLineEdit()
        self.game_id.setPlaceholderText("new-game")
        self._id_edited = False
        self.title.textEdited.connect(self._title_changed)
        self.game_id.textEdited.connect(lambda _t: setattr(self, "_id_edited", True))
        self.cols = QSpinBox(); self.cols.setRange(MIN_COLS, MAX_COLS); self.cols.setValue(16)
        self.rows = QSpinBox(); self.rows.setRange(MIN_ROWS, MAX_ROWS); self.rows.setValue(12)
        self.side_a = QLineEdit("blue")
        self.side_b = QLineEdit("red")
        self.problem = QLabel("")
        self.problem.setStyleSheet("color: #b00020")
        f.addRow(QLabel("A small game that checks and plays from the start: two sides, a terrain chart, a CRT,\n"
                        "a sequence of play, victory by towns, a map with a river and a scenario."))
        f.addRow("Title", self.title)
        f.addRow("Game id", self.game_id)
        f.addRow("Map columns", self.cols)
        f.addRow("Map rows", self.rows)
        f.addRow("First side (moves first)", self.side_a)
        f.addRow("Second side", self.side_b)
        f.addRow(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        f.addRow(self.buttons)

    def _title_changed(self, text: str) -> None:
        if not self._id_edited:
            self.game_id.setText(slug(text))

    def spec(self) -> NewGame:
        return NewGame(self.game_id.text().strip() or "new-game", self.title.text().strip() or "New game",
                       self.cols.value(), self.rows.value(),
                       (self.side_a.text().strip(), self.side_b.text().strip()))

    def _accept(self) -> None:
        try:
            self.spec().check()
        except ScaffoldError as e:
            self.problem.setText(str(e))
            return
        self.accept()
