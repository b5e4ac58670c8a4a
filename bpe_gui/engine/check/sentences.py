"""The reason for a difference, in one sentence per cause.

Each function takes the :class:`Scene` of the difference (the step, both pairs and
their counts, the tie, the run that reproduces the learner's merges) and says what
the learner's trainer did, what the rule is, and how far doing it their way agrees.

Example (a tie broken the other way)::

    Step 3 is a tie: yours (o w) and the reference's (w i) both occur 3 times, among 6
    tied pairs; the reference takes the greatest pair (comparing bytes), your trainer
    the pair seen first in the corpus, and with that rule all 10 of your merges agree.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import Pretokenizer, TrainSettings
from ..display import hex_bytes, is_partial, readable
from .causes import RULE_WORDS, pattern_label
from .lab import Run
from .report import Pair, show_pair


@dataclass(frozen=True)
class Scene:
    step: int
    theirs: Pair | None
    ours: Pair | None
    their_count: int | None
    our_count: int | None
    n_tied: int
    n_theirs: int
    settings: TrainSettings
    run: Run | None = None
    reach: int = 0
    recount: tuple[int, int] | None = None   # the repeated pair: by the rule, the other way
    tie_rule: str = ""   # the compared side's tie rule when not the settings' (slow trainer)


def agreeing(reach: int, n: int) -> str:
    """'all 40 of your merges agree' or 'your merges agree through step 12 of 40'."""
    if reach >= n:
        return f"all {n:,} of your merges agree"
    return f"your merges agree through step {reach:,} of {n:,}"


def q(pair: Pair | None) -> str:
    return f"“{show_pair(pair)}”"


def qt(token: bytes) -> str:
    return f"“{readable(token)}”"


def tie(sc: Scene) -> str:
    among = f", among {sc.n_tied:,} tied pairs" if sc.n_tied > 2 else ""
    head = (f"Step {sc.step} is a tie: yours ({show_pair(sc.theirs)}) and the reference's "
            f"({show_pair(sc.ours)}) both occur {sc.our_count or 0:,} times{among}; the "
            f"reference takes {RULE_WORDS[sc.tie_rule or sc.settings.tie_rule]}")
    if sc.run is None:
        return (head + ", and your trainer breaks the tie in a way none of the usual rules "
                "does (greatest pair, smallest pair, first seen, lowest ids).")
    if sc.run.settings is not None:
        rule = sc.run.settings.tie_rule
    else:
        rules = sc.run.rules
        rule = "least" if rules is None else rules.tie + \
            ("-gpt2" if rules.id_order == "gpt2" else "")
    return (f"{head}, your trainer {RULE_WORDS[rule]}, and with that rule "
            f"{agreeing(sc.reach, sc.n_theirs)}.")


def specials(sc: Scene) -> str:
    run = sc.run
    assert run is not None
    names = ", ".join(sc.settings.special_tokens)
    if run.settings is not None and run.settings.special_tokens and not sc.settings.special_tokens:
        found = ", ".join(run.settings.special_tokens)
        return (f"Your trainer treats {found} as a special token, which the reference was not "
                f"told: with it as one {agreeing(sc.reach, sc.n_theirs)}, so give it "
                f"(--special-token) if your trainer was meant to.")
    if "deleted" in run.label:
        how = ("deletes the special token(s) " + names + " and joins the text on either side, "
               "so pairs form across document boundaries")
    else:
        how = (f"counts pairs across the special token(s) {names}, read as text (they make "
               "pairs of their own and join the documents on either side)")
    return (f"Your trainer {how}; that way {agreeing(sc.reach, sc.n_theirs)}, but the text "
            "must be split at each special token before pre-tokenizing, so that no pair "
            "spans one.")


def _spanning(token: bytes, pattern: str) -> str:
    """' (“e·t” is two words of the pattern: “e”, “·t”)' when the pattern cuts a merged
    token into several words, else ''."""
    text = token.decode("utf-8", "replace")
    words = Pretokenizer(pattern).words(text)
    if len(words) < 2:
        return ""
    parts = ", ".join(f"“{readable(w.encode('utf-8'))}”" for w in words[:4])
    return f" ({qt(token)} is {len(words)} words of the pattern: {parts})"


def boundaries(sc: Scene) -> str:
    run = sc.run
    assert run is not None
    spans = _spanning(sc.theirs[0] + sc.theirs[1], sc.settings.pattern) if sc.theirs else ""
    return (f"Your trainer counts pairs across pre-token boundaries{spans}: with "
            f"{run.label} {agreeing(sc.reach, sc.n_theirs)}; count pairs only inside each "
            f"word that {pattern_label(sc.settings.pattern)} cuts.")


def pattern(sc: Scene) -> str:
    run = sc.run
    assert run is not None and run.settings is not None
    spans = _spanning(sc.theirs[0] + sc.theirs[1], sc.settings.pattern) if sc.theirs else ""
    return (f"Your trainer cuts words with {run.label}, not {pattern_label(sc.settings.pattern)}"
            f"{spans}: with it {agreeing(sc.reach, sc.n_theirs)}.")


def repeated(sc: Scene) -> bytes:
    for pair in (sc.theirs, sc.ours):
        if pair is not None and pair[0] == pair[1]:
            return pair[0]
    return b"a"


def overlap(sc: Scene) -> str:
    run = sc.run
    assert run is not None
    x = readable(repeated(sc))
    counted = ""
    if sc.recount is not None:
        counted = (f", so here “{x} {x}” occurs {sc.recount[0]:,} times by the rule and "
                   f"{sc.recount[1]:,} your way")
    if "right" in run.label:
        return (f"Your trainer merges a run like “{x}{x}{x}” from the right (“{x} {x}{x}”); "
                f"merges replace pairs from the left (“{x}{x} {x}”), and merged your way "
                f"{agreeing(sc.reach, sc.n_theirs)}.")
    if "skips" in run.label:
        how = (f"skips a symbol after counting a pair of two equal ones (in “{x}{x}{x}{x}·” it "
               f"counts “{x} {x}” twice and misses the pair after the run)")
    else:
        how = (f"counts a run of one symbol without overlaps (“{x}{x}{x}” holds “{x} {x}” "
               "twice, at 1-2 and 2-3, and the rule counts both)")
    return (f"Your trainer {how}{counted}; counted that way "
            f"{agreeing(sc.reach, sc.n_theirs)}.")


def _char_of(pair: Pair | None) -> bytes | None:
    """The multi-byte character a pair's tokens hold only part of, or is."""
    if pair is None:
        return None
    for t in pair:
        try:
            if len(t) > 1 and len(t.decode("utf-8")) == 1:
                return t
        except UnicodeDecodeError:
            pass
    joined = pair[0] + pair[1]
    try:
        joined.decode("utf-8")
        whole = True
    except UnicodeDecodeError:
        whole = False
    if whole and any(is_partial(t) for t in pair):
        return joined
    return None


