"""Writing a game's files safely: each through a temporary file renamed
over the old one, several files all or nothing, symbolic links written
through to their targets (the link stays a link)."""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path


def _target(path: Path) -> Path:
    """Where writing ``path`` must land: a symbolic link's target."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _temporary(path: Path, data: bytes) -> str:
    """``data`` in a new temporary file beside ``path``, flushed to disk,
    with ``path``'s permissions (0644 for a new file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644)
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _remove(p: str | Path) -> None:
    try:
        os.unlink(p)
    except FileNotFoundError:
        pass


def atomic_write(path: Path, data: bytes) -> None:
    """Write one file: a crash leaves either the old file or the new one."""
    atomic_write_all([(Path(path), data)])


def atomic_write_all(items: list[tuple[Path, bytes]]) -> None:
    """Write several files all or nothing: every temporary first (a full
    disk fails here, before any file changed), then every rename; a rename
    that fails puts back the files already replaced.  Either way the
    temporaries are gone and OSError is raised."""
    targets = [_target(Path(p)) for p, _ in items]
    temps: list[str] = []
    try:
        for path, (_, data) in zip(targets, items):
            temps.append(_temporary(path, data))
    except BaseException:
        for t in temps:
            _remove(t)
        raise
    done: list[tuple[Path, str | None]] = []  # (replaced file, a copy of its old bytes; None: it was new)
    try:
        for path, tmp in zip(targets, temps):
            old = None
            if path.exists():
                fd, old = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".old")
                os.close(fd)
                shutil.copy2(path, old)
            try:
                os.replace(tmp, path)
            except BaseException:
                if old is not None:
                    _remove(old)
                raise
            done.append((path, old))
    except BaseException:
        for path, old in reversed(done):
            if old is not None:
                os.replace(old, path)
            else:
                _remove(path)
        for t in temps:
            _remove(t)
        raise
    for _, old in done:
        if old is not None:
            _remove(old)
