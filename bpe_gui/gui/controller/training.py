"""Training for the controller: what the panels show as one training spec (:meth:`spec`,
the engine's :class:`~bpe_gui.engine.train.TrainingSpec`), the run the engine's one
factory builds from it (``build_run``: at once for a small corpus, else by a job),
installing it, running it on by a job (to a far step or the target; what the window is
told when a job that ran or built it ends), and a new target for the run in use (no
re-tokenizing).

The flow of Train (F5): ``train()`` -> ``retrain(to_target=True)`` -> ``effective()``
(the spec, validated, with what a tokenizer trained on decides) -> ``build_run`` (on the
worker thread, or here for a small corpus) -> the run's ``run()`` to the target ->
``install`` (docs/ARCHITECTURE.md lists each hop).

:class:`Training` is a part of the controller, given what it uses of it: the state it
reads and replaces and the signals it sends (:class:`TrainingHost`), and the callables
and objects named in its constructor.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Protocol

from PySide6.QtCore import QObject, QTimer, SignalInstance

from ...engine.corpus import check_settings
from ...engine.errors import BPEError, Cancelled, NotUTF8Error
from ...engine.display import human_size
from ...engine.train import (PARITY, PLAIN, PREPARING, READING, SEGMENTING, STAGE2,
                             TRAIN_ON, PlainCurve, RunCommon, RunSteps, TrainingSpec,
                             TrainSettings, build_run, lend, resolve)
from .corpus_source import (TABLE_NAME, Corpus, FileCorpus, NotUtf8, TableCorpus, corpus_spec,
                            sample_file)
from .gc_policy import release_freed_memory
from .jobs import Job, JobEnd, Outcome, phased
from .live import LiveView
from .parity_setup import ParitySetup
from .training_jobs import detail_current, run_on, stop_reason

if TYPE_CHECKING:
    from .train_on import TrainOn

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
    trainer: RunCommon | None   # replaced here
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


class Training:
    """The controller's training (see the module docstring).

    Given, besides the controller's state (``host``): how to report an error
    (``fail``), to announce a step (``stepped``), to drop the controller's view of the
    trainer (``forget_view``, so a let-go trainer is freed), to offer another encoding
    (``not_utf8``), to make room for the user's job (``free``: a side job gives way;
    False, said, while another runs), the live view a running job pauses through
    (``live``), the job runner's phase (``set_phase``) and the parent of its timer
    (``parent``)."""

    def __init__(self, host: TrainingHost, *, fail: Callable[[str, object], None],
                 stepped: Callable[[], None], forget_view: Callable[[], None],
                 not_utf8: Callable[[NotUtf8], None], free: Callable[[], bool],
                 live: LiveView, set_phase: Callable, parent: QObject):
        self.c = host
        self._fail, self._stepped, self._forget_view = fail, stepped, forget_view
        self._not_utf8, self._free = not_utf8, free
        self._live, self._set_phase = live, set_phase
        self.land_at: int | None = None   # after the next install, undo back to this step
        # The corpus changes generation on every new text, files or table; the trainer
        # in use remembers what it read (``built``: the reads of its spec and the
        # generation), so a mode's reading never passes for the corpus's, and a retrain
        # reading the same words borrows its tables (build_run's reuse)
        self._gen = 0
        self._building: tuple | None = None
        self.built: tuple | None = None
        # The running retrain job puts its new trainer here once it starts merging.
        self.live_box: dict | None = None
        # plain BPE's curve on a parity run's data, for the chart: (that run, the curve);
        # grown before a job runs that run on, and by the chart (Controller.plain_curve)
        self.plain: tuple[RunCommon, PlainCurve] | None = None
        self.cancel_asked = False   # Cancel was pressed during the job running now
        # asked before a route throws the run's trained steps away (the window asks the
        # user): confirm_drop(what, steps) -> go ahead; unset, it goes ahead
        self.confirm_drop: Callable[[str, int], bool] = lambda _what, _steps: True
        self._agreed = False   # the steps of the run in use were let go (asked once)
        self.timer = QTimer(parent, singleShot=True, interval=RETRAIN_DEBOUNCE_MS)
        self.timer.timeout.connect(self._auto_retrain)

    def new_corpus(self) -> None:
        self._gen += 1

    def corpus_changed(self, was_stale: bool) -> None:
        """The corpus changed: a run that reads it is stale (parity's reads its
        languages), and a small corpus retrains by itself; an edit that would throw
        trained steps away leaves them, said stale, until Train, or until the text is
        back as the run read it (Undo in the editor). (A new corpus over trained steps
        is asked about first: window/files.py.)"""
        c = self.c
        now = c.stale
        if now != was_stale or now:
            c.trainerStale.emit(now)
        if not now:
            self.timer.stop()
        elif self.at_stake() and c.corpus.dirty:   # an edit (a new corpus was asked)
            self.timer.stop()
            if not was_stale:
                n = self.at_stake()
                c.message.emit(f"The corpus changed: the training ({n:,} merge"
                               f"{'s' if n != 1 else ''}) is kept until you train again "
                               "(F5); undo the edit to have it up to date again.")
        elif self.small():
            self.timer.start()

    # ----- the spec --------------------------------------------------------------------
    def spec(self, settings: TrainSettings | None = None) -> TrainingSpec:
        """What the next training is, from what the panels show (``settings``: these
        instead of the panel's), before the engine's rules (``effective``)."""
        c = self.c
        s = settings or c.settings
        if c.parity.active:
            return TrainingSpec(PARITY, settings=replace(
                s, vocab_size=None, num_merges=parity_merges(s), lines=c.parity.lines),
                parity=c.parity.options())
        return corpus_spec(s, c.corpus, c.train_on.base_name if c.train_on.active else None)

    def effective(self, settings: TrainSettings | None = None) -> TrainingSpec:
        """The spec a run trains: validated (a setting the mode does not use at its
        default), with what the tokenizer trained on decides; BPEError says what is
        wrong."""
        c = self.c
        why = c.parity.problem()
        if why is not None:
            raise BPEError(why)
        return resolve(self.spec(settings), c.train_on.source)

    def command(self) -> tuple[str, str]:
        """The exact ``bpe-gui train`` command that makes the training the panels show
        (the settings applied), and a sentence on what it reads that the window holds
        ("" when it reads only files). BPEError: the settings cannot train."""
        spec = self.effective()
        note = ""
        sample = sample_file(self.c.corpus)
        if spec.text is not None and sample is not None:   # a sample, as its file has it
            spec = replace(spec, text=None, corpus=(sample,))
        elif spec.text is not None:
            note = ("The corpus is the text in the window, which the command reads from "
                    "standard input (-): save it to a file and give its path instead, or "
                    "pipe it in.")
        return spec.command(), note

    def reads(self, spec: TrainingSpec | None = None) -> tuple:
        """Which texts a run of ``spec`` reads: equal for two specs exactly when their
        runs' words come from the same texts (the corpus of this generation, the
        languages' files, the corpus through a tokenizer; default: the panels' spec)."""
        spec = spec or self.spec()
        if spec.mode == PARITY and spec.parity is not None:
            return (PARITY, tuple((lang.name, lang.train) for lang in spec.parity.languages),
                    spec.settings.lines)
        # a text is compared by its content (an edit undone is the text read again);
        # files and tables by their opening (the same files opened again may have changed)
        corpus = ("text", spec.text) if spec.text is not None else self._gen
        if spec.mode == TRAIN_ON:
            return (TRAIN_ON, corpus, spec.base)
        return (PLAIN, corpus)

    def at_stake(self) -> int:
        """The trained steps a new corpus would throw away: the run's furthest step when
        it reads the corpus (0 in parity mode: its languages are what it reads)."""
        c = self.c
        t = c.trainer
        if t is None or c.parity.active or not self.built or self.built[0] == PARITY:
            return 0
        return t.furthest_step

    def reads_corpus_stale(self) -> bool:
        """True unless the trainer's counts are the corpus's: it is up to date and read
        the corpus in the editor (parity mode reads the languages' files instead)."""
        return self.c.stale or self.c.parity.active

    def built_for_now(self) -> bool:
        """True when the trainer in use read what the next training would read (the
        same corpus, languages or source): its counts are those of what is shown."""
        return self.c.trainer is not None and self.built is not None \
            and self.built == self.reads()

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

    def running_trainer(self) -> RunCommon | None:
        """The new trainer a running retrain job is merging with, if any."""
        return (self.live_box or {}).get("trainer")

    def keep_running(self) -> None:
        """A job ended cancelled while running a new trainer: keep its merges."""
        running = self.running_trainer()
        if running is not None:
            self.install(running)

    # ----- training -------------------------------------------------------------------
    def train(self) -> bool:
        """The one Train action: bring the trainer up to date with the corpus and the
        applied settings (re-tokenizing only if they changed more than the target), then
        run to the target."""
        c = self.c
        if c.trainer is not None and not c.stale:
            return self.to_target()
        return self._free() and self.retrain(to_target=True)

    def retrain(self, quiet: bool = False, to_step: int | None = None,
                to_target: bool = False, land_at: int | None = None) -> bool:
        """Build a new run of what the panels show (step 0, or ``to_step``, or the
        target; ``land_at``: then back to this step, a session's undone steps stay in the
        timeline, to redo). Returns True only when the caller may go on (to a step or
        the target); a job's stepping waits for the job."""
        c = self.c
        self.land_at = land_at
        self.timer.stop()
        c.set_playing(False)
        try:
            spec = self.effective()
            if spec.counts and isinstance(c.corpus, TableCorpus):   # before any job
                check_settings(c.corpus.table.meta, spec.settings, TABLE_NAME)
        except BPEError as e:
            self._train_failed(e, quiet)
            return False
        if spec.text is not None and (not spec.text or spec.text.isspace()):
            self._none_in_use()   # (not strip(): no copy of a 20 MB text)
            if not quiet:
                self._fail("Empty corpus", "The corpus is empty. Type or paste some text, "
                           "open a file, or pick a sample from File > Samples.")
            return False
        if spec.mode == TRAIN_ON and quiet:   # (segmenting waits for Train or Step)
            return False
        self._building = self.reads(spec)
        if spec.mode in (PARITY, TRAIN_ON) or (to_step or 0) > SYNC_STEPS or not (
                len(c.corpus.table) <= SYNC_TABLE_WORDS if isinstance(c.corpus, TableCorpus)
                else self.small()):
            return self._start(spec, to_step, to_target)
        try:
            run = build_run(spec, **self._inputs(spec))
            if to_step:
                run.goto(to_step, detail=False)
        except BPEError as e:
            self._train_failed(e, quiet)
            return False
        self.install(run)
        return self.to_target() if to_target else True

    def _inputs(self, spec: TrainingSpec) -> dict:
        """What build_run is given besides the spec: the tokenizer trained on, the table
        the window holds, and the tables of the run in use when it read the same words."""
        c = self.c
        same = self.built is not None and self.built == self._building
        return dict(base=c.train_on.source, where=TABLE_NAME,
                    table=c.corpus.table if isinstance(c.corpus, TableCorpus) else None,
                    reuse=lend(c.trainer) if same else None)

    def _start(self, spec: TrainingSpec, to_step: int | None, to_target: bool) -> bool:
        """A job that builds the run (reading, counting, segmenting: build_run) and runs
        it on. Memory stays that of one trainer, as the command line's: the run in use
        lends its tables when they still fit, and a big one is let go of before the new
        one is built (a job owns the trainer meanwhile, so no panel shows it anyway)."""
        c = self.c
        inputs = self._inputs(spec)
        lent = inputs["reuse"]
        labels = self._labels(spec, lent is not None and lent.serves(spec))
        label, unit = labels[READING]
        self._let_go_of_big_trainer()
        box: dict = {}
        self.live_box = box
        phase, live = self._set_phase, self._live

        def job(progress, cancelled):
            report = phased(progress, phase, lambda name: labels.get(name, (label, "")))
            report(READING, 0, 1)   # (the status bar says it from the start)
            try:
                run = build_run(spec, report, cancelled, **inputs)
            except NotUTF8Error as e:   # found past the preview: offer another encoding
                if spec.mode == PARITY:   # (a language's file: the error names it)
                    raise
                return NotUtf8.of(e, list(spec.corpus))
            info = run.parity
            if info is not None:   # plain BPE's curve on the same data, for the chart
                phase("Plain BPE on the same data, for the chart", "")
                progress(1, 2)
                self.plain = (run, PlainCurve(info.data, info.parity_settings))
                self.plain[1].compute(cancelled, upto=info.target)
            if to_step or to_target:
                box["trainer"] = run   # the window may show it from now on
                if cancelled():   # after publishing it: cancel() reads box after the flag
                    raise Cancelled()   # ends as cancelled, keeping the published trainer
                phase(f"Learning new merges on top of {c.train_on.label}"
                      if spec.mode == TRAIN_ON else "Training to target" if to_target
                      else f"Running to step {to_step:,}", "merges")
                run_on(run, to_step or None, live, progress, cancelled)
            return run
        title = {PARITY: "Cannot train parity-aware",
                 TRAIN_ON: f"Cannot train on from {c.train_on.label}"}.get(
                     spec.mode, "Cannot train on this corpus")
        return c.start(Job(label, job, lambda r: self._built(r, label),
                           lambda end: self._ended(end, spec), unit=unit, abandon=True,
                           owns_trainer=True, title=title))

    def _labels(self, spec: TrainingSpec, reusing: bool) -> dict[str, tuple[str, str]]:
        """What the status bar says in each phase of building ``spec``'s run, and what
        its progress counts (``reusing``: the run in use lends its word counts)."""
        c = self.c
        corpus = c.corpus
        if spec.mode == PARITY and spec.parity is not None:
            langs = spec.parity.languages
            read = (f"Reading {len(langs)} languages "
                    f"({', '.join(lang.name for lang in langs)})", "")
        elif isinstance(corpus, FileCorpus):
            read = (f"Reading and pre-tokenizing {corpus.names} "
                    f"({human_size(corpus.disk_bytes)})", "bytes")
        elif isinstance(corpus, TableCorpus) or reusing:
            read = ("Preparing the word counts", "")
        else:
            read = ("Pre-tokenizing corpus", "bytes")
        if spec.mode == TRAIN_ON:
            read = (f"Training on from {c.train_on.label}", "bytes")
        return {READING: read,
                STAGE2: ("Pre-tokenizing for stage 2 (no split at spaces)", "bytes"),
                PREPARING: ("Preparing stage 2", ""),
                SEGMENTING: (f"Segmenting the corpus with the merges of {c.train_on.label}",
                             "")}

    def _built(self, result: RunCommon | NotUtf8, label: str) -> None:
        if isinstance(result, NotUtf8):
            self.live_box = None
            self._not_utf8(result)
            return
        self.install(result)
        self.ran(label)
        info = result.parity
        if info is not None and info.warning:   # (after ran: its line would hide this one)
            self.c.message.emit("Warning: " + info.warning)

    def _ended(self, end: JobEnd, spec: TrainingSpec) -> None:
        c = self.c
        if spec.mode == TRAIN_ON:   # a source refused (or a job dropped) ends the mode
            c.train_on.job_ended()
        self.live_box = None
        self.trainer_job_ended(end)

    # ----- running the run on, by a job ---------------------------------------------------
    def may_drop(self, what: str) -> bool:
        """Before ``what`` throws away the trained steps of the run in use: one question
        (confirm_drop), asked once for the run. True: go ahead."""
        t = self.c.trainer
        steps = 0 if t is None else t.furthest_step
        if steps and not self._agreed:
            self._agreed = self.confirm_drop(what, steps)
            return self._agreed
        return True

    def ready(self, what: str = "Going on", to_step: int | None = None
              ) -> RunSteps | None:
        """The trainer to step, up to date with the corpus and settings (a small corpus
        retrains here, at ``to_step``, once the user let the out-of-date run's steps go:
        ``what`` goes on, may_drop); None while a job runs, or once one was started to
        build it."""
        c = self.c
        if not self._free():
            return None
        if (c.trainer is None or c.stale) and not (
                self.may_drop(what) and self.retrain(to_step=to_step)):
            return None
        return None if c.busy else c.trainer

    def to_step(self, t: RunSteps, k: int) -> bool:
        """Run ``t`` on to step ``k`` (a far jump forward)."""
        return self._run_on(f"Running to step {k:,}", t, k)

    def to_target(self) -> bool:
        """Run the trainer on to the target (Train, when it is up to date)."""
        t = self.ready()
        if t is None:
            return False
        if t.is_done:
            self.c.message.emit(stop_reason(t))
            return False
        return self._run_on("Training to target", t, None)

    def _run_on(self, label: str, t: RunSteps, until: int | None) -> bool:
        live = self._live

        def done(_records) -> None:
            self._stepped()
            self.ran(label)
        plain = self.plain[1] if self.plain and self.plain[0] is t else None
        return self.c.start(Job(label, lambda progress, cancelled: run_on(
            t, until, live, progress, cancelled, plain), done, self.trainer_job_ended,
            unit="merges", owns_trainer=True, title="Cannot train on this corpus"))

    def ran(self, label: str) -> None:
        """A job ran the trainer (or built it): say where it stopped."""
        c = self.c
        t = c.trainer
        if t is None:
            return
        if self.cancel_asked:
            c.message.emit(f"{label}: cancelled at step {t.n_steps:,}.")
        elif t.is_done:
            c.message.emit(stop_reason(t))

    def trainer_job_ended(self, end: JobEnd) -> None:
        """A job that ran or built the trainer ended otherwise than done: the views
        show the trainer as it is now."""
        if end.outcome is Outcome.FAILED:
            self.land_at = None
        if not end.done and self.c.trainer is not None:
            self._stepped()

    # ----- a new target -----------------------------------------------------------------
    def retarget(self, settings: TrainSettings) -> bool:
        """Only when to stop changed: the run goes on or back, no re-tokenizing. False
        when it cannot (another spec: a retrain), or reported when the run refuses."""
        c = self.c
        t = c.trainer
        old = getattr(t, "spec", None)
        if t is None or old is None or c.stale or c.busy:
            return False
        try:
            new = self.effective(settings)
        except BPEError:
            return False
        if new.table_key() != old.table_key() or not t.can_retarget(new.settings):
            return False
        before = t.n_steps
        try:
            t.retarget(new.settings)
        except BPEError as e:
            self._fail("Training settings", e)
            return False
        t.spec = new   # (every run carries its spec)
        c.settings = settings   # the panel's own (a mode's fixed fields are the spec's)
        c.settingsChanged.emit(c.settings)
        c.targetChanged.emit()
        if t.n_steps != before:
            self._stepped()
            c.message.emit(f"New target: back to step {t.n_steps:,}.")
        else:
            c.message.emit(f"New target applied; Train (F5) goes on from step {t.n_steps:,}.")
        return True

    # ----- installing ---------------------------------------------------------------------
    def _let_go_of_big_trainer(self) -> None:
        """Drop a trainer of more than SYNC_TABLE_WORDS unique words before a new one is
        built: on 1 GiB of code the old one held 350 MB while the new one was read (the
        app peaked at 1.5x the command line's memory)."""
        c = self.c
        t = c.trainer
        if t is None or len(t.table) <= SYNC_TABLE_WORDS:
            return
        self._forget_view()
        del t
        self._none_in_use()
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

    def _none_in_use(self) -> None:
        """No trainer in use any more: the views show none."""
        c = self.c
        c.trainer = None
        self.plain = None   # (its curve goes with it)
        c.trainerChanged.emit()
        c.stepChanged.emit(0)
        if not c.use_imported:
            c.tokenizerChanged.emit()

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

    def install(self, trainer: RunCommon) -> None:
        c = self.c
        self.live_box = None
        self.built, self._building = self._building or self.reads(), None
        back, self.land_at = self.land_at, None
        self._agreed = False
        detail_current(trainer)
        c.trainer = trainer
        self.plain = self.plain if self.plain and self.plain[0] is trainer else None
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
