"""The hexforge editor's main window, and ``main(argv)``.

    hexforge edit [GAME] [--screenshot OUT.png] [--size 1600x1000] [--tab map|counters|rules]

Tabs: Map (tools on the left, the scenario's order of battle on the right),
Counters, Rules text.  Diagnostics from the compiler are listed at the
bottom; clicking one jumps to its line (and to its hex, if it names one).
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPixmap, QUndoStack
from PySide6.QtWidgets import (QApplication, QButtonGroup, QCheckBox, QComboBox, QDialog, QDialogButtonBox,
                               QDockWidget, QFileDialog, QFormLayout, QGridLayout, QGroupBox, QHBoxLayout,
                               QInputDialog, QLabel, QLineEdit, QListWidget, QListWidgetItem, QMainWindow,
                               QMessageBox, QPushButton, QRadioButton, QScrollArea, QSpinBox, QTabWidget,
                               QToolButton, QVBoxLayout, QWidget)

from dsl.checker import DASHES
from dsl.scaffold import NewGame
from dsl.outputs import cannot_write, say_error, written
from runtime.definition import MapHex
from runtime.hexes import Grid, Hex

from .commands import MapCommand, TextCommand
from .counters import CountersPane
from .document import EditError, GameDocument, LoadError, MapModel
from .headless import headless
from .watch import FileWatcher
from .mapview import TOOLS, MapView, ToolSettings, add_action
from .paint import S
from .rules import RulesPane
from .scenario import ScenarioPane
from .stackview import StackView, setup_entries
from .turnstrip import TurnStrip

TOOL_TITLES = {"select": "Select", "terrain": "Terrain", "fill": "Fill", "feature": "Town/city",
               "hexside": "Hexside", "link": "Road/rail", "supply": "Supply", "area": "Area",
               "boundary": "Play area", "setup": "Setup"}
TOOL_TIPS = {
    "select": "Select a hex to edit its terrain, features, name and VP",
    "terrain": "Paint terrain (1- or 7-hex brush); right-click picks the terrain under the cursor",
    "fill": "Flood-fill the connected hexes of one terrain",
    "feature": "Add a feature (town, city...) to hexes; click a hex that has it to remove it",
    "hexside": "Click near a hex edge to add or remove a river, major river, bridge...",
    "link": "Drag from hex to hex to draw a road or railway; right-drag erases",
    "supply": "Click hexes to make them supply sources of the chosen side",
    "area": "Click hexes to add them to the chosen area (setup areas, objectives)",
    "boundary": "Click hexes to take them out of play (or back in)",
    "setup": "Drag counters between hexes; drop counters from the scenario panel",
}


def _swatch(colour: str) -> QIcon:
    pm = QPixmap(14, 14)
    pm.fill(QColor(colour))
    return QIcon(pm)


class GridDialog(QDialog):
    """New map / resize: columns × rows, numbering, shifted columns."""

    def __init__(self, parent, title: str, grid: Grid | None, terrains: list[str], default: str = "clear"):
        super().__init__(parent)
        self.setWindowTitle(title)
        f = QFormLayout(self)
        g = grid or Grid("flat", "even", 1, 1, 20, 15, 2, 2)
        self.cols = QSpinBox(); self.cols.setRange(1, 500); self.cols.setValue(g.cols)
        self.rows = QSpinBox(); self.rows.setRange(1, 500); self.rows.setValue(g.rows)
        self.c0 = QSpinBox(); self.c0.setRange(0, 999); self.c0.setValue(g.first_col)
        self.r0 = QSpinBox(); self.r0.setRange(0, 999); self.r0.setValue(g.first_row)
        self.cd = QSpinBox(); self.cd.setRange(1, 4); self.cd.setValue(g.col_digits)
        self.rd = QSpinBox(); self.rd.setRange(1, 4); self.rd.setValue(g.row_digits)
        self.orient = QComboBox(); self.orient.addItems(["flat", "pointy"]); self.orient.setCurrentText(g.orientation)
        self.shifted = QComboBox(); self.shifted.addItems(["even", "odd"]); self.shifted.setCurrentText(g.shifted)
        self.default = QComboBox(); self.default.addItems(terrains)
        if default in terrains:
            self.default.setCurrentText(default)
        f.addRow("Columns", self.cols)
        f.addRow("Rows", self.rows)
        f.addRow("First column number", self.c0)
        f.addRow("First row number", self.r0)
        f.addRow("Digits for the column", self.cd)
        f.addRow("Digits for the row", self.rd)
        f.addRow("Hexes", self.orient)
        f.addRow("Shifted columns (rows if pointy)", self.shifted)
        f.addRow("Terrain of new hexes", self.default)
        bb = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        f.addRow(bb)

    def grid(self) -> Grid:
        cd = max(self.cd.value(), len(str(self.c0.value() + self.cols.value() - 1)))
        rd = max(self.rd.value(), len(str(self.r0.value() + self.rows.value() - 1)))
        return Grid(self.orient.currentText(), self.shifted.currentText(), self.c0.value(), self.r0.value(),
                    self.cols.value(), self.rows.value(), cd, rd)


class ToolPanel(QWidget):
    """Tool buttons, each tool's settings, and the selected hex's inspector."""

    def __init__(self, win: "MainWindow"):
        super().__init__()
        self.win = win
        self.doc = win.doc
        self.settings = win.settings
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        box = QGroupBox("Tools")
        gl = QGridLayout(box)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QToolButton] = {}
        for i, t in enumerate(TOOLS):
            b = QToolButton()
            b.setText(TOOL_TITLES[t])
            b.setToolTip(TOOL_TIPS[t])
            b.setCheckable(True)
            b.setToolButtonStyle(Qt.ToolButtonTextOnly)
            b.setMinimumWidth(84)
            self.group.addButton(b)
            self.buttons[t] = b
            b.clicked.connect(lambda _=False, t=t: self.set_tool(t))
            gl.addWidget(b, i // 2, i % 2)
        lay.addWidget(box)
        opts = QGroupBox("Brush")
        fl = QFormLayout(opts)
        self.terrain = QComboBox()
        self.brush1 = QRadioButton("1 hex")
        self.brush7 = QRadioButton("7 hexes")
        self.brush1.setChecked(True)
        bl = QHBoxLayout()
        bl.addWidget(self.brush1)
        bl.addWidget(self.brush7)
        self.feature = QComboBox()
        self.hexside = QComboBox()
        self.link = QComboBox()
        self.side = QComboBox()
        self.area = QComboBox()
        self.area_new = QPushButton("New…")
        self.area_rename = QPushButton("Rename…")
        self.area_rename.setToolTip("Rename the area, in the map and wherever the rules name it")
        self.area_delete = QPushButton("Delete")
        self.area_delete.setToolTip("Delete the area from the map (the Diagnostics list rules that still name it)")
        self.area_show = QCheckBox("Show all areas")
        al = QHBoxLayout()
        for b in (self.area_new, self.area_rename, self.area_delete):
            al.addWidget(b)
        al.addStretch(1)
        fl.addRow("Terrain", self.terrain)
        fl.addRow("Size", bl)
        fl.addRow("Feature", self.feature)
        fl.addRow("Hexside", self.hexside)
        fl.addRow("Link", self.link)
        fl.addRow("Side", self.side)
        self.edges = {e: QCheckBox(e[0].upper()) for e in ("north", "south", "east", "west")}
        el = QHBoxLayout()
        for e, cb in self.edges.items():
            cb.setToolTip(f"the {e} map edge is a supply source of this side")
            el.addWidget(cb)
            cb.toggled.connect(self.edges_changed)
        fl.addRow("Supply edges", el)
        fl.addRow("Area", self.area)
        fl.addRow("", al)
        fl.addRow("", self.area_show)
        lay.addWidget(opts)
        insp = QGroupBox("Hex")
        il = QFormLayout(insp)
        self.hex_label = QLabel("—")
        self.h_terrain = QComboBox()
        self.h_name = QLineEdit()
        self.h_vp = QSpinBox()
        self.h_vp.setRange(0, 999)
        self.h_feats = QListWidget()
        self.h_feats.setMaximumHeight(90)
        self.h_counters = QLabel("")
        self.h_counters.setWordWrap(True)
        il.addRow("Hex", self.hex_label)
        il.addRow("Terrain", self.h_terrain)
        il.addRow("Features", self.h_feats)
        il.addRow("Name", self.h_name)
        il.addRow("VP", self.h_vp)
        il.addRow("Counters", self.h_counters)
        lay.addWidget(insp)
        lay.addStretch(1)
        self.hex: Hex | None = None
        self._loading = False
        self.terrain.currentTextChanged.connect(lambda t: setattr(self.settings, "terrain", t) if t else None)
        self.brush1.toggled.connect(lambda on: setattr(self.settings, "brush", 1 if on else 7))
        self.feature.currentTextChanged.connect(lambda t: setattr(self.settings, "feature", t) if t else None)
        self.hexside.currentTextChanged.connect(lambda t: setattr(self.settings, "hexside", t) if t else None)
        self.link.currentTextChanged.connect(lambda t: setattr(self.settings, "link", t) if t else None)
        self.side.currentTextChanged.connect(self.side_changed)
        self.area.currentTextChanged.connect(self.area_changed)
        self.area_new.clicked.connect(self.new_area)
        self.area_rename.clicked.connect(self.ask_rename_area)
        self.area_delete.clicked.connect(lambda: self.area.currentText() and
                                         self.win.delete_area(self.area.currentText()))
        self.area_show.toggled.connect(self.area_changed)
        self.h_terrain.currentTextChanged.connect(self.inspector_changed)
        self.h_name.editingFinished.connect(self.inspector_changed)
        self.h_vp.valueChanged.connect(self.inspector_changed)
        self.h_feats.itemChanged.connect(self.inspector_changed)
        self.set_tool(self.settings.tool)

    def _fill(self, combo: QComboBox, items: list[str], current: str) -> None:
        snap = self.doc.snapshot
        if [combo.itemText(i) for i in range(combo.count())] == items:
            return
        combo.blockSignals(True)
        combo.clear()
        for it in items:
            t = snap.terrain.get(it)
            if t is not None:
                combo.addItem(_swatch(t.colour), it)
            else:
                combo.addItem(it)
        if current in items:
            combo.setCurrentText(current)
        combo.blockSignals(False)

    def reload(self) -> None:
        snap = self.doc.snapshot
        st = self.settings
        for combo, kind, attr in ((self.terrain, "terrain", "terrain"), (self.feature, "feature", "feature"),
                                  (self.hexside, "hexside", "hexside"), (self.link, "link", "link")):
            items = snap.of_kind(kind)
            self._fill(combo, items, getattr(st, attr))
            if getattr(st, attr) not in items and items:
                setattr(st, attr, items[0])
            combo.setCurrentText(getattr(st, attr))
        self._fill(self.h_terrain, snap.of_kind("terrain"), "")
        self._fill(self.side, list(snap.sides), st.side)
        if st.side not in snap.sides and snap.sides:
            st.side = next(iter(snap.sides))
        self.side.setCurrentText(st.side)
        areas = sorted(self.doc.map.areas) if self.doc.map else []
        self._fill(self.area, areas, st.area)
        if st.area not in areas:
            st.area = areas[0] if areas else ""
        self.area.setCurrentText(st.area)
        self.side_changed(st.side)
        self.show_hex(self.hex)

    def set_tool(self, tool: str) -> None:
        self.settings.tool = tool
        self.buttons[tool].setChecked(True)
        self.area_changed()
        self.win.statusBar().showMessage(TOOL_TIPS[tool], 5000)

    def side_changed(self, side: str) -> None:
        if side:
            self.settings.side = side
        m = self.doc.map
        for e, cb in self.edges.items():
            cb.blockSignals(True)
            cb.setChecked(bool(m) and e in m.supply_edges.get(self.settings.side, ()))
            cb.setEnabled(bool(m) and bool(self.settings.side))
            cb.blockSignals(False)

    def edges_changed(self) -> None:
        m = self.doc.map
        if m is None or not self.settings.side:
            return
        new = tuple(e for e, cb in self.edges.items() if cb.isChecked())
        if new != m.supply_edges.get(self.settings.side, ()):
            self.win.stack.push(MapCommand(self.doc, f"{self.settings.side} supply edges",
                                           [(("edges", self.settings.side), new)]))

    def area_changed(self, *_a) -> None:
        a = self.area.currentText()
        self.settings.area = a
        mv = self.win.map_view
        if self.area_show.isChecked() and self.doc.map is not None:
            mv.mp.options.areas = set(self.doc.map.areas)
        elif self.settings.tool == "area" and a:
            mv.mp.options.areas = {a}
        else:
            mv.mp.options.areas = set()
        if mv.item is not None:
            mv.item.update()

    def new_area(self) -> None:
        if self.doc.map is None:
            return
        name, ok = QInputDialog.getText(self, "New area", "Area id (letters, digits, - _ .):")
        if not ok or not name:
            return
        self.win.create_area(name.strip())

    def ask_rename_area(self) -> None:
        old = self.area.currentText()
        if self.doc.map is None or not old:
            return
        name, ok = QInputDialog.getText(self, "Rename area", f"New id for area {old}:", text=old)
        if ok and name and name.strip() != old:
            self.win.rename_area(old, name.strip())

    # -- inspector -------------------------------------------------------------------
    def show_hex(self, h: Hex | None) -> None:
        self.hex = h
        m = self.doc.map
        self._loading = True
        try:
            if h is None or m is None or h not in m.hexes:
                self.hex_label.setText("—")
                for w in (self.h_terrain, self.h_name, self.h_vp, self.h_feats):
                    w.setEnabled(False)
                self.h_counters.setText("")
                return
            mh = m.hexes[h]
            inplay = m.in_play(h)
            self.hex_label.setText(m.grid.format_id(h) + ("" if inplay else " (not in play)"))
            for w in (self.h_terrain, self.h_name, self.h_vp, self.h_feats):
                w.setEnabled(inplay)
            self.h_terrain.setCurrentText(mh.terrain)
            self.h_name.setText(mh.name)
            self.h_vp.setValue(mh.vp)
            self.h_feats.clear()
            for f in self.doc.snapshot.of_kind("feature"):
                it = QListWidgetItem(f)
                it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
                it.setCheckState(Qt.Checked if f in mh.features else Qt.Unchecked)
                self.h_feats.addItem(it)
            hid = m.grid.format_id(h)
            here = [cid for cid, at in self.doc.placements(self.win.scenario_pane.scenario).items() if at == hid]
            self.h_counters.setText(", ".join(here) or "—")
        finally:
            self._loading = False

    def inspector_changed(self, *_a) -> None:
        if self._loading or self.hex is None or self.doc.map is None:
            return
        m = self.doc.map
        h = self.hex
        old = m.hexes[h]
        feats = tuple(self.h_feats.item(i).text() for i in range(self.h_feats.count())
                      if self.h_feats.item(i).checkState() == Qt.Checked)
        feats = tuple(f for f in old.features if f in feats) + tuple(f for f in feats if f not in old.features)
        name = hex_name(self.h_name.text())
        if name in DASHES:  # (the map file reads a name of dashes as no name: it would vanish on saving)
            self.win.statusBar().showMessage(f"'{name}' reads as no name in a map file: give a name, or none", 8000)
            self.h_name.setText(old.name)
            name = old.name
        elif name != self.h_name.text():
            self.h_name.setText(name)
        new = MapHex(h, self.h_terrain.currentText() or old.terrain, feats, name, self.h_vp.value())
        if new != old:
            self.win.stack.push(MapCommand(self.doc, f"edit hex {m.grid.format_id(h)}", [(("hex", h), new)]))


def hex_name(text: str) -> str:
    """A hex's name as typed or pasted: line breaks, tabs and other control
    characters (a map file's line cannot hold them) become spaces."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


class MainWindow(QMainWindow):
    checked = Signal(object, object)  # (revision, result) of a compile run off the GUI thread

    def __init__(self, doc: GameDocument, autosave_ms: int = 30000):
        super().__init__()
        self.doc = doc
        self._checking = False  # a background compile is running
        self._check_again = False  # the texts changed while it ran
        self._closed = False
        self.stack = QUndoStack(self)
        self.settings = ToolSettings()
        self._pending = False
        self.ask_on_close = True  # tests and --screenshot close without asking
        self.resize(1600, 1000)
        # central tabs
        self.tabs = QTabWidget()
        self.map_view = MapView(doc, self.stack, self.settings)
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("QLabel { background: #fff3c4; border-bottom: 1px solid #c9a400; padding: 4px; }")
        self.banner.setCursor(Qt.PointingHandCursor)
        self.banner.setToolTip("Click to go to the problem")
        self.banner.mousePressEvent = lambda _e: self.banner_clicked()
        self.banner.hide()
        self.map_msg = QLabel()
        self.map_msg.setWordWrap(True)
        self.map_msg.setAlignment(Qt.AlignCenter)
        map_page = QWidget()
        ml = QVBoxLayout(map_page)
        ml.setContentsMargins(0, 0, 0, 0)
        ml.addWidget(self.map_msg)
        ml.addWidget(self.map_view, 1)
        self.turn_strip = TurnStrip(doc)
        ml.addWidget(self.turn_strip)
        self.counters = CountersPane(doc)
        self.rules = RulesPane(doc, self.stack)
        self.tabs.addTab(map_page, "Map")
        self.tabs.addTab(self.counters, "Counters")
        from .declarations import DeclarationsPane
        from .tables import TablesPane
        self.declarations = DeclarationsPane(doc, self.stack)
        self.tables = TablesPane(doc, self.stack)
        self.stale_tabs: set = {self.declarations, self.tables}  # form tabs to re-read when shown
        self.tabs.addTab(self.declarations, "Declarations")
        self.tabs.addTab(self.tables, "Tables")
        self.tabs.addTab(self.rules, "Rules text")
        central = QWidget()
        cl = QVBoxLayout(central)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.banner)
        cl.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        # docks
        self.scenario_pane = ScenarioPane(doc)
        self.tools = ToolPanel(self)
        d = QDockWidget("Tools", self)
        d.setObjectName("tools")
        sa = QScrollArea()
        sa.setWidget(self.tools)
        sa.setWidgetResizable(True)
        d.setWidget(sa)
        self.addDockWidget(Qt.LeftDockWidgetArea, d)
        d = QDockWidget("Scenario", self)
        d.setObjectName("scenario")
        d.setWidget(self.scenario_pane)
        self.addDockWidget(Qt.RightDockWidgetArea, d)
        self.stack_view = StackView()  # the selected hex's units with what each carries (attachments)
        d = QDockWidget("Stack", self)
        d.setObjectName("stack")
        d.setWidget(self.stack_view)
        self.addDockWidget(Qt.RightDockWidgetArea, d)
        self.stack_dock = d
        d.setVisible(bool(doc.snapshot.attachments))
        self.diag_list = QListWidget()
        d = QDockWidget("Diagnostics", self)
        d.setObjectName("diagnostics")
        d.setWidget(self.diag_list)
        self.addDockWidget(Qt.BottomDockWidgetArea, d)
        self.resizeDocks([d], [130], Qt.Vertical)
        self.hover = QLabel()
        self.statusBar().addPermanentWidget(self.hover)
        self._menus()
        from .navigation import install as install_navigation
        install_navigation(self)
        # wiring
        doc.text_listeners.append(self.on_text_changed)
        doc.refresh_listeners.append(self.on_refreshed)
        if doc.map is not None:
            doc.map.listeners.append(self.on_map_changed)
        self.stack.indexChanged.connect(self.on_index_changed)
        self.stack.cleanChanged.connect(self.update_title)
        self.map_view.hexHovered.connect(self.on_hover)
        self.map_view.hexSelected.connect(self.tools.show_hex)
        self.map_view.hexSelected.connect(self.show_stack)
        self.map_view.counterDropped.connect(self.place)
        self.map_view.message.connect(lambda m: self.statusBar().showMessage(m, 4000))
        self.scenario_pane.scenarioChanged.connect(self.map_view.set_scenario)
        self.scenario_pane.tree.placeRequested.connect(self.place)
        self.turn_strip.placeRequested.connect(self.place)
        self.scenario_pane.scenarioChanged.connect(self.turn_strip.reload)
        self.scenario_pane.tree.counterActivated.connect(self.show_counter)
        self.counters.editRequested.connect(self.edit_counter)
        self.counters.addRequested.connect(self.add_counter)
        self.counters.duplicateRequested.connect(self.duplicate_counter)
        self.counters.deleteRequested.connect(self.delete_counter)
        self.rules.locationRequested.connect(self.open_location)
        self.tables.message.connect(lambda m: self.statusBar().showMessage(m, 5000))
        self.counters.message.connect(lambda m: self.statusBar().showMessage(m, 6000))
        self.declarations.message.connect(lambda m: self.statusBar().showMessage(m, 5000))
        self.tabs.currentChanged.connect(self._tab_changed)
        self.rules.message.connect(lambda m: self.statusBar().showMessage(m, 4000))
        self.diag_list.itemActivated.connect(self.diagnostic_clicked)
        self.diag_list.itemClicked.connect(self.diagnostic_clicked)
        self.refresh_timer = QTimer(self)
        self.refresh_timer.setSingleShot(True)
        self.refresh_timer.timeout.connect(self.refresh_in_background)
        self.check_timer = QTimer(self)
        self.check_timer.setSingleShot(True)
        self.check_timer.timeout.connect(self.start_check)
        self.checked.connect(self.on_checked)
        self.autosave_timer = QTimer(self)
        self.autosave_timer.timeout.connect(self.autosave)
        if autosave_ms > 0:
            self.autosave_timer.start(autosave_ms)
        self.watcher = FileWatcher(self)
        self.watcher.changed.connect(self.on_changed_on_disk)
        self.watcher.watch(doc.disk_paths())
        self.on_refreshed()
        self.map_view.set_scenario(self.scenario_pane.scenario)
        self.initial_zoom()
        if doc.unchecked:
            self.start_check()

    # -- menus ----------------------------------------------------------------------------
    def _menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self.act(f, "&New game…", self.new_game, QKeySequence.New)
        self.act(f, "&Open…", self.open_game, QKeySequence.Open)
        self.act(f, "&Save", self.save, QKeySequence.Save)
        self.act(f, "Save &as…", self.save_as, QKeySequence.SaveAs)
        f.addSeparator()
        self.act(f, "&Render map…", self.render_dialog)
        f.addSeparator()
        self.act(f, "&Quit", self.close, QKeySequence.Quit)
        e = mb.addMenu("&Edit")
        u = self.stack.createUndoAction(self, "&Undo")
        u.setShortcut(QKeySequence.Undo)
        r = self.stack.createRedoAction(self, "&Redo")
        r.setShortcut(QKeySequence.Redo)
        e.addAction(u)
        e.addAction(r)
        m = mb.addMenu("&Map")
        self.act(m, "&New map…", self.new_map)
        self.act(m, "&Resize map…", self.resize_map)
        self.act(m, "&Background image…", self.choose_background)
        v = mb.addMenu("&View")
        self.ids_action = self.act(v, "Hex &IDs", self.toggle_ids, "Ctrl+I")
        self.ids_action.setCheckable(True)
        self.act(v, "Zoom &in", lambda: self.map_view.zoom(1.25), QKeySequence.ZoomIn)
        self.act(v, "Zoom &out", lambda: self.map_view.zoom(0.8), QKeySequence.ZoomOut)
        self.act(v, "&Fit map", self.map_view.fit, "Ctrl+0")
        g = mb.addMenu("&Game")
        self.act(g, "&Check with every variant", lambda: self.check_now(True), "F7")
        self.act(g, "&Play…", self.play, "F5")
        self.act(g, "&Balance…", self.balance)

    def act(self, menu, text, slot, shortcut=None) -> QAction:
        return add_action(self, menu, text, slot, shortcut)

    # -- refresh ----------------------------------------------------------------------------
    def on_text_changed(self, shown: str) -> None:
        self.rules.text_changed(shown)
        if self.doc.typing:
            self.refresh_timer.start(400)
        else:
            self._pending = True
            self.refresh_timer.start(0)

    def on_index_changed(self, _i: int) -> None:
        if self._pending:
            self.refresh_now()
        self.update_title()

    def on_map_changed(self, hexes) -> None:
        if self.tools.hex is not None and (hexes is None or self.tools.hex in hexes):
            self.tools.show_hex(self.tools.hex)
        if hexes is None:
            self.tools.reload()
        self.check_timer.start(800)

    def refresh_now(self) -> None:
        self._pending = False
        self.refresh_timer.stop()
        self.doc.refresh()

    def refresh_in_background(self) -> None:
        """After a typing pause or an edit: re-read the texts at once (the
        views follow) and compile them on another thread, so that typing
        never waits for the compiler."""
        self._pending = False
        self.refresh_timer.stop()
        self.doc.refresh(check=False)
        self.start_check()

    def start_check(self) -> None:
        import threading

        if self._closed or self.doc.closed:
            return
        if self._checking:
            self._check_again = True
            return
        rev, job = self.doc.check_job()
        self._checking = True
        def run() -> None:
            result = job()
            try:
                self.checked.emit(rev, result)
            except RuntimeError:  # the window was closed and deleted meanwhile
                pass

        threading.Thread(target=run, name="hexforge-check", daemon=True).start()

    def on_checked(self, rev, result) -> None:
        self._checking = False
        if self._closed or self.doc.closed:
            return
        if not self.doc.take_check(rev, result) or self._check_again:
            self._check_again = False
            self.start_check()
            return
        self.show_diagnostics()

    def check_now(self, variants: bool = False) -> None:
        self.doc.check(variants=variants)
        self.show_diagnostics()
        if variants:
            n = len([d for d in self.doc.diagnostics if d.severity == "error"])
            self.statusBar().showMessage(f"checked with every variant: {n} error(s)", 6000)

    def on_refreshed(self) -> None:
        if bool(self.doc.snapshot.attachments) and not self.stack_dock.isVisible() and self.isVisible():
            self.stack_dock.setVisible(True)
        if self.doc.map is not None and self.map_view.item is None:
            self.map_view.rebuild()
            if self.on_map_changed not in self.doc.map.listeners:
                self.doc.map.listeners.append(self.on_map_changed)
            self.initial_zoom()
        if self.doc.map is None:
            if self.doc.map_problems:
                self.map_msg.setText("The map file did not load, so it cannot be edited yet (nothing is lost; "
                                     "the file is not rewritten). Fix it in the Rules text tab: "
                                     + "; ".join(f"{d.span}: {d.message}" for d in self.doc.map_problems[:3]))
            else:
                self.map_msg.setText("This game has no map yet (or its rules do not read): see Diagnostics.")
            self.map_msg.show()
        else:
            self.map_msg.hide()
        self.tools.reload()
        self.counters.reload()
        for pane in (self.declarations, self.tables):
            if self.tabs.currentWidget() is pane:
                pane.reload()
            else:
                self.stale_tabs.add(pane)  # re-read when the tab is shown
        self.scenario_pane.reload()
        self.turn_strip.reload(self.scenario_pane.scenario)
        self.map_view.set_scenario(self.scenario_pane.scenario)
        if set(self.doc.files) != {self.rules.files.itemText(i) for i in range(self.rules.files.count())}:
            self.rules.reload_files()
        elif self.rules.shown and self.doc.editable_text(self.rules.shown) == self.rules.edit.isReadOnly():
            self.rules.open_file(self.rules.shown)  # the map file became (un)editable as text
        self.show_diagnostics()
        self.update_title()

    def _tab_changed(self, _i: int) -> None:
        pane = self.tabs.currentWidget()
        if pane in self.stale_tabs:
            self.stale_tabs.discard(pane)
            pane.reload()

    def banner_problem(self):
        """The problem the banner names: a syntax error while the views show
        the last version that read, else the first error the compiler found."""
        if self.doc.showing_last_read is not None:
            return self.doc.showing_last_read
        return next((d for d in self.doc.diagnostics if d.severity == "error"), None)

    def update_banner(self) -> None:
        d = self.banner_problem()
        if d is None:
            self.banner.hide()
            return
        where = f"{d.span}: " if d.span else ""
        n = len([x for x in self.doc.diagnostics if x.severity == "error"])
        more = f" (and {n - 1} more in Diagnostics)" if n > 1 else ""
        if self.doc.showing_last_read is not None:
            head = "The rules do not read, so the map, counters and scenario show the last version that did."
        else:
            head = "The game does not compile: Play uses the last version that did." if self.doc.game else                 "The game does not compile yet."
        self.banner.setText(f"<b>{head}</b> {where}{d.message}{more} — click to go there")
        self.banner.show()

    def banner_clicked(self) -> None:
        d = self.banner_problem()
        if d is not None and d.span is not None and d.span.file in self.doc.files:
            self.open_location(d.span.file, d.span.line, d.span.col)

    def show_diagnostics(self) -> None:
        self.update_banner()
        self.diag_list.clear()
        items = list(self.doc.diagnostics)
        if self.doc.map_problems:
            items = [d for d in self.doc.map_problems if d not in items] + items
        for d in items:
            where = str(d.span) if d.span else (self.doc.folder.name if self.doc.folder is not None else "the game")
            text = f"{where}: {d.severity}: {d.message}" + (f"  (hint: {d.hint})" if d.hint else "")
            it = QListWidgetItem(text)
            it.setForeground(QColor("#b00000" if d.severity == "error" else "#a06000"))
            it.setData(Qt.UserRole, d)
            self.diag_list.addItem(it)
        if not items and self.doc.unchecked:
            it = QListWidgetItem("Checking the game…")
            it.setForeground(QColor("#606060"))
            self.diag_list.addItem(it)
        elif not items:
            it = QListWidgetItem("No problems: the game compiles.")
            it.setForeground(QColor("#207020"))
            self.diag_list.addItem(it)
        self.rules.show_diagnostics()

    def update_title(self, *_a) -> None:
        dirty = self.doc.dirty_files()
        names = ", ".join(s.split("/")[-1] for s in dirty)
        star = "*" if dirty else ""
        self.setWindowTitle(f"{star}{self.doc.title} — hexforge" + (f"  (unsaved: {names})" if dirty else ""))

    def on_hover(self, h) -> None:
        m = self.doc.map
        if h is None or m is None:
            self.hover.setText("")
            return
        mh = m.hexes[h]
        extra = (" " + ",".join(mh.features)) if mh.features else ""
        name = f" “{mh.name}”" if mh.name else ""
        self.hover.setText(f"{m.grid.format_id(h)}  {mh.terrain}{extra}{name}"
                           + ("  (not in play)" if h in m.outside else ""))

    def initial_zoom(self) -> None:
        """Hexes about 34 pixels across: names legible, a good part of the map in view."""
        if self.doc.map is None:
            return
        r = self.map_view.mp.scene_rect()
        vp = self.map_view.viewport().size()
        fit = min(vp.width() / r.width(), vp.height() / r.height()) if r.width() and r.height() else 1
        self.map_view.zoom_to(min(max(fit, 0.3), 60 / S) if fit * S >= 34 else 34 / S)
        self.map_view.centerOn(r.center())

    # -- map commands ----------------------------------------------------------------------
    def toggle_ids(self) -> None:
        self.map_view.mp.options.show_ids = self.ids_action.isChecked()
        if self.map_view.item:
            self.map_view.item.update()

    def new_map(self) -> None:
        terrains = self.doc.snapshot.of_kind("terrain")
        if not self.doc.map_shown:
            QMessageBox.warning(self, "New map", 'This game names no map file: add map "map.hxm" to its game block.')
            return
        dlg = GridDialog(self, "New map", None, terrains, self.doc.map.default if self.doc.map else "clear")
        if dlg.exec() != QDialog.Accepted:
            return
        self.make_map(dlg.grid(), dlg.default.currentText())

    def make_map(self, grid: Grid, default: str) -> None:
        fresh = MapModel(grid, self.doc.map.name if self.doc.map else self.doc.game_name, default,
                         self.doc.map.title if self.doc.map else "", self.doc.map.header if self.doc.map else "")
        if self.doc.map is None:
            self.doc.map = fresh
            self.doc.map_loaded_state = None
            self.on_refreshed()
            return
        self.stack.push(MapCommand(self.doc, "new map", [(("state",), fresh.state())]))

    def choose_background(self, path: str | None = None) -> bool:
        """An image under the map (a scan or the designer's art), copied into
        the game folder's art/; it covers the grid, hexes drawn over it."""
        m = self.doc.map
        if m is None:
            QMessageBox.warning(self, "Background image", "This game has no map yet.")
            return False
        if path is None:
            path = QFileDialog.getOpenFileName(self, "Map background", "", "Images (*.png *.svg *.jpg *.jpeg)")[0]
            if not path:
                return False
        try:
            rel = self.doc.import_art(path)
        except (EditError, OSError) as e:
            QMessageBox.warning(self, "Background image", str(e))
            return False
        self.stack.push(MapCommand(self.doc, f"map background {rel}", [(("meta", "background"), rel)]))
        self.map_view.item.invalidate() if hasattr(self.map_view.item, "invalidate") else None
        return True

    def resize_map(self) -> None:
        m = self.doc.map
        if m is None:
            return
        dlg = GridDialog(self, "Resize map", m.grid, self.doc.snapshot.of_kind("terrain"), m.default)
        if dlg.exec() != QDialog.Accepted:
            return
        self.resize_to(dlg.grid(), dlg.default.currentText())

    def resize_to(self, grid: Grid, default: str | None = None) -> None:
        m = self.doc.map
        self.stack.push(MapCommand(self.doc, "resize map", [(("state",), m.resized_state(grid, default))]))

    def create_area(self, name: str) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_\-.]*", name or ""):
            QMessageBox.warning(self, "New area", f"'{name}' is not a valid name")
            return
        if name in self.doc.map.areas:
            QMessageBox.warning(self, "New area", f"there is already an area {name}")
            return
        self.stack.push(MapCommand(self.doc, f"new area {name}", [(("area-def", name), "")]))
        self.settings.area = name
        self.tools.reload()
        self.tools.area.setCurrentText(name)

    def rename_area(self, old: str, new: str) -> bool:
        """Rename a map area in the map and in the rules that name it: one undo step."""
        try:
            changes, edits = self.doc.area_rename(old, new)
        except EditError as e:
            self.statusBar().showMessage(str(e), 8000)
            QApplication.beep()
            return False
        self.stack.beginMacro(f"rename area {old} to {new}")
        self.stack.push(MapCommand(self.doc, f"rename area {old} to {new}", changes))
        if edits:
            self.stack.push(TextCommand(self.doc, f"rename area {old} to {new} in the rules", edits))
        self.stack.endMacro()
        self.settings.area = new
        self.tools.reload()
        self.tools.area.setCurrentText(new)
        places = sum(len(v) for v in edits.values())
        self.statusBar().showMessage(f"area {old} is now {new}" +
                                     (f", also in {places} place{'s' * (places != 1)} of the rules" if places else ""),
                                     8000)
        if self._pending:
            self.refresh_now()
        return True

    def delete_area(self, name: str) -> bool:
        m = self.doc.map
        if m is None or name not in m.areas:
            return False
        hexes = sorted(m.areas[name], key=m.grid.to_colrow)
        self.stack.push(MapCommand(self.doc, f"delete area {name}", [(("area", name, h), False) for h in hexes]
                                   + [(("area-def", name), None)]))
        places = sum(len(v) for v in self.doc.area_references(name, name).values())
        self.tools.reload()
        self.statusBar().showMessage(f"area {name} deleted" + (
            f"; the rules still name it in {places} place{'s' * (places != 1)} (see Diagnostics)" if places else ""),
            8000)
        if self._pending:
            self.refresh_now()
        return True

    # -- counters and setup -------------------------------------------------------------------
    def push_text(self, label: str, make) -> bool:
        try:
            edits = make()
        except EditError as e:
            self.statusBar().showMessage(str(e), 8000)
            QApplication.beep()
            return False
        if not edits:
            return False
        self.stack.push(TextCommand(self.doc, label, edits))
        if self._pending:
            self.refresh_now()
        return True

    def edit_counter(self, cid: str, column: str, value: str) -> None:
        snap = self.doc.snapshot
        c = snap.counters.get(cid)
        if c is None:
            return
        if column in ("full", "reduced") and value.strip() not in ("", "-"):
            cls = snap.classes.get(c.unit_class)
            parts = value.strip().split("-")
            if cls and (len(parts) != len(cls.factors) or not all(p.isdigit() for p in parts)):
                self.statusBar().showMessage(f"'{value}' does not fit class {cls.id}: it prints "
                                             f"{'-'.join(cls.factors)}", 8000)
                QApplication.beep()
                return
        if self.push_text(f"{cid}: {column} = {value}", lambda: self.doc.counter_edits(cid, {column: value})):
            self.counters.select(value if column == "id" else cid)

    def add_counter(self, group: str) -> None:
        out = {}

        def make():
            cid, edits = self.doc.add_counter_edits(group)
            out["id"] = cid
            return edits
        if self.push_text(f"add counter to {group}", make):
            self.counters.select(out["id"])

    def duplicate_counter(self, cid: str) -> None:
        out = {}

        def make():
            nid, edits = self.doc.new_counter_edits(cid)
            out["id"] = nid
            return edits
        if self.push_text(f"duplicate {cid}", make):
            self.counters.select(out["id"])

    def delete_counter(self, cid: str) -> None:
        self.push_text(f"delete {cid}", lambda: self.doc.delete_counter_edits(cid))

    def place(self, cid: str, at) -> None:
        sc = self.scenario_pane.scenario
        if not sc:
            self.statusBar().showMessage("this game has no scenario to set up", 6000)
            return
        if self.doc.placements(sc).get(cid) == at:
            return
        label = f"set up {cid} at {at}" if at else f"take {cid} out of the setup"
        self.push_text(label, lambda: self.doc.placement_edits(sc, cid, at))
        self.map_view.counters_changed()

    def show_stack(self, h) -> None:
        """The stack view: the units the scenario sets up in hex ``h`` (or in a
        pool or area ``h`` names), each with the counters under it."""
        m = self.doc.map
        if h is None or m is None:
            return
        at = h if isinstance(h, str) else m.grid.format_id(h)
        if not at:
            self.stack_view.show_entries("", [])
            return
        placements = self.doc.placements(self.scenario_pane.scenario)
        self.stack_view.show_entries(f"<b>{at}</b>", setup_entries(self.doc.snapshot, placements, at,
                                                                    art=self.doc.art_path))

    def show_counter(self, cid: str) -> None:
        at = self.doc.placements(self.scenario_pane.scenario).get(cid, "")
        host = at if at in self.doc.snapshot.counters else ""  # under a unit: that unit's stack
        self.show_stack(self.doc.placements(self.scenario_pane.scenario).get(host, "") if host else at)
        m = self.doc.map
        self.map_view.mp.options.selected_counter = cid
        if m is not None and at.isdigit():
            try:
                self.map_view.centre_on_hex(m.grid.parse_id(at))
            except ValueError:
                pass
        elif m is not None and at in m.areas:
            self.map_view.mp.options.areas = {at}
            a = self.map_view.mp.area_anchor(at)
            if a is not None:
                self.map_view.centre_on_hex(a)
        if self.map_view.item:
            self.map_view.item.update()

    # -- diagnostics and locations ----------------------------------------------------------
    def diagnostic_clicked(self, item) -> None:
        d = item.data(Qt.UserRole)
        if d is None:
            return
        m = self.doc.map
        hx = re.search(r"\bhex (\d{2,})\b", d.message)
        if hx and m is not None:
            try:
                h = m.grid.parse_id(hx.group(1))
                self.map_view.centre_on_hex(h)
                self.tools.show_hex(h)
            except ValueError:
                hx = None
        if d.span is not None and d.span.file in self.doc.files and not (hx and d.span.file == self.doc.map_shown):
            self.open_location(d.span.file, d.span.line, d.span.col, switch=not hx)
        elif hx:
            self.tabs.setCurrentIndex(0)

    def open_location(self, shown: str, line: int, col: int = 1, switch: bool = True) -> None:
        if shown == self.doc.map_shown and self.doc.map is not None:
            # an area or a map line: show it on the map
            text = self.doc.text(shown).split("\n")
            if 0 < line <= len(text) and text[line - 1].startswith("area "):
                name = text[line - 1].split()[1]
                self.map_view.mp.options.areas = {name}
                a = self.map_view.mp.area_anchor(name)
                if a is not None:
                    self.map_view.centre_on_hex(a)
                self.tabs.setCurrentIndex(0)
                return
        self.rules.go_to(shown, line, col)
        if switch:
            self.tabs.setCurrentWidget(self.rules)

    # -- files ------------------------------------------------------------------------------------
    def save(self) -> bool:
        if self.doc.folder is None:
            return self.save_as()
        try:
            written = self.doc.save()
        except EditError as e:
            r = QMessageBox.question(self, "Save", f"{e}.\nOverwrite with your version?")
            if r != QMessageBox.Yes:
                return False
            written = self.doc.save(force=True)
        except OSError as e:
            QMessageBox.critical(self, "Save", f"could not save: {e}")
            return False
        self.stack.setClean()
        self.watcher.watch(self.doc.disk_paths())  # a new import's file, too
        self.statusBar().showMessage("saved " + (", ".join(written) if written else "(nothing changed)"), 5000)
        self.update_title()
        return True

    def save_as(self) -> bool:
        if self.doc.folder is not None:
            QMessageBox.information(self, "Save as", "An opened game is saved in its own folder.")
            return False
        d = QFileDialog.getSaveFileName(self, "New game folder", str(Path.cwd() / self.doc.game_name))[0]
        if not d:
            return False
        self.offer_game_id(Path(d).name)
        try:
            self.doc.save_as(d)
        except (EditError, OSError) as e:
            QMessageBox.critical(self, "Save as", str(e))
            return False
        self.stack.setClean()
        self.rules.reload_files()
        self.watcher.watch(self.doc.disk_paths())
        self.update_title()
        return True

    def offer_game_id(self, folder_name: str) -> None:
        """Save As into a folder whose name differs from the game id: offer to
        rename the game (and its map) to match, as one undo step."""
        from dsl.scaffold import slug

        try:
            old = self.doc.game_id()
        except EditError:
            return
        new = slug(folder_name)
        if not old or new == old:
            return
        r = QMessageBox.question(self, "Save as", f"Rename the game id from '{old}' to '{new}', "
                                 f"the name of its new folder?")
        if r != QMessageBox.Yes:
            return
        try:
            edits, map_changes = self.doc.game_id_edits(new)
        except EditError as e:
            QMessageBox.warning(self, "Save as", str(e))
            return
        self.stack.beginMacro(f"rename game {old} to {new}")
        self.stack.push(TextCommand(self.doc, f"rename game {old} to {new}", edits))
        if map_changes:
            self.stack.push(MapCommand(self.doc, f"rename map {old} to {new}", map_changes))
        self.stack.endMacro()
        self.doc.refresh()

    def on_changed_on_disk(self, names: list[str]) -> None:
        """Files another program changed: reload those without unsaved edits;
        ask about those with (keeping them keeps your version, and Save then
        asks before overwriting)."""
        if self._closed or self.doc.closed:
            return  # a window being closed (or closed) asks nothing
        changed = set(self.doc.changed_on_disk())
        dirty = set(self.doc.dirty_files())
        reloaded = []
        for shown in names:
            if shown not in changed:
                continue  # our own save, or the same bytes again
            if shown in dirty:
                r = QMessageBox.question(self, "Changed on disk",
                                         f"{shown} was changed on disk by another program, and you have "
                                         "unsaved edits in it.\nReload it from disk and lose your edits?")
                if r != QMessageBox.Yes:
                    self.statusBar().showMessage(f"{shown} changed on disk: your version is kept", 8000)
                    continue
            if self.doc.reload_from_disk(shown):
                reloaded.append(shown)
        if reloaded:
            self.stack.clear()  # its steps refer to the texts as they were
            self.rules.reload_files()
            self.statusBar().showMessage("reloaded from disk: " + ", ".join(reloaded), 8000)
            self.update_title()

    def autosave(self) -> None:
        try:
            p = self.doc.autosave()
        except OSError:
            return
        if p is not None:
            self.statusBar().showMessage(f"autosaved to {p}", 3000)

    def maybe_save(self) -> bool:
        if not self.doc.dirty or not self.ask_on_close:
            return True
        r = QMessageBox.question(self, "Unsaved changes", "Save your changes?",
                                 QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel)
        if r == QMessageBox.Cancel:
            return False
        if r == QMessageBox.Save:
            return self.save()
        return True

    def closeEvent(self, e) -> None:
        if not self.maybe_save():
            e.ignore()
            return
        if self.ask_on_close:
            self.doc.discard_recovery()
        self.autosave_timer.stop()
        self._closed = True
        self.watcher.watch({})
        self.doc.close()
        e.accept()

    def new_game(self) -> None:
        from .newgame import NewGameDialog

        dlg = NewGameDialog(self)
        if dlg.exec() != QDialog.Accepted:
            return
        w = open_window(None, spec=dlg.spec())
        if w is not None:
            w.show()

    def open_game(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Open a game folder")
        if d:
            w = open_window(d)
            if w is not None:
                w.show()

    def play(self):
        """Game > Play…: playtest a scenario of the game as it stands (editor/play.py)."""
        from .play import start_playtest
        return start_playtest(self)

    def balance(self):
        """Game > Balance…: a batch of bot games in the background (editor/balance.py)."""
        from .balance import start_balance
        self.balance_dialog = start_balance(self)
        return self.balance_dialog

    def render_dialog(self) -> None:
        out = QFileDialog.getSaveFileName(self, "Render map", str(Path.cwd() / f"{self.doc.game_name}.png"),
                                          "Images (*.png *.svg *.pdf)")[0]
        if out:
            from .render import render_to_file
            try:
                render_to_file(self.doc, out, self.scenario_pane.scenario)
            except (OSError, ValueError) as e:
                QMessageBox.critical(self, "Render map", f"{out} was not written: {e}")
                return
            self.statusBar().showMessage(f"rendered {out}", 5000)


_windows: list[MainWindow] = []


def open_window(path, ask_recovery: bool = True, autosave_ms: int = 30000, parent=None,
                spec=None) -> MainWindow | None:
    """Open a game folder (or a new game for ``None``, made from ``spec``, a
    dsl.scaffold.NewGame) in a new window."""
    try:
        if path:
            doc = GameDocument.open(path, check=False)  # the window compiles it off the GUI thread
        else:
            s = spec or NewGame()
            doc = GameDocument.new(s.game_id, s.title, s.cols, s.rows, s.sides)
    except LoadError as e:
        QMessageBox.critical(parent, "Open game", str(e))
        return None
    data = doc.pending_recovery() if ask_recovery else None
    if doc.recovery_problem:
        QMessageBox.warning(parent, "Recover unsaved changes", doc.recovery_problem)
    if data:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(data.get("time", 0)))
        r = QMessageBox.question(parent, "Recover unsaved changes",
                                 f"hexforge did not close cleanly. Recover the unsaved changes of {when} "
                                 f"({', '.join(data.get('files', {}))})?")
        if r == QMessageBox.Yes:
            doc.recover()
        else:
            doc.discard_recovery()
    w = MainWindow(doc, autosave_ms)
    if doc.recovery_problem:
        w.statusBar().showMessage(doc.recovery_problem, 15000)
    _windows.append(w)
    return w


