"""A generated game for benchmarks and property tests: the Gekitou series
system on a random map of any size, with many units, compiled through the
real compiler (so it measures what users run)."""
from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path

from dsl.compiler import compile_game
from runtime.definition import GameDefinition, MapDef, MapHex, frozen_map
from runtime.hexes import Grid, Hexside

ROOT = Path(__file__).resolve().parent.parent

TERRAIN = ["clear"] * 10 + ["light-forest"] * 3 + ["heavy-forest"] * 2 + ["swamp"]


def random_map(cols: int, rows: int, seed: int) -> MapDef:
    rnd = random.Random(seed)
    digits = max(2, len(str(cols)))
    grid = Grid("flat", "even", 1, 1, cols, rows, digits, max(2, len(str(rows))))
    hexes = {}
    for h in grid.all_hexes():
        t = rnd.choice(TERRAIN)
        feats = ()
        if rnd.random() < 0.02:
            feats = ("city",) if rnd.random() < 0.3 else ("town",)
        hexes[h] = MapHex(h, t, feats, "", 10 if feats == ("city",) else 0)
    sides: dict[Hexside, frozenset[str]] = {}
    # rivers: random walks along hexsides
    for _ in range(max(1, cols // 10)):
        h = grid.to_hex(rnd.randint(1, cols), 1)
        kind = "major-river" if rnd.random() < 0.4 else "river"
        for _ in range(rows * 2):
            d = rnd.choice((2, 3, 4)) if grid.contains(h) else 3
            n = h.neighbour(d)
            if not grid.contains(n):
                break
            side_n = h.neighbour((d + 1) % 6)
            if grid.contains(side_n):
                sides[Hexside(n, side_n)] = frozenset({kind})
            h = n
    links: dict[str, set[Hexside]] = {"road": set(), "rail": set()}
    for kind, count in (("road", rows // 3), ("rail", rows // 8)):
        for _ in range(max(1, count)):
            h = grid.to_hex(1, rnd.randint(1, rows))
            while True:
                n = h.neighbour(rnd.choice((1, 2, 2, 3)))
                if not grid.contains(n):
                    break
                links[kind].add(Hexside(h, n))
                h = n
    return MapDef("synthetic", grid, "clear", frozen_map(hexes), frozen_map(sides),
                  frozen_map({k: frozenset(v) for k, v in links.items()}),
                  frozen_map({"soviet": frozenset(grid.to_hex(cols, r) for r in range(1, rows + 1, 7))}),
                  frozen_map({"axis": ("west",), "soviet": ("east",)}), frozen_map({}))


def synthetic_game(cols: int = 120, rows: int = 60, units: int = 300, seed: int = 1,
                   folder: Path | None = None) -> tuple[GameDefinition, Path]:
    """Write a game library to ``folder`` (a temp dir by default), compile it."""
    from dsl.mapfile import write_map

    rnd = random.Random(seed)
    lib = Path(folder or tempfile.mkdtemp(prefix="hexforge-synth-"))
    (lib / "gekitou").mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "games" / "gekitou" / "system.hxr", lib / "gekitou" / "system.hxr")
    game = lib / "synthetic"
    game.mkdir(exist_ok=True)
    m = random_map(cols, rows, seed)
    (game / "map.hxm").write_text(write_map(m), encoding="utf-8")
    rows_axis, rows_soviet, setup = [], [], []
    taken: dict[str, int] = {}
    for i in range(units):
        side = "axis" if i % 2 == 0 else "soviet"
        mech = rnd.random() < 0.4
        cls, full, red = ("panzer", "6-4-10", "3-2-10") if mech else ("infantry", "4-6", "2-6")
        uid = f"{'A' if side == 'axis' else 'S'}{i}"
        (rows_axis if side == "axis" else rows_soviet).append(f"    {uid} {cls} {full} {red}")
        # axis in the west half, soviets in the east half
        while True:
            c = rnd.randint(1, cols // 2) if side == "axis" else rnd.randint(cols // 2 + 1, cols)
            r = rnd.randint(1, rows)
            hid = m.grid.format_id(m.grid.to_hex(c, r))
            if taken.get(hid, 0) < 2:
                taken[hid] = taken.get(hid, 0) + 1
                break
        setup.append(f"      {uid} {hid}")
    text = ['import "../gekitou/system.hxr"',
            'game synthetic "Synthetic" { map "map.hxm" }',
            "counters axis-units {", "  nationality german", "  table {", "    id class full reduced",
            *rows_axis, "  }", "}",
            "counters soviet-units {", "  nationality red-army", "  table {", "    id class full reduced",
            *rows_soviet, "  }", "}",
            "turn-track { table {", "  turn date", "  1 -", "} }",
            'scenario all "All units" {', "  turns 1 1", "  setup {", "    table {", "      counter at",
            *setup, "    }", "  }", "}"]
    (game / "game.hxr").write_text("\n".join(text) + "\n", encoding="utf-8")
    return compile_game(game), game
