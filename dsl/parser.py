"""Parsing: one facade over Lark that turns every Lark exception into a
DslSyntaxError with a span and a message in the designer's terms."""
from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from functools import lru_cache

from dataclasses import dataclass

from .hxr_parser import (LarkError, Lark_StandAlone, Token, Transformer, UnexpectedCharacters, UnexpectedEOF,
                         UnexpectedInput, UnexpectedToken, VisitError)

from runtime import expr as E

from .ast import Arg, File, Row, Statement, Table
from .diagnostics import Diagnostic, DslSyntaxError, Span, normalise_newlines

MAX_DEPTH = 100  # blocks and expressions nested deeper than this are refused
MAX_LINE_CHARS = 10_000  # a longer line is refused before parsing (a million arguments would take seconds)
MAX_DIGITS = 30  # a longer number is refused ("number too large"), never handed to int()

_TERMINAL_WORDS = {
    "NAME": "a keyword",
    "ATOM": "a value",
    "ARGS": "a value",
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
def _lark():
    """The parser, built once per process from the tables in dsl/hxr_parser.py
    (Lark's standalone parser, generated from hxr.lark by ``make parser``).
    It reads no file: Lark's own cache is a pickle in the shared temp folder,
    which another user could plant."""
    return Lark_StandAlone(transformer=_BUILD)


def _unquote(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _tok_span(file: str, tok: Token) -> Span:
    return Span(file, tok.line or 1, tok.column or 1, tok.end_line or 0, tok.end_column or 0)


def _where_of(x) -> str:
    return x.where if hasattr(x, "where") else ""


class _Build(Transformer):
    """Builds dsl.ast nodes while Lark parses (an inline LALR transformer:
    no parse tree, no position pass).  Spans come from the tokens."""

    file = "<text>"

    def start(self, children):
        return File(self.file, tuple(children))

    def statement(self, children):
        override = False
        keyword = None
        args: list[Arg] = []
        cond = value = None
        body = None
        end = None
        for c in children:
            if isinstance(c, Token):
                if c.type == "OVERRIDE":
                    override = True
                elif c.type == "NAME":
                    keyword = c
                else:  # ARGS: the argument run
                    for row in split_table(self.file, str(c), c.line, c.column):
                        args.extend(row.cells)
            elif isinstance(c, _Cond):
                cond = c.expr
            elif isinstance(c, _Value):
                value = c.expr
            elif isinstance(c, _Block):
                body, end = c.entries, c.end
        return Statement(str(keyword), _tok_span(self.file, keyword), tuple(args), cond, value, body, override, end)

    def condition(self, children):
        return _Cond(children[0])

    def value(self, children):
        return _Value(children[0])

    def block(self, children):
        rb = children[-1]
        return _Block(tuple(children[:-1]), _tok_span(self.file, rb))

    def table(self, children):
        kw = children[0]
        body = children[1] if len(children) > 1 else None
        rows = split_table(self.file, str(body), body.line, body.column) if body is not None else []
        return Table(tuple(rows), _tok_span(self.file, kw))

    # expressions
    def _w(self, tok: Token) -> str:
        return f"{self.file}:{tok.line}:{tok.column}"

    def number(self, c):
        text = str(c[0])
        if len(text) > MAX_DIGITS + 1 or len(text.replace(".", "")) > MAX_DIGITS:  # whole and decimal digits
            raise _TableError(_tok_span(self.file, c[0]), "number too large",
                              f"numbers have at most {MAX_DIGITS} digits")
        return E.Num(Fraction(text) if "." in text else int(text), where=self._w(c[0]))

    def string(self, c):
        return E.Str(_unquote(str(c[0])), where=self._w(c[0]))

    def true(self, c):
        return E.Bool(True)

    def false(self, c):
        return E.Bool(False)

    def name(self, c):
        return E.Name(str(c[0]), where=self._w(c[0]))

    def call(self, c):
        return E.Call(str(c[0]), tuple(a for a in c[1:] if a is not None), where=self._w(c[0]))

    def list_(self, c):
        return E.ListExpr(tuple(a for a in c[1:] if a is not None), where=self._w(c[0]))

    def neg(self, c):
        return E.Unary("-", c[0], where=_where_of(c[0]))

    def not_(self, c):
        return E.Unary("not", c[0], where=_where_of(c[0]))

    def or_(self, c):
        return E.Binary("or", c[0], c[1], where=_where_of(c[0]))

    def and_(self, c):
        return E.Binary("and", c[0], c[1], where=_where_of(c[0]))

    def compare(self, c):
        return E.Binary(str(c[1]), c[0], c[2], where=_where_of(c[0]))

    arith = compare

    def in_(self, c):
        return E.Binary("in", c[0], c[1], where=_where_of(c[0]))

    def not_in(self, c):
        return E.Binary("not in", c[0], c[1], where=_where_of(c[0]))


@dataclass(frozen=True, slots=True)
class _Cond:
    expr: E.Expr


@dataclass(frozen=True, slots=True)
class _Value:
    expr: E.Expr


@dataclass(frozen=True, slots=True)
class _Block:
    entries: tuple
    end: Span


def _check_depth(f: File) -> None:
    """Refuse blocks or expressions nested deeper than MAX_DEPTH (checked
    iteratively: later passes recurse over blocks)."""
    stack: list[tuple[object, int]] = [(e, 1) for e in f.entries]
    while stack:
        node, d = stack.pop()
        if d > MAX_DEPTH:
            span = getattr(node, "span", None) or Span.parse(getattr(node, "where", "")) or Span(f.path, 1, 1)
            raise _TooDeep(span)
        if isinstance(node, Statement):
            for e in node.body or ():
                stack.append((e, d + 1))
            for x in (node.condition, node.value):
                if x is not None:
                    stack.append((x, d + 1))
        elif isinstance(node, E.Binary):
            stack.extend(((node.left, d + 1), (node.right, d + 1)))
        elif isinstance(node, E.Unary):
            stack.append((node.operand, d + 1))
        elif isinstance(node, (E.Call, E.ListExpr)):
            stack.extend((a, d + 1) for a in (node.args if isinstance(node, E.Call) else node.items))


_CELL = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|\\\r?\n|\r?\n|;|[ \t\f]+|[^\s{}"#;=\\]+|.', re.S)


_LONG_NUMBER = re.compile(r"[0-9]{%d}" % (MAX_DIGITS + 1))


def split_table(file: str, text: str, line: int, col: int) -> list[Row]:
    """Rows and cells of a table body: a row per line (or ';'), cells split
    on blanks, "strings" kept whole, comments and '\\'-continuations skipped.
    Spans are exact, so diagnostics point at the cell."""
    rows: list[Row] = []
    cells: list[Arg] = []
    for m in _CELL.finditer(text):
        tok = m.group()
        c0 = tok[0]
        if c0 in " \t\f#":
            pass
        elif c0 in "\r\n;" or (c0 == "\\" and len(tok) > 1):
            if c0 != "\\" and cells:
                rows.append(Row(tuple(cells), cells[0].span))
                cells = []
        else:
            if c0 in "=\\":
                what = "'='" if c0 == "=" else "'\\'"
                raise _TableError(Span(file, line, col), f"unexpected {what} in a table",
                                  "a table cell cannot contain '='" if c0 == "=" else
                                  "a '\\' continues a line only when it is the last character on it")
            sp = Span(file, line, col, line, col + len(tok))
            if c0 == '"':
                cells.append(Arg(_unquote(tok), sp, True))
            else:
                if len(tok) > MAX_DIGITS and _LONG_NUMBER.search(tok):
                    raise _TableError(sp, "number too large", f"numbers have at most {MAX_DIGITS} digits")
                cells.append(Arg(tok, sp, False))
        nl = tok.count("\n")
        if nl:
            line += nl
            col = len(tok) - tok.rfind("\n")
        else:
            col += len(tok)
    if cells:
        rows.append(Row(tuple(cells), cells[0].span))
    return rows


class _TableError(Exception):
    def __init__(self, span: Span, message: str, hint: str):
        self.span, self.message, self.hint = span, message, hint


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


_ODD_SPACE = "lines end only at a newline, and blanks are spaces or tabs: replace this character"


def _char_name(ch: str) -> str:
    """A character a user cannot see, named: "character U+2028 (LINE SEPARATOR)"."""
    return f"character U+{ord(ch):04X} ({unicodedata.name(ch, 'a control character')})"


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
        if not ch.isprintable() or ch.isspace():
            return Diagnostic("syntax", f"unexpected {_char_name(ch)}", Span(file, line, col), _ODD_SPACE)
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
        if tok.type in ("TABLE_BODY", "ARGS"):
            # the error fallback lexes with every terminal: name what actually stands here
            stripped = value.lstrip(" \t\f")
            if not stripped or stripped[0] in "\r\n;#":
                tok = Token("_SEP", "\n", tok.start_pos, sp.line, sp.col)
            else:
                word = re.match(r"[^\s{}\"#;=\\]+|.", stripped, re.S).group()
                tok = Token("ATOM", word, tok.start_pos, sp.line, sp.col + len(value) - len(stripped))
                sp = Span(file, sp.line, tok.column, sp.line, tok.column + len(word))
                if len(word) == 1 and (not word.isprintable() or word.isspace()):
                    return Diagnostic("syntax", f"unexpected {_char_name(word)}", sp, _ODD_SPACE)
            value = str(tok)
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


_BUILD = _Build()

# What the depth scan looks at: strings and comments (skipped whole) and brackets.
_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[()\[\]{}]')
_OPENS = "([{"


def _check_limits(text: str, file: str) -> None:
    """Refuse, before parsing, what would make parsing slow or deep: a line
    longer than MAX_LINE_CHARS, or brackets and blocks nested more than
    MAX_DEPTH deep (``((((...`` builds no node, so the tree check cannot see it)."""
    if len(text) > MAX_LINE_CHARS:
        for line_no, line in enumerate(text.split("\n"), 1):
            if len(line) > MAX_LINE_CHARS:  # not quoted under the message: it would fill the screen
                raise DslSyntaxError([Diagnostic("syntax", f"this line is {len(line):,} characters long; "
                                                 f"the limit is {MAX_LINE_CHARS:,}", Span(file, line_no, 1),
                                                 "split the statement, or its table, over several lines")])
    depth = 0
    for m in _BRACKETS.finditer(text):
        ch = m.group()
        if ch in _OPENS:
            depth += 1
            if depth > MAX_DEPTH:
                l, c = _line_col(text, m.start())
                raise DslSyntaxError([Diagnostic("syntax", f"nested more than {MAX_DEPTH} levels deep",
                                                 Span(file, l, c, l, c + 1))], {file: text})
        elif ch in ")]}":
            depth = max(0, depth - 1)


def parse(text: str, file: str = "<text>") -> File:
    """Parse rules or map text.  Raises DslSyntaxError; never a Lark error.
    Line ends may be ``\n``, ``\r\n`` or ``\r`` (see normalise_newlines)."""
    text = normalise_newlines(text)
    if "\x00" in text:
        off = text.index("\x00")
        l, c = _line_col(text, off)
        raise DslSyntaxError([Diagnostic("syntax", "the file contains a NUL character", Span(file, l, c),
                                         "is this a text file?")], {file: text})
    _check_limits(text, file)
    source = text if text.endswith("\n") else text + "\n"
    try:
        _BUILD.file = file
        f = _lark().parse(source)
        _check_depth(f)
        return f
    except UnexpectedInput as e:
        raise DslSyntaxError([_syntax_diagnostic(e, source, file)], {file: text}) from None
    except _TableError as e:
        raise DslSyntaxError([Diagnostic("syntax", e.message, e.span, e.hint)], {file: text}) from None
    except _TooDeep as e:
        raise DslSyntaxError([Diagnostic("syntax", f"nested more than {MAX_DEPTH} levels deep", e.span)],
                             {file: text}) from None
    except RecursionError:
        raise DslSyntaxError([Diagnostic("syntax", "nested too deeply to read", Span(file, 1, 1))],
                             {file: text}) from None
    except VisitError as e:  # an error raised while building nodes
        orig = e.orig_exc
        if isinstance(orig, _TableError):
            raise DslSyntaxError([Diagnostic("syntax", orig.message, orig.span, orig.hint)], {file: text}) from None
        raise DslSyntaxError([Diagnostic("syntax", str(orig).splitlines()[0] if str(orig) else "cannot read this",
                                         Span(file, 1, 1))], {file: text}) from None
    except LarkError as e:  # any other Lark failure still becomes a diagnostic
        raise DslSyntaxError([Diagnostic("syntax", str(e).splitlines()[0], Span(file, 1, 1))],
                             {file: text}) from None
