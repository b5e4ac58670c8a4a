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
from ..display import is_one_char, readable
from ..errors import CancelFn, ProgressFn, SettingsError
from . import sentences
from .causes import likely, pattern_label, try_causes
from .lab import NO_PRETOKENIZATION, CheckCorpus, CheckLimits, Lab, Run, Variant
from .report import Attempt, CheckReport, Difference, FoundSettings, PairWord, common_prefix
from .result import LearnerResult
from .search import found_in, search_settings
from .sentences import Scene
from .variants import count_word, replay

Pair = tuple[bytes, bytes]
WORDS_LIMIT = 40   # words listed per pair at the difference


def check_merges(result: LearnerResult, corpus: "str | Path | Sequence[str | Path]", *,
                 vocab_size: int | None = None, pattern: str | None = None,
                 special_tokens: Sequence[str] | None = None, mode: str | None = None,
                 end_of_word: str | None = None, tie_rule: str | None = None,
                 lines: bool | None = None, limits: CheckLimits | None = None,
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
                                      end_of_word=end_of_word, tie_rule=tie_rule,
                                      lines=lines)
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
    more: tuple[Difference, ...] = ()
    warning = wrong_corpus(lab)
    if k <= max(len(theirs), len(ours)):
        diff, attempts, best = _diagnose(lab, result, reference, k, vocab_size, progress)
        if best is not None and best.reach(theirs) < len(theirs):
            more, best = _follow(lab, best)
            if more:
                diff = replace(diff, also=sentences.together(best, best.reach(theirs), len(theirs)))
        if diff.cause == "vocab-size":
            found = _size_found(lab, settings)
        elif best is not None and best.merges == theirs:
            found = found_in(lab, best)   # (None: a way of counting, not a setting)
        elif diff.cause != "not-a-pair":
            found = search_settings(lab)
    notes += lab.notes
    return CheckReport(result.path, result.format, settings, tuple(said), theirs, ours,
                       reference.counts, diff, found, tuple(attempts), tuple(notes),
                       time.perf_counter() - t0, more, warning)


def implied_settings(result: LearnerResult, *, vocab_size=None, pattern=None,
                     special_tokens=None, mode=None, end_of_word=None, tie_rule=None,
                     lines=None) -> tuple[TrainSettings, list[str]]:
    """The reference's settings, and where each came from (in words)."""
    said = []
    if pattern is not None:
        pattern = NO_PRETOKENIZATION if pattern == "none" else pattern
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
    recorded = f" (from {result.name})"
    mode_from = "" if mode or not result.mode else recorded
    mode = mode or result.mode or "byte"
    if mode == "byte":
        said.append(f"mode: byte-level{mode_from}")
    else:
        end_of_word = end_of_word or result.end_of_word or _end_of_word(result)
        said.append(f"mode: character-level, </w> {'after' if end_of_word == 'suffix' else 'before'}"
                    f" each word{mode_from}")
    rule_from = "" if tie_rule or not result.tie_rule else recorded
    tie_rule = tie_rule or result.tie_rule or "greatest"
    said.append(f"tie rule: {tie_rule}{rule_from}")
    lines_from = "" if lines is not None or result.lines is None else recorded
    lines = bool(result.lines) if lines is None else lines
    if lines:   # (whole texts, the default, go unsaid)
        said.append(f"one text per line{lines_from or ' (given)'}")
    num_merges = None if vocab_size is not None else len(result.merges)
    if vocab_size is not None:
        said.append(f"vocabulary size: {vocab_size:,} (given)")
    else:
        said.append(f"merges: {len(result.merges):,} (as many as yours)")
    try:
        settings = TrainSettings(vocab_size=vocab_size, num_merges=num_merges, pattern=pattern,
                                 special_tokens=specials, mode=mode,
                                 end_of_word=end_of_word or "suffix",
                                 tie_rule=tie_rule, lines=lines).validated()
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
    state = _State(lab, k - 1)
    t_count = state.count(t_pair)
    o_count = reference.counts[k - 1] if o_pair is not None else None
    n_tied = state.n_tied
    scene = Scene(k, t_pair, o_pair, t_count, o_count, n_tied, len(theirs), s)
    words = (state.words(t_pair), state.words(o_pair))

    zero = zero_why(lab, state, k, t_pair) if t_count == 0 else ""

    def made(cause: str, sentence: str, run: Run | None = None, reach: int = 0) -> Difference:
        return Difference(k, t_pair, o_pair, t_count, o_count, cause, sentence,
                          run.label if run is not None else "", reach, n_tied, *words,
                          zero_why=zero)

    missing = _not_tokens(theirs, k, s.mode, lab) if t_pair is not None else []
    if missing:
        attempts: list[Attempt] = []
        run: Run | None = None
        if any(is_one_char(t) for t in missing) and s.mode == "byte":
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
        return _explained(scene, state, run, made), attempts, run
    if tied:
        return made("tie", sentences.tie(scene)), attempts, None
    if t_pair is None or o_pair is None:
        why = state.stop_reason if o_pair is None else (
            f"target {s.vocab_size:,} tokens" if s.vocab_size else "its target")
        return made("length", sentences.length(scene, len(ours), why)), attempts, None
    return made("unknown", sentences.unknown(scene)), attempts, None