def chars(sc: Scene) -> str:
    mine = _char_of(sc.theirs)
    if mine is not None and sc.theirs is not None and mine in sc.theirs:
        detail = (f"{qt(mine)} ({len(mine)} bytes, {hex_bytes(mine)}) is one symbol for you, but "
                  "in byte-level BPE a token only once a merge joins its bytes")
    else:
        ref = _char_of(sc.ours)
        detail = (f"the reference merges the bytes of {qt(ref)} ({hex_bytes(ref)}) here, a "
                  "merge a trainer that starts from characters never makes" if ref else
                  "characters of several bytes are one symbol for you and several for "
                  "byte-level BPE")
    reach = f"; starting from characters {agreeing(sc.reach, sc.n_theirs)}" if sc.run else ""
    return f"Your trainer starts words from characters, not bytes: {detail}{reach}."


def not_a_pair(sc: Scene, missing: list[bytes]) -> str:
    assert sc.theirs is not None
    what = " and ".join(qt(t) for t in missing)
    extra = ""
    if sc.ours is not None and sc.theirs[0] + sc.theirs[1] == sc.ours[0] + sc.ours[1]:
        extra = (f"; its new token {qt(sc.ours[0] + sc.ours[1])} is the reference's, cut in "
                 f"another place ({show_pair(sc.ours)}), as if the pair were written down from "
                 "the new token instead of from the two tokens merged")
    verb = "are" if len(missing) > 1 else "is"
    return (f"Your merge {sc.step} ({show_pair(sc.theirs)}) joins {what}, which {verb} not a "
            f"token at that step (neither a byte nor made by an earlier merge): a merge must "
            f"join two tokens that exist{extra}.")


