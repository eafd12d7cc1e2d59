"""The playtest map: the editor's map item (cached tiles) drawing the units
of a GameState instead of a scenario's set-up, with the overlays of play:
reachable hexes with their MP cost (and those another movement mode
reaches), the path, attack targets and the attackers, retreat / advance /
placement hexes, the active HQ's command range, activated and spent units,
supply markers, disrupted units (washed out, DIS), and contested hexes (a
firepower battle waiting: each side's stack drawn side by side, arrows from
the hexes the attackers came from)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsView

from runtime.definition import GameDefinition
from runtime.observe import hidden_under
from runtime.hexes import Hex
from runtime.state import GameState

from .document import MapModel
from .gamefile import ClassInfo, MarkerInfo, NationalityInfo, SideInfo, Snapshot, TerrainInfo
from .mapview import MapItem, ZoomMixin
from .stackview import face_down_look
from .paint import (FONT, S, CounterLook, MapPainter, _c, draw_attachments, draw_counter, draw_marker_chips, draw_outline,
                    draw_selected)

MARKS = {"out-of-supply": "OOS", "isolated": "ISO", "disrupted": "DIS"}


def snapshot_of(game: GameDefinition) -> Snapshot:
    """What the map painter reads about a game (colours, classes, terrain),
    taken from the compiled game rather than the editor's texts."""
    snap = Snapshot(game_id=game.info.id, title=game.info.title)
    snap.sides = {k: SideInfo(k, s.title, s.colour, s.text_colour) for k, s in game.sides.items()}
    snap.nationalities = {k: NationalityInfo(k, n.title, n.side, n.colour, n.text_colour)
                          for k, n in game.nationalities.items()}
    snap.classes = {k: ClassInfo(k, c.title, c.symbol, c.factors, c.size, c.flags) for k, c in game.unit_classes.items()}
    snap.terrain = {k: TerrainInfo(k, t.title, t.kind, t.colour, t.pattern) for k, t in game.terrain.items()}
    snap.markers = {k: MarkerInfo(k, m.title, m.colour, m.text_colour, "" if m.value is None else str(m.value),
                                  m.hidden) for k, m in game.markers.items()}
    return snap


class PlayDoc:
    """The document a MapPainter draws, made from a compiled game: the play
    window keeps the map as it was when play started, whatever is edited
    meanwhile."""

    def __init__(self, game: GameDefinition):
        self.game = game
        self.map = MapModel.from_mapdef(game.map, game.info.title)
        self.snapshot = snapshot_of(game)


@dataclass
class Overlay:
    reach: dict[Hex, str] = field(default_factory=dict)  # reachable hex -> MP cost label
    reach_modes: dict[Hex, str] = field(default_factory=dict)  # hexes only another movement mode reaches -> label
    path: list[Hex] = field(default_factory=list)  # the path to the hovered hex
    trail: list[list[Hex]] = field(default_factory=list)  # the bots' moves since a person last decided
    legal: dict[Hex, str] = field(default_factory=dict)  # retreat / advance / placement hexes -> label
    targets: set[Hex] = field(default_factory=set)  # hexes that may be attacked
    target: Hex | None = None
    attackers: set[str] = field(default_factory=set)
    selected_unit: str = ""
    command: set[Hex] = field(default_factory=set)  # the active HQ's command range
    command_colour: str = "#7b1fa2"
    unsupplied: set[str] = field(default_factory=set)  # units a supply check would find cut off now
    show_spent: bool = True  # rings for activated units, marks for moved / attacked ones


