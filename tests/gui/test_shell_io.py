"""Export and import dialogs, sessions, saving the corpus."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

TEXT = "分词器 tokenizers: low lower newest widest 2024！"


@pytest.fixture
def trained(window, ready):
    """The English sample, 30 merges in."""
    c = window.controller
    assert window.dock_layout.editor.load_sample("english")
    ready(c)
    assert c.goto(30)
    return window


def test_export_every_format_then_import_round_trips(trained, tmp_path, qtbot):
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    c = trained.controller
    expected = c.trainer.tokenizer().encode(TEXT, allowed_special="all")
    dlg = ExportDialog(c, trained)
    assert "step 30" in dlg.summary.text() and "“Greatest pair (by bytes)”" in dlg.summary.text()
    for cb in dlg.checks.values():
        assert cb.isEnabled()  # byte-level: every format can hold it
        cb.setChecked(True)
    dlg.folder_edit.setText(str(tmp_path / "out"))
    dlg.name_edit.setText("tokenizer")
    written = dlg.export()
    assert not dlg.failed and written
    assert all(p.exists() for p in written)
    assert dlg.files.count() == len(written) and not dlg.files.isHidden()
    names = {p.name for p in written}
    assert {"vocab.json", "merges.txt", "tokenizer.json"} <= names
    dlg.close()

    loadable = [p for p in written if p.name in ("vocab.json", "tokenizer.json")
                or p.name.endswith((".tiktoken", ".bpe-gui.json"))]
    assert len(loadable) == 4
    for path in loadable:
        imp = ImportDialog(c, trained, path=str(path))
        assert "Format:" in imp.format_label.text(), imp.format_label.text()
        imp.do_import()
        assert imp.tokenizer is not None, trained.status.last_error
        assert c.use_imported and trained.actions_menus.acts["use_imported"].isChecked()
        assert c.tokenizer().encode(TEXT, allowed_special="all") == expected, path.name
    trained.actions_menus.acts["use_imported"].trigger()
    assert not c.use_imported


def test_char_mode_disables_formats_that_cannot_hold_it(window, ready):
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    c = window.controller
    window.dock_layout.editor.load_sample("tutorial-prefix")
    ready(c)
    c.goto(3)
    dlg = ExportDialog(c, window)
    assert not dlg.checks["gpt2"].isEnabled() and dlg.checks["gpt2"].toolTip()
    assert dlg.checks["native"].isEnabled()
    dlg.close()


def test_export_to_unwritable_folder_leaves_no_files(trained, tmp_path):
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    dlg = ExportDialog(trained.controller, trained)
    for cb in dlg.checks.values():
        cb.setChecked(cb.isEnabled())
    dlg.folder_edit.setText(str(blocker / "sub"))
    assert dlg.export() == []
    assert set(dlg.failed) == set(dlg.selected_formats())
    assert trained.status.last_error and "Traceback" not in trained.status.last_error[1]
    assert "Not written" in dlg.status.text()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "qsettings") \
        == sorted(["not-a-folder", "window.ini"]) or not (blocker / "sub").exists()
    assert not (blocker / "sub").exists()
    dlg.close()


def test_import_malformed_file_keeps_the_dialog_open(window, tmp_path):
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": ', encoding="utf-8")
    dlg = ImportDialog(window.controller, window, path=str(bad))
    dlg.do_import()
    assert dlg.tokenizer is None and dlg.result() == 0
    assert window.status.last_error and "tokenizer.json" in window.status.last_error[1]
    assert window.controller.imported is None
    dlg.close()


def test_dropping_a_tokenizer_imports_it(trained, tmp_path):
    c = trained.controller
    files = c.tokenizer_files.export("hf", str(tmp_path), "tokenizer")
    assert trained.files.open_paths([str(files[0])])
    assert c.imported is not None and c.use_imported


def test_session_save_and_open_restores_corpus_settings_and_step(make_window, ready, qtbot,
                                                                 tmp_path, monkeypatch):
    first = make_window()
    c = first.controller
    first.dock_layout.editor.load_sample("zh-en")
    ready(c)
    first.dock_layout.settings_panel.minfreq_spin.setValue(2)
    assert first.dock_layout.settings_panel.apply()
    ready(c)
    c.goto(12)
    first.dock_layout.encode_view.set_text(TEXT)
    path = tmp_path / "work.bpesession"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    assert first.sessions.save()
    assert path.exists()
    assert first.recent.paths()[0] == str(path.resolve())
    saved = (c.corpus_text, c.settings, [s.pair for s in c.trainer.steps])

    second = make_window(load=False)
    second.files.open_paths([str(path)])  # the way a drop or a recent entry opens it
    ready(second.controller)
    c2 = second.controller
    assert (c2.corpus_text, c2.settings, [s.pair for s in c2.trainer.steps]) == saved
    assert c2.step_index == 12
    assert second.dock_layout.settings_panel.minfreq_spin.value() == 2
    assert second.dock_layout.encode_view.text() == TEXT


def test_session_with_file_corpus_refers_to_the_files(window, tmp_path, ready):
    c = window.controller
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hug pug pun bun hugs " * 20, encoding="utf-8")
    window.dock_layout.editor.open_files([str(corpus)])
    ready(c)
    c.goto(3)
    path = tmp_path / "s.bpesession"
    assert c.opening.save_session(str(path))
    text = path.read_text(encoding="utf-8")
    assert str(corpus) in text and "hug pug" not in text
    window.dock_layout.editor.ask_to_save = lambda what: True   # (yes: the 3 steps may go)
    window.dock_layout.editor.load_sample("tutorial")
    ready(c)
    assert window.sessions.open_session(str(path))
    ready(c)
    assert c.corpus_paths == [str(corpus)] and c.step_index == 3


def test_malformed_session_changes_nothing(window, tmp_path):
    c = window.controller
    bad = tmp_path / "bad.bpesession"
    bad.write_text('{"format": "bpe-gui-session", "version": 7}', encoding="utf-8")
    before = (c.corpus_text, c.settings, c.step_index)
    assert not window.sessions.open_session(str(bad))
    assert "version 7 is not supported" in window.status.last_error[1]
    assert (c.corpus_text, c.settings, c.step_index) == before


def test_save_corpus_as(window, qtbot, tmp_path, monkeypatch):
    c = window.controller
    window.dock_layout.editor.edit.selectAll()
    qtbot.keyClicks(window.dock_layout.editor.edit, "edited words ")
    window.dock_layout.editor.edit.insertPlainText("你好")  # QTest types ASCII only
    target = tmp_path / "mine.txt"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    window.actions_menus.acts["save_corpus"].trigger()
    assert target.read_text(encoding="utf-8") == "edited words 你好"
    assert not c.corpus_dirty and window.dock_layout.editor.unsaved_label.text() == ""
    assert window.recent.paths()[0] == str(target.resolve())
    assert Path(c.corpus_paths[0]) == target


def test_session_whose_corpus_file_is_gone_changes_nothing(window, tmp_path, ready, qtbot):
    c = window.controller
    corpus = tmp_path / "gone.txt"
    corpus.write_text("hug pug pun bun hugs " * 20, encoding="utf-8")
    window.dock_layout.editor.open_files([str(corpus)])
    ready(c)
    path = tmp_path / "s.bpesession"
    assert c.opening.save_session(str(path))
    window.dock_layout.editor.load_sample("tutorial")
    ready(c)
    corpus.unlink()
    before = (c.corpus_text, c.settings, c.step_index)
    window.sessions.open_session(str(path))
    qtbot.waitUntil(lambda: not c.busy, timeout=5000)
    why = window.status.last_error[1]
    assert "file not found" in why and "gone.txt" in why
    assert (c.corpus_text, c.settings, c.step_index) == before


def test_enter_in_the_import_path_imports_it(trained, tmp_path, qtbot, monkeypatch):
    """Issue 21: Enter in the path field opened the file browser ("File…" took it)."""
    from PySide6.QtCore import Qt
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    c = trained.controller
    files = c.tokenizer_files.export("hf", str(tmp_path), name="enter")
    browsed = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: browsed.append(a) or ("", ""))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda *a, **k: browsed.append(a) or "")
    dlg = ImportDialog(c, trained)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.path_edit.setFocus()
    dlg.path_edit.setText(str(files[0]))
    qtbot.keyClick(dlg.path_edit, Qt.Key_Return)
    assert browsed == []
    assert dlg.result() == dlg.DialogCode.Accepted and dlg.tokenizer is not None
    assert c.use_imported and c.imported_path == str(files[0])


def test_the_export_dialog_starts_in_the_remembered_folder(trained, tmp_path):
    """Issue 21: it started in $HOME although every other dialog remembers one folder."""
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    from bpe_gui.gui.widgets.last_folder import last_folder, remember
    corpus_dir = tmp_path / "corpora"
    corpus_dir.mkdir()
    remember(str(corpus_dir / "a.txt"))             # e.g. a corpus opened from there
    dlg = ExportDialog(trained.controller, trained)
    assert dlg.folder_edit.text() == str(corpus_dir) != str(Path.home())
    out = tmp_path / "out"
    dlg.folder_edit.setText(str(out))
    assert dlg.export()
    dlg.close()
    assert last_folder() == str(out)                # the next dialog of any kind starts here


@pytest.mark.regression
def test_an_export_error_is_said_once_and_its_folder_not_remembered(
        window, ready, tmp_path):
    """One export error showed one identical popup per selected format, and the dialog
    then remembered the folder that failed (issue 10)."""
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    from bpe_gui.gui.widgets.last_folder import last_folder, remember
    c = window.controller
    assert window.dock_layout.editor.load_sample("english")
    ready(c)
    c.goto(20)
    shown = []
    c.errorOccurred.connect(lambda title, msg: shown.append(msg))
    good = tmp_path / "good"
    good.mkdir()
    remember(str(good))   # the one folder every file dialog remembers (issue 21)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    dlg = ExportDialog(c, window)
    for cb in dlg.checks.values():
        cb.setChecked(cb.isEnabled())
    assert len(dlg.selected_formats()) >= 3
    dlg.folder_edit.setText(str(blocker / "sub"))
    assert dlg.export() == []
    assert len(shown) == 1                      # not one popup per format
    assert last_folder() == str(good)
    dlg.close()
    assert ExportDialog(c, window).folder_edit.text() == str(good)


@pytest.mark.regression
def test_saving_a_corpus_opened_from_a_file_asks_where_before_writing(window, qtbot, tmp_path,
                                                                      idle, monkeypatch):
    """Saving edits of a corpus opened from a file silently overwrote that file (issue 10)."""
    from PySide6.QtWidgets import QFileDialog, QMessageBox
    src = tmp_path / "mine.txt"
    src.write_text("original words here", encoding="utf-8")
    c = window.controller
    window.files.open_paths([str(src)])
    idle(c)
    window.dock_layout.editor.edit.appendPlainText(" edited")
    window.dock_layout.editor.flush()
    asked = []
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.Save))
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (asked.append(a), ("", ""))[1]))
    assert not window.files.maybe_save_corpus()       # the dialog was cancelled: nothing written
    assert asked and src.read_text(encoding="utf-8") == "original words here"
    c.mark_corpus_saved()


@pytest.mark.regression
def test_sessions_restore_the_imported_tokenizer_and_the_whitespace_toggle(
        make_window, ready, qtbot, tmp_path, monkeypatch):
    """Sessions did not restore the imported tokenizer or the whitespace toggle (issue 10)."""
    from PySide6.QtWidgets import QFileDialog
    first = make_window()
    c = first.controller
    c.goto(5)
    files = c.tokenizer_files.export("hf", str(tmp_path), "tok")
    assert c.tokenizer_files.import_tokenizer(str(files[0])) is not None and c.use_imported
    first.dock_layout.encode_view.show_ws.setChecked(False)
    path = tmp_path / "s.bpesession"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    assert first.sessions.save()
    second = make_window(load=False)
    assert second.sessions.open_session(str(path))
    ready(second.controller)
    c2 = second.controller
    assert c2.imported is not None and c2.use_imported
    assert c2.imported_path == str(files[0])
    assert not second.dock_layout.encode_view.show_ws.isChecked()


def test_open_save_png_and_sessions_start_in_one_last_folder(window, tmp_path, monkeypatch,
                                                             idle):
    from PySide6.QtWidgets import QFileDialog
    folder = tmp_path / "work"
    folder.mkdir()
    corpus = folder / "c.txt"
    corpus.write_text("some words to train on", encoding="utf-8")
    starts = []

    def opened(*a, **k):
        starts.append(a[2])
        return [str(corpus)], ""
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(opened))
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (starts.append(a[2]), ("", ""))[1]))
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (starts.append(a[2]), ("", ""))[1]))
    window.dock_layout.editor.open_dialog()
    idle(window.controller)
    window.dock_layout.charts_view._ask_png()
    window.sessions.save_as()
    window.sessions.open_dialog()
    from pathlib import Path
    assert [str(Path(s) if Path(s).is_dir() else Path(s).parent) for s in starts[1:]] \
        == [str(folder)] * 3


@pytest.mark.regression
@pytest.mark.parametrize("name, content", [
    ("tokenizer.json", None),                               # 5 KB of random bytes
    ("random.json", None),
    ("tokenizer.json", b'{"not": "a tokenizer", "list": [1, 2, 3]}'),
    ("vocab.json", b'{"a": "b"}'),
    ("cl100k_base.tiktoken", b"hello world\n"),
    ("merges.txt", b"\xef\xbb\xbf" + "一二三\n".encode("utf-8") * 3),
])
def test_the_import_dialog_checks_the_content_not_only_the_name(window, tmp_path, name,
                                                                 content):
    """5 KB of random bytes named .json showed a green "Format: Hugging Face
    tokenizer.json" before the import failed (issue 30 item 6)."""
    import random
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    from bpe_gui.gui.theme import colors
    path = tmp_path / name
    path.write_bytes(content if content is not None
                     else bytes(random.Random(30).randrange(256) for _ in range(5000)))
    dlg = ImportDialog(window.controller, window, path=str(path))
    text = dlg.format_label.text()
    assert text.startswith(f"Not a tokenizer file: {name} "), text
    assert "Format:" not in text
    assert colors(dlg)["error"] in dlg.format_label.styleSheet()
    dlg.close()


