"""The ``hexforge`` command.  It lives in the outermost layer (editor →
dsl → runtime) so that GUI commands can be offered; Qt is imported only
when a command needs it, so headless commands stay headless."""
from __future__ import annotations

import argparse
import os
import sys

from dsl.cli import add_commands, cmd_check, run


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def cmd_start(args: argparse.Namespace) -> int:
    """What `make run` does: check the game, then open the editor if there
    is a screen, or say how to work headless."""
    status = cmd_check(args)
    if status:
        return status
    try:
        from editor import app
    except ImportError:
        app = None
    if has_display() and app is not None and hasattr(app, "main"):
        return app.main([str(args.path)])
    if not has_display():
        print("No display found, so the editor is not opened. Headless commands:")
    else:
        print("The editor is not part of this build yet. Commands:")
    print(f"  hexforge check {args.path}                         validate the game files")
    print(f"  hexforge odds {args.path} --attack 12 --defense 4   odds and result chances of an attack")
    print("  make test                                               run the test suite")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hexforge", description="Hex wargame rules compiler, engine and editor")
    sub = p.add_subparsers(dest="command", required=True)
    add_commands(sub)
    s = sub.add_parser("start", help="check a game and open it in the editor (or explain headless use)")
    s.add_argument("path", nargs="?", default="games/smolensk")
    s.set_defaults(func=cmd_start)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
