"""Getting around a big game: go to hex (Ctrl+G), find in the rules text
(Ctrl+F, F3), the overview map (a minimap that shows and moves the view),
one-key tools on the map, and the undo history."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QPainter, QPen, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import (QDockWidget, QHBoxLayout, QInputDialog, QLabel, QLineEdit, QMenu, QToolButton,
                               QUndoView, QWidget)

# one key per map tool while the map has the focus
TOOL_KEYS = {"select": "S", "terrain": "T", "fill": "F", "feature": "C", "hexside": "H", "link": "R",
             "supply": "U", "area": "A", "boundary": "B", "setup": "P"}


class FindBar(QWidget):
    """Find in the shown rules file: Enter / F3 next, Shift+Enter / Shift+F3
    previous, Esc closes; wraps around the file."""

    def __init__(self, edit, parent=None):
        super().__init__(parent)
        self.edit = edit
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.addWidget(QLabel("Find:"))
        self.text = QLineEdit()
        self.text.setPlaceholderText("text in this file (Enter: next, Shift+Enter: previous, Esc: close)")
        lay.addWidget(self.text, 1)
        prev, nxt, close = QToolButton(), QToolButton(), QToolButton()
        prev.setText("◀")
        nxt.setText("▶")
        close.setText("✕")
        prev.clicked.connect(lambda: self.find(backward=True))
        nxt.clicked.connect(lambda: self.find())
        close.clicked.connect(self.hide)
        for b in (prev, nxt, close):
            lay.addWidget(b)
        self.status = QLabel("")
        lay.addWidget(self.status)
        self.text.returnPressed.connect(self.find)
        self.text.textEdited.connect(lambda _t: self.find(from_start=True))
        self.hide()

    def keyPressEvent(self, e) -> None:
        if e.key() == Qt.Key_Escape:
            self.hide()
            self.edit.setFocus()
        elif e.key() in (Qt.Key_Return, Qt.Key_Enter) and e.modifiers() & Qt.ShiftModifier:
            self.find(backward=True)
        else:
            super().keyPressEvent(e)

    def open(self) -> None:
        sel = self.edit.textCursor().selectedText()
        if sel and "\u2029" not in sel:
            self.text.setText(sel)
        self.show()
        self.text.setFocus()
        self.text.selectAll()

    def find(self, backward: bool = False, from_start: bool = False) -> bool:
        needle = self.text.text()
        if not needle:
            self.status.setText("")
            return False
        flags = QTextDocument.FindBackward if backward else QTextDocument.FindFlag(0)
        if from_start:
            c = self.edit.textCursor()
            c.setPosition(c.selectionStart())
            self.edit.setTextCursor(c)
        if self.edit.find(needle, flags):
            self.status.setText("")
            return True
        # wrap around
        c = self.edit.textCursor()
        c.movePosition(QTextCursor.End if backward else QTextCursor.Start)
        self.edit.setTextCursor(c)
        found = self.edit.find(needle, flags)
        self.status.setText("wrapped" if found else "not found")
        return found


class Overview(QWidget):
    """The whole map, small, with the main view's visible region outlined;
    a click or a drag centres the main view there."""

    centreRequested = Signal(float, float)  # scene coordinates

    def __init__(self, win, parent=None):
        super().__init__(parent)
        self.win = win
        self.setMinimumSize(160, 110)
        self._image = None
        self._key = None
        self.setToolTip("The whole map: click or drag to move the view")

    def _scene_rect(self) -> QRectF:
        return self.win.map_view.mp.scene_rect()

    def _fit(self) -> tuple[float, float, float]:
        r = self._scene_rect()
        s = min(self.width() / max(r.width(), 1), self.height() / max(r.height(), 1))
        ox = (self.width() - r.width() * s) / 2
        oy = (self.height() - r.height() * s) / 2
        return s, ox, oy

    def refresh_image(self) -> None:
        """Re-draw the small map (after the map changed; cheap: the map is
        drawn a few pixels a hex)."""
        self._image = None
        self.update()

    def paintEvent(self, _e) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#f4f1e8"))
        m = self.win.doc.map
        if m is None:
            p.drawText(self.rect(), Qt.AlignCenter, "no map")
            return
        s, ox, oy = self._fit()
        key = (m.revision, self.width(), self.height())
        if self._image is None or self._key != key:
            from PySide6.QtGui import QImage
            img = QImage(self.width(), self.height(), QImage.Format_ARGB32_Premultiplied)
            img.fill(QColor("#f4f1e8"))
            ip = QPainter(img)
            r = self._scene_rect()
            ip.translate(ox, oy)
            ip.scale(s, s)
            ip.translate(-r.left(), -r.top())
            self.win.map_view.mp.paint_static(ip, r, s, names=False)
            ip.end()
            self._image, self._key = img, key
        p.drawImage(0, 0, self._image)
        view = self.win.map_view
        vis = view.mapToScene(view.viewport().rect()).boundingRect()
        r = self._scene_rect()
        box = QRectF(ox + (vis.left() - r.left()) * s, oy + (vis.top() - r.top()) * s, vis.width() * s, vis.height() * s)
        p.setPen(QPen(QColor("#d01010"), 2))
        p.setBrush(QColor(255, 0, 0, 30))
        p.drawRect(box.intersected(QRectF(self.rect())))

    def _centre(self, pos) -> None:
        s, ox, oy = self._fit()
        r = self._scene_rect()
        self.centreRequested.emit(r.left() + (pos.x() - ox) / s, r.top() + (pos.y() - oy) / s)

    def mousePressEvent(self, e) -> None:
        self._centre(e.position())

    def mouseMoveEvent(self, e) -> None:
        if e.buttons() & Qt.LeftButton:
            self._centre(e.position())


def go_to_hex(win, text: str | None = None) -> bool:
    """Centre the map on a hex, by its printed ID or its name ("Minsk")."""
    m = win.doc.map
    if m is None:
        win.statusBar().showMessage("this game has no map yet", 4000)
        return False
    if text is None:
        text, ok = QInputDialog.getText(win, "Go to hex", "Hex ID or town name (e.g. 0927 or Minsk):")
        if not ok:
            return False
    text = text.strip()
    h = None
    try:
        h = m.grid.parse_id(text)
        if not m.grid.contains(h):
            win.statusBar().showMessage(f"hex {text} is not on this map "
                                        f"({m.grid.format_id(m.grid.to_hex(m.grid.first_col, m.grid.first_row))}"
                                        f" to {m.grid.format_id(m.grid.to_hex(m.grid.first_col + m.grid.cols - 1, m.grid.first_row + m.grid.rows - 1))})",
                                        6000)
            return False
    except ValueError:
        named = [x for x, mh in m.hexes.items() if mh.name and mh.name.casefold() == text.casefold()]
        if not named:
            named = [x for x, mh in m.hexes.items() if mh.name and mh.name.casefold().startswith(text.casefold())]
        if not named:
            win.statusBar().showMessage(f"no hex {text!r}: give a hex ID such as "
                                        f"{m.grid.format_id(next(iter(m.hexes)))} or a town's name", 6000)
            return False
        h = sorted(named, key=m.grid.to_colrow)[0]
    win.tabs.setCurrentIndex(0)
    win.map_view.centre_on_hex(h)
    win.tools.show_hex(h)
    win.statusBar().showMessage(f"hex {m.grid.format_id(h)}" + (f" ({m.hexes[h].name})" if m.hexes[h].name else ""),
                                4000)
    return True


def install(win) -> None:
    """Add the navigation to a main window: menu items, shortcuts, docks."""
    # find in the rules text
    win.find_bar = FindBar(win.rules.edit, win.rules)
    win.rules.layout().addWidget(win.find_bar)

    def find() -> None:
        win.tabs.setCurrentWidget(win.rules)
        win.find_bar.open()

    def find_next(backward: bool = False) -> None:
        if not win.find_bar.text.text():
            find()
            return
        win.tabs.setCurrentWidget(win.rules)
        win.find_bar.show()
        win.find_bar.find(backward=backward)

    nav = QMenu("&Navigate", win)
    game = next((a for a in win.menuBar().actions() if a.text() == "&Game"), None)
    if game is not None:
        win.menuBar().insertMenu(game, nav)  # before Game, the menu of the whole game
    else:
        win.menuBar().addMenu(nav)
    win.act(nav, "&Go to hex…", lambda: go_to_hex(win), "Ctrl+G")
    win.act(nav, "&Find in rules…", find, QKeySequence.Find)
    win.act(nav, "Find &next", lambda: find_next(), QKeySequence.FindNext)
    win.act(nav, "Find &previous", lambda: find_next(True), QKeySequence.FindPrevious)
    # one key a tool, only while the map has the focus (typing in the rules is not affected)
    win.tool_shortcuts = {}
    for tool, key in TOOL_KEYS.items():
        sc = QShortcut(QKeySequence(key), win.map_view)
        sc.setContext(Qt.WidgetWithChildrenShortcut)
        sc.activated.connect(lambda t=tool: win.tools.set_tool(t))
        win.tool_shortcuts[tool] = sc
        b = win.tools.buttons.get(tool)
        if b is not None:
            b.setToolTip(f"{b.toolTip()} (key {key} on the map)")
    # the overview map
    win.overview = Overview(win)
    d = QDockWidget("Overview", win)
    d.setObjectName("overview")
    d.setWidget(win.overview)
    win.addDockWidget(Qt.RightDockWidgetArea, d)
    win.overview.centreRequested.connect(lambda x, y: win.map_view.centerOn(QPointF(x, y)))
    for bar in (win.map_view.horizontalScrollBar(), win.map_view.verticalScrollBar()):
        bar.valueChanged.connect(lambda _v: win.overview.update())
    win._overview_timer = QTimer(win)
    win._overview_timer.setSingleShot(True)
    win._overview_timer.timeout.connect(win.overview.refresh_image)
    if win.doc.map is not None:
        win.doc.map.listeners.append(lambda _hexes: win._overview_timer.start(300))
    # the undo history
    hist = QUndoView(win.stack)
    hist.setEmptyLabel("(opened)")
    d2 = QDockWidget("History", win)
    d2.setObjectName("history")
    d2.setWidget(hist)
    win.addDockWidget(Qt.RightDockWidgetArea, d2)
    win.tabifyDockWidget(d, d2)
    d.raise_()
    win.history_view = hist
    view_menu = next((a.menu() for a in win.menuBar().actions() if a.text() == "&View"), None)
    if view_menu is not None:
        view_menu.addSeparator()
        view_menu.addAction(d.toggleViewAction())
        view_menu.addAction(d2.toggleViewAction())
