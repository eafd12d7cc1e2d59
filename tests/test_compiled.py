"""The engine's hottest modules compiled by mypyc (runtime/compiled.py,
runtime/compile.py): the build is in use where it is fresh, the same games
come out of it as out of the plain Python modules, and a build that no
longer matches the sources is never loaded."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from runtime import compiled as C
from runtime import action_lists, actions, decisions, engine, expr, movement, state, supply, zoc
from runtime.combat import firepower

from helpers import ROOT

# one random game each, the log hashed (played in this process, then in a plain Python one)
_GAMES = """
import hashlib, json, sys
sys.path.insert(0, {root!r})
from dsl.compiler import compile_game
from runtime.bots import make_bot, play
from runtime.runner import Runner
out = {{}}
for folder, scenario, seed in [("smolensk", "short", 1), ("barbarossa-postcard", None, 2),
                               ("a-victory-denied", None, 3), ("prokhorovka", None, 4)]:
    game = compile_game({root!r} + "/games/" + folder)
    runner = Runner(game, scenario)
    agents = {{side: make_bot("random", seed + i) for i, side in enumerate(game.sides)}}
    end, n = play(runner, runner.new_game(seed), agents)
    out[folder] = [n, hashlib.sha256(json.dumps(end.log, sort_keys=True, default=str).encode()).hexdigest()]
print(json.dumps(out))
"""


def _can_build() -> bool:
    return importlib.util.find_spec("mypyc") is not None and (shutil.which("cc") or shutil.which("gcc")) is not None


def _games(pure: bool) -> dict:
    env = dict(os.environ)
    env.pop("HEXFORGE_PURE", None)
    if pure:
        env["HEXFORGE_PURE"] = "1"
    run = subprocess.run([sys.executable, "-c", _GAMES.format(root=str(ROOT))], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(run.stdout)


def test_the_compiled_modules_are_in_use_where_they_can_be_built():
    if not _can_build():
        pytest.skip("no mypyc or no C compiler: the engine runs as plain Python")
    ok, why = C.status()
    assert ok, f"{why} (make builds them; or python -m runtime.compile)"
    assert all(C.compiled(m) for m in (action_lists, actions, decisions, engine, expr, firepower, movement, state,
                                       supply, zoc))
    assert str(movement.__file__).startswith(str(C.OUT))


def test_the_lazy_action_lists_are_sequences_and_nothing_else_is_one_of_them():
    """A compiled class derived from an abstract class shares its registry: the lists are
    registered as a ``Sequence`` instead, so a plain list is no ``Placements``."""
    from collections.abc import Sequence

    p = action_lists.Placements(["7Pz", "4Pz"], ["0101", "0102"], [actions.Done()])
    assert isinstance(p, Sequence) and not isinstance(p, list)
    assert not isinstance([], action_lists.Placements) and not isinstance((), action_lists.ActionList)
    assert not isinstance(list(p), action_lists.Moves)
    every = list(p)
    assert len(p) == 5 and p == every and list(reversed(p)) == every[::-1] and p[-1] == actions.Done()
    assert p.index(decisions.Place("4Pz", "0101")) == 2 and p.count(decisions.Place("7Pz", "0102")) == 1
    with pytest.raises(ValueError):
        p.index(decisions.Place("1Pz", "0101"))


def test_compiled_and_plain_modules_play_the_same_games():
    if not C.status()[0]:
        pytest.skip("not built: only the plain modules run here")
    compiled, plain = _games(pure=False), _games(pure=True)
    assert compiled == plain
    assert all(n > 50 for n, _ in compiled.values())


def test_a_plain_process_loads_no_compiled_module():
    run = subprocess.run([sys.executable, "-c", "import runtime.movement as m; print(m.__file__)"],
                         env=dict(os.environ, HEXFORGE_PURE="1"), cwd=ROOT, capture_output=True, text=True, check=True)
    assert run.stdout.strip().endswith("runtime/movement.py")


def test_a_build_whose_sources_changed_is_not_loaded(monkeypatch):
    if not C.status()[0]:
        pytest.skip("not built")
    real = C._sources()
    changed = dict(real, **{"runtime/movement.py": hashlib.sha256(b"edited since").hexdigest()})
    monkeypatch.setattr(C, "_sources", lambda: changed)
    ok, why = C.status()
    assert not ok and "changed since the build" in why
    added = dict(real, **{"runtime/new_module.py": "0" * 64})
    monkeypatch.setattr(C, "_sources", lambda: added)
    assert not C.status()[0]


def test_a_manifest_that_is_missing_unreadable_or_points_out_of_the_build_is_not_loaded(tmp_path, monkeypatch):
    monkeypatch.delenv("HEXFORGE_PURE", raising=False)
    monkeypatch.setattr(C, "OUT", tmp_path)
    ok, why = C.status()
    assert not ok and "not built" in why
    (tmp_path / C.MANIFEST).write_text("{not json")
    ok, why = C.status()
    assert not ok and "unreadable manifest" in why
    outside = tmp_path.parent / "elsewhere.so"
    outside.write_bytes(b"")
    (tmp_path / C.MANIFEST).write_text(json.dumps({"python": C._python(), "sources": C._sources(),
                                                  "files": {"runtime.movement": "../elsewhere.so"}}))
    ok, why = C.status()
    assert not ok and "missing" in why
    (tmp_path / "json.so").write_bytes(b"")
    (tmp_path / C.MANIFEST).write_text(json.dumps({"python": C._python(), "sources": C._sources(),
                                                  "files": {"json": "json.so"}}))
    ok, why = C.status()
    assert not ok and "names modules the build does not make" in why
    (tmp_path / C.MANIFEST).write_text(json.dumps({"python": "cpython-10 .so", "sources": C._sources(), "files": {}}))
    ok, why = C.status()
    assert not ok and "another Python" in why


def test_hexforge_pure_turns_the_build_off(monkeypatch):
    monkeypatch.setenv("HEXFORGE_PURE", "1")
    ok, why = C.status()
    assert not ok and "HEXFORGE_PURE" in why


def test_the_build_command_reports_its_state():
    run = subprocess.run([sys.executable, "-m", "runtime.compile", "--status"], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert run.stdout.strip() == C.status()[1]


def test_without_mypyc_the_build_says_so_and_leaves_plain_python(monkeypatch, capsys):
    from runtime import compile as build

    real = importlib.util.find_spec
    monkeypatch.setattr(build.importlib.util, "find_spec", lambda name, *a: None if name == "mypyc" else real(name, *a))
    assert build.build() == (None, "mypyc not installed: plain Python")
    assert build.main([]) == 0  # (nothing to build with: not an error)
    assert "not compiled: mypyc not installed" in capsys.readouterr().err
