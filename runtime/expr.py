"""The closed expression language: AST nodes, a safe evaluator and a printer.

Game files contain small expressions such as ``turn <= 3 and side == axis``
or ``half(strength) + 1``.  The ``dsl`` package parses them into the nodes
defined here; this module evaluates them without Python ``eval``, attribute
access or I/O.

Values are ``int``, ``fractions.Fraction``, ``bool``, ``str`` and ``tuple``
(lists), plus whatever objects the environment maps names to.  Booleans are
never numbers.  Evaluation, printing and the static helpers all use explicit
stacks, so deep trees raise :class:`ExprError` instead of ``RecursionError``.

Operator precedence, loosest first (what the grammar must agree with)::

    or  <  and  <  not  <  == != < <= > >= in "not in"  <  + -  <  * / // %  <  unary -

Binary operators associate to the left; comparisons do not chain.
"""

from __future__ import annotations

import difflib
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias, TypeGuard, Union

__all__ = [
    "BUILTINS",
    "Binary",
    "Bool",
    "Call",
    "Expr",
    "ExprError",
    "ListExpr",
    "MAX_DEPTH",
    "Name",
    "Num",
    "PRECEDENCE",
    "Str",
    "Unary",
    "called_functions",
    "evaluate",
    "free_names",
    "interpret",
    "to_text",
]

#: Deepest nesting the evaluator accepts (the root node is at depth 1).
MAX_DEPTH = 200


class ExprError(Exception):
    """A user-facing error in an expression, prefixed with ``where`` if known."""

    def __init__(self, message: str, where: str = "") -> None:
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


# --------------------------------------------------------------------------
# Nodes


@dataclass(frozen=True, slots=True)
class Num:
    """A number literal (int or Fraction)."""

    value: int | Fraction
    where: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Str:
    """A quoted text literal."""

    value: str
    where: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Bool:
    """``true`` or ``false``."""

    value: bool
    where: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Name:
    """A name looked up in the environment."""

    name: str
    where: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class ListExpr:
    """A list literal ``[a, b, ...]``; evaluates to a tuple."""

    items: tuple[Expr, ...]
    where: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Unary:
    """``-x`` or ``not x``."""

    op: str
    operand: Expr
    where: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Binary:
    """``left op right`` for the operators in :data:`PRECEDENCE`."""

    op: str
    left: Expr
    right: Expr
    where: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Call:
    """``func(arg, ...)``; ``func`` is a plain function name."""

    func: str
    args: tuple[Expr, ...]
    where: str = field(default="", compare=False)


Expr: TypeAlias = Union[Num, Str, Bool, Name, ListExpr, Unary, Binary, Call]

_NODE_TYPES = (Num, Str, Bool, Name, ListExpr, Unary, Binary, Call)

#: Binding strength of binary operators (higher binds tighter).
PRECEDENCE: dict[str, int] = {
    "or": 1,
    "and": 2,
    "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "not in": 4,
    "+": 5, "-": 5,
    "*": 6, "/": 6, "//": 6, "%": 6,
}
_NOT_PREC = 3
_NEG_PREC = 7
_ATOM_PREC = 8
_COMPARISON = 4

_ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%"})
_ORDERING = frozenset({"<", "<=", ">", ">="})


# --------------------------------------------------------------------------
# Describing values in messages


def _is_number(value: object) -> TypeGuard[int | Fraction]:
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


def _show_int(n: int) -> str:
    if n.bit_length() > 200:
        return "a very large number"
    return str(n)


def _show(value: object) -> str:
    """Short source-like rendering of a value for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _show_int(value)
    if isinstance(value, Fraction):
        if value.numerator.bit_length() > 200 or value.denominator.bit_length() > 200:
            return "a very large fraction"
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return '"' + text + '"'
    if isinstance(value, tuple):
        return f"a list of {len(value)} item" + ("" if len(value) == 1 else "s")
    try:
        text = str(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "true/false value"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, tuple):
        return "list"
    return type(value).__name__


def _normalise(value: int | Fraction) -> int | Fraction:
    """Whole Fractions become ints so ``6 / 2`` is ``3``."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


