"""Art a game folder ships: counter faces and a map background, named by
paths relative to the game folder.  Only image files inside the game folder
are accepted, never opened here (the editor and `render` read them), and a
path that leaves the folder, names a missing file or something that is not
a regular file (a FIFO, a device) is a located error."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .ast import Arg
from .checker import Ctx, is_dash

IMAGE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg")


def art_file(ctx: Ctx, game_dir: Path, arg: Arg | None, what: str) -> str:
    """``arg``'s image path, relative to the game folder ("" for none or a mistake)."""
    if arg is None or is_dash(arg):
        return ""
    rel = arg.text
    if Path(rel).suffix.lower() not in IMAGE_SUFFIXES:
        ctx.error("art", f"{what} '{rel}' is not an image: use a .png, .svg or .jpg file", arg.span)
        return ""
    if Path(rel).is_absolute():
        ctx.error("art", f"{what} '{rel}' must be a path inside the game folder, not an absolute path", arg.span,
                  'write it relative to the game folder, e.g. "art/7pz.png"')
        return ""
    base = game_dir.resolve()
    p = (base / rel).resolve()
    try:
        p.relative_to(base)
    except ValueError:
        ctx.error("art", f"{what} '{rel}' leaves the game folder", arg.span,
                  "art must be inside the game folder, e.g. art/7pz.png")
        return ""
    try:
        mode = os.stat(p).st_mode
    except OSError:
        ctx.error("art", f"{what} '{rel}': no such file in the game folder", arg.span)
        return ""
    if not stat.S_ISREG(mode):
        ctx.error("art", f"{what} '{rel}' is not a regular file", arg.span)
        return ""
    return p.relative_to(base).as_posix()
