"""Check a learner's merges against the reference trained here on the same corpus.

:func:`check_merges` trains the reference with the settings the learner's file implies
(or those given), finds the first merge where the two lists part, and diagnoses it:
first what needs no training (a merge whose halves are not tokens yet; a vocabulary
size off by the special tokens), then each usual cause as a run of its own
(causes.py). When another setting of the trainer reproduces every one of the learner's
merges, the report says which (search.py).

Example::

    >>> report = check_merges(read_result("their/"), Path("corpus.txt"))
    >>> report.agree, report.difference.step, report.difference.cause
    (False, 3, 'tie')
"""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from .. import Trainer, TrainSettings
from ..errors import CancelFn, ProgressFn, SettingsError
from . import sentences
from .causes import also, likely, pattern_label, try_causes
from .lab import CheckCorpus, CheckLimits, Lab, Run
from .report import Attempt, CheckReport, Difference, FoundSettings, PairWord, common_prefix
from .result import LearnerResult
from .search import found_in, search_settings
from .sentences import Scene
from .variants import count_word

Pair = tuple[bytes, bytes]
WORDS_LIMIT = 40   # words listed per pair at the difference


def check_merges(result: LearnerResult, corpus: "str | Path | Sequence[str | Path]", *,
                 vocab_size: int | None = None, pattern: str | None = None,
                 special_tokens: Sequence[str] | None = None, mode: str | None = None,
                 end_of_word: str | None = None, tie_rule: str | None = None,
                 limits: CheckLimits | None = None,
                 progress: ProgressFn | None = None, cancel: CancelFn | None = None) -> CheckReport:
    """Hold ``result``'s merges against the reference trained on ``corpus`` (a text, or
    a path or paths of files). Settings not given come from the file (pattern, special
    tokens) or are the defaults (byte level, GPT-2's pattern, the greatest pair wins a
    tie, as many merges as the learner's). ``progress(done, total)`` counts the causes
    tried; ``cancel()`` stops with Cancelled.
    """
    t0 = time.perf_counter()
    limits = limits or CheckLimits()
    settings, said = implied_settings(result, vocab_size=vocab_size, pattern=pattern,
                                      special_tokens=special_tokens, mode=mode,
                                      end_of_word=end_of_word, tie_rule=tie_rule)
    theirs = tuple(result.merges)
    lab = Lab(CheckCorpus(corpus, limits), replace(settings, vocab_size=None,
                                                   num_merges=max(len(theirs), 1)),
              theirs, limits, cancel)
    reference = lab.engine_run("reference", "", "the reference", settings)
    ours = reference.merges
    notes = list(result.notes) + _vocab_notes(result, settings)
    diff: Difference | None = None
    attempts: list[Attempt] = []
    found = None
    k = common_prefix(theirs, ours) + 1
    if k <= max(len(theirs), len(ours)):
        diff, attempts, best = _diagnose(lab, result, reference, k, vocab_size, progress)
        if diff.cause == "vocab-size":
            found = _size_found(lab, settings)
        elif best is not None and best.merges == theirs:
            found = found_in(lab, best)   # (None: a way of counting, not a setting)
        elif diff.cause != "not-a-pair":
            found = search_settings(lab)
    notes += lab.notes
    return CheckReport(result.path, result.format, settings, tuple(said), theirs, ours,
                       reference.counts, diff, found, tuple(attempts), tuple(notes),
                       time.perf_counter() - t0)


def implied_settings(result: LearnerResult, *, vocab_size=None, pattern=None,
                     special_tokens=None, mode=None, end_of_word=None, tie_rule=None
                     ) -> tuple[TrainSettings, list[str]]:
    """The reference's settings, and where each came from (in words)."""
    said = []
    if pattern is not None:
        said.append(f"pattern: {pattern_label(pattern)} (given)")
    elif result.pattern is not None:
        pattern = result.pattern
        said.append(f"pattern: {pattern_label(pattern)} (from {result.name})")
    else:
        pattern = "gpt2"
        said.append(f"pattern: {pattern_label(pattern)} ({result.name} records none; give "
                    "yours if it differs)")
    if special_tokens is not None:
        specials = tuple(special_tokens)
        said.append(f"special tokens: {', '.join(specials) or 'none'} (given)")
    else:
        specials = result.special_tokens
        said.append(f"special tokens: {', '.join(specials) or 'none'} (from {result.name})")
    mode = mode or "byte"
    if mode == "byte":
        said.append("mode: byte-level")
    else:
        end_of_word = end_of_word or _end_of_word(result)
        said.append(f"mode: character-level, </w> {'after' if end_of_word == 'suffix' else 'before'}"
                    " each word")
    tie_rule = tie_rule or "greatest"
    said.append(f"tie rule: {tie_rule}")
    num_merges = None if vocab_size is not None else len(result.merges)
    if vocab_size is not None:
        said.append(f"vocabulary size: {vocab_size:,} (given)")
    else:
        said.append(f"merges: {len(result.merges):,} (as many as yours)")
    try:
        settings = TrainSettings(vocab_size=vocab_size, num_merges=num_merges, pattern=pattern,
                                 special_tokens=specials, mode=mode,
                                 end_of_word=end_of_word or "suffix",
                                 tie_rule=tie_rule).validated()
    except SettingsError as e:
        raise SettingsError(f"The reference cannot be trained with these settings: {e}") from None
    return settings, said


