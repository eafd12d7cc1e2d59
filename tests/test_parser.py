"""The parser facade: positions, syntax errors in the designer's terms, and
expressions that print back to text and re-parse to the same tree."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl.ast import Table
from dsl.diagnostics import DslSyntaxError
from dsl.parser import parse
from runtime import expr as E


def syntax_error(text: str):
    with pytest.raises(DslSyntaxError) as e:
        parse(text, "t.hxr")
    (d,) = e.value.diagnostics
    return d


def test_statements_blocks_tables_and_positions():
    f = parse('side axis "Axis" { colour "#8c8c8c" }\n\ncrt c {\n  table {\n    die 1-1 1.5-1\n    1   A1  —\n  }\n}\n',
              "t.hxr")
    side, crt = f.entries
    assert side.keyword == "side" and [a.text for a in side.args] == ["axis", "Axis"]
    assert side.args[1].quoted and not side.args[0].quoted
    assert side.body[0].args[0].text == "#8c8c8c"
    (table,) = crt.body
    assert isinstance(table, Table)
    assert [c.text for c in table.rows[0].cells] == ["die", "1-1", "1.5-1"]
    assert [c.text for c in table.rows[1].cells] == ["1", "A1", "—"]
    assert (crt.span.line, crt.span.col) == (3, 1)
    assert (table.rows[1].cells[2].span.line, table.rows[1].cells[2].span.col) == (6, 13)


def test_semicolons_comments_and_continuations():
    f = parse("a 1; b 2   # two statements\n# a comment line\nc 3 \\\n  4\n", "t.hxr")
    assert [(s.keyword, [a.text for a in s.args]) for s in f.entries] == [
        ("a", ["1"]), ("b", ["2"]), ("c", ["3", "4"])]


def test_keywords_are_plain_cells_inside_tables():
    (t,) = parse("x {\n table {\n  table when and override import\n }\n}", "t").entries[0].body
    assert [c.text for c in t.rows[0].cells] == ["table", "when", "and", "override", "import"]


def test_value_and_condition():
    (s,) = parse("award axis = 5 when turn == 4 and controls(axis, \"3510\")", "t").entries
    assert s.value == E.Num(5)
    assert s.condition == E.Binary("and", E.Binary("==", E.Name("turn"), E.Num(4)),
                                   E.Call("controls", (E.Name("axis"), E.Str("3510"))))


def test_names_with_dashes_and_digits_in_expressions():
    (s,) = parse("x when terrain == major-river and hq == 2PzA and turn - 1 >= 22", "t").entries
    left, right = s.condition.left, s.condition.right
    assert left.right.right == E.Name("2PzA") and left.left.right == E.Name("major-river")
    assert right == E.Binary(">=", E.Binary("-", E.Name("turn"), E.Num(1)), E.Num(22))


def test_unclosed_block_points_at_its_brace():
    d = syntax_error('side axis {\n  colour "#fff"\n\nside soviet\n')
    assert d.message == "the file ends inside a block: a '}' is missing"
    assert (d.span.line, d.span.col) == (1, 11)


def test_unclosed_string():
    d = syntax_error('side axis "Axis\n')
    assert d.message == "this string is not closed" and (d.span.line, d.span.col) == (1, 11)


def test_stray_closing_brace():
    d = syntax_error("side axis\n}\n")
    assert "no block is open" in d.message and d.span.line == 2


def test_incomplete_expression():
    d = syntax_error("x when turn ==\n")
    assert d.span.line == 1 and d.message == "the expression ends too early"


def test_nul_and_deep_nesting_are_diagnostics_not_crashes():
    assert "NUL" in syntax_error("a\x00b").message
    assert "nested" in syntax_error("a {" * 300 + "}" * 300).message
    assert "nested" in syntax_error("x when " + "not " * 300 + "true").message
    # brackets count too, though grouping builds no node (issue 11: 100,000 '(' once compiled)
    assert "nested" in syntax_error("x when " + "(" * 300 + "1" + ")" * 300).message


# --------------------------------------------------------------- round trip

names = st.sampled_from(["turn", "axis", "weather", "mud", "major-river", "2PzA", "hq"])
leaves = st.one_of(st.integers(0, 999).map(E.Num), names.map(E.Name), st.booleans().map(E.Bool),
                   st.sampled_from(["3510", "a b", ""]).map(E.Str))


def _tree(children):
    return st.one_of(
        st.tuples(st.sampled_from(["and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "not in",
                                   "+", "-", "*", "/", "//", "%"]), children, children)
        .map(lambda t: E.Binary(t[0], t[1], t[2])),
        st.tuples(st.sampled_from(["-", "not"]), children).map(lambda t: E.Unary(t[0], t[1])),
        st.lists(children, max_size=3).map(lambda xs: E.ListExpr(tuple(xs))),
        st.tuples(st.sampled_from(["half", "max", "controls"]), st.lists(children, max_size=3))
        .map(lambda t: E.Call(t[0], tuple(t[1]))),
    )


expressions = st.recursive(leaves, _tree, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_to_text_parses_back_to_the_same_tree(e):
    text = E.to_text(e)
    (s,) = parse(f"x when {text}", "t").entries
    assert s.condition == e, text


def test_table_errors_point_at_the_cell():
    d = syntax_error("crt c {\n  table {\n    die 1-1\n    1   A=1\n  }\n}\n")
    assert d.message == "unexpected '=' in a table" and (d.span.line, d.span.col) == (4, 10)
    d = syntax_error('x {\n  table {\n    a "open\n  }\n}\n')
    assert d.message == "this string is not closed" and (d.span.line, d.span.col) == (3, 7)


def test_table_rows_split_on_lines_semicolons_and_continuations():
    (t,) = parse('x {\n table {\n  a "b c" 1.5-1   # note\n  2 — ; 3 4\n  5 \\\n  6\n }\n}\n', "t").entries[0].body
    assert [[(c.text, c.span.line, c.span.col) for c in r.cells] for r in t.rows] == [
        [("a", 3, 3), ("b c", 3, 5), ("1.5-1", 3, 11)],
        [("2", 4, 3), ("—", 4, 5)],
        [("3", 4, 9), ("4", 4, 11)],
        [("5", 5, 3), ("6", 6, 3)],
    ]