def _equal(a: object, b: object) -> bool:
    """Value equality: numbers by value, bools only equal bools, lists item by item."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            if not (isinstance(x, bool) and isinstance(y, bool) and x == y):
                return False
        elif _is_number(x) or _is_number(y):
            if not (_is_number(x) and _is_number(y) and x == y):
                return False
        elif isinstance(x, tuple) or isinstance(y, tuple):
            if not (isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y)):
                return False
            pending.extend(zip(x, y))
        else:
            try:
                if not bool(x == y):
                    return False
            except Exception:
                return False
    return True


# --------------------------------------------------------------------------
# Builtin functions


def _need_number(name: str, value: object) -> int | Fraction:
    if not _is_number(value):
        raise ExprError(f"{name}() needs a number, got {_kind(value)} {_show(value)}")
    return value


def _need_list(name: str, value: object) -> tuple:
    if not isinstance(value, tuple):
        raise ExprError(f"{name}() needs a list, got {_kind(value)} {_show(value)}")
    return value


def _one_arg(name: str, args: tuple) -> object:
    if len(args) != 1:
        raise ExprError(f"{name}() takes exactly 1 argument ({len(args)} given)")
    return args[0]


def _extreme(name: str, args: tuple, pick: Callable) -> int | Fraction:
    items = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
    if not items:
        raise ExprError(f"{name}() needs at least one number")
    return pick(_need_number(name, item) for item in items)


def _min(*args: object) -> int | Fraction:
    """Smallest of the arguments (or of a single list)."""
    return _extreme("min", args, min)


def _max(*args: object) -> int | Fraction:
    """Largest of the arguments (or of a single list)."""
    return _extreme("max", args, max)


def _abs(*args: object) -> int | Fraction:
    """Absolute value."""
    value = _need_number("abs", _one_arg("abs", args))
    return value if value >= 0 else -value


def _half(*args: object) -> int:
    """Half, fractions dropped (rounded down)."""
    return math.floor(Fraction(_need_number("half", _one_arg("half", args))) / 2)


def _floor(*args: object) -> int:
    """Round down to a whole number."""
    return math.floor(_need_number("floor", _one_arg("floor", args)))


def _ceil(*args: object) -> int:
    """Round up to a whole number."""
    return math.ceil(_need_number("ceil", _one_arg("ceil", args)))


def _round_down(*args: object) -> int:
    """Round down to a whole number (wargame "drop fractions")."""
    return math.floor(_need_number("round_down", _one_arg("round_down", args)))


def _count(*args: object) -> int:
    """Number of items in a list."""
    return len(_need_list("count", _one_arg("count", args)))


def _sum(*args: object) -> int | Fraction:
    """Total of a list of numbers (0 for an empty list)."""
    total: int | Fraction = 0
    for item in _need_list("sum", _one_arg("sum", args)):
        total += _need_number("sum", item)
    return _normalise(total)


#: Functions every expression may call.
BUILTINS: dict[str, Callable[..., object]] = {
    "min": _min,
    "max": _max,
    "abs": _abs,
    "half": _half,
    "floor": _floor,
    "ceil": _ceil,
    "round_down": _round_down,
    "count": _count,
    "sum": _sum,
}


# --------------------------------------------------------------------------
# Evaluation

# Task kinds on the evaluator's explicit stack.
_EVAL, _LIST, _UNARY, _BINARY, _LOGIC, _LOGIC_RIGHT, _CALL = range(7)


def _unary(op: str, value: object) -> object:
    if op == "not":
        if not isinstance(value, bool):
            raise ExprError(f"'not' needs true or false, got {_kind(value)} {_show(value)}")
        return not value
    if op == "-":
        if not _is_number(value):
            raise ExprError(f"'-' needs a number, got {_kind(value)} {_show(value)}")
        return -value
    raise ExprError(f"unknown unary operator {op!r}")


def _binary(op: str, left: object, right: object) -> object:
    """Apply a non-short-circuit binary operator to two values."""
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    if op in ("in", "not in"):
        if not isinstance(right, tuple):
            raise ExprError(f"'{op}' needs a list on its right, got {_kind(right)} {_show(right)}")
        found = any(_equal(left, item) for item in right)
        return found if op == "in" else not found
    if op in _ORDERING:
        if _is_number(left) and _is_number(right):
            pass
        elif isinstance(left, str) and isinstance(right, str):
            pass
        else:
            raise ExprError(
                f"cannot compare {_kind(left)} {_show(left)} with {_kind(right)} {_show(right)} using '{op}'"
            )
        if op == "<":
            return left < right  # type: ignore[operator]
        if op == "<=":
            return left <= right  # type: ignore[operator]
        if op == ">":
            return left > right  # type: ignore[operator]
        return left >= right  # type: ignore[operator]
    if op in _ARITHMETIC:
        if not (_is_number(left) and _is_number(right)):
            raise ExprError(
                f"'{op}' needs two numbers, got {_kind(left)} {_show(left)} and {_kind(right)} {_show(right)}"
            )
        if op == "+":
            return _normalise(left + right)
        if op == "-":
            return _normalise(left - right)
        if op == "*":
            return _normalise(left * right)
        if right == 0:
            raise ExprError(f"division by zero in {_show(left)} {op} 0")
        if op == "/":
            return _normalise(Fraction(left) / right)
        if op == "//":
            return _normalise(left // right)
        return _normalise(left % right)
    raise ExprError(f"unknown operator {op!r}")


def _call(name: str, function: Callable[..., object], args: tuple) -> object:
    """Call ``function``; anything but ExprError becomes an ExprError naming it."""
    try:
        return function(*args)
    except ExprError:
        raise
    except Exception as exc:  # user-facing: never leak a traceback
        try:
            detail = str(exc) or type(exc).__name__
        except Exception:
            detail = type(exc).__name__
        if len(detail) > 200:
            detail = detail[:197] + "..."
        raise without_context(ExprError(f"function {name}() failed: {detail}"))


def evaluate(
    expr: Expr,
    env: Mapping[str, object],
    functions: Mapping[str, Callable[..., object]] | None = None,
    budget: int = 10_000,
) -> object:
    """Evaluate ``expr`` with names from ``env`` and extra ``functions``.

    Provided functions shadow builtins of the same name and receive already
    evaluated arguments.  Every node visited costs one step of ``budget``.
    Any problem raises :class:`ExprError`.

    The tree is compiled once into Python closures (``_compiled``: built
    from the nodes, never from text) that compute what ``interpret``
    computes; a tree too deep or too large for ``budget``, or holding a
    malformed node, is interpreted.  Where a closure meets an error the
    expression is interpreted again, which raises the error with its
    location (the functions an expression calls are queries: calling them
    twice changes nothing).
    """
    kept = _COMPILED.get(id(expr))
    if kept is None or kept[0] is not expr:
        if len(_COMPILED) >= _COMPILED_KEPT:
            _COMPILED.clear()
        kept = _COMPILED[id(expr)] = (expr, *_compiled(expr))
    run = kept[1]
    if run is not None and kept[2] <= budget:
        return run(env, functions)
    return interpret(expr, env, functions, budget)


def interpret(
    expr: Expr,
    env: Mapping[str, object],
    functions: Mapping[str, Callable[..., object]] | None = None,
    budget: int = 10_000,
) -> object:
    """``evaluate`` by walking the tree on an explicit stack (no recursion:
    any depth ends in an :class:`ExprError`, never a ``RecursionError``)."""
    table: dict[str, Callable[..., object]] = dict(BUILTINS)
    if functions:
        table.update(functions)
    root_where = getattr(expr, "where", "") or ""
    values: list[object] = []
    # Tasks: (kind, node, depth, where) -- ``where`` is inherited from the
    # nearest ancestor that has one, so every error can point at the source.
    tasks: list[tuple[int, object, int, str]] = [(_EVAL, expr, 1, root_where)]
    steps = 0
    while tasks:
        kind, node, depth, where = tasks.pop()
        try:
            if kind == _EVAL:
                steps += 1
                if steps > budget:
                    raise ExprError(f"expression exceeded its step budget of {budget} steps", root_where)
                if not isinstance(node, _NODE_TYPES):
                    raise ExprError(f"not an expression: {type(node).__name__}")
                where = node.where or where
                if depth > MAX_DEPTH:
                    raise ExprError(f"expression is nested too deeply (more than {MAX_DEPTH} levels)")
                if isinstance(node, Num):
                    if not _is_number(node.value):
                        raise ExprError(f"invalid number literal {_show(node.value)}")
                    values.append(_normalise(node.value))
                elif isinstance(node, Str):
                    if not isinstance(node.value, str):
                        raise ExprError("invalid text literal")
                    values.append(node.value)
                elif isinstance(node, Bool):
                    if not isinstance(node.value, bool):
                        raise ExprError("invalid true/false literal")
                    values.append(node.value)
                elif isinstance(node, Name):
                    values.append(_lookup(node.name, env))
                elif isinstance(node, ListExpr):
                    tasks.append((_LIST, node, depth, where))
                    for item in reversed(node.items):
                        tasks.append((_EVAL, item, depth + 1, where))
                elif isinstance(node, Unary):
                    tasks.append((_UNARY, node, depth, where))
                    tasks.append((_EVAL, node.operand, depth + 1, where))
                elif isinstance(node, Binary):
                    if node.op in ("and", "or"):
                        tasks.append((_LOGIC, node, depth, where))
                    else:
                        tasks.append((_BINARY, node, depth, where))
                        tasks.append((_EVAL, node.right, depth + 1, where))
                    tasks.append((_EVAL, node.left, depth + 1, where))
                else:  # Call
                    if node.func not in table:
                        known = ", ".join(sorted(table))
                        raise ExprError(f"unknown function '{node.func}'; known functions: {known}")
                    tasks.append((_CALL, node, depth, where))
                    for arg in reversed(node.args):
                        tasks.append((_EVAL, arg, depth + 1, where))
            elif kind == _LIST:
                count = len(node.items)  # type: ignore[attr-defined]
                items = tuple(values[len(values) - count :]) if count else ()
                del values[len(values) - count :]
                values.append(items)
            elif kind == _UNARY:
                values.append(_unary(node.op, values.pop()))  # type: ignore[attr-defined]
            elif kind == _BINARY:
                right = values.pop()
                left = values.pop()
                values.append(_binary(node.op, left, right))  # type: ignore[attr-defined]
            elif kind == _LOGIC:
                op = node.op  # type: ignore[attr-defined]
                left = values.pop()
                if not isinstance(left, bool):
                    raise ExprError(f"'{op}' needs true or false, got {_kind(left)} {_show(left)}")
                if op == "and" and not left:
                    values.append(False)
                elif op == "or" and left:
                    values.append(True)
                else:
                    tasks.append((_LOGIC_RIGHT, node, depth, where))
                    tasks.append((_EVAL, node.right, depth + 1, where))  # type: ignore[attr-defined]
            elif kind == _LOGIC_RIGHT:
                right = values.pop()
                if not isinstance(right, bool):
                    op = node.op  # type: ignore[attr-defined]
                    raise ExprError(f"'{op}' needs true or false, got {_kind(right)} {_show(right)}")
                values.append(right)
            else:  # _CALL
                count = len(node.args)  # type: ignore[attr-defined]
                args = tuple(values[len(values) - count :]) if count else ()
                del values[len(values) - count :]
                name = node.func  # type: ignore[attr-defined]
                values.append(_call(name, table[name], args))
        except ExprError as exc:
            if where and not exc.where:
                raise without_context(ExprError(exc.message, where))
            raise
    return values.pop()


# --------------------------------------------------------------------------
# Compiled evaluation

#: A compiled expression: (names, functions) -> value.
Compiled: TypeAlias = Callable[[Mapping[str, object], "Mapping[str, Callable[..., object]] | None"], object]

#: Deepest tree evaluated by closures (one Python frame a level); deeper trees are interpreted.
_COMPILED_DEPTH = 64
#: id(expression) -> (the expression, its closure or None, its number of nodes)
_COMPILED: dict[int, tuple[Expr, Compiled | None, int]] = {}
_COMPILED_KEPT = 8192

_INT_OPS: dict[str, Callable[[int, int], object]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "+": operator.add, "-": operator.sub, "*": operator.mul,
}


def _compiled(expr: Expr) -> tuple[Compiled | None, int]:
    """(closure, number of nodes) for ``expr``; no closure for a tree deeper
    than ``_COMPILED_DEPTH`` or holding anything but well-formed nodes."""
    size = 0
    pending: list[tuple[object, int]] = [(expr, 1)]
    while pending:
        node, depth = pending.pop()
        size += 1
        if not isinstance(node, _NODE_TYPES) or depth > _COMPILED_DEPTH:
            return None, size
        if (isinstance(node, Num) and not _is_number(node.value)) or \
                (isinstance(node, Str) and not isinstance(node.value, str)) or \
                (isinstance(node, Bool) and not isinstance(node.value, bool)):
            return None, size
        pending.extend((c, depth + 1) for c in _children(node))
    return _build(expr, ""), size


def _build(node: Expr, where: str) -> Compiled:
    """The closure computing ``node`` as ``interpret`` does: left to right,
    ``and``/``or`` short-circuit, the same errors, located at the node or
    its nearest located ancestor (``where``)."""
    where = node.where or where
    if isinstance(node, Num):
        number = _normalise(node.value)
        return lambda env, fns: number
    if isinstance(node, (Str, Bool)):
        literal = node.value
        return lambda env, fns: literal
    if isinstance(node, Name):
        return _build_name(node.name, where)
    if isinstance(node, ListExpr):
        items = tuple(_build(x, where) for x in node.items)
        return lambda env, fns: tuple([f(env, fns) for f in items])
    if isinstance(node, Unary):
        return _build_unary(node.op, _build(node.operand, where), where)
    if isinstance(node, Binary):
        return _build_binary(node.op, _build(node.left, where), _build(node.right, where), where)
    return _build_call(node.func, tuple(_build(x, where) for x in node.args), where)


def without_context(exc: BaseException) -> BaseException:
    """``exc``, to be raised as ``raise exc from None`` raises it (no cause, the
    exception being handled not shown with it): said on the exception itself,
    because compiled code (runtime/compiled.py) drops a raise's ``from``."""
    exc.__cause__ = None
    exc.__suppress_context__ = True
    return exc


