"""Train on from the imported tokenizer, end to end in the window (issue 22, item 1).

Sources are built here by other libraries: GPT-2 files by Hugging Face ``tokenizers``
(ByteLevelBPETokenizer.save_model), a .tiktoken file by ``tiktoken.load.dump_tiktoken_bpe``.
The new merges are checked against the slow reference of continue_oracle.py (its own
encoder and pair counting), step 0 against the source library's own encoding, and the
window's exports against ``tokenizers`` / ``tiktoken`` loading them.
"""
from __future__ import annotations

import base64
import json
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.gui.models.encoding import PLAIN
from bpe_gui.engine.train.inherited import InheritedTrainer
from conftest import wait_idle
from test_nothing_lost import answer_next_box
from continue_oracle import gpt2_words, ref_train, sample_text

tokenizers = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")

EOT = "<|endoftext|>"
OLD_TEXT = sample_text(1, 300)
NEW_TEXT = sample_text(3, 120, "zh") + sample_text(4, 80) + EOT + "中文的句子，新的词。\n"
PROBE = "新的中文句子 and some English words, 你好世界。\n" + sample_text(7, 10, "zh")


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    """vocab.json + merges.txt written by Hugging Face tokenizers."""
    folder = tmp_path_factory.mktemp("hf_gpt2")
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator([OLD_TEXT], vocab_size=500, min_frequency=1,
                            special_tokens=[EOT], show_progress=False)
    bpe.save_model(str(folder))
    return folder


@pytest.fixture(scope="module")
def tiktoken_file(tmp_path_factory, gpt2_dir):
    """A .tiktoken file (tiktoken's format: base64 token, rank), ranks = the ids of a
    byte-level BPE (the GPT-2 files' tokens, so each is made by a merge of lower-ranked
    ones); tiktoken's own encoder on these ranks is the test's reference."""
    folder = tmp_path_factory.mktemp("tt")
    src = load_tokenizer(gpt2_dir)
    ranks = {}
    for t in [bytes([b]) for b in range(256)] + [a + b for a, b in src.merges]:
        ranks.setdefault(t, len(ranks))
    path = folder / "small.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()))
    (folder / "small.tiktoken.json").write_text(json.dumps(
        {"pat_str": "gpt2", "special_tokens": {EOT: len(ranks)}}))
    return path


def read_ranks(path) -> dict:
    return {base64.b64decode(t): int(r) for t, r in
            (line.split() for line in path.read_text().splitlines())}


def _window_with(make_window, qtbot, source, text=NEW_TEXT):
    win = make_window()
    c = win.controller
    c.set_corpus_text(text, dirty=False)
    assert c.tokenizer_files.import_tokenizer(str(source)) is not None
    wait_idle(qtbot, c)
    return win, c


def _train_on(win, qtbot, n: int, rule: str = "greatest"):
    c = win.controller
    assert win.actions_menus.acts["train_on"].isEnabled()
    win.actions_menus.acts["train_on"].trigger()
    dlg = win.train_on_flow.dialog
    assert dlg is not None and dlg.isVisible()
    win.actions_menus.acts["train_on"].trigger()   # again: the same dialog, not a second
    assert win.train_on_flow.dialog is dlg
    dlg.merges_spin.setValue(n)
    dlg.tie_combo.setCurrentIndex(dlg.tie_combo.findData(rule))
    dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok).click()
    qtbot.waitUntil(lambda: not c.busy and c.train_on.origin() is not None, timeout=30_000)
    return c


def _reference(source, n, rule):
    words = gpt2_words(NEW_TEXT, [EOT])
    merges = [(bytes(a), bytes(b)) for a, b in source.merges[:source.n_merges]]
    return ref_train(dict(words), merges, dict(source.vocab), n, rule)


