"""Dead weight (engine/analysis/dead_weight.py) against a slow reference written here: every
piece of every text merged one pair at a time (the leftmost lowest-rank pair, asked of the
model's ``start`` / ``rank`` / ``whole``), counting each token each time a merge consumes
it, and each token of the result. The reference checks itself against ``encode`` (its
outputs are the tokenizer's ids), so a wrong piece or merge shows; the fast counts (native
scanner words, one build per output token) must equal it, for every kind of tokenizer."""
from __future__ import annotations

from bpe_gui.engine.corpus import files as corpus_files

import base64
import gzip
import io
import json
import random
from collections import Counter
from pathlib import Path

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine.analysis import THRESHOLD, dead_weight_of, dead_weight_of_pieces  # noqa: E402
from bpe_gui.engine.analysis import dead_weight as dw_module  # noqa: E402
from bpe_gui.engine.errors import ArgumentError, Cancelled  # noqa: E402
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.text.presets import O200K_PATTERN  # noqa: E402
from bpe_gui.engine.tokenizers.imported.spm import SpmModel  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402
from hf_files import CASES  # noqa: E402
import built_models  # noqa: E402

EOT = "<|endoftext|>"
TEXTS = [
    "Hello, World! It's 3:45pm; we'll see... don't I'M the lowest newest widest",
    "你好世界，这是一个测试。我们在学习字节对编码的分词方法。",
    "emoji 🙂👍🏽 👨\u200d👩\u200d👧 🇨🇳 done",
    "def f(x):\n    return x**2  # comment\n\tif y:  pass\n",
    "  lead\t\ttrail  \n\n a\u00a0b 12345 3.14 Привет мир",
    f"a{EOT}b {EOT} the theory thereafter them these",
    "aaaa xxxx ^^^^     hello hello hellothere ﬁne <tool>дела",
]
CORPUS = (" ".join(TEXTS) + "\n") * 20
# words no training above saw: merged tokens formed inside them, not taken whole
UNSEEN = ["thermodynamically hellos theirs lowestness widestly newer 你们好世 testing",
          "Hellothere! Worldwide... 3:45:12pm donts; emojis 🙂🙂 passes comments"]


# ----- the reference ------------------------------------------------------------------------
def reference(tok, texts) -> tuple[Counter, Counter]:
    """(output counts, merged counts), one pair at a time, every piece of every text."""
    model = tok.model
    out: Counter = Counter()
    merged: Counter = Counter()
    for text in texts:
        got: list[int] = []
        for p in tok.split(text):
            if p.special_id is not None:
                got.append(p.special_id)
                continue
            if not p.text:
                continue
            ids = list(model.start(p.text))
            rule = model.whole(p.text) if len(ids) > 1 else None
            if rule is not None:
                got.append(rule[0])
                continue
            while len(ids) > 1:
                best = None
                for k in range(len(ids) - 1):
                    r = model.rank(ids[k], ids[k + 1])
                    if r is not None and (best is None or r[0] < best[1][0]):
                        best = (k, r)
                if best is None:
                    break
                k, (_, new) = best
                merged[ids[k]] += 1
                merged[ids[k + 1]] += 1
                ids[k:k + 2] = [new]
            final = list(model.merge(p.text))
            if final != ids:   # only SentencePiece's rules (byte fallback, <unk>) rewrite
                assert isinstance(model, SpmModel), (p.text, ids, final)
            got += final
        assert got == tok.encode(text, allowed_special="all"), text
        out.update(got)
    return out, merged


def same(tok, texts) -> None:
    want_out, want_merged = reference(tok, texts)
    dw = dead_weight_of(tok, texts)
    assert dw.output == dict(want_out)
    assert {k: v for k, v in dw.merged.items() if v} == dict(want_merged)
    for i in tok.vocab:
        n = want_out[i] + want_merged[i]
        assert dw.ios(i) == (want_merged[i] / n if n else None)
    for threshold in (THRESHOLD, 0.5, 0.0):
        assert [t.id for t in dw.dead(threshold)] == sorted(
            (i for i in dw.removable if (want_out[i] + want_merged[i]) and
             want_merged[i] >= threshold * (want_out[i] + want_merged[i])),
            key=lambda i: (-want_merged[i] / (want_out[i] + want_merged[i]),
                           -want_merged[i], i))
    assert dw.dead(0.0), "no merged token occurs: the test shows nothing"
    assert sum(want_merged.values()) > 0


