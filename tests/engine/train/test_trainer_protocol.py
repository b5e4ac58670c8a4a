"""Every trainer through one interface (``RunCommon``): the same sequence of
calls -- step with detail, undo, goto, run to the target, retarget back and forth, the
tokenizer at a step, redo -- made on a plain Trainer, an InheritedTrainer and a
SuperBPERun, each checked against its engine's reference function (``train_bpe``,
``train_on``, ``train_superbpe``): the same merges, ids and encodings. What tells them
apart is read as data (``n_inherited``, ``transition``, ``table2``, ``skip_reason``).

mypy checks this file too ([tool.mypy] files): ``exercise`` uses nothing of a trainer
but the protocol's members.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import pytest

from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.tokenizers import Tokenizer
from bpe_gui.engine.train import (SUPERBPE, TRAIN_ON, Trainer, RunCommon, TrainingSpec,
                                  TrainSettings, build_run, train_bpe, train_on,
                                  train_superbpe)

from continue_oracle import sample_text

EOT = "<|endoftext|>"
TEXT = sample_text(21, 300) + EOT + sample_text(22, 100) + "".join(
    f"Note: line {k} and so on and so forth{' .' * (k % 5)}\n" for k in range(30))
OLD_TEXT = sample_text(23, 250)          # what the tokenizer trained on from learned
HELD_OUT = sample_text(24, 40) + f" {EOT} Note: and so on. ünïcødé 🙂 x=12345\n"
N = 150                                  # merges of the run (new ones, training on)
T = 100                                  # SuperBPE's stage 2 after this step


@dataclass(frozen=True)
class Reference:
    """What the engine's reference function gives for the same training."""

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]    # every merge, inherited ones first
    encode: Callable[..., list[int]]


def merges_of(tok: Tokenizer) -> list[tuple[bytes, bytes]]:
    return [(bytes(a), bytes(b)) for a, b in tok.merges[:tok.n_merges]]


