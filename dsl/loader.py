"""Reading game files: imports, the game folder boundary, and merging.

A game is a folder holding ``game.hxr``.  ``import "../gekitou/system.hxr"``
brings in another file; a path is resolved from the importing file and must
stay inside the *library*: the folder that holds the game folder (so games
of one series can share a system folder beside them), never above it.

Merging: imported entries come first, then the importing file's.  Declaring
the same thing twice is an error unless the later one says ``override``; an
override merges into what it names (see ``merge_into``).  Variants are named
blocks whose bodies are merged the same way when the variant is switched on.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from .ast import Arg, Entry, File, Row, Statement, Table
from .diagnostics import Diagnostics, DslError, Span, did_you_mean
from .parser import parse

MAX_FILE_BYTES = 8 * 1024 * 1024
GAME_FILE = "game.hxr"
RULES_SUFFIX = ".hxr"
MAP_SUFFIX = ".hxm"

# Top-level statements and how they are keyed for duplicate checks and
# overrides: "named" (keyword + name), "single" (one per game), "many"
# (repeatable, never merged).
TOP_LEVEL: dict[str, str] = {
    "import": "many",
    "game": "single",
    "system": "single",
    "dice": "single",
    "side": "named",
    "nationality": "named",
    "unit-class": "named",
    "terrain": "named",
    "feature": "named",
    "hexside": "named",
    "link": "named",
    "terrain-effects": "single",
    "results": "named",
    "crt": "named",
    "die-table": "named",
    "counters": "named",
    "chits": "single",
    "pool": "named",
    "weather": "named",
    "event": "named",
    "turn-track": "single",
    "sequence": "single",
    "stacking": "single",
    "movement": "single",
    "movement-mode": "named",
    "zoc": "single",
    "supply": "single",
    "retreat": "single",
    "advance": "single",
    "combat": "single",
    "activation": "single",
    "reinforcements": "single",
    "arrival": "named",
    "withdrawal": "named",
    "battle-option": "named",
    "fire-attack": "named",
    "dice-pool": "single",
    "outcome": "named",
    "rebuild": "named",
    "control": "single",
    "modifier": "many",
    "define": "many",
    "victory": "named",
    "marker": "named",
    "attachment": "named",
    "hidden": "single",
    "variable": "named",
    "trigger": "named",
    "scenario": "named",
    "variant": "named",
}


@dataclass
class Source:
    """Every file read, by display path, with its text (for carets)."""

    root: Path
    texts: dict[str, str] = field(default_factory=dict)

    def display(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)


# Parsed files are immutable, so they are shared between compilations (a
# check compiles the game once per variant): keyed by path, size and mtime.
_PARSED: dict[tuple[Path, int, int], tuple[str, File]] = {}


def find_game_file(path: Path) -> Path:
    if path.is_dir():
        return path / GAME_FILE
    return path


def _not_a_file(mode: int) -> str:
    """What a non-regular file is, in a user's words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_text(path: Path, src: Source, diags: Diagnostics, at: Span | None) -> str | None:
    """The text of a game file.  Only regular files are opened (a pipe or a
    device would block or never end), without blocking and checked again
    once open, so a file swapped for a pipe in between cannot hang us."""
    shown = src.display(path)
    fd = -1
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISREG(mode):
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
            mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            diags.error("file", f"{shown} is {_not_a_file(mode)}, not a file", at,
                        "rules and maps are text files (.hxr, .hxm)")
            return None
        if os.fstat(fd).st_size > MAX_FILE_BYTES:
            diags.error("file", f"{shown} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB", at)
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1
            data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            diags.error("file", f"{shown} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB", at)
            return None
    except FileNotFoundError:
        diags.error("file", f"no such file: {shown}", at)
        return None
    except OSError as e:
        diags.error("file", f"cannot read {shown}: {e.strerror}", at)
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        head = data[: e.start]
        line = head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1  # as the parser counts
        diags.error("file", "the file is not UTF-8 text", Span(shown, line, 1),
                    "save it as UTF-8")
        return None
    src.texts[shown] = text
    return text


