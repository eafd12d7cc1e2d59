"""Tests for runtime.expr: evaluation, errors, budgets and printing."""

import ast
import enum
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.expr import (
    BUILTINS,
    MAX_DEPTH,
    Binary,
    Bool,
    Call,
    ExprError,
    ListExpr,
    Name,
    Num,
    Str,
    Unary,
    called_functions,
    evaluate,
    free_names,
    interpret,
    to_text,
)


def n(value):
    return Num(value)


def b(op, left, right):
    return Binary(op, left, right)


def ev(expr, env=None, functions=None, **kwargs):
    return evaluate(expr, env or {}, functions, **kwargs)


T, F = Bool(True), Bool(False)


class Side(enum.Enum):
    AXIS = "axis"
    SOVIET = "soviet"


# -- booleans -------------------------------------------------------------------


@pytest.mark.parametrize("x", [True, False])
@pytest.mark.parametrize("y", [True, False])
def test_and_or_truth_tables(x, y):
    assert ev(b("and", Bool(x), Bool(y))) is (x and y)
    assert ev(b("or", Bool(x), Bool(y))) is (x or y)


def test_not():
    assert ev(Unary("not", T)) is False
    assert ev(Unary("not", F)) is True
    assert ev(Unary("not", Unary("not", T))) is True


def test_short_circuit_does_not_call_the_right_side():
    calls = []

    def boom():
        calls.append(1)
        raise RuntimeError("should not be called")

    functions = {"boom": boom}
    assert ev(b("and", F, Call("boom", ())), functions=functions) is False
    assert ev(b("or", T, Call("boom", ())), functions=functions) is True
    assert calls == []
    with pytest.raises(ExprError, match=r"boom\(\) failed"):
        ev(b("and", T, Call("boom", ())), functions=functions)
    assert calls == [1]


def test_logic_requires_booleans():
    with pytest.raises(ExprError, match="'and' needs true or false"):
        ev(b("and", n(1), T))
    with pytest.raises(ExprError, match="'or' needs true or false"):
        ev(b("or", F, n(0)))
    with pytest.raises(ExprError, match="'not' needs true or false"):
        ev(Unary("not", Str("yes")))


def test_example_condition():
    expr = b("and", b("<=", Name("turn"), n(3)), b("==", Name("side"), Name("axis")))
    env = {"turn": 2, "side": Side.AXIS, "axis": Side.AXIS}
    assert ev(expr, env) is True
    assert ev(expr, {**env, "turn": 4}) is False
    assert ev(expr, {**env, "side": Side.SOVIET}) is False


# -- numbers ----------------------------------------------------------------------


def test_exact_division():
    assert ev(b("/", n(7), n(2))) == Fraction(7, 2)
    assert type(ev(b("/", n(7), n(2)))) is Fraction
    result = ev(b("/", n(6), n(2)))
    assert result == 3 and type(result) is int
    assert ev(b("/", n(Fraction(1, 2)), n(Fraction(1, 4)))) == 2
    assert type(ev(b("+", n(Fraction(1, 2)), n(Fraction(1, 2))))) is int


def test_arithmetic():
    assert ev(b("+", n(2), n(3))) == 5
    assert ev(b("-", n(2), n(3))) == -1
    assert ev(b("*", n(Fraction(3, 2)), n(4))) == 6
    assert ev(b("//", n(7), n(2))) == 3
    assert ev(b("//", n(-7), n(2))) == -4
    assert ev(b("%", n(7), n(3))) == 1
    assert ev(Unary("-", n(5))) == -5
    assert ev(b("+", n(1), n(Fraction(1, 3)))) == Fraction(4, 3)


@pytest.mark.parametrize("op", ["/", "//", "%"])
def test_division_by_zero(op):
    with pytest.raises(ExprError, match="division by zero"):
        ev(b(op, n(1), n(0)))
    with pytest.raises(ExprError, match="division by zero"):
        ev(b(op, n(1), n(Fraction(0))))


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%"])
def test_bool_arithmetic_is_rejected(op):
    with pytest.raises(ExprError, match="needs two numbers"):
        ev(b(op, T, n(1)))
    with pytest.raises(ExprError, match="needs two numbers"):
        ev(b(op, n(1), F))
    with pytest.raises(ExprError, match="needs two numbers"):
        ev(b(op, Name("flag"), n(1)), {"flag": True})


