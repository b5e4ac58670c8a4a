"""Per-language cost (engine/langcost.py): every number recomputed here from the whole
text, encoded by tiktoken (byte-level tokenizers, built from the same vocabulary) or
Hugging Face tokenizers (a tokenizer.json), with the Rényi formula written out."""
from __future__ import annotations

from bpe_gui.engine.corpus import files as corpus_files

import csv
import gzip
import io
import json
import lzma
import math
from collections import Counter

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine.corpus.counting import Cancelled  # noqa: E402
from bpe_gui.engine.errors import CorpusError, NotUTF8Error, SettingsError  # noqa: E402
from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.analysis.per_language import CSV_COLUMNS, held_out_files, language_cost  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402
from hf_files import CASES  # noqa: E402

TEXTS = {
    "en": "The quick brown fox jumps over the lazy dog. It's 3:45pm; we'll see...\n" * 40,
    "zh": "满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？\n你好世界，这是一个测试。\n" * 40,
    "ru": "Съешь же ещё этих мягких французских булок, да выпей чаю.\n" * 40,
    "mix": "emoji 🙂👍🏽 def f(x):\n    return x**2  # é e\u0301<|endoftext|>\n" * 40,
}
DOCS = ["مرحبا بالعالم", "نص عربي قصير للتدريب", "", "سطر\nجديد"]


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "held"
    d.mkdir()
    (d / "en.txt").write_text(TEXTS["en"], "utf-8")
    (d / "zh.txt.xz").write_bytes(lzma.compress(TEXTS["zh"].encode()))
    (d / "ru.md.gz").write_bytes(gzip.compress(b"\xef\xbb\xbf" + TEXTS["ru"].encode()))
    (d / "mix.txt").write_text(TEXTS["mix"], "utf-8")
    (d / "ar.jsonl").write_text("\n".join(json.dumps({"text": t}) for t in DOCS) + "\n",
                                "utf-8")
    (d / "notes.csv").write_text("ignored", "utf-8")
    (d / ".hidden.txt").write_text("ignored", "utf-8")
    return d


def whole_texts() -> dict[str, str]:
    return {**TEXTS, "ar": "\n".join(DOCS)}


def trained(**kw):
    text = "".join(TEXTS.values())
    t = Trainer.from_text(text, TrainSettings(special_tokens=("<|endoftext|>",), **kw))
    t.run()
    return t.tokenizer()


def tiktoken_of(tok):
    ranks = {t: i for i, t in tok.vocab.items() if i not in tok.special_ids.values()}
    enc = tiktoken.Encoding("o", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=dict(tok.special_ids))
    return lambda text: enc.encode(text, allowed_special="all")


def renyi(counts, size, alpha=2.5):
    n = sum(counts)
    return math.log(sum((c / n) ** alpha for c in counts)) / (1 - alpha) / math.log(size)


def expected_rows(encoders, sizes, reference):
    out = {}
    for lang, text in whole_texts().items():
        for label, enc in encoders.items():
            ids = enc(text)
            c = Counter(ids)
            out[lang, label] = dict(chars=len(text), bytes=len(text.encode()), tokens=len(ids),
                                    types=len(c), renyi=renyi(c.values(), sizes[label]))
    for (lang, label), row in out.items():
        row["parity"] = row["tokens"] / out[reference, label]["tokens"]
    return out


@pytest.fixture(scope="module")
def hf_pair(tmp_path_factory):
    tk = CASES["metaspace-first-fallback"]()
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tk.save(str(path))
    return tk, load_tokenizer(path)


