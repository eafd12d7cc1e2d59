"""No input may crash or hang the checker: random text, and mutations of the
shipped game files, give diagnostics or a game, never a traceback."""
from __future__ import annotations

import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl.compiler import check_game
from dsl.diagnostics import DslError
from dsl.parser import parse

from helpers import GAMES, ROOT, copy_games

ALPHABET = st.sampled_from(list('abcdeftw-_019.+#;="{}[](),<>!\\ \n\t—é') + ["table", "when", "override", "and",
                                                                             "not", "in", "import", "side"])


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_random_text_parses_or_gives_a_syntax_diagnostic(text):
    try:
        parse(text, "fuzz.hxr")
    except DslError as e:
        assert e.diagnostics and all(d.span and d.span.line >= 1 for d in e.diagnostics)


GAME_FILES = sorted(p.relative_to(GAMES) for p in GAMES.rglob("*") if p.suffix in (".hxr", ".hxm"))

MUTATIONS = st.sampled_from(["delete-line", "duplicate-line", "delete-char", "insert", "swap-lines", "truncate"])


def mutate(text: str, kind: str, a: int, b: int, ins: str) -> str:
    lines = text.split("\n")
    i, j = a % len(lines), b % len(lines)
    if kind == "delete-line":
        del lines[i]
    elif kind == "duplicate-line":
        lines.insert(i, lines[i])
    elif kind == "swap-lines":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "truncate":
        return text[: a % (len(text) + 1)]
    else:
        k = a % (len(text) + 1)
        return text[:k] + (ins if kind == "insert" else "") + text[k + (kind == "delete-char"):]
    return "\n".join(lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(GAME_FILES), MUTATIONS, st.integers(0, 10**6), st.integers(0, 10**6),
       st.sampled_from(['"', "{", "}", "\n", "-", "x", "0927", "=", "when", "\x00"]))
def test_mutated_game_files_give_diagnostics_not_crashes(tmp_path_factory, rel, kind, a, b, ins):
    lib = copy_games(tmp_path_factory.mktemp("lib"))
    target = lib / rel
    target.write_text(mutate(target.read_text(encoding="utf-8"), kind, a, b, ins), encoding="utf-8")
    game_dir = lib / rel.parts[0]
    if not (game_dir / "game.hxr").exists():  # a series system: check the games that import it
        game_dir = next(p.parent for p in lib.glob("*/game.hxr"))
    game, diags, _ = check_game(game_dir)
    if game is None:
        assert diags.errors
        for d in diags.errors:
            assert d.message and (d.span is None or d.span.line >= 1)


def test_cli_reports_broken_files_without_a_traceback(tmp_path):
    lib = copy_games(tmp_path)
    game = lib / "smolensk" / "game.hxr"
    game.write_text(game.read_text(encoding="utf-8").replace("counters", "countrs", 1) + "\n}{\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "dsl.cli", "check", str(lib / "smolensk")], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr + r.stdout
    assert "smolensk/game.hxr:" in r.stderr and ": error: " in r.stderr


def test_cli_check_of_a_missing_or_binary_path(tmp_path):
    r = subprocess.run([sys.executable, "-m", "dsl.cli", "check", str(tmp_path / "nope")], capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 1 and "no such game" in r.stderr and "Traceback" not in r.stderr
    folder = tmp_path / "lib" / "bin"
    folder.mkdir(parents=True)
    (folder / "game.hxr").write_bytes(bytes(range(256)) * 4)
    r = subprocess.run([sys.executable, "-m", "dsl.cli", "check", str(folder)], capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "error:" in r.stderr


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(MUTATIONS, st.integers(0, 10**6), st.integers(0, 10**6),
       st.sampled_from(["-", "x", "0", "1", "9", "when", "turn", "axis", "soviet", "\n"]), st.integers(0, 99))
def test_mutated_games_that_compile_play_or_stop_with_a_message(tmp_path_factory, kind, a, b, ins, seed):
    """A game that compiles runs: bots play it to the end, or the runner
    stops with a message (a refusal, a type error in an expression with its
    file:line); never another exception.  Barbarossa: it plays in a blink."""
    from runtime.bots import RandomBot, play
    from runtime.expr import ExprError
    from runtime.runner import Runner, SequenceError
    lib = copy_games(tmp_path_factory.mktemp("lib"))
    target = lib / "barbarossa-postcard" / "game.hxr"
    target.write_text(mutate(target.read_text(encoding="utf-8"), kind, a, b, ins), encoding="utf-8")
    game, diags, _ = check_game(lib / "barbarossa-postcard")
    if game is None:
        return
    try:
        r = Runner(game)
        play(r, r.new_game(seed), {side: RandomBot(seed) for side in game.sides}, max_actions=3000)
    except (NotImplementedError, ValueError) as e:   # refused before play, with a message
        assert str(e)
    except ExprError as e:
        assert ".hxr:" in str(e)
    except SequenceError as e:   # a sequence that never ends a turn, or a game that never ends
        assert "sequence of play" in str(e) or "no end after" in str(e)
