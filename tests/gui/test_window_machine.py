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
- a relaunch from the saved session shows what the window showed before quitting, the
  Chat view's conversation, template files and JSON mode included;
- the Chat view's prompt is its template file rendered by jinja2 itself (turns added and
  removed through the rows or Edit as JSON, template files switched).
- the window's training spec, run through the command line as the exact command the
  window copies ("Copy as command"), writes the merges the window shows;
- every setting the panels show as enabled (engine.train.unused: what they grey) and
  applied is honoured by the run, and a greyed one is not (pruning, SuperBPE);
- trained steps never vanish without a question (Step after an edit, a mode change
  applied, Train from scratch again: answered Train again or Cancel by the machine) or
  an action meant to train anew (issue 89).

The window's layout (resizes, Focus on and off, relaunches) has a machine of its own,
test_layout_machine.py: a main window costs a sequence several times as much.

Thresholds are lowered so that a few KB take the routes a big corpus takes (jobs on the
worker thread, pre-token tables reused between trainings, streamed files).
Failing sequences shrink to a minimal one and are printed as Python.
"""
from __future__ import annotations

import functools
import os
from array import array
import shlex
import subprocess
import sys
from collections import Counter
import gc
import random
from dataclasses import replace
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent
from hypothesis import HealthCheck, seed, settings, strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule, run_state_machine_as_test)

from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.formats import export_formats, load_tokenizer
from bpe_gui.engine.text import Pretokenizer
from bpe_gui.engine.tokenizers import Tokenizer
from bpe_gui.engine.train import ParityTrainer, Trainer, TrainSettings, train_superbpe
from bpe_gui.gui.controller import controller as controller_mod
from bpe_gui.gui.controller import corpus_source, training as training_mod
from bpe_gui.gui.controller.controller import Controller
from bpe_gui.gui.controller.parity_setup import Language, ParitySetup
from bpe_gui.cli.train_on import spec_of
from bpe_gui.engine.errors import BPEError
from bpe_gui.engine.train import PARITY, TRAIN_ON, TrainSettings as _TS, build_run, unused
from bpe_gui.gui.dialogs.ids_dialog import IdsDialog
from bpe_gui.gui.panels.charts.charts import ChartsView
from bpe_gui.gui.models.glyphs import use_glyphs
from chart_oracle import renyi
from machine_views import CHAT_TEMPLATE, CHAT_TEMPLATE_B, Views, no_han_glyphs, turns_of

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


def parity_merges(languages: tuple, merges: int, k: int) -> tuple:
    return parity_run(languages, merges, k)[0]


@functools.lru_cache(maxsize=64)
def parity_run(languages: tuple, merges: int, k: int) -> tuple[tuple, dict[str, int]]:
    """A parity run made afresh to step k: its merges, and each language's turns."""
    run = ParityTrainer.from_files([(n, tr) for n, tr, _ in languages],
                                   [(n, dv) for n, _, dv in languages],
                                   replace_merges(merges), lines=True)
    run.goto(k, detail=False)
    return tuple(run.merges[:k]), turns_of(run.parity.steps[:k], [n for n, _, _ in languages])


