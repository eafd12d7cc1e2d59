"""Drawing a map and its counters with QPainter.

One :class:`MapPainter` draws any rectangle of the map (the editor's view
paints only what is exposed; ``hexforge render`` paints everything), in
layers: terrain (colour and pattern, through one texture brush per terrain
whose tile repeats with the hex grid), the playing-area boundary, hexsides
along hex edges, roads and railways hex to hex, towns and cities, names,
supply sources, areas, hex IDs, then counters.  Scene units: a hex's
centre-to-corner distance is :data:`S`.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (QBrush, QColor, QFont, QFontMetricsF, QImage, QPainter, QPainterPath, QPen, QPixmap,
                           QPolygonF, QTransform)

from runtime.hexes import Grid, Hex

S = 40.0
SQ3 = math.sqrt(3.0)
FONT = "DejaVu Sans"
OUTSIDE_FILL = "#d7d4cb"
TEXTURE_RES = 4  # texture pixels per scene unit

SIZE_MARKS = {"team": "Ø", "squad": "●", "section": "●●", "platoon": "●●●", "company": "I", "battalion": "II",
              "regiment": "III", "brigade": "X", "division": "XX", "corps": "XXX", "army": "XXXX",
              "army-group": "XXXXX", "front": "XXXXX"}


def _c(colour: str, fallback: str = "#cccccc") -> QColor:
    c = QColor(colour)
    return c if c.isValid() else QColor(fallback)


# ------------------------------------------------------------------ geometry

class Geometry:
    """Hex centres and polygons of a grid, computed once (pixel arithmetic
    from the grid, never scene item queries)."""

    def __init__(self, grid: Grid, size: float = S):
        self.grid = grid
        self.size = size
        h0 = grid.to_hex(grid.first_col, grid.first_row)
        rx, ry = self._raw(h0)
        px, py = grid.hex_to_pixel(h0, size)
        self.ox, self.oy = rx - px, ry - py
        off = 0.0 if grid.orientation == "flat" else -30.0
        self.corner_offsets = [(size * math.cos(math.radians(60 * i + off)), size * math.sin(math.radians(60 * i + off)))
                               for i in range(6)]
        self.base = QPolygonF([QPointF(x, y) for x, y in self.corner_offsets])
        self._poly: dict[Hex, QPolygonF] = {}
        xs, ys = [], []
        for c in (grid.first_col, grid.first_col + 1, grid.first_col + grid.cols - 1,
                  max(grid.first_col, grid.first_col + grid.cols - 2)):
            for r in (grid.first_row, grid.first_row + 1, grid.first_row + grid.rows - 1,
                      max(grid.first_row, grid.first_row + grid.rows - 2)):
                if grid.contains(grid.to_hex(c, r)):
                    x, y = self.centre(grid.to_hex(c, r))
                    xs.append(x)
                    ys.append(y)
        if grid.orientation == "flat":
            self.width = max(xs) + size
            self.height = max(ys) + size * SQ3 / 2
        else:
            self.width = max(xs) + size * SQ3 / 2
            self.height = max(ys) + size

    def _raw(self, h: Hex) -> tuple[float, float]:
        s = self.size
        if self.grid.orientation == "flat":
            return s * 1.5 * h.q, s * SQ3 * (h.r + h.q / 2)
        return s * SQ3 * (h.q + h.r / 2), s * 1.5 * h.r

    def centre(self, h: Hex) -> tuple[float, float]:
        x, y = self._raw(h)
        return x - self.ox, y - self.oy

    def polygon(self, h: Hex) -> QPolygonF:
        p = self._poly.get(h)
        if p is None:
            x, y = self.centre(h)
            p = self.base.translated(x, y)
            self._poly[h] = p
        return p

    def corners(self, h: Hex) -> list[tuple[float, float]]:
        x, y = self.centre(h)
        return [(x + dx, y + dy) for dx, dy in self.corner_offsets]

    def edge(self, h: Hex, d: int) -> tuple[tuple[float, float], tuple[float, float]]:
        c = self.corners(h)
        return c[(d + 4) % 6], c[(d + 5) % 6]

    def pick(self, x: float, y: float) -> Hex:
        return self.grid.pixel_to_hex(x, y, self.size)

    def pick_edge(self, x: float, y: float) -> tuple[Hex, int]:
        """The hex under (x, y) and the direction of its nearest edge."""
        h = self.pick(x, y)
        best, bd = 0, 1e18
        for d in range(6):
            (x1, y1), (x2, y2) = self.edge(h, d)
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            dd = (mx - x) ** 2 + (my - y) ** 2
            if dd < bd:
                best, bd = d, dd
        return h, best

    def hex_rect(self, h: Hex, margin: float = 0.0) -> QRectF:
        x, y = self.centre(h)
        m = self.size + margin
        return QRectF(x - m, y - m, 2 * m, 2 * m)

    def visible(self, rect: QRectF) -> list[Hex]:
        """Grid hexes whose polygon may meet ``rect``, column by column."""
        g = self.grid
        cols, rows = [], []
        for x in (rect.left(), rect.right()):
            for y in (rect.top(), rect.bottom()):
                c, r = g.to_colrow(self.pick(x, y))
                cols.append(c)
                rows.append(r)
        c0 = max(g.first_col, min(cols) - 1)
        c1 = min(g.first_col + g.cols - 1, max(cols) + 1)
        r0 = max(g.first_row, min(rows) - 1)
        r1 = min(g.first_row + g.rows - 1, max(rows) + 1)
        th = g.to_hex
        return [th(c, r) for c in range(c0, c1 + 1) for r in range(r0, r1 + 1)]


# ------------------------------------------------------------------ textures

def _tree(p: QPainter, x: float, y: float, r: float, dark: QColor, light: QColor) -> None:
    p.setPen(QPen(dark.darker(140), r * 0.25))
    p.drawLine(QPointF(x, y + r * 0.6), QPointF(x, y + r * 1.4))
    p.setPen(QPen(dark.darker(130), r * 0.14))
    p.setBrush(light)
    p.drawEllipse(QPointF(x, y), r, r)


def _draw_symbol(p: QPainter, pattern: str, x: float, y: float, s: float, base: QColor) -> None:
    """The pattern symbols drawn around one hex centre (texture space)."""
    if pattern in ("trees", "forest", "light-forest"):
        for dx, dy in ((-0.38, -0.28), (0.32, -0.36), (0.0, 0.22), (-0.45, 0.42), (0.45, 0.3)):
            _tree(p, x + dx * s, y + dy * s, 0.13 * s, base.darker(150), base.darker(118))
    elif pattern in ("dense-trees", "heavy-forest", "jungle"):
        for dx, dy in ((-0.5, -0.5), (-0.15, -0.6), (0.25, -0.5), (0.55, -0.2), (-0.6, -0.05), (-0.25, -0.1),
                       (0.15, -0.05), (0.5, 0.25), (-0.45, 0.35), (-0.05, 0.4), (0.3, 0.55), (-0.2, 0.7)):
            _tree(p, x + dx * s, y + dy * s, 0.12 * s, base.darker(165), base.darker(128))
    elif pattern in ("marsh", "swamp"):
        pen = QPen(base.darker(165), 0.035 * s)
        pen.setCapStyle(Qt.RoundCap)
        p.setPen(pen)
        for dx, dy in ((-0.45, -0.35), (0.25, -0.45), (-0.1, 0.05), (0.45, 0.15), (-0.4, 0.5), (0.15, 0.55)):
            cx, cy = x + dx * s, y + dy * s
            p.drawLine(QPointF(cx - 0.16 * s, cy), QPointF(cx + 0.16 * s, cy))
            p.drawLine(QPointF(cx - 0.09 * s, cy - 0.07 * s), QPointF(cx + 0.09 * s, cy - 0.07 * s))
            for t in (-0.06, 0.0, 0.06):
                p.drawLine(QPointF(cx + t * s, cy - 0.07 * s), QPointF(cx + t * 2.2 * s, cy - 0.19 * s))
    elif pattern in ("hills", "rough"):
        pen = QPen(base.darker(150), 0.05 * s)
        pen.setCapStyle(Qt.RoundCap)
        p.setPen(pen)
        p.setBrush(Qt.NoBrush)
        for dx, dy, w in ((-0.35, -0.2, 0.42), (0.3, -0.3, 0.36), (0.0, 0.35, 0.46)):
            r = QRectF(x + (dx - w / 2) * s, y + dy * s, w * s, w * 0.9 * s)
            p.drawArc(r, 20 * 16, 140 * 16)
    elif pattern in ("mountains", "mountain"):
        for dx, dy, w in ((-0.3, 0.1, 0.55), (0.28, 0.25, 0.45), (0.02, -0.3, 0.42)):
            bx, by = x + dx * s, y + dy * s
            tri = QPolygonF([QPointF(bx - w / 2 * s, by + w * 0.35 * s), QPointF(bx, by - w * 0.45 * s),
                             QPointF(bx + w / 2 * s, by + w * 0.35 * s)])
            p.setPen(QPen(base.darker(170), 0.035 * s))
            p.setBrush(base.darker(118))
            p.drawPolygon(tri)
            p.setBrush(QColor(255, 255, 255, 140))
            p.setPen(Qt.NoPen)
            p.drawPolygon(QPolygonF([QPointF(bx, by - w * 0.45 * s), QPointF(bx + w * 0.12 * s, by - w * 0.2 * s),
                                     QPointF(bx - w * 0.1 * s, by - w * 0.22 * s)]))
    elif pattern in ("water", "sea", "lake", "waves"):
        pen = QPen(base.lighter(125), 0.04 * s)
        pen.setCapStyle(Qt.RoundCap)
        p.setPen(pen)
        p.setBrush(Qt.NoBrush)
        for dx, dy in ((-0.4, -0.35), (0.2, -0.15), (-0.25, 0.35), (0.35, 0.45)):
            path = QPainterPath(QPointF(x + (dx - 0.2) * s, y + dy * s))
            path.cubicTo(QPointF(x + (dx - 0.1) * s, y + (dy - 0.1) * s), QPointF(x + dx * s, y + (dy + 0.1) * s),
                         QPointF(x + (dx + 0.1) * s, y + dy * s))
            path.cubicTo(QPointF(x + (dx + 0.15) * s, y + (dy - 0.08) * s),
                         QPointF(x + (dx + 0.2) * s, y + (dy - 0.05) * s), QPointF(x + (dx + 0.25) * s, y + dy * s))
            p.drawPath(path)
    elif pattern in ("desert", "sand"):
        p.setPen(Qt.NoPen)
        p.setBrush(base.darker(125))
        for dx, dy in ((-0.4, -0.3), (0.1, -0.5), (0.45, -0.1), (-0.2, 0.1), (0.2, 0.35), (-0.5, 0.45), (0.5, 0.5)):
            p.drawEllipse(QPointF(x + dx * s, y + dy * s), 0.04 * s, 0.04 * s)


def texture_brush(geo: Geometry, colour: str, pattern: str) -> QBrush:
    """A brush filling hexes with ``colour`` and ``pattern``; its tile is one
    period of the hex grid, so every hex gets the same symbols."""
    base = _c(colour)
    if not pattern:
        return QBrush(base)
    s = geo.size
    flat = geo.grid.orientation == "flat"
    tw, th = (3 * s, SQ3 * s) if flat else (SQ3 * s, 3 * s)
    w, h = max(1, round(tw * TEXTURE_RES)), max(1, round(th * TEXTURE_RES))
    img = QImage(w, h, QImage.Format_ARGB32_Premultiplied)
    img.fill(base)
    p = QPainter(img)
    p.setRenderHint(QPainter.Antialiasing)
    p.scale(w / tw, h / th)
    if flat:
        centres = [(0, 0), (3 * s, 0), (0, th), (3 * s, th), (1.5 * s, th / 2)]
    else:
        centres = [(0, 0), (0, 3 * s), (tw, 0), (tw, 3 * s), (tw / 2, 1.5 * s)]
    for x, y in centres:
        _draw_symbol(p, pattern, x, y, s, base)
    p.end()
    brush = QBrush(QPixmap.fromImage(img))
    # the tile's origin sits on a hex centre of the map
    h0 = geo.grid.to_hex(geo.grid.first_col, geo.grid.first_row)
    x0, y0 = geo.centre(h0)
    brush.setTransform(QTransform().translate(x0, y0).scale(tw / w, th / h))
    return brush


# ------------------------------------------------------------------ counters

@dataclass
class CounterLook:
    label: str  # printed at the top (the id)
    factors: str  # "8-4-10"
    symbol: str = "none"
    size: str = ""
    colour: str = "#cccccc"
    text_colour: str = "#000000"
    reduced: bool = False
    image: str = ""  # art for this face (a file path): drawn instead of the generated face


def look_for(snap, cid: str, reduced: bool = False, art=None) -> CounterLook:
    """How a counter's face is drawn; ``art`` turns a path relative to the
    game folder into a file (GameDocument.art_path), for counters with art."""
    c = snap.counters.get(cid)
    if c is None:
        return CounterLook(cid, "?", colour="#ffffff", text_colour="#c00000")
    bg, fg = snap.look(c)
    cls = snap.classes.get(c.unit_class)
    f = (c.reduced or c.full) if reduced else c.full
    rel = (c.back if reduced else c.front) if art is not None else ""
    p = art(rel) if rel else None
    return CounterLook(c.id, f, cls.symbol if cls else "none", cls.size if cls else "", bg, fg, reduced,
                       str(p) if p else "")


_images: dict[str, tuple[float, QImage]] = {}


def art_image(path: str) -> QImage | None:
    """An art file as an image (cached until the file changes); None if it
    does not load."""
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return None
    hit = _images.get(path)
    if hit is not None and hit[0] == mtime:
        return hit[1]
    img = QImage(path)
    if img.isNull():
        return None
    _images[path] = (mtime, img)
    return img


def draw_nato(p: QPainter, r: QRectF, symbol: str, size: str, fg: QColor) -> None:
    w, h = r.width(), r.height()
    pen = QPen(fg, max(0.6, h * 0.07))
    pen.setJoinStyle(Qt.MiterJoin)
    p.setPen(pen)
    p.setBrush(Qt.NoBrush)
    x0, y0, x1, y1 = r.left(), r.top(), r.right(), r.bottom()
    cx, cy = r.center().x(), r.center().y()

    def X():
        p.drawLine(QPointF(x0, y0), QPointF(x1, y1))
        p.drawLine(QPointF(x0, y1), QPointF(x1, y0))

    def oval():
        p.drawEllipse(QRectF(x0 + w * 0.17, y0 + h * 0.22, w * 0.66, h * 0.56))

    s = symbol
    if s == "infantry":
        X()
    elif s in ("armour", "tank"):
        oval()
    elif s == "mechanized":
        X()
        oval()
    elif s == "motorized":
        X()
        p.drawLine(QPointF(cx, y0), QPointF(cx, y1))
    elif s in ("cavalry", "recon"):
        p.drawLine(QPointF(x0, y1), QPointF(x1, y0))
    elif s == "mountain":
        X()
        p.setBrush(fg)
        p.drawPolygon(QPolygonF([QPointF(cx - w * 0.14, y1), QPointF(cx, y1 - h * 0.3), QPointF(cx + w * 0.14, y1)]))
    elif s == "airborne":
        X()
        p.drawArc(QRectF(cx - w * 0.22, y1 - h * 0.32, w * 0.22, h * 0.3), 0, 180 * 16)
        p.drawArc(QRectF(cx, y1 - h * 0.32, w * 0.22, h * 0.3), 0, 180 * 16)
    elif s == "marine":
        X()
        p.drawArc(QRectF(cx - w * 0.2, y1 - h * 0.4, w * 0.4, h * 0.3), 180 * 16, 180 * 16)
    elif s == "security":
        p.drawLine(QPointF(x0, y1), QPointF(x1, y0))
        p.drawLine(QPointF(x0, y0 + h * 0.5), QPointF(x1, y0 + h * 0.5))
    elif s == "artillery":
        p.setBrush(fg)
        p.drawEllipse(QPointF(cx, cy), h * 0.16, h * 0.16)
    elif s == "engineer":
        y = cy - h * 0.1
        p.drawLine(QPointF(cx - w * 0.25, y), QPointF(cx + w * 0.25, y))
        for t in (-0.25, 0.0, 0.25):
            p.drawLine(QPointF(cx + t * w, y), QPointF(cx + t * w, y + h * 0.3))
    elif s == "anti-tank":
        p.drawLine(QPointF(x0, y1), QPointF(cx, y0))
        p.drawLine(QPointF(cx, y0), QPointF(x1, y1))
    elif s == "fortress":
        step = w / 6
        pts = [QPointF(x0, y0 + h * 0.45)]
        for i in range(6):
            up = i % 2 == 0
            pts.append(QPointF(x0 + i * step, y0 + h * (0.25 if up else 0.45)))
            pts.append(QPointF(x0 + (i + 1) * step, y0 + h * (0.25 if up else 0.45)))
        p.drawPolyline(QPolygonF(pts))
    elif s in ("hq", "army-group", "front", "panzer-group"):
        if s == "panzer-group":
            oval()
        p.drawLine(QPointF(x0, y1), QPointF(x0, y1 + h * 0.55))
        f = QFont(FONT)
        f.setPixelSize(max(1, int(h * 0.45)))
        f.setBold(True)
        p.setFont(f)
        if s == "hq":
            p.drawText(r, Qt.AlignCenter, "HQ")
    p.setBrush(Qt.NoBrush)
    p.setPen(pen)
    p.drawRect(r)
    mark = SIZE_MARKS.get(size, size[:5].upper() if size else "")
    if mark:
        f = QFont(FONT)
        f.setPixelSize(max(1, int(h * 0.42)))
        f.setBold(True)
        f.setLetterSpacing(QFont.PercentageSpacing, 85)
        p.setFont(f)
        p.drawText(QRectF(x0 - w, y0 - h * 0.5, w * 3, h * 0.48), Qt.AlignHCenter | Qt.AlignBottom, mark)


def draw_counter(p: QPainter, r: QRectF, look: CounterLook, selected: bool = False, printed: bool = False) -> None:
    """A square chit: id at the top, the NATO symbol, factors at the bottom.
    ``printed``: for a counter sheet: square, edge to edge, no shadow."""
    c = r.width()
    bg, fg = _c(look.colour), _c(look.text_colour, "#000000")
    img = art_image(look.image) if look.image else None
    if img is not None:  # the designer's art for this face
        p.save()
        if not printed:
            p.setPen(Qt.NoPen)
            p.setBrush(QColor(0, 0, 0, 70))
            p.drawRect(r.translated(c * 0.04, c * 0.05))
        p.setRenderHint(QPainter.SmoothPixmapTransform)
        p.drawImage(r, img)
        if selected:
            p.setPen(QPen(QColor("#ffcc00"), c * 0.07))
            p.setBrush(Qt.NoBrush)
            p.drawRect(r)
        p.restore()
        return
    p.save()
    if printed:
        p.fillRect(r, bg)
    else:
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(0, 0, 0, 70))
        p.drawRoundedRect(r.translated(c * 0.04, c * 0.05), c * 0.06, c * 0.06)
        p.setBrush(bg)
        p.setPen(QPen(bg.darker(170) if not selected else QColor("#ffcc00"), c * (0.025 if not selected else 0.07)))
        p.drawRoundedRect(r, c * 0.06, c * 0.06)
    if look.reduced:
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(255, 255, 255, 80) if bg.lightness() < 128 else QColor(0, 0, 0, 35))
        p.drawRect(QRectF(r.left(), r.top() + c * 0.8, c, c * 0.2))
    f = QFont(FONT)
    f.setPixelSize(max(1, int(c * 0.19)))
    f.setBold(True)
    p.setFont(f)
    p.setPen(fg)
    label = look.label
    fm = QFontMetricsF(f)
    while fm.horizontalAdvance(label) > c * 0.92 and f.pixelSize() > 2:
        f.setPixelSize(f.pixelSize() - 1)
        p.setFont(f)
        fm = QFontMetricsF(f)
    p.drawText(QRectF(r.left(), r.top() + c * 0.02, c, c * 0.24), Qt.AlignCenter, label)
    box = QRectF(r.left() + c * 0.24, r.top() + c * 0.38, c * 0.52, c * 0.32)
    draw_nato(p, box, look.symbol, look.size, fg)
    f = QFont(FONT)
    f.setPixelSize(max(1, int(c * 0.24)))
    f.setBold(True)
    fm = QFontMetricsF(f)
    while fm.horizontalAdvance(look.factors) > c * 0.94 and f.pixelSize() > 2:
        f.setPixelSize(f.pixelSize() - 1)
        fm = QFontMetricsF(f)
    p.setFont(f)
    p.setPen(fg)
    p.drawText(QRectF(r.left(), r.top() + c * 0.72, c, c * 0.27), Qt.AlignCenter, look.factors)
    p.restore()


def attachment_rects(r: QRectF, n: int, most: int = 4) -> list[QRectF]:
    """Where the counters under a unit are drawn: small chits in a column
    beside the unit's counter ``r``, overlapping its right edge, from its
    middle down (its markers sit at its top right).  At most ``most``."""
    c = r.width()
    a = c * 0.5
    step = a * 0.6
    return [QRectF(r.right() - a * 0.3, r.top() + c * 0.28 + i * step, a, a) for i in range(min(n, most))]


def draw_attachments(p: QPainter, r: QRectF, looks: list[CounterLook], plain: bool = False) -> None:
    """The counters under a unit beside its counter ``r`` (attachments: GJ63
    equipment chits); more than four: the fourth shows how many more.
    ``plain``: coloured squares only (a far zoom)."""
    rects = attachment_rects(r, len(looks))
    for i, (box, look) in enumerate(zip(rects, looks)):
        if plain:
            p.setPen(QPen(QColor("#000000"), box.width() * 0.06))
            p.setBrush(_c(look.colour))
            p.drawRect(box)
            continue
        more = len(looks) - len(rects)
        if i == len(rects) - 1 and more > 0:
            look = CounterLook(look.label, f"+{more + 1}", "none", "", look.colour, look.text_colour)
        w = box.width()
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(255, 255, 255, 235))  # a halo: the chit reads apart from its unit
        p.drawRoundedRect(box.adjusted(-w * 0.07, -w * 0.07, w * 0.07, w * 0.07), w * 0.12, w * 0.12)
        draw_counter(p, box, look)


def counter_pixmap(look: CounterLook, px: int = 64) -> QPixmap:
    img = QImage(px, px, QImage.Format_ARGB32_Premultiplied)
    img.fill(Qt.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.Antialiasing)
    p.setRenderHint(QPainter.TextAntialiasing)
    draw_counter(p, QRectF(px * 0.03, px * 0.03, px * 0.9, px * 0.9), look)
    p.end()
    return QPixmap.fromImage(img)


# ------------------------------------------------------------------ the map

@dataclass
class Options:
    show_ids: bool = False
    show_counters: bool = True
    areas: set[str] = field(default_factory=set)  # areas to show
    highlight: set[Hex] = field(default_factory=set)
    selected: Hex | None = None
    selected_counter: str = ""
    vector: bool = False  # SVG and PDF: pattern symbols drawn per hex, not through a texture
    printed: bool = False  # render and print: IDs only if show_ids, areas as lists, labels over counters


def draw_outline(p: QPainter, geo, hexes, vis) -> None:
    """The outer edge of a set of hexes (an area, a command range), with the
    painter's pen; only the visible hexes' edges are drawn."""
    for h in hexes & vis:
        for d in range(6):
            if h.neighbour(d) not in hexes:
                (x1, y1), (x2, y2) = geo.edge(h, d)
                p.drawLine(QPointF(x1, y1), QPointF(x2, y2))


def draw_selected(p: QPainter, polygon) -> None:
    """The selected hex: a white halo under a red outline."""
    p.setPen(QPen(QColor("#ffffff"), S * 0.12))
    p.setBrush(Qt.NoBrush)
    p.drawPolygon(polygon)
    p.setPen(QPen(QColor("#d01010"), S * 0.06))
    p.drawPolygon(polygon)


class MapPainter:
    """Paints a document's map (and one scenario's counters on it)."""

    def __init__(self, doc, options: Options | None = None):
        self.doc = doc
        self.options = options or Options()
        self.scenario = ""
        self._geo: Geometry | None = None
        self._brushes: dict[str, QBrush] = {}
        self._brush_key = None
        self._stacks: dict[Hex, list[str]] | None = None
        self._under: dict[str, list[str]] | None = None

    # -- caches ----------------------------------------------------------------
    @property
    def geo(self) -> Geometry:
        m = self.doc.map
        if self._geo is None or self._geo.grid != m.grid:
            self._geo = Geometry(m.grid)
            self._brushes = {}
        return self._geo

    def brush(self, terrain: str) -> QBrush:
        snap = self.doc.snapshot
        key = tuple((t.id, t.colour, t.pattern) for t in snap.terrain.values())
        if key != self._brush_key:
            self._brushes = {}
            self._brush_key = key
        b = self._brushes.get(terrain)
        if b is None:
            t = snap.terrain.get(terrain)
            b = texture_brush(self.geo, t.colour if t else "#ff00ff", t.pattern if t else "")
            self._brushes[terrain] = b
        return b

    def invalidate_counters(self) -> None:
        self._stacks = None
        self._under = None

    def under(self) -> dict[str, list[str]]:
        """Unit id -> the counters set up under it (``at UNIT``: attachments), in set-up order."""
        if self._under is None:
            out: dict[str, list[str]] = {}
            snap = self.doc.snapshot
            sc = snap.scenarios.get(self.scenario)
            if sc is not None:
                for cid, p in sc.placements.items():
                    if p.at in snap.counters and cid in snap.counters:
                        out.setdefault(p.at, []).append(cid)
            self._under = out
        return self._under

    def draw_under(self, p: QPainter, r: QRectF, uid: str, px: float) -> None:
        """The counters under ``uid`` beside its counter ``r``."""
        ids = self.under().get(uid)
        if ids:
            snap = self.doc.snapshot
            art = getattr(self.doc, 'art_path', None)
            draw_attachments(p, r, [look_for(snap, a, art=art) for a in ids], plain=px < 10)

    def stacks(self) -> dict[Hex, list[str]]:
        if self._stacks is None:
            out: dict[Hex, list[str]] = {}
            m = self.doc.map
            sc = self.doc.snapshot.scenarios.get(self.scenario)
            if m is not None and sc is not None:
                g = m.grid
                width = g.col_digits + g.row_digits
                for cid, p in sc.placements.items():
                    if p.at.isdigit() and len(p.at) == width:
                        try:
                            h = g.parse_id(p.at)
                        except ValueError:
                            continue
                        out.setdefault(h, []).append(cid)
            self._stacks = out
        return self._stacks

    def scene_rect(self) -> QRectF:
        g = self.geo
        return QRectF(-S * 1.2, -S * 1.2, g.width + S * 2.4, g.height + S * 2.4)

    # -- painting -----------------------------------------------------------------
    def paint(self, p: QPainter, rect: QRectF, scale: float = 1.0) -> None:
        self.paint_static(p, rect, scale)
        self.paint_dynamic(p, rect, scale)

    def static_key(self) -> tuple:
        """What the static layer depends on besides the map's hexes."""
        snap = self.doc.snapshot
        m = self.doc.map
        return (m.grid if m else None, tuple((t.id, t.colour, t.pattern) for t in snap.terrain.values()),
                tuple((s.id, s.colour, s.text_colour, s.title) for s in snap.sides.values()),
                self.options.show_ids, self.options.vector, getattr(m, "background", "") if m else "")

    def paint_static(self, p: QPainter, rect: QRectF, scale: float = 1.0, names: bool = True) -> None:
        """The map itself: terrain, hexsides, links, features, names, supply, IDs.
        ``names=False``: no town names (a thumbnail, where they would only crowd)."""
        m = self.doc.map
        if m is None:
            return
        geo = self.geo
        snap = self.doc.snapshot
        px = S * scale  # a hex's size on screen, in pixels
        hexes = geo.visible(rect)
        p.setRenderHint(QPainter.Antialiasing, px >= 6)
        mhexes, outside = m.hexes, m.outside
        # terrain, with the grid lines in the same pass
        grid_pen = QPen(QColor(60, 60, 50, 150), max(0.5, S * 0.018)) if px >= 7 else Qt.NoPen
        out_pen = QPen(QColor(150, 148, 140), max(0.5, S * 0.015)) if px >= 7 else Qt.NoPen
        poly = geo.polygon
        by_terrain: dict[str, list[Hex]] = {}
        outs = []
        for h in hexes:
            if h in outside:
                outs.append(h)
            else:
                by_terrain.setdefault(mhexes[h].terrain, []).append(h)
        # the designer's background art, under translucent terrain
        art = getattr(self.doc, "art_path", None)
        bg_file = art(m.background) if art is not None and getattr(m, "background", "") else None
        bg = art_image(str(bg_file)) if bg_file else None
        if bg is not None:
            p.save()
            p.setRenderHint(QPainter.SmoothPixmapTransform)
            p.drawImage(QRectF(0, 0, geo.width, geo.height), bg)
            p.restore()
            p.setOpacity(0.3)
        # fills without antialiasing (neighbours share their edges; the grid
        # lines drawn next cover them), then the grid lines antialiased
        aa = px >= 6
        p.setRenderHint(QPainter.Antialiasing, False)
        p.setPen(Qt.NoPen)
        p.setBrush(_c(OUTSIDE_FILL))
        for h in outs:
            p.drawPolygon(poly(h))
        vector = self.options.vector
        for t, hs in by_terrain.items():
            info = snap.terrain.get(t)
            if vector or px < 5:
                p.setBrush(QBrush(_c(info.colour if info else "#ff00ff")))
            else:
                p.setBrush(self.brush(t))
            for h in hs:
                p.drawPolygon(poly(h))
            if vector and info is not None and info.pattern:
                base = _c(info.colour)
                p.save()
                p.setRenderHint(QPainter.Antialiasing, True)
                for h in hs:
                    _draw_symbol(p, info.pattern, *geo.centre(h), S, base)
                p.restore()
        p.setRenderHint(QPainter.Antialiasing, aa)
        p.setOpacity(1.0)
        if px >= 7:
            p.setBrush(Qt.NoBrush)
            p.setPen(out_pen)
            for h in outs:
                p.drawPolygon(poly(h))
            p.setPen(grid_pen)
            for hs in by_terrain.values():
                for h in hs:
                    p.drawPolygon(poly(h))
        vis = set(hexes)
        self._boundary(p, m, geo, hexes)
        self._hexsides(p, m, geo, vis, snap)
        self._links(p, m, geo, vis, snap)
        self._features(p, m, geo, hexes, snap, px, names)
        self._supply(p, m, geo, vis, snap, px)
        if self.options.show_ids or (px >= 70 and not self.options.printed):
            self._ids(p, m, geo, hexes)

    def paint_dynamic(self, p: QPainter, rect: QRectF, scale: float = 1.0) -> None:
        """What changes without the map changing: areas shown, the selection,
        drop highlight, counters."""
        m = self.doc.map
        if m is None:
            return
        geo = self.geo
        snap = self.doc.snapshot
        px = S * scale
        poly = geo.polygon
        p.setRenderHint(QPainter.Antialiasing, px >= 6)
        vis = set(geo.visible(rect))
        if self.options.areas:
            self._areas(p, m, geo, vis)
        if self.options.highlight:
            p.setPen(QPen(QColor("#ff8800"), S * 0.08))
            p.setBrush(QColor(255, 160, 0, 50))
            for h in self.options.highlight & vis:
                p.drawPolygon(poly(h))
        if self.options.selected is not None and self.options.selected in vis:
            draw_selected(p, poly(self.options.selected))
        if self.options.show_counters:
            if self.options.printed:
                self._area_lists(p, geo, vis, snap)
            else:
                self._area_counters(p, geo, vis, snap, px)
            self._counters(p, geo, vis, snap, px)
            self._markers(p, geo, vis, snap)
            if self.options.printed:
                self._marks_over_counters(p, m, geo, vis, px)

    def _areas(self, p, m, geo, vis) -> None:
        # no blues: rivers are blue
        palette = ["#d4145a", "#8e44ad", "#e67e22", "#16a085", "#b8860b", "#c0392b", "#6d4c41", "#2e7d32"]
        names = sorted(self.options.areas & set(m.areas))
        for i, name in enumerate(names):
            col = QColor(palette[sorted(m.areas).index(name) % len(palette)])
            fill = QColor(col)
            fill.setAlpha(45)
            p.setPen(Qt.NoPen)
            p.setBrush(fill)
            hs = m.areas[name]
            for h in hs & vis:
                p.drawPolygon(geo.polygon(h))
            pen = QPen(col, S * 0.08, Qt.DashLine)
            pen.setCapStyle(Qt.FlatCap)
            p.setPen(pen)
            draw_outline(p, geo, hs, vis)

    def _edges_out(self, m) -> dict[Hex, list[int]]:
        """In-play hexes that border the playing area, with the directions
        of their boundary edges (cached until hexes go in or out of play)."""
        key = (id(m), m.out_rev, m.grid)
        if getattr(self, "_out_key", None) != key:
            inplay = m.in_play
            out: dict[Hex, list[int]] = {}
            for h in m.hexes:
                if inplay(h):
                    ds = [d for d, n in enumerate(h.neighbours()) if not inplay(n)]
                    if ds:
                        out[h] = ds
            self._out_cache, self._out_key = out, key
        return self._out_cache

    def _lines_by_hex(self, m) -> tuple[dict, dict]:
        """Hexsides and link segments by hex (cached until they change)."""
        key = (id(m), m.line_rev, m.grid)
        if getattr(self, "_line_key", None) != key:
            sides: dict[Hex, list] = {}
            for s in m.hexsides:
                sides.setdefault(s.a, []).append(s)
                sides.setdefault(s.b, []).append(s)
            links: dict[str, dict[Hex, list]] = {}
            for kind, segs in m.links.items():
                d = links.setdefault(kind, {})
                for s in segs:
                    d.setdefault(s.a, []).append(s)
                    d.setdefault(s.b, []).append(s)
            self._line_cache, self._line_key = (sides, links), key
        return self._line_cache

    @staticmethod
    def _near(index: dict, vis) -> list:
        """Items indexed by both their hexes, for the visible hexes."""
        out = set()
        get = index.get
        for h in vis:
            items = get(h)
            if items:
                out.update(items)
        return sorted(out)

    def _boundary(self, p, m, geo, hexes) -> None:
        pen = QPen(QColor("#3a3a30"), S * 0.07)
        pen.setCapStyle(Qt.RoundCap)
        p.setPen(pen)
        edges = self._edges_out(m)
        for h in hexes:
            for d in edges.get(h, ()):
                (x1, y1), (x2, y2) = geo.edge(h, d)
                p.drawLine(QPointF(x1, y1), QPointF(x2, y2))

    def _hexsides(self, p, m, geo, vis, snap) -> None:
        sides, _ = self._lines_by_hex(m)
        for s in self._near(sides, vis):
            feats = m.hexsides.get(s)
            if not feats:
                continue
            d = s.a.direction_to(s.b)
            (x1, y1), (x2, y2) = geo.edge(s.a, d)
            for f in sorted(feats, key=lambda f: ("bridge" in f, f)):
                t = snap.terrain.get(f)
                col = _c(t.colour if t else "#3b7fc4")
                if "bridge" in f:
                    self._bridge(p, geo, s, col)
                    continue
                if "strait" in f:
                    (ax, ay), (bx, by) = geo.centre(s.a), geo.centre(s.b)
                    pen = QPen(col, S * 0.1, Qt.DashLine)
                    p.setPen(pen)
                    p.drawLine(QPointF(ax + (bx - ax) * 0.25, ay + (by - ay) * 0.25),
                               QPointF(ax + (bx - ax) * 0.75, ay + (by - ay) * 0.75))
                    continue
                major = "major" in f or "great" in f
                pen = QPen(col, S * (0.17 if major else 0.09))
                pen.setCapStyle(Qt.RoundCap)
                p.setPen(pen)
                p.drawLine(QPointF(x1, y1), QPointF(x2, y2))

    def _bridge(self, p, geo, s, col) -> None:
        (ax, ay), (bx, by) = geo.centre(s.a), geo.centre(s.b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        dx, dy = (bx - ax), (by - ay)
        ln = math.hypot(dx, dy)
        ux, uy = dx / ln, dy / ln
        vx, vy = -uy, ux
        pen = QPen(QColor("#303030"), S * 0.05)
        p.setPen(pen)
        for side in (-1, 1):
            ox, oy = mx + vx * side * S * 0.14, my + vy * side * S * 0.14
            p.drawLine(QPointF(ox - ux * S * 0.2, oy - uy * S * 0.2), QPointF(ox + ux * S * 0.2, oy + uy * S * 0.2))

    def _links(self, p, m, geo, vis, snap) -> None:
        kinds = sorted(m.links, key=lambda k: ("rail" in k, k))
        for kind in kinds:
            t = snap.terrain.get(kind)
            col = _c(t.colour if t else "#8b5a2b")
            rail = "rail" in kind
            segs = [s for s in self._near(self._lines_by_hex(m)[1].get(kind, {}), vis)
                    if s.a in vis or s.b in vis]
            if not segs:
                continue
            if rail:
                pen = QPen(col, S * 0.055)
                pen.setCapStyle(Qt.RoundCap)
                p.setPen(pen)
                lines = []
                ties = []
                for s in segs:
                    (ax, ay), (bx, by) = geo.centre(s.a), geo.centre(s.b)
                    lines.append((QPointF(ax, ay), QPointF(bx, by)))
                    dx, dy = bx - ax, by - ay
                    ln = math.hypot(dx, dy)
                    vx, vy = -dy / ln * S * 0.11, dx / ln * S * 0.11
                    n = 7
                    for i in range(1, n):
                        tx, ty = ax + dx * i / n, ay + dy * i / n
                        ties.append((QPointF(tx - vx, ty - vy), QPointF(tx + vx, ty + vy)))
                for a, b in lines:
                    p.drawLine(a, b)
                p.setPen(QPen(col, S * 0.035))
                for a, b in ties:
                    p.drawLine(a, b)
            else:
                casing = QPen(QColor(255, 250, 235, 200), S * 0.16)
                casing.setCapStyle(Qt.RoundCap)
                pen = QPen(col, S * 0.09)
                pen.setCapStyle(Qt.RoundCap)
                pts = [(QPointF(*geo.centre(s.a)), QPointF(*geo.centre(s.b))) for s in segs]
                p.setPen(casing)
                for a, b in pts:
                    p.drawLine(a, b)
                p.setPen(pen)
                for a, b in pts:
                    p.drawLine(a, b)

    def _label(self, p, x, y, text, size, bold=False, colour="#000000", halo="#fffdf0") -> None:
        f = QFont(FONT)
        f.setPixelSize(max(1, int(size)))
        f.setBold(bold)
        fm = QFontMetricsF(f)
        w = fm.horizontalAdvance(text)
        path = QPainterPath()
        path.addText(QPointF(x - w / 2, y), f, text)
        p.setPen(QPen(_c(halo), size * 0.28, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        p.setBrush(Qt.NoBrush)
        p.drawPath(path)
        p.setPen(Qt.NoPen)
        p.setBrush(_c(colour))
        p.drawPath(path)

    def _features(self, p, m, geo, hexes, snap, px, names: bool = True) -> None:
        named = []
        for h in hexes:
            mh = m.hexes[h]
            if not (mh.features or mh.name or mh.vp) or h in m.outside:
                continue
            x, y = geo.centre(h)
            for f in mh.features:
                t = snap.terrain.get(f)
                col = _c(t.colour if t else "#5a5a5a")
                if f == "city" or "city" in f:
                    # a block of streets: a dark irregular shape
                    pts = [(-0.32, -0.18), (-0.12, -0.34), (0.16, -0.28), (0.34, -0.06), (0.26, 0.22),
                           (0.02, 0.3), (-0.26, 0.2)]
                    p.setPen(QPen(col.darker(160), S * 0.035))
                    p.setBrush(col)
                    p.drawPolygon(QPolygonF([QPointF(x + a * S, y + b * S) for a, b in pts]))
                    p.setPen(QPen(QColor(255, 255, 255, 170), S * 0.02))
                    p.drawLine(QPointF(x - 0.25 * S, y - 0.02 * S), QPointF(x + 0.28 * S, y + 0.04 * S))
                    p.drawLine(QPointF(x - 0.02 * S, y - 0.3 * S), QPointF(x + 0.04 * S, y + 0.27 * S))
                elif f == "town" or "town" in f or "village" in f:
                    p.setPen(QPen(QColor("#ffffff"), S * 0.03))
                    p.setBrush(col)
                    p.drawRect(QRectF(x - 0.13 * S, y - 0.13 * S, 0.26 * S, 0.26 * S))
                else:
                    p.setPen(QPen(col.darker(150), S * 0.03))
                    p.setBrush(col)
                    p.drawEllipse(QPointF(x + 0.42 * S, y - 0.42 * S), 0.13 * S, 0.13 * S)
            if mh.vp:
                self._vp_disc(p, x, y, mh.vp)
            if mh.name and names:
                named.append((h, mh))
        if px < 9:
            named = [(h, mh) for h, mh in named if any("city" in f for f in mh.features)]
        for h, mh in named:
            self._name(p, geo, h, mh, px)

    def _vp_disc(self, p, x: float, y: float, vp: int) -> None:
        p.setPen(QPen(QColor("#000000"), S * 0.03))
        p.setBrush(QColor("#ffffff"))
        p.drawEllipse(QPointF(x - 0.48 * S, y - 0.42 * S), 0.18 * S, 0.18 * S)
        f = QFont(FONT)
        f.setPixelSize(max(1, int(S * 0.22)))
        f.setBold(True)
        p.setFont(f)
        p.setPen(QColor("#b00000"))
        p.drawText(QRectF(x - 0.66 * S, y - 0.6 * S, 0.36 * S, 0.36 * S), Qt.AlignCenter, str(vp))

    def _name(self, p, geo, h, mh, px) -> None:
        x, y = geo.centre(h)
        city = any("city" in f for f in mh.features)
        size = S * (0.42 if city else 0.33)
        if px < 24:
            size *= min(2.2, 24 / max(px, 1))  # stays readable when zoomed out
        self._label(p, x, y + S * (0.3 if not city else 0.34) + size * 0.8, mh.name, size, bold=city)

    def _marks_over_counters(self, p, m, geo, vis, px) -> None:
        """Print: a stacked hex's VP disc and name drawn again over its counters."""
        for h in self.stacks():
            mh = m.hexes.get(h)
            if mh is None or h not in vis or h in m.outside:
                continue
            if mh.vp:
                self._vp_disc(p, *geo.centre(h), mh.vp)
            if mh.name:
                self._name(p, geo, h, mh, px)

    def _area_lists(self, p, geo, vis, snap) -> None:
        """Print: an area set-up is the area outlined and a list of the units
        that set up in it, never a stack on one hex (a player would read it
        as all those units in that hex)."""
        m = self.doc.map
        for name, ids in sorted(self.area_stacks().items()):
            hs = m.areas[name]
            pen = QPen(QColor(40, 40, 40, 200), S * 0.06, Qt.DashLine)
            pen.setCapStyle(Qt.FlatCap)
            p.setPen(pen)
            draw_outline(p, geo, hs, vis)
            a = self.area_anchor(name)
            if a is None or a not in vis:
                continue
            x, y = geo.centre(a)
            title = self.doc.map.area_titles.get(name) or name
            per_line = 4
            lines = [f"{title}: {len(ids)} unit{'s' if len(ids) != 1 else ''}"]
            lines += [" ".join(ids[i:i + per_line]) for i in range(0, len(ids), per_line)]
            f = QFont(FONT)
            f.setPixelSize(max(1, int(S * 0.24)))
            fm = QFontMetricsF(f)
            lh = fm.height()
            w = max(fm.horizontalAdvance(t) for t in lines) + S * 0.3
            h = lh * len(lines) + S * 0.2
            box = QRectF(x - w / 2, y - h / 2, w, h)
            p.setPen(QPen(QColor("#000000"), S * 0.03))
            p.setBrush(QColor(255, 252, 235, 235))
            p.drawRect(box)
            p.setPen(QColor("#000000"))
            for i, t in enumerate(lines):
                f.setBold(i == 0)
                p.setFont(f)
                p.drawText(QRectF(box.left(), box.top() + S * 0.1 + i * lh, w, lh), Qt.AlignCenter, t)

    def _supply(self, p, m, geo, vis, snap, px) -> None:
        for side, hs in m.supply.items():
            sd = snap.sides.get(side)
            col = _c(sd.colour if sd else "#ff00ff")
            fg = _c(sd.text_colour if sd else "#000000")
            for h in hs & vis:
                x, y = geo.centre(h)
                cx, cy = x + 0.45 * S, y + 0.36 * S
                star = QPolygonF([QPointF(cx + math.cos(math.radians(-90 + 36 * i)) * S * (0.22 if i % 2 == 0 else 0.1),
                                          cy + math.sin(math.radians(-90 + 36 * i)) * S * (0.22 if i % 2 == 0 else 0.1))
                                  for i in range(10)])
                p.setPen(QPen(fg if fg.lightness() < 128 else QColor("#000000"), S * 0.03))
                p.setBrush(col)
                p.drawPolygon(star)
        g = geo
        for side, edges in m.supply_edges.items():
            sd = snap.sides.get(side)
            col = QColor(_c(sd.colour if sd else "#ff00ff"))
            col.setAlpha(200)
            p.setPen(Qt.NoPen)
            p.setBrush(col)
            t = S * 0.35
            for e in edges:
                r = {"west": QRectF(-t - S * 0.15, 0, t, g.height), "east": QRectF(g.width + S * 0.15, 0, t, g.height),
                     "north": QRectF(0, -t - S * 0.15, g.width, t),
                     "south": QRectF(0, g.height + S * 0.15, g.width, t)}.get(e)
                if r is None:
                    continue
                p.setBrush(col)
                p.setPen(Qt.NoPen)
                p.drawRect(r)
                f = QFont(FONT)
                f.setPixelSize(int(S * 0.26))
                f.setBold(True)
                p.setFont(f)
                p.setPen(_c(sd.text_colour if sd else "#000000"))
                label = f"{sd.title if sd else side} supply"
                if e in ("west", "east"):
                    p.save()
                    p.translate(r.center())
                    p.rotate(90 if e == "east" else -90)
                    p.drawText(QRectF(-g.height / 2, -t / 2, g.height, t), Qt.AlignCenter, label)
                    p.restore()
                else:
                    p.drawText(r, Qt.AlignCenter, label)

    def _ids(self, p, m, geo, hexes) -> None:
        f = QFont(FONT)
        f.setPixelSize(int(S * 0.21))
        p.setFont(f)
        p.setPen(QColor(40, 40, 40, 210))
        fmt = m.grid.format_id
        for h in hexes:
            x, y = geo.centre(h)
            p.drawText(QRectF(x - S * 0.6, y - S * 0.84, S * 1.2, S * 0.3), Qt.AlignCenter, fmt(h))

    def _counters(self, p, geo, vis, snap, px) -> None:
        stacks = self.stacks()
        c = S * 1.05
        hexes = self.doc.map.hexes if self.doc.map is not None else {}
        for h, ids in stacks.items():
            if h not in vis:
                continue
            x, y = geo.centre(h)
            if h in hexes and hexes[h].name:
                y -= S * 0.22  # a named hex: the stack sits higher, so that the name below it shows
            if self.options.printed and h in hexes and (hexes[h].name or hexes[h].vp):
                c = S * 0.85  # print: smaller, clear of the VP disc and the name
                x += S * 0.1
            else:
                c = S * 1.05
            n = len(ids)
            for i, cid in enumerate(ids):
                off = (i - (n - 1) / 2) * S * 0.16
                r = QRectF(x - c / 2 + off, y - c / 2 - off, c, c)
                if px < 10:
                    look = look_for(snap, cid, art=getattr(self.doc, 'art_path', None))
                    p.setPen(QPen(QColor("#000000"), S * 0.04))
                    p.setBrush(_c(look.colour))
                    p.drawRect(r)
                else:
                    draw_counter(p, r, look_for(snap, cid, art=getattr(self.doc, 'art_path', None)), cid == self.options.selected_counter)
                self.draw_under(p, r, cid, px)

    def marker_chips(self) -> dict[Hex, list[str]]:
        """The scenario's markers on the map (``place KIND at HEX|AREA``), by hex:
        an area's markers sit on its first hex, as the runtime places them."""
        sc = self.doc.snapshot.scenarios.get(self.scenario)
        m = self.doc.map
        out: dict[Hex, list[str]] = {}
        if sc is None or m is None:
            return out
        for kind, at in sc.markers:
            if at in m.areas:
                hs = sorted(m.areas[at], key=m.grid.to_colrow)
                h = hs[0] if hs else None
            else:
                try:
                    h = m.grid.parse_id(at)
                except ValueError:
                    h = None  # a pool: not on the map
            if h is not None:
                out.setdefault(h, []).append(kind)
        return out

    def _markers(self, p, geo, vis, snap) -> None:
        for h, kinds in self.marker_chips().items():
            if h in vis:
                x, y = geo.centre(h)
                draw_marker_chips(p, x, y, [snap.markers[k] for k in kinds if k in snap.markers])

    def area_stacks(self) -> dict[str, list[str]]:
        sc = self.doc.snapshot.scenarios.get(self.scenario)
        m = self.doc.map
        out: dict[str, list[str]] = {}
        if sc is None or m is None:
            return out
        for cid, p in sc.placements.items():
            if p.at in m.areas:
                out.setdefault(p.at, []).append(cid)
        return out

    def area_anchor(self, name: str) -> Hex | None:
        """The area's hex nearest its centre (where its counters are shown)."""
        m = self.doc.map
        hs = [h for h in m.areas.get(name, ()) if m.in_play(h)]
        if not hs:
            return None
        geo = self.geo
        cx = sum(geo.centre(h)[0] for h in hs) / len(hs)
        cy = sum(geo.centre(h)[1] for h in hs) / len(hs)
        return min(hs, key=lambda h: (geo.centre(h)[0] - cx) ** 2 + (geo.centre(h)[1] - cy) ** 2 + h.q * 1e-9)

    def _area_counters(self, p, geo, vis, snap, px) -> None:
        """Counters set up in an area: a stack at the area's centre with a
        count, and the area's outline dashed."""
        m = self.doc.map
        c = S * 1.05
        for name, ids in sorted(self.area_stacks().items()):
            hs = m.areas[name]
            pen = QPen(QColor(60, 60, 60, 170), S * 0.045, Qt.DashLine)
            p.setPen(pen)
            draw_outline(p, geo, hs, vis)
            a = self.area_anchor(name)
            if a is None or a not in vis:
                continue
            x, y = geo.centre(a)
            show = ids[-3:]
            for i, cid in enumerate(show):
                off = (i - (len(show) - 1) / 2) * S * 0.12
                r = QRectF(x - c / 2 + off, y - c / 2 - off, c, c)
                draw_counter(p, r, look_for(snap, cid, art=getattr(self.doc, 'art_path', None)), cid == self.options.selected_counter)
                self.draw_under(p, r, cid, px)
            badge = QRectF(x + c * 0.25, y + c * 0.25, S * 0.7, S * 0.36)
            p.setPen(QPen(QColor("#000000"), S * 0.03))
            p.setBrush(QColor("#fff8c0"))
            p.drawRoundedRect(badge, S * 0.08, S * 0.08)
            f = QFont(FONT)
            f.setPixelSize(int(S * 0.26))
            f.setBold(True)
            p.setFont(f)
            p.setPen(QColor("#000000"))
            p.drawText(badge, Qt.AlignCenter, f"×{len(ids)}")

    def counter_at(self, x: float, y: float) -> str | None:
        """The top counter drawn under scene point (x, y)."""
        h = self.geo.pick(x, y)
        ids = self.stacks().get(h)
        return ids[-1] if ids else None


def draw_marker_chips(p: QPainter, x: float, y: float, markers: list) -> None:
    """Markers (DRM, VP chits, objectives) as small round chips along a hex's
    bottom edge, below its counters: they are no units.  ``markers``:
    MarkerInfo-like objects (colour, text_colour, label)."""
    c = S * 0.36
    shown = markers[:3]
    for i, mk in enumerate(shown):
        cx = x + (i - (len(shown) - 1) / 2) * c * 1.05
        r = QRectF(cx - c / 2, y + S * 0.86 - c - S * 0.02, c, c)
        p.setPen(QPen(QColor("#000000"), S * 0.03))
        p.setBrush(_c(mk.colour, "#f0d040"))
        p.drawEllipse(r)
        f = QFont(FONT)
        f.setPixelSize(int(S * 0.17))
        f.setBold(True)
        p.setFont(f)
        p.setPen(_c(mk.text_colour, "#000000"))
        p.drawText(r, Qt.AlignCenter, mk.label)


def render_image(doc, scenario: str = "", hex_px: float = 30.0, show_ids: bool = True,
                 margin: bool = True) -> QImage:
    """The whole map (and a scenario's counters) as an image, drawn as for
    print (areas as lists, labels over counters; IDs unless turned off)."""
    mp = MapPainter(doc, Options(show_ids=show_ids, printed=True))
    mp.scenario = scenario
    rect = mp.scene_rect()
    scale = hex_px / S
    img = QImage(int(rect.width() * scale) + 1, int(rect.height() * scale) + 1, QImage.Format_ARGB32_Premultiplied)
    img.fill(QColor("#f4f1e8"))
    p = QPainter(img)
    p.setRenderHint(QPainter.Antialiasing)
    p.setRenderHint(QPainter.TextAntialiasing)
    p.scale(scale, scale)
    p.translate(-rect.left(), -rect.top())
    mp.paint(p, rect, scale)
    p.end()
    return img