def ensure_app() -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("hexforge")
    return app


def screenshot(w: MainWindow, out: str, tab: str = "map") -> bool:
    """Draw the window to ``out``; whether the file was written."""
    app = QApplication.instance()
    w.tabs.setCurrentWidget({"map": w.tabs.widget(0), "counters": w.counters, "declarations": w.declarations,
                             "tables": w.tables, "rules": w.rules}.get(tab, w.tabs.widget(0)))
    w.show()
    for _ in range(5):
        app.processEvents()
    if tab == "map":
        w.initial_zoom()
    elif tab == "counters" and w.counters.model.rows:
        w.counters.select(w.counters.model.rows[min(5, len(w.counters.model.rows) - 1)].id)
    for _ in range(5):
        app.processEvents()
    return w.grab().save(out) and written(out)


MAX_SCREENSHOT = 8192  # pixels a side: --screenshot's window (the least is 1280x800)


def main(argv: list[str] | None = None) -> int:
    from .cli import add_edit_arguments

    p = argparse.ArgumentParser(prog="hexforge edit", description="Open a game in the hexforge editor")
    add_edit_arguments(p)
    args = p.parse_args(argv)
    game = args.game or ""
    if args.screenshot:
        headless()
        why = cannot_write(args.screenshot)  # before the work, not after it
        if why:
            say_error(f"cannot write {args.screenshot}: {why}")
            return 1
    app = ensure_app()
    if args.game and not Path(args.game).exists():
        say_error("no such game folder", game)
        return 1
    if args.screenshot:
        try:
            wd, ht = (int(x) for x in args.size.lower().split("x"))
        except ValueError:
            say_error("--size is WIDTHxHEIGHT, such as 1600x1000", game)
            return 1
        if max(wd, ht) > MAX_SCREENSHOT:  # (99999x99999 crashed Qt: a window of 40 GB)
            say_error(f"--size is at most {MAX_SCREENSHOT}x{MAX_SCREENSHOT} pixels, not {args.size}", game)
            return 1
        try:
            doc = GameDocument.open(args.game) if args.game else GameDocument.new()
        except LoadError as e:
            say_error(e.why, game)
            return 1
        w = MainWindow(doc, autosave_ms=0)
        w.ask_on_close = False
        w.resize(max(wd, 1280), max(ht, 800))
        if args.scenario:
            w.scenario_pane.combo.setCurrentText(args.scenario)
        ok = screenshot(w, args.screenshot, args.tab)
        doc.close()
        if not ok:
            say_error(f"cannot write {args.screenshot}: the image was not saved")
            return 1
        print(f"wrote {args.screenshot}")
        return 0
    w = open_window(args.game)
    if w is None:
        return 1
    if args.scenario:
        w.scenario_pane.combo.setCurrentText(args.scenario)
    w.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
