"""The documentation's examples stay true.

Every fenced block tagged ``hxr`` or ``hxm`` in docs/*.md must parse.  Words
after the language say what more is checked:

    ```hxr                   parses (syntax, fragments, planned constructs)
    ```hxr planned           parses; the construct is not in the compiler yet
    ```hxr compile           a complete game.hxr (no map): it compiles
    ```hxr prelude           the reference's prelude: a complete game that compiles
    ```hxr with-prelude      compiles once appended to the same file's prelude
    ```hxr example=NAME      an excerpt of docs/examples/NAME/ (lines in order;
    ```hxm example=NAME      a line "# ..." skips lines), and that folder compiles

"Compiles" means dsl.compiler.check_game finds no error, with every variant
the game declares switched on in turn.
"""
from __future__ import annotations

import re
import textwrap
from functools import lru_cache
from pathlib import Path

import pytest

from dsl.compiler import check_game
from dsl.diagnostics import DslError
from dsl.parser import parse

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
LANGS = ("hxr", "hxm")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")


class Block:
    def __init__(self, doc: Path, index: int, line: int, lang: str, words: list[str], text: str):
        self.doc, self.index, self.line, self.lang, self.words, self.text = doc, index, line, lang, words, text

    @property
    def id(self) -> str:
        return f"{self.doc.name}#{self.index}@L{self.line}"

    @property
    def example(self) -> str | None:
        for w in self.words:
            if w.startswith("example="):
                return w.split("=", 1)[1]
        return None


def blocks_of(doc: Path) -> list[Block]:
    """The hxr/hxm fenced blocks of a Markdown file, in order."""
    out: list[Block] = []
    lines = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").split()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence[0] * len(fence))
                                      and set(lines[i].strip()) == {fence[0]}):
            body.append(lines[i])
            i += 1
        i += 1
        if info and info[0] in LANGS:
            out.append(Block(doc, len(out), start + 1, info[0], info[1:],
                             textwrap.dedent("\n".join(body)) + "\n"))
    return out


DOC_FILES = sorted(DOCS.glob("*.md"))
BLOCKS = [b for d in DOC_FILES for b in blocks_of(d)]


def _compile_folder(folder: Path) -> None:
    """No error but "cannot-run": a game whose sequence the engine cannot run
    yet (docs/examples/prokhorovka) is refused by check with that reason, and
    its excerpts still show valid constructs."""
    game, diags, sources = check_game(folder)
    errors = [d for d in diags.items if d.severity == "error" and d.code != "cannot-run"]
    problems = "\n".join(d.format(sources) for d in errors)
    assert not errors, f"{folder} does not compile:\n{problems}"