def _end_of_word(result: LearnerResult) -> str:
    """Character mode: where the learner's merges put </w> (suffix when none says).
    Example: a merge (b"</w>", b"l") -> "prefix"."""
    eow = b"</w>"
    if any(a == eow for a, _ in result.merges) or \
            any(t.startswith(eow) and t != eow for t in result.vocab.values()):
        return "prefix"
    return "suffix"


def _vocab_notes(result: LearnerResult, settings: TrainSettings) -> list[str]:
    notes = []
    singles = {t[0] for t in result.vocab.values() if len(t) == 1}
    if settings.mode == "byte" and len(singles) < 256:
        notes.append(f"Your vocabulary holds {len(singles)} of the 256 single bytes; byte-level "
                     "BPE starts from all 256.")
    expected = 256 + len(settings.special_tokens) + len(result.merges)
    if settings.mode == "byte" and len(result.vocab) != expected:
        notes.append(f"Your vocabulary has {len(result.vocab):,} tokens; 256 bytes + "
                     f"{len(settings.special_tokens)} special token(s) + {len(result.merges):,} "
                     f"merges make {expected:,}.")
    return notes


# ----- the diagnosis ------------------------------------------------------------------------
def _diagnose(lab: Lab, result: LearnerResult, reference: Run, k: int,
              vocab_size: int | None, progress
              ) -> tuple[Difference, list[Attempt], Run | None]:
    theirs, ours = lab.theirs, reference.merges
    s = lab.settings
    t_pair = theirs[k - 1] if k <= len(theirs) else None
    o_pair = ours[k - 1] if k <= len(ours) else None
    state = _state_at(lab, k - 1)
    t_count = state.count(t_pair)
    o_count = reference.counts[k - 1] if o_pair is not None else None
    n_tied = state.n_tied
    scene = Scene(k, t_pair, o_pair, t_count, o_count, n_tied, len(theirs), s)
    words = (state.words(t_pair), state.words(o_pair))

    def made(cause: str, sentence: str, run: Run | None = None, reach: int = 0) -> Difference:
        return Difference(k, t_pair, o_pair, t_count, o_count, cause, sentence,
                          run.label if run is not None else "", reach, n_tied, *words)

    missing = _not_tokens(theirs, k, s.mode, lab) if t_pair is not None else []
    if missing:
        attempts: list[Attempt] = []
        run: Run | None = None
        if any(_one_char(t) for t in missing) and s.mode == "byte":
            attempts, run = try_causes(lab, k, theirs, False, ["chars"], progress)
            run = run if run is not None and run.cause == "chars" else None
        if run is not None:
            reach = run.reach(theirs)
            return made("chars", sentences.chars(replace(scene, run=run, reach=reach)), run,
                        reach), attempts, run
        return made("not-a-pair", sentences.not_a_pair(scene, missing)), attempts, None
    n_specials = len(s.special_tokens)
    if (t_pair is None or o_pair is None) and vocab_size is not None and n_specials and \
            abs(len(theirs) - len(ours)) == n_specials and k == min(len(theirs), len(ours)) + 1:
        return made("vocab-size", sentences.vocab_size(scene, vocab_size, 256, len(ours))), \
            [], None
    tied = t_count is not None and o_count is not None and t_count == o_count
    attempts, run = try_causes(lab, k, theirs, tied, likely(t_pair, o_pair, tied, s), progress)
    if run is not None:
        reach = run.reach(theirs)
        sc = replace(scene, run=run, reach=reach)
        if run.rules is not None and run.rules.counting != "adjacent":
            x = sentences.repeated(scene)
            sc = replace(sc, recount=(state.count((x, x)) or 0,
                                      state.count((x, x), run.rules.counting) or 0))
        say = {"tie": sentences.tie, "specials": sentences.specials,
               "boundaries": sentences.boundaries, "pattern": sentences.pattern,
               "overlap": sentences.overlap, "chars": sentences.chars}[run.cause]
        diff = made(run.cause, say(sc), run, reach)
        if reach < len(theirs):
            what, further = also(lab, run, theirs)
            if what:
                diff = replace(diff, also=sentences.also(what, run.label, further, len(theirs)))
        return diff, attempts, run
    if tied:
        return made("tie", sentences.tie(scene)), attempts, None
    if t_pair is None or o_pair is None:
        why = state.stop_reason if o_pair is None else (
            f"target {s.vocab_size:,} tokens" if s.vocab_size else "its target")
        return made("length", sentences.length(scene, len(ours), why)), attempts, None
    return made("unknown", sentences.unknown(scene)), attempts, None


