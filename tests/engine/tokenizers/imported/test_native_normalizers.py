"""tokenizer.json normalizers and Metaspace encode ids without the per-character offset
table (issue 28/29: a normalizer used to send every text down the NStr path), and a
Metaspace file that does not split (the whole text one word) is merged by segments where
no merge crosses; ids stay ``tokenizers``' own on long and odd texts."""
from __future__ import annotations

import random

import pytest

tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.tokenizers.imported import normalized  # noqa: E402

from hf_files import CASES, CORPUS, SAMPLES  # noqa: E402

PLAIN_CASES = ["nfc", "nfkc-lowercase", "replace-regex", "prepend", "metaspace-first-fallback",
               "metaspace-always-split", "metaspace-nfkc", "llama2-prepend-replace",
               "precompiled-nmt-nfkc", "precompiled-nfkc-cf-collapse",
               "added-tokens-normalized-lowercase", "added-tokens-metaspace"]


@pytest.fixture(scope="module", params=PLAIN_CASES)
def pair(request, tmp_path_factory):
    tk = CASES[request.param]()
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tk.save(str(path))
    return request.param, tk, load_tokenizer(path)


def _long_text(seed: int) -> str:
    rnd = random.Random(seed)
    parts = SAMPLES + CORPUS + ["ｅ\u0301 ﬁ ① \u00a0 \u3000 \x01 ΣΑΣ İ", "  ", "\n\n"]
    return " ".join(rnd.choice(parts) for _ in range(400))


def test_long_texts_equal_tokenizers(pair):
    name, tk, ours = pair
    for seed in range(3):
        text = _long_text(seed)
        assert ours.encode(text, allowed_special="all") == tk.encode(text, add_special_tokens=False).ids


def test_ids_need_no_offset_table(pair, monkeypatch):
    """encode() runs the normalizer on plain text: no NStr transform, replace or prepend."""
    name, tk, ours = pair

    def refuse(*a, **k):
        raise AssertionError("the offset table was built for ids")

    for method in ("transform", "replace", "prepend", "map_chars"):
        monkeypatch.setattr(normalized.NStr, method, refuse)
    text = _long_text(9)
    assert ours.encode(text, allowed_special="all") == tk.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("unit", ["x", "ab", " ", "你", "e\u0301", "ﬁ"])
def test_a_100k_character_word(pair, unit):
    name, tk, ours = pair
    text = unit * (100_000 // len(unit))
    assert ours.encode(text, allowed_special="all") == tk.encode(text, add_special_tokens=False).ids


def test_a_metaspace_file_that_does_not_split_is_cut_in_c(tmp_path):
    tk = CASES["metaspace-first-fallback"]()
    tk.save(str(tmp_path / "tokenizer.json"))
    ours = load_tokenizer(tmp_path / "tokenizer.json")
    text = "▁" + _long_text(4).replace(" ", "▁")
    cut = ours.pipeline.model.encode_cut(text)
    if cut is None:
        pytest.skip("the pure-Python model merges whole words")
    assert cut == list(ours.pipeline.model.merge(text))


def _metaspace_whole(byte_fallback: bool, fuse_unk: bool, drop_bytes: range = range(0)):
    """A Metaspace file that does not split (Mistral 7B's kind), with or without byte
    fallback and fused <unk>s, some byte tokens left out."""
    from hf_files import BYTES, train
    from tokenizers import models, pre_tokenizers
    tk = tokenizers.Tokenizer(models.BPE(byte_fallback=byte_fallback, unk_token="<unk>",
                                         fuse_unk=fuse_unk))
    tk.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first",
                                                split=False)
    kept = [t for b, t in enumerate(BYTES) if b not in drop_bytes]
    return train(tk, 700, ["<unk>", "<s>", "</s>", *kept])


def _cjk_heavy(seed: int) -> str:
    """~60 KB of UTF-8: Chinese the file knows, runs of rare CJK characters that are no
    token (byte tokens, or <unk>s that may fuse), emoji and the samples."""
    rnd = random.Random(seed)
    known = "".join(s for s in SAMPLES + CORPUS if any("\u4e00" <= c <= "\u9fff" for c in s))
    out: list[str] = []
    while len(out) < 10_000:
        r = rnd.random()
        if r < 0.6:
            out.append(rnd.choice(known))
        elif r < 0.85:
            out += [chr(rnd.randint(0x9000, 0x9FA5)) for _ in range(rnd.randint(1, 3))]
        elif r < 0.9:
            out.append(chr(rnd.randint(0x1F600, 0x1F64F)))
        else:
            out.append(" " + rnd.choice(SAMPLES))
    return "".join(out).replace("<", "")   # no added token: the text is one word