def _compile_text(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "lib" / "doc"
    folder.mkdir(parents=True)
    (folder / "game.hxr").write_text(text, encoding="utf-8")
    _compile_folder(folder)


def _prelude(doc: Path) -> str:
    found = [b for b in blocks_of(doc) if "prelude" in b.words]
    assert len(found) == 1, f"{doc.name} has {len(found)} 'hxr prelude' blocks; 'with-prelude' needs exactly one"
    return found[0].text


@lru_cache(maxsize=None)
def _example_compiles(name: str) -> None:
    _compile_folder(EXAMPLES / name)


def _normalised(text: str) -> list[str]:
    """Lines without blank ones; indentation is ignored (excerpts are dedented)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def _is_excerpt(block: str, files: list[str]) -> bool:
    """The block's lines occur in one file in order; "# ..." skips lines;
    lines between two skips are consecutive in the file."""
    chunks: list[list[str]] = [[]]
    for line in _normalised(block):
        if line == "# ...":
            chunks.append([])
        else:
            chunks[-1].append(line)
    chunks = [c for c in chunks if c]
    for text in files:
        lines = _normalised(text)
        pos, ok = 0, True
        for chunk in chunks:
            n = len(chunk)
            at = next((i for i in range(pos, len(lines) - n + 1) if lines[i:i + n] == chunk), None)
            if at is None:
                ok = False
                break
            pos = at + n
        if ok:
            return True
    return False


def test_the_docs_have_examples():
    names = {d.name for d in DOC_FILES}
    assert {"dsl.md", "tutorial-port-a-game.md"} <= names
    assert len(BLOCKS) >= 20


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_parses(block: Block):
    try:
        parse(block.text, f"{block.doc.name}:{block.line}")
    except DslError as e:
        pytest.fail(f"{block.id} does not parse:\n{e.format()}")


CHECKED = [b for b in BLOCKS if {"compile", "prelude", "with-prelude"} & set(b.words) or b.example]


@pytest.mark.parametrize("block", CHECKED, ids=[b.id for b in CHECKED])
def test_block_compiles(block: Block, tmp_path: Path):
    if block.example:
        folder = EXAMPLES / block.example
        assert folder.is_dir(), f"{block.id}: no folder docs/examples/{block.example}"
        files = [p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()) if p.suffix in (".hxr", ".hxm")]
        assert _is_excerpt(block.text, files), \
            f"{block.id} is not an excerpt of docs/examples/{block.example}: copy it from there again"
        _example_compiles(block.example)
    elif "with-prelude" in block.words:
        _compile_text(tmp_path, _prelude(block.doc) + "\n" + block.text)
    else:
        _compile_text(tmp_path, block.text)


EXAMPLE_DIRS = sorted(p.name for p in EXAMPLES.iterdir() if (p / "game.hxr").exists()) if EXAMPLES.exists() else []


@pytest.mark.parametrize("name", EXAMPLE_DIRS)
def test_example_game_compiles(name: str):
    _example_compiles(name)


def test_excerpt_matching():
    files = ["a 1\n  b 2\n\n  c 3\nd 4\n"]
    assert _is_excerpt("  b 2\n  c 3\n", files)
    assert _is_excerpt("b 2\nc 3\n", files)
    assert not _is_excerpt("b  2\n", files)
    assert _is_excerpt("a 1\n# ...\nd 4\n", files)
    assert not _is_excerpt("a 1\n  c 3\n", files)
    assert not _is_excerpt("d 4\n# ...\na 1\n", files)


# ------------------------------------------------------------------ shown command output
# A fenced block whose first line is "$ .venv/bin/hexforge ..." shows commands
# and what they print: each "$ " line is run from the project folder and the
# lines after it must be its output (standard output and error, as a terminal
# shows them); a line "..." stands for any number of lines.  A block that shows
# a diagnostic of a broken file is reproduced by putting the source line it
# shows into that file, at that line, in a copy of games/ and docs/examples/.
# Commands on a game folder the repository does not hold (the tutorial's
# games/avd, which its reader builds) are not run.

CONSOLE_DOCS = [ROOT / "README.md", *DOC_FILES]
DIAG = re.compile(r"^(?P<file>[\w./-]+\.hx[rm]):(?P<line>\d+):(?P<col>\d+): (error|warning): ")


class Console:
    def __init__(self, doc: Path, line: int, text: str):
        self.doc, self.line, self.text = doc, line, text

    @property
    def id(self) -> str:
        return f"{self.doc.name}@L{self.line}"

    def commands(self) -> list[tuple[list[str], list[str]]]:
        out: list[tuple[list[str], list[str]]] = []
        for line in self.text.splitlines():
            if line.startswith("$ "):
                import shlex
                out.append((shlex.split(line[2:])[1:], []))
            elif out:
                out[-1][1].append(line.rstrip())
        return out


def consoles_of(doc: Path) -> list[Console]:
    found = []
    lines = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, start, body = m.group("fence"), i, []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence) and set(lines[i].strip()) == {fence[0]}):
            body.append(lines[i])
            i += 1
        i += 1
        if body and body[0].startswith("$ .venv/bin/hexforge "):
            found.append(Console(doc, start + 1, "\n".join(body)))
    return found


CONSOLES = [c for d in CONSOLE_DOCS for c in consoles_of(d)]


def shown_matches(expected: list[str], actual: list[str]) -> bool:
    """``expected`` equals ``actual``, where a line "..." stands for any lines."""
    chunks: list[list[str]] = [[]]
    for line in expected:
        if line == "...":
            chunks.append([])
        else:
            chunks[-1].append(line)
    first, last = chunks[0], chunks[-1]
    if len(chunks) == 1:
        return expected == actual
    if actual[:len(first)] != first or (last and actual[len(actual) - len(last):] != last):
        return False
    pos, end = len(first), len(actual) - len(last)
    for chunk in chunks[1:-1]:
        n = len(chunk)
        at = next((k for k in range(pos, end - n + 1) if actual[k:k + n] == chunk), None)
        if at is None:
            return False
        pos = at + n
    return pos <= end


def run_hexforge(args: list[str], cwd: Path) -> list[str]:
    """Run ``hexforge ARGS`` in this process from ``cwd``: its output lines."""
    import contextlib
    import io
    import os

    from editor.cli import main

    buf = io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                main(args)
            except SystemExit:
                pass
    finally:
        os.chdir(old)
    return [line.rstrip() for line in buf.getvalue().splitlines()]


def _broken_copy(tmp_path: Path, game_arg: str, shown: list[str]) -> Path:
    """A copy of the project's games and examples with the source line of
    the first diagnostic shown put at its place; the folder to run from."""
    import shutil

    shutil.copytree(ROOT / "games", tmp_path / "games")
    shutil.copytree(EXAMPLES, tmp_path / "docs" / "examples")
    for k, line in enumerate(shown):
        m = DIAG.match(line)
        if m and k + 1 < len(shown) and shown[k + 1].startswith("    "):
            library = (tmp_path / game_arg).parent
            target = library / m.group("file")
            lines = target.read_text(encoding="utf-8").split("\n")
            lines[int(m.group("line")) - 1] = shown[k + 1][4:]
            target.write_text("\n".join(lines), encoding="utf-8")
            break
    return tmp_path


def test_the_docs_show_commands():
    assert len(CONSOLES) >= 5


@pytest.mark.parametrize("console", CONSOLES, ids=[c.id for c in CONSOLES])
def test_shown_output_is_real(console: Console, tmp_path: Path):
    ran = 0
    for args, shown in console.commands():
        game = next((a for a in args[1:] if not a.startswith("-")), "")
        if game and not (ROOT / game).exists():
            continue
        broken = any(DIAG.match(line) for line in shown)
        cwd = _broken_copy(tmp_path, game, shown) if broken else ROOT
        actual = run_hexforge(args, cwd)
        assert shown_matches(shown, actual), \
            f"{console.id}: `hexforge {' '.join(args)}` prints:\n" + "\n".join(actual)
        ran += 1
    if not ran:
        pytest.skip("every command here runs on a game folder the reader builds")


def test_shown_matches():
    assert shown_matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert shown_matches(["a", "...", "c", "...", "e"], ["a", "b", "c", "d", "e"])
    assert shown_matches(["...", "z"], ["y", "z"]) and shown_matches(["a", "..."], ["a"])
    assert not shown_matches(["a", "...", "d"], ["a", "b", "c"])
    assert not shown_matches(["a", "b"], ["a", "b", "c"])
