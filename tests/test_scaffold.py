"""`hexforge new` and File > New: a new game checks clean and plays to the end."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dsl.scaffold import NewGame, ScaffoldError, game_files, parse_size, slug, write_game
from dsl.compiler import compile_game as compile_folder
from runtime.bots import GreedyBot, RandomBot, play

ROOT = Path(__file__).resolve().parent.parent


def hexforge(*args, cwd=ROOT):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    return subprocess.run([sys.executable, "-c", "import sys; from editor.cli import main; sys.exit(main())", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("size,sides", [((16, 12), ("blue", "red")), ((8, 6), ("axis", "allies")),
                                        ((31, 23), ("north", "south"))])
def test_a_new_game_checks_clean_and_bots_play_it_to_the_end(tmp_path, size, sides):
    folder = tmp_path / "lib" / "g"
    write_game(folder, NewGame("g", "G", size[0], size[1], sides))
    game = compile_folder(folder)
    assert set(game.sides) == set(sides)
    assert len(game.counters) == 12 and len(game.map.hexes) == size[0] * size[1]
    from runtime.runner import Runner
    r = Runner(game, "standard")
    for bots in ({s: RandomBot(1) for s in sides}, {s: GreedyBot(2) for s in sides}):
        final, n = play(r, r.new_game(3), bots)
        assert final.result is not None and final.result["winner"] in sides, final.result
        assert n > 20  # both sides really moved and fought


def test_greedy_beats_random_on_either_side(tmp_path):
    """The scaffold is a game worth changing: play matters in it."""
    folder = tmp_path / "lib" / "g"
    write_game(folder, NewGame("g", "G"))
    game = compile_folder(folder)
    from runtime.runner import Runner
    r = Runner(game, "standard")
    wins = 0
    for seed in (1, 2, 3):
        for smart in ("blue", "red"):
            bots = {s: (GreedyBot(seed) if s == smart else RandomBot(seed)) for s in ("blue", "red")}
            final, _ = play(r, r.new_game(seed), bots)
            wins += final.result["winner"] == smart
    assert wins >= 5


def test_same_request_same_files():
    assert game_files(NewGame("a", "A", 20, 14)) == game_files(NewGame("a", "A", 20, 14))


@pytest.mark.parametrize("spec,msg", [
    (NewGame("9lives"), "not a game id"),
    (NewGame("g", 'say "hi"'), "quotes"),
    (NewGame("g", cols=3, rows=3), "8x6 to 99x99"),
    (NewGame("g", sides=("a", "a")), "different ids"),
    (NewGame("g", sides=("a b", "c")), "not a side id"),
    # (a line of the files written would pass the parser's limit: 'wrote', then check failed)
    (NewGame("g", sides=("a", "r" * 5000)), "is 5,000 characters long: at most 40"),
    (NewGame("g", "T" * 100_000), "the title is 100,000 characters long: at most 200"),
    (NewGame("g" * 41), "the game id is 41 characters long"),
])
def test_bad_requests_say_why(spec, msg):
    with pytest.raises(ScaffoldError, match=msg):
        game_files(spec)


def test_size_and_slug():
    assert parse_size("20x14") == (20, 14) and parse_size(" 9 X 7 ") == (9, 7)
    with pytest.raises(ScaffoldError, match="COLSxROWS"):
        parse_size("big")
    assert slug("My Great Game!") == "my-great-game" and slug("1941") == "game-1941"
    assert slug("g" * 200) == "g" * 40 and slug("a" * 39 + "-b") == "a" * 39


def test_hexforge_new_then_check_and_play(tmp_path):
    folder = tmp_path / "river-war"
    r = hexforge("new", str(folder), "--title", "River War", "--size", "20x14", "--sides", "axis,allies")
    assert r.returncode == 0, r.stderr
    assert f"wrote {folder / 'game.hxr'}" in r.stdout and f"wrote {folder / 'map.hxm'}" in r.stdout
    assert 'game river-war "River War"' in (folder / "game.hxr").read_text()
    r = hexforge("check", str(folder))
    assert r.returncode == 0 and r.stdout.startswith("ok river-war: 2 sides"), r.stdout + r.stderr
    r = hexforge("play", str(folder), "--agents", "greedy,random", "--seed", "2", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["winner"] in ("axis", "allies")


def test_the_next_commands_hexforge_new_prints_paste_into_a_shell(tmp_path):
    import shlex
    import subprocess
    folder = tmp_path / "my game!"
    r = hexforge("new", str(folder))
    assert r.returncode == 0, r.stderr
    nxt = r.stdout.splitlines()[-1]
    assert nxt == (f"next: .venv/bin/hexforge check {shlex.quote(str(folder))}   then   "
                   f".venv/bin/hexforge play {shlex.quote(str(folder))} --agents greedy,random")
    check = nxt.split("next: ", 1)[1].split("   then   ")[0]
    run = subprocess.run(["bash", "-c", check.replace(".venv/bin/hexforge", f"{sys.executable} -m editor.cli")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.startswith("ok my-game: 2 sides"), run.stderr


@pytest.mark.parametrize("name", ["", "  ", " x"])
def test_hexforge_new_refuses_a_blank_folder_name(tmp_path, monkeypatch, capsys, name):
    """'' is the folder one is in ('. is not empty'); '  ' made a folder
    named with two spaces."""
    from dsl.cli import main
    monkeypatch.chdir(tmp_path)
    assert main(["new", name]) == 1
    assert "is no folder name: give the new game's folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_hexforge_new_refuses_a_folder_in_use(tmp_path):
    folder = tmp_path / "used"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    r = hexforge("new", str(folder))
    assert r.returncode == 1 and "not empty" in r.stderr and "Traceback" not in r.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]  # nothing written
    r = hexforge("new", str(tmp_path / "x"), "--size", "4x4")
    assert r.returncode == 1 and "8x6 to 99x99" in r.stderr
    assert not (tmp_path / "x").exists()


def test_file_new_dialog_makes_the_same_playable_game(qtbot, tmp_path, monkeypatch):
    pytest.importorskip("pytestqt")
    from PySide6.QtWidgets import QDialog, QMessageBox

    from editor import app as editor_app
    from editor.newgame import NewGameDialog

    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "rec"))
    dlg = NewGameDialog()
    qtbot.addWidget(dlg)
    qtbot.keyClicks(dlg.title, "Pripyat Marshes")
    assert dlg.game_id.text() == "pripyat-marshes"  # the id follows the title until it is edited
    dlg.cols.setValue(12)
    dlg.side_a.setText("axis")
    dlg.side_b.setText("axis")
    dlg._accept()
    assert dlg.result() != QDialog.Accepted and "different ids" in dlg.problem.text()
    dlg.side_b.setText("soviet")
    dlg._accept()
    assert dlg.result() == QDialog.Accepted
    w = editor_app.open_window(None, ask_recovery=False, autosave_ms=0, spec=dlg.spec())
    w.ask_on_close = False
    qtbot.addWidget(w)
    assert w.doc.diagnostics == [] and w.doc.game_id() == "pripyat-marshes"
    assert w.doc.map.grid.cols == 12 and set(w.doc.game.sides) == {"axis", "soviet"}
    # Save As into a folder of another name offers to rename the game to match
    folder = tmp_path / "lib" / "marsh-1941"
    monkeypatch.setattr(editor_app.QFileDialog, "getSaveFileName", lambda *a, **k: (str(folder), ""))
    monkeypatch.setattr(editor_app.QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    assert w.save_as()
    text = (folder / "game.hxr").read_text()
    assert 'game marsh-1941 "Pripyat Marshes"' in text
    assert (folder / "map.hxm").read_text().startswith('map marsh-1941 "Pripyat Marshes"')
    assert compile_folder(folder).info.id == "marsh-1941"
    w.stack.undo()  # the rename is one undo step
    assert w.doc.game_id() == "pripyat-marshes" and w.doc.map.name == "pripyat-marshes"
    w.doc.close()
