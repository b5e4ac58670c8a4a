"""What the merge panel says, without Qt: the next pair and why it wins, the last merge
and why it won, the status line, the pairs' footer, which controls are on. Each is a
function of the trainer's view and its records (``text_of`` spells a token as the
tables do: models/roles.py's ReadableCache.text), so it is tested without a widget.

Example::

    next_text(True, view.next_choice(), "", cache.text)
    -> '<b>Next (step 3):</b> w + i → <b>wi</b> (count 3). ...'
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Callable

from ...engine.train import MergeStep, ParityTrainer
from ..controller.trainer_view import PairSnapshot, TrainerView
from ..controller.training_jobs import has_detail
from .parity_text import turn_counts, turn_line, turn_name
from .settings_changes import rule_label

TextOf = Callable[[bytes], str]
NO_MERGE_TITLE = "Last merge and the words it changed"


def _esc(s: str) -> str:
    return escape(s, quote=False)


def next_text(has_trainer: bool, rec: MergeStep | None, done_reason: str,
              text_of: TextOf) -> str:
    """The pair the next step merges, and why it wins (rich text)."""
    if not has_trainer:
        return "No training yet: add a corpus, then press Step."
    if rec is None:
        return f"<b>Training is done.</b> {_esc(done_reason)}"
    left, right, merged = text_of(rec.left), text_of(rec.right), text_of(rec.token)
    return (f"<b>Next (step {rec.index}):</b> {_esc(left)} + {_esc(right)} → "
            f"<b>{_esc(merged)}</b> (count {rec.count:,}). {_esc(rec.reason)}")


def pairs_footer(snap: PairSnapshot) -> str:
    """'500 best pairs (Show more for others) · 3 tied at count 12', or ''."""
    if not snap.rows:
        return ""
    more = " (Show more for others)" if snap.maybe_more else ""
    tied = f" · {snap.n_tied:,} tied at count {snap.top_count:,}" if snap.n_tied > 1 else ""
    return f"{len(snap.rows):,} best pairs{more}{tied}"


@dataclass(frozen=True)
class LastMerge:
    """What the "Last merge" box shows of a record."""

    title: str              # rich text: the step, the pair, what it made
    reason: str             # why it won (a parity run: whose turn, and why)
    affected: str           # how many words changed (the table's tooltip)
    box_title: str          # the group box's long title
    detail: bool            # the record has its words (a running job's records do not)


def last_merge(rec: MergeStep | None, info: ParityTrainer | None, text_of: TextOf) -> LastMerge:
    if rec is None:
        return LastMerge("No merge yet: press Step.", "", "", NO_MERGE_TITLE, False)
    left, right = text_of(rec.left), text_of(rec.right)
    turn = turn_name(info, rec.index) if info is not None else ""
    served = f", {_esc(turn)}'s turn" if turn and turn != "global" else ""
    title = (f"<b>Step {rec.index}{served}:</b> {_esc(left)} + {_esc(right)} → "
             f"<b>{_esc(text_of(rec.token))}</b> (id {rec.new_id}), count {rec.count:,}")
    if not has_detail(rec):   # made by a run that is still going (see training_jobs)
        tie = f"{rec.n_tied:,} pairs tied at this count. " if rec.n_tied > 1 else ""
        return LastMerge(title, f"{tie}Training is running: why it won and the words it "
                         "changed are shown when the run stops.", "", NO_MERGE_TITLE, False)
    reason = rec.reason
    if info is not None:   # whose turn, and why: its compression against the others'
        reason = (f"{turn_line(info, rec.index)} Its most frequent pair: {left} + {right} "
                  f"({rec.count:,} times).")
    shown = len(rec.affected)
    more = f" (showing {shown})" if shown < rec.n_affected else ""
    words = "word" if rec.n_affected == 1 else "words"
    return LastMerge(title, reason, f"{rec.n_affected:,} word(s) changed{more}: before and "
                     "after, with how often each occurs.",
                     f"Last merge and the {rec.n_affected:,} {words} it changed{more}", True)


def status_line(t: TrainerView | None) -> tuple[str, str]:
    """(the line under the controls, its tooltip: a parity run's warning)."""
    if t is None:
        return "Step 0 · no trainer", ""
    target = t.target_steps
    of = f" of {target:,}" if target is not None else ""
    vocab = f"vocabulary {t.vocab_size:,}"
    s = t.settings
    if s.num_merges is None and s.vocab_size is not None:
        vocab += f" / {s.vocab_size:,}"
    if s.prune:
        vocab += " live tokens (pruning on)"
    rule = rule_label(s.tie_rule)
    if t.transition is not None:   # SuperBPE: which stage this step is in
        T = t.transition
        rule += (f" · SuperBPE stage 2 (from step {T:,})" if t.n_steps > T else
                 f" · SuperBPE stage 1 (stage 2 from step {T:,})")
    what, warning = "tie rule: " + rule, ""
    if t.parity is not None:   # parity-aware: how many turns each language had
        what = f"parity ({t.parity.parity_settings.variant}), turns: " + \
            (turn_counts(t.parity, t.n_steps) or "none yet")
        if t.parity.warning:
            what += " · ⚠ dev texts not parallel"
            warning = t.parity.warning[:1].upper() + t.parity.warning[1:]
    early = t.stopped_early()
    if early:   # "Step 15 of 18" alone read as if 3 more steps were to come
        return f"Done at step {t.n_steps:,} of {target:,}: {early} · {vocab} · {what}", warning
    return f"Step {t.n_steps:,}{of} · {vocab} · {what}", warning


@dataclass(frozen=True)
class Controls:
    """Which of the panel's controls are on."""

    forward: bool      # Step, Play, Go, the step box, Train
    back: bool         # Step back, Reset
    more: bool         # Show more pairs
    cancel: bool
    timeline: bool


def controls(busy: bool, has_trainer: bool, corpus_text: str, step: int,
             maybe_more: bool) -> Controls:
    """Forward needs a trainer or some corpus text; back a step made; none runs while a
    job does (Cancel then)."""
    has = has_trainer or (bool(corpus_text) and not corpus_text.isspace())
    return Controls(not busy and has, not busy and step > 0, not busy and maybe_more, busy,
                    not busy)


def column_numbers(t: TrainerView | None) -> tuple[int, int]:
    """(the largest count, the largest step) this trainer can show: the best pair's
    count never grows as training goes on, so the first one is the largest."""
    if t is None:
        return 0, 0
    top = t.steps[0].count if t.steps else t.best_count()
    return top, max(t.target_steps or 0, t.n_steps)


def step_range(t: TrainerView | None) -> int:
    """The furthest step the step box offers."""
    if t is not None and t.target_steps is not None:
        return max(t.target_steps, t.n_steps)
    return 10_000_000

