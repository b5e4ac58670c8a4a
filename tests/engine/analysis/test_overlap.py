"""Vocabulary overlap (engine/overlap.py): sets of token bytes computed here, and "reaches
as a single token" checked by encoding each token's text with tiktoken built from the
other side's vocabulary."""
from __future__ import annotations

import pytest

tiktoken = pytest.importorskip("tiktoken")

from bpe_gui.engine.analysis.reachability import classify_tokens  # noqa: E402
from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.analysis.overlap import vocab_overlap  # noqa: E402
from bpe_gui.engine.tokenizers.trained import Tokenizer  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402
from test_reachability import handmade  # noqa: E402
from hf_files import CASES  # noqa: E402

EN = ("The quick brown fox jumps over the lazy dog. It's a lovely day, isn't it? "
      "lowest newest widest <|endoftext|>") * 15
ZH = ("满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？ The end. 你好世界 lowest "
      "<|endoftext|>") * 15


def trained(text, **kw) -> Tokenizer:
    t = Trainer.from_text(text, TrainSettings(special_tokens=("<|endoftext|>",), **kw))
    t.run()
    return t.tokenizer()


def plain_set(tok: Tokenizer) -> set[bytes]:
    return {t for i, t in tok.vocab.items() if i not in tok.special_ids.values()}


def single_in(tok: Tokenizer, tokens: set[bytes]) -> int:
    """How many of ``tokens`` tiktoken (tok's ranks, first id of equal bytes) encodes as
    one token with those very bytes."""
    ranks: dict[bytes, int] = {}
    for i in sorted(tok.vocab):
        if i not in tok.special_ids.values():
            ranks.setdefault(tok.vocab[i], i)
    enc = tiktoken.Encoding("o", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=dict(tok.special_ids))
    n = 0
    for t in tokens:
        try:
            text = t.decode("utf-8")
        except UnicodeDecodeError:
            continue
        ids = enc.encode(text, allowed_special="all")
        n += len(ids) == 1 and enc.decode_single_token_bytes(ids[0]) == t
    return n


@pytest.mark.parametrize("a_kw,b_kw", [
    (dict(vocab_size=600), dict(vocab_size=600)),
    (dict(vocab_size=700, pattern="cl100k"), dict(vocab_size=500, tie_rule="first-seen")),
    (dict(vocab_size=300), dict(vocab_size=800, pattern="o200k")),
])
def test_overlap_matches_sets_and_tiktoken(a_kw, b_kw):
    a, b = trained(EN, **a_kw), trained(ZH, **b_kw)
    ov = vocab_overlap(a, b)
    sa, sb = plain_set(a), plain_set(b)
    assert set(ov.shared) == sa & sb and set(ov.only_a) == sa - sb
    assert set(ov.only_b) == sb - sa
    assert list(ov.shared) == sorted(ov.shared) and list(ov.only_a) == sorted(ov.only_a)
    assert ov.jaccard == pytest.approx(len(sa & sb) / len(sa | sb))
    assert (ov.n_a, ov.n_b) == (len(sa), len(sb))
    assert ov.a_single_in_b == single_in(b, sa)
    assert ov.b_single_in_a == single_in(a, sb)
    assert 0 < ov.a_single_in_b < len(sa)      # partial-character tokens never count
    assert ov == vocab_overlap(a, b, classify_tokens(a), classify_tokens(b))
    flipped = vocab_overlap(b, a)
    assert (flipped.only_a, flipped.a_single_in_b) == (ov.only_b, ov.b_single_in_a)


def test_a_duplicate_or_unreachable_token_is_not_reached():
    a = handmade()                 # 'ing ' (unreachable) and a second id for b'in'
    b = trained(EN + " sing ring ", vocab_size=400)
    ov = vocab_overlap(b, a)
    assert ov.n_b == len(a.vocab) - 2      # b'in' counted once, the special left out
    assert ov.a_single_in_b == single_in(a, plain_set(b))
    assert ov.b_single_in_a == single_in(b, plain_set(a))
    ov2 = vocab_overlap(a, a)
    assert ov2.jaccard == 1.0 and not ov2.only_a
    # all but the 128 bytes 80-FF, the partial E4 BD and 'ing '
    assert ov2.a_single_in_b == len(plain_set(a)) - 128 - 2


def test_overlap_with_a_metaspace_tokenizer(tmp_path):
    """By bytes: '▁the' of a Metaspace tokenizer is ' the', shared with byte-level ones;
    and word-inner tokens of the Metaspace side count as reached (the context rule)."""
    tk = CASES["metaspace-first-fallback"]()
    tk.save(str(tmp_path / "tokenizer.json"))
    meta = load_tokenizer(tmp_path / "tokenizer.json")
    byte = trained(EN, vocab_size=700)
    ov = vocab_overlap(byte, meta)
    sa, sb = plain_set(byte), plain_set(meta)
    assert set(ov.shared) == sa & sb
    assert any(t[:1] == b" " and t[1:].isalpha() for t in ov.shared)   # '▁d' is ' d' 
    made = {meta.vocab[i] for i in classify_tokens(meta).ids("ok")}
    assert ov.a_single_in_b == len(sa & made)
    inner = {t for t in sa & made if len(t) > 1 and t.isalpha()}
    assert inner and all(meta.encode(t.decode(), allowed_special="all") != [meta.bytes_to_id[t]] for t in inner)
