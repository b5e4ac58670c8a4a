"""The main window's status bar and title: the current step, a running job's progress
and Cancel, "Changed: retrain", messages, and error boxes (main_window.py connects the
controller's signals to them).

:class:`StatusBar` is a part of :class:`~bpe_gui.gui.window.main_window.MainWindow`,
composed, not mixed in: it is given the window whose status bar and title it keeps, the
controller it shows, the recent-files list and the window's update of its actions.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QLabel, QMainWindow, QMessageBox, QProgressBar, QPushButton,
                               QSizePolicy)

from ..theme import colors
from ..controller.controller import Controller
from ..controller.worker import describe_progress
from ..models.glyphs import DRAWN_AS, glyphs, package_for
from ..models.parity_text import turn_counts
from ..widgets.text_pane import TextPane


def _cut_label(hint: int | None, least: int) -> TextPane:
    """One line of text as wide as ``hint`` (None: its text) when there is room, down to
    ``least``."""
    pane = TextPane(hint_width=hint)
    pane.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
    pane.setMinimumWidth(least)
    return pane


class FontNote(TextPane):
    """Scripts no font here draws: each said once as a message (which package has a
    font), and named in this short label for as long as the window is open, cut with
    "…" where the names do not fit (each script's sentence in the tooltip): a list of
    scripts took the bar's whole width from its messages. (A widget, so the
    application-wide signal lets go of it with the window.)"""

    def __init__(self, show_message: Callable[[str, int], None], hint: int):
        super().__init__(hint_width=hint)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(min(hint, self.fontMetrics().horizontalAdvance("No font: …")))
        self._show = show_message
        self.said: dict[str, str] = {}
        self.setVisible(False)
        g = glyphs()
        for script, sentence in g.scripts_missing.items():   # found before this window
            self._add(script, sentence)
        g.missing.connect(self.on_missing)

    def on_missing(self, script: str, sentence: str) -> None:
        self._add(script, sentence)
        self._show(self.summary(), 60_000)

    def summary(self) -> str:
        """Every script without a font so far, by the package that has one: 'No font here
        draws Devanagari, Thai (Debian/Ubuntu package fonts-noto-core): ...'."""
        by_package: dict[str, list[str]] = {}
        for script in self.said:
            by_package.setdefault(package_for(script), []).append(script)
        parts = [f"{', '.join(scripts)} (Debian/Ubuntu package {pkg})"
                 for pkg, scripts in by_package.items()]
        return (f"No font here draws {'; '.join(parts)}: {DRAWN_AS[:-1]}, their names in "
                "the tooltip.")

    def _add(self, script: str, sentence: str) -> None:
        self.said[script] = sentence
        self.setText(f"<span style='color:{colors(self)['accent']}'>No font: "
                     f"{', '.join(self.said)}</span>")
        self.setToolTip("\n".join(self.said.values()))
        self.setVisible(True)