@pytest.mark.parametrize("rule", ["greatest", "lowest-ids"])
def test_train_on_gpt2_files_from_the_window(make_window, qtbot, gpt2_dir, rule):
    win, c = _window_with(make_window, qtbot, gpt2_dir)
    src = load_tokenizer(gpt2_dir)
    c = _train_on(win, qtbot, 40, rule)
    v = c.view()
    got = [(s.left, s.right, s.new_id) for s in v.steps]
    assert got == _reference(src, 40, rule)
    assert v.n_inherited == src.n_merges and v.n_steps == 40
    # the timeline: one collapsed row for the inherited merges, then the 40 new ones
    tl = win.dock_layout.merge_panel.timeline
    assert tl.rowCount() == 41
    first = tl.index(0, tl.MERGE).data()
    assert f"{src.n_merges:,} inherited merges" in first and "(GPT-2 files)" in first
    assert tl.cell(0, tl.MERGE).content == f"▸ {src.n_merges:,} merges"
    assert "inherited from" in tl.cell(0, tl.TOKEN).content
    assert tl.index(1, tl.TOKEN).data().endswith(f"({max(src.vocab) + 1})")
    # options the source decides are shown fixed in the settings panel
    panel = win.dock_layout.settings_panel
    assert panel.inherited.notice.isVisible() or not panel.isVisible()
    assert not panel.preset_combo.isEnabled() and not panel.specials_edit.isEnabled()
    assert not panel.is_pending()
    # the vocabulary browser: the source's tokens inherited, the new ones by their step
    win.dock_layout.vocab_dock.raise_()
    m = win.dock_layout.vocab_browser.model
    qtbot.waitUntil(lambda: m.source == "trained" and m.rowCount() == v.n_initial + 40)
    steps = {m.index(r, m.ID).data(): m.index(r, m.STEP).data() for r in range(m.rowCount())}
    assert steps[str(src.bytes_to_id[b"e"])] == "inherited"
    assert steps[str(v.steps[-1].new_id)] == "40"
    # step 0 is the source as it was: the encode view's ids are the library's own
    hf = tokenizers.ByteLevelBPETokenizer(str(gpt2_dir / "vocab.json"),
                                          str(gpt2_dir / "merges.txt"))
    ev = win.dock_layout.encode_view
    ev.set_text(PROBE)
    c.goto(0)
    qtbot.waitUntil(lambda: c.step_index == 0 and not c.busy)
    ev.encode_now()
    assert list(ev.encoding.ids) == hf.encode(PROBE).ids
    assert ev.state.spans.news == [False] * len(ev.encoding.ids)


def test_encode_view_and_playback_tell_new_tokens_from_inherited(make_window, qtbot, gpt2_dir):
    win, c = _window_with(make_window, qtbot, gpt2_dir)
    src_vocab = json.loads((gpt2_dir / "vocab.json").read_text())   # the file itself
    inherited_ids = set(src_vocab.values())
    c = _train_on(win, qtbot, 60)
    ev = win.dock_layout.encode_view
    ev.set_text(PROBE)
    ev.encode_now()
    ids = list(ev.encoding.ids)
    assert ev.state.spans.news == [i not in inherited_ids for i in ids]
    assert any(ev.state.spans.news) and not all(ev.state.spans.news)   # both kinds occur in the probe
    assert ev.flow.marks == ev.state.spans.news
    assert ev.origin_legend.isVisibleTo(ev) and "inherited from" in ev.origin_legend.text()
    step_of = {s.new_id: s.index for s in c.view().steps}
    for i, tid in enumerate(ids):
        tip = ev.token_tip(i)
        if tid in inherited_ids:
            assert "inherited from" in tip and "GPT-2 files" in tip
        else:
            assert f"learned at step {step_of[tid]}" in tip
    # the text: new tokens in the underlined formats (5-8), inherited ones in 0-4 (a
    # character split between tokens takes the last one's: whole-character tokens only)
    ev.colour_all()
    fmt = ev.format_kinds()
    whole = [(s, new) for (s, e), new, kind in zip(ev.encoding.offsets, ev.state.spans.news, ev.state.spans.kinds)
             if kind == PLAIN and e > s]
    assert any(new for _, new in whole) and not all(new for _, new in whole)
    for s, new in whole:
        assert (fmt[ev.pos_of_char(s)] >= 5) == new
    # word playback: the merges of rank >= n_inherited are the new ones
    pb = win.dock_layout.playback_view
    s, e = ev.encoding.offsets[ev.state.spans.news.index(True)]   # a word with a new token
    pb.show_word(PROBE[s:e])
    n_inh = c.view().n_inherited
    ranks = [st.rank for st in pb.playback.steps]
    assert any(r is not None and r >= n_inh for r in ranks)
    m = pb.model
    for row, r in enumerate(ranks, 1):
        text = m.index(row, m.RANK).data()
        assert text.startswith("new") == (r >= n_inh)
    assert pb.legend.isVisibleTo(pb)
    # the imported tokenizer in the encode view: no marks, no legend
    c.tokenizer_files.set_use_imported(True)
    ev.encode_now()
    assert ev.state.spans.news is None and not ev.origin_legend.isVisibleTo(ev)