def test_real_tokenizer_files_are_still_recognised(trained, tmp_path):
    """Files written by the libraries themselves keep their green "Format: ..."."""
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    tokenizers = pytest.importorskip("tokenizers")
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator([TEXT * 20], vocab_size=300, show_progress=False)
    bpe.save_model(str(tmp_path))
    bpe.save(str(tmp_path / "tokenizer.json"))
    for path, want in ((tmp_path / "vocab.json", "GPT-2"), (tmp_path / "merges.txt", "GPT-2"),
                       (tmp_path / "tokenizer.json", "Hugging Face")):
        dlg = ImportDialog(trained.controller, trained, path=str(path))
        assert dlg.format_label.text().startswith(f"Format: {want}"), dlg.format_label.text()
        dlg.close()


def test_sentencepiece_and_gguf_models_are_recognised_by_their_content(trained, tmp_path):
    """A SentencePiece .model (also named as mistral-common names them) and a GGUF llama
    vocabulary open now: the content check passes them with a green "Format: ...",
    and a GGUF of a vocabulary that does not open says why in red."""
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    from bpe_gui.gui.theme import colors
    spm = pytest.importorskip("sentencepiece")
    gguf = pytest.importorskip("gguf")
    import io
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter([TEXT] * 20), model_writer=out,
                                   model_type="bpe", vocab_size=300, byte_fallback=True,
                                   hard_vocab_limit=False, num_threads=1, minloglevel=2)
    (tmp_path / "tokenizer.model.v3").write_bytes(out.getvalue())
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "tokenizer.model.v3"))
    for name, model in (("llama.gguf", "llama"), ("t5.gguf", "t5")):
        w = gguf.GGUFWriter(str(tmp_path / name), "llama")
        w.add_tokenizer_model(model)
        n = sp.get_piece_size()
        w.add_token_list([sp.id_to_piece(i) for i in range(n)])
        w.add_token_scores([sp.get_score(i) for i in range(n)])
        w.add_token_types([6 if sp.is_byte(i) else 3 if sp.is_control(i) else
                           2 if sp.is_unknown(i) else 1 for i in range(n)])
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
    for name, want in (("tokenizer.model.v3", "Format: SentencePiece"),
                       ("llama.gguf", "Format: GGUF")):
        dlg = ImportDialog(trained.controller, trained, path=str(tmp_path / name))
        assert dlg.format_label.text().startswith(want), dlg.format_label.text()
        assert colors(dlg)["ok"] in dlg.format_label.styleSheet()
        dlg.close()
    dlg = ImportDialog(trained.controller, trained, path=str(tmp_path / "t5.gguf"))
    assert "Unigram" in dlg.format_label.text(), dlg.format_label.text()
    assert colors(dlg)["error"] in dlg.format_label.styleSheet()
    dlg.close()


