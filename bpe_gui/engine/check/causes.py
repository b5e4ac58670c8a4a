"""The usual causes of a merge list that parts from the reference, each as a way to
train the corpus again (a :class:`~.lab.Run`): the cause whose run reproduces the
learner's merge at the step where they part -- and the furthest beyond it -- is the
diagnosis.

=================  ==============================================================
cause              tried by
=================  ==============================================================
tie                the engine's other tie rules; the slow trainer's smallest pair
specials           special tokens read as text; deleted (documents joined); special
                   tokens found in the corpus (``<|endoftext|>``) when none were given
boundaries         no pre-tokenization (the text between special tokens one
                   sequence); each line one sequence
pattern            the presets and the published patterns (Llama 3, Qwen2, minbpe's
                   GPT-4), ``str.split()``'s words
overlap            the slow trainer: runs counted without overlaps, a scan that skips
                   after a repeated pair, runs merged from the right
chars              the slow trainer starting words from characters
=================  ==============================================================
(not-a-pair and vocab-size need no training: merges.py reads them off the lists.)

Each is tried as a :class:`~.lab.Variant` of a base: first the reference; once a cause
explains the first difference, the reference with that cause, to explain the next one
(a trainer may make several mistakes).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterator, Sequence

import regex

from .. import PRESETS, Pretokenizer, TrainSettings
from ..display import is_one_char, is_partial
from ..text.presets import LLAMA3_PATTERN, MINBPE_GPT4_PATTERN, PRESET_LABELS, QWEN2_PATTERN
from ..train.trainer import TIE_RULES
from .lab import NO_PRETOKENIZATION, Lab, Run, Variant
from .report import PRIORITY, Attempt
from .variants import Pair, Rules

SPLIT_PATTERN = r"\S+"
NONE_LABEL = "no pre-tokenization (the text between special tokens counted as one sequence)"
# (pattern, label): the presets, then patterns learners copy from elsewhere
LABELS = {"gpt2": "GPT-2's pattern", "cl100k": "GPT-4's pattern (cl100k)",
          "o200k": "GPT-4o's pattern (o200k)", "whitespace": r"the whitespace split (\S+|\s+)",
          "cjk": "the CJK-aware pattern (one Han character per word)"}
PATTERNS: tuple[tuple[str, str], ...] = tuple(
    (PRESETS[name], LABELS.get(name, f"the {PRESET_LABELS.get(name, name)} pattern"))
    for name in PRESETS) + (
    (LLAMA3_PATTERN, "Llama 3's pattern"),
    (QWEN2_PATTERN, "Qwen2's pattern"),
    (MINBPE_GPT4_PATTERN, "minbpe's GPT-4 pattern"),
    (SPLIT_PATTERN, r"words without their spaces (str.split(), \S+)"),
)
RULE_WORDS = {
    "greatest": "the greatest pair (comparing bytes)",
    "least": "the smallest pair (comparing bytes)",
    "first-seen": "the pair seen first in the corpus",
    "lowest-ids": "the pair with the lowest token ids",
    "lowest-ids-hf": ("the pair with the lowest ids numbered as Hugging Face's trainer numbers "
                      "them (its alphabet sorted in GPT-2's byte-to-unicode characters)"),
    "lowest-ids-gpt2": ("the pair with the lowest ids numbered as Hugging Face's trainer numbers "
                        "them (its alphabet sorted in GPT-2's byte-to-unicode characters)"),
}
SPECIAL_LOOKING = regex.compile(r"<\|[^\s|<>]{1,40}\|>")


def pattern_label(pattern: str) -> str:
    """'the GPT-2 pattern', or the pattern itself."""
    full = PRESETS.get(pattern, pattern)
    if full == NO_PRETOKENIZATION:
        return "no pre-tokenization"
    return next((label for p, label in PATTERNS if p == full), f"the pattern {pattern}")


@dataclass(frozen=True)
class Candidate:
    """A cause to try: ``run()`` trains it (None: it cannot be tried, ``why`` says)."""

    cause: str
    label: str
    run: Callable[[], Run | None]
    why: str = ""


def base_variant(lab: Lab) -> Variant:
    """The reference as a variant: its settings, its words, the engine's trainer."""
    return Variant(lab.settings)


