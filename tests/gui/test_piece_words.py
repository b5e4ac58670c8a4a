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
    assert "pre-tokenizer's pieces" in view.words.legend.title.text()
    # a click plays back the clicked piece, ending at the ids tokenizers gives it
    s, e = want[len(want) // 2]
    qtbot.mouseClick(view.edit.viewport(), Qt.LeftButton,
                     pos=view.links.char_rect((s + e) // 2).center())
    qtbot.waitUntil(lambda: panel.word is not None and (panel.word.start, panel.word.end)
                    == (s, e))
    assert panel.word.text == TEXT[s:e]


def gguf_file(tmp_path, pre: str):
    """A GGUF gpt2-style vocabulary (trained here with tokenizers) whose .pre is ``pre``."""
    gguf = pytest.importorskip("gguf")
    import json
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pt.ByteLevel(add_prefix_space=False)
    hf.train_from_iterator([CORPUS], trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"], initial_alphabet=pt.ByteLevel.alphabet(),
        show_progress=False))
    data = json.loads(hf.to_str())
    vocab = data["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    path = tmp_path / f"{pre}.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_context_length(512)
    w.add_embedding_length(64)
    w.add_block_count(1)
    w.add_feed_forward_length(64)
    w.add_head_count(1)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.CONTROL if t == "<|endoftext|>" else gguf.TokenType.NORMAL
                       for t in tokens])
    w.add_token_merges(merges)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.controller(CORPUS, step=10)
@pytest.mark.parametrize("pre", ["deepseek-coder", "falcon", "starcoder", "deepseek-llm"])
def test_words_view_of_a_gguf_shows_llama_cpp_pieces(qtbot, tmp_path, controller, pre):
    """A GGUF whose .pre is several regexes (llama.cpp applies them one after another):
    the words tile the text, and encoding them one by one gives llama.cpp's own ids of
    the whole text (llama-cpp-python as the oracle: a merge never crosses a piece)."""
    llama_cpp = pytest.importorskip("llama_cpp")
    path = gguf_file(tmp_path, pre)
    lib = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    controller.tokenizer_files.set_use_imported(True)
    view = EncodeView(controller)
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    qtbot.waitExposed(view)
    view.words.set_enabled(True)
    view.set_text(TEXT)
    found = view.words.found
    qtbot.waitUntil(lambda: found.text == TEXT and found.ensure(0, len(TEXT)))
    spans = [(s, e) for s, e, _k in found.spans]
    assert [s for s, _e in spans] == [0] + [e for _s, e in spans[:-1]]   # they tile it
    assert spans[-1][1] == len(TEXT)
    tok = controller.tokenizer()
    ids = [i for s, e in spans for i in tok.encode(TEXT[s:e], allowed_special="all")]
    assert ids == lib.tokenize(TEXT.encode(), add_bos=False, special=False)
    assert len(spans) > 10
