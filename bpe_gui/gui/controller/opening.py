"""Opening and saving for the controller: corpus files (read on the worker thread; big
ones become a streamed corpus, word-count tables a table corpus), the corpus text, and
sessions (corpus reference + settings + step).

:class:`Opening` is a part of the controller, given what it uses of it (the state and
verbs of :class:`OpeningHost`), how to report an error and the training part's two
hooks; each job it starts carries its own result handler (no tags to dispatch on).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Literal, Protocol, Sequence

from PySide6.QtCore import QMetaMethod, SignalInstance

from ...engine.corpus import settings_for_table
from ...engine.display import counted, human_size
from ...engine.errors import BPEError, NotUTF8Error
from ...engine.io import write_atomic
from ...engine.train import Session
from ...engine.train import TrainSettings
from ...engine.tokenizers import BaseTokenizer
from ...engine.train import RunCommon
from .before_edits import BeforeEdits, corpus_fields
from .corpus_source import (Corpus, FileCorpus, NotUtf8, TableCorpus, TextCorpus,
                            not_a_file, probe_files)
from .jobs import Job
from .parity_setup import ParitySetup
from .restoring import Restoring
from .table_corpus import read_job, table_paths
from .tokenizer_files import TokenizerFiles
from .train_on import TrainOn
from .training import SYNC_CHARS, Training


class OpeningHost(Protocol):
    """What :class:`Opening` uses of the controller it serves."""

    corpus: Corpus                    # a table corpus is set here
    settings: TrainSettings           # set here (a table's or a session's)
    stale: bool
    trainer: RunCommon | None
    imported: BaseTokenizer | None
    imported_path: str | None
    imported_pattern: str | None
    use_imported: bool
    session_path: str | None          # set here
    settings_for_new_corpus: Callable[[], TrainSettings | None] | None
    training: Training                # retrains a new corpus, a session
    train_on: TrainOn                 # a session trained on from a tokenizer
    parity: ParitySetup               # a session's parity-aware training (set here)
    parityChanged: SignalInstance
    tokenizer_files: TokenizerFiles   # a session's imported tokenizer
    message: SignalInstance
    notUtf8: SignalInstance
    settingsChanged: SignalInstance
    corpusChanged: SignalInstance
    trainerStale: SignalInstance
    jobEnded: SignalInstance
    stepChanged: SignalInstance

    @property
    def busy(self) -> bool: ...
    @property
    def step_index(self) -> int: ...
    def isSignalConnected(self, signal: QMetaMethod) -> bool: ...
    def start(self, job: Job) -> bool: ...
    def set_settings(self, settings: TrainSettings) -> bool: ...
    def set_corpus(self, corpus: Corpus) -> None: ...
    def set_corpus_text(self, text: str, paths: Sequence[str] = (), sample: str | None = None,
                        dirty: bool = True, encoding: str = "utf-8") -> None: ...
    def mark_corpus_saved(self, path: str | None = None) -> None: ...


class Opening:
    """Files and sessions of the controller (see the module docstring): given the
    controller's state and verbs (``host``), how to report an error (``fail``), and the
    training part's hooks: a new corpus (``new_corpus``) and holding the retrain that
    an edit started (``hold_retrain``)."""

    def __init__(self, host: OpeningHost, *, fail: Callable[[str, object], None],
                 new_corpus: Callable[[], None], hold_retrain: Callable[[], None]):
        self.c = host
        self._fail, self._new_corpus, self._hold_retrain = fail, new_corpus, hold_retrain
        # a session being restored: what saves write until it has landed (restoring.py)
        self.restoring: Restoring | None = None
        # the corpus as it was before unsaved edits, with the settings and steps trained
        # on it: what a session without the edits holds (Discard at quit)
        self.before_edits = BeforeEdits(host)
        # what the last session restored could not bring back (a tokenizer file gone):
        # the window says it beside its own message
        self.restore_notes: list[str] = []
        # at once, after the job's callbacks: the user's next step must not come first
        host.jobEnded.connect(self._restore_job_ended)
        host.stepChanged.connect(self._on_step)

    def _job(self, label: str, run, on_done, abandon: bool = False) -> bool:
        c = self.c
        return c.start(Job(label, run, on_done, c.training.trainer_job_ended, abandon=abandon))

    # ----- corpus files ---------------------------------------------------------------
    def open_files(self, paths: Sequence[str], encoding: str = "utf-8") -> bool:
        """Read files on the worker thread (progress bar), then make them the corpus.
        Word-count tables (``bpe-gui count``) become the corpus as a table."""
        c = self.c
        paths = [str(p) for p in paths]
        tables = self._tables(paths, "Opening files", "")
        if tables is None:
            return False
        if tables:
            def opened_table(table) -> None:
                self.set_corpus_table(table, tables)
                c.training.retrain()
            return self._job("Reading word-count tables", read_job(tables), opened_table,
                             abandon=True)

        def job(progress, cancelled):
            try:
                return probe_files(paths, encoding, cancelled)
            except NotUTF8Error as e:
                return NotUtf8.of(e, paths)
        return self._job("Reading files", job, lambda r: self._opened(r, paths, encoding),
                         abandon=True)

    def _tables(self, paths: list[str], title: str, whose: str) -> list[str] | None:
        """The word-count tables among ``paths`` (none: text files), checked before
        anything opens them on this thread; None when one cannot be read (said)."""
        why = not_a_file(paths)
        if why is not None:
            self._fail(title, whose + why)
            return None
        try:
            return table_paths(paths) or []
        except ValueError as e:
            self._fail(title, e)
            return None

    def _opened(self, result: str | FileCorpus | NotUtf8, paths: list[str],
                encoding: str = "utf-8") -> None:
        c = self.c
        if isinstance(result, NotUtf8):
            self.not_utf8(result)
        elif isinstance(result, FileCorpus):
            chosen = self._settings_for_new_corpus()
            c.set_corpus(result)   # streamed: the text is only its preview
            if self._adopt_settings(chosen, f"Opened {result.names} "
                                    f"({human_size(result.disk_bytes)}): streamed from "
                                    "disk when training, never read whole."):
                c.training.retrain()
        elif not result or result.isspace():   # like a binary file: refused, corpus kept
            names = ", ".join(Path(p).name for p in paths)
            self._fail("Empty corpus", f"{names}: no text in the file(s), so the corpus "
                    "you have is kept. Open a file with some text, type or paste "
                    "text, or pick a sample.")
        else:
            chosen = self._settings_for_new_corpus()
            c.set_corpus_text(result, paths=paths, dirty=False, encoding=encoding)
            if self._adopt_settings(chosen, f"Opened {len(paths)} file(s): {len(result):,} "
                                    "characters.") and len(result) > SYNC_CHARS:
                c.training.retrain()

    def not_utf8(self, e: NotUtf8) -> None:
        """Offer another encoding (a listener of notUtf8), else say what is wrong."""
        c = self.c
        if e.cut:   # (a cut file: the encoding dialog would offer what cannot help)
            self._fail("Reading files", e.message)
        elif c.isSignalConnected(QMetaMethod.fromSignal(c.notUtf8)):
            c.notUtf8.emit(e.paths, e.bad, e.offset, e.message)
        else:
            self._fail("Reading files", e.message)

    def _settings_for_new_corpus(self) -> TrainSettings | None | Literal[False]:
        """What ``settings_for_new_corpus`` says (False: nobody asked, keep them)."""
        ask = self.c.settings_for_new_corpus
        return False if ask is None else ask()

    def _adopt_settings(self, chosen: TrainSettings | None | Literal[False],
                        opened: str) -> bool:
        """The new corpus (already set, so stale) gets the settings chosen for it, so it
        is read once, with them. False: do not train it (the settings have errors)."""
        c = self.c
        if chosen is None:
            self._hold_retrain()
            c.message.emit(f"{opened} Not trained yet: fix the training settings marked "
                           "in red, then Train (F5).")
            return False
        if chosen is not False and chosen != c.settings and not c.set_settings(chosen):
            return False
        c.message.emit(opened)
        return True

    def set_corpus_table(self, table, paths: Sequence[str], adopt: bool = True) -> None:
        """A word-count table becomes the corpus; ``adopt``: the settings take its
        pattern and special tokens (training needs them)."""
        c = self.c
        self._new_corpus()
        c.corpus = TableCorpus(table, tuple(str(p) for p in paths))
        settings = settings_for_table(c.settings, table.meta)
        if adopt and settings != c.settings:
            c.settings = settings
            c.settingsChanged.emit(settings)
        c.corpusChanged.emit()
        c.stale = True
        c.trainerStale.emit(True)
        c.message.emit(f"Opened a word-count table: {counted(len(table), 'unique word')}, "
                       f"{counted(table.total, 'word')}.")

    def save_corpus(self, path: str) -> bool:
        """Write the corpus text to a UTF-8 file (atomically) and mark it saved."""
        c = self.c
        if isinstance(c.corpus, FileCorpus):   # (streamed)
            self._fail("Save corpus", "This corpus is streamed from its files "
                    f"({c.corpus.names}): they are the corpus, and only their "
                    "start is in the window. Copy the files to keep a copy.")
            return False
        try:
            write_atomic(Path(path), c.corpus.text.encode("utf-8"))
        except BPEError as e:
            self._fail("Save corpus failed", e)
            return False
        if isinstance(c.corpus, TextCorpus):   # saved: no longer the built-in sample
            c.corpus = replace(c.corpus, sample=None)
        c.mark_corpus_saved(str(path))
        c.message.emit(f"Corpus saved to {path}.")
        return True

    # ----- sessions ---------------------------------------------------------------------
    def session(self, encode_text: str = "", show_whitespace: bool = True,
                furthest_step: int = 0, compare_b: dict | None = None,
                without_edits: bool = False) -> Session:
        """The session as of now; ``furthest_step``: the end of the timeline the window
        shows (steps past the current one were undone and can be redone);
        ``compare_b``: Compare's side B (Session.compare_b). ``without_edits``: the
        corpus as it was before unsaved edits, at the step it was trained to then (the
        user answered Discard to them)."""
        c = self.c
        furthest = max(furthest_step, c.trainer.furthest_step if c.trainer else 0)
        live = Session(settings=c.settings, **corpus_fields(c.corpus),
                       step=c.step_index, encode_text=encode_text, compare_b=compare_b,
                       imported_path=c.imported_path if c.imported is not None else None,
                       imported_pattern=c.imported_pattern if c.imported is not None
                       else None,
                       use_imported=c.use_imported, show_whitespace=show_whitespace,
                       furthest_step=furthest if furthest > c.step_index else 0,
                       train_on_from=c.train_on.session_source(),
                       parity=c.parity.to_dict() if c.parity.enabled or c.parity.languages
                       else None, spec=self._spec())
        r = self._restoring()
        if r is None:
            return self.before_edits.session(live) if without_edits and c.corpus.dirty \
                else live
        # a session still being restored: its corpus, settings and steps, not the half
        # state of the window (restoring.py); the view's parts as they are now
        s = r.session
        if s.corpus_text is None and not s.corpus_paths:   # it restores on the corpus in use
            s = replace(s, corpus_text=live.corpus_text, corpus_paths=live.corpus_paths,
                        sample=live.sample)
        return replace(s, encode_text=encode_text, show_whitespace=show_whitespace,
                       imported_path=live.imported_path, use_imported=live.use_imported,
                       imported_pattern=live.imported_pattern, compare_b=compare_b,
                       problems=())

    def _spec(self) -> dict | None:
        """The training spec the panels show, as a session keeps it (None: the settings
        cannot train)."""
        try:
            return self.c.training.effective().to_dict()
        except BPEError:
            return None

    def _restoring(self) -> Restoring | None:
        """The session being restored, if saves must still write it (restoring.py)."""
        r, c = self.restoring, self.c
        if r is None:
            return None
        if r.superseded(c.corpus, c.settings, c.trainer) or (
                r.left is None and not c.busy and r.landed(c.trainer)):
            self.restoring = None
        return self.restoring

    def _on_step(self, _k: object = None) -> None:
        """A trainer installed (or stepped): the restore's, on its step, ends it at once
        (the user may step on before the end of its job is looked at)."""
        r, c = self.restoring, self.c
        self.before_edits.note()
        if r is not None and r.left is None and not c.busy and r.landed(c.trainer):
            self.restoring = None

    def _restore_job_ended(self) -> None:
        c = self.c
        r = self._restoring()
        if r is None or c.busy or r.left is not None:   # (busy: the restore goes on)
            return
        if r.job_ended(c.trainer):
            self.restoring = None   # landed: the window holds the session whole

    def save_session(self, path: str, encode_text: str = "", show_whitespace: bool = True,
                     furthest_step: int = 0, compare_b: dict | None = None) -> bool:
        c = self.c
        try:
            self.session(encode_text, show_whitespace, furthest_step, compare_b).save(path)
        except BPEError as e:
            self._fail("Save session failed", e)
            return False
        c.session_path = path
        c.message.emit(f"Session saved to {path}.")
        return True

    def open_session(self, path: str) -> Session | None:
        """Load corpus, settings and step from a session file (nothing changes if it is
        not a session file at all).

        Each field is checked on its own: a bad one is left out and named in a message,
        the rest is restored (a session without a usable corpus keeps the corpus the
        window has). A corpus stored as file paths is read on the worker thread (it may
        be big); the settings and step are applied once it has been read.
        """
        c = self.c
        self.restore_notes = []
        try:
            s = Session.load(path)
            s.settings.validated()
        except BPEError as e:
            self._fail("Open session failed", e)
            return None
        if s.problems:
            self._fail("Session partly restored", (
                f"{path}: these fields could not be used and were left out:\n"
                + "\n".join(f"• {p}" for p in s.problems)
                + "\nThe rest of the session is restored."))
        if s.corpus_text is not None:   # typed or edited (unsaved), or a built-in sample
            self._apply_session(s, path, s.corpus_text, [], dirty=not s.sample)
            return s
        paths = list(s.corpus_paths)
        if not paths:   # no usable corpus in the file: settings and step on the one we have
            self._apply_session(s, path, None, [], dirty=c.corpus.dirty)
            return s
        ok = self._read_session_corpus(s, path, paths)
        return s if ok else None

    def _read_session_corpus(self, s: Session, path: str, paths: list[str]) -> bool:
        """The session's corpus files (or word-count tables), read on the worker thread;
        then the session is applied. Until it has landed, saves write it (restoring)."""
        tables = self._tables(paths, "Open session failed", f"{path}: its corpus ")
        if tables is None:
            return False
        before, self.restoring = self.restoring, Restoring(s, before=self.c.trainer)
        if tables:
            def opened_table(table) -> None:
                self.set_corpus_table(table, tables, adopt=False)
                self._apply_session(s, path, "", tables, dirty=False, table=True)
            ok = self._job("Reading the session's corpus", read_job(tables), opened_table)
        else:   # read as the spec read them (a session of before specs: UTF-8)
            spec = s.spec or {}
            encoding = spec.get("encoding", "utf-8") if spec.get("corpus") == paths \
                else "utf-8"
            ok = self._job("Reading the session's corpus",
                           lambda p, cancelled: probe_files(paths, encoding, cancelled),
                           lambda source: self._apply_session(s, path, source, paths,
                                                              dirty=False, encoding=encoding))
        if not ok:   # (another job runs) nothing of this session was applied
            self.restoring = before
        return ok

    def _apply_session(self, s: Session, path: str, source: str | FileCorpus | None,
                       paths: list[str], dirty: bool, table: bool = False,
                       encoding: str = "utf-8") -> None:
        """``source`` None: the session had no usable corpus; the current one stays."""
        c = self.c
        c.settings = s.settings
        parity = ParitySetup.from_dict(s.parity) if s.parity is not None else ParitySetup()
        if parity.problems:
            self._fail("Session partly restored", f"{path}: parity training: "
                       + " ".join(parity.problems))
        if parity != c.parity:
            c.parity = parity
            c.parityChanged.emit(parity)
        c.settingsChanged.emit(s.settings)
        if table or source is None:
            pass   # set_corpus_table has made the table the corpus, or the corpus stays
        elif isinstance(source, FileCorpus):
            c.set_corpus(source)
        else:
            c.set_corpus_text(source, paths=paths, sample=s.sample, dirty=dirty,
                              encoding=encoding)
        c.session_path = path
        if dirty:   # edits saved with the session: no corpus of before them is known
            self.before_edits.forget()
        r = self.restoring if self.restoring is not None and self.restoring.session is s \
            else Restoring(s, before=c.trainer)
        r.corpus = c.corpus   # the restore's corpus: another one means the user moved on
        self.restoring = r
        failed = None   # a tokenizer file the session names that is already reported
        if s.train_on_from:   # trained on from a tokenizer: import it, train on again
            if not c.train_on.restore(s.train_on_from):
                failed = s.train_on_from
        elif c.train_on.active:
            c.train_on.leave()
        # trained as far as the timeline went, then back to the step: the undone steps
        # are there to redo, as they were (training is deterministic)
        c.training.retrain(to_step=max(s.step, s.furthest_step),
                           land_at=s.step if s.furthest_step > s.step else None)
        if not c.busy:   # trained at once (a small corpus), or refused: over already
            self._restore_job_ended()
        if s.imported_path and s.imported_path not in (c.imported_path, failed):
            if not Path(s.imported_path).exists():   # moved or deleted since: said, no box
                where = Path(s.imported_path)
                self.restore_notes.append(   # (said after the window's own message)
                    f"Not back: the imported tokenizer {where.name} was not found in "
                    f"{where.parent} (moved or deleted); import it again with File > Import "
                    "tokenizer.")
                c.message.emit(" ".join(self.restore_notes))
            elif c.tokenizer_files.import_tokenizer(s.imported_path,
                                                    pattern=s.imported_pattern) is None:
                return
        c.tokenizer_files.set_use_imported(s.use_imported and c.imported is not None)