class PlayPainter(MapPainter):
    """Draws the map (static tiles from MapPainter) and a GameState."""

    def __init__(self, doc: PlayDoc):
        super().__init__(doc)
        self.game = doc.game
        self.state: GameState | None = None
        self.designer = False  # the designer view: face-down values shown in brackets
        self.overlay = Overlay()
        self._looks: dict[tuple[str, int], CounterLook] = {}

    def set_state(self, s: GameState | None) -> None:
        self.state = s
        self._stacks = None
        self._under = None

    def under(self) -> dict[str, list[str]]:
        """Unit id -> the counters under it in the state (attachments)."""
        if self._under is None:
            s = self.state
            self._under = {k: list(v) for k, v in s.attached.items()} if s is not None else {}
        return self._under

    def draw_under(self, p: QPainter, r: QRectF, uid: str, px: float) -> None:
        looks = [self.look(a) for a in self.under().get(uid, ())]
        if self.state is not None and self.state.observed:  # the face-down counters this view hides: backs
            looks += [face_down_look(self.game, self.state.units[uid].side, cup)
                      for cup in hidden_under(self.state).get(uid, ())]
        if looks:
            draw_attachments(p, r, looks, plain=px < 10)

    # -- counters from the state -------------------------------------------------
    def stacks(self) -> dict[Hex, list[str]]:
        if self._stacks is None:
            s = self.state
            self._stacks = {h: list(ids) for h, ids in s.occupants.items() if ids} if s is not None else {}
        return self._stacks

    def area_stacks(self) -> dict[str, list[str]]:
        return {}

    def _markers(self, p, geo, vis, snap) -> None:
        """The state's markers on the map (runtime/effects.py): a face-up
        marker shows its own value, a face-down one '?' (its value in
        brackets in the designer view, or where the viewing side has seen it)."""
        by_hex: dict[Hex, list[MarkerInfo]] = {}
        for m in self.state.markers if self.state is not None else ():
            info = snap.markers.get(m["kind"])
            if m["hex"] is None or m["hex"] not in vis or info is None:
                continue
            if m["face"] == "up" and m["value"] is not None:
                info = replace(info, hidden=False, value=str(m["value"]))
            elif m["value"] is not None and info.hidden:  # face down, but this view may see it
                info = replace(info, hidden=False, value=f"({m['value']})")
            by_hex.setdefault(m["hex"], []).append(info)
        for h, infos in by_hex.items():
            x, y = geo.centre(h)
            draw_marker_chips(p, x, y, infos)

    def look(self, uid: str) -> CounterLook:
        u = self.state.units[uid]
        key = (uid, u.step)
        hit = self._looks.get(key)
        if hit is not None:
            return hit
        g = self.game
        c = g.counters[uid]
        cls = g.unit_classes.get(c.unit_class)
        step = c.steps[min(u.step, len(c.steps) - 1)]
        names = cls.factors if cls else tuple(step)
        factors = "-".join(str(step[n]) for n in names if n in step)
        nat = g.nationalities.get(c.nationality)
        side = g.sides.get(c.side)
        bg, fg = (nat.colour, nat.text_colour) if nat else (side.colour, side.text_colour) if side else \
            ("#cccccc", "#000000")
        look = CounterLook(uid, factors, cls.symbol if cls else "none", cls.size if cls else "", bg, fg, u.step > 0)
        self._looks[key] = look
        return look

    def counter_rect(self, h: Hex, i: int, n: int) -> QRectF:
        """The i-th of n counters stacked in ``h``, fanned up and right."""
        x, y = self.geo.centre(h)
        c = S * 1.05
        off = (i - (n - 1) / 2) * S * 0.16
        return QRectF(x - c / 2 + off, y - c / 2 - off, c, c)

    def column_rect(self, h: Hex, i: int, n: int, dx: float) -> QRectF:
        """The i-th of n counters of one side in a contested hex: smaller,
        ``dx`` hex units sideways, fanned downwards so that every counter's
        id shows."""
        x, y = self.geo.centre(h)
        c, step = S * 0.8, S * 0.26
        top = y - (c + (n - 1) * step) / 2
        return QRectF(x + dx * S - c / 2, top + i * step, c, c)

    def contested(self) -> list[Hex]:
        """Hexes holding units of more than one side (a firepower battle waiting)."""
        s = self.state
        if s is None:
            return []
        return [h for h, ids in self.stacks().items() if len({s.units[u].side for u in ids}) > 1]

    def placed(self, h: Hex) -> list[tuple[str, QRectF]]:
        """The counters in ``h`` with their rectangles, in drawing order (the
        selected unit on top of its stack).  In a contested hex each side's
        stack is drawn smaller, side by side, in the game's order of sides."""
        s, ov = self.state, self.overlay
        ids = self.stacks().get(h, [])
        groups = [[u for u in ids if s.units[u].side == side] for side in self.game.sides]
        groups = [g for g in groups if g] or [ids]
        out = []
        for k, group in enumerate(groups):
            if ov.selected_unit in group:  # the selected unit is drawn on top of its stack
                group = [u for u in group if u != ov.selected_unit] + [ov.selected_unit]
            if len(groups) == 1:
                out.extend((uid, self.counter_rect(h, i, len(group))) for i, uid in enumerate(group))
            else:
                dx = (k - (len(groups) - 1) / 2) * 0.9
                out.extend((uid, self.column_rect(h, i, len(group), dx)) for i, uid in enumerate(group))
        return out

    def unit_at(self, x: float, y: float) -> str:
        """The topmost counter under a scene point ("" if none)."""
        h = self.geo.pick(x, y)
        for near in (h, *h.neighbours()):
            for uid, r in reversed(self.placed(near)):
                if r.contains(QPointF(x, y)):
                    return uid
        return ""

    def _counters(self, p, geo, vis, snap, px) -> None:
        s = self.state
        if s is None:
            return
        ov = self.overlay
        for h in self.stacks():
            if h not in vis:
                continue
            placed = self.placed(h)
            # in a contested hex only each counter's top strip shows: its tags go over the whole column
            later = len({s.units[uid].side for uid, _ in placed}) > 1
            for uid, r in placed:
                if px < 10:
                    p.setPen(QPen(QColor("#000000"), S * 0.04))
                    p.setBrush(_c(self.look(uid).colour))
                    p.drawRect(r)
                    self.draw_under(p, r, uid, px)
                    continue
                draw_counter(p, r, self.look(uid), uid == ov.selected_unit)
                self.draw_under(p, r, uid, px)
                if "disrupted" in s.units[uid].markers:
                    self._disrupted(p, r)
                if not later:
                    self._unit_marks(p, r, uid)
            if later and px >= 10:
                for uid, r in placed:
                    self._unit_marks(p, r, uid)

    def _disrupted(self, p: QPainter, r: QRectF) -> None:
        """The disrupted side of a counter: washed out, crossed by a band."""
        c = r.width()
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(255, 255, 255, 130))
        p.drawRoundedRect(r, c * 0.06, c * 0.06)
        p.save()
        p.setClipRect(r)
        p.setPen(QPen(QColor(200, 0, 0, 150), c * 0.1))
        p.drawLine(r.bottomLeft(), r.topRight())
        p.restore()

    def _unit_marks(self, p: QPainter, r: QRectF, uid: str) -> None:
        s, ov = self.state, self.overlay
        u = s.units[uid]
        c = r.width()
        if uid in ov.attackers:
            p.setPen(QPen(QColor("#e02020"), c * 0.09))
            p.setBrush(Qt.NoBrush)
            p.drawRoundedRect(r.adjusted(-c * 0.05, -c * 0.05, c * 0.05, c * 0.05), c * 0.08, c * 0.08)
        elif ov.show_spent and uid in s.activated and s.active == u.side:
            p.setPen(QPen(QColor("#10a040"), c * 0.06))
            p.setBrush(Qt.NoBrush)
            p.drawRoundedRect(r.adjusted(-c * 0.03, -c * 0.03, c * 0.03, c * 0.03), c * 0.07, c * 0.07)
        if uid in ov.unsupplied:
            p.setPen(QPen(QColor("#d00000"), c * 0.05, Qt.DashLine))
            p.setBrush(Qt.NoBrush)
            p.drawEllipse(r.center(), c * 0.66, c * 0.66)
        tags = [(MARKS.get(m, m[:3].upper()), "#d00000") for m in sorted(u.markers)]  # the markers first: on top
        if ov.show_spent and uid in s.moved:
            tags.append(("M", "#606060"))
        if ov.show_spent and uid in s.attacked:
            tags.append(("A", "#b02020"))
        for k, (text, colour) in enumerate(tags):
            f = QFont(FONT)
            f.setPixelSize(max(1, int(c * 0.2)))
            f.setBold(True)
            p.setFont(f)
            w = c * (0.24 if len(text) == 1 else 0.46)
            box = QRectF(r.right() - w + c * 0.08, r.top() - c * 0.1 + k * c * 0.25, w, c * 0.24)
            p.setPen(QPen(QColor("#ffffff"), c * 0.02))
            p.setBrush(_c(colour))
            p.drawRoundedRect(box, c * 0.04, c * 0.04)
            p.setPen(QColor("#ffffff"))
            p.drawText(box, Qt.AlignCenter, text)

    # -- overlays ------------------------------------------------------------------------
    def paint_dynamic(self, p: QPainter, rect: QRectF, scale: float = 1.0) -> None:
        m = self.doc.map
        if m is None:
            return
        geo = self.geo
        px = S * scale
        p.setRenderHint(QPainter.Antialiasing, px >= 6)
        vis = set(geo.visible(rect))
        ov = self.overlay
        poly = geo.polygon
        if ov.command:
            col = _c(ov.command_colour)
            fill = QColor(col)
            fill.setAlpha(22)
            p.setPen(Qt.NoPen)
            p.setBrush(fill)
            for h in ov.command & vis:
                p.drawPolygon(poly(h))
            pen = QPen(col, S * 0.07, Qt.DashLine)
            pen.setCapStyle(Qt.FlatCap)
            p.setPen(pen)
            draw_outline(p, geo, ov.command, vis)
        if ov.reach:
            p.setPen(QPen(QColor(20, 120, 40, 160), S * 0.03))
            p.setBrush(QColor(60, 200, 90, 70))
            for h in ov.reach.keys() & vis:
                p.drawPolygon(poly(h))
        if ov.reach_modes:
            p.setPen(QPen(QColor(20, 70, 170, 170), S * 0.04, Qt.DashLine))
            p.setBrush(QColor(60, 120, 230, 60))
            for h in ov.reach_modes.keys() & vis:
                p.drawPolygon(poly(h))
        if ov.legal:
            p.setPen(QPen(QColor("#e08000"), S * 0.07))
            p.setBrush(QColor(255, 170, 0, 80))
            for h in ov.legal.keys() & vis:
                p.drawPolygon(poly(h))
        if ov.targets:
            p.setPen(QPen(QColor(210, 30, 30, 200), S * 0.06, Qt.DashLine))
            p.setBrush(QColor(230, 40, 40, 30))
            for h in ov.targets & vis:
                p.drawPolygon(poly(h))
        if self.options.selected is not None and self.options.selected in vis:
            draw_selected(p, poly(self.options.selected))
        contested = [h for h in self.contested() if h in vis]
        if contested:
            p.setPen(QPen(QColor("#d04000"), S * 0.06))
            p.setBrush(QColor(255, 120, 0, 40))
            for h in contested:
                p.drawPolygon(poly(h))
        if ov.target is not None and ov.target in vis:  # under the counters of a contested hex, over the others
            self._target(p, poly(ov.target))
        if self.options.show_counters:
            self._counters(p, geo, vis, self.doc.snapshot, px)
            self._markers(p, geo, vis, self.doc.snapshot)
        if ov.target is not None and ov.target in vis and ov.target not in contested:
            self._target(p, poly(ov.target))
        self._attack_arrows(p)
        for trail in ov.trail:  # what the bots just did: dashed orange, a dot where each move ended
            if len(trail) < 2:
                continue
            line = QPainterPath()
            line.moveTo(QPointF(*geo.centre(trail[0])))
            for h in trail[1:]:
                line.lineTo(QPointF(*geo.centre(h)))
            p.setBrush(Qt.NoBrush)
            p.setPen(QPen(QColor("#d9731f"), S * 0.08, Qt.DashLine, Qt.RoundCap, Qt.RoundJoin))
            p.drawPath(line)
            p.setBrush(QColor("#d9731f"))
            p.setPen(Qt.NoPen)
            p.drawEllipse(QPointF(*geo.centre(trail[-1])), S * 0.09, S * 0.09)
        if len(ov.path) > 1:
            path = QPainterPath()
            path.moveTo(QPointF(*geo.centre(ov.path[0])))
            for h in ov.path[1:]:
                path.lineTo(QPointF(*geo.centre(h)))
            p.setBrush(Qt.NoBrush)
            p.setPen(QPen(QColor(255, 255, 255, 220), S * 0.2, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
            p.drawPath(path)
            p.setPen(QPen(QColor("#0b6b22"), S * 0.1, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
            p.drawPath(path)
            x, y = geo.centre(ov.path[-1])
            p.setBrush(QColor("#0b6b22"))
            p.drawEllipse(QPointF(x, y), S * 0.14, S * 0.14)
        if px >= 14:
            for labels, colour in ((ov.reach, "#0b5a1e"), (ov.reach_modes, "#123f8f"), (ov.legal, "#8a4a00")):
                for h, text in labels.items():
                    if h in vis and text:
                        x, y = geo.centre(h)
                        self._label(p, x, y + S * 0.78, text, S * 0.32, bold=True, colour=colour)


    def _target(self, p: QPainter, polygon) -> None:
        p.setPen(QPen(QColor("#ffffff"), S * 0.16))
        p.setBrush(Qt.NoBrush)
        p.drawPolygon(polygon)
        p.setPen(QPen(QColor("#d01010"), S * 0.1))
        p.drawPolygon(polygon)

    def _attack_arrows(self, p: QPainter) -> None:
        """Arrows across the hexsides the attackers of a battle crossed: they
        go back there if the attack fails (move-in attacks)."""
        s = self.state
        if s is None or not s.attack_from:
            return
        pairs = {(origin, s.units[uid].hex) for uid, origin in s.attack_from.items()
                 if s.units[uid].hex is not None and s.units[uid].hex != origin}
        for origin, target in sorted(pairs, key=lambda ab: (ab[0].q, ab[0].r, ab[1].q, ab[1].r)):
            (x1, y1), (x2, y2) = self.geo.centre(origin), self.geo.centre(target)
            # between the stacks, short of the attackers' column in the battle hex
            a = QPointF(x1 + (x2 - x1) * 0.28, y1 + (y2 - y1) * 0.28)
            b = QPointF(x1 + (x2 - x1) * 0.42, y1 + (y2 - y1) * 0.42)
            d = b - a
            length = max(1e-6, (d.x() ** 2 + d.y() ** 2) ** 0.5)
            ux, uy = d.x() / length, d.y() / length
            head = [b + QPointF(ux * S * 0.16, uy * S * 0.16), b + QPointF(-uy * S * 0.14, ux * S * 0.14),
                    b + QPointF(uy * S * 0.14, -ux * S * 0.14)]
            for colour, width in (("#ffffff", 0.17), ("#b00000", 0.09)):
                p.setPen(QPen(QColor(colour), S * width, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
                p.setBrush(QColor(colour))
                p.drawLine(a, b)
                p.drawPolygon(head)


class PlayMapView(ZoomMixin, QGraphicsView):
    """Zoom with the wheel, pan with the middle button (or Alt + drag);
    a left click is a hex click, a right click cancels."""

    hexClicked = Signal(object, bool, str)  # Hex, right button, the counter clicked ("" if none)
    hexHovered = Signal(object)  # Hex or None

    def __init__(self, doc: PlayDoc, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.mp = PlayPainter(doc)
        self._setup_view()
        self.item = MapItem(self.mp)
        self._scene.addItem(self.item)
        self._scene.setSceneRect(self.item.boundingRect())
        self._hover: Hex | None = None

    def set_doc(self, doc: PlayDoc) -> None:
        """Show another compile of the game (a saved game of other variants
        loaded) in this view: the window's layout stays as it is (a new view
        put in the middle of the window lost its room to the docks)."""
        self._scene.removeItem(self.item)
        self.doc = doc
        self.mp = PlayPainter(doc)
        self.item = MapItem(self.mp)
        self._scene.addItem(self.item)
        self._scene.setSceneRect(self.item.boundingRect())
        self._hover = None

    def refresh(self) -> None:
        self.item.update()

    def centre_on_hex(self, h: Hex) -> None:
        self.centerOn(*self.mp.geo.centre(h))

    def scene_pos(self, h: Hex) -> QPointF:
        return QPointF(*self.mp.geo.centre(h))

    def hex_at(self, pos) -> Hex | None:
        sp = self.mapToScene(pos)
        h = self.mp.geo.pick(sp.x(), sp.y())
        return h if h in self.doc.map.hexes and h not in self.doc.map.outside else None

    def wheelEvent(self, e) -> None:
        d = e.angleDelta().y()
        if d:
            self.zoom(1.2 if d > 0 else 1 / 1.2)

    def mousePressEvent(self, e) -> None:
        if self._pan_press(e):
            return
        if e.button() not in (Qt.LeftButton, Qt.RightButton):
            return
        h = self.hex_at(e.position().toPoint())
        if h is not None or e.button() == Qt.RightButton:
            sp = self.mapToScene(e.position().toPoint())
            self.hexClicked.emit(h, e.button() == Qt.RightButton, self.mp.unit_at(sp.x(), sp.y()))

    def mouseMoveEvent(self, e) -> None:
        if self._pan_move(e):
            return
        h = self.hex_at(e.position().toPoint())
        if h != self._hover:
            self._hover = h
            self.hexHovered.emit(h)

    def mouseReleaseEvent(self, e) -> None:
        self._pan_release()
