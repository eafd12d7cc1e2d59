"""The editor's document: a game folder being edited, without Qt.

* Rules files (``.hxr``) are kept as text buffers; the GUI's counter and
  setup edits become edits of their table rows (``textedit``), so the rest of
  each file stays byte-identical.
* The map is a mutable :class:`MapModel`; saving writes it with
  ``dsl.mapfile.write_map`` (canonical text), keeping the file's leading
  comments, the map title and area titles.
* Files that no edit touched are never written, so opening and saving
  without edits leaves every file byte-identical.  Saving writes a temporary
  file beside the target and renames it over the old one.
* Autosave writes the unsaved texts to a recovery folder; opening the game
  again offers them back.
* Diagnostics come from the real compiler, run on a *mirror* of the game's
  files in a temporary library (so the text being typed is checked without
  touching the user's files).
"""
from __future__ import annotations

import hashlib
import json
import re
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from dsl.ast import Statement
from dsl.diagnostics import Diagnostic, DslError, Span
from dsl.mapfile import MAP_MENDS
from dsl.parser import parse
from runtime import definition as D
from runtime.hexes import Grid, Hex, Hexside, hexside

from runtime.expr import Name, walk as walk_expr

from . import textedit as T
from .files import atomic_write, atomic_write_all
from .gamefile import COUNTER_COLUMNS, Snapshot, read_map, read_snapshot

BOM = b"\xef\xbb\xbf"


# a name an expression reads (dsl/hxr.lark: ENAME), and the words it reads otherwise
_EXPRESSION_NAME = re.compile(r"[0-9]*[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z_][A-Za-z0-9_]*)*")
_EXPRESSION_WORDS = frozenset({"and", "or", "not", "in", "true", "false"})


class LoadError(Exception):
    """A game folder could not be opened at all (nothing was changed).
    ``why``: the message without the path, where the path is said already
    (the command line's ``hexforge: PATH: error: ...``)."""

    def __init__(self, message: str, why: str = ""):
        super().__init__(message)
        self.why = why or message


def _statements(entries) -> Iterable[Statement]:
    """Every statement of a file, at any depth."""
    for e in entries or ():
        if isinstance(e, Statement):
            yield e
            yield from _statements(e.body)


def _expressions(entries) -> Iterable:
    """Every condition and value of a file's statements, at any depth."""
    for e in entries or ():
        if isinstance(e, Statement):
            if e.condition is not None:
                yield e.condition
            if e.value is not None:
                yield e.value
            yield from _expressions(e.body)


class EditError(Exception):
    """An edit the document cannot make (the message says why)."""


# ------------------------------------------------------------------ files

@dataclass
class FileBuffer:
    """One text file of the game: its current text (newlines as ``\\n``) and
    the bytes it had when loaded or last saved."""

    shown: str  # path relative to the library, as diagnostics name it
    saved: bytes
    text: str
    newline: str = "\n"
    bom: bool = False
    readable: bool = True  # False: not UTF-8; never written

    @classmethod
    def from_bytes(cls, shown: str, data: bytes) -> "FileBuffer":
        bom = data.startswith(BOM)
        try:
            text = data[3:].decode("utf-8") if bom else data.decode("utf-8")
        except UnicodeDecodeError:
            return cls(shown, data, "", readable=False)
        newline = "\r\n" if "\r\n" in text else "\n"
        if newline != "\n":
            text = text.replace("\r\n", "\n")
        return cls(shown, data, text, newline, bom)

    def encode(self, text: str | None = None) -> bytes:
        t = self.text if text is None else text
        if self.newline != "\n":
            t = t.replace("\n", self.newline)
        return (BOM if self.bom else b"") + t.encode("utf-8")

    @property
    def saved_text(self) -> str:
        return FileBuffer.from_bytes(self.shown, self.saved).text

    @property
    def dirty(self) -> bool:
        return self.readable and self.encode() != self.saved


# ------------------------------------------------------------------ the map

