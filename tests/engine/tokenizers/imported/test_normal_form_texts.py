"""Long texts a Unicode normalizer changes (Qwen2's NFC on decomposed accents, random
Unicode, compatibility characters) give tokenizers' ids, through the C encoder.

A text NFC changes is normalized once (text.normal_forms.normalize: only the stretches
around characters NFC may change go to unicodedata) and handed to the C encoder: with its
added tokens when tokenizers looks for them after the normalizer (``normalized: true``),
without them when tokenizers looks in the raw text (``normalized: false``) and none is
there; otherwise the text goes the normalizer's way, piece by piece. Each case is
compared with ``tokenizers`` on the same file, on texts of 30,000 characters with the
stretch path's threshold (text.normal_forms.LONG) lowered, and (slow) at its real size.
"""
from __future__ import annotations

import random
import unicodedata

import pytest

tokenizers = pytest.importorskip("tokenizers")

import hf_files as hfp  # noqa: E402  (the tokenizer.json builders)
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.text import normal_forms  # noqa: E402

AT = tokenizers.AddedToken
def _nfc_split(norm=None):
    """Qwen2's shape (a normalizer, its Split, ByteLevel) with no special tokens of its own
    (hf_files.normalized_split trains two with ``normalized: false``)."""
    tk = tokenizers.Tokenizer(models.BPE(ignore_merges=False))
    tk.normalizer = norm or normalizers.NFC()
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(hfp.LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}")),
                             behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()
    return hfp.train(tk, 700, [], pre_tokenizers.ByteLevel.alphabet())


FILES = {
    "nfc-raw-tokens": lambda: hfp.with_added(hfp.normalized_split(normalizers.NFC()), [
        AT("<|im_start|>", special=True, normalized=False),
        AT("<|im_end|>", special=True, normalized=False), AT("café", normalized=False)]),
    "nfc-normalized-tokens": lambda: hfp.with_added(_nfc_split(), [
        AT("café", normalized=True), AT("Ωhm", normalized=True)]),
    "nfkc-nfc-normalized-tokens": lambda: hfp.with_added(_nfc_split(
        normalizers.Sequence([normalizers.NFKC(), normalizers.NFC()])), [
        AT("fine", normalized=True), AT("café", normalized=True)]),
    "nfc-no-tokens": lambda: _nfc_split(),
    # a token NFC changes: looked for by its normal form, which the C encoder is not
    # given: every text goes the normalizer's way (before, a text already in NFC went to
    # the C encoder, which missed the token)
    "nfc-token-not-in-nfc": lambda: hfp.with_added(_nfc_split(), [
        AT("cafe\u0301", normalized=True)]),
}
# the way each file's texts go when NFC changes them (Pipeline._normed_in_c; "pieces":
# not to the C encoder even when NFC leaves them)
WAY = {"nfc-raw-tokens": "plain", "nfc-normalized-tokens": "specials",
       "nfkc-nfc-normalized-tokens": "specials", "nfc-no-tokens": "specials",
       "nfc-token-not-in-nfc": "pieces"}


def _decomposed(rng: random.Random, n: int) -> str:
    words = ["the", "café", "naïve", "Ωhm", "Ωhm", "über", "façade", "ﬁne", "①", "한국어",
             "Å", "e\u0301\u0327", "\u1100\u1161\u11a8", "x\u0301\u0301", "中文", "🙂",
             "\U0002f800", "\U0001d15e", "\U000e0100", "<|im_end|>", "cafe\u0301"]
    out = []
    size = 0
    while size < n:
        w = rng.choice(words)
        w = unicodedata.normalize(rng.choice(["NFC", "NFD", "NFD"]), w)
        out.append(w + rng.choice([" ", " ", "\n", ", ", ""]))
        size += len(out[-1])
    return "".join(out)


def _random_unicode(rng: random.Random, n: int) -> str:
    """Characters of every script, and marks whose combining class every Unicode version
    agrees on (unicodedata's and tokenizers' versions differ for some newer marks)."""
    chars = []
    nfkc = normalizers.NFKC()
    while len(chars) < 4000:
        c = rng.randrange(0x20, 0x323B0)
        ch = chr(c)
        if 0xD800 <= c < 0xE000 or unicodedata.category(ch) in ("Cn", "Co") or \
                unicodedata.combining(ch):
            continue
        if nfkc.normalize_str(ch) == unicodedata.normalize("NFKC", ch):   # (decompositions
            chars.append(ch)                          # newer than tokenizers' tables: out)
    chars += ["\u0301", "\u0300", "\u0327", "\u0323", "\u1161", "\u11a8", "e", "A", "\uf900",
              "\u212b", "\u0958", "\U0001d15e", "\U000e0100"] * 50
    return "".join(rng.choice(chars) + (" " if rng.random() < 0.15 else "") for _ in range(n))