def test_train_on_a_tiktoken_file_and_export(make_window, qtbot, tiktoken_file, tmp_path):
    win, c = _window_with(make_window, qtbot, tiktoken_file)
    src = load_tokenizer(tiktoken_file)
    c = _train_on(win, qtbot, 50, "lowest-ids")
    got = [(s.left, s.right, s.new_id) for s in c.view().steps]
    assert got == _reference(src, 50, "lowest-ids")
    tl = win.dock_layout.merge_panel.timeline
    assert "small.tiktoken" in tl.index(0, tl.MERGE).data()
    want = c.tokenizer().encode(PROBE + EOT, allowed_special="all")
    assert any(i >= c.view().n_initial for i in want)
    # exports from the window: inherited ids unchanged, new ones the same, in the libraries
    assert c.tokenizer_files.export("hf", str(tmp_path / "hf")) is not None
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "hf" / "tokenizer.json"))
    assert hf.encode(PROBE + EOT).ids == want
    assert c.tokenizer_files.export("tiktoken", str(tmp_path / "tt")) is not None
    meta = json.loads((tmp_path / "tt" / "tokenizer.tiktoken.json").read_text())
    ranks = read_ranks(tmp_path / "tt" / "tokenizer.tiktoken")
    enc = tiktoken.Encoding("t", pat_str=meta["pat_str"], mergeable_ranks=ranks,
                            special_tokens=meta["special_tokens"])
    assert enc.encode(PROBE + EOT, allowed_special="all") == want
    source = tiktoken.Encoding("s", pat_str=enc._pat_str, special_tokens={},
                               mergeable_ranks=read_ranks(tiktoken_file))
    old = source.encode(PROBE, allowed_special="all")   # the source's tokens keep their ranks in the export
    assert all(ranks[source.decode_single_token_bytes(i)] == i for i in old)
    c.goto(0)   # and step 0 is the source as tiktoken runs it
    qtbot.waitUntil(lambda: c.step_index == 0 and not c.busy)
    assert c.tokenizer().encode(PROBE, allowed_special="all") == old


def test_a_refused_source_says_why_and_keeps_the_trainer(make_window, qtbot, tmp_path):
    """A token no merge makes (a Llama-3 style whole-piece vocabulary): the engine
    refuses it; the window says why and keeps what it had."""
    import base64
    ranks = [bytes([b]) for b in range(256)] + [b"ab", b"xyz"]
    (tmp_path / "t.tiktoken").write_text(
        "".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(ranks)))
    (tmp_path / "t.tiktoken.json").write_text(json.dumps({"pat_str": "gpt2",
                                                          "special_tokens": {}}))
    win, c = _window_with(make_window, qtbot, tmp_path / "t.tiktoken",
                          text="xyz ab xyz abab\n" * 20)
    qtbot.waitUntil(lambda: c.trainer is not None and not c.stale and not c.busy,
                    timeout=20_000)
    before, text = c.view(), c.corpus_text
    win.actions_menus.acts["train_on"].trigger()
    win.train_on_flow.dialog.accept()
    qtbot.waitUntil(lambda: not c.busy and win.status.last_error is not None, timeout=20_000)
    title, message = win.status.last_error
    assert "Cannot train on" in title and "merge list" in message
    assert c.view() is before and c.corpus_text == text
    assert not c.train_on.active and c.train_on.origin() is None


