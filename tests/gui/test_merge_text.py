"""What the merge panel says, worked out without a widget (models/merge_text.py), from
the engine's own trainer behind a TrainerView: the next pair and why, the last merge,
the status line, the controls that are on."""
from __future__ import annotations

from bpe_gui.engine.display import readable
from bpe_gui.engine.train import Trainer, TrainSettings
from bpe_gui.gui.controller.trainer_view import TrainerView
from bpe_gui.gui.models.merge_text import (NO_MERGE_TITLE, column_numbers, controls,
                                           last_merge, next_text, pairs_footer, status_line,
                                           step_range)

CORPUS = "low low lower newest newest widest widest widest"


def test_the_next_and_the_last_merge_in_words():
    t = Trainer.from_source(CORPUS, TrainSettings(num_merges=5, tie_rule="greatest"))
    view = TrainerView(t)
    rec = view.next_choice()
    text = next_text(True, rec, "", readable)
    assert text.startswith(f"<b>Next (step 1):</b> {readable(rec.left)} + "
                           f"{readable(rec.right)} → <b>{readable(rec.token)}</b> "
                           f"(count {rec.count:,}).")
    assert rec.reason and rec.reason in text
    assert next_text(False, None, "", readable).startswith("No training yet")
    assert next_text(True, None, "no pair left", readable) == \
        "<b>Training is done.</b> no pair left"
    none = last_merge(None, None, readable)
    assert none.box_title == NO_MERGE_TITLE and not none.detail
    t.step()
    made = view.steps[-1]
    last = last_merge(made, None, readable)
    assert last.detail and last.reason == made.reason
    assert f"(id {made.new_id})" in last.title and f"count {made.count:,}" in last.title
    n = made.n_affected
    assert last.box_title == f"Last merge and the {n:,} word{'s' * (n != 1)} it changed"


def test_the_status_line_and_the_numbers():
    t = Trainer.from_source(CORPUS, TrainSettings(num_merges=5))
    view = TrainerView(t)
    assert status_line(None) == ("Step 0 · no trainer", "")
    text, tip = status_line(view)
    assert text.startswith("Step 0 of 5 · vocabulary ") and "tie rule: " in text and not tip
    top, last = column_numbers(view)
    assert top == view.best_count() and last == 5 and step_range(view) == 5
    t.goto(5)
    assert column_numbers(view)[0] == view.steps[0].count
    assert step_range(None) == 10_000_000


def test_the_controls_that_are_on():
    idle = controls(False, True, "", 3, True)
    assert (idle.forward, idle.back, idle.more, idle.cancel, idle.timeline) == \
        (True, True, True, False, True)
    busy = controls(True, True, "x", 3, True)
    assert not (busy.forward or busy.back or busy.more or not busy.cancel)
    assert not controls(False, False, "   ", 0, False).forward   # nothing to train on
    assert controls(False, False, "text", 0, False).forward
    assert not controls(False, True, "", 0, False).back


def test_the_pairs_footer():
    from bpe_gui.gui.controller.trainer_view import PairSnapshot
    assert pairs_footer(PairSnapshot()) == ""
    t = Trainer.from_source(CORPUS, TrainSettings(num_merges=5))
    snap = TrainerView(t).pair_snapshot(3)
    assert pairs_footer(snap).startswith("3 best pairs (Show more for others)")


def test_the_view_reads_through_only_what_every_run_has():
    """TrainerView reads its annotated facts from the run by name: each is a member of
    the engine's RunCommon or its step side, RunSteps (mypy cannot see the read-through:
    their declarations are read here), each gives the run's own value, and any other name
    is refused."""
    import inspect
    import re

    import pytest

    from bpe_gui.engine.train import RunCommon, RunSteps
    from bpe_gui.gui.controller.trainer_view import _READ_THROUGH

    source = inspect.getsource(RunCommon) + inspect.getsource(RunSteps)
    declared = set(re.findall(r"^ +(?:def )?(\w+)\b(?=[ :(=])", source, re.M))
    t = Trainer.from_source(CORPUS, TrainSettings(num_merges=5))
    t.step()
    view = TrainerView(t)
    assert _READ_THROUGH and _READ_THROUGH <= declared, _READ_THROUGH - declared
    for name in _READ_THROUGH:
        assert getattr(view, name) is getattr(t, name) or \
            getattr(view, name) == getattr(t, name), name
    with pytest.raises(AttributeError):
        getattr(view, "table")   # the run's internals stay behind the view
