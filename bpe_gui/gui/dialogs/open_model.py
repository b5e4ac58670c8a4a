"""File › Open model…: the models already on this machine (the Hugging Face cache,
Ollama, LM Studio, llama.cpp), by name, and their tokenizer opened without hunting for
the file.

The list is built on the controller's job runner (controller/local_models.py: the
status bar shows its progress, Esc cancels it), filtered as you type (every word in the
name, format or source, as ``bpe-gui models WORD...``), sorted by any column. Enter or
a double-click opens the selected model's tokenizer file exactly as the Import dialog
opens a file: at once, or on the worker thread with progress for a big one, and a
failure reported by the controller while the dialog stays open; a model whose file is
known not to open (not BPE, a format this version has no reader for) is greyed, and
Enter says why instead of trying. With no models it
says where it looked and how models get there. The filter, the sort and the size of
the dialog are remembered.
"""
from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, SignalInstance
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHBoxLayout,
                               QLabel, QLineEdit, QProgressBar, QPushButton, QStackedWidget,
                               QVBoxLayout, QWidget)

from ...engine.display import human_size
from ...engine.formats import LocalModel, ModelScan
from ..controller.jobs import Job, JobEnd, Outcome
from ..controller.local_models import find_models_job
from ..models.local_models import LocalModelsModel, ModelFilter
from ..theme import colors
from ..widgets.fit_columns import FittedTableView
from ..widgets.text_pane import TextPane
from ..widgets.wheel_guard import guard_wheel
from .import_dialog import BACKGROUND_BYTES, Imports, _size

KEY = "openModel/"
HOW_TO_GET = (
    "Models land there when you download them: <code>hf download "
    "meta-llama/Llama-3.2-1B</code> (or any <i>transformers</i> script), "
    "<code>ollama pull llama3.2:1b</code>, LM Studio's Discover tab, or <code>llama-cli -hf "
    "ggml-org/gemma-3-1b-it-GGUF</code>. The folders follow HF_HOME, HF_HUB_CACHE, "
    "OLLAMA_MODELS and LLAMA_CACHE as those tools do. bpe-gui downloads nothing.<br><br>"
    "A tokenizer file anywhere else opens with File › Import tokenizer (Ctrl+I).")
# keys the filter box hands to the list, so the selection moves while you type
_LIST_KEYS = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown)


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def shown_path(path: Path) -> str:
    """A path under the home folder as '~/...'."""
    p, home = str(path), str(Path.home()).rstrip(os.sep)
    return "~" + p[len(home):] if home and p.startswith(home + os.sep) else p


def file_word(m: LocalModel) -> str:
    """The tokenizer file as a sentence names it: its name, or 'Its model file' for an
    Ollama blob (a name of 71 hex digits says nothing)."""
    return "Its model file" if m.tokenizer.name.startswith("sha256-") else m.tokenizer.name



def _int(value: object, default: int) -> int:
    """A number kept in QSettings (a str or an int depending on the backend), or default."""
    try:
        return int(str(value)) if value not in (None, "") else default
    except ValueError:
        return default

class OpenModelHost(Protocol):
    """What Open model reads of the controller."""

    importFinished: SignalInstance
    progress: SignalInstance
    errorOccurred: SignalInstance
    message: SignalInstance

    @property
    def tokenizer_files(self) -> Imports: ...
    def start(self, job: Job) -> bool: ...
    def cancel(self) -> None: ...


