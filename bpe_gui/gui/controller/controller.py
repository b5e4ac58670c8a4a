"""The one QObject that wraps the engine; the only place widgets reach the engine.

Widgets get the controller in their constructor, read its state (``view()``,
``tokenizer()``, ``settings``, ``corpus`` ...) and listen to its signals; they never
keep engine state of their own. Long work runs as :class:`~.jobs.Job` objects on the
one job runner; while a job runs the trainer belongs to it and ``busy`` is True, so
step/undo are refused until it ends.

The controller is composed of parts, each given what it needs (callables, objects, or
a Protocol naming what it uses of the controller): ``jobs`` (the one job runner,
worker.py), ``training`` (building trainers, running them on, a new target,
training.py), ``opening`` (files and sessions, opening.py), ``tokenizer_files``
(import/export), ``train_on`` (training on from the imported tokenizer), ``side`` (side
jobs for widgets), ``queries`` (corpus questions), ``classes`` (token classes), ``live``
(looks at a running trainer). Widgets
call a part's verbs through it (``controller.training.train()``,
``controller.opening.open_files(paths)``); the controller's own verbs step the trainer.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from PySide6.QtCore import QObject, QTimer, Signal

from ...engine.errors import BPEError
from ...engine.tokenizers import BaseTokenizer
from ...engine.train import RunCommon, TrainSettings
from .chat_jobs import ChatJobs
from .checking import Checking
from .corpus_source import Corpus, TableCorpus, TextCorpus
from .gc_policy import release_freed_memory
from .jobs import Job
from .live import LiveView
from .opening import Opening
from .parity_setup import ParitySetup
from .queries import Queries
from .side_jobs import SideJobs
from .token_classes import TokenClasses
from .tokenizer_files import TokenizerFiles
from .train_on import TrainOn
from .trainer_view import TrainerView
from .training import SYNC_STEPS, Training
from .training_jobs import detail_current, stop_reason
from .worker import JobRunner


class Controller(QObject):
    opening: Opening                    # (a part named before it is built: see not_utf8)

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
    jobEnded = Signal()                 # a job's end, after its callbacks ran (busy or not)
    progress = Signal(str, object, object)    # label, done, total
    playingChanged = Signal(bool)
    message = Signal(str)               # a status-bar line
    errorOccurred = Signal(str, str)    # title, message (user errors: shown in a dialog)
    # paths, the file that failed, its first bad byte offset, message. Listeners offer to
    # retry with another encoding (open_files(paths, encoding=...)); without a listener
    # the message goes to errorOccurred.
    notUtf8 = Signal(list, str, object, str)
    importFinished = Signal(object)     # the imported tokenizer (a BaseTokenizer), or None if it failed
    parityChanged = Signal(object)      # ParitySetup: parity-aware training's languages

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.corpus: Corpus = TextCorpus()
        self.settings = TrainSettings()
        self.parity = ParitySetup()         # off: the corpus trains as one (parity_setup.py)
        self.trainer: RunCommon | None = None
        self._stale = False
        self.imported: BaseTokenizer | None = None
        self.imported_path: str | None = None
        # the pattern a bare .tiktoken was opened with (None: as recognised); sessions
        # keep it, so a relaunch runs the file as before
        self.imported_pattern: str | None = None
        self.use_imported = False
        self.session_path: str | None = None
        # Asked when files are opened as the new corpus, before it is read for training
        # (the corpus in use is still the old one): the settings to train it with -- the
        # window answers with those the user sees (training_flow.py) -- or None to leave
        # it untrained until the settings are fixed. Unset: the settings in use.
        self.settings_for_new_corpus: Callable[[], TrainSettings | None] | None = None
        self.jobs = JobRunner(self, report=self._fail, say=self.message.emit)
        self.jobs.busyChanged.connect(self.busyChanged)
        self.jobs.ended.connect(self.jobEnded)
        self.jobs.progress.connect(self.progress)
        self.jobs.cancelRequested.connect(self.cancelling)
        self.live = LiveView(parent=self)
        self._view: TrainerView | None = None
        self.training = Training(   # forget_view: the view holds the trainer let go
            self, fail=self._fail, stepped=self._stepped,
            forget_view=lambda: setattr(self, "_view", None),
            not_utf8=lambda e: self.opening.not_utf8(e), free=self.jobs.free,
            live=self.live, set_phase=self.jobs.set_phase, parent=self)
        self.live.look.connect(self.training.on_live_look)
        self.jobs.keep_running = self.training.keep_running
        self._play_timer = QTimer(self, interval=300)
        self._play_timer.timeout.connect(self._play_tick)
        self.classes = TokenClasses(self)      # token classes for the vocabulary browser
        self.side = SideJobs(self.jobs.start, lambda: self.corpus, self.jobs.set_phase,
                             self.classes)
        self.queries = Queries(lambda: self.trainer, self.view, self.training.reads_corpus_stale,
                               lambda: self.corpus, lambda: self.settings)
        self.opening = Opening(self, fail=self._fail, new_corpus=self.training.new_corpus,
                               hold_retrain=self.training.timer.stop)
        self.tokenizer_files = TokenizerFiles(self, self._fail)
        self.checking = Checking(self)         # Check my BPE (issue #31)
        self.chat = ChatJobs(self)             # the Chat view's files and renders
        self.train_on = TrainOn(               # training on from the imported tokenizer
            self, self.training, fail=self._fail, mark_stale=self._mark_stale)

    # ----- state ----------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.jobs.busy

    @property
    def stale(self) -> bool:
        """The trainer is not what the panels show: the corpus, the settings or the mode
        changed since it was built (training.py: the spec it read)."""
        return self._stale or (self.trainer is not None and not self.training.built_for_now())

    @stale.setter
    def stale(self, on: bool) -> None:
        self._stale = on

    @property
    def peeking(self) -> bool:
        """True while a running job holds the trainer still for the window to read."""
        return self.live.looking

    @property
    def retrain_pending(self) -> bool:
        """A small corpus was edited: it retrains by itself once typing pauses."""
        return self.training.timer.isActive()

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
        return self.jobs.owns_trainer

    @property
    def readable(self) -> bool:
        """True when the trainer may be read now: no job is stepping or replacing it, or
        the job holds it still for the window to look (LiveView)."""
        return not self.training_job or self.peeking

    @property
    def has_trainer(self) -> bool:
        return self.trainer is not None

    @property
    def trainer_key(self) -> int:
        """Which trainer runs now (a retrain's new one once it merges, else the one in
        use), as a number: for widgets that keep what they read of it to tell it apart."""
        t = self.training.running_trainer() or self.trainer
        return id(t) if t is not None else 0

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

    def tokenizer(self) -> BaseTokenizer | None:
        """The tokenizer the encode view uses: imported, or the trainer's as of now."""
        if self.use_imported and self.imported is not None:
            return self.imported
        if self.trainer is None or self.training_job:
            return None
        return self.trainer.tokenizer()

    def _fail(self, title: str, err: object) -> None:
        self.errorOccurred.emit(title, str(err))

    # ----- the corpus: one value (corpus_source.py) ---------------------------------------
    # read-only names for its parts, as widgets have always read them
    corpus_text = property(lambda self: self.corpus.text)
    corpus_paths = property(lambda self: list(self.corpus.paths))
    corpus_sample = property(lambda self: self.corpus.sample)
    corpus_dirty = property(lambda self: self.corpus.dirty)
    corpus_table = property(lambda self: self.corpus.table)
    corpus_files = property(lambda self: self.corpus if self.corpus.streamed else None)
    streamed = property(lambda self: self.corpus.streamed)

    def set_corpus(self, corpus: Corpus) -> None:
        """A new corpus (text, streamed files or a word-count table): training.py says
        what becomes of the run (stale or not, retrained by itself or kept)."""
        was = self.stale
        self.training.new_corpus()
        self.corpus = corpus
        self.corpusChanged.emit()
        self.training.corpus_changed(was)

    def set_corpus_text(self, text: str, paths: Sequence[str] = (), sample: str | None = None,
                        dirty: bool = True, encoding: str = "utf-8") -> None:
        """New corpus text (typed, pasted or loaded; ``encoding``: its files'). Small
        corpora retrain by themselves."""
        c = self.corpus
        if not dirty and isinstance(c, TextCorpus) and c.text == text \
                and c.paths == tuple(paths) and c.encoding == encoding:
            return
        self.set_corpus(TextCorpus(text, tuple(paths), sample, dirty, encoding))

    def mark_corpus_saved(self, path: str | None = None) -> None:
        if isinstance(self.corpus, TextCorpus):
            self.corpus = replace(self.corpus, dirty=False,
                                  paths=(path,) if path else self.corpus.paths)
        self.corpusChanged.emit()

    def _mark_stale(self) -> None:
        self.stale = True
        self.trainerStale.emit(True)
        if self.training.small():
            self.training.timer.start()

    def is_table(self) -> bool:
        return isinstance(self.corpus, TableCorpus)

    # ----- settings ---------------------------------------------------------------------
    def set_settings(self, settings: TrainSettings) -> bool:
        """Apply new settings; returns False (and reports) if they cannot work."""
        try:
            settings = settings.validated()
        except BPEError as e:
            self._fail("Training settings", e)
            return False
        if settings == self.settings and self.trainer is not None:
            return True
        if self.training.retarget(settings):   # only the target changed: no re-reading
            return True
        self.settings = settings
        self.settingsChanged.emit(settings)
        self._mark_stale()
        return True

    def apply(self, settings: TrainSettings, parity: ParitySetup) -> bool:
        """The settings panel's Apply: another training mode (parity, SuperBPE, on or
        off) throws the run's trained steps away, asked first (Training.may_drop)."""
        def mode(p: ParitySetup, s: TrainSettings) -> str:
            return "parity" if p.active else "train on" if self.train_on.active else \
                "superbpe" if s.superbpe_from is not None else "plain"
        if mode(parity, settings) != mode(self.parity, self.settings) and \
                not self.training.may_drop("Changing the training mode"):
            return False
        self.set_parity(parity)
        return self.set_settings(settings)

    def set_parity(self, setup: ParitySetup) -> bool:
        """Parity-aware training's languages and parameters (off: ``enabled`` False).
        A change makes the trainer stale: the next Step or Train reads the languages."""
        if setup == self.parity:
            return True
        if setup.active and self.train_on.active:   # one mode: parity reads its languages
            self.train_on.leave()
        self.parity = setup
        self.parityChanged.emit(setup)
        self._mark_stale()
        return True

    # ----- stepping ---------------------------------------------------------------------
    def _stepped(self) -> None:
        detail_current(self.trainer)   # a fast run's last record: with its detail now
        self.stepChanged.emit(self.step_index)
        if not self.use_imported:
            self.tokenizerChanged.emit()

    def plain_curve(self, run: object, n: int) -> list[tuple[int, ...]] | None:
        """Plain BPE's per-language tokens beside parity run ``run`` at steps 0..n, for
        the chart (grown here, a step or two, when the run stepped past it), or None."""
        got = self.training.plain
        plain = got[1] if got and got[0] is run else None
        return None if plain is None else plain.rows[:n + 1] if self.busy else plain.curve(n)

    def step(self) -> bool:
        """One merge; a run out of date (an edited corpus) trains again, asked first,
        and lands at step 1 (Step had thrown 14 merges away and shown step 0)."""
        stale = self.trainer is None or self.stale
        t = self.training.ready("Step", to_step=1 if stale else None)
        if t is None or stale:
            return t is not None
        if t.step() is None:
            self.set_playing(False)
            self.message.emit(stop_reason(t))
            return False
        self._stepped()
        return True

    def undo(self) -> bool:
        t = self.training.ready("Step back")
        if t is None:
            return False
        if t.undo() is None:
            self.message.emit("Already at step 0.")
            return False
        self._stepped()
        return True

    def done_reason(self) -> str:
        """Why training stops here (target reached, no pair left, below min frequency)."""
        t = self.trainer
        return stop_reason(t) if t is not None else "No trainer yet."

    def goto(self, k: int) -> bool:
        """Jump to step k: undo back or run forward (on the worker thread if far)."""
        t = self.training.ready(f"Run to step {k:,}")
        if t is None:
            return False
        k = max(0, k)
        if k <= t.n_steps or k - t.n_steps <= SYNC_STEPS:
            far = abs(k - t.n_steps) > SYNC_STEPS
            t.goto(k, detail=False)
            self._stepped()
            if far:
                release_freed_memory()   # the records of the steps undone
            return True
        return self.training.to_step(t, k)

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

    # ----- jobs -------------------------------------------------------------------------
    def start(self, job: Job) -> bool:
        """Run a job on the one job runner (progress and Cancel in the status bar);
        False (and a status line) if another job runs."""
        self.training.cancel_asked = False
        return self.jobs.start(job)

    def cancel(self) -> None:
        """Stop the running job. One that only builds something new (reading files,
        pre-tokenizing) is dropped at once; one that runs the trainer stops at the next
        step (well under a millisecond)."""
        if not self.busy:
            return
        self.set_playing(False)
        self.training.cancel_asked = True
        self.jobs.request_cancel()
        if not self.training.running_trainer():
            self.training.live_box = None
            self.jobs.abandon()

    def shutdown(self) -> None:
        self.set_playing(False)
        self.jobs.stop_and_wait()
        self.chat.stop()
