"""Print-and-play: the map tiled across sheets, the counter sheet with
mirrored backs, set-up areas printed as lists, IDs the same in every format."""
from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("pytestqt")

from dsl.scaffold import NewGame, write_game  # noqa: E402
from editor import paint  # noqa: E402
from editor.document import GameDocument  # noqa: E402
from editor.printing import COUNTER_SIZES, PAPERS, plan_tiles, sheet_layout  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PT_PER_MM = 72 / 25.4


def pdf_pages(path: Path) -> list[tuple[float, float]]:
    """The pages' sizes in mm, read from the PDF's page dictionaries."""
    data = path.read_bytes()
    n = len(re.findall(rb"/Type\s*/Page\b", data))
    boxes = [tuple(float(v) for v in m.split()) for m in re.findall(rb"/MediaBox\s*\[([^\]]*)\]", data)]
    assert len(boxes) in (1, n)
    return [((b[2] - b[0]) / PT_PER_MM, (b[3] - b[1]) / PT_PER_MM) for b in boxes] * (n if len(boxes) == 1 else 1)


def hexforge(*args):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("QT_QPA_PLATFORM", None)
    return subprocess.run([sys.executable, "-c", "import sys; from editor.cli import main; sys.exit(main())", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


@settings(max_examples=60, deadline=None)
@given(w=st.floats(20, 2000), h=st.floats(20, 2000), paper=st.sampled_from(sorted(PAPERS)))
def test_tiles_cover_the_map_and_every_cross_is_on_both_sheets_of_its_seam(w, h, paper):
    t = plan_tiles(w, h, paper)
    cols, rows = t.counts()
    uw, uh = t.usable
    # the last sheet reaches the map's far edges
    assert t.origin(cols - 1, rows - 1)[0] + uw >= w - 1e-6 and t.origin(cols - 1, rows - 1)[1] + uh >= h - 1e-6
    # no sheet is wasted: without the last column (row) the map would not fit
    assert cols == 1 or t.origin(cols - 1, 0)[0] < w
    assert rows == 1 or t.origin(0, rows - 1)[1] < h

    def sheets_with(x, y):
        return [(c, r) for c in range(cols) for r in range(rows)
                if t.origin(c, r)[0] <= x <= t.origin(c, r)[0] + uw and t.origin(c, r)[1] <= y <= t.origin(c, r)[1] + uh]
    for x, y in t.marks():
        assert len(sheets_with(x, y)) >= 2  # a cross aligns two sheets


def test_landscape_is_chosen_when_it_saves_sheets():
    wide = plan_tiles(400, 150, "a4")
    assert wide.paper == (297.0, 210.0) and wide.counts() == (2, 1)
    tall = plan_tiles(150, 400, "a4")
    assert tall.paper == (210.0, 297.0)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_hexforge_render_tiles_smolensk(tmp_path, paper):
    out = tmp_path / "map.pdf"
    r = hexforge("render", "games/smolensk", "--scenario", "short", "--paper", paper, "--out", str(out))
    assert r.returncode == 0, r.stderr
    pages = pdf_pages(out)
    assert f"{len(pages)} {paper} pages" in r.stdout and len(pages) > 1
    pw, ph = PAPERS[paper]
    for w, h in pages:
        assert sorted((round(w), round(h))) == sorted((round(pw), round(ph)))


def test_render_paper_needs_a_pdf(tmp_path):
    r = hexforge("render", "games/barbarossa-postcard", "--paper", "a4", "--out", str(tmp_path / "m.png"))
    assert r.returncode == 1 and "--paper tiles a PDF" in r.stderr and not (tmp_path / "m.png").exists()


@pytest.mark.parametrize("size", ["1/2in", "5/8in"])
def test_counter_sheet_fronts_and_mirrored_backs(tmp_path, size):
    out = tmp_path / "counters.pdf"
    r = hexforge("counters", "games/smolensk", "--paper", "a4", "--size", size, "--out", str(out))
    assert r.returncode == 0, r.stderr
    lay = sheet_layout("a4", COUNTER_SIZES[size])
    sheets = math.ceil(226 / lay.per_page)
    assert f"226 counters on {sheets} sheet" in r.stdout
    pages = pdf_pages(out)
    assert len(pages) == 2 * sheets
    assert all((round(w), round(h)) == (210, 297) for w, h in pages)


def test_back_cells_mirror_the_fronts_across_the_page():
    lay = sheet_layout("letter", COUNTER_SIZES["5/8in"])
    pw = PAPERS["letter"][0] * 300 / 25.4
    for i in range(lay.per_page):
        f, b = lay.cell(i, False), lay.cell(i, True)
        assert abs((f.left() + f.right()) / 2 - (pw - (b.left() + b.right()) / 2)) < 1e-6  # same spot, flipped
        assert f.top() == b.top()


@pytest.fixture
def new_doc(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "rec"))
    write_game(tmp_path / "lib" / "g", NewGame("g", "G"))
    doc = GameDocument.open(tmp_path / "lib" / "g")
    yield doc
    doc.close()


def test_printed_set_up_areas_are_lists_not_stacks(qtbot, new_doc, monkeypatch):
    drawn = []
    real = paint.draw_counter
    monkeypatch.setattr(paint, "draw_counter", lambda p, r, look, *a, **k: (drawn.append(look.label),
                                                                            real(p, r, look, *a, **k)))
    lists = []
    real_lists = paint.MapPainter._area_lists
    monkeypatch.setattr(paint.MapPainter, "_area_lists",
                        lambda self, *a: (lists.append(sorted(self.area_stacks())), real_lists(self, *a)))
    paint.render_image(new_doc, "standard", hex_px=12)
    assert drawn == []  # every unit of the scaffold sets up in an area: no counter drawn on a hex
    assert lists == [["blue-start", "red-start"]]
    # the editor's map view still shows an area's units as a stack with a count
    mp = paint.MapPainter(new_doc, paint.Options())
    mp.scenario = "standard"
    from PySide6.QtGui import QImage, QPainter
    img = QImage(200, 200, QImage.Format_ARGB32_Premultiplied)
    p = QPainter(img)
    mp.paint(p, mp.scene_rect(), 1.0)
    p.end()
    assert drawn


@pytest.mark.parametrize("show", [True, False])
def test_png_and_pdf_agree_on_hex_ids(qtbot, new_doc, monkeypatch, tmp_path, show):
    calls = []
    real = paint.MapPainter._ids
    monkeypatch.setattr(paint.MapPainter, "_ids", lambda self, *a: (calls.append(1), real(self, *a)))
    from editor.render import render_to_file
    render_to_file(new_doc, tmp_path / "m.png", "standard", 20, show)
    png = len(calls)
    render_to_file(new_doc, tmp_path / "m.pdf", "standard", 20, show)  # 300 dpi: zoomed in far enough for IDs
    assert (png > 0) == show and (len(calls) - png > 0) == show
