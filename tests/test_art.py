"""Art: counter faces and a map background, kept in the game folder by
relative path, checked by the compiler (inside the folder, an image, a
regular file), imported by the editor and drawn by the editor and render."""
from __future__ import annotations

import os

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF  # noqa: E402
from PySide6.QtGui import QColor, QImage, QPainter  # noqa: E402

from dsl.compiler import compile_game  # noqa: E402
from dsl.diagnostics import DslError  # noqa: E402
from dsl.scaffold import NewGame, write_game  # noqa: E402
from editor.document import GameDocument  # noqa: E402
from editor.paint import CounterLook, draw_counter, render_image  # noqa: E402


def png(path, colour: str, size: int = 32) -> str:
    img = QImage(size, size, QImage.Format_ARGB32)
    img.fill(QColor(colour))
    path.parent.mkdir(parents=True, exist_ok=True)
    assert img.save(str(path))
    return str(path)


@pytest.fixture
def game(tmp_path, qapp):
    folder = tmp_path / "lib" / "g"
    write_game(folder, NewGame("g", "G"))
    return folder


def with_front(folder, cell: str) -> None:
    text = (folder / "game.hxr").read_text()
    text = text.replace("    id    class      full    reduced  arrives  name\n    B1A",
                        "    id    class      full    reduced  arrives  front  name\n    B1A", 1)
    lines = text.split("\n")
    i = next(i for i, ln in enumerate(lines) if ln.strip().startswith("B1A "))
    parts = lines[i].split("  ")
    # B1A's row: insert the front cell before the name; the other rows of the table get "-"
    lines[i] = lines[i].replace(' "Blue 1st Armoured"', f' {cell}  "Blue 1st Armoured"')
    j = i + 1
    while lines[j].strip().startswith("B"):
        lines[j] = lines[j].replace(' "Blue', ' -  "Blue', 1)
        j += 1
    del parts
    (folder / "game.hxr").write_text("\n".join(lines))


def test_counter_art_compiles_when_it_is_an_image_in_the_game_folder(game):
    png(game / "art" / "b1a.png", "#ff0000")
    with_front(game, "art/b1a.png")
    g = compile_game(game)
    assert g.counters["B1A"].front == "art/b1a.png" and g.counters["B1I"].front == ""


@pytest.mark.parametrize("cell,message", [
    ("art/none.png", "no such file in the game folder"),
    ("../outside.png", "leaves the game folder"),
    ("art/notes.txt", "is not an image"),
    ("/etc/passwd.png", "not an absolute path"),
    ("art/fifo.png", "is not a regular file"),
])
def test_bad_art_is_a_located_error(game, cell, message):
    (game / "art").mkdir()
    png(game.parent / "outside.png", "#00ff00")
    (game / "art" / "notes.txt").write_text("x")
    os.mkfifo(game / "art" / "fifo.png")
    with_front(game, cell)
    with pytest.raises(DslError) as e:
        compile_game(game)
    d = [x for x in e.value.diagnostics if x.code == "art"]
    assert len(d) == 1 and message in d[0].message and d[0].span.file == "g/game.hxr"


def test_map_background_is_checked_and_kept_by_the_editor(game, tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "rec"))
    doc = GameDocument.open(game)
    src = png(tmp_path / "scan.png", "#0000ff", 64)
    rel = doc.import_art(src)  # what Map > Background image… does, then one map change
    assert rel == "art/scan.png" and (game / "art" / "scan.png").is_file()  # copied into the game folder
    doc.map.apply([(("meta", "background"), rel)])
    doc.save()
    assert 'background "art/scan.png"' in (game / "map.hxm").read_text()
    assert compile_game(game).map.background == "art/scan.png"
    # drawn under translucent terrain: the map's clear hexes turn bluish
    img = render_image(doc, "standard", hex_px=10, show_ids=False)
    c = img.pixelColor(img.width() // 2, img.height() // 3)
    assert c.blue() > c.red(), c.name()
    doc.close()


def test_counter_art_is_imported_and_drawn(game, tmp_path, monkeypatch):
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "rec"))
    doc = GameDocument.open(game)
    rel = doc.import_art(png(tmp_path / "face.png", "#ff0000"))  # what Front art… does, then one counter edit
    doc.apply_edits(doc.counter_edits("B1A", {"front": rel}))
    doc.refresh()
    assert doc.snapshot.counters["B1A"].front == "art/face.png" and doc.diagnostics == []
    doc.save()
    assert compile_game(game).counters["B1A"].front == "art/face.png"
    from editor.paint import look_for
    look = look_for(doc.snapshot, "B1A", art=doc.art_path)
    assert look.image.endswith("face.png")
    img = QImage(64, 64, QImage.Format_ARGB32)
    img.fill(QColor("#ffffff"))
    p = QPainter(img)
    draw_counter(p, QRectF(0, 0, 64, 64), look, printed=True)
    p.end()
    assert img.pixelColor(32, 32).name() == "#ff0000"
    assert CounterLook("X", "1-1").image == ""  # the generated face stays for a counter without art
    doc.close()
