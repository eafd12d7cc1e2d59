"""Issue 11, inputs: game files are untrusted.  Starting hexforge runs no
code from a file another user could write; imports and maps read game files
only; broken or hostile input gives a located ``file:line:col: error`` fast,
never a traceback or a hang."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import MINI_GAME, ROOT, make_game


# ------------------------------------------------------------ the parser ships as code, reads no cache

def test_the_shipped_parser_is_the_one_the_grammar_gives():
    """dsl/hxr_parser.py is generated from dsl/hxr.lark (make parser): a grammar
    edited without regenerating it fails here."""
    from dsl.parser_gen import MODULE, generate

    assert MODULE.read_text(encoding="utf-8") == generate(), \
        "dsl/hxr_parser.py is out of date with dsl/hxr.lark: run `make parser`"


def test_compiling_a_game_reads_no_pickle_and_needs_no_lark():
    """No cache file is unpickled (Lark's cache lived in the shared temp folder,
    where anyone can plant one): with pickle disabled a game compiles, and the
    Lark package is not even imported."""
    code = (
        "import pickle, sys\n"
        "def refuse(*a, **k): raise AssertionError('unpickling')\n"
        "pickle.load = pickle.loads = refuse\n"
        "sys.modules['lark'] = None  # importing lark now fails\n"
        "from dsl.compiler import compile_game\n"
        "compile_game(sys.argv[1])\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(ROOT / "games" / "smolensk")], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"



# ------------------------------------------------------------ imports and maps read game files only

def _errors(folder):
    from dsl.compiler import check_game

    _, diags, sources = check_game(folder)
    return [d for d in diags.items if d.severity == "error"], sources


def test_an_import_of_a_file_that_is_not_a_rules_file_is_refused_and_never_quoted(tmp_path):
    secret = "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t"
    (tmp_path / "lib" / ".ssh").mkdir(parents=True)
    (tmp_path / "lib" / ".ssh" / "id_rsa").write_text(secret + "\n")
    (tmp_path / "lib" / "notes").mkdir()
    (tmp_path / "lib" / "notes" / "id_rsa").write_text(secret + "\n")
    (tmp_path / "lib" / "notes" / "key.hxr").symlink_to(tmp_path / "lib" / "notes" / "id_rsa")
    for rel, code in (("../.ssh/id_rsa", "import-outside"), ("../notes/id_rsa", "import-kind"),
                      ("../notes/key.hxr", "import-kind")):
        folder = make_game(tmp_path, f'import "{rel}"\n' + MINI_GAME)
        errs, sources = _errors(folder)
        assert [d.code for d in errs] == [code], rel
        assert (errs[0].span.file, errs[0].span.line, errs[0].span.col) == ("mini/game.hxr", 1, 8)
        shown = "\n".join(d.format(sources) for d in errs)
        assert "s3cr3t" not in shown and "s3cr3t" not in "".join(sources.values())


def test_imports_reach_series_folders_beside_the_game_but_not_the_library_root(tmp_path):
    folder = make_game(tmp_path, 'import "../series/extra.hxr"\n' + MINI_GAME,
                       extra={"series/extra.hxr": "define two = 2\n"})
    errs, _ = _errors(folder)
    assert errs == []
    (tmp_path / "lib" / "loose.hxr").write_text("define two = 2\n")
    folder = make_game(tmp_path, 'import "../loose.hxr"\n' + MINI_GAME)
    errs, _ = _errors(folder)
    assert [d.code for d in errs] == ["import-outside"]


def test_a_map_must_be_a_map_file(tmp_path):
    folder = make_game(tmp_path, MINI_GAME.replace('map "map.hxm"', 'map "notes.txt"'),
                       extra={"mini/notes.txt": "secret line\n"})
    errs, sources = _errors(folder)
    assert [d.code for d in errs] == ["map-kind"]
    assert "secret line" not in "\n".join(d.format(sources) for d in errs)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("which", ["import", "map"])
def test_a_fifo_as_import_or_map_is_refused_without_opening_it(tmp_path, which):
    """A pipe nobody writes to would block an open() or read() forever."""
    if which == "import":
        folder = make_game(tmp_path, 'import "pipe.hxr"\n' + MINI_GAME)
        os.mkfifo(folder / "pipe.hxr")
    else:
        folder = make_game(tmp_path, MINI_GAME, map_text=None)
        os.mkfifo(folder / "map.hxm")
    code = ("import sys\nfrom dsl.compiler import check_game\n"
            "_, d, s = check_game(sys.argv[1])\nprint('\\n'.join(x.format(s) for x in d.items))\n")
    r = subprocess.run([sys.executable, "-c", code, str(folder)], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    name = "pipe.hxr" if which == "import" else "map.hxm"
    assert f"error: mini/{name} is a pipe (FIFO), not a file" in r.stdout
    line = "1:8" if which == "import" else "1:24"
    assert f"mini/game.hxr:{line}" in r.stdout


def test_a_folder_or_device_as_import_is_refused(tmp_path):
    folder = make_game(tmp_path, 'import "sub.hxr"\nimport "../../../../../../../dev/null"\n' + MINI_GAME)
    (folder / "sub.hxr").mkdir()
    errs, _ = _errors(folder)
    assert [d.code for d in errs] == ["file", "import-outside"]
    assert "sub.hxr is a folder, not a file" in errs[0].message
    from dsl.loader import Source, read_text
    from dsl.diagnostics import Diagnostics

    d = Diagnostics()
    assert read_text(Path("/dev/zero"), Source(Path("/")), d, None) is None
    assert "is a device, not a file" in d.items[0].message


# ------------------------------------------------------------ malformed text: a located error, fast

def _syntax(text):
    from dsl.diagnostics import DslError
    from dsl.parser import parse

    with pytest.raises(DslError) as e:
        parse(text, "f.hxr")
    (d,) = e.value.diagnostics
    return d, e.value


@pytest.mark.parametrize("ch", ["\u2028", "\u2029", "\x85", "\x0b", "\x1c", "\x1d", "\x1e"])
@pytest.mark.parametrize("where", ['side a "A"{}', "side a {}b", "{}x = 1", "side a\n{}"])
def test_line_separators_str_splitlines_knows_are_located_errors(ch, where):
    """str.splitlines breaks lines at these; the parser does not: both count
    lines the same way (dsl.diagnostics.source_lines), so the line quoted is
    the line the error is on."""
    text = where.format(ch) + "\nside b\n"
    d, err = _syntax(text)
    assert d.message == f"unexpected character U+{ord(ch):04X} ({__import__('unicodedata').name(ch, 'a control character')})"
    line, col = next((i + 1, row.index(ch) + 1) for i, row in enumerate(text.split("\n")) if ch in row)
    assert (d.span.line, d.span.col) == (line, col)
    shown = err.format().split("\n")
    assert shown[1] == "    " + text.split("\n")[line - 1].replace(ch, " ")
    assert shown[2] == "    " + " " * (col - 1) + "^"


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"])
def test_any_line_ending_is_read_and_positions_stay_right(tmp_path, newline):
    from dsl.compiler import compile_game
    from dsl.diagnostics import DslError

    game = MINI_GAME.replace("\n", newline)
    folder = make_game(tmp_path, "")
    (folder / "game.hxr").write_bytes(game.encode())
    assert compile_game(folder).sides
    (folder / "game.hxr").write_bytes(("side x\n\nsidee y\n" + MINI_GAME).replace("\n", newline).encode())
    with pytest.raises(DslError) as e:
        compile_game(folder)
    d = e.value.diagnostics[0]
    assert (d.span.line, d.span.col) == (3, 1)
    assert e.value.format().split("\n")[1] == "    sidee y"


@pytest.mark.parametrize("text", [
    "define x = " + "9" * 5000,
    "define x = 1 + " + "9" * 31 + ".5",
    "counters c {\n  table {\n    id  attack\n    A1  " + "7" * 4400 + "\n  }\n}",
    "side a " + "1" * 40,
])
def test_a_huge_number_is_a_located_error(text):
    d, _ = _syntax(text + "\n")
    assert d.message == "number too large"
    line = next(i + 1 for i, row in enumerate(text.split("\n")) if "9" * 31 in row or "7" * 31 in row
                or "1" * 31 in row)
    assert d.span.line == line and d.span.col == text.split("\n")[line - 1].index(text.split("\n")[line - 1]
                                                                                 .split()[-1][:1] * 31) + 1


def test_thirty_digits_still_read():
    from dsl.parser import parse

    f = parse("define x = " + "9" * 30 + "\n", "f.hxr")
    assert f.entries[0].value.value == int("9" * 30)


@pytest.mark.parametrize("opener,closer", [("(", ")"), ("[", "]"), ("f(", ")")])
def test_brackets_count_towards_the_nesting_limit(opener, closer):
    from dsl.parser import MAX_DEPTH, parse

    ok = "define x = " + opener * (MAX_DEPTH - 5) + "1" + closer * (MAX_DEPTH - 5) + "\n"
    parse(ok, "f.hxr")
    deep = "define x = " + opener * (MAX_DEPTH + 1) + "1" + closer * (MAX_DEPTH + 1) + "\n"
    d, _ = _syntax(deep)
    assert d.message == f"nested more than {MAX_DEPTH} levels deep"
    assert d.span.line == 1 and d.span.col == 12 + len(opener) * MAX_DEPTH + len(opener) - 1


def test_brackets_in_strings_and_comments_do_not_count():
    from dsl.parser import MAX_DEPTH, parse

    parse('side a "' + "(" * (MAX_DEPTH + 5) + '"  # ' + "[" * (MAX_DEPTH + 5) + "\n", "f.hxr")


@pytest.mark.parametrize("line", [
    "define x = " + "(" * 100_000 + "1" + ")" * 100_000,
    "define x = f(" + ", ".join(["1"] * 1_000_000) + ")",
    "side a " + " ".join(["b"] * 1_000_000),
])
def test_a_line_with_a_million_arguments_is_refused_before_parsing(line):
    from dsl.parser import MAX_LINE_CHARS

    d, err = _syntax("side x\n" + line + "\n")
    assert (d.span.line, d.span.col) == (2, 1)
    assert d.message == f"this line is {len(line):,} characters long; the limit is {MAX_LINE_CHARS:,}"
    assert len(err.format()) < 300  # the line is not quoted


# ------------------------------------------------------------ defines and error storms stay fast

def _define_chain(n, params=False):
    if params:
        return "define d0(x) = x + 1\n" + "".join(f"define d{i}(x) = d{i - 1}(x) + d{i - 1}(x)\n"
                                                   for i in range(1, n + 1))
    return "define d0 = 1\n" + "".join(f"define d{i} = d{i - 1} + d{i - 1}\n" for i in range(1, n + 1))


def test_a_define_used_twice_by_the_next_is_shared_not_copied(tmp_path):
    """Each define is expanded once; uses share its tree (a DAG).  Twelve
    doublings stay under the limit and compile."""
    from dsl.compiler import compile_game
    from dsl.defines import MAX_TERMS
    from runtime import expr as E

    n = 12
    assert 2 ** (n + 1) - 1 <= MAX_TERMS
    folder = make_game(tmp_path, _define_chain(n) + MINI_GAME)
    compile_game(folder)
    from dsl.checker import Ctx
    from dsl.defines import expand_defines
    from dsl.diagnostics import Diagnostics
    from dsl.parser import parse

    f = parse(_define_chain(n) + "x y = d12\n", "f.hxr")
    sts, _ = expand_defines(Ctx(Diagnostics()), list(f.entries))
    value = sts[-1].value
    assert isinstance(value, E.Binary) and value.left is value.right  # shared, not copied
    assert E.evaluate(value, {}, budget=2 ** (n + 2)) == 2 ** n
    with pytest.raises(E.ExprError, match="step budget"):  # the evaluator still counts every visit
        E.evaluate(value, {}, budget=1000)


@pytest.mark.parametrize("params", [False, True])
def test_twenty_four_doubling_defines_give_one_located_error(tmp_path, params):
    from dsl.defines import MAX_TERMS

    folder = make_game(tmp_path, _define_chain(24, params) + MINI_GAME)
    errs, sources = _errors(folder)
    assert len(errs) == 1
    (d,) = errs
    assert d.code == "define-size" and d.message.endswith(f"expands to more than {MAX_TERMS:,} terms")
    name = d.message.split()[1]
    line = int(name[1:]) + 1
    assert (d.span.file, d.span.line, d.span.col) == ("mini/game.hxr", line, 8)


def test_defines_that_nest_calls_without_growing_are_bounded_too(tmp_path):
    """f(f(x)) chains build a tiny tree with an exponential amount of work:
    the expansion's step budget stops them."""
    text = "define f0(x) = x\n" + "".join(f"define f{i}(x) = f{i - 1}(f{i - 1}(x))\n" for i in range(1, 25))
    folder = make_game(tmp_path, text + MINI_GAME)
    errs, _ = _errors(folder)
    assert [d.code for d in errs] == ["define-size"]