def _located(exc: ExprError, where: str) -> ExprError:
    """``exc`` with the location ``where`` if it has none (as ``interpret`` locates errors)."""
    return ExprError(exc.message, where) if where and not exc.where else exc


def _build_name(name: str, where: str) -> Compiled:
    def look_up(env, fns):
        try:
            return env[name]
        except Exception:
            pass
        try:
            return _lookup(name, env)
        except ExprError as exc:
            raise without_context(_located(exc, where))
    return look_up


def _build_unary(op: str, operand: Compiled, where: str) -> Compiled:
    def unary(env, fns):
        value = operand(env, fns)
        if op == "not":
            if value is True:
                return False
            if value is False:
                return True
        try:
            return _unary(op, value)
        except ExprError as exc:
            raise without_context(_located(exc, where))
    return unary


def _build_binary(op: str, left: Compiled, right: Compiled, where: str) -> Compiled:
    if op == "and" or op == "or":
        stop = op == "or"  # the left value that decides alone

        def logic(env, fns):
            a = left(env, fns)
            if a is stop:
                return stop
            if a is not (not stop):
                raise _located(ExprError(f"'{op}' needs true or false, got {_kind(a)} {_show(a)}"), where)
            b = right(env, fns)
            if b is True or b is False:
                return b
            raise _located(ExprError(f"'{op}' needs true or false, got {_kind(b)} {_show(b)}"), where)
        return logic
    if op == "==" or op == "!=":
        same = op == "=="

        def equal(env, fns):
            a = left(env, fns)
            b = right(env, fns)
            if type(a) is str and type(b) is str:
                return (a == b) is same
            return _equal(a, b) is same
        return equal
    fast = _INT_OPS.get(op)

    def binary(env, fns):
        a = left(env, fns)
        b = right(env, fns)
        if fast is not None and type(a) is int and type(b) is int:
            return fast(a, b)
        try:
            return _binary(op, a, b)
        except ExprError as exc:
            raise without_context(_located(exc, where))
    return binary


