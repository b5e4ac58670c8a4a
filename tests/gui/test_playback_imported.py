"""Word playback of imported .tiktoken and tokenizer.json files (issue 19): a click on a
word showed the "Unexpected error" dialog (AttributeError '_byte_ids'); now the steps end
at the tokens encode gives, checked against tiktoken / tokenizers."""
from __future__ import annotations

import base64
import json

import pytest
from PySide6.QtCore import Qt

from bpe_gui.engine.formats.known_encodings import CL100K_PATTERN
from bpe_gui.engine.train.trainer import TrainSettings, Trainer
from bpe_gui.gui.panels.encode.encode_view import EncodeView
from bpe_gui.gui.panels.playback.word_playback import WordPlayback

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

CORPUS = "low lower newest widest lowest slowest 你好世界 it's\n" * 30
TEXT = "the slowest newest 你好 it's!"
WHOLE = b" slowest"   # a token no merge makes: tiktoken takes the piece whole


def tiktoken_file(tmp_path):
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=300, pattern="cl100k"))
    t.run()
    tok = t.tokenizer()
    ranks = {tok.vocab[i]: i for i in sorted(tok.vocab)}
    ranks.setdefault(WHOLE, len(ranks))
    path = tmp_path / "odd.tiktoken"
    path.write_text("".join(f"{base64.b64encode(b).decode()} {r}\n" for b, r in
                            sorted(ranks.items(), key=lambda kv: kv[1])), "ascii")
    (tmp_path / "odd.tiktoken.json").write_text(json.dumps({"pat_str": CL100K_PATTERN,
                                                            "special_tokens": {}}))
    enc = tiktoken.Encoding("odd", pat_str=CL100K_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    return path, enc.encode


def tokenizer_json(tmp_path):
    hf = tokenizers.ByteLevelBPETokenizer()
    hf.train_from_iterator([CORPUS], vocab_size=300, show_progress=False)
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    return path, lambda s: hf.encode(s).ids


def sentencepiece_model(tmp_path):
    """A SentencePiece BPE .model (byte fallback), sentencepiece as the oracle."""
    spm = pytest.importorskip("sentencepiece")
    import io
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS.splitlines()), model_writer=out,
                                   model_type="bpe", vocab_size=300, byte_fallback=True,
                                   hard_vocab_limit=False, normalization_rule_name="identity",
                                   minloglevel=2, num_threads=1)
    path = tmp_path / "tokenizer.model"
    path.write_bytes(out.getvalue())
    sp = spm.SentencePieceProcessor(model_file=str(path))
    return path, sp.encode


@pytest.fixture
def pair(qtbot, controller):
    view, panel = EncodeView(controller), WordPlayback(controller)
    for w in (view, panel):
        qtbot.addWidget(w)
        w.resize(800, 500)
        w.show()
        qtbot.waitExposed(w)
    view.words.wordClicked.connect(panel.show_word)
    return view, panel


@pytest.mark.controller(CORPUS, step=20)
@pytest.mark.parametrize("make", [tiktoken_file, tokenizer_json, sentencepiece_model],
                         ids=["tiktoken", "json", "sentencepiece"])
def test_click_a_word_of_an_imported_tokenizer(qtbot, tmp_path, pair, controller, make):
    path, library = make(tmp_path)
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    controller.tokenizer_files.set_use_imported(True)
    view, panel = pair
    view.set_text(TEXT)
    tok = controller.tokenizer()
    words = ("slowest", "newest", "你好", "it's!") if make is sentencepiece_model else \
        (" slowest", " newest", " 你好", "'s")
    for word in words:
        at = TEXT.index(word) + len(word) // 2
        qtbot.mouseClick(view.edit.viewport(), Qt.LeftButton, pos=view.links.char_rect(at).center())
        assert panel.word.text == word
        pb = panel.playback
        assert pb is not None, panel.title.text()
        assert list(pb.final_ids) == tok.encode(word, allowed_special="all") == library(word)
        assert panel.current_step() == len(pb.steps) == panel.slider.maximum()
        assert panel.shown_symbols() == [tok.vocab[i] for i in pb.final_ids]
        assert f"imported tokenizer {path.name}" in panel.title.text()
        qtbot.keyClick(panel, Qt.Key_Home)
        if make is sentencepiece_model:   # characters after the dummy prefix's '▁' ('!' is
            assert panel.shown_symbols() == [tok.model.token(i) for i in pb.ids]  # no piece)
            assert b"".join(panel.shown_symbols()).replace(b"<unk>", b"!") == (" " + word).encode()
        else:
            assert panel.shown_symbols() == [bytes([b]) for b in word.encode()]
    if make is tiktoken_file:   # the whole-piece rule is the one step
        qtbot.mouseClick(view.edit.viewport(), Qt.LeftButton,
                         pos=view.links.char_rect(TEXT.index(" slowest") + 3).center())
        assert [s.rank for s in panel.playback.steps] == [None]
        assert "tiktoken's rule" in panel.step_label.text()


@pytest.mark.controller(CORPUS, step=20)
def test_click_in_a_metaspace_tokenizer_json(qtbot, tmp_path, pair, controller):
    """Metaspace + byte_fallback: the model starts from characters ('▁' for a space) and
    '<0xNN>' bytes; the clicked text plays back piece after piece to encode's tokens."""
    from tokenizers import decoders, models, pre_tokenizers, trainers
    hf = tokenizers.Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>"))
    hf.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    hf.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                    decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    hf.train_from_iterator([CORPUS], trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<unk>", *[f"<0x{b:02X}>" for b in range(256)]],
        show_progress=False))
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    controller.tokenizer_files.set_use_imported(True)
    view, panel = pair
    text = "the slowest 你好 ☃"   # ☃ is not in the vocabulary: three <0xNN> bytes
    view.set_text(text)
    # the words are the pre-tokenizer's pieces ('▁你好': characters of several bytes)
    qtbot.mouseClick(view.edit.viewport(), Qt.LeftButton,
                     pos=view.links.char_rect(text.index("你好")).center())
    assert panel.word.text == " 你好"
    pb = panel.playback
    assert pb is not None, panel.title.text()
    assert list(pb.final_ids) == controller.tokenizer().encode(panel.word.text, allowed_special="all") == \
        hf.encode(panel.word.text).ids
    assert "symbols" in panel.title.text() and pb.steps