def exercise(t: RunCommon, ref: Reference) -> None:
    """One sequence of calls, the same for every trainer; the protocol only."""
    inherited = t.n_inherited
    assert t.n_steps == 0 and merges_of(t.tokenizer()) == ref.merges[:inherited]
    # step with detail: each record is the next merge, numbered in this run
    for k in range(1, 6):
        rec = t.step()
        assert rec is not None and rec.index == k == t.n_steps and rec.reason
        assert (rec.left, rec.right) == ref.merges[inherited + k - 1]
    nxt = t.next_choice()
    assert nxt is not None and nxt.index == 6
    assert (nxt.left, nxt.right) == ref.merges[inherited + 5]
    assert t.top_pairs(3)[0][1:3] == nxt.pair
    # undo gives back the records, last first
    last = t.steps[-1]
    assert t.undo() == last and t.n_steps == 4
    assert t.undo() is not None and t.n_steps == 3
    # goto forward (without detail) and run to the target
    t.goto(N // 2, detail=False)
    assert t.n_steps == N // 2
    done = t.run(detail=False)
    assert len(done) == N - N // 2 and t.n_steps == N and t.target_steps == N
    stop = t.stop()
    assert t.is_done and stop is not None and stop.kind == "target"
    assert t.merges == ref.merges and t.tokenizer().vocab == ref.vocab
    assert [s.index for s in t.steps] == list(range(1, N + 1))
    assert t.vocab_size == len(t.vocab_bytes) == len(ref.vocab)
    # the tokenizer at any step: the inherited merges and the first k of this run
    for k in (0, 1, N // 3, N - 1, N):
        assert merges_of(t.tokenizer(at_step=k)) == ref.merges[:inherited + k]
    assert t.tokenizer().encode(HELD_OUT, allowed_special="all") == ref.encode(HELD_OUT, allowed_special="all")
    # retarget: back to fewer merges, then on to the target again
    fewer = replace(t.settings, num_merges=N - 20)
    assert t.can_retarget(fewer) and t.retarget(fewer) == N - 20 == t.n_steps
    assert t.merges == ref.merges[:inherited + N - 20]
    assert not t.can_retarget(replace(t.settings, tie_rule="lowest-ids"))
    more = replace(t.settings, num_merges=N)
    assert t.retarget(more) == N - 20 and not t.is_done
    t.run(detail=False)
    assert t.merges == ref.merges and t.n_steps == N
    # back to 0; undone steps are served again (redo), and stepping forward remakes them
    t.tokenizer()
    t.goto(0)
    assert t.n_steps == 0 and t.furthest_step == N
    assert merges_of(t.tokenizer(at_step=N, redo=True)) == ref.merges
    with pytest.raises(SettingsError, match="only steps 0 to 0"):   # not without redo
        t.tokenizer(at_step=N)
    t.goto(N)
    assert t.merges == ref.merges and t.tokenizer().encode(HELD_OUT, allowed_special="all") == ref.encode(HELD_OUT, allowed_special="all")
    t.goto(0)
    assert t.n_steps == 0 and merges_of(t.tokenizer()) == ref.merges[:inherited]


@pytest.fixture(scope="module")
def source() -> Tokenizer:
    """A tokenizer to train on from (as of a step of its own training)."""
    t = Trainer.from_text(OLD_TEXT, TrainSettings(num_merges=120, special_tokens=(EOT,)))
    t.run()
    return t.tokenizer(at_step=100)


def plain(tmp_path: Path, source: Tokenizer) -> tuple[RunCommon, Reference]:
    s = TrainSettings(num_merges=N, special_tokens=(EOT,))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    vocab, merges = train_bpe(corpus, num_merges=N, special_tokens=[EOT])
    ref = Reference(vocab, merges, Tokenizer(vocab, merges, [EOT]).encode)
    return build_run(TrainingSpec(text=TEXT, settings=s)), ref


def inherited(tmp_path: Path, source: Tokenizer) -> tuple[RunCommon, Reference]:
    s = TrainSettings(num_merges=N)
    done = train_on(source, text=TEXT, settings=s)
    ref = Reference(done.vocab, done.merges, done.tokenizer().encode)
    return build_run(TrainingSpec(TRAIN_ON, text=TEXT, settings=s, base="source"),
                     base=source), ref


def superbpe(tmp_path: Path, source: Tokenizer) -> tuple[RunCommon, Reference]:
    s = TrainSettings(num_merges=N, superbpe_from=T, special_tokens=(EOT,))
    done = train_superbpe(text=TEXT, settings=s)
    ref = Reference(done.vocab, done.merges, done.tokenizer().encode)
    return build_run(TrainingSpec(SUPERBPE, text=TEXT, settings=s)), ref


KINDS = {"plain": plain, "inherited": inherited, "superbpe": superbpe}


@pytest.mark.parametrize("kind", KINDS)
def test_the_same_calls_give_the_reference_merges(kind, tmp_path, source):
    t, ref = KINDS[kind](tmp_path, source)
    exercise(t, ref)


@pytest.mark.parametrize("kind", KINDS)
def test_what_tells_the_trainers_apart_is_data(kind, tmp_path, source):
    t, _ = KINDS[kind](tmp_path, source)
    t.goto(N)
    assert t.n_inherited == {"inherited": source.n_merges}.get(kind, 0)
    assert t.transition == {"superbpe": T}.get(kind)
    assert (t.spec.mode == "superbpe") == (kind == "superbpe")
    # stage 2 skips pairs that hold ": " (SuperBPE only; never in stage 1 or elsewhere)
    colon = [i for i, b in enumerate(t.vocab_bytes) if b.endswith(b":")]
    space = [i for i, b in enumerate(t.vocab_bytes) if b == b" "]
    assert colon and space
    why = t.skip_reason(colon[0], space[0])
    assert (why is not None) == (kind == "superbpe")
    t.goto(T - 1)
    assert t.skip_reason(colon[0], space[0]) is None   # stage 1 skips nothing


@pytest.mark.parametrize("missing", ["undo", "tokenizer", "top_pairs", "furthest_step"])
def test_a_run_that_lacks_a_member_cannot_be_made(missing):
    """The members each run defines itself are abstract at run time, not only for mypy:
    a run made of Trainer's members but one is refused, naming the one."""
    members = {k: v for k, v in vars(Trainer).items() if k != missing}
    partial = type("Partial", (RunCommon,), members)
    with pytest.raises(TypeError, match=missing):
        partial(Trainer.from_text("low lower").table)
    Trainer(Trainer.from_text("low lower").table)   # with every member: made
