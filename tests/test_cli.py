"""The `hexforge` command as a user meets it: every output path checked
before the work starts, "wrote" only for a file written, one error format,
--version, help with defaults, `info`, and the rule that decided a game."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dsl import cli as dsl_cli
from dsl.outputs import cannot_write

ROOT = Path(__file__).resolve().parent.parent
SMOLENSK, POSTCARD = "games/smolensk", "games/barbarossa-postcard"


def hexforge(*args):
    e = dict(os.environ)
    e.pop("DISPLAY", None)
    e.pop("QT_QPA_PLATFORM", None)
    return subprocess.run([sys.executable, "-c", "import sys; from editor.cli import main; sys.exit(main())", *args],
                          cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)


def headless(capsys, *args) -> tuple[int, str, str]:
    """Run a headless command in this process (fast): exit code, stdout, stderr."""
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        rc = dsl_cli.main(list(args))
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("args", [
    ("render", POSTCARD, "--out", "{missing}/map.png"),
    ("render", POSTCARD, "--out", "{missing}/map.svg"),
    ("render", POSTCARD, "--out", "{missing}/map.pdf"),
    ("edit", POSTCARD, "--screenshot", "{missing}/shot.png"),
    ("play", SMOLENSK, "--log", "{missing}/game.jsonl"),
])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(tmp_path, args):
    missing = tmp_path / "no-such-folder"
    args = [a.format(missing=missing) for a in args]
    r = hexforge(*args)
    out = args[-1]
    assert r.returncode == 1
    assert r.stderr.splitlines() == [f"hexforge: error: cannot write {out}: no such folder {missing}"]
    assert "wrote" not in r.stdout and not missing.exists()
    assert "QPainter" not in r.stderr and "propagateSizeHints" not in r.stderr


def test_cannot_write_says_why_and_changes_nothing(tmp_path):
    assert cannot_write(tmp_path / "new.png") == "" and not (tmp_path / "new.png").exists()
    assert cannot_write(tmp_path) == "it is a folder"
    (tmp_path / "file").write_text("x")
    assert cannot_write(tmp_path / "file" / "x.png") == f"{tmp_path / 'file'} is not a folder"
    assert (tmp_path / "file").read_text() == "x"
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        assert cannot_write(ro / "x.png") == "permission denied"
        ro.chmod(0o700)


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_render_that_fails_while_writing_does_not_say_wrote(qapp, tmp_path, monkeypatch, capsys, ext):
    """The folder is fine, the writer fails anyway (disk full): no "wrote"."""
    from PySide6.QtGui import QImage, QPainter

    from editor import cli as editor_cli
    if ext == "png":
        monkeypatch.setattr(QImage, "save", lambda self, *a, **k: False)
    else:
        real_end = QPainter.end
        monkeypatch.setattr(QPainter, "end", lambda self: real_end(self) and False)
    out = tmp_path / f"map.{ext}"
    monkeypatch.chdir(ROOT)
    assert editor_cli.main(["render", POSTCARD, "--out", str(out)]) == 1
    o, e = capsys.readouterr()
    assert "wrote" not in o and e.startswith(f"hexforge: error: cannot write {out}: ")


def test_edit_screenshot_that_is_not_saved_does_not_say_wrote(qapp, tmp_path, monkeypatch, capsys):
    from PySide6.QtGui import QPixmap

    from editor import app
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "rec"))
    monkeypatch.setattr(QPixmap, "save", lambda self, *a, **k: False)
    out = tmp_path / "shot.png"
    assert app.main([str(ROOT / POSTCARD), "--screenshot", str(out), "--size", "1280x800"]) == 1
    o, e = capsys.readouterr()
    assert "wrote" not in o and f"hexforge: error: cannot write {out}" in e


def test_one_error_format(capsys):
    rc, out, err = headless(capsys, "play", SMOLENSK, "--variant", "nosuch")
    assert rc == 1 and err.splitlines()[0] == f"hexforge: {SMOLENSK}: error: no variant named 'nosuch'"
    assert "<game>" not in err
    for args in (("play", "games/nope"), ("odds", "games/nope", "--attack", "1", "--defense", "1"),
                 ("battle", "games/nope", "--hex", "0101", "--attack", "A", "--defend", "B"),
                 ("info", "games/nope"), ("check", "games/nope")):
        rc, out, err = headless(capsys, *args)
        assert rc == 1 and err == "hexforge: games/nope: error: no such game folder or file\n", args
    rc, out, err = headless(capsys, "play", SMOLENSK, "--scenario", "shortt")
    assert err == f"hexforge: {SMOLENSK}: error: no scenario 'shortt'\n  hint: did you mean 'short'?\n"
    rc, out, err = headless(capsys, "odds", SMOLENSK, "--attack", "x", "--defense", "1")
    assert err.startswith(f"hexforge: {SMOLENSK}: error: --attack must be a number")
    rc, out, err = headless(capsys, "odds", SMOLENSK, "--attack", "12", "--defense", "4", "--turn", "999")
    assert (rc, err) == (1, f"hexforge: {SMOLENSK}: error: --turn 999 is not on the turn track (1-9)\n")  # (KeyError)
    rc, out, err = headless(capsys, "play", SMOLENSK, "--agents", "greedy,random,random")
    assert rc == 1 and err.startswith(f"hexforge: {SMOLENSK}: error: --agents takes one bot per side")
    r = hexforge("render", SMOLENSK, "--out", "x.gif")
    assert r.returncode == 1 and r.stderr.startswith(f"hexforge: {SMOLENSK}: error: --out must end in")


def test_an_empty_map_file_is_named_where_it_is_reported(tmp_path, capsys):
    """A map file with nothing in it lacks a grid: the error names it, line
    1 (it read '<game>: error: the map has no grid')."""
    import shutil
    folder = tmp_path / "barbarossa-postcard"
    shutil.copytree(ROOT / POSTCARD, folder)
    (folder / "map.hxm").write_text("", encoding="utf-8")
    r = hexforge("render", str(folder), "--out", str(tmp_path / "m.png"))
    assert r.returncode == 1 and "<game>" not in r.stderr
    assert r.stderr.splitlines()[0] == "barbarossa-postcard/map.hxm:1:1: error: the map has no grid", r.stderr
    assert r.stderr.splitlines()[-1] == f"hexforge: {folder}: error: the game has no map that loads"
    from dsl.diagnostics import Diagnostic
    assert Diagnostic("variant", "no variant named 'nope'", None).format() == "error: no variant named 'nope'"


def test_edit_says_what_a_file_that_is_not_a_game_is(tmp_path):
    out = tmp_path / "shot.png"
    r = hexforge("edit", "README.md", "--screenshot", str(out))
    assert r.returncode == 1 and not out.exists()
    assert r.stderr.splitlines()[-1] == \
        "hexforge: README.md: error: README.md is not a rules file (.hxr): give a game folder, or its game.hxr"
    lone = tmp_path / "units.hxr"  # (a rules file with no game.hxr beside it; it read 'in this folder')
    lone.write_text("# nothing\n", encoding="utf-8")
    r = hexforge("edit", str(lone), "--screenshot", str(out))
    assert r.returncode == 1 and r.stderr.splitlines()[-1] == f"hexforge: {lone}: error: no game.hxr beside it"


def test_a_screenshot_larger_than_8192_pixels_a_side_is_refused(tmp_path):
    out = tmp_path / "shot.png"  # (99999x99999 crashed Qt with a segmentation fault)
    r = hexforge("edit", POSTCARD, "--screenshot", str(out), "--size", "99999x99999")
    assert r.returncode == 1 and not out.exists()
    assert r.stderr.splitlines()[-1] == f"hexforge: {POSTCARD}: error: --size is at most 8192x8192 pixels, not 99999x99999"


@pytest.mark.parametrize("size,says", [  # (nan and 1e308 were tracebacks; 0 wrote an empty picture;
    ("nan", "--hex-size must be from 4 to 400 pixels, not nan"),  # 100000 blamed the file)
    ("1e308", "--hex-size must be from 4 to 400 pixels, not 1e+308"),
    ("0", "--hex-size must be from 4 to 400 pixels, not 0"),
    ("400", "at --hex-size 400 the map is 34,160 pixels across, more than a PNG's 16,384\n"
            "  hint: --hex-size 191 or less, or an SVG or PDF"),
])
def test_render_refuses_a_hex_size_it_cannot_draw(tmp_path, size, says):
    out = tmp_path / "map.png"
    r = hexforge("render", SMOLENSK, "--out", str(out), "--hex-size", size)
    assert r.returncode == 1 and r.stderr == f"hexforge: {SMOLENSK}: error: {says}\n" and not out.exists()


def test_version_and_help_with_defaults(capsys):
    from dsl.cli import version
    from editor import cli as editor_cli
    with pytest.raises(SystemExit) as e:
        editor_cli.main(["--version"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith("hexforge ")
    from runtime.compiled import status  # and whether the engine runs compiled
    assert out.splitlines() == [f"hexforge {version()}", f"engine: {status()[1]}"]
    with pytest.raises(SystemExit):
        editor_cli.main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for default in ("(default: random,random)", "(default: 0)", "(default: the game's first)"):
        assert default in text


def test_one_agent_plays_every_side_with_a_note(capsys):
    rc, out, err = headless(capsys, "play", POSTCARD, "--agents", "random", "--seed", "3", "--json")
    assert rc == 0 and err == "note: --agents random: random plays every side (axis, soviet)\n"
    assert json.loads(out)["agents"] == {"axis": "random", "soviet": "random"}


def test_play_prints_each_turns_standing_where_the_vp_wait_for_the_end(capsys):
    """Barbarossa counts its cities at the end: after each turn, beside the VP given so far, the VP
    each side would have if the game ended then (runtime.victory ``standing``)."""
    from dsl.compiler import compile_game
    from runtime.bots import make_bot
    from runtime.runner import Runner
    rc, out, err = headless(capsys, "play", POSTCARD, "--agents", "greedy,greedy", "--seed", "1")
    assert rc == 0, err
    lines = out.splitlines()
    r = Runner(compile_game(ROOT / POSTCARD))
    s, turn, expected = r.new_game(1), 1, []
    agents = {side: make_bot("greedy", 1000 + i + 1) for i, side in enumerate(r.game.sides)}
    while s.result is None:
        s = r.apply(s, agents[r.to_move(s)].choose(r, s))
        if s.turn != turn and s.result is None:
            vp = r.standing(s)[0]
            expected.append(f"turn {turn} done: VP axis 0, soviet 0 (if the game ended now: "
                            f"axis {vp.get('axis', 0)}, soviet {vp.get('soviet', 0)})")
            turn = s.turn
    assert lines[:len(expected)] == expected and len(expected) == 3
    assert lines[3].startswith("turn 4 done: VP axis ") and "if the game ended now" not in lines[3]


def test_play_keeps_a_count_that_reads_hidden_values_to_the_end(capsys):
    """A Victory Denied counts face-down VP chits: no standing is printed before the game ends."""
    rc, out, err = headless(capsys, "play", "games/a-victory-denied", "--agents", "greedy,greedy", "--seed", "1")
    assert rc == 0, err
    assert out.startswith("turn 1 done: VP german 0, soviet 0\n") and "if the game ended now" not in out


def test_play_refuses_a_number_no_rule_reads_and_says_which_variant_does(capsys):
    rc, out, err = headless(capsys, "play", SMOLENSK, "--scenario", "short", "--param", "bid=5")
    assert rc == 1 and out == ""
    assert err == (f"hexforge: {SMOLENSK}: error: --param bid: no rule in play reads the number 'bid' (they read none)\n"
                   "  hint: variant vp-bidding reads it: add --variant vp-bidding\n")
    rc, out, err = headless(capsys, "play", SMOLENSK, "--scenario", "short", "--variant", "vp-bidding",
                            "--param", "bod=5")
    assert rc == 1 and "--param bod: no rule in play reads the number 'bod' (they read 'bid')" in err
    assert "hint: did you mean 'bid'?" in err


def test_info(capsys):
    rc, out, err = headless(capsys, "info", SMOLENSK)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "Gekitou! Smolensk Blitzkrieg (smolensk), series gekitou"
    assert lines[1] == "sides: axis (Axis), soviet (Soviet)"
    assert "  short  turns 1-6    Short game: 22 June - 10 August 1941" in lines
    assert any(x.split() == ["reserve-okh", "16.2", "RESERVE", "/", "OKH", "chits"] for x in lines)
    assert "  bid  asked by variant vp-bidding" in lines
    assert lines[-1].startswith("counts: 2 sides, 9 unit classes, 226 counters")
    rc, out, err = headless(capsys, "info", POSTCARD, "--json")
    info = json.loads(out)
    assert [s["id"] for s in info["sides"]] == ["axis", "soviet"]
    assert info["scenarios"][0]["turns"] == [1, 4] and info["parameters"] == []
    assert {v["id"] for v in info["variants"]} >= {"hold-order", "oil"}
    assert info["counts"]["variants"] == len(info["variants"])


def test_the_end_says_which_rule_decided_it(capsys, tmp_path):
    log = tmp_path / "game.jsonl"
    rc, out, err = headless(capsys, "play", POSTCARD, "--seed", "3", "--log", str(log))
    assert rc == 0 and err == f"wrote {log}\n"
    assert out.splitlines()[-1] == "winner axis: the Axis has 6 VP or more (4.0); vp(axis) = 6"
    assert out.splitlines()[-2].startswith("game over after turn 4 (the last turn is over): winner axis, ")
    last = json.loads(log.read_text().splitlines()[-1])
    assert last["event"] == "game over" and last["why"].startswith("winner axis: the Axis has 6 VP or more (4.0)")
    rc, out, err = headless(capsys, "play", POSTCARD, "--seed", "3", "--json")
    result = json.loads(out)
    assert result["why"] == "winner axis: the Axis has 6 VP or more (4.0); vp(axis) = 6"
    assert result["ended"] == "the last turn is over"


def test_start_hints_name_commands_that_work_as_printed(tmp_path):
    e = dict(os.environ)
    e.pop("DISPLAY", None)
    e.pop("WAYLAND_DISPLAY", None)
    exe = ROOT / ".venv" / "bin" / "hexforge"
    if not exe.exists():
        pytest.skip("no .venv/bin/hexforge (run make test)")
    r = subprocess.run([str(exe), "start", SMOLENSK], cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    hints = [line.split("  ")[1] for line in r.stdout.splitlines() if line.startswith("  .venv/bin/hexforge ")]
    assert hints and all(h.startswith(".venv/bin/hexforge ") for h in hints)
    info = hints[1].split()
    assert info[1] == "info"
    r = subprocess.run([str(ROOT / info[0]), *info[1:]], cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "sides: axis (Axis), soviet (Soviet)" in r.stdout
    # a folder named with a space: the hints quote it, so that pasted into a shell they still work
    spaced = tmp_path / "my games" / "smolensk"
    shutil.copytree(ROOT / SMOLENSK, spaced)
    shutil.copytree(ROOT / "games" / "gekitou", spaced.parent / "gekitou")  # (its series folder)
    r = subprocess.run([str(exe), "start", str(spaced)], cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    info = next(line.split("  ")[1] for line in r.stdout.splitlines() if " info " in line)
    r = subprocess.run(["bash", "-c", info], cwd=ROOT, env=e, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "sides: axis (Axis), soviet (Soviet)" in r.stdout, info + r.stderr


def test_check_on_a_series_folder_names_the_games_that_import_it(capsys):
    rc, out, err = headless(capsys, "check", "games/gekitou")
    assert rc != 0
    assert "games/gekitou: error: no game.hxr in gekitou" in err
    assert "gekitou is a series folder" in err and "smolensk imports it: check that game" in err
