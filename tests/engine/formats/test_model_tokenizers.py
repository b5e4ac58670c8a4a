"""tekken.json, CLIP's merges file and Whisper's multilingual.tiktoken open as their own
libraries encode: mistral-common's Tekkenizer, CLIP's SimpleTokenizer (a slow reference
of its rules, ftfy aside) and tokenizers loading CLIP's tokenizer.json, and tiktoken."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from bpe_gui.engine.errors import ExportError, FormatError
from bpe_gui.engine.formats import (describe_source, detect_format, export_tokenizer,
                                    load_tokenizer, supported_formats)
from bpe_gui.engine.formats.clip_fmt import read_clip_merges

from clip_reference import clip_reference
from model_files import TEXTS as MODEL_TEXTS, tekken_json

TEXTS = {**MODEL_TEXTS, "specials": "<s>[INST] hi [/INST]</s><unk><SPECIAL_20>"}


# ----- tekken.json ----------------------------------------------------------------------------
def _tekkenizer(path: Path):
    tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    return tekken.Tekkenizer.from_file(str(path))


def _mistral_data() -> list[Path]:
    mc = pytest.importorskip("mistral_common")
    return sorted((Path(mc.__file__).parent / "data").glob("tekken_*.json"))


@pytest.mark.parametrize("which", ["v3", "v7"])
def test_tekken_equals_mistral_common(tekken_files, which):
    """Special tokens take the first ids, the token of rank r is id r + n_special, and a
    special token's text in the input is ordinary text (ids of its pieces)."""
    path = tekken_files[which]
    tok, mc = load_tokenizer(path), _tekkenizer(path)
    assert detect_format(path) == "tekken"
    for name, text in TEXTS.items():
        assert tok.encode(text, allowed_special="all") == mc.encode(text, bos=False, eos=False), name
    n = mc.num_special_tokens
    assert all(tok.vocab[i] == mc.id_to_piece(i).encode() for i in range(n))
    assert set(tok.special_ids.values()) == set(range(n))
    ids = tok.encode(TEXTS["english"], allowed_special="all")
    assert tok.decode(ids) == mc.decode(ids)
    enc = tok.encode_with_offsets(TEXTS["chinese"], allowed_special="all")
    assert enc.ids == tok.encode(TEXTS["chinese"], allowed_special="all")
    assert "Mistral tekken.json" in describe_source(tok)


