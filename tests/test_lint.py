"""Static checks: no undefined names (a NameError waiting for the one input
that reaches it) and no unused imports, in every package and test."""
from __future__ import annotations

from pyflakes.api import checkPath
from pyflakes.reporter import Reporter

from helpers import ROOT


class _Collect(Reporter):
    def __init__(self):
        self.messages: list[str] = []

    def unexpectedError(self, filename, msg):  # noqa: N802 (pyflakes' API)
        self.messages.append(f"{filename}: {msg}")

    def syntaxError(self, filename, msg, lineno, offset, text):  # noqa: N802
        self.messages.append(f"{filename}:{lineno}: {msg}")

    def flake(self, message):
        self.messages.append(str(message))


def test_pyflakes_finds_nothing():
    r = _Collect()
    for folder in ("dsl", "runtime", "editor", "bench", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "hxr_parser.py":  # Lark's generated standalone parser (make parser), not ours
                continue
            checkPath(str(path), r)
    assert r.messages == []
