"""Editor benchmarks on the synthetic 120×60 game (7,200 hexes, 300 units).

    editor_open_120x60_ms   open the game folder, build the main window, show it
                            and paint it once (median of a few runs; target < 1000)
    editor_repaint_ms       repaint the map view's visible area at the opening
                            zoom, 1280×800 window (median; target < 16)
    editor_repaint_cold_ms  the same with the tile cache emptied (the first
                            paint after a zoom change)

``run()`` returns both; bench/run.py can merge them into its JSON."""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _app():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def _game(cols: int, rows: int) -> Path:
    from bench.synthetic import synthetic_game

    _, folder = synthetic_game(cols, rows, folder=Path(tempfile.mkdtemp(prefix="hexforge-bench-editor-")))
    return folder


def open_window(folder: Path):
    from editor.app import MainWindow
    from editor.document import GameDocument

    app = _app()
    doc = GameDocument.open(folder, check=False)  # as File > Open does: the window compiles in the background
    w = MainWindow(doc, autosave_ms=0)
    w.ask_on_close = False
    w.resize(1280, 800)
    w.show()
    w.map_view.viewport().repaint()
    app.processEvents()
    return w


def editor_open_ms(cols: int = 120, rows: int = 60, runs: int = 3, folder: Path | None = None) -> float:
    _app()
    folder = folder or _game(cols, rows)
    os.environ.setdefault("HEXFORGE_RECOVERY_DIR", tempfile.mkdtemp(prefix="hexforge-bench-rec-"))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        w = open_window(folder)
        times.append((time.perf_counter() - t0) * 1000)
        w.close()
        w.deleteLater()
    return statistics.median(times)


def editor_repaint_ms(cols: int = 120, rows: int = 60, runs: int = 30, folder: Path | None = None,
                      cold: bool = False) -> float:
    """Repaint the map view's visible area; ``cold``: with the tile cache
    emptied first (what the first paint after a zoom costs)."""
    app = _app()
    folder = folder or _game(cols, rows)
    os.environ.setdefault("HEXFORGE_RECOVERY_DIR", tempfile.mkdtemp(prefix="hexforge-bench-rec-"))
    w = open_window(folder)
    vp = w.map_view.viewport()
    times = []
    for _ in range(runs):
        if cold:
            w.map_view.item.invalidate()
        t0 = time.perf_counter()
        vp.repaint()  # a synchronous paint of everything visible
        times.append((time.perf_counter() - t0) * 1000)
    app.processEvents()
    w.close()
    w.deleteLater()
    return statistics.median(times)


def snapshot_read_ms(folder: Path, runs: int = 3) -> float:
    """The plain reference for opening: reading the game's texts and map
    (GameDocument.open without the window), in the same run."""
    from editor.document import GameDocument

    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        doc = GameDocument.open(folder, check=False)
        times.append((time.perf_counter() - t0) * 1000)
        doc.close()
    return statistics.median(times)


def run(cols: int = 120, rows: int = 60) -> dict[str, float]:
    folder = _game(cols, rows)
    smolensk = Path(__file__).resolve().parent.parent / "games" / "smolensk"
    return {"editor_open_smolensk_ms": round(editor_open_ms(folder=smolensk), 1),
            "editor_open_smolensk_read_only_ms": round(snapshot_read_ms(smolensk), 1),
            "editor_open_120x60_ms": round(editor_open_ms(cols, rows, folder=folder), 1),
            "editor_repaint_ms": round(editor_repaint_ms(cols, rows, folder=folder), 2),
            "editor_repaint_cold_ms": round(editor_repaint_ms(cols, rows, 15, folder=folder, cold=True), 2)}


if __name__ == "__main__":
    import json

    print(json.dumps(run()))