@pytest.mark.regression
def test_the_export_dialog_opens_without_writing_any_format(trained, monkeypatch, qtbot):
    """Export (Ctrl+E) rendered every format in full to learn which could hold the
    tokenizer: over 1.5 s with 50,757 tokens before it appeared, and the next click was
    lost (issue 30 item 8)."""
    from bpe_gui.engine.formats import exports
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    rendered = []
    real = exports._dump
    monkeypatch.setattr(exports, "_dump", lambda *a, **k: rendered.append(a[1]) or real(*a, **k))

    def shown():
        return [w for w in trained.findChildren(ExportDialog) if w.isVisible()]
    trained.actions_menus.acts["export"].trigger()
    qtbot.waitUntil(lambda: bool(shown()))
    assert rendered == []
    dlg = shown()[0]
    assert all(cb.isEnabled() for cb in dlg.checks.values())   # byte level: every format
    dlg.close()


def _enter_after(qtbot, dlg, button) -> None:
    """Click a dialog's browse button (its file dialog stubbed), then press Enter where
    the focus is, as a user does after picking a file."""
    from PySide6.QtCore import Qt
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert dlg.focusWidget() is button    # where the focus stays after the file dialog
    qtbot.keyClick(button, Qt.Key.Key_Return)


@pytest.mark.regression
@pytest.mark.parametrize("prefilled", [False, True])
def test_enter_after_file_button_imports(trained, tmp_path, qtbot, monkeypatch, prefilled):
    """Enter after File… in the Import dialog cancelled it: Cancel, not Import, was the
    dialog's default button."""
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    c = trained.controller
    files = c.tokenizer_files.export("hf", str(tmp_path), name="picked")
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(files[0]), ""))
    dlg = ImportDialog(c, trained, path=str(files[0]) if prefilled else "")
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    assert dlg.import_button.isDefault()
    file_button = next(b for b in dlg.findChildren(type(dlg.import_button))
                       if b.text() == "File…")
    _enter_after(qtbot, dlg, file_button)
    assert dlg.result() == dlg.DialogCode.Accepted and dlg.tokenizer is not None
    assert c.use_imported and c.imported_path == str(files[0])


