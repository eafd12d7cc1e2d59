"""The Tables tab: every chart-shaped table of the game's rules — the terrain
effects chart, CRTs and their results, die tables, the turn track, counter
sheets, set-ups — as an editable grid that looks like the printed chart.

Each edit is one undo step that rewrites one row of the text, aligned to the
header's columns, keeping the row's comment and everything around it; the
grid reloads from the text after every change, so the text stays the truth.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton,
                               QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from dsl.ast import Statement, Table
from dsl.diagnostics import DslError
from dsl.parser import parse

from . import textedit as T
from .commands import TextCommand

# tables whose cells are results: coloured like a printed chart
RESULT_TABLES = ("crt", "die-table")


@dataclass(frozen=True)
class TableKey:
    """Which table: its file, the statements around it, and its place among
    the tables under the same statements."""
    shown: str
    path: tuple[tuple[str, str], ...]
    index: int

    @property
    def label(self) -> str:
        parts = [f"{k} {n}".strip() for k, n in self.path] or ["(top level)"]
        return " › ".join(parts) + (f" #{self.index + 1}" if self.index else "")

    @property
    def kind(self) -> str:
        return self.path[0][0] if self.path else ""


def find_tables(entries) -> list[tuple[tuple[tuple[str, str], ...], Table]]:
    out = []

    def rec(path, body):
        for e in body or ():
            if isinstance(e, Table):
                out.append((path, e))
            elif isinstance(e, Statement):
                rec(path + ((e.keyword, e.name or ""),), e.body)
    rec((), entries)
    return out


def tables_of(doc) -> list[tuple[TableKey, Table]]:
    """Every table in the game's editable rules files."""
    found = []
    for shown in sorted(doc.files, key=lambda s: (s != doc.entry, s)):
        if not shown.endswith(".hxr") or not doc.editable_text(shown):
            continue
        try:
            f = parse(doc.files[shown].text, shown)
        except DslError:
            continue
        seen: dict[tuple, int] = {}
        for path, t in find_tables(f.entries):
            i = seen.get(path, 0)
            seen[path] = i + 1
            found.append((TableKey(shown, path, i), t))
    return found


def result_colour(code: str) -> QColor | None:
    """A steady pale colour per result code (the same code, the same colour)."""
    if code in ("-", ""):
        return None
    h = zlib.crc32(code.encode()) % 360
    return QColor.fromHsl(h, 110, 225)