def test_other_bad_arithmetic():
    with pytest.raises(ExprError, match="'-' needs a number"):
        ev(Unary("-", T))
    with pytest.raises(ExprError, match="needs two numbers, got text"):
        ev(b("+", Str("a"), Str("b")))
    with pytest.raises(ExprError):
        ev(Num(True))  # a bool is not a number literal
    with pytest.raises(ExprError):
        ev(Num(1.5))  # floats are not values


def test_builtins():
    assert ev(Call("half", (n(7),))) == 3
    assert ev(Call("half", (n(-7),))) == -4
    assert ev(Call("half", (n(Fraction(9, 2)),))) == 2
    assert type(ev(Call("half", (n(8),)))) is int
    assert ev(Call("min", (n(3), n(1), n(2)))) == 1
    assert ev(Call("max", (ListExpr((n(3), n(Fraction(7, 2)))),))) == Fraction(7, 2)
    assert ev(Call("abs", (n(-4),))) == 4
    assert ev(Call("floor", (n(Fraction(7, 2)),))) == 3
    assert ev(Call("ceil", (n(Fraction(7, 2)),))) == 4
    assert ev(Call("round_down", (n(Fraction(-1, 2)),))) == -1
    assert ev(Call("count", (ListExpr((n(1), T, Str("x"))),))) == 3
    assert ev(Call("sum", (ListExpr((n(1), n(Fraction(1, 2)), n(Fraction(1, 2)))),))) == 2
    assert ev(Call("sum", (ListExpr(()),))) == 0
    assert set(BUILTINS) == {"min", "max", "abs", "half", "floor", "ceil", "round_down", "count", "sum"}


def test_builtin_argument_errors():
    with pytest.raises(ExprError, match=r"half\(\) takes exactly 1 argument \(2 given\)"):
        ev(Call("half", (n(1), n(2))))
    with pytest.raises(ExprError, match=r"half\(\) needs a number, got true/false value"):
        ev(Call("half", (T,)))
    with pytest.raises(ExprError, match=r"count\(\) needs a list"):
        ev(Call("count", (n(3),)))
    with pytest.raises(ExprError, match=r"min\(\) needs at least one number"):
        ev(Call("min", ()))
    with pytest.raises(ExprError, match=r"sum\(\) needs a number"):
        ev(Call("sum", (ListExpr((Str("x"),)),)))


# -- comparisons and lists ---------------------------------------------------------


def test_comparisons():
    assert ev(b("<", n(1), n(Fraction(3, 2)))) is True
    assert ev(b(">=", n(Fraction(4, 2)), n(2))) is True
    assert ev(b("<", Str("a"), Str("b"))) is True
    assert ev(b("!=", n(1), n(2))) is True
    with pytest.raises(ExprError, match="cannot compare number 1 with text"):
        ev(b("<", n(1), Str("b")))
    with pytest.raises(ExprError, match="cannot compare"):
        ev(b("<", T, F))


def test_equality_works_on_any_values():
    assert ev(b("==", n(2), n(Fraction(4, 2)))) is True
    assert ev(b("==", n(1), T)) is False  # a bool is not the number 1
    assert ev(b("==", n(0), F)) is False
    assert ev(b("==", Str("1"), n(1))) is False
    assert ev(b("==", ListExpr((n(1), Str("a"))), ListExpr((n(1), Str("a"))))) is True
    assert ev(b("==", ListExpr((n(1),)), ListExpr((T,)))) is False
    assert ev(b("==", Name("s"), Name("axis")), {"s": Side.AXIS, "axis": Side.AXIS}) is True


def test_in_over_lists():
    weather = ListExpr((Name("mud"), Name("snow")))
    env = {"weather": "mud", "mud": "mud", "snow": "snow", "clear": "clear"}
    assert ev(b("in", Name("weather"), weather), env) is True
    assert ev(b("not in", Name("weather"), weather), env) is False
    assert ev(b("in", Name("clear"), weather), env) is False
    assert ev(b("in", n(1), ListExpr((T,)))) is False
    assert ev(b("in", n(2), ListExpr((n(1), n(Fraction(4, 2)))))) is True
    assert ev(b("in", n(1), ListExpr(()))) is False
    assert ev(ListExpr((n(1), ListExpr((n(2),))))) == (1, (2,))
    with pytest.raises(ExprError, match="'in' needs a list on its right, got text"):
        ev(b("in", Str("a"), Str("abc")))


# -- names, functions and errors ------------------------------------------------------


