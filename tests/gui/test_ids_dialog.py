"""File › Encode files to ids: corpus files to one file of ids from the window, checked
against tiktoken's encode_ordinary of each document over the step's own ranks, joined by
the end-of-text id; Cancel and bad input leave no file and say why."""
from __future__ import annotations

import json
from array import array

import pytest

from bpe_gui.gui.dialogs.ids_dialog import IdsDialog

from conftest import wait_idle

tiktoken = pytest.importorskip("tiktoken")

EOT = "<|endoftext|>"
DOCS = ["The quick brown fox jumps over the lazy dog. It's late.\n" * 20,
        "满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？\n" * 20,
        "Съешь же ещё этих мягких французских булок.\n" * 20]
pytestmark = pytest.mark.controller("".join(DOCS) * 3 + EOT, vocab_size=400,
                                    special_tokens=(EOT,))


@pytest.fixture
def dialog(qtbot, controller):
    controller.trainer.goto(60)
    dlg = IdsDialog(controller)
    qtbot.addWidget(dlg)
    dlg.show()
    return dlg


def reference(tok):
    ranks = {t: i for i, t in tok.vocab.items() if i not in tok.special_ids.values()}
    enc = tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=dict(tok.special_ids))
    return enc.encode_ordinary, tok.special_ids.get(EOT)


def encode(qtbot, dlg) -> None:
    with qtbot.waitSignal(dlg.controller.jobs.ended, timeout=30_000):
        assert dlg.run()


def test_encodes_text_and_jsonl_files_as_tiktoken_joins_them(qtbot, dialog, tmp_path):
    (tmp_path / "a.txt").write_text(DOCS[0].rstrip("\n") + "\n\n" + DOCS[1], "utf-8")
    (tmp_path / "b.jsonl").write_text(json.dumps({"body": DOCS[2]}) + "\n", "utf-8")
    dialog.add_files([str(tmp_path / "a.txt"), str(tmp_path / "b.jsonl")])
    assert dialog.out.text() == str(tmp_path / "ids.bin")   # beside the first file
    dialog.separator.setText(r"\n\n")
    dialog.field.setText("body")
    encode(qtbot, dialog)
    encode_ordinary, eot = reference(dialog.controller.view().tokenizer())
    want = encode_ordinary(DOCS[0].rstrip("\n")) + [eot] + encode_ordinary(DOCS[1]) + [eot] + \
        encode_ordinary(DOCS[2])
    got = array("H", (tmp_path / "ids.bin").read_bytes())
    assert list(got) == want
    meta = json.loads((tmp_path / "ids.bin.json").read_text("utf-8"))
    assert meta["dtype"] == "uint16" and meta["count"] == len(want) == dialog.meta["count"]
    assert meta["documents"] == 3 and meta["eot_id"] == eot
    n = len(dialog.controller.view().tokenizer().merges)
    assert meta["tokenizer"] == f"trained with bpe-gui, {n:,} merges" and n > 0
    assert f"{len(want):,} ids of 3 document(s)" in dialog.status.text()


def test_cancel_and_bad_input_leave_no_file_and_say_why(qtbot, dialog, controller, tmp_path):
    out = tmp_path / "ids.bin"
    dialog.out.setText(str(out))
    assert not dialog.encode_btn.isEnabled()
    assert dialog.encode_btn.toolTip() == "Add the files to encode."
    big = tmp_path / "big.txt"
    big.write_text("".join(DOCS) * 2000, "utf-8")   # ~5 MB
    dialog.add_files([str(big)])
    for typed in ("x", "²", "-1"):
        dialog.eot.setText(typed)
        assert not dialog.run() and f"must be a whole number of 0 or more, not “{typed}”" \
            in dialog.status.text()
    dialog.eot.setText("")
    with qtbot.waitSignal(controller.jobs.ended, timeout=30_000):
        assert dialog.run()
        controller.cancel()
    assert "Not written (cancelled)" in dialog.status.text()
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]
    dialog.add_files([str(tmp_path / "gone.txt")])
    encode(qtbot, dialog)
    assert "Not written (failed)" in dialog.status.text() and "gone.txt" in dialog.status.text()
    assert not out.exists()


@pytest.mark.controller("low lower newest widest " * 20, vocab_size=280)
def test_a_tokenizer_without_an_end_of_text_token_asks_for_the_id(qtbot, dialog, tmp_path):
    """No <|endoftext|>: the dialog says so before it starts, and a typed id goes between
    the documents."""
    (tmp_path / "a.txt").write_text("low lower\n\nnewest widest", "utf-8")
    dialog.add_files([str(tmp_path / "a.txt")])
    dialog.separator.setText(r"\n\n")
    assert not dialog.run()
    assert "has no <|endoftext|> token" in dialog.status.text()
    assert "Type the id to put between documents in End-of-text id" in dialog.status.text()
    assert dialog.eot.hasFocus() or not dialog.isActiveWindow()
    dialog.eot.setText("7")
    encode(qtbot, dialog)
    encode_ordinary, _ = reference(dialog.controller.view().tokenizer())
    got = array("H", (tmp_path / "ids.bin").read_bytes())
    assert list(got) == encode_ordinary("low lower") + [7] + encode_ordinary("newest widest")


def test_the_window_opens_it_by_its_keys_and_enter_encodes(qtbot, window, tmp_path):
    """Ctrl+Shift+D (File › Encode files to ids…) opens the dialog; Enter encodes, as the
    library does (the sample is character-level with </w>: no tiktoken file holds it)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QKeySequence
    act = window.actions_menus.acts["encode_files"]
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    assert act in menu.actions() and act.shortcut() == QKeySequence("Ctrl+Shift+D")
    wait_idle(qtbot, window.controller)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    dlg = window.findChild(IdsDialog)
    assert dlg is not None and dlg.isVisible()
    (tmp_path / "a.txt").write_text("low lower newest", "utf-8")
    dlg.add_files([str(tmp_path / "a.txt")])
    dlg.eot.setText("3")
    with qtbot.waitSignal(window.controller.jobs.ended, timeout=30_000):
        qtbot.keyClick(dlg.eot, Qt.Key.Key_Return)
    tok = window.controller.view().tokenizer()
    assert list(array("H", (tmp_path / "ids.bin").read_bytes())) == \
        tok.encode_ordinary("low lower newest")
