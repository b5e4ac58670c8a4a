"""SuperBPE (Liu et al. 2025, arXiv 2503.13423): subwords first, then superwords.

Stage 1 is ordinary BPE with the chosen pre-tokenizer, up to merge T (the transition).
Stage 2 keeps those T merges and trains on with a pre-tokenizer that no longer splits at
whitespace, so tokens can bridge spaces (" of the", ". The"). The rules are those of the
reference code (github.com/PythonNut/superbpe, scripts/extend_tokenizer.sh, and its
``tokenizers`` fork, alisawuffles/tokenizers-superbpe, BpeTrainer::do_train_extend):

- Stage-2 pieces: the reference's ``Split`` regex ``\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]{2,}
  [\\r\\n/]*| +(?!\\S)`` in "isolated" behaviour: its matches (1-3 digits, runs of two or
  more punctuation marks, spaces before whitespace) *and the text between them* are the
  pieces. So letters, single spaces and single punctuation marks join into long pieces.
- Training reads the corpus line by line (``tokenizers`` trains on lines), so no
  training piece crosses a newline; a piece may end with one. :data:`TRAIN_PATTERN` says
  exactly that as one findall pattern; encoding uses the split regex over the whole text,
  as the reference's ``tokenizer.json`` does (:data:`ENCODE_PATTERN`).
- A stage-2 merge is skipped (never made) when its token contains ``": "`` or holds more
  than :data:`MAX_WORDS` space-separated words (the fork's "mw4_colon" rules).

How the skip is made without changing the C core: a skipped pair can never be merged
later either (a longer token around it has as many words and keeps the colon), so the
boundary between its two tokens is never crossed. Cutting the word there at the step
the pair comes up changes no count but the skipped pairs' (at that step only they
straddle the cut; later, only pairs holding them would). So ``": "`` is cut before
training, and when a skipped pair reaches the top, every skipped pair among the leading
candidates is cut wherever it occurs and a new core is built from the words as they are
(a cut applied from step 0 would not do: overlapping runs such as " . . . ." count pairs
across it that are never merged). Undo below such a step rebuilds from step 0 through
the recorded cuts. Step, undo and every tie rule work as in any Trainer.
"""
from __future__ import annotations

from array import array
from functools import lru_cache
from typing import Iterator, Sequence

from ..errors import SettingsError
from ..corpus.table import PretokenTable
from ..text.pretokenize import Pretokenizer
from ..text.presets import SUPERBPE_ENCODE_PATTERN, SUPERBPE_TRAIN_PATTERN
from .superbpe_skips import OffsetCore, cut_parts, cut_table_words, part_texts, words_holding
from ..tokenizers.base import BaseTokenizer
from .inherited import InheritedTrainer
from .trainer import SUPERBPE_PRUNE, TrainSettings, new_core

MAX_WORDS = 4
#: the split regex with the text between its matches as pieces too, over the whole text
ENCODE_PATTERN = SUPERBPE_ENCODE_PATTERN
#: the same, never across a newline (a line, newline included, is a training sequence);
#: the native scanner cuts it (kind "superbpe2"), so stage 2 counts like stage 1
TRAIN_PATTERN = SUPERBPE_TRAIN_PATTERN
LOOK_AHEAD = 4096   # candidates checked for skipped pairs at each rebuild


def skipped(token: bytes) -> bool:
    """True when stage 2 never makes ``token`` (:func:`skip_reason` says why)."""
    return skip_reason(token) is not None


def skip_reason(token: bytes) -> str | None:
    """Why stage 2 never makes ``token``, in a few words, or None if it may.

    Example: skip_reason(b"note: the") -> 'it would hold ": "';
    skip_reason(b" a b c d e") -> 'it would hold 5 words (at most 4)'
    """
    if b": " in token:
        return 'it would hold ": "'
    n = sum(1 for w in token.split(b" ") if w)
    return f"it would hold {n} words (at most {MAX_WORDS})" if n > MAX_WORDS else None