def test_an_expression_using_big_defines_twice_is_located_at_the_expression():
    from dsl.checker import Ctx
    from dsl.defines import expand_defines
    from dsl.diagnostics import Diagnostics
    from dsl.parser import parse

    f = parse(_define_chain(12) + "x y = d12 + d12 + d12\n", "f.hxr")
    ctx = Ctx(Diagnostics())
    expand_defines(ctx, list(f.entries))
    (d,) = ctx.diags.items
    assert d.code == "define-size" and d.message.startswith("this expression expands")
    assert (d.span.line, d.span.col) == (14, 7)


def test_many_errors_are_listed_fifty_then_counted(tmp_path):
    from dsl.cli import _print_diagnostics
    from dsl.diagnostics import MAX_SHOWN
    import io

    body = "".join(f"sidee s{i}\n" for i in range(400))
    folder = make_game(tmp_path, MINI_GAME + body)
    errs, sources = _errors(folder)
    assert len(errs) == 400
    out = io.StringIO()
    _print_diagnostics(errs, sources, out=out)
    text = out.getvalue()
    assert text.count(": error: ") == MAX_SHOWN
    assert text.rstrip().endswith(f"... and {400 - MAX_SHOWN} more errors")
    assert f"game.hxr:{MINI_GAME.count(chr(10)) + 1}:1: error:" in text


