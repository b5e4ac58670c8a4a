"""engine.stats: scripts, comparison counts, cuts, training curves; checked by hand or
against independent counting (encoding whole texts with Tokenizer.encode)."""
from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest
import regex

from bpe_gui.engine import analysis
from bpe_gui.engine.analysis import cuts as cuts_module, held_out_texts, scripts
from bpe_gui.engine.tokenizers.base import Encoding
from bpe_gui.engine.train.trainer import Trainer, TrainSettings

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
EOT = "<|endoftext|>"
BILINGUAL = ("The lowest newest widest tokens. 我们学习字节对编码，字节对编码很常见。\n"
             "Lower and lower, 编码器 and 解码器.") * 6


def test_char_script_examples():
    assert [scripts.char_script(c) for c in "aé你ーカかЖΩ"] == [
        "Latin", "Latin", "Han", "Kana", "Kana", "Kana", "Cyrillic", "Other"]
    assert [scripts.char_script(c) for c in " 7,。、・\u0301"] == [None] * 7


def test_span_script():
    assert scripts.span_script(" the") == "Latin"
    assert scripts.span_script("你好。") == "Han"
    assert scripts.span_script("42!") == "Other"          # no letters
    assert scripts.span_script("a你") == "Other"          # two scripts
    assert scripts.span_script("カタカナー") == "Kana"


def test_word_spans_are_gpt2_words_without_pure_whitespace():
    text = "Hi  there, 你好\n\n ok"
    want = [m.span() for m in regex.finditer(GPT2, text) if m.group().strip()]
    assert scripts.word_spans(text) == want == [(0, 2), (3, 9), (9, 10), (10, 13), (15, 18)]


def test_encoding_stats_by_hand():
    ni = "你".encode()
    enc = Encoding([1, 2, 3, 4], [b"a", ni[:2], ni[2:], b"!"], [(0, 1), (1, 2), (1, 2), (2, 3)],
                   [False] * 4)
    st = analysis.encoding_stats("a你!", enc)
    assert st["All"] == analysis.ScriptStats(chars=3, bytes=5, tokens=4, words=2, partial=2)
    assert st["Han"] == analysis.ScriptStats(chars=1, bytes=3, tokens=2, words=0, partial=2)
    assert st["Latin"].tokens == 1 and st["Other"].tokens == 1
    assert st["All"].bytes_per_token == 5 / 4
    assert st["All"].partial_share == 0.5
    assert analysis.scripts_present(st) == ["Latin", "Han", "Other"]


@pytest.fixture(scope="module")
def trainer():
    t = Trainer.from_text(BILINGUAL, TrainSettings(vocab_size=400))
    t.run(detail=False)
    return t


def test_encoding_stats_match_independent_counts(trainer):
    for k in (0, 10, trainer.n_steps):
        tok = trainer.tokenizer(at_step=k)
        enc = tok.encode_with_offsets(BILINGUAL, allowed_special="all")
        st = analysis.encoding_stats(BILINGUAL, enc, tok.mode)
        ids = tok.encode(BILINGUAL, allowed_special="all")
        assert st["All"].tokens == len(ids)
        assert st["All"].bytes == len(BILINGUAL.encode())
        partial = 0
        for i in ids:
            try:
                tok.vocab[i].decode("utf-8")
            except UnicodeDecodeError:
                partial += 1
        assert st["All"].partial == partial
        words = [w for w in regex.findall(GPT2, BILINGUAL) if w.strip()]
        assert st["All"].words == len(words)
        # per script: tokens covering only Han characters (and neutral ones)
        han = sum(1 for s, e in enc.offsets
                  if any("\u4e00" <= c <= "\u9fff" for c in BILINGUAL[s:e])
                  and not any(c.isascii() and c.isalpha() for c in BILINGUAL[s:e]))
        assert st["Han"].tokens == han
        assert sum(st[s].tokens for s in analysis.SCRIPTS) == len(ids)
        assert sum(st[s].bytes for s in analysis.SCRIPTS) == len(BILINGUAL.encode())


def test_char_mode_bytes_leave_out_the_end_of_word_marker():
    t = Trainer.from_text("low lower lowest", TrainSettings(mode="char", num_merges=3))
    t.run()
    tok = t.tokenizer()
    enc = tok.encode_with_offsets("low lower", allowed_special="all")
    st = analysis.encoding_stats("low lower", enc, "char")
    assert st["Latin"].bytes == 8          # the letters; spaces belong to no token
    assert st["All"].bytes == 9            # the whole text


def test_cut_points_inside_characters():
    ni = "你".encode()
    enc = Encoding([0, 1, 2], [b"a", ni[:2], ni[2:]], [(0, 1), (1, 2), (1, 2)], [False] * 3)
    assert cuts_module.cut_points(enc, "a你") == {(1, 0), (1, 2)}


