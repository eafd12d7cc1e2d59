"""The engine's hottest modules compiled to C with mypyc: the import hook
that loads them while they are what the sources say.

The searches a bot runs millions of (movement's Dijkstra, the supply
breadth-first search, the zones of control), the engine that lists and
applies the moves and battles (and fights firepower battles), the
expressions the rules are written in, the actions and the lazy lists of
them, and the game state they all read are
plain, typed Python.  mypyc (part of mypy)
compiles those modules into C extensions: the same code, run without the
interpreter's dispatch, and a state's fields read directly by the compiled
engine.  Barbarossa's random playouts run about a third faster than plain
Python, Smolensk's about a fifth (``bench/bench_playout.py`` prints both
ways).  The sources stay the truth:

- ``python -m runtime.compile`` builds the extensions into ``build/fast`` beside
  the packages (``make`` does it on set-up and before the tests), and writes
  a manifest with a hash of every source of the ``runtime`` package.
- ``install()`` (run by ``runtime/__init__.py``) loads them only while every
  hash still matches, the Python is the one they were built for, and
  ``HEXFORGE_PURE`` is not set: a module edited since, anywhere in the
  package (the compiled code reads the others' types), and the whole engine
  runs as plain Python until the next build.  A machine without a C compiler
  or mypy runs plain Python too; nothing else changes.

What compiling changes, which the tests run both ways (``make test`` runs
them compiled; ``tests/test_compiled.py`` plays four games both ways):

- A compiled module checks its type annotations as it runs: an annotation
  that does not hold (a value that may be None, a dict subclass where a dict
  is declared, a local that held a tuple and is given a list) is a
  ``TypeError`` there, not a hint.  ``mypy`` must pass on the modules listed
  here, which the build does first.
- A class of a compiled module is a native class: its methods are called
  directly by compiled code, so patching one (a test's) changes nothing there
  (``state.LOADED_DICE`` loads the dice instead of a patched
  ``GameState.roll``); it is made with ``cls.__new__(cls)``, not
  ``object.__new__(cls)``; an interpreted class cannot subclass it.  A class
  that must stay an ordinary one says so (``@mypyc_attr(native_class=False)``).
- mypyc drops a raise's ``from``: ``raise expr.without_context(e)`` says on
  the exception what ``raise e from None`` would.
"""
from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path

# the modules compiled, as paths under the project's root
COMPILED = ("runtime/supply.py", "runtime/movement.py", "runtime/zoc.py", "runtime/engine.py", "runtime/expr.py",
            "runtime/state.py", "runtime/combat/firepower.py", "runtime/combat/options.py", "runtime/actions.py",
            "runtime/decisions.py", "runtime/action_lists.py")
MODULES = tuple(p[:-3].replace("/", ".") for p in COMPILED)  # their names as imported
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "fast"
MANIFEST = "manifest.json"


def _sources() -> dict[str, str]:
    """Every source of the runtime package (path under the root -> sha256)."""
    pkg = ROOT / "runtime"
    return {p.relative_to(ROOT).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(pkg.rglob("*.py"))}


def _python() -> str:
    return f"{sys.implementation.cache_tag} {importlib.machinery.EXTENSION_SUFFIXES[0]}"


def status() -> tuple[bool, str]:
    """(whether the compiled modules may be loaded, "compiled (the modules)"
    or "plain Python (why)")."""
    return _status()[:2]


def _status() -> tuple[bool, str, dict[str, Path]]:
    """``status``, and the compiled files by module name where they may be loaded."""
    if os.environ.get("HEXFORGE_PURE"):
        return False, "plain Python (HEXFORGE_PURE is set)", {}
    path = OUT / MANIFEST
    if not path.is_file():
        return False, f"plain Python (not built: {path} is missing; python -m runtime.compile builds it)", {}
    try:
        manifest = json.loads(path.read_text())
        files = {name: OUT / rel for name, rel in manifest["files"].items()}
        built_for, sources = manifest["python"], manifest["sources"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return False, f"plain Python ({path}: unreadable manifest: {e})", {}
    if built_for != _python():
        return False, f"plain Python (built for another Python, {built_for})", {}
    if sources != _sources():
        return False, "plain Python (a source of the runtime package changed since the build; " \
                      "python -m runtime.compile builds it again)", {}
    if not all(name in MODULES or name.endswith("__mypyc") for name in files):  # (mypyc's shared library)
        return False, "plain Python (the manifest names modules the build does not make)", {}
    if not all(f.is_file() and f.resolve().is_relative_to(OUT.resolve()) for f in files.values()):
        return False, "plain Python (a compiled file is missing)", {}
    return True, f"compiled ({', '.join(sorted(n for n in files if n in MODULES))})", files


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules (and mypyc's shared library) in the build."""

    def __init__(self, files: dict[str, Path]):
        self.files = files

    def find_spec(self, name, path=None, target=None):
        f = self.files.get(name)
        if f is None:
            return None
        return importlib.util.spec_from_file_location(name, f, loader=importlib.machinery.ExtensionFileLoader(
            name, str(f)))


def install() -> bool:
    """Load the compiled modules from now on, where they are fresh (``status``)."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return True
    ok, _, files = _status()
    if ok:
        sys.meta_path.insert(0, _Finder(files))
    return ok


def compiled(module) -> bool:
    """Whether ``module`` runs compiled."""
    return not str(getattr(module, "__file__", "")).endswith(".py")
