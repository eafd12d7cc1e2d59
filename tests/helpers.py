"""Small helpers for writing throwaway game folders in tests."""
from __future__ import annotations

import shutil
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
