"""The rules text pane: a DSL editor with syntax highlighting, live
diagnostics (wavy underline, message on hover, the list in the diagnostics
panel) and go-to-definition (F12 or Ctrl+click).

Typing goes into the window's QUndoStack (consecutive typing merges), so
Ctrl+Z undoes map, counter and text edits in the order they were made.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import (QColor, QFont, QKeySequence, QSyntaxHighlighter, QTextCharFormat, QTextCursor)
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QPlainTextEdit, QTextEdit, QToolTip, QVBoxLayout,
                               QWidget)

from dsl.loader import TOP_LEVEL

from . import textedit as T
from .commands import TypingCommand

TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#.*|[^\s{};=#"]+|[{};=]')
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-.:,]*")
NUMBER = re.compile(r"[+-]?[0-9][0-9./\-+]*$")


def _fmt(colour: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    f = QTextCharFormat()
    f.setForeground(QColor(colour))
    if bold:
        f.setFontWeight(QFont.Bold)
    f.setFontItalic(italic)
    return f


class Highlighter(QSyntaxHighlighter):
    """Comments, strings, top-level keywords, properties, numbers, ``table``."""

    def __init__(self, document):
        super().__init__(document)
        self.f_comment = _fmt("#7a7a7a", italic=True)
        self.f_string = _fmt("#1d7a1d")
        self.f_top = _fmt("#1f4fbf", bold=True)
        self.f_prop = _fmt("#8a2be2")
        self.f_number = _fmt("#b35c00")
        self.f_table = _fmt("#c0392b", bold=True)
        self.f_brace = _fmt("#555555", bold=True)

    def highlightBlock(self, text: str) -> None:
        first = True
        for m in TOKEN.finditer(text):
            tok = m.group(0)
            start, n = m.start(), len(tok)
            if tok.startswith("#"):
                self.setFormat(start, n, self.f_comment)
                break
            if tok.startswith('"'):
                self.setFormat(start, n, self.f_string)
                first = False
                continue
            if tok in "{};":
                self.setFormat(start, n, self.f_brace)
                first = True
                continue
            if tok == "=":
                first = False
                continue
            if first:
                if tok == "override":
                    self.setFormat(start, n, self.f_top)
                    continue
                if tok == "table":
                    self.setFormat(start, n, self.f_table)
                elif tok in TOP_LEVEL:
                    self.setFormat(start, n, self.f_top)
                elif NUMBER.match(tok):
                    self.setFormat(start, n, self.f_number)
                else:
                    self.setFormat(start, n, self.f_prop)
                first = False
                continue
            if NUMBER.match(tok):
                self.setFormat(start, n, self.f_number)


def utf16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


class RulesEdit(QPlainTextEdit):
    undoRequested = Signal()
    redoRequested = Signal()
    definitionRequested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        f = QFont("DejaVu Sans Mono")
        f.setStyleHint(QFont.Monospace)
        f.setPointSize(10)
        self.setFont(f)
        self.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.setUndoRedoEnabled(False)  # the window's QUndoStack does it
        self.highlighter = Highlighter(self.document())
        self.diags: list[tuple[int, int, str]] = []  # (start, end, message) in QTextDocument positions

    # -- diagnostics -------------------------------------------------------------------
    def position_of(self, line: int, col: int) -> int:
        block = self.document().findBlockByNumber(max(0, line - 1))
        if not block.isValid():
            return max(0, self.document().characterCount() - 1)
        text = block.text()
        return block.position() + utf16(text[:max(0, col - 1)])

    def set_diagnostics(self, items: list[tuple[int, int, int, int, str, str]]) -> None:
        """``items``: (line, col, end_line, end_col, message, severity)."""
        sels = []
        self.diags = []
        for line, col, end_line, end_col, msg, sev in items:
            start = self.position_of(line, col)
            if end_line == line and end_col > col:
                end = self.position_of(line, end_col)
            else:
                block = self.document().findBlockByNumber(max(0, line - 1))
                text = block.text() if block.isValid() else ""
                m = NAME.match(text, max(0, col - 1)) or re.compile(r"\S+").match(text, max(0, col - 1))
                end = self.position_of(line, (m.end() + 1) if m else col + 1)
            end = max(end, start + 1)
            sel = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.WaveUnderline)
            fmt.setUnderlineColor(QColor("#e00000" if sev == "error" else "#d08000"))
            fmt.setToolTip(msg)
            sel.format = fmt
            c = QTextCursor(self.document())
            c.setPosition(start)
            c.setPosition(min(end, self.document().characterCount() - 1), QTextCursor.KeepAnchor)
            sel.cursor = c
            sels.append(sel)
            self.diags.append((start, end, msg))
        self.setExtraSelections(sels)

    def message_at(self, pos: int) -> str:
        return "\n".join(m for s, e, m in self.diags if s <= pos <= e)

    def event(self, e) -> bool:
        if e.type() == QEvent.ToolTip:
            c = self.cursorForPosition(e.pos())
            msg = self.message_at(c.position())
            if msg:
                QToolTip.showText(e.globalPos(), msg, self)
            else:
                QToolTip.hideText()
            return True
        if e.type() == QEvent.ShortcutOverride and (e.matches(QKeySequence.Undo) or e.matches(QKeySequence.Redo)):
            e.accept()
            return True
        return super().event(e)

    def keyPressEvent(self, e) -> None:
        if e.matches(QKeySequence.Undo):
            self.undoRequested.emit()
            return
        if e.matches(QKeySequence.Redo):
            self.redoRequested.emit()
            return
        if e.key() == Qt.Key_F12:
            self.definitionRequested.emit(self.word_at(self.textCursor().position()))
            return
        super().keyPressEvent(e)

    def mousePressEvent(self, e) -> None:
        if e.button() == Qt.LeftButton and e.modifiers() & Qt.ControlModifier:
            c = self.cursorForPosition(e.position().toPoint())
            self.definitionRequested.emit(self.word_at(c.position()))
            return
        super().mousePressEvent(e)

    def word_at(self, pos: int) -> str:
        block = self.document().findBlock(pos)
        text = block.text()
        i = pos - block.position()
        for m in re.finditer(r"[A-Za-z0-9_][A-Za-z0-9_\-.]*", text):
            if m.start() <= i <= m.end():
                return m.group(0).rstrip(".")
        return ""


class RulesPane(QWidget):
    """A file chooser and the editor, bound to the document's text buffers."""

    locationRequested = Signal(str, int, int)  # file, line, col
    message = Signal(str)

    def __init__(self, doc, stack, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.stack = stack
        self.shown = ""
        self._applying = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(QLabel("File:"))
        self.files = QComboBox()
        top.addWidget(self.files, 1)
        self.info = QLabel("")
        top.addWidget(self.info)
        lay.addLayout(top)
        self.edit = RulesEdit()
        lay.addWidget(self.edit)
        self.files.currentTextChanged.connect(self.open_file)
        self.edit.textChanged.connect(self.typed)
        self.edit.undoRequested.connect(stack.undo)
        self.edit.redoRequested.connect(stack.redo)
        self.edit.definitionRequested.connect(self.go_to_definition)
        self.reload_files()

    def reload_files(self) -> None:
        names = sorted(self.doc.files, key=lambda s: (s != self.doc.entry, not s.endswith(".hxr"), s))
        cur = self.shown or self.doc.entry
        self.files.blockSignals(True)
        self.files.clear()
        self.files.addItems(names)
        self.files.blockSignals(False)
        if cur in names:
            self.files.setCurrentText(cur)
            self.open_file(cur)

    def open_file(self, shown: str) -> None:
        if not shown or shown not in self.doc.files:
            return
        if self.files.currentText() != shown:
            self.files.setCurrentText(shown)
            return
        self.shown = shown
        self._applying = True
        self.edit.setPlainText(self.doc.text(shown))
        self._applying = False
        ro = not self.doc.editable_text(shown)
        self.edit.setReadOnly(ro)
        if shown == self.doc.map_shown and self.doc.map is not None:
            self.info.setText("read-only: edit the map in the Map tab")
        elif ro:
            self.info.setText("read-only: not UTF-8 text")
        else:
            self.info.setText("")
        self.show_diagnostics()

    def typed(self) -> None:
        if self._applying or not self.shown or self.edit.isReadOnly():
            return
        new = self.edit.toPlainText()
        old = self.doc.files[self.shown].text
        if new == old:
            return
        self.doc.typing = True
        try:
            self.doc.set_text(self.shown, new)
        finally:
            self.doc.typing = False
        self.stack.push(TypingCommand(self.doc, self.shown, old, new))

    def text_changed(self, shown: str) -> None:
        """The document's text changed (an undo, a counter edit): follow it,
        keeping the cursor and scroll position."""
        if shown != self.shown:
            return
        new = self.doc.text(shown)
        cur = self.edit.toPlainText()
        e = T.diff_edit(cur, new)
        if e is None:
            return
        start, end, ins = e
        self._applying = True
        try:
            c = QTextCursor(self.edit.document())
            c.setPosition(utf16(cur[:start]))
            c.setPosition(utf16(cur[:end]), QTextCursor.KeepAnchor)
            c.insertText(ins)
        finally:
            self._applying = False

    def show_diagnostics(self) -> None:
        items = []
        for d in self.doc.diagnostics:
            if d.span is not None and d.span.file == self.shown:
                msg = d.message + (f"\nhint: {d.hint}" if d.hint else "")
                items.append((d.span.line, d.span.col, d.span.end_line, d.span.end_col, msg, d.severity))
        self.edit.set_diagnostics(items)

    def go_to(self, shown: str, line: int, col: int = 1) -> None:
        if shown not in self.doc.files:
            return
        self.open_file(shown)
        pos = self.edit.position_of(line, col)
        c = self.edit.textCursor()
        c.setPosition(pos)
        self.edit.setTextCursor(c)
        self.edit.centerCursor()
        self.edit.setFocus()

    def go_to_definition(self, word: str) -> None:
        if not word:
            return
        span = self.doc.definition(word)
        if span is None:
            self.message.emit(f"'{word}' is not declared in this game")
            return
        self.locationRequested.emit(span.file, span.line, span.col)
