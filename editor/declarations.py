"""The Declarations tab: the game's sides, nationalities, unit classes,
terrain types, scenarios, variants and the other declared things, each as a
form — its title and every property it sets — instead of text.

An edit replaces exactly the words it changes (the title's string, or a
property's arguments), as one undo step: the rest of the line, the comments
and the layout stay as they were.  Properties and blocks the form does not
show (tables, nested blocks) are edited in the Tables and Rules text tabs.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QColorDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea,
                               QSplitter, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from dsl.ast import Statement
from dsl.diagnostics import DslError
from dsl.parser import parse

from . import textedit as T
from .commands import TextCommand

KINDS = (("side", "Sides"), ("nationality", "Nationalities"), ("unit-class", "Unit classes"),
         ("terrain", "Terrain"), ("feature", "Features"), ("hexside", "Hexsides"), ("link", "Links"),
         ("pool", "Pools"), ("attachment", "Attachment kinds"), ("movement-mode", "Movement modes"),
         ("marker", "Markers"),
         ("scenario", "Scenarios"), ("variant", "Variants"), ("game", "Game"), ("system", "Series system"))
COLOUR_KEYS = ("colour", "text-colour")


@dataclass(frozen=True)
class DeclKey:
    shown: str
    keyword: str
    name: str


def declarations(doc) -> list[tuple[DeclKey, Statement]]:
    out = []
    kinds = {k for k, _ in KINDS}
    for shown in sorted(doc.files, key=lambda s: (s != doc.entry, s)):
        if not shown.endswith(".hxr") or not doc.editable_text(shown):
            continue
        try:
            f = parse(doc.files[shown].text, shown)
        except DslError:
            continue
        for e in f.entries:
            if isinstance(e, Statement) and e.keyword in kinds and e.args and not e.override:
                out.append((DeclKey(shown, e.keyword, e.args[0].text), e))
    return out


def properties(st: Statement) -> list[Statement]:
    """The simple properties of a declaration: statements in its block with
    arguments and no block or table of their own."""
    return [e for e in st.body or () if isinstance(e, Statement) and e.args and e.body is None
            and e.condition is None and e.value is None and all(a.span.line == e.args[0].span.line for a in e.args)]


def args_text(st: Statement) -> str:
    return " ".join(T.quote(a.text) if a.quoted else a.text for a in st.args)


class DeclarationsPane(QWidget):
    message = Signal(str)

    def __init__(self, doc, stack, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.stack = stack
        self.key: DeclKey | None = None
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        split = QSplitter()
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setMinimumWidth(220)
        split.addWidget(self.tree)
        right = QWidget()
        self.rl = QVBoxLayout(right)
        self.rl.setContentsMargins(6, 6, 6, 6)
        self.heading = QLabel("")
        f = self.heading.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.heading.setFont(f)
        self.rl.addWidget(self.heading)
        self.form_host = QScrollArea()
        self.form_host.setWidgetResizable(True)
        self.rl.addWidget(self.form_host, 1)
        self.note = QLabel("Tables and nested blocks of this declaration are edited in the Tables and Rules text tabs.")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #606060")
        self.rl.addWidget(self.note)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        lay.addWidget(split)
        self.fields: dict[str, QLineEdit] = {}
        self.tree.currentItemChanged.connect(self._picked)
        # read when the tab is first shown (MainWindow._tab_changed): opening a game parses nothing more

    # -- reading ------------------------------------------------------------------
    def reload(self) -> None:
        found = declarations(self.doc)
        keys = [k for k, _ in found]
        self.tree.blockSignals(True)
        self.tree.clear()
        groups = {}
        for kw, title in KINDS:
            g = QTreeWidgetItem([title])
            g.setFlags(Qt.ItemIsEnabled)
            groups[kw] = g
        current = None
        for k, st in found:
            title = st.args[1].text if len(st.args) > 1 and st.args[1].quoted else ""
            it = QTreeWidgetItem([f"{k.name}  {title}".strip()])
            it.setData(0, Qt.UserRole, k)
            it.setToolTip(0, f"{k.shown}:{st.span.line}")
            groups[k.keyword].addChild(it)
            if k == self.key:
                current = it
        for kw, _ in KINDS:
            if groups[kw].childCount():
                self.tree.addTopLevelItem(groups[kw])
                groups[kw].setExpanded(True)
        self.tree.blockSignals(False)
        if current is None and keys:
            current = self._item(keys[0])
        if current is not None:
            self.tree.setCurrentItem(current)
            self.show_decl(current.data(0, Qt.UserRole))
        else:
            self.show_decl(None)

    def _item(self, key: DeclKey):
        for i in range(self.tree.topLevelItemCount()):
            g = self.tree.topLevelItem(i)
            for j in range(g.childCount()):
                if g.child(j).data(0, Qt.UserRole) == key:
                    return g.child(j)
        return None

    def select(self, keyword: str, name: str) -> bool:
        for k, _ in declarations(self.doc):
            if k.keyword == keyword and k.name == name:
                it = self._item(k)
                if it is not None:
                    self.tree.setCurrentItem(it)
                    return True
        return False

    def _picked(self, item, _prev=None) -> None:
        k = item.data(0, Qt.UserRole) if item is not None else None
        if k is not None:
            self.show_decl(k)

    def statement(self) -> Statement | None:
        if self.key is None:
            return None
        for k, st in declarations(self.doc):
            if k == self.key:
                return st
        return None

    def show_decl(self, key: DeclKey | None) -> None:
        self.key = key
        st = self.statement()
        form = QWidget()
        fl = QFormLayout(form)
        self.fields = {}
        if st is None:
            self.heading.setText("")
            self.form_host.setWidget(form)
            return
        self.heading.setText(f"{st.keyword} {st.args[0].text}")
        ident = QLabel(st.args[0].text)
        ident.setToolTip("The id: rename it in the rules text (it is named wherever the rules use it)")
        fl.addRow("id", ident)
        title = QLineEdit(st.args[1].text if len(st.args) > 1 and st.args[1].quoted else "")
        title.editingFinished.connect(lambda e=title: self.set_title(e.text()))
        self.fields["title"] = title
        fl.addRow("title", title)
        for p in properties(st):
            e = QLineEdit(args_text(p))
            e.setToolTip(f"{self.key.shown}:{p.span.line}")
            e.editingFinished.connect(lambda kw=p.keyword, e=e: self.set_property(kw, e.text()))
            self.fields[p.keyword] = e
            if p.keyword in COLOUR_KEYS:
                row = QHBoxLayout()
                row.addWidget(e, 1)
                b = QPushButton()
                b.setFixedWidth(36)
                b.setStyleSheet(f"background: {p.args[0].text}")
                b.setToolTip("Pick a colour")
                b.clicked.connect(lambda _=False, kw=p.keyword, e=e: self.pick_colour(kw, e))
                row.addWidget(b)
                w = QWidget()
                w.setLayout(row)
                fl.addRow(p.keyword, w)
            else:
                fl.addRow(p.keyword, e)
        self.form_host.setWidget(form)

    # -- writing ------------------------------------------------------------------
    def _push(self, label: str, edit) -> None:
        self.stack.push(TextCommand(self.doc, label, {self.key.shown: [edit]}))
        self.doc.refresh()

    def set_title(self, title: str) -> bool:
        st = self.statement()
        if st is None:
            return False
        text = self.doc.files[self.key.shown].text
        lines = T.Lines(text)
        new = T.quote(title)
        if len(st.args) > 1 and st.args[1].quoted:
            a = st.args[1]
            if a.text == title:
                return False
            start = lines.offset(a.span.line, a.span.col)
            end = lines.offset(a.span.end_line, a.span.end_col)
            self._push(f"{st.keyword} {st.args[0].text}: title", (start, end, new))
        else:
            a = st.args[0]
            pos = lines.offset(a.span.end_line, a.span.end_col)
            self._push(f"{st.keyword} {st.args[0].text}: title", (pos, pos, " " + new))
        self.show_decl(self.key)
        return True

    def set_property(self, keyword: str, value: str) -> bool:
        st = self.statement()
        p = next((p for p in properties(st) if p.keyword == keyword), None) if st is not None else None
        if p is None:
            return False
        value = value.strip()
        if not value:
            self.message.emit(f"{keyword} needs a value: delete the property in the rules text to drop it")
            self.show_decl(self.key)
            return False
        if value == args_text(p):
            return False
        text = self.doc.files[self.key.shown].text
        lines = T.Lines(text)
        first, last = p.args[0], p.args[-1]
        start = lines.offset(first.span.line, first.span.col)
        end = lines.offset(last.span.end_line, last.span.end_col)
        self._push(f"{st.keyword} {st.args[0].text}: {keyword} {value}", (start, end, value))
        self.show_decl(self.key)
        return True

    def pick_colour(self, keyword: str, e: QLineEdit) -> None:
        start = QColor(e.text().strip('"'))
        c = QColorDialog.getColor(start, self, f"{keyword}")
        if c.isValid():
            self.set_property(keyword, T.quote(c.name()))