def candidates(lab: Lab, tied: bool, base: Variant | None = None) -> Iterator[Candidate]:
    """Every cause worth trying on this corpus, cheap ones first, each as ``base`` (the
    reference, or the reference with the causes found so far) with one more change; a
    cause already in ``base`` is not tried again. ``tied``: the learner's pair is tied
    with the other's at the step where they part (else no tie rule can pick it)."""
    v = base if base is not None else base_variant(lab)
    s = v.settings
    done = set(v.causes) - {"tie"}   # several tie rules can agree until a later tie
    r0 = v.rules if v.rules is not None else Rules(tie=s.tie_rule)
    if v.rules is None:
        for rule in TIE_RULES:
            if rule != s.tie_rule:
                yield _maybe(tied, _run(lab, v.but("tie", f"tie rule {rule}",
                                                   fields={"tie_rule": rule})))
    else:
        for rule in ("greatest", "first-seen", "lowest-ids"):
            if (rule, "bytes") != (r0.tie, r0.id_order):
                yield _maybe(tied, _run(lab, v.but("tie", f"tie rule {rule}",
                                                   rules=replace(r0, tie=rule))))
    if "specials" not in done and v.cut == "":
        yield from _specials(lab, v)
    if "pattern" not in done and "boundaries" not in done and v.cut == "":
        current = PRESETS.get(s.pattern, s.pattern)
        for pattern, label in PATTERNS:
            if pattern != current:
                yield _run(lab, v.but("pattern", label, fields={"pattern": pattern}))
    if "boundaries" not in done and "pattern" not in done and v.cut == "":
        yield from _boundaries(lab, v)
    if s.mode != "byte":
        return   # the slow trainer starts from bytes or characters, never </w>
    table = lab.table_of(v)
    words = table.words if table is not None else []
    if "overlap" not in done and any(regex.search(r"(.)\1\1", w) for w in words):
        yield _run(lab, v.but("overlap", "a run like aaa counted without overlaps",
                              rules=replace(r0, counting="runs-halved")))
        yield _run(lab, v.but("overlap", "a count that skips a symbol after a pair of equal "
                              "ones", rules=replace(r0, counting="skip-after-repeat")))
        yield _run(lab, v.but("overlap", "a run like aaa merged from the right",
                              rules=replace(r0, merging="right")))
    if "chars" not in done and not all(w.isascii() for w in words):
        yield _run(lab, v.but("chars", "words started from characters, not bytes",
                              rules=replace(r0, base="chars")))
    if r0.tie != "least":
        yield _maybe(tied, _run(lab, v.but("tie", "tie rule least (the smallest pair)",
                                           rules=replace(r0, tie="least"))))
    if (r0.tie, r0.id_order) != ("lowest-ids", "gpt2"):
        yield _maybe(tied, _run(lab, v.but("tie", "tie rule lowest-ids, numbered as Hugging "
                                           "Face does", rules=replace(r0, tie="lowest-ids",
                                                                      id_order="gpt2"))))


def _maybe(tied: bool, cand: Candidate) -> Candidate:
    """A tie rule is worth trying only when the step is a tie."""
    if tied:
        return cand
    return Candidate(cand.cause, cand.label, lambda: None,
                     "not a tie: your pair occurs less often than the reference's there")


def _run(lab: Lab, v: Variant) -> Candidate:
    cause, label = v.causes[-1], v.labels[-1]
    return Candidate(cause, label, lambda: lab.run(v, cause, label))


def _specials(lab: Lab, v: Variant) -> Iterator[Candidate]:
    s = v.settings
    if s.special_tokens:
        names = ", ".join(s.special_tokens)
        yield _run(lab, v.but("specials", f"special tokens ({names}) read as text",
                              fields={"special_tokens": ()}))
        yield _run(lab, v.but("specials", f"special tokens ({names}) deleted, the text on "
                              "either side joined", cut="deleted"))
        return
    found = specials_in(lab)
    if found:
        yield _run(lab, v.but("specials", f"{', '.join(found)} as special token(s)",
                              fields={"special_tokens": found}))