SAY = {"tie": sentences.tie, "specials": sentences.specials, "boundaries": sentences.boundaries,
       "pattern": sentences.pattern, "overlap": sentences.overlap, "chars": sentences.chars}


def _explained(scene: Scene, state, run: Run, made) -> Difference:
    """The difference explained by ``run``'s cause, in its sentence."""
    reach = run.reach(state.theirs)
    sc = replace(scene, run=run, reach=reach)
    if run.rules is not None and run.rules.counting != "adjacent":
        x = sentences.repeated(scene)
        sc = replace(sc, recount=(state.count((x, x)) or 0,
                                  state.count((x, x), run.rules.counting) or 0))
    return made(run.cause, SAY[run.cause](sc), run, reach)


MAX_CAUSES = 5   # causes found one after another before the check stops looking


def _follow(lab: Lab, run: Run) -> tuple[tuple[Difference, ...], Run]:
    """After a cause explains the first difference but not every merge after it: the
    reference with that cause made, compared again from where it still parts from the
    learner's merges, for the next cause; and so on until the merges agree, no cause
    explains the rest (a last difference of cause "unknown" says where), or the lab's
    time is up. The differences found after the first, and the last run."""
    theirs = lab.theirs
    out: list[Difference] = []
    while run.variant is not None and len(out) < MAX_CAUSES and not lab.out_of_time():
        done = run.reach(theirs)
        if done >= len(theirs):
            break
        k = done + 1
        v = run.variant
        state = VariantState(lab, v, k - 1)
        t_pair = theirs[k - 1]
        o_pair = run.merges[k - 1] if k <= len(run.merges) else None
        t_count, o_count = state.count(t_pair), state.count(o_pair)
        tied = t_count is not None and o_count is not None and t_count == o_count
        scene = Scene(k, t_pair, o_pair, t_count, o_count, state.n_tied, len(theirs),
                      v.settings, tie_rule=v.rules.tie if v.rules is not None else "")
        words = (state.words(t_pair), state.words(o_pair))
        zero = zero_why(lab, state, k, t_pair) if t_count == 0 else ""
        lead = f"With {sentences.listed(v.labels)} as well: "

        def made(cause: str, sentence: str, r: Run | None = None, reach: int = 0,
                 k=k, t_pair=t_pair, o_pair=o_pair, t_count=t_count, o_count=o_count,
                 n_tied=state.n_tied, words=words, zero=zero, lead=lead) -> Difference:
            return Difference(k, t_pair, o_pair, t_count, o_count, cause,
                              lead + sentences.lower_first(sentence),
                              r.label if r is not None else "", reach, n_tied,
                              their_words=words[0], our_words=words[1], zero_why=zero)
        _, nxt = try_causes(lab, k, theirs, tied, likely(t_pair, o_pair, tied, v.settings),
                            None, base=v)
        if nxt is None or nxt.reach(theirs) <= done:
            out.append(made("tie", sentences.tie(scene)) if tied else
                       made("unknown", sentences.unknown(scene)))
            break
        out.append(_explained(scene, state, nxt, made))
        run = nxt
    return tuple(out), run


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
        self.theirs = lab.theirs
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

    def occurrences(self, token: bytes) -> tuple[int, list[tuple[str, int, tuple[bytes, ...]]]]:
        """How often ``token``'s bytes occur inside the words (weighted), and the words
        holding them, most frequent first (a few)."""
        n, held = 0, []
        for w, f, syms in self._segments():
            c = b"".join(syms).count(token)
            if c:
                n += c * f
                held.append((w, f, syms))
        held.sort(key=lambda x: -x[1])
        return n, held[:3]

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


