"""Corpus editor: type or paste text, open files, built-in samples, recent files, counts.

The text lives in the controller; the editor shows it. Small corpora are editable in
place (edits reach the controller after a short pause). A corpus larger than
``EDIT_LIMIT`` characters is never put whole into the text widget (Qt lays it out
on the GUI thread): the editor shows a read-only preview of its first
``PREVIEW_CHARS`` characters under a banner, and training uses the whole text.
Counts of big texts are made in slices from a timer so the window stays responsive.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol, Sequence

from PySide6.QtCore import QObject, QSettings, QSize, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QAction, QTextCursor
from PySide6.QtWidgets import (QFileDialog, QLabel, QMenu, QPlainTextEdit,
                               QSizePolicy, QToolButton, QVBoxLayout, QWidget)

from ....engine.text import Pretokenizer
from ...resources import resources
from ...theme import colors, follow_palette
from ....engine.display import counted, human_size
from ...models.settings_changes import describe_changes, sample_settings
from ...widgets.last_folder import in_last_folder, last_folder, remember
from ...controller.corpus_source import FileCorpus
from ...controller.parity_setup import ParitySetup
from ...controller.table_corpus import NO_TEXT
from .table_view import TableCorpusView
from ...widgets.flow_layout import FlowBar
from .sample_notice import NoticeHost, SampleNotice, replaces_user_settings
from ...widgets.word_branches import WordColouring
from ...widgets.exact_text import exact_text, plain_enter
from ...widgets.glyph_watch import watch_glyphs

# characters editable in place (typing stays under a few ms a key at 4 MB: the text is
# read out again only after a pause, and a retrain of that size runs off this thread)
EDIT_LIMIT = 4_000_000
FILL_ABOVE = 256_000            # characters put in a slice per tick (see _show_text)
PREVIEW_CHARS = 1_000_000       # characters shown read-only above that
PREVIEW_SLICE = 64_000          # characters added to the preview per timer tick
EDIT_DEBOUNCE_MS = 300
COUNT_SLICE = 1 << 20           # characters counted per timer tick for big texts
CORPUS_FILTER = ("Text corpora (*.txt *.md *.jsonl *.txt.xz *.md.xz *.jsonl.xz *.txt.gz "
                 "*.md.gz *.jsonl.gz *.xz *.gz);;Word-count tables (*.tsv *.tsv.gz *.tsv.xz);;"
                 "All files (*)")
SESSION_SUFFIX = ".bpesession"
RECENT_MAX = 10


def greyed(act: QAction, why: str) -> None:
    """``act`` greyed, saying ``why`` in its tooltip and the status bar (issue 89)."""
    act.setEnabled(False)
    act.setToolTip(f"Greyed: {why}")
    act.setStatusTip(why)


class RecentFiles(QObject):
    """Most-recently-used paths (corpus files and sessions), kept in QSettings."""

    changed = Signal()

    def __init__(self, settings: QSettings, key: str = "recentFiles", parent=None):
        super().__init__(parent)
        self._settings, self._key = settings, key

    def paths(self) -> list[str]:
        value = self._settings.value(self._key, [])
        if isinstance(value, str):  # QSettings gives a lone string for a one-item list
            value = [value]
        if not isinstance(value, list):
            value = []
        if len(value) > RECENT_MAX:   # a settings file from elsewhere: 20,000 entries
            value = value[:RECENT_MAX]  # made a 20,000-item menu and a 25 s quit
            self._settings.setValue(self._key, [str(p) for p in value])
        return [str(p) for p in value if p]

    def add(self, paths: Sequence[str]) -> None:
        items = self.paths()
        for p in reversed([str(Path(p).resolve()) for p in paths]):
            if p in items:
                items.remove(p)
            items.insert(0, p)
        self._settings.setValue(self._key, items[:RECENT_MAX])
        self.changed.emit()

    def clear(self) -> None:
        self._settings.setValue(self._key, [])
        self.changed.emit()

    def fill_menu(self, menu: QMenu, open_paths) -> None:
        menu.clear()
        menu.setToolTipsVisible(True)
        paths = self.paths()
        for i, p in enumerate(paths):
            label = f"&{i + 1} {Path(p).name}" if i < 9 else Path(p).name
            act = menu.addAction(label)
            act.setToolTip(p)
            act.setStatusTip(p)
            act.triggered.connect(lambda _=False, p=p: open_paths([p]))
        why = "No file opened yet: the files you open are listed here."
        if not paths:
            greyed(menu.addAction("(no recent files)"), why)
        menu.addSeparator()
        clear = menu.addAction("Clear recent files")
        if not paths:
            greyed(clear, why)
        clear.triggered.connect(self.clear)


class _TextEdit(QPlainTextEdit):
    """A plain-text editor whose file drops open files and whose huge pastes bypass it."""

    filesDropped = Signal(list)
    bigPaste = Signal(str)

    def sizeHint(self) -> QSize:
        # A modest preferred height: the dock's scroll area sizes this panel by its
        # preferred heights (its word-wrapped labels make it height-for-width), and
        # QPlainTextEdit's 192 pixels made a 390-pixel dock scroll; it grows anyway.
        return QSize(256, 4 * self.fontMetrics().lineSpacing())

    def toPlainText(self) -> str:
        """The text exactly (no-break spaces and U+2028 kept: exact_text.py), so an edit
        changes only what was edited."""
        return exact_text(self.document())

    def keyPressEvent(self, e) -> None:
        super().keyPressEvent(plain_enter(e))   # Shift+Enter: a line break, not U+2028

    def canInsertFromMimeData(self, source) -> bool:
        return source.hasUrls() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source) -> None:
        files = [u.toLocalFile() for u in source.urls() if u.isLocalFile()] if source.hasUrls() else []
        if files:
            self.filesDropped.emit(files)
        elif source.hasText() and len(source.text()) > EDIT_LIMIT:
            self.bigPaste.emit(source.text())
        else:
            super().insertFromMimeData(source)


class WordTable(Protocol):
    """What the editor reads of a word-count table (engine.corpus.PretokenTable)."""

    n_chars: int
    n_bytes: int

    @property
    def total(self) -> int: ...
    def __len__(self) -> int: ...


class CorpusHost(NoticeHost, Protocol):
    """What the corpus editor reads of the controller (its notice's, and these)."""

    trainerChanged: SignalInstance
    trainerStale: SignalInstance
    errorOccurred: SignalInstance
    parity: ParitySetup

    @property
    def corpus_text(self) -> str: ...
    @property
    def corpus_paths(self) -> list[str]: ...
    @property
    def corpus_dirty(self) -> bool: ...
    @property
    def corpus_table(self) -> WordTable | None: ...
    @property
    def corpus_files(self) -> FileCorpus | None: ...
    @property
    def streamed(self) -> bool: ...
    @property
    def opening(self) -> _OpensFiles: ...
    @property
    def queries(self) -> _CountsCorpus: ...
    def set_corpus_text(self, text: str, paths: Sequence[str] = (), sample: str | None = None,
                        dirty: bool = True) -> None: ...


class _OpensFiles(Protocol):
    def open_files(self, paths: Sequence[str], encoding: str = "utf-8") -> bool: ...
    def save_corpus(self, path: str) -> bool: ...


class _CountsCorpus(Protocol):
    def corpus_pretokens(self) -> tuple[int, int] | None: ...
    def corpus_text_counts(self) -> tuple[int, int] | None: ...


class CorpusEditor(QWidget):
    """The corpus: text, where it came from, counts, unsaved marker."""

    pathsRequested = Signal(list)   # recent entries and dropped files: the window routes them
    sampleLoaded = Signal(object)   # the resources.Sample just made the corpus

    def __init__(self, controller: CorpusHost, parent: QWidget | None = None,
                 recent: RecentFiles | None = None):
        super().__init__(parent)
        self.controller = controller
        self.recent = recent
        # asks Save / Discard / Cancel for unsaved edits (True: go ahead); the main
        # window gives its own (window/files.py); alone, the editor replaces them
        self.ask_to_save: Callable[[str], bool] | None = None
        # asks before Clear throws away a trained state or unsaved edits (True: go
        # ahead); the main window gives its own (window/files.py)
        self.confirm_clear: Callable[[], bool] | None = None
        self._shown_text: str | None = None   # the corpus text the widget now represents
        self._preview = False
        self._syncing = False
        self._counts: dict = {}
        self._count_job: tuple | None = None  # (text, position, bytes, lines so far)
        self._edited = False                  # typed since the last hand-over
        self._build()
        self._edit_timer = QTimer(self, singleShot=True, interval=EDIT_DEBOUNCE_MS)
        self._edit_timer.timeout.connect(self.flush)
        self._count_timer = QTimer(self, interval=0)
        self._count_timer.timeout.connect(self._count_slice)
        self._fill: list[str] = []            # preview text still to add
        self._fill_timer = QTimer(self, interval=0)
        self._fill_timer.timeout.connect(self._fill_slice)
        c = controller
        c.corpusChanged.connect(self._on_corpus_changed)
        c.trainerChanged.connect(self._update_stats)
        c.parityChanged.connect(self._on_parity_changed)
        c.trainerStale.connect(lambda _: self._update_stats())
        c.settingsChanged.connect(lambda _: self._update_stats())
        # Words mode (issue 15): the corpus coloured by the rule of the pattern that cut it.
        self.words = WordColouring(self.edit, lambda: Pretokenizer(c.settings.pattern,
                                                                   c.settings.cut_at))
        self._bar.insertWidget(self._bar.indexOf(self.unsaved_label), self.words.toggle)
        self._lay.insertWidget(self._lay.indexOf(self.edit), self.words.legend)
        c.settingsChanged.connect(lambda _: self.words.refresh())
        if recent is not None:
            recent.changed.connect(self._fill_recent)
        self._fill_recent()
        self._on_corpus_changed()

    # ----- layout ---------------------------------------------------------------------
    def _build(self) -> None:
        self._lay = lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(4)
        bar = FlowBar(spacing=4)   # wraps in a narrow dock instead of scrolling sideways
        # (ignore[call-arg]: PySide6 takes Qt properties as keywords; its stubs omit them)
        self.open_button = QToolButton(text="Open…")  # type: ignore[call-arg]
        self.open_button.setToolTip("Open one or more corpus files (.txt .md .jsonl, "
                                    "also .xz/.gz compressed)")
        self.open_button.clicked.connect(self.open_dialog)
        self.samples_button = QToolButton(  # type: ignore[call-arg]
            text="Samples", popupMode=QToolButton.ToolButtonPopupMode.InstantPopup)
        self.samples_menu = QMenu(self)
        self.populate_samples_menu(self.samples_menu)
        self.samples_button.setMenu(self.samples_menu)
        self.recent_button = QToolButton(  # type: ignore[call-arg]
            text="Recent", popupMode=QToolButton.ToolButtonPopupMode.InstantPopup)
        self.recent_menu = QMenu(self)
        self.recent_button.setMenu(self.recent_menu)
        self.recent_button.setVisible(self.recent is not None)
        self.save_button = QToolButton(text="Save as…")  # type: ignore[call-arg]
        self.save_button.setToolTip("Save the corpus text to a UTF-8 file")
        self.save_button.clicked.connect(self.save_as_dialog)
        self.new_button = QToolButton(text="Clear")  # type: ignore[call-arg]
        self.new_button.setToolTip("Start an empty corpus to type or paste into")
        self.new_button.clicked.connect(self.new_corpus)
        for w in (self.open_button, self.samples_button, self.recent_button, self.save_button,
                  self.new_button):
            bar.addWidget(w)
        self.unsaved_label = QLabel()
        self.unsaved_label.setToolTip("The corpus has edits that are not saved to a file")
        bar.addWidget(self.unsaved_label)
        lay.addWidget(bar)
        self._bar = bar

        self.source_label = QLabel()
        self.source_label.setWordWrap(True)
        self.source_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.source_label)
        self.notice = SampleNotice(self.controller)
        lay.addWidget(self.notice)
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        self.banner.setObjectName("previewBanner")
        lay.addWidget(self.banner)

        self.edit = _TextEdit()
        watch_glyphs(self.edit)   # a character no font draws is a box here
        self.edit.setPlaceholderText("Type or paste a corpus here, open files (Ctrl+O), drop "
                                     "files on the window, or pick a sample.")
        self.edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.edit.textChanged.connect(self._on_text_edited)
        self.edit.filesDropped.connect(self.pathsRequested)
        self.edit.bigPaste.connect(self._on_big_paste)
        self.edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        lay.addWidget(self.edit, 1)
        self.table_view = TableCorpusView()   # in place of the editor for a count table
        self.table_view.setVisible(False)
        lay.addWidget(self.table_view, 1)

        self.stats_label = QLabel()
        self.stats_label.setWordWrap(True)
        self.stats_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.stats_label)
        follow_palette(self, self._restyle)

    def _restyle(self) -> None:
        col = colors(self)
        self.banner.setStyleSheet(f"QLabel#previewBanner {{ background: {col['warn_bg']}; "
                                  f"color: {col['warn_fg']}; padding: 4px 6px; "
                                  "border-radius: 3px; }")
        self.unsaved_label.setStyleSheet(f"color: {col['accent']}; font-weight: bold;")

    # ----- menus ----------------------------------------------------------------------
    def populate_samples_menu(self, menu: QMenu) -> None:
        """One action per built-in sample (the File > Samples menu uses this too)."""
        menu.clear()
        try:
            samples = resources().samples()
        except (OSError, ValueError, KeyError) as e:
            menu.addAction(f"(samples unavailable: {e})").setEnabled(False)
            return
        for s in samples:
            act = menu.addAction(s.title)
            act.setToolTip(s.description)
            act.setStatusTip(s.description)
            act.setData(s.id)
            act.triggered.connect(lambda _=False, sid=s.id: self.load_sample(sid))

    def _fill_recent(self) -> None:
        if self.recent is not None:
            self.recent.fill_menu(self.recent_menu, self.pathsRequested.emit)

    # ----- actions --------------------------------------------------------------------
    def load_sample(self, sample_id: str, retrain: bool = True) -> bool:
        """Make a built-in sample the corpus, with its suggested settings."""
        res = resources()
        try:
            sample = res.sample(sample_id)
            text = res.sample_text(sample)
        except (KeyError, OSError) as e:
            self.controller.errorOccurred.emit("Sample", str(e))
            return False
        if not self.confirm_discard(f"Load the sample {sample.title.split(' (')[0]}"):
            return False
        settings = sample_settings(sample.settings)
        c = self.controller
        previous = c.settings
        changed = describe_changes(previous, settings)
        try:   # the settings of the sample on show, if the corpus still is one
            shown = sample_settings(res.sample(c.corpus_sample).settings) \
                if c.corpus_sample and not c.corpus_dirty else None
        except (KeyError, TypeError):
            shown = None
        theirs = replaces_user_settings(previous, c.corpus_text, shown)
        if not c.set_settings(settings):
            return False
        self._edit_timer.stop()
        c.set_corpus_text(text, sample=sample_id, dirty=False)
        # the sample's own settings apply; settings the user chose can be had back
        what = f" Its settings changed: {', '.join(changed)}." if changed else ""
        c.message.emit(f"Sample loaded: {sample.title}.{what}")
        if changed and theirs:
            self.notice.show_change(sample_id, sample.title.split(" (")[0], changed, previous)
        if retrain and not self.controller.busy:
            self.controller.training.retrain(quiet=True)
        self.sampleLoaded.emit(sample)
        return True

    def confirm_discard(self, what: str = "Replace the corpus") -> bool:
        """Before ``what`` replaces the corpus (its trained steps, its edits): ask
        (``ask_to_save``), if someone does."""
        self.flush()
        ask = self.ask_to_save
        return ask(what) if ask is not None else True

    def open_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open corpus files", last_folder(),
                                                CORPUS_FILTER)
        if paths:
            remember(paths[0])
            self.open_files(paths)

    def open_files(self, paths: Sequence[str], encoding: str = "utf-8") -> bool:
        """Read files on the worker thread (progress in the status bar)."""
        names = ", ".join(Path(p).name for p in paths[:2]) + (" …" if len(paths) > 2 else "")
        if not paths or not self.confirm_discard(f"Open {names}"):
            return False
        self._edit_timer.stop()
        return self.controller.opening.open_files(list(paths), encoding=encoding)

    def new_corpus(self) -> None:
        """Clear: an empty corpus, once the user has said yes to what it throws away."""
        self.flush()
        ask = self.confirm_clear or self.confirm_discard
        if not ask():
            return
        self._edit_timer.stop()
        self.controller.set_corpus_text("", dirty=False)
        self.edit.setFocus()

    def save_as_dialog(self) -> bool:
        self.flush()
        c = self.controller
        if c.corpus_table is not None:
            c.message.emit("The corpus is a word-count table: it has no text to save.")
            return False
        default = c.corpus_paths[0] if len(c.corpus_paths) == 1 else in_last_folder("corpus.txt")
        if Path(default).suffix in (".xz", ".gz", ".jsonl"):
            default = str(Path(default).with_suffix(".txt"))
        path, _ = QFileDialog.getSaveFileName(self, "Save corpus as", default,
                                              "Text (*.txt *.md);;All files (*)")
        if not path:
            return False
        remember(path)
        return self.save_to(path)

    def save_to(self, path: str) -> bool:
        self.flush()
        ok = self.controller.opening.save_corpus(path)
        if ok and self.recent is not None:
            self.recent.add([path])
        return ok

    # ----- text <-> controller ----------------------------------------------------------
    def flush(self) -> None:
        """Hand pending edits to the controller now (before saving, closing, switching)."""
        if self._edit_timer.isActive() or self._pending_edit():
            self._edit_timer.stop()
            self._edited = False
            if self._preview:
                return
            text = self.edit.toPlainText()
            if text != self.controller.corpus_text:
                c = self.controller
                self._shown_text = text
                c.set_corpus_text(text, paths=c.corpus_paths, sample=None, dirty=True)

    def _pending_edit(self) -> bool:
        return self._edited

    def _on_text_edited(self) -> None:
        if self._syncing or self._preview:
            return
        self._edited = True
        self._edit_timer.start()
        self._set_unsaved(True)

    def _on_big_paste(self, pasted: str) -> None:
        cur = self.edit.textCursor()
        text = self.edit.toPlainText()
        new = text[:cur.selectionStart()] + pasted + text[cur.selectionEnd():]
        self._edit_timer.stop()
        self._edited = False
        c = self.controller
        c.set_corpus_text(new, paths=c.corpus_paths, sample=None, dirty=True)

    def _on_corpus_changed(self) -> None:
        c = self.controller
        table = c.corpus_table is not None
        if table:
            self.table_view.show_table(c.corpus_table, c.corpus_paths)
            self.words.toggle.setChecked(False)
        self.table_view.setVisible(table)
        self.edit.setVisible(not table)
        self.words.toggle.setEnabled(not table)
        if not hasattr(self, "_words_tip"):
            self._words_tip = self.words.toggle.toolTip()
        self.words.toggle.setToolTip(NO_TEXT if table else self._words_tip)
        text = c.corpus_text
        if text is not self._shown_text and text != self._shown_text:
            self._show_text(text)
        self._edited = False
        self._set_unsaved(c.corpus_dirty)
        self.save_button.setEnabled(not c.streamed)   # its files are the corpus
        self._update_source()
        self._start_counts()

    def _show_text(self, text: str) -> None:
        self._syncing = True
        fc = self.controller.corpus_files
        try:
            self._preview = len(text) > EDIT_LIMIT or fc is not None
            self._fill_timer.stop()
            self._fill = []
            if self._preview:
                cut = text.rfind("\n", 0, PREVIEW_CHARS)
                shown = text[:cut if cut > PREVIEW_CHARS // 2 else PREVIEW_CHARS]
                self.edit.setReadOnly(True)
                self.edit.setUndoRedoEnabled(False)
                # Qt lays text out on this thread: add the preview a slice per tick
                self._fill = [shown[i:i + PREVIEW_SLICE]
                              for i in range(0, len(shown), PREVIEW_SLICE)]
                self.edit.setPlainText(self._fill.pop(0))
                self._fill.reverse()
                self._fill_timer.start()
                self.banner.setText(fc.banner() if fc is not None else
                    f"<b>Large corpus:</b> showing the first {len(shown):,} of {len(text):,} "
                    f"characters ({100 * len(shown) / len(text):.0f}%), read-only. "
                    "Training and counts use the whole text. To edit, open a smaller file "
                    "or use Clear to start a new corpus.")
            elif len(text) > FILL_ABOVE:
                # editable once whole: Qt lays the text out on this thread (about 0.4 s
                # a MB), so it goes in a slice per tick and the window stays live
                self.edit.setReadOnly(True)
                self.edit.setUndoRedoEnabled(False)
                self._fill = [text[i:i + PREVIEW_SLICE]
                              for i in range(0, len(text), PREVIEW_SLICE)]
                self.edit.setPlainText(self._fill.pop(0))
                self._fill.reverse()
                self._fill_timer.start()
            else:
                self.edit.setReadOnly(False)
                self.edit.setUndoRedoEnabled(True)
                self.edit.setPlainText(text)
            self.banner.setVisible(self._preview)
            self._shown_text = text
        finally:
            self._syncing = False

    def _fill_slice(self) -> None:
        if not self._fill:
            self._fill_timer.stop()
            return
        cursor = QTextCursor(self.edit.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self._syncing = True
        try:
            cursor.insertText(self._fill.pop())
        finally:
            self._syncing = False
        if not self._fill and not self._preview:   # all of an editable text is in
            self._fill_timer.stop()
            self.edit.setUndoRedoEnabled(True)
            self.edit.setReadOnly(False)

    @property
    def preview_loading(self) -> bool:
        return bool(self._fill)

    @property
    def is_preview(self) -> bool:
        return self._preview

    def _set_unsaved(self, on: bool) -> None:
        self.unsaved_label.setText("● unsaved" if on else "")

    def _on_parity_changed(self, _setup) -> None:
        self._update_source()   # what the next training reads: the corpus or not
        self._update_stats()

    def _update_source(self) -> None:
        c = self.controller
        if c.corpus_table is not None:
            names = ", ".join(Path(p).name for p in c.corpus_paths[:4])
            src = f"Word-count table{'s' if len(c.corpus_paths) > 1 else ''}: {names}"
            self.source_label.setToolTip("\n".join(c.corpus_paths))
        elif c.corpus_sample and not c.corpus_dirty:
            try:
                title = resources().sample(c.corpus_sample).title
            except KeyError:
                title = c.corpus_sample
            # "(character mode, ...)" in a title names the sample's suggested settings,
            # which the user may have changed since: keep it out of the label.
            short = title.split(" (")[0] if title.endswith(")") else title
            src = f"Sample: {short}"
            self.source_label.setToolTip(f"{title}\n(the settings it suggests were applied "
                                         "when it was loaded)")
        elif c.corpus_paths:
            names = ", ".join(Path(p).name for p in c.corpus_paths[:4])
            more = f" and {len(c.corpus_paths) - 4} more" if len(c.corpus_paths) > 4 else ""
            src = (f"{len(c.corpus_paths)} files: " if len(c.corpus_paths) > 1 else "File: ") \
                + names + more + (" (edited)" if c.corpus_dirty else "")
            self.source_label.setToolTip("\n".join(c.corpus_paths))
        elif c.corpus_text:
            src = "Typed or pasted text"
        else:
            src = "Empty corpus"
        if c.parity.active:   # what the next training reads is the plan's, not this text
            names = ", ".join(lang.name for lang in c.parity.languages)
            src += f" · not trained on: parity training reads its languages' files ({names})"
        self.source_label.setText(src)

    # ----- counts -----------------------------------------------------------------------
    def _start_counts(self) -> None:
        text = self.controller.corpus_text
        self._counts = {"chars": len(text), "lines": None, "bytes": None}
        if self.controller.streamed:   # counted by training, which reads the files
            self._counts["chars"] = None
            self._count_timer.stop()
            self._count_job = None
        elif len(text) <= COUNT_SLICE:
            self._counts["bytes"] = len(text.encode("utf-8"))
            self._counts["lines"] = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
            self._count_timer.stop()
            self._count_job = None
        else:
            self._count_job = (text, 0, 0, 0)
            self._count_timer.start()
        self._update_stats()

    def _count_slice(self) -> None:
        """Count bytes and lines of a big text one slice per timer tick."""
        if self._count_job is None:
            self._count_timer.stop()
            return
        text, pos, nbytes, nlines = self._count_job
        if text is not self.controller.corpus_text:
            self._count_timer.stop()
            return
        chunk = text[pos:pos + COUNT_SLICE]
        nbytes += len(chunk.encode("utf-8", "surrogatepass"))
        nlines += chunk.count("\n")
        pos += len(chunk)
        if pos >= len(text):
            self._count_timer.stop()
            self._count_job = None
            self._counts.update(bytes=nbytes, lines=nlines + (0 if text.endswith("\n") else 1))
            self._update_stats()
        else:
            self._count_job = (text, pos, nbytes, nlines)

    def pretoken_counts(self) -> tuple[int, int] | None:
        """(pre-tokens, unique), as the controller knows them (the trainer's table, a
        word-count table, or a tiny text counted at once)."""
        return self.controller.queries.corpus_pretokens()

    def _streamed_counts(self) -> None:
        """A streamed corpus: size on disk; characters and bytes from its pre-token table
        once training has read the files."""
        counts = self.controller.queries.corpus_text_counts()
        chars, nbytes = counts if counts is not None else (None, None)
        self._counts.update(chars=chars, bytes=nbytes)

    def _update_stats(self) -> None:
        c = self.controller
        n = self._counts
        if c.corpus_table is not None:
            t = c.corpus_table
            self.stats_label.setText(f"{counted(t.total, 'word')} ({len(t):,} unique) · "
                                     f"{counted(t.n_chars, 'character')} · "
                                     f"{counted(t.n_bytes, 'byte')} of text")
            return
        if not c.corpus_text:
            self.stats_label.setText("0 characters")
            return
        files = c.corpus_files
        if files is not None:   # (streamed)
            self._streamed_counts()
            parts = [f"{human_size(files.disk_bytes)} on disk"]
            if n["chars"] is None:
                parts.append("characters: counted when training reads the files" if not c.busy
                             else "characters: counting…")
            else:
                parts.append(counted(n['chars'], "character"))
        else:
            parts = [counted(n['chars'], "character")]
        if n["bytes"] is None:
            parts.append("" if c.streamed else "bytes: counting…")
        elif n["bytes"] < 1000:
            parts.append(counted(n['bytes'], "byte"))
        else:
            parts.append(f"{n['bytes']:,} bytes ({human_size(n['bytes'])})")
        if n["lines"] is not None:
            parts.append(counted(n['lines'], "line"))   # ("1 lines" for a one-line corpus)
        pre = self.pretoken_counts()
        if pre is not None:
            parts.append(f"{counted(pre[0], 'pre-token')} ({pre[1]:,} unique)")
        elif c.parity.active:
            parts.append("pre-tokens: not counted (parity training reads its languages)")
        elif c.busy:
            parts.append("pre-tokens: counting…")
        else:
            parts.append("pre-tokens: counted when training starts (Ctrl+R)")
        # a count wraps only between the parts, never inside "1,061 pre-tokens"; a note
        # ("pre-tokens: not counted (…)") wraps between its words, or an unbreakable run
        # wider than the dock makes the whole dock scroll sideways
        self.stats_label.setText(" · ".join(_unbroken(p) for p in parts if p))

    def counts(self) -> dict:
        """Characters, bytes, lines and pre-token counts as shown (for tests and tools)."""
        pre = self.pretoken_counts()
        return dict(self._counts, pretokens=pre[0] if pre else None,
                    unique_pretokens=pre[1] if pre else None)


def _unbroken(part: str) -> str:
    """A count ("1,061 pre-tokens (64 unique)") kept on one line; a note left to wrap."""
    if ":" in part:   # "pre-tokens: counted when …", "characters: counting…"
        return part
    return part.replace(" ", "\u00a0").replace("-", "\u2011")