class MapModel:
    """A mutable map.  Every change goes through :meth:`apply`, with keys:

    ``("hex", h)`` → MapHex · ``("out", h)`` → bool (not in play) ·
    ``("side", s)`` → frozenset of hexside features · ``("link", kind, s)`` → bool ·
    ``("supply", side, h)`` → bool · ``("edges", side)`` → tuple of map edges ·
    ``("area", name, h)`` → bool · ``("area-def", name)`` → title or None ·
    ``("meta", "default" | "name" | "title")`` → str · ``("state",)`` → a whole map state.
    """

    def __init__(self, grid: Grid, name: str = "map", default: str = "clear", title: str = "", header: str = ""):
        self.grid = grid
        self.name = name
        self.title = title
        self.header = header
        self.default = default
        self.background = ""  # an image under the map, relative to the game folder
        self.hexes: dict[Hex, D.MapHex] = {h: D.MapHex(h, default) for h in grid.all_hexes()}
        self.outside: set[Hex] = set()
        self.hexsides: dict[Hexside, frozenset[str]] = {}
        self.links: dict[str, set[Hexside]] = {}
        self.supply: dict[str, set[Hex]] = {}
        self.supply_edges: dict[str, tuple[str, ...]] = {}
        self.areas: dict[str, set[Hex]] = {}
        self.area_titles: dict[str, str] = {}
        self.listeners: list[Callable[[set[Hex] | None], None]] = []
        self.revision = 0
        self.out_rev = 0  # bumped when hexes go in or out of play
        self.line_rev = 0  # bumped when hexsides or links change

    # -- building ----------------------------------------------------------
    @classmethod
    def from_mapdef(cls, m: D.MapDef, title: str = "", header: str = "",
                    area_titles: dict[str, str] | None = None) -> "MapModel":
        mm = cls(m.grid, m.name, m.default_terrain, title, header)
        for h in m.grid.all_hexes():
            mh = m.hexes.get(h)
            if mh is None:
                mm.outside.add(h)
            else:
                mm.hexes[h] = mh
        mm.hexsides = {s: f for s, f in m.hexsides.items() if f}
        mm.links = {k: set(v) for k, v in m.links.items()}
        mm.supply = {k: set(v) for k, v in m.supply.items()}
        mm.supply_edges = dict(m.supply_edges)
        mm.areas = {k: set(v) for k, v in m.areas.items()}
        mm.area_titles = {k: (area_titles or {}).get(k, "") for k in m.areas}
        mm.background = m.background
        return mm

    def to_mapdef(self) -> D.MapDef:
        fm = D.frozen_map
        return D.MapDef(
            name=self.name, grid=self.grid, default_terrain=self.default,
            hexes=fm({h: mh for h, mh in self.hexes.items() if h not in self.outside}),
            hexsides=fm({s: f for s, f in self.hexsides.items() if f}),
            links=fm({k: frozenset(v) for k, v in self.links.items() if v}),
            supply=fm({k: frozenset(v) for k, v in self.supply.items() if v}),
            supply_edges=fm({k: v for k, v in self.supply_edges.items() if v}),
            areas=fm({k: frozenset(v) for k, v in self.areas.items()}),
            labels=fm({h: mh.name for h, mh in self.hexes.items() if mh.name and h not in self.outside}),
            background=self.background)

    def text(self) -> str:
        """The map file's text: leading comments, then write_map's canonical form."""
        from dsl.mapfile import write_map

        body = write_map(self.to_mapdef(), self.title)
        if self.area_titles and any(self.area_titles.values()):
            out = []
            for line in body.split("\n"):
                if line.startswith("area "):
                    name = line.split(" ", 2)[1]
                    t = self.area_titles.get(name)
                    if t:
                        rest = line[len("area ") + len(name):]
                        line = f"area {name} {T.quote(t)}{rest}"
                out.append(line)
            body = "\n".join(out)
        body = "\n".join(line.rstrip() for line in body.split("\n"))
        return self.header + body

    # -- state ---------------------------------------------------------------
    def state(self) -> tuple:
        return (self.grid, self.name, self.title, self.default, dict(self.hexes), frozenset(self.outside),
                dict(self.hexsides), {k: frozenset(v) for k, v in self.links.items() if v},
                {k: frozenset(v) for k, v in self.supply.items() if v},
                {k: v for k, v in self.supply_edges.items() if v},
                {k: frozenset(v) for k, v in self.areas.items()}, dict(self.area_titles), self.background)

    def set_state(self, s: tuple) -> None:
        (self.grid, self.name, self.title, self.default, hexes, outside, sides, links, supply, edges, areas,
         titles, self.background) = s
        self.hexes = dict(hexes)
        self.outside = set(outside)
        self.hexsides = dict(sides)
        self.links = {k: set(v) for k, v in links.items()}
        self.supply = {k: set(v) for k, v in supply.items()}
        self.supply_edges = dict(edges)
        self.areas = {k: set(v) for k, v in areas.items()}
        self.area_titles = dict(titles)

    def resized_state(self, grid: Grid, default: str | None = None) -> tuple:
        """This map on another grid: hexes keep their printed column and row
        (so IDs do not change); what falls off the new grid is dropped."""
        default = default or self.default
        old = {self.grid.to_colrow(h): h for h in self.grid.all_hexes()}
        new_hex = {}
        for h in grid.all_hexes():
            cr = grid.to_colrow(h)
            new_hex[cr] = h

        def move(h: Hex) -> Hex | None:
            return new_hex.get(self.grid.to_colrow(h))

        hexes, outside = {}, set()
        for cr, h in new_hex.items():
            o = old.get(cr)
            if o is not None:
                mh = self.hexes[o]
                hexes[h] = D.MapHex(h, mh.terrain, mh.features, mh.name, mh.vp)
                if o in self.outside:
                    outside.add(h)
            else:
                hexes[h] = D.MapHex(h, default)

        def move_side(s: Hexside) -> Hexside | None:
            a, b = move(s.a), move(s.b)
            if a is None or b is None or a.distance(b) != 1:
                return None
            return hexside(a, b)

        sides = {}
        for s, f in self.hexsides.items():
            n = move_side(s)
            if n is not None and f:
                sides[n] = f
        links = {k: frozenset(n for n in (move_side(s) for s in v) if n is not None) for k, v in self.links.items()}
        supply = {k: frozenset(n for n in (move(h) for h in v) if n is not None) for k, v in self.supply.items()}
        areas = {k: frozenset(n for n in (move(h) for h in v) if n is not None) for k, v in self.areas.items()}
        return (grid, self.name, self.title, default, hexes, frozenset(outside), sides,
                {k: v for k, v in links.items() if v}, {k: v for k, v in supply.items() if v},
                dict(self.supply_edges), areas, dict(self.area_titles), self.background)

    # -- reading and writing one key ----------------------------------------
    def get(self, key: tuple):
        k = key[0]
        if k == "hex":
            return self.hexes[key[1]]
        if k == "out":
            return key[1] in self.outside
        if k == "side":
            return self.hexsides.get(key[1], frozenset())
        if k == "link":
            return key[2] in self.links.get(key[1], ())
        if k == "supply":
            return key[2] in self.supply.get(key[1], ())
        if k == "edges":
            return self.supply_edges.get(key[1], ())
        if k == "area":
            return key[2] in self.areas.get(key[1], ())
        if k == "area-def":
            return self.area_titles.get(key[1]) if key[1] in self.areas else None
        if k == "meta":
            return getattr(self, key[1])
        if k == "state":
            return self.state()
        raise KeyError(key)

    def _put(self, key: tuple, value) -> None:
        k = key[0]
        if k in ("out", "state"):
            self.out_rev += 1
        if k in ("side", "link", "state"):
            self.line_rev += 1
        if k == "hex":
            self.hexes[key[1]] = value
        elif k == "out":
            (self.outside.add if value else self.outside.discard)(key[1])
        elif k == "side":
            if value:
                self.hexsides[key[1]] = frozenset(value)
            else:
                self.hexsides.pop(key[1], None)
        elif k in ("link", "supply"):
            d = self.links if k == "link" else self.supply
            s = d.setdefault(key[1], set())
            (s.add if value else s.discard)(key[2])
        elif k == "edges":
            self.supply_edges[key[1]] = tuple(value)
        elif k == "area":
            s = self.areas.setdefault(key[1], set())
            self.area_titles.setdefault(key[1], "")
            (s.add if value else s.discard)(key[2])
        elif k == "area-def":
            if value is None:
                self.areas.pop(key[1], None)
                self.area_titles.pop(key[1], None)
            else:
                self.areas.setdefault(key[1], set())
                self.area_titles[key[1]] = value
        elif k == "meta":
            setattr(self, key[1], value)
        elif k == "state":
            self.set_state(value)
        else:
            raise KeyError(key)

    @staticmethod
    def touched(keys: Iterable[tuple]) -> set[Hex] | None:
        out: set[Hex] = set()
        for key in keys:
            k = key[0]
            if k in ("hex", "out"):
                out.add(key[1])
            elif k in ("supply", "area"):
                out.add(key[2])
            elif k == "side":
                out.update(key[1])
            elif k == "link":
                out.update(key[2])
            else:
                return None
        return out

    def apply(self, changes: list[tuple[tuple, object]]) -> list[tuple[tuple, object]]:
        """Apply ``[(key, value)]`` in order; return ``[(key, old value)]`` in
        reverse order (applying it undoes the change).  Notifies listeners."""
        undo = []
        for key, value in changes:
            undo.append((key, self.get(key)))
            self._put(key, value)
        undo.reverse()
        self.revision += 1
        self.notify(self.touched(k for k, _ in changes))
        return undo

    def notify(self, hexes: set[Hex] | None) -> None:
        for f in list(self.listeners):
            f(hexes)

    # -- questions -------------------------------------------------------------
    def in_play(self, h: Hex) -> bool:
        return h in self.hexes and h not in self.outside

    def flood(self, start: Hex) -> list[Hex]:
        """The in-play hexes joined to ``start`` through hexes of its terrain."""
        if not self.in_play(start):
            return []
        t = self.hexes[start].terrain
        seen = {start}
        todo = [start]
        while todo:
            h = todo.pop()
            for n in h.neighbours():
                if n not in seen and self.in_play(n) and self.hexes[n].terrain == t:
                    seen.add(n)
                    todo.append(n)
        return sorted(seen)


