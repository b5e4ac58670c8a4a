"""SuperBPERun (both SuperBPE stages as one run of steps, for the window) against the two
stages trained apart (a Trainer to T, then ``stage2`` on its tokenizer, which
test_superbpe.py checks against a slow stage-2 reference): the same
merges in one numbering, whether run at once, stepped by hand across the transition, or
undone back over it; the tokenizer of each step is its stage's."""
from __future__ import annotations

from dataclasses import replace

import pytest

from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.train import SUPERBPE, TrainingSpec, build_run, stage2
from bpe_gui.engine.train.superbpe import ENCODE_PATTERN, skip_reason, skipped
from bpe_gui.engine.train.trainer import Trainer, TrainSettings

from continue_oracle import sample_text

EOT = "<|endoftext|>"
TEXT = sample_text(5, 500) + EOT + sample_text(6, 150) + "".join(
    f"Note: the end of the line {k} and so on and so forth{' .' * (k % 6)}\n" for k in range(40))
HELD_OUT = sample_text(11, 60) + "Note: and so on and so forth."


def superbpe_run(text, settings):
    """A SuperBPE run over ``text`` at step 0 (stage 2 built when stage 1 gets to T)."""
    return build_run(TrainingSpec(mode=SUPERBPE, text=text, settings=settings), prepare=False)


def apart(text, s):
    """Stage 1 as a plain Trainer to T, then stage 2 on its tokenizer."""
    t1 = Trainer.from_text(text, replace(s, num_merges=s.superbpe_from, superbpe_from=None))
    t1.run(detail=False)
    t2 = stage2(t1.tokenizer(), text=text, settings=replace(
        s, num_merges=s.num_merges - s.superbpe_from, superbpe_from=None))
    t2.stage1_steps = tuple(t1.steps)
    return t2


def _settings(rule="greatest", T=90, n=150):
    return TrainSettings(num_merges=n, superbpe_from=T, tie_rule=rule, special_tokens=(EOT,))


def _merges(recs):
    return [(r.left, r.right, r.new_id) for r in recs]


@pytest.mark.parametrize("rule", ["greatest", "first-seen", "lowest-ids"])
def test_one_run_equals_train_superbpe(rule):
    s = _settings(rule)
    ref = apart(TEXT, s)
    run = superbpe_run(TEXT, s)
    recs = run.run(detail=False)
    assert _merges(recs) == _merges(ref.stage1_steps) + _merges(ref.steps)
    assert [r.index for r in run.steps] == list(range(1, 151))
    assert run.transition == 90 and run.stage_of(90) == 1 and run.stage_of(91) == 2
    assert run.is_done and "at step 150" in run.stop().sentence
    assert run.tokenizer().encode(HELD_OUT, allowed_special="all") == ref.tokenizer().encode(HELD_OUT, allowed_special="all")
    assert run.tokenizer().pattern == ENCODE_PATTERN
    # at and below T: stage 1's tokenizer, with stage 1's pattern
    plain = Trainer.from_text(TEXT, TrainSettings(num_merges=90, tie_rule=rule,
                                                  special_tokens=(EOT,)))
    plain.run()
    assert run.tokenizer(at_step=90).encode(HELD_OUT, allowed_special="all") == plain.tokenizer().encode(HELD_OUT, allowed_special="all")
    assert run.tokenizer(at_step=90).pattern == plain.tokenizer().pattern != ENCODE_PATTERN


def test_stepping_across_the_transition_and_back():
    s = _settings()
    batch = superbpe_run(TEXT, s)
    batch.run(detail=False)
    want = _merges(batch.steps)
    run = superbpe_run(TEXT, s)
    run.goto(85)
    for _ in range(15):            # 86..100 by hand, with detail, across T = 90
        rec = run.step()
        assert rec.index == run.n_steps and rec.reason
    assert _merges(run.steps) == want[:100]
    nxt = run.next_choice()
    assert nxt.index == 101 and (nxt.left, nxt.right) == want[100][:2]
    for _ in range(14):            # back to 86, across T
        run.undo()
    assert run.n_steps == 86 and _merges(run.steps) == want[:86]
    assert run.next_choice().index == 87
    run.goto(150)
    assert _merges(run.steps) == want
    run.tokenizer()                # it keeps the merges undone next (furthest_step)
    run.goto(90)                   # T: stage 1's last state; the candidates are stage 2's
    assert run.n_steps == 90 and run.next_choice().index == 91
    assert (run.next_choice().left, run.next_choice().right) == want[90][:2]
    assert run.tokenizer(at_step=120, redo=True).encode(HELD_OUT, allowed_special="all") == \
        batch.tokenizer(at_step=120).encode(HELD_OUT, allowed_special="all")
    assert run.furthest_step == 150


def test_skipped_pairs_are_explained_and_never_merged():
    run = superbpe_run(TEXT, _settings(T=90, n=200))
    notes = []
    while run.step() is not None:
        if run.n_steps > 90 and "skipped" in run.steps[-1].reason:
            notes.append(run.steps[-1].reason)
    assert not any(skipped(r.token) for r in run.steps)
    assert notes and all("Stage 2 skipped" in n for n in notes)
    assert skip_reason(b"Note: the") == 'it would hold ": "'
    assert skip_reason(b" and so on and so") == "it would hold 5 words (at most 4)"
    assert skip_reason(b" and so on") is None


def test_a_transition_past_the_target_is_refused():
    with pytest.raises(SettingsError, match="after the target"):
        superbpe_run(TEXT, _settings(T=200, n=150))
    with pytest.raises(SettingsError, match="after the target of vocabulary 400"):
        superbpe_run(TEXT, TrainSettings(vocab_size=400, superbpe_from=300))


def test_retarget_keeps_the_merges():
    s = _settings()
    run = superbpe_run(TEXT, s)
    run.run(detail=False)
    want = _merges(run.steps)
    bigger = TrainSettings(num_merges=170, superbpe_from=90, special_tokens=(EOT,))
    assert run.can_retarget(bigger)
    run.retarget(bigger)
    run.run(detail=False)
    assert run.n_steps == 170 and _merges(run.steps)[:150] == want
    below = TrainSettings(num_merges=80, superbpe_from=90, special_tokens=(EOT,))
    assert not run.can_retarget(below)


@pytest.mark.regression
def test_stage_2_rules_have_their_own_names():
    """Word playback called stage 2's "words and spaces" rule "digits" (the \\p{N} in
    its look-ahead) and its "spaces before whitespace" rule "non-whitespace"."""
    from bpe_gui.engine.text.branches import pattern_branches
    from bpe_gui.engine.train.superbpe import TRAIN_PATTERN
    for pattern in (ENCODE_PATTERN, TRAIN_PATTERN):
        names = [b.name for b in pattern_branches(pattern)]
        assert names[:4] == ["digits, up to 3", "punctuation run", "spaces before whitespace",
                             "words and spaces"]


def test_prepare_builds_stage_2_and_changes_nothing_else():
    s = _settings()
    run = superbpe_run(TEXT, s)
    run.goto(40)
    run.prepare()
    assert run.stage2 is not None and run.n_steps == 40 and run.next_choice().index == 41
    run.run(detail=False)
    ref = superbpe_run(TEXT, s)
    ref.run(detail=False)
    assert _merges(run.steps) == _merges(ref.steps)
