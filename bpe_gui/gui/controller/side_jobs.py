"""The controller's side jobs: work for one widget that leaves the trainer alone, run
on the controller's one job runner (its progress and Cancel in the status bar).

:class:`SideJobs` is a part of :class:`~.controller.Controller` (a mixin): each method
starts one job through ``run_side_job(kind, ...)`` and its result comes back as
``jobDone(kind, result)``, then ``jobEnded(kind, why)``. The widgets that asked take
the kinds they started:

- ``compare:A`` / ``compare:B``: another training configuration for a side of the
  compare view, trained on the corpus (text, streamed files or a word-count table);
- ``held-out-text``, ``held-out``: the charts' held-out text read from a file, and
  pre-tokenized with the trainer's pattern and special tokens;
- ``language-cost``: the per-language cost dialog's table;
- ``overlap``: the compare view's vocabulary overlap of its two sides.

(The vocabulary browser's token classes have their own module, token_classes.py.)
Widgets get the results (tokenizers, tables: engine snapshots) and never run engine
work themselves.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from ...engine import stats
from ...engine.pretokenize import Pretokenizer
from ...engine.base import BaseTokenizer as Tokenizer  # any kind: trained or imported
from ...engine.trainer import Trainer, TrainSettings
from .corpus_source import count_files

HELD_OUT_MAX_CHARS = 1_000_000
SYNC_OVERLAP = 5_000   # two vocabularies this small (in all) are compared at once


@dataclass(frozen=True)
class OtherTraining:
    """A compare side's configuration, trained (``compare:*`` jobs)."""

    tokenizer: Tokenizer
    settings: TrainSettings
    n_steps: int
    vocab_size: int
    n_chars: int       # characters of the corpus it was trained on
    seconds: float


@dataclass(frozen=True)
class HeldOutText:
    """A held-out text read from a file (``held-out-text``): at most
    HELD_OUT_MAX_CHARS characters of its start."""

    text: str
    name: str
    cut: bool          # the file holds more than that


