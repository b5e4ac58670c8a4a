"""Training on from the imported tokenizer, for the controller (engine/train/inherited.py).

The imported tokenizer (GPT-2 files, tokenizer.json, .tiktoken, a known encoding) is
the *source*: its vocabulary, ids and merges are kept, the corpus is cut by its
pre-tokenizer, each word is segmented by its merges, and N new merges are learned on
top. The result is an ``InheritedTrainer``: the window shows it like any trainer (step
k = k new merges; step 0 is the source as it was).

While the mode is on (``active``), rebuilding the trainer (a new tie rule, a new corpus,
a session) trains on again from the same source instead of from scratch; the settings
the source decides (mode, pattern, special tokens) stay its own. ``leave()`` ends it.
Building always runs as a job (segmenting with 50,000 merges is not for the GUI
thread); a source the engine refuses (its own encoder differs from its merge list)
fails the job with the engine's message, and the trainer in use stays.

:class:`TrainOn` is a part of the controller, given what it uses: the controller's state
and verbs named by :class:`TrainOnHost`, the controller's :class:`~.training.Training`
(it installs the trainer and keeps its live box and timer), and the rest passed in.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Protocol

from PySide6.QtCore import QTimer, SignalInstance

from ...engine.errors import BPEError, Cancelled, NotUTF8Error
from ...engine.tokenizers import BaseTokenizer
from ...engine.train import InheritedTrainer, inherited_settings
from ...engine.train import TrainerProtocol, TrainSettings, source_table
from .origin import FIXED_FIELDS, Origin
from .parity_setup import ParitySetup
from .corpus_source import TABLE_NAME, Corpus, NotUtf8
from .jobs import Job, JobEnd
from .runs import TrainerRuns
from .live import LiveView
from .tokenizer_files import TokenizerFiles
from .training_jobs import detail_current

FORMAT_NAMES = {"gpt2": "GPT-2 files", "hf": "tokenizer.json", "tiktoken": ".tiktoken",
                "native": "bpe-gui file", "csv": "merges CSV"}
DEFAULT_MERGES = 500


def source_label(tok: BaseTokenizer, path: str | None) -> str:
    """A short name for the source: 'cl100k_base', 'gpt2 (GPT-2 files)', ..."""
    meta = tok.meta if isinstance(tok.meta, dict) else {}
    if meta.get("encoding"):
        return str(meta["encoding"])
    p = Path(path or "imported")
    name = p.parent.name if p.name in ("vocab.json", "merges.txt", "tokenizer.json") \
        and p.parent.name else p.name
    fmt = FORMAT_NAMES.get(str(meta.get("format", "")))
    return f"{name} ({fmt})" if fmt else name


class TrainingPart(Protocol):
    """What :class:`TrainOn` uses of the controller's Training (training.py)."""

    land_at: int | None               # a session's step to come back to, after the job
    pending_step: int | None
    live_box: Any                     # the running job's trainer, for Cancel
    timer: QTimer                     # the retrain-after-an-edit timer

    def install(self, trainer: TrainerProtocol) -> None: ...
    def begin(self) -> None: ...


class TrainOnHost(Protocol):
    """What :class:`TrainOn` uses of the controller it serves."""

    corpus: Corpus
    settings: TrainSettings
    trainer: TrainerProtocol | None
    imported: BaseTokenizer | None
    imported_path: str | None
    use_imported: bool
    tokenizer_files: TokenizerFiles   # imports a session's source
    parity: ParitySetup               # parity-aware training (it excludes training on)
    message: SignalInstance
    settingsChanged: SignalInstance

    @property
    def busy(self) -> bool: ...
    @property
    def corpus_text(self) -> str: ...
    def is_table(self) -> bool: ...
    def set_playing(self, on: bool) -> None: ...
    def start(self, job: Job) -> bool: ...
    runs: TrainerRuns   # the trainer run on by jobs, and their ends