def test_unknown_name_is_reported_by_name():
    with pytest.raises(ExprError, match="unknown name 'strenght'") as info:
        ev(Name("strenght"), {"strength": 3})
    assert "did you mean 'strength'" in str(info.value)


def test_unknown_function_lists_known_ones():
    with pytest.raises(ExprError) as info:
        ev(Call("frobnicate", (n(1),)), functions={"terrain_cost": lambda x: 1})
    message = str(info.value)
    assert "unknown function 'frobnicate'" in message
    assert "half" in message and "terrain_cost" in message


def test_functions_receive_values_and_shadow_builtins():
    seen = []

    def record(*args):
        seen.append(args)
        return len(args)

    assert ev(Call("record", (b("+", n(1), n(2)), ListExpr((T,)))), functions={"record": record}) == 2
    assert seen == [(3, (True,))]
    assert ev(Call("half", (n(7),)), functions={"half": lambda x: 99}) == 99


@pytest.mark.parametrize("exc", [ValueError("bad value"), KeyError("k"), ZeroDivisionError(), RecursionError("deep")])
def test_function_exceptions_are_wrapped(exc):
    def broken(*args):
        raise exc

    with pytest.raises(ExprError, match=r"function broken\(\) failed") as info:
        ev(Call("broken", (), where="rules.hf:4:2"), functions={"broken": broken})
    assert str(info.value).startswith("rules.hf:4:2: ")
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_expr_error_from_a_function_gets_a_location():
    def picky(x):
        raise ExprError("picky() wants an even number")

    with pytest.raises(ExprError) as info:
        ev(Call("picky", (n(3),), where="scenario.hf:9:14"), functions={"picky": picky})
    assert str(info.value) == "scenario.hf:9:14: picky() wants an even number"


def test_where_prefix_and_inheritance():
    with pytest.raises(ExprError) as info:
        ev(Name("ghost", where="a.hf:1:5"))
    assert str(info.value) == "a.hf:1:5: unknown name 'ghost'"
    assert info.value.where == "a.hf:1:5" and info.value.message == "unknown name 'ghost'"
    # a child without a location reports its nearest located ancestor
    with pytest.raises(ExprError, match=r"^b\.hf:2:1: unknown name 'ghost'$"):
        ev(Binary("+", n(1), Name("ghost"), where="b.hf:2:1"))
    with pytest.raises(ExprError, match=r"^unknown name 'ghost'$"):
        ev(Name("ghost"))


def test_where_is_not_part_of_equality():
    assert Name("x", where="f:1:1") == Name("x")
    assert hash(Binary("+", n(1), n(2), where="f:1:1")) == hash(Binary("+", n(1), n(2)))


# -- budgets and depth -------------------------------------------------------------------


def test_budget_exhaustion_on_a_huge_balanced_tree():
    tree = n(1)
    for _ in range(16):  # 131071 node visits, depth 17
        tree = b("+", tree, tree)
    with pytest.raises(ExprError) as info:
        ev(tree)
    assert str(info.value) == "expression exceeded its step budget of 10000 steps"
    assert ev(tree, budget=200_000) == 2**16


def test_budget_on_a_wide_list_and_small_budgets():
    wide = ListExpr(tuple(n(i) for i in range(20_000)))
    with pytest.raises(ExprError, match="step budget of 10000 steps"):
        ev(wide)
    assert len(ev(wide, budget=20_001)) == 20_000
    expr = b("+", n(1), n(2))
    assert ev(expr, budget=3) == 3
    with pytest.raises(ExprError, match="step budget of 2 steps"):
        ev(expr, budget=2)


@pytest.mark.parametrize("op", ["+", "and", "-"])
def test_ten_thousand_chained_nodes_raise_expr_error_not_recursion_error(op):
    leaf = T if op == "and" else n(1)
    left = leaf
    right = leaf
    for _ in range(10_000):
        left = b(op, left, leaf)
        right = b(op, leaf, right)
    for tree in (left, right):
        with pytest.raises(ExprError):
            ev(tree, budget=1_000_000)
        assert len(free_names(tree)) == 0
        assert called_functions(tree) == frozenset()
        assert to_text(tree).count(op) >= 10_000


def test_depth_limit_is_two_hundred():
    ok = n(1)
    for _ in range(MAX_DEPTH - 1):  # root at depth 200
        ok = b("+", ok, n(1))
    assert ev(ok) == MAX_DEPTH
    too_deep = b("+", ok, n(1))
    with pytest.raises(ExprError, match="nested too deeply"):
        ev(too_deep)


