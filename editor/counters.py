"""The counters tab: the order of battle as a table (one row per counter
row of the rules text), a preview of the selected counter drawn from its
unit class, and add / duplicate / delete.  Every edit becomes an edit of
the counter's table row in the rules text (a TextCommand)."""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPushButton, QSplitter, QStyledItemDelegate, QTableView, QVBoxLayout, QWidget)

from .gamefile import COUNTER_COLUMNS
from .paint import counter_pixmap, look_for

HEADERS = {"id": "Id", "side": "Side", "nationality": "Nationality", "class": "Class", "full": "Full",
           "reduced": "Reduced", "formation": "Formation", "arrives": "Arrives", "name": "Name", "tags": "Tags",
           "carries": "Carries / goes under"}
COLUMNS = COUNTER_COLUMNS + ("group", "carries")
DERIVED = ("group", "carries")  # shown, never edited: the group's name; the attachment kinds (editor/gamefile.py)


def carries(snap, cid: str) -> str:
    """What a counter's row says about attachments (``attachment`` blocks): the
    kind it is, and where it returns; or, for a unit, how many of each kind it
    may carry (full / reduced)."""
    kind = snap.attachment_of(cid)
    if kind is not None:
        return f"under a unit: {kind.title or kind.id}"
    out = []
    mine = snap.selectors_of(cid)
    for k in snap.attachments.values():
        if k.hosts and not k.hosts & mine:
            continue
        full, reduced = snap.capacity(cid, k), snap.capacity(cid, k, reduced=True)
        if full is None:
            out.append(f"{k.title or k.id}: any number")
        elif full or reduced:
            out.append(f"{k.title or k.id}: {full}" + (f"/{reduced}" if reduced != full else ""))
    return "; ".join(out)


class CounterModel(QAbstractTableModel):
    editRequested = Signal(str, str, str)  # counter id, column, value

    def __init__(self, doc):
        super().__init__()
        self.doc = doc
        self.rows = []

    def reload(self) -> None:
        self.beginResetModel()
        self.rows = list(self.doc.snapshot.counters.values())
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            c = COLUMNS[section]
            return HEADERS.get(c, c.title())
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        c = self.rows[index.row()]
        col = COLUMNS[index.column()]
        if role in (Qt.DisplayRole, Qt.EditRole):
            if col == "carries":
                return carries(self.doc.snapshot, c.id)
            return c.group if col == "group" else c.get(col)
        if role == Qt.BackgroundRole and col == "id":
            bg, _ = self.doc.snapshot.look(c)
            return QColor(bg)
        if role == Qt.ForegroundRole and col == "id":
            _, fg = self.doc.snapshot.look(c)
            return QColor(fg)
        if role == Qt.ToolTipRole:
            return f"{c.file}:{c.line}"
        return None

    def flags(self, index):
        f = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        if COLUMNS[index.column()] not in DERIVED:
            f |= Qt.ItemIsEditable
        return f

    def setData(self, index, value, role=Qt.EditRole) -> bool:
        if role != Qt.EditRole:
            return False
        c = self.rows[index.row()]
        col = COLUMNS[index.column()]
        value = str(value)
        if value == c.get(col):
            return False
        self.editRequested.emit(c.id, col, value)
        return True

    def counter(self, row: int):
        return self.rows[row] if 0 <= row < len(self.rows) else None


class ChoiceDelegate(QStyledItemDelegate):
    """Side, nationality, class and arrival are chosen from what the game declares."""

    def __init__(self, doc, parent=None):
        super().__init__(parent)
        self.doc = doc

    def choices(self, col: str) -> list[str] | None:
        s = self.doc.snapshot
        if col == "side":
            return list(s.sides)
        if col == "nationality":
            return [""] + list(s.nationalities)
        if col == "class":
            return list(s.classes)
        if col == "arrives":
            return ["-"] + [str(t) for t in s.turns] + list(s.pools)
        return None

    def createEditor(self, parent, option, index):
        col = COLUMNS[index.column()]
        ch = self.choices(col)
        if ch is None:
            return super().createEditor(parent, option, index)
        cb = QComboBox(parent)
        cb.setEditable(True)
        cb.addItems(ch)
        return cb

    def setEditorData(self, editor, index):
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(index.data(Qt.EditRole) or ""))
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor, model, index):
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), Qt.EditRole)
        else:
            super().setModelData(editor, model, index)


