"""The editor's document model, without widgets: text edits in place,
byte-identical saves, atomic writes, counter and setup edits, recovery."""
from __future__ import annotations

import re

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from editor import textedit as T
from editor.document import EditError, GameDocument, LoadError, MapModel
from runtime.definition import MapHex
from runtime.hexes import Grid, hexside

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def lib(tmp_path, monkeypatch):
    """A copy of games/ (the library) and a private recovery folder."""
    dst = tmp_path / "games"
    shutil.copytree(ROOT / "games", dst)
    monkeypatch.setenv("HEXFORGE_RECOVERY_DIR", str(tmp_path / "recovery"))
    return dst


def snapshot_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_diff_edit_and_inverse_round_trip():
    old = "counters x {\n  table {\n    id full\n    a 1-1\n  }\n}\n"
    new = old.replace("a 1-1", "a 2-1")
    e = T.diff_edit(old, new)
    assert T.apply_edits(old, [e]) == new
    assert T.apply_edits(new, T.invert_edits(old, [e])) == old
    edits = [(0, 8, "COUNTERS"), (len(old) - 2, len(old) - 1, "}  ")]
    assert T.apply_edits(T.apply_edits(old, edits), T.invert_edits(old, edits)) == old


def test_cells_are_quoted_only_when_needed():
    assert T.cell("7Pz") == "7Pz"
    assert T.cell("") == "-"
    assert T.cell("two words") == '"two words"'
    assert T.cell("Brest", quoted=True) == '"Brest"'
    assert T.cell('say "hi"', quoted=True) == '"say \\"hi\\""'


@pytest.mark.parametrize("game", ["smolensk", "barbarossa-postcard"])
def test_open_and_save_without_edits_is_byte_identical(lib, game):
    before = snapshot_bytes(lib)
    doc = GameDocument.open(lib / game)
    assert doc.map is not None and not doc.map_problems
    assert doc.dirty_files() == []
    assert doc.save() == []
    doc.close()
    assert snapshot_bytes(lib) == before


def test_map_edit_saves_canonical_map_and_nothing_else(lib):
    before = snapshot_bytes(lib)
    doc = GameDocument.open(lib / "barbarossa-postcard")
    m = doc.map
    h = m.grid.parse_id("0505")
    old = m.hexes[h]
    m.apply([(("hex", h), MapHex(h, "mountain" if old.terrain != "mountain" else "clear", old.features, old.name,
                                 old.vp))])
    assert doc.dirty_files() == ["barbarossa-postcard/map.hxm"]
    written = doc.save()
    assert written == ["barbarossa-postcard/map.hxm"]
    after = snapshot_bytes(lib)
    changed = [k for k in after if after[k] != before.get(k)]
    assert changed == ["barbarossa-postcard/map.hxm"]
    text = after["barbarossa-postcard/map.hxm"].decode()
    # the leading comments and the map title survive the canonical rewrite
    assert text.startswith("# Barbarossa postcard game")
    assert 'map barbarossa-postcard "Barbarossa (postcard map, reconstructed)"' in text
    assert not [p for p in (lib / "barbarossa-postcard").iterdir() if p.name.endswith(".tmp")]
    doc.close()
    again = GameDocument.open(lib / "barbarossa-postcard")
    assert again.map.hexes[h].terrain == m.hexes[h].terrain
    assert again.diagnostics == []
    assert again.save() == []  # reopened and saved: nothing to write
    again.close()


def test_map_edit_undone_is_not_written(lib):
    before = snapshot_bytes(lib)
    doc = GameDocument.open(lib / "smolensk")
    h = doc.map.grid.parse_id("2020")
    undo = doc.map.apply([(("out", h), True)])
    assert doc.map_dirty
    doc.map.apply(undo)
    assert not doc.map_dirty and doc.save() == []
    assert snapshot_bytes(lib) == before
    doc.close()


