"""Building trainers for the controller: from the corpus and the settings, at once for
a small corpus, else by a job (training_jobs.retrain_job); keeping the pre-token table
when only the mode or the target changed; installing the new trainer; a new target for
the trainer in use (no re-tokenizing).

:class:`Training` is a part of the controller, given what it uses of it: the state it
reads and replaces and the signals it sends (:class:`TrainingHost`), and the callables
and objects named in its constructor.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Protocol

from PySide6.QtCore import QObject, QTimer, SignalInstance

from ...engine.corpus import check_settings
from ...engine.errors import BPEError
from ...engine.train import TrainerProtocol, TrainSettings
from ...engine.display import human_size
from .corpus_source import TABLE_NAME, Corpus, FileCorpus, NotUtf8, TextCorpus
from .gc_policy import release_freed_memory
from .jobs import Job
from .runs import TrainerRuns
from .live import LiveView
from .parity_setup import ParitySetup
from .plan import PARITY, PLAIN, TRAIN_ON, TrainingPlan
from .superbpe_training import new_trainer, stage2_table
from .train_on import TrainOn
from .training_jobs import detail_current, retrain_job

# Corpora smaller than this retrain at once, on the GUI thread, as the user types.
SYNC_CHARS = 200_000
# Jumps longer than this many steps run on the worker thread with a progress bar.
SYNC_STEPS = 300
# Word-count tables with more unique words than this build their trainer on the worker.
SYNC_TABLE_WORDS = 50_000
RETRAIN_DEBOUNCE_MS = 400


def parity_merges(settings: TrainSettings) -> int:
    """The merges a parity run makes for the window's target: the number of merges, or
    the vocabulary size less the 256 bytes (parity training has no special tokens)."""
    if settings.num_merges is not None:
        return settings.num_merges
    return max(0, (settings.vocab_size or 256) - 256)


class TrainingHost(Protocol):
    """What :class:`Training` uses of the controller it serves."""

    corpus: Corpus
    settings: TrainSettings
    trainer: TrainerProtocol | None   # replaced here
    stale: bool                       # set here
    use_imported: bool
    train_on: TrainOn                 # training on from the imported tokenizer
    parity: ParitySetup               # parity-aware training on several languages
    message: SignalInstance
    settingsChanged: SignalInstance
    targetChanged: SignalInstance
    trainerChanged: SignalInstance
    trainerStale: SignalInstance
    stepChanged: SignalInstance
    tokenizerChanged: SignalInstance
    livePeek: SignalInstance

    @property
    def busy(self) -> bool: ...
    def set_playing(self, on: bool) -> None: ...
    def start(self, job: Job) -> bool: ...
    runs: TrainerRuns   # the trainer run on by jobs, and their ends


class Training:
    """(Re)building the controller's trainer (see the module docstring).

    Given, besides the controller's state (``host``): how to report an error
    (``fail``), to announce a step (``stepped``), to drop the controller's view of the
    trainer (``forget_view``, so a let-go trainer is freed), to offer another encoding
    (``not_utf8``), to make room for a job (``make_room``: a side job gives way), the
    live view a running job pauses through (``live``), the job runner's phase
    (``set_phase``) and the parent of its timer (``parent``)."""

    def __init__(self, host: TrainingHost, *, fail: Callable[[str, object], None],
                 stepped: Callable[[], None], forget_view: Callable[[], None],
                 not_utf8: Callable[[NotUtf8], None], make_room: Callable[[], None],
                 live: LiveView, set_phase: Callable, parent: QObject):
        self.c = host
        self._fail, self._stepped, self._forget_view = fail, stepped, forget_view
        self._not_utf8, self._make_room = not_utf8, make_room
        self._live, self._set_phase = live, set_phase
        self.pending_step: int | None = None
        self.land_at: int | None = None   # after the next install, undo back to this step
        # The corpus changes generation on every new text, files or table. The trainer
        # remembers the plan it was built from (plan.py): a retrain whose plan has the
        # same table key reuses its pre-token table instead of reading it all again, and
        # nothing else of it is taken for the corpus's (a mode's reading outlived the
        # mode when only the corpus generation was compared)
        self._corpus_gen = 0
        self._building: TrainingPlan | None = None
        self.built: TrainingPlan | None = None
        # The running retrain job puts its new trainer here once it starts merging.
        self.live_box: dict | None = None
        self.timer = QTimer(parent, singleShot=True, interval=RETRAIN_DEBOUNCE_MS)
        self.timer.timeout.connect(self._auto_retrain)

    def new_corpus(self) -> None:
        self._corpus_gen += 1

    def plan(self) -> TrainingPlan:
        """What the next training reads and how, from what the panels show now."""
        c = self.c
        if c.parity.active:
            return TrainingPlan(PARITY, self._corpus_gen, c.settings, parity=c.parity)
        if c.train_on.active:
            return TrainingPlan(TRAIN_ON, self._corpus_gen, c.settings,
                                base=c.train_on.source_path or c.train_on.label)
        return TrainingPlan(PLAIN, self._corpus_gen, c.settings)

    def begin(self) -> None:
        """A trainer is being built for the plan of now (installed by ``install``)."""
        self._building = self.plan()

    def reads_corpus_stale(self) -> bool:
        """True unless the trainer's counts are the corpus's: it is up to date and read
        the corpus in the editor (parity mode reads the languages' files instead)."""
        return self.c.stale or not self.plan().reads_corpus

    def built_for_now(self) -> bool:
        """True when the trainer in use read what the next training would read (the
        same corpus, languages or source): its counts are those of what is shown."""
        built = self.built
        return self.c.trainer is not None and built is not None \
            and built.reads() == self.plan().reads()

    def small(self) -> bool:
        """A corpus small enough to retrain at once, as the user types."""
        corpus = self.c.corpus
        if self.c.parity.active:   # its languages' files are read by a job
            return False
        return not corpus.streamed and len(corpus.text) <= SYNC_CHARS

    def _auto_retrain(self) -> None:
        c = self.c
        if c.stale and not c.busy and self.small():
            self.retrain(quiet=True)

    def running_trainer(self) -> TrainerProtocol | None:
        """The new trainer a running retrain job is merging with, if any."""
        return (self.live_box or {}).get("trainer")

    def keep_running(self) -> None:
        """A job ended cancelled while running a new trainer: keep its merges."""
        running = self.running_trainer()
        if running is not None:
            self.install(running)

    def train(self) -> bool:
        """The one Train action: bring the trainer up to date with the corpus and the
        applied settings (re-tokenizing only if they changed more than the target), then
        run to the target."""
        c = self.c
        self._make_room()
        if c.busy:
            c.message.emit("Busy: wait for the running job or cancel it (Esc).")
            return False
        if c.trainer is None or c.stale:
            return self.retrain(to_target=True)
        return c.runs.to_target()

    def retrain(self, quiet: bool = False, to_step: int | None = None,
                to_target: bool = False, land_at: int | None = None) -> bool:
        """Build a new trainer from the corpus and settings (step 0, or ``to_step``, or
        the target; ``land_at``: then back to this step, a session's undone steps stay
        in the timeline, to redo)."""
        c = self.c
        if c.train_on.active and self._keeps_training_on():   # train_on.py rebuilds it
            return c.train_on.retrain(quiet, to_step, to_target, land_at)
        self.land_at = land_at
        self.begin()
        self.timer.stop()
        c.set_playing(False)
        corpus, settings = c.corpus, c.settings
        self.pending_step = to_step
        if c.parity.active:
            return self._start_parity(to_step, to_target, quiet)
        if corpus.table is not None:
            if len(corpus.table) > SYNC_TABLE_WORDS or (to_step or 0) > SYNC_STEPS:
                try:   # settings that do not fit the table: refused before any job
                    check_settings(corpus.table.meta, settings, TABLE_NAME)
                except BPEError as e:
                    self._train_failed(e, quiet)
                    return False
                return self._start_training(corpus, settings, to_step, to_target)
        elif not corpus.text or corpus.text.isspace():   # not strip(): no 20 MB copy
            c.trainer = None
            c.trainerChanged.emit()
            c.stepChanged.emit(0)
            c.tokenizerChanged.emit()
            if not quiet:
                self._fail("Empty corpus", "The corpus is empty. Type or paste some text, "
                        "open a file, or pick a sample from File > Samples.")
            return False
        elif not (self.small() and (to_step or 0) <= SYNC_STEPS):
            return self._start_training(corpus, settings, to_step, to_target)
        try:
            trainer = new_trainer(corpus.source, settings, stage2_table(corpus, settings))
            if to_step:
                trainer.goto(to_step, detail=False)
        except BPEError as e:
            self._train_failed(e, quiet)
            return False
        self.install(trainer)
        return c.runs.to_target() if to_target else True

    def retarget(self, settings: TrainSettings) -> bool:
        """Only when to stop changed (``can_retarget``): the trainer goes on or back, no
        re-tokenizing. False (and reported) if the trainer refuses the target."""
        c = self.c
        t = c.trainer
        if t is None:
            return False
        before = t.n_steps
        try:
            t.retarget(settings)
        except BPEError as e:
            self._fail("Training settings", e)
            return False
        # a parity run keeps its own reading (bytes, GPT-2's pattern); the panel's other
        # settings stay the user's, for plain training when parity is off again
        c.settings = settings if c.parity.active else t.settings
        c.settingsChanged.emit(c.settings)
        c.targetChanged.emit()
        if t.n_steps != before:
            self._stepped()
            c.message.emit(f"New target: back to step {t.n_steps:,}.")
        else:
            c.message.emit(f"New target applied; Train (F5) goes on from step {t.n_steps:,}.")
        return True

    def _keeps_training_on(self) -> bool:
        """Settings that change what the source decides (a sample's, a session's) end
        training on: the corpus is trained from scratch with them."""
        c = self.c
        if c.train_on.fits(c.settings):
            return True
        c.train_on.leave()
        return False

    def _start_training(self, source, settings: TrainSettings, to_step: int | None,
                        to_target: bool) -> bool:
        """A job that builds a trainer from text or files (pre-tokenizing them) or from a
        word-count table, then runs it on (training_jobs.retrain_job).

        Memory stays that of one trainer, as the command line's: the pre-token table of
        the trainer in use is reused when only the mode or the target changed (no second
        read of the files), and a big stale trainer is let go before the new one is built
        (a job owns the trainer meanwhile, so no panel shows it anyway)."""
        c = self.c
        table = self._reusable_table(settings)
        table2 = stage2_table(source, settings, c.trainer, reuse=table is not None)
        if table is not None:
            source = table
        if isinstance(source, FileCorpus):
            label = f"Reading and pre-tokenizing {source.names} ({human_size(source.disk_bytes)})"
        elif isinstance(source, TextCorpus):
            label = "Pre-tokenizing corpus"
        else:
            label = "Preparing the word counts"
        self._let_go_of_big_trainer()
        box: dict = {}
        self.live_box = box
        run = retrain_job(source, settings, self._live, box, self._set_phase,
                          to_step=to_step, to_target=to_target, table2=table2)
        return c.start(Job(label, run, lambda r: self._built(r, label),
                           c.runs.trainer_job_ended,
                           unit="bytes",
                           abandon=True, owns_trainer=True,
                           title="Cannot train on this corpus"))

    def _start_parity(self, to_step: int | None, to_target: bool, quiet: bool) -> bool:
        """A job that reads the languages' files into a parity run (and plain BPE's
        curve on the same data, for the chart), then runs it on like any training."""
        c = self.c
        setup, settings = c.parity, c.settings
        why = setup.problem()
        if why is not None:
            self._train_failed(BPEError(why), quiet)
            return False
        merges = parity_merges(settings)
        names = ", ".join(lang.name for lang in setup.languages)
        label = f"Reading {len(setup.languages)} languages ({names})"

        def build(progress, cancelled, phase):
            progress(0, 2)   # the status bar says it from the start
            run = setup.run(merges, settings.min_frequency)
            phase("Plain BPE on the same data, for the chart", "")
            progress(1, 2)
            run.compute_plain(cancelled)
            return run
        self._let_go_of_big_trainer()
        box: dict = {}
        self.live_box = box
        job = retrain_job(c.corpus, settings, self._live, box, self._set_phase,
                          to_step=to_step, to_target=to_target, build=build)
        return c.start(Job(label, job, lambda r: self._built(r, label),
                           c.runs.trainer_job_ended,
                           abandon=True, owns_trainer=True,
                           title="Cannot train parity-aware"))

    def _built(self, result: TrainerProtocol | NotUtf8, label: str) -> None:
        if isinstance(result, NotUtf8):
            self.live_box = None
            self._not_utf8(result)
            return
        self.install(result)
        self.pending_step = None
        self.c.runs.ran(label)
        info = result.parity
        if info is not None and info.warning:   # (after ran: its line would hide this one)
            self.c.message.emit("Warning: " + info.warning)

    def _reusable_table(self, settings: TrainSettings):
        """The trainer's pre-token table if it still fits: the plan it was built from
        reads the same texts and cuts them the same way (the mode, the target and the
        tie rule work on any table)."""
        t, built = self.c.trainer, self.built
        if t is None or built is None:
            return None
        if built.table_key() != replace(self.plan(), settings=settings).table_key():
            return None
        return t.table

    def _let_go_of_big_trainer(self) -> None:
        """Drop a trainer of more than SYNC_TABLE_WORDS unique words before a new one is
        built: on 1 GiB of code the old one held 350 MB while the new one was read (the
        app peaked at 1.5x the command line's memory)."""
        c = self.c
        t = c.trainer
        if t is None or len(t.table) <= SYNC_TABLE_WORDS:
            return
        c.trainer = None
        self._forget_view()
        del t
        c.trainerChanged.emit()
        c.stepChanged.emit(0)
        if not c.use_imported:
            c.tokenizerChanged.emit()
        release_freed_memory()

    def _train_failed(self, e: BPEError, quiet: bool) -> None:
        """Say what is wrong; a retrain that runs by itself (after an edit) says it in
        the status bar, not in a box that would come back after every keystroke."""
        msg = str(e)
        if "no words after pre-tokenization" in msg and self.c.corpus.text.strip():
            msg = ("The pre-tokenizer pattern finds no words in this corpus, so there is "
                   "nothing to train on. Pick a preset or change the pattern in the "
                   "training settings.")
        if quiet:
            self.c.message.emit(msg)
        else:
            self._fail("Cannot train on this corpus", msg)

    def on_live_look(self) -> None:
        c = self.c
        t = self.running_trainer() or c.trainer
        if t is None or not c.busy:
            return
        if t is not c.trainer:   # a retrain job is running its new trainer
            c.trainer = t
            c.stale = False
            c.trainerStale.emit(False)
            c.trainerChanged.emit()
        c.livePeek.emit(t.n_steps)

    def install(self, trainer: TrainerProtocol) -> None:
        c = self.c
        self.live_box = None
        self.built, self._building = self._building or self.plan(), None
        back, self.land_at = self.land_at, None
        detail_current(trainer)
        c.trainer = trainer
        c.stale = False
        c.trainerStale.emit(False)
        c.trainerChanged.emit()
        c.stepChanged.emit(trainer.n_steps)
        if not c.use_imported:
            c.tokenizerChanged.emit()
        if back is not None and back < trainer.n_steps:
            trainer.tokenizer()   # it keeps the merges undone next (furthest_step)
            trainer.goto(back)
            self._stepped()
        release_freed_memory()   # what the job's reading and counting freed
