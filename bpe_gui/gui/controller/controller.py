"""The one QObject that wraps the engine; the only place widgets reach the engine.

Widgets get the controller in their constructor, read its state (``trainer``,
``tokenizer()``, ``settings`` ...) and listen to its signals; they never keep engine
state of their own. Long work (reading big files, pre-tokenizing, running many
merges) goes to the JobRunner thread; while a job runs the trainer belongs to it and
``busy`` is True, so step/undo are refused until it ends.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from PySide6.QtCore import QMetaMethod, QObject, QTimer, Signal

from ...engine.errors import BPEError, NotUTF8Error
from ...engine.formats import export_tokenizer, load_tokenizer
from ...engine.session import Session
from ...engine.tokenizer import Tokenizer
from ...engine.trainer import Trainer, TrainSettings
from .corpus_source import FileCorpus, human_size, not_a_file, probe_files
from .live import LiveView
from .queries import Queries
from .side_jobs import SideJobs
from .table_corpus import read_job, table_paths
from .token_classes import TokenClasses
from .trainer_view import TrainerView
from .training_jobs import detail_current, retrain_job, run_job
from .gc_policy import release_freed_memory
from .worker import JobRunner

# Corpora smaller than this retrain at once, on the GUI thread, as the user types.
SYNC_CHARS = 200_000
# Jumps longer than this many steps run on the worker thread with a progress bar.
SYNC_STEPS = 300
# Word-count tables with more unique words than this build their trainer on the worker.
SYNC_TABLE_WORDS = 50_000
RETRAIN_DEBOUNCE_MS = 400


class Controller(QObject, SideJobs, Queries):
    corpusChanged = Signal()            # text, source or dirty flag changed
    settingsChanged = Signal(object)    # TrainSettings
    trainerChanged = Signal()           # a new trainer (corpus/settings applied), at step 0
    trainerStale = Signal(bool)         # corpus/settings differ from what the trainer used
    # counts travel as Python ints (Signal(object)): bytes, offsets and counts of a big
    # corpus pass 2**31, which a Signal(int) cannot carry
    stepChanged = Signal(object)        # current step after step/undo/goto/run/reset
    targetChanged = Signal()            # same trainer, new stopping target (retarget)
    livePeek = Signal(object)           # a job runs the trainer; it holds still: read it now
    cancelling = Signal(str)            # Cancel was asked for this job (feedback at once)
    tokenizerChanged = Signal()         # what the encode view should use changed
    busyChanged = Signal(bool)
    progress = Signal(str, object, object)    # label, done, total
    playingChanged = Signal(bool)
    message = Signal(str)               # a status-bar line
    errorOccurred = Signal(str, str)    # title, message (user errors: shown in a dialog)
    # paths, the file that failed, its first bad byte offset, message. Listeners offer to
    # retry with another encoding (open_files(paths, encoding=...)); without a listener
    # the message goes to errorOccurred.
    notUtf8 = Signal(list, str, object, str)
    importFinished = Signal(object)     # the imported Tokenizer, or None if it failed
    # Side jobs (run_side_job): work for one widget that leaves the trainer alone, e.g.
    # training the compare view's other configuration or classifying tokens. ``kind``
    # names the job; listeners take the kinds they started.
    jobDone = Signal(str, object)       # kind, the job's result
    jobEnded = Signal(str, str)         # kind, "" when done, else why not: "cancelled" (by
                                        # the user), "dropped" (yielded), or the error

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.corpus_text = ""
        self.corpus_paths: list[str] = []
        self.corpus_sample: str | None = None
        self.corpus_dirty = False          # edits not saved to a file
        self.corpus_table = None           # a word-count table as the corpus (table_corpus.py)
        # A corpus streamed from big files (corpus_text is then only its preview).
        self.corpus_files: FileCorpus | None = None
        self.settings = TrainSettings()
        self.trainer: Trainer | None = None
        self.stale = False
        self.imported: Tokenizer | None = None
        self.imported_path: str | None = None
        self.use_imported = False
        self._importing: str | None = None   # a file loading on the worker thread
        self.session_path: str | None = None
        # Asked when files are opened as the new corpus, before it is read for training
        # (the corpus in use is still the old one): the settings to train it with -- the
        # window answers with those the user sees (training_flow.py) -- or None to leave
        # it untrained until the settings are fixed. Unset: the settings in use.
        self.settings_for_new_corpus: Callable[[], TrainSettings | None] | None = None
        self._pending_step: int | None = None
        self._land_at: int | None = None   # after the next install, undo back to this step
        # The corpus changes generation on every new text, files or table; the trainer
        # remembers the generation it was built from, so a retrain with the same pattern
        # and special tokens reuses its pre-token table instead of reading it all again
        self._corpus_gen = 0
        self._building_gen = 0
        self._trainer_gen = -1
        self.jobs = JobRunner(self)
        self.jobs.progress.connect(self.progress)
        self.jobs.started.connect(lambda _: self.busyChanged.emit(True))
        self.jobs.finished.connect(self._job_finished)
        self.jobs.failed.connect(self._job_failed)
        self.jobs.cancelled.connect(self._job_cancelled)
        self.jobs.cancelRequested.connect(self.cancelling)
        self.live = LiveView(parent=self)
        self.live.look.connect(self._on_live_look)
        # The running retrain job puts its new trainer here once it starts merging.
        self._live_box: dict | None = None
        self._cancel_asked = False
        self._job_kind: str | None = None      # the running side job's kind
        self._job_owns_trainer = False         # the running job steps or replaces it
        self._job_yields = False               # a user's training action drops it
        self._dropping = False                 # dropping it now (not the user's Cancel)
        self._view: TrainerView | None = None
        self._retrain_timer = QTimer(self, singleShot=True, interval=RETRAIN_DEBOUNCE_MS)
        self._retrain_timer.timeout.connect(self._auto_retrain)
        self._play_timer = QTimer(self, interval=300)
        self._play_timer.timeout.connect(self._play_tick)
        self.classes = TokenClasses(self)      # token classes for the vocabulary browser

    # ----- state ----------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.jobs.busy

    @property
    def peeking(self) -> bool:
        """True while a running job holds the trainer still for the window to read."""
        return self.live.looking

    @property
    def retrain_pending(self) -> bool:
        """A small corpus was edited: it retrains by itself once typing pauses."""
        return self._retrain_timer.isActive()

    @property
    def job_label(self) -> str:
        """What the running job does now (the status bar's words)."""
        return self.jobs.label

    @property
    def job_unit(self) -> str:
        """What the running job's progress counts: "bytes", "merges" or "" (a share)."""
        return self.jobs.unit

    @property
    def training_job(self) -> bool:
        """True while a job steps or replaces the trainer (also while it holds still
        for the window to look)."""
        return self.busy and self._job_owns_trainer

    @property
    def readable(self) -> bool:
        """True when the trainer may be read now: no job is stepping or replacing it, or
        the job holds it still for the window to look (LiveView)."""
        return not self.training_job or self.peeking

    @property
    def has_trainer(self) -> bool:
        return self.trainer is not None

    def view(self) -> TrainerView | None:
        """What widgets read of the trainer (trainer_view.py): None when there is no
        trainer or a job is running it (``has_trainer`` tells which). The same object
        while the trainer stays, so a new one is told by identity."""
        t = self.trainer
        if t is None or not self.readable:
            return None
        if self._view is None or self._view._t is not t:
            self._view = TrainerView(t)
        return self._view

    @property
    def step_index(self) -> int:
        return self.trainer.n_steps if self.trainer else 0

    def tokenizer(self) -> Tokenizer | None:
        """The tokenizer the encode view uses: imported, or the trainer's as of now."""
        if self.use_imported and self.imported is not None:
            return self.imported
        if self.trainer is None or self.training_job:
            return None
        return self.trainer.tokenizer()

    def _fail(self, title: str, err: BaseException | str) -> None:
        self.errorOccurred.emit(title, str(err))

    # ----- corpus ---------------------------------------------------------------------
    def set_corpus_text(self, text: str, paths: Sequence[str] = (), sample: str | None = None,
                        dirty: bool = True) -> None:
        """New corpus text (typed, pasted or loaded). Small corpora retrain by themselves."""
        if text == self.corpus_text and list(paths) == self.corpus_paths and not dirty \
                and self.corpus_table is None and self.corpus_files is None:
            return
        self._corpus_gen += 1
        self.corpus_table = None
        self.corpus_files = None
        self.corpus_text = text
        self.corpus_paths = list(paths)
        self.corpus_sample = sample
        self.corpus_dirty = dirty
        self.corpusChanged.emit()
        self._mark_stale()

    def set_corpus_files(self, fc: FileCorpus) -> None:
        """Files too big to hold become the corpus: training streams them; the text
        is only their preview."""
        self._corpus_gen += 1
        self.corpus_files = fc
        self.corpus_table = None
        self.corpus_text = fc.head
        self.corpus_paths = list(fc.paths)
        self.corpus_sample = None
        self.corpus_dirty = False
        self.corpusChanged.emit()
        self._mark_stale()

    @property
    def streamed(self) -> bool:
        return self.corpus_files is not None

    def mark_corpus_saved(self, path: str | None = None) -> None:
        self.corpus_dirty = False
        if path:
            self.corpus_paths = [path]
        self.corpusChanged.emit()

    def open_files(self, paths: Sequence[str], encoding: str = "utf-8") -> bool:
        """Read files on the worker thread (progress bar), then make them the corpus.
        Word-count tables (``bpe-gui count``) become the corpus as a table."""
        paths = [str(p) for p in paths]
        why = not_a_file(paths)   # before anything opens them on this thread
        if why is not None:
            self._fail("Opening files", why)
            return False
        try:
            tables = table_paths(paths)
        except ValueError as e:
            self._fail("Opening files", e)
            return False
        if tables:
            return self._start("Reading word-count tables", read_job(tables), abandon=True)

        def job(progress, cancelled):
            try:
                return ("open", paths, probe_files(paths, encoding, cancelled))
            except NotUTF8Error as e:
                return ("not-utf8", paths, e.path or paths[0], e.offset, str(e))
        return self._start("Reading files", job, abandon=True)

    def save_corpus(self, path: str) -> bool:
        """Write the corpus text to a UTF-8 file (atomically) and mark it saved."""
        from ...engine.session import write_atomic
        if self.streamed:
            self._fail("Save corpus", "This corpus is streamed from its files "
                       f"({self.corpus_files.names}): they are the corpus, and only their "
                       "start is in the window. Copy the files to keep a copy.")
            return False
        try:
            write_atomic(Path(path), self.corpus_text.encode("utf-8"))
        except BPEError as e:
            self._fail("Save corpus failed", e)
            return False
        self.corpus_sample = None
        self.mark_corpus_saved(str(path))
        self.message.emit(f"Corpus saved to {path}.")
        return True

    def _mark_stale(self) -> None:
        self.stale = True
        self.trainerStale.emit(True)
        if self._small():
            self._retrain_timer.start()

    def _small(self) -> bool:
        """A corpus small enough to retrain at once, as the user types."""
        return not self.streamed and len(self.corpus_text) <= SYNC_CHARS

    def _auto_retrain(self) -> None:
        if self.stale and not self.busy and self._small():
            self.retrain(quiet=True)

    # ----- settings and (re)training ----------------------------------------------------
    def set_settings(self, settings: TrainSettings) -> bool:
        """Apply new settings; returns False (and reports) if they cannot work."""
        try:
            settings = settings.validated()
        except BPEError as e:
            self._fail("Training settings", e)
            return False
        if settings == self.settings and self.trainer is not None:
            return True
        t = self.trainer
        if t is not None and not self.stale and not self.busy and t.can_retarget(settings):
            return self._retarget(settings)
        self.settings = settings
        self.settingsChanged.emit(settings)
        self._mark_stale()
        return True

    def _retarget(self, settings: TrainSettings) -> bool:
        """Only when to stop changed: the trainer goes on or back, no re-tokenizing."""
        t = self.trainer
        before = t.n_steps
        try:
            t.retarget(settings)
        except BPEError as e:
            self._fail("Training settings", e)
            return False
        self.settings = t.settings
        self.settingsChanged.emit(self.settings)
        self.targetChanged.emit()
        if t.n_steps != before:
            self._stepped()
            self.message.emit(f"New target: back to step {t.n_steps:,}.")
        else:
            self.message.emit("New target applied; Train (F5) goes on from step "
                              f"{t.n_steps:,}.")
        return True

    def retrain(self, quiet: bool = False, to_step: int | None = None,
                to_target: bool = False, land_at: int | None = None) -> bool:
        """Build a new trainer from the corpus and settings (step 0, or ``to_step``, or
        on to the target with ``to_target``); ``land_at``: then undo back to that step
        (a session's undone steps stay in the timeline, to redo)."""
        self._land_at = land_at
        self._building_gen = self._corpus_gen
        self._retrain_timer.stop()
        self.set_playing(False)
        text, settings = self.corpus_text, self.settings
        self._pending_step = to_step
        if self.corpus_table is not None:
            return self._retrain_table(quiet, to_step, to_target)
        if not text or text.isspace():  # not strip(): no 20 MB copy on the GUI thread
            self.trainer = None
            self.trainerChanged.emit()
            self.stepChanged.emit(0)
            self.tokenizerChanged.emit()
            if not quiet:
                self._fail("Empty corpus", "The corpus is empty. Type or paste some text, "
                           "open a file, or pick a sample from File > Samples.")
            return False
        if self._small() and (to_step or 0) <= SYNC_STEPS:
            try:
                trainer = Trainer.from_text(text, settings)
                if to_step:
                    trainer.goto(to_step, detail=False)
            except BPEError as e:
                self._train_failed(e, quiet)
                return False
            self._install(trainer)
            return self.run_to_target() if to_target else True
        return self._start_training(self.corpus_files or text, settings, to_step, to_target)

    def _retrain_table(self, quiet: bool, to_step: int | None, to_target: bool) -> bool:
        """retrain() for a word-count table: same trainer, no pre-tokenizing; settings
        whose pattern or special tokens differ from the table's are refused."""
        from ...engine.counts import check_settings
        table, settings = self.corpus_table, self.settings
        try:
            check_settings(table.meta, settings, "The word-count table")
            if len(table) > SYNC_TABLE_WORDS or (to_step or 0) > SYNC_STEPS:
                return self._start_training(table, settings, to_step, to_target)
            trainer = Trainer(table, settings)
            if to_step:
                trainer.goto(to_step, detail=False)
        except BPEError as e:
            self._train_failed(e, quiet)
            return False
        self._install(trainer)
        return self.run_to_target() if to_target else True

    def _start_training(self, source, settings: TrainSettings, to_step: int | None,
                        to_target: bool) -> bool:
        """A job that builds a trainer from text or files (pre-tokenizing them) or from a
        word-count table, then runs it on (training_jobs.retrain_job).

        Memory stays that of one trainer, as the command line's: the pre-token table of
        the trainer in use is reused when only the mode or the target changed (no second
        read of the files), and a big stale trainer is let go before the new one is built
        (a job owns the trainer meanwhile, so no panel shows it anyway)."""
        table = self._reusable_table(settings)
        if table is not None:
            source = table
        self._let_go_of_big_trainer()
        box: dict = {}
        self._live_box = box
        if isinstance(source, FileCorpus):
            label = f"Reading and pre-tokenizing {source.names} ({human_size(source.disk_bytes)})"
        elif isinstance(source, str):
            label = "Pre-tokenizing corpus"
        else:
            label = "Preparing the word counts"
        job = retrain_job(source, settings, self.live, box, self.jobs.set_phase,
                          to_step=to_step, to_target=to_target)
        return self._start(label, job, abandon=True, unit="bytes", owns_trainer=True)

    def _reusable_table(self, settings: TrainSettings):
        """The trainer's pre-token table if it still fits: same corpus, same pattern and
        special tokens (the mode, the target and the tie rule work on any table)."""
        t = self.trainer
        if t is None or self._trainer_gen != self._corpus_gen:
            return None
        old = t.settings
        if old.pattern != settings.pattern or \
                tuple(old.special_tokens) != tuple(settings.special_tokens):
            return None
        return t.table

    def _let_go_of_big_trainer(self) -> None:
        """Drop a trainer of more than SYNC_TABLE_WORDS unique words before a new one is
        built: on 1 GiB of code the old one held 350 MB while the new one was read (the
        app peaked at 1.5x the command line's memory)."""
        t = self.trainer
        if t is None or len(t.table) <= SYNC_TABLE_WORDS:
            return
        self.trainer, self._view = None, None
        del t
        self.trainerChanged.emit()
        self.stepChanged.emit(0)
        if not self.use_imported:
            self.tokenizerChanged.emit()
        release_freed_memory()

    def _train_failed(self, e: BPEError, quiet: bool) -> None:
        """Say what is wrong; a retrain that runs by itself (after an edit) says it in
        the status bar, not in a box that would come back after every keystroke."""
        msg = str(e)
        if "no words after pre-tokenization" in msg and self.corpus_text.strip():
            msg = ("The pre-tokenizer pattern finds no words in this corpus, so there is "
                   "nothing to train on. Pick a preset or change the pattern in the "
                   "training settings.")
        if quiet:
            self.message.emit(msg)
        else:
            self._fail("Cannot train on this corpus", msg)

    def train(self) -> bool:
        """The one Train action: bring the trainer up to date with the corpus and the
        applied settings (re-tokenizing only if they changed more than the target), then
        run to the target."""
        self._make_room()
        if self.busy:
            self.message.emit("Busy: wait for the running job or cancel it (Esc).")
            return False
        if self.trainer is None or self.stale:
            return self.retrain(to_target=True)
        return self.run_to_target()

    def _on_live_look(self) -> None:
        t = (self._live_box or {}).get("trainer") or self.trainer
        if t is None or not self.busy:
            return
        if t is not self.trainer:   # a retrain job is running its new trainer
            self.trainer = t
            self.stale = False
            self.trainerStale.emit(False)
            self.trainerChanged.emit()
        self.livePeek.emit(t.n_steps)

    def _install(self, trainer: Trainer) -> None:
        self._live_box = None
        self._trainer_gen = self._building_gen
        back, self._land_at = self._land_at, None
        detail_current(trainer)
        self.trainer = trainer
        self.stale = False
        self.trainerStale.emit(False)
        self.trainerChanged.emit()
        self.stepChanged.emit(trainer.n_steps)
        if not self.use_imported:
            self.tokenizerChanged.emit()
        if back is not None and back < trainer.n_steps:
            trainer.tokenizer()   # it keeps the merges undone next (furthest_step)
            trainer.goto(back)
            self._stepped()
        release_freed_memory()   # what the job's reading and counting freed

    # ----- stepping ---------------------------------------------------------------------
    def _ready(self) -> bool:
        self._make_room()
        if self.busy:
            self.message.emit("Busy: wait for the running job or cancel it (Esc).")
            return False
        if self.trainer is None or self.stale:
            return self.retrain()
        return True

    def _stepped(self) -> None:
        detail_current(self.trainer)   # a fast run's last record: with its detail now
        self.stepChanged.emit(self.trainer.n_steps)
        if not self.use_imported:
            self.tokenizerChanged.emit()

    def step(self) -> bool:
        if not self._ready():
            return False
        if self.trainer.step() is None:
            self.set_playing(False)
            self.message.emit(self._done_reason())
            return False
        self._stepped()
        return True

    def undo(self) -> bool:
        if not self._ready():
            return False
        if self.trainer.undo() is None:
            self.message.emit("Already at step 0.")
            return False
        self._stepped()
        return True

    def done_reason(self) -> str:
        """Why training stops here (target reached, no pair left, below min frequency)."""
        return self._done_reason() if self.trainer is not None else "No trainer yet."

    def _done_reason(self) -> str:
        t = self.trainer
        return t.stop_reason() or f"Training can go on from step {t.n_steps}."

    def goto(self, k: int) -> bool:
        """Jump to step k: undo back or run forward (on the worker thread if far)."""
        if not self._ready():
            return False
        t = self.trainer
        k = max(0, k)
        if k <= t.n_steps or k - t.n_steps <= SYNC_STEPS:
            far = abs(k - t.n_steps) > SYNC_STEPS
            t.goto(k, detail=False)
            self._stepped()
            if far:
                release_freed_memory()   # the records of the steps undone
            return True
        return self._start(f"Running to step {k:,}", run_job(t, k, self.live), unit="merges",
                           owns_trainer=True)

    def run_to_target(self) -> bool:
        if not self._ready():
            return False
        t = self.trainer
        if t.is_done():
            self.message.emit(self._done_reason())
            return False
        return self._start("Training to target", run_job(t, None, self.live), unit="merges",
                           owns_trainer=True)

    def reset(self) -> bool:
        return self.goto(0)

    def set_playing(self, on: bool, interval_ms: int | None = None) -> None:
        if interval_ms is not None:
            self._play_timer.setInterval(max(1, interval_ms))
        if on == self._play_timer.isActive():
            return
        if on:
            self._play_timer.start()
        else:
            self._play_timer.stop()
        self.playingChanged.emit(on)

    @property
    def playing(self) -> bool:
        return self._play_timer.isActive()

    def _play_tick(self) -> None:
        if self.busy or not self.step():
            self.set_playing(False)

    def cancel(self) -> None:
        """Stop the running job. One that only builds something new (reading files,
        pre-tokenizing) is dropped at once; one that runs the trainer stops at the next
        step (well under a millisecond)."""
        if not self.busy:
            return
        self.set_playing(False)
        self._cancel_asked = True
        self.jobs.request_cancel()
        if not (self._live_box or {}).get("trainer"):
            self._live_box = None
            self.jobs.abandon()

    # ----- jobs -------------------------------------------------------------------------
    def _start(self, label: str, job, abandon: bool = False, unit: str = "",
               owns_trainer: bool = False, kind: str | None = None,
               yields: bool = False) -> bool:
        """Run a job; ``abandon``: Cancel drops it at once (it touches no shared state,
        e.g. it builds a new trainer), and its late result is thrown away. ``unit``: what
        its progress counts (bytes, merges). ``owns_trainer``: it steps or replaces the
        trainer, so widgets may not read it meanwhile (see ``readable``). ``kind``: a
        side job (run_side_job); ``yields``: a training action of the user drops it."""
        self._make_room()
        if self.busy:
            self.message.emit("Busy: wait for the running job or cancel it (Esc).")
            return False
        self._cancel_asked = False
        # set before it starts: a listener of busyChanged may cancel it at once
        self._job_kind, self._job_owns_trainer, self._job_yields = kind, owns_trainer, yields
        return self.jobs.start(label, job, abandon=abandon or yields, unit=unit)

    def _make_room(self) -> None:
        """A side job that yields (e.g. classifying tokens for the vocabulary browser)
        is dropped when the user steps, trains or opens something: it only works on
        copies, and its widget asks for it again later (jobEnded says "dropped")."""
        if self.busy and self._job_yields:
            self._dropping = True
            try:
                self.jobs.abandon()
            finally:
                self._dropping = False

    def _job_finished(self, label: str, result) -> None:
        kind = result[0]
        release_freed_memory()   # what the job freed (its reading, records it replaced)
        self._job_owns_trainer = self._job_yields = False
        self.busyChanged.emit(False)
        if kind == "side":
            self._job_kind = None
            self.jobDone.emit(result[1], result[2])
            self.jobEnded.emit(result[1], "")
        elif kind == "cancelled":
            self._job_cancelled(label, emit_busy=False)
        elif kind == "not-utf8":
            _, paths, bad, offset, msg = result
            if self.isSignalConnected(QMetaMethod.fromSignal(self.notUtf8)):
                self.notUtf8.emit(paths, bad, offset, msg)
            else:
                self._fail("Reading files", msg)
        elif kind == "open" and isinstance(result[2], FileCorpus):
            fc = result[2]
            chosen = self._settings_for_new_corpus()
            self.set_corpus_files(fc)
            if self._adopt_settings(chosen, f"Opened {fc.names} ({human_size(fc.disk_bytes)})"
                                    ": streamed from disk when training, never read whole."):
                self.retrain()
        elif kind == "open":
            _, paths, text = result
            if not text or text.isspace():   # like a binary file: refused, corpus kept
                names = ", ".join(Path(p).name for p in paths)
                self._fail("Empty corpus", f"{names}: no text in the file(s), so the corpus "
                           "you have is kept. Open a file with some text, type or paste "
                           "text, or pick a sample.")
                return
            chosen = self._settings_for_new_corpus()
            self.set_corpus_text(text, paths=paths, dirty=False)
            if self._adopt_settings(chosen, f"Opened {len(paths)} file(s): {len(text):,} "
                                    "characters.") and len(text) > SYNC_CHARS:
                self.retrain()
        elif kind == "session":
            _, sess, path, source = result
            self._apply_session(sess, path, source, list(sess.corpus_paths), dirty=False)
        elif kind == "table":
            self.set_corpus_table(result[2], result[1])
            self.retrain()
        elif kind == "session-table":
            _, sess, path, (_, paths, table) = result
            self.set_corpus_table(table, paths, adopt=False)
            self._apply_session(sess, path, "", paths, dirty=False, table=True)
        elif kind in ("train", "run"):
            if kind == "train":
                self._install(result[1])
                self._pending_step = None
            else:
                self._stepped()
            t = self.trainer
            if self._cancel_asked:
                self.message.emit(f"{label}: cancelled at step {t.n_steps:,}.")
            elif t.is_done():
                self.message.emit(self._done_reason())
        elif kind == "import":
            self._importing = None
            self._imported(result[1], result[2])
            self.importFinished.emit(result[1])

    def _settings_for_new_corpus(self) -> TrainSettings | None | bool:
        """What ``settings_for_new_corpus`` says (False: nobody asked, keep them)."""
        ask = self.settings_for_new_corpus
        return False if ask is None else ask()

    def _adopt_settings(self, chosen: TrainSettings | None | bool, opened: str) -> bool:
        """The new corpus (already set, so stale) gets the settings chosen for it, so it
        is read once, with them. False: do not train it (the settings have errors)."""
        if chosen is None:
            self._retrain_timer.stop()
            self.message.emit(f"{opened} Not trained yet: fix the training settings marked "
                              "in red, then Train (F5).")
            return False
        if chosen is not False and chosen != self.settings and not self.set_settings(chosen):
            return False
        self.message.emit(opened)
        return True

    def _job_failed(self, label: str, message: str, user_error: bool) -> None:
        side, training = self._side_ended(), self._job_owns_trainer
        if side is None:
            self._land_at = None
        self._job_owns_trainer = self._job_yields = False
        self.busyChanged.emit(False)
        if user_error:
            # a training job's label is what it was doing ("Reading and pre-tokenizing
            # big.txt (1 GB)"): the title says what went wrong instead
            self._fail("Cannot train on this corpus" if training else label, message)
        else:
            self._fail(f"{label}: unexpected error (please report it)", message)
        if side is not None:
            self.jobEnded.emit(side, message if user_error else
                               f"Unexpected error: {message.strip().splitlines()[-1]}")
        if side is None and self.trainer is not None:
            self._stepped()
        self._import_ended()

    def _job_cancelled(self, label: str, emit_busy: bool = True) -> None:
        side, quiet = self._side_ended(), self._dropping
        self._job_owns_trainer = self._job_yields = False
        running = (self._live_box or {}).get("trainer")
        if running is not None:   # cancelled while running a new trainer: keep its merges
            self._install(running)
        if emit_busy:
            self.busyChanged.emit(False)
        if side is not None:
            self.jobEnded.emit(side, "dropped" if quiet else "cancelled")
        elif self.trainer is not None:
            self._stepped()
        if not quiet:   # a yielding job is dropped for the user's action: no news
            self.message.emit(f"{label}: cancelled.")
        self._import_ended()

    def _side_ended(self) -> str | None:
        kind, self._job_kind = self._job_kind, None
        return kind

    def _import_ended(self) -> None:
        if self._importing:
            self._importing = None
            self.importFinished.emit(None)

    def shutdown(self) -> None:
        self.set_playing(False)
        self.jobs.stop_and_wait()

    # ----- import / export ---------------------------------------------------------------
    def export(self, fmt: str, folder: str, name: str = "tokenizer",
               quiet: bool = False) -> list[Path] | None:
        """Write one format; on failure report it (or, ``quiet``, only keep the message
        in ``last_export_error`` for a caller that reports several formats at once)."""
        fail = (lambda t, e: setattr(self, "last_export_error", str(e))) if quiet else self._fail
        if self.trainer is None or self.busy:
            fail("Export", "Nothing to export yet: train first (Step or Run).")
            return None
        try:
            files = export_tokenizer(self.trainer.tokenizer(), folder, fmt, name=name)
        except BPEError as e:
            fail("Export failed", e)
            return None
        self.message.emit(f"Exported {', '.join(p.name for p in files)} to {folder}.")
        return files

    def import_tokenizer(self, path: str) -> Tokenizer | None:
        """Load a tokenizer file on this thread (small files; see import_in_background)."""
        try:
            tok = load_tokenizer(path)
        except BPEError as e:
            self._fail("Import failed", e)
            return None
        self._imported(tok, str(path))
        return tok

    def import_in_background(self, path: str) -> bool:
        """Load a (big) tokenizer file on the worker thread, with progress; the result
        arrives through importFinished. False if another job is running."""
        def job(progress, cancelled):
            progress(0, 1000)
            tok = load_tokenizer(path)
            progress(100, 1000)
            len(tok.merges)        # a tiktoken file's merges are derived here, not later
            progress(250, 1000)
            from ..models.vocab_model import prepare_imported
            # the vocabulary browser's rows, search texts and order, off the GUI thread
            prepare_imported(tok, lambda share: progress(250 + int(750 * share), 1000))
            return ("import", tok, str(path))
        self._importing = str(path)
        return self._start(f"Loading {Path(path).name}", job)

    def _imported(self, tok: Tokenizer, path: str) -> None:
        self.imported, self.imported_path = tok, path
        if self.use_imported:   # another imported tokenizer was in use: views must switch
            self.tokenizerChanged.emit()
        self.set_use_imported(True)
        self.message.emit(f"Imported {Path(path).name}{imported_what(tok)}: "
                          f"{len(tok.vocab):,} tokens, {len(tok.merges):,} merges.")

    def set_use_imported(self, on: bool) -> None:
        on = bool(on and self.imported is not None)
        if on != self.use_imported:
            self.use_imported = on
            self.tokenizerChanged.emit()

    # ----- sessions ----------------------------------------------------------------------
    def session(self, encode_text: str = "", show_whitespace: bool = True,
                furthest_step: int = 0) -> Session:
        """The session as of now; ``furthest_step``: the end of the timeline the window
        shows (steps past the current one were undone and can be redone)."""
        inline = self.corpus_dirty or not self.corpus_paths
        furthest = max(furthest_step, self.trainer.furthest_step if self.trainer else 0)
        return Session(settings=self.settings, corpus_text=self.corpus_text if inline else None,
                       corpus_paths=[] if inline else list(self.corpus_paths),
                       sample=self.corpus_sample, step=self.step_index, encode_text=encode_text,
                       imported_path=self.imported_path if self.imported is not None else None,
                       use_imported=self.use_imported, show_whitespace=show_whitespace,
                       furthest_step=furthest if furthest > self.step_index else 0)

    def save_session(self, path: str, encode_text: str = "", show_whitespace: bool = True,
                     furthest_step: int = 0) -> bool:
        try:
            self.session(encode_text, show_whitespace, furthest_step).save(path)
        except BPEError as e:
            self._fail("Save session failed", e)
            return False
        self.session_path = path
        self.message.emit(f"Session saved to {path}.")
        return True

    def open_session(self, path: str) -> Session | None:
        """Load corpus, settings and step from a session file (nothing changes if it is
        not a session file at all).

        Each field is checked on its own: a bad one is left out and named in a message,
        the rest is restored (a session without a usable corpus keeps the corpus the
        window has). A corpus stored as file paths is read on the worker thread (it may
        be big); the settings and step are applied once it has been read.
        """
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
            self._apply_session(s, path, None, [], dirty=self.corpus_dirty)
            return s
        why = not_a_file(paths)
        if why is not None:
            self._fail("Open session failed", f"{path}: its corpus {why}")
            return None
        try:
            tables = table_paths(paths)
        except ValueError as e:
            self._fail("Open session failed", e)
            return None
        if tables:
            read = read_job(tables)
            job = lambda p, c: ("session-table", s, path, read(p, c))  # noqa: E731
        else:
            job = lambda p, c: ("session", s, path, probe_files(paths, cancelled=c))  # noqa: E731
        if not self._start("Reading the session's corpus", job):
            return None
        return s

    def set_corpus_table(self, table, paths: Sequence[str], adopt: bool = True) -> None:
        """A word-count table becomes the corpus; ``adopt``: the settings take its
        pattern and special tokens (training needs them)."""
        from ...engine.counts import settings_for_table
        self._corpus_gen += 1
        self.corpus_table = table
        self.corpus_files = None
        self.corpus_text, self.corpus_paths = "", [str(p) for p in paths]
        self.corpus_sample, self.corpus_dirty = None, False
        settings = settings_for_table(self.settings, table.meta)
        if adopt and settings != self.settings:
            self.settings = settings
            self.settingsChanged.emit(settings)
        self.corpusChanged.emit()
        self.stale = True
        self.trainerStale.emit(True)
        self.message.emit(f"Opened a word-count table: {len(table):,} unique words, "
                          f"{table.total:,} words.")

    def _apply_session(self, s: Session, path: str, source: str | FileCorpus | None,
                       paths: list[str], dirty: bool, table: bool = False) -> None:
        """``source`` None: the session had no usable corpus; the current one stays."""
        self.settings = s.settings
        self.settingsChanged.emit(s.settings)
        if table or source is None:
            pass   # set_corpus_table has made the table the corpus, or the corpus stays
        elif isinstance(source, FileCorpus):
            self.set_corpus_files(source)
        else:
            self.set_corpus_text(source, paths=paths, sample=s.sample, dirty=dirty)
        self.session_path = path
        # trained as far as the timeline went, then back to the step: the undone steps
        # are there to redo, as they were (training is deterministic)
        self.retrain(to_step=max(s.step, s.furthest_step),
                     land_at=s.step if s.furthest_step > s.step else None)
        if s.imported_path and s.imported_path != self.imported_path:
            if self.import_tokenizer(s.imported_path) is None:
                return
        self.set_use_imported(s.use_imported and self.imported is not None)

    # ----- side jobs: work for one widget that leaves the trainer alone -----------------
    def run_side_job(self, kind: str, label: str, job, unit: str = "", abandon: bool = False,
                     yields: bool = False) -> bool:
        """Run ``job(progress, cancelled) -> result`` on the one job runner, with the
        status bar's progress and Cancel; ``jobDone(kind, result)`` then ``jobEnded(kind,
        "")`` follow on the GUI thread (``jobEnded(kind, why)`` if it failed or was
        cancelled; a user error is also reported like any other). ``abandon``: Cancel
        drops it at once (it builds something new from copies); ``yields``: also dropped
        when the user steps, trains or opens something. False (and a status message)
        if another job runs."""
        return self._start(label, lambda p, c: ("side", kind, job(p, c)), abandon=abandon,
                           unit=unit, kind=kind, yields=yields)


def imported_what(tok: Tokenizer) -> str:
    """' (cl100k_base (GPT-4, GPT-3.5))' for a recognised encoding, else ''."""
    label = (tok.meta or {}).get("encoding_label")
    return f" ({label})" if label else ""