def _version_letters() -> str:
    """Code points whose general category differs between tiktoken's Unicode tables and
    the installed regex's (U+0295 is Ll in 16.0 and Lo in 17.0: lower class or upper
    and lower), each between letters, digits and punctuation."""
    from bpe_gui.engine.text import unicode_versions as uv
    ours = uv.regex_version()
    if ours is None or ours == uv.TIKTOKEN.version:
        return ""
    a, b = uv.categories(uv.TIKTOKEN.version), uv.categories(ours)
    diff = [chr(c) for c in range(0x110000) if a[c] != b[c] and not 0xD800 <= c < 0xE000]
    return " ".join(f"a{c}b {c}{c}X !{c} 1{c}" for c in diff[:: max(1, len(diff) // 60)])


# where the tekken pattern differs from o200k's (the nearest native kind)
TEKKEN_EDGES = {
    "digit runs": "0123456789 2024/11/23 \u0660\u0661\u0662 \uff11\uff12\uff13 1,000,000.5",
    "slash runs": "a//b !//\n//c ///\r\n/ x/ /y https://x.org/a/b //\n",
    "crlf": "line one\r\nline two\r\n\r\n  indented\r\n\t\r\n",
    "apostrophes": "don't DON'T it's We'LL I'M o'clock '' 's",
    "long word": "\u00e9" * 100_000 + " " + "Ab" * 30_000,
}


@pytest.fixture(scope="module")
def tekken_pattern_file(tekken_ranks, tmp_path_factory) -> Path:
    """A v7 tekken.json of trained ranks with the pattern every published one has."""
    from bpe_gui.engine.text.presets import TEKKEN_PATTERN
    path = tmp_path_factory.mktemp("tekken-pattern") / "tekken.json"
    path.write_text(json.dumps(tekken_json(tekken_ranks, version="v7", n_special=50,
                                           specials=["<unk>", "<s>", "</s>", "[INST]"],
                                           pattern=TEKKEN_PATTERN)), "utf-8")
    return path


def test_tekken_pattern_runs_natively_with_mistral_commons_ids(tekken_pattern_file):
    """The published pattern takes the native path end to end (the tekken scanner kind
    with tiktoken's Unicode tables, the C encoder) and gives mistral-common's ids on its
    edges: digit runs, '/' runs, CRLF, apostrophes, a 100k-character word, and letters
    whose class differs between Unicode versions."""
    tok, mc = load_tokenizer(tekken_pattern_file), _tekkenizer(tekken_pattern_file)
    pipe = tok.pipeline
    assert pipe.pre.words.kind == "tekken" and pipe.pre.words.classes.library == "tiktoken"
    assert pipe.pre.words.native is not None and pipe.whole_text_encoder is not None
    texts = {**TEXTS, **TEKKEN_EDGES, "unicode versions": _version_letters()}
    for name, text in texts.items():
        assert tok.encode(text, allowed_special="all") == mc.encode(text, bos=False, eos=False), name
    text = texts["unicode versions"] + texts["slash runs"]
    assert tok.encode_with_offsets(text, allowed_special="all").ids == tok.encode(text, allowed_special="all")
    assert list(tok.encode_iterable([text[:7], text[7:50], text[50:]], chunk_chars=5, allowed_special="all")) == \
        tok.encode(text, allowed_special="all")


@pytest.mark.slow
def test_the_published_tekken_files(tmp_path):
    for path in _mistral_data():
        tok, mc = load_tokenizer(path), _tekkenizer(path)
        for name, text in TEXTS.items():
            assert tok.encode(text, allowed_special="all") == mc.encode(text, bos=False, eos=False), (path.name, name)


def test_tekken_ranks_that_repeat_are_refused_through_load(tekken_ranks, tmp_path):
    data = tekken_json(tekken_ranks, n_special=100)
    data["vocab"][300]["rank"] = 299
    p = tmp_path / "tekken.json"
    p.write_text(json.dumps(data))
    with pytest.raises(FormatError) as e:
        load_tokenizer(p)
    assert str(p) in str(e.value) and "repeats" in str(e.value)
    assert e.value.key == "vocab[300].rank"


def test_tekken_special_tokens_cannot_be_replaced(tekken_files):
    with pytest.raises(FormatError, match="special tokens are its own"):
        load_tokenizer(tekken_files["v7"], special_tokens=["<x>"])


# ----- CLIP -----------------------------------------------------------------------------------
CLIP_TEXTS = {**{k: v for k, v in TEXTS.items() if k != "specials"},
              "entities": "fish &amp; chips &lt;b&gt; &amp;amp; caf&eacute;",
              "case": "A PHOTO of ΣΑΣ and İstanbul",
              "clip_specials": "<start_of_text>a photo<end_of_text> x'<start_of_text>",
              "nfd": "e\u0301 cafe\u0301",
              # text ftfy.fix_text repairs: full-width forms, curly quotes, ligatures,
              # mojibake (the Chinese comma is a full-width form)
              "ftfy": "你好，世界！ ０１２３ “quoted” it’s ﬁne doesnâ€™t",
              "offsets_after_ftfy": "ｘ ﬁne — doesnâ€™t ok"}


def test_clip_merges_equal_clips_rules(clip_file):
    for path in (clip_file.gz, clip_file.plain):
        tok, ref = load_tokenizer(path), clip_reference(path)
        assert detect_format(path) == "clip"
        for name, text in CLIP_TEXTS.items():
            assert tok.encode(text, allowed_special="all") == ref(text), (path.name, name)
            enc = tok.encode_with_offsets(text, allowed_special="all")
            assert enc.ids == tok.encode(text, allowed_special="all")
            assert all(0 <= a <= b <= len(text) for a, b in enc.offsets)
        assert "ftfy" in describe_source(tok)
    assert tok.decode(tok.encode("a photo of a cat", allowed_special="all")) == "a photo of a cat "


@pytest.mark.regression
def test_clip_cleans_with_ftfy_as_open_clip_does(clip_file):
    """open_clip runs ftfy.fix_text first and we skipped it: Chinese (its full-width
    comma), full-width digits, curly quotes got other ids."""
    tok, ref = load_tokenizer(clip_file.gz), clip_reference(clip_file.gz)
    for text in (CLIP_TEXTS["ftfy"], "a，b ０ “x”", CLIP_TEXTS["offsets_after_ftfy"]):
        assert tok.encode(text, allowed_special="all") == ref(text), text
        enc = tok.encode_with_offsets(text, allowed_special="all")
        assert enc.ids == tok.encode(text, allowed_special="all")
        pieces = [text[a:b] for a, b in enc.offsets]
        assert all(p for p in pieces), pieces   # every token points at what it came from
    assert "ftfy.fix_text" in tok.meta["label"]


def test_clip_without_ftfy_says_what_is_missing(clip_file, monkeypatch):
    from bpe_gui.engine.tokenizers.imported import clip
    monkeypatch.setattr(clip, "fix_text", None)
    tok = load_tokenizer(clip_file.gz)
    assert "pip install ftfy" in tok.meta["label"]
    assert tok.encode("a photo", allowed_special="all") == clip_reference(clip_file.gz)("a photo")


def _published_clip() -> Path | None:
    """CLIP's own bpe_simple_vocab_16e6.txt.gz: BPE_GUI_CLIP_VOCAB, or an installed
    open_clip's (found without importing it: it imports torch)."""
    import importlib.util
    import os
    if os.environ.get("BPE_GUI_CLIP_VOCAB"):
        return Path(os.environ["BPE_GUI_CLIP_VOCAB"])
    spec = importlib.util.find_spec("open_clip")
    if spec is not None and spec.submodule_search_locations:
        path = Path(list(spec.submodule_search_locations)[0]) / "bpe_simple_vocab_16e6.txt.gz"
        return path if path.is_file() else None
    return None


def test_the_published_clip_vocabulary_equals_open_clips_rules():
    path = _published_clip()
    if path is None:
        pytest.skip("CLIP's bpe_simple_vocab_16e6.txt.gz is not here (pip download --no-deps "
                    "open_clip_torch; set BPE_GUI_CLIP_VOCAB to the file inside)")
    tok, ref = load_tokenizer(path), clip_reference(path)
    for name in ("english", "chinese", "arabic", "emoji", "digits", "ftfy", "case"):
        text = CLIP_TEXTS[name]
        assert tok.encode(text, allowed_special="all") == ref(text), name


def _clip_tokenizer_json(clip_file, tmp_path) -> Path:
    """CLIP's tokenizer.json (end_of_word_suffix '</w>', as transformers converts it),
    built with tokenizers from the same merges."""
    tk = pytest.importorskip("tokenizers")
    from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers
    cm = read_clip_merges(clip_file.gz)
    vocab = {t: i for i, t in enumerate(cm.vocab())}
    vocab = {("<|startoftext|>" if t == "<start_of_text>" else
              "<|endoftext|>" if t == "<end_of_text>" else t): i for t, i in vocab.items()}
    hf = tk.Tokenizer(models.BPE(vocab, list(cm.merges), end_of_word_suffix="</w>",
                                 continuing_subword_prefix="", unk_token="<|endoftext|>"))
    hf.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(
        Regex(r"\s+"), " "), normalizers.Lowercase()])
    hf.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(
        r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]"""
        r"""|[^\s\p{L}\p{N}]+"""), behavior="removed", invert=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False)])
    hf.decoder = decoders.ByteLevel()
    hf.add_special_tokens(["<|startoftext|>", "<|endoftext|>"])
    data = json.loads(hf.to_str())
    data["model"]["continuing_subword_prefix"] = None
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(data))
    return p


def test_clip_tokenizer_json_equals_tokenizers(clip_file, tmp_path):
    """CLIP's tokenizer.json against tokenizers: ids and offsets."""
    tk = pytest.importorskip("tokenizers")
    p = _clip_tokenizer_json(clip_file, tmp_path)
    hf = tk.Tokenizer.from_file(str(p))
    tok = load_tokenizer(p)
    for name, text in TEXTS.items():
        if name == "specials":
            continue
        want = hf.encode(text, add_special_tokens=False)
        assert tok.encode(text, allowed_special="all") == want.ids, name
        if name != "long":
            assert tok.encode_with_offsets(text, allowed_special="all").offsets == [tuple(o) for o in want.offsets]


def test_clip_files_refuse_exports_with_the_reason(clip_file, tmp_path):
    """CLIP's cleaning and '</w>' are held by no written format: every export but the
    merges CSV says why (they wrote files that encode otherwise, or that do not load)."""
    for tok, what in ((load_tokenizer(clip_file.gz), "CLIP cleans the text"),
                      (load_tokenizer(_clip_tokenizer_json(clip_file, tmp_path)),
                       "end_of_word_suffix")):
        assert supported_formats(tok) == ["csv"]
        for fmt in ("hf", "gpt2", "tiktoken", "native"):
            with pytest.raises(ExportError, match=what):
                export_tokenizer(tok, tmp_path / fmt, fmt)
            assert not (tmp_path / fmt).exists() or not any((tmp_path / fmt).iterdir())


def test_training_on_a_clip_file_is_refused_with_the_reason(clip_file, tmp_path):
    from bpe_gui.engine.errors import SettingsError
    from bpe_gui.engine.train import TrainSettings, train_on
    corpus = tmp_path / "c.txt"
    corpus.write_text("A Photo of a CAT &amp; a dog\n" * 50, "utf-8")
    with pytest.raises(SettingsError, match="CLIP cleans the text"):
        train_on(load_tokenizer(clip_file.gz), str(corpus), TrainSettings(num_merges=5))


# ----- Whisper's multilingual.tiktoken ------------------------------------------------------------
def test_an_empty_token_is_read_as_tiktoken_reads_it(tmp_path):
    """Whisper's multilingual.tiktoken has '= 50256': the empty token, which tiktoken and
    Whisper accept (it was refused: 'b'=' is not valid base64')."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe
    ranks = {bytes([b]): b for b in range(256)}
    for w in (b"th", b"the", b" the", b"in", b"ing", b" a"):
        ranks[w] = len(ranks)
    lines = [f"{base64.b64encode(t).decode()} {r}" for t, r in ranks.items()]
    empty = len(ranks)
    lines.append(f"= {empty}")
    lines.append(f"{base64.b64encode(b'er').decode()} {empty + 1}")
    p = tmp_path / "multilingual.tiktoken"
    p.write_text("\n".join(lines) + "\n")
    (tmp_path / "multilingual.tiktoken.json").write_text(json.dumps(
        {"pat_str": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
         "special_tokens": {"<|endoftext|>": empty + 2}}))
    meta = json.loads((tmp_path / "multilingual.tiktoken.json").read_text())
    enc = tiktoken.Encoding("w", pat_str=meta["pat_str"], mergeable_ranks=load_tiktoken_bpe(str(p)),
                            special_tokens=meta["special_tokens"])
    tok = load_tokenizer(p)
    assert tok.vocab[empty] == b""
    for text in ("the thing in the inner", "singer  the<|endoftext|>x"):
        assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    assert tok.decode([empty, ranks[b"the"]]) == "the"


def test_a_line_of_only_padding_twice_is_two_empty_ids(tmp_path):
    p = tmp_path / "t.tiktoken"
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    p.write_text("\n".join(lines + ["= 256", "== 257"]) + "\n")
    tok = load_tokenizer(p, pattern="gpt2")
    assert tok.vocab[256] == tok.vocab[257] == b""


# ----- unsupported kinds are named ---------------------------------------------------------------
def test_unsupported_files_name_their_format(tmp_path, spm_models):
    bad = tmp_path / "tokenizer.json"
    bad.write_bytes(bytes(range(256)) * 20)
    with pytest.raises(FormatError, match="binary"):
        load_tokenizer(bad)
    junk = tmp_path / "junk.json"
    junk.write_text('{"hello": "world", "n": [1, 2]}')
    with pytest.raises(FormatError, match="of no tokenizer format"):
        load_tokenizer(junk)
    with pytest.raises(FormatError, match="Unigram"):
        load_tokenizer(spm_models["unigram"].path)
    assert load_tokenizer(spm_models["bpe_llama"].path).encode("a b", allowed_special="all")   # BPE ones open
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] +
                               [f"w{i}" for i in range(50)]))
    with pytest.raises(FormatError, match="WordPiece"):
        load_tokenizer(vocab)