# ------------------------------------------------------------ a bounded, seeded fuzz over these families

FUZZ_SEED = 11
FUZZ_CASES_PER_FAMILY = 25
ODD_CHARS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r", "\r\n", "\x00", "\ufeff",
             "\t", "\u00a0", "\u200b", "\x7f"]


def _fuzz_text(rng, family: str) -> str:
    """One hostile variant of the mini game, of the given family."""
    lines = MINI_GAME.split("\n")
    i = rng.randrange(len(lines))
    if family == "odd-characters":
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            k = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:k] + rng.choice(ODD_CHARS) + lines[i][k:]
        return "\n".join(lines)
    if family == "line-endings":
        return MINI_GAME.replace("\n", rng.choice(["\r", "\r\n", "\n\r", "\r\r\n"]))
    if family == "huge-numbers":
        digits = "".join(rng.choice("0123456789") for _ in range(rng.choice([29, 31, 300, 4301, 5000])))
        where = rng.choice(["define n = {} + 1", "define n = 1.{}", "x y = {}", "side s{}"])
        return MINI_GAME + where.format("7" + digits) + "\n"
    if family == "deep-nesting":
        depth = rng.choice([95, 101, 1000, 4000])
        o, c = rng.choice([("(", ")"), ("[", "]"), ("f(", ")"), ("-(", ")"), ("not (", ")")])
        return MINI_GAME + "define n = " + o * depth + "1" + c * rng.choice([depth, depth - 1, 0]) + "\n"
    if family == "long-lines":
        n = rng.choice([100, 5000, 200_000])
        what = rng.choice(["define n = f({})", "side s {}", "define n = [{}]"])
        sep = ", " if "(" in what or "[" in what else " "
        return MINI_GAME + what.format(sep.join(["1"] * n)) + "\n"
    if family == "defines":
        n = rng.randint(5, 30)
        op = rng.choice(["+", "*", "and", "or", ","])
        if op == ",":
            body = "".join(f"define d{k} = max(d{k - 1}, d{k - 1}, d{k - 1})\n" for k in range(1, n + 1))
        else:
            body = "".join(f"define d{k} = d{k - 1} {op} d{k - 1}\n" for k in range(1, n + 1))
        return "define d0 = 1\n" + body + MINI_GAME
    if family == "error-storms":
        return MINI_GAME + "".join(rng.choice(["sidee x\n", "side\n", "}\n", "x = = 1\n", "define\n"])
                                   for _ in range(rng.randint(10, 300)))
    raise AssertionError(family)