@pytest.mark.regression
def test_enter_on_a_bad_path_says_why_once(trained, tmp_path, qtbot, monkeypatch):
    """(With Import the default, Enter in the path must not import twice.)"""
    from PySide6.QtCore import Qt
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    c = trained.controller
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": "', "utf-8")
    tried = []
    real = c.tokenizer_files.import_tokenizer
    monkeypatch.setattr(c.tokenizer_files, "import_tokenizer",
                        lambda path, **kw: tried.append(path) or real(path, **kw))
    dlg = ImportDialog(c, trained, path=str(bad))
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.path_edit.setFocus()
    qtbot.keyClick(dlg.path_edit, Qt.Key.Key_Return)
    assert tried == [str(bad)]
    assert dlg.isVisible() and dlg.tokenizer is None


@pytest.mark.regression
def test_enter_after_browse_exports(trained, tmp_path, qtbot, monkeypatch):
    """Enter after Browse… in the Export dialog closed it: Close was the default button."""
    from bpe_gui.gui.dialogs.export_dialog import ExportDialog
    out = tmp_path / "picked"
    out.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    dlg = ExportDialog(trained.controller, trained)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    assert dlg.export_button.isDefault()
    _enter_after(qtbot, dlg, dlg.browse_button)
    qtbot.waitUntil(lambda: any(out.iterdir()), timeout=10_000)
    assert dlg.isVisible() and dlg.written    # still open, listing the files