@functools.lru_cache(maxsize=256)
def cli_merges(argv: tuple, stdin: str | None) -> tuple:
    """The merges ``bpe-gui train ARGV`` makes: the command line's own parser and checks
    read the command into its spec (``spec_of``, what ``main`` trains), built by the one
    factory and run to the target; ``stdin``: the text it reads for ``-``."""
    spec, source = spec_of(list(argv))
    if stdin is not None:
        spec = replace(spec, corpus=(), text=stdin)
    run = build_run(spec, base=source, undo=False)
    run.run(detail=False)
    return tuple(run.tokenizer().merges)


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
        Views.fresh_install()
        self.files = self._make_files()
        self.c = self._new_controller()
        self.c.set_settings(TrainSettings(num_merges=20))
        self.c.set_corpus_text(TEXTS["tutorial"], dirty=False)
        self.session_no = 0
        self.clean: tuple | None = ("text", TEXTS["tutorial"])   # the corpus without edits
        # trained steps go only after a question answered "Train again", or an action
        # meant to train anew (Train, Retrain, new settings, another corpus, asked there)
        self.answer = True         # the answer to the next question before steps go
        self.may_go = None         # the run whose steps the user let go
        self.seen: tuple | None = None   # (controller, run, its furthest step) last seen

    def _new_controller(self, before: Views | None = None) -> Controller:
        """A controller and the window's views of it (``before``: those of the window
        before a relaunch, whose chat the new one restores)."""
        if before is not None:
            before.go_quiet()
        c = Controller()
        c.training.confirm_drop = self._drop_asked   # the window's question
        self._controllers.append(c)
        self.charts = ChartsView(c)   # follows the controller's signals, as in the window
        self._views.append(self.charts)
        self.charts.resize(800, 600)
        self.charts.show()
        self.views = Views(c, {"a": self.folder / "chat.jinja", "b": self.folder / "chat_b.jinja"},
                           before)   # chat, compare, status, corpus
        self._all_views.append(self.views)
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
        (d / "chat.jinja").write_text(CHAT_TEMPLATE, encoding="utf-8")
        (d / "chat_b.jinja").write_text(CHAT_TEMPLATE_B, encoding="utf-8")
        out["gpt2"] = str(d / "tok" / "vocab.json")
        out["hf"] = str(d / "tok" / "tokenizer.json")
        out["tiktoken"] = str(d / "tok" / "tokenizer.tiktoken")
        return out

    def teardown(self):
        # each sequence lets go of what it made (a thousand sequences held gigabytes):
        # the controllers go quiet first, so nothing reaches a view once it is deleted
        c = v = None
        for c in self._controllers:
            c.shutdown()
            c.blockSignals(True)
        self._views.extend(w for vs in self._all_views for w in vs.all())
        self._all_views.clear()
        for v in self._views:
            v.close()
        # callbacks the views posted for the next pass of the event loop (closing posts
        # some) run first: one whose view is deleted before it runs is never given back
        QCoreApplication.processEvents()
        for v in self._views:
            v.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        # a controller's Qt connections hold closures over it and its views: a cycle
        # through C++ that Python's collector cannot see, so the QObject is deleted
        for c in self._controllers:
            shiboken6.delete(c)
        self._controllers.clear()
        self._views.clear()
        self.c = self.charts = self.views = c = v = None
        self.may_go = self.seen = None
        gc.collect()   # the controllers' parts hold each other (a job may have paused gc)
        # what is left is the test process's (hypothesis, the oracles' caches): set aside
        # like the rest of it (_run), so the next sequence's jobs scan only their own
        gc.freeze()

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
        self._anew()
        self.c.opening.open_files([self.files[which]])
        self.idle()
        if self.c.corpus_paths == [self.files[which]] and not self.c.corpus_dirty:
            self.clean = ("paths", [self.files[which]])

    @rule(answer=st.booleans())
    def clear(self, answer):
        """Corpus > Clear, its question answered Clear (True) or Cancel."""
        self._anew()
        before = (self.c.corpus_text, self.c.corpus_paths)
        self.views.editor.confirm_clear = lambda: answer
        self.views.editor.new_corpus()
        self.idle()
        if answer:
            assert self.c.corpus_text == "" and not self.c.corpus_paths
            self.clean = ("text", "")
        else:
            assert (self.c.corpus_text, self.c.corpus_paths) == before, "Cancel cleared"

    # ----- modes -----------------------------------------------------------------------
    @rule(langs=st.sampled_from([("en", "de"), ("ru", "zh"), ("en", "zh", "ru")]))
    def parity_on(self, langs):
        self.idle()
        self.c.apply(self.c.settings, ParitySetup(enabled=True, languages=tuple(
            Language(n, str(self.folder / f"{n}.train.txt"),
                     dev=str(self.folder / f"{n}.dev.txt"))
            for n in langs)))

    @rule()
    def parity_off(self):
        self.idle()
        self.c.apply(self.c.settings, replace(self.c.parity, enabled=False))

    @rule(t=st.sampled_from([None, 5, 12]))
    def superbpe(self, t):
        """SuperBPE ticked or not, in every mode (parity and training on do not use it:
        the run must not either)."""
        self.idle()
        self.c.apply(replace(self.c.settings, superbpe_from=t), self.c.parity)

    @rule(on=st.booleans())
    def prune(self, on):
        self._anew()
        if on and self.c.settings.superbpe_from is not None and not (
                self.c.parity.active or self.c.train_on.active):
            return   # (SuperBPE greys it: it is not applied with it)
        self.c.set_settings(replace(self.c.settings, prune=on))

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
        self._anew()
        if self.c.parity.active:
            return
        self.c.train_on.start(num_merges=n)
        self.idle()

    @rule(which=st.sampled_from(["step", "imported"]))
    def encode_files(self, which):
        """File › Encode files to ids, by the trained tokenizer at the step shown or the
        imported one, in any mode: the file holds the engine's ids of each document (the
        imported file loaded afresh), the typed end-of-text id between them."""
        self.idle()
        c = self.c
        dlg = IdsDialog(c)
        self._views.append(dlg)
        i = dlg.source.findData(which)
        v = c.view()
        if i < 0 or (which == "step" and (v is None or c.stale)):
            return
        dlg.source.setCurrentIndex(i)
        self.session_no += 1
        path = self.folder / f"docs{self.session_no}.txt"
        docs = ["low lower newest", "the river 东京 flows, 42 times"]
        path.write_text("\n\n".join(docs), encoding="utf-8")
        dlg.add_files([str(path)])
        dlg.out.setText(str(self.folder / f"ids{self.session_no}.bin"))
        dlg.separator.setText(r"\n\n")
        dlg.eot.setText("7")
        tok = loaded(c.imported_path) if which == "imported" else v.tokenizer()
        with self.qtbot.waitSignal(c.jobs.ended, timeout=WAIT_MS):
            assert dlg.run(), dlg.status.text()
        meta = dlg.meta
        assert meta is not None, dlg.status.text()
        got = array("H" if meta["dtype"] == "uint16" else "I", Path(dlg.out.text()).read_bytes())
        assert list(got) == tok.encode_ordinary(docs[0]) + [7] + tok.encode_ordinary(docs[1]), \
            f"Encode files to ids wrote ids the {which} tokenizer does not give"

    @rule()
    def leave_train_on(self):
        """Training > Train from scratch again (asked when trained steps go)."""
        self.idle()
        self.c.train_on.end()

    @rule(yes=st.booleans())
    def answer_next(self, yes):
        """How the next question before trained steps go is answered."""
        self.answer = yes

    def _drop_asked(self, what: str, steps: int) -> bool:
        assert steps > 0, f"{what}: asked with nothing trained"
        if self.answer:
            self.may_go = self.c.trainer
        return self.answer

    def _anew(self) -> None:
        """An action meant to train anew (or asked about in the window, as a new corpus
        is): the run in use may go."""
        self.idle()
        self.may_go = self.c.trainer

    # ----- settings ----------------------------------------------------------------------
    @rule(n=st.sampled_from([10, 20, 30]))
    def target(self, n):
        self._anew()
        self.c.set_settings(replace(self.c.settings, num_merges=n, vocab_size=None))

    @rule(tie=st.sampled_from(["greatest", "first-seen", "lowest-ids"]),
          pattern=st.sampled_from(["gpt2", "cl100k"]))
    def settings_change(self, tie, pattern):
        self._anew()
        if self.c.train_on.active or self.c.parity.active:
            self.c.set_settings(replace(self.c.settings, tie_rule=tie))
            return
        self.c.set_settings(replace(self.c.settings, tie_rule=tie, pattern=pattern))

    # ----- training and stepping -----------------------------------------------------------
    @rule()
    def train(self):
        self._anew()
        self.c.training.train()
        self.idle()

    @rule()
    def retrain(self):
        """Retrain from step 0 (Ctrl+R)."""
        self._anew()
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

    @rule(ks=st.lists(st.integers(0, 30), min_size=2, max_size=6))
    def scrub(self, ks):
        """The timeline's scrubber dragged: a jump to each step it passes, the encode
        view right at each (timeline_tools.py goes again once the last jump is done)."""
        for k in ks:
            self.idle()
            self.c.goto(k)
            self.idle()
            self.encode_view_chips_are_the_engines()

    # ----- the chat ----------------------------------------------------------------------
    @rule(role=st.sampled_from(["user", "assistant", "system"]),
          text=st.sampled_from(["hello there", "东京 weather?", "  ", "low lower"]))
    def chat_turn(self, role, text):
        self.views.add_turn(role, text)

    @rule()
    def chat_remove_turn(self):
        self.views.remove_turn()

    @rule(which=st.sampled_from(["a", "b", None]))
    def chat_template(self, which):
        """A template file (opened the first time, then its entry), or the tokenizer's own."""
        self.views.pick_template(which)

    @rule()
    def chat_json(self):
        """Edit as JSON on or off; turns added or removed meanwhile go through the JSON."""
        self.views.toggle_json()

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
        self.c = self._new_controller(before=self.views)
        self.c.opening.open_session(str(path))
        self.idle()
        self.qtbot.waitUntil(lambda: not self.c.busy and self.c.trainer is not None,
                             timeout=WAIT_MS)
        assert self.shown() == before, "a relaunch showed something else"
        self.clean = None if self.c.corpus_dirty else self._corpus_now()

    def _corpus_now(self) -> tuple:
        c = self.c
        return ("paths", list(c.corpus_paths)) if c.corpus_paths else ("text", c.corpus_text)

    @precondition(lambda self: self.c.corpus_dirty)   # (without edits: a relaunch)
    @rule()
    def quit_discarding_edits(self):
        """Quit, answering Discard to the corpus edits (the autosave keeps the corpus
        without them), and start again: the corpus is the one before the edits."""
        self.idle()
        c = self.c
        session = c.opening.session(without_edits=True)
        self.session_no += 1
        path = self.folder / f"s{self.session_no}.bpe-session.json"
        session.save(path)
        c.shutdown()
        self.c = self._new_controller(before=self.views)
        self.c.opening.open_session(str(path))
        self.idle()
        if self.clean is not None:   # (typed text comes back unsaved: it has no file)
            assert self._corpus_now() == self.clean, \
                "Discard kept the edits or lost the corpus of before them"
        self.clean = None if self.c.corpus_dirty else self._corpus_now()

    def shown(self) -> tuple:
        c = self.c
        t = c.trainer
        return (c.training.reads()[0], c.settings, t.n_steps,
                tuple(t.merges[:t.n_steps]), c.use_imported)

    # ----- invariants --------------------------------------------------------------------
    def oracle(self) -> tuple | None:
        """The engine's merges, from scratch, for what the window says it shows, to the
        step shown (None: the window is not showing a finished training, or training on,
        checked apart)."""
        c = self.c
        t, plan = c.trainer, c.training.spec()
        if c.busy or t is None or c.stale or plan.mode == TRAIN_ON:
            return None
        k = t.n_steps
        if plan.mode == PARITY:
            langs = tuple((lang.name, lang.train, lang.dev) for lang in plan.parity.languages)
            return parity_merges(langs, t.target_steps or k, k)
        text = self._corpus_text()
        # the settings the run trains with: a greyed one (pruning under SuperBPE) unused
        return None if text is None else plain_merges(text, plan.validated().settings, k)

    @invariant()
    def trained_steps_never_vanish_without_a_question(self):
        """A run with trained steps is replaced only after its question was answered
        Train again, or by an action meant to train anew (_anew)."""
        c = self.c
        if c.busy:
            return
        t = c.trainer
        before = self.seen
        self.seen = (c, t, 0 if t is None else max(t.n_steps, t.furthest_step))
        if before is None or before[0] is not c or before[1] is None or before[1] is t:
            return
        assert before[2] == 0 or before[1] is self.may_go, \
            f"{before[2]} trained steps went without a question"

    @invariant()
    def merges_are_the_engines_for_what_is_shown(self):
        c = self.c
        want = self.oracle()
        if want is not None:
            t = c.trainer
            assert tuple(t.merges[:t.n_steps]) == want, \
                f"{c.training.spec().mode} training shows merges the engine does not make"
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
        parity = c.training.spec().mode == PARITY
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
    def encode_view_chips_are_the_engines(self):
        """What the encode view shows (chips, and the boundaries its text is coloured
        by), after every step, back, jump and scrub, is the engine's encoding at that
        step: the oracle's tokenizer, the imported file loaded afresh, or (SuperBPE,
        characters, training on) the window's own tokenizer encoding the whole text."""
        c = self.c
        if c.busy or c.tokenizer() is None:
            return
        fresh = loaded(c.imported_path) if c.use_imported else self.oracle_tokenizer()
        self.views.check_encode(fresh or c.tokenizer())

    @invariant()
    def charts_are_recounted(self):
        """Compression and Rényi efficiency at step 0 and at the step shown, against the
        corpus encoded afresh by the oracle's tokenizer (plain byte-level runs of the
        text in the window, whose every byte the charts count)."""
        c = self.c
        if c.busy or c.trainer is None or c.stale or c.training.spec().mode != "plain" \
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
        curve = c.plain_curve(info, c.trainer.n_steps) if info is not None else None
        if curve is None:
            return
        assert len(curve) >= c.trainer.n_steps + 1, \
            "plain BPE's comparison stops before the run"


    @invariant()
    def the_windows_command_makes_the_windows_merges(self):
        c = self.c
        t = c.trainer
        if c.busy or t is None or c.stale:
            return
        try:
            command, _ = c.training.command()
        except BPEError:
            return
        argv = shlex.split(command)[1:]
        spec = c.training.effective()
        got = cli_merges(tuple(argv), spec.text if "-" in argv else None)
        shown = tuple(t.tokenizer().merges)
        assert got[:len(shown)] == shown, f"`{command}` makes other merges than the window"

    @invariant()
    def every_setting_in_use_is_honoured(self):
        c = self.c
        t = c.trainer
        run = getattr(t, "spec", None)
        if c.busy or t is None or c.stale or run is None:
            return
        shown, s, r = c.training.spec(), c.settings, run.settings
        greyed = unused(shown)
        if shown.mode in ("plain", "superbpe"):
            greyed.pop("superbpe_from", None)   # (the tick that chooses the mode)
        for key in ("mode", "end_of_word", "pattern", "special_tokens", "tie_rule", "prune",
                    "superbpe_from", "lines", "min_frequency"):
            if key == "end_of_word" and s.mode != "char":
                continue
            if key in greyed:   # not used: not applied either
                if key in ("prune", "superbpe_from"):
                    assert getattr(r, key) == getattr(_TS(), key), f"{key} applied, greyed"
                continue
            want = c.parity.lines if key == "lines" and shown.mode == PARITY else getattr(s, key)
            assert getattr(r, key) == want, f"{key} shown in use, not the run's"
        target = (shown.settings.num_merges, None) if shown.mode == PARITY else \
            (s.num_merges, None if s.num_merges is not None else s.vocab_size)
        assert (r.num_merges, r.vocab_size) == target, "the target shown is not the run's"

    @rule()
    def look_at_chat(self):
        """Raise the Chat tab: its prompt is the template rendered afresh, cut by the
        tokenizer the window uses made afresh."""
        c = self.c
        self.idle()
        fresh = None
        if c.use_imported and c.imported is not None:
            fresh = loaded(c.imported_path)
        elif c.tokenizer() is not None:
            fresh = self.oracle_tokenizer()
        self.views.check_chat(fresh)

    @precondition(lambda self: self.c.trainer is not None)
    @rule()
    def look_at_compare(self):
        """Raise the Compare tab (compact, as in an 800x600 window): side A counts the
        tokens of the steps shown."""
        self.idle()
        self.views.check_compare(self.oracle_tokenizer())

    @invariant()
    def turn_label_counts_the_parity_runs_turns(self):
        c = self.c
        if c.busy or c.trainer is None:
            return
        t = c.view()
        if t is None or t.parity is None:
            self.views.check_turns(None)
            return
        plan = c.training.spec()
        if c.stale or plan.mode != PARITY:
            return   # (a stale run's turns are its own; the window says it is stale)
        langs = tuple((lang.name, lang.train, lang.dev) for lang in plan.parity.languages)
        self.views.check_turns(parity_run(langs, t.target_steps or t.n_steps, t.n_steps)[1])