FUZZ_FAMILIES = ["odd-characters", "line-endings", "huge-numbers", "deep-nesting", "long-lines", "defines",
                 "error-storms", "imports"]


def _fuzz_imports(rng, tmp: Path) -> Path:
    """A game importing something it may not read: outside the library, not
    a rules file, hidden, a folder, a link to a secret, a missing file."""
    lib = tmp / "lib"
    (lib / ".hidden").mkdir(parents=True, exist_ok=True)
    (lib / ".hidden" / "x.hxr").write_text("define s = 1\n")
    (tmp / "secret.hxr").write_text("s3cr3t\n")
    (lib / "series").mkdir(exist_ok=True)
    (lib / "series" / "id_rsa").write_text("s3cr3t\n")
    link = lib / "series" / "link.hxr"
    if not link.is_symlink():
        link.symlink_to(lib / "series" / "id_rsa")
    (lib / "series" / "dir.hxr").mkdir(exist_ok=True)
    target = rng.choice(["../../secret.hxr", "../series/id_rsa", "../series/link.hxr", "../.hidden/x.hxr",
                         "../series/dir.hxr", "../series", "../series/none.hxr", "../../../../../../etc/passwd",
                         "/etc/passwd", "..\\\\x.hxr", "c:x.hxr", "../series/../../secret.hxr", ""])
    return make_game(tmp, f'import "{target}"\n' + MINI_GAME)