@pytest.mark.parametrize("byte_fallback, fuse_unk, drop", [
    (True, True, range(0)),            # Mistral 7B's: every character has its bytes
    (True, True, range(0xE4, 0xEA)),   # Chinese lead bytes missing: <unk>s, fused
    (False, True, range(0)),           # no byte fallback: runs of <unk> fused
    (False, False, range(0)),          # one <unk> per character
], ids=["all-bytes", "some-bytes-missing", "unk-fused", "unk-per-character"])
def test_long_cjk_text_through_the_c_cuts(byte_fallback, fuse_unk, drop, tmp_path):
    """The whole text one word, cut in C where no merge crosses, short segments from the
    encoder's table: ids as tokenizers gives them, whatever becomes of unknown characters."""
    tk = _metaspace_whole(byte_fallback, fuse_unk, drop)
    tk.save(str(tmp_path / "tokenizer.json"))
    ours = load_tokenizer(tmp_path / "tokenizer.json")
    for seed in range(2):
        text = _cjk_heavy(seed)
        assert ours.encode(text, allowed_special="all") == tk.encode(text, add_special_tokens=False).ids


def test_a_replace_at_the_start_reads_where_the_piece_starts(tmp_path):
    """Metaspace 'first' prepends only to a piece that starts the original text; a Replace
    that removes the first characters moves that start, and the plain-text path says so."""
    tk = CASES["replace-at-start-metaspace-first"]()
    tk.save(str(tmp_path / "tokenizer.json"))
    ours = load_tokenizer(tmp_path / "tokenizer.json")
    assert ours.pipeline.normalize.text_start("  xxlead") == ("lead", False)
    assert ours.pipeline.normalize.text_start("lead  x") == ("lead  x", True)
    for text in ["  xxlead", "xxa xx b", "   ", "lead  x"]:
        assert ours.encode(text, allowed_special="all") == tk.encode(text, add_special_tokens=False).ids


def _with_charsmap(tmp_path, blob: bytes):
    import base64
    import json
    tk = CASES["precompiled-nmt-nfkc"]()
    data = json.loads(tk.to_str())
    data["normalizer"]["precompiled_charsmap"] = base64.b64encode(blob).decode()
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.mark.parametrize("damage, words", [
    (lambda b: b[:3], "shorter than its 4-byte header"),
    (lambda b: (len(b) * 2).to_bytes(4, "little") + b[4:], "longer than the blob"),
    (lambda b: b[:4] + (0x7FFFFC00).to_bytes(4, "little") + b[8:], "points outside itself"),
    (lambda b: b[:-40] + b"\xff\xfe" + b[-38:], "not UTF-8"),
])
def test_a_damaged_precompiled_charsmap_is_refused_naming_it(tmp_path, damage, words):
    from bpe_gui.engine.errors import FormatError
    from hf_files import charsmap
    path = _with_charsmap(tmp_path, damage(charsmap()))
    with pytest.raises(FormatError) as e:
        load_tokenizer(path)
    assert words in str(e.value) and e.value.key == "normalizer.precompiled_charsmap"


@pytest.mark.parametrize("text", ["世界\u0301\u0f37\u0301x", "a\u0301\u0f37\u0301b",
                                  "x\u0327\u0301\u0323y", "q\u0301\u0323", "\u1ea1\u0301"])
def test_offsets_through_canonical_reordering(text, tmp_path):
    """NFC reorders combining marks (U+0F37 sorts after U+0301's class): a mark that moves
    before one of an earlier character's marks gave the offset table a source that went
    back, and encode_with_offsets an IndexError. Ids are tokenizers'; offsets stay in
    the text, in order, and are tokenizers' own except where NFC composes a letter with a
    mark from beyond the moved one ('a\u0301\u0f37': tokenizers keeps U+0F37 at its
    place; here it takes the composed letter's)."""
    tk = CASES["nfc"]()
    tk.save(str(tmp_path / "tokenizer.json"))
    ours = load_tokenizer(tmp_path / "tokenizer.json")
    want = tk.encode(text, add_special_tokens=False)
    enc = ours.encode_with_offsets(text, allowed_special="all")
    assert list(enc.ids) == want.ids
    assert all(0 <= s <= e <= len(text) for s, e in enc.offsets)
    assert [s for s, _ in enc.offsets] == sorted(s for s, _ in enc.offsets)
    if not text.startswith("a"):
        assert list(map(tuple, enc.offsets)) == list(map(tuple, want.offsets))
