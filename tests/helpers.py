"""Small helpers for writing throwaway game folders in tests."""
from __future__ import annotations

import shutil
from contextlib import contextmanager
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"

MINI_MAP = """\
map mini
grid { orientation flat; shifted even; columns 01-06; rows 01-05 }
default clear
hexes {
  table {
    hex   terrain  features  name     vp
    0302  forest   -         -        -
    0403  clear    city      "Town"   5
  }
}
hexsides {
  table {
    hexside    features
    0202/0302  river
  }
}
path road 0101 0201 0302
supply a edge:west
area start 0101-0105
"""

MINI_GAME = """\
game mini "Mini" { map "map.hxm" }
dice d6 d10
side a "A" { colour "#aa0000" }
side b "B" { colour "#0000aa" }
unit-class inf "Infantry" { symbol infantry; factors strength move }
unit-class tank "Tank" { symbol armour; factors attack defence move; flags mechanized }
terrain clear "Clear" { colour "#eeeecc" }
terrain forest "Forest" { colour "#88aa66" }
terrain sea "Sea" { colour "#6688cc" }
feature city "City" { colour "#cc2222" }
hexside river "River" { colour "#2244cc" }
link road "Road" { colour "#885522" }
terrain-effects {
  table {
    terrain  move:mechanized  move:other  left-shift  attack  advance
    clear    1                1           0           -       2
    forest   2                1           1           -       1
    sea      no               no          no          no      no
    city     1                1           2           -       1
    river    +1               +1          -           half    1
    road     1                1           -           -       -
  }
}
results std {
  table {
    code  attacker  defender  retreat
    A1    1         0         0
    R     0         0         1
    1R    0         1         1
  }
}
crt std "CRT" {
  results std
  table {
    die  1-1  1.5-1  2-1  3-1+
    1    A1   A1     -    R
    2    A1   -      R    R
    3    -    -      R    1R
    4    -    R      R    1R
    5    R    R      1R   1R
    6    R    1R     1R   1R
  }
}
counters a-units {
  side a
  table {
    id   class  full    reduced
    A1   inf    3-4     1-4
    A2   tank   5-3-8   2-2-8
  }
}
counters b-units {
  side b
  table {
    id   class  full
    B1   inf    2-4
  }
}
turn-track {
  table {
    turn  date      a.chits
    1     "June 1"  2
    2     "June 8"  2
  }
}
scenario basic "Basic" {
  turns 1 2
  setup {
    table {
      counter  at
      A1       0101
      A2       start
      B1       0403
    }
  }
}
sequence {
  phase movement "Movement" { procedure move; side a }
  phase end-of-turn "End of turn" { procedure advance-turn }
}
"""


def make_game(tmp: Path, game: str = MINI_GAME, map_text: str = MINI_MAP, name: str = "mini",
              extra: dict[str, str] | None = None) -> Path:
    folder = tmp / "lib" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.hxr").write_text(textwrap.dedent(game), encoding="utf-8")
    if map_text is not None:
        (folder / "map.hxm").write_text(textwrap.dedent(map_text), encoding="utf-8")
    for rel, text in (extra or {}).items():
        p = tmp / "lib" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def copy_games(tmp: Path) -> Path:
    dst = tmp / "games"
    shutil.copytree(GAMES, dst)
    return dst


def gekitou_game(tmp: Path, counters: list[str], setup: list[str], hexes: list[str] = (),
                 hexsides: list[str] = (), paths: list[str] = (), extra: str = "",
                 cols: int = 10, rows: int = 10):
    """A small game on the real Gekitou series system.  ``counters`` rows are
    ``id side-nationality class full reduced``; ``hexes`` rows are
    ``hex terrain features``; returns the compiled game."""
    from dsl.compiler import compile_game

    lib = tmp / "lib"
    (lib / "gekitou").mkdir(parents=True, exist_ok=True)
    shutil.copy(GAMES / "gekitou" / "system.hxr", lib / "gekitou" / "system.hxr")
    folder = lib / "g"
    folder.mkdir(exist_ok=True)
    map_lines = ["map g", "grid { orientation flat; shifted even; "
                 f"columns 01-{cols:02d}; rows 01-{rows:02d} }}", "default clear",
                 "hexes {", "  table {", "    hex terrain features name vp"]
    map_lines += [f"    {h} - -" if len(h.split()) == 2 else f"    {h} - -" for h in ()]
    for row in hexes:
        parts = row.split()
        parts += ["-"] * (5 - len(parts))
        map_lines.append("    " + " ".join(parts))
    map_lines += ["  }", "}", "hexsides {", "  table {", "    hexside features"]
    map_lines += ["    " + r for r in hexsides]
    map_lines += ["  }", "}"] + list(paths)
    map_lines += ["supply axis edge:west", "supply soviet edge:east"]
    (folder / "map.hxm").write_text("\n".join(map_lines) + "\n", encoding="utf-8")
    game = ['import "../gekitou/system.hxr"', 'game g "Test" { map "map.hxm" }',
            "counters units {", "  table {", "    id nationality class full reduced"]
    game += ["    " + c for c in counters]
    game += ["  }", "}", "turn-track { table {", "  turn date", "  1 -", "} }",
             'scenario s "S" {', "  turns 1 1", "  setup {", "    table {", "      counter at"]
    game += ["      " + r for r in setup]
    game += ["    }", "  }", "}", extra]
    (folder / "game.hxr").write_text("\n".join(game) + "\n", encoding="utf-8")
    return compile_game(folder)