def test_counter_edit_changes_one_row_in_place(lib):
    doc = GameDocument.open(lib / "smolensk")
    path = lib / "smolensk" / "game.hxr"
    old_lines = path.read_text().split("\n")
    doc.apply_edits(doc.counter_edits("7Pz", {"full": "9-4-10", "name": "7th Panzer (Rommel)"}))
    doc.refresh()
    assert doc.snapshot.counters["7Pz"].full == "9-4-10"
    assert doc.diagnostics == []
    doc.save()
    new_lines = path.read_text().split("\n")
    diff = [(a, b) for a, b in zip(old_lines, new_lines) if a != b]
    assert len(old_lines) == len(new_lines) and len(diff) == 1
    a, b = diff[0]
    assert "9-4-10" in b and '"7th Panzer (Rommel)"' in b
    # still aligned under the header: the factors column starts where it did
    assert a.index("8-4-10") == b.index("9-4-10")
    doc.close()


def test_counter_edit_adds_a_column_when_the_group_default_differs(lib):
    doc = GameDocument.open(lib / "smolensk")
    doc.apply_edits(doc.counter_edits("7Pz", {"nationality": "ss"}))
    doc.refresh()
    assert doc.snapshot.counters["7Pz"].nationality == "ss"
    assert doc.snapshot.counters["12Pz"].nationality == "german"
    assert doc.diagnostics == []
    doc.close()


def test_counter_rename_follows_into_setups_and_bad_edits_are_refused(lib):
    doc = GameDocument.open(lib / "smolensk")
    doc.apply_edits(doc.counter_edits("7Pz", {"id": "7PzD"}))
    doc.refresh()
    assert "7PzD" in doc.snapshot.counters and "7Pz" not in doc.snapshot.counters
    assert doc.snapshot.scenarios["short"].placements["7PzD"].at == "setup-3PzA"
    assert doc.diagnostics == []
    with pytest.raises(EditError):
        doc.counter_edits("12Pz", {"id": "7PzD"})
    with pytest.raises(EditError):
        doc.counter_edits("nope", {"full": "1-1"})
    doc.close()


def test_duplicate_add_and_delete_counters(lib):
    doc = GameDocument.open(lib / "barbarossa-postcard")
    first = next(iter(doc.snapshot.counters))
    nid, edits = doc.new_counter_edits(first)
    doc.apply_edits(edits)
    doc.refresh()
    c, d = doc.snapshot.counters[first], doc.snapshot.counters[nid]
    assert (d.unit_class, d.full, d.side) == (c.unit_class, c.full, c.side)
    assert d.line == c.line + 1
    group = c.group
    aid, edits = doc.add_counter_edits(group)
    doc.apply_edits(edits)
    doc.refresh()
    assert doc.snapshot.counters[aid].group == group
    doc.apply_edits(doc.delete_counter_edits(nid))
    doc.refresh()  # edits are made against the current text
    doc.apply_edits(doc.delete_counter_edits(aid))
    doc.refresh()
    assert nid not in doc.snapshot.counters and aid not in doc.snapshot.counters
    assert not doc.dirty  # back to the text as loaded
    doc.close()


def test_setup_edits_and_the_compilers_diagnostics(lib):
    doc = GameDocument.open(lib / "smolensk")
    sc = "short"
    # move a counter from its area to a hex, then over-stack that hex
    doc.apply_edits(doc.placement_edits(sc, "7Pz", "1017"))
    doc.refresh()
    assert doc.placements(sc)["7Pz"] == "1017"
    msgs = [d.message for d in doc.diagnostics]
    assert any("holds units of both sides" in m for m in msgs), msgs
    # prohibited terrain: a sea or lake hex
    lake = next(h for h, mh in doc.map.hexes.items() if mh.terrain in ("lake", "sea") and doc.map.in_play(h))
    doc.apply_edits(doc.placement_edits(sc, "7Pz", doc.map.grid.format_id(lake)))
    doc.refresh()
    assert any("prohibited terrain" in d.message for d in doc.diagnostics)
    # take it out of the setup, then put it into a pool and onto the turn track
    doc.apply_edits(doc.placement_edits(sc, "7Pz", None))
    doc.refresh()
    assert "7Pz" not in doc.placements(sc)
    doc.apply_edits(doc.placement_edits(sc, "7Pz", "reserve"))
    doc.apply_edits(doc.placement_edits(sc, "12Pz", "turn:3"))
    doc.refresh()
    assert doc.placements(sc)["7Pz"] == "reserve" and doc.placements(sc)["12Pz"] == "turn:3"
    assert doc.diagnostics == []
    # an unknown counter in the text is reported with its line
    text = doc.files["smolensk/game.hxr"].text.replace("      7Pz             reserve",
                                                       "      7Pzz            reserve")
    doc.set_text("smolensk/game.hxr", text)
    doc.refresh()
    d = [d for d in doc.diagnostics if "7Pzz" in d.message]
    assert d and d[0].span.file == "smolensk/game.hxr"
    doc.close()