def test_seeded_fuzz_of_hostile_inputs_gives_located_errors(tmp_path):
    """FUZZ_CASES_PER_FAMILY cases of each family in FUZZ_FAMILIES (200 in
    all, seeded, a few seconds): every one compiles or gives diagnostics
    that are located in a game file, print without a traceback and never
    quote a file that is not a game file."""
    import random

    from dsl.compiler import check_game

    rng = random.Random(FUZZ_SEED)
    cases = 0
    for family in FUZZ_FAMILIES:
        for k in range(FUZZ_CASES_PER_FAMILY):
            case_dir = tmp_path / f"{family}-{k}"
            if family == "imports":
                folder = _fuzz_imports(rng, case_dir)
            else:
                folder = make_game(case_dir, "")
                (folder / "game.hxr").write_bytes(_fuzz_text(rng, family).encode("utf-8"))
            game, diags, sources = check_game(folder)
            cases += 1
            assert all(name.endswith((".hxr", ".hxm")) for name in sources), (family, k, list(sources))
            if game is not None and not diags.errors:
                continue
            assert diags.errors, (family, k)
            for d in diags.items:
                assert d.message, (family, k)
                if d.span is not None:
                    assert d.span.file.endswith((".hxr", ".hxm")) and d.span.line >= 1 and d.span.col >= 1, \
                        (family, k, d)
            from dsl.diagnostics import format_diagnostics
            shown = format_diagnostics(diags.items, sources)
            assert "s3cr3t" not in shown and "Traceback" not in shown
    assert cases == len(FUZZ_FAMILIES) * FUZZ_CASES_PER_FAMILY == 200
