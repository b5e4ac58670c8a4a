"""Side jobs: work for one widget that leaves the trainer alone, run on the
controller's one job runner (its progress and Cancel in the status bar).

:class:`SideJobs` is given what it needs (start a :class:`~.jobs.Job`, the corpus, the
runner's phase label, the token classes). Each method takes the asking widget's own
``on_done(result)`` and ``on_end(JobEnd)`` callbacks; nothing is told apart by a name:

- ``train_other``: another training configuration for a side of the compare view,
  trained on the corpus (text, streamed files or a word-count table): OtherTraining;
- ``read_tokenizer``: a tokenizer file for a compare side: (path, tokenizer);
- ``read_held_out``, ``prepare_held_out``: the charts' held-out text read from a file
  (HeldOutText), and pre-tokenized with the trainer's pattern and special tokens;
- ``measure_language_cost``: the per-language cost dialog's table;
- ``compare_vocabularies``: the compare view's vocabulary overlap of its two sides;
- ``measure_dead_weight``: the vocabulary browser's dead weight (IoS) of a tokenizer on
  the window's corpus or on files (DeadWeightRun);
- ``infer_training_mixture``: the "What was it trained on?" dialog's category
  proportions of a tokenizer's training data, from its merge order (MixtureRun);
- ``encode_files``: the "Encode files to ids" dialog's file of ids (its sidecar's
  content: ``Tokenizer.encode_files``).

(The vocabulary browser's token classes have their own module, token_classes.py.)
Widgets get the results (tokenizers, tables: engine snapshots) and never run engine
work themselves.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ...engine import analysis
from ...engine.analysis import classify_tokens
from ...engine.tokenizers import BaseTokenizer as Tokenizer  # any kind: trained or imported
from ...engine.errors import BPEError, Cancelled
from ...engine.corpus import read_documents, read_head
from ...engine.formats import load_tokenizer
from ...engine.analysis import language_cost
from ...engine.analysis import vocab_overlap
from ...engine.train import TrainSettings, build_run
from .corpus_source import TABLE_NAME, Corpus, corpus_spec
from .jobs import Done, Ended, Job, JobEnd, Outcome, phased, refused


HELD_OUT_MAX_CHARS = 1_000_000
# what dead weight's progress stages count, as the status bar says them
DEAD_STAGES = {"reading": ("Dead weight: cutting {what} into pieces", "chars"),
               "files": ("Dead weight: cutting {what} into pieces", "bytes"),
               "merging": ("Dead weight: merging the distinct pieces", "")}
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


@dataclass(frozen=True)
class DeadWeightRun:
    """Dead weight measured for the browser (``measure_dead_weight``): the counts, what
    they were measured on, and the key the browser asked with."""

    dead: analysis.DeadWeight
    corpus: str        # in words: "the corpus in the window", "notes.txt and 2 more"
    key: object


@dataclass(frozen=True)
class MixtureRun:
    """A data-mixture inference for the dialog (``infer_training_mixture``)."""

    result: analysis.MixtureResult
    tokenizer: str     # which tokenizer, in words
    seconds: float


# what the mixture inference's progress stages count, as the status bar says them
MIXTURE_STAGES = {"count": ("What was it trained on? Counting each sample's words",
                            "categories"),
                  "replay": ("What was it trained on? Replaying the merges on the samples",
                             "merges"),
                  "solve": ("What was it trained on? Solving the linear program", "rounds")}


def _at_once(result, on_done: Done, on_end: Ended) -> bool:
    on_done(result)
    on_end(JobEnd(Outcome.DONE))
    return True


class SideJobs:
    """Side jobs of the controller (see the module docstring)."""

    def __init__(self, start: Callable[[Job], bool], corpus: Callable[[], Corpus],
                 set_phase: Callable[[str, str], None], classes):
        self._start, self._corpus, self._phase, self._classes = start, corpus, set_phase, classes

    def train_other(self, settings: TrainSettings, side: str, on_done: Done,
                    on_end: Ended) -> bool:
        """Train ``settings`` on the corpus for compare side ``side`` (result:
        OtherTraining). Refused (False, a FAILED end) for an empty corpus or settings
        that cannot work; Cancel drops it at once."""
        corpus, phase = self._corpus(), self._phase
        if not corpus.streamed and corpus.table is None and not corpus.text.strip():
            return refused(on_end, "The corpus is empty: load or type a corpus first.")
        try:
            settings = settings.validated()   # char mode's alphabet: checked when built
        except BPEError as e:
            return refused(on_end, str(e))

        def job(progress, cancelled):
            t0 = time.perf_counter()
            if corpus.streamed:
                phase(f"Side {side}: reading and pre-tokenizing {corpus.names}", "bytes")
            trainer = build_run(corpus_spec(settings, corpus),
                                lambda _phase, done, total: progress(done, total), cancelled,
                                where=TABLE_NAME, table=corpus.table)
            phase(f"Training side {side}", "merges")
            trainer.run(progress=progress, cancel=cancelled, detail=False)
            tok = trainer.tokenizer()   # its merge table built here, not on the GUI thread
            return OtherTraining(tok, settings, trainer.n_steps, trainer.vocab_size,
                                 trainer.table.n_chars, time.perf_counter() - t0)
        return self._start(Job(f"Training side {side}", job, on_done, on_end, abandon=True))

    def read_tokenizer(self, path: str, on_done: Done, on_end: Ended) -> bool:
        """Load a tokenizer file for one widget (e.g. a compare side): a small file at
        once, a bigger one (over 1 MB) on the worker thread. Its result, ``(path,
        tokenizer)``, goes to ``on_done`` in both cases; a file that cannot be loaded
        ends FAILED with why (and False)."""
        def job(progress=None, cancelled=None):
            return path, load_tokenizer(path)
        try:
            big = Path(path).stat().st_size > (1 << 20)
        except OSError:
            big = False   # load_tokenizer says what is wrong with the path
        if big:
            return self._start(Job(f"Loading {Path(path).name}", job, on_done, on_end,
                                   abandon=True))
        try:
            result = job()
        except BPEError as e:
            return refused(on_end, str(e))
        return _at_once(result, on_done, on_end)

    def compare_vocabularies(self, a: Tokenizer, b: Tokenizer, on_done: Done,
                             on_end: Ended) -> bool:
        """How much the vocabularies of ``a`` and ``b`` share (result:
        ``overlap.Overlap``): at once when both are small (SYNC_OVERLAP tokens in all),
        else by a job that classifies each side's tokens (classes already known for an
        imported tokenizer are used) on copies, and yields to the user's steps."""
        ra, rb = self._classes.known_for(a), self._classes.known_for(b)
        if len(a.vocab) + len(b.vocab) <= SYNC_OVERLAP:
            return _at_once(vocab_overlap(a, b, ra, rb), on_done, on_end)
        build_a, build_b = a.copy_for_thread(), b.copy_for_thread()
        n_a, n_b = len(a.vocab), len(b.vocab)

        def job(progress, cancelled):
            ta, tb = build_a(), build_b()
            reach_a = ra or classify_tokens(ta, lambda d, _t: progress(d, n_a + n_b),
                                            cancelled)
            reach_b = rb or classify_tokens(tb, lambda d, _t: progress(n_a + d, n_a + n_b),
                                            cancelled)
            return vocab_overlap(ta, tb, reach_a, reach_b)
        return self._start(Job("Comparing the two vocabularies", job, on_done, on_end,
                               yields=True))

    def read_held_out(self, path: str, on_done: Done, on_end: Ended) -> bool:
        """Read the start of a file as the charts' held-out text (result: HeldOutText)."""
        def job(progress, cancelled):
            text, complete = read_head(path, 4 * HELD_OUT_MAX_CHARS)
            cut = not complete or len(text) > HELD_OUT_MAX_CHARS
            return HeldOutText(text[:HELD_OUT_MAX_CHARS], Path(path).name, cut)
        return self._start(Job(f"Reading {Path(path).name}", job, on_done, on_end,
                               abandon=True))

    def prepare_held_out(self, text: str, pattern: str, special_tokens: Sequence[str],
                         on_done: Done, on_end: Ended) -> bool:
        """Pre-tokenize a held-out text with a trainer's pattern and special tokens
        (result: ``analysis.HeldOut``)."""
        specials = tuple(special_tokens)

        def job(progress, cancelled):
            return analysis.held_out(text, pattern, specials)
        return self._start(Job("Pre-tokenizing the held-out text", job, on_done, on_end,
                               yields=True))

    def measure_language_cost(self, folder: str, tokenizers: Mapping[str, object],
                              reference: str | None, on_done: Done, on_end: Ended) -> bool:
        """Per-language cost of a folder's texts for each tokenizer (a Tokenizer, or a
        path loaded on the worker thread); result: a ``analysis.CostTable``."""
        builds = {k: v.copy_for_thread() if isinstance(v, Tokenizer) else v
                  for k, v in tokenizers.items()}

        def job(progress, cancelled):
            loaded = {k: load_tokenizer(v) if isinstance(v, str) else v()
                      for k, v in builds.items()}
            return language_cost(folder, loaded, reference=reference, progress=progress,
                                 cancel=cancelled)
        return self._start(Job("Per-language cost", job, on_done, on_end))

    def measure_dead_weight(self, tok: Tokenizer, key: object, paths: Sequence[str],
                            trained: bool, on_done: Done, on_end: Ended) -> bool:
        """Each token's output and merged-further counts (``analysis.dead_weight``) for
        ``tok`` on ``paths`` (their documents), or on the window's corpus when there are
        none: its text, its streamed files, or (``trained``: ``tok`` is the trained
        tokenizer, whose pattern cut the table's words) its word-count table. Result:
        DeadWeightRun; Cancel drops it (it builds something new, from a copy)."""
        corpus, phase = self._corpus(), self._phase
        if not paths and corpus.table is not None and not trained:
            return refused(on_end, "The corpus is a word-count table: its words are cut "
                            "by the trained tokenizer's pattern, not this tokenizer's. "
                            "Pick files with Other corpus… to measure this one.")
        if not paths and not corpus.streamed and corpus.table is None and \
                not corpus.text.strip():
            return refused(on_end, "The corpus is empty: load or type a corpus first, or "
                            "pick files with Other corpus….")
        build = tok.copy_for_thread()
        files = tuple(paths) or (corpus.paths if corpus.streamed else ())
        encoding = getattr(corpus, "encoding", "utf-8") if not paths else "utf-8"
        what = (", ".join(Path(p).name for p in files[:2]) +
                (f" and {len(files) - 2} more" if len(files) > 2 else "")) if files \
            else "the corpus in the window"
        table = corpus.table if not paths else None
        text = corpus.text if not files and table is None else ""

        def job(progress, cancelled):
            t = build()
            def stage(name: str) -> tuple[str, str]:
                label, unit = DEAD_STAGES.get(name, (name, ""))
                return label.format(what=what), unit
            report = phased(progress, phase, stage)
            if table is not None:
                dw = analysis.dead_weight_of_pieces(t, zip(table.words, table.freqs),
                                                    n_chars=table.n_chars, progress=report,
                                                    cancel=cancelled)
            elif files and encoding.lower().replace("-", "") in ("utf8", "utf8sig"):
                dw = analysis.dead_weight_of_files(t, files, progress=report,
                                                   cancel=cancelled)
            elif files:   # converted from the corpus's encoding, a file at a time
                docs = (d for p in files for d in read_documents(p, encoding))
                dw = analysis.dead_weight_of(t, docs, progress=report, cancel=cancelled)
            else:
                dw = analysis.dead_weight_of(t, text, progress=report, cancel=cancelled,
                                             total_chars=len(text))
            return DeadWeightRun(dw, what, key)
        return self._start(Job(f"Dead weight on {what}", job, on_done, on_end,
                               abandon=True, yields=trained))

    def encode_files(self, tok: Tokenizer, paths: Sequence[str], out: str, field: str,
                     separator: str | None, eot: int | None, on_done: Done,
                     on_end: Ended) -> bool:
        """The documents of ``paths`` to a file of ids at ``out`` (written whole or not at
        all: Cancel leaves nothing); result: its sidecar's content."""
        build = tok.copy_for_thread()

        def job(progress, cancelled):
            def report(done: int, total: int) -> None:
                if cancelled():
                    raise Cancelled()
                progress(done, total)
            return build().encode_files(list(paths), out, field=field, separator=separator,
                                        eot=eot, progress=report)
        return self._start(Job(f"Encoding {len(paths)} file(s) to ids", job, on_done, on_end,
                               unit="bytes"))

    def infer_training_mixture(self, tok: Tokenizer, name: str,
                               samples: Mapping[str, Sequence[str]], merges: int | None,
                               on_done: Done, on_end: Ended,
                               max_rounds: int | None = None) -> bool:
        """The category proportions of ``tok``'s training data (``analysis.infer_mixture``)
        from one sample per category (``samples``: category -> its files, read on the
        worker thread). Refused at once (False, a FAILED end, the reason) for a tokenizer
        the method does not apply to, without SciPy, or fewer than two categories; Cancel
        drops it. ``max_rounds``: the linear program's limit (None: until optimal)."""
        why = analysis.mixture_refusal(tok)
        if why is None:
            try:
                analysis.check_solver()
            except BPEError as e:   # SciPy not installed: say how to add it
                why = str(e)
        if why is None and len(samples) < 2:
            why = ("Give samples of at least two categories: the method compares "
                   "categories (one category would get the whole share).")
        if why is not None:
            return refused(on_end, why)
        build, phase = tok.copy_for_thread(), self._phase
        files = {k: tuple(v) for k, v in samples.items()}

        def job(progress, cancelled):
            t0 = time.perf_counter()
            phase("What was it trained on? Reading the samples", "categories")
            texts: dict[str, str] = {}
            for i, (cat, paths) in enumerate(files.items()):
                if cancelled():
                    raise Cancelled()
                progress(i, len(files))
                texts[cat] = analysis.read_sample(paths, cat)
            report = phased(progress, phase, lambda step: MIXTURE_STAGES.get(step, (step, "")))
            result = analysis.infer_mixture(build(), texts, merges=merges, progress=report,
                                            cancel=cancelled, max_rounds=max_rounds)
            return MixtureRun(result, name, time.perf_counter() - t0)
        return self._start(Job("What was it trained on?", job, on_done, on_end,
                               abandon=True))
