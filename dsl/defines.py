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


MAX_TERMS = 10_000  # nodes in one expression once its defines are expanded (the evaluator's default budget)
MAX_STEPS = 100_000  # expansion steps for one expression (defines that call defines that call ...)


class _TooBig(Exception):
    def __init__(self, steps: bool = False, define: "Define | None" = None) -> None:
        self.steps = steps  # too much work (rather than too big a tree): blame the define being checked
        self.define = define  # the define to blame: the innermost whose tree crossed MAX_TERMS


class _Expander:
    """Expands defines in expressions.  A define without parameters is
    expanded once and its tree shared by every use (a DAG: the evaluator
    still counts every node it visits against its step budget).  An
    expression that would grow past MAX_TERMS nodes, or take more than
    MAX_STEPS steps to build, is refused with a located error: twenty lines
    of ``define dN = d(N-1) + d(N-1)`` would otherwise take hours."""

    def __init__(self, ctx: Ctx, defines: dict[str, Define]):
        self.ctx = ctx
        self.defines = defines
        self.reported: set[str] = set()
        self.shared: dict[str, tuple[E.Expr, int]] = {}  # parameterless defines, expanded: (tree, size)
        self.too_big: set[str] = set()  # defines already found too big (and reported)
        self.steps = 0

    def top(self, e: E.Expr, stack: tuple[str, ...] = (), own: Define | None = None) -> E.Expr:
        """``e`` expanded, or ``false`` after reporting that it grows too big."""
        self.steps = 0
        try:
            return self.expand(e, {}, stack)[0]
        except _TooBig as big:
            d = big.define or own
            if d is not None:
                self.too_big.add(d.name)
                if d.name not in self.reported:
                    self.reported.add(d.name)
                    self.ctx.error("define-size", f"define {d.name} expands to more than {MAX_TERMS:,} terms",
                                   d.span, "defines are written out where they are used, so a define "
                                           "that uses another several times grows fast")
            else:
                self.ctx.error("define-size", f"this expression expands to more than {MAX_TERMS:,} terms "
                                              "once its defines are written out", Span.parse(e.where),
                               "split it, or use fewer defines inside defines")
            return E.Bool(False, e.where)

    def expand(self, e: E.Expr, bound: dict[str, tuple[E.Expr, int]],
               stack: tuple[str, ...]) -> tuple[E.Expr, int]:
        """``e`` with its defines expanded, and the size of the result (its nodes, counted as a tree)."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _TooBig(steps=True)
        if isinstance(e, E.Name):
            if e.name in bound:
                return bound[e.name]
            d = self.defines.get(e.name)
            if d is None:
                return e, 1
            if d.params:
                self.error(e, f"{d.name} takes {len(d.params)} argument{'s' * (len(d.params) != 1)}: "
                              f"write {d.name}({', '.join(d.params)})")
                return E.Bool(False, e.where), 1  # reported: no second error for the same spot
            return self.inline(e, d, {}, stack)
        if isinstance(e, E.Call):
            expanded = [self.expand(a, bound, stack) for a in e.args]
            d = self.defines.get(e.func)
            if d is None:
                return self.sized(replace(e, args=tuple(x for x, _ in expanded)), 1 + sum(n for _, n in expanded))
            if len(expanded) != len(d.params):
                self.error(e, f"{d.name}() takes {len(d.params)} argument{'s' * (len(d.params) != 1)}, "
                              f"not {len(expanded)}")
                return E.Bool(False, e.where), 1
            return self.inline(e, d, dict(zip(d.params, expanded)), stack)
        if isinstance(e, E.ListExpr):
            items = [self.expand(x, bound, stack) for x in e.items]
            return self.sized(replace(e, items=tuple(x for x, _ in items)), 1 + sum(n for _, n in items))
        if isinstance(e, E.Unary):
            operand, n = self.expand(e.operand, bound, stack)
            return self.sized(replace(e, operand=operand), 1 + n)
        if isinstance(e, E.Binary):
            (left, a), (right, b) = self.expand(e.left, bound, stack), self.expand(e.right, bound, stack)
            return self.sized(replace(e, left=left, right=right), 1 + a + b)
        return e, 1

    @staticmethod
    def sized(e: E.Expr, n: int) -> tuple[E.Expr, int]:
        if n > MAX_TERMS:
            raise _TooBig()
        return e, n

    def inline(self, at: E.Expr, d: Define, bound: dict[str, tuple[E.Expr, int]],
               stack: tuple[str, ...]) -> tuple[E.Expr, int]:
        if d.name in stack:
            cycle = stack[stack.index(d.name):] + (d.name,)
            if not self.reported & set(cycle):  # one report per cycle
                self.reported.update(cycle)
                first = self.defines[cycle[0]]
                self.ctx.error("define-cycle", f"define {first.name} uses itself: {' -> '.join(cycle)}", first.span)
            return E.Bool(False, at.where), 1
        if not d.params and d.name in self.shared:
            return self.shared[d.name]
        if d.name in self.too_big:
            raise _TooBig(define=d)
        try:
            out = self.expand(d.expr, bound, stack + (d.name,))
        except _TooBig as big:
            if big.define is None and not big.steps:
                big.define = d
                self.too_big.add(d.name)
            raise
        if not d.params:
            self.shared[d.name] = out
        return out

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
    bodies = [(ex.top(d.expr, (d.name,), d), d.params) for d in defines.values()]

    def statement(st: Statement) -> Statement:
        changes = {}
        if st.condition is not None:
            changes["condition"] = ex.top(st.condition)
        if st.value is not None:
            changes["value"] = ex.top(st.value)
        if st.body:
            changes["body"] = tuple(statement(x) if isinstance(x, Statement) else x for x in st.body)
        return replace(st, **changes) if changes else st

    return [statement(st) for st in statements if st.keyword != "define"], bodies
