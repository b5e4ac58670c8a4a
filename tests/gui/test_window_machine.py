"""The window tells the truth after any sequence of actions (issue 63): a model-based test
of the controller.

Hypothesis' rule-based state machine drives a real Controller through random sequences of
what a user does: open a corpus (typed text, a file, a streamed file, a word-count
table), edit it; turn parity, SuperBPE and training on from a tokenizer on and off;
change the target, tie rule and pattern; train, step, step back, jump; import a
tokenizer and use it; save the session, quit and relaunch. After every action it
checks, against the engine alone, fed exactly what the window says it is showing (the
controller's plan):

- the merges shown equal a fresh engine training on what the plan names (the corpus
  text or the languages' files) with the settings shown, to the step shown;
- the corpus line's counts are the corpus's own (never another mode's reading);
- the encode view's ids equal the engine's for that tokenizer (trained as of the step,
  or the imported file loaded afresh);
- the compression and Rényi charts equal the corpus encoded afresh at the step shown,
  and parity's plain-BPE comparison covers every step of the run;
- a relaunch from the saved session shows what the window showed before quitting.

Thresholds are lowered so that a few KB take the routes a big corpus takes (jobs on the
worker thread, pre-token tables reused between trainings, streamed files).
Failing sequences shrink to a minimal one and are printed as Python.
"""
from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections import Counter
import gc
import random
import weakref
from dataclasses import replace
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent
from pytestqt.exceptions import TimeoutError as WaitTimeout
from hypothesis import HealthCheck, seed, settings, strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule, run_state_machine_as_test)

from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.formats import export_formats, load_tokenizer
from bpe_gui.engine.text import Pretokenizer
from bpe_gui.engine.tokenizers import Tokenizer
from bpe_gui.engine.train import ParityRun, Trainer, TrainSettings, train_superbpe
from bpe_gui.gui.controller import controller as controller_mod
from bpe_gui.gui.controller import corpus_source, training as training_mod
from bpe_gui.gui.controller.controller import Controller
from bpe_gui.gui.controller.parity_setup import Language, ParitySetup
from bpe_gui.gui.controller.plan import PARITY, TRAIN_ON
from bpe_gui.gui.panels.charts.charts import ChartsView
from chart_oracle import renyi

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"
SAMPLE = "The lower widest newest: 最新的 low-lying words, 42 times."
WAIT_MS = 60_000


def _english(n: int, seed: int, words: str) -> str:
    rng = random.Random(seed)
    vocab = words.split()
    return " ".join(rng.choice(vocab) for _ in range(n))


TEXTS = {
    "tutorial": "low low lower newest newest widest widest widest",
    "tiny": _english(80, 1, "the quick brown fox jumps over lazy dogs"),
    "medium": _english(700, 2, "merry minstrels sing songs of old kings and queens"),
    "mixed": _english(200, 3, "中文 分词 the tokenizer 训练 merges 字节 pairs"),
}
FILE_TEXT = _english(600, 4, "rivers run past mills where millers mill grain")
STREAM_TEXT = _english(1500, 5, "streams of words flow through files too big to edit")


@functools.lru_cache(maxsize=256)
def plain_merges(text: str, settings: TrainSettings, k: int) -> tuple:
    """The engine's own training, from scratch, on ``text``: the first k merges."""
    if settings.superbpe_from is not None:
        return tuple(train_superbpe(text=text, settings=settings).tokenizer().merges[:k])
    t = Trainer.from_source(text, settings)
    t.goto(k, detail=False)
    return tuple(t.merges[:k])


@functools.lru_cache(maxsize=64)
def parity_merges(languages: tuple, merges: int, k: int) -> tuple:
    run = ParityRun.from_files([(n, tr) for n, tr, _ in languages],
                               [(n, dv) for n, _, dv in languages],
                               replace_merges(merges))
    run.goto(k, detail=False)
    return tuple(run.merges[:k])


