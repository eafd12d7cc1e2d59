"""The editor's files on disk: saving several files is all or nothing, a
symbolic link is written through, a corrupt recovery file is set aside and
the game opens, and files changed by another program are noticed."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from editor import files
from editor.document import GameDocument

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def lib(tmp_path, monkeypatch):
    dst = tmp_path / "games"
    shutil.copytree(ROOT / "games", dst)
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    return dst


def contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def two_edits(doc: GameDocument) -> list[str]:
    shown = ["gekitou/system.hxr", "smolensk/game.hxr"]
    for s in shown:
        doc.set_text(s, doc.text(s) + "\n# edited\n")
    assert sorted(doc.dirty_files()) == shown
    return shown


@pytest.mark.parametrize("stage", ["write", "rename"])
def test_saving_several_files_is_all_or_nothing(lib, monkeypatch, stage):
    """Disk full while writing the second file, or its rename failing: every
    file stays as it was, no temporary is left, and a later save works."""
    doc = GameDocument.open(lib / "smolensk")
    two_edits(doc)
    before = contents(lib)
    calls = []
    if stage == "write":
        real = os.fsync

        def fsync(fd):
            calls.append(fd)
            if len(calls) == 2:
                raise OSError(28, "No space left on device")
            return real(fd)
        monkeypatch.setattr(files.os, "fsync", fsync)
    else:
        real = os.replace

        def replace(a, b):
            if str(a).endswith(".tmp"):
                calls.append(a)
                if len(calls) == 2:
                    raise OSError(13, "Permission denied")
            return real(a, b)
        monkeypatch.setattr(files.os, "replace", replace)
    with pytest.raises(OSError):
        doc.save()
    assert contents(lib) == before
    assert sorted(doc.dirty_files()) == ["gekitou/system.hxr", "smolensk/game.hxr"]  # still unsaved
    monkeypatch.undo()
    os.environ["HEXFORGE_RECOVERY_DIR"] = str(lib.parent / "recovery")
    assert sorted(doc.save()) == ["gekitou/system.hxr", "smolensk/game.hxr"]
    assert (lib / "smolensk" / "game.hxr").read_text().endswith("# edited\n")
    assert not [p for p in lib.rglob("*") if p.name.endswith((".tmp", ".old"))]
    doc.close()


def test_a_symlinked_game_file_is_written_through(lib, tmp_path):
    real = tmp_path / "elsewhere" / "game.hxr"
    real.parent.mkdir()
    link = lib / "smolensk" / "game.hxr"
    shutil.move(link, real)
    link.symlink_to(real)
    doc = GameDocument.open(lib / "smolensk")
    doc.set_text("smolensk/game.hxr", doc.text("smolensk/game.hxr") + "\n# edited\n")
    doc.save()
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().endswith("# edited\n")
    doc.close()


CORRUPT = {"not json": "{nope", "a list": "[1, 2]", "files not texts": None, "bad time": None, "binary": b"\xff\xfe"}


@pytest.mark.parametrize("kind", CORRUPT)
def test_a_corrupt_recovery_file_is_set_aside_and_the_game_opens(qtbot, lib, monkeypatch, kind):
    from PySide6.QtWidgets import QMessageBox

    from editor.app import open_window
    doc = GameDocument.open(lib / "barbarossa-postcard")
    p = doc.recovery_file()
    doc.close()
    p.parent.mkdir(parents=True, exist_ok=True)
    good = {"game": str((lib / "barbarossa-postcard").resolve()), "time": 1.0, "files": {}}
    data = CORRUPT[kind]
    if kind == "files not texts":
        data = json.dumps(dict(good, files={"barbarossa-postcard/game.hxr": 7}))
    elif kind == "bad time":
        data = json.dumps(dict(good, time="yesterday"))
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: warned.append(text))
    monkeypatch.setattr(QMessageBox, "question", lambda *a: pytest.fail("asked to recover a corrupt file"))
    w = open_window(lib / "barbarossa-postcard", autosave_ms=0)
    assert w is not None
    qtbot.addWidget(w)
    w.ask_on_close = False
    assert len(warned) == 1 and "could not be read" in warned[0] and "set aside as" in warned[0]
    assert not p.exists()
    kept = list(p.parent.glob(f"{p.stem}.corrupt-*{p.suffix}"))
    assert len(kept) == 1 and kept[0].read_bytes() == (data if isinstance(data, bytes) else data.encode())
    assert str(kept[0]) in warned[0] and "set aside" in w.statusBar().currentMessage()
    assert w.doc.map is not None and w.doc.dirty_files() == []
    w.close()


def open_quiet(qtbot, folder):
    from editor.app import open_window
    w = open_window(folder, ask_recovery=False, autosave_ms=0)
    qtbot.addWidget(w)
    w.ask_on_close = False
    return w


def test_a_file_changed_on_disk_and_not_edited_is_reloaded(qtbot, lib, monkeypatch):
    from PySide6.QtWidgets import QMessageBox
    monkeypatch.setattr(QMessageBox, "question", lambda *a: pytest.fail("asked about an unedited file"))
    w = open_quiet(qtbot, lib / "barbarossa-postcard")
    path = lib / "barbarossa-postcard" / "game.hxr"
    text = path.read_text().replace('"Barbarossa (postcard game)"', '"Barbarossa (edited elsewhere)"')
    tmp = path.with_name("game.hxr.new")
    tmp.write_text(text)
    tmp.replace(path)  # saved as most editors save: a new file renamed over the old
    qtbot.waitUntil(lambda: "edited elsewhere" in w.doc.text("barbarossa-postcard/game.hxr"), timeout=5000)
    qtbot.waitUntil(lambda: w.doc.title == "Barbarossa (edited elsewhere)", timeout=5000)
    assert w.doc.dirty_files() == [] and "reloaded from disk" in w.statusBar().currentMessage()
    # the map too, written in place this time
    mp = lib / "barbarossa-postcard" / "map.hxm"
    h = w.doc.map.grid.parse_id("0303")
    old = w.doc.map.hexes[h].terrain
    from editor.document import GameDocument
    other = GameDocument.open(lib / "barbarossa-postcard")
    from runtime.definition import MapHex
    new = "mountain" if old != "mountain" else "clear"
    other.map.apply([(("hex", h), MapHex(h, new))])
    mp.write_text(other.map.text())
    other.close()
    qtbot.waitUntil(lambda: w.doc.map.hexes[h].terrain == new, timeout=5000)
    assert w.doc.dirty_files() == []
    w.close()


@pytest.mark.parametrize("answer", ["yes", "no"])
def test_a_file_changed_on_disk_and_edited_asks(qtbot, lib, monkeypatch, answer):
    from PySide6.QtWidgets import QMessageBox
    asked = []
    reply = QMessageBox.Yes if answer == "yes" else QMessageBox.No
    monkeypatch.setattr(QMessageBox, "question", lambda parent, title, text, *a: asked.append(text) or reply)
    w = open_quiet(qtbot, lib / "barbarossa-postcard")
    shown = "barbarossa-postcard/game.hxr"
    w.doc.set_text(shown, w.doc.text(shown) + "\n# my edit\n")
    path = lib / shown
    path.write_text(path.read_text() + "\n# their edit\n")
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=5000)
    assert "unsaved edits" in asked[0] and shown in asked[0]
    if answer == "yes":
        qtbot.waitUntil(lambda: w.doc.text(shown).endswith("# their edit\n"), timeout=5000)
        assert w.doc.dirty_files() == []
    else:
        qtbot.wait(300)
        assert w.doc.text(shown).endswith("# my edit\n") and w.doc.dirty_files() == [shown]
        assert "your version is kept" in w.statusBar().currentMessage()
    w.close()


def test_saving_is_not_taken_for_a_change_on_disk(qtbot, lib, monkeypatch):
    from PySide6.QtWidgets import QMessageBox
    monkeypatch.setattr(QMessageBox, "question", lambda *a: pytest.fail("asked after our own save"))
    w = open_quiet(qtbot, lib / "barbarossa-postcard")
    shown = "barbarossa-postcard/game.hxr"
    w.doc.set_text(shown, w.doc.text(shown) + "\n# saved here\n")
    assert w.save()
    qtbot.wait(400)
    assert "reloaded" not in w.statusBar().currentMessage()
    assert w.doc.text(shown).endswith("# saved here\n") and w.doc.dirty_files() == []
    w.close()