class SuperBPETrainer(InheritedTrainer):
    """Stage 2: trains on from the stage-1 tokenizer (its first T merges) over words cut
    by :data:`TRAIN_PATTERN`; the tokenizers it gives use :data:`ENCODE_PATTERN`.
    ``stage1_steps``: stage 1's records when trained here (else empty);
    ``n_rebuilds``: how often skipped pairs made the core be rebuilt."""

    stage1_steps: tuple = ()

    def __init__(self, stage1: BaseTokenizer, table: PretokenTable,
                 settings: TrainSettings | None = None):
        self._log: list[tuple[int, frozenset]] = []   # (step, pairs cut there)
        self._fine: set[tuple[int, int]] = set()      # pairs stage 2 may merge (settle)
        super().__init__(stage1, table, settings, pattern=ENCODE_PATTERN, check=False)
        self.core = OffsetCore(self.core, 0)
        self.n_rebuilds = 0
        self.settle()

    def _initial_state(self, table: PretokenTable, s: TrainSettings) -> tuple:
        token_bytes, symbols, starts, freqs = super()._initial_state(table, s)
        self._seg = (symbols, starts, freqs)   # each table word, segmented by stage 1
        self._origin = (array("q", range(len(freqs))), array("q", bytes(8 * len(freqs))))
        return (token_bytes, *self._first_parts(token_bytes))

    def _first_parts(self, token_bytes) -> tuple:
        """The words at step 0, cut wherever a skipped pair of stage-1 tokens meets (in
        practice ": ", which no later token may bridge either)."""
        symbols, starts, freqs = self._seg
        cand = words_holding(self.table, [b": "])
        if not cand:
            return symbols, starts, freqs
        @lru_cache(maxsize=1 << 16)   # the same few pairs recur in every such word
        def bad(a: int, b: int) -> bool:
            return skipped(token_bytes[a] + token_bytes[b])

        out = cut_table_words(self._seg, cand, bad, token_bytes)
        self._origin, self._word_texts = out[3], None
        return out[:3]

    @property
    def word_texts(self) -> list[str]:
        """The text of each word the core holds (parts of table words after cuts)."""
        if self._word_texts is None:
            self._word_texts = part_texts(self.table, self._origin)
        return self._word_texts

    # ----- skips (superbpe_skips.py) ------------------------------------------------
    def _cut(self, cand, bad, tokens) -> tuple:
        """The parts as the core holds them now, those of table words in ``cand`` cut."""
        symbols, starts = array("i"), array("q")
        for arr, raw in zip((symbols, starts), self.core.segmentation()):
            arr.frombytes(raw)
        symbols, starts, freqs, self._origin = cut_parts(
            self._origin, (symbols, starts, self._freqs), cand, bad, tokens)
        self._word_texts = None
        return symbols, starts, freqs

    def skip_reason(self, a: int, b: int) -> str | None:
        """Why stage 2 never merges the pair (a, b) of the current tokens, or None."""
        return skip_reason(self.vocab_bytes[a] + self.vocab_bytes[b])

    def settle(self) -> None:
        """Until the best pair is one stage 2 may merge: cut the words between the tokens
        of every skipped pair among the leading candidates and rebuild the core there
        (step does it before merging; the run after it, so ``next_choice`` and
        ``top_pairs`` show the pair stage 2 takes)."""
        while True:
            best = self.core.best()
            if best is None or self.skip_reason(best[0], best[1]) is None:
                return
            bad = frozenset(self._skipped_among(self.core.top(LOOK_AHEAD)))
            self._log.append((self.n_steps, bad))
            self._rebuild(bad, self.n_steps)

    def _skipped_among(self, pairs: list) -> Iterator[tuple[int, int]]:
        """The pairs (a, b, count) stage 2 never merges, as (a, b). A pair found fine is
        not asked about again while its ids keep their tokens: below the core's first
        step (an undo below it restarts, and forgets them)."""
        stable = self.n_initial + self.core.base
        for a, b in {(a, b) for a, b, _ in pairs} - self._fine:
            if self.skip_reason(a, b) is not None:
                yield a, b
            elif a < stable and b < stable:
                self._fine.add((a, b))

    def _rebuild(self, bad: frozenset, base: int) -> None:
        """A new core from the words as they are now, cut at ``bad`` pairs. Exact from
        here on: at this step only the cut pairs straddle the cuts, and every pair that
        could later straddle one holds a cut pair's tokens, so it is skipped too."""
        vb = self.vocab_bytes[:self.n_initial + base]   # the tokens as of step ``base``
        cand = words_holding(self.table, [vb[a] + vb[b] for a, b in bad])
        self._new_core(self._cut(cand, lambda a, b: (a, b) in bad, vb), base)
        self.n_rebuilds += 1

    def _new_core(self, parts: tuple[array, array, array], base: int) -> None:
        """The core of the words ``parts`` (symbols, starts, freqs) as of step ``base``."""
        del self.core   # one core at a time: the old one goes before the new one is built
        vb = self.vocab_bytes[:self.n_initial + base]
        self.core = OffsetCore(new_core(*parts, vb, self.settings.tie_rule), base)
        self._freqs = parts[2]

    def _restart(self, k: int) -> None:
        """The core as of step k < the current core's first step (for undo): from step
        0 again, through each rebuild before k, with the merges recorded."""
        self._log = [(at, bad) for at, bad in self._log if at <= k]
        self._fine.clear()
        n = len(self._seg[2])
        self._origin = (array("q", range(n)), array("q", bytes(8 * n)))
        self._new_core(self._first_parts(self.vocab_bytes[:self.n_initial]), 0)
        for at, bad in self._log + [(k, None)]:
            self.core.run(at - self.core.n_steps, 1)
            if bad is not None:
                self._rebuild(bad, at)

    def skipped_before(self, k: int) -> frozenset:
        """The pairs (ids) stage 2 cut because they came up for step k + 1 (stage-2
        steps; empty when none did). Their tokens are the vocabulary's as of step k."""
        return frozenset().union(*(bad for at, bad in self._log if at == k))

    # ----- stepping -----------------------------------------------------------------
    def step(self, detail: bool = True):
        self.settle()
        return super().step(detail)

    def undo(self):
        if self.steps and self.core.core.n_steps == 0:   # the core began here: go back
            self._restart(len(self.steps) - 1)
            return self._pop_step()
        return super().undo()

    def _run_in_core(self, goal: int, total: int, progress, cancel) -> None:
        """Chunks of steps in the core, as Trainer does; a chunk that made a skipped
        merge is undone back to it, the pair is cut, and the run goes on."""
        s = self.settings
        if self.target_steps is not None:
            goal = min(goal, self.target_steps)
        chunk = 256
        while self.n_steps < goal:
            if cancel is not None and cancel():
                break
            self.settle()
            n = min(chunk, goal - self.n_steps)
            done = self.core.run(n, s.min_frequency)
            made = self.core.history(self.n_steps)
            made_bytes: dict[int, bytes] = {}
            tok = lambda i: made_bytes.get(i) or self.vocab_bytes[i]   # noqa: E731
            for k, (a, b, new, *_rest) in enumerate(made):
                if skipped(tok(a) + tok(b)):
                    for _ in range(len(made) - k):
                        self.core.undo()
                    done = n   # not the end: go on after cutting the pair
                    break
                made_bytes[new] = tok(a) + tok(b)
            self._record_core_steps()
            if done < n:
                break   # the core stopped on its own: no pair left at min_frequency
            if progress is not None:
                progress(self.n_steps, total)
        self.settle()
        if progress is not None:
            progress(self.n_steps, total)

    def metadata(self, k: int | None = None, counts: list[int] | None = None) -> dict:
        meta = super().metadata(k, counts)
        meta["superbpe_from"] = self.n_inherited
        return meta