# -- static helpers and printing ------------------------------------------------------------


def test_free_names_and_called_functions():
    expr = b(
        "and",
        b("in", Name("weather"), ListExpr((Name("mud"), Name("snow")))),
        b(">", Call("half", (Name("strength"),)), Call("terrain", (Name("hex"), n(1)))),
    )
    assert free_names(expr) == {"weather", "mud", "snow", "strength", "hex"}
    assert called_functions(expr) == {"half", "terrain"}
    assert free_names(n(1)) == frozenset()


a_, b_, c_ = Name("a"), Name("b"), Name("c")


@pytest.mark.parametrize(
    "tree, text",
    [
        (b("-", a_, b("-", b_, c_)), "a - (b - c)"),
        (b("-", b("-", a_, b_), c_), "a - b - c"),
        (b("*", b("+", a_, b_), c_), "(a + b) * c"),
        (b("+", a_, b("*", b_, c_)), "a + b * c"),
        (b("/", a_, b("*", b_, c_)), "a / (b * c)"),
        (b("//", b("%", a_, b_), c_), "a % b // c"),
        (Unary("not", b("and", a_, b_)), "not (a and b)"),
        (b("and", Unary("not", a_), b_), "not a and b"),
        (b("and", a_, Unary("not", b_)), "a and not b"),
        (Unary("not", b("==", a_, b_)), "not a == b"),
        (b("==", Unary("not", a_), b_), "(not a) == b"),
        (b("or", a_, b("and", b_, c_)), "a or b and c"),
        (b("and", b("or", a_, b_), c_), "(a or b) and c"),
        (b("and", a_, b("and", b_, c_)), "a and (b and c)"),
        (b("==", b("<", a_, b_), T), "(a < b) == true"),
        (b("<", a_, b("+", b_, n(1))), "a < b + 1"),
        (b("not in", Name("weather"), ListExpr((Name("mud"), Name("snow")))), "weather not in [mud, snow]"),
        (b("+", Call("half", (Name("strength"),)), n(1)), "half(strength) + 1"),
        (Call("max", (b("+", a_, b_), ListExpr(()))), "max(a + b, [])"),
        (Unary("-", b("+", a_, b_)), "-(a + b)"),
        (Unary("-", Unary("-", a_)), "- -a"),
        (b("-", a_, Unary("-", b_)), "a - -b"),
        (b("*", Unary("-", a_), b_), "-a * b"),
        (Str('say "hi"\\'), '"say \\"hi\\"\\\\"'),
        (Num(Fraction(7, 2)), "3.5"),
        (Num(Fraction(1, 3)), "(1/3)"),
        (Num(Fraction(-3, 8)), "-0.375"),
        (F, "false"),
    ],
)
def test_to_text_examples(tree, text):
    assert to_text(tree) == text


# A reference reader for printed expressions: Python's own parser has the same
# precedence as the expression language, so reading to_text output back
# through it checks that the printed parentheses preserve the tree exactly.

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%"}
_CMPOPS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "not in",
}


def from_python(node):
    if isinstance(node, ast.Expression):
        return from_python(node.body)
    if isinstance(node, ast.BoolOp):
        op = "and" if isinstance(node.op, ast.And) else "or"
        result = from_python(node.values[0])
        for value in node.values[1:]:
            result = Binary(op, result, from_python(value))
        return result
    if isinstance(node, ast.BinOp):
        return Binary(_BINOPS[type(node.op)], from_python(node.left), from_python(node.right))
    if isinstance(node, ast.Compare):
        assert len(node.ops) == 1, "comparisons must never chain"
        return Binary(_CMPOPS[type(node.ops[0])], from_python(node.left), from_python(node.comparators[0]))
    if isinstance(node, ast.UnaryOp):
        op = "not" if isinstance(node.op, ast.Not) else "-"
        assert isinstance(node.op, (ast.Not, ast.USub))
        return Unary(op, from_python(node.operand))
    if isinstance(node, ast.Call):
        return Call(node.func.id, tuple(from_python(arg) for arg in node.args))
    if isinstance(node, ast.List):
        return ListExpr(tuple(from_python(item) for item in node.elts))
    if isinstance(node, ast.Name):
        if node.id in ("true", "false"):
            return Bool(node.id == "true")
        return Name(node.id)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return Str(node.value)
        if isinstance(node.value, float):
            return Num(Fraction(repr(node.value)))
        return Num(node.value)
    raise AssertionError(f"unexpected Python node {ast.dump(node)}")


