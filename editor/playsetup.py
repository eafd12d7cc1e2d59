"""Playtest set-up: compile the editor's texts for play, a runner and a timeline, and the
set-up dialog (scenario, variants, seed, who plays each side)."""
from __future__ import annotations

import time

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QGroupBox,
                               QLabel, QLineEdit, QMessageBox, QSpinBox, QVBoxLayout)

from runtime.actions import IllegalActionError
from runtime.definition import GameDefinition
from runtime.observe import hides_anything
from runtime.replay import Timeline
from runtime.runner import Runner
from runtime.victory import MissingParams, UnreadParam

from .playbots import AGENT_TITLES, AGENTS


class PlayError(Exception):
    """The game cannot be played: the message says why (diagnostics, an
    unsupported procedure, a set-up that does not fit)."""


def compile_for_play(doc, variants=()) -> GameDefinition:
    """The game as the editor's texts stand now (saved or not), compiled by
    the real compiler from the document's private copy.  Raises PlayError
    with the diagnostics."""
    from dsl.compiler import compile_game
    from dsl.diagnostics import DslError

    doc.sync_mirror()
    try:
        return compile_game(doc._mirror_dir / doc.game_name, list(variants), art_dir=doc.art_dir)
    except DslError as e:
        lines = [d.format(e.sources) for d in e.diagnostics if d.severity == "error"][:12]
        more = len([d for d in e.diagnostics if d.severity == "error"]) - len(lines)
        raise PlayError(f"{doc.title} does not compile" + (f" with {', '.join(variants)}" if variants else "")
                        + ", so it cannot be played:\n\n" + "\n".join(lines)
                        + (f"\n… and {more} more" if more > 0 else "")) from None


def number_pair(item: str, what: str, many: bool = False) -> tuple[str, list[int]]:
    """``NAME=N`` (``many``: ``NAME=N1,N2,…``), as the Numbers and Sweep
    fields take them; ValueError saying what to write."""
    key, eq, val = item.partition("=")
    vals = [v.strip() for v in val.split(",")]
    if not eq or not key.strip() or not all(v.lstrip("-").isdigit() and len(v) <= 30 for v in vals) or \
            (len(vals) > 1 and not many):
        raise ValueError(f"{what}: write NAME={'N1,N2,…' if many else 'N'}, not '{item}'")
    return key.strip(), [int(v) for v in vals]


def parse_numbers(text: str) -> dict[str, int]:
    """The Numbers field: ``NAME=N`` items separated by spaces (``bid=5``)."""
    return {k: v[0] for k, v in (number_pair(x, "Numbers") for x in text.split())}


def variants_hint(name: str, game: GameDefinition, compile_with) -> str:
    """Where the Numbers give ``name`` and no rule in play reads it: the
    variants (not switched on in ``game``) whose rules do, by title, as
    ``compile_with(variants)`` compiles the game with them ("" if none)."""
    from dsl.balance import BalanceError
    from dsl.cli import variants_reading
    from dsl.diagnostics import DslError

    found = variants_reading(name, game, compile_with, (DslError, BalanceError, PlayError, OSError))
    return (" or ".join(game.variants[v].title or v for v in found) + " reads it: tick it under Variants") \
        if found else ""


def new_runner(game: GameDefinition, scenario: str, params: dict[str, int] | None = None) -> Runner:
    try:
        return Runner(game, scenario, params=params)
    except MissingParams as e:
        raise PlayError(f"{game.info.title}: the scenario asks for {' and '.join(e.names)}: write "
                        f"{' '.join(n + '=N' for n in e.names)} under Numbers") from None
    except UnreadParam as e:
        raise PlayError(f"{game.info.title}: Numbers: {e}") from None
    except (NotImplementedError, ValueError) as e:
        raise PlayError(f"{game.info.title} cannot be played yet: {e}") from None


def new_timeline(runner: Runner, seed: int) -> Timeline:
    try:
        return Timeline(runner, seed)
    except IllegalActionError:
        raise
    except Exception as e:  # a set-up that does not fit, an expression error in the rules...
        raise PlayError(f"the scenario cannot be set up: {type(e).__name__}: {e}") from None


class SetupDialog(QDialog):
    """Scenario, variants, seed, and who plays each side."""

    def __init__(self, parent, game: GameDefinition):
        super().__init__(parent)
        self.game = game
        self.setWindowTitle(f"Play {game.info.title}")
        f = QFormLayout(self)
        self.scenario = QComboBox()
        for sid, sc in game.scenarios.items():
            self.scenario.addItem(f"{sc.title or sid} (turns {sc.first_turn}-{sc.last_turn})", sid)
        f.addRow("Scenario", self.scenario)
        box = QGroupBox("Variants")
        vl = QVBoxLayout(box)
        self.variants: dict[str, QCheckBox] = {}
        for vid, v in game.variants.items():
            cb = QCheckBox(f"{v.title or vid} ({v.kind})")
            cb.setToolTip(" ".join(v.notes))
            self.variants[vid] = cb
            vl.addWidget(cb)
        if not self.variants:
            vl.addWidget(QLabel("This game has no variants."))
        f.addRow(box)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_000_000_000)
        self.seed.setValue(int(time.time()) % 100000)
        self.seed.setToolTip("The same seed and the same decisions give the same game")
        f.addRow("Seed", self.seed)
        self.numbers = QLineEdit()
        self.numbers.setPlaceholderText("none")
        self.numbers.setToolTip("Numbers the rules ask for with param(\"NAME\"), written NAME=N and separated by "
                                "spaces (Smolensk's VP bid, with the vp-bidding variant: bid=5)")
        f.addRow("Numbers", self.numbers)
        self.agents: dict[str, QComboBox] = {}
        for sid, sd in game.sides.items():
            cb = QComboBox()
            for a in AGENTS:
                cb.addItem(AGENT_TITLES[a], a)
            self.agents[sid] = cb
            f.addRow(f"{sd.title}", cb)
        self.secrets = QCheckBox("Keep each side's secrets (a hand-over screen between players)")
        self.secrets.setChecked(True)
        self.secrets.setToolTip("Each person sees their own side's view: the chits the other sides choose and "
                                "hold and the values hidden from them stay hidden, and with several people at "
                                "one screen it is handed over between them (View > Designer view shows all)")
        self.secrets.setVisible(hides_anything(game))
        f.addRow(self.secrets)
        bb = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        bb.button(QDialogButtonBox.Ok).setText("Play")
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        f.addRow(bb)
        self.scenario.currentIndexChanged.connect(self._scenario_variants)
        self._scenario_variants()

    def _scenario_variants(self, *_a) -> None:
        sc = self.game.scenarios.get(self.scenario.currentData())
        for vid, cb in self.variants.items():
            cb.setChecked(bool(sc and vid in sc.variants))

    def accept(self) -> None:
        try:
            parse_numbers(self.numbers.text())
        except ValueError as e:
            QMessageBox.warning(self, "Play", str(e))
            return
        super().accept()

    def values(self) -> tuple[str, list[str], int, dict[str, str], bool]:
        return (self.scenario.currentData(), [v for v, cb in self.variants.items() if cb.isChecked()],
                self.seed.value(), {s: cb.currentData() for s, cb in self.agents.items()},
                self.secrets.isChecked())

    def params(self) -> dict[str, int]:
        """The Numbers (checked when the dialog was accepted)."""
        return parse_numbers(self.numbers.text())
