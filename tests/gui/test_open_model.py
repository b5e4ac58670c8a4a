"""File › Open model…: the models of fake stores in a temporary HOME
(local_model_stores.py), listed, filtered, sorted and opened as Import opens a file;
the empty state, a failing file, a big file on the worker thread, a cancelled search,
and what the dialog remembers."""
from __future__ import annotations

import html
import threading

import pytest
from PySide6.QtCore import QSettings, Qt

from bpe_gui.gui.dialogs.open_model import OpenModelDialog
from local_model_stores import (STANDARD, TEXTS, Stores, hf_repo, ollama_model, standard,
                                tokenizer_json, vocab_gguf)

CLEARED = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME",
           "TRANSFORMERS_CACHE", "LLAMA_CACHE")


def use_home(monkeypatch, stores: Stores) -> Stores:
    monkeypatch.setenv("HOME", str(stores.home))
    monkeypatch.setenv("OLLAMA_MODELS", str(stores.ollama))   # not the system service's
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    return stores


@pytest.fixture
def stores(tmp_path, monkeypatch) -> Stores:
    return use_home(monkeypatch, standard(tmp_path / "home"))


def open_dialog(window, qtbot) -> OpenModelDialog:
    """Through the menu's action, as a user does; returns the dialog once it has looked."""
    window.actions_menus.acts["open_model"].trigger()
    dlgs = [d for d in window.findChildren(OpenModelDialog) if d.isVisible()]
    assert len(dlgs) == 1
    dlg = dlgs[0]
    qtbot.waitExposed(dlg)
    qtbot.waitUntil(lambda: not dlg.searching, timeout=20_000)
    return dlg


def names_shown(dlg) -> list[str]:
    return [dlg.proxy.model_at(r).name for r in range(dlg.proxy.rowCount())]


def test_open_model_is_in_the_file_menu_with_a_shortcut_of_its_own(window):
    keys = {k.toString() for k in window.actions_menus.acts["open_model"].shortcuts()}
    assert keys == {"Ctrl+Shift+I"}
    file_menu = window.menuBar().actions()[0].menu()
    texts = [a.text().replace("&", "") for a in file_menu.actions()]
    assert texts.index("Open model…") == texts.index("Import tokenizer…") + 1
    every = [k.toString() for a in window.actions() for k in a.shortcuts()]
    assert every.count("Ctrl+Shift+I") == 1
    assert len(every) == len(set(every)), "two actions share a shortcut"


def test_the_list_shows_every_model_sorted_by_name(window, qtbot, stores):
    dlg = open_dialog(window, qtbot)
    assert names_shown(dlg) == sorted(STANDARD, key=str.casefold)
    for row in range(dlg.proxy.rowCount()):
        name = dlg.proxy.index(row, 0).data()
        source, fmt = STANDARD[name]
        assert dlg.proxy.index(row, 3).data() == source
        assert dlg.proxy.index(row, 1).data() == ("GGUF" if fmt == "gguf" else "tokenizer.json")
    assert dlg.status.text() == f"{len(STANDARD)} models found."
    # by size, largest first: the sizes the table holds, as numbers
    dlg.table.sortByColumn(2, Qt.DescendingOrder)
    sizes = [dlg.proxy.model_at(r).size for r in range(dlg.proxy.rowCount())]
    assert sizes == sorted(sizes, reverse=True)
    dlg.reject()


def test_typing_filters_the_list_and_the_arrows_move_in_it(window, qtbot, stores):
    dlg = open_dialog(window, qtbot)
    dlg.filter_edit.setFocus()
    qtbot.keyClicks(dlg.filter_edit, "qwen GGUF")
    assert names_shown(dlg) == ["bartowski/Qwen2.5-0.5B-GGUF",
                                "lmstudio-community/Qwen2.5-7B-Instruct-GGUF"]
    assert dlg.status.text().startswith(f"2 of {len(STANDARD)} models shown.")
    assert dlg.current_model().name == "bartowski/Qwen2.5-0.5B-GGUF"
    qtbot.keyClick(dlg.filter_edit, Qt.Key_Down)
    assert dlg.current_model().name == "lmstudio-community/Qwen2.5-7B-Instruct-GGUF"
    assert dlg.filter_edit.hasFocus()
    qtbot.keyClicks(dlg.filter_edit, " nothing")
    assert dlg.proxy.rowCount() == 0 and not dlg.open_button.isEnabled()
    assert "No model matches" in dlg.status.text()
    dlg.reject()


def test_enter_opens_the_model_s_tokenizer_as_import_does(window, qtbot, stores):
    tk = pytest.importorskip("tokenizers")
    c = window.controller
    dlg = open_dialog(window, qtbot)
    qtbot.keyClicks(dlg.filter_edit, "Llama-3.2-1B")
    qtbot.keyClick(dlg.filter_edit, Qt.Key_Return)
    qtbot.waitUntil(lambda: c.imported is not None, timeout=10_000)
    (file,) = stores.hf.glob("models--meta-llama--Llama-3.2-1B/snapshots/*/tokenizer.json")
    assert c.imported is dlg.tokenizer and c.use_imported
    assert c.imported_path == str(file)
    ref = tk.Tokenizer.from_file(str(file))
    for text in TEXTS:
        assert c.imported.encode(text, allowed_special="all") == ref.encode(text).ids
    assert "Opened meta-llama/Llama-3.2-1B (Hugging Face, tokenizer.json)" in \
        window.statusBar().currentMessage()