def test_setup_block_is_created_for_a_scenario_without_one(lib):
    doc = GameDocument.new("t1")
    assert doc.diagnostics == [], [d.message for d in doc.diagnostics]
    text = doc.files["t1/game.hxr"].text
    start = text.index("  setup {")
    end = text.index("\n  }\n", start) + len("\n  }\n")
    doc.set_text("t1/game.hxr", text[:start] + text[end:])  # the scenario without its setup block
    doc.refresh()
    assert doc.placements("standard") == {}
    doc.apply_edits(doc.placement_edits("standard", "B1A", "0303"))
    doc.refresh()
    assert doc.placements("standard") == {"B1A": "0303"}
    assert doc.diagnostics == []
    doc.close()


def test_new_game_save_as_and_reopen(lib, tmp_path):
    doc = GameDocument.new("my-game", cols=12, rows=8)
    h = doc.map.grid.parse_id("0304")
    doc.map.apply([(("hex", h), MapHex(h, "forest", ("town",), "Kalinovka", 2))])
    folder = tmp_path / "lib2" / "my-game"
    written = doc.save_as(folder)
    assert sorted(written) == ["my-game/game.hxr", "my-game/map.hxm"]
    doc.close()
    again = GameDocument.open(folder)
    assert again.diagnostics == []
    assert again.map.hexes[h].name == "Kalinovka" and again.map.grid.cols == 12
    again.close()


def test_resize_keeps_printed_ids(lib):
    doc = GameDocument.open(lib / "barbarossa-postcard")
    m = doc.map
    named = {m.grid.format_id(h): mh.name for h, mh in m.hexes.items() if mh.name}
    g = m.grid
    bigger = Grid(g.orientation, g.shifted, g.first_col, g.first_row, g.cols + 3, g.rows + 2, g.col_digits,
                  g.row_digits)
    m.apply([(("state",), m.resized_state(bigger))])
    assert m.grid.cols == g.cols + 3
    assert {m.grid.format_id(h): mh.name for h, mh in m.hexes.items() if mh.name} == named
    doc.refresh()
    assert doc.diagnostics == []
    doc.close()


def test_flood_fill_region():
    m = MapModel(Grid("flat", "even", 1, 1, 6, 5, 2, 2))
    wall = [m.grid.to_hex(3, r) for r in range(1, 6)]
    m.apply([(("hex", h), MapHex(h, "forest")) for h in wall])
    left = m.flood(m.grid.to_hex(1, 1))
    assert len(left) == 10 and all(m.grid.to_colrow(h)[0] < 3 for h in left)


def test_autosave_and_recovery(lib):
    doc = GameDocument.open(lib / "smolensk")
    before = snapshot_bytes(lib)
    h = doc.map.grid.parse_id("2020")
    doc.map.apply([(("hex", h), MapHex(h, "swamp"))])
    doc.apply_edits(doc.counter_edits("7Pz", {"full": "9-4-10"}))
    assert doc.autosave() is not None
    # "crash": the document is dropped without saving
    doc._mirror_dir = Path("/nonexistent")  # noqa: SLF001 (nothing else is cleaned up)
    again = GameDocument.open(lib / "smolensk")
    assert again.pending_recovery() is not None
    done = again.recover()
    assert set(done) == {"smolensk/game.hxr", "smolensk/map.hxm"}
    assert again.map.hexes[h].terrain == "swamp"
    assert again.snapshot.counters["7Pz"].full == "9-4-10"
    assert snapshot_bytes(lib) == before  # recovery writes nothing until saved
    again.save()
    assert again.pending_recovery() is None
    again.close()
    third = GameDocument.open(lib / "smolensk")
    assert third.map.hexes[h].terrain == "swamp" and third.snapshot.counters["7Pz"].full == "9-4-10"
    third.close()