KEPT_MARK = "# -- comments from inside this map, kept when the editor rewrote it (their places are not) --"


def _comment_of(line: str) -> str | None:
    """The comment on a line (from '#' outside a "string"), or None."""
    quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and quoted:
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[i:]
        i += 1
    return None


def map_header_and_titles(text: str, shown: str) -> tuple[str, str, dict[str, str]]:
    """Leading comment lines, the map title and area titles of a map file.

    The editor rewrites a map in canonical form, which has no place for
    comments inside it; so that none is lost, those comments join the header
    under KEPT_MARK (an end-of-line comment with the first word of its line)."""
    lines = text.split("\n")
    header = []
    for line in lines:
        s = line.strip()
        if s == "" or s.startswith("#"):
            header.append(line + "\n")
        else:
            break
    kept = []
    for line in lines[len(header):]:
        c = _comment_of(line)
        if c is None:
            continue
        s = line.strip()
        if s.startswith("#"):
            if s != KEPT_MARK:
                kept.append(s)
        else:
            kept.append(f"# ({s.split()[0]}) {c.lstrip('#').strip()}")
    if kept:
        if not any(h.strip() == KEPT_MARK for h in header):
            header.append(KEPT_MARK + "\n")
        header.extend(k + "\n" for k in kept)
    # blank lines that precede nothing belong to the body; keep the comments
    title, titles = "", {}
    try:
        f = parse(text, shown)
    except DslError:
        return "".join(header), title, titles
    for e in f.entries:
        kw = getattr(e, "keyword", None)
        if kw == "map" and len(e.args) > 1 and e.args[1].quoted:
            title = e.args[1].text
        elif kw == "area" and len(e.args) > 1 and e.args[1].quoted and not e.args[0].quoted:
            titles[e.args[0].text] = e.args[1].text
    return "".join(header), title, titles


