"""ParityTrainer as a RunCommon run for the window (stepping,
undo, redo, looking ahead without changing anything, the pair table, retargeting, the
tokenizer at a step). The merges themselves are held against tokenizers' ParityBpeTrainer
in tests/engine/train/test_parity.py and, through the window, tests/gui/test_parity_window.py."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.train import _pycore, trainer
from bpe_gui.engine.train import (ParityTrainer, ParitySettings, PlainCurve, RunCommon,
                                  TrainSettings)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "parallel"
LANGS = ("en", "de", "ru", "zh")
SAMPLE = "理論上，一對情侶可以開四個賬戶。 Theoretically, теоретически, theoretisch."


@pytest.fixture(autouse=True, params=["core", "python"])
def trainer_state(request, monkeypatch, tmp_path_factory):
    """Every test twice: the words in the C core, and in its pure-Python twin (which
    recounts every pair at each call: so on the first lines of each text only)."""
    if request.param == "python":
        monkeypatch.setattr(trainer, "_core", _pycore)
        short = tmp_path_factory.mktemp("first-lines")
        for p in FIXTURES.glob("*.txt"):
            (short / p.name).write_bytes(b"".join(p.read_bytes().splitlines(True)[:12]))
        monkeypatch.setattr(sys.modules[__name__], "FIXTURES", short)
    return request.param


def _run(merges: int = 40, **kw) -> ParityTrainer:
    return ParityTrainer.from_files([(n, FIXTURES / f"{n}.train.txt") for n in LANGS],
                                    [(n, FIXTURES / f"{n}.dev.txt") for n in LANGS],
                                    ParitySettings(num_merges=merges, **kw), lines=True)


def test_it_is_a_trainer_protocol_run():
    run: RunCommon = _run()
    assert run.parity is not None and run.parity.names == LANGS
    assert run.n_inherited == 0 and run.transition is None


def test_looking_ahead_changes_nothing_and_is_the_next_step():
    run = _run()
    run.run(until=10)
    merges, vocab = list(run.merges), list(run.vocab_bytes)
    ahead = run.next_choice()
    top = run.top_pairs(5)
    assert run.merges == merges and list(run.vocab_bytes) == vocab and run.n_steps == 10
    rec = run.step()
    assert (rec.pair, rec.count) == (ahead.pair, ahead.count)
    assert (top[0].a, top[0].b, top[0].count) == (*rec.pair, rec.count)
    assert ahead.reason.startswith("Step 11 served ")


def test_a_finished_run_still_shows_the_pairs_a_longer_run_would_take():
    """Issue 67: at its target the pair table was empty. The pairs listed are the next
    language's, and the first is the merge a run one merge longer makes next."""
    run = _run(40)
    run.run()
    merges = list(run.merges)
    top = run.top_pairs(5)
    assert top and run.n_steps == 40 and run.merges == merges
    assert run.stop().kind == "target" and run.step() is None and run.is_done
    longer = _run(41)
    longer.run()
    assert longer.merges[:40] == merges
    rec = longer.steps[-1]
    assert (top[0].a, top[0].b, top[0].count) == (*rec.pair, rec.count)


def test_each_step_says_what_it_changed():
    run = _run()
    for _ in range(15):
        before = run.corpus_tokens
        rec = run.step()
        assert rec.merged == before - run.corpus_tokens > 0
        assert rec.corpus_tokens == run.corpus_tokens
        assert sum(a.freq * (len(a.before) - len(a.after)) for a in rec.affected) <= rec.merged
        assert rec.reason and run.parity.names[run.parity.steps[-1].language] in rec.reason
    assert sum(run.symbol_count(i) for i in range(run.vocab_size)) == run.corpus_tokens


def test_undo_redo_and_the_tokenizer_at_a_step():
    run = _run()
    run.run()
    at_end = run.tokenizer().encode(SAMPLE, allowed_special="all")
    merges = list(run.merges)
    run.goto(12)
    assert run.merges == merges[:12] and run.furthest_step == 40
    assert run.tokenizer(redo=True, at_step=40).encode(SAMPLE, allowed_special="all") == at_end
    with pytest.raises(SettingsError, match="only steps 0 to 12"):   # past now, without redo
        run.tokenizer(at_step=40)
    run.goto(40)
    assert run.merges == merges and run.tokenizer().encode(SAMPLE, allowed_special="all") == at_end
    assert run.stop().kind == "target" and run.step() is None


def test_retarget_takes_only_a_number_of_merges():
    run = _run()
    run.run()
    assert run.retarget(TrainSettings(vocab_size=None, num_merges=25, tie_rule="greatest")) == 25
    assert run.target_steps == 25 and run.n_steps == 25 and run.is_done
    assert not run.can_retarget(TrainSettings(vocab_size=400, tie_rule="greatest"))
    with pytest.raises(SettingsError):   # parity's own parameter: a new run
        run.retarget(TrainSettings(num_merges=30, min_frequency=5))
    # what parity does not use (the plain trainer's tie rule, mode, pattern) is no
    # reason to read every file again
    assert run.retarget(TrainSettings(num_merges=30, tie_rule="lowest-ids", mode="char",
                                      pattern="whitespace")) == 25
    assert run.target_steps == 30 and not run.is_done


