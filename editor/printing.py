"""Print-and-play: the map tiled across sheets of paper, and the counter
sheet (fronts and mirrored backs on alternate pages).

Both are PDFs drawn with Qt's QPdfWriter at a printed scale: a hex is 16 mm
across its corners, about a commercial map's scale.  A tiled map has the same
overlap on every seam, crosses at the same map positions on both sheets of a
seam (align the crosses, glue), and a caption saying which sheet is which.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QMarginsF, QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QPageLayout, QPageSize, QPainter, QPdfWriter, QPen

from .paint import FONT, S, MapPainter, Options, draw_counter, look_for

DPI = 300
DOTS_PER_MM = DPI / 25.4
MM_PER_UNIT = 8.0 / S  # map units → mm: a hex is 16 mm across its corners
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
COUNTER_SIZES = {"1/2in": 12.7, "5/8in": 15.875, "9/16in": 14.2875, "3/4in": 19.05}


@dataclass(frozen=True)
class Tiling:
    """How a map of ``w`` × ``h`` mm falls on sheets of ``paper`` mm."""
    paper: tuple[float, float]  # page width, height in mm (orientation chosen)
    margin: float
    overlap: float
    w: float
    h: float

    @property
    def usable(self) -> tuple[float, float]:
        return self.paper[0] - 2 * self.margin, self.paper[1] - 2 * self.margin

    @property
    def step(self) -> tuple[float, float]:
        uw, uh = self.usable
        return uw - self.overlap, uh - self.overlap

    def counts(self) -> tuple[int, int]:
        (uw, uh), (sx, sy) = self.usable, self.step
        cols = 1 if self.w <= uw else 1 + math.ceil((self.w - uw) / sx)
        rows = 1 if self.h <= uh else 1 + math.ceil((self.h - uh) / sy)
        return cols, rows

    def origin(self, col: int, row: int) -> tuple[float, float]:
        """The map position (mm) at the top-left of sheet (col, row)."""
        sx, sy = self.step
        return col * sx, row * sy

    def marks(self) -> list[tuple[float, float]]:
        """Registration crosses, in map mm: in the middle of every overlap
        band, so that both sheets of a seam print each one."""
        cols, rows = self.counts()
        (uw, uh), (sx, sy) = self.usable, self.step
        xs = [c * sx + self.overlap / 2 for c in range(1, cols)]
        ys = [r * sy + self.overlap / 2 for r in range(1, rows)]
        out = []
        for x in xs:  # vertical seams: crosses down the band
            for r in range(rows):
                out += [(x, r * sy + uh * 0.2), (x, r * sy + uh * 0.8)]
        for y in ys:
            for c in range(cols):
                out += [(c * sx + uw * 0.2, y), (c * sx + uw * 0.8, y)]
        return out


def plan_tiles(w_mm: float, h_mm: float, paper: str, margin: float = 10.0, overlap: float = 12.0) -> Tiling:
    """Portrait or landscape, whichever needs fewer sheets (portrait on a tie)."""
    pw, ph = PAPERS[paper]
    best = None
    for size in ((pw, ph), (ph, pw)):
        t = Tiling(size, margin, overlap, w_mm, h_mm)
        c, r = t.counts()
        if best is None or c * r < best[0]:
            best = (c * r, t)
    return best[1]


def _font(mm: float, bold: bool = False) -> QFont:
    f = QFont(FONT)
    f.setPixelSize(max(1, int(mm * DOTS_PER_MM)))
    f.setBold(bold)
    return f


def _cross(p: QPainter, x: float, y: float, r: float) -> None:
    """A registration cross with a circle, centred on (x, y) dots."""
    p.drawLine(QPointF(x - r, y), QPointF(x + r, y))
    p.drawLine(QPointF(x, y - r), QPointF(x, y + r))
    p.drawEllipse(QPointF(x, y), r * 0.55, r * 0.55)


def _writer(out: Path, title: str, size_mm: tuple[float, float]) -> QPdfWriter:
    pdf = QPdfWriter(str(out))
    pdf.setTitle(title)
    pdf.setCreator("hexforge")
    pdf.setResolution(DPI)
    pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(*size_mm), QPageSize.Millimeter, "sheet"),
                                  QPageLayout.Portrait, QMarginsF(0, 0, 0, 0)))
    return pdf


def render_tiled_map(doc, out: str | Path, scenario: str = "", paper: str = "a4", show_ids: bool = True,
                     margin: float = 10.0, overlap: float = 12.0) -> int:
    """The map (with a scenario's set-up) across sheets of paper; returns the
    number of pages."""
    out = Path(out)
    mp = MapPainter(doc, Options(show_ids=show_ids, vector=True, printed=True))
    mp.scenario = scenario
    rect = mp.scene_rect()
    t = plan_tiles(rect.width() * MM_PER_UNIT, rect.height() * MM_PER_UNIT, paper, margin, overlap)
    cols, rows = t.counts()
    pdf = _writer(out, f"{doc.title}: map", t.paper)
    p = QPainter(pdf)
    if not p.isActive():
        raise OSError(f"cannot write {out}")
    scale = MM_PER_UNIT * DOTS_PER_MM  # map units → dots
    uw, uh = t.usable
    marks = t.marks()
    n = cols * rows
    k = 0
    for r in range(rows):
        for c in range(cols):
            if k:
                pdf.newPage()
            k += 1
            ox, oy = t.origin(c, r)
            area = QRectF(margin * DOTS_PER_MM, margin * DOTS_PER_MM, uw * DOTS_PER_MM, uh * DOTS_PER_MM)
            p.save()
            p.setClipRect(area)
            p.fillRect(area, QColor("#f4f1e8"))
            p.translate(area.left(), area.top())
            p.scale(scale, scale)
            tile = QRectF(rect.left() + ox / MM_PER_UNIT, rect.top() + oy / MM_PER_UNIT,
                          uw / MM_PER_UNIT, uh / MM_PER_UNIT)
            p.translate(-tile.left(), -tile.top())
            p.setRenderHint(QPainter.Antialiasing)
            p.setRenderHint(QPainter.TextAntialiasing)
            mp.paint(p, tile, scale)
            p.restore()
            # registration crosses, the overlap bands and the caption
            p.setPen(QPen(QColor("#000000"), 0.2 * DOTS_PER_MM))
            p.setBrush(Qt.NoBrush)
            for mx, my in marks:
                x, y = margin + mx - ox, margin + my - oy
                if margin <= x <= margin + uw and margin <= y <= margin + uh:
                    _cross(p, x * DOTS_PER_MM, y * DOTS_PER_MM, 3.0 * DOTS_PER_MM)
            band = QPen(QColor(0, 0, 0, 140), 0.15 * DOTS_PER_MM, Qt.DashLine)
            p.setPen(band)
            if c + 1 < cols:  # the next sheet's first column starts here: trim along it or overlap
                x = (margin + uw - overlap) * DOTS_PER_MM
                p.drawLine(QPointF(x, margin * DOTS_PER_MM), QPointF(x, (margin + uh) * DOTS_PER_MM))
            if r + 1 < rows:
                y = (margin + uh - overlap) * DOTS_PER_MM
                p.drawLine(QPointF(margin * DOTS_PER_MM, y), QPointF((margin + uw) * DOTS_PER_MM, y))
            p.setPen(QPen(QColor("#606060"), 0.2 * DOTS_PER_MM))
            p.drawRect(QRectF(margin * DOTS_PER_MM, margin * DOTS_PER_MM, uw * DOTS_PER_MM, uh * DOTS_PER_MM))
            p.setFont(_font(3.0, bold=True))
            p.setPen(QColor("#000000"))
            caption = (f"{doc.title} — map sheet {r + 1}-{c + 1} (row {r + 1} of {rows}, column {c + 1} of {cols}; "
                       f"page {k} of {n})")
            p.drawText(QRectF(margin * DOTS_PER_MM, (t.paper[1] - margin + 1.5) * DOTS_PER_MM,
                              uw * DOTS_PER_MM, 5 * DOTS_PER_MM), Qt.AlignLeft | Qt.AlignTop, caption)
            p.setFont(_font(2.4))
            hint = (f"Sheets overlap by {overlap:g} mm: trim one sheet at its dashed line, lay it over its "
                    f"neighbour and align the crosses.")
            p.drawText(QRectF(margin * DOTS_PER_MM, 2 * DOTS_PER_MM, uw * DOTS_PER_MM, (margin - 3) * DOTS_PER_MM),
                       Qt.AlignLeft | Qt.AlignVCenter, hint if n > 1 else f"{doc.title} — map")
    p.end()
    return n


# ------------------------------------------------------------------ counters

@dataclass(frozen=True)
class SheetLayout:
    paper: tuple[float, float]
    size: float  # a counter's side, mm
    cols: int
    rows: int
    left: float  # mm from the page's left edge to the grid (centred, so backs mirror exactly)
    top: float

    @property
    def per_page(self) -> int:
        return self.cols * self.rows

    def cell(self, i: int, back: bool) -> QRectF:
        """Where the i-th counter of a page goes, in dots; a back page
        mirrors the columns (double-sided printing, flipped on the long edge)."""
        r, c = divmod(i, self.cols)
        if back:
            c = self.cols - 1 - c
        x, y = self.left + c * self.size, self.top + r * self.size
        return QRectF(x * DOTS_PER_MM, y * DOTS_PER_MM, self.size * DOTS_PER_MM, self.size * DOTS_PER_MM)


def sheet_layout(paper: str, size_mm: float, margin: float = 12.0, header: float = 10.0) -> SheetLayout:
    pw, ph = PAPERS[paper]
    cols = int((pw - 2 * margin) // size_mm)
    rows = int((ph - 2 * margin - header) // size_mm)
    left = (pw - cols * size_mm) / 2
    top = margin + header
    return SheetLayout((pw, ph), size_mm, cols, rows, left, top)


def counter_order(doc) -> list[str]:
    """The order of battle as printed: by side, then as the game lists them."""
    snap = doc.snapshot
    sides = list(snap.sides)
    return sorted(snap.counters, key=lambda cid: (sides.index(snap.counters[cid].side)
                                                  if snap.counters[cid].side in sides else len(sides)))


def render_counter_sheet(doc, out: str | Path, paper: str = "a4", size: str = "5/8in") -> tuple[int, int]:
    """Every counter of the order of battle, fronts on odd pages and their
    backs (the reduced side; a one-step counter's back is blank in its
    colours) mirrored on the even pages.  Returns (counters, pages)."""
    out = Path(out)
    snap = doc.snapshot
    layout = sheet_layout(paper, COUNTER_SIZES[size])
    ids = counter_order(doc)
    if not ids:
        raise ValueError(f"{doc.title} has no counters to print")
    pages = [ids[i:i + layout.per_page] for i in range(0, len(ids), layout.per_page)]
    pdf = _writer(out, f"{doc.title}: counters", layout.paper)
    p = QPainter(pdf)
    if not p.isActive():
        raise OSError(f"cannot write {out}")
    p.setRenderHint(QPainter.Antialiasing)
    p.setRenderHint(QPainter.TextAntialiasing)
    first = True
    for n, page in enumerate(pages, 1):
        for back in (False, True):
            if not first:
                pdf.newPage()
            first = False
            p.setFont(_font(3.2, bold=True))
            p.setPen(QColor("#000000"))
            side = "backs" if back else "fronts"
            title = f"{doc.title} — counters, sheet {n} of {len(pages)}, {side}"
            p.drawText(QRectF(12 * DOTS_PER_MM, 8 * DOTS_PER_MM, (layout.paper[0] - 24) * DOTS_PER_MM,
                              6 * DOTS_PER_MM), Qt.AlignLeft | Qt.AlignVCenter, title)
            p.setFont(_font(2.4))
            note = ("print on the reverse of the fronts page, flipped on the long edge" if back else
                    f"{len(page)} counters, {size} ({layout.size:.1f} mm); cut along the grey lines")
            p.drawText(QRectF(12 * DOTS_PER_MM, 14 * DOTS_PER_MM, (layout.paper[0] - 24) * DOTS_PER_MM,
                              5 * DOTS_PER_MM), Qt.AlignLeft | Qt.AlignVCenter, note)
            for i, cid in enumerate(page):
                r = layout.cell(i, back)
                c = snap.counters[cid]
                if back and not c.reduced:
                    bg, fg = snap.look(c)
                    p.fillRect(r, QColor(bg))
                    continue
                draw_counter(p, r, look_for(snap, cid, reduced=back, art=doc.art_path), printed=True)
            # cut lines over the whole grid
            p.setPen(QPen(QColor("#9a9a9a"), 0.12 * DOTS_PER_MM))
            p.setBrush(Qt.NoBrush)
            for i in range(len(page)):
                p.drawRect(layout.cell(i, back))
    p.end()
    return len(ids), len(pages) * 2