def test_no_corpus_or_no_tokenizer_disables_the_action(make_window, qtbot, gpt2_dir):
    win = make_window()
    c = win.controller
    assert c.imported is None and not win.actions_menus.acts["train_on"].isEnabled()
    win.train_on_flow.ask()
    assert "Import a tokenizer first" in win.status.last_error[1]
    c.tokenizer_files.import_tokenizer(str(gpt2_dir))
    assert win.actions_menus.acts["train_on"].isEnabled()
    c.set_corpus_text("", dirty=False)
    assert not win.actions_menus.acts["train_on"].isEnabled()
    assert win.train_on_flow.ask() is None and "corpus is empty" in win.status.last_error[1]


def test_cancel_while_merging_keeps_the_merges_made(make_window, qtbot, gpt2_dir,
                                                    monkeypatch):
    real = InheritedTrainer._record_core_steps
    gate = threading.Event()

    def slow(self):   # each chunk of merges in the C core waits a little (16 steps)
        gate.wait(0.1)
        return real(self)
    monkeypatch.setattr(InheritedTrainer, "_record_core_steps", slow)
    win, c = _window_with(make_window, qtbot, gpt2_dir)
    c.live.interval = 0.05
    kept = c.view()
    assert c.train_on.start(num_merges=2_000)
    qtbot.waitUntil(lambda: len(win.dock_layout.merge_panel.timeline.records) >= 16 and c.busy,
                    timeout=20_000)
    qtbot.keyClick(win, Qt.Key_Escape)
    wait_idle(qtbot, c)
    v = c.view()
    assert v is not kept and 16 <= v.n_steps < 2_000 and v.n_inherited > 0
    assert c.train_on.active and c.train_on.origin() is not None
    assert win.dock_layout.merge_panel.timeline.rowCount() == v.n_steps + 1
    assert "inherited merges" in win.dock_layout.merge_panel.timeline.index(0, 1).data()


def test_cancel_while_segmenting_keeps_the_trainer_before(make_window, qtbot, gpt2_dir,
                                                          monkeypatch):
    import bpe_gui.engine.train.inherited as part
    entered, release = threading.Event(), threading.Event()

    class Stuck(InheritedTrainer):   # segmenting that does not look at Cancel for a while
        def __init__(self, *a, **kw):
            entered.set()
            release.wait(10)
            super().__init__(*a, **kw)
    monkeypatch.setattr(part, "InheritedTrainer", Stuck)
    win, c = _window_with(make_window, qtbot, gpt2_dir)
    qtbot.waitUntil(lambda: c.trainer is not None and not c.stale and not c.busy,
                    timeout=20_000)
    kept = c.view()
    assert c.train_on.start(num_merges=10)
    qtbot.waitUntil(entered.is_set)
    qtbot.keyClick(win, Qt.Key_Escape)
    assert not c.busy                         # at once
    assert c.view() is kept and not c.train_on.active and c.train_on.origin() is None
    release.set()                             # its late result is dropped
    qtbot.waitUntil(lambda: not c.jobs.ending, timeout=20_000)
    assert c.view() is kept


def test_session_restores_training_on(make_window, qtbot, gpt2_dir, tmp_path):
    win, c = _window_with(make_window, qtbot, gpt2_dir)
    c = _train_on(win, qtbot, 30)
    c.goto(25)
    steps = [(s.left, s.right, s.new_id) for s in c.view().steps]
    path = str(tmp_path / "on.bpesession")
    assert c.opening.save_session(path, "", True, 30)
    saved = json.loads(open(path, encoding="utf-8").read())
    assert saved["train_on"]["from"] == str(gpt2_dir)
    win2 = make_window(load=False)
    c2 = win2.controller
    assert win2.sessions.open_session(path)
    qtbot.waitUntil(lambda: not c2.busy and c2.train_on.origin() is not None, timeout=30_000)
    v = c2.view()
    assert isinstance(c2.trainer, InheritedTrainer) and v.n_steps == 25
    assert [(s.left, s.right, s.new_id) for s in v.steps] == steps
    assert "inherited merges" in win2.dock_layout.merge_panel.timeline.index(0, 1).data()


