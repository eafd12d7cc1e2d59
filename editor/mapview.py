"""The map view: one custom QGraphicsItem paints the exposed part of the
map (no item per hex), and the view turns mouse positions into hexes and
hexsides arithmetically (``Geometry.pick``), never with scene item queries.

Tools: select, terrain (1- or 7-hex brush), fill, feature, hexside, link
(road/railway hex to hex), supply, area, boundary (hexes in or out of
play) and setup (drag counters).  The right mouse button removes instead
of adding (for terrain it picks the terrain under the cursor).
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QMimeData, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QDrag, QImage, QPainter, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsView, QStyleOptionGraphicsItem

from runtime.definition import MapHex
from runtime.hexes import Hex, hex_line, hexside

from .commands import MapCommand, Stroke
from .paint import S, MapPainter, counter_pixmap, look_for

MIME = "application/x-hexforge-counter"
TOOLS = ("select", "terrain", "fill", "feature", "hexside", "link", "supply", "area", "boundary", "setup")


@dataclass
class ToolSettings:
    tool: str = "select"
    terrain: str = "clear"
    brush: int = 1  # 1 or 7 hexes
    feature: str = "town"
    hexside: str = "river"
    link: str = "road"
    side: str = ""
    area: str = ""


class MapItem(QGraphicsItem):
    """The whole map as one item; paints only ``option.exposedRect``.

    The static map (terrain, hexsides, links, names...) is cached in
    256-pixel tiles per zoom level; an edit drops only the tiles it touches.
    Counters, the selection and area overlays are painted over the tiles on
    every repaint."""

    TILE = 256
    MAX_TILES = 600

    def __init__(self, painter: MapPainter):
        super().__init__()
        self.mp = painter
        self.setFlag(QGraphicsItem.ItemUsesExtendedStyleOption, True)
        self._rect = painter.scene_rect()
        self.tiles: dict[tuple, tuple[QRectF, QPixmap]] = {}  # (zoom, i, j) -> (scene rect, pixmap)
        self._key = None
        self.cache = True

    def boundingRect(self) -> QRectF:
        return self._rect

    def geometry_changed(self) -> None:
        self.prepareGeometryChange()
        self._rect = self.mp.scene_rect()
        self.tiles.clear()

    def invalidate(self, rect: QRectF | None = None) -> None:
        """Drop the cached tiles that meet ``rect`` (all of them for None)."""
        if rect is None:
            self.tiles.clear()
            return
        for key in [k for k, (tr, _pm) in self.tiles.items() if tr.intersects(rect)]:
            del self.tiles[key]

    def paint(self, p: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(p.worldTransform())
        rect = option.exposedRect
        wt = p.worldTransform()
        if not self.cache or wt.isRotating() or self.mp.doc.map is None:
            self.mp.paint(p, rect, lod)
            return
        key = self.mp.static_key()
        if key != self._key:
            self.tiles.clear()
            self._key = key
        dpr = p.device().devicePixelRatioF() if p.device() is not None else 1.0
        t = self.TILE / lod  # a tile's size in scene units
        sc = round(lod, 5)
        i0, i1 = int(rect.left() // t), int(rect.right() // t)
        j0, j1 = int(rect.top() // t), int(rect.bottom() // t)
        p.save()
        p.resetTransform()
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                tr = QRectF(i * t, j * t, t, t)
                pm = self._tile((sc, i, j), tr, lod, dpr)
                origin = wt.map(tr.topLeft())
                p.drawPixmap(QPointF(round(origin.x()), round(origin.y())), pm)
        p.restore()
        self.mp.paint_dynamic(p, rect, lod)

    def _tile(self, k, tr: QRectF, lod: float, dpr: float) -> QPixmap:
        hit = self.tiles.get(k)
        if hit is not None:
            return hit[1]
        size = int(self.TILE * dpr)
        img = QImage(size, size, QImage.Format_ARGB32_Premultiplied)
        img.fill(Qt.transparent)
        q = QPainter(img)
        q.setRenderHint(QPainter.Antialiasing)
        q.setRenderHint(QPainter.TextAntialiasing)
        q.scale(lod * dpr, lod * dpr)
        q.translate(-tr.left(), -tr.top())
        self.mp.paint_static(q, tr, lod)
        q.end()
        pm = QPixmap.fromImage(img)
        pm.setDevicePixelRatio(dpr)
        if len(self.tiles) >= self.MAX_TILES:
            for old in list(self.tiles)[: self.MAX_TILES // 4]:
                del self.tiles[old]
        self.tiles[k] = (tr, pm)
        return pm


class ZoomMixin:
    """What the editor's and the playtest's map views share: set-up, zoom and
    panning with the middle button (or Alt + left drag)."""

    _pan: QPointF | None = None

    def _pan_press(self, e) -> bool:
        """Start panning on this press; True when the press is taken."""
        if e.button() == Qt.MiddleButton or (e.button() == Qt.LeftButton and e.modifiers() & Qt.AltModifier):
            self._pan = e.position()
            self.setCursor(Qt.ClosedHandCursor)
            return True
        return False

    def _pan_move(self, e) -> bool:
        if self._pan is None:
            return False
        d = e.position() - self._pan
        self._pan = e.position()
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(d.x()))
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(d.y()))
        return True

    def _pan_release(self) -> bool:
        if self._pan is None:
            return False
        self._pan = None
        self.unsetCursor()
        return True

    def _setup_view(self) -> None:
        self._scene = QGraphicsScene(self)  # the view does not own its scene: keep it
        self.setScene(self._scene)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing | QPainter.SmoothPixmapTransform)
        self.setViewportUpdateMode(QGraphicsView.MinimalViewportUpdate)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        self.setBackgroundBrush(Qt.lightGray)
        self.setMouseTracking(True)

    def zoom(self, factor: float) -> None:
        s = self.transform().m11() * factor
        if 0.04 <= s <= 8:
            self.scale(factor, factor)

    def zoom_to(self, scale: float) -> None:
        self.resetTransform()
        self.scale(scale, scale)


class MapView(ZoomMixin, QGraphicsView):
    hexHovered = Signal(object)  # Hex or None
    hexSelected = Signal(object)
    counterDropped = Signal(str, str)  # counter id, hex id
    message = Signal(str)

    def __init__(self, doc, stack, settings: ToolSettings, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.stack = stack
        self.settings = settings
        self.mp = MapPainter(doc)
        self.item: MapItem | None = None
        self._setup_view()
        self.setAcceptDrops(True)
        self.stroke: Stroke | None = None
        self._last: Hex | None = None
        self._mode_add = True
        self._drag_start: tuple[QPointF, str] | None = None
        self.rebuild()

    # -- model ------------------------------------------------------------------------
    def rebuild(self) -> None:
        """(Re)create the item for the document's map."""
        self._scene.clear()
        self.item = None
        m = self.doc.map
        if m is None:
            return
        if self.map_changed not in m.listeners:
            m.listeners.append(self.map_changed)
        self.item = MapItem(self.mp)
        self._scene.addItem(self.item)
        self._scene.setSceneRect(self.item.boundingRect())
        self.setBackgroundBrush(Qt.lightGray)

    def map_changed(self, hexes) -> None:
        if self.item is None:
            return
        geo_before = self.mp._geo
        if hexes is None or geo_before is None or geo_before.grid != self.doc.map.grid:
            self.mp.invalidate_counters()
            self.item.geometry_changed()
            self._scene.setSceneRect(self.item.boundingRect())
            self.item.update()
            return
        geo = self.mp.geo
        r = QRectF()
        for h in hexes:
            r = r.united(geo.hex_rect(h, S * 3))  # names and symbols reach past the hex
        self.item.invalidate(r)
        self.item.update(r)

    def counters_changed(self) -> None:
        self.mp.invalidate_counters()
        if self.item is not None:
            self.item.update()

    def set_scenario(self, name: str) -> None:
        self.mp.scenario = name
        self.counters_changed()

    # -- zoom -----------------------------------------------------------------------------
    def fit(self) -> None:
        if self.item is not None:
            self.fitInView(self.item.boundingRect(), Qt.KeepAspectRatio)

    def centre_on_hex(self, h: Hex) -> None:
        if self.doc.map is None:
            return
        x, y = self.mp.geo.centre(h)
        self.centerOn(x, y)
        self.mp.options.selected = h
        self.item.update()

    def wheelEvent(self, e) -> None:
        d = e.angleDelta().y()
        if d:
            self.zoom(1.2 if d > 0 else 1 / 1.2)

    # -- picking ----------------------------------------------------------------------------
    def hex_at(self, pos) -> Hex | None:
        if self.doc.map is None:
            return None
        sp = self.mapToScene(pos)
        h = self.mp.geo.pick(sp.x(), sp.y())
        return h if h in self.doc.map.hexes else None

    # -- mouse --------------------------------------------------------------------------------
    def mousePressEvent(self, e) -> None:
        if self._pan_press(e):
            return
        if self.doc.map is None or e.button() not in (Qt.LeftButton, Qt.RightButton):
            return
        sp = self.mapToScene(e.position().toPoint())
        self.press(sp.x(), sp.y(), right=e.button() == Qt.RightButton,
                   ctrl=bool(e.modifiers() & Qt.ControlModifier))

    def mouseMoveEvent(self, e) -> None:
        if self._pan_move(e):
            return
        if self.doc.map is None:
            return
        sp = self.mapToScene(e.position().toPoint())
        h = self.mp.geo.pick(sp.x(), sp.y())
        self.hexHovered.emit(h if h in self.doc.map.hexes else None)
        if self._drag_start is not None and e.buttons() & Qt.LeftButton:
            p0, cid = self._drag_start
            if (e.position() - p0).manhattanLength() > 6:
                self._drag_start = None
                self.start_drag(cid)
            return
        if self.stroke is not None and e.buttons() & (Qt.LeftButton | Qt.RightButton):
            self.move(sp.x(), sp.y())

    def mouseReleaseEvent(self, e) -> None:
        if self._pan_release():
            return
        self._drag_start = None
        self.release()

    # -- tools (also called directly by tests) ----------------------------------------------
    def press(self, x: float, y: float, right: bool = False, ctrl: bool = False) -> None:
        m = self.doc.map
        st = self.settings
        geo = self.mp.geo
        h = geo.pick(x, y)
        if h not in m.hexes:
            return
        tool = st.tool
        self._mode_add = not (right or ctrl)
        self._last = h
        if tool == "select":
            self.select(h)
            return
        if tool == "setup":
            cid = self.mp.counter_at(x, y)
            self.select(h)
            if cid:
                self.mp.options.selected_counter = cid
                self.item.update()
                self._drag_start = (self.mapFromScene(QPointF(x, y)).toPointF(), cid)
            return
        if tool == "fill":
            if right:
                self.pick_terrain(h)
                return
            hexes = m.flood(h)
            cmd = MapCommand(self.doc, f"fill {len(hexes)} hexes with {st.terrain}",
                             [(("hex", x_), self._with_terrain(m.hexes[x_], st.terrain)) for x_ in hexes
                              if m.hexes[x_].terrain != st.terrain])
            if cmd.changes:
                self.stack.push(cmd)
            return
        if tool == "terrain" and right:
            self.pick_terrain(h)
            return
        labels = {"terrain": f"paint {st.terrain}", "feature": f"{st.feature}", "hexside": f"{st.hexside}",
                  "link": f"{st.link}", "supply": "supply source", "area": f"area {st.area}",
                  "boundary": "playing area"}
        if tool == "area" and not st.area:
            self.message.emit("Choose or create an area first")
            return
        if tool == "supply" and not st.side:
            self.message.emit("Choose a side first")
            return
        self.stroke = Stroke(self.doc, labels.get(tool, tool))
        if tool in ("feature", "supply", "area", "boundary"):
            # the first hex decides: add where it was absent, remove where present
            cur = self._toggle_state(tool, h)
            self._mode_add = not cur if not (right or ctrl) else False
            if right or ctrl:
                self._mode_add = False
        if tool == "hexside":
            hx, d = geo.pick_edge(x, y)
            n = hx.neighbour(d)
            if n in m.hexes:
                s = hexside(hx, n)
                present = st.hexside in m.hexsides.get(s, ())
                self._mode_add = not present and not (right or ctrl)
        self.apply_at(x, y, h)

    def move(self, x: float, y: float) -> None:
        if self.stroke is None:
            return
        m = self.doc.map
        h = self.mp.geo.pick(x, y)
        if h not in m.hexes:
            return
        if self.settings.tool == "link":
            if self._last is not None and h != self._last:
                path = hex_line(self._last, h)
                for a, b in zip(path, path[1:]):
                    if a in m.hexes and b in m.hexes:
                        self.stroke.set(("link", self.settings.link, hexside(a, b)), self._mode_add)
                self._last = h
            return
        if self.settings.tool == "hexside":
            self.apply_at(x, y, h)
            return
        if h == self._last:
            return
        path = hex_line(self._last, h) if self._last is not None else [h]
        for hh in path[1:]:
            if hh in m.hexes:
                self.apply_at(*self.mp.geo.centre(hh), hh)
        self._last = h

    def release(self) -> None:
        if self.stroke is not None:
            cmd = self.stroke.command()
            self.stroke = None
            if cmd is not None:
                self.stack.push(cmd)
        self._last = None

    def _toggle_state(self, tool: str, h: Hex) -> bool:
        m, st = self.doc.map, self.settings
        if tool == "feature":
            return st.feature in m.hexes[h].features
        if tool == "supply":
            return h in m.supply.get(st.side, ())
        if tool == "area":
            return h in m.areas.get(st.area, ())
        if tool == "boundary":
            return h in m.outside
        return False

    @staticmethod
    def _with_terrain(mh: MapHex, terrain: str) -> MapHex:
        return MapHex(mh.hex, terrain, mh.features, mh.name, mh.vp)

    def apply_at(self, x: float, y: float, h: Hex) -> None:
        m, st, s = self.doc.map, self.settings, self.stroke
        tool = st.tool
        if tool == "terrain":
            area = h.within(1) if st.brush == 7 else [h]
            s.set_many([(("hex", a), self._with_terrain(m.hexes[a], st.terrain)) for a in area
                        if a in m.hexes and m.hexes[a].terrain != st.terrain])
        elif tool == "feature":
            mh = m.hexes[h]
            feats = tuple(f for f in mh.features if f != st.feature)
            if self._mode_add:
                feats = feats + (st.feature,)
            s.set(("hex", h), MapHex(h, mh.terrain, feats, mh.name, mh.vp))
        elif tool == "hexside":
            hx, d = self.mp.geo.pick_edge(x, y)
            n = hx.neighbour(d)
            if n not in m.hexes:
                return
            side = hexside(hx, n)
            feats = set(m.hexsides.get(side, ()))
            if self._mode_add:
                feats.add(st.hexside)
            else:
                feats.discard(st.hexside)
            s.set(("side", side), frozenset(feats))
        elif tool == "link":
            pass  # links are drawn from hex to hex in move()
        elif tool == "supply":
            s.set(("supply", st.side, h), self._mode_add)
        elif tool == "area":
            s.set(("area", st.area, h), self._mode_add)
        elif tool == "boundary":
            s.set(("out", h), self._mode_add)

    def pick_terrain(self, h: Hex) -> None:
        self.settings.terrain = self.doc.map.hexes[h].terrain
        self.message.emit(f"terrain: {self.settings.terrain}")

    def select(self, h: Hex) -> None:
        self.mp.options.selected = h
        if self.item is not None:
            self.item.update()
        self.hexSelected.emit(h)

    # -- drag and drop of counters ------------------------------------------------------------
    def start_drag(self, cid: str) -> None:
        drag = QDrag(self)
        md = QMimeData()
        md.setData(MIME, cid.encode("utf-8"))
        md.setText(cid)
        drag.setMimeData(md)
        pm: QPixmap = counter_pixmap(look_for(self.doc.snapshot, cid, art=self.doc.art_path), 48)
        drag.setPixmap(pm)
        drag.exec(Qt.MoveAction)

    def dragEnterEvent(self, e) -> None:
        if e.mimeData().hasFormat(MIME) and self.doc.map is not None:
            e.acceptProposedAction()
        else:
            e.ignore()

    def dragMoveEvent(self, e) -> None:
        h = self.hex_at(e.position().toPoint())
        if h is not None and self.doc.map.in_play(h):
            self.mp.options.highlight = {h}
            self.item.update()
            e.acceptProposedAction()
        else:
            e.ignore()

    def dragLeaveEvent(self, e) -> None:
        self.mp.options.highlight = set()
        if self.item is not None:
            self.item.update()

    def dropEvent(self, e) -> None:
        self.mp.options.highlight = set()
        h = self.hex_at(e.position().toPoint())
        if h is None or not e.mimeData().hasFormat(MIME):
            e.ignore()
            return
        cid = bytes(e.mimeData().data(MIME)).decode("utf-8")
        e.acceptProposedAction()
        self.counterDropped.emit(cid, self.doc.map.grid.format_id(h))


def add_action(owner, menu, text: str, slot, shortcut=None) -> QAction:
    """A menu action owned by ``owner`` (a window), with an optional shortcut."""
    a = QAction(text, owner)
    if shortcut is not None:
        a.setShortcut(shortcut)
    a.triggered.connect(slot)
    menu.addAction(a)
    return a
