"""Game > Balance…: a batch of bot games in the background (dsl/balance.py),
with a progress bar, then the summary and the plots.

The batch runs in a QThread (its games on worker processes when more than
one is asked for); the thread reports progress by signal, so the window
stays responsive.  Stop finishes the games under way and keeps every
finished game: running again with the same folder resumes the batch.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QThread, Signal
from PySide6.QtGui import QFont, QPixmap
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QDialog, QFileDialog, QFormLayout, QHBoxLayout,
                               QLabel, QLineEdit, QMessageBox, QProgressBar, QPushButton, QScrollArea, QSpinBox,
                               QTabWidget, QVBoxLayout)

from dsl.balance import (MAX_GAMES, BalanceError, BatchSpec, format_summary, run_batch, shared_note, summarize,
                         write_summary)
from dsl.balance_plots import PLOTS, write_plots
from runtime.bot_options import examples
from runtime.bots import BOTS, make_bot
from runtime.victory import params_read

from .playsetup import number_pair, variants_hint


class BatchWorker(QObject):
    """Runs one batch in its thread; signals progress, the summary, or an error."""

    progress = Signal(int, int)
    finished = Signal(dict)
    failed = Signal(str)

    def __init__(self, spec: BatchSpec, games: int, out: Path, jobs: int):
        super().__init__()
        self.spec, self.games, self.out, self.jobs = spec, games, out, jobs
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            result = run_batch(self.spec, self.games, self.out, jobs=self.jobs,
                               progress=lambda done, total: self.progress.emit(done, total), stop=self.stop)
            summary = summarize(self.spec, result.rows) if result.rows else {}
            if summary:
                summary["played"], summary["resumed"] = result.played, len(result.rows) - result.played
                summary["shared"] = result.shared
                summary["beyond"] = result.beyond
                write_summary(self.out, summary)
                write_plots(self.out, self.spec, summary, result.rows)
            self.finished.emit(summary)
        except BalanceError as e:
            self.failed.emit(str(e))
        except OSError as e:
            self.failed.emit(f"cannot write {self.out}: {e.strerror or e}")
        except Exception as e:  # a bug, not the user's: say so rather than leave the dialog running
            self.failed.emit(f"the batch stopped on an internal error: {type(e).__name__}: {e}")


class _Fitted:
    """A plot image kept at full size and shown fitted to the space there is
    (``_fit``), again whenever the widget is resized."""

    image: QPixmap

    def show_image(self, pix: QPixmap) -> None:
        self.image = pix
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()


class PlotLabel(_Fitted, QLabel):
    """A plot, scaled to the space it has (never stretched)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.setAlignment(Qt.AlignCenter)
        self.setMinimumSize(200, 150)
        self.image = QPixmap()

    def _fit(self) -> None:
        if not self.image.isNull():
            self.setPixmap(self.image.scaled(self.size(), Qt.KeepAspectRatio, Qt.SmoothTransformation))


class TallPlot(_Fitted, QScrollArea):
    """A plot taller than the space it has (VP by award: a row per award of
    every side): as wide as the tab, scrolled up and down."""

    def __init__(self, text: str):
        super().__init__()
        self.label = QLabel(text)
        self.label.setAlignment(Qt.AlignHCenter | Qt.AlignTop)
        self.setWidget(self.label)
        self.setWidgetResizable(True)
        self.setMinimumSize(200, 150)
        self.image = QPixmap()

    def _fit(self) -> None:
        if not self.image.isNull():
            width = self.viewport().width() - self.verticalScrollBar().sizeHint().width()
            self.label.setPixmap(self.image.scaledToWidth(max(100, min(width, self.image.width())),
                                                          Qt.SmoothTransformation))


