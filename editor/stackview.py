"""The stack view: the units of one hex, each with the counters under it
(attachments: GJ63's equipment chits) beside it, and how many of each
attachment kind it carries out of how many it may.  The editor shows the
scenario's set-up of the selected hex; the playtest the selected unit's hex
in the state shown."""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from runtime import attachments as A
from runtime.definition import GameDefinition
from runtime.observe import hidden_under
from runtime.state import GameState

from .paint import CounterLook, counter_pixmap, look_for


@dataclass
class StackEntry:
    """One unit of a stack: its face, its name and factors, and what is under it."""

    look: CounterLook
    title: str
    under: list[tuple[CounterLook, str]] = field(default_factory=list)
    carries: str = ""  # "2 of 2 equipment chits"


def carries_text(n: int, cap: int | None, title: str) -> str:
    return f"{title}: {n}" + (" (no limit)" if cap is None else f" of {cap}")


def setup_entries(snap, placements: dict[str, str], at: str, art=None) -> list[StackEntry]:
    """The units a scenario sets up at ``at`` (a hex id, area or pool), with
    the counters set up under each (``at UNIT``)."""
    out = []
    under: dict[str, list[str]] = {}
    for cid, where in placements.items():
        if where in snap.counters:
            under.setdefault(where, []).append(cid)
    for cid, where in placements.items():
        if where != at or cid not in snap.counters:
            continue
        c = snap.counters[cid]
        ids = under.get(cid, [])
        lines = []
        for k in snap.attachments.values():
            if not (k.hosts & snap.selectors_of(cid)) and k.hosts:
                continue
            if snap.attachment_of(cid) is not None:
                continue
            n = sum(1 for a in ids if snap.attachment_of(a) is k)
            cap = snap.capacity(cid, k)
            if n or cap:
                lines.append(carries_text(n, cap, k.title or k.id))
        out.append(StackEntry(look_for(snap, cid, art=art), f"{cid}  {c.name or ''}".strip(),
                              [(look_for(snap, a, art=art), a) for a in ids], "; ".join(lines)))
    return out


def face_down_tag(game: GameDefinition, side: str, cup: str) -> str:
    """What the back of a face-down counter from ``cup`` (``pool:ID``) says:
    the word of the cup's title that tells it from the side's other cups
    ("Tank", "Equip"); "?" where the cup is hidden too (GJ63 19.6)."""
    pool = game.pools.get(cup[len("pool:"):]) if cup else None
    if pool is None:
        return "?"
    side_words = set((game.sides[side].title if side in game.sides else side).lower().split())
    for word in pool.title.split():
        w = word.strip("()").lower()
        if w and not w.isdigit() and w not in side_words and w not in ("cup", "pool", "chit", "chits", "the", "of"):
            return word.strip("()")[:5].capitalize()
    return "?"


def face_down_look(game: GameDefinition, side: str, cup: str) -> CounterLook:
    """A face-down counter under an enemy unit, as the viewing side sees it: its back."""
    colour = game.sides[side].colour if side in game.sides else "#888888"
    return CounterLook(face_down_tag(game, side, cup), "?", colour=colour, text_colour="#ffffff")


def face_down_title(game: GameDefinition, cup: str) -> str:
    pool = game.pools.get(cup[len("pool:"):]) if cup else None
    return f"? face down ({pool.title})" if pool is not None else "? face down"


def back_kind(game: GameDefinition, cup: str) -> str:
    """The attachment kind of a face-down counter from ``cup`` ("": any face-down kind's, the first)."""
    down = [k.id for k in game.attachments.values() if k.face_down]
    for kid in down:
        if cup and any(game.counters[a].arrives == cup for a, of in game.attachment_of.items() if of == kid):
            return kid
    return down[0] if down else ""


def state_entries(game: GameDefinition, s: GameState, uids: list[str], look) -> list[StackEntry]:
    """The units ``uids`` of a state (one hex), with the counters under each;
    ``look(uid)`` gives a counter's face at its step.  In a side's view, the
    other sides' face-down counters show as backs (their cup, where the rules
    let it be seen)."""
    out = []
    hidden = hidden_under(s) if s.observed else {}
    for uid in uids:
        c = game.counters[uid]
        ids = list(A.under(s, uid))
        lines = []
        for k in game.attachments.values():
            if A.may_host(game, s, uid, k):
                continue
            n = A.count_of(game, s, uid, k) + sum(1 for cup in hidden.get(uid, ()) if back_kind(game, cup) == k.id)
            cap = A.capacity(game, s, uid, k)
            if n or cap:
                lines.append(carries_text(n, cap, k.title))
        backs = [(face_down_look(game, s.units[uid].side, cup), face_down_title(game, cup))
                 for cup in hidden.get(uid, ())]
        out.append(StackEntry(look(uid), f"{uid}  {c.name if c.name != uid else ''}".strip(),
                              [(look(a), f"{a}  {game.counters[a].name if game.counters[a].name != a else ''}".strip())
                               for a in ids] + backs, "; ".join(lines)))
    return out


class StackView(QWidget):
    """A list of units, each a row: its counter, the counters under it, its name and what it carries."""

    def __init__(self, parent=None):
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(2, 2, 2, 2)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        outer.addWidget(self.heading)
        self.area = QScrollArea()
        self.area.setWidgetResizable(True)
        outer.addWidget(self.area, 1)
        self.entries: list[StackEntry] = []
        self.show_entries("", [])

    def show_entries(self, heading: str, entries: list[StackEntry]) -> None:
        self.entries = entries
        self.heading.setText(heading or "Select a hex or a unit to see its stack.")
        body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 0, 0)
        for e in entries:
            row = QHBoxLayout()
            pic = QLabel()
            pic.setPixmap(counter_pixmap(e.look, 56))
            pic.setToolTip(e.title)
            row.addWidget(pic)
            for look, title in e.under:
                chip = QLabel()
                chip.setPixmap(counter_pixmap(look, 40))
                chip.setToolTip(title)
                row.addWidget(chip, 0, Qt.AlignVCenter)
            names = ", ".join(t if t.startswith("?") else t.split()[0] for _, t in e.under)  # a back: its cup
            text = QLabel(f"<b>{e.title}</b>" + (f"<br><small>{e.carries}</small>" if e.carries else "") +
                          (f"<br><small>under it: {names}</small>" if e.under else ""))
            text.setWordWrap(True)
            row.addWidget(text, 1)
            lay.addLayout(row)
        lay.addStretch(1)
        self.area.setWidget(body)