def _build_call(name: str, args: tuple[Compiled, ...], where: str) -> Compiled:
    builtin = BUILTINS.get(name)

    def call(env, fns):
        if fns and name in fns:
            function = fns[name]
        elif builtin is not None:
            function = builtin
        else:
            known = ", ".join(sorted({*BUILTINS, *(fns or ())}))
            raise _located(ExprError(f"unknown function '{name}'; known functions: {known}"), where)
        values = tuple([f(env, fns) for f in args])
        try:
            return _call(name, function, values)
        except ExprError as exc:
            raise without_context(_located(exc, where))
    return call


def _lookup(name: str, env: Mapping[str, object]) -> object:
    try:
        return env[name]
    except KeyError:
        pass
    except Exception:
        raise without_context(ExprError(f"cannot look up name '{name}'"))
    message = f"unknown name '{name}'"
    try:
        close = difflib.get_close_matches(name, [k for k in env if isinstance(k, str)], n=1)
    except Exception:
        close = []
    if close:
        message += f" (did you mean '{close[0]}'?)"
    raise ExprError(message)


# --------------------------------------------------------------------------
# Static helpers


def _children(node: Expr) -> tuple[Expr, ...]:
    if isinstance(node, ListExpr):
        return node.items
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Call):
        return node.args
    return ()


