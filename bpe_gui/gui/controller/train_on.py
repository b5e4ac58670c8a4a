"""Training on from the imported tokenizer, for the controller (engine/train/inherited.py).

The imported tokenizer (GPT-2 files, tokenizer.json, .tiktoken, a known encoding) is
the *source*: its vocabulary, ids and merges are kept, the corpus is cut by its
pre-tokenizer, each word is segmented by its merges, and N new merges are learned on
top. The result is an ``InheritedTrainer``: the window shows it like any trainer (step
k = k new merges; step 0 is the source as it was).

While the mode is on (``active``), the training spec is ``train-on`` with this source as
its ``base`` (controller/training.py): rebuilding the trainer (a new tie rule, a new
corpus, a session) trains on again from the same source instead of from scratch; what
the source decides (mode, pattern, special tokens) is the spec's, and the panel's own
settings stay the user's. ``leave()`` ends it. The run is built by a job like any other
(segmenting with 50,000 merges is not for the GUI thread); a source the engine refuses
(its own encoder differs from its merge list) fails the job with the engine's message,
the trainer in use stays and the mode goes back to before.

:class:`TrainOn` is a part of the controller, given what it uses: the controller's state
and verbs named by :class:`TrainOnHost`, the controller's :class:`~.training.Training`
(it builds and installs the run), and the rest passed in.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Protocol

from PySide6.QtCore import SignalInstance

from ...engine.tokenizers import BaseTokenizer
from ...engine.train import TRAIN_ON, RunCommon, TrainSettings
from .origin import Origin
from .parity_setup import ParitySetup
from .corpus_source import Corpus
from .tokenizer_files import TokenizerFiles

FORMAT_NAMES = {"gpt2": "GPT-2 files", "hf": "tokenizer.json", "tiktoken": ".tiktoken",
                "native": "bpe-gui file", "csv": "merges CSV"}
DEFAULT_MERGES = 500
# the encode view's note while a training-on run shows instead of the imported tokenizer
SWITCHED = "Train on switched this from the imported tokenizer"


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

    def may_drop(self, what: str) -> bool: ...

    def retrain(self, quiet: bool = False, to_step: int | None = None,
                to_target: bool = False, land_at: int | None = None) -> bool: ...


class TrainOnHost(Protocol):
    """What :class:`TrainOn` uses of the controller it serves."""

    corpus: Corpus
    settings: TrainSettings
    trainer: RunCommon | None
    imported: BaseTokenizer | None
    imported_path: str | None
    tokenizer_files: TokenizerFiles   # imports a session's source
    parity: ParitySetup               # parity-aware training (it excludes training on)
    message: SignalInstance
    settingsChanged: SignalInstance

    @property
    def busy(self) -> bool: ...
    @property
    def corpus_text(self) -> str: ...
    def is_table(self) -> bool: ...
    def set_settings(self, settings: TrainSettings) -> bool: ...


class TrainOn:
    """Train on from the imported tokenizer (see the module docstring).

    Given, besides the controller's state (``host``): its ``training`` part (which
    builds the run of the spec, ``base`` this source), how to report an error
    (``fail``) and to mark the trainer out of date (``mark_stale``)."""

    def __init__(self, host: TrainOnHost, training: TrainingPart, *,
                 fail: Callable[[str, object], None], mark_stale: Callable[[], None]):
        self.c = host
        self.training = training
        self._fail, self._mark_stale = fail, mark_stale
        self.source: BaseTokenizer | None = None   # the mode's source (None: training from scratch)
        self.label = ""
        self.source_path: str | None = None    # the source's file (sessions keep it)
        self._labels: dict[str, str] = {}      # each source trained on: its label
        self._before: tuple = (None, "", None)  # the mode before a job that may fail
        # the settings before training on started and those it set (the number of new
        # merges, the tie rule): leave() gives the first back unless the user changed
        # the settings since
        self._scratch: tuple[TrainSettings, TrainSettings] | None = None

    # ----- state ----------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.source is not None

    @property
    def base_name(self) -> str:
        """The source as the training spec names it: its file (or known encoding)."""
        return self.source_path or self.label

    def origin(self) -> Origin | None:
        """Where the trainer's tokens come from, if it trained on from a tokenizer."""
        t = self.c.trainer
        spec = getattr(t, "spec", None)
        if t is None or spec is None or spec.mode != TRAIN_ON or not spec.base:
            return None
        return Origin(self._labels.get(spec.base, spec.base), t.n_inherited, t.n_initial)

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
        scratch = c.settings if self._scratch is None else self._scratch[0]
        settings = replace(c.settings, num_merges=n, tie_rule=tie_rule or c.settings.tie_rule)
        self._before = (self.source, self.label, self.source_path)
        self._take(src, c.imported_path)
        if settings != c.settings and not c.set_settings(settings):
            self.source, self.label, self.source_path = self._before
            return False
        self._scratch = (scratch, c.settings)
        self.training.land_at = None
        started = self.training.retrain(to_target=True)
        if started:   # what was trained is what the views show next
            c.tokenizer_files.give_way_to_trained(SWITCHED)
        return started

    def job_ended(self) -> None:
        """A training-on job ended: refused (the source's encoder does not follow its
        merges), failed or dropped before it merged, the mode goes back to before."""
        if self.origin() is None:
            self.source, self.label, self.source_path = self._before

    def end(self) -> bool:
        """Training › Train from scratch again: the run's trained steps go with the
        mode, asked first (Training.may_drop). True if it ended."""
        if self.source is None or not self.training.may_drop("Train from scratch again"):
            return False
        self.leave()
        return True

    def leave(self) -> None:
        """Back to training from scratch: the next Train (or an edit of a small corpus)
        trains the corpus with the settings in the panel, now all free to change."""
        c = self.c
        if self.source is None:
            return
        was = self.label
        scratch, self._scratch = self._scratch, None
        self.source, self.label = None, ""
        if scratch is not None and scratch[1] == c.settings and scratch[0] != c.settings:
            # the settings training on set (the number of new merges, the tie rule) give
            # way to the corpus's own, unless the user chose others since
            c.settings = scratch[0]
            c.message.emit(f"No longer training on from {was}: the settings you had before "
                           f"are back ({_in_words(scratch[0])}). Train (F5) trains from "
                           "scratch.")
        else:
            c.message.emit(f"No longer training on from {was}: Train (F5) trains from "
                           "scratch.")
        c.tokenizer_files.drop_note(SWITCHED)   # (later runs train from scratch)
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
                           "settings are restored and train from scratch; import the "
                           "tokenizer again and use Training › Train on from the imported "
                           "tokenizer.")
                return False
        src = c.imported
        if src is None:   # (imported just above, or it returned)
            return False
        self._take(src, path)
        self._scratch = None
        return True

    def _take(self, src: BaseTokenizer, path: str | None) -> None:
        """``src`` (from the file at ``path``) is the source trained on from now."""
        self.source, self.label, self.source_path = src, source_label(src, path), path
        self._labels[self.base_name] = self.label


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