class TablesPane(QWidget):
    message = Signal(str)

    def __init__(self, doc, stack, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.stack = stack
        self.key: TableKey | None = None
        self.table: Table | None = None
        self._loading = False
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        split = QSplitter()
        self.list = QListWidget()
        self.list.setMinimumWidth(220)
        split.addWidget(self.list)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(4, 4, 4, 4)
        self.title = QLabel("")
        f = self.title.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.title.setFont(f)
        rl.addWidget(self.title)
        self.grid = QTableWidget()
        self.grid.setSelectionMode(QAbstractItemView.SingleSelection)
        self.grid.verticalHeader().hide()  # the first column names the row, as on the printed chart
        self.grid.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed |
                                  QAbstractItemView.AnyKeyPressed)
        rl.addWidget(self.grid, 1)
        bl = QHBoxLayout()
        self.b_add = QPushButton("Add row")
        self.b_add.setToolTip("A copy of the selected row, after it")
        self.b_del = QPushButton("Delete row")
        self.b_align = QPushButton("Align columns")
        self.b_align.setToolTip("Re-write the table with every column aligned (one undo step)")
        for b in (self.b_add, self.b_del, self.b_align):
            bl.addWidget(b)
        bl.addStretch(1)
        self.where = QLabel("")
        bl.addWidget(self.where)
        rl.addLayout(bl)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        lay.addWidget(split)
        self.list.currentItemChanged.connect(self._picked)
        self.grid.cellChanged.connect(self._cell_changed)
        self.b_add.clicked.connect(self.add_row)
        self.b_del.clicked.connect(self.delete_row)
        self.b_align.clicked.connect(self.align)
        # read when the tab is first shown (MainWindow._tab_changed): opening a game parses nothing more

    # -- reading ------------------------------------------------------------------
    def reload(self) -> None:
        found = tables_of(self.doc)
        keys = [k for k, _ in found]
        self.list.blockSignals(True)
        self.list.clear()
        for k, _ in found:
            it = QListWidgetItem(k.label)
            it.setToolTip(k.shown)
            it.setData(Qt.UserRole, k)
            self.list.addItem(it)
        self.list.blockSignals(False)
        key = self.key if self.key in keys else (keys[0] if keys else None)
        if key is not None:
            self.list.setCurrentRow(keys.index(key))
            self.show_table(key)
        else:
            self.show_table(None)

    def _picked(self, item, _prev=None) -> None:
        if item is not None:
            self.show_table(item.data(Qt.UserRole))

    def select(self, label: str) -> bool:
        """Show the table whose label is ``label`` (e.g. "crt standard")."""
        for i in range(self.list.count()):
            if self.list.item(i).text() == label:
                self.list.setCurrentRow(i)
                return True
        return False

    def show_table(self, key: TableKey | None) -> None:
        self.key = key
        self.table = None
        if key is not None:
            for k, t in tables_of(self.doc):
                if k == key:
                    self.table = t
        self._loading = True
        self.grid.clear()
        t = self.table
        if t is None or t.header is None:
            self.grid.setRowCount(0)
            self.grid.setColumnCount(0)
            self.title.setText("No table" if key is None else f"{key.label}: not found")
            self._loading = False
            return
        self.title.setText(key.label)
        self.where.setText(f"{key.shown}:{t.span.line}")
        header = [c.text for c in t.header.cells]
        self.grid.setColumnCount(len(header))
        self.grid.setHorizontalHeaderLabels(header)
        self.grid.setRowCount(len(t.body))
        results = key.kind in RESULT_TABLES
        bold = QFont(self.grid.font())
        bold.setBold(True)
        for r, row in enumerate(t.body):
            for c, cell in enumerate(row.cells):
                it = QTableWidgetItem(cell.text)
                it.setData(Qt.UserRole, cell.quoted)
                it.setTextAlignment(Qt.AlignCenter)
                if c == 0:
                    it.setFont(bold)
                    it.setBackground(QBrush(QColor("#ece8da")))
                elif results:
                    col = result_colour(cell.text)
                    if col is not None:
                        it.setBackground(QBrush(col))
                self.grid.setItem(r, c, it)
        self.grid.resizeColumnsToContents()
        self._loading = False

    # -- writing ------------------------------------------------------------------
    def _push(self, label: str, edits) -> None:
        self.stack.push(TextCommand(self.doc, label, {self.key.shown: list(edits)}))
        self.doc.refresh()

    def row_values(self, r: int) -> list[str]:
        out = []
        for c in range(self.grid.columnCount()):
            it = self.grid.item(r, c)
            if it is None:
                continue
            text = it.text().strip()
            out.append(T.cell(text, quoted=bool(it.data(Qt.UserRole)) or (" " in text)))
        return out

    def _cell_changed(self, r: int, c: int) -> None:
        if self._loading or self.table is None:
            return
        row = self.table.body[r]
        old = row.cells[c].text if c < len(row.cells) else ""
        new = self.grid.item(r, c).text().strip()
        if new == old:
            return
        if not new:
            self.message.emit("a cell cannot be empty: write - for nothing")
            self.show_table(self.key)
            return
        text = self.doc.files[self.key.shown].text
        ref = T.RowRef(None, self.table, row)
        values = self.row_values(r)
        col = self.table.header.cells[c].text if c < len(self.table.header.cells) else str(c)
        self._push(f"{self.key.label}: {row.cells[0].text} {col} = {new}", [T.replace_row(text, ref, values)])
        self.show_table(self.key)

    def current_row(self) -> int:
        r = self.grid.currentRow()
        return r if 0 <= r < (len(self.table.body) if self.table else 0) else -1

    def add_row(self) -> None:
        if self.table is None or not self.table.body:
            return
        r = self.current_row()
        r = r if r >= 0 else len(self.table.body) - 1
        row = self.table.body[r]
        text = self.doc.files[self.key.shown].text
        self._push(f"{self.key.label}: add a row after {row.cells[0].text}",
                   [T.insert_row_after(text, self.table.header, row.span.line, self.row_values(r))])
        self.show_table(self.key)
        self.grid.setCurrentCell(r + 1, 0)

    def delete_row(self) -> None:
        r = self.current_row()
        if self.table is None or r < 0:
            return
        row = self.table.body[r]
        if row.span.line == self.table.header.span.line or row.span.end_line != row.span.line:
            self.message.emit("this row shares its line with another: edit it in the rules text")
            return
        text = self.doc.files[self.key.shown].text
        self._push(f"{self.key.label}: delete row {row.cells[0].text}", [T.delete_line(text, row.span.line)])
        self.show_table(self.key)

    def align(self) -> None:
        if self.table is None:
            return
        rows = [[T.quote(c.text) if c.quoted else c.text for c in r.cells] for r in self.table.rows]
        text = self.doc.files[self.key.shown].text
        edits = [e for e in T.rewrite_table(text, self.table, rows) if text[e[0]:e[1]] != e[2]]
        if edits:
            self._push(f"{self.key.label}: align columns", edits)
            self.show_table(self.key)
