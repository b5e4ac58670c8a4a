"""A tekken tokenizer's rules are named for what they take in the window (found driving
the window: a click on "Hello" said "rule 1 · anything but letters, digits"). The
pattern is the one mistral-common's own tekken.json carries."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from bpe_gui.gui.panels.encode.encode_view import EncodeView
from bpe_gui.gui.panels.playback.word_playback import WordPlayback

mc = pytest.importorskip("mistral_common")

WORDS = [b"He", b"ll", b"Hell", b"Hello", b" W", b"or", b" Wor", b"ld", b" World"]
TEXT = "Hello World ALLCAPS 42"


def tekken(path: Path) -> Path:
    shipped = sorted((Path(mc.__file__).parent / "data").glob("tekken*.json"))
    if not shipped:
        pytest.skip("mistral-common ships no tekken.json")
    pattern = json.loads(shipped[0].read_text("utf-8"))["config"]["pattern"]
    ranks = [bytes([b]) for b in range(256)] + WORDS
    data = {"config": {"pattern": pattern, "num_vocab_tokens": len(ranks),
                       "default_vocab_size": len(ranks) + 10,
                       "default_num_special_tokens": 10, "version": "v7"},
            "vocab": [{"rank": r, "token_bytes": base64.b64encode(b).decode(), "token_str": None}
                      for r, b in enumerate(ranks)],
            "special_tokens": [{"rank": i, "token_str": s, "is_control": True}
                               for i, s in enumerate(["<unk>", "<s>", "</s>"])]}
    path.write_text(json.dumps(data))
    return path


@pytest.mark.controller("low lower newest\n" * 20, step=20)
def test_tekken_rules_named_for_what_they_take(qtbot, tmp_path, controller):
    path = tekken(tmp_path / "tekken.json")
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    controller.tokenizer_files.set_use_imported(True)
    view, panel = EncodeView(controller), WordPlayback(controller)
    for w in (view, panel):
        qtbot.addWidget(w)
        w.resize(900, 500)
        w.show()
        qtbot.waitExposed(w)
    view.words.wordClicked.connect(panel.show_word)
    view.set_text(TEXT)
    for word, label in (("Hello", "rule 1 · word ending in lower case"),
                        (" World", "rule 1 · word ending in lower case"),
                        (" ALLCAPS", "rule 2 · capitals"), ("4", "rule 3 · one digit")):
        at = TEXT.index(word) + len(word) - 1
        qtbot.mouseClick(view.edit.viewport(), Qt.LeftButton, pos=view.links.char_rect(at).center())
        qtbot.waitUntil(lambda: panel.word is not None and panel.word.text == word)
        assert panel.word.label == label