@functools.lru_cache(maxsize=16)
def loaded(path: str) -> Tokenizer:
    """The engine's own reading of a tokenizer file (the test's files never change)."""
    return load_tokenizer(path)


def replace_merges(n: int):
    from bpe_gui.engine.train import ParitySettings
    return ParitySettings(num_merges=n)


class WindowMachine(RuleBasedStateMachine):
    qtbot = None
    folder: Path = Path()

    @initialize()
    def launch(self):
        self.c = self._new_controller()
        self.c.set_settings(TrainSettings(num_merges=20))
        self.c.set_corpus_text(TEXTS["tutorial"], dirty=False)
        self.files = self._make_files()
        self.session_no = 0

    def _new_controller(self) -> Controller:
        c = Controller()
        self._controllers.append(c)
        self.charts = ChartsView(c)   # follows the controller's signals, as in the window
        self._views.append(self.charts)
        self.charts.resize(800, 600)
        self.charts.show()
        return c

    def _make_files(self) -> dict[str, str]:
        d = self.folder
        out = {}
        (d / "rivers.txt").write_text(FILE_TEXT, encoding="utf-8")
        (d / "streams.txt").write_text(STREAM_TEXT, encoding="utf-8")
        out["file"], out["stream"] = str(d / "rivers.txt"), str(d / "streams.txt")
        out["table"] = str(d / "rivers.counts.tsv")
        if not Path(out["table"]).exists():
            count_corpus(out["file"], Pretokenizer("cl100k"), out=out["table"])
        for n in ("en", "de", "ru", "zh"):   # the first lines of the parallel fixtures
            for role in ("train", "dev"):
                head = (FIXTURES / f"{n}.{role}.txt").read_text(encoding="utf-8")
                (d / f"{n}.{role}.txt").write_text("".join(head.splitlines(True)[:25]),
                                                   encoding="utf-8")
        if not (d / "tok" / "vocab.json").exists():
            tok = Trainer.from_source(TEXTS["medium"], TrainSettings(num_merges=30))
            tok.goto(30, detail=False)
            export_formats(tok.tokenizer(), d / "tok", ["gpt2", "hf", "tiktoken"])
        out["gpt2"] = str(d / "tok" / "vocab.json")
        out["hf"] = str(d / "tok" / "tokenizer.json")
        out["tiktoken"] = str(d / "tok" / "tokenizer.tiktoken")
        return out

    def teardown(self):
        # each sequence lets go of what it made (checked: a thousand sequences held
        # gigabytes): the controllers go quiet first, so nothing reaches a view once it
        # is deleted
        made = [weakref.ref(o) for o in (*self._controllers, *self._views)]
        c = v = None
        for c in self._controllers:
            c.shutdown()
            c.blockSignals(True)
        for v in self._views:
            v.close()
            v.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        # a controller's Qt connections hold closures over it and its views: a cycle
        # through C++ that Python's collector cannot see, so the QObject is deleted
        for c in self._controllers:
            shiboken6.delete(c)
        self._controllers.clear()
        self._views.clear()
        self.c = self.charts = c = v = None

        def gone() -> bool:   # (a callback posted before the end may hold one a moment)
            gc.collect()   # the controllers' parts hold each other (a job may pause gc)
            return all(r() is None for r in made)
        try:
            self.qtbot.waitUntil(gone, timeout=10_000)
        except WaitTimeout:
            kept = [type(o).__name__ for o in (r() for r in made) if o is not None]
            raise AssertionError(f"the sequence's {kept} outlive it") from None

    # ----- waiting -----------------------------------------------------------------------
    def idle(self):
        self.qtbot.waitUntil(lambda: not self.c.busy, timeout=WAIT_MS)

    # ----- the corpus ----------------------------------------------------------------------
    @rule(name=st.sampled_from(sorted(TEXTS)))
    def type_corpus(self, name):
        self.idle()
        self.c.set_corpus_text(TEXTS[name], dirty=True)

    @rule(word=st.sampled_from(["lowest", "新词", "widest", "  "]))
    def edit_corpus(self, word):
        self.idle()
        if self.c.streamed or self.c.is_table():
            return
        self.c.set_corpus_text(self.c.corpus_text + " " + word, paths=self.c.corpus_paths,
                               dirty=True)

    @rule(which=st.sampled_from(["file", "stream", "table"]))
    def open_file(self, which):
        self.idle()
        self.c.opening.open_files([self.files[which]])
        self.idle()

    # ----- modes -----------------------------------------------------------------------
    @rule(langs=st.sampled_from([("en", "de"), ("ru", "zh"), ("en", "zh", "ru")]))
    def parity_on(self, langs):
        self.idle()
        self.c.set_parity(ParitySetup(enabled=True, languages=tuple(
            Language(n, str(self.folder / f"{n}.train.txt"),
                     dev=str(self.folder / f"{n}.dev.txt"))
            for n in langs)))

    @rule()
    def parity_off(self):
        self.idle()
        self.c.set_parity(replace(self.c.parity, enabled=False))

    @rule(t=st.sampled_from([None, 5, 12]))
    def superbpe(self, t):
        self.idle()
        if self.c.parity.active or self.c.train_on.active:
            return   # the panel greys the setting in these modes
        self.c.set_settings(replace(self.c.settings, superbpe_from=t))

    @rule(which=st.sampled_from(["gpt2", "hf", "tiktoken"]))
    def import_tokenizer(self, which):
        self.idle()
        self.c.tokenizer_files.import_tokenizer(self.files[which])

    @rule(on=st.booleans())
    def use_imported(self, on):
        self.idle()
        self.c.tokenizer_files.set_use_imported(on)

    @precondition(lambda self: self.c.imported is not None)
    @rule(n=st.sampled_from([8, 15]))
    def train_on(self, n):
        self.idle()
        if self.c.parity.active:
            return
        self.c.train_on.start(num_merges=n)
        self.idle()

    @rule()
    def leave_train_on(self):
        self.idle()
        self.c.train_on.leave()

    # ----- settings ----------------------------------------------------------------------
    @rule(n=st.sampled_from([10, 20, 30]))
    def target(self, n):
        self.idle()
        self.c.set_settings(replace(self.c.settings, num_merges=n, vocab_size=None))

    @rule(tie=st.sampled_from(["greatest", "first-seen", "lowest-ids"]),
          pattern=st.sampled_from(["gpt2", "cl100k"]))
    def settings_change(self, tie, pattern):
        self.idle()
        if self.c.train_on.active or self.c.parity.active:
            self.c.set_settings(replace(self.c.settings, tie_rule=tie))
            return
        self.c.set_settings(replace(self.c.settings, tie_rule=tie, pattern=pattern))

    # ----- training and stepping -----------------------------------------------------------
    @rule()
    def train(self):
        self.idle()
        self.c.training.train()
        self.idle()

    @rule()
    def retrain(self):
        """Retrain from step 0 (Ctrl+R)."""
        self.idle()
        self.c.training.retrain()
        self.idle()

    @rule()
    def step(self):
        self.idle()
        self.c.step()
        self.idle()

    @rule()
    def back(self):
        self.idle()
        self.c.undo()
        self.idle()

    @rule(k=st.integers(0, 30))
    def jump(self, k):
        self.idle()
        self.c.goto(k)
        self.idle()

    # ----- sessions ----------------------------------------------------------------------
    @rule()
    def relaunch(self):
        """Save the session, quit, start a new window and open it: what comes back is
        what was shown (when what was shown was up to date)."""
        self.idle()
        c = self.c
        if c.trainer is None or c.stale:
            return
        before = self.shown()
        self.session_no += 1
        path = self.folder / f"s{self.session_no}.bpe-session.json"
        c.opening.save_session(str(path))
        c.shutdown()
        self.c = self._new_controller()
        self.c.opening.open_session(str(path))
        self.idle()
        self.qtbot.waitUntil(lambda: not self.c.busy and self.c.trainer is not None,
                             timeout=WAIT_MS)
        assert self.shown() == before, "a relaunch showed something else"

    def shown(self) -> tuple:
        c = self.c
        t = c.trainer
        return (c.training.plan().reads()[0], c.settings, t.n_steps,
                tuple(t.merges[:t.n_steps]), c.use_imported)

    # ----- invariants --------------------------------------------------------------------
    def oracle(self) -> tuple | None:
        """The engine's merges, from scratch, for what the window says it shows, to the
        step shown (None: the window is not showing a finished training, or training on,
        checked apart)."""
        c = self.c
        t, plan = c.trainer, c.training.plan()
        if c.busy or t is None or c.stale or plan.mode == TRAIN_ON:
            return None
        k = t.n_steps
        if plan.mode == PARITY:
            langs = tuple((lang.name, lang.train, lang.dev) for lang in plan.parity.languages)
            return parity_merges(langs, t.target_steps or k, k)
        text = self._corpus_text()
        return None if text is None else plain_merges(text, c.settings, k)

    @invariant()
    def merges_are_the_engines_for_what_is_shown(self):
        c = self.c
        want = self.oracle()
        if want is not None:
            t = c.trainer
            assert tuple(t.merges[:t.n_steps]) == want, \
                f"{c.training.plan().mode} training shows merges the engine does not make"
        elif not c.busy and c.trainer is not None and not c.stale and c.train_on.active:
            src = loaded(c.train_on.source_path)
            t = c.trainer
            assert tuple(t.merges[:t.n_inherited]) == tuple(src.merges), \
                "training on lost the source's merges"

    def _corpus_text(self) -> str | None:
        c = self.c
        if c.streamed:
            return Path(c.corpus_paths[0]).read_text(encoding="utf-8")
        if c.is_table():   # counted from the file the test made it of
            return FILE_TEXT
        return c.corpus_text

    @invariant()
    def corpus_line_counts_the_corpus(self):
        c = self.c
        if c.busy:
            return
        shown = c.queries.corpus_pretokens()
        text = self._corpus_text()
        if shown is None or text is None:
            return
        words = Pretokenizer(c.settings.pattern, c.settings.special_tokens).words(text)
        assert shown == (len(words), len(set(words))), "the corpus line counts another text"

    def oracle_tokenizer(self) -> Tokenizer | None:
        """The engine's tokenizer of the oracle's merges, for byte-level training of a
        plain or parity run (SuperBPE's stage 2 cuts text otherwise: left out)."""
        c = self.c
        merges = self.oracle()
        if merges is None or c.settings.superbpe_from is not None:
            return None
        vocab = {i: bytes([i]) for i in range(256)}
        for a, b in merges:
            vocab[len(vocab)] = a + b
        parity = c.training.plan().mode == PARITY
        if not parity and c.settings.mode != "byte":
            return None
        return Tokenizer(vocab, list(merges), pattern="gpt2" if parity else c.settings.pattern)

    @invariant()
    def encode_view_ids_are_the_engines(self):
        c = self.c
        tok = None if c.busy else c.tokenizer()
        if tok is None:
            return
        fresh = loaded(c.imported_path) if c.use_imported else self.oracle_tokenizer()
        if fresh is None:
            return
        assert tok.encode(SAMPLE) == fresh.encode(SAMPLE), "the encode view cuts otherwise"

    @invariant()
    def charts_are_recounted(self):
        """Compression and Rényi efficiency at step 0 and at the step shown, against the
        corpus encoded afresh by the oracle's tokenizer (plain byte-level runs of the
        text in the window, whose every byte the charts count)."""
        c = self.c
        if c.busy or c.trainer is None or c.stale or c.training.plan().mode != "plain" \
                or c.streamed or c.is_table():
            return
        tok = self.oracle_tokenizer()
        if tok is None:
            return
        self.charts.refresh()
        _, bpt = self.charts.compression.data("corpus")
        _, eff = self.charts.renyi.data("corpus")
        text, k = c.corpus_text, c.trainer.n_steps
        ids = tok.encode(text)
        assert len(bpt) == k + 1 and bpt[0] == 1.0, "the compression chart starts elsewhere"
        assert bpt[k] == pytest.approx(len(text.encode()) / len(ids), rel=1e-12)
        assert eff[k] == pytest.approx(renyi(Counter(ids).values(), 256 + k), rel=1e-9)

    @invariant()
    def parity_chart_covers_the_run(self):
        c = self.c
        if c.busy or c.trainer is None or c.stale:
            return
        info = getattr(c.trainer, "parity", None)
        if info is None or info.plain is None:
            return
        assert len(info.plain) >= c.trainer.n_steps + 1, \
            "plain BPE's comparison stops before the run"