def setup_state(game, scenario: str = "s", seed: int = 0):
    """A state with the scenario's hex placements applied (areas/pools ignored)."""
    from runtime.state import new_state

    s = new_state(game, seed)
    for p in game.scenarios[scenario].setup:
        if p.kind == "hex":
            s.place(p.counter, game.map.grid.parse_id(p.where_to))
    return s


@contextmanager
def prokhorovka_hotseat(qtbot):
    """The Prokhorovka playtest, both seats human, shown at 1600x1000 (a test
    sets HEXFORGE_RECOVERY_DIR first); the document closes after."""
    from editor.document import GameDocument
    from editor.play import open_playtest
    doc = GameDocument.open(GAMES / "prokhorovka")
    try:
        w = open_playtest(doc, "campaign", (), 1, {"german": "human", "soviet": "human"})
        w.interactive = False
        qtbot.addWidget(w)
        w.resize(1600, 1000)
        w.show()
        qtbot.waitExposed(w)
        yield w
    finally:
        doc.close()


def only_these_on_the_map(s, board, places: dict[str, str]) -> None:
    """A constructed position: every counter of ``s`` removed and nothing
    attached, then each of ``places`` (counter id -> hex id) set up again."""
    for uid in list(s.units):
        s.place(uid, None, "removed")
    s.attached = {}
    for uid, h in places.items():
        s.place(uid, board.parse(h))


def german_combat_at(w, s, hex_id: str) -> None:
    """The playtest ``w`` shown at ``s`` as the German combat phase, with the
    enemy hex ``hex_id`` clicked: the Combat panel shows the battle there."""
    s.phase, s.active, s.step, s.activated, s.pending = "combat", "german", {"decision": "combat"}, set(), []
    w.timeline._kept[w.timeline.end] = s
    w._click_combat(w.board.parse(hex_id))


def listed_set_up(runner, s) -> list:
    """The answers to a ``deploy`` decision that put each unit of the side
    setting up where the runner puts it without ``deploy``: in the set-up
    table's order, in the hex of its area with the fewest units, the first in
    map order (Smolensk's Axis before 4.0(2)2 was played: the positions the
    scripted tests were written for)."""
    from runtime.runner import Place
    scratch = s.copy()
    out = []
    side = s.step.get("side")
    for p in runner.scenario.setup:
        u = scratch.units[p.counter]
        if p.kind == "area" and u.side == side and u.box.startswith("deploy:"):
            runner._place_in_area(scratch, p)
            out.append(Place(p.counter, runner.board.hex_id(scratch.units[p.counter].hex)))
    return out


def set_up_as_listed(runner, s):
    """``s`` once every deploy decision is answered by ``listed_set_up``."""
    while s.step.get("decision") == "deploy":
        for a in listed_set_up(runner, s):
            s = runner.apply(s, a)
    return s


def playtest_set_up_as_listed(w) -> None:
    """The same in a playtest window: each answer acted as a player would."""
    while w.state.step.get("decision") == "deploy":
        for a in listed_set_up(w.runner, w.state):
            assert w.act(a)


def without_deploy(game):
    """``game`` with no scenario set up by its players (no ``deploy``): the
    runner places every unit of an area, as ``listed_set_up`` answers do,
    and the first decision is the first of the game's sequence."""
    from dataclasses import replace
    from types import MappingProxyType
    return replace(game, scenarios=MappingProxyType({k: replace(v, deploy=()) for k, v in game.scenarios.items()}))


def fixed_die(monkeypatch, value: int) -> None:
    """Every die the engine rolls shows ``value`` (logged as a roll; the generator is not drawn)."""
    from runtime import state
    monkeypatch.setattr(state, "LOADED_DICE", lambda s, die, purpose: value)
