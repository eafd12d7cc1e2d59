"""What every ``hexforge`` command says when it fails, and the check that a
file can be written before the work that produces it starts.

One error format everywhere: ``hexforge: GAME: error: MESSAGE`` (or
``hexforge: error: MESSAGE`` when no game is involved), then an optional
``  hint: ...`` line.  Located errors in game files keep their own
``file:line:col: error: ...`` form."""
from __future__ import annotations

import os
import sys
from pathlib import Path


class CliError(Exception):
    """A user error on the command line: printed as one line, exit 1."""

    def __init__(self, message: str, game: str = "", hint: str = ""):
        super().__init__(message)
        self.message, self.game, self.hint = message, game, hint

    def format(self) -> str:
        where = f"{self.game}: " if self.game else ""
        out = f"hexforge: {where}error: {self.message}"
        return out + (f"\n  hint: {self.hint}" if self.hint else "")


def say_error(message: str, game: str = "", hint: str = "", out=None) -> None:
    print(CliError(message, game, hint).format(), file=out or sys.stderr)


def cannot_write(path: str | Path) -> str:
    """Why ``path`` cannot be written ("" when it can), found without
    changing anything: a probe file is created only where none exists, and
    removed at once."""
    p = Path(path)
    if p.is_dir():
        return "it is a folder"
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.exists():
        return f"no such folder {parent}"
    if not parent.is_dir():
        return f"{parent} is not a folder"
    if p.exists():
        return "" if os.access(p, os.W_OK) else "permission denied"
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as e:
        return (e.strerror or str(e)).lower()
    os.close(fd)
    os.unlink(p)
    return ""


def check_writable(path: str | Path) -> None:
    """Raise CliError("cannot write PATH: reason") unless ``path`` can be written."""
    why = cannot_write(path)
    if why:
        raise CliError(f"cannot write {path}: {why}")


def written(path: str | Path) -> bool:
    """Whether ``path`` now holds a file with something in it."""
    p = Path(path)
    return p.is_file() and p.stat().st_size > 0