def test_train_from_scratch_again(make_window, qtbot, gpt2_dir):
    win, c = _window_with(make_window, qtbot, gpt2_dir)
    before = c.settings
    c = _train_on(win, qtbot, 20)
    assert win.actions_menus.acts["train_on_leave"].isEnabled()
    asked = answer_next_box(qtbot, "Train again")   # the trained steps go (issue 89)
    win.actions_menus.acts["train_on_leave"].trigger()
    assert asked
    assert not c.train_on.active and win.dock_layout.settings_panel.preset_combo.isEnabled()
    assert c.settings == before   # the corpus's own (here the first start's tutorial's)
    win.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and not c.stale, timeout=20_000)
    v = c.view()
    assert v.n_inherited == 0 and v.settings == before
    assert win.dock_layout.merge_panel.timeline.index(0, 1).data() == "start"


def test_session_whose_source_is_gone_says_so_and_trains_from_scratch(make_window, qtbot,
                                                                       gpt2_dir, tmp_path):
    import shutil
    src = tmp_path / "moved"
    shutil.copytree(gpt2_dir, src)
    win, c = _window_with(make_window, qtbot, src)
    c = _train_on(win, qtbot, 15)
    path = str(tmp_path / "gone.bpesession")
    assert c.opening.save_session(path)
    shutil.rmtree(src)
    win2 = make_window(load=False)
    c2 = win2.controller
    assert win2.sessions.open_session(path)
    qtbot.waitUntil(lambda: not c2.busy and c2.trainer is not None and not c2.stale,
                    timeout=30_000)
    assert win2.status.last_error[0] == "Session: training on not restored"
    assert str(src) in win2.status.last_error[1]
    assert c2.corpus_text == NEW_TEXT and not c2.train_on.active
    assert c2.view().n_inherited == 0 and c2.train_on.origin() is None


@pytest.mark.regression
def test_train_from_scratch_again_gives_the_corpus_its_own_settings_back(
        make_window, qtbot, gpt2_dir, tmp_path):
    """After training on and Train from scratch again, the corpus trained and saved with
    the source's settings ("Number of merges 500", <|endoftext|> added), silently
    (issue 30 item 3)."""
    from bpe_gui.engine.train import TrainSettings
    win, c = _window_with(make_window, qtbot, gpt2_dir)
    own = TrainSettings(vocab_size=500, special_tokens=())
    assert c.set_settings(own)
    wait_idle(qtbot, c)
    c = _train_on(win, qtbot, 20)
    # the run trains with the source's special tokens; the panel's settings stay the
    # corpus's own but for the new merges the dialog asked for
    assert c.settings.num_merges == 20 and EOT not in c.settings.special_tokens
    assert EOT in c.trainer.settings.special_tokens
    said = []
    c.message.connect(said.append)
    asked = answer_next_box(qtbot, "Train again")   # the trained steps go (issue 89)
    win.actions_menus.acts["train_on_leave"].trigger()
    assert asked
    assert c.settings == own
    assert "settings you had before are back" in said[-1] and "no special tokens" in said[-1]
    assert "vocabulary size 500" in said[-1]
    panel = win.dock_layout.settings_panel
    assert panel.vocab_radio.isChecked() and panel.vocab_spin.value() == 500
    assert panel.special_tokens() == [] and not panel.is_pending()
    path = tmp_path / "after.bpesession"
    assert c.opening.save_session(str(path))
    saved = json.loads(path.read_text(encoding="utf-8"))["settings"]
    assert saved["vocab_size"] == 500 and saved["num_merges"] is None
    assert saved["special_tokens"] == []
    win.actions_menus.acts["run"].trigger()
    qtbot.waitUntil(lambda: not c.busy and not c.stale, timeout=20_000)
    assert c.view().n_initial == 256 and c.view().vocab_size == 500