class SideJobs:
    """Side jobs of the controller (see the module docstring)."""

    def train_other(self, settings: TrainSettings, side: str) -> bool:
        """Train ``settings`` on the corpus for compare side ``side`` (job kind
        ``compare:<side>``; result: OtherTraining). Refused (False, with errorOccurred)
        for an empty corpus or settings that cannot work; Cancel drops it at once."""
        from ...engine.errors import BPEError
        text, table, files = self.corpus_text, self.corpus_table, self.corpus_files
        kind = f"compare:{side}"
        if table is None and files is None and not text.strip():
            self.jobEnded.emit(kind, "The corpus is empty: load or type a corpus first.")
            return False
        try:
            settings = settings.validated()   # char mode's alphabet: checked when built
        except BPEError as e:
            self.jobEnded.emit(kind, str(e))
            return False

        def job(progress, cancelled):
            t0 = time.perf_counter()
            if table is not None:
                trainer = Trainer.from_counts(table, settings)
            elif files is not None:
                self.jobs.set_phase(f"Side {side}: reading and pre-tokenizing {files.names}",
                                    "bytes")
                pre = Pretokenizer(settings.pattern, settings.special_tokens)
                trainer = Trainer(count_files(files, pre, progress, cancelled), settings)
            else:
                trainer = Trainer.from_text(text, settings, cancel=cancelled)
            self.jobs.set_phase(f"Training side {side}", "merges")
            trainer.run(progress=progress, cancel=cancelled, detail=False)
            tok = trainer.tokenizer()   # its merge table built here, not on the GUI thread
            return OtherTraining(tok, settings, trainer.n_steps, trainer.vocab_size,
                                 trainer.table.n_chars, time.perf_counter() - t0)
        return self.run_side_job(kind, f"Training side {side}", job, abandon=True)

    def read_tokenizer(self, path: str, kind: str) -> bool:
        """Load a tokenizer file for one widget (e.g. ``file:A``, a compare side): a
        small file at once, a bigger one (over 1 MB) on the worker thread. Its result,
        ``(path, tokenizer)``, comes as ``jobDone(kind, ...)`` in both cases; a file
        that cannot be loaded gives ``jobEnded(kind, why)`` and False."""
        from ...engine.errors import BPEError
        from ...engine.formats import load_tokenizer

        def job(progress=None, cancelled=None):
            return path, load_tokenizer(path)
        try:
            big = Path(path).stat().st_size > (1 << 20)
        except OSError:
            big = False   # load_tokenizer says what is wrong with the path
        if big:
            return self.run_side_job(kind, f"Loading {Path(path).name}", job, abandon=True)
        try:
            result = job()
        except BPEError as e:
            self.jobEnded.emit(kind, str(e))
            return False
        self.jobDone.emit(kind, result)
        self.jobEnded.emit(kind, "")
        return True

    def compare_vocabularies(self, a: Tokenizer, b: Tokenizer) -> bool:
        """How much the vocabularies of ``a`` and ``b`` share (kind ``overlap``; result:
        ``overlap.Overlap``): at once when both are small (SYNC_OVERLAP tokens in all),
        else by a job that classifies each side's tokens (classes already known for an
        imported tokenizer are used) on copies, and yields to the user's steps."""
        from ...engine.analysis import classify_tokens
        from ...engine.overlap import vocab_overlap
        ra, rb = self.classes.known_for(a), self.classes.known_for(b)
        if len(a.vocab) + len(b.vocab) <= SYNC_OVERLAP:
            self.jobDone.emit("overlap", vocab_overlap(a, b, ra, rb))
            self.jobEnded.emit("overlap", "")
            return True
        build_a, build_b = a.copy_for_thread(), b.copy_for_thread()
        n_a, n_b = len(a.vocab), len(b.vocab)

        def job(progress, cancelled):
            ta, tb = build_a(), build_b()
            reach_a = ra or classify_tokens(ta, lambda d, _t: progress(d, n_a + n_b),
                                            cancelled)
            reach_b = rb or classify_tokens(tb, lambda d, _t: progress(n_a + d, n_a + n_b),
                                            cancelled)
            return vocab_overlap(ta, tb, reach_a, reach_b)
        return self.run_side_job("overlap", "Comparing the two vocabularies", job,
                                 yields=True)

    def read_held_out(self, path: str) -> bool:
        """Read the start of a file as the charts' held-out text (kind
        ``held-out-text``; result: HeldOutText)."""
        def job(progress, cancelled):
            from ...engine.files import read_head
            text, complete = read_head(path, 4 * HELD_OUT_MAX_CHARS)
            cut = not complete or len(text) > HELD_OUT_MAX_CHARS
            return HeldOutText(text[:HELD_OUT_MAX_CHARS], Path(path).name, cut)
        return self.run_side_job("held-out-text", f"Reading {Path(path).name}", job,
                                 abandon=True)

    def prepare_held_out(self, text: str, pattern: str, special_tokens: Sequence[str],
                         key=None) -> bool:
        """Pre-tokenize a held-out text with a trainer's pattern and special tokens
        (kind ``held-out``; result: ``(key, stats.HeldOut)``)."""
        specials = tuple(special_tokens)

        def job(progress, cancelled):
            return key, stats.held_out(text, pattern, specials)
        return self.run_side_job("held-out", "Pre-tokenizing the held-out text", job,
                                 yields=True)

    def measure_language_cost(self, folder: str, tokenizers: Mapping[str, object],
                              reference: str | None) -> bool:
        """Per-language cost of a folder's texts for each tokenizer (a Tokenizer, or a
        path loaded on the worker thread): kind ``language-cost``; result: a
        ``langcost.CostTable``."""
        builds = {k: v.copy_for_thread() if isinstance(v, Tokenizer) else v
                  for k, v in tokenizers.items()}

        def job(progress, cancelled):
            from ...engine.formats import load_tokenizer
            from ...engine.langcost import language_cost
            loaded = {k: load_tokenizer(v) if isinstance(v, str) else v()
                      for k, v in builds.items()}
            return language_cost(folder, loaded, reference=reference, progress=progress,
                                 cancel=cancelled)
        return self.run_side_job("language-cost", "Per-language cost", job)
