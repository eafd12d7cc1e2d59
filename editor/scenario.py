"""The scenario panel: the order of battle grouped by where each counter
starts (not set up, on the map, in an area, in a pool, on the turn track).
Counters are dragged from here onto map hexes, onto pool and turn-track
entries, or back to "Not set up"; a counter that goes under a unit (an
attachment kind) is listed under its unit and dragged onto a unit to put it
there (``at UNIT`` in the set-up)."""
from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QDrag, QIcon
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from .mapview import MIME
from .paint import counter_pixmap, look_for

ROLE = Qt.UserRole


class SetupTree(QTreeWidget):
    placeRequested = Signal(str, object)  # counter id, at (str) or None: not set up
    counterActivated = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDrop)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)
        self.can_host = lambda cid, host: False  # may ``cid`` be dropped under the unit ``host``

    def _activated(self, item, col=0) -> None:
        d = item.data(0, ROLE)
        if d and d[0] == "counter":
            self.counterActivated.emit(d[1])

    def startDrag(self, actions) -> None:
        item = self.currentItem()
        d = item.data(0, ROLE) if item else None
        if not d or d[0] != "counter":
            return
        drag = QDrag(self)
        md = QMimeData()
        md.setData(MIME, d[1].encode("utf-8"))
        md.setText(d[1])
        drag.setMimeData(md)
        drag.setPixmap(item.icon(0).pixmap(40, 40))
        drag.exec(Qt.MoveAction)

    def target_at(self, pos, cid: str = ""):
        item = self.itemAt(pos)
        d = item.data(0, ROLE) if item is not None else None
        if cid and d and d[0] == "counter" and self.can_host(cid, d[1]):
            return ("target", d[1])  # under that unit
        while item is not None:
            d = item.data(0, ROLE)
            if d and d[0] == "target":
                return d
            item = item.parent()
        return None

    def dragEnterEvent(self, e) -> None:
        if e.mimeData().hasFormat(MIME):
            e.acceptProposedAction()
        else:
            e.ignore()

    def dragMoveEvent(self, e) -> None:
        cid = bytes(e.mimeData().data(MIME)).decode("utf-8") if e.mimeData().hasFormat(MIME) else ""
        if cid and self.target_at(e.position().toPoint(), cid) is not None:
            e.acceptProposedAction()
        else:
            e.ignore()

    def dropEvent(self, e) -> None:
        cid = bytes(e.mimeData().data(MIME)).decode("utf-8") if e.mimeData().hasFormat(MIME) else ""
        t = self.target_at(e.position().toPoint(), cid) if cid else None
        if t is None:
            e.ignore()
            return
        e.acceptProposedAction()
        self.placeRequested.emit(cid, t[1])


