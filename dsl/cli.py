"""The ``hexforge`` command."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .diagnostics import DslError


def _print_diagnostics(items, sources, out=sys.stderr) -> None:
    for d in items:
        print(d.format(sources), file=out)


def cmd_check(args: argparse.Namespace) -> int:
    from .compiler import check_game

    path = Path(args.path)
    if not path.exists():
        print(f"{args.path}: error: no such game folder or file", file=sys.stderr)
        return 1
    game, diags, sources = check_game(path)
    _print_diagnostics(diags.items, sources)
    if game is None or diags.errors:
        n = len(diags.errors)
        print(f"{n} error{'s' * (n != 1)}", file=sys.stderr)
        return 1
    extra = f", {len(game.variants)} variants" if game.variants else ""
    print(f"ok {game.summary()}{extra}")
    return 0


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
        from editor import app  # noqa: F401  (the editor arrives with its own issue)
    except ImportError:
        app = None
    if has_display() and app is not None and hasattr(app, "main"):
        return app.main([str(args.path)])
    if not has_display():
        print("No display found, so the editor is not opened. Headless commands:")
    else:
        print("The editor is not part of this build yet. Commands:")
    print(f"  hexforge check {args.path}      validate the game files")
    print("  make test                          run the test suite")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hexforge", description="Hex wargame rules compiler, engine and editor")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="check a game folder or rules file")
    c.add_argument("path")
    c.set_defaults(func=cmd_check)
    s = sub.add_parser("start", help="check a game and open it in the editor (or explain headless use)")
    s.add_argument("path", nargs="?", default="games/smolensk")
    s.set_defaults(func=cmd_start)
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except DslError as e:
        print(e.format(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