def walk(expr: Expr):
    """Every node of ``expr`` (pre-order, without recursion)."""
    pending = [expr]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(reversed(_children(node)))


def free_names(expr: Expr) -> frozenset[str]:
    """Names the expression reads from its environment."""
    return frozenset(node.name for node in walk(expr) if isinstance(node, Name))


def called_functions(expr: Expr) -> frozenset[str]:
    """Names of the functions the expression calls."""
    return frozenset(node.func for node in walk(expr) if isinstance(node, Call))


def _literal_text(node: Expr) -> tuple[str, int]:
    """Source text and precedence of a leaf node."""
    if isinstance(node, Num):
        value = node.value
        if isinstance(value, Fraction) and value.denominator != 1:
            text = _fraction_text(value)
        elif _is_number(value) and abs(int(value)).bit_length() > 10_000:
            raise ExprError("number literal is too large to print")
        else:
            text = str(int(value))
        return text, (_NEG_PREC if text.startswith("-") else _ATOM_PREC)
    if isinstance(node, Str):
        escaped = (
            node.value.replace("\\", "\\\\").replace('"', '\\"')
            .replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
        )
        return f'"{escaped}"', _ATOM_PREC
    if isinstance(node, Bool):
        return ("true" if node.value else "false"), _ATOM_PREC
    if isinstance(node, Name):
        return node.name, _ATOM_PREC
    raise ExprError(f"not an expression: {type(node).__name__}")


