"""``python -m runtime.compile [--status | --if-stale]``: build the engine's
hottest modules with mypyc (``runtime/compiled.py`` says which, and loads
them), or say whether the build is in use."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .compiled import COMPILED, MANIFEST, MODULES, OUT, ROOT, _python, _sources, status


# mypy's flags for the build: the packages without type hints (networkx, lark) are read as Any, and only
# the compiled modules must type-check (the others are imported as they are)
_FLAGS = ("--ignore-missing-imports", "--follow-imports=silent")


def build() -> tuple[bool | None, str]:
    """Compile ``COMPILED`` into ``OUT`` with mypyc (mypy checks them first);
    (done, what happened): done is None where it cannot be tried (no mypyc,
    no C compiler), False where it failed.  Built in a scratch folder that links to the
    packages (not in the project root, whose build settings are pip's), then
    moved into place with a new manifest."""
    missing = [m for m in ("mypyc", "setuptools") if importlib.util.find_spec(m) is None]
    if missing:
        return None, f"{' and '.join(missing)} not installed: plain Python"
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        return None, "no C compiler: plain Python"
    sources = _sources()
    with tempfile.TemporaryDirectory(prefix="hexforge-fast-") as tmp:
        work = Path(tmp)
        (work / "runtime").symlink_to(ROOT / "runtime", target_is_directory=True)
        lib = work / "lib"
        script = (
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            f"setup(name='hexforge-fast', ext_modules=mypycify({list(_FLAGS + COMPILED)!r}, opt_level='3',\n"
            "      target_dir='c'), script_args=['-q', 'build_ext', '--build-lib', 'lib', '--build-temp', 'tmp'])\n")
        env = dict(os.environ, MYPYPATH="", PYTHONPATH="")
        run = subprocess.run([sys.executable, "-c", script], cwd=work, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-20:])
            return False, f"the build failed: plain Python\n{tail}"
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        files: dict[str, str] = {}
        for so in lib.rglob("*" + suffix):
            rel = so.relative_to(lib).as_posix()
            files[rel[:-len(suffix)].replace("/", ".")] = rel
        if not all(name in files for name in MODULES):
            return False, f"the build made {sorted(files)}, not every module of {COMPILED}: plain Python"
        try:
            if OUT.exists():
                shutil.rmtree(OUT)
            OUT.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(lib, OUT)
            (OUT / MANIFEST).write_text(json.dumps({"python": _python(), "files": files, "sources": sources},
                                                   indent=1))
        except OSError as e:
            return False, f"cannot write {OUT}: {e.strerror or e}: plain Python"
    if sources != _sources():
        return False, "a source changed while it was built: run it again"
    return True, f"compiled {', '.join(COMPILED)} into {OUT}"


def main(argv: list[str] | None = None) -> int:
    """Build (``--if-stale``: unless the build in use is fresh), or say
    whether the build is in use (``--status``).  Exit 1 where the build
    failed with mypyc and a C compiler at hand (a type error in a compiled
    module, say); without them the engine runs as plain Python: exit 0."""
    args = sys.argv[1:] if argv is None else argv
    if "--status" in args:
        print(status()[1])
        return 0
    if "--if-stale" in args and status()[0]:
        return 0
    try:
        done, msg = build()
    except OSError as e:  # (a scratch folder that cannot be made, say)
        done, msg = False, f"{e.strerror or e}{f': {e.filename}' if e.filename else ''}: plain Python"
    print(f"hexforge: {msg}" if done else f"hexforge: not compiled: {msg}", file=sys.stdout if done else sys.stderr)
    return 1 if done is False else 0


if __name__ == "__main__":
    sys.exit(main())