def stage2_pretokenizer(special_tokens: Sequence[str] = ()) -> Pretokenizer:
    """What stage 2 counts with (``count_corpus(paths, stage2_pretokenizer())``; a
    word-count table made so records this pattern)."""
    return Pretokenizer(TRAIN_PATTERN, list(special_tokens))


def check_transition(s: TrainSettings, n_initial: int | None = None) -> None:
    """Refuse a transition the target cannot reach (a SettingsError saying the fix).

    Example: num_merges=100, superbpe_from=150 -> 'Stage 2 from step 150 is after the
    target of 100 merges: ...'"""
    T = s.superbpe_from
    if T is None:
        raise SettingsError("Set superbpe_from (the step where stage 2 starts), e.g. "
                            "TrainSettings(vocab_size=32000, superbpe_from=28000).")
    if s.prune:
        raise SettingsError(SUPERBPE_PRUNE + ".")
    target = s.num_merges if s.num_merges is not None else \
        None if n_initial is None or s.vocab_size is None else s.vocab_size - n_initial
    if target is not None and T > target:
        what = f"{s.num_merges:,} merges" if s.num_merges is not None else \
            f"vocabulary {s.vocab_size:,} ({target:,} merges)"
        raise SettingsError(f"Stage 2 from step {T:,} is after the target of {what}: "
                            "choose a transition step below it (about 90% of the way).")