def test_a_double_click_opens_the_model(window, qtbot, stores):
    dlg = open_dialog(window, qtbot)
    row = names_shown(dlg).index("mlx-community/SmolLM-135M-4bit")
    rect = dlg.table.visualRect(dlg.proxy.index(row, 0))
    # a real double click: press, release, then the double-click event
    qtbot.mouseClick(dlg.table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.mouseDClick(dlg.table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.controller.imported is not None, timeout=10_000)
    assert window.controller.imported_path.endswith("SmolLM-135M-4bit/tokenizer.json")


def test_a_big_tokenizer_file_loads_on_the_worker_thread(window, qtbot, tmp_path,
                                                         monkeypatch):
    """A file over the Import dialog's limit for the GUI thread (1 MiB) loads as a job,
    with the dialog's progress bar, then opens."""
    tk = pytest.importorskip("tokenizers")
    s = use_home(monkeypatch, Stores(tmp_path / "home"))
    big = tokenizer_json() + b" " * (1 << 20)          # JSON may end in spaces
    snap = hf_repo(s.hf, "org/big", {"tokenizer.json": big})
    dlg = open_dialog(window, qtbot)
    seen = []
    window.controller.busyChanged.connect(seen.append)
    dlg.open_selected()
    assert dlg.loading is not None and dlg.progress.isVisible()
    qtbot.waitUntil(lambda: window.controller.imported is not None, timeout=20_000)
    assert True in seen and dlg.tokenizer is window.controller.imported
    ref = tk.Tokenizer.from_file(str(snap / "tokenizer.json"))
    assert window.controller.imported.encode(TEXTS[1], allowed_special="all") == ref.encode(TEXTS[1]).ids


def test_a_model_that_fails_to_open_keeps_the_dialog_open(window, qtbot, tmp_path,
                                                          monkeypatch):
    s = use_home(monkeypatch, Stores(tmp_path / "home"))
    hf_repo(s.hf, "org/cut-short", {"tokenizer.json": b'{"model": {"type": "BPE", "vocab": '})
    dlg = open_dialog(window, qtbot)
    assert names_shown(dlg) == ["org/cut-short"]
    dlg.open_selected()
    assert dlg.result() == 0 and dlg.isVisible() and dlg.tokenizer is None
    assert window.status.last_error and "tokenizer.json" in window.status.last_error[1]
    assert window.controller.imported is None
    dlg.reject()


def test_a_model_that_will_not_open_is_greyed_and_enter_says_why(window, qtbot, tmp_path,
                                                                  monkeypatch):
    """A Unigram GGUF beside a tokenizer.json: its row is greyed, the line under the
    list says why in the error colour, and Enter on it reports that reason (nothing is
    loaded, the dialog stays open); the other row still opens."""
    s = use_home(monkeypatch, Stores(tmp_path / "home"))
    hf_repo(s.hf, "org/ok", {"tokenizer.json": tokenizer_json()})
    ollama_model(s.ollama, "t5:small", vocab_gguf("t5", "", "t5"))
    dlg = open_dialog(window, qtbot)
    assert names_shown(dlg) == ["org/ok", "t5:small"]
    assert dlg.proxy.index(0, 0).data(Qt.ForegroundRole) is None
    assert dlg.proxy.index(1, 0).data(Qt.ForegroundRole) is not None     # greyed
    assert dlg.proxy.index(1, 1).data() == "GGUF · Unigram"
    dlg.table.setFocus()
    qtbot.keyClick(dlg.table, Qt.Key_Down)
    assert dlg.current_model().name == "t5:small"
    assert "not BPE" in dlg.selected.text()
    qtbot.keyClick(dlg.table, Qt.Key_Return)
    assert dlg.isVisible() and dlg.tokenizer is None and window.controller.imported is None
    title, message = window.status.last_error
    assert title == "Cannot open this model"
    assert message.startswith("t5:small (Ollama): Its model file is a GGUF file whose "
                              "vocabulary is Unigram") and "not BPE" in message
    qtbot.keyClick(dlg.table, Qt.Key_Up)
    qtbot.keyClick(dlg.table, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.controller.imported is not None, timeout=10_000)
    assert not dlg.isVisible()


def test_broken_model_folders_are_skipped_and_hovering_says_why(window, qtbot, tmp_path,
                                                                 monkeypatch):
    """A snapshot whose blob is gone (a broken link), a download with no tokenizer yet
    and an Ollama manifest whose blob is missing, beside a good model: only the good
    one is listed, the status line counts what was skipped, its tooltip names each
    folder with the reason (the engine's notes); with only broken ones the empty text
    shows and the count stays."""
    s = use_home(monkeypatch, Stores(tmp_path / "home"))
    snap = hf_repo(s.hf, "org/broken", {"tokenizer.json": tokenizer_json()})
    for blob in (snap.parents[1] / "blobs").iterdir():
        blob.unlink()
    hf_repo(s.hf, "org/config-only", {"config.json": b"{}"})
    ollama_model(s.ollama, "gone:7b", vocab_gguf("gpt2", "llama-bpe", "gone")).unlink()
    dlg = open_dialog(window, qtbot)
    assert names_shown(dlg) == [] and dlg.stack.currentWidget() is dlg.message
    assert "No models found" in dlg.message.text()
    assert dlg.status.text().startswith("3 things skipped") and "Hover" in dlg.status.text()
    tip = dlg.status.toolTip()
    assert "models--org--broken" in tip and "broken link" in tip
    assert "models--org--config-only" in tip and "no tokenizer file" in tip
    assert "gone" in tip and len(dlg.scan.notes) == 3
    for note in dlg.scan.notes:
        assert html.escape(note) in tip
    dlg.reject()
    hf_repo(s.hf, "org/fine", {"tokenizer.json": tokenizer_json()})
    dlg = open_dialog(window, qtbot)
    assert names_shown(dlg) == ["org/fine"]
    assert dlg.status.text() == ("1 model found. 3 things skipped (downloads not finished, "
                                 "folders without a tokenizer, unreadable ones). Hover here "
                                 "to see why.")
    dlg.reject()


def test_with_no_models_it_says_where_it_looked_and_how_to_get_some(window, qtbot, tmp_path,
                                                                    monkeypatch):
    use_home(monkeypatch, Stores(tmp_path / "empty"))
    dlg = open_dialog(window, qtbot)
    assert dlg.stack.currentWidget() is dlg.message
    text = dlg.message.text()
    assert "No models found" in text and "~/.cache/huggingface/hub" in text
    assert "ollama pull" in text and "Import tokenizer" in text
    assert not dlg.open_button.isEnabled()
    dlg.open_selected()                                   # Enter does nothing then
    assert dlg.isVisible()
    dlg.reject()


def test_the_filter_sort_and_last_model_are_remembered(window, qtbot, stores):
    dlg = open_dialog(window, qtbot)
    qtbot.keyClicks(dlg.filter_edit, "gguf")
    dlg.table.sortByColumn(2, Qt.DescendingOrder)
    dlg.reject()
    again = open_dialog(window, qtbot)
    assert again.filter_edit.text() == "gguf"
    header = again.table.horizontalHeader()
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == \
        (2, Qt.DescendingOrder)
    again.filter_edit.clear()
    row = names_shown(again).index("mlx-community/SmolLM-135M-4bit")
    again.table.selectRow(row)
    again.open_selected()
    qtbot.waitUntil(lambda: window.controller.imported is not None, timeout=10_000)
    assert QSettings().value("openModel/last") == "mlx-community/SmolLM-135M-4bit"
    third = open_dialog(window, qtbot)
    third.filter_edit.clear()
    third._select_remembered()
    assert third.current_model().name == "mlx-community/SmolLM-135M-4bit"
    third.reject()


def test_a_search_runs_as_a_job_and_cancel_stops_it(window, qtbot, stores, monkeypatch):
    """The search runs on the job runner: the window is busy meanwhile (the status
    bar's Cancel), and Esc drops it; the dialog says so and offers Refresh."""
    from bpe_gui.gui.controller import local_models
    release = threading.Event()
    real = local_models.find_models

    def slow(progress, cancelled):
        progress(0, 1)
        release.wait(10)
        return real(progress=progress, cancelled=cancelled)
    monkeypatch.setattr(local_models, "find_models", slow)
    window.actions_menus.acts["open_model"].trigger()
    (dlg,) = [d for d in window.findChildren(OpenModelDialog) if d.isVisible()]
    assert dlg.searching and window.controller.busy
    assert "Looking for models" in dlg.message.text()
    assert not dlg.open_button.isEnabled()
    window.controller.cancel()
    qtbot.waitUntil(lambda: not dlg.searching, timeout=5_000)
    release.set()
    assert "cancelled" in dlg.message.text() and dlg.refresh_button.isEnabled()
    monkeypatch.setattr(local_models, "find_models", real)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5_000)
    dlg.refresh_button.click()
    qtbot.waitUntil(lambda: not dlg.searching, timeout=20_000)
    assert names_shown(dlg) == sorted(STANDARD, key=str.casefold)
    dlg.reject()


def test_enter_in_the_list_opens_the_selected_row(window, qtbot, stores):
    dlg = open_dialog(window, qtbot)
    row = names_shown(dlg).index("meta-llama/Llama-3.2-1B")
    dlg.table.setFocus()
    dlg.table.selectRow(row)
    qtbot.keyClick(dlg.table, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.controller.imported is not None, timeout=10_000)
    assert "models--meta-llama--Llama-3.2-1B" in window.controller.imported_path
