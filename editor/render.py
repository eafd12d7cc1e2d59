"""``hexforge render GAME [--scenario S] --out FILE.png|.svg|.pdf``: the map
with a scenario's counters, headless, for print-and-play and docs."""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QMarginsF, QRectF, QSize, QSizeF
from PySide6.QtGui import QColor, QPageLayout, QPageSize, QPainter, QPdfWriter

from dsl.outputs import CliError, check_writable, written

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
        if not img.save(str(out)) or not written(out):
            raise OSError(f"cannot write {out}")
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
        if not p.isActive():
            raise OSError(f"cannot write {out}")
        _paint(doc, p, scenario, scale, show_ids)
        if not p.end() or not written(out):
            raise OSError(f"cannot write {out}")
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
        if not p.isActive():
            raise OSError(f"cannot write {out}")
        dots_per_mm = 300 / 25.4
        _paint(doc, p, scenario, mm_per_unit * dots_per_mm, show_ids)
        if not p.end() or not written(out):
            raise OSError(f"cannot write {out}")
        return out
    raise ValueError(f"cannot render to '{ext or out.name}': use .png, .svg or .pdf")


def _headless_app():
    from PySide6.QtWidgets import QApplication

    from .headless import headless

    headless()
    if QApplication.instance() is None:
        QApplication(sys.argv[:1])


def _open(game: str):
    """The game's document; CliError when there is none."""
    from .document import GameDocument, LoadError

    if not Path(game).exists():
        raise CliError("no such game folder", game)
    try:
        return GameDocument.open(game)
    except LoadError as e:
        raise CliError(e.why, game) from None


def _written_or_raise(out: Path, write) -> object:
    """Run ``write()``; CliError unless ``out`` then holds a file."""
    try:
        result = write()
    except OSError as e:
        why = e.strerror.lower() if e.strerror else "the file was not written"
        raise CliError(f"cannot write {out}: {why}") from None
    if not written(out):
        raise CliError(f"cannot write {out}: the file was not written")
    return result


def cmd_render(args) -> int:
    """Errors are raised as CliError: the caller (dsl.cli.run) prints them
    in the one format, ``hexforge: GAME: error: ...``."""
    from dsl.diagnostics import did_you_mean

    _headless_app()
    game = args.game
    out = Path(args.out)
    if not Path(game).exists():
        raise CliError("no such game folder", game)
    if out.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise CliError(f"--out must end in .png, .svg or .pdf, not '{out.name}'", game)
    if args.paper and out.suffix.lower() != ".pdf":
        raise CliError(f"--paper tiles a PDF across sheets: write --out {out.stem}.pdf", game)
    check_writable(out)  # before the work, not after it
    doc = _open(game)
    try:
        if doc.map is None:
            for d in (doc.map_problems or doc.diagnostics)[:5]:
                print(d.format(doc.sources) if d.span else f"hexforge: {game}: {d.format()}", file=sys.stderr)
            raise CliError("the game has no map that loads", game)
        snap = doc.snapshot
        scenario = args.scenario
        if scenario and scenario not in snap.scenarios:
            raise CliError(f"no scenario '{scenario}'", game, did_you_mean(scenario, snap.scenarios))
        if not scenario and snap.scenarios:
            scenario = next(iter(snap.scenarios))
        if not args.paper:
            _check_hex_size(doc, args.hex_size, out, game)
        pages = 0
        if args.paper:
            from .printing import render_tiled_map

            pages = _written_or_raise(out, lambda: render_tiled_map(doc, out, scenario, args.paper,
                                                                    not args.no_ids))
        else:
            _written_or_raise(out, lambda: render_to_file(doc, out, scenario, args.hex_size, not args.no_ids))
        extra = f" (scenario {scenario})" if scenario else ""
        if pages:
            extra += f", {pages} {args.paper} page{'s' if pages != 1 else ''}"
        print(f"wrote {out}" + extra)
        return 0
    finally:
        doc.close()


HEX_SIZES = (4.0, 400.0)  # --hex-size: pixels from a hex's centre to a corner
MAX_SIDE = 16_384  # pixels: a PNG's width or height (1 GB to draw in; Qt's images stop at 32,767)


def _check_hex_size(doc, hex_px: float, out: Path, game: str) -> None:
    """--hex-size: a number of pixels in ``HEX_SIZES``, and for a PNG one
    whose map fits in ``MAX_SIDE`` pixels a side (a larger one was not
    written, with a message that blamed the file)."""
    lo, hi = HEX_SIZES
    if not lo <= hex_px <= hi:  # (NaN and infinity too)
        raise CliError(f"--hex-size must be from {lo:g} to {hi:g} pixels, not {hex_px:g}", game)
    if out.suffix.lower() != ".png":
        return
    rect = MapPainter(doc).scene_rect()
    side = max(rect.width(), rect.height()) * hex_px / S
    if side > MAX_SIDE:
        fits = int(MAX_SIDE * S / max(rect.width(), rect.height()))
        raise CliError(f"at --hex-size {hex_px:g} the map is {side:,.0f} pixels across, more than a PNG's "
                       f"{MAX_SIDE:,}", game, f"--hex-size {fits} or less, or an SVG or PDF")


def cmd_counters(args) -> int:
    """``hexforge counters GAME --out counters.pdf [--paper a4] [--size 5/8in]``."""
    _headless_app()
    from .printing import render_counter_sheet

    game = args.game
    out = Path(args.out)
    if out.suffix.lower() != ".pdf":
        raise CliError(f"the counter sheet is a PDF: write --out {out.stem}.pdf", game)
    if not Path(game).exists():
        raise CliError("no such game folder", game)
    check_writable(out)
    doc = _open(game)
    try:
        if not doc.snapshot.counters:
            raise CliError("the game has no counters", game)
        n, pages = _written_or_raise(out, lambda: render_counter_sheet(doc, out, args.paper, args.size))
        print(f"wrote {out}: {n} counters on {pages // 2} sheet{'s' if pages != 2 else ''} "
              f"({pages} pages: fronts, then backs mirrored for double-sided printing)")
        return 0
    finally:
        doc.close()