class TrainOn:
    """Train on from the imported tokenizer (see the module docstring).

    Given, besides the controller's state (``host``): its ``training`` part, how to
    report an error (``fail``), to mark the trainer out of date (``mark_stale``), to
    offer another encoding (``not_utf8``), the live view of a running trainer and the
    job runner's ``set_phase``."""

    def __init__(self, host: TrainOnHost, training: TrainingPart, *,
                 fail: Callable[[str, object], None], mark_stale: Callable[[], None],
                 not_utf8: Callable[[NotUtf8], None], live: LiveView,
                 set_phase: Callable[[str, str], None]):
        self.c = host
        self.training = training
        self._fail, self._mark_stale, self._not_utf8 = fail, mark_stale, not_utf8
        self._live, self._set_phase = live, set_phase
        self.source: BaseTokenizer | None = None   # the mode's source (None: training from scratch)
        self.label = ""
        self._box: dict = {}                   # the running job's trainer and origin
        self._made: tuple = (None, None)       # (trainer, Origin) of the last one installed
        self._before: tuple = (None, "", None)  # the mode before a job that may fail
        self.source_path: str | None = None    # the source's file (sessions keep it)
        # the corpus the trainer in use read its words from (set when a job's trainer is
        # installed: a job that failed, e.g. on an empty corpus, read nothing)
        self._table_of: Corpus | None = None
        # the settings in use before training on started (the corpus's own): leave()
        # gives them back (None: unknown, e.g. a session that was training on)
        self.scratch_settings: TrainSettings | None = None

    # ----- state ----------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.source is not None

    def origin(self) -> Origin | None:
        """Where the trainer's tokens come from, if it trained on from a tokenizer."""
        t = self.c.trainer
        if t is None:
            return None
        for trainer, origin in (self._made, (self._box.get("trainer"), self._box.get("origin"))):
            if t is trainer and origin is not None:
                return origin
        return None

    def session_source(self) -> str | None:
        """The tokenizer file a session records as trained on from (None: from scratch)."""
        if self.active and self.origin() is not None and self.source_path:
            return str(self.source_path)
        return None

    def why_not(self) -> str | None:
        """Why training on cannot start now, in words; None if it can."""
        c = self.c
        if c.imported is None:
            return ("Import a tokenizer first (File › Import tokenizer…): GPT-2 files, a "
                    "tokenizer.json, a .tiktoken file or a known encoding.")
        if not c.is_table() and (not c.corpus_text or c.corpus_text.isspace()):
            return ("The corpus is empty: open a corpus file or type some text, then train "
                    "on from the imported tokenizer.")
        if c.busy:
            return "Busy: wait for the running job or cancel it (Esc)."
        if c.parity.active:
            return ("Parity-aware training is on, and it trains on its languages' files: turn "
                    "it off in the training settings to train on from the imported tokenizer.")
        return None

    def settings_for(self, source: BaseTokenizer, base: TrainSettings) -> TrainSettings:
        """``base`` with what the source decides (mode, pattern, special tokens) and no
        pruning or SuperBPE (inherited ids stay as they are)."""
        return inherited_settings(source, replace(base, prune=False, superbpe_from=None))

    def fits(self, settings: TrainSettings) -> bool:
        """True if ``settings`` keep what the mode's source decides."""
        if self.source is None:
            return False
        want = self.settings_for(self.source, settings)
        return all(getattr(want, f) == getattr(settings, f) for f in FIXED_FIELDS)

    # ----- actions --------------------------------------------------------------------
    def start(self, num_merges: int | None = None, tie_rule: str | None = None) -> bool:
        """Train on from the imported tokenizer: ``num_merges`` new merges (default: the
        settings' number, else DEFAULT_MERGES) with ``tie_rule`` (default: the settings')."""
        c = self.c
        why, src = self.why_not(), c.imported
        if why is not None:
            self._fail("Train on from the imported tokenizer", why)
            return False
        if src is None:   # (why_not said so)
            return False
        n = num_merges if num_merges is not None else c.settings.num_merges or DEFAULT_MERGES
        base = replace(c.settings, num_merges=n, tie_rule=tie_rule or c.settings.tie_rule)
        try:
            settings = self.settings_for(src, base)
        except BPEError as e:
            self._fail("Cannot train on from this tokenizer", e)
            return False
        self.training.land_at = None
        scratch = c.settings if not self.active else self.scratch_settings
        started = self._start(src, source_label(src, c.imported_path), settings, to_target=True)
        if started:   # what was trained is what the views show next
            self.scratch_settings = scratch
            c.tokenizer_files.give_way_to_trained(
                "Train on switched this from the imported tokenizer")
        return started

    def retrain(self, quiet: bool = False, to_step: int | None = None,
                to_target: bool = False, land_at: int | None = None) -> bool:
        """The controller's retrain while the mode is on: train on again from the same
        source with the settings in use. A retrain that would run by itself after an
        edit (``quiet``) waits for Train or Step instead. Returns True only when the
        caller may go on (to a step or the target); stepping waits for the job."""
        src = self.source
        if quiet or src is None:   # (only called while the mode is on: a source)
            return False
        self.training.land_at = land_at
        started = self._start(src, self.label, self.settings_for(src, self.c.settings),
                              to_step=to_step, to_target=to_target)
        return started and bool(to_step or to_target)

    def leave(self) -> None:
        """Back to training from scratch: the next Train (or an edit of a small corpus)
        trains the corpus with the settings in the panel, now all free to change."""
        c = self.c
        if self.source is None:
            return
        was = self.label
        back = self.scratch_settings if self.fits(c.settings) else None
        self.source, self.label, self.scratch_settings = None, "", None
        if back is not None and back != c.settings:
            # the corpus's own settings: the source's (its special tokens, pattern, the
            # number of new merges) stayed behind, silently, for the next training and
            # the saved session (issue 30)
            c.settings = back
            c.message.emit(f"No longer training on from {was}: the settings you had before "
                           f"are back ({_in_words(back)}). Train (F5) trains from scratch.")
        else:   # (settings chosen since, e.g. a sample's: they stay)
            c.message.emit(f"No longer training on from {was}: Train (F5) trains from "
                           "scratch.")
        self._mark_stale()
        c.settingsChanged.emit(c.settings)   # the panel frees the fields the source decided

    def restore(self, path: str) -> bool:
        """A session trained on from the tokenizer at ``path``: import it (unless it is the
        one imported) and turn the mode on; the session's retrain then trains on."""
        c = self.c
        if c.imported is None or c.imported_path != path:
            gone = not Path(path).expanduser().exists()
            if gone or c.tokenizer_files.import_tokenizer(path) is None:   # (says why)
                if self.active:
                    self.leave()
                why = "is not there any more" if gone else "could not be loaded (see the " \
                    "message before)"
                self._fail("Session: training on not restored",
                        f"The session trained on from {path}, which {why}. Its corpus and "
                        "settings are restored and train from scratch; import the tokenizer "
                        "again and use Training › Train on from the imported tokenizer.")
                return False
        src = c.imported
        if src is None:   # (imported just above, or it returned)
            return False
        self.source, self.label = src, source_label(src, path)
        self.source_path = path
        return True

    # ----- the job --------------------------------------------------------------------
    def _start(self, src: BaseTokenizer, label: str, settings: TrainSettings,
               to_step: int | None = None, to_target: bool = False) -> bool:
        c = self.c
        c.set_playing(False)
        self.training.timer.stop()
        corpus = c.corpus
        # the trainer's own words (one this part made), when only the tie rule or the
        # target changed
        old = self.c.trainer
        table = old.table if (old is not None and self.origin() is not None
                              and self._table_of is corpus
                              and old.settings.pattern == settings.pattern
                              and old.settings.special_tokens == settings.special_tokens) \
            else None
        box: dict = {}
        origin_path = c.imported_path if src is c.imported else self.source_path
        self._before = (self.source, self.label, self.source_path)
        self.source, self.label, self.source_path = src, label, origin_path
        self.training.begin()             # the plan it is built for: training on, now
        self._box = box
        self.training.live_box = box      # Cancel keeps the merges made once it merges
        phase, live = self._set_phase, self._live

        def job(progress, cancelled):
            try:
                t = table if table is not None else source_table(
                    corpus.source, settings, progress, cancelled, where=TABLE_NAME)
            except NotUTF8Error as e:
                return NotUtf8.of(e, corpus.paths)
            phase(f"Segmenting the corpus with the merges of {label}", "")
            trainer = InheritedTrainer(src, t, settings)   # refuses a source it cannot follow
            box["origin"] = Origin(label, trainer.n_inherited, trainer.n_initial)
            box["trainer"] = trainer
            if cancelled():
                raise Cancelled()
            if to_step or to_target:
                phase(f"Learning new merges on top of {label}", "merges")
                with live.holding():
                    trainer.run(until=to_step or None, progress=live.wrap(progress),
                                cancel=cancelled, detail=False)
                    trainer.tokenizer()
            return trainer

        box["corpus"] = corpus
        what = f"Training on from {label}"
        return c.start(Job(what, job, lambda r: self._built(r, what), self._ended,
                           unit="bytes", abandon=True, owns_trainer=True,
                           title=f"Cannot train on from {label}"))

    def _built(self, result, label: str) -> None:
        c = self.c
        if isinstance(result, NotUtf8):
            self.training.live_box = None
            self._not_utf8(result)
            return
        self.training.install(result)
        self._table_of = self._box.get("corpus")
        self.training.pending_step = None
        c.runs.ran(label)

    def _ended(self, end: JobEnd) -> None:
        c = self.c
        t = self._box.get("trainer")
        if c.trainer is t and t is not None:   # done, or cancelled with its merges kept
            self._made = (t, self._box.get("origin"))
            if c.settings != t.settings:
                c.settings = t.settings
                c.settingsChanged.emit(t.settings)
            detail_current(t)
        else:   # refused, failed or dropped before it merged: the trainer in use stays
            self.source, self.label, self.source_path = self._before
        self.training.live_box = None
        c.runs.trainer_job_ended(end)


def _in_words(s: TrainSettings) -> str:
    """The settings a source decides, and the target, in a few words.

    Example: TrainSettings(vocab_size=500) -> 'vocabulary size 500, byte-level, pattern
    gpt2, no special tokens'"""
    target = f"{s.num_merges:,} merges" if s.num_merges is not None else \
        f"vocabulary size {s.vocab_size:,}"
    specials = ", ".join(s.special_tokens) if s.special_tokens else "no special tokens"
    mode = "byte-level" if s.mode == "byte" else "character-level"
    pattern = s.pattern if len(s.pattern) <= 12 else "a custom pattern"
    return f"{target}, {mode}, pattern {pattern}, {specials}"