class OpenModelDialog(QDialog):
    """The models found on this machine; Open loads the selected one's tokenizer."""

    def __init__(self, controller: OpenModelHost, parent: QWidget | None = None,
                 search: bool = True):
        super().__init__(parent)
        self.controller = controller
        self.tokenizer = None
        self.scan: ModelScan | None = None
        self.searching = False
        self.loading: LocalModel | None = None     # the model whose file loads in the background
        self.setWindowTitle("Open model")
        self._build()
        controller.importFinished.connect(self._on_loaded)
        controller.progress.connect(self._on_progress)
        self._restore()
        guard_wheel(self)
        if search:
            self.search()

    # ----- layout -----------------------------------------------------------------------
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        intro = QLabel("The models already on this machine whose tokenizer opens by name: "
                       "the Hugging Face cache, Ollama, LM Studio and llama.cpp. Nothing is "
                       "downloaded.", wordWrap=True)
        lay.addWidget(intro)
        row = QHBoxLayout()
        self.filter_edit = QLineEdit(placeholderText="Filter: words of the name, format or "
                                     "source", clearButtonEnabled=True)
        self.filter_edit.textChanged.connect(self._filter_changed)
        self.filter_edit.installEventFilter(self)
        self.refresh_button = QPushButton("Refresh", autoDefault=False)
        self.refresh_button.setToolTip("Look again (after a download, say)")
        self.refresh_button.clicked.connect(self.search)
        row.addWidget(self.filter_edit, 1)
        row.addWidget(self.refresh_button)
        lay.addLayout(row)

        self.model = LocalModelsModel(self)
        self.proxy = ModelFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = FittedTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setAlternatingRowColors(True)
        self.table.fit_columns((5, 1.6, 1, 1.4), (160, 90, 60, 90))
        self.table.doubleClicked.connect(lambda _index: self.open_selected())
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_selected())
        self.message = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setMargin(8)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.message)
        lay.addWidget(self.stack, 1)

        self.status = QLabel(wordWrap=True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.status)
        self.selected = TextPane(lines=2)
        lay.addWidget(self.selected)
        self.progress = QProgressBar()
        self.progress.setRange(0, 3)
        self.progress.setFormat("%p%")
        self.progress.hide()
        lay.addWidget(self.progress)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.open_button = self.buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.setDefault(True)
        self.open_button.setToolTip("Open the selected model's tokenizer (Enter, or a "
                                    "double-click)")
        # Enter opens (keyPressEvent), wherever the focus is: an auto-default Cancel
        # became the default button while Open was off during the search, and took it
        for button in self.buttons.buttons():
            if isinstance(button, QPushButton):
                button.setAutoDefault(False)
        self.buttons.accepted.connect(self.open_selected)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self._update_buttons()

    def _restore(self) -> None:
        s = QSettings()
        self.filter_edit.setText(str(s.value(KEY + "filter", "") or ""))
        column = _int(s.value(KEY + "sortColumn", 0), 0)
        order = Qt.SortOrder.DescendingOrder if _int(s.value(KEY + "sortOrder", 0), 0) else \
            Qt.SortOrder.AscendingOrder
        self.table.sortByColumn(min(max(column, 0), 3), order)
        width = _int(s.value(KEY + "width", 860), 860)
        height = _int(s.value(KEY + "height", 540), 540)
        screen = self.screen().availableGeometry() if self.screen() else None
        if screen is not None:
            width, height = min(width, screen.width() - 40), min(height, screen.height() - 60)
        self.resize(max(width, 420), max(height, 300))

    def _remember(self) -> None:
        s = QSettings()
        s.setValue(KEY + "filter", self.filter_edit.text())
        header = self.table.horizontalHeader()
        s.setValue(KEY + "sortColumn", header.sortIndicatorSection())
        s.setValue(KEY + "sortOrder", int(header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder))
        s.setValue(KEY + "width", self.width())
        s.setValue(KEY + "height", self.height())

    # ----- the search -------------------------------------------------------------------
    def search(self) -> None:
        """Look for models (on the job runner); the list fills when it is done."""
        if self.searching or self.loading is not None:
            return
        job = find_models_job(self._found, self._search_ended)
        if not self.controller.start(job):
            self._say_in_list("Another job is running: wait for it, or cancel it (Esc), "
                              "then press Refresh.")
            return
        self.searching = True
        self._say_in_list("Looking for models…")
        self._update_buttons()

    def _found(self, scan: ModelScan) -> None:
        self.scan = scan
        self.model.set_models(scan.models)
        self.proxy.sort(self.table.horizontalHeader().sortIndicatorSection(),
                        self.table.horizontalHeader().sortIndicatorOrder())

    def _search_ended(self, end: JobEnd) -> None:
        self.searching = False
        if end.outcome is Outcome.DONE:
            self._show_list()
        elif end.outcome is Outcome.FAILED:
            self._say_in_list(f"The search failed: {html.escape(end.message)}")
        else:
            self._say_in_list("The search was cancelled. Press Refresh to look again.")
        self._update_buttons()

    def _say_in_list(self, text: str) -> None:
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)
        self.status.setText("")
        self.selected.setText("")

    def _show_list(self) -> None:
        scan = self.scan
        if scan is None:
            return
        if not scan.models:
            self._say_in_list(self.empty_text(scan))
            self._set_status_tip(scan)
            if scan.notes:
                self.status.setText(f"{self._skipped(scan)} Hover here to see why.")
            return
        self.stack.setCurrentWidget(self.table)
        self._filter_changed(self.filter_edit.text())
        self._select_remembered()

    def empty_text(self, scan: ModelScan) -> str:
        folders = "".join(f"<li>{html.escape(line)}</li>" for line in scan.looked)
        return (f"<b>No models found on this machine.</b><br>Looked in:<ul>{folders}</ul>"
                f"{HOW_TO_GET}")

    def _skipped(self, scan: ModelScan) -> str:
        n = len(scan.notes)
        return f"{n} thing{'s' * (n != 1)} skipped (downloads not finished, folders " \
            "without a tokenizer, unreadable ones)." if n else ""

    def _set_status_tip(self, scan: ModelScan) -> None:
        parts = ["<b>Looked in</b>"] + [html.escape(x) for x in scan.looked]
        if scan.notes:
            parts += ["", "<b>Skipped</b>"] + [html.escape(x) for x in scan.notes[:40]]
            if len(scan.notes) > 40:
                parts.append(f"… and {len(scan.notes) - 40} more")
        self.status.setToolTip("<p>" + "<br>".join(parts) + "</p>")

    def _filter_changed(self, text: str) -> None:
        self.proxy.set_words(text)
        scan = self.scan
        if scan is None or not scan.models:
            return
        shown, total = self.proxy.rowCount(), len(scan.models)
        if shown == 0:
            line = f"No model matches “{text.strip()}”; {total} model" \
                f"{'s' * (total != 1)} in all (clear the filter to see them)."
        elif shown == total:
            line = f"{total} model{'s' * (total != 1)} found."
        else:
            line = f"{shown} of {total} models shown."
        if scan.notes:
            line += " " + self._skipped(scan) + " Hover here to see why."
        if not scan.complete:
            line += " The search did not finish (see why by hovering here)."
        self.status.setText(line)
        self._set_status_tip(scan)
        if shown and not self.table.selectionModel().hasSelection():
            self.table.selectRow(0)
        self._show_selected()
        self._update_buttons()

    def _select_remembered(self) -> None:
        last = QSettings().value(KEY + "last", "")
        for row in range(self.proxy.rowCount()):
            m = self.proxy.model_at(row)
            if m is not None and m.name == last:
                self.table.selectRow(row)
                self.table.scrollTo(self.proxy.index(row, 0))
                return
        if self.proxy.rowCount():
            self.table.selectRow(0)

    def current_model(self) -> LocalModel | None:
        """The selected model, or the first one shown."""
        rows = self.table.selectionModel().selectedRows()
        row = rows[0].row() if rows else 0
        return self.proxy.model_at(row)

    def _show_selected(self) -> None:
        m = self.current_model() if self.stack.currentWidget() is self.table else None
        if m is None:
            self.selected.setText("")
            return
        col = colors(self)
        text = esc(shown_path(m.tokenizer)) + (f" — {esc(m.detail)}" if m.detail else "")
        if m.problem:
            text = f"<span style='color:{col['error']}'>{esc(file_word(m))} " \
                f"{esc(m.problem)}</span><br>" + text
        self.selected.setText(f"<span>{text}</span>")   # rich text, whatever it holds
        self._update_buttons()

    def _update_buttons(self) -> None:
        idle = not self.searching and self.loading is None
        has = self.stack.currentWidget() is self.table and self.proxy.rowCount() > 0
        self.open_button.setEnabled(idle and has)
        self.refresh_button.setEnabled(idle)
        self.filter_edit.setEnabled(self.loading is None)

    # ----- opening ----------------------------------------------------------------------
    def open_selected(self) -> None:
        """Open the selected model's tokenizer as Import opens a file."""
        if self.searching or self.loading is not None or \
                self.stack.currentWidget() is not self.table:
            return
        m = self.current_model()
        if m is None:
            return
        self._remember()
        if m.problem:   # known from the file's head: say so, as a failed import would
            self.controller.errorOccurred.emit(
                "Cannot open this model",
                f"{m.name} ({m.source}): {file_word(m)} {m.problem}")
            return
        path = str(m.tokenizer)
        if _size(path) > BACKGROUND_BYTES:
            if self.controller.tokenizer_files.import_in_background(path):
                self.loading = m
                self.progress.setValue(0)
                self.progress.show()
                self.status.setText(f"Loading the tokenizer of {m.name} "
                                    f"({human_size(_size(path))})…")
                self._update_buttons()
            return
        tok = self.controller.tokenizer_files.import_tokenizer(path)
        if tok is None:
            return   # the controller showed why; pick another model
        self._done(m, tok)

    def _on_progress(self, _label: str, done: int, total: int) -> None:
        if self.loading is not None and total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)

    def _on_loaded(self, tok) -> None:
        m, self.loading = self.loading, None
        if m is None:
            return
        self.progress.hide()
        self._update_buttons()
        if tok is None:   # the controller showed why; pick another
            self._filter_changed(self.filter_edit.text())
            return
        self._done(m, tok)

    def _done(self, m: LocalModel, tok) -> None:
        QSettings().setValue(KEY + "last", m.name)
        self.tokenizer = tok
        self.controller.message.emit(
            f"Opened {m.name} ({m.source}, {m.format_label}): {len(tok.vocab):,} tokens, "
            f"{len(tok.merges):,} merges.")
        self.accept()

    # ----- keys and closing -------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.filter_edit and isinstance(event, QKeyEvent) \
                and event.type() == QEvent.Type.KeyPress and event.key() in _LIST_KEYS and self.proxy.rowCount():
            self.table.setFocus()
            self.table.keyPressEvent(event)
            self.filter_edit.setFocus()
            return True
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            self.open_selected()   # from the filter box or the list (they pass Enter on)
            return
        if event.matches(QKeySequence.StandardKey.Find):
            self.filter_edit.setFocus()
            self.filter_edit.selectAll()
            return
        super().keyPressEvent(event)

    def reject(self) -> None:
        if self.searching or self.loading is not None:
            self.controller.cancel()
        self._remember()
        super().reject()

    def done(self, result: int) -> None:
        try:
            self.controller.importFinished.disconnect(self._on_loaded)
            self.controller.progress.disconnect(self._on_progress)
        except (RuntimeError, TypeError):
            pass
        super().done(result)


def show_open_model(controller: OpenModelHost, parent: QWidget) -> OpenModelDialog:
    dlg = OpenModelDialog(controller, parent)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dlg.open()
    return dlg