# ----- the kinds ------------------------------------------------------------------------------
def trained(pattern="cl100k", vocab_size=520, **kw) -> Trainer:
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=vocab_size, pattern=pattern,
                                                special_tokens=[EOT], **kw))
    t.run()
    return t


def ranks_file(path: Path, ranks: dict[bytes, int]) -> Path:
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in
                            sorted(ranks.items(), key=lambda kv: kv[1])), "ascii")
    return path


def hf_file(d: Path, case: str):
    hf = CASES[case]()
    hf.save(str(d / "tokenizer.json"))
    return load_tokenizer(d / "tokenizer.json")


def build(name: str, d: Path, monkeypatch):
    if name == "trained":
        return trained().tokenizer()
    if name == "at-step":
        return trained().tokenizer(at_step=90)
    if name == "char-level":
        return trained("whitespace", 400, mode="char").tokenizer()
    if name == "gpt2-files":
        export_tokenizer(trained("gpt2").tokenizer(), d, "gpt2")
        return load_tokenizer(d / "vocab.json")
    if name == "gpt2-tokenizers":
        hf = tokenizers.ByteLevelBPETokenizer()
        hf.train_from_iterator([CORPUS], vocab_size=600, special_tokens=[EOT],
                               show_progress=False)
        hf.save_model(str(d))
        return load_tokenizer(d / "vocab.json")
    if name.startswith("hf:"):
        return hf_file(d, name[3:])
    if name == "tiktoken-ours":
        export_tokenizer(trained("o200k").tokenizer(), d, "tiktoken")
        return load_tokenizer(d / "tokenizer.tiktoken")
    if name == "tiktoken-odd-ranks":
        base = trained("cl100k", 420).tokenizer()
        ranks = {t: i for i, t in sorted(base.vocab.items())
                 if i not in base.special_ids.values()}
        for w in (b" hello hello", b"It's", "你好".encode(), b"xxxx"):
            ranks.setdefault(w, len(ranks) + 256)
        tail = [t for t, r in ranks.items() if r >= 330]
        ids = [ranks[t] for t in tail]
        random.Random(5).shuffle(ids)
        ranks.update(dict(zip(tail, ids)))
        path = ranks_file(d / "odd.tiktoken", ranks)
        (d / "odd.tiktoken.json").write_text(json.dumps(
            {"pat_str": known.CL100K_PATTERN, "special_tokens": {EOT: max(ranks.values()) + 1}}))
        return load_tokenizer(path)
    if name == "known":
        base = trained("cl100k").tokenizer()
        ranks = {t: i for i, t in base.vocab.items() if i not in base.special_ids.values()}
        path = ranks_file(d / "renamed.tiktoken", ranks)
        fake = known.KnownEncoding("test_base", "Test", known.content_hash(path.read_bytes()),
                                   O200K_PATTERN, {EOT: max(ranks.values()) + 7})
        monkeypatch.setattr(known, "_BY_HASH", {fake.sha256: fake})
        tok = load_tokenizer(path)
        assert tok.meta["encoding"] == "test_base"
        return tok
    if name in ("spm-bpe", "spm-nfkc"):
        spm = pytest.importorskip("sentencepiece")
        out = io.BytesIO()
        opts = dict(byte_fallback=True, normalization_rule_name="identity",
                    remove_extra_whitespaces=False, user_defined_symbols=["<tool>"],
                    character_coverage=0.98, control_symbols=[EOT]) if name == "spm-bpe" \
            else dict(normalization_rule_name="nmt_nfkc", character_coverage=0.999)
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(CORPUS.splitlines() * 3), hard_vocab_limit=False,
            model_writer=out, model_type="bpe", vocab_size=400, num_threads=1, minloglevel=2,
            **opts)
        (d / "tokenizer.model").write_bytes(out.getvalue())
        return load_tokenizer(d / "tokenizer.model")
    if name == "clip":
        from tokenizers import models, pre_tokenizers, trainers
        from bpe_gui.engine.formats.clip_fmt import byte_alphabet
        hf = tokenizers.Tokenizer(models.BPE(end_of_word_suffix="</w>"))
        hf.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(),
                                                    pre_tokenizers.ByteLevel(use_regex=False)])
        hf.train_from_iterator([CORPUS.lower()], trainers.BpeTrainer(
            vocab_size=600, end_of_word_suffix="</w>", initial_alphabet=byte_alphabet(),
            show_progress=False))
        merges = [m.split(" ") if isinstance(m, str) else m
                  for m in json.loads(hf.to_str())["model"]["merges"]]
        path = d / "bpe_simple_vocab_16e6.txt.gz"
        path.write_bytes(gzip.compress(("#version: 0.2\n" + "".join(
            f"{a} {b}\n" for a, b in merges)).encode("utf-8")))
        return load_tokenizer(path)
    if name == "gguf":
        return gguf_file(d)
    if name == "tekken":
        return tekken_file(d)
    raise AssertionError(name)