@pytest.mark.regression
def test_records_made_without_detail_say_how_many_tokens_they_replaced():
    """Issue 63: a run's records (made without detail) said 0, so the charts rebuilt
    step 0 from the last step's counts. Each record's merged is the training tokens
    before it less those after, counted here from the words' byte lengths at step 0."""
    run = _run()
    start = sum(len(w) * f for words in run.data.words for w, f in words.items())
    recs = run.run(detail=False)
    assert len(recs) == 40
    before = start
    for rec in recs:
        assert rec.merged == before - rec.corpus_tokens > 0
        before = rec.corpus_tokens
    assert recs[0].corpus_tokens + recs[0].merged == start


def _plain(run: ParityTrainer, upto: int | None = None) -> PlainCurve:
    plain = PlainCurve(run.data, run.parity_settings)
    plain.compute(upto=run.target if upto is None else upto)
    return plain


@pytest.mark.regression
def test_the_plain_curve_grows_with_a_raised_target():
    """Issue 63: plain BPE's curve stayed at the first target's length after the target
    was raised and the run went on. Its trainer is kept, so growing it to a new target,
    by a run or single steps, equals plain BPE trained to the new target at once (the
    window grows it: tests/gui/test_chart_modes.py)."""
    run = _run(merges=10)
    plain = _plain(run)
    run.run()
    assert len(plain.rows) == 11 and plain.covers(10) and not plain.covers(11)
    run.retarget(TrainSettings(vocab_size=None, num_merges=30, tie_rule="greatest"))
    plain.compute(upto=run.target)
    run.run()
    assert run.n_steps == 30 and len(plain.rows) == 31
    run.retarget(TrainSettings(vocab_size=None, num_merges=33, tie_rule="greatest"))
    for k in (31, 32, 33):
        run.step()
        plain.compute(upto=k)
        assert len(plain.rows) >= k + 1
    fresh = PlainCurve(run.data, run.parity_settings).curve(33)
    assert plain.rows[:34] == fresh
    run.goto(5)   # going back keeps the curve; the chart cuts it at the step shown
    assert plain.curve(33) == fresh and plain.curve(5) == fresh[:6]


def test_no_plain_curve_unless_asked():
    """The command line's runs never pay for plain BPE: a parity run has no plain
    curve of its own (the window's chart makes one beside it)."""
    run = _run(merges=10)
    run.run()
    assert not [name for name in dir(run) if name == "plain" or "plain_" in name]


def test_a_cancelled_extension_of_the_plain_curve_keeps_what_it_made():
    """Cancel while plain BPE catches up with a raised target: the curve keeps the
    steps made, and the next compute finishes it."""
    run = _run(merges=10)
    plain = _plain(run)
    run.run()
    run.retarget(TrainSettings(vocab_size=None, num_merges=40, tie_rule="greatest"))
    asked = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 12
    plain.compute(cancel, upto=run.target)   # stopped, as every run stops: nothing raised
    assert run.n_steps == 10 and 11 < len(plain.rows) < 41
    plain.compute(upto=run.target)
    assert plain.rows == _plain(_run(merges=40)).rows


@pytest.mark.regression
def test_the_look_ahead_neither_steps_nor_undoes(monkeypatch):
    """ParityTrainer.next_choice stepped, undid and raised the target to look one step
    ahead; the choice is now a pure function of the trainer's state."""
    run = _run(merges=30)
    run.run(until=7)
    seen = []
    for name in ("step", "undo"):
        real = getattr(run, name)
        monkeypatch.setattr(run, name, lambda real=real, name=name: (
            seen.append(name), real())[1])
    ahead = run.next_choice()
    assert seen == [] and run.n_steps == 7 and not run.is_done
    monkeypatch.undo()
    made = run.step()
    assert (ahead.pair, ahead.count, ahead.new_id, ahead.reason) == \
        (made.pair, made.count, made.new_id, made.reason)


@pytest.mark.regression
def test_one_language_with_a_dev_set_says_why_each_step_served_it():
    """A run of one language with a dev set raised IndexError when it explained a step."""
    t = ParityTrainer.from_files([("en", FIXTURES / "en.train.txt")],
                                 [("en", FIXTURES / "en.dev.txt")],
                                 ParitySettings(num_merges=3), lines=True)
    recs = t.run()
    assert len(recs) == 3
    assert all("served en: it is the only language" in r.reason for r in recs)
    assert t.next_choice() is not None and "only language" in t.next_choice().reason
