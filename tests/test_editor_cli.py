"""`hexforge edit --screenshot` and `hexforge render`, run as a user would."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def hexforge(*args, env=None):
    e = dict(os.environ, **(env or {}))
    e.pop("DISPLAY", None)
    e.pop("QT_QPA_PLATFORM", None)  # the commands set it themselves without a display
    return subprocess.run([sys.executable, "-c", "import sys; from editor.cli import main; sys.exit(main())", *args],
                          cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)


def test_edit_screenshot(tmp_path):
    out = tmp_path / "edit.png"
    r = hexforge("edit", "games/smolensk", "--screenshot", str(out), "--size", "1280x800",
                 env={"HEXFORGE_RECOVERY_DIR": str(tmp_path / "rec")})
    assert r.returncode == 0, r.stderr
    from PySide6.QtGui import QImage
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1280, 800)


def test_edit_screenshot_of_a_new_game(tmp_path):
    out = tmp_path / "new.png"
    r = hexforge("edit", "--screenshot", str(out), "--tab", "counters",
                 env={"HEXFORGE_RECOVERY_DIR": str(tmp_path / "rec")})
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 10000


def test_edit_without_display_explains(tmp_path):
    r = hexforge("edit", "games/smolensk")
    assert r.returncode == 1 and "--screenshot" in r.stderr


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_render(tmp_path, ext):
    out = tmp_path / f"map.{ext}"
    r = hexforge("render", "games/barbarossa-postcard", "--out", str(out))
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[ext]
    assert data.startswith(magic) and len(data) > 5000


def test_render_errors(tmp_path):
    r = hexforge("render", "games/smolensk", "--scenario", "shortt", "--out", str(tmp_path / "x.png"))
    assert r.returncode == 1 and "did you mean 'short'" in r.stderr
    r = hexforge("render", "games/smolensk", "--out", str(tmp_path / "x.gif"))
    assert r.returncode == 1 and ".png, .svg or .pdf" in r.stderr
    r = hexforge("render", "games/nope", "--out", str(tmp_path / "x.png"))
    assert r.returncode == 1


def test_render_png_with_counters(tmp_path):
    lib = tmp_path / "games"
    shutil.copytree(ROOT / "games", lib)
    out = tmp_path / "smolensk.png"
    r = hexforge("render", str(lib / "smolensk"), "--scenario", "short", "--out", str(out), "--hex-size", "20")
    assert r.returncode == 0, r.stderr
    from PySide6.QtGui import QImage
    img = QImage(str(out))
    assert img.width() > 1000
