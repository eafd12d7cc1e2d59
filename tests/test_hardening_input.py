"""Issue 11, inputs: game files are untrusted.  Starting hexforge runs no
code from a file another user could write; imports and maps read game files
only; broken or hostile input gives a located ``file:line:col: error`` fast,
never a traceback or a hang."""
from __future__ import annotations

import subprocess
import sys

from helpers import ROOT


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