def test_recovery_after_a_killed_process(lib, tmp_path):
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from editor.document import GameDocument
        from runtime.definition import MapHex
        doc = GameDocument.open({str(lib / 'barbarossa-postcard')!r})
        h = doc.map.grid.parse_id("0303")
        doc.map.apply([(("hex", h), MapHex(h, "mountain"))])
        doc.autosave()
        os.kill(os.getpid(), 9)
    """)
    r = subprocess.run([sys.executable, "-c", script], env=dict(os.environ), capture_output=True)
    assert r.returncode != 0
    doc = GameDocument.open(lib / "barbarossa-postcard")
    assert doc.pending_recovery() is not None
    doc.recover()
    assert doc.map.hexes[doc.map.grid.parse_id("0303")].terrain == "mountain"
    assert doc.dirty_files() == ["barbarossa-postcard/map.hxm"]
    doc.discard_recovery()
    doc.close()


def test_a_broken_map_opens_read_only_and_is_never_rewritten(lib):
    mp = lib / "barbarossa-postcard" / "map.hxm"
    broken = mp.read_text().replace("default clear", "default clearr")
    mp.write_text(broken)
    before = snapshot_bytes(lib)
    doc = GameDocument.open(lib / "barbarossa-postcard")
    assert doc.map is None
    assert doc.map_problems and doc.map_problems[0].span.file == "barbarossa-postcard/map.hxm"
    assert doc.editable_text("barbarossa-postcard/map.hxm")
    assert doc.save() == []
    assert snapshot_bytes(lib) == before
    # fixed as text, the map loads and can then be edited
    doc.set_text("barbarossa-postcard/map.hxm", broken.replace("clearr", "clear"))
    doc.refresh()
    assert doc.map is not None
    doc.close()


def test_a_rules_syntax_error_is_a_diagnostic_not_a_crash(lib):
    p = lib / "smolensk" / "game.hxr"
    p.write_text(p.read_text().replace('game smolensk "Gekitou! Smolensk Blitzkrieg" {',
                                       'game smolensk "Gekitou! Smolensk Blitzkrieg {'))
    doc = GameDocument.open(lib / "smolensk")
    assert any(d.span and d.span.file == "smolensk/game.hxr" for d in doc.diagnostics)
    with pytest.raises(EditError):
        doc.counter_edits("7Pz", {"full": "1-1-1"})
    doc.close()


def test_open_errors(tmp_path):
    with pytest.raises(LoadError):
        GameDocument.open(tmp_path)


def test_save_refuses_to_overwrite_a_file_changed_on_disk(lib):
    doc = GameDocument.open(lib / "barbarossa-postcard")
    doc.apply_edits(doc.counter_edits(next(iter(doc.snapshot.counters)), {"name": "Changed"}))
    p = lib / "barbarossa-postcard" / "game.hxr"
    p.write_text(p.read_text() + "\n# edited elsewhere\n")
    with pytest.raises(EditError):
        doc.save()
    assert doc.save(force=True) == ["barbarossa-postcard/game.hxr"]
    doc.close()


def test_definitions_for_go_to(lib):
    doc = GameDocument.open(lib / "smolensk")
    assert doc.definition("panzer").file == "gekitou/system.hxr"
    assert doc.definition("7Pz").file == "smolensk/game.hxr"
    span = doc.definition("setup-2PzA")
    assert span is not None and span.file == "smolensk/map.hxm"
    assert doc.definition("no-such-name") is None
    doc.close()


def test_crlf_and_bom_files_keep_their_form(lib):
    p = lib / "barbarossa-postcard" / "game.hxr"
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes().replace(b"\n", b"\r\n"))
    doc = GameDocument.open(lib / "barbarossa-postcard")
    assert doc.save() == []
    cid = next(iter(doc.snapshot.counters))
    doc.apply_edits(doc.counter_edits(cid, {"name": "Renamed"}))
    doc.save()
    data = p.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    doc.close()


def test_hexside_and_link_keys_round_trip_through_the_file(lib):
    doc = GameDocument.open(lib / "barbarossa-postcard")
    m = doc.map
    a, b = m.grid.parse_id("0404"), m.grid.parse_id("0405")
    s = hexside(a, b)
    m.apply([(("side", s), frozenset({"river"})), (("link", "sea-lane", s), True)])
    doc.save()
    doc.close()
    again = GameDocument.open(lib / "barbarossa-postcard")
    assert "river" in again.map.hexsides[s] and s in again.map.links["sea-lane"]
    again.close()


def test_edits_after_typing_use_the_current_text(lib):
    doc = GameDocument.open(lib / "smolensk")
    shown = "smolensk/game.hxr"
    doc.set_text(shown, "# a new first line\n" + doc.files[shown].text)  # no refresh in between
    doc.apply_edits(doc.counter_edits("7Pz", {"full": "9-4-10"}))
    doc.refresh()
    assert doc.snapshot.counters["7Pz"].full == "9-4-10"
    assert doc.snapshot.counters["3PzA"].full == "2-5-6"
    assert doc.diagnostics == []
    doc.close()


@pytest.mark.parametrize("orientation,shifted", [("flat", "even"), ("flat", "odd"), ("pointy", "even"),
                                                 ("pointy", "odd")])
def test_picking_hexes_and_edges_is_arithmetic(orientation, shifted):
    from editor.paint import Geometry

    g = Grid(orientation, shifted, 1, 1, 9, 7, 2, 2)
    geo = Geometry(g)
    for h in g.all_hexes():
        x, y = geo.centre(h)
        assert geo.pick(x, y) == h
        assert g.hex_to_pixel(h, geo.size) == pytest.approx((x, y))
        for d in range(6):
            (x1, y1), (x2, y2) = geo.edge(h, d)
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            # a point just inside h, near the middle of edge d, picks that edge
            px, py = x + (mx - x) * 0.9, y + (my - y) * 0.9
            assert geo.pick_edge(px, py) == (h, d)


def test_comments_inside_a_map_survive_a_rewrite(tmp_path):
    """The canonical map writer has no place for interior comments: they move
    into the kept header block instead of being lost, and stay put on later saves."""
    from editor.document import KEPT_MARK, map_header_and_titles
    text = ('# my map\nmap m "M"\n# the grid follows\ngrid { orientation flat; shifted even; columns 01-03; '
            'rows 01-03 }\ndefault clear\nhexes {\n  table {\n    hex terrain features name vp\n'
            '    0101 clear - "A # not a comment" -   # river crossing here\n  }\n}\n')
    header, title, _ = map_header_and_titles(text, "m.hxm")
    assert header.splitlines() == ["# my map", KEPT_MARK, "# the grid follows", "# (0101) river crossing here"]
    rewritten = header + 'map m "M"\n'
    again, _, _ = map_header_and_titles(rewritten, "m.hxm")
    assert again == header


def test_counter_rename_follows_into_chits_and_expressions(lib):
    doc = GameDocument.open(lib / "smolensk")
    doc.apply_edits(doc.counter_edits("2PzA", {"id": "2PzG"}))
    doc.refresh()
    assert doc.diagnostics == []                                      # the Guderian chit names the new id
    rules = "".join(b.text for f, b in doc.files.items() if f.endswith(".hxr"))
    assert re.search(r"\n\s*Guderian\s+axis\s+interrupt\s+2PzG\b", rules)
    doc.close()
    folder = lib / "barbarossa-postcard"
    text = (folder / "game.hxr").read_text(encoding="utf-8")
    (folder / "game.hxr").write_text(text.replace(
        '  award axis 1 at end "Maikop oil (11.2)"',
        '  award axis 1 at end "army groups" when on-map(AGN) and on-map(AGC)\n  award axis 1 at end "Maikop oil (11.2)"',
        1), encoding="utf-8")
    doc = GameDocument.open(folder)
    assert doc.diagnostics == []
    doc.apply_edits(doc.counter_edits("AGC", {"id": "AGC9"}))
    doc.refresh()
    assert doc.diagnostics == []
    game = doc.files["barbarossa-postcard/game.hxr"].text
    assert "on-map(AGN) and on-map(AGC9)" in game                     # only the renamed counter's name changes
    doc.close()
