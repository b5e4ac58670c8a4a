"""When a data-mixture answer cannot be taken at its word: the program stopped before its
optimum, or the solution disagrees with its own evidence. Each warning is a kind (for
code) and a sentence (for the user), shown beside the proportions by the CLI and the
window."""
from __future__ import annotations

from dataclasses import dataclass

UNCOVERED_SHARE = 0.05   # merges no sample holds: more than this share, a category is missing
SLACK_SHARE = 0.5        # the slacks past this share of the merges' counts: poorly explained
EVIDENCE_RATIO = 2.0     # the largest share's category explains this many times fewer merges
EXAMPLES = 5


@dataclass(frozen=True)
class MixtureWarning:
    """``kind``: "not_converged", "evidence", "slack" or "uncovered"."""

    kind: str
    message: str


def token_words(token: bytes) -> str:
    """A token quoted as text (bytes that are not UTF-8 as \\xNN)."""
    return "'" + token.decode("utf-8", "backslashreplace") + "'"


def pair_words(pair: tuple[bytes, bytes]) -> str:
    """'a' + 'b' as text."""
    return " + ".join(token_words(p) for p in pair)


def not_converged(rounds: int, violation_per_mb: float, step: int,
                  pair: tuple[bytes, bytes] | None, merge: tuple[bytes, bytes]) -> MixtureWarning:
    where = (f" (at step {step + 1:,} the pair {pair_words(pair)} still beats the merge "
             f"{pair_words(merge)})" if pair is not None else "")
    return MixtureWarning(
        "not_converged",
        f"Not converged: the limit stopped the linear program after {rounds:,} rounds, "
        f"before its optimum. The largest violation left is {violation_per_mb:,.1f} per "
        f"million bytes{where}. These proportions are not the answer: raise or remove the "
        "limit.")


def evidence_check(proportions: dict[str, float],
                   evidence: dict[str, list[int]]) -> MixtureWarning | None:
    """The category with the largest share explains far fewer merges than another."""
    top = max(proportions, key=lambda k: proportions[k])
    most = max(evidence, key=lambda k: len(evidence[k]))
    n_top, n_most = len(evidence[top]), len(evidence[most])
    if most == top or n_most < EVIDENCE_RATIO * max(n_top, 1):
        return None
    return MixtureWarning(
        "evidence",
        f"The evidence disagrees: {top!r} gets the largest share ({proportions[top]:.1%}) "
        f"but explains only {n_top:,} merges best, while {most!r} explains {n_most:,}. "
        "The samples may not resemble the training data, or a category is missing.")


def slack_check(slack_share: float) -> MixtureWarning | None:
    """The slacks (merges the mixture does not explain) are large against the counts."""
    if slack_share <= SLACK_SHARE:
        return None
    return MixtureWarning(
        "slack",
        f"The samples explain the merge order poorly: the slack is {slack_share:.0%} of the "
        "merges' counts under these shares (0% would explain every merge). Samples closer "
        "to the training data, or fewer merges, give a firmer answer.")


def uncovered_check(merges: list[tuple[bytes, bytes]], counts: list[dict[str, float]],
                    skipped: list[bool]) -> MixtureWarning | None:
    """Merges whose pair occurs in no sample: the tokenizer learned them from text of a
    kind no category covers."""
    used = [m for m, c, s in zip(merges, counts, skipped) if not s]
    none = [m for m, c, s in zip(merges, counts, skipped) if not s and not any(c.values())]
    if not used or len(none) <= UNCOVERED_SHARE * len(used):
        return None
    shown = ", ".join(token_words(a + b) for a, b in none[:EXAMPLES])
    return MixtureWarning(
        "uncovered",
        f"{len(none):,} of the {len(used):,} merges ({len(none) / len(used):.0%}) occur in no "
        f"sample (e.g. {shown}): the tokenizer was trained on text that no category covers. "
        "Add a sample of that kind; its share is now absorbed by the nearest categories.")
