"""One training state (issue 63): what the next training reads and how is one value,
the controller's plan, and a trainer is only reused, counted or shown for the plan it
was built from. Each test here was a bug: a mode's state outlived the mode.

The oracle is the engine alone, fed what the plan names (a fresh trainer on the corpus
text with the settings shown), never the trainer the window holds.
"""
from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from bpe_gui.engine.text import Pretokenizer
from bpe_gui.engine.train import ParityTrainer, ParitySettings
from bpe_gui.engine.train.trainer import Trainer, TrainSettings
from bpe_gui.gui.controller import training as training_mod
from bpe_gui.gui.controller.controller import Controller
from bpe_gui.gui.controller.parity_setup import Language, ParitySetup

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"
MERGES = 40

pytestmark = pytest.mark.regression


def english(n_chars: int, seed: int = 7) -> str:
    """A plain corpus unlike the parity fixtures (no Cyrillic, no Han)."""
    rng = random.Random(seed)
    words = "the quick brown fox jumps over lazy dogs while merry minstrels sing".split()
    out, size = [], 0
    while size < n_chars:
        w = rng.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


def engine_merges(text: str, settings: TrainSettings, k: int) -> list[tuple[bytes, bytes]]:
    t = Trainer.from_source(text, settings)
    t.goto(k, detail=False)
    return t.merges[:k]


def parity_on() -> ParitySetup:
    return ParitySetup(enabled=True, languages=tuple(
        Language(n, str(FIXTURES / f"{n}.train.txt"), dev=str(FIXTURES / f"{n}.dev.txt"))
        for n in ("ru", "zh")))


def train(qtbot, c: Controller) -> None:
    assert c.training.train()
    qtbot.waitUntil(lambda: not c.busy and c.trainer is not None and not c.stale
                    and c.trainer.is_done, timeout=60_000)


@pytest.fixture
def big_threshold(monkeypatch):
    """Corpora over a few KB take the job route (the one that reuses pre-token tables),
    as a 1 MB corpus does with the window's real threshold."""
    monkeypatch.setattr(training_mod, "SYNC_CHARS", 2_000)


def test_plain_training_after_parity_reads_the_corpus_not_the_languages(qtbot, big_threshold):
    text = english(6_000)
    settings = TrainSettings(num_merges=MERGES)
    c = Controller()
    try:
        c.set_settings(settings)
        c.set_corpus_text(text, dirty=False)
        train(qtbot, c)
        first = c.trainer.merges[:c.trainer.n_steps]
        c.set_parity(parity_on())
        train(qtbot, c)
        assert c.trainer.parity is not None
        c.set_parity(ParitySetup(enabled=False, languages=c.parity.languages))
        train(qtbot, c)
        assert c.trainer.merges[:c.trainer.n_steps] == engine_merges(text, settings, MERGES) == first
        words = Pretokenizer(settings.pattern).words(text)
        assert c.queries.corpus_pretokens() == (len(words), len(set(words)))
    finally:
        c.shutdown()


def test_the_corpus_line_never_shows_the_languages_counts(qtbot, big_threshold):
    """While parity trains, the corpus's own line does not take the languages' table
    for the corpus's counts."""
    text = english(6_000, seed=3)
    c = Controller()
    try:
        c.set_settings(TrainSettings(num_merges=MERGES))
        c.set_corpus_text(text, dirty=False)
        c.set_parity(parity_on())
        train(qtbot, c)
        shown = c.queries.corpus_pretokens()
        words = Pretokenizer("gpt2").words(text)
        assert shown is None or shown == (len(words), len(set(words)))
        assert c.queries.corpus_text_counts() in (None, (len(text), len(text.encode())))
    finally:
        c.shutdown()