SHARDS = 8   # the sequences are split so that the suite's workers share them


def _run(qtbot, tmp_path, monkeypatch, shard: int, examples: int, steps: int = 30):
    monkeypatch.setattr(training_mod, "SYNC_CHARS", 2_000)
    monkeypatch.setattr(training_mod, "SYNC_STEPS", 12)
    monkeypatch.setattr(controller_mod, "SYNC_STEPS", 12)
    monkeypatch.setattr(corpus_source, "EDIT_BYTES", 6_000)
    monkeypatch.setattr(corpus_source, "PROBE_BYTES", 2_000)
    machine = seed(shard)(type(f"WindowMachine{shard}", (WindowMachine,), {}))
    machine.qtbot = qtbot
    machine.folder = tmp_path
    machine._controllers = []
    machine._views = []
    # each job starts with a full collection (gc_policy.py): what the test process holds
    # (hypothesis, pytest, every module) is set aside so that it stays as cheap as the app's
    gc.freeze()
    try:
        run_state_machine_as_test(machine, settings=settings(
            max_examples=examples, stateful_step_count=steps, deadline=None,
            suppress_health_check=list(HealthCheck)))
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("shard", range(SHARDS))
def test_any_sequence_of_actions_shows_the_truth(qtbot, tmp_path, monkeypatch, shard):
    """200 sequences of 30 actions in all."""
    _run(qtbot, tmp_path, monkeypatch, shard, examples=200 // SHARDS)


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
def test_any_longer_run_of_sequences_shows_the_truth(shard):
    """800 sequences of 30 actions in all (with the default run's, 1,000). Each shard
    runs in a process of its own, so that what one shard's runs leave in the process
    (caches, fragmented memory) is given back when it ends. The number is set by CI's
    time: each sequence costs about a second of one core."""
    env = dict(os.environ, BPE_GUI_MACHINE_SHARD=str(SHARDS + shard),
               BPE_GUI_MACHINE_EXAMPLES=str(800 // SHARDS))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-m", "not slow",
                        f"{__file__}::test_one_shard_named_by_the_environment"],
                       env=env, capture_output=True, text=True, timeout=3_000,
                       cwd=Path(__file__).resolve().parents[2])
    assert p.returncode == 0, p.stdout[-8_000:] + p.stderr[-2_000:]
    assert "1 passed" in p.stdout


def test_one_shard_named_by_the_environment(qtbot, tmp_path, monkeypatch):
    """One shard of the slow run (above), in the process it starts."""
    shard = os.environ.get("BPE_GUI_MACHINE_SHARD")
    if shard is None:
        pytest.skip("a shard of the slow run, run by it in a process of its own")
    _run(qtbot, tmp_path, monkeypatch, int(shard), int(os.environ["BPE_GUI_MACHINE_EXAMPLES"]))