def test_boundary_diff_lower():
    a = Encoding([0, 1], [b"low", b"er"], [(0, 3), (3, 5)], [False] * 2)
    b = Encoding([0, 1], [b"lo", b"wer"], [(0, 2), (2, 5)], [False] * 2)
    assert analysis.boundary_diff(a, b, "lower") == ({(3, 0)}, {(2, 0)})


def test_fold_whitespace_equates_byte_and_char_space_handling():
    text = "the cat  sat"
    byte = Encoding([0] * 4, [b"the", b" cat", b" ", b" sat"],
                    [(0, 3), (3, 7), (7, 8), (8, 12)], [False] * 4)
    char = Encoding([0] * 3, [b"the</w>", b"cat</w>", b"sat</w>"],
                    [(0, 3), (4, 7), (9, 12)], [False] * 3)
    assert analysis.boundary_diff(byte, char, text)[0]           # differ without folding
    assert analysis.boundary_diff(byte, char, text, fold_whitespace=True) == (set(), set())


def test_cut_points_match_byte_offsets_of_a_real_encoding(trainer):
    tok = trainer.tokenizer(at_step=20)
    enc = tok.encode_with_offsets(BILINGUAL, allowed_special="all")
    # independent: cumulative byte offsets of the tokens, mapped to (char, byte-in-char)
    where = {}
    pos = 0
    for ci, ch in enumerate(BILINGUAL):
        for k in range(len(ch.encode())):
            where[pos + k] = (ci, k)
        pos += len(ch.encode())
    cuts, pos = set(), 0
    for t in enc.tokens[:-1]:
        pos += len(t)
        cuts.add(where[pos])
    assert cuts_module.cut_points(enc, BILINGUAL) == cuts


def test_corpus_curve_counts_special_tokens():
    corpus = EOT.join(["low lower lowest. 你好你好", "newest widest", "lower 你好"] * 5)
    s = TrainSettings(vocab_size=330, special_tokens=(EOT,))
    t = Trainer.from_text(corpus, s)
    t.run()
    n_special = held_out_texts.count_specials(corpus, [EOT])
    assert n_special == corpus.count(EOT) == 14
    t0 = analysis.tokens_at_start(t.steps, t.corpus_tokens)
    curve = analysis.corpus_bytes_per_token(t.steps, t.table.n_bytes, t0, n_special)
    assert len(curve) == t.n_steps + 1
    for k in (0, 1, 7, t.n_steps):
        ids = t.tokenizer(at_step=k).encode(corpus, allowed_special="all")
        assert curve[k] == pytest.approx(len(corpus.encode()) / len(ids))
    assert analysis.corpus_bytes_per_token(t.steps, t.table.n_bytes, t0, n_special, start=5) \
        == curve[5:]


def test_held_out_tokens_equal_encoding(trainer):
    held = "Widest lowest 编码 newer, never seen: 学习。" + EOT
    h = analysis.held_out(held, "gpt2", [EOT])
    for k in (0, 15, trainer.n_steps):
        t = Trainer.from_text(BILINGUAL, TrainSettings(vocab_size=400, special_tokens=(EOT,)))
        t.run(until=k, detail=False)
        tok = t.tokenizer()
        *batches, total = analysis.held_out_tokens(tok, h, batch=2)
        assert all(b is None for b in batches)
        assert total == len(tok.encode(held, allowed_special="all"))
    assert h.n_bytes == len(held.encode()) and h.n_special == 1


def test_sample_steps_grid_keeps_earlier_points():
    assert analysis.sample_steps(10, 4) == [0, 4, 8, 10]
    assert analysis.sample_steps(0) == [0]
    for n in range(0, 3000, 37):
        grid = set(analysis.sample_steps(n, 64))
        later = set(analysis.sample_steps(n * 3 + 5, 64))
        assert len(grid) <= 66
        # a finer grid is a refinement of every later (coarser) one
        assert {k for k in later if k <= n} <= grid | {n}


def test_vocab_helpers(trainer):
    assert analysis.token_length(b" the") == 4
    assert analysis.token_length(b"the</w>", "char") == 3
    assert analysis.length_histogram([b"a", b"b", b"ab"]) == {1: 2, 2: 1}
    assert analysis.zipf([3, 0, 7, 1]) == ([1, 2, 3], [7, 3, 1])
    freqs = analysis.token_frequencies(trainer)
    ids = trainer.tokenizer().encode(BILINGUAL, allowed_special="all")
    assert sorted((c for c in freqs if c), reverse=True) == sorted(Counter(ids).values(),
                                                                    reverse=True)
    assert sum(freqs) == trainer.corpus_tokens == len(ids)


def test_stats_imports_no_qt():
    code = ("import sys, bpe_gui.engine.analysis; "
            "assert not any(m.startswith('PySide6') for m in sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
