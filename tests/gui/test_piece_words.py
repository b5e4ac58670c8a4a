"""The encode view's words of an imported tokenizer.json are the pieces its
pre-tokenizer makes, for every kind of pre-tokenizer (found driving the window: a
``Whitespace`` pre-tokenizer showed the whole text as one word, its pattern reported as
``(?s).+``). Oracle: ``tokenizers``' own ``pre_tokenizer.pre_tokenize_str`` offsets."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from bpe_gui.gui.panels.encode.encode_view import EncodeView
from bpe_gui.gui.panels.playback.word_playback import WordPlayback

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, models, pre_tokenizers as pt, trainers  # noqa: E402

CORPUS = "low lower newest widest lowest, slowest 你好世界 it's x=12345 (ok)!\n" * 30
TEXT = ("It's  HTTPServer's 1234567 words, 你好!\n\n  world's end (x+y)=3.14 "
        "naïve café\tdone…  ")

KINDS = {
    "Whitespace": lambda: pt.Whitespace(),
    "WhitespaceSplit": lambda: pt.WhitespaceSplit(),
    "Digits": lambda: pt.Digits(individual_digits=False),
    "Digits_single": lambda: pt.Digits(individual_digits=True),
    "Punctuation": lambda: pt.Punctuation(),
    "Metaspace": lambda: pt.Metaspace(replacement="▁", prepend_scheme="first"),
    "Split_removed": lambda: pt.Split(Regex(r"\s+"), behavior="removed"),
    "Split_merged": lambda: pt.Split(Regex(r"[,.!]"), behavior="merged_with_previous"),
    "ByteLevel_prefix": lambda: pt.ByteLevel(add_prefix_space=True),
    "Sequence_bert": lambda: pt.Sequence([pt.WhitespaceSplit(), pt.Punctuation(),
                                          pt.Digits(individual_digits=True)]),
    "Sequence_split_bytelevel": lambda: pt.Sequence([
        pt.Split(Regex(r"\p{N}{1,3}"), behavior="isolated"),
        pt.ByteLevel(add_prefix_space=False, use_regex=True)]),
}


def tokenizer_json(tmp_path, kind: str):
    hf = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    hf.pre_tokenizer = KINDS[kind]()
    alphabet = pt.ByteLevel.alphabet() if "ByteLevel" in kind else []
    hf.train_from_iterator([CORPUS], trainers.BpeTrainer(
        vocab_size=400, special_tokens=["[UNK]"], initial_alphabet=alphabet,
        show_progress=False))
    path = tmp_path / f"{kind}.json"
    hf.save(str(path))
    return path, hf


@pytest.mark.controller(CORPUS, step=10)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_words_view_shows_the_pre_tokenizer_pieces(qtbot, tmp_path, controller, kind):
    path, hf = tokenizer_json(tmp_path, kind)
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    controller.tokenizer_files.set_use_imported(True)
    view, panel = EncodeView(controller), WordPlayback(controller)
    for w in (view, panel):
        qtbot.addWidget(w)
        w.resize(900, 500)
        w.show()
        qtbot.waitExposed(w)
    view.words.wordClicked.connect(panel.show_word)
    view.words.set_enabled(True)
    view.set_text(TEXT)
    found = view.words.found
    qtbot.waitUntil(lambda: found.text == TEXT and found.ensure(0, len(TEXT)))
    want = [(s, e) for _w, (s, e) in hf.pre_tokenizer.pre_tokenize_str(TEXT) if e > s]
    assert [(s, e) for s, e, _k in found.spans] == want
    names = {found.matcher.branches[k].name for _s, _e, k in found.spans}
    assert "(?s).+" not in " ".join(names)
    # a click plays back the clicked piece, ending at the ids tokenizers gives it
    s, e = want[len(want) // 2]
    qtbot.mouseClick(view.edit.viewport(), Qt.LeftButton,
                     pos=view.char_rect((s + e) // 2).center())
    qtbot.waitUntil(lambda: panel.word is not None and (panel.word.start, panel.word.end)
                    == (s, e))
    assert panel.word.text == TEXT[s:e]