def _one_char(t: bytes) -> bool:
    try:
        return len(t) > 1 and len(t.decode("utf-8")) == 1
    except UnicodeDecodeError:
        return False


def _not_tokens(theirs: Sequence[Pair], k: int, mode: str, lab: Lab) -> list[bytes]:
    """The halves of merge k that are no token after the first k-1 merges."""
    if mode == "byte":
        known = {bytes([b]) for b in range(256)}
    else:
        known = set(Trainer(lab.table(lab.settings), lab.settings).vocab_bytes)
    known.update(a + b for a, b in theirs[:k - 1])
    return [t for t in dict.fromkeys(theirs[k - 1]) if t not in known]


class _State:
    """The reference after the merges both sides share: pair counts (as the reference
    counts them), the tie at the next step, the words where a pair occurs."""

    def __init__(self, lab: Lab, step: int):
        s = lab.settings
        self.table = lab.table(s)
        self.trainer = Trainer(self.table, s)
        self.trainer.run(until=step, detail=False, cancel=lab.cancel)
        nxt = self.trainer.next_choice()
        self.n_tied = nxt.n_tied if nxt is not None else 0
        stop = self.trainer.stop()
        self.stop_reason = stop.short if stop is not None else "its target"
        self._tok = self.trainer.tokenizer()
        self._segs: list[tuple[str, int, tuple[bytes, ...]]] | None = None

    def _segments(self) -> list[tuple[str, int, tuple[bytes, ...]]]:
        if self._segs is None:
            tok, vocab = self._tok, self._tok.vocab
            self._segs = [(w, f, tuple(vocab[i] for i in tok.encode_word(w)))
                          for w, f in zip(self.table.words, self.table.freqs)]
        return self._segs

    def count(self, pair: Pair | None, counting: str = "adjacent") -> int | None:
        """Occurrences of ``pair`` in all words, weighted, counted as the reference counts
        (every adjacent place) or by another rule of variants.py; None for no pair."""
        if pair is None:
            return None
        total = 0
        for _, f, syms in self._segments():
            if pair[0] in syms:
                total += f * count_word(syms, counting).get(pair, 0)
        return total

    def words(self, pair: Pair | None) -> tuple[PairWord, ...]:
        """The words holding ``pair`` now, most frequent first."""
        if pair is None:
            return ()
        out = []
        for w, f, syms in self._segments():
            at = tuple(i for i in range(len(syms) - 1) if (syms[i], syms[i + 1]) == pair)
            if at:
                out.append(PairWord(w, f, syms, at))
        out.sort(key=lambda pw: -pw.freq)
        return tuple(out[:WORDS_LIMIT])


def _state_at(lab: Lab, step: int) -> _State:
    return _State(lab, step)


def _size_found(lab: Lab, settings: TrainSettings) -> FoundSettings | None:
    """Vocabulary size off by the special tokens: their merges are the reference's with
    the size that leaves the special tokens out."""
    n = len(lab.theirs)
    run = lab.engine_run("size", "vocab-size", f"{n} merges", replace(lab.settings, num_merges=n))
    if run.merges != lab.theirs:
        return None
    size = 256 + len(settings.special_tokens) + n
    return FoundSettings(replace(settings, vocab_size=size, num_merges=None),
                         (f"vocabulary size {size:,}",),
                         f"Your merges are exactly the reference's with vocabulary size "
                         f"{size:,} ({n:,} merges).")