def specials_in(lab: Lab) -> tuple[str, ...]:
    """Special-looking tokens the corpus holds (``<|endoftext|>``), when none were given."""
    text = lab.corpus.text
    if lab.settings.special_tokens or text is None:
        return ()
    return tuple(sorted(set(SPECIAL_LOOKING.findall(text))))


def _boundaries(lab: Lab, v: Variant) -> Iterator[Candidate]:
    if v.settings.pattern != NO_PRETOKENIZATION:
        label = NONE_LABEL
        if lab.corpus.n_bytes > lab.limits.max_piece_bytes or lab.corpus.text is None:
            yield Candidate("boundaries", label, lambda: None,
                            f"the corpus is over {lab.limits.max_piece_bytes >> 20} MB")
        else:
            yield _run(lab, v.but("boundaries", label,
                                  fields={"pattern": NO_PRETOKENIZATION}))
    yield _run(lab, v.but("boundaries", "each line counted as one sequence", cut="lines"))


def likely(theirs: Pair | None, ours: Pair | None, tied: bool,
           settings: TrainSettings) -> list[str]:
    """The causes the two pairs point at, most likely first (tried first, so that the
    one that explains everything usually comes early and the rest are not needed).

    Example: (b"a", b"a") against (b"t", b"h") -> ['overlap']; a pair the pattern cuts
    into two words -> ['boundaries', 'pattern', 'specials'].
    """
    out = ["tie"] if tied else []
    pairs = [p for p in (theirs, ours) if p is not None]
    if any(a == b for a, b in pairs):
        out.append("overlap")
    if any(is_partial(t) or is_one_char(t) for p in pairs for t in p):
        out.append("chars")
    if theirs is not None:
        token = (theirs[0] + theirs[1]).decode("utf-8", "replace")
        if any(s[:2] in token or s[-2:] in token for s in settings.special_tokens):
            out.append("specials")
        if len(Pretokenizer(settings.pattern).words(token)) > 1:
            out += ["boundaries", "pattern", "specials"]
    return list(dict.fromkeys(out))


def try_causes(lab: Lab, step: int, theirs: Sequence, tied: bool, first: Sequence[str] = (),
               progress=None, base: Variant | None = None
               ) -> tuple[list[Attempt], Run | None]:
    """Try every candidate, the causes in ``first`` before the rest; the attempts (how
    far each reproduces ``theirs``) and the best run that reproduces merge ``step``
    (1-based), or None. Stops trying once a run reproduces all of ``theirs``, or at the
    lab's time limit."""
    attempts: list[Attempt] = []
    best: Run | None = None
    best_reach = -1
    plan = sorted(candidates(lab, tied, base),
                  key=lambda c: first.index(c.cause) if c.cause in first else len(first))
    for n, cand in enumerate(plan):
        if progress is not None:
            progress(n, len(plan))
        if best is not None and best_reach >= len(theirs):
            attempts.append(Attempt(cand.cause, cand.label, None, "not needed: an earlier "
                                    "cause reproduces all your merges"))
            continue
        if lab.out_of_time():
            attempts.append(Attempt(cand.cause, cand.label, None, "out of time"))
            continue
        run = cand.run()
        if run is None:
            attempts.append(Attempt(cand.cause, cand.label, None,
                                    cand.why or (lab.notes[-1] if lab.notes else "")))
            continue
        reach = run.reach(theirs)
        attempts.append(Attempt(cand.cause, cand.label, reach))
        if reach >= step and (reach > best_reach or (
                reach == best_reach and best is not None and
                PRIORITY.index(run.cause) < PRIORITY.index(best.cause))):
            best, best_reach = run, reach
    if progress is not None:
        progress(len(plan), len(plan))
    return attempts, best
