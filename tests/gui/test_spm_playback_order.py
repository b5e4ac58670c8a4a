"""Word playback of a SentencePiece .model and a GGUF ``llama`` vocabulary shows the merges
in sentencepiece's order (found driving the window after the model-file readers landed:
the final tokens were right, the order was segment by segment).

The oracle is a slow SentencePiece BPE loop written here from sentencepiece's own
answers (``get_score``, ``is_unused``...): the symbols are the characters of the
normalized word; at each step the adjacent pair whose join is a piece with the highest
score merges, the leftmost on ties; it stops when no pair joins into a piece.
"""
from __future__ import annotations

import io
import lzma

import pytest
from PySide6.QtCore import Qt

from bpe_gui.gui.panels.encode.encode_view import EncodeView
from bpe_gui.gui.panels.playback.word_playback import WordPlayback

spm = pytest.importorskip("sentencepiece")

SPACE = "\u2581"
# long words of several segments (no piece crosses "'", "-", a digit...)
TEXT = ("thoroughly superfluity stand'st Romeo's twenty-three understanding "
        "everlasting gentlemen 1234")


def train_model(corpora_dir, tmp_path):
    text = lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt", encoding="utf-8").read(60_000)
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter([line for line in text.splitlines() if line.strip()]),
        model_writer=out, model_type="bpe", vocab_size=1500, byte_fallback=True,
        split_digits=True, normalization_rule_name="identity", num_threads=1, minloglevel=2)
    path = tmp_path / "tokenizer.model"
    path.write_bytes(out.getvalue())
    return path, spm.SentencePieceProcessor(model_file=str(path))


def gguf_llama(proc, tmp_path):
    """The same vocabulary as a GGUF ``llama`` tokenizer (llama.cpp merges by score too)."""
    gguf = pytest.importorskip("gguf")
    path = tmp_path / "model.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tokenizer_model("llama")
    size = proc.get_piece_size()
    w.add_token_list([proc.id_to_piece(i) for i in range(size)])
    w.add_token_scores([proc.get_score(i) for i in range(size)])
    w.add_token_types([gguf.TokenType.UNKNOWN if proc.is_unknown(i) else
                       gguf.TokenType.CONTROL if proc.is_control(i) else
                       gguf.TokenType.BYTE if proc.is_byte(i) else gguf.TokenType.NORMAL
                       for i in range(size)])
    w.add_add_space_prefix(True)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def reference_merges(proc, normalized: str) -> list[tuple[int, int]]:
    """(position among the symbols, id of the new piece) of each merge, in order."""
    pieces: dict[str, tuple[float, int]] = {}
    for i in range(proc.get_piece_size()):
        if not (proc.is_control(i) or proc.is_unknown(i) or proc.is_byte(i)):
            pieces.setdefault(proc.id_to_piece(i), (proc.get_score(i), i))
    symbols = list(normalized)
    out = []
    while True:
        best = None
        for k in range(len(symbols) - 1):
            got = pieces.get(symbols[k] + symbols[k + 1])
            if got is not None and (best is None or got[0] > best[0]):   # leftmost on ties
                best = (got[0], k, got[1])
        if best is None:
            return out
        _, k, new = best
        symbols[k:k + 2] = [symbols[k] + symbols[k + 1]]
        out.append((k, new))


@pytest.fixture
def pair(qtbot, controller):
    view, panel = EncodeView(controller), WordPlayback(controller)
    for w in (view, panel):
        qtbot.addWidget(w)
        w.resize(900, 500)
        w.show()
        qtbot.waitExposed(w)
    view.words.wordClicked.connect(panel.show_word)
    return view, panel


@pytest.mark.controller("low lower newest widest lowest\n" * 20, step=20)
@pytest.mark.parametrize("kind", ["model", "gguf"])
def test_spm_playback_merges_by_score(qtbot, tmp_path, corpora_dir, pair, controller, kind):
    path, proc = train_model(corpora_dir, tmp_path)
    if kind == "gguf":
        path = gguf_llama(proc, tmp_path)
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    controller.tokenizer_files.set_use_imported(True)
    view, panel = pair
    view.set_text(TEXT)
    tok = controller.tokenizer()
    checked = 0
    for word in TEXT.split():
        at = TEXT.index(word) + len(word) // 2
        qtbot.mouseClick(view.edit.viewport(), Qt.LeftButton, pos=view.links.char_rect(at).center())
        qtbot.waitUntil(lambda: panel.playback is not None and panel.word.text == word)
        pb = panel.playback
        assert list(pb.final_ids) == proc.encode(word)
        got = [(st.at[0], st.token_id) for st in pb.steps if st.rank is not None]
        want = reference_merges(proc, SPACE + word)
        assert got == want, word
        # the window steps through them: each step's symbols are the merged pieces so far
        qtbot.keyClick(panel, Qt.Key_Home)
        for n in range(len(got)):
            qtbot.keyClick(panel, Qt.Key_Right)
            assert panel.current_step() == n + 1
            assert panel.shown_symbols() == [tok.model.token(i) for i in pb.steps[n].ids]
        checked += len(tok.split(word)) > 1   # words the old playback cut in segments
    assert checked >= 3