def parse_file(path: Path, src: Source, diags: Diagnostics, at: Span | None) -> File | None:
    """Read and parse one file, reusing an earlier parse of the same bytes."""
    shown = src.display(path)
    try:
        st = path.stat()
        key: tuple[Path, int, int] | None = (path, st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    hit = _PARSED.get(key) if key else None
    if hit is not None and hit[1].path == shown:
        src.texts[shown] = hit[0]
        return hit[1]
    text = read_text(path, src, diags, at)
    if text is None:
        return None
    try:
        f = parse(text, shown)
    except DslError as e:
        diags.items.extend(e.diagnostics)
        return None
    if key:
        if len(_PARSED) > 64:
            _PARSED.clear()
        _PARSED[key] = (text, f)
    return f


class Loader:
    def __init__(self, game_path: Path):
        game_path = game_path.resolve()
        self.entry_file = find_game_file(game_path)
        self.game_dir = self.entry_file.parent
        self.art_dir = self.game_dir  # where counter faces and map backgrounds are looked up
        self.library = self.game_dir.parent
        self.src = Source(self.library)
        self.diags = Diagnostics()
        self.parsed: dict[Path, File] = {}

    def game_place(self, p: Path) -> bool:
        """Whether ``p`` (resolved) lies under the game folder or under a
        series folder beside it: a folder of the library, none of its
        folders hidden (``../.ssh`` is not a series folder)."""
        try:
            parts = p.relative_to(self.library).parts
        except ValueError:
            return False
        if len(parts) < 2:
            return False
        return not any(part.startswith(".") for part in parts if part != self.game_dir.name)

    def load_file(self, path: Path, stack: tuple[Path, ...], at: Span | None) -> list[Entry]:
        """Entries of ``path`` with its imports spliced in, imports first."""
        if path in stack:
            chain = " -> ".join(self.src.display(p) for p in stack[stack.index(path):] + (path,))
            self.diags.error("import-cycle", f"import cycle: {chain}", at,
                             "a file may not import itself, directly or through others")
            return []
        if path in self.parsed:  # imported twice (diamond): include once
            return []
        f = parse_file(path, self.src, self.diags, at)
        if f is None:
            return []
        self.parsed[path] = f
        out: list[Entry] = []
        for entry in f.entries:
            if isinstance(entry, Statement) and entry.keyword == "import" and not entry.body:
                out.extend(self.import_(entry, path, stack + (path,)))
            else:
                out.append(entry)
        return out

    def import_(self, st: Statement, importer: Path, stack: tuple[Path, ...]) -> list[Entry]:
        if len(st.args) != 1 or not st.args[0].quoted:
            self.diags.error("import", "import takes one quoted path", st.span,
                             'write: import "../gekitou/system.hxr"')
            return []
        rel = st.args[0].text
        if rel.startswith("/") or "\\" in rel or ":" in rel:
            self.diags.error("import", f"import path '{rel}' must be relative, with '/' separators",
                             st.args[0].span)
            return []
        target = (importer.parent / rel).resolve()
        if not self.game_place(target):
            self.diags.error("import-outside", f"import '{rel}' leaves the game library",
                             st.args[0].span,
                             f"imports may reach the game folder and series folders beside it "
                             f"(under {self.library.name}/) only")
            return []
        if target.suffix != RULES_SUFFIX:  # checked on the file a link leads to, too
            self.diags.error("import-kind", f"import '{rel}' is not a rules file: imports read {RULES_SUFFIX} files",
                             st.args[0].span, "a game's rules are .hxr files; its map is named by 'map' (.hxm)")
            return []
        return self.load_file(target, stack, st.args[0].span)

    def _series_hint(self) -> str:
        """A series folder (rules files, no game.hxr): name the games beside it that import it."""
        folder = self.game_dir
        if self.entry_file.name != GAME_FILE or not folder.is_dir() or not any(folder.glob(f"*{RULES_SUFFIX}")):
            return ""
        users = sorted(d.name for d in folder.parent.iterdir()
                       if (d / GAME_FILE).is_file() and f"../{folder.name}/" in (d / GAME_FILE).read_text(
                           encoding="utf-8", errors="replace"))
        what = (f"{users[0]} imports it: check that game" if len(users) == 1 else
                f"{', '.join(users)} import it: check one of them" if users else "no game beside it imports it")
        return f"{folder.name} is a series folder (rules shared by several games, no {GAME_FILE}); {what}"

    def load(self) -> list[Entry]:
        if self.entry_file.suffix != RULES_SUFFIX:
            self.diags.error("file", f"{self.entry_file.name} is not a rules file ({RULES_SUFFIX})", None,
                             "give a game folder, or its game.hxr")
            return []
        if not self.entry_file.exists():
            self.diags.error("file", f"no {GAME_FILE} in {self.src.display(self.game_dir)}"
                             if self.entry_file.name == GAME_FILE else
                             f"no such file: {self.entry_file}", None,
                             self._series_hint() or "a game folder holds game.hxr, which imports the rest")
            return []
        return self.load_file(self.entry_file, (), None)


# ------------------------------------------------------------------ merging

def top_key(st: Statement) -> tuple[str, ...]:
    mode = TOP_LEVEL.get(st.keyword, "named")
    if mode == "single":
        return (st.keyword,)
    if mode == "many":
        return (st.keyword, f"@{id(st)}")
    return (st.keyword, st.name or "")


def merge_entries(entries: list[Entry], diags: Diagnostics) -> list[Entry]:
    """Apply duplicate checks and overrides, keeping first-declared order."""
    out: list[Entry] = []
    index: dict[tuple[str, ...], int] = {}
    for e in entries:
        if isinstance(e, Table):
            diags.error("table-place", "a table must stand inside a block", e.span,
                        "put it in the block it belongs to, e.g. crt NAME { table { ... } }")
            continue
        key = top_key(e)
        if e.override:
            if TOP_LEVEL.get(e.keyword) == "many":
                diags.error("override-many", f"'{e.keyword}' statements cannot be overridden", e.span,
                            f"several {e.keyword} statements may stand side by side: write the new one")
                continue
            if key not in index:
                what = " ".join(key)
                diags.error("override-missing", f"'override {what}' names nothing declared before it", e.span,
                            "an override must come after (or import) what it changes")
                continue
            i = index[key]
            out[i] = merge_into(out[i], e, diags)
            continue
        if key in index:
            first = out[index[key]]
            assert isinstance(first, Statement)
            diags.error("duplicate", f"{' '.join(k for k in key if not k.startswith('@'))} is declared twice",
                        e.span, f"first declared at {first.span}; write 'override' to change it")
            continue
        index[key] = len(out)
        out.append(e)
    return out


def _entry_key(e: Entry) -> tuple[str, ...]:
    if isinstance(e, Table):
        return ("table",)
    if e.body is not None:
        return (e.keyword, e.name or "")
    return (e.keyword,)


def merge_into(base: Statement, over: Statement, diags: Diagnostics) -> Statement:
    """Merge ``over`` into ``base``: arguments given replace base's; leaf
    statements replace all of base's with the same keyword; blocks merge by
    keyword and name; tables merge row by row on their first column."""
    args = over.args if len(over.args) > 1 else base.args
    body = base.body
    if over.body is not None:
        merged: list[Entry] = list(base.body or ())
        replaced: set[tuple[str, ...]] = set()
        for e in over.body:
            k = _entry_key(e)
            positions = [i for i, b in enumerate(merged) if _entry_key(b) == k]
            if isinstance(e, Table):
                if positions:
                    t = merged[positions[0]]
                    assert isinstance(t, Table)
                    merged[positions[0]] = merge_tables(t, e, diags)
                else:
                    merged.append(e)
            elif e.body is not None:
                if positions:
                    b = merged[positions[0]]
                    assert isinstance(b, Statement)
                    merged[positions[0]] = merge_into(b, e, diags)
                else:
                    merged.append(e)
            else:
                if k not in replaced and positions:
                    first = positions[0]
                    merged = [b for i, b in enumerate(merged) if i not in positions]
                    merged.insert(first, e)
                    replaced.add(k)
                else:
                    merged.append(e)
                    replaced.add(k)
        body = tuple(merged)
    cond = over.condition if over.condition is not None else base.condition
    value = over.value if over.value is not None else base.value
    return replace(base, args=args, body=body, condition=cond, value=value, override=False)


def merge_tables(base: Table, over: Table, diags: Diagnostics) -> Table:
    if not base.rows or not over.rows:
        return over if over.rows else base
    bh = [c.text for c in base.rows[0].cells]
    oh = over.rows[0].cells
    if not oh or oh[0].text != bh[0]:
        diags.error("override-table", f"an overriding table must start with the key column '{bh[0]}'",
                    oh[0].span if oh else over.span)
        return base
    cols = []
    for c in oh:
        if c.text not in bh:
            diags.error("override-table", f"column '{c.text}' is not in the table it overrides", c.span,
                        did_you_mean(c.text, bh))
            return base
        cols.append(bh.index(c.text))
    rows = list(base.rows)
    keys = {r.cells[0].text: i for i, r in enumerate(rows) if r.cells and i > 0}
    for r in over.rows[1:]:
        if len(r.cells) != len(oh):
            diags.error("table-width", f"this row has {len(r.cells)} cells, the header {len(oh)}", r.span)
            continue
        key = r.cells[0].text
        if key in keys:
            old = list(rows[keys[key]].cells)
            for j, c in zip(cols, r.cells):
                if j < len(old):
                    old[j] = c
            rows[keys[key]] = Row(tuple(old), r.span)
        elif len(oh) == len(bh):
            keys[key] = len(rows)
            rows.append(Row(tuple(r.cells[cols.index(j)] for j in range(len(bh))), r.span))
        else:
            diags.error("override-table", f"row '{key}' is new, so it needs every column", r.span)
    return Table(tuple(rows), base.span)


def resolve_extends(entries: list[Entry], diags: Diagnostics) -> list[Entry]:
    """``extends NAME`` inside a named block: start from the block of the same
    kind called NAME and merge this one over it (as an override would), so a
    full game can reuse the short game's setup and VP rules."""
    named = {(e.keyword, e.name): e for e in entries if isinstance(e, Statement) and e.body is not None}
    done: dict[tuple[str, str | None], Statement] = {}

    def resolved(st: Statement, chain: tuple[str, ...]) -> Statement:
        key = (st.keyword, st.name)
        if key in done:
            return done[key]
        ext = [e for e in st.body or () if isinstance(e, Statement) and e.keyword == "extends"]
        if not ext:
            done[key] = st
            return st
        first = ext[0]
        for extra in ext[1:]:
            diags.error("duplicate", "a block extends only one other", extra.span)
        target = first.args[0].text if len(first.args) == 1 else ""
        if not target:
            diags.error("arguments", "extends takes the name of a block of the same kind", first.span,
                        f"write: extends NAME (another {st.keyword})")
            return st
        if target in chain or target == st.name:
            diags.error("extends-cycle", f"{st.keyword} {st.name} extends itself: "
                        f"{' -> '.join(chain + (st.name or '', target))}", first.args[0].span)
            return st
        base = named.get((st.keyword, target))
        if base is None:
            others = [n for (k, n) in named if k == st.keyword and n]
            diags.error("unknown-name", f"there is no {st.keyword} '{target}' to extend", first.args[0].span,
                        did_you_mean(target, others))
            return st
        base = resolved(base, chain + (st.name or "",))
        own = replace(st, body=tuple(e for e in st.body or () if e is not first))
        merged = merge_into(replace(base, args=st.args, span=st.span), own, diags)
        done[key] = merged
        return merged

    return [resolved(e, ()) if isinstance(e, Statement) and e.body is not None else e for e in entries]


def apply_variants(entries: list[Entry], variants: list[str], diags: Diagnostics,
                   at: Span | None = None) -> list[Entry]:
    """Splice the bodies of the chosen variants after the game's entries."""
    by_name = {e.name: e for e in entries if isinstance(e, Statement) and e.keyword == "variant"}
    extra: list[Entry] = []
    for v in variants:
        st = by_name.get(v)
        if st is None:
            diags.error("variant", f"no variant named '{v}'", at, did_you_mean(v, [n for n in by_name if n]))
            continue
        for e in st.body or ():
            if isinstance(e, Statement) and e.keyword in ("kind", "note", "conflicts"):
                continue
            extra.append(e)
    return entries + extra


def args_text(args: tuple[Arg, ...]) -> str:
    return " ".join(a.text for a in args)
