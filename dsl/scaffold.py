"""``hexforge new``: a small, complete, playable game to start from.

The scaffold is a real game, not a form to fill in: two sides, three unit
classes, a terrain effects chart, an odds CRT, an IGOUGO sequence of play,
victory by towns held, a map with forests, hills, a river crossed by a road
and a railway, set-up areas and a scenario.  ``hexforge check`` passes and a
bot game plays to the end, so a designer changes a working game instead of
debugging an empty one.  The editor's File > New writes the same files.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from runtime.hexes import Grid, Hex

ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
MIN_COLS, MIN_ROWS = 8, 6
MAX_COLS, MAX_ROWS = 99, 99


class ScaffoldError(ValueError):
    """A request ``hexforge new`` cannot honour; the message says why."""


MAX_ID = 40  # characters of a game or side id (the scaffold's lines stay short: a side id is in many)
MAX_TITLE = 200


@dataclass(frozen=True)
class NewGame:
    game_id: str = "new-game"
    title: str = "New game"
    cols: int = 16
    rows: int = 12
    sides: tuple[str, str] = ("blue", "red")

    def check(self) -> None:
        if not ID_RE.match(self.game_id):
            raise ScaffoldError(f"'{self.game_id}' is not a game id: use letters, digits, - and _, "
                                "starting with a letter")
        if len(self.game_id) > MAX_ID:
            raise ScaffoldError(f"the game id is {len(self.game_id):,} characters long: at most {MAX_ID}")
        if '"' in self.title or "\n" in self.title:
            raise ScaffoldError("the title may not contain quotes or line breaks")
        if len(self.title) > MAX_TITLE:
            raise ScaffoldError(f"the title is {len(self.title):,} characters long: at most {MAX_TITLE}")
        if not (MIN_COLS <= self.cols <= MAX_COLS and MIN_ROWS <= self.rows <= MAX_ROWS):
            raise ScaffoldError(f"a new map is {MIN_COLS}x{MIN_ROWS} to {MAX_COLS}x{MAX_ROWS} hexes, "
                                f"not {self.cols}x{self.rows}")
        a, b = self.sides
        for s in self.sides:
            if not ID_RE.match(s):
                raise ScaffoldError(f"'{s[:40]}' is not a side id: use letters, digits, - and _")
            if len(s) > MAX_ID:
                raise ScaffoldError(f"the side id '{s[:20]}...' is {len(s):,} characters long: at most {MAX_ID}")
        if a == b:
            raise ScaffoldError("the two sides need different ids")


def parse_size(text: str) -> tuple[int, int]:
    """``16x12`` → (16, 12)."""
    m = re.fullmatch(r"\s*(\d{1,3})\s*[xX×]\s*(\d{1,3})\s*", text)
    if not m:
        raise ScaffoldError(f"--size '{text}': write COLSxROWS, e.g. 16x12")
    return int(m.group(1)), int(m.group(2))


def slug(text: str) -> str:
    """A game id from a title or folder name: ``My Game!`` → ``my-game``
    (at most ``MAX_ID`` characters)."""
    s = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:MAX_ID].strip("-")
    if not s or not s[0].isalpha():
        s = "game-" + s if s else "new-game"
    return s


def _title(side: str) -> str:
    return side.replace("-", " ").replace("_", " ").title()


GAME = '''\
# {title}: a new game made by `hexforge new`.  It checks clean and plays from
# the start; change it rule by rule.  docs/dsl.md describes every statement.
game {id} "{title}" {{
  map "map.hxm"
}}

dice d6

side {a} "{A}" {{ colour "#5b7fb0"; text-colour "#ffffff"; supply-edge west }}
side {b} "{B}" {{ colour "#b0553f"; text-colour "#ffffff"; supply-edge east }}

unit-class armour "Armoured division" {{
  symbol armour; size division
  factors attack defence move
  flags mechanized
}}
unit-class infantry "Infantry division" {{
  symbol infantry; size division
  factors strength move
}}
unit-class artillery "Artillery brigade" {{
  symbol artillery; size brigade
  factors attack defence move
}}

terrain clear "Clear" {{ colour "#e9e4c4" }}
terrain forest "Forest" {{ colour "#9cc483"; pattern trees }}
terrain hills "Hills" {{ colour "#d8c49a"; pattern hills }}
terrain swamp "Swamp" {{ colour "#a9cfc4"; pattern marsh }}
feature town "Town" {{ colour "#5a5a5a" }}
hexside river "River" {{ colour "#3b7fc4" }}
link road "Road" {{ colour "#8b5a2b" }}
link rail "Railway" {{ colour "#202020" }}

# The terrain effects chart: MP to enter per class group, left column
# shifts for the defender, attack halving across a river, advance limits.
terrain-effects {{
  bridges road rail
  table {{
    terrain  move:mechanized  move:other  left-shift  attack  advance  zoc-to-zoc
    clear    1                1           0           -       2        -
    forest   2                1           1           -       1        -
    hills    2                2           1           -       1        -
    swamp    3                2           1           -       1        -
    town     -                -           +1          -       1        -
    river    +1               +1          -           half    1        no
    road     1                1           -           -       -        -
    rail     1                1           -           -       -        -
  }}
}}

stacking {{ units 2 }}

zoc {{
  enter stop                     # a unit entering an enemy zone of control stops
}}

# Units set up on "turn:N" wait in this box and enter in their side's
# reinforcement phase, in their side's set-up area.
pool available "Arriving reinforcements" {{ side both }}
reinforcements {{
  from available
  enter supplied
  not-in enemy-zoc
}}

results standard {{
  table {{
    code  attacker  defender  retreat  title
    AE    9         0         0        "attacker eliminated"
    A1    1         0         0        "attacker loses 1 step"
    EX    1         1         0        "exchange: each side loses 1 step"
    DR    0         0         1        "defender retreats 1"
    D1    0         1         0        "defender loses 1 step"
  }}
}}

crt standard "Combat Results Table" {{
  method odds
  results standard
  die d6
  table {{
    die  1-2  1-1  2-1  3-1  4-1  5-1+
    1    AE   A1   A1   EX   DR   D1
    2    A1   A1   EX   DR   DR   D1
    3    A1   EX   DR   DR   D1   D1
    4    A1   DR   DR   D1   D1   D1
    5    EX   DR   D1   D1   D1   D1
    6    DR   D1   D1   D1   D1   D1
  }}
}}

sequence {{
  player-turn {a} "{A} player turn" {{
    phase {a}-reinforce "Reinforcements" {{ procedure reinforce; at {a}-start }}
    phase {a}-move "Movement" {{ procedure move }}
    phase {a}-combat "Combat" {{ procedure combat }}
  }}
  player-turn {b} "{B} player turn" {{
    phase {b}-reinforce "Reinforcements" {{ procedure reinforce; at {b}-start }}
    phase {b}-move "Movement" {{ procedure move }}
    phase {b}-combat "Combat" {{ procedure combat }}
  }}
  phase end-of-turn "End of turn" {{ procedure advance-turn }}
}}

counters {a}-units {{
  side {a}
  table {{
    id    class      full    reduced  arrives  name
{a_rows}
  }}
}}

counters {b}-units {{
  side {b}
  table {{
    id    class      full    reduced  arrives  name
{b_rows}
  }}
}}

turn-track {{
  table {{
    turn  date
{turns}
  }}
}}

victory towns "Victory" {{
  award {a} 2 at end "{A} holds the crossing town" when controls({a}, crossing)
  award {a} 1 at end "{A} holds the far town" when controls({a}, far-town)
  award {b} 1 at end "{B} holds the crossing town" when controls({b}, crossing)
  award {b} at end "1 VP per eliminated {A} armoured division" = eliminated({a}, "mechanized")
  win {a} at end when vp({a}) > vp({b})
  win {b} at end when vp({b}) >= vp({a})
}}

scenario standard "{title}" {{
  turns 1 {last_turn}
  victory towns
  note "{A} attacks across the river; {B} defends the crossing."
  setup {{
    table {{
      counter  at
{setup}
    }}
  }}
}}
'''


def _counter_rows(side: str, prefix: str, strong: bool) -> list[tuple[str, str, str, str, str, str]]:
    t = _title(side)
    arm, inf, art = ("6-4-8", "3-2-8"), ("4-5", "2-5"), ("3-2-4", "-")
    if not strong:
        arm, inf = ("4-3-7", "2-2-7"), ("3-4", "1-4")
    rows = [(f"{prefix}1A", "armour", *arm, "-", f"{t} 1st Armoured"),
            (f"{prefix}2A", "armour", *arm, "2", f"{t} 2nd Armoured"),
            (f"{prefix}1I", "infantry", *inf, "-", f"{t} 1st Infantry"),
            (f"{prefix}2I", "infantry", *inf, "-", f"{t} 2nd Infantry"),
            (f"{prefix}3I", "infantry", *inf, "-", f"{t} 3rd Infantry"),
            (f"{prefix}1G", "artillery", *art, "-", f"{t} Artillery")]
    return rows


def _table(rows: list[tuple[str, ...]], indent: int) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for r in rows:
        cells = [c.ljust(w) for c, w in zip(r, widths)] + [f'"{r[-1]}"' if " " in r[-1] or r[-1] == "" else r[-1]]
        out.append(" " * indent + "  ".join(cells).rstrip())
    return "\n".join(out)


def _prefixes(a: str, b: str) -> tuple[str, str]:
    pa, pb = a[0].upper(), b[0].upper()
    if pa == pb:
        pa, pb = a[:2].upper(), b[:2].upper()
        if pa == pb:
            pa, pb = "X", "Y"
    return pa, pb


class _MapPlan:
    """Where the scaffold's terrain goes, from the grid alone (no randomness,
    so two `hexforge new` runs with the same size give the same files)."""

    def __init__(self, cols: int, rows: int):
        self.grid = Grid("flat", "even", 1, 1, cols, rows, 2, 2)
        self.cols, self.rows = cols, rows
        self.river_col = cols // 2  # the river runs on the east sides of this column
        self.mid = (rows + 1) // 2

    def h(self, col: int, row: int) -> Hex:
        return self.grid.to_hex(col, row)

    def fmt(self, h: Hex) -> str:
        return self.grid.format_id(h)

    def river(self) -> list[tuple[Hex, Hex]]:
        """Hexsides between the river column and the next, top to bottom."""
        sides = []
        for r in range(1, self.rows + 1):
            h = self.h(self.river_col, r)
            for n in h.neighbours():
                if self.grid.contains(n) and self.grid.to_colrow(n)[0] == self.river_col + 1:
                    sides.append((h, n))
        return sides

    def road(self) -> list[Hex]:
        """West edge to east edge along the middle row (a straight zig-zag)."""
        return [self.h(c, self.mid) for c in range(1, self.cols + 1)]

    def rail(self) -> list[Hex]:
        r = max(2, self.mid - 3)
        return [self.h(c, r) for c in range(1, self.cols + 1)]


def game_files(spec: NewGame) -> dict[str, str]:
    """The texts of a new game's files, by name inside the game folder."""
    spec.check()
    a, b = spec.sides
    pa, pb = _prefixes(a, b)
    plan = _MapPlan(spec.cols, spec.rows)
    crossing = plan.h(plan.river_col + 1, plan.mid)
    far = plan.h(min(spec.cols - 1, plan.river_col + 1 + max(2, spec.cols // 4)), plan.mid)
    turns = 6
    a_rows = _counter_rows(a, pa, strong=True)
    b_rows = _counter_rows(b, pb, strong=False)
    setup = [(r[0], f"{a}-start") for r in a_rows if r[4] == "-"]
    setup += [(a_rows[1][0], "turn:2")]
    setup += [(r[0], f"{b}-start") for r in b_rows if r[4] == "-"]
    setup += [(b_rows[1][0], "turn:2")]
    # B's second armour arrives as a reinforcement too; both enter at their edge
    game = GAME.format(
        id=spec.game_id, title=spec.title, a=a, b=b, A=_title(a), B=_title(b),
        a_rows=_table([r for r in a_rows], 4), b_rows=_table([r for r in b_rows], 4),
        turns="\n".join(f"    {t}     \"Day {t}\"" for t in range(1, turns + 1)),
        last_turn=turns, setup=_table([(c, w, "") for c, w in setup], 6).replace(' ""', "").rstrip())
    return {"game.hxr": game, "map.hxm": map_text(spec, plan, crossing, far)}


def map_text(spec: NewGame, plan: _MapPlan, crossing: Hex, far: Hex) -> str:
    a, b = spec.sides
    fmt, h = plan.fmt, plan.h
    cols, rows = spec.cols, spec.rows
    special: dict[Hex, tuple[str, str, str, str]] = {}
    # forests and hills in a fixed pattern, away from the road
    for c in range(2, cols):
        for r in range(1, rows + 1):
            if r == plan.mid or (c * 7 + r * 5) % 11 not in (0, 3):
                continue
            special[h(c, r)] = ("forest" if (c + r) % 3 else "hills", "-", "-", "-")
    for c in range(plan.river_col + 2, cols):
        if (c + rows) % 4 == 0:
            special[h(c, rows)] = ("swamp", "-", "-", "-")
    special[crossing] = ("clear", "town", '"Crossing"', "2")
    special[far] = ("clear", "town", '"Far Town"', "1")
    lines = [f'map {spec.game_id} "{spec.title}"',
             f"grid {{ orientation flat; shifted even; columns 01-{cols:02d}; rows 01-{rows:02d} }}",
             "default clear", "hexes {", "  table {", "    hex   terrain  features  name        vp"]
    for x in sorted(special, key=plan.grid.to_colrow):
        t, f, n, v = special[x]
        lines.append(f"    {fmt(x)}  {t:<7}  {f:<8}  {n:<10}  {v}".rstrip())
    lines += ["  }", "}", "hexsides {", "  table {", "    hexside    features"]
    for x, y in plan.river():
        lines.append(f"    {fmt(x)}/{fmt(y)}  river")
    lines += ["  }", "}"]
    lines.append("path road " + " ".join(fmt(x) for x in plan.road()))
    lines.append("path rail " + " ".join(fmt(x) for x in plan.rail()))
    lines.append(f"supply {a} edge:west")
    lines.append(f"supply {b} edge:east")
    west = [h(c, r) for c in (1, 2) for r in range(1, rows + 1)]
    east = [h(c, r) for c in (plan.river_col + 1, plan.river_col + 2) for r in range(1, rows + 1)
            if h(c, r) != crossing] + [crossing]
    lines.append(f'area {a}-start "{_title(a)} set-up" ' + " ".join(fmt(x) for x in west))
    lines.append(f'area {b}-start "{_title(b)} set-up" ' + " ".join(fmt(x) for x in sorted(east, key=plan.grid.to_colrow)))
    lines.append(f'area crossing "Crossing" {fmt(crossing)}')
    lines.append(f'area far-town "Far Town" {fmt(far)}')
    return "\n".join(lines) + "\n"


def write_game(folder: Path, spec: NewGame) -> list[Path]:
    """Write a new game into ``folder`` (created; it must be empty or absent).
    All files are written, or none."""
    files = game_files(spec)
    if folder.exists():
        if not folder.is_dir():
            raise ScaffoldError(f"{folder} exists and is not a folder")
        if any(folder.iterdir()):
            raise ScaffoldError(f"{folder} is not empty: hexforge new writes only into a new or empty folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, text in files.items():
            p = folder / name
            p.write_text(text, encoding="utf-8")
            written.append(p)
    except OSError as e:
        for name in files:
            (folder / name).unlink(missing_ok=True)
        raise ScaffoldError(f"cannot write {folder}: {e.strerror or e}") from e
    return written


def add_new_command(sub) -> None:
    """``hexforge new DIR [--title T] [--size COLSxROWS] [--sides A,B]``."""
    n = sub.add_parser("new", help="write a small, complete, playable game into a new folder to start from")
    n.add_argument("folder", help="the new game's folder (created; must be new or empty); its name is the game id")
    n.add_argument("--title", default="", help="the game's title (default: from the folder name)")
    n.add_argument("--size", default="16x12", help="map size COLSxROWS (default: 16x12)")
    n.add_argument("--sides", default="blue,red", help="the two side ids, first moves first (default: blue,red)")
    n.set_defaults(func=cmd_new)


def cmd_new(args) -> int:
    import sys

    folder = Path(args.folder)
    try:
        if not args.folder.strip() or args.folder != args.folder.strip():  # ('' is '.', the folder one is in)
            raise ScaffoldError(f"'{args.folder}' is no folder name: give the new game's folder, e.g. "
                                "hexforge new my-game")
        cols, rows = parse_size(args.size)
        sides = tuple(s.strip() for s in args.sides.split(","))
        if len(sides) != 2:
            raise ScaffoldError(f"--sides '{args.sides}': name exactly two sides, e.g. blue,red")
        game_id = slug(folder.resolve().name)
        title = args.title or folder.resolve().name.replace("-", " ").replace("_", " ").title()[:MAX_TITLE]
        spec = NewGame(game_id, title, cols, rows, (sides[0], sides[1]))
        written = write_game(folder, spec)
    except ScaffoldError as e:
        print(f"hexforge: {args.folder + ': ' if args.folder.strip() else ''}error: {e}", file=sys.stderr)
        return 1
    for p in written:
        print(f"wrote {p}")
    arg = shlex.quote(str(folder))  # (a folder named with spaces or '!' is pasted into a shell as it is)
    print(f"next: .venv/bin/hexforge check {arg}   then   .venv/bin/hexforge play {arg} --agents greedy,random")
    return 0
