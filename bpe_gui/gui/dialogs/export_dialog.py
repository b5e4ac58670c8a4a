"""Export dialog: pick formats, a folder and a name; list the files written.

Each format goes through ``controller.tokenizer_files.export``; the engine writes every file to a
temporary name and renames it, so a folder that cannot be written gets no files. A big
vocabulary (over BACKGROUND_TOKENS) is written on the worker thread while the dialog
shows progress (Close cancels between formats; what was written stays whole).
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Protocol

from PySide6.QtCore import QSettings, Qt, SignalInstance
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QGroupBox, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QProgressBar, QPushButton, QVBoxLayout, QWidget)

from ..controller.trainer_view import TrainerView
from ..models.settings_changes import rule_label
from ..theme import colors
from ..widgets.default_button import make_default
from ..widgets.last_folder import last_folder, remember
from ..widgets.wheel_guard import guard_wheel

DEFAULT_FORMATS = ("gpt2", "hf")
BACKGROUND_TOKENS = 20_000   # bigger vocabularies are written off the GUI thread


def export_formats() -> dict[str, str]:
    from ...engine.formats import FORMATS
    return dict(FORMATS)


def tie_rule_said(t: TrainerView) -> str:
    """The tie rule of the run and where the files keep it: the bpe-gui JSON's settings
    name a plain run's rule; a parity run breaks ties as tokenizers' ParityBpeTrainer
    does, and its JSON keeps the parity settings, not a rule (no other format keeps
    either)."""
    if t.parity is not None:
        return ("ties broken as Hugging Face's ParityBpeTrainer breaks them (the greatest "
                "pair of GPT-2 spellings); the bpe-gui JSON keeps the parity settings and "
                "each merge's language")
    return f"tie rule “{rule_label(t.settings.tie_rule)}” (kept in the bpe-gui JSON)"


def written_message(files: list[Path], folder: str) -> str:
    """What the status bar says of an export: every file, whatever its format."""
    return f"Exported {len(files)} file{'s' * (len(files) != 1)} to {folder}: " + \
        ", ".join(p.name for p in files) + "."


class ExportHost(Protocol):
    """What the Export dialog reads of the controller."""

    progress: SignalInstance
    message: SignalInstance
    errorOccurred: SignalInstance

    @property
    def tokenizer_files(self) -> _Exports: ...
    @property
    def has_trainer(self) -> bool: ...
    def view(self) -> TrainerView | None: ...
    def cancel(self) -> None: ...


class _Exports(Protocol):
    last_export_error: str   # the message of the last quiet export that failed

    def export(self, fmt: str, folder: str, name: str = "tokenizer",
               quiet: bool = False) -> list[Path] | None: ...
    def export_in_background(self, fmts: list[str], folder: str, name: str,
                             on_done: Callable[[list[tuple[str, list[Path] | None, str]]], None],
                             on_end: Callable[[bool], None]) -> bool: ...


class ExportDialog(QDialog):
    """Export the tokenizer as of the current step in one or more formats."""

    def __init__(self, controller: ExportHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle("Export tokenizer")
        self.written: list[Path] = []
        self.failed: list[str] = []
        settings = QSettings()
        lay = QVBoxLayout(self)

        self.summary = QLabel(wordWrap=True)
        lay.addWidget(self.summary)

        box = QGroupBox("Formats")
        bl = QVBoxLayout(box)
        value = settings.value("export/formats", list(DEFAULT_FORMATS))
        # (QSettings gives a lone string for a one-item list)
        chosen = [value] if isinstance(value, str) else value if isinstance(value, list) \
            else list(DEFAULT_FORMATS)
        self.checks: dict[str, QCheckBox] = {}
        reasons = self._unsupported()
        for fmt, label in export_formats().items():
            cb = QCheckBox(label)
            why = reasons.get(fmt)
            cb.setChecked(fmt in chosen and not why)
            cb.setEnabled(not why)
            cb.setToolTip(why or "")
            if why:
                cb.setText(f"{label} (not for this tokenizer)")
            cb.toggled.connect(self._update)
            self.checks[fmt] = cb
            bl.addWidget(cb)
        lay.addWidget(box)

        form = QFormLayout()
        row = QHBoxLayout()
        self.folder_edit = QLineEdit(last_folder())   # the one remembered folder (last_folder.py)
        self.folder_edit.textChanged.connect(self._update)
        self.browse_button = QPushButton("Browse…", autoDefault=False)
        self.browse_button.clicked.connect(self._browse)
        row.addWidget(self.folder_edit, 1)
        row.addWidget(self.browse_button)
        form.addRow("Folder", row)
        self.name_edit = QLineEdit(str(settings.value("export/name", "tokenizer") or "tokenizer"))
        self.name_edit.setToolTip("File name stem, e.g. tokenizer -> tokenizer.json, "
                                  "tokenizer-vocab.json ...")
        self.name_edit.textChanged.connect(self._update)
        form.addRow("Name", self.name_edit)
        lay.addLayout(form)

        self.status = QLabel(wordWrap=True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.status)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m formats")
        self.progress.hide()
        lay.addWidget(self.progress)
        self.writing = False   # a background export runs
        self._closed = False   # (its callbacks then leave the closed dialog alone)
        controller.progress.connect(self._on_progress)
        self.files = QListWidget()
        self.files.setVisible(False)
        lay.addWidget(self.files)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.export_button = self.buttons.addButton("Export",
                                                    QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.export)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        make_default(self.export_button)    # once in the dialog, or Close took Enter
        self._describe()
        self._update()
        self.resize(520, 420)
        guard_wheel(self)

    def _unsupported(self) -> dict[str, str]:
        """Formats that cannot hold this tokenizer (e.g. GPT-2 files in char mode), and
        why: each format's rule on the tokenizer's mode, end of word and pattern, known
        without writing anything. (Rendering every format to find out took 1.5 s for a
        50,757-token tokenizer before the dialog appeared, and the click meanwhile was
        lost: issue 30. A rarer reason, e.g. a special token spelled as another token,
        is said by the export of that format.)"""
        t = self.controller.view()
        if t is None:
            return {}
        from ...engine.formats import settings_problem
        tok = t.tokenizer()   # its own pattern: SuperBPE's stage 2 cuts by another
        kind = SimpleNamespace(mode=tok.mode, end_of_word=tok.end_of_word,
                               pattern=tok.pattern)
        out = {}
        for fmt in export_formats():
            why = settings_problem(fmt, kind)
            if why:
                out[fmt] = why
        return out

    def _describe(self) -> None:
        c = self.controller
        t = c.view()
        if t is None:
            self.summary.setText("Nothing trained yet: press Step or Run first."
                                 if not c.has_trainer else "Training is running: export "
                                 "when it stops.")
            return
        self.summary.setText(
            f"Exports the tokenizer as of step {t.n_steps}: {len(t.vocab_bytes):,} tokens, "
            f"{t.n_steps:,} merges, {t.settings.mode} mode, "
            + (f"SuperBPE (stage 2 after step {t.transition:,}), "
               if getattr(t, "transition", None) is not None else "")
            + f"{tie_rule_said(t)}.")

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export to folder", self.folder_edit.text())
        if folder:
            self.folder_edit.setText(folder)

    def selected_formats(self) -> list[str]:
        return [fmt for fmt, cb in self.checks.items() if cb.isChecked()]

    def _update(self) -> None:
        ok = bool(self.selected_formats() and self.folder_edit.text().strip()
                  and self.name_edit.text().strip() and self.controller.has_trainer)
        self.export_button.setEnabled(ok)

    def _big(self) -> bool:
        t = self.controller.view()
        return t is not None and len(t.vocab_bytes) > BACKGROUND_TOKENS

    def export(self) -> list[Path]:
        """Write every chosen format; show what was written and what failed. A big
        vocabulary is written on the worker thread: this returns [] at once and the
        dialog shows the result when it is done (``writing`` until then)."""
        if self.writing:
            return []
        folder, name = self.folder_edit.text().strip(), self.name_edit.text().strip()
        self.written, self.failed = [], []
        fmts = self.selected_formats()
        if self._big():
            def shown(results) -> None:
                if not self._closed:
                    self._show(folder, name, results)

            def ended(finished: bool) -> None:
                if not self._closed:
                    self._ended(finished)
            started = self.controller.tokenizer_files.export_in_background(
                fmts, folder, name, shown, ended)
            if started:
                self._set_writing(True, len(fmts))
            return []
        results = []
        for fmt in fmts:
            files = self.controller.tokenizer_files.export(fmt, folder, name, quiet=True)
            results.append((fmt, files, "" if files is not None
                            else self.controller.tokenizer_files.last_export_error))
        self._show(folder, name, results)
        return self.written

    def _set_writing(self, on: bool, n: int = 0) -> None:
        self.writing = on
        for w in (*self.checks.values(), self.folder_edit, self.name_edit, self.browse_button):
            w.setEnabled(not on if not isinstance(w, QCheckBox) else
                         not on and not w.toolTip())
        self.export_button.setEnabled(not on)
        if on:
            self.progress.setRange(0, n)
            self.progress.setValue(0)
            self.status.setStyleSheet("")
            self.status.setText("Writing… (Close cancels after the format being written)")
        self.progress.setVisible(on)

    def _on_progress(self, _label: str, done, total) -> None:
        if self.writing and total:
            self.progress.setValue(int(done))

    def _ended(self, finished: bool) -> None:
        if not self.writing:
            return
        self._set_writing(False)
        self._update()
        if not finished and not self.written:
            self.status.setStyleSheet(f"color: {colors(self)['error']};")
            self.status.setText("Export cancelled: nothing was written.")

    def reject(self) -> None:
        if self.writing:   # the status bar says what the export wrote before it stopped
            self._closed = True
            self.controller.cancel()
        super().reject()

    def _show(self, folder: str, name: str, results) -> None:
        """Say what was written and what failed (one message per distinct error)."""
        errors: dict[str, str] = {}   # message -> formats: one folder problem, said once
        for fmt, files, why in results:
            if files is None:
                self.failed.append(fmt)
                errors[why] = f"{errors[why]}, {fmt}" if why in errors else fmt
            else:
                self.written.extend(files)
        settings = QSettings()
        settings.setValue("export/formats", self.selected_formats())
        if self.written:   # never remember a folder that could not be written
            remember(folder)
            settings.setValue("export/name", name)
        if errors:
            self.controller.errorOccurred.emit("Export failed", "\n\n".join(
                f"{fmts}: {msg}" if len(errors) > 1 else msg for msg, fmts in errors.items()))
        if self.written:   # (each format said only its own files, the last one stayed)
            self.controller.message.emit(written_message(self.written, folder))
        self.files.clear()
        for p in self.written:
            self.files.addItem(str(p))
        self.files.setVisible(bool(self.written))
        col = colors(self)
        if self.failed:
            self.status.setStyleSheet(f"color: {col['error']};")
            self.status.setText(f"Not written: {', '.join(self.failed)} (see the message). "
                                f"{len(self.written)} file(s) written.")
        else:
            self.status.setStyleSheet(f"color: {col['ok']};")
            self.status.setText(f"Wrote {len(self.written)} file(s) to {folder}:")