def gguf_file(d: Path):
    """A GGUF written by the gguf package from a byte-level BPE tokenizers trained."""
    return load_tokenizer(built_models.gguf_file(d, CORPUS, EOT)[0])


def tekken_file(d: Path):
    """A tekken.json of trained ranks with the published pattern."""
    pytest.importorskip("mistral_common")
    return load_tokenizer(built_models.tekken_file(d, trained("o200k").tokenizer(), EOT))


KINDS = ["trained", "at-step", "char-level", "gpt2-files", "gpt2-tokenizers",
         "hf:llama3-ignore-merges", "hf:gpt2-bytelevel-regex", "hf:metaspace-first-fallback",
         "hf:metaspace-always-split", "hf:llama2-prepend-replace", "hf:nfc-split-added",
         "hf:added-tokens-flags", "hf:added-tokens-metaspace", "tiktoken-ours",
         "tiktoken-odd-ranks", "known", "spm-bpe", "spm-nfkc", "clip", "gguf", "tekken"]


@pytest.fixture(scope="module", params=KINDS)
def kind(request, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        return request.param, build(request.param, tmp_path_factory.mktemp("dw"), mp)


def test_counts_equal_the_one_pair_at_a_time_reference(kind):
    _, tok = kind
    same(tok, TEXTS + UNSEEN + [CORPUS[:3000], ""])


def test_outputs_are_the_encoding(kind):
    """What the model sees: the output counts are the encoding's ids, counted. (Five
    copies of the texts, not CORPUS's twenty: a Metaspace that never splits makes the
    whole text one piece, whose playback costs its length times its merges.)"""
    _, tok = kind
    text = (" ".join(TEXTS) + "\n") * 5
    dw = dead_weight_of(tok, text)
    assert dw.output == dict(Counter(tok.encode(text, allowed_special="all")))
    assert dw.n_chars == len(text)


# ----- the rules the fast counts rely on ---------------------------------------------------
def test_a_long_text_read_in_parts_counts_as_whole(monkeypatch):
    """Parts cut after a line break that ends every word: the same pieces as the whole."""
    tok = trained().tokenizer()
    whole = dead_weight_of(tok, CORPUS)
    monkeypatch.setattr(dw_module, "PART_CHARS", 500)
    assert list(dw_module._parts(CORPUS)) != [CORPUS]
    parts = dead_weight_of(tok, CORPUS)
    assert (parts.output, parts.merged) == (whole.output, whole.merged)


def test_whole_words_are_outputs_and_their_parts_never_formed(tmp_path):
    """tiktoken takes a word in its ranks whole: its parts are not counted as merged."""
    base = trained("cl100k", 420).tokenizer()
    ranks = {t: i for i, t in sorted(base.vocab.items()) if i not in base.special_ids.values()}
    ranks[b" zyzzyva"] = len(ranks) + 256     # no merge makes it
    path = ranks_file(tmp_path / "w.tiktoken", ranks)
    (tmp_path / "w.tiktoken.json").write_text(json.dumps({"pat_str": known.CL100K_PATTERN}))
    tok = load_tokenizer(path)
    dw = dead_weight_of(tok, "a zyzzyva")
    assert dw.output[ranks[b" zyzzyva"]] == 1
    assert dw.merged == {} or not any(dw.merged.values())


def test_a_handmade_word_counts_by_hand():
    """'aaab' with merges a+a, aa+a, aaa+b: aa formed once and merged, a three times."""
    from bpe_gui.engine.tokenizers import Tokenizer
    vocab = {i: bytes([i]) for i in range(256)}
    merges = [(b"a", b"a"), (b"aa", b"a"), (b"aaa", b"b")]
    for k, (x, y) in enumerate(merges):
        vocab[256 + k] = x + y
    tok = Tokenizer(vocab, merges, pattern=r"\S+|\s+")
    dw = dead_weight_of(tok, "aaab aaab aa")
    a, aa, aaa, aaab = 97, 256, 257, 258
    assert dw.output == {aaab: 2, aa: 1, 32: 2}
    assert dw.merged == {a: 6 + 2, aa: 2, aaa: 2, 98: 2}
    assert dw.ios(aaa) == 1.0 and dw.ios(aa) == pytest.approx(2 / 3)
    assert [t.id for t in dw.dead()] == [aaa]          # aa: 2/3 < 0.9; a, b: base symbols
    assert [t.id for t in dw.dead(0.5)] == [aaa, aa]
    assert dw.ios(259) is None and dw.never_seen() == 0
    with pytest.raises(ArgumentError, match="PickyBPE"):
        dw.dead(1.5)


def test_a_word_table_gives_the_same_counts_as_its_text():
    t = trained()
    tok = t.tokenizer()
    words = Counter(tok.pre.words(CORPUS))
    specials = Counter({tok.special_ids[EOT]: CORPUS.count(EOT)})
    a = dead_weight_of_pieces(tok, words, specials)
    b = dead_weight_of(tok, CORPUS)
    assert (a.output, a.merged) == (b.output, b.merged)


def test_progress_and_cancel():
    tok = trained().tokenizer()
    seen = []
    dead_weight_of(tok, [CORPUS, CORPUS], progress=lambda *a: seen.append(a),
                total_chars=2 * len(CORPUS))
    assert ("reading", 2 * len(CORPUS), 2 * len(CORPUS)) in seen
    assert seen[-1][0] == "merging" and seen[-1][1] == seen[-1][2] > 0
    with pytest.raises(Cancelled):
        dead_weight_of(tok, CORPUS, cancel=lambda: True)


@pytest.mark.parametrize("name", ["c.txt", "c.txt.xz", "c.jsonl"])
def test_files_streamed_in_small_chunks_count_as_their_text(tmp_path, monkeypatch, name):
    """Chunks cut anywhere (a few hundred bytes, inside characters and words): counted up
    to the last line break that ends every word, the rest carried to the next."""
    import lzma
    from bpe_gui.engine.analysis import dead_weight_of_files
    tok = trained().tokenizer()
    path = tmp_path / name
    if name.endswith(".xz"):
        path.write_bytes(lzma.compress(CORPUS.encode("utf-8")))
        want = CORPUS
    elif name.endswith(".jsonl"):
        docs = CORPUS.split("\n")
        path.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), "utf-8")
        want = "\n".join(docs)
    else:
        path.write_text(CORPUS, "utf-8")
        want = CORPUS
    monkeypatch.setattr(corpus_files, "READ_TEXT_BYTES", 300)
    seen = []
    got = dead_weight_of_files(tok, [path, path], progress=lambda *a: seen.append(a))
    whole = dead_weight_of(tok, [want, want])
    assert (got.output, got.merged) == (whole.output, whole.merged)
    assert got.n_chars == 2 * len(want)
    files = [a for a in seen if a[0] == "files"]
    assert len(files) > 4 and files[-1][1] == files[-1][2] == 2 * path.stat().st_size
    (tmp_path / "bad.txt").write_bytes("Grüße".encode("latin-1"))
    from bpe_gui.engine.errors import BPEError
    with pytest.raises(BPEError, match="bad.txt"):
        dead_weight_of_files(tok, [tmp_path / "bad.txt"])
