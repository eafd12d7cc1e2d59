"""Undoable edits (QUndoCommand lives in PySide6.QtGui).

* :class:`MapCommand`: a list of map changes (``MapModel.apply`` keys); a
  whole paint stroke is one command, pushed when the mouse is released.
* :class:`TextCommand`: edits of rules files (counter and setup edits).
* :class:`TypingCommand`: typing in the rules pane; consecutive typing in
  one file merges into one command.
"""
from __future__ import annotations

import time

from PySide6.QtGui import QUndoCommand

from . import textedit as T


class Stroke:
    """Map changes applied as the mouse moves, pushed as one command."""

    def __init__(self, doc, label: str):
        self.doc = doc
        self.label = label
        self.forward: list = []
        self.undo: list = []
        self.done: set = set()  # keys already changed in this stroke

    def set(self, key: tuple, value) -> bool:
        m = self.doc.map
        if m.get(key) == value:
            return False
        self.forward.append((key, value))
        self.undo = m.apply([(key, value)]) + self.undo
        self.done.add(key)
        return True

    def set_many(self, changes: list) -> None:
        m = self.doc.map
        changes = [(k, v) for k, v in changes if m.get(k) != v]
        if not changes:
            return
        self.forward.extend(changes)
        self.undo = m.apply(changes) + self.undo
        self.done.update(k for k, _ in changes)

    def command(self) -> "MapCommand | None":
        if not self.forward:
            return None
        return MapCommand(self.doc, self.label, self.forward, self.undo)


class MapCommand(QUndoCommand):
    def __init__(self, doc, label: str, changes: list, applied_undo: list | None = None):
        super().__init__(label)
        self.doc = doc
        self.changes = list(changes)
        self.undo_list = applied_undo
        self._skip = applied_undo is not None  # already applied while stroking

    def redo(self) -> None:
        if self._skip:
            self._skip = False
            return
        self.undo_list = self.doc.map.apply(self.changes)

    def undo(self) -> None:
        self.doc.map.apply(self.undo_list)


class TextCommand(QUndoCommand):
    def __init__(self, doc, label: str, edits: dict[str, list[T.Edit]]):
        super().__init__(label)
        self.doc = doc
        self.edits = edits
        self.inverse: dict[str, list[T.Edit]] = {}

    def redo(self) -> None:
        self.inverse = self.doc.apply_edits(self.edits)

    def undo(self) -> None:
        self.doc.apply_edits(self.inverse)


class TypingCommand(QUndoCommand):
    """Typing in a rules file: the widget already shows the new text."""

    ID = 7301

    def __init__(self, doc, shown: str, old: str, new: str):
        super().__init__(f"typing in {shown.split('/')[-1]}")
        self.doc = doc
        self.shown = shown
        self.old = old
        self.new = new
        self.when = time.monotonic()
        self._skip = True

    def id(self) -> int:
        return self.ID

    def mergeWith(self, other) -> bool:
        if not isinstance(other, TypingCommand) or other.shown != self.shown:
            return False
        if other.when - self.when > 2.0:
            return False
        self.new = other.new
        self.when = other.when
        return True

    def redo(self) -> None:
        if self._skip:
            self._skip = False
            return
        self.doc.set_text(self.shown, self.new)

    def undo(self) -> None:
        self.doc.set_text(self.shown, self.old)
