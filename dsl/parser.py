"""Parsing: one facade over Lark that turns every Lark exception into a
DslSyntaxError with a span and a message in the designer's terms."""
from __future__ import annotations

import os
import re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Tree, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.exceptions import LarkError

from runtime import expr as E

from .ast import Arg, Entry, File, Row, Statement, Table
from .diagnostics import Diagnostic, DslSyntaxError, Span

GRAMMAR = Path(__file__).with_name("hxr.lark")
MAX_DEPTH = 100  # blocks and expressions nested deeper than this are refused

_TERMINAL_WORDS = {
    "NAME": "a keyword",
    "ATOM": "a value",
    "STRING": 'a "string"',
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "_SEP": "end of line",
    "WHEN": "'when'",
    "EQUAL": "'='",
    "TABLE": "'table'",
    "OVERRIDE": "'override'",
    "ENAME": "a name",
    "NUMBER": "a number",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*' or '/'",
    "MINUS": "'-'",
    "AND": "'and'",
    "OR": "'or'",
    "NOT": "'not'",
    "IN": "'in'",
    "TRUE": "'true'",
    "FALSE": "'false'",
    "$END": "end of file",
}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The parser, built once per process.  Lark's cache (a file in the temp
    folder keyed by the grammar's hash) makes later processes start ~10x
    faster; HEXFORGE_PARSER_CACHE=0 turns it off (for cold benchmarks)."""
    use_cache = os.environ.get("HEXFORGE_PARSER_CACHE", "1") != "0"
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=False,
        cache=use_cache,
    )


def _span(file: str, meta_or_token) -> Span:
    return Span(
        file,
        getattr(meta_or_token, "line", 1) or 1,
        getattr(meta_or_token, "column", 1) or 1,
        getattr(meta_or_token, "end_line", 0) or 0,
        getattr(meta_or_token, "end_column", 0) or 0,
    )


def _unquote(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


class _Builder:
    """Turns the Lark tree into dsl.ast nodes (an explicit second pass, as
    Lark's inline transformers cannot see positions)."""

    def __init__(self, file: str):
        self.file = file

    def file_(self, tree: Tree) -> File:
        return File(self.file, tuple(self.entry(c, 0) for c in tree.children))

    def entry(self, t: Tree, depth: int) -> Entry:
        if depth > MAX_DEPTH:
            raise _TooDeep(_span(self.file, t.meta))
        if t.data == "table":
            return self.table(t)
        return self.statement(t, depth)

    def arg(self, tok: Token) -> Arg:
        sp = _span(self.file, tok)
        if tok.type == "STRING":
            return Arg(_unquote(str(tok)), sp, True)
        return Arg(str(tok), sp, False)

    def table(self, t: Tree) -> Table:
        rows = []
        for r in t.children:
            cells = tuple(self.arg(c.children[0]) for c in r.children)
            rows.append(Row(cells, _span(self.file, r.meta)))
        return Table(tuple(rows), _span(self.file, t.meta))

    def statement(self, t: Tree, depth: int) -> Statement:
        override = False
        keyword = None
        args: list[Arg] = []
        cond = value = None
        body = None
        end = None
        for c in t.children:
            if isinstance(c, Token):
                if c.type == "OVERRIDE":
                    override = True
                else:
                    keyword = c
            elif c.data == "arg":
                args.append(self.arg(c.children[0]))
            elif c.data == "condition":
                cond = self.expr(c.children[0], 0)
            elif c.data == "value":
                value = self.expr(c.children[0], 0)
            elif c.data == "block":
                body = tuple(self.entry(x, depth + 1) for x in c.children)
                end = Span(self.file, c.meta.end_line, max(1, c.meta.end_column - 1))
        assert keyword is not None
        return Statement(str(keyword), _span(self.file, keyword), tuple(args), cond, value, body, override, end)

    def expr(self, t, depth: int) -> E.Expr:
        if depth > MAX_DEPTH:
            raise _TooDeep(_span(self.file, t.meta if isinstance(t, Tree) else t))
        if isinstance(t, Token):  # a bare parenthesised token cannot reach here
            raise AssertionError(t)
        where = str(_span(self.file, t.meta))
        k = t.children
        d = t.data
        sub = lambda x: self.expr(x, depth + 1)  # noqa: E731
        if d == "number":
            text = str(k[0])
            return E.Num(Fraction(text) if "." in text else int(text), where=where)
        if d == "string":
            return E.Str(_unquote(str(k[0])), where=where)
        if d == "true":
            return E.Bool(True, where=where)
        if d == "false":
            return E.Bool(False, where=where)
        if d == "name":
            return E.Name(str(k[0]), where=where)
        if d == "call":
            return E.Call(str(k[0]), tuple(sub(a) for a in k[1:] if a is not None), where=where)
        if d == "list_":
            return E.ListExpr(tuple(sub(a) for a in k if a is not None), where=where)
        if d == "neg":
            return E.Unary("-", sub(k[0]), where=where)
        if d == "not_":
            return E.Unary("not", sub(k[0]), where=where)
        if d == "or_":
            return E.Binary("or", sub(k[0]), sub(k[1]), where=where)
        if d == "and_":
            return E.Binary("and", sub(k[0]), sub(k[1]), where=where)
        if d in ("compare", "arith"):
            return E.Binary(str(k[1]), sub(k[0]), sub(k[2]), where=where)
        if d == "in_":
            return E.Binary("in", sub(k[0]), sub(k[1]), where=where)
        if d == "not_in":
            return E.Binary("not in", sub(k[0]), sub(k[1]), where=where)
        raise AssertionError(d)


class _TooDeep(Exception):
    def __init__(self, span: Span):
        self.span = span


def _words(names) -> list[str]:
    out = []
    for n in sorted(set(names)):
        w = _TERMINAL_WORDS.get(n)
        if w is None and n.startswith("__ANON"):
            continue
        out.append(w or n.lower())
    return sorted(set(out))


def _unclosed_brace(text: str) -> int | None:
    """Offset of the last '{' left open, ignoring strings and comments."""
    stack: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = text.find('"', i + 1)
            while j != -1 and text[j - 1] == "\\":
                j = text.find('"', j + 1)
            i = n if j == -1 else j + 1
            continue
        if ch == "#":
            j = text.find("\n", i)
            i = n if j == -1 else j
            continue
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def _syntax_diagnostic(e: UnexpectedInput, text: str, file: str) -> Diagnostic:
    line = getattr(e, "line", 1) or 1
    col = getattr(e, "column", 1) or 1
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        if ch == '"':
            return Diagnostic("syntax", "this string is not closed", Span(file, line, col),
                              'a "string" must end on the line where it starts')
        if ch == "=":
            return Diagnostic("syntax", "unexpected '='", Span(file, line, col),
                              "'=' introduces a value expression and may stand once, after the arguments")
        if ch == "\\":
            return Diagnostic("syntax", "unexpected '\\'", Span(file, line, col),
                              "a '\\' continues a line only when it is the last character on it")
        expected = _words(e.allowed or ())
        hint = ("expected " + " or ".join(expected)) if expected and len(expected) <= 6 else ""
        return Diagnostic("syntax", f"unexpected character {ch!r}", Span(file, line, col), hint)
    if isinstance(e, (UnexpectedToken, UnexpectedEOF)):
        tok = getattr(e, "token", None)
        expected = _words(getattr(e, "expected", None) or getattr(e, "accepts", None) or ())
        at_end = tok is None or tok.type == "$END"
        if at_end:
            off = _unclosed_brace(text)
            if off is not None:
                l, c = _line_col(text, off)
                return Diagnostic("syntax", "the file ends inside a block: a '}' is missing",
                                  Span(file, l, c), "this '{' is never closed")
            l, c = _line_col(text, len(text.rstrip()))
            return Diagnostic("syntax", "the file ends in the middle of a statement", Span(file, l, max(1, c)),
                              ("expected " + " or ".join(expected)) if expected else "")
        value = str(tok)
        sp = Span(file, tok.line or line, tok.column or col, tok.end_line or 0, tok.end_column or 0)
        if tok.type == "RBRACE" and "'}'" not in expected:
            return Diagnostic("syntax", "unexpected '}': no block is open here", sp,
                              "remove it, or look for a '{' missing above")
        if tok.type == "LBRACE":
            return Diagnostic("syntax", "unexpected '{'", sp,
                              "a block opens after a statement's keyword and arguments, on the same line")
        shown = "end of line" if tok.type == "_SEP" else f"'{value}'"
        hint = ("expected " + " or ".join(expected)) if expected and len(expected) <= 8 else ""
        if tok.type == "_SEP" and "a name" in expected and "a number" in expected:
            return Diagnostic("syntax", "the expression ends too early", sp,
                              "expected a name, a number, a \"string\", '(' or '[' here")
        return Diagnostic("syntax", f"unexpected {shown}", sp, hint)
    return Diagnostic("syntax", str(e).splitlines()[0], Span(file, line, col))


def parse(text: str, file: str = "<text>") -> File:
    """Parse rules or map text.  Raises DslSyntaxError; never a Lark error."""
    if "\x00" in text:
        off = text.index("\x00")
        l, c = _line_col(text, off)
        raise DslSyntaxError([Diagnostic("syntax", "the file contains a NUL character", Span(file, l, c),
                                         "is this a text file?")], {file: text})
    source = text if text.endswith("\n") else text + "\n"
    try:
        tree = _lark().parse(source)
        return _Builder(file).file_(tree)
    except UnexpectedInput as e:
        raise DslSyntaxError([_syntax_diagnostic(e, source, file)], {file: text}) from None
    except _TooDeep as e:
        raise DslSyntaxError([Diagnostic("syntax", f"nested more than {MAX_DEPTH} levels deep", e.span)],
                             {file: text}) from None
    except RecursionError:
        raise DslSyntaxError([Diagnostic("syntax", "nested too deeply to read", Span(file, 1, 1))],
                             {file: text}) from None
    except LarkError as e:  # any other Lark failure still becomes a diagnostic
        raise DslSyntaxError([Diagnostic("syntax", str(e).splitlines()[0], Span(file, 1, 1))],
                             {file: text}) from None