SHARDS = 8   # the sequences are split so that the suite's workers share them


def _lower_thresholds(monkeypatch) -> None:
    """A few KB take the routes a big corpus takes."""
    monkeypatch.setattr(training_mod, "SYNC_CHARS", 2_000)
    monkeypatch.setattr(training_mod, "SYNC_STEPS", 12)
    monkeypatch.setattr(controller_mod, "SYNC_STEPS", 12)
    monkeypatch.setattr(corpus_source, "EDIT_BYTES", 6_000)
    monkeypatch.setattr(corpus_source, "PROBE_BYTES", 2_000)


def _run(qtbot, tmp_path, monkeypatch, shard: int, examples: int, steps: int = 30):
    _lower_thresholds(monkeypatch)
    machine = seed(shard)(type(f"WindowMachine{shard}", (WindowMachine,), {}))
    machine.qtbot = qtbot
    machine.folder = tmp_path
    machine._controllers = []
    machine._views = []
    machine._all_views = []
    # each job starts with a full collection (gc_policy.py): what the test process holds
    # (hypothesis, pytest, every module) is set aside so that it stays as cheap as the app's
    gc.freeze()
    use_glyphs(no_han_glyphs())   # as on a machine without a CJK font
    try:
        run_state_machine_as_test(machine, settings=settings(
            max_examples=examples, stateful_step_count=steps, deadline=None,
            suppress_health_check=list(HealthCheck)))
    finally:
        use_glyphs(None)
        gc.unfreeze()


