"""Noticing a game's files changed on disk by another program (a text
editor, git): a QFileSystemWatcher on every file the game reads, whose
changes arrive, gathered for a moment, as the files' shown names."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal


class FileWatcher(QObject):
    """Watches ``{path: shown}``; emits ``changed(list of shown names)``.
    A file saved by renaming a new one over it (as hexforge and most
    editors save) is a new file to the system: it is watched again."""

    changed = Signal(list)

    def __init__(self, parent=None, delay_ms: int = 150):
        super().__init__(parent)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_change)
        self.watcher.directoryChanged.connect(self._on_dir_change)
        self.shown: dict[str, str] = {}
        self.pending: set[str] = set()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self._emit)

    def watch(self, files: dict[Path, str]) -> None:
        """Watch exactly these files (and their folders, to see a file come back)."""
        old = self.watcher.files() + self.watcher.directories()
        if old:
            self.watcher.removePaths(old)
        self.shown = {str(p.resolve()): s for p, s in files.items()}
        paths = [p for p in self.shown if Path(p).exists()]
        if paths:
            self.watcher.addPaths(paths)
        dirs = sorted({str(Path(p).parent) for p in self.shown})
        if dirs:
            self.watcher.addPaths(dirs)

    def _on_change(self, path: str) -> None:
        if path in self.shown:
            self.pending.add(self.shown[path])
            self.timer.start()

    def _on_dir_change(self, folder: str) -> None:
        """A file replaced by rename drops out of the watch: add it back and
        treat it as changed."""
        watched = set(self.watcher.files())
        for p, s in self.shown.items():
            if str(Path(p).parent) == folder and p not in watched and Path(p).exists():
                self.watcher.addPath(p)
                self.pending.add(s)
                self.timer.start()

    def _emit(self) -> None:
        names, self.pending = sorted(self.pending), set()
        for p in self.shown:
            if p not in self.watcher.files() and Path(p).exists():
                self.watcher.addPath(p)
        if names:
            self.changed.emit(names)