def test_a_new_file_after_parity_trains_on_that_file(qtbot, big_threshold, tmp_path):
    text = english(5_000, seed=11)
    other = english(7_000, seed=12).replace("o", "ö")
    settings = TrainSettings(num_merges=MERGES)
    c = Controller()
    try:
        c.set_settings(settings)
        c.set_corpus_text(text, dirty=False)
        c.set_parity(parity_on())
        train(qtbot, c)
        c.set_parity(ParitySetup(enabled=False, languages=c.parity.languages))
        path = tmp_path / "other.txt"
        path.write_text(other, encoding="utf-8")
        c.opening.open_files([str(path)])
        qtbot.waitUntil(lambda: not c.busy and c.corpus_text == other, timeout=30_000)
        train(qtbot, c)
        assert c.trainer.merges[:c.trainer.n_steps] == engine_merges(other, settings, MERGES)
    finally:
        c.shutdown()


def test_the_corpus_line_says_parity_reads_the_languages(qtbot, window):
    """The window's corpus line names what the next training reads: with parity on, the
    languages' files, not the text in the editor; with parity off again, the text."""
    c, label = window.controller, window.dock_layout.editor.source_label
    c.set_corpus_text(english(30_000), dirty=True)   # not tiny: no count at once
    assert "parity" not in label.text()
    c.set_parity(parity_on())
    assert "not trained on" in label.text() and "ru, zh" in label.text()
    stats = window.dock_layout.editor.stats_label.text().replace("\xa0", " ")
    assert "parity training reads its languages" in stats and "Ctrl+R" not in stats
    c.set_parity(ParitySetup(enabled=False, languages=c.parity.languages))
    assert "parity" not in label.text() and label.text().startswith("Typed")


def test_parity_on_ends_training_on(qtbot, tmp_path):
    """Found by the window's state machine: import, train on, tick parity, step back.
    Training on went on rebuilding from its tokenizer while the window said parity, so
    the encode view cut with neither. Parity on now ends training on; training on is
    refused, saying why, while parity is on."""
    from bpe_gui.engine.formats import export_formats
    src = Trainer.from_source(english(2_000, seed=5), TrainSettings(num_merges=30))
    src.goto(30, detail=False)
    export_formats(src.tokenizer(), tmp_path, ["gpt2"])
    c = Controller()
    errors: list[str] = []
    c.errorOccurred.connect(lambda title, msg: errors.append(msg))
    try:
        c.set_settings(TrainSettings(num_merges=20))
        c.set_corpus_text(english(800, seed=6), dirty=False)
        assert c.tokenizer_files.import_tokenizer(str(tmp_path / "vocab.json")) is not None
        assert c.train_on.start(num_merges=8)
        qtbot.waitUntil(lambda: not c.busy and c.train_on.active and not c.stale,
                        timeout=60_000)
        c.set_parity(parity_on())
        assert not c.train_on.active
        c.undo()
        qtbot.waitUntil(lambda: not c.busy and not c.stale, timeout=60_000)
        assert c.trainer.parity is not None
        assert not c.train_on.start(num_merges=8)
        assert "Parity-aware training is on" in errors[-1]
    finally:
        c.shutdown()


def test_a_parity_run_goes_on_to_a_new_target_whatever_the_plain_settings(qtbot):
    """The panel's plain settings (here character mode and the whitespace pattern, as
    the tutorial sample leaves them) are not parity's: a new target continues the parity
    run instead of reading every file again, and the plain settings stay the user's."""
    plain = TrainSettings(num_merges=10, mode="char", pattern="whitespace", tie_rule="first-seen")
    c = Controller()
    try:
        c.set_settings(plain)
        c.set_corpus_text(english(300), dirty=False)
        c.set_parity(parity_on())
        train(qtbot, c)
        run = c.trainer
        first = list(run.merges[:10])
        assert c.set_settings(replace(plain, num_merges=25))
        assert not c.stale and c.trainer is run
        train(qtbot, c)
        assert c.trainer is run and run.n_steps == 25
        assert list(run.merges[:10]) == first
        langs = tuple((lang.name, lang.train, lang.dev) for lang in c.parity.languages)
        fresh = ParityTrainer.from_files([(n, t) for n, t, _ in langs],
                                         [(n, d) for n, _, d in langs],
                                         ParitySettings(num_merges=25), lines=True)
        fresh.goto(25, detail=False)
        assert list(run.merges[:25]) == list(fresh.merges[:25])
        assert c.settings == replace(plain, num_merges=25)
    finally:
        c.shutdown()
