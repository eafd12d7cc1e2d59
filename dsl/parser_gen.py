"""Regenerate ``dsl/hxr_parser.py``, the parser shipped with the package,
from the grammar ``dsl/hxr.lark`` (``make parser`` runs this):

    python -m dsl.parser_gen            # rewrite dsl/hxr_parser.py
    python -m dsl.parser_gen --check    # exit 1 if it is out of date

The parser is Lark's standalone LALR parser: its tables are Python literals
inside the module, so starting hexforge reads no cache file (Lark's own
cache is a pickle in the shared temp folder, which another user could
plant).  Lark numbers parser states in an order that changes from run to
run; the states are renumbered here (breadth first from the start state,
terminals in name order), so the same grammar always gives the same bytes
and a test can tell when the module and the grammar drift apart.
"""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GRAMMAR = HERE / "hxr.lark"
MODULE = HERE / "hxr_parser.py"

HEADER = ("# Generated from dsl/hxr.lark by `python -m dsl.parser_gen` (make parser): do not edit.\n"
          "# flake8: noqa\n")


def _canonical(table) -> None:
    """Renumber ``table``'s states breadth first from the start state(s),
    each state's actions in terminal-name order (in place)."""
    from lark.parsers.lalr_analysis import Shift

    order: dict[int, int] = {}
    queue = [table.start_states[s] for s in sorted(table.start_states)]
    for s in queue:
        if s not in order:
            order[s] = len(order)
    i = 0
    while i < len(queue):
        s = queue[i]
        i += 1
        for tok in sorted(table.states[s]):
            action, arg = table.states[s][tok]
            if action is Shift and arg not in order:
                order[arg] = len(order)
                queue.append(arg)
    for s in sorted(table.states):  # unreachable states, if any, keep their relative order
        if s not in order:
            order[s] = len(order)
    states = {}
    for old in sorted(table.states, key=order.__getitem__):
        actions = table.states[old]
        states[order[old]] = {tok: ((a, order[arg]) if a is Shift else (a, arg))
                              for tok, (a, arg) in sorted(actions.items())}
    table.states = states
    table.start_states = {k: order[v] for k, v in sorted(table.start_states.items())}
    table.end_states = {k: order[v] for k, v in sorted(table.end_states.items())}


def generate() -> str:
    """The module's text for the current grammar."""
    from lark import Lark
    from lark.tools.standalone import gen_standalone

    lark_inst = Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", lexer="contextual",
                     maybe_placeholders=False)
    frontend = lark_inst.parser
    _canonical(frontend.parser._parse_table)
    out = io.StringIO()
    gen_standalone(lark_inst, out=out)
    return HEADER + out.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dsl.parser_gen", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only report whether the module is up to date")
    args = ap.parse_args(argv)
    text = generate()
    current = MODULE.read_text(encoding="utf-8") if MODULE.exists() else ""
    if args.check:
        if text != current:
            print(f"{MODULE.name} is out of date: run `make parser`", file=sys.stderr)
            return 1
        return 0
    if text != current:
        MODULE.write_text(text, encoding="utf-8")
        print(f"wrote {MODULE}")
    else:
        print(f"{MODULE.name} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