def _texts(n: int) -> dict[str, str]:
    rng = random.Random(3)
    return {"decomposed": _decomposed(rng, n), "random-unicode": _random_unicode(rng, n),
            "with-raw-tokens": _decomposed(rng, n // 2) + "<|im_start|>" + _decomposed(rng, n // 2),
            "nfc-makes-a-token": ("x cafe\u0301 y " * (n // 12)),
            "already-nfc": unicodedata.normalize("NFC", _decomposed(rng, n))}


@pytest.fixture(scope="module")
def texts():
    return _texts(30_000)


@pytest.mark.parametrize("name", sorted(FILES))
def test_long_texts(name, texts, tmp_path, monkeypatch):
    monkeypatch.setattr(normal_forms, "LONG", 1000)
    _check(name, texts, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["nfc-raw-tokens", "nfc-normalized-tokens"])
def test_texts_of_the_real_threshold(name, tmp_path):
    _check(name, _texts(normal_forms.LONG + 1000), tmp_path)


def _check(name, texts, tmp_path):
    tk = FILES[name]()
    tk.save(str(tmp_path / "tokenizer.json"))
    ours = load_tokenizer(tmp_path / "tokenizer.json")
    if WAY[name] == "pieces":
        assert not ours.pipeline._whole_if
    else:   # the C encoder for texts NFC leaves as they are, and these ways for the rest
        assert ours.pipeline._whole_if and ours.pipeline._normed_in_c == WAY[name]
    for label, text in texts.items():
        if name == "nfc-no-tokens":   # the same Unicode data on both sides
            assert tk.normalizer.normalize_str(text) == unicodedata.normalize("NFC", text)
        assert ours.encode(text, allowed_special="all") == tk.encode(text, add_special_tokens=False).ids, label
    _check_batch_and_array(name, tk, ours, texts)


def _check_batch_and_array(name, tk, ours, texts):
    """encode_batch and encode_to_array give the same ids, through the C encoder for the
    texts encode gives it (normalized here once; before, a batch with one text NFC
    changed went to a pool of Python threads, an array through a list): every text of a
    file whose added tokens are matched after the normalizer, those without a raw added
    token in them otherwise."""
    want = {label: tk.encode(text, add_special_tokens=False).ids for label, text in texts.items()}
    assert ours.encode_batch(list(texts.values()), threads=2, allowed_special="all") == list(want.values())
    for label, text in texts.items():
        assert list(ours.encode_to_array(text, allowed_special="all")) == want[label], label
        plan = ours.pipeline.route([text])
        raw_token = "<|im_start|>" in text or "café" in text
        changed = tk.normalizer.normalize_str(text) != text
        if WAY[name] == "pieces":
            assert plan is None
        elif WAY[name] == "plain" and raw_token and changed:
            assert plan is None, label
        else:
            assert plan is not None, label
            enc, given, ordinary = plan
            assert ordinary == (WAY[name] == "plain" and changed)
            assert list(enc.encode_batch(given, 2, ordinary=ordinary)[0]) == want[label], label
    if WAY[name] != "pieces":   # a batch of texts the normalizer changes, in C
        changed = [t for label, t in texts.items() if label in ("decomposed", "random-unicode")]
        raw_token = any("<|im_start|>" in t or "café" in t for t in changed)
        assert (ours.pipeline.route(changed) is None) == (WAY[name] == "plain" and raw_token)
        assert ours.encode_batch(changed, threads=2, allowed_special="all") == \
            [want["decomposed"], want["random-unicode"]]


@pytest.mark.parametrize("norm", ["NFC", "NFKC", "Metaspace"])
def test_the_words_clicked_are_the_pieces_the_normalizer_makes(tmp_path, norm):
    """With a normalizer the words (word_spans: the window's words view, a click's word
    playback, explain) are the pipeline's pieces of the normalized text at the spans of
    the text as typed: "cafe" + U+0301 + "s" is one word, "cafés", not "cafe" and a mark
    that a regex over the typed text ends it before. Each word covers the marks NFC folded
    into its last letter (tokenizers' offsets stop before them), the words tile the text,
    their rules are read off the normalized word, and each word's playback ends in the
    ids tokenizers gives that stretch of the text. Qwen2's shape (a Split pattern after
    the form: text/piece_words.NormalizedWords) and a Metaspace file's pieces
    (PieceWords) alike."""
    from bpe_gui.engine.tokenizers import word_spans
    tk = hfp.metaspace_fallback(split=True, normalizer=normalizers.NFC()) if norm == "Metaspace" \
        else hfp.normalized_split(getattr(normalizers, norm)())   # (pieces / a Split's words)
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    text = "cafe\u0301s et nai\u0308ve, re\u0301sume\u0301 \u2460 fi\ufb01 Cafe\u0301\n12 ok"
    spans = word_spans(ours.pre, ours.pre.matcher, text)
    assert [t for s, e, _k in spans for t in range(s, e)] == list(range(len(text)))
    words = [text[s:e] for s, e, _k in spans]
    assert words[0] == "cafe\u0301s" and any(w.strip() == "re\u0301sume\u0301" for w in words)
    if norm != "Metaspace":   # (a Metaspace piece has no rule of its own)
        labels = {text[s:e]: ours.pre.matcher.branches[k].label for s, e, k in spans}
        assert labels["cafe\u0301s"] == labels[" et"] == "rule 2 · letters"
    got = []
    for w in words:
        pb = ours.playback(w)
        assert list(pb.final_ids) == tk.encode(w, add_special_tokens=False).ids, w
        got += pb.final_ids
    assert got == tk.encode(text, add_special_tokens=False).ids