class StatusBar:
    """The status bar, the window title and error boxes."""

    def __init__(self, window: QMainWindow, controller: Controller, recent,
                 update_actions: Callable[[], None]):
        self.window, self.controller, self.recent = window, controller, recent
        self._update_actions = update_actions
        self.last_error: tuple[str, str] | None = None
        self._recorded_paths: list[str] = []
        sb = window.statusBar()
        self.stale_label = QLabel()
        # texts that may be long (a file's name, a stop's reason) cut with "…", whole in
        # the tooltip: as labels they set the bar's minimum width, and while a corpus
        # loaded the window grew past a 1024-pixel screen
        fm = window.fontMetrics()
        # as wide as their texts, so a short one leaves the message room; both give way
        # down to their least
        self.step_label, self.progress_label = _cut_label(None, 90), _cut_label(None, 120)
        # a parity run: each language's turns so far, at every window size (the merge
        # panel's status line has them too, where there is room)
        self.turns_label = _cut_label(fm.horizontalAdvance(
            "turns: english 888 · chinese 888 · russian 888 · hindi 888"), 90)
        self.turns_label.setVisible(False)
        self.font_note = FontNote(lambda text, ms: window.statusBar().showMessage(text, ms),
                                  fm.horizontalAdvance("No font: Devanagari, Thai"))
        self.progress_bar = QProgressBar()
        self.progress_bar.setFixedWidth(180)
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        # a training job's last report (label, merges done, total) and the last step
        # and vocabulary read off the trainer: the step label and the progress label
        # say one number (on_progress, update_step_label)
        self._merges: tuple[str, int, int] | None = None
        self._looked: tuple[int, int, int, int | None, bool] | None = None
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running job (Esc)")
        self.cancel_button.clicked.connect(self.controller.cancel)
        for w in (self.font_note, self.stale_label, self.step_label, self.turns_label,
                  self.progress_label, self.progress_bar, self.cancel_button):
            sb.addPermanentWidget(w)
        self.show_busy(False)

    def follow(self) -> None:
        """The labels follow the controller: the step, a parity run's turns, a running
        job's progress (and the step again when it ends)."""
        c = self.controller
        c.progress.connect(self.on_progress)
        c.busyChanged.connect(self.show_busy)
        c.stepChanged.connect(lambda _: self.on_step())
        c.trainerChanged.connect(self.update_step_label)
        c.targetChanged.connect(self.update_step_label)
        c.livePeek.connect(lambda _: self.update_step_label())

    def on_corpus_changed(self) -> None:
        c = self.controller
        self.update_title()
        if c.corpus_paths and not c.corpus_dirty and c.corpus_paths != self._recorded_paths:
            self._recorded_paths = list(c.corpus_paths)
            self.recent.add(c.corpus_paths)

    def update_title(self) -> None:
        c = self.controller
        if c.corpus_sample and not c.corpus_dirty:
            name = f"sample “{c.corpus_sample}”"
        elif c.corpus_paths:
            name = Path(c.corpus_paths[0]).name + (f" +{len(c.corpus_paths) - 1}"
                                                   if len(c.corpus_paths) > 1 else "")
        else:
            name = "untitled corpus"
        self.window.setWindowTitle(f"{name}[*] — bpe-gui")
        self.window.setWindowModified(c.corpus_dirty)

    def on_stale(self, stale: bool) -> None:
        col = colors(self.window)
        self.stale_label.setText(f"<span style='color:{col['accent']}'>Changed: retrain "
                                 "(Ctrl+R)</span>" if stale else "")
        self.stale_label.setToolTip("Corpus or settings changed since this training; the "
                                    "next Step retrains from step 0" if stale else "")

    def on_step(self) -> None:
        self.window.statusBar().clearMessage()   # "Step 10." or "Target reached" is stale now
        self.update_step_label()

    def update_step_label(self) -> None:
        c = self.controller
        t = c.view()
        if t is None:
            self.step_label.setText("" if c.has_trainer else "No training yet")
            self.turns_label.setVisible(False)
            return
        turns = turn_counts(t.parity, t.n_steps) if t.parity is not None else ""
        # the names cut to three letters where the whole line does not fit
        short = " · ".join(f"{part.rsplit(' ', 1)[0][:3]} {part.rsplit(' ', 1)[1]}"
                           for part in turns.split(" · ")) if turns else ""
        warning = t.parity.warning if t.parity is not None else None
        sign = "⚠ " if turns and warning else ""
        self.turns_label.set_variants([f"{sign}turns: {turns}", sign + turns, sign + short]
                                      if turns else [""])
        tip = ("How many merges each language's turn made so far (parity-aware training)"
               if turns else "")
        if turns and warning:
            tip += ". ⚠ " + warning[:1].upper() + warning[1:]
        self.turns_label.setToolTip(tip)
        self.turns_label.setVisible(bool(turns))
        target = t.target_steps
        early = t.stopped_early()
        self._looked = (c.trainer_key, t.n_steps, t.vocab_size, target, bool(t.settings.prune))
        self._set_step(t.n_steps, t.vocab_size, target, early)
        self.step_label.setToolTip(f"{self.step_label.text()} · tie rule: "
                                   f"{t.settings.tie_rule}")
        if c.busy and self._merges is not None:   # a look in the middle of a run
            label, _done, total = self._merges
            self._merges = (label, t.n_steps, total)
            self.progress_label.setText(describe_progress(label, t.n_steps, total, "merges"))
        self._update_actions()

    def _set_step(self, n: int, vocab: int | None, target: int | None, early: str = "") -> None:
        step = f"Step {n:,}" + (f" / {target:,}" if target is not None else "")
        if early:
            step += f" · stopped: {early}"
        # short: the merge panel's status line says the rest, and the status bar's
        # messages get the room ("New target ap…" was cut off beside a long label)
        self.step_label.setText(step if vocab is None else f"{step} · vocabulary {vocab:,}")

    def show_busy(self, busy: bool) -> None:
        if busy:
            self.progress_bar.setRange(0, 0)  # until the first progress report
            self.progress_label.setText(f"{self.controller.job_label}…")
        for w in (self.progress_label, self.progress_bar, self.cancel_button):
            w.setVisible(busy)
        self._merges = None
        self.stale_label.setVisible(not busy)   # "Changed: retrain" while it retrains
        if not busy:
            self.update_step_label()

    def on_progress(self, label: str, done: int, total: int) -> None:
        if total > 0:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(int(1000 * min(done, total) / total))
        unit = self.controller.job_unit
        self.progress_label.setText(describe_progress(label, done, total, unit))
        if unit == "merges" and total > 0 and self.controller.training_job:
            self._merges = (label, done, total)
            self._follow_run(done)

    def _follow_run(self, done: int) -> None:
        """The step label at a running job's report: the trainer is read a few times a
        second (LiveView), its reports come every 50 ms, so the label showed "Step 320"
        beside "640 of 4,744 merges". Each merge adds one token, unless pruning."""
        if self._looked is None:
            return
        key, n, vocab, target, prune = self._looked
        if self.controller.trainer_key != key or done < n:   # a retrain's new one, unread
            return
        self._set_step(done, None if prune else vocab + done - n, target)

    # ----- errors -----------------------------------------------------------------------
    def note_error(self, title: str, message: str) -> None:
        """An error shown by a dialog of its own (``last_error``, without a box)."""
        self.last_error = (title, message)

    def show_error(self, title: str, message: str) -> QMessageBox:
        """A message box; unexpected errors (a traceback) go to the details section."""
        self.note_error(title, message)
        box = QMessageBox(self.window)
        box.setWindowTitle(title)
        if "Traceback (most recent call last)" in message:
            box.setIcon(QMessageBox.Icon.Critical)
            last = message.strip().splitlines()[-1]
            box.setText(f"Something went wrong inside bpe-gui ({last}). Your corpus and settings "
                        "are kept. Please report this with the details below.")
            box.setDetailedText(message)
        else:
            box.setIcon(QMessageBox.Icon.Warning)
            box.setText(message)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # not exec(): jobs and timers keep running behind it
        return box