class BalanceDialog(QDialog):
    """The batch's settings, Run/Stop, a progress bar, the summary and plots."""

    def __init__(self, parent, texts, game):
        super().__init__(parent)
        self.texts, self.game = texts, game
        self.thread: QThread | None = None
        self.worker: BatchWorker | None = None
        self.setWindowTitle(f"Balance: {game.info.title}")
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        lay.addLayout(top)
        form = QFormLayout()
        top.addLayout(form)
        self.scenario = QComboBox()
        for sid, sc in game.scenarios.items():
            self.scenario.addItem(f"{sc.title or sid} (turns {sc.first_turn}-{sc.last_turn})", sid)
        form.addRow("Scenario", self.scenario)
        self.agents: dict[str, QComboBox] = {}
        for sid, sd in game.sides.items():
            cb = QComboBox()
            cb.addItems(list(BOTS))
            cb.setEditable(True)  # a budget or option is typed after the name, as play and balance read it (search:50)
            cb.setToolTip("The bot: " + ", ".join(BOTS) + ", with options after it:\n" + examples("\n"))
            cb.setCurrentText("greedy" if "greedy" in BOTS else next(iter(BOTS)))
            self.agents[sid] = cb
            form.addRow(f"{sd.title or sid} bot", cb)
        self.games = QSpinBox()
        self.games.setRange(1, MAX_GAMES)
        self.games.setValue(100)
        form.addRow("Games", self.games)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_000_000_000)
        self.seed.setToolTip("Game k of the batch is seeded from (seed, k): the same seed gives the same games")
        form.addRow("Seed", self.seed)
        self.jobs = QSpinBox()
        self.jobs.setRange(1, max(1, os.cpu_count() or 1))
        self.jobs.setValue(self.jobs.maximum())
        form.addRow("Worker processes", self.jobs)
        self.params = QLineEdit()
        # (the names this game's rules read, where they read any without a variant: else the form alone, not
        # another game's number)
        read = sorted(params_read(game) or ())
        self.params.setPlaceholderText(" ".join(f"{n}=N" for n in read) or "NAME=NUMBER")
        self.params.setToolTip("Numbers the rules ask for with param(\"NAME\"), separated by spaces")
        form.addRow("Numbers", self.params)
        self.sweep = QLineEdit()
        self.sweep.setPlaceholderText(f"{read[0] if read else 'NAME'}=V1,V2,V3")
        self.sweep.setToolTip("Play the batch once per value of one number: one row each")
        form.addRow("Sweep", self.sweep)
        out_row = QHBoxLayout()
        self.out = QLineEdit(str(Path.cwd() / f"balance-{game.info.id}"))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        out_row.addWidget(self.out)
        out_row.addWidget(browse)
        form.addRow("Results folder", out_row)
        self.variants: dict[str, QCheckBox] = {}
        vbox = QVBoxLayout()
        top.addLayout(vbox)
        if game.variants:
            vbox.addWidget(QLabel("Variants"))
        for vid, v in game.variants.items():
            cb = QCheckBox(v.title or vid)
            cb.setToolTip(" ".join(v.notes))
            self.variants[vid] = cb
            vbox.addWidget(cb)
        vbox.addStretch(1)
        buttons = QHBoxLayout()
        self.run_button = QPushButton("Run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        self.bar = QProgressBar()
        self.bar.setFormat("%v / %m games")
        self.bar.setValue(0)
        self.rate = QLabel("")
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.bar, 1)
        buttons.addWidget(self.rate)
        buttons.addWidget(close)
        lay.addLayout(buttons)
        self.summary = QLabel("")
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.Monospace)
        self.summary.setFont(mono)
        lay.addWidget(self.summary)
        self.plots = QTabWidget()
        self.plot_labels: dict[str, PlotLabel | TallPlot] = {}
        for name, title in zip(PLOTS, ("Win rate", "VP", "VP by turn", "VP by award")):
            kind = TallPlot if name == "awards.png" else PlotLabel
            label = kind("The plots appear here when the batch is done.")
            self.plot_labels[name] = label
            self.plots.addTab(label, title)
        lay.addWidget(self.plots, 1)
        self._t0 = 0.0
        self._first = 0

    # -- settings -----------------------------------------------------------------------
    def _browse(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Results folder", self.out.text())
        if d:
            self.out.setText(d)

    def spec(self) -> BatchSpec:
        """The batch as set in the dialog; BalanceError for a bad entry."""
        def pair(item: str, what: str, many: bool) -> tuple[str, list[int]]:
            try:
                return number_pair(item, what, many)
            except ValueError as e:
                raise BalanceError(str(e)) from None

        params = dict((k, v[0]) for k, v in (pair(x.strip(), "Numbers", False)
                                               for x in self.params.text().split() if x.strip()))
        key, values = pair(self.sweep.text().strip(), "Sweep", True) if self.sweep.text().strip() else ("", [])
        if key in params:
            raise BalanceError(f"{key} is both swept and set in Numbers: give one")
        variants = tuple(v for v, cb in self.variants.items() if cb.isChecked())
        agents = tuple(cb.currentText().strip() for cb in self.agents.values())
        for name in agents:
            try:
                make_bot(name, 0)
            except ValueError as e:
                raise BalanceError(f"Bot: {e}") from None
        return BatchSpec(game=self.texts, scenario=self.scenario.currentData(),
                         agents=agents, sides=tuple(self.agents),
                         variants=variants, params=tuple(sorted(params.items())), sweep_key=key,
                         sweep_values=tuple(values), seed=self.seed.value())

    # -- running ------------------------------------------------------------------------
    def start(self) -> None:
        from runtime.runner import Runner
        from runtime.victory import MissingParams, UnreadParam

        from dsl.balance import compile_texts
        from dsl.diagnostics import DslError
        if not self.out.text().strip():  # ('' is the folder the editor was started in)
            QMessageBox.warning(self, "Balance", "choose a Results folder: the batch's games and plots go there")
            return
        try:
            spec = self.spec()
            game = compile_texts(spec.game, spec.variants) if spec.variants else self.game
            for v in spec.sweep_values or [None]:  # every number the scenario needs, before any game
                Runner(game, spec.scenario, params=dict(spec.params, **({spec.sweep_key: v} if v is not None else {})))
        except UnreadParam as e:  # (with the variants that read it, which the box can tick)
            hint = variants_hint(e.name, game, lambda v: compile_texts(spec.game, tuple(v)))
            QMessageBox.warning(self, "Balance", str(e) + (f"\n\n{hint}" if hint else ""))
            return
        except MissingParams as e:  # (in the dialog's words, not the command line's)
            QMessageBox.warning(self, "Balance", f"the scenario asks for {' and '.join(e.names)}: write "
                                f"{' '.join(n + '=N' for n in e.names)} under Numbers, or sweep it")
            return
        except (BalanceError, ValueError, NotImplementedError) as e:
            QMessageBox.warning(self, "Balance", dialog_words(str(e)))
            return
        except DslError as e:
            errors = [d.format(e.sources) for d in e.diagnostics if d.severity == "error"][:8]
            QMessageBox.warning(self, "Balance", f"{self.game.info.title} does not compile with "
                                f"{', '.join(spec.variants)}:\n\n" + "\n".join(errors))
            return
        self.summary.setText("")
        self.worker = BatchWorker(spec, self.games.value(), Path(self.out.text()), self.jobs.value())
        self.thread = QThread(self)
        self.worker.moveToThread(self.thread)
        self.thread.started.connect(self.worker.run)
        self.worker.progress.connect(self._progress)
        self.worker.finished.connect(self._done)
        self.worker.failed.connect(self._failed)
        self._t0, self._first = time.monotonic(), -1
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.thread.start()

    def running(self) -> bool:
        return self.thread is not None and self.thread.isRunning()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop.set()
            self.stop_button.setEnabled(False)
            self.rate.setText("stopping after the games under way…")

    def _progress(self, done: int, total: int) -> None:
        if self._first < 0:
            self._first, self._t0 = done, time.monotonic()
        self.bar.setMaximum(total)
        self.bar.setValue(done)
        played, dt = done - self._first, time.monotonic() - self._t0
        if played and dt > 0:
            rate = played / dt
            left = (total - done) / rate
            self.rate.setText(f"{rate:.1f} games/s, {_duration(left)} left")

    def _finish(self) -> None:
        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        if self.thread is not None:  # the worker has returned: its thread's loop only has to end
            self.thread.quit()
            self.thread.wait()

    def _done(self, summary: dict) -> None:
        self._finish()
        stopped = self.worker is not None and self.worker.stop.is_set()
        if not summary:
            self.rate.setText("stopped before any game finished")
            return
        self.rate.setText("stopped: run again to resume" if stopped else "done")
        head = (f"{summary['played']} played, {summary['resumed']} already in the folder"
                + (f" ({summary['beyond']} more there not asked for now: kept, not counted)"
                   if summary.get("beyond") else "")
                + ("; stopped early: Run resumes" if stopped else ""))
        note = [shared_note(self.worker.spec)] if summary.get("shared") and self.worker is not None else []
        self.summary.setText("\n".join([head, *note] + format_summary(summary, awards=False)))  # (a plot's tab)
        out = Path(self.out.text())
        for name, label in self.plot_labels.items():
            pix = QPixmap(str(out / name))
            if not pix.isNull():
                label.show_image(pix)

    def _failed(self, message: str) -> None:
        self._finish()
        self.rate.setText("failed")
        QMessageBox.critical(self, "Balance", dialog_words(message))

    def closeEvent(self, event) -> None:
        """Closing stops the batch without waiting for the games under way
        (a search's game may take minutes): its thread outlives the dialog,
        kept in ``_LEFT_RUNNING``, and ends after the decision under way (a
        batch in this process: that game is left unfinished) or once the
        workers' games are done; what is finished is kept in the results
        folder."""
        if self.running():
            self.stop()
            thread, worker = self.thread, self.worker
            thread.setParent(None)  # (not deleted with the dialog while it runs)
            _LEFT_RUNNING.append((thread, worker))
            thread.finished.connect(lambda: _LEFT_RUNNING.remove((thread, worker)))
            QApplication.instance().aboutToQuit.connect(thread.wait)  # (a thread ends before the editor does)
            thread.quit()  # its loop ends once the decision under way is made (in this process) or the games
        super().closeEvent(event)


_LEFT_RUNNING: list[tuple] = []  # (thread, worker) of batches whose dialog was closed mid-game


def dialog_words(message: str) -> str:
    """A batch's message (dsl.balance, in the command line's words) as the
    dialog says it: its Results folder is the command line's --out."""
    return message.replace("use another --out", "choose another Results folder") \
        .replace(" (--out names a folder)", " (the Results folder is a folder)")


def _duration(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def start_balance(win) -> BalanceDialog | None:
    """Game > Balance…: the game as the editor's texts stand now (saved or
    not); problems are shown, never raised."""
    from dsl.balance import read_game_texts
    from dsl.diagnostics import DslError

    from .play import PlayError, compile_for_play
    win.refresh_now()
    try:
        game = compile_for_play(win.doc, ())
        if not game.scenarios:
            raise PlayError(f"{game.info.title} has no scenario to play: add a scenario block")
        texts, game = read_game_texts(win.doc._mirror_dir / win.doc.game_name)
    except (PlayError, BalanceError, DslError) as e:
        win.show_diagnostics()
        QMessageBox.critical(win, "Balance", str(e))
        return None
    dlg = BalanceDialog(win, texts, game)
    dlg.resize(900, 820)
    dlg.show()
    return dlg