class ScenarioPane(QWidget):
    scenarioChanged = Signal(str)

    def __init__(self, doc, parent=None):
        super().__init__(parent)
        self.doc = doc
        self._icons: dict[tuple, QIcon] = {}
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        top = QHBoxLayout()
        top.addWidget(QLabel("Scenario:"))
        self.combo = QComboBox()
        top.addWidget(self.combo, 1)
        lay.addLayout(top)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.tree = SetupTree()
        self.tree.setIconSize(self.tree.iconSize() * 2)
        self.tree.can_host = self.can_host
        lay.addWidget(self.tree, 1)
        hint = QLabel("Drag counters onto map hexes, onto an area, pool or turn, or back to <i>Not set up</i>.")
        hint.setWordWrap(True)
        lay.addWidget(hint)
        self.combo.currentTextChanged.connect(self._changed)

    def can_host(self, cid: str, host: str) -> bool:
        """Whether a counter of an attachment kind may be set up under ``host`` (its kind, side and hosts)."""
        snap = self.doc.snapshot
        kind = snap.attachment_of(cid)
        if kind is None or cid == host or host not in snap.counters or snap.attachment_of(host) is not None:
            return False
        if snap.counters[cid].side != snap.counters[host].side:
            return False
        return not kind.hosts or bool(kind.hosts & snap.selectors_of(host))

    @property
    def scenario(self) -> str:
        return self.combo.currentText()

    def _changed(self, name: str) -> None:
        self.reload_tree()
        self.scenarioChanged.emit(name)

    def icon(self, cid: str) -> QIcon:
        look = look_for(self.doc.snapshot, cid, art=self.doc.art_path)
        key = (look.label, look.factors, look.symbol, look.size, look.colour, look.text_colour)
        ic = self._icons.get(key)
        if ic is None:
            ic = QIcon(counter_pixmap(look, 40))
            self._icons[key] = ic
        return ic

    def reload(self) -> None:
        names = list(self.doc.snapshot.scenarios)
        cur = self.combo.currentText()
        if [self.combo.itemText(i) for i in range(self.combo.count())] != names:
            self.combo.blockSignals(True)
            self.combo.clear()
            self.combo.addItems(names)
            if cur in names:
                self.combo.setCurrentText(cur)
            self.combo.blockSignals(False)
            if self.combo.currentText() != cur:
                self.scenarioChanged.emit(self.combo.currentText())
        self.reload_tree()

    def reload_tree(self) -> None:
        snap = self.doc.snapshot
        tree = self.tree
        expanded = set()
        for i in range(tree.topLevelItemCount()):
            it = tree.topLevelItem(i)
            if it.isExpanded():
                expanded.add(it.text(0).split(" (")[0])
            for j in range(it.childCount()):
                ch = it.child(j)
                if ch.isExpanded():
                    expanded.add(ch.text(0).split(" (")[0])
        tree.clear()
        sc = snap.scenarios.get(self.scenario)
        if sc is None:
            self.summary.setText("This game has no scenario." if not snap.scenarios else "")
            return
        placed = {k: p.at for k, p in sc.placements.items() if k in snap.counters}
        m = self.doc.map
        width = (m.grid.col_digits + m.grid.row_digits) if m else 0
        areas = set(m.areas) if m else set()

        def group(title: str, target, parent=None) -> QTreeWidgetItem:
            it = QTreeWidgetItem([title])
            it.setData(0, ROLE, ("target", target) if target != "-" else ("group", None))
            f = it.font(0)
            f.setBold(True)
            it.setFont(0, f)
            (parent.addChild(it) if parent else tree.addTopLevelItem(it))
            return it

        under: dict[str, list[str]] = {}  # unit -> the counters set up under it (attachments)
        for cid, at in placed.items():
            if at in snap.counters:
                under.setdefault(at, []).append(cid)

        def add(parent: QTreeWidgetItem, cid: str, extra: str = "") -> None:
            c = snap.counters[cid]
            it = QTreeWidgetItem([f"{cid}  {c.name}" + (f"  [{extra}]" if extra else "")])
            it.setData(0, ROLE, ("counter", cid))
            it.setIcon(0, self.icon(cid))
            it.setFlags(it.flags() | Qt.ItemIsDragEnabled)
            parent.addChild(it)
            for a in under.get(cid, ()):  # the stack: what the unit carries, under it
                add(it, a, f"under {cid}")
            it.setExpanded(bool(under.get(cid)))

        # a cup starts with the counters that arrive in it and are not set up elsewhere (runtime: Runner.new_game)
        in_cup = {cid: c.arrives for cid, c in snap.counters.items() if cid not in placed
                  and snap.pool_kinds.get(c.arrives) == "cup"}
        unplaced = [cid for cid in snap.counters if cid not in placed and cid not in in_cup]
        g = group(f"Not set up ({len(unplaced)})", None)
        for cid in unplaced:
            add(g, cid)
        on_map = sorted((at, cid) for cid, at in placed.items() if at.isdigit() and len(at) == width)
        g = group(f"On the map ({len(on_map)})", "-")
        for at, cid in on_map:
            add(g, cid, at)
        ga = group("Areas", "-")
        for a in sorted(areas):
            ids = [cid for cid, at in placed.items() if at == a]
            sub = group(f"{a} ({len(ids)})", a, ga)
            for cid in ids:
                add(sub, cid)
        gp = group("Pools", "-")
        for pid, (title, _side) in snap.pools.items():
            ids = [cid for cid, at in placed.items() if at == pid] + [cid for cid, p in in_cup.items() if p == pid]
            cup = snap.pool_kinds.get(pid) == "cup"
            sub = group(f"{pid} ({len(ids)}{', a cup' if cup else ''})", pid, gp)
            sub.setToolTip(0, title + (": drawn from at random; it starts with the counters that arrive in it"
                                       if cup else ""))
            for cid in ids:
                add(sub, cid)
        gt = group("Turn track", "-")
        for t in snap.turns:
            ids = [cid for cid, at in placed.items() if at == f"turn:{t}"]
            sub = group(f"Turn {t} ({len(ids)})", f"turn:{t}", gt)
            for cid in ids:
                add(sub, cid)
        other = [(cid, at) for cid, at in placed.items()
                 if not (at.isdigit() and len(at) == width) and at not in areas and at not in snap.pools
                 and not at.startswith("turn:") and not (at in snap.counters and at in placed)]
        if other:
            g = group(f"Unknown places ({len(other)})", "-")
            for cid, at in other:
                add(g, cid, at)
        for i in range(tree.topLevelItemCount()):
            it = tree.topLevelItem(i)
            key = it.text(0).split(" (")[0]
            it.setExpanded(key in expanded or key in ("Turn track", "Pools", "Areas") and not expanded)
            for j in range(it.childCount()):
                ch = it.child(j)
                if ch.text(0).split(" (")[0] in expanded:
                    ch.setExpanded(True)
        self.summary.setText(f"<b>{sc.title}</b>: turns {sc.first_turn}–{sc.last_turn}; "
                             f"{len(placed)} of {len(snap.counters)} counters set up")