class VariantState(_State):
    """:class:`_State` for a variant of the reference: its words, trained by the engine
    to the step (a setting of it), or the learner's first merges replayed under the slow
    trainer's rules."""

    def __init__(self, lab: Lab, v: Variant, step: int):
        self.theirs = lab.theirs
        table = lab.table_of(v)
        assert table is not None   # (the variant was trained on it)
        self.table = table
        self._rules = v.rules
        self._segs = None
        self.stop_reason = "its target"
        if v.rules is None:
            self.trainer = Trainer(table, v.settings)
            self.trainer.run(until=step, detail=False, cancel=lab.cancel)
            nxt = self.trainer.next_choice()
            self.n_tied = nxt.n_tied if nxt is not None else 0
            self._tok = self.trainer.tokenizer()
            return
        seqs, freqs, counts = replay(list(zip(table.words, table.freqs)), v.rules,
                                     lab.theirs[:step])
        self._segs = [(w, f, tuple(syms)) for w, f, syms in zip(table.words, freqs, seqs)]
        top = max(counts.values(), default=0)
        self.n_tied = sum(1 for c in counts.values() if c == top) if top else 0

    def count(self, pair: Pair | None, counting: str | None = None) -> int | None:
        rules = self._rules
        return super().count(pair, counting or (rules.counting if rules else "adjacent"))


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


# ----- a count of 0, and the wrong corpus ---------------------------------------------------
def zero_why(lab: Lab, state: _State, step: int, pair: Pair | None) -> str:
    """Why a pair of the learner's occurs 0 times in the words at ``step``, in words:
    its bytes never occur in the corpus; they occur only across a pre-token boundary;
    or inside words that the merges before ``step`` cut another way."""
    if pair is None:
        return ""
    token = pair[0] + pair[1]
    shown = sentences.qt(token)
    inside, held = state.occurrences(token)
    if inside:
        w, _, syms = held[0]
        cut = " ".join(readable(t) for t in syms)
        return (f"{shown} occurs {inside:,} time(s) inside words, but the {step - 1:,} merges "
                f"before step {step:,} cut it another way there (“{readable(w.encode())}” is "
                f"{cut}), so {sentences.q(pair)} never stands side by side: your trainer "
                "must have made a merge there that the reference did not (or made it "
                "earlier).")
    text = lab.corpus.text_bytes()
    if text is None:
        return f"{shown} occurs in no word of the corpus as the reference cuts it."
    n = text.count(token)
    if n == 0:
        return (f"{shown} never occurs in {lab.corpus.name}, so no trainer could have counted "
                "it there: is this the corpus you trained on?")
    return (f"{shown} occurs {n:,} time(s) in the text, but always across a boundary between "
            f"two words of {pattern_label(lab.settings.pattern)} (or a special token), and "
            "the reference counts pairs only inside a word.")


WRONG_SAMPLE = 200      # merges looked up in the text, evenly spread over the list
WRONG_SHARE = 0.05      # more missing than this: the corpus looks like another one


def wrong_corpus(lab: Lab) -> str:
    """A warning when the corpus looks like another than the learner trained on.

    A trainer merges only pairs it counted in its corpus, so every token a merge of
    theirs makes occurs somewhere in the text it was trained on, whatever mistakes it
    makes (only a trainer that deletes special tokens and joins the text on either
    side can make a few that do not). So: up to :data:`WRONG_SAMPLE` of their merges,
    spread evenly over the list, are looked up in the text; when more than
    :data:`WRONG_SHARE` (1 in 20) of their tokens never occur, it is another text. ""
    when the corpus looks right (or its text is not held)."""
    text = lab.corpus.text_bytes()
    merges = lab.theirs
    if text is None or not merges:
        return ""
    step = max(1, len(merges) // WRONG_SAMPLE)
    sample = merges[::step][:WRONG_SAMPLE]
    eow = b"</w>"
    missing = [a + b for a, b in sample if (a + b).replace(eow, b"") and
               (a + b).replace(eow, b"") not in text]
    if len(missing) <= WRONG_SHARE * len(sample):
        return ""
    pct = 100 * len(missing) / len(sample)
    shown = ", ".join(sentences.qt(t.replace(eow, b"")) for t in missing[:3])
    return (f"Is this the corpus you trained on? {len(missing):,} of {len(sample):,} tokens your "
            f"merges make ({pct:.0f}%; e.g. {shown}) never occur in {lab.corpus.name}. A "
            "trainer merges only pairs it found in its corpus, so on the corpus it was "
            "trained on every merged token occurs in the text; more than 1 in 20 missing "
            "means another text.")