def _fraction_text(value: Fraction) -> str:
    """A decimal when the fraction has one (``7/2`` -> ``3.5``), else ``(7/3)``."""
    den = value.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"({value.numerator}/{value.denominator})"
    places = max(twos, fives)
    scaled = abs(value.numerator) * (10**places) // value.denominator
    digits = str(scaled).rjust(places + 1, "0")
    sign = "-" if value < 0 else ""
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _wrap(text: str, prec: int, needed: int) -> str:
    return text if prec >= needed else f"({text})"


def to_text(expr: Expr) -> str:
    """Print ``expr`` in source form with as few parentheses as the grammar allows."""
    results: list[tuple[str, int]] = []
    tasks: list[tuple[bool, Expr]] = [(False, expr)]
    while tasks:
        built, node = tasks.pop()
        if not built:
            children = _children(node)
            if not isinstance(node, (ListExpr, Unary, Binary, Call)):
                results.append(_literal_text(node))
                continue
            tasks.append((True, node))
            for child in reversed(children):
                tasks.append((False, child))
            continue
        if isinstance(node, ListExpr) or isinstance(node, Call):
            count = len(_children(node))
            parts = [text for text, _ in results[len(results) - count :]] if count else []
            del results[len(results) - count :]
            inner = ", ".join(parts)
            if isinstance(node, ListExpr):
                results.append((f"[{inner}]", _ATOM_PREC))
            else:
                results.append((f"{node.func}({inner})", _ATOM_PREC))
        elif isinstance(node, Unary):
            text, prec = results.pop()
            if node.op == "not":
                results.append((f"not {_wrap(text, prec, _NOT_PREC)}", _NOT_PREC))
            else:
                text = _wrap(text, prec, _NEG_PREC)
                if text.startswith("-"):
                    text = " " + text
                results.append((f"{node.op}{text}", _NEG_PREC))
        else:
            assert isinstance(node, Binary)
            right, right_prec = results.pop()
            left, left_prec = results.pop()
            op_prec = PRECEDENCE.get(node.op)
            if op_prec is None:
                raise ExprError(f"unknown operator {node.op!r}")
            left_needed = op_prec + 1 if op_prec == _COMPARISON else op_prec
            results.append(
                (f"{_wrap(left, left_prec, left_needed)} {node.op} {_wrap(right, right_prec, op_prec + 1)}", op_prec)
            )
    return results.pop()[0]