@pytest.mark.regression
def test_the_pattern_of_a_bare_tiktoken_file_can_be_chosen(window, tmp_path):
    """A .tiktoken without its NAME.tiktoken.json ran with the cl100k pattern, and the
    import dialog gave no way to say which pattern it was trained with."""
    from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    from bpe_gui.gui.dialogs.import_dialog import ImportDialog
    from oracles import BARE_TEXT as text, bare_tiktoken
    trained, c = window, window.controller
    mine, ranks, expected = bare_tiktoken(tmp_path)
    assumed = load_tokenizer(ranks).encode(text, allowed_special="all")
    assert assumed != expected   # (the text tells the two patterns apart)

    dlg = ImportDialog(c, trained, path=str(ranks))
    assert not dlg.pattern_row.isHidden()
    combo = dlg.pattern_combo
    assert combo.currentData() is None and "assumed" in combo.currentText()  # the default
    dlg.do_import()
    assert dlg.tokenizer is not None and c.tokenizer().encode(text, allowed_special="all") == assumed

    dlg = ImportDialog(c, trained, path=str(ranks))
    combo = dlg.pattern_combo
    combo.setCurrentIndex(combo.findData("gpt2"))
    dlg.do_import()
    assert dlg.tokenizer is not None and c.tokenizer().encode(text, allowed_special="all") == expected

    # with its metadata beside it (the pattern is in there) or a known file: no choice
    files = export_tokenizer(mine.tokenizer(), str(tmp_path / "whole"), "tiktoken",
                             name="whole")
    dlg = ImportDialog(c, trained, path=str(next(p for p in files
                                                 if p.name.endswith(".tiktoken"))))
    assert dlg.pattern_row.isHidden() and dlg.pattern() is None