def vocab_size(sc: Scene, vocab_size: int, n_base: int, n_ours: int) -> str:
    ns = len(sc.settings.special_tokens)
    n = sc.n_theirs
    if n > n_ours:
        return (f"Your trainer makes {n:,} merges and the reference {n_ours:,}: a vocabulary "
                f"of {vocab_size:,} counts the {ns} special token(s) too ({n_base} + {ns} + "
                f"{n_ours:,} merges = {vocab_size:,}), and yours leaves them out ({n_base} + "
                f"{n:,} = {vocab_size:,}).")
    return (f"Your trainer makes {n:,} merges and the reference {n_ours:,}, {n_ours - n} fewer: "
            f"it takes the {ns} special token(s) off the vocabulary size twice ({n_base} + {ns} "
            f"+ {n_ours:,} merges = {vocab_size:,}).")


def length(sc: Scene, n_ours: int, why_ours_stopped: str) -> str:
    n = sc.n_theirs
    if n > n_ours:
        return (f"The reference stops after {n_ours:,} merges ({why_ours_stopped}) but your "
                f"trainer makes {n - n_ours:,} more: your merge {sc.step} "
                f"({show_pair(sc.theirs)}) joins tokens that never stand side by side "
                "inside a word of the reference.")
    return (f"Your trainer stops after {n:,} merges; the reference goes on to {n_ours:,} "
            f"({why_ours_stopped}).")


def also(what: str, rule: str, reach: int, n: int) -> str:
    """A second mistake: 'With special tokens read as text as well (and tie rule ...),
    all 150 of your merges agree.'"""
    return f"With {what} as well (and {rule}), {agreeing(reach, n)}."


def listed(labels) -> str:
    """'a', 'a and b', 'a, b and c'."""
    labels = list(labels)
    if len(labels) == 1:
        return labels[0]
    sep = "; " if any(", " in x for x in labels) else ", "
    return sep.join(labels[:-1]) + (sep if len(labels) > 2 or sep == "; " else " and ") + \
        ("and " if sep == "; " or len(labels) > 2 else "") + labels[-1]


def lower_first(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:] if sentence[:2] != "“" else sentence


def together(run: Run, reach: int, n: int) -> str:
    """Every cause found, and how far they reproduce the learner's merges together."""
    v = run.variant
    if v is None or not v.labels:
        return ""
    both = "both causes" if len(v.labels) == 2 else f"all {len(v.labels)} causes"
    return (f"With {both} found ({listed(v.labels)}), "
            f"{agreeing(reach, n)}.")


def unknown(sc: Scene) -> str:
    if sc.their_count is None:
        counted = f"{show_pair(sc.theirs)} is not a pair of adjacent tokens there"
    else:
        counted = (f"the reference counts {show_pair(sc.theirs)} {sc.their_count:,} times here "
                   f"and {show_pair(sc.ours)} {sc.our_count or 0:,} times")
    return (f"None of the usual causes reproduces your merge {sc.step}: {counted}, so your "
            "trainer's counts differ from the reference's; compare its pair counts at this "
            "step with these (the words where both pairs occur are listed), and check that "
            "this is the corpus your trainer was trained on.")