NAMES = ["a", "b", "turn", "side", "x1", "strength"]
leaves = st.one_of(
    st.integers(0, 10**6).map(Num),
    st.builds(Fraction, st.integers(1, 999), st.sampled_from([2, 4, 5, 8])).filter(lambda f: f.denominator != 1).map(Num),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126) | st.sampled_from('\n\t"\\'), max_size=8).map(Str),
    st.booleans().map(Bool),
    st.sampled_from(NAMES).map(Name),
)
ALL_BINARY = ["and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "+", "-", "*", "/", "//", "%"]


def _compound(children):
    return st.one_of(
        st.builds(Binary, st.sampled_from(ALL_BINARY), children, children),
        st.builds(Unary, st.sampled_from(["-", "not"]), children),
        st.lists(children, max_size=3).map(lambda xs: ListExpr(tuple(xs))),
        st.builds(Call, st.sampled_from(["half", "max", "f"]), st.lists(children, max_size=3).map(tuple)),
    )


trees = st.recursive(leaves, _compound, max_leaves=25)


@given(trees)
@settings(max_examples=300)
def test_to_text_round_trips_structure(tree):
    text = to_text(tree)
    assert from_python(ast.parse(text, mode="eval")) == tree


# -- robustness: random trees only ever raise ExprError -------------------------------------


class Opaque:
    """An environment value that is not one of the language's own types."""

    def __eq__(self, other):
        raise RuntimeError("opaque values refuse comparison")

    __hash__ = object.__hash__


FUNCTIONS = {
    "ident": lambda *args: args[0] if args else 0,
    "boom": lambda *args: 1 / 0,
    "raise_value": lambda *args: int("not a number"),
    "floaty": lambda *args: 1.5,
    "none": lambda *args: None,
    "want_two": lambda x, y: x,
    "expr_error": lambda *args: (_ for _ in ()).throw(ExprError("custom failure")),
}
ENV = {
    "a": 3,
    "b": Fraction(5, 2),
    "flag": True,
    "side": Side.AXIS,
    "axis": Side.AXIS,
    "word": "mud",
    "pair": (1, "x"),
    "nested": ((1, 2), (3,)),
    "opaque": Opaque(),
    "huge": 10**5000,
    "nothing": None,
}

wild_leaves = st.one_of(
    st.integers(-(10**30), 10**30).map(Num),
    st.fractions().map(Num),
    st.sampled_from([Num(0), Num(True), Num(1.5), Num("7")]),  # includes malformed literals
    st.text(max_size=5).map(Str),
    st.booleans().map(Bool),
    st.sampled_from(list(ENV) + ["missing"]).map(Name),
)


def _wild_compound(children):
    return st.one_of(
        st.builds(Binary, st.sampled_from(ALL_BINARY + ["**", "&"]), children, children),
        st.builds(Unary, st.sampled_from(["-", "not", "~"]), children),
        st.lists(children, max_size=4).map(lambda xs: ListExpr(tuple(xs))),
        st.builds(
            Call,
            st.sampled_from(sorted(BUILTINS) + sorted(FUNCTIONS) + ["nosuch"]),
            st.lists(children, max_size=3).map(tuple),
        ),
    )


wild_trees = st.recursive(wild_leaves, _wild_compound, max_leaves=40)


@given(wild_trees, st.integers(1, 200))
@settings(max_examples=500)
def test_random_trees_evaluate_or_raise_expr_error(tree, budget):
    try:
        evaluate(tree, ENV, FUNCTIONS, budget=budget)
    except ExprError as exc:
        assert str(exc)
    free_names(tree)
    called_functions(tree)


def _outcome(run):
    try:
        value = run()
    except ExprError as exc:
        return "error", str(exc)
    return "value", type(value), value


@given(wild_trees, st.integers(1, 200))
@settings(max_examples=500)
def test_compiled_trees_compute_what_the_interpreter_computes(tree, budget):
    """evaluate (closures built once per tree) and interpret (the tree walked
    each time) give the same value of the same type, or the same located error."""
    for _ in range(2):  # compiled on first use, then kept
        assert _outcome(lambda: evaluate(tree, ENV, FUNCTIONS, budget=budget)) == \
            _outcome(lambda: interpret(tree, ENV, FUNCTIONS, budget=budget))