class CountersPane(QWidget):
    editRequested = Signal(str, str, str)
    addRequested = Signal(str)  # group
    duplicateRequested = Signal(str)  # counter id
    deleteRequested = Signal(str)
    selected = Signal(str)
    message = Signal(str)

    def __init__(self, doc, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.model = CounterModel(doc)
        self.model.editRequested.connect(self.editRequested)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseInsensitive)
        self.proxy.setFilterKeyColumn(-1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter counters (id, name, class, side...)")
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        bar.addWidget(self.filter, 1)
        self.b_add = QPushButton("Add")
        self.b_dup = QPushButton("Duplicate")
        self.b_del = QPushButton("Delete")
        self.b_front = QPushButton("Front art…")
        self.b_front.setToolTip("An image for the counter's front (PNG, SVG or JPG), copied into the game's art/ folder")
        self.b_back = QPushButton("Back art…")
        self.b_back.setToolTip("An image for the counter's back (its reduced side)")
        for b in (self.b_add, self.b_dup, self.b_del, self.b_front, self.b_back):
            bar.addWidget(b)
        lay.addLayout(bar)
        split = QSplitter()
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setItemDelegate(ChoiceDelegate(doc, self.table))
        self.table.setSortingEnabled(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setResizeContentsPrecision(40)
        split.addWidget(self.table)
        side = QWidget()
        sl = QVBoxLayout(side)
        self.preview = QLabel()
        self.preview.setAlignment(Qt.AlignCenter)
        self.preview.setMinimumSize(280, 150)
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.about.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        sl.addWidget(QLabel("<b>Counter</b> (full and reduced)"))
        sl.addWidget(self.preview)
        sl.addWidget(self.about, 1)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        lay.addWidget(split)
        self.table.selectionModel().currentRowChanged.connect(self._current)
        self.b_add.clicked.connect(self._add)
        self.b_dup.clicked.connect(lambda: self.current_id() and self.duplicateRequested.emit(self.current_id()))
        self.b_del.clicked.connect(lambda: self.current_id() and self.deleteRequested.emit(self.current_id()))
        self.b_front.clicked.connect(lambda: self.choose_art("front"))
        self.b_back.clicked.connect(lambda: self.choose_art("back"))

    def reload(self) -> None:
        cur = self.current_id()
        first = not self.model.rows
        self.model.reload()
        if first and self.model.rows:
            self.fit_columns()
        if cur:
            self.select(cur)
        else:
            self.show_preview(cur)

    def fit_columns(self) -> None:
        """Column widths from the longest texts, measured in Python: Qt's
        resizeColumnsToContents asks every cell through the model, which
        took half a second for Smolensk's 226 counters."""
        fm = self.table.fontMetrics()
        header = self.table.horizontalHeader()
        hfm = header.fontMetrics()
        for i, col in enumerate(COLUMNS):
            texts = [str(self.model.headerData(i, Qt.Horizontal) or "")]
            values = [str(self.model.data(self.model.index(r, i)) or "") for r in range(len(self.model.rows))]
            longest = sorted(values, key=len, reverse=True)[:3]
            w = max([hfm.horizontalAdvance(texts[0]) + 24] + [fm.horizontalAdvance(v) + 16 for v in longest])
            self.table.setColumnWidth(i, min(w, 320))

    def current_id(self) -> str:
        idx = self.table.currentIndex()
        if not idx.isValid():
            return ""
        c = self.model.counter(self.proxy.mapToSource(idx).row())
        return c.id if c else ""

    def select(self, cid: str) -> None:
        for i, c in enumerate(self.model.rows):
            if c.id == cid:
                idx = self.proxy.mapFromSource(self.model.index(i, 0))
                if idx.isValid():
                    self.table.setCurrentIndex(idx)
                    self.table.scrollTo(idx)
                self.show_preview(cid)
                return

    def _current(self, cur, prev) -> None:
        cid = self.current_id()
        self.show_preview(cid)
        if cid:
            self.selected.emit(cid)

    def _add(self) -> None:
        cid = self.current_id()
        snap = self.doc.snapshot
        group = snap.counters[cid].group if cid in snap.counters else next(iter(snap.groups), "")
        if group:
            self.addRequested.emit(group)

    def choose_art(self, face: str, path: str | None = None) -> bool:
        """Counter art: an image file copied into the game folder's art/ and
        named in the counter's ``front`` or ``back`` column."""
        from PySide6.QtWidgets import QFileDialog

        from .document import EditError

        cid = self.current_id()
        if not cid:
            self.message.emit("select a counter first")
            return False
        if path is None:
            path = QFileDialog.getOpenFileName(self, f"{cid}: {face} art", "", "Images (*.png *.svg *.jpg *.jpeg)")[0]
            if not path:
                return False
        try:
            rel = self.doc.import_art(path)
        except (EditError, OSError) as e:
            self.message.emit(str(e))
            return False
        self.editRequested.emit(cid, face, rel)
        return True

    def show_preview(self, cid: str) -> None:
        from PySide6.QtGui import QPainter, QPixmap

        snap = self.doc.snapshot
        c = snap.counters.get(cid)
        if c is None:
            self.preview.clear()
            self.about.setText("")
            return
        full = counter_pixmap(look_for(snap, cid, art=self.doc.art_path), 128)
        pm = QPixmap(276, 132)
        pm.fill(Qt.transparent)
        p = QPainter(pm)
        p.drawPixmap(2, 2, full)
        if c.reduced or c.back:
            p.drawPixmap(142, 2, counter_pixmap(look_for(snap, cid, reduced=True, art=self.doc.art_path), 128))
        p.end()
        self.preview.setPixmap(pm)
        cls = snap.classes.get(c.unit_class)
        facs = "-".join(cls.factors) if cls else "?"
        pool = c.arrives[5:] if c.arrives.startswith("pool:") else c.arrives
        cup = " (a cup: drawn from at random)" if snap.pool_kinds.get(pool) == "cup" else ""
        attach = carries(snap, cid)
        self.about.setText(
            f"<b>{c.title}</b><br>{c.side} · {c.nationality or '—'} · {cls.title if cls else c.unit_class}<br>"
            f"prints {facs}: full {c.full or '—'}, reduced {c.reduced or '—'}<br>"
            f"formation {c.formation or '—'} · arrives {c.arrives or 'at setup'}{cup}<br>"
            + (f"{'carries' if not snap.attachment_of(cid) else 'goes'} {attach}<br>" if attach else "") +
            f"<small>{c.file}:{c.line} (group {c.group})</small>")
