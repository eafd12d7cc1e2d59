"""``define``: names and small functions for expressions, written once and
expanded where they are used, at compile time.

    define oil-lost = lost(bucharest)
    define held(city) = controls(axis, city) and supplied(axis, city)
    award axis 1 at end "Riga" when held(riga)

A define without parameters stands for its expression wherever its name is
read; one with parameters is called like a function, its parameters
replaced by the arguments' expressions.  Defines may use other defines; a
define that reaches itself is an error.  The runtime never sees them."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from runtime import expr as E

from .ast import Statement
from .checker import Ctx
from .diagnostics import Span

HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_\-.]*)(?:\(([^()]*)\))?")


@dataclass(frozen=True)
class Define:
    name: str
    params: tuple[str, ...]
    expr: E.Expr
    span: Span


def collect(ctx: Ctx, statements: list[Statement]) -> dict[str, Define]:
    """The top-level ``define`` statements, checked: a name (with its
    parameters) and ``= EXPRESSION``, nothing else."""
    out: dict[str, Define] = {}
    for st in statements:
        if st.keyword != "define":
            continue
        words = [a for a in st.args if not a.quoted]  # "held(x," "y)": a head written with blanks
        head = words[0] if words else None
        text = "".join(a.text for a in words)
        m = HEAD.fullmatch(text) if head is not None else None
        params = tuple(p.strip() for p in m.group(2).split(",")) if m and m.group(2) is not None else ()
        if m is None or len(st.args) - len(words) > 1 or \
                any(not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-.]*", p) for p in params):
            ctx.error("arguments", "define takes a name, or a name with its parameters, then = EXPRESSION",
                      head.span if head is not None else st.span,
                      "write: define held(city) = controls(axis, city) and supplied(axis, city)")
            continue
        if st.value is None or st.condition is not None or st.body is not None:
            ctx.error("arguments", f"define {m.group(1)} needs = EXPRESSION (and takes no 'when' or block)",
                      st.span, f"write: define {text} = ...")
            continue
        name = m.group(1)
        if name in out:
            ctx.error("duplicate", f"{name} is defined twice", head.span, f"first at {out[name].span}")
            continue
        if len(set(params)) != len(params):
            ctx.error("arguments", f"define {name} names a parameter twice", head.span)
            continue
        out[name] = Define(name, params, st.value, head.span)
    return out


class _Expander:
    def __init__(self, ctx: Ctx, defines: dict[str, Define]):
        self.ctx = ctx
        self.defines = defines
        self.reported: set[str] = set()

    def expand(self, e: E.Expr, bound: dict[str, E.Expr], stack: tuple[str, ...]) -> E.Expr:
        if isinstance(e, E.Name):
            if e.name in bound:
                return bound[e.name]
            d = self.defines.get(e.name)
            if d is None:
                return e
            if d.params:
                self.error(e, f"{d.name} takes {len(d.params)} argument{'s' * (len(d.params) != 1)}: "
                              f"write {d.name}({', '.join(d.params)})")
                return E.Bool(False, e.where)  # reported: no second error for the same spot
            return self.inline(e, d, {}, stack)
        if isinstance(e, E.Call):
            args = tuple(self.expand(a, bound, stack) for a in e.args)
            d = self.defines.get(e.func)
            if d is None:
                return replace(e, args=args)
            if len(args) != len(d.params):
                self.error(e, f"{d.name}() takes {len(d.params)} argument{'s' * (len(d.params) != 1)}, "
                              f"not {len(args)}")
                return E.Bool(False, e.where)
            return self.inline(e, d, dict(zip(d.params, args)), stack)
        if isinstance(e, E.ListExpr):
            return replace(e, items=tuple(self.expand(x, bound, stack) for x in e.items))
        if isinstance(e, E.Unary):
            return replace(e, operand=self.expand(e.operand, bound, stack))
        if isinstance(e, E.Binary):
            return replace(e, left=self.expand(e.left, bound, stack), right=self.expand(e.right, bound, stack))
        return e

    def inline(self, at: E.Expr, d: Define, bound: dict[str, E.Expr], stack: tuple[str, ...]) -> E.Expr:
        if d.name in stack:
            cycle = stack[stack.index(d.name):] + (d.name,)
            if not self.reported & set(cycle):  # one report per cycle
                self.reported.update(cycle)
                first = self.defines[cycle[0]]
                self.ctx.error("define-cycle", f"define {first.name} uses itself: {' -> '.join(cycle)}", first.span)
            return E.Bool(False, at.where)
        return self.expand(d.expr, bound, stack + (d.name,))

    def error(self, e: E.Expr, message: str) -> None:
        self.ctx.error("arguments", message, Span.parse(e.where))


def expand_defines(ctx: Ctx, statements: list[Statement]
                   ) -> tuple[list[Statement], list[tuple[E.Expr, tuple[str, ...]]]]:
    """The statements without their ``define`` lines, every expression
    expanded, and each define's own expression (expanded) with its
    parameters, for the checker once names are declared."""
    defines = collect(ctx, statements)
    if not defines:
        return [st for st in statements if st.keyword != "define"], []
    ex = _Expander(ctx, defines)
    bodies = [(ex.expand(d.expr, {}, (d.name,)), d.params) for d in defines.values()]

    def statement(st: Statement) -> Statement:
        changes = {}
        if st.condition is not None:
            changes["condition"] = ex.expand(st.condition, {}, ())
        if st.value is not None:
            changes["value"] = ex.expand(st.value, {}, ())
        if st.body:
            changes["body"] = tuple(statement(x) if isinstance(x, Statement) else x for x in st.body)
        return replace(st, **changes) if changes else st

    return [statement(st) for st in statements if st.keyword != "define"], bodies
