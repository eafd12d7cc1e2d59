"""The ``hexforge`` command.  It lives in the outermost layer (editor →
dsl → runtime) so that GUI commands can be offered; Qt is imported only
when a command needs it, so headless commands stay headless."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from dsl.cli import add_commands, add_version, check_and_report, run
from dsl.outputs import CliError

from .headless import has_display


def hexforge_command() -> str:
    """How to run hexforge from here, as printed in hints: ``hexforge`` when
    it is on PATH, else the path of the script beside this Python."""
    import shutil

    exe = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if exe is not None and exe.name == "hexforge" and shutil.which("hexforge") == str(exe.resolve()):
        return "hexforge"
    script = Path(sys.executable).parent / "hexforge"
    if script.exists():
        if shutil.which("hexforge") == str(script):
            return "hexforge"
        try:
            rel = os.path.relpath(script)
        except ValueError:  # another drive
            return str(script)
        return str(script) if rel.startswith("..") else rel
    return f"{sys.executable} -m editor.cli"


def cmd_start(args: argparse.Namespace) -> int:
    """What `make run` does: check the game, then open the editor if there
    is a screen, or say how to work headless."""
    game = check_and_report(args.path)
    if game is None:
        return 1
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
    hx = hexforge_command()
    path = shlex.quote(str(args.path))  # (the commands are pasted into a shell: a folder named with spaces)
    lines = [(f"{hx} check {path}", "validate the game files"),
             (f"{hx} info {path}", "sides, scenarios, variants, parameters")]
    if game.combat.procedure == "firepower":
        lines.append((f"{hx} battle {path} --hex H --attack U@FROM --defend U", "the firepower of a battle"))
    else:
        lines.append((f"{hx} odds {path} --attack 12 --defense 4", "odds and result chances of an attack"))
    lines += [(f"{hx} play {path} --agents greedy,random --seed 3", "a whole game between bots"),
              ("mkdir -p out", "a folder git ignores, for the files below"),
              (f"{hx} render {path} --out out/map.png", "draw the map and counters (.png .svg .pdf)"),
              (f"{hx} edit {path} --screenshot out/shot.png", "the editor's window, drawn offscreen"),
              ("make test", "run the test suite")]
    width = max(len(c) for c, _ in lines)
    for command, what in lines:
        print(f"  {command:<{width}}  {what}")
    if hx != "hexforge":
        print(f"Or run `source {Path(hx).parent}/activate` once, then type hexforge instead of {hx}.")
    return 0


def add_edit_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``hexforge edit``, which ``editor.app.main`` reads
    as well (``python -m editor.app``)."""
    p.add_argument("game", nargs="?", help="a game folder; omit it for a new, empty game")
    p.add_argument("--screenshot", metavar="OUT.png", help="render the window offscreen to OUT.png and exit")
    p.add_argument("--size", default="1600x1000",
                   help="window size for --screenshot (at least 1280x800, at most 8192x8192)")
    p.add_argument("--tab", default="map", choices=("map", "counters", "declarations", "tables", "rules"),
                   help="the tab --screenshot shows")
    p.add_argument("--scenario", default="", help="the scenario whose setup is shown")


def cmd_edit(args: argparse.Namespace) -> int:
    """Open the editor (or, with --screenshot, render its window offscreen)."""
    if not args.screenshot and not has_display():
        raise CliError("no display found; use --screenshot OUT.png to render the window offscreen", args.game or "")
    from editor import app

    argv = [args.game] if args.game else []
    if args.screenshot:
        argv += ["--screenshot", args.screenshot, "--size", args.size, "--tab", args.tab]
    if args.scenario:
        argv += ["--scenario", args.scenario]
    return app.main(argv)


def cmd_render(args: argparse.Namespace) -> int:
    from editor.render import cmd_render as render

    return render(args)


def cmd_counters(args: argparse.Namespace) -> int:
    from editor.render import cmd_counters as counters

    return counters(args)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hexforge", description="Hex wargame rules compiler, engine and editor")
    add_version(p)
    sub = p.add_subparsers(dest="command", required=True)
    add_commands(sub)
    s = sub.add_parser("start", help="check a game and open it in the editor (or explain headless use)")
    s.add_argument("path", nargs="?", default="games/smolensk")
    s.set_defaults(func=cmd_start)
    e = sub.add_parser("edit", help="open a game folder (or a new game) in the editor")
    add_edit_arguments(e)
    e.set_defaults(func=cmd_edit)
    r = sub.add_parser("render", help="render a game's map and a scenario's counters to PNG, SVG or PDF")
    r.add_argument("game", help="a game folder")
    r.add_argument("--scenario", default="", help="the scenario whose counters are drawn (default: the first)")
    r.add_argument("--out", required=True, help="FILE.png, FILE.svg or FILE.pdf")
    r.add_argument("--hex-size", type=float, default=36.0, help="pixels from a hex's centre to a corner (PNG, SVG)")
    r.add_argument("--ids", action="store_true", help="print hex IDs (the default)")
    r.add_argument("--no-ids", action="store_true", help="leave hex IDs out")
    r.add_argument("--paper", choices=("a4", "letter"), default="",
                   help="a PDF tiled across sheets of this paper, with overlaps and registration marks")
    r.set_defaults(func=cmd_render)
    k = sub.add_parser("counters", help="the counter sheet as a PDF: fronts, then mirrored backs, for printing")
    k.add_argument("game", help="a game folder")
    k.add_argument("--out", required=True, help="FILE.pdf")
    k.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default: a4)")
    k.add_argument("--size", choices=("1/2in", "9/16in", "5/8in", "3/4in"), default="5/8in",
                   help="counter size (default: 5/8in)")
    k.set_defaults(func=cmd_counters)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
