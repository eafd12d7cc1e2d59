"""Qt without a screen: the offscreen platform when there is no display,
and Qt's own chatter kept off the terminal of a headless command."""
from __future__ import annotations

import os
import sys

# Messages Qt prints that say nothing to a user of a headless command: the
# offscreen platform's "This plugin does not support propagateSizeHints()"
# and the like, and a painter's complaints about a device it could not open
# (the command reports that failure itself, in one line).
NOISE = ("does not support propagateSizeHints", "This plugin does not support", "QPainter::",
         "QSvgGenerator::", "QPdfWriter", "QFont::setPointSizeF")


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _filter(mode, context, message: str) -> None:
    if any(n in message for n in NOISE):
        return
    sys.stderr.write(message + "\n")


def headless() -> None:
    """Before the QApplication of a command that draws to a file: the
    offscreen platform without a display, and the noise filter."""
    if not has_display():
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import qInstallMessageHandler

    qInstallMessageHandler(_filter)
