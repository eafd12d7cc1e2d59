"""``hexforge render GAME [--scenario S] --out FILE.png|.svg|.pdf``: the map
with a scenario's counters, headless, for print-and-play and docs."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QMarginsF, QRectF, QSize, QSizeF
from PySide6.QtGui import QColor, QPageLayout, QPageSize, QPainter, QPdfWriter

from .paint import S, MapPainter, Options, render_image


def _paint(doc, p: QPainter, scenario: str, scale: float, show_ids: bool) -> QRectF:
    mp = MapPainter(doc, Options(show_ids=show_ids, vector=True, printed=True))
    mp.scenario = scenario
    rect = mp.scene_rect()
    p.setRenderHint(QPainter.Antialiasing)
    p.setRenderHint(QPainter.TextAntialiasing)
    p.fillRect(QRectF(0, 0, rect.width() * scale, rect.height() * scale), QColor("#f4f1e8"))
    p.scale(scale, scale)
    p.translate(-rect.left(), -rect.top())
    mp.paint(p, rect, scale)
    return rect


def render_to_file(doc, out: str | Path, scenario: str = "", hex_px: float = 36.0, show_ids: bool = True,
                   paper: str = "") -> Path:
    """The map with a scenario's set-up, to PNG, SVG or PDF; a PDF with
    ``paper`` (a4, letter) is tiled across sheets (editor/printing.py)."""
    out = Path(out)
    ext = out.suffix.lower()
    if ext == ".png" or ext in (".jpg", ".jpeg"):
        img = render_image(doc, scenario, hex_px, show_ids)
        if not img.save(str(out)):
            raise OSError(f"could not write {out}")
        return out
    mp = MapPainter(doc)
    rect = mp.scene_rect()
    if ext == ".svg":
        from PySide6.QtSvg import QSvgGenerator

        scale = hex_px / S
        gen = QSvgGenerator()
        gen.setFileName(str(out))
        size = QSize(int(rect.width() * scale) + 1, int(rect.height() * scale) + 1)
        gen.setSize(size)
        gen.setViewBox(QRectF(0, 0, size.width(), size.height()))
        gen.setTitle(doc.title)
        p = QPainter(gen)
        _paint(doc, p, scenario, scale, show_ids)
        p.end()
        return out
    if ext == ".pdf" and paper:
        from .printing import render_tiled_map

        render_tiled_map(doc, out, scenario, paper, show_ids)
        return out
    if ext == ".pdf":
        # a hex 16 mm across corners (1 inch ≈ 1.6 hexes): about a printed map's scale
        mm_per_unit = 8.0 / S
        w_mm, h_mm = rect.width() * mm_per_unit, rect.height() * mm_per_unit
        pdf = QPdfWriter(str(out))
        pdf.setTitle(doc.title)
        pdf.setResolution(300)
        pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(w_mm, h_mm), QPageSize.Millimeter, "map"),
                                      QPageLayout.Portrait, QMarginsF(0, 0, 0, 0)))
        p = QPainter(pdf)
        dots_per_mm = 300 / 25.4
        _paint(doc, p, scenario, mm_per_unit * dots_per_mm, show_ids)
        p.end()
        return out
    raise ValueError(f"cannot render to '{ext or out.name}': use .png, .svg or .pdf")


def _headless_app():
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") and sys.platform not in ("darwin",
                                                                                                       "win32"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        QApplication(sys.argv[:1])


def _open(cmd: str, game: str):
    """The game's document, or None after saying why on stderr."""
    from .document import GameDocument, LoadError

    if not Path(game).exists():
        print(f"hexforge {cmd}: error: {game}: no such game folder", file=sys.stderr)
        return None
    try:
        return GameDocument.open(game)
    except LoadError as e:
        print(f"hexforge {cmd}: error: {e}", file=sys.stderr)
        return None


def cmd_render(args) -> int:
    _headless_app()
    out = Path(args.out)
    if out.suffix.lower() not in (".png", ".svg", ".pdf"):
        print(f"hexforge render: error: --out must end in .png, .svg or .pdf, not '{out.name}'", file=sys.stderr)
        return 1
    if args.paper and out.suffix.lower() != ".pdf":
        print(f"hexforge render: error: --paper tiles a PDF across sheets: write --out {out.stem}.pdf",
              file=sys.stderr)
        return 1
    doc = _open("render", args.game)
    if doc is None:
        return 1
    try:
        if doc.map is None:
            for d in (doc.map_problems or doc.diagnostics)[:5]:
                print(d.format(doc.sources), file=sys.stderr)
            print(f"hexforge render: error: {args.game} has no map that loads", file=sys.stderr)
            return 1
        snap = doc.snapshot
        scenario = args.scenario
        if scenario and scenario not in snap.scenarios:
            from dsl.diagnostics import did_you_mean
            print(f"hexforge render: error: no scenario '{scenario}'", file=sys.stderr)
            hint = did_you_mean(scenario, snap.scenarios)
            if hint:
                print(f"  hint: {hint}", file=sys.stderr)
            return 1
        if not scenario and snap.scenarios:
            scenario = next(iter(snap.scenarios))
        pages = 0
        try:
            if args.paper:
                from .printing import render_tiled_map

                pages = render_tiled_map(doc, out, scenario, args.paper, not args.no_ids)
            else:
                render_to_file(doc, out, scenario, args.hex_size, not args.no_ids)
        except OSError as e:
            print(f"hexforge render: error: cannot write {out}: {e}", file=sys.stderr)
            return 1
        if not out.is_file():
            print(f"hexforge render: error: cannot write {out}", file=sys.stderr)
            return 1
        extra = f" (scenario {scenario})" if scenario else ""
        if pages:
            extra += f", {pages} {args.paper} page{'s' if pages != 1 else ''}"
        print(f"wrote {out}" + extra)
        return 0
    finally:
        doc.close()


def cmd_counters(args) -> int:
    """``hexforge counters GAME --out counters.pdf [--paper a4] [--size 5/8in]``."""
    _headless_app()
    from .printing import render_counter_sheet

    out = Path(args.out)
    if out.suffix.lower() != ".pdf":
        print(f"hexforge counters: error: the counter sheet is a PDF: write --out {out.stem}.pdf", file=sys.stderr)
        return 1
    doc = _open("counters", args.game)
    if doc is None:
        return 1
    try:
        if not doc.snapshot.counters:
            print(f"hexforge counters: error: {args.game} has no counters", file=sys.stderr)
            return 1
        try:
            n, pages = render_counter_sheet(doc, out, args.paper, args.size)
        except OSError as e:
            print(f"hexforge counters: error: cannot write {out}: {e}", file=sys.stderr)
            return 1
        if not out.is_file():
            print(f"hexforge counters: error: cannot write {out}", file=sys.stderr)
            return 1
        print(f"wrote {out}: {n} counters on {pages // 2} sheet{'s' if pages != 2 else ''} "
              f"({pages} pages: fronts, then backs mirrored for double-sided printing)")
        return 0
    finally:
        doc.close()