def recovery_root() -> Path:
    env = os.environ.get("HEXFORGE_RECOVERY_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hexforge" / "recovery"


class GameDocument:
    """A game folder open in the editor (or a new game not saved yet)."""

    def __init__(self) -> None:
        self.folder: Path | None = None  # the real game folder
        self.game_name = "new-game"  # the game folder's name
        self.files: dict[str, FileBuffer] = {}
        self.renamed: dict[str, str] = {}  # shown names before Save As -> after
        self.entry = ""  # display path of game.hxr
        self.map_shown = ""  # display path of the map file ("" when the game names none)
        self.map: MapModel | None = None
        self.map_problems: list[Diagnostic] = []
        self.map_loaded_state: tuple | None = None
        self.map_text_at_load = ""
        self.snapshot = Snapshot()
        self._last_read: Snapshot | None = None  # the last snapshot read without a syntax error
        self.closed = False
        self.unchecked = False  # opened without compiling: the window compiles in the background
        self.showing_last_read: Diagnostic | None = None  # the syntax error while the views show _last_read
        self.game: D.GameDefinition | None = None  # the last game that compiled
        self.diagnostics: list[Diagnostic] = []
        self.sources: dict[str, str] = {}
        self.text_listeners: list[Callable[[str], None]] = []
        self.refresh_listeners: list[Callable[[], None]] = []
        self.typing = False  # set while the rules pane reports typing
        self._stale = False  # texts changed since the snapshot was read
        self._mirror_dir = Path(tempfile.mkdtemp(prefix="hexforge-editor-"))
        self._mirrored: dict[str, str] = {}
        self._mirrored_map_rev = -1
        self._stamp = time.time_ns()

    # -- opening ---------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, check: bool = True) -> "GameDocument":
        """``check=False``: read the game but leave compiling it to the
        caller (the editor's window compiles off the GUI thread)."""
        p = Path(path).resolve()
        folder = p.parent if p.is_file() else p
        if not (folder / "game.hxr").is_file():
            why = "no game.hxr in this folder" if not p.is_file() else "no game.hxr beside it" \
                if p.suffix == ".hxr" else ""
            raise LoadError(f"{path}: {why}", why) if why else \
                LoadError(f"{path} is not a rules file (.hxr): give a game folder, or its game.hxr")
        doc = cls()
        doc.folder = folder
        doc.game_name = folder.name
        library = folder.parent
        doc.entry = f"{folder.name}/game.hxr"
        first = read_snapshot(folder)  # which files the game reads
        shown = set(first.sources) | {doc.entry}
        for s in sorted(shown):
            try:
                data = (library / s).read_bytes()
            except OSError as e:
                raise LoadError(f"cannot read {s}: {e.strerror}") from e
            doc.files[s] = FileBuffer.from_bytes(s, data)
        doc._find_map(first)
        doc.refresh(check=check)
        doc.unchecked = not check
        return doc

    @classmethod
    def new(cls, game_id: str = "new-game", title: str = "New game", cols: int = 16, rows: int = 12,
            sides: tuple[str, str] = ("blue", "red")) -> "GameDocument":
        """A new game not saved yet: the same small, playable game as
        ``hexforge new`` (dsl/scaffold.py)."""
        from dsl.scaffold import NewGame, game_files

        texts = game_files(NewGame(game_id, title, cols, rows, sides))
        doc = cls()
        doc.game_name = game_id
        doc.entry = f"{game_id}/game.hxr"
        doc.files[doc.entry] = FileBuffer(doc.entry, b"", texts["game.hxr"])
        doc.map_shown = f"{game_id}/map.hxm"
        doc.files[doc.map_shown] = FileBuffer(doc.map_shown, b"", texts["map.hxm"])
        doc.refresh()
        doc.map_loaded_state = None  # never saved: always written
        return doc

    def _find_map(self, snap: Snapshot) -> None:
        if snap.map_file:
            shown = f"{self.game_name}/{snap.map_file}"
            self.map_shown = os.path.normpath(shown)
            if self.map_shown not in self.files and self.folder is not None:
                p = self.folder.parent / self.map_shown
                if p.is_file():
                    self.files[self.map_shown] = FileBuffer.from_bytes(self.map_shown, p.read_bytes())

    @property
    def art_dir(self) -> Path | None:
        """Where the game's art is: the real game folder (the rules are
        compiled from a private copy of the texts, which holds no images)."""
        return self.folder

    def art_path(self, rel: str) -> Path | None:
        """An art file's path, if it is one inside the game folder."""
        if not rel or self.folder is None:
            return None
        p = (self.folder / rel).resolve()
        try:
            p.relative_to(self.folder.resolve())
        except ValueError:
            return None
        return p if p.is_file() else None

    def import_art(self, source: str | Path) -> str:
        """Copy an image into the game folder's art/ (unless it is already in
        the game folder); return its path relative to the game folder."""
        from dsl.art import IMAGE_SUFFIXES

        if self.folder is None:
            raise EditError("save the game into a folder first: art is kept in the game folder")
        src = Path(source).resolve()
        if src.suffix.lower() not in IMAGE_SUFFIXES:
            raise EditError(f"{src.name} is not an image: use a .png, .svg or .jpg file")
        if not src.is_file():
            raise EditError(f"{src} is not a file")
        base = self.folder.resolve()
        try:
            return src.relative_to(base).as_posix()
        except ValueError:
            pass
        dest = base / "art" / src.name
        dest.parent.mkdir(exist_ok=True)
        if dest.exists() and dest.read_bytes() != src.read_bytes():
            stem, n = dest.stem, 2
            while dest.exists():
                dest = base / "art" / f"{stem}-{n}{dest.suffix}"
                n += 1
        if not dest.exists():
            shutil.copyfile(src, dest)
        return dest.relative_to(base).as_posix()

    @property
    def library(self) -> Path | None:
        return self.folder.parent if self.folder else None

    @property
    def title(self) -> str:
        return self.snapshot.title or self.game_name

    # -- the mirror and the compiler ----------------------------------------
    def _mirror_path(self, shown: str) -> Path:
        return self._mirror_dir / shown

    def _write_mirror(self, shown: str, data: bytes) -> None:
        p = self._mirror_path(shown)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        # the loader caches parses by (path, size, mtime): give every write
        # its own mtime so that a same-size edit is never taken for the old one
        self._stamp = max(self._stamp + 1000, time.time_ns())
        os.utime(p, ns=(self._stamp, self._stamp))

    def sync_mirror(self) -> None:
        for shown, buf in self.files.items():
            if shown == self.map_shown and self.map is not None:
                continue
            if not buf.readable:
                if shown not in self._mirrored:
                    self._write_mirror(shown, buf.saved)
                    self._mirrored[shown] = ""
                continue
            if self._mirrored.get(shown) != buf.text:
                self._write_mirror(shown, buf.encode())
                self._mirrored[shown] = buf.text
        if self.map is not None and self.map_shown and self._mirrored_map_rev != self.map.revision:
            self._write_mirror(self.map_shown, self.map.text().encode("utf-8"))
            self._mirrored_map_rev = self.map.revision

    def _pull_missing(self, snap: Snapshot) -> bool:
        """Files the mirror lacks (a new import): copy them in from the library."""
        added = False
        lib = self.library
        if lib is None:
            return False
        for d in snap.problems:
            if d.code == "file" and d.message.startswith("no such file: "):
                s = d.message[len("no such file: "):]
                if s not in self.files and (lib / s).is_file():
                    self.files[s] = FileBuffer.from_bytes(s, (lib / s).read_bytes())
                    added = True
        return added

    def refresh(self, check: bool = True) -> None:
        """Re-read the texts (snapshot), load the map if it is not loaded,
        and compile: after any text change.  ``check=False`` leaves the
        compiling to the caller (the window runs it off the GUI thread:
        :meth:`check_job`, :meth:`take_check`)."""
        self._stale = False
        self.sync_mirror()
        game_dir = self._mirror_dir / self.game_name
        snap = read_snapshot(game_dir)
        if self._pull_missing(snap):
            self.sync_mirror()
            snap = read_snapshot(game_dir)
        errors = [d for d in snap.problems if d.severity == "error"]
        if errors and self._last_read is not None:
            # a syntax error: the views keep the last version that read (the
            # map, counters, scenario and turn track do not blank out); the
            # banner and the Diagnostics say why
            self.snapshot = self._last_read
            self.showing_last_read = errors[0]
        else:
            self.snapshot = snap
            self.showing_last_read = None
            if not errors:
                self._last_read = snap
        if self.map is None and not self.map_shown:
            self._find_map(snap)
            if self.map_shown:
                self.sync_mirror()
        if self.map is None and self.map_shown and self.map_shown in self.files:
            self._load_map()
        if check:
            self.check()
        for f in list(self.refresh_listeners):
            f()

    def _load_map(self) -> None:
        buf = self.files[self.map_shown]
        m, problems = read_map(self._mirror_path(self.map_shown), self._mirror_dir, self.snapshot)
        # (an area with no hexes, a supply source out of play: mended here, so the map loads; check says what is wrong)
        self.map_problems = [d for d in problems if d.severity == "error" and d.code != MAP_MENDS]
        if m is None or self.map_problems:
            return
        header, title, titles = map_header_and_titles(buf.text, self.map_shown)
        self.map = MapModel.from_mapdef(m, title, header, titles)
        self.map_loaded_state = self.map.state()
        self.map_text_at_load = buf.text
        self._mirrored_map_rev = self.map.revision

    @property
    def map_editable(self) -> bool:
        return self.map is not None

    def check(self, variants: bool = False) -> list[Diagnostic]:
        """Compile the mirror with the real compiler; keep the diagnostics
        (and the game, when it compiles).  ``variants``: as ``hexforge check``,
        each variant too."""
        from dsl.compiler import check_game, compile_game

        self.sync_mirror()
        game_dir = self._mirror_dir / self.game_name
        if variants:
            game, diags, sources = check_game(game_dir, art_dir=self.art_dir)
            self.diagnostics = list(diags.items)
            self.sources = sources
            if game is not None:
                self.game = game
            return self.diagnostics
        try:
            self.game = compile_game(game_dir, art_dir=self.art_dir)
            self.diagnostics = []
            self.sources = {}
        except DslError as e:
            self.diagnostics = list(e.diagnostics)
            self.sources = e.sources
        return self.diagnostics

    def check_job(self) -> tuple[int, Callable[[], tuple]]:
        """A compile of the texts as they stand, to run on another thread:
        (the texts' revision, a function returning (game, diagnostics,
        sources)).  The function reads a private copy of the mirror, so
        typing meanwhile cannot tear what it reads."""
        self.sync_mirror()
        rev = self._stamp
        copy = Path(tempfile.mkdtemp(prefix="hexforge-check-"))
        shutil.copytree(self._mirror_dir, copy, dirs_exist_ok=True)
        game_dir = copy / self.game_name
        art_dir = self.art_dir

        def run() -> tuple:
            from dsl.compiler import compile_game

            try:
                return compile_game(game_dir, art_dir=art_dir), [], {}
            except DslError as e:
                return None, list(e.diagnostics), e.sources
            finally:
                shutil.rmtree(copy, ignore_errors=True)
        return rev, run

    def take_check(self, rev: int, result: tuple) -> bool:
        """Keep a background compile's result if the texts did not change
        since it started; False when it is stale (start another)."""
        if rev != self._stamp or self._stale:
            return False
        game, diags, sources = result
        self.unchecked = False
        if game is not None:
            self.game = game
        self.diagnostics, self.sources = diags, sources
        return True

    # -- text edits ---------------------------------------------------------------
    def text(self, shown: str) -> str:
        if shown == self.map_shown and self.map is not None and self.map_dirty:
            return self.map.text()
        return self.files[shown].text

    def editable_text(self, shown: str) -> bool:
        b = self.files.get(shown)
        return b is not None and b.readable and not (shown == self.map_shown and self.map is not None)

    def set_text(self, shown: str, text: str) -> None:
        shown = self.renamed.get(shown, shown)
        buf = self.files[shown]
        if buf.text == text:
            return
        buf.text = text
        self._stale = True
        for f in list(self.text_listeners):
            f(shown)

    def apply_edits(self, edits: dict[str, list[T.Edit]]) -> dict[str, list[T.Edit]]:
        """Apply edits to several files; return the edits that undo them."""
        undo = {}
        for shown, es in edits.items():
            shown = self.renamed.get(shown, shown)  # an undo step recorded before Save As
            old = self.files[shown].text
            undo[shown] = T.invert_edits(old, es)
            self.set_text(shown, T.apply_edits(old, es))
        return undo

    # -- the game's id -----------------------------------------------------------
    def game_id(self) -> str:
        st = T.top(self._parsed(self.entry), "game")
        return st.args[0].text if st is not None and st.args else ""

    def game_id_edits(self, new_id: str) -> tuple[dict[str, list[T.Edit]], list]:
        """Text edits that rename the game (``game ID``) and, when the map
        carries the same id, the map changes that rename it (``map ID``): the
        id token only, nothing else moves."""
        from dsl.scaffold import ID_RE

        if not ID_RE.match(new_id):
            raise EditError(f"'{new_id}' is not a game id: use letters, digits, - and _, starting with a letter")
        st = T.top(self._parsed(self.entry), "game")
        if st is None or not st.args:
            raise EditError(f"{self.entry} has no game statement")
        old = st.args[0].text
        edits: dict[str, list[T.Edit]] = {}
        map_changes: list = []

        def token(shown: str, arg) -> None:
            lines = T.Lines(self.files[shown].text)
            a = lines.offset(arg.span.line, arg.span.col)
            edits.setdefault(shown, []).append((a, a + len(arg.text), new_id))

        token(self.entry, st.args[0])
        if self.map is not None and self.map.name == old:
            map_changes.append((("meta", "name"), new_id))
        elif self.map_shown in self.files and self.editable_text(self.map_shown):
            m = T.top(self._parsed(self.map_shown), "map")
            if m is not None and m.args and m.args[0].text == old:
                token(self.map_shown, m.args[0])
        return edits, map_changes

    # -- counters ---------------------------------------------------------------
    def _fresh(self) -> None:
        """Edits are computed from the snapshot's line numbers: re-read first
        if the text changed since.  While a syntax error keeps the views on the
        last version that read, those line numbers are not the texts' (an edit
        would rewrite another row): EditError until the error is mended."""
        if self._stale:
            self.refresh()
        if self.showing_last_read is not None:
            raise EditError(f"{self.showing_last_read.span or 'the rules'}: a syntax error: the views show the "
                            "last version that read; mend it in the rules text before editing counters or set-ups")

    def _parsed(self, shown: str):
        try:
            return parse(self.files[shown].text, shown)
        except DslError as e:
            raise EditError(f"{shown} has a syntax error; fix it in the rules text first") from e

    @staticmethod
    def cell_for(column: str, value: str) -> str:
        return T.cell(value, quoted=(column == "name"))

    def counter_edits(self, cid: str, changes: dict[str, str]) -> dict[str, list[T.Edit]]:
        """Edits that change counter ``cid``'s fields (columns of its table;
        a field the table has no column for gets a column when it differs
        from the group's default).  A changed id is changed in setups too."""
        self._fresh()
        snap = self.snapshot
        c = snap.counters.get(cid)
        if c is None:
            raise EditError(f"no counter {cid}")
        new_id = changes.get("id", cid).strip()
        if new_id != cid:
            if not new_id or not T.ATOM.fullmatch(new_id):
                raise EditError(f"'{new_id}' is not a valid counter id")
            if new_id in snap.counters:
                raise EditError(f"there is already a counter {new_id}")
        f = self._parsed(c.file)
        ref = T.find_row(f, c.line)
        if ref is None:
            raise EditError(f"counter {cid}'s row was not found in {c.file}")
        group = snap.groups.get(c.group)
        defaults = group.defaults if group else {}
        cols = ref.columns
        cells = T.row_cells(ref)
        cells += ["-"] * (len(cols) - len(cells))
        extra = []
        for k, v in changes.items():
            if k not in COUNTER_COLUMNS:
                raise EditError(f"counters have no field '{k}'")
            if k in cols:
                cells[cols.index(k)] = self.cell_for(k, v)
            elif v.strip() != defaults.get(k, "").strip() and not (v.strip() in ("", "-") and not defaults.get(k)):
                extra.append(k)
        edits: dict[str, list[T.Edit]] = {}
        text = self.files[c.file].text
        if not extra:
            edits[c.file] = [T.replace_row(text, ref, cells)]
        else:
            new_cols = list(cols)
            for k in extra:
                order = COUNTER_COLUMNS.index(k)
                pos = next((i for i, x in enumerate(new_cols) if x in COUNTER_COLUMNS
                            and COUNTER_COLUMNS.index(x) > order and i > 0), len(new_cols))
                new_cols.insert(pos, k)
            rows = [new_cols]
            for r in ref.table.rows[1:]:
                old = [T.quote(a.text) if a.quoted else a.text for a in r.cells]
                old += ["-"] * (len(cols) - len(old))
                vals = dict(zip(cols, old))
                if r.span.line == ref.row.span.line:
                    vals = dict(zip(cols, cells))
                    for k in extra:
                        vals[k] = self.cell_for(k, changes[k])
                else:
                    for k in extra:
                        vals[k] = self.cell_for(k, defaults.get(k, ""))
                rows.append([vals[k] for k in new_cols])
            edits[c.file] = T.rewrite_table(text, ref.table, rows)
        if new_id != cid:
            for file, file_edits in self._references_edits(cid, new_id).items():
                for e in file_edits:
                    if e not in edits.setdefault(file, []):
                        edits[file].append(e)
            for sc in snap.scenarios.values():
                p = sc.placements.get(cid)
                if p is None:
                    continue
                pf = self._parsed(p.file)
                pref = T.find_row(pf, p.line)
                if pref is None:
                    continue
                pc = T.row_cells(pref)
                pc[0] = new_id
                e = T.replace_row(self.files[p.file].text, pref, pc)
                if e not in edits.setdefault(p.file, []):
                    edits[p.file].append(e)
        return edits

    def _references_edits(self, cid: str, new_id: str) -> dict[str, list[T.Edit]]:
        """Edits that rename counter ``cid`` where the rules name it besides the
        setups: a chit's ``hq`` cell, and a name in an expression (``on-map(7Pz)``)."""
        return self.rename_edits(cid, new_id, cells={"chits": "hq"})

    def area_rename(self, old: str, new: str) -> tuple[list, dict[str, list[T.Edit]]]:
        """Renaming a map area: the map changes (its hexes move to the new
        name) and the rules edits: a setup's ``at`` cell, a scenario's
        ``control SIDE AREA``, a phase's ``at AREA`` and a name in an
        expression (``controls(axis, moscow)``)."""
        m = self.map
        if m is None or old not in m.areas:
            raise EditError(f"there is no area {old}")
        if not T.ATOM.fullmatch(new or "") or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_\-.]*", new):
            raise EditError(f"'{new}' is not a valid area name")
        if new in m.areas:
            raise EditError(f"there is already an area {new}")
        if not _EXPRESSION_NAME.fullmatch(new) or new in _EXPRESSION_WORDS:
            quoted = re.compile(rf"[(,]\s*{re.escape(old)}\s*[),]")  # (a name in an expression: held(moscow))
            if any(quoted.search(f.text) for name, f in self.files.items() if name.endswith(".hxr")):
                raise EditError(f"'{new}' cannot stand in an expression, and the rules name {old} in one: use "
                                "letters, digits and _, joined by single hyphens, not and, or, not, in, true, false")
        hexes = sorted(m.areas[old], key=m.grid.to_colrow)
        changes = [(("area-def", new), m.area_titles.get(old, ""))] + [(("area", new, h), True) for h in hexes] + \
            [(("area", old, h), False) for h in hexes] + [(("area-def", old), None)]
        return changes, self.area_references(old, new)

    def area_references(self, old: str, new: str) -> dict[str, list[T.Edit]]:
        """Edits that rename area ``old`` where the rules files name it: a
        setup's ``at`` cell, ``control SIDE AREA``, a phase's ``at AREA``, a
        name in an expression."""
        return self.rename_edits(old, new, cells={"setup": "at"}, args={"control": 1, "at": 0})

    def rename_edits(self, old: str, new: str, cells: dict[str, str],
                     args: dict[str, int] | None = None) -> dict[str, list[T.Edit]]:
        """Edits that rename ``old`` in the rules files: the cells of column
        ``cells[KEYWORD]`` in the tables of KEYWORD statements (the row
        re-aligned), the argument ``args[KEYWORD]`` of KEYWORD statements, and
        every name in an expression.  A file with a syntax error is left as
        it is (its diagnostics say why)."""
        out: dict[str, list[T.Edit]] = {}
        for file, buf in self.files.items():
            if not file.endswith(".hxr"):
                continue
            try:
                f = parse(buf.text, file)
            except DslError:
                continue
            lines = T.Lines(buf.text)
            edits: list[T.Edit] = []

            def at(line: int, col: int) -> None:
                start = lines.start(line) + col - 1
                if buf.text[start:start + len(old)] == old:  # the name as written there
                    edits.append((start, start + len(old), new))

            for st, table in T.walk(f.entries):
                column = cells.get(st.keyword) if st is not None else None
                names = [c.text for c in table.rows[0].cells] if table.rows else []
                if column not in names:
                    continue
                i = names.index(column)
                for r in table.rows[1:]:
                    if len(r.cells) > i and r.cells[i].text == old and not r.cells[i].quoted:
                        ref = T.find_row(f, r.span.line)
                        row = T.row_cells(ref)
                        row[i] = new
                        edits.append(T.replace_row(buf.text, ref, row))
            for st in _statements(f.entries):
                k = (args or {}).get(st.keyword)
                if k is not None and len(st.args) > k and st.args[k].text == old and not st.args[k].quoted:
                    at(st.args[k].span.line, st.args[k].span.col)
            for e in _expressions(f.entries):
                for node in walk_expr(e):
                    if isinstance(node, Name) and node.name == old:
                        sp = Span.parse(node.where)
                        if sp is not None and sp.file == file:
                            at(sp.line, sp.col)
            if edits:
                out[file] = list(dict.fromkeys(edits))
        return out

    def new_counter_edits(self, template: str, new_id: str | None = None) -> tuple[str, dict[str, list[T.Edit]]]:
        """A copy of counter ``template`` with a fresh id, on the row after it."""
        self._fresh()
        snap = self.snapshot
        c = snap.counters.get(template)
        if c is None:
            raise EditError(f"no counter {template}")
        new_id = new_id or self.fresh_id(template)
        if new_id in snap.counters:
            raise EditError(f"there is already a counter {new_id}")
        f = self._parsed(c.file)
        ref = T.find_row(f, c.line)
        if ref is None:
            raise EditError(f"counter {template}'s row was not found")
        cells = T.row_cells(ref)
        cells[0] = new_id
        if "name" in ref.columns:
            cells[ref.columns.index("name")] = "-"
        return new_id, {c.file: [T.insert_row_after(self.files[c.file].text, ref.header, ref.row.span.line, cells)]}

    def add_counter_edits(self, group: str, new_id: str | None = None) -> tuple[str, dict[str, list[T.Edit]]]:
        """A new counter at the end of a group's table, with the group's
        first class and factors of 1."""
        self._fresh()
        snap = self.snapshot
        g = snap.groups.get(group)
        if g is None:
            raise EditError(f"no counter group {group}")
        f = self._parsed(g.file)
        st = T.top(f, "counters", group)
        tb = next((e for e in (st.body or ()) if hasattr(e, "rows")), None) if st else None
        if tb is None or not tb.rows:
            raise EditError(f"counters {group} has no table")
        cols = [a.text for a in tb.rows[0].cells]
        cls = g.defaults.get("class") or next(iter(snap.classes), "")
        nfac = len(snap.classes[cls].factors) if cls in snap.classes else 1
        new_id = new_id or self.fresh_id("new")
        vals = {"id": new_id, "class": cls, "full": "-".join(["1"] * nfac),
                "side": g.defaults.get("side") or next(iter(snap.sides), "")}
        cells = [vals.get(col, "-") for col in cols]
        last = tb.rows[-1].span.line
        return new_id, {g.file: [T.insert_row_after(self.files[g.file].text, tb.rows[0], last, cells)]}

    def delete_counter_edits(self, cid: str) -> dict[str, list[T.Edit]]:
        self._fresh()
        snap = self.snapshot
        c = snap.counters.get(cid)
        if c is None:
            raise EditError(f"no counter {cid}")
        edits: dict[str, list[T.Edit]] = {c.file: [T.delete_line(self.files[c.file].text, c.line)]}
        for sc in snap.scenarios.values():
            p = sc.placements.get(cid)
            if p is not None:
                e = T.delete_line(self.files[p.file].text, p.line)
                if e not in edits.setdefault(p.file, []):
                    edits[p.file].append(e)
        return edits

    def fresh_id(self, base: str) -> str:
        i = 2
        while f"{base}-{i}" in self.snapshot.counters:
            i += 1
        return f"{base}-{i}"

    # -- scenario setup -------------------------------------------------------------
    def placement_edits(self, scenario: str, cid: str, at: str | None) -> dict[str, list[T.Edit]]:
        """Edits that set up counter ``cid`` at ``at`` (a hex id, area, pool or
        ``turn:N``) in a scenario, or take it out of the setup (``None``)."""
        self._fresh()
        snap = self.snapshot
        sc = snap.scenarios.get(scenario)
        if sc is None:
            raise EditError(f"no scenario {scenario}")
        if cid not in snap.counters:
            raise EditError(f"no counter {cid}")
        p = sc.placements.get(cid)
        f = self._parsed(sc.file)
        st = T.top(f, "scenario", scenario)
        if st is None:
            raise EditError(f"scenario {scenario} was not found in {sc.file}")
        text = self.files[sc.file].text
        end_line = st.end.line if st.end else st.span.line
        own = p is not None and p.file == sc.file and st.span.line <= p.line <= end_line
        if p is not None and own:
            if at is None:
                return {sc.file: [T.delete_line(text, p.line)]}
            ref = T.find_row(f, p.line)
            cells = T.row_cells(ref)
            cells[ref.columns.index("at")] = T.cell(at)
            return {sc.file: [T.replace_row(text, ref, cells)]}
        if at is None:
            if p is None:
                return {}
            raise EditError(f"{cid} is set up by the scenario that {scenario} extends; take it out there")
        tables = [e for s in (st.body or ()) if getattr(s, "keyword", "") == "setup"
                  for e in (s.body or ()) if hasattr(e, "rows") and e.rows]
        tables = [t for t in tables if "at" in [a.text for a in t.rows[0].cells]]
        if tables:
            tb = tables[-1]
            cols = [a.text for a in tb.rows[0].cells]
            cells = ["-"] * len(cols)
            cells[0] = cid
            cells[cols.index("at")] = T.cell(at)
            return {sc.file: [T.insert_row_after(text, tb.rows[0], tb.rows[-1].span.line, cells)]}
        if st.end is None:
            raise EditError(f"scenario {scenario} has no block to add a setup to")
        lines = T.Lines(text)
        close = lines.line(st.end.line)
        base = lines.line(st.span.line)
        indent = base[:len(base) - len(base.lstrip())] + "  "
        block = T.table_lines(indent + "    ", [["counter", "at"], [cid, T.cell(at)]])
        new = [f"{indent}setup {{", f"{indent}  table {{", *block, f"{indent}  }}", f"{indent}}}"]
        if close[:st.end.col - 1].strip() == "":
            pos = lines.start(st.end.line)
            return {sc.file: [(pos, pos, "\n".join(new) + "\n")]}
        pos = lines.offset(st.end.line, st.end.col)
        return {sc.file: [(pos, pos, "\n" + "\n".join(new) + "\n")]}

    def placements(self, scenario: str) -> dict[str, str]:
        sc = self.snapshot.scenarios.get(scenario)
        return {k: p.at for k, p in sc.placements.items()} if sc else {}

    # -- dirty state and saving -----------------------------------------------------
    @property
    def map_dirty(self) -> bool:
        if self.map is None:
            return False
        if self.map_loaded_state is None:
            return True
        return self.map.state() != self.map_loaded_state

    def dirty_files(self) -> list[str]:
        out = []
        for shown, buf in self.files.items():
            if shown == self.map_shown and self.map is not None:
                if self.map_dirty or (self.folder is None) or buf.dirty:
                    out.append(shown)
            elif buf.dirty or (self.folder is None and buf.readable):
                out.append(shown)
        return out

    @property
    def dirty(self) -> bool:
        return bool(self.dirty_files())

    def _content(self, shown: str) -> bytes:
        buf = self.files[shown]
        if shown == self.map_shown and self.map is not None and (self.map_dirty or self.folder is None):
            return buf.encode(self.map.text())
        return buf.encode()

    def changed_on_disk(self) -> list[str]:
        """Files whose bytes on disk are no longer what was loaded or saved."""
        out = []
        lib = self.library
        if lib is None:
            return out
        for shown, buf in self.files.items():
            p = lib / shown
            try:
                if p.read_bytes() != buf.saved:
                    out.append(shown)
            except FileNotFoundError:
                if buf.saved:
                    out.append(shown)
        return out

    def disk_paths(self) -> dict[Path, str]:
        """The files on disk this game reads: {path: shown name}."""
        lib = self.library
        return {} if lib is None else {lib / shown: shown for shown in self.files}

    def reload_from_disk(self, shown: str) -> bool:
        """Read ``shown`` again from disk (another program changed it); its
        unsaved edits are dropped.  False when it cannot be read now."""
        lib = self.library
        if lib is None or shown not in self.files:
            return False
        try:
            data = (lib / shown).read_bytes()
        except OSError:
            return False
        buf = FileBuffer.from_bytes(shown, data)
        self.files[shown] = buf
        self._mirrored.pop(shown, None)
        if shown == self.map_shown and self.map is not None:
            self._write_mirror(shown, data)
            m, problems = read_map(self._mirror_path(shown), self._mirror_dir, self.snapshot)
            if m is not None and not [d for d in problems if d.severity == "error"]:
                header, title, titles = map_header_and_titles(buf.text, shown)
                self.map.set_state(MapModel.from_mapdef(m, title, header, titles).state())
                self.map.revision += 1
                self.map.notify(None)
                self.map_loaded_state = self.map.state()
                self.map_text_at_load = buf.text
            self._mirrored_map_rev = -1
        for f in list(self.text_listeners):
            f(shown)
        self.refresh()
        return True

    def save(self, force: bool = False) -> list[str]:
        """Write every changed file (temp file + rename); return what was
        written.  Refuses (EditError) when a file changed on disk since it
        was loaded, unless ``force``."""
        if self.folder is None:
            raise EditError("this game has no folder yet: use save_as")
        todo = self.dirty_files()
        if not force:
            clash = [s for s in self.changed_on_disk() if s in todo]
            if clash:
                raise EditError("changed on disk since it was opened: " + ", ".join(clash))
        lib = self.library
        written = []
        contents = {shown: self._content(shown) for shown in todo}
        atomic_write_all([(lib / shown, data) for shown, data in contents.items()])  # all or nothing
        for shown, data in contents.items():
            buf = self.files[shown]
            buf.saved = data
            if shown == self.map_shown and self.map is not None:
                buf.text = FileBuffer.from_bytes(shown, data).text
                self.map_loaded_state = self.map.state()
            written.append(shown)
        self.discard_recovery()
        return written

    def save_as(self, folder: str | Path) -> list[str]:
        """Save a new game into ``folder`` (its name becomes the game folder's)."""
        folder = Path(folder).resolve()
        if (folder / "game.hxr").exists():
            raise EditError(f"{folder} already holds a game")
        old_name = self.game_name
        new_name = folder.name
        renamed: dict[str, FileBuffer] = {}
        for shown, buf in self.files.items():
            if not shown.startswith(old_name + "/"):
                raise EditError("only a new game can be saved to another folder")
            s = new_name + shown[len(old_name):]
            buf.shown = s
            renamed[s] = buf
            self.renamed[shown] = s
            for before, after in list(self.renamed.items()):
                if after == shown:
                    self.renamed[before] = s
        self.files = renamed
        self.entry = new_name + self.entry[len(old_name):]
        if self.map_shown:
            self.map_shown = new_name + self.map_shown[len(old_name):]
        self.game_name = new_name
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._mirrored.clear()
        self._mirrored_map_rev = -1
        for buf in self.files.values():
            buf.saved = b"\x00unsaved"
        written = self.save(force=True)
        self.refresh()
        return written

    # -- autosave and recovery ---------------------------------------------------
    def recovery_file(self) -> Path:
        key = str(self.folder) if self.folder else "untitled"
        return recovery_root() / (hashlib.sha1(key.encode()).hexdigest()[:16] + ".json")

    recovery_problem = ""  # set when a recovery file was unreadable and set aside

    def autosave(self) -> Path | None:
        """Write the unsaved texts to the recovery folder (nothing if clean)."""
        dirty = self.dirty_files()
        if not dirty:
            self.discard_recovery()
            return None
        files = {}
        for shown in dirty:
            buf = self.files[shown]
            if shown == self.map_shown and self.map is not None:
                files[shown] = self.map.text()
            else:
                files[shown] = buf.text
        data = {"game": str(self.folder) if self.folder else None, "name": self.game_name,
                "time": time.time(), "files": files}
        p = self.recovery_file()
        atomic_write(p, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))
        return p

    def pending_recovery(self) -> dict | None:
        """The unsaved texts a crashed session left for this game, or None.
        A recovery file that cannot be read is set aside (renamed, kept) and
        ``recovery_problem`` says so: it never stops the game from opening."""
        p = self.recovery_file()
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as e:
            return self._set_aside(p, str(e))
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as e:
            return self._set_aside(p, f"not JSON ({str(e)[:80]})")
        if not isinstance(data, dict):
            return self._set_aside(p, "not a recovery file")
        if data.get("game") != (str(self.folder) if self.folder else None):
            return None  # another game's (two folders whose names hash alike): leave it
        files = data.get("files")
        if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in files.items()):
            return self._set_aside(p, "its \"files\" are not texts")
        when = data.get("time", 0)
        if not isinstance(when, (int, float)) or isinstance(when, bool) or not 0 <= when < 2 ** 40:
            return self._set_aside(p, "its \"time\" is not a time")
        return data

    def _set_aside(self, p: Path, why: str) -> None:
        aside = p.with_name(f"{p.stem}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}{p.suffix}")
        try:
            p.replace(aside)
            self.recovery_problem = (f"The unsaved changes kept after a crash could not be read ({why}); "
                                     f"the file was set aside as {aside} and the game opened as saved.")
        except OSError as e:
            self.recovery_problem = (f"The unsaved changes kept after a crash could not be read ({why}), "
                                     f"nor set aside ({e}); the game opened as saved.")
        return None

    def recover(self) -> list[str]:
        """Put the recovered texts back (unsaved); return the files recovered."""
        data = self.pending_recovery()
        if not data:
            return []
        done = []
        map_text = None
        for shown, text in data.get("files", {}).items():
            if shown not in self.files:
                continue
            if shown == self.map_shown:
                map_text = text
                continue
            self.set_text(shown, text)
            done.append(shown)
        if map_text is not None:
            self.refresh()  # the rules first: the map refers to their terrain
            self._write_mirror(self.map_shown, map_text.encode("utf-8"))
            m, problems = read_map(self._mirror_path(self.map_shown), self._mirror_dir, self.snapshot)
            if m is not None and not [d for d in problems if d.severity == "error"]:
                header, title, titles = map_header_and_titles(map_text, self.map_shown)
                fresh = MapModel.from_mapdef(m, title, header, titles)
                if self.map is None:
                    self.map = fresh
                    self.map_loaded_state = None
                else:
                    self.map.set_state(fresh.state())
                    self.map.revision += 1
                    self.map.notify(None)
                self._mirrored_map_rev = -1
                done.append(self.map_shown)
        self.refresh()
        return done

    def discard_recovery(self) -> None:
        try:
            self.recovery_file().unlink()
        except FileNotFoundError:
            pass

    def close(self) -> None:
        self.closed = True
        shutil.rmtree(self._mirror_dir, ignore_errors=True)

    # -- names ------------------------------------------------------------------
    def definition(self, name: str) -> Span | None:
        """Where ``name`` is declared (a statement, a counter, an area)."""
        spans = self.snapshot.declarations.get(name)
        if spans:
            return spans[0]
        if self.map is not None and name in self.map.areas and self.map_shown:
            text = self.text(self.map_shown)
            for i, line in enumerate(text.split("\n"), 1):
                if line.startswith(f"area {name} ") or line == f"area {name}":
                    return Span(self.map_shown, i, 6, i, 6 + len(name))
        return None