@pytest.mark.parametrize("read_bytes", [1 << 20, 97])   # 97: chunks cut inside characters
def test_every_number_matches_the_oracles(folder, hf_pair, monkeypatch, read_bytes):
    monkeypatch.setattr(corpus_files, "READ_TEXT_BYTES", read_bytes)
    a, b = trained(vocab_size=500), trained(vocab_size=420, pattern="cl100k")
    tk, hf = hf_pair
    toks = {"a": a, "b": b, "hf": hf}
    encoders = {"a": tiktoken_of(a), "b": tiktoken_of(b),
                "hf": lambda t: tk.encode(t, add_special_tokens=False).ids}
    sizes = {"a": len(a.vocab), "b": len(b.vocab), "hf": tk.get_vocab_size()}
    table = language_cost(folder, toks, reference="ru")
    want = expected_rows(encoders, sizes, "ru")
    assert table.languages == ("ar", "en", "mix", "ru", "zh")
    assert table.tokenizers == ("a", "b", "hf") and table.reference == "ru"
    assert len(table.rows) == 15
    for r in table.rows:
        w = want[r.language, r.tokenizer]
        assert (r.chars, r.bytes, r.tokens, r.types) == \
            (w["chars"], w["bytes"], w["tokens"], w["types"]), (r.language, r.tokenizer)
        assert r.vocab_size == sizes[r.tokenizer]
        assert r.bytes_per_token == pytest.approx(w["bytes"] / w["tokens"])
        assert r.tokens_per_char == pytest.approx(w["tokens"] / w["chars"])
        assert r.parity == pytest.approx(w["parity"])
        assert r.renyi == pytest.approx(w["renyi"], rel=1e-12)
    # the CSV holds the same numbers
    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 15
    for row in rows:
        r = table.row(row["language"], row["tokenizer"])
        assert int(row["tokens"]) == r.tokens and int(row["characters"]) == r.chars
        assert float(row["parity"]) == pytest.approx(r.parity, rel=1e-9)
        assert float(row["renyi_efficiency"]) == pytest.approx(r.renyi, rel=1e-9)
        assert float(row["bytes_per_token"]) == pytest.approx(r.bytes_per_token, rel=1e-9)
        assert row["reference"] == "ru" and float(row["alpha"]) == 2.5


def test_default_reference_and_alpha(folder):
    tok = trained(vocab_size=400)
    table = language_cost(folder, {"t": tok}, alpha=1.0)
    assert table.reference == "en" and table.row("en", "t").parity == 1.0
    enc = tiktoken_of(tok)
    c = Counter(enc(TEXTS["zh"]))
    n = sum(c.values())
    shannon = -sum(v / n * math.log(v / n) for v in c.values()) / math.log(len(tok.vocab))
    assert table.row("zh", "t").renyi == pytest.approx(shannon, rel=1e-12)
    (folder / "en.txt").unlink()
    assert language_cost(folder, {"t": tok}).reference == "ar"   # no en: the first


def test_files_are_streamed_in_blocks(folder, monkeypatch):
    monkeypatch.setattr(corpus_files, "READ_TEXT_BYTES", 256)
    tok = trained(vocab_size=400)
    seen = []
    real = tok.encode_iterable

    def spy(chunks, *a, **kw):
        chunks = list(chunks)
        seen.append(max(map(len, chunks)))
        return real(iter(chunks), *a, **kw)
    monkeypatch.setattr(tok, "encode_iterable", spy)
    progress = []
    language_cost(folder, {"t": tok}, progress=lambda d, n: progress.append((d, n)))
    assert max(seen) <= 256
    assert progress[-1][0] == progress[-1][1] and progress == sorted(progress)


def test_cancel_stops(folder):
    with pytest.raises(Cancelled):
        language_cost(folder, {"t": trained(vocab_size=300)}, cancel=lambda: True)


def test_bad_input_gets_a_clear_message(folder, tmp_path):
    tok = {"t": trained(vocab_size=300)}
    with pytest.raises(SettingsError, match="reference language 'xx'.*ar, en, mix, ru, zh"):
        language_cost(folder, tok, reference="xx")
    with pytest.raises(SettingsError, match="at least one"):
        language_cost(folder, {})
    with pytest.raises(CorpusError, match="not a folder"):
        held_out_files(folder / "en.txt")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CorpusError, match="no .txt"):
        held_out_files(empty)
    (folder / "en.md").write_text("again", "utf-8")
    with pytest.raises(CorpusError, match="two files for the language 'en'"):
        held_out_files(folder)
    (folder / "en.md").unlink()
    (folder / "de.txt").write_bytes("schön".encode() + b"\xff\xfe rest")
    with pytest.raises(NotUTF8Error) as e:
        language_cost(folder, tok)
    assert e.value.offset == len("schön".encode()) and "de.txt" in str(e.value)
    (folder / "de.txt").write_bytes(b"\x00\x01binary" * 20)
    with pytest.raises(CorpusError, match="binary"):
        language_cost(folder, tok)