@pytest.mark.parametrize("shard", range(SHARDS))
def test_any_sequence_of_actions_shows_the_truth(qtbot, tmp_path, monkeypatch, shard):
    """200 sequences of 30 actions in all."""
    _run(qtbot, tmp_path, monkeypatch, shard, examples=200 // SHARDS)


# The slow run's shards: each the same 100 sequences (its seed, its count) as when there
# were 8, so the run is the first half of the one before.
SLOW_SHARDS = 4


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SLOW_SHARDS))
def test_any_longer_run_of_sequences_shows_the_truth(shard):
    """400 sequences of 30 actions in all (with the default run's, 600). Each shard
    runs in a process of its own, so that what one shard's runs leave in the process
    (caches, fragmented memory) is given back when it ends. The number is set by CI's
    time: each sequence costs about a second of one core (800 here cost CI 14 minutes of
    its two cores' time, too much for its 45 minutes)."""
    env = dict(os.environ, BPE_GUI_MACHINE_SHARD=str(SHARDS + shard),
               BPE_GUI_MACHINE_EXAMPLES="100")
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


def test_a_session_step_past_the_corpus_end_then_a_step_back(qtbot, tmp_path, monkeypatch):
    """A sequence the machine found: Discard at quit brings back the corpus of before the
    edits at the step trained then (30), which that corpus cannot reach (it ends at 15);
    the user goes back to step 0 at once, and the next save must write step 0, not the
    restored session's 30."""
    _lower_thresholds(monkeypatch)
    machine = type("WindowMachineFound", (WindowMachine,), {})
    machine.qtbot, machine.folder = qtbot, tmp_path
    machine._controllers, machine._views, machine._all_views = [], [], []
    state = machine()
    try:
        state.launch()
        state.type_corpus(name="mixed")
        state.target(n=30)
        state.train()
        state.quit_discarding_edits()
        assert state.c.trainer.n_steps < 30   # the corpus ran out of pairs
        state.jump(k=0)
        state.relaunch()
    finally:
        state.teardown()


def test_a_step_after_an_edit_keeps_the_run_when_told_to(qtbot, tmp_path, monkeypatch):
    """Issue 89: a trained run, one word typed, Step (F10): the run went without a
    question. Cancel keeps it; Train again trains the edited corpus, at step 1."""
    _lower_thresholds(monkeypatch)
    machine = type("WindowMachineStep", (WindowMachine,), {})
    machine.qtbot, machine.folder = qtbot, tmp_path
    machine._controllers, machine._views, machine._all_views = [], [], []
    state = machine()
    try:
        state.launch()
        state.train()
        state.trained_steps_never_vanish_without_a_question()
        pairs = tuple(state.c.trainer.merges)
        assert state.c.step_index > 1
        state.edit_corpus(word="lowest")
        state.answer_next(yes=False)
        state.step()
        state.trained_steps_never_vanish_without_a_question()
        assert tuple(state.c.trainer.merges) == pairs and state.c.stale
        state.answer_next(yes=True)
        state.step()
        state.trained_steps_never_vanish_without_a_question()
        assert state.c.step_index == 1 and not state.c.stale
        state.merges_are_the_engines_for_what_is_shown()
    finally:
        state.teardown()
